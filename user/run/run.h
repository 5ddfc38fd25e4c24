/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Runs as the CLI sees them: the request, the kernel's view of a run, the
 * intervals collected, the progress line's state. Types only: the engine
 * (runner.h), the summary (report.h), the aggregates (result.h) and the
 * progress line (progress.h) declare their functions beside their code.
 */
#ifndef BLKFLOOR_RUN_H
#define BLKFLOOR_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/blkfloor.h>

#include "eta.h"
#include "hist.h"
#include "json.h"
#include "nl.h"
#include "opts.h"
#include "pathinfo.h"

struct bf_path_event;

struct bf_run_req {
	const char *dev;
	uint8_t op, pattern, data;
	uint32_t bs, qd, loops, ring, flags, err_limit, err_log;
	uint64_t seed, offset, length, max_bytes, max_time_ns;
	uint64_t rate_bps, rate_iops, interval_ns;
	const char *temp_file;	/* read instead of the hwmon sensor */
};

/* One closed interval; latencies in ns. */
struct bf_iv {
	bool have;
	uint64_t index;
	uint64_t start_ns, end_ns, bytes, ios, errors, bytes_total;
	uint64_t err[__BLKFLOOR_ERR_MAX];
	uint64_t lat_min, lat_max, lat_sum;
	uint32_t inflight;	/* I/Os in flight at the end */
	uint64_t oldest_ns;	/* age of the oldest of them at the end */
	double p50, p99, p999;
	bool have_path;		/* sampled live: the path figures below */
	struct bf_pathiv path;
};

/* A run as RUN_GET / RUN_END_NTF describe it. */
struct bf_run_info {
	uint32_t id;
	char dev[BLKFLOOR_PATH_MAX + 1];
	uint8_t op, pattern, data, state;
	int32_t err;
	uint32_t bs, qd, flags, owner;
	uint64_t intervals, dropped;
	uint64_t seed, offset, length, max_bytes, max_time_ns, interval_ns;
	uint64_t rate_bps, rate_iops;
	uint64_t start_time_ns, elapsed_ns, bytes, ios, errors, mismatches;
	uint64_t mismatch_lba[BLKFLOOR_MISMATCH_LBAS];
	unsigned int nmis;
	uint32_t err_log;		/* error log entries asked for */
	uint64_t err_log_dropped;	/* failures not logged */
};

/* One failed I/O of a run's error log (ERROR_GET). */
struct bf_err_entry {
	uint32_t index;
	uint8_t op;
	uint8_t class;		/* enum blkfloor_err_class */
	int32_t err;		/* negative errno */
	uint32_t bytes;
	uint64_t sector;	/* 512-byte LBA */
	uint64_t time_ns, lat_ns;
};

/*
 * What the CLI received of a run. Intervals arrive in index order (the
 * engine fetches what the multicast stream lost from the kernel's ring, and
 * records as lost what the ring no longer held); the aggregates below are
 * kept for every run, the intervals themselves only with @keep_iv (the
 * commands that analyse the curve), so that a long run's memory is flat.
 */
struct bf_run_result {
	struct bf_run_info info;
	bool keep_iv;		/* store every interval in @iv */
	struct bf_iv *iv;	/* indexed by interval index */
	size_t niv;		/* highest index + 1 */
	size_t cap;
	uint64_t first;		/* first index this command asked for */
	uint64_t next;		/* first index not yet received or lost */
	uint64_t received;	/* intervals received */
	uint64_t lost;		/* intervals the ring no longer held */
	struct bf_hist hist;	/* sum over received intervals */
	uint64_t err_class[__BLKFLOOR_ERR_MAX];
	uint64_t lat_ios, lat_sum, lat_min, lat_max;	/* ns */
	double peak_bps;	/* best interval */
	struct bf_err_entry *errlog;	/* the run's error log, once ended */
	size_t nerrlog;
	bool interrupted;	/* SIGINT/SIGTERM stopped it */
	/*
	 * Called with every interval taken, in order; returning true asks
	 * the kernel to stop the run, which then ends "stopped" with
	 * @watch_stopped set: the caller's rule ended it, not a failure.
	 */
	bool (*watch)(void *arg, const struct bf_iv *iv);
	void *watch_arg;
	bool watch_stopped;
	bool detached;		/* attach: left a run that goes on */
	/* the path's events (kernel log), in order; kinds are static */
	struct bf_path_event *pev;
	size_t npev, pevcap;
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
	const char *status;	/* shown after the line if not NULL (a stop
				 * rule's state, updated by res->watch) */
	struct bf_eta eta;	/* the recent rate, for the ETA */
};

#endif /* BLKFLOOR_RUN_H */
