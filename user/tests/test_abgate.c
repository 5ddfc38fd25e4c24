// SPDX-License-Identifier: GPL-2.0
/*
 * compare as the A/B verdict a maintainer bisects with: runs grouped by
 * boot (an unchanged module booted again is no regression), the smallest
 * effect per row and --threshold, the modules' builds on each side,
 * latency from a run's merged histogram, and the report read by a person
 * (cells, events as runs, ms, the legend, setup lines that differ). The
 * traces are synthetic, written as blkfloor writes them (cmdtrace.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the harness and FIXTURE define functions without prototypes */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#include "cmdtrace.h"

#define BOOT1	"11111111-1111-4111-8111-111111111111"
#define BOOT2	"22222222-2222-4222-8222-222222222222"
#define BOOT3	"33333333-3333-4333-8333-333333333333"
#define BOOT4	"44444444-4444-4444-8444-444444444444"
#define MODS_A	"sd_mod 5f0e8a1c2b3d, uas 785d29ef2fe1, usb_storage 0a1b2c3d4e5f"
#define MODS_B	"sd_mod 5f0e8a1c2b3d, uas 9c4417b0aa02 OE, usb_storage 0a1b2c3d4e5f"

FIXTURE(ab) {
	char dir[64], out[96];
	char a[6][96], b[6][96];
	const char *args[24];
	int nargs;
};

FIXTURE_SETUP(ab)
{
	char dir[sizeof(self->dir)] = "/tmp/bf-abgate-XXXXXX";
	int i;

	/* (from a local copy: with ASan, gcc cannot tell self->dir from
	 * self->a[i] and warns they may overlap, -Wrestrict) */
	ASSERT_NE(NULL, mkdtemp(dir));
	memcpy(self->dir, dir, sizeof(dir));
	for (i = 0; i < 6; i++) {
		snprintf(self->a[i], sizeof(self->a[i]), "%s/a%d", dir, i);
		snprintf(self->b[i], sizeof(self->b[i]), "%s/b%d", dir, i);
	}
	snprintf(self->out, sizeof(self->out), "%s/out", dir);
}

FIXTURE_TEARDOWN(ab)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	if (system(cmd))
		TH_LOG("cannot remove %s", self->dir);
}

/* @n runs a side as @sa and @sb describe them, each with its own noise */
static void sides(FIXTURE_DATA(ab) *self, int n, const struct spec *sa,
		  const struct spec *sb)
{
	int i;

	self->nargs = 0;
	for (i = 0; i < n; i++) {
		struct spec s = *sa;

		s.seed = 10 + i;
		write_trace(self->a[i], &s);
		self->args[self->nargs++] = self->a[i];
	}
	self->args[self->nargs++] = "--";
	for (i = 0; i < n; i++) {
		struct spec s = *sb;

		s.seed = 20 + i;
		write_trace(self->b[i], &s);
		self->args[self->nargs++] = self->b[i];
	}
	self->args[self->nargs] = NULL;
}

static void more(FIXTURE_DATA(ab) *self, const char *arg)
{
	self->args[self->nargs++] = arg;
	self->args[self->nargs] = NULL;
}

static int compare(FIXTURE_DATA(ab) *self)
{
	return run_cmd("compare", self->out, self->args);
}

/*
 * The case: an unchanged module rebuilt and booted again read half
 * the rate. One boot per side cannot tell that from a change: inconclusive,
 * and it says why.
 */
TEST_F(ab, one_boot_per_side_is_not_a_regression)
{
	struct spec sa = base, sb = base;
	char *o;

	sa.boot_id = BOOT1;
	sb.boot_id = BOOT2;
	sb.mbps = 150;
	sides(self, 3, &sa, &sb);
	EXPECT_EQ(3, compare(self));
	o = slurp(self->out);
	EXPECT_NE(NULL, strstr(o, "boot")) TH_LOG("%s", o);
	EXPECT_NE(NULL, strstr(o, "verdict: inconclusive")) TH_LOG("%s", o);
}

