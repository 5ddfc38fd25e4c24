// SPDX-License-Identifier: GPL-2.0
/*
 * The stop rule of sustain: has the floor after a step been established?
 * See steady.h.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "classify.h"
#include "stats.h"
#include "steady.h"

void bf_steady_cfg_default(struct bf_steady_cfg *cfg)
{
	cfg->rounds = 5;
	cfg->range_rel = 0.20;
	cfg->excursion_rel = 0.10;
	cfg->round_s = 10;
	cfg->step_ratio = 1.2;
	cfg->min_past_rel = 0.125;
	cfg->min_past_bytes = 0;
}

void bf_steady_init(struct bf_steady *st, const struct bf_steady_cfg *cfg)
{
	memset(st, 0, sizeof(*st));
	if (cfg)
		st->cfg = *cfg;
	else
		bf_steady_cfg_default(&st->cfg);
	if (st->cfg.rounds < 2)
		st->cfg.rounds = 2;
	if (st->cfg.rounds > BF_STEADY_MAX_ROUNDS)
		st->cfg.rounds = BF_STEADY_MAX_ROUNDS;
	if (!(st->cfg.step_ratio > 1))
		st->cfg.step_ratio = 1.2;
	if (!(st->cfg.round_s > 0))
		st->cfg.round_s = 10;
}

static double win_mean(const struct bf_steady *st)
{
	double s = 0;
	unsigned int i;

	for (i = 0; i < st->nwin; i++)
		s += st->win[i];
	return st->nwin ? s / st->nwin : 0;
}

/* Range and fitted line's excursion over the window, relative to its mean. */
static void window_check(struct bf_steady *st)
{
	double m = win_mean(st), lo = st->win[0], hi = st->win[0];
	double sx = 0, sxy = 0, sxx = 0, n = st->nwin, slope;
	unsigned int i;

	for (i = 0; i < st->nwin; i++) {
		lo = fmin(lo, st->win[i]);
		hi = fmax(hi, st->win[i]);
		sx += i;
		sxx += (double)i * i;
		sxy += i * st->win[i];
	}
	slope = (sxy - sx * m) / (sxx - sx * sx / n);
	st->level_mbps = m;
	st->range = m > 0 ? (hi - lo) / m : INFINITY;
	st->excursion = m > 0 ? fabs(slope) * (n - 1) / m : INFINITY;
}

/*
 * The level that holds is a recovery, not the floor: it came after a step
 * up (a drive that cooled, a cache that refilled), or, when the low level
 * lasted less than a round and no step up was seen, it is well above the
 * rate measured right after the last step. Returns the rate it recovered
 * from, or 0. See steady.h.
 */
double bf_steady_recovered_from(const struct bf_steady *st)
{
	const struct bf_steady_step *last;

	if (!st->nsteps || st->switching)
		return 0;
	last = &st->steps[st->nsteps - 1];
	if (last->ratio < 1)
		return st->level_mbps * last->ratio;
	if (st->level_mbps > st->cfg.step_ratio * last->after_mbps)
		return last->after_mbps;
	return 0;
}

bool bf_steady_moderate(const struct bf_steady *st, unsigned int *n)
{
	unsigned int i, down = 0;

	for (i = 0; i < st->nsteps; i++) {
		if (st->steps[i].ratio <= 1)
			continue;
		if (st->steps[i].ratio >= BF_STEADY_MODERATE)
			return false;
		down++;
	}
	if (n)
		*n = down;
	return down > 0 && st->nsteps == st->nchanges;
}

/*
 * A staircase of moderate steps down (no step up): the current level has
 * not yet held BF_STEADY_STAGE_HOLD times as long as the longest stage
 * before it, so it may be one more stage.
 */
static bool stage_too_short(const struct bf_steady *st)
{
	double prev = 0, longest = 0;
	unsigned int i, down;

	if (!bf_steady_moderate(st, &down) || down < 2 || down != st->nsteps)
		return false;
	for (i = 0; i < st->nsteps; i++) {
		longest = fmax(longest, st->steps[i].time_s - prev);
		prev = st->steps[i].time_s;
	}
	return st->secs - prev < BF_STEADY_STAGE_HOLD * longest;
}

