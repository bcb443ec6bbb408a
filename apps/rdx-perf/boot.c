/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx-perf across two processes: the versioned TCP bootstrap (lib/conn) of
 * client and server, the per-run handshake, and the server's side of a run,
 * whose lcores run rdx_lcore_loop with the engine's responder step as
 * poller. Endpoints themselves are made by setup.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_common.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "rdx_boot.h"
#include "rdx_config.h"
#include "rdx_conn.h"
#include "rdx_runtime.h"

#include "perf_app.h"
#include "perf_wire.h"

#define MSG_CONFIG PERF_MSG_CONFIG
#define MSG_EP     PERF_MSG_EP
#define MSG_RUN    PERF_MSG_RUN
#define MSG_READY  PERF_MSG_READY
#define MSG_END    PERF_MSG_END
#define MSG_ENDACK PERF_MSG_ENDACK

static void
config_fill(const struct perf_app *a, struct wire_config *w)
{
	memset(w, 0, sizeof(*w));
	w->magic = PERF_WIRE_MAGIC;
	w->version = RDX_WIRE_VERSION;
	snprintf(w->app_version, sizeof(w->app_version), "%s", RDX_VERSION_STR);
	snprintf(w->test, sizeof(w->test), "%s", a->o.test);
	w->mode = (uint32_t)a->o.mode;
	w->nb_sizes = a->o.nb_sizes;
	memcpy(w->sizes, a->o.sizes, sizeof(w->sizes));
	w->total_qps = a->total_qps;
	w->window = a->window;
	w->keys = a->o.keys;
	w->verify = a->o.verify;
	w->region_len = a->region_len;
	w->rstride = a->rstride;
	w->sq_depth = a->sq_depth;
	w->transport = (uint32_t)a->o.transport;
	w->flags = (a->o.rdma_cm ? PERF_WIRE_F_RDMA_CM : 0) |
		   (perf_bidir_procs(a) ? PERF_WIRE_F_BIDIR : 0);
}

/* The peer's CONFIG against ours: one line and -EPROTO when it differs. */
static int
config_compare(const struct wire_config *me, const struct wire_config *peer)
{
	char err[256];

	if (perf_wire_config_check(me, peer, err, sizeof(err)) < 0) {
		fprintf(stderr, "rdx-perf: %s\n", err);
		return -EPROTO;
	}
	return 0;
}

/* The server follows the client's layout (doc/apps.md): one line naming
 * what of this process's own -q/-t/--keys/--verify that replaces, so a
 * server given other values does not run the client's silently. */
static void
layout_note(const struct perf_app *a, const struct wire_config *peer)
{
	char buf[256];
	size_t n = 0;

#define NOTE(...) \
	do { \
		if (n < sizeof(buf)) \
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, __VA_ARGS__); \
	} while (0)
	/* what -q x the worker lcores would give here (a client's total_qps) */
	if (peer->total_qps != a->max_qps * a->nb_lcores)
		NOTE(", %u QP(s) (here %u lcore(s) x -q %u)", peer->total_qps, a->nb_lcores,
		     a->max_qps);
	if (peer->window != a->window)
		NOTE(", -t %u (here %u)", peer->window, a->window);
	if (peer->keys != a->o.keys)
		NOTE(", --keys %u (here %u)", peer->keys, a->o.keys);
	if ((peer->verify != 0) != a->o.verify)
		NOTE(", --verify %s (here %s)", peer->verify ? "on" : "off",
		     a->o.verify ? "on" : "off");
#undef NOTE
	if (n > 0)
		printf("rdx-perf: the client decides the layout: runs with its%s\n", buf + 1);
}

