// SPDX-License-Identifier: GPL-2.0
/*
 * Latency histogram percentiles, fio's log-linear scheme.
 *
 * Values below 2^(BITS+1) have a bucket each. Above, group g (g >= 1,
 * error_bits = g - 1) covers [2^(g - 1 + BITS), 2^(g + BITS)) in 2^BITS equal
 * buckets of width 2^error_bits; bucket k of the group starts at
 * base + k * 2^error_bits, and its value is the midpoint of that range.
 */
#include <string.h>

#include "hist.h"

unsigned int bf_hist_val_to_idx(uint64_t val)
{
	unsigned int msb, error_bits, base, offset, idx;

	msb = val ? 63 - __builtin_clzll(val) : 0;
	if (msb <= BLKFLOOR_HIST_BITS)
		return (unsigned int)val;
	error_bits = msb - BLKFLOOR_HIST_BITS;
	base = (error_bits + 1) << BLKFLOOR_HIST_BITS;
	offset = (BLKFLOOR_HIST_VAL - 1) & (val >> error_bits);
	idx = base + offset;
	return idx < BLKFLOOR_HIST_NR - 1 ? idx : BLKFLOOR_HIST_NR - 1;
}

double bf_hist_idx_to_val(unsigned int idx)
{
	unsigned int error_bits;
	double base, k;

	if (idx < (BLKFLOOR_HIST_VAL << 1))
		return idx;
	error_bits = (idx >> BLKFLOOR_HIST_BITS) - 1;
	base = (double)(1ULL << (error_bits + BLKFLOOR_HIST_BITS));
	k = idx % BLKFLOOR_HIST_VAL;
	return base + (k + 0.5) * (double)(1ULL << error_bits);
}

void bf_hist_reset(struct bf_hist *h)
{
	memset(h, 0, sizeof(*h));
}

void bf_hist_add(struct bf_hist *h, const struct bf_hist_entry *e,
		 size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (e[i].index >= BLKFLOOR_HIST_NR)
			continue;
		h->count[e[i].index] += e[i].count;
		h->total += e[i].count;
	}
}

void bf_hist_merge(struct bf_hist *dst, const struct bf_hist *src)
{
	unsigned int i;

	for (i = 0; i < BLKFLOOR_HIST_NR; i++)
		dst->count[i] += src->count[i];
	dst->total += src->total;
}

double bf_hist_percentile(const struct bf_hist *h, double pct)
{
	double want;
	uint64_t sum = 0;
	unsigned int i;

	if (!h->total)
		return 0;
	want = pct / 100.0 * (double)h->total;
	for (i = 0; i < BLKFLOOR_HIST_NR; i++) {
		sum += h->count[i];
		if (sum && (double)sum >= want * (1 - 1e-12))
			return bf_hist_idx_to_val(i);
	}
	return bf_hist_idx_to_val(BLKFLOOR_HIST_NR - 1);
}
