/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * blkfloor: the header of every block written in verify mode.
 *
 * Hand-written: the family's netlink ABI, <linux/blkfloor.h>, is generated
 * from Documentation/netlink/specs/blkfloor.yaml by ynl-gen-c, which
 * renders no structs (6.12). The spec describes this struct too
 * (definitions: verify-hdr); selftests/kmod/spec_check.py checks that
 * both agree.
 */
#ifndef _UAPI_LINUX_BLKFLOOR_VERIFY_H
#define _UAPI_LINUX_BLKFLOOR_VERIFY_H

#include <linux/types.h>
#include <linux/blkfloor.h>

/**
 * struct blkfloor_verify_hdr - start of every logical block in verify mode
 * @magic: %BLKFLOOR_VERIFY_MAGIC ("BFLR")
 * @crc: crc32c (seed ~0, final xor ~0) of the whole logical block, computed
 *	with this field zero
 * @lba: the block's address in 512-byte sectors
 * @seed: the writing run's seed
 * @gen: the writing run's pass over its region, from 0
 *
 * Little-endian on the medium. The rest of the block is pseudo-random bytes
 * derived from @seed, @lba and @gen. A read run with data mode
 * %BLKFLOOR_DATA_VERIFY and the same seed counts every block whose magic,
 * lba, seed or crc is wrong.
 */
struct blkfloor_verify_hdr {
	__le32 magic;
	__le32 crc;
	__le64 lba;
	__le64 seed;
	__le64 gen;
};

#endif /* _UAPI_LINUX_BLKFLOOR_VERIFY_H */
