// SPDX-License-Identifier: GPL-2.0
/*
 * Generic netlink plumbing for the blkfloor family (libnl-3, libnl-genl-3).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>
#include <netlink/msg.h>

#include "hist.h"
#include "nl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

static struct nla_policy top_policy[BLKFLOOR_A_MAX + 1] = {
	[BLKFLOOR_A_RUN_ID]		= { .type = NLA_U32 },
	[BLKFLOOR_A_DEV_PATH]		= { .type = NLA_STRING },
	[BLKFLOOR_A_OP]			= { .type = NLA_U32 },
	[BLKFLOOR_A_PATTERN]		= { .type = NLA_U32 },
	[BLKFLOOR_A_SEED]		= { .type = NLA_U64 },
	[BLKFLOOR_A_BS]			= { .type = NLA_U32 },
	[BLKFLOOR_A_QD]			= { .type = NLA_U32 },
	[BLKFLOOR_A_OFFSET]		= { .type = NLA_U64 },
	[BLKFLOOR_A_LENGTH]		= { .type = NLA_U64 },
	[BLKFLOOR_A_MAX_BYTES]		= { .type = NLA_U64 },
	[BLKFLOOR_A_MAX_TIME_NS]	= { .type = NLA_U64 },
	[BLKFLOOR_A_LOOPS]		= { .type = NLA_U32 },
	[BLKFLOOR_A_RATE_BPS]		= { .type = NLA_U64 },
	[BLKFLOOR_A_RATE_IOPS]		= { .type = NLA_U64 },
	[BLKFLOOR_A_INTERVAL_NS]	= { .type = NLA_U64 },
	[BLKFLOOR_A_RING]		= { .type = NLA_U32 },
	[BLKFLOOR_A_FLAGS]		= { .type = NLA_U32 },
	[BLKFLOOR_A_DATA]		= { .type = NLA_U32 },
	[BLKFLOOR_A_ERR_LIMIT]		= { .type = NLA_U32 },
	[BLKFLOOR_A_STATE]		= { .type = NLA_U32 },
	[BLKFLOOR_A_ERRNO]		= { .type = NLA_U32 },
	[BLKFLOOR_A_START_TIME_NS]	= { .type = NLA_U64 },
	[BLKFLOOR_A_ELAPSED_NS]		= { .type = NLA_U64 },
	[BLKFLOOR_A_BYTES]		= { .type = NLA_U64 },
	[BLKFLOOR_A_IOS]		= { .type = NLA_U64 },
	[BLKFLOOR_A_ERRORS]		= { .type = NLA_U64 },
	[BLKFLOOR_A_INTERVALS]		= { .type = NLA_U64 },
	[BLKFLOOR_A_DROPPED]		= { .type = NLA_U64 },
	[BLKFLOOR_A_MISMATCHES]		= { .type = NLA_U64 },
	[BLKFLOOR_A_MISMATCH_LBA]	= { .type = NLA_U64 },
	[BLKFLOOR_A_DEV_SIZE]		= { .type = NLA_U64 },
	[BLKFLOOR_A_DEV_LBS]		= { .type = NLA_U32 },
	[BLKFLOOR_A_MAX_IO_BYTES]	= { .type = NLA_U32 },
	[BLKFLOOR_A_INTERVAL]		= { .type = NLA_NESTED },
	[BLKFLOOR_A_FROM_INDEX]		= { .type = NLA_U64 },
	[BLKFLOOR_A_CAPS]		= { .type = NLA_NESTED },
	[BLKFLOOR_A_VERSION]		= { .type = NLA_STRING },
	[BLKFLOOR_A_OWNER_PORTID]	= { .type = NLA_U32 },
	[BLKFLOOR_A_ERR_LOG]		= { .type = NLA_U32 },
	[BLKFLOOR_A_ERR_LOG_DROPPED]	= { .type = NLA_U64 },
	[BLKFLOOR_A_ERROR]		= { .type = NLA_NESTED },
};

static struct nla_policy iv_policy[BLKFLOOR_IV_A_MAX + 1] = {
	[BLKFLOOR_IV_A_INDEX]		= { .type = NLA_U64 },
	[BLKFLOOR_IV_A_START_NS]	= { .type = NLA_U64 },
	[BLKFLOOR_IV_A_END_NS]		= { .type = NLA_U64 },
	[BLKFLOOR_IV_A_BYTES]		= { .type = NLA_U64 },
	[BLKFLOOR_IV_A_IOS]		= { .type = NLA_U64 },
	[BLKFLOOR_IV_A_ERRORS]		= { .type = NLA_NESTED },
	[BLKFLOOR_IV_A_LAT_MIN_NS]	= { .type = NLA_U64 },
	[BLKFLOOR_IV_A_LAT_MAX_NS]	= { .type = NLA_U64 },
	[BLKFLOOR_IV_A_LAT_SUM_NS]	= { .type = NLA_U64 },
	[BLKFLOOR_IV_A_HIST]		= { .type = NLA_NESTED },
	[BLKFLOOR_IV_A_BYTES_TOTAL]	= { .type = NLA_U64 },
	[BLKFLOOR_IV_A_INFLIGHT]	= { .type = NLA_U32 },
	[BLKFLOOR_IV_A_OLDEST_NS]	= { .type = NLA_U64 },
};

static struct nla_policy hist_policy[BLKFLOOR_HIST_A_MAX + 1] = {
	[BLKFLOOR_HIST_A_INDEX]		= { .type = NLA_U32 },
	[BLKFLOOR_HIST_A_COUNT]		= { .type = NLA_U64 },
};

static struct nla_policy err_policy[BLKFLOOR_ERR_A_MAX + 1] = {
	[BLKFLOOR_ERR_A_INDEX]		= { .type = NLA_U32 },
	[BLKFLOOR_ERR_A_SECTOR]		= { .type = NLA_U64 },
	[BLKFLOOR_ERR_A_BYTES]		= { .type = NLA_U32 },
	[BLKFLOOR_ERR_A_OP]		= { .type = NLA_U32 },
	[BLKFLOOR_ERR_A_ERRNO]		= { .type = NLA_U32 },
	[BLKFLOOR_ERR_A_CLASS]		= { .type = NLA_U32 },
	[BLKFLOOR_ERR_A_TIME_NS]	= { .type = NLA_U64 },
	[BLKFLOOR_ERR_A_LAT_NS]		= { .type = NLA_U64 },
};

static struct nla_policy caps_policy[BLKFLOOR_CAPS_A_MAX + 1] = {
	[BLKFLOOR_CAPS_A_SIZE]			= { .type = NLA_U64 },
	[BLKFLOOR_CAPS_A_LOGICAL_BS]		= { .type = NLA_U32 },
	[BLKFLOOR_CAPS_A_PHYSICAL_BS]		= { .type = NLA_U32 },
	[BLKFLOOR_CAPS_A_MAX_SECTORS]		= { .type = NLA_U32 },
	[BLKFLOOR_CAPS_A_MAX_HW_SECTORS]	= { .type = NLA_U32 },
	[BLKFLOOR_CAPS_A_MAX_SEGMENTS]		= { .type = NLA_U32 },
	[BLKFLOOR_CAPS_A_DISCARD_GRANULARITY]	= { .type = NLA_U32 },
	[BLKFLOOR_CAPS_A_DISCARD_MAX_BYTES]	= { .type = NLA_U64 },
	[BLKFLOOR_CAPS_A_SECURE_ERASE_MAX_BYTES] = { .type = NLA_U64 },
	[BLKFLOOR_CAPS_A_WRITE_ZEROES_MAX_BYTES] = { .type = NLA_U64 },
	[BLKFLOOR_CAPS_A_WRITE_CACHE]		= { .type = NLA_U8 },
	[BLKFLOOR_CAPS_A_FUA]			= { .type = NLA_U8 },
	[BLKFLOOR_CAPS_A_ROTATIONAL]		= { .type = NLA_U8 },
	[BLKFLOOR_CAPS_A_READ_ONLY]		= { .type = NLA_U8 },
	[BLKFLOOR_CAPS_A_DISK_NAME]		= { .type = NLA_STRING },
	[BLKFLOOR_CAPS_A_NR_HW_QUEUES]		= { .type = NLA_U32 },
};

uint64_t bf_nla_u64(const struct nlattr *a, uint64_t def)
{
	return a ? nla_get_u64((struct nlattr *)a) : def;
}

uint32_t bf_nla_u32(const struct nlattr *a, uint32_t def)
{
	return a ? nla_get_u32((struct nlattr *)a) : def;
}

uint8_t bf_nla_u8(const struct nlattr *a, uint8_t def)
{
	return a ? nla_get_u8((struct nlattr *)a) : def;
}

int bf_nl_parse_iv(const struct nlattr *nest, struct nlattr **tb)
{
	int ret = nla_parse_nested(tb, BLKFLOOR_IV_A_MAX, (struct nlattr *)nest,
				   iv_policy);

	return ret < 0 ? -EINVAL : 0;
}

int bf_nl_parse_hist(const struct nlattr *nest, struct bf_hist_entry *e)
{
	struct nlattr *tb[BLKFLOOR_HIST_A_MAX + 1];

	if (nla_parse_nested(tb, BLKFLOOR_HIST_A_MAX, (struct nlattr *)nest,
			     hist_policy) < 0 ||
	    !tb[BLKFLOOR_HIST_A_INDEX] || !tb[BLKFLOOR_HIST_A_COUNT])
		return -EINVAL;
	e->index = nla_get_u32(tb[BLKFLOOR_HIST_A_INDEX]);
	e->count = nla_get_u64(tb[BLKFLOOR_HIST_A_COUNT]);
	return 0;
}

int bf_nl_parse_caps(const struct nlattr *nest, struct nlattr **tb)
{
	int ret = nla_parse_nested(tb, BLKFLOOR_CAPS_A_MAX,
				   (struct nlattr *)nest, caps_policy);

	return ret < 0 ? -EINVAL : 0;
}

int bf_nl_parse_err(const struct nlattr *nest, struct nlattr **tb)
{
	int ret = nla_parse_nested(tb, BLKFLOOR_ERR_A_MAX,
				   (struct nlattr *)nest, err_policy);

	return ret < 0 ? -EINVAL : 0;
}

/* libnl error codes back to errno, for the few that matter here. */
static int nlerr_to_errno(int err)
{
	switch (-err) {
	case NLE_NOMEM:
		return -ENOBUFS;
	case NLE_OBJ_NOTFOUND:
		return -ENOENT;
	case NLE_PERM:
		return -EPERM;
	case NLE_AGAIN:
		return -EAGAIN;
	case NLE_INTR:
		return -EINTR;
	default:
		return -EIO;
	}
}

