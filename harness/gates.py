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

The pure functions (diff parsing, warning comparison, matrix parsing) are
tested in harness/tests/test_gates.py without a kernel build.
"""
import collections
import configparser
import dataclasses
import os
import re
import shutil
import subprocess
import sys
import time

from . import build, checks, kconfig, ktap, results, variants

GATES = ('checkpatch', 'kerneldoc', 'docs', 'compiler', 'bisect', 'matrix')

# Series options, on and off, for the bisect builds (applied on the
# variant's fragments; symbols a commit does not know yet are ignored).
OPTION_FRAGMENTS = {'on': 'options-on', 'off': 'options-off'}


class GateError(Exception):
    pass


# --- pure helpers -----------------------------------------------------------

def kernel_sources(paths):
    """The kernel .c and .h files among @paths (not tools/, scripts/, docs)."""
    return sorted(p for p in paths
                  if p.endswith(('.c', '.h')) and
                  not p.startswith(('tools/', 'scripts/', 'Documentation/',
                                    'samples/')))


_LOCATION = re.compile(r'^(?P<file>[^:\s]+):\d+(?::\d+)?:\s*')


def normalise_warning(line, prefixes=()):
    """@line without line and column numbers and without any of @prefixes
    (tree or output directories), so that the same warning matches in two
    trees and across edits that move it."""
    for p in prefixes:
        line = line.replace(p.rstrip('/') + '/', '')
    m = _LOCATION.match(line)
    if m:
        line = m.group('file') + ': ' + line[m.end():]
    return line.strip()


def compiler_warnings(output, prefixes=()):
    """Normalised warning and error lines of a compiler or sparse run."""
    found = []
    for line in output.splitlines():
        if re.search(r'\b(warning|error):', line):
            found.append(normalise_warning(line, prefixes))
    return found


def new_warnings(base, series):
    """Warnings of @series not in @base, counting duplicates."""
    extra = collections.Counter(series) - collections.Counter(base)
    return sorted(extra.elements())


_HUNK = re.compile(r'^@@ -\d+(?:,\d+)? \+(?P<start>\d+)(?:,(?P<n>\d+))? @@')


def added_lines(diff_text):
    """{path: set of line numbers added in the new file} of a `git diff -U0`."""
    added, path, line = {}, None, 0
    for text in diff_text.splitlines():
        if text.startswith('+++ '):
            name = text[4:]
            path = name[2:] if name.startswith('b/') else None
            continue
        m = _HUNK.match(text)
        if m:
            line = int(m.group('start'))
            continue
        if path and text.startswith('+'):
            added.setdefault(path, set()).add(line)
            line += 1
        elif path and text.startswith(' '):
            line += 1
    return added


def function_definitions(source):
    """[(line number, name, static?)] of the top-level function definitions
    of a C file: a line at column 0 with a name and '(' whose declaration
    ends in ')' followed by a '{' line."""
    lines = source.splitlines()
    defs = []
    for i, text in enumerate(lines):
        if not text or text[0] in ' \t#/*{}' or '(' not in text:
            continue
        m = re.match(r'^(?P<decl>[A-Za-z_][\w \t\*]*?)\b(?P<name>[A-Za-z_]\w*)\s*\(', text)
        if not m or m.group('name') in ('if', 'for', 'while', 'switch', 'return'):
            continue
        if text.startswith(('typedef', 'extern')) or text.rstrip().endswith(';'):
            continue
        j = i
        while j < len(lines) and not lines[j].rstrip().endswith((')', '{', ';')):
            j += 1
        if j >= len(lines) or lines[j].rstrip().endswith(';'):
            continue
        if not (lines[j].rstrip().endswith('{') or
                (j + 1 < len(lines) and lines[j + 1].strip() == '{')):
            continue
        if '=' in m.group('decl'):
            continue
        defs.append((i + 1, m.group('name'), m.group('decl').startswith('static')))
    return defs


def has_kernel_doc(source, line_no):
    """Is the function defined at @line_no (1-based) preceded by a /** */
    comment (blank lines and attributes like __init aside)?"""
    lines = source.splitlines()
    i = line_no - 2
    while i >= 0 and not lines[i].strip():
        i -= 1
    if i < 0 or not lines[i].strip().endswith('*/'):
        return False
    while i >= 0 and not lines[i].lstrip().startswith('/*'):
        i -= 1
    return i >= 0 and lines[i].lstrip().startswith('/**')


def undocumented_new_functions(diff_text, read_file):
    """[(path, line, name)] of non-static functions whose definition line the
    diff adds to a kernel .c file and that have no kernel-doc comment.
    @read_file(path) returns the file's text after the diff."""
    missing = []
    for path, lines in sorted(added_lines(diff_text).items()):
        if not path.endswith('.c') or not kernel_sources([path]):
            continue
        source = read_file(path)
        for line_no, name, is_static in function_definitions(source):
            if not is_static and line_no in lines and not has_kernel_doc(source, line_no):
                missing.append((path, line_no, name))
    return missing


