"""bench/profile/insn-profile.py on excerpts of real profiles: the 64 MiB
fault loop (`faults 64 2` and `faults 64 4`, cma=64M) on 7.3-rc7 and on the
series with ZONE_CMA, cut to five functions and their System.map lines."""
import os
import subprocess
import sys
import unittest

from harness import paths

DATA = os.path.join(paths.ROOT, 'harness', 'tests', 'data', 'insn-profile')
TOOL = os.path.join(paths.ROOT, 'bench', 'profile', 'insn-profile.py')


def spec(name, stem):
    return (f'{name}:{os.path.join(DATA, stem + ".System.map")}:'
            f'{os.path.join(DATA, stem + "-2")}:{os.path.join(DATA, stem + "-4")}')


def compare(*specs):
    return subprocess.run([sys.executable, TOOL, 'compare', *specs],
                          capture_output=True, text=True)


class InsnProfileTest(unittest.TestCase):
    def test_compare_finds_the_buddy_traffic(self):
        out = compare(spec('base', 'base'), spec('zone-cma', 'zc'))
        self.assertEqual(out.returncode, 0, out.stderr)
        lines = out.stdout.splitlines()
        self.assertIn('## zone-cma against base: guest instructions per fault',
                      lines)
        rows = [line for line in lines if line.startswith('| `')]
        # Sorted by the size of the difference, largest first.
        self.assertEqual(rows[0], '| `__free_one_page` | 1.4 | 72.6 | +71.2 |')
        self.assertIn('| `gfp_zone` | 0.0 | 9.0 | +9.0 |', rows)
        # Zeroing the page costs the same in both kernels.
        self.assertIn('| `clear_highpages_kasan_tagged` | 4116.8 | 4116.4 | -0.4 |',
                      rows)
        self.assertIn('total: 4197 -> 4383 (1.044x, +185)', lines)

    def test_bad_input(self):
        for args, msg in [
            ((spec('base', 'base'),), 'at least two'),
            ((spec('base', 'base'), 'zone-cma:nothing'), 'NAME:MAP:SHORT:LONG'),
            # Short and long swapped: the long run did less work.
            ((spec('base', 'base'),
              f'x:{os.path.join(DATA, "zc.System.map")}:'
              f'{os.path.join(DATA, "zc-4")}:{os.path.join(DATA, "zc-2")}'),
             'did no more faults'),
        ]:
            with self.subTest(msg=msg):
                out = compare(*args)
                self.assertNotEqual(out.returncode, 0)
                self.assertIn(msg, out.stderr)
        out = subprocess.run([sys.executable, TOOL, 'compare', '--unit', 'allocs',
                              spec('base', 'base'), spec('zone-cma', 'zc')],
                             capture_output=True, text=True)
        self.assertIn('no "BENCH allocs=" line', out.stderr)


if __name__ == '__main__':
    unittest.main()
