/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx-perf launched by MPI (mpirun / prterun / srun --mpi=pmix), with
 * --pattern (doc/cluster.md). MPI is the bootstrap only: every rank starts
 * its own EAL, opens its device with the usual rules and makes its
 * endpoints (setup.c); the QP information goes round with one
 * MPI_Allgatherv and each rank connects its endpoints to the peers the
 * pattern gives (cluster_opts.c). A run starts when every rank has posted
 * its receives (an allgather of statuses, which is also a barrier) and
 * ends when rank 0 has heard every rank's status: meanwhile a responder
 * keeps serving. A rank that is not heard from within the bootstrap
 * timeout of the first client's end is named by rank 0, which calls
 * MPI_Abort: no rank waits for ever. Only the main lcore calls MPI.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "rdx_boot.h"
#include "rdx_runtime.h"

#include "perf_app.h"
#include "perf_mpi_priv.h"
#include "perf_opts.h"
#include "perf_wire.h"

static struct perf_mpi mpi_state;

bool
perf_mpi_rank_is_client(const struct perf_mpi *mp, int r)
{
	uint32_t c, s;

	if (mp->m.pattern == PERF_PATTERN_CLUSTERPERF)
		return (uint32_t)r >= mp->rpc_servers;
	perf_topo_counts(mp->m.pattern, mp->size, mp->t, r, &c, &s);
	return c > 0;
}

static char *
str_printf(const char *fmt, const char *s, int v)
{
	size_t n = strlen(s) + 24;
	char *p = malloc(n);

	if (p != NULL)
		snprintf(p, n, fmt, s, v);
	return p;
}

/* MPI_Init and the collectives every rank makes before its EAL (lib/boot's
 * open): also a rank whose arguments were refused makes them, so that its
 * peers never wait in a collective it will not join. */
static int
mpi_start(struct perf_mpi *mp, const struct perf_mpi_opts *m, double timeout_s)
{
	memset(mp, 0, sizeof(*mp));
	mp->m = *m;
	mp->hist_type = MPI_DATATYPE_NULL;
	mp->hist_op = MPI_OP_NULL;
	/* lib/boot's mpi provider starts MPI and keeps the sync points */
	mp->boot = rdx_boot_open("mpi", &(struct rdx_boot_conf){
		.name = "rdx-perf", .timeout_ms = (int)(timeout_s * 1000),
		.timeout_opt = "--bootstrap-timeout" });
	if (mp->boot == NULL)
		return -EINVAL;
	mp->rank = rdx_boot_rank(mp->boot);
	mp->size = rdx_boot_size(mp->boot);
	return 0;
}

int
perf_mpi_init(struct perf_app *a, const struct perf_mpi_opts *m, int *eal_argc,
	      char ***eal_argv)
{
	struct perf_mpi *mp = &mpi_state;

	/* mpirun itself ends the job when a rank dies: the timeout only bounds
	 * a live rank that lags, which busy-polling ranks oversubscribing a
	 * small machine do for far more than the two-process default */
	if (!a->o.boot_timeout_given)
		a->o.boot_timeout = PERF_MPI_BOOT_TIMEOUT_S;
	if (mpi_start(mp, m, a->o.boot_timeout) < 0)
		return -EINVAL;
	a->mpi = mp;
	mp->expected = true;
	/* a file prefix per rank, and this rank's CPU unless -l/-c/--lcores */
	return rdx_boot_eal_args(mp->boot, *eal_argc, *eal_argv, eal_argc, eal_argv);
	return 0;
}

/* ---- an error of the whole job, printed once ---- */

/* The text a rank refused with, as the ranks compare it (longer: cut). */
#define SAID_MAX 1024u
struct said {
	int32_t bad;
	char text[SAID_MAX];
};

/*
 * Every rank gives the text it refused with (NULL: it did not refuse) in
 * one MPI_Allgather; each text is printed once, by the lowest rank that
 * has it, so that a bad option of an mpirun line shows one line, not one
 * per rank. raw: the text is complete lines (held before MPI started,
 * main.c), printed as they are; else one phrase, given "rdx-perf: " and
 * the ranks it stands for unless it is every rank's. Every rank must call
 * it at the same point (a collective).
 */
