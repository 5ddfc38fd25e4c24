// SPDX-License-Identifier: GPL-2.0
/*
 * Every command that reads a trace or a log, over every bad input: a
 * clear refusal (exit 2, one line "blkfloor CMD: ...", no help after it,
 * with --json an object with "error") or a right answer (a truncated or
 * failed trace read with a warning, units named in a CSV header
 * honoured, a UTF-8 BOM skipped, fio's log_unix_epoch times read).
 *
 * The commands are the registered ones (the command section), so a new
 * command cannot be forgotten: it needs a row in readers[] or a reason in
 * no_file[]. Each command runs as the real binary (../blkfloor beside
 * tests/), so main()'s handling of the exit code is part of what is
 * tested, and under AddressSanitizer a leak on a refusal fails too.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* the harness and its fixture macros define functions without prototypes */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#include "blkfloor.h"
#include "cmdtrace.h"
#include "trace.h"

/* ---- the inputs ----------------------------------------------------------- */

enum input {
	IN_MISSING,	/* no such file */
	IN_EMPTY,
	IN_BINARY,	/* random bytes */
	IN_DIR,
	IN_FAILED,	/* # state: failed */
	IN_CUT,		/* writer killed mid-line: no trailer */
	IN_BACKWARDS,	/* time goes backwards after 30 intervals */
	IN_OTHER_OP,	/* a read trace where a write one goes, and back */
	IN_DRIVER,	/* the other USB driver than the one the row wants */
	IN_HEADERLESS,	/* a trace's interval lines only */
	IN_NO_COLUMNS,	/* a trace without its column header line */
	IN_MIB,		/* time_s,MiB/s */
	IN_KIB,		/* seconds,KiB/s */
	IN_MS,		/* time_ms,MB/s */
	IN_BAD_UNIT,	/* time_s,Mbit/s */
	IN_BOM_CSV,	/* a UTF-8 BOM before two columns without a header */
	IN_BOM_TRACE,	/* a UTF-8 BOM before a trace */
	IN_EPOCH,	/* fio bandwidth log with log_unix_epoch=1 */
	IN_COUNT,
};

static const char *const in_name[IN_COUNT] = {
	"missing", "empty", "binary", "directory", "failed", "truncated",
	"backwards",
	"other-op", "other-driver", "headerless", "no-column-header",
	"MiB/s-header", "KiB/s-header", "ms-header", "unknown-unit",
	"BOM-csv", "BOM-trace", "fio-unix-epoch",
};

enum want { DEFAULT, ACCEPT, REFUSE, WARN };

struct expect {
	enum want want;
	const char *word;	/* in the refusal, or in the warning */
	bool exact;		/* ACCEPT, WARN: @exit it is (else any but 2) */
	int exit;
};

/* What every reader does with each input unless its row says otherwise. */
static const struct expect defaults[IN_COUNT] = {
	[IN_MISSING] = { .want = REFUSE, .word = "No such file" },
	[IN_EMPTY] = { .want = REFUSE, .word = "empty" },
	[IN_BINARY] = { .want = REFUSE, .word = "binary" },
	[IN_DIR] = { .want = REFUSE, .word = "is a directory" },
	[IN_FAILED] = { .want = WARN, .word = "failed" },
	[IN_CUT] = { .want = WARN, .word = "incomplete" },
	/* refused after samples were read: they must be freed (ASan) */
	[IN_BACKWARDS] = { .want = REFUSE, .word = "backwards" },
	[IN_OTHER_OP] = { .want = ACCEPT, .word = NULL },
	[IN_DRIVER] = { .want = ACCEPT, .word = NULL },
	[IN_HEADERLESS] = { .want = REFUSE, .word = "header" },
	[IN_NO_COLUMNS] = { .want = REFUSE, .word = "header" },
	[IN_MIB] = { .want = ACCEPT, .word = NULL },
	[IN_KIB] = { .want = ACCEPT, .word = NULL },
	[IN_MS] = { .want = ACCEPT, .word = NULL },
	[IN_BAD_UNIT] = { .want = REFUSE, .word = "unit" },
	[IN_BOM_CSV] = { .want = ACCEPT, .word = NULL },
	[IN_BOM_TRACE] = { .want = ACCEPT, .word = NULL },
	[IN_EPOCH] = { .want = ACCEPT, .word = NULL },
};

