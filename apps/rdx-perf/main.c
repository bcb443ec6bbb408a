/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx-perf: RDMA benchmarks on the rdx device API, shaped like DPDK
 * test-pmd. main owns the EAL arguments, the options, the lcore launch and
 * the reports; each test is an engine, one file each (engines.c lists
 * them), run by one of two loops (stream.c, pingpong.c).
 *
 *   rdx-perf [EAL options] -- --test NAME [options]
 *
 * Worker lcores each run their own QPs to completion; the main lcore does
 * control (the bootstrap connection) and reporting. With no worker lcore
 * the main lcore runs the test itself.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "rdx_boot.h"
#include "rdx_config.h"
#include "rdx_conn.h"
#include "rdx_hist.h"
#include "rdx_perf.h"
#include "rdx_report.h"
#include "rdx_runtime.h"

#include "perf_app.h"
#include "perf_mpi.h"
#include "perf_opts.h"
#include "perf_wire.h"

static struct perf_app app;

/* The client loop of the engine in this mode (stream.c, pingpong.c). */
static int
run_fn(struct perf_lcore *lc)
{
	if (perf_engine_loop(lc->eng, lc->o->mode) == PERF_LOOP_PINGPONG)
		return perf_pingpong_run(lc);
	return perf_stream_run(lc);
}

static int
lcore_client(void *arg)
{
	struct perf_lcore *lc = arg;
	const struct perf_run *run = lc->run;
	int rc;

	lc->ops = 0;
	lc->bytes = 0;
	lc->cas_ok = 0;
	lc->cas_fail = 0;
	lc->polls = 0;
	lc->busy_polls = 0;
	lc->log_n = 0;
	lc->log_full = false;
	lc->err = 0;
	lc->errmsg[0] = '\0';
	rdx_hist_reset(lc->hist);
	for (unsigned int i = 0; i < lc->nb_eps; i++)
		lc->eps[i]->run_base = lc->eps[i]->completed;
	if (!lc->perf_ok)
		lc->perf_ok = rdx_perf_open(&lc->perf, false) == 0;
	if (run->warm_iters != 0 || run->warm_tsc != 0) {
		lc->measure = false;
		rc = run_fn(lc);
		if (rc < 0)
			return rc;
		lc->polls = 0;
		lc->busy_polls = 0;
	}
	lc->measure = true;
	if (lc->perf_ok)
		rdx_perf_read(&lc->perf, &lc->ps0);
	lc->t_start = rdx_tsc();
	rc = run_fn(lc);
	lc->t_end = rdx_tsc();
	if (lc->perf_ok)
		rdx_perf_read(&lc->perf, &lc->ps1);
	/* the stream loop's checks that need the whole run (read-back) */
	if (rc == 0 && lc->o->verify && lc->eng->verify_run != NULL &&
	    perf_engine_loop(lc->eng, lc->o->mode) == PERF_LOOP_STREAM)
		rc = lc->eng->verify_run(lc);
	return rc;
}

static bool
clients_running(const struct perf_app *a)
{
	unsigned int l;

	for (l = 0; l < a->nb_lcores; l++)
		if (rte_eal_get_lcore_state(a->lcore_ids[l]) == RUNNING)
			return true;
	return false;
}

/* --loopback-lcores split: end the main lcore's loop once the clients are
 * done (a look every 1024 passes). */
struct split_watch {
	struct rdx_lcore_loop *loop;
	const struct perf_app *a;
	unsigned int n;
};

static int
split_watch_poll(void *arg)
{
	struct split_watch *w = arg;

	if ((++w->n & 1023) == 0 && !clients_running(w->a))
		rdx_lcore_loop_stop(w->loop);
	return 0;
}

/* --loopback-lcores split: the server ends live on the main lcore, served
 * by an rdx_lcore_loop until the clients are done. Not stopped by the stop
 * flag: the clients drain after it, which needs the responder. */
static int
serve_split(struct perf_app *a)
{
	static struct rdx_lcore_loop loop;
	struct perf_serve_poller sp = { .loop = &loop, .lc = &a->serve_lc };
	struct split_watch w = { .loop = &loop, .a = a };

	rdx_lcore_loop_init(&loop);
	rdx_lcore_loop_add(&loop, "serve", perf_serve_poll, &sp);
	rdx_lcore_loop_add(&loop, "clients", split_watch_poll, &w);
	while (!loop.stop)
		rdx_lcore_loop_run_once(&loop);
	if (sp.rc < 0) {
		a->run.abort = true;
		perf_run_error(a, "%s", a->serve_lc.errmsg);
		a->serve_lc.nb_srv = 0;
	}
	return sp.rc;
}

