// SPDX-License-Identifier: GPL-2.0
/*
 * The run engine: start a run, follow it to its end, collect its intervals.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <sys/utsname.h>
#include <netlink/genl/genl.h>

#include "blkfloor.h"
#include "devinfo.h"
#include "run.h"
#include "trace.h"
#include "units.h"

void bf_result_init(struct bf_run_result *res)
{
	memset(res, 0, sizeof(*res));
}

void bf_result_free(struct bf_run_result *res)
{
	free(res->iv);
	res->iv = NULL;
	res->niv = res->cap = 0;
}

int bf_result_add_iv(struct bf_run_result *res, const struct bf_iv *iv,
		     const struct bf_hist *h)
{
	size_t i;

	if (iv->index >= res->cap) {
		size_t cap = res->cap ? res->cap : 64;
		struct bf_iv *n;

		while (cap <= iv->index)
			cap *= 2;
		n = realloc(res->iv, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		memset(n + res->cap, 0, (cap - res->cap) * sizeof(*n));
		res->iv = n;
		res->cap = cap;
	}
	if (res->iv[iv->index].have)
		return 0;
	res->iv[iv->index] = *iv;
	res->iv[iv->index].have = true;
	if (iv->index >= res->niv)
		res->niv = iv->index + 1;
	if (h)
		bf_hist_merge(&res->hist, h);
	for (i = 0; i < __BLKFLOOR_ERR_MAX; i++)
		res->err_class[i] += iv->err[i];
	while (res->next < res->niv && res->iv[res->next].have)
		res->next++;
	return 1;
}

uint32_t bf_result_missing(const struct bf_run_result *res)
{
	uint32_t have = 0;
	size_t i;

	for (i = 0; i < res->niv; i++)
		have += res->iv[i].have;
	return res->info.intervals > have ? res->info.intervals - have : 0;
}

int bf_run_info_parse(const struct bf_nl_msg *m, struct bf_run_info *ri)
{
	struct nlattr *const *tb = m->tb;
	struct nlattr *a;
	int rem;

	if (!tb[BLKFLOOR_A_RUN_ID])
		return -EPROTO;
	memset(ri, 0, sizeof(*ri));
	ri->id = nla_get_u32(tb[BLKFLOOR_A_RUN_ID]);
	if (tb[BLKFLOOR_A_DEV_PATH])
		snprintf(ri->dev, sizeof(ri->dev), "%.*s",
			 nla_len(tb[BLKFLOOR_A_DEV_PATH]),
			 (char *)nla_data(tb[BLKFLOOR_A_DEV_PATH]));
	ri->op = bf_nla_u8(tb[BLKFLOOR_A_OP], 0);
	ri->pattern = bf_nla_u8(tb[BLKFLOOR_A_PATTERN], 0);
	ri->data = bf_nla_u8(tb[BLKFLOOR_A_DATA], 0);
	ri->state = bf_nla_u8(tb[BLKFLOOR_A_STATE], BLKFLOOR_STATE_RUNNING);
	ri->err = (int32_t)bf_nla_u32(tb[BLKFLOOR_A_ERRNO], 0);
	ri->bs = bf_nla_u32(tb[BLKFLOOR_A_BS], 0);
	ri->qd = bf_nla_u32(tb[BLKFLOOR_A_QD], 0);
	ri->flags = bf_nla_u32(tb[BLKFLOOR_A_FLAGS], 0);
	ri->intervals = bf_nla_u32(tb[BLKFLOOR_A_INTERVALS], 0);
	ri->dropped = bf_nla_u32(tb[BLKFLOOR_A_DROPPED], 0);
	ri->owner = bf_nla_u32(tb[BLKFLOOR_A_OWNER_PORTID], 0);
	ri->seed = bf_nla_u64(tb[BLKFLOOR_A_SEED], 0);
	ri->offset = bf_nla_u64(tb[BLKFLOOR_A_OFFSET], 0);
	ri->length = bf_nla_u64(tb[BLKFLOOR_A_LENGTH], 0);
	ri->max_bytes = bf_nla_u64(tb[BLKFLOOR_A_MAX_BYTES], 0);
	ri->max_time_ns = bf_nla_u64(tb[BLKFLOOR_A_MAX_TIME_NS], 0);
	ri->interval_ns = bf_nla_u64(tb[BLKFLOOR_A_INTERVAL_NS], 0);
	ri->rate_bps = bf_nla_u64(tb[BLKFLOOR_A_RATE_BPS], 0);
	ri->rate_iops = bf_nla_u64(tb[BLKFLOOR_A_RATE_IOPS], 0);
	ri->start_time_ns = bf_nla_u64(tb[BLKFLOOR_A_START_TIME_NS], 0);
	ri->elapsed_ns = bf_nla_u64(tb[BLKFLOOR_A_ELAPSED_NS], 0);
	ri->bytes = bf_nla_u64(tb[BLKFLOOR_A_BYTES], 0);
	ri->ios = bf_nla_u64(tb[BLKFLOOR_A_IOS], 0);
	ri->errors = bf_nla_u64(tb[BLKFLOOR_A_ERRORS], 0);
	ri->mismatches = bf_nla_u64(tb[BLKFLOOR_A_MISMATCHES], 0);
	/* MISMATCH_LBA repeats: walk the raw attribute stream */
	if (m->attrs) {
		nla_for_each_attr(a, m->attrs, m->attrlen, rem) {
			if (nla_type(a) == BLKFLOOR_A_MISMATCH_LBA &&
			    nla_len(a) >= 8 &&
			    ri->nmis < BLKFLOOR_MISMATCH_LBAS)
				ri->mismatch_lba[ri->nmis++] = nla_get_u64(a);
		}
	}
	return 0;
}

