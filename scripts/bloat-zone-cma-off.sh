#!/bin/sh
# With CONFIG_ZONE_CMA=n (its default) the ZONE_CMA patches must not change
# the kernel: build the harness's tinyconfig + fragments kernel at two
# revisions and compare them with scripts/bloat-o-meter, vmlinux and every
# mm/ object (plus drivers/base/memory.o) that exists in either build.
#
#   scripts/bloat-zone-cma-off.sh [-a "x86_64 arm64 i386"] [-f "fragments"] [-j N] [TREE [PRE [POST]]]
#
# TREE  a work tree of a series: build/linux (the mainline series, the default)
#       or another base's build/linux-<name>; its checkout is left alone: the revisions
#       are built in the detached worktrees build/wt/<base>/bloat-pre and bloat-post
#       (<base> the base whose work tree TREE is, configs/bases.ini; for another
#       tree, its directory name)
# PRE   (or -) default: the parent of the commit "mm: index zone_names[] by zone type,
#       check the per-zone event order" (the first ZONE_CMA patch)
# POST  default: HEAD of TREE
#
# Builds go to build/out/bloat-<tree name>-<arch>-<pre|post>: the arch's fragments
# (`python3 -m harness fragments --arch A`: common and the arch's own; i386 adds
# i386-highmem), then the -f fragments of configs/, e.g. -f hotplug, configured
# by `python3 -m harness configure`, ccache as the harness, -j3. The version string and build
# stamps are pinned (KBUILD_BUILD_*, LOCALVERSION_AUTO off, LOCALVERSION
# empty) on both sides, so that linux_banner & co. cannot differ: nothing is
# filtered out of the comparison. Exit 0 if no difference, 1 if any, 2 on a
# usage or build error.
set -eu

usage() {
	echo "usage: $0 [-a \"x86_64 arm64 i386\"] [-f \"fragments\"] [-j jobs] [TREE [PRE [POST]]]" >&2
	echo "       TREE: build/linux (default, the mainline series) or build/linux-<name>" >&2
	exit 2
}

top=$(cd "$(dirname "$0")/.." && pwd)
: "${PYTHON:=python3}"
arches="x86_64 arm64"
jobs=3
extra=
while getopts a:f:j: o; do
	case $o in
	a) arches=$OPTARG ;;
	f) extra=$OPTARG ;;
	j) jobs=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
if [ $# -gt 3 ]; then usage; fi
# Default TREE: the mainline series' work tree (configs/bases.ini).
if [ $# -eq 0 ]; then
	main_tree=$(cd "$top" && "$PYTHON" -m harness bases --shell mainline |
		sed -n 's/^base_tree=//p')
	[ -n "$main_tree" ] || { echo "$0: no mainline base in configs/bases.ini" >&2; exit 2; }
	set -- "$top/$main_tree"
fi
case $jobs in '' | *[!0-9]*) usage ;; esac
for a in $arches; do
	case $a in x86_64 | arm64 | i386) ;; *) usage ;; esac
done
[ -n "$arches" ] || usage
for f in $extra; do
	[ -f "$top/configs/$f.config" ] ||
		{ echo "$0: -f $f: no configs/$f.config" >&2; exit 2; }
done
tree=$(cd "$1" 2>/dev/null && pwd) || usage
git -C "$tree" rev-parse --git-dir >/dev/null 2>&1 || usage
# Scratch worktrees go where make check's do (build/wt/<base>/), not next to
# TREE: build/linux-<name> is the work tree of base <name>.
wt_dir=$top/build/wt/$(basename "$tree")
for b in $(cd "$top" && "$PYTHON" -m harness bases --names); do
	t=$(cd "$top" && "$PYTHON" -m harness bases --shell "$b" | sed -n 's/^base_tree=//p')
	[ "$(cd "$top/$t" 2>/dev/null && pwd)" != "$tree" ] || wt_dir=$top/build/wt/$b
done

