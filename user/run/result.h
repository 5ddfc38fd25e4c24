/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the CLI received of a run: its intervals and aggregates (result.c).
 */
#ifndef BLKFLOOR_RESULT_H
#define BLKFLOOR_RESULT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "run.h"

struct bf_run_facts;
struct bf_series;

/*
 * Add interval @iv, which must be res->next (the engine orders them):
 * aggregates, and the interval itself with keep_iv. 0 or -ENOMEM.
 */
int bf_result_add_iv(struct bf_run_result *res, const struct bf_iv *iv,
		     const struct bf_hist *h);
/* keep_iv is set: every interval is stored unless the caller clears it. */
void bf_result_init(struct bf_run_result *res);
void bf_result_free(struct bf_run_result *res);
/* Intervals the kernel closed (from res->first on) that we do not have. */
uint64_t bf_result_missing(const struct bf_run_result *res);
/*
 * The stored intervals as a classifier curve, appended to @s (one sample
 * per interval that arrived and has a length), its times and bytes going
 * on from the end of what @s holds. 0 or -ENOMEM.
 */
int bf_result_series(const struct bf_run_result *res, struct bf_series *s);

/*
 * The facts of the run as its trace would give them to classify
 * (bf_run_facts_read() of the trace's summary): op, end state, errno,
 * failed I/Os and the intervals they fell in, the intervals' p99 latency
 * and the error log by class. So that a verdict printed live is qualified
 * by the run's errors as the same run's trace is.
 */
void bf_run_facts_result(struct bf_run_facts *f,
			 const struct bf_run_result *res);

#endif /* BLKFLOOR_RESULT_H */
