/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx_report as JSON (lib/stats/rdx_report_json.c): round trip of every
 * field and knob, the reader's errors, the writer's failures.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_errno.h>

#include "rdx_ut.h"

#include "../../../lib/stats/rdx_report_json.c"
#include "rdx_report_ut.h"

static void
assert_same_double(double a, double b)
{
	CU_ASSERT((isnan(a) && isnan(b)) || a == b);
}

static void
assert_same_row(const struct rdx_result *a, const struct rdx_result *b)
{
	if (a == NULL || b == NULL) {
		CU_FAIL("missing row");
		return;
	}
	CU_ASSERT_STRING_EQUAL(a->test, b->test);
	CU_ASSERT_STRING_EQUAL(a->mode, b->mode);
	CU_ASSERT_STRING_EQUAL(a->name, b->name);
	CU_ASSERT_STRING_EQUAL(a->desc, b->desc);
	CU_ASSERT_STRING_EQUAL(a->lat_kind, b->lat_kind);
	CU_ASSERT_EQUAL(a->size, b->size);
	CU_ASSERT_EQUAL(a->lcore, b->lcore);
	CU_ASSERT_EQUAL(a->qps, b->qps);
	CU_ASSERT_EQUAL(a->ops, b->ops);
	CU_ASSERT_EQUAL(a->bytes, b->bytes);
	assert_same_double(a->seconds, b->seconds);
	assert_same_double(a->mops, b->mops);
	assert_same_double(a->mbytes_per_s, b->mbytes_per_s);
	assert_same_double(a->gbits_per_s, b->gbits_per_s);
	assert_same_double(a->busy_pct, b->busy_pct);
	CU_ASSERT_EQUAL(a->short_run, b->short_run);
	CU_ASSERT_EQUAL(a->cut_short, b->cut_short);
	CU_ASSERT_EQUAL(a->tx_depth, b->tx_depth);
	CU_ASSERT_EQUAL(a->has_cas, b->has_cas);
	CU_ASSERT_EQUAL(a->cas_ok, b->cas_ok);
	CU_ASSERT_EQUAL(a->cas_fail, b->cas_fail);
	CU_ASSERT_EQUAL(a->has_cpu_util, b->has_cpu_util);
	if (a->has_cpu_util && b->has_cpu_util)
		assert_same_double(a->cpu_util_pct, b->cpu_util_pct);
	CU_ASSERT_EQUAL(a->has_rank, b->has_rank);
	CU_ASSERT_EQUAL(a->rank, b->rank);
	CU_ASSERT_STRING_EQUAL(a->host, b->host);
	CU_ASSERT_EQUAL(a->has_lat, b->has_lat);
	if (a->has_lat && b->has_lat) {
		CU_ASSERT_EQUAL(a->lat.count, b->lat.count);
		assert_same_double(a->lat.min, b->lat.min);
		assert_same_double(a->lat.p50, b->lat.p50);
		assert_same_double(a->lat.p90, b->lat.p90);
		assert_same_double(a->lat.p99, b->lat.p99);
		assert_same_double(a->lat.p999, b->lat.p999);
		assert_same_double(a->lat.p9999, b->lat.p9999);
		assert_same_double(a->lat.max, b->lat.max);
		assert_same_double(a->lat.mean, b->lat.mean);
		assert_same_double(a->lat.stdev, b->lat.stdev);
	}
	CU_ASSERT_EQUAL(a->has_perf, b->has_perf);
	if (a->has_perf && b->has_perf) {
		CU_ASSERT_EQUAL(a->perf.source, b->perf.source);
		assert_same_double(a->perf.cycles, b->perf.cycles);
		assert_same_double(a->perf.instructions, b->perf.instructions);
		assert_same_double(a->perf.cache_misses, b->perf.cache_misses);
		assert_same_double(a->perf.branch_misses, b->perf.branch_misses);
		assert_same_double(a->perf.task_clock_ns, b->perf.task_clock_ns);
		assert_same_double(a->perf.ctx_switches, b->perf.ctx_switches);
		assert_same_double(a->perf.page_faults, b->perf.page_faults);
	}
}

