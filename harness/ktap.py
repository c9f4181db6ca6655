"""Parse the (K)TAP output of run_kselftest.sh into a tree of results.

kselftest nests a test program's own TAP under its runner line by prefixing
every line with "# "; KUnit-style KTAP nests with four spaces. Both are
handled. Lines that are neither results, plans nor nested lines are
diagnostics and ignored.

Checked, each a problem of the Block (a failure in a summary): result
numbers run 1, 2, 3... at each level, with no gap, repeat or reorder; a
version line is TAP version 13 or 14 or KTAP version 1. Raw kernel console
output as kunit's own test_data has it (tab-nested, or printk timestamps
before each line) is not parsed: it is reported as a problem, not misread.
"""
import dataclasses
import re

PASS, FAIL, SKIP, TIMEOUT = 'pass', 'fail', 'skip', 'timeout'

_RESULT = re.compile(
    r'^(?P<ok>ok|not ok)\s+(?P<num>\d+)\s*(?:-\s*)?(?P<name>[^#]*?)\s*'
    r'(?:#\s*(?:(?P<directive>SKIP|TODO|TIMEOUT|XFAIL)\b\s*(?P<reason>.*)|.*))?$',
    re.IGNORECASE)
_PLAN = re.compile(r'^1\.\.(?P<n>\d+)\s*(?:#\s*(?P<skip>SKIP)?\s*(?P<reason>.*))?$',
                   re.IGNORECASE)
_NESTED = ('# ', '    ')
_VERSION = re.compile(r'^(?P<kind>K?TAP) version (?P<v>\S+)$')
VERSIONS = {('TAP', '13'), ('TAP', '14'), ('KTAP', '1')}
# kunit's raw console forms: a printk timestamp before the line, or a tab.
_RAW = re.compile(r'^(\[\s*\d+\.\d+\]\s*|\t+)(K?TAP version|(not )?ok \d+|1\.\.\d+)')


@dataclasses.dataclass
class Result:
    name: str
    status: str
    reason: str = ''
    children: list = dataclasses.field(default_factory=list)
    plan: int = None          # the nested plan, if the test printed one
    plan_skip: str = None     # reason of a "1..0 # SKIP reason" plan


@dataclasses.dataclass
class Block:
    results: list
    plan: int = None
    plan_skip: str = None
    bail_out: str = None
    problems: list = dataclasses.field(default_factory=list)


def _status(ok, directive):
    d = (directive or '').upper()
    if d == 'SKIP':
        return SKIP
    if d == 'TIMEOUT':
        return TIMEOUT
    if d in ('TODO', 'XFAIL'):
        return PASS
    return PASS if ok == 'ok' else FAIL


def _strip_nested(line):
    for p in _NESTED:
        if line.startswith(p):
            return line[len(p):]
    if line in ('#', ''):
        return ''
    return None


def parse(text):
    """Parse @text (one TAP stream) into a Block."""
    return _parse_lines(text.splitlines())


def _parse_lines(lines, where=''):
    block = Block(results=[])
    pending = []            # nested lines that precede the next result
    for raw in lines:
        line = raw.rstrip('\r\n')
        if _RAW.match(line):
            block.problems.append(
                f'{where}raw console output (printk timestamps or tab nesting, as in '
                f'kunit\'s test_data) is not KTAP: strip it first: {line.strip()!r}')
            continue
        inner = _strip_nested(line)
        if inner is not None and line.strip():
            pending.append(inner)
            continue
        line = line.strip()
        if line.lower().startswith('bail out!'):
            block.bail_out = line[9:].strip() or 'bail out'
            continue
        m = _VERSION.match(line)
        if m:
            if (m.group('kind'), m.group('v')) not in VERSIONS:
                block.problems.append(f'{where}unknown version line {line!r}')
            continue
        m = _PLAN.match(line)
        if m:
            block.plan = int(m.group('n'))
            if m.group('skip'):
                block.plan_skip = (m.group('reason') or '').strip()
            continue
        m = _RESULT.match(line)
        if not m:
            continue
        name = m.group('name').strip()
        num, want = int(m.group('num')), len(block.results) + 1
        if num != want:
            block.problems.append(f'{where}result {name!r} is number {num}, '
                                  f'expected {want} (numbers run 1, 2, 3...)')
        child = (_parse_lines(pending, f'{where}{name}: ') if pending
                 else Block(results=[]))
        block.problems += child.problems
        pending = []
        r = Result(name=name,
                   status=_status(m.group('ok'), m.group('directive')),
                   reason=(m.group('reason') or '').strip(),
                   children=child.results, plan=child.plan,
                   plan_skip=child.plan_skip)
        if child.bail_out and r.status == PASS:
            r.status, r.reason = FAIL, 'bail out: ' + child.bail_out
        block.results.append(r)
    return block


@dataclasses.dataclass
class Case:
    name: str
    status: str
    reason: str = ''


def cases(result, prefix='', require_tap=False):
    """Flatten @result to the leaf cases that count in a summary.

    @require_tap: @result is a test program that must print its own TAP
    (kselftest): one that passed without printing a plan or a result
    did not really run and counts as a failure.

    A test with subtests counts its subtests, plus one failure for each
    planned subtest that never reported and one when the program itself
    failed although every subtest passed (a crash after the last case, a
    non-zero exit). A test without subtests counts as itself.
    """
    name = prefix + result.name
    if result.status == SKIP and not result.children:
        reason = result.reason or result.plan_skip or 'no reason given'
        return [Case(name, SKIP, reason)]
    if result.status == TIMEOUT:
        out = []
        for c in result.children:
            out += cases(c, name + ': ')
        return out + [Case(name, TIMEOUT, result.reason or 'timed out')]
    if not result.children:
        if result.plan == 0 and result.plan_skip is not None:
            return [Case(name, SKIP, result.plan_skip or 'no reason given')]
        if require_tap and result.status == PASS and result.plan is None:
            return [Case(name, FAIL, 'passed without printing any TAP '
                                     '(its output was lost or it never ran)')]
        return [Case(name, result.status, result.reason)]
    out = []
    for c in result.children:
        out += cases(c, name + ': ')
    if result.plan is not None and len(result.children) < result.plan:
        out.append(Case(name, FAIL, f'planned {result.plan} cases, '
                                    f'{len(result.children)} reported'))
    elif result.status == FAIL and all(c.status != FAIL for c in out):
        out.append(Case(name, FAIL, 'test program failed after its cases'))
    return out
