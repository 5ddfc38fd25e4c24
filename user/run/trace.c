// SPDX-License-Identifier: GPL-2.0
/*
 * Trace writing.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hist.h"
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

static const char *nomerges_name(int v)
{
	return v == 0 ? "0 (merges allowed)" : v == 1 ? "1 (simple merges only)" :
	       v == 2 ? "2 (no merges)" : "";
}

/* How the commands reach the drive (see pathinfo.h); "" when not known. */
static void write_path(FILE *f, const struct bf_path *p)
{
	meta(f, "driver", p->driver);
	if (p->scsi_id[0])
		meta(f, "scsi_id", p->scsi_id);
	if (p->usb_port[0]) {
		meta(f, "usb_port", p->usb_port);
		meta(f, "usb_speed", p->usb_speed);
		meta(f, "usb_version", p->usb_version);
		meta(f, "usb_id", p->usb_id);
		meta(f, "usb_bcd_device", p->usb_bcd);
		meta(f, "usb_manufacturer", p->usb_manufacturer);
		meta(f, "usb_product", p->usb_product);
		meta(f, "usb_storage_quirks", p->quirks);
	}
	meta(f, "firmware", p->firmware);
	meta_u64(f, "max_sectors_kb", p->max_sectors_kb);
	meta_u64(f, "max_hw_sectors_kb", p->max_hw_sectors_kb);
	meta_u64(f, "queue_depth", p->queue_depth);
	meta_u64(f, "nr_requests", p->nr_requests);
	meta(f, "scheduler", p->scheduler);
	meta(f, "nomerges", nomerges_name(p->nomerges));
	meta(f, "rotational", p->rotational < 0 ? "" :
	     p->rotational ? "yes" : "no");
	meta(f, "write_cache", p->write_cache);
	meta(f, "temp_source", p->temp_src);
}

void bf_trace_write_header(FILE *f, const struct bf_trace_meta *m)
{
	char ts[32];

	fputs(BF_TRACE_MAGIC "\n", f);
	meta(f, "device", m->device);
	if (m->run_id)
		meta_u64(f, "run_id", m->run_id);
	meta_u64(f, "size_bytes", m->size_bytes);
	meta(f, "model", m->model);
	meta(f, "serial", m->serial);
	meta(f, "transport", m->transport);
	meta(f, "kernel", m->kernel);
	meta(f, "op", m->op);
	meta(f, "pattern", m->pattern);
	meta_u64(f, "bs", m->bs);
	meta_u64(f, "qd", m->qd);
	fprintf(f, "# region: %llu+%llu\n", (unsigned long long)m->offset,
		(unsigned long long)m->length);
	meta_u64(f, "interval_ns", m->interval_ns);
	meta(f, "data", m->data);
	if (m->options)
		meta(f, "options", m->options);
	meta_u64(f, "seed", m->seed);
	bf_iso8601(ts, sizeof(ts), m->start_time_ns);
	meta(f, "start_time", ts);
	meta(f, "cli_version", m->cli_version);
	meta(f, "module_version", m->module_version);
	if (m->boot_id && m->boot_id[0])
		meta(f, "boot_id", m->boot_id);
	if (m->tainted && m->tainted[0])
		meta(f, "kernel_tainted", m->tainted);
	if (m->modules && m->modules[0])
		meta(f, "path_modules", m->modules);
	if (m->path)
		write_path(f, m->path);
	if (m->events)
		meta(f, "events", m->events);
	if (m->scsi_results)
		meta(f, "scsi_results", m->scsi_results);
	fputs(BF_TRACE_HEADER "\n", f);
}

/*
 * The path columns: empty where not measured (an interval fetched from the
 * kernel's ring after the fact, a counter the path does not have).
 */