static void
test_json_round_trip(void)
{
	struct rdx_report *r = sample_report(), *back;
	struct rdx_result x;
	char path[128];
	unsigned int i;

	/* a NaN figure reads back as NaN (written as null) */
	x = *rdx_report_get(r, 2);
	x.busy_pct = NAN;
	CU_ASSERT_EQUAL(rdx_report_add(r, &x), 0);
	/* every perf source name reads back */
	x = *rdx_report_get(r, 0);
	x.perf.source = RDX_PERF_SRC_HW;
	x.perf.instructions = 1234.5;
	CU_ASSERT_EQUAL(rdx_report_add(r, &x), 0);
	x.perf.source = RDX_PERF_SRC_NONE;
	CU_ASSERT_EQUAL(rdx_report_add(r, &x), 0);
	/* rows of an MPI run: rank and host (the total's rank is -1) */
	x.has_rank = true;
	x.rank = 3;
	snprintf(x.host, sizeof(x.host), "node-7");
	CU_ASSERT_EQUAL(rdx_report_add(r, &x), 0);
	x.rank = -1;
	CU_ASSERT_EQUAL(rdx_report_add(r, &x), 0);
	/* a CAS row's swaps and failures, --cpu_util's figure */
	x.has_cas = true;
	x.cas_ok = 12;
	x.cas_fail = 34;
	x.has_cpu_util = true;
	x.cpu_util_pct = 87.5;
	x.tx_depth = 16;
	CU_ASSERT_EQUAL(rdx_report_add(r, &x), 0);
	tmp_path(path, sizeof(path), "r.json");
	CU_ASSERT_EQUAL_FATAL(rdx_report_write_json(r, path), 0);
	back = rdx_report_read_json(path);
	CU_ASSERT_FATAL(back != NULL);
	CU_ASSERT_STRING_EQUAL(back->title, r->title);
	CU_ASSERT_EQUAL(back->nb_knobs, r->nb_knobs);
	for (i = 0; i < r->nb_knobs && i < back->nb_knobs; i++) {
		CU_ASSERT_STRING_EQUAL(back->knobs[i].name, r->knobs[i].name);   /* order kept */
		CU_ASSERT_STRING_EQUAL(back->knobs[i].value, r->knobs[i].value);
	}
	CU_ASSERT_EQUAL_FATAL(rdx_report_count(back), rdx_report_count(r));
	for (i = 0; i < rdx_report_count(r); i++)
		assert_same_row(rdx_report_get(r, i), rdx_report_get(back, i));
	rdx_report_free(back);
	rdx_report_free(r);
}

/* rdx_report_add_hist: the non-empty buckets, narrowed to min/max, in ns,
 * summing to the count; they survive a JSON round trip; the reader refuses
 * buckets that do not add up or go backwards. */
