/* SPDX-License-Identifier: GPL-2.0 */
/*
 * blkfloor: every difference between the kernels we build against.
 *
 * Oldest supported kernel: 6.1. Tested on Debian's 6.1 and 6.12. The block
 * device open/close API changed three times after 6.1 (6.5 blk_mode_t and
 * holder ops, 6.7 bdev_handle, 6.9 bdev files); all of them are wrapped
 * here so no .c file tests the kernel version. Kbuild passes the headers'
 * VERSION and PATCHLEVEL as BLKFLOOR_KV_MAJOR/MINOR (the sublevel never
 * matters here). Features that distributions backport
 * (GENL_MCAST_CAP_NET_ADMIN, BLK_STS_OFFLINE) are probed by their macros
 * rather than by version.
 */
#ifndef _BLKFLOOR_COMPAT_H
#define _BLKFLOOR_COMPAT_H

#include <linux/blkdev.h>
#include <linux/blk_types.h>
#include <linux/fs.h>
#include <linux/file.h>
#include <net/genetlink.h>

#ifndef BLKFLOOR_KV_MAJOR
#error "build blkfloor through kmod/Kbuild: it defines BLKFLOOR_KV_MAJOR/MINOR"
#endif
#define BLKFLOOR_KV(major, minor)	((major) * 1000 + (minor))
#define BLKFLOOR_KVER	BLKFLOOR_KV(BLKFLOOR_KV_MAJOR, BLKFLOOR_KV_MINOR)

/**
 * struct blkfloor_bdev - an opened block device, whatever the kernel's handle
 * @bdev: the block device
 * @user_file: a block device file a process opened and passed in (we hold a
 *	reference for as long as we use it or its address as a holder)
 * @opened: the handle below is ours to close
 * @file: 6.9+: the bdev file that holds it open
 * @handle: 6.7, 6.8: the bdev handle
 * @holder: 6.5, 6.6: the holder passed at open (NULL: not exclusive)
 * @mode: 6.1 - 6.4: the mode passed at open
 */
struct blkfloor_bdev {
	struct block_device *bdev;
	struct file *user_file;
	bool opened;
#if BLKFLOOR_KV(6, 9) <= BLKFLOOR_KVER
	struct file *file;
#elif BLKFLOOR_KV(6, 7) <= BLKFLOOR_KVER
	struct bdev_handle *handle;
#elif BLKFLOOR_KV(6, 5) <= BLKFLOOR_KVER
	void *holder;
#else
	fmode_t mode;
#endif
};

/*
 * Open the device @dev, or the one at @path when @dev is 0, for reading
 * (and writing when @write), exclusively when @holder is not NULL. Returns
 * 0 or a negative errno (-EBUSY: mounted or claimed by another holder).
 */
static inline int blkfloor_bdev_do_open(struct blkfloor_bdev *bd, dev_t dev,
					const char *path, bool write,
					void *holder)
{
#if BLKFLOOR_KV(6, 9) <= BLKFLOOR_KVER
	blk_mode_t mode = BLK_OPEN_READ | (write ? BLK_OPEN_WRITE : 0);
	struct file *file;

	if (holder)
		mode |= BLK_OPEN_EXCL;
	file = dev ? bdev_file_open_by_dev(dev, mode, holder, NULL) :
		     bdev_file_open_by_path(path, mode, holder, NULL);
	if (IS_ERR(file))
		return PTR_ERR(file);
	bd->file = file;
	bd->bdev = file_bdev(file);
#elif BLKFLOOR_KV(6, 7) <= BLKFLOOR_KVER
	blk_mode_t mode = BLK_OPEN_READ | (write ? BLK_OPEN_WRITE : 0);
	struct bdev_handle *handle;

	if (holder)
		mode |= BLK_OPEN_EXCL;
	handle = dev ? bdev_open_by_dev(dev, mode, holder, NULL) :
		       bdev_open_by_path(path, mode, holder, NULL);
	if (IS_ERR(handle))
		return PTR_ERR(handle);
	bd->handle = handle;
	bd->bdev = handle->bdev;
#elif BLKFLOOR_KV(6, 5) <= BLKFLOOR_KVER
	blk_mode_t mode = BLK_OPEN_READ | (write ? BLK_OPEN_WRITE : 0);
	struct block_device *bdev;

	if (holder)
		mode |= BLK_OPEN_EXCL;
	bdev = dev ? blkdev_get_by_dev(dev, mode, holder, NULL) :
		     blkdev_get_by_path(path, mode, holder, NULL);
	if (IS_ERR(bdev))
		return PTR_ERR(bdev);
	bd->holder = holder;
	bd->bdev = bdev;
#else
	fmode_t mode = FMODE_READ | (write ? FMODE_WRITE : 0);
	struct block_device *bdev;

	if (holder)
		mode |= FMODE_EXCL;
	bdev = dev ? blkdev_get_by_dev(dev, mode, holder) :
		     blkdev_get_by_path(path, mode, holder);
	if (IS_ERR(bdev))
		return PTR_ERR(bdev);
	bd->mode = mode;
	bd->bdev = bdev;
#endif
	bd->opened = true;
	return 0;
}

