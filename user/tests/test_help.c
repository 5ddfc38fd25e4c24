// SPDX-License-Identifier: GPL-2.0
/*
 * The help says what is true and fits a terminal: every line of
 * "blkfloor help", "blkfloor help CMD" and "blkfloor CMD --help" (the
 * usage lines too) within 80 columns, for every registered command; the
 * top help's exit statuses the ones the commands return (0 to 3); the
 * man page's command list holding every command (help too), and
 * classify --json described as what it prints (JSON Lines). The real
 * binary (../blkfloor beside tests/) and man page (../blkfloor.8).
 */
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#include "blkfloor.h"

static char dir[PATH_MAX];

/* the folder of blkfloor and blkfloor.8: tests/'s parent */
static bool find_dir(void)
{
	char self[PATH_MAX], bin[PATH_MAX + 16];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return false;
	self[n] = '\0';
	snprintf(dir, sizeof(dir), "%s", dirname(dirname(self)));
	snprintf(bin, sizeof(bin), "%s/blkfloor", dir);
	return !access(bin, X_OK);
}

/* "blkfloor ARGS..." with stdout and stderr together: their text */
static char *run(const char *const *args, int *status)
{
	char bin[PATH_MAX + 16], *argv[8], *out = NULL;
	int pfd[2], st, n = 0;
	size_t len = 0, cap = 0;
	ssize_t got;
	pid_t pid;

	snprintf(bin, sizeof(bin), "%s/blkfloor", dir);
	argv[n++] = "blkfloor";
	while (*args && n < 7)
		argv[n++] = (char *)*args++;
	argv[n] = NULL;
	if (pipe(pfd))
		abort();
	pid = fork();
	if (!pid) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		close(pfd[1]);
		execv(bin, argv);
		_exit(127);
	}
	close(pfd[1]);
	do {
		if (len + 4097 > cap) {
			cap = cap ? 2 * cap : 16384;
			out = realloc(out, cap);
			if (!out)
				abort();
		}
		got = read(pfd[0], out + len, cap - len - 1);
		if (got > 0)
			len += got;
	} while (got > 0);
	close(pfd[0]);
	out[len] = '\0';
	waitpid(pid, &st, 0);
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return out;
}

/* lines of @text longer than 80 columns (bytes: the help is ASCII) */
static int too_wide(const char *what, const char *text)
{
	const char *p = text;
	int bad = 0;

	while (*p) {
		const char *nl = strchrnul(p, '\n');

		if (nl - p > 80) {
			fprintf(stderr, "# %s: %d columns: %.*s\n", what,
				(int)(nl - p), (int)(nl - p), p);
			bad++;
		}
		p = *nl ? nl + 1 : nl;
	}
	return bad;
}

TEST(every_help_line_fits_80_columns)
{
	const struct blkfloor_cmd *c;
	int bad = 0, st;
	char *o;

	ASSERT_TRUE(find_dir()) TH_LOG("no blkfloor beside tests/: make -C user");
	{
		const char *a[] = { "help", NULL };

		o = run(a, &st);
		EXPECT_EQ(0, st);
		bad += too_wide("help", o);
		free(o);
	}
	for (c = __start_blkfloor_cmds; c < __stop_blkfloor_cmds; c++) {
		const char *a[] = { "help", c->name, NULL };
		const char *b[] = { c->name, "--help", NULL };

		o = run(a, &st);
		EXPECT_EQ(0, st) TH_LOG("help %s", c->name);
		EXPECT_NE(NULL, strstr(o, "Usage: blkfloor ")) TH_LOG("help %s", c->name);
		bad += too_wide(c->name, o);
		free(o);
		o = run(b, &st);
		EXPECT_EQ(0, st);
		bad += too_wide(c->name, o);
		free(o);
	}
	EXPECT_EQ(0, bad);
}

/* The exit statuses the top help lists are all those a command returns. */
TEST(top_help_lists_every_exit_status)
{
	static const char *const want[] = { "0 ", "1 ", "2 ", "3 " };
	const char *a[] = { "help", NULL }, *p;
	char *o;
	int st;

	ASSERT_TRUE(find_dir());
	o = run(a, &st);
	p = strstr(o, "Exit status:");
	ASSERT_NE(NULL, p) TH_LOG("%s", o);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		EXPECT_NE(NULL, strstr(p, want[i]))
			TH_LOG("no '%s' in '%s'", want[i], p);
	}
	free(o);
}

/* the man page, whole */
static char *man_page(void)
{
	char path[PATH_MAX + 16], *t;
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/blkfloor.8", dir);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	t = calloc(1, n + 1);
	if (t && fread(t, 1, n, f) != (size_t)n) {
		free(t);
		t = NULL;
	}
	fclose(f);
	return t;
}

/*
 * The man page's COMMANDS section has an entry (".TP" then ".B NAME" or
 * ".BI \"NAME ...\"") for every command, help among them.
 */
TEST(man_page_lists_every_command)
{
	const struct blkfloor_cmd *c;
	char *man, *sec, *end;

	ASSERT_TRUE(find_dir());
	man = man_page();
	ASSERT_NE(NULL, man);
	sec = strstr(man, "\n.SH COMMANDS\n");
	ASSERT_NE(NULL, sec);
	end = strstr(sec + 1, "\n.SH ");
	if (end)
		*end = '\0';
	for (c = __start_blkfloor_cmds; c < __stop_blkfloor_cmds; c++) {
		char a[64], b[64], d[64];

		snprintf(a, sizeof(a), "\n.TP\n.B %s ", c->name);
		snprintf(b, sizeof(b), "\n.TP\n.BI \"%s ", c->name);
		snprintf(d, sizeof(d), "\n.TP\n.B %s\n", c->name);
		EXPECT_TRUE(strstr(sec, a) || strstr(sec, b) || strstr(sec, d))
			TH_LOG("no entry for %s in the man page's COMMANDS", c->name);
	}
	/* main.c's own command */
	EXPECT_TRUE(strstr(sec, "\n.TP\n.B help ") || strstr(sec, "\n.TP\n.B help\n"))
		TH_LOG("no entry for help in the man page's COMMANDS");
	free(man);
}

/* classify --json prints JSON Lines, one object per file, everywhere */
TEST(man_page_classify_json_is_json_lines)
{
	char *man, *p;

	ASSERT_TRUE(find_dir());
	man = man_page();
	ASSERT_NE(NULL, man);
	for (p = man; (p = strstr(p, "array of objects")); p++) {
		EXPECT_EQ(NULL, p)
			TH_LOG("'...%.80s...': classify --json is JSON Lines",
			       p - 40);
	}
	EXPECT_NE(NULL, strstr(man, "JSON Lines"));
	free(man);
}

TEST_HARNESS_MAIN
