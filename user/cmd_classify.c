// SPDX-License-Identifier: GPL-2.0
/*
 * Offline commands on recorded curves: classify, plot, compare, predict.
 * No netlink: they read a trace, a fio bandwidth log or a two-column CSV.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blkfloor.h"
#include "classify.h"
#include "plot.h"
#include "units.h"

static int usage(const char *cmd, const char *why)
{
	fprintf(stderr, "blkfloor %s: %s\n", cmd, why);
	return EXIT_USAGE;
}

/* Load and classify @path; prints the reason on failure. */
static int load(const char *cmd, const char *path, struct bf_series *ser,
		struct bf_report *r)
{
	char err[256];
	int ret;

	ret = bf_series_load(path, ser, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "blkfloor %s: %s\n", cmd, err);
		return ret;
	}
	ret = bf_classify(ser->s, ser->n, r);
	if (ret) {
		fprintf(stderr, "blkfloor %s: %s: cannot classify: %s\n", cmd,
			path, strerror(-ret));
		bf_series_free(ser);
	}
	return ret;
}

static int do_classify(int argc, char **argv)
{
	struct bf_series ser = { 0 };
	const char *path = NULL;
	bool json = false;
	struct bf_report r;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (!path && argv[i][0] != '-')
			path = argv[i];
		else
			return usage(argv[0], "unexpected argument");
	}
	if (!path)
		return usage(argv[0], "FILE is required");
	if (load(argv[0], path, &ser, &r))
		return EXIT_FAIL;
	if (json)
		bf_report_json(stdout, &r);
	else
		bf_report_print(stdout, &r);
	bf_report_free(&r);
	bf_series_free(&ser);
	return EXIT_OK;
}

BLKFLOOR_COMMAND(classify, "FILE [--json]", do_classify,
	"Classify a throughput curve: steady, cache-exhaustion,\n"
	"thermal-throttling or ftl-starvation, with peak, floor, mean, the\n"
	"plateaus, the step and cache size, and an explanation.\n"
	"FILE is a blkfloor trace, a fio bandwidth log (--write_bw_log with\n"
	"log_avg_msec; writes are used if present) or a CSV of seconds,MB/s.\n"
	"  --json            one JSON object");

static int do_plot(int argc, char **argv)
{
	const char *path = NULL, *out = NULL, *base;
	struct bf_series ser = { 0 };
	struct bf_report r;
	FILE *f;
	int i, ret;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (!path && argv[i][0] != '-')
			path = argv[i];
		else
			return usage(argv[0], "unexpected argument");
	}
	if (!path || !out)
		return usage(argv[0], "FILE and -o OUT.svg are required");
	if (load(argv[0], path, &ser, &r))
		return EXIT_FAIL;
	f = fopen(out, "w");
	if (!f) {
		fprintf(stderr, "blkfloor plot: %s: %s\n", out, strerror(errno));
		ret = -errno;
	} else {
		base = strrchr(path, '/');
		ret = bf_plot_svg(f, ser.s, ser.n, &r, base ? base + 1 : path);
		if (fclose(f) && !ret)
			ret = -errno;
		if (ret)
			fprintf(stderr, "blkfloor plot: %s: %s\n", out,
				strerror(-ret));
	}
	bf_report_free(&r);
	bf_series_free(&ser);
	return ret ? EXIT_FAIL : EXIT_OK;
}

BLKFLOOR_COMMAND(plot, "FILE -o OUT.svg", do_plot,
	"Draw the curve as SVG: rate against bytes written and against time,\n"
	"with the plateaus and the cache step marked and labelled.\n"
	"  -o OUT.svg        where to write the chart");

/* Mean, sd and count of the sample rates in [first, last]. */
struct stat { double mean, sd; size_t n; };

static struct stat stats(const struct bf_sample *s, size_t first, size_t last)
{
	struct stat st = { 0, 0, last - first + 1 };
	size_t i;

	for (i = first; i <= last; i++)
		st.mean += s[i].mbps;
	st.mean /= st.n;
	for (i = first; i <= last; i++)
		st.sd += (s[i].mbps - st.mean) * (s[i].mbps - st.mean);
	st.sd = st.n > 1 ? sqrt(st.sd / (st.n - 1)) : 0;
	return st;
}

