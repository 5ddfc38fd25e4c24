// SPDX-License-Identifier: GPL-2.0
/*
 * Trace writing: the exact format, and a round trip through the
 * classifier's loader (series.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#include "classify.h"
#include "progress.h"
#include "report.h"
#include "run.h"
#include "hist.h"
#include "trace.h"

/* The lines as the incremental tracer (traceout.c) writes them. */
static void write_iv(FILE *f, const struct bf_iv *iv)
{
	char line[BF_TRACE_LINE_MAX];

	bf_trace_fmt_iv(line, sizeof(line), iv);
	fputs(line, f);
}

static void write_end(FILE *f, const char *state, int err, uint64_t dropped)
{
	char line[BF_TRACE_LINE_MAX];

	bf_trace_fmt_end(line, sizeof(line), state, err, dropped);
	fputs(line, f);
}

static void meta_fill(struct bf_trace_meta *m)
{
	memset(m, 0, sizeof(*m));
	m->device = "/dev/sdb";
	m->size_bytes = 1073741824ULL;
	m->model = "QEMU HARDDISK\nX";	/* newline must not break the line */
	m->serial = "BLKFLOOR-UAS0";
	m->transport = "uas";
	m->kernel = "6.12.117+deb12-amd64";
	m->op = "write";
	m->pattern = "seq";
	m->bs = 131072;
	m->qd = 32;
	m->offset = 1048576;
	m->length = 268435456;
	m->interval_ns = 500000000ULL;
	m->data = "random";
	m->seed = 7;
	m->start_time_ns = 1700000000ULL * 1000000000ULL;
	m->cli_version = "0.1.0";
	m->module_version = "0.1.0";
}

static void iv_fill(struct bf_iv *iv, uint32_t i, double mbps)
{
	memset(iv, 0, sizeof(*iv));
	iv->have = true;
	iv->index = i;
	iv->start_ns = i * 500000000ULL;
	iv->end_ns = (i + 1) * 500000000ULL;
	iv->bytes = (uint64_t)(mbps * 1e6 * 0.5);
	iv->ios = iv->bytes / 131072;
	iv->lat_min = 1000;
	iv->lat_max = 90000;
	iv->lat_sum = iv->ios * 20000;
	iv->p50 = 19000;
	iv->p99 = 80000;
	iv->p999 = 88000;
	iv->bytes_total = (i + 1) * iv->bytes;
}

/* The options that change a measurement come after the data, when given. */
TEST(options_line)
{
	char buf[4096];
	struct bf_trace_meta m;
	FILE *f = tmpfile();
	size_t len;

	ASSERT_NE(NULL, f);
	meta_fill(&m);
	m.options = "no-merge,failfast";
	bf_trace_write_header(f, &m);
	rewind(f);
	len = fread(buf, 1, sizeof(buf) - 1, f);
	buf[len] = '\0';
	fclose(f);
	EXPECT_NE(NULL, strstr(buf, "# data: random\n# options: no-merge,failfast\n# seed: 7\n"));
}

