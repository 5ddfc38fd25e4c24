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

#include "cli.h"

int bf_usage(const char *cmd, const char *why)
{
	fprintf(stderr, "blkfloor: %s: %s\n", cmd, why);
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
	req->ring = o->ring;
	req->interval_ns = o->interval_ns;
	req->flags = (o->no_own ? 0 : BLKFLOOR_F_OWNER) |
		     (o->fua ? BLKFLOOR_F_FUA : 0) |
		     (o->preflush ? BLKFLOOR_F_PREFLUSH : 0) |
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
	bf_result_init(res);
	return bf_run_exec(&c->nl, req, &p, res);
}
