// SPDX-License-Identifier: GPL-2.0
/*
 * Curve classification, stage 4: the report in words. The explanation,
 * the text and JSON printers, and the prediction of a job's time.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "classify_int.h"
#include "evidence.h"
#include "explain.h"
#include "feature.h"
#include "fmt.h"
#include "json.h"
#include "origin.h"
#include "runfacts.h"
#include "segment.h"
#include "stats.h"

void bf_explain(struct bf_report *r, const char *why)
{
	char pk[32], fl[32], mn[32], cb[32], tt[32], tb[32];
	char *e = r->explain;
	size_t len = sizeof(r->explain);

	bf_fmt_mbps(pk, sizeof(pk), r->peak_mbps);
	bf_fmt_mbps(fl, sizeof(fl), r->floor_mbps);
	bf_fmt_mbps(mn, sizeof(mn), r->mean_mbps);
	bf_fmt_si_bytes(tb, sizeof(tb), r->total_bytes);
	bf_fmt_secs(tt, sizeof(tt), r->total_s);

	switch (r->class) {
	case BF_CLASS_STEADY:
		snprintf(e, len,
			 "%s: the drive sustains about %s MB/s (mean %s MB/s over %s in %s).",
			 why, fl, mn, tb, tt);
		break;
	case BF_CLASS_CACHE_EXHAUSTION:
		bf_fmt_si_bytes(cb, sizeof(cb), r->cache_bytes);
		snprintf(e, len,
			 "%s, at %.*f s after %s, from %s to %s MB/s: consistent with an SLC cache of about %s running out. Past it the drive writes at %s MB/s (mean %s MB/s over %s in %s).",
			 why, r->step_time_s < 100 ? 1 : 0, r->step_time_s, cb,
			 pk, fl, cb, fl, mn, tb, tt);
		break;
	case BF_CLASS_THERMAL_THROTTLING:
		snprintf(e, len,
			 "%s: consistent with a controller throttling for heat (a cache that ran out does not refill while writing; a temperature record would decide). Peak %s, floor %s, mean %s MB/s over %s in %s.",
			 why, pk, fl, mn, tb, tt);
		break;
	case BF_CLASS_FTL_STARVATION:
		snprintf(e, len,
			 "%s: consistent with garbage collection in an FTL with almost no free blocks, typically a drive that never gets TRIM; a full-device discard usually restores a steady rate. Between about %s and %s MB/s, mean %s MB/s over %s in %s.",
			 why, fl, pk, mn, tb, tt);
		break;
	case BF_CLASS_UNCLEAR:
	case BF_CLASS_COUNT:
		snprintf(e, len,
			 "%s. Peak %s, mean %s MB/s over %s in %s: not enough to name a cause.",
			 why, pk, mn, tb, tt);
		break;
	}
}

int bf_fill_report(struct bf_work *w, struct bf_report *r)
{
	size_t g;

	r->nseg = w->nseg;
	r->seg = calloc(w->nseg, sizeof(*r->seg));
	if (!r->seg)
		return -ENOMEM;
	for (g = 0; g < w->nseg; g++) {
		struct bf_segment *o = &r->seg[g];
		const struct bf_seg *i = &w->seg[g];

		o->first = i->first;
		o->last = i->last;
		o->start_s = w->s[i->first].t - w->s[i->first].dt;
		o->end_s = w->s[i->last].t;
		o->bytes = i->bytes;
		o->mean_mbps = i->dur > 0 ? i->bytes / i->dur / 1e6 : 0;
		o->level_mbps = exp(i->lvl);
		o->sd_mbps = bf_seg_sd_mbps(w, i);
		o->nsamples = bf_seg_n(i);
		o->nexcursions = i->nexc;
	}
	return 0;
}

static void stall_words(const struct bf_report *r, char *b, size_t len)
{
	if (!r->stalls.count) {
		*b = 0;
		return;
	}
	snprintf(b, len, " The rate stalled at ~0 %u time%s (longest %.1f s, %.1f s in all), left out of the plateaus.",
		 r->stalls.count, r->stalls.count > 1 ? "s" : "",
		 r->stalls.longest_s, r->stalls.total_s);
}

/* The paragraph: the reason, capitalised, the cause, the stalls. */
void bf_words(struct bf_report *r)
{
	char why[256], st[200];

	stall_words(r, st, sizeof(st));
	snprintf(why, sizeof(why), "%s", r->reason);
	if (why[0])
		why[0] = toupper((unsigned char)why[0]);
	bf_explain(r, why);
	if (strlen(r->explain) + strlen(st) < sizeof(r->explain))
		strcat(r->explain, st);
}

