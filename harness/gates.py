"""Series quality gates behind `make check`.

Each gate answers one question about the series of one base in its work
tree (base..HEAD; the mainline series in build/linux unless told otherwise)
and returns a results.Summary whose cases say pass or fail, each with the
command that reproduces it:

  checkpatch  every patch in patches/ is checkpatch --strict --codespell
              clean, but for the allowlist (series/checkpatch-allowlist)
  kerneldoc   touched kernel files: no `kernel-doc -none` warning, no new
              `-Wall` one, and kernel-doc on every new non-static function
  docs        `make htmldocs` of the Documentation/ directories the series
              touches: no Sphinx warning the base does not have
  compiler    touched .c files: no sparse (C=2) or W=1 warning that the base
              built the same way does not have
  bisect      every commit builds vmlinux for x86_64 and arm64 with the
              series' options on and off (incremental builds, timed)
  matrix      the Kconfig combinations of configs/matrix.ini build
  zone-movable  every use of ZONE_MOVABLE in the tree is one the base's
              series folder lists as reviewed (harness/zoneaudit.py)
  kconfig     a .config made on the pristine base keeps every value through
              olddefconfig on the series; the default pageblock limit
              follows a change of page size
  figures     every figure README.md, the cover letter and the commit
              messages quote comes from bench/results (harness/figures.py)

The parsers are in harness/diagnostics.py, the matrix table in
harness/matrix.py; every configuration goes through build.configure().
"""
import dataclasses
import os
import shutil
import subprocess
import sys
import time

from . import (arches, build, checks, figures, kconfig, ktap, matrix, printer, proc, results,
               zoneaudit)
from .diagnostics import (compiler_warnings, doc_dirs, kernel_sources, new_warnings,
                          normalise_warning, sphinx_warnings, undocumented_new_functions)

# The arches every commit is built for (bisect), with the base's options on
# and off (configs/bases.ini: options_on, options_off).
BISECT_ARCHES = ('x86_64', 'arm64')
OPTIONS = ('on', 'off')
DEFAULT_BISECT = tuple((a, o) for a in BISECT_ARCHES for o in OPTIONS)
# The compiler gate's config must build every .c file the series touches:
# mm/memory_hotplug.c and drivers/base/memory.c need memory hotplug.
COMPILER_ARCH, COMPILER_OPTIONS, COMPILER_FRAGMENTS = 'x86_64', 'on', ('hotplug',)


class GateError(Exception):
    pass


@dataclasses.dataclass
class Context:
    root: str                 # the repository
    tree: str                 # the base's work tree: build/linux, build/linux-<base>
    out: str                  # build/out/check-<base>
    patches: str              # patches/, backports/<base>/
    allowlist: str            # series/checkpatch-allowlist
    log_dir: str              # build/results/check-<base>
    rev_from: str = 'base'    # first commit of the range is rev_from..HEAD
    base: object = None       # bases.Base: names the worktrees, gives the options

    def rel(self, path):
        """@path relative to the repository, for reproduce lines."""
        return os.path.relpath(path, self.root)

    def worktree(self, name, commit):
        """build/wt/<base>/<name>: a scratch worktree of the base's tree at
        @commit (outside build/linux-*, which are work trees paired with
        their patch folders)."""
        return proc.worktree(self.tree, os.path.join(self.root, 'build', 'wt',
                                                     self.base.name, name), commit)


def _git(ctx, *args, tree=None):
    return proc.git(tree or ctx.tree, *args)


def _case(name, ok, reason, command):
    return ktap.Case(name, ktap.PASS if ok else ktap.FAIL,
                     (reason + '; ' if reason else '') + 'reproduce: ' + command)


PROGRESS = 'progress.txt'


def _record(ctx, gate, cases, case):
    """Add @case to @cases and write its line at once to stderr and to
    build/results/check/progress.txt, so that a long gate (bisect, matrix)
    stopped half way still shows every case it finished."""
    cases.append(case)
    line = printer.case_line(f'check:{gate}', case)
    print(line, file=sys.stderr, flush=True)
    with open(os.path.join(ctx.log_dir, PROGRESS), 'a') as fh:
        fh.write(line + '\n')


