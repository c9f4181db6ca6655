#!/bin/sh
# mm-selftests: a fixed list of the mm kselftests of the tree, plus the
# memory hotplug test and 1 GiB pages from hugetlb_cma (alone, under memory
# churn, and with the area mostly full of churning user pages) and from
# outside every area, run one after another, each
# with the arguments tools/testing/selftests/mm/run_vmtests.sh gives it.
# For each, its output prefixed "# <name>: " and one line the host
# compares between kernels:
#   MMTEST <name> pass|fail|skip rc=<exit status>
# (kselftest: 0 passes, 4 skips, anything else fails; 124 is timeout's).
# 256 MiB of 2 MiB HugeTLB pages are reserved first, as run_vmtests.sh does;
# swap on zram (configs/mm-selftests.ini) is set up before the script runs.
per_test=${MM_TEST_TIMEOUT:-300}
passed=0
failed=0
skipped=0

# run NAME PROGRAM ARGS...: PROGRAM in a session of its own, killed with
# every process it forked after per_test seconds (rc 124, as timeout's).
# timeout(1) would kill PROGRAM only: cow's children then spin on a pipe
# whose other end has gone and keep the output open, and the run never
# ends. run_fn NAME FUNCTION ARGS...: a function of this script (no
# timeout).
run() {
	name=$1
	shift
	rm -f /tmp/mmtest.timedout
	setsid "$@" > /tmp/mmtest.out 2>&1 &
	pid=$!
	(sleep "$per_test"; touch /tmp/mmtest.timedout; kill -KILL -- "-$pid") 2> /dev/null &
	watchdog=$!
	wait "$pid"
	rc=$?
	kill "$watchdog" 2> /dev/null
	# Whatever it forked and left behind goes with it.
	kill -KILL -- "-$pid" 2> /dev/null
	[ -e /tmp/mmtest.timedout ] && rc=124
	report "$name" "$rc" "$(cat /tmp/mmtest.out)"
}

run_fn() {
	name=$1
	shift
	out=$("$@" 2>&1)
	report "$name" $? "$out"
}

report() {
	name=$1
	rc=$2
	printf '%s\n' "$3" | sed "s|^|# $name: |"
	case $rc in
	0) s=pass; passed=$((passed + 1)) ;;
	4) s=skip; skipped=$((skipped + 1)) ;;
	*) s=fail; failed=$((failed + 1)) ;;
	esac
	echo "MMTEST $name $s rc=$rc"
}

# gigantic N: N 1 GiB pages (x86_64: needs hugetlb_cma= on the command
# line and 1 GiB pages in the CPU), where the hugetlb_cma area holds one:
# allocate them, check they came, free them. With N > 1 the others come
# from outside every area (alloc_contig_pages() over the zones, which must
# skip the MIGRATE_CMA pageblocks of the other areas): CmaFree may drop by
# the first only.
gigantic() {
	n=$1
	f=/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages
	[ -w $f ] || { echo "no 1 GiB HugeTLB pages"; return 4; }
	cma0=$(awk '$1 == "CmaFree:" { print $2 }' /proc/meminfo)
	echo "$n" > $f
	got=$(cat $f)
	cma1=$(awk '$1 == "CmaFree:" { print $2 }' /proc/meminfo)
	echo 0 > $f
	echo "allocated $got of $n, CmaFree $cma0 -> $cma1 kB, $(cat $f) left after freeing"
	[ "$got" = "$n" ] && [ "$(cat $f)" = 0 ] &&
		{ [ "$n" = 1 ] || [ $((cma0 - cma1)) -le 1048576 ]; }
}

# gigantic_under_churn MIB [NODE]: gigantic 1 while two processes keep MIB
# MiB of anonymous memory each, bound to NODE when given, and replace it
# without end (bench/churn.c): the allocation has to migrate their pages
# out of the area while more keep coming. Bound to the hugetlb_cma area's
# node with more than the area, they are meant to fill it; the CmaFree it
# prints before the allocation says how far they did.
gigantic_under_churn() {
	/bench/churn 2 "$@" 1000000 > /dev/null 2>&1 &
	churn=$!
	sleep 30
	awk '$1 == "CmaTotal:" || $1 == "CmaFree:" || $1 == "MemFree:"' /proc/meminfo
	gigantic 1
	rc=$?
	killall churn 2> /dev/null
	sleep 1
	killall -9 churn 2> /dev/null
	wait "$churn"
	return $rc
}

echo 128 > /proc/sys/vm/nr_hugepages
echo "# nr_hugepages: $(cat /proc/sys/vm/nr_hugepages)"
cd /bench || exit 1
run migration ./migration
run compaction_test ./compaction_test
run gup_test-u ./gup_test -u -n 1
run gup_test-a ./gup_test -a -n 1
run gup_test-ct ./gup_test -ct -F 0x1 0 19 0x1000
run gup_longterm ./gup_longterm
run cow ./cow
run hugetlb-mmap ./hugetlb-mmap
run hugetlb-shm ./hugetlb-shm
run hugetlb-mremap ./hugetlb-mremap
run hugetlb-madvise ./hugetlb-madvise
run ksm_functional_tests ./ksm_functional_tests
run transhuge-stress ./transhuge-stress -d 20
run khugepaged ./khugepaged
run khugepaged-s2 ./khugepaged -s 2
run split_huge_page_test ./split_huge_page_test
echo 0 > /proc/sys/vm/nr_hugepages
run_fn hugetlb_cma-gigantic gigantic 1
run_fn hugetlb_cma-gigantic-churn gigantic_under_churn 512
run_fn hugetlb_cma-gigantic-full gigantic_under_churn 768 1
run_fn hugetlb-gigantic-outside gigantic 2
# mem-on-off-test.sh is bash; busybox sh runs it once $UID is set.
run mem-on-off-test env UID=0 sh ./mem-on-off-test.sh
echo "BENCH passed=$passed"
echo "BENCH failed=$failed"
echo "BENCH skipped=$skipped"
exit 0
