// SPDX-License-Identifier: GPL-2.0
/*
 * blkfloor: sustained block-device throughput measurement.
 *
 * Module init/exit, parameters and the run table.
 *
 * Runs live in the xarray blkfloor_runs, indexed by id (ids count up, so
 * index order is age order until they wrap after 2^32 - 1 runs; a live
 * id is never given twice), from RUN_START until they are trimmed (more
 * than keep_ended ended runs) or the module is unloaded; ended runs stay so
 * their totals and intervals can still be read. The table holds one
 * reference on each run; lookups take another under rcu_read_lock(), and a
 * run is freed after a grace period.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cgroup.h>
#include <linux/kthread.h>
#include <linux/memcontrol.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/netlink.h>
#include <linux/notifier.h>
#include <linux/rcupdate.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <net/net_namespace.h>
#include "blkfloor.h"

unsigned int g_keep_ended = 16;
module_param_named(keep_ended, g_keep_ended, uint, 0644);
MODULE_PARM_DESC(keep_ended, "Ended runs kept for reading, oldest freed first (default: 16)");

/* Run id -> run. Readers use RCU; the xarray's own lock orders writers. */
static DEFINE_XARRAY_ALLOC1(blkfloor_runs);
/*
 * Serializes adding and removing runs (the trim decision, the next id, the
 * unloading flag). Lookups do not take it. Never held while a run is
 * stopped: a stop waits for the run's bios, as long as the device takes.
 */
static DEFINE_MUTEX(blkfloor_lock);
static u32 blkfloor_next_id;
static bool blkfloor_unloading;

/**
 * blkfloor_run_alloc() - allocate an empty run
 *
 * Called in the context of the process starting the run: the run is
 * charged to its memory cgroup.
 *
 * Return: the run with one reference, or NULL.
 */
struct blkfloor_run *blkfloor_run_alloc(void)
{
	struct blkfloor_run *run = kzalloc(sizeof(*run), GFP_KERNEL_ACCOUNT);

	if (!run)
		return NULL;
	/* The caller is the process whose RUN_START this is. */
	run->memcg = get_mem_cgroup_from_mm(current->mm);
#ifdef CONFIG_BLK_CGROUP
	run->blkcg_css = task_get_css(current, io_cgrp_id);
#endif
	INIT_LIST_HEAD(&run->node);
	kref_init(&run->kref);
	mutex_init(&run->stop_lock);
	spin_lock_init(&run->lock);
	init_llist_head(&run->done);
	return run;
}

/* After a grace period: no bi_end_io still looks at the run or its task. */
static void blkfloor_run_free_rcu(struct rcu_head *head)
{
	struct blkfloor_run *run = container_of(head, struct blkfloor_run,
						rcu);

	if (run->task)
		put_task_struct(run->task);
	mem_cgroup_put(run->memcg);
	if (run->blkcg_css)
		css_put(run->blkcg_css);
	kfree(run);
}

static void blkfloor_run_release(struct kref *kref)
{
	struct blkfloor_run *run = container_of(kref, struct blkfloor_run,
						kref);

	blkfloor_engine_free(run);
	blkfloor_target_close(run);
	mutex_destroy(&run->stop_lock);
	/*
	 * The last bi_end_io may still be between pushing its I/O (which let
	 * the kthread drain and exit) and waking run->task.
	 */
	call_rcu(&run->rcu, blkfloor_run_free_rcu);
}

/**
 * blkfloor_run_put() - drop a reference to a run
 * @run: the run (may be NULL)
 */
void blkfloor_run_put(struct blkfloor_run *run)
{
	if (run)
		kref_put(&run->kref, blkfloor_run_release);
}

/**
 * blkfloor_run_get() - look a run up by id
 * @id: run id
 *
 * Return: the run with a reference the caller must drop, or NULL.
 */
struct blkfloor_run *blkfloor_run_get(u32 id)
{
	struct blkfloor_run *run;