def _make(tree, arch, out):
    return ['make', '-C', tree, *build.kbuild_args(arches.ARCHES[arch], out)]


def _configure(ctx, tree, arch, out, fragments, settings=(), randconfig=None, log=None):
    """build.configure() in @out; returns (the symbols asked for that .config
    does not have, the reproduce line of the step)."""
    argv = [os.path.basename(sys.executable), '-m', 'harness', 'configure', '--arch', arch,
            '--tree', tree, '--out', out]
    argv += [a for s in settings for a in ('--set', s)]
    if randconfig:
        argv += ['--randconfig', str(randconfig[0]), '--probability', str(randconfig[1])]
    bad = build.configure(tree, out, arches.ARCHES[arch], fragments,
                          log or os.path.join(out, 'configure.log'), settings, randconfig)
    return bad, proc.shell_line(argv + list(fragments), ctx.root)


def _vmlinux(ctx, tree, arch, out, log, t0):
    """Build vmlinux, output appended to @log; (ok, why, reproduce line)."""
    argv = _make(tree, arch, out) + ['-j', build.jobs(), 'vmlinux']
    p = proc.run(argv, log, append=True)
    errs = [l for l in p.stderr.splitlines() if 'error' in l.lower()]
    why = (f'{time.monotonic() - t0:.0f} s' if p.returncode == 0 else
           'build failed: ' + (' | '.join(errs[:2]) or 'see ' + ctx.rel(log)))
    return p.returncode == 0, why, proc.shell_line(argv, ctx.root)


def gate_checkpatch(ctx):
    s = checks.checkpatch(ctx.tree, ctx.patches, ctx.allowlist, codespell=True)
    s.variant = 'check:checkpatch'
    cmd = (f'cd {ctx.rel(ctx.tree)} && scripts/checkpatch.pl --strict --codespell '
           f'--codespellfile {checks.codespell_dict()} --terse '
           f'{os.path.relpath(ctx.patches, ctx.tree)}/<patch>')
    for c in s.cases:
        c.reason = (c.reason + '; ' if c.reason else '') + 'reproduce: ' + cmd
    return s


def gate_kerneldoc(ctx):
    cases = []
    files = kernel_sources(_git(ctx, 'diff', '--name-only', f'{ctx.rev_from}..HEAD').split())
    script = os.path.join(ctx.tree, 'scripts', 'kernel-doc')
    for f in files:
        path = os.path.join(ctx.tree, f)
        if not os.path.exists(path):
            continue
        cmd = ['scripts/kernel-doc', '-none', f]
        out = subprocess.run(['perl', script, '-none', f], cwd=ctx.tree,
                             capture_output=True, text=True)
        warns = compiler_warnings(out.stderr + out.stdout)
        cases.append(_case(f'kernel-doc -none {f}', not warns,
                           ' | '.join(warns[:3]), f'cd {ctx.rel(ctx.tree)} && ' + proc.shell_line(cmd)))
        # -Wall: no warning the base version of the file does not have.
        series = compiler_warnings(subprocess.run(
            ['perl', script, '-none', '-Wall', f], cwd=ctx.tree,
            capture_output=True, text=True).stderr)
        base = []
        try:
            old = _git(ctx, 'show', f'{ctx.rev_from}:{f}')
        except subprocess.CalledProcessError:
            old = None
        if old is not None:
            tmp = os.path.join(ctx.log_dir, 'kerneldoc-base-' + f.replace('/', '_'))
            with open(tmp, 'w') as fh:
                fh.write(old)
            base = [w.replace(tmp, f) for w in compiler_warnings(subprocess.run(
                ['perl', script, '-none', '-Wall', tmp], cwd=ctx.tree,
                capture_output=True, text=True).stderr)]
            base = [normalise_warning(w) for w in base]
        extra = new_warnings(base, series)
        cases.append(_case(f'kernel-doc -Wall {f}: no new warning', not extra,
                           ' | '.join(extra[:3]),
                           f'cd {ctx.rel(ctx.tree)} && scripts/kernel-doc -none -Wall {f}'
                           f' (compare with git show {ctx.rev_from}:{f})'))
    diff = _git(ctx, 'diff', '-U0', f'{ctx.rev_from}..HEAD', '--', *files) if files else ''

    def read(p):
        with open(os.path.join(ctx.tree, p), errors='replace') as fh:
            return fh.read()
    missing = undocumented_new_functions(diff, read)
    cases.append(_case('every new non-static function has kernel-doc', not missing,
                       ' | '.join(f'{p}:{n} {f}()' for p, n, f in missing[:5]),
                       f'git -C {ctx.rel(ctx.tree)} diff -U0 {ctx.rev_from}..HEAD'))
    return results.Summary('check:kerneldoc', cases, [])


