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

#include "fmt.h"

/**
 * struct bf_sample - one interval of a throughput curve
 * @t: end of the interval, seconds since the start of the run
 * @dt: length of the interval, seconds (> 0)
 * @mbps: rate over the interval, MB/s (10^6 bytes per second)
 * @bytes: bytes completed from the start of the run to @t
 * @temp_c: the drive's temperature in the interval, °C, if @has_temp
 * @has_temp: a temperature was measured (an empty cell: not measured)
 */
struct bf_sample {
	double t;
	double dt;
	double mbps;
	double bytes;
	double temp_c;
	bool has_temp;
};

struct bf_series {
	struct bf_sample *s;
	size_t n;
	size_t cap;
	/* set by the loaders, which bound the memory of very long curves:
	 * beyond BF_SERIES_MAX samples, neighbouring intervals are merged
	 * (bytes and time stay exact) and @merge doubles */
	unsigned int merge;	/* intervals per sample, 0 or 1: none merged */
	struct bf_sample acc;	/* a merged sample being filled */
	unsigned int nacc;
};

#define BF_SERIES_MAX	(1U << 21)

/*
 * Append one interval, merging neighbours once the series holds
 * BF_SERIES_MAX samples; bf_series_finish() flushes a partly filled one.
 */
int bf_series_add(struct bf_series *ser, double t, double dt, double mbps,
		  double bytes);
int bf_series_finish(struct bf_series *ser);
/* The same for a whole sample (with its temperature, if any). */
int bf_series_add_sample(struct bf_series *ser, const struct bf_sample *x);

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
	char explain[1024];	/* one paragraph, plain words, cites numbers */
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
	char reason[160];	/* the evidence that decided the class */
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
};

#define BF_SCHEMA_VERSION 2

const char *bf_class_name(enum bf_class c);

/* Append one sample; returns 0 or -ENOMEM. */
int bf_series_push(struct bf_series *ser, double t, double dt, double mbps,
		   double bytes);
void bf_series_free(struct bf_series *ser);

enum bf_format {
	BF_FORMAT_AUTO,		/* guess from the content */
	BF_FORMAT_TRACE,	/* blkfloor trace */
	BF_FORMAT_FIO,		/* fio bandwidth log (log_avg_msec) */
	BF_FORMAT_CSV,		/* two columns: seconds, MB/s */
};

const char *bf_format_name(enum bf_format f);
/* "trace", "fio", "csv"; returns 0 or -EINVAL */
int bf_format_parse(const char *s, enum bf_format *f);

/**
 * struct bf_load - how a curve was read
 * @format: in: the format to read, or BF_FORMAT_AUTO; out: the one used
 * @guessed: the format was guessed from the content
 * @warn: problems that did not stop the load (gaps, dropped intervals, a
 *	  trace without an end state), "; "-separated, or empty
 */
struct bf_load {
	enum bf_format format;
	bool guessed;
	char warn[256];
};

/*
 * Load a curve from @path ("-" is standard input) in @ld->format, or in
 * the format guessed from the content. Numbers must be finite, in range,
 * decimal with a point; times must increase. Returns 0, or a negative
 * errno with a one-line reason in @err.
 */
int bf_series_load_as(const char *path, struct bf_load *ld,
		      struct bf_series *ser, char *err, size_t errlen);
int bf_series_read_as(FILE *f, struct bf_load *ld, struct bf_series *ser,
		      char *err, size_t errlen);

/* The same, guessing the format and ignoring the warnings. */
int bf_series_load(const char *path, struct bf_series *ser, char *err,
		   size_t errlen);

/* Classify a curve. Returns 0, -EINVAL (too few samples) or -ENOMEM. */
int bf_classify(const struct bf_sample *s, size_t n, struct bf_report *r);
void bf_report_free(struct bf_report *r);

/* Human-readable report (several lines) and the one-object JSON form. */
void bf_report_print(FILE *f, const struct bf_report *r);
void bf_report_json(FILE *f, const struct bf_report *r);
struct bf_json;
/* The same object as a member @key (or array element) of a JSON being
 * written, with a "file" member if @file is not NULL. */
void bf_report_json_obj(struct bf_json *j, const char *key,
			const struct bf_report *r, const char *file);

/*
 * Projected seconds to write @job_bytes with this profile, assuming the job
 * starts with the drive idle (cache refilled) and the cache refills only
 * while idle; @end_mbps gets the rate at which the job ends.
 */
double bf_predict_seconds(const struct bf_report *r, double job_bytes,
			  double *end_mbps);

/* ---- helpers shared by the classify/plot/compare/predict commands ---- */

/* k-th smallest / median of v[0..n); both reorder v. */
double bf_select(double *v, size_t n, size_t k);
double bf_median(double *v, size_t n);
/* The one standard deviation (sample, n - 1) of v[0..n); mean if not NULL. */
double bf_mean_sd(const double *v, size_t n, double *mean);


/*
 * Seconds from the start of the run until @bytes were written, linearly
 * interpolated inside the sample; NAN if the curve never got there.
 */
double bf_series_time_at(const struct bf_sample *s, size_t n, double bytes);

/* Read a curve from an open stream; same as bf_series_load(). */
int bf_series_read(FILE *f, struct bf_series *ser, char *err, size_t errlen);

#endif /* BLKFLOOR_CLASSIFY_H */