@dataclasses.dataclass
class MatrixEntry:
    name: str
    arch: str
    fragments: tuple          # configs/<name>.config, on tinyconfig
    settings: tuple           # extra CONFIG_X=v lines
    randconfig_seed: int = None  # build a randconfig with this seed instead
    probability: int = 5      # KCONFIG_PROBABILITY of a randconfig
    note: str = ''


def load_matrix(path):
    """[MatrixEntry] from configs/matrix.ini; raises GateError on bad input."""
    cp = configparser.ConfigParser(interpolation=None)
    try:
        with open(path) as f:
            cp.read_file(f)
    except (OSError, configparser.Error) as e:
        raise GateError(f'{path}: {e}')
    entries = []
    for name in cp.sections():
        sec = cp[name]
        arch = sec.get('arch', '')
        if arch not in variants.ARCHES:
            raise GateError(f'{path} [{name}]: arch must be one of '
                            f'{", ".join(variants.ARCHES)}, not {arch!r}')
        settings = tuple(s.strip() for s in sec.get('set', '').split() if s.strip())
        for s in settings:
            if not re.match(r'^CONFIG_[A-Za-z0-9_]+=\S+$', s):
                raise GateError(f'{path} [{name}]: set item {s!r} is not CONFIG_X=value')
        seed = sec.get('randconfig_seed')
        try:
            seed = int(seed) if seed is not None else None
            prob = int(sec.get('probability', '5'))
        except ValueError as e:
            raise GateError(f'{path} [{name}]: {e}')
        entries.append(MatrixEntry(name, arch, tuple(sec.get('fragments', '').split()),
                                   settings, seed, prob, sec.get('note', '')))
    if not entries:
        raise GateError(f'{path}: no entries')
    return entries


# --- running ----------------------------------------------------------------

@dataclasses.dataclass
class Context:
    root: str                 # the repository
    tree: str                 # the base's work tree: build/linux, build/linux-6.12
    out: str                  # build/out/check-<base>
    patches: str              # patches/, backports/<base>/
    allowlist: str            # series/checkpatch-allowlist
    log_dir: str              # build/results/check-<base>
    rev_from: str = 'base'    # first commit of the range is rev_from..HEAD
    base: str = 'mainline'    # configs/bases.ini section, names the worktrees

    @property
    def configs(self):
        return os.path.join(self.root, 'configs')

    def rel(self, path):
        """@path relative to the repository, for reproduce lines."""
        return os.path.relpath(path, self.root)

    def worktree(self, name):
        """build/wt/<base>/<name>: a scratch worktree of the base's tree
        (outside build/linux-*, which are work trees paired with backports/)."""
        return os.path.join(self.root, 'build', 'wt', self.base, name)


def _git(ctx, *args, tree=None):
    return subprocess.run(['git', '-C', tree or ctx.tree, *args], check=True,
                          capture_output=True, text=True).stdout


