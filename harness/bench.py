"""make bench: the pristine base and the series side by side, in one run.

A benchmark (bench/benchmarks.ini) names a guest (base, arch, fragments,
memory, CPUs, command line), a workload (a static C program in bench/ and its
arguments) and two or more kernels ([<bench>:<kernel>] sections: which tree,
extra fragments, extra command line). Every kernel boots `runs` times,
interleaved (base, series, base, series, ...) so machine noise hits all of
them; each figure is reported as the median and the min-max spread of its
runs, and compared as the ratio of medians to the reference kernel.
"""
import contextlib
import dataclasses
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time

from . import bases, build, console, ini, paths, printer, proc, qemu, variants

class BenchError(Exception):
    pass


@dataclasses.dataclass(frozen=True)
class Kernel:
    name: str
    tree: str               # 'base' (the pristine base) or 'series'
    fragments: tuple        # on top of the benchmark's
    cmdline: str            # on top of the benchmark's
    patches: tuple = ()     # applied on the tree, for ablations


@dataclasses.dataclass(frozen=True)
class Benchmark:
    name: str
    summary: str
    guest: variants.Variant     # base, arch, fragments, memory, cpus, cmdline
    workload: tuple             # program and arguments
    zram: str                   # zram swap size, '' for none
    runs: int
    metrics: tuple              # figures shown, in order
    lower_is_better: tuple      # metrics where a smaller value is better
    plot: str                   # 'bars', 'memory' or 'threads'
    kernels: tuple              # Kernel, the first is the reference
    notes: str
    kselftests: tuple = ()      # selftest dirs built from the series tree
    profile: tuple = ()         # shorter workload of an instruction profile
    reproduce: str = ''         # the command its report names (default make bench B=)
    disk: str = ''              # COUNTxSIZE: files of a read-only ext2 disk, '' for none


# Per workload program: the BENCH counter of the work a profile divides by.
PROFILE_UNIT = {'faults': 'faults'}


def _inherit(cp, sec, chain):
    """Resolve `like = <benchmark>` in @cp: @sec takes every key of that
    benchmark it does not set itself (`like` aside), and its [<like>:<kernel>]
    sections when it has none of its own. An own kernel section left empty
    takes the keys of the parent's kernel of the same name, so a variant of
    a benchmark names the kernels it keeps without repeating them; an empty
    one the parent lacks is refused, since it would silently mean "the
    series, no fragments" (write `tree = series` for that). @chain: the
    sections on the way, to refuse a cycle."""
    parent = cp[sec].get('like')
    if not parent:
        return
    if parent == sec or parent in chain:
        raise BenchError(f'benchmark {sec}: like = {parent} is a cycle')
    if parent not in cp or ':' in parent:
        raise BenchError(f'benchmark {sec}: like = {parent}, which is not a benchmark')
    _inherit(cp, parent, chain + (sec,))
    for key, value in cp[parent].items():
        if key not in cp[sec] and key != 'like':
            cp.set(sec, key, value)
    cp.remove_option(sec, 'like')
    own = [ks for ks in cp.sections() if ks.startswith(sec + ':')]
    if own:
        for ks in own:
            if not cp.options(ks):
                _take_parent_kernel(cp, ks, parent)
        return
    for ks in [ks for ks in cp.sections() if ks.startswith(parent + ':')]:
        name = sec + ':' + ks.split(':', 1)[1]
        cp.add_section(name)
        for key, value in cp[ks].items():
            cp.set(name, key, value)


def _take_parent_kernel(cp, ks, parent):
    """Fill the empty kernel section @ks from [<parent>:<same kernel>]."""
    kernel = ks.split(':', 1)[1]
    src = parent + ':' + kernel
    if src not in cp:
        raise BenchError(f'[{ks}] is empty and like = {parent} has no kernel '
                         f'{kernel}: write tree = series for the series '
                         'with no fragments')
    for key, value in cp[src].items():
        cp.set(ks, key, value)


