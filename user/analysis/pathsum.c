// SPDX-License-Identifier: GPL-2.0
/*
 * The path figures of a blkfloor trace, summed over the run, and their
 * comparison between two runs (see pathsum.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pathsum.h"

static const char *const pev_names[BF_PEV_COUNT] = {
	"reset", "abort", "timeout", "disconnect", "offline", "io-error",
	"read-only", "link", "host", "bind",
};

static const char *const phdr_names[BF_PH_COUNT] = {
	"driver", "usb_speed", "max_sectors_kb", "queue_depth", "scheduler",
	"nomerges",
};

const char *bf_pev_name(enum bf_pev k)
{
	return k < BF_PEV_COUNT ? pev_names[k] : "?";
}

const char *bf_phdr_name(enum bf_phdr k)
{
	return k < BF_PH_COUNT ? phdr_names[k] : "?";
}

/* running sums for a bf_pstat */
struct acc { double s, ss, max; size_t n; };

static void acc_add(struct acc *a, double v)
{
	a->s += v;
	a->ss += v * v;
	a->max = a->n ? fmax(a->max, v) : v;
	a->n++;
}

static struct bf_pstat acc_done(const struct acc *a)
{
	struct bf_pstat p = { 0, 0, a->max, a->n };

	if (a->n) {
		p.mean = a->s / a->n;
		if (a->n > 1)
			p.sd = sqrt(fmax(0, (a->ss - a->s * p.mean) /
					    (a->n - 1)));
	}
	return p;
}

enum { C_REQ, C_RPB, C_KIB, C_UTIL, C_INFL, C_ERR, C_TMO, C_IOS, C_N };
static const char *const col_names[C_N] = {
	"requests", "req_per_bio", "req_kib", "util", "in_flight", "scsi_err",
	"scsi_tmo", "ios",
};

#define MAXF BF_CSV_MAXF

int bf_csv_split(char *line, char **fld)
{
	int n = 0;
	char *p = line;

	for (;;) {
		fld[n++] = p;
		p = strchr(p, ',');
		if (!p || n == BF_CSV_MAXF)
			break;
		*p++ = '\0';
	}
	return n;
}

/* "" (not measured), or a finite non-negative decimal number */
static int num(const char *s, double *v, bool *have)
{
	char *end;

	*have = false;
	if (!*s)
		return 0;
	errno = 0;
	*v = strtod(s, &end);
	if (end == s || *end || !isfinite(*v) || *v < 0 || errno)
		return -EINVAL;
	*have = true;
	return 0;
}

static void header_item(const char *line, struct bf_pathsum *p)
{
	size_t k, l;

	for (k = 0; k < BF_PH_COUNT; k++) {
		l = strlen(phdr_names[k]);
		if (!strncmp(line + 2, phdr_names[k], l) && line[2 + l] == ':') {
			const char *v = line + 3 + l;

			while (*v == ' ')
				v++;
			snprintf(p->hdr[k], sizeof(p->hdr[k]), "%s", v);
			return;
		}
	}
}

/* "# event: T KIND MESSAGE" */
static void event(const char *line, struct bf_pathsum *p)
{
	char kind[32];
	double t;
	size_t k;

	if (sscanf(line, "# event: %lf %31s", &t, kind) != 2)
		return;
	for (k = 0; k < BF_PEV_COUNT; k++)
		if (!strcmp(kind, pev_names[k]))
			p->events[k]++;
}

int bf_pathsum_read(FILE *f, struct bf_pathsum *p, char *err, size_t errlen)
{
	struct acc a[C_N] = { 0 };
	double sreq = 0, sios = 0, skib = 0;	/* over rows with figures */
	int col[C_N], i, n;
	char *line = NULL, *fld[MAXF];
	size_t cap = 0;
	long no = 0;
	bool header = false;
	int ret = 0;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < C_N; i++)
		col[i] = -1;
	while (getline(&line, &cap, f) >= 0) {
		line[strcspn(line, "\r\n")] = '\0';
		no++;
		if (line[0] == '#') {
			if (!strncmp(line, "# event:", 8))
				event(line, p);
			else if (line[1] == ' ')
				header_item(line, p);
			continue;
		}
		if (!line[0])
			continue;
		n = bf_csv_split(line, fld);
		if (!header) {
			for (i = 0; i < n; i++)
				for (int c = 0; c < C_N; c++)
					if (!strcmp(fld[i], col_names[c]))
						col[c] = i;
			header = true;
			continue;
		}
		double row[C_N];
		bool got[C_N] = { false };

		for (int c = 0; c < C_N; c++) {
			double v = 0;
			bool have;

			if (col[c] < 0 || col[c] >= n)
				continue;
			if (num(fld[col[c]], &v, &have)) {
				snprintf(err, errlen, "line %ld: %s '%.40s' is not a number",
					 no, col_names[c], fld[col[c]]);
				ret = -EINVAL;
				goto out;
			}
			if (have && c != C_IOS)
				acc_add(&a[c], v);
			row[c] = v;
			got[c] = have;
		}
		if (got[C_RPB] && got[C_REQ] && got[C_IOS]) {
			sreq += row[C_REQ];
			sios += row[C_IOS];
			if (got[C_KIB])
				skib += row[C_KIB] * row[C_REQ];
		}
	}
	p->have = a[C_REQ].n > 0;
	p->requests = llround(a[C_REQ].s);
	p->req_per_bio = acc_done(&a[C_RPB]);
	p->req_kib = acc_done(&a[C_KIB]);
	/*
	 * Over the run the means are ratios of sums: one interval's figure
	 * is noisy (a bio ends with the last of its requests, which can fall
	 * in the next interval), but the sums are exact. The interval
	 * figures' spread stays the noise the comparison judges with.
	 */
	if (sios > 0)
		p->req_per_bio.mean = sreq / sios;
	if (sreq > 0)
		p->req_kib.mean = skib / sreq;
	p->util = acc_done(&a[C_UTIL]);
	p->in_flight = acc_done(&a[C_INFL]);
	p->have_scsi = a[C_ERR].n > 0;
	p->scsi_err = llround(a[C_ERR].s);
	p->scsi_tmo = llround(a[C_TMO].s);
