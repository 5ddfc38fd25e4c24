// SPDX-License-Identifier: GPL-2.0
/*
 * SVG chart of a throughput curve, no dependencies. Two panels share the
 * rate axis: rate against bytes written (what decides a copy's duration)
 * and rate against time. Samples are a thin grey line (min/max per pixel
 * column when there are more samples than pixels), plateaus thick blue
 * bars labelled with their level (the highest with the report's peak, the
 * lowest with its floor, so the chart says the numbers the text says; an
 * erratic curve, which has none, gets dashed lines at its two levels), the
 * cache step a dashed red line. A caption carries the setup, marks the
 * path's events (resets, timeouts, errors, link changes), and a second
 * curve (B) is drawn over the first (A) on the same axes. Axes are scaled:
 * MB, GB or TB written; seconds, minutes or hours.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"

#define W	1000
#define ML	80	/* left margin: rate tick labels */
#define MR	30
#define PH	260	/* panel height */
#define GAP	90	/* between the panels: tick labels, axis name */

static const char *const mark_names[BF_MARK_COUNT] = {
	"reset", "timeout", "error", "link",
};
static const char *const mark_words[BF_MARK_COUNT] = {
	"R: reset or abort", "T: timeout", "E: I/O errors",
	"L: link change (disconnect, re-bind)",
};
static const char *const mark_colour[BF_MARK_COUNT] = {
	"#c62828", "#ef6c00", "#6a1b9a", "#00838f",
};

/*
 * Per curve: samples, plateaus. One curve's samples are grey beside its
 * blue plateaus; in an overlay each run's samples take a light shade of
 * its own plateaus' colour, so that A and B differ everywhere.
 */
static const char *const sample_colour[2] = { "#9a9a9a", "#f0a35b" };
static const char *const overlay_colour[2] = { "#7fa3db", "#f0a35b" };
static const char *const level_colour[2] = { "#1f5fbf", "#d66a00" };

const char *bf_mark_name(enum bf_mark_kind k)
{
	return k < BF_MARK_COUNT ? mark_names[k] : "?";
}

struct axis {
	double lo, hi;	/* data range */
	double px0, px1;	/* pixel range */
};

/* the x axes both panels share, in their display units */
struct frame {
	double bscale, tscale;		/* bytes and seconds per unit */
	const char *bunit, *tunit;
	double bmax, t0, t1, ymax;
	char moved[48];		/* "bytes written", "bytes read", ... */
};

static double map(const struct axis *a, double v)
{
	return a->px0 + (v - a->lo) / (a->hi - a->lo) * (a->px1 - a->px0);
}

/* A "nice" tick step (1, 2 or 5 x 10^k) giving about @want ticks. */
static double nice_step(double range, int want)
{
	double raw = range / want, p = pow(10, floor(log10(raw))), m = raw / p;

	if (m < 1.5)
		return p;
	if (m < 3.5)
		return 2 * p;
	if (m < 7.5)
		return 5 * p;
	return 10 * p;
}

static void esc(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '"')
			fputs("&quot;", f);
		else if (*s == '\'')
			fputs("&apos;", f);
		else
			fputc(*s, f);
	}
}

/* as many decimals as the step needs: 0.0005 -> 4, 0.05 -> 2, 5 -> 0 */
static void tick_label(char *b, size_t len, double v, double step)
{
	int d = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);

	if (fabs(v) < step / 2)
		v = 0;
	snprintf(b, len, "%.*f", d, v);
}

/* bytes written by time @t: the sample holding @t, its rate over it */
static double bytes_at(const struct bf_plot_curve *c, double t)
{
	size_t i;

	for (i = 0; i < c->n && c->s[i].t < t; i++)
		;
	if (i == c->n)
		return c->s[c->n - 1].bytes;
	return fmax(i ? c->s[i - 1].bytes : 0,
		    c->s[i].bytes - c->s[i].mbps * 1e6 * (c->s[i].t - t));
}

