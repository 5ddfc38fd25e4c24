/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Runs as the CLI sees them: the request, the kernel's view of a run, the
 * intervals collected, and the engine that starts a run, follows it to the
 * end (multicast + ring dump) and stops it on SIGINT/SIGTERM.
 */
#ifndef BLKFLOOR_RUN_H
#define BLKFLOOR_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/blkfloor.h>

#include "hist.h"
#include "json.h"
#include "nl.h"
#include "opts.h"

struct bf_run_req {
	const char *dev;
	uint8_t op, pattern, data;
	uint32_t bs, qd, loops, ring, flags, err_limit;
	uint64_t seed, offset, length, max_bytes, max_time_ns;
	uint64_t rate_bps, rate_iops, interval_ns;
};

/* One closed interval; latencies in ns. */
struct bf_iv {
	bool have;
	uint32_t index;
	uint64_t start_ns, end_ns, bytes, ios, errors, bytes_total;
	uint64_t err[__BLKFLOOR_ERR_MAX];
	uint64_t lat_min, lat_max, lat_sum;
	uint32_t inflight;	/* I/Os in flight at the end */
	uint64_t oldest_ns;	/* age of the oldest of them at the end */
	double p50, p99, p999;
};

/* A run as RUN_GET / RUN_END_NTF describe it. */
struct bf_run_info {
	uint32_t id;
	char dev[BLKFLOOR_PATH_MAX + 1];
	uint8_t op, pattern, data, state;
	int32_t err;
	uint32_t bs, qd, flags, intervals, dropped, owner;
	uint64_t seed, offset, length, max_bytes, max_time_ns, interval_ns;
	uint64_t rate_bps, rate_iops;
	uint64_t start_time_ns, elapsed_ns, bytes, ios, errors, mismatches;
	uint64_t mismatch_lba[BLKFLOOR_MISMATCH_LBAS];
	unsigned int nmis;
};

struct bf_run_result {
	struct bf_run_info info;
	struct bf_iv *iv;	/* indexed by interval index */
	size_t niv;		/* highest index + 1 */
	size_t cap;
	uint32_t next;		/* first index not yet received */
	struct bf_hist hist;	/* sum over received intervals */
	uint64_t err_class[__BLKFLOOR_ERR_MAX];
	bool interrupted;	/* SIGINT/SIGTERM stopped it */
	bool ended;
};

struct bf_caps {
	uint64_t size, discard_max, secure_erase_max, write_zeroes_max;
	uint32_t lbs, pbs, max_sectors, max_hw_sectors, max_segments;
	uint32_t discard_granularity, nr_hw_queues;
	bool write_cache, fua, rotational, read_only;
	char disk[64];
};

/* How run progress is shown. */
struct bf_progress {
	FILE *f;
	bool tty, quiet, open_line;
	unsigned int every, count;
	uint64_t total_bytes, total_ns;
	const char *label;
};

void bf_progress_init(struct bf_progress *p, FILE *f, bool quiet,
		      uint64_t interval_ns, uint64_t total_bytes,
		      uint64_t total_ns, const char *label);
void bf_progress_iv(struct bf_progress *p, const struct bf_iv *iv);
void bf_progress_end(struct bf_progress *p);
/* The progress line itself (pure, for tests). */
void bf_progress_line(char *buf, size_t len, const struct bf_iv *iv,
		      uint64_t total_bytes, uint64_t total_ns);

/* Parsers of replies. */
int bf_run_info_parse(const struct bf_nl_msg *m, struct bf_run_info *ri);
int bf_iv_parse(const struct nlattr *nest, struct bf_iv *iv,
		struct bf_hist *scratch);
int bf_caps_get(struct bf_nl *nl, const char *dev, struct bf_caps *c);

/* Store an interval in @res (deduplicated); returns 1 if new, 0, -ENOMEM. */
int bf_result_add_iv(struct bf_run_result *res, const struct bf_iv *iv,
		     const struct bf_hist *h);
void bf_result_init(struct bf_run_result *res);
void bf_result_free(struct bf_run_result *res);
/* Intervals the kernel closed that we do not have. */
uint32_t bf_result_missing(const struct bf_run_result *res);

/*
 * Start a run, show progress, wait for its end (stopping it on SIGINT or
 * SIGTERM), fetch intervals the multicast stream lost. Returns 0 when the
 * run ended (in any state: check res->info.state), or a negative errno when
 * it could not be started or followed (message printed).
 */
int bf_run_exec(struct bf_nl *nl, const struct bf_run_req *req,
		struct bf_progress *p, struct bf_run_result *res);

/* Latency over a whole run (ns), from the summed histogram. */
struct bf_lat {
	double min, mean, p50, p99, p999, max;
};

void bf_run_lat(const struct bf_run_result *res, struct bf_lat *l);

/* Summary of one run: text and JSON members of the current object. */
void bf_run_print_summary(FILE *f, const struct bf_run_result *res);
void bf_run_json_summary(struct bf_json *j, const struct bf_run_result *res);
/* Exit code for a run result, printing "run failed: ..." if it failed. */
int bf_run_exit_code(const struct bf_run_result *res);

/* Mean rate over the run, bytes/s, and IOPS. */
double bf_run_bps(const struct bf_run_info *ri);
double bf_run_iops(const struct bf_run_info *ri);

/* Refuse destructive ops without --yes-destroy-data; prints the refusal. */
bool bf_refuse_destroy(const char *dev, const struct bf_caps *c,
		       uint8_t op, bool yes);

/* Write the trace of a finished run to @path; returns 0 or -errno. */
int bf_run_write_trace(const char *path, struct bf_nl *nl,
		       const struct bf_run_req *req,
		       const struct bf_run_result *res, uint64_t dev_size);

/* Module version via INFO_GET into @buf ("" on failure). */
int bf_module_version(struct bf_nl *nl, char *buf, size_t len);

#endif /* BLKFLOOR_RUN_H */
