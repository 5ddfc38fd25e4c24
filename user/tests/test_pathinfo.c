// SPDX-License-Identifier: GPL-2.0
/*
 * The path figures, read from a fake sysfs tree shaped like a UAS disk's in
 * a 6.12 guest (class/block symlinks into devices/), and the kernel-log
 * lines uas.c, usb core, the SCSI midlayer and the block layer print.
 */
#include <stdlib.h>
#include <string.h>

/* the harness and its fixture macros define functions without prototypes */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#include "pathinfo.h"
#include "pathmon.h"
#include "faketree.h"

#define USB "devices/pci0000:00/0000:00:04.0/usb2/2-1"
#define DISK USB "/2-1:1.0/host2/target2:0:0/2:0:0:0"
#define BLK DISK "/block/sdb"

static const char *const tree =
	"mkdir -p " BLK "/queue class/block class/scsi_host/host2 "
	DISK "/hwmon/hwmon3 module/usb_storage/parameters &&"
	"printf 'uas\\n' > class/scsi_host/host2/proc_name &&"
	"ln -s ../../../2:0:0:0 " BLK "/device &&"
	"ln -s ../../" BLK " class/block/sdb &&"
	"printf '0627\\n' > " USB "/idVendor &&"
	"printf '0001\\n' > " USB "/idProduct &&"
	"printf '0000\\n' > " USB "/bcdDevice &&"
	"printf '5000\\n' > " USB "/speed &&"
	"printf ' 3.00\\n' > " USB "/version &&"
	"printf '2.5+\\n' > " DISK "/rev &&"
	"printf '32\\n' > " DISK "/queue_depth &&"
	"printf '0x1f\\n' > " DISK "/iorequest_cnt &&"
	"printf '0x1e\\n' > " DISK "/iodone_cnt &&"
	"printf '0x0\\n' > " DISK "/ioerr_cnt &&"
	"printf '0x1\\n' > " DISK "/iotmo_cnt &&"
	"printf '41000\\n' > " DISK "/hwmon/hwmon3/temp1_input &&"
	"printf '0781:5581:u\\n' > module/usb_storage/parameters/quirks &&"
	"printf '[mq-deadline] none\\n' > " BLK "/queue/scheduler &&"
	"printf 'write back\\n' > " BLK "/queue/write_cache &&"
	"printf '512\\n' > " BLK "/queue/max_sectors_kb &&"
	"printf '512\\n' > " BLK "/queue/max_hw_sectors_kb &&"
	"printf '64\\n' > " BLK "/queue/nr_requests &&"
	"printf '0\\n' > " BLK "/queue/nomerges &&"
	"printf '1\\n' > " BLK "/queue/rotational &&"
	"printf '     100        2     2048       30      200        5   409600"
	"     900        3      700     1000        0        0        0        0"
	"        4       1\\n' > " BLK "/stat";

FAKETREE_FIXTURE(tree)

TEST_F(sysfs, identity)
{
	struct bf_path p;

	ASSERT_EQ(0, bf_path_read(self->sys, "sdb", &p));
	EXPECT_STREQ("sdb", p.disk);
	EXPECT_STREQ("uas", p.driver);
	EXPECT_STREQ("2:0:0:0", p.scsi_id);
	EXPECT_STREQ("2-1", p.usb_port);
	EXPECT_STREQ("5000", p.usb_speed);
	EXPECT_STREQ("3.00", p.usb_version);
	EXPECT_STREQ("0627:0001", p.usb_id);
	EXPECT_STREQ("0000", p.usb_bcd);
	EXPECT_STREQ("0781:5581:u", p.quirks);
	EXPECT_STREQ("2.5+", p.firmware);
	EXPECT_STREQ("mq-deadline", p.scheduler);
	EXPECT_STREQ("write back", p.write_cache);
	EXPECT_EQ(512ull, p.max_sectors_kb);
	EXPECT_EQ(512ull, p.max_hw_sectors_kb);
	EXPECT_EQ(32ull, p.queue_depth);
	EXPECT_EQ(64ull, p.nr_requests);
	EXPECT_EQ(0, p.nomerges);
	EXPECT_EQ(1, p.rotational);
	EXPECT_TRUE(strstr(p.temp_src, "hwmon3/temp1_input") != NULL);
}

TEST_F(sysfs, missing_disk)
{
	struct bf_path p;

	EXPECT_GT(0, bf_path_read(self->sys, "sdz", &p));
}

