/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The "tcp" bootstrap provider: two processes over one lib/conn
 * connection. The server (rank 0) listens at open and accepts at connect
 * until a peer speaks the bootstrap; the client (rank 1) connects,
 * retrying a refused connection until the timeout. Runs: the client sends
 * the begin and the end of each run and the goodbye, the server answers.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_errno.h>

#include "rdx_conn.h"
#include "rdx_runtime.h"

#include "rdx_boot.h"
#include "rdx_boot_provider.h"

struct tcp_boot {
	struct rdx_conn *listener;   /* server */
	struct rdx_conn *conn;
	char host[256];              /* client: the server's */
	uint16_t port;
};

static struct tcp_boot *
tcp(const struct rdx_boot *b)
{
	return b->priv;
}

static int
tcp_open(struct rdx_boot *b)
{
	struct tcp_boot *t = tcp(b);

	if (b->conf.peer != NULL) {
		b->rank = 1;
		b->size = 2;
		if (rdx_conn_parse_hostport(b->conf.peer, t->host, sizeof(t->host), &t->port) < 0) {
			RDX_BOOT_LOG(b, ERR, "bad peer address '%s': expected HOST:PORT",
				     b->conf.peer);
			return -EINVAL;
		}
		return 0;
	}
	b->rank = 0;
	b->size = 2;
	t->port = b->conf.port;
	t->listener = rdx_conn_listen(NULL, t->port);
	if (t->listener == NULL) {
		if (rte_errno == EADDRINUSE)
			RDX_BOOT_LOG(b, ERR, "port %u is in use", t->port);
		else
			RDX_BOOT_LOG(b, ERR, "cannot listen on port %u: %s", t->port,
				     rte_strerror(rte_errno));
		return -EADDRINUSE;
	}
	return 0;
}

/* the clock lib/conn's deadlines use: its timeout means ours is over */
static int64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int
tcp_client_connect(struct rdx_boot *b)
{
	struct tcp_boot *t = tcp(b);
	const int64_t deadline = mono_ms() + b->conf.timeout_ms;

	/* the server may still be starting: retry a refused connection
	 * until the timeout */
	for (;;) {
		int64_t left = deadline - mono_ms();

		t->conn = rdx_conn_connect(t->host, t->port, left > 1 ? (int)left : 1);
		if (t->conn != NULL || rte_errno != ECONNREFUSED ||
		    mono_ms() + 100 >= deadline || rdx_runtime_stopping())
			break;
		usleep(100000);
	}
	if (t->conn != NULL)
		return 0;
	if (rte_errno == EPROTO) {
		/* an rdx peer of another version, or not an rdx peer at all */
		RDX_BOOT_LOG(b, ERR, "bootstrap with %s:%u failed: %s", t->host, t->port,
			     rdx_conn_strerror(NULL));
		return -EPROTO;
	}
	RDX_BOOT_LOG(b, ERR, "cannot reach %s:%u within %.1f s: %s", t->host, t->port,
		     (double)b->conf.timeout_ms / 1000.0, rdx_conn_strerror(NULL));
	return -ECONNREFUSED;
}

/*
 * Accept until a peer speaks the bootstrap or the timeout: a stray
 * connection (a port scan, a peer that sends garbage or closes) gets one
 * line and the server keeps waiting; an rdx peer of another wire version
 * ends it with the line naming the peer's version.
 */
static int
tcp_server_connect(struct rdx_boot *b)
{
	struct tcp_boot *t = tcp(b);
	/* without timeout_given, as perftest's server: until Ctrl-C */
	const bool forever = !b->conf.timeout_given;
	int64_t deadline = forever ? INT64_MAX : mono_ms() + b->conf.timeout_ms;
	char where[32];

	snprintf(where, sizeof(where), " on port %u", t->port);
	for (;;) {
		int64_t left = deadline - mono_ms();

		t->conn = rdx_conn_accept(t->listener,
					  forever ? -1 : (int)RTE_MAX(left, (int64_t)0));
		if (t->conn != NULL)
			return 0;
		/* a peer that connected and sent no hello times out sooner
		 * (lib/conn caps the hello): only the deadline ends the wait */
		/* Ctrl-C: what a server waiting until then expects */
		if (rte_errno == EINTR || rdx_runtime_stopping())
			return rdx_boot_wait_failed(b, -EINTR, "client", where);
		if (mono_ms() >= deadline)
			return rdx_boot_wait_failed(b, -ETIMEDOUT, "client", where);
		if (rte_errno == EPROTO && rdx_conn_peer_version(t->listener)[0] != '\0') {
			RDX_BOOT_LOG(b, ERR, "%s", rdx_conn_strerror(t->listener));
			return -EPROTO;
		}
		if (rte_errno != EPROTO && rte_errno != ECONNRESET && rte_errno != ETIMEDOUT &&
		    rte_errno != ECONNABORTED && rte_errno != EPIPE && rte_errno != ENOTCONN) {
			RDX_BOOT_LOG(b, ERR, "cannot accept a client on port %u: %s", t->port,
				     rdx_conn_strerror(t->listener));
			return -EIO;
		}
		RDX_BOOT_LOG(b, ERR, "ignored a connection: %s", rdx_conn_strerror(t->listener));
	}
}

