"""make mm-selftests: mainline's own mm kselftests on the base and on the
series (configs/mm-selftests.ini), compared test by test.

The guest (bench/mm-selftests.sh) runs the tree's own
tools/testing/selftests/mm/run_vmtests.sh once per category (-t CATEGORY),
then a few tests no category has, by hand, and prints what run_vmtests.sh
prints. Per test a header, "# running ./PROGRAM ARGS" between two lines as
long as it (dashes; BusyBox's tr, which has no [:graph:], writes other
characters), the test's output prefixed "# ", then one TAP line:
    ok N NAME  |  ok N NAME # SKIP  |  not ok N NAME # exit=RC
run_vmtests.sh names a test by its command without "./". A test it skips
without starting prints "# [SKIP] ./PROGRAM ARGS" alone. Each category's
run starts with "TAP version 13" and the guest ends it with
    MMCATEGORY <category> rc=<rc>
A header that gets no TAP line is a test that never finished: killed with
its category at the timeout (rc 124), or the boot ended.

Every test that passes on the base must pass on the series. A test that
fails or skips on both is listed, not counted against the series; the
cases of its own TAP output that pass on the base and fail on the series
are named. The table of both kernels' results goes to
mm-selftests-compare.md beside the run's logs and the usual benchmark
report of the counts, in build/results/bench-mm-selftests/ (the counts'
JSON and plot to bench/results/mm-selftests.*).
"""
import dataclasses
import os
import re

from . import bench, console, ktap, paths, results

INI = os.path.join(paths.CONFIGS, 'mm-selftests.ini')
NAME = 'mm-selftests'
# Tests that must pass on the base for the comparison to mean something
# (a guest that lacks a program or a kernel option fails or skips both).
MIN_BASE_PASSES = 12
HAND_RUN = 'hand-run'
# The guest's once-a-second meminfo line (harness/guest/bench) reaches
# the console between two writes of a test's output, so possibly in the
# middle of a line: taken out wherever it stands.
_SAMPLE = re.compile(r'SAMPLE t=[0-9.]+(?: \w+=[0-9.]+)*\r?\n')
_RESULT = re.compile(r'^(not )?ok \d+ (.+?)(?: # (SKIP|exit=(-?\d+))\b.*)?$')
_NOT_STARTED = re.compile(r'^# \[SKIP\] (.+)$')
_RUNNING = re.compile(r'^# running (.+)$')
_CATEGORY = re.compile(r'^MMCATEGORY (\S+) rc=(\d+)')
# run_vmtests.sh runs split_huge_page_test and khugepaged all:file in a
# mktemp directory when the kernel has XFS: the same name on both kernels.
_TMPDIR = re.compile(r'(/tmp/xfs_dir_)\w+')


@dataclasses.dataclass
class Test:
    status: str                 # ktap.PASS, FAIL or SKIP
    rc: int = None              # exit status, None when it never finished
    category: str = HAND_RUN    # run_vmtests.sh's category, or HAND_RUN
    cases: dict = dataclasses.field(default_factory=dict)  # its own TAP: name -> status


@dataclasses.dataclass
class Run:
    tests: dict                 # name -> Test, in the order run
    categories: dict            # category -> (rc, [test names])


def _name(command):
    """run_vmtests.sh's name of a test (pretty_name()): its command
    without "./" or "bash ./"."""
    return _TMPDIR.sub(r'\1XXXXXX', re.sub(r'^(bash )?\./', '', command.strip()))


def _lines(text):
    text = _SAMPLE.sub('', text)
    if console.BENCH_BEGIN in text:
        return console.split(text, console.BENCH_BEGIN, console.BENCH_END)[0]
    return text.splitlines()


def _own_cases(nested):
    """{case: status} of the TAP a test printed itself (@nested: its
    lines with run_vmtests.sh's "# " taken off)."""
    block = ktap.parse('\n'.join(nested))
    return {c.name: c.status for r in block.results for c in ktap.cases(r)}


def _header(lines, i):
    """The command of the test whose header line is @lines[@i], else None:
    "# running COMMAND" between two equal lines as long as it."""
    m = _RUNNING.match(lines[i])
    if (m and 0 < i < len(lines) - 1 and lines[i - 1] == lines[i + 1] and
            lines[i - 1].startswith('# ') and len(lines[i - 1]) == len(lines[i])):
        return m.group(1)
    return None


def parse(text):
    """The Run of one console log."""
    run = Run({}, {})
    stream = None               # names of the category running, None outside one
    running, nested = None, []  # the test whose header came last, its output

    def add(name, status, rc, cases=None):
        key, k = name, 2
        while key in run.tests:     # run twice: both kept
            key, k = f'{name} ({k})', k + 1
        run.tests[key] = Test(status, rc, cases=cases or {})
        if stream is not None:
            stream.append(key)

    lines = [line.rstrip('\r') for line in _lines(text)]
    for i, line in enumerate(lines):
        header = _header(lines, i)
        result = _RESULT.match(line)
        not_started = _NOT_STARTED.match(line)
        category = _CATEGORY.match(line)
        if header:
            if running:
                add(running, ktap.FAIL, None, _own_cases(nested))
            running, nested = _name(header), []
        elif line == 'TAP version 13':
            stream = []
        elif result:
            status = (ktap.FAIL if result.group(1) else
                      ktap.SKIP if result.group(3) == 'SKIP' else ktap.PASS)
            rc = (int(result.group(4)) if result.group(4) else
                  {ktap.PASS: 0, ktap.SKIP: 4}.get(status))
            add(_name(result.group(2)), status, rc, _own_cases(nested))
            running, nested = None, []
        elif not_started and not running:
            add(_name(not_started.group(1)), ktap.SKIP, 4)
        elif category:
            rc = int(category.group(2))
            if running:
                add(running, ktap.FAIL, rc, _own_cases(nested))
                running, nested = None, []
            for t in stream or ():
                run.tests[t].category = category.group(1)
            run.categories[category.group(1)] = (rc, stream or [])
            stream = None
        elif running and line.startswith('# '):
            nested.append(line[2:])
    if running:
        add(running, ktap.FAIL, None, _own_cases(nested))
    return run


