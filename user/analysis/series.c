// SPDX-License-Identifier: GPL-2.0
/*
 * Throughput curves: the sample array and the three input formats.
 *
 *  - blkfloor trace: "# blkfloor-trace v1", "# key: value" metadata, a CSV
 *    header naming the columns, one line per interval (end_s, start_s,
 *    MBps and bytes_total are used; columns are found by name);
 *  - fio bandwidth log (--write_bw_log with log_avg_msec):
 *    "msec, KiB/s, ddir, bs[, offset...]", msec being the END of the
 *    averaging window and KiB/s 1024 B/s; writes (ddir 1) are taken when
 *    present, otherwise whichever direction the log holds;
 *    Times since the start of the job, or Unix epoch milliseconds
 *    (log_unix_epoch), then read from the first sample on;
 *  - two columns, seconds and MB/s, '#' comments, an optional non-numeric
 *    header whose units are honoured ("time_ms", "MiB/s", "rate (KiB/s)").
 *    Times are taken as interval ends, or as interval starts when the
 *    first one is 0.
 *
 * The format is given (--format) or guessed from the content, and the guess
 * is reported. Nothing is read silently wrong: a number that is not a
 * finite decimal in range, a decimal comma, time going backwards, a trace
 * whose bytes_total decreases, binary data and a unit not known are
 * errors; gaps, dropped intervals, a trace without an end state, a cut
 * last line and a failed run are warnings (the curve is the run up to
 * where it ended). A UTF-8 byte order mark is skipped. The input is read
 * once, front to back, so a pipe works.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "curve.h"
#include "grow.h"

static int push_sample(struct bf_series *ser, const struct bf_sample *x)
{
	struct bf_sample *s = bf_grow(ser->s, &ser->cap, ser->n + 1,
				      sizeof(*s), 256);

	if (!s)
		return -ENOMEM;
	ser->s = s;
	ser->s[ser->n++] = *x;
	return 0;
}

int bf_series_push(struct bf_series *ser, double t, double dt, double mbps,
		   double bytes)
{
	struct bf_sample x = { .t = t, .dt = dt, .mbps = mbps, .bytes = bytes };

	return push_sample(ser, &x);
}

void bf_series_free(struct bf_series *ser)
{
	free(ser->s);
	ser->s = NULL;
	ser->n = ser->cap = 0;
	ser->merge = ser->nacc = 0;
}

/* Two neighbouring intervals as one: bytes and time add up exactly. */
static void merge2(struct bf_sample *a, const struct bf_sample *b)
{
	double dt = a->dt + b->dt;

	a->mbps = (a->mbps * a->dt + b->mbps * b->dt) / dt;
	if (a->has_temp && b->has_temp)
		a->temp_c = (a->temp_c * a->dt + b->temp_c * b->dt) / dt;
	else if (b->has_temp)
		a->temp_c = b->temp_c;
	a->has_temp = a->has_temp || b->has_temp;
	a->dt = dt;
	a->t = b->t;
	a->bytes = b->bytes;
}

/* Halve the series: samples 2i and 2i + 1 become one. */
static void halve(struct bf_series *ser)
{
	size_t i, k = 0;

	for (i = 0; i + 1 < ser->n; i += 2) {
		ser->s[k] = ser->s[i];
		merge2(&ser->s[k++], &ser->s[i + 1]);
	}
	if (i < ser->n) {
		/* an odd one out starts the next merged sample */
		ser->acc = ser->s[i];
		ser->nacc = 1;
	}
	ser->n = k;
	ser->merge = ser->merge ? 2 * ser->merge : 2;
}

int bf_series_add(struct bf_series *ser, double t, double dt, double mbps,
		  double bytes)
{
	struct bf_sample x = { .t = t, .dt = dt, .mbps = mbps, .bytes = bytes };

	return bf_series_add_sample(ser, &x);
}

int bf_series_add_sample(struct bf_series *ser, const struct bf_sample *in)
{
	struct bf_sample x = *in;

	if (ser->merge > 1) {
		if (ser->nacc)
			merge2(&ser->acc, &x);
		else
			ser->acc = x;
		if (++ser->nacc < ser->merge)
			return 0;
		x = ser->acc;
		ser->nacc = 0;
	}
	if (ser->n == BF_SERIES_MAX) {
		halve(ser);
		return bf_series_add_sample(ser, &x);
	}
	return push_sample(ser, &x);
}

int bf_series_finish(struct bf_series *ser)
{
	int ret = 0;

	if (ser->merge > 1 && ser->nacc) {
		ser->nacc = 0;
		ret = push_sample(ser, &ser->acc);
	}
	return ret;
}

