#!/usr/bin/env python3
"""The allocation failure reports ("page allocation failure") of bench
console logs, one line per report: the task, the GFP flags, the caller
the call trace names first after the allocator, and per zone the report
lists: free pages on the buddy lists, on the per-cpu lists, and the min
watermark with the boost it includes; then, over every report, how
many have DMA32's buddy lists under half its min (the floor of a
__GFP_HIGH allocation), in how many of those the per-cpu lists would
make up the difference, and how many include a boost. What it answers:
did the failing allocation meet a zone that was short of free pages, or
one whose free pages sat on per-cpu lists that its watermark check does
not count? And, from the report's node-wide line (in pages, every zone of
the node, those the request may not use among them), how much of the
machine was free at all: buddy and per-cpu free pages as a share of RAM,
and the CMA pages among the buddy ones. A report with a per cent or two
of RAM free is one of memory nearly all in use, whatever zone the free
pages sit in.

    scripts/alloc-failure-reports.py 'build/results/bench-NAME/*-run*.log' [GLOB...]
"""
import glob
import os
import re
import sys

FAILURE = re.compile(r'\] (\S+): page allocation failure: order:(\d+), mode:0x[0-9a-f]+\(([^)]*)\)')
# The first caller in the call trace outside the page and slab allocators
# and outside the stale frames an interrupt or printk leaves ("?" frames).
ALLOCATOR = re.compile(r'dump_stack|warn_alloc|alloc_pages|alloc_frozen|slab|kmem_cache|'
                       r'_raw_spin|complete_with|page_vma|folio_referenced|schedule|'
                       r'prb_|printk|console|asm_|sysvec|irq|timer|hrtimer')
CALLER = re.compile(r'\]\s+\? (\w+)\+0x')
ZONE = re.compile(r'\] (?:Node \d+ )?(\w+) free:(\d+)kB boost:(\d+)kB min:(\d+)kB '
                  r'low:(\d+)kB .*? free_pcp:(\d+)kB')
# show_free_areas()'s node-wide line, in pages.
NODE_FREE = re.compile(r'\]\s+free:(\d+) free_pcp:(\d+) free_cma:(\d+)')
# show_mem()'s RAM line, the last of a report that this script reads.
RAM = re.compile(r'\] (\d+) pages RAM')


def reports(path):
    """The failure reports of one log, as printable lines."""
    out, cur, trace = [], None, False
    with open(path, errors='replace') as f:
        for line in f:
            m = FAILURE.search(line)
            if m:
                cur = {'task': m.group(1), 'order': m.group(2), 'gfp': m.group(3),
                       'caller': None, 'zones': []}
                trace = False
                continue
            if cur is None:
                continue
            if 'Call Trace' in line:
                trace = True
            elif trace and cur['caller'] is None:
                c = CALLER.search(line)
                if c and not ALLOCATOR.search(c.group(1)):
                    cur['caller'] = c.group(1)
            n = NODE_FREE.search(line)
            if n:
                cur['free'] = tuple(int(x) for x in n.groups())
            z = ZONE.search(line)
            if z:
                name, free, boost, wmin, _low, pcp = z.groups()
                free, boost, wmin, pcp = int(free), int(boost), int(wmin), int(pcp)
                cur['zones'].append(f'{name} free {free:,} kB, per-cpu {pcp:,} kB, '
                                    f'min {wmin:,} kB (boost {boost:,})')
                if name == 'DMA32':
                    cur['dma32'] = (free, pcp, wmin, boost)
            r = RAM.search(line)
            if r:
                node = free_share(cur.get('free'), int(r.group(1)))
                out.append((f'  {cur["task"]} order {cur["order"]} ({cur["gfp"]}) from '
                            f'{cur["caller"] or "?"}: ' + '; '.join(cur['zones'] + list(node[:1])),
                            cur.get('dma32'), node[1:]))
                cur = None
    return out


def free_share(free, ram):
    """(text, share of RAM free, share of buddy free that is CMA) of a report's
    node-wide (free, free_pcp, free_cma) pages; () without that line."""
    if not free or not ram:
        return ()
    buddy, pcp, cma = free
    share = (buddy + pcp) / ram
    # free_cma and free are folded from per-cpu deltas at different moments
    # and can disagree (free_cma above free by up to 20 pages in 4 of the
    # 18 atomic reports of 2026-12-05): a share above 1 is shown as all.
    cma_share = min(cma / buddy, 1.0) if buddy else 0.0
    return (f'all zones free {buddy:,} + per-cpu {pcp:,} of {ram:,} pages '
            f'({share:.1%} of RAM), CMA {cma:,} ({cma_share:.0%} of the buddy free)',
            share, cma_share)


def free_summary(shares):
    """One line over the (share of RAM free, CMA share) of each report."""
    if not shares:
        return 'free memory: no report has the node-wide line'
    ram = [s[0] for s in shares]
    cma = [s[1] for s in shares]
    return (f'free memory in {len(shares)} report(s): buddy and per-cpu together '
            f'{min(ram):.1%}-{max(ram):.1%} of RAM; CMA pages '
            f'{min(cma):.0%}-{max(cma):.0%} of the buddy free')


def dma32_summary(dma32):
    """One line over the (free, per-cpu, min, boost) kB of DMA32 in each report."""
    under = [d for d in dma32 if d[0] < d[2] / 2]
    covered = [d for d in under if d[0] + d[1] >= d[2] / 2]
    above = [d[0] / (d[2] / 2) - 1 for d in dma32 if d[0] >= d[2] / 2]
    pcp = [d[1] for d in dma32]
    return (f'DMA32 in {len(dma32)} report(s): buddy under half its min in {len(under)}, '
            f'per-cpu lists would cover the gap in {len(covered)} of those; '
            f'the rest up to {max(above, default=0):.0%} above it; '
            f'a boost in {sum(1 for d in dma32 if d[3])}; '
            f'per-cpu {min(pcp, default=0):,}-{max(pcp, default=0):,} kB')


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    paths = []
    for pattern in argv[1:]:
        found = sorted(glob.glob(pattern))
        if not found:
            print(f'{pattern}: no such logs', file=sys.stderr)
            return 2
        paths += found
    total, dma32, shares = 0, [], []
    for p in paths:
        found = reports(p)
        total += len(found)
        if found:
            print(os.path.basename(p))
            print('\n'.join(line for line, _, _ in found))
        dma32 += [d for _, d, _ in found if d]
        shares += [s for _, _, s in found if s]
    print(f'{total} report(s) in {len(paths)} log(s)')
    print(dma32_summary(dma32))
    print(free_summary(shares))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
