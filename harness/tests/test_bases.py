import os
import re
import subprocess
import unittest

from harness import arches, bases, paths, pipeline, variants

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
guest_fragments = sysctl
options_on = options-on
options_off = options-off
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
guest_fragments = proc-sysctl
options_on = options-on zone-cma
options_off = options-off zone-cma-off
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
        self.bases = bases.load(paths.BASES_INI)
        self.variants = variants.load(paths.VARIANTS_INI, self.bases)

    def test_pins(self):
        self.assertEqual(self.bases['mainline'].sha256,
                         'd958c61d44f5be4e6c874d860889e3f15a7f1d238c58458e91f685f79f721df1')
        self.assertEqual(self.bases['6.12'].sha256,
                         '585a4a074597aefa2b1a68ada83a3184ba351c127544dea80618bbcceaa3961f')

    def test_variant_bases(self):
        """On 6.12: the backport's variants (named -6.12) and ZONE_CMA on
        i386, which mainline's Kconfig refuses; everything else on mainline."""
        for v in self.variants.values():
            want = ('6.12' if v.name.endswith('-6.12') or
                    (v.arch.name == 'i386' and 'zone-cma' in v.fragments) else 'mainline')
            self.assertEqual(v.base, want, v.name)

    def test_make_test_runs_every_base(self):
        """The backport cannot rot: make test boots a 6.12 variant."""
        self.assertTrue(self.variants['x86_64-zone-cma-6.12'].in_test)
        used = {v.base for v in self.variants.values() if v.in_test}
        self.assertEqual(used, set(self.bases))

    def test_default_variant(self):
        """make run's default is the first variant, on mainline, in make
        test, and the one whose summary says (default)."""
        self.assertEqual(next(iter(self.variants)), variants.DEFAULT)
        v = self.variants[variants.DEFAULT]
        self.assertEqual((v.base, v.in_test), ('mainline', True))
        self.assertEqual([n for n, w in self.variants.items() if '(default)' in w.summary],
                         [variants.DEFAULT])
        with open(os.path.join(paths.ROOT, 'Makefile')) as f:
            self.assertEqual(re.findall(r'^V\s*\?=\s*(\S+)$', f.read(), re.M),
                             [variants.DEFAULT])

    def test_unknown_base_is_named(self):
        with self.assertRaises(variants.VariantError) as e:
            variants.load(paths.VARIANTS_INI, {'mainline': self.bases['mainline']})
        self.assertIn("unknown base '6.12'", str(e.exception))


class TreePerBaseTest(unittest.TestCase):
    """pipeline: a variant's kernel comes from its base's tree."""

    def setUp(self):
        self.bases = bases.parse(MAIN + OLD)

    def test_tree_of(self):
        from unittest import mock
        with mock.patch.object(pipeline.paths, 'TREE_OVERRIDE', None):
            self.assertEqual(pipeline.tree_of(self.bases['6.12']),
                             os.path.join(paths.ROOT, 'build', 'linux-6.12'))
            self.assertEqual(pipeline.tree_of(self.bases['mainline']),
                             os.path.join(paths.ROOT, 'build', 'linux'))

    def test_no_kselftests_says_why(self):
        import tempfile
        from unittest import mock
        from harness import build
        v = variants.Variant(name='v', summary='', arch=arches.ARCHES['x86_64'],
                             base='mainline', fragments=(), memory='1G', cpus=1,
                             cmdline='', tests='cma', boot_timeout=1, qemu_extra=(),
                             in_test=True)
        why = 'build/linux: the bare base, Linux 7.3-rc7: patches/ has no patches yet'
        with tempfile.TemporaryDirectory() as d, \
                mock.patch.object(pipeline.paths, 'TREE_OVERRIDE', d), \
                mock.patch.object(pipeline, 'ensure_tree', lambda b: why), \
                mock.patch.object(pipeline.printer, 'step', lambda m: None), \
                mock.patch.object(build, 'configure_variant', lambda *a, **k: None), \
                mock.patch.object(build, 'kernel', lambda *a: 'bzImage'), \
                self.assertRaises(build.BuildError) as e:
            pipeline.prepare_variant(v, os.path.join(d, 'log'), btable=self.bases)
        self.assertIn('no kselftests cma', str(e.exception))
        self.assertIn(why, str(e.exception))


class PipelineTest(unittest.TestCase):
    """run_variants: builds run ahead of boots, one of each at a time, and
    the results come back in the variants' order."""

    def test_order_and_overlap(self):
        import threading
        import time
        from unittest import mock
        from harness import build
        events, lock = [], threading.Lock()
        active = {'build': 0, 'boot': 0}

        def note(kind, name, delta):
            with lock:
                active[kind] += delta
                self.assertLessEqual(active[kind], 1, f'two {kind}s at once')
                events.append((kind, name, delta))

        def fake_build(v, tests, btable):
            note('build', v, 1)
            time.sleep(0.02)
            note('build', v, -1)
            return 'res-' + v, 'img-' + v

        def fake_boot(v, resdir, built, tests, kvm, timeout):
            note('boot', v, 1)
            time.sleep(0.05)
            note('boot', v, -1)
            return (resdir, built)

        with mock.patch.object(pipeline, 'build_variant', fake_build), \
                mock.patch.object(pipeline, 'boot_variant', fake_boot), \
                mock.patch.object(pipeline, 'ensure_tree', lambda b: ''), \
                mock.patch.object(build, 'NICE', 0):
            fake_vs = ['a', 'b', 'c']
            with mock.patch.object(bases, 'lookup', lambda t, n: n):
                got = pipeline.run_variants([_V(n) for n in fake_vs], {}, serial=False)
        self.assertEqual([g[1] for g in got], ['img-a', 'img-b', 'img-c'])
        # b's build started before a's boot ended: they overlapped.
        start_b = events.index(('build', 'b', 1))
        end_boot_a = events.index(('boot', 'a', -1))
        self.assertLess(start_b, end_boot_a)


class _V(str):
    """A stand-in variant: its name, with .base and .name."""
    base = 'mainline'

    @property
    def name(self):
        return str(self)


class EnsureTreeOnceTest(unittest.TestCase):
    def test_a_failed_set_up_is_not_retried(self):
        from unittest import mock
        from harness import build
        calls = []

        def fake_call(argv, env=None):
            calls.append(argv)
            return 1

        b = bases.parse(MAIN)['mainline']
        with mock.patch.object(pipeline, '_READY', {}), \
                mock.patch.object(pipeline.paths, 'TREE_OVERRIDE', None), \
                mock.patch.object(pipeline.subprocess, 'call', fake_call):
            for _ in range(2):
                with self.assertRaises(build.BuildError) as e:
                    pipeline.ensure_tree(b)
                self.assertIn('series.sh tree mainline exited 1', str(e.exception))
        self.assertEqual(len(calls), 1)


if __name__ == '__main__':
    unittest.main()
