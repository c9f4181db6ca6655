import contextlib
import io
import os
import re
import subprocess
import tempfile
import unittest
from unittest import mock

from harness import arches, bases, cli, matrix, paths, pipeline, results, variants
from harness.tests.util import LTS_BASE as LTS, MAINLINE_BASE as MAIN, SHA, write_bases


class BasesTest(unittest.TestCase):
    def test_parse(self):
        t = bases.parse(MAIN + LTS)
        self.assertEqual(list(t), ['mainline', 'lts'])
        self.assertEqual(t['lts'].commit_message,
                         'Linux 6.6.90 (Debian linux-source-6.6 6.6.90-1)')
        self.assertEqual(t['mainline'].commit_message,
                         'Linux 7.3-rc7 (Debian linux-source-7.3 7.3~rc7-1~exp1)')
        self.assertEqual(t['lts'].deb_sha256, '')

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
            (LTS.replace('tree = build/linux-lts', 'tree = build/six'),
             'must be build/linux-lts and backports/lts'),
            (LTS.replace('series = series/lts', 'series = ../x'), 'plain path'),
            (MAIN + 'colour = red\n', 'unknown key colour'),
            (MAIN.replace('tarball_env = BASE_TARBALL', 'tarball_env = 1x'), 'not a variable'),
            (MAIN + LTS.replace('series = series/lts', 'series = series'),
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
            bases.lookup(bases.parse(MAIN + LTS), '5.15')
        self.assertIn("unknown base '5.15' (known: mainline, lts)", str(e.exception))


class RepoBasesTest(unittest.TestCase):
    """configs/bases.ini and configs/variants.ini as they are in the repo."""

    def setUp(self):
        self.bases = bases.load(paths.BASES_INI)
        self.variants = variants.load(paths.VARIANTS_INI, self.bases)

    def test_pins(self):
        self.assertEqual(self.bases['mainline'].sha256,
                         'd958c61d44f5be4e6c874d860889e3f15a7f1d238c58458e91f685f79f721df1')

    def test_variant_bases(self):
        """A variant of another base than mainline is named -<base> (a
        backport's x86_64-zone-cma-<base>); every other one is on mainline."""
        others = [b for b in self.bases if b != 'mainline']
        for v in self.variants.values():
            want = next((b for b in others if v.name.endswith('-' + b)), 'mainline')
            self.assertEqual(v.base, want, v.name)

    def test_make_test_runs_every_base(self):
        """No base's series can rot: make test boots a variant of each."""
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


# A variant and a matrix entry of each of the two bases of util.write_bases.
SEVERAL_VARIANTS = """[v]
summary = on mainline
base = mainline
arch = x86_64
fragments = hotplug

[v-lts]
summary = on lts
base = lts
arch = x86_64
fragments = hotplug
in_test = no
"""
SEVERAL_MATRIX = """[every-base]
arch = x86_64
options = on

[lts-only]
arch = x86_64
bases = lts
options = off
"""


class SeveralBasesTest(unittest.TestCase):
    """Two bases, as configs/bases.ini may hold again (a regenerated
    backport): a fixture bases.ini, since the repository's has mainline
    only. Each variant and matrix entry gets its own base's tree and
    fragments, and what reads bases.ini names both."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = self.tmp.name
        self.bases_ini = write_bases(d)
        self.variants_ini = os.path.join(d, 'variants.ini')
        self.matrix_ini = os.path.join(d, 'matrix.ini')
        for path, text in ((self.variants_ini, SEVERAL_VARIANTS),
                           (self.matrix_ini, SEVERAL_MATRIX)):
            with open(path, 'w') as f:
                f.write(text)
        self.btable = bases.load(self.bases_ini)

    def tearDown(self):
        self.tmp.cleanup()

    def test_variants_build_their_base(self):
        t = variants.load(self.variants_ini, self.btable)
        self.assertEqual([(v.name, v.base) for v in t.values()],
                         [('v', 'mainline'), ('v-lts', 'lts')])
        # Each boots with its own base's guest fragments, not the other's.
        self.assertIn('sysctl', t['v'].fragments)
        self.assertNotIn('proc-sysctl', t['v'].fragments)
        self.assertIn('proc-sysctl', t['v-lts'].fragments)
        self.assertNotIn('sysctl', t['v-lts'].fragments)
        with mock.patch.object(pipeline.paths, 'TREE_OVERRIDE', None):
            trees = {n: pipeline.tree_of(self.btable[v.base]) for n, v in t.items()}
            folders = {n: pipeline.patches_of(self.btable[v.base]) for n, v in t.items()}
        self.assertEqual(trees, {'v': os.path.join(paths.ROOT, 'build', 'linux'),
                                 'v-lts': os.path.join(paths.ROOT, 'build', 'linux-lts')})
        self.assertEqual(folders, {'v': os.path.join(paths.ROOT, 'patches'),
                                   'v-lts': os.path.join(paths.ROOT, 'backports', 'lts')})

    def test_unknown_base_is_named(self):
        with self.assertRaises(variants.VariantError) as e:
            variants.load(self.variants_ini, {'mainline': self.btable['mainline']})
        self.assertIn("variant v-lts: unknown base 'lts'", str(e.exception))

    def test_matrix_entries_per_base(self):
        entries = {e.name: e for e in matrix.load(self.matrix_ini, list(self.btable))}
        applies = {(n, b.name) for n, e in entries.items() for b in self.btable.values()
                   if e.applies_to(b)}
        self.assertEqual(applies, {('every-base', 'mainline'), ('every-base', 'lts'),
                                   ('lts-only', 'lts')})
        # options = on: each base's own options_on.
        every = entries['every-base']
        self.assertIn('zone-cma', every.fragments(self.btable['lts']))
        self.assertNotIn('zone-cma', every.fragments(self.btable['mainline']))
        with self.assertRaises(matrix.MatrixError) as e:
            matrix.load(self.matrix_ini, ['mainline'])
        self.assertIn('unknown base lts', str(e.exception))

    def test_commands_name_every_base(self):
        """make tree loops over `bases --names`, scripts/ eval `bases
        --shell BASE`, make variants shows each variant's base."""
        def run(*argv):
            with contextlib.redirect_stdout(io.StringIO()) as out, \
                    contextlib.redirect_stderr(io.StringIO()) as err:
                rc = cli.main(list(argv))
            return rc, out.getvalue() + err.getvalue()

        with mock.patch.object(paths, 'BASES_INI', self.bases_ini), \
                mock.patch.object(paths, 'VARIANTS_INI', self.variants_ini):
            self.assertEqual(run('bases', '--names'), (0, 'mainline\nlts\n'))
            rc, out = run('bases', '--shell', 'lts')
            self.assertEqual(rc, 0)
            for line in ("base_tree=build/linux-lts", "base_patches=backports/lts",
                         "base_series=series/lts", "base_guest_fragments=proc-sysctl"):
                self.assertIn(line + '\n', out)
            rc, out = run('bases')
            self.assertIn('tree build/linux-lts, patches backports/lts/', out)
            rc, out = run('variants')
            self.assertRegex(out, r'v-lts +base lts ')
            self.assertEqual(run('variants', '--base-of', 'v-lts'), (0, 'lts\n'))
            self.assertEqual(run('bases', '--shell', '5.15')[0], 2)

    def test_checkpatch_and_audit_on_every_base(self):
        """make test checks the patch folder of each base; the audit only
        where the base's series folder has a reviewed list."""
        seen = []

        def fake_checkpatch(tree, pdir, allow, codespell=False):
            seen.append((os.path.relpath(tree, paths.ROOT), os.path.relpath(pdir, paths.ROOT)))
            return results.Summary('checkpatch', [], [])

        with mock.patch.object(pipeline, 'ensure_tree', lambda b: ''), \
                mock.patch.object(pipeline.paths, 'TREE_OVERRIDE', None), \
                mock.patch.object(pipeline.checks, 'checkpatch', fake_checkpatch):
            got = [s.variant for s in pipeline.checkpatch_all(self.btable)]
            self.assertEqual(got, ['checkpatch:mainline', 'checkpatch:lts'])
            self.assertEqual(seen, [('build/linux', 'patches'),
                                    ('build/linux-lts', 'backports/lts')])
            got = [s.variant for s in pipeline.checkpatch_all(self.btable, 'lts')]
            self.assertEqual(got, ['checkpatch:lts'])
            with mock.patch.object(pipeline.zoneaudit, 'audit',
                                   lambda tree, sdir: None if sdir.endswith('/lts') else
                                   results.Summary('zone-movable', [], [])):
                got = [s.variant for s in pipeline.zone_movable_all(self.btable)]
            self.assertEqual(got, ['zone-movable:mainline'])


class TreePerBaseTest(unittest.TestCase):
    """pipeline: a variant's kernel comes from its base's tree."""

    def setUp(self):
        self.bases = bases.parse(MAIN + LTS)

    def test_tree_of(self):
        from unittest import mock
        with mock.patch.object(pipeline.paths, 'TREE_OVERRIDE', None):
            self.assertEqual(pipeline.tree_of(self.bases['lts']),
                             os.path.join(paths.ROOT, 'build', 'linux-lts'))
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
