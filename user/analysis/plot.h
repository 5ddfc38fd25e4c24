/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SVG chart of a throughput curve: rate against bytes written (top) and
 * against time (bottom), the plateaus drawn and labelled, the step marked.
 */
#ifndef BLKFLOOR_PLOT_H
#define BLKFLOOR_PLOT_H

#include <stdio.h>

#include "classify.h"

/* Write a standalone SVG document; @title may be NULL. Returns 0 or -EIO. */
int bf_plot_svg(FILE *f, const struct bf_sample *s, size_t n,
		const struct bf_report *r, const char *title);

#endif /* BLKFLOOR_PLOT_H */
