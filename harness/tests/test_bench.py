import contextlib
import dataclasses
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from harness.tests.util import LTS_BASE, MAINLINE_BASE, load_text
from harness import (bases, benchbuild, benchreport, benchrun, benchstats, benchtable,
                     console, paths)

CONSOLE = """\
[    0.000000] Linux version 6.12.117
HARNESS: userspace up at 1.50 s, mode bench
===HARNESS-BENCH-BEGIN===
SAMPLE t=0.0 MemFree=900000 CmaFree=500000 CmaTotal=524288
[    3.000000] stray kernel line
SAMPLE t=1.0 MemFree=100000 CmaFree=480000 CmaTotal=524288
BENCH elapsed_s=12.5
BENCH failed_workers=0
VMSTAT pgfault 90000
VMSTAT pswpout 700
VMSTAT allocstall_normal 3
VMSTAT allocstall_movable 4
VMSTAT pgscan_kswapd 10
VMSTAT pgscan_direct 5
VMSTAT pgskip_cma 4
BENCH exit_status=0
===HARNESS-BENCH-END===
"""


class BenchParseTest(unittest.TestCase):
    def test_figures(self):
        r = console.bench_figures(CONSOLE)
        m = r['metrics']
        self.assertEqual(m['boot_s'], 1.5)
        self.assertEqual(m['elapsed_s'], 12.5)
        self.assertEqual(m['pswpout'], 700)
        self.assertEqual(m['pswpin'], 0)
        self.assertEqual(m['allocstall'], 7)
        self.assertEqual(m['pgscan'], 15)
        self.assertEqual(m['pgskip'], 4)
        self.assertEqual([s['MemFree'] for s in r['samples']], [900000, 100000])
        self.assertEqual(console.judge(CONSOLE, mode='bench').splats, ())

    def test_no_event_counters_means_no_figures(self):
        r = console.bench_figures(CONSOLE.replace('VMSTAT pgfault 90000\n', ''))
        self.assertNotIn('pswpout', r['metrics'])

    def test_unfinished_run_has_no_vmstat_sums(self):
        r = console.bench_figures(CONSOLE.split('BENCH exit_status')[0])
        self.assertNotIn('_finished', r['metrics'])
        self.assertNotIn('pswpout', r['metrics'])

    def test_splat_inside_bench_section(self):
        text = CONSOLE.replace('[    3.000000] stray kernel line',
                               '[ 3.0] BUG: Bad page state in process churn')
        self.assertEqual(len(console.judge(text, mode='bench').splats), 1)

    def test_summarise(self):
        self.assertEqual(benchstats.summarise([3, 1, 2]), (2, 1, 3))
        self.assertIsNone(benchstats.summarise([]))

    def test_fisher_two_sided(self):
        # Fisher's tea-tasting table (3 of 4 against 1 of 4): p = 34/70.
        self.assertAlmostEqual(benchstats.fisher_two_sided(3, 4, 1, 4), 34 / 70)
        self.assertAlmostEqual(benchstats.fisher_two_sided(4, 4, 0, 4), 2 / 70)
        self.assertEqual(benchstats.fisher_two_sided(0, 9, 0, 9), 1.0)
        self.assertAlmostEqual(benchstats.fisher_two_sided(1, 9, 2, 9),
                               benchstats.fisher_two_sided(2, 9, 1, 9))
        with self.assertRaises(ValueError):
            benchstats.fisher_two_sided(10, 9, 0, 9)


# What console.judge() says of a benchmark boot that did not finish.
UNFINISHED = 'the workload did not finish (guest crashed or rebooted)'


def _boot(problems=(), **metrics):
    return {'metrics': metrics, 'samples': [], 'problems': list(problems), 'wall_s': 1.0}


KSWAPD_FAILURE = ('kernel splat: kswapd0: page allocation failure: order:0, '
                  'mode:0xc0ce0(GFP_KERNEL|__GFP_HIGH|__GFP_COMP|__GFP_NOMEMALLOC)')


