"""Per-variant results: a Summary (cases and problems) and its JSON file."""
import dataclasses
import json

from . import ktap


@dataclasses.dataclass
class Summary:
    variant: str
    cases: list                 # ktap.Case
    problems: list              # strings: reasons the run failed outside tests

    def count(self, status):
        return sum(1 for c in self.cases if c.status == status)

    @property
    def passed(self):
        return self.count(ktap.PASS)

    @property
    def failed(self):
        return (self.count(ktap.FAIL) + self.count(ktap.TIMEOUT) +
                len(self.problems))

    @property
    def skipped(self):
        return self.count(ktap.SKIP)

    @property
    def ok(self):
        return self.failed == 0

    def to_json(self):
        return json.dumps({
            'variant': self.variant,
            'passed': self.passed, 'failed': self.failed,
            'skipped': self.skipped, 'ok': self.ok,
            'problems': self.problems,
            'cases': [dataclasses.asdict(c) for c in self.cases],
        }, indent=2) + '\n'


def summarise(variant, ktap_text, expected_tests, splats, boot_problem=None):
    """Build the Summary of one boot.

    @expected_tests: names run_kselftest.sh was asked to run; each must report.
    @splats: (kind, line) pairs from splat.find().
    @boot_problem: why the boot itself failed (timeout, QEMU error), or None.
    """
    problems = []
    if boot_problem:
        problems.append(boot_problem)
    block = ktap.parse(ktap_text)
    cases = []
    for r in block.results:
        cases += ktap.cases(r, require_tap=True)
    reported = len(block.results)
    if reported < len(expected_tests):
        problems.append(f'{len(expected_tests)} tests expected, {reported} '
                        f'reported ({", ".join(expected_tests)})')
    if block.plan is not None and reported < block.plan:
        problems.append(f'runner planned {block.plan} tests, {reported} reported')
    if block.bail_out:
        problems.append('runner bailed out: ' + block.bail_out)
    problems += ['KTAP: ' + p for p in block.problems]
    for kind, line in splats:
        problems.append(f'kernel splat: {line}')
    return Summary(variant, cases, problems)
