"""badinput: the bad-input table loads, and rows are judged as they say."""
import os
import tempfile
import unittest

from harness import badinput, bases, console, paths, variants

CONSOLE = """\
[    0.000000] Linux version 7.3.0-rc7
[    0.010000] cma: Failed to reserve 2048 MiB on node -1
HARNESS: userspace up at 2.10 s, mode run
HARNESS: CmaTotal:              0 kB
HARNESS: cma areas: 
===HARNESS-KTAP-BEGIN===
TAP version 13
1..1
# selftests: cma: cma_debugfs
# 1..1
# ok 1 # SKIP no CMA area
ok 1 selftests: cma: cma_debugfs
===HARNESS-KTAP-END rc=0===
"""


class TableTest(unittest.TestCase):
    def test_repo_table_loads(self):
        btable = bases.load(paths.BASES_INI)
        table = variants.load(paths.VARIANTS_INI, btable)
        rows = badinput.load(table=table)
        self.assertGreater(len(rows), 10)
        self.assertEqual({r.kind for r in rows}, {'boot', 'command'})
        layouts = badinput.load(badinput.TABLES['layouts'], table)
        self.assertEqual({r.kind for r in layouts}, {'boot'})

    def load(self, text):
        with tempfile.NamedTemporaryFile('w', suffix='.ini', delete=False) as f:
            f.write(text)
        self.addCleanup(os.unlink, f.name)
        return badinput.load(f.name)

    def test_bad_rows(self):
        for body, msg in [('kind = reboot\nshows = s\nexpect = x\n', 'boot or command'),
                          ('kind = boot\nexpect = x\n', 'needs shows and expect'),
                          ('kind = command\nshows = s\nexpect = x\n', 'needs argv'),
                          ('kind = boot\nshows = s\nexpect = (\n', 'missing ),'),
                          ('kind = boot\nshows = s\nexpect = x\ncma_total_mib = 4\n',
                           'unknown key cma_total_mib'),
                          ('kind = boot\nshows = s\nexpect = x\ncma_total_kib = lots\n',
                           'invalid literal')]:
            with self.subTest(body=body), self.assertRaises(badinput.TableError) as e:
                self.load('[r]\n' + body)
            self.assertIn(msg, str(e.exception))


class JudgeTest(unittest.TestCase):
    def row(self, **kw):
        base = dict(name='r', kind='boot', shows='s', expect=())
        base.update(kw)
        return badinput.Row(**base)

    def judge(self, row, text=CONSOLE):
        s, _ = console.analyse('r', text, ['cma:cma_debugfs'], 0, 10)
        return badinput.judge_boot(row, text, s)

    def test_boot_row_passes(self):
        import re
        row = self.row(expect=(re.compile(r'cma: Failed to reserve 2048 MiB'),),
                       cma_total_kib=0)
        self.assertEqual(self.judge(row), [])

    def test_boot_row_failures(self):
        import re
        row = self.row(expect=(re.compile('Reserved 64 MiB'),), cma_total_kib=65536,
                       areas=('reserved',))
        self.assertEqual(self.judge(row),
                         ["no line matches 'Reserved 64 MiB'",
                          'CmaTotal 0 KiB, expected 65536 KiB',
                          'areas (none printed), expected reserved'])

    def test_splat_and_failed_test_fail_a_row(self):
        text = CONSOLE.replace('# ok 1 # SKIP no CMA area', '# not ok 1 alloc') \
            .replace('ok 1 selftests', 'not ok 1 selftests') + \
            '[    9.0] WARNING: CPU: 0 PID: 1 at mm/cma.c:1 f\n'
        why = self.judge(self.row(), text)
        self.assertIn('kernel splat: WARNING: CPU: 0 PID: 1 at mm/cma.c:1 f', why)
        self.assertIn('selftests: cma: cma_debugfs: alloc: fail', why)

    def test_command_rows_reject_a_crash(self):
        row = TableTest.load(self, '[r]\nkind = command\nargv = make x\nrc = 2\n'
                             'shows = s\nexpect = usage\n')[0]
        why = badinput.judge_command(row, 2, 'Traceback (most recent call last):\nusage\n')
        self.assertEqual(why, ["a line matches '^Traceback \\\\(most recent call last\\\\)'"])

    def test_command_row(self):
        import re
        row = self.row(kind='command', argv=('true',), rc=2,
                       expect=(re.compile('usage'),), reject=(re.compile('Traceback'),),
                       leaves=('harness',))
        self.assertEqual(badinput.judge_command(row, 1, 'Traceback\n'),
                         ['exit status 1, expected 2', "no line matches 'usage'",
                          "a line matches 'Traceback'", 'harness exists afterwards'])


if __name__ == '__main__':
    unittest.main()
