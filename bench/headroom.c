// SPDX-License-Identifier: GPL-2.0
/*
 * headroom: app launches on a small phone under a model of Android's
 * low-memory killer, then the foreground headroom.
 *
 * Why: a low-memory killer acts on free memory long before the kernel's
 * OOM killer does, and what it counts as free decides how early it kills.
 * The in-kernel lowmemorykiller of Android 4.4 compared, at each reclaim,
 *
 *	other_free = free pages - totalreserve_pages
 *	other_file = file pages - shmem pages
 *
 * with six "minfree" levels, one per oom_score_adj slot, and killed the
 * process with the highest oom_score_adj at or above the slot whose level
 * both fell below (the biggest one on a tie), one death at a time. Vendor
 * trees also left free CMA pages out of other_free when the reclaim was
 * for an allocation that cannot use them; since kswapd reclaims with
 * GFP_KERNEL, that is most of the time. That is the mechanism by which
 * keeping CMA memory free costs headroom (Laura Abbott, linux-mm,
 * 2014-05-23: 200 MB of foreground headroom became 160 MB on a 512 MB
 * device with 68 MB of CMA, and kills at oom_score_adj < 529 rose from 332
 * to 459 over 500 app launches).
 *
 * This program runs that killer in user space, polling /proc/meminfo every
 * 10 ms at the highest priority, with the minfree levels Android 4.4's
 * ProcessList computes for the guest's memory (its low-end and high-end
 * tables, interpolated between 350 and 700 MB of RAM). VIEW says what it
 * counts as free: "unmovable" leaves CmaFree out (the vendor killer),
 * "all" counts it (AOSP's).
 *
 * Workload: two services (oom_score_adj 117 and 235), then LAUNCHES app
 * launches over APPS apps of APP_MIB each, in a fixed pseudo-random order.
 * A launch makes the app foreground (0): a running app touches all its
 * memory again (swapped-out pages come back), a killed one starts afresh.
 * The previous foreground becomes the most recent cached app; cached apps
 * get 529 + 59 * (LRU rank), the most recent first, up to 1000, as Android
 * 4.4's hidden-app levels 9 to 15 do. Last, a new foreground app allocates
 * and touches 1 MiB at a time until the killer (or the OOM killer) kills
 * it: what it held by then is the headroom.
 *
 * Output: BENCH headroom_mib; over the launches, kills_high (oom_score_adj
 * < 529, the report's "higher priority" kills), kills_cached, oom_kills
 * (deaths the model did not cause), relaunches (launches of an app that had
 * been killed) and launches_s. The harness adds the /proc/vmstat deltas (allocstall_*,
 * pgscan_*, pgsteal_*, pswpout).
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define MAX_PROCS	64
#define CACHED_MIN_ADJ	529	/* Android 4.4 HIDDEN_APP_MIN_ADJ 9, scaled */
#define POLL_US		10000

/* Android 4.4 ProcessList: oom_score_adj slots and their minfree levels. */
static const int slot_adj[6] = { 0, 58, 117, 235, 529, 1000 };
static const long minfree_low_kib[6] = {
	12288, 18432, 24576, 36864, 43008, 49152 };
static const long minfree_high_kib[6] = {
	73728, 92160, 110592, 129024, 147456, 184320 };

struct proc {
	pid_t pid;			/* 0: not running */
	int adj;			/* oom_score_adj */
	long mib;			/* memory the process holds */
	volatile long request;		/* bumped by the parent: touch all */
	volatile long served;		/* set by the child when done */
	volatile long touched_mib;	/* the growing foreground's progress */
	int killed_by_lmk;
};

static struct proc *procs;		/* shared with the children */
static int nr_procs;
static long minfree_pages[6];
static long reserve_pages;
static long page_kib;
static int view_unmovable;
/* Kills and OOM kills during the launches, not while the last app grows. */
static long kills_high, kills_cached, oom_kills, relaunches;
static int growing;

static void set_adj(pid_t pid, int adj)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/oom_score_adj", (int)pid);
	f = fopen(path, "w");
	if (!f)
		return;		/* it died meanwhile */
	fprintf(f, "%d\n", adj);
	fclose(f);
}

/* Fill a page with half random, half zero bytes: zram compresses it ~2:1. */
static void dirty_page(char *p, long page, uint32_t *seed)
{
	long i;

	for (i = 0; i < page / 2; i += 4) {
		*seed = *seed * 1103515245 + 12345;
		memcpy(p + i, seed, 4);
	}
}

