#!/bin/sh
# Build tools/testing/selftests/cma at every commit of a series, with the
# host's gcc, in a scratch worktree: each patch's selftests must build on
# their own (make check's bisect gate does this too, with a kernel per
# commit, which takes hours; this takes a minute or two).
#
#   scripts/selftests-per-commit.sh [TREE]   (default build/linux, from tag base)
#
# Prints one line per commit that has the directory; exit 1 if any failed.
set -eu
cd "$(dirname "$0")/.."
tree=${1:-build/linux}
wt=$(pwd)/build/wt/selftests-per-commit
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
[ -d "$wt" ] || git -C "$tree" worktree add -q --detach "$wt" base
bad=0
for c in $(git -C "$tree" rev-list --reverse base..HEAD); do
	git -C "$wt" checkout -q --detach "$c"
	d=$wt/tools/testing/selftests/cma
	[ -d "$d" ] || continue
	rm -rf "${out:?}"/*
	if log=$(make -s -C "$d" OUTPUT="$out" 2>&1) && ! printf '%s\n' "$log" | grep -q -E 'warning|error'; then
		res=ok
	else
		res="FAILED: $(printf '%s\n' "$log" | grep -m1 -E 'warning|error')"
		bad=1
	fi
	echo "$(git -C "$wt" log -1 --format='%h %s' | cut -c1-64): $res"
done
exit $bad
