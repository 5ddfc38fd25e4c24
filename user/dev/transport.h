/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Transport A/B: the same enclosure over UAS and over usb-storage (BOT).
 *
 * The decisions, apart from any I/O: what to write to sysfs to move a USB
 * interface to usb-storage (usb-storage's "quirks" parameter gains
 * VID:PID:u, the interface is unbound from its driver and probed again:
 * uas refuses a device with US_FL_IGNORE_UAS, usb-storage takes it), what
 * to write to put back the binding and the quirks found before, and the
 * verdict on the two runs (the quirk line and an unusual_uas.h entry when
 * UAS aborts or resets where usb-storage does not, or is slower).
 * bf_bind_read() and bf_bind_apply() are the only I/O.
 */
#ifndef BLKFLOOR_TRANSPORT_H
#define BLKFLOOR_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>

/* usb-storage's quirks parameter is a char[128] in the kernel */
#define BF_QUIRKS_MAX	127

/* A USB storage interface's binding, as found. */
struct bf_bind_state {
	char intf[32];		/* "2-1:1.0" */
	char driver[32];	/* "uas", "usb-storage", or "" (none) */
	char quirks[BF_QUIRKS_MAX + 1];	/* usb-storage.quirks */
	unsigned int vid, pid;
};

/* One write: @value into @path (relative to the sysfs root). */
struct bf_sysfs_write {
	char path[96];
	char value[BF_QUIRKS_MAX + 1];
};

struct bf_bind_plan {
	struct bf_sysfs_write w[4];
	size_t n;
};

/*
 * @cur with the entry for @vid:@pid replaced by (or, if none, followed by)
 * "vvvv:pppp:@flags" (lower-case hex, as the kernel prints them); other
 * devices' entries are kept. Returns 0, -EINVAL (bad @flags or entry) or
 * -E2BIG (longer than the kernel's parameter takes).
 */
int bf_quirks_with(const char *cur, unsigned int vid, unsigned int pid,
		   const char *flags, char *out, size_t len);

/*
 * The writes that bind @s's interface to usb-storage with @flags ("u"
 * for the A/B) in its quirks: the quirks, an unbind from the current
 * driver (none if unbound), and a probe (bus/usb/drivers_probe).
 */
int bf_bind_plan_bot(const struct bf_bind_state *s, const char *flags,
		     struct bf_bind_plan *p);

/*
 * The writes that put back @orig (its quirks exactly, its driver through a
 * probe) from the interface's driver now, @now ("" if unbound).
 */
int bf_bind_plan_restore(const struct bf_bind_state *orig, const char *now,
			 struct bf_bind_plan *p);

/* What one side's run showed. */
struct bf_transport_side {
	const char *driver;	/* "uas", "usb-storage" */
	double mean_mbps;
	unsigned long long aborts, resets, timeouts, errors;
	bool failed;		/* the run did not end "done" */
};

/* Faster by this much (mean) and usb-storage wins on speed alone. */
#define BF_TRANSPORT_FASTER	1.15

/*
 * Which transport to use: usb-storage when UAS aborts, resets or fails
 * where usb-storage does not, or usb-storage is BF_TRANSPORT_FASTER as
 * fast; UAS otherwise; unclear when both runs failed. The reason in @why.
 */
enum bf_tverdict { BF_TV_KEEP_UAS, BF_TV_BOT, BF_TV_UNCLEAR };
enum bf_tverdict bf_transport_judge(const struct bf_transport_side *uas,
				    const struct bf_transport_side *bot,
				    char *why, size_t len);
/* "keep-uas", "usb-storage", "unclear" */
const char *bf_tverdict_name(enum bf_tverdict v);

/*
 * The unusual_uas.h entry for the bridge @vid:@pid at bcdDevice @bcd
 * (@vendor and @product: its USB strings, iManufacturer and iProduct),
 * with the evidence (@why and both sides) as its comment.
 */
void bf_transport_entry(char *out, size_t len,
			const struct bf_transport_side *uas,
			const struct bf_transport_side *bot, unsigned int vid,
			unsigned int pid, unsigned int bcd, const char *vendor,
			const char *product, const char *why);

/*
 * The verdict on @uas and @bot: writes a few lines to @out (both sides,
 * and, when usb-storage is the better transport, the boot parameter
 * usb-storage.quirks=VID:PID:u and an unusual_uas.h entry for @vendor,
 * @product and bcdDevice @bcd, with the evidence as its comment).
 * Returns true when it recommends the quirk.
 */
bool bf_transport_verdict(const struct bf_transport_side *uas,
			  const struct bf_transport_side *bot,
			  unsigned int vid, unsigned int pid, unsigned int bcd,
			  const char *vendor, const char *product, char *out,
			  size_t len);

/*
 * Whether interface @num of a USB device has a Bulk-Only alternate
 * setting (mass storage, class 8, protocol 0x50), the one usb-storage
 * drives: from the device's raw descriptors @d (@n bytes, as sysfs's
 * "descriptors" holds them: the device's, then each configuration's).
 * 1, 0 (none: usb-storage cannot take it), or -EINVAL for descriptors
 * that do not parse.
 */
int bf_usb_has_bot(const unsigned char *d, size_t n, unsigned int num);

/*
 * The same for interface @intf ("2-1:1.0") under @sysroot, its device's
 * descriptors read from sysfs; -errno if they cannot be read.
 */
int bf_usb_intf_has_bot(const char *sysroot, const char *intf);

/* Read the interface @intf's binding and usb-storage's quirks. */
int bf_bind_read(const char *sysroot, const char *intf,
		 struct bf_bind_state *s);

/* Apply @p under @sysroot in order; stops at the first failure. */
int bf_bind_apply(const char *sysroot, const struct bf_bind_plan *p,
		  char *err, size_t errlen);

#endif /* BLKFLOOR_TRANSPORT_H */
