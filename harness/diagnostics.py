"""Parsers of make check: what compilers, sparse, kernel-doc and Sphinx print,
what a diff adds, and the function definitions of a C file. Pure functions,
no command run (harness/gates.py runs the tools); tested in
harness/tests/test_gates.py.
"""
import collections
import re


def kernel_sources(paths):
    """The kernel .c and .h files among @paths (not tools/, scripts/, docs)."""
    return sorted(p for p in paths
                  if p.endswith(('.c', '.h')) and
                  not p.startswith(('tools/', 'scripts/', 'Documentation/',
                                    'samples/')))


_LOCATION = re.compile(r'^(?P<file>[^:\s]+):\d+(?::\d+)?:\s*')


def normalise_warning(line, prefixes=()):
    """@line without line and column numbers and without any of @prefixes
    (tree or output directories), so that the same warning matches in two
    trees and across edits that move it."""
    for p in prefixes:
        line = line.replace(p.rstrip('/') + '/', '')
    m = _LOCATION.match(line)
    if m:
        line = m.group('file') + ': ' + line[m.end():]
    return line.strip()


def compiler_warnings(output, prefixes=()):
    """Normalised warning and error lines of a compiler or sparse run."""
    found = []
    for line in output.splitlines():
        if re.search(r'\b(warning|error):', line):
            found.append(normalise_warning(line, prefixes))
    return found


def new_warnings(base, series):
    """Warnings of @series not in @base, counting duplicates."""
    extra = collections.Counter(series) - collections.Counter(base)
    return sorted(extra.elements())


_HUNK = re.compile(r'^@@ -\d+(?:,\d+)? \+(?P<start>\d+)(?:,(?P<n>\d+))? @@')


def added_lines(diff_text):
    """{path: set of line numbers added in the new file} of a `git diff -U0`."""
    added, path, line = {}, None, 0
    for text in diff_text.splitlines():
        if text.startswith('+++ '):
            name = text[4:]
            path = name[2:] if name.startswith('b/') else None
            continue
        m = _HUNK.match(text)
        if m:
            line = int(m.group('start'))
            continue
        if path and text.startswith('+'):
            added.setdefault(path, set()).add(line)
            line += 1
        elif path and text.startswith(' '):
            line += 1
    return added


def function_definitions(source):
    """[(line number, name, static?)] of the top-level function definitions
    of a C file: a line at column 0 with a name and '(' whose declaration
    ends in ')' followed by a '{' line."""
    lines = source.splitlines()
    defs = []
    for i, text in enumerate(lines):
        if not text or text[0] in ' \t#/*{}' or '(' not in text:
            continue
        m = re.match(r'^(?P<decl>[A-Za-z_][\w \t\*]*?)\b(?P<name>[A-Za-z_]\w*)\s*\(', text)
        if not m or m.group('name') in ('if', 'for', 'while', 'switch', 'return'):
            continue
        if text.startswith(('typedef', 'extern')) or text.rstrip().endswith(';'):
            continue
        j = i
        while j < len(lines) and not lines[j].rstrip().endswith((')', '{', ';')):
            j += 1
        if j >= len(lines) or lines[j].rstrip().endswith(';'):
            continue
        if not (lines[j].rstrip().endswith('{') or
                (j + 1 < len(lines) and lines[j + 1].strip() == '{')):
            continue
        if '=' in m.group('decl'):
            continue
        defs.append((i + 1, m.group('name'), m.group('decl').startswith('static')))
    return defs


def has_kernel_doc(source, line_no):
    """Is the function defined at @line_no (1-based) preceded by a /** */
    comment (blank lines and attributes like __init aside)?"""
    lines = source.splitlines()
    i = line_no - 2
    while i >= 0 and not lines[i].strip():
        i -= 1
    if i < 0 or not lines[i].strip().endswith('*/'):
        return False
    while i >= 0 and not lines[i].lstrip().startswith('/*'):
        i -= 1
    return i >= 0 and lines[i].lstrip().startswith('/**')


def undocumented_new_functions(diff_text, read_file):
    """[(path, line, name)] of non-static functions whose definition line the
    diff adds to a kernel .c file and that have no kernel-doc comment.
    @read_file(path) returns the file's text after the diff."""
    missing = []
    for path, lines in sorted(added_lines(diff_text).items()):
        if not path.endswith('.c') or not kernel_sources([path]):
            continue
        source = read_file(path)
        for line_no, name, is_static in function_definitions(source):
            if not is_static and line_no in lines and not has_kernel_doc(source, line_no):
                missing.append((path, line_no, name))
    return missing


# Sphinx output lines that are warnings or errors.
_SPHINX_WARNING = re.compile(r'\b(WARNING|ERROR|CRITICAL)\b|: (warning|error):')


def doc_dirs(paths):
    """The top-level Documentation/ directories among @paths."""
    return sorted({p.split('/')[1] for p in paths
                   if p.startswith('Documentation/') and p.count('/') >= 2})


def sphinx_warnings(output, prefixes=()):
    """Normalised warning lines of a `make htmldocs` run."""
    found = []
    for line in output.splitlines():
        if _SPHINX_WARNING.search(line):
            found.append(normalise_warning(line, prefixes))
    return found