/*
 * Welch's t for two means. Samples of a curve are autocorrelated, so the
 * verdict asks for |t| > 3 and a difference of at least 2 %.
 */
static const char *verdict(struct stat a, struct stat b, double *t)
{
	double se = sqrt(a.sd * a.sd / a.n + b.sd * b.sd / b.n);
	double rel = fabs(a.mean - b.mean) / fmax(fabs(a.mean), fabs(b.mean));

	*t = se > 0 ? (b.mean - a.mean) / se : (a.mean == b.mean ? 0 : INFINITY);
	if (fabs(*t) > 3 && rel >= 0.02)
		return "beyond the noise";
	return "within the noise";
}

static size_t plateau(const struct bf_report *r, bool highest)
{
	size_t i, k = 0;

	for (i = 1; i < r->nseg; i++)
		if (highest ? r->seg[i].level_mbps > r->seg[k].level_mbps :
			      r->seg[i].level_mbps < r->seg[k].level_mbps)
			k = i;
	return k;
}

static size_t index_at(const struct bf_series *s, double bytes)
{
	size_t i;

	for (i = 0; i + 1 < s->n && s->s[i].bytes < bytes; i++)
		;
	return i;
}

static void row(const char *what, double a, double b, const char *unit,
		const char *v, double t)
{
	char x[32], y[32], d[32];

	bf_fmt_mbps(x, sizeof(x), a);
	bf_fmt_mbps(y, sizeof(y), b);
	printf("%-20s %18s %18s %-5s %s", what, x, y, unit,
	       bf_fmt_change(d, sizeof(d), a, b));
	if (v)
		printf("   %s (t = %.1f)", v, t);
	putchar('\n');
}

static int do_compare(int argc, char **argv)
{
	struct bf_series sa = { 0 }, sb = { 0 };
	struct bf_report ra, rb;
	struct stat xa, xb;
	double common, ta, tb, t;
	const char *v;
	size_t ka, kb;
	char cb[32], cd[32];

	if (argc != 3)
		return usage(argv[0], "two files are required: A B");
	if (load(argv[0], argv[1], &sa, &ra))
		return EXIT_FAIL;
	if (load(argv[0], argv[2], &sb, &rb)) {
		bf_report_free(&ra);
		bf_series_free(&sa);
		return EXIT_FAIL;
	}
	printf("A: %s\nB: %s\n\n", argv[1], argv[2]);
	printf("%-20s %18s %18s %-5s %9s\n", "", "A", "B", "", "B vs A");
	printf("%-20s %18s %18s\n", "class", bf_class_name(ra.class),
	       bf_class_name(rb.class));

	ka = plateau(&ra, true);
	kb = plateau(&rb, true);
	xa = stats(sa.s, ra.seg[ka].first, ra.seg[ka].last);
	xb = stats(sb.s, rb.seg[kb].first, rb.seg[kb].last);
	v = verdict(xa, xb, &t);
	row("peak", ra.peak_mbps, rb.peak_mbps, "MB/s", v, t);

	ka = plateau(&ra, false);
	kb = plateau(&rb, false);
	xa = stats(sa.s, ra.seg[ka].first, ra.seg[ka].last);
	xb = stats(sb.s, rb.seg[kb].first, rb.seg[kb].last);
	v = verdict(xa, xb, &t);
	row("floor", ra.floor_mbps, rb.floor_mbps, "MB/s", v, t);

	/* the same amount of data from both: what the shorter one wrote */
	common = fmin(ra.total_bytes, rb.total_bytes);
	ta = bf_series_time_at(sa.s, sa.n, common);
	tb = bf_series_time_at(sb.s, sb.n, common);
	xa = stats(sa.s, 0, index_at(&sa, common));
	xb = stats(sb.s, 0, index_at(&sb, common));
	v = verdict(xa, xb, &t);
	bf_fmt_si_bytes(cb, sizeof(cb), common);
	row("mean, same data", common / ta / 1e6, common / tb / 1e6, "MB/s",
	    v, t);
	printf("%-20s %16.1f s %16.1f s       %s   (to write %s)\n",
	       "time, same data", ta, tb, bf_fmt_change(cd, sizeof(cd), ta, tb), cb);
	row("mean (whole run)", ra.mean_mbps, rb.mean_mbps, "MB/s", NULL, 0);
	if (ra.has_step || rb.has_step) {
		char x[32] = "-", y[32] = "-";

		if (ra.has_step)
			bf_fmt_si_bytes(x, sizeof(x), ra.cache_bytes);
		if (rb.has_step)
			bf_fmt_si_bytes(y, sizeof(y), rb.cache_bytes);
		printf("%-20s %18s %18s\n", "cache", x, y);
	}
	printf("\n\"beyond the noise\": Welch's t on the sample rates of the plateaus\n"
	       "(or of the common part), |t| > 3 and a difference of 2 %% or more.\n");
	bf_report_free(&ra);
	bf_report_free(&rb);
	bf_series_free(&sa);
	bf_series_free(&sb);
	return EXIT_OK;
}

