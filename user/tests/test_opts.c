// SPDX-License-Identifier: GPL-2.0
/*
 * Option parsing of the run-like commands, without netlink.
 */
#include <errno.h>
#include <string.h>
#include <linux/blkfloor.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#include "opts.h"

#define ALL ((1ULL << BF_O_NR) - 1)

static int parse(struct bf_opts *o, uint64_t allowed, char *err,
		 const char **args, int n)
{
	char *argv[64];
	int i;

	if (n > 64)
		return -E2BIG;
	for (i = 0; i < n; i++)
		argv[i] = (char *)args[i];
	return bf_opts_parse(o, n, argv, allowed, 1, 1, err, 160);
}

#define PARSE(o, allowed, err, ...) ({					\
	const char *_a[] = { "run", __VA_ARGS__ };			\
	parse(o, allowed, err, _a, sizeof(_a) / sizeof(_a[0]));		\
})

TEST(full_run_line)
{
	struct bf_opts o = { 0 };
	char err[160] = "";

	ASSERT_EQ(0, PARSE(&o, ALL, err, "/dev/sdb", "--rw", "randwrite",
			   "--bs", "4KiB", "--qd=64", "--offset", "1GiB",
			   "--size", "2GB", "--time", "30s", "--loops", "3",
			   "--rate", "50MB/s", "--interval", "100ms",
			   "--data", "verify", "--seed", "42", "--fua",
			   "--preflush", "--err-limit", "5", "--err-log", "0",
			   "--ring", "1024",
			   "--no-own", "--trace", "t.csv", "--json", "--quiet",
			   "--yes-destroy-data")) TH_LOG("%s", err);
	EXPECT_EQ(1, o.npos);
	EXPECT_STREQ("/dev/sdb", o.pos[0]);
	EXPECT_EQ(BLKFLOOR_OP_WRITE, o.op);
	EXPECT_EQ(BLKFLOOR_PATTERN_RANDOM, o.pattern);
	EXPECT_EQ(4096U, o.bs);
	EXPECT_EQ(64U, o.qd);
	EXPECT_EQ(1ULL << 30, o.offset);
	EXPECT_EQ(2000000000ULL, o.size);
	EXPECT_EQ(30000000000ULL, o.time_ns);
	EXPECT_EQ(3U, o.loops);
	EXPECT_EQ(50000000ULL, o.rate_bps);
	EXPECT_EQ(0ULL, o.rate_iops);
	EXPECT_EQ(100000000ULL, o.interval_ns);
	EXPECT_EQ(BLKFLOOR_DATA_VERIFY, o.data);
	EXPECT_EQ(42ULL, o.seed);
	EXPECT_TRUE(o.fua);
	EXPECT_TRUE(o.preflush);
	EXPECT_EQ(5U, o.err_limit);
	EXPECT_EQ(0U, o.err_log);
	EXPECT_TRUE(!!(o.set & BF_OPT(ERR_LOG)));
	EXPECT_EQ(1024U, o.ring);
	EXPECT_TRUE(o.no_own);
	EXPECT_STREQ("t.csv", o.trace);
	EXPECT_TRUE(o.json);
	EXPECT_TRUE(o.quiet);
	EXPECT_TRUE(o.yes);
	EXPECT_TRUE(!!(o.set & BF_OPT(SEED)));
	EXPECT_FALSE(!!(o.set & BF_OPT(PERCENT)));
}

