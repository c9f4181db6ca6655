#!/bin/sh
# Show that the kselftests added for the review's defects fail on the kernels
# they guard against, and pass on the mainline series:
#
#   thp     cma_thp (defect 5) on pristine 7.3-rc7 built with the x86_64
#           variant's config (THP, CONFIG_PAGE_BLOCK_MAX_ORDER=5): fails,
#           and the kernel warns in isolate_single_pageblock();
#   pinned  cma_pinned (defect 1) on the 6.12 backport's x86_64-zone-cma
#           kernel: fails, chunks after each held page are never tried;
#           on 7.3-rc7 it passes (its search steps one candidate at a time);
#   stress  cma_stress, crowded phase included (defects 2 and 3), on the
#           same 6.12 kernel.
#
#   demo-defects.sh [thp|pinned|stress]...   (default: all three)
#
# Needs the x86_64 variant built (make run), whose initramfs carries the
# series' kselftests, and for pinned and stress the x86_64-zone-cma variant
# (make run V=x86_64-zone-cma). The pristine base kernel is built here, in
# build/out/x86_64-base, from a worktree of build/linux at tag base.
# Consoles go to build/results/demo-defects/.
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
out=$top/build/results/demo-defects
initrd=$top/build/out/x86_64/initramfs.cpio.gz
series_kernel=$top/build/out/x86_64/arch/x86/boot/bzImage
backport_kernel=$top/build/out/x86_64-zone-cma/arch/x86/boot/bzImage
base_out=$top/build/out/x86_64-base
base_tree=$top/build/wt-base

die() { echo "demo-defects: $*" >&2; exit 1; }

[ -r "$initrd" ] && [ -r "$series_kernel" ] ||
	die "no x86_64 build: run 'make run' first"
mkdir -p "$out"

# boot NAME KERNEL TESTS [ARGS]: one guest, console in $out/NAME.log; prints
# the test lines and any kernel WARNING.
boot() {
	name=$1 kernel=$2 tests=$3 args=${4:-}
	timeout 1200 qemu-system-x86_64 -M pc -cpu max -m 1G -smp 2 -no-reboot \
		-nographic -accel tcg -kernel "$kernel" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 cma=256M harness.mode=run harness.tests=$tests $args" \
		> "$out/$name.log" 2>&1 || true
	echo "== $name: $(grep -m1 -a 'Linux version' "$out/$name.log" | sed 's/.*Linux version \([^ ]*\).*/Linux \1/')"
	grep -a -E '^# (ok|not ok)|^(ok|not ok)|held pfn|allocations \(|WARNING: ' "$out/$name.log" |
		sed 's/^/    /'
}

base_kernel() {
	if [ ! -d "$base_tree" ]; then
		git -C build/linux worktree add -q --detach "$base_tree" base
	fi
	if [ ! -r "$base_out/arch/x86/boot/bzImage" ]; then
		mkdir -p "$base_out"
		cp build/out/x86_64/.config "$base_out/.config"
		make -s -C "$base_tree" O="$base_out" olddefconfig
		grep -q '^CONFIG_PAGE_BLOCK_MAX_ORDER=5$' "$base_out/.config" ||
			die "base config lost CONFIG_PAGE_BLOCK_MAX_ORDER=5"
		echo "demo-defects: building pristine 7.3-rc7 in $base_out" >&2
		cc=gcc
		command -v ccache >/dev/null && cc="ccache gcc"
		make -s -C "$base_tree" O="$base_out" CC="$cc" -j"$(nproc)" bzImage
	fi
	echo "$base_out/arch/x86/boot/bzImage"
}

backport_kernel() {
	[ -r "$backport_kernel" ] ||
		die "no x86_64-zone-cma build: run 'make run V=x86_64-zone-cma' first"
	echo "$backport_kernel"
}

[ $# -gt 0 ] || set -- thp pinned stress
for demo in "$@"; do
	case "$demo" in
	thp)
		boot thp-base "$(base_kernel)" cma:cma_thp
		boot thp-series "$series_kernel" cma:cma_thp ;;
	pinned)
		boot pinned-6.12 "$(backport_kernel)" cma:cma_pinned
		boot pinned-base "$(base_kernel)" cma:cma_pinned
		boot pinned-series "$series_kernel" cma:cma_pinned ;;
	stress)
		boot stress-6.12 "$(backport_kernel)" cma:cma_stress harness.args.cma_stress=-t,32
		boot stress-series "$series_kernel" cma:cma_stress harness.args.cma_stress=-t,32 ;;
	*) die "unknown demo '$demo' (thp, pinned, stress)" ;;
	esac
done
