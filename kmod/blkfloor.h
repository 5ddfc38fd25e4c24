/* SPDX-License-Identifier: GPL-2.0 */
/*
 * blkfloor: internal structures.
 *
 * A run is one kthread keeping qd bios in flight against one block device.
 * The kthread does all submission and all accounting; bi_end_io only stamps
 * the completion time and pushes the I/O on a lock-free list.
 */
#ifndef _BLKFLOOR_H
#define _BLKFLOOR_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/sched.h>
#include <linux/blkfloor.h>
#include "compat.h"
#include "stats.h"

#define BLKFLOOR_VERSION	"0.1.0"

extern unsigned int blkfloor_keep_ended;
extern unsigned int blkfloor_keep_ended_mb;

/**
 * struct blkfloor_params - what a run was asked to do (immutable once running)
 * @path: device path
 * @op: enum blkfloor_op
 * @pattern: enum blkfloor_pattern
 * @data: enum blkfloor_data
 * @bs: bytes per request
 * @qd: requests in flight
 * @loops: passes over the region (0: not limited by passes)
 * @ring: closed intervals kept
 * @flags: enum blkfloor_flags
 * @err_limit: errors tolerated before the run fails
 * @err_log: failed I/Os kept in the error log (the first ones)
 * @seed: PRNG seed for offsets and data
 * @offset: region start, bytes
 * @length: region length, bytes (resolved: never 0 once running)
 * @max_bytes: byte limit (0: none)
 * @max_time_ns: time limit (0: none)
 * @rate_bps: bytes/s cap (0: none)
 * @rate_iops: I/Os per second cap (0: none)
 * @interval_ns: interval length
 */
struct blkfloor_params {
	char path[BLKFLOOR_PATH_MAX + 1];
	u8 op;
	u8 pattern;
	u8 data;
	u32 bs;
	u32 qd;
	u32 loops;
	u32 ring;
	u32 flags;
	u32 err_limit;
	u32 err_log;
	u64 seed;
	u64 offset;
	u64 length;
	u64 max_bytes;
	u64 max_time_ns;
	u64 rate_bps;
	u64 rate_iops;
	u64 interval_ns;
};

/**
 * struct blkfloor_buf - pages of one data buffer, as bvecs
 * @nr: entries in @vecs
 * @vecs: physically contiguous chunks, bs bytes in total
 */
struct blkfloor_buf {
	unsigned int nr;
	struct bio_vec *vecs;
};

/**
 * struct blkfloor_io - one request slot, reused for the whole run
 * @node: on the run's completion list
 * @run: owner
 * @bio: preallocated bio, its bvec table filled once
 * @buf: data buffer: its own for reads (the device writes into it, and
 *	what a bio read is checked after it completes: integrity, verify),
 *	for verify and random-data writes; the shared one for other writes
 * @submit_ns: ktime_get_ns() just before submit_bio()
 * @done_ns: ktime_get_ns() in bi_end_io, 0 while in flight
 * @sector: where it went
 * @gen: pass over the region it belonged to
 * @inflight: submitted and not yet accounted (kthread only)
 */
struct blkfloor_io {
	struct llist_node node;
	struct blkfloor_run *run;
	struct bio *bio;
	struct blkfloor_buf *buf;
	u64 submit_ns;
	u64 done_ns;
	sector_t sector;
	u64 gen;
	bool inflight;
};

