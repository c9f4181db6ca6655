"""QEMU: the command line for a variant and a boot with a wall-clock limit."""
import os
import subprocess
import threading
import time


def command(variant, kernel, initrd, mode='run', extra_cmdline='', kvm=False):
    """argv that boots @kernel with @initrd for @variant.

    @mode: 'run' runs the kselftests and powers off, 'shell' gives a shell,
    'probe' powers off at once (used to see whether KVM works).
    """
    arch = variant.arch
    cmdline = ' '.join(x for x in (
        f'console={arch.console}',
        f'earlycon={arch.earlycon}' if arch.earlycon else '',
        'panic=-1', variant.cmdline,
        f'harness.mode={mode}', f'harness.tests={variant.tests}',
        *(f'harness.args.{t}={a}' for t, a in variant.test_args),
        extra_cmdline) if x)
    argv = [arch.qemu, *arch.machine, '-m', variant.memory,
            '-smp', str(variant.cpus), '-no-reboot', '-nographic',
            '-kernel', kernel, '-initrd', initrd, '-append', cmdline,
            *variant.qemu_extra]
    if kvm:
        argv = [arch.qemu, '-accel', 'kvm'] + argv[1:]
        if '-cpu' in argv:
            argv[argv.index('-cpu') + 1] = 'host'
    else:
        argv += ['-accel', 'tcg']
    return argv


def boot(argv, log_path, wall_limit, echo=None):
    """Run QEMU, teeing its console to @log_path; kill it after @wall_limit s.

    Returns (exit code or None when killed, elapsed seconds). @echo, if
    given, is called with each console line as it arrives (progress).
    """
    start = time.monotonic()
    with open(log_path, 'w', errors='replace') as log:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
        killed = threading.Event()

        def watchdog():
            if proc.poll() is None:
                killed.set()
                proc.kill()

        timer = threading.Timer(wall_limit, watchdog)
        timer.start()
        try:
            for raw in proc.stdout:
                line = raw.decode('utf-8', 'replace')
                log.write(line)
                log.flush()
                if echo:
                    echo(line)
        finally:
            timer.cancel()
            proc.wait()
    elapsed = time.monotonic() - start
    return (None if killed.is_set() else proc.returncode), elapsed


def kvm_usable(argv_probe, log_path, limit=60):
    """Boot once with KVM to see whether guests run here (they often hang)."""
    if not os.access('/dev/kvm', os.R_OK | os.W_OK):
        return False, '/dev/kvm is not accessible'
    rc, elapsed = boot(argv_probe, log_path, limit)
    if rc is None:
        return False, f'KVM probe boot hung ({limit} s); using TCG'
    with open(log_path, errors='replace') as f:
        if 'HARNESS: probe ok' not in f.read():
            return False, 'KVM probe boot did not reach userspace; using TCG'
    return True, f'KVM probe boot took {elapsed:.1f} s'
