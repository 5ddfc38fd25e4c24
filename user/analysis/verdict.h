/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The classifier's stage 3 (verdict.c): the cause, from the plateaus and
 * the features; the report filled.
 */
#ifndef BLKFLOOR_VERDICT_H
#define BLKFLOOR_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

#include "classify_int.h"

int bf_classify_work(struct bf_work *w, struct bf_report *r);

#endif /* BLKFLOOR_VERDICT_H */
