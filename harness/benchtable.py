"""make bench's table: bench/benchmarks.ini (and the tables built on it,
configs/soak.ini and configs/mm-selftests.ini) read into Benchmarks and
their Kernels, `like =` resolved.

A benchmark names a guest (base, arch, fragments, memory, CPUs, command
line), a workload (a static C program in bench/ and its arguments) and two
or more kernels ([<bench>:<kernel>] sections: which tree, extra fragments,
extra command line, patches).
"""
import dataclasses
import re

from . import bases, ini, paths, variants

# The trees a kernel is built from: the pristine base (tag base of the
# base's work tree, unpatched) and the series (the work tree's HEAD).
TREES = ('pristine', 'series')


class BenchError(Exception):
    pass


@dataclasses.dataclass(frozen=True)
class Kernel:
    name: str
    tree: str               # 'pristine' (the base, unpatched) or 'series'
    fragments: tuple        # on top of the benchmark's
    cmdline: str            # on top of the benchmark's
    patches: tuple = ()     # applied on the tree, for ablations


@dataclasses.dataclass(frozen=True)
class Benchmark:
    name: str
    summary: str
    guest: variants.Variant     # base, arch, fragments, memory, cpus, cmdline
    workload: tuple             # program and arguments
    zram: str                   # zram swap size, '' for none
    runs: int
    metrics: tuple              # figures shown, in order
    lower_is_better: tuple      # metrics where a smaller value is better
    plot: str                   # 'bars', 'memory' or 'threads'
    kernels: tuple              # Kernel, the first is the reference
    notes: str
    kselftests: tuple = ()      # selftest dirs built from the series tree
    profile: tuple = ()         # shorter workload of an instruction profile
    reproduce: str = ''         # the command its report names (default make bench B=)
    disk: str = ''              # COUNTxSIZE: files of a read-only ext2 disk, '' for none


# Per workload program: the BENCH counter of the work a profile divides by.
PROFILE_UNIT = {'faults': 'faults'}


def _inherit(cp, sec, chain):
    """Resolve `like = <benchmark>` in @cp: @sec takes every key of that
    benchmark it does not set itself (`like` aside), and its [<like>:<kernel>]
    sections when it has none of its own. An own kernel section left empty
    takes the keys of the parent's kernel of the same name, so a variant of
    a benchmark names the kernels it keeps without repeating them; an empty
    one the parent lacks is refused, since it would silently mean "the
    series, no fragments" (write `tree = series` for that). @chain: the
    sections on the way, to refuse a cycle."""
    parent = cp[sec].get('like')
    if not parent:
        return
    if parent == sec or parent in chain:
        raise BenchError(f'benchmark {sec}: like = {parent} is a cycle')
    if parent not in cp or ':' in parent:
        raise BenchError(f'benchmark {sec}: like = {parent}, which is not a benchmark')
    _inherit(cp, parent, chain + (sec,))
    for key, value in cp[parent].items():
        if key not in cp[sec] and key != 'like':
            cp.set(sec, key, value)
    cp.remove_option(sec, 'like')
    own = [ks for ks in cp.sections() if ks.startswith(sec + ':')]
    if own:
        for ks in own:
            if not cp.options(ks):
                _take_parent_kernel(cp, ks, parent)
        return
    for ks in [ks for ks in cp.sections() if ks.startswith(parent + ':')]:
        name = sec + ':' + ks.split(':', 1)[1]
        cp.add_section(name)
        for key, value in cp[ks].items():
            cp.set(name, key, value)


def _take_parent_kernel(cp, ks, parent):
    """Fill the empty kernel section @ks from [<parent>:<same kernel>]."""
    kernel = ks.split(':', 1)[1]
    src = parent + ':' + kernel
    if src not in cp:
        raise BenchError(f'[{ks}] is empty and like = {parent} has no kernel '
                         f'{kernel}: write tree = series for the series '
                         'with no fragments')
    for key, value in cp[src].items():
        cp.set(ks, key, value)


