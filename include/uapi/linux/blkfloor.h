/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * blkfloor: sustained block-device throughput measurement.
 *
 * Generic netlink family "blkfloor". Documentation/netlink/specs/blkfloor.yaml
 * describes the same family; Documentation/netlink.rst explains it.
 *
 * Units: bytes are bytes, times are nanoseconds (CLOCK_MONOTONIC, relative to
 * the start of the run unless stated otherwise), rates are bytes per second.
 */
#ifndef _UAPI_LINUX_BLKFLOOR_H
#define _UAPI_LINUX_BLKFLOOR_H

#include <linux/types.h>

#define BLKFLOOR_FAMILY_NAME		"blkfloor"
#define BLKFLOOR_FAMILY_VERSION		3
#define BLKFLOOR_MCGRP_EVENTS		"events"

/* Limits enforced by the kernel policy. */
#define BLKFLOOR_QD_MAX			1024
#define BLKFLOOR_BS_MAX			(64U << 20)	/* read/write buffers */
#define BLKFLOOR_INTERVAL_MIN_NS	1000000ULL	/* 1 ms */
#define BLKFLOOR_INTERVAL_DEFAULT_NS	1000000000ULL	/* 1 s */
#define BLKFLOOR_RING_MIN		8
#define BLKFLOOR_RING_MAX		65536
#define BLKFLOOR_RING_DEFAULT		256
#define BLKFLOOR_PATH_MAX		255
#define BLKFLOOR_MISMATCH_LBAS		16	/* first N mismatching LBAs kept */
#define BLKFLOOR_VERIFY_MEM_MAX		(64U << 20)	/* qd * bs in verify mode */

/*
 * Latency histogram, fio's log-linear scheme: values below 2^(BITS+1) ns
 * have a bucket each; above, every power of two is split into 2^BITS equal
 * buckets, so a bucket's midpoint is within 1/2^(BITS+1) (< 1%) of any value
 * in it. The last bucket also holds everything above ~17 s.
 */
#define BLKFLOOR_HIST_BITS		6
#define BLKFLOOR_HIST_VAL		(1U << BLKFLOOR_HIST_BITS)
#define BLKFLOOR_HIST_GROUPS		29
#define BLKFLOOR_HIST_NR		(BLKFLOOR_HIST_GROUPS * BLKFLOOR_HIST_VAL)

/**
 * struct blkfloor_hist_entry - one non-empty histogram bucket
 * @index: bucket index, 0 .. BLKFLOOR_HIST_NR - 1
 * @count: completions whose latency fell in this bucket
 *
 * %BLKFLOOR_IV_A_HIST carries an array of these, ascending by @index, only for
 * buckets with a non-zero count. A bucket whose count does not fit in @count
 * (an interval may last a day) comes as several entries with the same
 * @index: add them up.
 */
struct blkfloor_hist_entry {
	__u32 index;
	__u32 count;
};

/**
 * struct blkfloor_verify_hdr - start of every logical block in verify mode
 * @magic: %BLKFLOOR_VERIFY_MAGIC
 * @crc: crc32c (seed ~0, final xor ~0) of the whole logical block, computed
 *	with this field zero
 * @lba: the block's address in 512-byte sectors
 * @seed: the writing run's seed
 * @gen: the writing run's pass over its region, from 0
 *
 * Little-endian on the medium. The rest of the block is pseudo-random bytes
 * derived from @seed, @lba and @gen. A read run with data mode VERIFY and the
 * same seed counts every block whose magic, lba, seed or crc is wrong.
 */
struct blkfloor_verify_hdr {
	__le32 magic;
	__le32 crc;
	__le64 lba;
	__le64 seed;
	__le64 gen;
};

#define BLKFLOOR_VERIFY_MAGIC		0x524c4642	/* "BFLR" */

enum blkfloor_op {
	BLKFLOOR_OP_READ,
	BLKFLOOR_OP_WRITE,
	BLKFLOOR_OP_DISCARD,
	BLKFLOOR_OP_WRITE_ZEROES,
	__BLKFLOOR_OP_MAX,
};

