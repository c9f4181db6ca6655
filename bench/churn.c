// SPDX-License-Identifier: GPL-2.0
/*
 * Anonymous memory churn: WORKERS processes each map MIB MiB and write every
 * page once; when all have, each writes every page PASSES more times, each
 * pass in a different random page order, so the working set of all workers
 * together stays at WORKERS * MIB for the whole measurement. Prints the
 * elapsed time from the start of the passes to the last exit.
 *
 *   churn WORKERS MIB PASSES
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

/*
 * One worker: touch its own mapping, report ready on @ready, wait until
 * @go is closed, then PASSES random-order write passes.
 */
static int worker(long id, long mib, long passes, int ready, int go)
{
	char c = 0;
	long page = sysconf(_SC_PAGESIZE), n = mib * 1024 * 1024 / page;
	unsigned long x = 2654435761UL * (id + 1);
	long pass, i, j, tmp, *order;
	char *p;

	p = mmap(NULL, n * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	order = malloc(n * sizeof(*order));
	if (p == MAP_FAILED || !order) {
		perror("churn: worker allocation");
		return 1;
	}
#ifdef MADV_NOHUGEPAGE
	madvise(p, n * page, MADV_NOHUGEPAGE);
#endif
	for (i = 0; i < n; i++) {
		order[i] = i;
		p[i * page] = 1;
	}
	if (write(ready, &c, 1) != 1 || read(go, &c, 1) != 0)
		return 1;
	for (pass = 0; pass < passes; pass++) {
		for (i = n - 1; i > 0; i--) {	/* Fisher-Yates with an LCG */
			x = x * 6364136223846793005UL + 1442695040888963407UL;
			j = (x >> 33) % (i + 1);
			tmp = order[i];
			order[i] = order[j];
			order[j] = tmp;
		}
		for (i = 0; i < n; i++)
			p[order[i] * page + (pass % page)] += 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	long workers, mib, passes, i;
	int status, failed = 0, ready[2], go[2];
	double start;
	char c;

	if (argc != 4) {
		fprintf(stderr, "usage: churn WORKERS MIB PASSES\n");
		return 2;
	}
	workers = parse_positive("churn", argv[1], "WORKERS");
	mib = parse_positive("churn", argv[2], "MIB");
	passes = parse_positive("churn", argv[3], "PASSES");
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
			_exit(worker(i, mib, passes, ready[1], go[0]));
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
