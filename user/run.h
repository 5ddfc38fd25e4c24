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

/* RUN_GET of one run. 0 or a negative errno. */
int bf_run_get(struct bf_nl *nl, uint32_t id, struct bf_run_info *ri);
/* RUN_STOP: answered at once, the run then drains (state stopping). */
int bf_run_stop(struct bf_nl *nl, uint32_t id);

/* Parsers of replies. */
int bf_run_info_parse(const struct bf_nl_msg *m, struct bf_run_info *ri);
int bf_iv_parse(const struct nlattr *nest, struct bf_iv *iv,
		struct bf_hist *scratch);
int bf_caps_get(struct bf_nl *nl, const char *dev, struct bf_caps *c);
/*
 * ERROR_GET: run @id's error log into res->errlog (replacing what was
 * there). 0 or a negative errno.
 */
int bf_err_log_get(struct bf_nl *nl, uint32_t id, struct bf_run_result *res);
int bf_err_entry_parse(const struct nlattr *nest, struct bf_err_entry *e);

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

struct bf_tracer;

/*
 * Start a run, show progress, wait for its end (stopping it on SIGINT or
 * SIGTERM), fetch intervals the multicast stream lost. Every interval goes
 * to the trace @t (if not NULL) as it arrives, lost ones as gaps, and the
 * trailer at the end. Returns 0 when the run ended (in any state: check
 * res->info.state), or a negative errno when it could not be started or
 * followed (message printed).
 */
int bf_run_exec(struct bf_nl *nl, const struct bf_run_req *req,
		struct bf_progress *p, struct bf_run_result *res,
		struct bf_tracer *t);

/*
 * Follow run @id that is already running (or has ended), from interval
 * @from on: what the kernel's ring still holds first, then the multicast
 * stream (with @stream) until the run ends. SIGINT/SIGTERM detach
 * (res->detached) and leave the run alone. Returns 0 when the run ended
 * or was left, or a negative errno (message printed).
 */
int bf_run_follow(struct bf_nl *nl, uint32_t id, uint64_t from, bool stream,
		  struct bf_progress *p, struct bf_run_result *res,
		  struct bf_tracer *t);

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

/* Module version via INFO_GET into @buf ("" on failure). */
int bf_module_version(struct bf_nl *nl, char *buf, size_t len);

#endif /* BLKFLOOR_RUN_H */
