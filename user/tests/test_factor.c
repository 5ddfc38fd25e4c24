// SPDX-License-Identifier: GPL-2.0
/*
 * What an A/B varies: the factor under test inferred from the trace
 * headers (or named by --vary), the outcomes a factor brings with it, and
 * the second difference that makes a comparison refuse. One table: each
 * case is the header items that differ from a base setup on each side.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#include "factor.h"

#define MODS	"sd_mod ee90296ae6d8, uas 3beed5a996b4, usb_storage da3a14a7c261, xhci_hcd a969314c3d6d"

/* a UAS enclosure on 6.12, as the rig's traces record it */
static const char *const base =
	"size_bytes=1000204886016|model=Samsung SSD 870|serial=S6PXNG0R|"
	"transport=uas|kernel=6.12.118+deb12-amd64|op=write|pattern=seq|"
	"bs=131072|qd=32|region=0+1000204886016|driver=uas|usb_speed=5000|"
	"usb_id=0bda:9210|usb_bcd_device=f001|usb_storage_quirks=|"
	"firmware=1B6Q|module_version=0.1.0|max_sectors_kb=512|"
	"queue_depth=32|scheduler=mq-deadline|nomerges=0 (merges allowed)|"
	"kernel_tainted=0|path_modules=" MODS;

/* "key=value|key=value|-key": set, or with '-' drop, header items */
static void apply(struct bf_runsum *r, const char *spec)
{
	char buf[1024], *save = NULL, *kv;

	snprintf(buf, sizeof(buf), "%s", spec);
	for (kv = strtok_r(buf, "|", &save); kv; kv = strtok_r(NULL, "|", &save)) {
		bool drop = kv[0] == '-';
		char *eq = strchr(kv, '=');
		const char *key = kv + drop;
		int k;

		if (eq)
			*eq = '\0';
		if (!strcmp(key, "path_modules")) {
			snprintf(r->modules, sizeof(r->modules), "%s",
				 drop ? "" : eq + 1);
			continue;
		}
		for (k = 0; k < BF_RK_COUNT; k++)
			if (!strcmp(key, bf_rkey_name(k)))
				break;
		if (k == BF_RK_COUNT)
			abort();
		if (drop) {
			r->hdr[k][0] = '\0';
			r->have &= ~(1u << k);
		} else {
			snprintf(r->hdr[k], sizeof(r->hdr[k]), "%s", eq + 1);
			r->have |= 1u << k;
		}
	}
}

struct fcase {
	const char *name;
	const char *a, *b;	/* changes to the base; "NOHEADER": a fio log */
	const char *a2;		/* a second A run, or NULL */
	enum bf_factor want;
	int ret;
	enum bf_factor vary;
	const char *has;	/* in what, refused or unknown */
};

#define AUTO	BF_FACTOR_AUTO
#define OLD_K	"kernel=6.1.0-57-amd64"
#define OTHER_MODS "path_modules=sd_mod 1c0ffee00001, uas 1c0ffee00002, usb_storage 1c0ffee00003, xhci_hcd 1c0ffee00004"

