/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report in words (explain.c): the paragraph, the text and JSON
 * forms, and the projection from a report.
 */
#ifndef BLKFLOOR_EXPLAIN_H
#define BLKFLOOR_EXPLAIN_H

#include <stdio.h>

#include "classify_report.h"

struct bf_json;
struct bf_work;

/* Human-readable report (several lines) and the one-object JSON form. */
void bf_report_print(FILE *f, const struct bf_report *r);
void bf_report_json(FILE *f, const struct bf_report *r);
/* The same object as a member @key (or array element) of a JSON being
 * written, with a "file" member if @file is not NULL. */
void bf_report_json_obj(struct bf_json *j, const char *key,
			const struct bf_report *r, const char *file);

/*
 * Projected seconds to write @job_bytes with this profile, assuming the job
 * starts with the drive idle (cache refilled) and the cache refills only
 * while idle; @end_mbps gets the rate at which the job ends.
 */
double bf_predict_seconds(const struct bf_report *r, double job_bytes,
			  double *end_mbps);

/* The classifier's own: the paragraph, the report's figures, its words. */
void bf_explain(struct bf_report *r, const char *why);
int bf_fill_report(struct bf_work *w, struct bf_report *r);
void bf_words(struct bf_report *r);

#endif /* BLKFLOOR_EXPLAIN_H */
