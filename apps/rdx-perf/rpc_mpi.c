/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rpc's benchmarks (echo, basic.read, basic.write) under mpirun:
 * --pattern clusterperf, clusterperf's many-client runs. Ranks 0 .. S-1
 * (--servers S) each run one server endpoint (the KV service's handlers
 * and echo's, rpc_echo.c); every other rank runs -q x lcores client
 * endpoints (by default enough to reach every server). Client endpoint g
 * of all of them (rank-major) has one session to server rank g mod S, so
 * each client rank spreads its calls over all the servers. The session
 * infos go round with one MPI_Allgatherv; the runs, their ends and the
 * failure handling are boot_mpi.c's sync points (the same exit codes and
 * "failed"/"interrupted" lines as the raw patterns); rank 0 gathers the
 * counters, one row per client rank and the merged histogram, and prints
 * the report with the clusterperf lines.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_errno.h>

#include "rdx_hist.h"
#include "rdx_report.h"
#include "rdx_rpc.h"
#include "rdx_runtime.h"

#include "perf_app.h"
#include "perf_mpi_priv.h"
#include "perf_opts.h"
#include "rpc_perf.h"

/* One client rank's figures of a run, as gathered on rank 0. */
struct rpc_row {
	int32_t rank;
	uint32_t clients;
	uint64_t ops;
	uint64_t bytes;
	int64_t t0_ns;
	int64_t t1_ns;
	uint32_t has_lat;
	uint32_t pad;
	struct rdx_hist_summary lat;
};

/* Summed over the ranks: the counters, then errors, bad requests. */
#define RPC_SUMS (sizeof(struct perf_rpc_counts) / sizeof(uint64_t) + 2)

static struct perf_rpc_counts rpc_total;

static bool
is_server(const struct perf_mpi *mp)
{
	return (uint32_t)mp->rank < mp->rpc_servers;
}

/* A server rank waiting at the end of a run keeps serving; a client rank
 * keeps its endpoints polled (late acknowledgements). 5 ms between looks
 * at MPI: an idle MPI_Test of an oversubscribed Open MPI yields the CPU,
 * which a rank sharing it then keeps for its time slice. */
static void
rpc_idle(struct perf_app *a)
{
	uint32_t n, i, k;
	struct perf_rpc_srv *sv = perf_rpc_srvs(&n);
	uint64_t end = rdx_tsc() + rdx_tsc_hz() / 200;

	do {
		for (k = 0; k < 64; k++) {
			for (i = 0; i < n; i++)
				rdx_rpc_endpoint_poll(sv[i].ep);
			for (i = 0; i < perf_rpc_nb_clis; i++)
				rdx_rpc_endpoint_poll(perf_rpc_lcs[0].cli[i].ep);
		}
	} while (rdx_tsc() < end && !rdx_runtime_stopping());
	(void)a;
}

/* The sessions of server rank s: one per client endpoint g with g % S == s */
static uint32_t
srv_sessions(const struct perf_mpi *mp, int s)
{
	uint32_t c = (uint32_t)(mp->size - (int)mp->rpc_servers) * mp->t;

	return (c + mp->rpc_servers - 1 - (uint32_t)s) / mp->rpc_servers;
}

static uint32_t
rank_infos(const struct perf_mpi *mp, int r)
{
	return (uint32_t)r < mp->rpc_servers ? srv_sessions(mp, r) : mp->t;
}

