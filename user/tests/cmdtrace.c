// SPDX-License-Identifier: GPL-2.0
/*
 * Traces written as blkfloor writes them, and the commands run in-process
 * (see cmdtrace.h).
 */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blkfloor.h"
#include "cmdhelp.h"
#include "cmdtrace.h"
#include "trace.h"

const struct spec base = {
	"6.12.1", "write", "uas", "", 131072, 300, 0.03, 900, 0, 0, false,
	false, 1, "2a1c1e44-0c4c-4d1e-9a8e-6b1f0f6b7a01", NULL, NULL, NULL, 0,
	0, 0, NULL, 0, NULL, NULL,
};

static double jitter(uint64_t *st)
{
	*st = *st * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(*st >> 11) / (double)(1ULL << 52) - 1;
}

void write_trace(const char *path, const struct spec *sp)
{
	FILE *f = fopen(path, "w");
	uint64_t st = sp->seed, total = 0;
	double rpb = sp->rpb > 0 ? sp->rpb : 1;
	unsigned int i;

	if (!f)
		abort();
	fprintf(f, "%s\n# device: /dev/sdb\n# size_bytes: 1000204886016\n"
		"# model: %s\n# serial: %s\n"
		"# transport: usb\n# kernel: %s\n# op: %s\n# pattern: seq\n"
		"# bs: %u\n# qd: 32\n# region: 0+1000204886016\n"
		"# driver: %s\n# usb_speed: 5000\n# usb_id: %s\n"
		"# usb_bcd_device: f001\n# usb_storage_quirks: %s\n"
		"# firmware: 1B6Q\n", BF_TRACE_MAGIC,
		sp->model ? sp->model : "Samsung SSD 870",
		sp->serial ? sp->serial : "S6PXNG0R", sp->kernel, sp->op,
		sp->bs, sp->driver, sp->usb_id ? sp->usb_id : "0bda:9210",
		sp->quirks);
	if (sp->boot_id)
		fprintf(f, "# boot_id: %s\n", sp->boot_id);
	if (sp->modules)
		fprintf(f, "# path_modules: %s\n", sp->modules);
	fprintf(f, "%s\n", BF_TRACE_HEADER);
	for (i = 0; i < 40; i++) {
		double r = sp->mbps * (1 + sp->noise * jitter(&st));
		double p99 = sp->p99_us * (1 + 0.05 * jitter(&st));
		uint64_t by = (uint64_t)(r * 1e6);
		unsigned long long ios = by / sp->bs;

		total += by;
		fprintf(f, "%u,%u.000000,%u.000000,%llu,%llu,%u,%.3f,100.000,"
			"%.3f,%.3f,%.3f,%.3f,%.3f,%llu,%llu,%.3f,%.1f,0,"
			"0.950,32,%u,0,\n", i, i, i + 1, (unsigned long long)by,
			ios, sp->errors, r, p99 / 3, p99 / 3, p99, p99 * 1.5,
			p99 * 3, (unsigned long long)total,
			(unsigned long long)llround(ios * rpb), rpb,
			sp->bs / 1024.0 / rpb, i < sp->scsi_err);
		if (i == 20)
			for (unsigned int k = 0; k < sp->resets; k++)
				fprintf(f, "# event: 20.5%u reset sd 2:0:0:0: device reset\n",
					k);
	}
	if (sp->tail_p50_us > 0)
		fprintf(f, "40,40.000000,41.000000,%u,1,0,0.100,%.3f,%.3f,%.3f,"
			"%.3f,%.3f,%.3f,%llu,1,1.000,128.0,0,0.010,0,0,0,\n",
			sp->bs, sp->tail_p50_us, sp->tail_p50_us,
			sp->tail_p50_us, sp->tail_p50_us, sp->tail_p50_us,
			sp->tail_p50_us, (unsigned long long)total + sp->bs);
	if (sp->kmsg)
		fputs(sp->kmsg, f);
	if (sp->errors)
		fprintf(f, "# error: 3.100000 write 2048 131072 -5 io 30000.000\n"
			"# error: 4.200000 write 4096 131072 -110 timeout 30000000.000\n");
	if (sp->run_p50_us > 0)
		fprintf(f, "# run_latency_us: p50=%.3f p99=%.3f p999=%.3f max=%.3f ios=1000\n",
			sp->run_p50_us, sp->p99_us, sp->p99_us * 1.5,
			sp->p99_us * 3);
	if (sp->host_cpu)
		fprintf(f, "# host_cpu: %s\n", sp->host_cpu);
	if (sp->cut) {
		fprintf(f, "40,40.000000,41.0000");	/* killed mid-line */
	} else {
		fprintf(f, "# state: %s\n", sp->failed ? "failed" : "done");
		if (sp->failed)
			fprintf(f, "# errno: -5\n");
	}
	fclose(f);
}

int run_cmd(const char *cmd, const char *out, const char *const *args)
{
	char *argv[40];
	const struct blkfloor_cmd *c;
	int n = 0, ret, fd, saved;

	argv[n++] = (char *)cmd;
	while (*args && n < 39)
		argv[n++] = (char *)*args++;
	argv[n] = NULL;
	for (c = __start_blkfloor_cmds; c < __stop_blkfloor_cmds; c++)
		if (!strcmp(c->name, cmd))
			break;
	if (c == __stop_blkfloor_cmds)
		return -1;
	fflush(stdout);
	saved = dup(1);
	fd = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 1);
	close(fd);
	ret = bf_cmd_status(c, c->handler(n, argv));
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	return ret;
}

char *slurp(const char *path)
{
	static char buf[65536];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	return buf;
}
