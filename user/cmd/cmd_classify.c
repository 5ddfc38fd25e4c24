// SPDX-License-Identifier: GPL-2.0
/*
 * Offline commands on recorded curves: classify, predict (compare and plot
 * are cmd_compare.c and cmd_plot.c).
 * No netlink: they read a trace, a fio bandwidth log or a two-column CSV
 * (--format, or guessed from the content and the guess said on stderr).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blkfloor.h"
#include "classify.h"
#include "experiment.h"
#include "input.h"
#include "origin.h"
#include "json.h"
#include "opts.h"
#include "runfacts.h"
#include "runsum.h"
#include "workload.h"
#include "stats.h"
#include "units.h"

#define CURVE_OPTS	BF_OPT(FORMAT)

static int usage(const char *cmd, const char *why)
{
	fprintf(stderr, "blkfloor %s: %s\n", cmd, why);
	return EXIT_USAGE;
}

static int parse(struct bf_opts *o, int argc, char **argv, uint64_t allowed,
		 int min_pos, int max_pos)
{
	char err[256];

	memset(o, 0, sizeof(*o));
	if (bf_opts_parse(o, argc, argv, allowed, min_pos, max_pos, err,
			  sizeof(err)))
		return usage(argv[0], err);
	return 0;
}

/* A trace's "# event:" lines: the link's events name its origin. */
static void link_events(const struct bf_runsum *rs, struct bf_report *r)
{
	struct bf_path_event *pe;
	size_t i;

	if (!rs->nmark)
		return;
	pe = calloc(rs->nmark, sizeof(*pe));
	if (!pe)
		return;
	for (i = 0; i < rs->nmark; i++) {
		pe[i].t = rs->mark[i].t;
		pe[i].kind = rs->mark[i].kind;
	}
	bf_report_link_events(r, pe, rs->nmark);
	free(pe);
}

static void read_runsum(const struct bf_input *in, struct bf_runsum *rs)
{
	char err[160];
	FILE *f = bf_input_stream(in);

	memset(rs, 0, sizeof(*rs));
	if (!f)
		return;
	if (bf_runsum_read(f, rs, err, sizeof(err)))
		memset(rs, 0, sizeof(*rs));
	fclose(f);
}

/* The median interval of @s[0..n), seconds. */
static double median_dt(const struct bf_sample *s, size_t n)
{
	double *v = n ? malloc(n * sizeof(*v)) : NULL, m;
	size_t i;

	if (!v)
		return 0;
	for (i = 0; i < n; i++)
		v[i] = s[i].dt;
	m = bf_median(v, n);
	free(v);
	return m;
}

/*
 * A diagnose trace's experiments, weighed into @r: the outcomes diagnose
 * recorded, or where it recorded none, its trials judged again from the
 * probes in the trace (@all: the sustained write, @nsus samples, then the
 * probes from @first[i] on; experiment.c). @dg keeps the evidence.
 */
static void trace_evidence(const struct bf_runsum *rs,
			   const struct bf_series *all, size_t nsus,
			   const size_t *first, struct bf_report *r,
			   struct bf_diag *dg)
{
	struct bf_trial *t;
	size_t i;

	if (rs->nres) {
		memset(dg, 0, sizeof(*dg));
		memcpy(dg->ev, rs->res, rs->nres * sizeof(rs->res[0]));
		dg->nev = rs->nres;
		bf_report_apply_evidence(r, dg->ev, dg->nev);
		return;
	}
	if (!rs->ntrial || !first || nsus >= all->n)
		return;
	t = calloc(rs->ntrial, sizeof(*t));
	if (!t)
		return;
	for (i = 0; i < rs->ntrial; i++)
		t[i] = rs->trial[i].trial;
	if (!bf_diag_recorded(r, median_dt(all->s, nsus), t, rs->ntrial,
			      all->s, first, dg)) {
		bf_report_apply_evidence(r, dg->ev, dg->nev);
		r->ev_from_trace = true;
	}
	free(t);
}

/*
 * A diagnose trace (experiments after the sustained write): its curve
 * again with the probes (the reader leaves them out), in @all, and where
 * each trial's probe starts (@first, allocated). Returns the samples of
 * the sustained write, or 0 if it cannot.
 */
