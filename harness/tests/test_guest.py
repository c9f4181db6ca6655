"""The guest's timeout wrapper (harness/guest/timeout)."""
import os
import subprocess
import unittest

from harness import build


class GuestTimeoutTest(unittest.TestCase):
    """The guest's timeout wrapper, run with BusyBox sh as in the guest."""
    script = os.path.join(build.GUEST, 'timeout')

    def run_timeout(self, *args):
        sh = ['busybox', 'sh'] if subprocess.call(
            ['sh', '-c', 'command -v busybox'], stdout=subprocess.DEVNULL) == 0 else ['sh']
        return subprocess.run(sh + [self.script, *args], capture_output=True,
                              timeout=30).returncode

    def test_expiry_is_124_with_foreground(self):
        self.assertEqual(self.run_timeout('--foreground', '1', 'sleep', '5'), 124)

    def test_exit_status_passes_through(self):
        self.assertEqual(self.run_timeout('5', 'sh', '-c', 'exit 3'), 3)

    def test_nested_like_runner_sh(self):
        self.assertEqual(self.run_timeout('--foreground', '1', self.script,
                                          '1', 'sleep', '5'), 124)

    def test_ignoring_term_is_killed(self):
        self.assertEqual(self.run_timeout('-k', '1', '1', 'sh', '-c',
                                          'trap "" TERM; sleep 5'), 124)

    def test_bad_usage(self):
        self.assertEqual(self.run_timeout('--bogus', '1', 'true'), 125)
        self.assertEqual(self.run_timeout('abc', 'true'), 125)


if __name__ == '__main__':
    unittest.main()
