/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A classification's report: the class and what was measured (report.c
 * names the classes and frees a report). The types every stage of the
 * classifier fills; the stages' functions are in their own headers.
 */
#ifndef BLKFLOOR_CLASSIFY_REPORT_H
#define BLKFLOOR_CLASSIFY_REPORT_H

#include <stdbool.h>
#include <stddef.h>

enum bf_class {
	BF_CLASS_STEADY,
	BF_CLASS_CACHE_EXHAUSTION,
	BF_CLASS_THERMAL_THROTTLING,
	BF_CLASS_FTL_STARVATION,
	BF_CLASS_UNCLEAR,	/* too little data or contradictory evidence */
	BF_CLASS_COUNT,
};

/** struct bf_segment - one plateau found by the change-point search */
struct bf_segment {
	size_t first, last;	/* sample indices, inclusive */
	double start_s, end_s;
	double mean_mbps;
	double bytes;		/* bytes written during the segment */
	/* added after the first version of this header: */
	double level_mbps;	/* robust level: median of the sample rates */
	double sd_mbps;		/* standard deviation of the sample rates */
	size_t nsamples;
	unsigned int nexcursions; /* short bursts/dips absorbed into it */
};

/** struct bf_step - one step between consecutive plateaus */
struct bf_step {
	double time_s;		/* where the step happened */
	double bytes;		/* bytes written before it */
	double ratio;		/* level before / level after (> 1: down) */
};

#define BF_MAX_STEPS 8

enum bf_floor_kind { BF_FLOOR_STEADY, BF_FLOOR_ERRATIC, BF_FLOOR_PERIODIC };

/** struct bf_stalls - the rate at ~0 (under 2 % of the upper quartile) for
 * a second or more: a hung device, a reset, a starved host */
struct bf_stalls {
	unsigned int count;
	double longest_s;
	double total_s;
};

struct bf_report {
	enum bf_class class;
	double peak_mbps;
	double floor_mbps;
	double mean_mbps;
	bool has_step;		/* cache exhaustion: step time and cache size */
	double step_time_s;
	double cache_bytes;
	bool recovered;		/* the rate climbed back mid-write */
	struct bf_segment *seg;
	size_t nseg;
	double total_bytes;
	double total_s;
	char explain[1536];	/* one paragraph, plain words, cites numbers */
	/* added after the first version of this header: */
	double noise_rel;	/* robust sample-to-sample noise, relative */
	size_t nraw_segments;	/* change-point segments before clean-up */
	bool erratic;		/* no stable plateau: peak/floor are levels of
				 * the oscillation, the segments are rough */
	double cycle_s;		/* a regular oscillation's period (thermal
				 * throttle-and-recover), else 0 */
	/* measured features, reported apart from the verdict: */
	struct bf_stalls stalls;
	struct bf_step steps[BF_MAX_STEPS];
	size_t nsteps;		/* steps down or up between plateaus */
	enum bf_floor_kind floor_kind; /* the rate after the first step */
	double floor_period_s;	/* BF_FLOOR_PERIODIC: its period, s */
	double floor_duty;	/* share of time in the upper level */
	double trend_rel;	/* linear fit over the run: end / start - 1 */
	double confidence;	/* 0..1; 0 for unclear */
	char reason[256];	/* the evidence that decided the class */
	/* the drive's temperature, when the curve carries one: */
	struct bf_temp {
		size_t n;		/* samples with a temperature */
		double start_c, max_c, end_c, min_c;
		double corr;		/* Pearson r of log rate and °C, or NAN */
		double dcorr;		/* r of log rate and heating (°C/s) */
		int evidence;		/* +1 for heat, -1 against, 0 none */
		char said[200];		/* what it did and what that means */
	} temp;
	/* confidence follows evidence (evidence.h): @confidence is capped
	 * unless an experiment confirmed the cause */
	double shape_confidence;	/* the curve's own, before the cap */
	bool confirmed;		/* an experiment confirmed @class */
	struct bf_evidence *ev;	/* the experiments weighed, not owned */
	size_t nev;
	bool ev_from_trace;	/* judged from a trace's data, not run now
				 * nor read from its result lines */
	/* the link's events the run recorded (origin.h), none if n == 0 */
	struct bf_link_events {
		unsigned int n;		/* abort + reset + timeout + ... */
		unsigned int abort, reset, timeout, disconnect, offline;
		unsigned int link, host;	/* path changes (pathmon) */
		double change_s;	/* the first path change's time */
		double first_s, last_s;
		double reset_s[8];	/* the first resets' times */
		unsigned int nreset_s;
	} link;
	/* how the curve was read (struct bf_load's warn), not owned; the
	 * JSON lists them. NULL or "" if none */
	const char *warnings;
	/* what the run's trace says besides its curve (runfacts.h): all 0
	 * unless bf_report_run() gave it */
	struct bf_run_facts {
		bool known;		/* from a trace */
		char op[16];		/* "write", "read", ...; "" unknown */
		char state[16];		/* "done", "failed", ...; "" none */
		long err_no;		/* "# errno:" */
		unsigned long long errors;	/* failed I/Os (errors column) */
		unsigned long long err_ivs;	/* intervals with one */
		unsigned long long intervals;
		struct { char name[32]; unsigned long long n; } cls[8];
		size_t ncls;		/* the error log by class */
		double p99_med_us, p99_max_us;	/* intervals' p99 latency */
		bool qualified;		/* the run's errors lowered the verdict */
	} run;
};

#define BF_SCHEMA_VERSION 2

const char *bf_class_name(enum bf_class c);
void bf_report_free(struct bf_report *r);

#endif /* BLKFLOOR_CLASSIFY_REPORT_H */
