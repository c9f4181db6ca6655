import os
import tempfile
import unittest
from unittest import mock

from harness import arches, bases, build, variants


def _variant(arch):
    return variants.Variant(name=arch, summary='', arch=arches.ARCHES[arch],
                            base='mainline', fragments=(), memory='1G', cpus=1, cmdline='',
                            tests='cma', boot_timeout=1, qemu_extra=(),
                            in_test=True)


class KselftestsArgsTest(unittest.TestCase):
    """The make command line of build.kselftests(), per arch."""

    def argv(self, arch):
        seen = []

        def fake_run(argv, log, what):
            seen.append(argv)
            dest = [a for a in argv if a.startswith('INSTALL_PATH=')][0]
            dest = dest.split('=', 1)[1]
            os.makedirs(dest)
            open(os.path.join(dest, 'run_kselftest.sh'), 'w').close()

        with tempfile.TemporaryDirectory() as out, \
                mock.patch.object(build, '_run', fake_run):
            build.kselftests(_variant(arch), '/tree', out, os.devnull)
        return seen[0]

    def test_i386_builds_static_m32(self):
        argv = self.argv('i386')
        self.assertIn('ARCH=i386', argv)
        self.assertIn('USERCFLAGS=-m32', argv)
        self.assertIn('USERLDFLAGS=-static -m32', argv)

    def test_x86_64_and_arm64_static_only(self):
        for arch in ('x86_64', 'arm64'):
            argv = self.argv(arch)
            self.assertIn('USERLDFLAGS=-static', argv)
            self.assertFalse([a for a in argv if a.startswith('USERCFLAGS=')])
        self.assertIn('CROSS_COMPILE=aarch64-linux-gnu-', argv)


class InitramfsTest(unittest.TestCase):
    """build.initramfs(): what the guest gets."""

    def test_extra_files_are_executable(self):
        import subprocess
        with tempfile.TemporaryDirectory() as d:
            busybox = os.path.join(d, 'busybox')
            script = os.path.join(d, 'workload.sh')
            for p in (busybox, script):
                with open(p, 'w') as f:
                    f.write('#!/bin/sh\n')
                os.chmod(p, 0o644)
            dest = os.path.join(d, 'initramfs.cpio.gz')
            build.initramfs(_variant('x86_64'), None, busybox, dest,
                            extra_files=[(script, '/bench/workload')])
            listing = subprocess.run(f'gzip -dc {dest} | cpio -itv --quiet', shell=True,
                                     capture_output=True, text=True, check=True).stdout
        line = [x for x in listing.splitlines() if x.endswith('bench/workload')][0]
        self.assertTrue(line.startswith('-rwxr-xr-x'), line)


class VariantTableTest(unittest.TestCase):
    def test_i386_highmem_variant(self):
        root = os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__))))
        table = variants.load(os.path.join(root, 'configs', 'variants.ini'),
                              bases.load(os.path.join(root, 'configs', 'bases.ini')))
        v = table['i386-highmem']
        self.assertEqual(v.arch.name, 'i386')
        self.assertEqual(v.arch.busybox_deb_arch, 'i386')
        # Out of make test for CI's time limit (configs/variants.ini).
        self.assertFalse(v.in_test)
        for path in v.fragment_paths(os.path.join(root, 'configs')):
            self.assertTrue(os.path.exists(path), path)


class MismatchMessageTest(unittest.TestCase):
    def test_names_variant_base_and_tree(self):
        msg = build.mismatch_message(_variant('arm64'), 'Linux 7.3-rc7', 'build/linux',
                                     [('CONFIG_CMA_CONCURRENT_ALLOC', 'y', 'n')])
        self.assertTrue(msg.startswith('variant arm64 on base mainline (Linux 7.3-rc7, '
                                       'build/linux): Kconfig symbols'), msg)
        self.assertIn('CONFIG_CMA_CONCURRENT_ALLOC: fragment sets y, .config has n', msg)


class SelectTest(unittest.TestCase):
    entries = ['cma:cma_debugfs', 'cma:cma_stress', 'mm:cow']

    def test_collection(self):
        self.assertEqual(build.select_tests(self.entries, 'cma'),
                         ['cma:cma_debugfs', 'cma:cma_stress'])

    def test_single(self):
        self.assertEqual(build.select_tests(self.entries, 'cma:cma_stress'),
                         ['cma:cma_stress'])

    def test_unknown_lists_available(self):
        with self.assertRaises(build.BuildError) as e:
            build.select_tests(self.entries, 'cma:nope')
        self.assertIn('cma:cma_debugfs', str(e.exception))
