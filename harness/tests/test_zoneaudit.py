import os
import tempfile
import unittest

from harness import paths, zoneaudit

DATA = os.path.join(os.path.dirname(__file__), 'data')
LISTED = os.path.join(paths.ROOT, 'series', zoneaudit.FILE_NAME)

# The four uses that meant "the highest zone" in 7.3-rc7 and say
# ZONE_MOVABLE_TOP in the series (issue 17, defect 7).
TOP_ZONE_USES = {
    ('kernel/sched/fair.c', 'pgdat_free_space_enough'),
    ('mm/page_alloc.c', 'free_frozen_page_commit'),
    ('mm/migrate.c', 'migrate_balanced_pgdat'),
    ('mm/migrate.c', 'migrate_misplaced_folio_prepare'),
}


def grep_output(name):
    """`git grep -n -p -w ZONE_MOVABLE` of a real tree: the series as
    exported on 2026-12-05, and 7.3-rc7 (harness/tests/data)."""
    with open(os.path.join(DATA, f'zone-movable-grep-{name}.txt')) as f:
        return f.read()


def write_list(text):
    f = tempfile.NamedTemporaryFile('w', delete=False)
    f.write(text)
    f.close()
    return f.name


class ParseTest(unittest.TestCase):
    def test_comments_are_not_uses(self):
        self.assertEqual(zoneaudit.strip_comments(' * ZONE_MOVABLE is similar'), '')
        self.assertEqual(zoneaudit.strip_comments('/* online to ZONE_MOVABLE. */'), '')
        self.assertEqual(zoneaudit.strip_comments(
            '#define __GFP_MOVABLE ((__force gfp_t)___GFP_MOVABLE)  /* ZONE_MOVABLE allowed */'),
            '#define __GFP_MOVABLE ((__force gfp_t)___GFP_MOVABLE)')
        self.assertEqual(zoneaudit.strip_comments('x = ZONE_MOVABLE; // why'), 'x = ZONE_MOVABLE;')
        self.assertEqual(zoneaudit.strip_comments('\t*zone = ZONE_MOVABLE;'), '*zone = ZONE_MOVABLE;')
        self.assertEqual(zoneaudit.strip_comments('\t */'), '')

    def test_function_names(self):
        self.assertEqual(zoneaudit.function_name(
            'static int virtio_mem_fake_offline(struct virtio_mem *vm, unsigned long pfn,'),
            'virtio_mem_fake_offline')
        self.assertEqual(zoneaudit.function_name('enum zone_type {'), 'enum zone_type')
        self.assertEqual(zoneaudit.function_name(
            'static int sysctl_lowmem_reserve_ratio[MAX_NR_ZONES] = {'),
            'static int sysctl_lowmem_reserve_ratio[MAX_NR_ZONES]')

    def test_series_grep(self):
        uses = zoneaudit.parse_grep(grep_output('series'))
        self.assertEqual(len(uses), 31)
        # Comment lines (mm/khugepaged.c, mm/slub.c have only comments) drop out.
        self.assertNotIn('mm/khugepaged.c', {u.path for u in uses})
        self.assertIn(('mm/migrate.c', 'alloc_migration_target',
                       'if (is_highmem_idx(zidx) || zidx == ZONE_MOVABLE ||'),
                      {u.key for u in uses})
        self.assertFalse(TOP_ZONE_USES & {(u.path, u.function) for u in uses})

    def test_base_top_zone_uses_are_caught(self):
        """7.3-rc7's class-zone uses are not in the list: the audit fails on
        a series that left one of them as ZONE_MOVABLE."""
        new, _ = zoneaudit.compare(zoneaudit.parse_grep(grep_output('7.3-rc7')),
                                   zoneaudit.load_reviewed(LISTED))
        self.assertLessEqual(TOP_ZONE_USES, {(u.path, u.function) for u in new})


class ListTest(unittest.TestCase):
    def test_code_may_hold_the_separator(self):
        name = write_list('## why\ninclude/linux/gfp.h | f | | (ZONE_MOVABLE << (a | b))\\\n')
        try:
            self.assertEqual(list(zoneaudit.load_reviewed(name)),
                             [('include/linux/gfp.h', 'f', '| (ZONE_MOVABLE << (a | b))\\')])
        finally:
            os.unlink(name)

    def test_malformed_lists_are_refused(self):
        for text in ('mm/a.c | f | x = ZONE_MOVABLE;\n',              # no reason heading
                     '## why\nmm/a.c | x = ZONE_MOVABLE;\n',           # no function
                     '## why\nmm/a.c | f | x;\nmm/a.c | f | x;\n'):     # duplicate
            name = write_list(text)
            try:
                with self.assertRaises(ValueError):
                    zoneaudit.load_reviewed(name)
            finally:
                os.unlink(name)

    def test_stale_entry_fails(self):
        uses = zoneaudit.parse_grep('mm/a.c=1=void f(void)\nmm/a.c:2:\tx = ZONE_MOVABLE;\n')
        new, stale = zoneaudit.compare(uses, {('mm/a.c', 'f', 'x = ZONE_MOVABLE;'): 'r',
                                              ('mm/b.c', 'g', 'y = ZONE_MOVABLE;'): 'r'})
        self.assertEqual(new, [])
        self.assertEqual(stale, [('mm/b.c', 'g', 'y = ZONE_MOVABLE;')])


if __name__ == '__main__':
    unittest.main()