/* ---- the readers ------------------------------------------------------------ */

/*
 * One way a command reads a file: its arguments, "@" the file under test,
 * "@G" a good write trace over uas, "@R" and "@W" good read and write
 * traces, "@S" a good write trace over usb-storage. The file under test
 * is a trace of @op over @driver where it is one.
 */
struct reader {
	const char *cmd, *where;
	const char *args[8];
	bool json;		/* takes --json */
	bool traces_only;	/* fio logs and CSV are refused */
	const char *op, *driver;
	struct expect over[IN_COUNT];
};

static const struct reader readers[] = {
	{ "classify", "", { "@" }, true, false, "write", "uas", { } },
	{ "predict", "", { "@", "--size", "100GB" }, true, false, "write",
	  "uas", { } },
	{ "compare", "A", { "@", "@G" }, true, false, "write", "uas", {
		[IN_FAILED] = { .want = REFUSE, .word = "baseline" },
		/* another op alone is the one factor varied: an op A/B */
	} },
	{ "compare", "B", { "@G", "@" }, true, false, "write", "uas", {
		/* a failed B is a regression; one that never ended is no
		 * "no regression" */
		[IN_FAILED] = { .want = WARN, .word = "failed", .exact = true, .exit = 1 },
		[IN_CUT] = { .want = WARN, .word = "incomplete", .exact = true, .exit = 3 },
	} },
	{ "plot", "A", { "@", "-o", "-" }, false, false, "write", "uas", { } },
	{ "plot", "B", { "@G", "@", "-o", "-" }, false, false, "write", "uas",
	  { } },
	{ "stability", "READ", { "--from-traces", "@", "@W" }, true, false,
	  "read", "uas", {
		[IN_OTHER_OP] = { .want = REFUSE, .word = "write" },
	} },
	{ "stability", "WRITE", { "--from-traces", "@R", "@" }, true, false,
	  "write", "uas", {
		[IN_OTHER_OP] = { .want = REFUSE, .word = "read" },
	} },
	{ "transport", "UAS", { "--traces", "@", "@S" }, true, true, "write",
	  "uas", {
		[IN_OTHER_OP] = { .want = REFUSE, .word = "op" },
		[IN_DRIVER] = { .want = REFUSE, .word = "driver" },
	} },
	{ "transport", "BOT", { "--traces", "@G", "@" }, true, true, "write",
	  "usb-storage", {
		[IN_OTHER_OP] = { .want = REFUSE, .word = "op" },
		[IN_DRIVER] = { .want = REFUSE, .word = "driver" },
	} },
};

/* The commands that read no trace or log given to them, and why. */
static const struct { const char *cmd, *why; } no_file[] = {
	{ "attach", "appends to its --trace once the kernel has the run (selftests cli/008)" },
	{ "burst", "measures a device" },
	{ "caps", "reads a device's limits" },
	{ "corners", "measures a device" },
	{ "diagnose", "measures a device" },
	{ "dump", "writes a new trace" },
	{ "fill", "measures a device" },
	{ "help", "prints help" },
	{ "iops", "measures a device" },
	{ "list", "asks the module" },
	{ "monitor", "asks the module" },
	{ "run", "measures a device" },
	{ "stop", "asks the module" },
	{ "sustain", "measures a device" },
	{ "sweep", "measures a device" },
	{ "trim", "discards a device" },
	{ "version", "asks the module" },
	{ "wss", "measures a device" },
};