static int
exchange_eps(struct perf_app *a, struct perf_ep *eps)
{
	char err[256];
	unsigned int i;
	int rc;

	for (i = 0; i < a->total_qps; i++) {
		struct wire_ep mine, theirs;

		perf_ep_wire_fill(&eps[i], &mine);
		rc = rdx_conn_exchange(a->conn, MSG_EP, &mine, &theirs, sizeof(mine), perf_boot_ms(a));
		if (rc < 0) {
			fprintf(stderr, "rdx-perf: bootstrap: QP exchange failed: %s\n",
				rdx_conn_strerror(a->conn));
			return -EPROTO;
		}
		if (perf_wire_ep_check(a, &theirs, err, sizeof(err)) < 0) {
			fprintf(stderr, "rdx-perf: QP %u: %s\n", i, err);
			return -EPROTO;
		}
		if (a->o.rdma_cm) {
			/* -R: rdma_cm connected the QP; the bootstrap brings its buffers */
			if (theirs.qp.qp_num != eps[i].cm_rqpn) {
				fprintf(stderr, "rdx-perf: QP %u: the bootstrap's peer QP 0x%x is not rdma_cm's 0x%x\n",
					i, theirs.qp.qp_num, eps[i].cm_rqpn);
				return -EPROTO;
			}
			perf_ep_remote_set(a, &eps[i], &theirs);
			continue;
		}
		rc = perf_ep_connect(a, &eps[i], &theirs);
		if (rc < 0) /* -EPROTO: the driver refused the peer's data */
			return rc == -EPROTO ? -EPROTO : -EIO;
	}
	return 0;
}

/* A provider linked into this program (rdx_boot_provider_foreach). */
static int
provider_is(const char *name, void *arg)
{
	return strcmp(name, arg) == 0;
}

/*
 * Open the bootstrap `provider` of lib/boot ("tcp"; -R: "rdmacm", the same
 * with the QPs connected through rdma_cm, whose server listener exists once
 * it is open) and find the peer: a client connects (retrying until
 * --bootstrap-timeout); a server listens on -p, says it waits and accepts.
 * Used by the raw tests and by echo on lib/rpc (rpc_boot.c). 0, or a
 * negative errno after one line (none for a server's Ctrl-C: -EINTR).
 */
int
perf_boot_tcp(struct perf_app *a, const char *provider)
{
	const struct rdx_boot_conf conf = {
		.name = "rdx-perf", .peer = a->o.connect, .port = a->o.port,
		.timeout_ms = perf_boot_ms(a), .timeout_given = a->o.boot_timeout_given,
		.source = a->o.source_ip,
	};
	char host[256];
	uint16_t port;
	int rc;

	if (a->o.connect != NULL &&
	    rdx_conn_parse_hostport(a->o.connect, host, sizeof(host), &port) < 0) {
		fprintf(stderr, "rdx-perf: bad value '%s' for --connect: expected HOST:PORT\n",
			a->o.connect);
		return -EINVAL;
	}
	if (strcmp(provider, "rdmacm") == 0 &&
	    rdx_boot_provider_foreach(provider_is, (void *)(uintptr_t)provider) == 0) {
		fprintf(stderr, "rdx-perf: -R (rdma_cm): this rdx-perf was built without librdmacm "
			"(install the Debian package librdmacm-dev and rebuild)\n");
		return -ENOTSUP;
	}
	a->boot = rdx_boot_open(provider, &conf);
	if (a->boot == NULL)
		return rte_errno == EADDRINUSE ? -EADDRINUSE : -rte_errno;
	if (a->o.connect == NULL) {
		if (a->o.boot_timeout_given)
			printf("rdx-perf: waiting for a client on port %u (%.0f s)\n",
			       rdx_boot_port(a->boot), a->o.boot_timeout);
		else
			printf("rdx-perf: waiting for a client on port %u (until Ctrl-C)\n",
			       rdx_boot_port(a->boot));
		fflush(stdout);
	}
	rc = rdx_boot_connect(a->boot);
	/* a server that cannot accept ends as one that had no client (exit 2) */
	if (rc < 0)
		return rc == -EIO ? -ETIMEDOUT : rc;
	a->conn = rdx_boot_conn(a->boot);
	return 0;
}

/*
 * -R: lib/boot's rdmacm connects every endpoint's QP (QP i with the
 * peer's QP i, the connection data in rdma_cm's private data); the EP
 * exchange that follows brings the buffers and checks the QP numbers.
 */
