// SPDX-License-Identifier: GPL-2.0
/*
 * The disk's SCSI results from the scsi:scsi_dispatch_cmd_done tracepoint:
 * its lines as trace_pipe prints them on 6.1 and 6.12 (parsed and written
 * back for the trace), and a tracefs that is not there (the run goes on,
 * the reason said).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#include "scsitrace.h"

/* as the event's TP_printk prints it (include/trace/events/scsi.h) */
#define DID_ERROR_LINE \
	"     kworker/0:1H-52      [000] ..s1.    97.123456: scsi_dispatch_cmd_done: host_no=6 channel=0 id=0 lun=0 data_sgl=1 prot_sgl=0 prot_op=SCSI_PROT_NORMAL driver_tag=3 scheduler_tag=-1 cmnd=(WRITE_10 lba=2048 txlen=2048 protect=0 raw=2a 00 00 00 08 00 00 08 00 00) result=(driver=DRIVER_OK host=DID_ERROR message=COMMAND_COMPLETE status=SAM_STAT_GOOD) sense=(key=0x0 asc=0x0 ascq=0x0)"
#define SENSE_LINE \
	"          <idle>-0       [001] d.h2.   102.000001: scsi_dispatch_cmd_done: host_no=2 channel=0 id=0 lun=0 data_sgl=1 prot_sgl=0 prot_op=SCSI_PROT_NORMAL driver_tag=0 scheduler_tag=-1 cmnd=(READ_10 lba=96 txlen=8 protect=0 raw=28 00 00 00 00 60 00 00 08 00) result=(driver=DRIVER_OK host=DID_OK message=COMMAND_COMPLETE status=SAM_STAT_CHECK_CONDITION) sense=(key=0xb asc=0x4b ascq=0x3)"

/* 6.1 (include/trace/events/scsi.h there: no sense) */
#define LINE_6_1 \
	"  kworker/u4:2-40  [001] d.h1.    61.058495: scsi_dispatch_cmd_done: host_no=6 channel=0 id=0 lun=0 data_sgl=8 prot_sgl=0 prot_op=SCSI_PROT_NORMAL driver_tag=12 scheduler_tag=-1 cmnd=(WRITE_10 lba=15872 txlen=512 protect=0 raw=2a 00 00 00 3e 00 00 02 00 00) result=(driver=DRIVER_OK host=DID_OK message=COMMAND_COMPLETE status=SAM_STAT_CHECK_CONDITION)"

TEST(parse)
{
	struct bf_scsires r;
	char buf[200];

	ASSERT_TRUE(bf_scsires_parse(DID_ERROR_LINE, &r));
	EXPECT_LT(97.123455, r.t);
	EXPECT_GT(97.123457, r.t);
	EXPECT_STREQ("WRITE_10", r.opcode);
	EXPECT_TRUE(r.have_lba);
	EXPECT_EQ(2048ull, r.lba);
	EXPECT_STREQ("DID_ERROR", r.host);
	EXPECT_STREQ("SAM_STAT_GOOD", r.status);
	bf_scsires_fmt(buf, sizeof(buf), &r);
	EXPECT_STREQ("WRITE_10 lba=2048 host=DID_ERROR status=SAM_STAT_GOOD sense=0x0/0x0/0x0", buf);

	ASSERT_TRUE(bf_scsires_parse(SENSE_LINE, &r));
	EXPECT_STREQ("SAM_STAT_CHECK_CONDITION", r.status);
	EXPECT_EQ(0xbu, r.key);
	EXPECT_EQ(0x4bu, r.asc);
	EXPECT_EQ(0x3u, r.ascq);
	bf_scsires_fmt(buf, sizeof(buf), &r);
	EXPECT_STREQ("READ_10 lba=96 host=DID_OK status=SAM_STAT_CHECK_CONDITION sense=0xb/0x4b/0x3", buf);

	/* 6.1's event has no sense */
	ASSERT_TRUE(bf_scsires_parse(LINE_6_1, &r));
	EXPECT_FALSE(r.have_sense);
	bf_scsires_fmt(buf, sizeof(buf), &r);
	EXPECT_STREQ("WRITE_10 lba=15872 host=DID_OK status=SAM_STAT_CHECK_CONDITION sense=-", buf);

	/* other events, and lines cut short */
	EXPECT_FALSE(bf_scsires_parse("  <idle>-0 [000] 1.0: scsi_dispatch_cmd_start: host_no=6", &r));
	EXPECT_FALSE(bf_scsires_parse("  <idle>-0 [000] 1.0: scsi_dispatch_cmd_done: host_no=6 channel=0", &r));
	EXPECT_FALSE(bf_scsires_parse("", &r));
}

/* No tracefs to write to: a reason, no instance, the run goes on. */
TEST(no_tracefs)
{
	static const char *const roots[] = { "/nonexistent/tracing", NULL };
	struct bf_scsitrace st;

	EXPECT_EQ(-ENOENT, bf_scsitrace_open(&st, roots, "6:0:0:0"));
	EXPECT_EQ(-1, st.fd);
	EXPECT_STREQ("", st.dir);
	EXPECT_NE(NULL, strstr(st.why, "not recorded: no tracefs to write to (/nonexistent/tracing)"))
		TH_LOG("%s", st.why);
	bf_scsitrace_close(&st);
	EXPECT_EQ(-ENODEV, bf_scsitrace_open(&st, roots, "nvme0n1"));
	EXPECT_NE(NULL, strstr(st.why, "not a SCSI disk"));
}

TEST_HARNESS_MAIN
