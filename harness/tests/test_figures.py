"""harness/figures.py: figures computed from results files, the headline
table, placeholders, and the gate that catches a typed or stale figure.
The results files here are small ones written by the tests, in the form
make bench writes; one test runs the gate on the repository itself."""
import json
import os
import shutil
import tempfile
import unittest

from harness import figures, paths

FIGURES_INI = """
[rate]
claim = Faults per second
results = demo
kernel = series
ref = base
metric = faults_per_s
target = ratio >= 0.99

[failing]
claim = Boots with a failed probe
results = demo
kernel = series
ref = base
metric = atomic_failed
stat = boots
target = series <= base

[headroom]
results = demo
kernel = series
ref = base
metric = headroom_mib
unit = MiB
format = .0f
"""


def run(metrics, problems=()):
    return {'metrics': metrics, 'problems': list(problems)}


RESULTS = {'benchmark': 'demo', 'series': 'abc123def (24 patches: x)', 'kernels': {
    'base': {'runs': [run({'faults_per_s': 100.0, 'atomic_failed': 3, 'headroom_mib': 374}),
                      run({'faults_per_s': 102.0, 'atomic_failed': 0, 'headroom_mib': 380}),
                      run({'faults_per_s': 98.0, 'atomic_failed': 7, 'headroom_mib': 372})]},
    'series': {'runs': [run({'faults_per_s': 95.0, 'atomic_failed': 0, 'headroom_mib': 419}),
                        run({'faults_per_s': 94.0, 'atomic_failed': 0, 'headroom_mib': 420}),
                        # A boot with a splat: out of the medians, still a boot.
                        run({'faults_per_s': 10.0, 'atomic_failed': 1, 'headroom_mib': 1},
                            ['WARNING: at mm/page_alloc.c'])]},
}}


class Repo:
    """A scratch repository layout: README.md, series/, patches/, bench/."""

    def __init__(self):
        self.root = tempfile.mkdtemp()
        for d in ('bench/results', 'series', 'patches', 'docs'):
            os.makedirs(os.path.join(self.root, d))
        self.write('bench/figures.ini', FIGURES_INI)
        self.write('bench/results/demo.json', json.dumps(RESULTS))
        self.sections = figures.load(self.path('bench/figures.ini'))
        self.figs = figures.compute_all(self.sections, self.path('bench/results'))
        self.write('README.md', f'# x\n\n{figures.TABLE_BEGIN}\n'
                   f'{figures.table(self.sections, self.figs)}\n{figures.TABLE_END}\n')
        self.write('series/cover-letter.txt',
                   'subject\n\nHeadroom {{headroom.series}} ({{headroom.ratio}}).\n')
        body = figures.render(self.read('series/cover-letter.txt'), self.figs)
        self.write('patches/0000-cover-letter.patch',
                   'Subject: [PATCH 0/1] ' + body + '\n')
        self.write('patches/0001-x.patch',
                   'Subject: [PATCH 1/1] x\n\nFaults at 0.950x.\n---\n 0.5x in diff\n')

    def path(self, rel):
        return os.path.join(self.root, rel)

    def write(self, rel, text):
        with open(self.path(rel), 'w') as f:
            f.write(text)

    def read(self, rel):
        with open(self.path(rel)) as f:
            return f.read()

    def check(self):
        return figures.check(self.root, self.path('patches'),
                             self.path('series/cover-letter.txt'),
                             self.path('bench/figures.ini'), self.path('bench/results'))

    def close(self):
        shutil.rmtree(self.root)


class ComputeTest(unittest.TestCase):
    def setUp(self):
        self.repo = Repo()
        self.addCleanup(self.repo.close)

    def test_median_ratio_and_verdict(self):
        f = self.repo.figs['rate']
        self.assertEqual((f['base'], f['series'], f['ratio']), ('100', '94.5', '0.945x'))
        self.assertEqual(f['verdict'], '**missed**')
        self.assertEqual(f['rev'], 'abc123def')

    def test_boots_counts_every_boot_and_gives_p(self):
        f = self.repo.figs['failing']
        self.assertEqual((f['base'], f['series']), ('2 of 3 boots', '1 of 3 boots'))
        self.assertEqual(f['p'], 'p = 1')
        self.assertEqual(f['verdict'], 'met')

    def test_max_takes_the_largest_kept_boot(self):
        sec = dict(self.repo.sections[0], stat='max')
        f = figures.compute(sec, self.repo.path('bench/results'))
        # The boot with a splat (10.0) is not kept; 95.0 is the largest kept.
        self.assertEqual((f['base'], f['series'], f['ratio']), ('102', '95.0', '0.931x'))

    def test_unit_and_format(self):
        self.assertEqual(self.repo.figs['headroom']['series'], '420 MiB')

    def test_table_rows_only_for_claims(self):
        table = figures.table(self.repo.sections, self.repo.figs)
        self.assertEqual(len(table.splitlines()), 4)
        self.assertIn('`make bench B=demo`', table)

    def test_missing_kernel_is_a_clear_error(self):
        sec = dict(self.repo.sections[0], kernel='nope')
        with self.assertRaisesRegex(figures.FigureError, "no kernel 'nope'"):
            figures.compute(sec, self.repo.path('bench/results'))

    def test_bad_target_refused(self):
        self.repo.write('bench/figures.ini', FIGURES_INI.replace('ratio >= 0.99', 'ratio >= base'))
        with self.assertRaisesRegex(figures.FigureError, 'target'):
            figures.load(self.repo.path('bench/figures.ini'))


