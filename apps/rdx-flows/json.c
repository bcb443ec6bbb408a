/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx-flows --json: the logs as read (header fields, counts, the latency
 * of every completed WR), the analysis and the windows, for other tools
 * (rdx-plot reads this rather than parsing the logs itself).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "flows.h"

/* The latencies of wr as rdx-perf's report shows them ((c - p) / div), ns. */
void
flows_lat_summary(const struct rdx_wrlog_wr *wr, size_t n, unsigned int div, uint64_t t1,
	    struct rdx_hist_summary *out)
{
	static struct rdx_hist h;   /* large: not on the stack */
	size_t i;

	rdx_hist_init(&h);
	for (i = 0; i < n; i++)
		if (wr[i].complete_ns != 0 && wr[i].complete_ns <= t1)
			rdx_hist_record(&h, (wr[i].complete_ns - wr[i].post_ns) / div);
	rdx_hist_summarize(&h, 0, out);   /* already ns */
}

/* A JSON string: '"' and '\' escaped, control characters as \u00XX. */
static void
json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* A figure; null when not finite. */
static void
json_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.17g", v);
	else
		fputs("null", f);
}

static void
json_lat(FILE *f, const struct rdx_hist_summary *l)
{
	const char *k[] = { "min", "p50", "p99", "max" };
	double v[] = { l->min, l->p50, l->p99, l->max };
	unsigned int i;

	fprintf(f, "{\"count\": %" PRIu64, l->count);
	for (i = 0; i < 4; i++) {
		fprintf(f, ", \"%s\": ", k[i]);
		json_num(f, v[i]);
	}
	fputs("}", f);
}

static void
json_log(FILE *f, const struct rdx_wrlog *l)
{
	struct rdx_hist_summary lat;
	const char *kind = rdx_wrlog_device_kind(l);
	size_t i, k = 0;

	fputs("  {\"path\": ", f);
	json_str(f, l->path);
	fputs(", \"label\": ", f);
	json_str(f, rdx_wrlog_label(l));
	fputs(", \"device_kind\": ", f);
	if (kind != NULL)
		json_str(f, kind);
	else
		fputs("null", f);
	fputs(",\n   \"fields\": {", f);
	for (i = 0; i < l->nb_fields; i++) {
		fputs(i == 0 ? "" : ", ", f);
		json_str(f, l->fields[i].key);
		fputs(": ", f);
		json_str(f, l->fields[i].val);
	}
	flows_lat_summary(l->wr, l->nb_wr, l->report_div, UINT64_MAX, &lat);
	fprintf(f, "},\n   \"wrs\": %zu, \"incomplete\": %zu, \"report_div\": %u, \"capacity\": %"
		PRIu64 ", \"unlogged\": %" PRIu64 ", \"truncated\": %s,\n   \"lat_ns\": ", l->nb_wr,
		l->nb_incomplete, l->report_div, l->capacity, l->unlogged,
		l->truncated ? "true" : "false");
	json_lat(f, &lat);
	/* complete_ns - post_ns of every completed WR, in post order, as logged */
	fputs(",\n   \"wr_ns\": [", f);
	for (i = 0; i < l->nb_wr; i++) {
		if (l->wr[i].complete_ns == 0)
			continue;
		fprintf(f, "%s%" PRIu64, k == 0 ? "" : (k % 16 == 0 ? ",\n    " : ", "),
			l->wr[i].complete_ns - l->wr[i].post_ns);
		k++;
	}
	fputs("]}", f);
}

void
flows_json_write(FILE *f, struct rdx_wrlog **logs, unsigned int nb_logs,
		 const struct rdx_flow *fl, unsigned int n, const struct rdx_flows_run *run)
{
	unsigned int i;
	uint64_t k;

	fputs("{\"rdx_flows\": 1,\n \"units\": {\"wr_ns\": \"complete_ns - post_ns of each completed"
	      " WR, ns, as logged (the report shows it / report_div)\", \"lat_ns\": \"ns, / report_div"
	      "\", \"gbps\": \"10^9 bits per second\", \"mbytes_per_s\": \"10^6 bytes per second\",\n"
	      "  \"capacity\": \"WRs a log holds (rdx-perf, per lcore); 0: not recorded\"},\n"
	      " \"logs\": [\n", f);
	for (i = 0; i < nb_logs; i++) {
		json_log(f, logs[i]);
		fputs(i + 1 < nb_logs ? ",\n" : "\n", f);
	}
	fputs(" ],\n \"shared_device\": ", f);
	if (run == NULL) {
		fputs("null, \"analysis\": null, \"windows\": null}\n", f);
		return;
	}
	fputs(run->not_shared == NULL ? "true" : "false", f);
	fputs(", \"not_shared_reason\": ", f);
	if (run->not_shared != NULL)
		json_str(f, run->not_shared);
	else
		fputs("null", f);
	fprintf(f, ",\n \"analysis\": {\"first_post_ns\": %" PRIu64 ", \"t0_ns\": %" PRIu64
		", \"t1_ns\": %" PRIu64 ", \"interval_s\": ", run->tmin, run->t0, run->t1);
	json_num(f, run->secs);
	fprintf(f, ", \"first_to_finish\": %u, \"latest_start\": %u, \"jain\": ", run->first,
		run->latest);
	if (run->jain >= 0.0)
		json_num(f, run->jain);
	else
		fputs("null", f);
	fprintf(f, ", \"total_bytes\": %" PRIu64 ",\n  \"flows\": [\n", run->total_bytes);
	for (i = 0; i < n; i++) {
		fputs("   {\"label\": ", f);
		json_str(f, fl[i].label);
		fprintf(f, ", \"log\": %u, \"ops\": %zu, \"incomplete\": %zu, \"ops_by_first_finish\": %"
			PRIu64 ", \"bytes_by_first_finish\": %" PRIu64 ", \"ops_in_interval\": %" PRIu64
			", \"bytes_in_interval\": %" PRIu64 ", \"mbytes_per_s\": ", fl[i].log_idx,
			fl[i].nb_wr, fl[i].nb_incomplete, fl[i].ops_by_t1, fl[i].bytes_by_t1,
			fl[i].ops_in, fl[i].bytes_in);
		json_num(f, fl[i].mbytes_per_s);
		fputs(", \"share\": ", f);
		json_num(f, fl[i].share);
		fputs(", \"lat_ns\": ", f);
		json_lat(f, &fl[i].lat);
		fputs(i + 1 < n ? "},\n" : "}\n", f);
	}
	fputs("  ]},\n \"windows\": ", f);
	if (run->win_bytes == NULL) {
		fputs("null}\n", f);
		return;
	}
	fputs("{\"window_ms\": ", f);
	json_num(f, run->window_ms);
	fputs(", \"columns\": [\"window\", \"start_ms\", \"end_ms\", \"common\"", f);
	for (i = 0; i < n; i++)
		fputs(", \"gbps\"", f);
	fputs("],\n  \"rows\": [\n", f);
	for (k = 0; k < run->nwin; k++) {
		fprintf(f, "   [%" PRIu64 ", %.6f, %.6f, %d", k, (double)(k * run->w_ns) / 1e6,
			(double)((k + 1) * run->w_ns) / 1e6, win_common(run, k));
		for (i = 0; i < n; i++)
			fprintf(f, ", %.6f", win_gbps(run, n, k, i));
		fputs(k + 1 < run->nwin ? "],\n" : "]\n", f);
	}
	fputs("  ]}}\n", f);
}

