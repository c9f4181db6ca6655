// SPDX-License-Identifier: GPL-2.0
/*
 * Anonymous page-fault rate: map MIB MiB, write one byte in every page, unmap,
 * again and again for SECONDS seconds; print the faults per second.
 *
 *   faults MIB SECONDS
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench.h"

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
