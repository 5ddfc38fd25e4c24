/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Steps whose origin is outside the drive, read from the curve alone (an
 * imported trace carries no path events):
 * - a step right after a stall, with no event recorded to explain it, is
 *   unclear: a reset or a link that came back slower (USB 3 at USB 2
 *   speed) changes the rate as much as the drive does;
 * (a burst at memory speed at the start of a curve written through the
 * host's page cache is the host's: bf_classify_imported(), classify.h).
 */
#ifndef BLKFLOOR_ORIGIN_H
#define BLKFLOOR_ORIGIN_H

#include <stddef.h>

#include "curve.h"
#include "classify_report.h"

/*
 * bf_classify() calls this on its report: a drive cause whose step
 * follows a stall in @s[0..n) becomes unclear, with the reason.
 */
void bf_report_stall_steps(const struct bf_sample *s, size_t n,
			   struct bf_report *r);

/* One event a run recorded on its path: "# event: T KIND ..." */
struct bf_path_event {
	double t;		/* seconds into the run */
	const char *kind;	/* "reset", "abort", "timeout", ... */
};

/*
 * The link's events of a run: aborts, resets, timeouts, disconnects and
 * devices set offline (other kinds are ignored). With any, the run did
 * not measure the drive alone: a drive cause or a steady curve becomes
 * unclear, and the reason and the paragraph name the link (a bridge that
 * stopped completing commands, the kernel's aborts and resets, the
 * stalls) with the events' times; @r->link holds the counts.
 */
void bf_report_link_events(struct bf_report *r,
			   const struct bf_path_event *ev, size_t n);

/* "abort 8, reset 4 at 4.6, 7.9, 13.3, 16.6 s (3.3 to 5.4 s apart)" */
void bf_link_events_words(const struct bf_link_events *l, char *buf,
			  size_t len);

#endif /* BLKFLOOR_ORIGIN_H */
