"""The fragment lists every kernel the harness configures gets, on every
base: variants, benchmark kernels, matrix entries, the compiler and bisect
gates. data/fragments.json holds them as they were before arches owned
their base fragments (harness/arches.py), with the deliberate changes of
that move (see its header) and since (ZONE_CMA in the mainline options and
variants); a change to a list shows here. After a deliberate change,
rewrite it with json.dumps(composed(), indent=1, sort_keys=True) + a
newline, and read the diff."""
import glob
import json
import os
import re
import tempfile
import unittest

from harness import arches, bases, benchtable, gates, kconfig, matrix, paths, variants
from harness.tests.util import write_bases

GOLDEN = os.path.join(os.path.dirname(__file__), 'data', 'fragments.json')


def _composed(btable=None, variants_ini=None):
    """(key, arch name, [fragments..., CONFIG_X=v settings...]) of every list
    (of configs/bases.ini's bases, or @btable's, with @variants_ini's variants)."""
    btable = btable or bases.load(paths.BASES_INI)
    for v in variants.load(variants_ini or paths.VARIANTS_INI, btable).values():
        yield f'variant {v.name} {v.base}', v.arch.name, list(v.fragments)
    for b in benchtable.load(paths.BENCH_INI, None, btable).values():
        for k in b.kernels:
            v = benchtable.kernel_variant(b, k)
            yield f'bench {b.name}:{k.name} {v.base}', v.arch.name, list(v.fragments)
    for name, base in btable.items():
        for e in matrix.load(paths.MATRIX_INI, list(btable)):
            if e.applies_to(base):
                yield (f'matrix {e.name} {name}', e.arch,
                       list(e.fragments(base)) + list(e.settings))
        yield f'compiler {name}', gates.COMPILER_ARCH, list(gates.compiler_fragments(base))
        for arch, opt in gates.DEFAULT_BISECT:
            yield (f'bisect {arch}:{opt} {name}', arch,
                   list(arches.compose(arches.ARCHES[arch], (), base, options=opt)))


def composed():
    """{'<kind> <name> <base>': [fragments..., CONFIG_X=v settings...]}."""
    return {key: items for key, _, items in _composed()}


def wanted(items):
    texts = []
    for f in items:
        if f.startswith('CONFIG_'):
            texts.append(f)
        else:
            with open(os.path.join(paths.CONFIGS, f + '.config')) as fh:
                texts.append(fh.read())
    return kconfig.merge(texts)


def kconfig_symbols(tree):
    """Every CONFIG_ symbol a kernel tree's Kconfig files define."""
    found = set()
    for path in glob.glob(os.path.join(tree, '**', 'Kconfig*'), recursive=True):
        with open(path, errors='replace') as f:
            found.update('CONFIG_' + m for m in
                         re.findall(r'^\s*(?:menu)?config\s+(\w+)', f.read(), re.M))
    return found