static void curve(FILE *f, const struct bf_plot_curve *c, int k,
		  bool overlay, const struct axis *x, const struct axis *y,
		  bool by_bytes, double xscale, double ymax)
{
	const struct bf_sample *s = c->s;
	size_t i, n = c->n;

	fprintf(f, "<polyline class='curve-%c' fill='none' stroke='%s' stroke-width='1' points='",
		'a' + k, overlay ? overlay_colour[k] : sample_colour[k]);
	if (n <= 2 * (size_t)(W - ML - MR)) {
		/* each sample is a rate held over its interval: steps */
		for (i = 0; i < n; i++) {
			double a, b, py = map(y, fmin(s[i].mbps, ymax));

			if (by_bytes) {
				a = i ? s[i - 1].bytes :
				    fmax(0, s[0].bytes - s[0].mbps * 1e6 * s[0].dt);
				a /= xscale;
				b = s[i].bytes / xscale;
			} else {
				a = (s[i].t - s[i].dt) / xscale;
				b = s[i].t / xscale;
			}
			fprintf(f, "%.1f,%.1f %.1f,%.1f ", map(x, a), py,
				map(x, b), py);
		}
	} else {
		int col = -1;
		double lo = 0, hi = 0;

		for (i = 0; i <= n; i++) {
			double xv = i < n ? (by_bytes ? s[i].bytes : s[i].t) /
					    xscale : 0;
			int c = i < n ? (int)map(x, xv) : -2;

			if (c != col && col >= 0)
				fprintf(f, "%d,%.1f %d,%.1f ", col,
					map(y, fmin(lo, ymax)), col,
					map(y, fmin(hi, ymax)));
			if (i == n)
				break;
			if (c != col) {
				col = c;
				lo = hi = s[i].mbps;
			}
			lo = fmin(lo, s[i].mbps);
			hi = fmax(hi, s[i].mbps);
		}
	}
	fputs("'/>\n", f);
}

static void label(FILE *f, double px, double py, const char *colour,
		  const char *anchor, const char *text)
{
	fprintf(f, "<text x='%.1f' y='%.1f' text-anchor='%s' font-size='14' font-weight='bold' fill='%s' stroke='#fbfbfb' stroke-width='4' paint-order='stroke'>",
		px, py, anchor, colour);
	esc(f, text);
	fputs("</text>\n", f);
}

/* plateaus (or an erratic curve's two levels) and the step */
static void levels(FILE *f, const struct bf_plot_curve *c, int k,
		   bool labels, const struct axis *x, const struct axis *y,
		   bool by_bytes, double xscale, double top)
{
	const struct bf_report *r = c->r;
	const struct bf_sample *s = c->s;
	size_t i, hi = 0, lo = 0;
	char rate[32], text[64];

	if (r->erratic) {
		double lv[2] = { r->peak_mbps, r->floor_mbps };
		static const char *const nm[2] = { "peak", "floor" };

		for (i = 0; i < 2; i++) {
			double py = map(y, lv[i]);

			fprintf(f, "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='%s' stroke-width='2.5' stroke-dasharray='10,5'/>\n",
				ML, py, W - MR, py, level_colour[k]);
			if (!labels)
				continue;
			bf_fmt_mbps(rate, sizeof(rate), lv[i]);
			snprintf(text, sizeof(text), "%s %s MB/s", nm[i], rate);
			label(f, W - MR - 8, i ? py - 8 : py + 20,
			      level_colour[k], "end", text);
		}
		return;
	}
	for (i = 1; i < r->nseg; i++) {
		if (r->seg[i].level_mbps > r->seg[hi].level_mbps)
			hi = i;
		if (r->seg[i].level_mbps < r->seg[lo].level_mbps)
			lo = i;
	}
	for (i = 0; i < r->nseg; i++) {
		const struct bf_segment *g = &r->seg[i];
		double a, b, py = map(y, g->level_mbps);
		double b0 = g->first ? s[g->first - 1].bytes :
			    s[0].bytes - s[0].mbps * 1e6 * s[0].dt;

		if (by_bytes) {
			a = map(x, fmax(0, b0) / xscale);
			b = map(x, s[g->last].bytes / xscale);
		} else {
			a = map(x, g->start_s / xscale);
			b = map(x, g->end_s / xscale);
		}
		fprintf(f, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='%s' stroke-width='4'/>\n",
			a, py, b, py, level_colour[k]);
		if (!labels || b - a < 70)
			continue;	/* too narrow to label legibly */
		/* the report's own numbers where they apply */
		if (i == lo) {
			bf_fmt_mbps(rate, sizeof(rate), r->floor_mbps);
			snprintf(text, sizeof(text), "floor %s MB/s", rate);
		} else if (i == hi) {
			bf_fmt_mbps(rate, sizeof(rate), r->peak_mbps);
			snprintf(text, sizeof(text), "peak %s MB/s", rate);
		} else {
			bf_fmt_mbps(rate, sizeof(rate), g->level_mbps);
			snprintf(text, sizeof(text), "%s MB/s", rate);
		}
		label(f, fmin(fmax((a + b) / 2, ML + 80), W - MR - 80),
		      py - 9 < top + 16 ? py + 20 : py - 9, level_colour[k],
		      "middle", text);
	}
	if (r->has_step) {
		double px = by_bytes ? map(x, r->cache_bytes / xscale) :
				       map(x, r->step_time_s / xscale);
		/* one run's step in red; an overlay's in each run's colour */
		const char *col = labels ? "#c62828" : level_colour[k];
		char cb[32];

		bf_fmt_si_bytes(cb, sizeof(cb), r->cache_bytes);
		fprintf(f, "<line x1='%.1f' y1='%.0f' x2='%.1f' y2='%.0f' stroke='%s' stroke-width='2' stroke-dasharray='6,4'/>\n",
			px, top, px, top + PH, col);
		fprintf(f, "<text x='%.1f' y='%.0f' font-size='14' fill='%s' text-anchor='%s'>%sstep: %s at %.1f s</text>\n",
			px > W / 2 ? px - 6 : px + 6, top + PH / 2.0 + 18 * k,
			col, px > W / 2 ? "end" : "start",
			labels ? "" : k ? "B: " : "A: ", cb, r->step_time_s);
	}
}