TEST(data_modes)
{
	static const struct { const char *v; uint8_t data; } t[] = {
		{ "random", BLKFLOOR_DATA_RANDOM }, { "zero", BLKFLOOR_DATA_ZERO },
		{ "verify", BLKFLOOR_DATA_VERIFY }, { "shared", BLKFLOOR_DATA_SHARED },
	};
	char err[160] = "";
	unsigned int i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct bf_opts o = { 0 };

		ASSERT_EQ(0, PARSE(&o, ALL, err, "/dev/sdb", "--data", t[i].v))
			TH_LOG("%s", err);
		EXPECT_EQ(t[i].data, o.data);
		EXPECT_STREQ(t[i].v, bf_data_name(o.data));
	}
	{
		struct bf_opts o = { 0 };

		EXPECT_NE(0, PARSE(&o, ALL, err, "/dev/sdb", "--data", "dedup"));
		EXPECT_NE(NULL, strstr(err, "expected random, zero, verify or shared"));
	}
	EXPECT_NE(NULL, strstr(bf_data_desc(BLKFLOOR_OP_WRITE, BLKFLOOR_DATA_RANDOM), "unique"));
	EXPECT_NE(NULL, strstr(bf_data_desc(BLKFLOOR_OP_WRITE, BLKFLOOR_DATA_SHARED), "dedup"));
	/* which runs have a buffer per slot, bounded by VERIFY_MEM_MAX */
	EXPECT_TRUE(bf_data_per_slot(BLKFLOOR_OP_WRITE, BLKFLOOR_DATA_RANDOM));
	EXPECT_TRUE(bf_data_per_slot(BLKFLOOR_OP_WRITE, BLKFLOOR_DATA_VERIFY));
	EXPECT_TRUE(bf_data_per_slot(BLKFLOOR_OP_READ, BLKFLOOR_DATA_VERIFY));
	EXPECT_FALSE(bf_data_per_slot(BLKFLOOR_OP_READ, BLKFLOOR_DATA_RANDOM));
	EXPECT_FALSE(bf_data_per_slot(BLKFLOOR_OP_WRITE, BLKFLOOR_DATA_SHARED));
	EXPECT_FALSE(bf_data_per_slot(BLKFLOOR_OP_WRITE, BLKFLOOR_DATA_ZERO));
	EXPECT_FALSE(bf_data_per_slot(BLKFLOOR_OP_DISCARD, BLKFLOOR_DATA_RANDOM));
}

TEST(rw_modes)
{
	static const struct {
		const char *s;
		uint8_t op, pattern;
	} t[] = {
		{ "read", BLKFLOOR_OP_READ, BLKFLOOR_PATTERN_SEQ },
		{ "write", BLKFLOOR_OP_WRITE, BLKFLOOR_PATTERN_SEQ },
		{ "randread", BLKFLOOR_OP_READ, BLKFLOOR_PATTERN_RANDOM },
		{ "randwrite", BLKFLOOR_OP_WRITE, BLKFLOOR_PATTERN_RANDOM },
		{ "trim", BLKFLOOR_OP_DISCARD, BLKFLOOR_PATTERN_SEQ },
		{ "write-zeroes", BLKFLOOR_OP_WRITE_ZEROES, BLKFLOOR_PATTERN_SEQ },
	};
	unsigned int i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct bf_opts o = { 0 };
		char err[160];

		ASSERT_EQ(0, PARSE(&o, ALL, err, "d", "--rw", t[i].s));
		EXPECT_EQ(t[i].op, o.op);
		EXPECT_EQ(t[i].pattern, o.pattern);
		EXPECT_STREQ(t[i].s, bf_rw_name(o.op, o.pattern));
	}
	EXPECT_TRUE(bf_op_destructive(BLKFLOOR_OP_WRITE));
	EXPECT_TRUE(bf_op_destructive(BLKFLOOR_OP_DISCARD));
	EXPECT_TRUE(bf_op_destructive(BLKFLOOR_OP_WRITE_ZEROES));
	EXPECT_FALSE(bf_op_destructive(BLKFLOOR_OP_READ));
}

TEST(rates_in_iops)
{
	struct bf_opts o = { 0 };
	char err[160];

	ASSERT_EQ(0, PARSE(&o, ALL, err, "d", "--rate", "1000iops"));
	EXPECT_EQ(1000ULL, o.rate_iops);
	EXPECT_EQ(0ULL, o.rate_bps);
}

/* --bs 128K is fio's 128 KiB, not 128,000 bytes (unaligned bios). */
TEST(sizes_as_fio)
{
	struct bf_opts o = { 0 };
	char err[160];

	ASSERT_EQ(0, PARSE(&o, ALL, err, "d", "--bs", "128K", "--size", "64M",
			   "--offset", "1g"));
	EXPECT_EQ(131072U, o.bs);
	EXPECT_EQ(64ULL << 20, o.size);
	EXPECT_EQ(1ULL << 30, o.offset);
	ASSERT_EQ(0, PARSE(&o, ALL, err, "d", "--bs", "4k"));
	EXPECT_EQ(4096U, o.bs);
	/* kB, MB are decimal: 4kB is 4000 bytes, refused with a hint */
	EXPECT_EQ(-EINVAL, PARSE(&o, ALL, err, "d", "--bs", "4kB"));
	EXPECT_STREQ("invalid --bs '4kB': not a multiple of 512 bytes (kB, MB, GB are powers of 10: did you mean 4K or 4KiB?)",
		     err);
}

