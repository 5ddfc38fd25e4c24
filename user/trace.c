// SPDX-License-Identifier: GPL-2.0
/*
 * Trace writing.
 */
#include <string.h>
#include <time.h>

#include "trace.h"

void bf_iso8601(char *buf, size_t len, uint64_t realtime_ns)
{
	time_t t = (time_t)(realtime_ns / 1000000000ULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Metadata values stay on one line. */
static void meta(FILE *f, const char *key, const char *val)
{
	const char *p;

	fprintf(f, "# %s: ", key);
	for (p = val ? val : ""; *p; p++)
		fputc(*p == '\n' || *p == '\r' ? ' ' : *p, f);
	fputc('\n', f);
}

static void meta_u64(FILE *f, const char *key, uint64_t v)
{
	fprintf(f, "# %s: %llu\n", key, (unsigned long long)v);
}

void bf_trace_write_header(FILE *f, const struct bf_trace_meta *m)
{
	char ts[32];

	fputs(BF_TRACE_MAGIC "\n", f);
	meta(f, "device", m->device);
	meta_u64(f, "size_bytes", m->size_bytes);
	meta(f, "model", m->model);
	meta(f, "serial", m->serial);
	meta(f, "transport", m->transport);
	meta(f, "kernel", m->kernel);
	meta(f, "op", m->op);
	meta(f, "pattern", m->pattern);
	meta_u64(f, "bs", m->bs);
	meta_u64(f, "qd", m->qd);
	meta_u64(f, "interval_ns", m->interval_ns);
	meta(f, "data", m->data);
	meta_u64(f, "seed", m->seed);
	bf_iso8601(ts, sizeof(ts), m->start_time_ns);
	meta(f, "start_time", ts);
	meta(f, "cli_version", m->cli_version);
	meta(f, "module_version", m->module_version);
	fputs(BF_TRACE_HEADER "\n", f);
}

void bf_trace_write_iv(FILE *f, const struct bf_iv *iv)
{
	double start = iv->start_ns / 1e9, end = iv->end_ns / 1e9;
	double dt = end - start;
	double mbps = dt > 0 ? iv->bytes / dt / 1e6 : 0;
	double mean = iv->ios ? (double)iv->lat_sum / iv->ios : 0;
	bool any = iv->ios > 0;

	fprintf(f, "%u,%.6f,%.6f,%llu,%llu,%llu,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%llu\n",
		iv->index, start, end, (unsigned long long)iv->bytes,
		(unsigned long long)iv->ios, (unsigned long long)iv->errors,
		mbps, any ? iv->lat_min / 1e3 : 0, mean / 1e3,
		any ? iv->p50 / 1e3 : 0, any ? iv->p99 / 1e3 : 0,
		any ? iv->p999 / 1e3 : 0, any ? iv->lat_max / 1e3 : 0,
		(unsigned long long)iv->bytes_total);
}

void bf_trace_write_end(FILE *f, const char *state, int err, uint32_t dropped)
{
	fprintf(f, "# state: %s\n# errno: %d\n# dropped: %u\n", state, err,
		dropped);
}
