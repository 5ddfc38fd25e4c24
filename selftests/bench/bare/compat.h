/* SPDX-License-Identifier: GPL-2.0 */
/*
 * blkfloor_bare: the one place that knows which kernel it is built for.
 *
 * Oldest kernel supported: 6.1. Opening a block device exclusively changed
 * from blkdev_get_by_path() + blkdev_put() (6.1) through bdev_open_by_path()
 * (6.7) to bdev_file_open_by_path() + file_bdev() + fput() (6.9+). Kbuild
 * probes the headers and defines BARE_HAVE_BDEV_FILE for the latter; the
 * 6.7/6.8 bdev_handle API is not supported.
 */
#ifndef _BLKFLOOR_BARE_COMPAT_H
#define _BLKFLOOR_BARE_COMPAT_H

#include <linux/blkdev.h>
#include <linux/err.h>
#include <linux/fs.h>

/**
 * struct bare_bdev - an exclusively opened block device
 * @bdev: the device
 * @file: what holds it open (6.9+)
 */
struct bare_bdev {
	struct block_device *bdev;
#ifdef BARE_HAVE_BDEV_FILE
	struct file *file;
#endif
};

#ifdef BARE_HAVE_BDEV_FILE
static inline int bare_bdev_open(struct bare_bdev *bd, const char *path,
				 void *holder)
{
	bd->file = bdev_file_open_by_path(path, BLK_OPEN_READ | BLK_OPEN_WRITE,
					  holder, NULL);
	if (IS_ERR(bd->file))
		return PTR_ERR(bd->file);
	bd->bdev = file_bdev(bd->file);
	return 0;
}

static inline void bare_bdev_close(struct bare_bdev *bd)
{
	fput(bd->file);
}
#else
#define BARE_FMODE	(FMODE_READ | FMODE_WRITE | FMODE_EXCL)

static inline int bare_bdev_open(struct bare_bdev *bd, const char *path,
				 void *holder)
{
	bd->bdev = blkdev_get_by_path(path, BARE_FMODE, holder);
	return PTR_ERR_OR_ZERO(bd->bdev);
}

static inline void bare_bdev_close(struct bare_bdev *bd)
{
	blkdev_put(bd->bdev, BARE_FMODE);
}
#endif

#endif /* _BLKFLOOR_BARE_COMPAT_H */