TEST(format)
{
	char buf[8192], *lines[64], *save = NULL, *l;
	struct bf_trace_meta m;
	struct bf_iv iv;
	size_t n = 0, len;
	FILE *f = tmpfile();

	ASSERT_NE(NULL, f);
	meta_fill(&m);
	bf_trace_write_header(f, &m);
	iv_fill(&iv, 0, 400);
	write_iv(f, &iv);
	memset(&iv, 0, sizeof(iv));	/* an empty interval */
	iv.index = 1;
	iv.start_ns = 500000000ULL;
	iv.end_ns = 1000000000ULL;
	iv.bytes_total = 200000000ULL;
	write_iv(f, &iv);
	write_end(f, "stopped", 0, 2);
	rewind(f);
	len = fread(buf, 1, sizeof(buf) - 1, f);
	buf[len] = '\0';
	fclose(f);
	for (l = strtok_r(buf, "\n", &save); l && n < 64;
	     l = strtok_r(NULL, "\n", &save))
		lines[n++] = l;
	ASSERT_EQ(24U, n);
	EXPECT_STREQ("# blkfloor-trace v1", lines[0]);
	EXPECT_STREQ("# device: /dev/sdb", lines[1]);
	EXPECT_STREQ("# size_bytes: 1073741824", lines[2]);
	EXPECT_STREQ("# model: QEMU HARDDISK X", lines[3]);
	EXPECT_STREQ("# serial: BLKFLOOR-UAS0", lines[4]);
	EXPECT_STREQ("# transport: uas", lines[5]);
	EXPECT_STREQ("# kernel: 6.12.117+deb12-amd64", lines[6]);
	EXPECT_STREQ("# op: write", lines[7]);
	EXPECT_STREQ("# pattern: seq", lines[8]);
	EXPECT_STREQ("# bs: 131072", lines[9]);
	EXPECT_STREQ("# qd: 32", lines[10]);
	EXPECT_STREQ("# region: 1048576+268435456", lines[11]);
	EXPECT_STREQ("# interval_ns: 500000000", lines[12]);
	EXPECT_STREQ("# data: random", lines[13]);
	EXPECT_STREQ("# seed: 7", lines[14]);
	EXPECT_STREQ("# start_time: 2023-11-14T22:13:20Z", lines[15]);
	EXPECT_STREQ("# cli_version: 0.1.0", lines[16]);
	EXPECT_STREQ("# module_version: 0.1.0", lines[17]);
	EXPECT_STREQ(BF_TRACE_HEADER, lines[18]);
	EXPECT_STREQ("index,start_s,end_s,bytes,ios,errors,MBps,lat_min_us,lat_mean_us,lat_p50_us,lat_p99_us,lat_p999_us,lat_max_us,bytes_total,requests,req_per_bio,req_kib,merges,util,in_flight,scsi_err,scsi_tmo,temp_c",
		     lines[18]);
	EXPECT_STREQ("0,0.000000,0.500000,200000000,1525,0,400.000,1.000,20.000,19.000,80.000,88.000,90.000,200000000,,,,,,,,,",
		     lines[19]);
	EXPECT_STREQ("1,0.500000,1.000000,0,0,0,0.000,0.000,0.000,0.000,0.000,0.000,0.000,200000000,,,,,,,,,",
		     lines[20]);
	EXPECT_STREQ("# state: stopped", lines[21]);
	EXPECT_STREQ("# errno: 0", lines[22]);
	EXPECT_STREQ("# dropped: 2", lines[23]);
}

/*
 * What tells one boot and one build of the path's modules from another,
 * and the run's merged latency at its end (the reader: test_runsum).
 */
TEST(boot_modules_and_run_latency)
{
	struct bf_trace_meta m;
	struct bf_hist h;
	char buf[4096], line[BF_TRACE_LINE_MAX];
	size_t len;
	FILE *f = tmpfile();

	ASSERT_NE(NULL, f);
	meta_fill(&m);
	m.boot_id = "2a1c1e44-0c4c-4d1e-9a8e-6b1f0f6b7a01";
	m.tainted = "12288";
	m.modules = "sd_mod 5f0e8a1c2b3d, uas 785d29ef2fe1 OE";
	bf_trace_write_header(f, &m);
	rewind(f);
	len = fread(buf, 1, sizeof(buf) - 1, f);
	buf[len] = '\0';
	fclose(f);
	EXPECT_NE(NULL, strstr(buf, "# module_version: 0.1.0\n"
			       "# boot_id: 2a1c1e44-0c4c-4d1e-9a8e-6b1f0f6b7a01\n"
			       "# kernel_tainted: 12288\n"
			       "# path_modules: sd_mod 5f0e8a1c2b3d, uas 785d29ef2fe1 OE\n"))
		TH_LOG("%s", buf);

	/* 99 I/Os at 100 us and one at 10 ms: p50 100 us, not a median of intervals */
	bf_hist_reset(&h);
	h.count[bf_hist_val_to_idx(100000)] = 99;
	h.count[bf_hist_val_to_idx(10000000)] = 1;
	h.total = 100;
	len = bf_trace_fmt_run_lat(line, sizeof(line), &h, 10000000);
	ASSERT_GT(len, 0U);
	EXPECT_EQ(0, strncmp(line, "# run_latency_us: p50=", 22)) TH_LOG("%s", line);
	EXPECT_LT(fabs(strtod(line + 22, NULL) - 100), 2) TH_LOG("%s", line);
	EXPECT_NE(NULL, strstr(line, " max=10000.000 ios=100\n")) TH_LOG("%s", line);
	/* A bucket's value is its upper edge: no percentile above the maximum */
	len = bf_trace_fmt_run_lat(line, sizeof(line), &h, 9900000);
	ASSERT_NE(NULL, strstr(line, " p999=")) TH_LOG("%s", line);
	EXPECT_LE(strtod(strstr(line, " p999=") + 6, NULL), 9900.0) TH_LOG("%s", line);
	EXPECT_LE(strtod(strstr(line, " p99=") + 5, NULL), 9900.0) TH_LOG("%s", line);
	bf_hist_reset(&h);
	EXPECT_EQ(0U, bf_trace_fmt_run_lat(line, sizeof(line), &h, 0));
}

