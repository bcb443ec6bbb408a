/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * echo on lib/rpc: RAMCloud clusterperf's echo through an RPC transport
 * (--transport infrc|basic+infud|homa+infud) rather than raw QPs (rc|ud,
 * echo.c and pingpong.c). Each client is an rdx_rpc endpoint (-q per
 * client lcore) with one session to a server endpoint (--servers; client
 * i talks to server i mod S); a call sends 30 bytes naming the response
 * size, the server's handler answers with that many bytes. --concurrent-ops
 * calls are kept in flight per client. --mix SIZE:W,.. draws each call's
 * response size by weight and reports percentiles per size: what SRPT
 * (homa+infud) does for small messages queued behind large ones.
 *
 * One process: the server endpoints are polled by the main lcore while
 * the worker lcores run the clients (with no worker, the one lcore polls
 * both). Two processes: rpc_boot.c. Counters of every endpoint (ours and,
 * with two processes, the server's) are reported per run: retransmissions,
 * grants, resends, busy, timeouts.
 *
 * This file is the top of the benchmark: the input checks, the set-up of
 * one process, the runs and their reports. Below it, calling only down:
 * rpc_cli.c (clients, their lcores) -> rpc_srv.c (server endpoints, the
 * shared configuration) -> rpc_kv.c (basic.read / basic.write glue).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include "rdx_conn.h"
#include "rdx_hist.h"
#include "rdx_report.h"
#include "rdx_rpc.h"
#include "rdx_runtime.h"

#include "perf_app.h"
#include "perf_opts.h"
#include "rpc_perf.h"

static struct perf_rpc_cli *clis;
uint32_t perf_rpc_nb_clis;
static struct perf_rpc_counts tot_counts;

/* One process: connect client i's session to a new session of server i % S. */
static int
loopback_connect(struct perf_rpc_cli *c, struct perf_rpc_srv *sv)
{
	struct rdx_rpc_session_info ci, si;
	struct rdx_rpc_session *ss;
	int rc;

	ss = rdx_rpc_session_create(sv->ep);
	if (ss == NULL)
		return -rte_errno;
	sv->sess[sv->nb_sess++] = ss;
	rc = rdx_rpc_session_info_get(c->sess, &ci);
	if (rc == 0)
		rc = rdx_rpc_session_info_get(ss, &si);
	if (rc == 0)
		rc = rdx_rpc_session_connect(c->sess, &si);
	if (rc == 0)
		rc = rdx_rpc_session_connect(ss, &ci);
	if (rc < 0)
		fprintf(stderr, "rdx-perf: cannot connect rpc client %u: %s\n", c->id,
			strerror(-rc));
	return rc;
}

/* Input checks that need the device or the transport; one line, -EINVAL. */
int
perf_rpc_check(const struct perf_app *a)
{
	const struct perf_opts *o = &a->o;
	uint64_t m = perf_rpc_max_size(o);

	if (m > RDX_RPC_MAX_MAX_MSG) {
		fprintf(stderr, "rdx-perf: bad value '%" PRIu64 "' for -s: lib/rpc messages are at most %u B\n",
			m, RDX_RPC_MAX_MAX_MSG);
		return -EINVAL;
	}
	if (o->concurrent > PERF_RPC_MAX_SLOTS) {
		fprintf(stderr, "rdx-perf: bad value '%u' for --concurrent-ops: lib/rpc keeps at most %u calls in flight per session\n",
			o->concurrent, PERF_RPC_MAX_SLOTS);
		return -EINVAL;
	}
	if (o->rpc_kv != 0 && o->mem != RDX_MEM_HOST && o->mem != RDX_MEM_HUGE) {
		fprintf(stderr, "rdx-perf: bad value for --mem: %s keeps its table in host or huge memory\n",
			perf_rpc_test_name(o));
		return -EINVAL;
	}
	if (o->rpc_kv != 0 && (uint64_t)perf_rpc_max_size(o) - PERF_RPC_KV_HDR > UINT32_MAX / 2) {
		fprintf(stderr, "rdx-perf: bad value for -s: objects too large\n");
		return -EINVAL;
	}
	if (o->servers > PERF_RPC_MAX_SERVERS) {
		fprintf(stderr, "rdx-perf: bad value '%u' for --servers: at most %u rpc server endpoints\n",
			o->servers, PERF_RPC_MAX_SERVERS);
		return -EINVAL;
	}
	if ((uint64_t)o->qps * a->nb_lcores > PERF_RPC_MAX_CLIENTS) {
		fprintf(stderr, "rdx-perf: bad value '%u' for -q: at most %u rpc clients in all\n",
			o->qps, PERF_RPC_MAX_CLIENTS);
		return -EINVAL;
	}
	if (o->sweep_hi != o->sweep_lo || o->wrlog != NULL || o->events || o->bad_rkey ||
	    o->output != PERF_OUTPUT_TABLE) {
		fprintf(stderr, "rdx-perf: --qp-sweep, -o, -e, --output and --inject-bad-rkey are not available with --transport %s\n",
			perf_transport_name(o->transport));
		return -EINVAL;
	}
	if (!o->server && a->nb_lcores > 1 && perf_rpc_sw_inline(a)) {
		fprintf(stderr, "rdx-perf: %u client lcores on the software device need --sw-progress thread (inline progress runs the model on one polling thread)\n",
			a->nb_lcores);
		return -EINVAL;
	}
	if (o->transport != PERF_TRANSPORT_INFRC && a->attr->max_ud_msg <= 32) {
		fprintf(stderr, "rdx-perf: bad value '%s' for --transport: device %s has no UD QPs\n",
			perf_transport_name(o->transport), a->attr->name);
		return -EINVAL;
	}
	return 0;
}

int
perf_rpc_setup(struct perf_app *a)
{
	const struct perf_opts *o = &a->o;
	struct perf_rpc_srv *srvs;
	uint32_t l, i, id = 0, nb_srvs;
	int rc;

	perf_rpc_nb_clis = o->qps * a->nb_lcores;
	clis = calloc(perf_rpc_nb_clis, sizeof(*clis));
	if (clis == NULL)
		return -ENOMEM;
	for (l = 0; l < a->nb_lcores; l++) {
		struct perf_rpc_lc *lc = &perf_rpc_lcs[l];

		lc->lcore_id = a->lcore_ids[l];
		lc->a = a;
		lc->cli = &clis[l * o->qps];
		lc->nb_cli = o->qps;
		for (i = 0; i < PERF_MAX_MIX; i++) {
			lc->hist[i] = malloc(sizeof(struct rdx_hist));
			if (lc->hist[i] == NULL)
				return -ENOMEM;
			rdx_hist_init(lc->hist[i]);
		}
		for (i = 0; i < o->qps; i++, id++) {
			rc = perf_rpc_cli_create(a, &lc->cli[i], id, lc);
			if (rc < 0)
				return rc;
		}
	}
	if (a->mpi != NULL || a->conn != NULL || o->connect != NULL) /* MPI: rpc_mpi.c */
		return a->mpi != NULL ? 0 : perf_rpc_boot_client(a, clis, perf_rpc_nb_clis);
	perf_rpc_srvs_set(o->servers);
	srvs = perf_rpc_srvs(&nb_srvs);
	for (i = 0; i < nb_srvs; i++) {
		rc = perf_rpc_srv_create(a, &srvs[i], i, (perf_rpc_nb_clis + nb_srvs - 1 - i) / nb_srvs);
		if (rc < 0)
			return rc;
	}
	for (i = 0; i < perf_rpc_nb_clis; i++) {
		rc = loopback_connect(&clis[i], &srvs[i % nb_srvs]);
		if (rc < 0)
			return rc;
	}
	/* one client lcore: it polls the servers too */
	if (perf_rpc_srv_same_lcore(a)) {
		perf_rpc_lcs[0].srv = srvs;
		perf_rpc_lcs[0].nb_srv = nb_srvs;
	}
	return 0;
}

void
perf_rpc_teardown(struct perf_app *a)
{
	uint32_t i, l, nb_srvs;
	struct perf_rpc_srv *srvs = perf_rpc_srvs(&nb_srvs);

	/* clients first: their calls end before the servers go */
	for (i = 0; clis != NULL && i < perf_rpc_nb_clis; i++)
		perf_rpc_cli_destroy(&clis[i]);
	for (i = 0; i < nb_srvs; i++)
		perf_rpc_srv_destroy(&srvs[i]);
	for (l = 0; l < a->nb_lcores; l++)
		for (i = 0; i < PERF_MAX_MIX; i++) {
			free(perf_rpc_lcs[l].hist[i]);
			perf_rpc_lcs[l].hist[i] = NULL;
		}
	free(clis);
	clis = NULL;
	perf_rpc_nb_clis = 0;
	perf_rpc_srvs_set(0);
}

/* One run at one size (size != 0) or of the mix (size 0). */
static int
rpc_one_run(struct perf_app *a, uint64_t size)
{
	struct perf_rpc_counts n, peer;
	uint32_t nb_srvs;
	struct perf_rpc_srv *srvs = perf_rpc_srvs(&nb_srvs);
	uint64_t errors = 0, bad = 0, peer_bad = 0;
	char what[48];
	unsigned int l, k;
	int rc, erc;

	memset(&n, 0, sizeof(n));
	memset(&peer, 0, sizeof(peer));
	if (size != 0) {
		perf_rpc_run.nb = 1;
		perf_rpc_run.sizes[0] = size;
		perf_size_name(size, what, sizeof(what));
	} else {
		perf_rpc_run.nb = a->o.nb_mix;
		perf_rpc_run.wsum = 0;
		for (k = 0; k < perf_rpc_run.nb; k++) {
			perf_rpc_run.sizes[k] = a->o.mix_size[k];
			perf_rpc_run.wsum += a->o.mix_weight[k];
			perf_rpc_run.cum[k] = perf_rpc_run.wsum;
		}
		snprintf(what, sizeof(what), "mix");
	}
	perf_rpc_run.nb_obj = perf_rpc_kv_objects(size);
	for (k = 0; a->o.rpc_kv != 0 && k < nb_srvs; k++) {
		rc = perf_rpc_kv_store_reset(a, &srvs[k], size);
		if (rc < 0)
			return rc;
	}
	if (a->conn != NULL) {
		rc = perf_rpc_run_begin(a, size);
		if (rc < 0)
			return rc;
	}
	rc = perf_rpc_launch(a);
	/* the loops ended before the run was done (the report's CUT) */
	a->run_cut = rc < 0 || a->run.abort || rdx_runtime_stopping();
	if (a->conn != NULL && !a->run.abort) {
		erc = perf_rpc_run_end(a, &peer, &peer_bad);
		if (erc < 0 && rc == 0)
			rc = erc;
	}
	for (l = 0; l < a->nb_lcores; l++) {
		struct perf_rpc_lc *lc = &perf_rpc_lcs[l];

		errors += lc->errors;
		a->verify_errors += lc->verify_errors;
		lc->verify_errors = 0;
		if (lc->err != 0)
			perf_run_error(a, "%s", lc->errmsg);
		if (lc->errors != 0)
			perf_run_error(a, "lcore %u: %" PRIu64 " call(s) failed, the first with %s",
				       lc->lcore_id, lc->errors, strerror(-lc->first_err));
	}
	for (k = 0; k < perf_rpc_nb_clis; k++)
		perf_rpc_counts_add(&n, clis[k].ep, &clis[k].base);
	for (k = 0; k < nb_srvs; k++) {
		perf_rpc_counts_add(&n, srvs[k].ep, &srvs[k].base);
		bad += srvs[k].bad_reqs;
		srvs[k].bad_reqs = 0;
	}
	perf_rpc_counts_sum(&n, &peer);
	bad += peer_bad;
	perf_rpc_counts_sum(&tot_counts, &n);
	perf_rpc_counts_line(a, what, &n, errors, bad);
	perf_rpc_report_run(a, size, &n);
	a->nb_runs++;
	if (rc == 0 && (errors != 0 || bad != 0))
		rc = -EIO;
	return rc;
}

int
perf_rpc_main(struct perf_app *a)
{
	const struct perf_opts *o = &a->o;
	unsigned int s;
	int rc;

	rc = perf_rpc_check(a);
	if (rc < 0)
		return rc;
	if (o->server) {
		uint32_t nb_srvs;
		struct perf_rpc_srv *srvs;

		rc = perf_rpc_server(a);
		srvs = perf_rpc_srvs(&nb_srvs);
		for (s = 0; s < nb_srvs; s++)
			perf_rpc_srv_destroy(&srvs[s]);
		perf_rpc_srvs_set(0);
		return rc;
	}
	rc = perf_rpc_setup(a);
	if (rc == 0)
		rc = perf_rpc_report_init(a);
	if (rc < 0) {
		perf_rpc_teardown(a);
		return rc;
	}
	if (o->nb_mix > 0)
		rc = rpc_one_run(a, 0);
	for (s = 0; o->nb_mix == 0 && s < o->nb_sizes && rc == 0; s++) {
		rc = rpc_one_run(a, o->sizes[s]);
		if (rdx_runtime_stopping())
			break;
	}
	if (a->conn != NULL && rc == 0)
		perf_rpc_bye(a);
	/* the sizes after the last that ran (runs go in order) */
	for (s = a->nb_runs; o->nb_mix == 0 && s < o->nb_sizes; s++)
		perf_report_not_run(a, o->sizes[s], o->qps, 0);
	if (a->nb_runs > 0) {
		int frc;

		perf_report_end(a, rc);
		frc = perf_rpc_report_finish(a, &tot_counts);
		if (rc == 0)
			rc = frc;
	} else if (rc < 0 || rdx_runtime_stopping()) {
		/* no row: --json / --csv still say how it ended */
		perf_report_end(a, rc);
		perf_report_files(a);
	} else {
		rdx_report_free(a->rep);
		a->rep = NULL;
	}
	perf_rpc_teardown(a);
	return rc;
}
