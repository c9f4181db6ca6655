"""boot and console.judge(): the one judgement of a boot, on real console
logs of data/, and the same boot failed on every path that boots one.

data/console-i386-highmem-pass.log (make run V=i386-highmem, every test
passed or skipped) is the clean test boot, data/console-x86_64-thp-splat.log
(cma_thp on pristine 7.3-rc7 warns in isolate_single_pageblock()) the
splat, data/console-x86_64-debug-kasan.log a KASAN report on a kmemleak
kernel that scanned, data/console-bench-cma-concurrency.log a clean
benchmark boot. No log of a hung boot or of a kernel that stopped before
init was kept: those are the clean boot's log cut where QEMU was killed
(in the middle of the tests) or where the kernel stopped (before init).
"""
import dataclasses
import os
import re
import shutil
import tempfile
import unittest
from unittest import mock

from harness import (badinput, bases, benchrun, benchstats, boot, console, paths, qemu,
                     soak, variants)
from harness.tests.test_build import _variant

DATA = os.path.join(os.path.dirname(__file__), 'data')


def _read(name):
    with open(os.path.join(DATA, name), errors='replace') as f:
        return f.read()


CLEAN = 'console-i386-highmem-pass.log'
SPLAT = 'console-x86_64-thp-splat.log'
KASAN = 'console-x86_64-debug-kasan.log'
BENCH = 'console-bench-cma-concurrency.log'
THP_WARNING = ('WARNING: mm/page_isolation.c:431 at isolate_single_pageblock+0x1eb/0x23f, '
               'CPU#0: cma_thp/99')


def _cut_before(text, marker):
    """@text up to the line that starts with @marker, that line left out."""
    return text[:text.index('\n' + marker) + 1]


def _with_kernel_lines(bench_text, lines):
    """A benchmark boot's console with @lines in its dmesg dump."""
    return bench_text.replace('===HARNESS-DMESG-END===', lines + '===HARNESS-DMESG-END===')


class JudgeRealLogsTest(unittest.TestCase):
    def test_clean_test_boot(self):
        text = _read(CLEAN)
        j = console.judge(text, 0, 900, log='console.log')
        self.assertEqual((j.problem, j.splats, j.problems), (None, (), []))
        s, _ = console.summarise('i386-highmem', text, j,
                                 ['cma:cma_debugfs', 'cma:cma_sysfs'])
        self.assertEqual((s.passed, s.failed, s.skipped, s.problems), (26, 0, 4, []))

    def test_splat_fails_a_boot_whose_tests_finished(self):
        j = console.judge(_read(SPLAT), 0, 900)
        self.assertIsNone(j.problem)
        self.assertEqual(j.problems, ['kernel splat: ' + THP_WARNING])

    def test_kasan_on_a_kmemleak_kernel_that_scanned(self):
        j = console.judge(_read(KASAN), 0, 900, kmemleak=True)
        self.assertIsNone(j.problem)
        self.assertEqual([k for k, _ in j.splats], ['BUG'])
        self.assertTrue(j.splats[0][1].startswith(
            'BUG: KASAN: slab-out-of-bounds in cma_alloc_write'))
        unscanned = _read(KASAN).replace(console.KMEMLEAK_SCANNED, 'HARNESS: no scan')
        self.assertEqual(console.judge(unscanned, 0, 900, kmemleak=True).problem,
                         'kmemleak did not scan after the tests (is it enabled?)')
        # A workload's guest never scans: kmemleak asks nothing of a bench boot.
        bench = _read(BENCH)
        self.assertEqual(console.judge(bench, 0, 900, 'bench', kmemleak=True).problems, [])

    def test_killed_in_the_middle_of_the_tests(self):
        text = _cut_before(_read(CLEAN), '# ok 10 reserved')
        j = console.judge(text, None, 900)
        self.assertEqual(j.problems, ['boot killed by the 900 s wall-clock limit (hang?)'])
        s, _ = console.summarise('i386-highmem', text, j, ['cma:cma_debugfs'])
        self.assertFalse(s.ok)
        self.assertEqual(s.problems[0], 'boot killed by the 900 s wall-clock limit (hang?)')

    def test_kernel_that_stopped_before_init(self):
        text = _cut_before(_read(CLEAN), 'HARNESS: userspace up')
        self.assertEqual(console.judge(text, 0, 900, log='console.log').problems,
                         ['the guest never started the tests (see console.log)'])
        bench = _cut_before(_read(BENCH), 'HARNESS: userspace up')
        self.assertEqual(console.judge(bench, 0, 900, 'bench', log='k-run1.log').problems,
                         ['the guest never started the workload (see k-run1.log)'])

    def test_crash_in_the_middle(self):
        text = _cut_before(_read(CLEAN), '# ok 10 reserved')
        self.assertEqual(console.judge(text, 0, 900).problems,
                         ['the test run did not finish (guest crashed or rebooted)'])
        bench = _cut_before(_read(BENCH), 'BENCH ')
        self.assertEqual(console.judge(bench, 0, 900, 'bench').problems,
                         ['the workload did not finish (guest crashed or rebooted)'])

    def test_clean_bench_boot_and_its_failures(self):
        text = _read(BENCH)
        self.assertEqual(console.judge(text, 0, 900, 'bench').problems, [])
        self.assertEqual(console.judge(text, 1, 900, 'bench').problems,
                         ['QEMU exited with 1'])
        failed = text.replace('BENCH exit_status=0', 'BENCH exit_status=3')
        self.assertEqual(console.judge(failed, 0, 900, 'bench').problems,
                         ['the workload exited 3'])
        # The boot's own problem is one, the first that holds.
        self.assertEqual(console.judge(failed, None, 900, 'bench').problems,
                         ['boot killed by the 900 s wall-clock limit (hang?)'])

    def test_failed_kernel_allocation_is_a_splat_of_a_bench_boot(self):
        report = _read('console-bench-atomic-allocfail.log')
        j = console.judge(_with_kernel_lines(_read(BENCH), report), 0, 900, 'bench')
        self.assertIsNone(j.problem)
        self.assertEqual([k for k, _ in j.splats], ['allocation failure', 'OOM kill'])
        self.assertTrue(benchstats.failed_allocation({'problems': j.problems}))


