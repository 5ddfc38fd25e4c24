// SPDX-License-Identifier: GPL-2.0
/*
 * A verdict survives its trace: classify of a trace that diagnose wrote
 * gives the verdict, confidence and evidence diagnose printed; with the
 * result lines removed, the experiments in the trace (its idle gaps and
 * the probes after them) are judged again by the same rules, and the
 * verdict is the same, on the basis "experiment in the trace".
 *
 * The traces are written as diagnose writes them (realdrive.c and
 * cmd_run.c): the sustained write's intervals, then for each trial an
 * "# experiment: idle at ..." line (bf_trial_words()) and its probe's
 * intervals at their time into the run, then the outcomes
 * (bf_evidence_line()); the drive is the simulated one of
 * test_experiment.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the harness's fixtures define functions without prototypes, and its
 * TEST_F wrapper keeps a pid across a setjmp */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"
#include "cmdtrace.h"
#include "experiment.h"
#include "simdrive.h"
#include "trace.h"

/* A drive that records what diagnose did, as the trace keeps it. */
struct rec {
	struct simdrive *d;
	struct bf_drive inner;
	FILE *f;
	double t;		/* seconds into the run */
	double total;		/* bytes written so far */
	uint64_t index;
};

static void put(struct rec *r, const struct bf_sample *s, size_t n)
{
	char line[BF_TRACE_LINE_MAX];
	size_t i;

	for (i = 0; i < n; i++) {
		struct bf_iv iv = { .have = true };
		double b = s[i].mbps * 1e6 * s[i].dt;

		r->total += b;
		iv.index = r->index++;
		iv.start_ns = (uint64_t)llround(r->t * 1e9);
		r->t += s[i].dt;
		iv.end_ns = (uint64_t)llround(r->t * 1e9);
		iv.bytes = (uint64_t)llround(b);
		iv.ios = iv.bytes / 131072;
		iv.bytes_total = (uint64_t)llround(r->total);
		bf_trace_fmt_iv(line, sizeof(line), &iv);
		fputs(line, r->f);
	}
}

static int rec_write(void *ctx, const struct bf_probe *p,
		     struct bf_series *out)
{
	struct rec *r = ctx;
	size_t n0 = out->n;
	int ret = r->inner.write(r->inner.ctx, p, out);

	/* the probe starts a moment after its idle line */
	r->t += 0.05;
	put(r, out->s + n0, out->n - n0);
	return ret;
}

static int rec_idle(void *ctx, const struct bf_trial *t)
{
	struct rec *r = ctx;
	char line[200];

	bf_trial_words(t, r->t, line, sizeof(line));
	fprintf(r->f, "# experiment: %s\n", line);
	r->t += t->gap_s;
	return r->inner.idle(r->inner.ctx, t);
}

static int rec_discard(void *ctx)
{
	struct rec *r = ctx;

	return r->inner.discard(r->inner.ctx);
}

static int rec_temp(void *ctx, double *c)
{
	struct rec *r = ctx;

	return r->inner.temp(r->inner.ctx, c);
}

/*
 * Sustain @secs on @d at intervals of @iv_s, diagnose, and write it all
 * to @path as diagnose does; the live report (evidence applied) in @rep,
 * its evidence in @dg.
 */
static void diagnose_to(struct __test_metadata *_metadata, const char *path,
			struct simdrive *d, double iv_s, double secs, bool trim,
			struct bf_report *rep, struct bf_diag *dg)
{
	struct bf_series s = { 0 };
	struct bf_diag_cfg cfg;
	struct bf_drive drv;
	struct rec r = { .d = d };
	char line[600];
	size_t i;

