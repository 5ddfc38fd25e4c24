// SPDX-License-Identifier: GPL-2.0
/*
 * A classification's report: the classes' names, and freeing a report.
 */
#include <stdlib.h>

#include "classify_report.h"

const char *bf_class_name(enum bf_class c)
{
	switch (c) {
	case BF_CLASS_STEADY:
		return "steady";
	case BF_CLASS_CACHE_EXHAUSTION:
		return "cache-exhaustion";
	case BF_CLASS_THERMAL_THROTTLING:
		return "thermal-throttling";
	case BF_CLASS_FTL_STARVATION:
		return "ftl-starvation";
	case BF_CLASS_UNCLEAR:
		return "unclear";
	case BF_CLASS_COUNT:
		break;
	}
	return "unknown";
}

void bf_report_free(struct bf_report *r)
{
	free(r->seg);
	r->seg = NULL;
	r->nseg = 0;
}
