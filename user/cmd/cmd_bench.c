// SPDX-License-Identifier: GPL-2.0
/*
 * sweep, iops, wss, corners: series of short runs, one per point.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fit.h"
#include "traceout.h"
#include "units.h"

#define POINT_TIME_NS	(5ULL * 1000000000ULL)
#define BENCH_OPTS	(BF_OPTS_COMMON | BF_OPT(TIME) | BF_OPT(QD))

/* One point of a series. */
struct point {
	uint32_t bs, qd;
	uint64_t region, rate_iops;
	double mbps, iops, t_req;
	struct bf_lat lat;
	uint8_t state;
};

/*
 * Run one point; returns 0, 1 if interrupted (stop the series), or -errno.
 * The series' trace, if any, is of its last point only: --trace names one
 * file, so bench commands take it as "trace of the last point". The file
 * was created before the first point (bf_preflight()); each point's run
 * writes it as it goes and the next point starts it over.
 */
static int run_point(struct bf_ctx *c, const struct bf_opts *o,
		     struct bf_run_req *req, struct point *pt,
		     const char *label)
{
	struct bf_run_result res;
	int ret;

	if (c->trace && c->trace->header_done) {
		ret = bf_tracer_rewind(c->trace);
		if (ret) {
			fprintf(stderr, "blkfloor: trace %s: cannot start it over for the next point: %s\n",
				c->trace->path, strerror(-ret));
			return ret;
		}
	}
	ret = bf_measure(c, req, o, label, &res);
	if (ret) {
		bf_result_free(&res);
		return ret;
	}
	pt->bs = req->bs;
	pt->qd = req->qd;
	pt->region = req->length;
	pt->rate_iops = req->rate_iops;
	pt->mbps = bf_run_bps(&res.info) / 1e6;
	pt->iops = bf_run_iops(&res.info);
	pt->t_req = pt->mbps > 0 ? req->bs / (pt->mbps * 1e6) : 0;
	pt->state = res.info.state;
	bf_run_lat(&res, &pt->lat);
	if (res.info.state == BLKFLOOR_STATE_FAILED) {
		bf_run_exit_code(&res);
		ret = -(res.info.err ? -res.info.err : EIO);
	} else if (res.interrupted) {
		ret = 1;
	}
	bf_result_free(&res);
	return ret;
}

static void json_lat(struct bf_json *j, const struct bf_lat *l)
{
	bf_json_obj_open(j, "latency_us");
	bf_json_double(j, "p50", l->p50 / 1e3);
	bf_json_double(j, "p99", l->p99 / 1e3);
	bf_json_double(j, "p99.9", l->p999 / 1e3);
	bf_json_double(j, "max", l->max / 1e3);
	bf_json_obj_close(j);
}

static void point_req(struct bf_run_req *req, const struct bf_opts *o,
		      const struct bf_ctx *c)
{
	bf_req_base(req, o, c->dev);
	if (o->set & BF_OPT(SIZE))
		req->max_bytes = o->size;
	else
		req->max_time_ns = o->time_ns;
	/* a point is short: show about ten intervals unless told */
	if (!(o->set & BF_OPT(INTERVAL))) {
		uint64_t iv = req->max_time_ns ? req->max_time_ns / 10 :
			      BLKFLOOR_INTERVAL_DEFAULT_NS / 4;

		if (iv > BLKFLOOR_INTERVAL_DEFAULT_NS)
			iv = BLKFLOOR_INTERVAL_DEFAULT_NS;
		if (iv < BLKFLOOR_INTERVAL_MIN_NS)
			iv = BLKFLOOR_INTERVAL_MIN_NS;
		req->interval_ns = iv;
	}
}

/*
 * Open the device and run the preflight (the trace, with --trace, is
 * created here, before any point runs). EXIT_OK, or an exit code with the
 * reason printed.
 */
static int bench_open(struct bf_ctx *c, struct bf_opts *o, uint8_t op,
		      struct bf_tracer *t)
{
	struct bf_run_req req;
	int ret;

