// SPDX-License-Identifier: GPL-2.0
/*
 * tbcount: a QEMU TCG plugin that counts, for every translated block of
 * guest code, how many times it ran. At exit it writes one line per block,
 * "vaddr n_insns execs" (hex, decimal, decimal), to the file named by its
 * out= argument. With a symbol table of the guest kernel this gives the
 * instructions each function executed, exactly: make bench's per-function
 * profile (scripts/profile-io.sh) is built on it.
 *
 * Blocks are counted by an inline add that TCG emits into the translated
 * code, so counting costs no call per block. A block translated again at
 * the same address with the same length (after a TLB flush, or when
 * -icount splits code) shares its counter.
 *
 * With mark=ADDR (hex), every time the guest runs code at virtual address
 * ADDR (tbmark does, in user space) the counts so far are also written, to
 * OUT.0, OUT.1, ...: the difference of two such files is what ran between
 * the marks, without the boot.
 *
 * Only the plugin ABI below is used; it is QEMU's version 1 plugin API
 * (include/qemu/qemu-plugin.h, QEMU 4.2 to 8.x), declared here so that the
 * plugin builds without QEMU's source tree.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_info_t;
struct qemu_plugin_tb;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index,
					    void *userdata);
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags,
					  void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);

#define EXPORT __attribute__((visibility("default")))
EXPORT int qemu_plugin_version = 1;

struct block {
	uint64_t vaddr;
	uint64_t n_insns;
	uint64_t execs;
};

/* Blocks live in chunks that never move: TCG code holds their address. */
#define CHUNK	65536
static struct block **chunks;
static size_t nr_chunks, nr_blocks;
/* Open addressing on (vaddr, n_insns): index + 1 into the blocks, 0 free. */
static size_t *slots, nr_slots;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *out_path;
static uint64_t mark;
static unsigned int nr_marks;

static struct block *block_at(size_t i)
{
	return &chunks[i / CHUNK][i % CHUNK];
}

static size_t hash(uint64_t vaddr, uint64_t n)
{
	uint64_t h = (vaddr ^ (n << 56)) * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h >> 20);
}

static int grow(void)
{
	size_t nr = nr_slots ? 2 * nr_slots : 1 << 16, i;
	size_t *s = calloc(nr, sizeof(*s));

	if (!s)
		return -1;
	for (i = 0; i < nr_blocks; i++) {
		struct block *b = block_at(i);
		size_t j = hash(b->vaddr, b->n_insns) & (nr - 1);

		while (s[j])
			j = (j + 1) & (nr - 1);
		s[j] = i + 1;
	}
	free(slots);
	slots = s;
	nr_slots = nr;
	return 0;
}

static struct block *lookup(uint64_t vaddr, uint64_t n)
{
	size_t j;
	struct block *b;

	if (2 * (nr_blocks + 1) > nr_slots && grow())
		return NULL;
	for (j = hash(vaddr, n) & (nr_slots - 1); slots[j];
	     j = (j + 1) & (nr_slots - 1)) {
		b = block_at(slots[j] - 1);
		if (b->vaddr == vaddr && b->n_insns == n)
			return b;
	}
	if (nr_blocks == nr_chunks * CHUNK) {
		struct block **c = realloc(chunks, (nr_chunks + 1) * sizeof(*c));

		if (!c)
			return NULL;
		chunks = c;
		chunks[nr_chunks] = calloc(CHUNK, sizeof(struct block));
		if (!chunks[nr_chunks])
			return NULL;
		nr_chunks++;
	}
	b = block_at(nr_blocks);
	b->vaddr = vaddr;
	b->n_insns = n;
	slots[j] = ++nr_blocks;
	return b;
}

static void write_counts(const char *path)
{
	FILE *f = fopen(path, "w");
	size_t i;

	if (!f) {
		perror(path);
		return;
	}
	pthread_mutex_lock(&lock);
	for (i = 0; i < nr_blocks; i++) {
		struct block *b = block_at(i);

		if (b->execs)
			fprintf(f, "%" PRIx64 " %" PRIu64 " %" PRIu64 "\n",
				b->vaddr, b->n_insns, b->execs);
	}
	pthread_mutex_unlock(&lock);
	if (fclose(f))
		perror(path);
}

static void at_mark(unsigned int vcpu, void *p)
{
	char path[4096];

	(void)vcpu;
	(void)p;
	snprintf(path, sizeof(path), "%s.%u", out_path, nr_marks++);
	write_counts(path);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	struct block *b;

	(void)id;
	pthread_mutex_lock(&lock);
	b = lookup(vaddr, qemu_plugin_tb_n_insns(tb));
	pthread_mutex_unlock(&lock);
	if (b)
		qemu_plugin_register_vcpu_tb_exec_inline(tb,
				QEMU_PLUGIN_INLINE_ADD_U64, &b->execs, 1);
	else
		fprintf(stderr, "tbcount: out of memory, block not counted\n");
	if (mark && vaddr == mark)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, at_mark,
						     QEMU_PLUGIN_CB_NO_REGS,
						     NULL);
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	(void)id;
	(void)p;
	write_counts(out_path);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
			       const struct qemu_info_t *info, int argc,
			       char **argv);
EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
			       const struct qemu_info_t *info, int argc,
			       char **argv)
{
	int i;

	(void)info;
	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			out_path = argv[i] + 4;
		else if (!strncmp(argv[i], "mark=", 5))
			mark = strtoull(argv[i] + 5, NULL, 16);
	if (!out_path) {
		fprintf(stderr, "tbcount: usage: -plugin tbcount.so,out=FILE[,mark=ADDR]\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
