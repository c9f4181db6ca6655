"""The commands behind the Makefile: their arguments, and a table from each
command's name to its handler. The work is done elsewhere (pipeline, gates,
bench, build); a handler returns the exit status."""
import argparse
import os
import subprocess
import sys

from . import (arches, bases, build, checks, gates, matrix, paths, pipeline, printer, proc,
               variants)
from .console import analyse
from .figures import FigureError



class UsageError(Exception):
    """A bad command line or table: 'harness: <message>', exit 2."""


def _finish(summaries):
    print()
    for s in summaries:
        print('\n'.join(printer.report(s)))
    print(printer.totals_line(summaries))
    return 0 if all(s.ok for s in summaries) else 1


def _positive_int(text):
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n <= 0:
        raise argparse.ArgumentTypeError(f'not a positive number of seconds: {text!r}')
    return n


def _positive_minutes(text):
    try:
        n = float(text)
    except ValueError:
        n = 0
    if not 1 <= n <= 24 * 60:
        raise argparse.ArgumentTypeError(f'not a number of minutes from 1 to 1440: {text!r}')
    return n


def parser():
    ap = argparse.ArgumentParser(prog='harness')
    sub = ap.add_subparsers(dest='cmd', required=True)
    p = sub.add_parser('variants', help='list the variants and their bases')
    p.add_argument('--base-of', metavar='VARIANT', help='print only the base of VARIANT')
    p = sub.add_parser('bases', help='list the kernel bases (configs/bases.ini)')
    g = p.add_mutually_exclusive_group()
    g.add_argument('--names', action='store_true', help='only the names, one a line')
    g.add_argument('--shell', metavar='NAME',
                   help='base_* assignments of one base, for eval in scripts/')
    p = sub.add_parser('run', help='build, boot and test variants')
    p.add_argument('variants', nargs='*', help=f'variant names (default {variants.DEFAULT})')
    p.add_argument('--all', action='store_true', help='every variant in make test')
    p.add_argument('--test', help='kselftest to run: collection or collection:test')
    p.add_argument('--kvm', action='store_true', help='use KVM if a probe boot works')
    p.add_argument('--timeout', type=_positive_int,
                   help="per-kselftest timeout, seconds (overrides 'settings')")
    p.add_argument('--serial', action='store_true',
                   help="build a variant only after the previous one's guest finished")
    p = sub.add_parser('shell', help='boot a variant to an interactive shell')
    p.add_argument('variant', nargs='?', default=variants.DEFAULT)
    p.add_argument('--kvm', action='store_true')
    sub.add_parser('selftest', help="the harness's own tests")
    p = sub.add_parser('checkpatch', help='checkpatch.pl --strict over the patch folder '
                       'of every base (patches/, backports/<name>/)')
    p.add_argument('--series', help='only this base (configs/bases.ini)')
    p = sub.add_parser('check', help='series quality gates (harness/gates.py)')
    p.add_argument('--only', help='comma-separated gates (default: all): ' +
                   ', '.join(gates.GATES))
    p.add_argument('--matrix', help='comma-separated configs/matrix.ini entries')
    p.add_argument('--from', dest='rev_from', default='base',
                   help='check the commits after this one (default: base)')
    p.add_argument('--series', default='mainline',
                   help="which base's series (configs/bases.ini; default mainline)")
    p.add_argument('--tree', help="kernel git tree (default: the base's, build/linux)")
    p.add_argument('--patches', help="patch directory (default: the base's, patches/)")
    p.add_argument('--bisect', help='bisect builds as arch:options items, e.g. '
                   'x86_64:on,arm64:off (default: x86_64 and arm64, on and off)')
    p = sub.add_parser('test', help='harness tests, checkpatch, every variant')
    p.add_argument('--kvm', action='store_true')
    p.add_argument('--debug', action='store_true',
                   help='only the debug variants (in_debug = yes): KASAN, '
                   'DEBUG_PAGEALLOC, kmemleak')
    p.add_argument('--serial', action='store_true',
                   help="build a variant only after the previous one's guest finished")
    p = sub.add_parser('bad-input', help='the rows of configs/bad-input.ini: bad boot '
                       'parameters, Kconfig values and harness arguments')
    p.add_argument('rows', nargs='*', help='row names (default: every row)')
    p = sub.add_parser('layouts', help='the rows of configs/layouts.ini: CMA layouts '
                       'the kselftests must hold on')
    p.add_argument('rows', nargs='*', help='row names (default: every row)')
    sub.add_parser('mm-selftests', help="mainline's mm kselftests on the base and on "
                   'the series, compared test by test (configs/mm-selftests.ini)')
    p = sub.add_parser('soak', help='concurrent cma_alloc() under memory churn on debug '
                       'kernels, then check nothing was lost (configs/soak.ini)')
    p.add_argument('--minutes', type=_positive_minutes,
                   help='per kernel (default 10; with --faults 5)')
    p.add_argument('--faults', action='store_true',
                   help='inject page and slab allocation failures (fail_page_alloc, '
                   'failslab) into the allocating threads')
    p.add_argument('--population-only', action='store_true',
                   help='with --faults: only the boot where an area fails to activate')
    p = sub.add_parser('bench', help='pristine tree and series side by side')
    p.add_argument('benchmarks', nargs='*', help='benchmark names (default: all)')
    p.add_argument('--runs', type=_positive_int, help='boots per kernel')
    p.add_argument('--list', action='store_true', help='list the benchmarks')
    p.add_argument('--replot', action='store_true',
                   help='redraw the plots from bench/results/*.json, no boots')
    p.add_argument('--report', action='store_true',
                   help="rewrite the results from the last run's console logs, "
                   'no builds or boots')
    p.add_argument('--failures', nargs='+', metavar='LABEL=RESULTS[@REV]:KERNEL,...',
                   help='count boots that failed an allocation, pooled over '
                   'results files, with Fisher exact p against the first LABEL')
    p = sub.add_parser('figures', help="the figures of bench/figures.ini from "
                       "bench/results: write README.md's headline table")
    g = p.add_mutually_exclusive_group()
    g.add_argument('--check', action='store_true',
                   help='fail when README.md, the cover letter or a commit message '
                   'disagrees with bench/results')
    g.add_argument('--render', metavar='FILE',
                   help='print FILE with its {{figure.field}} placeholders filled in')
    g.add_argument('--list', action='store_true', help='every figure and its fields')
    p = sub.add_parser('analyse', help='summarise an existing console log')
    p.add_argument('variant')
    p.add_argument('console')
    p = sub.add_parser('fragments', help="an arch's fragment list: common, the "
                       "arch's, then FRAGMENT...")
    p.add_argument('--arch', required=True, choices=sorted(arches.ARCHES))
    p.add_argument('--base', help='the base, for --boot and --options')
    p.add_argument('--boot', action='store_true', help="the base's guest fragments too")
    p.add_argument('--options', choices=('on', 'off'), help="the base's option fragments")
    p.add_argument('fragments', nargs='*', metavar='FRAGMENT')
    p = sub.add_parser('configure', help='tinyconfig (or randconfig) + fragments + '
                       'olddefconfig in OUT, then fail naming every symbol that '
                       'did not keep its value')
    p.add_argument('--arch', required=True, choices=sorted(arches.ARCHES))
    p.add_argument('--tree', required=True, help='kernel source tree')
    p.add_argument('--out', required=True, help='build directory (O=)')
    p.add_argument('--set', action='append', default=[], metavar='CONFIG_X=v',
                   help='a setting after the fragments (repeatable)')
    p.add_argument('--randconfig', type=int, metavar='SEED',
                   help='make randconfig with this KCONFIG_SEED instead of tinyconfig')
    p.add_argument('--probability', type=int, default=5, help='KCONFIG_PROBABILITY')
    p.add_argument('--log', help='log of the make steps (default: OUT/configure.log)')
    p.add_argument('fragments', nargs='*', metavar='FRAGMENT',
                   help='configs/FRAGMENT.config, in order (the whole list)')
    p = sub.add_parser('worktree', help='a detached git worktree of REPO at '
                       'COMMIT in PATH, added when missing, else checked out there')
    p.add_argument('repo')
    p.add_argument('path')
    p.add_argument('commit')
    p.add_argument('--reset', action='store_true', help='drop local changes first')
    return ap


