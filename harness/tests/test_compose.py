"""The fragment lists every kernel the harness configures gets, on both
bases: variants, benchmark kernels, matrix entries, the compiler and bisect
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
import unittest

from harness import arches, bases, bench, gates, kconfig, matrix, paths, variants

GOLDEN = os.path.join(os.path.dirname(__file__), 'data', 'fragments.json')


def _composed():
    """(key, arch name, [fragments..., CONFIG_X=v settings...]) of every list."""
    btable = bases.load(paths.BASES_INI)
    for v in variants.load(paths.VARIANTS_INI, btable).values():
        yield f'variant {v.name} {v.base}', v.arch.name, list(v.fragments)
    for b in bench.load(paths.BENCH_INI, None, btable).values():
        for k in b.kernels:
            v = bench.kernel_variant(b, k)
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
        """No section of variants.ini, matrix.ini, benchmarks.ini or the
        faults variants names common or an arch's own fragment: the arch adds them."""
        own = {'common'} | {f for a in arches.ARCHES.values() for f in a.fragments}
        faults = os.path.join(paths.ROOT, 'harness', 'faults', 'variants.ini')
        for path in (paths.VARIANTS_INI, paths.MATRIX_INI, paths.BENCH_INI, faults):
            with open(path) as f:
                for n, line in enumerate(f, 1):
                    if line.startswith('fragments ='):
                        self.assertFalse(own & set(line.split()[2:]),
                                         f'{os.path.relpath(path, paths.ROOT)}:{n}: {line}')

    def test_base_specific_fragments(self):
        """mainline has CONFIG_SYSCTL, 6.12 CONFIG_PROC_SYSCTL."""
        for key, items in composed().items():
            if key.endswith(' mainline'):
                self.assertNotIn('proc-sysctl', items, key)
            else:
                self.assertNotIn('sysctl', items, key)
            if key.startswith(('variant ', 'bench ')):
                self.assertIn('sysctl' if key.endswith(' mainline') else 'proc-sysctl',
                              items, key)

    def test_zone_cma_only_where_kconfig_allows_it(self):
        """No list asks for CONFIG_ZONE_CMA=y where Kconfig refuses it (the
        entry would fail): on mainline it depends on ARCH_SUPPORTS_ZONE_CMA
        (x86_64, arm64) and !HIGHMEM, on 6.12 on SPARSEMEM (i386 adds
        i386-sparsemem; 32-bit arm stays FLATMEM)."""
        on = 0
        for key, arch, items in _composed():
            syms = wanted(items)
            if syms.get('CONFIG_ZONE_CMA', 'n') == 'n':
                continue
            on += 1
            if key.endswith(' mainline'):
                self.assertIn(arch, ('x86_64', 'arm64'), key)
                self.assertNotIn('y', (syms.get('CONFIG_HIGHMEM4G'),
                                       syms.get('CONFIG_HIGHMEM64G')), key)
            else:
                self.assertNotEqual(arch, 'arm', key)
                if arch == 'i386':
                    self.assertEqual(syms.get('CONFIG_SPARSEMEM_MANUAL'), 'y', key)
        self.assertTrue(on)

    def test_symbols_exist_in_each_base(self):
        """Every symbol a list sets (not unsets) is one its base's tree
        defines: read from build/linux and build/linux-6.12 when there."""
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
