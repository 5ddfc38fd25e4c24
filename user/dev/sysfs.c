// SPDX-License-Identifier: GPL-2.0
/*
 * Small readers of sysfs attributes.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "sysfs.h"

void bf_fmt(char *buf, size_t len, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	vsnprintf(buf, len, f, ap);
	va_end(ap);
}

void bf_sysfs_str(const char *dir, const char *attr, char *buf, size_t len)
{
	char path[PATH_MAX];
	size_t n;
	FILE *f;
	char *s;

	buf[0] = '\0';
	bf_fmt(path, sizeof(path), "%s/%s", dir, attr);
	f = fopen(path, "r");
	if (!f)
		return;
	if (!fgets(buf, len, f))
		buf[0] = '\0';
	fclose(f);
	n = strlen(buf);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' ' ||
		     buf[n - 1] == '\t'))
		buf[--n] = '\0';
	for (s = buf; *s == ' '; s++)
		;
	memmove(buf, s, strlen(s) + 1);
}

bool bf_sysfs_u64(const char *dir, const char *attr, uint64_t *v)
{
	unsigned long long x;
	char buf[64], *end;

	bf_sysfs_str(dir, attr, buf, sizeof(buf));
	if (!buf[0] || buf[0] == '-')
		return false;
	errno = 0;
	x = strtoull(buf, &end, 0);
	if (errno || end == buf || *end)
		return false;
	*v = x;
	return true;
}

bool bf_sysfs_exists(const char *dir, const char *attr)
{
	char path[PATH_MAX];
	struct stat st;

	bf_fmt(path, sizeof(path), "%s/%s", dir, attr);
	return !stat(path, &st);
}

void bf_sysfs_link_base(const char *dir, const char *link, char *buf,
			size_t len)
{
	char path[PATH_MAX], tgt[PATH_MAX];
	ssize_t n;
	char *b;

	buf[0] = '\0';
	bf_fmt(path, sizeof(path), "%s/%s", dir, link);
	n = readlink(path, tgt, sizeof(tgt) - 1);
	if (n <= 0)
		return;
	tgt[n] = '\0';
	b = strrchr(tgt, '/');
	bf_fmt(buf, len, "%s", b ? b + 1 : tgt);
}

bool bf_sysfs_up_to(const char *sysroot, const char *path, const char *attr,
		    char *out, size_t len)
{
	char cur[PATH_MAX];
	size_t rootlen = strlen(sysroot);
	char *slash;

	bf_fmt(cur, sizeof(cur), "%s", path);
	while ((slash = strrchr(cur, '/')) && (size_t)(slash - cur) > rootlen) {
		*slash = '\0';
		if (bf_sysfs_exists(cur, attr)) {
			bf_fmt(out, len, "%s", cur);
			return true;
		}
	}
	return false;
}
