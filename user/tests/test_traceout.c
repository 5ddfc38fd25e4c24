// SPDX-License-Identifier: GPL-2.0
/*
 * The incremental trace: the line formats (interval, gap, trailer), the
 * preflight's size estimate, the scan that finds where a killed writer
 * stopped, and resuming such a file.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#include "evidence.h"
#include "run.h"
#include "trace.h"
#include "traceout.h"

static void iv_fill(struct bf_iv *iv, uint32_t i)
{
	memset(iv, 0, sizeof(*iv));
	iv->index = i;
	iv->start_ns = i * 1000000ULL;
	iv->end_ns = (i + 1) * 1000000ULL;
	iv->bytes = 131072;
	iv->ios = 1;
	iv->lat_min = iv->lat_max = iv->lat_sum = 250000;
	iv->p50 = iv->p99 = iv->p999 = 250000;
	iv->bytes_total = (i + 1) * 131072ULL;
}

TEST(lines)
{
	char buf[BF_TRACE_LINE_MAX];
	struct bf_iv iv;
	size_t n;

	iv_fill(&iv, 41);
	n = bf_trace_fmt_iv(buf, sizeof(buf), &iv);
	EXPECT_STREQ("41,0.041000,0.042000,131072,1,0,131.072,250.000,250.000,250.000,250.000,250.000,250.000,5505024,,,,,,,,,\n",
		     buf);
	EXPECT_EQ(strlen(buf), n);
	/* with the path figures sampled live */
	iv.have_path = true;
	iv.path = (struct bf_pathiv){ .requests = 2, .req_per_bio = 2,
		.req_bytes = 65536, .merges = 0, .util = 0.5, .in_flight = 1,
		.scsi = true, .scsi_err = 0, .scsi_tmo = 1, .temp = true,
		.temp_c = 47.25 };
	bf_trace_fmt_iv(buf, sizeof(buf), &iv);
	EXPECT_STREQ("41,0.041000,0.042000,131072,1,0,131.072,250.000,250.000,250.000,250.000,250.000,250.000,5505024,2,2.000,64.0,0,0.500,1,0,1,47.2\n",
		     buf);
	/* no SCSI counters, no sensor: those columns are empty */
	iv.path.scsi = false;
	iv.path.temp = false;
	bf_trace_fmt_iv(buf, sizeof(buf), &iv);
	EXPECT_STREQ("41,0.041000,0.042000,131072,1,0,131.072,250.000,250.000,250.000,250.000,250.000,250.000,5505024,2,2.000,64.0,0,0.500,1,,,\n",
		     buf);
	/* an event is one line whatever its message holds */
	n = bf_trace_fmt_event(buf, sizeof(buf), 12.5, "reset",
			       "usb 2-1: reset\n SUBSYSTEM=usb", 14);
	EXPECT_STREQ("# event: 12.500000 reset usb 2-1: reset\n", buf);
	EXPECT_EQ(strlen(buf), n);
	n = bf_trace_fmt_event(buf, sizeof(buf), 1, "abort", "a\tb", 3);
	EXPECT_STREQ("# event: 1.000000 abort a b\n", buf);
	/* the longest interval line still fits */
	memset(&iv, 0xff, sizeof(iv));
	/* (a bool holds 0 or 1: 0xff in one is undefined behaviour) */
	iv.have = iv.have_path = iv.path.scsi = iv.path.temp = true;
	iv.start_ns = 0;
	n = bf_trace_fmt_iv(buf, sizeof(buf), &iv);
	EXPECT_EQ('\n', buf[n - 1]);
	EXPECT_LT(n, sizeof(buf) - 1);
	n = bf_trace_fmt_gap(buf, sizeof(buf), 120, 375);
	EXPECT_STREQ("# gap: 120-375\n", buf);
	EXPECT_EQ(15U, n);
	bf_trace_fmt_end(buf, sizeof(buf), "done", 0, 256);
	EXPECT_STREQ("# state: done\n# errno: 0\n# dropped: 256\n", buf);
}

TEST(expect)
{
	/* a 60 s run of 1 ms intervals */
	EXPECT_EQ(60001U, bf_trace_expect_intervals(0, 60000000000ULL, 1000000));
	/* 600 GB at the 10 MB/s planning rate, 1 s intervals: 60001 */
	EXPECT_EQ(60001U, bf_trace_expect_intervals(600000000000ULL, 0, 0));
	/* both limits: the smaller */
	EXPECT_EQ(11U, bf_trace_expect_intervals(600000000000ULL,
						 10000000000ULL, 0));
	EXPECT_EQ(0U, bf_trace_expect_intervals(0, 0, 1000000));
	/* ~160 bytes a line and a header: 10^6 intervals need ~160 MB */
	EXPECT_GT(bf_trace_expect_bytes(1000000), 160000000ULL);
	EXPECT_LT(bf_trace_expect_bytes(1000000), 161000000ULL);
	EXPECT_GT(bf_trace_expect_bytes(0), 0U);
}

