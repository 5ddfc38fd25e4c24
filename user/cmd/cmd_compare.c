// SPDX-License-Identifier: GPL-2.0
/*
 * compare: is B worse than A? One or several runs per side, the setup of
 * each from the trace headers, a row per figure (rates, latency, errors,
 * events, path, stalls) and a verdict that weighs the differences against
 * the spread between runs. The arithmetic is analysis/cmpstat.c; this file
 * reads the runs and prints.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blkfloor.h"
#include "classify.h"
#include "cmpstat.h"
#include "factor.h"
#include "input.h"
#include "json.h"
#include "opts.h"
#include "pathsum.h"
#include "runsum.h"
#include "sysfs.h"
#include "units.h"

#define EXIT_INCONCLUSIVE	3
#define MAXROWS			48
#define EMAIL_COLS		72

struct run {
	const char *path;
	struct bf_input in;		/* the file, its curve in in.ser */
	bool cut, failed, curve, ended;
	bool header;			/* a trace: its setup is recorded */
	struct bf_runsum rs;
	struct bf_series s;		/* in.ser */
	struct bf_report r;
	struct bf_pathsum p;
};

struct cmp {
	struct run *A[BF_CMP_RUNS], *B[BF_CMP_RUNS];
	size_t na, nb;
	struct bf_cmp_row row[MAXROWS];
	size_t nrow;
	char facts[4][128];		/* regressions that are no number */
	size_t nfacts;
	char differs[640];		/* what makes the runs not comparable */
	enum bf_factor want;		/* --vary, or BF_FACTOR_AUTO */
	struct bf_factor_result fac;	/* the factor under test */
	char notes[1024];		/* warnings, "; "-separated */
	double common;			/* bytes every run wrote */
	enum bf_cmp_verdict verdict;
	unsigned int runs;
	const struct bf_cmp_row *first;	/* the row that settles first */
	/* --threshold ROW=PCT */
	struct { const char *row; double pct; } thr[16];
	size_t nthr;
	/* the boots of each run (numbered over both sides) */
	int bootA[BF_CMP_RUNS], bootB[BF_CMP_RUNS];
	size_t nboots, shared;		/* boots; those holding A and B */
	bool noboot;			/* a run without a boot id */
	char starved[160];		/* one side starved of CPU, or "" */
	/* SCSI errors in B: the first result and its kernel-log lines */
	char scsi[3][400];
	size_t nscsi;
	const struct run *scsi_run;	/* ... the run, if recorded */
	const struct bf_rnote *scsi_first;
	bool json;			/* --json: refusals in JSON too */
	bool unfinished;		/* a B run never ended */
	char unended[256];		/* ... which ones */
};

static int bad(const char *why, const char *path)
{
	if (path)
		fprintf(stderr, "blkfloor compare: %s: %s\n", path, why);
	else
		fprintf(stderr, "blkfloor compare: %s\n", why);
	return EXIT_USAGE;
}

/* A file that cannot be compared: one line, and with --json an object. */
static int refuse(const struct cmp *c, const char *why, const char *path)
{
	if (path)
		return bf_refuse("compare", c->json, "%s: %s", path, why);
	return bf_refuse("compare", c->json, "%s", why);
}

static void note(struct cmp *c, const char *path, const char *what)
{
	size_t l = strlen(c->notes);

	snprintf(c->notes + l, sizeof(c->notes) - l, "%s%s: %s",
		 l ? "\n" : "", path, what);
	fprintf(stderr, "blkfloor compare: %s: warning: %s\n", path, what);
}

static int load_run(struct cmp *c, struct run *r, enum bf_format fmt,
		    bool baseline)
{
	char err[400];
	const char *w;
	FILE *f;
	int ret;

	ret = bf_input_read(&r->in, r->path, fmt, err, sizeof(err));
	if (ret)
		return refuse(c, err, NULL);
	r->s = r->in.ser;
	r->cut = r->in.ld.cut;
	if (baseline && r->in.ld.failed)
		return refuse(c, "a failed run cannot be the baseline (A)",
			      r->in.name);
	/* a trace without its trailer never ended: its writer died */
	r->ended = r->in.ld.format != BF_FORMAT_TRACE || r->in.ld.ended;
	for (w = r->in.ld.warn; *w;) {
		char line[512];
		int l = (int)strcspn(w, "\n");

		snprintf(line, sizeof(line), "%.*s", l, w);
		note(c, r->in.name, line);
		w += l + (w[l] == '\n');
	}
	f = bf_input_stream(&r->in);
	if (!f)
		return refuse(c, strerror(errno), r->in.name);
	ret = bf_runsum_read(f, &r->rs, err, sizeof(err));
	fclose(f);
	if (ret)
		return refuse(c, err, r->in.name);
	r->failed = !strcmp(r->rs.state, "failed");

	ret = bf_classify(r->s.s, r->s.n, &r->r);
	if (ret && !r->failed)
		return refuse(c, ret == -EINVAL ?
			      "cannot classify: fewer than 3 samples" :
			      strerror(-ret), r->in.name);
	r->curve = !ret;

	memset(&r->p, 0, sizeof(r->p));
	r->header = r->in.ld.format == BF_FORMAT_TRACE;
	if (r->in.ld.format == BF_FORMAT_TRACE) {
		f = bf_input_stream(&r->in);
		ret = f ? bf_pathsum_read(f, &r->p, err, sizeof(err)) : -errno;
		if (f)
			fclose(f);
		if (ret)
			return refuse(c, f ? err : strerror(-ret), r->in.name);
	}
	return 0;
}

static void free_run(struct run *r)
{
	if (r->curve)
		bf_report_free(&r->r);
	bf_input_free(&r->in);
	bf_runsum_free(&r->rs);
}

/* ---- what makes runs comparable ------------------------------------------ */

/*
 * One factor varies (analysis/factor.c): the one --vary names, or the one
 * the headers show; any other difference goes to c->differs. Runs whose
 * setup is not recorded (fio logs) are said to be so.
 */
static void comparable(struct cmp *c)
{
	struct bf_factor_run fa[BF_CMP_RUNS], fb[BF_CMP_RUNS];
	size_t i;

	for (i = 0; i < c->na; i++)
		fa[i] = (struct bf_factor_run){ &c->A[i]->rs, c->A[i]->path,
						c->A[i]->header };
	for (i = 0; i < c->nb; i++)
		fb[i] = (struct bf_factor_run){ &c->B[i]->rs, c->B[i]->path,
						c->B[i]->header };
	bf_factor_check(fa, c->na, fb, c->nb, c->want, &c->fac);
	snprintf(c->differs, sizeof(c->differs), "%s", c->fac.refused);
	if (c->fac.unknown[0])
		note(c, c->fac.unknown, "records no setup (not a blkfloor trace): what differs between A and B is unknown (--vary FACTOR says what was changed)");
}

/* ---- boots and the host ------------------------------------------------ */

/*
 * Number the boots over both sides. A run without a boot id (an older
 * trace, a fio log) gets its side's own unknown boot: whether A and B
 * shared a boot cannot be known, and a load-bound row is then weighed
 * as one boot a side.
 */
static void number_boots(struct cmp *c)
{
	const char *id[2 * BF_CMP_RUNS + 2];
	size_t i, k, n = 0;

	c->noboot = false;
	for (i = 0; i < c->na + c->nb; i++) {
		bool b = i >= c->na;
		const struct run *r = b ? c->B[i - c->na] : c->A[i];
		const char *v = r->rs.hdr[BF_RK_BOOT_ID];
		int *slot = b ? &c->bootB[i - c->na] : &c->bootA[i];

		if (!v[0]) {
			c->noboot = true;
			v = b ? "(B: boot not recorded)" : "(A: boot not recorded)";
		}
		for (k = 0; k < n && strcmp(id[k], v); k++)
			;
		if (k == n)
			id[n++] = v;
		*slot = (int)k;
	}
	c->nboots = n;
	c->shared = 0;
	for (k = 0; k < n; k++) {
		bool a = false, b = false;

		for (i = 0; i < c->na; i++)
			a |= c->bootA[i] == (int)k;
		for (i = 0; i < c->nb; i++)
			b |= c->bootB[i] == (int)k;
		c->shared += a && b;
	}
}

/* A run the host starved of CPU: steal, or its kthread kept waiting. */
#define STARVED_PCT	10.0

static double starved_pct(const struct run *r)
{
	double s = isfinite(r->rs.steal_pct) ? r->rs.steal_pct : 0;

	if (isfinite(r->rs.thread_wait_s) && r->rs.run_s > 0)
		s = fmax(s, 100 * r->rs.thread_wait_s / r->rs.run_s);
	return s;
}

static size_t starved_runs(struct run *const *runs, size_t n, double *worst)
{
	size_t i, k = 0;

	*worst = 0;
	for (i = 0; i < n; i++) {
		double p = starved_pct(runs[i]);

		*worst = fmax(*worst, p);
		k += p >= STARVED_PCT;
	}
	return k;
}

/*
 * When one side was starved and the other not, its rates and latencies
 * say more about the host than the change: such a row is no regression,
 * and the verdict says why.
 */