int bf_nl_open(struct bf_nl *nl)
{
	int one = 1;
	int ret;

	memset(nl, 0, sizeof(*nl));
	nl->sk = nl_socket_alloc();
	if (!nl->sk) {
		fprintf(stderr, "blkfloor: out of memory\n");
		return -ENOMEM;
	}
	ret = genl_connect(nl->sk);
	if (ret < 0) {
		fprintf(stderr, "blkfloor: cannot open a generic netlink socket: %s\n",
			nl_geterror(ret));
		goto out_free;
	}
	setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_CAP_ACK,
		   &one, sizeof(one));
	nl->family = genl_ctrl_resolve(nl->sk, BLKFLOOR_FAMILY_NAME);
	if (nl->family < 0) {
		ret = nl->family;
		fprintf(stderr,
			"blkfloor: generic netlink family " BLKFLOOR_FAMILY_NAME
			" not found: is the blkfloor module loaded? (modprobe blkfloor)\n");
		goto out_free;
	}
	nl->mcgrp = genl_ctrl_resolve_grp(nl->sk, BLKFLOOR_FAMILY_NAME,
					  BLKFLOOR_MCGRP_EVENTS);
	if (nl->mcgrp < 0) {
		ret = nl->mcgrp;
		fprintf(stderr,
			"blkfloor: the blkfloor family has no \"" BLKFLOOR_MCGRP_EVENTS
			"\" group: module and CLI do not match\n");
		goto out_free;
	}
	return 0;