static int
cm_connect_eps(struct perf_app *a, struct perf_ep *eps)
{
	const struct rdx_qp_conn_attr ca = { .mtu = a->ib_mtu };
	const unsigned int n = a->total_qps;
	struct rdx_qp **qps = calloc(n, sizeof(*qps));
	uint32_t *rqpn = calloc(n, sizeof(*rqpn));
	const char *route;
	unsigned int i;
	int rc = -ENOMEM;

	if (qps != NULL && rqpn != NULL) {
		for (i = 0; i < n; i++)
			qps[i] = eps[i].qp;
		rc = rdx_boot_qp_connect(a->boot, a->dev, qps, n, &ca, rqpn);
		for (i = 0; i < n; i++)
			eps[i].cm_rqpn = rqpn[i];
	}
	route = rdx_boot_route(a->boot);
	if (route != NULL) {
		printf("rdx-perf: -R: rdma_cm connection %s\n", route);
		fflush(stdout);
	}
	free(qps);
	free(rqpn);
	return rc;
}

int
perf_boot_client(struct perf_app *a)
{
	struct wire_config me, peer;
	char host[256];
	uint16_t port;
	int rc;

	rc = perf_boot_tcp(a, a->o.rdma_cm ? "rdmacm" : "tcp");
	if (rc < 0)
		return rc;
	rdx_conn_parse_hostport(a->o.connect, host, sizeof(host), &port);
	config_fill(a, &me);
	rc = rdx_conn_exchange(a->conn, MSG_CONFIG, &me, &peer, sizeof(me), perf_boot_ms(a));
	if (rc < 0) {
		fprintf(stderr, "rdx-perf: bootstrap with %s:%u failed: %s\n", host, port,
			rdx_conn_strerror(a->conn));
		return -EPROTO;
	}
	rc = config_compare(&me, &peer);
	if (rc < 0)
		return rc;
	rc = perf_alloc_lcores(a);
	if (rc == 0)
		rc = perf_alloc_eps(a);
	if (rc == 0 && a->o.rdma_cm)
		rc = cm_connect_eps(a, a->cli);
	if (rc < 0)
		return rc;
	return exchange_eps(a, a->cli);
}

int
perf_boot_server(struct perf_app *a)
{
	struct wire_config me, peer;
	char err[256];
	int rc;

	rc = perf_boot_tcp(a, a->o.rdma_cm ? "rdmacm" : "tcp");
	if (rc < 0)
		return rc;
	config_fill(a, &me);
	rc = rdx_conn_exchange(a->conn, MSG_CONFIG, &me, &peer, sizeof(me), perf_boot_ms(a));
	if (rc < 0) {
		fprintf(stderr, "rdx-perf: bootstrap failed: %s\n", rdx_conn_strerror(a->conn));
		return -EPROTO;
	}
	rc = config_compare(&me, &peer);
	if (rc < 0)
		return rc;
	/* the client decides the layout, within what this process can hold */
	if (perf_wire_layout_check(a, &peer, err, sizeof(err)) < 0) {
		fprintf(stderr, "rdx-perf: %s\n", err);
		return -EPROTO;
	}
	layout_note(a, &peer);
	a->total_qps = peer.total_qps;
	a->o.keys = peer.keys;
	a->region_cap = RTE_MIN((uint64_t)PERF_REGION_CAP, PERF_MEM_BUDGET / (4ull * a->total_qps));
	a->o.verify = peer.verify != 0;
	a->window = peer.window;
	a->region_len = peer.region_len;
	a->rstride = peer.rstride;
	a->sq_depth = peer.sq_depth;
	rc = perf_alloc_lcores(a);
	if (rc == 0)
		rc = perf_alloc_eps(a);
	if (rc == 0 && a->o.rdma_cm)
		rc = cm_connect_eps(a, a->srv);
	if (rc < 0)
		return rc;
	return exchange_eps(a, a->srv);
}

int
perf_client_run_begin(struct perf_app *a)
{
	struct wire_run r, got;
	char err[256];
	int rc;

	memset(&r, 0, sizeof(r));
	r.size = a->run.size;
	r.req_size = a->run.req_size;
	r.stride = a->run.stride;
	r.slots = a->run.slots;
	r.qps = a->run.qps;
	rc = rdx_boot_run_begin(a->boot, MSG_RUN, &r, MSG_READY, &got, sizeof(r));
	if (rc == -EINTR && rdx_runtime_stopping())
		return rc;   /* Ctrl-C: the caller stops without this run */
	if (rc < 0) {
		perf_run_error(a, "server did not start the run: %s", rdx_boot_strerror(a->boot));
		return rc;
	}
	if (perf_wire_ready_check(&r, &got, err, sizeof(err)) < 0) {
		perf_run_error(a, "%s", err);
		return -EPROTO;
	}
	return 0;
}