class BenchFailureCountTest(unittest.TestCase):
    """Boots that failed an allocation are counted, not only left out."""

    def test_what_counts_as_a_failure(self):
        self.assertTrue(benchstats.failed_allocation(_boot([KSWAPD_FAILURE])))
        self.assertTrue(benchstats.failed_allocation(_boot(
            ['kernel splat: churn invoked oom-killer: gfp_mask=0x440dc0(GFP_KERNEL)'])))
        self.assertFalse(benchstats.failed_allocation(_boot([UNFINISHED])))
        self.assertTrue(benchstats.failed_atomic(_boot(atomic_failed=32)))
        self.assertFalse(benchstats.failed_atomic(_boot(atomic_failed=0)))
        self.assertIsNone(benchstats.failed_atomic(_boot()))
        # A boot without the probe's figure cannot say, and is not counted.
        self.assertEqual(benchstats.boots_with(
            [_boot(atomic_failed=5), _boot(), _boot(atomic_failed=0)],
            benchstats.failed_atomic), (1, 2))

    def test_table_only_when_a_boot_failed(self):
        runs = {'base': [_boot(atomic_failed=0)] * 4,
                'series': [_boot(atomic_failed=0)] * 4}
        self.assertEqual(benchreport.failure_table(['base', 'series'], runs, 'base'), [])
        runs['series'] = [_boot([KSWAPD_FAILURE], atomic_failed=9)] * 4
        md = '\n'.join(benchreport.failure_table(['base', 'series'], runs, 'base'))
        self.assertIn('| `base` | 0 of 4 | - | 0 of 4 | - |', md)
        self.assertIn('| `series` | 4 of 4 | 0.03 | 4 of 4 | 0.03 |', md)

    def results_root(self, d):
        os.makedirs(os.path.join(d, 'bench', 'results'))
        data = {'kernels': {'base': {'runs': [_boot(), _boot([KSWAPD_FAILURE])]},
                            'series': {'runs': [_boot([KSWAPD_FAILURE])] * 2}}}
        with open(os.path.join(d, 'bench', 'results', 'one.json'), 'w') as f:
            json.dump(data, f)
        with open(os.path.join(d, 'bench', 'results', 'bad.json'), 'w') as f:
            f.write('{"kernels": [')

    def test_pooled_over_results_files(self):
        with tempfile.TemporaryDirectory() as d:
            self.results_root(d)
            out = benchreport.pooled_failures(d, ['old=one:base,one:base', 'new=one:series'])
            self.assertIn('| `old` | 2 of 4 | - |', out)
            self.assertIn('| `new` | 2 of 2 | 0.47 |', out)

    def test_pooled_from_an_earlier_commit(self):
        with tempfile.TemporaryDirectory() as d:
            self.results_root(d)
            git = ['git', '-C', d, '-c', 'user.name=t', '-c', 'user.email=t@t']
            subprocess.run(git + ['init', '-q'], check=True)
            subprocess.run(git + ['add', '.'], check=True)
            subprocess.run(git + ['commit', '-qm', 'one'], check=True)
            os.remove(os.path.join(d, 'bench', 'results', 'one.json'))
            out = benchreport.pooled_failures(d, ['old=one@HEAD:base'])
            self.assertIn('| `old` | 1 of 2 | - |', out)
            with self.assertRaisesRegex(benchtable.BenchError, 'one@nosuchrev'):
                benchreport.pooled_failures(d, ['old=one@nosuchrev:base'])

    def test_pooled_bad_input_says_what_is_wrong(self):
        with tempfile.TemporaryDirectory() as d:
            self.results_root(d)
            for groups, why in ((['one:base'], 'want LABEL='),
                                (['a=one'], 'want RESULTS:KERNEL'),
                                (['a=one:nope'], "no kernel 'nope' .it has base, series"),
                                (['a=two:base'], 'No such file'),
                                (['a=one:base', 'a=one:series'], 'named twice'),
                                (['a=one@--output=x:base'], 'is not a commit'),
                                (['a=bad:base'], 'not a results file')):
                with self.assertRaisesRegex(benchtable.BenchError, why):
                    benchreport.pooled_failures(d, groups)


