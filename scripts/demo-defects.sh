#!/bin/sh
# Show that the kselftests added for the review's defects fail on the kernels
# they guard against (pristine 7.3-rc7, or the series with a defect put back
# by a harness/faults patch), and pass on the mainline series:
#
#   thp     cma_thp (a THP that straddles a pageblock boundary) on pristine
#           7.3-rc7 built with the x86_64 variant's config (THP,
#           CONFIG_PAGE_BLOCK_MAX_ORDER=5): fails, and the kernel warns in
#           isolate_single_pageblock(); then on the series: passes.
#   zone    cma_zone_placement and cma_zone_pins, the series' ZONE_CMA
#           kselftests, on the mainline x86_64-zone-cma kernel with that
#           variant's initramfs and command line (numa=fake=2 cma=128M
#           cma_pernuma=64M): evacuated_pages_leave_cma and
#           evacuated_thps_leave_cma pass (no page moved out of the area
#           lands in CMA); node_keeps_memory_with_cma skips: with
#           numa=fake=2, the block at the node boundary (memory4) has no
#           zone and cannot go offline (EINVAL). The node and movable steps
#           run those cases where they can fail.
#   node    a node whose memory but its ZONE_CMA went offline must stay in
#           N_MEMORY: cma_zone_pins on the x86_64-movable-node variant
#           (node 1 hotpluggable and movable, a 128 MiB area at a fixed
#           address in one of its four memory blocks), first the series,
#           then the series with 6.12's count put back
#           (harness/faults/zone-cma-node-states-7.3.patch), which must fail
#           node_keeps_memory_with_cma (measured: passes on the series; with
#           the patch node 1 leaves has_memory while its ZONE_CMA holds
#           32768 pages). The patches are applied to build/linux for the
#           run and taken off again; build/linux must have no uncommitted
#           change.
#   movable  pages moved out of ZONE_CMA on a movable_node node: the same
#           x86_64-movable-node variant, cma_zone_placement, first the
#           series, then the series with its evacuation target as it was
#           before ALLOC_BELOW_ZONE_CMA
#           (harness/faults/zone-cma-evacuate-kernel-zones-7.3.patch: the
#           first target stops at the kernel zones, which node 1 does not
#           have). evacuated_pages_leave_cma must pass on the series and
#           fail with the patch (the moved pages land in ZONE_CMA again).
#   memblock  memory blocks shared by a kernel zone and ZONE_CMA
#           (drivers/base/memory.c): cma_zone_pins on the x86_64-zone-cma
#           variant, first the series, then the series without its change
#           to early_node_zone_for_memory_block()
#           (harness/faults/zone-cma-memblock-zone-7.3.patch): such a block
#           then gets no zone, so offline_cma_block_ebusy must fail
#           (EINVAL, not EBUSY).
#   accounting  ZONE_CMA's pages in the lowmem reserves of the zones below
#           it: cma_zone_layout on the x86_64-zone-cma variant, first the
#           series, then the series with those pages left out
#           (harness/faults/zone-cma-no-reserve-7.3.patch), so
#           reserve_counts_cma must fail. `make bench B=accounting` shows
#           what the kernel sizes from its memory with the area in ZONE_CMA.
#   deferred  patch 1 (deferred struct page init past the end of RAM):
#           pristine 7.3-rc7 built with the x86_64-zone-cma variant's config
#           (ACPI, DEFERRED_STRUCT_PAGE_INIT, DEBUG_VM,
#           PAGE_BLOCK_MAX_ORDER=5), booted with that variant's initramfs
#           and command line for at most 180 s, then the series'
#           x86_64-zone-cma kernel. The base must not reach userspace
#           (measured: VM_BUG_ON_PAGE(!zone_spans_pfn()) dumps pfn 0x3ffe0,
#           SeaBIOS's ACPI tables, and the dump recurses with bogus pfns
#           until the timeout, 1380 page dumps in 180 s); the series must
#           boot and pass cma_debugfs.
#
#   demo-defects.sh [thp|zone|node|movable|memblock|accounting|deferred]...
#   (default: all seven)
#
# Needs the x86_64 variant built (make run V=x86_64), whose initramfs
# carries the series' kselftests, and for zone and deferred the mainline
# x86_64-zone-cma variant (make run), whose initramfs carries the cma_zone_*
# kselftests; node, movable, memblock and accounting build their own. The
# pristine base kernel is built once, in build/out/x86_64-base
# (scripts/x86-guest-lib.sh).
# Consoles go to build/results/demo-defects/.
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
out=$top/build/results/demo-defects
initrd=$top/build/out/x86_64/initramfs.cpio.gz
series_kernel=$top/build/out/x86_64/arch/x86/boot/bzImage
# The mainline x86_64-zone-cma variant: its kernel, its initramfs (with the
# cma_zone_* kselftests) and its command line (configs/variants.ini).
zone_kernel=$top/build/out/x86_64-zone-cma/arch/x86/boot/bzImage
zone_initrd=$top/build/out/x86_64-zone-cma/initramfs.cpio.gz
zone_cmdline='numa=fake=2 cma=128M cma_pernuma=64M'

