/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The classifier's stage 1 (segment.c): the plateaus, from the noise and
 * the change points, cleaned up.
 */
#ifndef BLKFLOOR_SEGMENT_H
#define BLKFLOOR_SEGMENT_H

#include <stdbool.h>
#include <stddef.h>

#include "classify_int.h"

double bf_bytes_before(const struct bf_work *w, size_t i);
size_t bf_seg_n(const struct bf_seg *g);
bool bf_seg_similar(const struct bf_work *w, const struct bf_seg *a,
		    const struct bf_seg *b);
double bf_noise(struct bf_work *w);
int bf_change_points(struct bf_work *w, struct bf_seg **raw);
void bf_seg_cleanup(struct bf_work *w, double total);

#endif /* BLKFLOOR_SEGMENT_H */