/* rdx_boot_run_end's wait: the app's own (perf_wire.h), which says why it
 * failed with -EPROTO or -ETIMEDOUT */
struct run_end_wait {
	struct perf_app *a;
	int (*wait)(struct perf_app *a);
	bool said;
};

static int
run_end_wait(void *arg)
{
	struct run_end_wait *w = arg;
	int rc = w->wait(w->a);

	w->said = rc == -EPROTO || rc == -ETIMEDOUT;
	return rc;
}

int
perf_boot_run_end(struct perf_app *a, uint32_t end_type, uint32_t ack_type, void *ack,
		  size_t len, int (*wait)(struct perf_app *a))
{
	struct run_end_wait w = { .a = a, .wait = wait, .said = false };
	int rc = rdx_boot_run_end(a->boot, end_type, ack_type, ack, len,
				  wait != NULL ? run_end_wait : NULL, &w);

	/* Ctrl-C (--run_infinitely ends so): lib/conn stops waiting; the
	 * caller reports what was measured */
	if (w.said || (rc == -EINTR && rdx_runtime_stopping()))
		return rc;
	if (rc < 0)
		perf_run_error(a, "server did not end the run: %s", rdx_boot_strerror(a->boot));
	return rc;
}

int
perf_boot_ack_status(struct perf_app *a, int32_t status)
{
	return rdx_boot_ack_status(a->boot, status);
}

int
perf_boot_bye(struct perf_app *a, uint32_t run_type, const void *msg, size_t len)
{
	return rdx_boot_bye(a->boot, run_type, msg, len);
}

/*
 * -b across processes, after our END: the server's loop may still run. Its
 * messages (send, write_imm) need our receives: keep consuming them (the
 * lcores are done: their QPs are this thread's now) until the server's
 * BIDIR_DONE says its loop is over. It runs as long as ours (-D) or as many
 * ops (-n): we wait the bootstrap timeout plus twice our own run.
 */
static int
bidir_wait_done(struct perf_app *a)
{
	const bool serve = perf_engine_serves(a->eng, a->o.mode);
	uint64_t hz = rdx_tsc_hz(), t0 = rdx_tsc(), ran = 0, limit;
	unsigned int l;
	int rc;

	for (l = 0; l < a->nb_lcores; l++)
		ran = RTE_MAX(ran, a->lcores[l].t_end - a->lcores[l].t_start);
	limit = (uint64_t)(a->o.boot_timeout * (double)hz) + 2 * ran;
	for (;;) {
		for (l = 0; serve && l < a->nb_lcores; l++) {
			rc = perf_serve_all(&a->lcores[l]);
			if (rc < 0) {
				perf_run_error(a, "%s", a->lcores[l].errmsg);
				return rc;
			}
		}
		/* no payload: a zero-timeout poll cannot split it */
		rc = rdx_conn_recv(a->conn, PERF_MSG_BIDIR_DONE, NULL, 0, serve ? 0 : 100);
		if (rc == 0)
			return 0;
		if (rc == -EPROTO) {
			perf_run_error(a, "-b: bad message from the server: %s",
				rdx_conn_strerror(a->conn));
			return rc;
		}
		if (rc != -ETIMEDOUT && rc != -EAGAIN)
			return rc;
		if (rdx_tsc() - t0 > limit) {
			perf_run_error(a, "-b: the server's loop did not end within %.1f s of ours",
				(double)limit / (double)hz);
			return -ETIMEDOUT;
		}
	}
}

/* -b, client: the server's BW peak of the last run (ENDACK), bytes/s */
static double peer_peak;

double
perf_boot_peer_peak(const struct perf_app *a)
{
	return perf_bidir_procs(a) ? peer_peak : 0;
}

