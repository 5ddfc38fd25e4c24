// SPDX-License-Identifier: GPL-2.0
/*
 * nlfuzz: throw random and mutated generic-netlink messages at the blkfloor
 * family and check that every one is answered (an error or an ack), never
 * ignored or crashed on.
 *
 * usage: nlfuzz [-n COUNT] [-s SEED] [-d DEV]
 *
 * DEV (default /dev/nullb0) is the only device path the mutations start
 * from, so the valid-looking RUN_START messages it produces can only touch
 * that device. Runs started along the way are stopped at the end. Exit 0
 * when every message got an answer and the family still resolves.
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/blkfloor.h>

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

#define BUFSZ 65536

struct fz {
	int fd;
	uint16_t family;
	uint32_t seq;
	uint64_t rng;
	const char *dev;
	unsigned long sent, errors, acks, timeouts, data;
};

static uint64_t fz_rand(struct fz *f)
{
	/* splitmix64 */
	uint64_t z = (f->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned int fz_below(struct fz *f, unsigned int n)
{
	return n ? fz_rand(f) % n : 0;
}

static int put_attr(char *buf, size_t *len, size_t cap, uint16_t type,
		    const void *data, size_t dlen)
{
	struct nlattr *a = (struct nlattr *)(buf + *len);
	size_t tot = NLA_HDRLEN + dlen;

	if (*len + NLA_ALIGN(tot) > cap)
		return -1;
	a->nla_type = type;
	a->nla_len = tot;
	memcpy((char *)a + NLA_HDRLEN, data, dlen);
	memset((char *)a + tot, 0, NLA_ALIGN(tot) - tot);
	*len += NLA_ALIGN(tot);
	return 0;
}

/* Read answers to @seq until an error/ack or DONE; 1 s without one: timeout. */
static int fz_drain(struct fz *f, uint32_t seq)
{
	static char buf[BUFSZ];
	struct pollfd p = { .fd = f->fd, .events = POLLIN };

	for (;;) {
		struct nlmsghdr *h;
		ssize_t n;

		if (poll(&p, 1, 1000) <= 0) {
			f->timeouts++;
			return -ETIMEDOUT;
		}
		n = recv(f->fd, buf, sizeof(buf), 0);
		if (n < 0) {
			if (errno == ENOBUFS || errno == EINTR)
				continue;
			return -errno;
		}
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(h);

				if (e->error)
					f->errors++;
				else
					f->acks++;
				return e->error;
			}
			if (h->nlmsg_type == NLMSG_DONE) {
				f->acks++;
				return 0;
			}
			f->data++;
		}
	}
}

static int fz_send(struct fz *f, void *msg, size_t len)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	f->sent++;
	return sendto(f->fd, msg, len, 0, (struct sockaddr *)&sa, sizeof(sa));
}