static void starvation(struct cmp *c)
{
	double wa, wb;
	size_t ka = starved_runs(c->A, c->na, &wa);
	size_t kb = starved_runs(c->B, c->nb, &wb);
	size_t i;

	c->starved[0] = '\0';
	if (!ka == !kb)
		return;
	snprintf(c->starved, sizeof(c->starved),
		 "%s starved of CPU in %zu of %zu runs (steal or waiting for a CPU up to %.0f %% of the run; %s up to %.0f %%): its rates and latency say more about the host",
		 kb ? "B" : "A", kb ? kb : ka, kb ? c->nb : c->na,
		 kb ? wb : wa, kb ? "A" : "B", kb ? wa : wb);
	for (i = 0; i < c->nrow; i++) {
		struct bf_cmp_row *r = &c->row[i];

		if (r->load && r->verdict == BF_CMP_WORSE) {
			r->verdict = BF_CMP_UNSURE;
			r->runs = 0;
		}
	}
}

/* ---- the rows ------------------------------------------------------------- */

/*
 * Whether --threshold's ROW names row @name: the name itself ("p99
 * latency"), its first word ("p99", "floor"), "rates" (peak, floor, mean)
 * or "latency" (its percentiles and maximum).
 */
static bool row_matches(const char *row, const char *name)
{
	size_t l = strlen(row);

	if (!strcmp(row, name) || (!strncmp(row, name, l) && name[l] == ' '))
		return true;
	if (!strcmp(row, "rates"))
		return !strcmp(name, "peak") || !strcmp(name, "floor") ||
		       !strcmp(name, "mean");
	if (!strcmp(row, "latency"))
		return strstr(name, " latency") != NULL;
	return false;
}

static struct bf_cmp_row *add(struct cmp *c, const char *name,
			      const char *unit, enum bf_cmp_kind kind,
			      enum bf_cmp_bad badway, double rel_min, bool any)
{
	struct bf_cmp_row *r;

	if (c->nrow >= MAXROWS)
		return NULL;
	r = &c->row[c->nrow++];
	memset(r, 0, sizeof(*r));
	r->name = name;
	r->unit = unit;
	r->kind = kind;
	r->bad = badway;
	r->rel_min = rel_min;
	r->any = any;
	r->load = kind != BF_CMP_COUNT && badway != BF_CMP_NEITHER;
	r->a.n = c->na;
	r->b.n = c->nb;
	memcpy(r->a.boot, c->bootA, sizeof(c->bootA));
	memcpy(r->b.boot, c->bootB, sizeof(c->bootB));
	for (size_t i = 0; i < c->nthr; i++)
		if (row_matches(c->thr[i].row, name))
			r->rel_min = c->thr[i].pct / 100;
	return r;
}

static void put(struct bf_cmp_row *row, bool b, size_t i, double v, double se)
{
	struct bf_cmp_side *s = b ? &row->b : &row->a;

	s->v[i] = v;
	s->se[i] = se;
}

static size_t index_at(const struct bf_series *s, double bytes)
{
	size_t i;

	for (i = 0; i + 1 < s->n && s->s[i].bytes < bytes; i++)
		;
	return i;
}

enum { R_PEAK, R_FLOOR, R_MEAN };

static void rate(struct bf_cmp_row *row, const struct run *r, bool b,
		 size_t i, int which, double common)
{
	double se = 0, v = NAN;

	if (r->curve && !r->failed) {
		if (which == R_PEAK) {
			v = r->r.peak_mbps;
			se = bf_cmp_plateau_se(r->s.s, &r->r, true);
		} else if (which == R_FLOOR) {
			v = r->r.floor_mbps;
			se = bf_cmp_plateau_se(r->s.s, &r->r, false);
		} else {
			double t = bf_series_time_at(r->s.s, r->s.n, common);

			bf_cmp_span(r->s.s, &r->r, 0, index_at(&r->s, common),
				    &se);
			v = t > 0 ? common / t / 1e6 : NAN;
		}
	}
	put(row, b, i, v, se);
}

/*
 * A trace without its run's merged histogram: the median of the
 * intervals' percentiles weighted by their I/Os (a tail interval of one
 * I/O counts for one I/O).
 */
static int by_value(const void *x, const void *y)
{
	const double *a = x, *b = y;

	return a[0] < b[0] ? -1 : a[0] > b[0];
}

static double weighted_median(const double *v, const double *w, size_t n)
{
	double (*p)[2] = malloc((n ? n : 1) * sizeof(*p)), tot = 0, acc = 0;
	double m = NAN;
	size_t i, k = 0;

	if (!p)
		return NAN;
	for (i = 0; i < n; i++)
		if (isfinite(v[i]) && w[i] > 0) {
			p[k][0] = v[i];
			p[k][1] = w[i];
			tot += w[i];
			k++;
		}
	qsort(p, k, sizeof(*p), by_value);
	for (i = 0; i < k; i++) {
		acc += p[i][1];
		if (acc >= tot / 2) {
			m = p[i][0];
			break;
		}
	}
	free(p);
	return m;
}

static void lat(struct bf_cmp_row *row, const struct run *r, bool b, size_t i,
		enum bf_rlat k)
{
	double se = 0, v = NAN;
	size_t j;

	if (k == BF_RL_MAX) {
		for (j = 0; j < r->rs.nlat; j++)
			if (isfinite(r->rs.lat[k][j]) && !(v >= r->rs.lat[k][j]))
				v = r->rs.lat[k][j];
		if (r->rs.have_run_lat)
			v = r->rs.run_lat[k];
	} else if (r->rs.nlat) {
		/* the noise within the run, from its intervals */
		v = bf_cmp_median(r->rs.lat[k], r->rs.nlat, &se);
		v = r->rs.have_run_lat ? r->rs.run_lat[k] :
		    weighted_median(r->rs.lat[k], r->rs.ios, r->rs.nlat);
	}
	put(row, b, i, v, se);
}

static unsigned long long cls_count(const struct bf_runsum *rs,
				    const char *name)
{
	for (size_t i = 0; i < rs->ncls; i++)
		if (!strcmp(rs->cls[i].name, name))
			return rs->cls[i].n;
	return 0;
}

/* the names of one table (error classes, event kinds) over all runs */
struct names { char n[24][32]; size_t k; };

static void name_add(struct names *nm, const char *s)
{
	for (size_t i = 0; i < nm->k; i++)
		if (!strcmp(nm->n[i], s))
			return;
	if (nm->k < 24)
		snprintf(nm->n[nm->k++], sizeof(nm->n[0]), "%s", s);
}

/* A latency row of values past 10 ms is shown in ms. */
static void in_ms(struct bf_cmp_row *row)
{
	bool big = false;
	size_t i;

	for (i = 0; i < row->a.n; i++)
		big |= row->a.v[i] >= 10000;
	for (i = 0; i < row->b.n; i++)
		big |= row->b.v[i] >= 10000;
	if (!big)
		return;
	row->unit = "ms";
	for (i = 0; i < row->a.n; i++) {
		row->a.v[i] /= 1000;
		row->a.se[i] /= 1000;
	}
	for (i = 0; i < row->b.n; i++) {
		row->b.v[i] /= 1000;
		row->b.se[i] /= 1000;
	}
}

static struct run *nth(struct cmp *c, size_t i, bool *b)
{
	*b = i >= c->na;
	return *b ? c->B[i - c->na] : c->A[i];
}