/* @run: "A:" or "B:" before each mark's letter in an overlay, or "" */
static void marks(FILE *f, const struct bf_plot_curve *c, const char *run,
		  const struct axis *x, bool by_bytes, double xscale,
		  double top)
{
	static const char letter[BF_MARK_COUNT] = { 'R', 'T', 'E', 'L' };
	size_t i;

	for (i = 0; i < c->nmark; i++) {
		const struct bf_plot_mark *m = &c->mark[i];
		double v = by_bytes ? bytes_at(c, m->t) : m->t, px;

		if (m->kind >= BF_MARK_COUNT)
			continue;
		px = map(x, v / xscale);
		fprintf(f, "<line class='mark-%s' x1='%.1f' y1='%.0f' x2='%.1f' y2='%.0f' stroke='%s' stroke-width='1.5' stroke-dasharray='2,3'/>\n",
			mark_names[m->kind], px, top, px, top + PH,
			mark_colour[m->kind]);
		fprintf(f, "<text x='%.1f' y='%.0f' font-size='11' text-anchor='middle' fill='%s'>%s%c</text>\n",
			px, top - 3, mark_colour[m->kind], run,
			letter[m->kind]);
	}
}

/* the idle gaps of the experiments, shaded across the time panel */
static void gaps(FILE *f, const struct bf_plot_curve *c,
		 const struct axis *x, double xscale, double top)
{
	size_t i;

	for (i = 0; i < c->ngap; i++) {
		const struct bf_plot_gap *g = &c->gap[i];
		double a = map(x, g->t / xscale);
		double b = map(x, (g->t + g->secs) / xscale);

		if (!(g->secs > 0))
			continue;
		fprintf(f, "<rect class='idle-gap' x='%.1f' y='%.0f' width='%.1f' height='%d' fill='#90caf9' fill-opacity='0.35'/>\n",
			a, top, fmax(b - a, 1), PH);
		fprintf(f, "<text x='%.1f' y='%.0f' font-size='11' text-anchor='middle' fill='#1565c0'>idle</text>\n",
			(a + b) / 2, top + 12);
	}
}

