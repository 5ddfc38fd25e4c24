/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The classifier's stage 2 (features.c): what the plateaus say.
 */
#ifndef BLKFLOOR_FEATURE_H
#define BLKFLOOR_FEATURE_H

#include <stdbool.h>
#include <stddef.h>

#include "classify_int.h"

void bf_two_means(struct bf_work *w, double *lo, double *hi,
		  size_t *nlo, size_t *nhi);
void bf_short_first_level(struct bf_work *w);
double bf_seg_sd_mbps(const struct bf_work *w, const struct bf_seg *g);
void bf_locate_step(const struct bf_work *w, size_t b, double hi,
		    double lo, double *t, double *bytes);
bool bf_bimodal(struct bf_work *w, double lo, double hi);
void bf_features(struct bf_work *w, struct bf_feat *f);
bool bf_recovered(const struct bf_work *w);
double bf_cliff(const struct bf_work *w, double total);
bool bf_staircase(const struct bf_work *w, double drop, double total);
bool bf_linear(const struct bf_work *w, const struct bf_feat *f);
double bf_deepest_step(const struct bf_work *w);
void bf_fill_steps(const struct bf_work *w, struct bf_report *r);
void bf_floor_behaviour(struct bf_work *w, const struct bf_feat *f,
			struct bf_report *r);
double bf_clamp01(double v);
double bf_confidence(size_t nmin, double margin);
double bf_after_mean(const struct bf_work *w, size_t i);
double bf_trend_from(const struct bf_work *w, size_t from);
double bf_jitter_mean(const struct bf_work *w, const struct bf_seg *g);

#endif /* BLKFLOOR_FEATURE_H */
