// SPDX-License-Identifier: GPL-2.0
/*
 * insn-profile: a QEMU TCG plugin that counts the guest instructions
 * executed at each translation block's start address.
 *
 * Why: under -icount the benchmarks' time is the guest's instruction count,
 * so "ZONE_CMA costs N% per fault" is a statement about instructions. This
 * plugin says which kernel code executes them. Every translated block gets a
 * record (start address, instructions in the block) and an inline counter
 * that TCG increments on each execution; at exit the records are written as
 * "address instructions executions" lines, one per translation, for
 * bench/profile/insn-profile.py to fold into functions with System.map.
 *
 * Only blocks at or above the "min" argument (default: x86_64's kernel text
 * base) get a record; the rest are summed into one "user" line, so user
 * space costs one counter, not one record per block.
 *
 * Usage: -plugin insn-profile.so,out=FILE[,min=0xADDR]
 *
 * Counters are plain adds: with -icount QEMU runs every vCPU on one thread,
 * which is the only way this profile is meant to be used.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

struct block {
	uint64_t vaddr;		/* guest virtual address of the first insn */
	uint64_t n_insns;	/* instructions in the block */
	uint64_t executions;	/* incremented by TCG on every execution */
	struct block *next;	/* all records, newest first */
};

static struct block *blocks;
static pthread_mutex_t blocks_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t min_vaddr = 0xffffffff80000000ULL;
/* Instructions executed below min_vaddr, summed per block translation. */
static struct block user = { .vaddr = 0 };
static char *out_path;

static void tb_translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	size_t n = qemu_plugin_tb_n_insns(tb);
	struct block *b;

	if (vaddr < min_vaddr) {
		qemu_plugin_register_vcpu_tb_exec_inline(tb,
				QEMU_PLUGIN_INLINE_ADD_U64, &user.executions, n);
		return;
	}
	b = calloc(1, sizeof(*b));
	if (!b) {
		fprintf(stderr, "insn-profile: out of memory\n");
		abort();
	}
	b->vaddr = vaddr;
	b->n_insns = n;
	pthread_mutex_lock(&blocks_lock);
	b->next = blocks;
	blocks = b;
	pthread_mutex_unlock(&blocks_lock);
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->executions, 1);
}

static void write_profile(qemu_plugin_id_t id, void *unused)
{
	FILE *f = fopen(out_path, "w");
	struct block *b;

	if (!f) {
		perror(out_path);
		return;
	}
	/* "user" line: instructions, not executions, already multiplied. */
	fprintf(f, "user %" PRIu64 "\n", user.executions);
	for (b = blocks; b; b = b->next)
		if (b->executions)
			fprintf(f, "%" PRIx64 " %" PRIu64 " %" PRIu64 "\n",
				b->vaddr, b->n_insns, b->executions);
	if (fclose(f))
		perror(out_path);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			out_path = strdup(argv[i] + 4);
		} else if (!strncmp(argv[i], "min=", 4)) {
			char *end;

			min_vaddr = strtoull(argv[i] + 4, &end, 0);
			if (*end || end == argv[i] + 4) {
				fprintf(stderr, "insn-profile: bad min=%s\n",
					argv[i] + 4);
				return -1;
			}
		} else {
			fprintf(stderr, "insn-profile: unknown argument %s "
				"(usage: out=FILE[,min=0xADDR])\n", argv[i]);
			return -1;
		}
	}
	if (!out_path) {
		fprintf(stderr, "insn-profile: out=FILE is required\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_translated);
	qemu_plugin_register_atexit_cb(id, write_profile, NULL);
	return 0;
}