first_subject='mm: index zone_names[] by zone type, check the per-zone event order'
post=$(git -C "$tree" rev-parse --verify "${3:-HEAD}^{commit}") || usage
if [ $# -ge 2 ] && [ "$2" != - ]; then
	pre=$(git -C "$tree" rev-parse --verify "$2^{commit}") || usage
else
	first=$(git -C "$tree" log --format='%H %s' "$post" |
		awk -v s="$first_subject" 'substr($0, 42) == s { print $1; exit }')
	[ -n "$first" ] || { echo "$0: no commit \"$first_subject\" in $post's history" >&2; exit 2; }
	pre=$(git -C "$tree" rev-parse "$first^")
fi

bom=$tree/scripts/bloat-o-meter
outdir=$top/build/out
mkdir -p "$outdir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Pinned build stamps: identical on both sides (and friendlier to ccache).
export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 1970'
export KBUILD_BUILD_USER=bloat KBUILD_BUILD_HOST=bloat KBUILD_BUILD_VERSION=1

worktree() { # worktree <pre|post> <rev>: a detached checkout of rev
	wt=$wt_dir/bloat-$1
	(cd "$top" && "$PYTHON" -m harness worktree "$tree" "$wt" "$2") || exit 2
	[ "$(git -C "$wt" rev-parse HEAD)" = "$2" ] || { echo "$0: $wt is not at $2" >&2; exit 2; }
	[ -z "$(git -C "$wt" status --porcelain --untracked-files=no)" ] ||
		{ echo "$0: $wt has local changes" >&2; exit 2; }
}

build() { # build <arch> <pre|post>
	arch=$1 side=$2 wt=$wt_dir/bloat-$2 out=$outdir/bloat-$(basename "$tree")-$1-$2
	karch=$arch
	cross=$(cd "$top" && "$PYTHON" -c "from harness import arches; print(arches.ARCHES['$arch'].cross_compile)")
	case $arch in
	i386) own=i386-highmem ;;
	*) own= ;;
	esac
	# shellcheck disable=SC2086
	frags=$(cd "$top" && "$PYTHON" -m harness fragments --arch "$arch" $own $extra) || exit 2
	mkdir -p "$out"
	log=$out/bloat-build.log
	set -- -C "$wt" O="$out" ARCH="$karch" LOCALVERSION=
	[ -z "$cross" ] || set -- "$@" CROSS_COMPILE="$cross"
	if command -v ccache >/dev/null; then
		set -- "$@" CC="ccache ${cross}gcc" HOSTCC="ccache gcc"
	fi
	: >"$log"
	# The harness's one configure path (tinyconfig, the fragments,
	# olddefconfig, every fragment symbol checked in .config).
	# shellcheck disable=SC2086 # word splitting of the fragment list intended
	(cd "$top" && "$PYTHON" -m harness configure --arch "$karch" --tree "$wt" --out "$out" \
		--log "$log" --set CONFIG_LOCALVERSION_AUTO=n $frags) >&2 ||
		{ echo "$0: configuring $arch $side failed, see $log" >&2; exit 2; }
	if grep -q '^CONFIG_ZONE_CMA=y' "$out/.config"; then
		echo "$0: $arch $side: CONFIG_ZONE_CMA=y, expected off" >&2; exit 2
	fi
	echo "  building $arch $side ($(git -C "$wt" log -1 --format='%h %s' | cut -c1-60)) in ${out#"$top"/}" >&2
	make "$@" -j"$jobs" vmlinux >>"$log" 2>&1 ||
		{ echo "$0: building $arch $side failed; last lines of $log:" >&2; tail -20 "$log" >&2; exit 2; }
}

summary() { # summary <bloat-o-meter output file>: its two summary lines
	grep -E '^(add/remove:|Total:)' "$1" || true
}

same() { # same <bloat-o-meter output file>: nothing added, removed or resized
	grep -qx 'add/remove: 0/0 grow/shrink: 0/0 up/down: 0/0 (0)' "$1"
}

worktree pre "$pre"
worktree post "$post"
echo "ZONE_CMA off: comparing pre $pre ($(git -C "$tree" log -1 --format=%s "$pre"))"
echo "                    with post $post ($(git -C "$tree" log -1 --format=%s "$post"))"

diffs=0
for arch in $arches; do
	build "$arch" pre
	build "$arch" post
	p=$outdir/bloat-$(basename "$tree")-$arch-pre q=$outdir/bloat-$(basename "$tree")-$arch-post
	echo "== $arch"
	# The .configs may differ only by the new (unset) ZONE_CMA symbol and,
	# on mainline, the ARCH_SUPPORTS_ZONE_CMA that x86_64 and arm64 select.
	cdiff=$(diff "$p/.config" "$q/.config" | grep '^[<>]' | grep -v '^[<>] #$' || true)
	if [ -n "$cdiff" ]; then
		echo "$cdiff" | sed 's/^/  .config: /'
		if echo "$cdiff" | grep -qv -e '^> # CONFIG_ZONE_CMA is not set$' \
			-e '^> CONFIG_ARCH_SUPPORTS_ZONE_CMA=y$'; then
			echo "  .config: differs by more than ZONE_CMA=n"; diffs=$((diffs + 1))
		fi
	fi
	"$bom" "$p/vmlinux" "$q/vmlinux" >"$tmp/vmlinux" 2>&1 || true
	echo "  vmlinux:"
	summary "$tmp/vmlinux" | sed 's/^/    /'
	if ! same "$tmp/vmlinux"; then
		sed 's/^/    /' "$tmp/vmlinux"; diffs=$((diffs + 1))
	fi
	# Objects: mm/ (all levels) and drivers/base/memory.o, in either build.
	for d in "$p" "$q"; do
		(cd "$d" && find mm -name '*.o' ! -name '*.mod.o' && ls drivers/base/memory.o 2>/dev/null) || true
	done | sort -u >"$tmp/objs"
	n=0 nd=0
	while IFS= read -r o; do
		if [ ! -e "$p/$o" ] || [ ! -e "$q/$o" ]; then
			[ -e "$p/$o" ] && echo "  $o: only in pre" || echo "  $o: only in post"
			nd=$((nd + 1)); continue
		fi
		n=$((n + 1))
		"$bom" "$p/$o" "$q/$o" >"$tmp/obj" 2>&1 || true
		if ! same "$tmp/obj"; then
			echo "  $o:"; sed 's/^/    /' "$tmp/obj"; nd=$((nd + 1))
		fi
	done <"$tmp/objs"
	[ -e "$p/drivers/base/memory.o" ] || echo "  drivers/base/memory.o: not built in this configuration"
	echo "  objects: $n compared, $nd differ"
	diffs=$((diffs + nd))
done

if [ $diffs -eq 0 ]; then
	echo "VERDICT: no difference with CONFIG_ZONE_CMA=n ($arches): ${pre%"${pre#????????????}"}..${post%"${post#????????????}"}"
	exit 0
fi
echo "VERDICT: $diffs difference(s) with CONFIG_ZONE_CMA=n ($arches): ${pre%"${pre#????????????}"}..${post%"${post#????????????}"}"
exit 1
