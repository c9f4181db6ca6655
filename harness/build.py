"""Build one variant: .config from fragments, kernel, kselftests, initramfs."""
import glob
import os
import shutil
import subprocess
import sys

from . import kconfig

HERE = os.path.dirname(os.path.abspath(__file__))
GUEST = os.path.join(HERE, 'guest')


class BuildError(Exception):
    pass


# Niceness of the build commands: the harness raises it when a build runs
# beside a guest (cli.run_variants), so that the guest keeps its CPU time.
NICE = 0


def jobs():
    return str((os.cpu_count() or 1) + 1)


def _kbuild_args(variant, out):
    return kbuild_args(variant.arch, out)


def kbuild_args(arch, out):
    """O=, ARCH=, CROSS_COMPILE= and ccache arguments of make for @arch."""
    args = [f'O={out}', f'ARCH={arch.name}']
    if arch.cross_compile:
        args.append(f'CROSS_COMPILE={arch.cross_compile}')
    if shutil.which('ccache'):
        args += [f'CC=ccache {arch.cross_compile}gcc', 'HOSTCC=ccache gcc']
    return args


def _run(argv, log, what):
    """Run @argv with output appended to @log; raise BuildError naming @what."""
    if NICE:
        argv = ['nice', '-n', str(NICE), *argv]
    with open(log, 'a') as f:
        f.write('$ ' + ' '.join(argv) + '\n')
        f.flush()
        rc = subprocess.call(argv, stdout=f, stderr=subprocess.STDOUT)
    if rc:
        with open(log, errors='replace') as f:
            tail = f.readlines()[-25:]
        raise BuildError(f'{what} failed (exit {rc}); last lines of {log}:\n' +
                         ''.join(tail))


def configure(variant, tree, out, configs_dir, log, base_title=''):
    """tinyconfig + the variant's fragments + olddefconfig, then verify.
    @base_title ('Linux 7.3-rc7') names the kernel in the error."""
    os.makedirs(out, exist_ok=True)
    texts = []
    for path in variant.fragment_paths(configs_dir):
        if not os.path.exists(path):
            raise BuildError(f'variant {variant.name}: no fragment {path}')
        with open(path) as f:
            texts.append(f.read())
    make = ['make', '-C', tree, *_kbuild_args(variant, out)]
    _run(make + ['tinyconfig'], log, 'make tinyconfig')
    with open(os.path.join(out, '.config'), 'a') as f:
        for t in texts:
            f.write('\n' + t)
    _run(make + ['olddefconfig'], log, 'make olddefconfig')
    with open(os.path.join(out, '.config')) as f:
        final = kconfig.parse(f.read())
    bad = kconfig.verify(kconfig.merge(texts), final)
    if bad:
        raise BuildError(mismatch_message(variant, base_title, tree, bad))


def mismatch_message(variant, base_title, tree, bad):
    """The error of configure() when fragment symbols did not keep their
    values: which variant, on which base and tree, which symbols."""
    on = f'base {variant.base}' + (f' ({base_title}, {tree})' if base_title else f' ({tree})')
    return (f'variant {variant.name} on {on}: Kconfig symbols the fragments '
            f'set did not keep their values in .config (unknown to this base, or '
            f'unmet dependencies?):\n' + kconfig.format_mismatches(bad))


def kernel(variant, tree, out, log):
    make = ['make', '-C', tree, *_kbuild_args(variant, out), '-j', jobs()]
    _run(make + [os.path.basename(variant.arch.image)], log, 'kernel build')
    image = os.path.join(out, variant.arch.image)
    if not os.path.exists(image):
        raise BuildError(f'kernel build produced no {image}')
    return image


def kselftests(variant, tree, out, log, targets='cma'):
    """kselftest-install of @targets, static, into <out>/kselftest_install."""
    dest = os.path.join(out, 'kselftest_install')
    shutil.rmtree(dest, ignore_errors=True)
    args = [a for a in _kbuild_args(variant, out) if not a.startswith(('CC=', 'HOSTCC='))]
    # The host gcc builds i386 userspace with -m32 (gcc-12-multilib); the
    # flag goes to the link too, or a 64-bit libc would be linked in.
    flags = variant.arch.user_cflags
    user = ([f'USERCFLAGS={flags}', f'USERLDFLAGS=-static {flags}'] if flags
            else ['USERLDFLAGS=-static'])
    make = ['make', '-C', tree, *args, '-j', jobs(), f'TARGETS={targets}',
            f'INSTALL_PATH={dest}', *user, 'kselftest-install']
    _run(make, log, 'kselftest build')
    if not os.path.exists(os.path.join(dest, 'run_kselftest.sh')):
        raise BuildError(f'kselftest-install left no run_kselftest.sh in {dest}')
    return dest


