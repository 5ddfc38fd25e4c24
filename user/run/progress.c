// SPDX-License-Identifier: GPL-2.0
/*
 * Live progress of a run: one updating line on a terminal, plain lines
 * otherwise (at most about one a second), nothing with --quiet.
 */
#include <string.h>
#include <unistd.h>

#include "progress.h"
#include "units.h"

void bf_progress_init(struct bf_progress *p, FILE *f, bool quiet,
		      uint64_t interval_ns, uint64_t total_bytes,
		      uint64_t total_ns, const char *label)
{
	memset(p, 0, sizeof(*p));
	p->f = f;
	p->quiet = quiet;
	p->tty = isatty(fileno(f));
	if (!interval_ns)
		interval_ns = BLKFLOOR_INTERVAL_DEFAULT_NS;
	/* plain lines: about one per second */
	p->every = interval_ns >= 1000000000ULL ? 1 :
		   (unsigned int)((1000000000ULL + interval_ns - 1) / interval_ns);
	p->total_bytes = total_bytes;
	p->total_ns = total_ns;
	p->label = label;
	bf_eta_init(&p->eta);
}

void bf_progress_line(char *buf, size_t len, const struct bf_iv *iv,
		      uint64_t total_bytes, uint64_t total_ns,
		      const struct bf_eta *e)
{
	char el[BF_FMT_LEN], done[BF_FMT_LEN], tot[BF_FMT_LEN];
	char cur[BF_FMT_LEN], mean[BF_FMT_LEN], eta[BF_FMT_LEN];
	double t = iv->end_ns / 1e9, dt = (iv->end_ns - iv->start_ns) / 1e9;
	double m = t > 0 ? iv->bytes_total / t : 0;
	double left = -2;	/* -2: no ETA to show, -1: not known yet */

	/*
	 * A byte-limited run ends when its bytes are written: at the recent
	 * rate, not the mean so far (after a cache cliff the mean is off by
	 * hours). A time-limited run ends at its time.
	 */
	if (total_bytes)
		left = bf_eta_seconds(e, total_bytes > iv->bytes_total ?
					 (double)(total_bytes - iv->bytes_total) : 0);
	else if (total_ns)
		left = total_ns > iv->end_ns ? (total_ns - iv->end_ns) / 1e9 : 0;
	bf_fmt_duration(el, sizeof(el), t);
	bf_fmt_bytes(done, sizeof(done), iv->bytes_total);
	if (total_bytes)
		bf_fmt_bytes(tot, sizeof(tot), total_bytes);
	bf_fmt_rate(cur, sizeof(cur), dt > 0 ? iv->bytes / dt : 0);
	bf_fmt_rate(mean, sizeof(mean), m);
	/* Below a second an ETA is noise: "<1 s", not "0 us" or "310 ms". */
	if (left >= 1)
		bf_fmt_duration(eta, sizeof(eta), left);
	else if (left >= 0)
		snprintf(eta, sizeof(eta), "<1 s");
	else
		snprintf(eta, sizeof(eta), "unknown");
	snprintf(buf, len, "%8s  %s%s%s  %s  mean %s%s%s", el, done,
		 total_bytes ? " / " : "", total_bytes ? tot : "", cur, mean,
		 left > -2 ? "  ETA " : "", left > -2 ? eta : "");
}

void bf_progress_iv(struct bf_progress *p, const struct bf_iv *iv)
{
	char line[256];

	bf_eta_add(&p->eta, (iv->end_ns - iv->start_ns) / 1e9,
		   (double)iv->bytes);
	if (p->quiet)
		return;
	p->count++;
	if (!p->tty && p->count % p->every)
		return;
	bf_progress_line(line, sizeof(line), iv, p->total_bytes, p->total_ns,
			 &p->eta);
	if (p->tty) {
		fprintf(p->f, "\r%s%s%s%s%s\033[K", p->label ? p->label : "",
			p->label ? "  " : "", line, p->status ? "  " : "",
			p->status ? p->status : "");
		p->open_line = true;
	} else {
		fprintf(p->f, "%s%s%s%s%s\n", p->label ? p->label : "",
			p->label ? "  " : "", line, p->status ? "  " : "",
			p->status ? p->status : "");
	}
	fflush(p->f);
}

void bf_progress_end(struct bf_progress *p)
{
	if (p->open_line) {
		fputc('\n', p->f);
		fflush(p->f);
	}
	p->open_line = false;
}