def load(path, runs_override=None, btable=None):
    """{name: Benchmark} of @path; @btable: {name: bases.Base} (default:
    configs/bases.ini)."""
    btable = btable if btable is not None else bases.load(paths.BASES_INI)
    cp = ini.read(path, BenchError)
    for sec in cp.sections():
        if ':' not in sec:
            _inherit(cp, sec, ())
    out = {}
    for sec in cp.sections():
        if ':' in sec:
            continue
        s = cp[sec]
        try:
            guest = variants._parse_section(sec, s, btable)
        except variants.VariantError as e:
            raise BenchError(f'benchmark {e}') from None
        kernels = []
        for ks in cp.sections():
            if not ks.startswith(sec + ':'):
                continue
            k = cp[ks]
            tree = k.get('tree', 'series')
            if tree not in ('base', 'series'):
                raise BenchError(f'[{ks}]: tree must be base or series, not {tree!r}')
            kernels.append(Kernel(ks.split(':', 1)[1], tree,
                                  tuple(k.get('fragments', '').split()),
                                  k.get('cmdline', ''),
                                  tuple(k.get('patches', '').split())))
        if len(kernels) < 2:
            raise BenchError(f'benchmark {sec}: needs at least two [{sec}:<kernel>] sections')
        try:
            runs = runs_override or int(s.get('runs', '3'))
        except ValueError:
            raise BenchError(f'benchmark {sec}: runs must be a number') from None
        if runs < 1:
            raise BenchError(f'benchmark {sec}: runs must be at least 1')
        workload = tuple(s.get('workload', '').split())
        if not workload:
            raise BenchError(f'benchmark {sec}: no workload')
        out[sec] = Benchmark(
            name=sec, summary=s['summary'], guest=guest, workload=workload,
            zram=s.get('zram', ''), runs=runs,
            metrics=tuple(s.get('metrics', '').split()),
            lower_is_better=tuple(s.get('lower_is_better', '').split()),
            plot=s.get('plot', 'bars'), kernels=tuple(kernels),
            notes=s.get('notes', '').strip(),
            kselftests=tuple(s.get('kselftests', '').split()),
            profile=tuple(s.get('profile', '').split()),
            disk=s.get('disk', '').strip())
        if out[sec].disk:
            disk_files(sec, out[sec].disk)
        if out[sec].profile and out[sec].profile[0] != workload[0]:
            raise BenchError(f'benchmark {sec}: profile must run the workload\'s '
                             f'program {workload[0]}, not {out[sec].profile[0]}')
        if out[sec].profile and workload[0] not in PROFILE_UNIT:
            raise BenchError(f'benchmark {sec}: no unit of work is known for '
                             f'profiles of {workload[0]} (PROFILE_UNIT)')
        if out[sec].profile and '-icount' not in guest.qemu_extra:
            raise BenchError(f'benchmark {sec}: profile needs -icount in qemu_extra '
                             f'(the plugin slows the guest; only guest instructions '
                             f'keep their meaning)')
    return out


def disk_files(name, spec):
    """(number of files, MiB each) of benchmark @name's `disk = COUNTxSIZE`
    (SIZE in MiB, for instance 16x64M)."""
    m = re.fullmatch(r'([0-9]+)x([0-9]+)M', spec)
    if not m or not int(m.group(1)) or not int(m.group(2)):
        raise BenchError(f'benchmark {name}: disk must be COUNTxSIZE with a size in '
                         f'MiB, for instance 16x64M (16 files of 64 MiB), not {spec!r}')
    return int(m.group(1)), int(m.group(2))


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


def disk_args(image):
    """QEMU arguments that give the guest @image as a read-only virtio disk
    (/dev/vda; configs/virtio-blk.config). Without indirect descriptors:
    with them virtio kmallocs a descriptor table per request with
    GFP_ATOMIC, and under the memory pressure of utilization-pagecache's
    first trial (its logs were not kept) such order-1 allocations failed
    and printed page allocation failure reports, splats that leave a run
    out, although the driver falls back to direct descriptors; atomic
    allocations are `atomic`'s subject, not the page cache benchmarks'."""
    return ['-drive', f'file={image},if=none,id=disk0,format=raw,readonly=on',
            '-device', 'virtio-blk-pci,drive=disk0,indirect_desc=off']