TEST_F(sysfs, counters)
{
	struct bf_pathstat s;
	struct bf_path p;

	ASSERT_EQ(0, bf_path_read(self->sys, "sdb", &p));
	bf_pathstat_read(self->sys, &p, &s);
	ASSERT_TRUE(s.ok);
	EXPECT_EQ(100ull, s.ios[BF_ST_READ]);
	EXPECT_EQ(200ull, s.ios[BF_ST_WRITE]);
	EXPECT_EQ(409600ull, s.sectors[BF_ST_WRITE]);
	EXPECT_EQ(5ull, s.merges[BF_ST_WRITE]);
	EXPECT_EQ(3ull, s.in_flight);
	EXPECT_EQ(700ull, s.io_ticks_ms);
	EXPECT_EQ(4ull, s.ios[BF_ST_FLUSH]);
	ASSERT_TRUE(s.scsi);
	EXPECT_EQ(31ull, s.scsi_req);	/* hex, as the midlayer prints it */
	EXPECT_EQ(30ull, s.scsi_done);
	EXPECT_EQ(1ull, s.scsi_tmo);
	ASSERT_TRUE(s.temp);
	EXPECT_EQ(41000ll, s.temp_mc);
}

/* The path read again: what changed, and on which side. */
TEST(path_diff)
{
	struct bf_path a = { .disk = "sdb", .driver = "uas", .usb_speed = "5000",
			     .usb_version = "3.20", .usb_id = "0bda:9210",
			     .max_sectors_kb = 1024, .queue_depth = 31 };
	struct bf_path b = a;
	char w[256];

	EXPECT_EQ(0, bf_path_diff(&a, &b, w, sizeof(w)));
	EXPECT_STREQ("", w);

	/* reset, came back at USB 2 speed behind usb-storage */
	snprintf(b.usb_speed, sizeof(b.usb_speed), "480");
	snprintf(b.usb_version, sizeof(b.usb_version), "2.10");
	snprintf(b.driver, sizeof(b.driver), "usb-storage");
	b.max_sectors_kb = 120;
	EXPECT_EQ(BF_PATH_LINK | BF_PATH_HOST, bf_path_diff(&a, &b, w, sizeof(w)));
	EXPECT_STREQ("driver uas -> usb-storage, usb speed 5000 -> 480 Mb/s, usb version 3.20 -> 2.10, max_sectors_kb 1024 -> 120", w);

	/* only the host's limit */
	b = a;
	b.max_sectors_kb = 64;
	EXPECT_EQ(BF_PATH_HOST, bf_path_diff(&a, &b, w, sizeof(w)));
	EXPECT_STREQ("max_sectors_kb 1024 -> 64", w);

	/* an NVMe link trained down */
	b = a;
	snprintf(a.pcie_link, sizeof(a.pcie_link), "8.0 GT/s PCIe x4");
	snprintf(b.pcie_link, sizeof(b.pcie_link), "2.5 GT/s PCIe x4");
	EXPECT_EQ(BF_PATH_LINK, bf_path_diff(&a, &b, w, sizeof(w)));
	EXPECT_STREQ("pcie link 8.0 GT/s PCIe x4 -> 2.5 GT/s PCIe x4", w);

	/* a short buffer is cut, the answer is whole */
	EXPECT_EQ(BF_PATH_LINK, bf_path_diff(&a, &b, w, 8));
	EXPECT_EQ(7u, strlen(w));
	EXPECT_STREQ(bf_event_name(BF_EV_LINK), "link");
	EXPECT_STREQ(bf_event_name(BF_EV_HOST), "host");
}

TEST(stat_line_forms)
{
	struct bf_pathstat s;

	/* 4.18 and older: 11 fields; 5.5 and newer: 17 */
	EXPECT_TRUE(bf_pathstat_parse("1 2 3 4 5 6 7 8 9 10 11\n", &s));
	EXPECT_EQ(5ull, s.ios[BF_ST_WRITE]);
	EXPECT_EQ(0ull, s.ios[BF_ST_DISCARD]);
	EXPECT_TRUE(bf_pathstat_parse(
		"1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17", &s));
	EXPECT_EQ(12ull, s.ios[BF_ST_DISCARD]);
	EXPECT_EQ(16ull, s.ios[BF_ST_FLUSH]);
	EXPECT_FALSE(bf_pathstat_parse("1 2 3", &s));
	EXPECT_FALSE(bf_pathstat_parse("", &s));
	EXPECT_FALSE(bf_pathstat_parse("1 2 3 4 5 6 7 8 9 10 x", &s));
}

