/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx-perf -R: the QPs connected through librdmacm (perftest's -R).
 *
 * rdx-perf keeps creating its QPs through the device API (lib/dev), so the
 * cm_ids run in librdmacm's external-QP mode: no QP belongs to a cm_id, the
 * QP number goes in rdma_conn_param.qp_num, and each end moves its own QP
 * to RTS (rdx_qp_connect) with the peer's QP number, PSN and GID, which
 * travel in the CM's private data (request: client -> server; reply:
 * server -> client). The client answers the reply with rdma_establish once
 * its QP is in RTS; the server accepts once its QP is in RTS.
 *
 * A cm_id is bound to the RDMA device its address resolves to: each end
 * checks that this is the device it opened (--dev) and says which one it
 * used, so a route that leaves through another device (two soft-RoCE
 * devices in one host, doc/softroce.md) is one clear line, not a hang.
 *
 * The verbs driver only: its QPs live on an ibv_context of the same device
 * as the cm_id's. The mlx5 direct datapath and the software device are
 * refused by main.c before any of this runs.
 */
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <rdma/rdma_cma.h>

#include "rdx_conn.h"
#include "rdx_runtime.h"

#include "perf_app.h"

#define CM_MAGIC      0x52445843u /* "RDXC" */
#define CM_RESOLVE_MS 2000
#define CM_BACKLOG    64

/* The private data of the request and of the reply (56 bytes fit a REQ). */
struct cm_priv {
	uint32_t magic;
	uint32_t index;          /* the QP's index in the process */
	uint32_t qp_num;
	uint32_t psn;
	uint8_t gid[16];
	uint16_t lid;
	uint8_t mtu;             /* enum ibv_mtu of the sender's port */
	uint8_t pad;
};

struct perf_cm {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen;     /* server */
	struct rdma_cm_id **ids;       /* one per QP */
	unsigned int nb_ids;
};

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