def repo_benchmarks():
    """The benchmarks of bench/benchmarks.ini, as `make bench` loads them."""
    return benchtable.load(os.path.join(paths.ROOT, 'bench', 'benchmarks.ini'), None,
                           bases.load(paths.BASES_INI))


class BenchLoadTest(unittest.TestCase):
    def load(self, text):
        return load_text(benchtable.load, text)

    def test_repo_benchmarks_load(self):
        table = repo_benchmarks()
        self.assertIn('overhead-icount', table)
        self.assertEqual(table['utilization-1g'].kernels[0].name, 'base-cma0')
        for b in table.values():
            self.assertTrue(any(os.path.exists(os.path.join(
                paths.ROOT, 'bench', b.workload[0] + ext)) for ext in ('.c', '.sh')),
                b.workload)

    def test_no_kernel_loses_the_area_size(self):
        """A kernel section that adds patches or fragments and forgets the
        cma= its siblings set boots without an area: in benchmarks whose
        kernels each set cma= (`utilization-1g`, `utilization-pagecache`),
        such kernels ran with CmaTotal 0 for many runs before anyone noticed.
        hugetlb_cma= and cma_pernuma= do not count as cma=."""
        table = repo_benchmarks()
        for b in table.values():
            sets = {k.name: bool(re.search(r'(^|\s)cma=', benchtable.kernel_variant(b, k).cmdline))
                    for k in b.kernels}
            if any(sets.values()):
                for name, has in sets.items():
                    self.assertTrue(has, f'{b.name}:{name} boots without cma=')

    def test_errors(self):
        guest = ('summary = s\nbase = mainline\narch = x86_64\nfragments = common\n'
                 'workload = faults 1 1\n')
        for text, msg in [
            ('[b]\n' + guest + '[b:one]\ntree = pristine\n', 'at least two'),
            ('[b]\n' + guest + '[b:a]\ntree = x\n[b:c]\n', 'tree must be pristine or series'),
            ('[b]\n' + guest + '[b:a]\ntree = base\n[b:c]\n',
             '[b:a]: tree = base is no longer accepted: write tree = pristine'),
            ('[b]\n' + guest.replace('workload = faults 1 1\n', '') +
             '[b:a]\n[b:c]\n', 'no workload'),
            ('[b]\n' + guest + 'runs = 0\n[b:a]\n[b:c]\n', 'at least 1'),
            ('[b]\n' + guest + 'like = c\n[b:a]\n[b:c]\n', 'not a benchmark'),
            ('[b]\n' + guest + 'like = d\n[b:a]\n[b:c]\n'
             '[d]\nlike = b\n', 'cycle'),
            ('[b]\n' + guest + '[b:a]\ntree = pristine\n[b:c]\n'
             '[e]\nlike = b\n[e:a]\n[e:d]\n', 'like = b has no kernel d'),
            ('[b]\n' + guest + 'profile = churn 1\n[b:a]\n[b:c]\n',
             'program faults'),
            ('[b]\n' + guest.replace('faults 1 1', 'churn 1 1 1') +
             'profile = churn 1 1 1\nqemu_extra = -icount shift=0\n[b:a]\n[b:c]\n',
             'no unit of work'),
            ('[b]\n' + guest + 'profile = faults 1 1\n[b:a]\n[b:c]\n',
             'needs -icount'),
            ('[b]\n' + guest + 'disk = 16x64\n[b:a]\n[b:c]\n', 'COUNTxSIZE'),
            ('[b]\n' + guest + 'disk = 0x64M\n[b:a]\n[b:c]\n', 'COUNTxSIZE'),
            ('[b]\n' + guest + 'disk = 1G\n[b:a]\n[b:c]\n', "not '1G'"),
        ]:
            with self.subTest(msg=msg), self.assertRaises(benchtable.BenchError) as e:
                self.load(text)
            self.assertIn(msg, str(e.exception))


    def test_like_inherits_keys_and_kernels(self):
        text = ('[b]\nsummary = s\nbase = mainline\narch = x86_64\n'
                'cmdline = cma=64M\nqemu_extra = -icount shift=0\n'
                'workload = faults 64 2\n[b:base]\ntree = pristine\n'
                '[b:zone]\nfragments = zone-cma\n'
                '[c]\nlike = b\nsummary = t\nworkload = faults 2 2\n'
                'profile = faults 2 1\n'
                '[d]\nlike = c\ncmdline = cma=256M\n[d:x]\ntree = pristine\n'
                '[d:y]\ntree = series\n[d:zone]\n')
        table = self.load(text)
        c, d = table['c'], table['d']
        self.assertEqual((c.summary, c.workload, c.guest.cmdline, c.profile),
                         ('t', ('faults', '2', '2'), 'cma=64M', ('faults', '2', '1')))
        self.assertEqual([k.name for k in c.kernels], ['base', 'zone'])
        self.assertEqual(c.kernels[1].fragments, ('zone-cma',))
        # Inherited through c; its own kernels replace b's.
        self.assertEqual((d.summary, d.guest.cmdline), ('t', 'cma=256M'))
        self.assertEqual([k.name for k in d.kernels], ['x', 'y', 'zone'])
        # An empty own section takes the parent's kernel of that name.
        self.assertEqual((d.kernels[2].tree, d.kernels[2].fragments),
                         ('series', ('zone-cma',)))
        self.assertEqual(d.kernels[1].fragments, ())
        self.assertEqual([k.name for k in table['b'].kernels], ['base', 'zone'])