def cmd_bases(args, btable, table):
    if args.shell:
        sys.stdout.write(bases.lookup(btable, args.shell).shell())
    elif args.names:
        print('\n'.join(btable))
    else:
        print(bases.describe(btable))
    return 0


def cmd_variants(args, btable, table):
    if args.base_of:
        print(variants.lookup(table, args.base_of).base)
    else:
        print(variants.describe(table))
    return 0


def cmd_analyse(args, btable, table):
    with open(args.console, errors='replace') as f:
        s, _ = analyse(args.variant, f.read(), [], 0, 0)
    return _finish([s])


def cmd_selftest(args, btable, table):
    return _finish([checks.unit_tests(paths.ROOT)])


def cmd_checkpatch(args, btable, table):
    if args.series:
        bases.lookup(btable, args.series)
    return _finish(pipeline.checkpatch_all(btable, args.series))


def cmd_test(args, btable, table):
    if args.debug:
        chosen = [v for v in table.values() if v.in_debug]
        return _finish(pipeline.run_variants(chosen, btable, kvm=args.kvm,
                                             serial=args.serial))
    pre = ([checks.unit_tests(paths.ROOT)] + pipeline.checkpatch_all(btable) +
           pipeline.zone_movable_all(btable) + [pipeline.figures_check(btable)])
    for s in pre:
        printer.step(printer.report(s)[-1])
    chosen = [v for v in table.values() if v.in_test]
    return _finish(pre + pipeline.run_variants(chosen, btable, kvm=args.kvm,
                                               serial=args.serial))


