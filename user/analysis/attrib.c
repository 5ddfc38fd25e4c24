// SPDX-License-Identifier: GPL-2.0
/*
 * Transport attribution: does a swing in the write rate come from the drive
 * or from the link? Pure computation (the printers write to a FILE *).
 *
 * The noise model. A steady link does not give the same rate in every
 * interval; each interval's rate is the true rate times (1 + e), e with a
 * relative standard deviation sigma made of two independent parts:
 *
 *  - link noise, BF_ATTRIB_LINK_NOISE = 15 %: completion timing jitter of
 *    the host, the bridge and the emulator. Real links are far steadier
 *    (the brief's reads held a stdev of ~6 MB/s at several hundred MB/s,
 *    about 1 %); a QEMU TCG guest reading a UAS disk capped at 40 MB/s on
 *    a busy 2-core host showed interquartile spreads of 9-18 % (sd up to
 *    ~13 %) besides quantisation (selftests/tests/model/005), so 15 %.
 *  - quantisation: completions are counted whole, and they come in quanta:
 *    the request size, or larger where the block layer merges sequential
 *    requests (a USB 3 usb-storage disk completes 128 KiB bios 1 MiB at a
 *    time, so a 200 ms interval at 40 MB/s holds 7 or 8 quanta, not 61
 *    requests). An interval holding k quanta is off by up to one, a
 *    relative error of up to 1/k, taken as an sd of 1/k (an upper bound).
 *    The quantum is measured, not assumed: the largest of bs * 2^j that
 *    divides at least 90 % of the intervals' byte counts (with 128 KiB
 *    requests completing one by one, only one count in eight would be a
 *    multiple of 1 MiB by chance).
 *
 *    sigma = sqrt(0.15^2 + (1/k)^2)
 *
 * The curve's spread is its interquartile range relative to the median,
 * (p75 - p25) / median; for normally distributed noise it is 1.349 sigma.
 * A curve swings (is erratic) when that exceeds 2 sigma (30 % of the
 * median for large k): the margin of 0.65 sigma is about two standard
 * errors of the IQR of 20 intervals. The quartiles ignore the lowest and
 * highest quarter of the intervals, so stalls of the host or emulator that
 * take less than a quarter of the run (a TCG guest on a busy machine loses
 * up to a second at a time) are not a swing, while a rate that spends a
 * quarter of the time or more on another level is: an FTL that alternates
 * between fast and starved spends far more than that on each. The stdev,
 * the coefficient of variation, the MAD and p10..p90 are reported, not
 * used.
 *
 * The verdict:
 *   reads steady, writes swing  -> drive: the link carried reads steadily,
 *                                  so the swing comes from the drive
 *   reads swing, writes swing   -> link: reads, the drive's easy path,
 *                                  swing too; the cable, bridge or host is
 *                                  the first suspect
 *   reads swing, writes steady  -> link as well, with its own wording: the
 *                                  drive's write side is proven steady and
 *                                  reads are the link probe; the sentence
 *                                  names the one drive-side cause that would
 *                                  look the same (read retries on aged data)
 *   both steady                 -> none
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attrib.h"
#include "json.h"

const char *bf_verdict_name(enum bf_verdict v)
{
	switch (v) {
	case BF_VERDICT_DRIVE:
		return "drive";
	case BF_VERDICT_LINK:
		return "link";
	case BF_VERDICT_NONE:
		break;
	}
	return "none";
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Quantile @q of sorted v[0..n), linear between order statistics. */
static double quantile(const double *v, size_t n, double q)
{
	double pos = q * (n - 1);
	size_t lo = (size_t)floor(pos);

	if (lo + 1 >= n)
		return v[n - 1];
	return v[lo] + (pos - lo) * (v[lo + 1] - v[lo]);
}

/* Does @q divide at least 90 % of the nonzero interval byte counts @b? */
static bool divides_most(const double *b, size_t n, double q)
{
	size_t i, hit = 0, nz = 0;

	for (i = 0; i < n; i++) {
		if (b[i] <= 0)
			continue;
		nz++;
		hit += fmod(b[i], q) == 0;
	}
	return nz && hit * 10 >= nz * 9;
}

/*
 * The completion quantum (see the noise model): the largest bs * 2^j up to
 * 64 MiB dividing most interval byte counts; @bs itself
 * if none does, 0 if @bs is unknown and the counts show none.
 */
static double quantum(const struct bf_sample *s, size_t n, double bs)
{
	double *b, q = bs > 0 ? bs : 512, prev = 0;
	size_t i;

	b = calloc(n, sizeof(*b));
	if (!b)
		return bs;
	for (i = 0; i < n; i++) {
		b[i] = s[i].bytes - prev;
		prev = s[i].bytes;
	}
	if (!(bs > 0) && !divides_most(b, n, q))
		q = 0;
	while (q > 0 && q * 2 <= 64.0 * (1 << 20) && divides_most(b, n, q * 2))
		q *= 2;
	free(b);
	return q;
}

