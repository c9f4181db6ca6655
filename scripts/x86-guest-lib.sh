# Sourced by demo-defects.sh and concurrency-quick.sh, which boot kernels
# that the harness does not build (pristine 7.3-rc7)
# with the x86_64 variant's initramfs. Run from the repository's top.

# The x86_64 variant's guest (configs/variants.ini: 1 GiB, 2 vCPUs,
# cma=256M), booted under TCG with @append added to the command line;
# CMDLINE, when given, replaces cma=256M (another variant's command line,
# e.g. x86_64-zone-cma's "numa=fake=2 cma=128M cma_pernuma=64M"). As in
# the harness, earlycon= shows what a kernel prints before its console
# registers. The guest is stopped after X86_GUEST_TIMEOUT seconds (default
# 1200).
#   x86_guest KERNEL INITRD LOG APPEND [CMDLINE]
x86_guest() {
	timeout "${X86_GUEST_TIMEOUT:-1200}" qemu-system-x86_64 -M pc -cpu max -m 1G -smp 2 -no-reboot \
		-nographic -accel tcg -kernel "$1" -initrd "$2" \
		-append "console=ttyS0 earlycon=uart8250,io,0x3f8,115200 panic=-1 ${5:-cma=256M} $4" \
		> "$3" 2>&1 || true
}

# Pristine 7.3-rc7 with the .config of VARIANT (default x86_64; options
# the base does not have drop out), built in build/out/VARIANT-base from a
# worktree of build/linux at tag base, and built again whenever the
# variant's .config has changed since; prints the bzImage's path.
#   pristine_base_kernel [VARIANT]
pristine_base_kernel() {
	pb_variant=${1:-x86_64}
	pb_tree=build/wt-base pb_out=build/out/$pb_variant-base
	pb_config=build/out/$pb_variant/.config
	[ -r "$pb_config" ] || { echo "no $pb_variant build: run 'make run V=$pb_variant' first" >&2; return 1; }
	[ -d "$pb_tree" ] || "${PYTHON:-python3}" -m harness worktree build/linux "$pb_tree" base || return 1
	if [ ! -r "$pb_out/arch/x86/boot/bzImage" ] ||
	   ! cmp -s "$pb_config" "$pb_out/.config.variant"; then
		mkdir -p "$pb_out"
		cp "$pb_config" "$pb_out/.config"
		make -s -C "$pb_tree" O="$(pwd)/$pb_out" olddefconfig
		grep -q '^CONFIG_PAGE_BLOCK_MAX_ORDER=5$' "$pb_out/.config" || {
			echo "the base's config lost CONFIG_PAGE_BLOCK_MAX_ORDER=5" >&2; return 1; }
		echo "building pristine 7.3-rc7 with the $pb_variant config in $pb_out" >&2
		pb_cc=gcc
		command -v ccache >/dev/null && pb_cc="ccache gcc"
		make -s -C "$pb_tree" O="$(pwd)/$pb_out" CC="$pb_cc" -j"$(nproc)" bzImage >&2 || return 1
		cp "$pb_config" "$pb_out/.config.variant"
	fi
	echo "$(pwd)/$pb_out/arch/x86/boot/bzImage"
}
