#!/bin/sh
# vmstat-per-boot.sh COUNTER[,COUNTER...] LOG...: one line per benchmark
# console log (build/results/bench-NAME/KERNEL-runN.log): the benchmark,
# the boot, and each named /proc/vmstat counter's change over the workload
# as the log's "VMSTAT name value" lines give it (0 when absent: the
# harness prints only counters that moved).
[ $# -ge 2 ] || { echo "usage: vmstat-per-boot.sh COUNTER[,COUNTER...] LOG..." >&2; exit 2; }
counters=$1
shift
printf '%-22s %-24s' benchmark boot
echo "$counters" | tr ',' '\n' | while read -r c; do printf ' %s' "$c"; done
echo
for f in "$@"; do
	[ -r "$f" ] || { echo "vmstat-per-boot.sh: cannot read $f" >&2; exit 2; }
	bench=$(basename "$(dirname "$f")")
	printf '%-22s %-24s' "${bench#bench-}" "$(basename "$f" .log)"
	awk -v want="$counters" '
		BEGIN { n = split(want, name, ",") }
		$1 == "VMSTAT" { v[$2] = $3 }
		END { for (i = 1; i <= n; i++) printf " %" length(name[i]) "d", v[name[i]] + 0; print "" }' "$f"
done
