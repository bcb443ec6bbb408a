/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx_report as CSV (lib/stats/rdx_report_csv.c): columns, quoting,
 * unknown figures, the writer's failure.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_errno.h>

#include "rdx_ut.h"

#include "../../../lib/stats/rdx_report_csv.c"
#include "rdx_report_ut.h"

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
	CU_ASSERT_EQUAL(RDX_REPORT_CSV_NB_COLS, 37);
	for (j = 0; j < RDX_REPORT_CSV_NB_COLS && j < n; j++)
		CU_ASSERT_STRING_EQUAL(fields[j], rdx_report_csv_cols[j]);
	CU_ASSERT_STRING_EQUAL(fields[0], "test");
	CU_ASSERT_STRING_EQUAL(fields[16], "lat_min_ns");
	CU_ASSERT_STRING_EQUAL(fields[33], "short_run");
	CU_ASSERT_STRING_EQUAL(fields[34], "row_status");
	CU_ASSERT_STRING_EQUAL(fields[35], "run_status");
	CU_ASSERT_STRING_EQUAL(fields[36], "run_reason");
	CU_ASSERT_STRING_EQUAL(fields[37], "knob.device");
	CU_ASSERT_STRING_EQUAL(fields[40], "knob.note");
	while (fgets(line, sizeof(line), f) != NULL) {
		n = csv_split(line, fields, 64);
		CU_ASSERT_EQUAL(n, RDX_REPORT_CSV_NB_COLS + 4);
		if (n != RDX_REPORT_CSV_NB_COLS + 4)
			continue;
		CU_ASSERT_STRING_EQUAL(fields[39], "5000");
		CU_ASSERT_STRING_EQUAL(fields[40], "a, \"quoted\" knob");
		CU_ASSERT_STRING_EQUAL(fields[34], "full");
		CU_ASSERT_STRING_EQUAL(fields[35], "completed");
		CU_ASSERT_STRING_EQUAL(fields[36], "");
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
	/* rows with a rank (rdx-perf --pattern): two more columns, rank and host */
	{
		struct rdx_result y = *rdx_report_get(r, 0);
		FILE *g;

		y.has_rank = true;
		y.rank = 2;
		snprintf(y.host, sizeof(y.host), "node,1");
		CU_ASSERT_EQUAL(rdx_report_add(r, &y), 0);
		CU_ASSERT_EQUAL_FATAL(rdx_report_write_csv(r, path), 0);
		g = fopen(path, "r");
		CU_ASSERT_FATAL(g != NULL);
		CU_ASSERT_FATAL(fgets(line, sizeof(line), g) != NULL);
		n = csv_split(line, fields, 64);
		CU_ASSERT_EQUAL(n, RDX_REPORT_CSV_NB_COLS + 6);
		CU_ASSERT_STRING_EQUAL(fields[RDX_REPORT_CSV_NB_COLS], "rank");
		CU_ASSERT_STRING_EQUAL(fields[RDX_REPORT_CSV_NB_COLS + 1], "host");
		while (fgets(line, sizeof(line), g) != NULL) {
			n = csv_split(line, fields, 64);
			CU_ASSERT_EQUAL(n, RDX_REPORT_CSV_NB_COLS + 6);
		}
		/* the last row is ours */
		CU_ASSERT_STRING_EQUAL(fields[RDX_REPORT_CSV_NB_COLS], "2");
		CU_ASSERT_STRING_EQUAL(fields[RDX_REPORT_CSV_NB_COLS + 1], "node,1");
		fclose(g);
	}
	/* the writer reports what fails */
	CU_ASSERT_EQUAL(rdx_report_write_csv(r, "/nonexistent-dir/r.csv"), -ENOENT);
	/* a full disk shows at the flush or the close: its errno, not -EIO */
	CU_ASSERT_EQUAL(rdx_report_write_csv(r, "/dev/full"), -ENOSPC);
	rdx_report_free(r);
}

/* An interrupted report: the cut row says cut_short, every line the run's
 * status and reason, and the run not run is a line of its own. */
static void
test_csv_status(void)
{
	struct rdx_report *r = sample_report();
	char path[128], line[4096], *fields[64];
	unsigned int n, rows = 0;
	FILE *f;

	sample_interrupted(r);
	tmp_path(path, sizeof(path), "s.csv");
	CU_ASSERT_EQUAL_FATAL(rdx_report_write_csv(r, path), 0);
	f = fopen(path, "r");
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_FATAL(fgets(line, sizeof(line), f) != NULL);
	while (fgets(line, sizeof(line), f) != NULL) {
		n = csv_split(line, fields, 64);
		CU_ASSERT_EQUAL(n, RDX_REPORT_CSV_NB_COLS + 4);
		if (n != RDX_REPORT_CSV_NB_COLS + 4)
			continue;
		CU_ASSERT_STRING_EQUAL(fields[35], "interrupted");
		CU_ASSERT_STRING_EQUAL(fields[36], "SIGINT/SIGTERM");
		CU_ASSERT_STRING_EQUAL(fields[37], "rdx_sw0");       /* knobs still in place */
		if (rows < 2)
			CU_ASSERT_STRING_EQUAL(fields[34], "full");
		if (rows == 2)
			CU_ASSERT_STRING_EQUAL(fields[34], "cut_short");
		if (rows == 3) {
			CU_ASSERT_STRING_EQUAL(fields[34], "not_run");
			CU_ASSERT_STRING_EQUAL(fields[0], "write");
			CU_ASSERT_STRING_EQUAL(fields[1], "bw");
			CU_ASSERT_STRING_EQUAL(fields[5], "1048576");
			CU_ASSERT_STRING_EQUAL(fields[6], "total");
			CU_ASSERT_STRING_EQUAL(fields[7], "2");
			CU_ASSERT_STRING_EQUAL(fields[8], "");            /* no ops */
			CU_ASSERT_STRING_EQUAL(fields[33], "");
		}
		rows++;
	}
	CU_ASSERT_EQUAL(rows, 4);
	fclose(f);
	rdx_report_free(r);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "CSV columns and quoting", test_csv },
		{ "CSV status and runs not run", test_csv_status },
		{ NULL, NULL },
	};

	return rdx_ut_run("rdx_report_csv", cases, suite_init, suite_fini);
}