/* Launch the client lcores, watch the peer, wait. */
static int
launch_clients(struct perf_app *a)
{
	unsigned int main_lcore = rte_get_main_lcore();
	unsigned int l;
	bool on_main = false;
	int rc = 0, lrc;

	for (l = 0; l < a->nb_lcores; l++) {
		a->lcores[l].watch = NULL;
		if (a->lcore_ids[l] == main_lcore) {
			on_main = true;
			a->lcores[l].watch = a->conn;
			a->lcores[l].next_watch = 0;
			continue;
		}
		rte_eal_remote_launch(lcore_client, &a->lcores[l], a->lcore_ids[l]);
	}
	if (on_main) {
		rc = lcore_client(&a->lcores[0]);
	} else {
		if (a->serve_lc.nb_srv > 0)
			rc = serve_split(a);
		for (;;) {
			if (!clients_running(a))
				break;
			if (a->conn != NULL && !a->run.abort && rdx_conn_peer_alive(a->conn) < 0)
				a->run.abort = true;
			usleep(2000);
		}
	}
	for (l = 0; l < a->nb_lcores; l++) {
		if (a->lcore_ids[l] == main_lcore)
			continue;
		lrc = rte_eal_wait_lcore(a->lcore_ids[l]);
		if (lrc < 0 && rc == 0)
			rc = lrc;
	}
	for (l = 0; l < a->nb_lcores; l++)
		if (a->lcores[l].err != 0)
			perf_run_error(a, "%s", a->lcores[l].errmsg);
	return rc;
}

/* What the bootstraps that start runs call (perf_app.launch_clients): a -b
 * server's own loop gets its row's --cpu_util / -W, as the client's. */
static int
launch_clients_measured(struct perf_app *a)
{
	int rc;

	if (a->client)
		return launch_clients(a);
	perf_host_stats_begin();
	rc = launch_clients(a);
	perf_host_stats_end();
	return rc;
}

/* The endpoints of a two-process or MPI run: the bootstrap finds the
 * peer's and connects them (perf_setup planned them). */
static int
boot_endpoints(struct perf_app *a)
{
#ifdef RDX_PERF_MPI
	if (a->mpi != NULL)
		return perf_mpi_boot(a);
#endif
	return a->client ? perf_boot_client(a) : perf_boot_server(a);
}

/* --rate R (total ops/s of this process): the period of one QP's schedule
 * (rate.h); 0 leaves the run closed-loop. */
static void
run_rate_set(struct perf_app *a, double rate)
{
	/* -b: both ends of each pair post (setup.c) */
	double qps = (double)a->run.qps * a->nb_lcores * (a->o.bidir ? 2 : 1);

	a->run.offered = rate;
	a->run.rate_period = rate > 0 ? (double)rdx_tsc_hz() * qps / rate : 0;
}

