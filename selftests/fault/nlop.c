// SPDX-License-Identifier: GPL-2.0
/*
 * nlop: send one blkfloor generic-netlink request, with no library and no
 * CLI logic in between, and print what the kernel answered.
 *
 * usage: nlop OP [ARGS]
 *   info                    INFO_GET
 *   caps DEV                DEV_CAPS, the device named by its path
 *   capsfd DEV              DEV_CAPS, the device opened read-only here
 *                           and passed as DEV_FD
 *   start DEV [KEY=VAL...]  RUN_START, unowned unless owner=1; keys:
 *                           op=read|write (write sets DESTRUCTIVE),
 *                           time_ms, time_ns, bytes, interval_us, ring,
 *                           qd, bs, rate_iops, owner
 *   stop ID [dmremove=NAME] RUN_STOP; with dmremove=, remove the
 *                           device-mapper device NAME the moment the
 *                           answer came (DM_DEV_REMOVE) and print
 *                           dmremove=E (0 or the negative errno)
 *   stopwait ID [dmremove=NAME]
 *                           RUN_STOP (answered at once, in state
 *                           stopping), then wait for the run's
 *                           RUN_END_NTF (the events group, joined
 *                           first) and print end_state=; with dmremove=,
 *                           remove NAME the moment the end came
 *   get ID                  RUN_GET (do)
 *   list                    RUN_GET (dump)
 *   dump ID [FROM]          INTERVAL_GET (dump)
 *   slowdump ID MS          INTERVAL_GET (dump) read MS ms after each poll,
 *                           through a 4 KiB receive buffer
 *   join                    join the "events" multicast group
 *   cycles N DEV...         start/stop race loop: until N runs started (at
 *                           most 8N tries), on random DEVs: RUN_START
 *                           (read or write, every 4th owned by a socket
 *                           closed at once), a 0-4 ms pause, RUN_STOP of
 *                           it (its reply must not say running) and of
 *                           the id before it. Prints ok=, busy=
 *                           (-EBUSY), bad= (any other answer, each also
 *                           on stderr); exit 1 when bad > 0
 *   reader SECONDS          list, get and dump random run ids in a loop;
 *                           prints rounds=, bad=; exit 1 when bad > 0
 *   startcongested DEV [KEY=VAL...]
 *                           RUN_START (as start) on a socket whose queue
 *                           is full: SO_RCVBUF at its minimum, joined to
 *                           the events group and left unread for 0.5 s
 *                           (a run elsewhere must be multicasting), then
 *                           read for 1 s. Prints reply=1 and id= when
 *                           the run's reply came anyway, enobufs=1 when
 *                           the socket reported an overrun
 *   watchended SECONDS KEEP RUN_GET (dump) in a loop for SECONDS: once a
 *                           dump listed KEEP ended runs, counts the dumps
 *                           that listed fewer (dips=, minended=, polls=)
 *   churnlist DEV           RUN_GET (dump) through a 4 KiB receive
 *                           buffer, a round at a time; after the first
 *                           round a read run on DEV is started from a
 *                           second socket (the table changes under the
 *                           dump). Prints runs=, intr=, churn=E
 *
 * Output: "key=value" lines (id, state, intervals, dropped, ring, bytes for
 * runs; runs=N running=N ended=N for list; intervals=N first=I last=I gaps=N
 * intr=N ugaps=N empty=N maxempty=N for dumps: gaps counts jumps in the
 * index, intr messages flagged NLM_F_DUMP_INTR, ugaps jumps on a message
 * not so flagged (a loss the dump did not report), empty intervals without a
 * completed I/O, maxempty the most of them in a row), then
 * "result=E" where E is 0 or the negative errno the kernel (or, for join,
 * setsockopt) returned, after msg=M, the extack message of an error, if
 * any. Exit 0 when an answer came, 1 when the request could not be made
 * at all (no family, socket error, bad usage).
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/dm-ioctl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/blkfloor.h>

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

#define BUFSZ (1 << 20)

struct nlop {
	int fd;
	uint16_t family;
	uint32_t mcgrp;
	uint32_t seq;
	int quiet;		/* loops: no key=value output */
	uint32_t id;		/* RUN_ID of the last run reply */
	int state;		/* STATE of the last run reply */
	/* dump bookkeeping */
	unsigned long nmsg, running, ended;
	long first, last;
	unsigned long intr, gaps;	/* NLM_F_DUMP_INTR messages, index jumps */
	unsigned long ugaps;		/* jumps on a message not flagged */
	unsigned long empty, run_empty, max_empty;	/* intervals without I/O */
	unsigned int delay_ms;		/* slowdump: pause before each recv */
	long end_id, end_state;		/* a RUN_END_NTF seen while draining */
};

