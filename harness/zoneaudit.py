"""The ZONE_MOVABLE audit: every use of ZONE_MOVABLE in a series' kernel
sources is one somebody reviewed.

With ZONE_CMA, ZONE_MOVABLE stops being the highest zone. A use that means
"the zone a movable user allocation may reach" (a watermark check's class
zone, kswapd's highest zone) must say ZONE_MOVABLE_TOP, which is ZONE_CMA
when it is configured; a use that means the zone of memory hotplug and
movablecore= keeps ZONE_MOVABLE. The compiler cannot tell the two apart,
and mainline adds uses between releases, so the decision for each use is
written down in the base's series folder (series/zone-movable-uses) and
this audit fails on any use that is not there, and on any entry that no
longer matches a use (the list is out of date).

A use is a line of C code (comments left out) of a .c or .h file outside
Documentation/ and tools/ that names ZONE_MOVABLE, keyed by its file, the
function or declaration `git grep -p` shows it in, and its text with the
indentation stripped: line numbers move between releases, these rarely do.
"""
import collections
import dataclasses
import os
import re
import subprocess

from . import ktap, proc, results

FILE_NAME = 'zone-movable-uses'
GREP = ['grep', '-n', '-p', '-w', '-I', 'ZONE_MOVABLE', '--',
        '*.c', '*.h', ':!Documentation/', ':!tools/']

# `git grep -n -p` output: path:line:text for a match, path=line=text for
# the function header above it.
_LINE = re.compile(r'^(?P<path>[^:=]+)(?P<sep>[:=])(?P<n>\d+)[:=](?P<text>.*)$')
_BLOCK_COMMENT = re.compile(r'/\*.*?(\*/|$)')
_NAME = re.compile(r'([A-Za-z_]\w*)\s*\(')


@dataclasses.dataclass(frozen=True)
class Use:
    path: str
    function: str     # the identifier of the header git grep -p shows
    code: str         # the line, indentation and comments stripped
    line: int = dataclasses.field(default=0, compare=False)

    @property
    def key(self):
        return (self.path, self.function, self.code)

    def __str__(self):
        return f'{self.path}:{self.line}: {self.function}: {self.code}'


def strip_comments(text):
    """@text without /* */ and // comments, or '' for a comment line."""
    s = text.strip()
    # " * text" and " */" continue a block comment; "*p = x;" is code.
    if re.match(r'\*(\s|/|$)', s) or s.startswith('/*') and '*/' not in s:
        return ''
    s = _BLOCK_COMMENT.sub('', s)
    s = s.split('//', 1)[0]
    return s.strip()


def function_name(header):
    """The identifier a git grep -p header names: the function's, else the
    declaration's text (`enum zone_type`)."""
    m = _NAME.search(header)
    if m:
        return m.group(1)
    return header.strip().rstrip(' {;=') or '-'


def parse_grep(output):
    """[Use] of `git grep -n -p -w ZONE_MOVABLE` output, comments left out."""
    uses, header = [], {}
    for line in output.splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        path, text = m.group('path'), m.group('text')
        if m.group('sep') == '=':
            header[path] = function_name(text)
            continue
        code = strip_comments(text)
        if not re.search(r'\bZONE_MOVABLE\b', code):
            continue
        uses.append(Use(path, header.get(path, '-'), ' '.join(code.split()),
                        int(m.group('n'))))
    return uses


def load_reviewed(path):
    """{key: reason} of a reviewed list: `path | function | code` lines
    under `## reason` headings; a malformed line raises ValueError."""
    reviewed, reason = collections.OrderedDict(), None
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if line.startswith('## '):
                reason = line[3:].strip()
                continue
            if not line or line.startswith('#'):
                continue
            parts = [p.strip() for p in line.split(' | ', 2)]
            if len(parts) != 3 or not all(parts):
                raise ValueError(f'{path}:{n}: expected "<path> | <function> | <code>"')
            if not reason:
                raise ValueError(f'{path}:{n}: entry before any "## <reason>" heading')
            key = (parts[0], parts[1], ' '.join(parts[2].split()))
            if key in reviewed:
                raise ValueError(f'{path}:{n}: duplicate entry')
            reviewed[key] = reason
    return reviewed


def compare(uses, reviewed):
    """(uses not reviewed, reviewed keys that match no use)."""
    seen = {u.key for u in uses}
    new = [u for u in uses if u.key not in reviewed]
    stale = [k for k in reviewed if k not in seen]
    return new, stale


def reviewed_list(series_dir):
    return os.path.join(series_dir, FILE_NAME)


def audit(tree, series_dir, name='zone-movable-uses'):
    """A Summary: one passing case when every use in @tree is in the list in
    @series_dir, else a failing case per unreviewed use and per stale entry.
    None when the base has no list (its series has no ZONE_MOVABLE_TOP)."""
    listed = reviewed_list(series_dir)
    if not os.path.exists(listed):
        return None
    try:
        reviewed = load_reviewed(listed)
    except (OSError, ValueError) as e:
        return results.Summary(name, [], [str(e)])
    try:
        uses = parse_grep(proc.git(tree, *GREP))
    except subprocess.CalledProcessError as e:
        if e.returncode != 1:    # 1: no match at all
            return results.Summary(name, [], [f'git grep in {tree}: {e.stderr.strip()}'])
        uses = []
    new, stale = compare(uses, reviewed)
    cmd = proc.shell_line(['git', '-C', tree, *GREP])
    rel = os.path.relpath(listed, proc.ROOT)
    cases = [ktap.Case(f'{u.path}: {u.function}: not reviewed', ktap.FAIL,
                       f'line {u.line}: {u.code}; decide whether it means the highest '
                       f'zone (ZONE_MOVABLE_TOP) or ZONE_MOVABLE itself and add it to '
                       f'{rel}') for u in new]
    cases += [ktap.Case(f'{p}: {fn}: reviewed use gone', ktap.FAIL,
                        f'"{code}" no longer in the tree: update {rel}')
              for p, fn, code in stale]
    if not cases:
        cases.append(ktap.Case(f'{len(uses)} uses of ZONE_MOVABLE, all reviewed', ktap.PASS,
                               f'reproduce: {cmd}'))
    return results.Summary(name, cases, [])