static void
said_once(const struct perf_mpi *mp, const char *text, bool raw)
{
	struct said me, *all;
	int q, same = 0;

	memset(&me, 0, sizeof(me));
	me.bad = text != NULL;
	if (text != NULL)
		snprintf(me.text, sizeof(me.text), "%s", text);
	all = calloc((size_t)mp->size, sizeof(*all));
	if (all == NULL ||
	    MPI_Allgather(&me, (int)sizeof(me), MPI_BYTE, all, (int)sizeof(me), MPI_BYTE,
			  MPI_COMM_WORLD) != MPI_SUCCESS) {
		free(all);
		all = NULL;       /* each rank says its own, as before */
	}
	for (q = 0; all != NULL && text != NULL && q < mp->size; q++) {
		if (!all[q].bad || strcmp(all[q].text, me.text) != 0)
			continue;
		if (q < mp->rank) {  /* a lower rank prints it */
			free(all);
			return;
		}
		same++;
	}
	free(all);
	if (text == NULL)
		return;
	if (raw)
		fputs(text, stderr);
	else if (same == mp->size)
		fprintf(stderr, "rdx-perf: %s\n", text);
	else if (same > 1)
		fprintf(stderr, "rdx-perf: rank %d and %d other rank(s): %s\n", mp->rank,
			same - 1, text);
	else
		fprintf(stderr, "rdx-perf: rank %d: %s\n", mp->rank, text);
	fflush(stderr);
}

/* perf_mpi_bad_input_said's lines until the first sync point */
static const char *held_said;
static bool first_sync_done;

