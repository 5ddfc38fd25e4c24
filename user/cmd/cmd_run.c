// SPDX-License-Identifier: GPL-2.0
/*
 * run, sustain, fill, burst: one run each, with live progress, a summary,
 * an optional trace, and (sustain, fill) the curve's classification.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"
#include "cli.h"
#include "experiment.h"
#include "fit.h"
#include "origin.h"
#include "realdrive.h"
#include "runfacts.h"
#include "sustain.h"
#include "traceout.h"
#include "units.h"

#define RUN_OPTS (BF_OPTS_COMMON | BF_OPT(RW) | BF_OPT(BS) | BF_OPT(QD) | \
		  BF_OPT(OFFSET) | BF_OPT(SIZE) | BF_OPT(TIME) | \
		  BF_OPT(LOOPS) | BF_OPT(RATE))
#define WRITE_OPTS (BF_OPTS_COMMON | BF_OPT(BS) | BF_OPT(QD) | \
		    BF_OPT(OFFSET) | BF_OPT(SIZE) | BF_OPT(RATE))

static void opts_defaults(struct bf_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->op = BLKFLOOR_OP_READ;
	o->pattern = BLKFLOOR_PATTERN_SEQ;
	o->bs = 128 << 10;
	o->qd = 32;
}

/* Check the region against the device; prints why not. */
static int check_region(const char *cmd, const struct bf_ctx *c,
			const struct bf_opts *o)
{
	char a[BF_FMT_LEN];

	if (o->offset >= c->caps.size) {
		fprintf(stderr, "blkfloor %s: --offset is beyond the end of %s (%s)\n",
			cmd, c->dev, bf_fmt_bytes(a, sizeof(a), c->caps.size));
		return EXIT_USAGE;
	}
	if (o->size > c->caps.size - o->offset) {
		fprintf(stderr, "blkfloor %s: --offset + --size is beyond the end of %s (%s)\n",
			cmd, c->dev, bf_fmt_bytes(a, sizeof(a), c->caps.size));
		return EXIT_USAGE;
	}
	if (c->caps.lbs && (o->bs % c->caps.lbs || o->offset % c->caps.lbs)) {
		fprintf(stderr, "blkfloor %s: --bs and --offset must be multiples of the logical block size (%u bytes)\n",
			cmd, c->caps.lbs);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

static int do_run(int argc, char **argv)
{
	struct bf_run_result res;
	struct bf_tracer trace;
	struct bf_run_req req;
	struct bf_opts o;
	struct bf_ctx c;
	char err[160];
	int ret;

	opts_defaults(&o);
	if (bf_opts_parse(&o, argc, argv, RUN_OPTS, 1, 1, err, sizeof(err)))
		return bf_usage(argv[0], err);
	if (bf_ctx_open(&c, o.pos[0]))
		return EXIT_FAIL;
	ret = check_region(argv[0], &c, &o);
	if (ret)
		goto out;
	if (bf_refuse_destroy(c.dev, &c.caps, o.op, o.yes)) {
		ret = EXIT_FAIL;
		goto out;
	}
	bf_req_base(&req, &o, c.dev);
	req.op = o.op;
	req.pattern = o.pattern;
	req.bs = o.bs;
	req.qd = o.qd;
	req.offset = o.offset;
	req.length = o.size;
	req.max_time_ns = o.time_ns;
	req.loops = o.loops;
	req.rate_bps = o.rate_bps;
	req.rate_iops = o.rate_iops;
	ret = bf_preflight(&c, &o, &req, &trace);
	if (ret)
		goto out;
	/* the summary needs the aggregates only: memory stays flat */
	c.flat = true;
	if (bf_measure(&c, &req, &o, NULL, &res)) {
		bf_result_free(&res);
		bf_trace_finish(&c);
		ret = EXIT_FAIL;
		goto out;
	}
	if (o.json) {
		struct bf_json j;

		bf_json_doc_open(&j, stdout);
		bf_run_json_summary(&j, &res);
		bf_json_u64(&j, "seed", res.info.seed);
		bf_json_obj_close(&j);
	} else {
		bf_run_print_summary(stdout, &res);
		if (o.data == BLKFLOOR_DATA_VERIFY)
			printf("  seed:      %llu (read back with --data verify --seed %llu)\n",
			       (unsigned long long)res.info.seed,
			       (unsigned long long)res.info.seed);
	}
	ret = bf_run_exit_code(&res);
	if (bf_trace_finish(&c))
		ret = EXIT_FAIL;
	bf_result_free(&res);
out:
	bf_ctx_close(&c);
	return ret;
}

BLKFLOOR_COMMAND(run, "DEV [options]", do_run,
	"Run one workload on DEV and print its summary.\n"
	"  --rw MODE         read (default), write, randread, randwrite, trim,\n"
	"                    write-zeroes\n"
	"  --bs SIZE         bytes per request (default 128KiB)\n"
	"  --qd N            requests in flight, 1..1024 (default 32)\n"
	"  --offset SIZE     start of the region (default 0)\n"
	"  --size SIZE       length of the region, one pass (default: to the end)\n"
	"  --time DURATION   run this long, wrapping over the region (30s, 5m)\n"
	"  --loops N         passes over the region\n"
	"  --rate RATE       cap: 50MB/s, 1GiB/s or 1000iops\n"
	"  --interval DUR    statistics interval (default 1s, at least 1ms)\n"
	"  --data MODE       random (default: every block unique), zero, verify\n"
	"                    (headers and crc32c; a verify read with the same\n"
	"                    --seed checks them), shared (one buffer: dedups)\n"
	"  --seed N          seed for offsets and data (default: random)\n"
	"  --fua, --preflush REQ_FUA / REQ_PREFLUSH on every write\n"
	"  --no-merge        REQ_NOMERGE: the block layer merges no request\n"
	"  --failfast        REQ_FAILFAST_DEV|TRANSPORT: errors are not retried\n"
	"  --err-limit N     errors tolerated before the run fails (default 0)\n"
	"  --err-log N       failed I/Os logged with LBA, op, status and time,\n"
	"                    the first N (0..256, default 16); later ones counted\n"
	"  --ring N          closed intervals the kernel keeps (8..65536)\n"
	"  --no-own          keep running if this command dies (then\n"
	"                    blkfloor attach ID follows it again)\n"
	"  --trace FILE      record every interval as it arrives (blkfloor-trace\n"
	"                    v1); checked before the run: a new file with room\n"
	"  --force           overwrite an existing --trace FILE\n"
	"  --temp-file FILE  the drive's temperature, read each interval from\n"
	"                    FILE (millidegrees or degrees C) instead of the\n"
	"                    path's hwmon sensor (a rig's probe or smartctl)\n"
	"  --json            print the summary as JSON\n"
	"  --quiet           no live progress, only the summary\n"
	"  --yes-destroy-data  required for write, trim and write-zeroes");

/* The classifier's JSON object as a member value, without its newline. */
static void embed_report_json(FILE *f, const struct bf_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m) {
		bf_report_json(f, r);
		return;
	}
	bf_report_json(m, r);
	fclose(m);
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		len--;
	fwrite(buf, 1, len, f);
	free(buf);
}

static const double job_sizes[] = { 100e9, 500e9 };

static void print_predictions(FILE *f, const struct bf_report *r)
{
	char a[BF_FMT_LEN], b[BF_FMT_LEN];
	size_t i;

	for (i = 0; i < sizeof(job_sizes) / sizeof(job_sizes[0]); i++) {
		double end, s = bf_predict_seconds(r, job_sizes[i], &end);

		fprintf(f, "%s %.0f GB job would take %s (ending at %s)%s",
			i ? ", a" : "A", job_sizes[i] / 1e9,
			bf_fmt_duration(a, sizeof(a), s),
			bf_fmt_rate(b, sizeof(b), end * 1e6),
			i + 1 < sizeof(job_sizes) / sizeof(job_sizes[0]) ?
			"" : ".\n");
	}
}

static void json_predictions(struct bf_json *j, const struct bf_report *r)
{
	size_t i;

	bf_json_arr_open(j, "predictions");
	for (i = 0; i < sizeof(job_sizes) / sizeof(job_sizes[0]); i++) {
		double end, s = bf_predict_seconds(r, job_sizes[i], &end);

		bf_json_obj_open(j, NULL);
		bf_json_u64(j, "job_bytes", (uint64_t)job_sizes[i]);
		bf_json_double(j, "seconds", s);
		bf_json_double(j, "end_MBps", end);
		bf_json_obj_close(j);
	}
	bf_json_arr_close(j);
}

/* Per-GB table, tail and overall rates for fill. */
struct fill_stats {
	double chunk, tail;
	double *rates;
	size_t nrates;
	double tail_mbps, mean_mbps;
	bool small;
};

static int fill_stats(const struct bf_run_result *res, struct fill_stats *fs)
{
	double *b, *t, total = 0, secs = 0;
	size_t i, n = 0, max;

	b = calloc(res->niv + 1, sizeof(*b));
	t = calloc(res->niv + 1, sizeof(*t));
	if (!b || !t) {
		free(b);
		free(t);
		return -ENOMEM;
	}
	for (i = 0; i < res->niv; i++) {
		if (!res->iv[i].have)
			continue;
		b[n] = res->iv[i].bytes;
		t[n] = (res->iv[i].end_ns - res->iv[i].start_ns) / 1e9;
		total += b[n];
		secs += t[n];
		n++;
	}
	/* rows per GB; a small device gets 16 rows instead */
	fs->chunk = total >= 16e9 ? 1e9 : total / 16;
	fs->small = total < 32e9;
	fs->tail = fs->small ? total / 8 : 16e9;
	max = total > 0 && fs->chunk > 0 ? (size_t)(total / fs->chunk) + 2 : 1;
	fs->rates = calloc(max, sizeof(double));
	if (!fs->rates) {
		free(b);
		free(t);
		return -ENOMEM;
	}
	fs->nrates = bf_rate_per_chunk(b, t, n, fs->chunk, fs->rates, max);
	fs->tail_mbps = bf_tail_rate(b, t, n, fs->tail);
	fs->mean_mbps = secs > 0 ? total / secs / 1e6 : 0;
	free(b);
	free(t);
	return 0;
}

enum wcmd { W_SUSTAIN, W_FILL, W_BURST, W_DIAGNOSE };

/* sustain's default stop, on every interval of the run (sustain.c) */
static bool sustain_watch(void *arg, const struct bf_iv *iv)
{
	return bf_sustain_interval(arg, (iv->end_ns - iv->start_ns) / 1e9,
				   (double)iv->bytes);
}

/*
 * After a sustained write to the floor: the experiments (experiment.c) on
 * the same region, their evidence weighed into @rep (kept in @dg, which
 * must outlive @rep's printing). Returns EXIT_OK or EXIT_FAIL.
 */
/* an outcome's line goes into the trace whole */
_Static_assert(BF_EVIDENCE_LINE_MAX + sizeof("# experiment: \n") <=
	       BF_TRACE_NOTE_MAX, "an experiment's note would be cut");

static int diagnose(struct bf_ctx *c, const struct bf_opts *o,
		    struct bf_report *rep, uint64_t start, uint64_t len,
		    const struct bf_run_result *res, struct bf_diag *dg)
{
	struct bf_realdrive rd;
	struct bf_diag_cfg cfg;
	struct bf_drive drv;
	char line[BF_EVIDENCE_LINE_MAX];
	size_t i;
	int ret;

	memset(dg, 0, sizeof(*dg));
	if (!rep->nsteps || !(rep->peak_mbps > 1.1 * rep->floor_mbps)) {
		if (c->trace)
			bf_tracer_note(c->trace, "experiment",
				       "none: no step to probe (nothing to confirm)");
		if (!o->quiet && !o->json)
			fprintf(stderr, "diagnose: no step to probe: no experiment run\n");
		return EXIT_OK;
	}
	bf_realdrive_init(&rd, c, o, start, len, start + res->info.bytes,
			  c->trace, &drv);
	rd.run_start_ns = res->info.start_time_ns;
	rd.trace_index = res->info.intervals;
	rd.trace_bytes = (double)res->info.bytes;
	bf_diag_cfg_from_report(&cfg, rep);
	cfg.trim = o->trim;
	if (o->ngaps) {
		memcpy(cfg.gaps_s, o->gaps_s, o->ngaps * sizeof(o->gaps_s[0]));
		cfg.ngaps = o->ngaps;
	}
	/* the floor is back after three intervals under the threshold */
	cfg.hold_s = 3 * (o->interval_ns ? o->interval_ns :
			  BLKFLOOR_INTERVAL_DEFAULT_NS) / 1e9;
	if (o->trim && !c->caps.discard_max && !o->quiet && !o->json)
		fprintf(stderr, "diagnose: --trim: TRIM does not reach this drive (the kernel reports no discard support): no TRIM retest\n");
	ret = bf_diagnose(&drv, &cfg, dg);
	if (ret) {
		fprintf(stderr, "blkfloor: diagnose: the experiments failed: %s\n",
			strerror(-ret));
		return EXIT_FAIL;
	}
	bf_report_apply_evidence(rep, dg->ev, dg->nev);
	/* the outcomes, which classify reads back from the trace */
	for (i = 0; c->trace && i < dg->nev; i++) {
		bf_evidence_line(&dg->ev[i], line, sizeof(line));
		bf_tracer_note(c->trace, "experiment", line);
	}
	return EXIT_OK;
}

static int write_profile(int argc, char **argv, enum wcmd kind)
{
	struct bf_report rep;
	struct bf_run_facts facts;
	struct fill_stats fs = { 0 };
	struct bf_series ser = { 0 };
	struct bf_run_result res;
	struct bf_tracer trace;
	struct bf_run_req req;
	struct bf_opts o;
	struct bf_ctx c;
	char err[160], a[BF_FMT_LEN], b[BF_FMT_LEN], said[400] = "";
	struct bf_sustain sus = { 0 };
	struct bf_diag dg = { 0 };
	uint64_t allowed = WRITE_OPTS;
	bool classified = false;
	uint64_t len;
	size_t i;
	int ret;

	opts_defaults(&o);
	o.op = BLKFLOOR_OP_WRITE;
	o.percent = 90;
	/*
	 * sustain and fill run for hours: not owned unless --own, so that a
	 * lost SSH session does not end a whole-drive fill half-way (which
	 * cannot be resumed: the drive's cache is then full); attach follows
	 * such a run again. A burst is short and stays owned.
	 */
	o.no_own = kind != W_BURST;
	if (kind == W_FILL)
		allowed = (allowed & ~BF_OPT(SIZE)) | BF_OPT(PERCENT);
	if (kind == W_SUSTAIN)
		allowed |= BF_OPT(UNTIL) | BF_OPT(DIAGNOSE) | BF_OPT(TRIM) |
			   BF_OPT(GAPS);
	if (kind == W_DIAGNOSE) {
		allowed |= BF_OPT(UNTIL) | BF_OPT(TRIM) | BF_OPT(GAPS);
		o.diagnose = true;
		kind = W_SUSTAIN;
	}
	if (bf_opts_parse(&o, argc, argv, allowed, 1, 1, err, sizeof(err)))
		return bf_usage(argv[0], err);
	if (bf_ctx_open(&c, o.pos[0]))
		return EXIT_FAIL;
	ret = check_region(argv[0], &c, &o);
	if (ret)
		goto out;
	if (bf_refuse_destroy(c.dev, &c.caps, BLKFLOOR_OP_WRITE, o.yes)) {
		ret = EXIT_FAIL;
		goto out;
	}
	len = c.caps.size - o.offset;
	/* sustain stops on its own rule: the region is the device */
	if (kind == W_SUSTAIN)
		len = (o.set & BF_OPT(SIZE)) ? o.size : c.caps.size;
	else if (kind == W_FILL)
		len = (uint64_t)((double)c.caps.size * o.percent / 100);
	else
		len = (o.set & BF_OPT(SIZE)) ? o.size : 8ULL << 30;
	if (len > c.caps.size - o.offset)
		len = c.caps.size - o.offset;
	len = bf_round_down(len, o.bs);
	if (!len) {
		fprintf(stderr, "blkfloor %s: the region is smaller than one request (%s)\n",
			argv[0], bf_fmt_bs(a, sizeof(a), o.bs));
		ret = EXIT_USAGE;
		goto out;
	}
	bf_req_base(&req, &o, c.dev);
	req.op = BLKFLOOR_OP_WRITE;
	req.pattern = BLKFLOOR_PATTERN_SEQ;
	req.bs = o.bs;
	req.qd = o.qd;
	req.offset = o.offset;
	req.length = len;
	req.rate_bps = o.rate_bps;
	req.rate_iops = o.rate_iops;
	if (kind == W_SUSTAIN && o.until == BF_UNTIL_SIZE)
		req.max_bytes = o.until_bytes < len ? o.until_bytes : len;
	if (kind == W_SUSTAIN && o.until == BF_UNTIL_TIME)
		req.max_time_ns = o.until_ns;
	if (kind == W_SUSTAIN)
		bf_sustain_init(&sus, o.until,
				(o.interval_ns ? o.interval_ns :
				 BLKFLOOR_INTERVAL_DEFAULT_NS) / 1e9, (double)len);
	if (kind == W_SUSTAIN && o.until == BF_UNTIL_FLOOR) {
		c.watch = sustain_watch;
		c.watch_arg = &sus;
		c.status = sus.status;
	}
	ret = bf_preflight(&c, &o, &req, &trace);
	if (ret)
		goto out;
	c.flat = kind == W_BURST;
	if (!o.json && !o.quiet)
		fprintf(stderr, "%s: sequential %s writes at QD%u over %s of %s\n",
			argv[0], bf_fmt_bs(a, sizeof(a), o.bs), o.qd,
			bf_fmt_bytes(b, sizeof(b), len), c.dev);
	if (bf_measure(&c, &req, &o, NULL, &res)) {
		bf_result_free(&res);
		bf_trace_finish(&c);
		ret = EXIT_FAIL;
		goto out;
	}
	ret = bf_run_exit_code(&res);
	if (kind == W_SUSTAIN) {
		bf_sustain_said(&sus, (double)res.info.bytes, said,
				sizeof(said));
		if (c.trace)
			bf_tracer_note(c.trace, "stop", said);
	}
	if (kind != W_BURST) {
		if (bf_result_series(&res, &ser))
			ret = EXIT_FAIL;
		else if (!bf_classify(ser.s, ser.n, &rep))
			classified = true;
		if (classified)
			bf_report_link_events(&rep, res.pev, res.npev);
	}
	if (kind == W_SUSTAIN && o.diagnose && classified && ret == EXIT_OK)
		ret = diagnose(&c, &o, &rep, o.offset, len, &res, &dg);
	else if (kind == W_SUSTAIN && o.diagnose && !o.quiet && !o.json)
		fprintf(stderr, "diagnose: the sustained write did not give a curve to probe: no experiment run\n");
	if (classified) {
		/* the whole run, after the evidence, as classify reads its
		 * trace: its op, errors and end state */
		bf_run_facts_result(&facts, &res);
		bf_report_run(&rep, &facts);
	}
	if (kind == W_FILL && fill_stats(&res, &fs))
		ret = EXIT_FAIL;

	/* peak for burst: the best interval */
	double peak = res.peak_bps;

	if (o.json) {
		struct bf_json j;

		bf_json_doc_open(&j, stdout);
		bf_json_obj_open(&j, "run");
		bf_run_json_summary(&j, &res);
		bf_json_obj_close(&j);
		bf_json_double(&j, "peak_MBps", peak / 1e6);
		if (kind == W_SUSTAIN)
			bf_sustain_json(&j, &sus, said);
		if (kind == W_FILL) {
			bf_json_u64(&j, "percent", o.percent);
			bf_json_double(&j, "chunk_bytes", fs.chunk);
			bf_json_arr_open(&j, "chunk_MBps");
			for (i = 0; i < fs.nrates; i++)
				bf_json_double(&j, NULL, fs.rates[i]);
			bf_json_arr_close(&j);
			bf_json_double(&j, "tail_bytes", fs.tail);
			bf_json_double(&j, "tail_MBps", fs.tail_mbps);
			bf_json_double(&j, "mean_MBps", fs.mean_mbps);
		}
		if (classified) {
			bf_json_key(&j, "classification");
			embed_report_json(stdout, &rep);
			json_predictions(&j, &rep);
		} else if (kind != W_BURST) {
			bf_json_null(&j, "classification");
		}
		bf_json_obj_close(&j);
	} else {
		bf_run_print_summary(stdout, &res);
		if (kind == W_BURST)
			printf("burst: peak %s, mean %s over %s\n",
			       bf_fmt_rate(a, sizeof(a), peak),
			       bf_fmt_rate(b, sizeof(b), bf_run_bps(&res.info)),
			       bf_fmt_bytes(err, sizeof(err), res.info.bytes));
		if (kind == W_FILL) {
			printf("\nrate per %s written:\n",
			       bf_fmt_bytes(a, sizeof(a), (uint64_t)fs.chunk));
			for (i = 0; i < fs.nrates; i++)
				printf("  %10s  %s\n",
				       bf_fmt_bytes(a, sizeof(a),
						    (uint64_t)(fs.chunk * (i + 1))),
				       bf_fmt_rate(b, sizeof(b), fs.rates[i] * 1e6));
			printf("last %s: %s%s\noverall:  %s\n",
			       bf_fmt_bytes(a, sizeof(a), (uint64_t)fs.tail),
			       bf_fmt_rate(b, sizeof(b), fs.tail_mbps * 1e6),
			       fs.small ? " (this fill is too small for the usual last 16 GB: the last eighth is used instead)" : "",
			       bf_fmt_rate(err, sizeof(err), fs.mean_mbps * 1e6));
		}
		if (kind == W_SUSTAIN)
			printf("stop: %s\n", said);
		if (classified) {
			putchar('\n');
			bf_report_print(stdout, &rep);
			print_predictions(stdout, &rep);
		} else if (kind != W_BURST) {
			printf("\nclassification: not enough intervals (%zu); use a smaller --interval or a larger region\n",
			       ser.n);
		}
	}
	if (bf_trace_finish(&c))
		ret = EXIT_FAIL;
	if (classified)
		bf_report_free(&rep);
	bf_series_free(&ser);
	free(fs.rates);
	bf_result_free(&res);
out:
	bf_ctx_close(&c);
	return ret;
}

static int do_sustain(int argc, char **argv)
{
	return write_profile(argc, argv, W_SUSTAIN);
}

static int do_fill(int argc, char **argv)
{
	return write_profile(argc, argv, W_FILL);
}

static int do_burst(int argc, char **argv)
{
	return write_profile(argc, argv, W_BURST);
}

static int do_diagnose(int argc, char **argv)
{
	return write_profile(argc, argv, W_DIAGNOSE);
}

#define WRITE_HELP_OPTS \
	"  --bs SIZE         bytes per request (default 128KiB)\n" \
	"  --qd N            requests in flight (default 32)\n" \
	"  --offset SIZE     start of the region (default 0)\n" \
	"  --rate RATE       cap: 50MB/s or 1000iops\n" \
	"  --interval DUR    statistics interval (default 1s)\n" \
	"  --data MODE       random (default), zero, verify, shared; --seed N\n" \
	"  --fua, --preflush, --no-merge, --failfast, --err-limit N, --err-log N,\n" \
	"  --ring N\n" \
	"  --trace FILE      record every interval as it arrives; checked\n" \
	"                    before the run (a new file, with room); --force\n" \
	"                    overwrites an existing one\n" \
	"  --temp-file FILE  temperature from FILE instead of hwmon\n" \
	"  --json, --quiet\n" \
	"  --yes-destroy-data  required: this overwrites the device"

/* sustain and fill: hours of writing that a lost session must not end */
#define UNOWNED_HELP \
	"  --own             stop the run if this command dies. By default the\n" \
	"                    run goes on (Ctrl-C still stops it): a fill cut\n" \
	"                    short by a lost session cannot be resumed, while\n" \
	"                    blkfloor attach ID follows a run that goes on and\n" \
	"                    completes its --trace\n"

BLKFLOOR_COMMAND(sustain, "DEV --yes-destroy-data [options]", do_sustain,
	"The floor test: sequential writes, then the curve's classification.\n"
	"Writes 128 KiB requests at QD32 until the floor after a step holds\n"
	"(or over the region), then prints the classification (steady,\n"
	"cache-exhaustion, thermal-throttling, ftl-starvation), peak, floor,\n"
	"mean, step time and cache size, where the write stopped and what it\n"
	"did not see, and how long a 100 GB and a 500 GB job would take.\n"
	"  --size SIZE       the region (default: the whole device)\n"
	"  --until WHEN      floor (default): stop once the floor after a step\n"
	"                    holds for 5 rounds (range within 20 %, trend within\n"
	"                    10 %) and an eighth of the cache was written past\n"
	"                    it; a drive with no step is written to the end;\n"
	"                    full: the whole region; SIZE (100GB) or TIME (30m)\n"
	"  --diagnose        then run the experiments (see blkfloor diagnose)\n"
	"  --trim, --gaps    with --diagnose: as for blkfloor diagnose\n"
	UNOWNED_HELP
	WRITE_HELP_OPTS);

BLKFLOOR_COMMAND(fill, "DEV --yes-destroy-data [options]", do_fill,
	"Fill the device to a percentage: rate per GB written, last 16 GB, overall.\n"
	"  --percent N       how much of the device to write (default 90)\n"
	UNOWNED_HELP
	WRITE_HELP_OPTS);

BLKFLOOR_COMMAND(burst, "DEV --yes-destroy-data [options]", do_burst,
	"A short sequential write burst: peak and mean rate.\n"
	"  --size SIZE       bytes to write (default 8GiB, capped to the device)\n"
	"  --no-own          keep running if this command dies\n"
	WRITE_HELP_OPTS);

BLKFLOOR_COMMAND(diagnose, "DEV --yes-destroy-data [options]", do_diagnose,
	"Ask the drive for the cause of its floor: sustain, then experiments.\n"
	"After a sustained write to the floor (as sustain, --until floor by\n"
	"default), runs on the same region:\n"
	"  idle recovery  a write at once, then idle gaps of 10, 60 and 240 s,\n"
	"                 each followed by a write until the floor is back:\n"
	"                 the bytes at the high rate give a refill rate per\n"
	"                 idle minute, or none (measured after 1 and 3 s when\n"
	"                 10 s gave it all back);\n"
	"  cool-down      the longest gap again, the write at less power: a\n"
	"                 cache relapses after the same bytes, heat after far\n"
	"                 more (temperature shown where read);\n"
	"  TRIM retest    with --trim, where discard reaches the drive:\n"
	"                 discard the region, idle, write: back near the peak\n"
	"                 for far more than idle gave is a starved FTL.\n"
	"Each experiment's result, cost and effect on the verdict is printed,\n"
	"in the JSON evidence list and as # experiment: lines in the trace. A\n"
	"cause an experiment confirms is reported with high confidence; the\n"
	"shape alone is capped at 0.7. Costs minutes of idle time and writes.\n"
	"  --gaps LIST       the idle gaps, growing (default 10s,60s,4m)\n"
	"  --trim            discard the region and write it again (destroys\n"
	"                    its data like the rest; needs discard support)\n"
	"  --until, --size   as for sustain\n"
	UNOWNED_HELP
	WRITE_HELP_OPTS);