/**
 * struct blkfloor_engine - state the kthread alone touches
 * @ios: qd request slots (all the @ios..@acc allocations are freed when the
 *	run ends; see blkfloor_engine_free_io())
 * @free: stack of idle slots
 * @nr_free: slots on @free
 * @inflight: slots submitted and not yet accounted
 * @shared: the buffer zero-data and shared-data writes share (the
 *	device only reads it)
 * @pending: completions pulled but belonging to a later interval
 * @opf: operation and flags of every bio
 * @plug: plug batches (sequential runs that may merge)
 * @lbs: logical block size
 * @t0: ktime_get_ns() at start
 * @iv_start: absolute start of the live interval
 * @iv_end: absolute end of the live interval
 * @iv_index: index of the live interval
 * @nblocks: bs-sized blocks in the region
 * @pass_bytes: bytes in one pass (nblocks * bs)
 * @byte_limit: stop submitting at this many bytes (U64_MAX: none)
 * @time_end: stop submitting at this absolute time (U64_MAX: none)
 * @submitted: bytes submitted
 * @seq_next: next block for sequential runs
 * @perm_next: index in the pass of the next block, random runs
 * @perm_pass: pass of the next block, random runs
 * @perm_mask: 2^k - 1, where k bits hold every block number (random runs)
 * @perm_shift: the permutation's xor-shift, half of k rounded up
 * @perm_key: round keys of the permutation of pass @perm_pass
 * @rate_cost: ns per request at the rate cap, << 8 (0: uncapped)
 * @rate_next: earliest next submission, ns << 8
 * @bytes_total: bytes completed successfully
 * @ios_total: I/Os completed successfully
 * @errors_total: I/Os that failed
 * @first_err: errno of the first failure
 * @err_logged: entries of run->err_log filled
 * @err_log_dropped: failures after the error log was full
 * @acc: the live interval
 */
struct blkfloor_engine {
	struct blkfloor_io *ios;
	struct blkfloor_io **free;
	unsigned int nr_free;
	unsigned int inflight;
	struct blkfloor_buf shared;
	struct llist_node *pending;
	blk_opf_t opf;
	bool plug;
	unsigned int lbs;
	u64 t0;
	u64 iv_start;
	u64 iv_end;
	u64 iv_index;
	u64 nblocks;
	u64 pass_bytes;
	u64 byte_limit;
	u64 time_end;
	u64 submitted;
	u64 seq_next;
	u64 perm_next;
	u64 perm_pass;
	u64 perm_mask;
	unsigned int perm_shift;
	u64 perm_key[3];
	u64 rate_cost;
	u64 rate_next;
	u64 bytes_total;
	u64 ios_total;
	u64 errors_total;
	int first_err;
	u32 err_logged;
	u64 err_log_dropped;
	struct blkfloor_acc *acc;
};

/**
 * struct blkfloor_run_pub - what a run publishes to readers
 * @state: enum blkfloor_state
 * @err: negative errno when FAILED
 * @t0: ktime_get_ns() at the first I/O (0 until then)
 * @start_real: CLOCK_REALTIME at the first I/O, ns (0 until then)
 * @elapsed_ns: run time, set when the run ends
 * @bytes: bytes completed, as of the last closed interval or the end
 * @ios: I/Os completed, likewise
 * @errors: failed I/Os, likewise
 * @mismatches: verify failures
 * @nr_mismatch_lba: valid entries of @mismatch_lba
 * @mismatch_lba: the first mismatching LBAs (512-byte sectors)
 * @err_logged: valid entries of run->err_log (set once each is written)
 * @err_log_dropped: failures not logged, as of the last closed interval
 *
 * Written by the run's kthread and read by netlink, both under run->lock;
 * readers copy it whole.
 */
struct blkfloor_run_pub {
	u8 state;
	int err;
	u64 t0;
	u64 start_real;
	u64 elapsed_ns;
	u64 bytes;
	u64 ios;
	u64 errors;
	u64 mismatches;
	u32 nr_mismatch_lba;
	u64 mismatch_lba[BLKFLOOR_MISMATCH_LBAS];
	u32 err_logged;
	u64 err_log_dropped;
};

/**
 * struct blkfloor_err_entry - one failed I/O in a run's error log
 * @sector: first LBA, 512-byte sectors
 * @time_ns: completion, ns since the run started
 * @lat_ns: completion less submission, ns
 * @bytes: length
 * @err: the bio's status as a negative errno
 * @op: enum blkfloor_op
 * @class: enum blkfloor_err_class
 */
struct blkfloor_err_entry {
	u64 sector;
	u64 time_ns;
	u64 lat_ns;
	u32 bytes;
	s32 err;
	u8 op;
	u8 class;
};

