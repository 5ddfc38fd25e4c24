// SPDX-License-Identifier: GPL-2.0
/*
 * blkfloor: open, check and release the target block device.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <net/genetlink.h>
#include "blkfloor.h"

static void blkfloor_target_open_err(int err, struct nlattr *path,
				     struct netlink_ext_ack *extack)
{
	switch (err) {
	case -EBUSY:
		NL_SET_ERR_MSG_ATTR(extack, path,
				    "device is busy (mounted or held exclusively)");
		break;
	case -EACCES:
	case -EROFS:
		NL_SET_ERR_MSG_ATTR(extack, path,
				    "device is read-only or access denied");
		break;
	case -ENOTBLK:
		NL_SET_ERR_MSG_ATTR(extack, path, "not a block device");
		break;
	case -ENOENT:
	case -ENODEV:
	case -ENXIO:
		NL_SET_ERR_MSG_ATTR(extack, path, "no such block device");
		break;
	default:
		NL_SET_ERR_MSG_ATTR(extack, path, "cannot open the device");
		break;
	}
}

/**
 * blkfloor_target_max_io() - largest request the queue takes for an op
 * @bdev: the device
 * @op: enum blkfloor_op
 *
 * Return: bytes, clamped to INT_MAX (the largest request the block layer
 * builds); 0 when the op is not supported.
 */
int blkfloor_target_max_io(struct block_device *bdev, u8 op)
{
	u64 sectors;

	switch (op) {
	case BLKFLOOR_OP_DISCARD:
		sectors = bdev_max_discard_sectors(bdev);
		break;
	case BLKFLOOR_OP_WRITE_ZEROES:
		sectors = bdev_write_zeroes_sectors(bdev);
		break;
	default:
		sectors = queue_max_sectors(bdev_get_queue(bdev));
		break;
	}
	return min_t(u64, sectors << SECTOR_SHIFT, INT_MAX);
}

/* The attribute that named the device: DEV_FD or DEV_PATH. */
static struct nlattr *blkfloor_target_attr(struct nlattr **attrs)
{
	return attrs[BLKFLOOR_A_DEV_FD] ?: attrs[BLKFLOOR_A_DEV_PATH];
}

static int blkfloor_target_check(struct blkfloor_run *run,
				 struct nlattr **attrs,
				 struct netlink_ext_ack *extack)
{
	struct block_device *bdev = run->bd.bdev;
	struct blkfloor_params *p = &run->p;
	unsigned int lbs = bdev_logical_block_size(bdev);
	u64 size = bdev_nr_bytes(bdev);

	run->dev_size = size;
	run->eng.lbs = lbs;
	if (!size) {
		NL_SET_ERR_MSG_ATTR(extack, blkfloor_target_attr(attrs),
				    "device has zero size");
		return -EINVAL;
	}
	/*
	 * Writes to a sequential zone must land at its write pointer, in
	 * order (or be zone appends); the engine's writes, discards and
	 * write-zeroes do not. Reads are fine anywhere.
	 */
	if (bdev_is_zoned(bdev) && p->op != BLKFLOOR_OP_READ) {
		NL_SET_ERR_MSG_ATTR(extack, blkfloor_target_attr(attrs),
				    "zoned device: only read runs are supported");
		return -EOPNOTSUPP;
	}
	if (p->bs % lbs) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[BLKFLOOR_A_BS],
				    "block size is not a multiple of the logical block size");
		return -EINVAL;
	}
	if (p->offset % lbs) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[BLKFLOOR_A_OFFSET],
				    "offset is not a multiple of the logical block size");
		return -EINVAL;
	}
	if (p->offset >= size) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[BLKFLOOR_A_OFFSET],
				    "region starts beyond the end of the device");
		return -EINVAL;
	}
	if (!p->length)
		p->length = size - p->offset;
	if (p->length > size - p->offset) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[BLKFLOOR_A_LENGTH],
				    "region extends beyond the end of the device");
		return -EINVAL;
	}
	if (p->bs > p->length) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[BLKFLOOR_A_BS],
				    "block size is larger than the region");
		return -EINVAL;
	}
	run->max_io_bytes = blkfloor_target_max_io(bdev, p->op);
	if (p->op == BLKFLOOR_OP_DISCARD && !run->max_io_bytes) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[BLKFLOOR_A_OP],
				    "device does not support discard");
		return -EOPNOTSUPP;
	}
	if (p->op == BLKFLOOR_OP_WRITE_ZEROES && !run->max_io_bytes) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[BLKFLOOR_A_OP],
				    "device does not support write zeroes");
		return -EOPNOTSUPP;
	}
	return 0;
}