TEST(round_trip_through_series_loader)
{
	char path[] = "/tmp/bf-trace-XXXXXX", err[256] = "";
	static const double rates[] = { 900, 910, 905, 300, 295, 305, 298 };
	struct bf_err_entry e = { .sector = 8, .bytes = 4096, .err = -5 };
	char line[BF_TRACE_LINE_MAX];
	struct bf_series ser = { 0 };
	struct bf_trace_meta m;
	struct bf_iv iv;
	uint64_t total = 0;
	unsigned int i;
	int fd = mkstemp(path);
	FILE *f;

	ASSERT_GE(fd, 0);
	f = fdopen(fd, "w");
	ASSERT_NE(NULL, f);
	meta_fill(&m);
	bf_trace_write_header(f, &m);
	for (i = 0; i < 7; i++) {
		iv_fill(&iv, i, rates[i]);
		total += iv.bytes;
		iv.bytes_total = total;
		write_iv(f, &iv);
	}
	/* the error log's lines before the trailer are comments to a reader */
	bf_trace_fmt_error(line, sizeof(line), &e);
	fputs(line, f);
	write_end(f, "done", 0, 0);
	fclose(f);
	ASSERT_EQ(0, bf_series_load(path, &ser, err, sizeof(err)))
		TH_LOG("%s", err);
	unlink(path);
	ASSERT_EQ(7U, ser.n);
	for (i = 0; i < 7; i++) {
		EXPECT_LT(fabs(ser.s[i].mbps - rates[i]), 1e-3);
		EXPECT_LT(fabs(ser.s[i].t - (i + 1) * 0.5), 1e-6);
		EXPECT_LT(fabs(ser.s[i].dt - 0.5), 1e-6);
	}
	EXPECT_LT(fabs(ser.s[6].bytes - (double)total), 1);
	bf_series_free(&ser);
}

TEST(progress_line)
{
	struct bf_iv iv = { 0 };
	struct bf_eta e;
	char line[256];
	int i;

	iv.start_ns = 1000000000ULL;
	iv.end_ns = 2000000000ULL;
	iv.bytes = 500000000ULL;
	iv.bytes_total = 1000000000ULL;
	/* Byte-limited, the rate not yet known: no guess. */
	bf_eta_init(&e);
	bf_progress_line(line, sizeof(line), &iv, 3000000000ULL, 0, &e);
	EXPECT_STREQ("   2.0 s  1.00 GB / 3.00 GB  500 MB/s  mean 500 MB/s  ETA unknown",
		     line);
	/* Ten seconds at 500 MB/s: 2 GB left take 4 s. */
	for (i = 0; i < 10; i++)
		bf_eta_add(&e, 1, 500e6);
	bf_progress_line(line, sizeof(line), &iv, 3000000000ULL, 0, &e);
	EXPECT_STREQ("   2.0 s  1.00 GB / 3.00 GB  500 MB/s  mean 500 MB/s  ETA 4.0 s",
		     line);
	bf_progress_line(line, sizeof(line), &iv, 0, 10000000000ULL, &e);
	EXPECT_STREQ("   2.0 s  1.00 GB  500 MB/s  mean 500 MB/s  ETA 8.0 s",
		     line);
	/* Done, or nearly: no sub-second ETA. */
	bf_progress_line(line, sizeof(line), &iv, 1000000000ULL, 0, &e);
	EXPECT_STREQ("   2.0 s  1.00 GB / 1.00 GB  500 MB/s  mean 500 MB/s  ETA <1 s",
		     line);
	bf_progress_line(line, sizeof(line), &iv, 0, 2300000000ULL, &e);
	EXPECT_STREQ("   2.0 s  1.00 GB  500 MB/s  mean 500 MB/s  ETA <1 s",
		     line);
	/* Neither limit: no ETA at all. */
	bf_progress_line(line, sizeof(line), &iv, 0, 0, &e);
	EXPECT_STREQ("   2.0 s  1.00 GB  500 MB/s  mean 500 MB/s", line);
}

