"""Commands behind the Makefile: variants, run, test, shell."""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys

from . import bases, build, checks, qemu, results, splat, variants

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIGS = os.path.join(ROOT, 'configs')
VARIANTS_INI = os.environ.get('HARNESS_VARIANTS') or os.path.join(CONFIGS, 'variants.ini')
BASES_INI = os.path.join(CONFIGS, 'bases.ini')
# Each variant builds the work tree of its base (configs/bases.ini:
# build/linux, build/linux-6.12). HARNESS_TREE and HARNESS_OUT point one run
# at another work tree (a git worktree of one of them, say) and its own
# build directories.
TREE_OVERRIDE = os.environ.get('HARNESS_TREE')
OUT = os.environ.get('HARNESS_OUT') or os.path.join(ROOT, 'build', 'out')
RESULTS = os.path.join(ROOT, 'build', 'results')
CACHE = os.path.join(ROOT, 'build', 'cache')
SERIES_SH = os.path.join(ROOT, 'scripts', 'series.sh')
CHECKPATCH_ALLOW = os.path.join(ROOT, 'series', 'checkpatch-allowlist')
MATRIX_INI = os.path.join(CONFIGS, 'matrix.ini')
GATE_NAMES = ('checkpatch', 'kerneldoc', 'docs', 'compiler', 'bisect', 'matrix')

KTAP_BEGIN = '===HARNESS-KTAP-BEGIN==='
KTAP_END = '===HARNESS-KTAP-END'
_KERNEL_LINE = re.compile(r'^\[\s*\d+\.\d+\]')
_PROGRESS = re.compile(r'^(# )*(ok|not ok) \d+|^HARNESS:|Kernel panic')


def split_console(text):
    """(ktap text, kernel lines, started, finished) from a console log.

    KTAP is what the guest printed between the markers, minus kernel lines
    (a panic reaches the console even while printk is quiet). Kernel lines
    are everything else: the boot log, the dmesg dump, and those strays.
    """
    ktap, kernel = [], []
    inside = started = finished = False
    for line in text.splitlines():
        if line.startswith(KTAP_BEGIN):
            inside = started = True
            continue
        if line.startswith(KTAP_END):
            inside, finished = False, True
            continue
        if inside and not _KERNEL_LINE.match(line):
            ktap.append(line)
        else:
            kernel.append(line)
    return '\n'.join(ktap) + '\n', kernel, started, finished


def analyse(variant_name, console_text, expected, rc, wall_limit):
    """Summary of one boot from its console text."""
    ktap_text, kernel_lines, started, finished = split_console(console_text)
    problem = None
    if rc is None:
        problem = f'boot killed by the {wall_limit} s wall-clock limit (hang?)'
    elif not started:
        problem = 'the guest never started the tests (see console.log)'
    elif not finished:
        problem = 'the test run did not finish (guest crashed or rebooted)'
    elif rc:
        problem = f'QEMU exited with {rc}'
    return results.summarise(variant_name, ktap_text, expected,
                             splat.find(kernel_lines), problem), ktap_text


def _echo(line):
    if _PROGRESS.search(line):
        sys.stderr.write('    ' + line)
        sys.stderr.flush()


def tree_of(base):
    """The work tree of @base (a bases.Base), absolute."""
    return TREE_OVERRIDE or os.path.join(ROOT, base.tree)


def patches_of(base):
    return os.path.join(ROOT, base.patches)


_READY = {}    # base name -> what its tree holds, or the BuildError it gave


def ensure_tree(base):
    """@base's work tree, fetched and with its series applied when missing
    (scripts/series.sh tree); tried once per run. Returns a line that says
    what the tree holds; raises build.BuildError when it cannot be set up
    (again for every variant of that base, without trying again)."""
    if base.name not in _READY:
        _READY[base.name] = _set_up_tree(base)
    if isinstance(_READY[base.name], build.BuildError):
        raise _READY[base.name]
    return _READY[base.name]


