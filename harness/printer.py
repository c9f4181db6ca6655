"""Every line the harness prints about progress and results, in one place.

  step        '>>> x86_64: build kernel ...' on stderr, as a run goes
  progress    a guest's result lines, indented, on stderr, as they arrive
  report      a variant's failures and skips (case_line()s), then its counts
  case_line   'FAIL x86_64: <case> -- <reason>', 'PASS check:bisect: ...': one
              result of make run, make test and make check (reports,
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
    """One variant's failures and skips, as case_line()s indented under it,
    then its counts."""
    lines = ['  ' + case_line(summary.variant, c) for c in summary.cases
             if c.status in (ktap.FAIL, ktap.TIMEOUT, ktap.SKIP)]
    lines += ['  ' + problem_line(summary.variant, p) for p in summary.problems]
    lines.append(f'{summary.variant}: {summary.passed} passed, '
                 f'{summary.failed} failed, {summary.skipped} skipped')
    return lines


def case_line(variant, case):
    """One result line: make run's and make test's reports, make check's
    progress.txt, report.txt and stdout."""
    return (f'{case.status.upper():4} {variant}: {case.name}' +
            (f' -- {case.reason}' if case.reason else ''))


def problem_line(variant, problem):
    """A problem outside any case (a splat, a boot that did not finish)."""
    return f'FAIL {variant}: {problem}'
