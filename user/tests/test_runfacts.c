// SPDX-License-Identifier: GPL-2.0
/*
 * classify reads the whole run: a read run is worded as reads (never as
 * the drive's writes or an SLC cache), and I/O errors or a failed run
 * lower the confidence and are said, in the text and in JSON.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#include "classify.h"
#include "cmdtrace.h"
#include "explain.h"
#include "opts.h"
#include "result.h"
#include "runfacts.h"
#include "runsum.h"
#include "synth.h"
#include "trace.h"

/* The first word about writing in @text ("writes", "SLC"), or NULL. */
static const char *write_word(const char *text)
{
	static const char *const w[] = { "writ", "wrote", "SLC" };
	const char *p;

	for (size_t k = 0; k < sizeof(w) / sizeof(w[0]); k++) {
		p = strcasestr(text, w[k]);
		if (p)
			return p;
	}
	return NULL;
}

/* Every class's words, on a read run: reads, not writes. */
TEST(a_read_run_is_worded_as_reads)
{
	static const enum bf_synth_kind kinds[] = {
		BF_SYN_STEADY, BF_SYN_CACHE, BF_SYN_CACHE_BURSTS,
		BF_SYN_THERMAL_STAGES, BF_SYN_THERMAL_SAW, BF_SYN_FTL_ERRATIC,
		BF_SYN_FTL_BACKWARDS,
	};
	struct bf_run_facts rd = { .known = true, .op = "read",
				   .state = "done", .intervals = 300 };
	bool seen[BF_CLASS_COUNT] = { false };

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		struct bf_synth_params p = { kinds[k], BF_SYN_QEMU, 0.02, 1,
					     300, 7 };
		struct bf_series ser = { 0 };
		struct bf_synth_truth t;
		struct bf_report r;
		char *out = NULL;
		size_t len = 0;
		FILE *f;

		ASSERT_EQ(0, bf_synth_gen(&p, &ser, &t));
		ASSERT_EQ(0, bf_classify(ser.s, ser.n, &r));
		seen[r.class] = true;
		/* the classifier's own words are about writes */
		bf_report_run(&r, &rd);
		f = open_memstream(&out, &len);
		ASSERT_NE(NULL, f);
		bf_report_print(f, &r);
		bf_report_json(f, &r);
		fclose(f);
		EXPECT_EQ(NULL, write_word(out))
			TH_LOG("%s (%s): '%.60s'", bf_synth_kind_name(kinds[k]),
			       bf_class_name(r.class), write_word(out));
		EXPECT_NE(NULL, strstr(out, "run: read, done")) TH_LOG("%s", out);
		free(out);
		bf_report_free(&r);
		bf_series_free(&ser);
	}
	/* the table reaches every class the words differ for */
	EXPECT_TRUE(seen[BF_CLASS_CACHE_EXHAUSTION]);
	EXPECT_TRUE(seen[BF_CLASS_THERMAL_THROTTLING]);
	EXPECT_TRUE(seen[BF_CLASS_FTL_STARVATION]);
	EXPECT_TRUE(seen[BF_CLASS_STEADY]);
}

/* A write run keeps its words. */
TEST(a_write_run_keeps_its_words)
{
	struct bf_synth_params p = { BF_SYN_CACHE, BF_SYN_QEMU, 0.02, 1, 300,
				     7 };
	struct bf_run_facts wr = { .known = true, .op = "write",
				   .state = "done", .intervals = 300 };
	struct bf_series ser = { 0 };
	struct bf_synth_truth t;
	struct bf_report r;
	char before[sizeof(r.explain)];

	ASSERT_EQ(0, bf_synth_gen(&p, &ser, &t));
	ASSERT_EQ(0, bf_classify(ser.s, ser.n, &r));
	snprintf(before, sizeof(before), "%s", r.explain);
	bf_report_run(&r, &wr);
	EXPECT_STREQ(before, r.explain);
	EXPECT_NE(NULL, strstr(r.explain, "writes at"));
	EXPECT_FALSE(r.run.qualified);
	bf_report_free(&r);
	bf_series_free(&ser);
}

/*
 * A run with I/O errors (and a p99 ten times its median where they
 * were), or one that failed: the confidence falls to at most
 * BF_ERRORS_CONFIDENCE and the reason, the text and the JSON say why.
 */
