"""make bench's builds: the series snapshot and the scratch worktrees of
each kernel's tree, its kernel, and the initramfs with the workload's
programs; the read-only disk some benchmarks read; the instruction-profile
QEMU plugin. build/wt/ and build/out/ serve one benchmark run at a time
(exclusive())."""
import contextlib
import fcntl
import hashlib
import os
import shutil
import subprocess

from . import build, printer, proc
from .benchtable import BenchError, disk_files, kernel_variant

# Each tree's name in the build directories and worktrees it gets, and in
# the hashes that name them: the pristine tree keeps 'base', its name
# before, so that its builds are reused and results name the same
# build/out/bench-<base>-base-* directories.
_DIR_NAME = {'pristine': 'base', 'series': 'series'}


def series_snapshot(root, base_name, series):
    """build/wt/<base>/bench-series: a worktree at the HEAD of @series (the
    base's work tree) when the benchmark starts. Kernels and kselftests are
    built from it, so that commits and rebases in the work tree during a
    long run change nothing that is measured."""
    head = subprocess.run(['git', '-C', series, 'rev-parse', 'HEAD'],
                          capture_output=True, text=True, check=True).stdout.strip()
    return proc.worktree(series, os.path.join(root, 'build', 'wt', base_name, 'bench-series'),
                         head, reset=True)


def kernel_tree(root, kernel, base_name, snapshot):
    """Source tree of @kernel: @snapshot (series_snapshot()) for the series,
    else a worktree of it under build/wt/<base>/.

    The pristine tree is build/wt/<base>/bench-base, a worktree at tag base
    (the base, unpatched); a kernel with patches (an ablation) gets its own
    worktree, build/wt/<base>/bench-<tree>-<hash>, with the patches applied
    on top. The hash names the tree and the patches, not the commit: after
    a rebase of the series the same worktree is checked out at the new
    commit, so that only the files that changed are newer than the
    kernel's objects and the rebuild is incremental.
    """
    if kernel.tree == 'series' and not kernel.patches:
        return snapshot
    commit = 'base' if kernel.tree == 'pristine' else subprocess.run(
        ['git', '-C', snapshot, 'rev-parse', 'HEAD'], capture_output=True,
        text=True, check=True).stdout.strip()
    name = 'bench-base'
    if kernel.patches:
        tree = _DIR_NAME[kernel.tree]
        h = hashlib.sha1(repr((tree, kernel.patches)).encode()).hexdigest()[:8]
        name = f'bench-{tree}-{h}'
    path = proc.worktree(snapshot, os.path.join(root, 'build', 'wt', base_name, name), commit,
                         reset=True)
    for p in kernel.patches:
        rc = subprocess.call(['git', '-C', path, 'apply', os.path.join(root, p)])
        if rc:
            raise BenchError(f'kernel {kernel.name}: {p} does not apply on {kernel.tree}')
    return path


def build_key(v, kernel):
    """The build directory of @kernel (its variant @v) under build/out/:
    kernels of a benchmark that differ only in their command line share it."""
    tree = _DIR_NAME[kernel.tree]
    h = hashlib.sha1(repr((tree, kernel.patches, v.arch.name,
                           v.fragments)).encode()).hexdigest()
    return f'bench-{v.base}-{tree}-{v.arch.name}-{h[:8]}'


def _workload_binaries(root, arch, out_dir, kselftests=(), series=None):
    """bench/*.c compiled statically for @arch, bench/*.sh as they are, and
    the programs of @kselftests (selftest dirs of the @series tree);
    [(host path, guest path)]."""
    os.makedirs(out_dir, exist_ok=True)
    cc = (arch.cross_compile or '') + 'gcc'
    files = []
    for src in sorted(os.listdir(os.path.join(root, 'bench'))):
        path = os.path.join(root, 'bench', src)
        if src.endswith('.sh'):
            files.append((path, '/bench/' + src[:-3]))
        elif src.endswith('.c'):
            exe = os.path.join(out_dir, src[:-2])
            subprocess.check_call([cc, '-O2', '-Wall', '-static', '-o', exe, path])
            files.append((exe, '/bench/' + src[:-2]))
    for item in kselftests:
        files += _kselftest_binaries(item, cc, out_dir, series)
    return files


def _kselftest_binaries(item, cc, out_dir, series):
    """The programs of one `kselftests` item: DIR (every program of
    tools/testing/selftests/DIR) or DIR:PROG,PROG (only those; a PROG
    ending in .sh is copied from the source directory as it is)."""
    d, _, only = item.partition(':')
    src = os.path.join(series, 'tools', 'testing', 'selftests', d)
    out = os.path.join(out_dir, 'kselftest-' + d)
    os.makedirs(out, exist_ok=True)
    progs = [p for p in only.split(',') if p]
    scripts = [p for p in progs if p.endswith('.sh')]
    targets = [os.path.join(out, p) for p in progs if not p.endswith('.sh')]
    if targets or not progs:
        subprocess.check_call(['make', '-s', '-C', src, f'OUTPUT={out}', f'CC={cc}',
                               'USERLDFLAGS=-static', *targets],
                              stdout=subprocess.DEVNULL)
    if progs:
        return ([(t, '/bench/' + os.path.basename(t)) for t in targets] +
                [(os.path.join(src, p), '/bench/' + p) for p in scripts])
    files = []
    for exe in sorted(os.listdir(out)):
        p = os.path.join(out, exe)
        if os.access(p, os.X_OK) and not os.path.isdir(p):
            files.append((p, '/bench/' + exe))
    return files


