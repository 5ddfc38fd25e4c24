// SPDX-License-Identifier: GPL-2.0
/*
 * blkfloor: generic netlink handlers and notifications.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <net/genetlink.h>
#include "blkfloor.h"
#include "nl_spec.h"

#define BLKFLOOR_BS_DEFAULT	(128U << 10)
#define BLKFLOOR_QD_DEFAULT	32U
/* One BLKFLOOR_IV_A_HIST nest: index, pad, count. */
#define BLKFLOOR_HIST_NEST_SIZE	(nla_total_size(0) + nla_total_size(sizeof(u32)) + \
				 nla_total_size_64bit(sizeof(u64)))
/* Room for an interval message with every histogram bucket set. */
#define BLKFLOOR_IV_MSG_MAX	(NLMSG_GOODSIZE + \
				 BLKFLOOR_HIST_NR * BLKFLOOR_HIST_NEST_SIZE)

/* What RUN_GET reports: the published state, copied under run->lock. */
static void blkfloor_nl_snap(struct blkfloor_run *run,
			     struct blkfloor_run_pub *s,
			     struct blkfloor_ring *ring)
{
	spin_lock(&run->lock);
	*s = run->pub;
	*ring = run->ring;
	spin_unlock(&run->lock);
	if (!blkfloor_state_ended(s->state) && s->t0)
		s->elapsed_ns = ktime_get_ns() - s->t0;
}

static int blkfloor_nl_put_u64(struct sk_buff *skb, int type, u64 v)
{
	return nla_put_u64_64bit(skb, type, v, BLKFLOOR_A_PAD);
}

static int blkfloor_nl_put_params(struct sk_buff *skb,
				  const struct blkfloor_run *run)
{
	const struct blkfloor_params *p = &run->p;

	if (nla_put_string(skb, BLKFLOOR_A_DEV_PATH, p->path) ||
	    nla_put_u32(skb, BLKFLOOR_A_OP, p->op) ||
	    nla_put_u32(skb, BLKFLOOR_A_PATTERN, p->pattern) ||
	    blkfloor_nl_put_u64(skb, BLKFLOOR_A_SEED, p->seed) ||
	    nla_put_u32(skb, BLKFLOOR_A_BS, p->bs) ||
	    nla_put_u32(skb, BLKFLOOR_A_QD, p->qd) ||
	    blkfloor_nl_put_u64(skb, BLKFLOOR_A_OFFSET, p->offset) ||
	    blkfloor_nl_put_u64(skb, BLKFLOOR_A_LENGTH, p->length) ||
	    (p->max_bytes &&
	     blkfloor_nl_put_u64(skb, BLKFLOOR_A_MAX_BYTES, p->max_bytes)) ||
	    (p->max_time_ns &&
	     blkfloor_nl_put_u64(skb, BLKFLOOR_A_MAX_TIME_NS, p->max_time_ns)) ||
	    (p->loops && nla_put_u32(skb, BLKFLOOR_A_LOOPS, p->loops)) ||
	    (p->rate_bps &&
	     blkfloor_nl_put_u64(skb, BLKFLOOR_A_RATE_BPS, p->rate_bps)) ||
	    (p->rate_iops &&
	     blkfloor_nl_put_u64(skb, BLKFLOOR_A_RATE_IOPS, p->rate_iops)) ||
	    blkfloor_nl_put_u64(skb, BLKFLOOR_A_INTERVAL_NS, p->interval_ns) ||
	    nla_put_u32(skb, BLKFLOOR_A_RING, p->ring) ||
	    nla_put_u32(skb, BLKFLOOR_A_FLAGS, p->flags) ||
	    nla_put_u32(skb, BLKFLOOR_A_DATA, p->data) ||
	    nla_put_u32(skb, BLKFLOOR_A_ERR_LIMIT, p->err_limit) ||
	    nla_put_u32(skb, BLKFLOOR_A_ERR_LOG, p->err_log))
		return -EMSGSIZE;
	return 0;
}

/*
 * Fill one message describing @run (RUN_GET, RUN_START, RUN_END_NTF...);
 * @cb is the dump's state in a dump, else NULL.
 */
static int blkfloor_nl_fill_run(struct sk_buff *skb, struct blkfloor_run *run,
				u32 portid, u32 seq, int flags, u8 cmd,
				struct netlink_callback *cb)
{
	struct blkfloor_run_pub s;
	struct blkfloor_ring ring;
	void *hdr;
	u32 i;