def _htmldocs(tree, out, dirs, log):
    env = proc.system_env()
    argv = ['make', '-C', tree, f'O={out}', f'SPHINXDIRS={" ".join(dirs)}', 'htmldocs']
    p = proc.run(argv, log, env=env)
    # htmldocs writes the netlink spec pages into the source tree: remove them.
    subprocess.run(['make', '-C', tree, f'O={out}', 'cleandocs'], capture_output=True, env=env)
    return p.returncode, sphinx_warnings(p.stdout + p.stderr, (tree, out)), argv


def gate_docs(ctx):
    cases = []
    touched = _git(ctx, 'diff', '--name-only', f'{ctx.rev_from}..HEAD').split()
    dirs = doc_dirs(touched)
    if 'ABI' in dirs:   # rendered by the admin guide's abi-*.rst pages
        dirs = sorted(set(dirs) | {'admin-guide'})
    dirs = [d for d in dirs
            if os.path.exists(os.path.join(ctx.tree, 'Documentation', d, 'index.rst'))]
    if not dirs:
        return results.Summary('check:docs', [ktap.Case('htmldocs', ktap.SKIP,
                                                        'the series touches no Documentation/')], [])
    if not shutil.which('sphinx-build', path='/usr/bin:/bin'):
        return results.Summary('check:docs', [], [
            'no sphinx-build: install Debian\'s python3-sphinx and '
            'python3-sphinx-rtd-theme (make deps)'])
    base_tree = _base_worktree(ctx)
    rc_b, base, _ = _htmldocs(base_tree, os.path.join(ctx.out, 'check-docs-base'), dirs,
                              os.path.join(ctx.log_dir, 'docs-base.log'))
    rc_s, series, argv = _htmldocs(ctx.tree, os.path.join(ctx.out, 'check-docs-series'),
                                   dirs, os.path.join(ctx.log_dir, 'docs-series.log'))
    cmd = (proc.shell_line(argv, ctx.root) +
           f' (the base: the same in {ctx.rel(base_tree)})')
    extra = new_warnings(base, series)
    cases.append(_case(f'htmldocs {" ".join(dirs)}: builds', rc_s == 0,
                       '' if rc_s == 0 else f'exit {rc_s}, see docs-series.log', cmd))
    cases.append(_case(f'htmldocs {" ".join(dirs)}: no new warning', not extra,
                       f'{len(extra)} new: ' + ' | '.join(extra[:3]) if extra else
                       f'{len(series)} warnings, as many as the base', cmd))
    return results.Summary('check:docs', cases, [])


def _base_worktree(ctx):
    """build/wt/<base>/check-base: a worktree at rev_from."""
    return ctx.worktree('check-base', ctx.rev_from)


