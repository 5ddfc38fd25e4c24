// SPDX-License-Identifier: GPL-2.0
/*
 * blkfloor: the bio engine. One kthread per run submits and accounts;
 * bi_end_io only stamps and queues (design.rst, "The engine").
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bio.h>
#include <linux/blkfloor_verify.h>
#include <linux/blkdev.h>
#include <linux/crc32c.h>
#include <linux/freezer.h>
#include <linux/gfp.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include "blkfloor.h"

/* Data buffers are built from chunks of up to 1 MiB of contiguous pages. */
#define BLKFLOOR_CHUNK_ORDER	get_order(SZ_1M)
/* A bio carries at most this many chunks. */
#define BLKFLOOR_BUF_VECS	BIO_MAX_VECS
/* Random-data writes carry a header in every this many bytes. */
#define BLKFLOOR_UNIQUE_UNIT	SZ_4K
/* Rate pacing keeps ns << 8 for sub-nanosecond precision. */
#define BLKFLOOR_RATE_SHIFT	8
/* About 208 days per request: sums of two costs and a run's age fit u64. */
#define BLKFLOOR_RATE_COST_MAX	BIT_ULL(62)
/*
 * bs * (NSEC_PER_SEC << shift) / rate_bps must fit u64 at rate_bps = 1, or
 * mul_u64_u64_div_u64() traps: bs up to 2^64 / (10^9 << 8), about 72 MB.
 */
static_assert((u64)BLKFLOOR_BS_MAX <=
	      U64_MAX / ((u64)NSEC_PER_SEC << BLKFLOOR_RATE_SHIFT));

static u64 blkfloor_splitmix(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * A random pass visits block perm(i) i-th: a keyed bijection on the fewest
 * bits that hold every block number, applied again until it lands in the
 * region (cycle walking), so every block once per pass (design.rst,
 * "Submission").
 */
static const u64 blkfloor_perm_mul[] = {
	0x9e3779b97f4a7c15ULL, 0xbf58476d1ce4e5b9ULL, 0x94d049bb133111ebULL,
};

static __always_inline u64 blkfloor_mix(const struct blkfloor_engine *eng,
					u64 x)
{
	u64 mask = eng->perm_mask;
	unsigned int s = eng->perm_shift;

	x = ((x ^ eng->perm_key[0]) * blkfloor_perm_mul[0]) & mask;
	x ^= x >> s;
	x = ((x ^ eng->perm_key[1]) * blkfloor_perm_mul[1]) & mask;
	x ^= x >> s;
	x = ((x ^ eng->perm_key[2]) * blkfloor_perm_mul[2]) & mask;
	return x ^ (x >> s);
}

static u64 blkfloor_perm(const struct blkfloor_engine *eng, u64 i)
{
	do
		i = blkfloor_mix(eng, i);
	while (i >= eng->nblocks);
	return i;
}

/* Keys of pass @pass: a new permutation each pass, fixed by the seed. */
static void blkfloor_perm_pass(struct blkfloor_engine *eng, u64 seed, u64 pass)
{
	u64 s = seed ^ (pass * 0xd6e8feb86659fd93ULL);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(eng->perm_key); i++)
		eng->perm_key[i] = blkfloor_splitmix(&s) & eng->perm_mask;
}

static bool blkfloor_verifying(const struct blkfloor_params *p)
{
	return p->data == BLKFLOOR_DATA_VERIFY &&
	       (p->op == BLKFLOOR_OP_READ || p->op == BLKFLOOR_OP_WRITE);
}

/* Random-data writes: every 4 KiB stamped, per LBA and pass. */
static bool blkfloor_unique(const struct blkfloor_params *p)
{
	return p->data == BLKFLOOR_DATA_RANDOM && p->op == BLKFLOOR_OP_WRITE;
}

static bool blkfloor_has_data(const struct blkfloor_params *p)
{
	return p->op == BLKFLOOR_OP_READ || p->op == BLKFLOOR_OP_WRITE;
}

/**
 * blkfloor_own_buf() - whether each request slot of a run has its own buffer
 * @p: the run's parameters
 *
 * Return: true for reads, verify mode and random-data writes (up to
 * BLKFLOOR_VERIFY_MEM_MAX of buffers), false where one buffer serves all.
 */
bool blkfloor_own_buf(const struct blkfloor_params *p)
{
	return p->op == BLKFLOOR_OP_READ || blkfloor_verifying(p) ||
	       blkfloor_unique(p);
}

static void blkfloor_buf_free(struct blkfloor_buf *buf)
{
	unsigned int i;

	for (i = 0; i < buf->nr; i++)
		__free_pages(buf->vecs[i].bv_page,
			     get_order(buf->vecs[i].bv_len));
	kfree(buf->vecs);
	buf->vecs = NULL;
	buf->nr = 0;
}

/*
 * @bs bytes in at most BLKFLOOR_BUF_VECS chunks, as large as we can get.
 * A chunk is at least a page (or what is left), which bounds the table.
 */