	hdr = genlmsg_put(skb, portid, seq, &blkfloor_nl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	blkfloor_nl_snap(run, &s, &ring);
	if (nla_put_u32(skb, BLKFLOOR_A_RUN_ID, run->id) ||
	    blkfloor_nl_put_params(skb, run) ||
	    nla_put_u32(skb, BLKFLOOR_A_STATE, s.state) ||
	    nla_put_s32(skb, BLKFLOOR_A_ERRNO, s.err) ||
	    blkfloor_nl_put_u64(skb, BLKFLOOR_A_START_TIME_NS, s.start_real) ||
	    blkfloor_nl_put_u64(skb, BLKFLOOR_A_ELAPSED_NS, s.elapsed_ns) ||
	    blkfloor_nl_put_u64(skb, BLKFLOOR_A_BYTES, s.bytes) ||
	    blkfloor_nl_put_u64(skb, BLKFLOOR_A_IOS, s.ios) ||
	    blkfloor_nl_put_u64(skb, BLKFLOOR_A_ERRORS, s.errors) ||
	    blkfloor_nl_put_u64(skb, BLKFLOOR_A_INTERVALS, ring.closed) ||
	    blkfloor_nl_put_u64(skb, BLKFLOOR_A_DROPPED, ring.dropped) ||
	    blkfloor_nl_put_u64(skb, BLKFLOOR_A_MISMATCHES, s.mismatches) ||
	    blkfloor_nl_put_u64(skb, BLKFLOOR_A_DEV_SIZE, run->dev_size) ||
	    nla_put_u32(skb, BLKFLOOR_A_DEV_LBS, run->eng.lbs) ||
	    nla_put_u32(skb, BLKFLOOR_A_MAX_IO_BYTES, run->max_io_bytes) ||
	    nla_put_u32(skb, BLKFLOOR_A_OWNER_PORTID, run->owner_portid) ||
	    blkfloor_nl_put_u64(skb, BLKFLOOR_A_ERR_LOG_DROPPED,
				s.err_log_dropped))
		goto err_cancel;
	for (i = 0; i < s.nr_mismatch_lba; i++)
		if (blkfloor_nl_put_u64(skb, BLKFLOOR_A_MISMATCH_LBA,
					s.mismatch_lba[i]))
			goto err_cancel;
	/* Only a message that is sent takes the dump's consistency check. */
	if (cb)
		genl_dump_check_consistent(cb, hdr);
	genlmsg_end(skb, hdr);
	return 0;

err_cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/* BLKFLOOR_IV_A_HIST: one nest per non-empty bucket, ascending. */
static int blkfloor_nl_put_hist(struct sk_buff *skb,
				const struct blkfloor_iv *iv)
{
	struct nlattr *nest;
	u32 i;

	for (i = 0; i < iv->nr_hist; i++) {
		nest = nla_nest_start(skb, BLKFLOOR_IV_A_HIST);
		if (!nest)
			return -EMSGSIZE;
		if (nla_put_u32(skb, BLKFLOOR_HIST_A_INDEX, iv->hist[i].index) ||
		    nla_put_u64_64bit(skb, BLKFLOOR_HIST_A_COUNT,
				      iv->hist[i].count, BLKFLOOR_HIST_A_PAD)) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
		nla_nest_end(skb, nest);
	}
	return 0;
}

/* BLKFLOOR_A_INTERVAL nest. */
static int blkfloor_nl_put_iv(struct sk_buff *skb, const struct blkfloor_iv *iv)
{
	struct nlattr *nest, *errs;
	unsigned int c;

	nest = nla_nest_start(skb, BLKFLOOR_A_INTERVAL);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, BLKFLOOR_IV_A_INDEX, iv->index,
			      BLKFLOOR_IV_A_PAD) ||
	    nla_put_u64_64bit(skb, BLKFLOOR_IV_A_START_NS, iv->start_ns,
			      BLKFLOOR_IV_A_PAD) ||
	    nla_put_u64_64bit(skb, BLKFLOOR_IV_A_END_NS, iv->end_ns,
			      BLKFLOOR_IV_A_PAD) ||
	    nla_put_u64_64bit(skb, BLKFLOOR_IV_A_BYTES, iv->bytes,
			      BLKFLOOR_IV_A_PAD) ||
	    nla_put_u64_64bit(skb, BLKFLOOR_IV_A_IOS, iv->ios,
			      BLKFLOOR_IV_A_PAD))
		goto err_cancel;
	errs = nla_nest_start(skb, BLKFLOOR_IV_A_ERRORS);
	if (!errs)
		goto err_cancel;
	/* Types in this nest are class + 1. */
	for (c = 0; c < __BLKFLOOR_ERR_MAX; c++)
		if (iv->errors[c] &&
		    nla_put_u64_64bit(skb, c + 1, iv->errors[c],
				      BLKFLOOR_IV_ERR_PAD))
			goto err_cancel;
	nla_nest_end(skb, errs);
	if (nla_put_u64_64bit(skb, BLKFLOOR_IV_A_LAT_MIN_NS, iv->lat_min,
			      BLKFLOOR_IV_A_PAD) ||
	    nla_put_u64_64bit(skb, BLKFLOOR_IV_A_LAT_MAX_NS, iv->lat_max,
			      BLKFLOOR_IV_A_PAD) ||
	    nla_put_u64_64bit(skb, BLKFLOOR_IV_A_LAT_SUM_NS, iv->lat_sum,
			      BLKFLOOR_IV_A_PAD) ||
	    blkfloor_nl_put_hist(skb, iv) ||
	    nla_put_u64_64bit(skb, BLKFLOOR_IV_A_BYTES_TOTAL, iv->bytes_total,
			      BLKFLOOR_IV_A_PAD) ||
	    nla_put_u32(skb, BLKFLOOR_IV_A_INFLIGHT, iv->inflight) ||
	    nla_put_u64_64bit(skb, BLKFLOOR_IV_A_OLDEST_NS, iv->oldest_ns,
			      BLKFLOOR_IV_A_PAD))
		goto err_cancel;
	nla_nest_end(skb, nest);
	return 0;

err_cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static bool blkfloor_nl_listening(void)
{
	return BLKFLOOR_MCAST_RESTRICTED &&
	       genl_has_listeners(&blkfloor_nl_family, &init_net,
				  BLKFLOOR_NLGRP_EVENTS);
}

/**
 * blkfloor_nl_notify_interval() - multicast a closed interval
 * @run: its run
 * @iv: the interval
 *
 * Called from the run's kthread once per interval.
 *
 * Return: true when at least one listener got it.
 */
bool blkfloor_nl_notify_interval(struct blkfloor_run *run,
				 const struct blkfloor_iv *iv)
{
	struct sk_buff *skb;
	void *hdr;

	if (!blkfloor_nl_listening())
		return false;
	skb = genlmsg_new(NLMSG_GOODSIZE +
			  iv->nr_hist * BLKFLOOR_HIST_NEST_SIZE, GFP_KERNEL);
	if (!skb)
		return false;
	hdr = genlmsg_put(skb, 0, 0, &blkfloor_nl_family, 0,
			  BLKFLOOR_CMD_INTERVAL_NTF);
	if (!hdr)
		goto err_free;
	if (nla_put_u32(skb, BLKFLOOR_A_RUN_ID, run->id) ||
	    blkfloor_nl_put_iv(skb, iv))
		goto err_free;
	genlmsg_end(skb, hdr);
	return !genlmsg_multicast(&blkfloor_nl_family, skb, 0,
				  BLKFLOOR_NLGRP_EVENTS, GFP_KERNEL);

err_free:
	nlmsg_free(skb);
	return false;
}

/**
 * blkfloor_nl_notify_end() - multicast a run's end
 * @run: the run, its final state published
 */
void blkfloor_nl_notify_end(struct blkfloor_run *run)
{
	struct sk_buff *skb;

	if (!blkfloor_nl_listening())
		return;
	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return;
	if (blkfloor_nl_fill_run(skb, run, 0, 0, 0, BLKFLOOR_CMD_RUN_END_NTF,
				 NULL)) {
		nlmsg_free(skb);
		return;
	}
	genlmsg_multicast(&blkfloor_nl_family, skb, 0, BLKFLOOR_NLGRP_EVENTS,
			  GFP_KERNEL);
}

static u64 blkfloor_nl_get_u64(struct nlattr *attr, u64 def)
{
	return attr ? nla_get_u64(attr) : def;
}

static u32 blkfloor_nl_get_u32(struct nlattr *attr, u32 def)
{
	return attr ? nla_get_u32(attr) : def;
}

/* Parameters from a RUN_START request, with the checks the policy can't do. */
static int blkfloor_nl_parse_params(struct blkfloor_run *run,
				    struct genl_info *info)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **tb = info->attrs;
	struct blkfloor_params *p = &run->p;

