// SPDX-License-Identifier: GPL-2.0
/*
 * blkfloor: sustained block-device throughput measurement.
 *
 * Module init/exit, parameters and the run table (design.rst, "Run
 * lifecycle" and "Locking and lifetimes"). Nothing here waits for a
 * device: a running run holds the module, so an unload is refused.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cgroup.h>
#include <linux/kthread.h>
#include <linux/memcontrol.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/netlink.h>
#include <linux/notifier.h>
#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <net/net_namespace.h>
#include "blkfloor.h"

unsigned int blkfloor_keep_ended = 16;
module_param_named(keep_ended, blkfloor_keep_ended, uint, 0644);
MODULE_PARM_DESC(keep_ended, "Ended runs kept for reading, oldest freed first (default: 16)");

unsigned int blkfloor_keep_ended_mb = 2048;
module_param_named(keep_ended_mb, blkfloor_keep_ended_mb, uint, 0644);
MODULE_PARM_DESC(keep_ended_mb, "Memory ended runs may keep for reading, MiB (default: 2048); a run that could keep more is refused");

/* Run id -> run. Readers use RCU; the xarray's own lock orders writers. */
static DEFINE_XARRAY_ALLOC1(blkfloor_runs);
/* Adding and removing runs, the next id, the generation, unloading. */
static DEFINE_MUTEX(blkfloor_lock);
static u32 blkfloor_next_id;
/* Changes whenever a run is listed or unlisted (RUN_GET dumps check it). */
static u32 blkfloor_gen;
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
	/* (the last bi_end_io may still be about to wake run->task) */
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
 * blkfloor_run_stop() - ask a run to stop, without waiting for it
 * @run: the run
 *
 * The kthread submits no more and ends once the bios in flight have
 * completed, as late as the device completes them: a hung device keeps a
 * run in STOPPING for as long as it hangs, and nobody waits for that here
 * (a netlink request, an owner's exit). The end is published by the
 * kthread (RUN_END_NTF). A run that has ended already is left as it was.
 */
void blkfloor_run_stop(struct blkfloor_run *run)
{
	WRITE_ONCE(run->stop_req, true);
	spin_lock(&run->lock);
	if (run->pub.state == BLKFLOOR_STATE_RUNNING ||
	    run->pub.state == BLKFLOOR_STATE_PREPARING)
		run->pub.state = BLKFLOOR_STATE_STOPPING;
	spin_unlock(&run->lock);
	/* A task reference is held until the run is freed. */
	wake_up_process(run->task);
}

static bool blkfloor_run_ended(struct blkfloor_run *run)
{
	bool ended;

	spin_lock(&run->lock);
	ended = blkfloor_state_ended(run->pub.state);
	spin_unlock(&run->lock);
	return ended;
}

/**
 * blkfloor_run_on_dev() - the run that has a device
 * @devt: the device
 *
 * Return: the id of a listed run on @devt that has not ended, or 0.
 */
u32 blkfloor_run_on_dev(dev_t devt)
{
	struct blkfloor_run *run;
	unsigned long index;
	u32 id = 0;

	rcu_read_lock();
	xa_for_each(&blkfloor_runs, index, run) {
		if (run->devt == devt && !blkfloor_run_ended(run)) {
			id = run->id;
			break;
		}
	}
	rcu_read_unlock();
	return id;
}

/**
 * blkfloor_run_kept_max() - the most a run may keep once it has ended
 * @p: its parameters
 *
 * Every slot of its ring holding an interval with every histogram bucket
 * set, and a full error log.
 *
 * Return: bytes.
 */
u64 blkfloor_run_kept_max(const struct blkfloor_params *p)
{
	return (u64)p->ring * (sizeof(struct blkfloor_iv) +
			       BLKFLOOR_HIST_NR * sizeof(struct blkfloor_hist_entry)) +
	       (u64)p->err_log * sizeof(struct blkfloor_err_entry);
}

/**
 * blkfloor_runs_gen() - the run table's generation
 *
 * Return: a number that changes whenever a run is listed or unlisted.
 */
u32 blkfloor_runs_gen(void)
{
	return READ_ONCE(blkfloor_gen);
}

/* Unlist a run onto @gone, with the table's reference. blkfloor_lock held. */
static void blkfloor_run_unlist(struct blkfloor_run *run, struct list_head *gone)
{
	xa_erase(&blkfloor_runs, run->id);
	WRITE_ONCE(blkfloor_gen, blkfloor_gen + 1);
	list_add_tail(&run->node, gone);
}

/* Drop the table's references on the runs on @gone; blkfloor_lock not held. */
static void blkfloor_runs_release(struct list_head *gone)
{
	struct blkfloor_run *run, *tmp;

	list_for_each_entry_safe(run, tmp, gone, node) {
		list_del_init(&run->node);
		blkfloor_run_put(run);
	}
}

/*
 * Unlist the oldest ended runs while more than keep_ended have ended or
 * they keep more than keep_ended_mb, sparing @spare (just ended, its last
 * intervals still to be read). Which runs count is decided in one walk: a
 * run ending meanwhile is neither counted nor trimmed. blkfloor_lock held.
 */
static void blkfloor_trim_ended(struct list_head *gone,
				struct blkfloor_run *spare)
{
	u64 cap = (u64)READ_ONCE(blkfloor_keep_ended_mb) << 20, kept = 0;
	unsigned int keep = READ_ONCE(blkfloor_keep_ended), ended = 0;
	struct blkfloor_run *run, *tmp;
	unsigned long index;
	LIST_HEAD(counted);

	xa_for_each(&blkfloor_runs, index, run) {
		if (!blkfloor_run_ended(run))
			continue;
		ended++;
		if (check_add_overflow(kept, READ_ONCE(run->kept_bytes), &kept))
			kept = U64_MAX;
		if (run != spare)
			list_add_tail(&run->node, &counted);
	}
	list_for_each_entry_safe(run, tmp, &counted, node) {
		list_del_init(&run->node);
		if (ended <= keep && kept <= cap)
			continue;
		kept -= min(kept, READ_ONCE(run->kept_bytes));
		ended--;
		blkfloor_run_unlist(run, gone);
	}
}

/**
 * blkfloor_runs_trim() - trim the ended runs beyond what is kept
 * @spare: a run not to trim (the caller's, which just ended)
 *
 * Called by a run's kthread once the run has ended, so that runs which
 * end together do not all linger until the next RUN_START.
 */
void blkfloor_runs_trim(struct blkfloor_run *spare)
{
	LIST_HEAD(gone);

	mutex_lock(&blkfloor_lock);
	blkfloor_trim_ended(&gone, spare);
	mutex_unlock(&blkfloor_lock);
	blkfloor_runs_release(&gone);
}

/**
 * blkfloor_run_add() - assign an id, create the kthread and list the run
 * @run: the run, its device open and its engine initialized
 * @busy: set to the id of the run the device has, on -EBUSY
 *
 * The table takes over the caller's reference; the caller keeps its own
 * and wakes the kthread (wake_up_process(run->task)).
 *
 * Return: 0, -ESHUTDOWN while the module unloads, -EBUSY when the device
 * has a run, -ENOMEM, or the kthread error.
 */
int blkfloor_run_add(struct blkfloor_run *run, u32 *busy)
{
	LIST_HEAD(gone);
	int ret;

	mutex_lock(&blkfloor_lock);
	if (blkfloor_unloading) {
		ret = -ESHUTDOWN;
		goto out_unlock;
	}
	/* One run per device: the claim lets a holder claim twice. */
	*busy = blkfloor_run_on_dev(run->devt);
	if (*busy) {
		ret = -EBUSY;
		goto out_unlock;
	}
	/* Before the new run is listed: it must not count as ended. */
	blkfloor_trim_ended(&gone, NULL);
	/* The id first, so that listing cannot fail; listed ids are skipped. */
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
	WRITE_ONCE(blkfloor_gen, blkfloor_gen + 1);
out_unlock:
	mutex_unlock(&blkfloor_lock);
	blkfloor_runs_release(&gone);
	return ret;
}

/* A socket was released: stop the runs it owns (atomic context). */
static int blkfloor_netlink_notify(struct notifier_block *nb,
				   unsigned long state, void *data)
{
	struct netlink_notify *notify = data;
	struct blkfloor_run *run;
	unsigned long index;

	if (state != NETLINK_URELEASE || notify->protocol != NETLINK_GENERIC ||
	    !net_eq(notify->net, &init_net) || !notify->portid)
		return NOTIFY_DONE;

	/* Runs and their tasks are freed after a grace period. */
	rcu_read_lock();
	xa_for_each(&blkfloor_runs, index, run)
		if (run->owner_portid == notify->portid)
			blkfloor_run_stop(run);
	rcu_read_unlock();
	return NOTIFY_OK;
}

static struct notifier_block blkfloor_netlink_notifier = {
	.notifier_call = blkfloor_netlink_notify,
};

/* Free every run (all have ended: a running one holds the module). */
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

	/* Before the family: no owner's release may go unseen. */
	ret = netlink_register_notifier(&blkfloor_netlink_notifier);
	if (ret)
		return ret;
	ret = blkfloor_nl_init();
	if (ret)
		goto out_unregister;
	return 0;

out_unregister:
	netlink_unregister_notifier(&blkfloor_netlink_notifier);
	return ret;
}

static void __exit blkfloor_exit(void)
{
	blkfloor_runs_destroy();
	blkfloor_nl_exit();
	netlink_unregister_notifier(&blkfloor_netlink_notifier);
	/* A blkfloor_end_io() may still be returning through our text. */
	synchronize_rcu_tasks();
	/* Runs are freed by RCU callbacks in this module's text. */
	rcu_barrier();
	xa_destroy(&blkfloor_runs);
}

module_init(blkfloor_init);
module_exit(blkfloor_exit);

MODULE_DESCRIPTION("Sustained block-device throughput measurement");
MODULE_AUTHOR("The blkfloor authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(BLKFLOOR_VERSION);
MODULE_ALIAS_GENL_FAMILY(BLKFLOOR_FAMILY_NAME);
