#!/bin/sh
# thp-stress SECONDS [zones] [defrag=MODE]: mainline's transhuge-stress
# (tools/testing/selftests/mm) for SECONDS, at least one pass. Each pass
# faults every 2 MiB of a mapping as large as RAM as a THP and unmaps all
# of it but one base page, so memory fills with partly mapped THPs that
# only the deferred-split shrinker gives back, and the THPs of the rest of
# the pass need reclaim or compaction.
# With "zones", /proc/zoneinfo is also read every 0.5 s: one line per read,
#   ZONES t=.. room=0|1 NODE:ZONE=FREE/MIN ...
# for every zone with managed pages, where room=1 when some zone has at
# least 512 free pages above its min watermark, the least an order-9
# (THP) allocation needs to pass that zone's min check.
# With "defrag=MODE", MODE is written to
# /sys/kernel/mm/transparent_hugepage/defrag first ("defer": a THP fault
# that finds no free 2 MiB block falls back to base pages at once and wakes
# kswapd, which wakes kcompactd, instead of compacting directly).
# BENCH lines:
#   loop_s             seconds of the first pass over the mapping
#   no_order9_room_s   (with "zones") seconds during which no zone had that
#                      room, each read counting until the next one
# The harness adds the vmstat figures (compact_stall, allocstall, pgscan,
# pgskip, pgsteal).
usage() {
	echo "usage: thp-stress SECONDS [zones] [defrag=MODE]" >&2
	exit 2
}
[ $# -ge 1 ] || usage
seconds=$1
shift
zones=
defrag=
for arg; do
	case "$arg" in
	zones) zones=1 ;;
	defrag=?*) defrag=${arg#defrag=} ;;
	*) usage ;;
	esac
done
if [ -n "$defrag" ]; then
	echo "$defrag" > /sys/kernel/mm/transparent_hugepage/defrag ||
		{ echo "thp-stress: THP defrag mode '$defrag' refused" >&2; exit 2; }
fi

zones_sample() {
	start=$(cut -d' ' -f1 /proc/uptime)
	while :; do
		now=$(cut -d' ' -f1 /proc/uptime)
		awk -v t="$now" -v s="$start" '
			/^Node/ { z = $2 $4; sub(",", ":", z) }
			$1 == "pages" && $2 == "free" { free = $3 }
			$1 == "min" { min = $2 }
			$1 == "managed" && $2 > 0 {
				line = line " " z "=" free "/" min
				if (free - min >= 512)
					room = 1
			}
			END { printf "ZONES t=%.1f room=%d%s\n", t - s, room, line }' /proc/zoneinfo
		sleep 0.5
	done
}

if [ -n "$zones" ]; then
	zones_sample > /tmp/zones &
	sampler=$!
fi
out=$(/bench/transhuge-stress -d "$seconds" 2>&1)
rc=$?
printf '%s\n' "$out"
printf '%s\n' "$out" | awk '$3 == "s/loop," { print "BENCH loop_s=" $2; exit }'
if [ -n "$zones" ]; then
	kill $sampler
	cat /tmp/zones
	awk '{ t = substr($2, 3) + 0 }
	     NR > 1 && !room { short += t - last }
	     { room = ($3 == "room=1"); last = t }
	     END { printf "BENCH no_order9_room_s=%.1f\n", short }' /tmp/zones
fi
exit $rc
