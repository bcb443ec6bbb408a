/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx-perf's sweep ranges (apps/rdx-perf/opts_sweep.c, included, with the
 * one-line refusal of opts_files.c): A-B, A-B*F, the bounds, and what is
 * refused (signs, spaces, empty parts, B < A, F < 2, values past max).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rdx_ut.h"

#include "../../../apps/rdx-perf/opts_files.c"
#include "../../../apps/rdx-perf/opts_sweep.c"

static void
test_ranges(void)
{
	uint32_t lo = 0, hi = 0, f = 99;

	CU_ASSERT_EQUAL(perf_parse_sweep("--x", "1-24", 64, &lo, &hi, &f), 0);
	CU_ASSERT(lo == 1 && hi == 24 && f == 0);
	CU_ASSERT_EQUAL(perf_parse_sweep("--x", "1-128*2", 65536, &lo, &hi, &f), 0);
	CU_ASSERT(lo == 1 && hi == 128 && f == 2);
	CU_ASSERT_EQUAL(perf_parse_sweep("--x", "4-4", 4, &lo, &hi, &f), 0);
	CU_ASSERT(lo == 4 && hi == 4 && f == 0);
}

static void
test_refused(void)
{
	static const char *const bad_values[] = {
		"", "1", "1-", "-4", "0-4", "4-1", "1-4*1", "1-4*", "1-4*2x", " 1-4", "1 -4",
		"+1-4", "1-65", "1-99999999999999999999", "1-4*1025", "a-b",
	};
	uint32_t lo = 7, hi = 7, f = 7;
	unsigned int i;

	for (i = 0; i < sizeof(bad_values) / sizeof(bad_values[0]); i++)
		CU_ASSERT_EQUAL(perf_parse_sweep("--x", bad_values[i], 64, &lo, &hi, &f), -EINVAL);
	CU_ASSERT(lo == 7 && hi == 7 && f == 7);   /* untouched on a refusal */
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "ranges", test_ranges },
		{ "refused", test_refused },
		{ NULL, NULL },
	};

	return rdx_ut_run("opts_sweep", cases, NULL, NULL);
}
