"""The figures the project quotes, rendered from bench/results/*.json.

bench/figures.ini names every figure the README's headline table, the cover
letter and the commit messages quote: a results file, a kernel, the kernel
it is compared with, a metric and a statistic. This module computes them
from the results files (never from typed numbers) and:

  - renders the headline table, which `make figures` writes between the
    markers of README.md;
  - renders `{{name.field}}` placeholders in a text (series/cover-letter.txt
    on export);
  - checks (gate `figures` of `make check`) that README.md's table is the
    rendered one, that the cover letter and README carry no figure typed
    outside a placeholder or the table, that the exported cover letter is
    its source rendered, and that every figure a commit message quotes is
    one of the rendered figures.

A "figure" in a text is what FIGURE_RE matches: a ratio (0.944x), a count
"N of M" (9 of 56 boots, 3 boots of 3, 16,122 of 16,256), a p value
(p = 0.01) or a percentage (32%). Other numbers (sizes, orders, thread
counts, and counts such as "4,454 THPs") are not recognised: a text
quotes those through placeholders by convention, and the gate cannot
tell them from a setup's numbers.
"""
import json
import os
import re
import textwrap

from . import benchstats, ini

TABLE_BEGIN = '<!-- figures:begin (make figures writes this table) -->'
TABLE_END = '<!-- figures:end -->'
PLACEHOLDER_RE = re.compile(r'\{\{([\w-]+)\.(\w+)\}\}')
# A ratio, a boot count or a p value, typed or rendered.
FIGURE_RE = re.compile(r'(?<![\w.{-])(\d+(?:\.\d+)?)x(?![\w])'
                       r'|(?<![\w.,-])(\d[\d,]*) (?:boots )?of (\d[\d,]*)(?![\d,]*\w)'
                       r'|\bp\s*=\s*(\d*\.?\d+)'
                       r'|(?<![\w.])(\d+(?:\.\d+)?)%')
STATS = ('median', 'max', 'boots')
OPS = {'>=': lambda a, b: a >= b, '<=': lambda a, b: a <= b,
       '==': lambda a, b: a == b, '<': lambda a, b: a < b, '>': lambda a, b: a > b}
KEYS = {'claim', 'results', 'bench', 'kernel', 'ref', 'metric', 'stat', 'format', 'target',
        'unit'}


class FigureError(Exception):
    """A figures table or results file that cannot give its figures."""


def normalise(match):
    """The canonical form of one FIGURE_RE match: '0.944x', '9 of 56',
    'p=0.01', '32%'."""
    ratio, a, n, p, pct = match.groups()
    if ratio is not None:
        return ratio + 'x'
    if a is not None:
        return f'{a.replace(",", "")} of {n.replace(",", "")}'
    if p is not None:
        return 'p=' + p
    return pct + '%'


def figures_in(text):
    """The canonical forms of the figures typed in @text, in order."""
    return [normalise(m) for m in FIGURE_RE.finditer(text)]


def fmt_number(x, spec=None):
    """@x as the tables print it: @spec (a format spec) if given, else an
    integer with thousands separators from 100 up, one decimal from 10,
    three significant figures below."""
    if spec:
        return format(x, spec)
    if abs(x) >= 100:
        return f'{x:,.0f}'
    if abs(x) >= 10:
        return f'{x:.1f}'
    return f'{x:.3g}'


def _with_unit(number, unit):
    if not unit:
        return number
    return number + unit if unit == '%' else f'{number} {unit}'


def load(path):
    """The sections of @path (bench/figures.ini), checked, in order."""
    cp = ini.read(path, FigureError)
    out = []
    for name in cp.sections():
        sec = dict(cp[name])
        bad = set(sec) - KEYS
        if bad:
            raise FigureError(f'{path}: [{name}]: unknown key {", ".join(sorted(bad))}')
        for key in ('results', 'kernel', 'ref', 'metric'):
            if not sec.get(key):
                raise FigureError(f'{path}: [{name}]: {key} is missing')
        sec.setdefault('stat', 'median')
        if sec['stat'] not in STATS:
            raise FigureError(f'{path}: [{name}]: stat {sec["stat"]!r} is not one of '
                              f'{", ".join(STATS)}')
        if sec.get('target'):
            _parse_target(sec['target'], f'{path}: [{name}]')
        sec['name'] = name
        out.append(sec)
    return out