/*
 * The block device file behind a DEV_FD, open for reading, with our own
 * reference; or an ERR_PTR, the extack saying why.
 */
static struct file *blkfloor_target_fget(struct nlattr *attr,
					 struct netlink_ext_ack *extack)
{
	struct file *file = fget(nla_get_s32(attr));

	if (!file) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "not an open file descriptor");
		return ERR_PTR(-EBADF);
	}
	if (!S_ISBLK(file_inode(file)->i_mode)) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "not a block device");
		fput(file);
		return ERR_PTR(-ENOTBLK);
	}
	if (!(file->f_mode & FMODE_READ)) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "the device is not open for reading");
		fput(file);
		return ERR_PTR(-EBADF);
	}
	return file;
}

/* Refuse a device that has a run, before claiming it. */
static int blkfloor_target_busy(dev_t devt, const struct nlattr *attr,
				struct netlink_ext_ack *extack)
{
	u32 id = blkfloor_run_on_dev(devt);

	if (!id)
		return 0;
	blkfloor_err_busy(extack, attr, id);
	return -EBUSY;
}

/*
 * Use the block device file the caller opened and passed as DEV_FD, as
 * loop and nbd do: the open already went through the file's permissions
 * and the LSMs, so the run can do no more than the caller could. The run
 * then claims the device exclusively for its life, with the caller's file
 * as the holder: a descriptor opened with O_EXCL holds that same claim and
 * is accepted, a device mounted or claimed by anyone else is refused. We
 * keep our reference to the file until the claim is given up, so that its
 * address cannot become another opener's holder meanwhile.
 */
static int blkfloor_target_use_fd(struct blkfloor_run *run,
				  struct nlattr *attr, bool write,
				  struct netlink_ext_ack *extack)
{
	struct file *file = blkfloor_target_fget(attr, extack);
	int ret;

	if (IS_ERR(file))
		return PTR_ERR(file);
	if (write && !(file->f_mode & FMODE_WRITE)) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "write, discard and write-zeroes runs need the device open for writing");
		ret = -EBADF;
		goto out_put;
	}
	/*
	 * Opening a disk set read-only (BLKROSET) for writing succeeds (6.1
	 * and 6.12 alike), and the block layer only warns about writes to
	 * it: refuse them here, as opening the path for writing does.
	 */
	if (write && bdev_read_only(I_BDEV(file->f_mapping->host))) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "the device is read-only");
		ret = -EROFS;
		goto out_put;
	}
	ret = blkfloor_target_busy(I_BDEV(file->f_mapping->host)->bd_dev, attr,
				   extack);
	if (ret)
		goto out_put;
	ret = blkfloor_bdev_use_file(&run->bd, file, write, file);
	if (ret) {
		blkfloor_target_open_err(ret, attr, extack);
		goto out_put;
	}
	snprintf(run->p.path, sizeof(run->p.path), "/dev/%pg", run->bd.bdev);
	return 0;

out_put:
	fput(file);
	return ret;
}

static int blkfloor_target_invalidate(struct blkfloor_run *run)
{
	const struct blkfloor_params *p = &run->p;

	if (p->op == BLKFLOOR_OP_READ)
		return 0;
	return invalidate_inode_pages2_range(blkfloor_bdev_mapping(run->bd.bdev),
					     p->offset >> PAGE_SHIFT,
					     (p->offset + p->length - 1) >>
					     PAGE_SHIFT);
}

/**
 * blkfloor_target_prepare() - write back and drop the page cache of a run
 * @run: a run that writes, its device open; called by its kthread
 *
 * Write, discard and write-zeroes bios bypass the page cache, as O_DIRECT
 * writes do, so the run does what the direct I/O path does around them:
 * dirty pages over the region are written back first, so that they do
 * not land on top of what the run writes, and cached pages are dropped,
 * whole (truncate_bdev_range() would zero partial pages at the ends).
 * Both wait for the device: only the run's own kthread calls this.
 *
 * Return: 0, or the writeback's error.
 */