TEST(errors_qualify_the_verdict)
{
	struct bf_synth_params p = { BF_SYN_CACHE, BF_SYN_QEMU, 0.02, 1, 300,
				     7 };
	struct bf_run_facts e = { .known = true, .op = "write",
				  .state = "done", .errors = 198,
				  .err_ivs = 12, .intervals = 300,
				  .cls = { { "io", 190 }, { "timeout", 8 } },
				  .ncls = 2, .p99_med_us = 900,
				  .p99_max_us = 9000 };
	struct bf_run_facts fl = { .known = true, .op = "write",
				   .state = "failed", .err_no = -5,
				   .intervals = 300 };
	struct bf_series ser = { 0 };
	struct bf_synth_truth t;
	struct bf_report r;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	ASSERT_EQ(0, bf_synth_gen(&p, &ser, &t));
	ASSERT_EQ(0, bf_classify(ser.s, ser.n, &r));
	ASSERT_GT(r.confidence, BF_ERRORS_CONFIDENCE);
	bf_report_run(&r, &e);
	EXPECT_LE(r.confidence, BF_ERRORS_CONFIDENCE);
	EXPECT_TRUE(r.run.qualified);
	EXPECT_NE(NULL, strstr(r.reason, "with 198 I/O errors in 12 of 300 intervals"))
		TH_LOG("%s", r.reason);
	EXPECT_EQ(0, strncmp(r.explain, "The run had 198 I/O errors in 12 of 300 intervals, p99 latency up to 10.0x its median:", 85))
		TH_LOG("%s", r.explain);
	f = open_memstream(&out, &len);
	ASSERT_NE(NULL, f);
	bf_report_print(f, &r);
	bf_report_json(f, &r);
	fclose(f);
	EXPECT_NE(NULL, strstr(out, "\nerrors: 198 I/O errors in 12 of 300 intervals, p99 latency up to 10.0x its median; logged: io 190, timeout 8\n"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"io_errors\":198,\"error_intervals\":12"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"logged\":{\"io\":190,\"timeout\":8}"));
	EXPECT_NE(NULL, strstr(out, "\"qualified\":true"));
	free(out);
	bf_report_free(&r);

	ASSERT_EQ(0, bf_classify(ser.s, ser.n, &r));
	bf_report_run(&r, &fl);
	EXPECT_LE(r.confidence, BF_ERRORS_CONFIDENCE);
	EXPECT_NE(NULL, strstr(r.reason, "the run failed (errno -5)"));
	EXPECT_EQ(0, strncmp(r.explain, "The run failed (errno -5)", 25));
	bf_report_free(&r);
	bf_series_free(&ser);
}

/*
 * End to end: classify a trace whose run had I/O errors and one of a
 * read run (the words, the JSON's "run").
 */
