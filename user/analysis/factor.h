/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What an A/B varies. From the setup headers of the runs of each side,
 * the one factor under test (the kernel, the path's module builds, the
 * device, the driver, the workload, ...) and every other difference: a
 * comparison that changes two things at once says nothing about either.
 *
 * Some header items follow from a factor rather than being set: a new
 * kernel rebuilds every module and may bind usb-storage instead of uas,
 * another enclosure brings its own firmware, link speed and queue limits.
 * Those are outcomes of that factor and do not count as a second one.
 * Items absent from a run (an older trace, a fio log) are not compared.
 * Pure computation on the headers runsum read.
 */
#ifndef BLKFLOOR_FACTOR_H
#define BLKFLOOR_FACTOR_H

#include <stdbool.h>
#include <stddef.h>

#include "runsum.h"

enum bf_factor {
	BF_FACTOR_NONE,		/* nothing the traces record differs */
	BF_FACTOR_KERNEL,	/* the kernel release */
	BF_FACTOR_MODULE,	/* a path module's build, one kernel */
	BF_FACTOR_DRIVER,	/* uas or usb-storage, usb-storage quirks */
	BF_FACTOR_FIRMWARE,	/* the drive's revision, the bridge's bcdDevice */
	BF_FACTOR_DEVICE,	/* VID:PID, model, serial, size, bus */
	BF_FACTOR_LINK,		/* the USB link speed */
	BF_FACTOR_QUEUE,	/* max_sectors_kb, queue_depth, scheduler, nomerges */
	BF_FACTOR_OP,
	BF_FACTOR_PATTERN,
	BF_FACTOR_BS,
	BF_FACTOR_QD,
	BF_FACTOR_REGION,
	BF_FACTOR_BLKFLOOR,	/* blkfloor.ko's version */
	BF_FACTOR_UNKNOWN,	/* a run without a setup header */
	BF_FACTOR_AUTO,		/* infer it (no --vary) */
};

const char *bf_factor_name(enum bf_factor f);

/* "kernel", "enclosure" (device), ...; -EINVAL for another word */
int bf_factor_parse(const char *s, enum bf_factor *f);

/* The factors --vary takes, "kernel|module|...", for messages. */
const char *bf_factor_names(void);

struct bf_factor_run {
	const struct bf_runsum *rs;
	const char *name;	/* the file, for messages */
	bool header;		/* a blkfloor trace (not a fio log or CSV) */
};

struct bf_factor_result {
	enum bf_factor vary;	/* the factor under test */
	bool inferred;		/* from the headers, not named by --vary */
	unsigned int differ;	/* 1 << factor: items that differ A to B */
	/* the factor's first item that differs: "VID:PID A x, B y" */
	char what[256];
	char item[40], va[128], vb[128];	/* ... its parts: "VID:PID", x, y */
	/* the differences besides the factor, one line; "" if none */
	char refused[640];
	/* the runs whose setup is not recorded; "" if none */
	char unknown[256];
};

/*
 * Check the runs of sides A and B against @want (BF_FACTOR_AUTO: infer
 * it). Returns 0 when A and B differ in one factor at most (or in
 * nothing), 1 when they differ in more or a side's runs differ among
 * themselves (@res->refused says how), 2 for no run on a side.
 */
int bf_factor_check(const struct bf_factor_run *a, size_t na,
		    const struct bf_factor_run *b, size_t nb,
		    enum bf_factor want, struct bf_factor_result *res);

#endif /* BLKFLOOR_FACTOR_H */