static size_t read_probes(const struct bf_input *in,
			  const struct bf_runsum *rs, struct bf_series *all,
			  size_t **first)
{
	struct bf_load ld = { .format = BF_FORMAT_TRACE,
			      .keep_experiments = true };
	char err[320];
	double *at;
	size_t i, n = 0;
	FILE *f;

	*first = calloc(rs->ntrial + 1, sizeof(**first));
	at = calloc(rs->ntrial, sizeof(*at));
	f = bf_input_stream(in);
	if (*first && at && f &&
	    !bf_series_read_as(f, &ld, all, err, sizeof(err))) {
		for (i = 0; i < rs->ntrial; i++)
			at[i] = rs->trial[i].t;
		n = bf_trials_split(all->s, all->n, at, rs->ntrial, *first);
	}
	if (f)
		fclose(f);
	free(at);
	return n;
}

/*
 * Read @path (say what format was guessed, and any warning) and classify
 * it. 0, or a negative errno with the reason in @err and @in freed. With
 * @dg, a diagnose trace's experiments are weighed in as well (@dg keeps
 * their evidence for @r's printers); the curve is the sustained write.
 */
/*
 * The workload behind a trace's curve: its op and pattern, the device's
 * size; @given (--workload) wins where the user said.
 */
static void trace_workload(const struct bf_runsum *rs,
			   const struct bf_workload *given,
			   struct bf_workload *wl)
{
	const char *op = rs->hdr[BF_RK_OP], *pat = rs->hdr[BF_RK_PATTERN];

	memset(wl, 0, sizeof(*wl));
	if (given && given->known) {
		*wl = *given;
	} else if (op[0] && pat[0]) {
		wl->known = true;
		wl->write = !strcmp(op, "write");
		wl->random = !strcmp(pat, "random");
	}
	wl->capacity_bytes = strtod(rs->hdr[BF_RK_SIZE], NULL);
	if (!(wl->capacity_bytes > 0) || !isfinite(wl->capacity_bytes))
		wl->capacity_bytes = 0;
}

