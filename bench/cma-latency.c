// SPDX-License-Identifier: GPL-2.0
/*
 * cma_alloc() latency from an area that user pages fill first.
 *
 *   cma-latency [-r DIR] [-n SAMPLES] ROUNDS MIB...
 *
 * Fill the guest with anonymous 4K pages until FILL_MARGIN_MIB plus three
 * quarters of the area is left free (room for the pages the held
 * allocations evacuate), so that user pages take as much of the CMA area
 * as the kernel's placement policy gives them. Then, for each MIB and ROUNDS times, allocate MIB MiB
 * from the first CMA area through debugfs, holding every allocation so
 * that the next one meets pages no earlier one cleared (ROUNDS of them,
 * fewer if they would take more than three quarters of the area), and
 * time each write. Then free them and refill: drop every page they moved
 * and touch it again, so the freed area goes back to user pages as far as
 * the kernel places them there, and the memory in use stays the same.
 *
 * Around each allocation the program reads the pfn of every page it holds
 * (/proc/self/pagemap, root only): a page whose pfn changed was migrated
 * by that allocation. A page that moves a second time without being
 * refilled in between was evacuated into a place that a later allocation
 * had to evacuate again.
 *
 * A size whose ROUNDS held allocations give fewer than SAMPLES timings (-n,
 * default 30) repeats the hold, free and refill cycle until it has SAMPLES,
 * so that large sizes, of which the area holds only a few at a time, are
 * timed as often as small ones; a size that cannot get them fails the run.
 * By nearest rank, p99 is the slowest allocation until there are more than
 * 100. The clocksource the timings come from is printed before and after
 * them (# clocksource), so that a switch in between shows.
 *
 * With -r DIR, the program reads every regular file in DIR once after the
 * fill, so that clean page cache takes what the fill left free, in the
 * area as far as the kernel places page cache there. The reads are not
 * timed. Page cache that an allocation meets is dropped or migrated, which
 * the pfns of the fill do not show; /proc/vmstat's pgmigrate_success and
 * workingset_refault_file (harness/console.py) do.
 *
 * Prints, for each MIB (as m<MIB>_...):
 *   samples             allocations timed
 *   median_ms, p90_ms, p99_ms, max_ms
 *                       allocation time, nearest rank over the allocations
 *   migrated_per_page   pages migrated / pages allocated
 *   ms_per_1k_migrated  allocation time per 1000 pages migrated
 *   moved_again         pages that moved more than once
 *   failed              allocations the kernel refused
 * then moved_again and failed over all sizes, and cma_used_pct, how much
 * of the area user pages held after the fill; with -r also read_mib and
 * cma_used_read_pct, the same after the reads.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"

#define CMA_DEBUGFS	"/sys/kernel/debug/cma"
#define FILL_MARGIN_MIB	64
#define PM_PRESENT	(1ULL << 63)
#define PM_PFN_MASK	((1ULL << 55) - 1)
#define PM_BATCH	4096

static long page_size;

/* meminfo_kib() of @key; exit 1 if it is missing. */
static unsigned long meminfo_kb(const char *key)
{
	long v = meminfo_kib(key);

	if (v < 0) {
		fprintf(stderr, "cma-latency: no %s in /proc/meminfo\n", key);
		exit(1);
	}
	return v;
}

/* Write the decimal @value to @path; 0 or -errno. */
static int write_value(const char *path, unsigned long value)
{
	char buf[32];
	int fd, len, ret = 0;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	len = snprintf(buf, sizeof(buf), "%lu", value);
	if (write(fd, buf, len) != len)
		ret = -errno;
	close(fd);
	return ret;
}

/* @path (PATH_MAX) = the debugfs directory of the first CMA area. */
static int first_area(char *path, size_t len)
{
	DIR *d = opendir(CMA_DEBUGFS);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, len, "%s/%s", CMA_DEBUGFS, e->d_name);
		closedir(d);
		return 0;
	}
	if (d)
		closedir(d);
	return -1;
}

/* pfns[i] = the pfn of page i of [@addr, @addr + @pages pages), 0 if none. */
static void read_pfns(int pagemap, char *addr, unsigned long pages,
		      uint64_t *pfns)
{
	unsigned long done, chunk, i;
	uint64_t e[PM_BATCH];
	off_t off;

	for (done = 0; done < pages; done += chunk) {
		chunk = pages - done < PM_BATCH ? pages - done : PM_BATCH;
		off = ((uintptr_t)addr / page_size + done) * sizeof(e[0]);
		if (pread(pagemap, e, chunk * sizeof(e[0]), off) !=
		    (ssize_t)(chunk * sizeof(e[0]))) {
			perror("cma-latency: pagemap");
			exit(1);
		}
		for (i = 0; i < chunk; i++)
			pfns[done + i] = e[i] & PM_PRESENT ? e[i] & PM_PFN_MASK : 0;
	}
}