	r.f = fopen(path, "w");
	ASSERT_NE(NULL, r.f);
	fprintf(r.f, "%s\n# device: /dev/sdb\n# op: write\n# pattern: seq\n"
		"# bs: 131072\n# qd: 32\n%s\n", BF_TRACE_MAGIC, BF_TRACE_HEADER);
	d->iv_s = iv_s;
	sim_sustain(d, secs, &s);
	put(&r, s.s, s.n);
	fprintf(r.f, "# state: stopped\n# errno: 0\n# dropped: 0\n");
	ASSERT_EQ(0, bf_classify(s.s, s.n, rep));
	bf_series_free(&s);
	bf_diag_cfg_from_report(&cfg, rep);
	cfg.hold_s = 3 * iv_s;
	cfg.trim = trim;
	cfg.gaps_s[0] = 10;
	cfg.gaps_s[1] = 30;
	cfg.ngaps = 2;
	sim_ops(d, &r.inner);
	drv = (struct bf_drive){
		.write = rec_write, .idle = rec_idle, .discard = rec_discard,
		.temp = rec_temp, .ctx = &r,
	};
	ASSERT_EQ(0, bf_diagnose(&drv, &cfg, dg));
	bf_report_apply_evidence(rep, dg->ev, dg->nev);
	for (i = 0; i < dg->nev; i++) {
		bf_evidence_line(&dg->ev[i], line, sizeof(line));
		fprintf(r.f, "# experiment: %s\n", line);
	}
	fclose(r.f);
}

/* @path without its "# experiment: result" lines, into @out. */
static void strip_results(const char *path, const char *out)
{
	FILE *f = fopen(path, "r"), *o = fopen(out, "w");
	char line[1024];

	while (f && o && fgets(line, sizeof(line), f))
		if (strncmp(line, "# experiment: result ", 21))
			fputs(line, o);
	if (f)
		fclose(f);
	if (o)
		fclose(o);
}

/* The JSON string value after "@key": in @json, or "" (static buffer). */
static const char *jstr(const char *json, const char *key, int nth)
{
	static char v[512];
	char pat[64];
	const char *p = json, *e;
	int k;

	snprintf(pat, sizeof(pat), "\"%s\":\"", key);
	for (k = 0; p && k <= nth; k++) {
		p = strstr(p, pat);
		if (p && k < nth)
			p++;
	}
	v[0] = '\0';
	if (!p)
		return v;
	p += strlen(pat);
	e = strchr(p, '"');
	snprintf(v, sizeof(v), "%.*s", e ? (int)(e - p) : 0, p);
	return v;
}

static double jnum(const char *json, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(json, pat);
	return p ? strtod(p + strlen(pat), NULL) : NAN;
}

/* The raw JSON value after "@key": number @nth (static buffer). */
static const char *jraw(const char *json, const char *key, int nth)
{
	static char v[64];
	char pat[64];
	const char *p = json;
	int k;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	for (k = 0; p && k <= nth; k++) {
		p = strstr(p, pat);
		if (p && k < nth)
			p++;
	}
	v[0] = '\0';
	if (p) {
		p += strlen(pat);
		snprintf(v, sizeof(v), "%.*s", (int)strcspn(p, ",}"), p);
	}
	return v;
}

/*
 * classify --json of @path: the class, confidence and basis diagnose
 * gave (@rep), and each experiment's outcome: with @exact its result in
 * words (the first characters: JSON escapes the degree sign and quotes,
 * not the words), else what it supports and whether it confirms it (the
 * figures judged again from the trace's rounded bytes and times can
 * differ in their last digit).
 */