static void push_round(struct bf_steady *st, double mbps)
{
	if (st->nwin == st->cfg.rounds) {
		memmove(st->win, st->win + 1, (st->nwin - 1) * sizeof(st->win[0]));
		st->nwin--;
	}
	st->win[st->nwin++] = mbps;
	st->nrounds++;
}

/* Remember @v as the latest of the last BF_STEADY_SWITCHES levels. */
static void keep_level(double *v, unsigned int *n, double x)
{
	if (*n >= BF_STEADY_SWITCHES)
		memmove(v, v + 1, (BF_STEADY_SWITCHES - 1) * sizeof(v[0]));
	v[*n >= BF_STEADY_SWITCHES ? BF_STEADY_SWITCHES - 1 : *n] = x;
	(*n)++;
}

/*
 * A switching floor (see steady.h): enough falls and climbs past the
 * first step down and the minimum, the last lows within the range.
 */
static bool switching_floor(struct bf_steady *st)
{
	double lo = INFINITY, hi = 0, s = 0;
	unsigned int i;

	if (st->nlows < BF_STEADY_SWITCHES || st->nhighs < BF_STEADY_SWITCHES ||
	    st->bytes - st->cache_bytes < st->min_past)
		return false;
	for (i = 0; i < BF_STEADY_SWITCHES; i++) {
		lo = fmin(lo, st->lows[i]);
		hi = fmax(hi, st->lows[i]);
		s += st->lows[i];
	}
	s /= BF_STEADY_SWITCHES;
	if (!(s > 0) || (hi - lo) / s > st->cfg.range_rel)
		return false;
	st->switching = true;
	st->level_mbps = s;
	st->range = (hi - lo) / s;
	st->excursion = 0;
	return true;
}

/* A step at the start of the run of deviating intervals. */
static void step(struct bf_steady *st, double level)
{
	double after = st->dev_t > 0 ? st->dev_b / st->dev_t / 1e6 : 0;
	struct bf_steady_step *s;

	if (!(after > 0))
		after = st->rt > 0 ? st->rb / st->rt / 1e6 : level;
	if (st->nsteps < BF_STEADY_MAX_STEPS) {
		s = &st->steps[st->nsteps++];
		s->bytes = st->dev_bytes;
		s->time_s = st->dev_time;
		s->ratio = level / after;
		s->after_mbps = after;
	}
	st->nchanges++;
	if (st->has_down) {
		if (level > after)
			keep_level(st->lows, &st->nlows, after);
		else
			keep_level(st->highs, &st->nhighs, after);
	}
	if (level > after && !st->has_down) {
		st->has_down = true;
		st->cache_bytes = st->dev_bytes;
	}
	if (st->has_down)
		st->min_past = fmax(st->cfg.min_past_bytes,
				    st->cfg.min_past_rel * st->cache_bytes);
	/* the new plateau starts where the step did, its rounds sized
	 * from the rate after it */
	st->plateau_bytes = st->dev_bytes;
	st->round_bytes = after * 1e6 * st->cfg.round_s;
	st->nwin = 0;
	st->nrounds = 0;
	st->range = st->excursion = 0;
	st->level_mbps = after;
	st->dev_dir = 0;
}

/* Follow the run of intervals off the level (for the step's position). */
static void track_deviation(struct bf_steady *st, double dt, double bytes)
{
	double level = st->nwin ? win_mean(st) : 0, r = bytes / dt / 1e6;
	int dir = 0;

	if (level > 0 && r < level / st->cfg.step_ratio)
		dir = -1;
	else if (level > 0 && r > level * st->cfg.step_ratio)
		dir = 1;
	if (dir && dir == st->dev_dir) {
		st->dev_b += bytes;
		st->dev_t += dt;
		return;
	}
	st->dev_dir = dir;
	st->dev_bytes = st->bytes;
	st->dev_time = st->secs;
	st->dev_b = dir ? bytes : 0;
	st->dev_t = dir ? dt : 0;
}

