"""console: splitting a guest's console and judging a boot."""
import os
import unittest

from harness import console

GOOD = """\
[    0.000000] Linux version 6.12.117
HARNESS: userspace up at 1.20 s, mode run
===HARNESS-KTAP-BEGIN===
TAP version 13
1..1
# selftests: cma: cma_debugfs
# 1..2
# ok 1 a
# ok 2 b # SKIP no sysfs
ok 1 selftests: cma: cma_debugfs
===HARNESS-KTAP-END rc=0===
===HARNESS-DMESG-BEGIN===
[    0.000000] Linux version 6.12.117
===HARNESS-DMESG-END===
"""


class AnalyseTest(unittest.TestCase):
    expected = ['cma:cma_debugfs']

    def test_good_run(self):
        s, _ = console.analyse('x', GOOD, self.expected, 0, 10)
        self.assertEqual((s.passed, s.failed, s.skipped), (1, 0, 1))
        self.assertTrue(s.ok)

    def test_warning_fails_a_passing_run(self):
        text = GOOD.replace('===HARNESS-DMESG-END===',
                            '[    9.1] WARNING: CPU: 0 PID: 1 at mm/cma.c:1 f\n'
                            '===HARNESS-DMESG-END===')
        s, _ = console.analyse('x', text, self.expected, 0, 10)
        self.assertFalse(s.ok)
        self.assertIn('kernel splat: WARNING: CPU: 0 PID: 1 at mm/cma.c:1 f',
                      s.problems)

    def test_test_output_is_not_scanned_for_splats(self):
        text = GOOD.replace('# ok 1 a', '# # expecting no BUG: here\n# ok 1 a')
        s, _ = console.analyse('x', text, self.expected, 0, 10)
        self.assertTrue(s.ok)

    def test_kernel_line_inside_ktap_is_scanned(self):
        text = GOOD.replace('# ok 1 a', '[ 3.0] Kernel panic - not syncing: x\n# ok 1 a')
        s, ktap_text = console.analyse('x', text, self.expected, 0, 10)
        self.assertFalse(s.ok)
        self.assertNotIn('panic', ktap_text)

    def test_missing_test_fails(self):
        s, _ = console.analyse('x', GOOD, self.expected + ['cma:cma_stress'], 0, 10)
        self.assertFalse(s.ok)
        self.assertIn('2 tests expected, 1 reported', s.problems[0])

    def test_hang_fails(self):
        text = GOOD.split('ok 1 selftests')[0]
        s, _ = console.analyse('x', text, self.expected, None, 900)
        self.assertIn('wall-clock limit', s.problems[0])

    def test_crash_mid_run_fails(self):
        text = GOOD.split('===HARNESS-KTAP-END')[0]
        s, _ = console.analyse('x', text, self.expected, 0, 10)
        self.assertIn('did not finish', s.problems[0])

    def test_kmemleak_kernel_must_scan(self):
        s, _ = console.analyse('x', GOOD, self.expected, 0, 10, kmemleak=True)
        self.assertIn('kmemleak did not scan', s.problems[0])
        text = GOOD.replace('===HARNESS-DMESG-BEGIN===',
                            'HARNESS: kmemleak scanned, 0 leaks\n===HARNESS-DMESG-BEGIN===')
        s, _ = console.analyse('x', text, self.expected, 0, 10, kmemleak=True)
        self.assertTrue(s.ok)

    def test_kmemleak_report_fails(self):
        text = GOOD.replace('===HARNESS-DMESG-BEGIN===',
                            'HARNESS: kmemleak scanned, 1 leaks\n'
                            'unreferenced object 0xffff0000c1a2b300 (size 128):\n'
                            '===HARNESS-DMESG-BEGIN===')
        s, _ = console.analyse('x', text, self.expected, 0, 10, kmemleak=True)
        self.assertEqual(s.problems,
                         ['kernel splat: unreferenced object 0xffff0000c1a2b300 (size 128):'])

    def test_never_started(self):
        s, _ = console.analyse('x', '[ 0.1] Linux\n', self.expected, 0, 10)
        self.assertIn('never started', s.problems[0])



class RealDebugLogTest(unittest.TestCase):
    """A real x86_64-debug boot (make demo-failures DEMOS=kasan): the
    debugfs alloc path read one byte past an object; cma_debugfs passed."""

    def test_kasan_report_fails_the_run(self):
        import os
        path = os.path.join(os.path.dirname(__file__), 'data',
                            'console-x86_64-debug-kasan.log')
        with open(path, errors='replace') as f:
            s, _ = console.analyse('x86_64-debug', f.read(), ['cma:cma_debugfs'], 0, 900,
                                   kmemleak=True)
        self.assertEqual(s.failed, 1, s.problems)
        self.assertTrue(s.problems[0].startswith(
            'kernel splat: BUG: KASAN: slab-out-of-bounds in cma_alloc_write'), s.problems)


class KcompactdCmaSumsTest(unittest.TestCase):
    """The kcompactd counters of harness/faults/zone-cma-kcompactd-count-7.3.patch,
    read from a real atomic-compaction boot of the series (run 5, 2026-12-05)."""

    def test_sums_of_a_real_boot(self):
        path = os.path.join(os.path.dirname(__file__), 'data',
                            'console-bench-atomic-compaction.log')
        with open(path, errors='replace') as f:
            m = console.bench_figures(f.read())['metrics']
        self.assertEqual(m['kcompactd_cma_asked'], 0)
        self.assertEqual(m['kcompactd_cma_unasked'], 1)
        self.assertEqual(m['kcompactd_cma_unasked_scanned'], 49553)
        self.assertEqual(m['kcompactd_scanned'], 192081)


if __name__ == '__main__':
    unittest.main()
