"""No module of harness/ imports another that imports it back, directly
or through a chain: a circle works only while every module of it imports
the others inside functions, and breaks on the first import moved to the
top. Imports inside functions count like the others."""
import ast
import glob
import os
import tempfile
import unittest

HARNESS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _imported(node, modules):
    """The modules of @modules (names of harness/*.py) that one import
    statement @node names: `from . import x`, `from .x import y`,
    `import harness.x`, `from harness import x`, `from harness.x import y`."""
    if isinstance(node, ast.Import):
        names = [a.name.split('.') for a in node.names]
        return [n[1] for n in names if len(n) > 1 and n[0] == 'harness']
    if not isinstance(node, ast.ImportFrom):
        return []
    if node.level == 1 or (node.level == 0 and node.module and
                           node.module.split('.')[0] == 'harness'):
        parts = (node.module or '').split('.')[0 if node.level else 1:]
        if parts and parts[0]:
            return [parts[0]]
        return [a.name for a in node.names if a.name in modules]
    return []


def import_graph(package_dir):
    """{module: set of harness modules it imports} over @package_dir/*.py,
    at any depth of the module (function bodies included)."""
    paths = sorted(glob.glob(os.path.join(package_dir, '*.py')))
    modules = {os.path.basename(p)[:-3] for p in paths}
    graph = {}
    for path in paths:
        with open(path) as f:
            tree = ast.parse(f.read(), path)
        name = os.path.basename(path)[:-3]
        graph[name] = {m for node in ast.walk(tree) for m in _imported(node, modules)
                       if m in modules and m != name}
    return graph


def find_cycles(graph):
    """Each import circle of @graph once, as [a, b, ..., a], shortest
    first; [] when there is none."""
    cycles, seen = [], set()
    for start in sorted(graph):
        # Breadth first from start's imports back to start: the shortest circle through it.
        paths = [[start, m] for m in sorted(graph[start])]
        visited = set()
        while paths:
            path = paths.pop(0)
            if path[-1] == start:
                if frozenset(path) not in seen:
                    seen.add(frozenset(path))
                    cycles.append(path)
                break
            if path[-1] in visited:
                continue
            visited.add(path[-1])
            paths += [path + [m] for m in sorted(graph.get(path[-1], ()))]
    return sorted(cycles, key=len)


class ImportCycleTest(unittest.TestCase):
    def test_no_module_imports_itself_back(self):
        cycles = find_cycles(import_graph(HARNESS))
        self.assertEqual(cycles, [], 'import circles: ' +
                         '; '.join(' -> '.join(c) for c in cycles))

    def test_finder_sees_every_import_form(self):
        """The finder on a made-up package: a circle closed by an import
        inside a function, one through `import harness.x`, and imports of
        outside modules that must not count."""
        files = {'a.py': 'import os\nfrom . import b\n',
                 'b.py': 'def f():\n    from .c import g\n',
                 'c.py': 'import harness.a\nfrom os import path\n',
                 'd.py': 'from harness import e as x\n',
                 'e.py': 'from harness.f import y\n',
                 'f.py': 'from . import printer\n'}
        with tempfile.TemporaryDirectory() as d:
            for name, text in files.items():
                with open(os.path.join(d, name), 'w') as f:
                    f.write(text)
            graph = import_graph(d)
            self.assertEqual(graph, {'a': {'b'}, 'b': {'c'}, 'c': {'a'},
                                     'd': {'e'}, 'e': {'f'}, 'f': set()})
            self.assertEqual(find_cycles(graph), [['a', 'b', 'c', 'a']])
            with open(os.path.join(d, 'f.py'), 'a') as f:
                f.write('def g():\n    from . import d\n')
            self.assertEqual(find_cycles(import_graph(d)),
                             [['a', 'b', 'c', 'a'], ['d', 'e', 'f', 'd']])


if __name__ == '__main__':
    unittest.main()