def _parse_target(text, where):
    m = re.fullmatch(r'\s*(ratio|series)\s*(>=|<=|==|<|>)\s*(base|[\d.]+)\s*', text)
    if not m or (m.group(1) == 'ratio' and m.group(3) == 'base'):
        raise FigureError(f'{where}: target {text!r}: want "ratio OP NUMBER", '
                          f'"series OP NUMBER" or "series OP base"')
    lhs, op, rhs = m.groups()
    return lhs, op, rhs


def _runs(results_dir, sec, cache):
    name = sec['results']
    if name not in cache:
        path = os.path.join(results_dir, name + '.json')
        try:
            with open(path) as f:
                cache[name] = json.load(f)
        except (OSError, ValueError) as e:
            raise FigureError(f'[{sec["name"]}]: {path}: {e}') from None
    data = cache[name]
    kernels = data.get('kernels', {})
    for k in (sec['kernel'], sec['ref']):
        if k not in kernels:
            raise FigureError(f'[{sec["name"]}]: bench/results/{name}.json has no kernel '
                              f'{k!r} (it has {", ".join(kernels)})')
    return data, {k: kernels[k]['runs'] for k in (sec['kernel'], sec['ref'])}


def _stat(runs, kernel, metric, where, stat='median'):
    """The median (or, for stat max, the largest) of @metric over the
    kept boots of @kernel."""
    s = benchstats.summarise(benchstats.values(runs, kernel, metric))
    if s is None:
        raise FigureError(f'{where}: no kept boot of {kernel!r} has {metric!r}')
    return s[2] if stat == 'max' else s[0]


def _boots(runs, kernel, metric, where):
    told = [r for r in runs[kernel] if metric in r['metrics']]
    if not told:
        raise FigureError(f'{where}: no boot of {kernel!r} has {metric!r}')
    return sum(1 for r in told if r['metrics'][metric] > 0), len(told)


def compute(sec, results_dir, cache=None):
    """The rendered fields of one section: base, series, ratio (median) or
    p (boots), runs, verdict, rev, plus bench and results for the table."""
    cache = {} if cache is None else cache
    where = f'[{sec["name"]}]'
    data, runs = _runs(results_dir, sec, cache)
    k, ref, metric = sec['kernel'], sec['ref'], sec['metric']
    unit = sec.get('unit', '')
    f = {'bench': sec.get('bench', sec['results']), 'results': sec['results'],
         'rev': (data.get('series') or '').split(' ')[0] or '-', 'claim': sec.get('claim', '')}
    if sec['stat'] in ('median', 'max'):
        s, b = (_stat(runs, k, metric, where, sec['stat']),
                _stat(runs, ref, metric, where, sec['stat']))
        f['series'] = _with_unit(fmt_number(s, sec.get('format')), unit)
        f['base'] = _with_unit(fmt_number(b, sec.get('format')), unit)
        ratio = s / b if b else None
        f['ratio'] = f'{ratio:.3f}x' if ratio is not None else '-'
        values = {'series': s, 'base': b, 'ratio': ratio}
        kept = [len(benchstats.values(runs, x, metric)) for x in (ref, k)]
        f['runs'] = f'{kept[0]}/{len(runs[ref])}, {kept[1]}/{len(runs[k])}'
    else:
        (a, n), (c, m) = _boots(runs, k, metric, where), _boots(runs, ref, metric, where)
        f['series'], f['base'] = f'{a} of {n} boots', f'{c} of {m} boots'
        f['p'] = f'p = {benchstats.fisher_two_sided(a, n, c, m):.2g}'
        f['ratio'] = f['p']
        values = {'series': a, 'base': c, 'ratio': None}
        f['runs'] = f'{m}, {n}'
    f['target'] = sec.get('target', '').strip()
    if f['target']:
        lhs, op, rhs = _parse_target(f['target'], where)
        want = values['base'] if rhs == 'base' else float(rhs)
        have = values[lhs]
        f['verdict'] = ('met' if have is not None and OPS[op](round(have, 3), want)
                        else '**missed**')
    else:
        f['verdict'] = '-'
    return f


