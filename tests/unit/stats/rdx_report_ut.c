/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx_report, the model (lib/stats/rdx_report.c): knobs, derived fields,
 * bad arguments, latency labels. The output formats have their own
 * binaries (rdx_report_text_ut, rdx_report_json_ut, rdx_report_csv_ut).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_errno.h>

#include "rdx_ut.h"

#include "../../../lib/stats/rdx_report.c"
#include "rdx_report_ut.h"

static void
test_knobs_and_derived(void)
{
	struct rdx_report *r = sample_report();
	const struct rdx_result *x;

	CU_ASSERT_STRING_EQUAL(rdx_report_knob_get(r, "iters"), "5000");
	CU_ASSERT_STRING_EQUAL(rdx_report_knob_get(r, "device_kind"), "software device");
	CU_ASSERT_PTR_NULL(rdx_report_knob_get(r, "nope"));
	CU_ASSERT_EQUAL(r->nb_knobs, 4);
	CU_ASSERT_EQUAL(rdx_report_count(r), 3);
	x = rdx_report_get(r, 0);
	CU_ASSERT_FATAL(x != NULL);
	CU_ASSERT(fabs(x->mops - 0.2) < 1e-12);               /* 5000 ops / 25 ms */
	CU_ASSERT(fabs(x->mbytes_per_s - 20.0) < 1e-9);
	CU_ASSERT(x->short_run);                              /* 25 ms < RDX_REPORT_SHORT_S */
	x = rdx_report_get(r, 2);
	CU_ASSERT(!x->short_run);                             /* 2 s, 100000 ops */
	CU_ASSERT(fabs(x->mbytes_per_s - 3276.8) < 1e-9);
	CU_ASSERT(fabs(x->gbits_per_s - 26.2144) < 1e-9);
	CU_ASSERT_PTR_NULL(rdx_report_get(r, 3));
	CU_ASSERT_EQUAL(rdx_report_knob_set(NULL, "a", "b"), -EINVAL);
	CU_ASSERT_EQUAL(rdx_report_add(r, NULL), -EINVAL);
	rdx_report_free(r);
}

static void
test_lat_labels(void)
{
	/* latency kinds in words */
	CU_ASSERT_STRING_EQUAL(rdx_report_lat_label("half-rtt"), "half RTT");
	CU_ASSERT_STRING_EQUAL(rdx_report_lat_label("rtt"), "RTT");
	CU_ASSERT_STRING_EQUAL(rdx_report_lat_label("completion"), "post to completion");
	CU_ASSERT_STRING_EQUAL(rdx_report_lat_label("loop-rtt/2 (one lcore)"), "half of a one-lcore loop");
	CU_ASSERT_STRING_EQUAL(rdx_report_lat_label("rtt (one lcore)"), "RTT, one lcore");
	CU_ASSERT_STRING_EQUAL(rdx_report_lat_label(""), "");
}

/* The buckets a report lists, narrowed to [min, max]: the overflow one
 * (values of 2^RDX_HIST_MAX_BITS cycles and more) too, so a run whose
 * every value overflowed does not claim values down to 2^40 */
static void
test_buckets_narrowed(void)
{
	static struct rdx_hist h;
	struct rdx_lat_bucket *b;
	const uint64_t big = (UINT64_C(1) << RDX_HIST_MAX_BITS) * 3;
	unsigned int n;

	rdx_hist_init(&h);
	rdx_hist_record(&h, big);
	rdx_hist_record(&h, big + 1000);
	CU_ASSERT_FATAL(rdx_report_buckets_of(&h, 0, &b, &n) == 0);
	CU_ASSERT_FATAL(n == 1);
	CU_ASSERT_EQUAL(b[0].count, 2);
	CU_ASSERT_DOUBLE_EQUAL(b[0].lo_ns, (double)big, 0.5);          /* was 2^40 */
	CU_ASSERT_DOUBLE_EQUAL(b[0].hi_ns, (double)(big + 1001), 0.5);
	free(b);
	/* an ordinary bucket: [min, max + 1) within it */
	rdx_hist_init(&h);
	rdx_hist_record(&h, 1000);
	CU_ASSERT_FATAL(rdx_report_buckets_of(&h, 0, &b, &n) == 0);
	CU_ASSERT_FATAL(n == 1);
	CU_ASSERT_DOUBLE_EQUAL(b[0].lo_ns, 1000.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(b[0].hi_ns, 1001.0, 1e-9);
	free(b);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "knobs and derived fields", test_knobs_and_derived },
		{ "latency labels", test_lat_labels },
		{ "buckets narrowed to [min, max]", test_buckets_narrowed },
		{ NULL, NULL },
	};

	return rdx_ut_run("rdx_report", cases, suite_init, suite_fini);
}