	if (tb[BLKFLOOR_A_DEV_PATH])
		nla_strscpy(p->path, tb[BLKFLOOR_A_DEV_PATH], sizeof(p->path));
	p->op = nla_get_u32(tb[BLKFLOOR_A_OP]);
	p->pattern = blkfloor_nl_get_u32(tb[BLKFLOOR_A_PATTERN],
					 BLKFLOOR_PATTERN_SEQ);
	p->data = blkfloor_nl_get_u32(tb[BLKFLOOR_A_DATA],
				      BLKFLOOR_DATA_RANDOM);
	p->seed = blkfloor_nl_get_u64(tb[BLKFLOOR_A_SEED], get_random_u64());
	p->bs = blkfloor_nl_get_u32(tb[BLKFLOOR_A_BS], BLKFLOOR_BS_DEFAULT);
	p->qd = blkfloor_nl_get_u32(tb[BLKFLOOR_A_QD], BLKFLOOR_QD_DEFAULT);
	p->offset = blkfloor_nl_get_u64(tb[BLKFLOOR_A_OFFSET], 0);
	p->length = blkfloor_nl_get_u64(tb[BLKFLOOR_A_LENGTH], 0);
	p->max_bytes = blkfloor_nl_get_u64(tb[BLKFLOOR_A_MAX_BYTES], 0);
	p->max_time_ns = blkfloor_nl_get_u64(tb[BLKFLOOR_A_MAX_TIME_NS], 0);
	p->loops = blkfloor_nl_get_u32(tb[BLKFLOOR_A_LOOPS], 0);
	p->rate_bps = blkfloor_nl_get_u64(tb[BLKFLOOR_A_RATE_BPS], 0);
	p->rate_iops = blkfloor_nl_get_u64(tb[BLKFLOOR_A_RATE_IOPS], 0);
	p->interval_ns = blkfloor_nl_get_u64(tb[BLKFLOOR_A_INTERVAL_NS],
					     BLKFLOOR_INTERVAL_DEFAULT_NS);
	p->ring = blkfloor_nl_get_u32(tb[BLKFLOOR_A_RING],
				      BLKFLOOR_RING_DEFAULT);
	p->flags = blkfloor_nl_get_u32(tb[BLKFLOOR_A_FLAGS], 0);
	p->err_limit = blkfloor_nl_get_u32(tb[BLKFLOOR_A_ERR_LIMIT], 0);
	p->err_log = blkfloor_nl_get_u32(tb[BLKFLOOR_A_ERR_LOG],
					 BLKFLOOR_ERR_LOG_DEFAULT);
	if (!p->max_bytes && !p->max_time_ns && !p->loops)
		p->loops = 1;