/*
 * A step down inside the first round: its intervals split in two where
 * the log rates' absolute deviations from the two sides' medians are least,
 * the first side 2 intervals or more, the second 4 or more; a step when
 * the sides (their medians) differ by
 * the step ratio and by 3 standard errors of the difference of their
 * medians (the noise a robust spread of the sides; an interval beside the
 * split that lies between the two levels straddles it and is left out).
 * The rounds then go
 * on from the split, as after any step. Returns true if there was one.
 */
static bool first_round_step(struct bf_steady *st)
{
	unsigned int n = st->nfirst, i, k, best = 0, na = 0, nb = 0;
	double y[BF_STEADY_FIRST_MAX], dev[BF_STEADY_FIRST_MAX];
	double ab = 0, at = 0, bb = 0, bt = 0, ma, mb, sd, cost = INFINITY;
	double va[BF_STEADY_FIRST_MAX], vb[BF_STEADY_FIRST_MAX];

	if (n < 5)
		return false;
	for (i = 0; i < n; i++) {
		if (!(st->first_b[i] > 0))
			return false;
		y[i] = log(st->first_b[i] / st->first_t[i] / 1e6);
	}
	/* absolute deviations from each side's median: a dip or two on
	 * the floor must not move the split */
	for (k = 2; k + 4 <= n; k++) {
		double c = 0, m;

		memcpy(va, y, k * sizeof(y[0]));
		m = bf_median(va, k);
		for (i = 0; i < k; i++)
			c += fabs(y[i] - m);
		memcpy(vb, y + k, (n - k) * sizeof(y[0]));
		m = bf_median(vb, n - k);
		for (i = k; i < n; i++)
			c += fabs(y[i] - m);
		if (c < cost) {
			cost = c;
			best = k;
		}
	}
	k = best;
	if (!k)
		return false;
	/* the sides without the intervals next to the split that lie
	 * between their levels: those straddle the step */
	memcpy(va, y, k * sizeof(y[0]));
	ma = bf_median(va, k);
	memcpy(vb, y + k, (n - k) * sizeof(y[0]));
	mb = bf_median(vb, n - k);
	for (i = 0; i < n; i++) {
		if ((i + 1 == k || i == k) && y[i] < ma && y[i] > mb)
			continue;
		if (i < k)
			va[na++] = y[i];
		else
			vb[nb++] = y[i];
	}
	ma = bf_median(va, na);
	mb = bf_median(vb, nb);
	for (i = 0; i < na; i++)
		dev[i] = fabs(va[i] - ma);
	for (i = 0; i < nb; i++)
		dev[na + i] = fabs(vb[i] - mb);
	sd = fmax(1.4826 * bf_median(dev, na + nb), 0.005);
	if (!(ma - mb >= log(st->cfg.step_ratio)) ||
	    !(ma - mb >= 3 * sd * sqrt(1.0 / na + 1.0 / nb)))
		return false;
	/* coarse rates (a slow device's few KiB/s) leave the median
	 * deviation at zero: the sides must also be apart interval by
	 * interval, nine pairs in ten (ties half) faster before the split */
	for (i = 0, cost = 0; i < na * nb; i++)
		cost += va[i / nb] > vb[i % nb] ? 1 :
			va[i / nb] == vb[i % nb] ? 0.5 : 0;
	if (cost < 0.9 * na * nb)
		return false;
	for (i = 0; i < n; i++) {
		if (i < k) {
			ab += st->first_b[i];
			at += st->first_t[i];
		} else {
			bb += st->first_b[i];
			bt += st->first_t[i];
		}
	}
	/* as if the intervals from the split on had been a run off the
	 * level: step() starts the new plateau there */
	st->dev_dir = -1;
	st->dev_bytes = ab;
	st->dev_time = at;
	st->dev_b = bb;
	st->dev_t = bt;
	step(st, exp(ma));
	st->rb = bb;
	st->rt = bt;
	return true;
}

