"""make bench: the pristine base and the series side by side, in one run.

The command (list, replot, report, failures, or run the benchmarks) and
run_logs(), through which make soak, make fault-inject and make
mm-selftests run their own tables. The work is done elsewhere: benchtable
reads the table, benchbuild builds the kernels, benchrun boots them and
collects the figures, benchreport and benchstats write the report.
"""
import dataclasses
import os
import subprocess
import sys

from . import bases, benchreport, build, paths, pipeline
# Others take names from here: soak and mmcompare load(),
# scripts/options-off-diff.sh kernel_variant() and build_key().
from .benchbuild import build_key  # noqa: F401
from .benchrun import report_only, run
from .benchtable import BenchError, kernel_variant, load  # noqa: F401


def _run_on_base(bench, btable):
    """run() @bench on its base's work tree (made when missing), results in
    bench/results/: its markdown and the number of boots with problems."""
    base = bases.lookup(btable, bench.guest.base)
    pipeline.ensure_tree(base)
    return run(paths.ROOT, bench, paths.BENCH_RESULTS, base, pipeline.tree_of(base))


def run_logs(bench, btable, reproduce=None):
    """run() @bench (a Benchmark of any table: make soak, make mm-selftests)
    on its base, results in bench/results/ (the report in
    build/results/bench-NAME/): its markdown, the number of boots with
    problems, and {kernel: console text of its first run} ('' when that
    boot left no log). @reproduce: the command the report names."""
    if reproduce:
        bench = dataclasses.replace(bench, reproduce=reproduce)
    text, bad = _run_on_base(bench, btable)
    logdir = paths.bench_logs(bench.name)
    logs = {}
    for k in bench.kernels:
        try:
            with open(os.path.join(logdir, f'{k.name}-run1.log'), errors='replace') as f:
                logs[k.name] = f.read()
        except OSError:
            logs[k.name] = ''
    return text, bad, logs


def main(args, btable):
    """make bench: list, replot, or run the benchmarks @args names."""
    try:
        table = load(paths.BENCH_INI, args.runs, btable)
    except BenchError as e:
        print(f'harness: {e}', file=sys.stderr)
        return 2
    if args.list:
        for b in table.values():
            print(f'  {b.name:<14} {b.summary}')
        return 0
    unknown = [n for n in args.benchmarks if n not in table]
    if unknown:
        print(f'harness: unknown benchmark {", ".join(unknown)}; valid: '
              f'{", ".join(table)}', file=sys.stderr)
        return 2
    if args.replot:
        for name in args.benchmarks or list(table):
            base = os.path.join(paths.BENCH_RESULTS, name)
            try:
                err = benchreport.replot(table[name], base + '.json', base + '.png')
            except (OSError, BenchError) as e:
                err = str(e)
            print(f'{name}: ' + (err or f'wrote {os.path.relpath(base, paths.ROOT)}.png'))
        return 0
    if args.failures:
        if args.benchmarks or args.report or args.replot:
            print('harness: --failures takes no benchmark names', file=sys.stderr)
            return 2
        try:
            print(benchreport.pooled_failures(paths.ROOT, args.failures))
        except BenchError as e:
            print(f'harness: {e}', file=sys.stderr)
            return 2
        return 0
    if args.report:
        if not args.benchmarks:
            print('harness: --report needs benchmark names (B=name)', file=sys.stderr)
            return 2
        for name in args.benchmarks:
            try:
                b = bases.lookup(btable, table[name].guest.base)
                print(report_only(paths.ROOT, table[name], paths.BENCH_RESULTS, b))
            except BenchError as e:
                print(f'harness: {e}', file=sys.stderr)
                return 2
        return 0
    failed = 0
    for name in args.benchmarks or list(table):
        try:
            text, bad = _run_on_base(table[name], btable)
        except (build.BuildError, BenchError) as e:
            print(f'harness: bench {name}: {e}', file=sys.stderr)
            return 1
        except subprocess.CalledProcessError as e:
            print(f'harness: bench {name}: {" ".join(map(str, e.cmd))} failed: '
                  f'{(e.stderr or "").strip()}', file=sys.stderr)
            return 1
        print(text)
        failed += bad
    if failed:
        print(f'harness: {failed} benchmark runs had problems (see the tables)',
              file=sys.stderr)
    return 1 if failed else 0
