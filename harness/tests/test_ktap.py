import unittest

from harness import ktap, results

KSELFTEST = """\
TAP version 13
1..2
# timeout set to 300
# selftests: cma: cma_debugfs
# TAP version 13
# 1..3
# # area reserved: base_pfn 0x1000
# ok 1 reserved: alloc 1 pages
# not ok 2 reserved: free 1 pages
# ok 3 reserved: reject "0" # SKIP no sysfs counters
# # Totals: pass:1 fail:1 xfail:0 xpass:0 skip:1 error:0
not ok 1 selftests: cma: cma_debugfs # exit=1
# timeout set to 300
# selftests: cma: cma_stress
not ok 2 selftests: cma: cma_stress # TIMEOUT 300 seconds
"""


class ParseTest(unittest.TestCase):
    def test_nested_kselftest(self):
        block = ktap.parse(KSELFTEST)
        self.assertEqual(block.plan, 2)
        self.assertEqual([r.name for r in block.results],
                         ['selftests: cma: cma_debugfs',
                          'selftests: cma: cma_stress'])
        first = block.results[0]
        self.assertEqual(first.status, ktap.FAIL)
        self.assertEqual(first.plan, 3)
        self.assertEqual([c.status for c in first.children],
                         [ktap.PASS, ktap.FAIL, ktap.SKIP])
        self.assertEqual(first.children[2].reason, 'no sysfs counters')
        self.assertEqual(block.results[1].status, ktap.TIMEOUT)

    def test_cases_flatten(self):
        block = ktap.parse(KSELFTEST)
        cases = ktap.cases(block.results[0]) + ktap.cases(block.results[1])
        self.assertEqual([c.status for c in cases],
                         [ktap.PASS, ktap.FAIL, ktap.SKIP, ktap.TIMEOUT])
        self.assertEqual(cases[0].name,
                         'selftests: cma: cma_debugfs: reserved: alloc 1 pages')

    def test_kunit_four_space_nesting(self):
        text = ("KTAP version 1\n1..1\n    KTAP version 1\n    1..2\n"
                "    ok 1 a\n    ok 2 b\nok 1 suite\n")
        cases = ktap.cases(ktap.parse(text).results[0])
        self.assertEqual([(c.name, c.status) for c in cases],
                         [('suite: a', ktap.PASS), ('suite: b', ktap.PASS)])

    def test_missing_subtests_fail(self):
        text = "1..1\n# 1..3\n# ok 1 a\nok 1 prog\n"
        cases = ktap.cases(ktap.parse(text).results[0])
        self.assertEqual(cases[-1].status, ktap.FAIL)
        self.assertIn('planned 3 cases, 1 reported', cases[-1].reason)

    def test_program_failure_after_passing_cases(self):
        text = "1..1\n# 1..1\n# ok 1 a\nnot ok 1 prog # exit=139\n"
        cases = ktap.cases(ktap.parse(text).results[0])
        self.assertEqual([c.status for c in cases], [ktap.PASS, ktap.FAIL])

    def test_whole_program_skip_with_plan_reason(self):
        text = "1..1\n# TAP version 13\n# 1..0 # SKIP needs root\nok 1 prog # SKIP\n"
        cases = ktap.cases(ktap.parse(text).results[0])
        self.assertEqual([(c.status, c.reason) for c in cases],
                         [(ktap.SKIP, 'needs root')])

    def test_skip_reason_from_directive(self):
        text = "1..1\nok 1 prog # SKIP no CMA area\n"
        cases = ktap.cases(ktap.parse(text).results[0])
        self.assertEqual(cases[0].reason, 'no CMA area')

    def test_bail_out_fails_a_passing_parent(self):
        text = "1..1\n# 1..2\n# ok 1 a\n# Bail out! lost the area\nok 1 prog\n"
        r = ktap.parse(text).results[0]
        self.assertEqual(r.status, ktap.FAIL)
        self.assertIn('lost the area', r.reason)

    def test_xfail_counts_as_pass(self):
        text = "1..1\n# 1..1\n# ok 1 a # XFAIL known\nok 1 p\n"
        cases = ktap.cases(ktap.parse(text).results[0])
        self.assertEqual(cases[0].status, ktap.PASS)

    def test_program_without_tap_is_not_a_pass(self):
        text = "1..1\n# selftests: cma: t\nok 1 selftests: cma: t\n"
        r = ktap.parse(text).results[0]
        self.assertEqual(ktap.cases(r)[0].status, ktap.PASS)
        case = ktap.cases(r, require_tap=True)[0]
        self.assertEqual(case.status, ktap.FAIL)
        self.assertIn('without printing any TAP', case.reason)

    def test_diagnostics_ignored(self):
        block = ktap.parse("# just a comment\nrandom text\n")
        self.assertEqual(block.results, [])



class NumberingAndVersionTest(unittest.TestCase):
    def test_clean_stream_has_no_problem(self):
        self.assertEqual(ktap.parse(KSELFTEST).problems, [])

    def test_duplicate_number(self):
        block = ktap.parse("TAP version 13\n1..2\nok 1 a\nok 1 b\n")
        self.assertEqual(len(block.problems), 1)
        self.assertIn("'b' is number 1, expected 2", block.problems[0])

    def test_out_of_order_nested_number_names_its_parent(self):
        block = ktap.parse("1..1\n# 1..2\n# ok 2 x\n# ok 1 y\nok 1 prog\n")
        self.assertEqual(len(block.problems), 2)
        self.assertTrue(block.problems[0].startswith("prog: result 'x' is number 2"))

    def test_versions(self):
        for line in ('TAP version 13', 'TAP version 14', 'KTAP version 1'):
            self.assertEqual(ktap.parse(line + "\n1..1\nok 1 a\n").problems, [], line)
        block = ktap.parse("KTAP version 2\n1..1\nok 1 a\n")
        self.assertIn("unknown version line 'KTAP version 2'", block.problems[0])

    def test_problems_fail_the_summary(self):
        s = results.summarise('v', "1..2\n# 1..1\n# ok 1 a\nok 1 p\n# 1..1\n# ok 1 b\n"
                              "ok 3 q\n", [], [])
        self.assertFalse(s.ok)
        self.assertIn("KTAP: result 'q' is number 3, expected 2", s.problems[0])

    def test_kunit_raw_console_is_rejected(self):
        """kunit's test_data: tab nesting, and printk timestamps before each
        line; neither is misread as a plan or results."""
        tabs = "KTAP version 1\n1..2\n\tKTAP version 1\n\t1..1\n\tok 1 a\nok 1 s\n"
        stamped = ("[    1.0] KTAP version 1\n[    1.0] 1..1\n"
                   "[    1.1] ok 1 example\n")
        for text in (tabs, stamped):
            block = ktap.parse(text)
            self.assertTrue(block.problems, text)
            self.assertIn('raw console output', block.problems[0])
        self.assertEqual(ktap.parse(stamped).results, [])


if __name__ == '__main__':
    unittest.main()
