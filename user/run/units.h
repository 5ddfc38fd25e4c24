/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Units: parsing of sizes, durations and rates. Pure code. The printers
 * are analysis/fmt.h's, included here.
 *
 * Sizes: K, M, G, T (or k, m, g, t; kb, mb, gb, tb as fio reads them) and
 * KiB, MiB, GiB, TiB are powers of 1024; kB (KB), MB, GB, TB powers of
 * 1000, as dd reads them; b, B or a plain number is bytes. Rates are
 * printed in MB/s (10^6 bytes per second).
 */
#ifndef BLKFLOOR_UNITS_H
#define BLKFLOOR_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "fmt.h"

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

#endif /* BLKFLOOR_UNITS_H */
