// SPDX-License-Identifier: GPL-2.0
/*
 * compare for a kernel change: the path figures of two traces (split
 * ratio, request size, SCSI counters, events, path header items) and
 * --fail-on regression's exit status. The traces are synthetic: a run of
 * 40 one-second intervals with 3 % noise on the rate and the ratios.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#pragma GCC diagnostic push
/* the harness defines a few non-static functions without prototypes */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#include "blkfloor.h"
#include "pathsum.h"
#include "trace.h"

struct spec {
	const char *driver, *speed;
	double mbps, rpb;	/* rate, requests per bio */
	unsigned int resets, tmo;
	uint64_t seed;
};

static double jitter(uint64_t *st)
{
	*st = *st * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(*st >> 11) / (double)(1ULL << 52) - 1;
}

/* A trace written as blkfloor writes one (header, path columns, events). */
static void write_trace(const char *path, const struct spec *sp)
{
	FILE *f = fopen(path, "w");
	uint64_t st = sp->seed, total = 0;
	unsigned int i;

	if (!f)
		abort();
	/* both runs in one boot: the rates are weighed against the runs */
	fprintf(f, "%s\n# device: /dev/sdb\n# boot_id: 7f3e0c52-5b8d-4f4e-8a59-0c1d2e3f4a5b\n# driver: %s\n# usb_speed: %s\n"
		"# max_sectors_kb: 512\n# queue_depth: 32\n# scheduler: none\n"
		"# nomerges: 0\n%s\n", BF_TRACE_MAGIC, sp->driver, sp->speed,
		BF_TRACE_HEADER);
	for (i = 0; i < 40; i++) {
		double r = sp->mbps * (1 + 0.03 * jitter(&st));
		double rpb = sp->rpb * (1 + 0.03 * jitter(&st));
		uint64_t by = (uint64_t)(r * 1e6);
		unsigned long long bios = by >> 20;

		total += by;
		fprintf(f, "%u,%u.000000,%u.000000,%llu,%llu,0,%.3f,1,2,2,3,4,5,%llu,"
			"%llu,%.3f,%.1f,0,0.950,%u,0,%u,\n", i, i, i + 1,
			(unsigned long long)by, bios, r, (unsigned long long)total,
			(unsigned long long)llround(bios * rpb), rpb, 1024 / rpb,
			i % 4 + 1, i == 20 ? sp->tmo : 0);
		if (i == 20)
			for (unsigned int k = 0; k < sp->resets; k++)
				fprintf(f, "# event: 20.5%u reset sd 2:0:0:0: device reset\n",
					k);
	}
	fprintf(f, "# state: done\n");
	fclose(f);
}

/* compare A B --fail-on regression [--vary @vary] */
static int compare_vary(const char *a, const char *b, bool quiet,
			const char *vary)
{
	char *argv[] = { "compare", (char *)a, (char *)b, "--fail-on",
			 "regression", vary ? "--vary" : NULL, (char *)vary,
			 NULL };
	const struct blkfloor_cmd *c;
	int ret = -1, fd = -1, out;

	for (c = __start_blkfloor_cmds; c < __stop_blkfloor_cmds; c++)
		if (!strcmp(c->name, "compare"))
			break;
	if (c == __stop_blkfloor_cmds)
		return -1;
	fflush(stdout);
	out = dup(1);
	if (quiet) {
		fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
	}
	ret = c->handler(vary ? 7 : 5, argv);
	fflush(stdout);
	dup2(out, 1);
	close(out);
	if (fd >= 0)
		close(fd);
	return ret;
}

static int compare(const char *a, const char *b, bool quiet)
{
	return compare_vary(a, b, quiet, NULL);
}

struct two {
	char a[64], b[64];
	struct spec sa, sb;
};

static void two_init(struct two *self)
{
	snprintf(self->a, sizeof(self->a), "/tmp/bf-cmp-a-%d.csv", getpid());
	snprintf(self->b, sizeof(self->b), "/tmp/bf-cmp-b-%d.csv", getpid());
	self->sa = (struct spec){ "uas", "5000", 300, 2.0, 0, 0, 1 };
	self->sb = self->sa;
	self->sb.seed = 2;	/* another run of the same configuration */
}

static void two_done(struct two *self)
{
	unlink(self->a);
	unlink(self->b);
}

TEST(same_configuration_passes)
{
	struct two t, *self = &t;

	two_init(self);
	write_trace(self->a, &self->sa);
	write_trace(self->b, &self->sb);
	EXPECT_EQ(0, compare(self->a, self->b, false));
	two_done(self);
}

TEST(more_requests_per_bio_fails)
{
	struct two t, *self = &t;

	two_init(self);
	self->sb.rpb = 4.0;	/* 1 MiB bios split in 256 KiB requests */
	write_trace(self->a, &self->sa);
	write_trace(self->b, &self->sb);
	EXPECT_EQ(1, compare(self->a, self->b, false));
	/* the other way round it is an improvement */
	EXPECT_EQ(0, compare(self->b, self->a, true));
	two_done(self);
}