def compute_all(sections, results_dir):
    cache = {}
    return {s['name']: compute(s, results_dir, cache) for s in sections}


def table(sections, figs):
    """The headline table (markdown) of the sections that have a claim."""
    lines = ['| claim | reference | series | ratio or p | target | verdict | boots | '
             'reproduce | results (series at) |',
             '| --- | --- | --- | --- | --- | --- | --- | --- | --- |']
    for s in sections:
        if not s.get('claim'):
            continue
        f = figs[s['name']]
        lines.append(f'| {f["claim"]} | {f["base"]} | {f["series"]} | {f["ratio"]} | '
                     f'{f["target"] or "-"} | {f["verdict"]} | {f["runs"]} | '
                     f'`make bench B={f["bench"]}` | '
                     f'[{f["results"]}.json](bench/results/{f["results"]}.json) '
                     f'({f["rev"]}) |')
    return '\n'.join(lines)


NBSP = '\0'   # a space inside a figure, kept on one line by _reflow()


def _reflow_item(lines, width):
    first = re.match(r'\s*(?:- )?', lines[0]).group(0)
    rest = (re.match(r'\s*', lines[1]).group(0) if len(lines) > 1
            else ' ' * len(first))
    words = ' '.join(line.strip() for line in lines)[len(first.strip()):].split()
    return textwrap.fill(' '.join(words), width, initial_indent=first,
                         subsequent_indent=rest, break_on_hyphens=False,
                         break_long_words=False)


def _reflow(block, width):
    """@block (one paragraph, or a list whose items start with "- ")
    wrapped again to @width columns, each item on its own, keeping the
    indents of its first and continuation lines."""
    items = []
    for line in block.split('\n'):
        if not items or re.match(r'\s*- ', line):
            items.append([line])
        else:
            items[-1].append(line)
    return '\n'.join(_reflow_item(i, width) for i in items).replace(NBSP, ' ')


def render(text, figs, where='text', width=72):
    """@text with every {{name.field}} placeholder replaced by its figure;
    each paragraph that held one is wrapped again to @width columns."""
    blocks = re.split(r'(\n[ \t]*\n)', text)
    return ''.join(_reflow(_fill(b, figs, where), width)
                   if PLACEHOLDER_RE.search(b) and not b.startswith('\n') else b
                   for b in blocks)


def _fill(text, figs, where):
    def one(m):
        name, field = m.groups()
        if name not in figs:
            raise FigureError(f'{where}: {{{{{name}.{field}}}}}: no figure {name!r} '
                              f'in bench/figures.ini')
        if field not in figs[name]:
            raise FigureError(f'{where}: {{{{{name}.{field}}}}}: figure {name!r} has no '
                              f'{field!r} (it has {", ".join(sorted(figs[name]))})')
        return figs[name][field].replace(' ', NBSP)
    return PLACEHOLDER_RE.sub(one, text)


def replace_table(readme, rendered):
    """README text @readme with the block between the markers replaced."""
    start, end = readme.find(TABLE_BEGIN), readme.find(TABLE_END)
    if start < 0 or end < start:
        raise FigureError(f'README.md has no "{TABLE_BEGIN}" ... "{TABLE_END}" block')
    return readme[:start + len(TABLE_BEGIN)] + '\n' + rendered + '\n' + readme[end:]


def rendered_set(figs):
    """The canonical forms of every rendered figure."""
    out = set()
    for f in figs.values():
        for v in f.values():
            out.update(figures_in(str(v)))
    return out


def typed_figures(text, where):
    """Problems for figures typed in @text outside placeholders and the
    table block: a text that quotes results must take them from figures."""
    start, end = text.find(TABLE_BEGIN), text.find(TABLE_END)
    if 0 <= start < end:  # blank it, keeping the line numbers of the rest
        text = text[:start] + '\n' * text.count('\n', start, end) + text[end:]
    problems = []
    for n, line in enumerate(text.splitlines(), 1):
        for m in FIGURE_RE.finditer(PLACEHOLDER_RE.sub('', line)):
            problems.append(f'{where}:{n}: "{m.group(0)}" is typed: take it from '
                            f'bench/figures.ini as a {{{{name.field}}}} placeholder')
    return problems


