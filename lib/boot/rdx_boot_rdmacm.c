/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The "rdmacm" bootstrap provider: two processes whose RC QPs are
 * connected by rdma_cm (librdmacm), perftest's -R. The run messages
 * (exchange, begin and end of a run, goodbye) travel over a "tcp"
 * bootstrap opened inside this one (rdx_boot_open: the public calls, so
 * the tcp provider's rules on timeouts, stray connections and wire
 * versions hold unchanged); rdma_cm carries each QP's connection data in
 * its private data and moves nothing else.
 *
 * The QPs are lib/dev's (the caller creates them on its device), so the
 * cm_ids run in librdmacm's external-QP mode: no QP belongs to a cm_id,
 * the QP number goes in rdma_conn_param.qp_num, and each end moves its own
 * QP to RTS (rdx_qp_connect) with the peer's QP number, PSN, GID and MTU
 * from the private data (request: client -> server; reply: server ->
 * client). The client answers the reply with rdma_establish once its QP
 * is in RTS; the server accepts once its QP is in RTS. This file is the
 * one of lib/boot above lib/dev: its own archive (lib/meson.build), so
 * librdx_boot needs neither lib/dev nor librdmacm.
 *
 * A cm_id is bound to the RDMA device its address resolves to: it must be
 * the caller's device, so a route that leaves through another device (two
 * soft-RoCE devices in one host) is one line, not a hang.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <rte_common.h>
#include <rte_errno.h>

#include "rdx_conn.h"
#include "rdx_dev.h"
#include "rdx_runtime.h"

#include "rdx_boot.h"
#include "rdx_boot_provider.h"

#define CM_MAGIC      0x52445843u /* "RDXC" */
#define CM_RESOLVE_MS 2000
#define CM_BACKLOG    64
#define CM_POLL_MS    100

/* The private data of the request and of the reply (56 bytes fit a REQ). */
struct cm_priv {
	uint32_t magic;
	uint32_t index;          /* the QP's index among the caller's */
	uint32_t qp_num;
	uint32_t psn;
	uint8_t gid[16];
	uint16_t lid;
	uint8_t mtu;             /* enum ibv_mtu of the sender's port */
	uint8_t pad;
};

struct cm_boot {
	struct rdx_boot *tcp;          /* the run messages */
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen;     /* server */
	struct rdma_cm_id **ids;       /* one per QP */
	unsigned int nb_ids;
	const char *dev;               /* rdx_boot_qp_connect's device */
	char route[192];               /* QP 0's, rdx_boot_route */
};

static struct cm_boot *
cm(const struct rdx_boot *b)
{
	return b->priv;
}

static const char *
cm_addr_str(const struct sockaddr *sa, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	const void *p;

	/* a copy: rdma_cm's sockaddr is not aligned for the in/in6 casts */
	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, sa, sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
	       sizeof(struct sockaddr_in));
	p = ss.ss_family == AF_INET6 ? (const void *)&((struct sockaddr_in6 *)&ss)->sin6_addr :
		(const void *)&((struct sockaddr_in *)&ss)->sin_addr;
	if (inet_ntop(ss.ss_family, p, buf, (socklen_t)len) == NULL)
		snprintf(buf, len, "?");
	return buf;
}

/* HOST (a name, a numeric address, [v6]) and a port into a sockaddr. */
static int
cm_resolve_host(struct rdx_boot *b, const char *host, uint16_t port,
		struct sockaddr_storage *ss)
{
	struct addrinfo hints, *res = NULL;
	char h[256];
	size_t n = strlen(host);
	int rc;

	if (n >= 2 && host[0] == '[' && host[n - 1] == ']') {
		snprintf(h, sizeof(h), "%.*s", (int)(n - 2), host + 1);
		host = h;
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(host, NULL, &hints, &res);
	if (rc != 0 || res == NULL) {
		RDX_BOOT_LOG(b, ERR, "rdma_cm: bad address '%s': %s", host, gai_strerror(rc));
		return -EINVAL;
	}
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, res->ai_addr, RTE_MIN((size_t)res->ai_addrlen, sizeof(*ss)));
	freeaddrinfo(res);
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
	else
		return -EINVAL;
	return 0;
}