static void panel(FILE *f, const struct bf_plot *p, const struct frame *fr,
		  bool by_bytes, double top)
{
	struct axis x, y = { 0, fr->ymax, top + PH, top };
	double xscale, step, v;
	char lb[64], name[80];
	size_t k;

	if (by_bytes) {
		xscale = fr->bscale;
		snprintf(name, sizeof(name), "%s (%s)", fr->moved, fr->bunit);
		x = (struct axis){ 0, fr->bmax / xscale, ML, W - MR };
	} else {
		xscale = fr->tscale;
		snprintf(name, sizeof(name), "time (%s)", fr->tunit);
		x = (struct axis){ fr->t0 / xscale, fr->t1 / xscale, ML,
				   W - MR };
	}
	if (!(x.hi > x.lo))
		x.hi = x.lo + 1;

	/* frame, grid and ticks */
	fprintf(f, "<rect x='%d' y='%.0f' width='%d' height='%d' fill='#fbfbfb' stroke='#888'/>\n",
		ML, top, W - ML - MR, PH);
	step = nice_step(fr->ymax, 6);
	for (v = 0; v <= fr->ymax + step * 1e-6; v += step) {
		double py = map(&y, v);

		tick_label(lb, sizeof(lb), v, step);
		fprintf(f, "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#e2e2e2'/>\n",
			ML, py, W - MR, py);
		fprintf(f, "<text x='%d' y='%.1f' text-anchor='end' font-size='13'>%s</text>\n",
			ML - 6, py + 4, lb);
	}
	step = nice_step(x.hi - x.lo, 10);
	for (v = ceil(x.lo / step) * step; v <= x.hi + step * 1e-6; v += step) {
		double px = map(&x, v);

		tick_label(lb, sizeof(lb), v, step);
		fprintf(f, "<line x1='%.1f' y1='%.0f' x2='%.1f' y2='%.0f' stroke='#e2e2e2'/>\n",
			px, top, px, top + PH);
		fprintf(f, "<text x='%.1f' y='%.0f' text-anchor='middle' font-size='13'>%s</text>\n",
			px, top + PH + 17, lb);
	}
	fprintf(f, "<text x='%d' y='%.0f' text-anchor='middle' font-size='14'>%s</text>\n",
		(ML + W - MR) / 2, top + PH + 36, name);
	fprintf(f, "<text x='20' y='%.0f' text-anchor='middle' font-size='14' transform='rotate(-90 20 %.0f)'>rate (MB/s)</text>\n",
		top + PH / 2.0, top + PH / 2.0);

	for (k = 0; !by_bytes && k < p->n; k++)
		gaps(f, &p->c[k], &x, xscale, top);
	for (k = 0; k < p->n; k++)
		curve(f, &p->c[k], k, p->n > 1, &x, &y, by_bytes, xscale,
		      fr->ymax);
	for (k = 0; k < p->n; k++)
		levels(f, &p->c[k], k, p->n == 1, &x, &y, by_bytes, xscale,
		       top);
	for (k = 0; k < p->n; k++)
		marks(f, &p->c[k], p->n > 1 ? (k ? "B:" : "A:") : "", &x,
		      by_bytes, xscale, top);
}

/* the rate axis: the peak plateau or the 99.5th percentile, +15 % */
static double rate_max(const struct bf_plot_curve *c)
{
	double ymax = 0, *tmp = malloc(c->n * sizeof(double));
	size_t i;

	if (tmp) {
		for (i = 0; i < c->n; i++)
			tmp[i] = c->s[i].mbps;
		ymax = bf_select(tmp, c->n, c->n - 1 - c->n / 200);
		free(tmp);
	}
	return fmax(ymax, c->r->peak_mbps) * 1.15;
}

/* a curve's op from its report ("" unknown: taken as a write) */
static const char *op_of(const struct bf_plot_curve *c)
{
	return c->r->run.op;
}

static const char *moved_word(const char *op)
{
	return !strcmp(op, "read") ? "read" : !strcmp(op, "discard") ||
	       !strcmp(op, "trim") ? "discarded" : "written";
}

