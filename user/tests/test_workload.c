// SPDX-License-Identifier: GPL-2.0
/*
 * Garbage collection as enterprise drives show it under random writes on
 * a full drive: fast at first, then a decay, smooth or in steps, over one
 * to a few capacities written, to a lower and noisier level (SNIA PTS:
 * fresh-out-of-box to steady state). By shape a thermal staircase, a
 * straight decline or a cache; with the workload known (random writes)
 * ftl-starvation. The same curves written sequentially, a cache cliff
 * under random writes and heat with a temperature keep their class.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#include <stdlib.h>
#include <unistd.h>

#include "classify.h"
#include "cmdtrace.h"
#include "rng.h"
#include "trace.h"
#include "workload.h"

#define N 1200
#define CAP 400e9	/* the drive's capacity */

/*
 * One-second samples: @rate(bytes written) MB/s with multiplicative noise
 * @noise(bytes) (uniform +-), from @seed.
 */
static void build(struct bf_sample *s, size_t n,
		  double (*rate)(double), double (*noise)(double),
		  uint64_t seed)
{
	struct rng g = { seed };
	double bytes = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		double r = rate(bytes) *
			   (1 + noise(bytes) * (2 * rng_unif(&g) - 1));

		bytes += r * 1e6;
		s[i] = (struct bf_sample){ .t = i + 1.0, .dt = 1, .mbps = r,
					   .bytes = bytes };
	}
}

/* fresh: 2,000 MB/s for one capacity, then an exponential decay in bytes
 * (half a capacity) to 550 MB/s */
static double smooth(double b)
{
	return b < CAP ? 2000 : 550 + 1450 * exp(-(b - CAP) / (0.5 * CAP));
}

/* the same in steps at 1, 1.3 and 1.6 capacities */
static double steps(double b)
{
	return b < CAP ? 2000 : b < 1.3 * CAP ? 1400 : b < 1.6 * CAP ? 900 :
	       550;
}

/* noise grows as GC takes over: 2 % fresh, 15 % in steady state */
static double gc_noise(double b)
{
	return b < CAP ? 0.02 : 0.02 + 0.13 * fmin(1, (b - CAP) / CAP);
}

/* an SLC cache of 30 GB: 2,000 then 400 MB/s, the floor as quiet */
static double cliff(double b)
{
	return b < 30e9 ? 2000 : 400;
}

static double quiet(double b)
{
	return 0.03;
}

static const struct bf_workload randwrite = {
	.known = true, .write = true, .random = true,
};

static void check(struct __test_metadata *_metadata, double (*rate)(double),
		  double (*noise)(double), const struct bf_workload *wl,
		  enum bf_class want)
{
	static struct bf_sample s[N];
	struct bf_report r;

	build(s, N, rate, noise, 43);
	ASSERT_EQ(0, bf_classify(s, N, &r));
	TH_LOG("shape: %s (%s)", bf_class_name(r.class), r.reason);
	bf_report_workload(&r, s, N, wl);
	EXPECT_EQ(want, r.class) TH_LOG("%s", r.reason);
	EXPECT_LE(r.confidence, 0.7);
	if (want == BF_CLASS_FTL_STARVATION) {
		EXPECT_NE(NULL, strstr(r.reason, "garbage collection"))
			TH_LOG("%s", r.reason);
		EXPECT_FALSE(r.has_step);
	}
	bf_report_free(&r);
}

TEST(gc_smooth_decay_is_ftl)
{
	struct bf_workload wl = randwrite;

	check(_metadata, smooth, gc_noise, &wl, BF_CLASS_FTL_STARVATION);
	/* with the capacity known too */
	wl.capacity_bytes = CAP;
	check(_metadata, smooth, gc_noise, &wl, BF_CLASS_FTL_STARVATION);
}

TEST(gc_stepped_decay_is_ftl)
{
	struct bf_workload wl = randwrite;

	check(_metadata, steps, gc_noise, &wl, BF_CLASS_FTL_STARVATION);
	wl.capacity_bytes = CAP;
	check(_metadata, steps, gc_noise, &wl, BF_CLASS_FTL_STARVATION);
	/* quiet steps, but late in bytes: a capacity and more */
	check(_metadata, steps, quiet, &wl, BF_CLASS_FTL_STARVATION);
}

/* The same shapes written sequentially keep the shape's verdict. */
TEST(sequential_keeps_the_shape)
{
	static struct bf_sample s[N];
	struct bf_workload wl = { .known = true, .write = true };
	struct bf_report r;
	enum bf_class shape;

	build(s, N, steps, gc_noise, 43);
	ASSERT_EQ(0, bf_classify(s, N, &r));
	shape = r.class;
	bf_report_workload(&r, s, N, &wl);
	EXPECT_EQ(shape, r.class);
	bf_report_free(&r);
	/* and unknown workloads too */
	ASSERT_EQ(0, bf_classify(s, N, &r));
	wl.known = false;
	bf_report_workload(&r, s, N, &wl);
	EXPECT_EQ(shape, r.class);
	bf_report_free(&r);
}

