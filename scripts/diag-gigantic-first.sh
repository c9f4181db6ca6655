#!/bin/sh
# diag-gigantic-first.sh KERNEL_DIR...: boot each mm-selftests kernel
# (build/out/bench-mainline-*-x86_64-*, built by `make mm-selftests`) on
# the guest of configs/mm-selftests.ini and ask node 1 for a 1 GiB page
# three times: right after the 2 MiB pool is set (as bench/mm-selftests.sh
# does first), after transhuge-stress, and after the THP tests. Prints
# each gigantic case's line (how much came from hugetlb1, how much
# cma_alloc() failed there). The cases are bench/mm-selftests.sh's own
# functions; its run list is replaced, the rest is unchanged.
[ $# -ge 1 ] || { echo "usage: $0 KERNEL_DIR..." >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bench"
awk '/^run migration / { skip = 1
	print "run_fn hugetlb_cma-gigantic-0 gigantic 1"
	print "run transhuge-stress ./transhuge-stress -d 20"
	print "run_fn hugetlb_cma-gigantic-1 gigantic 1"
	print "run khugepaged ./khugepaged"
	print "run split_huge_page_test ./split_huge_page_test"
	print "run_fn hugetlb_cma-gigantic-2 gigantic 1" }
     /^echo "BENCH passed/ { skip = 0 }
     !skip' "$top/bench/mm-selftests.sh" > "$tmp/bench/gigantic-first"
chmod +x "$tmp/bench/gigantic-first"
(cd "$tmp" && find bench | cpio --quiet -o -H newc -R 0:0 | gzip) > "$tmp/extra.cpio.gz"
for k in "$@"; do
	[ -r "$k/arch/x86/boot/bzImage" ] && [ -r "$k/bench-initramfs.cpio.gz" ] ||
		{ echo "$0: $k: no bzImage or bench-initramfs.cpio.gz (run make mm-selftests)" >&2; exit 2; }
	# The kernel unpacks concatenated cpio archives in order.
	cat "$k/bench-initramfs.cpio.gz" "$tmp/extra.cpio.gz" > "$tmp/initrd.gz"
	echo "== $k"
	timeout 1800 qemu-system-x86_64 -M pc -cpu max -m 6G -smp 2 -no-reboot -nographic \
		-kernel "$k/arch/x86/boot/bzImage" -initrd "$tmp/initrd.gz" -accel tcg \
		-append "console=ttyS0 panic=-1 numa=fake=2 cma=128M cma_pernuma=64M hugetlb_cma=1:1G harness.mode=bench harness.tests=cma harness.bench=gigantic-first harness.zram=256M" |
		grep -a '^# hugetlb_cma-gigantic-[0-9]: allocated\|^MMTEST'
done
