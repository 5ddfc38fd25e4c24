// SPDX-License-Identifier: GPL-2.0
/*
 * Confusion matrices of the classifier on the adversarial sets
 * (tests/advgen.c) and on curve files with a label.
 *
 *   tool_eval [tune|held]        one set, per pattern and as a matrix
 *   tool_eval --files LABEL=FILE...   real traces (the corpus)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "advgen.h"
#include "classify.h"

static void matrix(unsigned int m[BF_CLASS_COUNT][BF_CLASS_COUNT])
{
	unsigned int t, g, ok = 0, all = 0;

	printf("%-20s", "truth \\ got");
	for (g = 0; g < BF_CLASS_COUNT; g++)
		printf(" %18s", bf_class_name(g));
	printf("\n");
	for (t = 0; t < BF_CLASS_COUNT; t++) {
		printf("%-20s", bf_class_name(t));
		for (g = 0; g < BF_CLASS_COUNT; g++) {
			printf(" %18u", m[t][g]);
			all += m[t][g];
			ok += t == g ? m[t][g] : 0;
		}
		printf("\n");
	}
	printf("accuracy %u/%u = %.1f %%\n", ok, all, all ? 100.0 * ok / all : 0);
}

static int eval_set(bool held)
{
	unsigned int m[BF_CLASS_COUNT][BF_CLASS_COUNT] = { { 0 } };
	unsigned int kok[BF_ADV_NKINDS] = { 0 }, kall[BF_ADV_NKINDS] = { 0 };
	size_t n = bf_adv_set(NULL, 0, held), i;
	struct bf_adv_params *p = calloc(n, sizeof(*p));

	if (!p)
		return 1;
	bf_adv_set(p, n, held);
	for (i = 0; i < n; i++) {
		struct bf_series ser = { 0 };
		struct bf_adv_truth tr;
		struct bf_report r;
		enum bf_class got = BF_CLASS_UNCLEAR;

		if (bf_adv_gen(&p[i], &ser, &tr))
			return 1;
		if (!bf_classify(ser.s, ser.n, &r)) {
			got = r.class;
			bf_report_free(&r);
		}
		m[tr.class][got]++;
		kall[p[i].kind]++;
		kok[p[i].kind] += got == tr.class;
		if (got != tr.class && getenv("EVAL_VERBOSE"))
			printf("miss %-24s noise %.2f dt %.2f T %.0f seed %llu: %s\n",
			       bf_adv_kind_name(p[i].kind), p[i].noise,
			       p[i].dt, p[i].T,
			       (unsigned long long)p[i].seed, bf_class_name(got));
		bf_series_free(&ser);
	}
	for (i = 0; i < BF_ADV_NKINDS; i++)
		printf("%-26s %3u/%3u\n", bf_adv_kind_name(i), kok[i], kall[i]);
	matrix(m);
	free(p);
	return 0;
}

static int eval_files(int argc, char **argv)
{
	unsigned int m[BF_CLASS_COUNT][BF_CLASS_COUNT] = { { 0 } };
	int i;

	for (i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '='), err[256];
		struct bf_series ser = { 0 };
		struct bf_report r;
		enum bf_class want, got = BF_CLASS_UNCLEAR;

		if (!eq)
			return 2;
		*eq = 0;
		for (want = 0; want < BF_CLASS_COUNT; want++)
			if (!strcmp(argv[i], bf_class_name(want)))
				break;
		if (want == BF_CLASS_COUNT ||
		    bf_series_load(eq + 1, &ser, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", eq + 1, err);
			return 1;
		}
		if (!bf_classify(ser.s, ser.n, &r)) {
			got = r.class;
			bf_report_free(&r);
		}
		printf("%-40s %-18s %s\n", eq + 1, argv[i], bf_class_name(got));
		m[want][got]++;
		bf_series_free(&ser);
	}
	matrix(m);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--files"))
		return eval_files(argc - 2, argv + 2);
	return eval_set(argc > 1 && !strcmp(argv[1], "held"));
}
