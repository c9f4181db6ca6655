"""The variant table: base, arch, Kconfig fragments, QEMU sizing and command line.

Variants live in configs/variants.ini, one section each. What every
variant of an arch shares (toolchain, image, QEMU machine, console, base
fragments) is the arch's (harness/arches.py); a section lists only the
fragments it adds.
"""
import dataclasses
import os

from . import acpi, arches, ini


REQUIRED = ('summary', 'arch', 'base')
# What `make run` (the Makefile's V) and `python3 -m harness run` and
# `shell` build without a name: the first section of configs/variants.ini,
# whose summary says "(default)".
DEFAULT = 'x86_64-zone-cma'


@dataclasses.dataclass(frozen=True)
class Variant:
    name: str
    summary: str            # one line for `make variants`
    arch: arches.Arch
    base: str               # kernel base, a section of configs/bases.ini
    fragments: tuple        # every fragment, composed (arches.compose): configs/<name>.config
    memory: str             # QEMU -m
    cpus: int               # QEMU -smp
    cmdline: str            # extra kernel command line
    tests: str              # run_kselftest.sh selection: collection or c:t
    boot_timeout: int       # wall-clock limit of one boot, seconds
    qemu_extra: tuple       # extra QEMU arguments (NUMA nodes, ...)
    in_test: bool           # part of `make test`
    in_debug: bool = False  # part of `make test-debug`
    test_args: tuple = ()   # (test, 'arg,arg') pairs for run_kselftest.sh
    acpi_srat: tuple = ()   # SRAT entries handed over in the initramfs (harness/acpi.py)

    def fragment_paths(self, configs_dir):
        return [os.path.join(configs_dir, f + '.config') for f in self.fragments]


class VariantError(Exception):
    pass


def _parse_section(name, sec, btable):
    """The Variant of section @sec; @btable: {name: bases.Base}."""
    missing = [k for k in REQUIRED if not sec.get(k)]
    if missing:
        raise VariantError(f'variant {name}: missing {", ".join(missing)}')
    if sec['base'] not in btable:
        raise VariantError(f'variant {name}: unknown base {sec["base"]!r} '
                           f'(configs/bases.ini has: {", ".join(btable)})')
    try:
        arch = arches.lookup(sec['arch'], f'variant {name}: ')
    except arches.ArchError as e:
        raise VariantError(str(e)) from None
    try:
        cpus = int(sec.get('cpus', '2'))
        boot_timeout = int(sec.get('boot_timeout', '900'))
    except ValueError as e:
        raise VariantError(f'variant {name}: {e}') from None
    try:
        srat = acpi.parse(sec['acpi_srat'], f'variant {name}: acpi_srat') \
            if sec.get('acpi_srat') else ()
    except acpi.AcpiError as e:
        raise VariantError(str(e)) from None
    if srat and arch.name not in ('x86_64', 'i386'):
        raise VariantError(f'variant {name}: acpi_srat needs an x86 guest, '
                           f'{arch.name} boots without ACPI tables')
    return Variant(name=name, summary=sec['summary'], arch=arch,
                   base=sec['base'],
                   fragments=arches.compose(arch, sec.get('fragments', '').split(),
                                            btable[sec['base']], boot=True),
                   memory=sec.get('memory', '1G'), cpus=cpus,
                   cmdline=sec.get('cmdline', ''),
                   tests=sec.get('tests', 'cma'),
                   boot_timeout=boot_timeout,
                   qemu_extra=tuple(sec.get('qemu_extra', '').split()),
                   in_test=_boolean(name, sec, 'in_test', True),
                   in_debug=_boolean(name, sec, 'in_debug', False),
                   test_args=_parse_test_args(name, sec.get('test_args', '')),
                   acpi_srat=srat)


def _boolean(name, sec, key, default):
    try:
        return sec.getboolean(key, default)
    except ValueError:
        raise VariantError(f'variant {name}: {key} = {sec[key]!r} is not yes or no') from None


def _parse_test_args(name, text):
    pairs = []
    for item in text.split():
        test, sep, args = item.partition('=')
        if not sep or not test or not args:
            raise VariantError(f'variant {name}: test_args item {item!r} is not '
                               f'<test>=<arg>,<arg>...')
        pairs.append((test, args))
    return tuple(pairs)


def load(path, btable):
    """Return the variants of @path, in file order, as a dict by name.
    @btable ({name: bases.Base}, configs/bases.ini) gives each variant's base
    its guest fragments; a variant whose base is not in it is an error."""
    cp = ini.read(path, VariantError)
    return {name: _parse_section(name, cp[name], btable)
            for name in cp.sections()}


def lookup(variants, name):
    """The variant called @name, or a VariantError listing the valid ones."""
    if name in variants:
        return variants[name]
    raise VariantError(f'unknown variant {name!r}; valid variants:\n' +
                       describe(variants))


def describe(variants):
    """One line per variant: name, base, summary (and which make target runs it)."""
    width = max((len(n) for n in variants), default=0)
    bwidth = max((len(v.base) for v in variants.values()), default=0)
    return '\n'.join(f'  {v.name:<{width}}  base {v.base:<{bwidth}}  {v.summary}' +
                     ('' if v.in_test else
                      ' [make test-debug]' if v.in_debug else ' [not in make test]')
                     for v in variants.values())