/* One run: one size, QP count and offered rate. */
static int
client_one_run(struct perf_app *a, uint64_t size, uint32_t q, double rate, bool warm,
	       unsigned int nruns)
{
	const struct perf_opts *o = &a->o;
	uint64_t peer_errors = 0;
	unsigned int l, k;
	int rc;

	perf_run_prepare(a, size, q, NULL);
	/* --tx-depth-sweep: this step's ops in flight (the queues fit the largest) */
	if (a->tx_step != 0)
		a->run.window = RTE_MIN(a->tx_step, a->run.window);
	run_rate_set(a, rate);
	if (!warm) {
		/* --run_infinitely: only the first interval warms up */
		a->run.warm_iters = 0;
		a->run.warm_tsc = 0;
	}
	if (a->eng->setup != NULL) {
		rc = a->eng->setup(a);
		if (rc < 0)
			return rc;
	}
	if (a->conn != NULL) {
		rc = perf_client_run_begin(a);
		if (rc == -EINTR && rdx_runtime_stopping())
			return 0;    /* Ctrl-C before the run: nothing to report */
		if (rc < 0)
			return rc;
	}
	perf_host_stats_begin();
	rc = launch_clients(a);
	perf_host_stats_end();
	/* the loops ended before the run was done: by the stop flag, an
	 * error, or the peer gone; the row covers what was measured */
	a->run_cut = rc < 0 || a->run.abort || rdx_runtime_stopping();
	if (a->conn != NULL && rc == 0 && !a->run.abort) {
		int erc = perf_client_run_end(a, &peer_errors);

		/* Ctrl-C during END/ENDACK: the run was measured (END went out:
		 * a send does not wait; the goodbye below still goes out too) */
		if (erc == -EINTR && rdx_runtime_stopping())
			erc = 0;
		if (erc < 0 && rc == 0)
			rc = erc;
	}
	if (o->transport == PERF_TRANSPORT_UD && a->responder) {
		/* the lcores are done: their server ends are ours now */
		perf_serve_drain(&a->serve_lc);
		for (l = 0; l < a->nb_lcores; l++)
			perf_serve_drain(&a->lcores[l]);
	}
	a->verify_errors += a->serve_lc.verify_errors;
	a->serve_lc.verify_errors = 0;
	for (l = 0; l < a->nb_lcores; l++) {
		a->verify_errors += a->lcores[l].verify_errors;
		a->lcores[l].verify_errors = 0;
		for (k = 0; k < o->keys; k++) {
			a->key_total[k] += a->lcores[l].key_adds[k];
			a->lcores[l].key_adds[k] = 0;
		}
	}
	if (peer_errors != 0)
		perf_run_error(a, "--verify: the server found %" PRIu64 " bad bytes", peer_errors);
	a->verify_errors += peer_errors;
	if (a->eng->teardown != NULL)
		a->eng->teardown(a);
	a->nb_runs++;
	perf_report_run(a, a->nb_runs == nruns);
	if (rc == 0 && o->wrlog != NULL)
		rc = perf_wrlog_write(a);
	return rc;
}

/* The runs of client_runs from the first-th on (in its order: QPs, size,
 * rate) never started: the report lists them as not run. */
static void
client_not_run_from(struct perf_app *a, unsigned int first, uint32_t klo, uint32_t khi)
{
	const struct perf_opts *o = &a->o;
	const unsigned int nb_rates = o->nb_rates != 0 ? o->nb_rates : 1;
	unsigned int i = 0, s, r;
	uint32_t q, k;

	for (k = klo; k <= khi; k = perf_lsweep_next(o, k))
		for (q = o->sweep_lo; q <= o->sweep_hi; q = perf_sweep_next(o, q))
			for (s = 0; s < o->nb_sizes; s++)
				for (r = 0; r < nb_rates; r++)
					if (i++ >= first)
						perf_report_not_run(a, o->sizes[s], q,
								    o->nb_rates != 0 ? o->rates[r] :
								    o->rate);
}

/* The runs of one --lcore-sweep step (all runs without one): QP counts,
 * sizes, rates; *next counts the runs that started. */
static int
client_step_runs(struct perf_app *a, unsigned int nruns, unsigned int *next)
{
	const struct perf_opts *o = &a->o;
	const unsigned int nb_rates = o->nb_rates != 0 ? o->nb_rates : 1;
	unsigned int s, r;
	uint32_t q;
	int rc = 0;

	for (q = o->sweep_lo; q <= o->sweep_hi && rc == 0; q = perf_sweep_next(o, q)) {
		for (s = 0; s < o->nb_sizes && rc == 0; s++) {
			for (r = 0; r < nb_rates && rc == 0; r++) {
				double rate = o->nb_rates != 0 ? o->rates[r] : o->rate;
				const unsigned int before = a->nb_runs;
				bool warm = true;

				/* --run_infinitely: a row every -D s until Ctrl-C */
				do {
					rc = client_one_run(a, o->sizes[s], q, rate, warm, nruns);
					warm = false;
				} while (rc == 0 && o->infinite && !rdx_runtime_stopping());
				/* this one started when it has a row */
				if (a->nb_runs > before)
					(*next)++;
				if (rdx_runtime_stopping())
					return rc;
			}
		}
	}
	return rc;
}

