// SPDX-License-Identifier: GPL-2.0
/*
 * attach, dump: a run's intervals after the command that started it is
 * gone: from the kernel's ring, then (attach) from the multicast stream,
 * into a trace that may already hold the first part.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "trace.h"
#include "traceout.h"
#include "units.h"

/*
 * Run @arg ("ID") of command @cmd: connect and read its state. Returns
 * EXIT_OK with @c open, or the exit code (message printed, @c closed).
 */
static int open_run(const char *arg, const char *cmd, struct bf_ctx *c,
		    uint32_t *id, struct bf_run_info *ri)
{
	uint64_t v;
	int ret;

	if (bf_parse_uint(arg, UINT32_MAX, &v))
		return bf_usage(cmd, "ID must be a run id (see blkfloor list)");
	*id = (uint32_t)v;
	if (bf_ctx_open(c, NULL))
		return EXIT_FAIL;
	ret = bf_run_get(&c->nl, *id, ri);
	if (ret) {
		fprintf(stderr, "blkfloor: run %u: %s\n", *id, strerror(-ret));
		bf_ctx_close(c);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* Bytes and time the run was asked for, for the progress and its ETA. */
static void run_totals(const struct bf_run_info *ri, uint64_t *bytes,
		       uint64_t *ns)
{
	*ns = ri->max_time_ns;
	*bytes = ri->max_bytes;
	if (!*bytes && !*ns)
		*bytes = ri->length;
}

static int do_attach(int argc, char **argv)
{
	struct bf_opts o = { 0 };
	struct bf_run_result res;
	struct bf_run_info ri;
	struct bf_progress p;
	struct bf_tracer t;
	uint64_t bytes, ns;
	uint64_t from = 0, v;
	bool resumed = false;
	uint32_t id;
	struct bf_ctx c;
	char err[160];
	int ret;

	if (bf_opts_parse(&o, argc, argv, BF_OPT(TRACE) | BF_OPT(QUIET) |
			  BF_OPT(JSON), 1, 1, err, sizeof(err)))
		return bf_usage(argv[0], err);
	/*
	 * A trace that exists is checked (and locked) before the module is
	 * asked anything: a file this run cannot be appended to is refused
	 * as it is. A new one is created only once the run is known.
	 */
	if (bf_parse_uint(o.pos[0], UINT32_MAX, &v))
		return bf_usage(argv[0], "ID must be a run id (see blkfloor list)");
	id = (uint32_t)v;
	if (o.trace && !access(o.trace, F_OK)) {
		if (bf_tracer_resume(&t, o.trace, id, 0, &from))
			return EXIT_REFUSED;
		resumed = true;
	}
	ret = open_run(o.pos[0], argv[0], &c, &id, &ri);
	if (ret) {
		if (resumed)
			bf_tracer_close(&t);
		return ret;
	}
	if (o.trace && !resumed && bf_tracer_resume(&t, o.trace, id, 0, &from)) {
		ret = EXIT_REFUSED;
		goto out;
	}
	if (o.trace)
		c.trace = &t;
	run_totals(&ri, &bytes, &ns);
	bf_progress_init(&p, stderr, o.quiet || o.json, ri.interval_ns,
			 bytes, ns, NULL);
	bf_result_init(&res);
	res.keep_iv = false;
	if (!o.quiet && !o.json)
		fprintf(stderr, "attach: run %u on %s, %s, from interval %llu%s\n",
			id, ri.dev, bf_state_name(ri.state),
			(unsigned long long)from,
			o.trace ? " (appending to the trace)" : "");
	ret = bf_run_follow(&c.nl, id, from, true, &p, &res, c.trace);
	if (ret) {
		bf_trace_finish(&c);
		bf_result_free(&res);
		ret = EXIT_FAIL;
		goto out;
	}
	if (res.detached) {
		fprintf(stderr, "blkfloor: left run %u, which goes on; its trace is not complete (attach again to complete it)\n",
			id);
		ret = EXIT_FAIL;
	} else {
		if (o.json) {
			struct bf_json j;

			bf_json_doc_open(&j, stdout);
			bf_run_json_summary(&j, &res);
			bf_json_obj_close(&j);
		} else {
			bf_run_print_summary(stdout, &res);
		}
		ret = bf_run_exit_code(&res);
	}
	if (bf_trace_finish(&c))
		ret = EXIT_FAIL;
	bf_result_free(&res);
out:
	bf_ctx_close(&c);
	return ret;
}

BLKFLOOR_COMMAND(attach, "ID [--trace FILE] [--quiet] [--json]", do_attach,
	"Follow run ID again: what the kernel's ring holds, then every interval\n"
	"until the run ends, with progress and the summary. For a run that goes\n"
	"on after its command died (sustain and fill by default, or --no-own).\n"
	"  --trace FILE      append to FILE, the trace the dead command was\n"
	"                    writing (its cut last line is removed), or create it;\n"
	"                    intervals the ring no longer holds are '# gap:' lines\n"
	"  --quiet, --json   no progress; the summary as JSON\n"
	"Ctrl-C leaves the run alone (blkfloor stop ID ends it) and exits 1:\n"
	"the trace is then not complete. Exits 0 when the run ended done.");

static int do_dump(int argc, char **argv)
{
	struct bf_opts o = { 0 };
	struct bf_run_result res;
	struct bf_run_info ri;
	struct bf_tracer t;
	struct bf_ctx c;
	char err[160];
	uint32_t id;
	int ret;

	if (bf_opts_parse(&o, argc, argv, BF_OPT(TRACE) | BF_OPT(FORCE), 1, 1,
			  err, sizeof(err)))
		return bf_usage(argv[0], err);
	ret = open_run(o.pos[0], argv[0], &c, &id, &ri);
	if (ret)
		return ret;
	if (o.trace) {
		if (bf_tracer_create(&t, o.trace, o.force,
				     bf_trace_expect_bytes(ri.intervals), 0)) {
			ret = EXIT_REFUSED;
			goto out;
		}
	} else {
		bf_tracer_fd(&t, STDOUT_FILENO, "standard output");
	}
	c.trace = &t;
	bf_result_init(&res);
	res.keep_iv = false;
	ret = bf_run_follow(&c.nl, id, 0, false, NULL, &res, &t);
	if (ret) {
		bf_trace_finish(&c);
		bf_result_free(&res);
		ret = EXIT_FAIL;
		goto out;
	}
	fprintf(stderr, "run %u: %llu intervals", id,
		(unsigned long long)res.received);
	if (res.lost)
		fprintf(stderr, ", %llu lost (no longer in the kernel's ring)",
			(unsigned long long)res.lost);
	if (res.detached)
		fprintf(stderr, "; the run goes on: this trace has no trailer, blkfloor attach %u --trace FILE completes it",
			id);
	fputc('\n', stderr);
	ret = bf_trace_finish(&c) ? EXIT_FAIL : EXIT_OK;
	bf_result_free(&res);
out:
	bf_ctx_close(&c);
	return ret;
}

BLKFLOOR_COMMAND(dump, "ID [--trace FILE [--force]]", do_dump,
	"Write the intervals of run ID that the kernel's ring still holds as a\n"
	"trace (blkfloor-trace v1), to standard output or FILE. Intervals the\n"
	"ring no longer holds are '# gap:' lines. A run that ended gets the\n"
	"trailer; a running one does not (attach completes it).\n"
	"  --trace FILE      write FILE (it must not exist)\n"
	"  --force           overwrite FILE");
