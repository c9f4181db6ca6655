"""soak: rounds, and the verdict on one kernel's soak."""
import os
import unittest

from harness import bases, paths, soak

LOG = """\
HARNESS: userspace up at 2.0 s, mode bench
===HARNESS-BENCH-BEGIN===
STATE before MemFree=500000 CmaFree=260000 used=0 held=0
SOAK t=31 allocs_per_s=812.5 failed=0
SOAK t=62 allocs_per_s=790.0 failed=0
STATE after MemFree=499000 CmaFree=259000 used=0 held=0
BENCH failed=0
BENCH rounds=2
BENCH allocs_per_s=801.2
BENCH cmafree_drift_kb=-1000
BENCH memfree_drift_kb=-1000
BENCH pcp_drift_kb=0
BENCH leftover_pages=0
BENCH noresult=0
BENCH used_pages=0
BENCH unbalanced_pages=0
BENCH exit_status=0
===HARNESS-BENCH-END===
"""


class SoakTest(unittest.TestCase):
    def test_rounds(self):
        self.assertEqual(soak.rounds(LOG), [(31, 812.5, 0), (62, 790.0, 0)])

    def test_clean_soak_passes(self):
        cases = soak.judge('k', LOG)
        self.assertEqual([c.status for c in cases], ['pass'] * 7, cases)

    def test_losses_fail(self):
        text = (LOG.replace('BENCH failed=0', 'BENCH failed=3')
                .replace('BENCH leftover_pages=0', 'BENCH leftover_pages=8')
                .replace('BENCH used_pages=0', 'BENCH used_pages=8')
                .replace('BENCH unbalanced_pages=0', 'BENCH unbalanced_pages=8')
                .replace('BENCH memfree_drift_kb=-1000', 'BENCH memfree_drift_kb=-90000'))
        failed = {c.name: c.reason for c in soak.judge('k', text) if c.status == 'fail'}
        self.assertEqual(failed, {
            'k: no failed allocation, every round ran':
                '3 failed; 2 rounds, 0 without a result, 801.2 allocations/s',
            'k: nothing left held': '8 pages still allocated through debugfs after '
                                    'the last round',
            'k: areas empty': 'debugfs used moved by 8 pages',
            'k: counters balance': 'alloc_pages_success - release_pages_success '
                                   'moved by 8 pages',
            'k: MemFree back': 'MemFree and the per-cpu lists together moved -90000 KiB '
                               '(slack 8192)'})

    def test_pages_parked_on_per_cpu_lists_are_not_lost(self):
        # The 1-minute soak of 2026-12-02 without ZONE_CMA: MemFree -44,316
        # KiB, per-cpu lists +44,056, CmaFree -17,564.
        text = (LOG.replace('BENCH memfree_drift_kb=-1000', 'BENCH memfree_drift_kb=-44316')
                .replace('BENCH pcp_drift_kb=0', 'BENCH pcp_drift_kb=44056')
                .replace('BENCH cmafree_drift_kb=-1000', 'BENCH cmafree_drift_kb=-17564'))
        self.assertEqual([c.status for c in soak.judge('k', text)], ['pass'] * 7)
        lost = text.replace('BENCH pcp_drift_kb=44056', 'BENCH pcp_drift_kb=4056')
        failed = [c.name for c in soak.judge('k', lost) if c.status == 'fail']
        self.assertEqual(failed, ['k: CmaFree back', 'k: MemFree back'])

    def test_rounds_without_results_fail(self):
        for old, new in [('BENCH noresult=0', 'BENCH noresult=1'),
                         ('BENCH allocs_per_s=801.2', 'BENCH allocs_per_s=0.0'),
                         ('BENCH rounds=2', 'BENCH rounds=0')]:
            with self.subTest(new=new):
                cases = soak.judge('k', LOG.replace(old, new))
                self.assertEqual(cases[1].status, 'fail')

    def test_fault_run_expects_injections(self):
        cases = soak.judge('k', LOG.replace('BENCH failed=0', 'BENCH failed=7\nBENCH injected=0'),
                           faults=True)
        self.assertEqual(cases[1].name, 'k: faults injected, every round ran')
        self.assertEqual(cases[1].status, 'fail')
        text = LOG.replace('BENCH failed=0', 'BENCH failed=7\nBENCH injected=40') \
            .replace('BENCH leftover_pages=0', 'BENCH leftover_pages=38')
        self.assertEqual([c.status for c in soak.judge('k', text, faults=True)],
                         ['pass'] * 6)

    def test_faults_section_inherits_the_kernels(self):
        spec = soak.spec_for(soak.FAULTS, 1, bases.load(paths.BASES_INI))
        self.assertEqual(spec.workload, ('soak', '60', '16', '128', '5'))
        self.assertEqual([k.name for k in spec.kernels], ['concurrent', 'zone-cma'])

    def test_unfinished_soak_fails_once(self):
        text = LOG.split('BENCH failed')[0] + '[  99.0] Kernel panic - not syncing: x\n'
        cases = soak.judge('k', text)
        self.assertEqual(len(cases), 1)
        self.assertIn('did not finish', cases[0].reason)
        self.assertIn('Kernel panic', cases[0].reason)

    def test_workload_error_fails_without_a_crash(self):
        text = LOG.split('BENCH failed')[0] + 'BENCH exit_status=1\n===HARNESS-BENCH-END===\n'
        cases = soak.judge('k', text)
        self.assertEqual(len(cases), 1)
        self.assertEqual(cases[0].reason, 'the workload exited 1')

    def test_minutes_set_the_workload(self):
        spec = soak.spec_for(soak.SOAK, 2, bases.load(paths.BASES_INI))
        self.assertEqual(spec.workload[:2], ('soak', '120'))
        self.assertGreaterEqual(spec.guest.boot_timeout, 1140)