int blkfloor_target_prepare(struct blkfloor_run *run)
{
	const struct blkfloor_params *p = &run->p;
	int ret;

	ret = filemap_write_and_wait_range(blkfloor_bdev_mapping(run->bd.bdev),
					   p->offset, p->offset + p->length - 1);
	if (ret)
		return ret;
	/* Pages busy now are tried again when the run ends. */
	blkfloor_target_invalidate(run);
	return 0;
}

/**
 * blkfloor_target_open() - take a run's device and check the run
 * @run: the run, its parameters filled in; it is the holder
 * @attrs: the request's attributes: DEV_FD, or DEV_PATH (CAP_SYS_ADMIN,
 *	checked by the caller)
 * @extack: where to say why the device or the parameters are refused
 *
 * A path is opened exclusively, read-only for reads and read-write for
 * everything else. Resolves a zero region length to the end of the device.
 * A run that writes over cached pages is marked to prepare (see
 * blkfloor_target_prepare()): nothing here waits for the device's I/O.
 *
 * Return: 0 with the device held, or a negative errno with it released.
 */
int blkfloor_target_open(struct blkfloor_run *run, struct nlattr **attrs,
			 struct netlink_ext_ack *extack)
{
	bool write = run->p.op != BLKFLOOR_OP_READ;
	int ret;

	if (attrs[BLKFLOOR_A_DEV_FD]) {
		ret = blkfloor_target_use_fd(run, attrs[BLKFLOOR_A_DEV_FD],
					     write, extack);
		if (ret)
			return ret;
	} else {
		dev_t devt;

		/* (a path that names no device fails in the open below) */
		if (!lookup_bdev(run->p.path, &devt)) {
			ret = blkfloor_target_busy(devt,
						   attrs[BLKFLOOR_A_DEV_PATH],
						   extack);
			if (ret)
				return ret;
		}
		ret = blkfloor_bdev_open(&run->bd, run->p.path, write, run);
		if (ret) {
			blkfloor_target_open_err(ret, attrs[BLKFLOOR_A_DEV_PATH],
						 extack);
			return ret;
		}
	}
	run->devt = run->bd.bdev->bd_dev;
	ret = blkfloor_target_check(run, attrs, extack);
	if (ret) {
		blkfloor_bdev_close(&run->bd);
		return ret;
	}
	if (write)
		run->prepare = filemap_range_has_page(blkfloor_bdev_mapping(run->bd.bdev),
						      run->p.offset,
						      run->p.offset +
						      run->p.length - 1);
	return 0;
}

/**
 * blkfloor_target_close() - release a run's device (idempotent)
 * @run: the run; none of its bios is in flight
 *
 * In the run's kthread, after a run that wrote, the pages cached over its
 * region while it ran are dropped first. Anywhere else (a RUN_START that
 * failed before its kthread ran) the run wrote nothing, and nothing may
 * wait there for the device.
 */
void blkfloor_target_close(struct blkfloor_run *run)
{
	if (!run->bd.bdev)
		return;
	if (current == run->task && blkfloor_target_invalidate(run))
		pr_warn_ratelimited("run %u: %pg: pages cached over the region could not be dropped\n",
				    run->id, run->bd.bdev);
	blkfloor_bdev_close(&run->bd);
}

/**
 * blkfloor_target_put_caps() - describe a device: DEV_PATH and a CAPS nest
 * @skb: message being built
 * @attrs: the request's attributes: DEV_FD, or DEV_PATH (CAP_SYS_ADMIN,
 *	checked by the caller)
 * @extack: where to say why the device cannot be opened
 *
 * A path is opened non-exclusively and read-only just to read the queue
 * limits, then closed; a file descriptor only needs to be open for
 * reading. The reply's DEV_PATH is the path as given, or /dev/NAME of the
 * file descriptor's device.
 *
 * Return: 0, -EMSGSIZE, or why the device cannot be used.
 */
int blkfloor_target_put_caps(struct sk_buff *skb, struct nlattr **attrs,
			     struct netlink_ext_ack *extack)
{
	struct nlattr *path = attrs[BLKFLOOR_A_DEV_PATH];
	struct blkfloor_bdev bd = {};
	struct block_device *bdev;
	struct request_queue *q;
	struct nlattr *nest;
	char name[BDEVNAME_SIZE];
	char devpath[sizeof("/dev/") + BDEVNAME_SIZE];
	int ret;