TEST(classify_reads_the_whole_trace)
{
	char dir[] = "/tmp/bf-runfacts-XXXXXX", tr[64], out[64], *o;
	struct spec s = base;
	const char *args[] = { tr, NULL };
	const char *jargs[] = { tr, "--json", NULL };

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(tr, sizeof(tr), "%s/t", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	s.errors = 5;
	s.p99_us = 900;
	write_trace(tr, &s);
	EXPECT_EQ(0, run_cmd("classify", out, jargs));
	o = slurp(out);
	EXPECT_NE(NULL, strstr(o, "\"io_errors\":200,\"error_intervals\":40"))
		TH_LOG("%s", o);
	EXPECT_NE(NULL, strstr(o, "\"confidence\":0.3,")) TH_LOG("%.300s", o);
	EXPECT_NE(NULL, strstr(o, "\"op\":\"write\""));
	EXPECT_EQ(0, run_cmd("classify", out, args));
	o = slurp(out);
	EXPECT_NE(NULL, strstr(o, "\nerrors: 200 I/O errors in 40 of 40 intervals; logged: io 1, timeout 1\n"))
		TH_LOG("%s", o);
	s = base;
	s.op = "read";
	write_trace(tr, &s);
	EXPECT_EQ(0, run_cmd("classify", out, args));
	o = slurp(out);
	EXPECT_EQ(NULL, write_word(o)) TH_LOG("%s", o);
	EXPECT_NE(NULL, strstr(o, "\nread: ")) TH_LOG("%s", o);
	snprintf(out, sizeof(out), "rm -rf %s", dir);
	EXPECT_EQ(0, system(out));
}

/*
 * sustain, diagnose and fill classify what they received, not a trace:
 * the facts they give the verdict are the ones classify reads back from
 * the same run's trace (errors, the intervals they fell in, p99, the
 * error log by class, state and errno).
 */
TEST(a_live_run_has_the_facts_its_trace_would)
{
	static const unsigned int cls[] = { BLKFLOOR_ERR_IO,
		BLKFLOOR_ERR_TIMEOUT, BLKFLOOR_ERR_IO, BLKFLOOR_ERR_MEDIUM };
	struct bf_run_facts live, back;
	struct bf_run_result res;
	struct bf_runsum rs;
	char line[1024], err[128];
	char *text = NULL;
	size_t len = 0, i;
	FILE *f;

	bf_result_init(&res);
	res.info.op = BLKFLOOR_OP_WRITE;
	res.info.state = BLKFLOOR_STATE_FAILED;
	res.info.err = -5;
	res.ended = true;
	for (i = 0; i < 40; i++) {
		struct bf_iv iv = { .index = i };

		iv.start_ns = i * 100000000ULL;
		iv.end_ns = iv.start_ns + 100000000ULL;
		iv.ios = i == 39 ? 0 : 50;	/* the last one completed none */
		iv.bytes = iv.ios * 65536;
		iv.bytes_total = (i + 1) * 50 * 65536ULL;
		iv.errors = i >= 10 && i < 22 ? i - 9 : 0;
		iv.lat_min = 100000;
		iv.lat_max = 9000000;
		iv.lat_sum = iv.ios * 800000;
		iv.p50 = 700000;
		iv.p99 = iv.ios ? (i >= 10 && i < 22 ? 8765432 : 900000 + i) : 0;
		iv.p999 = iv.p99;
		ASSERT_EQ(0, bf_result_add_iv(&res, &iv, NULL));
	}
	res.errlog = calloc(4, sizeof(*res.errlog));
	ASSERT_NE(NULL, res.errlog);
	for (i = 0; i < 4; i++) {
		res.errlog[i].op = BLKFLOOR_OP_WRITE;
		res.errlog[i].class = cls[i];
		res.errlog[i].err = -5;
		res.errlog[i].time_ns = 1000000000ULL + i;
	}
	res.nerrlog = 4;
	bf_run_facts_result(&live, &res);

	f = open_memstream(&text, &len);
	ASSERT_NE(NULL, f);
	fprintf(f, "%s\n# op: %s\n%s\n", BF_TRACE_MAGIC,
		bf_op_name(res.info.op), BF_TRACE_HEADER);
	for (i = 0; i < res.niv; i++) {
		bf_trace_fmt_iv(line, sizeof(line), &res.iv[i]);
		fputs(line, f);
	}
	for (i = 0; i < res.nerrlog; i++) {
		bf_trace_fmt_error(line, sizeof(line), &res.errlog[i]);
		fputs(line, f);
	}
	bf_trace_fmt_end(line, sizeof(line), bf_state_name(res.info.state),
			 res.info.err, 0);
	fputs(line, f);
	fclose(f);
	f = fmemopen(text, len, "r");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, bf_runsum_read(f, &rs, err, sizeof(err))) TH_LOG("%s", err);
	fclose(f);
	bf_run_facts_read(&back, &rs);

	EXPECT_STREQ(back.op, live.op);
	EXPECT_STREQ("failed", live.state);
	EXPECT_STREQ(back.state, live.state);
	EXPECT_EQ(back.err_no, live.err_no);
	EXPECT_EQ(78ULL, live.errors);
	EXPECT_EQ(back.errors, live.errors);
	EXPECT_EQ(12ULL, live.err_ivs);
	EXPECT_EQ(back.err_ivs, live.err_ivs);
	EXPECT_EQ(back.intervals, live.intervals);
	/* the trace keeps a microsecond to three places */
	EXPECT_GT(0.001, fabs(back.p99_med_us - live.p99_med_us));
	EXPECT_GT(0.001, fabs(back.p99_max_us - live.p99_max_us));
	ASSERT_EQ(3U, live.ncls);
	ASSERT_EQ(back.ncls, live.ncls);
	for (i = 0; i < live.ncls; i++) {
		EXPECT_STREQ(back.cls[i].name, live.cls[i].name);
		EXPECT_EQ(back.cls[i].n, live.cls[i].n);
	}
	EXPECT_EQ(2ULL, live.cls[0].n);
	bf_runsum_free(&rs);
	free(text);
	bf_result_free(&res);
}

TEST_HARNESS_MAIN