/* Every rank's endpoints and sessions, connected through MPI. */
static int
rpc_mpi_connect(struct perf_app *a)
{
	struct perf_mpi *mp = a->mpi;
	const uint32_t S = mp->rpc_servers;
	struct rdx_rpc_session_info *mine = NULL, *all = NULL;
	int *counts, *displs, r, rc = 0;
	uint32_t i, n = rank_infos(mp, mp->rank), total = 0, *base;
	struct perf_rpc_srv *sv;

	counts = calloc((size_t)mp->size, sizeof(int));
	displs = calloc((size_t)mp->size, sizeof(int));
	base = calloc((size_t)mp->size, sizeof(*base));
	mine = calloc(n + 1, sizeof(*mine));
	if (counts == NULL || displs == NULL || base == NULL || mine == NULL)
		MPI_Abort(MPI_COMM_WORLD, 1);   /* collectives follow */
	for (r = 0; r < mp->size; r++) {
		base[r] = total;
		displs[r] = (int)(total * sizeof(*all));
		counts[r] = (int)(rank_infos(mp, r) * sizeof(*all));
		total += rank_infos(mp, r);
	}
	all = calloc(total + 1, sizeof(*all));
	if (all == NULL)
		MPI_Abort(MPI_COMM_WORLD, 1);
	if (is_server(mp)) {
		sv = perf_rpc_srvs(&i);
		rc = perf_rpc_srv_create(a, &sv[0], (uint32_t)mp->rank, n);
		perf_rpc_srvs_set(1);
		for (i = 0; rc == 0 && i < n; i++) {
			struct rdx_rpc_session *s = rdx_rpc_session_create(sv[0].ep);

			if (s == NULL) {
				fprintf(stderr, "rdx-perf: rank %d: cannot create rpc session %u: %s\n",
					mp->rank, i, rte_strerror(rte_errno));
				rc = -rte_errno;
				break;
			}
			sv[0].sess[sv[0].nb_sess++] = s;
			rc = rdx_rpc_session_info_get(s, &mine[i]);
		}
	} else {
		rc = perf_rpc_setup(a);
		for (i = 0; rc == 0 && i < n; i++)
			rc = rdx_rpc_session_info_get(perf_rpc_lcs[0].cli[i].sess, &mine[i]);
	}
	rc = perf_mpi_agree(a, rc, "make its rpc endpoints");
	if (rc == 0) {
		MPI_Allgatherv(mine, counts[mp->rank], MPI_BYTE, all, counts, displs, MPI_BYTE,
			       MPI_COMM_WORLD);
		sv = perf_rpc_srvs(&i);
		for (i = 0; i < n && rc == 0; i++) {
			uint32_t g, peer, idx;

			if (is_server(mp)) {
				g = i * S + (uint32_t)mp->rank;
				peer = S + g / mp->t;
				idx = g % mp->t;
				rc = rdx_rpc_session_connect(sv[0].sess[i], &all[base[peer] + idx]);
			} else {
				g = (uint32_t)(mp->rank - (int)S) * mp->t + i;
				peer = g % S;
				idx = g / S;
				rc = rdx_rpc_session_connect(perf_rpc_lcs[0].cli[i].sess,
							     &all[base[peer] + idx]);
			}
			if (rc < 0)
				fprintf(stderr, "rdx-perf: rank %d: cannot connect rpc session %u to rank %u: %s\n",
					mp->rank, i, peer, strerror(-rc));
		}
		rc = perf_mpi_agree(a, rc, "connect its rpc sessions");
	}
	free(counts);
	free(displs);
	free(base);
	free(mine);
	free(all);
	return rc;
}

/* This rank's counters, errors and bad requests of the run (deltas). */
static void
local_sums(struct perf_app *a, uint64_t *w)
{
	struct perf_rpc_counts n;
	uint32_t nb, i;
	unsigned int l;
	struct perf_rpc_srv *sv = perf_rpc_srvs(&nb);
	uint64_t errors = 0, bad = 0;

	memset(&n, 0, sizeof(n));
	for (i = 0; i < perf_rpc_nb_clis; i++)
		perf_rpc_counts_add(&n, perf_rpc_lcs[0].cli[i].ep, &perf_rpc_lcs[0].cli[i].base);
	for (i = 0; i < nb; i++) {
		perf_rpc_counts_add(&n, sv[i].ep, &sv[i].base);
		bad += sv[i].bad_reqs;
		sv[i].bad_reqs = 0;
	}
	for (l = 0; l < a->nb_lcores && a->client; l++) {
		struct perf_rpc_lc *lc = &perf_rpc_lcs[l];

		errors += lc->errors;
		a->verify_errors += lc->verify_errors;
		lc->verify_errors = 0;
		if (lc->err != 0)
			perf_run_error(a, "rank %d: %s", a->mpi->rank, lc->errmsg);
		if (lc->errors != 0)
			perf_run_error(a, "rank %d lcore %u: %" PRIu64 " call(s) failed, the first with %s",
				       a->mpi->rank, lc->lcore_id, lc->errors,
				       strerror(-lc->first_err));
	}
	memcpy(w, &n, sizeof(n));
	w[RPC_SUMS - 2] = errors;
	w[RPC_SUMS - 1] = bad;
}

