// SPDX-License-Identifier: GPL-2.0
/*
 * Steps whose origin is outside the drive: see origin.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "origin.h"
#include "stats.h"

/* as the classifier's stalls: under 2 % of the upper quartile, >= 1 s */
#define STALL_REL	0.02
#define STALL_MIN_S	1.0

static bool drive_cause(enum bf_class c)
{
	return c == BF_CLASS_CACHE_EXHAUSTION ||
	       c == BF_CLASS_THERMAL_THROTTLING ||
	       c == BF_CLASS_FTL_STARVATION;
}

/* The rate under which a sample is stalled; the median interval. */
static int stall_limit(const struct bf_sample *s, size_t n, double *limit,
		       double *dt)
{
	double *v = malloc(n * sizeof(*v));
	size_t i;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		v[i] = s[i].mbps;
	*limit = STALL_REL * bf_select(v, n, n * 3 / 4);
	for (i = 0; i < n; i++)
		v[i] = s[i].dt;
	*dt = bf_median(v, n);
	free(v);
	return 0;
}

void bf_report_stall_steps(const struct bf_sample *s, size_t n,
			   struct bf_report *r)
{
	double limit, dt, start = 0, len = 0;
	size_t i, k;

	if (!drive_cause(r->class) || !r->nsteps || n < 3 ||
	    stall_limit(s, n, &limit, &dt))
		return;
	for (i = 0; i <= n; i++) {
		const struct bf_step *st = NULL;

		if (i < n && s[i].mbps < limit) {
			if (!len)
				start = s[i].t - s[i].dt;
			len += s[i].dt;
			continue;
		}
		if (len < STALL_MIN_S) {
			len = 0;
			continue;
		}
		/* a stall ended at start + len: a step where it ended? */
		for (k = 0; k < r->nsteps && !st; k++)
			if (r->steps[k].time_s >= start - dt &&
			    r->steps[k].time_s <= start + len + 2 * dt)
				st = &r->steps[k];
		if (st) {
			char was[32];

			snprintf(was, sizeof(was), "%s", bf_class_name(r->class));
			snprintf(r->reason, sizeof(r->reason),
				 "a %.2fx step %s right after a %.1f s stall at %.1f s, with no event recorded to explain it (the shape alone said %s)",
				 st->ratio >= 1 ? st->ratio : 1 / st->ratio,
				 st->ratio >= 1 ? "down" : "up", len, start, was);
			snprintf(r->explain, sizeof(r->explain),
				 "Unclear: %s. A stall (a hung device, a reset, a starved host) followed by a new rate is as likely the link or the host as the drive: a USB 3 link that reset and came back at USB 2 speed, a UAS bridge that fell back to usb-storage. Measure again with blkfloor sustain, which follows the path and names such events, or check the kernel log of the run.",
				 r->reason);
			r->class = BF_CLASS_UNCLEAR;
			r->confidence = 0;
			r->has_step = false;
			r->cache_bytes = 0;
			r->step_time_s = 0;
			return;
		}
		len = 0;
	}
}

static unsigned int *link_count(struct bf_link_events *l, const char *kind)
{
	if (!strcmp(kind, "abort"))
		return &l->abort;
	if (!strcmp(kind, "reset"))
		return &l->reset;
	if (!strcmp(kind, "timeout"))
		return &l->timeout;
	if (!strcmp(kind, "disconnect"))
		return &l->disconnect;
	if (!strcmp(kind, "offline"))
		return &l->offline;
	if (!strcmp(kind, "link"))
		return &l->link;
	if (!strcmp(kind, "host"))
		return &l->host;
	return NULL;
}

