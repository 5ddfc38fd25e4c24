/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fake sysfs tree in a temporary directory for the unit tests of code
 * that reads sysfs: ROOT/sys built by a shell command, ROOT/proc beside it.
 * Include after kselftest_harness.h; use FAKETREE_FIXTURE(TREE), where TREE
 * is the shell command run in ROOT/sys.
 */
#ifndef BLKFLOOR_TESTS_FAKETREE_H
#define BLKFLOOR_TESTS_FAKETREE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAKETREE_FIXTURE(tree)						\
FIXTURE(sysfs) {							\
	char root[64];							\
	char sys[80];	/* ROOT/sys; ROOT/proc beside it */		\
};									\
									\
FIXTURE_SETUP(sysfs)							\
{									\
	char cmd[8192];							\
									\
	strcpy(self->root, "/tmp/bf-sysfs-XXXXXX");			\
	ASSERT_NE(NULL, mkdtemp(self->root));				\
	snprintf(self->sys, sizeof(self->sys), "%s/sys", self->root);	\
	snprintf(cmd, sizeof(cmd), "mkdir %s && cd %s && %s", self->sys, \
		 self->sys, tree);					\
	ASSERT_EQ(0, system(cmd));					\
}									\
									\
FIXTURE_TEARDOWN(sysfs)							\
{									\
	char cmd[128];							\
									\
	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->root);		\
	if (system(cmd))						\
		TH_LOG("cannot remove %s", self->root);			\
}

#endif /* BLKFLOOR_TESTS_FAKETREE_H */