static const char *why_no_file(const char *cmd)
{
	for (size_t i = 0; i < sizeof(no_file) / sizeof(no_file[0]); i++)
		if (!strcmp(no_file[i].cmd, cmd))
			return no_file[i].why;
	return NULL;
}

static bool has_rows(const char *cmd)
{
	for (size_t i = 0; i < sizeof(readers) / sizeof(readers[0]); i++)
		if (!strcmp(readers[i].cmd, cmd))
			return true;
	return false;
}

/* ---- files ---------------------------------------------------------------- */

static void put(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(data, 1, len, f) != len || fclose(f))
		abort();
}

static void puts_file(const char *path, const char *text)
{
	put(path, text, strlen(text));
}

/* @path's lines without those @drop says no to */
static void filter(const char *from, const char *to, bool drop_comments,
		   bool drop_columns)
{
	FILE *f = fopen(from, "r"), *o = fopen(to, "w");
	char line[1024];

	if (!f || !o)
		abort();
	while (fgets(line, sizeof(line), f)) {
		if (drop_comments && line[0] == '#')
			continue;
		if (drop_columns && !strncmp(line, "index,", 6))
			continue;
		fputs(line, o);
	}
	fclose(f);
	fclose(o);
}

static void trace(const char *path, const char *op, const char *driver,
		  bool failed, bool cut)
{
	struct spec s = base;

	s.op = op;
	s.driver = driver;
	s.failed = failed;
	s.cut = cut;
	write_trace(path, &s);
}

static const char *other_op(const char *op)
{
	return strcmp(op, "read") ? "read" : "write";
}

static const char *other_driver(const char *drv)
{
	return strcmp(drv, "uas") ? "uas" : "usb-storage";
}

/* Forty samples of @per_line (a printf format taking the index). */
static void columns(const char *path, const char *header, const char *fmt,
		    double scale)
{
	FILE *f = fopen(path, "w");

	if (!f)
		abort();
	if (header)
		fprintf(f, "%s\n", header);
	for (int i = 1; i <= 40; i++)
		fprintf(f, fmt, i * scale, i <= 20 ? 100 : 50);
	fclose(f);
}

/* Make @in as the reader @r wants it at @path. */
static void make_input(const char *dir, const struct reader *r,
		       enum input in, char *path, size_t len)
{
	char tmp[PATH_MAX + 8];

