#!/bin/sh
# Every commit of the series (base..series in build/linux) must build: compile
# the CMA objects it touches with W=1, CONFIG_CMA_CONCURRENT_ALLOC on and off,
# in a scratch worktree (build/linux is left alone). Prints one line a build;
# any compiler output counts as a failure.
set -u
status=0
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top/build/linux"
wt=/tmp/bisect-wt
rm -rf $wt; git worktree prune
git worktree add -q --detach $wt base
out=/tmp/bisect-out
mkdir -p $out
[ -r "$top/build/out/x86_64/.config" ] || { echo "bisect-objects: build the x86_64 variant first (make run)" >&2; exit 2; }
cp "$top/build/out/x86_64/.config" $out/.config
export PATH=/usr/lib/ccache:$PATH
for c in $(git rev-list --reverse base..series); do
  git -C $wt checkout -q --detach $c
  for opt in y n; do
    if [ $opt = y ]; then $wt/scripts/config --file $out/.config -e CMA_CONCURRENT_ALLOC; else $wt/scripts/config --file $out/.config -d CMA_CONCURRENT_ALLOC; fi
    make -s -C $wt O=$out olddefconfig >/dev/null 2>&1
    if make -s -C $wt O=$out -j3 W=1 mm/cma.o mm/cma_debug.o mm/cma_sysfs.o > /tmp/bisect-$c-$opt.log 2>&1 && [ ! -s /tmp/bisect-$c-$opt.log ]; then r=ok; else r=FAIL; status=1; fi
    echo "$(git log -1 --format=%s $c | cut -c1-60) CMA_CONCURRENT_ALLOC=$opt: $r"
  done
done
git worktree remove --force $wt
exit $status