static char rbuf[BUFSZ];

static void put_attr(char *buf, size_t *len, uint16_t type, const void *data,
		     size_t dlen)
{
	struct nlattr *a = (struct nlattr *)(buf + *len);

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + dlen;
	memcpy((char *)a + NLA_HDRLEN, data, dlen);
	memset((char *)a + NLA_HDRLEN + dlen, 0,
	       NLA_ALIGN(a->nla_len) - a->nla_len);
	*len += NLA_ALIGN(a->nla_len);
}

static size_t put_hdr(struct nlop *o, char *buf, uint16_t type, uint8_t cmd,
		      uint16_t flags)
{
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct genlmsghdr *g = NLMSG_DATA(h);

	memset(buf, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	h->nlmsg_type = type;
	h->nlmsg_flags = flags;
	h->nlmsg_seq = ++o->seq;
	g->cmd = cmd;
	g->version = type == GENL_ID_CTRL ? 1 : BLKFLOOR_FAMILY_VERSION;
	return NLMSG_HDRLEN + GENL_HDRLEN;
}

static int send_msg(struct nlop *o, char *buf, size_t len)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	((struct nlmsghdr *)buf)->nlmsg_len = len;
	if (sendto(o->fd, buf, len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	return 0;
}

#define for_each_attr(a, start, len)					\
	for (a = (struct nlattr *)(start);				\
	     (char *)a + NLA_HDRLEN <= (char *)(start) + (len) &&	\
	     a->nla_len >= NLA_HDRLEN &&				\
	     (char *)a + a->nla_len <= (char *)(start) + (len);		\
	     a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len)))

static unsigned int atype(const struct nlattr *a)
{
	return a->nla_type & NLA_TYPE_MASK;	/* without NLA_F_NESTED */
}

static void *adata(struct nlattr *a)
{
	return (char *)a + NLA_HDRLEN;
}

static uint64_t aget(struct nlattr *a)
{
	uint64_t v = 0;
	size_t n = a->nla_len - NLA_HDRLEN;

	switch (n) {
	case 1: v = *(uint8_t *)adata(a); break;
	case 2: v = *(uint16_t *)adata(a); break;
	case 4: v = *(uint32_t *)adata(a); break;
	case 8: memcpy(&v, adata(a), 8); break;
	}
	return v;
}

/* A reply from the blkfloor family: print what matters. */
static void show(struct nlop *o, struct nlmsghdr *h)
{
	struct genlmsghdr *g = NLMSG_DATA(h);
	int len = h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	struct nlattr *a, *b;

	if (g->cmd == BLKFLOOR_CMD_INTERVAL_GET) {
		for_each_attr(a, (char *)g + GENL_HDRLEN, len) {
			if (atype(a) != BLKFLOOR_A_INTERVAL)
				continue;
			for_each_attr(b, adata(a), a->nla_len - NLA_HDRLEN) {
				if (atype(b) == BLKFLOOR_IV_A_IOS) {
					if (aget(b)) {
						o->run_empty = 0;
						continue;
					}
					o->empty++;
					if (++o->run_empty > o->max_empty)
						o->max_empty = o->run_empty;
				}
				if (atype(b) != BLKFLOOR_IV_A_INDEX)
					continue;
				if (o->first < 0)
					o->first = aget(b);
				else if ((long)aget(b) != o->last + 1 &&
					 ++o->gaps &&
					 !(h->nlmsg_flags & NLM_F_DUMP_INTR))
					o->ugaps++;
				o->last = aget(b);
			}
		}
		o->nmsg++;
		return;
	}
	if (h->nlmsg_flags & NLM_F_MULTI) {
		for_each_attr(a, (char *)g + GENL_HDRLEN, len) {
			if (atype(a) != BLKFLOOR_A_STATE)
				continue;
			if (aget(a) == BLKFLOOR_STATE_RUNNING)
				o->running++;
			else if (aget(a) != BLKFLOOR_STATE_STOPPING &&
				 aget(a) != BLKFLOOR_STATE_PREPARING)
				o->ended++;
		}
		o->nmsg++;
		return;
	}
	for_each_attr(a, (char *)g + GENL_HDRLEN, len) {
		if (atype(a) == BLKFLOOR_A_RUN_ID)
			o->id = aget(a);
		if (atype(a) == BLKFLOOR_A_STATE)
			o->state = aget(a);
		if (o->quiet)
			continue;
		static const char *const names[] = {
			[BLKFLOOR_A_RUN_ID] = "id",
			[BLKFLOOR_A_STATE] = "state",
			[BLKFLOOR_A_ERRNO] = "errno",
			[BLKFLOOR_A_INTERVALS] = "intervals",
			[BLKFLOOR_A_DROPPED] = "dropped",
			[BLKFLOOR_A_RING] = "ring",
			[BLKFLOOR_A_BYTES] = "bytes",
			[BLKFLOOR_A_OWNER_PORTID] = "owner",
		};

		if (atype(a) == BLKFLOOR_A_VERSION) {
			printf("version=%.*s\n", a->nla_len - NLA_HDRLEN - 1,
			       (char *)adata(a));
		} else if (atype(a) == BLKFLOOR_A_CAPS) {
			printf("caps=yes\n");
		} else if (atype(a) < sizeof(names) / sizeof(names[0]) &&
			   names[atype(a)]) {
			if (atype(a) == BLKFLOOR_A_ERRNO)
				printf("errno=%d\n", (int32_t)aget(a));
			else
				printf("%s=%llu\n", names[atype(a)],
				       (unsigned long long)aget(a));
		}
	}
}