int bf_attrib_stats(const struct bf_sample *s, size_t n, double bs,
		    struct bf_attrib_series *st)
{
	double *v, dt_med, k, q = 0;
	size_t i, m = 0;

	memset(st, 0, sizeof(*st));
	if (n < BF_ATTRIB_MIN_SAMPLES)
		return -EINVAL;
	v = calloc(n, sizeof(*v));
	if (!v)
		return -ENOMEM;

	/* the usual interval; the last one of a run is usually partial */
	for (i = 0; i < n; i++)
		if (s[i].dt > 0)
			v[m++] = s[i].dt;
	if (!m) {
		free(v);
		return -EINVAL;
	}
	qsort(v, m, sizeof(*v), cmp_double);
	dt_med = quantile(v, m, 0.5);

	m = 0;
	for (i = 0; i < n; i++) {
		if (!(s[i].dt >= 0.5 * dt_med) || !isfinite(s[i].mbps) ||
		    s[i].mbps < 0) {
			st->nskipped++;
			continue;
		}
		v[m++] = s[i].mbps;
	}
	st->n = m;
	if (m < BF_ATTRIB_MIN_SAMPLES) {
		free(v);
		return -EINVAL;
	}
	st->sd = bf_mean_sd(v, m, &st->mean);
	st->cv = st->mean > 0 ? st->sd / st->mean : 0;

	qsort(v, m, sizeof(*v), cmp_double);
	st->min = v[0];
	st->max = v[m - 1];
	st->median = quantile(v, m, 0.5);
	st->p10 = quantile(v, m, 0.1);
	st->p25 = quantile(v, m, 0.25);
	st->p75 = quantile(v, m, 0.75);
	st->p90 = quantile(v, m, 0.9);
	for (i = 0; i < m; i++)
		v[i] = fabs(v[i] - st->median);
	qsort(v, m, sizeof(*v), cmp_double);
	st->mad = quantile(v, m, 0.5);
	free(v);

	if (st->median > 0)
		st->spread_rel = (st->p75 - st->p25) / st->median;
	else
		st->spread_rel = st->p75 > 0 ? INFINITY : 0;

	st->quantum = quantum(s, n, bs);
	k = st->quantum > 0 ? st->median * 1e6 * dt_med / st->quantum : 0;
	if (k > 0)
		q = 1 / k;
	st->noise_rel = sqrt(BF_ATTRIB_LINK_NOISE * BF_ATTRIB_LINK_NOISE +
			     q * q);
	st->limit_rel = 2 * st->noise_rel;
	st->erratic = st->spread_rel > st->limit_rel;
	return 0;
}

/* bf_classify()'s class, for the summary only */
static void classify(const struct bf_sample *s, size_t n,
		     struct bf_attrib_series *st)
{
	struct bf_report r;

	if (bf_classify(s, n, &r))
		return;
	st->has_class = true;
	st->class = r.class;
	bf_report_free(&r);
}

/* "held 40.0 MB/s (stdev 1.20 MB/s)" or "swung between 8.00 and 95.0 ..." */
static void describe(char *b, size_t len, const char *verb_held,
		     const struct bf_attrib_series *st)
{
	char m[24], sd[24], lo[24], hi[24];

	bf_fmt_mbps(sd, sizeof(sd), st->sd);
	if (!st->erratic) {
		bf_fmt_mbps(m, sizeof(m), st->median);
		snprintf(b, len, "%s %s MB/s (stdev %s MB/s)", verb_held, m,
			 sd);
		return;
	}
	bf_fmt_mbps(lo, sizeof(lo), st->p10);
	bf_fmt_mbps(hi, sizeof(hi), st->p90);
	snprintf(b, len, "swung between %s and %s MB/s (stdev %s MB/s)", lo,
		 hi, sd);
}

static void explain(struct bf_attrib *a)
{
	char r[160], w[160];

	describe(r, sizeof(r), "held", &a->rd);
	describe(w, sizeof(w), "held", &a->wr);
	if (!a->rd.erratic && a->wr.erratic)
		snprintf(a->explain, sizeof(a->explain),
			 "reads %s while writes %s: the fault is in the drive, not the cable or bridge",
			 r, w);
	else if (a->rd.erratic && a->wr.erratic)
		snprintf(a->explain, sizeof(a->explain),
			 "reads %s and writes %s: reads, the drive's easy path, swing too, so the first suspect is the cable, bridge or host (a drive that slows down both ways, e.g. when hot, looks the same: try another cable, port or enclosure)",
			 r, w);
	else if (a->rd.erratic)
		snprintf(a->explain, sizeof(a->explain),
			 "reads %s while writes %s: the drive writes steadily, so the swing is on the read path, the bridge or host first (a drive that retries reads of aged data looks the same)",
			 r, w);
	else
		snprintf(a->explain, sizeof(a->explain),
			 "reads %s and writes %s: both are steady within the measurement noise, so there is no swing to pin on the drive or the link",
			 r, w);
}