/* Percentiles never lie outside what was measured. */
static double clamp(double v, double lo, double hi)
{
	if (hi > 0 && v > hi)
		return hi;
	if (v < lo)
		return lo;
	return v;
}

int bf_iv_parse(const struct nlattr *nest, struct bf_iv *iv,
		struct bf_hist *h)
{
	struct nlattr *tb[BLKFLOOR_IV_A_MAX + 1];
	struct nlattr *a;
	int rem, i;

	memset(iv, 0, sizeof(*iv));
	if (bf_nl_parse_iv(nest, tb) || !tb[BLKFLOOR_IV_A_INDEX])
		return -EPROTO;
	iv->index = nla_get_u32(tb[BLKFLOOR_IV_A_INDEX]);
	iv->start_ns = bf_nla_u64(tb[BLKFLOOR_IV_A_START_NS], 0);
	iv->end_ns = bf_nla_u64(tb[BLKFLOOR_IV_A_END_NS], 0);
	iv->bytes = bf_nla_u64(tb[BLKFLOOR_IV_A_BYTES], 0);
	iv->ios = bf_nla_u64(tb[BLKFLOOR_IV_A_IOS], 0);
	iv->lat_min = bf_nla_u64(tb[BLKFLOOR_IV_A_LAT_MIN_NS], 0);
	iv->lat_max = bf_nla_u64(tb[BLKFLOOR_IV_A_LAT_MAX_NS], 0);
	iv->lat_sum = bf_nla_u64(tb[BLKFLOOR_IV_A_LAT_SUM_NS], 0);
	iv->bytes_total = bf_nla_u64(tb[BLKFLOOR_IV_A_BYTES_TOTAL], 0);
	iv->inflight = tb[BLKFLOOR_IV_A_INFLIGHT] ?
		       nla_get_u32(tb[BLKFLOOR_IV_A_INFLIGHT]) : 0;
	iv->oldest_ns = bf_nla_u64(tb[BLKFLOOR_IV_A_OLDEST_NS], 0);
	if (tb[BLKFLOOR_IV_A_ERRORS]) {
		nla_for_each_nested(a, tb[BLKFLOOR_IV_A_ERRORS], rem) {
			i = nla_type(a) - 1;
			if (i < 0 || i >= __BLKFLOOR_ERR_MAX || nla_len(a) < 8)
				continue;
			iv->err[i] = nla_get_u64(a);
			iv->errors += iv->err[i];
		}
	}
	bf_hist_reset(h);
	if (tb[BLKFLOOR_IV_A_HIST]) {
		size_t n = nla_len(tb[BLKFLOOR_IV_A_HIST]) /
			   sizeof(struct blkfloor_hist_entry);
		struct blkfloor_hist_entry *e = nla_data(tb[BLKFLOOR_IV_A_HIST]);

		bf_hist_add(h, e, n);
	}
	if (h->total) {
		iv->p50 = clamp(bf_hist_percentile(h, 50), iv->lat_min,
				iv->lat_max);
		iv->p99 = clamp(bf_hist_percentile(h, 99), iv->lat_min,
				iv->lat_max);
		iv->p999 = clamp(bf_hist_percentile(h, 99.9), iv->lat_min,
				 iv->lat_max);
	}
	return 0;
}

