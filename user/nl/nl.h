/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one generic-netlink helper: resolve the family and its "events" group,
 * build a message for a command, send it, receive the replies with a
 * callback, report the kernel's extack.
 */
#ifndef BLKFLOOR_NL_H
#define BLKFLOOR_NL_H

#include <stdbool.h>
#include <stdint.h>
#include <netlink/netlink.h>
#include <netlink/attr.h>
#include <linux/blkfloor.h>

struct bf_nl {
	struct nl_sock *sk;	/* requests and replies */
	int family;
	int mcgrp;		/* "events" group id */
};

/* A parsed reply or notification. */
struct bf_nl_msg {
	uint8_t cmd;
	struct nlattr *tb[BLKFLOOR_A_MAX + 1];
	struct nlattr *attrs;	/* raw stream, for repeated attributes */
	int attrlen;
};

/* Return 0 to continue, a negative errno to stop receiving. */
typedef int (*bf_nl_cb)(const struct bf_nl_msg *m, void *arg);

/*
 * Connect and resolve the family. Prints why not (module not loaded, ...)
 * and returns a negative errno on failure.
 */
int bf_nl_open(struct bf_nl *nl);
void bf_nl_close(struct bf_nl *nl);

/* A request for @cmd; @dump adds NLM_F_DUMP. NULL on ENOMEM. */
struct nl_msg *bf_nl_msg(struct bf_nl *nl, uint8_t cmd, bool dump);

/*
 * Send @msg (consumed), call @cb for every reply, wait for the ack or the end
 * of the dump. Returns 0 or a negative errno; the kernel's extack message, if
 * any, is printed as "blkfloor: kernel reports: ...".
 */
int bf_nl_request(struct bf_nl *nl, struct nl_msg *msg, bf_nl_cb cb,
		  void *arg);

/* Event (multicast) socket, non-blocking, subscribed to "events". */
struct bf_nl_events {
	struct nl_sock *sk;
	bf_nl_cb fn;
	void *arg;
	int ret;
};

int bf_nl_events_open(struct bf_nl *nl, struct bf_nl_events *ev,
		      bf_nl_cb fn, void *arg);
int bf_nl_events_fd(const struct bf_nl_events *ev);
/*
 * Read what is pending. Returns 0, -ENOBUFS if notifications were lost
 * (the caller should fetch what it missed), the callback's negative return,
 * or another negative errno.
 */
int bf_nl_events_read(struct bf_nl_events *ev);
void bf_nl_events_close(struct bf_nl_events *ev);

/* Nested attribute parsers (with length checks). */
struct bf_hist_entry;

/* One BLKFLOOR_IV_A_HIST nest (a histogram bucket, analysis/hist.h). */
int bf_nl_parse_hist(const struct nlattr *nest, struct bf_hist_entry *e);
int bf_nl_parse_iv(const struct nlattr *nest,
		   struct nlattr **tb /* [BLKFLOOR_IV_A_MAX + 1] */);
int bf_nl_parse_caps(const struct nlattr *nest,
		     struct nlattr **tb /* [BLKFLOOR_CAPS_A_MAX + 1] */);
/* One BLKFLOOR_A_ERROR nest (an entry of a run's error log). */
int bf_nl_parse_err(const struct nlattr *nest,
		    struct nlattr **tb /* [BLKFLOOR_ERR_A_MAX + 1] */);

/* Attribute getters with a default when absent. */
uint64_t bf_nla_u64(const struct nlattr *a, uint64_t def);
uint32_t bf_nla_u32(const struct nlattr *a, uint32_t def);
uint8_t bf_nla_u8(const struct nlattr *a, uint8_t def);

/* Module version via INFO_GET into @buf ("" on failure). */
int bf_module_version(struct bf_nl *nl, char *buf, size_t len);

#endif /* BLKFLOOR_NL_H */
