// SPDX-License-Identifier: GPL-2.0
/*
 * plot: a chart of one run, or of two (A and B) overlaid, for a report.
 * The caption is the setup from the trace header, the path's events are
 * marked; SVG, or PNG through librsvg's rsvg-convert. The drawing is
 * analysis/plot.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "blkfloor.h"
#include "classify.h"
#include "input.h"
#include "opts.h"
#include "plot.h"
#include "runfacts.h"
#include "runsum.h"
#include "units.h"

extern char **environ;

struct side {
	const char *path;
	struct bf_input in;
	struct bf_series s;
	struct bf_report r;
	bool have_r;
	struct bf_runsum rs;
	struct bf_plot_mark *mark;
	size_t nmark;
	struct bf_plot_gap *gap;
	char label[160];
};

static int fail(const char *what, const char *why)
{
	fprintf(stderr, "blkfloor plot: %s: %s\n", what, why);
	return EXIT_FAIL;
}

static enum bf_mark_kind mark_kind(const char *kind)
{
	if (!strcmp(kind, "reset") || !strcmp(kind, "abort"))
		return BF_MARK_RESET;
	if (!strcmp(kind, "timeout"))
		return BF_MARK_TIMEOUT;
	if (!strcmp(kind, "disconnect") || !strcmp(kind, "bind") ||
	    !strcmp(kind, "link") || !strcmp(kind, "host"))
		return BF_MARK_LINK;
	if (!strcmp(kind, "errors") || !strcmp(kind, "io-error") ||
	    !strcmp(kind, "offline") || !strcmp(kind, "read-only"))
		return BF_MARK_ERROR;
	return BF_MARK_COUNT;
}

static int load(struct side *x, enum bf_format fmt)
{
	char err[400];
	FILE *f;
	int ret;

	ret = bf_input_read(&x->in, x->path, fmt, err, sizeof(err));
	if (ret)
		return bf_refuse("plot", false, "%s", err);
	bf_input_say("plot", &x->in);
	x->s = x->in.ser;
	ret = bf_classify(x->s.s, x->s.n, &x->r);
	if (ret)
		return bf_refuse("plot", false, "%s: cannot classify: %s",
				 x->in.name, ret == -EINVAL ?
				 "fewer than 3 samples" : strerror(-ret));
	x->have_r = true;
	/* the setup and the events: a trace has them, fio logs and CSV not */
	if (x->in.ld.format != BF_FORMAT_TRACE) {
		struct bf_run_facts facts = { 0 };

		/* a fio log's direction */
		snprintf(facts.op, sizeof(facts.op), "%s", x->in.ld.op);
		bf_report_run(&x->r, &facts);
		return 0;
	}
	f = bf_input_stream(&x->in);
	if (!f)
		return fail(x->path, strerror(errno));
	ret = bf_runsum_read(f, &x->rs, err, sizeof(err));
	fclose(f);
	if (ret)
		return ret == -ENOMEM ? fail(x->path, err) :
		       bf_refuse("plot", false, "%s: %s", x->in.name, err);
	{
		/* the run as classify reads it: its op, errors, end */
		struct bf_run_facts facts;

		bf_run_facts_read(&facts, &x->rs);
		bf_report_run(&x->r, &facts);
	}
	x->mark = calloc(x->rs.nmark ? x->rs.nmark : 1, sizeof(*x->mark));
	x->gap = calloc(x->rs.ngap ? x->rs.ngap : 1, sizeof(*x->gap));
	if (!x->mark || !x->gap)
		return fail(x->path, "out of memory");
	for (size_t i = 0; i < x->rs.ngap; i++)
		x->gap[i] = (struct bf_plot_gap){ x->rs.gap[i].t,
						  x->rs.gap[i].secs };
	for (size_t i = 0; i < x->rs.nmark; i++) {
		enum bf_mark_kind k = mark_kind(x->rs.mark[i].kind);

		if (k < BF_MARK_COUNT)
			x->mark[x->nmark++] =
				(struct bf_plot_mark){ x->rs.mark[i].t, k };
	}
	return 0;
}

