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

/** One result row: a test at one size, on one lcore (or the total). */
struct rdx_result {
	char test[24];             /**< "echo", "write", "read", "cas", ... */
	char mode[8];              /**< "lat" or "bw" */
	char name[32];             /**< clusterperf name prefix, e.g. "echo100" */
	char desc[96];             /**< clusterperf description, e.g. "send 30B message, receive 100B message" */
	char lat_kind[16];         /**< "rtt", "half-rtt" or "completion" */
	uint64_t size;             /**< message size, bytes */
	int lcore;                 /**< lcore id or RDX_REPORT_LCORE_TOTAL */
	uint32_t qps;              /**< QPs this row covers */
	uint64_t ops;
	uint64_t bytes;
	double seconds;
	double mops;               /**< derived: ops / seconds / 1e6 */
	double mbytes_per_s;       /**< derived: bytes / seconds / 1e6 (MB/s) */
	double gbits_per_s;        /**< derived */
	bool has_lat;
	struct rdx_hist_summary lat; /**< ns */
	bool has_perf;
	struct rdx_perf_per_op perf;
	double busy_pct;           /**< lcore utilisation; < 0 when unknown */
};

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
/** Append a row (copied); fills the derived fields (mops, MB/s, Gb/s; 0 when seconds <= 0). */
int rdx_report_add(struct rdx_report *r, const struct rdx_result *res);
unsigned int rdx_report_count(const struct rdx_report *r);
const struct rdx_result *rdx_report_get(const struct rdx_report *r, unsigned int i);

/** A perftest-like table with a header of every knob. gbits: also Gb/s. */
int rdx_report_print_table(const struct rdx_report *r, FILE *f, bool gbits);
/** clusterperf lines: "echo100.99   5.6 us   send 30B message, receive 100B message 99%". */
int rdx_report_print_clusterperf(const struct rdx_report *r, FILE *f);
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
 * the fixed columns are listed in rdx_report.c, then one column
 * "knob.<name>" per knob. Unknown figures are empty fields.
 */
int rdx_report_write_csv(const struct rdx_report *r, const char *path);

#ifdef __cplusplus
}
#endif
#endif /* RDX_REPORT_H */