def prepare(root, bench, log, series):
    """Build every distinct kernel of @bench from @series (series_snapshot()
    of its base's work tree); {kernel name: (variant, kernel, image, initrd,
    build directory)}."""
    built = {}
    out = {}
    for k in bench.kernels:
        v = kernel_variant(bench, k)
        key = build_key(v, k)
        if key not in built:
            odir = os.path.join(root, 'build', 'out', key)
            tree = kernel_tree(root, k, v.base, series)
            printer.step(f'{bench.name}: build {k.tree} kernel '
                         f'({" + ".join(v.fragments + k.patches)}) in build/out/{key}')
            build.configure_variant(v, tree, odir, log)
            image = build.kernel(v, tree, odir, log)
            bins = _workload_binaries(root, v.arch, os.path.join(odir, 'bench-bin'),
                                      bench.kselftests, series)
            bins.append((os.path.join(build.GUEST, 'bench'), '/bench/bench'))
            bb = build.busybox(v, os.path.join(root, 'build', 'cache'))
            initrd = build.initramfs(v, None, bb,
                                     os.path.join(odir, 'bench-initramfs.cpio.gz'),
                                     extra_files=bins)
            built[key] = (image, initrd, odir)
        out[k.name] = (v, k) + built[key]
    return out


@contextlib.contextmanager
def exclusive(root):
    """Hold build/wt/.bench.lock: two benchmark runs at once share the
    scratch worktrees and build directories and break each other (one's
    git checkout in a worktree the other was resetting failed)."""
    path = os.path.join(root, 'build', 'wt', '.bench.lock')
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BenchError('another benchmark run (make bench, soak, fault-inject or '
                             'mm-selftests) is using build/wt/ and build/out/: '
                             'wait for it to finish') from None
        yield


# What the disk's files hold: a non-zero pattern, because mke2fs -d stores
# blocks of zeros as holes, which the guest would read without any I/O.
_DISK_PATTERN = bytes(range(1, 256)) * 257


def disk_image_path(root, bench):
    """Where disk_image() keeps @bench's disk."""
    return os.path.join(root, 'build', 'cache', f'disk-ext2-{bench.disk}.img')


def disk_image(root, bench):
    """Path of @bench's disk: an ext2 image under build/cache/ holding
    COUNT files of SIZE MiB (f000, f001, ...), made once (mke2fs -d) and
    reused; QEMU attaches it read-only, so every boot reads the same
    blocks."""
    count, mib = disk_files(bench.name, bench.disk)
    path = disk_image_path(root, bench)
    cache = os.path.dirname(path)
    if os.path.exists(path):
        return path
    printer.step(f'{bench.name}: make the disk, {count} files of {mib} MiB (ext2)')
    os.makedirs(cache, exist_ok=True)
    staging = path + '.files'
    shutil.rmtree(staging, ignore_errors=True)
    os.makedirs(staging)
    try:
        chunk = (_DISK_PATTERN * (2 ** 20 // len(_DISK_PATTERN) + 1))[:2 ** 20]
        for i in range(count):
            with open(os.path.join(staging, f'f{i:03d}'), 'wb') as f:
                for _ in range(mib):
                    f.write(chunk)
        # Room for the metadata: 1/16 more and 16 MiB.
        size_kib = (count * mib * 17 // 16 + 16) * 1024
        try:
            out = subprocess.run(['mke2fs', '-q', '-F', '-t', 'ext2', '-b', '4096', '-m', '0',
                                  '-d', staging, path + '.tmp', f'{size_kib}k'],
                                 capture_output=True, text=True)
        except OSError as e:
            raise BenchError(f'mke2fs could not run ({e.strerror}): the disk of '
                             f'{bench.name} needs e2fsprogs (make deps)') from None
        if out.returncode:
            raise BenchError(f'mke2fs could not make the disk of {bench.name}: '
                             f'{out.stderr.strip()}')
        os.rename(path + '.tmp', path)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        if os.path.exists(path + '.tmp'):
            os.unlink(path + '.tmp')
    return path


def build_plugin(root, log):
    """Path of the insn-profile QEMU plugin, built when missing."""
    so = os.path.join(root, 'build', 'cache', 'insn-profile.so')
    printer.step('profile: build the insn-profile QEMU plugin')
    with open(log, 'a') as f:
        rc = subprocess.run([os.path.join(root, 'scripts', 'build-qemu-plugin.sh'), so],
                            stdout=f, stderr=subprocess.STDOUT).returncode
    if rc:
        raise BenchError(f'scripts/build-qemu-plugin.sh failed (see {log})')
    return so