enum blkfloor_pattern {
	BLKFLOOR_PATTERN_SEQ,
	BLKFLOOR_PATTERN_RANDOM,
	__BLKFLOOR_PATTERN_MAX,
};

enum blkfloor_data {
	BLKFLOOR_DATA_RANDOM,	/* incompressible (default) */
	BLKFLOOR_DATA_ZERO,
	BLKFLOOR_DATA_VERIFY,	/* per-block header + crc32c; reads check it */
	__BLKFLOOR_DATA_MAX,
};

enum blkfloor_state {
	BLKFLOOR_STATE_RUNNING,
	BLKFLOOR_STATE_DONE,	/* reached its byte/time/loop limit */
	BLKFLOOR_STATE_STOPPED,	/* stop request, owner socket closed, unload */
	BLKFLOOR_STATE_FAILED,	/* see BLKFLOOR_A_ERRNO */
	__BLKFLOOR_STATE_MAX,
};

/* BLKFLOOR_A_FLAGS */
enum blkfloor_flags {
	BLKFLOOR_F_DESTRUCTIVE	= 1U << 0,	/* allow write/discard/zeroes */
	BLKFLOOR_F_OWNER	= 1U << 1,	/* stop when the socket closes */
	BLKFLOOR_F_FUA		= 1U << 2,	/* REQ_FUA on every write */
	BLKFLOOR_F_PREFLUSH	= 1U << 3,	/* REQ_PREFLUSH on every write */
	BLKFLOOR_F_NO_STATS	= 1U << 4,	/* skip per-I/O latency accounting */
	BLKFLOOR_F_NOMERGE	= 1U << 5,	/* REQ_NOMERGE on every bio */
	BLKFLOOR_F_FAILFAST	= 1U << 6,	/* REQ_FAILFAST_DEV | _TRANSPORT */
};

#define BLKFLOOR_F_ALL		((BLKFLOOR_F_FAILFAST << 1) - 1)

/*
 * Error classes, counted per interval (nest BLKFLOOR_IV_A_ERRORS, attribute
 * type = class + 1, value u64). Derived from the bio's blk_status_t.
 */
enum blkfloor_err_class {
	BLKFLOOR_ERR_IO,	/* BLK_STS_IOERR and anything unlisted */
	BLKFLOOR_ERR_TIMEOUT,	/* BLK_STS_TIMEOUT */
	BLKFLOOR_ERR_NOTSUPP,	/* BLK_STS_NOTSUPP */
	BLKFLOOR_ERR_MEDIUM,	/* BLK_STS_MEDIUM */
	BLKFLOOR_ERR_TRANSPORT,	/* BLK_STS_TRANSPORT, BLK_STS_TARGET, NEXUS */
	BLKFLOOR_ERR_NOSPC,	/* BLK_STS_NOSPC */
	BLKFLOOR_ERR_RESOURCE,	/* BLK_STS_RESOURCE, DEV_RESOURCE, AGAIN */
	BLKFLOOR_ERR_PROTECTION,/* BLK_STS_PROTECTION */
	BLKFLOOR_ERR_OFFLINE,	/* BLK_STS_OFFLINE (6.8+), device gone */
	__BLKFLOOR_ERR_MAX,
};

