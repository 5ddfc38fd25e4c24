// SPDX-License-Identifier: GPL-2.0
/*
 * stability: the read-vs-write transport attribution. A sequential read and
 * then a sequential write over the same region of one device; if reads hold
 * steady while writes swing, the fault is in the drive, not the cable or
 * bridge (user/analysis/attrib.c decides). With --from-traces, the same verdict on
 * two recorded curves, no device needed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "attrib.h"
#include "classify.h"
#include "cli.h"
#include "input.h"
#include "traceout.h"
#include "units.h"

#define STAB_OPTS (BF_OPT(BS) | BF_OPT(QD) | BF_OPT(OFFSET) | \
		   BF_OPT(SIZE) | BF_OPT(INTERVAL) | BF_OPT(RING) | \
		   BF_OPT(SEED) | BF_OPT(NO_OWN) | BF_OPT(JSON) | \
		   BF_OPT(QUIET) | BF_OPT(YES) | BF_OPT(FORCE))
#define STAB_DEFAULT_SIZE	256000000ULL	/* 256 MB */
#define STAB_DEFAULT_INTERVAL	100000000ULL	/* 100 ms */

/* The options only this command has, taken out before bf_opts_parse(). */
struct stab_args {
	bool from_traces;
	const char *trace_read, *trace_write;
};

/*
 * Move --from-traces, --trace-read F and --trace-write F from @argv into
 * @sa; the rest goes to @out (argc returned in *@outc).
 */
static int take_own_opts(int argc, char **argv, char **out, int *outc,
			 struct stab_args *sa, char *err, size_t errlen)
{
	static const char *const names[] = { "--trace-read", "--trace-write" };
	int i, k, n = 0;

	for (i = 0; i < argc; i++) {
		const char *a = argv[i], *val = NULL;

		if (i > 0 && !strcmp(a, "--")) {
			while (i < argc)
				out[n++] = argv[i++];
			break;
		}
		if (i > 0 && !strcmp(a, "--from-traces")) {
			sa->from_traces = true;
			continue;
		}
		for (k = 0; i > 0 && k < 2; k++) {
			size_t l = strlen(names[k]);

			if (strncmp(a, names[k], l) || (a[l] && a[l] != '='))
				continue;
			if (a[l] == '=')
				val = a + l + 1;
			else if (i + 1 < argc)
				val = argv[++i];
			if (!val || !*val) {
				snprintf(err, errlen, "option '%s' needs a file name",
					 names[k]);
				return -EINVAL;
			}
			if (k)
				sa->trace_write = val;
			else
				sa->trace_read = val;
			break;
		}
		if (!val)
			out[n++] = argv[i];
	}
	out[n] = NULL;
	*outc = n;
	return 0;
}

/* The request size recorded in a blkfloor trace ("# bs: N"), else 0. */
static double trace_bs(const struct bf_input *in)
{
	unsigned long long bs = 0;
	const char *p = in->buf;

	if (in->ld.format != BF_FORMAT_TRACE)
		return 0;
	while (*p == '#') {
		if (sscanf(p, "# bs: %llu", &bs) == 1)
			break;
		p = strchrnul(p, '\n');
		p += *p == '\n';
	}
	return (double)bs;
}

static void print_result(const struct bf_attrib *a, bool json)
{
	if (json)
		bf_attrib_json(stdout, a);
	else
		bf_attrib_print(stdout, a);
}

static int too_few(const char *cmd, size_t nrd, size_t nwr)
{
	fprintf(stderr,
		"blkfloor %s: too few intervals to judge (read %zu, write %zu; each curve needs %d): use a larger --size or a smaller --interval\n",
		cmd, nrd, nwr, BF_ATTRIB_MIN_SAMPLES);
	return EXIT_FAIL;
}

/*
 * --from-traces READ WRITE: a read curve, then a write one. A file whose
 * op is known (a trace's "# op:", a fio log's direction) must be the one
 * its place says.
 */