static int fmt_path(char *buf, size_t len, const struct bf_iv *iv)
{
	const struct bf_pathiv *p = &iv->path;
	char temp[32] = "";
	int n;

	if (!iv->have_path)
		return snprintf(buf, len, ",,,,,,,,\n");
	if (p->temp)
		snprintf(temp, sizeof(temp), "%.1f", p->temp_c);
	if (!p->scsi)
		n = snprintf(buf, len, "%llu,%.3f,%.1f,%llu,%.3f,%llu,,,%s\n",
			     (unsigned long long)p->requests, p->req_per_bio,
			     p->req_bytes / 1024, (unsigned long long)p->merges,
			     p->util, (unsigned long long)p->in_flight, temp);
	else
		n = snprintf(buf, len,
			     "%llu,%.3f,%.1f,%llu,%.3f,%llu,%llu,%llu,%s\n",
			     (unsigned long long)p->requests, p->req_per_bio,
			     p->req_bytes / 1024, (unsigned long long)p->merges,
			     p->util, (unsigned long long)p->in_flight,
			     (unsigned long long)p->scsi_err,
			     (unsigned long long)p->scsi_tmo, temp);
	return n < 0 ? 0 : (size_t)n < len ? n : (int)len - 1;
}

size_t bf_trace_fmt_iv(char *buf, size_t len, const struct bf_iv *iv)
{
	double start = iv->start_ns / 1e9, end = iv->end_ns / 1e9;
	double dt = end - start;
	double mbps = dt > 0 ? iv->bytes / dt / 1e6 : 0;
	double mean = iv->ios ? (double)iv->lat_sum / iv->ios : 0;
	bool any = iv->ios > 0;
	int n;

	n = snprintf(buf, len,
		     "%llu,%.6f,%.6f,%llu,%llu,%llu,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%llu,",
		     (unsigned long long)iv->index, start, end, (unsigned long long)iv->bytes,
		     (unsigned long long)iv->ios,
		     (unsigned long long)iv->errors, mbps,
		     any ? iv->lat_min / 1e3 : 0, mean / 1e3,
		     any ? iv->p50 / 1e3 : 0, any ? iv->p99 / 1e3 : 0,
		     any ? iv->p999 / 1e3 : 0, any ? iv->lat_max / 1e3 : 0,
		     (unsigned long long)iv->bytes_total);
	if (n < 0 || (size_t)n >= len)
		return n < 0 ? 0 : len - 1;
	n += fmt_path(buf + n, len - n, iv);
	return (size_t)n < len ? (size_t)n : len - 1;
}

size_t bf_trace_fmt_gap(char *buf, size_t len, uint64_t first, uint64_t last)
{
	int n = snprintf(buf, len, "# gap: %llu-%llu\n",
			 (unsigned long long)first, (unsigned long long)last);

	return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len - 1;
}

size_t bf_trace_fmt_event(char *buf, size_t len, double t, const char *kind,
			  const char *msg, int msglen)
{
	int n, i;

	if (msglen > 200)
		msglen = 200;
	n = snprintf(buf, len, "# event: %.6f %s %.*s\n", t, kind, msglen, msg);
	if (n < 0)
		return 0;
	/* one line: a control character in the message would split it */
	for (i = 0; i < n - 1 && (size_t)i < len - 1; i++)
		if ((unsigned char)buf[i] < ' ')
			buf[i] = ' ';
	return (size_t)n < len ? (size_t)n : len - 1;
}

size_t bf_trace_fmt_error(char *buf, size_t len, const struct bf_err_entry *e)
{
	int n = snprintf(buf, len, "# error: %.6f %s %llu %u %d %s %.3f\n",
			 e->time_ns / 1e9, bf_op_name(e->op),
			 (unsigned long long)e->sector, e->bytes, e->err,
			 bf_err_class_name(e->class), e->lat_ns / 1e3);

	return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len - 1;
}

size_t bf_trace_fmt_end(char *buf, size_t len, const char *state, int err,
			uint64_t dropped)
{
	int n = snprintf(buf, len, "# state: %s\n# errno: %d\n# dropped: %llu\n",
			 state, err, (unsigned long long)dropped);

	return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len - 1;
}

