/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * echo on lib/rpc across two processes, over the versioned TCP bootstrap
 * (lib/conn) the raw-QP tests use (boot.c): CONFIG (struct wire_config,
 * transport infrc|basic+infud|homa+infud), then RPC (struct wire_rpc: the
 * layout the client chose, checked by the server and echoed back), then one
 * rdx_rpc_session_bootstrap per client (lib/rpc checks the session info
 * blob). Each run: RPC_RUN, RPC_READY, the calls, RPC_END, RPC_ENDACK with
 * the server's counters. The server polls all its endpoints on the main
 * lcore. Everything the peer sends is checked (perf_wire.c) before use.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>

#include "rdx_boot.h"
#include "rdx_config.h"
#include "rdx_conn.h"
#include "rdx_rpc.h"
#include "rdx_runtime.h"

#include "perf_app.h"
#include "perf_wire.h"
#include "rpc_perf.h"

static struct wire_rpc layout;

static void
config_fill(const struct perf_app *a, struct wire_config *w, uint32_t clients)
{
	memset(w, 0, sizeof(*w));
	w->magic = PERF_WIRE_MAGIC;
	w->version = RDX_WIRE_VERSION;
	snprintf(w->app_version, sizeof(w->app_version), "%s", RDX_VERSION_STR);
	snprintf(w->test, sizeof(w->test), "%s", a->o.test);
	w->mode = (uint32_t)a->o.mode;
	w->nb_sizes = a->o.nb_sizes;
	memcpy(w->sizes, a->o.sizes, sizeof(w->sizes));
	w->total_qps = clients;
	w->window = a->o.concurrent;
	w->keys = 1;
	w->verify = a->o.verify;
	w->transport = (uint32_t)a->o.transport;
}

static int
exchange_config(struct perf_app *a, uint32_t clients)
{
	struct wire_config me, peer;
	char err[256];

	config_fill(a, &me, clients);
	if (rdx_conn_exchange(a->conn, PERF_MSG_CONFIG, &me, &peer, sizeof(me),
			      perf_boot_ms(a)) < 0) {
		fprintf(stderr, "rdx-perf: bootstrap failed: %s\n", rdx_conn_strerror(a->conn));
		return -EPROTO;
	}
	if (perf_wire_config_check(&me, &peer, err, sizeof(err)) < 0) {
		fprintf(stderr, "rdx-perf: %s\n", err);
		return -EPROTO;
	}
	return 0;
}

static int
session_boot(struct perf_app *a, struct rdx_rpc_session *s, uint32_t i)
{
	int rc = rdx_rpc_session_bootstrap(s, a->conn, perf_boot_ms(a));

	if (rc < 0) {
		/* lib/rpc names a refused session info or a failed exchange in one
		 * line itself; a device error is ours to say */
		if (rc != -EPROTO && rc != -ETIMEDOUT && rc != -ECONNRESET && rc != -EPIPE &&
		    rc != -ENOTCONN && rc != -EINTR)
			fprintf(stderr, "rdx-perf: rpc session %u: connect failed: %s\n", i,
				strerror(-rc));
		return rc == -EPROTO || rc == -EINVAL ? -EPROTO : rc;
	}
	return 0;
}

