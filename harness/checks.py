"""Checks that need no QEMU: the harness's own tests and checkpatch."""
import glob
import io
import os
import re
import subprocess
import unittest

from . import ktap, results

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

    stream = io.StringIO()
    unittest.TextTestRunner(stream=stream, resultclass=Collect,
                            verbosity=0).run(suite)
    return results.Summary('harness-tests', cases, [])


def parse_checkpatch(output):
    """(errors, warnings, checks) from checkpatch.pl's total line, or None."""
    m = _TOTAL.search(output)
    if not m:
        return None
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def checkpatch(tree, patch_dir):
    """checkpatch.pl --strict on every patch; any message fails it."""
    script = os.path.join(tree, 'scripts', 'checkpatch.pl')
    patches = sorted(p for p in glob.glob(os.path.join(patch_dir, '[0-9]*.patch'))
                     if not p.endswith('0000-cover-letter.patch'))
    cases = []
    if not patches:
        cases.append(ktap.Case('checkpatch', ktap.SKIP, f'no patches in {patch_dir}'))
    for p in patches:
        proc = subprocess.run(['perl', script, '--strict', '--color=never',
                               '--showfile', os.path.abspath(p)], cwd=tree,
                              capture_output=True, text=True)
        counts = parse_checkpatch(proc.stdout)
        name = 'checkpatch --strict ' + os.path.basename(p)
        if counts == (0, 0, 0):
            cases.append(ktap.Case(name, ktap.PASS))
            continue
        msgs = [l for l in proc.stdout.splitlines()
                if l.startswith(('ERROR:', 'WARNING:', 'CHECK:')) or ': ERROR:' in l
                or ': WARNING:' in l or ': CHECK:' in l]
        why = (f'{counts[0]} errors, {counts[1]} warnings, {counts[2]} checks'
               if counts else 'checkpatch printed no total') + \
            ('; ' + ' | '.join(msgs[:3]) if msgs else '')
        cases.append(ktap.Case(name, ktap.FAIL, why))
    return results.Summary('checkpatch', cases, [])
