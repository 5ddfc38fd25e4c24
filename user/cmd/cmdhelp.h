/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command list as help shows it: each command's first sentence whole
 * (wrapped, not cut), and the nearest command to a mistyped one.
 */
#ifndef BLKFLOOR_CMDHELP_H
#define BLKFLOOR_CMDHELP_H

#include <stddef.h>
#include <stdio.h>

#include "blkfloor.h"

/*
 * The first sentence of @help (up to a '.' or '?' followed by a blank or
 * the end, within the text before the option lines), its line breaks made
 * blanks, into @buf.
 */
void bf_help_summary(const char *help, char *buf, size_t len);

/* "Usage: blkfloor NAME ARGS", a blank line and the command's help. */
void bf_cmd_help(FILE *f, const struct blkfloor_cmd *c);

/*
 * The exit status for a handler's return @ret: EXIT_USAGE prints the
 * command's help on stderr after the one-line reason; EXIT_REFUSED (input
 * refused, reason said) is EXIT_USAGE without the help.
 */
int bf_cmd_status(const struct blkfloor_cmd *c, int ret);

/* "  name       summary..." for every command, sorted, within 80 columns. */
void bf_print_commands(FILE *f);

/*
 * The registered command nearest to @word: a unique prefix of one, or
 * the one at the smallest edit distance if that is at most 2 (1 for
 * words of up to 4 letters). NULL if none is near.
 */
const struct blkfloor_cmd *bf_nearest_cmd(const char *word);

/* Edit distance (insert, delete, substitute, swap two neighbours). */
unsigned int bf_edit_distance(const char *a, const char *b);

#endif /* BLKFLOOR_CMDHELP_H */
