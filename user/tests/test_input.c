// SPDX-License-Identifier: GPL-2.0
/*
 * Inputs that cannot be misread: the format forced or guessed (and the
 * guess said), numbers that are not rates (NaN, inf, 1e300, hex, decimal
 * commas, negative times), broken own traces (time backwards, bytes_total
 * decreasing, a failed run, gaps, dropped intervals), read errors, a pipe
 * (not seekable) and fio per-I/O logs.
 */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#include "classify.h"

static int load_as(const char *text, enum bf_format fmt, struct bf_load *ld,
		   struct bf_series *ser, char *err)
{
	char path[64];
	int fd, ret;

	strcpy(path, "/tmp/blkfloor-input-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -EIO;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		close(fd);
		unlink(path);
		return -EIO;
	}
	close(fd);
	memset(ld, 0, sizeof(*ld));
	ld->format = fmt;
	ret = bf_series_load_as(path, ld, ser, err, 256);
	unlink(path);
	return ret;
}

#define TRACE_HEAD "# blkfloor-trace v1\n# interval_ns: 1000000000\n" \
	"index,start_s,end_s,bytes,ios,errors,MBps,lat_min_us,lat_mean_us,lat_p50_us,lat_p99_us,lat_p999_us,lat_max_us,bytes_total\n"
#define IV(i, a, b, by, mb, tot) #i "," #a "," #b "," #by ",1,0," #mb ",1,1,1,1,1,1," #tot "\n"

/* Returns the error text of a load that must fail. */
static bool refused(const char *text, enum bf_format fmt, const char *word)
{
	struct bf_series ser = { 0 };
	struct bf_load ld;
	char err[256] = "";
	int ret = load_as(text, fmt, &ld, &ser, err);

	bf_series_free(&ser);
	if (!ret || !strstr(err, word)) {
		fprintf(stderr, "# want an error with '%s', got %d '%s'\n",
			word, ret, err);
		return false;
	}
	return true;
}

TEST(numbers_that_are_not_rates)
{
	EXPECT_TRUE(refused("1,100\n2,nan\n3,100\n", BF_FORMAT_AUTO, "nan"));
	EXPECT_TRUE(refused("1,100\n2,inf\n3,100\n", BF_FORMAT_AUTO, "inf"));
	EXPECT_TRUE(refused("1,100\n2,1e300\n3,100\n", BF_FORMAT_AUTO, "range"));
	EXPECT_TRUE(refused("1,100\n2,0x40\n3,100\n", BF_FORMAT_AUTO, "0x40"));
	EXPECT_TRUE(refused("-1,100\n2,100\n3,100\n", BF_FORMAT_AUTO, "negative"));
	EXPECT_TRUE(refused("1;100,5\n2;100,5\n3;100,5\n", BF_FORMAT_AUTO,
			    "decimal comma"));
	EXPECT_TRUE(refused("1,100\n2,-5\n3,100\n", BF_FORMAT_AUTO, "negative"));
}

TEST(format_forced_or_guessed)
{
	/* four numeric columns whose third is 0..2: fio only if asked or
	 * guessed, and the guess is reported */
	const char *four = "1,100,1,4096\n2,100,1,4096\n3,100,1,4096\n";
	struct bf_series ser = { 0 };
	struct bf_load ld;
	char err[256];

	ASSERT_EQ(0, load_as(four, BF_FORMAT_AUTO, &ld, &ser, err));
	EXPECT_EQ(BF_FORMAT_FIO, (int)ld.format);
	EXPECT_TRUE(ld.guessed);
	bf_series_free(&ser);
	ASSERT_EQ(0, load_as(four, BF_FORMAT_FIO, &ld, &ser, err));
	EXPECT_FALSE(ld.guessed);
	bf_series_free(&ser);
	/* forced to CSV: four columns are not seconds,MB/s */
	EXPECT_TRUE(refused(four, BF_FORMAT_CSV, "two columns"));
	/* forced to trace: no magic line */
	EXPECT_TRUE(refused(four, BF_FORMAT_TRACE, "blkfloor-trace"));
	ASSERT_EQ(0, load_as("1,100\n2,100\n3,100\n", BF_FORMAT_AUTO, &ld,
			     &ser, err));
	EXPECT_EQ(BF_FORMAT_CSV, (int)ld.format);
	bf_series_free(&ser);
}

