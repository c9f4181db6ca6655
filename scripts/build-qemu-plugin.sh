#!/bin/sh
# Build bench/profile/insn-profile.c, the QEMU TCG plugin of the profiled
# benchmarks, against the plugin API of the installed QEMU.
#
# usage: scripts/build-qemu-plugin.sh OUTPUT.so
#
# QEMU checks a plugin's API version at load time, and Debian ships no
# qemu-plugin.h: the header is taken from the Debian source package of the
# installed qemu-system-x86 (apt-get source with a private apt
# configuration under build/cache, so the system's sources stay untouched).
set -eu
out=${1:?usage: build-qemu-plugin.sh OUTPUT.so}
root=$(cd "$(dirname "$0")/.." && pwd)
src=$root/bench/profile/insn-profile.c
cache=$root/build/cache/qemu-plugin

pkg=$(dpkg-query -W -f='${source:Package}' qemu-system-x86 2>/dev/null) || {
	echo "build-qemu-plugin: qemu-system-x86 is not installed (make deps)" >&2
	exit 1
}
ver=$(dpkg-query -W -f='${source:Version}' qemu-system-x86)
# Up to date: newer than its source and built for this QEMU (an upgraded
# QEMU refuses a plugin of another API version; $out.qemu says which).
stamp=$out.qemu
if [ -f "$out" ] && [ "$out" -nt "$src" ] && [ -f "$stamp" ] &&
	[ "$(cat "$stamp")" = "$pkg $ver" ]; then
	exit 0
fi
dir=$cache/$pkg-$(echo "$ver" | tr : _)
header=$dir/qemu-plugin.h
if [ ! -f "$header" ]; then
	apt=$cache/apt
	mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$dir"
	codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
	cat > "$apt/sources.list" <<LIST
deb-src http://deb.debian.org/debian $codename main
deb-src http://deb.debian.org/debian $codename-updates main
deb-src http://deb.debian.org/debian-security $codename-security main
LIST
	set -- -o Dir::Etc::SourceList="$apt/sources.list" \
		-o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$apt/lists" \
		-o Dir::Cache::Archives="$apt/archives"
	apt-get "$@" -q update >/dev/null
	(cd "$dir" &&
	 apt-get "$@" -q source --download-only "$pkg=$ver" >/dev/null 2>&1) || {
		echo "build-qemu-plugin: cannot download the source of $pkg $ver" >&2
		exit 1
	}
	orig=$(ls "$dir"/*.orig.tar.* | head -n 1)
	member=$(tar -tf "$orig" | grep '/include/qemu/qemu-plugin.h$' | head -n 1)
	[ -n "$member" ] || {
		echo "build-qemu-plugin: no qemu-plugin.h in $orig" >&2
		exit 1
	}
	tar -xOf "$orig" "$member" > "$header.tmp" && mv "$header.tmp" "$header"
fi
mkdir -p "$(dirname "$out")"
gcc -O2 -Wall -Wextra -Wno-unused-parameter -shared -fPIC \
	-I "$(dirname "$header")" -o "$out.tmp" "$src" && mv "$out.tmp" "$out"
echo "$pkg $ver" > "$stamp"
