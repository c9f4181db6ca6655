// SPDX-License-Identifier: GPL-2.0
/*
 * The dma-buf heap benchmark of the 2025 ARCH_FORCE_PAGE_BLOCK_ORDER patch
 * discussion: ROUNDS times, allocate one buffer of each of 8 MiB, 4 MiB,
 * 2 MiB, 1 MiB, 64, 8 and 4 bytes from /dev/dma_heap/system and close it
 * again. Prints, as BENCH lines, the allocations per second, the elapsed
 * time, the minor page faults of the process, and the CMA reserved at
 * boot (CmaTotal), so that one run also shows what the smallest cma=
 * request cost.
 *
 *   dmabuf ROUNDS
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>
#include <linux/dma-heap.h>

#include "bench.h"

#define HEAP	"/dev/dma_heap/system"

static const unsigned long sizes[] = {
	8 << 20, 4 << 20, 2 << 20, 1 << 20, 64, 8, 4,
};

static long minor_faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

int main(int argc, char **argv)
{
	struct dma_heap_allocation_data data;
	long rounds, r, faults;
	double start, elapsed;
	unsigned int i;
	int heap;

	if (argc != 2) {
		fprintf(stderr, "usage: dmabuf ROUNDS\n");
		return 2;
	}
	rounds = parse_positive("dmabuf", argv[1], "ROUNDS");
	heap = open(HEAP, O_RDONLY | O_CLOEXEC);
	if (heap < 0) {
		fprintf(stderr, "dmabuf: %s: %s (CONFIG_DMABUF_HEAPS_SYSTEM?)\n",
			HEAP, strerror(errno));
		return 1;
	}
	faults = minor_faults();
	start = now();
	for (r = 0; r < rounds; r++)
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			memset(&data, 0, sizeof(data));
			data.len = sizes[i];
			data.fd_flags = O_RDWR | O_CLOEXEC;
			if (ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &data)) {
				fprintf(stderr, "dmabuf: alloc %lu bytes: %s\n",
					sizes[i], strerror(errno));
				return 1;
			}
			close(data.fd);
		}
	elapsed = now() - start;
	faults = minor_faults() - faults;
	printf("BENCH allocs_per_s=%.1f\n",
	       rounds * (sizeof(sizes) / sizeof(sizes[0])) / elapsed);
	printf("BENCH elapsed_s=%.3f\n", elapsed);
	printf("BENCH minor_faults=%ld\n", faults);
	printf("BENCH cma_total_kib=%ld\n", meminfo_kib("CmaTotal"));
	return 0;
}
