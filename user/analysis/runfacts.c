// SPDX-License-Identifier: GPL-2.0
/*
 * A classification read with the whole run (see runfacts.h).
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "runfacts.h"
#include "stats.h"

void bf_run_facts_read(struct bf_run_facts *f, const struct bf_runsum *rs)
{
	size_t k;

	memset(f, 0, sizeof(*f));
	f->known = true;
	snprintf(f->op, sizeof(f->op), "%.15s", rs->hdr[BF_RK_OP]);
	snprintf(f->state, sizeof(f->state), "%.15s", rs->state);
	f->err_no = rs->err_no;
	f->errors = rs->errors;
	f->err_ivs = rs->err_ivs;
	f->intervals = rs->intervals;
	for (k = 0; k < rs->ncls && f->ncls < sizeof(f->cls) / sizeof(f->cls[0]);
	     k++) {
		snprintf(f->cls[f->ncls].name, sizeof(f->cls[0].name), "%.31s",
			 rs->cls[k].name);
		f->cls[f->ncls++].n = rs->cls[k].n;
	}
	if (rs->nlat) {
		double *v = malloc(rs->nlat * sizeof(*v));

		for (k = 0; k < rs->nlat; k++)
			if (isfinite(rs->lat[BF_RL_P99][k]) &&
			    rs->lat[BF_RL_P99][k] > f->p99_max_us)
				f->p99_max_us = rs->lat[BF_RL_P99][k];
		if (v) {
			size_t n = 0;

			for (k = 0; k < rs->nlat; k++)
				if (isfinite(rs->lat[BF_RL_P99][k]))
					v[n++] = rs->lat[BF_RL_P99][k];
			f->p99_med_us = n ? bf_median(v, n) : 0;
			free(v);
		}
	}
}

static bool is_read(const struct bf_run_facts *f)
{
	return !strcmp(f->op, "read");
}

/*
 * The classifier words a curve as a drive's writes. For a read run, its
 * words as reads, and its SLC cache as a cache (an SLC cache holds
 * writes; on reads a step is a read cache, the host's or the drive's).
 */
static const struct { const char *w, *r; } read_words[] = {
	{ "an SLC cache of about", "a cache of about" },
	{ "not an SLC cache", "not the drive" },
	{ "the drive writes at", "the drive reads at" },
	{ "the writes filled", "the reads came from" },
	{ "writing", "reading" },
	{ "written", "read" },
	{ "writes", "reads" },
	{ "write", "read" },
};

static void reword(char *text, size_t len)
{
	char out[2048];
	const char *p = text;
	size_t n = 0, k;

	while (*p && n + 1 < sizeof(out)) {
		for (k = 0; k < sizeof(read_words) / sizeof(read_words[0]); k++) {
			size_t l = strlen(read_words[k].w);

			/* whole words only ("rewrite" stays) */
			if (!strncmp(p, read_words[k].w, l) &&
			    (p == text || !isalpha((unsigned char)p[-1])) &&
			    !isalpha((unsigned char)p[l]))
				break;
		}
		if (k < sizeof(read_words) / sizeof(read_words[0])) {
			n += snprintf(out + n, sizeof(out) - n, "%s",
				      read_words[k].r);
			if (n >= sizeof(out))
				n = sizeof(out) - 1;
			p += strlen(read_words[k].w);
		} else {
			out[n++] = *p++;
		}
	}
	out[n] = '\0';
	snprintf(text, len, "%.*s", (int)(len - 1), out);
}

/* "198 I/O errors in 12 of 40 intervals" */
static void errors_words(const struct bf_run_facts *f, char *b, size_t len)
{
	snprintf(b, len, "%llu I/O error%s in %llu of %llu intervals",
		 f->errors, f->errors == 1 ? "" : "s", f->err_ivs,
		 f->intervals);
}

/* ", p99 latency up to 10.2x its median" where it reached 3x or more */
static void latency_words(const struct bf_run_facts *f, char *b, size_t len)
{
	b[0] = '\0';
	if (f->p99_med_us > 0 && f->p99_max_us >= 3 * f->p99_med_us)
		snprintf(b, len, ", p99 latency up to %.1fx its median",
			 f->p99_max_us / f->p99_med_us);
}