	if (bf_ctx_open(c, o->pos[0]))
		return EXIT_FAIL;
	if (bf_refuse_destroy(c->dev, &c->caps, op, o->yes)) {
		bf_ctx_close(c);
		return EXIT_FAIL;
	}
	point_req(&req, o, c);
	ret = bf_preflight(c, o, &req, t);
	if (ret)
		bf_ctx_close(c);
	return ret;
}

/* The series' exit code; closes its trace and the device. */
static int bench_close(struct bf_ctx *c, int ret)
{
	ret = ret ? EXIT_FAIL : EXIT_OK;
	if (bf_trace_finish(c))
		ret = EXIT_FAIL;
	bf_ctx_close(c);
	return ret;
}

/* ---- sweep ---- */

static int do_sweep(int argc, char **argv)
{
	struct point pts[16];
	double x[16], y[16];
	struct bf_fit fit;
	struct bf_opts o = { 0 };
	struct bf_tracer trace;
	struct bf_ctx c;
	char err[160], a[BF_FMT_LEN], b[BF_FMT_LEN], l[BF_FMT_LEN];
	size_t n = 0, i;
	uint32_t bs;
	int ret = 0, fitret;

	o.op = BLKFLOOR_OP_READ;
	o.pattern = BLKFLOOR_PATTERN_SEQ;
	o.qd = 1;
	o.time_ns = POINT_TIME_NS;
	if (bf_opts_parse(&o, argc, argv, BENCH_OPTS | BF_OPT(RW) | BF_OPT(SIZE),
			  1, 1, err, sizeof(err)))
		return bf_usage(argv[0], err);
	ret = bench_open(&c, &o, o.op, &trace);
	if (ret)
		return ret;
	for (bs = 4096; bs <= (16U << 20) && n < 16; bs *= 2) {
		struct bf_run_req req;

		if (c.caps.size < bs)
			break;
		if (bf_data_per_slot(o.op, o.data) &&
		    (uint64_t)o.qd * bs > BLKFLOOR_VERIFY_MEM_MAX) {
			fprintf(stderr, "blkfloor: bench sweep: stops before %s: %u slots of %s data buffers are more than %u MiB (--data shared goes further)\n",
				bf_fmt_bs(l, sizeof(l), bs), o.qd,
				bf_fmt_bs(a, sizeof(a), bs),
				BLKFLOOR_VERIFY_MEM_MAX >> 20);
			break;
		}
		point_req(&req, &o, &c);
		req.op = o.op;
		req.pattern = o.pattern;
		req.bs = bs;
		req.qd = o.qd;
		bf_fmt_bs(l, sizeof(l), bs);
		ret = run_point(&c, &o, &req, &pts[n], l);
		if (ret)
			break;
		x[n] = bs;
		y[n] = pts[n].t_req;
		n++;
	}
	fitret = bf_fit_linear(x, y, n, &fit);
	if (o.json) {
		struct bf_json j;

		bf_json_doc_open(&j, stdout);
		bf_json_str(&j, "device", c.dev);
		bf_json_str(&j, "rw", bf_rw_name(o.op, o.pattern));
		bf_json_u64(&j, "qd", o.qd);
		bf_json_arr_open(&j, "points");
		for (i = 0; i < n; i++) {
			bf_json_obj_open(&j, NULL);
			bf_json_u64(&j, "bs", pts[i].bs);
			bf_json_double(&j, "mbps", pts[i].mbps);
			bf_json_double(&j, "iops", pts[i].iops);
			bf_json_double(&j, "us_per_request", pts[i].t_req * 1e6);
			bf_json_obj_close(&j);
		}
		bf_json_arr_close(&j);
		if (!fitret) {
			bf_json_obj_open(&j, "fit");
			bf_json_double(&j, "overhead_us", fit.intercept * 1e6);
			bf_json_double(&j, "bandwidth_MBps", fit.slope > 0 ?
				       1 / fit.slope / 1e6 : NAN);
			bf_json_double(&j, "r2", fit.r2);
			bf_json_obj_close(&j);
		} else {
			bf_json_null(&j, "fit");
		}
		bf_json_obj_close(&j);
	} else {
		printf("%s: %s at QD%u, rate per request size\n", c.dev,
		       bf_rw_name(o.op, o.pattern), o.qd);
		printf("%10s %12s %10s %14s\n", "size", "rate", "IOPS",
		       "per request");
		for (i = 0; i < n; i++)
			printf("%10s %12s %10.0f %14s\n",
			       bf_fmt_bs(a, sizeof(a), pts[i].bs),
			       bf_fmt_rate(b, sizeof(b), pts[i].mbps * 1e6),
			       pts[i].iops,
			       bf_fmt_lat(l, sizeof(l), pts[i].t_req * 1e9));
		if (fitret)
			printf("fit: not enough points\n");
		else if (fit.slope <= 0)
			printf("fit: time per request does not grow with size (R^2 %.3f): no bandwidth limit seen\n",
			       fit.r2);
		else
			printf("fit: time per request = %.1f us + size / %s (R^2 %.3f)\n",
			       fit.intercept * 1e6,
			       bf_fmt_rate(a, sizeof(a), 1 / fit.slope), fit.r2);
	}
	return bench_close(&c, ret);
}

