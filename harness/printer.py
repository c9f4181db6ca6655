"""Every line the harness prints about progress and results, in one place.

  step        '>>> x86_64: build kernel ...' on stderr, as a run goes
  progress    a guest's result lines, indented, on stderr, as they arrive
  report      a variant's failures and skips, then its counts
  case_line   'PASS check:bisect: <case> -- <reason>' (make check's report,
              progress.txt and stderr)
  totals_line 'N passed, N failed, N skipped', the last line of every command
"""
import re
import sys

from . import ktap

_PROGRESS = re.compile(r'^(# )*(ok|not ok) \d+|^HARNESS:|Kernel panic')


def step(msg):
    print(f'>>> {msg}', file=sys.stderr, flush=True)


def progress(line):
    """Echo a console line of a running guest when it is a result."""
    if _PROGRESS.search(line):
        sys.stderr.write('    ' + line)
        sys.stderr.flush()


def totals_line(summaries):
    p = sum(s.passed for s in summaries)
    f = sum(s.failed for s in summaries)
    s = sum(x.skipped for x in summaries)
    return f'{p} passed, {f} failed, {s} skipped'


def report(summary):
    """Human-readable lines for one variant: failures with their reasons."""
    lines = []
    for c in summary.cases:
        if c.status in (ktap.FAIL, ktap.TIMEOUT):
            lines.append(f'  {c.status.upper()}: {c.name}' +
                         (f' ({c.reason})' if c.reason else ''))
        elif c.status == ktap.SKIP:
            lines.append(f'  SKIP: {c.name}: {c.reason}')
    for p in summary.problems:
        lines.append(f'  FAIL: {p}')
    lines.append(f'{summary.variant}: {summary.passed} passed, '
                 f'{summary.failed} failed, {summary.skipped} skipped')
    return lines


def case_line(variant, case):
    """One make check line: the same in progress.txt, report.txt and on stdout."""
    return (f'{case.status.upper():4} {variant}: {case.name}' +
            (f' -- {case.reason}' if case.reason else ''))


def problem_line(variant, problem):
    """A make check problem outside any case."""
    return f'FAIL {variant}: {problem}'
