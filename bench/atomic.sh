#!/bin/sh
# atomic WORKERS MIB PASSES HZ BATCH RING ORDER: unmovable atomic
# allocations under a storm of movable ones (the third problem of the 2016
# ZONE_CMA cover letter: free pages that are all CMA cannot serve an atomic
# request).
#
# The atomic side is harness/faults/atomic-probe-7.3.patch, a stand-in for
# a network driver's receive ring: an hrtimer in softirq context allocates
# BATCH pages of ORDER with GFP_ATOMIC HZ times a second, holds the newest
# RING of them and frees the oldest. The movable side is bench/churn.c:
# WORKERS processes hold MIB MiB of anonymous memory each and replace it
# PASSES times. Every 0.1 s the largest zone an atomic request may use (not
# CMA, not Movable) is compared with its low watermark, below which kswapd
# should be restoring it. Its free memory is counted as the watermark check
# of a request without ALLOC_CMA counts it: free pages less free CMA pages
# (without ZONE_CMA the area's MIGRATE_CMA pages sit in that zone, free
# but out of an atomic request's reach). BENCH lines:
#   atomic_attempts       atomic allocations tried
#   atomic_failed         of which failed
#   below_low_s           time that zone spent below its low watermark
#   longest_below_low_s   the longest stretch of it: how long kswapd took
#                         at worst to bring the zone back
#   min_free_kb           the lowest free memory seen in that zone, CMA
#                         pages left out
#   elapsed_s             the churn's time for its passes
[ $# -eq 7 ] || { echo "usage: atomic WORKERS MIB PASSES HZ BATCH RING ORDER" >&2; exit 2; }
probe=/sys/kernel/debug/atomic_probe
[ -w $probe/run ] ||
	{ echo "atomic: no $probe: the kernel needs harness/faults/atomic-probe-7.3.patch" >&2; exit 1; }

# One sample: "<uptime> <below: 0|1> <free kB without CMA> <zone>" for the
# largest ordinary zone (by managed pages) of /proc/zoneinfo.
page_kb=$(awk '$1 == "KernelPageSize:" { print $2; exit }' /proc/self/smaps)
sample() {
	awk -v up="$(cut -d' ' -f1 /proc/uptime)" -v p="$page_kb" '
	function done_zone() {
		if (zone != "" && zone != "CMA" && zone != "Movable" &&
		    zone != "Device" && managed > best) {
			best = managed; bfree = free - free_cma; blow = low
			bzone = zone
		}
	}
	/^Node [0-9]*, zone/ {
		done_zone(); zone = $4; free = free_cma = low = managed = 0
	}
	$1 == "pages" && $2 == "free" { free = $3 }
	$1 == "nr_free_cma" { free_cma = $2 }
	$1 == "low" { low = $2 }
	$1 == "managed" { managed = $2 }
	END { done_zone(); print up, (bfree < blow), bfree * p, bzone }' /proc/zoneinfo
}

echo "$4 $5 $6 $7" > $probe/run || { echo "atomic: the probe refused '$4 $5 $6 $7'" >&2; exit 2; }
/bench/churn "$1" "$2" "$3" > /tmp/churn.out 2>&1 &
churn=$!
: > /tmp/atomic.samples
while kill -0 $churn 2> /dev/null; do
	sample >> /tmp/atomic.samples
	sleep 0.1
done
wait $churn
rc=$?
echo 0 > $probe/run
cat /tmp/churn.out
echo "# atomic: $(tr '\n' ' ' < $probe/stats)"
awk '$1 == "attempts" { print "BENCH atomic_attempts=" $2 }
     $1 == "failures" { print "BENCH atomic_failed=" $2 }' $probe/stats
# What was free at the probe's first failure (probes that record it).
awk '{ v[$1] = $2 }
     END { if (v["totalram"] > 0)
		printf "# atomic first failure: %.2f%% of RAM free (buddy %d, per-cpu %d of %d pages), CMA %d pages (%.0f%% of the buddy free)\n",
		       100 * (v["first_failure_free"] + v["first_failure_pcp"]) / v["totalram"],
		       v["first_failure_free"], v["first_failure_pcp"], v["totalram"],
		       v["first_failure_cma"],
		       v["first_failure_free"] ? 100 * v["first_failure_cma"] / v["first_failure_free"] : 0
	   # The zones GFP_ATOMIC may use, against the floor an order-0
	   # GFP_ATOMIC allocation may go down to: 3/8 of min (no boost).
	   floor = v["kernel_min"] * 3 / 8
	   if (floor > 0)
		printf "# atomic first failure, kernel zones: buddy %d (no CMA), per-cpu %d, min %d, GFP_ATOMIC floor %d pages: buddy %s it, buddy + per-cpu %s it\n",
		       v["kernel_free"], v["kernel_pcp"], v["kernel_min"], floor,
		       ((v["kernel_free"] > floor) ? "above" : "at or below"),
		       ((v["kernel_free"] + v["kernel_pcp"] > floor) ? "above" : "at or below") }' $probe/stats
# The time between two samples counts as below the watermark when the
# first of them was.
awk 'NR > 1 && was_below { d = $1 - prev; below += d; stretch += d
			   if (stretch > longest) longest = stretch }
     !$2 { stretch = 0 }
     NR == 1 || $3 < min { min = $3 }
     { prev = $1; was_below = $2; zone = $4 }
     END { print "# atomic: zone " zone ", " NR " samples"
	   print "BENCH below_low_s=" below + 0
	   print "BENCH longest_below_low_s=" longest + 0
	   print "BENCH min_free_kb=" min + 0 }' /tmp/atomic.samples
exit $rc