out_free:
	nl_socket_free(nl->sk);
	nl->sk = NULL;
	return ret == -NLE_OBJ_NOTFOUND ? -ENOENT : nlerr_to_errno(ret);
}

void bf_nl_close(struct bf_nl *nl)
{
	if (nl->sk)
		nl_socket_free(nl->sk);
	nl->sk = NULL;
}

struct nl_msg *bf_nl_msg(struct bf_nl *nl, uint8_t cmd, bool dump)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0,
			 dump ? NLM_F_DUMP : 0, cmd, BLKFLOOR_FAMILY_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

struct req_state {
	bf_nl_cb fn;
	void *arg;
	int err;	/* 0, negative errno */
	bool done;
	bool intr;	/* a dump message carried NLM_F_DUMP_INTR */
	uint8_t cmd;	/* the request's command */
};

static int parse_genl(struct nl_msg *msg, struct bf_nl_msg *m)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct genlmsghdr *gnlh = nlmsg_data(nlh);

	memset(m, 0, sizeof(*m));
	if (genlmsg_parse(nlh, 0, m->tb, BLKFLOOR_A_MAX, top_policy) < 0)
		return -EINVAL;
	m->cmd = gnlh->cmd;
	m->attrs = genlmsg_attrdata(gnlh, 0);
	m->attrlen = genlmsg_attrlen(gnlh, 0);
	return 0;
}

