/* SPDX-License-Identifier: BSD-3-Clause */
/* rdx-perf under MPI: the state boot_mpi.c and cluster.c share (MPI builds only). */
#ifndef PERF_MPI_PRIV_H
#define PERF_MPI_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "perf_mpi.h"

#define PERF_MPI_HOST_LEN 64

struct perf_mpi {
	struct perf_mpi_opts m;
	int rank;
	int size;
	struct rdx_boot *boot;    /* lib/boot's "mpi": MPI itself, the sync points */
	char (*hosts)[PERF_MPI_HOST_LEN]; /* every rank's, index = rank */
	uint32_t t;               /* client endpoints of a client rank */
	uint32_t ncli, nsrv;      /* this rank's endpoints */
	unsigned int lcore0;      /* the first lcore of this rank (rows) */
	uint64_t *hz;             /* every rank's TSC frequency */
	bool same_hz;             /* histograms merge in cycles, else in ns */
	char *wrlog_rank;         /* -o FILE.r<rank> */
	unsigned int run_no;      /* runs started (1-based in messages) */
	bool failed;              /* a rank failed: no MPI_Finalize handshake needed */
	bool expected;            /* the other ranks wait for this one at a sync
				   * point (perf_mpi_init to the end of the runs):
				   * leaving early it must tell them */
	bool early;               /* leaving early: the word says so */
	MPI_Datatype hist_type;   /* one struct rdx_hist as bytes */
	MPI_Op hist_op;           /* rdx_hist_merge */
	uint32_t rpc_servers;     /* --pattern clusterperf: ranks 0 .. S-1 serve */
	void (*idle)(struct perf_app *a); /* polled while a rank waits at the end of a run */
};

struct perf_opts;
struct rdx_boot;
struct rdx_hist;

/* boot_mpi.c: a sync point every rank calls (the first failing rank's rc,
 * or 0); the end of a run (serving meanwhile; *stop: no more runs) */
int perf_mpi_agree(struct perf_app *a, int rc, const char *what);
int perf_mpi_end_run(struct perf_app *a, int rc, bool *stop);
/* What differs between the benchmarks at the end of a run: this rank's
 * tally (after the end-of-run sync; NULL: none) and its rows (between
 * "serve run N" and "report run N"). */
struct perf_mpi_run {
	void (*tally)(struct perf_app *a, int rc, bool stop);
	int (*report)(struct perf_app *a, void *arg);
	void *arg;
};
/* boot_mpi.c: the end of run mp->run_no, every step of it (both
 * benchmarks); the last sync point and the summed --verify errors */
int perf_mpi_run_over(struct perf_app *a, int rc, bool *stop, const struct perf_mpi_run *r);
int perf_mpi_final_checks(struct perf_app *a, int rc);
/* boot_mpi_sig.c: 0 when every rank's test options match rank 0's */
int perf_mpi_sig_check(const struct perf_mpi *mp, const struct perf_opts *o, char *err,
		       size_t len);
/* without -q: enough QPs per lcore to reach every peer (one-to-many,
 * all-to-all) or every server rank (clusterperf) */
void perf_mpi_default_qps(struct perf_app *a, const struct perf_mpi *mp);

/* cluster.c: collective; call on every rank after every run */
int perf_cluster_init(struct perf_app *a);
int perf_cluster_run(struct perf_app *a, bool last);
int perf_cluster_finish(struct perf_app *a);
void perf_cluster_fini(struct perf_app *a);
/* realtime ns of a TSC stamp of this process */
int64_t perf_cluster_tsc_ns(uint64_t tsc);
/* sample CLOCK_REALTIME and the TSC together (for perf_cluster_tsc_ns) */
void perf_cluster_clock_sample(void);
/* a histogram of TSC cycles of this host in ns (hosts of other TSC rates) */
void perf_cluster_hist_to_ns(struct rdx_hist *dst, const struct rdx_hist *src, uint64_t hz);
/* does rank r run client endpoints in this pattern */
bool perf_mpi_rank_is_client(const struct perf_mpi *mp, int r);

#endif /* PERF_MPI_PRIV_H */
