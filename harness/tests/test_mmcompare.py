"""mmcompare: run_vmtests.sh's output read per test, and the verdict per test.

data/console-mm-selftests-{base,series}.log.gz are the console logs of a
real `make mm-selftests` (7.3-rc7, and the series at 7cf7b3b13 with ZONE_CMA),
compressed: charge_reserved_hugetlb.sh timed out in both (its category was
killed), khugepaged -s 2 failed on the series only, and cow failed on both,
with two cases of it passing on 7.3-rc7 only. The regression detection of
compare() on its own is tested with hand-made tests below.
"""
import gzip
import os
import re
import tempfile
import unittest
from unittest import mock

from harness import bases, bench, build, ktap, mmcompare, paths
from harness.tests.test_build import _variant

DATA = os.path.join(os.path.dirname(__file__), 'data')


def _log(kernel):
    path = os.path.join(DATA, f'console-mm-selftests-{kernel}.log.gz')
    with gzip.open(path, 'rt', encoding='utf-8', errors='replace') as f:
        return f.read()


def _frame(title):
    sep = '# ' + '-' * len(title)
    return f'{sep}\n# {title}\n{sep}\n'


class ParseTest(unittest.TestCase):
    def setUp(self):
        self.base = mmcompare.parse(_log('base'))
        self.series = mmcompare.parse(_log('series'))

    def test_every_test_of_every_category(self):
        t = self.series.tests
        self.assertEqual(list(self.series.categories),
                         ['migration', 'compaction', 'gup_test', 'cow', 'hugetlb', 'ksm',
                          'thp'])
        self.assertEqual(len(t), 40)
        self.assertEqual(self.series.categories['ksm'][1],
                         ['ksm_tests -H -s 100', 'ksm_tests -P -s 100', 'ksm_tests -M -p 10',
                          'ksm_tests -U', 'ksm_tests -Z -p 10 -z 0',
                          'ksm_tests -Z -p 10 -z 1', 'ksm_functional_tests'])
        self.assertEqual((t['gup_test -ct -F 0x1 0 19 0x1000'].status,
                          t['gup_test -ct -F 0x1 0 19 0x1000'].rc), ('pass', 0))
        self.assertEqual((t['khugepaged -s 2'].status, t['khugepaged -s 2'].rc), ('fail', 1))
        self.assertEqual((self.base.tests['khugepaged -s 2'].status,
                          self.base.tests['khugepaged -s 2'].rc), ('pass', 0))
        self.assertEqual(t['charge_reserved_hugetlb.sh -cgroup-v2'].category, 'hugetlb')

    def test_the_guests_counts_agree(self):
        """bench/mm-selftests.sh's BENCH passed/failed/skipped, from its own
        tally, count what parse() reads."""
        for kernel, run in (('base', self.base), ('series', self.series)):
            bench_lines = dict(re.findall(r'^BENCH (passed|failed|skipped)=(\d+)',
                                          _log(kernel), re.M))
            statuses = [t.status for t in run.tests.values()]
            self.assertEqual({k: int(v) for k, v in bench_lines.items()},
                             {'passed': statuses.count('pass'),
                              'failed': statuses.count('fail'),
                              'skipped': statuses.count('skip')}, kernel)

    def test_skipped_without_starting(self):
        """Without XFS, run_vmtests.sh prints "[SKIP] ./khugepaged all:file"
        and no TAP line for it."""
        t = self.base.tests['khugepaged all:file']
        self.assertEqual((t.status, t.rc, t.category), ('skip', 4, 'thp'))

    def test_killed_at_the_timeout(self):
        """charge_reserved_hugetlb.sh's header has no TAP line before its
        category's MMCATEGORY rc=124: it timed out; the tests before it
        count."""
        t = self.series.tests['charge_reserved_hugetlb.sh -cgroup-v2']
        self.assertEqual((t.status, t.rc, t.category), ('fail', 124, 'hugetlb'))
        self.assertEqual(self.series.categories['hugetlb'][0], 124)
        self.assertEqual(len(self.series.categories['hugetlb'][1]), 9)
        self.assertEqual(mmcompare._cell(t), 'timeout')

    def test_hand_run(self):
        t = self.base.tests
        self.assertEqual([n for n in t if t[n].category == mmcompare.HAND_RUN],
                         ['gigantic-pool', 'hugetlb_cma-gigantic', 'hugetlb_cma-gigantic-churn',
                          'hugetlb_cma-gigantic-full', 'hugetlb-gigantic-outside',
                          'mem-on-off-test'])
        self.assertEqual([n for n in t if t[n].category == mmcompare.HAND_RUN
                          and t[n].status != 'pass'], ['hugetlb-gigantic-outside'])

    def test_own_cases(self):
        """The cases of a test's own TAP, nested under run_vmtests.sh's "# "."""
        cases = self.base.tests['cow'].cases
        self.assertEqual(len(cases), 663)
        self.assertEqual(cases['Basic COW after fork() ... with base page'], 'pass')
        self.assertEqual(sorted(n for n, st in cases.items() if st != 'pass'), [
            'R/O longterm GUP pin ... with memfd hugetlb (1048576 kB)',
            'R/O longterm GUP-fast pin ... with memfd hugetlb (1048576 kB)'])
        self.assertEqual(self.base.tests['hugetlb_madv_vs_map'].cases,
                         {'No unexpected huge page allocations': 'pass'})

    def test_sample_line_in_the_middle_of_a_line(self):
        """The guest's SAMPLE line, written between two of tee's writes,
        can split a line: it is taken out wherever it stands."""
        text = ('TAP version 13\n' + _frame('running ./cow') + '# ok 1 a\n'
                'not ok 1 cSAMPLE t=4.1 MemFree=1 CmaFree=2\r\now # exit=1\n'
                'MMCATEGORY cow rc=1\n')
        run = mmcompare.parse(text)
        self.assertEqual(list(run.tests), ['cow'])
        self.assertEqual((run.tests['cow'].status, run.tests['cow'].rc), ('fail', 1))

    def test_header_needs_its_frame(self):
        """A test that prints "running ./x" itself does not start a test;
        BusyBox's tr frames a header in other characters than dashes."""
        title = 'running ./gup_test -u -n 1'
        busybox_sep = '# ' + re.sub('[rg ]', '-', title)
        text = (f'TAP version 13\n{busybox_sep}\n# {title}\n{busybox_sep}\n'
                '# running ./other\n# [PASS]\nok 1 gup_test -u -n 1\n'
                'MMCATEGORY gup_test rc=0\n')
        self.assertEqual(list(mmcompare.parse(text).tests), ['gup_test -u -n 1'])

    def test_boot_ended_in_a_test(self):
        text = 'TAP version 13\n' + _frame('running bash ./x.sh smoke') + '# partial\n'
        t = mmcompare.parse(text).tests['x.sh smoke']
        self.assertEqual((t.status, t.rc, mmcompare._cell(t)), ('fail', None, 'no result'))

    def test_name_of_a_mktemp_directory(self):
        """With XFS, split_huge_page_test runs in a mktemp directory."""
        run = mmcompare.parse('ok 7 split_huge_page_test /tmp/xfs_dir_7RCDw0\n')
        self.assertEqual(list(run.tests), ['split_huge_page_test /tmp/xfs_dir_XXXXXX'])

    def test_kernel_lines_and_dmesg_are_not_tests(self):
        text = ('===HARNESS-BENCH-BEGIN===\nok 1 a\n[   12.0] ok 2 kernel\n'
                '===HARNESS-BENCH-END===\nok 3 after the end\n')
        self.assertEqual(list(mmcompare.parse(text).tests), ['a'])