	snprintf(path, len, "%s/in-%s", dir, in_name[in]);
	for (char *p = path + strlen(dir) + 1; *p; p++)
		if (*p == '/')
			*p = '_';
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	switch (in) {
	case IN_MISSING:
		break;
	case IN_EMPTY:
		put(path, "", 0);
		break;
	case IN_BINARY: {
		unsigned char b[4096];
		uint64_t st = 42;

		for (size_t i = 0; i < sizeof(b); i++) {
			st = st * 6364136223846793005ULL + 1442695040888963407ULL;
			b[i] = (unsigned char)(st >> 56);
		}
		put(path, b, sizeof(b));
		break;
	}
	case IN_DIR:
		if (mkdir(path, 0700) && errno != EEXIST)
			abort();
		break;
	case IN_FAILED:
		trace(path, r->op, r->driver, true, false);
		break;
	case IN_CUT:
		trace(path, r->op, r->driver, false, true);
		break;
	case IN_BACKWARDS: {
		char *t, *at;

		trace(tmp, r->op, r->driver, false, false);
		t = strdup(slurp(tmp));
		at = t ? strstr(t, "\n30,30.000000,31.000000,") : NULL;
		if (!at)
			abort();
		/* interval 30 starts at 3 s */
		memcpy(at + 4, "03.000000,04", 12);
		puts_file(path, t);
		free(t);
		unlink(tmp);
		break;
	}
	case IN_OTHER_OP:
		trace(path, other_op(r->op), r->driver, false, false);
		break;
	case IN_DRIVER:
		trace(path, r->op, other_driver(r->driver), false, false);
		break;
	case IN_HEADERLESS:
		trace(tmp, r->op, r->driver, false, false);
		filter(tmp, path, true, true);
		unlink(tmp);
		break;
	case IN_NO_COLUMNS:
		trace(tmp, r->op, r->driver, false, false);
		filter(tmp, path, false, true);
		unlink(tmp);
		break;
	case IN_MIB:
		columns(path, "time_s,MiB/s", "%g,%d\n", 1);
		break;
	case IN_KIB:
		columns(path, "seconds,KiB/s", "%g,%d000\n", 1);
		break;
	case IN_MS:
		columns(path, "time_ms,MB/s", "%g,%d\n", 1000);
		break;
	case IN_BAD_UNIT:
		columns(path, "time_s,Mbit/s", "%g,%d\n", 1);
		break;
	case IN_BOM_CSV:
		columns(tmp, NULL, "%g,%d\n", 1);
		{
			char *text = strdup(slurp(tmp));
			char *b;

			if (!text || asprintf(&b, "\xef\xbb\xbf%s", text) < 0)
				abort();
			puts_file(path, b);
			free(b);
			free(text);
		}
		unlink(tmp);
		break;
	case IN_BOM_TRACE:
		trace(tmp, r->op, r->driver, false, false);
		{
			char *text = strdup(slurp(tmp));
			char *b;

			if (!text || asprintf(&b, "\xef\xbb\xbf%s", text) < 0)
				abort();
			puts_file(path, b);
			free(b);
			free(text);
		}
		unlink(tmp);
		break;
	case IN_EPOCH: {
		/* fio 3.x: "msec, KiB/s, ddir, bs, offset[, prio]" */
		FILE *f = fopen(path, "w");

		if (!f)
			abort();
		for (int i = 1; i <= 40; i++)
			fprintf(f, "%llu, %d, %d, 131072, 0, 0\n",
				1767225600000ULL + i * 1000ULL,
				i <= 20 ? 204800 : 102400,
				strcmp(r->op, "read") ? 1 : 0);
		fclose(f);
		break;
	}
	case IN_COUNT:
		abort();
	}
}

/* ---- running the binary ------------------------------------------------------ */

static char bin[PATH_MAX];

/* ../blkfloor beside this test's folder */
static bool find_bin(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return false;
	self[n] = '\0';
	snprintf(bin, sizeof(bin), "%s/blkfloor", dirname(dirname(self)));
	return !access(bin, X_OK);
}

struct result {
	int exit;
	char out[65536], err[8192];
};