static int from_traces(const char *cmd, const struct bf_opts *o)
{
	static const char *const want[2] = { "read", "write" };
	struct bf_input in[2];
	struct bf_attrib a;
	char err[400], *w = NULL;
	size_t wl = 0;
	FILE *wf;
	int ret, i, k;

	for (i = 0; i < 2; i++) {
		if (bf_input_read(&in[i], o->pos[i], BF_FORMAT_AUTO, err,
				  sizeof(err))) {
			for (k = 0; k < i; k++)
				bf_input_free(&in[k]);
			return bf_refuse(cmd, o->json, "%s", err);
		}
	}
	if (!strcmp(in[0].ld.op, "write") && !strcmp(in[1].ld.op, "read")) {
		ret = bf_refuse(cmd, o->json, "%s is a write and %s a read: the traces are swapped (--from-traces READ WRITE)",
				in[0].name, in[1].name);
		goto out;
	}
	for (i = 0; i < 2; i++) {
		if (in[i].ld.op[0] && strcmp(in[i].ld.op, want[i])) {
			ret = bf_refuse(cmd, o->json, "%s is a %s curve, not a %s one (--from-traces READ WRITE)",
					in[i].name, in[i].ld.op, want[i]);
			goto out;
		}
	}
	for (i = 0; i < 2; i++)
		bf_input_say(cmd, &in[i]);
	ret = bf_attrib(in[0].ser.s, in[0].ser.n, trace_bs(&in[0]),
			in[1].ser.s, in[1].ser.n, trace_bs(&in[1]), &a);
	if (ret == -EINVAL) {
		ret = bf_refuse(cmd, o->json, "too few intervals to judge (read %zu, write %zu; each curve needs %d)",
				in[0].ser.n, in[1].ser.n, BF_ATTRIB_MIN_SAMPLES);
		goto out;
	}
	if (ret) {
		fprintf(stderr, "blkfloor %s: %s\n", cmd, strerror(-ret));
		ret = EXIT_FAIL;
		goto out;
	}
	if (!o->json) {
		print_result(&a, false);
		ret = EXIT_OK;
		goto out;
	}
	/* the warnings of both files, each named */
	wf = open_memstream(&w, &wl);
	for (i = 0; wf && i < 2; i++) {
		for (const char *p = in[i].ld.warn; *p;) {
			int l = (int)strcspn(p, "\n");

			fprintf(wf, "%s%s: %.*s", ftell(wf) ? "\n" : "",
				in[i].name, l, p);
			p += l + (p[l] == '\n');
		}
	}
	if (wf)
		fclose(wf);
	{
		struct bf_json j;

		bf_json_doc_open(&j, stdout);
		bf_attrib_json_members(&j, &a);
		bf_json_warnings(&j, "warnings", w);
		bf_json_obj_close(&j);
	}
	free(w);
	ret = EXIT_OK;
out:
	bf_input_free(&in[0]);
	bf_input_free(&in[1]);
	return ret;
}

/*
 * One sequential pass of @op over the region; the curve goes to @ser and
 * the trace (if asked) to *@trace, created by the preflight, written as
 * the run goes and closed here (*@trace is then NULL). Returns an exit
 * code.
 */
static int pass(struct bf_ctx *c, struct bf_run_req *req,
		const struct bf_opts *o, uint8_t op, struct bf_tracer **trace,
		struct bf_series *ser)
{
	struct bf_run_result res;
	int ret;

	req->op = op;
	req->flags &= ~BLKFLOOR_F_DESTRUCTIVE;
	if (bf_op_destructive(op) && o->yes)
		req->flags |= BLKFLOOR_F_DESTRUCTIVE;
	c->trace = *trace;
	*trace = NULL;
	if (bf_measure(c, req, o, bf_op_name(op), &res)) {
		bf_result_free(&res);
		bf_trace_finish(c);
		return EXIT_FAIL;
	}
	ret = bf_run_exit_code(&res);
	if (!ret && res.interrupted)
		ret = EXIT_FAIL;
	if (bf_trace_finish(c))
		ret = EXIT_FAIL;
	if (!ret && bf_result_series(&res, ser))
		ret = EXIT_FAIL;
	bf_result_free(&res);
	return ret;
}