static void
test_json_buckets(void)
{
	struct rdx_report *r = rdx_report_create("b"), *back;
	const struct rdx_lat_bucket *b, *bb;
	struct rdx_hist *h = calloc(1, sizeof(*h));
	struct rdx_result x;
	unsigned int n, nb, i;
	uint64_t sum = 0;
	char path[128], err[256], buf[1024];
	static const char *const row =
		"{\"rdx_version\": \"0.1.0\", \"title\": \"t\", \"knobs\": {},"
		" \"results\": [{\"test\": \"write\", \"mode\": \"lat\", \"name\": \"\","
		" \"desc\": \"\", \"lat_kind\": \"rtt\", \"size\": 8, \"lcore\": -1,"
		" \"qps\": 1, \"ops\": 3, \"bytes\": 24, \"seconds\": 1,"
		" \"mops\": 0, \"mbytes_per_s\": 0, \"gbits_per_s\": 0,"
		" \"busy_pct\": 100, \"has_lat\": true, \"lat\": {\"count\": 3, \"min\": 1,"
		" \"p50\": 1, \"p90\": 1, \"p99\": 1, \"p999\": 1, \"p9999\": 1, \"max\": 1,"
		" \"mean\": 1, \"stdev\": 0, \"buckets\": %s},"
		" \"has_perf\": false, \"perf\": null}]}";

	CU_ASSERT_FATAL(r != NULL && h != NULL);
	rdx_hist_init(h);
	rdx_hist_record(h, 100);
	rdx_hist_record(h, 100);
	rdx_hist_record(h, 1000);       /* bucket [1000, 1004) narrowed to max + 1 */
	rdx_hist_record(h, 123456);
	memset(&x, 0, sizeof(x));
	snprintf(x.test, sizeof(x.test), "write");
	snprintf(x.mode, sizeof(x.mode), "lat");
	x.has_lat = true;
	rdx_hist_summarize(h, 2000000000, &x.lat);    /* 2 GHz: 0.5 ns a cycle */
	CU_ASSERT_EQUAL(rdx_report_add_hist(r, &x, h, 2000000000), 0);
	CU_ASSERT_EQUAL(rdx_report_add(r, &x), 0);    /* no buckets */
	b = rdx_report_lat_buckets(r, 0, &n);
	CU_ASSERT_FATAL(b != NULL);
	CU_ASSERT_EQUAL(n, 3);
	CU_ASSERT_PTR_NULL(rdx_report_lat_buckets(r, 1, &nb));
	CU_ASSERT_EQUAL(nb, 0);
	CU_ASSERT_PTR_NULL(rdx_report_lat_buckets(r, 2, &nb));
	CU_ASSERT_EQUAL(b[0].lo_ns, 50.0);
	CU_ASSERT_EQUAL(b[0].hi_ns, 50.5);
	CU_ASSERT_EQUAL(b[0].count, 2);
	CU_ASSERT_EQUAL(b[1].lo_ns, 500.0);
	CU_ASSERT(b[1].hi_ns > 500.0 && b[1].hi_ns <= 502.0);
	CU_ASSERT_EQUAL(b[2].hi_ns, 123457 * 0.5);     /* narrowed to max */
	CU_ASSERT(b[2].lo_ns <= 123456 * 0.5 && b[2].lo_ns >= 123456 * 0.5 * (1 - 1.0 / 128));
	for (i = 0; i < n; i++)
		sum += b[i].count;
	CU_ASSERT_EQUAL(sum, x.lat.count);

	tmp_path(path, sizeof(path), "b.json");
	CU_ASSERT_EQUAL_FATAL(rdx_report_write_json(r, path), 0);
	back = rdx_report_read_json_msg(path, err, sizeof(err));
	CU_ASSERT_FATAL(back != NULL);
	bb = rdx_report_lat_buckets(back, 0, &nb);
	CU_ASSERT_FATAL(bb != NULL);
	CU_ASSERT_EQUAL(nb, n);
	for (i = 0; i < n && i < nb; i++) {
		CU_ASSERT_EQUAL(bb[i].lo_ns, b[i].lo_ns);
		CU_ASSERT_EQUAL(bb[i].hi_ns, b[i].hi_ns);
		CU_ASSERT_EQUAL(bb[i].count, b[i].count);
	}
	CU_ASSERT_PTR_NULL(rdx_report_lat_buckets(back, 1, &nb));
	rdx_report_free(back);
	rdx_report_free(r);
	free(h);

	snprintf(buf, sizeof(buf), row, "[[1, 2, 1], [2, 3, 2]]");
	write_file(path, buf);
	back = rdx_report_read_json_msg(path, err, sizeof(err));
	CU_ASSERT(back != NULL);
	rdx_report_free(back);
	/* good buckets, then a bad field after them: refused, nothing leaks
	 * (the ASan build checks; fuzz_report_json found it) */
	snprintf(buf, sizeof(buf), row, "[[1, 2, 1], [2, 3, 2]]");
	memcpy(strstr(buf, "\"has_perf\": false, \"perf\": null"),
	       "\"has_perf\": true,  \"perf\": null", 31);
	write_file(path, buf);
	CU_ASSERT_PTR_NULL(rdx_report_read_json_msg(path, err, sizeof(err)));
	CU_ASSERT(strstr(err, "results[0].perf") != NULL);
	{
	static const char *const bad[] = {
		"[[1, 2, 1], [2, 3, 1]]",          /* sums to 2, not 3 */
		"[[2, 3, 1], [1, 2, 2]]",          /* backwards */
		"[[1, 2, 1], [2, 3]]",             /* short entry */
		"[[1, 2, 1], [2, 3, -2], [3, 4, 4]]",
		"[[1, 0, 3]]",                     /* hi < lo */
		"{}",
	};
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(buf, sizeof(buf), row, bad[i]);
		write_file(path, buf);
		CU_ASSERT_PTR_NULL(rdx_report_read_json_msg(path, err, sizeof(err)));
		CU_ASSERT(strstr(err, "results[0].lat.buckets") != NULL);
	}
	}
}

