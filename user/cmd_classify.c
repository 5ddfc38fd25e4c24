// SPDX-License-Identifier: GPL-2.0
/*
 * Offline commands on recorded curves: classify, plot, compare, predict.
 * No netlink: they read a trace, a fio bandwidth log or a two-column CSV
 * (--format, or guessed from the content and the guess said on stderr).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blkfloor.h"
#include "classify.h"
#include "origin.h"
#include "json.h"
#include "opts.h"
#include "pathsum.h"
#include "plot.h"
#include "units.h"

#define CURVE_OPTS	BF_OPT(FORMAT)

static int usage(const char *cmd, const char *why)
{
	fprintf(stderr, "blkfloor %s: %s\n", cmd, why);
	return EXIT_USAGE;
}

static int parse(struct bf_opts *o, int argc, char **argv, uint32_t allowed,
		 int min_pos, int max_pos)
{
	char err[256];

	memset(o, 0, sizeof(*o));
	if (bf_opts_parse(o, argc, argv, allowed, min_pos, max_pos, err,
			  sizeof(err)))
		return usage(argv[0], err);
	return 0;
}

/* Load @path (say what format was guessed, and any warning) and classify. */
static int load(const char *cmd, const char *path, enum bf_format fmt,
		struct bf_series *ser, struct bf_report *r, char *err,
		size_t errlen)
{
	struct bf_load ld = { .format = fmt };
	int ret;

	ret = bf_series_load_as(path, &ld, ser, err, errlen);
	if (ret)
		return ret;
	if (ld.guessed && ld.format != BF_FORMAT_TRACE)
		fprintf(stderr, "blkfloor %s: %s: read as %s (guessed from the content; --format to choose)\n",
			cmd, path, ld.format == BF_FORMAT_FIO ?
			"a fio bandwidth log (msec, KiB/s, ddir, bs)" :
			"two columns (seconds, MB/s)");
	if (ld.warn[0])
		fprintf(stderr, "blkfloor %s: %s: warning: %s\n", cmd, path,
			ld.warn);
	/* another tool's curve may start in the host's page cache */
	ret = ld.format == BF_FORMAT_TRACE ? bf_classify(ser->s, ser->n, r) :
	      bf_classify_imported(ser->s, ser->n, r);
	if (ret) {
		snprintf(err, errlen, "%s: cannot classify: %s", path,
			 ret == -EINVAL ? "fewer than 3 samples" : strerror(-ret));
		bf_series_free(ser);
	}
	return ret;
}

static int load1(const char *cmd, const char *path, enum bf_format fmt,
		 struct bf_series *ser, struct bf_report *r)
{
	char err[320];
	int ret = load(cmd, path, fmt, ser, r, err, sizeof(err));

	if (ret)
		fprintf(stderr, "blkfloor %s: %s\n", cmd, err);
	return ret;
}

/* ---- classify ------------------------------------------------------------- */

/* One line per file when several are classified. */
static void one_line(const char *path, const struct bf_report *r)
{
	char pk[32], fl[32], mn[32], cb[32];

	bf_fmt_mbps(pk, sizeof(pk), r->peak_mbps);
	bf_fmt_mbps(fl, sizeof(fl), r->floor_mbps);
	bf_fmt_mbps(mn, sizeof(mn), r->mean_mbps);
	printf("%s: %s (confidence %.2f): peak %s, floor %s, mean %s MB/s",
	       path, bf_class_name(r->class), r->confidence, pk, fl, mn);
	if (r->has_step) {
		bf_fmt_si_bytes(cb, sizeof(cb), r->cache_bytes);
		printf(", cache %s at %.1f s", cb, r->step_time_s);
	}
	if (r->stalls.count)
		printf(", %u stall%s (%.1f s)", r->stalls.count,
		       r->stalls.count > 1 ? "s" : "", r->stalls.total_s);
	printf(": %s\n", r->reason);
}