static const struct fcase cases[] = {
	{ "nothing differs", "", "", NULL, AUTO, 0, BF_FACTOR_NONE, NULL },
	{ "a kernel", OLD_K, "", NULL, AUTO, 0, BF_FACTOR_KERNEL,
	  "kernel A 6.1.0-57-amd64, B 6.12.118+deb12-amd64" },
	/* a kernel rebuilds its modules, sets queue limits, taints */
	{ "a kernel and what follows from it",
	  OLD_K "|" OTHER_MODS "|max_sectors_kb=240|scheduler=none",
	  "kernel_tainted=12288", NULL, AUTO, 0, BF_FACTOR_KERNEL, "kernel A" },
	/* a kernel A/B on one enclosure refuses another VID:PID */
	{ "a kernel and a VID:PID", OLD_K, "usb_id=152d:0583", NULL, AUTO, 1,
	  AUTO, "more than one factor: kernel (A 6.1.0-57-amd64, B 6.12.118+deb12-amd64), device (VID:PID A 0bda:9210, B 152d:0583)" },
	{ "--vary kernel and a VID:PID", OLD_K, "usb_id=152d:0583", NULL,
	  BF_FACTOR_KERNEL, 1, BF_FACTOR_KERNEL,
	  "--vary kernel, but A and B differ in device (VID:PID A 0bda:9210, B 152d:0583) too" },
	{ "--vary kernel and a serial", OLD_K, "serial=S6PXNG0X", NULL,
	  BF_FACTOR_KERNEL, 1, BF_FACTOR_KERNEL, "device (serial A S6PXNG0R, B S6PXNG0X)" },
	/* enclosure A/B: another bridge, its firmware, link and limits */
	{ "an enclosure", "",
	  "usb_id=152d:0583|model=USB3.1 Storage|serial=DD56419883A4A|usb_bcd_device=3103|firmware=0114|usb_speed=10000|max_sectors_kb=1024",
	  NULL, AUTO, 0, BF_FACTOR_DEVICE, "VID:PID A 0bda:9210, B 152d:0583" },
	{ "an enclosure that is Bulk-Only", "",
	  "usb_id=152d:0583|driver=usb-storage|transport=usb-storage|queue_depth=1",
	  NULL, AUTO, 0, BF_FACTOR_DEVICE, "VID:PID" },
	{ "--vary enclosure", "", "usb_id=152d:0583", NULL, BF_FACTOR_DEVICE,
	  0, BF_FACTOR_DEVICE, "VID:PID A 0bda:9210, B 152d:0583" },
	/* uas against usb-storage on one device: the driver is the factor */
	{ "a driver by quirk", "",
	  "driver=usb-storage|transport=usb-storage|usb_storage_quirks=0bda:9210:u|serial=000000000123|queue_depth=1|max_sectors_kb=240",
	  NULL, AUTO, 0, BF_FACTOR_DRIVER, "usb-storage quirks A (none), B 0bda:9210:u" },
	{ "a driver by blacklist", "", "driver=usb-storage|transport=usb-storage",
	  NULL, AUTO, 0, BF_FACTOR_DRIVER, "driver A uas, B usb-storage" },
	/* a kernel that falls back to usb-storage: its outcome */
	{ "a kernel that falls back", OLD_K,
	  "driver=usb-storage|transport=usb-storage|serial=000000000123",
	  NULL, AUTO, 0, BF_FACTOR_KERNEL, "kernel A" },
	{ "a kernel and a quirk", OLD_K, "usb_storage_quirks=0bda:9210:u|driver=usb-storage",
	  NULL, AUTO, 1, AUTO, "kernel (A 6.1.0-57-amd64, B 6.12.118+deb12-amd64), driver (usb-storage quirks A (none), B 0bda:9210:u)" },
	/* a module swapped within one kernel */
	{ "a module", "",
	  "path_modules=sd_mod ee90296ae6d8, uas d4ef92866917 OE, usb_storage da3a14a7c261, xhci_hcd a969314c3d6d|max_sectors_kb=32|kernel_tainted=12288",
	  NULL, AUTO, 0, BF_FACTOR_MODULE, "uas.ko A 3beed5a996b4, B d4ef92866917 OE" },
	{ "a module loaded on one side only", "",
	  "path_modules=sd_mod ee90296ae6d8, uas 3beed5a996b4, xhci_hcd a969314c3d6d",
	  NULL, AUTO, 0, BF_FACTOR_NONE, NULL },
	{ "a module's taint alone", "",
	  "path_modules=sd_mod ee90296ae6d8, uas 3beed5a996b4 OE, usb_storage da3a14a7c261, xhci_hcd a969314c3d6d",
	  NULL, AUTO, 0, BF_FACTOR_NONE, NULL },
	{ "--vary module and a kernel", OLD_K, "", NULL, BF_FACTOR_MODULE, 1,
	  BF_FACTOR_MODULE, "differ in kernel (A 6.1.0-57-amd64, B 6.12.118+deb12-amd64) too" },
	/* the workload */
	{ "a block size", "", "bs=1048576", NULL, AUTO, 0, BF_FACTOR_BS,
	  "bs A 131072, B 1048576" },
	{ "--vary kernel and a block size", OLD_K, "bs=1048576", NULL,
	  BF_FACTOR_KERNEL, 1, BF_FACTOR_KERNEL, "differ in bs (A 131072, B 1048576) too" },
	{ "an op and a block size", "", "op=read|bs=1048576", NULL, AUTO, 1,
	  AUTO, "op (A write, B read), bs (A 131072, B 1048576)" },
	{ "a region", "", "region=0+1073741824", NULL, AUTO, 0,
	  BF_FACTOR_REGION, "region A 0+1000204886016, B 0+1073741824" },
	/* two whole drives of two sizes: the region follows the device */
	{ "two whole drives", "",
	  "usb_id=152d:0583|size_bytes=2000398934016|region=0+2000398934016",
	  NULL, AUTO, 0, BF_FACTOR_DEVICE, "VID:PID" },
	{ "a link", "", "usb_speed=480", NULL, AUTO, 0, BF_FACTOR_LINK,
	  "link Mb/s A 5000, B 480" },
	{ "a scheduler", "", "scheduler=none", NULL, AUTO, 0, BF_FACTOR_QUEUE,
	  "scheduler A mq-deadline, B none" },
	{ "a bridge firmware", "", "usb_bcd_device=f002", NULL, AUTO, 0,
	  BF_FACTOR_FIRMWARE, "bcdDevice A f001, B f002" },
	{ "a bridge firmware without UAS", "",
	  "usb_bcd_device=f002|driver=usb-storage|transport=usb-storage", NULL,
	  AUTO, 0, BF_FACTOR_FIRMWARE, "bcdDevice" },
	{ "blkfloor.ko", "", "module_version=0.2.0", NULL, AUTO, 0,
	  BF_FACTOR_BLKFLOOR, "blkfloor.ko A 0.1.0, B 0.2.0" },
	/* a side's runs agree on what was set */
	{ "A's runs of two kernels", "", OLD_K, OLD_K, AUTO, 1, AUTO,
	  "A's runs differ among themselves in kernel: 6.12.118+deb12-amd64 (a0) against 6.1.0-57-amd64 (a1)" },
	{ "A's runs at two link speeds", "", OLD_K, "usb_speed=480", AUTO, 0,
	  BF_FACTOR_KERNEL, "kernel A 6.12.118+deb12-amd64, B 6.1.0-57-amd64" },
	/* what a run does not record is not compared */
	{ "an older trace", "", "-usb_id|-path_modules|-serial", NULL, AUTO, 0,
	  BF_FACTOR_NONE, NULL },
	/* a quirk set on one side only: present and empty is not absent */
	{ "an empty quirk against one", "usb_storage_quirks=",
	  "usb_storage_quirks=0bda:9210:u|driver=usb-storage", NULL, AUTO, 0,
	  BF_FACTOR_DRIVER, "quirks" },
	/* a fio log records no setup */
	{ "a fio log", "", "NOHEADER", NULL, AUTO, 0, BF_FACTOR_UNKNOWN,
	  "b0" },
	{ "a fio log, --vary kernel", "", "NOHEADER", NULL, BF_FACTOR_KERNEL,
	  0, BF_FACTOR_KERNEL, "b0" },
};