static void build_rows(struct cmp *c)
{
	static const char *const lat_names[BF_RL_COUNT] = {
		"p50 latency", "p99 latency", "p99.9 latency", "max latency",
	};
	static struct names cls, ev;	/* the rows point at their names */
	struct bf_cmp_row *row;
	size_t i, k, nall = c->na + c->nb;
	bool b;

	c->nrow = 0;
	c->common = INFINITY;
	for (i = 0; i < nall; i++) {
		struct run *r = nth(c, i, &b);

		if (r->curve && !r->failed)
			c->common = fmin(c->common, r->r.total_bytes);
	}
	for (k = R_PEAK; k <= R_MEAN; k++) {
		static const char *const nm[] = { "peak", "floor", "mean" };

		row = add(c, nm[k], "MB/s", BF_CMP_LEVEL, BF_CMP_LOWER, 0.10,
			  false);
		for (i = 0; i < nall; i++) {
			struct run *r = nth(c, i, &b);

			rate(row, r, b, b ? i - c->na : i, k, c->common);
		}
	}
	row = add(c, "cache", "GB", BF_CMP_LEVEL, BF_CMP_NEITHER, 0, false);
	for (i = 0; i < nall; i++) {
		struct run *r = nth(c, i, &b);

		put(row, b, b ? i - c->na : i,
		    r->curve && !r->failed && r->r.has_step ?
		    r->r.cache_bytes / 1e9 : NAN, 0);
	}
	for (k = 0; k < BF_RL_COUNT; k++) {
		row = add(c, lat_names[k], "us",
			  k == BF_RL_MAX ? BF_CMP_EXTREME : BF_CMP_LEVEL,
			  BF_CMP_HIGHER, k == BF_RL_MAX ? 1.0 : 0.10, false);
		for (i = 0; i < nall; i++) {
			struct run *r = nth(c, i, &b);

			lat(row, r, b, b ? i - c->na : i, k);
		}
		in_ms(row);
	}
	row = add(c, "failed runs", "", BF_CMP_COUNT, BF_CMP_HIGHER, 0, true);
	for (i = 0; i < nall; i++) {
		struct run *r = nth(c, i, &b);

		put(row, b, b ? i - c->na : i, r->failed, 0);
	}
	row = add(c, "I/O errors", "", BF_CMP_COUNT, BF_CMP_HIGHER, 0, true);
	for (i = 0; i < nall; i++) {
		struct run *r = nth(c, i, &b);

		put(row, b, b ? i - c->na : i, r->rs.errors, 0);
	}
	memset(&cls, 0, sizeof(cls));
	memset(&ev, 0, sizeof(ev));
	for (i = 0; i < nall; i++) {
		struct run *r = nth(c, i, &b);

		for (k = 0; k < r->rs.ncls; k++)
			name_add(&cls, r->rs.cls[k].name);
		for (k = 0; k < r->rs.nev; k++)
			name_add(&ev, r->rs.ev[k].name);
	}
	for (k = 0; k < cls.k; k++) {
		static char label[24][48];

		snprintf(label[k], sizeof(label[k]), "err log: %s",
			 cls.n[k]);
		row = add(c, label[k], "", BF_CMP_COUNT, BF_CMP_HIGHER, 0, true);
		for (i = 0; row && i < nall; i++) {
			struct run *r = nth(c, i, &b);

			put(row, b, b ? i - c->na : i,
			    cls_count(&r->rs, cls.n[k]), 0);
		}
	}
	for (k = 0; k < ev.k; k++) {
		row = add(c, ev.n[k], "", BF_CMP_COUNT, BF_CMP_HIGHER, 0, true);
		for (i = 0; row && i < nall; i++) {
			struct run *r = nth(c, i, &b);

			put(row, b, b ? i - c->na : i,
			    bf_runsum_events(&r->rs, ev.n[k]), 0);
		}
	}
	{
		struct bf_cmp_row *se = add(c, "scsi errors", "", BF_CMP_COUNT,
					    BF_CMP_HIGHER, 0, true);
		struct bf_cmp_row *to = add(c, "scsi timeouts", "",
					    BF_CMP_COUNT, BF_CMP_HIGHER, 0,
					    true);
		struct bf_cmp_row *rpb = add(c, "requests/bio", "",
					     BF_CMP_LEVEL, BF_CMP_HIGHER, 0.05,
					     false);
		struct bf_cmp_row *kib = add(c, "request size", "KiB",
					     BF_CMP_LEVEL, BF_CMP_LOWER, 0.05,
					     false);
		struct bf_cmp_row *st = add(c, "stalls", "", BF_CMP_COUNT,
					    BF_CMP_HIGHER, 0, false);

		/* what the kernel sent does not move with the host's load */
		if (rpb)
			rpb->load = false;
		if (kib)
			kib->load = false;

		for (i = 0; st && i < nall; i++) {
			struct run *r = nth(c, i, &b);
			const struct bf_pathsum *p = &r->p;
			size_t j = b ? i - c->na : i;
			const struct bf_pstat *x = &p->req_per_bio,
					      *y = &p->req_kib;

			put(se, b, j, p->have_scsi ? p->scsi_err : NAN, 0);
			put(to, b, j, p->have_scsi ? p->scsi_tmo : NAN, 0);
			put(rpb, b, j, p->have && x->n ? x->mean : NAN,
			    x->n ? x->sd / sqrt(x->n) : 0);
			put(kib, b, j, p->have && y->n ? y->mean : NAN,
			    y->n ? y->sd / sqrt(y->n) : 0);
			put(st, b, j, r->curve && !r->failed ?
			    r->r.stalls.count : NAN, 0);
		}
	}
	for (i = 0; i < c->nrow; i++)
		bf_cmp_judge(&c->row[i]);
}

/*
 * A driver or link that got worse is a regression when it follows from
 * the change (a kernel that falls back to usb-storage), not when it is
 * the factor under test or comes with another device.
 */
static bool fact_of_change(const struct cmp *c, const char *what)
{
	enum bf_factor f = c->fac.vary;

	if (!strcmp(what, "driver"))
		return f != BF_FACTOR_DRIVER && f != BF_FACTOR_DEVICE;
	if (!strcmp(what, "usb_speed"))
		return f != BF_FACTOR_LINK && f != BF_FACTOR_DEVICE;
	return false;
}

/* a failed B run's reason, and a driver or link that got worse */
static void find_facts(struct cmp *c)
{
	struct bf_pdiff d[BF_PDIFF_MAX];
	size_t i, k, n;

	c->nfacts = 0;
	for (i = 0; i < c->nb && c->nfacts < 4; i++) {
		const struct run *r = c->B[i];

		if (r->failed)
			snprintf(c->facts[c->nfacts++], sizeof(c->facts[0]),
				 "B run %s failed (errno %ld, %s)", r->path,
				 r->rs.err_no,
				 r->rs.err_no ? strerror((int)-r->rs.err_no) :
				 "no errno");
	}
	for (i = 0; i < c->nb && c->nfacts < 4; i++) {
		n = bf_pathsum_compare(&c->A[0]->p, &c->B[i]->p, d);
		for (k = 0; k < n && c->nfacts < 4; k++)
			if (d[k].worse && fact_of_change(c, d[k].what))
				snprintf(c->facts[c->nfacts++],
					 sizeof(c->facts[0]), "%s %s -> %s: %s",
					 d[k].what, d[k].a, d[k].b, d[k].why);
	}
}

/* runs of a side with a count above zero, and the count over them all */
static size_t count_runs(const struct bf_cmp_side *s, double *total)
{
	size_t i, k = 0;

	*total = 0;
	for (i = 0; i < s->n; i++)
		if (isfinite(s->v[i]) && s->v[i] > 0) {
			k++;
			*total += s->v[i];
		}
	return k;
}

/*
 * A count over several runs says in how many runs, not a mean of 0.333:
 * "reset in 1 of 3 B runs (2 in all), in 0 of 3 A runs".
 */
static void count_why(struct bf_cmp_row *r)
{
	double ta, tb;
	size_t ka, kb;
	char x[20];

	if (r->kind != BF_CMP_COUNT || !r->why[0] || (r->na < 2 && r->nb < 2))
		return;
	ka = count_runs(&r->a, &ta);
	kb = count_runs(&r->b, &tb);
	bf_fmt_num(x, sizeof(x), tb);
	snprintf(r->why, sizeof(r->why), "%s in %zu of %zu B runs (%s in all), in %zu of %zu A runs",
		 r->name, kb, r->nb, x, ka, r->na);
}

/*
 * SCSI errors while no I/O of B failed: the midlayer retried the commands
 * and they succeeded (scsi_detail() says with what result).
 */
static void retried(const struct cmp *c, struct bf_cmp_row *r)
{
	size_t i, l = strlen(r->why);

	if (strcmp(r->name, "scsi errors") || r->verdict != BF_CMP_WORSE)
		return;
	for (i = 0; i < c->nb; i++)
		if (c->B[i]->rs.errors || c->B[i]->failed)
			return;
	snprintf(r->why + l, sizeof(r->why) - l,
		 ": retried and recovered, no I/O error in B");
}

/* the value of "KEY=" in a "# scsi_result:" text, or "?" */
static void res_field(const char *text, const char *key, char *out,
		      size_t len)
{
	const char *p = strstr(text, key);

	if (!p) {
		snprintf(out, len, "?");
		return;
	}
	p += strlen(key);
	snprintf(out, len, "%.*s", (int)strcspn(p, " "), p);
}

/*
 * SCSI errors in B: the first result the tracepoint recorded (command,
 * host byte, status, sense) and the kernel log's first lines about it,
 * or why they are not there.
 */