class BenchBuildNamesTest(unittest.TestCase):
    """The pristine tree builds where it did when `tree = base` named it:
    its build directories and worktrees keep that name, so its builds are
    reused and new results name the same build/out/ directories as old."""

    def test_pristine_keeps_the_names_of_base(self):
        from unittest import mock
        b = load_text(lambda p: benchtable.load(p, None, bases.parse(MAINLINE_BASE)),
                      '[b]\nsummary = s\nbase = mainline\narch = x86_64\nfragments = bench\n'
                      'workload = faults 1 1\n[b:p]\ntree = pristine\n[b:a]\n'
                      'tree = pristine\npatches = harness/faults/cma-no-mutex-7.3.patch\n')['b']
        worktrees = []
        with mock.patch.object(benchbuild.proc, 'worktree',
                               lambda src, path, commit, reset: worktrees.append(
                                   (path, commit)) or path), \
                mock.patch.object(benchbuild.subprocess, 'call', lambda argv: 0):
            for k in b.kernels:
                benchbuild.kernel_tree('/r', k, 'mainline', '/snapshot')
        # The names the same kernels had with tree = base.
        self.assertEqual([benchbuild.build_key(benchtable.kernel_variant(b, k), k)
                          for k in b.kernels],
                         ['bench-mainline-base-x86_64-e64d5840',
                          'bench-mainline-base-x86_64-8d87eaac'])
        self.assertEqual(worktrees, [('/r/build/wt/mainline/bench-base', 'base'),
                                     ('/r/build/wt/mainline/bench-base-0bfddb3c', 'base')])


def _other_base():
    """A base other than mainline (util's lts: the report must not assume
    mainline) and a work tree that does not exist (no git needed)."""
    return (bases.parse(MAINLINE_BASE + LTS_BASE)['lts'],
            os.path.join(paths.ROOT, 'build', 'no-such-tree'))


