/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small readers of sysfs attributes. Every path is built from a directory
 * the caller found under a sysfs root ("/sys", or a test tree).
 */
#ifndef BLKFLOOR_SYSFS_H
#define BLKFLOOR_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* snprintf whose truncation is acceptable (sysfs paths and names) */
void bf_fmt(char *buf, size_t len, const char *f, ...)
	__attribute__((format(printf, 3, 4)));

/* Read the one-line attribute @dir/@attr, trimmed; "" if absent. */
void bf_sysfs_str(const char *dir, const char *attr, char *buf, size_t len);

/*
 * Read @dir/@attr as an unsigned number (decimal, or hex with "0x" as the
 * SCSI device counters are). Returns false when absent or not a number.
 */
bool bf_sysfs_u64(const char *dir, const char *attr, uint64_t *v);

/* Whether @dir/@attr exists. */
bool bf_sysfs_exists(const char *dir, const char *attr);

/* Basename of the target of symlink @dir/@link; "" if none. */
void bf_sysfs_link_base(const char *dir, const char *link, char *buf,
			size_t len);

/*
 * Walk up from @path (below @sysroot) to the first directory that holds
 * @attr (a USB device: "idVendor"). Copies it to @out; false if none.
 */
bool bf_sysfs_up_to(const char *sysroot, const char *path, const char *attr,
		    char *out, size_t len);

#endif /* BLKFLOOR_SYSFS_H */
