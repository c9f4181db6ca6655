#!/bin/sh
# Install what the harness needs from Debian's archive, only what is missing.
# Run as root (make deps). Adds the arm64 architecture for busybox-static.
set -eu

PKGS="make gcc bc flex bison libelf-dev libssl-dev cpio gzip xz-utils
python3 python3-ply python3-git git ccache perl dwarves busybox-static
qemu-system-x86 qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross
sparse codespell python3-sphinx python3-sphinx-rtd-theme python3-yaml"
[ $# -gt 0 ] && PKGS="$PKGS $*"

missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
need_arm64=
dpkg --print-foreign-architectures | grep -qx arm64 || need_arm64=1
if [ -z "$missing" ] && [ -z "$need_arm64" ]; then
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing packages:$missing; run as root: make deps" >&2
	exit 1
fi
[ -n "$need_arm64" ] && dpkg --add-architecture arm64
echo "install-deps: installing$missing" >&2
apt-get update -q
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
