/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A classification read with the whole run, not only its curve: the op
 * (a read run is worded as reads, not as the drive's writes), the failed
 * I/Os and the latency they cost, and the end state. A run with I/O
 * errors or one that failed gets a lower confidence and says why: its
 * curve shows how the errors were handled (retries, timeouts, resets) as
 * much as the drive. Pure computation on a report and a run summary.
 */
#ifndef BLKFLOOR_RUNFACTS_H
#define BLKFLOOR_RUNFACTS_H

#include <stdio.h>

#include "classify_report.h"
#include "runsum.h"

struct bf_json;

/* The most confidence a class from a run with I/O errors keeps. */
#define BF_ERRORS_CONFIDENCE	0.3

/* The facts of a trace's run summary. */
void bf_run_facts_read(struct bf_run_facts *f, const struct bf_runsum *rs);

/*
 * Give @r the facts of its run @f: the words of a read run as reads, and
 * for I/O errors or a failed run a confidence of at most
 * BF_ERRORS_CONFIDENCE, the errors in the reason and a first sentence of
 * the explanation that says what they mean for the class.
 */
void bf_report_run(struct bf_report *r, const struct bf_run_facts *f);

/* "run: ..." and "errors: ..." lines of the text report (none unknown). */
void bf_run_facts_print(FILE *f, const struct bf_report *r);
/* "run": {...} or null */
void bf_run_facts_json(struct bf_json *j, const struct bf_report *r);

#endif /* BLKFLOOR_RUNFACTS_H */
