#!/bin/sh
# mm-selftests: the tree's own tools/testing/selftests/mm/run_vmtests.sh,
# one category at a time (-t CATEGORY, as mainline's ksft_<category>.sh
# wrappers run it), then what no category covers, run by hand: 1 GiB pages
# from hugetlb_cma (alone, under memory churn, and with the area mostly
# full of churning user pages) and from outside every area, and the memory
# hotplug test. run_vmtests.sh and the hotplug test are bash scripts: the
# initramfs builder adds a static bash for them (harness/build.py).
#
# What the host (harness/mmcompare.py) compares between kernels is
# run_vmtests.sh's own output, which goes to the console as it comes: per
# test a header, "# running ./PROGRAM ARGS" between two lines as long (of
# dashes, or of what BusyBox's tr makes of them), the test's output
# prefixed "# ", then one TAP line,
#   ok N NAME | ok N NAME # SKIP | not ok N NAME # exit=RC
# The hand-run tests print the same. After each category, one line:
#   MMCATEGORY <category> rc=<rc>
# (run_vmtests.sh's exit status: 0, 4 when a test skipped, 1 when one
# failed; 124: killed at its timeout, in the test whose header has no TAP
# line; 127: run_vmtests.sh or bash missing). HugeTLB pages are not
# reserved beforehand: 7.3-rc7's run_vmtests.sh leaves that to each test
# (hugepage_settings.c). Swap on zram (configs/mm-selftests.ini) is set up
# before the script runs.
. /bench/cma-lib
# Seconds per category: the 900 s of tools/testing/selftests/mm/settings,
# which run_kselftest.sh gives each ksft_<category>.sh. Per hand-run test
# with a timeout: 300 s.
per_category=${MM_CATEGORY_TIMEOUT:-900}
per_test=${MM_TEST_TIMEOUT:-300}
passed=0
failed=0
skipped=0
extra=0

# session SECONDS PROGRAM ARGS...: PROGRAM in a session of its own, its
# output where this function's goes, killed with every process it forked
# after SECONDS; sets rc (124, as timeout's, when killed).
# timeout(1) would kill PROGRAM only: cow's children then spin on a pipe
# whose other end has gone and keep the output open, and the run never
# ends. The watchdog's own output goes nowhere, so that its sleep, which
# outlives it, holds no pipe open.
session() {
	limit=$1
	shift
	rm -f /tmp/mmtest.timedout
	setsid "$@" &
	pid=$!
	(sleep "$limit"; touch /tmp/mmtest.timedout; kill -KILL -- "-$pid") > /dev/null 2>&1 &
	watchdog=$!
	wait "$pid"
	rc=$?
	kill "$watchdog" 2> /dev/null
	# Whatever it forked and left behind goes with it.
	kill -KILL -- "-$pid" 2> /dev/null
	[ -e /tmp/mmtest.timedout ] && rc=124
}

# vmsum PREFIX: the sum of the /proc/vmstat counters whose names start
# with PREFIX.
vmsum() { awk -v p="$1" 'index($1, p) == 1 { n += $2 } END { print n + 0 }' /proc/vmstat; }

# mark: the reclaim counters before a test or category, for counters()
# to print what it added (a test that fails under memory pressure says so).
mark() {
	scan0=$(vmsum pgscan_direct)
	stall0=$(vmsum allocstall)
	skip0=$(vmsum pgskip)
}

counters() {
	echo "# mm-selftests: $1: pgscan_direct +$(($(vmsum pgscan_direct) - scan0))," \
		"allocstall +$(($(vmsum allocstall) - stall0)), pgskip +$(($(vmsum pgskip) - skip0))," \
		"MemFree $(kb MemFree) kB, CmaFree $(kb CmaFree) kB"
}

