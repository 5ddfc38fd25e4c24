// SPDX-License-Identifier: GPL-2.0
/*
 * A small streaming JSON writer.
 */
#include <math.h>
#include <string.h>

#include "json.h"

void bf_json_init(struct bf_json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->in_array[0] = false;
	j->first[0] = true;
}

void bf_json_write_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	fputc('"', f);
	for (; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

static void key(struct bf_json *j, const char *k)
{
	int d = j->depth;

	if (d > 0) {
		if (!j->first[d])
			fputc(',', j->f);
		j->first[d] = false;
	}
	if (d > 0 && !j->in_array[d] && k) {
		bf_json_write_string(j->f, k);
		fputc(':', j->f);
	}
}

static void open(struct bf_json *j, const char *k, char c, bool array)
{
	key(j, k);
	fputc(c, j->f);
	if (j->depth < BF_JSON_DEPTH - 1)
		j->depth++;
	j->in_array[j->depth] = array;
	j->first[j->depth] = true;
}

static void close_(struct bf_json *j, char c)
{
	fputc(c, j->f);
	if (j->depth > 0)
		j->depth--;
	if (j->depth == 0) {
		fputc('\n', j->f);
		fflush(j->f);
	}
}

void bf_json_doc_open(struct bf_json *j, FILE *f)
{
	bf_json_init(j, f);
	bf_json_obj_open(j, NULL);
	bf_json_u64(j, "schema", BF_JSON_SCHEMA);
}

void bf_json_obj_open(struct bf_json *j, const char *k)
{
	open(j, k, '{', false);
}

void bf_json_obj_close(struct bf_json *j)
{
	close_(j, '}');
}

void bf_json_arr_open(struct bf_json *j, const char *k)
{
	open(j, k, '[', true);
}

void bf_json_arr_close(struct bf_json *j)
{
	close_(j, ']');
}

void bf_json_str(struct bf_json *j, const char *k, const char *val)
{
	key(j, k);
	if (val)
		bf_json_write_string(j->f, val);
	else
		fputs("null", j->f);
}

void bf_json_u64(struct bf_json *j, const char *k, uint64_t val)
{
	key(j, k);
	fprintf(j->f, "%llu", (unsigned long long)val);
}

void bf_json_i64(struct bf_json *j, const char *k, int64_t val)
{
	key(j, k);
	fprintf(j->f, "%lld", (long long)val);
}

void bf_json_double(struct bf_json *j, const char *k, double val)
{
	key(j, k);
	if (isfinite(val))
		fprintf(j->f, "%.6g", val);
	else
		fputs("null", j->f);
}

void bf_json_bool(struct bf_json *j, const char *k, bool val)
{
	key(j, k);
	fputs(val ? "true" : "false", j->f);
}

void bf_json_null(struct bf_json *j, const char *k)
{
	key(j, k);
	fputs("null", j->f);
}

void bf_json_key(struct bf_json *j, const char *k)
{
	key(j, k);
}

void bf_json_warnings(struct bf_json *j, const char *key, const char *text)
{
	const char *p = text ? text : "";

	bf_json_arr_open(j, key);
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);
		char line[512];

		snprintf(line, sizeof(line), "%.*s", (int)l, p);
		bf_json_str(j, NULL, line);
		p += l + (nl != NULL);
	}
	bf_json_arr_close(j);
}
