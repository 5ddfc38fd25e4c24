/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small streaming JSON writer shared by every --json output.
 *
 * Keys are ignored inside arrays (pass NULL). State lives in struct bf_json.
 */
#ifndef BLKFLOOR_JSON_H
#define BLKFLOOR_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define BF_JSON_DEPTH 16
#define BF_JSON_SCHEMA	2	/* BF_SCHEMA_VERSION in classify.h */

struct bf_json {
	FILE *f;
	int depth;
	bool in_array[BF_JSON_DEPTH];
	bool first[BF_JSON_DEPTH];
};

void bf_json_init(struct bf_json *j, FILE *f);
/*
 * Start a JSON document on @f: the top-level object and its first member,
 * "schema" (BF_JSON_SCHEMA, the number that changes when a document's
 * shape does). Close it with bf_json_obj_close().
 */
void bf_json_doc_open(struct bf_json *j, FILE *f);
void bf_json_obj_open(struct bf_json *j, const char *key);
void bf_json_obj_close(struct bf_json *j);	/* at depth 0 adds "\n" */
void bf_json_arr_open(struct bf_json *j, const char *key);
void bf_json_arr_close(struct bf_json *j);
void bf_json_str(struct bf_json *j, const char *key, const char *val);
void bf_json_u64(struct bf_json *j, const char *key, uint64_t val);
void bf_json_i64(struct bf_json *j, const char *key, int64_t val);
void bf_json_double(struct bf_json *j, const char *key, double val);
void bf_json_bool(struct bf_json *j, const char *key, bool val);
void bf_json_null(struct bf_json *j, const char *key);
/* Emit the separator and @key; the caller then writes one raw value. */
void bf_json_key(struct bf_json *j, const char *key);
/* An array of the lines of @text ('\n'-separated; none if NULL or ""). */
void bf_json_warnings(struct bf_json *j, const char *key, const char *text);
/* Write a JSON string literal (with quotes) to @f. */
void bf_json_write_string(FILE *f, const char *s);

#endif /* BLKFLOOR_JSON_H */