/* A stop rule's state follows the progress line (sustain's floor rule). */
TEST(progress_status)
{
	struct bf_progress p;
	struct bf_iv iv = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ASSERT_NE(NULL, f);
	iv.start_ns = 1000000000ULL;
	iv.end_ns = 2000000000ULL;
	iv.bytes = 500000000ULL;
	iv.bytes_total = 1000000000ULL;
	bf_progress_init(&p, f, false, 1000000000ULL, 0, 0, NULL);
	p.status = "floor: round 2/5";
	bf_progress_iv(&p, &iv);
	p.status = NULL;
	bf_progress_iv(&p, &iv);
	fclose(f);
	EXPECT_STREQ("   2.0 s  1.00 GB  500 MB/s  mean 500 MB/s  floor: round 2/5\n"
		     "   2.0 s  1.00 GB  500 MB/s  mean 500 MB/s\n", buf);
	free(buf);
}

/* The summary's errors line, whichever classes are present. */
static void errors_line(char *out, size_t len, const uint64_t *cls)
{
	struct bf_run_result res;
	char buf[4096], *p, *e;
	FILE *f;

	memset(&res, 0, sizeof(res));
	for (int i = 0; i < __BLKFLOOR_ERR_MAX; i++) {
		res.err_class[i] = cls[i];
		res.info.errors += cls[i];
	}
	snprintf(res.info.dev, sizeof(res.info.dev), "/dev/sdx");
	f = fmemopen(buf, sizeof(buf), "w");
	bf_run_print_summary(f, &res);
	fclose(f);
	p = strstr(buf, "  errors:");
	e = p ? strchr(p, '\n') : NULL;
	snprintf(out, len, "%.*s", p && e ? (int)(e - p) : 0, p ? p : "");
}

TEST(summary_errors_line)
{
	uint64_t cls[__BLKFLOOR_ERR_MAX] = { 0 };
	char line[256];

	errors_line(line, sizeof(line), cls);
	EXPECT_STREQ("  errors:    0", line);
	cls[BLKFLOOR_ERR_OFFLINE] = 4;
	errors_line(line, sizeof(line), cls);
	EXPECT_STREQ("  errors:    4 (offline 4)", line);
	cls[BLKFLOOR_ERR_IO] = 15;
	errors_line(line, sizeof(line), cls);
	EXPECT_STREQ("  errors:    19 (io 15, offline 4)", line);
	cls[BLKFLOOR_ERR_IO] = 0;
	cls[BLKFLOOR_ERR_TIMEOUT] = 1;
	errors_line(line, sizeof(line), cls);
	EXPECT_STREQ("  errors:    5 (timeout 1, offline 4)", line);
}

/* One line per logged failure: time, op, LBA, bytes, errno, class, latency. */
TEST(error_line)
{
	struct bf_err_entry e = {
		.op = BLKFLOOR_OP_WRITE, .class = BLKFLOOR_ERR_TIMEOUT,
		.err = -110, .bytes = 131072, .sector = (1ULL << 33) + 8,
		.time_ns = 12345678901ULL, .lat_ns = 30000000123ULL,
	};
	char line[BF_TRACE_LINE_MAX];
	size_t n = bf_trace_fmt_error(line, sizeof(line), &e);

	EXPECT_STREQ("# error: 12.345679 write 8589934600 131072 -110 timeout 30000000.123\n",
		     line);
	EXPECT_EQ(strlen(line), n);
}

/*
 * Intervals under twice the median latency beat with the completions
 * (cli/004's null_blk: 20 ms samples of a device that delivers every
 * 20 ms): the summary says so and suggests 5 latencies, rounded up.
 */
TEST(sampling_that_beats_with_the_completions)
{
	uint64_t s;

	EXPECT_TRUE(bf_sampling_beats(20000000, 19.5e6, &s));
	EXPECT_EQ(100000000ULL, s);
	EXPECT_TRUE(bf_sampling_beats(100000000, 60e6, &s));
	EXPECT_EQ(500000000ULL, s);
	EXPECT_TRUE(bf_sampling_beats(1000000000, 3e9, &s));
	EXPECT_EQ(20000000000ULL, s);
	/* two latencies or more per interval: fine, nothing to say */
	EXPECT_FALSE(bf_sampling_beats(20000000, 9.9e6, &s));
	EXPECT_EQ(20000000ULL, s);
	EXPECT_FALSE(bf_sampling_beats(1000000000, 5e6, &s));
	EXPECT_FALSE(bf_sampling_beats(1000000000, 0, &s));
	EXPECT_FALSE(bf_sampling_beats(0, 5e6, &s));
}

TEST_HARNESS_MAIN
