// SPDX-License-Identifier: GPL-2.0
/*
 * caps: what a device path can do; trim: discard a range and time it.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "devinfo.h"
#include "pathinfo.h"
#include "traceout.h"
#include "units.h"

static bool usb_transport(const char *t)
{
	return !strcmp(t, "uas") || !strcmp(t, "usb-storage") ||
	       !strcmp(t, "usb");
}

static const char *no_trim_path(const struct bf_devinfo *di)
{
	return usb_transport(di->transport) ? "bridge" : "path";
}

static void devinfo_for(const struct bf_ctx *c, struct bf_devinfo *di)
{
	char name[64];

	if (c->caps.disk[0])
		snprintf(name, sizeof(name), "%s", c->caps.disk);
	else
		bf_dev_basename(c->dev, name, sizeof(name));
	bf_devinfo_read("/sys", name, di);
}

static void path_json(struct bf_json *j, const struct bf_path *p,
		      const struct bf_pathstat *st)
{
	bf_json_str(j, "scsi_id", p->scsi_id);
	bf_json_str(j, "usb_port", p->usb_port);
	/* sysfs says "480", "5000", or "1.5" for a low-speed device */
	if (p->usb_speed[0])
		bf_json_double(j, "usb_speed_mbps", atof(p->usb_speed));
	else
		bf_json_null(j, "usb_speed_mbps");
	bf_json_str(j, "usb_version", p->usb_version);
	bf_json_str(j, "usb_id", p->usb_id);
	bf_json_str(j, "usb_bcd_device", p->usb_bcd);
	bf_json_str(j, "usb_storage_quirks", p->quirks);
	bf_json_str(j, "firmware", p->firmware);
	bf_json_str(j, "scheduler", p->scheduler);
	bf_json_u64(j, "max_sectors_kb", p->max_sectors_kb);
	bf_json_u64(j, "max_hw_sectors_kb", p->max_hw_sectors_kb);
	bf_json_u64(j, "queue_depth", p->queue_depth);
	bf_json_u64(j, "nr_requests", p->nr_requests);
	if (p->nomerges >= 0)
		bf_json_u64(j, "nomerges", (uint64_t)p->nomerges);
	bf_json_str(j, "temp_source", p->temp_src);
	if (st->temp)
		bf_json_double(j, "temp_c", st->temp_mc / 1000.0);
}

static void caps_json(const struct bf_ctx *c, const struct bf_devinfo *di,
		      const struct bf_path *p, const struct bf_pathstat *st)
{
	const struct bf_caps *k = &c->caps;
	struct bf_json j;

	bf_json_doc_open(&j, stdout);
	bf_json_str(&j, "device", c->dev);
	bf_json_str(&j, "disk", k->disk[0] ? k->disk : di->name);
	bf_json_str(&j, "transport", di->transport);
	bf_json_str(&j, "driver", di->driver);
	bf_json_str(&j, "vendor", di->vendor);
	bf_json_str(&j, "model", di->model);
	bf_json_str(&j, "serial", di->serial);
	bf_json_u64(&j, "size_bytes", k->size);
	bf_json_u64(&j, "logical_block_size", k->lbs);
	bf_json_u64(&j, "physical_block_size", k->pbs);
	bf_json_u64(&j, "max_transfer_bytes", (uint64_t)k->max_sectors * 512);
	bf_json_u64(&j, "max_hw_transfer_bytes",
		    (uint64_t)k->max_hw_sectors * 512);
	bf_json_u64(&j, "max_segments", k->max_segments);
	bf_json_bool(&j, "discard", k->discard_max > 0);
	bf_json_u64(&j, "discard_max_bytes", k->discard_max);
	bf_json_u64(&j, "discard_granularity", k->discard_granularity);
	bf_json_bool(&j, "secure_erase", k->secure_erase_max > 0);
	bf_json_u64(&j, "secure_erase_max_bytes", k->secure_erase_max);
	bf_json_bool(&j, "write_zeroes", k->write_zeroes_max > 0);
	bf_json_u64(&j, "write_zeroes_max_bytes", k->write_zeroes_max);
	bf_json_str(&j, "write_cache", k->write_cache ? "write back" :
		    "write through");
	bf_json_bool(&j, "fua", k->fua);
	bf_json_bool(&j, "rotational", k->rotational);
	bf_json_bool(&j, "read_only", k->read_only);
	bf_json_u64(&j, "nr_hw_queues", k->nr_hw_queues);
	path_json(&j, p, st);
	bf_json_obj_close(&j);
}

static const char *merge_word(int nomerges)
{
	switch (nomerges) {
	case 0:
		return "merges allowed";
	case 1:
		return "only simple merges";
	case 2:
		return "no merges";
	default:
		return "merging unknown";
	}
}

