// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/blkfloor.yaml */
/* YNL-GEN kernel source */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "nl_spec.h"

#include <uapi/linux/blkfloor.h>
#include <compat.h>

/* Integer value ranges */
static const struct netlink_range_validation blkfloor_a_bs_range = {
	.min	= 512ULL,
	.max	= BLKFLOOR_BS_MAX,
};

static const struct netlink_range_validation blkfloor_a_interval_ns_range = {
	.min	= BLKFLOOR_INTERVAL_MIN_NS,
	.max	= BLKFLOOR_INTERVAL_MAX_NS,
};

static const struct netlink_range_validation blkfloor_a_ring_range = {
	.min	= BLKFLOOR_RING_MIN,
	.max	= BLKFLOOR_RING_MAX,
};

/* BLKFLOOR_CMD_RUN_START - do */
static const struct nla_policy blkfloor_run_start_nl_policy[BLKFLOOR_A_ERR_LOG + 1] = {
	[BLKFLOOR_A_DEV_FD] = NLA_POLICY_MIN(NLA_S32, 0),
	[BLKFLOOR_A_DEV_PATH] = { .type = NLA_NUL_STRING, .len = BLKFLOOR_PATH_MAX, },
	[BLKFLOOR_A_OP] = NLA_POLICY_MAX(NLA_U32, 3),
	[BLKFLOOR_A_PATTERN] = NLA_POLICY_MAX(NLA_U32, 1),
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
	[BLKFLOOR_A_FLAGS] = NLA_POLICY_MASK(NLA_U32, 0x7f),
	[BLKFLOOR_A_DATA] = NLA_POLICY_MAX(NLA_U32, 3),
	[BLKFLOOR_A_ERR_LIMIT] = { .type = NLA_U32, },
	[BLKFLOOR_A_ERR_LOG] = NLA_POLICY_MAX(NLA_U32, BLKFLOOR_ERR_LOG_MAX),
};

/* BLKFLOOR_CMD_RUN_STOP - do */
static const struct nla_policy blkfloor_run_stop_nl_policy[BLKFLOOR_A_RUN_ID + 1] = {
	[BLKFLOOR_A_RUN_ID] = NLA_POLICY_MIN(NLA_U32, 1),
};

/* BLKFLOOR_CMD_RUN_GET - do */
static const struct nla_policy blkfloor_run_get_nl_policy[BLKFLOOR_A_RUN_ID + 1] = {
	[BLKFLOOR_A_RUN_ID] = NLA_POLICY_MIN(NLA_U32, 1),
};

/* BLKFLOOR_CMD_INTERVAL_GET - dump */
static const struct nla_policy blkfloor_interval_get_nl_policy[BLKFLOOR_A_FROM_INDEX + 1] = {
	[BLKFLOOR_A_RUN_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[BLKFLOOR_A_FROM_INDEX] = { .type = NLA_U64, },
};

/* BLKFLOOR_CMD_DEV_CAPS - do */
static const struct nla_policy blkfloor_dev_caps_nl_policy[BLKFLOOR_A_DEV_FD + 1] = {
	[BLKFLOOR_A_DEV_PATH] = { .type = NLA_NUL_STRING, .len = BLKFLOOR_PATH_MAX, },
	[BLKFLOOR_A_DEV_FD] = NLA_POLICY_MIN(NLA_S32, 0),
};

/* BLKFLOOR_CMD_ERROR_GET - dump */
static const struct nla_policy blkfloor_error_get_nl_policy[BLKFLOOR_A_RUN_ID + 1] = {
	[BLKFLOOR_A_RUN_ID] = NLA_POLICY_MIN(NLA_U32, 1),
};

/* Ops table for blkfloor */
const struct genl_split_ops blkfloor_nl_ops[8] = {
	{
		.cmd		= BLKFLOOR_CMD_RUN_START,
		.doit		= blkfloor_nl_run_start_doit,
		.policy		= blkfloor_run_start_nl_policy,
		.maxattr	= BLKFLOOR_A_ERR_LOG,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= BLKFLOOR_CMD_RUN_STOP,
		.doit		= blkfloor_nl_run_stop_doit,
		.policy		= blkfloor_run_stop_nl_policy,
		.maxattr	= BLKFLOOR_A_RUN_ID,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= BLKFLOOR_CMD_RUN_GET,
		.doit		= blkfloor_nl_run_get_doit,
		.policy		= blkfloor_run_get_nl_policy,
		.maxattr	= BLKFLOOR_A_RUN_ID,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd	= BLKFLOOR_CMD_RUN_GET,
		.start	= blkfloor_nl_run_get_start,
		.dumpit	= blkfloor_nl_run_get_dumpit,
		.flags	= GENL_ADMIN_PERM | GENL_CMD_CAP_DUMP,
	},
	{
		.cmd		= BLKFLOOR_CMD_INTERVAL_GET,
		.start		= blkfloor_nl_interval_get_start,
		.dumpit		= blkfloor_nl_interval_get_dumpit,
		.policy		= blkfloor_interval_get_nl_policy,
		.maxattr	= BLKFLOOR_A_FROM_INDEX,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DUMP,
	},
	{
		.cmd		= BLKFLOOR_CMD_DEV_CAPS,
		.doit		= blkfloor_nl_dev_caps_doit,
		.policy		= blkfloor_dev_caps_nl_policy,
		.maxattr	= BLKFLOOR_A_DEV_FD,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd	= BLKFLOOR_CMD_INFO_GET,
		.doit	= blkfloor_nl_info_get_doit,
		.flags	= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= BLKFLOOR_CMD_ERROR_GET,
		.start		= blkfloor_nl_error_get_start,
		.dumpit		= blkfloor_nl_error_get_dumpit,
		.policy		= blkfloor_error_get_nl_policy,
		.maxattr	= BLKFLOOR_A_RUN_ID,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DUMP,
	},
};

static const struct genl_multicast_group blkfloor_nl_mcgrps[] = {
	[BLKFLOOR_NLGRP_EVENTS] = { "events", },
};