	if (p->op != BLKFLOOR_OP_READ && !(p->flags & BLKFLOOR_F_DESTRUCTIVE)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[BLKFLOOR_A_OP],
				    "write runs destroy data: set the destructive flag");
		return -EINVAL;
	}
	if ((p->flags & (BLKFLOOR_F_FUA | BLKFLOOR_F_PREFLUSH)) &&
	    p->op != BLKFLOOR_OP_WRITE) {
		NL_SET_ERR_MSG_ATTR(extack, tb[BLKFLOOR_A_FLAGS],
				    "FUA and preflush apply to write runs only");
		return -EINVAL;
	}
	if (p->data == BLKFLOOR_DATA_VERIFY) {
		if (p->op != BLKFLOOR_OP_READ && p->op != BLKFLOOR_OP_WRITE) {
			NL_SET_ERR_MSG_ATTR(extack, tb[BLKFLOOR_A_DATA],
					    "verify data applies to read and write runs only");
			return -EINVAL;
		}
		if ((u64)p->qd * p->bs > BLKFLOOR_VERIFY_MEM_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, tb[BLKFLOOR_A_QD],
					    "verify mode needs qd * bs <= 64 MiB");
			return -EINVAL;
		}
	}
	/* A buffer per slot: reads, and writes of unique blocks. */
	if (blkfloor_own_buf(p) && (u64)p->qd * p->bs > BLKFLOOR_VERIFY_MEM_MAX) {
		if (p->op == BLKFLOOR_OP_READ)
			NL_SET_ERR_MSG_ATTR(extack, tb[BLKFLOOR_A_QD],
					    "reads need qd * bs <= 64 MiB (a buffer per request)");
		else
			NL_SET_ERR_MSG_ATTR(extack, tb[BLKFLOOR_A_QD],
					    "random data needs qd * bs <= 64 MiB (a buffer per request); data shared does not");
		return -EINVAL;
	}
	if (blkfloor_run_kept_max(p) >
	    ((u64)READ_ONCE(blkfloor_keep_ended_mb) << 20)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[BLKFLOOR_A_RING],
				    "the ring's intervals could outgrow what ended runs may keep (module parameter keep_ended_mb): ask for a smaller ring");
		return -E2BIG;
	}
	if (p->flags & BLKFLOOR_F_OWNER)
		run->owner_portid = info->snd_portid;
	return 0;
}

/*
 * The device of RUN_START and DEV_CAPS: a file descriptor of the caller
 * (DEV_FD), or a path (DEV_PATH), which the module opens itself, checking
 * no permission on the device node: like mount(2), only for CAP_SYS_ADMIN.
 */
static int blkfloor_nl_check_dev(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *path = info->attrs[BLKFLOOR_A_DEV_PATH];

	if (!path) {
		if (GENL_REQ_ATTR_CHECK(info, BLKFLOOR_A_DEV_FD)) {
			NL_SET_ERR_MSG(info->extack,
				       "missing device file descriptor");
			return -EINVAL;
		}
		return 0;
	}
	if (info->attrs[BLKFLOOR_A_DEV_FD]) {
		NL_SET_ERR_MSG_ATTR(info->extack, path,
				    "give a device file descriptor or a path, not both");
		return -EINVAL;
	}
	if (!netlink_capable(skb, CAP_SYS_ADMIN)) {
		NL_SET_ERR_MSG_ATTR(info->extack, path,
				    "a device path needs CAP_SYS_ADMIN: pass an open device as dev-fd");
		return -EPERM;
	}
	return 0;
}

/*
 * A request that opens a device holds the module for its whole length:
 * the open can wait for the device (design.rst), and an unload meanwhile
 * must be refused, not queued in genl_unregister_family() with every
 * genetlink request of every family queued behind it.
 */
static int blkfloor_nl_hold_module(struct genl_info *info)
{
	if (try_module_get(THIS_MODULE))
		return 0;
	NL_SET_ERR_MSG(info->extack, "module is unloading");
	return -ESHUTDOWN;
}

static int blkfloor_nl_run_start(struct sk_buff *skb, struct genl_info *info)
{
	struct blkfloor_run *run;
	struct sk_buff *msg;
	u32 busy;
	int ret;

	ret = blkfloor_nl_check_dev(skb, info);
	if (ret)
		return ret;
	if (GENL_REQ_ATTR_CHECK(info, BLKFLOOR_A_OP)) {
		NL_SET_ERR_MSG(info->extack, "missing op");
		return -EINVAL;
	}

	run = blkfloor_run_alloc();
	if (!run)
		return -ENOMEM;
	ret = blkfloor_nl_parse_params(run, info);
	if (ret)
		goto out_put_run;
	ret = blkfloor_target_open(run, info->attrs, info->extack);
	if (ret)
		goto out_put_run;
	ret = blkfloor_engine_init(run);
	if (ret) {
		NL_SET_ERR_MSG(info->extack, "cannot allocate the run's buffers");
		goto out_put_run;
	}
	ret = -ENOMEM;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		goto out_put_run;
	ret = blkfloor_run_add(run, &busy);
	if (ret) {
		if (ret == -ESHUTDOWN)
			NL_SET_ERR_MSG(info->extack, "module is unloading");
		else if (ret == -EBUSY)
			blkfloor_err_busy(info->extack,
					  info->attrs[BLKFLOOR_A_DEV_FD] ?:
					  info->attrs[BLKFLOOR_A_DEV_PATH], busy);
		else
			NL_SET_ERR_MSG(info->extack, "cannot start the run");
		goto out_free_msg;
	}
	/*
	 * Listed, its kthread not yet woken: a request that cannot tell its
	 * caller which run it started (a full socket) stops the run before
	 * it does any I/O, rather than leave a run nobody knows to stop.
	 */
	ret = blkfloor_nl_fill_run(msg, run, info->snd_portid, info->snd_seq,
				   0, info->genlhdr->cmd, NULL);
	if (ret)
		nlmsg_free(msg);
	else
		ret = genlmsg_reply(msg, info);
	if (ret) {
		NL_SET_ERR_MSG(info->extack,
			       "the reply could not be sent: the run was stopped");
		blkfloor_run_stop(run);
	}
	wake_up_process(run->task);
	blkfloor_run_put(run);
	return ret;

out_free_msg:
	nlmsg_free(msg);
out_put_run:
	blkfloor_run_put(run);
	return ret;
}

