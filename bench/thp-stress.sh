#!/bin/sh
# thp-stress SECONDS [defrag=MODE]: mainline's transhuge-stress
# (tools/testing/selftests/mm) for SECONDS, at least one pass. Each pass
# faults every 2 MiB of a mapping as large as RAM as a THP and unmaps all
# of it but one base page, so memory fills with partly mapped THPs that
# only the deferred-split shrinker gives back, and the THPs of the rest of
# the pass need reclaim or compaction.
# With "defrag=MODE", MODE is written to
# /sys/kernel/mm/transparent_hugepage/defrag first ("defer": a THP fault
# that finds no free 2 MiB block falls back to base pages at once and wakes
# kswapd, which wakes kcompactd, instead of compacting directly).
# BENCH lines:
#   loop_s             seconds of the first pass over the mapping
# and, on a kernel with harness/faults/reclaim-probe-7.3.patch, from
# /sys/kernel/debug/reclaim_probe:
#   direct_reclaims    direct reclaims (try_to_free_pages() calls)
#   direct_over_1s     those that lasted longer than a second
#   direct_max_s       the longest, in seconds (the probe's whole file,
#                      with its task, order and GFP mask, goes to the log)
#   direct_kernel      direct reclaims of kernel allocations (gfp_zone()
#                      at most ZONE_NORMAL)
#   direct_kernel_asleep  those that began while the kswapd of their first
#                      node slept
#   direct_kernel_max_s   the longest of them, in seconds
#   kswapd_sleeps      times kswapd went fully to sleep
#   kswapd_sleeps_kernel_low  those with no zone up to ZONE_NORMAL of its
#                      node at its low watermark for GFP_KERNEL
# The harness adds the vmstat figures (compact_stall, allocstall, pgscan,
# pgskip, pgsteal).
usage() {
	echo "usage: thp-stress SECONDS [defrag=MODE]" >&2
	exit 2
}
[ $# -ge 1 ] || usage
seconds=$1
shift
defrag=
for arg; do
	case "$arg" in
	defrag=?*) defrag=${arg#defrag=} ;;
	*) usage ;;
	esac
done
if [ -n "$defrag" ]; then
	echo "$defrag" > /sys/kernel/mm/transparent_hugepage/defrag ||
		{ echo "thp-stress: THP defrag mode '$defrag' refused" >&2; exit 2; }
fi

out=$(/bench/transhuge-stress -d "$seconds" 2>&1)
rc=$?
printf '%s\n' "$out"
printf '%s\n' "$out" | awk '$3 == "s/loop," { print "BENCH loop_s=" $2; exit }'
probe=/sys/kernel/debug/reclaim_probe
if [ -r $probe ]; then
	sed 's/^/reclaim_probe: /' $probe
	awk '$1 ~ /^direct(_kernel)?_max_ms$/ {
		sub(/_ms$/, "_s", $1); printf "BENCH %s=%.3f\n", $1, $2 / 1000; next }
	     $1 ~ /^(direct_reclaims|direct_over_1s|direct_kernel|direct_kernel_asleep|kswapd_sleeps|kswapd_sleeps_kernel_low)$/ {
		print "BENCH " $1 "=" $2 }' $probe
fi
exit $rc
