// SPDX-License-Identifier: GPL-2.0
/*
 * What a trace says about its run apart from the curve (see runsum.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "pathsum.h"
#include "runsum.h"

static const char *const rkey_names[BF_RK_COUNT] = {
	"device", "model", "serial", "size_bytes", "transport", "kernel", "op",
	"pattern", "bs", "qd", "region", "driver", "usb_speed", "usb_id",
	"usb_bcd_device", "usb_storage_quirks", "firmware", "module_version",
	"max_sectors_kb", "queue_depth", "scheduler", "nomerges", "boot_id",
	"kernel_tainted", "usb_manufacturer", "usb_product", "scsi_results",
	"events",
};

static const char *const lat_cols[BF_RL_COUNT] = {
	"lat_p50_us", "lat_p99_us", "lat_p999_us", "lat_max_us",
};

/* struct bf_runsum's @have holds a bit per item */
_Static_assert(BF_RK_COUNT <= 32, "more header items than bits in have");

const char *bf_rkey_name(enum bf_rkey k)
{
	return k < BF_RK_COUNT ? rkey_names[k] : "?";
}

size_t bf_whole_lines(const char *buf, size_t len)
{
	while (len && buf[len - 1] != '\n')
		len--;
	return len;
}

static void header_item(const char *line, struct bf_runsum *r)
{
	size_t k, l;

	for (k = 0; k < BF_RK_COUNT; k++) {
		l = strlen(rkey_names[k]);
		if (!strncmp(line + 2, rkey_names[k], l) && line[2 + l] == ':') {
			const char *v = line + 3 + l;

			while (*v == ' ')
				v++;
			snprintf(r->hdr[k], sizeof(r->hdr[k]), "%s", v);
			r->have |= 1u << k;
			return;
		}
	}
}

static int add_mark(struct bf_runsum *r, double t, const char *kind)
{
	struct bf_rmark *m = bf_grow(r->mark, &r->mcap, r->nmark + 1,
				     sizeof(*m), 64);

	if (!m)
		return -ENOMEM;
	r->mark = m;
	m[r->nmark].t = t;
	snprintf(m[r->nmark].kind, sizeof(m[0].kind), "%s", kind);
	r->nmark++;
	return 0;
}

static int add_gap(struct bf_runsum *r, double t, double secs)
{
	struct bf_rgap *g = bf_grow(r->gap, &r->gcap, r->ngap + 1,
				    sizeof(*g), 16);

	if (!g)
		return -ENOMEM;
	r->gap = g;
	g[r->ngap].t = t;
	g[r->ngap].secs = secs;
	r->ngap++;
	return 0;
}

/* "KEY=NUMBER" in @s; NAN if absent */
static double field(const char *s, const char *key)
{
	size_t l = strlen(key);
	const char *p = s;

	while ((p = strstr(p, key))) {
		if ((p == s || p[-1] == ' ') && p[l] == '=')
			return strtod(p + l + 1, NULL);
		p += l;
	}
	return NAN;
}

/* "# run_latency_us: p50=X p99=X p999=X max=X ios=N" */
static void run_latency(const char *s, struct bf_runsum *r)
{
	static const char *const k[BF_RL_COUNT] = { "p50", "p99", "p999",
						    "max" };
	double v[BF_RL_COUNT];
	int i;

	for (i = 0; i < BF_RL_COUNT; i++) {
		v[i] = field(s, k[i]);
		if (!isfinite(v[i]) || v[i] < 0)
			return;
	}
	memcpy(r->run_lat, v, sizeof(v));
	r->have_run_lat = true;
}

/* "# host_cpu: steal_pct=X thread_cpu_s=X thread_wait_s=X run_s=X" */
static void host_cpu(const char *s, struct bf_runsum *r)
{
	r->steal_pct = field(s, "steal_pct");
	r->thread_cpu_s = field(s, "thread_cpu_s");
	r->thread_wait_s = field(s, "thread_wait_s");
	r->run_s = field(s, "run_s");
}