/**
 * blkfloor_nl_run_start_doit() - BLKFLOOR_CMD_RUN_START
 * @skb: request
 * @info: request info
 *
 * Return: 0 (the reply describes the new run) or a negative errno.
 */
int blkfloor_nl_run_start_doit(struct sk_buff *skb, struct genl_info *info)
{
	int ret = blkfloor_nl_hold_module(info);

	if (ret)
		return ret;
	ret = blkfloor_nl_run_start(skb, info);
	module_put(THIS_MODULE);
	return ret;
}

/* The run a request names, with a reference; ERR_PTR with an extack. */
static struct blkfloor_run *blkfloor_nl_lookup(struct genl_info *info)
{
	struct nlattr *attr = info->attrs[BLKFLOOR_A_RUN_ID];
	struct blkfloor_run *run;

	if (GENL_REQ_ATTR_CHECK(info, BLKFLOOR_A_RUN_ID)) {
		NL_SET_ERR_MSG(info->extack, "missing run id");
		return ERR_PTR(-EINVAL);
	}
	run = blkfloor_run_get(nla_get_u32(attr));
	if (!run) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr, "no such run");
		return ERR_PTR(-ENOENT);
	}
	return run;
}

static int blkfloor_nl_reply_run(struct blkfloor_run *run,
				 struct genl_info *info)
{
	struct sk_buff *msg;
	int ret;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	ret = blkfloor_nl_fill_run(msg, run, info->snd_portid, info->snd_seq,
				   0, info->genlhdr->cmd, NULL);
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	return genlmsg_reply(msg, info);
}

/**
 * blkfloor_nl_run_stop_doit() - BLKFLOOR_CMD_RUN_STOP
 * @skb: request
 * @info: request info
 *
 * Asks the run to stop and replies at once, as RUN_GET does: in state
 * STOPPING while its bios drain, however long the device takes (a netlink
 * request never waits for a device), or in its final state. RUN_END_NTF
 * announces the end, once the device is released.
 *
 * Return: 0 or a negative errno (-ENOENT: no such run).
 */
int blkfloor_nl_run_stop_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct blkfloor_run *run;
	int ret;

	run = blkfloor_nl_lookup(info);
	if (IS_ERR(run))
		return PTR_ERR(run);
	blkfloor_run_stop(run);
	ret = blkfloor_nl_reply_run(run, info);
	blkfloor_run_put(run);
	return ret;
}

/**
 * blkfloor_nl_run_get_doit() - BLKFLOOR_CMD_RUN_GET, one run
 * @skb: request
 * @info: request info
 *
 * Return: 0 or a negative errno (-ENOENT: no such run).
 */
int blkfloor_nl_run_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct blkfloor_run *run;
	int ret;

	run = blkfloor_nl_lookup(info);
	if (IS_ERR(run))
		return PTR_ERR(run);
	ret = blkfloor_nl_reply_run(run, info);
	blkfloor_run_put(run);
	return ret;
}

/*
 * An op whose request has no attributes has no policy. For split ops (6.2+)
 * the core then ignores whatever attributes come instead of refusing them
 * (it installs its reject-all policy only for legacy ops): refuse them here.
 */
static const struct nlattr *blkfloor_nl_first_attr(const struct nlmsghdr *nlh)
{
	return nlmsg_attrlen(nlh, GENL_HDRLEN) ?
	       nlmsg_attrdata(nlh, GENL_HDRLEN) : NULL;
}

static void blkfloor_nl_run_get_dump_err(struct netlink_ext_ack *extack,
					 const struct nlmsghdr *nlh)
{
	NL_SET_ERR_MSG_ATTR(extack, blkfloor_nl_first_attr(nlh),
			    "a run-get dump takes no attribute, no run id either (ask for one run without NLM_F_DUMP)");
}

/*
 * Dump consistency: genl_dump_check_consistent() flags a message with
 * NLM_F_DUMP_INTR when cb->seq differs from the one of the message before
 * it (cb->prev_seq), and never the first message of a dump, whose
 * prev_seq is 0. A dump that lost something before its first message
 * could be sent (intervals overwritten before it started) must be flagged
 * too: so prev_seq starts at the first round's seq, never 0, and a change
 * seen in any round, the first included, flags the next message.
 */
static int blkfloor_nl_dump_gen_start(struct netlink_callback *cb, u32 gen)
{
	cb->seq = gen ?: 1;
	cb->prev_seq = cb->seq;
	return 0;
}

/**
 * blkfloor_nl_run_get_start() - check a BLKFLOOR_CMD_RUN_GET dump
 * @cb: dump state; args[1] keeps the error where start has no extack
 *
 * The dump has no policy: 6.2+ would ignore any attribute, and before 6.2
 * the dump shares the do request's policy, which allows RUN_ID. A dump
 * silently ignoring it would answer a different question than was asked,
 * so any attribute is refused. Before 6.2 the error is returned by the first dumpit
 * call (see blkfloor_nl_interval_get_start()).
 *
 * Return: 0, or -EINVAL with an extack message.
 */
int blkfloor_nl_run_get_start(struct netlink_callback *cb)
{
	if (!blkfloor_nl_first_attr(cb->nlh))
		return blkfloor_nl_dump_gen_start(cb, blkfloor_runs_gen());
	if (!cb->extack) {
		cb->args[1] = EINVAL;
		return 0;
	}
	blkfloor_nl_run_get_dump_err(cb->extack, cb->nlh);
	return -EINVAL;
}