/* The same runs in one boot (a module swapped in between): a regression. */
TEST_F(ab, one_shared_boot_regresses)
{
	struct spec sa = base, sb = base;

	sa.boot_id = sb.boot_id = BOOT1;
	sb.mbps = 150;
	sides(self, 3, &sa, &sb);
	EXPECT_EQ(1, compare(self));
}

/*
 * Two boots a side: the boots are the units. Boots of one side that differ
 * as much as the sides do: no regression; a change far beyond the spread
 * between boots: a regression.
 */
TEST_F(ab, boots_are_the_units)
{
	struct spec sa = base, sb = base;
	const char *boots_a[] = { BOOT1, BOOT3 }, *boots_b[] = { BOOT2, BOOT4 };
	const double rate_a[] = { 300, 200 };
	const double rate_b[] = { 250, 190 };
	int i;

	self->nargs = 0;
	for (i = 0; i < 4; i++) {
		struct spec s = sa;

		s.seed = 10 + i;
		s.boot_id = boots_a[i / 2];
		s.mbps = (i / 2 ? rate_a[1] : rate_a[0]) + (i % 2);
		write_trace(self->a[i], &s);
		self->args[self->nargs++] = self->a[i];
	}
	self->args[self->nargs++] = "--";
	for (i = 0; i < 4; i++) {
		struct spec s = sb;

		s.seed = 20 + i;
		s.boot_id = boots_b[i / 2];
		s.mbps = (i / 2 ? rate_b[1] : rate_b[0]) + (i % 2);
		write_trace(self->b[i], &s);
		self->args[self->nargs++] = self->b[i];
	}
	self->args[self->nargs] = NULL;
	EXPECT_NE(1, compare(self)) TH_LOG("%s", slurp(self->out));
	/* A's boots close together, B at a third of A in both of its boots */
	for (i = 0; i < 4; i++) {
		struct spec s = sa;

		s.seed = 10 + i;
		s.boot_id = boots_a[i / 2];
		s.mbps = 300 - 10 * (i / 2) + (i % 2);
		write_trace(self->a[i], &s);
	}
	for (i = 0; i < 4; i++) {
		struct spec s = sb;

		s.seed = 20 + i;
		s.boot_id = boots_b[i / 2];
		s.mbps = 100 + 3 * (i / 2) + (i % 2);
		write_trace(self->b[i], &s);
	}
	EXPECT_EQ(1, compare(self)) TH_LOG("%s", slurp(self->out));
}

/* Below the smallest effect (10 % for rates): no regression, however sure. */
TEST_F(ab, smallest_effect_and_threshold)
{
	struct spec sa = base, sb = base;

	sa.noise = sb.noise = 0.005;
	sb.mbps = 282;			/* -6 % */
	sides(self, 3, &sa, &sb);
	EXPECT_EQ(0, compare(self)) TH_LOG("%s", slurp(self->out));
	more(self, "--threshold");
	more(self, "floor=5");
	EXPECT_EQ(1, compare(self)) TH_LOG("%s", slurp(self->out));
	EXPECT_NE(NULL, strstr(slurp(self->out), "floor"));
	self->args[self->nargs - 1] = "nosuchrow=5";
	EXPECT_EQ(2, compare(self));
	self->args[self->nargs - 1] = "floor=-3";
	EXPECT_EQ(2, compare(self));
}

/*
 * A module-only change: the subject and the setup say which module's build
 * differs; the lines that are the same on both sides are not repeated.
 */