int
perf_client_run_end(struct perf_app *a, uint64_t *peer_verify_errors)
{
	const struct wire_end_expect x = {
		.bidir = perf_bidir_procs(a), .qps = a->total_qps, .size = a->run.size,
		.iters = a->run.iters,
	};
	struct wire_end e;
	char err[256];
	int rc;

	memset(&e, 0, sizeof(e));
	rc = perf_boot_run_end(a, MSG_END, MSG_ENDACK, &e, sizeof(e),
			       x.bidir ? bidir_wait_done : NULL);
	if (rc < 0)
		return rc;
	if (perf_wire_end_check(&e, &x, err, sizeof(err)) < 0) {
		perf_run_error(a, "%s", err);
		return -EPROTO;
	}
	*peer_verify_errors = e.verify_errors;
	a->ud_back_tx = e.ud_tx;
	a->ud_fwd_rx = e.ud_rx;
	a->peer_ops = e.ops;
	a->peer_bytes = e.bytes;
	a->peer_ns = e.ns;
	a->peer_qps = e.qps;
	a->peer_lcores = e.lcores;
	peer_peak = perf_wire_peak_bytes(e.peak_kib);
	rc = perf_boot_ack_status(a, e.status);
	/* the reason the report gives (the line above said it) */
	if (rc < 0 && a->fail_reason[0] == '\0')
		snprintf(a->fail_reason, sizeof(a->fail_reason), "the server failed the run: %s",
			 strerror(-e.status));
	return rc;
}

int
perf_client_bye(struct perf_app *a)
{
	struct wire_run r;

	memset(&r, 0, sizeof(r));
	r.bye = 1;
	return perf_boot_bye(a, MSG_RUN, &r, sizeof(r));
}

/* One lcore of the server process during a run: an rdx_lcore_loop whose
 * pollers are the responder step (perf_serve_poll) and, on the main lcore,
 * the watch for the client's END (end_poll). */
struct serve_lcore {
	struct rdx_lcore_loop loop;
	struct perf_serve_poller serve;
};

/* The main lcore's watch of the bootstrap connection during a run. */
struct end_watch {
	struct perf_app *a;
	struct rdx_lcore_loop *loop;
	unsigned int every;      /* check once per this many passes */
	unsigned int n;
	int timeout_ms;          /* how long one check waits for END */
	bool over;               /* END came, or the run was aborted */
	bool proto;              /* ... by a bad message */
};

static struct serve_lcore serve_lcores[RDX_MAX_LCORES];
static struct rdx_lcore_loop main_loop;

static int
serve_lcore_main(void *arg)
{
	struct serve_lcore *s = arg;

	rdx_lcore_loop_run(&s->loop);
	return s->serve.rc;
}

/* Has the client ended the run (or gone)? Sets w->over. */
static void
end_check(struct end_watch *w, int timeout_ms)
{
	struct perf_app *a = w->a;
	int rc = rdx_conn_recv(a->conn, MSG_END, NULL, 0, timeout_ms);

	if (rc == 0) {
		w->over = true;
		return;
	}
	if (rc == -EPROTO) {
		fprintf(stderr, "rdx-perf: bad message from the client during the run: %s\n",
			rdx_conn_strerror(a->conn));
		a->run.abort = true;
		w->proto = true;
		w->over = true;
		return;
	}
	if (rc != -ETIMEDOUT && rc != -EAGAIN && !(rc == -EINTR && rdx_runtime_stopping())) {
		fprintf(stderr, "rdx-perf: client went away during the run: %s\n",
			rdx_conn_strerror(a->conn));
		a->run.abort = true;
		w->over = true;
		return;
	}
	if (rdx_runtime_stopping()) {
		fprintf(stderr, "rdx-perf: interrupted: ending the run\n");
		a->run.abort = true;
		w->over = true;
	}
}

static int
end_poll(void *arg)
{
	struct end_watch *w = arg;

	if (++w->n < w->every)
		return 0;
	w->n = 0;
	end_check(w, w->timeout_ms);
	if (w->over)
		rdx_lcore_loop_stop(w->loop);
	return 0;
}

