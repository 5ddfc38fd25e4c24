// SPDX-License-Identifier: GPL-2.0
/*
 * Write synthetic curves with known truth (user/tests/synth.c).
 *
 *   tool_gen KIND qemu|real NOISE DT N SEED [trace|fio|csv] > FILE
 *   tool_gen --set DIR      write the whole test set as blkfloor traces,
 *                           with a truth.csv index
 *   tool_gen --list         list the kinds
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"
#include "synth.h"

static int usage(void)
{
	fprintf(stderr,
		"usage: tool_gen KIND qemu|real NOISE DT N SEED [trace|fio|csv]\n"
		"       tool_gen --set DIR\n       tool_gen --list\n");
	return 2;
}

static int write_set(const char *dir)
{
	size_t total = bf_synth_set(NULL, 0), i;
	struct bf_synth_params *set = calloc(total, sizeof(*set));
	char path[4096];
	FILE *idx;

	if (!set)
		return 1;
	bf_synth_set(set, total);
	snprintf(path, sizeof(path), "%s/truth.csv", dir);
	idx = fopen(path, "w");
	if (!idx) {
		perror(path);
		free(set);
		return 1;
	}
	fprintf(idx, "file,kind,scale,noise,dt,n,seed,class,peak_MBps,floor_MBps,cache_bytes\n");
	for (i = 0; i < total; i++) {
		struct bf_series ser = { 0 };
		struct bf_synth_truth t;
		FILE *f;

		if (bf_synth_gen(&set[i], &ser, &t))
			continue;
		snprintf(path, sizeof(path), "%s/%04zu-%s.trace", dir, i,
			 bf_synth_kind_name(set[i].kind));
		f = fopen(path, "w");
		if (f) {
			bf_synth_write(f, &ser, BF_FMT_TRACE,
				       bf_synth_kind_name(set[i].kind));
			fclose(f);
		}
		fprintf(idx, "%04zu-%s.trace,%s,%s,%g,%g,%zu,%llu,%s,%g,%g,%.0f\n",
			i, bf_synth_kind_name(set[i].kind),
			bf_synth_kind_name(set[i].kind),
			set[i].scale ? "real" : "qemu", set[i].noise, set[i].dt,
			set[i].n, (unsigned long long)set[i].seed,
			bf_class_name(t.class), t.peak_mbps, t.floor_mbps,
			isfinite(t.cache_bytes) ? t.cache_bytes : 0);
		bf_series_free(&ser);
	}
	fclose(idx);
	free(set);
	return 0;
}

int main(int argc, char **argv)
{
	struct bf_synth_params p = { 0 };
	enum bf_synth_format fmt = BF_FMT_TRACE;
	struct bf_series ser = { 0 };
	struct bf_synth_truth t;
	int k, ret;

	if (argc == 3 && !strcmp(argv[1], "--set"))
		return write_set(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (k = 0; k < BF_SYN_NKINDS; k++)
			printf("%s\n", bf_synth_kind_name(k));
		return 0;
	}
	if (argc < 7 || argc > 8)
		return usage();
	k = bf_synth_kind_parse(argv[1]);
	if (k < 0)
		return usage();
	p.kind = k;
	p.scale = !strcmp(argv[2], "real") ? BF_SYN_REAL : BF_SYN_QEMU;
	p.noise = atof(argv[3]);
	p.dt = atof(argv[4]);
	p.n = strtoul(argv[5], NULL, 10);
	p.seed = strtoull(argv[6], NULL, 10);
	if (argc == 8)
		fmt = !strcmp(argv[7], "fio") ? BF_FMT_FIO :
		      !strcmp(argv[7], "csv") ? BF_FMT_CSV : BF_FMT_TRACE;
	ret = bf_synth_gen(&p, &ser, &t);
	if (ret) {
		fprintf(stderr, "tool_gen: %s\n", strerror(-ret));
		return 1;
	}
	ret = bf_synth_write(stdout, &ser, fmt, argv[1]);
	fprintf(stderr, "truth: %s peak %.1f floor %.1f cache %.0f B step %.2f s\n",
		bf_class_name(t.class), t.peak_mbps, t.floor_mbps,
		t.cache_bytes, t.step_time_s);
	bf_series_free(&ser);
	return ret ? 1 : 0;
}
