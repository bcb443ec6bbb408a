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

/* A report is completed until told otherwise; the status keeps a copy of
 * its reason; names parse back; runs not run are kept in order. */
static void
test_status(void)
{
	struct rdx_report *r = sample_report();
	enum rdx_report_status s = RDX_REPORT_STATUS_FAILED;
	const struct rdx_not_run *nr;
	struct rdx_not_run n;
	const char *why = "x";
	char reason[32];
	unsigned int nb = 7;
	double secs = 0;

	CU_ASSERT_EQUAL(rdx_report_status_get(r, &secs, &why), RDX_REPORT_STATUS_COMPLETED);
	CU_ASSERT(secs < 0);
	CU_ASSERT_PTR_NULL(why);
	CU_ASSERT_PTR_NULL(rdx_report_not_run(r, &nb));
	CU_ASSERT_EQUAL(nb, 0);
	snprintf(reason, sizeof(reason), "peer gone");
	CU_ASSERT_EQUAL(rdx_report_status_set(r, RDX_REPORT_STATUS_FAILED, 1.5, reason), 0);
	reason[0] = '\0';       /* copied */
	CU_ASSERT_EQUAL(rdx_report_status_get(r, &secs, &why), RDX_REPORT_STATUS_FAILED);
	CU_ASSERT_DOUBLE_EQUAL(secs, 1.5, 1e-12);
	CU_ASSERT_STRING_EQUAL(why, "peer gone");
	CU_ASSERT_EQUAL(rdx_report_status_set(r, RDX_REPORT_STATUS_INTERRUPTED, NAN, NULL), 0);
	CU_ASSERT_EQUAL(rdx_report_status_get(r, &secs, &why), RDX_REPORT_STATUS_INTERRUPTED);
	CU_ASSERT(secs < 0);     /* not a number: unknown */
	CU_ASSERT_PTR_NULL(why);
	CU_ASSERT_EQUAL(rdx_report_status_set(r, (enum rdx_report_status)7, 0, NULL), -EINVAL);
	CU_ASSERT_EQUAL(rdx_report_status_set(NULL, RDX_REPORT_STATUS_FAILED, 0, NULL), -EINVAL);
	CU_ASSERT_STRING_EQUAL(rdx_report_status_name(RDX_REPORT_STATUS_COMPLETED), "completed");
	CU_ASSERT_STRING_EQUAL(rdx_report_status_name(RDX_REPORT_STATUS_INTERRUPTED), "interrupted");
	CU_ASSERT_STRING_EQUAL(rdx_report_status_name(RDX_REPORT_STATUS_FAILED), "failed");
	CU_ASSERT_PTR_NULL(rdx_report_status_name((enum rdx_report_status)7));
	CU_ASSERT_EQUAL(rdx_report_status_parse("interrupted", &s), 0);
	CU_ASSERT_EQUAL(s, RDX_REPORT_STATUS_INTERRUPTED);
	CU_ASSERT_EQUAL(rdx_report_status_parse("done", &s), -EINVAL);
	memset(&n, 0, sizeof(n));
	for (n.size = 1; n.size <= 1024; n.size *= 2)   /* 11, past the first allocation */
		CU_ASSERT_EQUAL(rdx_report_not_run_add(r, &n), 0);
	nr = rdx_report_not_run(r, &nb);
	CU_ASSERT_FATAL(nr != NULL);
	CU_ASSERT_EQUAL(nb, 11);
	CU_ASSERT_EQUAL(nr[0].size, 1);
	CU_ASSERT_EQUAL(nr[10].size, 1024);
	CU_ASSERT_EQUAL(rdx_report_not_run_add(r, NULL), -EINVAL);
	rdx_report_free(r);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "knobs and derived fields", test_knobs_and_derived },
		{ "latency labels", test_lat_labels },
		{ "buckets narrowed to [min, max]", test_buckets_narrowed },
		{ "status and runs not run", test_status },
		{ NULL, NULL },
	};

	return rdx_ut_run("rdx_report", cases, suite_init, suite_fini);
}
