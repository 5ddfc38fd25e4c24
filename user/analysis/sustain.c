// SPDX-License-Identifier: GPL-2.0
/*
 * sustain's stop: see sustain.h.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"
#include "sustain.h"

static const char *const until_names[] = {
	[BF_UNTIL_FLOOR] = "floor", [BF_UNTIL_FULL] = "full",
	[BF_UNTIL_SIZE] = "size", [BF_UNTIL_TIME] = "time",
};

const char *bf_until_name(enum bf_until u)
{
	return u <= BF_UNTIL_TIME ? until_names[u] : "?";
}

void bf_sustain_init(struct bf_sustain *s, enum bf_until until,
		     double interval_s, double region)
{
	struct bf_steady_cfg cfg;

	memset(s, 0, sizeof(*s));
	s->until = until;
	s->region = region;
	if (until != BF_UNTIL_FLOOR)
		return;
	/* a round: ten intervals' worth at the plateau's rate */
	bf_steady_cfg_default(&cfg);
	cfg.round_s = 10 * interval_s;
	bf_steady_init(&s->st, &cfg);
	bf_steady_status(&s->st, s->status, sizeof(s->status));
}

bool bf_sustain_interval(struct bf_sustain *s, double dt, double bytes)
{
	bool stop;

	if (s->until != BF_UNTIL_FLOOR)
		return false;
	stop = bf_steady_add(&s->st, dt, bytes);
	bf_steady_status(&s->st, s->status, sizeof(s->status));
	return stop;
}

void bf_sustain_said(const struct bf_sustain *s, double written, char *buf,
		     size_t len)
{
	char a[BF_FMT_LEN], b[BF_FMT_LEN];

	if (s->until == BF_UNTIL_FLOOR) {
		bf_steady_said(&s->st, s->region, buf, len);
		return;
	}
	bf_fmt_bytes(a, sizeof(a), (uint64_t)written);
	bf_fmt_bytes(b, sizeof(b), (uint64_t)s->region);
	snprintf(buf, len, "wrote %s of %s (--until %s)", a, b,
		 bf_until_name(s->until));
}

void bf_sustain_json(struct bf_json *j, const struct bf_sustain *s,
		     const char *said)
{
	const struct bf_steady *st = &s->st;

	bf_json_obj_open(j, "stop");
	bf_json_str(j, "until", bf_until_name(s->until));
	if (s->until == BF_UNTIL_FLOOR) {
		bf_json_bool(j, "floor_held", st->holds);
		bf_json_bool(j, "switching", st->holds && st->switching);
		bf_json_u64(j, "steps_seen", st->nchanges);
		/* heat may step down again: a floor held may not be one */
		bf_json_bool(j, "moderate_steps", bf_steady_moderate(st, NULL));
		if (st->nsteps)
			bf_json_u64(j, "last_step_bytes",
				    (uint64_t)st->steps[st->nsteps - 1].bytes);
		else
			bf_json_null(j, "last_step_bytes");
		if (st->holds && bf_steady_recovered_from(st) > 0) {
			bf_json_double(j, "floor_MBps",
				       bf_steady_recovered_from(st));
			bf_json_double(j, "recovered_MBps", st->level_mbps);
		} else if (st->holds) {
			bf_json_double(j, "floor_MBps", st->level_mbps);
			bf_json_null(j, "recovered_MBps");
		} else {
			bf_json_null(j, "floor_MBps");
			bf_json_null(j, "recovered_MBps");
		}
	}
	bf_json_str(j, "said", said);
	bf_json_obj_close(j);
}
