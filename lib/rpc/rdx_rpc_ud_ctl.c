/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rpc's UD transports, control path: the endpoint's CQ, UD QP, packet
 * and receive buffers (one registered region), the pool of request/
 * response buffer pairs (mapped once, touched when used), the grant
 * scheduler's table; sessions are address handles. The datapath is
 * rdx_rpc_ud.c, which it calls (the ops table) and which calls nothing
 * here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include "rdx_rpc_priv.h"

/* ------------------------------------------------------------------ */
/* Control path                                                       */

static void
ud_ep_fini(struct rdx_rpc_endpoint *ep)
{
	if (ep->qp != NULL)
		rdx_qp_destroy(ep->qp);
	if (ep->cq != NULL)
		rdx_cq_destroy(ep->cq);
	if (ep->mem != NULL)
		rdx_dev_mem_free(ep->mem);
	if (ep->pool != NULL)
		munmap(ep->pool, ep->pool_len);
	free(ep->pool_free);
	free(ep->gents);
	/* the QP is gone: no WR names these any more */
	while (ep->ndead_ah > 0)
		rdx_ah_destroy(ep->dead_ah[--ep->ndead_ah].ah);
	free(ep->dead_ah);
	ep->dead_ah = NULL;
}

static int
ud_ep_init(struct rdx_rpc_endpoint *ep)
{
	struct rdx_cq_conf cc = { .depth = 2 * ep->qdepth };
	/* One signaled send in 16, not one per burst: a send completion only
	 * returns packet buffers (tx_out), and 16 <= queue_depth / 4 leaves the
	 * ring room while the unsignaled ones wait for the next signaled one.
	 * A send that fails completes in error, signaled or not (mlx5 PRM: an
	 * error CQE is always generated). While an address handle of a
	 * destroyed session waits for the sends before it, every burst's end
	 * is signaled (tx_flush) and each send completion reaps (rpc_ud_poll). */
	struct rdx_qp_conf qc = {
		.sq_depth = ep->qdepth, .rq_depth = ep->qdepth, .max_send_sge = 1,
		.max_recv_sge = 1, .sig_interval = (uint16_t)ep->sig_interval, .sig_burst_end = false,
		.type = RDX_QP_UD, .qkey = RPC_UD_QKEY,
		.post_lcore = ep->lcore_id >= 0 && ep->lcore_id < RTE_MAX_LCORE ?
			      RDX_QP_POST_LCORE(ep->lcore_id) : 0,
	};
	uint32_t gcap = ep->max_sessions * ep->slots * 2, i;
	int ret = -ENOMEM;

	ep->pkt_size = RTE_ALIGN_CEIL(RPC_HDR_LEN + ep->mtu, 64);
	ep->rx_size = RDX_UD_GRH_BYTES + RPC_HDR_LEN + ep->mtu;
	ep->cq = rdx_cq_create(ep->dev, &cc);
	if (ep->cq == NULL)
		goto err_errno;
	qc.send_cq = qc.recv_cq = ep->cq;
	ep->qp = rdx_qp_create(ep->dev, &qc);
	if (ep->qp == NULL)
		goto err_errno;
	ret = rdx_qp_connect(ep->qp, NULL, NULL);
	if (ret != 0)
		goto err;
	ep->mem = rdx_dev_mem_alloc(ep->dev, (size_t)ep->qdepth * (ep->pkt_size + ep->rx_size),
				    RDX_MEM_HOST, RDX_ACCESS_LOCAL_WRITE);
	if (ep->mem == NULL)
		goto err_errno;
	ep->txb = ep->mem->addr;
	ep->rxb = ep->txb + (size_t)ep->qdepth * ep->pkt_size;
	ep->tx_iova = ep->mem->iova;
	ep->rx_iova = ep->mem->iova + (uint64_t)(ep->rxb - ep->txb);
	/* the send burst's WRs: what every packet shares, filled once */
	for (i = 0; i < RPC_BURST; i++) {
		ep->sges[i].lkey = ep->mem->lkey;
		ep->wrs[i] = (struct rdx_wr){
			.wr_id = UINT64_MAX, /* receives are numbered 0..qdepth-1 */
			.sge = &ep->sges[i], .num_sge = 1, .opcode = RDX_OP_SEND,
		};
		ep->rsges[i].length = ep->rx_size;
		ep->rsges[i].lkey = ep->mem->lkey;
		ep->rwrs[i].sge = &ep->rsges[i];
		ep->rwrs[i].num_sge = 1;
	}
	/* request/response pairs: mapped now, touched only when used */
	ep->pool_len = (size_t)ep->msg_bufs * 2 * ep->max_msg;
	ep->pool = mmap(NULL, ep->pool_len, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (ep->pool == MAP_FAILED) {
		ep->pool = NULL;
		ret = -ENOMEM;
		goto err;
	}
	ep->pool_free = calloc(ep->msg_bufs, sizeof(*ep->pool_free));
	ep->gents = calloc(gcap, sizeof(*ep->gents));
	if (ep->pool_free == NULL || ep->gents == NULL) {
		ret = -ENOMEM;
		goto err;
	}
	for (i = 0; i < ep->msg_bufs; i++)
		ep->pool_free[i] = ep->msg_bufs - 1 - i;
	ep->pool_nfree = ep->msg_bufs;
	rpc_grant_init(&ep->gs, ep->gents, gcap, ep->rtt_bytes, ep->overcommit);
	/* a quarter of the receive queue for the scheduled bytes in flight,
	 * the rest for unscheduled packets, requests, control packets and
	 * retransmissions (a full queue drops what comes: more losses) */
	rpc_grant_budget(&ep->gs, (uint32_t)RTE_MIN((uint64_t)ep->qdepth / 4 * ep->mtu,
						    (uint64_t)UINT32_MAX));
	for (i = 0; i < ep->qdepth; i++) {
		struct rdx_sge sge = {
			.addr = ep->mem->iova + (uint64_t)(ep->rxb - ep->txb) + (uint64_t)i * ep->rx_size,
			.length = ep->rx_size, .lkey = ep->mem->lkey,
		};
		struct rdx_recv_wr rw = { .wr_id = i, .sge = &sge, .num_sge = 1 };

		if (rdx_qp_post_recv_burst(ep->qp, &rw, 1) != 1) {
			rpc_log("cannot post receive %u of %u", i, ep->qdepth);
			ret = -EIO;
			goto err;
		}
	}
	ep->next_scan = rte_rdtsc();
	return 0;
err_errno:
	ret = -rte_errno;
err:
	ud_ep_fini(ep);
	ep->qp = NULL;
	ep->cq = NULL;
	ep->mem = NULL;
	ep->pool = NULL;
	ep->pool_free = NULL;
	ep->gents = NULL;
	return ret != 0 ? ret : -EIO;
}

static int
ud_sess_init(struct rdx_rpc_session *s)
{
	uint32_t i;

	for (i = 0; i < s->ep->slots; i++) {
		s->cs[i].gent.role = RPC_ROLE_CLIENT;
		s->ss[i].gent.role = RPC_ROLE_SERVER;
	}
	return 0;
}

static void
ud_sess_fini(struct rdx_rpc_session *s)
{
	uint32_t i;

	struct rdx_rpc_endpoint *ep = s->ep;
	struct rpc_dead_ah *d;

	for (i = 0; i < ep->slots; i++)
		rpc_ud_ss_release(ep, &s->ss[i]);
	rpc_ud_dead_ah_reap(ep);
	if (s->ah == NULL)
		return;
	/* Sends naming the AH may still be in the send queue: keep it until
	 * every send queued so far retired (else destroy it at once when the
	 * send queue is empty). */
	if (ep->tx_out == 0 && ep->nwr == 0) {
		rdx_ah_destroy(s->ah);
	} else {
		d = realloc(ep->dead_ah, (ep->ndead_ah + 1) * sizeof(*d));
		if (d != NULL) {
			ep->dead_ah = d;
			ep->dead_ah[ep->ndead_ah].ah = s->ah;
			ep->dead_ah[ep->ndead_ah].retire_at = ep->stats.tx_pkts + ep->nwr;
			ep->ndead_ah++;
		} else {
			rpc_log("session %u: address handle kept (no memory to list it)", s->idx);
		}
	}
	s->ah = NULL;
}

static int
ud_sess_info(struct rdx_rpc_session *s, struct rdx_qp_info *qi)
{
	return rdx_qp_info_get(s->ep->qp, qi);
}

static int
ud_sess_connect(struct rdx_rpc_session *s, const struct rdx_rpc_session_info *p)
{
	struct rdx_ah_attr aa;
	int ret;

	if (s->ep->qp_err) {
		rpc_log("endpoint %s: its UD QP is in error: no new session", s->ep->name);
		return -EIO;
	}
	if (p->qp.qp_type != RDX_QP_UD) {
		rpc_log("peer session info: its QP is not UD");
		return -EPROTO;
	}
	ret = rdx_ah_attr_from_info(s->ep->dev, &p->qp, &aa);
	if (ret != 0)
		return ret;
	s->ah = rdx_ah_create(s->ep->dev, &aa);
	if (s->ah == NULL)
		return -rte_errno;
	s->peer_qpn = p->qp.qp_num;
	s->peer_qkey = p->qp.qkey;
	return 0;
}

const struct rpc_ops rpc_ud_ops = {
	.ep_init = ud_ep_init,
	.ep_fini = ud_ep_fini,
	.sess_init = ud_sess_init,
	.sess_fini = ud_sess_fini,
	.sess_info = ud_sess_info,
	.sess_connect = ud_sess_connect,
	.call = rpc_ud_call,
	.respond = rpc_ud_respond,
	.poll = rpc_ud_poll,
};