static int blkfloor_buf_alloc(struct blkfloor_buf *buf, u32 bs, bool zero)
{
	gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_NOWARN | __GFP_NORETRY |
		    (zero ? __GFP_ZERO : 0);
	unsigned int max = min_t(u32, BLKFLOOR_BUF_VECS,
				 DIV_ROUND_UP(bs, PAGE_SIZE));
	unsigned int order = BLKFLOOR_CHUNK_ORDER;
	u32 left = bs;

	buf->nr = 0;
	buf->vecs = kcalloc(max, sizeof(*buf->vecs), GFP_KERNEL_ACCOUNT);
	if (!buf->vecs)
		return -ENOMEM;
	while (left) {
		u32 len = min_t(u32, left, PAGE_SIZE << order);
		struct page *page;

		if (buf->nr == max)
			goto out_free_buf;
		page = alloc_pages(gfp, get_order(len));
		if (!page) {
			if (!order)
				goto out_free_buf;
			order--;
			continue;
		}
		bvec_set_page(&buf->vecs[buf->nr++], page, len, 0);
		left -= len;
	}
	return 0;

out_free_buf:
	blkfloor_buf_free(buf);
	return -ENOMEM;
}

static void blkfloor_buf_fill_random(struct blkfloor_buf *buf)
{
	unsigned int i;

	for (i = 0; i < buf->nr; i++) {
		get_random_bytes(page_address(buf->vecs[i].bv_page),
				 buf->vecs[i].bv_len);
		cond_resched();
	}
}

/*
 * Random data: one stream from the seed in every slot, so that what a
 * block holds does not depend on the slot; blkfloor_unique_fill() then
 * makes each 4 KiB unique with a header.
 */
static void blkfloor_buf_fill_seed(struct blkfloor_buf *buf, u64 seed)
{
	u64 s = seed ^ 0x5851f42d4c957f2dULL;
	unsigned int i, j;

	for (i = 0; i < buf->nr; i++) {
		__le64 *w = page_address(buf->vecs[i].bv_page);

		for (j = 0; j < buf->vecs[i].bv_len / sizeof(*w); j++)
			w[j] = cpu_to_le64(blkfloor_splitmix(&s));
		cond_resched();
	}
}

/* Every header field but the crc, which is left 0. */
static void blkfloor_hdr_set(struct blkfloor_verify_hdr *h, u64 lba, u64 seed,
			     u64 gen)
{
	h->magic = cpu_to_le32(BLKFLOOR_VERIFY_MAGIC);
	h->crc = 0;
	h->lba = cpu_to_le64(lba);
	h->seed = cpu_to_le64(seed);
	h->gen = cpu_to_le64(gen);
}

/* Verify mode: header, then a stream from (seed, lba, gen); crc32c of all. */
static void blkfloor_verify_make(void *blk, unsigned int lbs, u64 lba,
				 u64 seed, u64 gen)
{
	struct blkfloor_verify_hdr *h = blk;
	__le64 *w = blk + sizeof(*h);
	u64 s = seed ^ (lba * 0xd1b54a32d192ed03ULL) ^
		(gen * 0xaef17502108ef2d9ULL);
	unsigned int i;

	for (i = 0; i < (lbs - sizeof(*h)) / sizeof(*w); i++)
		w[i] = cpu_to_le64(blkfloor_splitmix(&s));
	blkfloor_hdr_set(h, lba, seed, gen);
	h->crc = cpu_to_le32(crc32c(~0U, blk, lbs) ^ ~0U);
}

static bool blkfloor_verify_ok(const void *blk, unsigned int lbs, u64 lba,
			       u64 seed)
{
	const struct blkfloor_verify_hdr *h = blk;
	static const u8 zero[sizeof(h->crc)];
	size_t crc_off = offsetof(struct blkfloor_verify_hdr, crc);
	size_t rest = crc_off + sizeof(h->crc);
	u32 crc;

	if (h->magic != cpu_to_le32(BLKFLOOR_VERIFY_MAGIC) ||
	    le64_to_cpu(h->lba) != lba || le64_to_cpu(h->seed) != seed)
		return false;
	crc = crc32c(~0U, blk, crc_off);
	crc = crc32c(crc, zero, sizeof(zero));
	crc = crc32c(crc, blk + rest, lbs - rest);
	return (crc ^ ~0U) == le32_to_cpu(h->crc);
}

static void blkfloor_verify_fill(struct blkfloor_run *run,
				 struct blkfloor_io *io)
{
	unsigned int lbs = run->eng.lbs, i, off;
	u64 lba = io->sector;

	for (i = 0; i < io->buf->nr; i++) {
		void *base = page_address(io->buf->vecs[i].bv_page);

		for (off = 0; off < io->buf->vecs[i].bv_len; off += lbs) {
			blkfloor_verify_make(base + off, lbs, lba, run->p.seed,
					     io->gen);
			lba += lbs >> SECTOR_SHIFT;
		}
	}
}

/*
 * A header at the start of the request and at every 4 KiB boundary of the
 * device (or logical block, if larger): every unit a controller maps or
 * deduplicates holds one, and no more are written than that.
 */
static void blkfloor_unique_fill(struct blkfloor_run *run,
				 struct blkfloor_io *io)
{
	u32 unit = max_t(u32, run->eng.lbs, BLKFLOOR_UNIQUE_UNIT);
	u64 start = (u64)io->sector << SECTOR_SHIFT, seed = run->p.seed;
	/* Request offset of the next header: 0, then device-aligned. */
	u32 next = 0, pos = 0, off, i;