static void scsi_detail(struct cmp *c)
{
	const struct bf_runsum *rs = NULL;
	const char *why = NULL;
	char host[32], status[40], sense[32];
	size_t i, k, n = 0, l;
	bool worse = false;

	c->nscsi = 0;
	c->scsi_run = NULL;
	c->scsi_first = NULL;
	for (i = 0; i < c->nrow; i++)
		worse |= !strcmp(c->row[i].name, "scsi errors") &&
			 c->row[i].verdict == BF_CMP_WORSE;
	if (!worse)
		return;
	for (i = 0; i < c->nb && !c->scsi_run; i++) {
		if (c->B[i]->rs.nscsi_res)
			c->scsi_run = c->B[i];
		else if (!why && c->B[i]->rs.hdr[BF_RK_SCSI_RESULTS][0])
			why = c->B[i]->rs.hdr[BF_RK_SCSI_RESULTS];
	}
	if (!c->scsi_run) {
		snprintf(c->scsi[0], sizeof(c->scsi[0]),
			 "host byte and status: %s",
			 why ? why : "not recorded (no '# scsi_results:' line: an older trace)");
		c->nscsi = 1;
		return;
	}
	rs = &c->scsi_run->rs;
	c->scsi_first = &rs->scsi_res[0];
	res_field(c->scsi_first->text, "host=", host, sizeof(host));
	res_field(c->scsi_first->text, "status=", status, sizeof(status));
	res_field(c->scsi_first->text, "sense=", sense, sizeof(sense));
	l = strcspn(c->scsi_first->text, " ");
	if (!strncmp(c->scsi_first->text + l, " lba=", 5))
		l += 1 + strcspn(c->scsi_first->text + l + 1, " ");
	snprintf(c->scsi[n++], sizeof(c->scsi[0]),
		 "the first: %.*s at %.2f s in %s: host byte %s, status %s, %s%s (scsi:scsi_dispatch_cmd_done; since Linux 5.14 a result has no driver byte)",
		 (int)l, c->scsi_first->text, c->scsi_first->t,
		 c->scsi_run->path, host, status,
		 strcmp(sense, "-") ? "sense " : "no sense: this kernel's tracepoint has none",
		 strcmp(sense, "-") ? sense : "");
	/* the midlayer's lines about it: from just before it on */
	for (k = 0; k < rs->nkmsg && n < 3; k++)
		if (rs->kmsg[k].t >= c->scsi_first->t - 0.5)
			snprintf(c->scsi[n++], sizeof(c->scsi[0]),
				 "kernel log: %s", rs->kmsg[k].text);
	if (n == 1 && !strncmp(rs->hdr[BF_RK_EVENTS], "not recorded", 12))
		snprintf(c->scsi[n++], sizeof(c->scsi[0]),
			 "kernel log: %s", rs->hdr[BF_RK_EVENTS]);
	else if (n == 1)
		snprintf(c->scsi[n++], sizeof(c->scsi[0]),
			 "kernel log: nothing about it (the SCSI midlayer logs a retried command only with scsi_logging_level set)");
	c->nscsi = n;
}

static void compute(struct cmp *c)
{
	size_t i;

	number_boots(c);
	build_rows(c);
	starvation(c);
	find_facts(c);
	c->verdict = bf_cmp_overall(c->row, c->nrow, &c->runs);
	c->first = bf_cmp_first_to_settle(c->row, c->nrow);
	for (i = 0; i < c->nrow; i++) {
		count_why(&c->row[i]);
		retried(c, &c->row[i]);
	}
	scsi_detail(c);
	/* the failed-run row said it as a number: the fact says why */
	for (i = 0; i < c->nrow; i++)
		if (!strcmp(c->row[i].name, "failed runs") &&
		    c->row[i].verdict == BF_CMP_WORSE)
			c->row[i].why[0] = '\0';
	if (c->nfacts)
		c->verdict = BF_CMP_WORSE;
	/* a B run that never ended may have hung: no "no regression" */
	c->unfinished = false;
	c->unended[0] = '\0';
	for (i = 0; i < c->nb; i++) {
		size_t l = strlen(c->unended);

		if (c->B[i]->ended)
			continue;
		c->unfinished = true;
		snprintf(c->unended + l, sizeof(c->unended) - l, "%s%s",
			 l ? ", " : "", c->B[i]->path);
	}
	if (c->unfinished && c->verdict != BF_CMP_WORSE)
		c->verdict = BF_CMP_UNSURE;
}

/* "B run b.trace never ended ...", for an unfinished B */
static void unended_words(const struct cmp *c, char *buf, size_t len)
{
	snprintf(buf, len, "B run %s never ended (no '# state:' line: the run hung, or its writer died): its figures are the part it wrote",
		 c->unended);
}

static const char *verdict_words(enum bf_cmp_verdict v)
{
	return v == BF_CMP_WORSE ? "regression" :
	       v == BF_CMP_UNSURE ? "inconclusive" : "no regression";
}

static int exit_code(enum bf_cmp_verdict v)
{
	return v == BF_CMP_WORSE ? EXIT_FAIL :
	       v == BF_CMP_UNSURE ? EXIT_INCONCLUSIVE : EXIT_OK;
}

/* ---- text and email ------------------------------------------------------- */

/*
 * "300.2", "300.2 +-4.1" over several runs, "2 in 1/3 runs" for a count
 * over several runs; "-" when not measured
 */
static void cell(char *buf, size_t len, const struct bf_cmp_row *r, bool b)
{
	size_t n = b ? r->nb : r->na;
	double m = b ? r->mb : r->ma, s = b ? r->sb : r->sa, tot;
	char x[BF_FMT_LEN];
	size_t k;

	if (!n) {
		snprintf(buf, len, "-");
	} else if (r->kind == BF_CMP_COUNT && n > 1) {
		k = count_runs(b ? &r->b : &r->a, &tot);
		bf_fmt_num(x, sizeof(x), tot);
		bf_fmt(buf, len, "%s in %zu/%zu runs", x, k, n);
	} else if (n > 1) {
		bf_fmt_mean_sd(buf, len, m, s);
	} else {
		bf_fmt_num(buf, len, m);
	}
}

/* one header item of every run of a side: "v", or "v1 / v2" if they vary */
static void side_item(char *buf, size_t len, struct run *const *runs, size_t n,
		      enum bf_rkey k)
{
	size_t i, l;

	snprintf(buf, len, "%s", runs[0]->rs.hdr[k][0] ? runs[0]->rs.hdr[k] : "-");
	for (i = 1; i < n; i++) {
		const char *v = runs[i]->rs.hdr[k][0] ? runs[i]->rs.hdr[k] : "-";

		if (strstr(buf, v))
			continue;
		l = strlen(buf);
		snprintf(buf + l, len - l, " / %s", v);
	}
}

#define LABEL	"  %-12s "

/*
 * A setup line where A and B differ; where they agree, the label goes to
 * @same ("kernel, driver, ...") and the line is left out.
 */
static void setup_line(FILE *f, const struct cmp *c, const char *label,
		       enum bf_rkey k, char *same, size_t slen)
{
	char a[256], b[256];
	size_t l = strlen(same);

	side_item(a, sizeof(a), c->A, c->na, k);
	side_item(b, sizeof(b), c->B, c->nb, k);
	if (!strcmp(a, "-") && !strcmp(b, "-"))
		return;
	if (!strcmp(a, b))
		snprintf(same + l, slen - l, "%s%s", l ? ", " : "", label);
	else
		fprintf(f, LABEL "A %s\n" LABEL "B %s\n", label, a, "", b);
}

/*
 * "uas 785d29ef2fe1 OE": module @name's entry in a side's path_modules
 * ("m1 / m2" if its runs differ, "-" where not loaded).
 */
static void side_module(char *buf, size_t len, struct run *const *runs,
			size_t n, const char *name)
{
	size_t i, l, nl = strlen(name);

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		const char *m = runs[i]->rs.modules, *p = m, *e;
		char one[96] = "-";

		while ((p = strstr(p, name))) {
			if ((p == m || p[-2] == ',') && p[nl] == ' ') {
				e = strchrnul(p, ',');
				snprintf(one, sizeof(one), "%.*s",
					 (int)(e - p - nl - 1), p + nl + 1);
				break;
			}
			p += nl;
		}
		if (buf[0] && strstr(buf, one))
			continue;
		l = strlen(buf);
		snprintf(buf + l, len - l, "%s%s", l ? " / " : "", one);
	}
}

/* every module name in the runs' path_modules */
static size_t module_names(const struct cmp *c, char names[][32], size_t max)
{
	size_t i, k, n = 0;

	for (i = 0; i < c->na + c->nb; i++) {
		const char *p = i < c->na ? c->A[i]->rs.modules :
				c->B[i - c->na]->rs.modules;

		while (*p) {
			size_t l = strcspn(p, " ,");

			for (k = 0; k < n && (strlen(names[k]) != l ||
					      strncmp(names[k], p, l)); k++)
				;
			if (k == n && n < max && l && l < 32)
				snprintf(names[n++], 32, "%.*s", (int)l, p);
			p = strchrnul(p, ',');
			while (*p == ',' || *p == ' ')
				p++;
		}
	}
	return n;
}

/* "uas 9c4417b0aa02 OE": the first module whose build differs, or "" */
static void module_change(const struct cmp *c, char *a, char *b, size_t len)
{
	char names[16][32];
	size_t k, n = module_names(c, names, 16);

	a[0] = b[0] = '\0';
	for (k = 0; k < n; k++) {
		char x[128], y[128];

		side_module(x, sizeof(x), c->A, c->na, names[k]);
		side_module(y, sizeof(y), c->B, c->nb, names[k]);
		if (strcmp(x, y)) {
			bf_fmt(a, len, "%s %s", names[k], x);
			bf_fmt(b, len, "%s %s", names[k], y);
			return;
		}
	}
}