def newly_failing(ref, other):
    """Cases of a test's own TAP (@ref and @other: its Test on two
    kernels, or None) that pass in @ref and fail in @other."""
    if not ref or not other:
        return []
    return [c for c, s in other.cases.items()
            if s in (ktap.FAIL, ktap.TIMEOUT) and ref.cases.get(c) == ktap.PASS]


def _newly_note(ref_name, ref, other_name, other):
    newly = newly_failing(ref, other)
    if not newly:
        return ''
    return (f'{len(newly)} of its cases pass on {ref_name} and fail on {other_name}: ' +
            ', '.join(newly[:5]) + (', ...' if len(newly) > 5 else ''))


def compare(ref_name, ref, other_name, other):
    """Cases, one per test either kernel ran (@ref, @other: {name: Test}):
    PASS when the series does at least as well as the base, FAIL when a
    test that passes on the base does not pass on the series (or did not
    run there), SKIP when neither kernel passes it. The reason names the
    cases of the test's own output that pass on the base and fail on the
    series."""
    cases = []
    for test in list(dict.fromkeys(list(ref) + list(other))):
        a, b = ref.get(test), other.get(test)
        sa, sb = (t.status if t else 'missing' for t in (a, b))
        note = _newly_note(ref_name, a, other_name, b)
        note = '; ' + note if note else ''
        if sb == ktap.PASS:
            cases.append(ktap.Case(test, ktap.PASS))
        elif sa == ktap.PASS:
            cases.append(ktap.Case(test, ktap.FAIL, f'passes on {ref_name}, {sb} on '
                                   f'{other_name}{note}'))
        else:
            cases.append(ktap.Case(test, ktap.SKIP, f'{sa} on {ref_name}, {sb} on '
                                   f'{other_name}{note}'))
    return cases


def _cell(t):
    if t is None:
        return 'not run'
    if t.status == ktap.FAIL:
        return {124: 'timeout', None: 'no result'}.get(t.rc, f'fail (rc {t.rc})')
    return t.status


def markdown(names, per_kernel, cases):
    """The per-test table: its category, each kernel's result, the verdict
    (@per_kernel: {kernel: {test: Test}}, the first the reference)."""
    out = ['| Test | Category | ' + ' | '.join(names) + ' | Verdict |',
           '|---' * (len(names) + 3) + '|']
    for c in cases:
        tests = [per_kernel[n].get(c.name) for n in names]
        category = next(t.category for t in tests if t)
        verdict = {'pass': 'ok', 'fail': 'REGRESSION', 'skip': 'neither passes'}[c.status]
        note = _newly_note(names[0], tests[0], names[-1], tests[-1]).replace('|', '\\|')
        out.append(f'| {c.name} | {category} | ' + ' | '.join(_cell(t) for t in tests) +
                   f' | {verdict}{"; " + note if note else ""} |')
    return '\n'.join(out) + '\n'


def problems_of(names, runs):
    """What makes the comparison of these boots (@runs: {kernel: Run})
    mean little: no result at all, a category that reported no test
    (run_vmtests.sh or bash missing in the guest?), too few passes on the
    base."""
    problems = []
    for n in names:
        if not runs[n].tests:
            problems.append(f'kernel {n}: no test result (see build/results/bench-{NAME}/)')
        for cat, (rc, tests) in runs[n].categories.items():
            if not tests:
                problems.append(f'kernel {n}: run_vmtests.sh -t {cat} reported no test '
                                f'(rc {rc})')
    base = runs[names[0]].tests
    passes = sum(1 for t in base.values() if t.status == ktap.PASS)
    if base and passes < MIN_BASE_PASSES:
        problems.append(f'only {passes} tests pass on {names[0]} (at least '
                        f'{MIN_BASE_PASSES} must, or the comparison shows little)')
    return problems


def main(btable):
    spec = bench.load(INI, None, btable)[NAME]
    text, bad, logs = bench.run_logs(spec, btable, 'make mm-selftests')
    print(text)
    names = list(logs)
    runs = {n: parse(logs[n]) for n in names}
    problems = problems_of(names, runs)
    if bad:
        problems.append(f'{bad} boots had problems (splat, timeout, workload did not '
                        f'finish): see the table above')
    per_kernel = {n: runs[n].tests for n in names}
    cases = compare(names[0], per_kernel[names[0]], names[-1], per_kernel[names[-1]])
    table_md = markdown(names, per_kernel, cases)
    logdir = paths.bench_logs(NAME)
    os.makedirs(logdir, exist_ok=True)
    with open(os.path.join(logdir, NAME + '-compare.md'), 'w') as f:
        f.write(f'# {NAME}: per test\n\n{spec.summary}\n\n{table_md}')
    print(table_md)
    return results.Summary(NAME, cases, problems)
