/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx_report's human output (lib/stats/rdx_report_text.c): the table and
 * the clusterperf lines (captured with open_memstream), their units.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_errno.h>

#include "rdx_ut.h"

#include "../../../lib/stats/rdx_report_text.c"
#include "rdx_report_ut.h"

static __attribute__((noinline)) char *
capture(struct rdx_report *r, int (*fn)(const struct rdx_report *, FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(fn(r, f), 0);
	fclose(f);
	return buf;
}

static int
table_gbits(const struct rdx_report *r, FILE *f)
{
	return rdx_report_print_table(r, f, true);
}

static void
test_table(void)
{
	struct rdx_report *r = sample_report();
	const char *banner = "*** results on the SOFTWARE mlx5 device (a model, not a NIC): rdx_sw0 ***\n";
	char *out = capture(r, table_gbits), *l;

	printf("\n%s", out);
	CU_ASSERT(strncmp(out, banner, strlen(banner)) == 0);
	CU_ASSERT(strstr(out, " rdx-perf echo\n") != NULL);
	CU_ASSERT(strstr(out, " device      : rdx_sw0\n") != NULL);
	CU_ASSERT(strstr(out, " device_kind : software device\n") != NULL);
	CU_ASSERT(strstr(out, " iters       : 5000\n") != NULL);
	CU_ASSERT(strstr(out, "Gb/s") != NULL);
	CU_ASSERT(strstr(out, "p99.9_us") != NULL);
	/* the total echo row: lat in us with 2 decimals, perf per op and its source */
	l = strstr(out, " echo     lat        100 total     2");
	CU_ASSERT_FATAL(l != NULL);
	CU_ASSERT(strncmp(l + 81, "     4.91      5.10      5.40      5.61      9.00   1234.57      5.15"
			  "      0.32   99.5   13260.5         -         - sw+tsc   SHORT\n", 129) == 0);
	/* units named; the short rows (25 ms) flagged and explained */
	CU_ASSERT(strstr(out, " size_B ") != NULL && strstr(out, " MB/s(1e6) ") != NULL);
	CU_ASSERT(strstr(out, " units: MB = 10^6 bytes, Gb = 10^9 bits") != NULL);
	CU_ASSERT(strstr(out, " SHORT: 2 row(s) measured over < 0.1 s or < 1000 ops") != NULL);
	CU_ASSERT(strstr(out, " echo     lat        100     1     1") != NULL);
	CU_ASSERT(strstr(out, " write    bw       65536 total     4       100000     0.050    3276.80"
			 "     26.21") != NULL);
	free(out);

	/* hardware: its own banner; no device_kind: no banner */
	CU_ASSERT_EQUAL(rdx_report_knob_set(r, "device_kind", "hardware"), 0);
	out = capture(r, table_gbits);
	CU_ASSERT(strncmp(out, "*** results on HARDWARE: rdx_sw0 ***\n", 37) == 0);
	free(out);
	rdx_report_free(r);
	/* rdx-perf names the device in knob "dev" */
	r = rdx_report_create("t");
	CU_ASSERT_FATAL(r != NULL);
	CU_ASSERT_EQUAL(rdx_report_knob_set(r, "dev", "mlx5_0"), 0);
	CU_ASSERT_EQUAL(rdx_report_knob_set(r, "device_kind", "software device"), 0);
	out = capture(r, table_gbits);
	CU_ASSERT(strstr(out, "(a model, not a NIC): mlx5_0 ***\n") != NULL);
	free(out);
	rdx_report_free(r);
	r = rdx_report_create("t");
	CU_ASSERT_FATAL(r != NULL);
	out = capture(r, table_gbits);
	CU_ASSERT(strncmp(out, "----", 4) == 0);
	free(out);
	rdx_report_free(r);
}

static int
compact_bw(const struct rdx_report *r, FILE *f)
{
	return rdx_report_print_compact(r, f, RDX_REPORT_COMPACT_BW, false);
}

static int
compact_bw_gbits(const struct rdx_report *r, FILE *f)
{
	return rdx_report_print_compact(r, f, RDX_REPORT_COMPACT_BW, true);
}

static int
compact_lat(const struct rdx_report *r, FILE *f)
{
	return rdx_report_print_compact(r, f, RDX_REPORT_COMPACT_LAT, false);
}

/* the same table in parts: header and rows, rows again (none new), end */
static int
compact_bw_parts(const struct rdx_report *r, FILE *f)
{
	struct rdx_report_compact_state st = { .many_qps = true };

	if (rdx_report_print_compact_stream(r, f, RDX_REPORT_COMPACT_BW, false, &st, false) != 0 ||
	    rdx_report_print_compact_stream(r, f, RDX_REPORT_COMPACT_BW, false, &st, false) != 0)
		return -1;
	return rdx_report_print_compact_stream(r, f, RDX_REPORT_COMPACT_BW, false, &st, true);
}

static void
test_compact_stream(void)
{
	struct rdx_report *r = sample_report();
	char *whole = capture(r, compact_bw), *parts = capture(r, compact_bw_parts);
	struct rdx_report_compact_state st = { 0 };

	CU_ASSERT_STRING_EQUAL(parts, whole);
	CU_ASSERT_EQUAL(rdx_report_print_compact_stream(r, NULL, RDX_REPORT_COMPACT_BW, false, &st,
							true), -EINVAL);
	CU_ASSERT_EQUAL(rdx_report_print_compact_stream(r, stdout, RDX_REPORT_COMPACT_BW, false, NULL,
							true), -EINVAL);
	free(whole);
	free(parts);
	rdx_report_free(r);
}

/* perftest's columns and units, total rows only */
static void
test_compact(void)
{
	struct rdx_report *r = sample_report();
	struct rdx_result x;
	char *out = capture(r, compact_bw), *p;
	unsigned int lines = 0;

	printf("\n%s", out);
	CU_ASSERT(strstr(out, " #bytes     #iterations    BW peak[MiB/sec]     BW average[MiB/sec]"
			 "    MsgRate[Mpps]  #qps\n") != NULL);
	/* 6553600000 B in 2 s = 3125.00 MiB/s (2^20), 0.05 Mpps */
	CU_ASSERT(strstr(out, " 65536      100000         -                    3125.00"
			 "                0.050000       4\n") != NULL);
	CU_ASSERT(strstr(out, "MiB = 2^20 bytes") != NULL);
	/* the per-lcore echo row (qps 1) is not shown */
	CU_ASSERT(strstr(out, "       1\n") == NULL);
	for (p = out; *p != '\0'; p++)
		lines += *p == '\n';
	CU_ASSERT_EQUAL(lines, 9);   /* banner, 2 rules, header, 2 rows, units, SHORT, status */
	CU_ASSERT(strstr(out, " status: completed\n") != NULL);
	free(out);
	out = capture(r, compact_bw_gbits);
	CU_ASSERT(strstr(out, "BW average[Gb/sec]") != NULL && strstr(out, " 26.21 ") != NULL);
	free(out);
	out = capture(r, compact_lat);
	printf("\n%s", out);
	CU_ASSERT(strstr(out, " #bytes  #iterations t_min[usec]  t_max[usec]  t_typical[usec]  "
			 "t_avg[usec]  t_stdev[usec]  99% percentile[usec]  99.9% percentile[usec]") != NULL);
	CU_ASSERT(strstr(out, " 100     5000        4.91         1234.57      5.10             "
			 "5.15         0.32           5.61                  9.00                    2") != NULL);
	CU_ASSERT(strstr(out, " latency: RTT\n") != NULL);
	CU_ASSERT(strstr(out, "offered") == NULL);
	free(out);
	/* an open-loop row: offered rate and the achieved MsgRate */
	memcpy(&x, rdx_report_get(r, 0), sizeof(x));
	x.offered_ops_per_s = 150000;
	CU_ASSERT_EQUAL(rdx_report_add(r, &x), 0);
	out = capture(r, compact_lat);
	CU_ASSERT(strstr(out, "offered[ops/s]  MsgRate[Mpps]") != NULL);
	CU_ASSERT(strstr(out, " 150000          0.200000") != NULL);
	CU_ASSERT(strstr(out, "from each op's intended send time (open loop)") != NULL);
	free(out);
	CU_ASSERT_EQUAL(rdx_report_print_compact(NULL, stdout, RDX_REPORT_COMPACT_BW, false),
			-EINVAL);
	rdx_report_free(r);
}

static void
test_clusterperf(void)
{
	static const char *const want[] = {
		"echo100.min                   4.9 us    send 30B message, receive 100B message minimum (RTT) [SHORT]\n",
		"echo100.50                    5.1 us    send 30B message, receive 100B message median (RTT) [SHORT]\n",
		"echo100.90                    5.4 us    send 30B message, receive 100B message 90% (RTT) [SHORT]\n",
		"echo100.99                    5.6 us    send 30B message, receive 100B message 99% (RTT) [SHORT]\n",
		"echo100.999                   9.0 us    send 30B message, receive 100B message 99.9% (RTT) [SHORT]\n",
		"echo100.9999                 15.0 us    send 30B message, receive 100B message 99.99% (RTT) [SHORT]\n",
		"echo100.max                   1.2 ms    send 30B message, receive 100B message maximum (RTT) [SHORT]\n",
		"echo100.bw                   20.0 MB/s  send 30B message, receive 100B message bandwidth (decimal: 1 MB = 10^6 B) [SHORT]\n",
		"write64k.bw                   3.3 GB/s  RDMA write 64KB bandwidth (decimal: 1 MB = 10^6 B)\n",
	};
	struct rdx_report *r = sample_report();
	char *out = capture(r, rdx_report_print_clusterperf), *p = out;
	unsigned int i, lines = 0;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		CU_ASSERT(strstr(out, want[i]) != NULL);
		if (strstr(out, want[i]) == NULL)
			printf("\n  missing: %s  got:\n%s", want[i], out);
	}
	for (; *p != '\0'; p++)
		lines += *p == '\n';
	CU_ASSERT_EQUAL(lines, 10);   /* the per-lcore row prints nothing; the status */
	CU_ASSERT(strstr(out, "\nstatus: completed\n") != NULL);
	free(out);
	rdx_report_free(r);
}

