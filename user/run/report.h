/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a finished run prints (report.c): summary, latency, exit code.
 */
#ifndef BLKFLOOR_REPORT_H
#define BLKFLOOR_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"
#include "run.h"

/* Latency over a whole run (ns), from the summed histogram. */
struct bf_lat {
	double min, mean, p50, p99, p999, max;
};

void bf_run_lat(const struct bf_run_result *res, struct bf_lat *l);

/*
 * Whether the run's intervals are too short to measure a rate: an interval
 * of under twice the median latency holds about one round of completions,
 * so its rate beats with them (null_blk capped at 200 MiB/s delivers 4 MiB
 * every 20 ms in a TCG guest: 20 ms samples read 0, 200 and 400 MB/s).
 * Fills @sugg_ns with an interval of 5 median latencies or more, rounded
 * up to 1, 2 or 5 times a power of ten of ms.
 */
bool bf_sampling_beats(uint64_t interval_ns, double p50_ns, uint64_t *sugg_ns);

/* Summary of one run: text and JSON members of the current object. */
void bf_run_print_summary(FILE *f, const struct bf_run_result *res);
void bf_run_json_summary(struct bf_json *j, const struct bf_run_result *res);
/* Exit code for a run result, printing "run failed: ..." if it failed. */
int bf_run_exit_code(const struct bf_run_result *res);

/* Mean rate over the run, bytes/s, and IOPS. */
double bf_run_bps(const struct bf_run_info *ri);
double bf_run_iops(const struct bf_run_info *ri);

#endif /* BLKFLOOR_REPORT_H */