def _set_up_tree(base):
    tree = tree_of(base)
    if TREE_OVERRIDE:
        if not os.path.exists(os.path.join(tree, '.git')):
            return build.BuildError(f'HARNESS_TREE={tree} is not a git work tree')
    else:
        rc = subprocess.call(['sh', SERIES_SH, 'tree', base.name],
                             env=dict(os.environ, PYTHON=sys.executable))
        if rc:
            return build.BuildError(f'base {base.name}: {base.tree} could not be set up '
                                    f'(scripts/series.sh tree {base.name} exited {rc})')
    return describe_tree(base, tree)


def describe_tree(base, tree):
    """'build/linux-6.12: Linux 6.12.117 + 27 patches (backports/6.12/)', or
    that it is the bare base when the series has no commit yet."""
    proc = subprocess.run(['git', '-C', tree, 'rev-list', '--count', 'base..HEAD'],
                          capture_output=True, text=True)
    n = proc.stdout.strip() or '?'
    where = os.path.relpath(tree, ROOT)
    if n == '0':
        return (f'{where}: the bare base, {base.title}: {base.patches}/ has no '
                f'patches yet')
    return f'{where}: {base.title} + {n} patches ({base.patches}/)'


def prepare_variant(v, log, tests=None, btable=None):
    """Configure, build kernel and kselftests, pack the initramfs."""
    btable = btable or bases.load(BASES_INI)
    base = bases.lookup(btable, v.base)
    tree = tree_of(base)
    out = os.path.join(OUT, v.name)
    holds = ensure_tree(base)
    build.log_step(f'{v.name}: base {base.name}, {holds}')
    build.log_step(f'{v.name}: configure ({" + ".join(v.fragments)})')
    build.configure(v, tree, out, CONFIGS, log, base_title=base.title)
    build.log_step(f'{v.name}: build kernel (log: {os.path.relpath(log, ROOT)})')
    image = build.kernel(v, tree, out, log)
    # The bare base (no series yet) builds, but has no cma kselftests: say so.
    for c in dict.fromkeys(t.split(':', 1)[0] for t in (tests or v.tests).split(',')):
        if not os.path.isdir(os.path.join(tree, 'tools', 'testing', 'selftests', c)):
            raise build.BuildError(f'variant {v.name}: the kernel built, but it has no '
                                   f'kselftests {c} (tools/testing/selftests/{c}): {holds}')
    build.log_step(f'{v.name}: build kselftests')
    st = build.kselftests(v, tree, out, log)
    expected = build.select_tests(build.kselftest_list(st), tests or v.tests)
    bb = build.busybox(v, CACHE)
    initrd = build.initramfs(v, st, bb, os.path.join(out, 'initramfs.cpio.gz'))
    return image, initrd, expected


def use_kvm(v, image, initrd, resdir):
    argv = qemu.command(v, image, initrd, mode='probe', kvm=True)
    ok, why = qemu.kvm_usable(argv, os.path.join(resdir, 'kvm-probe.log'))
    build.log_step(f'{v.name}: {why}')
    return ok


def _result_dir(v):
    resdir = os.path.join(RESULTS, v.name)
    os.makedirs(resdir, exist_ok=True)
    for f in os.listdir(resdir):
        os.unlink(os.path.join(resdir, f))
    return resdir


def build_variant(v, tests, btable):
    """The build half of a run: (resdir, (image, initrd, expected)) or
    (resdir, Summary) when the build failed."""
    resdir = _result_dir(v)
    try:
        return resdir, prepare_variant(v, os.path.join(resdir, 'build.log'), tests, btable)
    except (build.BuildError, bases.BaseError) as e:
        s = results.Summary(v.name, [], [f'build: {e}'])
        _write(resdir, s, '')
        return resdir, s


