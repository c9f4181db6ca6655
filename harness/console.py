"""A guest's console: which lines are the kernel's, what the guest printed
between the harness's markers (KTAP, benchmark figures), the judgement
of one boot, the same for every command that boots a kernel (judge()),
and the results of a test boot (summarise()).

Kernel lines start with a printk timestamp; they count as kernel lines
even between markers (a panic reaches the console while printk is quiet).
"""
import dataclasses
import re

from . import results, splat

KTAP_BEGIN = '===HARNESS-KTAP-BEGIN==='
KTAP_END = '===HARNESS-KTAP-END'
BENCH_BEGIN = '===HARNESS-BENCH-BEGIN==='
BENCH_END = '===HARNESS-BENCH-END==='
_KERNEL_LINE = re.compile(r'^\[\s*\d+\.\d+\]')


def is_kernel_line(line):
    return _KERNEL_LINE.match(line) is not None


def split(text, begin, end):
    """(guest lines between @begin and @end, kernel lines, started, finished)
    of a console log. Kernel lines are everything else: the boot log, the
    dmesg dump, and the strays between the markers."""
    inside, kernel = [], []
    within = started = finished = False
    for line in text.splitlines():
        if line.startswith(begin):
            within = started = True
            continue
        if line.startswith(end):
            within, finished = False, True
            continue
        if within and not is_kernel_line(line):
            inside.append(line)
        else:
            kernel.append(line)
    return inside, kernel, started, finished


KMEMLEAK_SCANNED = 'HARNESS: kmemleak scanned'
# What the guest runs between its markers, by its harness.mode
# (harness/guest/init): the markers, what it starts, what finishes.
SECTIONS = {'run': (KTAP_BEGIN, KTAP_END, 'the tests', 'the test run'),
            'bench': (BENCH_BEGIN, BENCH_END, 'the workload', 'the workload')}


@dataclasses.dataclass(frozen=True)
class Judgement:
    """What a boot's console says of the boot itself, whatever it ran."""
    problem: object     # why it failed as a boot (str), or None
    splats: tuple       # (kind, first line) of each kernel splat

    @property
    def problems(self):
        """Every reason the boot fails: its problem, then its splats."""
        return ([self.problem] if self.problem else []) + \
            [f'kernel splat: {line}' for _, line in self.splats]


def judge(text, rc=0, wall_limit=None, mode='run', kmemleak=False, log=None):
    """The Judgement of one boot from its console @text: the one judgement
    of make run and make test, make bench (and soak, fault-inject,
    mm-selftests) and the boot rows of make bad-input and make layouts.

    @rc: QEMU's exit status, None when it was killed at the @wall_limit s
    limit (0 for a log read again, whose status is not kept). @mode: the
    guest's harness.mode, 'run' (kselftests, KTAP) or 'bench' (a workload).
    @kmemleak: the kernel has kmemleak, so a 'run' guest must have scanned
    after the tests (harness/guest/init); a run without that scan proves
    nothing about leaks. @log: the console log's name, for the reader.

    The boot fails, for the first of these that holds: killed at the
    wall-clock limit (hang?); never started what it runs (no begin
    marker); did not finish it (no end marker: crashed or rebooted); QEMU
    exited non-zero; no kmemleak scan ('run'), or the workload exited
    non-zero ('bench'). And for every kernel splat among the kernel lines
    (harness/splat.py: BUG, WARNING, KASAN, a failed kernel allocation, an
    OOM kill, ...), whatever the tests or the workload said."""
    begin, end, what, run = SECTIONS[mode]
    inside, kernel_lines, started, finished = split(text, begin, end)
    problem = None
    if rc is None:
        problem = f'boot killed by the {wall_limit} s wall-clock limit (hang?)'
    elif not started:
        problem = f'the guest never started {what} (see {log or "the console log"})'
    elif not finished:
        problem = f'{run} did not finish (guest crashed or rebooted)'
    elif rc:
        problem = f'QEMU exited with {rc}'
    elif mode == 'run' and kmemleak and KMEMLEAK_SCANNED not in text:
        problem = 'kmemleak did not scan after the tests (is it enabled?)'
    elif mode == 'bench':
        status = _exit_status(inside)
        if status:
            problem = f'the workload exited {status:.0f}'
    return Judgement(problem, tuple(splat.find(kernel_lines)))


def _exit_status(inside):
    """The workload's exit status that harness/guest/bench printed (the
    last, as bench_figures() reads it), 0 when none."""
    status = 0
    for line in inside:
        m = _BENCH.match(line.rstrip('\r'))
        if m and m.group(1) == 'exit_status':
            try:
                status = float(m.group(2))
            except ValueError:
                pass
    return status


