/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Benchmark reports as CSV (RFC 4180 quoting): one header line, one line
 * per row.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include "rdx_config.h"
#include "rdx_perf.h"
#include "rdx_report.h"
#include "rdx_report_priv.h"

/*
 * CSV fixed columns, in order (then one "knob.<name>" column per knob):
 *   test, mode, name, desc, lat_kind  text as in struct rdx_result
 *   size, lcore, qps, ops, bytes      integers; lcore "total" for the total row
 *   seconds, mops, mbytes_per_s, gbits_per_s, busy_pct
 *                                     busy_pct empty when unknown
 *   lat_count, lat_{min,p50,p90,p99,p999,p9999,max,mean,stdev}_ns
 *                                     empty when the row has no latency
 *   perf_source                       "hw", "sw+tsc", "tsc-only"; empty without perf
 *   perf_{cycles,instructions,cache_misses,branch_misses,task_clock_ns,
 *        ctx_switches,page_faults}    per operation; empty when unmeasured
 *   short_run                         1 when the row is short (RDX_REPORT_SHORT_S/_OPS), else 0
 *   row_status                        "full"; "cut_short" (the run ended before it was
 *                                     done); "not_run" (a run asked for and never
 *                                     started: test, mode, size, lcore and qps
 *                                     only)
 *   run_status, run_reason            the report's status (completed, interrupted,
 *                                     failed) and its reason, on every line
 *   rank, host                        only when a row has them (rdx-perf --pattern);
 *                                     rank -1 for the cluster total
 */
static const char *const rdx_report_csv_cols[] = {
	"test", "mode", "name", "desc", "lat_kind",
	"size", "lcore", "qps", "ops", "bytes",
	"seconds", "mops", "mbytes_per_s", "gbits_per_s", "busy_pct",
	"lat_count", "lat_min_ns", "lat_p50_ns", "lat_p90_ns", "lat_p99_ns",
	"lat_p999_ns", "lat_p9999_ns", "lat_max_ns", "lat_mean_ns", "lat_stdev_ns",
	"perf_source", "perf_cycles", "perf_instructions", "perf_cache_misses",
	"perf_branch_misses", "perf_task_clock_ns", "perf_ctx_switches", "perf_page_faults",
	"short_run", "row_status", "run_status", "run_reason",
};
#define RDX_REPORT_CSV_NB_COLS (sizeof(rdx_report_csv_cols) / sizeof(rdx_report_csv_cols[0]))

/* ------------------------------------------------------------------ CSV */