def _case(name, ok, reason, command):
    return ktap.Case(name, ktap.PASS if ok else ktap.FAIL,
                     (reason + '; ' if reason else '') + 'reproduce: ' + command)


def case_line(variant, case):
    """One report line: the same in progress.txt, report.txt and on stdout."""
    return (f'{case.status.upper():4} {variant}: {case.name}' +
            (f' -- {case.reason}' if case.reason else ''))


PROGRESS = 'progress.txt'


def _record(ctx, gate, cases, case):
    """Add @case to @cases and write its line at once to stderr and to
    build/results/check/progress.txt, so that a long gate (bisect, matrix)
    stopped half way still shows every case it finished."""
    cases.append(case)
    line = case_line(f'check:{gate}', case)
    print(line, file=sys.stderr, flush=True)
    with open(os.path.join(ctx.log_dir, PROGRESS), 'a') as fh:
        fh.write(line + '\n')


def _make_args(arch, out):
    return build.kbuild_args(variants.ARCHES[arch], out)


def _shell(argv):
    return ' '.join(a if re.match(r'^[\w@%+=:,./-]+$', a) else repr(a) for a in argv)


def _configure(ctx, tree, arch, out, fragments, settings=(), log=None):
    """tinyconfig + fragments + settings + olddefconfig in @out; returns the
    symbols asked for that .config does not have."""
    os.makedirs(out, exist_ok=True)
    texts = []
    for f in fragments:
        with open(os.path.join(ctx.configs, f + '.config')) as fh:
            texts.append(fh.read())
    texts.append('\n'.join(settings))
    make = ['make', '-s', '-C', tree, *_make_args(arch, out)]
    subprocess.run(make + ['tinyconfig'], check=True, capture_output=True)
    with open(os.path.join(out, '.config'), 'a') as fh:
        for t in texts:
            fh.write('\n' + t + '\n')
    subprocess.run(make + ['olddefconfig'], check=True, capture_output=True)
    with open(os.path.join(out, '.config')) as fh:
        final = kconfig.parse(fh.read())
    return kconfig.verify(kconfig.merge(texts), final)


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
                           ' | '.join(warns[:3]), f'cd {ctx.rel(ctx.tree)} && ' + _shell(cmd)))
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


# Sphinx output lines that are warnings or errors.
_SPHINX_WARNING = re.compile(r'\b(WARNING|ERROR|CRITICAL)\b|: (warning|error):')


def doc_dirs(paths):
    """The top-level Documentation/ directories among @paths."""
    return sorted({p.split('/')[1] for p in paths
                   if p.startswith('Documentation/') and p.count('/') >= 2})


def sphinx_warnings(output, prefixes=()):
    """Normalised warning lines of a `make htmldocs` run."""
    found = []
    for line in output.splitlines():
        if _SPHINX_WARNING.search(line):
            found.append(normalise_warning(line, prefixes))
    return found


def _htmldocs(tree, out, dirs, log):
    env = dict(os.environ, PATH='/usr/bin:/bin:' + os.environ.get('PATH', ''))
    argv = ['make', '-C', tree, f'O={out}', f'SPHINXDIRS={" ".join(dirs)}', 'htmldocs']
    proc = subprocess.run(argv, capture_output=True, text=True, env=env)
    with open(log, 'w') as fh:
        fh.write('$ ' + _shell(argv) + '\n' + proc.stdout + proc.stderr)
    # htmldocs writes the netlink spec pages into the source tree: remove them.
    subprocess.run(['make', '-C', tree, f'O={out}', 'cleandocs'], capture_output=True, env=env)
    return proc.returncode, sphinx_warnings(proc.stdout + proc.stderr, (tree, out))


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
    rc_b, base = _htmldocs(base_tree, os.path.join(ctx.out, 'check-docs-base'), dirs,
                           os.path.join(ctx.log_dir, 'docs-base.log'))
    rc_s, series = _htmldocs(ctx.tree, os.path.join(ctx.out, 'check-docs-series'), dirs,
                             os.path.join(ctx.log_dir, 'docs-series.log'))
    cmd = (f'make -C {ctx.rel(ctx.tree)} O={ctx.rel(ctx.out)}/check-docs-series '
           f'SPHINXDIRS="{" ".join(dirs)}" htmldocs (the base: the same in '
           f'{ctx.rel(base_tree)})')
    extra = new_warnings(base, series)
    cases.append(_case(f'htmldocs {" ".join(dirs)}: builds', rc_s == 0,
                       '' if rc_s == 0 else f'exit {rc_s}, see docs-series.log', cmd))
    cases.append(_case(f'htmldocs {" ".join(dirs)}: no new warning', not extra,
                       f'{len(extra)} new: ' + ' | '.join(extra[:3]) if extra else
                       f'{len(series)} warnings, as many as the base', cmd))
    return results.Summary('check:docs', cases, [])