static void child_main(struct proc *me, long page, int grow)
{
	uint32_t seed = (uint32_t)getpid();
	long chunk = (1L << 20) / page, i, n;
	char *mem = NULL;
	long done = 0;

	if (grow) {
		/* The last foreground: 1 MiB at a time until it is killed. */
		for (;;) {
			char *p = mmap(NULL, 1L << 20, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p == MAP_FAILED)
				pause();
			for (i = 0; i < chunk; i++)
				dirty_page(p + i * page, page, &seed);
			me->touched_mib++;
		}
	}
	n = me->mib * chunk;
	mem = mmap(NULL, n * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		_exit(1);
	for (;;) {
		long want = me->request;

		if (want == done) {
			usleep(1000);
			continue;
		}
		for (i = 0; i < n; i++) {
			if (done == 0)
				dirty_page(mem + i * page, page, &seed);
			else
				mem[i * page + page - 1]++;
		}
		done = want;
		me->served = want;
	}
}

/* Start a process in slot @idx (a new slot if negative); its slot. */
static int spawn(int idx, int adj, long mib, int grow)
{
	struct proc *p;
	pid_t pid;

	if (idx < 0) {
		if (nr_procs == MAX_PROCS) {
			fprintf(stderr, "headroom: too many processes\n");
			exit(1);
		}
		idx = nr_procs++;
	}
	p = &procs[idx];
	memset((void *)p, 0, sizeof(*p));
	p->adj = adj;
	p->mib = mib;
	p->request = 1;
	pid = fork();
	if (pid < 0) {
		perror("headroom: fork");
		exit(1);
	}
	if (!pid) {
		set_adj(getpid(), adj);
		child_main(p, sysconf(_SC_PAGESIZE), grow);
	}
	p->pid = pid;
	set_adj(pid, adj);
	return idx;
}

/* Reap dead children; a death the model did not cause is the OOM killer's. */
static void reap(void)
{
	pid_t pid;
	int status, i;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		for (i = 0; i < nr_procs; i++)
			if (procs[i].pid == pid) {
				if (!procs[i].killed_by_lmk && !growing)
					oom_kills++;
				procs[i].pid = 0;
			}
}

/* One check of the killer model; true when it killed something. */
static int lmk_check(void)
{
	long free_kib = meminfo_kib("MemFree");
	long other_free, other_file;
	int min_adj = -1, i, victim = -1;

	if (view_unmovable) {
		/* One read: two could see different values. -1: no CMA. */
		long cma_free_kib = meminfo_kib("CmaFree");

		if (cma_free_kib > 0)
			free_kib -= cma_free_kib;
	}
	other_free = free_kib / page_kib - reserve_pages;
	other_file = (meminfo_kib("Cached") - meminfo_kib("Shmem")) / page_kib;
	for (i = 0; i < 6; i++)
		if (other_free < minfree_pages[i] && other_file < minfree_pages[i]) {
			min_adj = slot_adj[i];
			break;
		}
	if (min_adj < 0)
		return 0;
	for (i = 0; i < nr_procs; i++) {
		struct proc *p = &procs[i];
		long size = p->mib + p->touched_mib;

		if (!p->pid || p->adj < min_adj)
			continue;
		if (victim < 0 || p->adj > procs[victim].adj ||
		    (p->adj == procs[victim].adj &&
		     size > procs[victim].mib + procs[victim].touched_mib))
			victim = i;
	}
	if (victim < 0)
		return 0;
	procs[victim].killed_by_lmk = 1;
	if (!growing && procs[victim].adj < CACHED_MIN_ADJ)
		kills_high++;
	else if (!growing)
		kills_cached++;
	kill(procs[victim].pid, SIGKILL);
	/* One death at a time, as the kernel's killer waited for it. */
	waitpid(procs[victim].pid, NULL, 0);
	procs[victim].pid = 0;
	return 1;
}

/* Run the killer until process @i has served its request or died. */
static void wait_served(int i)
{
	while (procs[i].pid && procs[i].served != procs[i].request) {
		reap();
		if (!lmk_check())
			usleep(POLL_US);
	}
}

/* What total_reserve_pages() keeps of the zone it is in, and the sum. */
struct reserve_walk {
	long high;		/* the zone's high watermark */
	long managed;		/* and its managed pages */
	long total;		/* the sum so far */
};

static void reserve_line(const struct zoneinfo_pos *pos, const char *s, void *arg)
{
	struct reserve_walk *w = arg;
	long max = 0, v;
	char *p, *end;

	if (!strncmp(s, "high ", 5))
		w->high = atol(s + 5);
	else if (!strncmp(s, "managed ", 8))
		w->managed = atol(s + 8);
	if (strncmp(s, "protection: (", 13))
		return;
	for (p = (char *)s + 13;; p = end + strspn(end, ", ")) {
		v = strtol(p, &end, 10);
		if (end == p)
			break;
		if (v > max)
			max = v;
	}
	max += w->high;
	w->total += max > w->managed ? w->managed : max;
}

/* totalreserve_pages as the kernel sums it: per zone, high + max protection. */
static long total_reserve_pages(void)
{
	struct reserve_walk w = { 0, 0, 0 };

	if (zoneinfo_walk(reserve_line, &w)) {
		perror("headroom: /proc/zoneinfo");
		exit(1);
	}
	return w.total;
}

int main(int argc, char **argv)
{
	long apps, app_mib, launches, mem_mb, k, headroom;
	uint32_t seed = 1;
	int rank, fg = -1, lru[MAX_PROCS], nr_lru = 0, app_slot[MAX_PROCS], i, slot;
	double scale, start, launch_s;

	if (argc != 5 || (strcmp(argv[4], "unmovable") && strcmp(argv[4], "all"))) {
		fprintf(stderr, "usage: headroom APPS APP_MIB LAUNCHES unmovable|all\n");
		return 2;
	}
	apps = parse_positive("headroom", argv[1], "APPS");
	app_mib = parse_positive("headroom", argv[2], "APP_MIB");
	launches = parse_positive("headroom", argv[3], "LAUNCHES");
	view_unmovable = !strcmp(argv[4], "unmovable");
	if (apps > MAX_PROCS - 4) {
		fprintf(stderr, "headroom: APPS must be at most %d\n", MAX_PROCS - 4);
		return 2;
	}
	page_kib = sysconf(_SC_PAGESIZE) / 1024;
	procs = mmap(NULL, sizeof(*procs) * MAX_PROCS, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (procs == MAP_FAILED) {
		perror("headroom: mmap");
		return 1;
	}
	set_adj(getpid(), -1000);
	setpriority(PRIO_PROCESS, 0, -20);

	mem_mb = meminfo_kib("MemTotal") / 1024;
	scale = (mem_mb - 350) / 350.0;
	scale = scale < 0 ? 0 : scale > 1 ? 1 : scale;
	for (i = 0; i < 6; i++)
		minfree_pages[i] = (minfree_low_kib[i] + (minfree_high_kib[i] -
				    minfree_low_kib[i]) * scale) / page_kib;
	reserve_pages = total_reserve_pages();
	printf("BENCH minfree_fg_mib=%.1f\n", minfree_pages[0] * page_kib / 1024.0);
	printf("BENCH minfree_cached_mib=%.1f\n",
	       minfree_pages[4] * page_kib / 1024.0);
	printf("BENCH totalreserve_mib=%.1f\n", reserve_pages * page_kib / 1024.0);

	/* Two services that stay for the whole run. */
	wait_served(spawn(-1, 117, 16, 0));
	wait_served(spawn(-1, 235, 16, 0));
	for (i = 0; i < apps; i++)
		app_slot[i] = -1;
	start = now();
	for (k = 0; k < launches; k++) {
		int app;

		seed = seed * 1103515245 + 12345;
		app = (seed >> 16) % apps;
		slot = app_slot[app];
		/* The previous foreground becomes the most recent cached app. */
		if (fg >= 0 && fg != slot) {
			memmove(lru + 1, lru, nr_lru * sizeof(lru[0]));
			lru[0] = fg;
			nr_lru++;
		}
		for (i = 0; i < nr_lru; i++)
			if (lru[i] == slot) {
				memmove(lru + i, lru + i + 1,
					(nr_lru - i - 1) * sizeof(lru[0]));
				nr_lru--;
				break;
			}
		/* Killed apps leave the LRU; the others get their rank's adj. */
		for (i = 0, rank = 0; i < nr_lru; i++) {
			struct proc *p = &procs[lru[i]];
			int adj = CACHED_MIN_ADJ + 59 * rank;

			if (!p->pid)
				continue;
			lru[rank++] = lru[i];
			p->adj = adj > 1000 ? 1000 : adj;
			set_adj(p->pid, p->adj);
		}
		nr_lru = rank;
		if (slot >= 0 && procs[slot].pid) {
			procs[slot].adj = 0;
			set_adj(procs[slot].pid, 0);
			procs[slot].request++;
		} else {
			if (slot >= 0)
				relaunches++;
			slot = spawn(slot, 0, app_mib, 0);
			app_slot[app] = slot;
		}
		fg = slot;
		wait_served(slot);
	}
	launch_s = now() - start;

	/* The last foreground grows until it is killed. */
	if (fg >= 0) {
		procs[fg].adj = CACHED_MIN_ADJ;
		set_adj(procs[fg].pid, CACHED_MIN_ADJ);
	}
	growing = 1;
	slot = spawn(-1, 0, 0, 1);
	while (procs[slot].pid) {
		reap();
		if (!lmk_check())
			usleep(POLL_US);
		if (procs[slot].touched_mib > 4 * mem_mb) {
			fprintf(stderr, "headroom: the foreground outgrew memory\n");
			return 1;
		}
	}
	headroom = procs[slot].touched_mib;
	for (i = 0; i < nr_procs; i++)
		if (procs[i].pid)
			kill(procs[i].pid, SIGKILL);
	while (wait(NULL) > 0 || errno == EINTR)
		;
	printf("BENCH headroom_mib=%ld\n", headroom);
	printf("BENCH headroom_by_oom_killer=%d\n", !procs[slot].killed_by_lmk);
	printf("BENCH kills_high=%ld\n", kills_high);
	printf("BENCH kills_cached=%ld\n", kills_cached);
	printf("BENCH oom_kills=%ld\n", oom_kills);
	printf("BENCH relaunches=%ld\n", relaunches);
	printf("BENCH launches_s=%.1f\n", launch_s);
	return 0;
}
