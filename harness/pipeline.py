"""The per-variant pipeline of make run and make test: the base's work tree,
configure, build, initramfs, boot, judge, write build/results/<variant>/.

Several variants: the next variant's kernel builds (niced) while the current
variant's guest runs: one build and one guest at a time.
"""
import concurrent.futures
import os
import subprocess
import sys

from . import (bases, boot, build, checks, console, figures, paths, printer, qemu, results,
               variants, zoneaudit)


def tree_of(base):
    """The work tree of @base (a bases.Base), absolute."""
    return paths.TREE_OVERRIDE or os.path.join(paths.ROOT, base.tree)


def patches_of(base):
    return os.path.join(paths.ROOT, base.patches)


_READY = {}    # base name -> what its tree holds, or the BuildError it gave


def ensure_tree(base):
    """@base's work tree, fetched and with its series applied when missing
    (scripts/series.sh tree); tried once per run. Returns a line that says
    what the tree holds; raises build.BuildError when it cannot be set up
    (again for every variant of that base, without trying again)."""
    if base.name not in _READY:
        _READY[base.name] = _set_up_tree(base)
    if isinstance(_READY[base.name], build.BuildError):
        raise _READY[base.name]
    return _READY[base.name]


def _set_up_tree(base):
    tree = tree_of(base)
    if paths.TREE_OVERRIDE:
        if not os.path.exists(os.path.join(tree, '.git')):
            return build.BuildError(f'HARNESS_TREE={tree} is not a git work tree')
    else:
        rc = subprocess.call(['sh', paths.SERIES_SH, 'tree', base.name],
                             env=dict(os.environ, PYTHON=sys.executable))
        if rc:
            return build.BuildError(f'base {base.name}: {base.tree} could not be set up '
                                    f'(scripts/series.sh tree {base.name} exited {rc})')
    return describe_tree(base, tree)


def describe_tree(base, tree):
    """'build/linux: Linux 7.3-rc7 + 24 patches (patches/)', or
    that it is the bare base when the series has no commit yet."""
    proc = subprocess.run(['git', '-C', tree, 'rev-list', '--count', 'base..HEAD'],
                          capture_output=True, text=True)
    n = proc.stdout.strip() or '?'
    where = os.path.relpath(tree, paths.ROOT)
    if n == '0':
        return (f'{where}: the bare base, {base.title}: {base.patches}/ has no '
                f'patches yet')
    return f'{where}: {base.title} + {n} patches ({base.patches}/)'


def prepare_variant(v, log, tests=None, btable=None):
    """Configure, build kernel and kselftests, pack the initramfs."""
    btable = btable or bases.load(paths.BASES_INI)
    base = bases.lookup(btable, v.base)
    tree = tree_of(base)
    out = os.path.join(paths.OUT, v.name)
    holds = ensure_tree(base)
    printer.step(f'{v.name}: base {base.name}, {holds}')
    printer.step(f'{v.name}: configure ({" + ".join(v.fragments)})')
    build.configure_variant(v, tree, out, log, base_title=base.title)
    printer.step(f'{v.name}: build kernel (log: {os.path.relpath(log, paths.ROOT)})')
    image = build.kernel(v, tree, out, log)
    # The bare base (no series yet) builds, but has no cma kselftests: say so.
    for c in dict.fromkeys(t.split(':', 1)[0] for t in (tests or v.tests).split(',')):
        if not os.path.isdir(os.path.join(tree, 'tools', 'testing', 'selftests', c)):
            raise build.BuildError(f'variant {v.name}: the kernel built, but it has no '
                                   f'kselftests {c} (tools/testing/selftests/{c}): {holds}')
    printer.step(f'{v.name}: build kselftests')
    st = build.kselftests(v, tree, out, log)
    expected = build.select_tests(build.kselftest_list(st), tests or v.tests)
    bb = build.busybox(v, paths.CACHE)
    initrd = build.initramfs(v, st, bb, os.path.join(out, 'initramfs.cpio.gz'))
    return image, initrd, expected


def use_kvm(v, image, initrd, resdir):
    argv = qemu.command(v, image, initrd, mode='probe', kvm=True)
    ok, why = qemu.kvm_usable(argv, os.path.join(resdir, 'kvm-probe.log'))
    printer.step(f'{v.name}: {why}')
    return ok


def _result_dir(v):
    resdir = os.path.join(paths.RESULTS, v.name)
    os.makedirs(resdir, exist_ok=True)
    for f in os.listdir(resdir):
        os.unlink(os.path.join(resdir, f))
    return resdir


def build_variant(v, tests, btable):
    """The build half of a run: (resdir, (image, initrd, expected)) or
    (resdir, Summary) when the build failed."""
    resdir = _result_dir(v)
    try:
        return resdir, prepare_variant(v, os.path.join(resdir, 'build.log'), tests, btable)
    except (build.BuildError, bases.BaseError) as e:
        s = results.Summary(v.name, [], [f'build: {e}'])
        _write(resdir, s, '')
        return resdir, s