static void module_lines(FILE *f, const struct cmp *c, char *same,
			 size_t slen)
{
	char names[16][32], x[128], y[128], label[40], all[400] = "",
	     one[200] = "";
	size_t k, n = module_names(c, names, 16), l;
	bool any = false;

	/* another kernel rebuilds them all: one line */
	if (c->fac.vary == BF_FACTOR_KERNEL) {
		for (k = 0; k < n; k++) {
			side_module(x, sizeof(x), c->A, c->na, names[k]);
			side_module(y, sizeof(y), c->B, c->nb, names[k]);
			if (!strcmp(x, y))
				continue;
			if (!strcmp(x, "-") || !strcmp(y, "-")) {
				l = strlen(one);
				snprintf(one + l, sizeof(one) - l, "%s%s only in %s",
					 l ? ", " : "", names[k],
					 strcmp(x, "-") ? "A" : "B");
				continue;
			}
			l = strlen(all);
			snprintf(all + l, sizeof(all) - l, "%s%s",
				 l ? ", " : "", names[k]);
		}
		if (all[0] || one[0])
			fprintf(f, LABEL "another build of each (the kernel's): %s%s%s%s\n",
				"modules", all, one[0] ? " (" : "", one,
				one[0] ? ")" : "");
		return;
	}
	for (k = 0; k < n; k++) {
		side_module(x, sizeof(x), c->A, c->na, names[k]);
		side_module(y, sizeof(y), c->B, c->nb, names[k]);
		if (!strcmp(x, y))
			continue;
		snprintf(label, sizeof(label), "%s.ko", names[k]);
		fprintf(f, LABEL "A %s\n" LABEL "B %s\n", label, x, "", y);
		any = true;
	}
	if (n && !any) {
		l = strlen(same);
		snprintf(same + l, slen - l, "%smodules", l ? ", " : "");
	}
}

static size_t boots_of(const int *boot, size_t n)
{
	size_t i, j, k = 0;

	for (i = 0; i < n; i++) {
		for (j = 0; j < i && boot[j] != boot[i]; j++)
			;
		k += j == i;
	}
	return k;
}

static void boots_line(FILE *f, const struct cmp *c)
{
	size_t ka = boots_of(c->bootA, c->na), kb = boots_of(c->bootB, c->nb);

	if (c->noboot)
		fprintf(f, LABEL "not recorded in every run: A and B taken as boots of their own\n",
			"boots");
	else if (c->shared == c->nboots && c->nboots == 1)
		fprintf(f, LABEL "A and B in one boot\n", "boots");
	else if (c->shared == c->nboots)
		fprintf(f, LABEL "A and B in the same %zu boots\n", "boots",
			c->nboots);
	else
		fprintf(f, LABEL "A in %zu, B in %zu, %zu shared\n", "boots",
			ka, kb, c->shared);
}

static void files(FILE *f, const char *side, struct run *const *runs, size_t n)
{
	size_t i;

	fprintf(f, "%s:", side);
	if (n > 1)
		fprintf(f, " %zu runs:", n);
	for (i = 0; i < n; i++)
		fprintf(f, " %s", runs[i]->path);
	fputc('\n', f);
}

/*
 * " at 3.3, 7.7, 11.8 s": when the first events of @kind came (events
 * within the same tenth of a second, such as the aborts of one error
 * handling, once), or nothing.
 */
static void event_times(FILE *f, const struct bf_runsum *rs, const char *kind)
{
	size_t i, shown = 0;
	bool more = false;
	double last = -1;

	for (i = 0; i < rs->nmark; i++) {
		double t = round(rs->mark[i].t * 10) / 10;

		if (strcmp(rs->mark[i].kind, kind) || t == last)
			continue;
		if (shown == 4) {
			more = true;
			break;
		}
		fprintf(f, "%s%.1f", shown ? ", " : " at ", t);
		last = t;
		shown++;
	}
	if (shown)
		fprintf(f, "%s s", more ? ", ..." : "");
}

/*
 * The events of a side: with one run "reset 2 at 20.5 s", with several
 * "reset in 1 of 3 runs (2 in all)".
 */
static void events(FILE *f, const char *side, struct run *const *runs,
		   size_t n)
{
	unsigned long long errs = 0, ivs = 0;
	struct names kinds;
	size_t i, k, failed = 0, with;
	bool any = false;

	memset(&kinds, 0, sizeof(kinds));
	fprintf(f, "  %s:", side);
	for (i = 0; i < n; i++) {
		errs += runs[i]->rs.errors;
		ivs += runs[i]->rs.err_ivs;
		failed += runs[i]->failed;
		for (k = 0; k < runs[i]->rs.nev; k++)
			name_add(&kinds, runs[i]->rs.ev[k].name);
	}
	for (k = 0; k < kinds.k; k++) {
		unsigned long long tot = 0;

		with = 0;
		for (i = 0; i < n; i++) {
			unsigned long long e = bf_runsum_events(&runs[i]->rs,
								kinds.n[k]);

			tot += e;
			with += e > 0;
		}
		if (n == 1) {
			fprintf(f, "%s %s %llu", any ? "," : "", kinds.n[k], tot);
			event_times(f, &runs[0]->rs, kinds.n[k]);
		} else {
			fprintf(f, "%s %s in %zu of %zu runs (%llu in all)",
				any ? "," : "", kinds.n[k], with, n, tot);
		}
		any = true;
	}
	if (failed) {
		fprintf(f, "%s failed in %zu of %zu run%s", any ? "," : "",
			failed, n, n > 1 ? "s" : "");
		for (i = 0; i < n && n == 1; i++)
			fprintf(f, " (errno %ld)", runs[i]->rs.err_no);
		any = true;
	}
	if (errs) {
		fprintf(f, "%s I/O errors %llu in %llu intervals", any ? "," : "",
			errs, ivs);
		any = true;
		for (i = 0; i < n; i++)
			for (k = 0; k < runs[i]->rs.ncls; k++)
				fprintf(f, ", %s %llu logged",
					runs[i]->rs.cls[k].name,
					runs[i]->rs.cls[k].n);
	}
	fprintf(f, "%s\n", any ? "" : " none");
}

/* the curve's class of every run: "cache-exhaustion", "failed" */
static void classes(FILE *f, const struct cmp *c, char *same, size_t slen)
{
	char s[2][256];
	size_t i, l;

	for (int b = 0; b < 2; b++) {
		struct run *const *runs = b ? c->B : c->A;
		size_t n = b ? c->nb : c->na;

		s[b][0] = '\0';
		for (i = 0; i < n; i++) {
			const char *v = runs[i]->failed ? "failed" :
					bf_class_name(runs[i]->r.class);

			if (strstr(s[b], v))
				continue;
			l = strlen(s[b]);
			snprintf(s[b] + l, sizeof(s[b]) - l, "%s%s",
				 l ? " / " : "", v);
		}
	}
	if (!strcmp(s[0], s[1])) {
		l = strlen(same);
		snprintf(same + l, slen - l, "%sclass (%s)", l ? ", " : "",
			 s[0]);
	} else {
		fprintf(f, LABEL "A %s\n" LABEL "B %s\n", "class", s[0], "",
			s[1]);
	}
}

static const struct { const char *label; enum bf_rkey k; } setup_keys[] = {
	{ "kernel", BF_RK_KERNEL }, { "driver", BF_RK_DRIVER },
	{ "link Mb/s", BF_RK_USB_SPEED }, { "VID:PID", BF_RK_USB_ID },
	{ "bcdDevice", BF_RK_USB_BCD }, { "firmware", BF_RK_FIRMWARE },
	{ "quirks", BF_RK_QUIRKS }, { "model", BF_RK_MODEL },
	{ "serial", BF_RK_SERIAL }, { "transport", BF_RK_TRANSPORT },
	{ "op", BF_RK_OP }, { "pattern", BF_RK_PATTERN },
	{ "bs bytes", BF_RK_BS }, { "qd", BF_RK_QD },
	{ "region bytes", BF_RK_REGION },
	{ "max_sect KiB", BF_RK_MAX_SECTORS },
	{ "queue_depth", BF_RK_QUEUE_DEPTH },
	{ "scheduler", BF_RK_SCHEDULER }, { "nomerges", BF_RK_NOMERGES },
	{ "blkfloor.ko", BF_RK_MODULE }, { "tainted", BF_RK_TAINTED },
};

/*
 * What the comparison varies, the first line of the setup: "kernel
 * (inferred)", "device (--vary)", "unknown: ..." for runs that record no
 * setup.
 */
static void factor_line(FILE *f, const struct cmp *c)
{
	const struct bf_factor_result *x = &c->fac;
	const char *name = bf_factor_name(x->vary);

	fprintf(f, LABEL, "under test");
	if (c->differs[0] && x->inferred)
		fprintf(f, "more than one factor (--force)\n");
	else if (c->differs[0])
		fprintf(f, "%s (--vary), not alone (--force)\n", name);
	else if (x->vary == BF_FACTOR_UNKNOWN)
		fprintf(f, "unknown: %s records no setup (not a blkfloor trace)\n",
			x->unknown);
	else if (x->vary == BF_FACTOR_NONE)
		fprintf(f, "nothing the traces record differs (one setup run again, or a change they do not record)\n");
	else if (x->unknown[0])
		fprintf(f, "%s (--vary; not checked: %s records no setup)\n",
			name, x->unknown);
	else if (!x->what[0])
		fprintf(f, "%s (--vary; the traces record no difference in it)\n",
			name);
	else
		fprintf(f, "%s (%s)\n", name, x->inferred ? "inferred" : "--vary");
}