def bench_disk_args(root, bench):
    """disk_args() of @bench's disk, made when missing; [] without one."""
    return disk_args(disk_image(root, bench)) if bench.disk else []


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

    'base' is build/wt/<base>/bench-base, a worktree at tag base (the
    pristine base); a kernel with patches (an ablation) gets its own
    worktree, build/wt/<base>/bench-<tree>-<hash>, with the patches applied
    on top. The hash names the tree and the patches, not the commit: after
    a rebase of the series the same worktree is checked out at the new
    commit, so that only the files that changed are newer than the
    kernel's objects and the rebuild is incremental.
    """
    if kernel.tree == 'series' and not kernel.patches:
        return snapshot
    commit = 'base' if kernel.tree == 'base' else subprocess.run(
        ['git', '-C', snapshot, 'rev-parse', 'HEAD'], capture_output=True,
        text=True, check=True).stdout.strip()
    name = 'bench-base'
    if kernel.patches:
        h = hashlib.sha1(repr((kernel.tree, kernel.patches)).encode()).hexdigest()[:8]
        name = f'bench-{kernel.tree}-{h}'
    path = proc.worktree(snapshot, os.path.join(root, 'build', 'wt', base_name, name), commit,
                         reset=True)
    for p in kernel.patches:
        rc = subprocess.call(['git', '-C', path, 'apply', os.path.join(root, p)])
        if rc:
            raise BenchError(f'kernel {kernel.name}: {p} does not apply on {kernel.tree}')
    return path


def kernel_variant(bench, kernel):
    """The guest of @bench with the fragments and command line of @kernel."""
    g = bench.guest
    return dataclasses.replace(
        g, name=f'{bench.name}-{kernel.name}',
        fragments=g.fragments + kernel.fragments,
        cmdline=' '.join(x for x in (g.cmdline, kernel.cmdline) if x))


def build_key(v, kernel):
    h = hashlib.sha1(repr((kernel.tree, kernel.patches, v.arch.name,
                           v.fragments)).encode()).hexdigest()
    return f'bench-{v.base}-{kernel.tree}-{v.arch.name}-{h[:8]}'


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


def run(root, bench, results_dir, base, series):
    """Build, boot every kernel `runs` times interleaved, write the report.
    @base is the bases.Base of the benchmark, @series its work tree. One
    run at a time (exclusive())."""
    with exclusive(root):
        return _run(root, bench, results_dir, base, series)


def _run(root, bench, results_dir, base, series):
    logdir = paths.bench_logs(bench.name, root)
    os.makedirs(logdir, exist_ok=True)
    log = os.path.join(logdir, 'build.log')
    if os.path.exists(log):
        os.unlink(log)
    series = series_snapshot(root, bench.guest.base, series)
    kernels = prepare(root, bench, log, series)
    extra = bench_cmdline(bench, bench.workload)
    drive = bench_disk_args(root, bench)
    plugin = build_plugin(root, log) if bench.profile else None
    runs = {k.name: [] for k in bench.kernels}
    cmdlines = {}
    total = bench.runs * len(bench.kernels)
    step = 0
    for r in range(bench.runs):
        for k in bench.kernels:
            step += 1
            v, _, image, initrd, _ = kernels[k.name]
            argv = qemu.command(v, image, initrd, mode='bench', extra_cmdline=extra) + drive
            cmdlines[k.name] = argv
            console_log = os.path.join(logdir, f'{k.name}-run{r + 1}.log')
            if plugin:
                argv = argv + profile_args(plugin, console_log)
            printer.step(f'{bench.name}: [{step}/{total}] kernel {k.name}, '
                           f'run {r + 1}/{bench.runs}: booting and running '
                           f'{" ".join(bench.workload)}')
            t0 = time.monotonic()
            rc, _ = qemu.boot(argv, console_log, v.boot_timeout)
            res = boot_figures(console_log, v.boot_timeout if rc is None else None)
            res['wall_s'] = time.monotonic() - t0
            problems = res['problems']
            runs[k.name].append(res)
            shown = ', '.join(f'{m} {res["metrics"][m]:g}' for m in bench.metrics
                              if m in res['metrics'])
            printer.step(f'{bench.name}:     {shown}' +
                           (f'  PROBLEMS: {"; ".join(problems)}' if problems else ''))
    profile = profile_section(root, bench, kernels, logdir, plugin) if bench.profile else ''
    markdown = write_report(root, bench, runs, cmdlines, base, series, results_dir, profile)
    failed = sum(1 for rs in runs.values() for r in rs if r['problems'])
    return markdown, failed


def boot_figures(console_log, killed_after=None):
    """console.bench_figures() of one boot's @console_log, with 'problems':
    why the run is left out of the medians (@killed_after: the boot timeout
    when QEMU had to be killed), [] when it counts."""
    with open(console_log, errors='replace') as f:
        res = console.bench_figures(f.read())
    problems = []
    if killed_after is not None:
        problems.append(f'killed after {killed_after} s')
    if '_finished' not in res['metrics']:
        problems.append('workload did not finish')
    if res['metrics'].get('exit_status', 0):
        problems.append(f'workload exited {res["metrics"]["exit_status"]:.0f}')
    problems += [f'kernel splat: {line}' for _, line in res['splats']]
    res['problems'] = problems
    return res


def write_report(root, bench, runs, cmdlines, base, series, results_dir, extra=''):
    """Write @bench's .json and .png to @results_dir, and its Markdown
    report (with @extra markdown at its end) beside the run's console logs,
    build/results/bench-NAME/report.md under @root, so that reruns add
    nothing to @results_dir but what they measured; the markdown."""
    from . import benchreport
    report = benchreport.make_report(root, bench, runs, cmdlines, base, series)
    os.makedirs(results_dir, exist_ok=True)
    base = os.path.join(results_dir, bench.name)
    with open(base + '.json', 'w') as f:
        json.dump(report['data'], f, indent=1)
        f.write('\n')
    plot_err = benchreport.plot(bench, runs, base + '.png')
    if plot_err:
        printer.step(f'{bench.name}: no plot: {plot_err}')
    markdown = report['markdown'] + extra
    logdir = paths.bench_logs(bench.name, root)
    os.makedirs(logdir, exist_ok=True)
    md = os.path.join(logdir, paths.BENCH_REPORT)
    with open(md, 'w') as f:
        f.write(markdown)
    printer.step(f'{bench.name}: the report is in {os.path.relpath(md, root)}')
    return markdown


def report_only(root, bench, results_dir, base):
    """Rewrite @bench's results from the console logs of its last run in
    build/results/bench-NAME/, without building or booting: after a new
    metric or a corrected note, the table is the same run's. Refuses when
    a log is missing or older than that run's build.log (a log the last
    run did not write: a kernel renamed or added since, more runs asked
    for), and for a benchmark with an instruction profile, which needs
    the boots. The series and the boots' wall times, which the logs do
    not hold, are taken from the run's own report (its JSON)."""
    from . import benchreport
    if bench.profile:
        raise BenchError(f'{bench.name}: its instruction profile needs the boots; '
                         f'run make bench B={bench.name}')
    logdir = paths.bench_logs(bench.name, root)
    build_log = os.path.join(logdir, 'build.log')
    again = f'run make bench B={bench.name}'
    if not os.path.exists(build_log):
        raise BenchError(f'{bench.name}: no earlier run in '
                         f'{os.path.relpath(logdir, root)}: {again}')
    started = os.path.getmtime(build_log)
    try:
        with open(os.path.join(results_dir, bench.name + '.json')) as f:
            earlier = json.load(f)
        series = benchreport.DescribedSeries(earlier['series'])
    except (OSError, ValueError, KeyError, TypeError):
        raise BenchError(f'{bench.name}: {os.path.relpath(results_dir, root)}/'
                         f'{bench.name}.json, which names the series the run '
                         f'built, is missing or unreadable: {again}') from None
    booted = {len(k.get('runs', [])) for k in earlier.get('kernels', {}).values()}
    if booted and booted != {bench.runs}:
        raise BenchError(f'{bench.name}: its last run booted each kernel '
                         f'{"/".join(map(str, sorted(booted)))} times, not {bench.runs}: '
                         f'give that count (make bench-report B={bench.name} '
                         f'RUNS={max(booted)}), or the report would drop boots')
    extra = bench_cmdline(bench, bench.workload)
    drive = disk_args(disk_image_path(root, bench)) if bench.disk else []
    runs = {k.name: [] for k in bench.kernels}
    cmdlines = {}
    for k in bench.kernels:
        v = kernel_variant(bench, k)
        odir = os.path.join(root, 'build', 'out', build_key(v, k))
        cmdlines[k.name] = qemu.command(
            v, os.path.join(odir, v.arch.image),
            os.path.join(odir, 'bench-initramfs.cpio.gz'),
            mode='bench', extra_cmdline=extra) + drive
        for r in range(bench.runs):
            path = os.path.join(logdir, f'{k.name}-run{r + 1}.log')
            rel = os.path.relpath(path, root)
            if not os.path.exists(path):
                raise BenchError(f'{bench.name}: no console log {rel}: {again}')
            if os.path.getmtime(path) < started:
                raise BenchError(f'{bench.name}: {rel} is older than the last run '
                                 f'(its build.log), so that run did not write it: {again}')
            res = boot_figures(path)
            res['wall_s'] = _earlier_wall_s(earlier, k.name, r)
            runs[k.name].append(res)
    return write_report(root, bench, runs, cmdlines, base, series, results_dir)


