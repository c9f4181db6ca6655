#!/usr/bin/env python3
"""The allocation failure reports ("page allocation failure") of bench
console logs, one line per report: the task, the GFP flags, the caller
the call trace names first after the allocator, and per zone the report
lists: free pages on the buddy lists, on the per-cpu lists, and the min
watermark with the boost it includes. What it answers: did the failing
allocation meet a zone that was short of free pages, or one whose free
pages sat on per-cpu lists that its watermark check does not count?

    scripts/alloc-failure-reports.py 'build/results/bench-NAME/*-run*.log'
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
END = re.compile(r'Total swap|pages RAM')


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
            z = ZONE.search(line)
            if z:
                name, free, boost, wmin, _low, pcp = z.groups()
                cur['zones'].append(f'{name} free {int(free):,} kB, per-cpu {int(pcp):,} kB, '
                                    f'min {int(wmin):,} kB (boost {int(boost):,})')
            if END.search(line):
                out.append(f'  {cur["task"]} order {cur["order"]} ({cur["gfp"]}) from '
                           f'{cur["caller"] or "?"}: ' + '; '.join(cur['zones']))
                cur = None
    return out


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    paths = sorted(glob.glob(argv[1]))
    if not paths:
        print(f'{argv[1]}: no such logs', file=sys.stderr)
        return 2
    total = 0
    for p in paths:
        lines = reports(p)
        total += len(lines)
        if lines:
            print(os.path.basename(p))
            print('\n'.join(lines))
    print(f'{total} report(s) in {len(paths)} log(s)')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
