/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx-flows' flows and results, shared by main.c (reading, the analysis,
 * the text and CSV) and json.c (the JSON, which calls nothing of main.c).
 */
#ifndef RDX_FLOWS_H
#define RDX_FLOWS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rdx_hist.h"
#include "rdx_wrlog.h"

struct rdx_flow {
	const struct rdx_wrlog *log;
	unsigned int log_idx;
	char *label;                /* flow=, else the file name; --by-qp: .qp<N> added */
	struct rdx_wrlog_wr *wr;    /* the log's, or (--by-qp) this flow's own */
	bool own_wr;
	size_t nb_wr;
	size_t nb_incomplete;
	uint64_t first_post;
	uint64_t last_complete;
	/* results */
	uint64_t ops_by_t1, bytes_by_t1;
	uint64_t ops_in, bytes_in;
	double mbytes_per_s, share;
	struct rdx_hist_summary lat;  /* ns, over every op */
};

/* What the run computed, for the JSON. */
struct rdx_flows_run {
	uint64_t t0, t1, tmin, tmax, total_bytes;
	unsigned int first, latest;
	double secs, jain;          /* jain < 0: n/a */
	const char *not_shared;     /* why the logs did not share a device; NULL: they did */
	double window_ms;
	uint64_t nwin, w_ns;
	uint64_t *win_bytes;        /* nwin x n */
};

/* Window k of flow i in Gb/s (bits per ns). */
static inline double
win_gbps(const struct rdx_flows_run *run, unsigned int n, uint64_t k, unsigned int i)
{
	return (double)run->win_bytes[k * n + i] * 8.0 / (double)run->w_ns;
}

static inline bool
win_common(const struct rdx_flows_run *run, uint64_t k)
{
	uint64_t s = run->tmin + k * run->w_ns;

	return s >= run->t0 && s + run->w_ns <= run->t1;
}

/* The latencies of wr[0..n) completed by t1 as the report shows them, ns. */
void flows_lat_summary(const struct rdx_wrlog_wr *wr, size_t n, unsigned int div, uint64_t t1,
		       struct rdx_hist_summary *out);

/* The logs as read, and (run not NULL) the analysis and the windows, to f. */
void flows_json_write(FILE *f, struct rdx_wrlog **logs, unsigned int nb_logs,
		      const struct rdx_flow *fl, unsigned int n, const struct rdx_flows_run *run);

#endif
