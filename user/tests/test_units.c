// SPDX-License-Identifier: GPL-2.0
/*
 * Units: sizes (K, G, KiB, GiB = 2^10, 2^30 as fio and dd read them; kB,
 * GB = 10^3, 10^9 as dd reads them; kb, b as fio reads them), durations,
 * rates, and the printers.
 */
#include <errno.h>
#include <string.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#include "units.h"

static uint64_t size_of(const char *s, int *ret)
{
	uint64_t v = 0;

	*ret = bf_parse_size(s, &v);
	return v;
}

TEST(sizes_decimal_and_binary)
{
	int ret;

	EXPECT_EQ(4096ULL, size_of("4096", &ret));
	EXPECT_EQ(0, ret);
	EXPECT_EQ(4096ULL, size_of("4096B", &ret));
	EXPECT_EQ(1000ULL, size_of("1KB", &ret));
	EXPECT_EQ(1000ULL, size_of("1kB", &ret));
	EXPECT_EQ(1024ULL, size_of("1KiB", &ret));
	EXPECT_EQ(128ULL << 10, size_of("128KiB", &ret));
	EXPECT_EQ(50000000ULL, size_of("50MB", &ret));
	EXPECT_EQ(1000000000ULL, size_of("1GB", &ret));
	EXPECT_EQ(1ULL << 30, size_of("1GiB", &ret));
	EXPECT_EQ(8ULL << 30, size_of("8GiB", &ret));
	EXPECT_EQ(1500000000ULL, size_of("1.5GB", &ret));
	EXPECT_EQ(1000000000000ULL, size_of("1TB", &ret));
	EXPECT_EQ(1ULL << 40, size_of("1TiB", &ret));
	EXPECT_EQ(0, ret);
	EXPECT_EQ(18446744073709551615ULL,
		  size_of("18446744073709551615", &ret));
	EXPECT_EQ(0, ret);
}

/* fio's and dd's reading: a bare K, M, G, T (either case) is binary. */
TEST(sizes_as_fio)
{
	int ret;

	EXPECT_EQ(131072ULL, size_of("128K", &ret));
	EXPECT_EQ(0, ret);
	EXPECT_EQ(131072ULL, size_of("128k", &ret));
	EXPECT_EQ(4096ULL, size_of("4k", &ret));
	EXPECT_EQ(1024ULL, size_of("1K", &ret));
	EXPECT_EQ(64ULL << 20, size_of("64M", &ret));
	EXPECT_EQ(64ULL << 20, size_of("64m", &ret));
	EXPECT_EQ(1ULL << 30, size_of("1G", &ret));
	EXPECT_EQ(8ULL << 30, size_of("8g", &ret));
	EXPECT_EQ(1ULL << 40, size_of("1T", &ret));
	EXPECT_EQ(1ULL << 40, size_of("1t", &ret));
	EXPECT_EQ(1536ULL << 20, size_of("1.5G", &ret));
	EXPECT_EQ(0, ret);
	EXPECT_EQ(1000000ULL, size_of("1MB", &ret));
	EXPECT_EQ(1000000000000ULL, size_of("1TB", &ret));
	EXPECT_EQ(0, ret);
	/* fio's lowercase kb and its b (bytes; dd's b is 512 bytes) */
	EXPECT_EQ(1024ULL, size_of("1kb", &ret));
	EXPECT_EQ(0, ret);
	EXPECT_EQ(4096ULL, size_of("4096b", &ret));
	EXPECT_EQ(0, ret);
	EXPECT_EQ(64ULL << 20, size_of("64mb", &ret));
	EXPECT_EQ(2ULL << 30, size_of("2gb", &ret));
	EXPECT_EQ(1ULL << 40, size_of("1tb", &ret));
	EXPECT_EQ(0, ret);
}

TEST(sizes_rejected)
{
	uint64_t v;

	EXPECT_EQ(-EINVAL, bf_parse_size("", &v));
	EXPECT_EQ(-EINVAL, bf_parse_size(NULL, &v));
	EXPECT_EQ(-EINVAL, bf_parse_size("-1", &v));
	EXPECT_EQ(-EINVAL, bf_parse_size("1X", &v));
	EXPECT_EQ(-EINVAL, bf_parse_size("1Gb", &v));	/* bits? */
	EXPECT_EQ(-EINVAL, bf_parse_size("1mB", &v));	/* millibytes? */
	EXPECT_EQ(-EINVAL, bf_parse_size("1Ki", &v));
	EXPECT_EQ(-EINVAL, bf_parse_size("1KK", &v));
	EXPECT_EQ(-EINVAL, bf_parse_size("GB", &v));
	EXPECT_EQ(-EINVAL, bf_parse_size("1.5", &v));	/* half a byte */
	EXPECT_EQ(-EINVAL, bf_parse_size("1 2", &v));
	EXPECT_EQ(-EINVAL, bf_parse_size("0x10", &v));
	EXPECT_EQ(-ERANGE, bf_parse_size("18446744073709551616", &v));
	EXPECT_EQ(-ERANGE, bf_parse_size("20000000TB", &v));
	EXPECT_EQ(-ERANGE, bf_parse_size("16777216TiB", &v));
}