BLKFLOOR_COMMAND(sweep, "DEV [options]", do_sweep,
	"Rate per request size and the fitted per-command overhead.\n"
	"Sizes 4 KiB .. 16 MiB; fit: time per request = overhead + size / bandwidth.\n"
	"  --rw MODE         read (default); write/randwrite need --yes-destroy-data\n"
	"  --qd N            requests in flight (default 1)\n"
	"  --time DURATION   per size (default 5s)\n"
	"  --size SIZE       per size instead of --time\n"
	"  --interval DUR, --trace FILE (last point), --force, --json, --quiet, --seed N,\n"
	"  --data MODE, --fua, --preflush, --no-merge, --failfast, --err-limit N,\n"
	"  --ring N, --no-own,\n"
	"  --yes-destroy-data");

/* ---- iops ---- */

static const uint32_t iops_qds[] = { 1, 4, 32, 128 };

static void print_lat_row(const char *label, const struct point *p)
{
	char a[BF_FMT_LEN], b[BF_FMT_LEN], c[BF_FMT_LEN], d[BF_FMT_LEN];
	char e[BF_FMT_LEN];

	printf("%10s %10.0f %12s %10s %10s %10s %10s\n", label, p->iops,
	       bf_fmt_rate(e, sizeof(e), p->mbps * 1e6),
	       bf_fmt_lat(a, sizeof(a), p->lat.p50),
	       bf_fmt_lat(b, sizeof(b), p->lat.p99),
	       bf_fmt_lat(c, sizeof(c), p->lat.p999),
	       bf_fmt_lat(d, sizeof(d), p->lat.max));
}

static void json_point(struct bf_json *j, const struct point *p)
{
	bf_json_u64(j, "bs", p->bs);
	bf_json_u64(j, "qd", p->qd);
	bf_json_double(j, "iops", p->iops);
	bf_json_double(j, "mbps", p->mbps);
	json_lat(j, &p->lat);
}

