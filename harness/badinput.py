"""make bad-input and make layouts: every row of a table (configs/
bad-input.ini: a bad input given to the kernel or to the harness;
configs/layouts.ini: a CMA layout the kselftests must hold on), and what
must come of it.

Two kinds of row:
  boot     boot a built variant's kernel with the row's command line and
           run kselftests on it: the boot must reach the tests, every test
           must pass or skip, no splat, the console must show what the row
           expects (an error message, a documented rounding) and the CMA
           the kernel ended up with (CmaTotal, the areas) must be the row's.
  command  run a command of this repository (a make target, a harness or
           scripts/ command): its exit status and the message it prints
           must be the row's, and it must leave nothing behind.

Each row is one case of one summary, so the report reads like make test's
and ends with its "N passed, N failed, N skipped" line. The table of rows,
with what each one shows, is written to docs/<name>.md (bad-input.md,
layouts.md) for the README, by a run of the whole table.
"""
import dataclasses
import os
import re
import shlex
import subprocess

from . import boot, build, console, ini, ktap, paths, pipeline, printer, qemu, results, variants

# The tables: make target (and results directory) -> rows.
TABLES = {'bad-input': os.path.join(paths.CONFIGS, 'bad-input.ini'),
          'layouts': os.path.join(paths.CONFIGS, 'layouts.ini')}
INI = TABLES['bad-input']
# A row's command may run this long (a configure of a tiny kernel: ~1 min).
COMMAND_TIMEOUT = 900
# What no command row may print: a Python crash exits 1, and make turns
# that into the same exit status 2 as a usage error.
CRASH = re.compile(r'^Traceback \(most recent call last\)', re.M)


KEYS = {'kind', 'shows', 'expect', 'reject', 'variant', 'cmdline', 'memory',
        'qemu_extra', 'tests', 'cma_total_kib', 'areas', 'argv', 'rc', 'leaves'}


class TableError(Exception):
    pass


@dataclasses.dataclass(frozen=True)
class Row:
    name: str               # the section name: what is bad, in a few words
    kind: str               # boot or command
    shows: str              # what the user gets, one sentence for the README
    expect: tuple           # regexes the console or output must match
    reject: tuple = ()      # regexes it must not match
    # boot rows
    variant: str = ''       # the built variant whose kernel boots
    cmdline: str = ''       # replaces the variant's command line
    memory: str = ''        # replaces the variant's QEMU -m, when set
    qemu_extra: tuple = ()  # replaces the variant's extra QEMU arguments, when set
    tests: str = ''         # kselftests to run (default: cma:cma_debugfs)
    cma_total_kib: int = -1 # CmaTotal the kernel must report, KiB (-1: any)
    areas: tuple = ()       # the areas /sys/kernel/mm/cma must list
    # command rows
    argv: tuple = ()        # run from the repository's root
    rc: int = 0             # its exit status
    leaves: tuple = ()      # paths (from the root) that must not exist after


def _lines(text):
    return tuple(x.strip() for x in text.strip().splitlines() if x.strip())


def load(path=INI, table=None):
    """The rows of @path, in order. @table: the variants, to check that each
    boot row names one."""
    cp = ini.read(path, TableError)
    rows = []
    for name in cp.sections():
        s = cp[name]
        kind = s.get('kind', '')
        where = f'{os.path.relpath(path, paths.ROOT)} [{name}]'
        unknown = sorted(set(s) - KEYS)
        if unknown:
            raise TableError(f'{where}: unknown key {", ".join(unknown)} '
                             f'(known: {", ".join(sorted(KEYS))})')
        if kind not in ('boot', 'command'):
            raise TableError(f'{where}: kind must be boot or command, not {kind!r}')
        if not s.get('shows') or not s.get('expect'):
            raise TableError(f'{where}: needs shows and expect')
        try:
            expect = tuple(re.compile(x) for x in _lines(s['expect']))
            reject = tuple(re.compile(x) for x in _lines(s.get('reject', '')))
            if kind == 'command':
                reject += (CRASH,)
            row = Row(name=name, kind=kind, shows=' '.join(_lines(s['shows'])),
                      expect=expect, reject=reject,
                      variant=s.get('variant', variants.DEFAULT),
                      cmdline=s.get('cmdline', ''),
                      memory=s.get('memory', ''),
                      qemu_extra=tuple(s.get('qemu_extra', '').split()),
                      tests=s.get('tests', 'cma:cma_debugfs'),
                      cma_total_kib=int(s.get('cma_total_kib', '-1')),
                      areas=tuple(s.get('areas', '').split()),
                      argv=tuple(shlex.split(s.get('argv', ''))),
                      rc=int(s.get('rc', '0')),
                      leaves=tuple(s.get('leaves', '').split()))
        except (re.error, ValueError) as e:
            raise TableError(f'{where}: {e}') from None
        if kind == 'command' and not row.argv:
            raise TableError(f'{where}: a command row needs argv')
        if kind == 'boot' and table is not None and row.variant not in table:
            raise TableError(f'{where}: unknown variant {row.variant!r}')
        rows.append(row)
    return rows


_CMA_TOTAL = re.compile(r'^HARNESS: CmaTotal:\s+(\d+) kB', re.M)
_AREAS = re.compile(r'^HARNESS: cma areas:(.*)$', re.M)


