/* SPDX-License-Identifier: GPL-2.0 */
/*
 * blkfloor CLI: shared declarations.
 *
 * Commands register themselves like iw's: each cmd_*.c file declares its
 * commands with BLKFLOOR_COMMAND(), which places a struct blkfloor_cmd in the
 * "blkfloor_cmds" section; main.c walks the section. No central table to edit.
 */
#ifndef BLKFLOOR_USER_H
#define BLKFLOOR_USER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define BLKFLOOR_CLI_VERSION "0.1.0"

/* Exit codes. */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,	/* the run, the device or the kernel failed */
	EXIT_USAGE = 2,	/* bad command line; the command's help is printed */
	/*
	 * A handler's return only, never an exit status: input refused (a
	 * file that cannot be read as asked), said in one line. The exit
	 * status is EXIT_USAGE, without the help (see bf_cmd_status()).
	 */
	EXIT_REFUSED = 0x102,
};

/**
 * struct blkfloor_cmd - one subcommand
 * @name: what the user types, e.g. "run"
 * @args: argument synopsis for the help text, e.g. "DEV [options]"
 * @help: the help text: one summary line, then option lines
 * @handler: runs the command; argv[0] is the command name. Returns an exit
 *	code (EXIT_OK, EXIT_FAIL or EXIT_USAGE, which prints the help) or
 *	EXIT_REFUSED (exit status 2, no help).
 */
struct blkfloor_cmd {
	const char *name;
	const char *args;
	const char *help;
	int (*handler)(int argc, char **argv);
};

#define BLKFLOOR_COMMAND(_name, _args, _handler, _help)			\
	static const struct blkfloor_cmd __blkfloor_cmd_##_name		\
	__attribute__((used, section("blkfloor_cmds"), aligned(8))) = {	\
		.name = #_name,						\
		.args = _args,						\
		.help = _help,						\
		.handler = _handler,					\
	}

/* Section bounds, provided by the linker. */
extern const struct blkfloor_cmd __start_blkfloor_cmds[];
extern const struct blkfloor_cmd __stop_blkfloor_cmds[];

#endif /* BLKFLOOR_USER_H */