static int do_iops(int argc, char **argv)
{
	struct point pts[4];
	struct bf_opts o = { 0 };
	struct bf_tracer trace;
	struct bf_ctx c;
	char err[160], l[32];
	size_t n = 0, i;
	int ret = 0;

	o.op = BLKFLOOR_OP_READ;
	o.pattern = BLKFLOOR_PATTERN_RANDOM;
	o.bs = 4096;
	o.time_ns = POINT_TIME_NS;
	if (bf_opts_parse(&o, argc, argv,
			  (BENCH_OPTS & ~BF_OPT(QD)) | BF_OPT(RW) | BF_OPT(BS) |
			  BF_OPT(SIZE), 1, 1, err, sizeof(err)))
		return bf_usage(argv[0], err);
	ret = bench_open(&c, &o, o.op, &trace);
	if (ret)
		return ret;
	for (i = 0; i < 4; i++) {
		struct bf_run_req req;

		point_req(&req, &o, &c);
		req.op = o.op;
		req.pattern = o.pattern;
		req.bs = o.bs;
		req.qd = iops_qds[i];
		snprintf(l, sizeof(l), "QD%u", iops_qds[i]);
		ret = run_point(&c, &o, &req, &pts[n], l);
		if (ret)
			break;
		n++;
	}
	if (o.json) {
		struct bf_json j;

		bf_json_doc_open(&j, stdout);
		bf_json_str(&j, "device", c.dev);
		bf_json_str(&j, "rw", bf_rw_name(o.op, o.pattern));
		bf_json_arr_open(&j, "points");
		for (i = 0; i < n; i++) {
			bf_json_obj_open(&j, NULL);
			json_point(&j, &pts[i]);
			bf_json_obj_close(&j);
		}
		bf_json_arr_close(&j);
		bf_json_obj_close(&j);
	} else {
		printf("%s: %s, %s requests\n", c.dev, bf_rw_name(o.op, o.pattern),
		       bf_fmt_bs(err, sizeof(err), o.bs));
		printf("%10s %10s %12s %10s %10s %10s %10s\n", "depth", "IOPS",
		       "rate", "p50", "p99", "p99.9", "max");
		for (i = 0; i < n; i++) {
			snprintf(l, sizeof(l), "QD%u", pts[i].qd);
			print_lat_row(l, &pts[i]);
		}
	}
	return bench_close(&c, ret);
}

BLKFLOOR_COMMAND(iops, "DEV [options]", do_iops,
	"4 KiB random I/O at QD 1, 4, 32 and 128: IOPS and latency percentiles.\n"
	"  --rw MODE         randread (default); randwrite needs --yes-destroy-data\n"
	"  --bs SIZE         request size (default 4KiB)\n"
	"  --time DURATION   per depth (default 5s); --size SIZE instead\n"
	"  --interval DUR, --trace FILE (last point), --force, --json, --quiet, --seed N,\n"
	"  --data MODE, --err-limit N, --ring N, --no-own, --yes-destroy-data");

/* ---- wss ---- */

#define WSS_MAX 48