TEST_F(ab, modules_that_differ)
{
	struct spec sa = base, sb = base;
	const char *em[] = { "--format", "email", NULL };
	char *o, *first;

	sa.boot_id = sb.boot_id = BOOT1;
	sa.modules = MODS_A;
	sb.modules = MODS_B;
	sides(self, 1, &sa, &sb);
	more(self, em[0]);
	more(self, em[1]);
	compare(self);
	o = slurp(self->out);
	first = strndup(o, strcspn(o, "\n") + 80);
	EXPECT_NE(NULL, strstr(first, "uas 9c4417b0aa02")) TH_LOG("%s", o);
	EXPECT_NE(NULL, strstr(o, "uas.ko       A 785d29ef2fe1\n")) TH_LOG("%s", o);
	EXPECT_NE(NULL, strstr(o, "B 9c4417b0aa02 OE\n")) TH_LOG("%s", o);
	/* sd_mod is the same build on both sides: not a line of its own */
	EXPECT_EQ(NULL, strstr(o, "sd_mod 5f0e8a1c2b3d")) TH_LOG("%s", o);
	/* the kernel is the same: no kernel line in the setup */
	EXPECT_EQ(NULL, strstr(o, "  kernel ")) TH_LOG("%s", o);
	free(first);
}

/* A setup row with a unit: max_sectors_kb is in KiB. */
TEST_F(ab, setup_units)
{
	struct spec sa = base, sb = base;
	char *o;

	sb.bs = 65536;
	sides(self, 1, &sa, &sb);
	more(self, "--force");
	compare(self);
	o = slurp(self->out);
	EXPECT_NE(NULL, strstr(o, "bs bytes")) TH_LOG("%s", o);
}

/*
 * A run's latency is its merged histogram's percentile (the trace's
 * "# run_latency_us:" line), not the median of the intervals' percentiles,
 * and the report says so.
 */
TEST_F(ab, latency_from_the_merged_histogram)
{
	struct spec sa = base, sb = base;
	char *o;

	sa.run_p50_us = 1000;
	sb.run_p50_us = 1000;
	sides(self, 1, &sa, &sb);
	compare(self);
	o = slurp(self->out);
	/* every interval's p50 is 300 us; the run's is 1000 us */
	EXPECT_NE(NULL, strstr(o, "1000")) TH_LOG("%s", o);
	EXPECT_NE(NULL, strstr(o, "merged histogram")) TH_LOG("%s", o);
}

/*
 * Several runs a side, read by a person: an event in one run of three is
 * "in 1 of 3 runs", latency past 10 ms in ms, no t of inf or 2e15, the
 * legend in the email too.
 */
TEST_F(ab, several_runs_readable)
{
	struct spec sa = base, sb = base;
	char *o;

	sa.p99_us = sb.p99_us = 30000;
	sa.noise = sb.noise = 0;
	sides(self, 3, &sa, &sb);
	sb.resets = 1;
	sb.seed = 21;
	write_trace(self->b[1], &sb);
	more(self, "--format");
	more(self, "email");
	EXPECT_EQ(1, compare(self));
	o = slurp(self->out);
	EXPECT_NE(NULL, strstr(o, "reset in 1 of 3 runs")) TH_LOG("%s", o);
	EXPECT_NE(NULL, strstr(o, "p99 latency ms")) TH_LOG("%s", o);
	EXPECT_EQ(NULL, strstr(o, "inf")) TH_LOG("%s", o);
	EXPECT_EQ(NULL, strstr(o, "e+")) TH_LOG("%s", o);
	EXPECT_NE(NULL, strstr(o, "MB/s (10^6 B/s)")) TH_LOG("%s", o);
	EXPECT_EQ(NULL, strstr(o, "0.333")) TH_LOG("%s", o);
}

/*
 * Cells wider than the column (a count over six runs) still stand apart:
 * at least two spaces between the name, A and B.
 */
TEST_F(ab, wide_cells_stand_apart)
{
	struct spec sa = base, sb = base;
	char *o, *l;
	size_t i;

	sb.scsi_err = 20;
	sides(self, 6, &sa, &sb);
	sa.scsi_err = 5;
	write_trace(self->a[0], &sa);
	EXPECT_EQ(1, compare(self));
	o = slurp(self->out);
	l = strstr(o, "\nscsi errors ");
	ASSERT_NE(NULL, l) TH_LOG("%s", o);
	l = strstr(l, "5 in 1/6 runs");
	ASSERT_NE(NULL, l) TH_LOG("%s", o);
	l += strlen("5 in 1/6 runs");
	for (i = 0; l[i] == ' '; i++)
		;
	EXPECT_LE(2U, i) TH_LOG("%s", o);
	EXPECT_EQ(0, strncmp(l + i, "120 in 6/6 runs", 15)) TH_LOG("%s", o);
}