/**
 * blkfloor_nl_run_get_dumpit() - BLKFLOOR_CMD_RUN_GET, every run
 * @skb: reply being filled
 * @cb: dump state; args[0] is the last run id sent
 *
 * Runs listed or unlisted between two rounds (the table's generation
 * changed) flag the next message with NLM_F_DUMP_INTR: the dump may have
 * missed a run or shown one that is gone.
 *
 * Return: bytes added, 0 at the end, or a negative errno.
 */
int blkfloor_nl_run_get_dumpit(struct sk_buff *skb,
			       struct netlink_callback *cb)
{
	struct blkfloor_run *run;
	u32 last = cb->args[0];
	int ret = 0;

	if (cb->args[1]) {
		blkfloor_nl_run_get_dump_err(cb->extack, cb->nlh);
		return -(int)cb->args[1];
	}
	cb->seq = blkfloor_runs_gen() ?: 1;
	while ((run = blkfloor_run_get_next(last))) {
		ret = blkfloor_nl_fill_run(skb, run,
					   NETLINK_CB(cb->skb).portid,
					   cb->nlh->nlmsg_seq, NLM_F_MULTI,
					   BLKFLOOR_CMD_RUN_GET, cb);
		if (!ret)
			last = run->id;
		blkfloor_run_put(run);
		if (ret)
			break;
	}
	cb->args[0] = last;
	if (ret && !skb->len)
		return ret;
	return skb->len;
}

/* Say why a dump of one run's records is refused; @attr may be NULL. */
static void blkfloor_nl_dump_run_err(struct netlink_ext_ack *extack,
				     int err, const struct nlattr *attr)
{
	if (err == -ENOENT) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "no such run");
	} else {
		NL_SET_ERR_ATTR_MISS(extack, NULL, BLKFLOOR_A_RUN_ID);
		NL_SET_ERR_MSG(extack, "missing run id");
	}
}

/*
 * The start of a dump of one run's records (INTERVAL_GET, ERROR_GET): the
 * run must exist. Before 6.2 a dump's start has no extack (cb->extack is
 * NULL): the error is then kept in *@deferred (a positive errno) and
 * returned, with its message, by the first dumpit call, which the core
 * reports in NLMSG_DONE. Returns 0 with *@run_id set, or a negative errno
 * with an extack message.
 */
static int blkfloor_nl_dump_run_start(struct netlink_callback *cb,
				      u32 *run_id, int *deferred)
{
	struct nlattr *id = blkfloor_dump_attr(cb, BLKFLOOR_A_RUN_ID);
	struct blkfloor_run *run;
	int err = 0;

	if (!id) {
		err = -EINVAL;
	} else {
		run = blkfloor_run_get(nla_get_u32(id));
		if (!run)
			err = -ENOENT;
		blkfloor_run_put(run);
	}
	if (err) {
		if (!cb->extack) {
			*deferred = -err;
			return 0;
		}
		blkfloor_nl_dump_run_err(cb->extack, err, id);
		return err;
	}
	*run_id = nla_get_u32(id);
	return 0;
}

/* A later round of a dump of one run's records, the run freed meanwhile. */
static int blkfloor_nl_dump_gone(struct netlink_callback *cb)
{
	NL_SET_ERR_MSG_ATTR(cb->extack,
			    blkfloor_dump_attr(cb, BLKFLOOR_A_RUN_ID),
			    "the run was freed during the dump");
	return -ENOENT;
}

/* The first round of a dump whose start deferred error @deferred. */
static int blkfloor_nl_dump_run_deferred(struct netlink_callback *cb,
					 int deferred)
{
	blkfloor_nl_dump_run_err(cb->extack, -deferred,
				 blkfloor_dump_attr(cb, BLKFLOOR_A_RUN_ID));
	return -deferred;
}

/**
 * struct blkfloor_nl_iv_dump - state of an INTERVAL_GET dump, in cb->ctx
 * @next: index of the next interval to send (64-bit, as the ABI's: a
 *	cursor must not wrap)
 * @losses: rounds that found intervals overwritten they had yet to send
 * @run_id: the run
 * @err: positive errno the first round returns (before 6.2, see
 *	blkfloor_nl_interval_get_start())
 * @sent: a message went out (a loss after that is one, even in the
 *	first round)
 * @from: FROM_INDEX was given (intervals before the oldest kept are lost
 *	to this dump even in its first round; without it, the dump asks for
 *	whatever the ring holds)
 */
struct blkfloor_nl_iv_dump {
	u64 next;
	u64 losses;
	u32 run_id;
	int err;
	bool sent;
	bool from;
};

static_assert(sizeof(struct blkfloor_nl_iv_dump) <=
	      sizeof_field(struct netlink_callback, ctx));

static struct blkfloor_nl_iv_dump *blkfloor_nl_iv_dump(struct netlink_callback *cb)
{
	return (struct blkfloor_nl_iv_dump *)cb->ctx;
}

/**
 * blkfloor_nl_interval_get_start() - check a BLKFLOOR_CMD_INTERVAL_GET dump
 * @cb: dump state (struct blkfloor_nl_iv_dump)
 *
 * Return: 0, or -EINVAL/-ENOENT with an extack message (see
 * blkfloor_nl_dump_run_start()).
 */
int blkfloor_nl_interval_get_start(struct netlink_callback *cb)
{
	struct blkfloor_nl_iv_dump *ctx = blkfloor_nl_iv_dump(cb);
	struct nlattr *from = blkfloor_dump_attr(cb, BLKFLOOR_A_FROM_INDEX);
	int ret;

	ret = blkfloor_nl_dump_run_start(cb, &ctx->run_id, &ctx->err);
	if (ret || ctx->err)
		return ret;
	ctx->next = from ? nla_get_u64(from) : 0;
	ctx->from = !!from;
	cb->min_dump_alloc = BLKFLOOR_IV_MSG_MAX;
	return blkfloor_nl_dump_gen_start(cb, 1);
}