# category [-t SECONDS] NAME: run_vmtests.sh -t NAME, killed with all its
# tests after SECONDS (per_category when not given). Its output also goes
# to a file, whose TAP lines add to the counts: "# [SKIP] ./PROGRAM" is
# run_vmtests.sh's skip of a test it did not start (khugepaged all:file
# without XFS); a category killed at its timeout adds the test it was in
# to the failures.
category() {
	limit=$per_category
	[ "$1" = -t ] && { limit=$2; shift 2; }
	mark
	# shellcheck disable=SC2016 # expanded by that sh
	session "$limit" sh -c 'set -o pipefail
		./run_vmtests.sh -t "$1" 2>&1 | tee /tmp/mmcat.out' sh "$1"
	counters "category $1"
	echo "MMCATEGORY $1 rc=$rc"
	# shellcheck disable=SC2046 # three numbers
	set -- $(awk '/^ok .* # SKIP/ { s++; next } /^ok / { p++; next }
		/^not ok / { f++; next } /^# \[SKIP\] / { s++ }
		END { print p + 0, f + 0, s + 0 }' /tmp/mmcat.out)
	[ "$rc" = 124 ] && set -- "$1" $(($2 + 1)) "$3"
	passed=$((passed + $1))
	failed=$((failed + $2))
	skipped=$((skipped + $3))
}

# header NAME: run_vmtests.sh's header of a test (prefixed "# ").
header() {
	sep=$(echo "running $1" | tr -c '\n' -)
	printf '# %s\n# running %s\n# %s\n' "$sep" "$1" "$sep"
}

# report NAME RC OUTPUT: a hand-run test's output and its TAP line, as
# run_vmtests.sh prints them (kselftest: 0 passes, 4 skips, anything else
# fails; 124 is a timeout).
report() {
	printf '%s\n' "$3" | sed 's/^/# /'
	counters "$1"
	extra=$((extra + 1))
	case $2 in
	0) echo "ok $extra $1"; passed=$((passed + 1)) ;;
	4) echo "ok $extra $1 # SKIP"; skipped=$((skipped + 1)) ;;
	*) echo "not ok $extra $1 # exit=$2"; failed=$((failed + 1)) ;;
	esac
}

# run NAME PROGRAM ARGS...: a hand-run program, in a session of its own,
# killed with its children after per_test seconds. run_fn NAME FUNCTION
# ARGS...: a function of this script (no timeout).
run() {
	name=$1
	shift
	header "$name"
	mark
	session "$per_test" "$@" > /tmp/mmtest.out 2>&1
	report "$name" "$rc" "$(cat /tmp/mmtest.out)"
}

run_fn() {
	name=$1
	shift
	header "$name"
	mark
	out=$("$@" 2>&1)
	report "$name" $? "$out"
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

cd /bench || exit 1
category migration
category compaction
# gup_longterm (category gup_test) and cow run their cases on every HugeTLB
# page size of which they get two free pages (hugetlb_setup()), and
# whether a kernel still finds two free 1 GiB ranges after the tests before
# depends on where those put their pages: taken here, the two kernels run
# the same cases. Their 1 GiB cases take cow over 300 s under TCG, and
# gup_longterm close to it (284 s on 7.3-rc7; the series once ran out of
# 1,200 s).
run_fn gigantic-pool gigantic_pool 2
category -t 1800 gup_test
category -t 1500 cow
gigantic_pool 0 | sed 's/^/# /'
category hugetlb
category ksm
# Five khugepaged runs, split_huge_page_test, transhuge-stress and
# folio_split_race_test: the hand-run list before gave each of its four
# THP tests 300 s.
category -t 1800 thp
# The hugetlb_cma area is on node 1 (configs/mm-selftests.ini). Bound
# there, 2 x 768 MiB of churn is less than the node holds outside its
# areas (about 1.9 GiB) but the kernels put some of it in the areas; with
# 2 x 1 GiB, 7.3-rc7 warned of stalled allocations once the gigabyte
# was gone.
run_fn hugetlb_cma-gigantic gigantic 1
run_fn hugetlb_cma-gigantic-churn gigantic_under_churn 512
run_fn hugetlb_cma-gigantic-full gigantic_under_churn 768 1
run_fn hugetlb-gigantic-outside gigantic 0 outside
run mem-on-off-test ./mem-on-off-test.sh
echo "BENCH passed=$passed"
echo "BENCH failed=$failed"
echo "BENCH skipped=$skipped"
exit 0