def judge_boot(row, text, summary):
    """Why boot @row failed, from its console @text and the Summary of its
    kselftests and of the judgement every boot gets (console.judge(): a
    splat, a timeout, a boot that did not reach or finish the tests); []
    when it did what the row says."""
    why = list(summary.problems)
    why += [f'{c.name}: {c.status}' + (f' ({c.reason})' if c.reason else '')
            for c in summary.cases if c.status in (ktap.FAIL, ktap.TIMEOUT)]
    why += _match(row, text)
    m = _CMA_TOTAL.search(text)
    total = int(m.group(1)) if m else None
    if row.cma_total_kib >= 0 and total != row.cma_total_kib:
        why.append(f'CmaTotal {total} KiB, expected {row.cma_total_kib} KiB')
    m = _AREAS.search(text)
    areas = tuple(sorted(m.group(1).split())) if m else None
    if row.areas and areas != tuple(sorted(row.areas)):
        why.append(f'areas {" ".join(areas or ("(none printed)",))}, '
                   f'expected {" ".join(row.areas)}')
    return why


def judge_command(row, rc, output):
    why = []
    if rc != row.rc:
        why.append(f'exit status {rc}, expected {row.rc}')
    why += _match(row, output)
    why += [f'{p} exists afterwards' for p in row.leaves
            if os.path.lexists(os.path.join(paths.ROOT, p))]
    return why


def _match(row, text):
    return ([f'no line matches {r.pattern!r}' for r in row.expect if not r.search(text)] +
            [f'a line matches {r.pattern!r}' for r in row.reject if r.search(text)])


def run_boot(row, table, btable, built, resdir):
    v = variants.lookup(table, row.variant)
    v = dataclasses.replace(v, cmdline=row.cmdline, tests=row.tests,
                            memory=row.memory or v.memory,
                            qemu_extra=row.qemu_extra or v.qemu_extra)
    image, initrd, entries = built[row.variant]
    try:
        expected = build.select_tests(entries, row.tests)
    except build.BuildError as e:
        return [str(e)]
    b = boot.run(v, qemu.command(v, image, initrd),
                 os.path.join(resdir, _file(row.name) + '.console.log'))
    summary, _ = console.summarise(row.name, b.text, b.judgement, expected)
    return judge_boot(row, b.text, summary)


def run_command(row, resdir):
    try:
        p = subprocess.run(row.argv, cwd=paths.ROOT, capture_output=True, text=True,
                           timeout=COMMAND_TIMEOUT, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as e:
        return [f'{" ".join(row.argv)}: {e}']
    output = p.stdout + p.stderr
    with open(os.path.join(resdir, _file(row.name) + '.output'), 'w') as f:
        f.write(output)
    return judge_command(row, p.returncode, output)


def _file(name):
    return re.sub(r'[^A-Za-z0-9_.=-]+', '_', name)


def _build(rows, table, btable, resdir):
    """{variant: (image, initrd, kselftest entries)} of every boot row's
    variant, built as make run builds it (incremental: nothing when it is
    up to date); a variant that does not build fails its rows."""
    built = {}
    for name in dict.fromkeys(r.variant for r in rows if r.kind == 'boot'):
        v = variants.lookup(table, name)
        log = os.path.join(resdir, f'build-{name}.log')
        try:
            image, initrd, _ = pipeline.prepare_variant(v, log, btable=btable)
        except build.BuildError as e:
            built[name] = e
            continue
        built[name] = (image, initrd, build.kselftest_list(
            build.kselftest_dir(os.path.join(paths.OUT, name))))
    return built


def main(table, btable, only=None, name='bad-input'):
    """Run the rows of table @name (TABLES), or those named in @only."""
    path = TABLES[name]
    rows = load(path, table)
    if only:
        unknown = [n for n in only if n not in {r.name for r in rows}]
        if unknown:
            raise TableError(f'no row {", ".join(map(repr, unknown))} in '
                             f'{os.path.relpath(path, paths.ROOT)}')
        rows = [r for r in rows if r.name in only]
    resdir = os.path.join(paths.RESULTS, name)
    os.makedirs(resdir, exist_ok=True)
    built = _build(rows, table, btable, resdir)
    cases = []
    for row in rows:
        printer.step(f'{name}: {row.name}')
        if row.kind == 'boot' and isinstance(built[row.variant], Exception):
            why = [f'build of {row.variant}: {built[row.variant]}']
        elif row.kind == 'boot':
            why = run_boot(row, table, btable, built, resdir)
        else:
            why = run_command(row, resdir)
        case = ktap.Case(row.name, ktap.FAIL if why else ktap.PASS, '; '.join(why))
        printer.step(printer.case_line(name, case))
        cases.append(case)
    if not only:   # the README's table: every row, never a selection
        with open(os.path.join(paths.ROOT, 'docs', name + '.md'), 'w') as f:
            f.write(f'# make {name}\n\nEvery row of `{os.path.relpath(path, paths.ROOT)}`, '
                    f'as the last full `make {name}` ran it.\n\n' + markdown(rows, cases))
    return results.Summary(name, cases, [])


def markdown(rows, cases):
    """The README's table: each row, what the user gets, and its result."""
    status = {c.name: c.status for c in cases}
    out = ['| Input | Kind | What happens | Result |', '|---|---|---|---|']
    for r in rows:
        what = r.cmdline if r.kind == 'boot' else ' '.join(r.argv)
        out.append(f'| `{r.name}` | {r.kind}: `{what}` | {r.shows} | '
                   f'{status.get(r.name, "not run")} |')
    return '\n'.join(out) + '\n'