static void check_classify(struct __test_metadata *_metadata,
			   const char *path, const struct bf_report *rep,
			   const struct bf_diag *dg, const char *basis,
			   bool exact)
{
	char out[] = "/tmp/bf-diagtrace-out-XXXXXX";
	const char *args[] = { path, "--json", NULL };
	const char *json;
	char want[64];
	size_t i;
	int fd = mkstemp(out);

	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_EQ(0, run_cmd("classify", out, args));
	json = slurp(out);
	unlink(out);
	EXPECT_STREQ(bf_class_name(rep->class), jstr(json, "class", 0)) TH_LOG("%s", json);
	EXPECT_LT(fabs(jnum(json, "confidence") - rep->confidence), 0.001)
		TH_LOG("%g against %g: %s", jnum(json, "confidence"),
		       rep->confidence, json);
	EXPECT_STREQ(basis, jstr(json, "basis", 0));
	for (i = 0; i < dg->nev; i++) {
		const struct bf_evidence *e = &dg->ev[i];
		const char *got = jstr(json, "result", (int)i);

		if (exact) {
			EXPECT_EQ(0, strncmp(e->result, got,
					     strcspn(e->result, "\"\\°")))
				TH_LOG("%s\n  against %s", e->result, got);
		} else {
			EXPECT_STREQ(e->confirms ? "true" : "false",
				     jraw(json, "confirms", (int)i))
				TH_LOG("%s\n  against %s", e->result, got);
		}
		snprintf(want, sizeof(want), e->supports >= 0 ? "\"%s\"" : "null",
			 bf_class_name((enum bf_class)e->supports));
		EXPECT_STREQ(want, jraw(json, "supports", (int)i));
	}
}

FIXTURE(diag) {
	char path[64], bare[80];
};

FIXTURE_VARIANT(diag) {
	int kind;		/* 0 cache, 1 heat, 2 starved FTL with TRIM */
	double iv_s;
};

FIXTURE_VARIANT_ADD(diag, fast_refill_cache) { .kind = 0, .iv_s = 1 };
FIXTURE_VARIANT_ADD(diag, fast_heat) { .kind = 1, .iv_s = 1 };
FIXTURE_VARIANT_ADD(diag, fast_heat_200ms) { .kind = 1, .iv_s = 0.2 };
FIXTURE_VARIANT_ADD(diag, starved_ftl_trim) { .kind = 2, .iv_s = 1 };

FIXTURE_SETUP(diag)
{
	int fd;

	snprintf(self->path, sizeof(self->path), "/tmp/bf-diagtrace-XXXXXX");
	fd = mkstemp(self->path);
	ASSERT_LE(0, fd);
	close(fd);
	snprintf(self->bare, sizeof(self->bare), "%s.bare", self->path);
}

FIXTURE_TEARDOWN(diag)
{
	if (getenv("KEEP43"))
		rename(self->path, getenv("KEEP43"));
	unlink(self->path);
	unlink(self->bare);
}

TEST_F(diag, same_verdict_from_the_trace)
{
	struct simdrive d;
	struct bf_report rep;
	struct bf_diag dg;
	double secs = 30;

	if (variant->kind == 0) {
		sim_init(&d, 200, 25, 21);
		d.cache = true;
		d.cache_bytes = 400e6;
		d.refill_bps = 50e6;
	} else if (variant->kind == 1) {
		sim_init(&d, 200, 150, 22);
		d.heat = true;
		d.heat_k = 0.1;
		d.tau_s = 5;
		d.t_hot = 80.3;
		d.t_cool = 70;
		d.thr_mbps = 150;
	} else {
		sim_init(&d, 940, 400, 23);
		d.ftl = true;
		d.gc_mbps = 700;
		d.gc_period_s = 30;
		d.clean_bytes = 100e9;
		d.discard_ok = true;
		secs = 280;
	}
	d.noise = 0.03;
	diagnose_to(_metadata, self->path, &d, variant->iv_s, secs,
		    variant->kind == 2, &rep, &dg);
	/* the experiments decided it, as diagnose printed */
	EXPECT_TRUE(rep.confirmed) TH_LOG("%s", rep.reason);
	check_classify(_metadata, self->path, &rep, &dg, "experiment", true);
	/* the result lines removed: judged again from the trace's data */
	strip_results(self->path, self->bare);
	check_classify(_metadata, self->bare, &rep, &dg,
		       "experiment in the trace", false);
	bf_report_free(&rep);
}

TEST_HARNESS_MAIN