class BenchDiskTest(unittest.TestCase):
    """`disk`: the ext2 image the guest reads its file set from."""

    def test_image_holds_the_files_and_is_made_once(self):
        from unittest import mock
        b = load_text(benchtable.load, '[b]\nsummary = s\nbase = mainline\n'
                      'arch = x86_64\nworkload = pagecache 1 4 1 1\ndisk = 3x2M\n'
                      '[b:a]\n[b:c]\n')['b']
        with tempfile.TemporaryDirectory() as d, \
                mock.patch.object(benchbuild.printer, 'step', lambda msg: None):
            img = benchbuild.disk_image(d, b)
            self.assertEqual(os.listdir(os.path.dirname(img)), [os.path.basename(img)])
            listing = subprocess.run(['debugfs', '-R', 'ls -l /', img],
                                     capture_output=True, text=True).stdout
            for name in ('f000', 'f001', 'f002'):
                self.assertRegex(listing, rf'\s{2 * 2 ** 20}\s.*\s{name}\b')
            # Data blocks, not holes: a guest reading them does I/O.
            stat = subprocess.run(['debugfs', '-R', 'stat /f001', img],
                                  capture_output=True, text=True).stdout
            sectors = int(re.search(r'Blockcount: (\d+)', stat).group(1))
            self.assertGreaterEqual(sectors * 512, 2 * 2 ** 20)
            made = os.stat(img).st_mtime_ns
            self.assertEqual(benchbuild.disk_image(d, b), img)
            self.assertEqual(os.stat(img).st_mtime_ns, made)
            with mock.patch.dict(os.environ, {'PATH': d}), \
                    self.assertRaisesRegex(benchtable.BenchError, 'needs e2fsprogs'):
                benchbuild.disk_image(os.path.join(d, 'other'), b)
            self.assertEqual(benchrun.disk_args(img),
                             ['-drive', f'file={img},if=none,id=disk0,format=raw,readonly=on',
                              '-device', 'virtio-blk-pci,drive=disk0,indirect_desc=off'])


class BenchReportTest(unittest.TestCase):
    def fake_runs(self, bench_obj, values):
        runs = {}
        for k in bench_obj.kernels:
            runs[k.name] = [{'metrics': dict(v), 'samples': [], 'problems': [],
                             'wall_s': 1.0} for v in values[k.name]]
        return runs

    def test_threads_report_and_plot(self):
        table = benchtable.load(os.path.join(paths.ROOT, 'bench', 'benchmarks.ini'))
        b = table['cma-concurrency']
        self.assertEqual(benchstats.thread_counts(b), [1, 2, 4, 8, 16, 32])
        vals = {}
        for i, k in enumerate(b.kernels):
            vals[k.name] = [{f't{t}_allocs_per_s': 100.0 * (i + 1) + r,
                             f't{t}_failed': float(i == 2), f't{t}_retries': 0.01}
                            for t in (1, 2, 4, 8, 16, 32) for r in range(1)]
            vals[k.name] = [dict(kv for d in vals[k.name] for kv in d.items())] * 3
        runs = self.fake_runs(b, vals)
        rep = benchreport.make_report(paths.ROOT, b, runs, {}, *_other_base())
        self.assertIn('| 16 | `series` | 200.0 (200.0-200.0) | 2.00 | 0 | 0.010 |', rep['markdown'])
        self.assertIn('| 16 | `no-mutex` | 300.0 (300.0-300.0) | 3.00 | 3 | 0.010 |', rep['markdown'])
        with tempfile.TemporaryDirectory() as d:
            err = benchreport.plot(b, runs, os.path.join(d, 'p.png'))
            if err is None:
                self.assertTrue(os.path.getsize(os.path.join(d, 'p.png')) > 0)

    def test_metrics_report_ratio_and_left_out_runs(self):
        table = benchtable.load(os.path.join(paths.ROOT, 'bench', 'benchmarks.ini'))
        b = table['overhead-icount']
        runs = self.fake_runs(b, {'base': [{'faults_per_s': 100, 'boot_s': 1}] * 3,
                                  'series-off': [{'faults_per_s': 99, 'boot_s': 1}] * 3,
                                  'series-on': [{'faults_per_s': 98, 'boot_s': 1}] * 3,
                                  'series-zone-cma': [{'faults_per_s': 97, 'boot_s': 1}] * 3,
                                  'base-movablecore': [{'faults_per_s': 96, 'boot_s': 1}] * 3})
        runs['series-off'][2]['problems'] = [UNFINISHED]
        runs['series-off'][2]['metrics'] = {'faults_per_s': 12345}
        md = benchreport.make_report(paths.ROOT, b, runs, {}, *_other_base())['markdown']
        self.assertIn('- base: Linux 6.6.90 (Debian linux-source-6.6 '
                      '6.6.90-1) (tag `base` of `build/linux-lts`)', md)
        self.assertIn('| `series-off` | 2/3 | 99.0 (99.0-99.0) | 0.990 |', md)
        self.assertIn('`series-off` run 3: ' + UNFINISHED, md)
        # The left-out run's own figures stay visible; they can be the finding.
        self.assertIn('- `series-off` run 3 reported: faults_per_s 12,345', md)
        self.assertNotIn('run 1 reported', md)


