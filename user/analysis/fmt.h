/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The number formatters of the whole CLI (analysis/fmt.c): the analysis
 * library and the commands print rates, sizes and times through these
 * and nothing else. Each writes at most @len bytes into @buf.
 */
#ifndef BLKFLOOR_FMT_H
#define BLKFLOOR_FMT_H

#include <stddef.h>
#include <stdint.h>

/* "2,555" / "127" / "45.3" style rates, "280 GB" bytes, "5 min" times. */
void bf_fmt_mbps(char *buf, size_t len, double mbps);
void bf_fmt_si_bytes(char *buf, size_t len, double bytes);
void bf_fmt_secs(char *buf, size_t len, double secs);

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

/* A plain number: 0.123, 1.23, 12.3, 123.4, 12345 (no exponent below 10^9) */
void bf_fmt_num(char *buf, size_t len, double v);

/*
 * A mean and standard deviation over several runs, as compare's cells
 * print them: "205.5 +-31", "512 +-0".
 */
void bf_fmt_mean_sd(char *buf, size_t len, double mean, double sd);

#define BF_FMT_LEN 32

#endif /* BLKFLOOR_FMT_H */
