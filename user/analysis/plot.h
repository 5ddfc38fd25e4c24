/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SVG chart of a throughput curve: rate against bytes written (top) and
 * against time (bottom), the plateaus drawn and labelled, the step marked.
 */
#ifndef BLKFLOOR_PLOT_H
#define BLKFLOOR_PLOT_H

#include <stdio.h>

#include "classify.h"

/* What happened on the path, at a time into the run. */
enum bf_mark_kind { BF_MARK_RESET, BF_MARK_TIMEOUT, BF_MARK_ERROR,
		    BF_MARK_LINK, BF_MARK_COUNT };

struct bf_plot_mark {
	double t;			/* seconds since the start of the run */
	enum bf_mark_kind kind;
};

/* An idle gap of an experiment (diagnose): the drive wrote nothing. */
struct bf_plot_gap {
	double t;			/* its start, seconds since the run's */
	double secs;			/* how long */
};

/*
 * One curve and its report; @label names it in an overlay's legend. Its
 * experiments' idle gaps are shaded on the time panel, which reaches to
 * the end of the last.
 */
struct bf_plot_curve {
	const struct bf_sample *s;
	size_t n;
	const struct bf_report *r;
	const char *label;
	const struct bf_plot_mark *mark;
	size_t nmark;
	const struct bf_plot_gap *gap;
	size_t ngap;
};

/*
 * A chart of one curve, or two overlaid on the same axes (A and B).
 * @title: the first line (after the class for one curve), or NULL;
 * @caption: the setup, lines separated by '\n', or NULL.
 */
struct bf_plot {
	const char *title, *caption;
	struct bf_plot_curve c[2];
	size_t n;
};

/* Write a standalone SVG document. Returns 0, -EINVAL or -EIO. */
int bf_plot_write(FILE *f, const struct bf_plot *p);

/* One curve, no caption or marks; @title may be NULL. */
int bf_plot_svg(FILE *f, const struct bf_sample *s, size_t n,
		const struct bf_report *r, const char *title);

const char *bf_mark_name(enum bf_mark_kind k);

#endif /* BLKFLOOR_PLOT_H */