class ComposeTest(unittest.TestCase):
    maxDiff = None

    def test_lists_as_recorded(self):
        with open(GOLDEN) as f:
            self.assertEqual(composed(), json.load(f))

    def test_every_fragment_exists(self):
        for key, items in composed().items():
            for f in items:
                if not f.startswith('CONFIG_'):
                    self.assertTrue(os.path.exists(os.path.join(paths.CONFIGS, f + '.config')),
                                    f'{key}: no configs/{f}.config')

    def test_arch_fragments_come_from_the_arch(self):
        """No section of variants.ini, matrix.ini or benchmarks.ini names
        common or an arch's own fragment: the arch adds them."""
        own = {'common'} | {f for a in arches.ARCHES.values() for f in a.fragments}
        for path in (paths.VARIANTS_INI, paths.MATRIX_INI, paths.BENCH_INI):
            with open(path) as f:
                for n, line in enumerate(f, 1):
                    if line.startswith('fragments ='):
                        self.assertFalse(own & set(line.split()[2:]),
                                         f'{os.path.relpath(path, paths.ROOT)}:{n}: {line}')

    def assert_base_specific_fragments(self, btable, lists):
        """A kernel that boots gets its base's guest fragments, and no list
        another base's guest fragments (mainline's CONFIG_SYSCTL is
        CONFIG_PROC_SYSCTL on older kernels); make check's lists get their
        base's option fragments."""
        guest = {f for b in btable.values() for f in b.guest_fragments}
        for key, items in lists:
            base = btable[key.rsplit(' ', 1)[1]]
            self.assertFalse((guest - set(base.guest_fragments)) & set(items), key)
            if key.startswith(('variant ', 'bench ')):
                for f in base.guest_fragments:
                    self.assertIn(f, items, key)
            if key.startswith(('compiler ', 'bisect ')):
                which = 'on' if key.startswith('compiler ') or ':on ' in key else 'off'
                for f in base.options(which):
                    self.assertIn(f, items, key)

    def test_base_specific_fragments(self):
        self.assert_base_specific_fragments(bases.load(paths.BASES_INI),
                                            composed().items())

    def test_base_specific_fragments_of_several_bases(self):
        """The same with two bases whose guest and option fragments differ
        (util.write_bases; configs/bases.ini may hold one), a variant on
        each: every base gets its own lists."""
        with tempfile.TemporaryDirectory() as d:
            btable = bases.load(write_bases(d))
            vpath = os.path.join(d, 'variants.ini')
            with open(vpath, 'w') as f:
                f.write(''.join(f'[v-{b}]\nsummary = s\nbase = {b}\narch = x86_64\n'
                                f'fragments = zone-cma\n' for b in btable))
            lists = {key: items for key, _, items in _composed(btable, vpath)}
        self.assert_base_specific_fragments(btable, lists.items())
        for b in btable:
            for kind in ('variant v-' + b, 'compiler', 'bisect x86_64:on',
                         'matrix x86_64-all-on'):
                self.assertIn(f'{kind} {b}', lists)
        # An entry of configs/matrix.ini with `bases` (mainline) only there.
        for e in matrix.load(paths.MATRIX_INI, list(btable)):
            for b in btable.values():
                self.assertEqual(f'matrix {e.name} {b.name}' in lists, e.applies_to(b))

    def test_zone_cma_only_where_kconfig_allows_it(self):
        """No list asks for CONFIG_ZONE_CMA=y where Kconfig refuses it (the
        entry would fail): it depends on ARCH_SUPPORTS_ZONE_CMA (x86_64,
        arm64) and !HIGHMEM."""
        on = 0
        for key, arch, items in _composed():
            syms = wanted(items)
            if syms.get('CONFIG_ZONE_CMA', 'n') == 'n':
                continue
            on += 1
            self.assertIn(arch, ('x86_64', 'arm64'), key)
            self.assertNotIn('y', (syms.get('CONFIG_HIGHMEM4G'),
                                   syms.get('CONFIG_HIGHMEM64G')), key)
        self.assertTrue(on)

    def test_symbols_exist_in_each_base(self):
        """Every symbol a list sets (not unsets) is one its base's tree
        defines: read from each base's work tree (build/linux, ...) when there."""
        btable = bases.load(paths.BASES_INI)
        lists = composed()
        checked = 0
        for name, base in btable.items():
            tree = os.path.join(paths.ROOT, base.tree)
            if not os.path.isdir(os.path.join(tree, 'mm')):
                continue
            known = kconfig_symbols(tree)
            checked += 1
            for key, items in lists.items():
                if not key.endswith(' ' + name) or key.startswith('matrix arm-'):
                    continue
                unknown = sorted(s for s, v in wanted(items).items()
                                 if v != 'n' and s not in known)
                self.assertEqual(unknown, [], f'{key}: unknown to {base.title}')
        if not checked:
            self.skipTest('no work tree to read Kconfig symbols from')


if __name__ == '__main__':
    unittest.main()
