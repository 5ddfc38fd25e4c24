/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the command files: open the family and the device,
 * usage errors, one measured run with progress.
 */
#ifndef BLKFLOOR_CLI_H
#define BLKFLOOR_CLI_H

#include "blkfloor.h"
#include "nl.h"
#include "opts.h"
#include "progress.h"
#include "report.h"
#include "result.h"
#include "run.h"
#include "runner.h"

struct bf_tracer;

struct bf_ctx {
	struct bf_nl nl;
	struct bf_caps caps;
	const char *dev;
	struct bf_tracer *trace;	/* from bf_preflight(), or NULL */
	bool flat;			/* do not keep every interval */
	/* bf_measure() passes these on to the run (see struct bf_run_result) */
	bool (*watch)(void *arg, const struct bf_iv *iv);
	void *watch_arg;
	const char *status;		/* the progress line's tail */
};

/* Print "blkfloor CMD: why" and return EXIT_USAGE. */
int bf_usage(const char *cmd, const char *why);
/* Connect, and read DEV_CAPS when @dev is given. EXIT_OK or EXIT_FAIL. */
int bf_ctx_open(struct bf_ctx *c, const char *dev);
void bf_ctx_close(struct bf_ctx *c);

/* Request fields common to every run from the options (and a seed). */
void bf_req_base(struct bf_run_req *req, const struct bf_opts *o,
		 const char *dev);
/* A random seed when --seed was not given. */
uint64_t bf_random_seed(void);

/*
 * One run with live progress on stderr (unless --quiet). Returns 0 when the
 * run ended, negative errno otherwise. @res is initialised here; free it.
 */
int bf_measure(struct bf_ctx *c, const struct bf_run_req *req,
	       const struct bf_opts *o, const char *label,
	       struct bf_run_result *res);

/*
 * Before anything is submitted: the device is the one DEV_CAPS described
 * (a block device whose sysfs name and size match), and the trace (with
 * --trace) is created (exclusively unless --force), writable, and on a
 * filesystem with room for the run's expected size. On success c->trace
 * is @t (or NULL without --trace). EXIT_OK, or EXIT_REFUSED with the reason
 * printed (one line, no help) and nothing left behind.
 */
int bf_preflight(struct bf_ctx *c, const struct bf_opts *o,
		 const struct bf_run_req *req, struct bf_tracer *t);
/*
 * The trace part of bf_preflight(), for a command with more than one trace
 * (stability): create @path for a run like @req in @t. EXIT_OK, or
 * EXIT_REFUSED with the reason printed and nothing left behind. The caller
 * sets c->trace to @t for the run that writes it.
 */
int bf_preflight_trace(const struct bf_ctx *c, const char *path, bool force,
		       const struct bf_run_req *req, struct bf_tracer *t);
/*
 * Close the trace of bf_preflight(): flushed and closed after a run that
 * started, removed if none did. 0, or a negative errno if the trace lost
 * lines (reported when it happened).
 */
int bf_trace_finish(struct bf_ctx *c);

/* Round @v down to a multiple of @m (m > 0). */
static inline uint64_t bf_round_down(uint64_t v, uint64_t m)
{
	return m ? v / m * m : v;
}

#endif /* BLKFLOOR_CLI_H */
