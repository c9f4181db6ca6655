"""make bench: the pristine base and the series side by side, in one run.

A benchmark (bench/benchmarks.ini) names a guest (base, arch, fragments,
memory, CPUs, command line), a workload (a static C program in bench/ and its
arguments) and two or more kernels ([<bench>:<kernel>] sections: which tree,
extra fragments, extra command line). Every kernel boots `runs` times,
interleaved (base, series, base, series, ...) so machine noise hits all of
them; each figure is reported as the median and the min-max spread of its
runs, and compared as the ratio of medians to the reference kernel.
"""
import configparser
import dataclasses
import hashlib
import json
import os
import re
import statistics
import subprocess
import time

from . import build, qemu, splat, variants

MARK_BEGIN = '===HARNESS-BENCH-BEGIN==='
MARK_END = '===HARNESS-BENCH-END==='
_BOOT = re.compile(r'HARNESS: userspace up at ([0-9.]+) s')
_BENCH = re.compile(r'^BENCH ([A-Za-z0-9_]+)=(\S+)')
_VMSTAT = re.compile(r'^VMSTAT (\S+) (-?\d+)')
_SAMPLE = re.compile(r'^SAMPLE (.*)')

# Figures derived from /proc/vmstat deltas: name -> vmstat fields summed.
VMSTAT_SUMS = {
    'pswpin': ('pswpin',),
    'pswpout': ('pswpout',),
    'allocstall': ('allocstall_dma', 'allocstall_dma32', 'allocstall_normal',
                   'allocstall_movable', 'allocstall_highmem',
                   'allocstall_device', 'allocstall_cma'),
    'pgscan': ('pgscan_kswapd', 'pgscan_direct', 'pgscan_khugepaged'),
    'pgsteal': ('pgsteal_kswapd', 'pgsteal_direct', 'pgsteal_khugepaged'),
    'compact_stall': ('compact_stall',),
    'compact_scanned': ('compact_migrate_scanned', 'compact_free_scanned'),
    'kcompactd_wake': ('compact_daemon_wake',),
    'kswapd_wake': ('pageoutrun',),
}


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


def load(path, runs_override=None, known_bases=None):
    cp = configparser.ConfigParser(interpolation=None)
    with open(path) as f:
        cp.read_file(f)
    out = {}
    for sec in cp.sections():
        if ':' in sec:
            continue
        s = cp[sec]
        try:
            guest = variants._parse_section(sec, s, known_bases)
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
            kselftests=tuple(s.get('kselftests', '').split()))
    return out


def parse_console(text):
    """Figures of one boot: {'metrics': {...}, 'samples': [...], 'splats': [...]}."""
    metrics, samples, vm = {}, [], {}
    inside = False
    kernel_lines = []
    for line in text.splitlines():
        line = line.rstrip('\r')
        m = _BOOT.search(line)
        if m:
            metrics['boot_s'] = float(m.group(1))
        if line.startswith(MARK_BEGIN):
            inside = True
            continue
        if line.startswith(MARK_END):
            inside = False
            metrics['_finished'] = 1
            continue
        if not inside or line.startswith('['):
            kernel_lines.append(line)
            continue
        m = _BENCH.match(line)
        if m:
            try:
                metrics[m.group(1)] = float(m.group(2))
            except ValueError:
                pass
            continue
        m = _VMSTAT.match(line)
        if m:
            vm[m.group(1)] = int(m.group(2))
            continue
        m = _SAMPLE.match(line)
        if m:
            sample = {}
            for kv in m.group(1).split():
                k, _, v = kv.partition('=')
                try:
                    sample[k] = float(v)
                except ValueError:
                    pass
            samples.append(sample)
    # Event counters (CONFIG_VM_EVENT_COUNTERS) are missing, not zero, when
    # the kernel does not count them: pgfault always moves when they exist.
    if '_finished' in metrics and 'pgfault' in vm:
        for name, fields in VMSTAT_SUMS.items():
            metrics[name] = sum(vm.get(f, 0) for f in fields)
    return {'metrics': metrics, 'samples': samples, 'vmstat': vm,
            'splats': splat.find(kernel_lines)}


def summarise(values):
    """(median, min, max) of @values, or None when empty."""
    if not values:
        return None
    return statistics.median(values), min(values), max(values)


