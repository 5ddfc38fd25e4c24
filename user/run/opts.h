/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Command-line options shared by the run-like commands. Parsing is pure: it
 * fills struct bf_opts and never touches netlink, so it is unit-tested.
 */
#ifndef BLKFLOOR_OPTS_H
#define BLKFLOOR_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sustain.h"	/* enum bf_until */

enum bf_optid {
	BF_O_RW, BF_O_BS, BF_O_QD, BF_O_OFFSET, BF_O_SIZE, BF_O_TIME,
	BF_O_LOOPS, BF_O_RATE, BF_O_INTERVAL, BF_O_DATA, BF_O_SEED, BF_O_FUA,
	BF_O_PREFLUSH, BF_O_ERR_LIMIT, BF_O_RING, BF_O_NO_OWN, BF_O_TRACE,
	BF_O_JSON, BF_O_QUIET, BF_O_YES, BF_O_PERCENT, BF_O_MIN,
	BF_O_FORMAT, BF_O_OUTPUT,
	BF_O_OWN, BF_O_FORCE, BF_O_TEMP_FILE, BF_O_NO_MERGE, BF_O_FAILFAST,
	BF_O_ERR_LOG, BF_O_UNTIL, BF_O_DIAGNOSE, BF_O_TRIM, BF_O_GAPS,
	BF_O_WORKLOAD,
	BF_O_NR,
};

#define BF_OPT(x)	(1ULL << BF_O_##x)
/* What every command that starts runs accepts. */
#define BF_OPTS_COMMON	(BF_OPT(INTERVAL) | BF_OPT(RING) | BF_OPT(NO_OWN) | \
			 BF_OPT(OWN) | BF_OPT(FORCE) | BF_OPT(TEMP_FILE) | \
			 BF_OPT(TRACE) | BF_OPT(JSON) | BF_OPT(QUIET) | \
			 BF_OPT(YES) | BF_OPT(FUA) | BF_OPT(PREFLUSH) | \
			 BF_OPT(NO_MERGE) | BF_OPT(FAILFAST) | \
			 BF_OPT(ERR_LIMIT) | BF_OPT(SEED) | BF_OPT(DATA) | \
			 BF_OPT(ERR_LOG))

#define BF_MAX_POS 64
#define BF_MAX_GAPS 6

struct bf_opts {
	uint64_t set;			/* BF_OPT() bits seen */
	const char *pos[BF_MAX_POS];	/* positional arguments */
	int npos;
	uint8_t op;			/* enum blkfloor_op */
	uint8_t pattern;		/* enum blkfloor_pattern */
	uint8_t data;			/* enum blkfloor_data */
	uint32_t bs;
	uint32_t qd;
	uint64_t offset;
	uint64_t size;
	uint64_t time_ns;
	uint32_t loops;
	uint64_t rate_bps;
	uint64_t rate_iops;
	uint64_t interval_ns;
	uint64_t seed;
	bool fua;
	bool preflush;
	bool no_merge;			/* REQ_NOMERGE */
	bool failfast;			/* REQ_FAILFAST_DEV | _TRANSPORT */
	uint32_t err_limit;
	uint32_t err_log;		/* error log entries (when set) */
	uint32_t ring;
	bool no_own;			/* --no-own; --own clears it */
	const char *trace;
	bool force;			/* overwrite an existing --trace */
	const char *temp_file;		/* temperature instead of hwmon */
	bool json;
	bool quiet;
	bool yes;			/* --yes-destroy-data */
	uint32_t percent;
	uint64_t min;
	uint8_t format;			/* enum bf_format (curve files) */
	const char *output;		/* -o, --output FILE */
	uint8_t until;			/* enum bf_until */
	uint64_t until_bytes, until_ns;
	bool diagnose;			/* sustain --diagnose */
	bool trim;			/* --trim: the TRIM retest too */
	double gaps_s[BF_MAX_GAPS];	/* --gaps: diagnose's idle gaps */
	unsigned int ngaps;
	const char *workload;		/* classify --workload: a word or a file */
};

/*
 * Parse argv[1..argc-1] (argv[0] is the command name) accepting the options
 * in @allowed and between @min_pos and @max_pos positional arguments. Fields
 * not given keep their values, so set defaults first. Returns 0, or -EINVAL
 * with a one-line reason in @err.
 */
int bf_opts_parse(struct bf_opts *o, int argc, char **argv, uint64_t allowed,
		  int min_pos, int max_pos, char *err, size_t errlen);

/* "--rw" values; returns 0 or -EINVAL. */
int bf_parse_rw(const char *s, uint8_t *op, uint8_t *pattern);
const char *bf_rw_name(uint8_t op, uint8_t pattern);
/* "--until" values: floor, full, a size (100GB) or a duration (30m). */
int bf_parse_until(const char *s, struct bf_opts *o);
/* "--gaps" values: 2 to BF_MAX_GAPS growing durations, "10s,60s,4m". */
int bf_parse_gaps(const char *s, struct bf_opts *o);
const char *bf_op_name(uint8_t op);
/* enum blkfloor_err_class: "io", "timeout", ... ("unknown" past the end) */
const char *bf_err_class_name(unsigned int class);
const char *bf_pattern_name(uint8_t pattern);
const char *bf_data_name(uint8_t data);
/* What a run with @op and @data writes, in words. */
const char *bf_data_desc(uint8_t op, uint8_t data);
/*
 * Whether a run with @op and @data has a buffer per slot (verify runs,
 * random-data writes), whose qd * bs the kernel bounds by
 * BLKFLOOR_VERIFY_MEM_MAX.
 */
bool bf_data_per_slot(uint8_t op, uint8_t data);
const char *bf_state_name(uint8_t state);
/* Whether a run in @state has ended (not running, stopping or preparing). */
bool bf_state_ended(uint8_t state);
bool bf_op_destructive(uint8_t op);
/*
 * The run flags that change what is measured, as "fua,no-merge" ("none"
 * without any); returns @buf, which BF_FLAGS_LEN bytes always hold.
 */
#define BF_FLAGS_LEN 64
char *bf_flags_str(char *buf, size_t len, uint32_t flags);
/*
 * What a run's latencies include, as a phrase for the summary: block-layer
 * queueing always, merging and SCSI retries unless the flags turn them
 * off; returns @buf.
 */
char *bf_latency_scope(char *buf, size_t len, uint32_t flags);

#endif /* BLKFLOOR_OPTS_H */