int
perf_mpi_roles(struct perf_app *a)
{
	struct perf_mpi *mp = a->mpi;
	const struct perf_opts *o = &a->o;
	uint32_t *ts;
	uint64_t hz = rdx_tsc_hz();
	char err[256] = "";
	int r, rc = 0;

	/* every rank is up (EAL started): a rank stuck before here is named */
	if (perf_mpi_agree(a, 0, "start (MPI_Init to EAL)") < 0)
		return -EIO;
	perf_mpi_default_qps(a, mp);
	mp->t = perf_sweep_last(o) * a->nb_lcores;
	mp->lcore0 = a->lcore_ids[0];
	mp->hosts = calloc((size_t)mp->size, sizeof(*mp->hosts));
	mp->hz = calloc((size_t)mp->size, sizeof(*mp->hz));
	ts = calloc((size_t)mp->size, sizeof(*ts));
	if (mp->hosts == NULL || mp->hz == NULL || ts == NULL)
		return -ENOMEM;
	if (rdx_boot_connect(mp->boot) < 0)
		return -ENOMEM;
	for (r = 0; r < mp->size; r++)
		snprintf(mp->hosts[r], sizeof(mp->hosts[r]), "%s", rdx_boot_host(mp->boot, r));
	MPI_Allgather(&hz, 1, MPI_UINT64_T, mp->hz, 1, MPI_UINT64_T, MPI_COMM_WORLD);
	MPI_Allgather(&mp->t, 1, MPI_UINT32_T, ts, 1, MPI_UINT32_T, MPI_COMM_WORLD);
	mp->same_hz = true;
	for (r = 0; r < mp->size; r++)
		mp->same_hz = mp->same_hz && mp->hz[r] == hz;
	for (r = 0; r < mp->size && rc == 0; r++)
		if (ts[r] != ts[0]) {
			snprintf(err, sizeof(err), "ranks differ in QPs per rank (-q x lcores): rank 0 has %u, rank %d has %u",
				 ts[0], r, ts[r]);
			rc = -EINVAL;
		}
	free(ts);
	/* a collective on every rank, whatever came before */
	{
		char err2[sizeof(err)];

		if (perf_mpi_sig_check(mp, o, rc == 0 ? err : err2, sizeof(err)) < 0 && rc == 0)
			rc = -EINVAL;
	}
	if (rc == 0)
		rc = perf_topo_check(mp->m.pattern, mp->size, mp->t, err, sizeof(err));
	/* this rank's own arguments: the others learn it at the sync point below */
	if (rc == 0 && (o->server || o->connect != NULL || o->loopback || o->rdma_cm)) {
		snprintf(err, sizeof(err), "--pattern replaces --server, --connect, --loopback and -R (MPI connects the QPs)");
		rc = -EINVAL;
	}
	if (rc == 0 && perf_transport_rpc(o->transport) != (mp->m.pattern == PERF_PATTERN_CLUSTERPERF)) {
		snprintf(err, sizeof(err), mp->m.pattern == PERF_PATTERN_CLUSTERPERF ?
			 "--pattern clusterperf runs lib/rpc: --transport infrc, basic+infud or homa+infud, not %s" :
			 "--pattern runs raw QPs: --transport rc or ud, not %s (lib/rpc's benchmarks: --pattern clusterperf)",
			 perf_transport_name(o->transport));
		rc = -EINVAL;
	}
	if (rc == 0 && mp->m.pattern == PERF_PATTERN_CLUSTERPERF && o->servers >= (uint32_t)mp->size) {
		snprintf(err, sizeof(err), "--pattern clusterperf --servers %u needs at least one client rank: mpirun started %d ranks",
			 o->servers, mp->size);
		rc = -EINVAL;
	}
	if (rc == 0 && a->eng->atomic && o->verify && mp->m.pattern != PERF_PATTERN_PAIRS) {
		snprintf(err, sizeof(err), "--verify of %s needs --pattern pairs (one client per key region)",
			 o->test);
		rc = -EINVAL;
	}
	/* an error of the whole job (every rank alike) once, not per rank */
	said_once(mp, rc < 0 ? err : NULL, false);
	/* refused on some ranks only (MPMD): every rank ends, naming one */
	rc = perf_mpi_agree(a, rc, "accept its options");
	if (rc < 0)
		return rc;
	perf_topo_counts(mp->m.pattern, mp->size, mp->t, mp->rank, &mp->ncli, &mp->nsrv);
	if (mp->m.pattern == PERF_PATTERN_CLUSTERPERF) {
		/* ranks 0 .. S-1 serve (one rpc endpoint each), the others call */
		mp->rpc_servers = o->servers;
		mp->ncli = (uint32_t)mp->rank >= o->servers ? mp->t : 0;
		mp->nsrv = mp->ncli == 0;
	}
	a->client = mp->ncli > 0;
	a->responder = mp->nsrv > 0;
	if (o->wrlog != NULL) {
		/* each rank its own log: FILE.r<rank> (then .<lcore>, .s<size>) */
		mp->wrlog_rank = str_printf("%s.r%d", o->wrlog, mp->rank);
		if (mp->wrlog_rank == NULL)
			return -ENOMEM;
		a->o.wrlog = mp->wrlog_rank;
	}
	return 0;
}

/* The offset (in endpoints) of rank r's data in the gathered array, and
 * its client / server counts. */
static uint32_t
rank_base(const struct perf_mpi *mp, int r, uint32_t *ncli)
{
	uint32_t base = 0, c, s;
	int q;

	for (q = 0; q < r; q++) {
		perf_topo_counts(mp->m.pattern, mp->size, mp->t, q, &c, &s);
		base += c + s;
	}
	perf_topo_counts(mp->m.pattern, mp->size, mp->t, r, &c, &s);
	*ncli = c;
	return base;
}