struct caps_arg {
	struct bf_caps *c;
	bool got;
};

static int caps_cb(const struct bf_nl_msg *m, void *arg)
{
	struct nlattr *tb[BLKFLOOR_CAPS_A_MAX + 1];
	struct caps_arg *ca = arg;
	struct bf_caps *c = ca->c;

	if (!m->tb[BLKFLOOR_A_CAPS] || bf_nl_parse_caps(m->tb[BLKFLOOR_A_CAPS], tb))
		return -EPROTO;
	c->size = bf_nla_u64(tb[BLKFLOOR_CAPS_A_SIZE], 0);
	c->lbs = bf_nla_u32(tb[BLKFLOOR_CAPS_A_LOGICAL_BS], 512);
	c->pbs = bf_nla_u32(tb[BLKFLOOR_CAPS_A_PHYSICAL_BS], c->lbs);
	c->max_sectors = bf_nla_u32(tb[BLKFLOOR_CAPS_A_MAX_SECTORS], 0);
	c->max_hw_sectors = bf_nla_u32(tb[BLKFLOOR_CAPS_A_MAX_HW_SECTORS], 0);
	c->max_segments = bf_nla_u32(tb[BLKFLOOR_CAPS_A_MAX_SEGMENTS], 0);
	c->discard_granularity =
		bf_nla_u32(tb[BLKFLOOR_CAPS_A_DISCARD_GRANULARITY], 0);
	c->discard_max = bf_nla_u64(tb[BLKFLOOR_CAPS_A_DISCARD_MAX_BYTES], 0);
	c->secure_erase_max =
		bf_nla_u64(tb[BLKFLOOR_CAPS_A_SECURE_ERASE_MAX_BYTES], 0);
	c->write_zeroes_max =
		bf_nla_u64(tb[BLKFLOOR_CAPS_A_WRITE_ZEROES_MAX_BYTES], 0);
	c->write_cache = bf_nla_u8(tb[BLKFLOOR_CAPS_A_WRITE_CACHE], 0);
	c->fua = bf_nla_u8(tb[BLKFLOOR_CAPS_A_FUA], 0);
	c->rotational = bf_nla_u8(tb[BLKFLOOR_CAPS_A_ROTATIONAL], 0);
	c->read_only = bf_nla_u8(tb[BLKFLOOR_CAPS_A_READ_ONLY], 0);
	c->nr_hw_queues = bf_nla_u32(tb[BLKFLOOR_CAPS_A_NR_HW_QUEUES], 0);
	if (tb[BLKFLOOR_CAPS_A_DISK_NAME])
		snprintf(c->disk, sizeof(c->disk), "%.*s",
			 nla_len(tb[BLKFLOOR_CAPS_A_DISK_NAME]),
			 (char *)nla_data(tb[BLKFLOOR_CAPS_A_DISK_NAME]));
	ca->got = true;
	return 0;
}