/* Top-level attributes. */
enum blkfloor_attrs {
	BLKFLOOR_A_UNSPEC,
	BLKFLOOR_A_PAD,
	BLKFLOOR_A_RUN_ID,		/* u32 */
	BLKFLOOR_A_DEV_PATH,		/* string, e.g. "/dev/sda" */
	BLKFLOOR_A_OP,			/* u8, enum blkfloor_op */
	BLKFLOOR_A_PATTERN,		/* u8, enum blkfloor_pattern */
	BLKFLOOR_A_SEED,		/* u64, random offsets and data */
	BLKFLOOR_A_BS,			/* u32, bytes per request */
	BLKFLOOR_A_QD,			/* u32, 1 .. BLKFLOOR_QD_MAX */
	BLKFLOOR_A_OFFSET,		/* u64, region start, bytes */
	BLKFLOOR_A_LENGTH,		/* u64, region length, 0 = to the end */
	BLKFLOOR_A_MAX_BYTES,		/* u64, stop after this many bytes */
	BLKFLOOR_A_MAX_TIME_NS,		/* u64, stop after this long */
	BLKFLOOR_A_LOOPS,		/* u32, passes over the region */
	BLKFLOOR_A_RATE_BPS,		/* u64, cap in bytes/s */
	BLKFLOOR_A_RATE_IOPS,		/* u64, cap in I/Os per second */
	BLKFLOOR_A_INTERVAL_NS,		/* u64, >= BLKFLOOR_INTERVAL_MIN_NS */
	BLKFLOOR_A_RING,		/* u32, closed intervals kept */
	BLKFLOOR_A_FLAGS,		/* u32, enum blkfloor_flags */
	BLKFLOOR_A_DATA,		/* u8, enum blkfloor_data */
	BLKFLOOR_A_ERR_LIMIT,		/* u32, errors tolerated, default 0 */
	BLKFLOOR_A_STATE,		/* u8, enum blkfloor_state */
	BLKFLOOR_A_ERRNO,		/* s32, negative errno when FAILED */
	BLKFLOOR_A_START_TIME_NS,	/* u64, CLOCK_REALTIME at start */
	BLKFLOOR_A_ELAPSED_NS,		/* u64 */
	BLKFLOOR_A_BYTES,		/* u64, completed successfully */
	BLKFLOOR_A_IOS,			/* u64 */
	BLKFLOOR_A_ERRORS,		/* u64 */
	BLKFLOOR_A_INTERVALS,		/* u32, intervals closed so far */
	BLKFLOOR_A_DROPPED,		/* u32, closed intervals overwritten */
	BLKFLOOR_A_MISMATCHES,		/* u64, verify failures on read */
	BLKFLOOR_A_MISMATCH_LBA,	/* u64, repeated: first mismatching LBAs */
	BLKFLOOR_A_DEV_SIZE,		/* u64, bytes */
	BLKFLOOR_A_DEV_LBS,		/* u32, logical block size */
	BLKFLOOR_A_MAX_IO_BYTES,	/* u32, largest request the queue takes */
	BLKFLOOR_A_INTERVAL,		/* nest, enum blkfloor_iv_attrs */
	BLKFLOOR_A_FROM_INDEX,		/* u32, first interval to dump */
	BLKFLOOR_A_CAPS,		/* nest, enum blkfloor_caps_attrs */
	BLKFLOOR_A_VERSION,		/* string, module version */
	BLKFLOOR_A_OWNER_PORTID,	/* u32, 0 when unowned */
	BLKFLOOR_A_DEV_FD,		/* s32, the device, opened by the caller
					 * with O_EXCL (O_RDWR unless reading)
					 */
	__BLKFLOOR_A_MAX,
};

#define BLKFLOOR_A_MAX (__BLKFLOOR_A_MAX - 1)

/* One closed interval. */
enum blkfloor_iv_attrs {
	BLKFLOOR_IV_A_UNSPEC,
	BLKFLOOR_IV_A_PAD,
	BLKFLOOR_IV_A_INDEX,		/* u32 */
	BLKFLOOR_IV_A_START_NS,		/* u64, since run start */
	BLKFLOOR_IV_A_END_NS,		/* u64, since run start */
	BLKFLOOR_IV_A_BYTES,		/* u64, completed in this interval */
	BLKFLOOR_IV_A_IOS,		/* u64 */
	BLKFLOOR_IV_A_ERRORS,		/* nest, type = err class + 1, u64 */
	BLKFLOOR_IV_A_LAT_MIN_NS,	/* u64 */
	BLKFLOOR_IV_A_LAT_MAX_NS,	/* u64 */
	BLKFLOOR_IV_A_LAT_SUM_NS,	/* u64 */
	BLKFLOOR_IV_A_HIST,		/* binary, struct blkfloor_hist_entry[] */
	BLKFLOOR_IV_A_BYTES_TOTAL,	/* u64, completed since run start */
	BLKFLOOR_IV_A_INFLIGHT,		/* u32, I/Os in flight at the end */
	BLKFLOOR_IV_A_OLDEST_NS,	/* u64, age at the end of the oldest of
					 * them, 0 when none
					 */
	__BLKFLOOR_IV_A_MAX,
};

