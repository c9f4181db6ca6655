"""Kconfig fragments: read them, and check the final .config honours them.

A fragment is .config syntax: `CONFIG_FOO=value` or `# CONFIG_FOO is not
set`. After tinyconfig + fragments + olddefconfig, a symbol whose
dependencies are not met silently keeps another value; verify() names every
such symbol so a variant never runs without an option it asked for.
"""
import re

_SET = re.compile(r'^(CONFIG_[A-Za-z0-9_]+)=(.*)$')
_UNSET = re.compile(r'^# (CONFIG_[A-Za-z0-9_]+) is not set$')


def parse(text):
    """Map symbol -> value ('n' for not set) for the lines of @text."""
    values = {}
    for line in text.splitlines():
        line = line.strip()
        m = _SET.match(line)
        if m:
            values[m.group(1)] = m.group(2)
            continue
        m = _UNSET.match(line)
        if m:
            values[m.group(1)] = 'n'
    return values


def merge(fragment_texts):
    """Symbol values of fragments applied in order (later ones win)."""
    merged = {}
    for text in fragment_texts:
        merged.update(parse(text))
    return merged


def verify(wanted, final):
    """List of (symbol, wanted, got) where the final config disagrees."""
    bad = []
    for sym, want in wanted.items():
        got = final.get(sym, 'n')
        if got != want:
            bad.append((sym, want, got))
    return bad


def format_mismatches(bad):
    return '\n'.join(f'  {s}: fragment sets {w}, .config has {g}'
                     for s, w, g in bad)
