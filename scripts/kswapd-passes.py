#!/usr/bin/env python3
"""Sum the "kswapd-pass:" lines (harness/faults/kswapd-pass-log-7.3.patch)
of bench console logs, one block per log: how many balance_pgdat() priority
passes, how many ended balanced, the pages they reclaimed, the (node,
highest zone) and orders kswapd was woken for, and the totals of what
shrink_folio_list() saw, freed and kept, and the THPs split.

    scripts/kswapd-passes.py 'build/results/bench-NAME/*-run*.log'
"""
import collections
import glob
import re
import sys

LINE = re.compile(r'kswapd-pass: node (\d+) order (\d+)/(\d+) highest (\d+) '
                  r'reclaim_idx (\d+) priority (-?\d+) balanced (\d) '
                  r'reclaimed (\d+) (.*?) free')
KEYS = ('lru-scanned', 'lru-reclaimed', 'activate', 'keep', 'unevictable',
        'large-refs', 'partial-split', 'split-fail', 'swap-fail', 'no-io',
        'pinned', 'thp-splits')


def summarise(path):
    """One log's passes, as two printable lines."""
    tot = collections.Counter()
    woken = collections.Counter()
    orders = collections.Counter()
    passes = balanced = reclaimed = 0
    with open(path, errors='replace') as f:
        for line in f:
            m = LINE.search(line)
            if not m:
                continue
            passes += 1
            balanced += int(m.group(7))
            reclaimed += int(m.group(8))
            woken[f'node {m.group(1)} zone {m.group(4)}'] += 1
            orders[m.group(2)] += 1
            rest = m.group(9).split()
            for name, value in zip(rest[::2], rest[1::2]):
                tot[name] += int(value)
    head = (f'{path.split("/")[-1]}: {passes} passes, {balanced} balanced, '
            f'{reclaimed} reclaimed; woken for {dict(woken)}, orders {dict(orders)}')
    return head, '    ' + ' '.join(f'{k}={tot[k]}' for k in KEYS)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip())
    paths = sorted(glob.glob(sys.argv[1]))
    if not paths:
        sys.exit(f'no log matches {sys.argv[1]}')
    for path in paths:
        print(*summarise(path), sep='\n')


if __name__ == '__main__':
    main()
