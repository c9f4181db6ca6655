#!/bin/sh
# extfrag WORKERS MIB PASSES: the anonymous churn of bench/churn.c, with
# the page allocator's fallbacks to another migratetype's free lists
# counted in the kernel by a histogram trigger on the
# kmem:mm_page_alloc_extfrag tracepoint (the kernel needs
# configs/tracing.config). Issue 17's defect 2: a movable allocation
# without ALLOC_NOFRAGMENT takes single pages out of unmovable and
# reclaimable pageblocks (a steal, which leaves the block mixed) before it
# tries the next zone. BENCH lines, counts of fallbacks:
#   movable_steals      movable allocations served from another type's
#                       pageblock that kept its type (a mixed block)
#   movable_claims      movable allocations that claimed the pageblock
#   kernel_steals       unmovable and reclaimable allocations served from
#                       another type's pageblock that kept its type
#   kernel_claims       unmovable and reclaimable allocations that claimed
#                       the pageblock
#   elapsed_s           the churn's time for its passes
[ $# -eq 3 ] || { echo "usage: extfrag WORKERS MIB PASSES" >&2; exit 2; }
t=/sys/kernel/tracing
mount -t tracefs nodev $t 2> /dev/null
[ -d $t/events ] || t=/sys/kernel/debug/tracing
ev=$t/events/kmem/mm_page_alloc_extfrag
[ -w $ev/trigger ] ||
	{ echo "extfrag: no $ev/trigger: the kernel needs CONFIG_HIST_TRIGGERS (configs/tracing.config)" >&2; exit 1; }
echo 'hist:keys=alloc_migratetype,change_ownership:vals=hitcount' > $ev/trigger ||
	{ echo "extfrag: the hist trigger was refused" >&2; exit 1; }

/bench/churn "$1" "$2" "$3"
rc=$?
cat $ev/hist > /tmp/extfrag.hist
echo '!hist:keys=alloc_migratetype,change_ownership:vals=hitcount' > $ev/trigger

# "{ alloc_migratetype: 1, change_ownership: 0 } hitcount: 12"; the
# migratetypes of include/linux/mmzone.h: 0 unmovable, 1 movable,
# 2 reclaimable.
awk '/^\{/ {
	line = $0
	gsub(/[{},:]/, " ", line)
	split(line, f, " ")
	for (i = 1; f[i] != ""; i++) v[f[i]] = f[i + 1]
	kind = v["alloc_migratetype"] == 1 ? "movable" : "kernel"
	what = v["change_ownership"] == 1 ? "claims" : "steals"
	n[kind "_" what] += v["hitcount"]
}
END {
	print "BENCH movable_steals=" n["movable_steals"] + 0
	print "BENCH movable_claims=" n["movable_claims"] + 0
	print "BENCH kernel_steals=" n["kernel_steals"] + 0
	print "BENCH kernel_claims=" n["kernel_claims"] + 0
}' /tmp/extfrag.hist
echo "# extfrag: $(grep -c '^{' /tmp/extfrag.hist) hist entries"
exit $rc
