// SPDX-License-Identifier: GPL-2.0
/*
 * What a trace says apart from its curve: the setup, latency columns,
 * errors by class, events by kind, the end state; and where a trace cut
 * in the middle of a line stops being whole.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#include "runsum.h"

static const char trace[] =
	"# blkfloor-trace v1\n"
	"# kernel: 6.12.1\n"
	"# usb_id: 0bda:9210\n"
	"# usb_storage_quirks: \n"
	"# region: 0+1048576\n"
	"index,start_s,end_s,bytes,ios,errors,MBps,lat_min_us,lat_mean_us,lat_p50_us,lat_p99_us,lat_p999_us,lat_max_us,bytes_total\n"
	"0,0,1,1000000,8,0,1.000,1,2,3,40,50,60,1000000\n"
	"1,1,2,0,0,2,0.000,0,0,0,0,0,0,1000000\n"
	"# event: 1.5 reset usb 2-2: reset SuperSpeed USB device\n"
	"2,2,3,1000000,8,1,1.000,1,2,4,80,90,100,2000000\n"
	"# event: 2.5 reset again\n"
	"# event: 2.6 bind usb-storage 2-2:1.0\n"
	"# error: 1.200000 write 2048 131072 -5 io 30000.000\n"
	"# error: 1.300000 write 4096 131072 -110 timeout 30000000.000\n"
	"# error: 2.300000 write 8192 131072 -5 io 31000.000\n"
	"# state: failed\n"
	"# errno: -5\n";

TEST(reads_what_the_run_said)
{
	FILE *f = fmemopen((void *)trace, sizeof(trace) - 1, "r");
	struct bf_runsum r;
	char err[128] = "";

	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, bf_runsum_read(f, &r, err, sizeof(err))) TH_LOG("%s", err);
	fclose(f);
	EXPECT_STREQ("6.12.1", r.hdr[BF_RK_KERNEL]);
	EXPECT_STREQ("0bda:9210", r.hdr[BF_RK_USB_ID]);
	EXPECT_STREQ("", r.hdr[BF_RK_QUIRKS]);
	EXPECT_STREQ("0+1048576", r.hdr[BF_RK_REGION]);
	EXPECT_EQ(3ULL, r.intervals);
	EXPECT_EQ(3ULL, r.errors);
	EXPECT_EQ(2ULL, r.err_ivs);
	/* the empty interval has no latency */
	ASSERT_EQ(2U, r.nlat);
	EXPECT_EQ(40, r.lat[BF_RL_P99][0]);
	EXPECT_EQ(100, r.lat[BF_RL_MAX][1]);
	EXPECT_EQ(2ULL, bf_runsum_events(&r, "reset"));
	EXPECT_EQ(1ULL, bf_runsum_events(&r, "bind"));
	EXPECT_EQ(0ULL, bf_runsum_events(&r, "abort"));
	EXPECT_EQ(3ULL, r.logged);
	ASSERT_EQ(2U, r.ncls);
	EXPECT_STREQ("io", r.cls[0].name);
	EXPECT_EQ(2ULL, r.cls[0].n);
	EXPECT_STREQ("timeout", r.cls[1].name);
	/* when: the events, and the intervals with errors (their middle) */
	ASSERT_EQ(5U, r.nmark);
	EXPECT_STREQ("errors", r.mark[0].kind);
	EXPECT_EQ(1.5, r.mark[0].t);
	EXPECT_STREQ("reset", r.mark[1].kind);
	EXPECT_EQ(1.5, r.mark[1].t);
	EXPECT_STREQ("errors", r.mark[2].kind);
	EXPECT_EQ(2.5, r.mark[2].t);
	EXPECT_STREQ("bind", r.mark[4].kind);
	EXPECT_EQ(2.6, r.mark[4].t);
	EXPECT_STREQ("failed", r.state);
	EXPECT_EQ(-5, r.err_no);
	bf_runsum_free(&r);
}

TEST(bad_latency)
{
	static const char t[] = "# blkfloor-trace v1\n"
		"index,start_s,end_s,ios,errors,lat_p99_us\n"
		"0,0,1,5,0,1e\n";
	FILE *f = fmemopen((void *)t, sizeof(t) - 1, "r");
	struct bf_runsum r;
	char err[128] = "";

	ASSERT_NE(NULL, f);
	EXPECT_EQ(-EINVAL, bf_runsum_read(f, &r, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "lat_p99_us"));
	fclose(f);
}

TEST(whole_lines)
{
	static const char cut[] = "a\nbb\n12,3.00";

	EXPECT_EQ(5U, bf_whole_lines(cut, sizeof(cut) - 1));
	EXPECT_EQ(5U, bf_whole_lines(cut, 5));
	EXPECT_EQ(2U, bf_whole_lines(cut, 4));
	EXPECT_EQ(0U, bf_whole_lines("no newline", 10));
}

/*
 * What tells boots and builds apart (header) and what the run's end says
 * about its latency and its host (trailer).
 */
