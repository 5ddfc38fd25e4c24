// SPDX-License-Identifier: GPL-2.0
/*
 * A trial's line in a trace: see trial.h.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "trial.h"

void bf_trial_words(const struct bf_trial *t, double at_s, char *buf,
		    size_t len)
{
	int n = snprintf(buf, len, "idle at %.3f s for %.3f s%s", at_s,
			 t->gap_s, t->discard ? ", after a discard" : "");

	if (n < 0 || (size_t)n >= len || !(t->cap_mbps > 0))
		return;
	if (t->cap_bytes > 0)
		snprintf(buf + n, len - n,
			 ", then a write capped at %.3f MB/s for %.0f bytes",
			 t->cap_mbps, t->cap_bytes);
	else
		snprintf(buf + n, len - n, ", then a write capped at %.3f MB/s",
			 t->cap_mbps);
}

bool bf_trial_parse(const char *line, struct bf_trial *t, double *at_s)
{
	const char *p;

	memset(t, 0, sizeof(*t));
	if (sscanf(line, "idle at %lf s for %lf s", at_s, &t->gap_s) != 2 ||
	    !isfinite(*at_s) || !isfinite(t->gap_s) || t->gap_s < 0)
		return false;
	t->discard = strstr(line, ", after a discard") != NULL;
	p = strstr(line, ", then a write capped at ");
	if (p && sscanf(p, ", then a write capped at %lf MB/s for %lf bytes",
			&t->cap_mbps, &t->cap_bytes) < 1)
		return false;
	if (!isfinite(t->cap_mbps) || t->cap_mbps < 0 ||
	    !isfinite(t->cap_bytes) || t->cap_bytes < 0)
		return false;
	return true;
}
