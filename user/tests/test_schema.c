// SPDX-License-Identifier: GPL-2.0
/*
 * Every JSON document starts with a numeric "schema": the writer's helper,
 * and the outputs a host without the module can produce (version,
 * classify, predict, compare, stability --from-traces).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#include "classify.h"
#include "cmdtrace.h"
#include "json.h"

TEST(doc_open_writes_schema_first)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct bf_json j;
	char want[32];

	ASSERT_NE(NULL, f);
	bf_json_doc_open(&j, f);
	bf_json_u64(&j, "n", 1);
	bf_json_obj_close(&j);
	fclose(f);
	snprintf(want, sizeof(want), "{\"schema\":%d,\"n\":1}\n",
		 BF_SCHEMA_VERSION);
	EXPECT_STREQ(want, buf);
	free(buf);
}

/* The output of "blkfloor ARGS" starts {"schema":<number> */
static void starts_with_schema(struct __test_metadata *_metadata,
			       const char *cmd, const char *const *args)
{
	char out[64], want[32], *o;

	snprintf(out, sizeof(out), "/tmp/bf-schema-%d.json", getpid());
	run_cmd(cmd, out, args);
	o = slurp(out);
	unlink(out);
	snprintf(want, sizeof(want), "{\"schema\":%d,", BF_SCHEMA_VERSION);
	EXPECT_EQ(0, strncmp(o, want, strlen(want))) TH_LOG("%s: %.200s", cmd, o);
}

TEST(host_outputs)
{
	char a[64], b[64];
	struct spec s = base;
	const char *version[] = { "--json", NULL };
	const char *classify[] = { a, "--json", NULL };
	const char *predict[] = { a, "--size", "100GB", "--json", NULL };
	const char *compare[] = { a, b, "--json", NULL };
	const char *stab[] = { "--from-traces", b, a, "--json", NULL };

	snprintf(a, sizeof(a), "/tmp/bf-schema-a-%d.trace", getpid());
	snprintf(b, sizeof(b), "/tmp/bf-schema-b-%d.trace", getpid());
	write_trace(a, &s);
	s.seed = 2;
	s.op = "read";
	write_trace(b, &s);
	starts_with_schema(_metadata, "version", version);
	starts_with_schema(_metadata, "classify", classify);
	starts_with_schema(_metadata, "predict", predict);
	starts_with_schema(_metadata, "stability", stab);
	s.op = "write";
	write_trace(b, &s);
	starts_with_schema(_metadata, "compare", compare);
	unlink(a);
	unlink(b);
}

/*
 * classify --json has one shape whatever the number of files: one object
 * per file and per line, each with its "file"; a file that cannot be read
 * is an object with its "error".
 */
TEST(classify_json_one_shape)
{
	char a[64], b[64], out[64], want[96], *one, *two, *nl;
	const char *args1[] = { a, "--json", NULL };
	const char *args2[] = { a, b, "/nonexistent.trace", "--json", NULL };
	struct spec s = base;

	snprintf(a, sizeof(a), "/tmp/bf-shape-a-%d.trace", getpid());
	snprintf(b, sizeof(b), "/tmp/bf-shape-b-%d.trace", getpid());
	snprintf(out, sizeof(out), "/tmp/bf-shape-%d.json", getpid());
	write_trace(a, &s);
	s.seed = 2;
	write_trace(b, &s);
	run_cmd("classify", out, args1);
	one = strdup(slurp(out));	/* slurp's buffer is reused */
	run_cmd("classify", out, args2);
	two = strdup(slurp(out));
	unlink(out);
	unlink(a);
	unlink(b);
	ASSERT_NE(NULL, one);
	ASSERT_NE(NULL, two);

	snprintf(want, sizeof(want), "{\"schema\":%d,\"file\":\"%s\",",
		 BF_SCHEMA_VERSION, a);
	EXPECT_EQ(0, strncmp(one, want, strlen(want))) TH_LOG("%.200s", one);
	nl = strchr(one, '\n');
	ASSERT_NE(NULL, nl);
	EXPECT_EQ('\0', nl[1]) TH_LOG("one file, one line: [%s]", nl + 1);
	/* the first of the three lines is the one file's line */
	EXPECT_EQ(0, strncmp(two, one, strlen(one))) TH_LOG("%.300s", two);
	nl = strchr(two + strlen(one), '\n');
	ASSERT_NE(NULL, nl);
	snprintf(want, sizeof(want), "{\"schema\":%d,\"file\":\"%s\",",
		 BF_SCHEMA_VERSION, b);
	EXPECT_EQ(0, strncmp(two + strlen(one), want, strlen(want)));
	snprintf(want, sizeof(want),
		 "{\"schema\":%d,\"file\":\"/nonexistent.trace\",\"error\":",
		 BF_SCHEMA_VERSION);
	EXPECT_EQ(0, strncmp(nl + 1, want, strlen(want))) TH_LOG("%s", nl + 1);
	free(one);
	free(two);
}

TEST_HARNESS_MAIN