def _worktree(series, path, commit):
    """Check out @commit of the repository @series, detached, at @path."""
    if not os.path.isdir(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        subprocess.check_call(['git', '-C', series, 'worktree', 'add', '-q',
                               '--detach', path, commit])
    else:
        subprocess.check_call(['git', '-C', path, 'reset', '-q', '--hard'])
        subprocess.check_call(['git', '-C', path, 'checkout', '-q', '--detach', commit])
    return path


def series_snapshot(root, base_name, series):
    """build/wt/<base>/bench-series: a worktree at the HEAD of @series (the
    base's work tree) when the benchmark starts. Kernels and kselftests are
    built from it, so that commits and rebases in the work tree during a
    long run change nothing that is measured."""
    head = subprocess.run(['git', '-C', series, 'rev-parse', 'HEAD'],
                          capture_output=True, text=True, check=True).stdout.strip()
    return _worktree(series, os.path.join(root, 'build', 'wt', base_name, 'bench-series'), head)


def kernel_tree(root, kernel, base_name, snapshot):
    """Source tree of @kernel: @snapshot (series_snapshot()) for the series,
    else a worktree of it under build/wt/<base>/.

    'base' is build/wt/<base>/bench-base, a worktree at tag base (the
    pristine base); a kernel with patches (an ablation) gets its own
    worktree, build/wt/<base>/bench-<tree>-<hash>, with the patches applied
    on top.
    """
    if kernel.tree == 'series' and not kernel.patches:
        return snapshot
    commit = 'base' if kernel.tree == 'base' else subprocess.run(
        ['git', '-C', snapshot, 'rev-parse', 'HEAD'], capture_output=True,
        text=True, check=True).stdout.strip()
    name = 'bench-base'
    if kernel.patches:
        h = hashlib.sha1(repr((commit, kernel.patches)).encode()).hexdigest()[:8]
        name = f'bench-{kernel.tree}-{h}'
    path = _worktree(snapshot, os.path.join(root, 'build', 'wt', base_name, name), commit)
    for p in kernel.patches:
        rc = subprocess.call(['git', '-C', path, 'apply', os.path.join(root, p)])
        if rc:
            raise BenchError(f'kernel {kernel.name}: {p} does not apply on {kernel.tree}')
    return path


def _kernel_variant(bench, kernel):
    g = bench.guest
    return dataclasses.replace(
        g, name=f'{bench.name}-{kernel.name}',
        fragments=g.fragments + kernel.fragments,
        cmdline=' '.join(x for x in (g.cmdline, kernel.cmdline) if x))


def _build_key(v, kernel):
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
    for d in kselftests:
        out = os.path.join(out_dir, 'kselftest-' + d)
        os.makedirs(out, exist_ok=True)
        subprocess.check_call(['make', '-s', '-C',
                               os.path.join(series, 'tools', 'testing', 'selftests', d),
                               f'OUTPUT={out}', f'CC={cc}', 'USERLDFLAGS=-static'],
                              stdout=subprocess.DEVNULL)
        for exe in sorted(os.listdir(out)):
            p = os.path.join(out, exe)
            if os.access(p, os.X_OK) and not os.path.isdir(p):
                files.append((p, '/bench/' + exe))
    return files


def series_description(tree):
    def git(*a):
        return subprocess.run(['git', '-C', tree, *a], capture_output=True,
                              text=True).stdout.strip()
    n = git('rev-list', '--count', 'base..HEAD')
    return f'{git("rev-parse", "--short", "HEAD")} ({n} patches: {git("log", "-1", "--format=%s")})'


def prepare(root, bench, log, series):
    """Build every distinct kernel of @bench from @series (series_snapshot()
    of its base's work tree); {kernel name: (variant, kernel, image, initrd)}."""
    configs = os.path.join(root, 'configs')
    built = {}
    out = {}
    for k in bench.kernels:
        v = _kernel_variant(bench, k)
        key = _build_key(v, k)
        if key not in built:
            odir = os.path.join(root, 'build', 'out', key)
            tree = kernel_tree(root, k, v.base, series)
            build.log_step(f'{bench.name}: build {k.tree} kernel '
                           f'({" + ".join(v.fragments + k.patches)}) in build/out/{key}')
            build.configure(v, tree, odir, configs, log)
            image = build.kernel(v, tree, odir, log)
            bins = _workload_binaries(root, v.arch, os.path.join(odir, 'bench-bin'),
                                      bench.kselftests, series)
            bins.append((os.path.join(build.GUEST, 'bench'), '/bench/bench'))
            bb = build.busybox(v, os.path.join(root, 'build', 'cache'))
            initrd = build.initramfs(v, None, bb,
                                     os.path.join(odir, 'bench-initramfs.cpio.gz'),
                                     extra_files=bins)
            built[key] = (image, initrd)
        out[k.name] = (v, k) + built[key]
    return out


def run(root, bench, results_dir, base, series):
    """Build, boot every kernel `runs` times interleaved, write the report.
    @base is the bases.Base of the benchmark, @series its work tree."""
    logdir = os.path.join(root, 'build', 'results', 'bench-' + bench.name)
    os.makedirs(logdir, exist_ok=True)
    log = os.path.join(logdir, 'build.log')
    if os.path.exists(log):
        os.unlink(log)
    series = series_snapshot(root, bench.guest.base, series)
    kernels = prepare(root, bench, log, series)
    extra = 'harness.bench=' + ','.join(bench.workload)
    if bench.zram:
        extra += f' harness.zram={bench.zram}'
    runs = {k.name: [] for k in bench.kernels}
    cmdlines = {}
    total = bench.runs * len(bench.kernels)
    step = 0
    for r in range(bench.runs):
        for k in bench.kernels:
            step += 1
            v, _, image, initrd = kernels[k.name]
            argv = qemu.command(v, image, initrd, mode='bench', extra_cmdline=extra)
            cmdlines[k.name] = argv
            console = os.path.join(logdir, f'{k.name}-run{r + 1}.log')
            build.log_step(f'{bench.name}: [{step}/{total}] kernel {k.name}, '
                           f'run {r + 1}/{bench.runs}: booting and running '
                           f'{" ".join(bench.workload)}')
            t0 = time.monotonic()
            rc, _ = qemu.boot(argv, console, v.boot_timeout)
            with open(console, errors='replace') as f:
                res = parse_console(f.read())
            res['wall_s'] = time.monotonic() - t0
            problems = []
            if rc is None:
                problems.append(f'killed after {v.boot_timeout} s')
            if '_finished' not in res['metrics']:
                problems.append('workload did not finish')
            if res['metrics'].get('exit_status', 0):
                problems.append(f'workload exited {res["metrics"]["exit_status"]:.0f}')
            problems += [f'kernel splat: {line}' for _, line in res['splats']]
            res['problems'] = problems
            runs[k.name].append(res)
            shown = ', '.join(f'{m} {res["metrics"][m]:g}' for m in bench.metrics
                              if m in res['metrics'])
            build.log_step(f'{bench.name}:     {shown}' +
                           (f'  PROBLEMS: {"; ".join(problems)}' if problems else ''))
    report = make_report(root, bench, runs, cmdlines, base, series)
    os.makedirs(results_dir, exist_ok=True)
    base = os.path.join(results_dir, bench.name)
    with open(base + '.md', 'w') as f:
        f.write(report['markdown'])
    with open(base + '.json', 'w') as f:
        json.dump(report['data'], f, indent=1)
        f.write('\n')
    plot_err = plot(bench, runs, base + '.png')
    if plot_err:
        build.log_step(f'{bench.name}: no plot: {plot_err}')
    failed = sum(1 for rs in runs.values() for r in rs if r['problems'])
    return report['markdown'], failed


def _fmt(x):
    if x is None:
        return '-'
    if abs(x) >= 1000:
        return f'{x:,.0f}'
    if abs(x) >= 10:
        return f'{x:.1f}'
    return f'{x:.3g}'


def make_report(root, bench, runs, cmdlines, base, series):
    ref = bench.kernels[0].name
    table = {}
    for k in bench.kernels:
        for m in bench.metrics:
            vals = [r['metrics'][m] for r in runs[k.name]
                    if m in r['metrics'] and not r['problems']]
            table[(k.name, m)] = summarise(vals)
    lines = [f'# Benchmark `{bench.name}`', '', bench.summary, '']
    if bench.notes:
        lines += [bench.notes, '']
    lines += [f'Each kernel booted {bench.runs} times, interleaved; median of the '
              f'runs, spread = min-max, ratio = median / median of `{ref}`. '
              f'Absolute values come from a TCG guest on a shared 2-core '
              f'machine: compare ratios, not seconds.', '']
    if bench.plot == 'threads':
        lines += _threads_table(bench, runs, ref)
    else:
        lines += _metrics_table(bench, runs, table, ref)
    lines += _report_tail(root, bench, runs, cmdlines, base, series)
    data = _report_data(root, bench, runs, cmdlines, base, series)
    return {'markdown': '\n'.join(lines) + '\n', 'data': data, 'table': table}


def thread_counts(bench):
    """Thread counts of a 'threads' benchmark: its t<N>_allocs_per_s metrics."""
    return sorted(int(m[1:].split('_')[0]) for m in bench.metrics
                  if re.fullmatch(r't\d+_allocs_per_s', m))


def _values(runs, kernel, metric):
    return [r['metrics'][metric] for r in runs[kernel]
            if metric in r['metrics'] and not r['problems']]


def _threads_table(bench, runs, ref):
    lines = ['| threads | kernel | allocations/s median (spread) | ratio | '
             'failed allocations (all runs) | busy retries per allocation |',
             '| --- | --- | --- | --- | --- | --- |']
    for t in thread_counts(bench):
        r0 = summarise(_values(runs, ref, f't{t}_allocs_per_s'))
        for k in bench.kernels:
            s = summarise(_values(runs, k.name, f't{t}_allocs_per_s'))
            failed = sum(r['metrics'].get(f't{t}_failed', 0) for r in runs[k.name])
            retries = summarise(_values(runs, k.name, f't{t}_retries'))
            lines.append(f'| {t} | `{k.name}` | ' +
                         (f'{_fmt(s[0])} ({_fmt(s[1])}-{_fmt(s[2])})' if s else '-') +
                         ' | ' + (f'{s[0] / r0[0]:.2f}' if s and r0 and r0[0] else '-') +
                         f' | {failed:.0f} | ' + (f'{retries[0]:.3f}' if retries else '-') +
                         ' |')
    return lines


def _metrics_table(bench, runs, table, ref):
    lines = []
    header = '| kernel | runs | ' + ' | '.join(
        f'{m} median (spread) | ratio' for m in bench.metrics) + ' |'
    lines += [header, '|' + ' --- |' * (2 + 2 * len(bench.metrics))]
    for k in bench.kernels:
        ok_runs = sum(1 for r in runs[k.name] if not r['problems'])
        cells = [f'`{k.name}`', f'{ok_runs}/{len(runs[k.name])}']
        for m in bench.metrics:
            s, r0 = table[(k.name, m)], table[(ref, m)]
            if s is None:
                cells += ['-', '-']
                continue
            cells.append(f'{_fmt(s[0])} ({_fmt(s[1])}-{_fmt(s[2])})')
            cells.append(f'{s[0] / r0[0]:.3f}' if r0 and r0[0] else '-')
        lines.append('| ' + ' | '.join(cells) + ' |')
    return lines


def _workload_source(root, bench):
    for ext in ('.c', '.sh'):
        if os.path.exists(os.path.join(root, 'bench', bench.workload[0] + ext)):
            return 'bench/' + bench.workload[0] + ext
    return 'bench/' + bench.workload[0]


def _report_tail(root, bench, runs, cmdlines, base, series):
    lines = []
    problems = [(k, i + 1, p) for k, rs in runs.items() for i, r in enumerate(rs)
                for p in r['problems']]
    if problems:
        lines += ['', 'Runs left out of the medians:', '']
        lines += [f'- `{k}` run {i}: {p}' for k, i, p in problems]
    lines += ['', '## How it was run', '',
              f'- base: {base.commit_message} (tag `base` of `{base.tree}`)',
              f'- series: {series_description(series)}',
              f'- workload: `{" ".join(bench.workload)}` ({_workload_source(root, bench)})' +
              (f', zram swap {bench.zram}' if bench.zram else ''),
              f'- reproduce: `make bench B={bench.name}`', '']
    for k in bench.kernels:
        v = _kernel_variant(bench, k)
        lines.append(f'- `{k.name}`: tree `{k.tree}`' +
                     (f' + {", ".join(k.patches)}' if k.patches else '') +
                     f', configs/ {" + ".join(v.fragments)} on tinyconfig')
        lines.append(f'  - `{" ".join(cmdlines.get(k.name, []))}`')
    return lines


def _report_data(root, bench, runs, cmdlines, base, series):
    return {'benchmark': bench.name, 'workload': list(bench.workload),
            'zram': bench.zram, 'base': base.commit_message,
            'series': series_description(series),
            'kernels': {k.name: {'tree': k.tree,
                                 'fragments': list(_kernel_variant(bench, k).fragments),
                                 'qemu': cmdlines.get(k.name),
                                 'runs': [{'metrics': r['metrics'],
                                           'problems': r['problems'],
                                           'samples': r['samples'],
                                           'wall_s': r['wall_s']}
                                          for r in runs[k.name]]}
                        for k in bench.kernels}}


def plot(bench, runs, path):
    """Write the benchmark's plot; return None, or why there is none."""
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError:
        return 'python3-matplotlib is not installed (make bench installs it)'
    names = [k.name for k in bench.kernels]
    if bench.plot == 'threads':
        return _plot_threads(plt, bench, runs, names, path)
    metrics = list(bench.metrics)
    memory = bench.plot == 'memory'
    ncols = len(metrics) + (1 if memory else 0)
    fig, axes = plt.subplots(1, ncols, figsize=(3.2 * ncols + 1, 3.8), squeeze=False)
    axes = axes[0]
    colours = plt.rcParams['axes.prop_cycle'].by_key()['color']
    if memory:
        ax = axes[0]
        for i, n in enumerate(names):
            good = [r for r in runs[n] if r['samples'] and not r['problems']]
            if not good:
                continue
            med = sorted(good, key=lambda r: r['metrics'].get(metrics[0], 0))[len(good) // 2]
            t = [s.get('t', 0) for s in med['samples']]
            ax.plot(t, [s.get('MemFree', 0) / 1024 for s in med['samples']],
                    color=colours[i % len(colours)], label=f'{n} free')
            if any(s.get('CmaTotal', 0) for s in med['samples']):
                ax.plot(t, [s.get('CmaFree', 0) / 1024 for s in med['samples']],
                        color=colours[i % len(colours)], linestyle='--',
                        label=f'{n} free CMA')
        ax.set_xlabel('seconds into the workload (median run)')
        ax.set_ylabel('MiB')
        ax.set_title('free memory')
        ax.legend(fontsize=7)
        axes = axes[1:]
    for ax, m in zip(axes, metrics):
        meds, lo, hi = [], [], []
        for n in names:
            vals = [r['metrics'][m] for r in runs[n] if m in r['metrics'] and not r['problems']]
            s = summarise(vals) or (0, 0, 0)
            meds.append(s[0])
            lo.append(s[0] - s[1])
            hi.append(s[2] - s[0])
        ax.bar(range(len(names)), meds, yerr=[lo, hi], capsize=4,
               color=[colours[i % len(colours)] for i in range(len(names))])
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, rotation=20, ha='right', fontsize=8)
        better = 'lower' if m in bench.lower_is_better else 'higher'
        ax.set_title(f'{m} ({better} is better)', fontsize=9)
    fig.suptitle(f'{bench.name}: median of {bench.runs} runs, bars = min-max', fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return None


def _plot_threads(plt, bench, runs, names, path):
    counts = thread_counts(bench)
    fig, axes = plt.subplots(1, 3, figsize=(13, 4))
    colours = plt.rcParams['axes.prop_cycle'].by_key()['color']
    for i, n in enumerate(names):
        for ax, metric, label in ((axes[0], 'allocs_per_s', 'allocations per second'),
                                  (axes[1], 'failed', 'failed allocations per run'),
                                  (axes[2], 'retries', 'busy retries per allocation')):
            xs, med, lo, hi = [], [], [], []
            for t in counts:
                s = summarise(_values(runs, n, f't{t}_{metric}'))
                if s:
                    xs.append(t)
                    med.append(s[0])
                    lo.append(s[0] - s[1])
                    hi.append(s[2] - s[0])
            if xs:
                ax.errorbar(xs, med, yerr=[lo, hi], marker='o', capsize=3, label=n,
                            color=colours[i % len(colours)])
            ax.set_xscale('log', base=2)
            ax.set_xticks(counts)
            ax.set_xticklabels([str(c) for c in counts])
            ax.set_xlabel('threads')
            ax.set_title(label, fontsize=9)
    axes[0].legend(fontsize=8)
    fig.suptitle(f'{bench.name}: median of {bench.runs} runs, bars = min-max', fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return None


def replot(bench, json_path, png_path):
    """Draw @bench's plot again from its results file (no boots)."""
    with open(json_path) as f:
        data = json.load(f)
    runs = {name: [dict(r, samples=r.get('samples', [])) for r in k['runs']]
            for name, k in data['kernels'].items()}
    missing = [k.name for k in bench.kernels if k.name not in runs]
    if missing:
        raise BenchError(f'{json_path} has no runs of {", ".join(missing)}')
    return plot(bench, runs, png_path)
