#!/bin/sh
# cma-lib: helpers the guest-side workloads source (. /bench/cma-lib), for
# what BusyBox has no command for.

# kb NAME: the /proc/meminfo figure NAME, in KiB.
kb() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }

# cma_pages: the pages of every CMA area debugfs lists (7.3 lists only the
# areas it activated).
cma_pages() {
	n=0
	for a in /sys/kernel/debug/cma/*/count; do
		[ -r "$a" ] && n=$((n + $(cat "$a")))
	done
	echo $n
}

# cma_page_kb: the page size in KiB (BusyBox has no getconf), CmaTotal over
# cma_pages; fails, saying so, when no area has a page.
cma_page_kb() {
	n=$(cma_pages)
	[ "$n" -gt 0 ] || { echo "cma-lib: no CMA area has a page" >&2; return 1; }
	echo $(($(kb CmaTotal) / n))
}
