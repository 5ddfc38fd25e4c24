// SPDX-License-Identifier: GPL-2.0
/*
 * blkfloor_bare: the bare in-kernel submitter blkfloor is measured against.
 *
 * One kthread keeps qd preallocated bios in flight against one block device
 * for a fixed time. bi_end_io only pushes the finished bio on a lock-free
 * list and wakes the kthread, which resubmits everything it finds in one
 * batch, under a plug unless plug=0 (never from bi_end_io: that hung the
 * test guest). blkfloor plugs only sequential runs; plug=0 for random
 * ones submits as it does.
 * Nothing is timed per I/O and nothing is counted but completions: this is
 * the floor of what an in-kernel submitter with blkfloor's design costs.
 * With stamp=1 it measures what blkfloor measures and no more: each bio is
 * stamped (ktime_get_ns()) just before its submit_bio() and in bi_end_io,
 * and the latencies are summed (result_lat_ns), so that the price of the
 * measurement itself can be told from the price of the rest of blkfloor.
 *
 * Loading the module runs the benchmark; insmod returns when it is over and
 * the results are read back from read-only parameters:
 *
 *	insmod blkfloor_bare.ko path=/dev/nullb0 qd=32 bs=4096 op=read \
 *		random=1 duration=5
 *	cat /sys/module/blkfloor_bare/parameters/result_{ios,ns,errors}
 *	rmmod blkfloor_bare
 *
 * scripts/bench.sh (make bench) does exactly that.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/completion.h>
#include <linux/gfp.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/llist.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "compat.h"

#define BARE_QD_MAX		1024
#define BARE_BS_MAX		SZ_1M
#define BARE_DURATION_MAX	60

static char *g_path = "/dev/nullb0";
module_param_named(path, g_path, charp, 0444);
MODULE_PARM_DESC(path, "Block device to submit to. Default: /dev/nullb0");

static unsigned int g_qd = 32;
module_param_named(qd, g_qd, uint, 0444);
MODULE_PARM_DESC(qd, "Bios in flight, 1..1024. Default: 32");

static unsigned int g_bs = 4096;
module_param_named(bs, g_bs, uint, 0444);
MODULE_PARM_DESC(bs, "Bytes per bio, a multiple of the logical block size up to 1 MiB. Default: 4096");

static char *g_op = "read";
module_param_named(op, g_op, charp, 0444);
MODULE_PARM_DESC(op, "read or write (destroys the device's data). Default: read");

static bool g_plug = true;
module_param_named(plug, g_plug, bool, 0444);
MODULE_PARM_DESC(plug, "Submit each batch under a plug. Default: 1");

static bool g_stamp;
module_param_named(stamp, g_stamp, bool, 0444);
MODULE_PARM_DESC(stamp, "Stamp each bio at submission and completion, as blkfloor does. Default: 0");

static bool g_random = true;
module_param_named(random, g_random, bool, 0444);
MODULE_PARM_DESC(random, "Random (1) or sequential (0) offsets. Default: 1");

static unsigned int g_duration = 5;
module_param_named(duration, g_duration, uint, 0444);
MODULE_PARM_DESC(duration, "Seconds to run, 1..60. Default: 5");

static unsigned long g_result_ios;
module_param_named(result_ios, g_result_ios, ulong, 0444);
MODULE_PARM_DESC(result_ios, "Result: bios completed successfully");

static unsigned long g_result_errors;
module_param_named(result_errors, g_result_errors, ulong, 0444);
MODULE_PARM_DESC(result_errors, "Result: bios that failed");

static unsigned long g_result_ns;
module_param_named(result_ns, g_result_ns, ulong, 0444);
MODULE_PARM_DESC(result_ns, "Result: ns from the first submission to the last completion");

static unsigned long g_result_lat_ns;
module_param_named(result_lat_ns, g_result_lat_ns, ulong, 0444);
MODULE_PARM_DESC(result_lat_ns, "Result: with stamp=1, the sum of the successful bios' latencies in ns");

/**
 * struct bare_io - one request slot, reused for the whole run
 * @node: on &bare_ctx.done once completed
 * @bio: its preallocated bio, one inline bvec
 * @submit_ns: with stamp=1, when it was submitted
 * @done_ns: with stamp=1, when it completed
 */
struct bare_io {
	struct llist_node node;
	struct bio *bio;
	u64 submit_ns;
	u64 done_ns;
};

