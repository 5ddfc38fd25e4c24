// SPDX-License-Identifier: GPL-2.0
/*
 * Confidence follows evidence: the cap on a shape-only verdict, and how
 * experiments change it. See evidence.h.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "classify_report.h"
#include "evidence.h"
#include "fmt.h"
#include "json.h"

static const char *const exp_names[BF_EXP_COUNT] = {
	[BF_EXP_IDLE_RECOVERY] = "idle-recovery",
	[BF_EXP_COOL_DOWN] = "cool-down",
	[BF_EXP_TRIM_RETEST] = "trim-retest",
};

const char *bf_exp_name(enum bf_exp_kind k)
{
	return (unsigned int)k < BF_EXP_COUNT ? exp_names[k] : "unknown";
}

void bf_report_shape_only(struct bf_report *r)
{
	r->shape_confidence = r->confidence;
	if (r->confidence > BF_SHAPE_CONF_MAX)
		r->confidence = BF_SHAPE_CONF_MAX;
	r->confirmed = false;
	r->ev = NULL;
	r->nev = 0;
	r->ev_from_trace = false;
}

static const char *basis(const struct bf_report *r)
{
	if (!r->confirmed)
		return "shape";
	return r->ev_from_trace ? "experiment in the trace" : "experiment";
}

static bool is_class(int c)
{
	return c >= 0 && c < BF_CLASS_COUNT;
}

void bf_report_apply_evidence(struct bf_report *r, struct bf_evidence *ev,
			      size_t n)
{
	int cause = -1, shape = r->class;
	size_t i;
	char was[sizeof(r->reason)];

	r->ev = ev;
	r->nev = n;
	/* what the confirming experiments point at */
	for (i = 0; i < n; i++) {
		if (!ev[i].confirms || !is_class(ev[i].supports))
			continue;
		if (cause < 0)
			cause = ev[i].supports;
		else if (cause != ev[i].supports)
			cause = -2;
	}
	snprintf(was, sizeof(was), "%s", r->reason);
	if (cause == -2) {
		r->class = BF_CLASS_UNCLEAR;
		r->confidence = 0;
		r->confirmed = false;
		snprintf(r->reason, sizeof(r->reason),
			 "the experiments disagree on the cause (the shape alone said %s)",
			 bf_class_name(shape));
	} else if (cause >= 0 && cause == shape) {
		r->confidence = fmax(r->shape_confidence, BF_CONFIRMED_CONF);
		r->confirmed = true;
	} else if (cause >= 0) {
		r->class = cause;
		r->confidence = BF_OVERRIDE_CONF;
		r->confirmed = true;
		snprintf(r->reason, sizeof(r->reason),
			 "an experiment points at %s; the shape alone said %s (%.80s)",
			 bf_class_name(cause), bf_class_name(shape), was);
	}
	for (i = 0; i < n; i++) {
		struct bf_evidence *e = &ev[i];

		if (cause == -2 && e->confirms)
			snprintf(e->effect, sizeof(e->effect),
				 "confirms %s, against another experiment: unclear",
				 bf_class_name(e->supports));
		else if (e->confirms && is_class(e->supports) &&
			 e->supports == shape)
			snprintf(e->effect, sizeof(e->effect),
				 "confirms %s, the shape's verdict",
				 bf_class_name(e->supports));
		else if (e->confirms && is_class(e->supports))
			snprintf(e->effect, sizeof(e->effect),
				 "changes the verdict from %s to %s",
				 bf_class_name(shape), bf_class_name(e->supports));
		else if (is_class(e->supports))
			snprintf(e->effect, sizeof(e->effect),
				 "consistent with %s, not proof of it",
				 bf_class_name(e->supports));
		else
			snprintf(e->effect, sizeof(e->effect), "none");
	}
}

void bf_evidence_line(const struct bf_evidence *e, char *buf, size_t len)
{
	snprintf(buf, len,
		 "result %s supports=%s confirms=%s cost_bytes=%.0f cost_s=%.3f: %s",
		 bf_exp_name(e->kind),
		 is_class(e->supports) ?
		 bf_class_name((enum bf_class)e->supports) : "none",
		 e->confirms ? "yes" : "no", fmax(e->bytes, 0), e->secs,
		 e->result);
}

bool bf_evidence_parse(const char *line, struct bf_evidence *e)
{
	char kind[32], sup[32], conf[8];
	int k, c, pos = 0;

	memset(e, 0, sizeof(*e));
	if (sscanf(line, "result %31s supports=%31s confirms=%7s cost_bytes=%lf cost_s=%lf: %n",
		   kind, sup, conf, &e->bytes, &e->secs, &pos) != 5 || !pos ||
	    !isfinite(e->bytes) || !isfinite(e->secs))
		return false;
	for (k = 0; k < BF_EXP_COUNT && strcmp(kind, exp_names[k]); k++)
		;
	if (k == BF_EXP_COUNT)
		return false;
	e->kind = (enum bf_exp_kind)k;
	e->supports = -1;
	for (c = 0; c < BF_CLASS_COUNT; c++)
		if (!strcmp(sup, bf_class_name((enum bf_class)c)))
			e->supports = c;
	if (e->supports < 0 && strcmp(sup, "none"))
		return false;
	if (strcmp(conf, "yes") && strcmp(conf, "no"))
		return false;
	e->confirms = !strcmp(conf, "yes") && e->supports >= 0;
	snprintf(e->result, sizeof(e->result), "%s", line + pos);
	return true;
}

void bf_evidence_print(FILE *f, const struct bf_report *r)
{
	char b[32], s[32];
	size_t i;

	if (r->nev)
		fprintf(f, "basis: %s\n", basis(r));
	for (i = 0; i < r->nev; i++) {
		const struct bf_evidence *e = &r->ev[i];

		bf_fmt_si_bytes(b, sizeof(b), e->bytes);
		bf_fmt_secs(s, sizeof(s), e->secs);
		fprintf(f, "evidence: %s: %s (cost %s, %s); effect: %s\n",
			bf_exp_name(e->kind), e->result, b, s, e->effect);
	}
}

void bf_evidence_json(struct bf_json *j, const struct bf_report *r)
{
	size_t i;

	bf_json_str(j, "basis", basis(r));
	bf_json_double(j, "shape_confidence",
		       round(r->shape_confidence * 1000) / 1000);
	bf_json_arr_open(j, "evidence");
	for (i = 0; i < r->nev; i++) {
		const struct bf_evidence *e = &r->ev[i];

		bf_json_obj_open(j, NULL);
		bf_json_str(j, "experiment", bf_exp_name(e->kind));
		bf_json_str(j, "result", e->result);
		if (is_class(e->supports))
			bf_json_str(j, "supports",
				    bf_class_name((enum bf_class)e->supports));
		else
			bf_json_null(j, "supports");
		bf_json_bool(j, "confirms", e->confirms);
		bf_json_u64(j, "cost_bytes", (uint64_t)llround(fmax(e->bytes, 0)));
		bf_json_double(j, "cost_s", round(e->secs * 1000) / 1000);
		bf_json_str(j, "effect", e->effect);
		bf_json_obj_close(j);
	}
	bf_json_arr_close(j);
}
