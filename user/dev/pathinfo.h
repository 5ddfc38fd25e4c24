/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The path a block device's commands take (driver, USB link, bridge, queue
 * limits) and the counters the block layer and the SCSI midlayer keep for
 * it, read from sysfs; the per-interval figures derived from two samples;
 * and the kernel-log lines that are events on that path (resets, aborts,
 * timeouts, disconnects). Everything takes a sysfs root ("/sys", or a test
 * tree) and does no other I/O, so it is unit-tested on fake trees.
 */
#ifndef BLKFLOOR_PATHINFO_H
#define BLKFLOOR_PATHINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the path is: constant for a run, written to the trace header. */
struct bf_path {
	char disk[32];		/* "sdb" */
	char driver[32];	/* "uas", "usb-storage", "nvme", ... or "" */
	char scsi_id[32];	/* "2:0:0:0" or "" */
	char usb_port[32];	/* "2-1" or "" */
	char usb_speed[16];	/* link speed in Mbit/s, "5000", or "" */
	char usb_version[16];	/* "3.00" or "" */
	char usb_id[16];	/* "0627:0001" (VID:PID) or "" */
	char usb_bcd[8];	/* bcdDevice, "0000", or "" */
	/* the bridge's own strings (iManufacturer, iProduct), or "" */
	char usb_manufacturer[64], usb_product[64];
	char quirks[128];	/* usb-storage quirks parameter, or "" */
	char firmware[32];	/* SCSI rev or NVMe firmware_rev, or "" */
	char scheduler[32];	/* the active I/O scheduler, "none" */
	char write_cache[32];	/* "write back" / "write through" / "" */
	uint64_t max_sectors_kb, max_hw_sectors_kb;
	uint64_t queue_depth;	/* SCSI device queue depth, 0 if none */
	uint64_t nr_requests;
	int nomerges;		/* queue/nomerges: 0, 1 or 2; -1 unknown */
	int rotational;		/* -1 unknown */
	char temp_src[256];	/* hwmon temp*_input of the device, or "" */
	char pcie_link[48];	/* "8.0 GT/s PCIe x4" (not USB), or "" */
};

/* Read identity and limits of block device @disk under @sysroot. */
int bf_path_read(const char *sysroot, const char *disk, struct bf_path *p);

/*
 * What changed on the path from @a to @b (the same disk read again): on
 * the link, the driver, the USB link's speed or version, the device
 * behind it (VID:PID) and the PCIe link's speed or width
 * (BF_PATH_LINK); set by the host, the request size limit and the SCSI
 * queue depth (BF_PATH_HOST). Writes "usb speed 5000 -> 480 Mb/s, driver
 * uas -> usb-storage" to @buf and returns which changed (0: nothing).
 */
#define BF_PATH_LINK	1
#define BF_PATH_HOST	2
int bf_path_diff(const struct bf_path *a, const struct bf_path *b, char *buf,
		 size_t len);

/* One sample of the counters. */
enum { BF_ST_READ, BF_ST_WRITE, BF_ST_DISCARD, BF_ST_FLUSH, BF_ST_NR };

struct bf_pathstat {
	bool ok;		/* the block stat file was read */
	uint64_t ios[BF_ST_NR], merges[BF_ST_NR], sectors[BF_ST_NR];
	uint64_t in_flight;
	uint64_t io_ticks_ms;	/* time with at least one request in flight */
	bool scsi;		/* the SCSI counters below were read */
	uint64_t scsi_req, scsi_done, scsi_err, scsi_tmo;
	bool temp;		/* temp_mc was read */
	int64_t temp_mc;	/* millidegrees Celsius */
};

/* Parse a /sys/block/X/stat line (11, 15 or 17 fields). */
bool bf_pathstat_parse(const char *line, struct bf_pathstat *s);

/* Sample @p's counters (and its temperature when it has a sensor). */
void bf_pathstat_read(const char *sysroot, const struct bf_path *p,
		      struct bf_pathstat *s);

/* Figures of one interval, from two samples and what blkfloor did in it. */
struct bf_pathiv {
	uint64_t requests;	/* block-layer requests completed, r+w+d */
	uint64_t merges;	/* bios merged into requests */
	uint64_t sectors;
	double util;		/* busy time / interval, 0..1 */
	uint64_t in_flight;	/* requests in flight at the second sample */
	double req_per_bio;	/* requests / blkfloor I/Os, 0 if no I/O */
	double req_bytes;	/* mean request size, 0 if none */
	bool scsi;
	uint64_t scsi_done, scsi_err, scsi_tmo;
	bool temp;
	double temp_c;		/* at the second sample */
};

/*
 * The figures between samples @a and @b that are @dt_ns apart, while
 * blkfloor completed @ios I/Os. A counter that went backwards (the device
 * was re-created) gives 0 for that counter.
 */
void bf_pathiv_diff(const struct bf_pathstat *a, const struct bf_pathstat *b,
		    uint64_t dt_ns, uint64_t ios, struct bf_pathiv *iv);

/* Kinds of events on the path, as the kernel log reports them. */
enum bf_event_kind {
	BF_EV_NONE,
	BF_EV_RESET,		/* USB port reset, SCSI device/bus/host reset */
	BF_EV_ABORT,		/* a command aborted by the error handler */
	BF_EV_TIMEOUT,		/* a command timed out */
	BF_EV_DISCONNECT,	/* the USB device went away */
	BF_EV_OFFLINE,		/* the SCSI device was set offline */
	BF_EV_IOERR,		/* an I/O error reported for the disk */
	BF_EV_READONLY,		/* a file system remounted read-only */
	BF_EV_BIND,		/* a driver (re)bound the device */
	BF_EV_LINK,		/* the link read again differs (bf_path_diff) */
	BF_EV_HOST,		/* a limit the host sets differs */
};

const char *bf_event_name(enum bf_event_kind k);

/*
 * Classify one /dev/kmsg record ("6,1234,567890,-;usb 2-1: reset ...")
 * against path @p. Returns the kind (BF_EV_NONE for lines about other
 * devices or of no interest) and the record's time in microseconds of
 * CLOCK_MONOTONIC in @ts_us; @msg points into @rec at the message text.
 */
enum bf_event_kind bf_kmsg_event(const char *rec, const struct bf_path *p,
				 uint64_t *ts_us, const char **msg);

/*
 * Whether /dev/kmsg record @rec is the SCSI midlayer's account of a
 * command result on path @p: its "Result: hostbyte=..." line (a command
 * that failed, or any with scsi_logging_level set) and the "Sense Key",
 * "Add. Sense" and "CDB:" lines that follow it. @ts_us and @msg as for
 * bf_kmsg_event().
 */
bool bf_kmsg_scsi(const char *rec, const struct bf_path *p, uint64_t *ts_us,
		  const char **msg);

#endif /* BLKFLOOR_PATHINFO_H */
