/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx-flows: fairness of flows that ran at the same time, from the
 * per-work-request logs rdx-perf writes with -o FILE (read by lib/stats'
 * rdx_wrlog_read, the one parser of that format: rdx_wrlog.h).
 *
 * The procedure (that of the modified-perftest fairness studies, automated):
 *   1. the flow that finished first is the one with the earliest last
 *      completion; its last completion is T1;
 *   2. every other flow's ops and bytes completed by T1 are counted;
 *   3. the common interval is (T0, T1], T0 being the latest first post (all
 *      flows are running in it); a flow's bandwidth is the bytes it
 *      completed in that interval over its length, its share that over the
 *      sum of all flows';
 *   4. Jain's fairness index over those bandwidths: (sum x)^2 / (n sum x^2),
 *      1 when all are equal, 1/n when one flow has everything.
 * --window MS: every flow's bandwidth per window (start, start + MS] from
 * the earliest first post too; --by-qp: every QP of every log is a flow.
 *
 * The index is a figure of a shared link only when the flows shared one:
 * when the logs say they ran on different devices (dev=, or dev_id=: for
 * the software device the model instance of the process) or hosts, or do
 * not say which (logs of an older rdx-perf), one warning line on stderr
 * says so (rdx_wrlog_not_shared) and everything is still computed.
 *
 * Latency columns are (complete_ns - post_ns) / report_div, as rdx-perf's
 * report shows them. A cut log (unlogged= above 0) ends before its flow
 * did, so "first to finish" would be wrong: refused (exit 2) unless
 * --allow-truncated, which analyses what was logged and flags it.
 *
 * --json FILE writes what was read and computed, for other tools (rdx-plot
 * reads it instead of parsing logs): every log's header fields, counts and
 * per-WR latencies, the analysis and the windows. --parse-only reads and
 * writes the logs only (one log is enough, cut logs are flagged, not
 * refused). CSV goes through lib/stats' writer (rdx_report_csv_field).
 * Exit status: 2 for bad input, 1 for an I/O failure.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rte_errno.h>

#include "rdx_hist.h"
#include "rdx_report.h"
#include "rdx_wrlog.h"

#include "flows.h"

#define RDX_FLOWS_EXIT_BAD 2
#define RDX_FLOWS_EXIT_IO 1
#define RDX_FLOWS_MAX_WINDOWS 1000000u
#define RDX_FLOWS_MAX_CELLS 10000000u   /* windows x flows */

static const char *prog = "rdx-flows";

/* One line on stderr, then exit with code. */
static void __attribute__((noreturn, format(printf, 2, 0)))
vdie(int code, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	exit(code);
}

/* Bad input: exit 2. */
static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie(RDX_FLOWS_EXIT_BAD, fmt, ap);
}

/* An I/O failure (not bad input): exit 1. */
static void __attribute__((noreturn, format(printf, 1, 2)))
die_io(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie(RDX_FLOWS_EXIT_IO, fmt, ap);
}

/* *sum += v, refused when it would wrap (a figure from a wrapped sum is wrong). */
static void
add_bytes(uint64_t *sum, uint64_t v, const char *what)
{
	if (__builtin_add_overflow(*sum, v, sum))
		die("%s: the byte total overflows 64 bits", what);
}

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: %s [--window MS] [--csv FILE] [--json FILE] [--by-qp] [--allow-truncated]\n"
		"       %*s LOG LOG...\n"
		"       %s --parse-only --json FILE LOG...\n"
		"  Fairness of flows that ran at the same time, from rdx-perf -o logs:\n"
		"  each flow's bandwidth and share over the common interval (latest first\n"
		"  post .. first finish), ops/bytes done when the first flow finished, and\n"
		"  Jain's fairness index (a warning line when the logs did not share a device).\n"
		"  -w, --window MS  also the bandwidth of every flow per MS-ms window\n"
		"  -c, --csv FILE   write the per-window table (with --window) or else the\n"
		"                   per-flow table as CSV to FILE\n"
		"  -j, --json FILE  write the logs as read (header fields, per-WR latencies),\n"
		"                   the analysis and the windows as JSON to FILE\n"
		"  -p, --parse-only read the logs and write --json only (one log is enough)\n"
		"  -q, --by-qp      every QP of every log is a flow of its own\n"
		"  -t, --allow-truncated\n"
		"                   analyse logs rdx-perf cut at its capacity (refused\n"
		"                   otherwise) and flag them: their end is not their finish\n"
		"  -h, --help       this text\n"
		"  Bad input: one line on stderr, exit status 2 (1: stdout or FILE cannot be\n"
		"  written).\n", prog, (int)strlen(prog), "", prog);
}

