import os
import subprocess
import unittest

from harness import bases, cli, variants

SHA = 'a' * 64
MAIN = f"""[mainline]
linux = 7.3-rc7
package = linux-source-7.3
version = 7.3~rc7-1~exp1
suite = experimental
fetch = download
tarball = /usr/src/linux-source-7.3.tar.xz
sha256 = {SHA}
deb_sha256 = {SHA}
tarball_env = BASE_TARBALL
tree = build/linux
patches = patches
series = series
"""
OLD = f"""[6.12]
linux = 6.12.117
package = linux-source-6.12
version = 6.12.117-1~deb12u1
suite = bookworm-security
fetch = install
tarball = /usr/src/linux-source-6.12.tar.xz
sha256 = {SHA}
tree = build/linux-6.12
patches = backports/6.12
series = series/6.12
"""


class BasesTest(unittest.TestCase):
    def test_parse(self):
        t = bases.parse(MAIN + OLD)
        self.assertEqual(list(t), ['mainline', '6.12'])
        self.assertEqual(t['6.12'].commit_message,
                         'Linux 6.12.117 (Debian linux-source-6.12 6.12.117-1~deb12u1)')
        self.assertEqual(t['mainline'].commit_message,
                         'Linux 7.3-rc7 (Debian linux-source-7.3 7.3~rc7-1~exp1)')
        self.assertEqual(t['6.12'].deb_sha256, '')

    def test_shell_round_trip(self):
        """The assignments scripts/ eval give back every value, quoted."""
        b = bases.parse(MAIN)['mainline']
        out = subprocess.run(['sh', '-c', b.shell() + 'printf "%s|%s|%s" '
                              '"$base_version" "$base_commit_message" "${BASE_TARBALL-unset}"'],
                             capture_output=True, text=True, env={'PATH': os.environ['PATH']})
        self.assertEqual(out.stdout, '7.3~rc7-1~exp1|Linux 7.3-rc7 (Debian '
                         'linux-source-7.3 7.3~rc7-1~exp1)|unset')

    def test_bad_input(self):
        cases = [
            (MAIN.replace('fetch = download', 'fetch = wget'), 'fetch must be install or download'),
            (MAIN.replace(f'sha256 = {SHA}\n', 'sha256 = 12\n', 1), 'sha256 is not 64'),
            (MAIN.replace(f'deb_sha256 = {SHA}\n', ''), 'needs deb_sha256'),
            (MAIN.replace('suite = experimental\n', ''), 'missing suite'),
            (MAIN.replace('patches = patches', 'patches = backports/x'),
             'tree build/linux goes with patches = patches'),
            (OLD.replace('tree = build/linux-6.12', 'tree = build/six'),
             'must be build/linux-6.12 and backports/6.12'),
            (OLD.replace('series = series/6.12', 'series = ../x'), 'plain path'),
            (MAIN + 'colour = red\n', 'unknown key colour'),
            (MAIN.replace('tarball_env = BASE_TARBALL', 'tarball_env = 1x'), 'not a variable'),
            (MAIN + OLD.replace('series = series/6.12', 'series = series'),
             'share series'),
            ('', 'no bases'),
            ('[a b]\nlinux = 1\n', 'a base name is'),
        ]
        for text, msg in cases:
            with self.subTest(msg=msg), self.assertRaises(bases.BaseError) as e:
                bases.parse(text)
            self.assertIn(msg, str(e.exception))

    def test_lookup(self):
        with self.assertRaises(bases.BaseError) as e:
            bases.lookup(bases.parse(MAIN + OLD), '6.6')
        self.assertIn("unknown base '6.6' (known: mainline, 6.12)", str(e.exception))


class RepoBasesTest(unittest.TestCase):
    """configs/bases.ini and configs/variants.ini as they are in the repo."""

    def setUp(self):
        self.bases = bases.load(cli.BASES_INI)
        self.variants = variants.load(cli.VARIANTS_INI, list(self.bases))

    def test_pins(self):
        self.assertEqual(self.bases['mainline'].sha256,
                         'd958c61d44f5be4e6c874d860889e3f15a7f1d238c58458e91f685f79f721df1')
        self.assertEqual(self.bases['6.12'].sha256,
                         '585a4a074597aefa2b1a68ada83a3184ba351c127544dea80618bbcceaa3961f')

    def test_variant_bases(self):
        for v in self.variants.values():
            want = '6.12' if v.name.endswith('zone-cma') else 'mainline'
            self.assertEqual(v.base, want, v.name)

    def test_make_test_runs_every_base(self):
        """The backport cannot rot: make test boots a 6.12 variant."""
        self.assertTrue(self.variants['x86_64-zone-cma'].in_test)
        used = {v.base for v in self.variants.values() if v.in_test}
        self.assertEqual(used, set(self.bases))

    def test_unknown_base_is_named(self):
        with self.assertRaises(variants.VariantError) as e:
            variants.load(cli.VARIANTS_INI, ['mainline'])
        self.assertIn("unknown base '6.12'", str(e.exception))


if __name__ == '__main__':
    unittest.main()