static void
test_json_bad_input(void)
{
	char path[128], err[256];
	struct rdx_report *r;

	tmp_path(path, sizeof(path), "missing.json");
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(rdx_report_read_json_msg(path, err, sizeof(err)));
	CU_ASSERT_EQUAL(rte_errno, ENOENT);
	CU_ASSERT(strstr(err, "missing.json") != NULL);

	tmp_path(path, sizeof(path), "bad.json");
	write_file(path, "{\"rdx_version\": \"0.1.0\", \"title\": \"t\", \"knobs\": {},");
	CU_ASSERT_PTR_NULL(rdx_report_read_json(path));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);

	write_file(path, "[1, 2]");
	CU_ASSERT_PTR_NULL(rdx_report_read_json(path));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);

	write_file(path, "{\"rdx_version\": \"0.1.0\", \"title\": \"t\", \"knobs\": {},"
		   " \"results\": [{\"test\": \"echo\"}]}");
	CU_ASSERT_PTR_NULL(rdx_report_read_json_msg(path, err, sizeof(err)));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	CU_ASSERT(strstr(err, "results[0].mode") != NULL);

	write_file(path, "{\"rdx_version\": \"0.1.0\", \"title\": \"t\", \"knobs\": {\"a\": 3},"
		   " \"results\": []}");
	CU_ASSERT_PTR_NULL(rdx_report_read_json_msg(path, err, sizeof(err)));
	CU_ASSERT(strstr(err, "knobs.a") != NULL);

	write_file(path, "{\"rdx_version\": \"0.1.0\", \"title\": \"t\", \"knobs\": {},"
		   " \"results\": [{\"test\": \"echo\", \"mode\": \"lat\", \"name\": \"\","
		   " \"desc\": \"\", \"lat_kind\": \"\", \"size\": 8, \"lcore\": -2, \"qps\": 1}]}");
	CU_ASSERT_PTR_NULL(rdx_report_read_json_msg(path, err, sizeof(err)));
	CU_ASSERT(strstr(err, "results[0].lcore: out of range") != NULL);

	/* short_run is optional (older reports): derived from seconds and ops;
	 * present, it must be a boolean */
	{
		static const char *const row =
			"{\"rdx_version\": \"0.1.0\", \"title\": \"t\", \"knobs\": {},"
			" \"results\": [{\"test\": \"write\", \"mode\": \"bw\", \"name\": \"\","
			" \"desc\": \"\", \"lat_kind\": \"completion\", \"size\": 8, \"lcore\": -1,"
			" \"qps\": 1, \"ops\": 2000, \"bytes\": 16000, \"seconds\": 0.001,"
			" \"mops\": 2, \"mbytes_per_s\": 16, \"gbits_per_s\": 0.128,"
			" \"busy_pct\": 100, \"has_lat\": false, \"lat\": null,"
			" \"has_perf\": false, \"perf\": null%s}]}";
		char buf[1024];

		snprintf(buf, sizeof(buf), row, "");
		write_file(path, buf);
		r = rdx_report_read_json_msg(path, err, sizeof(err));
		CU_ASSERT_FATAL(r != NULL);
		CU_ASSERT(rdx_report_get(r, 0)->short_run);    /* 1 ms */
		rdx_report_free(r);
		snprintf(buf, sizeof(buf), row, ", \"short_run\": false");
		write_file(path, buf);
		r = rdx_report_read_json_msg(path, err, sizeof(err));
		CU_ASSERT_FATAL(r != NULL);
		CU_ASSERT(!rdx_report_get(r, 0)->short_run);   /* as written */
		rdx_report_free(r);
		snprintf(buf, sizeof(buf), row, ", \"short_run\": 1");
		write_file(path, buf);
		CU_ASSERT_PTR_NULL(rdx_report_read_json_msg(path, err, sizeof(err)));
		CU_ASSERT(strstr(err, "results[0].short_run") != NULL);
	}

	write_file(path, "{\"rdx_version\": \"0.1.0\", \"title\": \"t\", \"knobs\": {},"
		   " \"results\": []}");
	r = rdx_report_read_json(path);
	CU_ASSERT_FATAL(r != NULL);
	CU_ASSERT_EQUAL(rdx_report_count(r), 0);
	/* writers report what fails */
	CU_ASSERT_EQUAL(rdx_report_write_json(r, "/nonexistent-dir/r.json"), -ENOENT);
	/* a full disk shows at the write, flush or close: its errno, not -EIO */
	CU_ASSERT_EQUAL(rdx_report_write_json(r, "/dev/full"), -ENOSPC);
	CU_ASSERT_EQUAL(rdx_report_write_json(NULL, path), -EINVAL);
	rdx_report_free(r);
}

