// SPDX-License-Identifier: GPL-2.0
/*
 * The three input formats of bf_series_load() (blkfloor trace, fio bw log,
 * two-column CSV), written to temporary files, and the JSON report shape.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#include <stdint.h>

#include "classify.h"
#include "grow.h"
#include "synth.h"

/* Write @text to a new temporary file; returns its path (static buffer). */
static const char *tmpfile_with(char *path, const char *text)
{
	int fd;

	strcpy(path, "/tmp/blkfloor-test-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		close(fd);
		return NULL;
	}
	close(fd);
	return path;
}

static int load_text(const char *text, struct bf_series *ser, char *err)
{
	char path[64];
	int ret;

	if (!tmpfile_with(path, text))
		return -EIO;
	ret = bf_series_load(path, ser, err, 256);
	unlink(path);
	return ret;
}

TEST(trace_format)
{
	struct bf_series ser = { 0 };
	char err[256] = "";

	ASSERT_EQ(0, load_text(
		"# blkfloor-trace v1\n# device: /dev/sdx\n# interval_ns: 1000000000\n"
		"index,start_s,end_s,bytes,ios,errors,MBps,lat_min_us,lat_mean_us,lat_p50_us,lat_p99_us,lat_p999_us,lat_max_us,bytes_total\n"
		"0,0.000000,1.000000,200000000,1526,0,200.000,1.000,2.000,2.000,3.000,4.000,5.000,200000000\n"
		"1,1.000000,2.000000,100000000,763,0,100.000,1.000,2.000,2.000,3.000,4.000,5.000,300000000\n"
		"2,2.000000,2.500000,50000000,381,0,100.000,1.000,2.000,2.000,3.000,4.000,5.000,350000000\n"
		"# state: done\n# errno: 0\n# dropped: 0\n", &ser, err));
	ASSERT_EQ(3UL, ser.n);
	EXPECT_EQ(1.0, ser.s[0].t);
	EXPECT_EQ(1.0, ser.s[0].dt);
	EXPECT_EQ(200.0, ser.s[0].mbps);
	EXPECT_EQ(0.5, ser.s[2].dt);
	EXPECT_EQ(350e6, ser.s[2].bytes);
	bf_series_free(&ser);

	/* a header without the needed columns is refused with a reason */
	EXPECT_EQ(-EINVAL, load_text("# blkfloor-trace v1\nindex,foo\n0,1\n",
				     &ser, err));
	EXPECT_NE(NULL, strstr(err, "header"));
	bf_series_free(&ser);
}

TEST(fio_bw_log_takes_writes)
{
	struct bf_series ser = { 0 };
	char err[256] = "";

	/* reads and writes interleaved; msec is the end of a 500 ms window */
	ASSERT_EQ(0, load_text(
		"500, 97656, 0, 131072, 0\n500, 195312, 1, 131072, 0\n"
		"1000, 97656, 0, 131072, 0\n1000, 195312, 1, 131072, 0\n"
		"1500, 97656, 0, 131072, 0\n1500, 97656, 1, 131072, 0\n",
		&ser, err));
	ASSERT_EQ(3UL, ser.n);
	EXPECT_EQ(0.5, ser.s[0].t);
	EXPECT_EQ(0.5, ser.s[0].dt);
	/* KiB/s is 1024 B/s: 195312 KiB/s = 199.999 MB/s */
	EXPECT_LT(fabs(ser.s[0].mbps - 195312 * 1024 / 1e6), 1e-9);
	EXPECT_LT(fabs(ser.s[2].mbps - 97656 * 1024 / 1e6), 1e-9);
	EXPECT_LT(fabs(ser.s[2].bytes - (2 * 195312 + 97656) * 1024 * 0.5),
		  1e-3);
	bf_series_free(&ser);

	/* a read-only log is used as it is */
	ASSERT_EQ(0, load_text("1000, 1000, 0, 4096\n2000, 2000, 0, 4096\n"
			       "3000, 3000, 0, 4096\n", &ser, err));
	ASSERT_EQ(3UL, ser.n);
	EXPECT_LT(fabs(ser.s[1].mbps - 2.048), 1e-9);
	bf_series_free(&ser);
}

