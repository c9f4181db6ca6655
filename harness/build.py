"""Build one variant: .config from fragments (the one configure path of
run, test, bench, check and the bloat script), kernel, kselftests,
initramfs."""
import glob
import os
import shutil
import subprocess

from . import acpi, kconfig, paths, proc

HERE = os.path.dirname(os.path.abspath(__file__))
GUEST = os.path.join(HERE, 'guest')
CONFIGS = os.path.join(os.path.dirname(HERE), 'configs')


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


def _run(argv, log, what, env=None):
    """Run @argv with output appended to @log; raise BuildError naming @what."""
    rc = proc.run(argv, log, append=True, env=env, capture=False, nice=NICE).returncode
    if rc:
        raise BuildError(f'{what} failed (exit {rc}); last lines of {log}:\n' +
                         proc.tail(log))


def configure(tree, out, arch, fragments, log, settings=(), randconfig=None,
              configs_dir=CONFIGS):
    """The one configure path: tinyconfig, @fragments (configs/<name>.config,
    in order) and @settings (CONFIG_X=v lines) appended, olddefconfig; or,
    with @randconfig = (seed, probability), `make randconfig` with them
    forced through KCONFIG_ALLCONFIG. Returns the (symbol, wanted, got) of
    every symbol the fragments and settings set that .config does not have;
    raises BuildError when a make step fails or a fragment is missing."""
    os.makedirs(out, exist_ok=True)
    texts = []
    for name in fragments:
        path = os.path.join(configs_dir, name + '.config')
        if not os.path.exists(path):
            raise BuildError(f'no fragment {path}')
        with open(path) as f:
            texts.append(f.read())
    if settings:
        texts.append('\n'.join(settings) + '\n')
    make = ['make', '-C', tree, *kbuild_args(arch, out)]
    if randconfig is not None:
        allconfig = os.path.join(out, 'allconfig')
        with open(allconfig, 'w') as f:
            f.write('\n'.join(t.rstrip('\n') for t in texts) + '\n')
        seed, probability = randconfig
        env = dict(os.environ, KCONFIG_SEED=str(seed),
                   KCONFIG_PROBABILITY=str(probability), KCONFIG_ALLCONFIG=allconfig)
        _run(make + ['randconfig'], log, 'make randconfig', env=env)
    else:
        _run(make + ['tinyconfig'], log, 'make tinyconfig')
        with open(os.path.join(out, '.config'), 'a') as f:
            for t in texts:
                f.write('\n' + t)
        _run(make + ['olddefconfig'], log, 'make olddefconfig')
    with open(os.path.join(out, '.config')) as f:
        final = kconfig.parse(f.read())
    return kconfig.verify(kconfig.merge(texts), final)


def configure_variant(variant, tree, out, log, base_title=''):
    """configure() with the variant's arch and fragments; a symbol that did
    not keep its value is a BuildError. @base_title ('Linux 7.3-rc7') names
    the kernel in the error."""
    try:
        bad = configure(tree, out, variant.arch, variant.fragments, log)
    except BuildError as e:
        raise BuildError(f'variant {variant.name}: {e}') from None
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


def kselftest_dir(out):
    """Where kselftests() installs for the build directory @out."""
    return os.path.join(out, 'kselftest_install')


def kselftests(variant, tree, out, log, targets='cma'):
    """kselftest-install of @targets, static, into kselftest_dir(@out)."""
    dest = kselftest_dir(out)
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
    return static_program(variant, cache_dir, 'busybox-static', 'bin/busybox')


def bash(variant, cache_dir):
    """Path of a static bash (Debian's bash-static) for the variant's arch."""
    return static_program(variant, cache_dir, 'bash-static', 'bin/bash-static')


def static_program(variant, cache_dir, package, path):
    """Path of the static program @path, as Debian's @package installs it,
    for the variant's arch: the host's own when the arch is the host's and
    make deps installed it, else unpacked from the package, downloaded
    (apt-get download, not installed) into @cache_dir once."""
    deb_arch = variant.arch.busybox_deb_arch
    host_arch = subprocess.run(['dpkg', '--print-architecture'],
                               capture_output=True, text=True).stdout.strip()
    if deb_arch == host_arch and os.path.exists('/' + path):
        return '/' + path
    dest = os.path.join(cache_dir, f'{os.path.basename(path)}-{deb_arch}')
    if os.path.exists(dest):
        return dest
    os.makedirs(cache_dir, exist_ok=True)
    for old in glob.glob(os.path.join(cache_dir, f'{package}_*_{deb_arch}.deb')):
        os.unlink(old)
    os.chmod(cache_dir, 0o755)
    dl = subprocess.run(['apt-get', 'download', f'{package}:{deb_arch}'],
                        cwd=cache_dir, capture_output=True, text=True)
    rc = dl.returncode
    debs = glob.glob(os.path.join(cache_dir, f'{package}_*_{deb_arch}.deb'))
    if rc or not debs:
        raise BuildError(f'cannot download {package}:{deb_arch} '
                         f'({dl.stderr.strip()}); run '
                         f'`dpkg --add-architecture {deb_arch} && apt-get update` '
                         f'(make deps does this)')
    unpack = os.path.join(cache_dir, f'{os.path.basename(path)}-{deb_arch}.d')
    shutil.rmtree(unpack, ignore_errors=True)
    subprocess.check_call(['dpkg-deb', '-x', debs[0], unpack])
    shutil.copy(os.path.join(unpack, path), dest)
    shutil.rmtree(unpack)
    return dest


def needs_bash(path):
    """Whether the file @path is a bash script (#!/bin/bash, #!/usr/bin/env bash)."""
    with open(path, 'rb') as f:
        first = f.read(128).split(b'\n')[0]
    return first.startswith(b'#!') and b'bash' in first.split(b'/')[-1]


def initramfs(variant, selftests_dir, busybox_path, dest, extra_files=()):
    """Pack init, busybox, the timeout wrapper and the kselftests (cpio.gz).

    @extra_files: (host path, guest path) pairs, e.g. benchmark programs,
    all executable in the guest whatever their mode on the host (a
    workload script checked in without its x bit ran as "Permission
    denied", exit 126).
    When one of them is a bash script (make mm-selftests' run_vmtests.sh),
    a static bash goes in as /bin/bash.
    A variant with an acpi_srat gets its SRAT in an uncompressed cpio in
    front, where the kernel looks for upgraded ACPI tables.
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
    if any(needs_bash(host) for host, _ in extra_files):
        shutil.copy(bash(variant, paths.CACHE),
                    os.path.join(root, 'bin', 'bash'))
        os.chmod(os.path.join(root, 'bin', 'bash'), 0o755)
    for p in ('init', 'usr/bin/timeout', 'bin/busybox'):
        os.chmod(os.path.join(root, p), 0o755)
    if selftests_dir:
        shutil.copytree(selftests_dir, os.path.join(root, 'kselftest'),
                        symlinks=True)
    for host, guest in extra_files:
        target = os.path.join(root, guest.lstrip('/'))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy(host, target)
        os.chmod(target, 0o755)
    srat = getattr(variant, 'acpi_srat', ())
    with open(dest, 'wb') as out:
        if srat:
            out.write(acpi.early_cpio(srat))
            out.flush()
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
