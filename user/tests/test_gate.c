// SPDX-License-Identifier: GPL-2.0
/*
 * compare as a gate for a kernel change: latency, errors, failed and cut
 * traces, runs that are not comparable, several runs per side, the exit
 * codes (0 no regression, 1 regression, 2 bad input, 3 inconclusive) and
 * the email and JSON forms. The traces are synthetic, written as blkfloor
 * writes them: 40 one-second intervals with 3 % noise.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#include "blkfloor.h"
#include "cmdtrace.h"
#include "trace.h"

static int run(const char *out, const char *const *args)
{
	return run_cmd("compare", out, args);
}

struct files {
	char dir[64], a[6][96], b[6][96], out[96];
};

static void files_init(struct files *self)
{
	char dir[sizeof(self->dir)] = "/tmp/bf-gate-XXXXXX";
	int i;

	/* (from a local copy: with ASan, gcc cannot tell self->dir from
	 * self->a[i] and warns they may overlap, -Wrestrict) */
	if (!mkdtemp(dir))
		abort();
	memcpy(self->dir, dir, sizeof(dir));
	for (i = 0; i < 6; i++) {
		snprintf(self->a[i], sizeof(self->a[i]), "%s/a%d.trace", dir, i);
		snprintf(self->b[i], sizeof(self->b[i]), "%s/b%d.trace", dir, i);
	}
	snprintf(self->out, sizeof(self->out), "%s/out", dir);
}

static void files_done(struct files *self)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", self->dir);
}

static void pair(struct files *self, const struct spec *sa,
		 const struct spec *sb)
{
	write_trace(self->a[0], sa);
	write_trace(self->b[0], sb);
}

#define GATE(name)							\
	static void gate_##name(struct __test_metadata *_metadata,	\
				struct files *self);			\
	TEST(name)							\
	{								\
		struct files f;						\
									\
		files_init(&f);						\
		gate_##name(_metadata, &f);				\
		files_done(&f);						\
	}								\
	static void gate_##name(struct __test_metadata *_metadata,	\
				struct files *self)

GATE(same_configuration_no_regression)
{
	struct spec sb = base;
	const char *args[] = { self->a[0], self->b[0], NULL };

	sb.seed = 2;
	sb.kernel = "6.12.2";
	pair(self, &base, &sb);
	EXPECT_EQ(0, run(self->out, args));
	EXPECT_NE(NULL, strstr(slurp(self->out), "no regression"));
}

/* The case: every interval with errors, p99 ten times A's. */
GATE(errors_and_latency_regress)
{
	struct spec sb = base;
	const char *args[] = { self->a[0], self->b[0], NULL };
	char *o;

	sb.seed = 2;
	sb.errors = 3;
	sb.p99_us = 9000;
	pair(self, &base, &sb);
	EXPECT_EQ(1, run(self->out, args));
	o = slurp(self->out);
	EXPECT_NE(NULL, strstr(o, "p99 ")) TH_LOG("%s", o);
	EXPECT_NE(NULL, strstr(o, "I/O errors 0 -> 120"));
	EXPECT_NE(NULL, strstr(o, "verdict: regression"));
	/* the error log by class */
	EXPECT_NE(NULL, strstr(o, "timeout"));
}

GATE(resets_regress)
{
	struct spec sb = base;
	const char *args[] = { self->a[0], self->b[0], NULL };

	sb.seed = 2;
	sb.resets = 2;
	pair(self, &base, &sb);
	EXPECT_EQ(1, run(self->out, args));
	EXPECT_NE(NULL, strstr(slurp(self->out), "reset 0 -> 2"));
}

/* The setup of each side, from the trace headers. */
GATE(header_shows_setup)
{
	struct spec sb = base;
	const char *args[] = { self->a[0], self->b[0], NULL };
	const char *forced[] = { self->a[0], self->b[0], "--force", NULL };
	char *o;

	sb.seed = 2;
	sb.kernel = "6.13.0-rc1";
	sb.quirks = "0bda:9210:u";
	sb.driver = "usb-storage";
	pair(self, &base, &sb);
	/* a kernel and a quirk: two factors */
	EXPECT_EQ(2, run(self->out, args));
	run(self->out, forced);
	o = slurp(self->out);
	EXPECT_NE(NULL, strstr(o, "6.12.1")) TH_LOG("%s", o);
	EXPECT_NE(NULL, strstr(o, "6.13.0-rc1"));
	/* what is the same on both sides is named, not repeated */
	EXPECT_NE(NULL, strstr(o, "the same on A and B: ")) TH_LOG("%s", o);
	EXPECT_NE(NULL, strstr(o, "VID:PID, bcdDevice, firmware"));
	EXPECT_NE(NULL, strstr(o, "0bda:9210:u"));
	EXPECT_NE(NULL, strstr(o, "usb-storage"));
}

