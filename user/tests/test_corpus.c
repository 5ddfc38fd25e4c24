// SPDX-License-Identifier: GPL-2.0
/*
 * The real-drive corpus (tests/corpus/, fio bandwidth logs from a public
 * repository, labelled by hand, never tuned on): no fewer right than
 * recorded in Documentation/classification.rst, and the invariants every
 * report keeps. And the rig's curves (tests/corpus/rig/): what the guest
 * tests' drive models gave in past make check runs, each labelled with its
 * model and with how long the host kept the guest waiting.
 */
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#include "classify.h"
#include "workload.h"
#include "sustain.h"

/* Recorded in classification.rst: 9 of 13 right. */
#define CORPUS_RIGHT	9

/*
 * A rig curve measured while QEMU's threads waited less than this share of
 * the time for a CPU is one the guest tests judge (selftests/lib.sh,
 * host_starved, BLKFLOOR_STARVED): each must be right.
 */
#define RIG_STARVED	0.25

/*
 * tests/corpus next to this program, into @dir; its labels.csv (@sub
 * "rig/": the rig's, "gc/": the garbage collection logs') opened, or NULL with the path tried in @path.
 */
static FILE *corpus_labels(char *dir, size_t len, char *path, size_t plen,
			   const char *sub)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	exe[n > 0 ? n : 0] = '\0';
	snprintf(dir, len, "%s/corpus", dirname(exe));
	snprintf(path, plen, "%s/%slabels.csv", dir, sub);
	return fopen(path, "r");
}

static const struct bf_workload randwrite = {
	.known = true, .write = true, .random = true,
};

TEST(real_drives)
{
	char dir[PATH_MAX + 16], path[PATH_MAX + 64], line[256];
	unsigned int right = 0, all = 0;
	FILE *f;

	f = corpus_labels(dir, sizeof(dir), path, sizeof(path), "");
	ASSERT_NE(NULL, f) TH_LOG("%s", path);
	while (fgets(line, sizeof(line), f)) {
		char *file = strtok(line, ","), *label = strtok(NULL, ",\n");
		struct bf_load ld = { .format = BF_FORMAT_FIO };
		struct bf_series ser = { 0 };
		struct bf_report r;
		char err[256];

		if (!file || !label || file[0] == '#')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, file);
		ASSERT_EQ(0, bf_series_load_as(path, &ld, &ser, err, sizeof(err)))
			TH_LOG("%s", err);
		ASSERT_EQ(0, bf_classify(ser.s, ser.n, &r));
		all++;
		right += !strcmp(label, bf_class_name(r.class));
		TH_LOG("%-42s %-18s %-18s %.2f %s", file, label,
		       bf_class_name(r.class), r.confidence, r.reason);
		EXPECT_LE(r.floor_mbps, r.mean_mbps * (1 + 1e-9));
		/* random writes on drives that hold their rate (or climb
		 * back): the workload known changes nothing */
		if (strstr(file, "randwrite")) {
			enum bf_class shape = r.class;

			bf_report_workload(&r, ser.s, ser.n, &randwrite);
			EXPECT_EQ(shape, r.class) TH_LOG("%s with --workload randwrite: %s",
							 file, r.reason);
		}
		bf_report_free(&r);
		bf_series_free(&ser);
	}
	fclose(f);
	TH_LOG("%u/%u right (recorded %d)", right, all, CORPUS_RIGHT);
	EXPECT_EQ(13U, all);
	EXPECT_GE(right, (unsigned int)CORPUS_RIGHT);
}

/*
 * Every rig curve the guest tests would judge is classified as its model
 * says; a starved one (the guest tests measure it again) only counts.
 */
TEST(rig_curves)
{
	char dir[PATH_MAX + 16], path[PATH_MAX + 64], line[256];
	unsigned int right = 0, all = 0, sright = 0, sall = 0;
	FILE *f;

	f = corpus_labels(dir, sizeof(dir), path, sizeof(path), "rig/");
	ASSERT_NE(NULL, f) TH_LOG("%s", path);
	while (fgets(line, sizeof(line), f)) {
		char *file = strtok(line, ","), *label = strtok(NULL, ",");
		char *wait = strtok(NULL, ",\n");
		struct bf_load ld = { .format = BF_FORMAT_CSV };
		struct bf_series ser = { 0 };
		struct bf_report r;
		char err[256];
		bool ok, starved;

		if (!file || !label || !wait || file[0] == '#')
			continue;
		starved = strtod(wait, NULL) >= RIG_STARVED;
		snprintf(path, sizeof(path), "%s/rig/%s", dir, file);
		ASSERT_EQ(0, bf_series_load_as(path, &ld, &ser, err, sizeof(err)))
			TH_LOG("%s", err);
		ASSERT_EQ(0, bf_classify(ser.s, ser.n, &r));
		ok = !strcmp(label, bf_class_name(r.class));
		if (starved) {
			sall++;
			sright += ok;
		} else {
			all++;
			right += ok;
			EXPECT_TRUE(ok) TH_LOG("%s (host wait %s): %s, expected %s: %s",
					       file, wait, bf_class_name(r.class),
					       label, r.reason);
		}
		EXPECT_LE(r.floor_mbps, r.mean_mbps * (1 + 1e-9));
		bf_report_free(&r);
		bf_series_free(&ser);
	}
	fclose(f);
	TH_LOG("judged: %u/%u right; starved (measured again in the rig): %u/%u right",
	       right, all, sright, sall);
	EXPECT_GE(all, 20U);
}