	for (i = 0; i < io->buf->nr; i++) {
		void *base = page_address(io->buf->vecs[i].bv_page);
		u32 len = io->buf->vecs[i].bv_len;

		for (off = next - pos; off < len; off = next - pos) {
			blkfloor_hdr_set(base + off,
					 (start + next) >> SECTOR_SHIFT, seed,
					 io->gen);
			next = round_down(start + next + unit, unit) - start;
		}
		pos += len;
	}
}

static void blkfloor_verify_check(struct blkfloor_run *run,
				  struct blkfloor_io *io)
{
	unsigned int lbs = run->eng.lbs, i, off;
	u64 lba = io->sector;

	for (i = 0; i < io->buf->nr; i++) {
		void *base = page_address(io->buf->vecs[i].bv_page);

		for (off = 0; off < io->buf->vecs[i].bv_len; off += lbs) {
			if (!blkfloor_verify_ok(base + off, lbs, lba,
						run->p.seed)) {
				spin_lock(&run->lock);
				if (run->pub.nr_mismatch_lba < BLKFLOOR_MISMATCH_LBAS)
					run->pub.mismatch_lba[run->pub.nr_mismatch_lba++] = lba;
				run->pub.mismatches++;
				spin_unlock(&run->lock);
			}
			lba += lbs >> SECTOR_SHIFT;
		}
	}
}

/*
 * Any context, the kthread's own submit_bio() included (it needs no
 * wakeup: it looks at the list before it sleeps). After llist_add() the
 * run may end: the RCU-sched section keeps the run and its task alive,
 * blkfloor_exit() the module's text (design.rst, "Locking and lifetimes").
 */
static void blkfloor_end_io(struct bio *bio)
{
	struct blkfloor_io *io = bio->bi_private;
	struct blkfloor_run *run = io->run;

	/* blkfloor_catch_stragglers() spins from stamp to push: no preemption. */
	rcu_read_lock_sched();
	WRITE_ONCE(io->done_ns, ktime_get_ns());
	if (llist_add(&io->node, &run->done) &&
	    !(in_task() && current == run->task))
		wake_up_process(run->task);
	rcu_read_unlock_sched();
}

/*
 * Log a failed I/O while the log has room, else count it. The entry is
 * written before the lock that publishes it.
 */
static void __cold blkfloor_log_error(struct blkfloor_run *run,
				      struct blkfloor_io *io,
				      blk_status_t status,
				      enum blkfloor_err_class class)
{
	struct blkfloor_engine *eng = &run->eng;
	struct blkfloor_err_entry *e;

	if (eng->err_logged == run->p.err_log) {
		eng->err_log_dropped++;
		return;
	}
	e = &run->err_log[eng->err_logged++];
	e->sector = io->sector;
	e->time_ns = io->done_ns - eng->t0;
	e->lat_ns = io->done_ns - io->submit_ns;
	e->bytes = run->p.bs;
	e->err = blk_status_to_errno(status);
	e->op = run->p.op;
	e->class = class;
	spin_lock(&run->lock);
	run->pub.err_logged = eng->err_logged;
	spin_unlock(&run->lock);
}

/* Fold one completed I/O into the live interval; its slot goes idle. */
static __always_inline void blkfloor_account(struct blkfloor_run *run,
					     struct blkfloor_io *io)
{
	struct blkfloor_engine *eng = &run->eng;
	blk_status_t status = io->bio->bi_status;

	io->inflight = false;
	eng->inflight--;
	eng->free[eng->nr_free++] = io;
	if (unlikely(status)) {
		enum blkfloor_err_class class = blkfloor_err_class(status);

		eng->acc->errors[class]++;
		if (!eng->errors_total++)
			eng->first_err = blk_status_to_errno(status);
		blkfloor_log_error(run, io, status, class);
		return;
	}
	eng->bytes_total += run->p.bs;
	eng->ios_total++;
	blkfloor_acc_add(eng->acc, run->p.bs, io->done_ns - io->submit_ns,
			 !(run->p.flags & BLKFLOOR_F_NO_STATS));
	if (run->p.op == BLKFLOOR_OP_READ && blkfloor_verifying(&run->p))
		blkfloor_verify_check(run, io);
}

/* Put a list taken off run->done in front of eng->pending. */
static void blkfloor_splice(struct blkfloor_run *run, struct llist_node *n)
{
	struct llist_node *last = n;

	if (!n)
		return;
	while (last->next)
		last = last->next;
	last->next = run->eng.pending;
	run->eng.pending = n;
}

/* Move everything bi_end_io pushed onto eng->pending. */
static void blkfloor_pull(struct blkfloor_run *run)
{
	blkfloor_splice(run, llist_del_all(&run->done));
}

/* Account the pending I/Os that completed before @limit. */
static void blkfloor_account_before(struct blkfloor_run *run, u64 limit)
{
	struct llist_node **pp = &run->eng.pending;

	while (*pp) {
		struct blkfloor_io *io = llist_entry(*pp, struct blkfloor_io,
						     node);

		if (io->done_ns < limit) {
			*pp = io->node.next;
			blkfloor_account(run, io);
		} else {
			pp = &(*pp)->next;
		}
	}
}

