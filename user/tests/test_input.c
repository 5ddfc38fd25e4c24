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
	EXPECT_TRUE(refused(four, BF_FORMAT_CSV, "two numbers"));
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
	EXPECT_TRUE(refused(TRACE_HEAD IV(0, 0, 1, 100000000, 100, 100000000)
			    IV(1, 1, 2, 100000000, 100, 200000000)
			    IV(2, 2, 3, 100000000, 100, 300000000)
			    "# state: failed\n# errno: -5\n# dropped: 0\n",
			    BF_FORMAT_AUTO, "failed"));
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