/* Zero spread on both sides: said in words, not as t = inf. */
TEST_F(ab, zero_spread_in_words)
{
	struct spec sa = base, sb = base;
	char *o;

	sa.noise = sb.noise = 0;
	sa.boot_id = sb.boot_id = BOOT1;
	sb.mbps = 150;
	sides(self, 3, &sa, &sb);
	EXPECT_EQ(1, compare(self));
	o = slurp(self->out);
	EXPECT_NE(NULL, strstr(o, "no spread")) TH_LOG("%s", o);
	EXPECT_EQ(NULL, strstr(o, "inf")) TH_LOG("%s", o);
}

/*
 * SCSI errors the midlayer retried, with no I/O error reaching the run:
 * the verdict says they were retried and recovered.
 */
TEST_F(ab, scsi_errors_retried)
{
	struct spec sa = base, sb = base;
	char *o;

	sb.scsi_err = 3;
	sides(self, 3, &sa, &sb);
	EXPECT_EQ(1, compare(self));
	o = slurp(self->out);
	EXPECT_NE(NULL, strstr(o, "scsi errors in 3 of 3 B runs")) TH_LOG("%s", o);
	EXPECT_NE(NULL, strstr(o, "retried and recovered")) TH_LOG("%s", o);
	/* a trace without the results: it says they were not recorded */
	EXPECT_NE(NULL, strstr(o, "    host byte and status: not recorded (no '# scsi_results:' line: an older trace)"))
		TH_LOG("%s", o);
	/*
	 * The first result from the tracepoint, and the kernel log's lines
	 * about it: the host byte, the status, and no driver byte.
	 */
	sb.kmsg = "# scsi_result: 3.210000 WRITE_10 lba=2048 host=DID_ERROR status=SAM_STAT_GOOD sense=0x0/0x0/0x0\n"
		  "# kmsg: 3.210100 sd 6:0:0:0: [sda] tag#5 Done: NEEDS_RETRY Result: hostbyte=DID_ERROR driverbyte=DRIVER_OK cmd_age=0s\n"
		  "# kmsg: 3.210120 sd 6:0:0:0: [sda] tag#5 CDB: Write(10) 2a 00 00 00 08 00 00 08 00 00\n"
		  "# kmsg: 3.210140 sd 6:0:0:0: [sda] tag#5 Sense Key : No Sense [current]\n";
	sides(self, 3, &sa, &sb);
	EXPECT_EQ(1, compare(self));
	o = slurp(self->out);
	EXPECT_NE(NULL, strstr(o, "    the first: WRITE_10 lba=2048 at 3.21 s in "))
		TH_LOG("%s", o);
	EXPECT_NE(NULL, strstr(o, ": host byte DID_ERROR, status SAM_STAT_GOOD, sense 0x0/0x0/0x0 (scsi:scsi_dispatch_cmd_done; since Linux 5.14 a result has no driver byte)"))
		TH_LOG("%s", o);
	EXPECT_NE(NULL, strstr(o, "    kernel log: sd 6:0:0:0: [sda] tag#5 Done: NEEDS_RETRY Result: hostbyte=DID_ERROR driverbyte=DRIVER_OK cmd_age=0s\n"
				  "    kernel log: sd 6:0:0:0: [sda] tag#5 CDB: Write(10)"))
		TH_LOG("%s", o);
	/* the first lines only */
	EXPECT_EQ(NULL, strstr(o, "Sense Key")) TH_LOG("%s", o);
	/* a result without a line in the kernel log: said so */
	sb.kmsg = "# scsi_result: 3.210000 WRITE_10 lba=2048 host=DID_ERROR status=SAM_STAT_GOOD sense=0x0/0x0/0x0\n";
	sides(self, 3, &sa, &sb);
	EXPECT_EQ(1, compare(self));
	o = slurp(self->out);
	EXPECT_NE(NULL, strstr(o, "    kernel log: nothing about it (the SCSI midlayer logs a retried command only with scsi_logging_level set)"))
		TH_LOG("%s", o);
	sb.kmsg = NULL;
	/* and when the run saw I/O errors too, it does not say so */
	sb.errors = 1;
	sides(self, 3, &sa, &sb);
	EXPECT_EQ(1, compare(self));
	EXPECT_EQ(NULL, strstr(slurp(self->out), "retried and recovered"));
}