class CompareTest(unittest.TestCase):
    def test_real_logs(self):
        base = mmcompare.parse(_log('base')).tests
        series = mmcompare.parse(_log('series')).tests
        got = {c.name: (c.status, c.reason) for c in
               mmcompare.compare('base', base, 'series', series) if c.status != 'pass'}
        self.assertEqual(got['khugepaged -s 2'], ('fail', 'passes on base, fail on series'))
        self.assertEqual(got['cow'], (
            'skip', 'fail on base, fail on series; 2 of its cases pass on base and fail '
            'on series: R/O longterm GUP pin ... with memfd hugetlb (2048 kB), '
            'R/O longterm GUP-fast pin ... with memfd hugetlb (2048 kB)'))
        self.assertEqual(got['charge_reserved_hugetlb.sh -cgroup-v2'],
                         ('skip', 'fail on base, fail on series'))
        self.assertEqual(sorted(got), [
            'charge_reserved_hugetlb.sh -cgroup-v2', 'cow', 'gup_longterm',
            'khugepaged -s 2', 'khugepaged all:file'])

    def test_verdicts(self):
        T = mmcompare.Test
        base = {'a': T('pass', 0), 'b': T('pass', 0), 'c': T('fail', 1), 'd': T('skip', 4),
                'e': T('pass', 0)}
        series = {'a': T('pass', 0), 'b': T('fail', 1), 'c': T('pass', 0), 'd': T('skip', 4)}
        got = [(c.name, c.status, c.reason) for c in
               mmcompare.compare('base', base, 'series', series)]
        self.assertEqual(got, [('a', 'pass', ''),
                               ('b', 'fail', 'passes on base, fail on series'),
                               ('c', 'pass', ''),
                               ('d', 'skip', 'skip on base, skip on series'),
                               ('e', 'fail', 'passes on base, missing on series')])

    def test_markdown(self):
        T = mmcompare.Test
        per_kernel = {'base': {'a': T('pass', 0, 'ksm'), 'b': T('fail', 1)},
                      'series': {'a': T('fail', 1, 'ksm'), 'b': T('fail', 124)}}
        cases = mmcompare.compare('base', per_kernel['base'], 'series', per_kernel['series'])
        md = mmcompare.markdown(['base', 'series'], per_kernel, cases)
        self.assertIn('| a | ksm | pass | fail (rc 1) | REGRESSION |', md)
        self.assertIn('| b | hand-run | fail (rc 1) | timeout | neither passes |', md)

    def test_problems(self):
        ok = mmcompare.parse(_log('base'))
        broken = mmcompare.parse('MMCATEGORY thp rc=127\nok 1 gigantic-pool\n')
        self.assertEqual(mmcompare.problems_of(['base', 'series'],
                                               {'base': ok, 'series': ok}), [])
        self.assertEqual(mmcompare.problems_of(['base', 'series'],
                                               {'base': broken, 'series': ok}), [
            'kernel base: run_vmtests.sh -t thp reported no test (rc 127)',
            'only 1 tests pass on base (at least 12 must, or the comparison shows little)'])