/* 0, or the errno of a failed write to f (EIO when the failure is past). */
static int
out_error(FILE *f)
{
	errno = 0;
	if (fflush(f) != 0)
		return errno != 0 ? errno : EIO;
	return ferror(f) ? EIO : 0;
}

static FILE *
out_open(const char *path)
{
	FILE *f = fopen(path, "w");

	if (f == NULL)
		die("%s: cannot create: %s", path, strerror(errno));
	return f;
}

/* Close an output file; a write error (disk full) is an I/O failure: exit 1. */
static void
out_close(FILE *f, const char *path)
{
	int err = out_error(f);

	if (fclose(f) != 0 && err == 0)
		err = errno;
	if (err != 0)
		die_io("%s: write error: %s", path, strerror(err));
}

/* A log cut at its capacity: refused unless --allow-truncated. */
static void
check_cut(const struct rdx_wrlog *l, bool allow)
{
	if (!l->truncated || allow)
		return;
	if (l->unlogged > 0)
		die("%s: the log was cut at its capacity of %" PRIu64 " WRs (%" PRIu64 " more were"
		    " not logged): its last completion is not the flow's finish; rerun with fewer"
		    " ops (-n, -D) or pass --allow-truncated", l->path, l->capacity, l->unlogged);
	die("%s: %u WRs, the capacity of rdx-perf's log before it recorded one: probably cut,"
	    " so its last completion may not be the flow's finish; pass --allow-truncated to"
	    " analyse it anyway", l->path, RDX_WRLOG_OLD_CAP);
}

static char *
label_dup(const char *s)
{
	char *d = strdup(s);

	if (d == NULL)
		die("out of memory");
	return d;
}

static void
flow_stats(struct rdx_flow *fl, uint64_t t0, uint64_t t1)
{
	size_t i;

	fl->first_post = fl->wr[0].post_ns;
	fl->last_complete = 0;
	for (i = 0; i < fl->nb_wr; i++) {
		const struct rdx_wrlog_wr *w = &fl->wr[i];

		if (w->complete_ns == 0)     /* never completed */
			continue;
		if (w->complete_ns > fl->last_complete)
			fl->last_complete = w->complete_ns;
		if (t1 == 0 || w->complete_ns > t1)
			continue;
		fl->ops_by_t1++;
		add_bytes(&fl->bytes_by_t1, w->bytes, fl->log->path);
		if (w->complete_ns > t0) {
			fl->ops_in++;
			add_bytes(&fl->bytes_in, w->bytes, fl->log->path);
		}
	}
	if (t1 != 0)   /* every completed op, as the report */
		flows_lat_summary(fl->wr, fl->nb_wr, fl->log->report_div, UINT64_MAX, &fl->lat);
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The flows: one per log, or (--by-qp) one per (log, QP), labelled <label>.qp<N>. */
static struct rdx_flow *
make_flows(struct rdx_wrlog **logs, unsigned int nb_logs, bool by_qp, unsigned int *n_out)
{
	struct rdx_flow *out = NULL;
	unsigned int i, n = 0;
	size_t j, k, nq;
	uint32_t *qps;

	for (i = 0; i < nb_logs; i++) {
		const struct rdx_wrlog *l = logs[i];

		qps = malloc((by_qp ? l->nb_wr : 1) * sizeof(*qps));
		if (qps == NULL)
			die("out of memory");
		for (j = 0; by_qp && j < l->nb_wr; j++)
			qps[j] = l->wr[j].qp;
		if (by_qp)
			qsort(qps, l->nb_wr, sizeof(*qps), cmp_u32);
		for (j = 0, nq = 0; by_qp && j < l->nb_wr; j++)
			if (j == 0 || qps[j] != qps[nq - 1])
				qps[nq++] = qps[j];
		if (!by_qp)
			nq = 1;   /* the log is the flow */
		out = realloc(out, (n + nq) * sizeof(*out));
		if (out == NULL)
			die("out of memory");
		for (k = 0; k < nq; k++) {
			struct rdx_flow *f = &out[n++];

			memset(f, 0, sizeof(*f));
			f->log = l;
			f->log_idx = i;
			if (!by_qp) {
				f->label = label_dup(rdx_wrlog_label(l));
				f->wr = l->wr;
				f->nb_wr = l->nb_wr;
				f->nb_incomplete = l->nb_incomplete;
				continue;
			}
			if (asprintf(&f->label, "%s.qp%" PRIu32, rdx_wrlog_label(l), qps[k]) < 0)
				die("out of memory");
			f->own_wr = true;
			f->wr = malloc(l->nb_wr * sizeof(*f->wr));
			if (f->wr == NULL)
				die("out of memory");
			for (j = 0; j < l->nb_wr; j++) {
				if (l->wr[j].qp != qps[k])
					continue;
				f->wr[f->nb_wr++] = l->wr[j];
				f->nb_incomplete += l->wr[j].complete_ns == 0;
			}
			if (f->nb_incomplete == f->nb_wr)
				die("%s: none of the %zu work requests of QP %" PRIu32 " completed",
				    l->path, f->nb_wr, qps[k]);
		}
		free(qps);
	}
	*n_out = n;
	return out;
}

static double
parse_window(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !isfinite(v) || v <= 0.0)
		die("--window: expected a positive number of milliseconds, got \"%s\"", s);
	if (v * 1e6 < 1.0)
		die("--window: %s ms is below a nanosecond", s);
	if (v * 1e6 > 9e18)
		die("--window: %s ms is over 2^63 ns", s);
	return v;
}