def population_log(areas, figures, extra=''):
    lines = [f'AREA {a} count={n} used=0' for a, n in areas.items()]
    lines += ['KSFT cma_debugfs pass rc=0', 'KSFT cma_zone_layout skip rc=4']
    lines += [f'BENCH {k}={v}' for k, v in figures.items()]
    return ('HARNESS: userspace up at 2.0 s, mode bench\n' + extra +
            '===HARNESS-BENCH-BEGIN===\n' + '\n'.join(lines) +
            '\nBENCH exit_status=0\n===HARNESS-BENCH-END===\n')


ACTIVATED = dict(memtotal_kb=1000000, cmatotal_kb=262144, page_kb=4, pageblock_pages=512,
                 zone_cma_cma_blocks=128, zone_cma_movable_blocks=0, cma_blocks_elsewhere=0,
                 zone_cma_movable_free_kb=0)
REFUSED = dict(ACTIVATED, cmatotal_kb=196608, zone_cma_cma_blocks=96,
               zone_cma_movable_blocks=32)
AREAS = {'numa0': 16384, 'numa1': 16384, 'reserved': 32768}
SAID = '[    0.5] cma: CMA area numa1 could not be activated\n'


class PopulationTest(unittest.TestCase):
    def logs(self, refused=REFUSED, areas=None, said=SAID):
        return {'activated': population_log(AREAS, ACTIVATED),
                'refused': population_log(areas or {a: n for a, n in AREAS.items() if a != 'numa1'},
                                          refused, said)}

    def test_refused_area_left_movable_in_zone_cma_passes(self):
        cases = soak.judge_population(self.logs())
        self.assertEqual([c.status for c in cases], ['pass'] * 8, cases)

    def test_losses_and_half_moved_areas_fail(self):
        for change, failing in (
                (dict(memtotal_kb=1000000 - 65536), 'MemTotal unchanged'),
                (dict(zone_cma_movable_blocks=16, zone_cma_cma_blocks=112),
                 'its pageblocks movable in ZONE_CMA, the rest CMA'),
                (dict(cma_blocks_elsewhere=32), 'no CMA pageblock outside ZONE_CMA'),
                (dict(cmatotal_kb=262144), 'CmaTotal down by the area')):
            with self.subTest(change=change):
                cases = soak.judge_population(self.logs(dict(REFUSED, **change)))
                self.assertEqual([c.name for c in cases if c.status == 'fail'],
                                 ['population refused: ' + failing])

    def test_missing_figures_fail_without_a_crash(self):
        logs = self.logs()
        logs['refused'] = logs['refused'].replace('BENCH zone_cma_movable_blocks=32\n', '')
        cases = soak.judge_population(logs)
        self.assertEqual(cases[1].status, 'fail')
        self.assertIn('no figure zone_cma_movable_blocks', cases[1].reason)

    def test_silent_refusal_fails(self):
        cases = soak.judge_population(self.logs(said=''))
        self.assertEqual([c.name for c in cases if c.status == 'fail'],
                         ['population refused: the boot log says so'])

    def test_failed_kselftest_or_splat_fails_the_boot(self):
        logs = self.logs()
        logs['refused'] = logs['refused'].replace('KSFT cma_debugfs pass rc=0',
                                                  'KSFT cma_debugfs fail rc=1')
        cases = soak.judge_population(logs)
        self.assertEqual([(c.name, c.status) for c in cases],
                         [('population activated: finished, kselftests pass, no splat', 'pass'),
                          ('population refused: finished, kselftests pass, no splat', 'fail')])
        self.assertIn('cma_debugfs rc 1', cases[1].reason)


class PopulationRealLogTest(unittest.TestCase):
    """The two boots of make fault-inject ONLY=population, 2026-12-02."""
    DATA = os.path.join(os.path.dirname(__file__), 'data')

    def logs(self):
        out = {}
        for k in ('activated', 'refused'):
            with open(os.path.join(self.DATA, f'console-population-{k}.log')) as f:
                out[k] = f.read()
        return out

    def test_refusal_left_nothing_half_moved(self):
        logs = self.logs()
        self.assertEqual(soak.areas(logs['activated']),
                         {'numa0': 16384, 'numa1': 16384, 'reserved': 32768})
        self.assertEqual(soak.areas(logs['refused']), {'numa0': 16384, 'reserved': 32768})
        cases = soak.judge_population(logs)
        self.assertEqual([c.status for c in cases], ['pass'] * 8,
                         [(c.name, c.reason) for c in cases if c.status != 'pass'])

    def test_half_moved_area_would_fail(self):
        logs = self.logs()
        logs['refused'] = logs['refused'].replace('BENCH zone_cma_movable_blocks=32',
                                                  'BENCH zone_cma_movable_blocks=31')
        failed = [c.name for c in soak.judge_population(logs) if c.status == 'fail']
        self.assertEqual(failed,
                         ['population refused: its pageblocks movable in ZONE_CMA, the rest CMA'])


if __name__ == '__main__':
    unittest.main()
