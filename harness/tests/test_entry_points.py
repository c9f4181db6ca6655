"""The harness's entry points: `python3 -m harness.cli` and each test file
run on its own."""
import ast
import glob
import os
import re
import subprocess
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _is_main_guard(node):
    return (isinstance(node, ast.If) and isinstance(node.test, ast.Compare) and
            isinstance(node.test.left, ast.Name) and node.test.left.id == '__name__')


class MainGuardTest(unittest.TestCase):
    def test_main_guard_is_the_last_statement(self):
        """Code after `if __name__ == '__main__':` is not defined when the
        guard runs: a function after it is a NameError, a test class after
        it silently does not run."""
        for path in sorted(glob.glob(os.path.join(ROOT, 'harness', '**', '*.py'),
                                     recursive=True)):
            with open(path) as f:
                body = ast.parse(f.read(), path).body
            guards = [i for i, node in enumerate(body) if _is_main_guard(node)]
            with self.subTest(path=os.path.relpath(path, ROOT)):
                self.assertIn(guards, ([], [len(body) - 1]),
                              'the __main__ guard is not the last statement')

    def run_module(self, *argv):
        return subprocess.run([sys.executable, '-m', *argv], cwd=ROOT,
                              capture_output=True, text=True, timeout=120)

    def test_cli_module_runs_check(self):
        proc = self.run_module('harness.cli', 'check', '--only', 'no-such-gate')
        self.assertNotIn('NameError', proc.stderr)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn('unknown check no-such-gate', proc.stderr)

    def test_bench_test_file_alone_runs_all_its_tests(self):
        from harness.tests import test_bench
        loaded = unittest.defaultTestLoader.loadTestsFromModule(test_bench)
        proc = self.run_module('harness.tests.test_bench')
        ran = re.search(r'^Ran (\d+) tests?', proc.stderr, re.M)
        self.assertTrue(ran, proc.stderr)
        self.assertEqual(int(ran.group(1)), loaded.countTestCases(), proc.stderr)


if __name__ == '__main__':
    unittest.main()