class OneJudgementTest(unittest.TestCase):
    """A boot one path fails, every path fails: the thp splat's kernel
    lines in a test boot (make run, a bad-input row) and in a benchmark
    boot (make bench, make soak)."""

    def test_splat_fails_every_path(self):
        splat_lines = ''.join(line + '\n' for line in _read(SPLAT).splitlines()
                              if THP_WARNING in line)
        self.assertTrue(splat_lines)
        expected = 'kernel splat: ' + THP_WARNING
        # make run / make test
        text = _read(CLEAN).replace('===HARNESS-DMESG-END===',
                                    splat_lines + '===HARNESS-DMESG-END===')
        s, _ = console.summarise('v', text, console.judge(text, 0, 900),
                                 ['cma:cma_debugfs', 'cma:cma_sysfs'])
        self.assertIn(expected, s.problems)
        # make bad-input: a row that would pass but for the splat
        row = badinput.Row(name='r', kind='boot', shows='s', expect=())
        self.assertEqual(badinput.judge_boot(row, text, s), [expected])
        # make bench: left out of the medians, counted
        bench_text = _with_kernel_lines(_read(BENCH), splat_lines)
        b = boot.Boot('k-run1.log', 0, 1.0, bench_text,
                      console.judge(bench_text, 0, 900, 'bench'))
        self.assertEqual(benchrun.boot_figures(b)['problems'], [expected])
        # make soak: the boot's case fails with the same reason
        cases = soak.judge('k', bench_text)
        self.assertEqual((cases[0].status, cases[0].reason), ('fail', expected))

    def test_soak_counts_what_only_qemu_showed(self):
        logs = {'a': _read(BENCH), 'b': _read(BENCH)}
        self.assertEqual(soak.beyond_logs(0, logs), [])
        self.assertEqual(soak.beyond_logs(1, {'a': '', 'b': _read(BENCH)}), [])
        self.assertEqual(soak.beyond_logs(1, logs),
                         ['1 boots failed outside what their console shows (killed at the '
                          'wall-clock limit, or QEMU exited non-zero): see the table above'])