static int add_trial(struct bf_runsum *r, double t,
		     const struct bf_trial *tr)
{
	struct bf_rtrial *x = bf_grow(r->trial, &r->tcap, r->ntrial + 1,
				      sizeof(*x), 16);

	if (!x)
		return -ENOMEM;
	r->trial = x;
	x[r->ntrial].t = t;
	x[r->ntrial].trial = *tr;
	r->ntrial++;
	return 0;
}

/*
 * "# event: T KIND MESSAGE", "# error: T OP LBA BYTES ERRNO CLASS LAT_US",
 * "# experiment: idle at T s for S s[, ...]", "# experiment: result ...",
 * the trailer's lines
 */
/* "T TEXT" of a "# scsi_result:" or "# kmsg:" line, into @n (max @max) */
static void note_line(const char *s, struct bf_rnote *n, size_t *k,
		      size_t max)
{
	char *end;
	double t = strtod(s, &end);

	if (end == s || !isfinite(t) || *k >= max)
		return;
	while (*end == ' ')
		end++;
	n[*k].t = t;
	snprintf(n[*k].text, sizeof(n[*k].text), "%s", end);
	(*k)++;
}

static int comment(const char *line, struct bf_runsum *r)
{
	struct bf_trial tr;
	char word[32];
	double t;
	int ret;

	if (!strncmp(line, "# path_modules:", 15)) {
		line += 15;
		while (*line == ' ')
			line++;
		snprintf(r->modules, sizeof(r->modules), "%s", line);
	} else if (!strncmp(line, "# scsi_result:", 14)) {
		r->scsi_res_all++;
		note_line(line + 14, r->scsi_res, &r->nscsi_res, BF_RS_NOTES);
	} else if (!strncmp(line, "# kmsg:", 7)) {
		note_line(line + 7, r->kmsg, &r->nkmsg, BF_RS_NOTES);
	} else if (!strncmp(line, "# run_latency_us:", 17)) {
		run_latency(line + 17, r);
	} else if (!strncmp(line, "# host_cpu:", 11)) {
		host_cpu(line + 11, r);
	} else if (!strncmp(line, "# experiment: ", 14) &&
		   bf_trial_parse(line + 14, &tr, &t)) {
		ret = add_trial(r, t, &tr);
		if (!ret && tr.gap_s > 0)
			ret = add_gap(r, t, tr.gap_s);
		return ret;
	} else if (!strncmp(line, "# experiment: ", 14) &&
		   r->nres < BF_EXP_COUNT &&
		   bf_evidence_parse(line + 14, &r->res[r->nres])) {
		r->nres++;
	} else if (sscanf(line, "# event: %lf %31s", &t, word) == 2) {
		BF_TALLY(r->ev, r->nev, sizeof(r->ev) / sizeof(r->ev[0]), word);
		return add_mark(r, t, word);
	} else if (sscanf(line, "# error: %lf %*s %*s %*s %*s %31s", &t,
			  word) == 2) {
		r->logged++;
		BF_TALLY(r->cls, r->ncls, BF_RS_CLASSES, word);
	} else if (sscanf(line, "# state: %15s", r->state) == 1) {
		;
	} else if (!strncmp(line, "# errno:", 8)) {
		r->err_no = strtol(line + 8, NULL, 10);
	} else if (line[1] == ' ') {
		header_item(line, r);
	}
	return 0;
}

#define MAXF BF_CSV_MAXF

static int num(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return end == s || *end || !isfinite(*v) || *v < 0 || errno ?
	       -EINVAL : 0;
}

/* room for one more interval in every latency column */
static int grow(struct bf_runsum *r)
{
	size_t c = r->cap;
	double *p;

	for (int k = 0; k < BF_RL_COUNT; k++) {
		c = r->cap;
		p = bf_grow(r->lat[k], &c, r->nlat + 1, sizeof(double), 256);
		if (!p)
			return -ENOMEM;
		r->lat[k] = p;
	}
	c = r->cap;
	p = bf_grow(r->ios, &c, r->nlat + 1, sizeof(double), 256);
	if (!p)
		return -ENOMEM;
	r->ios = p;
	r->cap = c;
	return 0;
}

