// SPDX-License-Identifier: GPL-2.0
/*
 * The command list as help shows it (see cmdhelp.h).
 */
#include <stdlib.h>
#include <string.h>

#include "cmdhelp.h"

#define NAME_COL	13	/* "  " + name in 10 + " " */
#define COLS		80

void bf_help_summary(const char *help, char *buf, size_t len)
{
	const char *p = help, *opts = strstr(help, "\n  ");
	const char *par = strstr(help, "\n\n"), *end = help + strlen(help);
	size_t n = 0;

	if (opts && opts < end)
		end = opts;
	if (par && par < end)
		end = par;
	for (; p < end; p++) {
		if ((*p == '.' || *p == '?') &&
		    (p + 1 == end || p[1] == ' ' || p[1] == '\n')) {
			end = p + 1;
			break;
		}
	}
	for (p = help; p < end && n + 1 < len; p++)
		buf[n++] = *p == '\n' ? ' ' : *p;
	if (len)
		buf[n] = '\0';
}

/* the end of the word at @p: the next blank outside [ ] */
static const char *word_end(const char *p)
{
	int depth = 0;

	while (*p && (*p != ' ' || depth)) {
		depth += *p == '[' ? 1 : *p == ']' ? -1 : 0;
		p++;
	}
	return p;
}

/* the length of the alternative from the '|' at @p to the next one */
static int alternative_len(const char *p)
{
	const char *e = word_end(p);

	while (*e == ' ' && e[1] && e[1] != '|')
		e = word_end(e + 1);
	return (int)(e - p);
}

/*
 * "Usage: blkfloor NAME ARGS" within COLS: ARGS broken at blanks outside
 * brackets (before a '|' whose alternative would not fit), the rest
 * indented under the first argument.
 */
static void usage_line(FILE *f, const struct blkfloor_cmd *c)
{
	int ind = fprintf(f, "Usage: blkfloor %s ", c->name), col = ind;
	const char *p = c->args;

	while (*p) {
		const char *e = word_end(p);
		int need = *p == '|' && p[1] == ' ' ? alternative_len(p) :
			   (int)(e - p);

		if (col > ind && col + 1 + need > COLS) {
			fprintf(f, "\n%*s", ind, "");
			col = ind;
		} else if (col > ind) {
			fputc(' ', f);
			col++;
		}
		col += fprintf(f, "%.*s", (int)(e - p), p);
		p = *e ? e + 1 : e;
	}
	fputc('\n', f);
}

void bf_cmd_help(FILE *f, const struct blkfloor_cmd *c)
{
	usage_line(f, c);
	fprintf(f, "\n%s\n", c->help);
}

int bf_cmd_status(const struct blkfloor_cmd *c, int ret)
{
	if (ret == EXIT_USAGE) {
		fputc('\n', stderr);
		bf_cmd_help(stderr, c);
	}
	return ret == EXIT_REFUSED ? EXIT_USAGE : ret;
}

static int cmp_cmd(const void *a, const void *b)
{
	const struct blkfloor_cmd *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

/* @text from column NAME_COL, broken at blanks before COLS */
static void wrapped(FILE *f, const char *text)
{
	const char *p = text;
	bool first = true;

	while (*p) {
		size_t room = COLS - NAME_COL, l = strlen(p);
		const char *cut = p + l;

		if (l > room) {
			cut = p + room;
			while (cut > p && *cut != ' ')
				cut--;
			if (cut == p)
				cut = p + room;
		}
		fprintf(f, "%*s%.*s\n", first ? 0 : NAME_COL, "",
			(int)(cut - p), p);
		first = false;
		p = cut;
		while (*p == ' ')
			p++;
	}
	if (first)
		fputc('\n', f);
}

void bf_print_commands(FILE *f)
{
	const struct blkfloor_cmd *c, *sorted[64];
	size_t n = 0, i;
	char s[512];

	for (c = __start_blkfloor_cmds; c < __stop_blkfloor_cmds && n < 64; c++)
		sorted[n++] = c;
	qsort(sorted, n, sizeof(sorted[0]), cmp_cmd);
	for (i = 0; i < n; i++) {
		bf_help_summary(sorted[i]->help, s, sizeof(s));
		fprintf(f, "  %-10s ", sorted[i]->name);
		wrapped(f, s);
	}
}

unsigned int bf_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	unsigned int d[33][33];

	if (la > 32 || lb > 32)
		return 99;
	for (i = 0; i <= la; i++)
		d[i][0] = i;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			unsigned int sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			unsigned int del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
			unsigned int m = sub < del ? sub : del;

			m = m < ins ? m : ins;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < m)
				m = d[i - 2][j - 2] + 1;
			d[i][j] = m;
		}
	}
	return d[la][lb];
}

const struct blkfloor_cmd *bf_nearest_cmd(const char *word)
{
	const struct blkfloor_cmd *c, *best = NULL, *prefix = NULL;
	unsigned int bd = 99, nprefix = 0, max;
	size_t l = strlen(word);

	if (!l)
		return NULL;
	for (c = __start_blkfloor_cmds; c < __stop_blkfloor_cmds; c++) {
		unsigned int d = bf_edit_distance(word, c->name);

		if (!strncmp(c->name, word, l)) {
			prefix = c;
			nprefix++;
		}
		if (d < bd) {
			bd = d;
			best = c;
		}
	}
	if (nprefix == 1)
		return prefix;
	max = l <= 4 ? 1 : 2;
	return bd <= max ? best : NULL;
}