def boot_variant(v, resdir, built, tests=None, kvm=False, timeout=None):
    """The boot half of a run: boot what build_variant() built, judge it."""
    if isinstance(built, results.Summary):
        return built
    image, initrd, expected = built
    if tests:
        v = variants.dataclasses.replace(v, tests=tests)
    extra = f'harness.timeout={timeout}' if timeout else ''
    argv = qemu.command(v, image, initrd, extra_cmdline=extra,
                        kvm=kvm and use_kvm(v, image, initrd, resdir))
    with open(os.path.join(resdir, 'qemu-cmdline'), 'w') as f:
        f.write(' '.join(argv) + '\n')
    build.log_step(f'{v.name}: boot ({argv[0]}, limit {v.boot_timeout} s): '
                   f'{", ".join(expected)}')
    console = os.path.join(resdir, 'console.log')
    rc, elapsed = qemu.boot(argv, console, v.boot_timeout, echo=_echo)
    build.log_step(f'{v.name}: guest ran {elapsed:.0f} s')
    with open(console, errors='replace') as f:
        s, ktap_text = analyse(v.name, f.read(), expected, rc, v.boot_timeout)
    _write(resdir, s, ktap_text)
    return s


def run_variant(v, tests=None, kvm=False, timeout=None, btable=None):
    resdir, built = build_variant(v, tests, btable or bases.load(BASES_INI))
    return boot_variant(v, resdir, built, tests, kvm, timeout)


def run_variants(chosen, btable, tests=None, kvm=False, timeout=None, serial=False):
    """Build and boot @chosen in order. Unless @serial, the next variant's
    kernel builds (niced) while the current variant's guest runs: one build
    and one guest at a time, at most."""
    for name in dict.fromkeys(v.base for v in chosen):
        try:   # fetch and apply in order, before any build
            ensure_tree(bases.lookup(btable, name))
        except build.BuildError:
            pass   # each of its variants reports it
    if serial or len(chosen) < 2:
        return [run_variant(v, tests, kvm, timeout, btable) for v in chosen]
    build.NICE = 10
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as builder:
        pending = [builder.submit(build_variant, v, tests, btable) for v in chosen]
        return [boot_variant(v, *job.result(), tests, kvm, timeout)
                for v, job in zip(chosen, pending)]


def checkpatch_all(btable, only=None):
    """checkpatch over the patch folder of each base (or of @only)."""
    out = []
    for b in btable.values():
        if only and b.name != only:
            continue
        try:
            ensure_tree(b)
        except build.BuildError as e:
            out.append(results.Summary(f'checkpatch:{b.name}', [], [str(e)]))
            continue
        s = checks.checkpatch(tree_of(b), patches_of(b), CHECKPATCH_ALLOW, codespell=True)
        s.variant = f'checkpatch:{b.name}'
        out.append(s)
    return out


def _write(resdir, summary, ktap_text):
    with open(os.path.join(resdir, 'ktap.log'), 'w') as f:
        f.write(ktap_text)
    with open(os.path.join(resdir, 'summary.json'), 'w') as f:
        f.write(summary.to_json())


def _finish(summaries):
    print()
    for s in summaries:
        print('\n'.join(results.report(s)))
    print(results.totals_line(summaries))
    return 0 if all(s.ok for s in summaries) else 1


def _positive_int(text):
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n <= 0:
        raise argparse.ArgumentTypeError(f'not a positive number of seconds: {text!r}')
    return n