bool bf_steady_add(struct bf_steady *st, double dt, double bytes)
{
	double m, level;
	bool full;

	if (st->holds)
		return true;
	if (!(dt > 0) || !(bytes >= 0))
		return false;
	/* a stall (a hang, a reset, a starved host) is not the floor: kept
	 * out of the rounds, as the classifier keeps it out of plateaus */
	if (bytes / dt / 1e6 < BF_STEADY_STALL_REL *
			       (st->nwin ? win_mean(st) : st->level_mbps)) {
		st->bytes += bytes;
		st->secs += dt;
		st->stalled += dt;
		return false;
	}
	track_deviation(st, dt, bytes);
	st->bytes += bytes;
	st->secs += dt;
	/* a step shows in a round's time: do not wait for a round of
	 * the old plateau's bytes at a rate many times lower */
	if (st->nwin && st->dev_dir && st->dev_t >= st->cfg.round_s) {
		step(st, win_mean(st));
		st->rb = st->rt = 0;
		st->holds = switching_floor(st);
		return st->holds;
	}
	st->rb += bytes;
	st->rt += dt;
	if (!st->nrounds && !st->nchanges && st->nfirst < BF_STEADY_FIRST_MAX) {
		st->first_b[st->nfirst] = bytes;
		st->first_t[st->nfirst++] = dt;
	}
	full = st->round_bytes > 0 ? st->rb >= st->round_bytes :
				     st->rt >= st->cfg.round_s;
	if (!full)
		return false;
	if (!st->nrounds && !st->nchanges && first_round_step(st))
		return false;
	m = st->rb / st->rt / 1e6;
	if (!st->round_bytes)
		st->round_bytes = m * 1e6 * st->cfg.round_s;
	st->rb = st->rt = 0;
	level = win_mean(st);
	if (st->nwin && (m < level / st->cfg.step_ratio ||
			 m > level * st->cfg.step_ratio) && st->dev_dir) {
		step(st, level);
		st->holds = switching_floor(st);
		return st->holds;
	}
	push_round(st, m);
	if (st->nwin < st->cfg.rounds)
		return false;
	window_check(st);
	if (!st->has_down || st->bytes - st->plateau_bytes < st->min_past ||
	    stage_too_short(st))
		return false;
	st->holds = st->range <= st->cfg.range_rel &&
		    st->excursion <= st->cfg.excursion_rel;
	return st->holds;
}

void bf_steady_status(const struct bf_steady *st, char *buf, size_t len)
{
	char a[32], b[32];

	if (st->holds && st->switching) {
		bf_fmt_mbps(a, sizeof(a), st->level_mbps);
		snprintf(buf, len, "switching floor at %s MB/s", a);
		return;
	}
	if (st->holds) {
		bf_fmt_mbps(a, sizeof(a), st->level_mbps);
		snprintf(buf, len, "%s holds at %s MB/s",
			 bf_steady_recovered_from(st) > 0 ? "recovered level" : "floor", a);
		return;
	}
	if (!st->has_down) {
		snprintf(buf, len, "no step yet");
		return;
	}
	bf_fmt_si_bytes(a, sizeof(a), st->bytes - st->plateau_bytes);
	bf_fmt_si_bytes(b, sizeof(b), st->min_past);
	if (st->nwin < st->cfg.rounds)
		snprintf(buf, len, "floor: round %u/%u, %s/%s past the step",
			 st->nwin, st->cfg.rounds, a, b);
	else
		snprintf(buf, len, "floor: range %.0f%%, trend %.0f%%, %s/%s past the step",
			 100 * st->range, 100 * st->excursion, a, b);
}

