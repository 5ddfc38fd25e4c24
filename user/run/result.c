// SPDX-License-Identifier: GPL-2.0
/*
 * What the CLI received of a run (see result.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify_report.h"
#include "curve.h"
#include "grow.h"
#include "opts.h"
#include "result.h"
#include "runsum.h"
#include "stats.h"

void bf_result_init(struct bf_run_result *res)
{
	memset(res, 0, sizeof(*res));
	res->keep_iv = true;
}

void bf_result_free(struct bf_run_result *res)
{
	free(res->iv);
	res->iv = NULL;
	res->niv = res->cap = 0;
	free(res->errlog);
	res->errlog = NULL;
	res->nerrlog = 0;
	free(res->pev);
	res->pev = NULL;
	res->npev = res->pevcap = 0;
}

static int keep_iv(struct bf_run_result *res, const struct bf_iv *iv)
{
	struct bf_iv *n;

	if (iv->index >= SIZE_MAX)
		return -ENOMEM;
	n = bf_grow(res->iv, &res->cap, iv->index + 1, sizeof(*n), 64);
	if (!n)
		return -ENOMEM;
	res->iv = n;
	res->iv[iv->index] = *iv;
	res->iv[iv->index].have = true;
	if (iv->index >= res->niv)
		res->niv = iv->index + 1;
	return 0;
}

int bf_result_add_iv(struct bf_run_result *res, const struct bf_iv *iv,
		     const struct bf_hist *h)
{
	double dt = (iv->end_ns - iv->start_ns) / 1e9;
	size_t i;

	if (res->keep_iv && keep_iv(res, iv))
		return -ENOMEM;
	if (h)
		bf_hist_merge(&res->hist, h);
	for (i = 0; i < __BLKFLOOR_ERR_MAX; i++)
		res->err_class[i] += iv->err[i];
	if (iv->ios) {
		if (!res->lat_ios || iv->lat_min < res->lat_min)
			res->lat_min = iv->lat_min;
		if (iv->lat_max > res->lat_max)
			res->lat_max = iv->lat_max;
		res->lat_ios += iv->ios;
		res->lat_sum += iv->lat_sum;
	}
	if (dt > 0 && iv->bytes / dt > res->peak_bps)
		res->peak_bps = iv->bytes / dt;
	res->received++;
	res->next = iv->index + 1;
	return 0;
}

uint64_t bf_result_missing(const struct bf_run_result *res)
{
	uint64_t m = res->lost;

	if (res->info.intervals > res->next)
		m += res->info.intervals - res->next;
	return m;
}

int bf_result_series(const struct bf_run_result *res, struct bf_series *s)
{
	double t0 = s->n ? s->s[s->n - 1].t : 0;
	double b0 = s->n ? s->s[s->n - 1].bytes : 0;
	size_t i;

	for (i = 0; i < res->niv; i++) {
		const struct bf_iv *iv = &res->iv[i];
		double dt = (iv->end_ns - iv->start_ns) / 1e9;

		if (!iv->have || dt <= 0)
			continue;
		if (bf_series_push(s, t0 + iv->end_ns / 1e9, dt,
				   iv->bytes / dt / 1e6,
				   b0 + (double)iv->bytes_total))
			return -ENOMEM;
	}
	return 0;
}

void bf_run_facts_result(struct bf_run_facts *f,
			 const struct bf_run_result *res)
{
	double *p99 = NULL;
	size_t i, n = 0;

	memset(f, 0, sizeof(*f));
	f->known = true;
	snprintf(f->op, sizeof(f->op), "%.15s", bf_op_name(res->info.op));
	if (res->ended) {
		snprintf(f->state, sizeof(f->state), "%.15s",
			 bf_state_name(res->info.state));
		f->err_no = res->info.err;
	}
	f->intervals = res->received;
	if (res->niv)
		p99 = malloc(res->niv * sizeof(*p99));
	for (i = 0; i < res->niv; i++) {
		const struct bf_iv *iv = &res->iv[i];

		if (!iv->have)
			continue;
		f->errors += iv->errors;
		f->err_ivs += iv->errors > 0;
		if (!iv->ios || !(iv->p99 > 0))
			continue;	/* a trace's reader skips these too */
		if (iv->p99 / 1e3 > f->p99_max_us)
			f->p99_max_us = iv->p99 / 1e3;
		if (p99)
			p99[n++] = iv->p99 / 1e3;
	}
	f->p99_med_us = n ? bf_median(p99, n) : 0;
	free(p99);
	for (i = 0; i < res->nerrlog; i++)
		BF_TALLY(f->cls, f->ncls, sizeof(f->cls) / sizeof(f->cls[0]),
			 bf_err_class_name(res->errlog[i].class));
}
