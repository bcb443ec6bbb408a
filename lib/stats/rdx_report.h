/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Benchmark reports: a set of knobs (every setting in force) and result
 * rows, written as a human table, clusterperf-style lines, JSON (jansson)
 * and CSV. A JSON report reads back with rdx_report_read_json.
 */
#ifndef RDX_REPORT_H
#define RDX_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rdx_hist.h"
#include "rdx_perf.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RDX_REPORT_LCORE_TOTAL (-1)
/**
 * A row measured over less than RDX_REPORT_SHORT_S seconds, or over fewer
 * than RDX_REPORT_SHORT_OPS ops (then p99.9 is the maximum), is flagged
 * short (rdx_result.short_run): one scheduler preemption (milliseconds on a
 * shared machine) moves such a row's rate and tail by several times
 * (measured: 2000 ops in ~1 ms swung 18x). The table marks it SHORT and the
 * JSON carries "short_run": true.
 */
#define RDX_REPORT_SHORT_S 0.1
#define RDX_REPORT_SHORT_OPS 1000

/** One result row: a test at one size, on one lcore (or the total). */
struct rdx_result {
	char test[24];             /**< "echo", "write", "read", "cas", ... */
	char mode[8];              /**< "lat" or "bw" */
	char name[32];             /**< clusterperf name prefix, e.g. "echo100" */
	char desc[96];             /**< clusterperf description, e.g. "send 30B message, receive 100B message" */
	/** what a latency measures: "rtt", "half-rtt" (round trip / 2, as
	 * perftest's ping-pong), "completion" (post to completion, bw mode), or
	 * with both ends on one lcore "loop-rtt/2 (one lcore)" / "rtt (one lcore)" */
	char lat_kind[32];
	uint64_t size;             /**< message size, bytes */
	int lcore;                 /**< lcore id or RDX_REPORT_LCORE_TOTAL */
	uint32_t qps;              /**< QPs this row covers */
	uint64_t ops;
	uint64_t bytes;
	double seconds;
	double mops;               /**< derived: ops / seconds / 1e6 */
	double mbytes_per_s;       /**< derived: bytes / seconds / 1e6 (MB/s) */
	double gbits_per_s;        /**< derived */
	/** perftest's BW peak: size over the shortest time per op of any run
	 * of ops from one post to a later completion, in bytes/s (rdx-perf's
	 * bandwidth runs); 0: not measured (the table prints "-") */
	double peak_bytes_per_s;
	bool has_lat;
	struct rdx_hist_summary lat; /**< ns */
	bool has_perf;
	struct rdx_perf_per_op perf;
	double busy_pct;           /**< lcore utilisation; < 0 when unknown */
	/** perftest's --cpu_util: the CPUs of the measuring lcores over the
	 * run, user / (user + idle) time of /proc/stat in percent (rdx_cpu.h);
	 * the compact table adds a CPU_Util[%] column, the JSON "cpu_util_pct";
	 * negative: asked for, not measurable (a run shorter than the clock
	 * ticks): the table prints 0.00 as perftest does, the JSON nothing */
	bool has_cpu_util;
	double cpu_util_pct;
	/** compare-and-swap rows: the swaps that took effect (the key held
	 * the compare value) and those that failed (another QP had changed
	 * it); the compact table's footer sums them, the JSON carries
	 * "cas_swapped" and "cas_failed" */
	bool has_cas;
	uint64_t cas_ok;
	uint64_t cas_fail;
	/** ops in flight per QP of the row (perftest's -t; rdx-perf
	 * --tx-depth-sweep); 0: not said. JSON "tx_depth" when set */
	uint32_t tx_depth;
	bool short_run;            /**< derived: seconds < RDX_REPORT_SHORT_S or ops < RDX_REPORT_SHORT_OPS */
	/** open loop: the offered rate in ops/s (latency then counts from each
	 * op's intended send time); 0: closed loop */
	double offered_ops_per_s;
	/** rows of a run across MPI ranks (rdx-perf --pattern, doc/cluster.md):
	 * the rank and host of the row (-1: the cluster total); JSON "rank" and
	 * "host", CSV columns rank and host when a row has them */
	bool has_rank;
	int rank;
	char host[64];
	/** the run ended before it was done (interrupted, or failed): the row
	 * covers only the part measured until then, not a full run. The table
	 * marks it CUT, the JSON carries "cut_short": true. */
	bool cut_short;
};

/**
 * Whether the benchmark behind a report ran to its end. Every output says
 * it: the table and clusterperf lines in a status line, the JSON in
 * "status" (and "status_reason", "measured_s"), the CSV in the run_status
 * and run_reason columns.
 */
