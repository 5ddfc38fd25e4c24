// SPDX-License-Identifier: GPL-2.0
/*
 * Synthetic throughput curves with known truth.
 *
 * A curve is a piecewise-constant instantaneous rate (a list of phases);
 * each sample is the exact average of that rate over its interval, so a
 * sample that straddles a step carries a mix of both rates, as a real
 * per-interval measurement does. Each sample is then multiplied by
 * (1 + noise * N(0, 1)). All randomness comes from a splitmix64 generator
 * seeded from the parameters: no global state.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "synth.h"

static const char *const kind_names[BF_SYN_NKINDS] = {
	[BF_SYN_STEADY] = "steady",
	[BF_SYN_STEADY_DIPS] = "steady-dips",
	[BF_SYN_CACHE] = "cache",
	[BF_SYN_CACHE_SHORT] = "cache-short",
	[BF_SYN_CACHE_BURSTS] = "cache-bursts",
	[BF_SYN_CACHE_SMALL] = "cache-small-step",
	[BF_SYN_THERMAL_STAGES] = "thermal-stages",
	[BF_SYN_THERMAL_DOWN] = "thermal-down",
	[BF_SYN_THERMAL_SAW] = "thermal-sawtooth",
	[BF_SYN_THERMAL_CYCLE] = "thermal-cycle",
	[BF_SYN_THERMAL_HOTSTART] = "thermal-hot-start",
	[BF_SYN_FTL_ERRATIC] = "ftl-erratic",
	[BF_SYN_FTL_FAST] = "ftl-fast",
	[BF_SYN_FTL_BACKWARDS] = "ftl-backwards",
	[BF_SYN_FTL_SLOWFIRST] = "ftl-slow-first",
	[BF_SYN_CACHE_FLICKER] = "cache-flicker",
};

const char *bf_synth_kind_name(enum bf_synth_kind k)
{
	return k < BF_SYN_NKINDS ? kind_names[k] : "?";
}

int bf_synth_kind_parse(const char *name)
{
	int k;

	for (k = 0; k < BF_SYN_NKINDS; k++)
		if (!strcmp(name, kind_names[k]))
			return k;
	return -1;
}

/* Phases at the given fractions of the run, each at its level. */
static int ph_stages(struct phases *p, double T, const double *frac,
		     const double *lvl, size_t k, struct rng *r)
{
	double t = 0;
	size_t i;
	int ret = 0;

	for (i = 0; i < k && !ret; i++) {
		ret = ph_add(p, t, lvl[i]);
		/* a little jitter so steps do not sit on sample edges */
		t += frac[i] * T * (0.95 + 0.1 * rng_unif(r));
	}
	return ret;
}

static int build(const struct bf_synth_params *p, struct phases *ph,
		 struct bf_synth_truth *tr, struct rng *r)
{
	bool real = p->scale == BF_SYN_REAL;
	double T = p->n * p->dt, hi, lo, t, ts, w, period;
	int ret = 0, i;

	tr->cache_bytes = NAN;
	tr->step_time_s = NAN;
	tr->recovered = 0;
	tr->min_step_log = NAN;
	tr->min_plateau_s = NAN;
	tr->min_n = 0;
	tr->min_n_levels = 0;