	if (attrs[BLKFLOOR_A_DEV_FD]) {
		struct file *file = blkfloor_target_fget(attrs[BLKFLOOR_A_DEV_FD],
							 extack);

		if (IS_ERR(file))
			return PTR_ERR(file);
		blkfloor_bdev_use_file(&bd, file, false, NULL);
	} else {
		ret = blkfloor_bdev_open(&bd, nla_data(path), false, NULL);
		if (ret) {
			blkfloor_target_open_err(ret, path, extack);
			return ret;
		}
	}
	bdev = bd.bdev;
	q = bdev_get_queue(bdev);
	snprintf(name, sizeof(name), "%pg", bdev);

	ret = -EMSGSIZE;
	if (!path)
		snprintf(devpath, sizeof(devpath), "/dev/%s", name);
	if (nla_put_string(skb, BLKFLOOR_A_DEV_PATH,
			   path ? nla_data(path) : devpath))
		goto out_close;
	nest = nla_nest_start(skb, BLKFLOOR_A_CAPS);
	if (!nest)
		goto out_close;
	if (nla_put_u64_64bit(skb, BLKFLOOR_CAPS_A_SIZE, bdev_nr_bytes(bdev),
			      BLKFLOOR_CAPS_A_PAD) ||
	    nla_put_u32(skb, BLKFLOOR_CAPS_A_LOGICAL_BS,
			bdev_logical_block_size(bdev)) ||
	    nla_put_u32(skb, BLKFLOOR_CAPS_A_PHYSICAL_BS,
			bdev_physical_block_size(bdev)) ||
	    nla_put_u32(skb, BLKFLOOR_CAPS_A_MAX_SECTORS,
			queue_max_sectors(q)) ||
	    nla_put_u32(skb, BLKFLOOR_CAPS_A_MAX_HW_SECTORS,
			queue_max_hw_sectors(q)) ||
	    nla_put_u32(skb, BLKFLOOR_CAPS_A_MAX_SEGMENTS,
			queue_max_segments(q)) ||
	    nla_put_u32(skb, BLKFLOOR_CAPS_A_DISCARD_GRANULARITY,
			bdev_max_discard_sectors(bdev) ?
			bdev_discard_granularity(bdev) : 0) ||
	    nla_put_u64_64bit(skb, BLKFLOOR_CAPS_A_DISCARD_MAX_BYTES,
			      (u64)bdev_max_discard_sectors(bdev) << SECTOR_SHIFT,
			      BLKFLOOR_CAPS_A_PAD) ||
	    nla_put_u64_64bit(skb, BLKFLOOR_CAPS_A_SECURE_ERASE_MAX_BYTES,
			      (u64)bdev_max_secure_erase_sectors(bdev) <<
			      SECTOR_SHIFT, BLKFLOOR_CAPS_A_PAD) ||
	    nla_put_u64_64bit(skb, BLKFLOOR_CAPS_A_WRITE_ZEROES_MAX_BYTES,
			      (u64)bdev_write_zeroes_sectors(bdev) << SECTOR_SHIFT,
			      BLKFLOOR_CAPS_A_PAD) ||
	    nla_put_u8(skb, BLKFLOOR_CAPS_A_WRITE_CACHE,
		       bdev_write_cache(bdev)) ||
	    nla_put_u8(skb, BLKFLOOR_CAPS_A_FUA, bdev_fua(bdev)) ||
	    nla_put_u8(skb, BLKFLOOR_CAPS_A_ROTATIONAL, !bdev_nonrot(bdev)) ||
	    nla_put_u8(skb, BLKFLOOR_CAPS_A_READ_ONLY, bdev_read_only(bdev)) ||
	    nla_put_string(skb, BLKFLOOR_CAPS_A_DISK_NAME, name) ||
	    nla_put_u32(skb, BLKFLOOR_CAPS_A_NR_HW_QUEUES, q->nr_hw_queues))
		goto out_cancel_nest;
	nla_nest_end(skb, nest);
	ret = 0;
	goto out_close;

out_cancel_nest:
	nla_nest_cancel(skb, nest);
out_close:
	blkfloor_bdev_close(&bd);
	return ret;
}
