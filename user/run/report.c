// SPDX-License-Identifier: GPL-2.0
/*
 * What a finished run prints: the summary (text, JSON). Its trace is
 * written as it runs (traceout.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "blkfloor.h"
#include "report.h"
#include "result.h"
#include "units.h"

double bf_run_bps(const struct bf_run_info *ri)
{
	return ri->elapsed_ns ? ri->bytes / (ri->elapsed_ns / 1e9) : 0;
}

double bf_run_iops(const struct bf_run_info *ri)
{
	return ri->elapsed_ns ? ri->ios / (ri->elapsed_ns / 1e9) : 0;
}

static double clampd(double v, double lo, double hi)
{
	return v > hi ? hi : v < lo ? lo : v;
}

void bf_run_lat(const struct bf_run_result *res, struct bf_lat *l)
{
	memset(l, 0, sizeof(*l));
	if (!res->lat_ios)
		return;
	l->min = res->lat_min;
	l->max = res->lat_max;
	l->mean = (double)res->lat_sum / res->lat_ios;
	l->p50 = clampd(bf_hist_percentile(&res->hist, 50), l->min, l->max);
	l->p99 = clampd(bf_hist_percentile(&res->hist, 99), l->min, l->max);
	l->p999 = clampd(bf_hist_percentile(&res->hist, 99.9), l->min, l->max);
}

bool bf_sampling_beats(uint64_t interval_ns, double p50_ns, uint64_t *sugg_ns)
{
	static const unsigned int nice[] = { 1, 2, 5 };
	double want = 5 * p50_ns, ms = 1e6;
	unsigned int i;

	*sugg_ns = interval_ns;
	if (!interval_ns || !(p50_ns > 0) || 2 * p50_ns < interval_ns)
		return false;
	for (;; ms *= 10) {
		for (i = 0; i < 3; i++) {
			if (nice[i] * ms >= want || ms >= 1e12) {
				*sugg_ns = nice[i] * ms;
				return true;
			}
		}
	}
}

/* The error log: the first failed I/Os, then how many were not logged. */
static void print_err_log(FILE *f, const struct bf_run_result *res)
{
	const struct bf_run_info *ri = &res->info;
	char lat[BF_FMT_LEN];
	size_t i;

	if (!res->nerrlog && !ri->err_log_dropped)
		return;
	fprintf(f, "  error log: first %zu failed I/Os", res->nerrlog);
	if (ri->err_log_dropped)
		fprintf(f, ", %llu more not logged (--err-log %u)",
			(unsigned long long)ri->err_log_dropped, ri->err_log);
	fputc('\n', f);
	for (i = 0; i < res->nerrlog; i++) {
		const struct bf_err_entry *e = &res->errlog[i];

		fprintf(f, "    %.6f s  %s LBA %llu, %u bytes: %s (%d, %s) after %s\n",
			e->time_ns / 1e9, bf_op_name(e->op),
			(unsigned long long)e->sector, e->bytes,
			strerror(-e->err), e->err, bf_err_class_name(e->class),
			bf_fmt_lat(lat, sizeof(lat), e->lat_ns));
	}
}

void bf_run_print_summary(FILE *f, const struct bf_run_result *res)
{
	const struct bf_run_info *ri = &res->info;
	char a[BF_FMT_LEN], b[BF_FMT_LEN], c[BF_FMT_LEN], d[BF_FMT_LEN];
	char scope[128], opts[BF_FLAGS_LEN];
	const char *sep;
	struct bf_lat l;
	unsigned int i;
	uint64_t sugg;

	fprintf(f, "run %u on %s: %s %s, bs %s, qd %u\n", ri->id, ri->dev,
		bf_pattern_name(ri->pattern), bf_op_name(ri->op),
		bf_fmt_bs(a, sizeof(a), ri->bs), ri->qd);
	fprintf(f, "  state:     %s%s", bf_state_name(ri->state),
		res->interrupted ? " (interrupted)" : "");
	if (ri->state == BLKFLOOR_STATE_FAILED)
		fprintf(f, ": %s", strerror(-ri->err));
	fputc('\n', f);
	fprintf(f, "  done:      %s (%llu bytes) in %s\n",
		bf_fmt_bytes(a, sizeof(a), ri->bytes),
		(unsigned long long)ri->bytes,
		bf_fmt_duration(b, sizeof(b), ri->elapsed_ns / 1e9));
	fprintf(f, "  rate:      %s mean, %.0f IOPS\n",
		bf_fmt_rate(a, sizeof(a), bf_run_bps(ri)), bf_run_iops(ri));
	bf_run_lat(res, &l);
	if (res->hist.total)
		fprintf(f, "  latency:   p50 %s, p99 %s, p99.9 %s, max %s\n",
			bf_fmt_lat(a, sizeof(a), l.p50),
			bf_fmt_lat(b, sizeof(b), l.p99),
			bf_fmt_lat(c, sizeof(c), l.p999),
			bf_fmt_lat(d, sizeof(d), l.max));
	fprintf(f, "  latency is %s\n",
		bf_latency_scope(scope, sizeof(scope), ri->flags));
	fprintf(f, "  options:   %s\n",
		bf_flags_str(opts, sizeof(opts), ri->flags));
	fprintf(f, "  data:      %s\n", bf_data_desc(ri->op, ri->data));
	fprintf(f, "  errors:    %llu", (unsigned long long)ri->errors);
	sep = " (";
	for (i = 0; i < __BLKFLOOR_ERR_MAX; i++) {
		if (!res->err_class[i])
			continue;
		fprintf(f, "%s%s %llu", sep, bf_err_class_name(i),
			(unsigned long long)res->err_class[i]);
		sep = ", ";
	}
	fputs(*sep == ',' ? ")\n" : "\n", f);
	print_err_log(f, res);
	if (ri->data == BLKFLOOR_DATA_VERIFY || ri->mismatches) {
		fprintf(f, "  verify:    %llu mismatching blocks",
			(unsigned long long)ri->mismatches);
		for (i = 0; i < ri->nmis; i++)
			fprintf(f, "%s%llu", i ? ", " : " at LBA ",
				(unsigned long long)ri->mismatch_lba[i]);
		fputc('\n', f);
	}
	fprintf(f, "  intervals: %llu", (unsigned long long)ri->intervals);
	if (bf_result_missing(res))
		fprintf(f, " (%llu lost: overwritten in the kernel's ring before they were read)",
			(unsigned long long)bf_result_missing(res));
	fputc('\n', f);
	if (res->hist.total && bf_sampling_beats(ri->interval_ns, l.p50, &sugg))
		fprintf(f, "  sampling:  intervals of %s are under twice the median latency (%s): each holds about one round of completions, so rates per interval beat with them; --interval %llu%s or more measures the device\n",
			bf_fmt_duration(a, sizeof(a), ri->interval_ns / 1e9),
			bf_fmt_lat(b, sizeof(b), l.p50),
			(unsigned long long)(sugg >= 1000000000 ? sugg / 1000000000 : sugg / 1000000),
			sugg >= 1000000000 ? "s" : "ms");
}