def _earlier_wall_s(earlier, kernel, run):
    """The wall time of boot @run of @kernel in the @earlier report's JSON
    (the same boot: its log is newer than the run's build.log), or None."""
    try:
        return earlier['kernels'][kernel]['runs'][run]['wall_s']
    except (KeyError, IndexError, TypeError):
        return None


def run_logs(bench, btable, reproduce=None):
    """run() @bench (a Benchmark of any table: make soak, make mm-selftests)
    on its base, results in bench/results/ (the report in
    build/results/bench-NAME/): its markdown, the number of boots with
    problems, and {kernel: console text of its first run} ('' when that
    boot left no log). @reproduce: the command the report names."""
    from . import pipeline
    base = bases.lookup(btable, bench.guest.base)
    pipeline.ensure_tree(base)
    if reproduce:
        bench = dataclasses.replace(bench, reproduce=reproduce)
    text, bad = run(paths.ROOT, bench, paths.BENCH_RESULTS, base, pipeline.tree_of(base))
    logdir = paths.bench_logs(bench.name)
    logs = {}
    for k in bench.kernels:
        try:
            with open(os.path.join(logdir, f'{k.name}-run1.log'), errors='replace') as f:
                logs[k.name] = f.read()
        except OSError:
            logs[k.name] = ''
    return text, bad, logs


