"""make bench's runs: every kernel of a benchmark booted `runs` times,
interleaved (pristine, series, pristine, series, ...) so machine noise hits
all of them; the figures of each boot, the instruction profile, and the
report (benchreport) written from the boots or, again, from their logs."""
import json
import os
import subprocess
import sys
import time

from . import benchreport, boot, console, paths, printer, qemu
from .benchbuild import (build_key, build_plugin, disk_image, disk_image_path, exclusive,
                         prepare, series_snapshot)
from .benchtable import PROFILE_UNIT, BenchError, kernel_variant


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
            res = boot_figures(boot.run(v, argv, console_log))
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


def boot_figures(b):
    """console.bench_figures() of one boot.Boot @b, with 'problems': why
    the run is left out of the medians (its judgement: a splat, a failed
    kernel allocation, a timeout, a workload that did not finish or
    exited non-zero), [] when it counts."""
    res = console.bench_figures(b.text)
    res['problems'] = b.problems
    return res


def write_report(root, bench, runs, cmdlines, base, series, results_dir, extra=''):
    """Write @bench's .json and .png to @results_dir, and its Markdown
    report (with @extra markdown at its end) beside the run's console logs,
    build/results/bench-NAME/report.md under @root, so that reruns add
    nothing to @results_dir but what they measured; the markdown."""
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
            res = boot_figures(boot.read(v, path, 'bench'))
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


def bench_cmdline(bench, workload):
    """Kernel command line that makes the guest run @workload."""
    extra = 'harness.bench=' + ','.join(workload)
    if bench.zram:
        extra += f' harness.zram={bench.zram}'
    return extra


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
        if boot.run(v, argv + profile_args(plugin, console_log), console_log).rc is None:
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