def _object_warnings(ctx, tree, arch, out, objs, fragments, log):
    """sparse (C=2) and W=1 output of building @objs in @tree, normalised;
    and the reproduce line of the configure and build steps."""
    if os.path.exists(log):
        os.unlink(log)
    # Symbols the base does not know yet are dropped there: not an error.
    _, configure = _configure(ctx, tree, arch, out, fragments, log=log)
    for o in objs:  # force a rebuild, so that W=1 warnings show again
        try:
            os.remove(os.path.join(out, o))
        except FileNotFoundError:
            pass
    argv = _make(tree, arch, out) + ['-j', build.jobs(), 'C=2', 'W=1', *objs]
    p = proc.run(argv, log, append=True)
    if p.returncode:
        raise GateError(f'building {" ".join(objs)} in {ctx.rel(tree)} failed; '
                        f'see {ctx.rel(log)}')
    return (compiler_warnings(p.stderr, prefixes=(tree, out)),
            configure + ' && ' + proc.shell_line(argv, ctx.root))


def compiler_fragments(base):
    """The compiler gate's fragments on @base: x86_64, options on, hotplug."""
    return arches.compose(arches.ARCHES[COMPILER_ARCH], COMPILER_FRAGMENTS, base,
                          options=COMPILER_OPTIONS)


def gate_compiler(ctx):
    arch, fragments = COMPILER_ARCH, compiler_fragments(ctx.base)
    cases, problems = [], []
    files = [f for f in kernel_sources(_git(ctx, 'diff', '--name-only',
                                            f'{ctx.rev_from}..HEAD').split())
             if f.endswith('.c')]
    objs = [f[:-2] + '.o' for f in files]
    base_tree = _base_worktree(ctx)
    base_objs = [o for f, o in zip(files, objs)
                 if os.path.exists(os.path.join(base_tree, f))]
    try:
        base = _object_warnings(ctx, base_tree, arch,
                                os.path.join(ctx.out, f'check-compiler-base-{arch}'),
                                base_objs, fragments,
                                os.path.join(ctx.log_dir, 'compiler-base.log'))[0] if base_objs else []
        series, cmd = _object_warnings(ctx, ctx.tree, arch,
                                       os.path.join(ctx.out, f'check-compiler-series-{arch}'),
                                       objs, fragments,
                                       os.path.join(ctx.log_dir, 'compiler-series.log'))
    except (GateError, build.BuildError, subprocess.CalledProcessError) as e:
        return results.Summary('check:compiler', [], [str(e)])
    cmd += f' (the base: the same in {ctx.rel(base_tree)})'

    for f in files:
        mine = [w for w in new_warnings(base, series) if w.startswith(f + ':')]
        cases.append(_case(f'sparse and W=1: {f}: no new warning', not mine,
                           ' | '.join(mine[:3]), cmd))
    other = [w for w in new_warnings(base, series)
             if not any(w.startswith(f + ':') for f in files)]
    cases.append(_case('sparse and W=1: no new warning in headers or other files',
                       not other, ' | '.join(other[:3]), cmd))
    return results.Summary('check:compiler', cases, problems)


def _commit_touches_kernel(ctx, commit):
    files = _git(ctx, 'diff-tree', '--no-commit-id', '--name-only', '-r', commit).split()
    return any(not f.startswith(('tools/', 'Documentation/')) and f != 'MAINTAINERS'
               for f in files), any(f.startswith('tools/testing/selftests/') for f in files)


