#!/bin/sh
# reclaim-durations.sh LOG...: one line per direct reclaim in console logs
# of kernels built with harness/faults/direct-reclaim-log-7.3.patch and
# direct-reclaim-zones-log-7.3.patch: the benchmark and the boot (from the
# log's path, build/results/bench-NAME/KERNEL-runN.log), the task, the
# order, when it started (the guest's seconds since boot, at its first
# "enter" line), how long it lasted (to its "direct-reclaim:" line), the
# last priority, the pages scanned at that priority (a THP counts as 512)
# and the pages reclaimed. A reclaim that has entered but has no
# "direct-reclaim:" line in the log gets a line that says so, with the
# time from its start to the last kernel line before the end of the
# kernel log the guest dumps after the workload (===HARNESS-DMESG-END===):
# a lower bound of its length, 0 when the kernel logged nothing after it.
[ $# -ge 1 ] || { echo "usage: reclaim-durations.sh LOG..." >&2; exit 2; }
for f in "$@"; do
	[ -r "$f" ] || { echo "reclaim-durations.sh: cannot read $f" >&2; exit 2; }
	bench=$(basename "$(dirname "$f")")
	sed 's/^\[ *\([0-9.]*\)\] vmscan: /\1 /' "$f" |
	awk -v bench="${bench#bench-}" -v boot="$(basename "$f" .log)" '
		/^===HARNESS-DMESG-END===/ { dumped = 1 }
		!dumped && match($0, /^[[] *[0-9]+[.][0-9]+[]]/) {
			last = substr($0, 2, RLENGTH - 2) + 0
		}
		!dumped && $1 ~ /^[0-9]+[.][0-9]+$/ { last = $1 }
		$2 == "direct-reclaim-zone:" && $4 == "enter" && !($3 in start) {
			start[$3] = $1
			order[$3] = $6
		}
		$2 == "direct-reclaim:" && $3 == "comm" {
			printf "%-20s %-20s %-16s order %s from %5.1f s, %5.1f s long, priority %2s, scanned %7s, reclaimed %s\n",
			       bench, boot, $4, $6, start[$4], $1 - start[$4], $NF, $(NF - 4), $(NF - 2)
			delete start[$4]
		}
		END {
			for (task in start)
				printf "%-20s %-20s %-16s order %s from %5.1f s, >%4.1f s long, no end in the log\n",
				       bench, boot, task, order[task], start[task], last - start[task]
		}'
done