/* Wait for I/Os stamped before @limit but not yet pushed by bi_end_io. */
static void blkfloor_catch_stragglers(struct blkfloor_run *run, u64 limit)
{
	struct blkfloor_engine *eng = &run->eng;
	unsigned int i;

again:
	for (i = 0; i < run->p.qd; i++) {
		struct blkfloor_io *io = &eng->ios[i];
		u64 t;

		if (!io->inflight)
			continue;
		t = READ_ONCE(io->done_ns);
		if (!t || t >= limit)
			continue;
		cond_resched();
		blkfloor_pull(run);
		blkfloor_account_before(run, limit);
		goto again;
	}
}

/*
 * The I/Os in flight at @end and the age of the oldest, which tell a
 * device that holds a request from a slow one. Those submitted after @end
 * (the interval is closed late) do not count.
 */
static void blkfloor_inflight_at(struct blkfloor_run *run, u64 end,
				 struct blkfloor_iv *iv)
{
	struct blkfloor_engine *eng = &run->eng;
	u64 oldest = end;
	unsigned int i;

	for (i = 0; i < run->p.qd && iv->inflight < eng->inflight; i++) {
		struct blkfloor_io *io = &eng->ios[i];

		if (!io->inflight || io->submit_ns >= end)
			continue;
		iv->inflight++;
		oldest = min(oldest, io->submit_ns);
	}
	iv->oldest_ns = end - oldest;
}

/* Publish the live interval as closed at absolute time @end. */
static void blkfloor_close_interval(struct blkfloor_run *run, u64 end)
{
	struct blkfloor_engine *eng = &run->eng;
	struct blkfloor_iv iv = {}, old;
	struct blkfloor_iv *slot;

	if (blkfloor_acc_close(eng->acc, &iv))
		pr_warn_ratelimited("run %u: no memory for interval %llu's histogram\n",
				    run->id, eng->iv_index);
	iv.index = eng->iv_index;
	iv.start_ns = eng->iv_start - eng->t0;
	iv.end_ns = end - eng->t0;
	iv.bytes_total = eng->bytes_total;
	blkfloor_inflight_at(run, end, &iv);

	spin_lock(&run->lock);
	slot = blkfloor_ring_put(&run->ring, &iv, &old);
	run->pub.bytes = eng->bytes_total;
	run->pub.ios = eng->ios_total;
	run->pub.errors = eng->errors_total;
	run->pub.err_log_dropped = eng->err_log_dropped;
	spin_unlock(&run->lock);
	blkfloor_iv_release(&old);

	/*
	 * Multicast once a dump can find it. Only this kthread overwrites
	 * slots, so iv.hist stays valid until the next close.
	 */
	if (blkfloor_nl_notify_interval(run, &iv)) {
		spin_lock(&run->lock);
		slot->seen = true;
		spin_unlock(&run->lock);
	}

	eng->iv_index++;
	eng->iv_start = end;
	eng->iv_end = end + run->p.interval_ns;
}

/*
 * Account every completion so far, closing the intervals that ended;
 * returns a time no later than now. In the common case (every completion
 * in the live interval) the newest stamp stands for now, saving a clock
 * read; it can only be early.
 */
static u64 blkfloor_reap(struct blkfloor_run *run)
{
	struct blkfloor_engine *eng = &run->eng;
	struct llist_node *done = llist_del_all(&run->done);
	struct blkfloor_io *io, *next;
	u64 last = 0, now;

	if (done && !eng->pending) {
		llist_for_each_entry_safe(io, next, done, node) {
			if (unlikely(io->done_ns >= eng->iv_end)) {
				blkfloor_splice(run, &io->node);
				goto close;
			}
			last = max(last, io->done_ns);
			blkfloor_account(run, io);
		}
		return last;
	}
	blkfloor_splice(run, done);
close:
	blkfloor_pull(run);
	/* Read after the pull: every pulled I/O completed before now. */
	now = ktime_get_ns();
	/*
	 * Only those that ended by now: on a kernel slow to close one, a new
	 * clock read each time would keep the thread from its main loop.
	 */
	while (now >= eng->iv_end) {
		blkfloor_account_before(run, eng->iv_end);
		blkfloor_catch_stragglers(run, eng->iv_end);
		blkfloor_close_interval(run, eng->iv_end);
		cond_resched();
	}
	/* (catch_stragglers may have pulled I/Os of later intervals) */
	blkfloor_account_before(run, eng->iv_end);
	return now;
}

/* Set by RUN_STOP and the owner's exit (blkfloor_run_stop()). */
static bool blkfloor_stop_requested(struct blkfloor_run *run)
{
	return READ_ONCE(run->stop_req);
}

/* Why the run should stop submitting, or RUNNING. */
static u8 blkfloor_end_reason(struct blkfloor_run *run, u64 now)
{
	struct blkfloor_engine *eng = &run->eng;

	if (eng->errors_total > run->p.err_limit)
		return BLKFLOOR_STATE_FAILED;
	if (eng->errors_total && blkfloor_bdev_dead(run->bd.bdev))
		return BLKFLOOR_STATE_FAILED;
	if (blkfloor_stop_requested(run))
		return BLKFLOOR_STATE_STOPPED;
	if (eng->submitted >= eng->byte_limit || now >= eng->time_end)
		return BLKFLOOR_STATE_DONE;
	return BLKFLOOR_STATE_RUNNING;
}