TEST(csv_with_header_and_comments)
{
	struct bf_series ser = { 0 };
	char err[256] = "";

	ASSERT_EQ(0, load_text("# measured by hand\ntime_s,MBps\n1,100\n"
			       "# a comment in the middle\n2,100\n3,50\n",
			       &ser, err));
	ASSERT_EQ(3UL, ser.n);
	EXPECT_EQ(1.0, ser.s[0].dt);
	EXPECT_EQ(50.0, ser.s[2].mbps);
	EXPECT_EQ(250e6, ser.s[2].bytes);
	bf_series_free(&ser);

	/* times from 0 are interval starts */
	ASSERT_EQ(0, load_text("0 100\n2 100\n4 100\n", &ser, err));
	ASSERT_EQ(3UL, ser.n);
	EXPECT_EQ(2.0, ser.s[0].t);
	EXPECT_EQ(6.0, ser.s[2].t);
	EXPECT_EQ(600e6, ser.s[2].bytes);
	bf_series_free(&ser);

	/* time going backwards is refused */
	EXPECT_EQ(-EINVAL, load_text("1,100\n3,100\n2,100\n", &ser, err));
	EXPECT_NE(NULL, strstr(err, "backwards"));
	bf_series_free(&ser);
	/* garbage */
	EXPECT_EQ(-EINVAL, load_text("hello\nworld\n", &ser, err));
	bf_series_free(&ser);
}

/* Round trip: the generator's writer in each format, then the loader. */
TEST(round_trip_all_formats)
{
	struct bf_synth_params p = {
		.kind = BF_SYN_CACHE, .scale = BF_SYN_QEMU, .noise = 0.05,
		.dt = 0.5, .n = 120, .seed = 3,
	};
	struct bf_series ser = { 0 };
	struct bf_synth_truth t;
	int fmt;

	ASSERT_EQ(0, bf_synth_gen(&p, &ser, &t));
	for (fmt = BF_FMT_TRACE; fmt <= BF_FMT_CSV; fmt++) {
		struct bf_series back = { 0 };
		struct bf_report r;
		char path[64], err[256];
		FILE *f;

		ASSERT_NE(NULL, tmpfile_with(path, ""));
		f = fopen(path, "w");
		ASSERT_NE(NULL, f);
		bf_synth_write(f, &ser, fmt, "round trip");
		fclose(f);
		ASSERT_EQ(0, bf_series_load(path, &back, err, sizeof(err)))
			TH_LOG("format %d: %s", fmt, err);
		unlink(path);
		ASSERT_EQ(ser.n, back.n);
		EXPECT_LT(fabs(back.s[60].t - ser.s[60].t), 1e-3);
		EXPECT_LT(fabs(back.s[60].mbps - ser.s[60].mbps),
			  1e-3 * ser.s[60].mbps);
		EXPECT_LT(fabs(back.s[119].bytes - ser.s[119].bytes),
			  1e-3 * ser.s[119].bytes);
		ASSERT_EQ(0, bf_classify(back.s, back.n, &r));
		EXPECT_EQ(BF_CLASS_CACHE_EXHAUSTION, (int)r.class);
		bf_report_free(&r);
		bf_series_free(&back);
	}
	bf_series_free(&ser);
}

/* A minimal JSON syntax check: objects, arrays, strings, numbers, literals */
static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

static const char *json_value(const char *p);

static const char *json_string(const char *p)
{
	if (*p++ != '"')
		return NULL;
	for (; *p && *p != '"'; p++) {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p == '\\' && !*++p)
			return NULL;
	}
	return *p == '"' ? p + 1 : NULL;
}

static const char *json_value(const char *p)
{
	p = skip_ws(p);
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';
		bool obj = *p == '{';

		p = skip_ws(p + 1);
		if (*p == close)
			return p + 1;
		for (;;) {
			if (obj) {
				p = json_string(skip_ws(p));
				if (!p)
					return NULL;
				p = skip_ws(p);
				if (*p++ != ':')
					return NULL;
			}
			p = json_value(p);
			if (!p)
				return NULL;
			p = skip_ws(p);
			if (*p == close)
				return p + 1;
			if (*p++ != ',')
				return NULL;
		}
	}
	if (*p == '"')
		return json_string(p);
	if (!strncmp(p, "true", 4) || !strncmp(p, "null", 4))
		return p + 4;
	if (!strncmp(p, "false", 5))
		return p + 5;
	if (*p == '-' || (*p >= '0' && *p <= '9')) {
		char *end;

		strtod(p, &end);
		return end;
	}
	return NULL;
}