int bf_caps_get(struct bf_nl *nl, const char *dev, struct bf_caps *c)
{
	struct caps_arg ca = { .c = c };
	struct nl_msg *msg;
	int ret;

	memset(c, 0, sizeof(*c));
	msg = bf_nl_msg(nl, BLKFLOOR_CMD_DEV_CAPS, false);
	if (!msg || nla_put_string(msg, BLKFLOOR_A_DEV_PATH, dev) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	ret = bf_nl_request(nl, msg, caps_cb, &ca);
	if (!ret && !ca.got)
		ret = -EPROTO;
	if (ret)
		fprintf(stderr, "blkfloor: %s: cannot read device capabilities: %s\n",
			dev, strerror(-ret));
	return ret;
}

bool bf_refuse_destroy(const char *dev, const struct bf_caps *c, uint8_t op,
		       bool yes)
{
	char sz[BF_FMT_LEN];
	const char *what;

	if (!bf_op_destructive(op) || yes)
		return false;
	what = op == BLKFLOOR_OP_DISCARD ? "discard" :
	       op == BLKFLOOR_OP_WRITE_ZEROES ? "write zeroes to" : "write to";
	fprintf(stderr,
		"blkfloor: refusing to %s %s (%s, %llu bytes): this destroys its data; add --yes-destroy-data\n",
		what, dev, bf_fmt_bytes(sz, sizeof(sz), c->size),
		(unsigned long long)c->size);
	return true;
}

/*
 * The device is opened here and passed to the kernel as a file descriptor,
 * so a run can do no more than this process could: exclusively (a mounted
 * or otherwise claimed device is refused), read-write only when the run
 * writes. Returns the fd or -errno, with a message printed.
 */
static int open_dev(const struct bf_run_req *r)
{
	int fd = open(r->dev, (bf_op_destructive(r->op) ? O_RDWR : O_RDONLY) |
			      O_EXCL | O_CLOEXEC);

	if (fd < 0) {
		int err = errno;

		fprintf(stderr, "blkfloor: %s: %s\n", r->dev,
			err == EBUSY ? "device is busy (mounted or held exclusively)" :
			strerror(err));
		return -err;
	}
	return fd;
}

static int put_req(struct nl_msg *msg, const struct bf_run_req *r, int fd)
{
	int ret = 0;

	ret |= nla_put_s32(msg, BLKFLOOR_A_DEV_FD, fd);
	ret |= nla_put_u8(msg, BLKFLOOR_A_OP, r->op);
	ret |= nla_put_u8(msg, BLKFLOOR_A_PATTERN, r->pattern);
	ret |= nla_put_u8(msg, BLKFLOOR_A_DATA, r->data);
	ret |= nla_put_u32(msg, BLKFLOOR_A_FLAGS, r->flags);
	ret |= nla_put_u64(msg, BLKFLOOR_A_SEED, r->seed);
	if (r->bs)
		ret |= nla_put_u32(msg, BLKFLOOR_A_BS, r->bs);
	if (r->qd)
		ret |= nla_put_u32(msg, BLKFLOOR_A_QD, r->qd);
	if (r->offset)
		ret |= nla_put_u64(msg, BLKFLOOR_A_OFFSET, r->offset);
	if (r->length)
		ret |= nla_put_u64(msg, BLKFLOOR_A_LENGTH, r->length);
	if (r->max_bytes)
		ret |= nla_put_u64(msg, BLKFLOOR_A_MAX_BYTES, r->max_bytes);
	if (r->max_time_ns)
		ret |= nla_put_u64(msg, BLKFLOOR_A_MAX_TIME_NS, r->max_time_ns);
	if (r->loops)
		ret |= nla_put_u32(msg, BLKFLOOR_A_LOOPS, r->loops);
	if (r->rate_bps)
		ret |= nla_put_u64(msg, BLKFLOOR_A_RATE_BPS, r->rate_bps);
	if (r->rate_iops)
		ret |= nla_put_u64(msg, BLKFLOOR_A_RATE_IOPS, r->rate_iops);
	if (r->interval_ns)
		ret |= nla_put_u64(msg, BLKFLOOR_A_INTERVAL_NS, r->interval_ns);
	if (r->ring)
		ret |= nla_put_u32(msg, BLKFLOOR_A_RING, r->ring);
	if (r->err_limit)
		ret |= nla_put_u32(msg, BLKFLOOR_A_ERR_LIMIT, r->err_limit);
	return ret < 0 ? -EMSGSIZE : 0;
}

/* Following one run. */
struct exec {
	struct bf_run_result *res;
	struct bf_progress *p;
	uint32_t id;
	bool gap;
	struct bf_hist scratch;
};

static int info_cb(const struct bf_nl_msg *m, void *arg)
{
	return bf_run_info_parse(m, arg);
}

static int store_iv(struct exec *x, const struct nlattr *nest, bool live)
{
	struct bf_iv iv;
	int ret;

	if (bf_iv_parse(nest, &iv, &x->scratch))
		return 0;	/* malformed: skip, the dump may have it */
	if (live && iv.index > x->res->next)
		x->gap = true;
	ret = bf_result_add_iv(x->res, &iv, &x->scratch);
	if (ret == 1 && live && x->p)
		bf_progress_iv(x->p, &iv);
	return ret < 0 ? ret : 0;
}

static int event_cb(const struct bf_nl_msg *m, void *arg)
{
	struct exec *x = arg;

	if (!m->tb[BLKFLOOR_A_RUN_ID] ||
	    nla_get_u32(m->tb[BLKFLOOR_A_RUN_ID]) != x->id)
		return 0;
	if (m->cmd == BLKFLOOR_CMD_INTERVAL_NTF && m->tb[BLKFLOOR_A_INTERVAL])
		return store_iv(x, m->tb[BLKFLOOR_A_INTERVAL], true);
	if (m->cmd == BLKFLOOR_CMD_RUN_END_NTF) {
		bf_run_info_parse(m, &x->res->info);
		x->res->ended = true;
	}
	return 0;
}

static int dump_iv_cb(const struct bf_nl_msg *m, void *arg)
{
	struct exec *x = arg;

	if (!m->tb[BLKFLOOR_A_INTERVAL])
		return 0;
	return store_iv(x, m->tb[BLKFLOOR_A_INTERVAL], false);
}

/* Fetch intervals from x->res->next on out of the kernel's ring. */
static int fetch_missing(struct bf_nl *nl, struct exec *x)
{
	struct nl_msg *msg = bf_nl_msg(nl, BLKFLOOR_CMD_INTERVAL_GET, true);

	if (!msg || nla_put_u32(msg, BLKFLOOR_A_RUN_ID, x->id) < 0 ||
	    nla_put_u32(msg, BLKFLOOR_A_FROM_INDEX, x->res->next) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	x->gap = false;
	return bf_nl_request(nl, msg, dump_iv_cb, x);
}

static int run_get(struct bf_nl *nl, uint32_t id, struct bf_run_info *ri)
{
	struct nl_msg *msg = bf_nl_msg(nl, BLKFLOOR_CMD_RUN_GET, false);

	if (!msg || nla_put_u32(msg, BLKFLOOR_A_RUN_ID, id) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	return bf_nl_request(nl, msg, info_cb, ri);
}

static int run_stop(struct bf_nl *nl, uint32_t id)
{
	struct nl_msg *msg = bf_nl_msg(nl, BLKFLOOR_CMD_RUN_STOP, false);

	if (!msg || nla_put_u32(msg, BLKFLOOR_A_RUN_ID, id) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	return bf_nl_request(nl, msg, NULL, NULL);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Wire message for START with the MISMATCH_LBA list also parsed. */
struct start_arg {
	struct bf_run_info *ri;
	bool got;
};

static int start_cb(const struct bf_nl_msg *m, void *arg)
{
	struct start_arg *sa = arg;
	int ret = bf_run_info_parse(m, sa->ri);

	if (!ret)
		sa->got = true;
	return ret;
}

int bf_run_exec(struct bf_nl *nl, const struct bf_run_req *req,
		struct bf_progress *p, struct bf_run_result *res)
{
	struct exec *x;
	struct bf_nl_events ev;
	struct start_arg sa;
	sigset_t mask, old;
	struct nl_msg *msg;
	double last_poll, stop_deadline = 0;
	bool stopping = false;
	int sfd, fd, ret;

	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->res = res;
	x->p = p;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, &old);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		ret = -errno;
		goto out_mask;
	}

	/* Subscribe first so that no interval is missed. */
	ret = bf_nl_events_open(nl, &ev, event_cb, x);
	if (ret)
		goto out_sfd;

	msg = bf_nl_msg(nl, BLKFLOOR_CMD_RUN_START, false);
	if (!msg) {
		ret = -ENOMEM;
		goto out_ev;
	}
	ret = open_dev(req);
	if (ret < 0) {
		nlmsg_free(msg);
		goto out_ev;
	}
	fd = ret;
	ret = put_req(msg, req, fd);
	if (ret) {
		close(fd);
		nlmsg_free(msg);
		goto out_ev;
	}
	sa.ri = &res->info;
	sa.got = false;
	ret = bf_nl_request(nl, msg, start_cb, &sa);
	/* The run holds its own reference to the open file. */
	close(fd);
	if (!ret && !sa.got)
		ret = -EPROTO;
	if (ret) {
		fprintf(stderr, "blkfloor: %s: cannot start the run: %s\n",
			req->dev, strerror(-ret));
		goto out_ev;
	}
	x->id = res->info.id;
	last_poll = now_s();

	while (!res->ended) {
		struct pollfd pfd[2] = {
			{ .fd = bf_nl_events_fd(&ev), .events = POLLIN },
			{ .fd = sfd, .events = POLLIN },
		};
		int n = poll(pfd, 2, 250);

		if (n < 0 && errno != EINTR) {
			ret = -errno;
			break;
		}
		if (n > 0 && (pfd[1].revents & POLLIN)) {
			struct signalfd_siginfo si;

			while (read(sfd, &si, sizeof(si)) == sizeof(si))
				;
			if (stopping) {
				fprintf(stderr, "blkfloor: not waiting for run %u to stop\n",
					x->id);
				break;
			}
			stopping = true;
			res->interrupted = true;
			stop_deadline = now_s() + 30;
			if (p)
				bf_progress_end(p);
			fprintf(stderr, "blkfloor: interrupted, stopping run %u\n",
				x->id);
			run_stop(nl, x->id);
		}
		if (n > 0 && (pfd[0].revents & POLLIN)) {
			ret = bf_nl_events_read(&ev);
			if (ret == -ENOBUFS)
				x->gap = true;
			else if (ret < 0)
				break;
			ret = 0;
		}
		if (x->gap && !res->ended)
			fetch_missing(nl, x);
		if (!res->ended && now_s() - last_poll >= 2) {
			struct bf_run_info ri;

			last_poll = now_s();
			if (!run_get(nl, x->id, &ri) &&
			    ri.state != BLKFLOOR_STATE_RUNNING) {
				/* the end notification was lost */
				res->info = ri;
				res->ended = true;
			}
		}
		if (stopping && now_s() > stop_deadline) {
			fprintf(stderr, "blkfloor: run %u did not stop within 30 s\n",
				x->id);
			break;
		}
	}
	/* Whatever the stream missed is still in the ring. */
	if (res->info.intervals > res->next || bf_result_missing(res))
		fetch_missing(nl, x);
	if (p)
		bf_progress_end(p);
	if (!res->ended && !ret)
		ret = -ETIMEDOUT;

out_ev:
	bf_nl_events_close(&ev);
out_sfd:
	close(sfd);
out_mask:
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(x);
	return ret;
}