/* The error in an NLMSG_ERROR; prints its extack message as msg=. */
static int error_of(struct nlop *o, struct nlmsghdr *h)
{
	struct nlmsgerr *e = NLMSG_DATA(h);
	size_t off = NLMSG_HDRLEN + sizeof(*e);
	struct nlattr *a;

	if (!(h->nlmsg_flags & NLM_F_CAPPED))
		off += NLMSG_ALIGN(e->msg.nlmsg_len) - NLMSG_HDRLEN;
	if (o->quiet || !(h->nlmsg_flags & NLM_F_ACK_TLVS) ||
	    off >= h->nlmsg_len)
		return e->error;
	for_each_attr(a, (char *)h + off, h->nlmsg_len - off)
		if (atype(a) == NLMSGERR_ATTR_MSG)
			printf("msg=%.*s\n", (int)(a->nla_len - NLA_HDRLEN),
			       (char *)adata(a));
	return e->error;
}

/*
 * The error in an NLMSG_DONE (a dump's end): an int, then, with
 * NLM_F_ACK_TLVS, the extack attributes; prints the message as msg=.
 */
static int done_of(struct nlop *o, struct nlmsghdr *h)
{
	size_t off = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(int));
	struct nlattr *a;
	int err = 0;

	if (h->nlmsg_len >= NLMSG_HDRLEN + sizeof(err))
		memcpy(&err, NLMSG_DATA(h), sizeof(err));
	if (o->quiet || !(h->nlmsg_flags & NLM_F_ACK_TLVS) ||
	    off >= h->nlmsg_len)
		return err;
	for_each_attr(a, (char *)h + off, h->nlmsg_len - off)
		if (atype(a) == NLMSGERR_ATTR_MSG)
			printf("msg=%.*s\n", (int)(a->nla_len - NLA_HDRLEN),
			       (char *)adata(a));
	return err;
}

/* A RUN_END_NTF (events group): note its run and state in @o. */
static int end_ntf(struct nlop *o, struct nlmsghdr *h)
{
	struct genlmsghdr *g = NLMSG_DATA(h);
	int len = h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	struct nlattr *a;

	if (h->nlmsg_type != o->family || g->cmd != BLKFLOOR_CMD_RUN_END_NTF)
		return 0;
	for_each_attr(a, (char *)g + GENL_HDRLEN, len) {
		if (atype(a) == BLKFLOOR_A_RUN_ID)
			o->end_id = aget(a);
		if (atype(a) == BLKFLOOR_A_STATE)
			o->end_state = aget(a);
	}
	return 1;
}

/*
 * Read the answers to the last request until its ack, error or DONE.
 * Return: the kernel's error (0 for success), -ETIMEDOUT, or a socket error.
 */
