/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Benchmark reports, human output: the perftest-like table (with the
 * device banner and every knob) and clusterperf-style lines.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>

#include "rdx_config.h"
#include "rdx_perf.h"
#include "rdx_report.h"
#include "rdx_report_priv.h"

/* ---------------------------------------------------------------- status */

/*
 * How the benchmark ended, after a table: " status: completed", or
 * interrupted / failed with the reason and the seconds measured; what CUT
 * means when rows are cut short; the runs not run. Each line starts with
 * lead.
 */
static void
rdx_report_status_lines(const struct rdx_report *r, FILE *f, unsigned int nb_cut,
			const char *lead)
{
	unsigned int i;

	fprintf(f, "%sstatus: %s", lead, rdx_report_status_name(r->status));
	if (r->reason != NULL && r->reason[0] != '\0')
		fprintf(f, ": %s", r->reason);
	if (r->status != RDX_REPORT_STATUS_COMPLETED && r->measured_s >= 0.0)
		fprintf(f, "; %.3f s measured", r->measured_s);
	fputc('\n', f);
	if (nb_cut > 0)
		fprintf(f, "%sCUT: %u row(s) ended by the %s before their run was done: they cover"
			" the part measured until then, not a full run\n", lead, nb_cut,
			r->status == RDX_REPORT_STATUS_FAILED ? "failure" : "interrupt");
	if (r->nb_not_run == 0)
		return;
	fprintf(f, "%snot run:", lead);
	for (i = 0; i < r->nb_not_run; i++) {
		const struct rdx_not_run *n = &r->not_run[i];

		fprintf(f, "%s %s %s size %" PRIu64 " B, %" PRIu32 " QP(s)", i > 0 ? ";" : "",
			n->test, n->mode, n->size, n->qps);
		if (n->offered_ops_per_s > 0)
			fprintf(f, ", %.0f ops/s offered", n->offered_ops_per_s);
	}
	fputc('\n', f);
}

/* ---------------------------------------------------------------- table */

static void
rdx_report_put_num(FILE *f, int width, int prec, double v)
{
	if (v < 0.0 || !isfinite(v))
		fprintf(f, " %*s", width, "-");
	else
		fprintf(f, " %*.*f", width, prec, v);
}

static void
rdx_report_banner(const struct rdx_report *r, FILE *f)
{
	const char *kind = rdx_report_knob_get(r, "device_kind");
	const char *dev = rdx_report_knob_get(r, "device");
	const char *model = rdx_report_knob_get(r, "device_model");

	if (dev == NULL)
		dev = rdx_report_knob_get(r, "dev");

	if (kind == NULL)
		return;
	if (strcmp(kind, "software device") == 0)
		fprintf(f, "*** results on the SOFTWARE mlx5 device (a model, not a NIC)%s%s%s%s ***\n",
			dev != NULL ? ": " : "", dev != NULL ? dev : "", model != NULL ? ", " : "",
			model != NULL ? model : "");
	else if (strcmp(kind, "hardware") == 0)
		fprintf(f, "*** results on HARDWARE%s%s ***\n",
			dev != NULL ? ": " : "", dev != NULL ? dev : "");
	else if (strcmp(kind, "software RDMA device") == 0)
		fprintf(f, "*** results on a SOFTWARE RDMA device of the kernel (rdma_rxe/siw, not a NIC)%s%s ***\n",
			dev != NULL ? ": " : "", dev != NULL ? dev : "");
	else
		fprintf(f, "*** results on: %s ***\n", kind);
}