/* The status, its reason, the seconds measured, the runs not run and the
 * cut row read back; a report without them reads as completed; a bad
 * status is refused naming the field. */
static void
test_json_status(void)
{
	static const char *const doc =
		"{\"rdx_version\": \"0.1.0\", \"title\": \"t\", \"knobs\": {},"
		" \"results\": []%s}";
	struct rdx_report *r = sample_report(), *back;
	const struct rdx_not_run *nr;
	char path[128], buf[512], err[256];
	const char *why;
	unsigned int nb, i;
	double secs;

	sample_interrupted(r);
	tmp_path(path, sizeof(path), "s.json");
	CU_ASSERT_EQUAL_FATAL(rdx_report_write_json(r, path), 0);
	back = rdx_report_read_json_msg(path, err, sizeof(err));
	if (back == NULL)
		printf("\n  %s\n", err);
	CU_ASSERT_FATAL(back != NULL);
	CU_ASSERT_EQUAL(rdx_report_status_get(back, &secs, &why), RDX_REPORT_STATUS_INTERRUPTED);
	CU_ASSERT_DOUBLE_EQUAL(secs, 3.7, 1e-12);
	CU_ASSERT_FATAL(why != NULL);
	CU_ASSERT_STRING_EQUAL(why, "SIGINT/SIGTERM");
	nr = rdx_report_not_run(back, &nb);
	CU_ASSERT_EQUAL_FATAL(nb, 1);
	CU_ASSERT_STRING_EQUAL(nr[0].test, "write");
	CU_ASSERT_STRING_EQUAL(nr[0].mode, "bw");
	CU_ASSERT_EQUAL(nr[0].size, 1048576);
	CU_ASSERT_EQUAL(nr[0].qps, 2);
	CU_ASSERT_EQUAL_FATAL(rdx_report_count(back), rdx_report_count(r));
	for (i = 0; i < rdx_report_count(r); i++)
		assert_same_row(rdx_report_get(r, i), rdx_report_get(back, i));
	CU_ASSERT(rdx_report_get(back, 2)->cut_short);
	rdx_report_free(back);
	rdx_report_free(r);

	snprintf(buf, sizeof(buf), doc, "");
	write_file(path, buf);
	back = rdx_report_read_json(path);
	CU_ASSERT_FATAL(back != NULL);
	CU_ASSERT_EQUAL(rdx_report_status_get(back, NULL, NULL), RDX_REPORT_STATUS_COMPLETED);
	rdx_report_free(back);
	snprintf(buf, sizeof(buf), doc, ", \"status\": \"done\"");
	write_file(path, buf);
	CU_ASSERT_PTR_NULL(rdx_report_read_json_msg(path, err, sizeof(err)));
	CU_ASSERT(strstr(err, "status: not one of completed, interrupted, failed") != NULL);
	snprintf(buf, sizeof(buf), doc, ", \"status\": \"failed\", \"measured_s\": -1");
	write_file(path, buf);
	CU_ASSERT_PTR_NULL(rdx_report_read_json_msg(path, err, sizeof(err)));
	CU_ASSERT(strstr(err, "measured_s") != NULL);
	snprintf(buf, sizeof(buf), doc, ", \"not_run\": [{\"test\": \"write\", \"mode\": \"bw\"}]");
	write_file(path, buf);
	CU_ASSERT_PTR_NULL(rdx_report_read_json_msg(path, err, sizeof(err)));
	CU_ASSERT(strstr(err, "not_run[0].size") != NULL);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "JSON round trip", test_json_round_trip },
		{ "JSON bad input", test_json_bad_input },
		{ "JSON latency buckets", test_json_buckets },
		{ "JSON status and runs not run", test_json_status },
		{ NULL, NULL },
	};

	return rdx_ut_run("rdx_report_json", cases, suite_init, suite_fini);
}