/* "B (kernel X) against A (kernel Y)", the module or the item that differs */
static void subject(FILE *f, const struct cmp *c)
{
	char ka[128], kb[128], ma[128], mb[128];

	side_item(ka, sizeof(ka), c->A, c->na, BF_RK_KERNEL);
	side_item(kb, sizeof(kb), c->B, c->nb, BF_RK_KERNEL);
	module_change(c, ma, mb, sizeof(ma));
	fprintf(f, "[blkfloor compare] %s: ", c->verdict == BF_CMP_WORSE ?
		"regression" : c->verdict == BF_CMP_UNSURE ? "inconclusive" :
		"no regression");
	if (strcmp(ka, kb))
		fprintf(f, "B (kernel %s) against A (kernel %s)", kb, ka);
	else if (ma[0] && c->fac.vary == BF_FACTOR_MODULE)
		fprintf(f, "B (%s) against A (%s), kernel %s", mb, ma, ka);
	else if (c->fac.item[0])
		fprintf(f, "B (%s %s) against A (%s %s), kernel %s",
			c->fac.item, c->fac.vb, c->fac.item, c->fac.va, ka);
	else if (c->fac.vary == BF_FACTOR_UNKNOWN)
		fprintf(f, "B against A, their setup not recorded");
	else
		fprintf(f, "B against A, both kernel %s", ka);
	fprintf(f, ", %zu run%s against %zu\n\n", c->nb, c->nb > 1 ? "s" : "",
		c->na);
}

static const char *const legend =
	"Rates are MB/s (10^6 B/s); latencies us, ms past 10 ms, each run's\n"
	"from its merged histogram (in older traces the I/O-weighted median\n"
	"of its intervals' percentiles). A cell is mean +-sd over the runs;\n"
	"a count over several runs says in how many. Rates and latency are\n"
	"weighed against the noise of their boots: the runs within boots\n"
	"that hold A and B, the boots' means where each side has boots of\n"
	"its own, and with one boot a side only a tenfold change counts.\n"
	"A difference must reach the row's smallest effect (rates and\n"
	"latency 10 %, path 5 %, max 2x; --threshold ROW=PCT) and pass\n"
	"Student's t at the one-sided 99 % quantile (|t| > 3 with one run a\n"
	"side). Any error, event or failed run in B beyond A's worst run\n"
	"counts, stalls in every B run.\n";

/* how to measure the factor under test so that boots do not decide */
static const char *recipe(enum bf_factor f)
{
	switch (f) {
	case BF_FACTOR_KERNEL:
		return "boot A and B alternately, A B A B, several runs in each boot";
	case BF_FACTOR_MODULE:
		return "swap the module within one boot, A B A B, or boot A and B alternately, several boots each";
	case BF_FACTOR_NONE:
	case BF_FACTOR_UNKNOWN:
	case BF_FACTOR_AUTO:
		return "run A and B alternately within one boot, A B A B, or boot A and B alternately, several boots each";
	default:
		return "run A and B alternately within one boot, A B A B";
	}
}

static void verdict_lines(FILE *f, const struct cmp *c)
{
	size_t i;

	fprintf(f, "\nverdict: %s", verdict_words(c->verdict));
	if (c->verdict == BF_CMP_UNSURE && c->unfinished)
		fprintf(f, ": a B run never ended");
	else if (c->verdict == BF_CMP_UNSURE && c->first)
		fprintf(f, c->runs >= BF_CMP_MAX_RUNS ?
			": more than %u %s per side would be needed (%s first)" :
			": about %u %s per side would settle it (%s first)",
			c->runs, c->first->noise == BF_CMP_BY_BOOTS ? "boots" :
			"runs", c->first->name);
	else if (c->verdict == BF_CMP_UNSURE && !c->starved[0])
		fprintf(f, ": one boot a side cannot tell a change from the noise between boots (%s)",
			recipe(c->fac.vary));
	fputc('\n', f);
	if (c->unfinished) {
		char u[400];

		unended_words(c, u, sizeof(u));
		fprintf(f, "  - %s\n", u);
	}
	if (c->starved[0])
		fprintf(f, "  - %s\n", c->starved);
	for (i = 0; i < c->nfacts; i++)
		fprintf(f, "  - %s\n", c->facts[i]);
	for (i = 0; i < c->nrow; i++) {
		const struct bf_cmp_row *r = &c->row[i];

		if ((r->verdict == BF_CMP_WORSE ||
		     (r->verdict == BF_CMP_UNSURE &&
		      c->verdict == BF_CMP_UNSURE)) && r->why[0]) {
			fprintf(f, "  - %s\n", r->why);
			if (!strcmp(r->name, "scsi errors"))
				for (size_t k = 0; k < c->nscsi; k++)
					fprintf(f, "    %s\n", c->scsi[k]);
		}
	}
}

/* a row measured on either side, and not a count of nothing */
static bool row_shown(const struct bf_cmp_row *r)
{
	if (!r->na && !r->nb)
		return false;
	return r->kind != BF_CMP_COUNT || r->ma || r->mb;
}

static void report(FILE *f, const struct cmp *c, bool email)
{
	char x[48], y[48], d[32], same[512] = "";
	int wa = 14, wb = 14;
	size_t i;

	if (email)
		subject(f, c);
	files(f, "A", c->A, c->na);
	files(f, "B", c->B, c->nb);
	fprintf(f, "\nsetup (where A and B differ)\n");
	factor_line(f, c);
	for (i = 0; i < sizeof(setup_keys) / sizeof(setup_keys[0]); i++)
		setup_line(f, c, setup_keys[i].label, setup_keys[i].k, same,
			   sizeof(same));
	module_lines(f, c, same, sizeof(same));
	classes(f, c, same, sizeof(same));
	boots_line(f, c);
	if (same[0])
		fprintf(f, "  the same on A and B: %s\n", same);
	if (c->differs[0])
		fprintf(f, "  NOT COMPARABLE (--force): %s\n", c->differs);
	/* 14 columns a side, wider where a cell needs it (two spaces apart) */
	for (i = 0; i < c->nrow; i++) {
		if (!row_shown(&c->row[i]))
			continue;
		cell(x, sizeof(x), &c->row[i], false);
		cell(y, sizeof(y), &c->row[i], true);
		if ((int)strlen(x) >= wa)
			wa = (int)strlen(x) + 1;
		if ((int)strlen(y) >= wb)
			wb = (int)strlen(y) + 1;
	}
	fprintf(f, "\n%-17s %*s %*s %9s  %s\n", "", wa, "A", wb, "B", "change",
		"verdict");
	for (i = 0; i < c->nrow; i++) {
		const struct bf_cmp_row *r = &c->row[i];
		char name[40];

		if (!row_shown(r))
			continue;
		snprintf(name, sizeof(name), "%s%s%s", r->name,
			 r->unit[0] ? " " : "", r->unit);
		cell(x, sizeof(x), r, false);
		cell(y, sizeof(y), r, true);
		if (!r->na || !r->nb)
			snprintf(d, sizeof(d), "%9s", "-");
		else if (!r->ma && r->mb)
			snprintf(d, sizeof(d), "%9s", "from 0");
		else
			bf_fmt_change(d, sizeof(d), r->ma, r->mb);
		fprintf(f, "%-17.17s %*s %*s %9s  %s\n", name, wa, x, wb, y, d,
			bf_cmp_verdict_name(r->verdict));
		/* each side's mean is over the bytes every run wrote, so
		 * A's depends on B: say over what */
		if (!strcmp(r->name, "mean") && isfinite(c->common)) {
			char gb[32];

			bf_fmt_si_bytes(gb, sizeof(gb), c->common);
			fprintf(f, "  (each over the first %s, the bytes every run wrote)\n",
				gb);
		}
	}
	fprintf(f, "\nevents\n");
	events(f, "A", c->A, c->na);
	events(f, "B", c->B, c->nb);
	if (c->notes[0])
		fprintf(f, "\nwarnings\n  %s\n", c->notes);
	verdict_lines(f, c);
	fprintf(f, "\n%s", legend);
}

/* Lines longer than @cols broken at a blank, continued indented. */
static void wrap(FILE *out, const char *text, int cols)
{
	const char *p = text;

	while (*p) {
		const char *nl = strchrnul(p, '\n');
		bool cont = false;

		while (nl - p > cols - (cont ? 4 : 0)) {
			int room = cols - (cont ? 4 : 0);
			const char *cut = p + room;

			while (cut > p && *cut != ' ')
				cut--;
			if (cut == p)
				cut = p + room;
			fprintf(out, "%s%.*s\n", cont ? "    " : "",
				(int)(cut - p), p);
			p = cut;
			while (*p == ' ')
				p++;
			cont = true;
		}
		fprintf(out, "%s%.*s\n", cont ? "    " : "", (int)(nl - p), p);
		p = *nl ? nl + 1 : nl;
	}
}

/* ---- JSON ----------------------------------------------------------------- */

static void json_side(struct bf_json *j, const char *key,
		      struct run *const *runs, size_t n)
{
	size_t i, k;