static int
connect_all(struct perf_app *a, struct wire_ep *all)
{
	struct perf_mpi *mp = a->mpi;
	char err[256];
	uint32_t i, nc;
	int rc;

	for (i = 0; i < mp->ncli + mp->nsrv; i++) {
		bool cli = i < mp->ncli;
		uint32_t k = cli ? i : i - mp->ncli;
		struct perf_topo_ep e = cli ?
			perf_topo_cli_peer(mp->m.pattern, mp->size, mp->t, mp->rank, k) :
			perf_topo_srv_peer(mp->m.pattern, mp->size, mp->t, mp->rank, k);
		uint32_t base = rank_base(mp, e.peer, &nc);
		const struct wire_ep *w = &all[base + (cli ? nc : 0) + e.idx];

		if (perf_wire_ep_check(a, w, err, sizeof(err)) < 0) {
			fprintf(stderr, "rdx-perf: rank %d: QP %u of rank %d: %s\n", mp->rank, e.idx,
				e.peer, err);
			return -EPROTO;
		}
		rc = perf_ep_connect(a, cli ? &a->cli[k] : &a->srv[k], w);
		if (rc < 0)
			return rc == -EPROTO ? -EPROTO : -EIO;
	}
	return 0;
}

int
perf_mpi_boot(struct perf_app *a)
{
	struct perf_mpi *mp = a->mpi;
	struct wire_ep *mine = NULL, *all = NULL;
	int *counts = NULL, *displs = NULL;
	uint32_t i, nc, total = 0;
	unsigned int l;
	int r, rc;

	a->total_qps = a->client ? mp->t : mp->nsrv;
	rc = perf_alloc_lcores(a);
	if (rc == 0)
		rc = perf_alloc_eps(a);
	/* --flows-start: the per-WR log even without -o */
	for (l = 0; l < a->nb_lcores && rc == 0 && a->client; l++)
		if (a->lcores[l].log == NULL && mp->m.flows != PERF_FLOWS_OFF) {
			a->lcores[l].log = malloc(sizeof(*a->lcores[l].log) * PERF_WRLOG_CAP);
			if (a->lcores[l].log == NULL)
				rc = -ENOMEM;
		}
	rc = perf_mpi_agree(a, rc, "make its QPs");
	if (rc < 0)
		return rc;
	rc = -ENOMEM;
	mine = calloc((size_t)(mp->ncli + mp->nsrv) + 1, sizeof(*mine));
	counts = calloc((size_t)mp->size, sizeof(int));
	displs = calloc((size_t)mp->size, sizeof(int));
	if (mine != NULL && counts != NULL && displs != NULL) {
		for (r = 0; r < mp->size; r++) {
			uint32_t c, s;

			perf_topo_counts(mp->m.pattern, mp->size, mp->t, r, &c, &s);
			displs[r] = (int)(total * sizeof(struct wire_ep));
			counts[r] = (int)((c + s) * sizeof(struct wire_ep));
			total += c + s;
		}
		all = calloc(total, sizeof(*all));
	}
	if (all != NULL) {
		for (i = 0; i < mp->ncli; i++)
			perf_ep_wire_fill(&a->cli[i], &mine[i]);
		for (i = 0; i < mp->nsrv; i++)
			perf_ep_wire_fill(&a->srv[i], &mine[mp->ncli + i]);
		rc = 0;
	}
	rc = perf_mpi_agree(a, rc, "describe its QPs");
	if (rc == 0) {
		MPI_Allgatherv(mine, counts[mp->rank], MPI_BYTE, all, counts, displs, MPI_BYTE,
			       MPI_COMM_WORLD);
		(void)rank_base(mp, mp->rank, &nc);
		rc = connect_all(a, all);
		rc = perf_mpi_agree(a, rc, "connect its QPs");
	}
	free(mine);
	free(all);
	free(counts);
	free(displs);
	if (rc == 0 && mp->rank == 0) {
		unsigned int hosts = 0;
		int q;

		for (r = 0; r < mp->size; r++) {
			for (q = 0; q < r && strcmp(mp->hosts[q], mp->hosts[r]) != 0; q++)
				;
			hosts += q == r;
		}
		printf("rdx-perf: --pattern %s: %d ranks on %u host(s), %u QPs per client rank, connected through MPI\n",
		       perf_pattern_name(mp->m.pattern), mp->size, hosts, mp->t);
	}
	return rc;
}

/* ---- every rank's word, bounded in time (lib/boot's mpi provider) ---- */