	rcu_read_lock();
	run = xa_load(&blkfloor_runs, id);
	/* Zero: removed and being released; its memory outlives this RCU. */
	if (run && !kref_get_unless_zero(&run->kref))
		run = NULL;
	rcu_read_unlock();
	return run;
}

/**
 * blkfloor_run_get_next() - the run with the smallest id above @id
 * @id: previous id (0 to start)
 *
 * Return: the run with a reference the caller must drop, or NULL.
 */
struct blkfloor_run *blkfloor_run_get_next(u32 id)
{
	unsigned long index = id;
	struct blkfloor_run *run;

	rcu_read_lock();
	do {
		run = xa_find_after(&blkfloor_runs, &index, U32_MAX,
				    XA_PRESENT);
	} while (run && !kref_get_unless_zero(&run->kref));
	rcu_read_unlock();
	return run;
}

/**
 * blkfloor_run_stop() - stop a run and wait until it has drained
 * @run: the run
 *
 * When this returns the kthread has exited: in-flight bios completed and the
 * device is released. A run that already ended is left as it was.
 */
void blkfloor_run_stop(struct blkfloor_run *run)
{
	mutex_lock(&run->stop_lock);
	if (run->task && !run->stopped) {
		WRITE_ONCE(run->stop_req, true);
		/* -EINTR: stopped before it ever ran (see there). */
		if (kthread_stop(run->task) == -EINTR)
			blkfloor_run_end_unstarted(run);
		run->stopped = true;
	}
	mutex_unlock(&run->stop_lock);
}

static bool blkfloor_run_ended(struct blkfloor_run *run)
{
	bool ended;

	spin_lock(&run->lock);
	ended = run->pub.state != BLKFLOOR_STATE_RUNNING;
	spin_unlock(&run->lock);
	return ended;
}

/*
 * Take a run out of the table onto @gone, for blkfloor_runs_release(); the
 * table's reference goes with it. blkfloor_lock held.
 */
static void blkfloor_run_unlist(struct blkfloor_run *run, struct list_head *gone)
{
	xa_erase(&blkfloor_runs, run->id);
	list_add_tail(&run->node, gone);
}

/* Stop and drop the runs unlisted onto @gone; blkfloor_lock not held. */
static void blkfloor_runs_release(struct list_head *gone)
{
	struct blkfloor_run *run, *tmp;

	list_for_each_entry_safe(run, tmp, gone, node) {
		list_del_init(&run->node);
		blkfloor_run_stop(run);
		blkfloor_run_put(run);
	}
}

/*
 * Unlist the oldest ended runs beyond keep_ended onto @gone; blkfloor_lock
 * held.
 */
static void blkfloor_trim_ended(struct list_head *gone)
{
	struct blkfloor_run *run;
	unsigned int ended = 0;
	unsigned long index;

	xa_for_each(&blkfloor_runs, index, run)
		ended += blkfloor_run_ended(run);
	xa_for_each(&blkfloor_runs, index, run) {
		if (ended <= READ_ONCE(g_keep_ended))
			break;
		if (!blkfloor_run_ended(run))
			continue;
		blkfloor_run_unlist(run, gone);
		ended--;
	}
}

/**
 * blkfloor_run_add() - assign an id, start the kthread and list the run
 * @run: the run, its device open and its engine initialized
 *
 * The table takes over the caller's reference; the caller gets a new one.
 *
 * Return: 0, -ESHUTDOWN while the module unloads, -ENOMEM, or the kthread
 * error.
 */
