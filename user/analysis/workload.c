// SPDX-License-Identifier: GPL-2.0
/*
 * The workload weighed into a verdict: see workload.h.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence.h"
#include "fmt.h"
#include "stats.h"
#include "workload.h"

/* the level it decays to is at least this much lower than the start */
#define BF_GC_DROP		1.2
/* ... its sample-to-sample noise this many times the start's */
#define BF_GC_NOISIER		1.5
/* ... and at least this much (a floor quieter than 3 % is not noisy) */
#define BF_GC_NOISE_MIN		0.03
/* capacities written before the last step: GC if at least ... */
#define BF_GC_LATE		0.5
/* ... a cache, not GC, under this */
#define BF_GC_EARLY		0.25
/* the confidence of a shape-only GC transition */
#define BF_GC_CONF		0.6

static const struct {
	const char *name;
	bool write, random;
} kinds[] = {
	{ "randwrite", true, true }, { "write", true, false },
	{ "randread", false, true }, { "read", false, false },
	{ "randtrim", false, true }, { "trim", false, false },
	{ "randrw", true, true }, { "rw", true, false },
	{ "readwrite", true, false },
};

static int kind(const char *w, size_t len, struct bf_workload *wl)
{
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (strlen(kinds[i].name) != len ||
		    strncmp(kinds[i].name, w, len))
			continue;
		wl->known = true;
		wl->write = kinds[i].write;
		wl->random = kinds[i].random;
		return 0;
	}
	return -EINVAL;
}

/* The word after "key" at @p, past blanks, '=', ':' and quotes. */
static int after_key(const char *p, size_t klen, struct bf_workload *wl)
{
	const char *v = p + klen;
	size_t n;

	while (*v == ' ' || *v == '\t' || *v == '"')
		v++;
	if (*v != '=' && *v != ':')
		return -EINVAL;
	v++;
	while (*v == ' ' || *v == '\t' || *v == '"')
		v++;
	for (n = 0; isalpha((unsigned char)v[n]); n++)
		;
	return kind(v, n, wl);
}

int bf_workload_parse(const char *s, struct bf_workload *wl)
{
	static const char *const keys[] = { "readwrite", "rw" };
	const char *p;
	size_t i;

	memset(wl, 0, sizeof(*wl));
	if (!kind(s, strlen(s), wl))
		return 0;
	/* a fio job file ("rw=randwrite") or fio's JSON ("rw" : "...") */
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		size_t k = strlen(keys[i]);

		for (p = strstr(s, keys[i]); p; p = strstr(p + 1, keys[i])) {
			bool start = p == s || p[-1] == '\n' || p[-1] == '"' ||
				     p[-1] == ' ' || p[-1] == '\t';

			if (start && !after_key(p, k, wl))
				return 0;
		}
	}
	memset(wl, 0, sizeof(*wl));
	return -EINVAL;
}

/* Robust relative noise of the samples ending within [@from, @to] s. */
static double noise(const struct bf_sample *s, size_t n, double from,
		    double to)
{
	double *d = malloc(n * sizeof(*d)), prev = NAN, m = NAN;
	size_t i, k = 0;

	if (!d)
		return NAN;
	for (i = 0; i < n; i++) {
		double y;

		if (s[i].t < from || s[i].t > to || !(s[i].mbps > 0))
			continue;
		y = log(s[i].mbps);
		if (isfinite(prev))
			d[k++] = y - prev;
		prev = y;
	}
	if (k >= 4) {
		for (i = 0; i < k; i++)
			d[i] = fabs(d[i] - bf_median(d, k));
		m = 1.4826 * bf_median(d, k) / sqrt(2);
	}
	free(d);
	return m;
}

void bf_report_workload(struct bf_report *r, const struct bf_sample *s,
			size_t n, const struct bf_workload *wl)
{
	const struct bf_segment *first, *last;
	char pk[16], fl[16], mn[16], tb[16], at[16], why[64];
	double n0, n1, when, caps = 0;
	bool late = false, early = false, noisier, decay;

	if (!wl || !wl->known || !wl->write || !wl->random || !r->nseg)
		return;
	if (r->class != BF_CLASS_CACHE_EXHAUSTION &&
	    r->class != BF_CLASS_THERMAL_THROTTLING &&
	    r->class != BF_CLASS_STEADY)
		return;
	/* a rate that climbs back, a temperature that said heat, a link's
	 * events: not a transition that follows the bytes */
	if (r->recovered || r->temp.evidence > 0 || r->link.n ||
	    !(r->peak_mbps >= BF_GC_DROP * r->floor_mbps) ||
	    (r->class == BF_CLASS_STEADY && !(r->trend_rel <= -0.15)))
		return;
	first = &r->seg[0];
	last = &r->seg[r->nseg - 1];
	/* where the decay ended: the last step, else the last level */
	when = r->nsteps ? r->steps[r->nsteps - 1].bytes : 0;
	if (wl->capacity_bytes > 0 && r->nsteps) {
		caps = when / wl->capacity_bytes;
		late = caps >= BF_GC_LATE;
		early = caps < BF_GC_EARLY;
	}
	n0 = noise(s, n, first->start_s, first->end_s);
	n1 = noise(s, n, last->start_s, last->end_s);
	noisier = isfinite(n0) && isfinite(n1) && n1 >= BF_GC_NOISE_MIN &&
		  n1 >= BF_GC_NOISIER * n0;
	decay = r->class != BF_CLASS_CACHE_EXHAUSTION || r->nsteps >= 2;
	if (early || !(late || (noisier && decay)))
		return;

	bf_fmt_mbps(pk, sizeof(pk), r->peak_mbps);
	bf_fmt_mbps(fl, sizeof(fl), r->floor_mbps);
	bf_fmt_mbps(mn, sizeof(mn), r->mean_mbps);
	bf_fmt_si_bytes(tb, sizeof(tb), r->total_bytes);
	bf_fmt_si_bytes(at, sizeof(at), when);
	if (late)
		snprintf(why, sizeof(why), "%.12s, %.1f capacities, written",
			 at, caps);
	else
		snprintf(why, sizeof(why),
			 "noise from %.0f %% to %.0f %% a sample",
			 100 * n0, 100 * n1);
	snprintf(r->reason, sizeof(r->reason),
		 "random writes slowing from %.12s to %.12s MB/s (%.46s): garbage collection, free blocks used up",
		 pk, fl, why);
	snprintf(r->explain, sizeof(r->explain),
		 "Random writes that slow from %s to %s MB/s, %s, are garbage collection catching up once the drive's free blocks are used (the transition SNIA PTS calls fresh-out-of-box to steady state): it follows the bytes written and the workload's randomness, not time and power as heat does, and a cache (which sequential writes fill as well) would have stepped once. Mean %s MB/s over %s; TRIM of unused space, more over-provisioning or sequential writes lower it. The shape alone says so; `diagnose` with --trim confirms an FTL.",
		 pk, fl, why, mn, tb);
	r->class = BF_CLASS_FTL_STARVATION;
	r->has_step = false;
	r->shape_confidence = BF_GC_CONF;
	r->confidence = fmin(BF_GC_CONF, BF_SHAPE_CONF_MAX);
}