/* Every rank's rc: the first failing rank's (and a line naming it on the
 * ranks that did not fail), or 0. Every rank must call it; one that does
 * not within the bootstrap timeout ends the job. */
int
perf_mpi_agree(struct perf_app *a, int rc, const char *what)
{
	struct perf_mpi *mp = a->mpi;
	struct rdx_boot_sync s = { .what = what, .rc = rc, .early = mp->early };

	rc = rdx_boot_sync(mp->boot, &s);
	if (s.status < 0)
		mp->failed = true;
	/* the first sync point failed: a rank may have refused its arguments
	 * before MPI started; every rank is here and compares (said_once) */
	if (!first_sync_done) {
		first_sync_done = true;
		if (s.status < 0)
			said_once(mp, held_said, true);
	}
	return rc;
}

/* The responder of this rank until the run is over everywhere: the
 * worker lcores each run an rdx_lcore_loop serving their endpoints, the
 * main lcore serves its own (when it has some) between looks at MPI. */
struct mpi_serve {
	struct rdx_lcore_loop loop;
	struct perf_serve_poller sp;
};
static struct mpi_serve mpi_serves[RDX_MAX_LCORES];

static int
mpi_serve_main(void *arg)
{
	struct mpi_serve *s = arg;

	rdx_lcore_loop_run(&s->loop);
	return s->sp.rc;
}

/* between looks at MPI at the end of a run */
struct serve_idle {
	struct perf_app *a;
	struct mpi_serve *on_main;
};

static void
serve_idle(void *arg)
{
	struct serve_idle *w = arg;
	struct mpi_serve *on_main = w->on_main;
	unsigned int n;

	if (on_main != NULL) {
		/* a look at MPI every 1024 passes */
		for (n = 0; n < 1024 && on_main->sp.rc == 0; n++)
			perf_serve_poll(&on_main->sp);
		if (on_main->sp.rc != 0)
			usleep(1000);
	} else if (w->a->mpi->idle != NULL) {
		w->a->mpi->idle(w->a);
	} else {
		usleep(500);
	}
}

static bool
rank_is_client(int r, void *arg)
{
	const struct serve_idle *w = arg;

	return perf_mpi_rank_is_client(w->a->mpi, r);
}

/* The end-of-run sync point (s) with this rank's endpoints served meanwhile;
 * the serving's own failure, or 0. */
static int
serve_until_end(struct perf_app *a, struct rdx_boot_sync *sync)
{
	unsigned int main_lcore = rte_get_main_lcore(), l;
	struct serve_idle w = { .a = a };
	struct mpi_serve *on_main = NULL;
	const bool serves = a->responder && perf_engine_serves(a->eng, a->o.mode);
	int rc = 0, lrc;

	for (l = 0; l < a->nb_lcores && serves; l++) {
		struct mpi_serve *s = &mpi_serves[l];

		rdx_lcore_loop_init(&s->loop);
		s->sp.loop = &s->loop;
		s->sp.lc = &a->lcores[l];
		s->sp.rc = 0;
		rdx_lcore_loop_add(&s->loop, "serve", perf_serve_poll, &s->sp);
		if (a->lcore_ids[l] == main_lcore)
			on_main = s;
		else
			rte_eal_remote_launch(mpi_serve_main, s, a->lcore_ids[l]);
	}
	w.on_main = on_main;
	sync->idle = serve_idle;
	sync->is_client = rank_is_client;
	sync->arg = &w;
	(void)rdx_boot_sync(a->mpi->boot, sync);
	for (l = 0; l < a->nb_lcores && serves; l++)
		if (&mpi_serves[l] != on_main)
			rdx_lcore_loop_stop(&mpi_serves[l].loop);
	for (l = 0; l < a->nb_lcores && serves; l++) {
		if (&mpi_serves[l] == on_main)
			lrc = on_main->sp.rc;
		else
			lrc = rte_eal_wait_lcore(a->lcore_ids[l]);
		if (lrc < 0 && rc == 0)
			rc = lrc;
	}
	return rc;
}