def cmd_run(args, btable, table):
    names = ([n for n, v in table.items() if v.in_test] if args.all
             else args.variants or [variants.DEFAULT])
    chosen = [variants.lookup(table, n) for n in names]
    return _finish(pipeline.run_variants(chosen, btable, args.test, args.kvm,
                                         args.timeout, args.serial))


def cmd_shell(args, btable, table):
    try:
        return pipeline.shell(variants.lookup(table, args.variant), args.kvm, btable)
    except build.BuildError as e:
        print(f'harness: {e}', file=sys.stderr)
        return 1


def cmd_fragments(args, btable, table):
    base = bases.lookup(btable, args.base) if args.base else None
    if (args.boot or args.options) and not base:
        raise UsageError('fragments: --boot and --options need --base')
    print(' '.join(arches.compose(arches.ARCHES[args.arch], args.fragments, base,
                                  boot=args.boot, options=args.options)))
    return 0


def cmd_configure(args, btable, table):
    log = args.log or os.path.join(args.out, 'configure.log')
    try:
        bad = build.configure(os.path.abspath(args.tree), os.path.abspath(args.out),
                              arches.ARCHES[args.arch], args.fragments, log, args.set,
                              (args.randconfig, args.probability)
                              if args.randconfig is not None else None)
    except build.BuildError as e:
        print(f'harness: configure: {e}', file=sys.stderr)
        return 1
    if bad:
        from . import kconfig
        print('harness: configure: Kconfig symbols the fragments set did not keep '
              'their values in .config:\n' + kconfig.format_mismatches(bad), file=sys.stderr)
        return 1
    return 0


def cmd_worktree(args, btable, table):
    try:
        proc.worktree(os.path.abspath(args.repo), os.path.abspath(args.path),
                      args.commit, reset=args.reset)
    except subprocess.CalledProcessError as e:
        print(f'harness: worktree: {" ".join(e.cmd)}: {e.stderr.strip()}', file=sys.stderr)
        return 1
    return 0


def cmd_check(args, btable, table):
    base = bases.lookup(btable, args.series)
    only = args.only.split(',') if args.only else list(gates.GATES)
    unknown = [g for g in only if g not in gates.GATES]
    if unknown:
        raise UsageError(f'unknown check {", ".join(unknown)} (known: '
                         f'{", ".join(gates.GATES)})')
    chosen = args.matrix.split(',') if args.matrix else None
    if chosen:
        known = [e.name for e in matrix.load(paths.MATRIX_INI, list(btable))]
        bad = [m for m in chosen if m not in known]
        if bad:
            raise UsageError(f'no matrix entry {", ".join(bad)} in '
                             f'{os.path.relpath(paths.MATRIX_INI, paths.ROOT)} '
                             f'(known: {", ".join(known)})')
    bisect = None
    if args.bisect:
        bisect = [tuple(item.split(':', 1)) for item in args.bisect.split(',')]
        bad = [':'.join(b) for b in bisect
               if len(b) != 2 or b[0] not in arches.ARCHES or b[1] not in gates.OPTIONS]
        if bad:
            raise UsageError(f'--bisect {", ".join(bad)}: want arch:options with arch '
                             f'in {", ".join(arches.ARCHES)} and options on or off')
    if args.tree:
        tree = os.path.abspath(args.tree)
        if not os.path.exists(os.path.join(tree, '.git')):
            raise UsageError(f'no kernel git tree in {tree}')
    else:
        try:
            printer.step(f'check: base {base.name}, {pipeline.ensure_tree(base)}')
        except build.BuildError as e:
            raise UsageError(str(e)) from None
        tree = pipeline.tree_of(base)
    rev = subprocess.run(['git', '-C', tree, 'rev-parse', '--verify', '-q',
                        args.rev_from + '^{commit}'], capture_output=True, text=True)
    if rev.returncode:
        raise UsageError(f'--from {args.rev_from}: no such commit in {tree}')
    ctx = gates.Context(paths.ROOT, tree, os.path.join(paths.OUT, f'check-{base.name}'),
                        os.path.abspath(args.patches or pipeline.patches_of(base)),
                        paths.CHECKPATCH_ALLOW,
                        os.path.join(paths.RESULTS, f'check-{base.name}'),
                        rev.stdout.strip(), base)
    summaries = gates.run(ctx, only, paths.MATRIX_INI, chosen, bisect)
    print('\n'.join(gates.write_report(ctx, summaries)))
    return 0 if all(s.ok for s in summaries) else 1