	bf_json_arr_open(j, key);
	for (i = 0; i < n; i++) {
		bf_json_obj_open(j, NULL);
		bf_json_str(j, "file", runs[i]->path);
		bf_json_str(j, "state", runs[i]->rs.state);
		bf_json_bool(j, "cut", runs[i]->cut);
		bf_json_obj_open(j, "setup");
		for (k = 0; k < BF_RK_COUNT; k++) {
			const char *v = runs[i]->rs.hdr[k];

			if (!v[0])
				continue;
			if ((k == BF_RK_SIZE || k == BF_RK_BS ||
			     k == BF_RK_QD || k == BF_RK_USB_SPEED) &&
			    strspn(v, "0123456789") == strlen(v))
				bf_json_u64(j, bf_rkey_name(k),
					    strtoull(v, NULL, 10));
			else
				bf_json_str(j, bf_rkey_name(k), v);
		}
		bf_json_obj_close(j);
		bf_json_obj_close(j);
	}
	bf_json_arr_close(j);
}

static void json_vals(struct bf_json *j, const char *key,
		      const struct bf_cmp_side *s)
{
	bf_json_arr_open(j, key);
	for (size_t i = 0; i < s->n; i++)
		bf_json_double(j, NULL, s->v[i]);	/* null: not measured */
	bf_json_arr_close(j);
}

static const char *noise_name(enum bf_cmp_noise n)
{
	static const char *const w[] = { "runs", "runs within shared boots",
					 "boots", "one boot a side",
					 "within the runs" };

	return n <= BF_CMP_BY_WITHIN ? w[n] : "?";
}

static void json(const struct cmp *c)
{
	struct bf_json j;
	size_t i;

	bf_json_doc_open(&j, stdout);
	bf_json_str(&j, "verdict", verdict_words(c->verdict));
	bf_json_u64(&j, "exit", exit_code(c->verdict));
	if (c->verdict == BF_CMP_UNSURE && c->first && !c->unfinished) {
		bf_json_u64(&j, "runs_to_settle", c->runs);
		bf_json_str(&j, "settles_first", c->first->name);
	} else {
		bf_json_null(&j, "runs_to_settle");
		bf_json_null(&j, "settles_first");
	}
	bf_json_obj_open(&j, "boots");
	bf_json_bool(&j, "recorded", !c->noboot);
	bf_json_u64(&j, "a", boots_of(c->bootA, c->na));
	bf_json_u64(&j, "b", boots_of(c->bootB, c->nb));
	bf_json_u64(&j, "shared", c->shared);
	bf_json_obj_close(&j);
	if (c->starved[0])
		bf_json_str(&j, "starved", c->starved);
	else
		bf_json_null(&j, "starved");
	if (c->nscsi) {
		bf_json_obj_open(&j, "scsi_result");
		if (c->scsi_first) {
			bf_json_str(&j, "file", c->scsi_run->path);
			bf_json_double(&j, "t", c->scsi_first->t);
			bf_json_str(&j, "result", c->scsi_first->text);
		} else {
			bf_json_null(&j, "file");
			bf_json_null(&j, "t");
			bf_json_null(&j, "result");
		}
		bf_json_arr_open(&j, "lines");
		for (i = 0; i < c->nscsi; i++)
			bf_json_str(&j, NULL, c->scsi[i]);
		bf_json_arr_close(&j);
		bf_json_obj_close(&j);
	} else {
		bf_json_null(&j, "scsi_result");
	}
	json_side(&j, "a", c->A, c->na);
	json_side(&j, "b", c->B, c->nb);
	bf_json_obj_open(&j, "vary");
	if (c->fac.vary == BF_FACTOR_AUTO)
		bf_json_null(&j, "factor");
	else
		bf_json_str(&j, "factor", bf_factor_name(c->fac.vary));
	bf_json_bool(&j, "inferred", c->fac.inferred);
	if (c->fac.what[0])
		bf_json_str(&j, "what", c->fac.what);
	else
		bf_json_null(&j, "what");
	bf_json_obj_close(&j);
	if (c->differs[0])
		bf_json_str(&j, "not_comparable", c->differs);
	else
		bf_json_null(&j, "not_comparable");
	bf_json_arr_open(&j, "rows");
	for (i = 0; i < c->nrow; i++) {
		const struct bf_cmp_row *r = &c->row[i];

		bf_json_obj_open(&j, NULL);
		bf_json_str(&j, "name", r->name);
		bf_json_str(&j, "unit", r->unit);
		json_vals(&j, "a", &r->a);
		json_vals(&j, "b", &r->b);
		bf_json_double(&j, "a_mean", r->na ? r->ma : NAN);
		bf_json_double(&j, "b_mean", r->nb ? r->mb : NAN);
		bf_json_double(&j, "a_sd", r->na > 1 ? r->sa : NAN);
		bf_json_double(&j, "b_sd", r->nb > 1 ? r->sb : NAN);
		bf_json_double(&j, "change_rel", r->change);
		bf_json_double(&j, "t", r->t);
		bf_json_double(&j, "threshold_rel", r->rel_min);
		if (r->kind != BF_CMP_COUNT)
			bf_json_str(&j, "noise", noise_name(r->noise));
		else
			bf_json_null(&j, "noise");
		if (r->verdict == BF_CMP_UNSURE && r->runs)
			bf_json_u64(&j, "runs_to_settle", r->runs);
		else
			bf_json_null(&j, "runs_to_settle");
		bf_json_str(&j, "verdict", bf_cmp_verdict_name(r->verdict));
		bf_json_str(&j, "why", r->why);
		if (!strcmp(r->name, "mean") && isfinite(c->common))
			bf_json_u64(&j, "over_bytes", llround(c->common));
		else if (!strcmp(r->name, "mean"))
			bf_json_null(&j, "over_bytes");
		bf_json_obj_close(&j);
	}
	bf_json_arr_close(&j);
	bf_json_arr_open(&j, "reasons");
	for (i = 0; i < c->nfacts; i++)
		bf_json_str(&j, NULL, c->facts[i]);
	if (c->unfinished) {
		char u[400];

		unended_words(c, u, sizeof(u));
		bf_json_str(&j, NULL, u);
	}
	for (i = 0; i < c->nrow; i++)
		if (c->row[i].verdict == BF_CMP_WORSE && c->row[i].why[0])
			bf_json_str(&j, NULL, c->row[i].why);
	bf_json_arr_close(&j);
	bf_json_arr_open(&j, "warnings");
	if (c->notes[0]) {
		char *dup = strdup(c->notes), *save = NULL, *w;

		for (w = dup ? strtok_r(dup, "\n", &save) : NULL; w;
		     w = strtok_r(NULL, "\n", &save))
			bf_json_str(&j, NULL, w);
		free(dup);
	}
	bf_json_arr_close(&j);
	bf_json_obj_close(&j);
}

/* ---- the command ---------------------------------------------------------- */

struct args {
	const char *a[BF_CMP_RUNS], *b[BF_CMP_RUNS];
	size_t na, nb;
	bool email, force;
	enum bf_factor vary;		/* --vary, or BF_FACTOR_AUTO */
	char *rest[BF_MAX_POS + 8];
	int nrest;
	struct { const char *row; double pct; } thr[16];
	char thrbuf[16][48];
	size_t nthr;
};

/* the rows --threshold may name (and the groups rates, latency) */
static const char *const thr_rows[] = {
	"peak", "floor", "mean", "p50 latency", "p99 latency",
	"p99.9 latency", "max latency", "requests/bio", "request size",
	"rates", "latency",
};

/* --threshold ROW=PCT: the smallest change of ROW that counts, in % */
static int add_threshold(struct args *x, const char *v)
{
	const char *eq = v ? strrchr(v, '=') : NULL;
	char *end;
	double pct;
	size_t i, l;
	bool known = false;

	if (!eq || eq == v)
		return bad("--threshold takes ROW=PCT (e.g. floor=5, p99=20, rates=5, latency=20)", NULL);
	if (x->nthr >= 16)
		return bad("at most 16 --threshold", NULL);
	l = eq - v;
	if (l >= sizeof(x->thrbuf[0]))
		return bad("--threshold: no such row", NULL);
	errno = 0;
	pct = strtod(eq + 1, &end);
	if (end == eq + 1 || *end || errno || !isfinite(pct) || pct < 0 ||
	    pct > 1000)
		return bad("--threshold: PCT is a percentage from 0 to 1000", NULL);
	snprintf(x->thrbuf[x->nthr], sizeof(x->thrbuf[0]), "%.*s", (int)l, v);
	for (i = 0; i < sizeof(thr_rows) / sizeof(thr_rows[0]); i++)
		known |= row_matches(x->thrbuf[x->nthr], thr_rows[i]) ||
			 !strcmp(x->thrbuf[x->nthr], thr_rows[i]);
	if (!known) {
		fprintf(stderr, "blkfloor compare: --threshold: no row '%s' (peak, floor, mean, p50, p99, p99.9, max, requests/bio, request size, rates, latency)\n",
			x->thrbuf[x->nthr]);
		return EXIT_USAGE;
	}
	x->thr[x->nthr].row = x->thrbuf[x->nthr];
	x->thr[x->nthr].pct = pct;
	x->nthr++;
	return 0;
}