def _base_worktree(ctx):
    """build/wt/<base>/check-base: a worktree at rev_from."""
    base_tree = ctx.worktree('check-base')
    if not os.path.isdir(base_tree):
        os.makedirs(os.path.dirname(base_tree), exist_ok=True)
        subprocess.run(['git', '-C', ctx.tree, 'worktree', 'add', '-q', '--detach',
                        base_tree, ctx.rev_from], check=True, capture_output=True)
    else:
        _git(ctx, 'checkout', '-q', '--detach', ctx.rev_from, tree=base_tree)
    return base_tree


def _object_warnings(ctx, tree, arch, out, objs, fragments, log):
    """sparse (C=2) and W=1 output of building @objs in @tree, normalised."""
    # Symbols the base does not know yet are dropped there: not an error.
    _configure(ctx, tree, arch, out, fragments)
    for o in objs:  # force a rebuild, so that W=1 warnings show again
        try:
            os.remove(os.path.join(out, o))
        except FileNotFoundError:
            pass
    argv = ['make', '-C', tree, *_make_args(arch, out), '-j', build.jobs(),
            'C=2', 'W=1', *objs]
    proc = subprocess.run(argv, capture_output=True, text=True)
    with open(log, 'w') as fh:
        fh.write('$ ' + _shell(argv) + '\n' + proc.stdout + proc.stderr)
    if proc.returncode:
        raise GateError(f'building {" ".join(objs)} in {tree} failed; see {log}')
    return compiler_warnings(proc.stderr, prefixes=(tree, out))


# The compiler gate's config must build every .c file the series touches:
# mm/memory_hotplug.c and drivers/base/memory.c need memory hotplug.
COMPILER_FRAGMENTS = ('common', 'x86_64', 'options-on', 'hotplug')


def gate_compiler(ctx, arch='x86_64', fragments=COMPILER_FRAGMENTS):
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
                                os.path.join(ctx.log_dir, 'compiler-base.log')) if base_objs else []
        series = _object_warnings(ctx, ctx.tree, arch,
                                  os.path.join(ctx.out, f'check-compiler-series-{arch}'),
                                  objs, fragments,
                                  os.path.join(ctx.log_dir, 'compiler-series.log'))
    except (GateError, subprocess.CalledProcessError) as e:
        return results.Summary('check:compiler', [], [str(e)])
    cmd = (f'make -C {ctx.rel(ctx.tree)} O={ctx.rel(ctx.out)}/check-compiler-series-{arch} '
           f'ARCH={arch} tinyconfig + configs/{{{",".join(fragments)}}}.config + '
           f'olddefconfig, then C=2 W=1 {" ".join(objs)} (the base: the same in '
           f'{ctx.rel(base_tree)})')
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


BISECT_CONFIGS = {
    'x86_64': ('common', 'x86_64'),
    'arm64': ('common', 'arm64', 'arm64-4k'),
}


DEFAULT_BISECT = (('x86_64', 'on'), ('x86_64', 'off'), ('arm64', 'on'), ('arm64', 'off'))