static int
client_runs(struct perf_app *a)
{
	const struct perf_opts *o = &a->o;
	const unsigned int nb_rates = o->nb_rates != 0 ? o->nb_rates : 1;
	/* --lcore-sweep: the runs of each step on the first k worker lcores
	 * (the others idle); else every run on all of them */
	const unsigned int all = a->nb_lcores;
	const uint32_t klo = o->lsweep_lo != 0 ? o->lsweep_lo : all;
	const uint32_t khi = o->lsweep_lo != 0 ? o->lsweep_hi : all;
	/* --tx-depth-sweep: its steps (without one: a step of 0, the -t in force) */
	const uint32_t tlo = o->tsweep_lo, thi = o->tsweep_hi;
	unsigned int nruns = 0, next = 0, nsteps = 0, j;
	uint32_t q, k, t;
	int rc = 0;

	for (t = tlo; t <= thi; t = perf_tsweep_next(o, t))
		nsteps++;
	for (k = klo; k <= khi; k = perf_lsweep_next(o, k))
		for (q = o->sweep_lo; q <= o->sweep_hi; q = perf_sweep_next(o, q))
			nruns += o->nb_sizes * nb_rates * nsteps;
	for (t = tlo; t <= thi && rc == 0 && !rdx_runtime_stopping(); t = perf_tsweep_next(o, t)) {
		a->tx_step = t;
		for (k = klo; k <= khi && rc == 0 && !rdx_runtime_stopping();
		     k = perf_lsweep_next(o, k)) {
			a->nb_lcores = k;
			rc = client_step_runs(a, nruns, &next);
		}
	}
	a->nb_lcores = all;
	a->tx_step = 0;
	/* the runs not started, step by step (each step: nruns / nsteps) */
	for (t = tlo, j = 0; t <= thi; t = perf_tsweep_next(o, t), j++)
		if (next < (j + 1) * (nruns / nsteps))
			client_not_run_from(a, next > j * (nruns / nsteps) ? next - j * (nruns / nsteps) : 0,
					    klo, khi);
	if (rc == 0 && o->verify && a->eng->verify_end != NULL)
		rc = a->eng->verify_end(a);
	if (a->conn != NULL && rc == 0)
		perf_client_bye(a);
	return rc;
}

/* --keys / --key-stride against a --server: its buffers, planned from
 * the sizes, -t and --keys alone, hold every key: 0 or -EINVAL after one line */
static int
keys_fit(const struct perf_app *a)
{
	uint64_t maxsz = 0, span;
	unsigned int i;

	if (a->conn == NULL || !a->client || (a->o.keys <= 1 && a->o.key_stride == 0))
		return 0;
	for (i = 0; i < a->o.nb_sizes; i++)
		maxsz = RTE_MAX(maxsz, a->o.sizes[i]);
	span = perf_key_span(&a->o, a->eng->atomic ? 8 : maxsz);
	for (i = 0; i < a->total_qps; i++)
		if (a->cli[i].rlen < span) {
			fprintf(stderr, "rdx-perf: --keys %u --key-stride %" PRIu64 " span %" PRIu64 " bytes; the server's buffer holds %" PRIu64 " (across two processes: fewer keys, a smaller stride, or --loopback)\n",
				a->o.keys, perf_key_stride(&a->o, a->eng->atomic ? 8 : maxsz), span,
				a->cli[i].rlen);
			return -EINVAL;
		}
	return 0;
}

/* --pattern: MPI_Finalize on the way out (no-ops without MPI). */
static int
mpi_exit(struct perf_app *a, int code)
{
	/* results that never reached standard output (a full disk, a closed
	 * pipe) are a failed run, not a quiet exit 0 */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "rdx-perf: cannot write to standard output: %s\n", strerror(errno));
		if (code == 0)
			code = 1;
	}
#ifdef RDX_PERF_MPI
	return perf_mpi_fini(a, code);
#else
	(void)a;
	return code;
#endif
}

/*
 * The option checks' lines on stderr held in a file until we know whether
 * MPI started this process (--pattern): an mpirun line's bad option is
 * then printed once for the job, not once per rank (boot_mpi.c). Without
 * a file to hold them in, they are printed as they come.
 */
struct said_hold {
	FILE *f;
	int fd;                  /* the real stderr meanwhile */
};

static void
said_hold(struct said_hold *h)
{
	fflush(stderr);
	h->fd = -1;
	h->f = tmpfile();
	if (h->f == NULL)
		return;
	h->fd = dup(STDERR_FILENO);
	if (h->fd < 0 || dup2(fileno(h->f), STDERR_FILENO) < 0) {
		if (h->fd >= 0)
			close(h->fd);
		fclose(h->f);
		h->f = NULL;
		h->fd = -1;
	}
}

