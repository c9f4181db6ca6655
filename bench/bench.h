/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the benchmark workloads in bench/. */
#ifndef BENCH_H
#define BENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Seconds on the monotonic clock. */
static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* @s as a positive integer, or exit 2 naming @prog and @what. */
static inline long parse_positive(const char *prog, const char *s,
				  const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v <= 0) {
		fprintf(stderr, "%s: %s must be a positive integer, not '%s'\n",
			prog, what, s);
		exit(2);
	}
	return v;
}

/* A value from /proc/meminfo in KiB, or -1. */
static inline long meminfo_kib(const char *key)
{
	char line[256];
	size_t len = strlen(key);
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':') {
			v = strtol(line + len + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/* Where a /proc/zoneinfo line stands: node and zone ("" before the first). */
struct zoneinfo_pos {
	int node;
	char zone[32];
};

/*
 * Call @fn for every line of /proc/zoneinfo, leading blanks stripped, with
 * the node and zone it belongs to; a zone's own "Node N, zone Z" line comes
 * first, with the new position. Returns -1 when the file cannot be opened.
 */
static inline int zoneinfo_walk(void (*fn)(const struct zoneinfo_pos *pos,
					   const char *line, void *arg),
				void *arg)
{
	struct zoneinfo_pos pos = { -1, "" };
	char line[512];
	FILE *f = fopen("/proc/zoneinfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "Node %d, zone %31s", &pos.node, pos.zone);
		fn(&pos, line + strspn(line, " "), arg);
	}
	fclose(f);
	return 0;
}

#endif
