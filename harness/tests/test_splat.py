import os
import unittest

from harness import splat

WARN = """\
[    5.123456] ------------[ cut here ]------------
[    5.123457] WARNING: CPU: 1 PID: 77 at mm/cma.c:460 __cma_alloc+0x1/0x2
[    5.123458] Modules linked in:
[    5.123459] Call Trace:
[    5.123460]  <TASK>
"""


class SplatTest(unittest.TestCase):
    def kinds(self, text):
        return [k for k, _ in splat.find(text.splitlines())]

    def test_warning_reported_once(self):
        found = splat.find(WARN.splitlines())
        self.assertEqual(found, [('WARNING', 'WARNING: CPU: 1 PID: 77 at '
                                  'mm/cma.c:460 __cma_alloc+0x1/0x2')])

    def test_each_kind(self):
        for line, kind in [
            ('BUG: kernel NULL pointer dereference, address: 0', 'BUG'),
            ('kernel BUG at mm/page_alloc.c:100!', 'BUG'),
            ('Oops: 0000 [#1] PREEMPT SMP', 'Oops'),
            ('Internal error: Oops: 96000004 [#1] SMP', 'Oops'),
            ('BUG: Bad page state in process init  pfn:1234', 'BUG'),
            ('Bad page map in process x', 'Bad page state'),
            ('WARNING: possible circular locking dependency detected', 'WARNING'),
            ('DEBUG_LOCKS_WARN_ON(1)', 'lockdep'),
            ('rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:', 'RCU stall'),
            ('INFO: task kworker/0:1:12 blocked for more than 120 seconds.', 'hung task'),
            ('Kernel panic - not syncing: Attempted to kill init!', 'panic'),
            ('BUG: KASAN: slab-use-after-free in cma_alloc+0x1/0x2', 'BUG'),
            ('kmemleak: 1 new suspected memory leaks (see /sys/kernel/debug/kmemleak)',
             'kmemleak'),
            ('kmemleak: Kernel memory leak detector disabled', 'kmemleak'),
        ]:
            with self.subTest(line=line):
                self.assertEqual(self.kinds(f'[    1.000000] {line}\n'), [kind])

    def test_kmemleak_report_file(self):
        # What the guest's cat of /sys/kernel/debug/kmemleak prints: no
        # timestamp, one "unreferenced object" per leak.
        text = ('unreferenced object 0xffff888004a1c000 (size 64):\n'
                '  comm "cma_debugfs", pid 80, jiffies 4294912345\n'
                '  backtrace (crc 0):\n'
                '    kmemleak_alloc+0x1/0x2\n')
        self.assertEqual(splat.find(text.splitlines()),
                         [('kmemleak', 'unreferenced object 0xffff888004a1c000 (size 64):')])
        self.assertEqual(self.kinds('unreferenced object (percpu) 0x6032ce60 (size 8):\n'),
                         ['kmemleak'])

    def test_allocation_failure_and_oom_kill(self):
        # 7.3-rc7 in bench atomic (1 GiB, cma=512M): a slab allocation for
        # swap fails while free memory is CMA, then the OOM killer runs.
        # Each report is named by its own first line, not "Call Trace:".
        path = os.path.join(os.path.dirname(__file__), 'data',
                            'console-bench-atomic-allocfail.log')
        with open(path) as f:
            found = splat.find(f.read().splitlines())
        self.assertEqual([k for k, _ in found], ['allocation failure', 'OOM kill'])
        self.assertTrue(found[0][1].startswith('cut: page allocation failure: order:0, '))
        self.assertTrue(found[1][1].startswith('churn invoked oom-killer: '))

    def test_kswapd_swap_table_failure(self):
        # The series with ZONE_CMA in bench utilization-1g (2026-12-03,
        # zone-cma-512 run 3): kswapd fails the same swap-table allocation
        # with DMA32 under its min watermark and 3 MiB free in ZONE_CMA.
        path = os.path.join(os.path.dirname(__file__), 'data',
                            'console-bench-utilization-1g-kswapd-allocfail.log')
        with open(path) as f:
            found = splat.find(f.read().splitlines())
        self.assertEqual([k for k, _ in found], ['allocation failure'])
        self.assertTrue(found[0][1].startswith('kswapd0: page allocation failure: order:0, '))

    def test_bare_call_trace_counts(self):
        self.assertEqual(self.kinds('[ 1.0] Call trace:\n'), ['Call Trace'])

    def test_clean_boot(self):
        text = ('[    0.000000] Linux version 6.12.117\n'
                '[    0.100000] cma: Reserved 64 MiB at 0x000000003c000000\n'
                'ok 1 selftests: cma: cma_debugfs\n')
        self.assertEqual(splat.find(text.splitlines()), [])

    def test_duplicates_collapsed(self):
        text = '[ 1.0] BUG: Bad page state in process a\n' * 2
        self.assertEqual(len(splat.find(text.splitlines())), 1)


if __name__ == '__main__':
    unittest.main()