/* Back to the real stderr: the lines held (NULL: none), printed if print. */
static char *
said_release(struct said_hold *h, bool print)
{
	char *text = NULL;
	off_t n;

	if (h->f == NULL)
		return NULL;
	fflush(stderr);
	dup2(h->fd, STDERR_FILENO);
	close(h->fd);
	/* written through fd 2: the file's own stream never moved */
	n = lseek(fileno(h->f), 0, SEEK_END);
	if (n > 0 && n < (1 << 20) && (text = calloc(1, (size_t)n + 1)) != NULL &&
	    pread(fileno(h->f), text, (size_t)n, 0) != (ssize_t)n) {
		free(text);
		text = NULL;
	}
	fclose(h->f);
	h->f = NULL;
	if (print && text != NULL) {
		fputs(text, stderr);
		free(text);
		text = NULL;
	}
	return text;
}

/* Bad input: the lines held, once for an MPI job (boot_mpi.c). */
static int
mpi_bad_input(const struct perf_mpi_opts *m, struct said_hold *h)
{
#ifdef RDX_PERF_MPI
	char *said = said_release(h, !m->wanted);
	int rc = perf_mpi_bad_input_said(m, said);

	free(said);
	return rc;
#else
	(void)m;
	said_release(h, true);
	return PERF_EXIT_BAD_INPUT;
#endif
}

static int
mpi_runs(struct perf_app *a)
{
#ifdef RDX_PERF_MPI
	return perf_mpi_runs(a);
#else
	(void)a;
	return -ENOTSUP;
#endif
}

static uint8_t
ib_mtu_of(uint32_t bytes)
{
	switch (bytes) {
	case 256: return 1;
	case 512: return 2;
	case 1024: return 3;
	case 2048: return 4;
	case 4096: return 5;
	default: return 0;
	}
}

/* The software device counts what a NIC would reject of our datapath
 * (device errors: each logged as it happened): figures from a run that
 * had any are not clean. -EIO after one line, else 0. */
static int
device_errors_check(const struct perf_app *a)
{
	struct rdx_dev_xstat xs[128];
	int n, i;

	if (!a->attr->software)
		return 0;
	n = rdx_dev_xstats_get(a->dev, xs, RTE_DIM(xs));
	for (i = 0; i < n && i < (int)RTE_DIM(xs); i++)
		if (strcmp(xs[i].name, "sw_device_errors") == 0 && xs[i].value != 0) {
			fprintf(stderr, "rdx-perf: the software device counted %" PRIu64 " device error(s) (a datapath bug; logged above): the run is not clean\n",
				xs[i].value);
			return -EIO;
		}
	return 0;
}

static int
rpc_main(struct perf_app *a)
{
	int rc;

	perf_telemetry_state(PERF_TEL_RUNNING);
#ifdef RDX_PERF_MPI
	/* --pattern clusterperf: server and client ranks (rpc_mpi.c) */
	if (a->mpi != NULL) {
		a->responder = false;   /* no raw-QP serving at the sync points */
		rc = perf_rpc_mpi_main(a);
	} else
#endif
		rc = perf_rpc_main(a);
	perf_telemetry_state(PERF_TEL_DONE);
	if (a->verify_errors != 0) {
		fprintf(stderr, "rdx-perf: --verify: %" PRIu64 " errors\n", a->verify_errors);
		if (rc == 0)
			rc = -EIO;
	} else if (a->o.verify && rc == 0 && a->client) {
		fprintf(stderr, "rdx-perf: --verify: every response byte checked: OK\n");
	}
	if (rc == 0)
		rc = device_errors_check(a);
	rdx_boot_close(a->boot);
	a->boot = NULL;
	a->conn = NULL;
	rdx_dev_close(a->dev);
	rdx_runtime_cleanup();
	if (rc == -EINVAL || rc == -EPROTO || rc == -ECONNREFUSED || rc == -EADDRINUSE ||
	    rc == -ETIMEDOUT)
		return PERF_EXIT_BAD_INPUT;
	/* the client's report said interrupted (perf_report_end) */
	if ((a->client && (rc == 0 || rc == -EINTR) && rdx_runtime_stopping()) ||
	    (a->mpi != NULL && rc == -EINTR))
		return PERF_EXIT_INTERRUPTED;
	return rc < 0 ? 1 : 0;
}

/* The value of "progress=" among the devargs of a --dev name
 * ("sw:progress=thread,..."), or NULL. */
static const char *
dev_progress_devarg(const char *dev)
{
	const char *p = dev != NULL ? strchr(dev, ':') : NULL;
	const char *v = NULL;

	while (p != NULL) {
		p++;
		if (strncmp(p, "progress=", 9) == 0)
			v = p + 9; /* the last one counts, as the driver reads it */
		p = strchr(p, ',');
	}
	return v;
}

