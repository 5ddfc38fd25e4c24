/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Curve classification: pure computation, no I/O besides the FILE * printers.
 *
 * A series is a throughput curve: one sample per measurement interval.
 */
#ifndef BLKFLOOR_CLASSIFY_H
#define BLKFLOOR_CLASSIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "curve.h"
#include "explain.h"
#include "fmt.h"
#include "classify_report.h"
#include "stats.h"

/* Classify a curve. Returns 0, -EINVAL (too few samples) or -ENOMEM. */
int bf_classify(const struct bf_sample *s, size_t n, struct bf_report *r);

/* A burst this fast is memory, not flash ... */
#define BF_MEM_SPEED_MBPS	4000
/* ... if it is short and small enough for a host's dirty pages */
#define BF_PAGE_CACHE_MAX_S	10
#define BF_PAGE_CACHE_MAX_BYTES	32e9

/*
 * Classify a curve read from another tool (fio, CSV): as bf_classify(),
 * but a burst at memory speed at the start (the host's page cache, a tool
 * writing without O_DIRECT) is left out and named.
 */
int bf_classify_imported(const struct bf_sample *s, size_t n,
			 struct bf_report *r);

#endif /* BLKFLOOR_CLASSIFY_H */