int blkfloor_run_add(struct blkfloor_run *run)
{
	LIST_HEAD(gone);
	int ret;

	mutex_lock(&blkfloor_lock);
	if (blkfloor_unloading) {
		ret = -ESHUTDOWN;
		goto out_unlock;
	}
	/*
	 * Trim before the new run is listed: it must not count as one of
	 * the ended runs kept, even if it ends before this returns.
	 */
	blkfloor_trim_ended(&gone);
	/*
	 * The slot first: once the kthread runs, listing it cannot fail.
	 * The next free id (1 to U32_MAX, after the last one given): an id
	 * still listed is skipped once the ids wrap (-EBUSY if all are).
	 */
	ret = xa_alloc_cyclic(&blkfloor_runs, &run->id, NULL,
			      XA_LIMIT(1, U32_MAX), &blkfloor_next_id,
			      GFP_KERNEL);
	if (ret < 0)
		goto out_unlock;
	ret = blkfloor_run_start(run);
	if (ret) {
		xa_release(&blkfloor_runs, run->id);
		goto out_unlock;
	}
	kref_get(&run->kref);
	xa_store(&blkfloor_runs, run->id, run, GFP_KERNEL);
out_unlock:
	mutex_unlock(&blkfloor_lock);
	blkfloor_runs_release(&gone);
	return ret;
}

/*
 * A netlink socket was released: stop the runs it owns. This only sets a
 * flag and wakes the kthreads (no sleeping here); each run drains and
 * releases its device in its own kthread.
 */
static int blkfloor_netlink_notify(struct notifier_block *nb,
				   unsigned long state, void *data)
{
	struct netlink_notify *notify = data;
	struct blkfloor_run *run;
	unsigned long index;

	if (state != NETLINK_URELEASE || notify->protocol != NETLINK_GENERIC ||
	    !net_eq(notify->net, &init_net) || !notify->portid)
		return NOTIFY_DONE;

	/*
	 * A run and its task reference are freed after a grace period: both
	 * stay valid for this walk even if the run is removed meanwhile.
	 */
	rcu_read_lock();
	xa_for_each(&blkfloor_runs, index, run) {
		if (run->owner_portid != notify->portid)
			continue;
		WRITE_ONCE(run->stop_req, true);
		wake_up_process(run->task);
	}
	rcu_read_unlock();
	return NOTIFY_OK;
}

static struct notifier_block blkfloor_netlink_notifier = {
	.notifier_call = blkfloor_netlink_notify,
};

/*
 * Stop and free every run; no new one can start afterwards. The runs are
 * taken out of the table first: while they drain, a lookup finds no run
 * instead of waiting for the drain.
 */
static void blkfloor_runs_destroy(void)
{
	struct blkfloor_run *run;
	unsigned long index;
	LIST_HEAD(gone);

	mutex_lock(&blkfloor_lock);
	blkfloor_unloading = true;
	xa_for_each(&blkfloor_runs, index, run)
		blkfloor_run_unlist(run, &gone);
	mutex_unlock(&blkfloor_lock);
	blkfloor_runs_release(&gone);
}

static int __init blkfloor_init(void)
{
	int ret;

	/*
	 * The notifier before the family: a socket that starts an owned run
	 * must not be released unseen.
	 */
	ret = netlink_register_notifier(&blkfloor_netlink_notifier);
	if (ret)
		return ret;
	ret = blkfloor_nl_init();
	if (ret)
		goto out_unregister;
	pr_info("version %s loaded\n", BLKFLOOR_VERSION);
	return 0;

out_unregister:
	netlink_unregister_notifier(&blkfloor_netlink_notifier);
	return ret;
}

static void __exit blkfloor_exit(void)
{
	/* Runs exist only after init; they go first (they multicast). */
	blkfloor_runs_destroy();
	blkfloor_nl_exit();
	netlink_unregister_notifier(&blkfloor_netlink_notifier);
	/* Runs are freed by RCU callbacks in this module's text. */
	rcu_barrier();
	xa_destroy(&blkfloor_runs);
	pr_info("unloaded\n");
}

module_init(blkfloor_init);
module_exit(blkfloor_exit);

MODULE_DESCRIPTION("Sustained block-device throughput measurement");
MODULE_AUTHOR("The blkfloor authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(BLKFLOOR_VERSION);
MODULE_ALIAS_GENL_FAMILY(BLKFLOOR_FAMILY_NAME);
