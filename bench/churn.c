// SPDX-License-Identifier: GPL-2.0
/*
 * Anonymous memory churn: WORKERS processes each keep MIB MiB of anonymous
 * memory mapped, as a ring of 4 MiB chunks, and replace it PASSES times:
 * each step unmaps the oldest chunk, maps a new one and writes every page
 * of it. All workers first build their ring and wait for each other, so
 * the working set of all of them together stays at WORKERS * MIB while
 * the page allocator keeps serving new pages. Prints the elapsed time
 * from the start of the passes to the last exit. With NODE, the workers'
 * memory is bound to that NUMA node (MPOL_BIND), to fill the zones of one
 * node, for instance the one holding a hugetlb_cma area.
 *
 *   churn WORKERS MIB PASSES [NODE]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/mempolicy.h>

#include "bench.h"

#define CHUNK_MIB	4

/* Map a chunk and write every page of it; NULL on failure. */
static char *new_chunk(long page)
{
	size_t len = CHUNK_MIB << 20, i;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
#ifdef MADV_NOHUGEPAGE
	madvise(p, len, MADV_NOHUGEPAGE);
#endif
	for (i = 0; i < len; i += page)
		p[i] = 1;
	return p;
}

#define MAX_NODES	256	/* the nodes bind_to_node() has bits for */

/* @s as a node number, or exit 2: node 0 is one, unlike parse_positive(). */
static long parse_node(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < 0 || v >= MAX_NODES) {
		fprintf(stderr, "churn: NODE must be 0 to %d, not '%s'\n",
			MAX_NODES - 1, s);
		exit(2);
	}
	return v;
}

/* Bind this process's memory to @node; -1 with errno when refused. */
static int bind_to_node(long node)
{
	unsigned long mask[MAX_NODES / (8 * sizeof(unsigned long))] = { 0 };
	long bits = 8 * sizeof(unsigned long);

	mask[node / bits] = 1UL << (node % bits);
	return syscall(SYS_set_mempolicy, MPOL_BIND, mask, 8 * sizeof(mask));
}

/*
 * One worker: build a ring of MIB / 4 chunks, report ready on @ready, wait
 * until @go is closed, then replace every chunk PASSES times.
 */
static int worker(long mib, long passes, int ready, int go)
{
	long page = sysconf(_SC_PAGESIZE), n = mib / CHUNK_MIB, i, step;
	char **ring = calloc(n, sizeof(*ring));
	char c = 0;

	if (!ring)
		return 1;
	for (i = 0; i < n; i++)
		if (!(ring[i] = new_chunk(page)))
			return 1;
	if (write(ready, &c, 1) != 1 || read(go, &c, 1) != 0)
		return 1;
	for (step = 0; step < passes * n; step++) {
		i = step % n;
		munmap(ring[i], CHUNK_MIB << 20);
		ring[i] = new_chunk(page);
		if (!ring[i])
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	long workers, mib, passes, i;
	int status, failed = 0, ready[2], go[2];
	double start;
	char c;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: churn WORKERS MIB PASSES [NODE]\n");
		return 2;
	}
	workers = parse_positive("churn", argv[1], "WORKERS");
	mib = parse_positive("churn", argv[2], "MIB");
	passes = parse_positive("churn", argv[3], "PASSES");
	if (mib < CHUNK_MIB) {
		fprintf(stderr, "churn: MIB must be at least %d\n", CHUNK_MIB);
		return 2;
	}
	/* Forked workers inherit the policy. */
	if (argc == 5 && bind_to_node(parse_node(argv[4]))) {
		fprintf(stderr, "churn: binding to node %s: %s\n", argv[4],
			strerror(errno));
		return 2;
	}
	if (pipe(ready) || pipe(go)) {
		perror("churn: pipe");
		return 1;
	}
	for (i = 0; i < workers; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("churn: fork");
			return 1;
		}
		if (pid == 0) {
			close(ready[0]);
			close(go[1]);
			_exit(worker(mib, passes, ready[1], go[0]));
		}
	}
	close(ready[1]);
	close(go[0]);
	/* All workers hold their memory: start the clock and let them go. */
	for (i = 0; i < workers; i++)
		if (read(ready[0], &c, 1) != 1)
			break;
	start = now();
	close(go[1]);
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			failed++;
	printf("BENCH elapsed_s=%.3f\n", now() - start);
	printf("BENCH failed_workers=%d\n", failed);
	return failed ? 1 : 0;
}
