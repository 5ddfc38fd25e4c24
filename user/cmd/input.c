// SPDX-License-Identifier: GPL-2.0
/*
 * The files the offline commands read (see input.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "blkfloor.h"
#include "input.h"
#include "json.h"
#include "runsum.h"

/* The whole of @f into a NUL-terminated buffer. */
static int slurp(FILE *f, char **buf, size_t *len)
{
	size_t cap = 0, n = 0, got;
	char *b = NULL, *nb;

	do {
		if (n + 65536 + 1 > cap) {
			cap = cap ? 2 * cap : 65536 * 2;
			nb = realloc(b, cap);
			if (!nb) {
				free(b);
				return -ENOMEM;
			}
			b = nb;
		}
		got = fread(b + n, 1, cap - n - 1, f);
		n += got;
	} while (got);
	if (ferror(f)) {
		free(b);
		return -EIO;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

int bf_input_read(struct bf_input *in, const char *path, enum bf_format fmt,
		  char *err, size_t errlen)
{
	bool std = !strcmp(path, "-");
	char why[320];
	struct stat st;
	FILE *f;
	int ret;

	memset(in, 0, sizeof(*in));
	in->path = path;
	in->name = std ? "stdin" : path;
	in->ld.format = fmt;
	f = std ? stdin : fopen(path, "r");
	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	if (!fstat(fileno(f), &st) && S_ISDIR(st.st_mode)) {
		ret = -EISDIR;
		snprintf(err, errlen, "%s: is a directory", path);
	} else {
		ret = slurp(f, &in->buf, &in->len);
		if (ret)
			snprintf(err, errlen, "%s: %s", in->name,
				 strerror(-ret));
	}
	if (!std)
		fclose(f);
	if (ret)
		return ret;
	/* a UTF-8 byte order mark, as some editors write one */
	if (in->len >= 3 && !memcmp(in->buf, "\xef\xbb\xbf", 3)) {
		memmove(in->buf, in->buf + 3, in->len - 2);
		in->len -= 3;
	}
	f = bf_input_stream(in);
	ret = f ? bf_series_read_as(f, &in->ld, &in->ser, why, sizeof(why)) :
		  -errno;
	if (f)
		fclose(f);
	if (ret) {
		snprintf(err, errlen, "%s: %s", in->name,
			 f ? why : strerror(-ret));
		bf_input_free(in);
		return ret;
	}
	/* the trace's other readers see the lines the curve was read from */
	if (in->ld.format == BF_FORMAT_TRACE) {
		in->len = bf_whole_lines(in->buf, in->len);
		in->buf[in->len] = '\0';
	}
	return 0;
}

FILE *bf_input_stream(const struct bf_input *in)
{
	/* fmemopen() of 0 bytes fails on older C libraries */
	return fmemopen(in->len ? in->buf : (char *)"", in->len ? in->len : 1,
			"r");
}

void bf_input_free(struct bf_input *in)
{
	bf_series_free(&in->ser);
	free(in->buf);
	in->buf = NULL;
	in->len = 0;
}

void bf_input_say(const char *cmd, const struct bf_input *in)
{
	if (in->ld.guessed && in->ld.format == BF_FORMAT_FIO)
		fprintf(stderr, "blkfloor %s: %s: read as a fio bandwidth log (msec, KiB/s, ddir, bs; %s) (guessed from the content; --format to choose)\n",
			cmd, in->name, in->ld.op);
	else if (in->ld.guessed && in->ld.format == BF_FORMAT_CSV)
		fprintf(stderr, "blkfloor %s: %s: read as two columns (%s) (guessed from the content; --format to choose)\n",
			cmd, in->name, in->ld.units);
	for (const char *p = in->ld.warn; *p;) {
		int l = (int)strcspn(p, "\n");

		fprintf(stderr, "blkfloor %s: %s: warning: %.*s\n", cmd,
			in->name, l, p);
		p += l + (p[l] == '\n');
	}
}

int bf_refuse(const char *cmd, bool json, const char *fmt, ...)
{
	char why[512];
	struct bf_json j;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	fprintf(stderr, "blkfloor %s: %s\n", cmd, why);
	if (json) {
		bf_json_doc_open(&j, stdout);
		bf_json_str(&j, "error", why);
		bf_json_obj_close(&j);
	}
	return EXIT_REFUSED;
}