int
rdx_report_print_table(const struct rdx_report *r, FILE *f, bool gbits)
{
	const char *line = "---------------------------------------------------------------"
		"---------------------------------------------------------------";
	size_t w = 0;
	unsigned int i, nb_short = 0, nb_cut = 0;
	char note[16];

	if (r == NULL || f == NULL)
		return -EINVAL;
	rdx_report_banner(r, f);
	fprintf(f, "%s\n", line);
	fprintf(f, " %s\n", r->title);
	for (i = 0; i < r->nb_knobs; i++)
		if (strlen(r->knobs[i].name) > w)
			w = strlen(r->knobs[i].name);
	for (i = 0; i < r->nb_knobs; i++)
		fprintf(f, " %-*s : %s\n", (int)w, r->knobs[i].name, r->knobs[i].value);
	fprintf(f, "%s\n", line);
	/* units in the names: MB = 10^6 bytes, Gb = 10^9 bits, Mop = 10^6 ops */
	fprintf(f, " %-8s %-4s %9s %5s %5s %12s %9s %10s", "test", "mode", "size_B", "lcore",
		"qps", "ops", "Mop/s", "MB/s(1e6)");
	if (gbits)
		fprintf(f, " %9s", "Gb/s(1e9)");
	fprintf(f, " %9s %9s %9s %9s %9s %9s %9s %9s %6s %9s %9s %9s %-8s %s\n",
		"min_us", "p50_us", "p90_us", "p99_us", "p99.9_us", "max_us", "mean_us", "stdev_us",
		"busy%", "cyc/op", "instr/op", "miss/op", "perf", "note");
	for (i = 0; i < r->nb_rows; i++) {
		const struct rdx_result *x = &r->rows[i];
		char lc[16];

		if (x->lcore == RDX_REPORT_LCORE_TOTAL)
			snprintf(lc, sizeof(lc), "total");
		else if (x->has_rank) /* rank.lcore (rdx-perf --pattern) */
			snprintf(lc, sizeof(lc), "%d.%d", x->rank, x->lcore);
		else
			snprintf(lc, sizeof(lc), "%d", x->lcore);
		fprintf(f, " %-8s %-4s %9" PRIu64 " %5s %5" PRIu32 " %12" PRIu64 " %9.3f %10.2f",
			x->test, x->mode, x->size, lc, x->qps, x->ops, x->mops, x->mbytes_per_s);
		if (gbits)
			fprintf(f, " %9.2f", x->gbits_per_s);
		if (x->has_lat) {
			rdx_report_put_num(f, 9, 2, x->lat.min / 1e3);
			rdx_report_put_num(f, 9, 2, x->lat.p50 / 1e3);
			rdx_report_put_num(f, 9, 2, x->lat.p90 / 1e3);
			rdx_report_put_num(f, 9, 2, x->lat.p99 / 1e3);
			rdx_report_put_num(f, 9, 2, x->lat.p999 / 1e3);
			rdx_report_put_num(f, 9, 2, x->lat.max / 1e3);
			rdx_report_put_num(f, 9, 2, x->lat.mean / 1e3);
			rdx_report_put_num(f, 9, 2, x->lat.stdev / 1e3);
		} else {
			fprintf(f, " %9s %9s %9s %9s %9s %9s %9s %9s", "-", "-", "-", "-", "-", "-",
				"-", "-");
		}
		rdx_report_put_num(f, 6, 1, x->busy_pct);
		if (x->has_perf) {
			rdx_report_put_num(f, 9, 1, x->perf.cycles);
			rdx_report_put_num(f, 9, 1, x->perf.instructions);
			rdx_report_put_num(f, 9, 3, x->perf.cache_misses);
		} else {
			fprintf(f, " %9s %9s %9s", "-", "-", "-");
		}
		note[0] = '\0';
		if (x->short_run || x->cut_short)
			snprintf(note, sizeof(note), "%s%s%s", x->short_run ? "SHORT" : "",
				 x->short_run && x->cut_short ? " " : "", x->cut_short ? "CUT" : "");
		if (note[0] != '\0')
			fprintf(f, " %-8s %s\n", x->has_perf ? rdx_perf_source_name(x->perf.source) :
				"-", note);
		else
			fprintf(f, " %s\n", x->has_perf ? rdx_perf_source_name(x->perf.source) : "-");
		nb_short += x->short_run;
		nb_cut += x->cut_short;
	}
	fprintf(f, "%s\n", line);
	{
		const char *kind = r->nb_rows > 0 ? r->rows[0].lat_kind : "";

		fprintf(f, " units: MB = 10^6 bytes, Gb = 10^9 bits, Mop/s = 10^6 ops/s; latency in us%s%s%s\n",
			kind[0] != '\0' ? " (" : "", rdx_report_lat_label(kind),
			kind[0] != '\0' ? ")" : "");
	}
	if (nb_short > 0)
		fprintf(f, " SHORT: %u row(s) measured over < %g s or < %u ops: one preemption can move"
			" them several times; run longer (-n / -D)\n", nb_short, RDX_REPORT_SHORT_S,
			RDX_REPORT_SHORT_OPS);
	rdx_report_status_lines(r, f, nb_cut, " ");
	return ferror(f) ? -EIO : 0;
}