/**
 * blkfloor_nl_interval_get_dumpit() - BLKFLOOR_CMD_INTERVAL_GET
 * @skb: reply being filled
 * @cb: dump state, see blkfloor_nl_interval_get_start()
 *
 * One message per closed interval still in the ring, oldest first, from
 * FROM_INDEX on (from the oldest kept when FROM_INDEX was overwritten).
 * When intervals the dump had yet to send are overwritten between two of
 * its rounds (a reader slower than the run), or intervals from FROM_INDEX
 * on were overwritten before its first round, they are skipped and the
 * first message after the loss carries NLM_F_DUMP_INTR: cb->seq counts
 * such losses, and genl_dump_check_consistent() flags a message whose
 * cb->seq differs from the one before it (see
 * blkfloor_nl_dump_gen_start()).
 *
 * Return: bytes added, 0 at the end, or a negative errno (-ENOENT when the
 * run was freed since the round before).
 */
int blkfloor_nl_interval_get_dumpit(struct sk_buff *skb,
				    struct netlink_callback *cb)
{
	struct blkfloor_nl_iv_dump *ctx = blkfloor_nl_iv_dump(cb);
	struct blkfloor_run *run;
	u64 idx = ctx->next;
	int ret = 0;

	if (ctx->err)
		return blkfloor_nl_dump_run_deferred(cb, ctx->err);
	run = blkfloor_run_get(ctx->run_id);
	if (!run)
		return blkfloor_nl_dump_gone(cb);
	for (;;) {
		struct blkfloor_iv *iv;
		void *hdr;
		u64 oldest;

		spin_lock(&run->lock);
		oldest = blkfloor_ring_oldest(&run->ring);
		if (idx < oldest) {
			if (ctx->sent || ctx->from)
				ctx->losses++;
			idx = oldest;
		}
		/* (cb->seq is an unsigned int: only a change is looked at) */
		cb->seq = ctx->losses + 1;
		if (idx >= run->ring.closed) {
			spin_unlock(&run->lock);
			break;
		}
		iv = blkfloor_ring_slot(&run->ring, idx);
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &blkfloor_nl_family,
				  NLM_F_MULTI, BLKFLOOR_CMD_INTERVAL_GET);
		if (!hdr) {
			spin_unlock(&run->lock);
			ret = -EMSGSIZE;
			break;
		}
		if (nla_put_u32(skb, BLKFLOOR_A_RUN_ID, run->id) ||
		    blkfloor_nl_put_iv(skb, iv)) {
			genlmsg_cancel(skb, hdr);
			spin_unlock(&run->lock);
			ret = -EMSGSIZE;
			break;
		}
		/* Only a message that fits takes the flag: a cancelled one passes it on. */
		genl_dump_check_consistent(cb, hdr);
		ctx->sent = true;
		iv->seen = true;
		spin_unlock(&run->lock);
		genlmsg_end(skb, hdr);
		idx++;
	}
	blkfloor_run_put(run);
	ctx->next = idx;
	if (ret && !skb->len)
		return ret;
	return skb->len;
}

/* BLKFLOOR_A_ERROR nest: entry @index of a run's error log. */
static int blkfloor_nl_put_err(struct sk_buff *skb,
			       const struct blkfloor_err_entry *e, u32 index)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, BLKFLOOR_A_ERROR);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, BLKFLOOR_ERR_A_INDEX, index) ||
	    nla_put_u64_64bit(skb, BLKFLOOR_ERR_A_SECTOR, e->sector,
			      BLKFLOOR_ERR_A_PAD) ||
	    nla_put_u32(skb, BLKFLOOR_ERR_A_BYTES, e->bytes) ||
	    nla_put_u32(skb, BLKFLOOR_ERR_A_OP, e->op) ||
	    nla_put_s32(skb, BLKFLOOR_ERR_A_ERRNO, e->err) ||
	    nla_put_u32(skb, BLKFLOOR_ERR_A_CLASS, e->class) ||
	    nla_put_u64_64bit(skb, BLKFLOOR_ERR_A_TIME_NS, e->time_ns,
			      BLKFLOOR_ERR_A_PAD) ||
	    nla_put_u64_64bit(skb, BLKFLOOR_ERR_A_LAT_NS, e->lat_ns,
			      BLKFLOOR_ERR_A_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/**
 * struct blkfloor_nl_err_dump - state of an ERROR_GET dump, in cb->ctx
 * @run_id: the run
 * @next: log entry to send next
 * @err: positive errno the first round returns (see
 *	blkfloor_nl_dump_run_start())
 */
struct blkfloor_nl_err_dump {
	u32 run_id;
	u32 next;
	int err;
};

static_assert(sizeof(struct blkfloor_nl_err_dump) <=
	      sizeof_field(struct netlink_callback, ctx));

static struct blkfloor_nl_err_dump *blkfloor_nl_err_dump(struct netlink_callback *cb)
{
	return (struct blkfloor_nl_err_dump *)cb->ctx;
}

/**
 * blkfloor_nl_error_get_start() - check a BLKFLOOR_CMD_ERROR_GET dump
 * @cb: dump state (struct blkfloor_nl_err_dump)
 *
 * Return: 0, or -EINVAL/-ENOENT with an extack message (see
 * blkfloor_nl_dump_run_start()).
 */
int blkfloor_nl_error_get_start(struct netlink_callback *cb)
{
	struct blkfloor_nl_err_dump *ctx = blkfloor_nl_err_dump(cb);

	return blkfloor_nl_dump_run_start(cb, &ctx->run_id, &ctx->err);
}

/**
 * blkfloor_nl_error_get_dumpit() - BLKFLOOR_CMD_ERROR_GET
 * @skb: reply being filled
 * @cb: dump state, see blkfloor_nl_error_get_start()
 *
 * One message per entry of the run's error log, in log order. The log
 * only grows, and an entry never changes once it is counted.
 *
 * Return: bytes added, 0 at the end, or a negative errno (-ENOENT when the
 * run was freed since the round before).
 */
int blkfloor_nl_error_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	struct blkfloor_nl_err_dump *ctx = blkfloor_nl_err_dump(cb);
	struct blkfloor_run *run;
	int ret = 0;

	if (ctx->err)
		return blkfloor_nl_dump_run_deferred(cb, ctx->err);
	run = blkfloor_run_get(ctx->run_id);
	if (!run)
		return blkfloor_nl_dump_gone(cb);
	for (;;) {
		struct blkfloor_err_entry e;
		void *hdr;

		spin_lock(&run->lock);
		if (ctx->next >= run->pub.err_logged) {
			spin_unlock(&run->lock);
			break;
		}
		e = run->err_log[ctx->next];
		spin_unlock(&run->lock);
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &blkfloor_nl_family,
				  NLM_F_MULTI, BLKFLOOR_CMD_ERROR_GET);
		if (!hdr) {
			ret = -EMSGSIZE;
			break;
		}
		if (nla_put_u32(skb, BLKFLOOR_A_RUN_ID, run->id) ||
		    blkfloor_nl_put_err(skb, &e, ctx->next)) {
			genlmsg_cancel(skb, hdr);
			ret = -EMSGSIZE;
			break;
		}
		genlmsg_end(skb, hdr);
		ctx->next++;
	}
	blkfloor_run_put(run);
	if (ret && !skb->len)
		return ret;
	return skb->len;
}