static int valid_handler(struct nl_msg *msg, void *arg)
{
	struct req_state *st = arg;
	struct bf_nl_msg m;
	int ret;

	if (st->err)
		return NL_SKIP;
	if (parse_genl(msg, &m)) {
		st->err = -EPROTO;
		return NL_SKIP;
	}
	if (st->fn) {
		ret = st->fn(&m, st->arg);
		if (ret < 0)
			st->err = ret;
	}
	return NL_OK;
}

/* Print the extack message that follows an error (or a dump's DONE). */
static void print_extack(const struct nlmsghdr *nlh, size_t ack_len)
{
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	struct nlattr *attrs;
	int len;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (nlh->nlmsg_len < NLMSG_HDRLEN + ack_len)
		return;
	attrs = (struct nlattr *)((char *)nlmsg_data(nlh) + ack_len);
	len = nlh->nlmsg_len - NLMSG_HDRLEN - ack_len;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX, attrs, len, NULL) < 0)
		return;
	if (tb[NLMSGERR_ATTR_MSG])
		fprintf(stderr, "blkfloor: kernel reports: %.*s\n",
			(int)strnlen(nla_data(tb[NLMSGERR_ATTR_MSG]),
				     nla_len(tb[NLMSGERR_ATTR_MSG])),
			(char *)nla_data(tb[NLMSGERR_ATTR_MSG]));
}

static int error_handler(struct sockaddr_nl *nla, struct nlmsgerr *err,
			 void *arg)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)err - NLMSG_HDRLEN);
	struct req_state *st = arg;
	size_t ack_len = sizeof(*err);

	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		ack_len += err->msg.nlmsg_len - NLMSG_HDRLEN;
	if (err->error)
		print_extack(nlh, ack_len);
	if (!st->err)
		st->err = err->error;
	st->done = true;
	return NL_STOP;
}

static int finish_handler(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct req_state *st = arg;

	if (nlh->nlmsg_len >= NLMSG_HDRLEN + sizeof(int)) {
		int err = *(int *)nlmsg_data(nlh);

		if (err < 0) {
			print_extack(nlh, sizeof(int));
			if (!st->err)
				st->err = err;
		}
	}
	st->done = true;
	return NL_STOP;
}

/*
 * NLM_F_DUMP_INTR: what was being dumped changed (an INTERVAL_GET dump:
 * intervals it was asked for were overwritten in the kernel's ring before
 * they were read; a RUN_GET dump: runs were added or removed between two
 * of its rounds). The messages are still good: keep reading them to the
 * end of the dump (libnl would otherwise stop with an error and leave the
 * rest on the socket), and say once what it means.
 */
static int dump_intr_handler(struct nl_msg *msg, void *arg)
{
	struct req_state *st = arg;

	(void)msg;
	if (!st->intr && st->cmd == BLKFLOOR_CMD_RUN_GET)
		fprintf(stderr, "blkfloor: warning: runs started or ended while they were listed; the list may miss one\n");
	else if (!st->intr)
		fprintf(stderr, "blkfloor: warning: the kernel overwrote intervals before they were read (dump interrupted); they are lost: use a larger --ring or a longer --interval\n");
	st->intr = true;
	return NL_OK;
}

static int ack_handler(struct nl_msg *msg, void *arg)
{
	struct req_state *st = arg;

	st->done = true;
	return NL_STOP;
}

