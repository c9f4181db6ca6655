#!/bin/sh
# Every commit of one base's series (base..HEAD of its work tree) must build:
# compile the CMA objects with W=1, CONFIG_CMA_CONCURRENT_ALLOC on and off,
# in a scratch worktree (the work tree itself is left alone). Prints one
# line a build; any compiler output counts as a failure. (make check's
# bisect gate builds all of vmlinux per commit; this is the quick W=1 look
# at the CMA objects.)
#
#   bisect-objects.sh [BASE]     BASE: configs/bases.ini, default mainline
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base-lib.sh"
load_base "${1:-mainline}"
tree=$top/$base_tree
[ -d "$tree/.git" ] || { echo "bisect-objects: no $base_tree: make tree BASE=$base_name" >&2; exit 2; }
commits=$(git -C "$tree" rev-list --reverse base..HEAD)
[ -n "$commits" ] || { echo "bisect-objects: $base_tree has no commit after base" >&2; exit 2; }
status=0
wt=$top/build/wt/$base_name/bisect-objects
out=$top/build/out/bisect-objects-$base_name
rm -rf "$wt"
git -C "$tree" worktree prune
mkdir -p "$(dirname "$wt")" "$out"
git -C "$tree" worktree add -q --detach "$wt" base
# The default x86_64 variant's configuration: tinyconfig + common + x86_64.
make -s -C "$wt" O="$out" tinyconfig >/dev/null 2>&1
cat "$top/configs/common.config" "$top/configs/x86_64.config" >> "$out/.config"
export PATH=/usr/lib/ccache:$PATH
for c in $commits; do
	git -C "$wt" checkout -q --detach "$c"
	for opt in y n; do
		if [ $opt = y ]; then "$wt/scripts/config" --file "$out/.config" -e CMA_CONCURRENT_ALLOC
		else "$wt/scripts/config" --file "$out/.config" -d CMA_CONCURRENT_ALLOC; fi
		make -s -C "$wt" O="$out" olddefconfig >/dev/null 2>&1
		log=$out/$c-$opt.log
		if make -s -C "$wt" O="$out" -j3 W=1 mm/cma.o mm/cma_debug.o mm/cma_sysfs.o >"$log" 2>&1 &&
			[ ! -s "$log" ]; then r=ok; else r="FAIL (see $log)"; status=1; fi
		echo "$(git -C "$tree" log -1 --format=%s "$c" | cut -c1-60) CMA_CONCURRENT_ALLOC=$opt: $r"
	done
done
git -C "$tree" worktree remove --force "$wt"
exit $status