void bf_run_json_summary(struct bf_json *j, const struct bf_run_result *res)
{
	const struct bf_run_info *ri = &res->info;
	char opts[BF_FLAGS_LEN];
	struct bf_lat l;
	unsigned int i;
	uint64_t sugg;

	bf_json_u64(j, "id", ri->id);
	bf_json_str(j, "device", ri->dev);
	bf_json_str(j, "op", bf_op_name(ri->op));
	bf_json_str(j, "pattern", bf_pattern_name(ri->pattern));
	bf_json_u64(j, "bs", ri->bs);
	bf_json_u64(j, "qd", ri->qd);
	bf_json_str(j, "options", bf_flags_str(opts, sizeof(opts), ri->flags));
	bf_json_bool(j, "merging", !(ri->flags & BLKFLOOR_F_NOMERGE));
	bf_json_str(j, "data", bf_data_name(ri->data));
	bf_json_bool(j, "scsi_retries", !(ri->flags & BLKFLOOR_F_FAILFAST));
	bf_json_str(j, "state", bf_state_name(ri->state));
	bf_json_i64(j, "errno", ri->err);
	bf_json_bool(j, "interrupted", res->interrupted);
	bf_json_u64(j, "bytes", ri->bytes);
	bf_json_u64(j, "ios", ri->ios);
	bf_json_double(j, "elapsed_s", ri->elapsed_ns / 1e9);
	bf_json_double(j, "mbps", bf_run_bps(ri) / 1e6);
	bf_json_double(j, "iops", bf_run_iops(ri));
	bf_run_lat(res, &l);
	bf_json_obj_open(j, "latency_us");
	bf_json_double(j, "min", l.min / 1e3);
	bf_json_double(j, "mean", l.mean / 1e3);
	bf_json_double(j, "p50", l.p50 / 1e3);
	bf_json_double(j, "p99", l.p99 / 1e3);
	bf_json_double(j, "p99.9", l.p999 / 1e3);
	bf_json_double(j, "max", l.max / 1e3);
	bf_json_obj_close(j);
	bf_json_obj_open(j, "errors");
	bf_json_u64(j, "total", ri->errors);
	for (i = 0; i < __BLKFLOOR_ERR_MAX; i++)
		bf_json_u64(j, bf_err_class_name(i), res->err_class[i]);
	bf_json_obj_close(j);
	bf_json_arr_open(j, "error_log");
	for (i = 0; i < res->nerrlog; i++) {
		const struct bf_err_entry *e = &res->errlog[i];

		bf_json_obj_open(j, NULL);
		bf_json_double(j, "time_s", e->time_ns / 1e9);
		bf_json_str(j, "op", bf_op_name(e->op));
		bf_json_u64(j, "lba", e->sector);
		bf_json_u64(j, "bytes", e->bytes);
		bf_json_i64(j, "errno", e->err);
		bf_json_str(j, "class", bf_err_class_name(e->class));
		bf_json_double(j, "latency_us", e->lat_ns / 1e3);
		bf_json_obj_close(j);
	}
	bf_json_arr_close(j);
	bf_json_u64(j, "error_log_dropped", ri->err_log_dropped);
	bf_json_u64(j, "error_log_size", ri->err_log);
	bf_json_u64(j, "mismatches", ri->mismatches);
	bf_json_arr_open(j, "mismatch_lbas");
	for (i = 0; i < ri->nmis; i++)
		bf_json_u64(j, NULL, ri->mismatch_lba[i]);
	bf_json_arr_close(j);
	bf_json_u64(j, "intervals", ri->intervals);
	bf_json_u64(j, "intervals_lost", bf_result_missing(res));
	if (res->hist.total && bf_sampling_beats(ri->interval_ns, l.p50, &sugg))
		bf_json_u64(j, "interval_ns_suggested", sugg);
}

int bf_run_exit_code(const struct bf_run_result *res)
{
	if (res->info.state == BLKFLOOR_STATE_FAILED) {
		fprintf(stderr, "blkfloor: run failed: %s\n",
			strerror(-res->info.err));
		return EXIT_FAIL;
	}
	if (res->info.state == BLKFLOOR_STATE_STOPPED && res->watch_stopped &&
	    !res->interrupted)
		return EXIT_OK;	/* the caller's rule ended it */
	if (res->interrupted || res->info.state != BLKFLOOR_STATE_DONE)
		return EXIT_FAIL;
	return EXIT_OK;
}
