#!/bin/sh
# Install what the harness needs from Debian's archive, only what is missing.
# Run as root (make deps). Adds the arm64 and i386 architectures, from which
# the harness downloads busybox-static (apt-get download, not installed).
# gcc-12-multilib and libc6-dev-i386 build the static 32-bit kselftests
# of the i386 variants with the host gcc and -m32 (not gcc-multilib: it
# conflicts with gcc-aarch64-linux-gnu, apt would remove the cross compiler).
# gcc-arm-linux-gnueabihf builds the 32-bit arm kernel of the matrix.
# rsync: 7.3's kselftest install (tools/testing/selftests/lib.mk) copies
# with it. e2fsprogs: mke2fs makes the ext2 disk of benchmarks with a `disk`.
# bash-static: the guest's bash, for make mm-selftests' run_vmtests.sh.
set -eu

PKGS="make gcc bc flex bison libelf-dev libssl-dev cpio gzip xz-utils rsync e2fsprogs
python3 python3-ply python3-git git ccache perl dwarves busybox-static bash-static
qemu-system-x86 qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross
gcc-arm-linux-gnueabihf
gcc-12-multilib libc6-dev-i386
sparse codespell python3-sphinx python3-sphinx-rtd-theme python3-yaml"
[ $# -gt 0 ] && PKGS="$PKGS $*"
FOREIGN="arm64 i386"

missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
need_arch=
for a in $FOREIGN; do
	dpkg --print-foreign-architectures | grep -qx "$a" || need_arch="$need_arch $a"
done
if [ -z "$missing" ] && [ -z "$need_arch" ]; then
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing packages:$missing${need_arch:+, architectures:$need_arch}; run as root: make deps" >&2
	exit 1
fi
for a in $need_arch; do
	dpkg --add-architecture "$a"
done
echo "install-deps: installing$missing" >&2
# A mirror caught mid-sync fails one index (seen with bookworm-security's
# i386 list) while the others are fine: go on, apt-get install says what
# it cannot find.
apt-get update -q ||
	echo "install-deps: apt-get update reported errors; installing anyway" >&2
[ -z "$missing" ] ||
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