/* The bytes every flow completed in every window (run->win_bytes). */
static void
count_windows(struct rdx_flow *fl, unsigned int n, struct rdx_flows_run *run)
{
	uint64_t span, k;
	unsigned int i;
	size_t j;

	run->w_ns = (uint64_t)llround(run->window_ms * 1e6);
	run->nwin = run->tmax == run->tmin ? 1 : (run->tmax - run->tmin - 1) / run->w_ns + 1;
	if (run->nwin > RDX_FLOWS_MAX_WINDOWS)
		die("--window %g ms gives %" PRIu64 " windows (at most %u): use a larger window",
		    run->window_ms, run->nwin, RDX_FLOWS_MAX_WINDOWS);
	if (run->nwin * n > RDX_FLOWS_MAX_CELLS)
		die("--window %g ms: %" PRIu64 " windows x %u flows is too large a table (at most %u"
		    " cells): use a larger window", run->window_ms, run->nwin, n, RDX_FLOWS_MAX_CELLS);
	if (__builtin_mul_overflow(run->nwin, run->w_ns, &span) || span > UINT64_MAX - run->tmin)
		die("--window %g ms: the last window ends past 2^64 ns", run->window_ms);
	run->win_bytes = calloc(run->nwin * n, sizeof(*run->win_bytes));
	if (run->win_bytes == NULL)
		die("out of memory for %" PRIu64 " windows", run->nwin);
	for (i = 0; i < n; i++) {
		for (j = 0; j < fl[i].nb_wr; j++) {
			uint64_t c = fl[i].wr[j].complete_ns;

			if (c == 0)
				continue;
			k = c == run->tmin ? 0 : (c - run->tmin - 1) / run->w_ns;
			add_bytes(&run->win_bytes[k * n + i], fl[i].wr[j].bytes, fl[i].log->path);
		}
	}
}

static void
print_windows(struct rdx_flow *fl, unsigned int n, const struct rdx_flows_run *run,
	      const char *csv)
{
	unsigned int i;
	FILE *f = NULL;
	uint64_t k;

	if (csv != NULL) {
		f = out_open(csv);
		fputs("window,start_ms,end_ms,common", f);
		for (i = 0; i < n; i++) {
			char *col;

			if (asprintf(&col, "%s_gbps", fl[i].label) < 0)
				die("out of memory");
			fputc(',', f);
			rdx_report_csv_field(f, col);
			free(col);
		}
		fputs(",total_gbps\n", f);
	}
	printf("\nbandwidth per %g ms window, Gb/s (windows (start, end] in ms from the first post;"
	       " * = inside the common interval)\n", run->window_ms);
	printf(" %7s %12s %12s  ", "window", "start_ms", "end_ms");
	for (i = 0; i < n; i++)
		printf(" %12.12s", fl[i].label);
	printf(" %12s\n", "total");
	for (k = 0; k < run->nwin; k++) {
		double s = (double)(k * run->w_ns) / 1e6, e = (double)((k + 1) * run->w_ns) / 1e6;
		double total = 0.0, g;
		bool common = win_common(run, k);

		printf(" %7" PRIu64 " %12.3f %12.3f %c", k, s, e, common ? '*' : ' ');
		if (f != NULL)
			fprintf(f, "%" PRIu64 ",%.6f,%.6f,%d", k, s, e, common);
		for (i = 0; i < n; i++) {
			g = win_gbps(run, n, k, i);
			total += g;
			printf(" %12.3f", g);
			if (f != NULL)
				fprintf(f, ",%.6f", g);
		}
		printf(" %12.3f\n", total);
		if (f != NULL)
			fprintf(f, ",%.6f\n", total);
	}
	if (f != NULL)
		out_close(f, csv);
}