TEST(durations)
{
	uint64_t ns;

	ASSERT_EQ(0, bf_parse_duration("30s", &ns));
	EXPECT_EQ(30000000000ULL, ns);
	ASSERT_EQ(0, bf_parse_duration("5m", &ns));
	EXPECT_EQ(300000000000ULL, ns);
	ASSERT_EQ(0, bf_parse_duration("100ms", &ns));
	EXPECT_EQ(100000000ULL, ns);
	ASSERT_EQ(0, bf_parse_duration("250us", &ns));
	EXPECT_EQ(250000ULL, ns);
	ASSERT_EQ(0, bf_parse_duration("10ns", &ns));
	EXPECT_EQ(10ULL, ns);
	ASSERT_EQ(0, bf_parse_duration("1.5h", &ns));
	EXPECT_EQ(5400000000000ULL, ns);
	ASSERT_EQ(0, bf_parse_duration("2", &ns));	/* seconds */
	EXPECT_EQ(2000000000ULL, ns);
	EXPECT_EQ(-EINVAL, bf_parse_duration("", &ns));
	EXPECT_EQ(-EINVAL, bf_parse_duration("-1s", &ns));
	EXPECT_EQ(-EINVAL, bf_parse_duration("5 days", &ns));
	EXPECT_EQ(-EINVAL, bf_parse_duration("s", &ns));
	EXPECT_EQ(-ERANGE, bf_parse_duration("100000000000h", &ns));
}

TEST(rates)
{
	uint64_t bps, iops;

	ASSERT_EQ(0, bf_parse_rate("50MB/s", &bps, &iops));
	EXPECT_EQ(50000000ULL, bps);
	EXPECT_EQ(0ULL, iops);
	ASSERT_EQ(0, bf_parse_rate("50M", &bps, &iops));	/* fio: MiB/s */
	EXPECT_EQ(50ULL << 20, bps);
	ASSERT_EQ(0, bf_parse_rate("50MB", &bps, &iops));
	EXPECT_EQ(50000000ULL, bps);
	ASSERT_EQ(0, bf_parse_rate("1GiB/s", &bps, &iops));
	EXPECT_EQ(1ULL << 30, bps);
	ASSERT_EQ(0, bf_parse_rate("1000iops", &bps, &iops));
	EXPECT_EQ(0ULL, bps);
	EXPECT_EQ(1000ULL, iops);
	ASSERT_EQ(0, bf_parse_rate("250IOPS", &bps, &iops));
	EXPECT_EQ(250ULL, iops);
	EXPECT_EQ(-EINVAL, bf_parse_rate("iops", &bps, &iops));
	EXPECT_EQ(-EINVAL, bf_parse_rate("1.5iops", &bps, &iops));
	EXPECT_EQ(-EINVAL, bf_parse_rate("50MB/h", &bps, &iops));
	EXPECT_EQ(-EINVAL, bf_parse_rate("", &bps, &iops));
	EXPECT_EQ(-EINVAL, bf_parse_rate("fast", &bps, &iops));
}

TEST(uints)
{
	uint64_t v;

	ASSERT_EQ(0, bf_parse_uint("42", 100, &v));
	EXPECT_EQ(42ULL, v);
	EXPECT_EQ(-ERANGE, bf_parse_uint("101", 100, &v));
	EXPECT_EQ(-EINVAL, bf_parse_uint("-1", 100, &v));
	EXPECT_EQ(-EINVAL, bf_parse_uint("4k", 100000, &v));
	EXPECT_EQ(-EINVAL, bf_parse_uint("", 100, &v));
}

