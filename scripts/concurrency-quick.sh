#!/bin/sh
# A quick side-by-side throughput check of concurrent cma_alloc(), before
# `make bench B=cma-concurrency` has run on a base: pristine 7.3-rc7 and the
# series, both built with the x86_64 variant's config (THP, 128 KiB
# pageblocks; the series with CONFIG_CMA_CONCURRENT_ALLOC=y), booted in turn
# RUNS times each (default 3) with cma=256M, running bench/cma-threads.sh
# (cma_stress -C at each thread count, SECONDS each) from the x86_64
# variant's kselftests. Prints allocations per second per run, then the
# medians and the series/base ratio per thread count.
#
#   concurrency-quick.sh [RUNS] [SECONDS] [THREADS...]   (3 6 1 4 16 32)
#
# Needs `make run V=x86_64` (the x86_64 variant); builds the pristine base kernel
# once (scripts/x86-guest-lib.sh).
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
runs=${1:-3}
seconds=${2:-6}
[ $# -ge 2 ] && shift 2 || set --
[ $# -gt 0 ] || set -- 1 4 16 32
out=$top/build/results/concurrency-quick
series_kernel=$top/build/out/x86_64/arch/x86/boot/bzImage
initrd=$top/build/out/x86_64/initramfs.cpio.gz
die() { echo "concurrency-quick: $*" >&2; exit 1; }
. scripts/x86-guest-lib.sh
case "$runs$seconds" in *[!0-9]*) die "RUNS and SECONDS are numbers" ;; esac
[ -r "$series_kernel" ] && [ -r "$initrd" ] || die "no x86_64 build: make run V=x86_64"
base_kernel=$(pristine_base_kernel) || die "cannot build the pristine base kernel"

# The variant's initramfs plus the benchmark driver and workload.
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && gzip -dc "$initrd" | cpio -idm 2>/dev/null)
mkdir -p "$tmp/bench"
cp harness/guest/bench "$tmp/bench/bench"
cp bench/cma-threads.sh "$tmp/bench/cma-threads"
cp "$tmp/kselftest/cma/cma_stress" "$tmp/bench/cma_stress"
chmod +x "$tmp/bench/bench" "$tmp/bench/cma-threads"
(cd "$tmp" && find . | cpio -o -H newc 2>/dev/null | gzip) > "$out/initramfs.cpio.gz"

workload=cma-threads,$seconds,$(echo "$@" | tr ' ' ',')
: > "$out/figures"
i=1
while [ "$i" -le "$runs" ]; do
	for k in base series; do
		eval kernel=\$${k}_kernel
		log=$out/$k-$i.log
		x86_guest "$kernel" "$out/initramfs.cpio.gz" "$log" \
			"harness.mode=bench harness.bench=$workload"
		grep -a -o 'BENCH t[0-9]*_[a-z_]*=[0-9.]*' "$log" |
			sed "s/^BENCH /$k $i /" >> "$out/figures"
		grep -a -q 'WARNING: \|BUG: ' "$log" && echo "concurrency-quick: splat in $log" >&2
	done
	i=$((i + 1))
done
awk '
	{ split($3, kv, "="); key = kv[1]; v[$1, key, ++n[$1, key]] = kv[2]; keys[key] = 1
	  printf "%-6s run %s %s\n", $1, $2, $3 }
	function median(k, key,   m, i, j, t, a) {
		m = n[k, key]; for (i = 1; i <= m; i++) a[i] = v[k, key, i]
		for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++)
			if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
	}
	END {
		for (key in keys) if (key ~ /allocs_per_s|failed/) {
			b = median("base", key); s = median("series", key)
			printf "%-20s base %10.1f  series %10.1f", key, b, s
			if (key ~ /allocs_per_s/ && b > 0) printf "  ratio %.2f", s / b
			printf "\n"
		}
	}' "$out/figures" | sort
