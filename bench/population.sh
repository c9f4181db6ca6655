#!/bin/sh
# population: where the pages of the CMA areas ended up after boot, then
# every cma kselftest in /bench with its default arguments, so that a boot
# where an area failed to activate (make fault-inject:
# cma_fail_activation=<name>, harness/faults/cma-activation-fails-7.3.patch)
# can be compared with a boot of the same kernel where none did.
#
# Per area, from debugfs (7.3 lists only the areas it activated):
#   AREA <name> count=<pages> used=<pages>
# Per kselftest:
#   KSFT <name> pass|fail|skip rc=<exit status>
# Then BENCH lines for the host:
#   memtotal_kb             MemTotal
#   cmatotal_kb             CmaTotal
#   page_kb                 the page size
#   pageblock_pages         pages per pageblock
#   zone_cma_cma_blocks     MIGRATE_CMA pageblocks in ZONE_CMA
#   zone_cma_movable_blocks MIGRATE_MOVABLE pageblocks in ZONE_CMA
#   cma_blocks_elsewhere    MIGRATE_CMA pageblocks in any other zone
#   zone_cma_movable_free_kb free pages on ZONE_CMA's movable free lists
. /bench/cma-lib

[ -r /proc/pagetypeinfo ] || { echo "population: no /proc/pagetypeinfo" >&2; exit 1; }
ls /sys/kernel/debug/cma/* > /dev/null 2>&1 ||
	{ echo "population: no CMA area in debugfs (CMA_DEBUGFS, an area)" >&2; exit 1; }

for a in /sys/kernel/debug/cma/*; do
	echo "AREA ${a##*/} count=$(cat "$a/count") used=$(cat "$a/used")"
done
page_kb=$(cma_page_kb) || { echo "population: every CMA area was refused" >&2; exit 1; }

# /proc/pagetypeinfo: the free lists ("Node 0, zone CMA, type Movable" and
# a count per order), then a count of pageblocks per migratetype and zone
# under a header that names the migratetypes.
awk -v page_kb="$page_kb" '
# Printed once per node: the free lists, then the pageblock counts.
/^Pages per block:/ { pages_per_block = $4 }
/^Free pages count/ { blocks = 0 }
$3 == "zone" && $4 == "CMA," && $6 == "Movable" {
	# BusyBox awk has no "^": the block size of each order by doubling.
	for (i = 7, n = 1; i <= NF; i++) { free += $i * n; n *= 2 }
}
/^Number of blocks type/ {
	for (i = 5; i <= NF; i++) col[$i] = i
	blocks = 1
	next
}
blocks && $1 == "Node" {
	if ($4 == "CMA") {
		cma += $(col["CMA"]); mov += $(col["Movable"])
	} else if ("CMA" in col) {
		elsewhere += $(col["CMA"])
	}
}
END {
	print "BENCH pageblock_pages=" pages_per_block
	print "BENCH zone_cma_cma_blocks=" cma + 0
	print "BENCH zone_cma_movable_blocks=" mov + 0
	print "BENCH cma_blocks_elsewhere=" elsewhere + 0
	print "BENCH zone_cma_movable_free_kb=" free * page_kb
}' /proc/pagetypeinfo

for t in /bench/cma_*; do
	name=${t##*/}
	out=$("$t" 2>&1)
	rc=$?
	printf '%s\n' "$out" | sed "s|^|# $name: |"
	# kselftest exit codes: 0 passes, 4 skips (KSFT_SKIP).
	case $rc in 0) s=pass ;; 4) s=skip ;; *) s=fail ;; esac
	echo "KSFT $name $s rc=$rc"
done

echo "BENCH memtotal_kb=$(kb MemTotal)"
echo "BENCH cmatotal_kb=$(kb CmaTotal)"
echo "BENCH page_kb=$page_kb"
exit 0
