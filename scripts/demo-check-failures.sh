#!/bin/sh
# Show, once each, that `make check` fails and names the cause when:
#   checkpatch  a patch has a checkpatch warning (a printk without a level)
#   bisect      a commit does not build although the next one does
#   sparse      a commit adds a sparse warning (an undeclared global symbol)
# Each fault is a commit on top of the series in a scratch worktree,
# build/linux-demo-check; build/linux and patches/ are left alone.
#
#   scripts/demo-check-failures.sh [checkpatch|bisect|sparse]...
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
wt=$top/build/linux-demo-check
harness="/usr/bin/python3 -m harness"
. "$top/scripts/demo-lib.sh"

# A fresh worktree at the head of the series.
reset_worktree() {
	head=$(git -C build/linux rev-parse HEAD)
	if [ -d "$wt" ]; then
		git -C "$wt" checkout -q --detach "$head" && git -C "$wt" reset -q --hard
	else
		git -C build/linux worktree add -q --detach "$wt" "$head"
	fi
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
	cp patches/0*.patch "$tmp/"
	n=$(ls patches/0*.patch | wc -l)
	git -C "$wt" format-patch -q --start-number "$n" -1 -o "$tmp"
	expect checkpatch 'FAIL.*printk\(\) should include KERN_' \
		$harness check --only checkpatch --patches "$tmp"
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
		$harness check --only bisect --tree "$wt" --from HEAD~2 --bisect x86_64:on
}

demo_sparse() {
	reset_worktree
	printf '\nint cma_demo_counter;\n' >> "$wt/mm/cma.c"
	commit "mm/cma: demo: a global without a declaration"
	expect sparse "FAIL.*mm/cma.c.*cma_demo_counter.*not declared" \
		$harness check --only compiler --tree "$wt" --from HEAD~1
}

[ $# -gt 0 ] || set -- checkpatch bisect sparse
for d in "$@"; do
	case $d in
	checkpatch|bisect|sparse) "demo_$d" ;;
	*) say "demo-check-failures: unknown demo $d (checkpatch, bisect, sparse)" >&2; exit 2 ;;
	esac
done
[ -d "$wt" ] && git -C build/linux worktree remove --force "$wt"
[ $status = 0 ] && say "every fault was caught" || say "some fault was NOT caught"
exit $status
