"""cli.main end to end on real console logs, with the build and the boot
mocked: `run` writes build/results/<variant>/ and ends with the totals.

data/console-i386-highmem-pass.log: make run V=i386-highmem on the mainline
series (26 passed, 4 skipped). data/console-x86_64-thp-splat.log: cma_thp on
pristine 7.3-rc7 (make demo-defects), which warns in
isolate_single_pageblock(): the splat fails the run.
"""
import contextlib
import io
import json
import os
import shutil
import tempfile
import unittest
from unittest import mock

from harness import cli, paths, pipeline

DATA = os.path.join(os.path.dirname(__file__), 'data')


class MainRunTest(unittest.TestCase):
    def run_main(self, variant, console_fixture, expected):
        def fake_boot(argv, console, limit, echo=None):
            shutil.copy(os.path.join(DATA, console_fixture), console)
            return 0, 1.0

        with tempfile.TemporaryDirectory() as d, \
                mock.patch.object(paths, 'RESULTS', d), \
                mock.patch.object(pipeline, 'ensure_tree', lambda b: 'a tree'), \
                mock.patch.object(pipeline, 'prepare_variant',
                                  lambda v, log, tests=None, btable=None:
                                  ('bzImage', 'initrd', expected)), \
                mock.patch.object(pipeline.qemu, 'boot', fake_boot), \
                contextlib.redirect_stdout(io.StringIO()) as out, \
                contextlib.redirect_stderr(io.StringIO()):
            rc = cli.main(['run', variant])
            with open(os.path.join(d, variant, 'summary.json')) as f:
                summary = json.load(f)
            with open(os.path.join(d, variant, 'qemu-cmdline')) as f:
                cmdline = f.read()
        return rc, out.getvalue().splitlines(), summary, cmdline

    def test_passing_run(self):
        rc, lines, summary, cmdline = self.run_main(
            'i386-highmem', 'console-i386-highmem-pass.log',
            ['cma:cma_debugfs', 'cma:cma_sysfs'])
        self.assertEqual(rc, 0)
        self.assertEqual(lines[-1], '26 passed, 0 failed, 4 skipped')
        self.assertEqual((summary['passed'], summary['failed'], summary['problems']),
                         (26, 0, []))
        self.assertTrue(cmdline.startswith('qemu-system-i386 '), cmdline)

    def test_splat_fails_the_run(self):
        rc, lines, summary, _ = self.run_main('x86_64', 'console-x86_64-thp-splat.log',
                                              ['cma:cma_thp'])
        self.assertEqual(rc, 1)
        self.assertIn('  FAIL x86_64: kernel splat: WARNING: mm/page_isolation.c:431 at '
                      'isolate_single_pageblock+0x1eb/0x23f, CPU#0: cma_thp/99', lines)
        self.assertEqual(lines[-1], '2 passed, 4 failed, 0 skipped')
        self.assertFalse(summary['ok'])

    def test_unknown_variant_is_a_usage_error(self):
        with contextlib.redirect_stderr(io.StringIO()) as err:
            self.assertEqual(cli.main(['run', 'no-such-variant']), 2)
        self.assertIn("unknown variant 'no-such-variant'", err.getvalue())


class MainWorktreeTest(unittest.TestCase):
    """`harness worktree`, the scripts' one way to a scratch worktree."""

    def git(self, repo, *args):
        import subprocess
        return subprocess.run(['git', '-C', repo, *args], check=True,
                              capture_output=True, text=True).stdout.strip()

    def test_add_then_move_and_reset(self):
        with tempfile.TemporaryDirectory() as d:
            repo, wt = os.path.join(d, 'repo'), os.path.join(d, 'wt', 'scratch')
            os.makedirs(repo)
            self.git(repo, 'init', '-q')
            for n in ('one', 'two'):
                with open(os.path.join(repo, 'f'), 'w') as f:
                    f.write(n)
                self.git(repo, 'add', 'f')
                self.git(repo, '-c', 'user.name=t', '-c', 'user.email=t@t',
                         'commit', '-qm', n)
            first = self.git(repo, 'rev-parse', 'HEAD~1')
            with contextlib.redirect_stderr(io.StringIO()):
                self.assertEqual(cli.main(['worktree', repo, wt, first]), 0)
            self.assertEqual(self.git(wt, 'rev-parse', 'HEAD'), first)
            with open(os.path.join(wt, 'f'), 'w') as f:
                f.write('local change')
            with open(os.path.join(wt, 'added'), 'w') as f:
                f.write('a file a patch added')
            head = self.git(repo, 'rev-parse', 'HEAD')
            with contextlib.redirect_stderr(io.StringIO()):
                self.assertEqual(cli.main(['worktree', '--reset', repo, wt, head]), 0)
            self.assertEqual(self.git(wt, 'rev-parse', 'HEAD'), head)
            with open(os.path.join(wt, 'f')) as f:
                self.assertEqual(f.read(), 'two')
            self.assertFalse(os.path.exists(os.path.join(wt, 'added')))

    def test_bad_repo_is_an_error(self):
        with tempfile.TemporaryDirectory() as d, \
                contextlib.redirect_stderr(io.StringIO()) as err:
            rc = cli.main(['worktree', os.path.join(d, 'none'), os.path.join(d, 'wt'), 'HEAD'])
        self.assertEqual(rc, 1)
        self.assertIn('harness: worktree:', err.getvalue())


if __name__ == '__main__':
    unittest.main()
