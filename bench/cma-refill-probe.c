// SPDX-License-Identifier: GPL-2.0
/*
 * Where do user pages go once cma_alloc() gives an area back? A probe, not
 * a benchmark: no benchmarks.ini section runs it. Boot a bench kernel with
 * it by hand, e.g. the ZONE_CMA kernel of `make bench B=cma-latency`:
 *
 *   qemu-system-x86_64 -M pc -cpu max -m 1G -smp 2 -nographic -accel tcg \
 *     -kernel build/out/bench-mainline-series-x86_64-<hash>/arch/x86/boot/bzImage \
 *     -initrd build/out/bench-mainline-series-x86_64-<hash>/bench-initramfs.cpio.gz \
 *     -append 'console=ttyS0 panic=-1 cma=256M harness.mode=bench harness.bench=cma-refill-probe'
 *
 * It fills memory until 256 MiB is free, allocates 80 MiB from the
 * "reserved" area through debugfs and frees it, then faults 40 MiB in
 * three ways and prints MemFree and CmaFree (MiB) after each: pages of
 * the filled mapping dropped one at a time with MADV_DONTNEED and touched
 * again, a 40 MiB range of it dropped and touched again, and a new mapping.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define AREA		"/sys/kernel/debug/cma/reserved"
#define MIB_PAGES	256UL		/* 4K pages per MiB */

static unsigned long meminfo_mib(const char *key)
{
	size_t len = strlen(key);
	unsigned long kb = 0;
	char line[128];
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':' &&
		    sscanf(line + len + 1, "%lu", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb / 1024;
}

static void write_pages(const char *file, unsigned long pages)
{
	char path[128], buf[32];
	int fd, n;

	snprintf(path, sizeof(path), "%s/%s", AREA, file);
	fd = open(path, O_WRONLY);
	n = snprintf(buf, sizeof(buf), "%lu", pages);
	if (fd < 0 || write(fd, buf, n) != n) {
		perror(path);
		exit(1);
	}
	close(fd);
}

static char *map(unsigned long pages)
{
	char *p = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	madvise(p, pages * 4096, MADV_NOHUGEPAGE);
	return p;
}

static void touch(char *p, unsigned long pages)
{
	unsigned long i;

	for (i = 0; i < pages; i++)
		p[i * 4096] = 1;
}

static void show(const char *what)
{
	printf("%-40s MemFree %5lu CmaFree %5lu\n", what,
	       meminfo_mib("MemFree"), meminfo_mib("CmaFree"));
	fflush(stdout);
}

int main(void)
{
	unsigned long fill = (meminfo_mib("MemFree") - 256) * MIB_PAGES, i;
	char *f = map(fill);

	if (sysconf(_SC_PAGESIZE) != 4096) {
		fprintf(stderr, "cma-refill-probe: 4K pages only\n");
		return 2;
	}
	touch(f, fill);
	show("filled");
	write_pages("alloc", 80 * MIB_PAGES);
	show("80 MiB allocated");
	write_pages("free", 80 * MIB_PAGES);
	show("80 MiB freed");
	/* The last pages filled, in the kernel zones once the area was full. */
	for (i = 0; i < 40 * MIB_PAGES; i++) {
		char *page = f + (fill - 1 - i) * 4096;

		madvise(page, 4096, MADV_DONTNEED);
		*page = 1;
	}
	show("40 MiB dropped and touched, page by page");
	madvise(f + (fill - 80 * MIB_PAGES) * 4096, 40 * MIB_PAGES * 4096,
		MADV_DONTNEED);
	touch(f + (fill - 80 * MIB_PAGES), 40 * MIB_PAGES);
	show("40 MiB dropped and touched as a range");
	touch(map(40 * MIB_PAGES), 40 * MIB_PAGES);
	show("40 MiB of a new mapping touched");
	return 0;
}