double bf_series_time_at(const struct bf_sample *s, size_t n, double bytes)
{
	size_t lo = 0, hi = n;
	double b0, f;

	if (!n || bytes > s[n - 1].bytes)
		return NAN;
	/* first sample whose cumulative bytes reach @bytes */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s[mid].bytes < bytes)
			lo = mid + 1;
		else
			hi = mid;
	}
	b0 = lo ? s[lo - 1].bytes : s[0].bytes - s[0].mbps * 1e6 * s[0].dt;
	if (b0 < 0)
		b0 = 0;
	f = s[lo].bytes > b0 ? (bytes - b0) / (s[lo].bytes - b0) : 1;
	if (f < 0)
		f = 0;
	return s[lo].t - s[lo].dt + f * s[lo].dt;
}

/* ---- formats -------------------------------------------------------------- */

static const char *const fmt_names[] = {
	[BF_FORMAT_AUTO] = "auto",
	[BF_FORMAT_TRACE] = "trace",
	[BF_FORMAT_FIO] = "fio",
	[BF_FORMAT_CSV] = "csv",
};

const char *bf_format_name(enum bf_format f)
{
	return f <= BF_FORMAT_CSV ? fmt_names[f] : "?";
}

int bf_format_parse(const char *s, enum bf_format *f)
{
	int i;

	for (i = BF_FORMAT_TRACE; i <= BF_FORMAT_CSV; i++)
		if (!strcmp(s, fmt_names[i])) {
			*f = i;
			return 0;
		}
	return -EINVAL;
}

/* ---- lines -------------------------------------------------------------- */

struct lines {
	FILE *f;
	char *buf;
	size_t cap;
	long no;		/* line number of the last line returned */
	bool pending;		/* buf holds a line not yet returned */
	bool nonl;		/* the last line returned had no newline */
	int err;		/* errno of a read error, or 0 */
	int binary;		/* a byte no text has (+1), 0 if none */
};

static void chomp(char *s)
{
	size_t l = strlen(s);

	while (l && (s[l - 1] == '\n' || s[l - 1] == '\r'))
		s[--l] = '\0';
}

/* A byte that no text line holds (NUL, a control character), or -1. */
static int binary_byte(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];

		if ((c < ' ' && c != '\t' && c != '\n' && c != '\r' &&
		     c != '\f' && c != '\v') || c == 0x7f)
			return c;
	}
	return -1;
}

/*
 * The next line without its newline, or NULL at the end or on an error
 * (a read error, or binary data: L->binary).
 */
static char *next_line(struct lines *L)
{
	ssize_t n;
	int b;

	if (L->pending) {
		L->pending = false;
		return L->buf;
	}
	errno = 0;
	n = getline(&L->buf, &L->cap, L->f);
	if (n <= 0) {
		if (ferror(L->f))
			L->err = errno ? errno : EIO;
		return NULL;
	}
	L->no++;
	L->nonl = L->buf[n - 1] != '\n';
	b = binary_byte(L->buf, (size_t)n);
	if (b >= 0) {
		L->binary = b + 1;
		L->err = EILSEQ;
		return NULL;
	}
	chomp(L->buf);
	return L->buf;
}

static bool blank(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return !*s;
}

/* ---- fields and numbers ----------------------------------------------------- */

#define MAXF 32

/* Split @line in place at commas, semicolons or blanks; returns the count. */
static int split(char *line, char **fld, int max, bool commas_only)
{
	int n = 0;
	char *p = line;

	while (*p && n < max) {
		char *end;

		while (*p == ' ' || *p == '\t')
			p++;
		fld[n++] = p;
		end = p + strcspn(p, commas_only ? "," : ",; \t");
		if (!*end)
			break;
		if (!commas_only) {
			/* "1, 2" and "1 2" are one separator */
			char *q = end;

			while (*q == ' ' || *q == '\t')
				q++;
			if (*q == ',' || *q == ';')
				q++;
			*end = '\0';
			p = q;
		} else {
			*end = '\0';
			p = end + 1;
		}
	}
	for (int i = 0; i < n; i++) {
		size_t l = strlen(fld[i]);

		while (l && isspace((unsigned char)fld[i][l - 1]))
			fld[i][--l] = '\0';
	}
	return n;
}

enum num_err { NUM_OK, NUM_BAD, NUM_NONFINITE, NUM_RANGE, NUM_HEX };

#define BF_NUM_MAX	1e15	/* no rate, time or count here is larger */

/* A finite decimal number with a point, at most BF_NUM_MAX in size. */
static enum num_err parse_num(const char *s, double *v)
{
	char *end;

	if (!*s)
		return NUM_BAD;
	if (!strncasecmp(s + (*s == '-' || *s == '+'), "0x", 2))
		return NUM_HEX;
	errno = 0;
	*v = strtod(s, &end);
	if (end == s || *end)
		return NUM_BAD;
	if (!isfinite(*v))
		return NUM_NONFINITE;
	if (errno == ERANGE || fabs(*v) > BF_NUM_MAX)
		return NUM_RANGE;
	return NUM_OK;
}