/* ------------------------------------------------------ perftest's table */

#define RDX_MIB (1024.0 * 1024.0)

/* A line built piece by piece, written without trailing blanks. */
struct rdx_report_line {
	char buf[512];
	size_t len;
};

static void __attribute__((format(printf, 2, 3)))
rdx_report_line_add(struct rdx_report_line *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (l->len >= sizeof(l->buf))
		return;
	va_start(ap, fmt);
	n = vsnprintf(l->buf + l->len, sizeof(l->buf) - l->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->len = RTE_MIN(l->len + (size_t)n, sizeof(l->buf) - 1);
}

static void
rdx_report_line_put(struct rdx_report_line *l, FILE *f)
{
	while (l->len > 0 && l->buf[l->len - 1] == ' ')
		l->len--;
	fprintf(f, "%.*s\n", (int)l->len, l->buf);
	l->len = 0;
}

static void
rdx_report_compact_head(FILE *f, enum rdx_report_compact_kind kind, bool gbits, bool many_qps,
			bool many_tx, bool open_loop, bool cpu_util)
{
	struct rdx_report_line ln = { .len = 0 };

	if (kind == RDX_REPORT_COMPACT_BW)
		rdx_report_line_add(&ln, " %-10s %-14s %-20s %-22s %-14s", "#bytes", "#iterations",
				    gbits ? "BW peak[Gb/sec]" : "BW peak[MiB/sec]",
				    gbits ? "BW average[Gb/sec]" : "BW average[MiB/sec]",
				    "MsgRate[Mpps]");
	else
		rdx_report_line_add(&ln, " %-7s %-11s %-12s %-12s %-16s %-12s %-14s %-21s %-23s",
				    "#bytes", "#iterations", "t_min[usec]", "t_max[usec]",
				    "t_typical[usec]", "t_avg[usec]", "t_stdev[usec]",
				    "99% percentile[usec]", "99.9% percentile[usec]");
	if (many_qps)
		rdx_report_line_add(&ln, " %-5s", "#qps");
	if (many_tx)
		rdx_report_line_add(&ln, " %-9s", "#tx_depth");
	if (open_loop)
		rdx_report_line_add(&ln, " %-15s", "offered[ops/s]");
	if (open_loop && kind == RDX_REPORT_COMPACT_LAT)
		rdx_report_line_add(&ln, " %-14s", "MsgRate[Mpps]");
	/* perftest's --cpu_util column, last as in its table */
	if (cpu_util)
		rdx_report_line_add(&ln, " %-12s", "CPU_Util[%]");
	rdx_report_line_put(&ln, f);
}

static void
rdx_report_compact_line(FILE *f, const struct rdx_result *x, enum rdx_report_compact_kind kind,
			bool gbits, bool many_qps, bool many_tx, bool open_loop)
{
	struct rdx_report_line ln = { .len = 0 };

	if (kind == RDX_REPORT_COMPACT_BW) {
		double bw = x->seconds > 0 ? (double)x->bytes / x->seconds : 0;
		double pk = x->peak_bytes_per_s;
		char peak[32] = "-";

		if (pk > 0)
			snprintf(peak, sizeof(peak), "%.2f", gbits ? pk * 8 / 1e9 : pk / RDX_MIB);
		rdx_report_line_add(&ln, " %-10" PRIu64 " %-14" PRIu64 " %-20s %-22.2f %-14.6f",
				    x->size, x->ops, peak, gbits ? bw * 8 / 1e9 : bw / RDX_MIB, x->mops);
	} else if (x->has_lat) {
		rdx_report_line_add(&ln, " %-7" PRIu64 " %-11" PRIu64 " %-12.2f %-12.2f %-16.2f %-12.2f %-14.2f %-21.2f %-23.2f",
				    x->size, x->ops, x->lat.min / 1e3, x->lat.max / 1e3,
				    x->lat.p50 / 1e3, x->lat.mean / 1e3, x->lat.stdev / 1e3,
				    x->lat.p99 / 1e3, x->lat.p999 / 1e3);
	} else {
		rdx_report_line_add(&ln, " %-7" PRIu64 " %-11" PRIu64 " %-12s %-12s %-16s %-12s %-14s %-21s %-23s",
				    x->size, x->ops, "-", "-", "-", "-", "-", "-", "-");
	}
	if (many_qps)
		rdx_report_line_add(&ln, " %-5" PRIu32, x->qps);
	if (many_tx)
		rdx_report_line_add(&ln, " %-9" PRIu32, x->tx_depth);
	if (open_loop)
		rdx_report_line_add(&ln, " %-15.0f", x->offered_ops_per_s);
	if (open_loop && kind == RDX_REPORT_COMPACT_LAT)
		rdx_report_line_add(&ln, " %-14.6f", x->mops);
	/* unmeasured (< 0): 0.00 as perftest prints it; the footer says so */
	if (x->has_cpu_util)
		rdx_report_line_add(&ln, " %-12.2f", x->cpu_util_pct >= 0 ? x->cpu_util_pct : 0.0);
	rdx_report_line_add(&ln, "%s%s", x->short_run ? " SHORT" : "", x->cut_short ? " CUT" : "");
	rdx_report_line_put(&ln, f);
}

int
rdx_report_print_compact_head(FILE *f, enum rdx_report_compact_kind kind, bool gbits,
			      bool open_loop)
{
	if (f == NULL)
		return -EINVAL;
	rdx_report_compact_head(f, kind, gbits, false, false, open_loop, false);
	return ferror(f) ? -EIO : 0;
}

int
rdx_report_print_compact_row(const struct rdx_result *x, FILE *f,
			     enum rdx_report_compact_kind kind, bool gbits)
{
	if (x == NULL || f == NULL)
		return -EINVAL;
	rdx_report_compact_line(f, x, kind, gbits, false, false, x->offered_ops_per_s > 0);
	return ferror(f) ? -EIO : 0;
}

int
rdx_report_print_compact_stream(const struct rdx_report *r, FILE *f,
				enum rdx_report_compact_kind kind, bool gbits,
				struct rdx_report_compact_state *st, bool end)
{
	const char *line = "---------------------------------------------------------------"
		"------------------------------------------------------";
	const struct rdx_result *first = NULL;
	unsigned int i, nb_short = 0, nb_cut = 0, nb_nopeak = 0, nb_cpu = 0, nb_nocpu = 0, nb_cas = 0;
	uint64_t cas_ok = 0, cas_fail = 0;

	if (r == NULL || f == NULL || st == NULL)
		return -EINVAL;
	if (!st->started) {
		rdx_report_banner(r, f);
		fprintf(f, "%s\n", line);
		rdx_report_compact_head(f, kind, gbits, st->many_qps, st->many_tx_depth, st->open_loop,
					st->cpu_util);
		st->started = true;
	}
	for (i = st->next; i < r->nb_rows; i++) {
		const struct rdx_result *x = &r->rows[i];

		if (x->lcore == RDX_REPORT_LCORE_TOTAL)
			rdx_report_compact_line(f, x, kind, gbits, st->many_qps, st->many_tx_depth,
						st->open_loop);
	}
	st->next = r->nb_rows;
	if (!end)
		return ferror(f) ? -EIO : 0;
	for (i = 0; i < r->nb_rows; i++) {
		const struct rdx_result *x = &r->rows[i];

		if (x->lcore != RDX_REPORT_LCORE_TOTAL)
			continue;
		if (first == NULL)
			first = x;
		nb_short += x->short_run;
		nb_cut += x->cut_short;
		nb_nopeak += x->peak_bytes_per_s <= 0;
		nb_cpu += x->has_cpu_util;
		nb_nocpu += x->has_cpu_util && x->cpu_util_pct < 0;
		nb_cas += x->has_cas;
		cas_ok += x->has_cas ? x->cas_ok : 0;
		cas_fail += x->has_cas ? x->cas_fail : 0;
	}
	fprintf(f, "%s\n", line);
	if (first != NULL && kind == RDX_REPORT_COMPACT_LAT)
		fprintf(f, " latency: %s%s\n", rdx_report_lat_label(first->lat_kind),
			st->open_loop ? ", from each op's intended send time (open loop)" : "");
	if (kind == RDX_REPORT_COMPACT_BW)
		fprintf(f, " %s; MsgRate: 10^6 ops/s; BW peak: size / the shortest time per op from a post to a later completion%s\n",
			gbits ? "Gb = 10^9 bits" : "MiB = 2^20 bytes", nb_nopeak ? " (-: not measured)" : "");
	if (nb_cpu > 0)
		fprintf(f, " CPU_Util: user / (user + idle) time of the measuring lcores' CPUs (/proc/stat)%s\n",
			nb_nocpu > 0 ? "; 0.00: the run was too short for the kernel's clock ticks (run with -D)" : "");
	if (nb_cas > 0)
		fprintf(f, " CAS: %" PRIu64 " swapped, %" PRIu64 " failed (the key no longer held the compare value)%s\n",
			cas_ok, cas_fail, nb_cas > 1 ? ", all rows" : "");
	if (nb_short > 0)
		fprintf(f, " SHORT: %u row(s) measured over < %g s or < %u ops: run longer (-n / -D)\n",
			nb_short, RDX_REPORT_SHORT_S, RDX_REPORT_SHORT_OPS);
	rdx_report_status_lines(r, f, nb_cut, " ");
	return ferror(f) ? -EIO : 0;
}

int
rdx_report_print_compact(const struct rdx_report *r, FILE *f,
			 enum rdx_report_compact_kind kind, bool gbits)
{
	struct rdx_report_compact_state st = { 0 };
	const struct rdx_result *first = NULL;
	unsigned int i;

	if (r == NULL || f == NULL)
		return -EINVAL;
	for (i = 0; i < r->nb_rows; i++) {
		const struct rdx_result *x = &r->rows[i];

		if (x->lcore != RDX_REPORT_LCORE_TOTAL)
			continue;
		if (first == NULL)
			first = x;
		st.many_qps |= x->qps != first->qps;
		st.open_loop |= x->offered_ops_per_s > 0;
		st.cpu_util |= x->has_cpu_util;
		st.many_tx_depth |= x->tx_depth != first->tx_depth;
	}
	return rdx_report_print_compact_stream(r, f, kind, gbits, &st, true);
}

int
rdx_report_print_status(const struct rdx_report *r, FILE *f, const char *lead)
{
	unsigned int i, nb_cut = 0;

	if (r == NULL || f == NULL)
		return -EINVAL;
	for (i = 0; i < r->nb_rows; i++)
		nb_cut += r->rows[i].cut_short && r->rows[i].lcore == RDX_REPORT_LCORE_TOTAL;
	rdx_report_status_lines(r, f, nb_cut, lead != NULL ? lead : "");
	return ferror(f) ? -EIO : 0;
}

/* ---------------------------------------------------------- clusterperf */

/* A time in ns as value + unit (ns, us, ms, s). */
static void
rdx_report_time_unit(double ns, double *v, const char **unit)
{
	if (ns < 1e3) {
		*v = ns;
		*unit = "ns";
	} else if (ns < 1e6) {
		*v = ns / 1e3;
		*unit = "us";
	} else if (ns < 1e9) {
		*v = ns / 1e6;
		*unit = "ms";
	} else {
		*v = ns / 1e9;
		*unit = "s";
	}
}

/* A bandwidth in bytes/s as value + unit (decimal: 1 KB = 1000 B). */
static void
rdx_report_bw_unit(double bps, double *v, const char **unit)
{
	if (bps < 1e3) {
		*v = bps;
		*unit = "B/s";
	} else if (bps < 1e6) {
		*v = bps / 1e3;
		*unit = "KB/s";
	} else if (bps < 1e9) {
		*v = bps / 1e6;
		*unit = "MB/s";
	} else {
		*v = bps / 1e9;
		*unit = "GB/s";
	}
}

static void
rdx_report_cp_line(FILE *f, const char *name, const char *suffix, double v, const char *unit,
		   const char *desc, const char *what, const char *kind, bool is_short, bool cut)
{
	char key[64];

	snprintf(key, sizeof(key), "%s.%s", name, suffix);
	fprintf(f, "%-24s %8.1f %-4s  %s%s%s%s%s%s%s%s\n", key, v, unit, desc,
		desc[0] != '\0' ? " " : "", what, kind[0] != '\0' ? " (" : "", kind,
		kind[0] != '\0' ? ")" : "", is_short ? " [SHORT]" : "", cut ? " [CUT]" : "");
}

int
rdx_report_print_clusterperf(const struct rdx_report *r, FILE *f)
{
	static const struct {
		const char *suffix;
		const char *what;
		size_t off;
	} pct[] = {
		{ "min", "minimum", offsetof(struct rdx_hist_summary, min) },
		{ "50", "median", offsetof(struct rdx_hist_summary, p50) },
		{ "90", "90%", offsetof(struct rdx_hist_summary, p90) },
		{ "99", "99%", offsetof(struct rdx_hist_summary, p99) },
		{ "999", "99.9%", offsetof(struct rdx_hist_summary, p999) },
		{ "9999", "99.99%", offsetof(struct rdx_hist_summary, p9999) },
		{ "max", "maximum", offsetof(struct rdx_hist_summary, max) },
	};
	unsigned int i, j, nb_cut = 0;
	const char *unit;
	double v;

	if (r == NULL || f == NULL)
		return -EINVAL;
	for (i = 0; i < r->nb_rows; i++) {
		const struct rdx_result *x = &r->rows[i];

		if (x->name[0] == '\0' || x->lcore != RDX_REPORT_LCORE_TOTAL)
			continue;
		if (x->has_lat && x->lat.count > 0) {
			for (j = 0; j < sizeof(pct) / sizeof(pct[0]); j++) {
				double ns;

				memcpy(&ns, (const char *)&x->lat + pct[j].off, sizeof(ns));
				rdx_report_time_unit(ns, &v, &unit);
				rdx_report_cp_line(f, x->name, pct[j].suffix, v, unit, x->desc,
						   pct[j].what, rdx_report_lat_label(x->lat_kind),
						   x->short_run, x->cut_short);
			}
		}
		if (x->mbytes_per_s > 0.0) {
			rdx_report_bw_unit(x->mbytes_per_s * 1e6, &v, &unit);
			rdx_report_cp_line(f, x->name, "bw", v, unit, x->desc, "bandwidth",
					   "decimal: 1 MB = 10^6 B", x->short_run, x->cut_short);
		}
		nb_cut += x->cut_short;
	}
	rdx_report_status_lines(r, f, nb_cut, "");
	return ferror(f) ? -EIO : 0;
}