/*
 * One side starved of CPU (steal time, or its kthread waiting for a CPU)
 * in a boot A and B share: its rates and latency say more about the host
 * than the change. B at half A's rate is then inconclusive, and the
 * verdict says which side was starved and how much; starved on both
 * sides, or on neither, the rule is the usual one.
 */
TEST_F(ab, starved_side_is_named)
{
	static const char fed[] = "steal_pct=0.0 thread_cpu_s=1.9 thread_wait_s=0.02 run_s=2.0";
	static const struct {
		const char *a, *b;	/* "# host_cpu:", none if NULL */
		int exit;
		const char *says;	/* NULL: no side named */
	} t[] = {
		{ NULL, "steal_pct=0.0 thread_cpu_s=1.0 thread_wait_s=0.5 run_s=2.0",
		  3, "B starved of CPU in 3 of 3 runs (steal or waiting for a CPU up to 25 % of the run; A up to 0 %)" },
		{ fed, "steal_pct=40.0 run_s=2.0",
		  3, "B starved of CPU in 3 of 3 runs (steal or waiting for a CPU up to 40 % of the run; A up to 1 %)" },
		{ "steal_pct=30.0 run_s=2.0", fed,
		  3, "A starved of CPU in 3 of 3 runs (steal or waiting for a CPU up to 30 % of the run; B up to 1 %)" },
		{ fed, fed, 1, NULL },
		{ NULL, NULL, 1, NULL },
		{ "steal_pct=30.0 run_s=2.0", "steal_pct=30.0 run_s=2.0", 1, NULL },
	};
	struct spec sa = base, sb = base;
	size_t i;
	char *o;

	sa.boot_id = sb.boot_id = BOOT1;
	sb.mbps = 150;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		sa.host_cpu = t[i].a;
		sb.host_cpu = t[i].b;
		sides(self, 3, &sa, &sb);
		EXPECT_EQ(t[i].exit, compare(self)) TH_LOG("case %zu", i);
		o = slurp(self->out);
		if (t[i].says) {
			EXPECT_NE(NULL, strstr(o, t[i].says)) TH_LOG("case %zu: %s", i, o);
			EXPECT_NE(NULL, strstr(o, "verdict: inconclusive")) TH_LOG("case %zu: %s", i, o);
		} else {
			EXPECT_EQ(NULL, strstr(o, "starved")) TH_LOG("case %zu: %s", i, o);
		}
	}
}

/*
 * What the kernel sent (requests per bio, request size) does not move with
 * the host's load: a split 16 times finer is a regression across single
 * boots, and when B was starved of CPU.
 */
TEST_F(ab, path_rows_are_not_boot_noise)
{
	struct spec sa = base, sb = base;
	char *o;

	sa.boot_id = BOOT1;
	sb.boot_id = BOOT2;
	sa.rpb = 2;
	sb.rpb = 32;
	sb.host_cpu = "steal_pct=0.0 thread_cpu_s=1.0 thread_wait_s=0.5 run_s=2.0";
	sides(self, 3, &sa, &sb);
	EXPECT_EQ(1, compare(self)) TH_LOG("%s", slurp(self->out));
	o = slurp(self->out);
	EXPECT_NE(NULL, strstr(o, "requests/bio 2 -> 32")) TH_LOG("%s", o);
	EXPECT_NE(NULL, strstr(o, "B starved of CPU in 3 of 3 runs")) TH_LOG("%s", o);
}

TEST_HARNESS_MAIN