/* Make a free slot's bio ready: offset, data, bio. Not yet stamped. */
static void blkfloor_io_prep(struct blkfloor_run *run, struct blkfloor_io *io)
{
	struct blkfloor_engine *eng = &run->eng;
	struct blkfloor_params *p = &run->p;
	struct bio *bio = io->bio;
	u64 blk;

	if (p->pattern == BLKFLOOR_PATTERN_SEQ) {
		blk = eng->seq_next;
		if (++eng->seq_next == eng->nblocks)
			eng->seq_next = 0;
	} else {
		blk = blkfloor_perm(eng, eng->perm_next);
		if (++eng->perm_next == eng->nblocks) {
			eng->perm_next = 0;
			blkfloor_perm_pass(eng, p->seed, ++eng->perm_pass);
		}
	}
	io->sector = (p->offset + blk * p->bs) >> SECTOR_SHIFT;
	if (p->op == BLKFLOOR_OP_WRITE && (blkfloor_verifying(p) ||
					   blkfloor_unique(p))) {
		io->gen = div64_u64(eng->submitted, eng->pass_bytes);
		if (blkfloor_verifying(p))
			blkfloor_verify_fill(run, io);
		else
			blkfloor_unique_fill(run, io);
	}
	eng->submitted += p->bs;

	bio_reset(bio, run->bd.bdev, eng->opf);
	bio->bi_iter.bi_sector = io->sector;
	bio->bi_iter.bi_size = p->bs;
	/* The bvec table was filled once; bio_reset() keeps it. */
	if (io->buf)
		bio->bi_vcnt = io->buf->nr;
	bio->bi_end_io = blkfloor_end_io;
	bio->bi_private = io;
	io->done_ns = 0;
	io->inflight = true;
	eng->inflight++;
}

/*
 * Rate cap: may one more request go now (charging it)? A late kthread
 * catches up on at most 10 ms, or one request, of lost time.
 */
static bool blkfloor_rate_ok(struct blkfloor_engine *eng, u64 now_ns)
{
	u64 now = (now_ns - eng->t0) << BLKFLOOR_RATE_SHIFT;
	u64 slack = max_t(u64, eng->rate_cost,
			  (10 * NSEC_PER_MSEC) << BLKFLOOR_RATE_SHIFT);

	if (now < eng->rate_next)
		return false;
	if (eng->rate_next + slack < now)
		eng->rate_next = now - slack;
	eng->rate_next += eng->rate_cost;
	return true;
}

/* Stamp and submit prepared slots @from .. @to - 1 of a batch. */
static void blkfloor_submit_slots(struct blkfloor_run *run, unsigned int top,
				  unsigned int from, unsigned int to)
{
	struct blkfloor_engine *eng = &run->eng;
	unsigned int j;

	/* The slots just taken are still in free[nr_free .. top). */
	for (j = from; j < to; j++) {
		struct blkfloor_io *io = eng->free[top - 1 - j];

		io->submit_ns = ktime_get_ns();
		submit_bio(io->bio);
	}
}

/*
 * Refill idle slots: prepare them all, then stamp and submit each just
 * before its own submit_bio(), so that a bio's latency holds no other's
 * preparation or tag wait. Plug only a sequential run that may merge, and
 * only as many bios as the queue has requests free: a plug flushed from
 * io_schedule() would hand them to kblockd (design.rst, "Submission").
 */
static void blkfloor_submit(struct blkfloor_run *run)
{
	struct blkfloor_engine *eng = &run->eng;
	unsigned int top = eng->nr_free, n;
	unsigned long room = 0;
	/* Only the pacer needs the time here: the stamps are per bio. */
	u64 now = eng->rate_cost ? ktime_get_ns() : 0;

	while (eng->nr_free && eng->submitted < eng->byte_limit) {
		if (eng->rate_cost && !blkfloor_rate_ok(eng, now))
			break;
		blkfloor_io_prep(run, eng->free[--eng->nr_free]);
	}
	n = top - eng->nr_free;
	if (eng->plug && n > 1) {
		unsigned long before = eng->inflight - n;

		room = READ_ONCE(bdev_get_queue(run->bd.bdev)->nr_requests);
		room = room > before ? room - before : 0;
	}
	if (room > 1) {
		/* (here: INIT_STACK_ALL_ZERO would clear it on every call) */
		struct blk_plug plug;
		unsigned int plugged = min_t(unsigned long, n, room);

		blk_start_plug(&plug);
		blkfloor_submit_slots(run, top, 0, plugged);
		blk_finish_plug(&plug);
		blkfloor_submit_slots(run, top, plugged, n);
	} else {
		blkfloor_submit_slots(run, top, 0, n);
	}
}