/* A cache cliff early in bytes, its floor as quiet: a cache, random or not. */
TEST(cache_under_random_writes_stays_a_cache)
{
	struct bf_workload wl = randwrite;

	check(_metadata, cliff, quiet, &wl, BF_CLASS_CACHE_EXHAUSTION);
	wl.capacity_bytes = 1e12;
	check(_metadata, cliff, quiet, &wl, BF_CLASS_CACHE_EXHAUSTION);
}

TEST(workload_words)
{
	struct bf_workload wl;

	ASSERT_EQ(0, bf_workload_parse("randwrite", &wl));
	EXPECT_TRUE(wl.known && wl.write && wl.random);
	ASSERT_EQ(0, bf_workload_parse("write", &wl));
	EXPECT_TRUE(wl.known && wl.write && !wl.random);
	ASSERT_EQ(0, bf_workload_parse("[job]\nioengine=libaio\nrw=randwrite\nbs=4k\n", &wl));
	EXPECT_TRUE(wl.write && wl.random);
	ASSERT_EQ(0, bf_workload_parse("[job]\nreadwrite = randread\n", &wl));
	EXPECT_TRUE(!wl.write && wl.random);
	ASSERT_EQ(0, bf_workload_parse("{\n \"jobs\" : [ { \"job options\" : {\n \"rw\" : \"randwrite\",\n \"bs\" : \"4k\" } } ] }", &wl));
	EXPECT_TRUE(wl.write && wl.random);
	EXPECT_EQ(-EINVAL, bf_workload_parse("sideways", &wl));
	EXPECT_EQ(-EINVAL, bf_workload_parse("[job]\nbs=4k\n", &wl));
}

/*
 * classify of the smooth decay written by another tool (a fio log) names
 * GC when told the workload (--workload randwrite, or a fio job file), and
 * of a blkfloor trace from the trace's own "# op:" and "# pattern:".
 */
static const char *classify_json(const char *path, const char *workload)
{
	char out[] = "/tmp/bf-workload-out-XXXXXX";
	const char *args[] = { path, "--json", "--workload", workload, NULL };
	static char json[4096];
	int fd = mkstemp(out);

	if (fd < 0)
		return "";
	close(fd);
	if (!workload)
		args[2] = NULL;
	run_cmd("classify", out, args);
	snprintf(json, sizeof(json), "%s", slurp(out));
	unlink(out);
	return json;
}

TEST(classify_knows_the_workload)
{
	static struct bf_sample s[N];
	char log[] = "/tmp/bf-workload-XXXXXX", job[64], tr[64];
	char line[BF_TRACE_LINE_MAX];
	double total = 0;
	FILE *f;
	size_t i;
	int fd;

	build(s, N, smooth, gc_noise, 43);
	fd = mkstemp(log);
	ASSERT_LE(0, fd);
	f = fdopen(fd, "w");
	for (i = 0; i < N; i++)
		fprintf(f, "%.0f, %.0f, 1, 4096\n", s[i].t * 1000,
			s[i].mbps * 1e6 / 1024);
	fclose(f);
	snprintf(job, sizeof(job), "%s.fio", log);
	f = fopen(job, "w");
	ASSERT_NE(NULL, f);
	fprintf(f, "[gc]\nfilename=/dev/nvme0n1\nrw=randwrite\nbs=4k\n");
	fclose(f);
	EXPECT_NE(NULL, strstr(classify_json(log, NULL), "\"class\":\"thermal-throttling\""));
	EXPECT_NE(NULL, strstr(classify_json(log, "randwrite"), "\"class\":\"ftl-starvation\""));
	EXPECT_NE(NULL, strstr(classify_json(log, job), "\"class\":\"ftl-starvation\""));
	EXPECT_NE(NULL, strstr(classify_json(log, "write"), "\"class\":\"thermal-throttling\""));

	/* a blkfloor trace of random writes says so itself */
	snprintf(tr, sizeof(tr), "%s.trace", log);
	f = fopen(tr, "w");
	ASSERT_NE(NULL, f);
	fprintf(f, "%s\n# device: /dev/nvme0n1\n# size_bytes: %.0f\n# op: write\n# pattern: random\n# bs: 4096\n%s\n",
		BF_TRACE_MAGIC, CAP, BF_TRACE_HEADER);
	for (i = 0; i < N; i++) {
		struct bf_iv iv = { .have = true, .index = i };

		iv.start_ns = (uint64_t)(i * 1e9);
		iv.end_ns = (uint64_t)((i + 1) * 1e9);
		iv.bytes = (uint64_t)(s[i].mbps * 1e6);
		total += iv.bytes;
		iv.ios = iv.bytes / 4096;
		iv.bytes_total = (uint64_t)total;
		bf_trace_fmt_iv(line, sizeof(line), &iv);
		fputs(line, f);
	}
	fprintf(f, "# state: done\n# errno: 0\n# dropped: 0\n");
	fclose(f);
	EXPECT_NE(NULL, strstr(classify_json(tr, NULL), "\"class\":\"ftl-starvation\""))
		TH_LOG("%s", classify_json(tr, NULL));
	unlink(log);
	unlink(job);
	unlink(tr);
}

TEST_HARNESS_MAIN