def gate_bisect(ctx, builds=DEFAULT_BISECT):
    """Every commit in rev_from..HEAD builds vmlinux (and the cma kselftests
    where it touches them), per (arch, options) of @builds, incrementally."""
    cases, problems = [], []
    commits = _git(ctx, 'rev-list', '--reverse', f'{ctx.rev_from}..HEAD').split()
    wt = ctx.worktree('check-bisect', ctx.rev_from)
    for arch, opt in builds:
        out = os.path.join(ctx.out, f'check-bisect-{arch}-{opt}')
        frags = arches.compose(arches.ARCHES[arch], (), ctx.base, options=opt)
        started = time.monotonic()
        configured = False
        for c in commits:
            subject = _git(ctx, 'log', '-1', '--format=%s', c).strip()
            kernel, selftests = _commit_touches_kernel(ctx, c)
            _git(ctx, 'checkout', '-q', '--detach', c, tree=wt)
            name = f'bisect {arch} options {opt}: {c[:12]} {subject}'
            log = os.path.join(ctx.log_dir, f'bisect-{arch}-{opt}-{c[:12]}.log')
            cmd = proc.shell_line(['git', '-C', wt, 'checkout', '-q', '--detach', c[:12]],
                                  ctx.root)
            t0 = time.monotonic()
            if not configured or kernel:
                if os.path.exists(log):
                    os.unlink(log)
                # Re-apply the fragments: a symbol the previous commit
                # did not know was dropped from .config by olddefconfig.
                _, configure = _configure(ctx, wt, arch, out, frags, log=log)
                configured = True
                ok, why, build_cmd = _vmlinux(ctx, wt, arch, out, log, t0)
                cmd += ' && ' + configure + ' && ' + build_cmd
            else:
                ok, why = True, 'no kernel source changed'
            if ok and selftests and arch == 'x86_64' and opt == 'on':
                os.makedirs(f'{out}/selftests-cma', exist_ok=True)
                argv = ['make', '-s', '-C', os.path.join(wt, 'tools/testing/selftests/cma'),
                        f'OUTPUT={out}/selftests-cma']
                p = proc.run(argv, log, append=True)
                cmd += ' && ' + proc.shell_line(argv, ctx.root)
                if p.returncode:
                    ok, why = False, 'cma kselftests do not build: ' + (
                        p.stderr.strip().splitlines() or ['?'])[-1]
            _record(ctx, 'bisect', cases, _case(name, ok, why, cmd))
        _record(ctx, 'bisect', cases, _case(
            f'bisect {arch} options {opt}: total', True,
            f'{len(commits)} commits in {time.monotonic() - started:.0f} s', '-'))
    return results.Summary('check:bisect', cases, problems)


def gate_matrix(ctx, matrix_path, only=None):
    cases = []
    try:
        entries = matrix.load(matrix_path)
    except matrix.MatrixError as e:
        return results.Summary('check:matrix', [], [str(e)])
    for e in entries:
        if only and e.name not in only:
            continue
        if not e.applies_to(ctx.base):
            if only:
                cases.append(ktap.Case(f'matrix {e.name}', ktap.SKIP,
                                       f'only for base {", ".join(e.bases)}'))
            continue
        out = os.path.join(ctx.out, f'check-matrix-{e.name}')
        log = os.path.join(ctx.log_dir, f'matrix-{e.name}.log')
        if os.path.exists(log):
            os.unlink(log)
        t0 = time.monotonic()
        randconfig = (None if e.randconfig_seed is None
                      else (e.randconfig_seed, e.probability))
        bad, cmd = _configure(ctx, ctx.tree, e.arch, out, e.fragments(ctx.base),
                              e.settings, randconfig, log)
        if bad:
            _record(ctx, 'matrix', cases, _case(
                f'matrix {e.name}', False, 'not the configuration asked for: ' +
                kconfig_mismatches(bad), cmd))
            continue
        ok, why, build_cmd = _vmlinux(ctx, ctx.tree, e.arch, out, log, t0)
        _record(ctx, 'matrix', cases, _case(
            f'matrix {e.name}' + (f' ({e.note})' if e.note else ''), ok, why,
            cmd + ' && ' + build_cmd))
    return results.Summary('check:matrix', cases, [])


def gate_zone_movable(ctx):
    series = os.path.join(ctx.root, ctx.base.series)
    s = zoneaudit.audit(ctx.tree, series, 'check:zone-movable')
    if s is None:
        s = results.Summary('check:zone-movable', [ktap.Case(
            'zone-movable', ktap.SKIP,
            f'no {ctx.rel(zoneaudit.reviewed_list(series))}: '
            f'the {ctx.base.name} series has no ZONE_MOVABLE_TOP')], [])
    return s