static size_t fz_hdr(struct fz *f, char *buf, uint8_t cmd, uint16_t flags)
{
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct genlmsghdr *g = NLMSG_DATA(h);

	memset(buf, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	h->nlmsg_type = f->family;
	h->nlmsg_flags = flags;
	h->nlmsg_seq = ++f->seq;
	g->cmd = cmd;
	g->version = BLKFLOOR_FAMILY_VERSION;
	return NLMSG_HDRLEN + GENL_HDRLEN;
}

static int resolve(struct fz *f)
{
	char buf[512];
	static char rbuf[BUFSZ];
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct genlmsghdr *g = NLMSG_DATA(h);
	size_t len = NLMSG_HDRLEN + GENL_HDRLEN;
	ssize_t n;

	memset(buf, 0, sizeof(buf));
	h->nlmsg_type = GENL_ID_CTRL;
	h->nlmsg_flags = NLM_F_REQUEST;
	h->nlmsg_seq = ++f->seq;
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	put_attr(buf, &len, sizeof(buf), CTRL_ATTR_FAMILY_NAME,
		 BLKFLOOR_FAMILY_NAME, sizeof(BLKFLOOR_FAMILY_NAME));
	h->nlmsg_len = len;
	if (fz_send(f, buf, len) < 0)
		return -errno;
	n = recv(f->fd, rbuf, sizeof(rbuf), 0);
	if (n < 0)
		return -errno;
	for (h = (struct nlmsghdr *)rbuf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
		struct nlattr *a;
		int rem;

		if (h->nlmsg_type == NLMSG_ERROR)
			return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
		a = (struct nlattr *)((char *)NLMSG_DATA(h) + GENL_HDRLEN);
		rem = h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
		while (rem >= (int)NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
		       a->nla_len <= rem) {
			if (a->nla_type == CTRL_ATTR_FAMILY_ID) {
				f->family = *(uint16_t *)((char *)a + NLA_HDRLEN);
				return 0;
			}
			rem -= NLA_ALIGN(a->nla_len);
			a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
		}
	}
	return -ENOENT;
}

/* A plausible RUN_START on the fuzz device, to be mutated. */
static size_t valid_start(struct fz *f, char *buf, size_t cap)
{
	size_t len = fz_hdr(f, buf, BLKFLOOR_CMD_RUN_START,
			    NLM_F_REQUEST | NLM_F_ACK);
	uint32_t op = fz_below(f, __BLKFLOOR_OP_MAX);
	uint32_t bs = 4096 << fz_below(f, 6), qd = 1 + fz_below(f, 64);
	uint32_t flags = fz_below(f, BLKFLOOR_F_MASK + 1);
	uint64_t ns = 20000000, bytes = 1 << 20;

	put_attr(buf, &len, cap, BLKFLOOR_A_DEV_PATH, f->dev, strlen(f->dev) + 1);
	put_attr(buf, &len, cap, BLKFLOOR_A_OP, &op, 4);
	put_attr(buf, &len, cap, BLKFLOOR_A_BS, &bs, 4);
	put_attr(buf, &len, cap, BLKFLOOR_A_QD, &qd, 4);
	put_attr(buf, &len, cap, BLKFLOOR_A_FLAGS, &flags, 4);
	put_attr(buf, &len, cap, BLKFLOOR_A_MAX_TIME_NS, &ns, 8);
	put_attr(buf, &len, cap, BLKFLOOR_A_MAX_BYTES, &bytes, 8);
	put_attr(buf, &len, cap, BLKFLOOR_A_INTERVAL_NS, &ns, 8);
	return len;
}

/* Random attributes of random types, lengths and contents. */
static size_t random_msg(struct fz *f, char *buf, size_t cap)
{
	static const uint64_t edge[] = {
		0, 1, 2, 511, 512, 4095, 4096, 1023, 1024, 1025, 0x7fffffff,
		0x80000000, 0xffffffff, 0x100000000ULL, ~0ULL, 1ULL << 63,
	};
	uint16_t flags = NLM_F_REQUEST | NLM_F_ACK;
	size_t len;
	unsigned int i, nattr = fz_below(f, 12);

	if (fz_below(f, 4) == 0)
		flags |= NLM_F_DUMP;
	len = fz_hdr(f, buf, fz_below(f, BLKFLOOR_CMD_MAX + 4), flags);
	for (i = 0; i < nattr; i++) {
		uint8_t data[300];
		uint16_t type = fz_below(f, BLKFLOOR_A_MAX + 4);
		size_t dlen;
		uint64_t v = edge[fz_below(f, sizeof(edge) / sizeof(edge[0]))];

		switch (fz_below(f, 5)) {
		case 0:
			dlen = 1 << fz_below(f, 4);	/* 1, 2, 4, 8 */
			memcpy(data, &v, dlen);
			break;
		case 1:	/* nest of random small attributes */
			dlen = 0;
			while (dlen + 12 <= 64) {
				struct nlattr *a = (struct nlattr *)(data + dlen);

				a->nla_type = fz_below(f, 20) |
					(fz_below(f, 2) ? NLA_F_NESTED : 0);
				a->nla_len = NLA_HDRLEN + 8;
				memcpy(data + dlen + NLA_HDRLEN, &v, 8);
				dlen += 12;
			}
			type |= NLA_F_NESTED;
			break;
		case 2:	/* string, maybe unterminated, maybe long */
			dlen = fz_below(f, 300);
			memset(data, 'A' + fz_below(f, 26), dlen);
			if (dlen && fz_below(f, 2))
				data[dlen - 1] = 0;
			break;
		default:
			dlen = fz_below(f, 40);
			for (size_t j = 0; j < dlen; j++)
				data[j] = fz_rand(f);
			break;
		}
		if (put_attr(buf, &len, cap, type, data, dlen))
			break;
	}
	return len;
}

static void mutate(struct fz *f, char *buf, size_t *len)
{
	unsigned int i, n = 1 + fz_below(f, 4);

	for (i = 0; i < n; i++) {
		size_t at = NLMSG_HDRLEN + fz_below(f, *len - NLMSG_HDRLEN);

		switch (fz_below(f, 3)) {
		case 0:
			buf[at] ^= 1 << fz_below(f, 8);
			break;
		case 1:
			buf[at] = fz_rand(f);
			break;
		default:	/* truncate */
			*len = at;
			break;
		}
	}
}

/* Stop every run still going (owned runs stop with the socket anyway). */
static void stop_all(struct fz *f)
{
	static char buf[BUFSZ];
	uint32_t ids[256];
	unsigned int nids = 0, i;
	char msg[128];
	size_t len = fz_hdr(f, msg, BLKFLOOR_CMD_RUN_GET,
			    NLM_F_REQUEST | NLM_F_DUMP);
	uint32_t seq = f->seq;
	struct pollfd p = { .fd = f->fd, .events = POLLIN };

	((struct nlmsghdr *)msg)->nlmsg_len = len;
	fz_send(f, msg, len);
	while (poll(&p, 1, 1000) > 0) {
		ssize_t n = recv(f->fd, buf, sizeof(buf), 0);
		struct nlmsghdr *h;
		int done = 0;

		if (n <= 0)
			break;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, n);
		     h = NLMSG_NEXT(h, n)) {
			struct nlattr *a;
			int rem;

			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE ||
			    h->nlmsg_type == NLMSG_ERROR) {
				done = 1;
				break;
			}
			a = (struct nlattr *)((char *)NLMSG_DATA(h) + GENL_HDRLEN);
			rem = h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
			while (rem >= (int)NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
			       a->nla_len <= rem) {
				if (a->nla_type == BLKFLOOR_A_RUN_ID && nids < 256)
					ids[nids++] = *(uint32_t *)((char *)a + NLA_HDRLEN);
				rem -= NLA_ALIGN(a->nla_len);
				a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
			}
		}
		if (done)
			break;
	}
	for (i = 0; i < nids; i++) {
		len = fz_hdr(f, msg, BLKFLOOR_CMD_RUN_STOP,
			     NLM_F_REQUEST | NLM_F_ACK);
		put_attr(msg, &len, sizeof(msg), BLKFLOOR_A_RUN_ID, &ids[i], 4);
		((struct nlmsghdr *)msg)->nlmsg_len = len;
		fz_send(f, msg, len);
		fz_drain(f, f->seq);
	}
}

