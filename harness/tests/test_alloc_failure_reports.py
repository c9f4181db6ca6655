"""scripts/alloc-failure-reports.py on a real report: kswapd's failed swap-table
allocation in an `atomic` boot of the series with ZONE_CMA (its console
log, kept as test data)."""
import importlib.util
import os
import unittest

from harness import paths

DATA = os.path.join(os.path.dirname(__file__), 'data',
                    'console-bench-atomic-zone-cma-allocfail.log')


def load_script():
    spec = importlib.util.spec_from_file_location(
        'alloc_failure_reports',
        os.path.join(paths.ROOT, 'scripts', 'alloc-failure-reports.py'))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class RealReportTest(unittest.TestCase):
    def setUp(self):
        self.afr = load_script()
        self.found = self.afr.reports(DATA)

    def test_one_report_with_caller_and_zone(self):
        self.assertEqual(len(self.found), 1)
        line, dma32, _ = self.found[0]
        self.assertIn('kswapd0 order 0', line)
        self.assertIn('from swap_cluster_alloc_table', line)
        # DMA32: 44 kB on the buddy lists, 8,560 per-cpu, min 13,104 (boost 9,072)
        self.assertEqual(dma32, (44, 8560, 13104, 9072))

    def test_node_wide_free_memory(self):
        line, _, node = self.found[0]
        # free:589 free_pcp:2140 free_cma:578, 262014 pages RAM
        share, cma_share = node
        self.assertAlmostEqual(share, (589 + 2140) / 262014)
        self.assertAlmostEqual(cma_share, 578 / 589)
        self.assertIn('(1.0% of RAM), CMA 578 (98% of the buddy free)', line)

    def test_summaries(self):
        self.assertIn('buddy under half its min in 1, per-cpu lists would '
                      'cover the gap in 1',
                      self.afr.dma32_summary([self.found[0][1]]))
        self.assertEqual(self.afr.free_summary([self.found[0][2]]),
                         'free memory in 1 report(s): buddy and per-cpu together '
                         '1.0%-1.0% of RAM; CMA pages 98%-98% of the buddy free')

    def test_cma_share_at_most_all(self):
        # free_cma read above free: the counters disagree, all is CMA
        self.assertEqual(self.afr.free_share((557, 4094, 559), 262014)[2], 1.0)

    def test_report_without_node_line(self):
        self.assertEqual(self.afr.free_share(None, 262014), ())
        self.assertIn('no report', self.afr.free_summary([]))


if __name__ == '__main__':
    unittest.main()