static void summary(const unsigned int *count, unsigned int failed,
		    unsigned int files)
{
	bool any = false;
	int c;

	printf("%u file%s:", files, files > 1 ? "s" : "");
	for (c = 0; c < BF_CLASS_COUNT; c++) {
		if (!count[c])
			continue;
		printf("%s %u %s", any ? "," : "", count[c], bf_class_name(c));
		any = true;
	}
	if (failed)
		printf("%s %u unreadable", any ? "," : "", failed);
	putchar('\n');
}

static int do_classify(int argc, char **argv)
{
	unsigned int count[BF_CLASS_COUNT] = { 0 }, failed = 0;
	struct bf_opts o;
	struct bf_json j;
	int i, ret;
	bool many;

	ret = parse(&o, argc, argv, CURVE_OPTS | BF_OPT(JSON), 1, BF_MAX_POS);
	if (ret)
		return ret;
	many = o.npos > 1;
	bf_json_init(&j, stdout);
	if (o.json && many)
		bf_json_arr_open(&j, NULL);
	for (i = 0; i < o.npos; i++) {
		struct bf_series ser = { 0 };
		struct bf_report r;
		char err[320];

		if (load(argv[0], o.pos[i], o.format, &ser, &r, err,
			 sizeof(err))) {
			fprintf(stderr, "blkfloor %s: %s\n", argv[0], err);
			failed++;
			if (o.json && many) {
				bf_json_obj_open(&j, NULL);
				bf_json_str(&j, "file", o.pos[i]);
				bf_json_str(&j, "error", err);
				bf_json_obj_close(&j);
			}
			continue;
		}
		count[r.class]++;
		if (o.json)
			bf_report_json_obj(&j, NULL, &r, many ? o.pos[i] : NULL);
		else if (many)
			one_line(o.pos[i], &r);
		else
			bf_report_print(stdout, &r);
		bf_report_free(&r);
		bf_series_free(&ser);
	}
	if (o.json && many)
		bf_json_arr_close(&j);
	if (many && !o.json)
		summary(count, failed, o.npos);
	return failed ? EXIT_FAIL : EXIT_OK;
}

BLKFLOOR_COMMAND(classify, "FILE... [--format trace|fio|csv] [--json]",
	do_classify,
	"Classify a throughput curve: steady, cache-exhaustion,\n"
	"thermal-throttling, ftl-starvation or unclear (with the reason), with\n"
	"a confidence, peak, floor, mean, stalls, the steps, the plateaus, the\n"
	"cache size and an explanation.\n"
	"FILE is a blkfloor trace, a fio bandwidth log (--write_bw_log with\n"
	"log_avg_msec; writes are used if present) or a CSV of seconds,MB/s;\n"
	"- reads standard input. Several files give one line each and a\n"
	"summary (with --json, an array of objects with a \"file\" member).\n"
	"  --format FMT      trace, fio or csv (default: guessed, and said)\n"
	"  --json            one JSON object");

/* ---- plot ---------------------------------------------------------------------- */

static int do_plot(int argc, char **argv)
{
	struct bf_series ser = { 0 };
	struct bf_report r;
	const char *base;
	struct bf_opts o;
	FILE *f;
	int ret;

	ret = parse(&o, argc, argv, CURVE_OPTS | BF_OPT(OUTPUT), 1, 1);
	if (ret)
		return ret;
	if (!o.output)
		return usage(argv[0], "-o OUT.svg is required");
	if (load1(argv[0], o.pos[0], o.format, &ser, &r))
		return EXIT_FAIL;
	f = fopen(o.output, "w");
	if (!f) {
		fprintf(stderr, "blkfloor plot: %s: %s\n", o.output,
			strerror(errno));
		ret = -errno;
	} else {
		base = strrchr(o.pos[0], '/');
		ret = bf_plot_svg(f, ser.s, ser.n, &r, base ? base + 1 : o.pos[0]);
		if (fclose(f) && !ret)
			ret = -errno;
		if (ret)
			fprintf(stderr, "blkfloor plot: %s: %s\n", o.output,
				strerror(-ret));
	}
	bf_report_free(&r);
	bf_series_free(&ser);
	return ret ? EXIT_FAIL : EXIT_OK;
}