	switch (p->kind) {
	case BF_SYN_STEADY:
	case BF_SYN_STEADY_DIPS:
		lo = real ? 918 : 90;
		tr->class = BF_CLASS_STEADY;
		tr->peak_mbps = tr->floor_mbps = lo;
		return ph_add(ph, 0, lo);

	case BF_SYN_CACHE:
	case BF_SYN_CACHE_SHORT:
	case BF_SYN_CACHE_BURSTS:
	case BF_SYN_CACHE_SMALL:
	case BF_SYN_CACHE_FLICKER:
		if (p->kind == BF_SYN_CACHE_SMALL) {
			hi = real ? 1524 : 150;
			lo = real ? 1132 : 111;
		} else {
			hi = real ? 2555 : 400;
			lo = real ? 127 : 40;
		}
		if (p->kind == BF_SYN_CACHE_SHORT)
			ts = (3 + 0.8 * rng_unif(r)) * p->dt;
		else if (p->kind == BF_SYN_CACHE_BURSTS)
			ts = (0.15 + 0.1 * rng_unif(r)) * T;
		else
			ts = (0.25 + 0.3 * rng_unif(r)) * T;
		tr->class = BF_CLASS_CACHE_EXHAUSTION;
		tr->peak_mbps = hi;
		tr->floor_mbps = lo;
		tr->cache_bytes = hi * 1e6 * ts;
		tr->step_time_s = ts;
		tr->min_step_log = log(hi / lo);
		tr->min_plateau_s = fmin(ts, T - ts);
		ret = ph_add(ph, 0, hi);
		if (p->kind != BF_SYN_CACHE_FLICKER) {
			ret = ret ?: ph_add(ph, ts, lo);
		} else {
			/*
			 * The floor flips between 0.7 and 1.3 times its
			 * level about once a sample: a rate limiter's
			 * bursts beating with the sampling interval, as
			 * make demo recorded on a loaded host (18 and 34
			 * MB/s in turns at 200 ms, the QEMU rig's slc model
			 * behind a throttle). A long job gets the level.
			 */
			bool up = false;

			for (t = ts; t < T && !ret; up = !up) {
				ret = ph_add(ph, t, (up ? 1.3 : 0.7) * lo);
				t += p->dt * (0.6 + 0.8 * rng_unif(r));
			}
		}
		if (ret || p->kind != BF_SYN_CACHE_BURSTS)
			return ret;
		/*
		 * The controller frees a little SLC now and then: bursts at
		 * 40 % of the peak, each ~300 MB (or 2 % of the run, if less),
		 * every ~10 % of the run, at least 10 samples apart (closer bursts
		 * are an oscillation, not bursts).
		 */
		w = fmin(300e6 / (0.4 * hi * 1e6), 0.02 * T);
		period = fmax(0.1 * T, 10 * p->dt);
		for (t = ts + period * (0.4 + 0.3 * rng_unif(r));
		     t + w < T && !ret;
		     t += period * (0.8 + 0.4 * rng_unif(r)))
			ret = ph_add(ph, t, 0.4 * hi) ?: ph_add(ph, t + w, lo);
		return ret;

	case BF_SYN_THERMAL_STAGES: {
		static const double f[] = { 0.2, 0.15, 0.15, 0.25, 0.25 };
		double l[] = { 863, 700, 445, 195, 695 };

		for (i = 0; i < 5; i++)
			l[i] *= real ? 1 : 200.0 / 863;
		tr->class = BF_CLASS_THERMAL_THROTTLING;
		tr->peak_mbps = l[0];
		tr->floor_mbps = l[3];
		tr->recovered = 1;
		tr->min_step_log = log(863.0 / 700);
		tr->min_plateau_s = 0.15 * 0.95 * T;
		return ph_stages(ph, T, f, l, 5, r);
	}
	case BF_SYN_THERMAL_DOWN: {
		static const double f[] = { 0.3, 0.3, 0.4 };
		double h = real ? 863 : 200, l[] = { h, 0.75 * h, 0.5 * h };

		tr->class = BF_CLASS_THERMAL_THROTTLING;
		tr->peak_mbps = l[0];
		tr->floor_mbps = l[2];
		tr->min_step_log = log(1.5);
		tr->min_plateau_s = 0.3 * 0.95 * T;
		return ph_stages(ph, T, f, l, 3, r);
	}
	case BF_SYN_THERMAL_SAW: {
		static const double f[] = { 0.18, 0.15, 0.18, 0.15, 0.18, 0.16 };
		double h = real ? 863 : 200, l[6];

		for (i = 0; i < 6; i++)
			l[i] = i & 1 ? 0.5 * h : h;
		tr->class = BF_CLASS_THERMAL_THROTTLING;
		tr->peak_mbps = h;
		tr->floor_mbps = 0.5 * h;
		tr->recovered = 1;
		tr->min_step_log = log(2.0);
		tr->min_plateau_s = 0.15 * 0.95 * T;
		return ph_stages(ph, T, f, l, 6, r);
	}
	case BF_SYN_THERMAL_HOTSTART: {
		/*
		 * The QEMU rig's thermal model sampled coarsely: full speed
		 * until the controller heats up (4-8 % of the run, at least 3
		 * samples), then a throttle cycle well below it.
		 */
		double per = (4 + 8 * rng_unif(r)) * p->dt;
		double warm = fmax(3 * p->dt, (0.04 + 0.04 * rng_unif(r)) * T);
		bool hot = false;

		double h = per / 2 / p->dt, z;

		hi = real ? 700 : 40;
		lo = real ? 300 : 15;
		tr->class = BF_CLASS_THERMAL_THROTTLING;
		tr->peak_mbps = 4 * hi;
		tr->floor_mbps = lo;
		tr->recovered = 1;
		/*
		 * A cycle is told from a floor that merely jitters by its
		 * levels holding: n samples at h per level make n / h runs
		 * where a random order makes n / 2, sd sqrt(n) / 2, so
		 * z = -sqrt(n) (1 - 2 / h). The classifier asks for 1.645;
		 * the samples that straddle a switch add runs, so fewer
		 * than give z = 2.5 (and any cycle of 2 samples per level
		 * or less) cannot show this shape.
		 */
		z = h > 2 ? 2.5 / (1 - 2 / h) : INFINITY;
		tr->min_n = z * z < 1e9 ? (size_t)ceil(z * z * T / (T - warm)) :
			    SIZE_MAX;
		ret = ph_add(ph, 0, 4 * hi);
		for (t = warm; t < T && !ret; hot = !hot) {
			ret = ph_add(ph, t, hot ? lo : hi);
			t += per / 2 * (0.9 + 0.2 * rng_unif(r));
		}
		return ret;
	}
	case BF_SYN_THERMAL_CYCLE: {
		/*
		 * A controller cycling around its throttle temperature with
		 * hysteresis (the QEMU rig's thermal model): hot and cool
		 * halves of a regular period, +-10 % jitter. The period is
		 * 4 to 16 samples and at least 2 s, as the rig's sawtooth
		 * (about 1 s at each level): a controller does not heat,
		 * throttle and cool again in a fraction of a second.
		 */
		double per = fmax((4 + 12 * rng_unif(r)) * p->dt, 2.0);
		bool hot = false;

		hi = real ? 700 : 40;
		lo = real ? 300 : 15;
		tr->class = BF_CLASS_THERMAL_THROTTLING;
		tr->peak_mbps = hi;
		tr->floor_mbps = lo;
		tr->recovered = 1;
		/* regular vs random switching needs ~100 samples to tell */
		tr->min_n = 100;
		for (t = 0; t < T && !ret; hot = !hot) {
			ret = ph_add(ph, t, hot ? lo : hi);
			t += per / 2 * (0.9 + 0.2 * rng_unif(r));
		}
		return ret;
	}
	case BF_SYN_FTL_ERRATIC:
	case BF_SYN_FTL_FAST: {
		/*
		 * GC steals the bandwidth at random moments: memoryless
		 * switching, each stretch 1 sample plus an exponential part
		 * of mean 2-3 (fast: 0.7) samples; short records get the
		 * shorter mean so that they still hold a dozen switches.
		 */
		double dmin = 1;
		double mean = p->kind == BF_SYN_FTL_FAST ? 0.7 :
			      (p->n < 100 ? 2 : 3);
		bool up = rng_unif(r) < 0.5;

		hi = real ? 940 : 150;
		lo = real ? 120 : 25;
		tr->class = BF_CLASS_FTL_STARVATION;
		tr->peak_mbps = hi;
		tr->floor_mbps = lo;
		tr->recovered = -1;
		/*
		 * With a stretch of ~1.7 samples, 40 % of the samples mix both
		 * levels: 50 samples hold too few clean ones for the levels.
		 */
		if (p->kind == BF_SYN_FTL_FAST)
			tr->min_n_levels = 100;
		for (t = 0; t < T && !ret; up = !up) {
			ret = ph_add(ph, t, up ? hi : lo);
			t += (dmin - mean * log(1 - rng_unif(r))) * p->dt;
		}
		return ret;
	}
	case BF_SYN_FTL_BACKWARDS:
	case BF_SYN_FTL_SLOWFIRST: {
		static const double f[] = { 0.33, 0.33, 0.34 };
		double l[3];

		hi = real ? 940 : 150;
		lo = real ? 120 : 25;
		l[0] = lo;
		l[1] = hi;
		l[2] = lo;
		tr->class = BF_CLASS_FTL_STARVATION;
		tr->peak_mbps = hi;
		tr->floor_mbps = lo;
		tr->recovered = -1;
		if (p->kind == BF_SYN_FTL_SLOWFIRST) {
			static const double f2[] = { 0.4, 0.6 };

			return ph_stages(ph, T, f2, l, 2, r);
		}
		return ph_stages(ph, T, f, l, 3, r);
	}
	case BF_SYN_NKINDS:
		break;
	}
	return -EINVAL;
}

