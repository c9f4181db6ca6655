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
. /bench/cma-lib
per_test=${MM_TEST_TIMEOUT:-300}
passed=0
failed=0
skipped=0

# run [-t SECONDS] NAME PROGRAM ARGS...: PROGRAM in a session of its own,
# killed with every process it forked after SECONDS (per_test when not
# given; rc 124, as timeout's).
# timeout(1) would kill PROGRAM only: cow's children then spin on a pipe
# whose other end has gone and keep the output open, and the run never
# ends. run_fn NAME FUNCTION ARGS...: a function of this script (no
# timeout).
run() {
	limit=$per_test
	[ "$1" = -t ] && { limit=$2; shift 2; }
	name=$1
	shift
	mark
	rm -f /tmp/mmtest.timedout
	setsid "$@" > /tmp/mmtest.out 2>&1 &
	pid=$!
	(sleep "$limit"; touch /tmp/mmtest.timedout; kill -KILL -- "-$pid") 2> /dev/null &
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
	mark
	out=$("$@" 2>&1)
	report "$name" $? "$out"
}

# vmsum PREFIX: the sum of the /proc/vmstat counters whose names start
# with PREFIX.
vmsum() { awk -v p="$1" 'index($1, p) == 1 { n += $2 } END { print n + 0 }' /proc/vmstat; }

# mark: the reclaim counters before a test, for report() to print what
# the test added (a test that fails under memory pressure says so).
mark() {
	scan0=$(vmsum pgscan_direct)
	stall0=$(vmsum allocstall)
	skip0=$(vmsum pgskip)
}

report() {
	name=$1
	rc=$2
	printf '%s\n' "$3" | sed "s|^|# $name: |"
	echo "# $name: pgscan_direct +$(($(vmsum pgscan_direct) - scan0))," \
		"allocstall +$(($(vmsum allocstall) - stall0)), pgskip +$(($(vmsum pgskip) - skip0))," \
		"MemFree $(kb MemFree) kB, CmaFree $(kb CmaFree) kB"
	case $rc in
	0) s=pass; passed=$((passed + 1)) ;;
	4) s=skip; skipped=$((skipped + 1)) ;;
	*) s=fail; failed=$((failed + 1)) ;;
	esac
	echo "MMTEST $name $s rc=$rc"
}

# cma_counter AREA NAME: the sysfs counter NAME of CMA area AREA, 0 when
# there is no such area; AREA * sums every area's. cma_allocated AREA: the
# pages it has handed out since boot.
cma_counter() {
	# shellcheck disable=SC2086 # AREA may be a glob
	cat /sys/kernel/mm/cma/$1/"$2" 2> /dev/null | awk '{ n += $1 } END { print n + 0 }'
}
cma_allocated() { cma_counter "$1" alloc_pages_success; }

# Shell functions share their variables, so each helper here names its
# sysfs file differently. (gigantic_pool once set f, the name gigantic keeps
# its node's file in: gigantic then wrote its count to the global pool,
# which hands pages out over the nodes in turn, node 0's page first.)

# gigantic_pool N: sets the pool of 1 GiB HugeTLB pages to N pages and
# says how many it holds, fails when not N.
gigantic_pool() {
	pool=/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages
	[ -w $pool ] || { echo "no 1 GiB HugeTLB pages"; return 4; }
	echo "$1" > $pool
	echo "1 GiB HugeTLB pages: $(cat $pool) of $1"
	[ "$(cat $pool)" = "$1" ]
}