/*
 * After this rank's part of the run (rc: how it went): tell rank 0, serve
 * until every rank has ended, learn the verdict. Returns the verdict's
 * status (< 0: a rank failed); *stop: no more runs.
 */
int
perf_mpi_end_run(struct perf_app *a, int rc, bool *stop)
{
	struct perf_mpi *mp = a->mpi;
	char what[48];
	struct rdx_boot_sync st = {
		.what = what, .rc = rc, .early = mp->early, .run_end = true, .client = a->client,
		.run_ms = a->o.duration != 0 ?
			(uint64_t)((a->o.duration + a->o.warmup_s) * 1000.0) : 0,
	};
	int src;

	snprintf(what, sizeof(what), "end run %u", mp->run_no);
	rc = serve_until_end(a, &st);
	*stop = st.stop != 0;
	if (st.stop != 0 && st.status >= 0) {
		src = st.stop - 1;
		/* what rank 0's report says stopped it */
		snprintf(a->stop_reason, sizeof(a->stop_reason), "SIGINT/SIGTERM on rank %d (%s) in run %u",
			 src, mp->hosts[src], mp->run_no);
		if (src == mp->rank)
			fprintf(stderr, "rdx-perf: rank %d: interrupted (SIGINT/SIGTERM) in run %u: no more runs, this run's figures are partial\n",
				mp->rank, mp->run_no);
		else
			fprintf(stderr, "rdx-perf: rank %d: rank %d (%s) was interrupted (SIGINT/SIGTERM) in run %u: no more runs, this run's figures are partial\n",
				mp->rank, src, mp->hosts[src], mp->run_no);
	}
	if (st.status < 0) {
		mp->failed = true;
		src = st.rank;
		if (src != mp->rank)
			fprintf(stderr, "rdx-perf: rank %d: run %u failed on rank %d (%s): %s; stopping\n",
				mp->rank, mp->run_no, src, mp->hosts[src], strerror(-st.status));
		if (a->fail_reason[0] == '\0')
			snprintf(a->fail_reason, sizeof(a->fail_reason), "run %u failed on rank %d (%s): %s",
				 mp->run_no, src, mp->hosts[src], strerror(-st.status));
		return st.status;
	}
	/* a serving error after this rank's word: the next agree() carries it */
	return rc < 0 ? rc : 0;
}

/*
 * The end of run mp->run_no on every rank, for the raw-QP runs and the
 * lib/rpc runs (rpc_mpi.c) alike: the end-of-run sync point (serving
 * meanwhile), this rank's tally of the run (r->tally, unless NULL), then,
 * unless a rank failed there, "serve run N", the run's rows (r->report)
 * and "report run N". rc: this rank's run; *stop: no more runs. 0, or
 * the first failing rank's error (a->mpi->failed set when it was not this
 * rank's own report).
 */
int
perf_mpi_run_over(struct perf_app *a, int rc, bool *stop, const struct perf_mpi_run *r)
{
	struct perf_mpi *mp = a->mpi;
	char what[48];

	rc = perf_mpi_end_run(a, rc, stop);
	if (r->tally != NULL)
		r->tally(a, rc, *stop);
	if (mp->failed)
		return rc < 0 ? rc : -EIO;
	snprintf(what, sizeof(what), "serve run %u", mp->run_no);
	rc = perf_mpi_agree(a, rc, what);
	if (rc < 0)
		return rc;
	a->nb_runs++;
	rc = r->report(a, r->arg);
	snprintf(what, sizeof(what), "report run %u", mp->run_no);
	return perf_mpi_agree(a, rc, what);
}

/*
 * The last sync point of the runs (both benchmarks): every rank passed its
 * checks, then the --verify errors summed over the ranks (rank 0 says so).
 */
