// SPDX-License-Identifier: GPL-2.0
/*
 * Transport A/B: the quirks parameter, the sysfs writes that move an
 * interface to usb-storage and back, and the verdict (transport.h).
 */
#include <errno.h>
#include <string.h>

/* the harness and its fixture macros define functions without prototypes */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"
#include "faketree.h"

#include "cmdtrace.h"
#include "transport.h"

TEST(quirks_append_replace_keep_others)
{
	char q[BF_QUIRKS_MAX + 1];

	ASSERT_EQ(0, bf_quirks_with("", 0x0bda, 0x9210, "u", q, sizeof(q)));
	EXPECT_STREQ("0bda:9210:u", q);
	ASSERT_EQ(0, bf_quirks_with("0781:55af:u,0bda:9210:fw\n", 0x0BDA,
				    0x9210, "u", q, sizeof(q)));
	EXPECT_STREQ("0781:55af:u,0bda:9210:u", q);
	ASSERT_EQ(0, bf_quirks_with("0781:55af:u", 0x46f4, 0x0001, "u", q,
				    sizeof(q)));
	EXPECT_STREQ("0781:55af:u,46f4:0001:u", q);
}

TEST(quirks_refused)
{
	char q[BF_QUIRKS_MAX + 1], big[BF_QUIRKS_MAX + 1];
	size_t i;

	EXPECT_EQ(-EINVAL, bf_quirks_with("", 1, 2, "", q, sizeof(q)));
	EXPECT_EQ(-EINVAL, bf_quirks_with("", 1, 2, "u;", q, sizeof(q)));
	EXPECT_EQ(-EINVAL, bf_quirks_with("garbage", 1, 2, "u", q, sizeof(q)));
	EXPECT_EQ(-EINVAL, bf_quirks_with("", 0x10000, 2, "u", q, sizeof(q)));
	/* the kernel's parameter holds 127 characters */
	big[0] = '\0';
	for (i = 0; i < 10; i++)
		strcat(big, i ? ",1111:2222:u" : "1111:2222:u");
	EXPECT_EQ(-E2BIG, bf_quirks_with(big, 0x3333, 0x4444, "u", q,
					 sizeof(q)));
}

static const struct bf_bind_state UAS = {
	.intf = "2-2:1.0", .driver = "uas", .quirks = "0781:55af:u",
	.vid = 0x46f4, .pid = 0x0003,
};

TEST(plan_to_bot_then_back)
{
	struct bf_bind_plan p;

	ASSERT_EQ(0, bf_bind_plan_bot(&UAS, "u", &p));
	ASSERT_EQ(3U, p.n);
	EXPECT_STREQ("module/usb_storage/parameters/quirks", p.w[0].path);
	EXPECT_STREQ("0781:55af:u,46f4:0003:u", p.w[0].value);
	EXPECT_STREQ("bus/usb/drivers/uas/unbind", p.w[1].path);
	EXPECT_STREQ("2-2:1.0", p.w[1].value);
	EXPECT_STREQ("bus/usb/drivers_probe", p.w[2].path);
	EXPECT_STREQ("2-2:1.0", p.w[2].value);
	/* back: the quirks as they were, then away from usb-storage */
	ASSERT_EQ(0, bf_bind_plan_restore(&UAS, "usb-storage", &p));
	ASSERT_EQ(3U, p.n);
	EXPECT_STREQ("0781:55af:u", p.w[0].value);
	EXPECT_STREQ("bus/usb/drivers/usb-storage/unbind", p.w[1].path);
	EXPECT_STREQ("bus/usb/drivers_probe", p.w[2].path);
	/* an interface no driver took: no unbind */
	ASSERT_EQ(0, bf_bind_plan_restore(&UAS, "", &p));
	ASSERT_EQ(2U, p.n);
	EXPECT_STREQ("bus/usb/drivers_probe", p.w[1].path);
}

FAKETREE_FIXTURE(
	"mkdir -p bus/usb/devices/2-2:1.0 bus/usb/devices/2-2 bus/usb/drivers/uas "
	"module/usb_storage/parameters && "
	"echo 46f4 > bus/usb/devices/2-2/idVendor && "
	"echo 0003 > bus/usb/devices/2-2/idProduct && "
	"echo 08 > bus/usb/devices/2-2:1.0/bInterfaceClass && "
	"ln -s ../../drivers/uas bus/usb/devices/2-2:1.0/driver && "
	"echo 0781:55af:u > module/usb_storage/parameters/quirks && "
	": > bus/usb/drivers/uas/unbind && : > bus/usb/drivers_probe && "
	/* QEMU's usb-uas: one interface, UAS (protocol 0x62) only */
	"printf '\\022\\001\\000\\003\\000\\000\\000\\011\\364\\106\\003\\000"
	"\\000\\000\\001\\002\\003\\001"
	"\\011\\002\\025\\000\\001\\001\\000\\300\\000"
	"\\011\\004\\000\\000\\000\\010\\006\\142\\000' "
	"> bus/usb/devices/2-2/descriptors")

