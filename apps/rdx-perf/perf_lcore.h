/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx-perf's per-lcore state: the endpoints an lcore drives and serves,
 * its counters, histogram and BW peak; what the loops (stream.c,
 * pingpong.c) and the reports read.
 */
#ifndef PERF_LCORE_H
#define PERF_LCORE_H

#include <stdbool.h>
#include <stdint.h>

#include "rdx_hist.h"
#include "rdx_perf.h"

#include "perf_ep.h"

struct rdx_conn;
struct rdx_perf_engine;

/*
 * perftest's BW peak (stream.c): the shortest time per op from the post of
 * an op to the completion that retires it and those after it, i.e. the
 * smallest (completion tsc - post tsc) / ops between, taken at every reap.
 * perftest takes every post of the run; this takes the run's first post,
 * the last PERF_PEAK_RING post lists (the short windows, where a peak is)
 * and PERF_PEAK_RING posts at least PERF_PEAK_STRIDE ops (and 4 windows)
 * apart (the long ones, which approach the average; the first post gives
 * the whole run, so the peak is never below the average). Op numbers
 * count the lcore's ops in completion order over all its QPs, as
 * perftest's one counter.
 */
#define PERF_PEAK_RING 32u
#define PERF_PEAK_STRIDE 1024u
struct perf_peak_ring {
	uint32_t next;           /* posts recorded */
	uint64_t seq[PERF_PEAK_RING]; /* the op number of a list's first op */
	uint64_t tsc[PERF_PEAK_RING];
};
struct perf_peak {
	uint64_t inflight;       /* ops posted and not retired, all QPs */
	uint64_t done;           /* measured ops retired */
	bool started;            /* first_* hold the run's first post */
	uint64_t first_tsc;      /* its op number is 0 */
	struct perf_peak_ring recent, far;
	uint64_t best_dt;        /* tsc cycles over best_n ops; best_n 0: none */
	uint64_t best_n;
};

struct perf_lcore {
	unsigned int lcore_id;
	unsigned int idx;
	struct perf_ep **eps;    /* client endpoints this lcore drives */
	unsigned int nb_eps;
	struct perf_ep **srv;    /* server endpoints this lcore serves */
	unsigned int nb_srv;
	const struct rdx_perf_engine *eng;
	/* the responder step on one served endpoint (perf_serve_step): set
	 * at setup, so the loops' common code calls it without naming them */
	int (*serve)(struct perf_lcore *lc, struct perf_ep *ep);
	const struct perf_opts *o;
	struct perf_run *run;
	bool measure;            /* false during warm-up */
	bool serve_only;         /* --server process */
	struct rdx_hist *hist;
	uint64_t ops;
	uint64_t bytes;
	uint64_t t_start;
	uint64_t t_end;
	uint64_t last_progress;
	uint64_t polls;
	uint64_t busy_polls;
	struct rdx_perf perf;
	bool perf_ok;
	struct rdx_perf_sample ps0;
	struct rdx_perf_sample ps1;
	struct perf_wrlog_ent *log;
	uint64_t log_n;
	bool log_full;
	uint64_t *key_adds;      /* atomics: increments per key (all phases) */
	uint64_t cas_ok, cas_fail; /* cas: measured swaps done / compare stale */
	uint64_t verify_errors;
	uint64_t op_seq;         /* per-lcore op numbering for the log */
	struct perf_peak peak;   /* bandwidth runs (stream.c) */
	struct rdx_conn *watch;  /* main lcore running a client: watch the peer */
	uint64_t next_watch;
	int err;
	char errmsg[192];
};

#endif /* PERF_LCORE_H */