TEST(interval_figures)
{
	struct bf_pathstat a = { .ok = true }, b = { .ok = true };
	struct bf_pathiv iv;

	a.ios[BF_ST_WRITE] = 1000;
	b.ios[BF_ST_WRITE] = 1064;	/* 32 bios of 1 MiB split in two */
	a.sectors[BF_ST_WRITE] = 0;
	b.sectors[BF_ST_WRITE] = 32 * 2048;
	b.merges[BF_ST_WRITE] = 3;
	a.io_ticks_ms = 100;
	b.io_ticks_ms = 350;		/* busy 250 of 500 ms */
	b.in_flight = 7;
	a.scsi = b.scsi = true;
	a.scsi_tmo = 2;
	b.scsi_tmo = 3;
	b.temp = true;
	b.temp_mc = 52500;
	bf_pathiv_diff(&a, &b, 500000000ull, 32, &iv);
	EXPECT_EQ(64ull, iv.requests);
	EXPECT_EQ(3ull, iv.merges);
	EXPECT_EQ(7ull, iv.in_flight);
	EXPECT_TRUE(iv.util > 0.499 && iv.util < 0.501);
	EXPECT_TRUE(iv.req_per_bio > 1.999 && iv.req_per_bio < 2.001);
	EXPECT_TRUE(iv.req_bytes > 524287 && iv.req_bytes < 524289);
	EXPECT_EQ(1ull, iv.scsi_tmo);
	EXPECT_TRUE(iv.temp);
	EXPECT_TRUE(iv.temp_c > 52.49 && iv.temp_c < 52.51);

	/* the device was re-created: counters restart, never negative */
	b.ios[BF_ST_WRITE] = 10;
	bf_pathiv_diff(&a, &b, 500000000ull, 0, &iv);
	EXPECT_EQ(0ull, iv.requests);
	EXPECT_EQ(0, iv.req_per_bio);
}

static const struct bf_path uas = {
	.disk = "sdb", .driver = "uas", .scsi_id = "2:0:0:0",
	.usb_port = "2-1",
};

static enum bf_event_kind ev(const char *rec, uint64_t *ts)
{
	const char *msg;

	return bf_kmsg_event(rec, &uas, ts, &msg);
}

TEST(kmsg_events)
{
	static const struct { const char *rec; enum bf_event_kind k; } c[] = {
		{ "6,900,1500000,-;scsi host2: uas_eh_device_reset_handler start",
		  BF_EV_RESET },
		{ "6,901,1500100,-;usb 2-1: reset SuperSpeed USB device number 2 using xhci_hcd\n SUBSYSTEM=usb\n DEVICE=+usb:2-1",
		  BF_EV_RESET },
		{ "6,902,1500200,-;scsi host2: uas_eh_device_reset_handler success",
		  BF_EV_NONE },
		{ "6,903,1500300,-;sd 2:0:0:0: [sdb] tag#3 uas_eh_abort_handler 0 uas-tag 4 inflight: CMD OUT ",
		  BF_EV_ABORT },
		{ "3,904,1500400,-;I/O error, dev sdb, sector 2048 op 0x1:(WRITE) flags 0x0 phys_seg 32 prio class 2",
		  BF_EV_IOERR },
		{ "6,905,1500500,-;usb 2-1: USB disconnect, device number 2",
		  BF_EV_DISCONNECT },
		{ "6,906,1500600,-;sd 2:0:0:0: Device offlined - not ready after error recovery",
		  BF_EV_OFFLINE },
		{ "2,907,1500700,-;EXT4-fs (sdb1): Remounting filesystem read-only",
		  BF_EV_READONLY },
		{ "6,908,1500800,-;sd 2:0:0:0: [sdb] tag#0 timing out command, waited 30s",
		  BF_EV_TIMEOUT },
		{ "6,909,1500900,-;usb-storage 2-1:1.0: USB Mass Storage device detected",
		  BF_EV_BIND },
		{ "6,910,1501000,-;scsi host2: uas", BF_EV_BIND },
		/* seen in a 6.12 guest after SG_SCSI_RESET_HOST on a UAS disk */
		{ "4,477,24553960,-;sd 2:0:0:0: Power-on or device reset occurred\n SUBSYSTEM=scsi\n DEVICE=+scsi:2:0:0:0",
		  BF_EV_RESET },
		/*
		 * a command's sense and CDB, logged with its result: a
		 * device's ABORTED COMMAND, a transport's ACK/NAK timeout,
		 * are not the error handler's abort or a command timing out
		 */
		{ "6,916,1501600,-;sd 2:0:0:0: [sdb] tag#7 Sense Key : Aborted Command [current] ",
		  BF_EV_NONE },
		{ "6,917,1501700,-;sd 2:0:0:0: [sdb] tag#7 Add. Sense: Nak/ack timeout",
		  BF_EV_NONE },
		{ "6,918,1501800,-;sd 2:0:0:0: [sdb] tag#7 CDB: Write(10) 2a 00 00 00 08 00 00 08 00 00",
		  BF_EV_NONE },
		/* other devices, and nothing of interest */
		{ "6,911,1501100,-;usb 2-10: reset high-speed USB device number 5 using xhci_hcd",
		  BF_EV_NONE },
		{ "6,912,1501200,-;sd 3:0:0:0: [sdc] tag#1 uas_eh_abort_handler 0",
		  BF_EV_NONE },
		{ "3,913,1501300,-;I/O error, dev sdbb, sector 0 op 0x0:(READ)",
		  BF_EV_NONE },
		{ "6,914,1501400,-;sd 2:0:0:0: [sdb] 2097152 512-byte logical blocks",
		  BF_EV_NONE },
		{ "6,915,1501500,-;usb 2-1: new SuperSpeed USB device number 3",
		  BF_EV_NONE },
		{ "not a record", BF_EV_NONE },
	};
	uint64_t ts = 0;
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		EXPECT_EQ((int)c[i].k, (int)ev(c[i].rec, &ts)) {
			TH_LOG("record %zu", i);
		}
	EXPECT_EQ((int)BF_EV_RESET, (int)ev(c[0].rec, &ts));
	EXPECT_EQ(1500000ull, ts);
	EXPECT_STREQ("reset", bf_event_name(BF_EV_RESET));
	EXPECT_STREQ("io-error", bf_event_name(BF_EV_IOERR));
}

