/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SCSI results of a run's disk, from the scsi:scsi_dispatch_cmd_done
 * tracepoint: every completion of a command with a result other than 0,
 * retried ones included, with its host byte, status and sense. The SCSI
 * midlayer retries such a command without a word in the kernel log (it
 * logs it only with scsi_logging_level set), and the disk's ioerr_cnt
 * only counts it. Since Linux 5.14 a result has no driver byte (the
 * tracepoint prints DRIVER_OK for every command).
 *
 * A tracefs instance of our own (instances/blkfloor-PID) holds the one
 * event with a filter on the disk's H:C:T:L and result != 0, on the
 * CLOCK_MONOTONIC trace clock the kernel log uses too, so the global
 * trace buffer is left alone. It needs root and a mounted tracefs
 * (/sys/kernel/tracing, or /sys/kernel/debug/tracing with debugfs).
 */
#ifndef BLKFLOOR_SCSITRACE_H
#define BLKFLOOR_SCSITRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bf_scsitrace {
	int fd;			/* the instance's trace_pipe, or -1 */
	char dir[256];		/* the instance, "" if none */
	char why[160];		/* where from, or why not recorded */
	char buf[8192];		/* a line not yet complete */
	size_t len;
};

/* One completion, as the tracepoint prints it. */
struct bf_scsires {
	double t;		/* CLOCK_MONOTONIC, s */
	char opcode[24];	/* "WRITE_10" */
	unsigned long long lba;
	bool have_lba;
	char host[24];		/* "DID_ERROR" */
	char status[32];	/* "SAM_STAT_GOOD" */
	unsigned int key, asc, ascq;	/* sense */
	bool have_sense;	/* the tracepoint has it (6.12 does, 6.1 not) */
};

/*
 * Follow the disk at SCSI address @hctl ("6:0:0:0") under tracefs
 * @roots (NULL-terminated; NULL: the usual two). Returns 0, or a negative
 * errno with the reason in @st->why (the run goes on without).
 */
int bf_scsitrace_open(struct bf_scsitrace *st, const char *const *roots,
		      const char *hctl);

/* Results since the last call, each to @fn. */
typedef void (*bf_scsitrace_fn)(void *arg, const struct bf_scsires *r);
void bf_scsitrace_read(struct bf_scsitrace *st, bf_scsitrace_fn fn, void *arg);

/* Stop the event and remove the instance. */
void bf_scsitrace_close(struct bf_scsitrace *st);

/* Parse one trace_pipe line; false if it is not the event. */
bool bf_scsires_parse(const char *line, struct bf_scsires *r);

/*
 * "WRITE_10 lba=2048 host=DID_ERROR status=SAM_STAT_GOOD sense=0x0/0x0/0x0",
 * "sense=-" where the tracepoint has none
 */
int bf_scsires_fmt(char *buf, size_t len, const struct bf_scsires *r);

#endif /* BLKFLOOR_SCSITRACE_H */
