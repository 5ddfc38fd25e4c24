/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Trace files (writing side). Format "blkfloor-trace v1":
 *
 *   # blkfloor-trace v1
 *   # key: value            (metadata: device, size_bytes, model, ...)
 *   index,start_s,end_s,bytes,ios,errors,MBps,lat_min_us,lat_mean_us,
 *     lat_p50_us,lat_p99_us,lat_p999_us,lat_max_us,bytes_total   (one line)
 *     ,requests,req_per_bio,req_kib,merges,util,in_flight,scsi_err,
 *     scsi_tmo,temp_c   (the path figures, empty when not measured:
 *     Documentation/path.rst)
 *   one CSV line per interval (seconds since run start, 6 decimals;
 *   latencies in microseconds, 3 decimals; an empty interval has 0),
 *   in index order, each appended as it arrives
 *   # event: T KIND MESSAGE (an event on the path, T seconds into the run)
 *   # gap: FIRST-LAST       (intervals FIRST..LAST, inclusive, are not in
 *                            this trace: the kernel's ring no longer held
 *                            them; the curve is not joined across a gap)
 *   # error: T OP LBA BYTES ERRNO CLASS LAT_US  (the run's error log, one
 *                            line per failed I/O logged, before the
 *                            trailer: T seconds into the run, LBA in
 *                            512-byte sectors, latency in microseconds)
 *   # run_latency_us: p50=X p99=X p999=X max=X ios=N  (the percentiles of
 *                            the run's merged histogram, before the trailer)
 *   # host_cpu: steal_pct=X thread_cpu_s=X thread_wait_s=X run_s=X  (the
 *                            host's steal time over the run and the CPU the
 *                            run's kthread got and waited for, if read)
 *   # state: done|stopped|failed, # errno: N, # dropped: N  (at the end;
 *   dropped counts the intervals of the gaps. A trace without them is
 *   incomplete: its writer died or lost its disk; blkfloor attach or
 *   dump completes it)
 */
#ifndef BLKFLOOR_TRACE_H
#define BLKFLOOR_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "run.h"

#define BF_TRACE_MAGIC	"# blkfloor-trace v1"
#define BF_TRACE_HEADER	"index,start_s,end_s,bytes,ios,errors,MBps," \
			"lat_min_us,lat_mean_us,lat_p50_us,lat_p99_us," \
			"lat_p999_us,lat_max_us,bytes_total," \
			"requests,req_per_bio,req_kib,merges,util," \
			"in_flight,scsi_err,scsi_tmo,temp_c"

struct bf_trace_meta {
	const char *device;
	uint32_t run_id;		/* "# run_id:" if not 0 */
	uint64_t size_bytes;
	const char *model, *serial, *transport, *kernel;
	const char *op, *pattern;
	uint32_t bs, qd;
	uint64_t offset, length;	/* "# region: OFFSET+LENGTH" (bytes) */
	uint64_t interval_ns;
	const char *data;
	const char *options;		/* bf_flags_str(), if not NULL */
	uint64_t seed;
	uint64_t start_time_ns;		/* CLOCK_REALTIME */
	const char *cli_version, *module_version;
	/* which boot, the kernel's taint and the path's modules (hostinfo.h) */
	const char *boot_id, *tainted, *modules;
	const struct bf_path *path;	/* the path lines, if not NULL */
	const char *events;		/* where events come from, or why not */
	const char *scsi_results;	/* the same for SCSI results */
};

/* "2026-11-29T22:00:30Z" */
void bf_iso8601(char *buf, size_t len, uint64_t realtime_ns);
void bf_trace_write_header(FILE *f, const struct bf_trace_meta *m);

/*
 * The same lines into @buf (NUL-terminated); return the length, which is
 * at most BF_TRACE_LINE_MAX for an interval or a gap. A line is written
 * with one write(2), so a reader never sees half of one unless the writer
 * was killed in the middle of it (bf_trace_scan_line() finds that).
 */
#define BF_TRACE_LINE_MAX	384
size_t bf_trace_fmt_iv(char *buf, size_t len, const struct bf_iv *iv);
size_t bf_trace_fmt_gap(char *buf, size_t len, uint64_t first,
			uint64_t last);
/* "# event: T KIND MESSAGE" (T in seconds since the start of the run). */
size_t bf_trace_fmt_event(char *buf, size_t len, double t, const char *kind,
			  const char *msg, int msglen);
/* "# error: T OP LBA BYTES ERRNO CLASS LAT_US" */
size_t bf_trace_fmt_error(char *buf, size_t len, const struct bf_err_entry *e);
size_t bf_trace_fmt_end(char *buf, size_t len, const char *state, int err,
			uint64_t dropped);
/* "# run_latency_us: ..." of histogram @h and the largest latency (ns). */
struct bf_hist;
size_t bf_trace_fmt_run_lat(char *buf, size_t len, const struct bf_hist *h,
			    uint64_t max_ns);

/*
 * Room a trace needs (preflight): the header, @intervals lines of the
 * longest likely length, the trailer.
 */
uint64_t bf_trace_expect_bytes(uint64_t intervals);

/*
 * Intervals a run will close, for the preflight: a time-limited run one per
 * interval of its time; a byte-limited run at no less than
 * BF_TRACE_PLAN_BPS (a drive slower than that for the whole run writes a
 * longer trace than was planned for).
 */
#define BF_TRACE_PLAN_BPS	10000000ULL	/* 10 MB/s */
uint64_t bf_trace_expect_intervals(uint64_t bytes, uint64_t time_ns,
				   uint64_t interval_ns);

/*
 * Where an existing trace stands, line by line (to resume it): feed every
 * line with its length including the newline; @complete is false for a
 * last line without one (its writer was killed in the middle of it).
 */
struct bf_trace_scan {
	bool magic;		/* first line is BF_TRACE_MAGIC */
	bool header;		/* the CSV header line was seen */
	bool ended;		/* the trailer (# state:) was seen */
	bool have_last;		/* an interval line was seen */
	bool bad;		/* a line that is none of the above */
	uint64_t last;		/* index of the last interval line */
	uint64_t gap_ivs;	/* intervals in # gap: lines */
	uint32_t run_id;	/* # run_id:, 0 if none */
	uint32_t lines;
	uint64_t good_len;	/* bytes up to the end of the last whole line */
};

void bf_trace_scan_init(struct bf_trace_scan *s);
void bf_trace_scan_line(struct bf_trace_scan *s, const char *line,
			size_t len, bool complete);

#endif /* BLKFLOOR_TRACE_H */