static void path_text(const struct bf_path *p, const struct bf_pathstat *st)
{
	if (p->usb_port[0]) {
		printf("  USB link:      %s%s Mbit/s, USB %s, port %s\n",
		       p->usb_speed[0] ? "" : "?", p->usb_speed,
		       p->usb_version[0] ? p->usb_version : "?", p->usb_port);
		printf("  bridge:        %s, bcdDevice %s, quirks %s\n",
		       p->usb_id[0] ? p->usb_id : "?",
		       p->usb_bcd[0] ? p->usb_bcd : "?",
		       p->quirks[0] ? p->quirks : "none set");
	}
	printf("  queue:         ");
	if (p->queue_depth)
		printf("device queue depth %llu, ",
		       (unsigned long long)p->queue_depth);
	printf("%llu requests, scheduler %s, %s\n",
	       (unsigned long long)p->nr_requests,
	       p->scheduler[0] ? p->scheduler : "?", merge_word(p->nomerges));
	if (p->firmware[0])
		printf("  firmware:      %s\n", p->firmware);
	if (st->temp)
		printf("  temperature:   %.1f C (%s)\n", st->temp_mc / 1000.0,
		       p->temp_src);
	else
		printf("  temperature:   no sensor on this path\n");
}

static void caps_text(const struct bf_ctx *c, const struct bf_devinfo *di,
		      const struct bf_path *p, const struct bf_pathstat *st)
{
	const struct bf_caps *k = &c->caps;
	char a[BF_FMT_LEN], b[BF_FMT_LEN];

	printf("%s", c->dev);
	if (di->vendor[0] || di->model[0])
		printf(": %s%s%s", di->vendor, di->vendor[0] ? " " : "",
		       di->model);
	if (di->serial[0])
		printf(", serial %s", di->serial);
	putchar('\n');
	printf("  transport:     %s%s%s%s\n", di->transport,
	       di->driver[0] && strcmp(di->driver, di->transport) ?
	       " (driver " : "",
	       di->driver[0] && strcmp(di->driver, di->transport) ?
	       di->driver : "",
	       di->driver[0] && strcmp(di->driver, di->transport) ? ")" : "");
	printf("  size:          %s (%llu bytes)\n",
	       bf_fmt_bytes(a, sizeof(a), k->size),
	       (unsigned long long)k->size);
	printf("  block size:    %s logical, %s physical\n",
	       bf_fmt_bs(a, sizeof(a), k->lbs), bf_fmt_bs(b, sizeof(b), k->pbs));
	printf("  max transfer:  %s per request (hardware limit %s), %u segments\n",
	       bf_fmt_bs(a, sizeof(a), (uint64_t)k->max_sectors * 512),
	       bf_fmt_bs(b, sizeof(b), (uint64_t)k->max_hw_sectors * 512),
	       k->max_segments);
	if (k->discard_max)
		printf("  TRIM:          supported, up to %s per command (granularity %s)\n",
		       bf_fmt_bytes(a, sizeof(a), k->discard_max),
		       bf_fmt_bs(b, sizeof(b), k->discard_granularity));
	else
		printf("  TRIM:          not supported: TRIM does not reach this drive through this %s\n",
		       no_trim_path(di));
	if (k->secure_erase_max)
		printf("  secure erase:  supported, up to %s per command\n",
		       bf_fmt_bytes(a, sizeof(a), k->secure_erase_max));
	else
		printf("  secure erase:  not supported through this %s\n",
		       no_trim_path(di));
	if (k->write_zeroes_max)
		printf("  write zeroes:  supported, up to %s per command\n",
		       bf_fmt_bytes(a, sizeof(a), k->write_zeroes_max));
	else
		printf("  write zeroes:  not supported (the kernel writes zero buffers instead)\n");
	printf("  write cache:   %s\n", k->write_cache ?
	       "volatile write-back cache (data needs a flush to be durable)" :
	       "write-through (no volatile cache reported)");
	printf("  FUA:           %s\n", k->fua ? "supported" : "not supported");
	printf("  rotational:    %s\n", k->rotational ? "yes" : "no");
	printf("  read-only:     %s\n", k->read_only ? "yes" : "no");
	if (k->nr_hw_queues)
		printf("  hw queues:     %u\n", k->nr_hw_queues);
	path_text(p, st);
}

static int do_caps(int argc, char **argv)
{
	struct bf_devinfo di;
	struct bf_pathstat st;
	struct bf_opts o = { 0 };
	struct bf_path p;
	struct bf_ctx c;
	char err[160];

	if (bf_opts_parse(&o, argc, argv, BF_OPT(JSON), 1, 1, err, sizeof(err)))
		return bf_usage(argv[0], err);
	if (bf_ctx_open(&c, o.pos[0]))
		return EXIT_FAIL;
	devinfo_for(&c, &di);
	bf_path_read("/sys", di.name, &p);
	bf_pathstat_read("/sys", &p, &st);
	if (o.json)
		caps_json(&c, &di, &p, &st);
	else
		caps_text(&c, &di, &p, &st);
	bf_ctx_close(&c);
	return EXIT_OK;
}