static bool is_num(const char *s, double *v)
{
	return parse_num(s, v) == NUM_OK;
}

/* A one-line reason for a field that is not a usable number. */
static int num_error(char *err, size_t len, long line, const char *what,
		     const char *fld, enum num_err e)
{
	static const char *const why[] = {
		[NUM_BAD] = "is not a number",
		[NUM_NONFINITE] = "is not a finite number",
		[NUM_RANGE] = "is out of range",
		[NUM_HEX] = "is not a decimal number (hexadecimal is not accepted)",
	};

	snprintf(err, len, "line %ld: %s '%.40s' %s", line, what, fld,
		 why[e == NUM_OK ? NUM_BAD : e]);
	return -EINVAL;
}

/* Parse a field that must be a number; -EINVAL with the reason if not. */
static int need_num(char *err, size_t len, long line, const char *what,
		    const char *fld, double *v)
{
	enum num_err e = parse_num(fld, v);

	return e == NUM_OK ? 0 : num_error(err, len, line, what, fld, e);
}

static void warn(struct bf_load *ld, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn(struct bf_load *ld, const char *fmt, ...)
{
	size_t l = strlen(ld->warn);
	va_list ap;

	if (l && l + 1 < sizeof(ld->warn)) {
		strcpy(ld->warn + l, "\n");
		l += 1;
	}
	va_start(ap, fmt);
	vsnprintf(ld->warn + l, sizeof(ld->warn) - l, fmt, ap);
	va_end(ap);
}

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); ret = -EINVAL; goto out; } while (0)
#define TRY(x) do { ret = (x); if (ret) goto out; } while (0)

#define BF_RATE_MAX	1e7	/* MB/s: 10 TB/s is no drive */
#define BF_TIME_MAX	1e9	/* s: 31 years */

/* ---- blkfloor trace ------------------------------------------------------ */

struct trace_cols { int start, end, bytes, rate, total, temp; };

static int trace_header(char *line, struct trace_cols *c)
{
	char *fld[MAXF];
	int n = split(line, fld, MAXF, true), i;

	*c = (struct trace_cols){ -1, -1, -1, -1, -1, -1 };
	for (i = 0; i < n; i++) {
		if (!strcmp(fld[i], "start_s"))
			c->start = i;
		else if (!strcmp(fld[i], "end_s"))
			c->end = i;
		else if (!strcmp(fld[i], "bytes"))
			c->bytes = i;
		else if (!strcmp(fld[i], "MBps"))
			c->rate = i;
		else if (!strcmp(fld[i], "bytes_total"))
			c->total = i;
		else if (!strcmp(fld[i], "temp_c"))
			c->temp = i;
	}
	return c->start < 0 || c->end < 0 || (c->bytes < 0 && c->rate < 0) ?
	       -EINVAL : 0;
}

struct trace_state {
	double prev_end, prev_total, sum, gap_s;
	unsigned int gaps, gap_lines;
	bool any, failed, ended;
	bool exp;		/* past the experiments' first idle line */
	double exp_at;
	long err_no, dropped;
};

/* "# state: failed", "# errno: -5", "# dropped: 3", the first
 * "# experiment: idle at T s" (diagnose's probes follow it) */
static void trace_meta(const char *line, struct trace_state *ts)
{
	double t;

	if (!ts->exp && sscanf(line, "# experiment: idle at %lf s", &t) == 1 &&
	    isfinite(t)) {
		ts->exp = true;
		ts->exp_at = t;
	} else if (!strncmp(line, "# state:", 8)) {
		ts->ended = true;
		ts->failed = strstr(line + 8, "failed") != NULL;
	} else if (!strncmp(line, "# errno:", 8)) {
		ts->err_no = strtol(line + 8, NULL, 10);
	} else if (!strncmp(line, "# dropped:", 10)) {
		ts->dropped = strtol(line + 10, NULL, 10);
	} else if (!strncmp(line, "# gap:", 6)) {
		ts->gap_lines++;
	}
}