static void make_frame(const struct bf_plot *p, struct frame *fr)
{
	double span;
	size_t k;

	memset(fr, 0, sizeof(*fr));
	fr->t0 = INFINITY;
	fr->t1 = -INFINITY;
	for (k = 0; k < p->n; k++) {
		const struct bf_plot_curve *c = &p->c[k];

		fr->bmax = fmax(fr->bmax, fmax(c->r->total_bytes,
					       c->s[c->n - 1].bytes));
		fr->t0 = fmin(fr->t0, c->s[0].t - c->s[0].dt);
		fr->t1 = fmax(fr->t1, c->s[c->n - 1].t);
		for (size_t i = 0; i < c->ngap; i++)
			fr->t1 = fmax(fr->t1, c->gap[i].t + c->gap[i].secs);
		fr->ymax = fmax(fr->ymax, rate_max(c));
	}
	/* the byte axis says what the runs did: a read run read its bytes */
	if (p->n == 1 || !strcmp(op_of(&p->c[0]), op_of(&p->c[1])))
		snprintf(fr->moved, sizeof(fr->moved), "bytes %s",
			 moved_word(op_of(&p->c[0])));
	else
		snprintf(fr->moved, sizeof(fr->moved), "bytes %s (A), %s (B)",
			 moved_word(op_of(&p->c[0])),
			 moved_word(op_of(&p->c[1])));
	if (!(fr->bmax > 0))
		fr->bmax = 1;
	if (!(fr->ymax > 0))
		fr->ymax = 1;
	if (fr->bmax >= 1e12) {
		fr->bscale = 1e12;
		fr->bunit = "TB";
	} else if (fr->bmax >= 1e9) {
		fr->bscale = 1e9;
		fr->bunit = "GB";
	} else {
		fr->bscale = 1e6;
		fr->bunit = "MB";
	}
	span = fr->t1 - fr->t0;
	if (span > 12 * 3600) {
		fr->tscale = 3600;
		fr->tunit = "h";
	} else if (span > 900) {
		fr->tscale = 60;
		fr->tunit = "min";
	} else {
		fr->tscale = 1;
		fr->tunit = "s";
	}
}

/* "peak 2,552 MB/s, floor 128 MB/s, mean 1,415 MB/s[, ...]" */
static void numbers(char *buf, size_t len, const struct bf_report *r)
{
	char pk[32], fl[32], mn[32], cyc[48] = "";

	bf_fmt_mbps(pk, sizeof(pk), r->peak_mbps);
	bf_fmt_mbps(fl, sizeof(fl), r->floor_mbps);
	bf_fmt_mbps(mn, sizeof(mn), r->mean_mbps);
	if (r->cycle_s > 0)
		snprintf(cyc, sizeof(cyc), ", cycle every %.1f s", r->cycle_s);
	snprintf(buf, len, "peak %s MB/s, floor %s MB/s, mean %s MB/s%s%s", pk,
		 fl, mn, !r->recovered ? "" : strcmp(r->run.op, "read") ?
		 ", rate recovered mid-write" : ", rate recovered mid-read",
		 cyc);
}

/* one item of the legend under the chart */
struct legend {
	const char *cls, *colour, *text;
};

static const char *const mark_class[BF_MARK_COUNT] = {
	"mark-reset", "mark-timeout", "mark-error", "mark-link",
};

