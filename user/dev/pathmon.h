/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Following the path of a run's device while it runs: a sample of the
 * block-layer and SCSI counters (and the temperature) each time an
 * interval arrives, and the kernel-log events about the path since the
 * last look.
 *
 * The counters are read by the CLI from sysfs when the kernel's interval
 * notification arrives, not by the module at the interval's close: they
 * belong to the block layer, the SCSI midlayer and hwmon, none of which a
 * block-layer test module should reach into, and a read of a few sysfs
 * files per interval costs the I/O path nothing. The price is alignment:
 * a sample lands when the notification is received, a fraction of a
 * millisecond after the kernel closed the interval (more on a loaded
 * host), and the counters include I/O to the disk from anyone, not only
 * from blkfloor.
 */
#ifndef BLKFLOOR_PATHMON_H
#define BLKFLOOR_PATHMON_H

#include <stdbool.h>
#include <stdint.h>

#include "pathinfo.h"
#include "scsitrace.h"

struct bf_pathmon {
	struct bf_path path;
	struct bf_pathstat last;
	uint64_t last_ns;	/* CLOCK_MONOTONIC of the last sample */
	bool have_last;
	int kmsg;		/* /dev/kmsg, or -1 */
	int kmsg_err;		/* why it could not be opened (errno) */
	const char *temp_file;	/* a file overriding the hwmon sensor */
	uint64_t reread_ns;	/* CLOCK_MONOTONIC the path was last read */
	struct bf_scsitrace st;	/* the disk's SCSI results */
};

/* The path is read again this often, and after every event. */
#define BF_PATHMON_REREAD_NS	5000000000ull

/* Event callback: kind, time (CLOCK_MONOTONIC, ns), message text. */
typedef void (*bf_pathmon_event_fn)(void *arg, enum bf_event_kind kind,
				    uint64_t mono_ns, const char *msg,
				    int len);

/*
 * Start following disk @disk ("sdb"). @temp_file, when not NULL, is read
 * instead of a hwmon sensor (millidegrees, or degrees with a decimal
 * point). Returns 0 or -ENOENT when the disk is not in sysfs.
 */
int bf_pathmon_init(struct bf_pathmon *pm, const char *disk,
		    const char *temp_file);
void bf_pathmon_free(struct bf_pathmon *pm);

/*
 * Follow the disk's SCSI results too (scsitrace.h), for
 * bf_pathmon_events()'s @note; pm->st.why says from where, or why not.
 */
void bf_pathmon_scsi(struct bf_pathmon *pm);

/* The first sample (the baseline at the start of a run). */
void bf_pathmon_start(struct bf_pathmon *pm);

/* Sample now; the figures since the last sample, while @ios I/Os ended. */
void bf_pathmon_sample(struct bf_pathmon *pm, uint64_t ios,
		       struct bf_pathiv *iv);

/*
 * A SCSI result of the disk (@key "scsi_result": bf_scsires_fmt()'s text,
 * from the tracepoint) or a kernel-log line about one (@key "kmsg": the
 * line, bf_kmsg_scsi()).
 */
typedef void (*bf_pathmon_note_fn)(void *arg, const char *key,
				   uint64_t mono_ns, const char *text, int len);

/*
 * Report the path's kernel-log events logged since the last call, and
 * to @note (if not NULL) the SCSI results and their kernel-log lines; then,
 * after any event and at least every BF_PATHMON_REREAD_NS, read the path
 * again and report a change as an event whose message says what changed
 * (bf_path_diff): BF_EV_LINK for the link (a USB link back at a lower
 * speed, another driver, a PCIe link trained down), else BF_EV_HOST (a
 * request limit or queue depth set on the host). The path followed from
 * then on is the one read.
 */
void bf_pathmon_events(struct bf_pathmon *pm, bf_pathmon_event_fn fn,
		       bf_pathmon_note_fn note, void *arg);

/* CLOCK_MONOTONIC now, ns. */
uint64_t bf_mono_ns(void);

/*
 * Seconds from a run's start (@start_real_ns, CLOCK_REALTIME, as the
 * kernel reports it) to @mono_ns (CLOCK_MONOTONIC, as the kernel log
 * stamps its records).
 */
double bf_run_time_of(uint64_t mono_ns, uint64_t start_real_ns);

/* Parse a temperature file's content: "41000" (mC) or "41.5" (C). */
bool bf_temp_parse(const char *s, int64_t *mc);

#endif /* BLKFLOOR_PATHMON_H */