/* ---- printers ----------------------------------------------------------- */

static const char *floor_kind_name(enum bf_floor_kind k)
{
	return k == BF_FLOOR_PERIODIC ? "periodic" :
	       k == BF_FLOOR_ERRATIC ? "erratic" : "steady";
}

void bf_report_print(FILE *f, const struct bf_report *r)
{
	char a[32], b[32], c[32];
	size_t i;

	fprintf(f, "class: %s (confidence %.2f%s)\n", bf_class_name(r->class),
		r->confidence, r->confirmed || r->class == BF_CLASS_UNCLEAR ?
		"" : ", shape only; run `diagnose` to confirm");
	fprintf(f, "reason: %s\n", r->reason);
	bf_run_facts_print(f, r);
	bf_evidence_print(f, r);
	bf_fmt_mbps(a, sizeof(a), r->peak_mbps);
	bf_fmt_mbps(b, sizeof(b), r->floor_mbps);
	bf_fmt_mbps(c, sizeof(c), r->mean_mbps);
	fprintf(f, "peak: %s MB/s\nfloor: %s MB/s\nmean: %s MB/s\n", a, b, c);
	bf_fmt_si_bytes(a, sizeof(a), r->total_bytes);
	bf_fmt_secs(b, sizeof(b), r->total_s);
	fprintf(f, "%s: %s in %s\n", strcmp(r->run.op, "read") ? "written" :
		"read", a, b);
	if (r->has_step) {
		bf_fmt_si_bytes(a, sizeof(a), r->cache_bytes);
		fprintf(f, "step: at %.1f s\ncache: %s (%.0f bytes)\n",
			r->step_time_s, a, r->cache_bytes);
	}
	fprintf(f, "recovered: %s\n", r->recovered ? "yes" : "no");
	if (r->stalls.count)
		fprintf(f, "stalls: %u (longest %.1f s, %.1f s in all)\n",
			r->stalls.count, r->stalls.longest_s,
			r->stalls.total_s);
	else
		fprintf(f, "stalls: none\n");
	if (r->link.n) {
		char ev[256];

		bf_link_events_words(&r->link, ev, sizeof(ev));
		fprintf(f, "link events: %s\n", ev);
	}
	fprintf(f, "floor behaviour: %s", floor_kind_name(r->floor_kind));
	if (r->floor_kind == BF_FLOOR_PERIODIC)
		fprintf(f, ", every %.1f s, %.0f %% of the time up",
			r->floor_period_s, 100 * r->floor_duty);
	fprintf(f, "\ntrend: %+.0f %% (straight-line fit %s)\n",
		100 * r->trend_rel, r->has_step ? "after the step" : "over the run");
	for (i = 0; i < r->nsteps; i++) {
		bf_fmt_si_bytes(a, sizeof(a), r->steps[i].bytes);
		fprintf(f, "step %zu: at %.1f s after %s, %.2fx %s\n", i + 1,
			r->steps[i].time_s, a,
			r->steps[i].ratio >= 1 ? r->steps[i].ratio :
						 1 / r->steps[i].ratio,
			r->steps[i].ratio >= 1 ? "down" : "up");
	}
	if (r->erratic)
		fprintf(f, "erratic: yes (no stable plateau)\n");
	if (r->cycle_s > 0)
		fprintf(f, "cycle: %.2f s\n", r->cycle_s);
	if (r->temp.n)
		fprintf(f, "temperature: %.1f °C at the start, %.1f max, %.1f at the end (%zu readings); %s\n",
			r->temp.start_c, r->temp.max_c, r->temp.end_c,
			r->temp.n, r->temp.said);
	else
		fprintf(f, "temperature: not measured\n");
	fprintf(f, "plateaus: %zu\n", r->nseg);
	for (i = 0; i < r->nseg; i++) {
		const struct bf_segment *g = &r->seg[i];

		bf_fmt_mbps(a, sizeof(a), g->level_mbps);
		bf_fmt_si_bytes(b, sizeof(b), g->bytes);
		fprintf(f, "  %10.1f s .. %10.1f s  %10s MB/s  %10s", g->start_s,
			g->end_s, a, b);
		if (g->nexcursions)
			fprintf(f, "  (%u short excursions ignored)",
				g->nexcursions);
		/* skewed samples: the level is a median, a job gets the mean */
		if (g->mean_mbps > 0 &&
		    fabs(g->level_mbps / g->mean_mbps - 1) > 0.1) {
			bf_fmt_mbps(a, sizeof(a), g->mean_mbps);
			fprintf(f, "  (median; mean %s MB/s)", a);
		}
		fputc('\n', f);
	}
	fprintf(f, "\n%s\n", r->explain);
}