static int trace_line(char *line, long no, const struct trace_cols *c,
		      struct trace_state *ts, struct bf_series *ser,
		      char *err, size_t errlen)
{
	char *fld[MAXF];
	int n = split(line, fld, MAXF, true), ret = 0;
	double st, en, by = 0, rate = 0, tot;
	struct bf_sample x = { 0 };

	if (n <= c->start || n <= c->end || (c->bytes >= 0 && n <= c->bytes) ||
	    (c->rate >= 0 && n <= c->rate) || (c->total >= 0 && n <= c->total))
		FAIL("line %ld: %d fields, fewer than the header names", no, n);
	TRY(need_num(err, errlen, no, "start_s", fld[c->start], &st));
	TRY(need_num(err, errlen, no, "end_s", fld[c->end], &en));
	if (c->bytes >= 0)
		TRY(need_num(err, errlen, no, "bytes", fld[c->bytes], &by));
	if (c->rate >= 0)
		TRY(need_num(err, errlen, no, "MBps", fld[c->rate], &rate));
	if (st < 0 || by < 0 || rate < 0)
		FAIL("line %ld: a negative time, byte count or rate", no);
	if (en < st || (ts->any && st < ts->prev_end - 1e-6))
		FAIL("line %ld: time goes backwards (interval %g..%g s after one ending at %g s)",
		     no, st, en, ts->prev_end);
	if (en == st)
		return 0;	/* an empty interval carries no rate */
	if (c->rate < 0)
		rate = by / (en - st) / 1e6;
	if (c->bytes < 0)
		by = rate * 1e6 * (en - st);
	if (rate > BF_RATE_MAX || en > BF_TIME_MAX)
		FAIL("line %ld: %g MB/s at %g s is out of range", no, rate, en);
	ts->sum += by;
	tot = ts->sum;
	if (c->total >= 0)
		TRY(need_num(err, errlen, no, "bytes_total", fld[c->total], &tot));
	if (ts->any && tot < ts->prev_total)
		FAIL("line %ld: bytes_total decreases (%.0f after %.0f)", no,
		     tot, ts->prev_total);
	/* the experiments' idle gaps are no holes in the curve */
	if (ts->any && !ts->exp &&
	    st > ts->prev_end + fmax(1e-3, 0.01 * (en - st))) {
		ts->gaps++;
		ts->gap_s += st - ts->prev_end;
	}
	/* temp_c: an empty cell (or a short line) is "not measured" */
	if (c->temp >= 0 && n > c->temp && !blank(fld[c->temp])) {
		TRY(need_num(err, errlen, no, "temp_c", fld[c->temp],
			     &x.temp_c));
		if (x.temp_c < -60 || x.temp_c > 200)
			FAIL("line %ld: temp_c %g is no drive temperature", no,
			     x.temp_c);
		x.has_temp = true;
	}
	ts->any = true;
	ts->prev_end = en;
	ts->prev_total = tot;
	x.t = en;
	x.dt = en - st;
	x.mbps = rate;
	x.bytes = tot;
	if (bf_series_add_sample(ser, &x))
		FAIL("out of memory");
out:
	return ret;
}

/* "# op: write" into @ld->op */
static void trace_op(const char *v, struct bf_load *ld)
{
	size_t l;

	while (*v == ' ')
		v++;
	snprintf(ld->op, sizeof(ld->op), "%s", v);
	l = strlen(ld->op);
	while (l && ld->op[l - 1] == ' ')
		ld->op[--l] = '\0';
}

static int read_trace(struct lines *L, struct bf_load *ld,
		      struct bf_series *ser, char *err, size_t errlen)
{
	struct trace_state ts = { 0 };
	struct trace_cols c = { -1, -1, -1, -1, -1, -1 };
	bool header = false;
	char *line;
	int ret = 0;

	line = next_line(L);
	if (!line || strncmp(line, "# blkfloor-trace", 16))
		FAIL("not a blkfloor trace (the first line is not '# blkfloor-trace v1')");
	while ((line = next_line(L))) {
		if (L->nonl) {
			/* the last line, cut by a writer killed inside it */
			ld->cut = true;
			continue;
		}
		if (line[0] == '#') {
			if (!strncmp(line, "# op:", 5))
				trace_op(line + 5, ld);
			trace_meta(line, &ts);
			continue;
		}
		if (blank(line))
			continue;
		if (!header) {
			if (trace_header(line, &c))
				FAIL("line %ld: no column header line (index,start_s,end_s,bytes,...) before the intervals, or one without start_s, end_s or bytes/MBps",
				     L->no);
			header = true;
			continue;
		}
		if (ts.exp && !ld->keep_experiments)
			continue;
		TRY(trace_line(line, L->no, &c, &ts, ser, err, errlen));
	}
	if (L->err)
		goto out;
	if (!header)
		FAIL("trace has no column header line (index,start_s,end_s,...)");
	if (ts.exp)
		ld->exp_at_s = ts.exp_at;
	if (bf_series_finish(ser))
		FAIL("out of memory");
	ld->ended = ts.ended;
	ld->failed = ts.failed;
	ld->err_no = ts.err_no;
	if (ts.failed)
		warn(ld, "the run failed (errno %ld%s%s): the curve ends where it failed",
		     ts.err_no, ts.err_no < 0 ? ", " : "",
		     ts.err_no < 0 ? strerror((int)-ts.err_no) : "");
	if (ld->cut)
		warn(ld, "the last line is cut (its writer was killed in the middle of it) and left out");
	if (ts.gaps)
		warn(ld, "%u gap%s between intervals (%.1f s in all)", ts.gaps,
		     ts.gaps > 1 ? "s" : "", ts.gap_s);
	if (ts.dropped > 0 || ts.gap_lines)
		warn(ld, "%ld interval%s dropped (%u '# gap:' line%s): the curve has holes",
		     ts.dropped, ts.dropped == 1 ? "" : "s", ts.gap_lines,
		     ts.gap_lines == 1 ? "" : "s");
	if (!ts.ended)
		warn(ld, "no '# state:' line: the trace is incomplete (its writer died or the run still runs; blkfloor attach or dump completes it)");
out:
	return ret;
}