/* A read run against a write run, another block size: refused. */
GATE(not_comparable_refused)
{
	struct spec sb = base;
	const char *args[] = { self->a[0], self->b[0], NULL };
	const char *forced[] = { self->a[0], self->b[0], "--force", NULL };

	sb.seed = 2;
	sb.op = "read";
	sb.bs = 1048576;
	pair(self, &base, &sb);
	EXPECT_EQ(2, run(self->out, args));
	EXPECT_NE(2, run(self->out, forced));
}

GATE(failed_b_regresses)
{
	struct spec sb = base;
	const char *args[] = { self->a[0], self->b[0], NULL };
	char *o;

	sb.seed = 2;
	sb.failed = true;
	pair(self, &base, &sb);
	EXPECT_EQ(1, run(self->out, args));
	o = slurp(self->out);
	EXPECT_NE(NULL, strstr(o, "failed")) TH_LOG("%s", o);
	EXPECT_NE(NULL, strstr(o, "errno -5"));
}

/*
 * A B cut short (its writer killed mid-line, no trailer) is read to its
 * last whole line; it never ended, so it may have hung: inconclusive,
 * never "no regression".
 */
GATE(cut_trace_read_to_last_line)
{
	struct spec sb = base;
	const char *args[] = { self->a[0], self->b[0], NULL };
	char *o;

	sb.seed = 2;
	sb.cut = true;
	pair(self, &base, &sb);
	EXPECT_EQ(3, run(self->out, args));
	o = slurp(self->out);
	EXPECT_NE(NULL, strstr(o, "verdict: inconclusive: a B run never ended"))
		TH_LOG("%s", o);
	EXPECT_NE(NULL, strstr(o, "never ended (no '# state:' line"));
}

GATE(unreadable_is_bad_input)
{
	const char *args[] = { self->a[0], "/nonexistent/b.trace", NULL };
	const char *one[] = { self->a[0], NULL };

	write_trace(self->a[0], &base);
	EXPECT_EQ(2, run(self->out, args));
	EXPECT_EQ(2, run(self->out, one));
}

/* Three runs a side: the spread between runs decides. */
GATE(several_runs)
{
	const char *args[] = { self->a[0], self->a[1], self->a[2], "--",
			       self->b[0], self->b[1], self->b[2], NULL };
	const char *opts[] = { "-a", self->a[0], "-a", self->a[1],
			       "-a", self->a[2], "-b", self->b[0],
			       "-b", self->b[1], "-b", self->b[2], NULL };
	struct spec s = base;
	char *o;
	int i;

	for (i = 0; i < 3; i++) {
		s.seed = 10 + i;
		write_trace(self->a[i], &s);
		s.seed = 20 + i;
		write_trace(self->b[i], &s);
	}
	EXPECT_EQ(0, run(self->out, args));
	EXPECT_EQ(0, run(self->out, opts));
	/* B 20 % slower in every run: a regression */
	s.mbps = 240;
	for (i = 0; i < 3; i++) {
		s.seed = 20 + i;
		write_trace(self->b[i], &s);
	}
	EXPECT_EQ(1, run(self->out, args));
	o = slurp(self->out);
	EXPECT_NE(NULL, strstr(o, "floor")) TH_LOG("%s", o);
	/* B 12 % slower, runs spread 30 %: inconclusive, with runs to settle */
	for (i = 0; i < 3; i++) {
		s = base;
		s.seed = 10 + i;
		s.mbps = 300 * (1 + 0.15 * (i - 1));
		write_trace(self->a[i], &s);
		s.seed = 20 + i;
		s.mbps = 264 * (1 + 0.15 * (1 - i));
		write_trace(self->b[i], &s);
	}
	EXPECT_EQ(3, run(self->out, args));
	o = slurp(self->out);
	EXPECT_NE(NULL, strstr(o, "verdict: inconclusive")) TH_LOG("%s", o);
	EXPECT_NE(NULL, strstr(o, "runs per side would")) TH_LOG("%s", o);
}

