// SPDX-License-Identifier: GPL-2.0
/*
 * The number formatters of the whole CLI: rates, sizes, times, latencies
 * and changes, in the reports, the tables and the progress lines.
 */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>

#include "fmt.h"

/*
 * The number formatters of the whole CLI (units.c's bf_fmt_rate,
 * bf_fmt_bytes and bf_fmt_duration call these): three significant digits,
 * thousands separated by commas from 1,000 MB/s.
 */
void bf_fmt_mbps(char *b, size_t len, double mbps)
{
	double v = fabs(mbps);

	if (v >= 999.5) {
		long long x = llround(mbps);

		snprintf(b, len, "%lld,%03lld", x / 1000, llabs(x % 1000));
	} else if (v >= 99.95) {
		snprintf(b, len, "%.0f", mbps);
	} else if (v >= 9.995) {
		snprintf(b, len, "%.1f", mbps);
	} else {
		snprintf(b, len, "%.2f", mbps);
	}
}

void bf_fmt_si_bytes(char *b, size_t len, double bytes)
{
	static const char *const u[] = { "kB", "MB", "GB", "TB", "PB", "EB" };
	double v = bytes;
	int i = -1;

	if (fabs(v) < 999.5) {
		snprintf(b, len, "%.0f B", v);
		return;
	}
	while (fabs(v) >= 999.5 && i < 5) {
		v /= 1000;
		i++;
	}
	snprintf(b, len, fabs(v) < 9.995 ? "%.2f %s" : fabs(v) < 99.95 ?
		 "%.1f %s" : "%.0f %s", v, u[i]);
}

void bf_fmt_secs(char *b, size_t len, double s)
{
	unsigned long long t;

	if (!isfinite(s) && s > 0)
		snprintf(b, len, "never");
	else if (!(s > 0))
		snprintf(b, len, "0 s");
	else if (s < 1e-3)
		snprintf(b, len, "%.0f us", s * 1e6);
	else if (s < 1)
		snprintf(b, len, "%.0f ms", s * 1e3);
	else if (s < 59.5)
		snprintf(b, len, s < 9.95 ? "%.1f s" : "%.0f s", s);
	else if (s < 3599.5) {
		t = (unsigned long long)llround(s);
		snprintf(b, len, "%llu min %02llu s", t / 60, t % 60);
	} else {
		t = (unsigned long long)llround(s / 60);
		snprintf(b, len, "%llu h %02llu min", t / 60, t % 60);
	}
}

/* Three significant digits: 1.07, 12.3, 123. */
static void fmt3(char *buf, size_t len, double v, const char *unit)
{
	if (v < 10)
		snprintf(buf, len, "%.2f %s", v, unit);
	else if (v < 100)
		snprintf(buf, len, "%.1f %s", v, unit);
	else
		snprintf(buf, len, "%.0f %s", v, unit);
}

char *bf_fmt_bytes(char *buf, size_t len, uint64_t bytes)
{
	bf_fmt_si_bytes(buf, len, (double)bytes);
	return buf;
}

char *bf_fmt_bs(char *buf, size_t len, uint64_t bytes)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int i = 0;

	while (i < 4 && bytes && !(bytes & 1023)) {
		bytes >>= 10;
		i++;
	}
	snprintf(buf, len, "%llu %s", (unsigned long long)bytes, u[i]);
	return buf;
}

char *bf_fmt_rate(char *buf, size_t len, double bytes_per_s)
{
	char v[32];

	bf_fmt_mbps(v, sizeof(v), bytes_per_s > 0 ? bytes_per_s / 1e6 : 0);
	snprintf(buf, len, "%s MB/s", v);
	return buf;
}

char *bf_fmt_duration(char *buf, size_t len, double s)
{
	if (s < 0 || !isfinite(s))
		s = 0;
	if (s == 0)
		snprintf(buf, len, "0 us");
	else
		bf_fmt_secs(buf, len, s);
	return buf;
}

char *bf_fmt_change(char *buf, size_t len, double a, double b)
{
	double p = a ? 100 * (b - a) / a : NAN;

	if (!isfinite(p))
		snprintf(buf, len, "%9s", "-");
	else if (fabs(p) < 999.95)
		snprintf(buf, len, "%+7.1f %%", p);
	else if (b / a < 999.5)
		snprintf(buf, len, "x %7.3g", b / a);
	else if (b / a < 9999999.5)
		snprintf(buf, len, "x %7.0f", b / a);
	else
		snprintf(buf, len, "x %7.1e", b / a);
	return buf;
}

char *bf_fmt_lat(char *buf, size_t len, double ns)
{
	if (ns < 0 || !isfinite(ns))
		ns = 0;
	if (ns < 1e3)
		snprintf(buf, len, "%.0f ns", ns);
	else if (ns < 1e6)
		fmt3(buf, len, ns / 1e3, "us");
	else if (ns < 1e9)
		fmt3(buf, len, ns / 1e6, "ms");
	else
		fmt3(buf, len, ns / 1e9, "s");
	return buf;
}

/* 0.123, 1.23, 12.3, 123.4, 12345 (no exponent below 10^9) */
void bf_fmt_num(char *buf, size_t len, double v)
{
	double a = fabs(v);

	if (a >= 1e9 || (a > 0 && a < 0.01))
		snprintf(buf, len, "%.3g", v);
	else if (a >= 1000 || v == rint(v))
		snprintf(buf, len, "%.0f", v);
	else if (a >= 10)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.3g", v);
}

/* a standard deviation in two significant digits, never in e-notation */
static void fmt_sd(char *buf, size_t len, double sd)
{
	if (sd == 0)
		snprintf(buf, len, "0");
	else if (sd >= 10)
		snprintf(buf, len, "%.0f", sd);
	else if (sd >= 0.001)
		snprintf(buf, len, "%.2g", sd);
	else
		snprintf(buf, len, "<0.001");
}

/*
 * The decimals bf_fmt_num() gives a number of @v's size (an integer-valued
 * one as if it were not), or -1 when it uses an exponent or @v is zero.
 */
static int num_decimals(double v)
{
	double a = fabs(v);

	if (a >= 1e9 || a < 1e-4)
		return -1;
	if (a >= 1000)
		return 0;
	if (a >= 10)
		return 1;
	return 2 - (int)floor(log10(a));
}

/*
 * The spread is given no finer than the mean's last digit: finer digits
 * would claim a precision the mean beside it does not show.
 */
void bf_fmt_mean_sd(char *buf, size_t len, double mean, double sd)
{
	char x[BF_FMT_LEN], y[BF_FMT_LEN];
	int d = num_decimals(mean);

	bf_fmt_num(x, sizeof(x), mean);
	if (sd > 0 && d >= 0 && 1 - (int)floor(log10(sd)) > d)
		snprintf(y, sizeof(y), "%.*f", d, sd);
	else
		fmt_sd(y, sizeof(y), sd);
	snprintf(buf, len, "%s +-%s", x, y);
}
