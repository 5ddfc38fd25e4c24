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
 *  - two columns, seconds and MB/s, '#' comments, an optional non-numeric
 *    header. Times are taken as interval ends, or as interval starts when
 *    the first one is 0.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"

int bf_series_push(struct bf_series *ser, double t, double dt, double mbps,
		   double bytes)
{
	if (ser->n == ser->cap) {
		size_t cap = ser->cap ? ser->cap * 2 : 256;
		struct bf_sample *s = realloc(ser->s, cap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		ser->s = s;
		ser->cap = cap;
	}
	ser->s[ser->n++] = (struct bf_sample){
		.t = t, .dt = dt, .mbps = mbps, .bytes = bytes,
	};
	return 0;
}

void bf_series_free(struct bf_series *ser)
{
	free(ser->s);
	ser->s = NULL;
	ser->n = ser->cap = 0;
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

/* ---- line splitting ----------------------------------------------------- */

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
		if (commas_only)
			end = p + strcspn(p, ",");
		else
			end = p + strcspn(p, ",; \t");
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
	/* trim trailing blanks */
	for (int i = 0; i < n; i++) {
		size_t l = strlen(fld[i]);

		while (l && isspace((unsigned char)fld[i][l - 1]))
			fld[i][--l] = '\0';
	}
	return n;
}

static bool num(const char *s, double *v)
{
	char *end;

	if (!*s)
		return false;
	errno = 0;
	*v = strtod(s, &end);
	return !errno && !*end && isfinite(*v);
}

static bool blank(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return !*s;
}

static void chomp(char *s)
{
	size_t l = strlen(s);

	while (l && (s[l - 1] == '\n' || s[l - 1] == '\r'))
		s[--l] = '\0';
}

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); ret = -EINVAL; goto out; } while (0)

/* ---- blkfloor trace ------------------------------------------------------ */

static int read_trace(FILE *f, struct bf_series *ser, char *err, size_t errlen)
{
	int c_start = -1, c_end = -1, c_bytes = -1, c_rate = -1, c_total = -1;
	char *line = NULL, *fld[MAXF];
	size_t cap = 0;
	long lineno = 0;
	bool header = false;
	double sum = 0;
	int ret = 0;

	while (getline(&line, &cap, f) > 0) {
		double st, en, by = 0, rate, tot;
		int n, i;

		lineno++;
		chomp(line);
		if (line[0] == '#' || blank(line))
			continue;
		n = split(line, fld, MAXF, true);
		if (!header) {
			for (i = 0; i < n; i++) {
				if (!strcmp(fld[i], "start_s"))
					c_start = i;
				else if (!strcmp(fld[i], "end_s"))
					c_end = i;
				else if (!strcmp(fld[i], "bytes"))
					c_bytes = i;
				else if (!strcmp(fld[i], "MBps"))
					c_rate = i;
				else if (!strcmp(fld[i], "bytes_total"))
					c_total = i;
			}
			if (c_start < 0 || c_end < 0 || (c_bytes < 0 && c_rate < 0))
				FAIL("line %ld: trace header lacks start_s, end_s or bytes/MBps",
				     lineno);
			header = true;
			continue;
		}
		if (n <= c_start || n <= c_end || !num(fld[c_start], &st) ||
		    !num(fld[c_end], &en) ||
		    (c_bytes >= 0 && (n <= c_bytes || !num(fld[c_bytes], &by))))
			FAIL("line %ld: malformed interval", lineno);
		if (en - st <= 0)
			continue;	/* an empty interval carries no rate */
		if (c_rate < 0 || n <= c_rate || !num(fld[c_rate], &rate))
			rate = by / (en - st) / 1e6;
		if (c_bytes < 0)
			by = rate * 1e6 * (en - st);
		sum += by;
		if (c_total < 0 || n <= c_total || !num(fld[c_total], &tot))
			tot = sum;
		if (rate < 0)
			FAIL("line %ld: negative rate", lineno);
		ret = bf_series_push(ser, en, en - st, rate, tot);
		if (ret) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
	}
	if (!header)
		FAIL("trace has no header line");
out:
	free(line);
	return ret;
}

/* ---- fio bandwidth log and two-column CSV ------------------------------- */

struct raw { double t, v; int dir; };

