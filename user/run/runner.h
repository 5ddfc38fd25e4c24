/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The run engine (runner.c): start a run, follow it to its end (multicast
 * and ring dump), stop it on SIGINT/SIGTERM; the replies it parses.
 */
#ifndef BLKFLOOR_RUNNER_H
#define BLKFLOOR_RUNNER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "nl.h"
#include "run.h"

/* RUN_GET of one run. 0 or a negative errno. */
int bf_run_get(struct bf_nl *nl, uint32_t id, struct bf_run_info *ri);
/* RUN_STOP: answered at once, the run then drains (state stopping). */
int bf_run_stop(struct bf_nl *nl, uint32_t id);

/* Parsers of replies. */
int bf_run_info_parse(const struct bf_nl_msg *m, struct bf_run_info *ri);
int bf_iv_parse(const struct nlattr *nest, struct bf_iv *iv,
		struct bf_hist *scratch);
int bf_caps_get(struct bf_nl *nl, const char *dev, struct bf_caps *c);
/*
 * ERROR_GET: run @id's error log into res->errlog (replacing what was
 * there). 0 or a negative errno.
 */
int bf_err_log_get(struct bf_nl *nl, uint32_t id, struct bf_run_result *res);
int bf_err_entry_parse(const struct nlattr *nest, struct bf_err_entry *e);

struct bf_tracer;

/*
 * Start a run, show progress, wait for its end (stopping it on SIGINT or
 * SIGTERM), fetch intervals the multicast stream lost. Every interval goes
 * to the trace @t (if not NULL) as it arrives, lost ones as gaps, and the
 * trailer at the end. Returns 0 when the run ended (in any state: check
 * res->info.state), or a negative errno when it could not be started or
 * followed (message printed).
 */
int bf_run_exec(struct bf_nl *nl, const struct bf_run_req *req,
		struct bf_progress *p, struct bf_run_result *res,
		struct bf_tracer *t);

/*
 * Follow run @id that is already running (or has ended), from interval
 * @from on: what the kernel's ring still holds first, then the multicast
 * stream (with @stream) until the run ends. SIGINT/SIGTERM detach
 * (res->detached) and leave the run alone. Returns 0 when the run ended
 * or was left, or a negative errno (message printed).
 */
int bf_run_follow(struct bf_nl *nl, uint32_t id, uint64_t from, bool stream,
		  struct bf_progress *p, struct bf_run_result *res,
		  struct bf_tracer *t);

/* Refuse destructive ops without --yes-destroy-data; prints the refusal. */
bool bf_refuse_destroy(const char *dev, const struct bf_caps *c,
		       uint8_t op, bool yes);

#endif /* BLKFLOOR_RUNNER_H */
