// SPDX-License-Identifier: GPL-2.0
/*
 * compare varies one factor: it names the factor under test (inferred
 * from the trace headers, or --vary), refuses a second difference with
 * one line (exit 2) unless --force, compares an enclosure A/B and a
 * driver A/B as what they are, and says so when a fio log records no
 * setup. The traces are synthetic, written as blkfloor writes them
 * (cmdtrace.c), three runs a side in one boot.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the harness and FIXTURE define functions without prototypes */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#include "cmdtrace.h"

#define BOOT	"11111111-1111-4111-8111-111111111111"

FIXTURE(vary) {
	char dir[64], out[96], err[96];
	char a[3][96], b[3][96];
	const char *args[24];
	int nargs;
};

FIXTURE_SETUP(vary)
{
	char dir[sizeof(self->dir)] = "/tmp/bf-vary-XXXXXX";
	int i;

	/* (from a local copy: with ASan, gcc cannot tell self->dir from
	 * self->a[i] and warns they may overlap, -Wrestrict) */
	ASSERT_NE(NULL, mkdtemp(dir));
	memcpy(self->dir, dir, sizeof(dir));
	for (i = 0; i < 3; i++) {
		snprintf(self->a[i], sizeof(self->a[i]), "%s/a%d", dir, i);
		snprintf(self->b[i], sizeof(self->b[i]), "%s/b%d", dir, i);
	}
	snprintf(self->out, sizeof(self->out), "%s/out", dir);
	snprintf(self->err, sizeof(self->err), "%s/err", dir);
}

FIXTURE_TEARDOWN(vary)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	if (system(cmd))
		TH_LOG("cannot remove %s", self->dir);
}

/* three runs a side in one boot, then the extra arguments */
static void sides(FIXTURE_DATA(vary) *self, const struct spec *sa,
		  const struct spec *sb, const char *const *extra)
{
	int i;

	self->nargs = 0;
	for (i = 0; i < 3; i++) {
		struct spec s = *sa;

		s.seed = 10 + i;
		s.boot_id = BOOT;
		write_trace(self->a[i], &s);
		self->args[self->nargs++] = self->a[i];
	}
	self->args[self->nargs++] = "--";
	for (i = 0; i < 3; i++) {
		struct spec s = *sb;

		s.seed = 20 + i;
		s.boot_id = BOOT;
		write_trace(self->b[i], &s);
		self->args[self->nargs++] = self->b[i];
	}
	while (extra && *extra)
		self->args[self->nargs++] = *extra++;
	self->args[self->nargs] = NULL;
}