int bf_nl_request(struct bf_nl *nl, struct nl_msg *msg, bf_nl_cb fn,
		  void *arg)
{
	struct req_state st = { .fn = fn, .arg = arg };
	struct nl_cb *cb;
	int ret;

	st.cmd = genlmsg_hdr(nlmsg_hdr(msg))->cmd;
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, valid_handler, &st);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, finish_handler, &st);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, ack_handler, &st);
	nl_cb_set(cb, NL_CB_DUMP_INTR, NL_CB_CUSTOM, dump_intr_handler, &st);
	nl_cb_err(cb, NL_CB_CUSTOM, error_handler, &st);

	ret = nl_send_auto(nl->sk, msg);
	nlmsg_free(msg);
	if (ret < 0) {
		nl_cb_put(cb);
		return nlerr_to_errno(ret);
	}
	while (!st.done) {
		ret = nl_recvmsgs(nl->sk, cb);
		if (ret < 0 && !st.done) {
			if (!st.err)
				st.err = nlerr_to_errno(ret);
			break;
		}
	}
	nl_cb_put(cb);
	return st.err;
}

static int event_handler(struct nl_msg *msg, void *arg)
{
	struct bf_nl_events *ev = arg;
	struct bf_nl_msg m;
	int ret;

	if (ev->ret)
		return NL_SKIP;
	if (parse_genl(msg, &m))
		return NL_SKIP;
	ret = ev->fn(&m, ev->arg);
	if (ret < 0)
		ev->ret = ret;
	return NL_OK;
}

int bf_nl_events_open(struct bf_nl *nl, struct bf_nl_events *ev,
		      bf_nl_cb fn, void *arg)
{
	int ret;

	memset(ev, 0, sizeof(*ev));
	ev->fn = fn;
	ev->arg = arg;
	ev->sk = nl_socket_alloc();
	if (!ev->sk) {
		ret = -ENOMEM;
		goto err;
	}
	nl_socket_disable_seq_check(ev->sk);
	ret = genl_connect(ev->sk);
	if (ret < 0)
		goto err_nl;
	nl_socket_set_buffer_size(ev->sk, 4 << 20, 0);
	ret = nl_socket_add_membership(ev->sk, nl->mcgrp);
	if (ret < 0)
		goto err_nl;
	ret = nl_socket_set_nonblocking(ev->sk);
	if (ret < 0)
		goto err_nl;
	nl_socket_modify_cb(ev->sk, NL_CB_VALID, NL_CB_CUSTOM, event_handler,
			    ev);
	return 0;

err_nl:
	fprintf(stderr, "blkfloor: cannot join the events group: %s\n",
		nl_geterror(ret));
	ret = nlerr_to_errno(ret);
err:
	bf_nl_events_close(ev);
	return ret;
}

int bf_nl_events_fd(const struct bf_nl_events *ev)
{
	return nl_socket_get_fd(ev->sk);
}

int bf_nl_events_read(struct bf_nl_events *ev)
{
	int ret;

	ev->ret = 0;
	ret = nl_recvmsgs_default(ev->sk);
	if (ev->ret)
		return ev->ret;
	if (ret < 0 && ret != -NLE_AGAIN)
		return nlerr_to_errno(ret);
	return 0;
}

void bf_nl_events_close(struct bf_nl_events *ev)
{
	if (ev->sk)
		nl_socket_free(ev->sk);
	ev->sk = NULL;
}

static int version_cb(const struct bf_nl_msg *m, void *arg)
{
	char *buf = arg;

	if (m->tb[BLKFLOOR_A_VERSION])
		snprintf(buf, 64, "%.*s", nla_len(m->tb[BLKFLOOR_A_VERSION]),
			 (char *)nla_data(m->tb[BLKFLOOR_A_VERSION]));
	return 0;
}

int bf_module_version(struct bf_nl *nl, char *buf, size_t len)
{
	char v[64] = "";
	struct nl_msg *msg = bf_nl_msg(nl, BLKFLOOR_CMD_INFO_GET, false);
	int ret;

	buf[0] = '\0';
	if (!msg)
		return -ENOMEM;
	ret = bf_nl_request(nl, msg, version_cb, v);
	snprintf(buf, len, "%s", v);
	return ret;
}
