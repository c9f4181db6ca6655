#!/bin/sh
# soak SECONDS THREADS CHURN_MIB [FAIL_PERCENT]: concurrent cma_alloc() for
# SECONDS under movable memory churn, then check that nothing was lost.
#
# With FAIL_PERCENT, fail_page_alloc and failslab fail that share of the
# page and slab allocations of the cma_stress threads (task-filter: only
# tasks with make-it-fail set, here each worker thread once it runs, not
# the process that fills memory): the migration targets, the isolation and
# the allocator's own bookkeeping fail at random, and every failure must be
# returned to the caller with nothing held.
#
# Two churn workers (bench/churn.c) keep CHURN_MIB MiB of anonymous memory
# each and replace it without end, so the CMA areas keep filling with
# movable pages that every allocation has to migrate away. Meanwhile the
# cma_stress kselftest runs back to back in INTERVAL-second rounds on the
# largest area, THREADS threads allocating and freeing through debugfs;
# each round reports its allocations per second and failures:
#   SOAK t=<s> allocs_per_s=<rate> failed=<n>
# After the last round the churn stops, and the state is compared with the
# state before the soak (STATE lines, then BENCH lines for the host):
#   failed              failed allocations over all rounds
#   allocs_per_s        mean of the rounds' rates
#   cmafree_drift_kb    CmaFree after minus before
#   memfree_drift_kb    MemFree after minus before
#   pcp_drift_kb        free pages on the per-cpu lists, after minus before
#   used_pages          the areas' debugfs `used`, after minus before
#   unbalanced_pages    sysfs alloc_pages_success minus release_pages_success,
#                       change over the soak, summed over the areas
#   rounds              cma_stress rounds run
#   noresult            rounds that printed no result line
#   leftover_pages      pages debugfs still held after a round, given back
#                       then: after the last round, and with faults after
#                       every round, summed (cma_stress frees everything it
#                       took; with faults, a free whose open() failed is not
#                       retried, and the next rounds would find the area full)
#   injected            failures fail_page_alloc and failslab injected
[ $# -eq 3 ] || [ $# -eq 4 ] ||
	{ echo "usage: soak SECONDS THREADS CHURN_MIB [FAIL_PERCENT]" >&2; exit 2; }
seconds=$1
threads=$2
churn_mib=$3
fail_percent=${4:-}
interval=30
fi_dir=/sys/kernel/debug
# Failures each of fail_page_alloc and failslab may inject: what is left
# of it afterwards counts those injected.
fi_budget=1000000

# arm_faults PERCENT: fail_page_alloc and failslab for make-it-fail tasks,
# every order and gfp, silently (verbose 0: a failure prints no stack,
# which would read as a splat). disarm_faults: probability 0, the count
# of what was injected kept.
arm_faults() {
	for f in fail_page_alloc failslab; do
		d=$fi_dir/$f
		[ -d $d ] || { echo "soak: no $d (CONFIG_FAULT_INJECTION_DEBUG_FS)" >&2; exit 1; }
		echo 0 > $d/verbose
		echo Y > $d/task-filter
		echo 1 > $d/interval
		echo $fi_budget > $d/times
		echo 0 > $d/space
		echo N > $d/ignore-gfp-wait
		echo "$1" > $d/probability
	done
	echo N > $fi_dir/fail_page_alloc/ignore-gfp-highmem
	echo 0 > $fi_dir/fail_page_alloc/min-order
}

disarm_faults() {
	echo 0 > $fi_dir/fail_page_alloc/probability
	echo 0 > $fi_dir/failslab/probability
}

# stress: one cma_stress round; with faults, its worker threads are marked
# make-it-fail as soon as they exist (polled every 0.2 s, so their first
# allocations may go unfailed). Not the main thread, which reads the
# counters and prints the round's result, nor the memory filler, another
# process.
stress() {
	/bench/cma_stress -C -t "$threads" -d "$interval" > /tmp/stress.out 2>&1 &
	pid=$!
	if [ -n "$fail_percent" ]; then
		while kill -0 $pid 2>/dev/null &&
			[ "$(ls /proc/$pid/task 2>/dev/null | wc -l)" -le "$threads" ]; do
			sleep 0.2
		done
		for t in /proc/$pid/task/*; do
			[ "${t##*/}" = "$pid" ] && continue
			echo 1 > "$t/make-it-fail" 2>/dev/null
		done
	fi
	wait $pid
	cat /tmp/stress.out
}

