"""make soak [MINUTES=10] and make fault-inject [MINUTES=5]: concurrent
cma_alloc() under movable memory churn on debug kernels (configs/soak.ini,
bench/soak.sh), without and with injected allocation failures, then a
check that nothing was lost.

Per kernel, one case each:
  finished, no splat     the workload ran to its end, exit 0, every figure
  no failed allocation   every cma_stress round printed its result, none
                         failed (soak)
  nothing left held      cma_stress freed all it took (soak)
  faults injected        every round printed its result, and fail_page_alloc
                         and failslab failed some allocations (fault-inject;
                         failed cma_alloc() calls are expected, as errors;
                         what a failed free left held is given back first)
  areas empty            the areas' debugfs `used` is back to its value
                         before the soak
  counters balance       sysfs alloc_pages_success - release_pages_success
                         is back to its value before the soak
  CmaFree back           down by no more than the per-cpu lists grew,
                         within CMA_SLACK_KB
  MemFree back           with the per-cpu lists' change, within MEM_SLACK_KB
The allocation rate of every round, over time, goes to
bench/results/<soak|faults>-rate.png; the figures to
bench/results/<soak|faults>.json and their report to
build/results/bench-<soak|faults>/report.md.

make fault-inject then checks the boot-time population of ZONE_CMA with a
failure (configs/soak.ini [population], bench/population.sh): one kernel
with harness/faults/cma-activation-fails-7.3.patch booted with every area
activated and with one refused. The refused boot must say so, drop the
area from debugfs (as 7.3 does with an area it did not activate), lose no
memory (MemTotal), lose exactly the area from CmaTotal, and leave the area
whole: all its pageblocks MIGRATE_MOVABLE in ZONE_CMA, never half CMA.
Both boots run every cma kselftest. Figures to
bench/results/population.json, the report to
build/results/bench-population/report.md.
"""
import dataclasses
import os
import re

from . import bench, console, ktap, paths, printer, results

INI = os.path.join(paths.CONFIGS, 'soak.ini')
SOAK, FAULTS, POPULATION = 'soak', 'faults', 'population'
# Free pages that sit on per-cpu lists are not counted as free (MemFree,
# CmaFree), and the guest cannot drain them from user space: at 1 GiB
# they hold tens of MiB after the soak (measured: MemFree -44,316 KiB,
# per-cpu lists +44,056 KiB). So MemFree is judged together with the
# lists' change, and CmaFree may fall by no more than the lists grew
# (CMA pages on them cannot be told apart without ZONE_CMA). What is left
# is slab caches and page tables moving a little between the readings.
CMA_SLACK_KB = 4096
MEM_SLACK_KB = 8192
# The BENCH figures bench/soak.sh prints at its end (and `injected` with faults).
METRICS = ('failed', 'rounds', 'noresult', 'allocs_per_s', 'leftover_pages', 'used_pages',
           'unbalanced_pages', 'cmafree_drift_kb', 'memfree_drift_kb', 'pcp_drift_kb')
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

    # The judgement of every boot, from its log (what only QEMU's status
    # shows, main() takes from make bench's count: beyond_logs()).
    trouble = console.judge(text, mode='bench').problems
    missing = [k for k in METRICS + (('injected',) if faults else ()) if k not in m]
    if missing and not trouble:
        trouble.append(f'no figure {", ".join(missing)}')
    out = [case('finished, no splat', not trouble, '; '.join(trouble))]
    if trouble:
        return out
    n, rate = m['rounds'], m['allocs_per_s']
    ran = n >= 1 and rate > 0 and m['noresult'] == 0
    ran_why = (f'{n:.0f} rounds, {m["noresult"]:.0f} without a result, '
               f'{rate:g} allocations/s')
    if faults:
        out.append(case('faults injected, every round ran', ran and m['injected'] > 0,
                        f'{m["injected"]:.0f} failures injected; ' + ran_why))
    else:
        out.append(case('no failed allocation, every round ran', ran and m['failed'] == 0,
                        f'{m["failed"]:.0f} failed; ' + ran_why))
        out.append(case('nothing left held', m['leftover_pages'] == 0,
                        f'{m["leftover_pages"]:.0f} pages still allocated through '
                        f'debugfs after the last round'))
    out.append(case('areas empty', m['used_pages'] == 0,
                    f'debugfs used moved by {m["used_pages"]:.0f} pages'))
    out.append(case('counters balance', m['unbalanced_pages'] == 0,
                    f'alloc_pages_success - release_pages_success moved by '
                    f'{m["unbalanced_pages"]:.0f} pages'))
    parked = max(m['pcp_drift_kb'], 0)
    cma = m['cmafree_drift_kb']
    out.append(case('CmaFree back', -(parked + CMA_SLACK_KB) <= cma <= CMA_SLACK_KB,
                    f'moved {cma:.0f} KiB, while the per-cpu lists grew by {parked:.0f} '
                    f'KiB (slack {CMA_SLACK_KB})'))
    mem = m['memfree_drift_kb'] + m['pcp_drift_kb']
    out.append(case('MemFree back', abs(mem) <= MEM_SLACK_KB,
                    f'MemFree and the per-cpu lists together moved {mem:.0f} KiB '
                    f'(slack {MEM_SLACK_KB})'))
    return out


_AREA = re.compile(r'^AREA (\S+) count=(\d+) used=(\d+)', re.M)
_KSFT = re.compile(r'^KSFT (\S+) (pass|fail|skip) rc=(\d+)', re.M)
_REFUSED = 'CMA area {} could not be activated'
# The area configs/soak.ini's [population:refused] boot fails.
REFUSED_AREA = 'numa1'
# The BENCH figures bench/population.sh prints.
POPULATION_FIGURES = ('memtotal_kb', 'cmatotal_kb', 'page_kb', 'pageblock_pages',
                      'zone_cma_cma_blocks', 'zone_cma_movable_blocks',
                      'cma_blocks_elsewhere', 'zone_cma_movable_free_kb')


