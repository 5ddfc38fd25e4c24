/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Arrays that grow by doubling: the one place that computes their size.
 */
#ifndef BLKFLOOR_GROW_H
#define BLKFLOOR_GROW_H

#include <stddef.h>

/*
 * bf_grow() - room for at least @need elements of @size bytes in @v
 * @v:     the array, or NULL for none yet
 * @cap:   its capacity in elements, updated when it grows
 * @need:  elements it must hold
 * @size:  bytes per element
 * @first: capacity of a new array
 *
 * Doubles the capacity until @need fits and zeroes what was added.
 * Returns the array (moved or not), or NULL with @v still valid and @cap
 * unchanged when the size overflows or memory runs out.
 */
void *bf_grow(void *v, size_t *cap, size_t need, size_t size, size_t first);

#endif /* BLKFLOOR_GROW_H */
