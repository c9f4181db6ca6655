"""mmcompare: MMTEST lines, and the verdict per test."""
import os
import tempfile
import unittest
from unittest import mock

from harness import bench, bases, mmcompare, paths

LOG = """\
HARNESS: userspace up at 2.0 s, mode bench
# migration: TAP version 13
MMTEST migration pass rc=0
# cow: not ok 3 ...
MMTEST cow fail rc=1
MMTEST ksm_functional_tests skip rc=4
[   12.0] MMTEST fake kernel line
"""


class MmCompareTest(unittest.TestCase):
    def test_parse(self):
        self.assertEqual(mmcompare.parse(LOG), {'migration': ('pass', 0),
                                                'cow': ('fail', 1),
                                                'ksm_functional_tests': ('skip', 4)})

    def test_verdicts(self):
        base = {'a': ('pass', 0), 'b': ('pass', 0), 'c': ('fail', 1), 'd': ('skip', 4),
                'e': ('pass', 0)}
        series = {'a': ('pass', 0), 'b': ('fail', 1), 'c': ('pass', 0), 'd': ('skip', 4)}
        got = [(c.name, c.status, c.reason) for c in
               mmcompare.compare('base', base, 'series', series)]
        self.assertEqual(got, [('a', 'pass', ''),
                               ('b', 'fail', 'passes on base, fail on series'),
                               ('c', 'pass', ''),
                               ('d', 'skip', 'skip on base, skip on series'),
                               ('e', 'fail', 'passes on base, missing on series')])

    def test_markdown(self):
        cases = mmcompare.compare('base', {'a': ('pass', 0)}, 'series', {'a': ('fail', 1)})
        md = mmcompare.markdown(['base', 'series'], {'base': {'a': ('pass', 0)},
                                                     'series': {'a': ('fail', 1)}}, cases)
        self.assertIn('| a | pass | fail (rc 1) | REGRESSION |', md)

    def test_table_loads(self):
        t = bench.load(mmcompare.INI, None, bases.load(paths.BASES_INI))
        spec = t[mmcompare.NAME]
        self.assertEqual([k.tree for k in spec.kernels], ['base', 'series'])
        self.assertIn('mm:migration', ' '.join(spec.kselftests))

    def test_per_test_table_goes_beside_the_logs(self):
        """The per-test table is written to build/results/bench-mm-selftests/,
        not bench/results/ (which keeps only what was measured)."""
        logs = {'base': LOG, 'series': LOG.replace('cow fail rc=1', 'cow pass rc=0')}
        with tempfile.TemporaryDirectory() as d, \
                mock.patch.object(mmcompare.bench, 'run_logs',
                                  lambda spec, btable, reproduce: ('table', 0, logs)), \
                mock.patch.object(mmcompare.paths, 'bench_logs',
                                  lambda name: os.path.join(d, 'bench-' + name)), \
                mock.patch('builtins.print'):
            mmcompare.main(bases.load(paths.BASES_INI))
            self.assertEqual(os.listdir(d), ['bench-mm-selftests'])
            with open(os.path.join(d, 'bench-mm-selftests', 'mm-selftests-compare.md')) as f:
                self.assertIn('| cow | fail (rc 1) | pass | ok |', f.read())


if __name__ == '__main__':
    unittest.main()