size_t bf_trace_fmt_run_lat(char *buf, size_t len, const struct bf_hist *h,
			    uint64_t max_ns)
{
	int n;

	if (!h->total)
		return 0;
	/* A bucket reads as its upper edge, which can lie past the maximum. */
	n = snprintf(buf, len,
		     "# run_latency_us: p50=%.3f p99=%.3f p999=%.3f max=%.3f ios=%llu\n",
		     fmin(bf_hist_percentile(h, 50), max_ns) / 1e3,
		     fmin(bf_hist_percentile(h, 99), max_ns) / 1e3,
		     fmin(bf_hist_percentile(h, 99.9), max_ns) / 1e3, max_ns / 1e3,
		     (unsigned long long)h->total);
	return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len - 1;
}

/* Header: ~17 metadata lines and the column names; model and serial long. */
#define TRACE_HEADER_MAX	3072
/* An interval line of a fast, slow device: 14 fields, ~110 bytes typical. */
#define TRACE_LINE_EXPECT	160

uint64_t bf_trace_expect_bytes(uint64_t intervals)
{
	return TRACE_HEADER_MAX + intervals * TRACE_LINE_EXPECT +
	       BF_TRACE_LINE_MAX;
}

uint64_t bf_trace_expect_intervals(uint64_t bytes, uint64_t time_ns,
				   uint64_t interval_ns)
{
	uint64_t by_time = UINT64_MAX, by_bytes = UINT64_MAX;

	if (!interval_ns)
		interval_ns = BLKFLOOR_INTERVAL_DEFAULT_NS;
	if (time_ns)
		by_time = time_ns / interval_ns + 1;
	if (bytes) {
		/* seconds at the planning rate, in intervals */
		double s = (double)bytes / BF_TRACE_PLAN_BPS;

		by_bytes = (uint64_t)(s * 1e9 / interval_ns) + 1;
	}
	if (by_time == UINT64_MAX && by_bytes == UINT64_MAX)
		return 0;
	return by_time < by_bytes ? by_time : by_bytes;
}

void bf_trace_scan_init(struct bf_trace_scan *s)
{
	memset(s, 0, sizeof(*s));
}

/* "FIRST-LAST" of a gap line. */
static void scan_gap(struct bf_trace_scan *s, const char *p)
{
	unsigned long long a, b;
	char *e;

	a = strtoull(p, &e, 10);
	if (*e != '-')
		return;
	b = strtoull(e + 1, &e, 10);
	if (b >= a && b - a < UINT64_MAX - s->gap_ivs)
		s->gap_ivs += b - a + 1;
}

void bf_trace_scan_line(struct bf_trace_scan *s, const char *line, size_t len,
			bool complete)
{
	char *end;
	unsigned long long v;

	if (!complete)
		return;		/* cut by a killed writer: not part of it */
	s->good_len += len;
	s->lines++;
	if (s->lines == 1) {
		s->magic = len >= strlen(BF_TRACE_MAGIC) &&
			   !strncmp(line, BF_TRACE_MAGIC, strlen(BF_TRACE_MAGIC)) &&
			   (line[strlen(BF_TRACE_MAGIC)] == '\n' ||
			    line[strlen(BF_TRACE_MAGIC)] == '\r');
		return;
	}
	if (line[0] == '#') {
		if (!strncmp(line, "# state: ", 9))
			s->ended = true;
		else if (!strncmp(line, "# run_id: ", 10))
			s->run_id = (uint32_t)strtoul(line + 10, NULL, 10);
		else if (!strncmp(line, "# gap: ", 7))
			scan_gap(s, line + 7);
		return;
	}
	if (!strncmp(line, "index,", 6)) {
		s->header = true;
		return;
	}
	if (line[0] < '0' || line[0] > '9') {
		if (line[0] != '\n' && line[0] != '\r')
			s->bad = true;
		return;
	}
	v = strtoull(line, &end, 10);
	if (*end != ',' || !s->header || v == ULLONG_MAX) {
		s->bad = true;
		return;
	}
	s->last = v;
	s->have_last = true;
}