static int
cm_listen(struct rdx_boot *b)
{
	struct cm_boot *c = cm(b);
	const uint16_t port = rdx_boot_port(c->tcp);
	struct sockaddr_storage ss;
	int rc;

	memset(&ss, 0, sizeof(ss));
	if (b->conf.source != NULL) {
		rc = cm_resolve_host(b, b->conf.source, port, &ss);
		if (rc < 0)
			return rc;
	} else {
		struct sockaddr_in *in = (struct sockaddr_in *)&ss;

		in->sin_family = AF_INET;
		in->sin_addr.s_addr = htonl(INADDR_ANY);
		in->sin_port = htons(port);
	}
	if (rdma_create_id(c->ch, &c->listen, NULL, RDMA_PS_TCP) != 0) {
		RDX_BOOT_LOG(b, ERR, "rdma_cm: rdma_create_id failed: %s", strerror(errno));
		return -EIO;
	}
	if (rdma_bind_addr(c->listen, (struct sockaddr *)&ss) != 0) {
		rc = errno;
		RDX_BOOT_LOG(b, ERR, "rdma_cm: cannot bind to %s port %u: %s",
			     b->conf.source != NULL ? b->conf.source : "any address", port,
			     strerror(rc));
		return rc == EADDRINUSE ? -EADDRINUSE : -EINVAL;
	}
	if (rdma_listen(c->listen, CM_BACKLOG) != 0) {
		RDX_BOOT_LOG(b, ERR, "rdma_cm: rdma_listen on port %u failed: %s", port,
			     strerror(errno));
		return -EADDRINUSE;
	}
	return 0;
}

static void cm_close(struct rdx_boot *b);
static struct rdx_conn *cm_conn(const struct rdx_boot *b);

/*
 * No RDMA device, no rdma_cm: one line and -ENODEV before anything
 * listens. Then the tcp bootstrap (the server listens on conf.port, or
 * any), then rdma_cm's listener on the same port, so that it exists
 * before a client can reach the server.
 */
static int
cm_open(struct rdx_boot *b)
{
	struct cm_boot *c = cm(b);
	struct rdx_boot_conf tc = b->conf;
	struct ibv_device **list;
	int n = 0, rc;

	list = ibv_get_device_list(&n);
	if (list != NULL)
		ibv_free_device_list(list);
	if (n <= 0) {
		RDX_BOOT_LOG(b, ERR, "rdma_cm: no RDMA device here (rdma_cm connects the QPs of one; the software device has none)");
		return -ENODEV;
	}
	c->ch = rdma_create_event_channel();
	if (c->ch == NULL) {
		rc = errno;
		RDX_BOOT_LOG(b, ERR, "rdma_cm: cannot open an rdma_cm event channel: %s (is rdma_ucm loaded?)",
			     strerror(rc));
		return rc == ENOENT || rc == ENODEV ? -ENODEV : -EIO;
	}
	/* the waits poll the channel with a timeout */
	(void)fcntl(c->ch->fd, F_SETFL, fcntl(c->ch->fd, F_GETFL) | O_NONBLOCK);
	tc.source = NULL;
	c->tcp = rdx_boot_open("tcp", &tc);
	if (c->tcp == NULL) {
		rc = -rte_errno;
		cm_close(b);
		return rc;
	}
	b->rank = rdx_boot_rank(c->tcp);
	b->size = rdx_boot_size(c->tcp);
	rc = b->rank == 0 ? cm_listen(b) : 0;
	if (rc < 0)
		cm_close(b);
	return rc;
}

static int
cm_connect(struct rdx_boot *b)
{
	return rdx_boot_connect(cm(b)->tcp);
}

/*
 * The next event of the channel, not yet acked, within the timeout: the
 * peer is known by then (the tcp bootstrap came first), so its process
 * dying is -ECONNRESET at once, not a wait until the timeout. `want`
 * names what is awaited in the lines.
 */
