/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/blkfloor.yaml */
/* YNL-GEN kernel header */

#ifndef _LINUX_BLKFLOOR_GEN_H
#define _LINUX_BLKFLOOR_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/blkfloor.h>
#include <compat.h>

/* Ops table for blkfloor */
extern const struct genl_split_ops blkfloor_nl_ops[8];

int blkfloor_nl_run_get_start(struct netlink_callback *cb);
int blkfloor_nl_interval_get_start(struct netlink_callback *cb);
int blkfloor_nl_error_get_start(struct netlink_callback *cb);

int blkfloor_nl_run_start_doit(struct sk_buff *skb, struct genl_info *info);
int blkfloor_nl_run_stop_doit(struct sk_buff *skb, struct genl_info *info);
int blkfloor_nl_run_get_doit(struct sk_buff *skb, struct genl_info *info);
int blkfloor_nl_run_get_dumpit(struct sk_buff *skb,
			       struct netlink_callback *cb);
int blkfloor_nl_interval_get_dumpit(struct sk_buff *skb,
				    struct netlink_callback *cb);
int blkfloor_nl_dev_caps_doit(struct sk_buff *skb, struct genl_info *info);
int blkfloor_nl_info_get_doit(struct sk_buff *skb, struct genl_info *info);
int blkfloor_nl_error_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb);

enum {
	BLKFLOOR_NLGRP_EVENTS,
};

#endif /* _LINUX_BLKFLOOR_GEN_H */
