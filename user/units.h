/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Units: parsing and printing of sizes, durations and rates. Pure code.
 *
 * Sizes as fio and dd read them: K, M, G, T (or k, m, g, t) and KiB, MiB,
 * GiB, TiB are powers of 1024; kB (KB), MB, GB, TB powers of 1000; a plain
 * number is bytes. Rates are printed in MB/s (10^6 bytes per second).
 */
#ifndef BLKFLOOR_UNITS_H
#define BLKFLOOR_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* All parsers return 0, -EINVAL (malformed, unknown unit) or -ERANGE. */
int bf_parse_size(const char *s, uint64_t *bytes);
/* "30s", "5m", "100ms", "1.5h", "250us", "10ns"; a plain number is seconds */
int bf_parse_duration(const char *s, uint64_t *ns);
/*
 * "50MB/s", "50M", "1.5GiB/s" set @bps (bytes per second, @iops = 0);
 * "1000iops" sets @iops (@bps = 0).
 */
int bf_parse_rate(const char *s, uint64_t *bps, uint64_t *iops);
/* A non-negative decimal integer that fits @max. */
int bf_parse_uint(const char *s, uint64_t max, uint64_t *val);

/* Printers write into @buf and return it. */
char *bf_fmt_bytes(char *buf, size_t len, uint64_t bytes);	/* "1.07 GB" */
char *bf_fmt_bs(char *buf, size_t len, uint64_t bytes);		/* "128 KiB" */
char *bf_fmt_rate(char *buf, size_t len, double bytes_per_s);	/* "12.3 MB/s" */
char *bf_fmt_duration(char *buf, size_t len, double seconds);	/* "4.2 s" */

/*
 * @b against @a in 9 columns: "+12.3 %" below a thousand per cent, then
 * the ratio ("x    123"), so a curve that collapsed or took off keeps a
 * table aligned; "-" when @a is zero.
 */
char *bf_fmt_change(char *buf, size_t len, double a, double b);

/* A latency in ns: "850 ns", "12.3 us", "1.23 ms", "2.50 s" */
char *bf_fmt_lat(char *buf, size_t len, double ns);

#define BF_FMT_LEN 32

#endif /* BLKFLOOR_UNITS_H */