static int
cm_next(struct rdx_boot *b, enum rdma_cm_event_type want, struct rdma_cm_event **out)
{
	struct cm_boot *c = cm(b);
	struct pollfd pfd = { .fd = c->ch->fd, .events = POLLIN };
	struct rdx_conn *peer = rdx_boot_conn(c->tcp);
	int left = b->conf.timeout_ms;
	char what[64];
	int rc;

	snprintf(what, sizeof(what), "%s from rdma_cm", rdma_event_str(want));
	for (;;) {
		if (rdma_get_cm_event(c->ch, out) == 0)
			return 0;
		if (errno != EAGAIN) {
			RDX_BOOT_LOG(b, ERR, "rdma_cm: rdma_get_cm_event failed: %s",
				     strerror(errno));
			return -EIO;
		}
		if (rdx_runtime_stopping())
			return rdx_boot_wait_failed(b, -EINTR, what, "");
		if (peer != NULL && rdx_conn_peer_alive(peer) < 0)
			return rdx_boot_wait_failed(b, -ECONNRESET, what, "");
		rc = poll(&pfd, 1, RTE_MIN(left, CM_POLL_MS));
		if (rc < 0 && errno != EINTR)
			return -EIO;
		if (rc == 0) {
			left -= CM_POLL_MS;
			if (left <= 0)
				return rdx_boot_wait_failed(b, -ETIMEDOUT, what, "");
		}
	}
}

/* An event that is not the one awaited: one line, the event acked (a
 * connection request refused), and the error: the peer refused or cannot
 * be reached (-ECONNREFUSED), went away (-ECONNRESET), or is not rdx's. */
static int
cm_unexpected(struct rdx_boot *b, struct rdma_cm_event *ev, const char *waiting_for)
{
	int rc;

	switch (ev->event) {
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		rc = -ECONNREFUSED;
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		rc = -ECONNRESET;
		break;
	default:
		rc = -EPROTO;
	}
	RDX_BOOT_LOG(b, ERR, "rdma_cm: event %s (status %d) while waiting for %s",
		     rdma_event_str(ev->event), ev->status, waiting_for);
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		rdma_reject(ev->id, NULL, 0);
	rdma_ack_cm_event(ev);
	return rc;
}

/* The private data of a connection event into priv: 0, or -EPROTO when
 * it is not ours by its size. */
static int
cm_priv_copy(struct rdx_boot *b, const struct rdma_cm_event *ev, struct cm_priv *priv)
{
	memset(priv, 0, sizeof(*priv));
	if (ev->param.conn.private_data == NULL ||
	    ev->param.conn.private_data_len < sizeof(*priv)) {
		RDX_BOOT_LOG(b, ERR, "rdma_cm: the peer's %s carries %u bytes of private data, not rdx's %zu",
			     rdma_event_str(ev->event),
			     (unsigned int)ev->param.conn.private_data_len, sizeof(*priv));
		return -EPROTO;
	}
	memcpy(priv, ev->param.conn.private_data, sizeof(*priv));
	return 0;
}

/* The next event, which must be `want` on `on`; its private data copied
 * to priv (unless NULL) before the ack. The client's steps: one cm_id at a
 * time. */
static int
cm_wait(struct rdx_boot *b, enum rdma_cm_event_type want, struct rdma_cm_id *on,
	struct cm_priv *priv)
{
	struct rdma_cm_event *ev;
	int rc;

	rc = cm_next(b, want, &ev);
	if (rc < 0)
		return rc;
	if (ev->event != want || ev->id != on)
		return cm_unexpected(b, ev, rdma_event_str(want));
	rc = priv != NULL ? cm_priv_copy(b, ev, priv) : 0;
	rdma_ack_cm_event(ev);
	return rc;
}