/* HOST (a name or a numeric address) and a port into a sockaddr. */
static int
cm_resolve_host(const char *host, uint16_t port, struct sockaddr_storage *ss, const char *what)
{
	struct addrinfo hints, *res = NULL;
	char h[256];
	size_t n = strlen(host);
	int rc;

	/* [v6]:port as --connect takes it */
	if (n >= 2 && host[0] == '[' && host[n - 1] == ']') {
		snprintf(h, sizeof(h), "%.*s", (int)(n - 2), host + 1);
		host = h;
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(host, NULL, &hints, &res);
	if (rc != 0 || res == NULL) {
		fprintf(stderr, "rdx-perf: bad value '%s' for %s: %s\n", host, what, gai_strerror(rc));
		return -EINVAL;
	}
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
	else
		return -EINVAL;
	return 0;
}

static struct perf_cm *
cm_get(struct perf_app *a)
{
	if (a->cm != NULL)
		return a->cm;
	a->cm = calloc(1, sizeof(*a->cm));
	if (a->cm == NULL)
		return NULL;
	a->cm->ch = rdma_create_event_channel();
	if (a->cm->ch == NULL) {
		fprintf(stderr, "rdx-perf: -R: cannot open an rdma_cm event channel: %s (is rdma_ucm loaded?)\n",
			strerror(errno));
		free(a->cm);
		a->cm = NULL;
		return NULL;
	}
	/* the waits below poll the channel with a timeout */
	(void)fcntl(a->cm->ch->fd, F_SETFL, fcntl(a->cm->ch->fd, F_GETFL) | O_NONBLOCK);
	return a->cm;
}

/*
 * The next event of the channel within the bootstrap timeout (the client
 * is known by then: the TCP bootstrap came first), not yet acked; `want`
 * names what is awaited in the timeout's line.
 */
static int
cm_next(struct perf_app *a, enum rdma_cm_event_type want, struct rdma_cm_event **out)
{
	struct perf_cm *cm = a->cm;
	struct pollfd pfd = { .fd = cm->ch->fd, .events = POLLIN };
	int left = perf_boot_ms(a);
	int rc;

	for (;;) {
		if (rdma_get_cm_event(cm->ch, out) == 0)
			return 0;
		if (errno != EAGAIN) {
			fprintf(stderr, "rdx-perf: -R: rdma_get_cm_event failed: %s\n", strerror(errno));
			return -EIO;
		}
		if (rdx_runtime_stopping())
			return -EINTR;
		rc = poll(&pfd, 1, left > 100 ? 100 : left);
		if (rc < 0 && errno != EINTR)
			return -EIO;
		if (rc == 0) {
			left -= 100;
			if (left <= 0) {
				fprintf(stderr, "rdx-perf: -R: no %s within %.1f s\n",
					rdma_event_str(want), a->o.boot_timeout);
				return -ETIMEDOUT;
			}
		}
	}
}

/* An event that is not the one awaited: one line, the event acked (a
 * connection request refused), and the error. */
static int
cm_unexpected(struct rdma_cm_event *ev, const char *waiting_for)
{
	int rc = ev->event == RDMA_CM_EVENT_REJECTED || ev->event == RDMA_CM_EVENT_UNREACHABLE ||
		 ev->event == RDMA_CM_EVENT_ADDR_ERROR || ev->event == RDMA_CM_EVENT_ROUTE_ERROR ?
		 -ECONNREFUSED : -EPROTO;

	fprintf(stderr, "rdx-perf: -R: rdma_cm event %s (status %d) while waiting for %s\n",
		rdma_event_str(ev->event), ev->status, waiting_for);
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		rdma_reject(ev->id, NULL, 0);
	rdma_ack_cm_event(ev);
	return rc;
}

/* The private data of a connection event (request, reply) into priv:
 * 0, or -EPROTO when it is not rdx-perf's size. */
static int
cm_priv_copy(const struct rdma_cm_event *ev, struct cm_priv *priv)
{
	memset(priv, 0, sizeof(*priv));
	if (ev->param.conn.private_data == NULL ||
	    ev->param.conn.private_data_len < sizeof(*priv)) {
		fprintf(stderr, "rdx-perf: -R: the peer's %s carries %u bytes of private data, not rdx-perf's %zu\n",
			rdma_event_str(ev->event), (unsigned int)ev->param.conn.private_data_len,
			sizeof(*priv));
		return -EPROTO;
	}
	memcpy(priv, ev->param.conn.private_data, sizeof(*priv));
	return 0;
}

/*
 * The next event, which must be `want` on `on` (any id when NULL); its
 * private data (up to sizeof(struct cm_priv)) is copied to priv before the
 * ack. The client's steps use it: one cm_id at a time.
 */
static int
cm_wait(struct perf_app *a, enum rdma_cm_event_type want, struct rdma_cm_id *on,
	struct rdma_cm_id **id_out, struct cm_priv *priv)
{
	struct rdma_cm_event *ev;
	int rc;

	rc = cm_next(a, want, &ev);
	if (rc < 0)
		return rc;
	if (ev->event != want || (on != NULL && ev->id != on))
		return cm_unexpected(ev, rdma_event_str(want));
	if (id_out != NULL)
		*id_out = ev->id;
	rc = priv != NULL ? cm_priv_copy(ev, priv) : 0;
	rdma_ack_cm_event(ev);
	return rc;
}

/* The cm_id must sit on the device this process opened. */
static int
cm_check_dev(struct perf_app *a, struct rdma_cm_id *id, unsigned int i)
{
	const char *name = id->verbs != NULL ? ibv_get_device_name(id->verbs->device) : "(none)";
	char src[64], dst[64];

	cm_addr_str(rdma_get_local_addr(id), src, sizeof(src));
	cm_addr_str(rdma_get_peer_addr(id), dst, sizeof(dst));
	if (strcmp(name, a->attr->name) != 0) {
		fprintf(stderr, "rdx-perf: -R: QP %u: rdma_cm put %s -> %s on device %s, not on %s (--dev): %s\n",
			i, src, dst, name, a->attr->name,
			a->client ? "give --source_ip an address of that device's netdev" :
			"give --source_ip an address of the device's netdev");
		return -EINVAL;
	}
	if (i == 0)
		printf("rdx-perf: -R: rdma_cm connection %s -> %s on device %s port %u\n",
		       src, dst, name, (unsigned int)id->port_num);
	return 0;
}

static void
cm_priv_fill(const struct perf_ep *ep, unsigned int i, struct cm_priv *p)
{
	struct rdx_qp_info info;

	rdx_qp_info_get(ep->qp, &info);
	memset(p, 0, sizeof(*p));
	p->magic = CM_MAGIC;
	p->index = i;
	p->qp_num = info.qp_num;
	p->psn = info.psn;
	memcpy(p->gid, info.gid, sizeof(p->gid));
	p->lid = info.lid;
	p->mtu = info.mtu;
}

/*
 * The peer's private data for our QP i (peer input: every field checked):
 * 0, or -EPROTO with what is wrong in err.
 */
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

/* The peer's private data into a connection of ep's QP. */
static int
cm_qp_connect(struct perf_app *a, struct perf_ep *ep, unsigned int i, const struct cm_priv *p)
{
	struct rdx_qp_conn_attr ca;
	struct rdx_qp_info r;
	char err[160];
	int rc;

	if (cm_priv_check(p, i, err, sizeof(err)) < 0) {
		fprintf(stderr, "rdx-perf: -R: QP %u: the peer's private data is not rdx-perf's: %s\n",
			i, err);
		return -EPROTO;
	}
	/* our own info for what both ends share (driver, port, type) */
	rdx_qp_info_get(ep->qp, &r);
	r.qp_num = p->qp_num;
	r.psn = p->psn;
	memcpy(r.gid, p->gid, sizeof(r.gid));
	r.lid = p->lid;
	r.mtu = p->mtu;
	memset(&ca, 0, sizeof(ca));
	ca.mtu = a->ib_mtu;
	rc = rdx_qp_connect(ep->qp, &r, &ca);
	if (rc < 0 && rc != -EPROTO)
		fprintf(stderr, "rdx-perf: -R: cannot connect QP %u to remote QP 0x%x: %s\n",
			i, p->qp_num, strerror(-rc));
	ep->cm_rqpn = p->qp_num;
	return rc;
}

static void
cm_param(struct rdma_conn_param *cp, const struct cm_priv *p, uint32_t qp_num)
{
	memset(cp, 0, sizeof(*cp));
	cp->private_data = p;
	cp->private_data_len = sizeof(*p);
	cp->responder_resources = RDMA_MAX_RESP_RES;
	cp->initiator_depth = RDMA_MAX_INIT_DEPTH;
	cp->retry_count = 7;
	cp->rnr_retry_count = 7;
	cp->qp_num = qp_num;
}

int
perf_cm_listen(struct perf_app *a)
{
	struct sockaddr_storage ss;
	struct perf_cm *cm = cm_get(a);
	int rc;

	if (cm == NULL)
		return -EIO;
	memset(&ss, 0, sizeof(ss));
	if (a->o.source_ip != NULL) {
		rc = cm_resolve_host(a->o.source_ip, a->o.port, &ss, "--source_ip");
		if (rc < 0)
			return rc;
	} else {
		struct sockaddr_in *in = (struct sockaddr_in *)&ss;

		in->sin_family = AF_INET;
		in->sin_addr.s_addr = htonl(INADDR_ANY);
		in->sin_port = htons(a->o.port);
	}
	if (rdma_create_id(cm->ch, &cm->listen, NULL, RDMA_PS_TCP) != 0) {
		fprintf(stderr, "rdx-perf: -R: rdma_create_id failed: %s\n", strerror(errno));
		return -EIO;
	}
	if (rdma_bind_addr(cm->listen, (struct sockaddr *)&ss) != 0) {
		rc = errno;
		fprintf(stderr, "rdx-perf: -R: cannot bind rdma_cm to %s port %u: %s\n",
			a->o.source_ip != NULL ? a->o.source_ip : "any address", a->o.port,
			strerror(rc));
		return rc == EADDRINUSE ? -EADDRINUSE : -EINVAL;
	}
	if (rdma_listen(cm->listen, CM_BACKLOG) != 0) {
		fprintf(stderr, "rdx-perf: -R: rdma_listen on port %u failed: %s\n", a->o.port,
			strerror(errno));
		return -EADDRINUSE;
	}
	return 0;
}

static int
cm_client_one(struct perf_app *a, struct perf_ep *ep, unsigned int i,
	      const struct sockaddr_storage *src, const struct sockaddr_storage *dst)
{
	struct perf_cm *cm = a->cm;
	struct rdma_conn_param cp;
	struct cm_priv mine, theirs;
	struct rdma_cm_id *id;
	int rc;

	if (rdma_create_id(cm->ch, &cm->ids[i], NULL, RDMA_PS_TCP) != 0) {
		fprintf(stderr, "rdx-perf: -R: rdma_create_id failed: %s\n", strerror(errno));
		return -EIO;
	}
	cm->nb_ids = i + 1;
	id = cm->ids[i];
	if (rdma_resolve_addr(id, src != NULL ? (struct sockaddr *)src : NULL,
			      (struct sockaddr *)dst, CM_RESOLVE_MS) != 0) {
		fprintf(stderr, "rdx-perf: -R: rdma_resolve_addr failed: %s\n", strerror(errno));
		return -ECONNREFUSED;
	}
	rc = cm_wait(a, RDMA_CM_EVENT_ADDR_RESOLVED, id, NULL, NULL);
	if (rc == 0 && rdma_resolve_route(id, CM_RESOLVE_MS) != 0) {
		fprintf(stderr, "rdx-perf: -R: rdma_resolve_route failed: %s\n", strerror(errno));
		rc = -ECONNREFUSED;
	}
	if (rc == 0)
		rc = cm_wait(a, RDMA_CM_EVENT_ROUTE_RESOLVED, id, NULL, NULL);
	if (rc == 0)
		rc = cm_check_dev(a, id, i);
	if (rc < 0)
		return rc;
	cm_priv_fill(ep, i, &mine);
	cm_param(&cp, &mine, mine.qp_num);
	if (rdma_connect(id, &cp) != 0) {
		fprintf(stderr, "rdx-perf: -R: rdma_connect failed: %s\n", strerror(errno));
		return -ECONNREFUSED;
	}
	rc = cm_wait(a, RDMA_CM_EVENT_CONNECT_RESPONSE, id, NULL, &theirs);
	if (rc == 0)
		rc = cm_qp_connect(a, ep, i, &theirs);
	if (rc < 0) {
		rdma_reject(id, NULL, 0);
		return rc;
	}
	if (rdma_establish(id) != 0) {
		fprintf(stderr, "rdx-perf: -R: rdma_establish failed: %s\n", strerror(errno));
		return -EIO;
	}
	return 0;
}

/*
 * The server's side of QP i's connection request (its cm_id is id, the
 * peer's private data theirs): the QP to RTS with the peer's QP number,
 * then accept with our own.
 */
static int
cm_server_accept(struct perf_app *a, struct perf_ep *ep, unsigned int i, struct rdma_cm_id *id,
		 const struct cm_priv *theirs)
{
	struct rdma_conn_param cp;
	struct cm_priv mine;
	int rc;

	rc = cm_check_dev(a, id, i);
	if (rc == 0)
		rc = cm_qp_connect(a, ep, i, theirs);
	if (rc < 0) {
		rdma_reject(id, NULL, 0);
		return rc;
	}
	cm_priv_fill(ep, i, &mine);
	cm_param(&cp, &mine, mine.qp_num);
	if (rdma_accept(id, &cp) != 0) {
		fprintf(stderr, "rdx-perf: -R: rdma_accept failed: %s\n", strerror(errno));
		return -EIO;
	}
	return 0;
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
cm_server_all(struct perf_app *a, struct perf_ep *eps)
{
	struct perf_cm *cm = a->cm;
	const unsigned int n = a->total_qps;
	unsigned int requested = 0, established = 0, i;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	struct cm_priv theirs;
	char err[160];
	int rc;

	cm->nb_ids = n; /* ids[] is filled by index, in any order */
	while (established < n) {
		rc = cm_next(a, requested < n ? RDMA_CM_EVENT_CONNECT_REQUEST :
			     RDMA_CM_EVENT_ESTABLISHED, &ev);
		if (rc < 0)
			return rc;
		id = ev->id;
		if (ev->event == RDMA_CM_EVENT_ESTABLISHED) {
			uintptr_t tag = (uintptr_t)id->context;

			if (tag == 0 || tag > n) {
				rdma_ack_cm_event(ev);
				fprintf(stderr, "rdx-perf: -R: ESTABLISHED on a connection not accepted\n");
				return -EPROTO;
			}
			rdma_ack_cm_event(ev);
			established++;
			continue;
		}
		if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST || requested == n)
			return cm_unexpected(ev, requested < n ? "CONNECT_REQUEST or ESTABLISHED" :
					     "ESTABLISHED");
		rc = cm_priv_copy(ev, &theirs);
		rdma_ack_cm_event(ev);
		if (rc == 0 && (theirs.magic != CM_MAGIC || theirs.index >= n ||
				cm->ids[theirs.index] != NULL)) {
			if (cm_priv_check(&theirs, theirs.index, err, sizeof(err)) < 0)
				fprintf(stderr, "rdx-perf: -R: a connection request's private data is not rdx-perf's: %s\n",
					err);
			else
				fprintf(stderr, "rdx-perf: -R: a connection request for QP %u: %s\n",
					theirs.index, theirs.index >= n ? "there are not that many" :
					"that QP is connected already");
			rc = -EPROTO;
		}
		if (rc < 0) {
			rdma_reject(id, NULL, 0);
			return rc;
		}
		i = theirs.index;
		cm->ids[i] = id;
		id->context = (void *)(uintptr_t)(i + 1);
		requested++;
		rc = cm_server_accept(a, &eps[i], i, id, &theirs);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int
perf_cm_connect(struct perf_app *a, struct perf_ep *eps)
{
	struct sockaddr_storage src, dst;
	struct perf_cm *cm = cm_get(a);
	unsigned int i;
	int rc;

	if (cm == NULL)
		return -EIO;
	cm->ids = calloc(a->total_qps, sizeof(*cm->ids));
	if (cm->ids == NULL)
		return -ENOMEM;
	if (a->client) {
		char host[256];
		uint16_t port;

		if (rdx_conn_parse_hostport(a->o.connect, host, sizeof(host), &port) < 0)
			return -EINVAL;
		rc = cm_resolve_host(host, port, &dst, "the server host");
		if (rc == 0 && a->o.source_ip != NULL)
			rc = cm_resolve_host(a->o.source_ip, 0, &src, "--source_ip");
		if (rc < 0)
			return rc;
		if (a->o.source_ip != NULL && src.ss_family != dst.ss_family) {
			fprintf(stderr, "rdx-perf: -R: --source_ip %s and the server %s are not of one address family\n",
				a->o.source_ip, host);
			return -EINVAL;
		}
	}
	if (!a->client)
		return cm_server_all(a, eps);
	for (i = 0; i < a->total_qps; i++) {
		rc = cm_client_one(a, &eps[i], i, a->o.source_ip != NULL ? &src : NULL, &dst);
		if (rc < 0)
			return rc;
	}
	return 0;
}

void
perf_cm_close(struct perf_app *a)
{
	struct perf_cm *cm = a->cm;
	unsigned int i;

	if (cm == NULL)
		return;
	for (i = 0; i < cm->nb_ids; i++)
		if (cm->ids[i] != NULL) {
			rdma_disconnect(cm->ids[i]);
			rdma_destroy_id(cm->ids[i]);
		}
	free(cm->ids);
	if (cm->listen != NULL)
		rdma_destroy_id(cm->listen);
	rdma_destroy_event_channel(cm->ch);
	free(cm);
	a->cm = NULL;
}