BLKFLOOR_COMMAND(plot, "FILE -o OUT.svg [--format trace|fio|csv]", do_plot,
	"Draw the curve as SVG: rate against bytes written and against time,\n"
	"with the plateaus and the cache step marked and labelled.\n"
	"  -o, --output OUT.svg  where to write the chart\n"
	"  --format FMT          trace, fio or csv (default: guessed)");

/* ---- compare ---------------------------------------------------------------- */

/*
 * Mean of the sample rates in [first, last], and the sd and effective
 * count of their noise: the deviations from the plateau each sample
 * belongs to (a step is the curve's shape, not noise). Samples of a curve
 * are autocorrelated; with lag-1 autocorrelation r of the deviations, the
 * mean has the variance of n (1 - r) / (1 + r) independent samples (an
 * AR(1) model).
 */
struct stat { double mean, sd, neff; size_t n; };

static double level_of(const struct bf_report *r, size_t i, size_t *g)
{
	while (*g + 1 < r->nseg && r->seg[*g].last < i)
		(*g)++;
	return r->seg[*g].mean_mbps;
}

static struct stat stats(const struct bf_sample *s, const struct bf_report *rep,
			 size_t first, size_t last)
{
	struct stat st = { 0, 0, 0, last - first + 1 };
	double c1 = 0, prev = 0, r;
	size_t i, g = 0;

	for (i = first; i <= last; i++) {
		double e = s[i].mbps - level_of(rep, i, &g);

		st.mean += s[i].mbps;
		st.sd += e * e;
		if (i > first)
			c1 += prev * e;
		prev = e;
	}
	st.mean /= st.n;
	r = st.sd > 0 ? c1 / st.sd : 0;
	r = r < 0 ? 0 : r > 0.99 ? 0.99 : r;
	st.neff = fmax(1, st.n * (1 - r) / (1 + r));
	st.sd = st.n > 1 ? sqrt(st.sd / (st.n - 1)) : 0;
	return st;
}

struct judged {
	double a, b;		/* the printed statistic of A and B */
	double t;		/* their difference over its standard error */
	const char *verdict;
};

/*
 * Welch's t on the printed values @a and @b, the standard error taken from
 * the samples behind them with the effective counts; beyond the noise when
 * |t| > 3 and the difference is 2 % or more.
 */
static struct judged judge(double a, double b, struct stat sa, struct stat sb)
{
	struct judged j = { a, b, 0, "within the noise" };
	double se = sqrt(sa.sd * sa.sd / sa.neff + sb.sd * sb.sd / sb.neff);
	double rel = fabs(a - b) / fmax(fabs(a), fabs(b));