/* compare, standard output to self->out and standard error to self->err */
static int compare(FIXTURE_DATA(vary) *self)
{
	int fd = open(self->err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int saved = dup(2), ret;

	fflush(stderr);
	dup2(fd, 2);
	close(fd);
	ret = run_cmd("compare", self->out, self->args);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	return ret;
}

static size_t lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static char errbuf[4096];

/* standard error, copied (slurp's buffer is reused) */
static const char *err_of(FIXTURE_DATA(vary) *self)
{
	snprintf(errbuf, sizeof(errbuf), "%s", slurp(self->err));
	return errbuf;
}

/*
 * An enclosure A/B, which the help and usage.rst offer: the same drive
 * in another bridge, same kernel. Compared as a device A/B, its slower
 * rate a regression; with --vary enclosure the same.
 */
TEST_F(vary, enclosure_ab_is_compared)
{
	struct spec sa = base, sb = base;
	static const char *const named[] = { "--vary", "enclosure", NULL };
	char *o;

	sb.usb_id = "152d:0583";
	sb.model = "USB3.1 Storage Device";
	sb.serial = "DD56419883A4A";
	sb.mbps = 150;
	sides(self, &sa, &sb, NULL);
	EXPECT_EQ(1, compare(self)) TH_LOG("%s", err_of(self));
	o = slurp(self->out);
	EXPECT_NE(NULL, strstr(o, "under test   device (inferred)")) TH_LOG("%s", o);
	EXPECT_NE(NULL, strstr(o, "152d:0583")) TH_LOG("%s", o);
	sides(self, &sa, &sb, named);
	EXPECT_EQ(1, compare(self)) TH_LOG("%s", err_of(self));
	o = slurp(self->out);
	EXPECT_NE(NULL, strstr(o, "under test   device (--vary)")) TH_LOG("%s", o);
}

/*
 * A kernel A/B on one enclosure refuses another VID:PID: exit 2, one line
 * that names both differences; --vary kernel names the other one;
 * --force compares anyway and the report says so.
 */
TEST_F(vary, kernel_ab_refuses_another_device)
{
	struct spec sa = base, sb = base;
	static const char *const named[] = { "--vary", "kernel", NULL };
	static const char *const forced[] = { "--force", NULL };
	const char *e;

	sb.kernel = "6.13.0-rc1";
	sb.usb_id = "152d:0583";
	sides(self, &sa, &sb, NULL);
	EXPECT_EQ(2, compare(self));
	e = err_of(self);
	EXPECT_EQ(1U, lines(e)) TH_LOG("%s", e);
	EXPECT_NE(NULL, strstr(e, "blkfloor compare: A and B differ in more than one factor: kernel (A 6.12.1, B 6.13.0-rc1), device (VID:PID A 0bda:9210, B 152d:0583)"))
		TH_LOG("%s", e);
	EXPECT_NE(NULL, strstr(e, "--force")) TH_LOG("%s", e);
	sides(self, &sa, &sb, named);
	EXPECT_EQ(2, compare(self));
	e = err_of(self);
	EXPECT_EQ(1U, lines(e)) TH_LOG("%s", e);
	EXPECT_NE(NULL, strstr(e, "--vary kernel, but A and B differ in device (VID:PID A 0bda:9210, B 152d:0583) too"))
		TH_LOG("%s", e);
	sides(self, &sa, &sb, forced);
	EXPECT_EQ(0, compare(self)) TH_LOG("%s", err_of(self));
	EXPECT_NE(NULL, strstr(slurp(self->out), "NOT COMPARABLE (--force)"));
}

/*
 * uas against usb-storage on one device (the quirk that forces it): a
 * driver A/B, judged on its figures. At the same rate it is no
 * regression; the driver is the factor, not a regression of the kernel.
 */
TEST_F(vary, uas_against_usb_storage_is_a_driver_ab)
{
	struct spec sa = base, sb = base;
	char *o;

	sb.driver = "usb-storage";
	sb.quirks = "0bda:9210:u";
	sides(self, &sa, &sb, NULL);
	EXPECT_EQ(0, compare(self)) TH_LOG("%s%s", err_of(self), slurp(self->out));
	o = slurp(self->out);
	EXPECT_NE(NULL, strstr(o, "under test   driver (inferred)")) TH_LOG("%s", o);
	/* slower over usb-storage: a regression of its rates */
	sb.mbps = 150;
	sides(self, &sa, &sb, NULL);
	EXPECT_EQ(1, compare(self));
	o = slurp(self->out);
	EXPECT_NE(NULL, strstr(o, "  - mean ")) TH_LOG("%s", o);
	EXPECT_EQ(NULL, strstr(o, "  - driver uas -> usb-storage")) TH_LOG("%s", o);
}

/*
 * A kernel that binds usb-storage where the old one bound uas, the
 * quirks unchanged: the driver follows from the kernel, and the fall is
 * a regression. A kernel and a quirk changed together: two factors.
 */
TEST_F(vary, kernel_fallback_and_kernel_with_quirk)
{
	struct spec sa = base, sb = base;
	const char *e;

	sb.kernel = "6.13.0-rc1";
	sb.driver = "usb-storage";
	sides(self, &sa, &sb, NULL);
	EXPECT_EQ(1, compare(self)) TH_LOG("%s", err_of(self));
	EXPECT_NE(NULL, strstr(slurp(self->out), "  - driver uas -> usb-storage"));
	sb.quirks = "0bda:9210:u";
	sides(self, &sa, &sb, NULL);
	EXPECT_EQ(2, compare(self));
	e = err_of(self);
	EXPECT_EQ(1U, lines(e)) TH_LOG("%s", e);
	EXPECT_NE(NULL, strstr(e, "kernel (A 6.12.1, B 6.13.0-rc1), driver (usb-storage quirks A (none), B 0bda:9210:u)"))
		TH_LOG("%s", e);
}

/*
 * A kernel A/B rebuilds every module: one line says so rather than a pair
 * of lines per module, which are an outcome of the kernel.
 */
TEST_F(vary, kernel_ab_modules_in_one_line)
{
	struct spec sa = base, sb = base;
	char *o;

	sa.modules = "sd_mod 143f49d511ea, uas 2a4ed087244a, usb_storage 0665ac40c1e0";
	sb.modules = "sd_mod ee90296ae6d8, uas 3beed5a996b4, usb_storage da3a14a7c261, xhci_hcd a969314c3d6d";
	sb.kernel = "6.13.0-rc1";
	sides(self, &sa, &sb, NULL);
	EXPECT_EQ(0, compare(self)) TH_LOG("%s", err_of(self));
	o = slurp(self->out);
	EXPECT_NE(NULL, strstr(o, "\n  modules      another build of each (the kernel's): sd_mod, uas, usb_storage (xhci_hcd only in B)\n"))
		TH_LOG("%s", o);
	EXPECT_EQ(NULL, strstr(o, "uas.ko")) TH_LOG("%s", o);
}

/* Nothing recorded differs: said without offering --vary for it. */
TEST_F(vary, nothing_differs)
{
	struct spec sa = base, sb = base;
	char *o;

	sides(self, &sa, &sb, NULL);
	EXPECT_EQ(0, compare(self)) TH_LOG("%s", err_of(self));
	o = slurp(self->out);
	EXPECT_NE(NULL, strstr(o, "under test   nothing the traces record differs (one setup run again, or a change they do not record)\n"))
		TH_LOG("%s", o);
}

/* A workload A/B (another block size) is one factor too: compared. */
TEST_F(vary, block_size_ab)
{
	struct spec sa = base, sb = base;
	char *o;

	sb.bs = 1048576;
	sides(self, &sa, &sb, NULL);
	EXPECT_EQ(0, compare(self)) TH_LOG("%s", err_of(self));
	o = slurp(self->out);
	EXPECT_NE(NULL, strstr(o, "under test   bs (inferred)")) TH_LOG("%s", o);
}

/* The subject of the email names the factor and both of its values. */
TEST_F(vary, email_subject_names_the_factor)
{
	struct spec sa = base, sb = base;
	static const char *const email[] = { "--format", "email", NULL };
	char *o;

	sb.usb_id = "152d:0583";
	sides(self, &sa, &sb, email);
	EXPECT_EQ(0, compare(self)) TH_LOG("%s", err_of(self));
	o = slurp(self->out);
	EXPECT_NE(NULL, strstr(o, "no regression: B (VID:PID 152d:0583) against A")) TH_LOG("%s", o);
	EXPECT_NE(NULL, strstr(o, "(VID:PID 0bda:9210)")) TH_LOG("%s", o);
}

/* --vary takes the factors it lists, and nothing else. */
TEST_F(vary, vary_takes_a_factor)
{
	struct spec sa = base, sb = base;
	static const char *const bad[] = { "--vary", "colour", NULL };
	static const char *const none[] = { "--vary", NULL };
	const char *e;

	/* a bad command line: one line, then the command's help */
	sides(self, &sa, &sb, bad);
	EXPECT_EQ(2, compare(self));
	e = err_of(self);
	EXPECT_EQ(0, strncmp(e, "blkfloor compare: --vary: no factor 'colour' (kernel|module|driver|firmware|device|link|queue|op|pattern|bs|qd|region|blkfloor)\n",
			     strcspn(e, "\n") + 1))
		TH_LOG("%s", e);
	sides(self, &sa, &sb, none);
	EXPECT_EQ(2, compare(self));
	e = err_of(self);
	EXPECT_EQ(0, strncmp(e, "blkfloor compare: --vary takes a factor (", 41))
		TH_LOG("%s", e);
}

/* JSON: the factor, whether it was inferred, and what differs in it. */
TEST_F(vary, json_names_the_factor)
{
	struct spec sa = base, sb = base;
	static const char *const json[] = { "--json", NULL };
	char *o;

	sb.kernel = "6.13.0-rc1";
	sides(self, &sa, &sb, json);
	EXPECT_EQ(0, compare(self)) TH_LOG("%s", err_of(self));
	o = slurp(self->out);
	EXPECT_NE(NULL, strstr(o, "\"vary\":{\"factor\":\"kernel\",\"inferred\":true,\"what\":\"kernel A 6.12.1, B 6.13.0-rc1\"}"))
		TH_LOG("%s", o);
}

/* fio logs record no setup: compare says what differs is unknown. */
TEST_F(vary, fio_logs_say_the_setup_is_unknown)
{
	static const char *const named[] = { "--vary", "kernel", NULL };
	const char *e;
	char *o;
	int i, k;

	self->nargs = 0;
	for (k = 0; k < 2; k++) {
		char *p = k ? self->b[0] : self->a[0];
		FILE *f = fopen(p, "w");

		ASSERT_NE(NULL, f);
		for (i = 1; i <= 40; i++)
			fprintf(f, "%d, %d, 1, 131072\n", i * 1000,
				292968 + (i % 3) * 1000 - k * 1000);
		fclose(f);
		self->args[self->nargs++] = p;
	}
	self->args[self->nargs] = NULL;
	EXPECT_EQ(0, compare(self)) TH_LOG("%s", err_of(self));
	o = slurp(self->out);
	EXPECT_NE(NULL, strstr(o, "under test   unknown: ")) TH_LOG("%s", o);
	e = err_of(self);
	EXPECT_NE(NULL, strstr(e, "records no setup")) TH_LOG("%s", e);
	self->args[self->nargs++] = named[0];
	self->args[self->nargs++] = named[1];
	self->args[self->nargs] = NULL;
	EXPECT_EQ(0, compare(self)) TH_LOG("%s", err_of(self));
	o = slurp(self->out);
	EXPECT_NE(NULL, strstr(o, "under test   kernel (--vary; not checked:")) TH_LOG("%s", o);
}

TEST_HARNESS_MAIN