TEST(broken_own_traces)
{
	EXPECT_TRUE(refused(TRACE_HEAD IV(0, 0, 1, 100000000, 100, 100000000)
			    IV(1, 1, 2, 100000000, 100, 200000000)
			    IV(2, 0.5, 1.5, 100000000, 100, 300000000),
			    BF_FORMAT_AUTO, "backwards"));
	EXPECT_TRUE(refused(TRACE_HEAD IV(0, 0, 1, 100000000, 100, 100000000)
			    IV(1, 1, 2, 100000000, 100, 200000000)
			    IV(2, 2, 3, 100000000, 100, 150000000),
			    BF_FORMAT_AUTO, "bytes_total"));
	EXPECT_TRUE(refused(TRACE_HEAD IV(0, 0, 1, 100000000, 100, 100000000)
			    IV(1, 1, 2, 100000000, x, 200000000)
			    IV(2, 2, 3, 100000000, 100, 300000000),
			    BF_FORMAT_AUTO, "MBps"));
}

TEST(trace_warnings)
{
	struct bf_series ser = { 0 };
	struct bf_load ld;
	char err[256];

	/* a gap between intervals and dropped intervals: loaded, warned */
	ASSERT_EQ(0, load_as(TRACE_HEAD IV(0, 0, 1, 100000000, 100, 100000000)
			     IV(1, 1, 2, 100000000, 100, 200000000)
			     IV(2, 5, 6, 100000000, 100, 300000000)
			     "# state: done\n# errno: 0\n# dropped: 3\n",
			     BF_FORMAT_AUTO, &ld, &ser, err));
	EXPECT_NE(NULL, strstr(ld.warn, "gap"));
	EXPECT_NE(NULL, strstr(ld.warn, "dropped"));
	bf_series_free(&ser);
	/* no end state: the run was cut short or still runs */
	ASSERT_EQ(0, load_as(TRACE_HEAD IV(0, 0, 1, 100000000, 100, 100000000)
			     IV(1, 1, 2, 100000000, 100, 200000000)
			     IV(2, 2, 3, 100000000, 100, 300000000),
			     BF_FORMAT_AUTO, &ld, &ser, err));
	EXPECT_NE(NULL, strstr(ld.warn, "state"));
	EXPECT_FALSE(ld.ended);
	bf_series_free(&ser);
	/* a failed run: its curve up to the failure, said */
	ASSERT_EQ(0, load_as(TRACE_HEAD IV(0, 0, 1, 100000000, 100, 100000000)
			     IV(1, 1, 2, 100000000, 100, 200000000)
			     IV(2, 2, 3, 100000000, 100, 300000000)
			     "# state: failed\n# errno: -5\n# dropped: 0\n",
			     BF_FORMAT_AUTO, &ld, &ser, err));
	EXPECT_EQ(3UL, ser.n);
	EXPECT_TRUE(ld.failed);
	EXPECT_EQ(-5, ld.err_no);
	EXPECT_NE(NULL, strstr(ld.warn, "the run failed (errno -5, Input/output error)"))
		TH_LOG("%s", ld.warn);
	bf_series_free(&ser);
	/* a last line cut by a killed writer: left out, said */
	ASSERT_EQ(0, load_as(TRACE_HEAD IV(0, 0, 1, 100000000, 100, 100000000)
			     IV(1, 1, 2, 100000000, 100, 200000000)
			     IV(2, 2, 3, 100000000, 100, 300000000)
			     "3,3.000000,4.00", BF_FORMAT_AUTO, &ld, &ser, err))
		TH_LOG("%s", err);
	EXPECT_EQ(3UL, ser.n);
	EXPECT_TRUE(ld.cut);
	EXPECT_NE(NULL, strstr(ld.warn, "last line is cut"));
	bf_series_free(&ser);
}

