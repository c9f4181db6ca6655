"""make mm-selftests: mainline's own mm kselftests on the base and on the
series (configs/mm-selftests.ini), compared test by test.

The guest runs bench/mm-selftests.sh, which prints one line per test:
    MMTEST <name> pass|fail|skip rc=<exit status>
Every test that passes on the base must pass on the series. A test that
fails or skips on both is listed, not counted against the series. The
table of both kernels' results goes to bench/results/mm-selftests-compare.md
(and the usual benchmark table of the counts to mm-selftests.md).
"""
import os
import re

from . import bases, bench, ktap, paths, pipeline, results

INI = os.path.join(paths.CONFIGS, 'mm-selftests.ini')
NAME = 'mm-selftests'
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
    table = bench.load(INI, None, btable)
    spec = table[NAME]
    base = bases.lookup(btable, spec.guest.base)
    pipeline.ensure_tree(base)
    text, bad = bench.run(paths.ROOT, spec, paths.BENCH_RESULTS, base,
                          pipeline.tree_of(base))
    print(text)
    logdir = os.path.join(paths.RESULTS, 'bench-' + NAME)
    names = [k.name for k in spec.kernels]
    per_kernel = {}
    problems = []
    for n in names:
        with open(os.path.join(logdir, f'{n}-run1.log'), errors='replace') as f:
            per_kernel[n] = parse(f.read())
        if not per_kernel[n]:
            problems.append(f'kernel {n}: no MMTEST line (see {logdir})')
    if bad:
        problems.append(f'{bad} boots had problems (splat, timeout, workload did not '
                        f'finish): see {os.path.relpath(logdir, paths.ROOT)}')
    cases = compare(names[0], per_kernel[names[0]], names[-1], per_kernel[names[-1]])
    table_md = markdown(names, per_kernel, cases)
    with open(os.path.join(paths.BENCH_RESULTS, NAME + '-compare.md'), 'w') as f:
        f.write(f'# {NAME}: per test\n\n{spec.summary}\n\n{table_md}')
    print(table_md)
    return results.Summary(NAME, cases, problems)
