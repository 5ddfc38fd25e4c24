// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the command files.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "cli.h"
#include "trace.h"
#include "traceout.h"

int bf_usage(const char *cmd, const char *why)
{
	fprintf(stderr, "blkfloor %s: %s\n", cmd, why);
	return EXIT_USAGE;
}

int bf_ctx_open(struct bf_ctx *c, const char *dev)
{
	memset(c, 0, sizeof(*c));
	c->dev = dev;
	if (bf_nl_open(&c->nl))
		return EXIT_FAIL;
	if (dev && bf_caps_get(&c->nl, dev, &c->caps)) {
		bf_nl_close(&c->nl);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

void bf_ctx_close(struct bf_ctx *c)
{
	bf_nl_close(&c->nl);
}

uint64_t bf_random_seed(void)
{
	uint64_t s;
	struct timespec ts;

	if (getrandom(&s, sizeof(s), 0) == sizeof(s))
		return s;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ getpid();
}

void bf_req_base(struct bf_run_req *req, const struct bf_opts *o,
		 const char *dev)
{
	memset(req, 0, sizeof(*req));
	req->dev = dev;
	req->data = o->data;
	req->seed = (o->set & BF_OPT(SEED)) ? o->seed : bf_random_seed();
	req->err_limit = o->err_limit;
	req->err_log = (o->set & BF_OPT(ERR_LOG)) ? o->err_log :
		       BLKFLOOR_ERR_LOG_DEFAULT;
	req->ring = o->ring;
	req->interval_ns = o->interval_ns;
	req->temp_file = o->temp_file;
	req->flags = (o->no_own ? 0 : BLKFLOOR_F_OWNER) |
		     (o->fua ? BLKFLOOR_F_FUA : 0) |
		     (o->preflush ? BLKFLOOR_F_PREFLUSH : 0) |
		     (o->no_merge ? BLKFLOOR_F_NOMERGE : 0) |
		     (o->failfast ? BLKFLOOR_F_FAILFAST : 0) |
		     (o->yes ? BLKFLOOR_F_DESTRUCTIVE : 0);
}

int bf_measure(struct bf_ctx *c, const struct bf_run_req *req,
	       const struct bf_opts *o, const char *label,
	       struct bf_run_result *res)
{
	struct bf_progress p;
	uint64_t total = 0;

	if (!req->max_time_ns) {
		total = req->max_bytes;
		if (!total) {
			total = req->length ? req->length :
				(c->caps.size > req->offset ?
				 c->caps.size - req->offset : 0);
			total *= req->loops ? req->loops : 1;
		}
	}
	bf_progress_init(&p, stderr, o->quiet, req->interval_ns, total,
			 req->max_time_ns, label);
	p.status = c->status;
	bf_result_init(res);
	res->keep_iv = !c->flat;
	res->watch = c->watch;
	res->watch_arg = c->watch_arg;
	return bf_run_exec(&c->nl, req, &p, res, c->trace);
}

/* Bytes a run moves, 0 if it is time-limited only. */
static uint64_t req_bytes(const struct bf_ctx *c, const struct bf_run_req *req)
{
	uint64_t total = req->max_bytes;

	if (total)
		return total;
	if (req->max_time_ns && !req->loops)
		return 0;
	total = req->length ? req->length :
		(c->caps.size > req->offset ? c->caps.size - req->offset : 0);
	return total * (req->loops ? req->loops : 1);
}

/* Read one number from a sysfs file. */
static int sysfs_u64(const char *path, uint64_t *v)
{
	unsigned long long x;
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -errno;
	ok = fscanf(f, "%llu", &x) == 1;
	fclose(f);
	if (!ok)
		return -EINVAL;
	*v = x;
	return 0;
}

/* The path names the block device the kernel described in c->caps. */
static int check_identity(const struct bf_ctx *c)
{
	char sys[96], link[512], part[600], *name;
	uint64_t sectors = 0;
	struct stat st;
	ssize_t n;
	int ret;

	if (stat(c->dev, &st)) {
		ret = -errno;
		fprintf(stderr, "blkfloor: %s: %s\n", c->dev, strerror(-ret));
		return ret;
	}
	if (!S_ISBLK(st.st_mode)) {
		fprintf(stderr, "blkfloor: %s is not a block device\n", c->dev);
		return -ENOTBLK;
	}
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", major(st.st_rdev),
		 minor(st.st_rdev));
	n = readlink(sys, link, sizeof(link) - 1);
	if (n < 0)
		return 0;	/* no sysfs: nothing to compare with */
	link[n] = '\0';
	name = strrchr(link, '/');
	name = name ? name + 1 : link;
	/* a partition sits in its disk's directory: .../sdb/sdb1 */
	snprintf(part, sizeof(part), "/%s/%s", c->caps.disk, name);
	if (c->caps.disk[0] && strcmp(name, c->caps.disk) &&
	    !strstr(link, part)) {
		fprintf(stderr, "blkfloor: %s is %s now, but the kernel described %s: the device changed under this command\n",
			c->dev, name, c->caps.disk);
		return -ENODEV;
	}
	snprintf(link, sizeof(link), "%s/size", sys);
	if (!sysfs_u64(link, &sectors) && sectors * 512 != c->caps.size) {
		fprintf(stderr, "blkfloor: %s has %llu bytes now, but the kernel described %llu: the device changed under this command\n",
			c->dev, (unsigned long long)sectors * 512,
			(unsigned long long)c->caps.size);
		return -ENODEV;
	}
	return 0;
}

int bf_preflight(struct bf_ctx *c, const struct bf_opts *o,
		 const struct bf_run_req *req, struct bf_tracer *t)
{
	c->trace = NULL;
	if (c->dev && check_identity(c))
		return EXIT_REFUSED;
	if (o->temp_file && access(o->temp_file, R_OK)) {
		fprintf(stderr, "blkfloor: --temp-file %s: %s\n", o->temp_file,
			strerror(errno));
		return EXIT_REFUSED;
	}
	if (!o->trace)
		return EXIT_OK;
	if (bf_preflight_trace(c, o->trace, o->force, req, t))
		return EXIT_REFUSED;
	c->trace = t;
	return EXIT_OK;
}

int bf_preflight_trace(const struct bf_ctx *c, const char *path, bool force,
		       const struct bf_run_req *req, struct bf_tracer *t)
{
	uint64_t ivs = bf_trace_expect_intervals(req_bytes(c, req),
						 req->max_time_ns,
						 req->interval_ns);

	if (bf_tracer_create(t, path, force, bf_trace_expect_bytes(ivs),
			     c->caps.size))
		return EXIT_REFUSED;
	return EXIT_OK;
}

int bf_trace_finish(struct bf_ctx *c)
{
	struct bf_tracer *t = c->trace;

	if (!t)
		return 0;
	c->trace = NULL;
	if (!t->header_done) {
		bf_tracer_discard(t);
		return 0;
	}
	return bf_tracer_close(t);
}
