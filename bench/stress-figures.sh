#!/bin/sh
# stress-figures [PREFIX]: the result of one cma_stress kselftest run, read
# from its output on stdin, one figure per line (nothing for a run that
# printed no result, and no retries on kernels without that counter):
#   <PREFIX>allocs_per_s=<successful allocations per second>
#   <PREFIX>failed=<failed allocations>
#   <PREFIX>retries=<busy retries per allocation>
# Shared by cma-threads and soak, which print these as their own figures.
awk -v p="${1:-}" '
/ allocations \([0-9.]*\/s\), [0-9]* pages, [0-9]* failed/ {
	s = $0
	sub(/.* allocations \(/, "", s)
	sub(/\/s\).*/, "", s)
	rate = s
	failed = $(NF - 1)
}
/ busy retries \([0-9.]* per allocation\)/ {
	s = $0
	sub(/.* busy retries \(/, "", s)
	sub(/ per allocation.*/, "", s)
	retries = s
}
END {
	if (rate == "")
		exit
	print p "allocs_per_s=" rate
	print p "failed=" failed
	if (retries != "")
		print p "retries=" retries
}'
