/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the rdx_report tests (one binary per source file of the
 * report: rdx_report_ut, rdx_report_text_ut, rdx_report_json_ut,
 * rdx_report_csv_ut): a temporary directory and a sample report. Include
 * after the .c under test.
 */
#ifndef RDX_REPORT_UT_H
#define RDX_REPORT_UT_H

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rdx_ut.h"
#include "rdx_report.h"

#define RDX_REPORT_UT_HELPER static __attribute__((unused))

static char tmpdir[] = "/tmp/rdx_report_ut.XXXXXX";

RDX_REPORT_UT_HELPER void
tmp_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tmpdir, name);
}

RDX_REPORT_UT_HELPER void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
}

/* A report with a total latency row (lat + perf), a per-lcore row, a
 * bandwidth row without latency, and text needing CSV quotes. */
RDX_REPORT_UT_HELPER struct rdx_report *
sample_report(void)
{
	struct rdx_report *r = rdx_report_create("rdx-perf echo");
	struct rdx_result x;

	CU_ASSERT_FATAL(r != NULL);
	CU_ASSERT_EQUAL(rdx_report_knob_set(r, "device", "%s", "rdx_sw0"), 0);
	CU_ASSERT_EQUAL(rdx_report_knob_set(r, "device_kind", "software device"), 0);
	CU_ASSERT_EQUAL(rdx_report_knob_set(r, "iters", "%d", 1000), 0);
	CU_ASSERT_EQUAL(rdx_report_knob_set(r, "note", "a, \"quoted\" knob"), 0);
	CU_ASSERT_EQUAL(rdx_report_knob_set(r, "iters", "%d", 5000), 0);   /* replaces */
	CU_ASSERT_EQUAL(rdx_report_knob_set(r, "", "x"), -EINVAL);

	memset(&x, 0, sizeof(x));
	snprintf(x.test, sizeof(x.test), "echo");
	snprintf(x.mode, sizeof(x.mode), "lat");
	snprintf(x.name, sizeof(x.name), "echo100");
	snprintf(x.desc, sizeof(x.desc), "send 30B message, receive 100B message");
	snprintf(x.lat_kind, sizeof(x.lat_kind), "rtt");
	x.size = 100;
	x.lcore = RDX_REPORT_LCORE_TOTAL;
	x.qps = 2;
	x.ops = 5000;
	x.bytes = 500000;
	x.seconds = 0.025;
	x.has_lat = true;
	x.lat.count = 5000;
	x.lat.min = 4912.3;
	x.lat.p50 = 5100.0;
	x.lat.p90 = 5400.5;
	x.lat.p99 = 5612.0;
	x.lat.p999 = 9000.25;
	x.lat.p9999 = 15000.0;
	x.lat.max = 1234567.0;
	x.lat.mean = 5150.123456789;
	x.lat.stdev = 321.0987654321;
	x.has_perf = true;
	x.perf.source = RDX_PERF_SRC_SW;
	x.perf.cycles = 13260.5;
	x.perf.instructions = -1.0;
	x.perf.cache_misses = -1.0;
	x.perf.branch_misses = -1.0;
	x.perf.task_clock_ns = 5100.25;
	x.perf.ctx_switches = 0.0002;
	x.perf.page_faults = 0.0;
	x.busy_pct = 99.5;
	CU_ASSERT_EQUAL(rdx_report_add(r, &x), 0);

	x.lcore = 1;      /* the same on one lcore: no clusterperf line */
	x.qps = 1;
	CU_ASSERT_EQUAL(rdx_report_add(r, &x), 0);

	memset(&x, 0, sizeof(x));
	snprintf(x.test, sizeof(x.test), "write");
	snprintf(x.mode, sizeof(x.mode), "bw");
	snprintf(x.name, sizeof(x.name), "write64k");
	snprintf(x.desc, sizeof(x.desc), "RDMA write 64KB");
	snprintf(x.lat_kind, sizeof(x.lat_kind), "completion");
	x.size = 65536;
	x.lcore = RDX_REPORT_LCORE_TOTAL;
	x.qps = 4;
	x.ops = 100000;
	x.bytes = UINT64_C(6553600000);
	x.seconds = 2.0;
	x.busy_pct = -1.0;
	CU_ASSERT_EQUAL(rdx_report_add(r, &x), 0);
	return r;
}

/* sample_report's last row (write 64K) cut short by an interrupt after
 * 3.7 s measured, a write bw run of 1M on 2 QPs not run. */
RDX_REPORT_UT_HELPER void
sample_interrupted(struct rdx_report *r)
{
	struct rdx_not_run n;

	memset(&n, 0, sizeof(n));
	snprintf(n.test, sizeof(n.test), "write");
	snprintf(n.mode, sizeof(n.mode), "bw");
	n.size = 1048576;
	n.qps = 2;
	r->rows[r->nb_rows - 1].cut_short = true;
	CU_ASSERT_EQUAL(rdx_report_not_run_add(r, &n), 0);
	CU_ASSERT_EQUAL(rdx_report_status_set(r, RDX_REPORT_STATUS_INTERRUPTED, 3.7,
					      "SIGINT/SIGTERM"), 0);
}

RDX_REPORT_UT_HELPER int
suite_init(void)
{
	return mkdtemp(tmpdir) == NULL ? -1 : 0;
}

RDX_REPORT_UT_HELPER int
suite_fini(void)
{
	static const char *const files[] = { "r.json", "bad.json", "r.csv", "b.json", "s.json", "s.csv" };
	char path[128];
	unsigned int i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		tmp_path(path, sizeof(path), files[i]);
		unlink(path);
	}
	return rmdir(tmpdir);
}

#endif /* RDX_REPORT_UT_H */