def load(path, runs_override=None, btable=None):
    """{name: Benchmark} of @path; @btable: {name: bases.Base} (default:
    configs/bases.ini)."""
    btable = btable if btable is not None else bases.load(paths.BASES_INI)
    cp = ini.read(path, BenchError)
    for sec in cp.sections():
        if ':' not in sec:
            _inherit(cp, sec, ())
    out = {}
    for sec in cp.sections():
        if ':' in sec:
            continue
        s = cp[sec]
        try:
            guest = variants._parse_section(sec, s, btable)
        except variants.VariantError as e:
            raise BenchError(f'benchmark {e}') from None
        kernels = []
        for ks in cp.sections():
            if not ks.startswith(sec + ':'):
                continue
            k = cp[ks]
            tree = k.get('tree', 'series')
            if tree == 'base':
                raise BenchError(f'[{ks}]: tree = base is no longer accepted: write '
                                 'tree = pristine for the unpatched tree (base names '
                                 'the kernel base, the benchmark\'s base = key)')
            if tree not in TREES:
                raise BenchError(f'[{ks}]: tree must be pristine or series, not {tree!r}')
            kernels.append(Kernel(ks.split(':', 1)[1], tree,
                                  tuple(k.get('fragments', '').split()),
                                  k.get('cmdline', ''),
                                  tuple(k.get('patches', '').split())))
        if len(kernels) < 2:
            raise BenchError(f'benchmark {sec}: needs at least two [{sec}:<kernel>] sections')
        try:
            runs = runs_override or int(s.get('runs', '3'))
        except ValueError:
            raise BenchError(f'benchmark {sec}: runs must be a number') from None
        if runs < 1:
            raise BenchError(f'benchmark {sec}: runs must be at least 1')
        workload = tuple(s.get('workload', '').split())
        if not workload:
            raise BenchError(f'benchmark {sec}: no workload')
        out[sec] = Benchmark(
            name=sec, summary=s['summary'], guest=guest, workload=workload,
            zram=s.get('zram', ''), runs=runs,
            metrics=tuple(s.get('metrics', '').split()),
            lower_is_better=tuple(s.get('lower_is_better', '').split()),
            plot=s.get('plot', 'bars'), kernels=tuple(kernels),
            notes=s.get('notes', '').strip(),
            kselftests=tuple(s.get('kselftests', '').split()),
            profile=tuple(s.get('profile', '').split()),
            disk=s.get('disk', '').strip())
        if out[sec].disk:
            disk_files(sec, out[sec].disk)
        if out[sec].profile and out[sec].profile[0] != workload[0]:
            raise BenchError(f'benchmark {sec}: profile must run the workload\'s '
                             f'program {workload[0]}, not {out[sec].profile[0]}')
        if out[sec].profile and workload[0] not in PROFILE_UNIT:
            raise BenchError(f'benchmark {sec}: no unit of work is known for '
                             f'profiles of {workload[0]} (PROFILE_UNIT)')
        if out[sec].profile and '-icount' not in guest.qemu_extra:
            raise BenchError(f'benchmark {sec}: profile needs -icount in qemu_extra '
                             f'(the plugin slows the guest; only guest instructions '
                             f'keep their meaning)')
    return out


def disk_files(name, spec):
    """(number of files, MiB each) of benchmark @name's `disk = COUNTxSIZE`
    (SIZE in MiB, for instance 16x64M)."""
    m = re.fullmatch(r'([0-9]+)x([0-9]+)M', spec)
    if not m or not int(m.group(1)) or not int(m.group(2)):
        raise BenchError(f'benchmark {name}: disk must be COUNTxSIZE with a size in '
                         f'MiB, for instance 16x64M (16 files of 64 MiB), not {spec!r}')
    return int(m.group(1)), int(m.group(2))


def kernel_variant(bench, kernel):
    """The guest of @bench with the fragments and command line of @kernel."""
    g = bench.guest
    return dataclasses.replace(
        g, name=f'{bench.name}-{kernel.name}',
        fragments=g.fragments + kernel.fragments,
        cmdline=' '.join(x for x in (g.cmdline, kernel.cmdline) if x))
