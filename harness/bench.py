"""make bench: the pristine base and the series side by side, in one run.

A benchmark (bench/benchmarks.ini) names a guest (arch, fragments, memory,
CPUs, command line), a workload (a static C program in bench/ and its
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
                   'allocstall_device'),
    'pgscan': ('pgscan_kswapd', 'pgscan_direct', 'pgscan_khugepaged'),
    'pgsteal': ('pgsteal_kswapd', 'pgsteal_direct', 'pgsteal_khugepaged'),
}


class BenchError(Exception):
    pass


@dataclasses.dataclass(frozen=True)
class Kernel:
    name: str
    tree: str               # 'base' (pristine) or 'series'
    fragments: tuple        # on top of the benchmark's
    cmdline: str            # on top of the benchmark's


@dataclasses.dataclass(frozen=True)
class Benchmark:
    name: str
    summary: str
    guest: variants.Variant     # arch, fragments, memory, cpus, cmdline
    workload: tuple             # program and arguments
    zram: str                   # zram swap size, '' for none
    runs: int
    metrics: tuple              # figures shown, in order
    lower_is_better: tuple      # metrics where a smaller value is better
    plot: str                   # 'bars' or 'memory'
    kernels: tuple              # Kernel, the first is the reference
    notes: str


def load(path, runs_override=None):
    cp = configparser.ConfigParser(interpolation=None)
    with open(path) as f:
        cp.read_file(f)
    out = {}
    for sec in cp.sections():
        if ':' in sec:
            continue
        s = cp[sec]
        try:
            guest = variants._parse_section(sec, s)
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
                                  k.get('cmdline', '')))
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
            notes=s.get('notes', '').strip())
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
    for name, fields in VMSTAT_SUMS.items():
        if inside is False and '_finished' in metrics:
            metrics[name] = sum(vm.get(f, 0) for f in fields)
    return {'metrics': metrics, 'samples': samples, 'vmstat': vm,
            'splats': splat.find(kernel_lines)}


def summarise(values):
    """(median, min, max) of @values, or None when empty."""
    if not values:
        return None
    return statistics.median(values), min(values), max(values)


def base_tree(root):
    """build/linux-base: a worktree of build/linux at tag base (pristine)."""
    series = os.path.join(root, 'build', 'linux')
    path = os.path.join(root, 'build', 'linux-base')
    if not os.path.isdir(path):
        subprocess.check_call(['git', '-C', series, 'worktree', 'add', '-q',
                               '--detach', path, 'base'])
    else:
        subprocess.check_call(['git', '-C', path, 'checkout', '-q', '--detach', 'base'])
    return path


def _kernel_variant(bench, kernel):
    g = bench.guest
    return dataclasses.replace(
        g, name=f'{bench.name}-{kernel.name}',
        fragments=g.fragments + kernel.fragments,
        cmdline=' '.join(x for x in (g.cmdline, kernel.cmdline) if x))


def _build_key(v, tree_name):
    h = hashlib.sha1(repr((tree_name, v.arch.name, v.fragments)).encode()).hexdigest()
    return f'bench-{tree_name}-{v.arch.name}-{h[:8]}'


def _workload_binaries(root, arch, out_dir):
    """Compile bench/*.c statically for @arch; [(host path, guest path)]."""
    os.makedirs(out_dir, exist_ok=True)
    files = []
    for src in sorted(os.listdir(os.path.join(root, 'bench'))):
        if not src.endswith('.c'):
            continue
        exe = os.path.join(out_dir, src[:-2])
        cc = (arch.cross_compile or '') + 'gcc'
        subprocess.check_call([cc, '-O2', '-Wall', '-static', '-o', exe,
                               os.path.join(root, 'bench', src)])
        files.append((exe, '/bench/' + src[:-2]))
    return files


def series_description(root):
    tree = os.path.join(root, 'build', 'linux')
    def git(*a):
        return subprocess.run(['git', '-C', tree, *a], capture_output=True,
                              text=True).stdout.strip()
    n = git('rev-list', '--count', 'base..HEAD')
    return f'{git("rev-parse", "--short", "HEAD")} ({n} patches: {git("log", "-1", "--format=%s")})'