def cmd_bad_input(args, btable, table):
    from . import badinput
    try:
        return _finish([badinput.main(table, btable, args.rows, args.cmd)])
    except badinput.TableError as e:
        raise UsageError(str(e)) from None


def _bench_summary(what, fn, *args):
    """The exit status of a pass/fail run built on make bench (soak,
    mm-selftests): @fn(*args) returns its Summary."""
    from .benchtable import BenchError
    try:
        out = fn(*args)
        return _finish(out if isinstance(out, list) else [out])
    except (BenchError, build.BuildError, OSError, subprocess.CalledProcessError) as e:
        print(f'harness: {what}: {e}', file=sys.stderr)
        return 1


def cmd_mm_selftests(args, btable, table):
    from . import mmcompare
    return _bench_summary('mm-selftests', mmcompare.main, btable)


def cmd_soak(args, btable, table):
    from . import soak
    name = soak.FAULTS if args.faults else soak.SOAK
    if args.population_only:
        if not args.faults or args.minutes:
            raise UsageError('--population-only goes with --faults and no --minutes')
        return _bench_summary(soak.POPULATION, soak.population, btable)
    return _bench_summary(name, soak.main, btable,
                          args.minutes or (5 if args.faults else 10), name)


def cmd_bench(args, btable, table):
    from . import bench
    return bench.main(args, btable)


def cmd_figures(args, btable, table):
    from . import figures
    sections = figures.load(paths.FIGURES_INI)
    figs = figures.compute_all(sections, paths.BENCH_RESULTS)
    if args.render:
        try:
            with open(args.render) as f:
                text = f.read()
        except OSError as e:
            raise UsageError(f'figures --render: {e}') from None
        sys.stdout.write(figures.render(text, figs, args.render))
        return 0
    if args.list:
        for name, f in figs.items():
            print(name + ': ' + '; '.join(f'{k} {v}' for k, v in f.items()
                                          if k not in ('claim', 'bench', 'results')))
        return 0
    base = bases.lookup(btable, 'mainline')
    patches = os.path.join(paths.ROOT, base.patches)
    cover = os.path.join(paths.ROOT, base.series, 'cover-letter.txt')
    if args.check:
        problems = figures.check(paths.ROOT, patches, cover, paths.FIGURES_INI,
                                 paths.BENCH_RESULTS)
        for p in problems:
            print(f'figures: {p}', file=sys.stderr)
        print(f'figures: {len(figs)} figures, {len(problems)} problems')
        return 1 if problems else 0
    readme = os.path.join(paths.ROOT, 'README.md')
    with open(readme) as f:
        text = f.read()
    new = figures.replace_table(text, figures.table(sections, figs))
    if new != text:
        with open(readme, 'w') as f:
            f.write(new)
    print(f'figures: {len(figs)} figures; README.md headline table '
          f'{"rewritten" if new != text else "unchanged"}')
    return 0


COMMANDS = {
    'bases': cmd_bases,
    'figures': cmd_figures,
    'variants': cmd_variants,
    'analyse': cmd_analyse,
    'selftest': cmd_selftest,
    'checkpatch': cmd_checkpatch,
    'test': cmd_test,
    'run': cmd_run,
    'shell': cmd_shell,
    'fragments': cmd_fragments,
    'configure': cmd_configure,
    'worktree': cmd_worktree,
    'check': cmd_check,
    'bench': cmd_bench,
    'bad-input': cmd_bad_input,
    'layouts': cmd_bad_input,
    'mm-selftests': cmd_mm_selftests,
    'soak': cmd_soak,
}
# Commands that need no variant table (bases.ini alone).
_NO_VARIANTS = ('bases', 'fragments', 'configure', 'worktree', 'figures')


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        btable = bases.load(paths.BASES_INI)
        table = (None if args.cmd in _NO_VARIANTS
                 else variants.load(paths.VARIANTS_INI, btable))
        return COMMANDS[args.cmd](args, btable, table)
    except (UsageError, variants.VariantError, bases.BaseError, matrix.MatrixError,
            FigureError) as e:
        print(f'harness: {e}', file=sys.stderr)
        return 2


if __name__ == '__main__':
    sys.exit(main())