BLKFLOOR_COMMAND(compare, "A B", do_compare,
	"Compare two curves (cable A vs B, enclosure A vs B, before vs after\n"
	"TRIM): peak, floor, mean, time for the same amount of data, and which\n"
	"differences are beyond the noise.");

static int do_predict(int argc, char **argv)
{
	const char *path = NULL, *size = NULL;
	struct bf_series ser = { 0 };
	char t[32], e[32], b[32];
	struct bf_report r;
	double secs, end;
	uint64_t bytes;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--size") && i + 1 < argc)
			size = argv[++i];
		else if (!path && argv[i][0] != '-')
			path = argv[i];
		else
			return usage(argv[0], "unexpected argument");
	}
	if (!path || !size)
		return usage(argv[0], "FILE and --size SIZE are required");
	if (bf_parse_size(size, &bytes) || !bytes)
		return usage(argv[0], "--size: a size such as 500GB, 64GiB");
	if (load(argv[0], path, &ser, &r))
		return EXIT_FAIL;
	secs = bf_predict_seconds(&r, (double)bytes, &end);
	if (!isfinite(secs)) {
		fprintf(stderr, "blkfloor predict: %s: the curve ends at 0 MB/s, the job would never finish\n",
			path);
		bf_report_free(&r);
		bf_series_free(&ser);
		return EXIT_FAIL;
	}
	bf_fmt_secs(t, sizeof(t), secs);
	bf_fmt_mbps(e, sizeof(e), end);
	bf_fmt_si_bytes(b, sizeof(b), (double)bytes);
	printf("job: %s\nclass: %s\nprojected time: %s", b,
	       bf_class_name(r.class), t);
	if (secs >= 600)
		printf(" (%.0f s)", secs);
	printf("\nending rate: %s MB/s\n", e);
	if (r.has_step) {
		char c[32];

		bf_fmt_si_bytes(c, sizeof(c), r.cache_bytes);
		printf("cache: %s at the start, then the floor\n", c);
	}
	printf("assumption: the job starts with the drive idle and its cache refilled;\n"
	       "the cache refills only while the drive is idle, never during the job.\n"
	       "The measured profile is followed byte by byte; past its end the job\n"
	       "goes on at %s.\n",
	       r.class == BF_CLASS_FTL_STARVATION || r.erratic ?
	       "the measured mean rate" : "the rate of the last plateau");
	if ((double)bytes > r.total_bytes) {
		char m[32];

		bf_fmt_si_bytes(m, sizeof(m), r.total_bytes);
		printf("note: only %s were measured; the rest is extrapolated.\n", m);
	}
	bf_report_free(&r);
	bf_series_free(&ser);
	return EXIT_OK;
}

BLKFLOOR_COMMAND(predict, "FILE --size SIZE", do_predict,
	"Project how long a job of SIZE takes on this drive from a measured\n"
	"curve, and the rate it ends at (assumes the cache refills only when\n"
	"the drive is idle).\n"
	"  --size SIZE       e.g. 500GB (10^9), 64GiB (2^30)");