/*
 * The midlayer's account of a command's result on the path (a failed
 * command, or any with scsi_logging_level set): its lines are kept for
 * compare; other devices' and other lines are not.
 */
TEST(kmsg_scsi_lines)
{
	static const struct { const char *rec; bool scsi; } c[] = {
		{ "6,920,1600000,-;sd 2:0:0:0: [sdb] tag#5 Done: NEEDS_RETRY Result: hostbyte=DID_ERROR driverbyte=DRIVER_OK cmd_age=0s",
		  true },
		{ "3,921,1600100,-;sd 2:0:0:0: [sdb] tag#7 FAILED Result: hostbyte=DID_OK driverbyte=DRIVER_OK cmd_age=0s",
		  true },
		{ "6,922,1600200,-;sd 2:0:0:0: [sdb] tag#7 Sense Key : Aborted Command [current] ",
		  true },
		{ "6,923,1600300,-;sd 2:0:0:0: [sdb] tag#7 Add. Sense: Nak/ack timeout",
		  true },
		{ "6,924,1600400,-;sd 2:0:0:0: [sdb] tag#7 CDB: Write(10) 2a 00 00 00 08 00 00 08 00 00",
		  true },
		{ "6,925,1600500,-;sd 3:0:0:0: [sdc] tag#5 Done: NEEDS_RETRY Result: hostbyte=DID_ERROR driverbyte=DRIVER_OK cmd_age=0s",
		  false },
		{ "6,926,1600600,-;sd 2:0:0:0: [sdb] tag#3 uas_eh_abort_handler 0 uas-tag 4 inflight: CMD OUT ",
		  false },
		{ "not a record", false },
	};
	const char *msg;
	uint64_t ts = 0;
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		EXPECT_EQ(c[i].scsi, bf_kmsg_scsi(c[i].rec, &uas, &ts, &msg)) {
			TH_LOG("record %zu", i);
		}
	EXPECT_TRUE(bf_kmsg_scsi(c[0].rec, &uas, &ts, &msg));
	EXPECT_EQ(1600000ull, ts);
	EXPECT_EQ(0, strncmp(msg, "sd 2:0:0:0: [sdb] tag#5 Done:", 29));
}

TEST(temperature_files)
{
	int64_t mc = 0;

	EXPECT_TRUE(bf_temp_parse("41000\n", &mc));
	EXPECT_EQ(41000ll, mc);
	EXPECT_TRUE(bf_temp_parse("41.5", &mc));	/* degrees */
	EXPECT_EQ(41500ll, mc);
	EXPECT_TRUE(bf_temp_parse("55", &mc));	/* too small for mC */
	EXPECT_EQ(55000ll, mc);
	EXPECT_FALSE(bf_temp_parse("", &mc));
	EXPECT_FALSE(bf_temp_parse("hot", &mc));
	EXPECT_FALSE(bf_temp_parse("nan", &mc));
	EXPECT_FALSE(bf_temp_parse("1e300", &mc));
	EXPECT_FALSE(bf_temp_parse("41000 C", &mc));
}

TEST_HARNESS_MAIN
