import contextlib
import io
import os
import tempfile
import unittest

from harness import bases, diagnostics, gates, matrix

from .util import load_text

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

DIFF = """\
diff --git a/mm/foo.c b/mm/foo.c
--- a/mm/foo.c
+++ b/mm/foo.c
@@ -10,0 +11,12 @@ int old(void)
+/**
+ * foo_documented() - does something
+ */
+int foo_documented(void)
+{
+}
+
+void foo_bare(int a,
+	      int b)
+{
+}
+static void foo_static(void)
@@ -30,0 +43,1 @@
+{
diff --git a/tools/testing/selftests/cma/x.c b/tools/testing/selftests/cma/x.c
--- a/tools/testing/selftests/cma/x.c
+++ b/tools/testing/selftests/cma/x.c
@@ -1,0 +1,1 @@
+int main(void)
"""

FOO_C = '\n' * 10 + """\
/**
 * foo_documented() - does something
 */
int foo_documented(void)
{
}

void foo_bare(int a,
	      int b)
{
}
static void foo_static(void)
{
}
""" + '\n' * 20


class WarningTest(unittest.TestCase):
    def test_normalise_drops_line_numbers_and_prefixes(self):
        a = diagnostics.normalise_warning('/t/mm/cma.c:120:5: warning: symbol x was not declared',
                                    prefixes=('/t',))
        b = diagnostics.normalise_warning('mm/cma.c:98:5: warning: symbol x was not declared')
        self.assertEqual(a, b)
        self.assertEqual(a, 'mm/cma.c: warning: symbol x was not declared')

    def test_new_warnings_counts_duplicates(self):
        base = ['a: warning: x', 'a: warning: y']
        series = ['a: warning: x', 'a: warning: x', 'a: warning: y', 'b: warning: z']
        self.assertEqual(diagnostics.new_warnings(base, series), ['a: warning: x', 'b: warning: z'])
        self.assertEqual(diagnostics.new_warnings(series, base), [])

    def test_compiler_warnings_keeps_only_diagnostics(self):
        out = ('  CC      mm/cma.o\n'
               'mm/cma.c:5:1: warning: no previous prototype for f [-Wmissing-prototypes]\n'
               'mm/cma.c:9: error: broken\n'
               '  CHECK   mm/cma.c\n')
        self.assertEqual(len(diagnostics.compiler_warnings(out)), 2)


class KernelDocTest(unittest.TestCase):
    def test_added_lines(self):
        added = diagnostics.added_lines(DIFF)
        self.assertIn(14, added['mm/foo.c'])
        self.assertIn(43, added['mm/foo.c'])
        self.assertNotIn(10, added['mm/foo.c'])

    def test_function_definitions(self):
        defs = diagnostics.function_definitions(FOO_C)
        names = {n: (line, static) for line, n, static in defs}
        self.assertEqual(names['foo_documented'], (14, False))
        self.assertEqual(names['foo_bare'], (18, False))
        self.assertTrue(names['foo_static'][1])

    def test_undocumented_new_functions(self):
        missing = diagnostics.undocumented_new_functions(DIFF, lambda p: FOO_C)
        self.assertEqual(missing, [('mm/foo.c', 18, 'foo_bare')])

    def test_declarations_are_not_definitions(self):
        src = 'int f(void);\nextern int g(int a);\nstruct s x = {\n};\n'
        self.assertEqual(diagnostics.function_definitions(src), [])

    def test_kernel_sources(self):
        self.assertEqual(diagnostics.kernel_sources(
            ['mm/cma.c', 'tools/testing/selftests/cma/a.c', 'mm/Kconfig',
             'include/linux/cma.h', 'Documentation/mm/cma.rst']),
            ['include/linux/cma.h', 'mm/cma.c'])


class DocsTest(unittest.TestCase):
    def test_doc_dirs(self):
        self.assertEqual(diagnostics.doc_dirs(['Documentation/mm/cma.rst', 'mm/cma.c',
                                         'Documentation/admin-guide/mm/x.rst',
                                         'Documentation/ABI/testing/sysfs-kernel-mm-cma']),
                         ['ABI', 'admin-guide', 'mm'])

    def test_sphinx_warnings(self):
        out = ('/t/Documentation/mm/cma.rst:12: WARNING: Title underline too short.\n'
               'reading sources... [ 50%] mm/cma\n')
        self.assertEqual(diagnostics.sphinx_warnings(out, ('/t',)),
                         ['Documentation/mm/cma.rst: WARNING: Title underline too short.'])


class MatrixTest(unittest.TestCase):
    def test_repository_matrix_loads(self):
        entries = matrix.load(os.path.join(ROOT, 'configs', 'matrix.ini'))
        self.assertGreaterEqual(len(entries), 10)
        for e, b in ((e, b) for e in entries for b in bases.load(
                os.path.join(ROOT, 'configs', 'bases.ini')).values()):
            for f in e.fragments(b):
                self.assertTrue(os.path.exists(os.path.join(ROOT, 'configs', f + '.config')),
                                f'{e.name}: no configs/{f}.config')
        self.assertTrue(any(e.randconfig_seed is not None for e in entries))

    def test_bad_arch_and_setting(self):
        with self.assertRaisesRegex(matrix.MatrixError, 'arch must be'):
            load_text(matrix.load, '[x]\narch = sparc\n')
        with self.assertRaisesRegex(matrix.MatrixError, 'not CONFIG_X=value'):
            load_text(matrix.load, '[x]\narch = x86_64\nset = CMA=y\n')
        with self.assertRaisesRegex(matrix.MatrixError, 'invalid literal'):
            load_text(matrix.load, '[x]\narch = x86_64\nrandconfig_seed = one\n')


class ProgressTest(unittest.TestCase):
    def test_record_writes_each_case_at_once(self):
        with tempfile.TemporaryDirectory() as d:
            ctx = gates.Context(ROOT, d, d, d, d, d)
            cases = []
            with contextlib.redirect_stderr(io.StringIO()) as err:
                gates._record(ctx, 'bisect', cases, gates._case('one', True, '5 s', 'make'))
                gates._record(ctx, 'bisect', cases, gates._case('two', False, 'broke', 'make'))
            with open(os.path.join(d, gates.PROGRESS)) as fh:
                lines = fh.read().splitlines()
        self.assertEqual(len(cases), 2)
        self.assertEqual(lines, [
            'PASS check:bisect: one -- 5 s; reproduce: make',
            'FAIL check:bisect: two -- broke; reproduce: make'])
        self.assertEqual(err.getvalue().splitlines(), lines)


if __name__ == '__main__':
    unittest.main()