TEST_F(sysfs, read_apply_restore)
{
	struct bf_bind_state s, now;
	struct bf_bind_plan p;
	char err[256], path[256], buf[256];
	FILE *f;

	ASSERT_EQ(0, bf_bind_read(self->sys, "2-2:1.0", &s));
	EXPECT_STREQ("uas", s.driver);
	EXPECT_EQ(0x46f4U, s.vid);
	EXPECT_EQ(0x0003U, s.pid);
	EXPECT_STREQ("0781:55af:u", s.quirks);
	ASSERT_EQ(0, bf_bind_plan_bot(&s, "u", &p));
	ASSERT_EQ(0, bf_bind_apply(self->sys, &p, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, bf_bind_read(self->sys, "2-2:1.0", &now));
	EXPECT_STREQ("0781:55af:u,46f4:0003:u", now.quirks);
	snprintf(path, sizeof(path), "%s/bus/usb/drivers/uas/unbind", self->sys);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(buf, sizeof(buf), f));
	fclose(f);
	EXPECT_STREQ("2-2:1.0", buf);
	ASSERT_EQ(0, bf_bind_plan_restore(&s, "", &p));
	ASSERT_EQ(0, bf_bind_apply(self->sys, &p, err, sizeof(err)));
	ASSERT_EQ(0, bf_bind_read(self->sys, "2-2:1.0", &now));
	EXPECT_STREQ("0781:55af:u", now.quirks);
	/* a driver that is not there: the failing write is named */
	ASSERT_EQ(0, bf_bind_plan_restore(&s, "nosuch", &p));
	EXPECT_NE(0, bf_bind_apply(self->sys, &p, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "drivers/nosuch/unbind")) TH_LOG("%s", err);
	EXPECT_EQ(-ENOENT, bf_bind_read(self->sys, "9-9:1.0", &now));
}

/* The raw descriptors: a device, a configuration, its interfaces. */
#define DEV	18, 1, 0x00, 0x03, 0, 0, 0, 9, 0xda, 0x0b, 0x10, 0x92, \
		0x01, 0x20, 1, 2, 3, 1
#define CFG(len) 9, 2, (len), 0, 1, 1, 0, 0xc0, 0
#define IF(num, alt, proto) 9, 4, (num), (alt), 2, 8, 6, (proto), 0
#define EP(addr) 7, 5, (addr), 2, 0x00, 0x04, 0

TEST(bulk_only_from_descriptors)
{
	/* a UAS bridge: Bulk-Only at alternate setting 0, UAS at 1 */
	static const unsigned char both[] = {
		DEV, CFG(9 + 9 + 14 + 9 + 14 + 8), IF(0, 0, 0x50),
		EP(0x81), EP(0x02), IF(0, 1, 0x62), EP(0x83), EP(0x04),
		4, 0x24, 1, 0, 4, 0x24, 2, 0,	/* pipe usage */
	};
	/* QEMU's usb-uas: UAS only */
	static const unsigned char uas_only[] = {
		DEV, CFG(9 + 9 + 14), IF(0, 0, 0x62), EP(0x81), EP(0x02),
	};
	static const unsigned char bad[] = { DEV, CFG(9), 0, 4 };

	EXPECT_EQ(1, bf_usb_has_bot(both, sizeof(both), 0));
	EXPECT_EQ(0, bf_usb_has_bot(both, sizeof(both), 1));
	EXPECT_EQ(0, bf_usb_has_bot(uas_only, sizeof(uas_only), 0));
	EXPECT_EQ(-EINVAL, bf_usb_has_bot(bad, sizeof(bad), 0));
	EXPECT_EQ(-EINVAL, bf_usb_has_bot(both, 17, 0));
	EXPECT_EQ(-EINVAL, bf_usb_has_bot(both, sizeof(both) - 1, 0));
}

TEST_F(sysfs, no_bulk_only_interface)
{
	EXPECT_EQ(0, bf_usb_intf_has_bot(self->sys, "2-2:1.0"));
	EXPECT_EQ(-ENOENT, bf_usb_intf_has_bot(self->sys, "9-9:1.0"));
}

TEST(verdict_resets_on_uas_only)
{
	struct bf_transport_side u = { "uas", 9.9, 8, 4, 0, 0, false };
	struct bf_transport_side b = { "usb-storage", 29.5, 0, 0, 0, 0, false };
	char out[2048];

	ASSERT_TRUE(bf_transport_verdict(&u, &b, 0x0bda, 0x9210, 0x2001,
					 "Realtek", "RTL9210", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "usb-storage.quirks=0bda:9210:u\n")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "UNUSUAL_DEV(0x0bda, 0x9210, 0x2001, 0x2001,\n\t\t\"Realtek\",\n\t\t\"RTL9210\",\n\t\tUSB_SC_DEVICE, USB_PR_DEVICE, NULL,\n\t\tUS_FL_IGNORE_UAS),\n")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "UAS aborts or resets where usb-storage does not")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, " * UAS: 9.9 MB/s mean, 8 aborts, 4 resets")) TH_LOG("%s", out);
}