/**
 * blkfloor_nl_dev_caps_doit() - BLKFLOOR_CMD_DEV_CAPS
 * @skb: request
 * @info: request info
 *
 * Return: 0 (the reply carries a BLKFLOOR_A_CAPS nest) or a negative errno.
 */
int blkfloor_nl_dev_caps_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;
	int ret;

	ret = blkfloor_nl_check_dev(skb, info);
	if (ret)
		return ret;
	ret = blkfloor_nl_hold_module(info);
	if (ret)
		return ret;
	ret = -ENOMEM;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		goto out_put_module;
	ret = -EMSGSIZE;
	hdr = genlmsg_put_reply(msg, info, &blkfloor_nl_family, 0,
				info->genlhdr->cmd);
	if (!hdr)
		goto out_free_msg;
	ret = blkfloor_target_put_caps(msg, info->attrs, info->extack);
	if (ret)
		goto out_free_msg;
	genlmsg_end(msg, hdr);
	ret = genlmsg_reply(msg, info);
	goto out_put_module;

out_free_msg:
	nlmsg_free(msg);
out_put_module:
	module_put(THIS_MODULE);
	return ret;
}

/**
 * blkfloor_nl_info_get_doit() - BLKFLOOR_CMD_INFO_GET
 * @skb: request
 * @info: request info
 *
 * Return: 0 (the reply carries BLKFLOOR_A_VERSION) or a negative errno.
 */
int blkfloor_nl_info_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	const struct nlattr *attr = blkfloor_nl_first_attr(info->nlhdr);
	struct sk_buff *msg;
	void *hdr;

	if (attr) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "info-get takes no attribute");
		return -EINVAL;
	}
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &blkfloor_nl_family, 0,
				info->genlhdr->cmd);
	if (!hdr || nla_put_string(msg, BLKFLOOR_A_VERSION, BLKFLOOR_VERSION)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/*
 * The family itself is not generated (a genetlink-legacy spec): it is not
 * netnsok, its group is for CAP_NET_ADMIN only, and 6.1 needs its split
 * ops converted (kmod/compat.h). The ops and policies are in nl_spec.c.
 */
static const struct genl_multicast_group blkfloor_nl_mcast_groups[] = {
	[BLKFLOOR_NLGRP_EVENTS] = {
		.name	= BLKFLOOR_MCGRP_EVENTS,
		BLKFLOOR_MCGRP_FLAGS_INIT
	},
};

struct genl_family blkfloor_nl_family __ro_after_init = {
	.name		= BLKFLOOR_FAMILY_NAME,
	.version	= BLKFLOOR_FAMILY_VERSION,
	.netnsok	= false,
	.parallel_ops	= true,
	.module		= THIS_MODULE,
	.mcgrps		= blkfloor_nl_mcast_groups,
	.n_mcgrps	= ARRAY_SIZE(blkfloor_nl_mcast_groups),
};

/* Before 6.2: blkfloor_nl_ops as one genl_ops per command. */
static struct genl_ops blkfloor_nl_cmd_ops[ARRAY_SIZE(blkfloor_nl_ops)] __ro_after_init;

/**
 * blkfloor_nl_init() - register the generic netlink family
 *
 * Return: 0 or a negative errno.
 */
int blkfloor_nl_init(void)
{
	return blkfloor_genl_register_family(&blkfloor_nl_family,
					     blkfloor_nl_ops,
					     ARRAY_SIZE(blkfloor_nl_ops),
					     blkfloor_nl_cmd_ops);
}

/**
 * blkfloor_nl_exit() - unregister the generic netlink family
 */
void blkfloor_nl_exit(void)
{
	genl_unregister_family(&blkfloor_nl_family);
}