static size_t put(char *buf, size_t len, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static size_t put(char *buf, size_t len, size_t at, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (at >= len)
		return at;
	va_start(ap, fmt);
	n = vsnprintf(buf + at, len - at, fmt, ap);
	va_end(ap);
	return n < 0 ? at : at + n;
}

void bf_link_events_words(const struct bf_link_events *l, char *buf,
			  size_t len)
{
	const struct { const char *name; unsigned int n; } k[] = {
		{ "abort", l->abort }, { "timeout", l->timeout },
		{ "reset", l->reset }, { "disconnect", l->disconnect },
		{ "offline", l->offline }, { "link change", l->link },
		{ "host change", l->host },
	};
	size_t at = 0, i;

	buf[0] = '\0';
	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		if (!k[i].n)
			continue;
		at = put(buf, len, at, "%s%s %u", at ? ", " : "", k[i].name,
			 k[i].n);
	}
	if (l->nreset_s) {
		double lo = INFINITY, hi = 0;

		at = put(buf, len, at, " at");
		for (i = 0; i < l->nreset_s; i++) {
			at = put(buf, len, at, "%s %.1f", i ? "," : "",
				 l->reset_s[i]);
			if (i) {
				double d = l->reset_s[i] - l->reset_s[i - 1];

				lo = fmin(lo, d);
				hi = fmax(hi, d);
			}
		}
		at = put(buf, len, at, "%s s", l->reset > l->nreset_s ?
			 ", ..." : "");
		if (l->nreset_s > 1)
			put(buf, len, at, " (%.1f to %.1f s apart)", lo, hi);
	} else if (l->n > 1 && l->last_s > l->first_s) {
		put(buf, len, at, " from %.1f to %.1f s", l->first_s,
		    l->last_s);
	} else if (l->n) {
		put(buf, len, at, " at %.1f s", l->first_s);
	}
}

void bf_report_link_events(struct bf_report *r,
			   const struct bf_path_event *ev, size_t n)
{
	struct bf_link_events *l = &r->link;
	char words[256], st[96] = "";
	size_t i;

	memset(l, 0, sizeof(*l));
	for (i = 0; i < n; i++) {
		unsigned int *c = link_count(l, ev[i].kind);

		if (!c)
			continue;
		if (!l->n++)
			l->first_s = ev[i].t;
		l->last_s = ev[i].t;
		(*c)++;
		if ((c == &l->link || c == &l->host) &&
		    l->link + l->host == 1)
			l->change_s = ev[i].t;
		if (c == &l->reset && l->nreset_s < sizeof(l->reset_s) /
						 sizeof(l->reset_s[0]))
			l->reset_s[l->nreset_s++] = ev[i].t;
	}
	if (!l->n)
		return;
	bf_link_events_words(l, words, sizeof(words));
	if (r->stalls.count)
		snprintf(st, sizeof(st), ", with %u stall%s at ~0 (longest %.1f s, %.1f s in all)",
			 r->stalls.count, r->stalls.count > 1 ? "s" : "",
			 r->stalls.longest_s, r->stalls.total_s);
	if (l->link + l->host == l->n) {
		/* the path changed, nothing failed */
		snprintf(r->reason, sizeof(r->reason),
			 "the %s, not the drive: %.*s%s",
			 l->link ? "link" : "host", 100, words, st);
		snprintf(r->explain, sizeof(r->explain),
			 "Unclear: %s. The device's path changed during the run (first at %.1f s; the trace's '# event: T %s' lines say what): %s. The rate after it was set by the path, not by the drive alone; measure again on a stable path. The shape alone said %s.",
			 r->reason, l->change_s, l->link ? "link" : "host",
			 l->link ? "a USB link that came back at a lower speed, another driver (UAS to usb-storage), a PCIe link that trained down" :
			 "a request size limit or queue depth changed on the host (max_sectors_kb, queue_depth)",
			 bf_class_name(r->class));
		goto unclear;
	}
	snprintf(r->reason, sizeof(r->reason),
		 "the link, not the drive: %.*s%s", 100, words, st);
	snprintf(r->explain, sizeof(r->explain),
		 "Unclear: %s. Commands that did not complete within the SCSI command timeout were aborted and the device reset: the link or the bridge, not the drive, set the rate (a UAS bridge that stops completing commands under sustained load is the usual cause; measure the same drive over usb-storage: blkfloor transport DEV). The shape alone said %s.",
		 r->reason, bf_class_name(r->class));
unclear:
	r->class = BF_CLASS_UNCLEAR;
	r->confidence = 0;
	r->has_step = false;
	r->cache_bytes = 0;
	r->step_time_s = 0;
}