enum rdx_report_status {
	RDX_REPORT_STATUS_COMPLETED = 0, /**< every run asked for ran to its end */
	RDX_REPORT_STATUS_INTERRUPTED,   /**< stopped by a signal (SIGINT, SIGTERM) */
	RDX_REPORT_STATUS_FAILED,        /**< ended by an error (the reason says which) */
};

/** A run that was asked for and has no row: never started, or stopped
 * before its first measurement (after an interrupt or a failure). */
struct rdx_not_run {
	char test[24];
	char mode[8];
	uint64_t size;             /**< message size, bytes */
	uint32_t qps;              /**< QPs per lcore it would have had */
	double offered_ops_per_s;  /**< open loop rate it would have offered; 0: closed loop */
};

/**
 * One non-empty latency histogram bucket of a row, in nanoseconds: count
 * values in [lo_ns, hi_ns) (the histogram's bucket, narrowed to the row's
 * min and max; values above the histogram's range form a last bucket
 * ending at max).
 */
struct rdx_lat_bucket {
	double lo_ns;
	double hi_ns;
	uint64_t count;
};

/** A short human label of a lat_kind for lines that show one figure:
 * "half RTT", "RTT", "post to completion", "half of a one-lcore loop"... */
const char *rdx_report_lat_label(const char *lat_kind);

struct rdx_report;

/** Create an empty report; title is a free-form line ("rdx-perf write"). NULL + rte_errno on error. */
struct rdx_report *rdx_report_create(const char *title);
void rdx_report_free(struct rdx_report *r);
/**
 * Record a knob (name -> value as text). A repeated name replaces the value;
 * knobs print in the order first set. Knob "device_kind" set to
 * "software device" makes the table open with a banner saying the figures
 * come from the software model of the mlx5 device, not a NIC ("hardware":
 * a HARDWARE banner); the banner names knob "device" (else "dev").
 * @return 0, -EINVAL or -ENOMEM.
 */