TEST(defaults_kept)
{
	struct bf_opts o = { 0 };
	char err[160];

	o.bs = 131072;
	o.qd = 32;
	ASSERT_EQ(0, PARSE(&o, ALL, err, "d"));
	EXPECT_EQ(131072U, o.bs);
	EXPECT_EQ(32U, o.qd);
	EXPECT_EQ(0U, o.set);
}

TEST(errors)
{
	static const char *const bad[][3] = {
		{ "d", "--bs", "1000" },	/* not a multiple of 512 */
		{ "d", "--bs", "128MiB" },	/* above BLKFLOOR_BS_MAX */
		{ "d", "--bs", "4X" },
		{ "d", "--qd", "0" },
		{ "d", "--qd", "1025" },
		{ "d", "--qd", "many" },
		{ "d", "--size", "-1" },
		{ "d", "--size", "0" },
		{ "d", "--time", "5 days" },
		{ "d", "--interval", "100us" },	/* below 1 ms */
		{ "d", "--rw", "readwrite" },
		{ "d", "--data", "ones" },
		{ "d", "--ring", "4" },
		{ "d", "--err-log", "257" },	/* above BLKFLOOR_ERR_LOG_MAX */
		{ "d", "--err-log", "-1" },
		{ "d", "--rate", "fast" },
		{ "d", "--percent", "101" },
		{ "d", "--frobnicate", "1" },
		{ "d", "-x", "1" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct bf_opts o = { 0 };
		char err[160] = "";

		EXPECT_EQ(-EINVAL, PARSE(&o, ALL, err, bad[i][0], bad[i][1],
					 bad[i][2])) TH_LOG("%s %s", bad[i][1],
							    bad[i][2]);
		EXPECT_NE(0, (int)strlen(err));
	}
}

TEST(messages)
{
	struct bf_opts o = { 0 };
	char err[160];

	EXPECT_EQ(-EINVAL, PARSE(&o, ALL, err, "d", "--bs"));
	EXPECT_STREQ("option '--bs' needs a value", err);
	EXPECT_EQ(-EINVAL, PARSE(&o, ALL, err, "d", "--json=1"));
	EXPECT_STREQ("option '--json' takes no value", err);
	EXPECT_EQ(-EINVAL, PARSE(&o, ALL, err, "d", "e"));
	EXPECT_STREQ("unexpected argument 'e'", err);
	EXPECT_EQ(-EINVAL, PARSE(&o, ALL, err, "d", "--size", "1Q"));
	EXPECT_STREQ("invalid --size '1Q': expected a size such as 4096, 128KiB, 1.5GB or 8GiB",
		     err);
	EXPECT_EQ(-EINVAL, PARSE(&o, ALL, err, "--json"));
	EXPECT_STREQ("missing argument", err);
}

TEST(options_not_allowed_for_command)
{
	struct bf_opts o = { 0 };
	char err[160];

	EXPECT_EQ(-EINVAL, PARSE(&o, BF_OPT(JSON), err, "d", "--bs", "4k"));
	EXPECT_STREQ("unknown option '--bs'", err);
	EXPECT_EQ(0, PARSE(&o, BF_OPT(JSON), err, "d", "--json"));
}

TEST(double_dash)
{
	struct bf_opts o = { 0 };
	char err[160];

	ASSERT_EQ(0, PARSE(&o, ALL, err, "--", "--weird-name"));
	EXPECT_STREQ("--weird-name", o.pos[0]);
}

/* What a summary and a trace say about the options that change a measurement. */
TEST(flags_named)
{
	char b[BF_FLAGS_LEN];

	EXPECT_STREQ("none", bf_flags_str(b, sizeof(b), 0));
	/* destructive and owner change nothing that is measured */
	EXPECT_STREQ("none", bf_flags_str(b, sizeof(b), BLKFLOOR_F_DESTRUCTIVE |
					  BLKFLOOR_F_OWNER));
	EXPECT_STREQ("fua,no-merge", bf_flags_str(b, sizeof(b), BLKFLOOR_F_FUA |
						  BLKFLOOR_F_NOMERGE));
	EXPECT_STREQ("fua,preflush,no-merge,failfast,no-stats",
		     bf_flags_str(b, sizeof(b), BLKFLOOR_F_MASK));
	/* a short buffer truncates, NUL-terminated */
	bf_flags_str(b, 6, BLKFLOOR_F_MASK);
	EXPECT_STREQ("fua,p", b);
}

TEST(latency_scope_follows_flags)
{
	char b[128];

	bf_latency_scope(b, sizeof(b), 0);
	EXPECT_NE(NULL, strstr(b, "queueing, merging, SCSI retries"));
	bf_latency_scope(b, sizeof(b), BLKFLOOR_F_NOMERGE);
	EXPECT_NE(NULL, strstr(b, "no merging (--no-merge), SCSI retries"));
	bf_latency_scope(b, sizeof(b), BLKFLOOR_F_FAILFAST);
	EXPECT_NE(NULL, strstr(b, "merging, no SCSI retries (--failfast)"));
}

/* sustain --until: floor, full, a size or a duration; a bare number is neither */
TEST(until)
{
	struct bf_opts o = { 0 };
	char err[160] = "";

	ASSERT_EQ(0, PARSE(&o, ALL, err, "/dev/sdb", "--until", "full"));
	EXPECT_EQ(BF_UNTIL_FULL, o.until);
	ASSERT_EQ(0, PARSE(&o, ALL, err, "/dev/sdb", "--until=floor"));
	EXPECT_EQ(BF_UNTIL_FLOOR, o.until);
	ASSERT_EQ(0, PARSE(&o, ALL, err, "/dev/sdb", "--until", "100GB"));
	EXPECT_EQ(BF_UNTIL_SIZE, o.until);
	EXPECT_EQ(100000000000ULL, o.until_bytes);
	ASSERT_EQ(0, PARSE(&o, ALL, err, "/dev/sdb", "--until", "30m"));
	EXPECT_EQ(BF_UNTIL_TIME, o.until);
	EXPECT_EQ(1800000000000ULL, o.until_ns);
	EXPECT_EQ(-EINVAL, PARSE(&o, ALL, err, "/dev/sdb", "--until", "300"));
	EXPECT_NE(NULL, strstr(err, "expected floor, full")) TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, PARSE(&o, ALL, err, "/dev/sdb", "--until", "0GB"));
	EXPECT_EQ(-EINVAL, PARSE(&o, ALL, err, "/dev/sdb", "--until", "soon"));
	/* not where it was not allowed */
	EXPECT_EQ(-EINVAL, PARSE(&o, BF_OPT(SIZE), err, "/dev/sdb", "--until",
				 "full"));
	ASSERT_EQ(0, PARSE(&o, ALL, err, "/dev/sdb", "--diagnose", "--trim"));
	EXPECT_TRUE(o.diagnose);
	EXPECT_TRUE(o.trim);
}

