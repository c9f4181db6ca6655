"""acpi: the SRAT a variant hands to the guest kernel in its initramfs."""
import struct
import subprocess
import tempfile
import unittest

from harness import acpi
from harness.tests.test_variants import load_variants
from harness import variants

LAYOUT = 'cpu0@0 cpu1@1 mem0@0-640K mem0@1M-512M mem1@512M-1G,hotplug'


def decode(table):
    """(header fields, [entry tuples]) of an SRAT, as the kernel reads it."""
    sig, length, rev, _, oem, oem_table, oem_rev, _, _ = \
        struct.unpack_from('<4sIBB6s8sI4sI', table)
    entries, off = [], 36 + 12
    while off < length:
        kind, size = table[off], table[off + 1]
        if kind == acpi.CPU_AFFINITY:
            _, _, node, apic, flags, _, _, _ = struct.unpack_from('<BBBBIB3sI', table, off)
            entries.append(('cpu', apic, node, flags))
        else:
            _, _, node, _, base, length_, _, flags, _ = \
                struct.unpack_from('<BBIHQQIIQ', table, off)
            entries.append(('mem', node, base, base + length_, flags))
        off += size
    return (sig, length, rev, oem, oem_table, oem_rev), entries


class AcpiTest(unittest.TestCase):
    def test_layout_round_trips(self):
        table = acpi.srat(acpi.parse(LAYOUT))
        head, entries = decode(table)
        self.assertEqual(head, (b'SRAT', len(table), 3, acpi.OEM_ID, acpi.OEM_TABLE_ID,
                                acpi.OEM_REVISION))
        self.assertEqual(sum(table) % 256, 0)
        self.assertEqual(entries, [
            ('cpu', 0, 0, acpi.ENABLED), ('cpu', 1, 1, acpi.ENABLED),
            ('mem', 0, 0, 640 << 10, acpi.ENABLED),
            ('mem', 0, 1 << 20, 512 << 20, acpi.ENABLED),
            ('mem', 1, 512 << 20, 1 << 30, acpi.ENABLED | acpi.MEM_HOTPLUGGABLE)])

    def test_outranks_qemu_table(self):
        """The kernel takes an upgrade only with a higher OEM revision than
        QEMU's SRAT, whose revision is 1."""
        self.assertGreater(acpi.OEM_REVISION, 1)

    def test_cpio_puts_table_where_kernel_looks(self):
        data = acpi.early_cpio(acpi.parse(LAYOUT))
        listing = subprocess.run(['cpio', '-t', '--quiet'], input=data,
                                 stdout=subprocess.PIPE, check=True).stdout.decode().split()
        self.assertIn('kernel/firmware/acpi/srat.aml', listing)
        with tempfile.TemporaryDirectory() as d:
            subprocess.run(['cpio', '-i', '-d', '--quiet'], input=data, cwd=d, check=True)
            with open(f'{d}/kernel/firmware/acpi/srat.aml', 'rb') as f:
                self.assertEqual(f.read(), acpi.srat(acpi.parse(LAYOUT)))

    def test_bad_items_are_named(self):
        for text, msg in [('mem0@1M', "'mem0@1M' is neither"),
                          ('mem0@1X-2M', "'1X' is not a size"),
                          ('mem0@2M-1M', 'ends before it starts'),
                          ('cpu0@0', 'no memory range'),
                          ('node1', "'node1' is neither")]:
            with self.assertRaises(acpi.AcpiError) as e:
                acpi.parse(text, 'v')
            self.assertIn(msg, str(e.exception), text)

    def test_variant_key(self):
        head = '[a]\nsummary = s\nbase = b\n'
        v = load_variants(head + f'arch = x86_64\nacpi_srat = {LAYOUT}\n')['a']
        self.assertEqual(len(v.acpi_srat), 5)
        self.assertEqual(load_variants(head + 'arch = x86_64\n')['a'].acpi_srat, ())
        for body, msg in [('arch = x86_64\nacpi_srat = mem0@0\n', "variant a: acpi_srat: 'mem0@0'"),
                          (f'arch = arm64\nacpi_srat = {LAYOUT}\n', 'needs an x86 guest')]:
            with self.assertRaises(variants.VariantError) as e:
                load_variants(head + body)
            self.assertIn(msg, str(e.exception))


if __name__ == '__main__':
    unittest.main()
