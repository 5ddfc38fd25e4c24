/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The experiments' drive interface (analysis/experiment.h) on a real
 * device: each probe is a blkfloor write run over the region, stopped by
 * a watch once the floor is back; idle is a sleep; discard a discard run
 * over the region (only where the kernel reports discard reaching the
 * drive); the temperature is the path's hwmon sensor or --temp-file.
 */
#ifndef BLKFLOOR_REALDRIVE_H
#define BLKFLOOR_REALDRIVE_H

#include "cli.h"
#include "experiment.h"

struct bf_tracer;

struct bf_realdrive {
	struct bf_ctx *c;
	const struct bf_opts *o;
	uint64_t start, len;	/* the region */
	uint64_t pos;		/* where the next write starts */
	struct bf_tracer *trace;	/* # experiment: lines, or NULL */
	/* the traced run's start (CLOCK_REALTIME ns; 0: unknown): each idle
	 * gap is written to the trace at its time into that run */
	uint64_t run_start_ns;
	/* the probes' intervals follow the traced run's in the trace: their
	 * next index and the bytes before them */
	uint64_t trace_index;
	double trace_bytes;
	char disk[64];
};

/*
 * Probes write [@start, @start + @len) of c->dev from @pos on, wrapping at
 * its end, with the options' bs, qd, interval and data.
 */
void bf_realdrive_init(struct bf_realdrive *rd, struct bf_ctx *c,
		       const struct bf_opts *o, uint64_t start, uint64_t len,
		       uint64_t pos, struct bf_tracer *trace,
		       struct bf_drive *drv);

#endif /* BLKFLOOR_REALDRIVE_H */