static void
write_flow_csv(const struct rdx_flow *fl, unsigned int n, const char *csv, double secs)
{
	unsigned int i;
	FILE *f = out_open(csv);

	fputs("flow,label,file,ops,ops_by_first_finish,bytes_by_first_finish,ops_in_interval,"
	      "bytes_in_interval,interval_s,mbytes_per_s,gbits_per_s,share_pct,lat_p50_ns,"
	      "lat_p99_ns,lat_max_ns,truncated\n", f);
	for (i = 0; i < n; i++) {
		fprintf(f, "%u,", i);
		rdx_report_csv_field(f, fl[i].label);
		fputc(',', f);
		rdx_report_csv_field(f, fl[i].log->path);
		fprintf(f, ",%zu,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.9f,%.6f,%.6f,%.4f,"
			"%.1f,%.1f,%.1f,%d\n", fl[i].nb_wr, fl[i].ops_by_t1, fl[i].bytes_by_t1,
			fl[i].ops_in, fl[i].bytes_in, secs, fl[i].mbytes_per_s,
			fl[i].mbytes_per_s * 8e-3, 100.0 * fl[i].share, fl[i].lat.p50, fl[i].lat.p99,
			fl[i].lat.max, fl[i].log->truncated);
	}
	out_close(f, csv);
}

static void
json_out(const char *path, struct rdx_wrlog **logs, unsigned int nb_logs,
	 const struct rdx_flow *fl, unsigned int n, const struct rdx_flows_run *run)
{
	FILE *f = out_open(path);

	flows_json_write(f, logs, nb_logs, fl, n, run);
	out_close(f, path);
}

/* Two paths of one file (the same name, a link, ./name). */
static bool
same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

