/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Transport attribution: is a swinging write rate the drive's fault or the
 * link's? Pure computation on two curves measured over the same device and
 * link: a sequential read and a sequential write.
 *
 * Reads are the drive's easy path (no cache to fill, no garbage collection,
 * no folding), so a sequential read probes the link: cable, bridge and host.
 * If reads hold steady while writes swing, the link carried data steadily
 * and the swing comes from the drive.
 */
#ifndef BLKFLOOR_ATTRIB_H
#define BLKFLOOR_ATTRIB_H

#include <stdbool.h>
#include <stddef.h>

#include "classify.h"
#include "json.h"

/* Fewer usable intervals per curve than this and there is no verdict. */
#define BF_ATTRIB_MIN_SAMPLES	8

/*
 * Relative per-interval noise a steady link may show (sd / level), before
 * the request quantisation term. See attrib.c for where it comes from.
 */
#define BF_ATTRIB_LINK_NOISE	0.15

enum bf_verdict {
	BF_VERDICT_NONE,	/* both steady: no fault to attribute */
	BF_VERDICT_DRIVE,	/* reads steady, writes swing */
	BF_VERDICT_LINK,	/* reads swing (writes either way) */
};

/**
 * struct bf_attrib_series - the statistics of one curve
 * @n: intervals used
 * @nskipped: partial intervals left out (shorter than half the usual one)
 * @median, @mean, @sd, @min, @max, @p10, @p25, @p75, @p90: rates over
 *	the intervals, MB/s; @sd is the sample standard deviation
 * @mad: median absolute deviation from the median, MB/s
 * @cv: coefficient of variation, @sd / @mean
 * @spread_rel: (@p75 - @p25) / @median, the robust relative spread the
 *	verdict rests on
 * @quantum: bytes that complete together (request size, or merged
 *	requests), measured from the intervals' byte counts; 0 if unknown
 * @noise_rel: relative sd a steady link would show in this curve (the
 *	noise model: link noise and quantisation)
 * @limit_rel: the spread above which the curve swings: 2 * @noise_rel
 * @erratic: @spread_rel > @limit_rel
 * @has_class: bf_classify() could classify the curve; @class is its class
 */
struct bf_attrib_series {
	size_t n, nskipped;
	double median, mean, sd, min, max, p10, p25, p75, p90, mad, cv;
	double spread_rel, quantum, noise_rel, limit_rel;
	bool erratic;
	bool has_class;
	enum bf_class class;
};

struct bf_attrib {
	enum bf_verdict verdict;
	struct bf_attrib_series rd, wr;
	char explain[768];	/* one sentence, plain words, cites numbers */
};

const char *bf_verdict_name(enum bf_verdict v);

/*
 * Statistics of one curve. @bs is the request size in bytes, or 0 if
 * unknown (the quantum is then looked for from 512 bytes up). Returns 0 or -EINVAL (fewer than
 * BF_ATTRIB_MIN_SAMPLES usable intervals), -ENOMEM.
 */
int bf_attrib_stats(const struct bf_sample *s, size_t n, double bs,
		    struct bf_attrib_series *st);

/*
 * The verdict on a read curve @rd and a write curve @wr taken over the same
 * device and link, with their request sizes (0 if unknown). Returns 0,
 * -EINVAL (a curve has too few intervals) or -ENOMEM.
 */
int bf_attrib(const struct bf_sample *rd, size_t nrd, double rd_bs,
	      const struct bf_sample *wr, size_t nwr, double wr_bs,
	      struct bf_attrib *a);

/* Human-readable summary (several lines) and the one-object JSON form. */
void bf_attrib_print(FILE *f, const struct bf_attrib *a);
void bf_attrib_json(FILE *f, const struct bf_attrib *a);
/* The same members into an object the caller has opened. */
void bf_attrib_json_members(struct bf_json *j, const struct bf_attrib *a);

#endif /* BLKFLOOR_ATTRIB_H */