class BenchExclusiveTest(unittest.TestCase):
    """One benchmark run at a time: a second is refused, saying why."""

    def test_second_run_is_refused_then_allowed(self):
        with tempfile.TemporaryDirectory() as root:
            with benchbuild.exclusive(root):
                with self.assertRaisesRegex(benchtable.BenchError, 'another benchmark run'):
                    with benchbuild.exclusive(root):
                        pass
            with benchbuild.exclusive(root):
                pass


@contextlib.contextmanager
def _mocked_bench_run():
    """A temporary root in which benchrun.run builds nothing and every boot
    gives data/console-bench-cma-concurrency.log (the series kernel of a
    real cma-concurrency run on 7.3-rc7); prepare() writes the run's
    build.log with an old time, as a build that ended before the boots."""
    from unittest import mock
    fixture = os.path.join(os.path.dirname(__file__), 'data',
                           'console-bench-cma-concurrency.log')

    def fake_boot(argv, console_log, limit, echo=None):
        shutil.copy(fixture, console_log)
        return 0, 1.0

    def fake_prepare(root, bench_obj, log, series):
        with open(log, 'w') as f:
            f.write('built\n')
        os.utime(log, (1, 1))
        return {k.name: (benchtable.kernel_variant(bench_obj, k), k, 'Image', 'initrd', 'out')
                for k in bench_obj.kernels}

    with tempfile.TemporaryDirectory() as d, \
            mock.patch.object(benchrun, 'series_snapshot', lambda r, b, s: s), \
            mock.patch.object(benchrun, 'prepare', fake_prepare), \
            mock.patch.object(benchrun.qemu, 'boot', fake_boot), \
            mock.patch.object(benchrun.printer, 'step', lambda msg: None), \
            mock.patch.object(benchreport, 'plot', lambda *a: 'no plot in tests'):
        yield d


class BenchRunTest(unittest.TestCase):
    """benchrun.run end to end, the builds and the boots mocked."""

    def test_run_writes_the_report(self):
        table = benchtable.load(os.path.join(paths.ROOT, 'bench', 'benchmarks.ini'))
        b = table['cma-concurrency']
        with _mocked_bench_run() as d:
            text, failed = benchrun.run(d, b, os.path.join(d, 'results'),
                                        *_other_base())
            self.assertEqual(failed, 0)
            self.assertIn('| 16 | `series` | 5,111 (5,111-5,111) | 1.00 | 0 | 0.000 |', text)
            self.assertTrue(os.path.exists(os.path.join(d, 'results', 'cma-concurrency.json')))
            # The Markdown report goes beside the run's logs, not to the
            # results directory, so reruns add no files there.
            with open(os.path.join(paths.bench_logs(b.name, d), paths.BENCH_REPORT)) as f:
                self.assertEqual(f.read(), text)
            self.assertEqual(sorted(os.listdir(os.path.join(d, 'results'))),
                             ['cma-concurrency.json'])