	j.t = se > 0 ? (b - a) / se : (a == b ? 0 : INFINITY);
	if (fabs(j.t) > 3 && rel >= 0.02)
		j.verdict = "beyond the noise";
	return j;
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

struct side {
	const char *path;
	struct bf_series s;
	struct bf_report r;
	struct bf_pathsum p;
};

static struct judged judge_plateau(const struct side *A, const struct side *B,
				   bool highest)
{
	size_t ka = plateau(&A->r, highest), kb = plateau(&B->r, highest);

	return judge(highest ? A->r.peak_mbps : A->r.floor_mbps,
		     highest ? B->r.peak_mbps : B->r.floor_mbps,
		     stats(A->s.s, &A->r, A->r.seg[ka].first, A->r.seg[ka].last),
		     stats(B->s.s, &B->r, B->r.seg[kb].first, B->r.seg[kb].last));
}

static void row(const char *what, const struct judged *j)
{
	char x[32], y[32], d[32];

	bf_fmt_mbps(x, sizeof(x), j->a);
	bf_fmt_mbps(y, sizeof(y), j->b);
	printf("%-20s %18s %18s %-5s %s", what, x, y, "MB/s",
	       bf_fmt_change(d, sizeof(d), j->a, j->b));
	if (j->verdict)
		printf("   %s (t = %.1f)", j->verdict, j->t);
	putchar('\n');
}

static void json_row(struct bf_json *js, const char *what,
		     const struct judged *j)
{
	bf_json_obj_open(js, what);
	bf_json_double(js, "a_MBps", round(j->a * 1000) / 1000);
	bf_json_double(js, "b_MBps", round(j->b * 1000) / 1000);
	bf_json_double(js, "change_rel",
		       j->a > 0 ? round((j->b / j->a - 1) * 1e4) / 1e4 : 0);
	if (j->verdict) {
		if (isfinite(j->t))
			bf_json_double(js, "t", round(j->t * 100) / 100);
		else
			bf_json_null(js, "t");
		bf_json_bool(js, "beyond_noise", j->verdict[0] == 'b');
	}
	bf_json_obj_close(js);
}

struct comparison {
	struct judged peak, floor, same, whole;
	double common, ta, tb;
	struct bf_pdiff d[BF_PDIFF_MAX];
	size_t nd;
	/* B worse than A beyond the noise, and why ("; "-separated) */
	bool regression;
	char why[512];
};

static void because(struct comparison *c, const char *fmt, const char *what,
		    const char *detail)
{
	size_t l = strlen(c->why);

	c->regression = true;
	snprintf(c->why + l, sizeof(c->why) - l, fmt, l ? "; " : "", what,
		 detail);
}

/* B is worse: a lower rate or floor beyond the noise, or a worse path */
static void regressions(struct comparison *c)
{
	char buf[64];
	size_t i;

	c->why[0] = '\0';
	c->regression = false;
	if (c->same.verdict[0] == 'b' && c->same.b < c->same.a) {
		snprintf(buf, sizeof(buf), "%.1f %% (t = %.1f)",
			 100 * (c->same.b / c->same.a - 1), c->same.t);
		because(c, "%s%s %s", "lower mean rate", buf);
	}
	if (c->floor.verdict[0] == 'b' && c->floor.b < c->floor.a) {
		snprintf(buf, sizeof(buf), "%.1f %% (t = %.1f)",
			 100 * (c->floor.b / c->floor.a - 1), c->floor.t);
		because(c, "%s%s %s", "lower floor", buf);
	}
	for (i = 0; i < c->nd; i++)
		if (c->d[i].worse)
			because(c, "%s%s: %s", c->d[i].what, c->d[i].why);
}

static void compare_compute(const struct side *A, const struct side *B,
			    struct comparison *c)
{
	c->peak = judge_plateau(A, B, true);
	c->floor = judge_plateau(A, B, false);
	/* the same amount of data from both: what the shorter one wrote */
	c->common = fmin(A->r.total_bytes, B->r.total_bytes);
	c->ta = bf_series_time_at(A->s.s, A->s.n, c->common);
	c->tb = bf_series_time_at(B->s.s, B->s.n, c->common);
	c->same = judge(c->common / c->ta / 1e6, c->common / c->tb / 1e6,
			stats(A->s.s, &A->r, 0, index_at(&A->s, c->common)),
			stats(B->s.s, &B->r, 0, index_at(&B->s, c->common)));
	c->whole = (struct judged){ A->r.mean_mbps, B->r.mean_mbps, 0, NULL };
	c->nd = bf_pathsum_compare(&A->p, &B->p, c->d);
	regressions(c);
}

static void compare_text(const struct side *A, const struct side *B,
			 const struct comparison *c)
{
	char cb[32], cd[32];

	printf("A: %s\nB: %s\n\n", A->path, B->path);
	printf("%-20s %18s %18s %-5s %9s\n", "", "A", "B", "", "B vs A");
	printf("%-20s %18s %18s\n", "class", bf_class_name(A->r.class),
	       bf_class_name(B->r.class));
	row("peak", &c->peak);
	row("floor", &c->floor);
	bf_fmt_si_bytes(cb, sizeof(cb), c->common);
	row("mean, same data", &c->same);
	printf("%-20s %16.1f s %16.1f s       %s   (to write %s)\n",
	       "time, same data", c->ta, c->tb,
	       bf_fmt_change(cd, sizeof(cd), c->ta, c->tb), cb);
	row("mean (whole run)", &c->whole);
	if (A->r.has_step || B->r.has_step) {
		char x[32] = "-", y[32] = "-";

		if (A->r.has_step)
			bf_fmt_si_bytes(x, sizeof(x), A->r.cache_bytes);
		if (B->r.has_step)
			bf_fmt_si_bytes(y, sizeof(y), B->r.cache_bytes);
		printf("%-20s %18s %18s\n", "cache", x, y);
	}
	if (c->nd) {
		size_t i;

		printf("\npath\n");
		for (i = 0; i < c->nd; i++)
			printf("%-20s %18s %18s   %s%s%s\n", c->d[i].what,
			       c->d[i].a, c->d[i].b,
			       c->d[i].differs ? "differs" : "same",
			       c->d[i].why[0] ? ": " : "", c->d[i].why);
	}
	printf("\nregression: %s%s%s\n", c->regression ? "yes (" : "no",
	       c->why, c->regression ? ")" : "");
	printf("\n\"beyond the noise\": Welch's t on the values printed, its standard\n"
	       "error from the noise of the samples behind them (the plateau, or the\n"
	       "common part; deviations from their plateaus) with the effective count\n"
	       "n (1 - r) / (1 + r) of autocorrelated samples (r: lag-1\n"
	       "autocorrelation); |t| > 3 and a difference of 2 %% or more. Path\n"
	       "ratios (requests/bio, request KiB, utilisation): Welch's t over the\n"
	       "intervals, |t| > 3 and 5 %% or more; counters, events and header\n"
	       "items: any difference.\n");
}

static void compare_json(const struct side *A, const struct side *B,
			 const struct comparison *c)
{
	struct bf_json j;

	bf_json_init(&j, stdout);
	bf_json_obj_open(&j, NULL);
	bf_json_u64(&j, "schema", BF_SCHEMA_VERSION);
	bf_json_str(&j, "a", A->path);
	bf_json_str(&j, "b", B->path);
	bf_json_str(&j, "class_a", bf_class_name(A->r.class));
	bf_json_str(&j, "class_b", bf_class_name(B->r.class));
	json_row(&j, "peak", &c->peak);
	json_row(&j, "floor", &c->floor);
	json_row(&j, "mean_same_data", &c->same);
	json_row(&j, "mean", &c->whole);
	bf_json_u64(&j, "common_bytes", llround(c->common));
	bf_json_double(&j, "time_same_data_a_s", round(c->ta * 1000) / 1000);
	bf_json_double(&j, "time_same_data_b_s", round(c->tb * 1000) / 1000);
	if (A->r.has_step)
		bf_json_u64(&j, "cache_bytes_a", llround(A->r.cache_bytes));
	else
		bf_json_null(&j, "cache_bytes_a");
	if (B->r.has_step)
		bf_json_u64(&j, "cache_bytes_b", llround(B->r.cache_bytes));
	else
		bf_json_null(&j, "cache_bytes_b");
	bf_json_arr_open(&j, "path");
	for (size_t i = 0; i < c->nd; i++) {
		bf_json_obj_open(&j, NULL);
		bf_json_str(&j, "what", c->d[i].what);
		bf_json_str(&j, "a", c->d[i].a);
		bf_json_str(&j, "b", c->d[i].b);
		bf_json_bool(&j, "differs", c->d[i].differs);
		bf_json_bool(&j, "worse", c->d[i].worse);
		bf_json_str(&j, "why", c->d[i].why);
		bf_json_obj_close(&j);
	}
	bf_json_arr_close(&j);
	bf_json_bool(&j, "regression", c->regression);
	bf_json_str(&j, "regression_why", c->why);
	bf_json_obj_close(&j);
}

/* The path figures of a trace; none (silently) for a fio log or a CSV. */
static int load_path(const char *cmd, struct side *s)
{
	char err[200];
	FILE *f;
	int ret;

	memset(&s->p, 0, sizeof(s->p));
	if (!strcmp(s->path, "-"))
		return 0;
	f = fopen(s->path, "r");
	if (!f)
		return 0;	/* the curve was read: nothing more to say */
	ret = bf_pathsum_read(f, &s->p, err, sizeof(err));
	fclose(f);
	if (ret)
		fprintf(stderr, "blkfloor %s: %s: %s\n", cmd, s->path, err);
	return ret;
}

/* "--fail-on regression": taken out of argv before the common parser */
static int fail_on(int *argc, char **argv, bool *on)
{
	int i, k;

	*on = false;
	for (i = 1; i < *argc; i++) {
		const char *v = NULL;
		int drop = 1;

		if (!strcmp(argv[i], "--fail-on")) {
			if (i + 1 >= *argc)
				return usage(argv[0], "--fail-on needs a value (regression)");
			v = argv[i + 1];
			drop = 2;
		} else if (!strncmp(argv[i], "--fail-on=", 10)) {
			v = argv[i] + 10;
		} else {
			continue;
		}
		if (strcmp(v, "regression"))
			return usage(argv[0], "--fail-on takes 'regression'");
		*on = true;
		for (k = i; k + drop <= *argc; k++)
			argv[k] = argv[k + drop];
		*argc -= drop;
		i--;
	}
	return 0;
}

static int do_compare(int argc, char **argv)
{
	struct side A = { 0 }, B = { 0 };
	struct comparison c;
	struct bf_opts o;
	bool gate;
	int ret;

	ret = fail_on(&argc, argv, &gate);
	if (ret)
		return ret;
	ret = parse(&o, argc, argv, CURVE_OPTS | BF_OPT(JSON), 2, 2);
	if (ret)
		return ret;
	A.path = o.pos[0];
	B.path = o.pos[1];
	if (load1(argv[0], A.path, o.format, &A.s, &A.r))
		return EXIT_FAIL;
	if (load1(argv[0], B.path, o.format, &B.s, &B.r)) {
		bf_report_free(&A.r);
		bf_series_free(&A.s);
		return EXIT_FAIL;
	}
	if (load_path(argv[0], &A) || load_path(argv[0], &B)) {
		ret = EXIT_FAIL;
		goto out;
	}
	compare_compute(&A, &B, &c);
	if (o.json)
		compare_json(&A, &B, &c);
	else
		compare_text(&A, &B, &c);
	ret = gate && c.regression ? EXIT_FAIL : EXIT_OK;
	if (gate && c.regression)
		fprintf(stderr, "blkfloor %s: B is worse than A: %s\n", argv[0],
			c.why);
out:
	bf_report_free(&A.r);
	bf_report_free(&B.r);
	bf_series_free(&A.s);
	bf_series_free(&B.s);
	return ret;
}

BLKFLOOR_COMMAND(compare, "A B [--format trace|fio|csv] [--json] [--fail-on regression]", do_compare,
	"Compare two curves (cable A vs B, enclosure A vs B, before vs after\n"
	"TRIM): peak, floor, mean, time for the same amount of data, and which\n"
	"differences are beyond the noise (t-test on the printed values,\n"
	"corrected for autocorrelated samples).\n"
	"  --format FMT      trace, fio or csv (default: guessed)\n"
	"  --json            one JSON object\n"
	"  --fail-on regression\n"
	"                    exit 1 if B is worse than A beyond the noise: a\n"
	"                    lower mean rate or floor, more requests per bio,\n"
	"                    more SCSI errors/timeouts, resets, aborts or\n"
	"                    disconnects, a slower link, uas -> usb-storage");

/* ---- predict ------------------------------------------------------------------ */

static const char *tail_words(const struct bf_report *r)
{
	return r->class == BF_CLASS_FTL_STARVATION || r->erratic ?
	       "the measured mean rate" : "the rate of the last plateau";
}

static void predict_text(const struct bf_report *r, uint64_t bytes,
			 double secs, double end)
{
	char t[32], e[32], b[32];

	bf_fmt_secs(t, sizeof(t), secs);
	bf_fmt_mbps(e, sizeof(e), end);
	bf_fmt_si_bytes(b, sizeof(b), (double)bytes);
	printf("job: %s\nclass: %s\nprojected time: %s", b,
	       bf_class_name(r->class), t);
	if (secs >= 600)
		printf(" (%.0f s)", secs);
	printf("\nending rate: %s MB/s\n", e);
	if (r->has_step) {
		char c[32];

		bf_fmt_si_bytes(c, sizeof(c), r->cache_bytes);
		printf("cache: %s at the start, then the floor\n", c);
	}
	printf("assumption: the job starts with the drive idle and its cache refilled;\n"
	       "the cache refills only while the drive is idle, never during the job.\n"
	       "The measured profile is followed byte by byte; past its end the job\n"
	       "goes on at %s.\n", tail_words(r));
	if ((double)bytes > r->total_bytes) {
		char m[32];

		bf_fmt_si_bytes(m, sizeof(m), r->total_bytes);
		printf("note: only %s were measured; the rest is extrapolated.\n", m);
	}
}

static void predict_json(const char *path, const struct bf_report *r,
			 uint64_t bytes, double secs, double end)
{
	struct bf_json j;

	bf_json_init(&j, stdout);
	bf_json_obj_open(&j, NULL);
	bf_json_u64(&j, "schema", BF_SCHEMA_VERSION);
	bf_json_str(&j, "file", path);
	bf_json_u64(&j, "job_bytes", bytes);
	bf_json_str(&j, "class", bf_class_name(r->class));
	bf_json_double(&j, "seconds", round(secs * 1000) / 1000);
	bf_json_double(&j, "end_MBps", round(end * 1000) / 1000);
	if (r->has_step)
		bf_json_u64(&j, "cache_bytes", llround(r->cache_bytes));
	else
		bf_json_null(&j, "cache_bytes");
	bf_json_u64(&j, "measured_bytes", llround(r->total_bytes));
	bf_json_bool(&j, "extrapolated", (double)bytes > r->total_bytes);
	bf_json_str(&j, "tail", tail_words(r));
	bf_json_obj_close(&j);
}

static int do_predict(int argc, char **argv)
{
	struct bf_series ser = { 0 };
	struct bf_report r;
	struct bf_opts o;
	double secs, end;
	int ret;

	ret = parse(&o, argc, argv, CURVE_OPTS | BF_OPT(SIZE) | BF_OPT(JSON),
		    1, 1);
	if (ret)
		return ret;
	if (!(o.set & BF_OPT(SIZE)))
		return usage(argv[0], "--size SIZE is required");
	if (load1(argv[0], o.pos[0], o.format, &ser, &r))
		return EXIT_FAIL;
	secs = bf_predict_seconds(&r, (double)o.size, &end);
	ret = EXIT_OK;
	if (!isfinite(secs)) {
		fprintf(stderr, "blkfloor predict: %s: the curve ends at 0 MB/s, the job would never finish\n",
			o.pos[0]);
		ret = EXIT_FAIL;
	} else if (o.json) {
		predict_json(o.pos[0], &r, o.size, secs, end);
	} else {
		predict_text(&r, o.size, secs, end);
	}
	bf_report_free(&r);
	bf_series_free(&ser);
	return ret;
}

BLKFLOOR_COMMAND(predict, "FILE --size SIZE [--format trace|fio|csv] [--json]",
	do_predict,
	"Project how long a job of SIZE takes on this drive from a measured\n"
	"curve, and the rate it ends at (assumes the cache refills only when\n"
	"the drive is idle).\n"
	"  --size SIZE       e.g. 500GB (10^9), 64GiB (2^30); --size=500GB works\n"
	"  --format FMT      trace, fio or csv (default: guessed)\n"
	"  --json            one JSON object");