/* -b: this process's own measured loop of the run, for ENDACK. */
static void
bidir_counts(const struct perf_app *a, struct wire_end *e)
{
	uint64_t t0 = UINT64_MAX, t1 = 0, hz = rdx_tsc_hz(), c;
	double peak = 0;
	unsigned int l;

	for (l = 0; l < a->nb_lcores; l++) {
		const struct perf_lcore *lc = &a->lcores[l];

		/* perftest's BW peak, the lcores' added (as report.c's total) */
		if (lc->peak.best_n != 0 && lc->peak.best_dt != 0)
			peak += (double)a->run.size * (double)lc->peak.best_n * (double)hz /
				(double)lc->peak.best_dt;
		e->ops += lc->ops;
		e->bytes += lc->bytes;
		e->qps += lc->nb_eps;
		t0 = RTE_MIN(t0, lc->t_start);
		t1 = RTE_MAX(t1, lc->t_end);
	}
	c = t1 > t0 ? t1 - t0 : 0;
	e->ns = c / hz * 1000000000ull + c % hz * 1000000000ull / hz;
	e->lcores = a->nb_lcores;
	e->peak_kib = perf_wire_peak_kib(peak);
}

/* Run the responder loops on the worker lcores (and here when the main
 * lcore is one of them) until the client's END arrives; the main lcore
 * watches the connection. A test with nothing to serve (the server is only
 * the target of one-sided ops: write bw, read, cas, faa) launches no serve
 * loop and sleeps on the socket, as perftest's server does: a spinning
 * responder would take a core from a software NIC (rxe runs in the kernel)
 * for nothing. */
static int
server_one_run(struct perf_app *a, unsigned int main_idx)
{
	const bool sleep = perf_server_waits_on_socket(a);
	struct end_watch w = { .a = a, .loop = &main_loop };
	struct wire_end e;
	int rc = 0, lrc;
	unsigned int l;

	if (sleep)
		main_idx = a->nb_lcores;
	rdx_lcore_loop_init(&main_loop);
	for (l = 0; l < a->nb_lcores && !sleep; l++) {
		struct serve_lcore *s = &serve_lcores[l];

		rdx_lcore_loop_init(&s->loop);
		s->serve.loop = l == main_idx ? &main_loop : &s->loop;
		s->serve.lc = &a->lcores[l];
		s->serve.rc = 0;
		if (l == main_idx)
			rdx_lcore_loop_add(&main_loop, "serve", perf_serve_poll, &s->serve);
		else
			rdx_lcore_loop_add(&s->loop, "serve", perf_serve_poll, &s->serve);
	}
	for (l = 0; l < a->nb_lcores && !sleep; l++)
		if (l != main_idx)
			rte_eal_remote_launch(serve_lcore_main, &serve_lcores[l], a->lcore_ids[l]);
	/* serving here: a look at the socket every 4096 passes; else sleep on it */
	w.every = main_idx < a->nb_lcores ? 4096 : 1;
	w.timeout_ms = main_idx < a->nb_lcores ? 0 : 100;
	rdx_lcore_loop_add(&main_loop, "end", end_poll, &w);
	while (!w.over) {
		rdx_lcore_loop_run(&main_loop);
		/* the loop also ends on the stop flag, or when our serve step
		 * failed (the client's END still ends the run) */
		if (!w.over)
			end_check(&w, rdx_runtime_stopping() ? 0 : w.timeout_ms);
		main_loop.stop = false;
	}
	for (l = 0; l < a->nb_lcores && !sleep; l++)
		if (l != main_idx)
			rdx_lcore_loop_stop(&serve_lcores[l].loop);
	for (l = 0; l < a->nb_lcores && !sleep; l++)
		if (l != main_idx) {
			lrc = rte_eal_wait_lcore(a->lcore_ids[l]);
			if (lrc < 0 && rc == 0)
				rc = lrc;
		}
	if (a->run.abort)
		return w.proto ? -EPROTO : -ECONNRESET;
	if (a->o.transport == PERF_TRANSPORT_UD)
		for (l = 0; l < a->nb_lcores; l++)
			perf_serve_drain(&a->lcores[l]);
	memset(&e, 0, sizeof(e));
	for (l = 0; l < a->nb_lcores; l++) {
		e.verify_errors += a->lcores[l].verify_errors;
		a->lcores[l].verify_errors = 0;
		if (a->lcores[l].err != 0 && e.status == 0) {
			e.status = a->lcores[l].err;
			fprintf(stderr, "rdx-perf: %s\n", a->lcores[l].errmsg);
		}
	}
	a->verify_errors += e.verify_errors;
	if (perf_bidir_procs(a) && e.status == 0)
		bidir_counts(a, &e);
	if (a->o.transport == PERF_TRANSPORT_UD) {
		struct perf_ud_run u;

		perf_ud_counts(a, &u);
		e.ud_tx = u.srv_tx;
		e.ud_rx = u.srv_rx;
		/* ENDACK's ud_rx leaves them out; the client is not told */
		if (u.stale > 0)
			fprintf(stderr, "rdx-perf: UD run %u: %" PRIu64 " stale datagram(s) (of earlier runs, late) not counted\n",
				a->nb_runs, u.stale);
	}
	rc = rdx_conn_send(a->conn, MSG_ENDACK, &e, sizeof(e), perf_boot_ms(a));
	if (rc < 0)
		fprintf(stderr, "rdx-perf: the client left before the end of the run was acknowledged: %s\n",
			rdx_conn_strerror(a->conn));
	return rc < 0 ? rc : e.status;
}

