/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx_report: knobs, derived fields, JSON round trip (every field and knob),
 * JSON reader errors, CSV columns and quoting, the table and the
 * clusterperf lines (captured with open_memstream).
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

static char tmpdir[] = "/tmp/rdx_report_ut.XXXXXX";

static void
tmp_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tmpdir, name);
}

static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
}

/* A report with a total latency row (lat + perf), a per-lcore row, a
 * bandwidth row without latency, and text needing CSV quotes. */
static struct rdx_report *
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
	rdx_report_free(r);
}

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
	CU_ASSERT(rdx_report_write_json(r, "/nonexistent-dir/r.json") < 0);
	CU_ASSERT_EQUAL(rdx_report_write_csv(r, "/nonexistent-dir/r.csv"), -ENOENT);
	CU_ASSERT_EQUAL(rdx_report_write_json(NULL, path), -EINVAL);
	CU_ASSERT_EQUAL(rdx_report_knob_set(NULL, "a", "b"), -EINVAL);
	CU_ASSERT_EQUAL(rdx_report_add(r, NULL), -EINVAL);
	rdx_report_free(r);
}

/* Split one CSV line (RFC 4180 quoting) in place; returns the field count. */
static unsigned int
csv_split(char *line, char **fields, unsigned int max)
{
	unsigned int n = 0;
	char *w = line, *p = line;

	line[strcspn(line, "\n")] = '\0';
	for (;;) {
		char *start = w;

		if (*p == '"') {
			p++;
			for (;;) {
				if (*p == '"' && p[1] == '"') {
					*w++ = '"';
					p += 2;
				} else if (*p == '"') {
					p++;
					break;
				} else if (*p == '\0') {
					break;
				} else {
					*w++ = *p++;
				}
			}
		} else {
			while (*p != ',' && *p != '\0')
				*w++ = *p++;
		}
		if (n < max)
			fields[n] = start;
		n++;
		if (*p == '\0') {
			*w = '\0';
			return n;
		}
		*w++ = '\0';
		p++;   /* the comma */
	}
}

static void
test_csv(void)
{
	struct rdx_report *r = sample_report();
	char path[128], line[4096], *fields[64];
	unsigned int n, rows = 0, j;
	FILE *f;

	tmp_path(path, sizeof(path), "r.csv");
	CU_ASSERT_EQUAL_FATAL(rdx_report_write_csv(r, path), 0);
	f = fopen(path, "r");
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_FATAL(fgets(line, sizeof(line), f) != NULL);
	n = csv_split(line, fields, 64);
	CU_ASSERT_EQUAL(n, RDX_REPORT_CSV_NB_COLS + 4);
	CU_ASSERT_EQUAL(RDX_REPORT_CSV_NB_COLS, 34);
	for (j = 0; j < RDX_REPORT_CSV_NB_COLS && j < n; j++)
		CU_ASSERT_STRING_EQUAL(fields[j], rdx_report_csv_cols[j]);
	CU_ASSERT_STRING_EQUAL(fields[0], "test");
	CU_ASSERT_STRING_EQUAL(fields[16], "lat_min_ns");
	CU_ASSERT_STRING_EQUAL(fields[33], "short_run");
	CU_ASSERT_STRING_EQUAL(fields[34], "knob.device");
	CU_ASSERT_STRING_EQUAL(fields[37], "knob.note");
	while (fgets(line, sizeof(line), f) != NULL) {
		n = csv_split(line, fields, 64);
		CU_ASSERT_EQUAL(n, RDX_REPORT_CSV_NB_COLS + 4);
		if (n != RDX_REPORT_CSV_NB_COLS + 4)
			continue;
		CU_ASSERT_STRING_EQUAL(fields[36], "5000");
		CU_ASSERT_STRING_EQUAL(fields[37], "a, \"quoted\" knob");
		CU_ASSERT_STRING_EQUAL(fields[33], rows == 2 ? "0" : "1");   /* short: 25 ms */
		if (rows == 0) {
			CU_ASSERT_STRING_EQUAL(fields[3], "send 30B message, receive 100B message");
			CU_ASSERT_STRING_EQUAL(fields[6], "total");
			CU_ASSERT_STRING_EQUAL(fields[16], "4912.3");
			CU_ASSERT_STRING_EQUAL(fields[25], "sw+tsc");
			CU_ASSERT_STRING_EQUAL(fields[27], "");     /* instructions unmeasured */
		}
		if (rows == 1)
			CU_ASSERT_STRING_EQUAL(fields[6], "1");
		if (rows == 2) {
			CU_ASSERT_STRING_EQUAL(fields[14], "");     /* busy unknown */
			CU_ASSERT_STRING_EQUAL(fields[15], "");     /* no latency */
			CU_ASSERT_STRING_EQUAL(fields[25], "");     /* no perf */
			CU_ASSERT_STRING_EQUAL(fields[12], "3276.8");
		}
		rows++;
	}
	CU_ASSERT_EQUAL(rows, 3);
	fclose(f);
	rdx_report_free(r);
}

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
	CU_ASSERT_EQUAL(lines, 9);   /* the per-lcore row prints nothing */
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
	/* latency kinds in words */
	CU_ASSERT_STRING_EQUAL(rdx_report_lat_label("half-rtt"), "half RTT");
	CU_ASSERT_STRING_EQUAL(rdx_report_lat_label("rtt"), "RTT");
	CU_ASSERT_STRING_EQUAL(rdx_report_lat_label("completion"), "post to completion");
	CU_ASSERT_STRING_EQUAL(rdx_report_lat_label("loop-rtt/2 (one lcore)"), "half of a one-lcore loop");
	CU_ASSERT_STRING_EQUAL(rdx_report_lat_label("rtt (one lcore)"), "RTT, one lcore");
	CU_ASSERT_STRING_EQUAL(rdx_report_lat_label(""), "");
}

static int
suite_init(void)
{
	return mkdtemp(tmpdir) == NULL ? -1 : 0;
}

static int
suite_fini(void)
{
	static const char *const files[] = { "r.json", "bad.json", "r.csv" };
	char path[128];
	unsigned int i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		tmp_path(path, sizeof(path), files[i]);
		unlink(path);
	}
	return rmdir(tmpdir);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "knobs and derived fields", test_knobs_and_derived },
		{ "JSON round trip", test_json_round_trip },
		{ "JSON bad input", test_json_bad_input },
		{ "CSV columns and quoting", test_csv },
		{ "table", test_table },
		{ "clusterperf lines", test_clusterperf },
		{ "units", test_units },
		{ NULL, NULL },
	};

	return rdx_ut_run("rdx_report", cases, suite_init, suite_fini);
}
