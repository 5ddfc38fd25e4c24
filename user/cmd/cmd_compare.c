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
#include "json.h"
#include "opts.h"
#include "pathsum.h"
#include "runsum.h"
#include "units.h"

#define EXIT_INCONCLUSIVE	3
#define MAXROWS			48
#define EMAIL_COLS		72

struct run {
	const char *path;
	char *buf;
	size_t len;			/* whole lines only */
	bool cut, failed, curve;
	struct bf_runsum rs;
	struct bf_series s;
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
	char differs[512];		/* what makes the runs not comparable */
	char notes[1024];		/* warnings, "; "-separated */
	double common;			/* bytes every run wrote */
	enum bf_cmp_verdict verdict;
	unsigned int runs;
};

static int bad(const char *why, const char *path)
{
	if (path)
		fprintf(stderr, "blkfloor compare: %s: %s\n", path, why);
	else
		fprintf(stderr, "blkfloor compare: %s\n", why);
	return EXIT_USAGE;
}

static void note(struct cmp *c, const char *path, const char *what)
{
	size_t l = strlen(c->notes);

	snprintf(c->notes + l, sizeof(c->notes) - l, "%s%s: %s",
		 l ? "\n" : "", path, what);
	fprintf(stderr, "blkfloor compare: %s: warning: %s\n", path, what);
}