/*
 * -b: this process runs the test's loop on its QPs too, as the client does
 * (main.c's lcores, the bootstrap connection watched), then says so with
 * BIDIR_DONE; server_one_run then serves until the client's END. A failed
 * lcore is reported in ENDACK's status (its error stays in lc->err).
 */
static int
bidir_run(struct perf_app *a)
{
	int rc;

	if (a->eng->setup != NULL) {
		rc = a->eng->setup(a);
		if (rc < 0)
			return rc;
	}
	/* an lcore's failure (its line printed) goes back in ENDACK.status */
	a->launch_clients(a);
	if (a->eng->teardown != NULL)
		a->eng->teardown(a);
	rc = rdx_conn_send(a->conn, PERF_MSG_BIDIR_DONE, NULL, 0, perf_boot_ms(a));
	if (rc < 0)
		fprintf(stderr, "rdx-perf: the client left during the run: %s\n",
			rdx_conn_strerror(a->conn));
	return rc;
}

int
perf_server_loop(struct perf_app *a)
{
	unsigned int main_idx = a->nb_lcores;
	unsigned int l;
	struct wire_run r;
	char err[256];
	int rc;

	for (l = 0; l < a->nb_lcores; l++)
		if (a->lcore_ids[l] == rte_get_main_lcore())
			main_idx = l;
	for (;;) {
		rc = rdx_conn_recv(a->conn, MSG_RUN, &r, sizeof(r), perf_boot_ms(a));
		if (rc == -EPROTO) {
			fprintf(stderr, "rdx-perf: bad message from the client: %s\n",
				rdx_conn_strerror(a->conn));
			return -EPROTO;
		}
		if (rc < 0) {
			fprintf(stderr, "rdx-perf: client went away: %s\n", rdx_conn_strerror(a->conn));
			return -ECONNRESET;
		}
		if (perf_wire_run_check(a, &r, err, sizeof(err)) < 0) {
			fprintf(stderr, "rdx-perf: %s\n", err);
			return -EPROTO;
		}
		if (r.bye) {
			if (perf_bidir_procs(a))
				printf("rdx-perf: ran %u run(s) of %s -b with the client; it has both rows and the sum\n",
				       a->nb_runs, a->o.test);
			else
				printf("rdx-perf: served %u run(s) of %s for the client; it has the results\n",
				       a->nb_runs, a->o.test);
			return 0;
		}
		{
			const uint32_t layout[2] = {r.stride, r.slots};

			perf_run_prepare(a, r.size, r.qps, layout);
		}
		a->run.req_size = r.req_size;
		a->nb_runs++;
		rc = rdx_conn_send(a->conn, MSG_READY, &r, sizeof(r), perf_boot_ms(a));
		if (rc < 0)
			return rc;
		if (perf_bidir_procs(a)) {
			rc = bidir_run(a);
			if (rc < 0)
				return rc;
		}
		rc = server_one_run(a, main_idx);
		if (rc < 0)
			return rc;
		if (perf_bidir_procs(a))
			perf_report_run(a, false);
	}
}