int main(int argc, char **argv)
{
	static char buf[BUFSZ];
	struct fz f = { .rng = 1, .dev = "/dev/nullb0" };
	unsigned long count = 5000, i;
	int one = 1, opt;

	while ((opt = getopt(argc, argv, "n:s:d:")) != -1) {
		switch (opt) {
		case 'n':
			count = strtoul(optarg, NULL, 0);
			break;
		case 's':
			f.rng = strtoull(optarg, NULL, 0);
			break;
		case 'd':
			f.dev = optarg;
			break;
		default:
			fprintf(stderr, "usage: nlfuzz [-n COUNT] [-s SEED] [-d DEV]\n");
			return 2;
		}
	}
	f.fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (f.fd < 0) {
		perror("nlfuzz: socket");
		return 1;
	}
	setsockopt(f.fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(f.fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	if (resolve(&f)) {
		fprintf(stderr, "nlfuzz: family %s not found\n", BLKFLOOR_FAMILY_NAME);
		return 1;
	}

	for (i = 0; i < count; i++) {
		size_t len;
		int kind = fz_below(&f, 4);

		if (kind == 0)
			len = valid_start(&f, buf, sizeof(buf));
		else
			len = random_msg(&f, buf, sizeof(buf));
		if (kind == 1 || kind == 0)
			mutate(&f, buf, &len);
		((struct nlmsghdr *)buf)->nlmsg_len = len;
		if (len < NLMSG_HDRLEN || fz_below(&f, 50) == 0) {
			/*
			 * A runt, or a length claiming more than was sent:
			 * netlink drops these without an answer.
			 */
			if (len >= NLMSG_HDRLEN)
				((struct nlmsghdr *)buf)->nlmsg_len = len + 64;
			fz_send(&f, buf, len);
			continue;
		}
		if (fz_send(&f, buf, len) < 0)
			continue;
		fz_drain(&f, f.seq);
		if ((i & 255) == 255)
			stop_all(&f);
	}
	stop_all(&f);
	printf("# nlfuzz: %lu sent, %lu errors, %lu acks, %lu data, %lu unanswered\n",
	       f.sent, f.errors, f.acks, f.data, f.timeouts);
	if (f.timeouts) {
		printf("# nlfuzz: %lu well-formed requests got no answer\n",
		       f.timeouts);
		return 1;
	}
	f.family = 0;
	if (resolve(&f)) {
		printf("# nlfuzz: the family is gone after fuzzing\n");
		return 1;
	}
	close(f.fd);
	return 0;
}
