// SPDX-License-Identifier: GPL-2.0
/*
 * Units: parsing and printing of sizes, durations and rates.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "units.h"

struct unit {
	const char *name;
	double mult;
};

/*
 * A bare K, M, G, T (either case) and KiB, MiB, GiB, TiB are powers of
 * 1024, as fio and dd read them; kB/KB, MB, GB, TB powers of 1000, as dd
 * reads them (fio's default reads 1MB as 2^20); kb, mb, gb, tb powers of
 * 1024 and b bytes, as fio reads them (dd's b is 512 bytes). A lowercase
 * letter before B (mB, gB) and an upper-case one before b (Mb, Gb: bits?)
 * are refused rather than guessed.
 */
#define KI 1024.0
static const struct unit size_units[] = {
	{ "", 1 }, { "B", 1 }, { "b", 1 },
	{ "kb", KI }, { "mb", KI * KI }, { "gb", KI * KI * KI },
	{ "tb", KI * KI * KI * KI },
	{ "K", KI }, { "k", KI }, { "KiB", KI },
	{ "M", KI * KI }, { "m", KI * KI }, { "MiB", KI * KI },
	{ "G", KI * KI * KI }, { "g", KI * KI * KI }, { "GiB", KI * KI * KI },
	{ "T", KI * KI * KI * KI }, { "t", KI * KI * KI * KI },
	{ "TiB", KI * KI * KI * KI },
	{ "kB", 1e3 }, { "KB", 1e3 }, { "MB", 1e6 }, { "GB", 1e9 },
	{ "TB", 1e12 },
	{ NULL, 0 },
};

static const struct unit time_units[] = {
	{ "", 1e9 }, { "s", 1e9 }, { "sec", 1e9 },
	{ "ns", 1 }, { "us", 1e3 }, { "\xc2\xb5s", 1e3 }, { "ms", 1e6 },
	{ "m", 60e9 }, { "min", 60e9 }, { "h", 3600e9 },
	{ NULL, 0 },
};

/*
 * Split "<number><unit>" into the number (digits with at most one '.') and the
 * unit string. Returns -EINVAL for empty input, a sign, or no digits.
 */
static int split_number(const char *s, double *num, const char **unit,
			bool *frac)
{
	const char *p = s;
	int digits = 0;
	char *end;

	if (!s || !*s)
		return -EINVAL;
	while (isdigit((unsigned char)*p)) {
		p++;
		digits++;
	}
	*frac = false;
	if (*p == '.') {
		p++;
		*frac = true;
		while (isdigit((unsigned char)*p)) {
			p++;
			digits++;
		}
	}
	if (!digits)
		return -EINVAL;
	errno = 0;
	*num = strtod(s, &end);
	if (errno || end != p)
		return -EINVAL;
	while (*p == ' ')
		p++;
	*unit = p;
	return 0;
}

static const struct unit *find_unit(const struct unit *u, const char *name)
{
	for (; u->name; u++)
		if (!strcmp(u->name, name))
			return u;
	return NULL;
}

/* A number and a unit from @table; -EINVAL for an unknown unit. */
static int split_unit(const char *s, const struct unit *table, double *num,
		      const struct unit **u, bool *frac)
{
	const char *unit;
	int ret;

	ret = split_number(s, num, &unit, frac);
	if (ret)
		return ret;
	*u = find_unit(table, unit);
	return *u ? 0 : -EINVAL;
}

static int scale(double num, double mult, uint64_t *out)
{
	double v = num * mult;

	if (!isfinite(v) || v >= 18446744073709551616.0)
		return -ERANGE;
	*out = (uint64_t)llround(v);
	return 0;
}

int bf_parse_size(const char *s, uint64_t *bytes)
{
	const struct unit *u;
	double num;
	bool frac;
	int ret;

	ret = split_unit(s, size_units, &num, &u, &frac);
	if (ret)
		return ret;
	if (u->mult == 1 && frac)
		return -EINVAL;		/* fractions of a byte */
	if (u->mult == 1 && !frac) {
		/* exact integer path: no double rounding for big byte counts */
		unsigned long long v;
		char *end;

		errno = 0;
		v = strtoull(s, &end, 10);
		if (errno == ERANGE)
			return -ERANGE;
		*bytes = v;
		return 0;
	}
	return scale(num, u->mult, bytes);
}

int bf_parse_duration(const char *s, uint64_t *ns)
{
	const struct unit *u;
	double num;
	bool frac;
	int ret;

	ret = split_unit(s, time_units, &num, &u, &frac);
	if (ret)
		return ret;
	return scale(num, u->mult, ns);
}

int bf_parse_rate(const char *s, uint64_t *bps, uint64_t *iops)
{
	char buf[64];
	size_t n;

	if (!s || !*s)
		return -EINVAL;
	n = strlen(s);
	if (n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n + 1);
	if (n > 4 && !strcasecmp(buf + n - 4, "iops")) {
		const char *unit;
		double num;
		bool frac;
		int ret;

		buf[n - 4] = '\0';
		ret = split_number(buf, &num, &unit, &frac);
		if (ret)
			return ret;
		if (*unit || frac)
			return -EINVAL;
		*bps = 0;
		return bf_parse_uint(buf, UINT64_MAX, iops);
	}
	if (n > 2 && !strcmp(buf + n - 2, "/s"))
		buf[n - 2] = '\0';
	*iops = 0;
	return bf_parse_size(buf, bps);
}

int bf_parse_uint(const char *s, uint64_t max, uint64_t *val)
{
	unsigned long long v;
	const char *p;
	char *end;

	if (!s || !*s)
		return -EINVAL;
	for (p = s; *p; p++)
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE || v > max)
		return -ERANGE;
	*val = v;
	return 0;
}