static void scan_str(struct bf_trace_scan *s, const char *text)
{
	const char *p = text, *nl;

	bf_trace_scan_init(s);
	while (*p) {
		nl = strchr(p, '\n');
		if (!nl) {
			bf_trace_scan_line(s, p, strlen(p), false);
			break;
		}
		bf_trace_scan_line(s, p, (size_t)(nl - p + 1), true);
		p = nl + 1;
	}
}

#define HDR BF_TRACE_MAGIC "\n# device: /dev/x\n# run_id: 7\n" \
	BF_TRACE_HEADER "\n"

TEST(scan)
{
	struct bf_trace_scan s;
	const char *cut = HDR "0,0,1,1,1,0,1,1,1,1,1,1,1,1\n"
			  "# gap: 1-4\n"
			  "5,5,6,1,1,0,1,1,1,1,1,1,1,2\n"
			  "6,6,7,1,1,0";

	scan_str(&s, cut);
	EXPECT_TRUE(s.magic);
	EXPECT_TRUE(s.header);
	EXPECT_FALSE(s.ended);
	EXPECT_FALSE(s.bad);
	EXPECT_TRUE(s.have_last);
	EXPECT_EQ(5U, s.last);
	EXPECT_EQ(7U, s.run_id);
	EXPECT_EQ(4U, s.gap_ivs);
	/* the cut line is not part of it */
	EXPECT_EQ(strlen(cut) - strlen("6,6,7,1,1,0"), s.good_len);

	scan_str(&s, HDR "0,0,1,1,1,0,1,1,1,1,1,1,1,1\n# state: done\n");
	EXPECT_TRUE(s.ended);
	/* only a header: resume from 0 */
	scan_str(&s, HDR);
	EXPECT_FALSE(s.have_last);
	EXPECT_TRUE(s.header);
	/* not a trace */
	scan_str(&s, "time,MBps\n1,2\n");
	EXPECT_FALSE(s.magic);
	scan_str(&s, HDR "garbage\n");
	EXPECT_TRUE(s.bad);
}

static char *slurp(const char *path)
{
	static char buf[8192];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static void put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd >= 0) {
		if (write(fd, text, strlen(text)) < 0)
			abort();
		close(fd);
	}
}

/* A file a killed writer left: resumed after its last whole line. */
TEST(resume)
{
	char path[] = "/tmp/bf-traceout-XXXXXX";
	struct bf_run_info ri = { 0 };
	struct bf_tracer t;
	struct bf_iv iv;
	uint64_t next = 99;
	int fd = mkstemp(path);

	ASSERT_LE(0, fd);
	close(fd);
	put(path, HDR "0,0,1,1,1,0,1,1,1,1,1,1,1,1\n1,1,2,1,1,0,1,1,1,1,1,1,1,2\n2,2,3,1");
	ASSERT_EQ(0, bf_tracer_resume(&t, path, 7, 0, &next));
	EXPECT_EQ(2U, next);
	EXPECT_TRUE(t.header_done);
	iv_fill(&iv, 2);
	bf_tracer_iv(&t, &iv);
	bf_tracer_gap(&t, 3, 9);
	ri.state = BLKFLOOR_STATE_DONE;
	bf_tracer_end(&t, &ri, 7);
	EXPECT_EQ(0, bf_tracer_close(&t));
	EXPECT_STREQ(HDR "0,0,1,1,1,0,1,1,1,1,1,1,1,1\n1,1,2,1,1,0,1,1,1,1,1,1,1,2\n"
		     "2,0.002000,0.003000,131072,1,0,131.072,250.000,250.000,250.000,250.000,250.000,250.000,393216,,,,,,,,,\n"
		     "# gap: 3-9\n# state: done\n# errno: 0\n# dropped: 7\n",
		     slurp(path));
	/* complete now: refused */
	EXPECT_NE(0, bf_tracer_resume(&t, path, 7, 0, &next));
	/* another run's trace: refused, untouched */
	put(path, HDR "0,0,1,1,1,0,1,1,1,1,1,1,1,1\n");
	EXPECT_NE(0, bf_tracer_resume(&t, path, 8, 0, &next));
	EXPECT_STREQ(HDR "0,0,1,1,1,0,1,1,1,1,1,1,1,1\n", slurp(path));
	unlink(path);
}

