"""printer: the result lines."""
import unittest

from harness import ktap, printer, results


class PrinterTest(unittest.TestCase):
    def test_totals_line(self):
        a = results.Summary('a', [ktap.Case('t', ktap.PASS)], [])
        b = results.Summary('b', [ktap.Case('u', ktap.TIMEOUT),
                                  ktap.Case('v', ktap.SKIP, 'why')], ['splat'])
        self.assertEqual(printer.totals_line([a, b]),
                         '1 passed, 2 failed, 1 skipped')
        self.assertIn('  SKIP b: v -- why', printer.report(b))


if __name__ == '__main__':
    unittest.main()