int bf_attrib(const struct bf_sample *rd, size_t nrd, double rd_bs,
	      const struct bf_sample *wr, size_t nwr, double wr_bs,
	      struct bf_attrib *a)
{
	int ret;

	memset(a, 0, sizeof(*a));
	ret = bf_attrib_stats(rd, nrd, rd_bs, &a->rd);
	if (!ret)
		ret = bf_attrib_stats(wr, nwr, wr_bs, &a->wr);
	if (ret)
		return ret;
	classify(rd, nrd, &a->rd);
	classify(wr, nwr, &a->wr);
	if (a->rd.erratic)
		a->verdict = BF_VERDICT_LINK;
	else if (a->wr.erratic)
		a->verdict = BF_VERDICT_DRIVE;
	else
		a->verdict = BF_VERDICT_NONE;
	explain(a);
	return 0;
}

static void print_series(FILE *f, const char *name,
			 const struct bf_attrib_series *st)
{
	char m[24], sd[24], lo[24], hi[24];

	bf_fmt_mbps(m, sizeof(m), st->median);
	bf_fmt_mbps(sd, sizeof(sd), st->sd);
	bf_fmt_mbps(lo, sizeof(lo), st->p10);
	bf_fmt_mbps(hi, sizeof(hi), st->p90);
	fprintf(f, "%-6s median %s MB/s, stdev %s MB/s (CV %.1f%%), p10..p90 %s..%s MB/s\n",
		name, m, sd, 100 * st->cv, lo, hi);
	fprintf(f, "       p25..p75 spread %.1f%% of the median (steady up to %.1f%%): %s; %zu intervals, class %s\n",
		100 * st->spread_rel, 100 * st->limit_rel,
		st->erratic ? "swings" : "steady", st->n,
		st->has_class ? bf_class_name(st->class) : "(too few intervals)");
}

void bf_attrib_print(FILE *f, const struct bf_attrib *a)
{
	print_series(f, "read:", &a->rd);
	print_series(f, "write:", &a->wr);
	fprintf(f, "verdict: %s\n%c%s.\n", bf_verdict_name(a->verdict),
		a->explain[0] >= 'a' && a->explain[0] <= 'z' ?
		a->explain[0] - 'a' + 'A' : a->explain[0], a->explain + 1);
}

static double r3(double v)
{
	return round(v * 1000) / 1000;
}

static double r4(double v)
{
	return round(v * 10000) / 10000;
}

static void json_series(struct bf_json *j, const char *key,
			const struct bf_attrib_series *st)
{
	bf_json_obj_open(j, key);
	bf_json_u64(j, "intervals", st->n);
	bf_json_u64(j, "skipped", st->nskipped);
	bf_json_double(j, "median_MBps", r3(st->median));
	bf_json_double(j, "mean_MBps", r3(st->mean));
	bf_json_double(j, "stdev_MBps", r3(st->sd));
	bf_json_double(j, "cv", r4(st->cv));
	bf_json_double(j, "mad_MBps", r3(st->mad));
	bf_json_double(j, "p10_MBps", r3(st->p10));
	bf_json_double(j, "p25_MBps", r3(st->p25));
	bf_json_double(j, "p75_MBps", r3(st->p75));
	bf_json_double(j, "p90_MBps", r3(st->p90));
	bf_json_double(j, "min_MBps", r3(st->min));
	bf_json_double(j, "max_MBps", r3(st->max));
	bf_json_double(j, "spread_rel", r4(st->spread_rel));
	bf_json_double(j, "limit_rel", r4(st->limit_rel));
	bf_json_u64(j, "quantum_bytes", (uint64_t)st->quantum);
	bf_json_bool(j, "erratic", st->erratic);
	if (st->has_class)
		bf_json_str(j, "class", bf_class_name(st->class));
	else
		bf_json_null(j, "class");
	bf_json_obj_close(j);
}

void bf_attrib_json_members(struct bf_json *j, const struct bf_attrib *a)
{
	bf_json_str(j, "verdict", bf_verdict_name(a->verdict));
	json_series(j, "read", &a->rd);
	json_series(j, "write", &a->wr);
	bf_json_str(j, "explanation", a->explain);
}

void bf_attrib_json(FILE *f, const struct bf_attrib *a)
{
	struct bf_json j;

	bf_json_doc_open(&j, f);
	bf_attrib_json_members(&j, a);
	bf_json_obj_close(&j);
}