TEST(boot_modules_latency_host)
{
	static const char t[] =
		"# blkfloor-trace v1\n"
		"# boot_id: 2a1c1e44-0c4c-4d1e-9a8e-6b1f0f6b7a01\n"
		"# kernel_tainted: 12288\n"
		"# path_modules: sd_mod 5f0e8a1c2b3d, uas 785d29ef2fe1 OE\n"
		"index,start_s,end_s,bytes,ios,errors,MBps,lat_min_us,lat_mean_us,lat_p50_us,lat_p99_us,lat_p999_us,lat_max_us,bytes_total\n"
		"0,0,1,1000000,8,0,1.000,1,2,3,40,50,60,1000000\n"
		"# run_latency_us: p50=3.000 p99=41.000 p999=52.000 max=60.000 ios=8\n"
		"# host_cpu: steal_pct=12.5 thread_cpu_s=0.250 thread_wait_s=0.010 run_s=1.000\n"
		"# state: done\n";
	FILE *f = fmemopen((void *)t, sizeof(t) - 1, "r");
	struct bf_runsum r;
	char err[128] = "";

	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, bf_runsum_read(f, &r, err, sizeof(err))) TH_LOG("%s", err);
	fclose(f);
	EXPECT_STREQ("2a1c1e44-0c4c-4d1e-9a8e-6b1f0f6b7a01", r.hdr[BF_RK_BOOT_ID]);
	EXPECT_STREQ("12288", r.hdr[BF_RK_TAINTED]);
	EXPECT_STREQ("sd_mod 5f0e8a1c2b3d, uas 785d29ef2fe1 OE",
		     r.modules);
	ASSERT_TRUE(r.have_run_lat);
	EXPECT_EQ(3, r.run_lat[BF_RL_P50]);
	EXPECT_EQ(52, r.run_lat[BF_RL_P999]);
	EXPECT_EQ(12.5, r.steal_pct);
	EXPECT_EQ(0.25, r.thread_cpu_s);
	EXPECT_EQ(0.01, r.thread_wait_s);
	EXPECT_EQ(1, r.run_s);
	EXPECT_EQ(8, r.ios[0]);
	bf_runsum_free(&r);
}

/*
 * The disk's SCSI results (from the tracepoint) and the kernel log's lines
 * about them: how they were recorded, the first few of each, and all of
 * them counted.
 */
TEST(scsi_results)
{
	static const char t[] =
		"# blkfloor-trace v1\n"
		"# scsi_results: scsi:scsi_dispatch_cmd_done, results other than 0 (/sys/kernel/debug/tracing)\n"
		"index,start_s,end_s,bytes,ios,errors,MBps,lat_min_us,lat_mean_us,lat_p50_us,lat_p99_us,lat_p999_us,lat_max_us,bytes_total\n"
		"0,0,1,1000000,8,0,1.000,1,2,3,40,50,60,1000000\n"
		"# scsi_result: 0.500000 WRITE_10 lba=2048 host=DID_ERROR status=SAM_STAT_GOOD sense=0x0/0x0/0x0\n"
		"# kmsg: 0.500100 sd 6:0:0:0: [sda] tag#5 Done: NEEDS_RETRY Result: hostbyte=DID_ERROR driverbyte=DRIVER_OK cmd_age=0s\n"
		"# scsi_result: 0.700000 WRITE_10 lba=4096 host=DID_ERROR status=SAM_STAT_GOOD sense=0x0/0x0/0x0\n"
		"# scsi_result: 0.800000 WRITE_10 lba=6144 host=DID_ERROR status=SAM_STAT_GOOD sense=0x0/0x0/0x0\n"
		"# scsi_result: 0.900000 WRITE_10 lba=8192 host=DID_ERROR status=SAM_STAT_GOOD sense=0x0/0x0/0x0\n"
		"# scsi_result: 0.950000 WRITE_10 lba=9216 host=DID_ERROR status=SAM_STAT_GOOD sense=0x0/0x0/0x0\n"
		"# state: done\n";
	FILE *f = fmemopen((void *)t, sizeof(t) - 1, "r");
	struct bf_runsum r;
	char err[128] = "";

	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, bf_runsum_read(f, &r, err, sizeof(err))) TH_LOG("%s", err);
	fclose(f);
	EXPECT_STREQ("scsi:scsi_dispatch_cmd_done, results other than 0 (/sys/kernel/debug/tracing)",
		     r.hdr[BF_RK_SCSI_RESULTS]);
	EXPECT_EQ(5ull, r.scsi_res_all);
	ASSERT_EQ((size_t)BF_RS_NOTES, r.nscsi_res);
	EXPECT_EQ(0.5, r.scsi_res[0].t);
	EXPECT_EQ(0.9, r.scsi_res[3].t);
	EXPECT_STREQ("WRITE_10 lba=2048 host=DID_ERROR status=SAM_STAT_GOOD sense=0x0/0x0/0x0",
		     r.scsi_res[0].text);
	ASSERT_EQ((size_t)1, r.nkmsg);
	EXPECT_EQ(0.5001, r.kmsg[0].t);
	EXPECT_STREQ("sd 6:0:0:0: [sda] tag#5 Done: NEEDS_RETRY Result: hostbyte=DID_ERROR driverbyte=DRIVER_OK cmd_age=0s",
		     r.kmsg[0].text);
	bf_runsum_free(&r);
}

TEST_HARNESS_MAIN
