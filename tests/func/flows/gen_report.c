/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Writes a synthetic rdx report through the real lib/stats path (histogram
 * -> summary -> rdx_report -> JSON/CSV/table) for the end-to-end tests of
 * the report schema and of rdx-plot: latency rows for sizes 8 B .. 4 KB
 * (lognormal-ish latencies from a fixed seed), bandwidth rows for sizes
 * 64 B .. 64 KB at 1, 2, 4 and 8 QPs, and per-lcore rows.
 * usage: gen_report OUT.json [OUT.csv]
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdx_hist.h"
#include "rdx_report.h"

static uint64_t seed = 42;

static double
unit_rand(void)
{
	seed = seed * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
	return ((double)(seed >> 11) + 0.5) / 9007199254740992.0;
}

static void
fill_row(struct rdx_result *x, const char *test, const char *mode, uint64_t size, uint32_t qps)
{
	memset(x, 0, sizeof(*x));
	snprintf(x->test, sizeof(x->test), "%s", test);
	snprintf(x->mode, sizeof(x->mode), "%s", mode);
	snprintf(x->name, sizeof(x->name), "%s%" PRIu64, test, size);
	snprintf(x->desc, sizeof(x->desc), "%s %" PRIu64 "B message", test, size);
	snprintf(x->lat_kind, sizeof(x->lat_kind), "%s", strcmp(mode, "lat") == 0 ? "rtt" : "completion");
	x->size = size;
	x->lcore = RDX_REPORT_LCORE_TOTAL;
	x->qps = qps;
	x->busy_pct = -1.0;
}

int
main(int argc, char **argv)
{
	static struct rdx_hist h;
	struct rdx_report *r;
	struct rdx_result x;
	uint64_t size;
	uint32_t qps;
	int i, rc;

	if (argc < 2) {
		fprintf(stderr, "usage: gen_report OUT.json [OUT.csv]\n");
		return 2;
	}
	r = rdx_report_create("gen_report: synthetic rdx-perf results");
	if (r == NULL)
		return 1;
	rdx_report_knob_set(r, "device", "rdx_sw0");
	rdx_report_knob_set(r, "device_kind", "software device");
	rdx_report_knob_set(r, "iters", "%d", 20000);
	rdx_report_knob_set(r, "tsc_hz", "%u", 2600000000u);
	for (size = 8; size <= 4096; size *= 4) {
		rdx_hist_init(&h);
		for (i = 0; i < 20000; i++)
			rdx_hist_record(&h, (uint64_t)(2600.0 * (1.0 + (double)size / 2048.0) *
						       exp(0.3 * sqrt(-2.0 * log(unit_rand())))));
		fill_row(&x, "echo", "lat", size, 1);
		x.ops = h.count;
		x.bytes = h.count * size;
		x.seconds = rdx_hist_mean(&h) * (double)h.count / 2.6e9;
		x.has_lat = true;
		rdx_hist_summarize(&h, 2600000000u, &x.lat);
		x.has_perf = true;
		x.perf.source = RDX_PERF_SRC_SW;
		x.perf.cycles = rdx_hist_mean(&h);
		x.perf.instructions = -1.0;
		x.perf.cache_misses = -1.0;
		x.perf.branch_misses = -1.0;
		x.perf.task_clock_ns = x.lat.mean;
		x.perf.ctx_switches = 0.0;
		x.perf.page_faults = 0.0;
		x.busy_pct = 100.0;
		/* with the histogram's buckets (lat.buckets) */
		if (rdx_report_add_hist(r, &x, &h, 2600000000u) != 0)
			return 1;
		x.lcore = 1;
		if (rdx_report_add(r, &x) != 0)
			return 1;
	}
	for (qps = 1; qps <= 8; qps *= 2) {
		for (size = 64; size <= 65536; size *= 4) {
			fill_row(&x, "write", "bw", size, qps);
			x.seconds = 1.0;
			/* 1.5 Mops per QP up to 12.5 GB/s */
			x.ops = (uint64_t)fmin(1.5e6 * qps, 12.5e9 / (double)size);
			x.bytes = x.ops * size;
			if (rdx_report_add(r, &x) != 0)
				return 1;
		}
	}
	rc = rdx_report_write_json(r, argv[1]);
	if (rc == 0 && argc > 2)
		rc = rdx_report_write_csv(r, argv[2]);
	if (rc == 0)
		rc = rdx_report_print_table(r, stdout, true);
	if (rc == 0)
		rc = rdx_report_print_clusterperf(r, stdout);
	rdx_report_free(r);
	if (rc != 0) {
		fprintf(stderr, "gen_report: writing failed: %s\n", strerror(-rc));
		return 1;
	}
	return 0;
}