/**
 * struct blkfloor_run - one run
 * @node: on a private list of runs being released, once out of the table
 * @kref: the run table holds one reference, the kthread one while it
 *	runs, every other user another
 * @id: run id, from 1
 * @p: parameters
 * @owner_portid: netlink port that owns it (0: unowned)
 * @bd: the target, open exclusively while the kthread runs
 * @devt: the target's device number (one run per device)
 * @dev_size: device size, bytes
 * @max_io_bytes: largest request the queue takes for @p.op
 * @prepare: the kthread writes back and drops the device's page cache
 *	over the region before the first I/O (state PREPARING until then)
 * @memcg: memory cgroup of the process that started the run (charged for
 *	the run's memory, the kthread's allocations included; NULL: none)
 * @blkcg_css: io cgroup of the process that started the run: the
 *	kthread's bios are charged to it (io.max, io.weight, io.stat), as
 *	that process's own would be (NULL: none)
 * @task: the kthread (a task reference is held until the run is freed);
 *	nobody waits for it: it ends by itself, holding a reference on the
 *	run and on the module until then (see blkfloor_thread())
 * @stop_req: stop requested (RUN_STOP, owner went away)
 * @kept_bytes: what the run keeps once ended (ring slots, histograms,
 *	error log), set by the kthread when it ends
 * @done: completed I/Os, pushed by bi_end_io
 * @eng: engine state, kthread only
 * @lock: protects @pub and @ring (taken per interval, never per I/O)
 * @pub: the state and totals readers see
 * @ring: the last @p.ring closed intervals
 * @err_log: the first @p.err_log failed I/Os (NULL when @p.err_log is 0);
 *	entry i is written by the kthread before @pub.err_logged passes i
 * @rcu: the run and its task reference are freed after a grace period
 *	(bi_end_io reads them under rcu_read_lock())
 */
struct blkfloor_run {
	struct list_head node;
	struct kref kref;
	u32 id;
	struct blkfloor_params p;
	u32 owner_portid;
	struct blkfloor_bdev bd;
	dev_t devt;
	u64 dev_size;
	u32 max_io_bytes;
	bool prepare;
	struct mem_cgroup *memcg;
	struct cgroup_subsys_state *blkcg_css;
	struct task_struct *task;
	bool stop_req;
	u64 kept_bytes;
	struct llist_head done;
	struct blkfloor_engine eng;

	spinlock_t lock; /* pub, ring */
	struct blkfloor_run_pub pub;
	struct blkfloor_ring ring;
	struct blkfloor_err_entry *err_log;
	struct rcu_head rcu;
};

/* main.c */
struct blkfloor_run *blkfloor_run_alloc(void);
struct blkfloor_run *blkfloor_run_get(u32 id);
struct blkfloor_run *blkfloor_run_get_next(u32 id);
void blkfloor_run_put(struct blkfloor_run *run);
int blkfloor_run_add(struct blkfloor_run *run, u32 *busy);
u32 blkfloor_run_on_dev(dev_t devt);
void blkfloor_run_stop(struct blkfloor_run *run);
void blkfloor_runs_trim(struct blkfloor_run *spare);
u64 blkfloor_run_kept_max(const struct blkfloor_params *p);
u32 blkfloor_runs_gen(void);

/* A run in these states has ended: its kthread is gone or going. */
static inline bool blkfloor_state_ended(u8 state)
{
	return state != BLKFLOOR_STATE_RUNNING &&
	       state != BLKFLOOR_STATE_STOPPING &&
	       state != BLKFLOOR_STATE_PREPARING;
}

/* target.c */
int blkfloor_target_open(struct blkfloor_run *run, struct nlattr **attrs,
			 struct netlink_ext_ack *extack);
int blkfloor_target_prepare(struct blkfloor_run *run);
void blkfloor_target_close(struct blkfloor_run *run);
int blkfloor_target_max_io(struct block_device *bdev, u8 op);
int blkfloor_target_put_caps(struct sk_buff *skb, struct nlattr **attrs,
			     struct netlink_ext_ack *extack);

/* io.c */
int blkfloor_engine_init(struct blkfloor_run *run);
void blkfloor_engine_free_io(struct blkfloor_run *run);
void blkfloor_engine_free(struct blkfloor_run *run);
int blkfloor_run_start(struct blkfloor_run *run);
bool blkfloor_own_buf(const struct blkfloor_params *p);

/* netlink.c */
extern struct genl_family blkfloor_nl_family;

int blkfloor_nl_init(void);
void blkfloor_nl_exit(void);
bool blkfloor_nl_notify_interval(struct blkfloor_run *run,
				 const struct blkfloor_iv *iv);
void blkfloor_nl_notify_end(struct blkfloor_run *run);

#endif /* _BLKFLOOR_H */
