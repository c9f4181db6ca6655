"""make mm-selftests: mainline's own mm kselftests on the base and on the
series (configs/mm-selftests.ini), compared test by test.

The guest runs bench/mm-selftests.sh, which prints one line per test:
    MMTEST <name> pass|fail|skip rc=<exit status>
Every test that passes on the base must pass on the series. A test that
fails or skips on both is listed, not counted against the series. The
table of both kernels' results goes to mm-selftests-compare.md beside the
run's logs and the usual benchmark report of the counts, in
build/results/bench-mm-selftests/ (the counts' JSON and plot to
bench/results/mm-selftests.*).
"""
import os
import re

from . import bench, ktap, paths, results

INI = os.path.join(paths.CONFIGS, 'mm-selftests.ini')
NAME = 'mm-selftests'
# Tests that must pass on the base for the comparison to mean something
# (a guest that lacks a program or a kernel option fails or skips both).
MIN_BASE_PASSES = 12
_LINE = re.compile(r'^MMTEST (\S+) (pass|fail|skip) rc=(\d+)', re.M)


def parse(text):
    """{test: (status, rc)} of one console log, in the order run."""
    return {m.group(1): (m.group(2), int(m.group(3))) for m in _LINE.finditer(text)}


def compare(ref_name, ref, other_name, other):
    """Cases, one per test either kernel ran: PASS when the series does
    at least as well as the base, FAIL when a test that passes on the base
    does not pass on the series (or did not run there), SKIP when neither
    kernel passes it."""
    cases = []
    for test in list(dict.fromkeys(list(ref) + list(other))):
        a = ref.get(test, ('missing', None))[0]
        b = other.get(test, ('missing', None))[0]
        if b == 'pass':
            cases.append(ktap.Case(test, ktap.PASS))
        elif a == 'pass':
            cases.append(ktap.Case(test, ktap.FAIL, f'passes on {ref_name}, {b} on '
                                   f'{other_name}'))
        else:
            cases.append(ktap.Case(test, ktap.SKIP, f'{a} on {ref_name}, {b} on '
                                   f'{other_name}'))
    return cases


def markdown(names, per_kernel, cases):
    """The per-test table: each kernel's result (and exit status)."""
    out = ['| Test | ' + ' | '.join(names) + ' | Verdict |',
           '|---' * (len(names) + 2) + '|']
    for c in cases:
        cells = []
        for n in names:
            status, rc = per_kernel[n].get(c.name, ('not run', None))
            cells.append(status + (f' (rc {rc})' if rc not in (None, 0) else ''))
        verdict = {'pass': 'ok', 'fail': 'REGRESSION', 'skip': 'neither passes'}[c.status]
        out.append(f'| {c.name} | ' + ' | '.join(cells) + f' | {verdict} |')
    return '\n'.join(out) + '\n'


def main(btable):
    spec = bench.load(INI, None, btable)[NAME]
    text, bad, logs = bench.run_logs(spec, btable, 'make mm-selftests')
    print(text)
    names = list(logs)
    per_kernel = {n: parse(logs[n]) for n in names}
    problems = [f'kernel {n}: no MMTEST line (see build/results/bench-{NAME}/)'
                for n in names if not per_kernel[n]]
    if bad:
        problems.append(f'{bad} boots had problems (splat, timeout, workload did not '
                        f'finish): see the table above')
    base_passes = sum(1 for s, _ in per_kernel[names[0]].values() if s == 'pass')
    if per_kernel[names[0]] and base_passes < MIN_BASE_PASSES:
        problems.append(f'only {base_passes} tests pass on {names[0]} (at least '
                        f'{MIN_BASE_PASSES} must, or the comparison shows little)')
    cases = compare(names[0], per_kernel[names[0]], names[-1], per_kernel[names[-1]])
    table_md = markdown(names, per_kernel, cases)
    logdir = paths.bench_logs(NAME)
    os.makedirs(logdir, exist_ok=True)
    with open(os.path.join(logdir, NAME + '-compare.md'), 'w') as f:
        f.write(f'# {NAME}: per test\n\n{spec.summary}\n\n{table_md}')
    print(table_md)
    return results.Summary(NAME, cases, problems)
