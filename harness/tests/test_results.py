import os
import subprocess
import unittest

from harness.tests.util import load_text
from harness import bases, build, console, ktap, paths, printer, results, variants

BTABLE = bases.load(paths.BASES_INI)

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

    def test_never_started(self):
        s, _ = console.analyse('x', '[ 0.1] Linux\n', self.expected, 0, 10)
        self.assertIn('never started', s.problems[0])

    def test_totals_line(self):
        a = results.Summary('a', [ktap.Case('t', ktap.PASS)], [])
        b = results.Summary('b', [ktap.Case('u', ktap.TIMEOUT),
                                  ktap.Case('v', ktap.SKIP, 'why')], ['splat'])
        self.assertEqual(printer.totals_line([a, b]),
                         '1 passed, 2 failed, 1 skipped')
        self.assertIn('  SKIP b: v -- why', printer.report(b))


def load_variants(text):
    """The variants of ini @text; base b is mainline."""
    btable = dict(BTABLE, b=BTABLE['mainline'])
    return load_text(lambda p: variants.load(p, btable), text)


class VariantsTest(unittest.TestCase):
    def load(self, text):
        return load_variants(text)

    def test_repo_table_loads(self):
        table = variants.load(paths.VARIANTS_INI, BTABLE)
        self.assertIn('x86_64', table)
        self.assertIn('arm64', table)
        for v in table.values():
            for p in v.fragment_paths(paths.CONFIGS):
                self.assertTrue(os.path.exists(p), p)

    def test_unknown_variant_lists_valid_ones(self):
        table = self.load('[a]\nsummary = s\narch = x86_64\nfragments = common\nbase = mainline\n')
        with self.assertRaises(variants.VariantError) as e:
            variants.lookup(table, 'b')
        self.assertIn("unknown variant 'b'", str(e.exception))
        self.assertIn('  a  base mainline  s', str(e.exception))

    def test_bad_values(self):
        for body, msg in [('summary = s\nfragments = c\nbase = b\n', 'missing arch'),
                          ('summary = s\narch = x86_64\nfragments = c\n', 'missing base'),
                          ('summary = s\narch = mips\nfragments = c\nbase = b\n',
                           'unknown arch'),
                          ('summary = s\narch = arm64\nfragments = c\nbase = b\n'
                           'cpus = two\n', 'invalid literal')]:
            with self.subTest(body=body), self.assertRaises(variants.VariantError) as e:
                self.load('[v]\n' + body)
            self.assertIn(msg, str(e.exception))


class TestArgsTest(unittest.TestCase):
    def test_parse_and_command_line(self):
        from harness import qemu
        t = load_variants('[v]\nsummary = s\narch = x86_64\n'
                              'fragments = c\nbase = b\ntest_args = cma_stress=-t,32\n')
        self.assertEqual(t['v'].test_args, (('cma_stress', '-t,32'),))
        argv = qemu.command(t['v'], 'k', 'i')
        self.assertIn('harness.args.cma_stress=-t,32', argv[argv.index('-append') + 1])

    def test_bad_item(self):
        with self.assertRaises(variants.VariantError) as e:
            load_variants('[v]\nsummary = s\narch = x86_64\n'
                              'fragments = c\nbase = b\ntest_args = cma_stress\n')
        self.assertIn("'cma_stress' is not <test>=<arg>", str(e.exception))


class SelectTest(unittest.TestCase):
    entries = ['cma:cma_debugfs', 'cma:cma_stress', 'mm:cow']

    def test_collection(self):
        self.assertEqual(build.select_tests(self.entries, 'cma'),
                         ['cma:cma_debugfs', 'cma:cma_stress'])

    def test_single(self):
        self.assertEqual(build.select_tests(self.entries, 'cma:cma_stress'),
                         ['cma:cma_stress'])

    def test_unknown_lists_available(self):
        with self.assertRaises(build.BuildError) as e:
            build.select_tests(self.entries, 'cma:nope')
        self.assertIn('cma:cma_debugfs', str(e.exception))


class GuestTimeoutTest(unittest.TestCase):
    """The guest's timeout wrapper, run with BusyBox sh as in the guest."""
    script = os.path.join(build.GUEST, 'timeout')

    def run_timeout(self, *args):
        sh = ['busybox', 'sh'] if subprocess.call(
            ['sh', '-c', 'command -v busybox'], stdout=subprocess.DEVNULL) == 0 else ['sh']
        return subprocess.run(sh + [self.script, *args], capture_output=True,
                              timeout=30).returncode

    def test_expiry_is_124_with_foreground(self):
        self.assertEqual(self.run_timeout('--foreground', '1', 'sleep', '5'), 124)

    def test_exit_status_passes_through(self):
        self.assertEqual(self.run_timeout('5', 'sh', '-c', 'exit 3'), 3)

    def test_nested_like_runner_sh(self):
        self.assertEqual(self.run_timeout('--foreground', '1', self.script,
                                          '1', 'sleep', '5'), 124)

    def test_ignoring_term_is_killed(self):
        self.assertEqual(self.run_timeout('-k', '1', '1', 'sh', '-c',
                                          'trap "" TERM; sleep 5'), 124)

    def test_bad_usage(self):
        self.assertEqual(self.run_timeout('--bogus', '1', 'true'), 125)
        self.assertEqual(self.run_timeout('abc', 'true'), 125)


if __name__ == '__main__':
    unittest.main()