# Configurations made on the pristine base that the series must keep as
# they are (gate `kconfig`): (arch, fragments after the arch's own,
# settings). Those that set CONFIG_PAGE_BLOCK_MAX_ORDER are the ones
# distributions and Android carry for 16K and 64K pages.
KCONFIG_KEEPS = (
    ('arm64', ('arm64-16k', 'hugepages'), ('CONFIG_PAGE_BLOCK_MAX_ORDER=7',)),
    ('arm64', ('arm64-64k',), ('CONFIG_PAGE_BLOCK_MAX_ORDER=5',)),
    ('x86_64', ('hugepages', 'hotplug', 'numa-x86_64'), ('CONFIG_PAGE_BLOCK_MAX_ORDER=5',)),
    ('x86_64', ('hugepages', 'hotplug', 'numa-x86_64'), ()),
)
# A page size switch that a configuration with the default pageblock limit
# must follow: (arch, settings before, settings after).
KCONFIG_FOLLOWS = ('arm64', (), ('CONFIG_ARM64_4K_PAGES=n', 'CONFIG_ARM64_16K_PAGES=y'))


def _olddefconfig(ctx, tree, arch, out, config_text, log):
    """@config_text as .config in @out, then olddefconfig in @tree: the
    resulting symbols, and the reproduce line."""
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, '.config'), 'w') as f:
        f.write(config_text)
    argv = _make(tree, arch, out) + ['olddefconfig']
    if proc.run(argv, log, append=True).returncode:
        raise GateError(f'olddefconfig in {ctx.rel(tree)} failed; see {ctx.rel(log)}')
    with open(os.path.join(out, '.config')) as f:
        return kconfig.parse(f.read()), proc.shell_line(argv, ctx.root)


def _settings_text(settings):
    return ''.join(f'# {s.split("=")[0]} is not set\n' if s.endswith('=n') else s + '\n'
                   for s in settings)


def gate_kconfig(ctx):
    """An existing .config keeps every value through the series (made on
    the pristine base, olddefconfig on the series); and a configuration
    with the default pageblock limit follows a change of page size."""
    cases = []
    pristine = _base_worktree(ctx)
    log = os.path.join(ctx.log_dir, 'kconfig.log')
    for n, (arch, own, settings) in enumerate(KCONFIG_KEEPS):
        name = f'{arch} {" ".join(own)} {" ".join(settings)}'.strip()
        fragments = arches.compose(arches.ARCHES[arch], own)
        out = os.path.join(ctx.out, f'check-kconfig-{n}')
        try:
            bad, cmd = _configure(ctx, pristine, arch, out + '-pristine', fragments, settings,
                                  log=log)
            with open(os.path.join(out + '-pristine', '.config')) as f:
                text = f.read()
            before = kconfig.parse(text)
            after, cmd2 = _olddefconfig(ctx, ctx.tree, arch, out, text, log)
        except (GateError, build.BuildError) as e:
            cases.append(_case(f'kconfig: {name}: kept by the series', False, str(e), ''))
            continue
        # A setting the pristine tree did not take tests nothing: say so.
        untested = [f'{sym}={want} not taken by {ctx.rel(pristine)} (got {got})'
                    for sym, want, got in bad]
        changed = [f'{k}={v} became {after.get(k, "gone")}' for k, v in sorted(before.items())
                   if after.get(k, 'n') != v]
        cases.append(_case(f'kconfig: {name}: kept by the series', not changed and not untested,
                           '; '.join((untested + changed)[:5]),
                           f'{cmd} && cp {ctx.rel(out)}-pristine/.config {ctx.rel(out)}/ '
                           f'&& {cmd2}'))
    arch, first, switch = KCONFIG_FOLLOWS
    out = os.path.join(ctx.out, 'check-kconfig-follows')
    name = f'kconfig: {arch} default pageblock limit follows {" ".join(switch)}'
    try:
        _, cmd = _configure(ctx, ctx.tree, arch, out, arches.compose(arches.ARCHES[arch]),
                            first, log=log)
        with open(os.path.join(out, '.config')) as f:
            text = f.read()
        after, cmd2 = _olddefconfig(ctx, ctx.tree, arch, out,
                                    text + _settings_text(switch), log)
    except (GateError, build.BuildError) as e:
        cases.append(_case(name, False, str(e), ''))
    else:
        limit = after.get('CONFIG_PAGE_BLOCK_MAX_ORDER')
        top = after.get('CONFIG_ARCH_FORCE_MAX_ORDER')
        cases.append(_case(name, limit in ('0', top),
                           f'CONFIG_PAGE_BLOCK_MAX_ORDER={limit} with '
                           f'CONFIG_ARCH_FORCE_MAX_ORDER={top}',
                           f"{cmd} && printf '%s\\n' {' '.join(switch)} "
                           f'>> {ctx.rel(out)}/.config && {cmd2}'))
    return results.Summary('check:kconfig', cases, [])


