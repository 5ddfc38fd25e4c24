/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Just enough of the kernel's headers to build kmod/stats.c in user space
 * for tests/test_kstats.c (the <linux/...> headers of this directory all
 * include this one).
 */
#ifndef _KSHIM_H
#define _KSHIM_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

typedef uint8_t u8;
typedef uint32_t u32;
typedef uint64_t u64;
typedef u8 blk_status_t;

#define U32_MAX		((u32)~0U)
#define U64_MAX		((u64)~0ULL)
#define ENOMEM		12
#define GFP_KERNEL_ACCOUNT	0
#define min_t(t, a, b)	((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define DIV_ROUND_UP_ULL(n, d)	(((u64)(n) + (d) - 1) / (d))

static inline u64 div_u64_rem(u64 dividend, u32 divisor, u32 *remainder)
{
	*remainder = (u32)(dividend % divisor);
	return dividend / divisor;
}

static inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

static inline void *kmalloc_array(size_t n, size_t size, int gfp)
{
	(void)gfp;
	return calloc(n, size);
}

static inline void kfree(const void *p)
{
	free((void *)p);
}

enum {
	BLK_STS_OK, BLK_STS_NOTSUPP, BLK_STS_TIMEOUT, BLK_STS_NOSPC,
	BLK_STS_TRANSPORT, BLK_STS_TARGET, BLK_STS_RESV_CONFLICT,
	BLK_STS_MEDIUM, BLK_STS_PROTECTION, BLK_STS_RESOURCE, BLK_STS_IOERR,
	BLK_STS_DM_REQUEUE, BLK_STS_AGAIN, BLK_STS_DEV_RESOURCE,
	BLK_STS_ZONE_OPEN_RESOURCE, BLK_STS_ZONE_ACTIVE_RESOURCE,
	BLK_STS_OFFLINE,
};

/* kmod/compat.h is not built here: its two status helpers. */
#define _BLKFLOOR_COMPAT_H
static inline int blkfloor_sts_offline(blk_status_t s) { return s == BLK_STS_OFFLINE; }
static inline int blkfloor_sts_nexus(blk_status_t s) { (void)s; return 0; }

#endif
