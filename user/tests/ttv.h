/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Time to a verdict (issue 28 §6): the seed articles' drives, scaled down
 * to a tenth of their bytes, on the simulated drive (simdrive.c), each
 * written twice through sustain's stop (sustain.c): with the default
 * (--until floor) and over the whole region (--until full). Both curves
 * are classified as sustain classifies its own.
 */
#ifndef BLKFLOOR_TTV_H
#define BLKFLOOR_TTV_H

#include <stdbool.h>

#include "classify.h"
#include "simdrive.h"

struct ttv_model {
	const char *name;
	const char *seed;		/* what the article measured */
	enum bf_class truth;
	bool step;			/* false: a drive with no step */
	double region;			/* bytes */
	void (*setup)(struct simdrive *d);
};

struct ttv_run {
	enum bf_class class;
	double floor_mbps, bytes, secs;
	char said[400];
	char json[600];		/* the stop object sustain --json prints */
};

extern const struct ttv_model ttv_models[];
extern const unsigned int ttv_nmodels;

/* One model written with @until (BF_UNTIL_FLOOR or BF_UNTIL_FULL). */
int ttv_run(const struct ttv_model *m, enum bf_until until,
	    struct ttv_run *out);

#endif /* BLKFLOOR_TTV_H */