static void touch(char *addr, unsigned long pages)
{
	unsigned long i;

	for (i = 0; i < pages; i++)
		addr[i * page_size] = 1;
}

/* Read every regular file in @dir once, into the page cache; MiB read. */
static unsigned long read_dir(const char *dir)
{
	static char buf[1 << 16];
	unsigned long bytes = 0;
	char path[PATH_MAX];
	struct dirent *e;
	struct stat st;
	ssize_t n;
	DIR *d;
	int fd;

	d = opendir(dir);
	if (!d) {
		perror("cma-latency: -r");
		exit(1);
	}
	while ((e = readdir(d))) {
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			perror(path);
			exit(1);
		}
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			bytes += n;
		if (n < 0) {
			perror(path);
			exit(1);
		}
		close(fd);
	}
	closedir(d);
	return bytes >> 20;
}

/* Percent of the @total_mib area that is not free. */
static double used_pct(unsigned long total_mib)
{
	unsigned long free_mib = meminfo_kb("CmaFree") / 1024;

	return total_mib ? 100.0 * (total_mib - free_mib) / total_mib : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The nearest-rank @pct percentile of the @n sorted values @v. */
static double percentile(const double *v, int n, int pct)
{
	int rank = (pct * n + 99) / 100;

	return v[rank > 0 ? rank - 1 : 0];
}

/* "# clocksource: NAME", the clock behind now()'s timings. */
static void print_clocksource(void)
{
	char name[64] = "unknown";
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");

	if (f) {
		if (fscanf(f, "%63s", name) != 1)
			strcpy(name, "unknown");
		fclose(f);
	}
	printf("# clocksource: %s\n", name);
}

int main(int argc, char **argv)
{
	unsigned long fill, avail, cma_total, cma_free, i, largest = 0;
	unsigned long all_again = 0, all_failed = 0, margin;
	uint64_t *before, *after;
	unsigned char *moves;
	char area[512], alloc_path[600], free_path[600];
	int pagemap, a, r, rounds, opt, first, samples = 30;
	const char *files = NULL;
	double *ms;
	char *mem;

	while ((opt = getopt(argc, argv, "r:n:")) != -1) {
		if (opt == 'r')
			files = optarg;
		else if (opt == 'n')
			samples = parse_positive("cma-latency", optarg, "SAMPLES");
		else
			goto usage;
	}
	first = optind + 1;
	if (argc - optind < 2) {
usage:
		fprintf(stderr, "usage: cma-latency [-r DIR] [-n SAMPLES] ROUNDS MIB...\n");
		return 2;
	}
	if (files) {
		struct stat st;

		if (stat(files, &st) || !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "cma-latency: -r %s is not a directory\n", files);
			return 2;
		}
	}
	rounds = parse_positive("cma-latency", argv[optind], "ROUNDS");
	for (a = first; a < argc; a++) {
		unsigned long mib = parse_positive("cma-latency", argv[a], "MIB");

		largest = mib > largest ? mib : largest;
	}
	page_size = sysconf(_SC_PAGESIZE);
	if (first_area(area, sizeof(area))) {
		fprintf(stderr, "cma-latency: no CMA area in %s (CONFIG_CMA_DEBUGFS, cma=)\n",
			CMA_DEBUGFS);
		return 1;
	}
	snprintf(alloc_path, sizeof(alloc_path), "%s/alloc", area);
	snprintf(free_path, sizeof(free_path), "%s/free", area);
	pagemap = open("/proc/self/pagemap", O_RDONLY);
	if (pagemap < 0) {
		perror("cma-latency: /proc/self/pagemap");
		return 1;
	}

	/* MemFree, not MemAvailable: the initramfs is page cache that stays. */
	avail = meminfo_kb("MemFree") / 1024;
	cma_total = meminfo_kb("CmaTotal") / 1024;
	margin = FILL_MARGIN_MIB + cma_total * 3 / 4;
	if (avail < 2 * margin || largest > cma_total * 3 / 4) {
		fprintf(stderr, "cma-latency: %lu MiB free and a %lu MiB area: too little for %lu MiB allocations\n",
			avail, cma_total, largest);
		return 1;
	}
	fill = (avail - margin) * (1024 * 1024 / page_size);
	mem = mmap(NULL, fill * page_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	before = calloc(fill, sizeof(*before));
	after = calloc(fill, sizeof(*after));
	moves = calloc(fill, 1);
	/* At most one cycle of ROUNDS past SAMPLES. */
	ms = calloc(samples + rounds, sizeof(*ms));
	if (mem == MAP_FAILED || !before || !after || !moves || !ms) {
		perror("cma-latency: memory");
		return 1;
	}
#ifdef MADV_NOHUGEPAGE
	madvise(mem, fill * page_size, MADV_NOHUGEPAGE);
#endif
	touch(mem, fill);
	print_clocksource();
	cma_free = meminfo_kb("CmaFree") / 1024;
	printf("# area %s, %lu MiB filled, CMA %lu MiB, %lu MiB of it free\n",
	       area, fill * page_size >> 20, cma_total, cma_free);
	printf("BENCH cma_used_pct=%.1f\n", used_pct(cma_total));
	if (files) {
		printf("BENCH read_mib=%lu\n", read_dir(files));
		printf("BENCH cma_used_read_pct=%.1f\n", used_pct(cma_total));
	}

	for (a = first; a < argc; a++) {
		unsigned long mib = strtoul(argv[a], NULL, 10);
		unsigned long count = mib * (1024 * 1024 / page_size);
		unsigned long migrated = 0, again = 0, allocated = 0, n;
		double total_ms = 0;
		int failed = 0, done = 0;

		/* Hold up to three quarters of the area, so each allocation meets new pages. */
		n = cma_total * 3 / 4 / mib;
		n = n < (unsigned long)rounds ? n : (unsigned long)rounds;
		if (!n || count * n > fill) {
			fprintf(stderr, "cma-latency: %lu MiB does not fit the %lu MiB area or the fill\n",
				mib, cma_total);
			return 1;
		}
		while (done < samples) {
			int held = 0, cycle_failed = 0;

			for (r = 0; r < (int)n; r++) {
				double t0, t1;
				int ret;

				read_pfns(pagemap, mem, fill, before);
				t0 = now();
				ret = write_value(alloc_path, count);
				t1 = now();
				if (ret) {
					failed++;
					cycle_failed++;
					printf("# %lu MiB, allocation %d: %s\n", mib, r, strerror(-ret));
					continue;
				}
				held++;
				ms[done++] = (t1 - t0) * 1000;
				total_ms += (t1 - t0) * 1000;
				allocated += count;
				read_pfns(pagemap, mem, fill, after);
				for (i = 0; i < fill; i++) {
					if (before[i] == after[i])
						continue;
					migrated++;
					if (moves[i] < 255 && ++moves[i] == 2)
						again++;
				}
			}
			for (r = 0; r < held; r++) {
				if (write_value(free_path, count)) {
					fprintf(stderr, "cma-latency: freeing %lu pages failed\n", count);
					return 1;
				}
			}
			/*
			 * Refill: replace every page these allocations moved out
			 * of the area by a new one, where the kernel now places
			 * user pages. A new mapping over the page frees it
			 * (tinyconfig kernels have no madvise()); it merges back
			 * into its neighbours.
			 */
			for (i = 0; i < fill; i++) {
				if (!moves[i])
					continue;
				if (mmap(mem + i * page_size, page_size,
					 PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
					 -1, 0) == MAP_FAILED) {
					perror("cma-latency: refill");
					return 1;
				}
				touch(mem + i * page_size, 1);
				moves[i] = 0;
			}
			/* A cycle that timed nothing would repeat for ever. */
			if (!held) {
				fprintf(stderr, "cma-latency: %lu MiB: %d allocations in a row failed, %d of %d timed\n",
					mib, cycle_failed, done, samples);
				return 1;
			}
		}
		printf("# %lu MiB: %d allocations timed, at most %lu held, %lu pages migrated, CmaFree after refill %lu MiB\n",
		       mib, done, n, migrated, meminfo_kb("CmaFree") / 1024);
		qsort(ms, done, sizeof(*ms), cmp_double);
		printf("BENCH m%lu_samples=%d\n", mib, done);
		if (done) {
			printf("BENCH m%lu_median_ms=%.2f\n", mib, percentile(ms, done, 50));
			printf("BENCH m%lu_p90_ms=%.2f\n", mib, percentile(ms, done, 90));
			printf("BENCH m%lu_p99_ms=%.2f\n", mib, percentile(ms, done, 99));
			printf("BENCH m%lu_max_ms=%.2f\n", mib, ms[done - 1]);
			printf("BENCH m%lu_migrated_per_page=%.3f\n", mib,
			       (double)migrated / allocated);
		}
		if (migrated)
			printf("BENCH m%lu_ms_per_1k_migrated=%.2f\n", mib,
			       total_ms * 1000 / migrated);
		printf("BENCH m%lu_moved_again=%lu\n", mib, again);
		printf("BENCH m%lu_failed=%d\n", mib, failed);
		all_again += again;
		all_failed += failed;
	}
	printf("BENCH moved_again=%lu\n", all_again);
	printf("BENCH failed=%lu\n", all_failed);
	print_clocksource();
	return 0;
}
