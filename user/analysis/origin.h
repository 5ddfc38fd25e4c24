/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Steps whose origin is outside the drive, read from the curve alone (an
 * imported trace carries no path events):
 * - a step right after a stall, with no event recorded to explain it, is
 *   unclear: a reset or a link that came back slower (USB 3 at USB 2
 *   speed) changes the rate as much as the drive does;
 * - a burst at memory speed at the start of a curve written through the
 *   host's page cache (fio without direct=1) is the host's, not an SLC
 *   cache: it is left out and the rest classified.
 */
#ifndef BLKFLOOR_ORIGIN_H
#define BLKFLOOR_ORIGIN_H

#include <stddef.h>

#include "classify.h"

/* A burst this fast is memory, not flash ... */
#define BF_MEM_SPEED_MBPS	4000
/* ... if it is short and small enough for a host's dirty pages */
#define BF_PAGE_CACHE_MAX_S	10
#define BF_PAGE_CACHE_MAX_BYTES	32e9

/*
 * bf_classify() calls this on its report: a drive cause whose step
 * follows a stall in @s[0..n) becomes unclear, with the reason.
 */
void bf_report_stall_steps(const struct bf_sample *s, size_t n,
			   struct bf_report *r);

/*
 * Classify a curve read from another tool (fio, CSV): as bf_classify(),
 * but a page-cache burst at the start is left out and named.
 */
int bf_classify_imported(const struct bf_sample *s, size_t n,
			 struct bf_report *r);

#endif /* BLKFLOOR_ORIGIN_H */