TEST(printers)
{
	char b[BF_FMT_LEN];

	EXPECT_STREQ("1.07 GB", bf_fmt_bytes(b, sizeof(b), 1073741824ULL));
	EXPECT_STREQ("512 B", bf_fmt_bytes(b, sizeof(b), 512));
	EXPECT_STREQ("1.00 kB", bf_fmt_bytes(b, sizeof(b), 1000));
	EXPECT_STREQ("250 GB", bf_fmt_bytes(b, sizeof(b), 250000000000ULL));
	EXPECT_STREQ("1.00 TB", bf_fmt_bytes(b, sizeof(b), 999999999999ULL));
	EXPECT_STREQ("128 KiB", bf_fmt_bs(b, sizeof(b), 131072));
	EXPECT_STREQ("4 KiB", bf_fmt_bs(b, sizeof(b), 4096));
	EXPECT_STREQ("16 MiB", bf_fmt_bs(b, sizeof(b), 16 << 20));
	EXPECT_STREQ("512 B", bf_fmt_bs(b, sizeof(b), 512));
	EXPECT_STREQ("1536 B", bf_fmt_bs(b, sizeof(b), 1536));
	EXPECT_STREQ("12.3 MB/s", bf_fmt_rate(b, sizeof(b), 12.3e6));
	EXPECT_STREQ("2,555 MB/s", bf_fmt_rate(b, sizeof(b), 2555e6));
	EXPECT_STREQ("0.50 MB/s", bf_fmt_rate(b, sizeof(b), 0.5e6));
	EXPECT_STREQ("4.2 s", bf_fmt_duration(b, sizeof(b), 4.2));
	EXPECT_STREQ("42 s", bf_fmt_duration(b, sizeof(b), 42.2));
	EXPECT_STREQ("1 h 02 min", bf_fmt_duration(b, sizeof(b), 3720));
	EXPECT_STREQ("6 min 36 s", bf_fmt_duration(b, sizeof(b), 396));
	EXPECT_STREQ("120 ms", bf_fmt_duration(b, sizeof(b), 0.12));
	EXPECT_STREQ("850 ns", bf_fmt_lat(b, sizeof(b), 850));
	EXPECT_STREQ("12.3 us", bf_fmt_lat(b, sizeof(b), 12300));
	EXPECT_STREQ("1.23 ms", bf_fmt_lat(b, sizeof(b), 1230000));
	/* Changes keep nine columns, however large. */
	EXPECT_STREQ("  +10.0 %", bf_fmt_change(b, sizeof(b), 100, 110));
	EXPECT_STREQ("  -80.0 %", bf_fmt_change(b, sizeof(b), 125, 25));
	EXPECT_STREQ(" +999.9 %", bf_fmt_change(b, sizeof(b), 10, 109.99));
	EXPECT_STREQ("x      11", bf_fmt_change(b, sizeof(b), 10, 110));
	EXPECT_STREQ("x    12.3", bf_fmt_change(b, sizeof(b), 10, 123));
	EXPECT_STREQ("x   12340", bf_fmt_change(b, sizeof(b), 0.01, 123.4));
	EXPECT_STREQ("x 1.2e+08", bf_fmt_change(b, sizeof(b), 1e-6, 123.4));
	EXPECT_STREQ("        -", bf_fmt_change(b, sizeof(b), 0, 5));
}

/* The plain numbers of compare's rows and table cells. */
TEST(plain_numbers)
{
	static const struct {
		double v;
		const char *s;
	} t[] = {
		{ 0.123, "0.123" }, { 1.2345, "1.23" }, { 12.34, "12.3" },
		{ 300, "300" }, { 12345.6, "12346" }, { 0.001, "0.001" },
		{ 2.5e9, "2.5e+09" }, { 0, "0" },
	};
	char b[BF_FMT_LEN];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		bf_fmt_num(b, sizeof(b), t[i].v);
		EXPECT_STREQ(t[i].s, b);
	}
}

/*
 * compare's cells over several runs: the spread in two significant
 * digits, but never finer than the mean's last digit ("512.0 +-0.0015"
 * and "512.0 +-<0.001" claimed a precision the mean does not show).
 */
TEST(mean_and_spread)
{
	static const struct {
		double m, sd;
		const char *s;
	} t[] = {
		{ 205.5, 31, "205.5 +-31" },
		{ 1775, 373, "1775 +-373" },
		{ 7.01, 6.7, "7.01 +-6.7" },
		{ 2, 0.35, "2 +-0.35" },
		{ 512, 0, "512 +-0" },
		{ 511.9994, 0.0015, "512.0 +-0.0" },
		{ 511.9994, 0.0004, "512.0 +-0.0" },
		{ 0.154, 0.00112, "0.154 +-0.001" },
		{ 1095, 0.4, "1095 +-0" },
		{ 2, 0.0004, "2 +-0.00" },
		{ 1.5, 0.012, "1.5 +-0.01" },
		{ 0, 0.5, "0 +-0.5" },
		{ 0, 0.0004, "0 +-<0.001" },
	};
	char b[2 * BF_FMT_LEN];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		bf_fmt_mean_sd(b, sizeof(b), t[i].m, t[i].sd);
		EXPECT_STREQ(t[i].s, b);
	}
}

TEST_HARNESS_MAIN