/**
 * struct bare_ctx - the one run of this module
 * @bd: the target, open exclusively for the run
 * @ios: @qd request slots
 * @page: the data buffer every bio points at (bs bytes, contiguous)
 * @done: completed bios, pushed by bare_end_io()
 * @task: the submitting kthread (a reference is held until module exit)
 * @finished: the kthread has drained every bio
 * @opf: operation of every bio
 * @qd: bios in flight
 * @sectors: 512-byte sectors per bio
 * @nblocks: bs-sized blocks on the device
 * @next: next block of a sequential run
 * @prng: xorshift64* state for random offsets
 * @inflight: bios submitted and not yet taken back (kthread only)
 * @nr_ios: bios completed successfully (kthread only)
 * @errors: bios that failed (kthread only)
 * @lat_ns: with stamp=1, the sum of the successful bios' latencies
 * @elapsed_ns: first submission to last completion
 */
struct bare_ctx {
	struct bare_bdev bd;
	struct bare_io *ios;
	struct page *page;
	struct llist_head done;
	struct task_struct *task;
	struct completion finished;
	blk_opf_t opf;
	unsigned int qd;
	unsigned int sectors;
	u64 nblocks;
	u64 next;
	u64 prng;
	unsigned int inflight;
	u64 nr_ios;
	u64 errors;
	u64 lat_ns;
	u64 elapsed_ns;
};

static struct bare_ctx bare;

static void bare_end_io(struct bio *bio)
{
	struct bare_io *io = bio->bi_private;

	if (g_stamp)
		io->done_ns = ktime_get_ns();
	/* Wake the kthread only if it may have found the list empty. */
	if (llist_add(&io->node, &bare.done))
		wake_up_process(bare.task);
}

static u64 bare_rand(struct bare_ctx *ctx)
{
	u64 x = ctx->prng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	ctx->prng = x;
	return x * 0x2545f4914f6cdd1dULL;
}

static void bare_submit(struct bare_ctx *ctx, struct bare_io *io)
{
	struct bio *bio = io->bio;
	u64 blk;

	if (g_random) {
		blk = mul_u64_u64_shr(bare_rand(ctx), ctx->nblocks, 64);
	} else {
		blk = ctx->next;
		if (++ctx->next == ctx->nblocks)
			ctx->next = 0;
	}
	bio_reset(bio, ctx->bd.bdev, ctx->opf);
	bio->bi_iter.bi_sector = blk * ctx->sectors;
	__bio_add_page(bio, ctx->page, g_bs, 0);
	bio->bi_end_io = bare_end_io;
	bio->bi_private = io;
	ctx->inflight++;
	if (g_stamp)
		io->submit_ns = ktime_get_ns();
	submit_bio(bio);
}