/* ---- fio bandwidth log and two-column CSV ------------------------------- */

/*
 * A curve built as its points arrive: times are interval ends, or starts
 * when the first is 0 (then each interval is known once the next point
 * comes, and the last one lasts as long as the one before).
 */
struct builder {
	struct bf_series ser;
	bool fio, start_mode, any;
	double prev_t, prev_v, prev_dt, bytes;
};

static int emit(struct builder *b, double t, double dt, double v)
{
	b->bytes += v * 1e6 * dt;
	return bf_series_add(&b->ser, t, dt, v, b->bytes);
}

static int feed(struct builder *b, double t, double v, char *err,
		size_t errlen)
{
	int ret = 0;

	if (!b->any) {
		b->any = true;
		b->start_mode = t <= 0;
		b->prev_t = t;
		b->prev_v = v;
		if (!b->start_mode) {
			b->prev_dt = t;
			ret = emit(b, t, t, v);
		}
		goto out;
	}
	if (t <= b->prev_t) {
		if (b->fio)
			snprintf(err, errlen,
				 "time repeats or goes backwards at %g ms: this looks like a per-I/O fio log; record the bandwidth log with --log_avg_msec=1000 (or 100)",
				 t * 1000);
		else
			snprintf(err, errlen,
				 "time goes backwards or repeats at %g s", t);
		return -EINVAL;
	}
	if (b->start_mode)
		ret = emit(b, t, t - b->prev_t, b->prev_v);
	else
		ret = emit(b, t, t - b->prev_t, v);
	b->prev_dt = t - b->prev_t;
	b->prev_t = t;
	b->prev_v = v;
out:
	if (ret)
		snprintf(err, errlen, "out of memory");
	return ret;
}

static int finish(struct builder *b, char *err, size_t errlen)
{
	int ret = 0;

	if (b->start_mode && b->ser.n + b->ser.nacc >= 1)
		ret = emit(b, b->prev_t + b->prev_dt, b->prev_dt, b->prev_v);
	ret = ret ?: bf_series_finish(&b->ser);
	if (ret)
		snprintf(err, errlen, "out of memory");
	return ret;
}

/*
 * Does this first data line look like a fio log? (the guess) fio writes
 * "msec, value, ddir, bs" and, in newer versions, the offset and the
 * priority after them: four to six fields.
 */
static bool looks_fio(char **fld, int nf)
{
	double v[4];
	int j;

	if (nf < 4 || nf > 6)
		return false;
	for (j = 0; j < 4; j++)
		if (!is_num(fld[j], &v[j]))
			return false;
	return v[2] == floor(v[2]) && v[2] >= 0 && v[2] <= 2 &&
	       v[0] == floor(v[0]);
}

/* ---- units named in a CSV header ------------------------------------------ */

struct hunit {
	const char *name;
	double scale;		/* to seconds, or to MB/s */
};

static const struct hunit time_units[] = {
	{ "s", 1 }, { "sec", 1 }, { "secs", 1 }, { "second", 1 },
	{ "seconds", 1 }, { "ms", 1e-3 }, { "msec", 1e-3 }, { "us", 1e-6 },
	{ "usec", 1e-6 }, { "\xc2\xb5s", 1e-6 }, { "ns", 1e-9 },
	{ "min", 60 }, { "h", 3600 },
	{ NULL, 0 },
};

/* As sizes are read: kB (KB), MB, GB powers of 1000, KiB... of 1024. */
static const struct hunit rate_units[] = {
	{ "B/s", 1e-6 }, { "kB/s", 1e-3 }, { "KB/s", 1e-3 }, { "MB/s", 1 },
	{ "GB/s", 1e3 }, { "KiB/s", 1024 / 1e6 }, { "MiB/s", 1048576 / 1e6 },
	{ "GiB/s", 1073741824 / 1e6 },
	{ NULL, 0 },
};