def areas(text):
    """{area: pages} of one population boot (bench/population.sh)."""
    return {a: int(n) for a, n, _ in _AREA.findall(text)}


def judge_population(logs, refused=REFUSED_AREA):
    """The cases of make fault-inject's population check: @logs, the console
    logs of the boot where every area activated and of the boot where
    @refused failed to, of one kernel ({'activated': text, 'refused': text})."""
    cases, fig = [], {}
    for k in ('activated', 'refused'):
        text = logs.get(k, '')
        fig[k] = console.bench_figures(text)
        m = fig[k]['metrics']
        trouble = console.judge(text, mode='bench').problems
        failed = [f'{n} rc {rc}' for n, st, rc in _KSFT.findall(text) if st == 'fail']
        ran = len(_KSFT.findall(text))
        missing = [f for f in POPULATION_FIGURES if f not in m]
        why = trouble + ([f'kselftests failed: {", ".join(failed)}'] if failed else []) + \
            ([] if ran else ['no kselftest ran']) + \
            ([f'no figure {", ".join(missing)}'] if missing and not trouble else [])
        cases.append(ktap.Case(f'population {k}: finished, kselftests pass, no splat',
                               ktap.FAIL if why else ktap.PASS, '; '.join(why)))
    if any(c.status != ktap.PASS for c in cases):
        return cases
    a, r = fig['activated']['metrics'], fig['refused']['metrics']
    before, after = areas(logs['activated']), areas(logs['refused'])
    pages = before.get(refused, 0)
    per_block = a['pageblock_pages']

    def case(name, ok, why):
        cases.append(ktap.Case(f'population refused: {name}', ktap.PASS if ok else ktap.FAIL,
                               '' if ok else why))

    case('the boot log says so', _REFUSED.format(refused) in logs['refused'],
         f'no line "{_REFUSED.format(refused)}"')
    case('the area is gone from debugfs', pages > 0 and refused not in after,
         f'{refused}: {pages} pages when activated; '
         + (f'listed with {after[refused]} when refused' if refused in after
            else 'gone when refused'))
    case('MemTotal unchanged', r['memtotal_kb'] == a['memtotal_kb'],
         f'MemTotal {r["memtotal_kb"]:.0f} KiB, {a["memtotal_kb"]:.0f} KiB when activated')
    lost = a['cmatotal_kb'] - r['cmatotal_kb']
    case('CmaTotal down by the area', lost == pages * a['page_kb'],
         f'CmaTotal down by {lost:.0f} KiB, the area has {pages * a["page_kb"]:.0f} KiB')
    moved = r['zone_cma_movable_blocks']
    case('its pageblocks movable in ZONE_CMA, the rest CMA',
         a['zone_cma_movable_blocks'] == 0 and moved * per_block == pages and
         r['zone_cma_cma_blocks'] + moved == a['zone_cma_cma_blocks'],
         f'ZONE_CMA pageblocks CMA/movable: {a["zone_cma_cma_blocks"]:.0f}/'
         f'{a["zone_cma_movable_blocks"]:.0f} activated, {r["zone_cma_cma_blocks"]:.0f}/'
         f'{moved:.0f} refused; the area has {pages / per_block:g} pageblocks')
    case('no CMA pageblock outside ZONE_CMA',
         a['cma_blocks_elsewhere'] == 0 and r['cma_blocks_elsewhere'] == 0,
         f'{a["cma_blocks_elsewhere"]:.0f} activated, {r["cma_blocks_elsewhere"]:.0f} refused')
    return cases


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
    printer.step(f'{name}: {minutes:g} min per kernel '
                 f'({", ".join(k.name for k in spec.kernels)})')
    text, bad, logs = bench.run_logs(
        spec, btable, f'make {"fault-inject" if name == FAULTS else "soak"} MINUTES={minutes:g}')
    print(text)
    cases = []
    for k, log in logs.items():
        cases += judge(k, log, faults=name == FAULTS)
    err = plot({k: rounds(log) for k, log in logs.items()},
               os.path.join(paths.BENCH_RESULTS, name + '-rate.png'))
    if err:
        printer.step(f'{name}: no plot: {err}')
    summaries = [results.Summary(name, cases, beyond_logs(bad, logs))]
    if name == FAULTS:
        summaries.append(population(btable))
    return summaries


def population(btable):
    """make fault-inject's boot-time part: configs/soak.ini [population]."""
    spec = bench.load(INI, None, btable)[POPULATION]
    printer.step(f'{POPULATION}: one kernel booted with every area and with '
                 f'{REFUSED_AREA} refused')
    text, bad, logs = bench.run_logs(spec, btable, 'make fault-inject ONLY=population')
    print(text)
    return results.Summary(POPULATION, judge_population(logs), beyond_logs(bad, logs))


def beyond_logs(bad, logs):
    """The boots make bench judged failed (@bad of them) that their console
    @logs ({kernel: text}) do not show failed: killed at the wall-clock
    limit, or QEMU exited non-zero, after the workload had finished: one
    problem that counts them, so that a boot fails here as it did there."""
    shown = sum(1 for text in logs.values() if console.judge(text, mode='bench').problems)
    if bad <= shown:
        return []
    return [f'{bad - shown} boots failed outside what their console shows (killed at '
            f'the wall-clock limit, or QEMU exited non-zero): see the table above']