/* Sleep until a completion, the interval's end, or a limit/pacing time. */
static void blkfloor_sleep(struct blkfloor_run *run, bool running)
{
	struct blkfloor_engine *eng = &run->eng;
	u64 wake = eng->iv_end;
	ktime_t expires;

	/* Completions waiting (a driver that completes inline): no sleep. */
	if (!llist_empty(&run->done))
		return;
	if (running) {
		wake = min(wake, eng->time_end);
		if (eng->rate_cost && eng->nr_free &&
		    eng->submitted < eng->byte_limit)
			wake = min(wake, eng->t0 +
				   (eng->rate_next >> BLKFLOOR_RATE_SHIFT));
	}
	/* Interruptible: the freezer's wakeup must reach it (no signals). */
	set_current_state(TASK_INTERRUPTIBLE);
	if (!llist_empty(&run->done) || freezing(current) ||
	    (running && blkfloor_stop_requested(run))) {
		__set_current_state(TASK_RUNNING);
		return;
	}
	expires = ns_to_ktime(wake);
	schedule_hrtimeout(&expires, HRTIMER_MODE_ABS);
	__set_current_state(TASK_RUNNING);
}

/* Publish a run's final state and totals, then tell the listeners. */
static void blkfloor_run_publish_end(struct blkfloor_run *run, u8 state,
				     int err, u64 elapsed_ns)
{
	struct blkfloor_engine *eng = &run->eng;

	spin_lock(&run->lock);
	run->pub.state = state;
	run->pub.err = err;
	run->pub.elapsed_ns = elapsed_ns;
	run->pub.bytes = eng->bytes_total;
	run->pub.ios = eng->ios_total;
	run->pub.errors = eng->errors_total;
	run->pub.err_log_dropped = eng->err_log_dropped;
	spin_unlock(&run->lock);
	blkfloor_nl_notify_end(run);
}

/* What an ended run keeps for its readers: ring, histograms, error log. */
static u64 blkfloor_run_kept(const struct blkfloor_run *run)
{
	u64 bytes = (u64)run->ring.nr * sizeof(*run->ring.slots) +
		    (u64)run->p.err_log * sizeof(*run->err_log);
	u32 i;

	for (i = 0; run->ring.slots && i < run->ring.nr; i++)
		bytes += (u64)run->ring.slots[i].nr_hist *
			 sizeof(*run->ring.slots[i].hist);
	return bytes;
}

/* The run's time origin, at its first I/O (after preparing, if it does). */
static void blkfloor_run_begin(struct blkfloor_run *run)
{
	struct blkfloor_engine *eng = &run->eng;
	const struct blkfloor_params *p = &run->p;
	u64 real = ktime_get_real_ns();

	eng->t0 = ktime_get_ns();
	eng->iv_start = eng->t0;
	eng->iv_end = eng->t0 + p->interval_ns;
	/* MAX_TIME_NS is any u64: a limit past 2^64 ns is no limit. */
	if (!p->max_time_ns ||
	    check_add_overflow(eng->t0, p->max_time_ns, &eng->time_end))
		eng->time_end = U64_MAX;
	spin_lock(&run->lock);
	run->pub.t0 = eng->t0;
	run->pub.start_real = real;
	if (run->pub.state == BLKFLOOR_STATE_PREPARING)
		run->pub.state = BLKFLOOR_STATE_RUNNING;
	spin_unlock(&run->lock);
}

/* Run until ended and drained; returns the end state, the run time. */
static u8 blkfloor_run_io(struct blkfloor_run *run, u64 *elapsed)
{
	struct blkfloor_engine *eng = &run->eng;
	u8 state = BLKFLOOR_STATE_RUNNING;
	u64 now;

	for (;;) {
		now = blkfloor_reap(run);
		if (state == BLKFLOOR_STATE_RUNNING)
			state = blkfloor_end_reason(run, now);
		if (state == BLKFLOOR_STATE_RUNNING)
			blkfloor_submit(run);
		else if (!eng->inflight)
			break;
		blkfloor_sleep(run, state == BLKFLOOR_STATE_RUNNING);
		/* (completions inside submit_bio(): the loop never sleeps) */
		cond_resched();
		try_to_freeze();
	}
	now = ktime_get_ns();
	if (eng->acc->ios || eng->errors_total != run->pub.errors)
		blkfloor_close_interval(run, now);
	*elapsed = now - eng->t0;
	return state;
}

/*
 * Ends by itself once drained, however long the device takes; nobody
 * waits for it. Holds a run and a module reference until then.
 */
static int blkfloor_thread(void *data)
{
	struct blkfloor_run *run = data;
	struct blkfloor_engine *eng = &run->eng;
	u8 state = BLKFLOOR_STATE_RUNNING;
	struct mem_cgroup *old_memcg;
	u64 elapsed = 0;
	bool dead;
	int err = 0;

	set_freezable();
	/* Its allocations and bios are charged to the starter's cgroups. */
	old_memcg = set_active_memcg(run->memcg);
	kthread_associate_blkcg(run->blkcg_css);
	/* (stopped before it began: its RUN_START could not answer) */
	if (blkfloor_stop_requested(run)) {
		state = BLKFLOOR_STATE_STOPPED;
	} else if (run->prepare) {
		err = blkfloor_target_prepare(run);
		if (err)
			state = BLKFLOOR_STATE_FAILED;
		else if (blkfloor_stop_requested(run))
			state = BLKFLOOR_STATE_STOPPED;
		else
			blkfloor_run_begin(run);
	}
	if (state == BLKFLOOR_STATE_RUNNING)
		state = blkfloor_run_io(run, &elapsed);
	kthread_associate_blkcg(NULL);
	set_active_memcg(old_memcg);
	/* Every bio has completed and been accounted: nothing uses them. */
	blkfloor_engine_free_io(run);
	dead = blkfloor_bdev_dead(run->bd.bdev);
	blkfloor_target_close(run);
	if (eng->errors_total > run->p.err_limit ||
	    (eng->errors_total && dead)) {
		state = BLKFLOOR_STATE_FAILED;
		err = eng->first_err ?: -EIO;
	}

	WRITE_ONCE(run->kept_bytes, blkfloor_run_kept(run));
	blkfloor_run_publish_end(run, state, err, elapsed);
	blkfloor_runs_trim(run);
	/* The module reference is dropped outside the module's text. */
	blkfloor_run_put(run);
	module_put_and_kthread_exit(0);
}

