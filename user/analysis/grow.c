// SPDX-License-Identifier: GPL-2.0
/*
 * Arrays that grow by doubling.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

void *bf_grow(void *v, size_t *cap, size_t need, size_t size, size_t first)
{
	size_t c = *cap ? *cap : (first ? first : 1);
	char *p;

	if (need <= *cap)
		return v;
	while (c < need) {
		if (c > SIZE_MAX / 2)
			return NULL;
		c *= 2;
	}
	if (!size || c > SIZE_MAX / size)
		return NULL;
	p = realloc(v, c * size);
	if (!p)
		return NULL;
	memset(p + *cap * size, 0, (c - *cap) * size);
	*cap = c;
	return p;
}
