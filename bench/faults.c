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
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long parse_positive(const char *s, const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v <= 0) {
		fprintf(stderr, "faults: %s must be a positive integer, not '%s'\n",
			what, s);
		exit(2);
	}
	return v;
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
	mib = parse_positive(argv[1], "MIB");
	seconds = parse_positive(argv[2], "SECONDS");
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
