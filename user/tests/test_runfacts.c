// SPDX-License-Identifier: GPL-2.0
/*
 * classify reads the whole run: a read run is worded as reads (never as
 * the drive's writes or an SLC cache), and I/O errors or a failed run
 * lower the confidence and are said, in the text and in JSON.
 */
#include <ctype.h>
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
#include "runfacts.h"
#include "synth.h"

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

TEST_HARNESS_MAIN