/* The cm_id must sit on the caller's device; QP 0's route is kept. */
static int
cm_check_dev(struct rdx_boot *b, struct rdma_cm_id *id, unsigned int i)
{
	struct cm_boot *c = cm(b);
	const char *name = id->verbs != NULL ? ibv_get_device_name(id->verbs->device) : "(none)";
	char src[64], dst[64];

	cm_addr_str(rdma_get_local_addr(id), src, sizeof(src));
	cm_addr_str(rdma_get_peer_addr(id), dst, sizeof(dst));
	if (strcmp(name, c->dev) != 0) {
		RDX_BOOT_LOG(b, ERR, "rdma_cm: QP %u: rdma_cm put %s -> %s on device %s, not on %s: bind an address of %s's netdev",
			     i, src, dst, name, c->dev, c->dev);
		return -EINVAL;
	}
	if (i == 0)
		snprintf(c->route, sizeof(c->route), "%s -> %s on device %s port %u", src, dst,
			 name, (unsigned int)id->port_num);
	return 0;
}

static void
cm_priv_fill(struct rdx_qp *qp, unsigned int i, struct cm_priv *p)
{
	struct rdx_qp_info info;

	memset(&info, 0, sizeof(info));
	rdx_qp_info_get(qp, &info);
	memset(p, 0, sizeof(*p));
	p->magic = CM_MAGIC;
	p->index = i;
	p->qp_num = info.qp_num;
	p->psn = info.psn;
	memcpy(p->gid, info.gid, sizeof(p->gid));
	p->lid = info.lid;
	p->mtu = info.mtu;
}

/* The peer's private data for our QP i (peer input: every field checked):
 * 0, or -EPROTO with what is wrong in err. */
static int
cm_priv_check(const struct cm_priv *p, unsigned int i, char *err, size_t len)
{
	if (p->magic != CM_MAGIC)
		snprintf(err, len, "magic 0x%x, not 0x%x", p->magic, CM_MAGIC);
	else if (p->index != i)
		snprintf(err, len, "it is for QP %u", p->index);
	else if (p->qp_num == 0 || p->qp_num > 0xffffffu)
		snprintf(err, len, "QP number 0x%x is not 1..0xffffff", p->qp_num);
	else if (p->psn > 0xffffffu)
		snprintf(err, len, "PSN 0x%x is above 24 bits", p->psn);
	else if (p->mtu < 1 || p->mtu > 5)
		snprintf(err, len, "MTU code %u is not 1..5 (256..4096)", p->mtu);
	else if (p->pad != 0)
		snprintf(err, len, "padding byte %u is not 0", p->pad);
	else
		return 0;
	return -EPROTO;
}

/* Our QP i to RTS towards the peer's private data. */
static int
cm_qp_rts(struct rdx_boot *b, struct rdx_qp *qp, unsigned int i, const struct cm_priv *p,
	  const struct rdx_qp_conn_attr *ca)
{
	struct rdx_qp_info r;
	char err[160];
	int rc;

	if (cm_priv_check(p, i, err, sizeof(err)) < 0) {
		RDX_BOOT_LOG(b, ERR, "rdma_cm: QP %u: the peer's private data is not rdx's: %s",
			     i, err);
		return -EPROTO;
	}
	/* our own info for what both ends share (driver, port, type) */
	memset(&r, 0, sizeof(r));
	rdx_qp_info_get(qp, &r);
	r.qp_num = p->qp_num;
	r.psn = p->psn;
	memcpy(r.gid, p->gid, sizeof(r.gid));
	r.lid = p->lid;
	r.mtu = p->mtu;
	rc = rdx_qp_connect(qp, &r, ca);
	/* -EPROTO: the driver said which field it refused */
	if (rc < 0 && rc != -EPROTO)
		RDX_BOOT_LOG(b, ERR, "rdma_cm: cannot connect QP %u to remote QP 0x%x: %s",
			     i, p->qp_num, strerror(-rc));
	return rc;
}

static void
cm_param(struct rdma_conn_param *cp, const struct cm_priv *p)
{
	memset(cp, 0, sizeof(*cp));
	cp->private_data = p;
	cp->private_data_len = sizeof(*p);
	cp->responder_resources = RDMA_MAX_RESP_RES;
	cp->initiator_depth = RDMA_MAX_INIT_DEPTH;
	cp->retry_count = 7;
	cp->rnr_retry_count = 7;
	cp->qp_num = p->qp_num;
}