static void done(struct side *x)
{
	if (x->have_r)
		bf_report_free(&x->r);
	bf_input_free(&x->in);
	free(x->mark);
	free(x->gap);
	bf_runsum_free(&x->rs);
}

static const char *hv(const struct side *x, enum bf_rkey k)
{
	return x->rs.hdr[k];
}

/* "/dev/sdb Samsung SSD 870, usb 0bda:9210 bcdDevice f001, firmware 1B6Q" */
static void device_line(char *b, size_t len, const struct side *x)
{
	size_t l;

	snprintf(b, len, "%s%s%s", hv(x, BF_RK_DEVICE),
		 hv(x, BF_RK_MODEL)[0] && hv(x, BF_RK_DEVICE)[0] ? " " : "",
		 hv(x, BF_RK_MODEL));
	if (hv(x, BF_RK_TRANSPORT)[0]) {
		l = strlen(b);
		snprintf(b + l, len - l, ", %s", hv(x, BF_RK_TRANSPORT));
	}
	if (hv(x, BF_RK_USB_ID)[0]) {
		l = strlen(b);
		snprintf(b + l, len - l, " %s", hv(x, BF_RK_USB_ID));
	}
	if (hv(x, BF_RK_USB_BCD)[0]) {
		l = strlen(b);
		snprintf(b + l, len - l, " bcdDevice %s", hv(x, BF_RK_USB_BCD));
	}
	if (hv(x, BF_RK_FIRMWARE)[0]) {
		l = strlen(b);
		snprintf(b + l, len - l, ", firmware %s", hv(x, BF_RK_FIRMWARE));
	}
}

/* append ", "-separated "@fmt-with-@v" when @v is set */
static void part(char *b, size_t len, const char *sep, const char *fmt,
		 const char *v)
{
	size_t l = strlen(b);

	if (!v[0])
		return;
	snprintf(b + l, len - l, "%s", l ? sep : "");
	l = strlen(b);
	snprintf(b + l, len - l, fmt, v);
}

/* "kernel 6.12.1, uas at 5000 Mb/s, quirks 0bda:9210:u" */
static void path_line(char *b, size_t len, const struct side *x)
{
	b[0] = '\0';
	part(b, len, ", ", "kernel %s", hv(x, BF_RK_KERNEL));
	part(b, len, ", ", "%s", hv(x, BF_RK_DRIVER));
	part(b, len, " ", "at %s Mb/s", hv(x, BF_RK_USB_SPEED));
	part(b, len, ", ", "quirks %s", hv(x, BF_RK_QUIRKS));
}

/* "write seq, bs 128 KiB, qd 32" */
static void work_line(char *b, size_t len, const struct side *x)
{
	char bs[BF_FMT_LEN] = "";
	uint64_t v;

	if (!bf_parse_uint(hv(x, BF_RK_BS), UINT64_MAX, &v))
		bf_fmt_bs(bs, sizeof(bs), v);
	b[0] = '\0';
	part(b, len, " ", "%s", hv(x, BF_RK_OP));
	part(b, len, " ", "%s", hv(x, BF_RK_PATTERN));
	part(b, len, ", ", "bs %s", bs);
	part(b, len, ", ", "qd %s", hv(x, BF_RK_QD));
}

