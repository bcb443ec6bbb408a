/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal to lib/stats's report files: the report model (rdx_report.c)
 * and its output formats (rdx_report_text.c: table and clusterperf lines;
 * rdx_report_json.c: JSON writer and reader; rdx_report_csv.c: CSV) share
 * the report's layout and two model calls the JSON reader needs.
 */
#ifndef RDX_REPORT_PRIV_H
#define RDX_REPORT_PRIV_H

#include <stdbool.h>

#include "rdx_report.h"

/* Not part of the library's interface (not exported from the shared library). */
#define RDX_REPORT_INTERNAL __attribute__((visibility("hidden")))

struct rdx_knob {
	char *name;
	char *value;
};

/* A row's latency buckets (rdx_report_add_hist or the JSON reader). */
struct rdx_row_buckets {
	struct rdx_lat_bucket *b;
	unsigned int n;
};

struct rdx_report {
	char *title;
	struct rdx_knob *knobs;
	unsigned int nb_knobs;
	unsigned int knobs_cap;
	struct rdx_result *rows;
	struct rdx_row_buckets *buckets;  /* parallel to rows */
	unsigned int nb_rows;
	unsigned int rows_cap;
	enum rdx_report_status status;
	double measured_s;                /* negative: unknown */
	char *reason;                     /* NULL: none */
	struct rdx_not_run *not_run;
	unsigned int nb_not_run;
	unsigned int not_run_cap;
};

/* Set knob name to value (taken over, freed on error); 0 or -ENOMEM. */
RDX_REPORT_INTERNAL int rdx_report_knob_put(struct rdx_report *r, const char *name, char *value);
/* Append a row as is (no derived fields): the JSON reader uses it; the
 * row's buckets (taken over, freed on error; may be NULL). 0 or -ENOMEM. */
RDX_REPORT_INTERNAL int rdx_report_append(struct rdx_report *r, const struct rdx_result *res,
					  struct rdx_lat_bucket *b, unsigned int nb);

/* A row too short to trust (RDX_REPORT_SHORT_S / RDX_REPORT_SHORT_OPS). */
static inline bool
rdx_report_is_short(const struct rdx_result *x)
{
	return x->ops > 0 && (x->seconds < RDX_REPORT_SHORT_S || x->ops < RDX_REPORT_SHORT_OPS);
}

#endif /* RDX_REPORT_PRIV_H */