static int
cm_client_one(struct rdx_boot *b, struct rdx_qp *qp, unsigned int i,
	      const struct rdx_qp_conn_attr *ca, const struct sockaddr_storage *src,
	      const struct sockaddr_storage *dst, uint32_t *peer_qpn)
{
	struct cm_boot *c = cm(b);
	struct rdma_conn_param cp;
	struct cm_priv mine, theirs;
	struct rdma_cm_id *id;
	int rc;

	if (rdma_create_id(c->ch, &c->ids[i], NULL, RDMA_PS_TCP) != 0) {
		RDX_BOOT_LOG(b, ERR, "rdma_cm: rdma_create_id failed: %s", strerror(errno));
		return -EIO;
	}
	c->nb_ids = i + 1;
	id = c->ids[i];
	if (rdma_resolve_addr(id, src != NULL ? (struct sockaddr *)(uintptr_t)src : NULL,
			      (struct sockaddr *)(uintptr_t)dst, CM_RESOLVE_MS) != 0) {
		RDX_BOOT_LOG(b, ERR, "rdma_cm: rdma_resolve_addr failed: %s", strerror(errno));
		return -ECONNREFUSED;
	}
	rc = cm_wait(b, RDMA_CM_EVENT_ADDR_RESOLVED, id, NULL);
	if (rc == 0 && rdma_resolve_route(id, CM_RESOLVE_MS) != 0) {
		RDX_BOOT_LOG(b, ERR, "rdma_cm: rdma_resolve_route failed: %s", strerror(errno));
		rc = -ECONNREFUSED;
	}
	if (rc == 0)
		rc = cm_wait(b, RDMA_CM_EVENT_ROUTE_RESOLVED, id, NULL);
	if (rc == 0)
		rc = cm_check_dev(b, id, i);
	if (rc < 0)
		return rc;
	cm_priv_fill(qp, i, &mine);
	cm_param(&cp, &mine);
	if (rdma_connect(id, &cp) != 0) {
		RDX_BOOT_LOG(b, ERR, "rdma_cm: rdma_connect failed: %s", strerror(errno));
		return -ECONNREFUSED;
	}
	rc = cm_wait(b, RDMA_CM_EVENT_CONNECT_RESPONSE, id, &theirs);
	if (rc == 0)
		rc = cm_qp_rts(b, qp, i, &theirs, ca);
	if (rc < 0) {
		rdma_reject(id, NULL, 0);
		return rc;
	}
	peer_qpn[i] = theirs.qp_num;
	if (rdma_establish(id) != 0) {
		RDX_BOOT_LOG(b, ERR, "rdma_cm: rdma_establish failed: %s", strerror(errno));
		return -EIO;
	}
	return 0;
}

/* The server's side of QP i's connection request: the QP to RTS with the
 * peer's data, then accept with our own. */
static int
cm_server_accept(struct rdx_boot *b, struct rdx_qp *qp, unsigned int i, struct rdma_cm_id *id,
		 const struct cm_priv *theirs, const struct rdx_qp_conn_attr *ca)
{
	struct rdma_conn_param cp;
	struct cm_priv mine;
	int rc;

	rc = cm_check_dev(b, id, i);
	if (rc == 0)
		rc = cm_qp_rts(b, qp, i, theirs, ca);
	if (rc < 0) {
		rdma_reject(id, NULL, 0);
		return rc;
	}
	cm_priv_fill(qp, i, &mine);
	cm_param(&cp, &mine);
	if (rdma_accept(id, &cp) != 0) {
		RDX_BOOT_LOG(b, ERR, "rdma_cm: rdma_accept failed: %s", strerror(errno));
		return -EIO;
	}
	return 0;
}

/* A connection request's private data names a QP we have, once: 0, or
 * -EPROTO after one line. */