static void
test_units(void)
{
	const char *u;
	double v;

	rdx_report_time_unit(12.0, &v, &u);
	CU_ASSERT(v == 12.0 && strcmp(u, "ns") == 0);
	rdx_report_time_unit(2.5e9, &v, &u);
	CU_ASSERT(v == 2.5 && strcmp(u, "s") == 0);
	rdx_report_bw_unit(512.0, &v, &u);
	CU_ASSERT(v == 512.0 && strcmp(u, "B/s") == 0);
	rdx_report_bw_unit(2.5e3, &v, &u);
	CU_ASSERT(v == 2.5 && strcmp(u, "KB/s") == 0);
}

static int
table_plain(const struct rdx_report *r, FILE *f)
{
	return rdx_report_print_table(r, f, false);
}

static int
status_only(const struct rdx_report *r, FILE *f)
{
	return rdx_report_print_status(r, f, "# ");
}

/* An interrupted report: every human output says so, with the seconds
 * measured; the cut row is marked CUT; the run not run is listed. A
 * failed one gives its reason. */
static void
test_status_lines(void)
{
	struct rdx_report *r = sample_report();
	char *out;

	sample_interrupted(r);
	out = capture(r, table_plain);
	printf("\n%s", out);
	CU_ASSERT(strstr(out, " -        CUT\n") != NULL);           /* the write 64K row */
	CU_ASSERT(strstr(out, " status: interrupted: SIGINT/SIGTERM; 3.700 s measured\n") != NULL);
	CU_ASSERT(strstr(out, " CUT: 1 row(s) ended by the interrupt") != NULL);
	CU_ASSERT(strstr(out, " not run: write bw size 1048576 B, 2 QP(s)\n") != NULL);
	free(out);
	out = capture(r, compact_bw);
	CU_ASSERT(strstr(out, "0.050000       4     CUT\n") != NULL);
	CU_ASSERT(strstr(out, " status: interrupted: SIGINT/SIGTERM; 3.700 s measured\n") != NULL);
	CU_ASSERT(strstr(out, " not run: write bw size 1048576 B, 2 QP(s)\n") != NULL);
	free(out);
	out = capture(r, rdx_report_print_clusterperf);
	CU_ASSERT(strstr(out, "(decimal: 1 MB = 10^6 B) [CUT]\n") != NULL);
	CU_ASSERT(strstr(out, "\nstatus: interrupted: SIGINT/SIGTERM; 3.700 s measured\n") != NULL);
	free(out);
	out = capture(r, status_only);
	CU_ASSERT(strncmp(out, "# status: interrupted", 21) == 0);
	CU_ASSERT(strstr(out, "\n# not run: ") != NULL);
	free(out);
	CU_ASSERT_EQUAL(rdx_report_status_set(r, RDX_REPORT_STATUS_FAILED, 0.25,
					      "peer closed the bootstrap connection"), 0);
	out = capture(r, table_plain);
	CU_ASSERT(strstr(out, " status: failed: peer closed the bootstrap connection; 0.250 s measured\n") != NULL);
	CU_ASSERT(strstr(out, " CUT: 1 row(s) ended by the failure") != NULL);
	free(out);
	CU_ASSERT_EQUAL(rdx_report_print_status(NULL, stdout, ""), -EINVAL);
	rdx_report_free(r);
}