void bf_report_run(struct bf_report *r, const struct bf_run_facts *f)
{
	bool failed = !strcmp(f->state, "failed");
	char e[96], lat[64], first[512], rest[sizeof(r->explain)];
	size_t l;

	r->run = *f;
	r->run.qualified = false;
	if (is_read(f)) {
		reword(r->explain, sizeof(r->explain));
		reword(r->reason, sizeof(r->reason));
	}
	if (!f->errors && !failed)
		return;
	r->run.qualified = true;
	if (r->confidence > BF_ERRORS_CONFIDENCE)
		r->confidence = BF_ERRORS_CONFIDENCE;
	errors_words(f, e, sizeof(e));
	latency_words(f, lat, sizeof(lat));
	l = strlen(r->reason);
	if (f->errors)
		snprintf(r->reason + l, sizeof(r->reason) - l, "; with %s", e);
	else
		snprintf(r->reason + l, sizeof(r->reason) - l,
			 "; the run failed (errno %ld)", f->err_no);
	if (f->errors)
		snprintf(first, sizeof(first),
			 "The run had %s%s%s: the curve shows how the errors were handled (retries, timeouts, resets) as much as the drive, so the class is weak evidence; find the errors' cause (the kernel log) first. ",
			 e, lat, failed ? ", and failed" : "");
	else
		snprintf(first, sizeof(first),
			 "The run failed (errno %ld): the curve ends where it failed, and the class is weak evidence. ",
			 f->err_no);
	snprintf(rest, sizeof(rest), "%s", r->explain);
	l = (size_t)snprintf(r->explain, sizeof(r->explain), "%s", first);
	if (l < sizeof(r->explain))
		snprintf(r->explain + l, sizeof(r->explain) - l, "%.*s",
			 (int)(sizeof(r->explain) - l - 1), rest);
}

void bf_run_facts_print(FILE *out, const struct bf_report *r)
{
	const struct bf_run_facts *f = &r->run;
	char e[96], lat[64];
	size_t k;

	if (!f->known)
		return;
	fprintf(out, "run: %s, %s", f->op[0] ? f->op : "op not recorded",
		f->state[0] ? f->state : "never ended");
	if (f->err_no)
		fprintf(out, " (errno %ld)", f->err_no);
	fputc('\n', out);
	if (!f->errors)
		return;
	errors_words(f, e, sizeof(e));
	latency_words(f, lat, sizeof(lat));
	fprintf(out, "errors: %s%s", e, lat);
	for (k = 0; k < f->ncls; k++)
		fprintf(out, "%s%s %llu", k ? ", " : "; logged: ",
			f->cls[k].name, f->cls[k].n);
	fputc('\n', out);
}

void bf_run_facts_json(struct bf_json *j, const struct bf_report *r)
{
	const struct bf_run_facts *f = &r->run;
	size_t k;

	if (!f->known) {
		bf_json_null(j, "run");
		return;
	}
	bf_json_obj_open(j, "run");
	if (f->op[0])
		bf_json_str(j, "op", f->op);
	else
		bf_json_null(j, "op");
	if (f->state[0])
		bf_json_str(j, "state", f->state);
	else
		bf_json_null(j, "state");
	bf_json_i64(j, "errno", f->err_no);
	bf_json_u64(j, "io_errors", f->errors);
	bf_json_u64(j, "error_intervals", f->err_ivs);
	bf_json_u64(j, "intervals", f->intervals);
	bf_json_obj_open(j, "logged");
	for (k = 0; k < f->ncls; k++)
		bf_json_u64(j, f->cls[k].name, f->cls[k].n);
	bf_json_obj_close(j);
	bf_json_double(j, "p99_median_us", round(f->p99_med_us * 1000) / 1000);
	bf_json_double(j, "p99_max_us", round(f->p99_max_us * 1000) / 1000);
	bf_json_bool(j, "qualified", f->qualified);
	bf_json_obj_close(j);
}