def main(argv=None):
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
    p.add_argument('variants', nargs='*', help='variant names (default x86_64)')
    p.add_argument('--all', action='store_true', help='every variant in make test')
    p.add_argument('--test', help='kselftest to run: collection or collection:test')
    p.add_argument('--kvm', action='store_true', help='use KVM if a probe boot works')
    p.add_argument('--timeout', type=_positive_int,
                   help="per-kselftest timeout, seconds (overrides 'settings')")
    p.add_argument('--serial', action='store_true',
                   help="build a variant only after the previous one's guest finished")
    p = sub.add_parser('shell', help='boot a variant to an interactive shell')
    p.add_argument('variant', nargs='?', default='x86_64')
    p.add_argument('--kvm', action='store_true')
    sub.add_parser('selftest', help="the harness's own tests")
    p = sub.add_parser('checkpatch', help='checkpatch.pl --strict over the patch folder '
                       'of every base (patches/, backports/<name>/)')
    p.add_argument('--series', help='only this base (configs/bases.ini)')
    p = sub.add_parser('check', help='series quality gates (harness/gates.py)')
    p.add_argument('--only', help='comma-separated gates (default: all): ' +
                   ', '.join(GATE_NAMES))
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
    p.add_argument('--serial', action='store_true',
                   help="build a variant only after the previous one's guest finished")
    p = sub.add_parser('bench', help='base and series side by side')
    p.add_argument('benchmarks', nargs='*', help='benchmark names (default: all)')
    p.add_argument('--runs', type=_positive_int, help='boots per kernel')
    p.add_argument('--list', action='store_true', help='list the benchmarks')
    p.add_argument('--replot', action='store_true',
                   help='redraw the plots from bench/results/*.json, no boots')
    p = sub.add_parser('analyse', help='summarise an existing console log')
    p.add_argument('variant')
    p.add_argument('console')
    args = ap.parse_args(argv)

    if args.cmd == 'bases':
        return list_bases(args)
    try:
        btable = bases.load(BASES_INI)
        table = variants.load(VARIANTS_INI, list(btable))
        if args.cmd == 'variants':
            if args.base_of:
                print(variants.lookup(table, args.base_of).base)
            else:
                print(variants.describe(table))
            return 0
        if args.cmd == 'analyse':
            with open(args.console, errors='replace') as f:
                s, _ = analyse(args.variant, f.read(), [], 0, 0)
            return _finish([s])
        if args.cmd == 'bench':
            return run_bench(args, btable)
        if args.cmd == 'check':
            return run_check(args, btable)
        if args.cmd == 'selftest':
            return _finish([checks.unit_tests(ROOT)])
        if args.cmd == 'checkpatch':
            if args.series:
                bases.lookup(btable, args.series)
            return _finish(checkpatch_all(btable, args.series))
        if args.cmd == 'test':
            pre = [checks.unit_tests(ROOT)] + checkpatch_all(btable)
            for s in pre:
                build.log_step(results.report(s)[-1])
            chosen = [v for v in table.values() if v.in_test]
            return _finish(pre + run_variants(chosen, btable, kvm=args.kvm,
                                              serial=args.serial))
        if args.cmd == 'shell':
            return shell(variants.lookup(table, args.variant), args.kvm, btable)
        names = ([n for n, v in table.items() if v.in_test] if args.all
                 else args.variants or ['x86_64'])
        chosen = [variants.lookup(table, n) for n in names]
    except (variants.VariantError, bases.BaseError) as e:
        print(f'harness: {e}', file=sys.stderr)
        return 2
    return _finish(run_variants(chosen, btable, args.test, args.kvm, args.timeout,
                                args.serial))


def list_bases(args):
    try:
        table = bases.load(BASES_INI)
        if args.shell:
            sys.stdout.write(bases.lookup(table, args.shell).shell())
        elif args.names:
            print('\n'.join(table))
        else:
            print(bases.describe(table))
    except bases.BaseError as e:
        print(f'harness: {e}', file=sys.stderr)
        return 2
    return 0


def run_bench(args, btable):
    from . import bench
    try:
        table = bench.load(os.path.join(ROOT, 'bench', 'benchmarks.ini'), args.runs,
                           list(btable))
    except bench.BenchError as e:
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
            base = os.path.join(ROOT, 'bench', 'results', name)
            try:
                err = bench.replot(table[name], base + '.json', base + '.png')
            except (OSError, bench.BenchError) as e:
                err = str(e)
            print(f'{name}: ' + (err or f'wrote {os.path.relpath(base, ROOT)}.png'))
        return 0
    failed = 0
    for name in args.benchmarks or list(table):
        try:
            b = bases.lookup(btable, table[name].guest.base)
            ensure_tree(b)
            text, bad = bench.run(ROOT, table[name], os.path.join(ROOT, 'bench', 'results'),
                                  b, tree_of(b))
        except (build.BuildError, bench.BenchError) as e:
            print(f'harness: bench {name}: {e}', file=sys.stderr)
            return 1
        print(text)
        failed += bad
    if failed:
        print(f'harness: {failed} benchmark runs had problems (see the tables)',
              file=sys.stderr)
    return 1 if failed else 0