static double r3(double v)
{
	return round(v * 1000) / 1000;
}

void bf_report_json(FILE *f, const struct bf_report *r)
{
	struct bf_json j;

	bf_json_init(&j, f);
	bf_report_json_obj(&j, NULL, r, NULL);
}

void bf_report_json_obj(struct bf_json *j, const char *key,
			const struct bf_report *r, const char *file)
{
	size_t i;

	bf_json_obj_open(j, key);
	bf_json_u64(j, "schema", BF_SCHEMA_VERSION);
	if (file)
		bf_json_str(j, "file", file);
	bf_json_str(j, "class", bf_class_name(r->class));
	bf_json_double(j, "confidence", r->confidence);
	bf_json_str(j, "reason", r->reason);
	bf_run_facts_json(j, r);
	bf_evidence_json(j, r);
	bf_json_double(j, "peak_MBps", r3(r->peak_mbps));
	bf_json_double(j, "floor_MBps", r3(r->floor_mbps));
	bf_json_double(j, "mean_MBps", r3(r->mean_mbps));
	if (r->has_step) {
		bf_json_u64(j, "cache_bytes", llround(r->cache_bytes));
		bf_json_double(j, "step_time_s", r3(r->step_time_s));
	} else {
		bf_json_null(j, "cache_bytes");
		bf_json_null(j, "step_time_s");
	}
	bf_json_bool(j, "recovered", r->recovered);
	bf_json_bool(j, "erratic", r->erratic);
	if (r->cycle_s > 0)
		bf_json_double(j, "cycle_s", r3(r->cycle_s));
	else
		bf_json_null(j, "cycle_s");
	bf_json_obj_open(j, "stalls");
	bf_json_u64(j, "count", r->stalls.count);
	bf_json_double(j, "longest_s", r3(r->stalls.longest_s));
	bf_json_double(j, "total_s", r3(r->stalls.total_s));
	bf_json_obj_close(j);
	bf_json_obj_open(j, "link_events");
	bf_json_u64(j, "abort", r->link.abort);
	bf_json_u64(j, "reset", r->link.reset);
	bf_json_u64(j, "timeout", r->link.timeout);
	bf_json_u64(j, "disconnect", r->link.disconnect);
	bf_json_u64(j, "offline", r->link.offline);
	bf_json_u64(j, "link", r->link.link);
	bf_json_u64(j, "host", r->link.host);
	bf_json_arr_open(j, "reset_s");
	for (i = 0; i < r->link.nreset_s; i++)
		bf_json_double(j, NULL, r3(r->link.reset_s[i]));
	bf_json_arr_close(j);
	bf_json_obj_close(j);
	bf_json_arr_open(j, "steps");
	for (i = 0; i < r->nsteps; i++) {
		bf_json_obj_open(j, NULL);
		bf_json_double(j, "time_s", r3(r->steps[i].time_s));
		bf_json_u64(j, "bytes", llround(fmax(r->steps[i].bytes, 0)));
		bf_json_double(j, "ratio", r3(r->steps[i].ratio));
		bf_json_obj_close(j);
	}
	bf_json_arr_close(j);
	bf_json_obj_open(j, "floor");
	bf_json_str(j, "behaviour", floor_kind_name(r->floor_kind));
	if (r->floor_kind == BF_FLOOR_PERIODIC) {
		bf_json_double(j, "period_s", r3(r->floor_period_s));
		bf_json_double(j, "duty", r3(r->floor_duty));
	} else {
		bf_json_null(j, "period_s");
		bf_json_null(j, "duty");
	}
	bf_json_obj_close(j);
	bf_json_double(j, "trend_rel", r3(r->trend_rel));
	if (r->temp.n) {
		bf_json_obj_open(j, "temperature");
		bf_json_u64(j, "readings", r->temp.n);
		bf_json_double(j, "start_c", r3(r->temp.start_c));
		bf_json_double(j, "max_c", r3(r->temp.max_c));
		bf_json_double(j, "end_c", r3(r->temp.end_c));
		if (isnan(r->temp.corr))
			bf_json_null(j, "corr");
		else
			bf_json_double(j, "corr", r3(r->temp.corr));
		if (isnan(r->temp.dcorr))
			bf_json_null(j, "heating_corr");
		else
			bf_json_double(j, "heating_corr", r3(r->temp.dcorr));
		bf_json_str(j, "evidence", r->temp.evidence > 0 ? "for heat" :
			    r->temp.evidence < 0 ? "against heat" : "none");
		bf_json_str(j, "said", r->temp.said);
		bf_json_obj_close(j);
	} else {
		bf_json_null(j, "temperature");
	}
	bf_json_u64(j, "total_bytes", llround(r->total_bytes));
	bf_json_double(j, "total_s", r3(r->total_s));
	bf_json_double(j, "noise_rel", round(r->noise_rel * 1e4) / 1e4);
	bf_json_arr_open(j, "segments");
	for (i = 0; i < r->nseg; i++) {
		const struct bf_segment *g = &r->seg[i];

		bf_json_obj_open(j, NULL);
		bf_json_double(j, "start_s", r3(g->start_s));
		bf_json_double(j, "end_s", r3(g->end_s));
		bf_json_double(j, "mean_MBps", r3(g->mean_mbps));
		bf_json_double(j, "level_MBps", r3(g->level_mbps));
		bf_json_u64(j, "bytes", llround(g->bytes));
		bf_json_u64(j, "samples", g->nsamples);
		bf_json_u64(j, "excursions", g->nexcursions);
		bf_json_obj_close(j);
	}
	bf_json_arr_close(j);
	bf_json_str(j, "explanation", r->explain);
	bf_json_warnings(j, "warnings", r->warnings);
	bf_json_obj_close(j);
}