/* diagnose --gaps: growing idle gaps */
TEST(gaps)
{
	struct bf_opts o = { 0 };
	char err[160] = "";

	ASSERT_EQ(0, PARSE(&o, ALL, err, "/dev/sdb", "--gaps", "500ms,2s,1m"));
	ASSERT_EQ(3U, o.ngaps);
	EXPECT_EQ(0.5, o.gaps_s[0]);
	EXPECT_EQ(2, o.gaps_s[1]);
	EXPECT_EQ(60, o.gaps_s[2]);
	/* one gap, not growing, zero, too many, junk */
	EXPECT_EQ(-EINVAL, PARSE(&o, ALL, err, "/dev/sdb", "--gaps", "10s"));
	EXPECT_EQ(-EINVAL, PARSE(&o, ALL, err, "/dev/sdb", "--gaps", "10s,5s"));
	EXPECT_EQ(-EINVAL, PARSE(&o, ALL, err, "/dev/sdb", "--gaps", "0s,5s"));
	EXPECT_EQ(-EINVAL, PARSE(&o, ALL, err, "/dev/sdb", "--gaps",
				 "1s,2s,3s,4s,5s,6s,7s"));
	EXPECT_EQ(-EINVAL, PARSE(&o, ALL, err, "/dev/sdb", "--gaps", "1s,,x"));
	EXPECT_NE(NULL, strstr(err, "growing durations")) TH_LOG("%s", err);
}

TEST_HARNESS_MAIN