static int
tcp_connect(struct rdx_boot *b)
{
	return b->rank == 0 ? tcp_server_connect(b) : tcp_client_connect(b);
}

static int
tcp_exchange(struct rdx_boot *b, uint32_t type, const void *mine, void *theirs, size_t len)
{
	uint8_t *all = theirs;

	if (tcp(b)->conn == NULL)
		return -ENOTCONN;
	memcpy(all + (size_t)b->rank * len, mine, len);
	return rdx_conn_exchange(tcp(b)->conn, type, mine, all + (size_t)(1 - b->rank) * len,
				 len, b->conf.timeout_ms);
}

static int
tcp_run_begin(struct rdx_boot *b, uint32_t req_type, const void *req, uint32_t ack_type,
	      void *ack, size_t len)
{
	struct rdx_conn *c = tcp(b)->conn;
	int rc;

	if (c == NULL)
		return -ENOTCONN;
	rc = rdx_conn_send(c, req_type, req, len, b->conf.timeout_ms);
	if (rc == 0)
		rc = rdx_conn_recv(c, ack_type, ack, len, b->conf.timeout_ms);
	return rc;
}

static int
tcp_run_end(struct rdx_boot *b, uint32_t end_type, uint32_t ack_type, void *ack, size_t len,
	    int (*wait)(void *arg), void *arg)
{
	struct rdx_conn *c = tcp(b)->conn;
	int rc;

	if (c == NULL)
		return -ENOTCONN;
	/* END has no payload: the server polls for it with a zero timeout, and
	 * a lone 8-byte header cannot be caught half-received */
	rc = rdx_conn_send(c, end_type, NULL, 0, b->conf.timeout_ms);
	if (rc == 0 && wait != NULL) {
		rc = wait(arg);
		if (rc == -EPROTO || rc == -ETIMEDOUT)
			return rc;   /* wait() said why */
	}
	if (rc == 0)
		rc = rdx_conn_recv(c, ack_type, ack, len, b->conf.timeout_ms);
	return rc;
}

static int
tcp_bye(struct rdx_boot *b, uint32_t type, const void *msg, size_t len)
{
	if (tcp(b)->conn == NULL)
		return -ENOTCONN;
	return rdx_conn_send(tcp(b)->conn, type, msg, len, b->conf.timeout_ms);
}

static const char *
tcp_strerror(const struct rdx_boot *b)
{
	const struct tcp_boot *t = tcp(b);

	if (t->conn != NULL)
		return rdx_conn_strerror(t->conn);
	return t->listener != NULL ? rdx_conn_strerror(t->listener) : rdx_conn_strerror(NULL);
}

static struct rdx_conn *
tcp_conn(const struct rdx_boot *b)
{
	return tcp(b)->conn;
}

static uint16_t
tcp_port(const struct rdx_boot *b)
{
	return tcp(b)->listener != NULL ? rdx_conn_port(tcp(b)->listener) : 0;
}

static void
tcp_close(struct rdx_boot *b)
{
	struct tcp_boot *t = tcp(b);

	rdx_conn_close(t->conn);
	rdx_conn_close(t->listener);
	t->conn = NULL;
	t->listener = NULL;
}

static const struct rdx_boot_ops tcp_ops = {
	.name = "tcp",
	.priv_size = sizeof(struct tcp_boot),
	.open = tcp_open,
	.connect = tcp_connect,
	.exchange = tcp_exchange,
	.close = tcp_close,
	.run_begin = tcp_run_begin,
	.run_end = tcp_run_end,
	.bye = tcp_bye,
	.strerror = tcp_strerror,
	.conn = tcp_conn,
	.port = tcp_port,
};

RDX_BOOT_PROVIDER_REGISTER(tcp_ops)
