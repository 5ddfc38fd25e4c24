/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Evidence for a cause beyond the curve's shape. The shape is a hint: a
 * verdict read from it alone has its confidence capped at
 * BF_SHAPE_CONF_MAX and says "shape only; run `diagnose` to confirm". An
 * experiment (experiment.c: idle recovery, cool-down, TRIM retest) that
 * confirms a cause lifts the cap, or changes the verdict when it points at
 * another cause. Pure computation and printers.
 */
#ifndef BLKFLOOR_EVIDENCE_H
#define BLKFLOOR_EVIDENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define BF_SHAPE_CONF_MAX	0.7
/* a cause an experiment confirmed: what the shape said agrees */
#define BF_CONFIRMED_CONF	0.95
/* ... or the experiment overrode the shape */
#define BF_OVERRIDE_CONF	0.85

enum bf_exp_kind {
	BF_EXP_IDLE_RECOVERY,	/* idle gaps, then bytes at the high rate */
	BF_EXP_COOL_DOWN,	/* what ends the high rate: bytes or time */
	BF_EXP_TRIM_RETEST,	/* discard, idle, write again */
	BF_EXP_COUNT,
};

/**
 * struct bf_evidence - one experiment's outcome
 * @kind: which experiment
 * @supports: the enum bf_class its result points at, or -1 for none
 * @confirms: @supports is confirmed, not only consistent with the result
 * @bytes: bytes it wrote (its cost in wear)
 * @secs: seconds it took, idle included
 * @result: what it measured, in words
 * @effect: what it did to the verdict (bf_report_apply_evidence())
 */
struct bf_evidence {
	enum bf_exp_kind kind;
	int supports;
	bool confirms;
	double bytes, secs;
	char result[512];
	char effect[160];
};

struct bf_report;
struct bf_json;

const char *bf_exp_name(enum bf_exp_kind k);

/*
 * The cap on a report bf_classify() just made (it calls this): keeps the
 * shape's own confidence in r->shape_confidence.
 */
void bf_report_shape_only(struct bf_report *r);

/*
 * Weigh @n experiments into @r: the verdict, its confidence and reason,
 * and each experiment's @effect. @r keeps a pointer to @ev (its printers
 * list them): @ev must outlive @r's use.
 */
void bf_report_apply_evidence(struct bf_report *r, struct bf_evidence *ev,
			      size_t n);

/* the line's room: the words, and the fields before them */
#define BF_EVIDENCE_LINE_MAX	(sizeof(((struct bf_evidence *)0)->result) + 256)

/*
 * One experiment's outcome as a trace keeps it, after "# experiment: ":
 * "result KIND supports=CLASS|none confirms=yes|no cost_bytes=N
 * cost_s=S: RESULT", and read back (true if @line, from "result", is
 * one; the effect is left empty: bf_report_apply_evidence() words it).
 */
void bf_evidence_line(const struct bf_evidence *e, char *buf, size_t len);
bool bf_evidence_parse(const char *line, struct bf_evidence *e);

/* "evidence: ..." lines, and the "evidence" list as a JSON member. */
void bf_evidence_print(FILE *f, const struct bf_report *r);
void bf_evidence_json(struct bf_json *j, const struct bf_report *r);

#endif /* BLKFLOOR_EVIDENCE_H */