/* The whole file (or standard input) into memory. */
static int slurp(const char *path, char **buf, size_t *len)
{
	bool std = !strcmp(path, "-");
	FILE *f = std ? stdin : fopen(path, "r");
	size_t cap = 0, n = 0;
	char *b = NULL;

	if (!f)
		return -errno;
	for (;;) {
		if (n + 4096 + 1 > cap) {
			char *nb = realloc(b, cap = cap ? 2 * cap : 65536);

			if (!nb) {
				free(b);
				if (!std)
					fclose(f);
				return -ENOMEM;
			}
			b = nb;
		}
		size_t got = fread(b + n, 1, cap - n - 1, f);

		n += got;
		if (!got)
			break;
	}
	if (ferror(f)) {
		free(b);
		if (!std)
			fclose(f);
		return -EIO;
	}
	if (!std)
		fclose(f);
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

static FILE *open_buf(struct run *r)
{
	return fmemopen(r->buf, r->len, "r");
}

/*
 * A failed run's curve is a broken run, which the curve reader refuses;
 * compare shows it up to the failure (the failure is its own row).
 */
static void hide_failure(char *buf)
{
	char *p = buf;

	while ((p = strstr(p, "# state: failed")))
		memcpy(p + 9, "FAILED", 6);
}

static int load_run(struct cmp *c, struct run *r, enum bf_format fmt)
{
	struct bf_load ld = { .format = fmt };
	char err[320], *copy;
	size_t whole;
	FILE *f;
	int ret;

	ret = slurp(r->path, &r->buf, &r->len);
	if (ret)
		return bad(strerror(-ret), r->path);
	whole = bf_whole_lines(r->buf, r->len);
	if (whole < r->len) {
		r->cut = true;
		note(c, r->path, "cut in the middle of a line: read up to its last whole line");
		r->len = whole;
		r->buf[whole] = '\0';
	}
	if (!r->len)
		return bad("empty", r->path);
	f = open_buf(r);
	if (!f)
		return bad(strerror(errno), r->path);
	ret = bf_runsum_read(f, &r->rs, err, sizeof(err));
	fclose(f);
	if (ret)
		return bad(err, r->path);
	r->failed = !strcmp(r->rs.state, "failed");

	copy = strdup(r->buf);
	if (!copy)
		return bad("out of memory", r->path);
	hide_failure(copy);
	f = fmemopen(copy, r->len, "r");
	ret = f ? bf_series_read_as(f, &ld, &r->s, err, sizeof(err)) : -errno;
	if (f)
		fclose(f);
	free(copy);
	if (ret)
		return bad(ret == -ENOMEM || !f ? strerror(-ret) : err, r->path);
	if (ld.warn[0] && !r->cut)
		note(c, r->path, ld.warn);
	ret = bf_classify(r->s.s, r->s.n, &r->r);
	if (ret && !r->failed)
		return bad(ret == -EINVAL ? "cannot classify: fewer than 3 samples" :
			   strerror(-ret), r->path);
	r->curve = !ret;

	memset(&r->p, 0, sizeof(r->p));
	if (ld.format == BF_FORMAT_TRACE) {
		f = open_buf(r);
		ret = f ? bf_pathsum_read(f, &r->p, err, sizeof(err)) : -errno;
		if (f)
			fclose(f);
		if (ret)
			return bad(f ? err : strerror(-ret), r->path);
	}
	return 0;
}

static void free_run(struct run *r)
{
	if (r->curve)
		bf_report_free(&r->r);
	bf_series_free(&r->s);
	bf_runsum_free(&r->rs);
	free(r->buf);
}

/* ---- what makes runs comparable ------------------------------------------ */

static const enum bf_rkey same_keys[] = {
	BF_RK_OP, BF_RK_PATTERN, BF_RK_BS, BF_RK_QD, BF_RK_REGION,
	BF_RK_MODEL, BF_RK_SERIAL, BF_RK_SIZE, BF_RK_USB_ID,
};

static void comparable(struct cmp *c)
{
	const struct run *ref = c->A[0];
	size_t k, i, l;

	c->differs[0] = '\0';
	for (k = 0; k < sizeof(same_keys) / sizeof(same_keys[0]); k++) {
		enum bf_rkey key = same_keys[k];

		for (i = 1; i < c->na + c->nb; i++) {
			const struct run *r = i < c->na ? c->A[i] : c->B[i - c->na];
			const char *x = ref->rs.hdr[key], *y = r->rs.hdr[key];

			if (!x[0] || !y[0] || !strcmp(x, y))
				continue;
			l = strlen(c->differs);
			snprintf(c->differs + l, sizeof(c->differs) - l,
				 "%s%s: %s (%s) against %s (%s)", l ? "; " : "",
				 bf_rkey_name(key), x, ref->path, y, r->path);
			break;
		}
	}
}

/* ---- the rows ------------------------------------------------------------- */

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
	r->a.n = c->na;
	r->b.n = c->nb;
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

static void lat(struct bf_cmp_row *row, const struct run *r, bool b, size_t i,
		enum bf_rlat k)
{
	double se = 0, v = NAN;
	size_t j;

	if (k == BF_RL_MAX) {
		for (j = 0; j < r->rs.nlat; j++)
			if (isfinite(r->rs.lat[k][j]) && !(v >= r->rs.lat[k][j]))
				v = r->rs.lat[k][j];
	} else if (r->rs.nlat) {
		v = bf_cmp_median(r->rs.lat[k], r->rs.nlat, &se);
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

		row = add(c, nm[k], "MB/s", BF_CMP_LEVEL, BF_CMP_LOWER, 0.02,
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
			if (d[k].worse && (!strcmp(d[k].what, "driver") ||
					   !strcmp(d[k].what, "usb_speed")))
				snprintf(c->facts[c->nfacts++],
					 sizeof(c->facts[0]), "%s %s -> %s: %s",
					 d[k].what, d[k].a, d[k].b, d[k].why);
	}
}

static void compute(struct cmp *c)
{
	size_t i;

	build_rows(c);
	find_facts(c);
	c->verdict = bf_cmp_overall(c->row, c->nrow, &c->runs);
	/* the failed-run row said it as a number: the fact says why */
	for (i = 0; i < c->nrow; i++)
		if (!strcmp(c->row[i].name, "failed runs") &&
		    c->row[i].verdict == BF_CMP_WORSE)
			c->row[i].why[0] = '\0';
	if (c->nfacts)
		c->verdict = BF_CMP_WORSE;
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

/* "300.2", or "300.2+-4.1" over several runs; "-" when not measured */
static void cell(char *buf, size_t len, const struct bf_cmp_row *r, bool b)
{
	size_t n = b ? r->nb : r->na;
	double m = b ? r->mb : r->ma, s = b ? r->sb : r->sa;
	char x[20], y[20];

	bf_fmt_num(x, sizeof(x), m);
	bf_fmt_num(y, sizeof(y), s);
	if (!n)
		snprintf(buf, len, "-");
	else if (n > 1 && r->kind != BF_CMP_COUNT)
		snprintf(buf, len, "%s+-%s", x, y);
	else
		snprintf(buf, len, "%s", x);
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

static void setup_line(FILE *f, const struct cmp *c, const char *label,
		       enum bf_rkey k)
{
	char a[256], b[256];

	side_item(a, sizeof(a), c->A, c->na, k);
	side_item(b, sizeof(b), c->B, c->nb, k);
	if (!strcmp(a, "-") && !strcmp(b, "-"))
		return;
	if (!strcmp(a, b))
		fprintf(f, "  %-10s %s (A and B)\n", label, a);
	else
		fprintf(f, "  %-10s A %s\n  %-10s B %s\n", label, a, "", b);
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

static void events(FILE *f, const char *side, struct run *const *runs,
		   size_t n)
{
	unsigned long long errs = 0, ivs = 0;
	size_t i, k;
	bool any = false;

	fprintf(f, "  %s:", side);
	for (i = 0; i < n; i++) {
		const struct bf_runsum *rs = &runs[i]->rs;

		errs += rs->errors;
		ivs += rs->err_ivs;
		for (k = 0; k < rs->nev; k++) {
			fprintf(f, "%s %s %llu", any ? "," : "",
				rs->ev[k].name, rs->ev[k].n);
			event_times(f, rs, rs->ev[k].name);
			any = true;
		}
		if (runs[i]->failed) {
			fprintf(f, "%s run failed (errno %ld)", any ? "," : "",
				rs->err_no);
			any = true;
		}
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
static void classes(FILE *f, const struct cmp *c)
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
	if (!strcmp(s[0], s[1]))
		fprintf(f, "  %-10s %s (A and B)\n", "class", s[0]);
	else
		fprintf(f, "  %-10s A %s\n  %-10s B %s\n", "class", s[0], "",
			s[1]);
}

static void report(FILE *f, const struct cmp *c, bool email)
{
	char x[48], y[48], d[32];
	size_t i;

	if (email) {
		char ka[64], kb[64];

		side_item(ka, sizeof(ka), c->A, c->na, BF_RK_KERNEL);
		side_item(kb, sizeof(kb), c->B, c->nb, BF_RK_KERNEL);
		fprintf(f, "[blkfloor compare] %s: B (kernel %s) against A (kernel %s), %zu run%s against %zu\n\n",
			verdict_words(c->verdict), kb, ka, c->nb,
			c->nb > 1 ? "s" : "", c->na);
	}
	files(f, "A", c->A, c->na);
	files(f, "B", c->B, c->nb);
	fprintf(f, "\nsetup\n");
	setup_line(f, c, "kernel", BF_RK_KERNEL);
	setup_line(f, c, "driver", BF_RK_DRIVER);
	setup_line(f, c, "link Mb/s", BF_RK_USB_SPEED);
	setup_line(f, c, "VID:PID", BF_RK_USB_ID);
	setup_line(f, c, "bcdDevice", BF_RK_USB_BCD);
	setup_line(f, c, "firmware", BF_RK_FIRMWARE);
	setup_line(f, c, "quirks", BF_RK_QUIRKS);
	setup_line(f, c, "model", BF_RK_MODEL);
	setup_line(f, c, "serial", BF_RK_SERIAL);
	setup_line(f, c, "transport", BF_RK_TRANSPORT);
	setup_line(f, c, "op", BF_RK_OP);
	setup_line(f, c, "pattern", BF_RK_PATTERN);
	setup_line(f, c, "bs", BF_RK_BS);
	setup_line(f, c, "qd", BF_RK_QD);
	setup_line(f, c, "region", BF_RK_REGION);
	setup_line(f, c, "max_sect", BF_RK_MAX_SECTORS);
	setup_line(f, c, "queue_dep", BF_RK_QUEUE_DEPTH);
	setup_line(f, c, "scheduler", BF_RK_SCHEDULER);
	setup_line(f, c, "nomerges", BF_RK_NOMERGES);
	setup_line(f, c, "module", BF_RK_MODULE);
	classes(f, c);
	if (c->differs[0])
		fprintf(f, "  NOT COMPARABLE (--force): %s\n", c->differs);
	fprintf(f, "\n%-17s %14s %14s %9s  %s\n", "", "A", "B", "change",
		"verdict");
	for (i = 0; i < c->nrow; i++) {
		const struct bf_cmp_row *r = &c->row[i];
		char name[40];

		if (!r->na && !r->nb)
			continue;	/* measured on neither side */
		if (r->kind == BF_CMP_COUNT && !r->ma && !r->mb)
			continue;	/* nothing to count on either side */
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
		fprintf(f, "%-17.17s %14s %14s %9s  %s\n", name, x, y, d,
			bf_cmp_verdict_name(r->verdict));
	}
	fprintf(f, "\nevents\n");
	events(f, "A", c->A, c->na);
	events(f, "B", c->B, c->nb);
	if (c->notes[0])
		fprintf(f, "\nwarnings\n  %s\n", c->notes);
	fprintf(f, "\nverdict: %s", verdict_words(c->verdict));
	if (c->verdict == BF_CMP_UNSURE)
		fprintf(f, c->runs >= BF_CMP_MAX_RUNS ?
			": more than %u runs per side would be needed to settle it" :
			": about %u runs per side would settle it", c->runs);
	fputc('\n', f);
	for (i = 0; i < c->nfacts; i++)
		fprintf(f, "  - %s\n", c->facts[i]);
	for (i = 0; i < c->nrow; i++) {
		const struct bf_cmp_row *r = &c->row[i];

		if ((r->verdict == BF_CMP_WORSE ||
		     (r->verdict == BF_CMP_UNSURE &&
		      c->verdict == BF_CMP_UNSURE)) && r->why[0])
			fprintf(f, "  - %s\n", r->why);
	}
	if (email)
		return;
	fprintf(f, "\nRates are MB/s (10^6 B/s), latencies microseconds (each run: the\n"
		"median over its intervals of their percentile; max: the largest).\n"
		"With several runs, a cell is mean+-sd and a difference counts when\n"
		"Student's t on the runs passes the one-sided 99 %% quantile; with one\n"
		"run per side, |t| > 3 against the noise within the runs. Smallest\n"
		"changes that count: rates 2 %%, latency 10 %%, path 5 %%, max 2x\n"
		"(10x with one run per side); any error, event or failed run in B\n"
		"beyond A's worst run; stalls in every B run.\n");
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

static void json(const struct cmp *c)
{
	struct bf_json j;
	size_t i;

	bf_json_doc_open(&j, stdout);
	bf_json_str(&j, "verdict", verdict_words(c->verdict));
	bf_json_u64(&j, "exit", exit_code(c->verdict));
	if (c->verdict == BF_CMP_UNSURE)
		bf_json_u64(&j, "runs_to_settle", c->runs);
	else
		bf_json_null(&j, "runs_to_settle");
	json_side(&j, "a", c->A, c->na);
	json_side(&j, "b", c->B, c->nb);
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
		bf_json_str(&j, "verdict", bf_cmp_verdict_name(r->verdict));
		bf_json_str(&j, "why", r->why);
		bf_json_obj_close(&j);
	}
	bf_json_arr_close(&j);
	bf_json_arr_open(&j, "reasons");
	for (i = 0; i < c->nfacts; i++)
		bf_json_str(&j, NULL, c->facts[i]);
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
	char *rest[BF_MAX_POS + 8];
	int nrest;
};

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
		} else if (!strcmp(a, "--force")) {
			x->force = true;
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
	memset(runs, 0, sizeof(runs));
	ret = EXIT_OK;
	for (i = 0; i < x.na + x.nb; i++, n++) {
		struct run *r = &runs[i];

		r->path = i < x.na ? x.a[i] : x.b[i - x.na];
		if (i < x.na)
			c->A[c->na++] = r;
		else
			c->B[c->nb++] = r;
		ret = load_run(c, r, o.format);
		if (ret) {
			n++;
			goto out;
		}
		if (i < x.na && r->failed) {
			ret = bad("a failed run cannot be the baseline (A)", r->path);
			n++;
			goto out;
		}
	}
	comparable(c);
	if (c->differs[0] && !x.force) {
		fprintf(stderr, "blkfloor compare: the runs are not comparable (--force compares them anyway): %s\n",
			c->differs);
		ret = EXIT_USAGE;
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
	"A B | A... -- B... | -a A... -b B... [--force] [--json | --format email] [--format trace|fio|csv]",
	do_compare,
	"Is B worse than A (kernel B against kernel A, enclosure against\n"
	"enclosure)? One or several runs per side: throughput (peak, floor,\n"
	"mean), latency (p50, p99, p99.9, max), I/O errors by class, events\n"
	"(resets, aborts, timeouts, link changes), SCSI errors, requests per\n"
	"bio and request size, stalls and failed runs, with the setup of each\n"
	"side (kernel, driver, link, VID:PID, bcdDevice, firmware, quirks) and\n"
	"a verdict that weighs the differences against the spread between\n"
	"runs. Exit status: 0 no regression, 1 regression, 2 bad input or\n"
	"usage (also runs that are not comparable), 3 inconclusive (more runs\n"
	"would settle it).\n"
	"  A... -- B...      several runs per side (or -a A -a A2 -b B ...)\n"
	"  --force           compare runs of another op, pattern, bs, qd,\n"
	"                    region or device anyway\n"
	"  --format email    plain text within 72 columns, for a mail\n"
	"  --format FMT      how to read the files: trace, fio or csv\n"
	"  --json            one JSON object (with \"schema\" and \"verdict\")\n"
	"  --fail-on regression\n"
	"                    accepted for old scripts: the exit status always\n"
	"                    says the verdict now");
