"""One boot of a built kernel, judged: the one path by which make run and
make test (pipeline), make bench and the commands built on it: soak,
fault-inject, mm-selftests (benchrun), and the boot rows of make
bad-input and make layouts (badinput) boot a guest.

run() boots QEMU's command line (qemu.command(), plus what the caller
adds), tees the console to its log and judges the boot with
console.judge(), so that every command fails a boot for the same
reasons: a kernel splat, a boot killed at the variant's wall-clock
limit, a guest that never started or never finished what it runs, QEMU's
error, a kmemleak kernel that did not scan after its tests, a workload
that exited non-zero. What each caller reads besides is its own: the
KTAP results (console.summarise), the BENCH figures
(console.bench_figures), a row's expectations (badinput.judge_boot).
"""
import dataclasses
import os
import re

from . import console, qemu

_MODE = re.compile(r'(?:^|\s)harness\.mode=(\S+)')


@dataclasses.dataclass(frozen=True)
class Boot:
    log: str                        # the console log's path
    rc: object                      # QEMU's exit status; None: killed at the limit
    elapsed: object                 # seconds QEMU ran; None for a log read again
    text: str                       # the console
    judgement: console.Judgement    # console.judge() of the boot

    @property
    def problems(self):
        """Why the boot failed ([] when it did not): judgement.problems."""
        return self.judgement.problems


def mode_of(argv):
    """The guest's harness.mode= on the kernel command line of @argv (a
    qemu.command()): what it runs, so what its console must show."""
    try:
        m = _MODE.search(argv[argv.index('-append') + 1])
    except (ValueError, IndexError):
        m = None
    if not m:
        raise ValueError('no harness.mode= on the kernel command line of: ' +
                         ' '.join(map(str, argv)))
    return m.group(1)


def run(variant, argv, log, echo=None):
    """Boot @argv (qemu.command() of @variant, with any QEMU arguments the
    caller adds) under @variant's wall-clock limit, its console teed to
    @log (@echo, if given, called with each line as it arrives); the Boot,
    judged."""
    rc, elapsed = qemu.boot(argv, log, variant.boot_timeout, echo=echo)
    return read(variant, log, mode_of(argv), rc, elapsed)


def read(variant, log, mode, rc=0, elapsed=None):
    """The Boot of @variant's kernel whose console a boot in @mode wrote to
    @log. @rc: QEMU's exit status (None: killed at the variant's limit; 0
    for a log read again, whose status is not kept)."""
    with open(log, errors='replace') as f:
        text = f.read()
    return Boot(log, rc, elapsed, text, console.judge(
        text, rc, variant.boot_timeout, mode,
        kmemleak='kmemleak' in variant.fragments, log=os.path.basename(log)))
