/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A trace written while its run goes on: created (exclusively) and checked
 * before the run starts, each interval appended with one write(2) as it
 * arrives, the trailer at the end. A write that fails (disk full, EIO)
 * stops the writing, not the run: the file keeps every whole line written
 * so far, the failure is reported once, and blkfloor attach or dump
 * completes the trace from the kernel later.
 */
#ifndef BLKFLOOR_TRACEOUT_H
#define BLKFLOOR_TRACEOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "nl.h"
#include "pathmon.h"
#include "run.h"

struct bf_tracer {
	const char *path;
	int fd;
	uint64_t off;		/* end of the last whole line written */
	bool created;		/* this command created the file */
	bool header_done;
	bool ended;		/* the trailer was written */
	bool failed;		/* a write failed; nothing more is written */
	int err;		/* errno of that failure */
	uint32_t run_id;
	uint64_t gaps_before;	/* gap intervals already in a resumed file */
	uint64_t dev_size;
	double last_sync;	/* CLOCK_MONOTONIC seconds */
	const struct bf_pathmon *pm;	/* the path followed live, or NULL */
};

/*
 * Preflight: create @path (O_EXCL unless @force), check it is writable and
 * that its filesystem has room for @expect_bytes. On failure the file is
 * removed again (if this created it), the reason printed, and a negative
 * errno returned.
 */
int bf_tracer_create(struct bf_tracer *t, const char *path, bool force,
		     uint64_t expect_bytes, uint64_t dev_size);

/*
 * Open @path to complete the trace of run @run_id: an existing file must
 * be a trace of that run without a trailer; a half-written last line is
 * cut off. A missing file is created. *@next is the first interval index
 * the file lacks. Returns 0 or a negative errno (printed).
 */
int bf_tracer_resume(struct bf_tracer *t, const char *path, uint32_t run_id,
		     uint64_t dev_size, uint64_t *next);

/* Write to an open descriptor (standard output) instead of a file. */
void bf_tracer_fd(struct bf_tracer *t, int fd, const char *name);

/* The header, from the kernel's view of the run (once). */
void bf_tracer_start(struct bf_tracer *t, struct bf_nl *nl,
		     const struct bf_run_info *ri);
void bf_tracer_iv(struct bf_tracer *t, const struct bf_iv *iv);
void bf_tracer_gap(struct bf_tracer *t, uint64_t first, uint64_t last);
/* An event on the path, @ts seconds after the start of the run. */
void bf_tracer_event(struct bf_tracer *t, double ts, const char *kind,
		     const char *msg, int msglen);
/* The error log of an ended run, before its trailer. */
/*
 * "# KEY: TEXT", a comment line readers skip: what the command did around
 * the run (# stop:, # experiment:). Newlines in TEXT become spaces; the
 * line is cut at BF_TRACE_NOTE_MAX (an experiment's outcome, its words
 * included, fits: every reader of a trace reads lines of any length).
 */
#define BF_TRACE_NOTE_MAX	1024
void bf_tracer_note(struct bf_tracer *t, const char *key, const char *text);
void bf_tracer_errors(struct bf_tracer *t, const struct bf_run_result *res);
/*
 * "# run_latency_us:": the percentiles of the run's merged histogram
 * (every interval of the run received by this command).
 */
void bf_tracer_run_lat(struct bf_tracer *t, const struct bf_run_result *res);
/* The trailer of an ended run; @dropped counts this session's gaps. */
void bf_tracer_end(struct bf_tracer *t, const struct bf_run_info *ri,
		   uint64_t dropped);
/*
 * Flush to the disk and close. Returns 0 if every line reached the file,
 * or the negative errno of the failure (already reported).
 */
int bf_tracer_close(struct bf_tracer *t);
/*
 * Start the file over for the next run (a series that keeps the trace of
 * its last run only): the file is emptied, and the next bf_tracer_start()
 * writes a new header. A failed trace stays failed. 0 or a negative errno;
 * a pipe cannot be emptied: there the traces follow each other.
 */
int bf_tracer_rewind(struct bf_tracer *t);
/* Remove a file this command created before any run started. */
void bf_tracer_discard(struct bf_tracer *t);

#endif /* BLKFLOOR_TRACEOUT_H */