BLKFLOOR_COMMAND(caps, "DEV [--json]", do_caps,
	"What this device path can do: transport, TRIM, write cache, limits.\n"
	"Size, block sizes, maximum transfer, TRIM, secure erase, write zeroes,\n"
	"write cache, FUA, rotational, in plain words; the USB link and bridge,\n"
	"queue depth, scheduler, merging, firmware and temperature sensor.\n"
	"  --json            one JSON object");

static int do_trim(int argc, char **argv)
{
	struct bf_devinfo di;
	struct bf_run_result res;
	struct bf_tracer trace;
	struct bf_run_req req;
	struct bf_opts o = { 0 };
	struct bf_ctx c;
	char err[160], a[BF_FMT_LEN], b[BF_FMT_LEN], r[BF_FMT_LEN];
	uint64_t len, bs;
	int ret;

	o.qd = 4;
	if (bf_opts_parse(&o, argc, argv,
			  BF_OPT(OFFSET) | BF_OPT(SIZE) | BF_OPT(QD) |
			  BF_OPT(YES) | BF_OPT(JSON) | BF_OPT(QUIET) |
			  BF_OPT(INTERVAL) | BF_OPT(TRACE) | BF_OPT(FORCE) |
			  BF_OPT(NO_OWN),
			  1, 1, err, sizeof(err)))
		return bf_usage(argv[0], err);
	if (bf_ctx_open(&c, o.pos[0]))
		return EXIT_FAIL;
	devinfo_for(&c, &di);
	if (!c.caps.discard_max) {
		printf("TRIM does not reach this drive through this %s (the kernel reports no discard support on %s): nothing was discarded\n",
		       no_trim_path(&di), di.transport);
		ret = EXIT_FAIL;
		goto out;
	}
	if (o.offset >= c.caps.size ||
	    o.size > c.caps.size - o.offset) {
		ret = bf_usage(argv[0], "--offset/--size beyond the end of the device");
		goto out;
	}
	if (bf_refuse_destroy(c.dev, &c.caps, BLKFLOOR_OP_DISCARD, o.yes)) {
		ret = EXIT_FAIL;
		goto out;
	}
	len = o.size ? o.size : c.caps.size - o.offset;
	bs = c.caps.discard_max < BLKFLOOR_BS_MAX ? c.caps.discard_max :
	     BLKFLOOR_BS_MAX;
	bs = bf_round_down(bs, c.caps.lbs ? c.caps.lbs : 512);
	if (bs > len)
		bs = len;
	bf_req_base(&req, &o, c.dev);
	req.op = BLKFLOOR_OP_DISCARD;
	req.pattern = BLKFLOOR_PATTERN_SEQ;
	req.bs = (uint32_t)bs;
	req.qd = o.qd;
	req.offset = o.offset;
	req.length = len;
	ret = bf_preflight(&c, &o, &req, &trace);
	if (ret)
		goto out;
	c.flat = true;
	if (bf_measure(&c, &req, &o, NULL, &res)) {
		bf_result_free(&res);
		bf_trace_finish(&c);
		ret = EXIT_FAIL;
		goto out;
	}
	ret = bf_run_exit_code(&res);
	if (o.json) {
		struct bf_json j;

		bf_json_doc_open(&j, stdout);
		bf_run_json_summary(&j, &res);
		bf_json_str(&j, "transport", di.transport);
		bf_json_u64(&j, "discard_max_bytes", c.caps.discard_max);
		bf_json_obj_close(&j);
	} else {
		printf("discarded %s (%llu bytes) of %s in %s (%s)%s\n",
		       bf_fmt_bytes(a, sizeof(a), res.info.bytes),
		       (unsigned long long)res.info.bytes, c.dev,
		       bf_fmt_duration(b, sizeof(b), res.info.elapsed_ns / 1e9),
		       bf_fmt_rate(r, sizeof(r), bf_run_bps(&res.info)),
		       res.info.state == BLKFLOOR_STATE_DONE ? "" :
		       ": not the whole range");
		if (res.info.errors)
			bf_run_print_summary(stdout, &res);
	}
	if (bf_trace_finish(&c))
		ret = EXIT_FAIL;
	bf_result_free(&res);
out:
	bf_ctx_close(&c);
	return ret;
}

BLKFLOOR_COMMAND(trim, "DEV --yes-destroy-data [--offset SIZE] [--size SIZE]",
	do_trim,
	"Discard (TRIM) the whole device or a range and report how long it took.\n"
	"Says plainly when discard does not reach the drive through this path.\n"
	"  --offset SIZE     start of the range (default 0)\n"
	"  --size SIZE       length of the range (default: to the end)\n"
	"  --qd N            discards in flight (default 4)\n"
	"  --interval DUR, --trace FILE, --no-own, --json, --quiet\n"
	"  --yes-destroy-data  required: discarded data is gone");