static int on_device(const char *cmd, const struct bf_opts *o,
		     const struct stab_args *sa)
{
	struct bf_series rd = { 0 }, wr = { 0 };
	char a[BF_FMT_LEN], b[BF_FMT_LEN], d[BF_FMT_LEN];
	struct bf_tracer trd, twr, *tr = NULL, *tw = NULL;
	struct bf_run_req req;
	struct bf_attrib at;
	struct bf_ctx c;
	uint64_t len;
	int ret;

	if (bf_ctx_open(&c, o->pos[0]))
		return EXIT_FAIL;
	if (bf_refuse_destroy(c.dev, &c.caps, BLKFLOOR_OP_WRITE, o->yes)) {
		ret = EXIT_FAIL;
		goto out;
	}
	if (o->offset >= c.caps.size) {
		fprintf(stderr, "blkfloor %s: --offset is beyond the end of %s (%s)\n",
			cmd, c.dev, bf_fmt_bytes(a, sizeof(a), c.caps.size));
		ret = EXIT_USAGE;
		goto out;
	}
	if (c.caps.lbs && (o->bs % c.caps.lbs || o->offset % c.caps.lbs)) {
		fprintf(stderr, "blkfloor %s: --bs and --offset must be multiples of the logical block size (%u bytes)\n",
			cmd, c.caps.lbs);
		ret = EXIT_USAGE;
		goto out;
	}
	len = (o->set & BF_OPT(SIZE)) ? o->size : STAB_DEFAULT_SIZE;
	if (len > c.caps.size - o->offset)
		len = c.caps.size - o->offset;
	len = bf_round_down(len, o->bs);
	if (!len) {
		fprintf(stderr, "blkfloor %s: the region is smaller than one request (%s)\n",
			cmd, bf_fmt_bs(a, sizeof(a), o->bs));
		ret = EXIT_USAGE;
		goto out;
	}

	bf_req_base(&req, o, c.dev);
	req.pattern = BLKFLOOR_PATTERN_SEQ;
	req.bs = o->bs;
	req.qd = o->qd;
	req.offset = o->offset;
	req.length = len;
	/* both traces are created before the read pass starts */
	ret = bf_preflight(&c, o, &req, NULL);
	if (!ret && sa->trace_read) {
		ret = bf_preflight_trace(&c, sa->trace_read, o->force, &req,
					 &trd);
		tr = ret ? NULL : &trd;
	}
	if (!ret && sa->trace_write) {
		ret = bf_preflight_trace(&c, sa->trace_write, o->force, &req,
					 &twr);
		tw = ret ? NULL : &twr;
	}
	if (ret)
		goto out;
	if (!o->json && !o->quiet)
		fprintf(stderr, "%s: sequential %s reads, then writes, at QD%u over %s of %s, %s intervals\n",
			cmd, bf_fmt_bs(a, sizeof(a), o->bs), o->qd,
			bf_fmt_bytes(b, sizeof(b), len), c.dev,
			bf_fmt_duration(d, sizeof(d), o->interval_ns / 1e9));

	ret = pass(&c, &req, o, BLKFLOOR_OP_READ, &tr, &rd);
	if (!ret)
		ret = pass(&c, &req, o, BLKFLOOR_OP_WRITE, &tw, &wr);
	if (ret)
		goto out;
	ret = bf_attrib(rd.s, rd.n, o->bs, wr.s, wr.n, o->bs, &at);
	if (ret == -EINVAL) {
		ret = too_few(cmd, rd.n, wr.n);
		goto out;
	}
	if (ret) {
		fprintf(stderr, "blkfloor %s: %s\n", cmd, strerror(-ret));
		ret = EXIT_FAIL;
		goto out;
	}
	if (o->json) {
		struct bf_json j;

		bf_json_doc_open(&j, stdout);
		bf_attrib_json_members(&j, &at);
		bf_json_str(&j, "device", c.dev);
		bf_json_u64(&j, "offset", o->offset);
		bf_json_u64(&j, "size_bytes", len);
		bf_json_u64(&j, "bs", o->bs);
		bf_json_u64(&j, "qd", o->qd);
		bf_json_u64(&j, "interval_ns", o->interval_ns);
		bf_json_obj_close(&j);
	} else {
		print_result(&at, false);
	}
	ret = EXIT_OK;
out:
	/* a trace whose pass did not run: removed */
	if (tr)
		bf_tracer_discard(tr);
	if (tw)
		bf_tracer_discard(tw);
	bf_series_free(&rd);
	bf_series_free(&wr);
	bf_ctx_close(&c);
	return ret;
}

