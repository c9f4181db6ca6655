#!/bin/sh
# pagecache WORKERS MIB PASSES READS: the utilization problem of the 2016
# ZONE_CMA cover letter, with page cache. bench/churn.c's anonymous churn (WORKERS processes replace MIB MiB
# each PASSES times) runs beside a reader that reads every file of the
# benchmark's disk (a read-only ext2 file system that the guest's bench
# runner mounts on /data, see `disk` in bench/benchmarks.ini) READS times
# over. Together they want more memory than the guest has, so reclaim
# chooses between the clean file pages, which it drops and the reader
# reads again, and anonymous pages, which go to swap. Both kinds are
# movable: the page allocator may place them in CMA (in ZONE_CMA with the
# series). BENCH lines:
#   elapsed_s   the churn's time for its passes (as in `utilization-1g`)
#   read_s      the reader's time for its READS passes
#   read_mib    what the reader read
[ $# -eq 4 ] || { echo "usage: pagecache WORKERS MIB PASSES READS" >&2; exit 2; }
case "$4" in
''|*[!0-9]*|0) echo "pagecache: READS must be a positive number, not '$4'" >&2; exit 2 ;;
esac
# The harness's files (f000, f001, ...), not lost+found.
set -- "$1" "$2" "$3" "$4" /data/f[0-9]*
[ -f "$5" ] || { echo "pagecache: no files f000, f001, ... in /data: the benchmark needs 'disk =' and the virtio-blk fragment" >&2; exit 1; }

now() { cut -d' ' -f1 /proc/uptime; }

/bench/churn "$1" "$2" "$3" > /tmp/churn.out 2>&1 &
churn=$!
reads=$4
shift 4
start=$(now)
bytes=0
i=0
read_rc=0
while [ $i -lt "$reads" ]; do
	for f in "$@"; do
		cat "$f" > /dev/null || read_rc=1
		bytes=$((bytes + $(stat -c %s "$f")))
	done
	i=$((i + 1))
done
end=$(now)
wait $churn
rc=$?
cat /tmp/churn.out
echo "BENCH read_s=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.2f", e - s }')"
echo "BENCH read_mib=$((bytes / 1048576))"
[ $read_rc -eq 0 ] || { echo "pagecache: a read of the disk failed" >&2; exit 1; }
exit $rc
