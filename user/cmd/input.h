/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The files the offline commands read: a blkfloor trace, a fio bandwidth
 * log or a two-column CSV, given by name or as "-" (standard input). Each
 * is read whole, so that its curve, its run's summary and its path are
 * read from the same bytes, and either refused in one line (exit 2, with
 * --json an object with "error" on standard output) or read with its
 * warnings said, the same way by every command.
 */
#ifndef BLKFLOOR_INPUT_H
#define BLKFLOOR_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "curve.h"

/**
 * struct bf_input - one file read by an offline command
 * @path: as given ("-" is standard input)
 * @name: for messages: @path, or "stdin"
 * @buf: the file's bytes up to its last whole line (a trace's line cut
 *	 by a killed writer left out), a UTF-8 BOM removed, NUL-terminated
 * @len: bytes in @buf
 * @ld: how the curve was read: its format, warnings, op, end state
 * @ser: the curve
 */
struct bf_input {
	const char *path;
	const char *name;
	char *buf;
	size_t len;
	struct bf_load ld;
	struct bf_series ser;
};

/*
 * Read @path in @fmt (or the format the content says). 0, or a negative
 * errno with a one-line reason that names the file in @err (a missing
 * file, a directory, an empty file, binary data, a line that is no
 * sample). @in is freed on an error; bf_input_free() it otherwise.
 */
int bf_input_read(struct bf_input *in, const char *path, enum bf_format fmt,
		  char *err, size_t errlen);
/* @in's bytes as a stream (for the trace's other readers), or NULL. */
FILE *bf_input_stream(const struct bf_input *in);
void bf_input_free(struct bf_input *in);

/*
 * On stderr, "blkfloor CMD: NAME: read as ..." when the format was
 * guessed and is not a trace, and "blkfloor CMD: NAME: warning: ..."
 * when the file was read with a warning.
 */
void bf_input_say(const char *cmd, const struct bf_input *in);

/*
 * Refuse the command's input: "blkfloor CMD: REASON" on stderr and, with
 * @json, {"schema": N, "error": "REASON"} on stdout. Returns
 * EXIT_REFUSED.
 */
int bf_refuse(const char *cmd, bool json, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* BLKFLOOR_INPUT_H */
