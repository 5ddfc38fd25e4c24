// SPDX-License-Identifier: GPL-2.0
/*
 * blkfloor: command dispatcher. Commands register themselves with
 * BLKFLOOR_COMMAND() (see blkfloor.h); this file walks the section.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkfloor.h"
#include "cmdhelp.h"

static const struct blkfloor_cmd *find_cmd(const char *name)
{
	const struct blkfloor_cmd *c;

	for (c = __start_blkfloor_cmds; c < __stop_blkfloor_cmds; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: blkfloor COMMAND [ARGS]\n"
		"       blkfloor help [COMMAND]\n"
		"       blkfloor COMMAND --help\n\n"
		"Sustained block-device throughput measurement, driven through the\n"
		"blkfloor kernel module (modprobe blkfloor).\n\n"
		"Commands:\n");
	bf_print_commands(f);
	fprintf(f,
		"\nSizes: K, M, G, T (or k, m, g, t, and kb, mb, gb, tb as fio reads\n"
		"them) and KiB, MiB, GiB, TiB are powers of 1024 (--bs 128K is 131072\n"
		"bytes); kB (KB), MB, GB, TB are powers of 1000, as dd reads them (fio\n"
		"reads 1MB as 2^20: write 1M or 1MiB for that); b, B or a plain number\n"
		"is bytes. Printed rates are MB/s (10^6 bytes/s).\n"
		"Exit status: 0 success, 1 the run, device or kernel failed, 2 usage or\n"
		"bad input, 3 inconclusive (compare).\n");
}

/* "unknown command 'comapre'; did you mean 'compare'?" */
static int unknown(const char *word)
{
	const struct blkfloor_cmd *near = bf_nearest_cmd(word);

	if (near) {
		fprintf(stderr, "blkfloor: unknown command '%s'; did you mean '%s'?\n",
			word, near->name);
		return EXIT_USAGE;
	}
	fprintf(stderr, "blkfloor: unknown command '%s'\n", word);
	usage(stderr);
	return EXIT_USAGE;
}

static int help(int argc, char **argv)
{
	const struct blkfloor_cmd *c;

	if (argc < 2) {
		usage(stdout);
		return EXIT_OK;
	}
	c = find_cmd(argv[1]);
	if (!c)
		return unknown(argv[1]);
	bf_cmd_help(stdout, c);
	return EXIT_OK;
}

BLKFLOOR_COMMAND(help, "[COMMAND]", help,
		 "Show the list of commands or one command's help.");

int main(int argc, char **argv)
{
	const struct blkfloor_cmd *c;
	int i, ret;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return help(1, argv);
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("blkfloor %s\n", BLKFLOOR_CLI_VERSION);
		return EXIT_OK;
	}
	c = find_cmd(argv[1]);
	if (!c)
		return unknown(argv[1]);
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			bf_cmd_help(stdout, c);
			return EXIT_OK;
		}
	}
	ret = c->handler(argc - 1, argv + 1);
	/* output that did not arrive (a full disk, a closed pipe) is a failure */
	if ((fflush(stdout) || ferror(stdout)) && ret != EXIT_USAGE &&
	    ret != EXIT_REFUSED) {
		fprintf(stderr, "blkfloor %s: write error on standard output: %s\n",
			argv[1], strerror(errno));
		ret = EXIT_FAIL;
	}
	return bf_cmd_status(c, ret);
}