int bf_synth_gen(const struct bf_synth_params *p, struct bf_series *ser,
		 struct bf_synth_truth *truth)
{
	struct rng r = { p->seed * 0x2545f4914f6cdd1dULL + p->kind };
	struct phases ph = { 0 };
	double bytes = 0;
	size_t i, k = 0;
	bool lastdip = true;
	int ret;

	if (p->n < 3 || !(p->dt > 0))
		return -EINVAL;
	ret = build(p, &ph, truth, &r);
	for (i = 0; i < p->n && !ret; i++) {
		double a = i * p->dt, b = a + p->dt, acc = 0, x;

		/* exact average of the phases over [a, b) */
		while (k + 1 < ph.n && ph.t0[k + 1] <= a)
			k++;
		for (size_t j = k; j < ph.n && ph.t0[j] < b; j++) {
			double lo = fmax(a, ph.t0[j]);
			double hi = j + 1 < ph.n ? fmin(b, ph.t0[j + 1]) : b;

			if (hi > lo)
				acc += ph.rate[j] * (hi - lo);
		}
		x = acc / p->dt * (1 + p->noise * rng_norm(&r));
		if (p->kind == BF_SYN_STEADY_DIPS && !lastdip &&
		    i + 2 < p->n && rng_unif(&r) < 0.02) {
			x *= 0.4 * rng_unif(&r);	/* a one-sample stall */
			lastdip = true;
		} else {
			lastdip = i < 1;
		}
		if (x < 0)
			x = 0;
		bytes += x * 1e6 * p->dt;
		ret = bf_series_push(ser, b, p->dt, x, bytes);
	}
	free(ph.t0);
	free(ph.rate);
	return ret;
}