def gate_bisect(ctx, builds=DEFAULT_BISECT):
    """Every commit in rev_from..HEAD builds vmlinux (and the cma kselftests
    where it touches them), per (arch, option set) of @builds, incrementally."""
    cases, problems = [], []
    commits = _git(ctx, 'rev-list', '--reverse', f'{ctx.rev_from}..HEAD').split()
    wt = ctx.worktree('check-bisect')
    if not os.path.isdir(wt):
        os.makedirs(os.path.dirname(wt), exist_ok=True)
        subprocess.run(['git', '-C', ctx.tree, 'worktree', 'add', '-q', '--detach',
                        wt, ctx.rev_from], check=True, capture_output=True)
    for arch, opt in builds:
        out = os.path.join(ctx.out, f'check-bisect-{arch}-{opt}')
        frags = BISECT_CONFIGS[arch] + (OPTION_FRAGMENTS[opt],)
        started = time.monotonic()
        configured = False
        for c in commits:
            subject = _git(ctx, 'log', '-1', '--format=%s', c).strip()
            kernel, selftests = _commit_touches_kernel(ctx, c)
            _git(ctx, 'checkout', '-q', '--detach', c, tree=wt)
            name = f'bisect {arch} options {opt}: {c[:12]} {subject}'
            log = os.path.join(ctx.log_dir, f'bisect-{arch}-{opt}-{c[:12]}.log')
            cmd = (f'git -C {ctx.rel(ctx.tree)} checkout {c[:12]} && make -C '
                   f'{ctx.rel(ctx.tree)} O={ctx.rel(out)} ARCH={arch} -j3 vmlinux')
            t0 = time.monotonic()
            if not configured or kernel:
                # Re-apply the fragments: a symbol the previous commit
                # did not know was dropped from .config by olddefconfig.
                _configure(ctx, wt, arch, out, frags)
                configured = True
                argv = ['make', '-C', wt, *_make_args(arch, out), '-j', build.jobs(),
                        'vmlinux']
                proc = subprocess.run(argv, capture_output=True, text=True)
                with open(log, 'w') as fh:
                    fh.write('$ ' + _shell(argv) + '\n' + proc.stdout + proc.stderr)
                errs = [l for l in proc.stderr.splitlines() if 'error' in l.lower()]
                ok = proc.returncode == 0
                why = (f'{time.monotonic() - t0:.0f} s' if ok else
                       f'build failed: {" | ".join(errs[:2]) or "see " + log}')
            else:
                ok, why = True, 'no kernel source changed'
            if ok and selftests and arch == 'x86_64' and opt == 'on':
                os.makedirs(f'{out}/selftests-cma', exist_ok=True)
                argv = ['make', '-s', '-C', os.path.join(wt, 'tools/testing/selftests/cma'),
                        f'OUTPUT={out}/selftests-cma']
                proc = subprocess.run(argv, capture_output=True, text=True)
                if proc.returncode:
                    ok, why = False, 'cma kselftests do not build: ' + (
                        proc.stderr.strip().splitlines() or ['?'])[-1]
            _record(ctx, 'bisect', cases, _case(name, ok, why, cmd))
        _record(ctx, 'bisect', cases, _case(
            f'bisect {arch} options {opt}: total', True,
            f'{len(commits)} commits in {time.monotonic() - started:.0f} s', '-'))
    return results.Summary('check:bisect', cases, problems)