def kselftest_list(install_dir):
    """collection:test entries the install provides."""
    with open(os.path.join(install_dir, 'kselftest-list.txt')) as f:
        return [l.strip() for l in f if l.strip()]


def select_tests(entries, selection):
    """Entries run_kselftest.sh runs for @selection ('cma' or 'cma:t,...')."""
    chosen = []
    for sel in selection.split(','):
        if ':' in sel:
            hits = [e for e in entries if e == sel]
        else:
            hits = [e for e in entries if e.split(':', 1)[0] == sel]
        if not hits:
            raise BuildError(f'no kselftest matches {sel!r}; available:\n  ' +
                             '\n  '.join(entries))
        chosen += [h for h in hits if h not in chosen]
    return chosen


def busybox(variant, cache_dir):
    """Path of a static busybox binary for the variant's arch."""
    deb_arch = variant.arch.busybox_deb_arch
    host_arch = subprocess.run(['dpkg', '--print-architecture'],
                               capture_output=True, text=True).stdout.strip()
    if deb_arch == host_arch and os.path.exists('/bin/busybox'):
        return '/bin/busybox'
    dest = os.path.join(cache_dir, f'busybox-{deb_arch}')
    if os.path.exists(dest):
        return dest
    os.makedirs(cache_dir, exist_ok=True)
    for old in glob.glob(os.path.join(cache_dir, f'busybox-static_*_{deb_arch}.deb')):
        os.unlink(old)
    os.chmod(cache_dir, 0o755)
    proc = subprocess.run(['apt-get', 'download', f'busybox-static:{deb_arch}'],
                          cwd=cache_dir, capture_output=True, text=True)
    rc = proc.returncode
    debs = glob.glob(os.path.join(cache_dir, f'busybox-static_*_{deb_arch}.deb'))
    if rc or not debs:
        raise BuildError(f'cannot download busybox-static:{deb_arch} '
                         f'({proc.stderr.strip()}); run '
                         f'`dpkg --add-architecture {deb_arch} && apt-get update` '
                         f'(make deps does this)')
    unpack = os.path.join(cache_dir, f'busybox-{deb_arch}.d')
    shutil.rmtree(unpack, ignore_errors=True)
    subprocess.check_call(['dpkg-deb', '-x', debs[0], unpack])
    shutil.copy(os.path.join(unpack, 'bin', 'busybox'), dest)
    shutil.rmtree(unpack)
    return dest


def initramfs(variant, selftests_dir, busybox_path, dest, extra_files=()):
    """Pack init, busybox, the timeout wrapper and the kselftests (cpio.gz).

    @extra_files: (host path, guest path) pairs, e.g. benchmark programs.
    """
    root = dest + '.d'
    shutil.rmtree(root, ignore_errors=True)
    for d in ('bin', 'sbin', 'usr/bin', 'usr/sbin', 'proc', 'sys', 'dev',
              'tmp', 'etc', 'root'):
        os.makedirs(os.path.join(root, d))
    shutil.copy(busybox_path, os.path.join(root, 'bin', 'busybox'))
    os.symlink('busybox', os.path.join(root, 'bin', 'sh'))
    shutil.copy(os.path.join(GUEST, 'init'), os.path.join(root, 'init'))
    shutil.copy(os.path.join(GUEST, 'timeout'),
                os.path.join(root, 'usr', 'bin', 'timeout'))
    for p in ('init', 'usr/bin/timeout', 'bin/busybox'):
        os.chmod(os.path.join(root, p), 0o755)
    if selftests_dir:
        shutil.copytree(selftests_dir, os.path.join(root, 'kselftest'),
                        symlinks=True)
    for host, guest in extra_files:
        target = os.path.join(root, guest.lstrip('/'))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy(host, target)
    with open(dest, 'wb') as out:
        find = subprocess.Popen(['find', '.'], cwd=root, stdout=subprocess.PIPE)
        cpio = subprocess.Popen(['cpio', '--quiet', '-o', '-H', 'newc',
                                 '-R', '0:0'], cwd=root, stdin=find.stdout,
                                stdout=subprocess.PIPE)
        gz = subprocess.Popen(['gzip', '-1'], stdin=cpio.stdout, stdout=out)
        find.stdout.close()
        cpio.stdout.close()
        if gz.wait() or cpio.wait() or find.wait():
            raise BuildError('packing the initramfs failed')
    shutil.rmtree(root)
    return dest


def log_step(msg):
    print(f'>>> {msg}', file=sys.stderr, flush=True)