TEST(verdict_faster_or_not)
{
	struct bf_transport_side u = { "uas", 12.0, 0, 0, 0, 0, false };
	struct bf_transport_side b = { "usb-storage", 29.5, 0, 0, 0, 0, false };
	char out[2048];

	ASSERT_TRUE(bf_transport_verdict(&u, &b, 1, 2, 0, "", "", out,
					 sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "usb-storage is 2.46x as fast as UAS")) TH_LOG("%s", out);
	/* 10 % faster is noise; a usb-storage that resets too is no cure */
	b.mean_mbps = 13.2;
	EXPECT_FALSE(bf_transport_verdict(&u, &b, 1, 2, 0, "", "", out,
					  sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "verdict: keep UAS")) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "quirks="));
	u.resets = 2;
	b.resets = 1;
	b.mean_mbps = 29.5;
	EXPECT_FALSE(bf_transport_verdict(&u, &b, 1, 2, 0, "", "", out,
					  sizeof(out)));
}

TEST(both_failed_is_unclear)
{
	struct bf_transport_side u = { "uas", 9.9, 0, 0, 0, 0, true };
	struct bf_transport_side b = { "usb-storage", 29.5, 0, 0, 0, 0, true };
	char out[2048];

	EXPECT_FALSE(bf_transport_verdict(&u, &b, 1, 2, 0, "", "", out,
					  sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "verdict: unclear (both runs failed")) TH_LOG("%s", out);
	/* usb-storage failed, UAS did not: keep UAS, and say why */
	u.failed = false;
	EXPECT_FALSE(bf_transport_verdict(&u, &b, 1, 2, 0, "", "", out,
					  sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "verdict: keep UAS (the usb-storage run failed)")) TH_LOG("%s", out);
}

/* @path with the bridge's USB strings after its bcdDevice line */
static void usb_strings(const char *path)
{
	char *t = strdup(slurp(path)), *at;
	FILE *f;

	if (!t)
		abort();
	at = strstr(t, "# usb_storage_quirks:");
	f = fopen(path, "w");
	if (!at || !f)
		abort();
	fprintf(f, "%.*s# usb_manufacturer: Realtek\n# usb_product: RTL9210B-CG\n%s",
		(int)(at - t), t, at);
	fclose(f);
	free(t);
}

/*
 * transport --traces: the unusual_uas.h entry names the bridge by its USB
 * strings, not the drive behind it ("# model:"); --json says the same.
 */
TEST(traces_name_the_bridge)
{
	char dir[] = "/tmp/bf-transport-XXXXXX", a[64], b[64], out[64];
	struct spec su = base, sb = base;
	const char *args[] = { "--traces", a, b, NULL };
	const char *jargs[] = { "--traces", a, b, "--json", NULL };
	char *o;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/uas.trace", dir);
	snprintf(b, sizeof(b), "%s/bot.trace", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	su.resets = 3;
	sb.driver = "usb-storage";
	write_trace(a, &su);
	write_trace(b, &sb);
	usb_strings(a);
	usb_strings(b);
	EXPECT_EQ(0, run_cmd("transport", out, args));
	o = slurp(out);
	EXPECT_NE(NULL, strstr(o, "UNUSUAL_DEV(0x0bda, 0x9210, 0xf001, 0xf001,\n\t\t\"Realtek\",\n\t\t\"RTL9210B-CG\",\n"))
		TH_LOG("%s", o);
	EXPECT_EQ(NULL, strstr(o, "Samsung"));
	EXPECT_EQ(0, run_cmd("transport", out, jargs));
	o = slurp(out);
	EXPECT_NE(NULL, strstr(o, "\"verdict\":\"usb-storage\"")) TH_LOG("%s", o);
	EXPECT_NE(NULL, strstr(o, "\"quirk\":\"0bda:9210:u\""));
	EXPECT_NE(NULL, strstr(o, "\"usb_product\":\"RTL9210B-CG\""));
	EXPECT_NE(NULL, strstr(o, "\"resets\":3"));
	/* traces without the strings (older ones): placeholders, said */
	write_trace(a, &su);
	EXPECT_EQ(0, run_cmd("transport", out, args));
	o = slurp(out);
	EXPECT_NE(NULL, strstr(o, "\t\t\"Vendor\",\n\t\t\"Product\",")) TH_LOG("%s", o);
	EXPECT_NE(NULL, strstr(o, "lsusb -v -d 0bda:9210"));
	snprintf(out, sizeof(out), "rm -rf %s", dir);
	EXPECT_EQ(0, system(out));
}

TEST_HARNESS_MAIN