def gate_matrix(ctx, matrix_path, only=None):
    cases = []
    try:
        entries = load_matrix(matrix_path)
    except GateError as e:
        return results.Summary('check:matrix', [], [str(e)])
    for e in entries:
        if only and e.name not in only:
            continue
        out = os.path.join(ctx.out, f'check-matrix-{e.name}')
        log = os.path.join(ctx.log_dir, f'matrix-{e.name}.log')
        t0 = time.monotonic()
        make = ['make', '-C', ctx.tree, *_make_args(e.arch, out)]
        if e.randconfig_seed is not None:
            os.makedirs(out, exist_ok=True)
            allconfig = os.path.join(out, 'allconfig')
            texts = []
            for f in e.fragments:
                with open(os.path.join(ctx.configs, f + '.config')) as fh:
                    texts.append(fh.read())
            with open(allconfig, 'w') as fh:
                fh.write('\n'.join(texts + list(e.settings)) + '\n')
            env = dict(os.environ, KCONFIG_SEED=str(e.randconfig_seed),
                       KCONFIG_PROBABILITY=str(e.probability),
                       KCONFIG_ALLCONFIG=allconfig)
            subprocess.run(make + ['randconfig'], env=env, check=True, capture_output=True)
            with open(os.path.join(out, '.config')) as fh:
                bad = kconfig.verify(kconfig.merge(texts + ['\n'.join(e.settings)]),
                                     kconfig.parse(fh.read()))
            cmd = (f'KCONFIG_SEED={e.randconfig_seed} KCONFIG_PROBABILITY={e.probability} '
                   f'KCONFIG_ALLCONFIG={ctx.rel(out)}/allconfig '
                   f'make -C {ctx.rel(ctx.tree)} O={ctx.rel(out)} ARCH={e.arch} '
                   f'randconfig && make ... -j3 vmlinux')
        else:
            bad = _configure(ctx, ctx.tree, e.arch, out, e.fragments, e.settings)
            steps = ['tinyconfig', f'configs/{{{",".join(e.fragments)}}}.config']
            steps += [' '.join(e.settings)] if e.settings else []
            cmd = (f'make -C {ctx.rel(ctx.tree)} O={ctx.rel(out)} ARCH={e.arch} '
                   + ' + '.join(steps + ['olddefconfig']) + ', then -j3 vmlinux')
        if bad:
            _record(ctx, 'matrix', cases, _case(
                f'matrix {e.name}', False, 'not the configuration asked for: ' +
                kconfig.format_mismatches(bad).replace('\n', '; '), cmd))
            continue
        argv = make + ['-j', build.jobs(), 'vmlinux']
        proc = subprocess.run(argv, capture_output=True, text=True)
        with open(log, 'w') as fh:
            fh.write('$ ' + _shell(argv) + '\n' + proc.stdout + proc.stderr)
        errs = [l for l in proc.stderr.splitlines() if 'error' in l.lower()]
        _record(ctx, 'matrix', cases, _case(
            f'matrix {e.name}' + (f' ({e.note})' if e.note else ''),
            proc.returncode == 0,
            f'{time.monotonic() - t0:.0f} s' if proc.returncode == 0 else
            'build failed: ' + (' | '.join(errs[:2]) or 'see ' + log), cmd))
    return results.Summary('check:matrix', cases, [])


def run(ctx, gates, matrix_path, matrix_only=None, bisect=None):
    os.makedirs(ctx.log_dir, exist_ok=True)
    open(os.path.join(ctx.log_dir, PROGRESS), 'w').close()
    summaries = []
    for g in gates:
        build.log_step(f'check: {g}')
        t0 = time.monotonic()
        try:
            if g == 'checkpatch':
                s = gate_checkpatch(ctx)
            elif g == 'kerneldoc':
                s = gate_kerneldoc(ctx)
            elif g == 'docs':
                s = gate_docs(ctx)
            elif g == 'compiler':
                s = gate_compiler(ctx)
            elif g == 'bisect':
                s = gate_bisect(ctx, bisect or DEFAULT_BISECT)
            elif g == 'matrix':
                s = gate_matrix(ctx, matrix_path, matrix_only)
            else:
                raise GateError(f'unknown check {g!r} (known: {", ".join(GATES)})')
        except (GateError, subprocess.CalledProcessError, OSError) as e:
            s = results.Summary(f'check:{g}', [], [f'{g}: {e}'])
        build.log_step(f'check: {g}: {s.passed} passed, {s.failed} failed '
                       f'({time.monotonic() - t0:.0f} s)')
        summaries.append(s)
    return summaries
