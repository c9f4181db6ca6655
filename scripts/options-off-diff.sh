#!/bin/sh
# What the mainline series changes in the code when its new options are off:
# bloat-o-meter over the vmlinux of the overhead-icount benchmark's `base`
# and `series-off` kernels, then whether the disassembly of the objects on
# the anonymous-fault path is identical. Needs `make bench
# B=overhead-icount` first.
#
#   options-off-diff.sh [OBJECT.o ...]   (default: the fault-path objects)
set -eu
cd "$(dirname "$0")/.."
out=build/out
# The build directories of the overhead-icount benchmark's two kernels.
dirs=$("${PYTHON:-python3}" -c '
from harness import bases, bench, paths
b = bench.load(paths.BENCH_INI, btable=bases.load(paths.BASES_INI))["overhead-icount"]
k = {x.name: x for x in b.kernels}
for n in ("base", "series-off"):
    print("build/out/" + bench.build_key(bench.kernel_variant(b, k[n]), k[n]))
')
base=$(echo "$dirs" | sed -n 1p) off=$(echo "$dirs" | sed -n 2p)
[ -n "$base" ] && [ -n "$off" ] && [ -r "$base/vmlinux" ] && [ -r "$off/vmlinux" ] ||
	{ echo "options-off-diff: no overhead-icount benchmark builds in $out: run 'make bench B=overhead-icount' first" >&2; exit 2; }
[ $# -gt 0 ] || set -- mm/memory.o mm/mmap.o mm/page_alloc.o arch/x86/mm/fault.o
echo "base:       $base"
echo "series-off: $off"
build/linux/scripts/bloat-o-meter "$base/vmlinux" "$off/vmlinux"
for o in "$@"; do
	[ -r "$base/$o" ] && [ -r "$off/$o" ] || { echo "$o: not built in this config" >&2; exit 2; }
	a=$(objdump -d --no-show-raw-insn "$base/$o" | sed 1,3d | md5sum)
	b=$(objdump -d --no-show-raw-insn "$off/$o" | sed 1,3d | md5sum)
	if [ "$a" = "$b" ]; then
		echo "$o: same code"
	else
		echo "$o: differs in:"
		build/linux/scripts/bloat-o-meter "$base/$o" "$off/$o" | sed -n '3,$p' | sed 's/^/    /'
	fi
done