static const char *base(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/*
 * The lines that have something, '\n'-separated: one run's device, then
 * its path and workload; two runs each their own: "A: device", its path
 * and workload indented below, then "B: ...".
 */
static void caption(char *b, size_t len, const struct side *x, size_t n)
{
	char dev[400], path[300], work[320], head[720], tail[720];
	size_t i, l;

	b[0] = '\0';
	for (i = 0; i < n; i++) {
		device_line(dev, sizeof(dev), &x[i]);
		path_line(path, sizeof(path), &x[i]);
		work_line(work, sizeof(work), &x[i]);
		head[0] = tail[0] = '\0';
		part(head, sizeof(head), "; ", "%s", dev);
		part(tail, sizeof(tail), "; ", "%s", path);
		part(tail, sizeof(tail), "; ", "%s", work);
		if (n == 1) {
			part(b, len, "\n", "%s", head);
			part(b, len, "\n", "%s", tail);
			continue;
		}
		l = strlen(b);
		snprintf(b + l, len - l, "%s%c: %s", l ? "\n" : "", 'A' + (int)i,
			 head[0] ? head : base(x[i].path));
		if (tail[0]) {
			l = strlen(b);
			snprintf(b + l, len - l, "\n   %s", tail);
		}
	}
}

/* what the name asks for: 0 SVG, 1 PNG, -1 something this cannot write */
static int kind_of(const char *out)
{
	const char *dot = strrchr(out, '.'), *sl = strrchr(out, '/');

	if (!strcmp(out, "-") || !dot || (sl && dot < sl))
		return 0;
	if (!strcasecmp(dot, ".svg"))
		return 0;
	if (!strcasecmp(dot, ".png"))
		return 1;
	return -1;
}

/* rsvg-convert on the PATH, or NULL */
static char *find_rsvg(void)
{
	const char *path = getenv("PATH");
	char *dup, *dir, *save = NULL, *hit = NULL;

	if (!path)
		return NULL;
	dup = strdup(path);
	for (dir = dup ? strtok_r(dup, ":", &save) : NULL; dir && !hit;
	     dir = strtok_r(NULL, ":", &save)) {
		char *p;

		if (asprintf(&p, "%s/rsvg-convert", dir) < 0)
			break;
		if (!access(p, X_OK))
			hit = p;
		else
			free(p);
	}
	free(dup);
	return hit;
}

/* SVG in @svg (@len bytes) to PNG in @out through @rsvg. */
static int to_png(const char *rsvg, const char *svg, size_t len,
		  const char *out)
{
	char *argv[] = { (char *)"rsvg-convert", (char *)"-f", (char *)"png",
			 (char *)"-o", (char *)out, NULL };
	posix_spawn_file_actions_t fa;
	int pfd[2], st, ret;
	size_t off = 0;
	pid_t pid;

	if (pipe(pfd))
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pfd[0], 0);
	posix_spawn_file_actions_addclose(&fa, pfd[1]);
	ret = posix_spawn(&pid, rsvg, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[0]);
	if (ret) {
		close(pfd[1]);
		return -ret;
	}
	while (off < len) {
		ssize_t w = write(pfd[1], svg + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += w;
	}
	close(pfd[1]);
	if (waitpid(pid, &st, 0) < 0)
		return -errno;
	return WIFEXITED(st) && !WEXITSTATUS(st) && off == len ? 0 : -EIO;
}

static int do_plot(int argc, char **argv)
{
	struct side x[2] = { 0 };
	struct bf_plot pl = { 0 };
	struct bf_opts o;
	char err[256], cap[2048], title[300], *svg = NULL, *rsvg = NULL;
	size_t len = 0, i, n;
	int kind, ret = EXIT_FAIL, fd;
	FILE *f;

	memset(&o, 0, sizeof(o));
	if (bf_opts_parse(&o, argc, argv,
			  BF_OPT(FORMAT) | BF_OPT(OUTPUT) | BF_OPT(FORCE), 1, 2,
			  err, sizeof(err))) {
		fprintf(stderr, "blkfloor plot: %s\n", err);
		return EXIT_USAGE;
	}
	if (!o.output) {
		fprintf(stderr, "blkfloor plot: -o OUT.svg, OUT.png or - (standard output) is required\n");
		return EXIT_USAGE;
	}
	kind = kind_of(o.output);
	if (kind < 0) {
		fprintf(stderr, "blkfloor plot: %s: writes SVG (.svg, or -) or PNG (.png), not %s\n",
			o.output, strrchr(o.output, '.'));
		return EXIT_USAGE;
	}
	if (strcmp(o.output, "-") && !o.force && !access(o.output, F_OK)) {
		fprintf(stderr, "blkfloor plot: %s exists (--force overwrites it)\n",
			o.output);
		return EXIT_USAGE;
	}
	if (kind == 1) {
		rsvg = find_rsvg();
		if (!rsvg)
			return fail(o.output, "PNG needs rsvg-convert (Debian: apt install librsvg2-bin); nothing written (-o NAME.svg writes SVG)");
	}
	n = o.npos;
	for (i = 0; i < n; i++) {
		x[i].path = o.pos[i];
		ret = load(&x[i], o.format);
		if (ret)
			goto out;
		ret = EXIT_FAIL;
		if (n > 1)
			snprintf(x[i].label, sizeof(x[i].label), "%c: %s",
				 'A' + (int)i, base(x[i].path));
		pl.c[i] = (struct bf_plot_curve){ x[i].s.s, x[i].s.n, &x[i].r,
						  n > 1 ? x[i].label : NULL,
						  x[i].mark, x[i].nmark,
						  x[i].gap, x[i].rs.ngap };
	}
	pl.n = n;
	caption(cap, sizeof(cap), x, n);
	pl.caption = cap[0] ? cap : NULL;
	if (n == 1)
		snprintf(title, sizeof(title), "%s", base(x[0].path));
	else
		snprintf(title, sizeof(title), "%s (B) against %s (A)",
			 base(x[1].path), base(x[0].path));
	pl.title = title;

	f = open_memstream(&svg, &len);
	if (!f || bf_plot_write(f, &pl)) {
		if (f)
			fclose(f);
		fail(o.output, "cannot draw the chart");
		goto out;
	}
	fclose(f);
	if (!strcmp(o.output, "-")) {
		if (fwrite(svg, 1, len, stdout) != len) {
			fail("standard output", strerror(errno));
			goto out;
		}
	} else if (kind == 1) {
		ret = to_png(rsvg, svg, len, o.output);
		if (ret) {
			unlink(o.output);
			fail(o.output, ret == -EIO ?
			     "rsvg-convert failed; nothing written" :
			     strerror(-ret));
			ret = EXIT_FAIL;
			goto out;
		}
	} else {
		fd = open(o.output, O_WRONLY | O_CREAT | O_CLOEXEC |
			  (o.force ? O_TRUNC : O_EXCL), 0644);
		f = fd < 0 ? NULL : fdopen(fd, "w");
		if (!f) {
			if (fd >= 0)
				close(fd);
			fail(o.output, strerror(errno));
			goto out;
		}
		if (fwrite(svg, 1, len, f) != len || fclose(f)) {
			fail(o.output, strerror(errno));
			goto out;
		}
	}
	ret = EXIT_OK;
out:
	for (i = 0; i < 2; i++)
		done(&x[i]);
	free(svg);
	free(rsvg);
	return ret;
}

BLKFLOOR_COMMAND(plot, "A [B] -o OUT.svg|OUT.png|- [--force] [--format trace|fio|csv]",
	do_plot,
	"Draw a curve for a report, or two runs (A and B) on the same axes.\n"
	"Rate against bytes written and against time, the plateaus labelled\n"
	"with the peak and floor the text reports, the cache step, a caption\n"
	"with the setup from the trace header (device, transport and link,\n"
	"kernel, op/bs/qd) and marks for resets, timeouts, I/O errors and link\n"
	"changes. Axes in MB, GB or TB and s, min or h.\n"
	"  -o, --output OUT  OUT.svg, OUT.png (through rsvg-convert, from\n"
	"                    Debian's librsvg2-bin) or - for standard output\n"
	"  --force           overwrite OUT if it exists\n"
	"  --format FMT      trace, fio or csv (default: guessed)");