/*
 * A refused file leaves no samples behind (they are freed), whether it
 * is refused at its first line or after a thousand.
 */
TEST(refused_loads_leave_nothing)
{
	struct bf_series ser = { 0 };
	struct bf_load ld;
	char err[256], *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ASSERT_NE(NULL, f);
	fputs(TRACE_HEAD, f);
	for (int i = 0; i < 1000; i++)
		fprintf(f, "%d,%d,%d,100000000,1,0,100,1,1,1,1,1,1,%lld\n", i,
			i, i + 1, (i + 1) * 100000000LL);
	fputs("1000,1000,999,1,1,0,1,1,1,1,1,1,1,1\n", f);
	fclose(f);
	EXPECT_NE(0, load_as(text, BF_FORMAT_AUTO, &ld, &ser, err));
	EXPECT_EQ(NULL, ser.s);
	EXPECT_EQ(0UL, ser.n);
	free(text);
}

/* Units a CSV header names are read in them; an unknown one is refused. */
TEST(header_units)
{
	static const struct {
		const char *header;
		double mbps, secs;	/* of "2,100" */
	} ok[] = {
		{ "time_s,MBps", 100, 2 },
		{ "time_s,MB/s", 100, 2 },
		{ "t (ms),rate (MiB/s)", 104.8576, 0.002 },
		{ "seconds,KiB/s", 0.1024, 2 },
		{ "time_us,GB/s", 100000, 2e-6 },
		{ "time,rate", 100, 2 },		/* no unit named */
		{ "sec,kB/s", 0.1, 2 },
		{ "time [min],B/s", 1e-4, 120 },
		{ "time_s,throughput_GiBps", 107374.1824, 2 },
	};
	static const char *const bad[] = {
		"time_s,Mbit/s", "time_s,Mbps", "time (days),MB/s", "t,mb/s",
	};
	struct bf_series ser = { 0 };
	struct bf_load ld;
	char err[256], text[128];

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		snprintf(text, sizeof(text), "%s\n1,100\n2,100\n3,100\n",
			 ok[i].header);
		ASSERT_EQ(0, load_as(text, BF_FORMAT_AUTO, &ld, &ser, err))
			TH_LOG("%s: %s", ok[i].header, err);
		EXPECT_TRUE(fabs(ser.s[0].mbps / ok[i].mbps - 1) < 1e-9)
			TH_LOG("%s: %g MB/s", ok[i].header, ser.s[0].mbps);
		EXPECT_TRUE(fabs(ser.s[1].t / ok[i].secs - 1) < 1e-9)
			TH_LOG("%s: %g s", ok[i].header, ser.s[1].t);
		bf_series_free(&ser);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "%s\n1,100\n2,100\n3,100\n",
			 bad[i]);
		EXPECT_TRUE(refused(text, BF_FORMAT_AUTO, "unit")) TH_LOG("%s", bad[i]);
	}
}