def commit_message(patch_text):
    """The commit message of a format-patch file: from the Subject to '---'."""
    head, _, _ = patch_text.partition('\n---\n')
    _, _, msg = head.partition('Subject: ')
    return msg


def unknown_figures(text, known, where):
    """Problems for the figures @text quotes that no results file gives."""
    return [f'{where}: "{fig}" is not a figure of bench/figures.ini (rendered from '
            f'bench/results): a stale or hand-typed result'
            for fig in figures_in(text) if fig not in known]


# A diary entry: a date or a clock time. The README and docs/ are
# reference; history lives in git and in the cover letters.
DATED_RE = re.compile(r'\b20\d\d-\d\d-\d\d\b|(?<![\w:.-])\d{1,2}:\d\d(?![\w:])')


def dated(text, where):
    return [f'{where}:{n}: "{m.group(0)}": a date or clock time in reference text'
            for n, line in enumerate(text.splitlines(), 1)
            for m in DATED_RE.finditer(line)]


def _read(path):
    with open(path) as f:
        return f.read()


def check(root, patches_dir, cover_src, figures_ini, results_dir):
    """Problems (strings) of every text that quotes results; [] when all
    agree with bench/results. Raises FigureError for a broken table."""
    rel = lambda p: os.path.relpath(p, root)  # noqa: E731
    sections = load(figures_ini)
    figs = compute_all(sections, results_dir)
    problems = []
    readme_path = os.path.join(root, 'README.md')
    readme = _read(readme_path)
    if replace_table(readme, table(sections, figs)) != readme:
        problems.append(f'README.md: the headline table differs from bench/results '
                        f'(make figures rewrites it)')
    problems += typed_figures(readme, 'README.md') + dated(readme, 'README.md')
    docs = os.path.join(root, 'docs')
    for name in sorted(os.listdir(docs)) if os.path.isdir(docs) else []:
        if name.endswith('.md'):
            problems += dated(_read(os.path.join(docs, name)), f'docs/{name}')
    cover = _read(cover_src)
    problems += typed_figures(cover, rel(cover_src))
    rendered = render(cover, figs, rel(cover_src))
    body = rendered.partition('\n')[2].strip()
    exported = os.path.join(patches_dir, '0000-cover-letter.patch')
    if os.path.exists(exported) and body not in _read(exported):
        problems.append(f'{rel(exported)}: not {rel(cover_src)} rendered with today\'s '
                        f'figures (make export)')
    known = rendered_set(figs)
    for name in sorted(os.listdir(patches_dir)):
        if name.endswith('.patch') and not name.startswith('0000-'):
            msg = commit_message(_read(os.path.join(patches_dir, name)))
            problems += unknown_figures(msg, known, f'{rel(patches_dir)}/{name}')
    return problems


def summary(root, patches_dir, cover_src, name='figures'):
    """check() as a results.Summary: one case per text, failing with its
    problems (make check's gate `figures`, and make test)."""
    from . import ktap, results
    try:
        problems = check(root, patches_dir, cover_src,
                         os.path.join(root, 'bench', 'figures.ini'),
                         os.path.join(root, 'bench', 'results'))
    except (FigureError, OSError) as e:
        return results.Summary(name, [], [str(e)])
    texts = ['README.md', 'docs/', os.path.relpath(cover_src, root),
             os.path.relpath(patches_dir, root) + '/']
    cases = []
    for t in texts:
        mine = [p for p in problems if p.startswith(t)]
        cases.append(ktap.Case(f'figures {t}', ktap.FAIL if mine else ktap.PASS,
                               '; '.join(mine[:5]) + (f'; and {len(mine) - 5} more'
                                                      if len(mine) > 5 else '')
                               + ('; ' if mine else '') +
                               'reproduce: python3 -m harness figures --check'))
    return results.Summary(name, cases, [])