static int drain(struct nlop *o)
{
	struct pollfd p = { .fd = o->fd, .events = POLLIN };

	for (;;) {
		struct nlmsghdr *h;
		ssize_t n;

		if (poll(&p, 1, 30000) <= 0)
			return -ETIMEDOUT;
		if (o->delay_ms)
			usleep(o->delay_ms * 1000);
		n = recv(o->fd, rbuf, sizeof(rbuf), 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (h = (struct nlmsghdr *)rbuf; NLMSG_OK(h, n);
		     h = NLMSG_NEXT(h, n)) {
			/* (a notification may come in the same read) */
			if (!h->nlmsg_seq && end_ntf(o, h))
				continue;
			if (h->nlmsg_seq != o->seq)
				continue;
			if (h->nlmsg_flags & NLM_F_DUMP_INTR)
				o->intr++;
			if (h->nlmsg_type == NLMSG_ERROR)
				return error_of(o, h);
			if (h->nlmsg_type == NLMSG_DONE)
				return done_of(o, h);
			if (h->nlmsg_type == o->family)
				show(o, h);
		}
	}
}

/* Family id and events group id, through the controller (unprivileged). */
static int resolve(struct nlop *o)
{
	char buf[256];
	size_t len = put_hdr(o, buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
			     NLM_F_REQUEST);
	struct nlmsghdr *h;
	ssize_t n;
	int ret;

	put_attr(buf, &len, CTRL_ATTR_FAMILY_NAME, BLKFLOOR_FAMILY_NAME,
		 sizeof(BLKFLOOR_FAMILY_NAME));
	ret = send_msg(o, buf, len);
	if (ret)
		return ret;
	n = recv(o->fd, rbuf, sizeof(rbuf), 0);
	if (n < 0)
		return -errno;
	for (h = (struct nlmsghdr *)rbuf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
		struct nlattr *a, *grp, *b;

		if (h->nlmsg_type == NLMSG_ERROR)
			return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
		for_each_attr(a, (char *)NLMSG_DATA(h) + GENL_HDRLEN,
			      h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN) {
			if (atype(a) == CTRL_ATTR_FAMILY_ID)
				o->family = aget(a);
			if (atype(a) != CTRL_ATTR_MCAST_GROUPS)
				continue;
			for_each_attr(grp, adata(a), a->nla_len - NLA_HDRLEN) {
				uint32_t id = 0;
				int match = 0;

				for_each_attr(b, adata(grp),
					      grp->nla_len - NLA_HDRLEN) {
					if (atype(b) == CTRL_ATTR_MCAST_GRP_ID)
						id = aget(b);
					if (atype(b) == CTRL_ATTR_MCAST_GRP_NAME &&
					    !strcmp(adata(b), BLKFLOOR_MCGRP_EVENTS))
						match = 1;
				}
				if (match)
					o->mcgrp = id;
			}
		}
	}
	return o->family ? 0 : -ENOENT;
}

/*
 * Remove the device-mapper device @name as dmsetup remove does, without
 * the process start between (no udev, no retries): 0 or -errno, -EBUSY
 * while anything still has it open.
 */
static int dm_remove(const char *name)
{
	struct dm_ioctl io = {
		.version = { DM_VERSION_MAJOR, 0, 0 },
		.data_size = sizeof(io),
		.data_start = sizeof(io),
	};
	int fd, ret;

	if (strlen(name) >= sizeof(io.name))
		return -ENAMETOOLONG;
	strcpy(io.name, name);
	fd = open("/dev/mapper/control", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = ioctl(fd, DM_DEV_REMOVE, &io) ? -errno : 0;
	close(fd);
	return ret;
}

static int usage(void)
{
	fprintf(stderr, "usage: nlop info | caps DEV | capsfd DEV |\n"
		"            start DEV [KEY=VAL...] | stop ID [dmremove=NAME] |\n"
		"            get ID | list | dump ID [FROM] |\n"
		"            slowdump ID MS | join |\n"
		"            cycles N DEV... | reader SECONDS | churnlist DEV |\n"
		"            startcongested DEV [KEY=VAL...] |\n"
		"            watchended SECONDS KEEP\n");
	return 1;
}

/* RUN_START attributes from KEY=VAL words. */
static int put_start(char *buf, size_t *len, int argc, char **argv)
{
	uint32_t flags = 0, v32;
	uint64_t v64;
	uint32_t op = BLKFLOOR_OP_READ;
	int owner = 0, i;

	put_attr(buf, len, BLKFLOOR_A_DEV_PATH, argv[0], strlen(argv[0]) + 1);
	for (i = 1; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		unsigned long long n;

		if (!eq)
			return -1;
		*eq++ = 0;
		n = strtoull(eq, NULL, 0);
		if (!strcmp(argv[i], "op")) {
			if (!strcmp(eq, "write")) {
				op = BLKFLOOR_OP_WRITE;
				flags |= BLKFLOOR_F_DESTRUCTIVE;
			} else if (strcmp(eq, "read")) {
				return -1;
			}
		} else if (!strcmp(argv[i], "time_ms")) {
			v64 = n * 1000000ULL;
			put_attr(buf, len, BLKFLOOR_A_MAX_TIME_NS, &v64, 8);
		} else if (!strcmp(argv[i], "time_ns")) {
			v64 = n;
			put_attr(buf, len, BLKFLOOR_A_MAX_TIME_NS, &v64, 8);
		} else if (!strcmp(argv[i], "bytes")) {
			v64 = n;
			put_attr(buf, len, BLKFLOOR_A_MAX_BYTES, &v64, 8);
		} else if (!strcmp(argv[i], "interval_us")) {
			v64 = n * 1000ULL;
			put_attr(buf, len, BLKFLOOR_A_INTERVAL_NS, &v64, 8);
		} else if (!strcmp(argv[i], "ring")) {
			v32 = n;
			put_attr(buf, len, BLKFLOOR_A_RING, &v32, 4);
		} else if (!strcmp(argv[i], "qd")) {
			v32 = n;
			put_attr(buf, len, BLKFLOOR_A_QD, &v32, 4);
		} else if (!strcmp(argv[i], "bs")) {
			v32 = n;
			put_attr(buf, len, BLKFLOOR_A_BS, &v32, 4);
		} else if (!strcmp(argv[i], "rate_iops")) {
			v64 = n;
			put_attr(buf, len, BLKFLOOR_A_RATE_IOPS, &v64, 8);
		} else if (!strcmp(argv[i], "owner")) {
			owner = !!n;
		} else {
			return -1;
		}
	}
	if (owner)
		flags |= BLKFLOOR_F_OWNER;
	put_attr(buf, len, BLKFLOOR_A_OP, &op, 4);
	put_attr(buf, len, BLKFLOOR_A_FLAGS, &flags, 4);
	return 0;
}

static int open_sock(struct nlop *o)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	int one = 1;

	o->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (o->fd < 0 || bind(o->fd, (struct sockaddr *)&sa, sizeof(sa)))
		return -errno;
	/* Extack messages (printed as msg=); an old kernel has none. */
	setsockopt(o->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	return 0;
}

/* One request with a u32 RUN_ID, quietly. */
static int req_id(struct nlop *o, uint8_t cmd, uint16_t flags, uint32_t id)
{
	char buf[128];
	size_t len = put_hdr(o, buf, o->family, cmd,
			     NLM_F_REQUEST | NLM_F_ACK | flags);
	int ret;

	put_attr(buf, &len, BLKFLOOR_A_RUN_ID, &id, 4);
	ret = send_msg(o, buf, len);
	return ret ? ret : drain(o);
}

static int start_quiet(struct nlop *o, const char *dev, int write, int owner)
{
	char buf[512], a1[] = "op=write", a2[] = "op=read", a3[] = "time_ms=3000",
	     a4[] = "qd=8", a5[] = "owner=1";
	char *argv[] = { (char *)dev, write ? a1 : a2, a3, a4, a5 };
	size_t len = put_hdr(o, buf, o->family, BLKFLOOR_CMD_RUN_START,
			     NLM_F_REQUEST | NLM_F_ACK);
	int ret;

	put_start(buf, &len, owner ? 5 : 4, argv);
	o->id = 0;
	ret = send_msg(o, buf, len);
	return ret ? ret : drain(o);
}

static int cycles(struct nlop *o, unsigned long n, int ndev, char **devs)
{
	unsigned long ok = 0, busy = 0, bad = 0, tries;
	uint64_t rng = getpid();
	uint32_t id;

	o->quiet = 1;
	for (tries = 0; ok < n && tries < 8 * n; tries++) {
		struct nlop own = *o;
		struct nlop *s = o;
		int owner = tries % 4 == 3, ret;
		const char *dev;

		rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
		dev = devs[(rng >> 33) % ndev];
		if (owner) {
			/* Its own socket, closed right after the start. */
			if (open_sock(&own))
				return 1;
			s = &own;
		}
		ret = start_quiet(s, dev, tries & 1, owner);
		if (owner)
			close(own.fd);
		if (ret == -EBUSY) {
			busy++;
			continue;
		}
		if (ret || !s->id) {
			fprintf(stderr, "start %s: %d\n", dev, ret);
			bad++;
			continue;
		}
		ok++;
		if (!owner)
			usleep((rng >> 40) % 5000);
		id = s->id;
		o->state = -1;
		ret = req_id(o, BLKFLOOR_CMD_RUN_STOP, 0, id);
		if (ret) {
			fprintf(stderr, "stop %u: %d\n", id, ret);
			bad++;
		} else if (o->state == BLKFLOOR_STATE_RUNNING) {
			/* RUN_STOP returns once the run has drained. */
			fprintf(stderr, "run %u still running after RUN_STOP returned\n",
				id);
			bad++;
		}
		/* Often the other client's run: running, ended or freed. */
		ret = req_id(o, BLKFLOOR_CMD_RUN_STOP, 0, id - 1);
		if (ret && ret != -ENOENT && id > 1) {
			fprintf(stderr, "stop %u: %d\n", id - 1, ret);
			bad++;
		}
	}
	printf("ok=%lu\nbusy=%lu\nbad=%lu\n", ok, busy, bad);
	return bad ? 1 : 0;
}

static int reader(struct nlop *o, unsigned int seconds)
{
	unsigned long rounds = 0, bad = 0;
	uint32_t maxid = 1;
	time_t end = time(NULL) + seconds;
	int ret;

	o->quiet = 1;
	while (time(NULL) < end) {
		char buf[64];
		size_t len = put_hdr(o, buf, o->family, BLKFLOOR_CMD_RUN_GET,
				     NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP);
		uint32_t id = 1 + rand() % (maxid + 8);

		rounds++;
		ret = send_msg(o, buf, len);
		if (!ret)
			ret = drain(o);
		if (ret) {
			fprintf(stderr, "list: %d\n", ret);
			bad++;
		}
		ret = req_id(o, BLKFLOOR_CMD_RUN_GET, 0, id);
		if (!ret && o->id > maxid)
			maxid = o->id;
		if (ret && ret != -ENOENT) {
			fprintf(stderr, "get %u: %d\n", id, ret);
			bad++;
		}
		ret = req_id(o, BLKFLOOR_CMD_INTERVAL_GET, NLM_F_DUMP, id);
		if (ret && ret != -ENOENT) {
			fprintf(stderr, "dump %u: %d\n", id, ret);
			bad++;
		}
	}
	printf("rounds=%lu\nbad=%lu\n", rounds, bad);
	return bad ? 1 : 0;
}

static int watchended(struct nlop *o, unsigned int seconds, unsigned long keep)
{
	unsigned long polls = 0, dips = 0, low = keep;
	time_t end = time(NULL) + seconds;
	int armed = 0;

	o->quiet = 1;
	while (time(NULL) < end) {
		char buf[64];
		size_t len = put_hdr(o, buf, o->family, BLKFLOOR_CMD_RUN_GET,
				     NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP);

		o->nmsg = o->running = o->ended = 0;
		if (send_msg(o, buf, len) || drain(o))
			continue;
		polls++;
		if (o->ended >= keep) {
			armed = 1;
		} else if (armed) {
			dips++;
			if (o->ended < low)
				low = o->ended;
		}
	}
	printf("polls=%lu\ndips=%lu\nminended=%lu\n", polls, dips, low);
	return 0;
}

/*
 * A RUN_GET dump read a round at a time through a small buffer on a fresh
 * socket (the kernel sizes a round by the largest read seen so far), the
 * run table changed between its first and second round.
 */
static int churnlist(struct nlop *o, const char *dev)
{
	static char small[4096];
	struct nlop d = *o, s = *o;
	int ret, rounds = 0, churn = 1, done = 0;
	char buf[64];
	size_t len;

	if (open_sock(&d) || open_sock(&s))
		return 1;
	d.quiet = s.quiet = 1;
	len = put_hdr(&d, buf, d.family, BLKFLOOR_CMD_RUN_GET,
		      NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP);
	ret = send_msg(&d, buf, len);
	while (!ret && !done) {
		struct nlmsghdr *h;
		ssize_t n = recv(d.fd, small, sizeof(small), 0);

		if (n < 0) {
			ret = -errno;
			break;
		}
		for (h = (struct nlmsghdr *)small; NLMSG_OK(h, n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_flags & NLM_F_DUMP_INTR)
				d.intr++;
			if (h->nlmsg_type == NLMSG_ERROR) {
				ret = error_of(&d, h);
				done = 1;
			} else if (h->nlmsg_type == NLMSG_DONE) {
				done = 1;
			} else if (h->nlmsg_type == d.family) {
				show(&d, h);
			}
		}
		if (!rounds++)
			churn = start_quiet(&s, dev, 0, 0);
	}
	printf("runs=%lu\nrounds=%d\nintr=%lu\nchurn=%d\nresult=%d\n",
	       d.nmsg, rounds, d.intr, churn, ret);
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int startcongested(struct nlop *o, int argc, char **argv)
{
	struct pollfd p = { .fd = o->fd, .events = POLLIN };
	int rcvbuf = 1, ret, reply = 0, enobufs = 0, result = 0;
	static char buf[4096];
	double end;
	uint32_t seq;
	size_t len;

	if (!o->mcgrp ||
	    setsockopt(o->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)) ||
	    setsockopt(o->fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &o->mcgrp,
		       sizeof(o->mcgrp))) {
		perror("nlop: startcongested: socket options");
		return 1;
	}
	usleep(500000);
	len = put_hdr(o, buf, o->family, BLKFLOOR_CMD_RUN_START,
		      NLM_F_REQUEST | NLM_F_ACK);
	if (put_start(buf, &len, argc, argv))
		return usage();
	seq = o->seq;
	ret = send_msg(o, buf, len);
	if (ret) {
		fprintf(stderr, "nlop: send: %s\n", strerror(-ret));
		return 1;
	}
	for (end = now_s() + 1; now_s() < end;) {
		struct nlmsghdr *h;
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = recv(o->fd, rbuf, sizeof(rbuf), 0);
		if (n < 0) {
			if (errno == ENOBUFS)
				enobufs = 1;
			continue;
		}
		for (h = (struct nlmsghdr *)rbuf; NLMSG_OK(h, n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				result = error_of(o, h);
			} else if (h->nlmsg_type == o->family) {
				reply = 1;
				show(o, h);
			}
		}
	}
	printf("reply=%d\nenobufs=%d\nresult=%d\n", reply, enobufs, result);
	return 0;
}

/*
 * After RUN_STOP of run @id: wait (30 s at most) for its RUN_END_NTF on the
 * events group. Returns the end's STATE, or a negative errno.
 */
static int wait_end(struct nlop *o, uint32_t id)
{
	struct pollfd p = { .fd = o->fd, .events = POLLIN };

	for (;;) {
		if (o->end_id == id)
			return o->end_state;
		struct nlmsghdr *h;
		ssize_t n;

		if (poll(&p, 1, 30000) <= 0)
			return -ETIMEDOUT;
		n = recv(o->fd, rbuf, sizeof(rbuf), 0);
		if (n < 0) {
			if (errno == EINTR || errno == ENOBUFS)
				continue;
			return -errno;
		}
		for (h = (struct nlmsghdr *)rbuf; NLMSG_OK(h, n);
		     h = NLMSG_NEXT(h, n))
			if (end_ntf(o, h) && o->end_id == id)
				return o->end_state;
	}
}

int main(int argc, char **argv)
{
	static char buf[4096];
	struct nlop o = { .first = -1, .last = -1, .end_id = -1 };
	const char *dmname = NULL;
	int stopwait = 0;
	const char *op;
	size_t len;
	uint32_t id;
	int ret;

	if (argc < 2)
		return usage();
	op = argv[1];
	if (open_sock(&o)) {
		perror("nlop: netlink socket");
		return 1;
	}
	ret = resolve(&o);
	if (ret) {
		fprintf(stderr, "nlop: family %s: %s\n", BLKFLOOR_FAMILY_NAME,
			strerror(-ret));
		return 1;
	}

	if (!strcmp(op, "cycles") && argc >= 4)
		return cycles(&o, strtoul(argv[2], NULL, 0), argc - 3, argv + 3);
	if (!strcmp(op, "reader") && argc == 3)
		return reader(&o, strtoul(argv[2], NULL, 0));
	if (!strcmp(op, "churnlist") && argc == 3)
		return churnlist(&o, argv[2]);
	if (!strcmp(op, "watchended") && argc == 4)
		return watchended(&o, strtoul(argv[2], NULL, 0),
				  strtoul(argv[3], NULL, 0));
	if (!strcmp(op, "startcongested") && argc >= 3)
		return startcongested(&o, argc - 2, argv + 2);

	if (!strcmp(op, "join")) {
		if (!o.mcgrp) {
			fprintf(stderr, "nlop: no group %s\n", BLKFLOOR_MCGRP_EVENTS);
			return 1;
		}
		ret = setsockopt(o.fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
				 &o.mcgrp, sizeof(o.mcgrp)) ? -errno : 0;
		printf("group=%u\nresult=%d\n", o.mcgrp, ret);
		return 0;
	}

	if (!strcmp(op, "info") && argc == 2) {
		len = put_hdr(&o, buf, o.family, BLKFLOOR_CMD_INFO_GET,
			      NLM_F_REQUEST | NLM_F_ACK);
	} else if (!strcmp(op, "caps") && argc == 3) {
		len = put_hdr(&o, buf, o.family, BLKFLOOR_CMD_DEV_CAPS,
			      NLM_F_REQUEST | NLM_F_ACK);
		put_attr(buf, &len, BLKFLOOR_A_DEV_PATH, argv[2],
			 strlen(argv[2]) + 1);
	} else if (!strcmp(op, "capsfd") && argc == 3) {
		int32_t fd = open(argv[2], O_RDONLY | O_CLOEXEC);

		if (fd < 0) {
			fprintf(stderr, "nlop: %s: %s\n", argv[2], strerror(errno));
			return 1;
		}
		len = put_hdr(&o, buf, o.family, BLKFLOOR_CMD_DEV_CAPS,
			      NLM_F_REQUEST | NLM_F_ACK);
		put_attr(buf, &len, BLKFLOOR_A_DEV_FD, &fd, 4);
	} else if (!strcmp(op, "start") && argc >= 3) {
		len = put_hdr(&o, buf, o.family, BLKFLOOR_CMD_RUN_START,
			      NLM_F_REQUEST | NLM_F_ACK);
		if (put_start(buf, &len, argc - 2, argv + 2))
			return usage();
	} else if (!strcmp(op, "stopwait") &&
		   (argc == 3 || (argc == 4 && !strncmp(argv[3], "dmremove=", 9)))) {
		if (argc == 4)
			dmname = argv[3] + 9;
		if (!o.mcgrp || setsockopt(o.fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
					   &o.mcgrp, sizeof(o.mcgrp))) {
			fprintf(stderr, "nlop: cannot join group %s\n",
				BLKFLOOR_MCGRP_EVENTS);
			return 1;
		}
		stopwait = 1;
		len = put_hdr(&o, buf, o.family, BLKFLOOR_CMD_RUN_STOP,
			      NLM_F_REQUEST | NLM_F_ACK);
		id = strtoul(argv[2], NULL, 0);
		put_attr(buf, &len, BLKFLOOR_A_RUN_ID, &id, 4);
	} else if ((!strcmp(op, "stop") || !strcmp(op, "get")) && argc == 3) {
		len = put_hdr(&o, buf, o.family,
			      op[0] == 's' ? BLKFLOOR_CMD_RUN_STOP :
					     BLKFLOOR_CMD_RUN_GET,
			      NLM_F_REQUEST | NLM_F_ACK);
		id = strtoul(argv[2], NULL, 0);
		put_attr(buf, &len, BLKFLOOR_A_RUN_ID, &id, 4);
	} else if (!strcmp(op, "list") && argc == 2) {
		len = put_hdr(&o, buf, o.family, BLKFLOOR_CMD_RUN_GET,
			      NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP);
	} else if (!strcmp(op, "slowdump") && argc == 4) {
		int rcvbuf = 4096;

		/* A small receive buffer: one round of the dump at a time. */
		setsockopt(o.fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
		o.delay_ms = strtoul(argv[3], NULL, 0);
		len = put_hdr(&o, buf, o.family, BLKFLOOR_CMD_INTERVAL_GET,
			      NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP);
		id = strtoul(argv[2], NULL, 0);
		put_attr(buf, &len, BLKFLOOR_A_RUN_ID, &id, 4);
	} else if (!strcmp(op, "dump") && (argc == 3 || argc == 4)) {
		len = put_hdr(&o, buf, o.family, BLKFLOOR_CMD_INTERVAL_GET,
			      NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP);
		id = strtoul(argv[2], NULL, 0);
		put_attr(buf, &len, BLKFLOOR_A_RUN_ID, &id, 4);
		if (argc == 4) {
			uint64_t from = strtoull(argv[3], NULL, 0);

			put_attr(buf, &len, BLKFLOOR_A_FROM_INDEX, &from, 8);
		}
	} else {
		return usage();
	}

	ret = send_msg(&o, buf, len);
	if (ret) {
		fprintf(stderr, "nlop: send: %s\n", strerror(-ret));
		return 1;
	}
	ret = drain(&o);
	if (ret == -ETIMEDOUT) {
		fprintf(stderr, "nlop: no answer in 30 s\n");
		return 1;
	}
	if (stopwait && !ret) {
		int end = o.state == BLKFLOOR_STATE_STOPPING ?
			  wait_end(&o, id) : o.state;

		if (dmname)
			printf("dmremove=%d\n", dm_remove(dmname));
		printf("end_state=%d\n", end);
	}
	if (!strcmp(op, "list"))
		printf("runs=%lu\nrunning=%lu\nended=%lu\n", o.nmsg, o.running,
		       o.ended);
	if (!strcmp(op, "dump") || !strcmp(op, "slowdump"))
		printf("intervals=%lu\nfirst=%ld\nlast=%ld\ngaps=%lu\nintr=%lu\n"
		       "ugaps=%lu\nempty=%lu\nmaxempty=%lu\n", o.nmsg, o.first,
		       o.last, o.gaps, o.intr, o.ugaps, o.empty, o.max_empty);
	printf("result=%d\n", ret);
	return 0;
}
