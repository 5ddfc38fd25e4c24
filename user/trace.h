/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Trace files (writing side). Format "blkfloor-trace v1":
 *
 *   # blkfloor-trace v1
 *   # key: value            (metadata: device, size_bytes, model, ...)
 *   index,start_s,end_s,bytes,ios,errors,MBps,lat_min_us,lat_mean_us,
 *     lat_p50_us,lat_p99_us,lat_p999_us,lat_max_us,bytes_total   (one line)
 *   one CSV line per interval (seconds since run start, 6 decimals;
 *   latencies in microseconds, 3 decimals; an empty interval has 0)
 *   # state: done|stopped|failed, # errno: N, # dropped: N  (at the end)
 */
#ifndef BLKFLOOR_TRACE_H
#define BLKFLOOR_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "run.h"

#define BF_TRACE_MAGIC	"# blkfloor-trace v1"
#define BF_TRACE_HEADER	"index,start_s,end_s,bytes,ios,errors,MBps," \
			"lat_min_us,lat_mean_us,lat_p50_us,lat_p99_us," \
			"lat_p999_us,lat_max_us,bytes_total"

struct bf_trace_meta {
	const char *device;
	uint64_t size_bytes;
	const char *model, *serial, *transport, *kernel;
	const char *op, *pattern;
	uint32_t bs, qd;
	uint64_t interval_ns;
	const char *data;
	uint64_t seed;
	uint64_t start_time_ns;		/* CLOCK_REALTIME */
	const char *cli_version, *module_version;
};

/* "2026-11-29T22:00:30Z" */
void bf_iso8601(char *buf, size_t len, uint64_t realtime_ns);
void bf_trace_write_header(FILE *f, const struct bf_trace_meta *m);
void bf_trace_write_iv(FILE *f, const struct bf_iv *iv);
void bf_trace_write_end(FILE *f, const char *state, int err,
			uint32_t dropped);

#endif /* BLKFLOOR_TRACE_H */
