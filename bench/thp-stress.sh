#!/bin/sh
# thp-stress SECONDS: mainline's transhuge-stress (tools/testing/selftests/mm)
# for SECONDS, at least one pass. Each pass faults every 2 MiB of a mapping
# as large as RAM as a THP and unmaps all of it but one base page, so memory
# fills with partly mapped THPs that only the deferred-split shrinker gives
# back, and the THPs of the rest of the pass need reclaim or compaction.
# BENCH line:
#   loop_s   seconds of the first pass over the mapping
# The harness adds the vmstat figures (compact_stall, allocstall, pgscan,
# pgskip, pgsteal).
[ $# -eq 1 ] || { echo "usage: thp-stress SECONDS" >&2; exit 2; }
out=$(/bench/transhuge-stress -d "$1" 2>&1)
rc=$?
printf '%s\n' "$out"
printf '%s\n' "$out" | awk '$3 == "s/loop," { print "BENCH loop_s=" $2; exit }'
exit $rc