int
perf_rpc_boot_client(struct perf_app *a, struct perf_rpc_cli *cli, uint32_t nb_cli)
{
	struct wire_rpc got;
	uint32_t i;
	int rc;

	rc = perf_boot_tcp(a, "tcp");
	if (rc < 0)
		return rc;
	rc = exchange_config(a, nb_cli);
	if (rc < 0)
		return rc;
	memset(&layout, 0, sizeof(layout));
	layout.clients = nb_cli;
	layout.servers = a->o.servers;
	layout.slots = RTE_MAX(a->o.concurrent, 8u);
	layout.concurrent = a->o.concurrent;
	layout.max_msg = (uint32_t)RTE_MAX(perf_rpc_max_size(&a->o),
					   (uint64_t)RDX_RPC_DEFAULT_MAX_MSG);
	layout.verify = a->o.verify;
	layout.nb_mix = a->o.nb_mix;
	rc = rdx_conn_send(a->conn, PERF_MSG_RPC, &layout, sizeof(layout), perf_boot_ms(a));
	if (rc == 0)
		rc = rdx_conn_recv(a->conn, PERF_MSG_RPC, &got, sizeof(got), perf_boot_ms(a));
	if (rc < 0) {
		fprintf(stderr, "rdx-perf: the server refused the rpc layout: %s\n",
			rdx_conn_strerror(a->conn));
		return -EPROTO;
	}
	if (memcmp(&got, &layout, sizeof(got)) != 0) {
		fprintf(stderr, "rdx-perf: peer answered RPC with another layout (%u clients, %u servers, %u slots; we asked for %u, %u, %u)\n",
			got.clients, got.servers, got.slots, layout.clients, layout.servers,
			layout.slots);
		return -EPROTO;
	}
	for (i = 0; i < nb_cli; i++) {
		rc = session_boot(a, cli[i].sess, i);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int
perf_rpc_run_begin(struct perf_app *a, uint64_t size)
{
	struct wire_rpc_run r, got;
	int rc;

	memset(&r, 0, sizeof(r));
	r.size = size;
	rc = rdx_boot_run_begin(a->boot, PERF_MSG_RPC_RUN, &r, PERF_MSG_RPC_READY, &got,
				sizeof(r));
	if (rc < 0) {
		fprintf(stderr, "rdx-perf: server did not start the run: %s\n",
			rdx_boot_strerror(a->boot));
		return rc == -EPROTO ? -EPROTO : -ECONNRESET;
	}
	if (memcmp(&r, &got, sizeof(r)) != 0) {
		fprintf(stderr, "rdx-perf: peer sent RPC_READY for size %" PRIu64 ", we asked for %" PRIu64 "\n",
			got.size, r.size);
		return -EPROTO;
	}
	return 0;
}

int
perf_rpc_run_end(struct perf_app *a, struct perf_rpc_counts *peer, uint64_t *peer_bad)
{
	struct wire_rpc_end e;
	char err[256];
	int rc;

	RTE_BUILD_BUG_ON(sizeof(e.counts) != sizeof(*peer));
	rc = perf_boot_run_end(a, PERF_MSG_RPC_END, PERF_MSG_RPC_ENDACK, &e, sizeof(e), NULL);
	if (rc < 0)
		return rc == -EPROTO ? -EPROTO : -ECONNRESET;
	if (perf_wire_rpc_end_check(&e, err, sizeof(err)) < 0) {
		fprintf(stderr, "rdx-perf: %s\n", err);
		return -EPROTO;
	}
	memcpy(peer, e.counts, sizeof(*peer));
	*peer_bad = e.bad_reqs;
	return perf_boot_ack_status(a, e.status);
}

int
perf_rpc_bye(struct perf_app *a)
{
	struct wire_rpc_run r;

	memset(&r, 0, sizeof(r));
	r.bye = 1;
	return perf_boot_bye(a, PERF_MSG_RPC_RUN, &r, sizeof(r));
}

/* ---- server ---------------------------------------------------------- */

static int
server_boot(struct perf_app *a)
{
	struct perf_rpc_srv *srvs;
	uint32_t n, i;
	char err[256];
	int rc;

	rc = perf_boot_tcp(a, "tcp");
	if (rc < 0)
		return rc;
	rc = exchange_config(a, 0);
	if (rc < 0)
		return rc;
	rc = rdx_conn_recv(a->conn, PERF_MSG_RPC, &layout, sizeof(layout), perf_boot_ms(a));
	if (rc < 0) {
		fprintf(stderr, "rdx-perf: bad rpc layout from the client: %s\n",
			rdx_conn_strerror(a->conn));
		return -EPROTO;
	}
	if (perf_wire_rpc_check(a, &layout, err, sizeof(err)) < 0) {
		fprintf(stderr, "rdx-perf: %s\n", err);
		return -EPROTO;
	}
	/* the endpoints must match the client's: take its layout */
	a->o.concurrent = layout.concurrent;
	a->o.verify = layout.verify != 0;
	a->o.servers = layout.servers;
	if (layout.max_msg > RDX_RPC_DEFAULT_MAX_MSG) {
		a->o.nb_mix = 1;
		a->o.mix_size[0] = layout.max_msg;
		a->o.mix_weight[0] = 1;
	}
	srvs = perf_rpc_srvs(&n);
	for (i = 0; i < layout.servers; i++) {
		rc = perf_rpc_srv_create(a, &srvs[i], i,
					 (layout.clients + layout.servers - 1 - i) / layout.servers);
		perf_rpc_srvs_set(i + 1);
		if (rc < 0)
			return rc;
	}
	rc = rdx_conn_send(a->conn, PERF_MSG_RPC, &layout, sizeof(layout), perf_boot_ms(a));
	if (rc < 0)
		return -ECONNRESET;
	for (i = 0; i < layout.clients; i++) {
		struct perf_rpc_srv *sv = &srvs[i % layout.servers];
		struct rdx_rpc_session *s = rdx_rpc_session_create(sv->ep);

		if (s == NULL) {
			fprintf(stderr, "rdx-perf: cannot create rpc session %u: %s\n", i,
				rte_strerror(rte_errno));
			return -rte_errno;
		}
		sv->sess[sv->nb_sess++] = s;
		rc = session_boot(a, s, i);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Serve until the client's RPC_END; then RPC_ENDACK with our counters. */
static int
server_one_run(struct perf_app *a)
{
	struct perf_rpc_counts n;
	struct wire_rpc_end e;
	struct perf_rpc_srv *srvs;
	uint32_t nb, i;
	uint64_t k = 0;
	int rc;

	srvs = perf_rpc_srvs(&nb);
	for (;;) {
		for (i = 0; i < nb; i++)
			rdx_rpc_endpoint_poll(srvs[i].ep);
		if ((++k & 4095) != 0)
			continue;
		rc = rdx_conn_recv(a->conn, PERF_MSG_RPC_END, NULL, 0, 0);
		if (rc == 0)
			break;
		if (rc == -EPROTO) {
			fprintf(stderr, "rdx-perf: bad message from the client during the run: %s\n",
				rdx_conn_strerror(a->conn));
			return -EPROTO;
		}
		if (rc != -ETIMEDOUT && rc != -EAGAIN && rc != -EINTR) {
			fprintf(stderr, "rdx-perf: client went away during the run: %s\n",
				rdx_conn_strerror(a->conn));
			return -ECONNRESET;
		}
		if (rdx_runtime_stopping()) {
			fprintf(stderr, "rdx-perf: interrupted: ending the run\n");
			return -EINTR;
		}
	}
	memset(&n, 0, sizeof(n));
	memset(&e, 0, sizeof(e));
	for (i = 0; i < nb; i++) {
		perf_rpc_counts_add(&n, srvs[i].ep, &srvs[i].base);
		e.bad_reqs += srvs[i].bad_reqs;
		srvs[i].bad_reqs = 0;
	}
	memcpy(e.counts, &n, sizeof(e.counts));
	return rdx_conn_send(a->conn, PERF_MSG_RPC_ENDACK, &e, sizeof(e), perf_boot_ms(a));
}

int
perf_rpc_server(struct perf_app *a)
{
	struct wire_rpc_run r;
	char err[256];
	int rc;

	rc = server_boot(a);
	/* stopped by Ctrl-C before any client came: as the raw server, 0 */
	if (rc == -EINTR && a->conn == NULL)
		return 0;
	if (rc < 0)
		return rc;
	for (;;) {
		rc = rdx_conn_recv(a->conn, PERF_MSG_RPC_RUN, &r, sizeof(r), perf_boot_ms(a));
		if (rc < 0) {
			fprintf(stderr, "rdx-perf: %s: %s\n", rc == -EPROTO ?
				"bad message from the client" : "client went away",
				rdx_conn_strerror(a->conn));
			return rc == -EPROTO ? -EPROTO : -ECONNRESET;
		}
		if (perf_wire_rpc_run_check(a, &r, err, sizeof(err)) < 0) {
			fprintf(stderr, "rdx-perf: %s\n", err);
			return -EPROTO;
		}
		if (r.bye) {
			printf("rdx-perf: served %u rpc run(s) of echo over %s; the client has the results\n",
			       a->nb_runs, perf_transport_name(a->o.transport));
			return 0;
		}
		/* basic.read / basic.write: a table of this size, made by the
		 * run's first KV request (the layout does not say which test
		 * runs; an echo run allocates nothing) */
		if (r.size != 0) {
			struct perf_rpc_srv *sv;
			uint32_t nb, i;

			sv = perf_rpc_srvs(&nb);
			for (i = 0; i < nb; i++) {
				rc = perf_rpc_kv_store_reset(a, &sv[i], r.size);
				if (rc < 0)
					return rc;
			}
		}
		rc = rdx_conn_send(a->conn, PERF_MSG_RPC_READY, &r, sizeof(r), perf_boot_ms(a));
		if (rc < 0)
			return -ECONNRESET;
		a->nb_runs++;
		rc = server_one_run(a);
		if (rc < 0)
			return rc;
	}
}
