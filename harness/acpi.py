"""An ACPI SRAT for the guest, handed to the kernel in the initramfs.

QEMU's SRAT never marks boot memory hotpluggable, so a guest cannot have
a node that `movable_node` makes all ZONE_MOVABLE. The kernel can take a
newer version of a firmware table from an uncompressed cpio at the start
of the initrd (CONFIG_ACPI_TABLE_UPGRADE,
Documentation/admin-guide/acpi/initrd_table_override.rst): same
signature, OEM ID and OEM table ID, higher OEM revision. This module
builds that SRAT from a variant's `acpi_srat` line and that cpio.

`acpi_srat` lists what QEMU's own SRAT says, as its -numa options make it,
plus the flags to change:

  cpu<APIC id>@<node>                  a CPU and its node
  mem<node>@<start>-<end>[,hotplug]    a memory range ([start, end), K/M/G)

for example `cpu0@0 cpu1@1 mem0@0-640K mem0@1M-512M mem1@512M-1G,hotplug`.
"""
import dataclasses
import os
import re
import struct
import subprocess
import tempfile

# QEMU's table identity (BOCHS/BXPC, revision 1): the override must match it.
OEM_ID = b'BOCHS '
OEM_TABLE_ID = b'BXPC    '
OEM_REVISION = 2
CREATOR = (b'BXPC', 1)

CPU_AFFINITY = 0                 # Processor Local APIC/SAPIC Affinity
MEM_AFFINITY = 1                 # Memory Affinity
ENABLED = 1 << 0                 # both entry types
MEM_HOTPLUGGABLE = 1 << 1        # Memory Affinity only

# Where the kernel looks for upgraded tables in the early cpio.
CPIO_DIR = 'kernel/firmware/acpi'


class AcpiError(Exception):
    pass


@dataclasses.dataclass(frozen=True)
class Cpu:
    apic_id: int
    node: int


@dataclasses.dataclass(frozen=True)
class Mem:
    node: int
    start: int                   # bytes
    end: int                     # bytes, exclusive
    hotplug: bool


_SIZE = re.compile(r'^(\d+)([KMG]?)$')
_CPU = re.compile(r'^cpu(\d+)@(\d+)$')
_MEM = re.compile(r'^mem(\d+)@([^-]+)-([^,]+)(,hotplug)?$')


def _bytes(text, where):
    m = _SIZE.match(text)
    if not m:
        raise AcpiError(f'{where}: {text!r} is not a size (a number with K, M or G)')
    return int(m.group(1)) << {'': 0, 'K': 10, 'M': 20, 'G': 30}[m.group(2)]


def parse(text, where='acpi_srat'):
    """The entries of an `acpi_srat` line; AcpiError names the bad item."""
    entries = []
    for item in text.split():
        m = _CPU.match(item)
        if m:
            entries.append(Cpu(int(m.group(1)), int(m.group(2))))
            continue
        m = _MEM.match(item)
        if not m:
            raise AcpiError(f'{where}: {item!r} is neither cpu<id>@<node> nor '
                            f'mem<node>@<start>-<end>[,hotplug]')
        start, end = _bytes(m.group(2), where), _bytes(m.group(3), where)
        if start >= end:
            raise AcpiError(f'{where}: {item!r} ends before it starts')
        entries.append(Mem(int(m.group(1)), start, end, bool(m.group(4))))
    if not any(isinstance(e, Mem) for e in entries):
        raise AcpiError(f'{where}: no memory range')
    return tuple(entries)


def _entry(e):
    if isinstance(e, Cpu):
        return struct.pack('<BBBBIB3sI', CPU_AFFINITY, 16, e.node & 0xff,
                           e.apic_id, ENABLED, 0,
                           (e.node >> 8).to_bytes(3, 'little'), 0)
    flags = ENABLED | (MEM_HOTPLUGGABLE if e.hotplug else 0)
    return struct.pack('<BBIHQQIIQ', MEM_AFFINITY, 40, e.node, 0, e.start,
                       e.end - e.start, 0, flags, 0)


def srat(entries):
    """The SRAT of @entries (parse()), checksummed."""
    body = struct.pack('<IQ', 1, 0) + b''.join(_entry(e) for e in entries)
    length = 36 + len(body)
    header = struct.pack('<4sIBB6s8sI4sI', b'SRAT', length, 3, 0, OEM_ID,
                         OEM_TABLE_ID, OEM_REVISION, *CREATOR)
    table = bytearray(header + body)
    table[9] = (-sum(table)) & 0xff
    return bytes(table)


def early_cpio(entries):
    """An uncompressed newc cpio holding the SRAT where the kernel looks."""
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, CPIO_DIR))
        with open(os.path.join(root, CPIO_DIR, 'srat.aml'), 'wb') as f:
            f.write(srat(entries))
        names = ['kernel', 'kernel/firmware', CPIO_DIR, CPIO_DIR + '/srat.aml']
        res = subprocess.run(['cpio', '--quiet', '-o', '-H', 'newc', '-R', '0:0'],
                             cwd=root, input='\n'.join(names).encode() + b'\n',
                             stdout=subprocess.PIPE, check=False)
        if res.returncode:
            raise AcpiError('packing the ACPI table cpio failed')
        return res.stdout
