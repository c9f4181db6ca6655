"""The variant table: base, arch, Kconfig fragments, QEMU sizing and command line.

Variants live in configs/variants.ini, one section each. Arch facts that
every variant of an arch shares (toolchain, image, QEMU machine, console)
live in ARCHES below.
"""
import configparser
import dataclasses
import os


@dataclasses.dataclass(frozen=True)
class Arch:
    name: str               # ARCH= for kbuild
    cross_compile: str      # CROSS_COMPILE= prefix, '' for native
    image: str              # kernel image, relative to the build dir
    qemu: str               # QEMU system emulator
    machine: tuple          # QEMU machine and CPU arguments
    console: str            # kernel console= for the serial port
    busybox_deb_arch: str   # Debian architecture of busybox-static
    user_cflags: str = ''   # gcc flags of userspace (kselftests): -m32 on i386


ARCHES = {
    'x86_64': Arch('x86_64', '', 'arch/x86/boot/bzImage',
                   'qemu-system-x86_64', ('-M', 'pc', '-cpu', 'max'),
                   'ttyS0', 'amd64'),
    'i386': Arch('i386', '', 'arch/x86/boot/bzImage',
                 'qemu-system-i386', ('-M', 'pc', '-cpu', 'max'),
                 'ttyS0', 'i386', '-m32'),
    'arm64': Arch('arm64', 'aarch64-linux-gnu-', 'arch/arm64/boot/Image',
                  'qemu-system-aarch64',
                  ('-M', 'virt', '-cpu', 'max,pauth-impdef=on'),
                  'ttyAMA0', 'arm64'),
}

REQUIRED = ('summary', 'arch', 'fragments', 'base')


@dataclasses.dataclass(frozen=True)
class Variant:
    name: str
    summary: str            # one line for `make variants`
    arch: Arch
    base: str               # kernel base, a section of configs/bases.ini
    fragments: tuple        # fragment names, configs/<name>.config
    memory: str             # QEMU -m
    cpus: int               # QEMU -smp
    cmdline: str            # extra kernel command line
    tests: str              # run_kselftest.sh selection: collection or c:t
    boot_timeout: int       # wall-clock limit of one boot, seconds
    qemu_extra: tuple       # extra QEMU arguments (NUMA nodes, ...)
    in_test: bool           # part of `make test`
    test_args: tuple = ()   # (test, 'arg,arg') pairs for run_kselftest.sh

    def fragment_paths(self, configs_dir):
        return [os.path.join(configs_dir, f + '.config') for f in self.fragments]


class VariantError(Exception):
    pass


def _parse_section(name, sec, known_bases=None):
    missing = [k for k in REQUIRED if not sec.get(k)]
    if missing:
        raise VariantError(f'variant {name}: missing {", ".join(missing)}')
    if known_bases is not None and sec['base'] not in known_bases:
        raise VariantError(f'variant {name}: unknown base {sec["base"]!r} '
                           f'(configs/bases.ini has: {", ".join(known_bases)})')
    arch = sec['arch']
    if arch not in ARCHES:
        raise VariantError(f'variant {name}: unknown arch {arch!r} '
                           f'(known: {", ".join(sorted(ARCHES))})')
    try:
        cpus = int(sec.get('cpus', '2'))
        boot_timeout = int(sec.get('boot_timeout', '900'))
    except ValueError as e:
        raise VariantError(f'variant {name}: {e}') from None
    return Variant(name=name, summary=sec['summary'], arch=ARCHES[arch],
                   base=sec['base'],
                   fragments=tuple(sec['fragments'].split()),
                   memory=sec.get('memory', '1G'), cpus=cpus,
                   cmdline=sec.get('cmdline', ''),
                   tests=sec.get('tests', 'cma'),
                   boot_timeout=boot_timeout,
                   qemu_extra=tuple(sec.get('qemu_extra', '').split()),
                   in_test=sec.getboolean('in_test', True),
                   test_args=_parse_test_args(name, sec.get('test_args', '')))


def _parse_test_args(name, text):
    pairs = []
    for item in text.split():
        test, sep, args = item.partition('=')
        if not sep or not test or not args:
            raise VariantError(f'variant {name}: test_args item {item!r} is not '
                               f'<test>=<arg>,<arg>...')
        pairs.append((test, args))
    return tuple(pairs)


def load(path, known_bases=None):
    """Return the variants of @path, in file order, as a dict by name;
    with @known_bases, a variant whose base is not among them is an error."""
    cp = configparser.ConfigParser(interpolation=None)
    try:
        with open(path) as f:
            cp.read_file(f)
    except (OSError, configparser.Error) as e:
        raise VariantError(f'{path}: {e}') from None
    return {name: _parse_section(name, cp[name], known_bases)
            for name in cp.sections()}


def lookup(variants, name):
    """The variant called @name, or a VariantError listing the valid ones."""
    if name in variants:
        return variants[name]
    raise VariantError(f'unknown variant {name!r}; valid variants:\n' +
                       describe(variants))


def describe(variants):
    """One line per variant: name, base, summary (and whether make test runs it)."""
    width = max((len(n) for n in variants), default=0)
    bwidth = max((len(v.base) for v in variants.values()), default=0)
    return '\n'.join(f'  {v.name:<{width}}  base {v.base:<{bwidth}}  {v.summary}' +
                     ('' if v.in_test else ' [not in make test]')
                     for v in variants.values())
