"""The Kconfig matrix of make check: configs/matrix.ini.

One section per entry: an arch, what it adds to the arch's base fragments
(the base's series options on or off, fragments, CONFIG_X=v settings), or a
randconfig seed, and the bases it applies to. fragments() composes its list
for one base (harness/arches.py).
"""
import dataclasses
import re

from . import arches, ini

BASE_FRAGMENTS = ('all', 'arch', 'none')
OPTIONS = ('on', 'off')


class MatrixError(Exception):
    pass


@dataclasses.dataclass
class MatrixEntry:
    name: str
    arch: str
    own: tuple                # configs/<name>.config the entry adds
    settings: tuple           # extra CONFIG_X=v lines
    randconfig_seed: int = None  # build a randconfig with this seed instead
    probability: int = 5      # KCONFIG_PROBABILITY of a randconfig
    note: str = ''
    options: str = None       # 'on', 'off' or None: the base's option fragments
    base_fragments: str = 'all'  # all (common + arch), arch, none
    bases: tuple = ()         # bases it applies to; () for every base

    def applies_to(self, base):
        return not self.bases or base.name in self.bases

    def fragments(self, base):
        """The entry's fragment list on @base (a bases.Base)."""
        arch = arches.ARCHES[self.arch]
        if self.base_fragments == 'all':
            return arches.compose(arch, self.own, base, options=self.options)
        frags = arch.fragments if self.base_fragments == 'arch' else ()
        if self.options:
            frags += base.options(self.options)
        return frags + self.own


def load(path, known_bases=None):
    """[MatrixEntry] of @path; raises MatrixError on bad input (an unknown
    base in `bases` too, with @known_bases)."""
    cp = ini.read(path, MatrixError)
    entries = []
    for name in cp.sections():
        sec = cp[name]
        where = f'{path} [{name}]: '
        arch = sec.get('arch', '')
        if arch not in arches.ARCHES:
            raise MatrixError(f'{where}arch must be one of '
                              f'{", ".join(arches.ARCHES)}, not {arch!r}')
        settings = tuple(s.strip() for s in sec.get('set', '').split() if s.strip())
        for s in settings:
            if not re.match(r'^CONFIG_[A-Za-z0-9_]+=\S+$', s):
                raise MatrixError(f'{where}set item {s!r} is not CONFIG_X=value')
        seed = sec.get('randconfig_seed')
        try:
            seed = int(seed) if seed is not None else None
            prob = int(sec.get('probability', '5'))
        except ValueError as e:
            raise MatrixError(f'{where}{e}')
        options = sec.get('options')
        if options is not None and options not in OPTIONS:
            raise MatrixError(f'{where}options must be on or off, not {options!r}')
        base_fragments = sec.get('base_fragments', 'all')
        if base_fragments not in BASE_FRAGMENTS:
            raise MatrixError(f'{where}base_fragments must be one of '
                              f'{", ".join(BASE_FRAGMENTS)}, not {base_fragments!r}')
        only = tuple(sec.get('bases', '').split())
        bad = [b for b in only if known_bases is not None and b not in known_bases]
        if bad:
            raise MatrixError(f'{where}unknown base {", ".join(bad)} (configs/bases.ini '
                              f'has: {", ".join(known_bases)})')
        entries.append(MatrixEntry(name, arch, tuple(sec.get('fragments', '').split()),
                                   settings, seed, prob, sec.get('note', ''), options,
                                   base_fragments, only))
    if not entries:
        raise MatrixError(f'{path}: no entries')
    return entries