/* Open the device at @path; see blkfloor_bdev_do_open(). */
static inline int blkfloor_bdev_open(struct blkfloor_bdev *bd,
				     const char *path, bool write,
				     void *holder)
{
	return blkfloor_bdev_do_open(bd, 0, path, write, holder);
}

/*
 * Drop a file reference. A kthread's fput() leaves the release to a
 * workqueue, a jiffy later, and until then the device is still open (dm
 * refuses to remove it): a run's kthread, which releases its device
 * before it announces the end, releases it synchronously. The VFS allows
 * that for a file whose release is known: every file here is a block
 * device file (DEV_FD is checked S_ISBLK, the others are bdev files), whose
 * release writes back and drops the claim, waiting for the device, never
 * for this thread; the VFS defers a kthread's mntput() itself. In a
 * netlink request fput() releases it on the caller's way back to user
 * space, outside genetlink's lock.
 */
static inline void blkfloor_fput(struct file *file)
{
	if (current->flags & PF_KTHREAD)
		__fput_sync(file);
	else
		fput(file);
}

/*
 * Close what blkfloor_bdev_open() opened (the claim ends before return),
 * then drop the file a process passed.
 */
static inline void blkfloor_bdev_close(struct blkfloor_bdev *bd)
{
	if (!bd->bdev)
		return;
	if (bd->opened) {
#if BLKFLOOR_KV(6, 9) <= BLKFLOOR_KVER
		/*
		 * Not bdev_fput() (6.10+): it gives the claim up at once and
		 * leaves the rest to fput(); the synchronous release does both.
		 */
		blkfloor_fput(bd->file);
#elif BLKFLOOR_KV(6, 7) <= BLKFLOOR_KVER
		bdev_release(bd->handle);
#elif BLKFLOOR_KV(6, 5) <= BLKFLOOR_KVER
		blkdev_put(bd->bdev, bd->holder);
#else
		blkdev_put(bd->bdev, bd->mode);
#endif
		bd->opened = false;
	}
	if (bd->user_file) {
		blkfloor_fput(bd->user_file);
		bd->user_file = NULL;
	}
	bd->bdev = NULL;
}

/*
 * Use @file, a block device file a process opened, as it is (@holder NULL:
 * to read the device's limits), or claim its device exclusively for
 * ourselves with @holder as the holder, opening it read-write when @write.
 * Our reference to @file is dropped by blkfloor_bdev_close(). On error
 * nothing is held but @file.
 */
static inline int blkfloor_bdev_use_file(struct blkfloor_bdev *bd,
					 struct file *file, bool write,
					 void *holder)
{
	struct block_device *bdev = I_BDEV(file->f_mapping->host);
	int ret;

	if (holder) {
		ret = blkfloor_bdev_do_open(bd, bdev->bd_dev, NULL, write,
					    holder);
		if (ret)
			return ret;
		/* The number was reused by another disk since @file was opened. */
		if (bd->bdev != bdev) {
			bd->user_file = NULL;
			blkfloor_bdev_close(bd);
			return -ENODEV;
		}
	}
	bd->user_file = file;
	bd->bdev = bdev;
	return 0;
}

/* The page cache of @bdev (6.10 added bd_mapping, 6.11 removed bd_inode). */
static inline struct address_space *
blkfloor_bdev_mapping(struct block_device *bdev)
{
#if BLKFLOOR_KV(6, 10) <= BLKFLOOR_KVER
	return bdev->bd_mapping;
#else
	return bdev->bd_inode->i_mapping;
#endif
}

/* True once the disk behind @bdev has been deleted (hot unplug). */
static inline bool blkfloor_bdev_dead(struct block_device *bdev)
{
	return test_bit(GD_DEAD, &bdev->bd_disk->state);
}

/*
 * The generated nl_spec.c (ynl-gen-c, from the YNL spec) is written for the
 * newest kernels; what 6.1 lacks is supplied here, since nl_spec.h includes
 * this header (kernel-family headers in the spec).
 */
#if BLKFLOOR_KV(6, 2) <= BLKFLOOR_KVER
static inline int blkfloor_genl_register_family(struct genl_family *family,
						const struct genl_split_ops *sops,
						unsigned int n,
						struct genl_ops *ops)
{
	family->split_ops = sops;
	family->n_split_ops = n;
	return genl_register_family(family);
}
#else
/*
 * 6.2 made policy range pointers const; the generated ranges are const,
 * 6.1 only reads them through a plain pointer.
 */
#undef NLA_POLICY_FULL_RANGE
#define NLA_POLICY_FULL_RANGE(tp, _range) {				\
	.type = NLA_ENSURE_UINT_OR_BINARY_TYPE(tp),			\
	.validation_type = NLA_VALIDATE_RANGE_PTR,			\
	.range = (struct netlink_range_validation *)(_range),		\
}