static int load(const char *cmd, const char *path, enum bf_format fmt,
		const struct bf_workload *given, struct bf_input *in,
		struct bf_report *r, struct bf_diag *dg, char *err,
		size_t errlen)
{
	struct bf_workload wl;
	struct bf_series *ser = &in->ser, all = { 0 };
	struct bf_run_facts facts = { 0 };
	struct bf_runsum rs = { 0 };
	size_t *first = NULL, nsus = 0;
	int ret;

	ret = bf_input_read(in, path, fmt, err, errlen);
	if (ret)
		return ret;
	bf_input_say(cmd, in);
	/* another tool's curve may start in the host's page cache */
	ret = in->ld.format == BF_FORMAT_TRACE ?
	      bf_classify(ser->s, ser->n, r) :
	      bf_classify_imported(ser->s, ser->n, r);
	if (ret) {
		snprintf(err, errlen, "%s: cannot classify: %s", in->name,
			 ret == -EINVAL ? "fewer than 3 samples" : strerror(-ret));
		bf_input_free(in);
		return ret;
	}
	r->warnings = in->ld.warn;
	if (in->ld.format != BF_FORMAT_TRACE) {
		/* random writes decaying as GC catches up: only the user
		 * knows another tool's workload */
		bf_report_workload(r, ser->s, ser->n, given);
		/* a fio log's direction */
		snprintf(facts.op, sizeof(facts.op), "%s", in->ld.op);
		bf_report_run(r, &facts);
		return 0;
	}
	read_runsum(in, &rs);
	link_events(&rs, r);
	trace_workload(&rs, given, &wl);
	bf_report_workload(r, ser->s, ser->n, &wl);
	if (dg && rs.ntrial && !rs.nres && in->ld.exp_at_s >= 0)
		nsus = read_probes(in, &rs, &all, &first);
	/* the curve read is the sustained write alone: the probes' split
	 * must agree with it */
	if (dg && (rs.nres || nsus == ser->n))
		trace_evidence(&rs, &all, nsus, first, r, dg);
	/* the whole run, after the evidence: its op, errors and end state */
	bf_run_facts_read(&facts, &rs);
	bf_report_run(r, &facts);
	free(first);
	bf_series_free(&all);
	bf_runsum_free(&rs);
	return 0;
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

/*
 * --workload: a word (randwrite, write, ...), or a fio job file or fio's
 * JSON output that says rw=. Returns 0, or EXIT_USAGE (not a word nor a
 * file) or EXIT_REFUSED (a file that names no workload), said.
 */
static int workload_opt(const char *cmd, const char *v, bool json,
			struct bf_workload *wl)
{
	char buf[1 << 16];
	size_t n;
	FILE *f;

	if (!bf_workload_parse(v, wl))
		return 0;
	f = fopen(v, "r");
	if (!f)
		return usage(cmd, "--workload: expected randwrite, write, randread, read (or rw, randrw), or a fio job file or fio's JSON output");
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (bf_workload_parse(buf, wl))
		return bf_refuse(cmd, json, "--workload %s: names no rw= (a fio job file or fio's JSON output says which workload ran)",
				 v);
	return 0;
}

static int do_classify(int argc, char **argv)
{
	unsigned int count[BF_CLASS_COUNT] = { 0 }, failed = 0;
	struct bf_workload wl = { 0 };
	struct bf_opts o;
	struct bf_json j;
	int i, ret;
	bool many;

	ret = parse(&o, argc, argv, CURVE_OPTS | BF_OPT(JSON) |
		    BF_OPT(WORKLOAD), 1, BF_MAX_POS);
	if (ret)
		return ret;
	if (o.workload) {
		ret = workload_opt(argv[0], o.workload, o.json, &wl);
		if (ret)
			return ret;
	}
	many = o.npos > 1;
	bf_json_init(&j, stdout);
	for (i = 0; i < o.npos; i++) {
		struct bf_input in;
		struct bf_report r;
		struct bf_diag dg = { 0 };
		char err[400];

		if (load(argv[0], o.pos[i], o.format, &wl, &in, &r, &dg, err,
			 sizeof(err))) {
			fprintf(stderr, "blkfloor %s: %s\n", argv[0], err);
			failed++;
			if (o.json) {
				bf_json_obj_open(&j, NULL);
				bf_json_u64(&j, "schema", BF_JSON_SCHEMA);
				bf_json_str(&j, "file", o.pos[i]);
				bf_json_str(&j, "error", err);
				bf_json_obj_close(&j);
			}
			continue;
		}
		count[r.class]++;
		if (o.json)
			bf_report_json_obj(&j, NULL, &r, o.pos[i]);
		else if (many)
			one_line(o.pos[i], &r);
		else
			bf_report_print(stdout, &r);
		bf_report_free(&r);
		bf_input_free(&in);
	}
	if (many && !o.json)
		summary(count, failed, o.npos);
	return failed ? EXIT_REFUSED : EXIT_OK;
}

BLKFLOOR_COMMAND(classify, "FILE... [--format trace|fio|csv] [--workload W] [--json]",
	do_classify,
	"Classify a throughput curve: steady, cache-exhaustion,\n"
	"thermal-throttling, ftl-starvation or unclear (with the reason), with\n"
	"a confidence, peak, floor, mean, stalls, the steps, the plateaus, the\n"
	"cache size and an explanation.\n"
	"FILE is a blkfloor trace, a fio bandwidth log (--write_bw_log with\n"
	"log_avg_msec; writes are used if present) or a CSV of seconds,MB/s;\n"
	"- reads standard input. Several files give one line each and a\n"
	"summary.\n"
	"  --format FMT      trace, fio or csv (default: guessed, and said)\n"
	"  --workload W      what was written: randwrite, write, randread, read,\n"
	"                    or a fio job file or fio's JSON output (rw=); a\n"
	"                    trace says it itself. Random writes that slow as\n"
	"                    they fill the drive are garbage collection\n"
	"  --json            one JSON object per file, one per line, with its\n"
	"                    \"file\" (and \"error\" where it cannot be read)");

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
			 uint64_t bytes, double secs, double end,
			 const char *warnings)
{
	struct bf_json j;

	bf_json_doc_open(&j, stdout);
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
	bf_json_warnings(&j, "warnings", warnings);
	bf_json_obj_close(&j);
}

static int do_predict(int argc, char **argv)
{
	struct bf_input in;
	struct bf_report r;
	struct bf_opts o;
	double secs, end;
	char err[400];
	int ret;

	ret = parse(&o, argc, argv, CURVE_OPTS | BF_OPT(SIZE) | BF_OPT(JSON),
		    1, 1);
	if (ret)
		return ret;
	if (!(o.set & BF_OPT(SIZE)))
		return usage(argv[0], "--size SIZE is required");
	if (load(argv[0], o.pos[0], o.format, NULL, &in, &r, NULL, err,
		 sizeof(err)))
		return bf_refuse(argv[0], o.json, "%s", err);
	secs = bf_predict_seconds(&r, (double)o.size, &end);
	ret = EXIT_OK;
	if (!isfinite(secs)) {
		fprintf(stderr, "blkfloor predict: %s: the curve ends at 0 MB/s, the job would never finish\n",
			o.pos[0]);
		ret = EXIT_FAIL;
	} else if (o.json) {
		predict_json(o.pos[0], &r, o.size, secs, end, in.ld.warn);
	} else {
		predict_text(&r, o.size, secs, end);
	}
	bf_report_free(&r);
	bf_input_free(&in);
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