int bf_plot_write(FILE *f, const struct bf_plot *p)
{
	struct legend leg[BF_MARK_COUNT + 2];
	size_t nleg = 0, rows = 0;
	double lx, ly;
	bool present[BF_MARK_COUNT] = { false };
	char line[320], num[256];
	double y = 32, top1, top2, h;
	struct frame fr;
	const char *c;
	size_t k, i, ncap = 0;

	if (!p->n || p->n > 2)
		return -EINVAL;
	for (k = 0; k < p->n; k++)
		if (!p->c[k].n || !p->c[k].s || !p->c[k].r)
			return -EINVAL;
	make_frame(p, &fr);
	for (c = p->caption; c && *c; c = strchr(c, '\n') ? strchr(c, '\n') + 1 : "")
		ncap++;
	for (k = 0; k < p->n; k++)
		for (i = 0; i < p->c[k].nmark; i++)
			if (p->c[k].mark[i].kind < BF_MARK_COUNT)
				present[p->c[k].mark[i].kind] = true;
	/* what the marks mean, for the kinds there are */
	if (p->n > 1 && (present[0] || present[1] || present[2] || present[3]))
		leg[nleg++] = (struct legend){ "mark-runs", "#333",
					       "A:, B: the run's mark" };
	for (k = 0; k < BF_MARK_COUNT; k++)
		if (present[k])
			leg[nleg++] = (struct legend){ mark_class[k],
						       mark_colour[k],
						       mark_words[k] };
	for (k = 0; k < p->n && !p->c[k].ngap; k++)
		;
	if (k < p->n)
		leg[nleg++] = (struct legend){ "idle-legend", "#1565c0",
			"shaded: idle gaps of the experiments (diagnose)" };
	for (i = 0, lx = ML; i < nleg; i++) {
		double wd = 7.2 * strlen(leg[i].text) + 30;

		if (lx > ML && lx + wd > W - MR) {
			lx = ML;
			rows++;
		}
		lx += wd;
	}
	top1 = 32 + 20 * ncap + 22 * p->n + 30;
	top2 = top1 + PH + GAP;
	h = top2 + PH + 50 + 24 + 18 * rows;
	lx = ML;
	ly = h - 12 - 18 * rows;

	fprintf(f, "<?xml version='1.0' encoding='UTF-8'?>\n<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%.0f' viewBox='0 0 %d %.0f' font-family='DejaVu Sans, Arial, sans-serif'>\n",
		W, h, W, h);
	fprintf(f, "<rect width='100%%' height='100%%' fill='white'/>\n");
	fprintf(f, "<text x='%d' y='%.0f' font-size='22' font-weight='bold'>", ML, y);
	if (p->n == 1) {
		esc(f, bf_class_name(p->c[0].r->class));
		if (p->title)
			fputs(": ", f);
	}
	if (p->title)
		esc(f, p->title);
	fputs("</text>\n", f);
	for (c = p->caption; c && *c;) {
		const char *e = strchrnul(c, '\n');

		/* SVG collapses blanks: an indented line is placed further in */
		size_t ind = strspn(c, " ");

		y += 20;
		c += ind;
		fprintf(f, "<text x='%zu' y='%.0f' font-size='14' fill='#333'>",
			ML + 8 * ind, y);
		snprintf(line, sizeof(line), "%.*s", (int)(e - c), c);
		esc(f, line);
		fputs("</text>\n", f);
		c = *e ? e + 1 : e;
	}
	for (k = 0; k < p->n; k++) {
		y += 22;
		numbers(num, sizeof(num), p->c[k].r);
		if (p->n == 1) {
			snprintf(line, sizeof(line), "%s", num);
		} else {
			fprintf(f, "<rect x='%d' y='%.0f' width='18' height='4' fill='%s'/>\n",
				ML, y - 6, level_colour[k]);
			snprintf(line, sizeof(line), "%s: %s, %s",
				 p->c[k].label ? p->c[k].label :
				 k ? "B" : "A", bf_class_name(p->c[k].r->class),
				 num);
		}
		fprintf(f, "<text x='%d' y='%.0f' font-size='15' fill='#333'>",
			p->n == 1 ? ML : ML + 26, y);
		esc(f, line);
		fputs("</text>\n", f);
	}

	panel(f, p, &fr, true, top1);
	panel(f, p, &fr, false, top2);

	for (i = 0; i < nleg; i++) {
		/* left to right, a new row where the next would not fit */
		double wd = 7.2 * strlen(leg[i].text) + 30;

		if (lx > ML && lx + wd > W - MR) {
			lx = ML;
			ly += 18;
		}
		fprintf(f, "<text class='%s' x='%.0f' y='%.0f' font-size='13' fill='%s'>%s</text>\n",
			leg[i].cls, lx, ly, leg[i].colour, leg[i].text);
		lx += wd;
	}
	fputs("</svg>\n", f);
	return ferror(f) ? -EIO : 0;
}

int bf_plot_svg(FILE *f, const struct bf_sample *s, size_t n,
		const struct bf_report *r, const char *title)
{
	struct bf_plot p = { .title = title, .n = 1 };

	p.c[0] = (struct bf_plot_curve){ s, n, r, NULL, NULL, 0, NULL, 0 };
	return bf_plot_write(f, &p);
}