/* ---- prediction ------------------------------------------------------- */

double bf_predict_seconds(const struct bf_report *r, double job_bytes,
			  double *end_mbps)
{
	double t = 0, left = job_bytes, tail;
	size_t i;

	if (!r->nseg || !(job_bytes > 0)) {
		if (end_mbps)
			*end_mbps = r->nseg ? r->seg[0].mean_mbps : 0;
		return 0;
	}
	for (i = 0; i < r->nseg; i++) {
		const struct bf_segment *g = &r->seg[i];
		double rate = g->mean_mbps * 1e6;

		if (!(rate > 0))
			continue;
		if (g->bytes >= left) {
			if (end_mbps)
				*end_mbps = g->mean_mbps;
			return t + left / rate;
		}
		t += g->end_s - g->start_s;
		left -= g->bytes;
	}
	/* past the measured profile: an erratic or cycling drive (or an FTL
	 * running backwards) at its long-run mean, any other at the rate it
	 * had when the measurement ended */
	tail = r->class == BF_CLASS_FTL_STARVATION || r->erratic ?
	       r->mean_mbps : r->seg[r->nseg - 1].mean_mbps;
	if (end_mbps)
		*end_mbps = tail;
	return tail > 0 ? t + left / (tail * 1e6) : INFINITY;
}