def gate_figures(ctx):
    """Every figure README.md, the cover letter and the commit messages
    quote agrees with bench/results (harness/figures.py)."""
    s = figures.summary(ctx.root, ctx.patches,
                        os.path.join(ctx.root, ctx.base.series, 'cover-letter.txt'))
    s.variant = 'check:figures'
    return s


def kconfig_mismatches(bad):
    return kconfig.format_mismatches(bad).replace('\n', ';')


# The gates in the order make check runs them: name -> runner(ctx, choice),
# @choice being what the command line chose (Choice).
@dataclasses.dataclass
class Choice:
    matrix_path: str = None   # configs/matrix.ini
    matrix_only: list = None  # entries to build (default: every one of the base)
    bisect: tuple = None      # (arch, options) builds (default: DEFAULT_BISECT)


GATE_RUNNERS = {
    'checkpatch': lambda ctx, choice: gate_checkpatch(ctx),
    'kerneldoc': lambda ctx, choice: gate_kerneldoc(ctx),
    'docs': lambda ctx, choice: gate_docs(ctx),
    'compiler': lambda ctx, choice: gate_compiler(ctx),
    'bisect': lambda ctx, choice: gate_bisect(ctx, choice.bisect or DEFAULT_BISECT),
    'matrix': lambda ctx, choice: gate_matrix(ctx, choice.matrix_path, choice.matrix_only),
    'zone-movable': lambda ctx, choice: gate_zone_movable(ctx),
    'figures': lambda ctx, choice: gate_figures(ctx),
    'kconfig': lambda ctx, choice: gate_kconfig(ctx),
}
GATES = tuple(GATE_RUNNERS)


def run(ctx, gates, matrix_path, matrix_only=None, bisect=None):
    os.makedirs(ctx.log_dir, exist_ok=True)
    open(os.path.join(ctx.log_dir, PROGRESS), 'w').close()
    summaries = []
    for g in gates:
        printer.step(f'check: {g}')
        t0 = time.monotonic()
        try:
            if g not in GATE_RUNNERS:
                raise GateError(f'unknown check {g!r} (known: {", ".join(GATES)})')
            s = GATE_RUNNERS[g](ctx, Choice(matrix_path, matrix_only, bisect))
        except (GateError, build.BuildError, subprocess.CalledProcessError, OSError) as e:
            s = results.Summary(f'check:{g}', [], [f'{g}: {e}'])
        printer.step(f'check: {g}: {s.passed} passed, {s.failed} failed '
                     f'({time.monotonic() - t0:.0f} s)')
        summaries.append(s)
    return summaries


def write_report(ctx, summaries):
    """The report's lines (a case a line, then the totals), also written to
    build/results/check-<base>/report.txt."""
    lines = []
    for s in summaries:
        lines += [printer.case_line(s.variant, c) for c in s.cases]
        lines += [printer.problem_line(s.variant, p) for p in s.problems]
    lines.append(printer.totals_line(summaries))
    os.makedirs(ctx.log_dir, exist_ok=True)
    with open(os.path.join(ctx.log_dir, 'report.txt'), 'w') as f:
        f.write('\n'.join(lines) + '\n')
    return lines