/* The preflight: exclusive, --force, a directory that does not exist. */
TEST(create)
{
	char dir[] = "/tmp/bf-traceout-XXXXXX", path[64];
	struct bf_tracer t, t2;
	uint64_t next;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t", dir);
	ASSERT_EQ(0, bf_tracer_create(&t, path, false, 4096, 0));
	bf_tracer_discard(&t);		/* nothing ran: removed */
	EXPECT_NE(0, access(path, F_OK));
	put(path, "keep\n");
	EXPECT_EQ(-EEXIST, bf_tracer_create(&t, path, false, 4096, 0));
	EXPECT_STREQ("keep\n", slurp(path));
	/* a refused --force of an existing file leaves it in place */
	EXPECT_EQ(-ENOSPC, bf_tracer_create(&t, path, true, UINT64_MAX / 2, 0));
	EXPECT_STREQ("keep\n", slurp(path));
	ASSERT_EQ(0, bf_tracer_create(&t, path, true, 4096, 0));
	/* attach cannot append while the first writer writes */
	EXPECT_EQ(-EBUSY, bf_tracer_resume(&t2, path, 7, 0, &next));
	EXPECT_EQ(0, bf_tracer_close(&t));
	EXPECT_STREQ("", slurp(path));
	unlink(path);
	snprintf(path, sizeof(path), "%s/none/t", dir);
	EXPECT_EQ(-ENOENT, bf_tracer_create(&t, path, false, 4096, 0));
	rmdir(dir);
}

/* A series keeps the trace of its last run: each run starts the file over. */
TEST(start_over)
{
	char dir[] = "/tmp/bf-traceout-XXXXXX", path[64];
	struct bf_run_info ri = { 0 };
	struct bf_tracer t;
	struct bf_iv iv;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t", dir);
	ASSERT_EQ(0, bf_tracer_create(&t, path, false, 4096, 0));
	t.header_done = true;		/* (the header needs the kernel) */
	iv_fill(&iv, 0);
	bf_tracer_iv(&t, &iv);
	ri.state = BLKFLOOR_STATE_DONE;
	bf_tracer_end(&t, &ri, 0);
	EXPECT_TRUE(t.ended);
	ASSERT_EQ(0, bf_tracer_rewind(&t));
	EXPECT_FALSE(t.header_done);
	EXPECT_FALSE(t.ended);
	EXPECT_EQ(0U, t.off);
	iv_fill(&iv, 1);
	bf_tracer_iv(&t, &iv);
	ri.state = BLKFLOOR_STATE_STOPPED;
	bf_tracer_end(&t, &ri, 0);
	EXPECT_EQ(0, bf_tracer_close(&t));
	EXPECT_STREQ("1,0.001000,0.002000,131072,1,0,131.072,250.000,250.000,250.000,250.000,250.000,250.000,262144,,,,,,,,,\n"
		     "# state: stopped\n# errno: 0\n# dropped: 0\n",
		     slurp(path));
	unlink(path);
	rmdir(dir);
}

/* # KEY: TEXT notes (stop, experiment): one line each, newlines flattened */
TEST(note)
{
	struct bf_tracer t;
	char buf[256] = "";
	int fd[2];
	ssize_t n;

	ASSERT_EQ(0, pipe(fd));
	bf_tracer_fd(&t, fd[1], "pipe");
	bf_tracer_note(&t, "experiment", "idle-recovery: 10 s\nthen 5 GB");
	bf_tracer_note(&t, "stop", "wrote 1 GB");
	close(fd[1]);
	n = read(fd[0], buf, sizeof(buf) - 1);
	close(fd[0]);
	ASSERT_GT(n, 0);
	EXPECT_STREQ("# experiment: idle-recovery: 10 s then 5 GB\n# stop: wrote 1 GB\n",
		     buf);
}

/*
 * An experiment's outcome, as diagnose notes it (cmd_run.c), comes back
 * whole from the trace however long its words: classify reads the
 * verdict's evidence from these lines. (A note was cut at
 * BF_TRACE_LINE_MAX, 384 bytes, and an idle-recovery result with its
 * list of gaps can be longer.)
 */
TEST(evidence_note_whole)
{
	struct bf_evidence e = {
		.kind = BF_EXP_COOL_DOWN, .supports = -1,
		.bytes = 1e15, .secs = 123456.789,
	}, back;
	static char buf[4096];
	char line[4096];
	struct bf_tracer t;
	size_t i, len;
	int fd[2];
	ssize_t n;

	/* the longest result the struct holds, its end marked */
	for (i = 0; i < sizeof(e.result) - 1; i++)
		e.result[i] = 'a' + i % 26;
	memcpy(e.result + sizeof(e.result) - 4, "END", 4);
	bf_evidence_line(&e, line, sizeof(line));
	len = strlen(line);
	ASSERT_LT(len, (size_t)BF_EVIDENCE_LINE_MAX);
	ASSERT_EQ(0, pipe(fd));
	bf_tracer_fd(&t, fd[1], "pipe");
	bf_tracer_note(&t, "experiment", line);
	close(fd[1]);
	n = read(fd[0], buf, sizeof(buf) - 1);
	close(fd[0]);
	ASSERT_EQ((ssize_t)(len + strlen("# experiment: \n")), n);
	ASSERT_EQ('\n', buf[n - 1]);
	buf[n - 1] = '\0';
	ASSERT_TRUE(bf_evidence_parse(buf + strlen("# experiment: "), &back));
	EXPECT_STREQ(e.result, back.result);
	EXPECT_EQ(e.bytes, back.bytes);
}

TEST_HARNESS_MAIN
