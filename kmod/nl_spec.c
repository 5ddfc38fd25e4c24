// SPDX-License-Identifier: GPL-2.0
/*
 * blkfloor: generic netlink family, policies and ops.
 *
 * Kept in the shape ynl-gen gives its output; it follows
 * Documentation/netlink/specs/blkfloor.yaml. Every op is GENL_ADMIN_PERM
 * and, through resv_start_op, strictly validated.
 */
#include <net/genetlink.h>
#include <net/netlink.h>
#include <linux/blkfloor.h>
#include "compat.h"
#include "nl_spec.h"

/* Integer value ranges (not const: 6.1's policy takes a plain pointer) */
static struct netlink_range_validation blkfloor_a_bs_range = {
	.min	= SECTOR_SIZE,
	.max	= BLKFLOOR_BS_MAX,
};

static struct netlink_range_validation blkfloor_a_ring_range = {
	.min	= BLKFLOOR_RING_MIN,
	.max	= BLKFLOOR_RING_MAX,
};

static struct netlink_range_validation blkfloor_a_interval_ns_range = {
	.min	= BLKFLOOR_INTERVAL_MIN_NS,
	.max	= 86400ULL * NSEC_PER_SEC,
};

/* BLKFLOOR_CMD_RUN_START - do */
static const struct nla_policy blkfloor_run_start_nl_policy[BLKFLOOR_A_DEV_FD + 1] = {
	[BLKFLOOR_A_DEV_PATH] = { .type = NLA_NUL_STRING, .len = BLKFLOOR_PATH_MAX, },
	[BLKFLOOR_A_OP] = NLA_POLICY_MAX(NLA_U8, __BLKFLOOR_OP_MAX - 1),
	[BLKFLOOR_A_PATTERN] = NLA_POLICY_MAX(NLA_U8, __BLKFLOOR_PATTERN_MAX - 1),
	[BLKFLOOR_A_SEED] = { .type = NLA_U64, },
	[BLKFLOOR_A_BS] = NLA_POLICY_FULL_RANGE(NLA_U32, &blkfloor_a_bs_range),
	[BLKFLOOR_A_QD] = NLA_POLICY_RANGE(NLA_U32, 1, BLKFLOOR_QD_MAX),
	[BLKFLOOR_A_OFFSET] = { .type = NLA_U64, },
	[BLKFLOOR_A_LENGTH] = { .type = NLA_U64, },
	[BLKFLOOR_A_MAX_BYTES] = NLA_POLICY_MIN(NLA_U64, 1),
	[BLKFLOOR_A_MAX_TIME_NS] = NLA_POLICY_MIN(NLA_U64, 1),
	[BLKFLOOR_A_LOOPS] = NLA_POLICY_MIN(NLA_U32, 1),
	[BLKFLOOR_A_RATE_BPS] = NLA_POLICY_MIN(NLA_U64, 1),
	[BLKFLOOR_A_RATE_IOPS] = NLA_POLICY_MIN(NLA_U64, 1),
	[BLKFLOOR_A_INTERVAL_NS] = NLA_POLICY_FULL_RANGE(NLA_U64, &blkfloor_a_interval_ns_range),
	[BLKFLOOR_A_RING] = NLA_POLICY_FULL_RANGE(NLA_U32, &blkfloor_a_ring_range),
	[BLKFLOOR_A_FLAGS] = NLA_POLICY_MASK(NLA_U32, BLKFLOOR_F_ALL),
	[BLKFLOOR_A_DATA] = NLA_POLICY_MAX(NLA_U8, __BLKFLOOR_DATA_MAX - 1),
	[BLKFLOOR_A_ERR_LIMIT] = { .type = NLA_U32, },
	[BLKFLOOR_A_DEV_FD] = NLA_POLICY_MIN(NLA_S32, 0),
};

/* BLKFLOOR_CMD_RUN_STOP - do, BLKFLOOR_CMD_RUN_GET - do / dump */
static const struct nla_policy blkfloor_run_id_nl_policy[BLKFLOOR_A_RUN_ID + 1] = {
	[BLKFLOOR_A_RUN_ID] = NLA_POLICY_MIN(NLA_U32, 1),
};

/* BLKFLOOR_CMD_INTERVAL_GET - dump */
static const struct nla_policy blkfloor_interval_get_nl_policy[BLKFLOOR_A_FROM_INDEX + 1] = {
	[BLKFLOOR_A_RUN_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[BLKFLOOR_A_FROM_INDEX] = { .type = NLA_U32, },
};

/* BLKFLOOR_CMD_DEV_CAPS - do */
static const struct nla_policy blkfloor_dev_caps_nl_policy[BLKFLOOR_A_DEV_PATH + 1] = {
	[BLKFLOOR_A_DEV_PATH] = { .type = NLA_NUL_STRING, .len = BLKFLOOR_PATH_MAX, },
};

/* Ops table for blkfloor */
static const struct genl_ops blkfloor_nl_ops[] = {
	{
		.cmd		= BLKFLOOR_CMD_RUN_START,
		.doit		= blkfloor_nl_run_start_doit,
		.policy		= blkfloor_run_start_nl_policy,
		.maxattr	= BLKFLOOR_A_DEV_FD,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= BLKFLOOR_CMD_RUN_STOP,
		.doit		= blkfloor_nl_run_stop_doit,
		.policy		= blkfloor_run_id_nl_policy,
		.maxattr	= BLKFLOOR_A_RUN_ID,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= BLKFLOOR_CMD_RUN_GET,
		.doit		= blkfloor_nl_run_get_doit,
		.start		= blkfloor_nl_run_get_start,
		.dumpit		= blkfloor_nl_run_get_dumpit,
		.policy		= blkfloor_run_id_nl_policy,
		.maxattr	= BLKFLOOR_A_RUN_ID,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= BLKFLOOR_CMD_INTERVAL_GET,
		.start		= blkfloor_nl_interval_get_start,
		.dumpit		= blkfloor_nl_interval_get_dumpit,
		.policy		= blkfloor_interval_get_nl_policy,
		.maxattr	= BLKFLOOR_A_FROM_INDEX,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= BLKFLOOR_CMD_DEV_CAPS,
		.doit		= blkfloor_nl_dev_caps_doit,
		.policy		= blkfloor_dev_caps_nl_policy,
		.maxattr	= BLKFLOOR_A_DEV_PATH,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		/* No policy: any attribute is rejected. */
		.cmd		= BLKFLOOR_CMD_INFO_GET,
		.doit		= blkfloor_nl_info_get_doit,
		.flags		= GENL_ADMIN_PERM,
	},
};

static const struct genl_multicast_group blkfloor_nl_mcgrps[] = {
	[BLKFLOOR_NLGRP_EVENTS] = {
		.name	= BLKFLOOR_MCGRP_EVENTS,
		BLKFLOOR_MCGRP_FLAGS_INIT
	},
};

struct genl_family blkfloor_nl_family __ro_after_init = {
	.name		= BLKFLOOR_FAMILY_NAME,
	.version	= BLKFLOOR_FAMILY_VERSION,
	.netnsok	= false,
	.parallel_ops	= true,
	.module		= THIS_MODULE,
	.ops		= blkfloor_nl_ops,
	.n_ops		= ARRAY_SIZE(blkfloor_nl_ops),
	.resv_start_op	= BLKFLOOR_CMD_RUN_START,
	.mcgrps		= blkfloor_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(blkfloor_nl_mcgrps),
};