class RunTest(unittest.TestCase):
    """boot.run() and boot.read(), QEMU mocked by a copy of a real log."""

    def variant(self, **kw):
        return dataclasses.replace(_variant('x86_64'), boot_timeout=900, **kw)

    def run_boot(self, v, fixture, rc=0, mode='run'):
        def fake_boot(argv, log, limit, echo=None):
            self.seen = (argv, limit)
            shutil.copy(os.path.join(DATA, fixture), log)
            if echo:
                echo('a line\n')
            return rc, 12.5

        echoed = []
        with tempfile.TemporaryDirectory() as d, \
                mock.patch.object(qemu, 'boot', fake_boot):
            argv = qemu.command(v, 'bzImage', 'initrd', mode=mode)
            b = boot.run(v, argv, os.path.join(d, 'console.log'), echo=echoed.append)
        self.assertEqual(self.seen, (argv, 900))
        self.assertEqual(echoed, ['a line\n'])
        return b

    def test_clean_boot(self):
        b = self.run_boot(self.variant(), CLEAN)
        self.assertEqual((b.rc, b.elapsed, b.problems), (0, 12.5, []))
        self.assertEqual(b.text, _read(CLEAN))
        self.assertEqual(os.path.basename(b.log), 'console.log')

    def test_killed_boot(self):
        b = self.run_boot(self.variant(), SPLAT, rc=None)
        self.assertEqual(b.problems, ['boot killed by the 900 s wall-clock limit (hang?)',
                                      'kernel splat: ' + THP_WARNING])

    def test_mode_comes_from_the_command_line(self):
        b = self.run_boot(self.variant(), BENCH, mode='bench')
        self.assertEqual(b.problems, [])
        # The same log judged as a test boot never started the tests.
        b = self.run_boot(self.variant(), BENCH)
        self.assertEqual(b.problems, ['the guest never started the tests (see console.log)'])
        with self.assertRaisesRegex(ValueError, 'no harness.mode='):
            boot.mode_of(['qemu-system-x86_64', '-append', 'console=ttyS0'])

    def test_kmemleak_kernel_must_scan(self):
        v = self.variant(fragments=('x86_64', 'debug', 'kmemleak'))
        self.assertEqual(self.run_boot(v, KASAN).judgement.problem, None)
        self.assertEqual(self.run_boot(v, CLEAN).problems,
                         ['kmemleak did not scan after the tests (is it enabled?)'])

    def test_read_a_log_again(self):
        v = self.variant()
        b = boot.read(v, os.path.join(DATA, BENCH), 'bench')
        self.assertEqual((b.rc, b.elapsed, b.problems), (0, None, []))
        b = boot.read(v, os.path.join(DATA, BENCH), 'bench', rc=None)
        self.assertEqual(b.problems, ['boot killed by the 900 s wall-clock limit (hang?)'])

    def test_bad_input_row_boots_through_run(self):
        """A boot row of make bad-input: its command line and QEMU sizing,
        judged as make run judges a boot."""
        btable = bases.load(paths.BASES_INI)
        table = variants.load(paths.VARIANTS_INI, btable)
        row = badinput.Row(name='r/1', kind='boot', shows='s',
                           expect=(re.compile('cma: Reserved'),), variant=variants.DEFAULT,
                           cmdline='cma=64M', tests='cma:cma_debugfs')
        seen = []

        def fake_run(v, argv, log, echo=None):
            seen.append((v, argv, log))
            text = _read(SPLAT)
            return boot.Boot(log, 0, 1.0, text, console.judge(text, 0, v.boot_timeout))

        with mock.patch.object(boot, 'run', fake_run):
            why = badinput.run_boot(row, table, btable,
                                    {variants.DEFAULT: ('bzImage', 'initrd',
                                                        ['cma:cma_debugfs'])}, '/res')
        v, argv, log = seen[0]
        self.assertEqual(log, '/res/r_1.console.log')
        self.assertEqual(v.cmdline, 'cma=64M')
        self.assertEqual(argv, qemu.command(v, 'bzImage', 'initrd'))
        self.assertIn('kernel splat: ' + THP_WARNING, why)


if __name__ == '__main__':
    unittest.main()