class RenderTest(unittest.TestCase):
    def setUp(self):
        self.repo = Repo()
        self.addCleanup(self.repo.close)

    def test_placeholders_filled_and_paragraph_rewrapped(self):
        text = ('- a list item that quotes {{rate.ratio}} and goes on for a while\n'
                '  until it needs a second line of text\n- second {{failing.series}}\n')
        out = figures.render(text, self.repo.figs, width=40)
        self.assertIn('0.945x', out)
        self.assertIn('1 of 3 boots', out.replace('\n', ' '))
        self.assertTrue(all(line.startswith(('- ', '  ')) for line in out.splitlines()))
        self.assertTrue(any(line.startswith('- second') for line in out.splitlines()))

    def test_unknown_placeholder(self):
        with self.assertRaisesRegex(figures.FigureError, "no figure 'nope'"):
            figures.render('{{nope.ratio}}', self.repo.figs)


class GateTest(unittest.TestCase):
    def setUp(self):
        self.repo = Repo()
        self.addCleanup(self.repo.close)
        self.repo.write('patches/0001-x.patch', 'Subject: [PATCH 1/1] x\n\nFaults at '
                        '0.945x.\n---\n 0.5x in the diff is not the message\n')

    def test_consistent_repository_passes(self):
        self.assertEqual(self.repo.check(), [])

    def test_hand_edited_table_fails(self):
        self.repo.write('README.md', self.repo.read('README.md').replace('0.945x', '0.995x'))
        self.assertTrue(any('headline table differs' in p for p in self.repo.check()))

    def test_typed_figure_in_readme_fails(self):
        self.repo.write('README.md', self.repo.read('README.md') + '\nIt is 1.12x faster.\n')
        self.assertTrue(any('"1.12x" is typed' in p for p in self.repo.check()))

    def test_typed_figure_in_cover_letter_fails(self):
        self.repo.write('series/cover-letter.txt',
                        self.repo.read('series/cover-letter.txt') + 'In 9 of 56 boots.\n')
        problems = self.repo.check()
        self.assertTrue(any('"9 of 56" is typed' in p for p in problems))

    def test_stale_export_fails(self):
        self.repo.write('series/cover-letter.txt',
                        'subject\n\nHeadroom is {{headroom.base}} now.\n')
        self.assertTrue(any('make export' in p for p in self.repo.check()))

    def test_stale_commit_message_figure_fails(self):
        self.repo.write('patches/0001-x.patch', 'Subject: [PATCH 1/1] x\n\nFaults at '
                        '0.944x, in 9 of 56 boots (p = 0.01).\n---\n')
        problems = self.repo.check()
        self.assertEqual(len([p for p in problems if '0001-x.patch' in p]), 3)

    def test_other_figure_forms_are_caught(self):
        self.repo.write('README.md', self.repo.read('README.md') +
                        '\nIn 3 boots of 3, p=0.001, 32% of the area, 16,122 of 16,256.\n')
        typed = [p for p in self.repo.check() if 'is typed' in p]
        self.assertEqual(len(typed), 4)
        self.assertTrue(all(p.startswith('README.md:') for p in typed))
        # Line numbers count the table's lines too.
        line = len(self.repo.read('README.md').splitlines())
        self.assertTrue(all(p.startswith(f'README.md:{line}:') for p in typed), typed)

    def test_setup_numbers_are_not_figures(self):
        self.assertEqual(figures.figures_in('x86_64, 1 GiB, 16x64M, cma=128M, order 3, '
                                            '2 of the 8 nodes'), [])

    def test_date_in_docs_fails(self):
        self.repo.write('docs/note.md', 'Measured 2026-12-05 at 19:17.\n')
        self.assertEqual(len([p for p in self.repo.check() if 'docs/note.md' in p]), 2)


class RepositoryTest(unittest.TestCase):
    def test_every_figure_computes(self):
        """bench/figures.ini against bench/results: every section has its
        results file, kernels and metric."""
        sections = figures.load(paths.FIGURES_INI)
        figs = figures.compute_all(sections, paths.BENCH_RESULTS)
        self.assertEqual(set(figs), {s['name'] for s in sections})


if __name__ == '__main__':
    unittest.main()
