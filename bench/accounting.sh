#!/bin/sh
# accounting: what the kernel sized from its memory at boot, read once,
# right after boot (moving the CMA areas into a zone of their own must not
# retune these). BENCH lines, all in kB:
#   min_free_kbytes   /proc/sys/vm/min_free_kbytes: sized from
#                     nr_free_buffer_pages(), as the TCP and UDP memory
#                     limits are
#   reserve_kb        totalreserve_pages, summed from /proc/zoneinfo as
#                     calculate_totalreserve_pages() sums it: per zone its
#                     largest lowmem reserve plus its high watermark, at
#                     most its managed pages
#   lowmem_reserve_kb the largest lowmem reserve of each zone, summed
#   high_wmark_kb     the high watermarks, summed
#   min_wmark_kb      the min watermarks, summed
#   mem_available_kb  MemAvailable (free pages less totalreserve_pages,
#                     plus reclaimable caches)
#   mem_free_kb       MemFree
#   dirty_thresh_kb   nr_dirty_threshold of /proc/vmstat, in kB
#   cma_total_kb      CmaTotal
[ $# -eq 0 ] || { echo "usage: accounting" >&2; exit 2; }
[ -r /proc/zoneinfo ] || { echo "accounting: no /proc/zoneinfo" >&2; exit 1; }

. /bench/cma-lib
page_kb=$(cma_page_kb) || { echo "accounting: boot with cma=<size>" >&2; exit 1; }

echo "BENCH min_free_kbytes=$(cat /proc/sys/vm/min_free_kbytes)"

# A zone's block starts with "Node N, zone NAME"; "min", "high" and
# "managed" are its own lines, and "protection: (a, b, ...)" lists its
# lowmem_reserve[] by zone index.
awk -v page_kb="$page_kb" '
function flush() {
	if (!inzone)
		return
	r = maxres + high
	if (r > managed)
		r = managed
	reserve += r; lowmem += maxres; highs += high; mins += min
}
/^Node / { flush(); inzone = 1; maxres = high = min = managed = 0; next }
inzone && $1 == "min" { min = $2 }
inzone && $1 == "high" { high = $2 }
inzone && $1 == "managed" { managed = $2 }
inzone && $1 == "protection:" {
	line = $0
	gsub(/[^0-9,]/, "", line)
	n = split(line, v, ",")
	for (i = 1; i <= n; i++)
		if (v[i] + 0 > maxres)
			maxres = v[i] + 0
}
END {
	flush()
	print "BENCH reserve_kb=" reserve * page_kb
	print "BENCH lowmem_reserve_kb=" lowmem * page_kb
	print "BENCH high_wmark_kb=" highs * page_kb
	print "BENCH min_wmark_kb=" mins * page_kb
}' /proc/zoneinfo

echo "BENCH mem_available_kb=$(kb MemAvailable)"
echo "BENCH mem_free_kb=$(kb MemFree)"
echo "BENCH dirty_thresh_kb=$(($(awk '$1 == "nr_dirty_threshold" { print $2 }' /proc/vmstat) * page_kb))"
echo "BENCH cma_total_kb=$(kb CmaTotal)"
