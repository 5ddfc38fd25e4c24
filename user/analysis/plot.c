// SPDX-License-Identifier: GPL-2.0
/*
 * SVG chart of a throughput curve, no dependencies. Two panels share the
 * rate axis: rate against bytes written (what decides a copy's duration)
 * and rate against time. Samples are a thin grey line (min/max per pixel
 * column when there are more samples than pixels), plateaus thick blue
 * bars labelled with their level (an erratic curve, which has none, gets
 * dashed lines at its two levels), the cache step a dashed red line.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"

#define W	1000
#define H	760
#define ML	80	/* left margin: rate tick labels */
#define MR	30
#define PH	260	/* panel height */
#define TOP1	90
#define TOP2	(TOP1 + PH + 90)

struct axis {
	double lo, hi;	/* data range */
	double px0, px1;	/* pixel range */
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
		else
			fputc(*s, f);
	}
}

static void tick_label(char *b, size_t len, double v, double step)
{
	if (step >= 1)
		snprintf(b, len, "%.0f", v);
	else if (step >= 0.1)
		snprintf(b, len, "%.1f", v);
	else
		snprintf(b, len, "%.2f", v);
}

static void panel(FILE *f, const struct bf_sample *s, size_t n,
		  const struct bf_report *r, bool by_bytes, double top,
		  double ymax)
{
	struct axis x, y = { 0, ymax, top + PH, top };
	double xscale, step, v, t0 = s[0].t - s[0].dt;
	const char *xunit;
	char lb[64];
	size_t i;

	if (by_bytes) {
		double tot = r->total_bytes > 0 ? r->total_bytes : 1;

		xscale = tot >= 1e9 ? 1e9 : 1e6;
		xunit = tot >= 1e9 ? "bytes written (GB)" : "bytes written (MB)";
		x = (struct axis){ 0, tot / xscale, ML, W - MR };
	} else {
		xscale = 1;
		xunit = "time (s)";
		x = (struct axis){ t0, s[n - 1].t, ML, W - MR };
	}
	if (!(x.hi > x.lo))
		x.hi = x.lo + 1;

	/* frame, grid and ticks */
	fprintf(f, "<rect x='%d' y='%.0f' width='%d' height='%d' fill='#fbfbfb' stroke='#888'/>\n",
		ML, top, W - ML - MR, PH);
	step = nice_step(ymax, 6);
	for (v = 0; v <= ymax + 1e-9; v += step) {
		double py = map(&y, v);

		tick_label(lb, sizeof(lb), v, step);
		fprintf(f, "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#e2e2e2'/>\n",
			ML, py, W - MR, py);
		fprintf(f, "<text x='%d' y='%.1f' text-anchor='end' font-size='13'>%s</text>\n",
			ML - 6, py + 4, lb);
	}
	step = nice_step(x.hi - x.lo, 10);
	for (v = ceil(x.lo / step) * step; v <= x.hi + 1e-9; v += step) {
		double px = map(&x, v);

		tick_label(lb, sizeof(lb), v, step);
		fprintf(f, "<line x1='%.1f' y1='%.0f' x2='%.1f' y2='%.0f' stroke='#e2e2e2'/>\n",
			px, top, px, top + PH);
		fprintf(f, "<text x='%.1f' y='%.0f' text-anchor='middle' font-size='13'>%s</text>\n",
			px, top + PH + 17, lb);
	}
	fprintf(f, "<text x='%d' y='%.0f' text-anchor='middle' font-size='14'>%s</text>\n",
		(ML + W - MR) / 2, top + PH + 36, xunit);
	fprintf(f, "<text x='20' y='%.0f' text-anchor='middle' font-size='14' transform='rotate(-90 20 %.0f)'>rate (MB/s)</text>\n",
		top + PH / 2.0, top + PH / 2.0);

	/* samples: a step per sample, or min/max per pixel column */
	fprintf(f, "<polyline fill='none' stroke='#9a9a9a' stroke-width='1' points='");
	if (n <= 2 * (size_t)(W - ML - MR)) {
		/* each sample is a rate held over its interval: steps */
		for (i = 0; i < n; i++) {
			double a, b, py = map(&y, fmin(s[i].mbps, ymax));

			if (by_bytes) {
				a = i ? s[i - 1].bytes :
				    fmax(0, s[0].bytes - s[0].mbps * 1e6 * s[0].dt);
				a /= xscale;
				b = s[i].bytes / xscale;
			} else {
				a = s[i].t - s[i].dt;
				b = s[i].t;
			}
			fprintf(f, "%.1f,%.1f %.1f,%.1f ", map(&x, a), py,
				map(&x, b), py);
		}
	} else {
		int col = -1;
		double lo = 0, hi = 0;

		for (i = 0; i <= n; i++) {
			double xv = i < n ? (by_bytes ? s[i].bytes / xscale :
					     s[i].t) : 0;
			int c = i < n ? (int)map(&x, xv) : -2;

			if (c != col && col >= 0)
				fprintf(f, "%d,%.1f %d,%.1f ", col,
					map(&y, fmin(lo, ymax)), col,
					map(&y, fmin(hi, ymax)));
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

	/* an erratic curve has no plateaus: its two levels instead */
	if (r->erratic) {
		double lv[2] = { r->peak_mbps, r->floor_mbps };
		static const char *const nm[2] = { "peak", "floor" };
		int k;

		for (k = 0; k < 2; k++) {
			double py = map(&y, lv[k]);
			char rate[32];

			bf_fmt_mbps(rate, sizeof(rate), lv[k]);
			fprintf(f, "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#1f5fbf' stroke-width='2.5' stroke-dasharray='10,5'/>\n",
				ML, py, W - MR, py);
			fprintf(f, "<text x='%d' y='%.1f' text-anchor='end' font-size='14' font-weight='bold' fill='#1f5fbf' stroke='#fbfbfb' stroke-width='4' paint-order='stroke'>%s %s MB/s</text>\n",
				W - MR - 8, k ? py - 8 : py + 20, nm[k], rate);
		}
		return;
	}

	/* plateaus */
	for (i = 0; i < r->nseg; i++) {
		const struct bf_segment *g = &r->seg[i];
		double a, b, py = map(&y, g->level_mbps);
		double b0 = g->first ? s[g->first - 1].bytes :
			    s[0].bytes - s[0].mbps * 1e6 * s[0].dt;
		char rate[32];

		if (by_bytes) {
			a = map(&x, fmax(0, b0) / xscale);
			b = map(&x, s[g->last].bytes / xscale);
		} else {
			a = map(&x, g->start_s);
			b = map(&x, g->end_s);
		}
		fprintf(f, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#1f5fbf' stroke-width='4'/>\n",
			a, py, b, py);
		if (b - a < 70)
			continue;	/* too narrow to label legibly */
		bf_fmt_mbps(rate, sizeof(rate), g->level_mbps);
		fprintf(f, "<text x='%.1f' y='%.1f' text-anchor='middle' font-size='14' font-weight='bold' fill='#1f5fbf' stroke='#fbfbfb' stroke-width='4' paint-order='stroke'>%s MB/s</text>\n",
			fmin(fmax((a + b) / 2, ML + 60), W - MR - 60),
			py - 9 < top + 16 ? py + 20 : py - 9, rate);
	}

	/* the step */
	if (r->has_step) {
		double px = by_bytes ? map(&x, r->cache_bytes / xscale) :
				       map(&x, r->step_time_s);
		char cb[32];

		bf_fmt_si_bytes(cb, sizeof(cb), r->cache_bytes);
		fprintf(f, "<line x1='%.1f' y1='%.0f' x2='%.1f' y2='%.0f' stroke='#c62828' stroke-width='2' stroke-dasharray='6,4'/>\n",
			px, top, px, top + PH);
		fprintf(f, "<text x='%.1f' y='%.0f' font-size='14' fill='#c62828' text-anchor='%s'>step: %s at %.1f s</text>\n",
			px > W / 2 ? px - 6 : px + 6, top + PH / 2.0,
			px > W / 2 ? "end" : "start", cb, r->step_time_s);
	}
}

int bf_plot_svg(FILE *f, const struct bf_sample *s, size_t n,
		const struct bf_report *r, const char *title)
{
	double ymax = 0, *tmp;
	char pk[32], fl[32], mn[32], cyc[48] = "", line[256];
	size_t i;

	if (!n)
		return -EINVAL;
	/* the rate axis: the peak plateau or the 99.5th percentile, +15 % */
	tmp = malloc(n * sizeof(double));
	if (tmp) {
		for (i = 0; i < n; i++)
			tmp[i] = s[i].mbps;
		ymax = bf_select(tmp, n, n - 1 - n / 200);
		free(tmp);
	}
	ymax = fmax(ymax, r->peak_mbps) * 1.15;
	if (!(ymax > 0))
		ymax = 1;

	fprintf(f, "<?xml version='1.0' encoding='UTF-8'?>\n<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' viewBox='0 0 %d %d' font-family='DejaVu Sans, Arial, sans-serif'>\n",
		W, H, W, H);
	fprintf(f, "<rect width='100%%' height='100%%' fill='white'/>\n");
	bf_fmt_mbps(pk, sizeof(pk), r->peak_mbps);
	bf_fmt_mbps(fl, sizeof(fl), r->floor_mbps);
	bf_fmt_mbps(mn, sizeof(mn), r->mean_mbps);
	fprintf(f, "<text x='%d' y='32' font-size='22' font-weight='bold'>", ML);
	esc(f, bf_class_name(r->class));
	if (title) {
		fputs(": ", f);
		esc(f, title);
	}
	fputs("</text>\n", f);
	if (r->cycle_s > 0)
		snprintf(cyc, sizeof(cyc), ", cycle every %.1f s", r->cycle_s);
	snprintf(line, sizeof(line),
		 "peak %s MB/s, floor %s MB/s, mean %s MB/s%s%s", pk, fl, mn,
		 r->recovered ? ", rate recovered mid-write" : "", cyc);
	fprintf(f, "<text x='%d' y='58' font-size='15' fill='#333'>", ML);
	esc(f, line);
	fputs("</text>\n", f);

	panel(f, s, n, r, true, TOP1, ymax);
	panel(f, s, n, r, false, TOP2, ymax);
	fputs("</svg>\n", f);
	return ferror(f) ? -EIO : 0;
}