def summarise(variant_name, text, judgement, expected):
    """(Summary, ktap text) of one test boot: the KTAP results of its
    console @text against the @expected tests, and @judgement's problems."""
    ktap_text = '\n'.join(split(text, KTAP_BEGIN, KTAP_END)[0]) + '\n'
    return results.summarise(variant_name, ktap_text, expected, judgement.splats,
                             judgement.problem), ktap_text


def analyse(variant_name, console_text, expected, rc, wall_limit, kmemleak=False):
    """(Summary, ktap text) of one test boot from its console text: judge()
    and summarise() (harness analyse reads a log again with this)."""
    return summarise(variant_name, console_text,
                     judge(console_text, rc, wall_limit, kmemleak=kmemleak,
                           log='console.log'), expected)


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
    'pgscan_direct': ('pgscan_direct',),
    # LRU folios reclaim passed over because their zone is above the
    # request's highest zone; pgscan counts them too.
    'pgskip': ('pgskip_dma', 'pgskip_dma32', 'pgskip_normal',
               'pgskip_highmem', 'pgskip_movable', 'pgskip_device',
               'pgskip_cma'),
    'pgsteal': ('pgsteal_kswapd', 'pgsteal_direct', 'pgsteal_khugepaged'),
    'pgsteal_kswapd': ('pgsteal_kswapd',),
    # Active folios reclaim scanned to deactivate them.
    'pgrefill': ('pgrefill',),
    'compact_stall': ('compact_stall',),
    'compact_success': ('compact_success',),
    'compact_scanned': ('compact_migrate_scanned', 'compact_free_scanned'),
    'kcompactd_wake': ('compact_daemon_wake',),
    'kcompactd_scanned': ('compact_daemon_migrate_scanned',
                          'compact_daemon_free_scanned'),
    # kcompactd's runs in ZONE_CMA, told apart by
    # harness/faults/zone-cma-kcompactd-count-7.3.patch: at an order some
    # waker able to use ZONE_CMA asked for, or only for other wakers.
    'kcompactd_cma_asked': ('compact_daemon_cma_asked',),
    'kcompactd_cma_unasked': ('compact_daemon_cma_unasked',),
    'kcompactd_cma_unasked_scanned': ('compact_daemon_cma_unasked_scanned',),
    # Why a ZONE_CMA user's order went unserved (the same patch): records
    # raised, and runs that reached ZONE_CMA with a record but found
    # compaction deferred or the zone unsuitable, or stopped below it.
    'kcompactd_cma_recorded': ('compact_daemon_cma_recorded',),
    'kcompactd_cma_deferred': ('compact_daemon_cma_deferred',),
    'kcompactd_cma_unsuitable': ('compact_daemon_cma_unsuitable',),
    'kcompactd_cma_unreached': ('compact_daemon_cma_unreached',),
    'kswapd_wake': ('pageoutrun',),
    'pgpgin': ('pgpgin',),
    'pgmigrate': ('pgmigrate_success',),
    'thp_fault_alloc': ('thp_fault_alloc',),
    'thp_fault_fallback': ('thp_fault_fallback',),
    # THPs split, the deferred-split shrinker's among them.
    'thp_split': ('thp_split_page',),
    # Pages read back soon after reclaim dropped them (workingset shadows).
    'refault_file': ('workingset_refault_file',),
    'refault_anon': ('workingset_refault_anon',),
    # Page faults that waited for a read: file pages and swap-ins.
    'pgmajfault': ('pgmajfault',),
    # Anonymous folios reclaim scanned and freed (swapped out).
    'pgscan_anon': ('pgscan_anon',),
    'pgsteal_anon': ('pgsteal_anon',),
    # Direct reclaims of kernel requests: gfp_zone() of GFP_KERNEL is
    # ZONE_NORMAL, populated or not, so a 1 GiB x86_64 guest counts its
    # DMA32-only kernel reclaims here too.
    'allocstall_normal': ('allocstall_normal',),
}


def bench_figures(text):
    """Figures of one boot: {'metrics': {...}, 'samples': [...], 'vmstat': {...}}.
    Whether the boot counts is judge()'s to say, not this parser's."""
    metrics, samples, vm = {}, [], {}
    m = _BOOT.search(text)
    if m:
        metrics['boot_s'] = float(m.group(1))
    inside, _, _, finished = split(text, BENCH_BEGIN, BENCH_END)
    if finished:
        metrics['_finished'] = 1
    for line in inside:
        line = line.rstrip('\r')
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
    return {'metrics': metrics, 'samples': samples, 'vmstat': vm}