static int from_points(struct raw *p, size_t n, bool t_is_start, double scale,
		       struct bf_series *ser, char *err, size_t errlen)
{
	double bytes = 0, dt, t;
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		if (i && p[i].t <= p[i - 1].t) {
			snprintf(err, errlen,
				 "time goes backwards or repeats at %g s",
				 p[i].t);
			return -EINVAL;
		}
	}
	for (i = 0; i < n; i++) {
		if (t_is_start) {
			dt = i + 1 < n ? p[i + 1].t - p[i].t : p[i].t - p[i - 1].t;
			t = p[i].t + dt;
		} else {
			dt = i ? p[i].t - p[i - 1].t :
			     (p[0].t > 0 ? p[0].t : p[1].t - p[0].t);
			t = p[i].t;
		}
		if (p[i].v < 0) {
			snprintf(err, errlen, "negative rate at %g s", p[i].t);
			return -EINVAL;
		}
		bytes += p[i].v * scale * dt;
		ret = bf_series_push(ser, t, dt, p[i].v * scale / 1e6, bytes);
		if (ret) {
			snprintf(err, errlen, "out of memory");
			return ret;
		}
	}
	return 0;
}

static int read_columns(FILE *f, struct bf_series *ser, char *err,
			size_t errlen)
{
	struct raw *p = NULL;
	size_t n = 0, cap = 0, i, k;
	char *line = NULL, *fld[MAXF];
	size_t lcap = 0;
	long lineno = 0, data = 0;
	int fmt = 0;	/* 1 = fio, 2 = csv */
	bool dirs[3] = { false, false, false };
	int ret = 0, want;

	while (getline(&line, &lcap, f) > 0) {
		double v[4];
		int nf, j;

		lineno++;
		chomp(line);
		if (line[0] == '#' || blank(line))
			continue;
		nf = split(line, fld, MAXF, false);
		for (j = 0; j < nf && j < 4; j++)
			if (!num(fld[j], &v[j]))
				break;
		if (!data && j < 2 && !fmt) {
			fmt = 2;	/* a non-numeric header line */
			continue;
		}
		data++;
		if (!fmt)
			fmt = nf >= 4 && j == 4 && v[2] == floor(v[2]) &&
			      v[2] >= 0 && v[2] <= 2 && v[0] == floor(v[0]) ?
			      1 : 2;
		if (fmt == 1 && (nf < 4 || j < 4 || v[2] < 0 || v[2] > 2))
			FAIL("line %ld: not a fio bandwidth log line", lineno);
		if (fmt == 2 && (j < 2 || (nf != 2 && data == 1 && nf > 3)))
			FAIL("line %ld: expected two numbers, seconds and MB/s",
			     lineno);
		if (n == cap) {
			struct raw *q;

			cap = cap ? 2 * cap : 1024;
			q = realloc(p, cap * sizeof(*p));
			if (!q) {
				snprintf(err, errlen, "out of memory");
				ret = -ENOMEM;
				goto out;
			}
			p = q;
		}
		p[n].t = fmt == 1 ? v[0] / 1000 : v[0];
		p[n].v = v[1];
		p[n].dir = fmt == 1 ? (int)v[2] : 0;
		dirs[p[n].dir] = true;
		n++;
	}
	if (n < 2)
		FAIL("fewer than two samples");
	if (fmt == 1) {
		want = dirs[1] ? 1 : p[0].dir;
		for (i = 0, k = 0; i < n; i++)
			if (p[i].dir == want)
				p[k++] = p[i];
		n = k;
		if (n < 2)
			FAIL("fewer than two samples in direction %d", want);
		ret = from_points(p, n, false, 1024, ser, err, errlen);
	} else {
		ret = from_points(p, n, p[0].t <= 0, 1e6, ser, err, errlen);
	}
out:
	free(line);
	free(p);
	return ret;
}

int bf_series_read(FILE *f, struct bf_series *ser, char *err, size_t errlen)
{
	char first[64] = "";
	int c;
	size_t i = 0;

	/* peek at the first line */
	while ((c = getc(f)) != EOF && c != '\n' && i + 1 < sizeof(first))
		first[i++] = c;
	first[i] = '\0';
	if (c != EOF && c != '\n')
		while ((c = getc(f)) != EOF && c != '\n')
			;
	if (!strncmp(first, "# blkfloor-trace", 16))
		return read_trace(f, ser, err, errlen);
	if (fseek(f, 0, SEEK_SET)) {
		snprintf(err, errlen, "input is not seekable");
		return -EINVAL;
	}
	return read_columns(f, ser, err, errlen);
}

int bf_series_load(const char *path, struct bf_series *ser, char *err,
		   size_t errlen)
{
	FILE *f = fopen(path, "r");
	int ret;

	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return ret;
	}
	ret = bf_series_read(f, ser, err, errlen);
	fclose(f);
	if (!ret && ser->n < 3) {
		snprintf(err, errlen, "%s: only %zu samples", path, ser->n);
		ret = -EINVAL;
	}
	return ret;
}
