/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A throughput curve: one sample per measurement interval, its series
 * (growing, merging very long curves) and its loaders (a blkfloor trace, a
 * fio bandwidth log, two columns). series.c; pure computation besides the
 * loaders' streams.
 */
#ifndef BLKFLOOR_CURVE_H
#define BLKFLOOR_CURVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

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
 *	  trace without an end state, a failed run, a cut last line), one
 *	  a line ('\n'-separated), or empty
 * @op: the direction of the curve: a trace's "# op:", the fio log's
 *	direction read ("read", "write", "trim"); "" when not known (CSV)
 * @ended: a trace's trailer ("# state:") was read
 * @failed: the trace says "# state: failed" (its errno in @err_no)
 * @cut: a trace's last line had no newline (its writer was killed in the
 *	 middle of it) and was left out
 * @err_no: a trace's "# errno:", 0 if none
 * @units: the units of a CSV's columns as read ("s, MB/s", or those its
 *	   header names: "ms, MiB/s"), "" for the other formats
 * @keep_experiments: in: keep a diagnose trace's probes (the intervals
 *	  after its first "# experiment: idle at T s" line) in the curve;
 *	  without it the curve is the sustained write alone
 * @exp_at_s: out: T of that line (when the experiments began), or -1
 */
struct bf_load {
	enum bf_format format;
	bool guessed;
	char warn[512];
	char op[16];
	char units[32];
	bool ended, failed, cut;
	long err_no;
	bool keep_experiments;
	double exp_at_s;
};

/*
 * Load a curve from @path ("-" is standard input) in @ld->format, or in
 * the format guessed from the content. Numbers must be finite, in range,
 * decimal with a point; times must increase. A UTF-8 byte order mark is
 * skipped; a CSV header naming units (s, ms, MB/s, MiB/s, KiB/s, ...) is
 * read in them, an unknown unit refused; a fio log with Unix epoch times
 * (log_unix_epoch) is read from its first sample on. A failed or
 * truncated trace is read up to where it ends, with a warning. Returns 0,
 * or a negative errno with a one-line reason in @err and @ser left
 * empty (freed).
 */
int bf_series_load_as(const char *path, struct bf_load *ld,
		      struct bf_series *ser, char *err, size_t errlen);
int bf_series_read_as(FILE *f, struct bf_load *ld, struct bf_series *ser,
		      char *err, size_t errlen);

/* The same, guessing the format and ignoring the warnings. */
int bf_series_load(const char *path, struct bf_series *ser, char *err,
		   size_t errlen);

/*
 * Seconds from the start of the run until @bytes were written, linearly
 * interpolated inside the sample; NAN if the curve never got there.
 */
double bf_series_time_at(const struct bf_sample *s, size_t n, double bytes);

/* Read a curve from an open stream; same as bf_series_load(). */
int bf_series_read(FILE *f, struct bf_series *ser, char *err, size_t errlen);

#endif /* BLKFLOOR_CURVE_H */