void bf_steady_said(const struct bf_steady *st, double region, char *buf,
		    size_t len)
{
	char past[32], at[32], of[40] = "", tot[32], lvl[32];
	unsigned int ndown;
	const struct bf_steady_step *last = st->nsteps ?
		&st->steps[st->nsteps - 1] : NULL;

	if (region > 0) {
		bf_fmt_si_bytes(tot, sizeof(tot), region);
		snprintf(of, sizeof(of), " of %s", tot);
	}
	bf_fmt_si_bytes(tot, sizeof(tot), st->bytes);
	if (st->holds && bf_steady_recovered_from(st) > 0) {
		char low[32];

		/* what held is a recovery: the floor came before it */
		bf_fmt_si_bytes(past, sizeof(past), st->bytes - last->bytes);
		bf_fmt_si_bytes(at, sizeof(at), last->bytes);
		bf_fmt_mbps(lvl, sizeof(lvl), st->level_mbps);
		bf_fmt_mbps(low, sizeof(low), bf_steady_recovered_from(st));
		snprintf(buf, len,
			 "stopped %s past a step %s at %s%s: the rate recovered from %s to %s MB/s and held for %u rounds (range %.0f %%, trend %.0f %%); the floor is the level before it; a drive may fall again when it heats up or its free space runs out; `--until full` writes it all",
			 past, last->ratio < 1 ? "up" : "down and up", at, of,
			 low, lvl, st->nwin, 100 * st->range,
			 100 * st->excursion);
		return;
	}
	if (st->holds && st->switching) {
		char high[32];
		double h = 0;
		unsigned int i;

		for (i = 0; i < BF_STEADY_SWITCHES; i++)
			h += st->highs[i] / BF_STEADY_SWITCHES;
		bf_fmt_si_bytes(past, sizeof(past), st->bytes - st->cache_bytes);
		bf_fmt_si_bytes(at, sizeof(at), st->cache_bytes);
		bf_fmt_mbps(lvl, sizeof(lvl), st->level_mbps);
		bf_fmt_mbps(high, sizeof(high), h);
		snprintf(buf, len,
			 "stopped %s past a step at %s%s: the rate kept switching between about %s and %s MB/s (%u changes), its last %u low levels within %.0f %% of %s MB/s, the floor; a floor that switches is what an FTL short of free blocks or a cycling throttle does; `--until full` writes it all",
			 past, at, of, lvl, high, st->nchanges,
			 BF_STEADY_SWITCHES, 100 * st->range, lvl);
		return;
	}
	if (st->holds && last) {
		bf_fmt_si_bytes(past, sizeof(past), st->bytes - last->bytes);
		bf_fmt_si_bytes(at, sizeof(at), last->bytes);
		bf_fmt_mbps(lvl, sizeof(lvl), st->level_mbps);
		if (bf_steady_moderate(st, &ndown))
			snprintf(buf, len,
				 "stopped %s past a step at %s%s: the rate held at %s MB/s for %u rounds (range %.0f %%, trend %.0f %%) after %u moderate step%s down, as heat makes them as well as a cache; a drive that heats can step down again minutes later, so this may not have seen the floor; `--until full` writes it all",
				 past, at, of, lvl, st->nwin, 100 * st->range,
				 100 * st->excursion, ndown,
				 ndown > 1 ? "s" : "");
		else
			snprintf(buf, len,
				 "stopped %s past a step at %s%s: the floor held at %s MB/s for %u rounds (range %.0f %%, trend %.0f %%); a drive may slow again when its free space runs out; `--until full` writes it all",
				 past, at, of, lvl, st->nwin, 100 * st->range,
				 100 * st->excursion);
		return;
	}
	if (!st->has_down) {
		snprintf(buf, len,
			 "wrote %s%s without a step: a drive whose cache is larger than that would step later, and cannot be told from one without a cache",
			 tot, of);
		return;
	}
	bf_fmt_si_bytes(at, sizeof(at), last ? last->bytes : st->cache_bytes);
	snprintf(buf, len,
		 "wrote %s%s; the floor after the step at %s did not hold before the write ended (%u of %u rounds, range %.0f %%, trend %.0f %%)%s",
		 tot, of, at, st->nwin, st->cfg.rounds, 100 * st->range,
		 100 * st->excursion, stage_too_short(st) ?
		 "; the rate fell in moderate steps, as heat makes them, and may not have seen the floor" : "");
}
