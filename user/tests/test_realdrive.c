// SPDX-License-Identifier: GPL-2.0
/*
 * The real drive of the experiments (realdrive.c), where it needs no
 * device: an idle gap goes into the trace with its time into the traced
 * run, as '# experiment: idle at T s for S s', which runsum reads back
 * for plot.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#include "cli.h"
#include "opts.h"
#include "realdrive.h"
#include "runsum.h"
#include "traceout.h"

TEST(idle_gap_in_the_trace)
{
	char path[] = "/tmp/bf-realdrive-XXXXXX", err[160];
	struct bf_realdrive rd;
	struct bf_runsum rs;
	struct bf_tracer t;
	struct bf_ctx c;
	struct bf_opts o;
	struct bf_drive drv;
	struct timespec now;
	FILE *f;
	int fd;

	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	memset(&c, 0, sizeof(c));
	memset(&o, 0, sizeof(o));
	c.dev = "/dev/null";
	o.quiet = true;
	bf_tracer_fd(&t, fd, path);
	bf_realdrive_init(&rd, &c, &o, 0, 1 << 20, 0, &t, &drv);
	/* the traced run started 100 s ago */
	clock_gettime(CLOCK_REALTIME, &now);
	rd.run_start_ns = (uint64_t)now.tv_sec * 1000000000ULL + now.tv_nsec -
			  100000000000ULL;
	ASSERT_EQ(0, drv.idle(drv.ctx, &(struct bf_trial){ .gap_s = 0.2 }));
	close(fd);

	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	memset(&rs, 0, sizeof(rs));
	ASSERT_EQ(0, bf_runsum_read(f, &rs, err, sizeof(err))) TH_LOG("%s", err);
	fclose(f);
	unlink(path);
	ASSERT_EQ(1U, rs.ngap);
	/* it began 100 s into the run (later on a starved host) */
	EXPECT_GE(rs.gap[0].t, 99.9);
	EXPECT_LT(rs.gap[0].t, 700);
	EXPECT_LT(fabs(rs.gap[0].secs - 0.2), 0.051);
	bf_runsum_free(&rs);
}

TEST_HARNESS_MAIN