GATE(email_within_72_columns)
{
	struct spec sb = base;
	const char *args[] = { self->a[0], self->b[0], "--format", "email",
			       NULL };
	char *o, *line, *nl;

	sb.seed = 2;
	sb.resets = 1;
	sb.errors = 1;
	sb.kernel = "6.13.0-rc1-00042-gdeadbeef1234";
	pair(self, &base, &sb);
	EXPECT_EQ(1, run(self->out, args));
	o = slurp(self->out);
	EXPECT_NE(NULL, strstr(o, "6.13.0-rc1-00042-gdeadbeef1234"));
	EXPECT_NE(NULL, strstr(o, "regression"));
	/* the events say when they came */
	EXPECT_NE(NULL, strstr(o, "reset 1 at 20.5 s")) TH_LOG("%s", o);
	for (line = o; *line; line = nl + 1) {
		nl = strchrnul(line, '\n');
		EXPECT_LE(nl - line, 72) TH_LOG("%.*s", (int)(nl - line), line);
		if (!*nl)
			break;
	}
}

GATE(json_has_schema_and_verdict)
{
	struct spec sb = base;
	const char *args[] = { self->a[0], self->b[0], "--json", NULL };
	char *o;

	sb.seed = 2;
	sb.resets = 1;
	pair(self, &base, &sb);
	EXPECT_EQ(1, run(self->out, args));
	o = slurp(self->out);
	EXPECT_NE(NULL, strstr(o, "\"schema\":")) TH_LOG("%s", o);
	EXPECT_NE(NULL, strstr(o, "\"verdict\":\"regression\""));
	EXPECT_NE(NULL, strstr(o, "\"exit\":1"));
}

/* a write at 300 MB/s for @step s, then at 100 MB/s, 200 s in all */
static void step_trace(const char *path, unsigned int step, uint64_t seed)
{
	FILE *f = fopen(path, "w");
	uint64_t total = 0, st = seed;
	unsigned int i;

	if (!f)
		abort();
	fprintf(f, "%s\n# op: write\n# pattern: seq\n# bs: 131072\n# qd: 32\n%s\n",
		BF_TRACE_MAGIC, BF_TRACE_HEADER);
	for (i = 0; i < 200; i++) {
		double r;
		uint64_t by;

		st = st * 6364136223846793005ULL + 1442695040888963407ULL;
		r = (i < step ? 300 : 100) *
		    (1 + 0.02 * ((double)(st >> 11) / (1ULL << 52) - 1));
		by = (uint64_t)(r * 1e6);
		total += by;
		fprintf(f, "%u,%u.000000,%u.000000,%llu,%llu,0,%.3f,100,300,300,900,1000,2000,%llu,,,,,,,,,\n",
			i, i, i + 1, (unsigned long long)by,
			(unsigned long long)(by / 131072), r,
			(unsigned long long)total);
	}
	fputs("# state: done\n# errno: 0\n# dropped: 0\n", f);
	fclose(f);
}

/* the verdict, the last word of the text row that starts with @name */
static const char *row_verdict(const char *text, const char *name, char *buf,
			       size_t len)
{
	char want[64];
	const char *p, *e, *w;

	snprintf(want, sizeof(want), "\n%s ", name);
	p = strstr(text, want);
	buf[0] = '\0';
	if (!p)
		return buf;
	e = strchrnul(p + 1, '\n');
	for (w = e; w > p && w[-1] != ' '; w--)
		;
	snprintf(buf, len, "%.*s", (int)(e - w), w);
	return buf;
}

/*
 * The mean row is over the bytes every run wrote (A's mean depends on
 * B): the row says so, and JSON has them. A cache 16 times the size is
 * not "same".
 */
GATE(mean_row_and_cache_row_say_what_they_are)
{
	const char *args[] = { self->a[0], self->b[0], NULL };
	const char *jargs[] = { self->a[0], self->b[0], "--json", NULL };
	char *o, v[32];

	step_trace(self->a[0], 5, 1);
	step_trace(self->b[0], 80, 2);
	run(self->out, args);
	o = slurp(self->out);
	EXPECT_NE(NULL, strstr(o, "\nmean MB/s ")) TH_LOG("%s", o);
	EXPECT_NE(NULL, strstr(o, "\n  (each over the first 21.0 GB, the bytes every run wrote)\n"))
		TH_LOG("%s", o);
	EXPECT_STREQ("differs", row_verdict(o, "cache GB", v, sizeof(v)))
		TH_LOG("%s", o);
	run(self->out, jargs);
	o = slurp(self->out);
	EXPECT_NE(NULL, strstr(o, "\"verdict\":\"differs\"")) TH_LOG("%s", o);
	EXPECT_NE(NULL, strstr(o, "\"over_bytes\":209")) TH_LOG("%s", o);
	/* the same cache twice is the same */
	step_trace(self->b[0], 5, 2);
	run(self->out, args);
	o = slurp(self->out);
	EXPECT_STREQ("same", row_verdict(o, "cache GB", v, sizeof(v)))
		TH_LOG("%s", o);
}

TEST_HARNESS_MAIN