/* Gather one run on rank 0: a row per client rank, the total with the
 * merged histogram, the counters line. Collective. -EIO when a call
 * failed anywhere (on every rank). */
static int
rpc_mpi_report_run(struct perf_app *a, uint64_t size)
{
	struct perf_mpi *mp = a->mpi;
	uint64_t hz = rdx_tsc_hz(), w[RPC_SUMS], sum[RPC_SUMS], t0 = UINT64_MAX, t1 = 0;
	struct rdx_hist *local = calloc(1, sizeof(*local)), *conv = calloc(1, sizeof(*conv));
	struct rdx_hist *merged = calloc(1, sizeof(*merged));
	struct rpc_row me, *rows = NULL;
	unsigned int l;
	int r, bad;

	if (local == NULL || conv == NULL || merged == NULL)
		MPI_Abort(MPI_COMM_WORLD, 1);
	if (mp->rank == 0 && (rows = calloc((size_t)mp->size, sizeof(*rows))) == NULL)
		MPI_Abort(MPI_COMM_WORLD, 1);
	perf_cluster_clock_sample();
	local_sums(a, w);
	memset(&me, 0, sizeof(me));
	me.rank = mp->rank;
	me.clients = perf_rpc_nb_clis;
	rdx_hist_init(local);
	rdx_hist_init(merged);
	for (l = 0; l < a->nb_lcores && a->client; l++) {
		const struct perf_rpc_lc *lc = &perf_rpc_lcs[l];

		me.ops += lc->ops[0];
		me.bytes += lc->bytes[0];
		t0 = RTE_MIN(t0, lc->t_start);
		t1 = RTE_MAX(t1, lc->t_end);
		rdx_hist_merge(local, lc->hist[0]);
	}
	if (a->client && t1 > t0) {
		me.t0_ns = perf_cluster_tsc_ns(t0);
		me.t1_ns = perf_cluster_tsc_ns(t1);
	}
	me.has_lat = local->count > 0;
	if (me.has_lat)
		rdx_hist_summarize(local, hz, &me.lat);
	if (!mp->same_hz) {
		perf_cluster_hist_to_ns(conv, local, hz);
		memcpy(local, conv, sizeof(*local));
	}
	MPI_Reduce(local, merged, 1, mp->hist_type, mp->hist_op, 0, MPI_COMM_WORLD);
	MPI_Allreduce(w, sum, (int)RPC_SUMS, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
	MPI_Gather(&me, (int)sizeof(me), MPI_BYTE, rows, (int)sizeof(me), MPI_BYTE, 0,
		   MPI_COMM_WORLD);
	bad = sum[RPC_SUMS - 2] != 0 || sum[RPC_SUMS - 1] != 0;
	if (mp->rank == 0 && a->rep != NULL) {
		struct perf_rpc_counts n;
		struct rdx_result x, tot;
		int64_t s0 = INT64_MAX, s1 = INT64_MIN;
		char sz[16];

		memcpy(&n, sum, sizeof(n));
		perf_rpc_counts_sum(&rpc_total, &n);
		perf_size_name(size, sz, sizeof(sz));
		perf_rpc_counts_line(a, sz, &n, sum[RPC_SUMS - 2], sum[RPC_SUMS - 1]);
		perf_rpc_row_fill(a, &tot, size, false, &n);
		tot.lcore = RDX_REPORT_LCORE_TOTAL;
		tot.has_rank = true;
		tot.rank = -1;
		snprintf(tot.host, sizeof(tot.host), "cluster");
		for (r = (int)mp->rpc_servers; r < mp->size; r++) {
			const struct rpc_row *c = &rows[r];

			perf_rpc_row_fill(a, &x, size, false, &n);
			x.has_rank = true;
			x.rank = c->rank;
			snprintf(x.host, sizeof(x.host), "%s", mp->hosts[c->rank]);
			x.lcore = 0;
			x.qps = c->clients;
			x.ops = c->ops;
			x.bytes = c->bytes;
			x.seconds = c->t1_ns > c->t0_ns ? (double)(c->t1_ns - c->t0_ns) / 1e9 : 0;
			x.has_lat = c->has_lat != 0;
			x.lat = c->lat;
			rdx_report_add(a->rep, &x);
			tot.qps += c->clients;
			tot.ops += c->ops;
			tot.bytes += c->bytes;
			if (c->t1_ns > c->t0_ns) {
				s0 = RTE_MIN(s0, c->t0_ns);
				s1 = RTE_MAX(s1, c->t1_ns);
			}
		}
		tot.seconds = s1 > s0 ? (double)(s1 - s0) / 1e9 : 0;
		tot.has_lat = merged->count > 0;
		if (tot.has_lat)
			rdx_hist_summarize(merged, mp->same_hz ? hz : 0, &tot.lat);
		rdx_report_add(a->rep, &tot);
		a->measured_s += tot.seconds;
		fprintf(stderr, "rdx-perf: cluster clusterperf %s size %s: %d client rank(s) x %u clients, %u server rank(s), %" PRIu64 " calls in %.3f s, p50 %.2f us, %.1f MB/s (10^6 B/s)\n",
			perf_rpc_test_name(&a->o), sz, mp->size - (int)mp->rpc_servers, mp->t,
			mp->rpc_servers, tot.ops, tot.seconds, tot.has_lat ? tot.lat.p50 / 1000 : 0,
			tot.seconds > 0 ? (double)tot.bytes / tot.seconds / 1e6 : 0);
	}
	free(local);
	free(conv);
	free(merged);
	free(rows);
	return bad ? -EIO : 0;
}

static int
rpc_mpi_report_init(struct perf_app *a)
{
	struct perf_mpi *mp = a->mpi;
	int rc;

	/* the histogram type and merge (no report yet: its knobs are ours) */
	rc = perf_cluster_init(a);
	if (rc < 0 || mp->rank != 0)
		return rc;
	rc = perf_rpc_report_init(a);
	if (rc < 0)
		return rc;
	rdx_report_knob_set(a->rep, "role", "cluster");
	rdx_report_knob_set(a->rep, "pattern", "clusterperf");
	rdx_report_knob_set(a->rep, "bootstrap", "mpi");
	rdx_report_knob_set(a->rep, "ranks", "%d", mp->size);
	rdx_report_knob_set(a->rep, "server_ranks", "%u", mp->rpc_servers);
	rdx_report_knob_set(a->rep, "client_ranks", "%d", mp->size - (int)mp->rpc_servers);
	rdx_report_knob_set(a->rep, "clients", "%u",
			    (uint32_t)(mp->size - (int)mp->rpc_servers) * mp->t);
	rdx_report_knob_set(a->rep, "clients_per_rank", "%u", mp->t);
	rdx_report_knob_set(a->rep, "server_lcore", "own rank");
	rdx_report_knob_set(a->rep, "hist_merge", "%s", mp->same_hz ?
			    "exact (bucket counts, one TSC frequency)" :
			    "ns buckets (TSC frequencies differ between hosts)");
	return 0;
}

/* perf_mpi_run_over: the run's cut (a rank interrupted, or this rank's
 * calls failed) and its rows */
static void
rpc_tally(struct perf_app *a, int rc, bool stop)
{
	a->run_cut = stop || rc < 0;
}

static int
rpc_report(struct perf_app *a, void *arg)
{
	int rc = rpc_mpi_report_run(a, *(const uint64_t *)arg);

	if (rc < 0 && a->mpi->rank == 0)
		perf_run_error(a, "run %u: calls failed or bad requests (the counters above)",
			       a->mpi->run_no);
	return rc;
}

/* The runs, one per size, each ended at boot_mpi.c's sync points. */
static int
rpc_mpi_runs(struct perf_app *a, bool *stop)
{
	struct perf_mpi *mp = a->mpi;
	const struct perf_opts *o = &a->o;
	uint64_t size = 0;
	const struct perf_mpi_run run = { .tally = rpc_tally, .report = rpc_report, .arg = &size };
	char what[48];
	unsigned int s;
	uint32_t nb, i;
	int rc = 0;

	for (s = 0; s < o->nb_sizes && rc == 0 && !*stop; s++) {
		struct perf_rpc_srv *sv = perf_rpc_srvs(&nb);

		mp->run_no++;
		perf_rpc_run.nb = 1;
		perf_rpc_run.sizes[0] = o->sizes[s];
		perf_rpc_run.nb_obj = perf_rpc_kv_objects(o->sizes[s]);
		for (i = 0; o->rpc_kv != 0 && i < nb && rc == 0; i++)
			rc = perf_rpc_kv_store_reset(a, &sv[i], o->sizes[s]);
		snprintf(what, sizeof(what), "prepare run %u", mp->run_no);
		rc = perf_mpi_agree(a, rc, what);
		if (rc < 0)
			break;
		if (a->client)
			rc = perf_rpc_launch(a);
		size = o->sizes[s];
		rc = perf_mpi_run_over(a, rc, stop, &run);
	}
	return rc;
}

int
perf_rpc_mpi_main(struct perf_app *a)
{
	struct perf_mpi *mp = a->mpi;
	const struct perf_opts *o = &a->o;
	bool stop = false;
	unsigned int s;
	int rc;

	rc = perf_rpc_check(a);
	if (rc == 0 && o->nb_mix > 0) {
		fprintf(stderr, "rdx-perf: rank %d: --mix is not available with --pattern clusterperf (one size per run)\n",
			mp->rank);
		rc = -EINVAL;
	}
	rc = perf_mpi_agree(a, rc, "accept its rpc options");
	if (rc == 0)
		rc = rpc_mpi_connect(a);
	if (rc == 0)
		rc = perf_mpi_agree(a, rpc_mpi_report_init(a), "start its report");
	if (rc < 0) {
		perf_rpc_teardown(a);
		return rc;
	}
	if (mp->rank == 0)
		printf("rdx-perf: --pattern clusterperf: %d ranks, server ranks 0..%u, %d client rank(s) x %u rpc clients, %s, connected through MPI\n",
		       mp->size, mp->rpc_servers - 1, mp->size - (int)mp->rpc_servers, mp->t,
		       perf_transport_name(o->transport));
	mp->idle = rpc_idle;
	rc = rpc_mpi_runs(a, &stop);
	mp->idle = NULL;
	for (s = a->nb_runs; mp->rank == 0 && s < o->nb_sizes; s++)
		perf_report_not_run(a, o->sizes[s], o->qps, 0);
	if (mp->failed) {
		if (mp->rank == 0 && a->rep != NULL) {
			perf_report_end(a, rc < 0 ? rc : -EIO);
			if (a->nb_runs > 0)
				perf_rpc_report_finish(a, &rpc_total);
			else
				perf_report_files(a);
		}
		perf_rpc_teardown(a);
		return rc < 0 ? rc : -EIO;
	}
	rc = perf_mpi_final_checks(a, rc);
	if (rc == 0) {
		if (mp->rank == 0) {
			perf_report_end(a, stop ? -EINTR : 0);
			rc = perf_rpc_report_finish(a, &rpc_total);
		}
		rc = perf_mpi_agree(a, rc, "write the report");
	}
	if (rc == 0 && stop)
		rc = -EINTR;
	mp->expected = false;
	perf_rpc_teardown(a);
	return rc;
}
