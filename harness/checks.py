"""Checks that need no QEMU: the harness's own tests and checkpatch."""
import fnmatch
import glob
import io
import os
import re
import subprocess
import unittest

from . import ktap, proc, results

_TOTAL = re.compile(r'total: (\d+) errors, (\d+) warnings, (?:(\d+) checks, )?')


def unit_tests(root):
    """Run harness/tests; one case per test method."""
    suite = unittest.defaultTestLoader.discover(
        os.path.join(root, 'harness', 'tests'), top_level_dir=root)
    cases = []

    class Collect(unittest.TextTestResult):
        def addSuccess(self, test):
            super().addSuccess(test)
            cases.append(ktap.Case(test.id(), ktap.PASS))

        def addFailure(self, test, err):
            super().addFailure(test, err)
            cases.append(ktap.Case(test.id(), ktap.FAIL,
                                   self._exc_info_to_string(err, test).splitlines()[-1]))

        def addError(self, test, err):
            super().addError(test, err)
            cases.append(ktap.Case(test.id(), ktap.FAIL,
                                   self._exc_info_to_string(err, test).splitlines()[-1]))

        def addSkip(self, test, reason):
            super().addSkip(test, reason)
            cases.append(ktap.Case(test.id(), ktap.SKIP, reason))

        def addSubTest(self, test, subtest, err):
            # A failing subtest is the test's failure: addSuccess is not
            # called for a test with one, so it must be counted here.
            super().addSubTest(test, subtest, err)
            if err is not None:
                cases.append(ktap.Case(subtest.id(), ktap.FAIL,
                                       self._exc_info_to_string(err, test).splitlines()[-1]))

        def addUnexpectedSuccess(self, test):
            super().addUnexpectedSuccess(test)
            cases.append(ktap.Case(test.id(), ktap.FAIL, 'expected to fail, passed'))

    stream = io.StringIO()
    unittest.TextTestRunner(stream=stream, resultclass=Collect,
                            verbosity=0).run(suite)
    return results.Summary('harness-tests', cases, [])


_MESSAGE = re.compile(r':\d*:? ?(ERROR|WARNING|CHECK): (.*)$')


def parse_checkpatch(output):
    """(errors, warnings, checks) from checkpatch.pl's total line, or None."""
    m = _TOTAL.search(output)
    if not m:
        return None
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def messages(output):
    """[(type, text)] of checkpatch --terse output."""
    out = []
    for line in output.splitlines():
        m = _MESSAGE.search(line)
        if m:
            out.append((m.group(1), m.group(2).strip()))
    return out


def load_allowlist(path):
    """[(patch glob, message substring, reason)]; malformed lines raise."""
    entries = []
    if not os.path.exists(path):
        return entries
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            parts = [p.strip() for p in line.split('|')]
            if len(parts) != 3 or not all(parts):
                raise ValueError(f'{path}:{n}: expected "<patch glob> | <message> | <reason>"')
            entries.append(tuple(parts))
    return entries


def allowed(patch_name, text, allowlist):
    return any(fnmatch.fnmatch(patch_name, g) and m in text for g, m, _ in allowlist)


# Where Debian's codespell package keeps its dictionary (checkpatch's own
# default, /usr/share/codespell/dictionary.txt, is not it).
CODESPELL_DICTS = ('/usr/share/codespell/dictionary.txt',
                   '/usr/lib/python3/dist-packages/codespell_lib/data/dictionary.txt')


def codespell_dict():
    """The codespell dictionary checkpatch should use, or None."""
    return next((d for d in CODESPELL_DICTS if os.path.exists(d)), None)


def checkpatch(tree, patch_dir, allowlist_path=None, codespell=False):
    """checkpatch.pl --strict (and --codespell) on every patch; any message
    not allowlisted fails."""
    script = os.path.join(tree, 'scripts', 'checkpatch.pl')
    patches = sorted(p for p in glob.glob(os.path.join(patch_dir, '[0-9]*.patch'))
                     if not p.endswith('0000-cover-letter.patch'))
    cases, problems = [], []
    try:
        allowlist = load_allowlist(allowlist_path) if allowlist_path else []
    except ValueError as e:
        return results.Summary('checkpatch', [], [str(e)])
    if not patches:
        cases.append(ktap.Case('checkpatch', ktap.SKIP, f'no patches in {patch_dir}'))
    env = proc.system_env()
    flags = ['--strict', '--terse', '--color=never']
    if codespell:
        found = codespell_dict()
        if not found:
            return results.Summary('checkpatch', [], [
                f'no codespell dictionary ({", ".join(CODESPELL_DICTS)}): '
                'install Debian\'s codespell (make deps)'])
        flags += ['--codespell', '--codespellfile', found]
    for p in patches:
        name = os.path.basename(p)
        run = subprocess.run(['perl', script, *flags, os.path.abspath(p)],
                              cwd=tree, env=env, capture_output=True, text=True)
        case = 'checkpatch --strict ' + name
        found = messages(run.stdout)
        if run.returncode and not found:
            cases.append(ktap.Case(case, ktap.FAIL, f'checkpatch exited {run.returncode}: ' +
                                   (run.stderr.strip().splitlines() or ['?'])[-1]))
            continue
        bad = [f'{t}: {m}' for t, m in found if not allowed(name, m, allowlist)]
        if 'Traceback' in run.stderr:
            bad.append('a checkpatch helper crashed: ' + run.stderr.strip().splitlines()[-1])
        cases.append(ktap.Case(case, ktap.FAIL if bad else ktap.PASS,
                               ' | '.join(bad[:3]) + (f' (+{len(bad) - 3} more)'
                                                      if len(bad) > 3 else '')))
    return results.Summary('checkpatch', cases, problems)