# free_leftovers: give back what debugfs still holds in every area (a
# cma_stress free whose open() failed under failslab is not retried); print
# the pages given back.
free_leftovers() {
	n=0
	for a in /sys/kernel/debug/cma/*; do
		u=$(cat "$a/used")
		[ "$u" -gt 0 ] || continue
		echo "$u" > "$a/free" && n=$((n + u))
	done
	echo $n
}

. /bench/cma-lib

# Sums over the areas: used pages (debugfs) and allocated minus released
# pages (sysfs).
used() {
	n=0
	for a in /sys/kernel/debug/cma/*/used; do n=$((n + $(cat "$a"))); done
	echo $n
}
held() {
	n=0
	for a in /sys/kernel/mm/cma/*; do
		n=$((n + $(cat "$a/alloc_pages_success") - $(cat "$a/release_pages_success")))
	done
	echo $n
}

# Free pages parked on the per-cpu lists, KiB: MemFree and CmaFree leave
# them out (the zones' "count:" lines of /proc/zoneinfo, every CPU).
pcp_kb() {
	awk -v p="$page_kb" '$1 == "count:" { n += $2 } END { print n * p }' /proc/zoneinfo
}

state() {
	echo "STATE $1 MemFree=$(kb MemFree) CmaFree=$(kb CmaFree) pcp=$(pcp_kb) used=$(used) held=$(held)"
}

settle() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
	sleep 2
}

for d in /sys/kernel/debug/cma /sys/kernel/mm/cma; do
	[ -n "$(ls $d 2>/dev/null)" ] ||
		{ echo "soak: no CMA area in $d (CMA_DEBUGFS, CMA_SYSFS, an area)" >&2; exit 1; }
done
page_kb=$(cma_page_kb) || exit 1
settle
state before
mem0=$(kb MemFree)
pcp0=$(pcp_kb)
cma0=$(kb CmaFree)
used0=$(used)
held0=$(held)

/bench/churn 2 "$churn_mib" 1000000 >/dev/null 2>&1 &
churn=$!
[ -z "$fail_percent" ] || arm_faults "$fail_percent"

start=$(cut -d. -f1 /proc/uptime)
failed=0
rounds=0
noresult=0
rates=0
leftover=0
while [ $(($(cut -d. -f1 /proc/uptime) - start)) -lt "$seconds" ]; do
	out=$(stress)
	t=$(($(cut -d. -f1 /proc/uptime) - start))
	fig=$(printf '%s\n' "$out" | /bench/stress-figures)
	rate=$(printf '%s\n' "$fig" | sed -n 's/^allocs_per_s=//p')
	fails=$(printf '%s\n' "$fig" | sed -n 's/^failed=//p')
	if [ -z "$rate" ] || [ -z "$fails" ]; then
		printf '%s\n' "$out" | sed 's/^/# cma_stress: /'
		echo "SOAK t=$t round without a result"
		noresult=$((noresult + 1))
		fails=0
		rate=0
	fi
	printf '%s\n' "$out" | grep -E '^not ok|failures, first' | sed 's/^/# cma_stress: /'
	echo "SOAK t=$t allocs_per_s=$rate failed=$fails"
	failed=$((failed + fails))
	rounds=$((rounds + 1))
	rates=$(awk -v a="$rates" -v b="$rate" 'BEGIN { print a + b }')
	# free_leftovers' own writes are not failed: this shell is no
	# make-it-fail task.
	[ -z "$fail_percent" ] || leftover=$((leftover + $(free_leftovers)))
done

[ -z "$fail_percent" ] || disarm_faults
leftover=$((leftover + $(free_leftovers)))
# churn's workers are its children: stop them all, then churn itself.
killall churn 2>/dev/null
sleep 1
killall -9 churn 2>/dev/null
wait "$churn" 2>/dev/null
settle
state after
echo "BENCH failed=$failed"
echo "BENCH rounds=$rounds"
[ -z "$fail_percent" ] ||
	echo "BENCH injected=$((2 * fi_budget - $(cat $fi_dir/fail_page_alloc/times) - $(cat $fi_dir/failslab/times)))"
echo "BENCH allocs_per_s=$(awk -v a="$rates" -v n="$rounds" 'BEGIN { printf "%.1f", n ? a / n : 0 }')"
echo "BENCH cmafree_drift_kb=$(($(kb CmaFree) - cma0))"
echo "BENCH memfree_drift_kb=$(($(kb MemFree) - mem0))"
echo "BENCH pcp_drift_kb=$(($(pcp_kb) - pcp0))"
echo "BENCH leftover_pages=$leftover"
echo "BENCH noresult=$noresult"
echo "BENCH used_pages=$(($(used) - used0))"
echo "BENCH unbalanced_pages=$(($(held) - held0))"
exit 0
