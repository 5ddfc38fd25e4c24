// SPDX-License-Identifier: GPL-2.0
/*
 * Time to a verdict: the models and their runs; see ttv.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "ttv.h"

#define SEED	28
/*
 * A tenth of the bytes and of every time: the intervals are 100 ms
 * (sustain --interval 100ms), heat and garbage collection ten times
 * faster. The stop rule counts in intervals and in shares of the bytes
 * before the step, so the shares in the table are a full-size drive's
 * at the default 1 s interval (TTV_SCALE 1 gives the same shares).
 */
#ifndef TTV_SCALE
#define TTV_SCALE	10.0
#endif

static void init(struct simdrive *d, double hi, double lo, double noise)
{
	sim_init(d, hi, lo, SEED);
	d->iv_s = 1 / TTV_SCALE;
	d->noise = noise;
}

/* 2,555 MB/s for 280 GB of 1 TB, then 127 MB/s. */
static void dramless(struct simdrive *d)
{
	init(d, 2555, 127, 0.03);
	d->cache = true;
	d->cache_bytes = 280e9 / TTV_SCALE;
}

/* 1,524 to 1,132 MB/s once (1.35x), for good: a 200 GB cache of 1 TB. */
static void one_step(struct simdrive *d)
{
	init(d, 1524, 1132, 0.03);
	d->cache = true;
	d->cache_bytes = 200e9 / TTV_SCALE;
}

/* The same with a 16 GB cache, as fill tests find on many 1 TB drives. */
static void one_step_16(struct simdrive *d)
{
	one_step(d);
	d->cache_bytes = 16e9 / TTV_SCALE;
}

/*
 * A fan-less drive: 863 MB/s until the controller reaches 70 °C (after
 * about two minutes), throttled to 445 MB/s, released when it has cooled
 * to 62 °C (about 40 s later), fast again for about a minute, and so on:
 * at full speed it would settle at 75 °C, throttled at 53 °C.
 */
static void passive(struct simdrive *d)
{
	init(d, 863, 445, 0.03);
	d->heat = true;
	d->tau_s = 60 / TTV_SCALE;
	d->heat_k = 45.0 / 863 / d->tau_s;
	d->t_hot = 70;
	d->t_cool = 62;
	d->thr_mbps = 445;
}

/*
 * A full drive that never got TRIM: garbage collection switches it
 * between 120 and 940 MB/s every 20 s of writing, slow first.
 */
static void no_trim(struct simdrive *d)
{
	init(d, 940, 120, 0.03);
	d->ftl = true;
	d->gc_mbps = 940;
	d->gc_period_s = 20 / TTV_SCALE;
}

/* 918 MB/s flat (913..928): no step at all. */
static void flat(struct simdrive *d)
{
	init(d, 918, 918, 0.008);
}

const struct ttv_model ttv_models[] = {
	{ "dram-less cliff", "2,555 -> 127 MB/s after 280 GB of 1 TB",
	  BF_CLASS_CACHE_EXHAUSTION, true, 1000e9 / TTV_SCALE, dramless },
	{ "1.3x step", "1,524 -> 1,132 MB/s once",
	  BF_CLASS_CACHE_EXHAUSTION, true, 1000e9 / TTV_SCALE, one_step },
	{ "1.3x step, 16GB", "the same with a 16 GB cache",
	  BF_CLASS_CACHE_EXHAUSTION, true, 1000e9 / TTV_SCALE, one_step_16 },
	{ "passive cooling", "863 -> 445 MB/s and back, by heat",
	  BF_CLASS_THERMAL_THROTTLING, true, 1000e9 / TTV_SCALE, passive },
	{ "full, no TRIM", "120 <-> 940 MB/s, slow first",
	  BF_CLASS_FTL_STARVATION, true, 1000e9 / TTV_SCALE, no_trim },
	{ "flat", "918 MB/s over 300 GiB",
	  BF_CLASS_STEADY, false, 300.0 * (1ULL << 30) / TTV_SCALE, flat },
};

const unsigned int ttv_nmodels = sizeof(ttv_models) / sizeof(ttv_models[0]);

/* The stop object as sustain --json prints it, into @out->json. */
static void ttv_json(const struct bf_sustain *sus, struct ttv_run *out)
{
	FILE *f = fmemopen(out->json, sizeof(out->json) - 1, "w");
	struct bf_json j;

	if (!f)
		return;
	bf_json_init(&j, f);
	bf_json_obj_open(&j, NULL);
	bf_sustain_json(&j, sus, out->said);
	bf_json_obj_close(&j);
	fclose(f);
}

int ttv_run(const struct ttv_model *m, enum bf_until until,
	    struct ttv_run *out)
{
	struct bf_series ser = { 0 };
	struct bf_sustain sus;
	struct simdrive d;
	struct bf_report r;
	int ret;

	memset(out, 0, sizeof(*out));
	m->setup(&d);
	bf_sustain_init(&sus, until, d.iv_s, m->region);
	ret = sim_run(&d, m->region, &sus, &ser);
	if (!ret && ser.n) {
		out->bytes = ser.s[ser.n - 1].bytes;
		out->secs = ser.s[ser.n - 1].t;
		bf_sustain_said(&sus, out->bytes, out->said, sizeof(out->said));
		ttv_json(&sus, out);
		ret = bf_classify(ser.s, ser.n, &r);
	} else if (!ret) {
		ret = -EINVAL;
	}
	if (!ret) {
		out->class = r.class;
		out->floor_mbps = r.floor_mbps;
		bf_report_free(&r);
	}
	bf_series_free(&ser);
	return ret;
}
