// SPDX-License-Identifier: GPL-2.0
/*
 * The numbers of the reports: rates, sizes and times.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "classify.h"

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
