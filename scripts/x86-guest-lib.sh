# Sourced by demo-defects.sh and concurrency-quick.sh, which boot kernels
# that the harness does not build (pristine 7.3-rc7, the 6.12 backport's)
# with the x86_64 variant's initramfs. Run from the repository's top.

# The x86_64 variant's guest (configs/variants.ini: 1 GiB, 2 vCPUs,
# cma=256M), booted under TCG with @append added to the command line;
# CMDLINE, when given, replaces cma=256M (another variant's command line,
# e.g. x86_64-zone-cma's "numa=fake=2 cma=128M cma_pernuma=64M").
#   x86_guest KERNEL INITRD LOG APPEND [CMDLINE]
x86_guest() {
	timeout 1200 qemu-system-x86_64 -M pc -cpu max -m 1G -smp 2 -no-reboot \
		-nographic -accel tcg -kernel "$1" -initrd "$2" \
		-append "console=ttyS0 panic=-1 ${5:-cma=256M} $4" > "$3" 2>&1 || true
}

# Pristine 7.3-rc7 with the x86_64 variant's .config (options the base does
# not have drop out), built once in build/out/x86_64-base from a worktree of
# build/linux at tag base; prints the bzImage's path.
pristine_base_kernel() {
	pb_tree=build/wt-base pb_out=build/out/x86_64-base
	[ -r build/out/x86_64/.config ] || { echo "no x86_64 build: run 'make run V=x86_64' first" >&2; return 1; }
	[ -d "$pb_tree" ] || "${PYTHON:-python3}" -m harness worktree build/linux "$pb_tree" base || return 1
	if [ ! -r "$pb_out/arch/x86/boot/bzImage" ]; then
		mkdir -p "$pb_out"
		cp build/out/x86_64/.config "$pb_out/.config"
		make -s -C "$pb_tree" O="$(pwd)/$pb_out" olddefconfig
		grep -q '^CONFIG_PAGE_BLOCK_MAX_ORDER=5$' "$pb_out/.config" || {
			echo "the base's config lost CONFIG_PAGE_BLOCK_MAX_ORDER=5" >&2; return 1; }
		echo "building pristine 7.3-rc7 in $pb_out" >&2
		pb_cc=gcc
		command -v ccache >/dev/null && pb_cc="ccache gcc"
		make -s -C "$pb_tree" O="$(pwd)/$pb_out" CC="$pb_cc" -j"$(nproc)" bzImage >&2
	fi
	echo "$(pwd)/$pb_out/arch/x86/boot/bzImage"
}