def bench_cmdline(bench, workload):
    """Kernel command line that makes the guest run @workload."""
    extra = 'harness.bench=' + ','.join(workload)
    if bench.zram:
        extra += f' harness.zram={bench.zram}'
    return extra


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


def profile_args(plugin, console_log):
    """QEMU arguments that profile a boot into <console log stem>.prof."""
    return ['-plugin', f'{plugin},out={os.path.splitext(console_log)[0]}.prof']


def profile_section(root, bench, kernels, logdir, plugin):
    """Boot every kernel once more with the shorter workload, then compare
    per-function instructions per unit of work (run 1 minus the short run),
    the first kernel against the others: a markdown section. @plugin:
    build_plugin()'s .so."""
    extra = bench_cmdline(bench, bench.profile)
    drive = bench_disk_args(root, bench)
    specs = []
    for k in bench.kernels:
        v, _, image, initrd, odir = kernels[k.name]
        console_log = os.path.join(logdir, f'{k.name}-short.log')
        printer.step(f'{bench.name}: kernel {k.name}, profile run: booting '
                     f'and running {" ".join(bench.profile)}')
        argv = qemu.command(v, image, initrd, mode='bench', extra_cmdline=extra) + drive
        rc, _ = qemu.boot(argv + profile_args(plugin, console_log), console_log,
                          v.boot_timeout)
        if rc is None:
            raise BenchError(f'{k.name}: the profile run was killed after '
                             f'{v.boot_timeout} s')
        system_map = os.path.join(odir, 'System.map')
        specs.append(f'{k.name}:{system_map}:{console_log[:-4]}:'
                     f'{os.path.join(logdir, k.name + "-run1")}')
    unit = PROFILE_UNIT[bench.workload[0]]
    out = subprocess.run([sys.executable, os.path.join(root, 'bench', 'profile',
                                                       'insn-profile.py'),
                          'compare', '--unit', unit] + specs,
                         capture_output=True, text=True)
    if out.returncode:
        raise BenchError(f'insn-profile.py failed: {out.stderr.strip()}')
    return (f'\n## Where the instructions go\n\n'
            f'Guest instructions per {unit[:-1]}, per kernel function, from the '
            f'insn-profile QEMU plugin (bench/profile/): run 1 (`'
            f'{" ".join(bench.workload)}`) minus one more boot running `'
            f'{" ".join(bench.profile)}`, so boot and set-up cancel out. '
            f'Inlined functions count in their caller.\n\n' + out.stdout)


