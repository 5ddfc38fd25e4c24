/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the workload says about a curve. Random writes on a full drive run
 * fast at first, then slow down, smoothly or in steps, as garbage
 * collection has to free blocks for them (SNIA PTS: the transition from
 * fresh-out-of-box to steady state), over about one to a few of the
 * drive's capacities written, to a lower and noisier level. By shape that
 * is a thermal staircase, a straight decline or an SLC cache; known to be
 * random writes, and either late in bytes (half a capacity or more, where
 * the capacity is known) or ending on a floor markedly noisier than the
 * start, it is an FTL short of free blocks. It scales with the bytes
 * written, not with time and power as heat does. Pure computation.
 */
#ifndef BLKFLOOR_WORKLOAD_H
#define BLKFLOOR_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "classify_report.h"
#include "curve.h"

/**
 * struct bf_workload - the workload behind a curve, as far as known
 * @known: @write and @random are known (a trace's op and pattern, or
 *	   what the user said)
 * @write: the curve is of writes
 * @random: random offsets (not sequential)
 * @capacity_bytes: the device's capacity, 0 when not known
 */
struct bf_workload {
	bool known, write, random;
	double capacity_bytes;
};

/*
 * "randwrite", "write", "randread", "read", "trim", ...; or the text of a
 * fio job file ("rw=randwrite", "readwrite=") or of fio's JSON output
 * ("rw" : "randwrite"). Returns 0, or -EINVAL when it names none.
 */
int bf_workload_parse(const char *s, struct bf_workload *wl);

/*
 * Weigh the workload into @r, the shape's verdict on @s[0..n): random
 * writes whose rate decays to a lower, noisier level (or late in bytes)
 * are a garbage-collection transition (ftl-starvation, shape only), unless
 * the rate climbs back, a temperature said heat or the link had events.
 */
void bf_report_workload(struct bf_report *r, const struct bf_sample *s,
			size_t n, const struct bf_workload *wl);

#endif /* BLKFLOOR_WORKLOAD_H */
