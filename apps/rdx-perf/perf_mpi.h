/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx-perf across many processes launched by MPI (mpirun, srun --mpi=pmix):
 * --pattern pairs|incast|one-to-many|all-to-all. cluster_opts.c (always
 * built) takes the options out of the app's arguments and maps each rank's
 * endpoints onto its peers; boot_mpi.c (only with MPI) starts MPI, swaps QP
 * information with collectives and drives the runs; cluster.c gathers the
 * per-rank rows, the merged histogram and the competing-flow shares.
 * doc/cluster.md describes all of it.
 */
#ifndef PERF_MPI_H
#define PERF_MPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum perf_pattern {
	PERF_PATTERN_NONE = 0,   /* no --pattern: loopback or the TCP bootstrap */
	PERF_PATTERN_PAIRS,      /* rank i client of rank i + N/2 */
	PERF_PATTERN_INCAST,     /* ranks 1..N-1 clients of rank 0 */
	PERF_PATTERN_ONE_TO_MANY,/* rank 0 client of ranks 1..N-1 */
	PERF_PATTERN_ALL_TO_ALL, /* every rank client of every other */
	PERF_PATTERN_CLUSTERPERF,/* lib/rpc: ranks 0..S-1 serve (--servers S), the rest call */
};

enum perf_flows_start {
	PERF_FLOWS_OFF = 0,      /* no share analysis */
	PERF_FLOWS_TOGETHER,     /* every client starts at the run's barrier */
	PERF_FLOWS_STAGGERED,    /* client k starts k x stagger_ms later */
};

struct perf_mpi_opts {
	enum perf_pattern pattern;
	enum perf_flows_start flows;
	uint32_t stagger_ms;
	bool wanted;             /* --pattern was given (even a bad one) */
};

/* Take --pattern P and --flows-start together|staggered[:MS] out of the
 * app's arguments (argv[0] is the program). 0, or -EINVAL after one line. */
int perf_mpi_opts_take(int *argc, char **argv, struct perf_mpi_opts *m);
/* --pattern clusterperf without --transport or --test: --transport infrc,
 * --test echo appended to argv (cap: its slots). 0 or -EINVAL (one line). */
int perf_mpi_opts_defaults(int *argc, char **argv, int cap, const struct perf_mpi_opts *m);
const char *perf_pattern_name(enum perf_pattern p);
/* --help: the MPI options (after opts.c's) */
void perf_mpi_usage(FILE *f);

/*
 * The endpoints of rank r among n ranks, each client rank holding t client
 * endpoints (QPs per lcore x lcores). Client endpoint i of a rank targets
 * server endpoint j of rank peer; server endpoint j serves client endpoint
 * i of rank peer. One-to-many and all-to-all deal a client's endpoints
 * round-robin over its servers, so t must be at least n - 1.
 */
struct perf_topo_ep {
	int peer;
	uint32_t idx;
};

/* 0 when the pattern fits n ranks and t client endpoints per client rank,
 * else -EINVAL and the reason in err. */
int perf_topo_check(enum perf_pattern p, int n, uint32_t t, char *err, size_t len);
void perf_topo_counts(enum perf_pattern p, int n, uint32_t t, int r, uint32_t *ncli,
			 uint32_t *nsrv);
struct perf_topo_ep perf_topo_cli_peer(enum perf_pattern p, int n, uint32_t t, int r,
					     uint32_t i);
struct perf_topo_ep perf_topo_srv_peer(enum perf_pattern p, int n, uint32_t t, int r,
					     uint32_t j);

struct perf_app;

struct perf_ud_run; /* perf_app.h */

/* report.c: keep a UD run's counts in a->ud_* (and the totals) and print
 * its line on stderr (with the stale count when `stale`); returns what a
 * stream's ops and bytes are scaled by: arrived / sent, 1 when none was
 * lost or the loop is not a stream. */
double perf_report_ud_run(struct perf_app *a, const struct perf_ud_run *u, bool stale);

#ifdef RDX_PERF_MPI
/* --bootstrap-timeout under --pattern when not given (two processes: 10 s) */
#define PERF_MPI_BOOT_TIMEOUT_S 60
/* main.c before rdx_runtime_init: start MPI, choose the lcore of this rank
 * (unless -l/-c/--lcores is given) and a file prefix per rank. The new EAL
 * arguments replace *eal_argc / *eal_argv. 0, or -EINVAL (exit 2). */
int perf_mpi_init(struct perf_app *a, const struct perf_mpi_opts *m, int *eal_argc,
		  char ***eal_argv);
/* After the device is open: the pattern's roles of this rank (a->client,
 * a->responder); every rank agrees or all exit 2. */
int perf_mpi_roles(struct perf_app *a);
/* setup.c: endpoints of this rank, connected to their peers (collectives). */
int perf_mpi_boot(struct perf_app *a);
/* main.c: every run, then the cluster report on rank 0. */
int perf_mpi_runs(struct perf_app *a);
/* main.c: bad input with --pattern: exit 2 on every rank (after a barrier,
 * as mpirun ends the job at the first rank that leaves) */
int perf_mpi_bad_input(const struct perf_mpi_opts *m);
/* main.c, last: MPI_Finalize (or MPI_Abort after a failure elsewhere). */
int perf_mpi_fini(struct perf_app *a, int rc);
#endif

#endif /* PERF_MPI_H */
