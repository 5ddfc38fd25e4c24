/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Traces written as blkfloor writes them, for the tests of the commands
 * that read them (compare, plot): a setup header, 40 one-second
 * intervals with noise, latency, errors, events, an end state or a cut.
 */
#ifndef BLKFLOOR_TESTS_CMDTRACE_H
#define BLKFLOOR_TESTS_CMDTRACE_H

#include <stdbool.h>
#include <stdint.h>

struct spec {
	const char *kernel, *op, *driver, *quirks;
	unsigned int bs;
	double mbps, noise, p99_us;
	unsigned int errors;	/* per interval */
	unsigned int resets;
	bool failed, cut;
	uint64_t seed;
	const char *boot_id;	/* "# boot_id:", none if NULL */
	const char *modules;	/* "# path_modules:", none if NULL */
	const char *usb_id;	/* VID:PID; base's if NULL */
	const char *host_cpu;	/* "# host_cpu:" before the trailer */
	double run_p50_us;	/* "# run_latency_us:" with this p50, if > 0 */
	double tail_p50_us;	/* one more interval of one I/O at this p50 */
	unsigned int scsi_err;	/* SCSI errors, one in each of the first */
	const char *kmsg;	/* "# event:" lines, written as they are */
	double rpb;		/* requests per bio; 1 if 0 */
	const char *model, *serial;	/* base's if NULL */
};

extern const struct spec base;

void write_trace(const char *path, const struct spec *sp);

/*
 * Run "blkfloor CMD ARGS..." in-process, stdout into @out (if not NULL);
 * its exit status.
 */
int run_cmd(const char *cmd, const char *out, const char *const *args);

/* The file's first 64 KiB, NUL-terminated (a static buffer). */
char *slurp(const char *path);

#endif
