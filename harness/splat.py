"""Find kernel splats in a console log.

A splat fails a run even when every test passed. What counts: BUG (and
so KASAN), WARNING, Oops, a call trace, "Bad page state", lockdep and RCU
reports, hung tasks, panics, kmemleak reports, page allocation failure
warnings and OOM kills. Each distinct splat is
reported once, by its first line with the printk timestamp removed.
"""
import re

_TIMESTAMP = re.compile(r'^\[\s*\d+\.\d+\]\s?')

PATTERNS = [
    ('BUG', re.compile(r'\bBUG: |kernel BUG at ')),
    ('WARNING', re.compile(r'\bWARNING: |------------\[ cut here \]------------')),
    ('Oops', re.compile(r'\bOops\b|Internal error: |general protection fault|'
                        r'Unable to handle kernel ')),
    ('Call Trace', re.compile(r'\bCall [Tt]race:')),
    ('Bad page state', re.compile(r'\bBad page (state|map)\b')),
    ('lockdep', re.compile(r'possible (circular|recursive) locking|'
                           r'inconsistent lock state|DEBUG_LOCKS_WARN_ON|'
                           r'possible irq lock inversion|lock held when returning|'
                           r'suspicious RCU usage')),
    ('RCU stall', re.compile(r'rcu: INFO: .* detected stalls|'
                             r'self-detected stall')),
    ('hung task', re.compile(r'INFO: task .* blocked for more than')),
    ('panic', re.compile(r'Kernel panic - not syncing')),
    # warn_alloc() and the OOM killer print a call trace; their own first
    # line says what failed.
    ('allocation failure', re.compile(r'page allocation failure: order:\d+')),
    ('OOM kill', re.compile(r'invoked oom-killer: ')),
    # The guest's kmemleak scan after the tests (harness/guest/init) prints
    # the report file: one "unreferenced object" per leak.
    # A kmemleak that ran out of metadata and switched itself off has
    # stopped checking: that fails the run as well.
    ('kmemleak', re.compile(r'^unreferenced object (\((percpu|phys)\) )?0x[0-9a-f]+|'
                            r'kmemleak: \d+ new suspected memory leaks|'
                            r'Kernel memory leak detector disabled')),
]


def strip_timestamp(line):
    return _TIMESTAMP.sub('', line.rstrip('\r\n'))


def find(lines):
    """List of (kind, first line) for each distinct splat in @lines."""
    seen = set()
    found = []
    for raw in lines:
        line = strip_timestamp(raw)
        for kind, pat in PATTERNS:
            if pat.search(line):
                key = (kind, line)
                if key not in seen:
                    seen.add(key)
                    found.append(key)
                break
    return _collapse(found)


def _collapse(found):
    """Drop the generic markers a more specific line already explains.

    A WARNING prints "cut here", then "WARNING: ...", then "Call Trace:";
    one report is enough. Markers are kept when nothing specific is near.
    """
    specific = [f for f in found if not _is_marker(f[1])]
    return specific if specific else found


def _is_marker(line):
    return 'cut here' in line or re.search(r'\bCall [Tt]race:', line) is not None
