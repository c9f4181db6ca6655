import os
import tempfile
import unittest

from harness import checks, paths

TERSE = """\
0002-x.patch:61: WARNING: added, moved or deleted file(s), does MAINTAINERS need updating?
0002-x.patch:111: CHECK: Alignment should match open parenthesis
total: 0 errors, 1 warnings, 1 checks, 279 lines checked
"""


class CheckpatchTest(unittest.TestCase):
    def test_messages_and_total(self):
        self.assertEqual(checks.parse_checkpatch(TERSE), (0, 1, 1))
        self.assertEqual([t for t, _ in checks.messages(TERSE)], ['WARNING', 'CHECK'])

    def test_allowlist(self):
        with tempfile.NamedTemporaryFile('w', delete=False) as f:
            f.write('# comment\n0002-*.patch | does MAINTAINERS need updating? | reason\n')
        try:
            allow = checks.load_allowlist(f.name)
        finally:
            os.unlink(f.name)
        msgs = checks.messages(TERSE)
        self.assertTrue(checks.allowed('0002-x.patch', msgs[0][1], allow))
        self.assertFalse(checks.allowed('0003-y.patch', msgs[0][1], allow))
        self.assertFalse(checks.allowed('0002-x.patch', msgs[1][1], allow))

    def test_malformed_allowlist(self):
        with tempfile.NamedTemporaryFile('w', delete=False) as f:
            f.write('0002-*.patch | no reason\n')
        try:
            with self.assertRaises(ValueError):
                checks.load_allowlist(f.name)
        finally:
            os.unlink(f.name)

    def test_repo_allowlist_is_well_formed(self):
        for glob, msg, why in checks.load_allowlist(paths.CHECKPATCH_ALLOW):
            self.assertTrue(why)


if __name__ == '__main__':
    unittest.main()
