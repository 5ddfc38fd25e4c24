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

/**
 * struct bf_sample - one interval of a throughput curve
 * @t: end of the interval, seconds since the start of the run
 * @dt: length of the interval, seconds (> 0)
 * @mbps: rate over the interval, MB/s (10^6 bytes per second)
 * @bytes: bytes completed from the start of the run to @t
 */
struct bf_sample {
	double t;
	double dt;
	double mbps;
	double bytes;
};

struct bf_series {
	struct bf_sample *s;
	size_t n;
	size_t cap;
};

enum bf_class {
	BF_CLASS_STEADY,
	BF_CLASS_CACHE_EXHAUSTION,
	BF_CLASS_THERMAL_THROTTLING,
	BF_CLASS_FTL_STARVATION,
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
};

const char *bf_class_name(enum bf_class c);

/* Append one sample; returns 0 or -ENOMEM. */
int bf_series_push(struct bf_series *ser, double t, double dt, double mbps,
		   double bytes);
void bf_series_free(struct bf_series *ser);

/*
 * Load a curve from a file in any of the three formats (blkfloor trace,
 * fio bandwidth log, two-column CSV of seconds and MB/s), detected from the
 * content. Returns 0, or a negative errno with a one-line reason in @err.
 */
int bf_series_load(const char *path, struct bf_series *ser, char *err,
		   size_t errlen);

/* Classify a curve. Returns 0, -EINVAL (too few samples) or -ENOMEM. */
int bf_classify(const struct bf_sample *s, size_t n, struct bf_report *r);
void bf_report_free(struct bf_report *r);

/* Human-readable report (several lines) and the one-object JSON form. */
void bf_report_print(FILE *f, const struct bf_report *r);
void bf_report_json(FILE *f, const struct bf_report *r);

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

/* "2,555" / "127" / "45.3" style rates, "280 GB" bytes, "5 min" times. */
void bf_fmt_mbps(char *buf, size_t len, double mbps);
void bf_fmt_si_bytes(char *buf, size_t len, double bytes);
void bf_fmt_secs(char *buf, size_t len, double secs);

/*
 * Seconds from the start of the run until @bytes were written, linearly
 * interpolated inside the sample; NAN if the curve never got there.
 */
double bf_series_time_at(const struct bf_sample *s, size_t n, double bytes);

/* Read a curve from an open stream; same as bf_series_load(). */
int bf_series_read(FILE *f, struct bf_series *ser, char *err, size_t errlen);

#endif /* BLKFLOOR_CLASSIFY_H */