def main(args, btable):
    """make bench: list, replot, or run the benchmarks @args names."""
    from . import benchreport, pipeline
    try:
        table = load(paths.BENCH_INI, args.runs, btable)
    except BenchError as e:
        print(f'harness: {e}', file=sys.stderr)
        return 2
    if args.list:
        for b in table.values():
            print(f'  {b.name:<14} {b.summary}')
        return 0
    unknown = [n for n in args.benchmarks if n not in table]
    if unknown:
        print(f'harness: unknown benchmark {", ".join(unknown)}; valid: '
              f'{", ".join(table)}', file=sys.stderr)
        return 2
    if args.replot:
        for name in args.benchmarks or list(table):
            base = os.path.join(paths.BENCH_RESULTS, name)
            try:
                err = benchreport.replot(table[name], base + '.json', base + '.png')
            except (OSError, BenchError) as e:
                err = str(e)
            print(f'{name}: ' + (err or f'wrote {os.path.relpath(base, paths.ROOT)}.png'))
        return 0
    if args.failures:
        if args.benchmarks or args.report or args.replot:
            print('harness: --failures takes no benchmark names', file=sys.stderr)
            return 2
        try:
            print(benchreport.pooled_failures(paths.ROOT, args.failures))
        except BenchError as e:
            print(f'harness: {e}', file=sys.stderr)
            return 2
        return 0
    if args.report:
        if not args.benchmarks:
            print('harness: --report needs benchmark names (B=name)', file=sys.stderr)
            return 2
        for name in args.benchmarks:
            try:
                b = bases.lookup(btable, table[name].guest.base)
                print(report_only(paths.ROOT, table[name], paths.BENCH_RESULTS, b))
            except BenchError as e:
                print(f'harness: {e}', file=sys.stderr)
                return 2
        return 0
    failed = 0
    for name in args.benchmarks or list(table):
        try:
            b = bases.lookup(btable, table[name].guest.base)
            pipeline.ensure_tree(b)
            text, bad = run(paths.ROOT, table[name], paths.BENCH_RESULTS, b,
                            pipeline.tree_of(b))
        except (build.BuildError, BenchError) as e:
            print(f'harness: bench {name}: {e}', file=sys.stderr)
            return 1
        except subprocess.CalledProcessError as e:
            print(f'harness: bench {name}: {" ".join(map(str, e.cmd))} failed: '
                  f'{(e.stderr or "").strip()}', file=sys.stderr)
            return 1
        print(text)
        failed += bad
    if failed:
        print(f'harness: {failed} benchmark runs had problems (see the tables)',
              file=sys.stderr)
    return 1 if failed else 0
