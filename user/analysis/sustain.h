/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sustain's stop (--until), fed one measurement interval at a time: the
 * CLI feeds it a blkfloor run's intervals (cmd_run.c), the unit tests a
 * simulated drive's (tests/simdrive.c), through the same calls. With
 * --until floor the write stops once the floor after a step holds
 * (steady.c, a round being ten intervals' worth); with full, a size or a
 * time, the run's own limits end it and this only words where.
 */
#ifndef BLKFLOOR_SUSTAIN_H
#define BLKFLOOR_SUSTAIN_H

#include <stdbool.h>
#include <stddef.h>

#include "json.h"
#include "steady.h"

/* sustain --until: when the write stops */
enum bf_until {
	BF_UNTIL_FLOOR,		/* the floor after a step holds (default) */
	BF_UNTIL_FULL,		/* the whole region */
	BF_UNTIL_SIZE,		/* @until_bytes written */
	BF_UNTIL_TIME,		/* @until_ns elapsed */
};

struct bf_sustain {
	enum bf_until until;
	double region;		/* bytes the write may cover */
	struct bf_steady st;	/* with BF_UNTIL_FLOOR */
	char status[128];	/* the rule's state, for the progress line */
};

const char *bf_until_name(enum bf_until u);

/* Start; @interval_s is the run's measurement interval. */
void bf_sustain_init(struct bf_sustain *s, enum bf_until until,
		     double interval_s, double region);

/* One interval of @dt seconds, @bytes written. True: stop the write now. */
bool bf_sustain_interval(struct bf_sustain *s, double dt, double bytes);

/* Where the write stopped and why, one sentence; @written: its bytes. */
void bf_sustain_said(const struct bf_sustain *s, double written, char *buf,
		     size_t len);

/* The JSON "stop" object, @said being bf_sustain_said()'s sentence. */
void bf_sustain_json(struct bf_json *j, const struct bf_sustain *s,
		     const char *said);

#endif /* BLKFLOOR_SUSTAIN_H */
