#!/bin/sh
# Show, once each, that the harness fails and names the cause when:
#   a patch does not apply, a fragment symbol cannot be set, a kselftest
#   fails, a kselftest hangs, the kernel prints a WARNING; and, on the
#   debug variant $V_DEBUG (default x86_64-debug, make test-debug's; the
#   patches go to its base's work tree, mainline's), when the kernel leaks
#   an object (kmemleak) and reads past one (KASAN).
# (That cma_stress's allocations fail on 7.3-rc7 with its alloc_mutex
# removed is shown by `make bench B=cma-concurrency-16k`: its no-mutex
# kernel.)
# Kernel and test faults (harness/faults/*-7.3.patch, written against the
# mainline series) are applied for one run on variant $V (default x86_64)
# to the work tree of V's base (build/linux) and reverted afterwards; that
# tree must be clean. The patch that does not apply, the variant table and
# the fragment of the fragment demo are not kernel faults: the demos write
# them into a temporary directory.
#
#   scripts/demo-failures.sh [patch|fragment|counters|hang|warning|leak|kasan]...
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
faults=harness/faults
V=${V:-x86_64}
V_DEBUG=${V_DEBUG:-x86_64-debug}
. "$top/scripts/demo-lib.sh"
. "$top/scripts/base-lib.sh"
base=$("$PYTHON" -m harness variants --base-of "$V") || exit 2
load_base "$base"
tree=$base_tree
scripts/series.sh tree "$base_name" || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# with_fault_in TREE PATCH CMD...: run CMD with PATCH applied to TREE.
with_fault_in() {
	ftree=$1 patch=$2
	shift 2
	git -C "$ftree" apply "$top/$faults/$patch" || {
		say "demo: $patch does not apply to $ftree"
		status=1
		return 1
	}
	"$@"
	rc=$?
	git -C "$ftree" apply -R "$top/$faults/$patch"
	return $rc
}

# with_fault PATCH CMD...: run CMD with PATCH applied to V's work tree.
with_fault() {
	with_fault_in "$tree" "$@"
}

# with_debug_fault PATCH CMD...: the same on V_DEBUG's work tree.
with_debug_fault() {
	dbase=$("$PYTHON" -m harness variants --base-of "$V_DEBUG") || return 2
	dtree=$(cd "$top" && "$PYTHON" -m harness bases --shell "$dbase" |
		sed -n 's/^base_tree=//p')
	scripts/series.sh tree "$dbase" >/dev/null || return 2
	if git -C "$dtree" status --porcelain --untracked-files=no | grep -q .; then
		say "demo-failures: $dtree has uncommitted changes; commit them first" >&2
		return 2
	fi
	with_fault_in "$dtree" "$@"
}

# does_not_apply: a patch on mm/cma.c whose context is in no base.
does_not_apply() {
	cat <<'EOF'
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: Harness Fault <fault@localhost>
Date: Thu, 1 Jan 2026 00:00:00 +0000
Subject: [PATCH] mm/cma: a patch whose context is not in the base

Signed-off-by: Harness Fault <fault@localhost>
---
 mm/cma.c | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/mm/cma.c b/mm/cma.c
--- a/mm/cma.c
+++ b/mm/cma.c
@@ -455,3 +455,3 @@
 		mutex_lock(&cma_mutex);
-		ret = alloc_contig_range(pfn, pfn + count, MIGRATE_CMA, GFP_NOWAIT);
+		ret = alloc_contig_range(pfn, pfn + count, MIGRATE_CMA, gfp);
 		mutex_unlock(&cma_mutex);
-- 
2.39.5
EOF
}

demo_patch() {
	wt=$(mktemp -d)
	pd=$(mktemp -d)
	rmdir "$wt"
	"$PYTHON" -m harness worktree "$tree" "$wt" base || exit 2
	cp "$base_patches"/[0-9]*.patch "$pd"/ 2>/dev/null
	does_not_apply >"$pd/9999-does-not-apply.patch"
	expect patch '9999-does-not-apply.patch does not apply.*mm/cma.c' \
		scripts/series.sh apply "$base_name" "$wt" "$pd"
	git -C "$tree" worktree remove --force "$wt"
	rm -rf "$pd"
}

# demo_fragment: a variant table with one variant, unsettable, whose
# fragment sets a symbol no kernel has (Kconfig drops it: it must be
# reported as fallen out). The fragment is named by its absolute path,
# which the harness takes in place of a name in configs/.
demo_fragment() {
	printf '%s\n' 'CONFIG_CMA_NO_SUCH_SYMBOL=y' >"$tmp/unsettable.config"
	cat >"$tmp/variants.ini" <<EOF
[unsettable]
summary = x86_64 with a fragment symbol that cannot be set
base = mainline
arch = x86_64
fragments = $tmp/unsettable
memory = 1G
cpus = 2
cmdline = cma=64M
EOF
	expect fragment 'CONFIG_CMA_NO_SUCH_SYMBOL: fragment sets y, .config has n' \
		env HARNESS_VARIANTS="$tmp/variants.ini" "$PYTHON" -m harness run unsettable
}

demo_counters() {
	expect counters 'FAIL [^ ]*: .*alloc 1 pages moves used and alloc_pages_success' \
		with_fault counters-wrong-7.3.patch "$PYTHON" -m harness run "$V"
}

demo_hang() {
	expect hang 'TIMEOUT [^ ]*: selftests: cma: cma_debugfs' \
		with_fault test-hangs-7.3.patch "$PYTHON" -m harness run "$V" --timeout 20
}

demo_warning() {
	expect warning 'FAIL [^ ]*: kernel splat: WARNING: .*cma_alloc_write' \
		with_fault kernel-warns-7.3.patch "$PYTHON" -m harness run "$V"
}

demo_leak() {
	expect leak 'FAIL [^ ]*: kernel splat: unreferenced object' \
		with_debug_fault kernel-leaks-7.3.patch "$PYTHON" -m harness run "$V_DEBUG" \
		--test cma:cma_debugfs
}

demo_kasan() {
	expect kasan 'FAIL [^ ]*: kernel splat: BUG: KASAN: slab-out-of-bounds in cma_alloc' \
		with_debug_fault kernel-out-of-bounds-7.3.patch "$PYTHON" -m harness run "$V_DEBUG" \
		--test cma:cma_debugfs
}

if git -C "$tree" status --porcelain --untracked-files=no | grep -q .; then
	say "demo-failures: $tree has uncommitted changes; commit them first" >&2
	exit 2
fi
[ $# -gt 0 ] || set -- patch fragment counters hang warning
for d in "$@"; do
	case "$d" in
	patch|fragment|counters|hang|warning|leak|kasan) "demo_$d" ;;
	*) say "demo-failures: unknown demo '$d' (patch fragment counters hang warning leak kasan)" >&2; exit 2 ;;
	esac
done
[ $status = 0 ] && say "demo-failures: every fault was caught" ||
	say "demo-failures: some fault went undetected"
exit $status