static void
print_flows(const struct rdx_flow *fl, unsigned int n, const struct rdx_flows_run *run)
{
	unsigned int i, nb_cut = 0;
	double sum = 0.0;

	printf("rdx-flows: %u flows; times from the first post (+0 s)\n", n);
	for (i = 0; i < n; i++) {
		const struct rdx_wrlog *l = fl[i].log;

		printf("  flow %u %-16s %s: %s\n", i, fl[i].label, l->path, l->header);
		printf("    latency columns: (complete_ns - post_ns) / %u, lat_kind %s (as rdx-perf's"
		       " report)\n", l->report_div, rdx_wrlog_field_get(l, "lat_kind") != NULL ?
		       rdx_wrlog_field_get(l, "lat_kind") : "-");
		if (fl[i].nb_incomplete > 0)
			printf("    %zu of %zu work requests never completed (complete_ns 0): left out\n",
			       fl[i].nb_incomplete, fl[i].nb_wr);
		if (l->truncated) {
			printf("    TRUNCATED: rdx-perf cut this log at %zu WRs", l->nb_wr);
			if (l->unlogged > 0)
				printf(" (%" PRIu64 " more not logged)", l->unlogged);
			printf(": its end is where the log stops, not where the flow finished\n");
			nb_cut++;
		}
	}
	printf("first to finish: flow %u (%s) at +%.6f s%s\n", run->first, fl[run->first].label,
	       (double)(run->t1 - run->tmin) / 1e9, fl[run->first].log->truncated ?
	       " [TRUNCATED log: the end of its log; the flow ran on]" : "");
	if (nb_cut > 0)
		printf("TRUNCATED: %u of %u logs were cut (--allow-truncated): the common interval"
		       " ends where the first log does, and every figure below covers only what"
		       " was logged\n", nb_cut, n);
	printf("common interval: +%.6f s .. +%.6f s = %.6f s (from the latest first post, flow %u"
	       " (%s), to the first finish)\n", (double)(run->t0 - run->tmin) / 1e9,
	       (double)(run->t1 - run->tmin) / 1e9, run->secs, run->latest, fl[run->latest].label);
	printf("\n %4s %-16s %12s %14s %16s %12s %16s %12s %10s %8s %10s %10s\n", "flow", "label",
	       "ops", "ops@finish", "bytes@finish", "ops_in", "bytes_in", "MB/s(1e6)", "Gb/s(1e9)",
	       "share%", "p50_us", "p99_us");
	for (i = 0; i < n; i++) {
		sum += fl[i].mbytes_per_s;
		printf(" %4u %-16s %12zu %14" PRIu64 " %16" PRIu64 " %12" PRIu64 " %16" PRIu64
		       " %12.3f %10.4f %8.2f %10.2f %10.2f\n", i, fl[i].label, fl[i].nb_wr,
		       fl[i].ops_by_t1, fl[i].bytes_by_t1, fl[i].ops_in, fl[i].bytes_in,
		       fl[i].mbytes_per_s, fl[i].mbytes_per_s * 8e-3, 100.0 * fl[i].share,
		       fl[i].lat.p50 / 1e3, fl[i].lat.p99 / 1e3);
	}
	printf(" %4s %-16s %12s %14s %16s %12s %16" PRIu64 " %12.3f %10.4f %8.2f\n", "", "total",
	       "", "", "", "", run->total_bytes, sum, sum * 8e-3,
	       run->total_bytes == 0 ? 0.0 : 100.0);
	if (run->jain >= 0.0)
		printf("\nJain's fairness index: %.6f (1 = equal shares, %.6f = one flow has all)%s\n",
		       run->jain, 1.0 / (double)n, run->not_shared != NULL ?
		       " [the logs need not have shared a device: see the warning]" : "");
	else
		printf("\nJain's fairness index: n/a (no bytes completed in the common interval)\n");
}

