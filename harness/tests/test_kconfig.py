import unittest

from harness import kconfig


class KconfigTest(unittest.TestCase):
    def test_parse(self):
        v = kconfig.parse('CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C="x y"\n'
                          'CONFIG_D=0x10\n# comment\n')
        self.assertEqual(v, {'CONFIG_A': 'y', 'CONFIG_B': 'n',
                             'CONFIG_C': '"x y"', 'CONFIG_D': '0x10'})

    def test_later_fragment_wins(self):
        m = kconfig.merge(['CONFIG_A=y\n', '# CONFIG_A is not set\n'])
        self.assertEqual(m, {'CONFIG_A': 'n'})

    def test_verify_names_fallen_out_symbols(self):
        wanted = kconfig.merge(['CONFIG_CMA=y\nCONFIG_ZONE_CMA=y\n'
                                '# CONFIG_X is not set\nCONFIG_N=5\n'])
        final = kconfig.parse('CONFIG_CMA=y\nCONFIG_N=7\n')
        bad = kconfig.verify(wanted, final)
        self.assertEqual(bad, [('CONFIG_ZONE_CMA', 'y', 'n'),
                               ('CONFIG_N', '5', '7')])
        self.assertIn('CONFIG_ZONE_CMA: fragment sets y, .config has n',
                      kconfig.format_mismatches(bad))

    def test_verify_clean(self):
        self.assertEqual(kconfig.verify({'CONFIG_A': 'y'},
                                        {'CONFIG_A': 'y'}), [])


if __name__ == '__main__':
    unittest.main()
