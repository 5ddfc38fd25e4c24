/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A trial of diagnose's experiments (experiment.h): an idle gap and the
 * probe write after it, as a trace records it in a line "# experiment:
 * idle at T s for S s[, after a discard][, then a write capped at C MB/s[
 * for B bytes]]". The line's words and their reader; no other
 * dependency, so that every reader of traces can use them.
 */
#ifndef BLKFLOOR_TRIAL_H
#define BLKFLOOR_TRIAL_H

#include <stdbool.h>
#include <stddef.h>

/* An idle gap and the probe after it, as a trace records it. */
struct bf_trial {
	double gap_s;		/* idle before the probe (0: at once) */
	double cap_mbps;	/* the probe's cap (0: none) */
	double cap_bytes;	/* ... for these bytes (0: the whole probe) */
	bool discard;		/* the region was discarded before the gap */
};

/*
 * A trial as the trace's "# experiment: idle at T s for S s[, ...]" line
 * words it after "idle at T s" (into @buf), and read back: returns true
 * if @line (from "idle at") is one, with its time into the run in @at_s.
 */
void bf_trial_words(const struct bf_trial *t, double at_s, char *buf,
		    size_t len);
bool bf_trial_parse(const char *line, struct bf_trial *t, double *at_s);

#endif /* BLKFLOOR_TRIAL_H */
