/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live progress line of a run (progress.c).
 */
#ifndef BLKFLOOR_PROGRESS_H
#define BLKFLOOR_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "run.h"

void bf_progress_init(struct bf_progress *p, FILE *f, bool quiet,
		      uint64_t interval_ns, uint64_t total_bytes,
		      uint64_t total_ns, const char *label);
void bf_progress_iv(struct bf_progress *p, const struct bf_iv *iv);
void bf_progress_end(struct bf_progress *p);
/*
 * The progress line itself (pure, for tests): elapsed, bytes done (of
 * @total_bytes), the interval's rate, the mean, and the ETA: from the
 * recent rate in @e for a byte-limited run ("unknown" while that rate is
 * not stable), from @total_ns for a time-limited one.
 */
void bf_progress_line(char *buf, size_t len, const struct bf_iv *iv,
		      uint64_t total_bytes, uint64_t total_ns,
		      const struct bf_eta *e);

#endif /* BLKFLOOR_PROGRESS_H */
