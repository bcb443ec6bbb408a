/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An endpoint and the peer an EP message (struct wire_ep) describes: what
 * this side tells the peer, and the connection of its QP to the peer's.
 * Below the bootstraps (boot.c, boot_mpi.c, rdmacm.c) and setup.c's
 * one-process pairs, which all connect endpoints this way.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>

#include "perf_app.h"
#include "perf_wire.h"

void
perf_ep_wire_fill(const struct perf_ep *ep, struct wire_ep *w)
{
	const struct rdx_mem *target = ep->tbuf != NULL ? ep->tbuf : ep->buf;

	memset(w, 0, sizeof(*w));
	rdx_qp_info_get(ep->qp, &w->qp);
	w->addr = target->iova;
	w->len = target->len;
	w->rkey = target->rkey;
	if (ep->rbuf != NULL) {
		w->raddr = ep->rbuf->iova;
		w->rrkey = ep->rbuf->rkey;
		w->rslots = ep->rslots;
		w->rstride = ep->rstride;
	}
}

void
perf_ep_remote_set(struct perf_app *a, struct perf_ep *ep, const struct wire_ep *w)
{
	ep->peer_id.qpn = w->qp.qp_num;
	ep->peer_id.psn = w->qp.psn;
	ep->peer_id.lid = w->qp.lid;
	memcpy(ep->peer_id.gid, w->qp.gid, sizeof(ep->peer_id.gid));
	ep->peer_id.has_gid = w->qp.gid_index >= 0 &&
		memcmp(w->qp.gid, (const uint8_t[16]){ 0 }, sizeof(w->qp.gid)) != 0;
	ep->raddr = w->addr;
	ep->rlen = w->len;
	ep->rkey = w->rkey;
	if (a->o.bad_rkey)
		ep->rkey ^= 0x5a5a00u;
	ep->rraddr = w->raddr;
	ep->rrkey = w->rrkey;
	ep->peer_rslots = w->rslots != 0 ? w->rslots : 1;
	ep->peer_rstride = w->rstride;
}

int
perf_ep_connect(struct perf_app *a, struct perf_ep *ep, const struct wire_ep *w)
{
	struct rdx_qp_conn_attr ca;
	int rc;

	memset(&ca, 0, sizeof(ca));
	ca.mtu = a->ib_mtu;
	perf_ep_remote_set(a, ep, w);
	if (a->o.transport == PERF_TRANSPORT_UD) {
		struct rdx_ah_attr aa;

		/* UD: the QP to RTS on its own, then a route to the peer's QP */
		rc = ep->ah != NULL ? 0 : rdx_qp_connect(ep->qp, NULL, &ca);
		if (rc == 0)
			rc = rdx_ah_attr_from_info(a->dev, &w->qp, &aa);
		if (rc == 0) {
			if (ep->ah != NULL)
				rdx_ah_destroy(ep->ah);
			ep->ah = rdx_ah_create(a->dev, &aa);
			if (ep->ah == NULL)
				rc = -rte_errno;
		}
		ep->rqpn = w->qp.qp_num;
		ep->rqkey = w->qp.qkey;
		if (rc < 0 && rc != -EPROTO)
			fprintf(stderr, "rdx-perf: cannot reach UD QP 0x%x from QP %u: %s\n",
				w->qp.qp_num, ep->index, strerror(-rc));
		return rc;
	}
	rc = rdx_qp_connect(ep->qp, &w->qp, &ca);
	/* -EPROTO: the driver has said which of the peer's fields it refused */
	if (rc < 0 && rc != -EPROTO)
		fprintf(stderr, "rdx-perf: cannot connect QP %u to remote QP 0x%x: %s\n",
			ep->index, w->qp.qp_num, strerror(-rc));
	return rc;
}