int
main(int argc, char **argv)
{
	struct perf_app *a = &app;
	struct perf_opts_given given;
	struct perf_mpi_opts mpo;
	struct said_hold held;
	char **eal_argv = argv;
	char *app_argv[256];
	int app_argc = 0, eal_argc = argc, i, rc;
	unsigned int ids[RDX_MAX_LCORES], nw;
	struct rdx_dev_conf dc;
	char progress_arg[32];
	int status = RDX_REPORT_STATUS_COMPLETED;

	/* perftest's program names (perftest_cli.c); otherwise app options
	 * after "--", and without "--" every argument is an app option */
	rc = perf_perftest_argv(argc, argv, &eal_argc, &eal_argv, &app_argc, app_argv,
				(int)RTE_DIM(app_argv));
	if (rc < 0)
		return PERF_EXIT_BAD_INPUT;
	if (rc > 0)
		goto parse;
	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0)
			break;
	app_argv[app_argc++] = argv[0];
	if (i == argc) {
		eal_argc = 1;
		i = 0;
	}
	if (argc - i - 1 > (int)RTE_DIM(app_argv) - 2) {
		fprintf(stderr, "rdx-perf: %d arguments after --: at most %d\n", argc - i - 1,
			(int)RTE_DIM(app_argv) - 2);
		return PERF_EXIT_BAD_INPUT;
	}
	for (i = i + 1; i < argc; i++)
		app_argv[app_argc++] = argv[i];
	app_argv[app_argc] = NULL;
parse:
	/* --pattern / --flows-start: ranks launched by MPI (boot_mpi.c) */
	said_hold(&held);
	memset(&mpo, 0, sizeof(mpo));
	if (perf_mpi_opts_take(&app_argc, app_argv, &mpo) < 0 ||
	    perf_mpi_opts_defaults(&app_argc, app_argv, (int)RTE_DIM(app_argv), &mpo) < 0 ||
	    perf_opts_parse(app_argc, app_argv, &a->o, &given) < 0)
		return mpi_bad_input(&mpo, &held);
	if (given.help) {
		said_release(&held, true);
		perf_usage(stdout);
		perf_mpi_usage(stdout);
		return 0;
	}
	if (given.version) {
		said_release(&held, true);
		printf("rdx-perf %s\n", RDX_VERSION_STR);
		return 0;
	}
	/* --cpu_util, -W, --lcore-sweep: around the runs of the raw-QP
	 * client loop of one process (not --pattern, not lib/rpc) */
	if ((a->o.cpu_util || a->o.counters != NULL || a->o.lsweep_lo != 0) &&
	    (mpo.pattern != PERF_PATTERN_NONE || perf_transport_rpc(a->o.transport))) {
		fprintf(stderr, "rdx-perf: %s with %s is not implemented\n",
			a->o.cpu_util ? "--cpu_util" : a->o.counters != NULL ? "-W" : "--lcore-sweep",
			mpo.pattern != PERF_PATTERN_NONE ? "--pattern" :
			"echo on lib/rpc (--transport infrc|basic+infud|homa+infud)");
		return mpi_bad_input(&mpo, &held);
	}
	said_release(&held, true);
	a->eng = perf_engine_find(a->o.test);
	a->client = !a->o.server;
	a->responder = a->o.connect == NULL;

#ifdef RDX_PERF_MPI
	if (mpo.pattern != PERF_PATTERN_NONE &&
	    perf_mpi_init(a, &mpo, &eal_argc, &eal_argv) < 0)
		return perf_mpi_fini(a, PERF_EXIT_BAD_INPUT);
#endif
	rc = rdx_runtime_init(eal_argc, eal_argv);
	if (rc < 0)
		return mpi_exit(a, rc == -EINVAL ? PERF_EXIT_BAD_INPUT : 1);

	nw = rdx_runtime_workers(ids, RDX_MAX_LCORES);
	if (nw == 0) {
		a->lcore_ids[0] = rte_get_main_lcore();
		a->nb_lcores = 1;
	} else {
		memcpy(a->lcore_ids, ids, nw * sizeof(ids[0]));
		a->nb_lcores = nw;
	}
#ifdef RDX_PERF_MPI
	if (a->mpi != NULL && perf_mpi_roles(a) < 0) {
		rdx_runtime_cleanup();
		return mpi_exit(a, PERF_EXIT_BAD_INPUT);
	}
