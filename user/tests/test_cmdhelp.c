// SPDX-License-Identifier: GPL-2.0
/*
 * The command list: every summary a whole sentence within 80 columns, and
 * the nearest command suggested for a typo.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#include "cmdhelp.h"

TEST(summary_is_the_first_sentence)
{
	char b[256];

	bf_help_summary("Classify a curve: steady,\ncache-exhaustion or unclear.\nFILE is a trace.\n  --json  JSON", b, sizeof(b));
	EXPECT_STREQ("Classify a curve: steady, cache-exhaustion or unclear.", b);
	bf_help_summary("Is B worse\nthan A? One or more.", b, sizeof(b));
	EXPECT_STREQ("Is B worse than A?", b);
	bf_help_summary("No full stop\n  --x  an option.", b, sizeof(b));
	EXPECT_STREQ("No full stop", b);
	bf_help_summary("Version 1.2 of it.", b, sizeof(b));
	EXPECT_STREQ("Version 1.2 of it.", b);
}

/* The real list: each command's entry ends its sentence, lines fit 80. */
TEST(command_list_whole_and_narrow)
{
	char *buf = NULL, *line, *save = NULL, last = 0;
	size_t len = 0;
	int entries = 0;
	FILE *f = open_memstream(&buf, &len);

	ASSERT_NE(NULL, f);
	bf_print_commands(f);
	fclose(f);
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		size_t l = strlen(line);

		EXPECT_LE(l, 80U) TH_LOG("%s", line);
		if (line[2] != ' ') {	/* a new entry: the last one ended */
			if (entries)
				EXPECT_TRUE(last == '.' || last == '?') TH_LOG("before %s", line);
			entries++;
		}
		last = l ? line[l - 1] : 0;
	}
	EXPECT_TRUE(last == '.' || last == '?');
	EXPECT_GT(entries, 10);
	free(buf);
}

TEST(nearest_command)
{
	const struct blkfloor_cmd *c;

	EXPECT_EQ(1U, bf_edit_distance("comapre", "compare"));	/* a swap */
	EXPECT_EQ(1U, bf_edit_distance("sustian", "sustain"));
	EXPECT_EQ(3U, bf_edit_distance("abc", ""));
	c = bf_nearest_cmd("comapre");
	ASSERT_NE(NULL, c);
	EXPECT_STREQ("compare", c->name);
	c = bf_nearest_cmd("clasify");
	ASSERT_NE(NULL, c);
	EXPECT_STREQ("classify", c->name);
	c = bf_nearest_cmd("sus");		/* a unique prefix */
	ASSERT_NE(NULL, c);
	EXPECT_STREQ("sustain", c->name);
	EXPECT_EQ(NULL, bf_nearest_cmd("frobnicate"));
	EXPECT_EQ(NULL, bf_nearest_cmd("s"));	/* several start so */
}

TEST_HARNESS_MAIN
