"""mmcompare: MMTEST lines, and the verdict per test."""
import unittest

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


if __name__ == '__main__':
    unittest.main()