int
perf_mpi_final_checks(struct perf_app *a, int rc)
{
	struct perf_mpi *mp = a->mpi;
	uint64_t errs = a->verify_errors, tot_errs = 0;

	rc = perf_mpi_agree(a, rc, "pass the final checks");
	if (rc < 0)
		return rc;
	MPI_Reduce(&errs, &tot_errs, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
	if (a->o.verify && mp->rank == 0)
		fprintf(stderr, "rdx-perf: --verify over %d ranks: %" PRIu64 " errors%s\n", mp->size,
			tot_errs, tot_errs == 0 ? ": OK" : "");
	return 0;
}

/* perf_mpi_runs: this rank's share of a raw-QP run */
static void
raw_tally(struct perf_app *a, int rc, bool stop)
{
	const struct perf_opts *o = &a->o;
	unsigned int l, k;

	/* a rank was interrupted: the figures of this run are partial */
	a->run_cut = stop;
	if (rc == 0 && o->transport == PERF_TRANSPORT_UD && a->responder)
		for (l = 0; l < a->nb_lcores; l++)
			perf_serve_drain(&a->lcores[l]);
	for (l = 0; l < a->nb_lcores; l++) {
		a->verify_errors += a->lcores[l].verify_errors;
		a->lcores[l].verify_errors = 0;
		if (a->lcores[l].err != 0 && !a->client)
			fprintf(stderr, "rdx-perf: rank %d: %s\n", a->mpi->rank,
				a->lcores[l].errmsg);
		for (k = 0; k < o->keys; k++) {
			a->key_total[k] += a->lcores[l].key_adds[k];
			a->lcores[l].key_adds[k] = 0;
		}
	}
	if (a->client && a->eng->teardown != NULL)
		a->eng->teardown(a);
}

static int
raw_report(struct perf_app *a, void *arg)
{
	const unsigned int *nruns = arg;
	int rc = perf_cluster_run(a, a->nb_runs == *nruns);

	if (rc == 0 && a->o.wrlog != NULL && a->client)
		rc = perf_wrlog_write(a);
	return rc;
}

/* usleep takes 32 bits of microseconds; a stagger of a minute times many
 * ranks does not fit (EINTR: SIGINT ends the wait, the run then stops) */
static void
sleep_us(uint64_t us)
{
	struct timespec ts = { .tv_sec = (time_t)(us / 1000000u),
			       .tv_nsec = (long)(us % 1000000u) * 1000 };

	nanosleep(&ts, NULL);
}

/* The runs of perf_mpi_runs from the first-th on (QPs, then size) have no
 * row: the report lists them as not run. */
static void
mpi_not_run_from(struct perf_app *a, unsigned int first)
{
	const struct perf_opts *o = &a->o;
	unsigned int i = 0, s;
	uint32_t q;

	for (q = o->sweep_lo; q <= o->sweep_hi; q = perf_sweep_next(o, q))
		for (s = 0; s < o->nb_sizes; s++)
			if (i++ >= first)
				perf_report_not_run(a, o->sizes[s], q, 0);
}

int
perf_mpi_runs(struct perf_app *a)
{
	struct perf_mpi *mp = a->mpi;
	const struct perf_opts *o = &a->o;
	unsigned int nruns = 0, s, cidx = 0;
	const struct perf_mpi_run run = { .tally = raw_tally, .report = raw_report, .arg = &nruns };
	char what[64];
	bool stop = false;
	uint32_t q;
	int rc, r;

	for (r = 0; r < mp->rank; r++)
		cidx += perf_mpi_rank_is_client(mp, r);
	for (q = o->sweep_lo; q <= o->sweep_hi; q = perf_sweep_next(o, q))
		nruns += o->nb_sizes;
	rc = perf_mpi_agree(a, perf_cluster_init(a), "start its report");
	for (q = o->sweep_lo; q <= o->sweep_hi && rc == 0 && !stop; q = perf_sweep_next(o, q)) {
		for (s = 0; s < o->nb_sizes && rc == 0 && !stop; s++) {
			mp->run_no++;
			perf_run_prepare(a, o->sizes[s], q, NULL);
			if (a->client && a->eng->setup != NULL)
				rc = a->eng->setup(a);
			snprintf(what, sizeof(what), "prepare run %u", mp->run_no);
			/* also the barrier: every receive is posted before any send */
			rc = perf_mpi_agree(a, rc, what);
			if (rc < 0)
				break;
			if (a->client) {
				if (mp->m.flows == PERF_FLOWS_STAGGERED && cidx > 0)
					/* 64-bit: cidx x 60 s passes 2^32 us
					 * from the 72nd client rank */
					sleep_us((uint64_t)cidx * mp->m.stagger_ms * 1000u);
				rc = a->launch_clients(a);
			}
			rc = perf_mpi_run_over(a, rc, &stop, &run);
		}
	}
	if (rc == 0 && o->verify && a->client && a->eng->verify_end != NULL)
		rc = a->eng->verify_end(a);
	if (mp->rank == 0)
		mpi_not_run_from(a, a->nb_runs);
	if (mp->failed) {
		/* rank 0's report says so (the others are leaving: nothing
		 * here waits for them) */
		if (mp->rank == 0 && a->rep != NULL) {
			perf_report_end(a, rc < 0 ? rc : -EIO);
			if (a->nb_runs > 0)
				perf_report_finish(a);
			else
				perf_report_files(a);
		}
		return rc < 0 ? rc : -EIO;
	}
	rc = perf_mpi_final_checks(a, rc);
	if (rc < 0)
		return rc;
	if (mp->rank == 0)
		perf_report_end(a, stop ? -EINTR : 0);
	rc = perf_cluster_finish(a);
	rc = perf_mpi_agree(a, rc, "write the report");
	/* a rank was interrupted: the report has the runs so far, the exit
	 * says the job did not complete */
	if (rc == 0 && stop)
		rc = -EINTR;
	/* the others are past their last sync point: an error after this
	 * (main's own checks) is this rank's exit code only */
	mp->expected = false;
	return rc;
}

int
perf_mpi_bad_input(const struct perf_mpi_opts *m)
{
	return perf_mpi_bad_input_said(m, NULL);
}

int
perf_mpi_bad_input_said(const struct perf_mpi_opts *m, const char *said)
{
	static struct perf_app bad;
	struct perf_mpi *mp = &mpi_state;

	/* mpirun ends the job at the first rank that exits non-zero: every
	 * rank says its line before any leaves. The ranks whose arguments
	 * were accepted (another part of an MPMD command line) have started
	 * their EAL and wait at the first sync point (perf_mpi_roles): this
	 * rank takes part in it with its failure, so that they all end (exit
	 * 2) naming it. The options were not read: the default bootstrap
	 * timeout (10 s) bounds the wait. */
	if (!m->wanted || mpi_start(mp, m, 10) < 0) {
		if (said != NULL)
			fputs(said, stderr);
		return PERF_EXIT_BAD_INPUT;
	}
	fflush(stderr);
	/* the lines are printed at the sync point, once for the ranks that
	 * have the same (said_once) */
	held_said = said;
	bad.mpi = mp;
	bad.o.boot_timeout = 10;
	mp->early = true;
	(void)perf_mpi_agree(&bad, -EINVAL, "start (MPI_Init to EAL)");
	rdx_boot_close(mp->boot);
	mp->boot = NULL;
	return PERF_EXIT_BAD_INPUT;
}

int
perf_mpi_fini(struct perf_app *a, int rc)
{
	struct perf_mpi *mp = a->mpi;

	if (mp == NULL)
		return rc;
	/* leaving with an error where the others wait for this rank's word
	 * (a device that does not open, an option refused after the EAL):
	 * give it, so that they stop at once naming this rank instead of
	 * timing out on it (or, behind rank 0, waiting in MPI_Finalize) */
	if (rc != 0 && mp->expected && !mp->failed) {
		mp->early = true;
		(void)perf_mpi_agree(a, rc == PERF_EXIT_BAD_INPUT ? -EINVAL : -EIO, "leave");
	}
	perf_cluster_fini(a);
	rdx_boot_close(mp->boot);
	mp->boot = NULL;
	free(mp->hosts);
	free(mp->hz);
	free(mp->wrlog_rank);
	a->mpi = NULL;
	return rc;
}
