/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What tells one boot and one build of the path's modules from another,
 * and how much CPU the host gave a run: the boot id, the kernel's taint,
 * the srcversion (or build ID) and taint of each module on the device's
 * path, the steal time of /proc/stat and the scheduler statistics of the
 * run's kthread. Everything takes a proc and a sysfs root ("/proc" and
 * "/sys", or a test tree) and does no other I/O, so it is unit-tested on
 * fake trees; the parsers of the files' text are separate.
 */
#ifndef BLKFLOOR_HOSTINFO_H
#define BLKFLOOR_HOSTINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Written to the trace header: constant for a run. */
struct bf_hostid {
	char boot_id[40];	/* /proc/sys/kernel/random/boot_id, or "" */
	char tainted[24];	/* /proc/sys/kernel/tainted, or "" */
	/*
	 * "sd_mod 1a2b3c4d5e6f, uas 785d29ef2fe1 OE, ...": each loaded
	 * module on the path (and the USB storage and xHCI modules), its
	 * srcversion or the first 12 hex digits of its build ID, and its
	 * taint flags when it has any; sorted by name; "" if none
	 */
	char modules[512];
};

/*
 * The modules of the path of block device @disk: the drivers of the
 * device's sysfs ancestors and, when loaded, uas, usb_storage, xhci_hcd
 * and sd_mod.
 */
void bf_hostid_read(const char *procroot, const char *sysroot,
		    const char *disk, struct bf_hostid *h);

/* The 12 hex digits of the build ID in an ELF note section (sysfs). */
bool bf_build_id_hex(const unsigned char *note, size_t len, char *out,
		     size_t outlen);

/* One sample of the CPU the host gave. */
struct bf_hostcpu {
	bool have_stat;		/* /proc/stat's cpu line was read */
	uint64_t steal, total;	/* USER_HZ ticks, all CPUs */
	bool have_thread;	/* the kthread's schedstat was read */
	uint64_t run_ns;	/* on a CPU */
	uint64_t wait_ns;	/* runnable, waiting for one */
};

/* The "cpu" line of /proc/stat's text: its steal and total ticks. */
bool bf_procstat_parse(const char *text, uint64_t *steal, uint64_t *total);
/* /proc/PID/schedstat's text: "RUN_NS WAIT_NS SLICES". */
bool bf_schedstat_parse(const char *text, uint64_t *run_ns,
			uint64_t *wait_ns);

/*
 * The pid of the kthread named @comm ("blkfloor/7") under @procroot, or
 * 0 if there is none.
 */
int bf_find_kthread(const char *procroot, const char *comm);

/* Sample /proc/stat and, if @pid, /proc/@pid/schedstat. */
void bf_hostcpu_read(const char *procroot, int pid, struct bf_hostcpu *c);

/*
 * The trace's "# host_cpu:" line for the samples @a and @b taken @secs
 * apart: "steal_pct=0.0 thread_cpu_s=1.234 thread_wait_s=0.010
 * run_s=8.000" (the thread's figures only when both samples have them).
 * Returns false when there is nothing to say.
 */
bool bf_hostcpu_line(const struct bf_hostcpu *a, const struct bf_hostcpu *b,
		     double secs, char *buf, size_t len);

#endif /* BLKFLOOR_HOSTINFO_H */