class TableTest(unittest.TestCase):
    def spec(self):
        btable = bases.load(paths.BASES_INI)
        return btable, bench.load(mmcompare.INI, None, btable)[mmcompare.NAME]

    def test_table_loads(self):
        _, spec = self.spec()
        self.assertEqual([k.tree for k in spec.kernels], ['pristine', 'series'])
        self.assertIn('mm:run_vmtests.sh', ' '.join(spec.kselftests))

    def test_kselftests_cover_the_categories(self):
        """The programs run_vmtests.sh runs in the categories
        bench/mm-selftests.sh names (its -d runs aside) are in the guest."""
        btable, spec = self.spec()
        src = os.path.join(paths.ROOT, btable[spec.guest.base].tree,
                           'tools/testing/selftests/mm/run_vmtests.sh')
        if not os.path.exists(src):
            self.skipTest(f'no {src}')
        with open(src) as f:
            vmtests = re.sub(r'\nif \$RUN_DESTRUCTIVE; then\n.*?\nfi\n', '\n', f.read(),
                             flags=re.S)
        with open(os.path.join(paths.ROOT, 'bench', 'mm-selftests.sh')) as f:
            categories = re.findall(r'^category (?:-t \d+ )?(\S+)$', f.read(), re.M)
        self.assertEqual(categories, ['migration', 'compaction', 'gup_test', 'cow',
                                      'hugetlb', 'ksm', 'thp'])
        programs = {m.group(2) for m in re.finditer(
            r'CATEGORY="(\w+)" run_test (?:bash )?\./(\S+)', vmtests)
            if m.group(1) in categories}
        programs |= {'run_vmtests.sh', 'write_hugetlb_memory.sh', 'write_to_hugetlbfs'}
        listed = {p for item in spec.kselftests if item.startswith('mm:')
                  for p in item[3:].split(',')}
        self.assertEqual(programs, listed)

    def test_guest_gets_bash_for_bash_scripts(self):
        """build.initramfs() adds a static bash when a file it packs is a
        bash script (run_vmtests.sh is), and only then."""
        import subprocess
        with tempfile.TemporaryDirectory() as d:
            files = {}
            for name, text in (('busybox', '#!/bin/sh\n'), ('bash-static', 'ELF'),
                               ('mm-selftests', '#!/bin/sh\n'),
                               ('run_vmtests.sh', '#!/bin/bash\n')):
                files[name] = os.path.join(d, name)
                with open(files[name], 'w') as f:
                    f.write(text)
            listings = []
            for extra in (['mm-selftests'], ['mm-selftests', 'run_vmtests.sh']):
                dest = os.path.join(d, 'initramfs.cpio.gz')
                with mock.patch.object(build, 'bash', lambda v, cache: files['bash-static']):
                    build.initramfs(_variant('x86_64'), None, files['busybox'], dest,
                                    extra_files=[(files[n], '/bench/' + n) for n in extra])
                listings.append(subprocess.run(f'gzip -dc {dest} | cpio -it --quiet',
                                               shell=True, capture_output=True, text=True,
                                               check=True).stdout.split())
        self.assertNotIn('bin/bash', listings[0])
        self.assertIn('bin/bash', listings[1])

    def test_per_test_table_goes_beside_the_logs(self):
        """The per-test table is written to build/results/bench-mm-selftests/,
        not bench/results/ (which keeps only what was measured)."""
        logs = {'base': _log('base'), 'series': _log('series')}
        with tempfile.TemporaryDirectory() as d, \
                mock.patch.object(mmcompare.bench, 'run_logs',
                                  lambda spec, btable, reproduce: ('table', 0, logs)), \
                mock.patch.object(mmcompare.paths, 'bench_logs',
                                  lambda name: os.path.join(d, 'bench-' + name)), \
                mock.patch('builtins.print'):
            summary = mmcompare.main(bases.load(paths.BASES_INI))
            self.assertEqual(os.listdir(d), ['bench-mm-selftests'])
            with open(os.path.join(d, 'bench-mm-selftests', 'mm-selftests-compare.md')) as f:
                self.assertIn('| khugepaged -s 2 | thp | pass | fail (rc 1) | REGRESSION |',
                              f.read())
        self.assertEqual((summary.count(ktap.FAIL), summary.problems), (1, []))


if __name__ == '__main__':
    unittest.main()