# gigantic NODE [outside]: one 1 GiB HugeTLB page on NODE (the node's own
# nr_hugepages: a pool allocation does not leave its node; x86_64 needs 1
# GiB pages in the CPU), freed again. Without `outside`, NODE holds a
# hugetlb_cma area, which must supply the page: its alloc_pages_success
# grows by a gigabyte. With it, NODE has no hugetlb_cma area and no CMA
# area may hand out a page: alloc_contig_pages() finds the gigabyte in
# the node's zones, passing over the areas' pageblocks (7.3-rc7) or
# ZONE_CMA (the series).
gigantic() {
	node=$1
	nodefile=/sys/devices/system/node/node$node/hugepages/hugepages-1048576kB/nr_hugepages
	[ -w "$nodefile" ] || { echo "no 1 GiB HugeTLB pages on node $node"; return 4; }
	area=hugetlb$node
	want=$((1048576 / $(cma_page_kb)))
	if [ "$2" = outside ]; then
		[ -d "/sys/kernel/mm/cma/$area" ] &&
			{ echo "node $node has a hugetlb_cma area: not an outside case"; return 4; }
		area='*'
		want=0
	fi
	gigantic_pool 0 > /dev/null
	used0=$(cma_allocated "$area")
	fail0=$(cma_counter "$area" alloc_pages_fail)
	cma0=$(kb CmaFree)
	echo 1 > "$nodefile"
	got=$(cat "$nodefile")
	used1=$(cma_allocated "$area")
	fail1=$(cma_counter "$area" alloc_pages_fail)
	cma1=$(kb CmaFree)
	echo 0 > "$nodefile"
	left=$(cat "$nodefile")
	echo "allocated $got of 1 on node $node, $((used1 - used0)) pages of it from" \
		"CMA area $area ($((fail1 - fail0)) pages failed there)," \
		"CmaFree $cma0 -> $cma1 kB, $left left after freeing"
	[ "$got" = 1 ] && [ "$left" = 0 ] && [ $((used1 - used0)) = "$want" ]
}

# gigantic_under_churn MIB [NODE]: gigantic 1 while two processes keep MIB
# MiB of anonymous memory each, bound to NODE when given, and replace it
# without end (bench/churn.c): the allocation has to migrate their pages
# out of the area while more keep coming. Bound to the hugetlb_cma area's
# node, more of their pages land in the area; the CmaFree it prints
# before the allocation says how many.
gigantic_under_churn() {
	/bench/churn 2 "$1" 1000000 ${2:+"$2"} > /dev/null 2> /tmp/churn.err &
	churn=$!
	sleep 30
	awk '$1 == "CmaTotal:" || $1 == "CmaFree:" || $1 == "MemFree:"' /proc/meminfo
	gigantic 1
	rc=$?
	kill -0 "$churn" 2> /dev/null || { echo "churn did not run:"; cat /tmp/churn.err; rc=1; }
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
# gup_longterm and cow run their cases on every HugeTLB page size of
# which they find two free pages, and whether a kernel still finds two
# free 1 GiB ranges after the tests before depends on where those put
# their pages: taken here, the two kernels run the same cases. Their 1
# GiB cases take cow over 300 s under TCG, and gup_longterm close to it
# (284 s on 7.3-rc7; over 300 s on the series once, beside other work).
run_fn gigantic-pool gigantic_pool 2
run -t 1200 gup_longterm ./gup_longterm
run -t 1200 cow ./cow
gigantic_pool 0 | sed 's/^/# /'
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
# The hugetlb_cma area is on node 1 (configs/mm-selftests.ini). Bound
# there, 2 x 768 MiB of churn is less than the node holds outside its
# areas (about 1.9 GiB) but the kernels put some of it in the areas; with
# 2 x 1 GiB, 7.3-rc7 warned of stalled allocations once the gigabyte
# was gone.
run_fn hugetlb_cma-gigantic gigantic 1
run_fn hugetlb_cma-gigantic-churn gigantic_under_churn 512
run_fn hugetlb_cma-gigantic-full gigantic_under_churn 768 1
run_fn hugetlb-gigantic-outside gigantic 0 outside
# mem-on-off-test.sh is bash; busybox sh runs it once $UID is set.
run mem-on-off-test env UID=0 sh ./mem-on-off-test.sh
echo "BENCH passed=$passed"
echo "BENCH failed=$failed"
echo "BENCH skipped=$skipped"
exit 0