die() { echo "demo-defects: $*" >&2; exit 1; }
. scripts/x86-guest-lib.sh

mkdir -p "$out"

# boot_with INITRD CMDLINE NAME KERNEL TESTS [ARGS]: one guest with INITRD,
# CMDLINE (its cma= and other options) and the harness's TESTS and ARGS,
# console in $out/NAME.log; prints the test lines and any kernel WARNING.
boot_with() {
	bw_initrd=$1 bw_cmdline=$2
	shift 2
	name=$1 kernel=$2 tests=$3 args=${4:-}
	x86_guest "$kernel" "$bw_initrd" "$out/$name.log" \
		"harness.mode=run harness.tests=$tests $args" "$bw_cmdline"
	echo "== $name: $(grep -m1 -a 'Linux version' "$out/$name.log" | sed 's/.*Linux version \([^ ]*\).*/Linux \1/')"
	grep -a -E '^# (ok|not ok)|^(ok|not ok)|held pfn|allocations \(|WARNING: ' "$out/$name.log" |
		sed 's/^/    /'
}

# boot NAME KERNEL TESTS [ARGS]: boot_with the x86_64 variant's initramfs
# and command line (cma=256M).
boot() {
	[ -r "$initrd" ] && [ -r "$series_kernel" ] ||
		die "no x86_64 build: run 'make run V=x86_64' first"
	boot_with "$initrd" cma=256M "$@"
}

base_kernel() {
	pristine_base_kernel || die "cannot build the pristine base kernel"
}

# fault_run NAME VARIANT TEST [PATCH...]: TEST (collection:program) on
# VARIANT built from build/linux with the fault patches applied (none: the
# series as it is); prints its result lines.
fault_run() {
	name=$1 variant=$2 test=$3
	shift 3
	if git -C build/linux status --porcelain --untracked-files=no | grep -q .; then
		die "build/linux has uncommitted changes; commit them first"
	fi
	for p in "$@"; do
		git -C build/linux apply "$top/harness/faults/$p" || {
			git -C build/linux checkout -q -- .
			die "$p does not apply to build/linux"
		}
	done
	# A failing test is what a fault run may show: keep going, and take
	# the patches off whatever the run said.
	"${PYTHON:-python3}" -m harness run "$variant" --test "$test" >"$out/$name.txt" 2>&1 ||
		true
	git -C build/linux checkout -q -- .
	# The variant's next run overwrites its console: keep this one.
	cp "build/results/$variant/console.log" "$out/$name.console.log" 2>/dev/null || true
	echo "== $name: $variant, series${*:+ + $*}"
	grep -E 'ok [0-9]+ |failures, first|node [0-9]+: |passed,' "$out/$name.txt" |
		sed 's/^/    /'
	# What reserve_counts_cma measured (accounting), from the console.
	grep -a -E 'reserve against|zone\(s\) below' "$out/$name.console.log" 2>/dev/null |
		sed 's/^/    /' || true
}