static int
cm_request_check(struct rdx_boot *b, const struct cm_priv *p, unsigned int n)
{
	struct cm_boot *c = cm(b);
	char err[160];

	if (p->magic == CM_MAGIC && p->index < n && c->ids[p->index] == NULL)
		return 0;
	if (cm_priv_check(p, p->index, err, sizeof(err)) < 0)
		RDX_BOOT_LOG(b, ERR, "rdma_cm: a connection request's private data is not rdx's: %s",
			     err);
	else
		RDX_BOOT_LOG(b, ERR, "rdma_cm: a connection request for QP %u: %s", p->index,
			     p->index >= n ? "there are not that many" :
			     "that QP is connected already");
	return -EPROTO;
}

/*
 * The server: every QP's connection request accepted and established.
 * The events of different cm_ids come in no fixed order: the client sends
 * QP i+1's request right after QP i's RTU, and the kernel's CM may deliver
 * that request before QP i's ESTABLISHED (its handlers run on a workqueue
 * of several workers). So any request or establishment is taken as it
 * comes: a request names its QP in the private data (each index once), an
 * establishment is matched by its cm_id.
 */
static int
cm_server_all(struct rdx_boot *b, struct rdx_qp *const *qps, unsigned int n,
	      const struct rdx_qp_conn_attr *ca, uint32_t *peer_qpn)
{
	struct cm_boot *c = cm(b);
	unsigned int requested = 0, established = 0, i;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	struct cm_priv theirs;
	int rc;

	c->nb_ids = n; /* ids[] is filled by index, in any order */
	while (established < n) {
		rc = cm_next(b, requested < n ? RDMA_CM_EVENT_CONNECT_REQUEST :
			     RDMA_CM_EVENT_ESTABLISHED, &ev);
		if (rc < 0)
			return rc;
		id = ev->id;
		if (ev->event == RDMA_CM_EVENT_ESTABLISHED) {
			uintptr_t tag = (uintptr_t)id->context;

			rdma_ack_cm_event(ev);
			if (tag == 0 || tag > n) {
				RDX_BOOT_LOG(b, ERR, "rdma_cm: ESTABLISHED on a connection not accepted");
				return -EPROTO;
			}
			established++;
			continue;
		}
		if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST || requested == n)
			return cm_unexpected(b, ev, requested < n ?
					     "CONNECT_REQUEST or ESTABLISHED" : "ESTABLISHED");
		rc = cm_priv_copy(b, ev, &theirs);
		rdma_ack_cm_event(ev);
		if (rc == 0)
			rc = cm_request_check(b, &theirs, n);
		if (rc < 0) {
			rdma_reject(id, NULL, 0);
			return rc;
		}
		i = theirs.index;
		c->ids[i] = id;
		id->context = (void *)(uintptr_t)(i + 1);
		requested++;
		rc = cm_server_accept(b, qps[i], i, id, &theirs, ca);
		if (rc < 0)
			return rc;
		peer_qpn[i] = theirs.qp_num;
	}
	return 0;
}

/* The client's addresses: the server's (conf.peer's host, the bootstrap
 * port) and, with conf.source, the one to bind. */
static int
cm_client_addrs(struct rdx_boot *b, struct sockaddr_storage *src,
		struct sockaddr_storage *dst)
{
	char host[256];
	uint16_t port;
	int rc;

	if (rdx_conn_parse_hostport(b->conf.peer, host, sizeof(host), &port) < 0)
		return -EINVAL;   /* open said so */
	rc = cm_resolve_host(b, host, port, dst);
	if (rc == 0 && b->conf.source != NULL)
		rc = cm_resolve_host(b, b->conf.source, 0, src);
	if (rc < 0)
		return rc;
	if (b->conf.source != NULL && src->ss_family != dst->ss_family) {
		RDX_BOOT_LOG(b, ERR, "rdma_cm: the source address %s and the server %s are not of one address family",
			     b->conf.source, host);
		return -EINVAL;
	}
	return 0;
}

