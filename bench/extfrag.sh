#!/bin/sh
# extfrag WORKERS MIB PASSES [FILES KEEP]: the anonymous churn of
# bench/churn.c, with the page allocator's fallbacks to another
# migratetype's free lists counted in the kernel by a histogram trigger on
# the kmem:mm_page_alloc_extfrag tracepoint (the kernel needs
# configs/tracing.config). Issue 17's defect 2: a movable allocation
# without ALLOC_NOFRAGMENT takes pages out of partly used unmovable and
# reclaimable pageblocks (leaving them mixed) before it tries the next
# zone.
#
# With FILES, the kernel's own pageblocks are first left partly used: FILES
# empty files are created in a tmpfs (inodes and dentries: kernel
# allocations, which prefer Normal) and all but every KEEP-th deleted, so
# that the slab pages still holding a kept object pin their pageblocks
# while the rest of those blocks is free.
#
# BENCH lines, counts of fallbacks during the churn:
#   movable_fragmenting movable allocations served from a free page smaller
#                       than a pageblock of another type's block: the block
#                       ends up holding both types
#   movable_steals      of all movable fallbacks, those that left the block
#                       its type
#   movable_claims      those that took the block over
#   kernel_fragmenting  unmovable and reclaimable allocations served from a
#                       smaller-than-pageblock page of another type's block
#   kept_files          files left in the tmpfs
#   elapsed_s           the churn's time for its passes
[ $# -eq 3 ] || [ $# -eq 5 ] ||
	{ echo "usage: extfrag WORKERS MIB PASSES [FILES KEEP]" >&2; exit 2; }
t=/sys/kernel/tracing
mount -t tracefs nodev $t 2> /dev/null
[ -d $t/events ] || t=/sys/kernel/debug/tracing
ev=$t/events/kmem/mm_page_alloc_extfrag
[ -w $ev/trigger ] ||
	{ echo "extfrag: no $ev/trigger: the kernel needs CONFIG_HIST_TRIGGERS (configs/tracing.config)" >&2; exit 1; }
pb_pages=$(awk '/^Pages per block:/ { print $4 }' /proc/pagetypeinfo)
[ -n "$pb_pages" ] || { echo "extfrag: no pageblock size in /proc/pagetypeinfo" >&2; exit 1; }

kept=0
if [ $# -eq 5 ]; then
	mkdir -p /tmp/extfrag && cd /tmp/extfrag || exit 1
	seq 1 "$4" | xargs touch || { echo "extfrag: cannot create $4 files" >&2; exit 1; }
	seq 1 "$4" | awk -v k="$5" '$1 % k' | xargs rm -f
	kept=$(find . -type f | wc -l)
	cd / || exit 1
fi
echo "BENCH kept_files=$kept"

trigger='hist:keys=alloc_migratetype,fallback_order,change_ownership:vals=hitcount'
echo "$trigger" > $ev/trigger || { echo "extfrag: the hist trigger was refused" >&2; exit 1; }
/bench/churn "$1" "$2" "$3"
rc=$?
cat $ev/hist > /tmp/extfrag.hist
echo "!$trigger" > $ev/trigger

# "{ alloc_migratetype: 1, fallback_order: 3, change_ownership: 0 }
# hitcount: 12"; the migratetypes of include/linux/mmzone.h: 0 unmovable,
# 1 movable, 2 reclaimable. A fallback page smaller than a pageblock
# leaves its block shared.
awk -v pb_pages="$pb_pages" '/^\{/ {
	line = $0
	gsub(/[{},:]/, " ", line)
	split(line, f, " ")
	for (i = 1; f[i] != ""; i += 2) v[f[i]] = f[i + 1]
	kind = v["alloc_migratetype"] == 1 ? "movable" : "kernel"
	# BusyBox awk has no "^": the page size of the order by doubling.
	for (j = 0, pages = 1; j < v["fallback_order"]; j++)
		pages *= 2
	if (pages < pb_pages)
		n[kind "_fragmenting"] += v["hitcount"]
	n[kind (v["change_ownership"] == 1 ? "_claims" : "_steals")] += v["hitcount"]
}
END {
	print "BENCH movable_fragmenting=" n["movable_fragmenting"] + 0
	print "BENCH movable_steals=" n["movable_steals"] + 0
	print "BENCH movable_claims=" n["movable_claims"] + 0
	print "BENCH kernel_fragmenting=" n["kernel_fragmenting"] + 0
}' /tmp/extfrag.hist
echo "# extfrag: $(grep -c '^{' /tmp/extfrag.hist) hist entries"
exit $rc
