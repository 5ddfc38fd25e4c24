/* SPDX-License-Identifier: GPL-2.0 */
/*
 * blkfloor: generic netlink family, policies and ops.
 *
 * Kept in the shape ynl-gen gives its output; it follows
 * Documentation/netlink/specs/blkfloor.yaml.
 */
#ifndef _BLKFLOOR_NL_SPEC_H
#define _BLKFLOOR_NL_SPEC_H

#include <net/genetlink.h>
#include <net/netlink.h>
#include <linux/blkfloor.h>

/* Ops table */
int blkfloor_nl_run_start_doit(struct sk_buff *skb, struct genl_info *info);
int blkfloor_nl_run_stop_doit(struct sk_buff *skb, struct genl_info *info);
int blkfloor_nl_run_get_doit(struct sk_buff *skb, struct genl_info *info);
int blkfloor_nl_run_get_start(struct netlink_callback *cb);
int blkfloor_nl_run_get_dumpit(struct sk_buff *skb,
			       struct netlink_callback *cb);
int blkfloor_nl_interval_get_start(struct netlink_callback *cb);
int blkfloor_nl_interval_get_dumpit(struct sk_buff *skb,
				    struct netlink_callback *cb);
int blkfloor_nl_dev_caps_doit(struct sk_buff *skb, struct genl_info *info);
int blkfloor_nl_info_get_doit(struct sk_buff *skb, struct genl_info *info);

enum {
	BLKFLOOR_NLGRP_EVENTS,
};

extern struct genl_family blkfloor_nl_family;

#endif /* _BLKFLOOR_NL_SPEC_H */