def shell(v, kvm, btable):
    resdir = os.path.join(RESULTS, v.name)
    os.makedirs(resdir, exist_ok=True)
    try:
        image, initrd, _ = prepare_variant(v, os.path.join(resdir, 'build.log'),
                                           btable=btable)
    except build.BuildError as e:
        print(f'harness: {e}', file=sys.stderr)
        return 1
    argv = qemu.command(v, image, initrd, mode='shell',
                        kvm=kvm and use_kvm(v, image, initrd, resdir))
    build.log_step('interactive guest: exit the shell to power off '
                   '(QEMU escape: Ctrl-A X)')
    return os.spawnvp(os.P_WAIT, argv[0], argv)


def run_check(args, btable):
    from . import gates
    base = bases.lookup(btable, args.series)
    only = args.only.split(',') if args.only else list(gates.GATES)
    unknown = [g for g in only if g not in gates.GATES]
    if unknown:
        print(f'harness: unknown check {", ".join(unknown)} (known: '
              f'{", ".join(gates.GATES)})', file=sys.stderr)
        return 2
    matrix = args.matrix.split(',') if args.matrix else None
    if matrix:
        try:
            known = [e.name for e in gates.load_matrix(MATRIX_INI)]
        except gates.GateError as e:
            print(f'harness: {e}', file=sys.stderr)
            return 2
        bad = [m for m in matrix if m not in known]
        if bad:
            print(f'harness: no matrix entry {", ".join(bad)} in {MATRIX_INI} '
                  f'(known: {", ".join(known)})', file=sys.stderr)
            return 2
    if args.tree:
        tree = os.path.abspath(args.tree)
        if not os.path.exists(os.path.join(tree, '.git')):
            print(f'harness: no kernel git tree in {tree}', file=sys.stderr)
            return 2
    else:
        try:
            build.log_step(f'check: base {base.name}, {ensure_tree(base)}')
        except build.BuildError as e:
            print(f'harness: {e}', file=sys.stderr)
            return 2
        tree = tree_of(base)
    bisect = None
    if args.bisect:
        bisect = [tuple(item.split(':', 1)) for item in args.bisect.split(',')]
        bad = [':'.join(b) for b in bisect
               if len(b) != 2 or b[0] not in gates.BISECT_CONFIGS
               or b[1] not in gates.OPTION_FRAGMENTS]
        if bad:
            print(f'harness: --bisect {", ".join(bad)}: want arch:options with arch '
                  f'in {", ".join(gates.BISECT_CONFIGS)} and options on or off',
                  file=sys.stderr)
            return 2
    proc = subprocess.run(['git', '-C', tree, 'rev-parse', '--verify', '-q',
                           args.rev_from + '^{commit}'], capture_output=True, text=True)
    if proc.returncode:
        print(f'harness: --from {args.rev_from}: no such commit in {tree}', file=sys.stderr)
        return 2
    ctx = gates.Context(ROOT, tree, os.path.join(OUT, f'check-{base.name}'),
                        os.path.abspath(args.patches or patches_of(base)), CHECKPATCH_ALLOW,
                        os.path.join(RESULTS, f'check-{base.name}'), proc.stdout.strip(),
                        base.name)
    summaries = gates.run(ctx, only, MATRIX_INI, matrix, bisect)
    lines = []
    for s in summaries:
        lines += [gates.case_line(s.variant, c) for c in s.cases]
        lines += [f'FAIL {s.variant}: {p}' for p in s.problems]
    lines.append(results.totals_line(summaries))
    os.makedirs(ctx.log_dir, exist_ok=True)
    with open(os.path.join(ctx.log_dir, 'report.txt'), 'w') as f:
        f.write('\n'.join(lines) + '\n')
    print('\n'.join(lines))
    return 0 if all(s.ok for s in summaries) else 1


if __name__ == '__main__':
    sys.exit(main())