TEST(resets_fail)
{
	struct two t, *self = &t;

	two_init(self);
	self->sb.resets = 1;
	write_trace(self->a, &self->sa);
	write_trace(self->b, &self->sb);
	EXPECT_EQ(1, compare(self->a, self->b, false));
	two_done(self);
}

TEST(timeouts_fail)
{
	struct two t, *self = &t;

	two_init(self);
	self->sb.tmo = 1;
	write_trace(self->a, &self->sa);
	write_trace(self->b, &self->sb);
	EXPECT_EQ(1, compare(self->a, self->b, true));
	two_done(self);
}

/*
 * In a kernel A/B, a fall to usb-storage and a slower link follow from
 * the kernel and are regressions. Alone, they are what the comparison
 * varies (a driver A/B, a port or cable A/B), judged on the figures.
 */
TEST(uas_to_usb_storage_and_slower_link_fail)
{
	struct two t, *self = &t;

	two_init(self);
	self->sb.driver = "usb-storage";
	write_trace(self->a, &self->sa);
	write_trace(self->b, &self->sb);
	EXPECT_EQ(1, compare_vary(self->a, self->b, true, "kernel"));
	EXPECT_EQ(0, compare(self->a, self->b, true));
	self->sb.driver = "uas";
	self->sb.speed = "480";
	write_trace(self->b, &self->sb);
	EXPECT_EQ(1, compare_vary(self->a, self->b, true, "kernel"));
	EXPECT_EQ(0, compare(self->a, self->b, true));
	two_done(self);
}

TEST(lower_rate_fails)
{
	struct two t, *self = &t;

	two_init(self);
	self->sb.mbps = 250;
	write_trace(self->a, &self->sa);
	write_trace(self->b, &self->sb);
	EXPECT_EQ(1, compare(self->a, self->b, true));
	two_done(self);
}

/* The figures themselves, read and compared without the command. */
TEST(figures)
{
	struct two t, *self = &t;

	two_init(self);
	struct bf_pathsum A, B;
	struct bf_pdiff d[BF_PDIFF_MAX];
	char err[200];
	size_t n, i;
	FILE *f;
	bool rpb = false, reset = false;

	self->sb.rpb = 4.0;
	self->sb.resets = 2;
	write_trace(self->a, &self->sa);
	write_trace(self->b, &self->sb);
	f = fopen(self->a, "r");
	ASSERT_EQ(0, bf_pathsum_read(f, &A, err, sizeof(err)));
	fclose(f);
	f = fopen(self->b, "r");
	ASSERT_EQ(0, bf_pathsum_read(f, &B, err, sizeof(err)));
	fclose(f);
	EXPECT_TRUE(A.have);
	EXPECT_LT(fabs(A.req_per_bio.mean - 2), 0.05);
	EXPECT_EQ(4, A.in_flight.max);
	EXPECT_EQ(2U, B.events[BF_PEV_RESET]);
	EXPECT_STREQ("uas", A.hdr[BF_PH_DRIVER]);
	n = bf_pathsum_compare(&A, &B, d);
	for (i = 0; i < n; i++) {
		if (!strcmp(d[i].what, "requests/bio"))
			rpb = d[i].differs && d[i].worse;
		if (!strcmp(d[i].what, "reset"))
			reset = d[i].differs && d[i].worse &&
				!strcmp(d[i].b, "2");
		if (!strcmp(d[i].what, "driver"))
			EXPECT_FALSE(d[i].differs);
	}
	EXPECT_TRUE(rpb);
	EXPECT_TRUE(reset);
	two_done(self);
}

TEST(bad_path_number)
{
	const char *t = "# blkfloor-trace v1\nstart_s,end_s,bytes,requests,req_per_bio\n"
			"0,1,100,5,1e\n";
	FILE *f = fmemopen((void *)t, strlen(t), "r");
	struct bf_pathsum p;
	char err[200] = "";

	ASSERT_NE(NULL, f);
	EXPECT_NE(0, bf_pathsum_read(f, &p, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "req_per_bio"));
	fclose(f);
}

/* Over a run, requests per bio is a ratio of sums, not a mean of ratios. */
TEST(ratio_of_sums)
{
	static const char tr[] =
		"# blkfloor-trace v1\n"
		"index,start_s,end_s,bytes,ios,errors,MBps,requests,req_per_bio,req_kib\n"
		"0,0,1,10485760,10,0,10.486,20,2.000,512.0\n"
		"1,1,2,2097152,2,0,2.097,1,0.500,1024.0\n"
		"2,2,3,0,0,0,0.000,0,0.000,0.0\n";
	struct bf_pathsum p;
	char err[200];
	FILE *f = fmemopen((void *)tr, sizeof(tr) - 1, "r");

	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, bf_pathsum_read(f, &p, err, sizeof(err)));
	fclose(f);
	/* 21 requests for 12 bios, not (2.0 + 0.5 + 0) / 3 */
	EXPECT_LT(fabs(p.req_per_bio.mean - 21.0 / 12), 1e-9);
	/* (20 * 512 + 1 * 1024) / 21 KiB */
	EXPECT_LT(fabs(p.req_kib.mean - (20 * 512.0 + 1024) / 21), 1e-9);
}

TEST_HARNESS_MAIN