class BenchReportOnlyTest(unittest.TestCase):
    """make bench-report: the same table from the last run's console logs,
    the run's own series line, and a clear refusal for a log that run did
    not write."""

    def test_rewrites_from_logs_and_refuses_stale_ones(self):
        from unittest import mock
        table = benchtable.load(os.path.join(paths.ROOT, 'bench', 'benchmarks.ini'))
        b = table['cma-concurrency']
        base = _other_base()[0]
        with _mocked_bench_run() as d:
            results = os.path.join(d, 'results')
            text, _ = benchrun.run(d, b, results, *_other_base())
            with mock.patch.object(benchreport, 'series_description',
                                   lambda tree: 'not asked again'):
                again = benchrun.report_only(d, b, results, base)
            # The table and the series line are the run's; the QEMU lines
            # differ only because the fake prepare() names no real image.
            cut = '## How it was run'
            self.assertEqual(again.split(cut)[0], text.split(cut)[0])
            series_line = [x for x in text.splitlines() if x.startswith('- series:')]
            self.assertEqual(series_line,
                             [x for x in again.splitlines() if x.startswith('- series:')])
            with open(os.path.join(results, b.name + '.json')) as f:
                walls = [r['wall_s'] for k in json.load(f)['kernels'].values()
                         for r in k['runs']]
            self.assertTrue(walls and None not in walls, walls)
            # A run booted with RUNS=n is rewritten with n, not the ini's count.
            fewer = dataclasses.replace(b, runs=b.runs - 1)
            with self.assertRaisesRegex(benchtable.BenchError, f'booted each kernel {b.runs} '
                                        f'times, not {b.runs - 1}: .*RUNS={b.runs}'):
                benchrun.report_only(d, fewer, results, base)
            logdir = os.path.join(d, 'build', 'results', 'bench-' + b.name)
            os.utime(os.path.join(logdir, 'build.log'), None)
            with self.assertRaisesRegex(benchtable.BenchError,
                                        'run1.log is older than the last run'):
                benchrun.report_only(d, b, results, base)
            os.utime(os.path.join(logdir, 'build.log'), (1, 1))
            os.unlink(os.path.join(logdir, 'series-run1.log'))
            with self.assertRaisesRegex(benchtable.BenchError, 'no console log .*series-run1.log'):
                benchrun.report_only(d, b, results, base)
        with self.assertRaisesRegex(benchtable.BenchError, 'instruction profile'):
            benchrun.report_only(paths.ROOT, table['overhead-icount-512m'],
                              paths.BENCH_RESULTS, base)


class BenchPathsTest(unittest.TestCase):
    def test_results_name_no_absolute_repository_path(self):
        table = benchtable.load(os.path.join(paths.ROOT, 'bench', 'benchmarks.ini'))
        b = table['overhead-icount']
        runs = {k.name: [{'metrics': {'faults_per_s': 1, 'boot_s': 1}, 'samples': [],
                          'problems': [], 'wall_s': 1.0}] for k in b.kernels}
        cmd = {'base': ['qemu-system-x86_64', '-kernel',
                        os.path.join(paths.ROOT, 'build/out/k/bzImage')]}
        rep = benchreport.make_report(paths.ROOT, b, runs, cmd, *_other_base())
        self.assertIn('-kernel build/out/k/bzImage', rep['markdown'])
        self.assertNotIn(paths.ROOT + '/', rep['markdown'])
        self.assertEqual(rep['data']['kernels']['base']['qemu'][-1], 'build/out/k/bzImage')



class StressFiguresTest(unittest.TestCase):
    """bench/stress-figures.sh on cma_stress output from a make bench log."""
    SCRIPT = os.path.join(paths.ROOT, 'bench', 'stress-figures.sh')

    def figures(self, text, prefix=''):
        return subprocess.run(['sh', self.SCRIPT, prefix], input=text, text=True,
                              capture_output=True, check=True).stdout.split()

    def test_series_run(self):
        out = ('# 36939 allocations (6136.2/s), 8226953 pages, 0 failed\n'
               '# 0 busy retries (0.000 per allocation)\n')
        self.assertEqual(self.figures(out, 't16_'),
                         ['t16_allocs_per_s=6136.2', 't16_failed=0', 't16_retries=0.000'])

    def test_base_run_has_no_retries(self):
        self.assertEqual(self.figures('# 24343 allocations (4030.7/s), 5409992 pages, 3 failed\n'),
                         ['allocs_per_s=4030.7', 'failed=3'])

    def test_no_result_prints_nothing(self):
        self.assertEqual(self.figures('Bail out! no CMA area\n'), [])


if __name__ == '__main__':
    unittest.main()