/*
 * Take out what the common parser does not know: -a FILE, -b FILE,
 * --format email|text, --fail-on regression, --force and the "--" between
 * the sides. What is left (files, --format trace|fio|csv, --json) goes to
 * the common parser; @sep is the number of files before "--", or -1.
 */
static int split_args(int argc, char **argv, struct args *x, int *sep)
{
	int i, files = 0;

	memset(x, 0, sizeof(*x));
	x->vary = BF_FACTOR_AUTO;
	*sep = -1;
	x->rest[x->nrest++] = argv[0];
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-a") || !strcmp(a, "-b")) {
			size_t *n = a[1] == 'a' ? &x->na : &x->nb;

			if (!v)
				return bad("-a and -b need a file", NULL);
			if (*n >= BF_CMP_RUNS)
				return bad("at most 16 runs per side", NULL);
			(a[1] == 'a' ? x->a : x->b)[(*n)++] = v;
			i++;
		} else if (!strcmp(a, "--")) {
			if (*sep >= 0)
				return bad("one '--' between the A and the B runs", NULL);
			*sep = files;
		} else if (!strcmp(a, "--threshold") ||
			   !strncmp(a, "--threshold=", 12)) {
			int r = add_threshold(x, a[11] == '=' ? a + 12 : v);

			if (r)
				return r;
			if (a[11] != '=')
				i++;
		} else if (!strcmp(a, "--force")) {
			x->force = true;
		} else if (!strcmp(a, "--vary") || !strncmp(a, "--vary=", 7)) {
			const char *w = a[6] == '=' ? a + 7 : v;

			if (!w || !w[0]) {
				fprintf(stderr, "blkfloor compare: --vary takes a factor (%s)\n",
					bf_factor_names());
				return EXIT_USAGE;
			}
			if (bf_factor_parse(w, &x->vary)) {
				fprintf(stderr, "blkfloor compare: --vary: no factor '%s' (%s)\n",
					w, bf_factor_names());
				return EXIT_USAGE;
			}
			if (a[6] != '=')
				i++;
		} else if (!strcmp(a, "--fail-on") ||
			   !strncmp(a, "--fail-on=", 10)) {
			const char *w = a[9] == '=' ? a + 10 : v;

			if (!w || strcmp(w, "regression"))
				return bad("--fail-on takes 'regression'", NULL);
			if (a[9] != '=')
				i++;
		} else if (!strcmp(a, "--format") &&
			   v && (!strcmp(v, "email") || !strcmp(v, "text"))) {
			x->email = !strcmp(v, "email");
			i++;
		} else if (!strcmp(a, "--format=email") ||
			   !strcmp(a, "--format=text")) {
			x->email = a[9] == 'e';
		} else {
			if (x->nrest >= BF_MAX_POS + 6)
				return bad("too many arguments", NULL);
			if (!strcmp(a, "--format") && v) {
				x->rest[x->nrest++] = (char *)a;
				a = argv[++i];
			} else if (a[0] != '-' || !a[1]) {
				files++;
			}
			x->rest[x->nrest++] = (char *)a;
		}
	}
	x->rest[x->nrest] = NULL;
	return 0;
}

static int do_compare(int argc, char **argv)
{
	struct run runs[2 * BF_CMP_RUNS];
	struct cmp *c;
	struct bf_opts o;
	struct args x;
	char err[256];
	size_t i, n = 0;
	int sep, ret;

	ret = split_args(argc, argv, &x, &sep);
	if (ret)
		return ret;
	memset(&o, 0, sizeof(o));
	if (bf_opts_parse(&o, x.nrest, x.rest, BF_OPT(FORMAT) | BF_OPT(JSON),
			  0, BF_MAX_POS, err, sizeof(err)))
		return bad(err, NULL);
	if (x.na || x.nb) {
		if (o.npos || sep >= 0)
			return bad("give the runs as -a/-b or as A... -- B..., not both", NULL);
	} else if (sep >= 0) {
		for (i = 0; i < (size_t)o.npos; i++) {
			if (i < (size_t)sep && x.na < BF_CMP_RUNS)
				x.a[x.na++] = o.pos[i];
			else if (i >= (size_t)sep && x.nb < BF_CMP_RUNS)
				x.b[x.nb++] = o.pos[i];
			else
				return bad("at most 16 runs per side", NULL);
		}
	} else if (o.npos == 2) {
		x.a[x.na++] = o.pos[0];
		x.b[x.nb++] = o.pos[1];
	} else {
		return bad("expected A B, A... -- B..., or -a A... -b B...", NULL);
	}
	if (!x.na || !x.nb)
		return bad("each side needs at least one run", NULL);
	if (o.json && x.email)
		return bad("--json and --format email are two outputs: choose one", NULL);

	c = calloc(1, sizeof(*c));
	if (!c)
		return bad("out of memory", NULL);
	for (i = 0; i < x.nthr; i++) {
		c->thr[i].row = x.thr[i].row;
		c->thr[i].pct = x.thr[i].pct;
	}
	c->nthr = x.nthr;
	c->json = o.json;
	c->want = x.vary;
	memset(runs, 0, sizeof(runs));
	ret = EXIT_OK;
	for (i = 0; i < x.na + x.nb; i++, n++) {
		struct run *r = &runs[i];

		r->path = i < x.na ? x.a[i] : x.b[i - x.na];
		if (i < x.na)
			c->A[c->na++] = r;
		else
			c->B[c->nb++] = r;
		ret = load_run(c, r, o.format, i < x.na);
		if (ret) {
			n++;
			goto out;
		}
	}
	comparable(c);
	if (c->differs[0] && !x.force) {
		char why[720];

		snprintf(why, sizeof(why), "%s (one factor at a time; --force compares anyway)",
			 c->differs);
		ret = refuse(c, why, NULL);
		goto out;
	}
	if (c->differs[0])
		fprintf(stderr, "blkfloor compare: warning: compared anyway (--force): %s\n",
			c->differs);
	compute(c);
	if (o.json) {
		json(c);
	} else {
		char *text = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&text, &len);

		if (!m) {
			ret = bad("out of memory", NULL);
			goto out;
		}
		report(m, c, x.email);
		fclose(m);
		if (x.email)
			wrap(stdout, text, EMAIL_COLS);
		else
			fputs(text, stdout);
		free(text);
	}
	ret = exit_code(c->verdict);
out:
	for (i = 0; i < n; i++)
		free_run(&runs[i]);
	free(c);
	return ret;
}

BLKFLOOR_COMMAND(compare,
	"A B | A... -- B... | -a A... -b B... [--vary FACTOR] [--threshold ROW=PCT]... [--force] [--json | --format email] [--format trace|fio|csv]",
	do_compare,
	"Is B worse than A (kernel B against kernel A, module against module,\n"
	"enclosure against enclosure)? One or several runs per side:\n"
	"throughput (peak, floor, mean), latency (p50, p99, p99.9, max, each\n"
	"run's from its merged histogram), I/O errors by class, events\n"
	"(resets, aborts, timeouts, link changes), SCSI errors, requests per\n"
	"bio and request size, stalls and failed runs, with the setup where\n"
	"the sides differ (kernel, the path's module builds, driver, link,\n"
	"VID:PID, ...) and a verdict that weighs rates and latency against\n"
	"the noise of the boots the runs come from: interleave A and B in\n"
	"one boot where a module can be swapped, or boot A B A B with several\n"
	"runs each; one boot a side is inconclusive unless tenfold.\n"
	"One factor varies, named on the report's first setup line: the\n"
	"kernel, a module's build, the driver (uas, usb-storage, quirks),\n"
	"firmware, the device (VID:PID, model, serial, size: an enclosure\n"
	"A/B), the link, queue settings or the workload (op, pattern, bs,\n"
	"qd, region), inferred from the trace headers or given by --vary.\n"
	"What follows from it is shown (a kernel's queue limits or fall to\n"
	"usb-storage, an enclosure's link); any other difference is refused.\n"
	"A fio log records no setup: what differs is then unknown. Exit\n"
	"status: 0 no regression, 1 regression, 2 bad input or usage (also\n"
	"runs that differ in more than one factor), 3 inconclusive (more\n"
	"runs or boots would settle it).\n"
	"  A... -- B...      several runs per side (or -a A -a A2 -b B ...)\n"
	"  --threshold ROW=PCT\n"
	"                    the smallest change of ROW that counts (peak,\n"
	"                    floor, mean, p50, p99, p99.9, max, requests/bio,\n"
	"                    request size; rates, latency for the groups);\n"
	"                    rates and latency 10 %, path 5 %, max 100 %\n"
	"  --vary FACTOR     the factor under test: kernel, module, driver,\n"
	"                    firmware, device (or enclosure), link, queue,\n"
	"                    op, pattern, bs, qd, region, blkfloor; any other\n"
	"                    difference is refused\n"
	"  --force           compare runs that differ in more than one\n"
	"                    factor anyway\n"
	"  --format email    plain text within 72 columns, for a mail\n"
	"  --format FMT      how to read the files: trace, fio or csv\n"
	"  --json            one JSON object (with \"schema\" and \"verdict\")\n"
	"  --fail-on regression\n"
	"                    accepted for old scripts: the exit status always\n"
	"                    says the verdict now");
