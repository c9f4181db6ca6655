"""make soak [MINUTES=10] and make fault-inject [MINUTES=5]: concurrent
cma_alloc() under movable memory churn on debug kernels (configs/soak.ini,
bench/soak.sh), without and with injected allocation failures, then a
check that nothing was lost.

Per kernel, one case each:
  no failed allocation   every cma_stress round ran and none failed (soak)
  faults injected        every round ran, and fail_page_alloc and failslab
                         failed some allocations (fault-inject; failed
                         cma_alloc() calls are expected, as errors)
  areas empty            the areas' debugfs `used` is 0 afterwards
  counters balance       sysfs alloc_pages_success - release_pages_success
                         is back to its value before the soak
  CmaFree back           within CMA_SLACK_KB of its value before
  MemFree back           within MEM_SLACK_KB of its value before
  no splat               and the guest finished in time
The allocation rate of every round, over time, goes to
bench/results/<soak|faults>-rate.png; the figures to <soak|faults>.md.
"""
import dataclasses
import os
import re

from . import bases, bench, console, ktap, paths, pipeline, printer, results

INI = os.path.join(paths.CONFIGS, 'soak.ini')
SOAK, FAULTS = 'soak', 'faults'
# Free pages that sit on per-cpu lists are not counted as free (MemFree,
# CmaFree), and the guest cannot drain them from user space: two CPUs'
# lists of every zone hold up to a few MiB. Slab caches and page tables
# also move a little between the two readings.
CMA_SLACK_KB = 4096
MEM_SLACK_KB = 8192
_ROUND = re.compile(r'^SOAK t=(\d+) allocs_per_s=([0-9.]+) failed=(\d+)', re.M)


def spec_for(name, minutes, btable):
    """Section @name of configs/soak.ini, @minutes long per kernel."""
    spec = bench.load(INI, None, btable)[name]
    seconds = int(minutes * 60)
    workload = (spec.workload[0], str(seconds)) + spec.workload[2:]
    guest = dataclasses.replace(spec.guest,
                                boot_timeout=max(spec.guest.boot_timeout, 2 * seconds + 900))
    return dataclasses.replace(spec, workload=workload, guest=guest)


def rounds(text):
    """[(t seconds, allocations per second, failed)] of one console log."""
    return [(int(t), float(r), int(f)) for t, r, f in _ROUND.findall(text)]


def judge(kernel, text, faults=False):
    """The cases of one kernel's soak from its console log; @faults: a
    fault-injection run, where failed allocations are expected."""
    fig = console.bench_figures(text)
    m = fig['metrics']

    def case(name, ok, why):
        return ktap.Case(f'{kernel}: {name}', ktap.PASS if ok else ktap.FAIL,
                         '' if ok else why)

    def value(key):
        return m.get(key)

    finished = '_finished' in m
    out = [case('finished, no splat', finished and not fig['splats'],
                '; '.join(['the soak did not finish'] * (not finished) +
                          [line for _, line in fig['splats']]))]
    if not finished:
        return out
    n = value('rounds') or 0
    if faults:
        out.append(case('faults injected', n >= 1 and (value('injected') or 0) > 0,
                        f'{value("injected")} failures injected in {n:.0f} rounds'))
    else:
        out.append(case('no failed allocation', n >= 1 and value('failed') == 0,
                        f'{value("failed"):.0f} failed in {n:.0f} rounds' if n
                        else 'no cma_stress round ran'))
    out.append(case('areas empty', value('used_pages') == 0,
                    f'{value("used_pages")} pages still used'))
    out.append(case('counters balance', value('unbalanced_pages') == 0,
                    f'alloc_pages_success - release_pages_success moved by '
                    f'{value("unbalanced_pages")} pages'))
    out.append(case('CmaFree back', abs(value('cmafree_drift_kb')) <= CMA_SLACK_KB,
                    f'moved {value("cmafree_drift_kb"):.0f} KiB (slack {CMA_SLACK_KB})'))
    out.append(case('MemFree back', abs(value('memfree_drift_kb')) <= MEM_SLACK_KB,
                    f'moved {value("memfree_drift_kb"):.0f} KiB (slack {MEM_SLACK_KB})'))
    return out


def plot(per_kernel, path):
    """Allocations per second of every round over time, one line per kernel."""
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError as e:
        return f'matplotlib: {e}'
    fig, ax = plt.subplots(figsize=(8, 4))
    for name, rs in per_kernel.items():
        ax.plot([t / 60 for t, _, _ in rs], [r for _, r, _ in rs], marker='.', label=name)
    ax.set_xlabel('minutes into the soak')
    ax.set_ylabel('cma_alloc() per second')
    ax.set_ylim(bottom=0)
    ax.set_title('Soak: allocation rate per 30 s round')
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    return None


def main(btable, minutes, name=SOAK):
    spec = spec_for(name, minutes, btable)
    base = bases.lookup(btable, spec.guest.base)
    pipeline.ensure_tree(base)
    printer.step(f'{name}: {minutes:g} min per kernel ({", ".join(k.name for k in spec.kernels)})')
    text, _ = bench.run(paths.ROOT, spec, paths.BENCH_RESULTS, base, pipeline.tree_of(base))
    print(text)
    logdir = os.path.join(paths.RESULTS, 'bench-' + name)
    cases, per_kernel = [], {}
    for k in spec.kernels:
        with open(os.path.join(logdir, f'{k.name}-run1.log'), errors='replace') as f:
            log = f.read()
        per_kernel[k.name] = rounds(log)
        cases += judge(k.name, log, faults=name == FAULTS)
    err = plot(per_kernel, os.path.join(paths.BENCH_RESULTS, name + '-rate.png'))
    if err:
        printer.step(f'{name}: no plot: {err}')
    return results.Summary(name, cases, [])