static int do_stability(int argc, char **argv)
{
	struct stab_args sa = { 0 };
	struct bf_opts o;
	char err[160], **av;
	int ac, ret;

	av = calloc(argc + 1, sizeof(*av));
	if (!av)
		return EXIT_FAIL;
	if (take_own_opts(argc, argv, av, &ac, &sa, err, sizeof(err))) {
		ret = bf_usage(argv[0], err);
		goto out;
	}
	memset(&o, 0, sizeof(o));
	o.bs = 128 << 10;
	o.qd = 32;
	o.interval_ns = STAB_DEFAULT_INTERVAL;
	if (sa.from_traces) {
		if (sa.trace_read || sa.trace_write) {
			ret = bf_usage(argv[0], "--trace-read and --trace-write record a device run; --from-traces reads two recorded ones");
			goto out;
		}
		if (bf_opts_parse(&o, ac, av, BF_OPT(JSON) | BF_OPT(QUIET),
				  0, 2, err, sizeof(err))) {
			ret = bf_usage(argv[0], err);
			goto out;
		}
		if (o.npos != 2) {
			ret = bf_usage(argv[0], "--from-traces needs READ and WRITE trace files");
			goto out;
		}
		ret = from_traces(argv[0], &o);
		goto out;
	}
	if (bf_opts_parse(&o, ac, av, STAB_OPTS, 1, 1, err, sizeof(err))) {
		ret = bf_usage(argv[0], err);
		goto out;
	}
	if (sa.trace_read && sa.trace_write &&
	    !strcmp(sa.trace_read, sa.trace_write)) {
		ret = bf_usage(argv[0], "--trace-read and --trace-write name the same file");
		goto out;
	}
	ret = on_device(argv[0], &o, &sa);
out:
	free(av);
	return ret;
}

BLKFLOOR_COMMAND(stability, "DEV --yes-destroy-data [options] | --from-traces READ WRITE",
	do_stability,
	"Is a swinging write rate the drive's fault or the link's?\n"
	"Reads a region of DEV sequentially, then writes it, and compares the two\n"
	"curves: median, stdev, p10..p90 and the class of each. Reads steady and\n"
	"writes swinging: the fault is in the drive (verdict drive); reads swing\n"
	"too: the cable, bridge or host (link); both steady: none. A curve swings\n"
	"when its p25..p75 spread exceeds 2 sd of the noise a steady link shows\n"
	"(15 %, plus one completion per interval); each needs 8 intervals or more.\n"
	"  --size SIZE       bytes to read, then write (default 256MB, capped to\n"
	"                    the device)\n"
	"  --offset SIZE     start of the region (default 0)\n"
	"  --bs SIZE         bytes per request (default 128KiB)\n"
	"  --qd N            requests in flight (default 32)\n"
	"  --interval DUR    statistics interval (default 100ms)\n"
	"  --trace-read F, --trace-write F  record each curve (blkfloor-trace v1),\n"
	"                    as it goes; both are created before any I/O\n"
	"  --force           overwrite an existing trace file\n"
	"  --seed N, --ring N, --no-own\n"
	"  --json            one object: verdict, read, write, explanation\n"
	"  --quiet           no live progress\n"
	"  --yes-destroy-data  required: the write pass overwrites the region\n"
	"  --from-traces READ WRITE  judge two recorded curves (trace, fio\n"
	"                    bandwidth log or CSV); no device, no writes");