int bf_runsum_read(FILE *f, struct bf_runsum *r, char *err, size_t errlen)
{
	int col_lat[BF_RL_COUNT], col_err = -1, col_ios = -1, i, n, k;
	int col_st = -1, col_en = -1;
	char *line = NULL, *fld[MAXF];
	bool header = false;
	size_t cap = 0;
	long no = 0;
	int ret = 0;

	memset(r, 0, sizeof(*r));
	r->steal_pct = r->thread_cpu_s = r->thread_wait_s = r->run_s = NAN;
	for (k = 0; k < BF_RL_COUNT; k++)
		col_lat[k] = -1;
	while (getline(&line, &cap, f) >= 0) {
		double v, ios = 1;

		line[strcspn(line, "\r\n")] = '\0';
		no++;
		if (line[0] == '#') {
			if (comment(line, r))
				goto nomem;
			continue;
		}
		if (!line[0])
			continue;
		n = bf_csv_split(line, fld);
		if (!header) {
			for (i = 0; i < n; i++) {
				for (k = 0; k < BF_RL_COUNT; k++)
					if (!strcmp(fld[i], lat_cols[k]))
						col_lat[k] = i;
				if (!strcmp(fld[i], "errors"))
					col_err = i;
				if (!strcmp(fld[i], "ios"))
					col_ios = i;
				if (!strcmp(fld[i], "start_s"))
					col_st = i;
				if (!strcmp(fld[i], "end_s"))
					col_en = i;
			}
			header = true;
			continue;
		}
		r->intervals++;
		if (col_err >= 0 && col_err < n && fld[col_err][0]) {
			if (num(fld[col_err], &v))
				goto bad_err;
			r->errors += llround(v);
			r->err_ivs += v > 0;
			if (v > 0 && col_st >= 0 && col_en >= 0 &&
			    col_st < n && col_en < n &&
			    add_mark(r, (strtod(fld[col_st], NULL) +
					 strtod(fld[col_en], NULL)) / 2,
				     "errors"))
				goto nomem;
		}
		if (col_ios >= 0 && col_ios < n && num(fld[col_ios], &ios))
			goto bad_ios;
		if (!ios || col_lat[BF_RL_P99] < 0 ||
		    col_lat[BF_RL_P99] >= n || !strtod(fld[col_lat[BF_RL_P99]], NULL))
			continue;	/* no I/O completed, or not measured */
		if (grow(r))
			goto nomem;
		for (k = 0; k < BF_RL_COUNT; k++) {
			v = NAN;
			if (col_lat[k] >= 0 && col_lat[k] < n &&
			    num(fld[col_lat[k]], &v)) {
				snprintf(err, errlen, "line %ld: %s '%.40s' is not a number",
					 no, lat_cols[k], fld[col_lat[k]]);
				ret = -EINVAL;
				goto out;
			}
			r->lat[k][r->nlat] = v;
		}
		r->ios[r->nlat] = ios;
		r->nlat++;
	}
	goto out;
nomem:
	snprintf(err, errlen, "out of memory");
	ret = -ENOMEM;
	goto out;
bad_err:
	snprintf(err, errlen, "line %ld: errors '%.40s' is not a number", no,
		 fld[col_err]);
	ret = -EINVAL;
	goto out;
bad_ios:
	snprintf(err, errlen, "line %ld: ios '%.40s' is not a number", no,
		 fld[col_ios]);
	ret = -EINVAL;
out:
	free(line);
	if (ret)
		bf_runsum_free(r);
	return ret;
}

void bf_runsum_free(struct bf_runsum *r)
{
	for (int k = 0; k < BF_RL_COUNT; k++) {
		free(r->lat[k]);
		r->lat[k] = NULL;
	}
	free(r->ios);
	r->ios = NULL;
	r->nlat = r->cap = 0;
	free(r->mark);
	r->mark = NULL;
	r->nmark = r->mcap = 0;
	free(r->gap);
	r->gap = NULL;
	r->ngap = r->gcap = 0;
	free(r->trial);
	r->trial = NULL;
	r->ntrial = r->tcap = 0;
	r->nres = 0;
}

unsigned long long bf_runsum_events(const struct bf_runsum *r,
				    const char *kind)
{
	for (size_t i = 0; i < r->nev; i++)
		if (!strcmp(r->ev[i].name, kind))
			return r->ev[i].n;
	return 0;
}
