#!/bin/sh
# cma-threads SECONDS THREADS...: run the cma_stress kselftest (built from
# the series tree, so the same program runs on every kernel) once per thread
# count, each for SECONDS, and print its figures as BENCH lines:
#   t<N>_allocs_per_s  successful allocations per second
#   t<N>_failed        failed allocations
#   t<N>_retries       busy retries per allocation (alloc_busy_retries;
#                      absent on kernels without that counter)
[ $# -ge 2 ] || { echo "usage: cma-threads SECONDS THREADS..." >&2; exit 2; }
seconds=$1
shift
for t in "$@"; do
	# -C: without the crowded phase; the 6.12 backport's cma_stress has
	# no such phase and no -C.
	out=$(/bench/cma_stress -C -t "$t" -d "$seconds" 2>&1)
	case "$out" in
	*usage:*) out=$(/bench/cma_stress -t "$t" -d "$seconds" 2>&1) ;;
	esac
	printf '%s\n' "$out" | sed "s/^/# t$t: /"
	printf '%s\n' "$out" | /bench/stress-figures "t${t}_" | sed 's/^/BENCH /'
done
# Failed allocations are figures here, not an error of the workload.
exit 0