# fault_pair NAME VARIANT TEST FAULT PATCH: fault_run TEST on VARIANT as
# NAME-series, then with PATCH applied as NAME-FAULT.
fault_pair() {
	fault_run "$1-series" "$2" "$3"
	fault_run "$1-$4" "$2" "$3" "$5"
}

# need_zone_build KERNEL: stop unless KERNEL and the mainline
# x86_64-zone-cma variant's initramfs are there.
need_zone_build() {
	[ -r "$zone_initrd" ] && [ -r "$1" ] ||
		die "no x86_64-zone-cma build: run 'make run' (V=x86_64-zone-cma) first"
}

# zone_boot NAME KERNEL: cma_zone_placement and cma_zone_pins with the
# mainline x86_64-zone-cma variant's initramfs and command line.
zone_boot() {
	need_zone_build "$zone_kernel"
	boot_with "$zone_initrd" "$zone_cmdline" "$1" "$2" \
		cma:cma_zone_placement,cma:cma_zone_pins
}

# deferred_boot NAME KERNEL: the x86_64-zone-cma variant's initramfs and
# command line, cma_debugfs, at most 180 s; says whether userspace ran and
# how many page dumps (dump_page(), as VM_BUG_ON_PAGE() prints) and the
# first dumped pfn the console holds.
deferred_boot() {
	need_zone_build "$2"
	# The base stops before its serial console registers: only earlycon
	# (x86_guest) shows why.
	X86_GUEST_TIMEOUT=180 boot_with "$zone_initrd" "$zone_cmdline" "$1" "$2" \
		cma:cma_debugfs
	if grep -a -q 'Run /init as init process' "$out/$1.log"; then
		echo "    reached userspace: yes"
	else
		echo "    reached userspace: no"
	fi
	db_dumps=$(grep -a -c ' page: refcount:' "$out/$1.log" || true)
	db_first=$(grep -a -m1 -o ' page: refcount:.* pfn:0x[0-9a-f]*' "$out/$1.log" |
		sed 's/.* /, the first of /' || true)
	echo "    page dumps: $db_dumps$db_first"
}

[ $# -gt 0 ] || set -- thp zone node movable memblock accounting deferred
# Kernels are looked up in assignments (k=$(...)), so that a missing one
# stops the demo (set -e) instead of booting an empty path.
for demo in "$@"; do
	case "$demo" in
	thp)
		k=$(base_kernel)
		boot thp-base "$k" cma:cma_thp
		boot thp-series "$series_kernel" cma:cma_thp ;;
	node)
		fault_pair node x86_64-movable-node cma:cma_zone_pins states \
			zone-cma-node-states-7.3.patch ;;
	movable)
		fault_pair movable x86_64-movable-node cma:cma_zone_placement \
			kernel-zones zone-cma-evacuate-kernel-zones-7.3.patch ;;
	zone)
		zone_boot zone-series "$zone_kernel" ;;
	memblock)
		fault_pair memblock x86_64-zone-cma cma:cma_zone_pins zone \
			zone-cma-memblock-zone-7.3.patch ;;
	accounting)
		fault_pair accounting x86_64-zone-cma cma:cma_zone_layout no-reserve \
			zone-cma-no-reserve-7.3.patch ;;
	deferred)
		k=$(pristine_base_kernel x86_64-zone-cma) ||
			die "cannot build the pristine base kernel"
		deferred_boot deferred-base "$k"
		deferred_boot deferred-series "$zone_kernel" ;;
	*) die "unknown demo '$demo' (thp, zone, node, movable, memblock, accounting, deferred)" ;;
	esac
done