static int do_wss(int argc, char **argv)
{
	struct point pts[WSS_MAX];
	double iops[WSS_MAX];
	struct bf_opts o = { 0 };
	struct bf_tracer trace;
	struct bf_ctx c;
	char err[160], a[BF_FMT_LEN], b[BF_FMT_LEN];
	uint64_t set, min;
	size_t n = 0, i;
	int ret = 0, knee;

	o.bs = 4096;
	o.qd = 32;
	o.time_ns = POINT_TIME_NS;
	o.min = 1ULL << 30;
	if (bf_opts_parse(&o, argc, argv, BENCH_OPTS | BF_OPT(BS) | BF_OPT(MIN),
			  1, 1, err, sizeof(err)))
		return bf_usage(argv[0], err);
	ret = bench_open(&c, &o, BLKFLOOR_OP_READ, &trace);
	if (ret)
		return ret;
	min = o.min < c.caps.size ? o.min : c.caps.size;
	min = bf_round_down(min, o.bs);
	if (!min) {
		bench_close(&c, 0);
		return bf_usage(argv[0], "--min is smaller than one request");
	}
	for (set = min; n < WSS_MAX; set *= 2) {
		struct bf_run_req req;

		if (set > c.caps.size)
			set = bf_round_down(c.caps.size, o.bs);
		point_req(&req, &o, &c);
		req.op = BLKFLOOR_OP_READ;
		req.pattern = BLKFLOOR_PATTERN_RANDOM;
		req.bs = o.bs;
		req.qd = o.qd;
		req.length = set;
		bf_fmt_bs(a, sizeof(a), set);
		ret = run_point(&c, &o, &req, &pts[n], a);
		if (ret)
			break;
		iops[n] = pts[n].iops;
		n++;
		if (set >= bf_round_down(c.caps.size, o.bs))
			break;
	}
	knee = bf_knee(iops, n, 0.7);
	if (o.json) {
		struct bf_json j;

		bf_json_doc_open(&j, stdout);
		bf_json_str(&j, "device", c.dev);
		bf_json_arr_open(&j, "points");
		for (i = 0; i < n; i++) {
			bf_json_obj_open(&j, NULL);
			bf_json_u64(&j, "working_set_bytes", pts[i].region);
			json_point(&j, &pts[i]);
			bf_json_obj_close(&j);
		}
		bf_json_arr_close(&j);
		if (knee > 0) {
			bf_json_u64(&j, "knee_bytes", pts[knee].region);
			bf_json_u64(&j, "cache_estimate_bytes",
				    pts[knee - 1].region);
		} else {
			bf_json_null(&j, "knee_bytes");
		}
		bf_json_obj_close(&j);
	} else {
		printf("%s: random %s reads at QD%u over growing working sets\n",
		       c.dev, bf_fmt_bs(a, sizeof(a), o.bs), o.qd);
		printf("%12s %10s %12s %10s %10s %10s %10s\n", "working set",
		       "IOPS", "rate", "p50", "p99", "p99.9", "max");
		for (i = 0; i < n; i++) {
			printf("  ");
			print_lat_row(bf_fmt_bs(a, sizeof(a), pts[i].region),
				      &pts[i]);
		}
		if (knee > 0)
			printf("knee: from %s on, IOPS stayed below 70%% of the smaller sets' median: the mapping cache covers about %s\n",
			       bf_fmt_bs(a, sizeof(a), pts[knee].region),
			       bf_fmt_bs(b, sizeof(b), pts[knee - 1].region));
		else
			printf("no knee: from %s to %s, IOPS did not stay below 70%% of the smaller sets' median\n",
			       bf_fmt_bs(a, sizeof(a), min),
			       n ? bf_fmt_bs(b, sizeof(b), pts[n - 1].region) : "-");
	}
	return bench_close(&c, ret);
}

BLKFLOOR_COMMAND(wss, "DEV [options]", do_wss,
	"Random reads over growing working sets: the mapping-cache knee.\n"
	"Working sets from --min doubling to the whole device; the knee where\n"
	"IOPS fall estimates a DRAM-less drive's mapping cache.\n"
	"  --min SIZE        smallest working set (default 1GiB, capped)\n"
	"  --bs SIZE         request size (default 4KiB)\n"
	"  --qd N            requests in flight (default 32)\n"
	"  --time DURATION   per working set (default 5s)\n"
	"  --interval DUR, --trace FILE (last point), --force, --json, --quiet, --seed N,\n"
	"  --err-limit N, --ring N, --no-own");

/* ---- corners ---- */

struct corner {
	const char *name;
	uint8_t op, pattern;
	uint32_t bs;
};

static const struct corner corners[] = {
	{ "4K random read", BLKFLOOR_OP_READ, BLKFLOOR_PATTERN_RANDOM, 4096 },
	{ "4K random write", BLKFLOOR_OP_WRITE, BLKFLOOR_PATTERN_RANDOM, 4096 },
	{ "64K sequential read", BLKFLOOR_OP_READ, BLKFLOOR_PATTERN_SEQ, 65536 },
	{ "64K sequential write", BLKFLOOR_OP_WRITE, BLKFLOOR_PATTERN_SEQ, 65536 },
};

#define RAMP_STEPS 10