static int bare_thread(void *data)
{
	struct bare_ctx *ctx = data;
	struct bare_io *io, *next;
	struct llist_node *node;
	struct blk_plug plug;
	u64 start, end;
	unsigned int i;
	bool stop;

	start = ktime_get_ns();
	end = start + (u64)g_duration * NSEC_PER_SEC;

	if (g_plug)
		blk_start_plug(&plug);
	for (i = 0; i < ctx->qd; i++)
		bare_submit(ctx, &ctx->ios[i]);
	if (g_plug)
		blk_finish_plug(&plug);

	while (ctx->inflight) {
		set_current_state(TASK_INTERRUPTIBLE);
		node = llist_del_all(&ctx->done);
		if (!node) {
			schedule();
			continue;
		}
		__set_current_state(TASK_RUNNING);

		stop = kthread_should_stop() || ktime_get_ns() >= end;
		if (g_plug)
			blk_start_plug(&plug);
		llist_for_each_entry_safe(io, next, node, node) {
			ctx->inflight--;
			if (io->bio->bi_status) {
				ctx->errors++;
			} else {
				ctx->nr_ios++;
				ctx->lat_ns += io->done_ns - io->submit_ns;
			}
			if (!stop)
				bare_submit(ctx, io);
		}
		if (g_plug)
			blk_finish_plug(&plug);
		cond_resched();
	}
	ctx->elapsed_ns = ktime_get_ns() - start;
	complete(&ctx->finished);

	/* Stay until bare_init() collects us: kthread_stop() needs a live task. */
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

static int bare_check_params(void)
{
	if (!g_qd || g_qd > BARE_QD_MAX) {
		pr_err("qd %u is not in 1..%u\n", g_qd, BARE_QD_MAX);
		return -EINVAL;
	}
	if (g_bs < SECTOR_SIZE || g_bs > BARE_BS_MAX || g_bs % SECTOR_SIZE) {
		pr_err("bs %u is not a multiple of 512 up to %u\n", g_bs,
		       BARE_BS_MAX);
		return -EINVAL;
	}
	if (!g_duration || g_duration > BARE_DURATION_MAX) {
		pr_err("duration %u is not in 1..%u\n", g_duration,
		       BARE_DURATION_MAX);
		return -EINVAL;
	}
	if (!strcmp(g_op, "read")) {
		bare.opf = REQ_OP_READ;
	} else if (!strcmp(g_op, "write")) {
		bare.opf = REQ_OP_WRITE;
	} else {
		pr_err("op '%s' is neither read nor write\n", g_op);
		return -EINVAL;
	}
	return 0;
}

static void bare_free_bios(struct bare_ctx *ctx)
{
	unsigned int i;

	for (i = 0; i < ctx->qd && ctx->ios[i].bio; i++) {
		bio_uninit(ctx->ios[i].bio);
		kfree(ctx->ios[i].bio);
	}
	kfree(ctx->ios);
}

static int __init bare_init(void)
{
	struct bare_ctx *ctx = &bare;
	unsigned int lbs, i;
	int ret;

	ret = bare_check_params();
	if (ret)
		return ret;
	ctx->qd = g_qd;
	ctx->sectors = g_bs >> SECTOR_SHIFT;
	ctx->prng = get_random_u64() | 1;
	init_llist_head(&ctx->done);
	init_completion(&ctx->finished);

	ret = bare_bdev_open(&ctx->bd, g_path, ctx);
	if (ret) {
		pr_err("cannot open %s: %d\n", g_path, ret);
		return ret;
	}
	lbs = bdev_logical_block_size(ctx->bd.bdev);
	ctx->nblocks = div_u64(bdev_nr_bytes(ctx->bd.bdev), g_bs);
	if (g_bs % lbs || !ctx->nblocks) {
		pr_err("bs %u does not fit %s (logical block %u)\n", g_bs,
		       g_path, lbs);
		ret = -EINVAL;
		goto out_close;
	}

	ctx->page = alloc_pages(GFP_KERNEL | __GFP_ZERO, get_order(g_bs));
	if (!ctx->page) {
		ret = -ENOMEM;
		goto out_close;
	}
	ctx->ios = kcalloc(ctx->qd, sizeof(*ctx->ios), GFP_KERNEL);
	if (!ctx->ios) {
		ret = -ENOMEM;
		goto out_free_page;
	}
	for (i = 0; i < ctx->qd; i++) {
		struct bio *bio = bio_kmalloc(1, GFP_KERNEL);

		if (!bio) {
			ret = -ENOMEM;
			goto out_free_bios;
		}
		bio_init(bio, ctx->bd.bdev, bio->bi_inline_vecs, 1, ctx->opf);
		ctx->ios[i].bio = bio;
	}

	ctx->task = kthread_create(bare_thread, ctx, "blkfloor_bare");
	if (IS_ERR(ctx->task)) {
		ret = PTR_ERR(ctx->task);
		ctx->task = NULL;
		goto out_free_bios;
	}
	/*
	 * bare_end_io() may still be returning from wake_up_process() when
	 * the kthread has seen its bio: keep the task until module exit.
	 */
	get_task_struct(ctx->task);
	wake_up_process(ctx->task);

	/* A fatal signal ends the run early; the results say how far it got. */
	ret = wait_for_completion_killable(&ctx->finished);
	kthread_stop(ctx->task);
	if (ret)
		pr_warn("interrupted, results cover a partial run\n");

	g_result_ios = ctx->nr_ios;
	g_result_errors = ctx->errors;
	g_result_ns = ctx->elapsed_ns;
	g_result_lat_ns = ctx->lat_ns;
	pr_info("%s %s %s bs %u qd %u: %llu ios, %llu errors in %llu ns\n",
		g_path, g_random ? "random" : "sequential", g_op, g_bs, ctx->qd,
		ctx->nr_ios, ctx->errors, ctx->elapsed_ns);
	ret = 0;

out_free_bios:
	bare_free_bios(ctx);
out_free_page:
	__free_pages(ctx->page, get_order(g_bs));
out_close:
	bare_bdev_close(&ctx->bd);
	return ret;
}

static void __exit bare_exit(void)
{
	if (bare.task)
		put_task_struct(bare.task);
}

module_init(bare_init);
module_exit(bare_exit);

MODULE_AUTHOR("blkfloor developers");
MODULE_DESCRIPTION("Bare in-kernel bio submitter, the reference of make bench");
MODULE_LICENSE("GPL");