/* A BOM, binary data, an empty file; fio's Unix epoch times. */
TEST(bom_binary_empty_epoch)
{
	struct bf_series ser = { 0 };
	struct bf_load ld;
	char err[256];

	ASSERT_EQ(0, load_as("\xef\xbb\xbf" "1,100\n2,100\n3,100\n",
			     BF_FORMAT_AUTO, &ld, &ser, err)) TH_LOG("%s", err);
	EXPECT_EQ(3UL, ser.n);
	bf_series_free(&ser);
	ASSERT_EQ(0, load_as("\xef\xbb\xbf" TRACE_HEAD
			     IV(0, 0, 1, 100000000, 100, 100000000)
			     IV(1, 1, 2, 100000000, 100, 200000000),
			     BF_FORMAT_AUTO, &ld, &ser, err)) TH_LOG("%s", err);
	EXPECT_EQ(BF_FORMAT_TRACE, (int)ld.format);
	bf_series_free(&ser);
	EXPECT_TRUE(refused("1,100\n2,\x01\x02\n", BF_FORMAT_AUTO, "binary"));
	EXPECT_TRUE(refused("", BF_FORMAT_AUTO, "empty"));
	/* 1 s windows ending at Unix epoch milliseconds: 10 samples, 10 s */
	ASSERT_EQ(0, load_as("1767225601000, 1024, 1, 4096, 0\n"
			     "1767225602000, 1024, 1, 4096, 0\n"
			     "1767225603000, 1024, 1, 4096, 0\n",
			     BF_FORMAT_AUTO, &ld, &ser, err)) TH_LOG("%s", err);
	EXPECT_EQ(3UL, ser.n);
	EXPECT_TRUE(fabs(ser.s[ser.n - 1].t - 3) < 1e-9) TH_LOG("%g", ser.s[ser.n - 1].t);
	EXPECT_STREQ("write", ld.op);
	bf_series_free(&ser);
}

TEST(fio_per_io_log_gets_a_hint)
{
	EXPECT_TRUE(refused("64, 2042, 0, 131072, 0\n65, 2009, 0, 131072, 0\n"
			    "67, 1977, 0, 131072, 0\n67, 42907, 0, 131072, 0\n"
			    "68, 51691, 0, 131072, 0\n", BF_FORMAT_AUTO,
			    "log_avg_msec"));
}

TEST(read_errors_are_errors)
{
	struct bf_series ser = { 0 };
	struct bf_load ld = { 0 };
	char err[256] = "", dir[] = "/tmp/blkfloor-dir-XXXXXX";

	ASSERT_NE(NULL, mkdtemp(dir));
	EXPECT_NE(0, bf_series_load_as(dir, &ld, &ser, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "directory")) TH_LOG("%s", err);
	rmdir(dir);
	bf_series_free(&ser);
}

TEST(a_pipe_is_read_without_seeking)
{
	struct bf_series ser = { 0 };
	struct bf_load ld = { 0 };
	const char *text = "time_s,MBps\n1,100\n2,100\n3,50\n";
	char err[256] = "";
	int fd[2];
	FILE *f;

	ASSERT_EQ(0, pipe(fd));
	ASSERT_EQ((ssize_t)strlen(text), write(fd[1], text, strlen(text)));
	close(fd[1]);
	f = fdopen(fd[0], "r");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, bf_series_read_as(f, &ld, &ser, err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_EQ(3UL, ser.n);
	fclose(f);
	bf_series_free(&ser);
}

/*
 * A very long curve is held in at most BF_SERIES_MAX samples: neighbours
 * merge, bytes and time stay exact (the curve is the same drive sampled
 * at a longer interval).
 */
TEST(long_curves_merge_neighbours)
{
	struct bf_series ser = { 0 };
	double bytes = 0, t = 0, sum = 0;
	size_t i, n = 5000000;

	for (i = 0; i < n; i++) {
		double v = i % 3 ? 100 : 40;

		t += 0.1;
		bytes += v * 1e6 * 0.1;
		ASSERT_EQ(0, bf_series_add(&ser, t, 0.1, v, bytes));
	}
	ASSERT_EQ(0, bf_series_finish(&ser));
	EXPECT_LE(ser.n, (size_t)BF_SERIES_MAX);
	EXPECT_EQ(4U, ser.merge);
	EXPECT_EQ(bytes, ser.s[ser.n - 1].bytes);
	EXPECT_LT(fabs(ser.s[ser.n - 1].t - t), 1e-6);
	for (i = 0; i < ser.n; i++)
		sum += ser.s[i].mbps * 1e6 * ser.s[i].dt;
	EXPECT_LT(fabs(sum - bytes), 1e-6 * bytes);
	bf_series_free(&ser);
}

TEST_HARNESS_MAIN
