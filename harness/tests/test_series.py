"""scripts/series.sh export on a tiny git tree: the exporter's identity."""
import glob
import os
import subprocess
import tempfile
import unittest

from harness import paths

SERIES_SH = os.path.join(paths.ROOT, 'scripts', 'series.sh')
ME = 'Test Exporter <exporter@example.org>'


def git(tree, *args, **kw):
    return subprocess.run(['git', '-C', tree, *args], check=True,
                          capture_output=True, text=True, **kw).stdout


class ExportIdentityTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = self.tmp.name
        self.tree, self.pdir = os.path.join(d, 'tree'), os.path.join(d, 'patches')
        self.gitconfig = os.path.join(d, 'gitconfig')
        with open(self.gitconfig, 'w') as f:
            f.write('[user]\n\tname = Test Exporter\n\temail = exporter@example.org\n')
        os.makedirs(self.tree)
        old = ['-c', 'user.name=Old Team', '-c', 'user.email=team@example.org']
        git(self.tree, 'init', '-q', '-b', 'series')
        with open(os.path.join(self.tree, 'f'), 'w') as f:
            f.write('0\n')
        git(self.tree, 'add', 'f')
        git(self.tree, *old, 'commit', '-q', '-m', 'base')
        git(self.tree, 'tag', 'base')
        for n, msg in ((1, 'one\n\nBody.\n# a hash line\n\nSigned-off-by: Old Team '
                           '<team@example.org>\n'),
                       (2, f'two\n\nReviewed-by: R <r@example.org>\nSigned-off-by: {ME}\n'
                           'Signed-off-by: Old Team <team@example.org>\n')):
            with open(os.path.join(self.tree, 'f'), 'a') as f:
                f.write(f'{n}\n')
            git(self.tree, *old, 'commit', '-q', '-a', '--cleanup=verbatim', '-m', msg)

    def tearDown(self):
        self.tmp.cleanup()

    def export(self, gitconfig):
        env = dict(os.environ, GIT_CONFIG_GLOBAL=gitconfig, GIT_CONFIG_SYSTEM=os.devnull,
                   GIT_CONFIG_NOSYSTEM='1')
        return subprocess.run(['sh', SERIES_SH, 'export', 'mainline', self.tree, self.pdir],
                              capture_output=True, text=True, env=env)

    def test_author_and_sign_off(self):
        files = git(self.tree, 'ls-files', '-s', 'f')
        proc = self.export(self.gitconfig)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        log = git(self.tree, 'log', '--format=%an <%ae>|%cn|%B%x00', 'base..HEAD')
        two, one = [e.strip() for e in log.split('\x00') if e.strip()]
        self.assertTrue(one.startswith(f'{ME}|Test Exporter|one'), one)
        self.assertIn('# a hash line', one)
        self.assertTrue(one.endswith(f'\n\nSigned-off-by: {ME}'), one)
        self.assertNotIn('Old Team', one + two)
        self.assertTrue(two.endswith(f'Reviewed-by: R <r@example.org>\nSigned-off-by: {ME}'), two)
        self.assertEqual(two.count('Signed-off-by'), 1)
        self.assertEqual(files, git(self.tree, 'ls-files', '-s', 'f'))
        patches = sorted(glob.glob(os.path.join(self.pdir, '000[1-9]-*.patch')))
        self.assertEqual(len(patches), 2)
        with open(patches[0]) as f:
            self.assertIn('From: Test Exporter <exporter@example.org>', f.read())
        # A second export changes no commit.
        head = git(self.tree, 'rev-parse', 'HEAD')
        self.assertEqual(self.export(self.gitconfig).returncode, 0)
        self.assertEqual(head, git(self.tree, 'rev-parse', 'HEAD'))

    def test_refused_without_identity(self):
        head = git(self.tree, 'rev-parse', 'HEAD')
        proc = self.export(os.devnull)
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn('user.name and user.email must be set', proc.stderr)
        self.assertEqual(head, git(self.tree, 'rev-parse', 'HEAD'))
        self.assertFalse(glob.glob(os.path.join(self.pdir, '*.patch')))


if __name__ == '__main__':
    unittest.main()
