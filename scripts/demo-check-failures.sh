#!/bin/sh
# Show, once each, that `make check` fails and names the cause when:
#   checkpatch  a patch has a checkpatch warning (a printk without a level)
#   bisect      a commit does not build although the next one does
#   sparse      a commit adds a sparse warning (an undeclared global symbol)
#   zone-movable  a commit puts ZONE_MOVABLE back where the series says
#               ZONE_MOVABLE_TOP (pgdat_free_space_enough(), issue 17's
#               defect 7); on a base whose series folder has a
#               zone-movable-uses list (mainline's: series/zone-movable-uses)
# Each fault is a commit on top of the series of base $BASE (default
# mainline) in a scratch worktree, build/wt/<base>/demo-check; the base's
# work tree and patch folder are left alone.
#
#   [BASE=base] scripts/demo-check-failures.sh [checkpatch|bisect|sparse|zone-movable]...
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
. "$top/scripts/demo-lib.sh"
. "$top/scripts/base-lib.sh"
load_base "${BASE:-mainline}"
tree=$base_tree
wt=$top/build/wt/$base_name/demo-check
harness="$PYTHON -m harness"
scripts/series.sh tree "$base_name" || exit 2

# A fresh worktree at the head of the series.
reset_worktree() {
	head=$(git -C "$tree" rev-parse HEAD)
	(cd "$top" && $harness worktree --reset "$tree" "$wt" "$head") || exit 2
}

# commit SUBJECT: commit what the worktree has, as the series' author.
commit() {
	git -C "$wt" -c user.name="CMA Series Team" \
		-c user.email=cma-series@example.org commit -q -a -s -m "$1" \
		-m "Demonstration fault for scripts/demo-check-failures.sh."
}

demo_checkpatch() {
	reset_worktree
	cat >> "$wt/mm/cma.c" <<'EOF'

void cma_demo_log(void)
{
	printk("cma: demo\n");
}
EOF
	commit "mm/cma: demo: a printk without a log level"
	tmp=$(mktemp -d)
	cp "$base_patches"/0*.patch "$tmp/" 2>/dev/null
	n=$(ls "$base_patches"/0*.patch 2>/dev/null | wc -l)
	git -C "$wt" format-patch -q --start-number "$n" -1 -o "$tmp"
	expect checkpatch 'FAIL.*printk\(\) should include KERN_' \
		$harness check --series "$base_name" --only checkpatch --patches "$tmp"
	rm -rf "$tmp"
}

demo_bisect() {
	reset_worktree
	cat >> "$wt/mm/cma.c" <<'EOF'

int cma_demo_user(void)
{
	return cma_demo_helper();
}
EOF
	commit "mm/cma: demo: call a helper the next commit adds"
	printf 'int cma_demo_helper(void);\n' >> "$wt/mm/cma.h"
	cat >> "$wt/mm/cma.c" <<'EOF'

int cma_demo_helper(void)
{
	return 0;
}
EOF
	commit "mm/cma: demo: add the helper"
	expect bisect 'FAIL.*demo: call a helper.*build failed' \
		$harness check --series "$base_name" --only bisect --tree "$wt" --from HEAD~2 --bisect x86_64:on
}

demo_sparse() {
	reset_worktree
	printf '\nint cma_demo_counter;\n' >> "$wt/mm/cma.c"
	commit "mm/cma: demo: a global without a declaration"
	expect sparse "FAIL.*mm/cma.c.*cma_demo_counter.*not declared" \
		$harness check --series "$base_name" --only compiler --tree "$wt" --from HEAD~1
}

demo_zone_movable() {
	reset_worktree
	sed -i 's/ZONE_MOVABLE_TOP, 0))/ZONE_MOVABLE, 0))/' "$wt/kernel/sched/fair.c"
	commit "sched/numa: demo: the promotion check's class zone is ZONE_MOVABLE again"
	expect zone-movable 'FAIL.*kernel/sched/fair.c: pgdat_free_space_enough: not reviewed' \
		$harness check --series "$base_name" --only zone-movable --tree "$wt"
}

if [ $# -eq 0 ]; then
	set -- checkpatch bisect sparse
	[ -f "$base_series/zone-movable-uses" ] && set -- "$@" zone-movable
fi
for d in "$@"; do
	case $d in
	checkpatch|bisect|sparse) "demo_$d" ;;
	zone-movable) demo_zone_movable ;;
	*) say "demo-check-failures: unknown demo $d (checkpatch, bisect, sparse, zone-movable)" >&2; exit 2 ;;
	esac
done
[ -d "$wt" ] && git -C "$tree" worktree remove --force "$wt"
[ $status = 0 ] && say "every fault was caught" || say "some fault was NOT caught"
exit $status
