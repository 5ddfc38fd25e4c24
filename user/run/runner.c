// SPDX-License-Identifier: GPL-2.0
/*
 * The run engine: start a run, follow it to its end, collect its intervals.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <sys/utsname.h>
#include <netlink/genl/genl.h>

#include "blkfloor.h"
#include "devinfo.h"
#include "grow.h"
#include "hostinfo.h"
#include "origin.h"
#include "progress.h"
#include "result.h"
#include "runner.h"
#include "trace.h"
#include "traceout.h"
#include "units.h"

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
	ri->op = bf_nla_u32(tb[BLKFLOOR_A_OP], 0);
	ri->pattern = bf_nla_u32(tb[BLKFLOOR_A_PATTERN], 0);
	ri->data = bf_nla_u32(tb[BLKFLOOR_A_DATA], 0);
	ri->state = bf_nla_u32(tb[BLKFLOOR_A_STATE], BLKFLOOR_STATE_RUNNING);
	ri->err = (int32_t)bf_nla_u32(tb[BLKFLOOR_A_ERRNO], 0);
	ri->bs = bf_nla_u32(tb[BLKFLOOR_A_BS], 0);
	ri->qd = bf_nla_u32(tb[BLKFLOOR_A_QD], 0);
	ri->flags = bf_nla_u32(tb[BLKFLOOR_A_FLAGS], 0);
	ri->intervals = bf_nla_u64(tb[BLKFLOOR_A_INTERVALS], 0);
	ri->dropped = bf_nla_u64(tb[BLKFLOOR_A_DROPPED], 0);
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
	ri->err_log = bf_nla_u32(tb[BLKFLOOR_A_ERR_LOG], 0);
	ri->err_log_dropped = bf_nla_u64(tb[BLKFLOOR_A_ERR_LOG_DROPPED], 0);
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
	iv->index = nla_get_u64(tb[BLKFLOOR_IV_A_INDEX]);
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
	/* BLKFLOOR_IV_A_HIST repeats: one nest per non-empty bucket. */
	nla_for_each_nested(a, nest, rem) {
		struct bf_hist_entry e;

		if (nla_type(a) != BLKFLOOR_IV_A_HIST)
			continue;
		if (bf_nl_parse_hist(a, &e))
			return -EPROTO;
		bf_hist_add(h, &e, 1);
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

int bf_err_entry_parse(const struct nlattr *nest, struct bf_err_entry *e)
{
	struct nlattr *tb[BLKFLOOR_ERR_A_MAX + 1];

	memset(e, 0, sizeof(*e));
	if (bf_nl_parse_err(nest, tb) || !tb[BLKFLOOR_ERR_A_SECTOR] ||
	    !tb[BLKFLOOR_ERR_A_ERRNO])
		return -EPROTO;
	e->index = bf_nla_u32(tb[BLKFLOOR_ERR_A_INDEX], 0);
	e->sector = nla_get_u64(tb[BLKFLOOR_ERR_A_SECTOR]);
	e->bytes = bf_nla_u32(tb[BLKFLOOR_ERR_A_BYTES], 0);
	e->op = bf_nla_u32(tb[BLKFLOOR_ERR_A_OP], 0);
	e->err = (int32_t)nla_get_u32(tb[BLKFLOOR_ERR_A_ERRNO]);
	e->class = bf_nla_u32(tb[BLKFLOOR_ERR_A_CLASS], BLKFLOOR_ERR_IO);
	e->time_ns = bf_nla_u64(tb[BLKFLOOR_ERR_A_TIME_NS], 0);
	e->lat_ns = bf_nla_u64(tb[BLKFLOOR_ERR_A_LAT_NS], 0);
	return 0;
}

struct err_log_arg {
	struct bf_err_entry *v;
	size_t n, cap;
};

static int err_log_cb(const struct bf_nl_msg *m, void *arg)
{
	struct err_log_arg *a = arg;
	struct bf_err_entry e, *v;

	if (!m->tb[BLKFLOOR_A_ERROR] ||
	    bf_err_entry_parse(m->tb[BLKFLOOR_A_ERROR], &e))
		return -EPROTO;
	v = bf_grow(a->v, &a->cap, a->n + 1, sizeof(*v), 16);
	if (!v)
		return -ENOMEM;
	a->v = v;
	a->v[a->n++] = e;
	return 0;
}

int bf_err_log_get(struct bf_nl *nl, uint32_t id, struct bf_run_result *res)
{
	struct nl_msg *msg = bf_nl_msg(nl, BLKFLOOR_CMD_ERROR_GET, true);
	struct err_log_arg a = { 0 };
	int ret;

	if (!msg || nla_put_u32(msg, BLKFLOOR_A_RUN_ID, id) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	ret = bf_nl_request(nl, msg, err_log_cb, &a);
	if (ret) {
		free(a.v);
		return ret;
	}
	free(res->errlog);
	res->errlog = a.v;
	res->nerrlog = a.n;
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

/*
 * The device is opened here, read-only and not exclusively, and passed as
 * a file descriptor: the kernel then describes what this process may
 * open, and nothing else (a path it would open itself, for CAP_SYS_ADMIN
 * only).
 */
int bf_caps_get(struct bf_nl *nl, const char *dev, struct bf_caps *c)
{
	struct caps_arg ca = { .c = c };
	struct nl_msg *msg;
	int fd, ret;

	memset(c, 0, sizeof(*c));
	fd = open(dev, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		fprintf(stderr, "blkfloor: %s: %s\n", dev, strerror(-ret));
		return ret;
	}
	msg = bf_nl_msg(nl, BLKFLOOR_CMD_DEV_CAPS, false);
	if (!msg || nla_put_s32(msg, BLKFLOOR_A_DEV_FD, fd) < 0) {
		nlmsg_free(msg);
		close(fd);
		return -ENOMEM;
	}
	ret = bf_nl_request(nl, msg, caps_cb, &ca);
	close(fd);
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
	ret |= nla_put_u32(msg, BLKFLOOR_A_OP, r->op);
	ret |= nla_put_u32(msg, BLKFLOOR_A_PATTERN, r->pattern);
	ret |= nla_put_u32(msg, BLKFLOOR_A_DATA, r->data);
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
	ret |= nla_put_u32(msg, BLKFLOOR_A_ERR_LOG, r->err_log);
	return ret < 0 ? -EMSGSIZE : 0;
}

/* Following one run. */
struct exec {
	struct bf_nl *nl;
	struct bf_run_result *res;
	struct bf_progress *p;
	struct bf_tracer *t;
	uint32_t id;
	bool gap;		/* the stream lost something: ask the ring */
	bool stop_pending;	/* res->watch asked for the end */
	bool in_fetch;
	struct bf_hist scratch;	/* the live interval's histogram */
	struct bf_hist dscratch;	/* a dumped interval's */
	struct bf_pathmon pm;	/* the device's path, followed live */
	bool have_pm;
	bool pm_sampled;	/* pm_index is the last interval sampled */
	uint64_t pm_index;
	/* the CPU the host gave: at the start and at the last live interval */
	bool cpu_on;
	int kpid;		/* the run's kthread, 0 if not found */
	struct bf_hostcpu cpu0, cpu1;
	bool said_preparing;	/* "preparing" was printed */
	unsigned int nres, nkmsg;	/* SCSI result lines in the trace */
};

/* First sample of the host's CPU, once the run (and its kthread) started. */
static void cpu_start(struct exec *x)
{
	char comm[32];

	snprintf(comm, sizeof(comm), "blkfloor/%u", x->id);
	x->kpid = bf_find_kthread("/proc", comm);
	bf_hostcpu_read("/proc", x->kpid, &x->cpu0);
	x->cpu1 = x->cpu0;
	x->cpu_on = true;
}

/* Keep the last readable sample of each part (the kthread ends first). */
static void cpu_sample(struct exec *x)
{
	struct bf_hostcpu c;

	if (!x->cpu_on)
		return;
	bf_hostcpu_read("/proc", x->kpid, &c);
	if (c.have_stat) {
		x->cpu1.have_stat = true;
		x->cpu1.steal = c.steal;
		x->cpu1.total = c.total;
	}
	if (c.have_thread) {
		x->cpu1.have_thread = true;
		x->cpu1.run_ns = c.run_ns;
		x->cpu1.wait_ns = c.wait_ns;
	}
}

/*
 * Follow the path of @dev while the run goes on: the baseline sample is
 * taken now, before the run starts.
 */
static void path_open(struct exec *x, const char *dev, const char *temp_file)
{
	char name[64];

	bf_dev_basename(dev, name, sizeof(name));
	x->have_pm = !bf_pathmon_init(&x->pm, name, temp_file);
	if (x->have_pm)
		bf_pathmon_start(&x->pm);
	if (x->have_pm && x->t) {
		x->t->pm = &x->pm;
		bf_pathmon_scsi(&x->pm);
	}
}

static void path_close(struct exec *x)
{
	if (x->t)
		x->t->pm = NULL;
	if (x->have_pm)
		bf_pathmon_free(&x->pm);
	x->have_pm = false;
}

/*
 * The path figures of live interval @iv: the counters since the sample
 * taken with the interval before it. After a hole the sample only restarts
 * the count (it spans several intervals).
 */
static void path_sample(struct exec *x, struct bf_iv *iv)
{
	bool next = x->pm_sampled ? iv->index == x->pm_index + 1 :
		    iv->index == 0;

	bf_pathmon_sample(&x->pm, iv->ios, &iv->path);
	iv->have_path = next;
	x->pm_sampled = true;
	x->pm_index = iv->index;
}

/*
 * The SCSI results the trace keeps: the first of them (how many there
 * were, the disk's ioerr_cnt says: the scsi_err column).
 */
#define TRACE_RESULTS	64

static void path_note(void *arg, const char *key, uint64_t mono_ns,
		      const char *text, int len)
{
	struct exec *x = arg;
	unsigned int *n = strcmp(key, "kmsg") ? &x->nres : &x->nkmsg;
	char line[320];

	if (!x->t || *n >= TRACE_RESULTS)
		return;
	(*n)++;
	snprintf(line, sizeof(line), "%.6f %.*s",
		 bf_run_time_of(mono_ns, x->res->info.start_time_ns),
		 len > 280 ? 280 : len, text);
	bf_tracer_note(x->t, key, line);
}

static void path_event(void *arg, enum bf_event_kind kind, uint64_t mono_ns,
		       const char *msg, int len)
{
	struct exec *x = arg;
	struct bf_run_result *res = x->res;
	double t = bf_run_time_of(mono_ns, res->info.start_time_ns);
	struct bf_path_event *pe = bf_grow(res->pev, &res->pevcap,
					   res->npev + 1, sizeof(*pe), 16);

	/* (out of memory: the trace and the screen still have it) */
	if (pe) {
		res->pev = pe;
		pe[res->npev].t = t;
		pe[res->npev].kind = bf_event_name(kind);
		res->npev++;
	}
	if (x->t)
		bf_tracer_event(x->t, t, bf_event_name(kind), msg, len);
	if (x->p && !x->p->quiet) {
		if (x->p->open_line)
			fputc('\n', x->p->f);
		x->p->open_line = false;
		/* (an event just before the start, e.g. at open) */
		fprintf(x->p->f, "blkfloor: %.1f s %s the run: %s: %.*s\n",
			fabs(t), t < -0.05 ? "before" : "into",
			bf_event_name(kind), len > 200 ? 200 : len, msg);
	}
}

static int info_cb(const struct bf_nl_msg *m, void *arg)
{
	return bf_run_info_parse(m, arg);
}

/* Intervals from res->next up to (not including) @upto are lost. */
static void lose(struct exec *x, uint32_t upto)
{
	struct bf_run_result *res = x->res;

	if (upto <= res->next)
		return;
	res->lost += upto - res->next;
	if (x->t)
		bf_tracer_gap(x->t, res->next, upto - 1);
	res->next = upto;
}

static int fetch_missing(struct exec *x);

static int take(struct exec *x, const struct bf_iv *iv,
		const struct bf_hist *h)
{
	int ret = bf_result_add_iv(x->res, iv, h);

	if (ret)
		return ret;
	if (x->t)
		bf_tracer_iv(x->t, iv);
	/* (the request goes out from the loop, not from inside a dump) */
	if (x->res->watch && !x->res->watch_stopped &&
	    x->res->watch(x->res->watch_arg, iv)) {
		x->res->watch_stopped = true;
		x->stop_pending = true;
	}
	if (x->p)
		bf_progress_iv(x->p, iv);
	return 0;
}

/*
 * Take interval @iv in index order: an older one is a duplicate; a later
 * one means the stream lost some, which the ring may still hold (fetched
 * first), and what it does not is recorded as a gap, never joined.
 */
static int deliver(struct exec *x, const struct bf_iv *iv,
		   const struct bf_hist *h, bool live)
{
	struct bf_run_result *res = x->res;
	int ret;

	if (iv->index < res->next)
		return 0;
	if (iv->index > res->next) {
		if (live && !x->in_fetch) {
			ret = fetch_missing(x);
			if (ret == -ENOMEM)
				return ret;
			if (iv->index < res->next)
				return 0;
		}
		lose(x, iv->index);
	}
	if (live)
		cpu_sample(x);
	if (live && x->have_pm) {
		struct bf_iv piv = *iv;

		path_sample(x, &piv);
		return take(x, &piv, h);
	}
	return take(x, iv, h);
}

static int store_iv(struct exec *x, const struct nlattr *nest, bool live)
{
	struct bf_hist *h = live ? &x->scratch : &x->dscratch;
	struct bf_iv iv;

	if (bf_iv_parse(nest, &iv, h))
		return 0;	/* malformed: skip, the dump may have it */
	return deliver(x, &iv, h, live);
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
static int fetch_missing(struct exec *x)
{
	struct nl_msg *msg = bf_nl_msg(x->nl, BLKFLOOR_CMD_INTERVAL_GET, true);
	int ret;

	if (!msg || nla_put_u32(msg, BLKFLOOR_A_RUN_ID, x->id) < 0 ||
	    nla_put_u64(msg, BLKFLOOR_A_FROM_INDEX, x->res->next) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	x->gap = false;
	x->in_fetch = true;
	ret = bf_nl_request(x->nl, msg, dump_iv_cb, x);
	x->in_fetch = false;
	return ret;
}

int bf_run_get(struct bf_nl *nl, uint32_t id, struct bf_run_info *ri)
{
	struct nl_msg *msg = bf_nl_msg(nl, BLKFLOOR_CMD_RUN_GET, false);

	if (!msg || nla_put_u32(msg, BLKFLOOR_A_RUN_ID, id) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	return bf_nl_request(nl, msg, info_cb, ri);
}

int bf_run_stop(struct bf_nl *nl, uint32_t id)
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

/* Signals (as a signalfd) and the events group, before anything starts. */
struct watch {
	struct bf_nl_events ev;
	sigset_t old;
	int sfd;
};

static int watch_open(struct bf_nl *nl, struct exec *x, struct watch *w)
{
	sigset_t mask;
	int ret;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, &w->old);
	w->sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (w->sfd < 0) {
		ret = -errno;
		sigprocmask(SIG_SETMASK, &w->old, NULL);
		return ret;
	}
	/* Subscribe first so that no interval is missed. */
	ret = bf_nl_events_open(nl, &w->ev, event_cb, x);
	if (ret) {
		close(w->sfd);
		sigprocmask(SIG_SETMASK, &w->old, NULL);
	}
	return ret;
}

static void watch_close(struct watch *w)
{
	bf_nl_events_close(&w->ev);
	close(w->sfd);
	sigprocmask(SIG_SETMASK, &w->old, NULL);
}

/*
 * Wait for the end of run x->id, taking its intervals. A signal stops the
 * run (@stop_on_signal; a second one gives up waiting) or detaches.
 */
static int follow_loop(struct exec *x, struct watch *w, bool stop_on_signal)
{
	struct bf_run_result *res = x->res;
	double last_poll = now_s(), stop_deadline = 0;
	bool stopping = false;
	int ret = 0;

	while (!res->ended) {
		struct pollfd pfd[2] = {
			{ .fd = bf_nl_events_fd(&w->ev), .events = POLLIN },
			{ .fd = w->sfd, .events = POLLIN },
		};
		int n = poll(pfd, 2, 250);

		if (n < 0 && errno != EINTR) {
			ret = -errno;
			break;
		}
		if (n > 0 && (pfd[1].revents & POLLIN)) {
			struct signalfd_siginfo si;

			while (read(w->sfd, &si, sizeof(si)) == sizeof(si))
				;
			if (x->p)
				bf_progress_end(x->p);
			if (!stop_on_signal) {
				res->detached = true;
				break;
			}
			if (stopping) {
				fprintf(stderr, "blkfloor: not waiting for run %u to stop\n",
					x->id);
				break;
			}
			stopping = true;
			res->interrupted = true;
			stop_deadline = now_s() + 30;
			fprintf(stderr, "blkfloor: interrupted, stopping run %u\n",
				x->id);
			bf_run_stop(x->nl, x->id);
		}
		if (n > 0 && (pfd[0].revents & POLLIN)) {
			ret = bf_nl_events_read(&w->ev);
			if (ret == -ENOBUFS)
				x->gap = true;
			else if (ret < 0)
				break;
			ret = 0;
		}
		if (x->gap && !res->ended)
			fetch_missing(x);
		if (x->stop_pending && !res->ended) {
			x->stop_pending = false;
			bf_run_stop(x->nl, x->id);
		}
		if (x->have_pm)
			bf_pathmon_events(&x->pm, path_event, path_note, x);
		if (!res->ended && now_s() - last_poll >= 2) {
			struct bf_run_info ri;
			int err;

			last_poll = now_s();
			err = bf_run_get(x->nl, x->id, &ri);
			if (!err && bf_state_ended(ri.state)) {
				/* the end notification was lost */
				res->info = ri;
				res->ended = true;
			} else if (err == -ENOENT) {
				/*
				 * Gone, its end notification lost: the module
				 * was unloaded (or the run trimmed). Waiting on
				 * would be for ever.
				 */
				fprintf(stderr, "blkfloor: run %u no longer exists (freed as an old ended run, or the module unloaded): its end was not seen\n",
					x->id);
				ret = -ENOENT;
				break;
			}
		}
		if (stopping && now_s() > stop_deadline) {
			fprintf(stderr, "blkfloor: run %u did not stop within 30 s\n",
				x->id);
			break;
		}
	}
	return ret;
}

/*
 * A run that writes over cached pages first writes them back (state
 * preparing); its start time, the origin of its intervals and of the
 * trace, is known once it runs. Wait for that, polling; a signal ends the
 * wait and is left for follow_loop().
 */
static void wait_prepared(struct exec *x, struct watch *w)
{
	struct bf_run_result *res = x->res;
	struct pollfd pfd = { .fd = w->sfd, .events = POLLIN };

	while (res->info.state == BLKFLOOR_STATE_PREPARING) {
		struct bf_run_info ri;

		if (!x->said_preparing) {
			x->said_preparing = true;
			fprintf(stderr, "blkfloor: run %u is preparing: writing the device's page cache back before its first write\n",
				x->id);
		}
		if (poll(&pfd, 1, 100) > 0 ||
		    bf_run_get(x->nl, x->id, &ri))
			return;
		res->info = ri;
	}
}

/* After the loop: what the ring still holds, the rest is lost; trailer. */
static void follow_end(struct exec *x)
{
	struct bf_run_result *res = x->res;

	if (res->info.intervals > res->next)
		fetch_missing(x);
	if (x->have_pm)
		bf_pathmon_events(&x->pm, path_event, path_note, x);
	if (res->ended) {
		int ret = bf_err_log_get(x->nl, x->id, res);

		if (ret)
			fprintf(stderr, "blkfloor: run %u: cannot read its error log: %s\n",
				x->id, strerror(-ret));
		lose(x, res->info.intervals);
		if (x->t) {
			char line[160];

			bf_tracer_errors(x->t, res);
			if (!res->lost && !res->first)
				bf_tracer_run_lat(x->t, res);
			cpu_sample(x);
			if (x->cpu_on &&
			    bf_hostcpu_line(&x->cpu0, &x->cpu1,
					    res->info.elapsed_ns / 1e9, line,
					    sizeof(line)))
				bf_tracer_note(x->t, "host_cpu", line);
			bf_tracer_end(x->t, &res->info, res->lost);
		}
	}
	if (x->p)
		bf_progress_end(x->p);
}

static struct exec *exec_new(struct bf_nl *nl, struct bf_run_result *res,
			     struct bf_progress *p, struct bf_tracer *t)
{
	struct exec *x = calloc(1, sizeof(*x));

	if (x) {
		x->nl = nl;
		x->res = res;
		x->p = p;
		x->t = t;
	}
	return x;
}

int bf_run_exec(struct bf_nl *nl, const struct bf_run_req *req,
		struct bf_progress *p, struct bf_run_result *res,
		struct bf_tracer *t)
{
	struct start_arg sa;
	struct nl_msg *msg;
	struct watch w;
	struct exec *x;
	int fd, ret;

	x = exec_new(nl, res, p, t);
	if (!x)
		return -ENOMEM;
	ret = watch_open(nl, x, &w);
	if (ret)
		goto out_free;
	path_open(x, req->dev, req->temp_file);

	msg = bf_nl_msg(nl, BLKFLOOR_CMD_RUN_START, false);
	if (!msg) {
		ret = -ENOMEM;
		goto out_watch;
	}
	ret = open_dev(req);
	if (ret < 0) {
		nlmsg_free(msg);
		goto out_watch;
	}
	fd = ret;
	ret = put_req(msg, req, fd);
	if (ret) {
		close(fd);
		nlmsg_free(msg);
		goto out_watch;
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
		goto out_watch;
	}
	x->id = res->info.id;
	wait_prepared(x, &w);
	cpu_start(x);
	if (t)
		bf_tracer_start(t, nl, &res->info);
	if (!(req->flags & BLKFLOOR_F_OWNER) && !(p && p->quiet))
		fprintf(stderr, "blkfloor: run %u is not owned: it goes on if this command dies (blkfloor attach %u follows it again, blkfloor stop %u ends it)\n",
			x->id, x->id, x->id);

	ret = follow_loop(x, &w, true);
	follow_end(x);
	if (!res->ended && !ret)
		ret = -ETIMEDOUT;
out_watch:
	path_close(x);
	watch_close(&w);
out_free:
	free(x);
	return ret;
}

int bf_run_follow(struct bf_nl *nl, uint32_t id, uint64_t from, bool stream,
		  struct bf_progress *p, struct bf_run_result *res,
		  struct bf_tracer *t)
{
	struct watch w;
	struct exec *x;
	int ret;

	x = exec_new(nl, res, p, t);
	if (!x)
		return -ENOMEM;
	x->id = id;
	res->first = res->next = from;
	ret = watch_open(nl, x, &w);
	if (ret)
		goto out_free;
	ret = bf_run_get(nl, id, &res->info);
	if (ret) {
		fprintf(stderr, "blkfloor: run %u: %s\n", id, strerror(-ret));
		goto out_watch;
	}
	if (stream)
		wait_prepared(x, &w);
	if (bf_state_ended(res->info.state))
		res->ended = true;
	if (stream && !res->ended)
		path_open(x, res->info.dev, NULL);
	if (t)
		bf_tracer_start(t, nl, &res->info);
	/* what the ring holds; older intervals are gaps */
	ret = fetch_missing(x);
	if (ret) {
		fprintf(stderr, "blkfloor: run %u: cannot read its intervals: %s\n",
			id, strerror(-ret));
		goto out_watch;
	}
	if (stream)
		ret = follow_loop(x, &w, false);
	else if (!res->ended)
		res->detached = true;
	follow_end(x);
out_watch:
	path_close(x);
	watch_close(&w);
out_free:
	free(x);
	return ret;
}