static int
cm_qp_connect(struct rdx_boot *b, const struct rdx_dev *dev, struct rdx_qp *const *qps,
	      unsigned int n, const struct rdx_qp_conn_attr *ca, uint32_t *peer_qpn)
{
	struct cm_boot *c = cm(b);
	struct sockaddr_storage src, dst;
	unsigned int i;
	int rc;

	if (c->ids != NULL)
		return -EBUSY;
	if (cm_conn(b) == NULL)
		return -ENOTCONN;
	c->dev = rdx_dev_attr_get(dev)->name;
	c->ids = calloc(RTE_MAX(n, 1u), sizeof(*c->ids));
	if (c->ids == NULL)
		return -ENOMEM;
	if (b->rank == 0)
		return cm_server_all(b, qps, n, ca, peer_qpn);
	rc = cm_client_addrs(b, &src, &dst);
	for (i = 0; rc == 0 && i < n; i++)
		rc = cm_client_one(b, qps[i], i, ca, b->conf.source != NULL ? &src : NULL, &dst,
				   peer_qpn);
	return rc;
}

static const char *
cm_route(const struct rdx_boot *b)
{
	return cm(b)->route[0] != '\0' ? cm(b)->route : NULL;
}

static int
cm_exchange(struct rdx_boot *b, uint32_t type, const void *mine, void *theirs, size_t len)
{
	return rdx_boot_exchange(cm(b)->tcp, type, mine, theirs, len);
}

static int
cm_run_begin(struct rdx_boot *b, uint32_t req_type, const void *req, uint32_t ack_type,
	     void *ack, size_t len)
{
	return rdx_boot_run_begin(cm(b)->tcp, req_type, req, ack_type, ack, len);
}

static int
cm_run_end(struct rdx_boot *b, uint32_t end_type, uint32_t ack_type, void *ack, size_t len,
	   int (*wait)(void *arg), void *arg)
{
	return rdx_boot_run_end(cm(b)->tcp, end_type, ack_type, ack, len, wait, arg);
}

static int
cm_bye(struct rdx_boot *b, uint32_t type, const void *msg, size_t len)
{
	return rdx_boot_bye(cm(b)->tcp, type, msg, len);
}

static const char *
cm_strerror(const struct rdx_boot *b)
{
	return cm(b)->tcp != NULL ? rdx_boot_strerror(cm(b)->tcp) : b->err;
}

static struct rdx_conn *
cm_conn(const struct rdx_boot *b)
{
	return cm(b)->tcp != NULL ? rdx_boot_conn(cm(b)->tcp) : NULL;
}

static uint16_t
cm_port(const struct rdx_boot *b)
{
	return cm(b)->tcp != NULL ? rdx_boot_port(cm(b)->tcp) : 0;
}

/* The connections down before the caller destroys its QPs. */
static void
cm_close(struct rdx_boot *b)
{
	struct cm_boot *c = cm(b);
	unsigned int i;

	for (i = 0; c->ids != NULL && i < c->nb_ids; i++)
		if (c->ids[i] != NULL) {
			rdma_disconnect(c->ids[i]);
			rdma_destroy_id(c->ids[i]);
		}
	free(c->ids);
	c->ids = NULL;
	c->nb_ids = 0;
	if (c->listen != NULL)
		rdma_destroy_id(c->listen);
	c->listen = NULL;
	if (c->ch != NULL)
		rdma_destroy_event_channel(c->ch);
	c->ch = NULL;
	rdx_boot_close(c->tcp);
	c->tcp = NULL;
}

static const struct rdx_boot_ops rdmacm_ops = {
	.name = "rdmacm",
	.priv_size = sizeof(struct cm_boot),
	.open = cm_open,
	.connect = cm_connect,
	.exchange = cm_exchange,
	.close = cm_close,
	.run_begin = cm_run_begin,
	.run_end = cm_run_end,
	.bye = cm_bye,
	.strerror = cm_strerror,
	.conn = cm_conn,
	.port = cm_port,
	.qp_connect = cm_qp_connect,
	.route = cm_route,
};

RDX_BOOT_PROVIDER_REGISTER(rdmacm_ops)