static const struct hunit *find_hunit(const struct hunit *u, const char *n)
{
	for (; u->name; u++)
		if (!strcmp(u->name, n))
			return u;
	return NULL;
}

/*
 * The unit a header field names, into @u: "time (s)", "t [ms]", "time_ms",
 * "rate_MiB/s", "MBps" (read as MB/s), "seconds". Returns whether it names
 * one: a bracketed word, a word with '/', one ending in "ps", or a known
 * unit after the last '_' or blank. "time" and "rate" name none.
 */
static bool field_unit(const char *fld, char *u, size_t len)
{
	const char *open = strpbrk(fld, "(["), *p;
	size_t l;
	bool named;

	if (open) {
		p = open + 1;
		l = strcspn(p, ")]");
		named = true;
	} else {
		p = fld + strlen(fld);
		while (p > fld && p[-1] != '_' && p[-1] != ' ')
			p--;
		l = strlen(p);
		named = strchr(p, '/') || (l > 2 && !strcmp(p + l - 2, "ps"));
	}
	snprintf(u, len, "%.*s", (int)l, p);
	l = strlen(u);
	/* "MBps" and "MB/sec" are "MB/s" */
	if (l > 2 && !strcmp(u + l - 2, "ps") && !strchr(u, '/') && l + 1 < len)
		strcpy(u + l - 2, "/s");
	else if (l > 4 && !strcmp(u + l - 4, "/sec"))
		u[l - 2] = '\0';
	return named || find_hunit(time_units, u) || find_hunit(rate_units, u);
}

/* ---- fio bandwidth log and two-column CSV ------------------------------- */

struct columns {
	bool first;		/* no line read yet */
	bool fio;
	bool header;		/* a header line was read */
	bool any;		/* a data line was read */
	double tscale, rscale;	/* the header's units to seconds and MB/s */
	const char *tunit, *runit;
	bool epoch;		/* fio times are Unix epoch milliseconds */
	double t0;		/* ... of the first sample */
};

/* A non-numeric first line: the column names, maybe with units. */
static int header_line(char **fld, int nf, long no, struct columns *cs,
		       char *err, size_t errlen)
{
	const struct hunit *h;
	char u[32];
	int ret = 0, i;

	cs->header = true;
	for (i = 0; i < nf; i++)
		if (!strcmp(fld[i], "start_s") || !strcmp(fld[i], "end_s"))
			FAIL("line %ld: a blkfloor trace's column header without the trace's first line '# blkfloor-trace v1'",
			     no);
	for (i = 0; i < nf && i < 2; i++) {
		if (!field_unit(fld[i], u, sizeof(u)))
			continue;
		h = find_hunit(i ? rate_units : time_units, u);
		if (!h)
			FAIL("line %ld: the header's unit '%s' (column '%.40s') is not known: %s",
			     no, u, fld[i], i ?
			     "rates in B/s, kB/s, MB/s, GB/s, KiB/s, MiB/s or GiB/s" :
			     "times in s, ms, us, ns, min or h");
		if (i) {
			cs->rscale = h->scale;
			cs->runit = h->name;
		} else {
			cs->tscale = h->scale;
			cs->tunit = h->name;
		}
	}
out:
	return ret;
}

/* Skip blanks and one comma or semicolon between them. */
static const char *sep(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == ',' || *p == ';')
		p++;
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/*
 * "123.4567" without strtod: an integer mantissa under 2^53 divided by a
 * power of ten up to 10^22 is correctly rounded (both are exact doubles),
 * so the result is the one strtod gives (Clinger's fast path). Anything
 * else (an exponent, more digits) returns false.
 */
static bool clinger(const char **p, double *v)
{
	static const double p10[] = {
		1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
		1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21,
		1e22,
	};
	const char *s = *p;
	bool neg = *s == '-', dot = false;
	uint64_t m = 0;
	int frac = 0, digits = 0;

	s += neg;
	for (;; s++) {
		if (*s >= '0' && *s <= '9') {
			if (++digits > 15)
				return false;
			m = m * 10 + (uint64_t)(*s - '0');
			frac += dot;
		} else if (*s == '.' && !dot) {
			dot = true;
		} else {
			break;
		}
	}
	if (!digits || *s == 'e' || *s == 'E' || frac > 22)
		return false;
	*v = (double)m / p10[frac];
	if (neg)
		*v = -*v;
	*p = s;
	return true;
}

/* One plain decimal number at *p (no hex, no inf/nan: those take the
 * slow path and its error message); advances *p. */
