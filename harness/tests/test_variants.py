"""variants: configs/variants.ini and a variant's test arguments."""
import os
import unittest

from harness.tests.util import load_text
from harness import bases, paths, variants

BTABLE = bases.load(paths.BASES_INI)


def load_variants(text):
    """The variants of ini @text; base b is mainline."""
    btable = dict(BTABLE, b=BTABLE['mainline'])
    return load_text(lambda p: variants.load(p, btable), text)


class VariantsTest(unittest.TestCase):
    def load(self, text):
        return load_variants(text)

    def test_repo_table_loads(self):
        table = variants.load(paths.VARIANTS_INI, BTABLE)
        self.assertIn('x86_64', table)
        self.assertIn('arm64', table)
        for v in table.values():
            for p in v.fragment_paths(paths.CONFIGS):
                self.assertTrue(os.path.exists(p), p)

    def test_unknown_variant_lists_valid_ones(self):
        table = self.load('[a]\nsummary = s\narch = x86_64\nfragments = common\nbase = mainline\n')
        with self.assertRaises(variants.VariantError) as e:
            variants.lookup(table, 'b')
        self.assertIn("unknown variant 'b'", str(e.exception))
        self.assertIn('  a  base mainline  s', str(e.exception))

    def test_bad_values(self):
        for body, msg in [('summary = s\nfragments = c\nbase = b\n', 'missing arch'),
                          ('summary = s\narch = x86_64\nfragments = c\n', 'missing base'),
                          ('summary = s\narch = mips\nfragments = c\nbase = b\n',
                           'unknown arch'),
                          ('summary = s\narch = arm64\nfragments = c\nbase = b\n'
                           'cpus = two\n', 'invalid literal'),
                          ('summary = s\narch = arm64\nfragments = c\nbase = b\n'
                           'in_debug = maybe\n', "in_debug = 'maybe' is not yes or no")]:
            with self.subTest(body=body), self.assertRaises(variants.VariantError) as e:
                self.load('[v]\n' + body)
            self.assertIn(msg, str(e.exception))


class TestArgsTest(unittest.TestCase):
    def test_parse_and_command_line(self):
        from harness import qemu
        t = load_variants('[v]\nsummary = s\narch = x86_64\n'
                              'fragments = c\nbase = b\ntest_args = cma_stress=-t,32\n')
        self.assertEqual(t['v'].test_args, (('cma_stress', '-t,32'),))
        argv = qemu.command(t['v'], 'k', 'i')
        self.assertIn('harness.args.cma_stress=-t,32', argv[argv.index('-append') + 1])

    def test_earlycon_on_the_console_port(self):
        # A kernel that stops before its console registers must still
        # reach the log: every booted arch passes earlycon= for its port.
        from harness import qemu
        for arch, port in (('x86_64', 'uart8250,io,0x3f8'), ('i386', 'uart8250,io,0x3f8'),
                           ('arm64', 'pl011,0x9000000')):
            t = load_variants(f'[v]\nsummary = s\narch = {arch}\nfragments = c\nbase = b\n')
            argv = qemu.command(t['v'], 'k', 'i')
            self.assertIn(f'earlycon={port}', argv[argv.index('-append') + 1])

    def test_bad_item(self):
        with self.assertRaises(variants.VariantError) as e:
            load_variants('[v]\nsummary = s\narch = x86_64\n'
                              'fragments = c\nbase = b\ntest_args = cma_stress\n')
        self.assertIn("'cma_stress' is not <test>=<arg>", str(e.exception))


if __name__ == '__main__':
    unittest.main()