#define BLKFLOOR_IV_A_MAX (__BLKFLOOR_IV_A_MAX - 1)

/* What a device path can do. */
enum blkfloor_caps_attrs {
	BLKFLOOR_CAPS_A_UNSPEC,
	BLKFLOOR_CAPS_A_PAD,
	BLKFLOOR_CAPS_A_SIZE,			/* u64, bytes */
	BLKFLOOR_CAPS_A_LOGICAL_BS,		/* u32 */
	BLKFLOOR_CAPS_A_PHYSICAL_BS,		/* u32 */
	BLKFLOOR_CAPS_A_MAX_SECTORS,		/* u32, 512-byte sectors */
	BLKFLOOR_CAPS_A_MAX_HW_SECTORS,		/* u32 */
	BLKFLOOR_CAPS_A_MAX_SEGMENTS,		/* u32 */
	BLKFLOOR_CAPS_A_DISCARD_GRANULARITY,	/* u32, bytes */
	BLKFLOOR_CAPS_A_DISCARD_MAX_BYTES,	/* u64, 0 = no discard */
	BLKFLOOR_CAPS_A_SECURE_ERASE_MAX_BYTES,	/* u64, 0 = not supported */
	BLKFLOOR_CAPS_A_WRITE_ZEROES_MAX_BYTES,	/* u64, 0 = not supported */
	BLKFLOOR_CAPS_A_WRITE_CACHE,		/* u8, volatile cache present */
	BLKFLOOR_CAPS_A_FUA,			/* u8 */
	BLKFLOOR_CAPS_A_ROTATIONAL,		/* u8 */
	BLKFLOOR_CAPS_A_READ_ONLY,		/* u8 */
	BLKFLOOR_CAPS_A_DISK_NAME,		/* string, e.g. "sda" */
	BLKFLOOR_CAPS_A_NR_HW_QUEUES,		/* u32 */
	__BLKFLOOR_CAPS_A_MAX,
};

#define BLKFLOOR_CAPS_A_MAX (__BLKFLOOR_CAPS_A_MAX - 1)

enum blkfloor_cmds {
	BLKFLOOR_CMD_UNSPEC,
	/*
	 * do: run parameters; replies with the run as RUN_GET does. Without
	 * MAX_BYTES, MAX_TIME_NS or LOOPS a run makes one pass over its region.
	 * The device is DEV_FD (the run holds its own reference to that file);
	 * DEV_PATH instead needs CAP_SYS_ADMIN. The reply's DEV_PATH of a
	 * DEV_FD run is "/dev/" and the kernel's name of the device.
	 */
	BLKFLOOR_CMD_RUN_START,
	BLKFLOOR_CMD_RUN_STOP,		/* do: RUN_ID */
	BLKFLOOR_CMD_RUN_GET,		/* do: RUN_ID; dump: all runs */
	/*
	 * dump: RUN_ID [FROM_INDEX]; one message per closed interval still in
	 * the ring (RUN_ID + INTERVAL nest), oldest first.
	 */
	BLKFLOOR_CMD_INTERVAL_GET,
	BLKFLOOR_CMD_DEV_CAPS,		/* do: DEV_PATH -> CAPS nest */
	BLKFLOOR_CMD_INFO_GET,		/* do: -> VERSION */
	BLKFLOOR_CMD_INTERVAL_NTF,	/* multicast: RUN_ID + INTERVAL */
	BLKFLOOR_CMD_RUN_END_NTF,	/* multicast: like a RUN_GET reply */
	__BLKFLOOR_CMD_MAX,
};

#define BLKFLOOR_CMD_MAX (__BLKFLOOR_CMD_MAX - 1)

#endif /* _UAPI_LINUX_BLKFLOOR_H */