TEST(table)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct fcase *c = &cases[i];
		struct bf_runsum ra[2], rb;
		struct bf_factor_run a[2] = {
			{ &ra[0], "a0", true }, { &ra[1], "a1", true } };
		struct bf_factor_run b = { &rb, "b0", true };
		struct bf_factor_result res;
		int ret;

		memset(ra, 0, sizeof(ra));
		memset(&rb, 0, sizeof(rb));
		apply(&ra[0], base);
		apply(&ra[0], c->a);
		if (!strcmp(c->b, "NOHEADER")) {
			b.header = false;
		} else {
			apply(&rb, base);
			apply(&rb, c->b);
		}
		if (c->a2) {
			apply(&ra[1], base);
			apply(&ra[1], c->a2);
		}
		ret = bf_factor_check(a, c->a2 ? 2 : 1, &b, 1, c->want, &res);
		EXPECT_EQ(c->ret, ret) TH_LOG("%s: refused '%s'", c->name,
					      res.refused);
		EXPECT_EQ((int)c->vary, (int)res.vary)
			TH_LOG("%s: %s, not %s", c->name,
			       bf_factor_name(res.vary), bf_factor_name(c->vary));
		EXPECT_EQ(c->want == AUTO, res.inferred) TH_LOG("%s", c->name);
		if (c->has) {
			const char *where = ret ? res.refused :
					    res.unknown[0] ? res.unknown : res.what;

			EXPECT_NE(NULL, strstr(where, c->has))
				TH_LOG("%s: '%s' has no '%s'", c->name, where,
				       c->has);
		} else {
			EXPECT_STREQ("", res.what) TH_LOG("%s", c->name);
		}
		if (!ret) {
			EXPECT_STREQ("", res.refused) TH_LOG("%s", c->name);
		} else {
			EXPECT_EQ(NULL, strchr(res.refused, '\n'));
		}
	}
}

TEST(names)
{
	char list[256], *save = NULL, *w;
	enum bf_factor f;

	EXPECT_EQ(0, bf_factor_parse("enclosure", &f));
	EXPECT_EQ((int)BF_FACTOR_DEVICE, (int)f);
	EXPECT_EQ(0, bf_factor_parse("kernel", &f));
	EXPECT_EQ((int)BF_FACTOR_KERNEL, (int)f);
	EXPECT_EQ(-EINVAL, bf_factor_parse("none", &f));
	EXPECT_EQ(-EINVAL, bf_factor_parse("auto", &f));
	EXPECT_EQ(-EINVAL, bf_factor_parse("kernels", &f));
	EXPECT_EQ(-EINVAL, bf_factor_parse(NULL, &f));
	/* every name --vary lists parses */
	snprintf(list, sizeof(list), "%s", bf_factor_names());
	for (w = strtok_r(list, "|", &save); w; w = strtok_r(NULL, "|", &save)) {
		EXPECT_EQ(0, bf_factor_parse(w, &f)) TH_LOG("%s", w);
		EXPECT_STREQ(w, bf_factor_name(f));
	}
}

/* no run on a side */
TEST(empty_side)
{
	struct bf_runsum r;
	struct bf_factor_run a = { &r, "a", true };
	struct bf_factor_result res;

	memset(&r, 0, sizeof(r));
	EXPECT_EQ(2, bf_factor_check(&a, 1, &a, 0, AUTO, &res));
}

TEST_HARNESS_MAIN