void
rdx_report_csv_field(FILE *f, const char *s)
{
	if (strpbrk(s, ",\"\r\n") == NULL && s[0] != ' ' &&
	    (s[0] == '\0' || s[strlen(s) - 1] != ' ')) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s != '\0'; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void
rdx_csv_str(FILE *f, const char *s, bool first)
{
	if (!first)
		fputc(',', f);
	rdx_report_csv_field(f, s);
}

/* A figure; empty when unknown (negative or not finite) and unknown_neg. */
static void
rdx_csv_num(FILE *f, double v, bool unknown_neg)
{
	if (!isfinite(v) || (unknown_neg && v < 0.0))
		fputc(',', f);
	else
		fprintf(f, ",%.10g", v);
}

/* run_status, run_reason */
static void
rdx_csv_status(const struct rdx_report *r, FILE *f)
{
	rdx_csv_str(f, rdx_report_status_name(r->status), false);
	rdx_csv_str(f, r->reason != NULL ? r->reason : "", false);
}

/* The knob values and the line's end. */
static void
rdx_csv_knobs(const struct rdx_report *r, FILE *f)
{
	unsigned int j;

	for (j = 0; j < r->nb_knobs; j++)
		rdx_csv_str(f, r->knobs[j].value, false);
	fputs("\n", f);
}

int
rdx_report_write_csv(const struct rdx_report *r, const char *path)
{
	unsigned int i, j;
	bool ranks = false;
	FILE *f;
	char name[256];
	int rc;

	if (r == NULL || path == NULL)
		return -EINVAL;
	f = fopen(path, "w");
	if (f == NULL)
		return -errno;
	for (j = 0; j < RDX_REPORT_CSV_NB_COLS; j++)
		rdx_csv_str(f, rdx_report_csv_cols[j], j == 0);
	for (i = 0; i < r->nb_rows && !ranks; i++)
		ranks = r->rows[i].has_rank;
	if (ranks)
		fputs(",rank,host", f);
	for (j = 0; j < r->nb_knobs; j++) {
		snprintf(name, sizeof(name), "knob.%s", r->knobs[j].name);
		rdx_csv_str(f, name, false);
	}
	fputs("\n", f);
	for (i = 0; i < r->nb_rows; i++) {
		const struct rdx_result *x = &r->rows[i];
		const struct rdx_hist_summary *l = &x->lat;
		const struct rdx_perf_per_op *p = &x->perf;

		rdx_csv_str(f, x->test, true);
		rdx_csv_str(f, x->mode, false);
		rdx_csv_str(f, x->name, false);
		rdx_csv_str(f, x->desc, false);
		rdx_csv_str(f, x->lat_kind, false);
		fprintf(f, ",%" PRIu64, x->size);
		if (x->lcore == RDX_REPORT_LCORE_TOTAL)
			fputs(",total", f);
		else
			fprintf(f, ",%d", x->lcore);
		fprintf(f, ",%" PRIu32 ",%" PRIu64 ",%" PRIu64, x->qps, x->ops, x->bytes);
		rdx_csv_num(f, x->seconds, false);
		rdx_csv_num(f, x->mops, false);
		rdx_csv_num(f, x->mbytes_per_s, false);
		rdx_csv_num(f, x->gbits_per_s, false);
		rdx_csv_num(f, x->busy_pct, true);
		if (x->has_lat) {
			fprintf(f, ",%" PRIu64, l->count);
			rdx_csv_num(f, l->min, false);
			rdx_csv_num(f, l->p50, false);
			rdx_csv_num(f, l->p90, false);
			rdx_csv_num(f, l->p99, false);
			rdx_csv_num(f, l->p999, false);
			rdx_csv_num(f, l->p9999, false);
			rdx_csv_num(f, l->max, false);
			rdx_csv_num(f, l->mean, false);
			rdx_csv_num(f, l->stdev, false);
		} else {
			fputs(",,,,,,,,,,", f);
		}
		if (x->has_perf) {
			fprintf(f, ",%s", rdx_perf_source_name(p->source));
			rdx_csv_num(f, p->cycles, true);
			rdx_csv_num(f, p->instructions, true);
			rdx_csv_num(f, p->cache_misses, true);
			rdx_csv_num(f, p->branch_misses, true);
			rdx_csv_num(f, p->task_clock_ns, true);
			rdx_csv_num(f, p->ctx_switches, true);
			rdx_csv_num(f, p->page_faults, true);
		} else {
			fputs(",,,,,,,,", f);
		}
		fputs(x->short_run ? ",1" : ",0", f);
		fputs(x->cut_short ? ",cut_short" : ",full", f);
		rdx_csv_status(r, f);
		if (ranks) {
			fprintf(f, ",%d", x->has_rank ? x->rank : -1);
			rdx_csv_str(f, x->host, false);
		}
		rdx_csv_knobs(r, f);
	}
	for (i = 0; i < r->nb_not_run; i++) {
		const struct rdx_not_run *n = &r->not_run[i];

		rdx_csv_str(f, n->test, true);
		rdx_csv_str(f, n->mode, false);
		/* name .. lat_kind empty; size, lcore, qps; ops .. lat_count
		 * empty; lat_min_ns .. short_run (18 columns) empty */
		fprintf(f, ",,,,%" PRIu64 ",total,%" PRIu32 ",,,,,,,,", n->size, n->qps);
		fputs(",,,,,,,,,,,,,,,,,,", f);
		fputs(",not_run", f);
		rdx_csv_status(r, f);
		if (ranks)
			fputs(",,", f);
		rdx_csv_knobs(r, f);
	}
	/* a full disk shows at the flush or the close (stdio buffers) */
	errno = 0;
	rc = ferror(f) ? -EIO : 0;
	if (rc == 0 && fflush(f) != 0)
		rc = errno != 0 ? -errno : -EIO;
	if (fclose(f) != 0 && rc == 0)
		rc = errno != 0 ? -errno : -EIO;
	return rc;
}