/* BW peak: the row's peak_bytes_per_s in the table's unit; "-" without */
static void
test_compact_peak(void)
{
	struct rdx_report *r = rdx_report_create("rdx-perf write bw");
	struct rdx_result x;
	char *out;

	CU_ASSERT_FATAL(r != NULL);
	memset(&x, 0, sizeof(x));
	snprintf(x.test, sizeof(x.test), "write");
	snprintf(x.mode, sizeof(x.mode), "bw");
	x.size = 65536;
	x.lcore = RDX_REPORT_LCORE_TOTAL;
	x.qps = 1;
	x.ops = 100000;
	x.bytes = 6553600000ull;
	x.seconds = 2.0;
	x.peak_bytes_per_s = 4096.0 * RDX_MIB;  /* 4096.00 MiB/s, 34.36 Gb/s */
	CU_ASSERT_EQUAL(rdx_report_add(r, &x), 0);
	out = capture(r, compact_bw);
	printf("\n%s", out);
	CU_ASSERT(strstr(out, " 65536      100000         4096.00              3125.00") != NULL);
	CU_ASSERT(strstr(out, "BW peak: size / the shortest time per op") != NULL);
	CU_ASSERT(strstr(out, "not measured") == NULL);
	free(out);
	out = capture(r, compact_bw_gbits);
	CU_ASSERT(strstr(out, " 34.36 ") != NULL);
	free(out);
	rdx_report_free(r);
	r = sample_report();
	out = capture(r, compact_bw);
	CU_ASSERT(strstr(out, "(-: not measured)") != NULL);
	free(out);
	rdx_report_free(r);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "table", test_table },
		{ "clusterperf lines", test_clusterperf },
		{ "perftest's compact table", test_compact },
		{ "BW peak in the compact table", test_compact_peak },
		{ "the compact table printed as rows come", test_compact_stream },
		{ "units", test_units },
		{ "status of an interrupted or failed run", test_status_lines },
		{ NULL, NULL },
	};

	return rdx_ut_run("rdx_report_text", cases, suite_init, suite_fini);
}
