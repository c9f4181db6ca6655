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
 *
 * After the loop it prints the guest time of a fault (ns_per_fault), the
 * time the CPU takes to clear one page the way the kernel's clear_page()
 * does (clear_page_ns, measured here in user space) and their difference
 * (ns_per_fault_nozero). Under QEMU's -icount shift=0 guest time counts
 * instructions, and a string instruction counts one per iteration: "rep
 * stosb" over a 4 KiB page is 4,096 of them, most of a fault, where real
 * hardware clears a page in a few hundred cycles. The difference is what
 * the allocator and the rest of the fault path cost.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

#ifdef __x86_64__
/*
 * How the kernel clears a page on this CPU (arch/x86/include/asm/page_64.h:
 * "rep stosb" with ERMS, else "rep stosq" with REP_GOOD, else an unrolled
 * loop), from the flags of /proc/cpuinfo: 'b', 'q', or 0 (the unrolled
 * loop, which this program does not reproduce).
 */
static int clear_page_method(void)
{
	char line[4096];
	int method = 0;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5))
			continue;
		if (strstr(line, " erms"))
			method = 'b';
		else if (strstr(line, " rep_good"))
			method = 'q';
		break;
	}
	fclose(f);
	return method;
}

#define CLEAR_ROUNDS 10000

/* Guest ns to clear @page bytes as clear_page() does, -1 when unknown. */
static double clear_page_ns(long page)
{
	int method = clear_page_method();
	double start, ns;
	char *buf;
	long k;

	if (!method)
		return -1;
	buf = aligned_alloc(page, page);
	if (!buf)
		return -1;
	memset(buf, 1, page);
	start = now();
	for (k = 0; k < CLEAR_ROUNDS; k++) {
		void *d = buf;
		unsigned long c = page;

		if (method == 'b')
			asm volatile("rep stosb" : "+D" (d), "+c" (c) : "a" (0) : "memory");
		else
			asm volatile("shrq $3, %%rcx; rep stosq" : "+D" (d), "+c" (c)
				     : "a" (0) : "cc", "memory");
	}
	ns = (now() - start) * 1e9 / CLEAR_ROUNDS;
	free(buf);
	return ns;
}
#else
/* Only x86_64's clear_page() is reproduced here. */
static double clear_page_ns(long page)
{
	(void)page;
	return -1;
}
#endif

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE), mib, seconds, i, n;
	unsigned long faults = 0;
	double start, elapsed, clear_ns;
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
	clear_ns = clear_page_ns(page);
	printf("BENCH ns_per_fault=%.1f\n", elapsed * 1e9 / faults);
	if (clear_ns >= 0) {
		printf("BENCH clear_page_ns=%.1f\n", clear_ns);
		printf("BENCH ns_per_fault_nozero=%.1f\n", elapsed * 1e9 / faults - clear_ns);
	}
	return 0;
}