static void run_bin(const char *dir, char *const *argv, struct result *res)
{
	char o[PATH_MAX], e[PATH_MAX];
	int st, fd;
	pid_t pid;

	snprintf(o, sizeof(o), "%s/stdout", dir);
	snprintf(e, sizeof(e), "%s/stderr", dir);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		abort();
	if (!pid) {
		fd = open(o, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 1);
		close(fd);
		fd = open(e, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 2);
		close(fd);
		fd = open("/dev/null", O_RDONLY);
		dup2(fd, 0);
		close(fd);
		execv(bin, argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		abort();
	res->exit = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	snprintf(res->out, sizeof(res->out), "%s", slurp(o));
	snprintf(res->err, sizeof(res->err), "%s", slurp(e));
}

static int lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* every stderr line is the command's: "blkfloor CMD: ..." */
static const char *foreign_line(const char *err, const char *cmd)
{
	static char bad[256];
	char want[64];
	const char *p = err;

	snprintf(want, sizeof(want), "blkfloor %s: ", cmd);
	while (*p) {
		const char *nl = strchrnul(p, '\n');

		if (strncmp(p, want, strlen(want))) {
			snprintf(bad, sizeof(bad), "%.*s", (int)(nl - p), p);
			return bad;
		}
		p = *nl ? nl + 1 : nl;
	}
	return NULL;
}

/* one JSON object on one line */
static bool json_object(const char *out)
{
	size_t l = strlen(out);

	return l > 2 && out[0] == '{' && out[l - 1] == '\n' &&
	       out[l - 2] == '}' && lines(out) == 1;
}

/*
 * Run @r on @in (with --json when @json), check it against @x. Returns
 * the number of failures, each said on a diagnostic line.
 */
static int check(const char *dir, const struct reader *r, enum input in,
		 const struct expect *x, bool json)
{
	char path[PATH_MAX], good[5][PATH_MAX], *argv[16], label[128];
	static const char *const gname[5] = { "@G", "@R", "@W", "@S", "@U" };
	struct result *res = calloc(1, sizeof(*res));
	const char *bad;
	int n = 0, fails = 0;

	if (!res)
		abort();
	snprintf(good[0], PATH_MAX, "%s/good-write-uas", dir);
	snprintf(good[1], PATH_MAX, "%s/good-read-uas", dir);
	snprintf(good[2], PATH_MAX, "%s/good-write-uas", dir);
	snprintf(good[3], PATH_MAX, "%s/good-write-usb-storage", dir);
	snprintf(good[4], PATH_MAX, "%s/good-write-uas", dir);
	make_input(dir, r, in, path, sizeof(path));
	argv[n++] = (char *)"blkfloor";
	argv[n++] = (char *)r->cmd;
	for (int i = 0; r->args[i]; i++) {
		const char *a = r->args[i];

		if (!strcmp(a, "@"))
			a = path;
		for (int k = 0; k < 5; k++)
			if (!strcmp(a, gname[k]))
				a = good[k];
		argv[n++] = (char *)a;
	}
	if (json)
		argv[n++] = (char *)"--json";
	argv[n] = NULL;
	snprintf(label, sizeof(label), "%s%s%s %s%s", r->cmd,
		 r->where[0] ? " " : "", r->where, in_name[in],
		 json ? " --json" : "");
	run_bin(dir, argv, res);

#define FAILED(fmt, ...) do { \
		fprintf(stderr, "# %s: " fmt "\n", label, ##__VA_ARGS__); \
		fails++; \
	} while (0)

	/* built with -fsanitize (scripts/test-user-sanitize.sh): a leak or
	 * UB report is on stderr; a leak does not change a non-zero exit */
	if (strstr(res->err, "Sanitizer") || strstr(res->err, "runtime error"))
		FAILED("a sanitizer report: '%.300s'",
		       strstr(res->err, "Sanitizer") ?: res->err);
	bad = foreign_line(res->err, r->cmd);
	if (bad)
		FAILED("a stderr line not \"blkfloor %s: ...\": '%s'", r->cmd,
		       bad);
	if (strstr(res->err, "Usage:"))
		FAILED("the help after a %s", x->want == REFUSE ? "refusal" :
		       "run that read its input");
	if (x->want == REFUSE) {
		if (res->exit != 2)
			FAILED("exit %d, want 2 (refused)", res->exit);
		if (lines(res->err) != 1)
			FAILED("%d lines on stderr, want one: '%.300s'",
			       lines(res->err), res->err);
		if (!strcasestr(res->err, x->word))
			FAILED("the refusal does not say '%s': '%.300s'",
			       x->word, res->err);
		if (json && !(json_object(res->out) &&
			      strstr(res->out, "\"error\":")))
			FAILED("--json: no object with \"error\": '%.200s'",
			       res->out);
		if (!json && res->out[0])
			FAILED("output after a refusal: '%.200s'", res->out);
	} else {
		if (res->exit == 2)
			FAILED("refused (exit 2): '%.300s'", res->err);
		else if (x->exact && res->exit != x->exit)
			FAILED("exit %d, want %d", res->exit, x->exit);
		if (json && (!json_object(res->out) ||
			     strstr(res->out, "\"error\":")))
			FAILED("--json: not one object without \"error\": '%.200s'",
			       res->out);
	}
	if (x->want == WARN) {
		const char *w = strcasestr(res->err, "warning");

		if (!w || !strcasestr(w, x->word))
			FAILED("no warning that says '%s': '%.300s'", x->word,
			       res->err);
		if (json && !(strstr(res->out, "\"warnings\":") &&
			      strcasestr(res->out, x->word)))
			FAILED("--json: no \"warnings\" with '%s'", x->word);
	}
	free(res);
	return fails;
}

/* ---- the tests -------------------------------------------------------------- */

FIXTURE(bad) {
	char dir[64];
};

FIXTURE_VARIANT(bad) {
	enum input in;
};

FIXTURE_SETUP(bad)
{
	char p[128];

	snprintf(self->dir, sizeof(self->dir), "/tmp/bf-bad-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	ASSERT_TRUE(find_bin()) TH_LOG("no %s: make -C user blkfloor", bin);
	snprintf(p, sizeof(p), "%s/good-write-uas", self->dir);
	trace(p, "write", "uas", false, false);
	snprintf(p, sizeof(p), "%s/good-read-uas", self->dir);
	trace(p, "read", "uas", false, false);
	snprintf(p, sizeof(p), "%s/good-write-usb-storage", self->dir);
	trace(p, "write", "usb-storage", false, false);
}

FIXTURE_TEARDOWN(bad)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	if (system(cmd))
		fprintf(stderr, "# cannot remove %s\n", self->dir);
}

#define INPUT(name, id) \
	FIXTURE_VARIANT_ADD(bad, name) { .in = id }

INPUT(missing, IN_MISSING);
INPUT(empty, IN_EMPTY);
INPUT(binary, IN_BINARY);
INPUT(directory, IN_DIR);
INPUT(failed, IN_FAILED);
INPUT(truncated, IN_CUT);
INPUT(backwards, IN_BACKWARDS);
INPUT(other_op, IN_OTHER_OP);
INPUT(other_driver, IN_DRIVER);
INPUT(headerless, IN_HEADERLESS);
INPUT(no_column_header, IN_NO_COLUMNS);
INPUT(mib_header, IN_MIB);
INPUT(kib_header, IN_KIB);
INPUT(ms_header, IN_MS);
INPUT(unknown_unit, IN_BAD_UNIT);
INPUT(bom_csv, IN_BOM_CSV);
INPUT(bom_trace, IN_BOM_TRACE);
INPUT(fio_unix_epoch, IN_EPOCH);

/* Every registered command, every way it reads a file, this input. */
TEST_F(bad, every_reader)
{
	const struct blkfloor_cmd *c;
	int fails = 0, runs = 0;

	for (c = __start_blkfloor_cmds; c < __stop_blkfloor_cmds; c++) {
		if (!has_rows(c->name)) {
			EXPECT_NE(NULL, why_no_file(c->name))
				TH_LOG("command %s: no row in readers[] and no reason in no_file[]",
				       c->name);
			continue;
		}
		for (size_t i = 0; i < sizeof(readers) / sizeof(readers[0]); i++) {
			const struct reader *r = &readers[i];
			struct expect x = r->over[variant->in].want ?
					  r->over[variant->in] :
					  defaults[variant->in];

			if (strcmp(r->cmd, c->name))
				continue;
			if (r->traces_only && x.want == ACCEPT &&
			    (variant->in == IN_MIB || variant->in == IN_KIB ||
			     variant->in == IN_MS || variant->in == IN_BOM_CSV ||
			     variant->in == IN_EPOCH))
				x = (struct expect){ .want = REFUSE, .word = "blkfloor trace" };
			fails += check(self->dir, r, variant->in, &x, false);
			runs++;
			if (r->json) {
				fails += check(self->dir, r, variant->in, &x,
					       true);
				runs++;
			}
		}
	}
	EXPECT_GT(runs, 10);
	EXPECT_EQ(0, fails);
}

/* The number at the first @key after @after (a key too, or NULL). */
static double json_num(const char *out, const char *after, const char *key)
{
	char k[64];
	const char *p = out;

	if (after) {
		snprintf(k, sizeof(k), "\"%s\":", after);
		p = strstr(out, k);
		if (!p)
			return NAN;
	}
	snprintf(k, sizeof(k), "\"%s\":", key);
	p = strstr(p, k);
	return p ? strtod(p + strlen(k), NULL) : NAN;
}

/*
 * What the inputs that are read say: the units of a CSV header, the
 * first sample behind a BOM, fio's epoch times, a trace behind a BOM
 * (classify --json: mean and duration; predict --json: bytes measured).
 */
TEST(read_right)
{
	static const struct {
		enum input in;
		double mean, secs;
	} want[] = {
		/* 20 s at 100 and 20 s at 50 of each unit */
		{ IN_MIB, 75 * 1.048576, 40 },
		{ IN_KIB, 75 * 1.024, 40 },
		{ IN_MS, 75, 40 },
		{ IN_BOM_CSV, 75, 40 },
		/* 20 s at 200 MiB/s, 20 s at 100 MiB/s */
		{ IN_EPOCH, 150 * 1.048576, 40 },
		/* cmdtrace.c's 40 s at 300 MB/s with 3 % noise */
		{ IN_BOM_TRACE, 300, 40 },
	};
	char dir[] = "/tmp/bf-read-XXXXXX", path[PATH_MAX];
	struct result *res = calloc(1, sizeof(*res));

	ASSERT_NE(NULL, res);
	ASSERT_NE(NULL, mkdtemp(dir));
	ASSERT_TRUE(find_bin()) TH_LOG("no %s: make -C user blkfloor", bin);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		char *argv[] = { "blkfloor", "classify", path, "--json", NULL };
		char *pargv[] = { "blkfloor", "predict", path, "--size",
				  "1TB", "--json", NULL };
		double mean, secs, bytes;

		make_input(dir, &readers[0], want[i].in, path, sizeof(path));
		run_bin(dir, argv, res);
		mean = json_num(res->out, NULL, "mean_MBps");
		secs = json_num(res->out, "total_bytes", "total_s");
		EXPECT_EQ(0, res->exit) TH_LOG("%s: %s", in_name[want[i].in],
					       res->err);
		EXPECT_TRUE(fabs(mean / want[i].mean - 1) < 0.02)
			TH_LOG("%s: mean %g MB/s, want %g", in_name[want[i].in],
			       mean, want[i].mean);
		EXPECT_TRUE(fabs(secs - want[i].secs) < 0.01)
			TH_LOG("%s: %g s, want %g", in_name[want[i].in], secs,
			       want[i].secs);
		run_bin(dir, pargv, res);
		bytes = json_num(res->out, NULL, "measured_bytes");
		EXPECT_TRUE(fabs(bytes / (want[i].mean * 1e6 * want[i].secs) - 1) <
			    0.02)
			TH_LOG("%s: predict measured %g bytes, want %g",
			       in_name[want[i].in], bytes,
			       want[i].mean * 1e6 * want[i].secs);
	}
	free(res);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	EXPECT_EQ(0, system(path));
}

/* stability --from-traces READ WRITE given WRITE READ: refused as swapped */
TEST(stability_swapped)
{
	char dir[] = "/tmp/bf-swap-XXXXXX", rd[64], wr[64];
	char *argv[] = { "blkfloor", "stability", "--from-traces", wr, rd,
			 "--json", NULL };
	struct result *res = calloc(1, sizeof(*res));

	ASSERT_NE(NULL, res);
	ASSERT_NE(NULL, mkdtemp(dir));
	ASSERT_TRUE(find_bin()) TH_LOG("no %s: make -C user blkfloor", bin);
	snprintf(rd, sizeof(rd), "%s/rd", dir);
	snprintf(wr, sizeof(wr), "%s/wr", dir);
	trace(rd, "read", "uas", false, false);
	trace(wr, "write", "uas", false, false);
	run_bin(dir, argv, res);
	EXPECT_EQ(2, res->exit);
	EXPECT_NE(NULL, strstr(res->err, "the traces are swapped")) TH_LOG("%s", res->err);
	EXPECT_NE(NULL, strstr(res->out, "\"error\":")) TH_LOG("%s", res->out);
	argv[3] = rd;
	argv[4] = wr;
	run_bin(dir, argv, res);
	EXPECT_EQ(0, res->exit) TH_LOG("%s", res->err);
	free(res);
	snprintf(rd, sizeof(rd), "rm -rf %s", dir);
	EXPECT_EQ(0, system(rd));
}

/*
 * attach --trace FILE appends to FILE: a file it could not append to is
 * refused before the module is asked anything (the host that runs this
 * has none loaded), with exit 2, and left as it was.
 */
TEST(attach_trace_checked_first)
{
	static const struct { const char *name, *word; } bad[] = {
		{ "binary", "not a blkfloor trace" },
		{ "complete", "complete already" },
		{ "other-run", "is of run" },
		{ "directory", "trace" },
	};
	static char before[65536];
	char dir[] = "/tmp/bf-attach-XXXXXX", path[96];
	char *argv[] = { "blkfloor", "attach", "7", "--trace", path, NULL };
	struct result *res = calloc(1, sizeof(*res));

	ASSERT_NE(NULL, res);
	ASSERT_NE(NULL, mkdtemp(dir));
	ASSERT_TRUE(find_bin()) TH_LOG("no %s: make -C user blkfloor", bin);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, bad[i].name);
		if (!strcmp(bad[i].name, "binary")) {
			put(path, "\x7f\x45\x4c\x46\x02\x01\x00\xff\n", 9);
		} else if (!strcmp(bad[i].name, "directory")) {
			ASSERT_EQ(0, mkdir(path, 0700));
		} else if (!strcmp(bad[i].name, "complete")) {
			trace(path, "write", "uas", false, false);
		} else {
			puts_file(path, BF_TRACE_MAGIC "\n# run_id: 3\n"
				  BF_TRACE_HEADER "\n");
		}
		snprintf(before, sizeof(before), "%s", slurp(path) ?: "");
		run_bin(dir, argv, res);
		EXPECT_EQ(2, res->exit) TH_LOG("%s: exit %d: %s", bad[i].name,
					       res->exit, res->err);
		EXPECT_NE(NULL, strstr(res->err, bad[i].word))
			TH_LOG("%s: %s", bad[i].name, res->err);
		EXPECT_EQ(NULL, strstr(res->err, "netlink"))
			TH_LOG("%s: asked the module first: %s", bad[i].name, res->err);
		EXPECT_EQ(1, lines(res->err)) TH_LOG("%s: %s", bad[i].name, res->err);
		EXPECT_STREQ(before, slurp(path) ?: "") TH_LOG("%s changed", bad[i].name);
	}
	free(res);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	EXPECT_EQ(0, system(path));
}

/* The table names no command that does not exist. */
TEST(the_table_names_real_commands)
{
	const struct blkfloor_cmd *c;

	for (size_t i = 0; i < sizeof(readers) / sizeof(readers[0]); i++) {
		for (c = __start_blkfloor_cmds; c < __stop_blkfloor_cmds; c++)
			if (!strcmp(c->name, readers[i].cmd))
				break;
		EXPECT_TRUE(c < __stop_blkfloor_cmds)
			TH_LOG("readers[] names %s", readers[i].cmd);
	}
}

TEST_HARNESS_MAIN