static int do_corners(int argc, char **argv)
{
	struct point pts[4][RAMP_STEPS + 1];
	bool done[4] = { false };
	struct bf_opts o = { 0 };
	struct bf_tracer trace;
	struct bf_ctx c;
	struct bf_json j;
	char err[160], l[64];
	size_t k, s;
	int ret = 0;

	o.qd = 32;
	o.time_ns = POINT_TIME_NS;
	if (bf_opts_parse(&o, argc, argv, BENCH_OPTS, 1, 1, err, sizeof(err)))
		return bf_usage(argv[0], err);
	/* (refuses nothing: the write corners are skipped without --yes) */
	ret = bench_open(&c, &o, BLKFLOOR_OP_READ, &trace);
	if (ret)
		return ret;
	if (!o.yes)
		fprintf(stderr, "blkfloor: corners: skipping the two write corners: writing to %s destroys its data; add --yes-destroy-data\n",
			c.dev);
	for (k = 0; k < 4 && !ret; k++) {
		struct bf_run_req req;

		if (corners[k].op == BLKFLOOR_OP_WRITE && !o.yes)
			continue;
		for (s = 0; s <= RAMP_STEPS && !ret; s++) {
			point_req(&req, &o, &c);
			req.op = corners[k].op;
			req.pattern = corners[k].pattern;
			req.bs = corners[k].bs;
			req.qd = o.qd;
			if (s) {
				double r = pts[k][0].iops * s / RAMP_STEPS;

				req.rate_iops = r >= 1 ? (uint64_t)r : 1;
				snprintf(l, sizeof(l), "%s %zu%%",
					 corners[k].name, s * 100 / RAMP_STEPS);
			} else {
				snprintf(l, sizeof(l), "%s max", corners[k].name);
			}
			ret = run_point(&c, &o, &req, &pts[k][s], l);
		}
		if (!ret)
			done[k] = true;
	}
	if (o.json) {
		bf_json_doc_open(&j, stdout);
		bf_json_str(&j, "device", c.dev);
		bf_json_arr_open(&j, "corners");
		for (k = 0; k < 4; k++) {
			if (!done[k])
				continue;
			bf_json_obj_open(&j, NULL);
			bf_json_str(&j, "name", corners[k].name);
			bf_json_str(&j, "rw", bf_rw_name(corners[k].op,
							 corners[k].pattern));
			bf_json_u64(&j, "bs", corners[k].bs);
			bf_json_double(&j, "max_iops", pts[k][0].iops);
			bf_json_arr_open(&j, "ramp");
			for (s = 0; s <= RAMP_STEPS; s++) {
				bf_json_obj_open(&j, NULL);
				bf_json_u64(&j, "target_percent",
					    s ? s * 100 / RAMP_STEPS : 100);
				bf_json_u64(&j, "target_iops", pts[k][s].rate_iops);
				json_point(&j, &pts[k][s]);
				bf_json_obj_close(&j);
			}
			bf_json_arr_close(&j);
			bf_json_obj_close(&j);
		}
		bf_json_arr_close(&j);
		bf_json_obj_close(&j);
	} else {
		for (k = 0; k < 4; k++) {
			if (!done[k])
				continue;
			printf("%s at QD%u on %s: max %.0f IOPS\n", corners[k].name,
			       o.qd, c.dev, pts[k][0].iops);
			printf("%10s %10s %12s %10s %10s %10s %10s\n", "load",
			       "IOPS", "rate", "p50", "p99", "p99.9", "max");
			for (s = 1; s <= RAMP_STEPS; s++) {
				snprintf(l, sizeof(l), "%zu%%", s * 100 / RAMP_STEPS);
				print_lat_row(l, &pts[k][s]);
			}
		}
	}
	return bench_close(&c, ret);
}

BLKFLOOR_COMMAND(corners, "DEV [options]", do_corners,
	"The four corners: latency against delivered IOPS under a load ramp.\n"
	"4K random read/write and 64K sequential read/write, each measured at\n"
	"full speed and then ramped 10%..100% of it with an IOPS cap:\n"
	"delivered IOPS against latency. Write corners need --yes-destroy-data.\n"
	"  --qd N            requests in flight (default 32)\n"
	"  --time DURATION   per point (default 5s; 11 points per corner)\n"
	"  --interval DUR, --trace FILE (last point), --force, --json, --quiet, --seed N,\n"
	"  --err-limit N, --ring N, --no-own, --yes-destroy-data");