def boot_variant(v, resdir, built, tests=None, kvm=False, timeout=None):
    """The boot half of a run: boot what build_variant() built (boot.run(),
    which judges the boot), and its kselftests' results."""
    if isinstance(built, results.Summary):
        return built
    image, initrd, expected = built
    if tests:
        v = variants.dataclasses.replace(v, tests=tests)
    extra = f'harness.timeout={timeout}' if timeout else ''
    argv = qemu.command(v, image, initrd, extra_cmdline=extra,
                        kvm=kvm and use_kvm(v, image, initrd, resdir))
    with open(os.path.join(resdir, 'qemu-cmdline'), 'w') as f:
        f.write(' '.join(argv) + '\n')
    printer.step(f'{v.name}: boot ({argv[0]}, limit {v.boot_timeout} s): '
                   f'{", ".join(expected)}')
    b = boot.run(v, argv, os.path.join(resdir, 'console.log'), echo=printer.progress)
    printer.step(f'{v.name}: guest ran {b.elapsed:.0f} s')
    s, ktap_text = console.summarise(v.name, b.text, b.judgement, expected)
    _write(resdir, s, ktap_text)
    return s


def run_variant(v, tests=None, kvm=False, timeout=None, btable=None):
    resdir, built = build_variant(v, tests, btable or bases.load(paths.BASES_INI))
    return boot_variant(v, resdir, built, tests, kvm, timeout)


def run_variants(chosen, btable, tests=None, kvm=False, timeout=None, serial=False):
    """Build and boot @chosen in order. Unless @serial, the next variant's
    kernel builds (niced) while the current variant's guest runs: one build
    and one guest at a time, at most."""
    for name in dict.fromkeys(v.base for v in chosen):
        try:   # fetch and apply in order, before any build
            ensure_tree(bases.lookup(btable, name))
        except build.BuildError:
            pass   # each of its variants reports it
    if serial or len(chosen) < 2:
        return [run_variant(v, tests, kvm, timeout, btable) for v in chosen]
    build.NICE = 10
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as builder:
        pending = [builder.submit(build_variant, v, tests, btable) for v in chosen]
        return [boot_variant(v, *job.result(), tests, kvm, timeout)
                for v, job in zip(chosen, pending)]


def _each_base(btable, label, check, only=None):
    """check(base) -> Summary or None, on the work tree of each base (or
    of @only), fetched and patched first; a base whose tree cannot be made
    gives a Summary '<label>:<base>' with the reason, None is left out."""
    out = []
    for b in btable.values():
        if only and b.name != only:
            continue
        try:
            ensure_tree(b)
        except build.BuildError as e:
            out.append(results.Summary(f'{label}:{b.name}', [], [str(e)]))
            continue
        s = check(b)
        if s is not None:
            s.variant = f'{label}:{b.name}'
            out.append(s)
    return out


def checkpatch_all(btable, only=None):
    """checkpatch over the patch folder of each base (or of @only)."""
    return _each_base(btable, 'checkpatch', lambda b: checks.checkpatch(
        tree_of(b), patches_of(b), paths.CHECKPATCH_ALLOW, codespell=True), only)


def zone_movable_all(btable):
    """The ZONE_MOVABLE audit of every base whose series folder has a
    reviewed list (harness/zoneaudit.py); bases without one are left out."""
    return _each_base(btable, 'zone-movable', lambda b: zoneaudit.audit(
        tree_of(b), os.path.join(paths.ROOT, b.series)))


def figures_check(btable):
    """The figures gate on the mainline series, whose results bench/ holds."""
    b = bases.lookup(btable, 'mainline')
    s = figures.summary(paths.ROOT, patches_of(b),
                        os.path.join(paths.ROOT, b.series, 'cover-letter.txt'))
    s.variant = 'figures'
    return s


def _write(resdir, summary, ktap_text):
    with open(os.path.join(resdir, 'ktap.log'), 'w') as f:
        f.write(ktap_text)
    with open(os.path.join(resdir, 'summary.json'), 'w') as f:
        f.write(summary.to_json())


def shell(v, kvm, btable):
    """Build @v and boot it to an interactive shell; QEMU's exit status."""
    resdir = os.path.join(paths.RESULTS, v.name)
    os.makedirs(resdir, exist_ok=True)
    image, initrd, _ = prepare_variant(v, os.path.join(resdir, 'build.log'), btable=btable)
    argv = qemu.command(v, image, initrd, mode='shell',
                        kvm=kvm and use_kvm(v, image, initrd, resdir))
    printer.step('interactive guest: exit the shell to power off (QEMU escape: Ctrl-A X)')
    return os.spawnvp(os.P_WAIT, argv[0], argv)
