#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Fold insn-profile.so output into kernel functions and compare kernels.

Each kernel is profiled twice with the same workload, for a short and a long
time (for example `faults 64 2` and `faults 64 4`). The difference of the two
profiles is the steady state of the workload: boot and set-up cancel out. It
is divided by the difference of the work done (the `BENCH faults=` lines of
the two console logs), which gives guest instructions per unit of work, per
kernel function. `compare` prints the functions whose cost per unit differs
most between the first kernel and each other one.

    insn-profile.py compare --unit faults \\
        base:MAP:SHORT:LONG series:MAP:SHORT:LONG

SHORT and LONG are path stems: STEM.prof from the plugin, STEM.log the
guest's console.
"""
import argparse
import bisect
import re
import sys


def read_symbols(path):
    """Sorted text symbol addresses and names of a System.map."""
    addrs, names = [], []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and parts[1] in 'tTwW':
                addrs.append(int(parts[0], 16))
                names.append(parts[2])
    order = sorted(range(len(addrs)), key=addrs.__getitem__)
    return [addrs[i] for i in order], [names[i] for i in order]


def fold(prof, symbols):
    """Instructions per function (and 'user') of one profile file."""
    addrs, names = symbols
    per_function = {}
    with open(prof) as f:
        for line in f:
            parts = line.split()
            if parts[0] == 'user':
                per_function['[user]'] = int(parts[1])
                continue
            vaddr, n_insns, executions = (int(parts[0], 16), int(parts[1]),
                                          int(parts[2]))
            i = bisect.bisect_right(addrs, vaddr) - 1
            name = names[i] if i >= 0 else '[unknown]'
            per_function[name] = per_function.get(name, 0) + \
                n_insns * executions
    return per_function


def work_done(log, unit):
    pattern = re.compile(r'BENCH %s=(\d+)' % re.escape(unit))
    with open(log, errors='replace') as f:
        for line in f:
            m = pattern.search(line)
            if m:
                return int(m.group(1))
    sys.exit(f'insn-profile: no "BENCH {unit}=" line in {log}')


def per_unit(spec, unit):
    """name, {function: instructions per unit of work} for NAME:MAP:S:L."""
    try:
        name, system_map, short, long = spec.split(':')
    except ValueError:
        sys.exit(f'insn-profile: "{spec}" is not NAME:MAP:SHORT:LONG')
    symbols = read_symbols(system_map)
    a, b = fold(short + '.prof', symbols), fold(long + '.prof', symbols)
    work = work_done(long + '.log', unit) - work_done(short + '.log', unit)
    if work <= 0:
        sys.exit(f'insn-profile: {long} did no more {unit} than {short}')
    return name, {f: (b.get(f, 0) - a.get(f, 0)) / work
                  for f in set(a) | set(b)}


def compare(args):
    kernels = [per_unit(spec, args.unit) for spec in args.kernels]
    base_name, base = kernels[0]
    for name, other in kernels[1:]:
        total_base, total_other = sum(base.values()), sum(other.values())
        print(f'## {name} against {base_name}: guest instructions per '
              f'{args.unit[:-1] if args.unit.endswith("s") else args.unit}')
        print()
        print(f'total: {total_base:.0f} -> {total_other:.0f} '
              f'({total_other / total_base:.3f}x, '
              f'{total_other - total_base:+.0f})')
        print()
        print(f'| function | {base_name} | {name} | difference |')
        print('| --- | ---: | ---: | ---: |')
        functions = sorted(set(base) | set(other),
                           key=lambda f: -abs(other.get(f, 0) - base.get(f, 0)))
        for f in functions[:args.top]:
            x, y = base.get(f, 0), other.get(f, 0)
            print(f'| `{f}` | {x:.1f} | {y:.1f} | {y - x:+.1f} |')
        print()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = parser.add_subparsers(dest='command', required=True)
    c = sub.add_parser('compare', help='per-function cost, first kernel '
                       'against the others')
    c.add_argument('--unit', default='faults',
                   help='the BENCH counter that measures work (faults)')
    c.add_argument('--top', type=int, default=25)
    c.add_argument('kernels', nargs='+', metavar='NAME:MAP:SHORT:LONG')
    args = parser.parse_args()
    if len(args.kernels) < 2:
        parser.error('compare needs at least two kernels')
    compare(args)


if __name__ == '__main__':
    main()