/**
 * blkfloor_engine_init() - preallocate a run's I/O slots, bios and buffers
 * @run: the run, its parameters checked and its device open
 *
 * Everything the run needs is allocated here; nothing is allocated per I/O.
 * It is charged to the caller's memory cgroup: this runs in its RUN_START.
 *
 * Return: 0 or -ENOMEM; blkfloor_engine_free() undoes a partial setup.
 */
int blkfloor_engine_init(struct blkfloor_run *run)
{
	struct blkfloor_engine *eng = &run->eng;
	struct blkfloor_params *p = &run->p;
	bool verify = blkfloor_verifying(p);
	/* Per slot for reads: no two bios may DMA into one page. */
	bool own = blkfloor_own_buf(p);
	unsigned int i;

	eng->acc = kvzalloc(sizeof(*eng->acc), GFP_KERNEL_ACCOUNT);
	eng->ios = kvcalloc(p->qd, sizeof(*eng->ios), GFP_KERNEL_ACCOUNT);
	eng->free = kvcalloc(p->qd, sizeof(*eng->free), GFP_KERNEL_ACCOUNT);
	run->ring.slots = kvcalloc(p->ring, sizeof(*run->ring.slots),
				   GFP_KERNEL_ACCOUNT);
	run->ring.nr = p->ring;
	if (!eng->acc || !eng->ios || !eng->free || !run->ring.slots)
		return -ENOMEM;
	if (p->err_log) {
		run->err_log = kvcalloc(p->err_log, sizeof(*run->err_log),
					GFP_KERNEL_ACCOUNT);
		if (!run->err_log)
			return -ENOMEM;
	}
	blkfloor_acc_reset(eng->acc);

	if (blkfloor_has_data(p) && !own) {
		bool zero = p->data == BLKFLOOR_DATA_ZERO;

		if (blkfloor_buf_alloc(&eng->shared, p->bs, zero))
			return -ENOMEM;
		if (!zero)
			blkfloor_buf_fill_random(&eng->shared);
	}

	for (i = 0; i < p->qd; i++) {
		struct blkfloor_io *io = &eng->ios[i];
		unsigned short nr = 0;

		io->run = run;
		if (own) {
			bool read = p->op == BLKFLOOR_OP_READ;

			io->buf = kzalloc(sizeof(*io->buf), GFP_KERNEL_ACCOUNT);
			if (!io->buf ||
			    blkfloor_buf_alloc(io->buf, p->bs, verify || read))
				return -ENOMEM;
			if (!verify && !read)
				blkfloor_buf_fill_seed(io->buf, p->seed);
		} else if (blkfloor_has_data(p)) {
			io->buf = &eng->shared;
		}
		if (io->buf)
			nr = io->buf->nr;
		io->bio = bio_kmalloc(nr, GFP_KERNEL_ACCOUNT);
		if (!io->bio)
			return -ENOMEM;
		bio_init(io->bio, NULL, io->bio->bi_inline_vecs, nr, 0);
		if (nr)
			memcpy(io->bio->bi_io_vec, io->buf->vecs,
			       nr * sizeof(*io->buf->vecs));
		eng->free[eng->nr_free++] = io;
	}
	return 0;
}

/**
 * blkfloor_engine_free_io() - free the I/O slots, bios and data buffers
 * @run: the run; none of its bios is in flight (its kthread drained them,
 *	or never started)
 *
 * All a run needs to do I/O, which is most of its memory (up to 64 MiB of
 * buffers, shared or, for verify and random-data writes, one per slot):
 * freed as soon as the run ends, while what readers need (the ring, the
 * error log, the published totals) stays until the run is trimmed. A bi_end_io still
 * finishing reads only @run, never its slot or bio, once the slot is on
 * run->done (see blkfloor_end_io()). Idempotent.
 */
void blkfloor_engine_free_io(struct blkfloor_run *run)
{
	struct blkfloor_engine *eng = &run->eng;
	unsigned int i;

	for (i = 0; eng->ios && i < run->p.qd; i++) {
		struct blkfloor_io *io = &eng->ios[i];

		if (io->bio) {
			bio_uninit(io->bio);
			kfree(io->bio);
		}
		if (io->buf && io->buf != &eng->shared) {
			blkfloor_buf_free(io->buf);
			kfree(io->buf);
		}
	}
	blkfloor_buf_free(&eng->shared);
	kvfree(eng->ios);
	kvfree(eng->free);
	kvfree(eng->acc);
	eng->ios = NULL;
	eng->free = NULL;
	eng->nr_free = 0;
	eng->acc = NULL;
}