int rdx_report_knob_set(struct rdx_report *r, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *rdx_report_knob_get(const struct rdx_report *r, const char *name);
/** Append a row (copied); fills the derived fields (mops, MB/s, Gb/s; 0 when seconds <= 0; short_run). */
int rdx_report_add(struct rdx_report *r, const struct rdx_result *res);
/**
 * rdx_report_add, and keep the non-empty buckets of h (the histogram the
 * row's lat was summarized from; tsc_hz as for rdx_hist_summarize) with the
 * row: the JSON report carries them ("lat"."buckets") for full CDFs.
 * @return 0, -EINVAL or -ENOMEM (then no row is added).
 */
int rdx_report_add_hist(struct rdx_report *r, const struct rdx_result *res,
			const struct rdx_hist *h, uint64_t tsc_hz);
/**
 * The latency buckets of row i, ascending (NULL and *n = 0 when the row has
 * none: added without a histogram, or read from a report without them).
 */
const struct rdx_lat_bucket *rdx_report_lat_buckets(const struct rdx_report *r, unsigned int i,
						    unsigned int *n);
unsigned int rdx_report_count(const struct rdx_report *r);
const struct rdx_result *rdx_report_get(const struct rdx_report *r, unsigned int i);

/** "completed", "interrupted" or "failed"; NULL for a value out of the enum. */
const char *rdx_report_status_name(enum rdx_report_status s);
/** The status by its name; 0 or -EINVAL. */
int rdx_report_status_parse(const char *name, enum rdx_report_status *s);
/**
 * Say how the benchmark ended. measured_s: the seconds measured over all
 * its runs (negative: unknown); reason: why it failed or what stopped it,
 * one line ("SIGINT/SIGTERM", "peer closed the bootstrap connection
 * during the run"); NULL for none. A report not told is completed.
 * @return 0, -EINVAL or -ENOMEM.
 */
int rdx_report_status_set(struct rdx_report *r, enum rdx_report_status s, double measured_s,
			  const char *reason);
/** The status; *measured_s (negative: unknown) and *reason (NULL: none) when not NULL. */
enum rdx_report_status rdx_report_status_get(const struct rdx_report *r, double *measured_s,
					     const char **reason);
/** List a run that was asked for and not run (copied). 0, -EINVAL or -ENOMEM. */
int rdx_report_not_run_add(struct rdx_report *r, const struct rdx_not_run *n);
/** The runs not run, in the order added (NULL and *n = 0 when none). */
const struct rdx_not_run *rdx_report_not_run(const struct rdx_report *r, unsigned int *n);

/** What rdx_report_print_compact shows. */
enum rdx_report_compact_kind {
	RDX_REPORT_COMPACT_BW = 0, /**< #bytes #iterations BW peak BW average MsgRate */
	RDX_REPORT_COMPACT_LAT,    /**< #bytes #iterations t_min .. 99.9% percentile */
};

/**
 * perftest's table: total rows only (lcore RDX_REPORT_LCORE_TOTAL), in
 * perftest's columns and units: bandwidth in MiB/s (2^20 B/s), or Gb/s
 * (10^9 bit/s) when gbits; message rate in Mpps (10^6 ops/s); latency in
 * usec, t_typical being the median. BW peak from peak_bytes_per_s, "-"
 * when a row has none. A #qps
 * column is added when rows differ in QPs, an offered[ops/s] column for
 * open-loop rows. One header line says the device and the latency kind.
 * Rows cut short end with "CUT"; the status lines (rdx_report_print_status) close it.
 */
int rdx_report_print_compact(const struct rdx_report *r, FILE *f,
			     enum rdx_report_compact_kind kind, bool gbits);
/** rdx_report_print_compact's table printed as its rows come. */
struct rdx_report_compact_state {
	bool started;      /**< the banner and the column header are out */
	bool many_qps;     /**< set before the first call: a #qps column */
	bool open_loop;    /**< set before the first call: an offered[ops/s] column */
	bool cpu_util;     /**< set before the first call: a CPU_Util[%] column */
	bool many_tx_depth; /**< set before the first call: a #tx_depth column */
	unsigned int next; /**< the first row not printed yet */
};

/**
 * The compact table in parts: the first call prints the banner and the
 * column header; each call the total rows added since the last; with end,
 * the closing lines (units, SHORT, status). 0, -EINVAL, or -EIO.
 */
int rdx_report_print_compact_stream(const struct rdx_report *r, FILE *f,
				    enum rdx_report_compact_kind kind, bool gbits,
				    struct rdx_report_compact_state *st, bool end);
/** The compact table's column header alone (no #qps column; offered[ops/s]
 * when open_loop), for a caller that prints rows as they come. */
int rdx_report_print_compact_head(FILE *f, enum rdx_report_compact_kind kind, bool gbits,
				  bool open_loop);
/** One row of the compact table (the columns of rdx_report_print_compact_head). */
int rdx_report_print_compact_row(const struct rdx_result *x, FILE *f,
				 enum rdx_report_compact_kind kind, bool gbits);

/**
 * A perftest-like table with a header of every knob. gbits: also Gb/s.
 * Units are in the column names (MB = 10^6 bytes, Gb = 10^9 bits, latency
 * in microseconds of the row's lat_kind); short rows end with "SHORT",
 * rows cut short with "CUT"; then the status lines (rdx_report_print_status).
 */
int rdx_report_print_table(const struct rdx_report *r, FILE *f, bool gbits);
/**
 * How the benchmark ended, the lines the table and compact table end with
 * (each line starts with lead; NULL: nothing): "status: completed", or
 * "status: interrupted: REASON; S s measured" / "status: failed: REASON";
 * a "CUT:" line when total rows are cut short; a "not run:" line listing
 * the runs not run.
 */
int rdx_report_print_status(const struct rdx_report *r, FILE *f, const char *lead);
/** clusterperf lines: "echo100.99   5.6 us   send 30B message, receive 100B message 99% (RTT)";
 * the latency kind in parentheses, "[SHORT]" after a short row's lines,
 * "[CUT]" after a cut-short row's; then the status lines (rdx_report_print_status). */
int rdx_report_print_clusterperf(const struct rdx_report *r, FILE *f);
/** The JSON report; 0, -EINVAL, -ENOMEM, -ERANGE (a count beyond 2^63) or
 * the negative errno of the failed open, write or close (-ENOSPC). */
int rdx_report_write_json(const struct rdx_report *r, const char *path);
struct rdx_report *rdx_report_read_json(const char *path);
/**
 * rdx_report_read_json that also says what is wrong with a file it refuses
 * ("report.json:3: results[0].size: not an integer"); errbuf may be NULL.
 * NULL with rte_errno ENOENT (cannot open), EINVAL (not a report), ENOMEM.
 */
struct rdx_report *rdx_report_read_json_msg(const char *path, char *errbuf, size_t errlen);
/**
 * CSV (RFC 4180 quoting, "\n" line ends): a header line of column names, one line per row;
 * the fixed columns are listed in rdx_report_csv.c, then one column
 * "knob.<name>" per knob. Unknown figures are empty fields. A run not run
 * is a line of its own (row_status "not_run", its figures empty).
 * @return 0, -EINVAL or the negative errno of the failed open, write or close.
 */
int rdx_report_write_csv(const struct rdx_report *r, const char *path);
/**
 * One CSV field as rdx_report_write_csv writes it (no separator): quoted
 * (RFC 4180, '"' doubled) when it holds a comma, a quote, CR or LF, or
 * starts or ends with a space (which a CSV reader may strip); else as is.
 * Every CSV of rdx's tools goes through it.
 */
void rdx_report_csv_field(FILE *f, const char *s);

#ifdef __cplusplus
}
#endif
#endif /* RDX_REPORT_H */