size_t bf_synth_set(struct bf_synth_params *p, size_t max)
{
	static const double noise[] = { 0.02, 0.05, 0.10 };
	static const double dt[] = { 0.1, 0.5, 1, 5 };
	static const size_t len[] = { 50, 300, 2000 };
	size_t cnt = 0;
	int k, s, a, b, c;

	for (k = 0; k < BF_SYN_NKINDS; k++)
		for (s = 0; s < 2; s++)
			for (a = 0; a < 3; a++)
				for (b = 0; b < 4; b++)
					for (c = 0; c < 3; c++, cnt++) {
						if (!p || cnt >= max)
							continue;
						p[cnt] = (struct bf_synth_params){
							.kind = k,
							.scale = s,
							.noise = noise[a],
							.dt = dt[b],
							.n = len[c],
							.seed = 1000 + cnt,
						};
					}
	return cnt;
}

int bf_synth_write(FILE *f, const struct bf_series *ser,
		   enum bf_synth_format fmt, const char *comment)
{
	size_t i;

	switch (fmt) {
	case BF_FMT_TRACE:
		fprintf(f, "# blkfloor-trace v1\n# device: synthetic\n");
		if (comment)
			fprintf(f, "# model: %s\n", comment);
		fprintf(f, "# op: write\n# pattern: seq\n");
		fprintf(f, "index,start_s,end_s,bytes,ios,errors,MBps,lat_min_us,lat_mean_us,lat_p50_us,lat_p99_us,lat_p999_us,lat_max_us,bytes_total\n");
		for (i = 0; i < ser->n; i++) {
			const struct bf_sample *s = &ser->s[i];
			double by = s->mbps * 1e6 * s->dt;

			fprintf(f, "%zu,%.6f,%.6f,%.0f,%.0f,0,%.3f,0.000,0.000,0.000,0.000,0.000,0.000,%.0f\n",
				i, s->t - s->dt, s->t, by, ceil(by / 131072),
				s->mbps, s->bytes);
		}
		fprintf(f, "# state: done\n");
		break;
	case BF_FMT_FIO:
		/* msec (end of window), KiB/s, ddir, bs, offset */
		for (i = 0; i < ser->n; i++)
			fprintf(f, "%.0f, %.0f, 1, 131072, 0\n",
				ser->s[i].t * 1000, ser->s[i].mbps * 1e6 / 1024);
		break;
	case BF_FMT_CSV:
		if (comment)
			fprintf(f, "# %s\n", comment);
		fprintf(f, "seconds,MB/s\n");
		for (i = 0; i < ser->n; i++)
			fprintf(f, "%.6f,%.4f\n", ser->s[i].t, ser->s[i].mbps);
		break;
	}
	return ferror(f) ? -EIO : 0;
}