/**
 * blkfloor_engine_free() - free what blkfloor_engine_init() allocated
 * @run: the run; its kthread is gone or was never started
 */
void blkfloor_engine_free(struct blkfloor_run *run)
{
	unsigned int i;

	blkfloor_engine_free_io(run);
	for (i = 0; run->ring.slots && i < run->ring.nr; i++)
		blkfloor_iv_release(&run->ring.slots[i]);
	kvfree(run->ring.slots);
	run->ring.slots = NULL;
	kvfree(run->err_log);
	run->err_log = NULL;
}

/* Byte limit from MAX_BYTES and LOOPS (the caller made LOOPS 1 if no limit). */
static u64 blkfloor_byte_limit(const struct blkfloor_run *run)
{
	const struct blkfloor_params *p = &run->p;
	u64 limit = p->max_bytes ?: U64_MAX, loops_bytes;

	if (p->loops &&
	    !check_mul_overflow((u64)p->loops, run->eng.pass_bytes,
				&loops_bytes))
		limit = min(limit, loops_bytes);
	return limit;
}

/**
 * blkfloor_run_start() - create a run's kthread
 * @run: the run, its engine initialized and its id assigned
 *
 * The kthread is woken by whoever started the run, once it has answered
 * (see blkfloor_nl_run_start()), or by a stop.
 *
 * Return: 0 with the kthread created, or a negative errno.
 */
int blkfloor_run_start(struct blkfloor_run *run)
{
	struct blkfloor_engine *eng = &run->eng;
	struct blkfloor_params *p = &run->p;
	struct task_struct *task;
	unsigned int k;

	eng->opf = REQ_OP_READ;
	if (p->op == BLKFLOOR_OP_WRITE) {
		eng->opf = REQ_OP_WRITE | REQ_SYNC;
		if (p->flags & BLKFLOOR_F_FUA)
			eng->opf |= REQ_FUA;
		if (p->flags & BLKFLOOR_F_PREFLUSH)
			eng->opf |= REQ_PREFLUSH;
	} else if (p->op == BLKFLOOR_OP_DISCARD) {
		eng->opf = REQ_OP_DISCARD;
	} else if (p->op == BLKFLOOR_OP_WRITE_ZEROES) {
		eng->opf = REQ_OP_WRITE_ZEROES;
	}
	if (p->flags & BLKFLOOR_F_NOMERGE)
		eng->opf |= REQ_NOMERGE;
	/* Plug only where bios can merge: see blkfloor_submit(). */
	eng->plug = p->pattern == BLKFLOOR_PATTERN_SEQ &&
		    !(p->flags & BLKFLOOR_F_NOMERGE);
	if (p->flags & BLKFLOOR_F_FAILFAST)
		eng->opf |= REQ_FAILFAST_DEV | REQ_FAILFAST_TRANSPORT;
	eng->nblocks = div_u64(p->length, p->bs);
	eng->pass_bytes = eng->nblocks * p->bs;
	eng->byte_limit = blkfloor_byte_limit(run);
	/* k bits hold every block number (at least one bit: block 0). */
	k = max(fls64(eng->nblocks - 1), 1);
	eng->perm_mask = k == 64 ? U64_MAX : BIT_ULL(k) - 1;
	eng->perm_shift = DIV_ROUND_UP(k, 2);
	blkfloor_perm_pass(eng, p->seed, 0);
	/* Cannot trap: see the static_assert on BLKFLOOR_BS_MAX. */
	if (p->rate_bps)
		eng->rate_cost = mul_u64_u64_div_u64(p->bs,
						     (u64)NSEC_PER_SEC << BLKFLOOR_RATE_SHIFT,
						     p->rate_bps);
	if (p->rate_iops)
		eng->rate_cost = max(eng->rate_cost,
				     div64_u64((u64)NSEC_PER_SEC <<
					       BLKFLOOR_RATE_SHIFT,
					       p->rate_iops));
	if ((p->rate_bps || p->rate_iops) && !eng->rate_cost)
		eng->rate_cost = 1;
	/* rate_next + slack and rate_next + rate_cost must not wrap. */
	eng->rate_cost = min(eng->rate_cost, BLKFLOOR_RATE_COST_MAX);

	/* The kthread's: dropped when it ends (see blkfloor_thread()). */
	if (!try_module_get(THIS_MODULE))
		return -ESHUTDOWN;
	task = kthread_create(blkfloor_thread, run, "blkfloor/%u", run->id);
	if (IS_ERR(task)) {
		module_put(THIS_MODULE);
		return PTR_ERR(task);
	}
	kref_get(&run->kref);
	/* Held until the run is freed: bi_end_io and stops wake it. */
	get_task_struct(task);
	run->task = task;
	if (run->prepare) {
		run->pub.state = BLKFLOOR_STATE_PREPARING;
	} else {
		run->pub.state = BLKFLOOR_STATE_RUNNING;
		blkfloor_run_begin(run);
	}
	return 0;
}
