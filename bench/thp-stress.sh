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
exit $rc