#endif

	/* --lcore-sweep: steps of the worker lcores there are */
	if (a->o.lsweep_hi > a->nb_lcores) {
		fprintf(stderr, "rdx-perf: bad value '%u-%u' for --lcore-sweep: %u worker lcore(s) (EAL -l)\n",
			a->o.lsweep_lo, a->o.lsweep_hi, a->nb_lcores);
		rdx_runtime_cleanup();
		return mpi_exit(a, PERF_EXIT_BAD_INPUT);
	}
	/* --rate: each QP at >= 1 op/s (slower ones would trip the no-progress
	 * timeout between two ops) */
	{
		double lo = a->o.nb_rates != 0 ? a->o.rates[0] : a->o.rate;
		double qmax = (double)perf_sweep_last(&a->o) * a->nb_lcores;

		if (lo != 0 && lo < qmax) {
			fprintf(stderr, "rdx-perf: bad value '%.0f' for --rate: below 1 op/s for each of the %.0f QPs (the rate is the total of the process)\n",
				lo, qmax);
			rdx_runtime_cleanup();
			return mpi_exit(a, PERF_EXIT_BAD_INPUT);
		}
	}
	memset(&dc, 0, sizeof(dc));
	dc.driver = a->o.driver;
	dc.port = a->o.ib_port;                  /* -i */
	dc.gid_index = a->o.gid_index;           /* -x */
	dc.gid_index_set = a->o.gid_index >= 0;
	if (a->o.sw_progress_given) {
		const char *name = perf_sw_progress_name(a->o.sw_progress);
		const char *dv = dev_progress_devarg(a->o.dev);

		/* both say how the engine runs: one must not silently win */
		if (dv != NULL && (strncmp(dv, name, strlen(name)) != 0 ||
				   (dv[strlen(name)] != '\0' && dv[strlen(name)] != ','))) {
			fprintf(stderr, "rdx-perf: --sw-progress %s contradicts --dev %s\n", name, a->o.dev);
			rdx_runtime_cleanup();
			return mpi_exit(a, PERF_EXIT_BAD_INPUT);
		}
		snprintf(progress_arg, sizeof(progress_arg), "progress=%s", name);
		dc.devargs = progress_arg;
	}
	a->dev = rdx_dev_open(a->o.dev, &dc);
	if (a->dev == NULL) {
		/* rdx_dev_open names unknown devices and drivers itself */
		if (rte_errno != ENODEV && rte_errno != EINVAL && rte_errno != ENOTSUP)
			fprintf(stderr, "rdx-perf: cannot open device %s: %s\n",
				a->o.dev != NULL ? a->o.dev : "(default)", rte_strerror(rte_errno));
		rdx_runtime_cleanup();
		return mpi_exit(a, PERF_EXIT_BAD_INPUT);
	}
	a->attr = rdx_dev_attr_get(a->dev);
	/* the mode in effect (--dev sw:progress=... sets it too), for the
	 * checks that depend on it and the report */
	if (a->attr->software) {
		const int mode = rdx_sw_progress_mode_get(a->dev);

		if (mode >= 0)
			a->o.sw_progress = (enum rdx_sw_progress)mode;
	}
	/* -x names a GID: the software device has none (the run goes on) */
	if (a->attr->software && a->o.gid_index >= 0)
		fprintf(stderr, "rdx-perf: -x %d is unused: the software device has no GID table\n",
			a->o.gid_index);
	if (a->attr->software && a->o.ib_port > 1) {
		fprintf(stderr, "rdx-perf: bad value '%u' for -i: the software device has one port (1)\n",
			a->o.ib_port);
		rdx_dev_close(a->dev);
		rdx_runtime_cleanup();
		return mpi_exit(a, PERF_EXIT_BAD_INPUT);
	}
	/* --cpu_util, -W: a counter that cannot be read is bad input */
	if (perf_host_stats_init(a) < 0) {
		rdx_dev_close(a->dev);
		rdx_runtime_cleanup();
		return mpi_exit(a, PERF_EXIT_BAD_INPUT);
	}
	if (a->o.rdma_cm && strcmp(a->attr->driver, "verbs") != 0) {
		fprintf(stderr, "rdx-perf: -R (rdma_cm) needs the verbs driver: device %s runs driver %s%s\n",
			a->attr->name, a->attr->driver,
			a->attr->software ? " (the software device has no rdma_cm)" : " (give --driver verbs)");
		rdx_dev_close(a->dev);
		rdx_runtime_cleanup();
		return mpi_exit(a, PERF_EXIT_BAD_INPUT);
	}
	/* READ and atomics send no data and device memory is never inline:
	 * their QPs get no inline room, and the report says 0 */
	if (!given.inline_max)
		a->o.inline_max = a->eng->no_inline || a->o.mem == RDX_MEM_DM ? 0 :
			RTE_MIN(64u, a->attr->max_inline);
	a->ib_mtu = ib_mtu_of(a->o.mtu);
	/* live progress for dpdk-telemetry.py; a failure only loses that */
	if (perf_telemetry_register(a) != 0)
		fprintf(stderr, "rdx-perf: note: %s not registered on the telemetry socket\n",
			PERF_TEL_CMD_PROGRESS);

	/* echo on lib/rpc: its own endpoints, runs and reports (rpc_echo.c) */
	if (perf_transport_rpc(a->o.transport))
		return mpi_exit(a, rpc_main(a));

	a->launch_clients = launch_clients_measured;
	rc = perf_setup(a);
	if (rc == PERF_SETUP_BOOT)
		rc = boot_endpoints(a);
	if (rc < 0) {
		int bad = rc == -EINVAL || rc == -ECONNREFUSED || rc == -EADDRINUSE ||
			rc == -EPROTO || rc == -ETIMEDOUT;

		perf_teardown(a);
		rdx_dev_close(a->dev);
		rdx_runtime_cleanup();
		/* a server stopped by Ctrl-C while it waited for a client */
		if (rc == -EINTR && a->o.server)
			return mpi_exit(a, 0);
		return mpi_exit(a, bad ? PERF_EXIT_BAD_INPUT : 1);
	}
	if (keys_fit(a) < 0) {
		perf_teardown(a);
		rdx_dev_close(a->dev);
		rdx_runtime_cleanup();
		return mpi_exit(a, PERF_EXIT_BAD_INPUT);
	}
	rc = perf_report_init(a);
	perf_telemetry_state(PERF_TEL_RUNNING);
	if (rc == 0) {
		if (a->mpi != NULL)
			rc = mpi_runs(a);
		else if (a->client) {
			perf_report_head_first(a);
			perf_progress_init(a);
			rc = client_runs(a);
		} else {
			/* perftest's server prints its block too, and with
			 * --cpu_util / -W their figures (host_stats.c) */
			perf_perftest_head(a);
			fflush(stdout);
			rc = perf_host_serve(a);
		}
	}
	/* the checks of the whole run before the report, which says how it went */
	if (a->verify_errors != 0) {
		perf_run_error(a, "--verify: %" PRIu64 " errors", a->verify_errors);
		if (rc == 0)
			rc = -EIO;
	} else if (a->o.verify && rc == 0 && a->client && a->nb_runs > 0) {
		fprintf(stderr, "rdx-perf: --verify: every payload byte%s checked: OK\n",
			a->eng->atomic ? " and key value" : "");
	}
	if (rc == 0)
		rc = device_errors_check(a);
	/* -b across processes: the server prints its own rows too. A client
	 * that ended before its first row still writes --json / --csv: they
	 * say it failed or was interrupted, and list every run as not run. */
	if (a->mpi == NULL && a->rep != NULL && (a->client || a->o.bidir)) {
		int frc = 0;

		status = perf_report_end(a, rc);
		if (a->nb_runs > 0)
			frc = perf_report_finish(a);
		else if (a->client && status != RDX_REPORT_STATUS_COMPLETED)
			frc = perf_report_files(a);
		if (rc == 0)
			rc = frc;
	} else if (a->mpi != NULL && rc == -EINTR) {
		/* a rank was interrupted: rank 0's report says which */
		status = RDX_REPORT_STATUS_INTERRUPTED;
	}
	perf_telemetry_state(PERF_TEL_DONE);
	perf_teardown(a);
	rdx_dev_close(a->dev);
	rdx_runtime_cleanup();
	/* a peer that broke the protocol is bad input too */
	if (rc == -EPROTO)
		return mpi_exit(a, PERF_EXIT_BAD_INPUT);
	if (rc < 0 && status != RDX_REPORT_STATUS_INTERRUPTED)
		return mpi_exit(a, 1);
	/* --run_infinitely ends by Ctrl-C: that is its way to end (perftest's) */
	if (status == RDX_REPORT_STATUS_INTERRUPTED && !a->o.infinite)
		return mpi_exit(a, PERF_EXIT_INTERRUPTED);
	return mpi_exit(a, rc < 0 ? 1 : 0);
}