/*
 * Garbage collection as a real drive showed it (tests/corpus/gc/): random
 * writes that a conventional NVMe drive sustained until it collapsed and
 * slowly came back, and the same load on a zoned namespace, which held.
 * Each is its label or unclear, with the workload unknown (the shape) and
 * known (random writes).
 */
TEST(gc_transitions)
{
	char dir[PATH_MAX + 16], path[PATH_MAX + 64], line[256];
	unsigned int all = 0;
	FILE *f;

	f = corpus_labels(dir, sizeof(dir), path, sizeof(path), "gc/");
	ASSERT_NE(NULL, f) TH_LOG("%s", path);
	while (fgets(line, sizeof(line), f)) {
		char *file = strtok(line, ","), *label = strtok(NULL, ",\n");
		struct bf_load ld = { .format = BF_FORMAT_FIO };
		struct bf_series ser = { 0 };
		struct bf_report r;
		char err[256];
		int known;

		if (!file || !label || file[0] == '#')
			continue;
		snprintf(path, sizeof(path), "%s/gc/%s", dir, file);
		ASSERT_EQ(0, bf_series_load_as(path, &ld, &ser, err, sizeof(err)))
			TH_LOG("%s", err);
		for (known = 0; known < 2; known++) {
			const char *got;

			ASSERT_EQ(0, bf_classify(ser.s, ser.n, &r));
			if (known)
				bf_report_workload(&r, ser.s, ser.n, &randwrite);
			got = bf_class_name(r.class);
			TH_LOG("%-40s %-10s %-15s %-18s %.2f %s", file,
			       known ? "randwrite" : "unknown", label, got,
			       r.confidence, r.reason);
			EXPECT_TRUE(!strcmp(label, got) || r.class == BF_CLASS_UNCLEAR)
				TH_LOG("%s: %s, labelled %s", file, got, label);
			bf_report_free(&r);
		}
		all++;
		bf_series_free(&ser);
	}
	fclose(f);
	EXPECT_EQ(3U, all);
}

/*
 * sustain's stop (--until floor) fed a real drive's log interval by
 * interval, as the CLI feeds it: on a drive the labels call steady
 * (certain), noise is no step, so no floor may be claimed and the write
 * goes on to the end. (Rounds shortened for every curve, to seven
 * intervals, stop on the 8x2 TB RAID 5 log's noise.)
 */
TEST(stop_on_real_drives)
{
	char dir[PATH_MAX + 16], path[PATH_MAX + 64], line[256];
	unsigned int all = 0;
	FILE *f;

	f = corpus_labels(dir, sizeof(dir), path, sizeof(path), "");
	ASSERT_NE(NULL, f) TH_LOG("%s", path);
	while (fgets(line, sizeof(line), f)) {
		char *file = strtok(line, ","), *label = strtok(NULL, ",");
		char *certain = strtok(NULL, ",\n");
		struct bf_load ld = { .format = BF_FORMAT_FIO };
		struct bf_series ser = { 0 };
		struct bf_sustain sus;
		char err[256], said[512];
		double prev = 0;
		size_t i;

		if (!file || !label || !certain || file[0] == '#' ||
		    strcmp(label, "steady") || strcmp(certain, "yes"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, file);
		ASSERT_EQ(0, bf_series_load_as(path, &ld, &ser, err, sizeof(err)))
			TH_LOG("%s", err);
		ASSERT_GT(ser.n, 10U);
		bf_sustain_init(&sus, BF_UNTIL_FLOOR, ser.s[ser.n / 2].dt,
				ser.s[ser.n - 1].bytes);
		for (i = 0; i < ser.n; i++) {
			if (bf_sustain_interval(&sus, ser.s[i].dt,
						ser.s[i].bytes - prev))
				break;
			prev = ser.s[i].bytes;
		}
		bf_sustain_said(&sus, ser.s[ser.n - 1].bytes, said, sizeof(said));
		EXPECT_EQ(ser.n, i) TH_LOG("%s: stopped at interval %zu of %zu: %s",
					   file, i, ser.n, said);
		all++;
		bf_series_free(&ser);
	}
	fclose(f);
	EXPECT_EQ(10U, all);
}

TEST_HARNESS_MAIN