static bool fast_num(const char **p, double *v)
{
	const char *s = *p;
	char *end;

	if (!((*s >= '0' && *s <= '9') || *s == '.' ||
	      (*s == '-' && s[1] >= '0' && s[1] <= '9')) ||
	    (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')))
		return false;
	if (clinger(p, v))
		return true;
	*v = strtod(s, &end);
	if (end == s || !isfinite(*v) || fabs(*v) > BF_NUM_MAX)
		return false;
	*p = end;
	return true;
}

/*
 * The common line, "t,v" (CSV) or "t, v, ddir, bs..." (fio), parsed
 * without splitting; anything unusual returns false for the full parse.
 */
static bool fast_line(const char *line, bool fio, double *t, double *v,
		      double *d)
{
	const char *p = line;

	if (!fast_num(&p, t))
		return false;
	p = sep(p);
	if (!fast_num(&p, v))
		return false;
	if (!fio)
		return !*sep(p) && !strchr(line, ';');
	p = sep(p);
	if (!fast_num(&p, d))
		return false;
	return *p == ',' && *sep(p);	/* a fourth field follows */
}

/* Epoch milliseconds from 1973 on: no job runs for that long. */
#define BF_EPOCH_MS	1e11

static int column_line(char *line, long no, struct columns *cs,
		       struct builder *B, char *err, size_t errlen)
{
	char *fld[MAXF], copy[512];
	double t, v, d = 0;
	bool fio = cs->fio;
	int nf, ret = 0;

	if (fast_line(line, fio, &t, &v, &d)) {
		cs->first = false;
		goto checks;
	}

	if (!fio && strchr(line, ';') && strchr(line, ','))
		FAIL("line %ld: a decimal comma? numbers need a decimal point ('%.40s')",
		     no, line);
	snprintf(copy, sizeof(copy), "%s", line);
	nf = split(line, fld, MAXF, false);
	if (cs->first && !fio && nf >= 1 && !is_num(fld[0], &t) &&
	    parse_num(fld[0], &t) == NUM_BAD) {
		cs->first = false;
		/* names may hold blanks: "time (s), rate (MiB/s)" */
		if (strchr(copy, ','))
			nf = split(copy, fld, MAXF, true);
		return header_line(fld, nf, no, cs, err, errlen);
	}
	cs->first = false;
	if (fio && nf < 4)
		FAIL("line %ld: not a fio bandwidth log line (msec, KiB/s, ddir, bs)",
		     no);
	if (!fio && nf != 2 && !cs->any && !cs->header)
		FAIL("line %ld: %d fields and no header line: not two columns (seconds, MB/s) nor a fio bandwidth log (msec, KiB/s, ddir, bs: 4 to 6 fields); a blkfloor trace starts with '# blkfloor-trace v1'",
		     no, nf);
	if (!fio && nf != 2)
		FAIL("line %ld: expected two numbers, seconds and MB/s, found %d fields%s",
		     no, nf, nf == 4 && strchr(line, ',') ?
		     " (decimal commas are not accepted)" : "");
	TRY(need_num(err, errlen, no, "time", fld[0], &t));
	TRY(need_num(err, errlen, no, "rate", fld[1], &v));
	if (fio)
		TRY(need_num(err, errlen, no, "ddir", fld[2], &d));
checks:
	if (t < 0 || v < 0)
		FAIL("line %ld: a negative %s", no, t < 0 ? "time" : "rate");
	if (fio && (d != 0 && d != 1 && d != 2))
		FAIL("line %ld: ddir %g is not 0, 1 or 2", no, d);
	if (fio) {
		/* log_unix_epoch: the curve starts at the first sample */
		if (!cs->any && t >= BF_EPOCH_MS) {
			cs->epoch = true;
			cs->t0 = t;
		}
		if (cs->epoch && t < cs->t0)
			FAIL("line %ld: time goes backwards (%.0f ms after %.0f)",
			     no, t, cs->t0);
		t = (t - cs->t0) / 1000;
		v *= 1024 / 1e6;	/* KiB/s to MB/s */
	} else {
		t *= cs->tscale;
		v *= cs->rscale;
	}
	cs->any = true;
	if (v > BF_RATE_MAX || t > BF_TIME_MAX)
		FAIL("line %ld: %g MB/s at %g s is out of range", no, v, t);
	B[(int)d].fio = fio;
	ret = feed(&B[(int)d], t, v, err, errlen);
out:
	return ret;
}

static int read_columns(struct lines *L, struct bf_load *ld,
			struct bf_series *ser, char *err, size_t errlen)
{
	static const char *const dir_name[3] = { "read", "write", "trim" };
	struct builder B[3] = { { .ser = { 0 } } };
	struct columns cs = { .first = true, .tscale = 1, .rscale = 1,
			      .tunit = "s", .runit = "MB/s" };
	int ret = 0, want = -1, i;
	bool fio = false;
	char *line;

	while ((line = next_line(L))) {
		if (line[0] == '#' || blank(line))
			continue;
		if (ld->format == BF_FORMAT_AUTO) {
			char copy[512], *fld[MAXF];

			snprintf(copy, sizeof(copy), "%s", line);
			ld->format = looks_fio(fld, split(copy, fld, MAXF, false)) ?
				     BF_FORMAT_FIO : BF_FORMAT_CSV;
			ld->guessed = true;
		}
		fio = cs.fio = ld->format == BF_FORMAT_FIO;
		TRY(column_line(line, L->no, &cs, B, err, errlen));
		for (i = 0; want < 0 && i < 3; i++)
			if (B[i].any)
				want = i;
	}
	if (L->err)
		goto out;
	/* a fio log with writes gives its writes, else its one direction */
	if (B[1].any)
		want = 1;
	if (want < 0 || B[want].ser.n + B[want].ser.nacc +
			B[want].start_mode < 2)
		FAIL("fewer than two samples%s", fio && want >= 0 ?
		     " in that direction" : "");
	if (fio)
		snprintf(ld->op, sizeof(ld->op), "%s", dir_name[want]);
	else
		snprintf(ld->units, sizeof(ld->units), "%s, %s", cs.tunit,
			 cs.runit);
	TRY(finish(&B[want], err, errlen));
	if (!ser->n) {
		bf_series_free(ser);
		*ser = B[want].ser;
		B[want].ser = (struct bf_series){ 0 };
	} else {
		for (size_t k = 0; k < B[want].ser.n && !ret; k++) {
			const struct bf_sample *x = &B[want].ser.s[k];

			ret = bf_series_push(ser, x->t, x->dt, x->mbps, x->bytes);
		}
	}
out:
	for (i = 0; i < 3; i++)
		bf_series_free(&B[i].ser);
	return ret;
}

int bf_series_read_as(FILE *f, struct bf_load *ld, struct bf_series *ser,
		      char *err, size_t errlen)
{
	struct lines L = { .f = f };
	char *line;
	int ret;

	ld->warn[0] = '\0';
	ld->op[0] = ld->units[0] = '\0';
	ld->guessed = ld->ended = ld->failed = ld->cut = false;
	ld->err_no = 0;
	ld->exp_at_s = -1;
	line = next_line(&L);
	if (line) {
		L.pending = true;
		/* a UTF-8 byte order mark, as some editors write one */
		if (!strncmp(line, "\xef\xbb\xbf", 3))
			memmove(line, line + 3, strlen(line + 3) + 1);
	} else if (!L.err) {
		snprintf(err, errlen, "the file is empty");
		free(L.buf);
		return -EINVAL;
	}
	if (ld->format == BF_FORMAT_AUTO && line &&
	    !strncmp(line, "# blkfloor-trace", 16)) {
		ld->format = BF_FORMAT_TRACE;
		ld->guessed = true;
	}
	if (ld->format == BF_FORMAT_TRACE)
		ret = read_trace(&L, ld, ser, err, errlen);
	else
		ret = read_columns(&L, ld, ser, err, errlen);
	if (L.binary) {
		snprintf(err, errlen, "binary data (byte 0x%02x on line %ld): not a blkfloor trace, a fio bandwidth log or a CSV",
			 L.binary - 1, L.no);
		ret = -EINVAL;
	} else if (L.err) {
		snprintf(err, errlen, "read error after line %ld: %s", L.no,
			 strerror(L.err));
		ret = -L.err;
	}
	free(L.buf);
	/* nothing half read stays behind */
	if (ret)
		bf_series_free(ser);
	return ret;
}

int bf_series_read(FILE *f, struct bf_series *ser, char *err, size_t errlen)
{
	struct bf_load ld = { .format = BF_FORMAT_AUTO };

	return bf_series_read_as(f, &ld, ser, err, errlen);
}

int bf_series_load_as(const char *path, struct bf_load *ld,
		      struct bf_series *ser, char *err, size_t errlen)
{
	bool std = !strcmp(path, "-");
	FILE *f = std ? stdin : fopen(path, "r");
	char why[320];
	struct stat st;
	int ret;

	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return ret;
	}
	if (!fstat(fileno(f), &st) && S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: is a directory", path);
		if (!std)
			fclose(f);
		return -EISDIR;
	}
	ret = bf_series_read_as(f, ld, ser, why, sizeof(why));
	if (!std)
		fclose(f);
	if (ret)
		snprintf(err, errlen, "%s: %s", std ? "stdin" : path, why);
	return ret;
}

int bf_series_load(const char *path, struct bf_series *ser, char *err,
		   size_t errlen)
{
	struct bf_load ld = { .format = BF_FORMAT_AUTO };

	return bf_series_load_as(path, &ld, ser, err, errlen);
}