/* The common interval, every flow's figures and Jain's index. */
static void
analyse(struct rdx_flow *fl, unsigned int n, struct rdx_flows_run *run)
{
	double sum = 0.0, sum_sq = 0.0;
	unsigned int i;

	run->t0 = 0;
	run->t1 = UINT64_MAX;
	run->tmin = UINT64_MAX;
	run->tmax = 0;
	for (i = 0; i < n; i++) {
		flow_stats(&fl[i], 0, 0);        /* first post, last completion */
		if (fl[i].last_complete < run->t1) {
			run->t1 = fl[i].last_complete;
			run->first = i;
		}
		if (fl[i].first_post > run->t0) {
			run->t0 = fl[i].first_post;
			run->latest = i;
		}
		if (fl[i].first_post < run->tmin)
			run->tmin = fl[i].first_post;
		if (fl[i].last_complete > run->tmax)
			run->tmax = fl[i].last_complete;
	}
	if (run->t1 <= run->t0)
		die("the flows never all ran at once: %s finished at +%.6f s, before %s started at"
		    " +%.6f s", fl[run->first].label, (double)(run->t1 - run->tmin) / 1e9,
		    fl[run->latest].label, (double)(run->t0 - run->tmin) / 1e9);
	run->secs = (double)(run->t1 - run->t0) / 1e9;
	for (i = 0; i < n; i++) {
		flow_stats(&fl[i], run->t0, run->t1);
		add_bytes(&run->total_bytes, fl[i].bytes_in, "the flows together");
		fl[i].mbytes_per_s = (double)fl[i].bytes_in / run->secs / 1e6;
		sum += fl[i].mbytes_per_s;
		sum_sq += fl[i].mbytes_per_s * fl[i].mbytes_per_s;
	}
	for (i = 0; i < n; i++)
		fl[i].share = run->total_bytes == 0 ? 0.0 :
			(double)fl[i].bytes_in / (double)run->total_bytes;
	run->jain = sum_sq > 0.0 ? sum * sum / ((double)n * sum_sq) : -1.0;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "window", required_argument, NULL, 'w' },
		{ "csv", required_argument, NULL, 'c' },
		{ "json", required_argument, NULL, 'j' },
		{ "parse-only", no_argument, NULL, 'p' },
		{ "by-qp", no_argument, NULL, 'q' },
		{ "allow-truncated", no_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rdx_flows_run run = { .first = 0 };
	const char *csv = NULL, *json = NULL;
	bool by_qp = false, parse_only = false, allow_truncated = false;
	unsigned int n, nb_logs, i, j;
	struct rdx_wrlog **logs;
	struct rdx_flow *fl;
	char err[1024], why[1024];
	int c;

	opterr = 0;   /* our own one-line messages */
	while ((c = getopt_long(argc, argv, ":w:c:j:pqth", longopts, NULL)) != -1) {
		switch (c) {
		case 'w':
			run.window_ms = parse_window(optarg);
			break;
		case 'c':
			csv = optarg;
			break;
		case 'j':
			json = optarg;
			break;
		case 'p':
			parse_only = true;
			break;
		case 'q':
			by_qp = true;
			break;
		case 't':
			allow_truncated = true;
			break;
		case 'h':
			usage(stdout);
			c = out_error(stdout);
			if (c != 0)
				die_io("stdout: write error: %s", strerror(c));
			return 0;
		case ':':
			die("option %s needs a value (see %s --help)", argv[optind - 1], prog);
		default:
			die("unknown option %s (see %s --help)", argv[optind - 1], prog);
		}
	}
	if (parse_only && json == NULL)
		die("--parse-only writes --json FILE only: give --json");
	if (parse_only && (csv != NULL || run.window_ms > 0.0 || by_qp))
		die("--parse-only reads the logs only: --csv, --window and --by-qp need the analysis");
	if (argc - optind < (by_qp || parse_only ? 1 : 2))
		die("need at least 2 logs (flows that ran at the same time), got %d", argc - optind);
	nb_logs = (unsigned int)(argc - optind);
	logs = calloc(nb_logs, sizeof(*logs));
	if (logs == NULL)
		die("out of memory");
	for (i = 0; i < nb_logs; i++) {
		const char *path = argv[optind + (int)i];

		/* one file twice is not two flows that ran together */
		for (j = 0; j < i; j++)
			if (same_file(logs[j]->path, path))
				die("%s and %s are the same file: give each flow's log once",
				    logs[j]->path, path);
		/* an output over a log would destroy it */
		if (csv != NULL && same_file(csv, path))
			die("--csv %s is the log %s: it would be overwritten", csv, path);
		if (json != NULL && same_file(json, path))
			die("--json %s is the log %s: it would be overwritten", json, path);
		logs[i] = rdx_wrlog_read(path, err, sizeof(err));
		if (logs[i] == NULL) {
			if (rte_errno == EIO)
				die_io("%s", err);
			die("%s", err[0] != '\0' ? err : "out of memory");
		}
		if (!parse_only)
			check_cut(logs[i], allow_truncated);
	}
	if (parse_only) {
		json_out(json, logs, nb_logs, NULL, 0, NULL);
		for (i = 0; i < nb_logs; i++)
			rdx_wrlog_free(logs[i]);
		free(logs);
		return 0;
	}
	fl = make_flows(logs, nb_logs, by_qp, &n);
	if (by_qp && n < 2)
		die("--by-qp: need at least 2 QPs in all, found %u", n);
	analyse(fl, n, &run);
	run.not_shared = rdx_wrlog_not_shared(logs, nb_logs, why, sizeof(why));
	if (run.window_ms > 0.0)
		count_windows(fl, n, &run);
	if (run.not_shared != NULL && run.jain >= 0.0)
		fprintf(stderr, "%s: warning: %s: Jain's index compares flows that may not have"
			" competed for one link\n", prog, run.not_shared);
	print_flows(fl, n, &run);
	if (run.window_ms > 0.0)
		print_windows(fl, n, &run, csv);
	else if (csv != NULL)
		write_flow_csv(fl, n, csv, run.secs);
	if (json != NULL)
		json_out(json, logs, nb_logs, fl, n, &run);
	for (i = 0; i < n; i++) {
		if (fl[i].own_wr)
			free(fl[i].wr);
		free(fl[i].label);
	}
	free(fl);
	free(run.win_bytes);
	for (i = 0; i < nb_logs; i++)
		rdx_wrlog_free(logs[i]);
	free(logs);
	c = out_error(stdout);
	if (c != 0)
		die_io("stdout: write error: %s", strerror(c));
	return 0;
}
