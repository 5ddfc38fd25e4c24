// SPDX-License-Identifier: GPL-2.0
/*
 * The time-to-a-verdict table of Documentation/performance.rst: for each
 * seed article's drive (tests/ttv.c), sustain's default stop against a
 * whole-region write, on the simulated drive.
 *
 *   make -C user tests && user/tests/tool_ttv
 */
#include <stdio.h>

#include "fmt.h"
#include "ttv.h"

int main(void)
{
	unsigned int i;

	printf("%-16s %-38s %9s %9s %6s %10s %10s %6s %7s %7s\n", "model",
	       "class (stop/full)", "bytes", "full", "share", "time", "full",
	       "share", "floor", "full");
	for (i = 0; i < ttv_nmodels; i++) {
		const struct ttv_model *m = &ttv_models[i];
		char b1[BF_FMT_LEN], b2[BF_FMT_LEN], t1[BF_FMT_LEN];
		char t2[BF_FMT_LEN], f1[BF_FMT_LEN], f2[BF_FMT_LEN];
		char cls[40];
		struct ttv_run s, f;

		if (ttv_run(m, BF_UNTIL_FLOOR, &s) ||
		    ttv_run(m, BF_UNTIL_FULL, &f)) {
			fprintf(stderr, "tool_ttv: %s: the runs failed\n",
				m->name);
			return 1;
		}
		bf_fmt_si_bytes(b1, sizeof(b1), s.bytes);
		bf_fmt_si_bytes(b2, sizeof(b2), f.bytes);
		bf_fmt_secs(t1, sizeof(t1), s.secs);
		bf_fmt_secs(t2, sizeof(t2), f.secs);
		bf_fmt_mbps(f1, sizeof(f1), s.floor_mbps);
		bf_fmt_mbps(f2, sizeof(f2), f.floor_mbps);
		snprintf(cls, sizeof(cls), "%s/%s",
			 bf_class_name(s.class), bf_class_name(f.class));
		printf("%-16s %-38s %9s %9s %5.0f%% %10s %10s %5.0f%% %7s %7s\n",
		       m->name, cls, b1, b2, 100 * s.bytes / f.bytes, t1, t2,
		       100 * s.secs / f.secs, f1, f2);
		printf("  stop: %s\n", s.said);
	}
	return 0;
}
