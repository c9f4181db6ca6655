// SPDX-License-Identifier: GPL-2.0
/*
 * Anonymous page-fault rate: map MIB MiB, write one byte in every page, unmap,
 * again and again for SECONDS seconds; print the faults per second.
 *
 *   faults MIB SECONDS
 *
 * Before the loop it also prints the ceiling of CPU 0's per-cpu free list
 * in each populated zone of node 0 (pcp_high_max_<zone>, pages): whether
 * MIB MiB fits there decides whether freed pages go back to the buddy
 * lists on every round.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench.h"

/* What print_pcp_high_max() knows of the zone it is in. */
struct pcp_walk {
	int managed;		/* the zone has pages */
	int cpu;		/* the per-cpu section it is in, -1 before */
};

static void pcp_high_max_line(const struct zoneinfo_pos *pos, const char *s,
			      void *arg)
{
	struct pcp_walk *w = arg;
	long v;

	if (!strncmp(s, "Node ", 5)) {
		w->managed = 0;
		w->cpu = -1;
	} else if (sscanf(s, "managed %ld", &v) == 1) {
		w->managed = v > 0;
	} else if (sscanf(s, "cpu: %d", &w->cpu) == 1) {
		return;
	} else if (sscanf(s, "high_max: %ld", &v) == 1 && pos->node == 0 &&
		   w->cpu == 0 && w->managed) {
		printf("BENCH pcp_high_max_%s=%ld\n", pos->zone, v);
	}
}

/* "BENCH pcp_high_max_<zone>=N" for CPU 0 of each zone of node 0 with pages. */
static void print_pcp_high_max(void)
{
	struct pcp_walk w = { 0, -1 };

	zoneinfo_walk(pcp_high_max_line, &w);
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE), mib, seconds, i, n;
	unsigned long faults = 0;
	double start, elapsed;
	char *p;

	if (argc != 3) {
		fprintf(stderr, "usage: faults MIB SECONDS\n");
		return 2;
	}
	mib = parse_positive("faults", argv[1], "MIB");
	seconds = parse_positive("faults", argv[2], "SECONDS");
	n = mib * 1024 * 1024 / page;
	print_pcp_high_max();
	start = now();
	do {
		p = mmap(NULL, n * page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			perror("faults: mmap");
			return 1;
		}
#ifdef MADV_NOHUGEPAGE
		madvise(p, n * page, MADV_NOHUGEPAGE);
#endif
		for (i = 0; i < n; i++)
			p[i * page] = 1;
		munmap(p, n * page);
		faults += n;
		elapsed = now() - start;
	} while (elapsed < seconds);
	printf("BENCH faults=%lu\n", faults);
	printf("BENCH faults_elapsed_s=%.3f\n", elapsed);
	printf("BENCH faults_per_s=%.0f\n", faults / elapsed);
	return 0;
}