/*
 * Split ops (6.2): one entry for the do and one for the dump of a command,
 * each with its own policy. 6.1 has one struct genl_ops per command; this
 * is the part of 6.2's struct the generator fills, and
 * blkfloor_genl_register_family() merges the entries into genl_ops.
 */
struct genl_split_ops {
	int (*doit)(struct sk_buff *skb, struct genl_info *info);
	int (*start)(struct netlink_callback *cb);
	int (*dumpit)(struct sk_buff *skb, struct netlink_callback *cb);
	int (*done)(struct netlink_callback *cb);
	const struct nla_policy *policy;
	unsigned int maxattr;
	u8 cmd;
	u8 internal_flags;
	u8 flags;
	u8 validate;
};

/**
 * blkfloor_genl_register_family() - register a family with split ops
 * @family: the family, without ops
 * @sops: split ops, sorted by command, a command's do before its dump
 * @n: entries in @sops
 * @ops: room for @n genl_ops (6.1 only; they must live as long as @family)
 *
 * A command's do and dump share one policy before 6.2: the do's, or the
 * dump's when the do has none. Two different policies are refused.
 *
 * Return: 0 or a negative errno.
 */
static inline int blkfloor_genl_register_family(struct genl_family *family,
						const struct genl_split_ops *sops,
						unsigned int n,
						struct genl_ops *ops)
{
	const u8 caps = GENL_CMD_CAP_DO | GENL_CMD_CAP_DUMP | GENL_CMD_CAP_HASPOL;
	unsigned int i, nr = 0;

	for (i = 0; i < n; i++) {
		const struct genl_split_ops *s = &sops[i];
		struct genl_ops *o = &ops[nr];

		if (nr && ops[nr - 1].cmd == s->cmd)
			o = &ops[nr - 1];
		else
			nr++;
		o->cmd = s->cmd;
		o->flags = s->flags & ~caps;
		o->internal_flags = s->internal_flags;
		o->validate = s->validate;
		if (s->flags & GENL_CMD_CAP_DO) {
			o->doit = s->doit;
		} else {
			o->start = s->start;
			o->dumpit = s->dumpit;
			o->done = s->done;
		}
		if (!s->policy)
			continue;
		if (o->policy && o->policy != s->policy) {
			pr_err("%s: command %u needs two policies (6.2+)\n",
			       family->name, s->cmd);
			return -EINVAL;
		}
		o->policy = s->policy;
		o->maxattr = s->maxattr;
	}
	family->ops = ops;
	family->n_ops = nr;
	return genl_register_family(family);
}
#endif

/*
 * Attribute @type of a dump request, parsed by the genetlink core; NULL when
 * absent or beyond the op's policy (a dump without a policy has no array,
 * or the reject-all one, on 6.2+).
 */
static inline struct nlattr *blkfloor_dump_attr(struct netlink_callback *cb,
						unsigned int type)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
#if BLKFLOOR_KV(6, 2) <= BLKFLOOR_KVER
	struct nlattr **attrs = info->info.attrs;
#else
	struct nlattr **attrs = info->attrs;
#endif

	if (!attrs || type > info->op.maxattr)
		return NULL;
	return attrs[type];
}

/*
 * Only CAP_NET_ADMIN may listen to run data: 6.6+, backported to 6.1.y
 * together with the flags field it goes in (initializer of the group).
 */
#ifdef GENL_MCAST_CAP_NET_ADMIN
#define BLKFLOOR_MCGRP_FLAGS_INIT	.flags = GENL_MCAST_CAP_NET_ADMIN,
#define BLKFLOOR_MCAST_RESTRICTED	true
#else
/*
 * Without it anyone may join the group: nothing is multicast then, and
 * readers poll INTERVAL_GET / RUN_GET, which are CAP_NET_ADMIN only.
 */
#define BLKFLOOR_MCGRP_FLAGS_INIT
#define BLKFLOOR_MCAST_RESTRICTED	false
#endif

/* Refuse a second run on a device: formatted extack messages are 6.3+. */
static inline void blkfloor_err_busy(struct netlink_ext_ack *extack,
				     const struct nlattr *attr, u32 id)
{
#ifdef NL_SET_ERR_MSG_ATTR_FMT
	NL_SET_ERR_MSG_ATTR_FMT(extack, attr,
				"the device is busy with run %u: one run per device",
				id);
#else
	NL_SET_ERR_MSG_ATTR(extack, attr,
			    "the device is busy with a run: one run per device");
#endif
}

/* BLK_STS_OFFLINE appeared in 6.8 (and in 6.1.y). */
static inline bool blkfloor_sts_offline(blk_status_t status)
{
#ifdef BLK_STS_OFFLINE
	return status == BLK_STS_OFFLINE;
#else
	return false;
#endif
}

/* BLK_STS_NEXUS went away in 6.9. */
static inline bool blkfloor_sts_nexus(blk_status_t status)
{
#ifdef BLK_STS_NEXUS
	return status == BLK_STS_NEXUS;
#else
	return false;
#endif
}

#endif /* _BLKFLOOR_COMPAT_H */