static char *report_json(int kind)
{
	struct bf_synth_params p = {
		.kind = kind, .scale = BF_SYN_REAL, .noise = 0.05, .dt = 1,
		.n = 300, .seed = 11,
	};
	struct bf_series ser = { 0 };
	struct bf_synth_truth t;
	struct bf_report r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (bf_synth_gen(&p, &ser, &t) || bf_classify(ser.s, ser.n, &r))
		return NULL;
	f = open_memstream(&buf, &len);
	if (f) {
		bf_report_json(f, &r);
		fclose(f);
	}
	bf_report_free(&r);
	bf_series_free(&ser);
	return buf;
}

TEST(json_shape)
{
	static const char *const keys[] = {
		"\"class\":", "\"peak_MBps\":", "\"floor_MBps\":",
		"\"mean_MBps\":", "\"cache_bytes\":", "\"step_time_s\":",
		"\"recovered\":", "\"segments\":[", "\"start_s\":",
		"\"end_s\":", "\"bytes\":",
	};
	char *cache = report_json(BF_SYN_CACHE);
	char *steady = report_json(BF_SYN_STEADY);
	const char *end;
	size_t i;

	ASSERT_NE(NULL, cache);
	ASSERT_NE(NULL, steady);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		EXPECT_NE(NULL, strstr(cache, keys[i]));
	/* one well-formed object, nothing after it but a newline */
	end = json_value(cache);
	ASSERT_NE(NULL, end);
	EXPECT_STREQ("\n", end);
	end = json_value(steady);
	ASSERT_NE(NULL, end);
	EXPECT_NE(NULL, strstr(cache, "\"class\":\"cache-exhaustion\""));
	EXPECT_NE(NULL, strstr(steady, "\"class\":\"steady\""));
	EXPECT_NE(NULL, strstr(steady, "\"cache_bytes\":null"));
	EXPECT_NE(NULL, strstr(steady, "\"step_time_s\":null"));
	EXPECT_EQ(NULL, strstr(cache, "\"cache_bytes\":null"));
	free(cache);
	free(steady);
}

/* bf_grow(): doubling, zeroed growth, contents kept, overflow refused. */
TEST(grow_doubles_and_refuses_overflow)
{
	size_t cap = 0, i;
	int *v = NULL, *w;

	v = bf_grow(v, &cap, 1, sizeof(*v), 4);
	ASSERT_NE(NULL, v);
	EXPECT_EQ(4UL, cap);
	for (i = 0; i < cap; i++)
		EXPECT_EQ(0, v[i]);
	for (i = 0; i < 4; i++)
		v[i] = 10 + i;
	/* enough room: the same array, the same capacity */
	EXPECT_EQ(v, bf_grow(v, &cap, 4, sizeof(*v), 4));
	EXPECT_EQ(4UL, cap);
	/* 4 -> 8 -> 16 -> 32 for 17 */
	v = bf_grow(v, &cap, 17, sizeof(*v), 4);
	ASSERT_NE(NULL, v);
	EXPECT_EQ(32UL, cap);
	for (i = 0; i < 4; i++)
		EXPECT_EQ((int)(10 + i), v[i]);
	for (i = 4; i < cap; i++)
		EXPECT_EQ(0, v[i]);
	/* no size that overflows: NULL, the array and capacity kept */
	EXPECT_EQ(NULL, bf_grow(v, &cap, SIZE_MAX / 2 + 2, sizeof(*v), 4));
	EXPECT_EQ(NULL, bf_grow(v, &cap, SIZE_MAX / sizeof(*v) + 1,
				sizeof(*v), 4));
	EXPECT_EQ(32UL, cap);
	EXPECT_EQ(13, v[3]);
	free(v);
	/* a first capacity of 0 still grows */
	cap = 0;
	w = bf_grow(NULL, &cap, 3, sizeof(*w), 0);
	ASSERT_NE(NULL, w);
	EXPECT_EQ(4UL, cap);
	free(w);
}

TEST_HARNESS_MAIN
