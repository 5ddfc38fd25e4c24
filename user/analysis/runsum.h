/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a blkfloor trace says about its run apart from the curve: the
 * header's identity of the setup (kernel, driver, link, bridge, quirks,
 * workload), the per-interval latency percentiles, the I/O errors (the
 * errors column and the error log by class), the events by kind and the
 * end state. Pure computation on a stream; compare (cmpstat.h) weighs it.
 */
#ifndef BLKFLOOR_RUNSUM_H
#define BLKFLOOR_RUNSUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "evidence.h"
#include "trial.h"

/* The header items a comparison shows or checks ("# key: value"). */
enum bf_rkey {
	BF_RK_DEVICE, BF_RK_MODEL, BF_RK_SERIAL, BF_RK_SIZE, BF_RK_TRANSPORT,
	BF_RK_KERNEL, BF_RK_OP, BF_RK_PATTERN, BF_RK_BS, BF_RK_QD,
	BF_RK_REGION, BF_RK_DRIVER, BF_RK_USB_SPEED, BF_RK_USB_ID,
	BF_RK_USB_BCD, BF_RK_QUIRKS, BF_RK_FIRMWARE, BF_RK_MODULE,
	BF_RK_MAX_SECTORS, BF_RK_QUEUE_DEPTH, BF_RK_SCHEDULER, BF_RK_NOMERGES,
	BF_RK_BOOT_ID, BF_RK_TAINTED,
	BF_RK_USB_MANUFACTURER, BF_RK_USB_PRODUCT, BF_RK_SCSI_RESULTS,
	BF_RK_EVENTS,
	BF_RK_COUNT,
};

const char *bf_rkey_name(enum bf_rkey k);

#define BF_RS_CLASSES	8	/* error classes counted from the error log */
#define BF_RS_NOTES	4	/* SCSI results and kernel-log lines kept */

/* "# scsi_result: T TEXT" or "# kmsg: T TEXT" */
struct bf_rnote {
	double t;
	char text[240];
};

/* the per-interval latency columns (microseconds) */
enum bf_rlat { BF_RL_P50, BF_RL_P99, BF_RL_P999, BF_RL_MAX, BF_RL_COUNT };

struct bf_runsum {
	char hdr[BF_RK_COUNT][96];	/* "" when absent */
	unsigned int have;		/* bit k: item k present, maybe empty */
	/* "# path_modules:" (hostinfo.h), longer than the items above */
	char modules[512];
	/* intervals with I/O: their latency columns, in order */
	double *lat[BF_RL_COUNT];
	size_t nlat, cap;
	unsigned long long intervals;	/* interval lines */
	unsigned long long errors;	/* the errors column, summed */
	unsigned long long err_ivs;	/* intervals with an error */
	/* the error log ("# error:" lines) by class */
	struct { char name[32]; unsigned long long n; } cls[BF_RS_CLASSES];
	size_t ncls;
	unsigned long long logged;
	/* "# event:" lines by kind (reset, abort, timeout, disconnect, ...) */
	struct { char name[32]; unsigned long long n; } ev[12];
	size_t nev;
	/* when: each event (its kind) and each interval with errors ("errors") */
	struct bf_rmark { double t; char kind[32]; } *mark;
	size_t nmark, mcap;
	/* the experiments' idle gaps ("# experiment: idle at T s for S s") */
	struct bf_rgap { double t, secs; } *gap;
	size_t ngap, gcap;
	/*
	 * "# run_latency_us:": the percentiles of the run's merged
	 * histogram (p50, p99, p99.9, max), written at its end
	 */
	bool have_run_lat;
	double run_lat[BF_RL_COUNT];
	/* "# host_cpu:": what the host gave the run (NAN: not recorded) */
	double steal_pct, thread_cpu_s, thread_wait_s, run_s;
	double *ios;			/* each latency interval's I/Os */
	/*
	 * The disk's SCSI results other than 0 ("# scsi_result:", from the
	 * tracepoint) and the kernel log's lines about results ("# kmsg:"):
	 * the first BF_RS_NOTES of each; every result line counted
	 */
	struct bf_rnote scsi_res[BF_RS_NOTES], kmsg[BF_RS_NOTES];
	size_t nscsi_res, nkmsg;
	unsigned long long scsi_res_all;
	/* every trial of diagnose (an idle line, the probe after it at T s,
	 * also with no idle) and the outcomes it recorded ("# experiment:
	 * result ...") */
	struct bf_rtrial { double t; struct bf_trial trial; } *trial;
	size_t ntrial, tcap;
	struct bf_evidence res[BF_EXP_COUNT];
	size_t nres;
	char state[16];			/* done, stopped, failed; "" if none */
	long err_no;			/* "# errno:" */
};

/*
 * The length of @buf up to the end of its last whole line (the newline
 * included): what a reader takes of a trace whose writer was killed in
 * the middle of a line.
 */
size_t bf_whole_lines(const char *buf, size_t len);

/*
 * Count @nm in a table of (name, n) entries that holds @ntab of at most
 * @max: a name not yet there is added while there is room.
 */
#define BF_TALLY(tab, ntab, max, nm) do {					\
	size_t _i;							\
	for (_i = 0; _i < (ntab); _i++)					\
		if (!strcmp((tab)[_i].name, (nm)))			\
			break;						\
	if (_i == (ntab) && (ntab) < (max)) {				\
		snprintf((tab)[_i].name, sizeof((tab)[_i].name), "%s",	\
			 (nm));						\
		(ntab)++;						\
	}								\
	if (_i < (ntab))						\
		(tab)[_i].n++;						\
} while (0)

/* Read a trace. Returns 0, or -EINVAL/-ENOMEM with a reason in @err. */
int bf_runsum_read(FILE *f, struct bf_runsum *r, char *err, size_t errlen);
void bf_runsum_free(struct bf_runsum *r);

/* Events of one kind, by name ("reset"); 0 if none. */
unsigned long long bf_runsum_events(const struct bf_runsum *r,
				    const char *kind);

#endif /* BLKFLOOR_RUNSUM_H */
