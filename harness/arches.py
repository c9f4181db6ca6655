"""The arch table: what every kernel of an arch shares, whatever builds it.

An arch owns its toolchain, its kernel image, its QEMU facts and its base
Kconfig fragments (as kunit's QemuArchParams owns its kconfig). A variant,
a benchmark guest or a matrix entry names an arch and lists only the
fragments it adds; compose() puts the arch's in front:

  common + [the base's guest fragments, for kernels that boot] + the arch's
  + [the base's option fragments, for make check] + the entry's own

Adding an arch is one entry in ARCHES and its configs/<arch>.config.
"""
import dataclasses

# Every kernel the harness configures starts from tinyconfig + this fragment.
COMMON = ('common',)


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
    fragments: tuple = ()   # configs/<name>.config after common: the arch's base
    # kernel earlycon= for the same port: a kernel that stops before its
    # serial console registers (in mm init, say) still shows why
    earlycon: str = ''


ARCHES = {
    'x86_64': Arch('x86_64', '', 'arch/x86/boot/bzImage',
                   'qemu-system-x86_64', ('-M', 'pc', '-cpu', 'max'),
                   'ttyS0', 'amd64', fragments=('x86_64',),
                   earlycon='uart8250,io,0x3f8,115200'),
    'i386': Arch('i386', '', 'arch/x86/boot/bzImage',
                 'qemu-system-i386', ('-M', 'pc', '-cpu', 'max'),
                 'ttyS0', 'i386', '-m32', fragments=('i386',),
                 earlycon='uart8250,io,0x3f8,115200'),
    'arm64': Arch('arm64', 'aarch64-linux-gnu-', 'arch/arm64/boot/Image',
                  'qemu-system-aarch64',
                  ('-M', 'virt', '-cpu', 'max,pauth-impdef=on'),
                  'ttyAMA0', 'arm64', fragments=('arm64',),
                  earlycon='pl011,0x9000000'),
    # 32-bit arm (ARMv7, QEMU virt): only make check's matrix builds it yet.
    'arm': Arch('arm', 'arm-linux-gnueabihf-', 'arch/arm/boot/zImage',
                'qemu-system-arm', ('-M', 'virt', '-cpu', 'cortex-a15'),
                'ttyAMA0', 'armhf', fragments=('arm',),
                earlycon='pl011,0x9000000'),
}


class ArchError(Exception):
    pass


def lookup(name, where=''):
    """The Arch called @name; ArchError naming @where and the known ones."""
    if name in ARCHES:
        return ARCHES[name]
    raise ArchError(f'{where}unknown arch {name!r} (known: {", ".join(sorted(ARCHES))})')


def compose(arch, own=(), base=None, boot=False, options=None):
    """The fragment list of a kernel of @arch: common, then, for a kernel that
    boots (@boot), the guest fragments of @base (bases.Base: the name of
    /proc/sys's option differs between bases), the arch's own, then the
    option fragments of @base for @options ('on' or 'off', make check), then
    @own (what the variant or entry adds)."""
    frags = COMMON
    if boot:
        frags += base.guest_fragments
    frags += arch.fragments
    if options:
        frags += base.options(options)
    return frags + tuple(own)