out:
	free(line);
	return ret;
}

/* ---- comparison ----------------------------------------------------------- */

static struct bf_pdiff *next(struct bf_pdiff *d, size_t *n, const char *what)
{
	struct bf_pdiff *x = &d[(*n)++];

	memset(x, 0, sizeof(*x));
	x->what = what;
	return x;
}

/* B's mean worse when @higher_worse and larger (or smaller), beyond noise */
static void ratio(struct bf_pdiff *d, size_t *n, const char *what,
		  const struct bf_pstat *a, const struct bf_pstat *b,
		  int worse_dir)
{
	struct bf_pdiff *x;
	double se, t, rel;

	if (!a->n || !b->n)
		return;
	x = next(d, n, what);
	snprintf(x->a, sizeof(x->a), "%.3f", a->mean);
	snprintf(x->b, sizeof(x->b), "%.3f", b->mean);
	se = sqrt(a->sd * a->sd / a->n + b->sd * b->sd / b->n);
	t = se > 0 ? (b->mean - a->mean) / se :
	    a->mean == b->mean ? 0 : INFINITY;
	rel = fabs(b->mean - a->mean) / fmax(fmax(a->mean, b->mean), 1e-9);
	x->differs = fabs(t) > 3 && rel >= 0.05;
	if (x->differs) {
		x->worse = worse_dir * (b->mean - a->mean) > 0;
		snprintf(x->why, sizeof(x->why), "%+.1f %% (t = %.1f)",
			 100 * (b->mean / fmax(a->mean, 1e-9) - 1), t);
	}
}

static void counter(struct bf_pdiff *d, size_t *n, const char *what,
		    unsigned long long a, unsigned long long b, bool more_worse)
{
	struct bf_pdiff *x = next(d, n, what);

	snprintf(x->a, sizeof(x->a), "%llu", a);
	snprintf(x->b, sizeof(x->b), "%llu", b);
	x->differs = a != b;
	x->worse = more_worse && b > a;
	if (x->differs)
		snprintf(x->why, sizeof(x->why), "%+lld", (long long)(b - a));
}

static void hdr(struct bf_pdiff *d, size_t *n, enum bf_phdr k,
		const struct bf_pathsum *A, const struct bf_pathsum *B)
{
	const char *a = A->hdr[k], *b = B->hdr[k];
	struct bf_pdiff *x;

	if (!a[0] && !b[0])
		return;
	x = next(d, n, phdr_names[k]);
	snprintf(x->a, sizeof(x->a), "%s", a[0] ? a : "-");
	snprintf(x->b, sizeof(x->b), "%s", b[0] ? b : "-");
	x->differs = strcmp(a, b) != 0;
	if (!x->differs)
		return;
	if (k == BF_PH_DRIVER && !strcmp(a, "uas") && !strcmp(b, "usb-storage")) {
		x->worse = true;
		snprintf(x->why, sizeof(x->why), "fell back from UAS to usb-storage");
	} else if (k == BF_PH_USB_SPEED && atof(b) < atof(a) && a[0] && b[0]) {
		x->worse = true;
		snprintf(x->why, sizeof(x->why), "slower link");
	} else {
		snprintf(x->why, sizeof(x->why), "changed");
	}
}

size_t bf_pathsum_compare(const struct bf_pathsum *A,
			  const struct bf_pathsum *B, struct bf_pdiff *d)
{
	size_t n = 0, k;

	for (k = 0; k < BF_PH_COUNT; k++)
		hdr(d, &n, k, A, B);
	if (A->have && B->have) {
		ratio(d, &n, "requests/bio", &A->req_per_bio, &B->req_per_bio, 1);
		ratio(d, &n, "request KiB", &A->req_kib, &B->req_kib, -1);
		ratio(d, &n, "utilisation", &A->util, &B->util, 0);
		if (A->in_flight.n && B->in_flight.n) {
			struct bf_pdiff *x = next(d, &n, "in flight (max)");

			snprintf(x->a, sizeof(x->a), "%.0f", A->in_flight.max);
			snprintf(x->b, sizeof(x->b), "%.0f", B->in_flight.max);
			x->differs = A->in_flight.max != B->in_flight.max;
			x->worse = false;	/* depends on the load too */
			if (x->differs)
				snprintf(x->why, sizeof(x->why), "%+.0f",
					 B->in_flight.max - A->in_flight.max);
		}
	}
	if (A->have_scsi && B->have_scsi) {
		counter(d, &n, "scsi errors", A->scsi_err, B->scsi_err, true);
		counter(d, &n, "scsi timeouts", A->scsi_tmo, B->scsi_tmo, true);
	}
	for (k = 0; k < BF_PEV_COUNT; k++) {
		if (!A->events[k] && !B->events[k])
			continue;
		counter(d, &n, pev_names[k], A->events[k], B->events[k],
			k <= BF_PEV_HOST);
	}
	return n;
}
