/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The generic ibverbs driver: the rdx device API over plain verbs, for any
 * provider that is not mlx5 (rxe, siw, other vendors).
 *
 * This file is the control path: device open (RoCE addressing: GID, MTU,
 * GRH), CQ create/destroy and completion channels for rdx_cq_wait, QP
 * create/connect/destroy (the WR and SGE arrays are allocated per QP here).
 * The fast path (post, poll) is verbs_dp.c; memory is verbs_mem.c; the
 * objects they share are in verbs_dev.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include <infiniband/verbs.h>

#include "verbs_dev.h"

RTE_LOG_REGISTER(rdx_verbs_logtype, rdx.drv.verbs, NOTICE)

/* ------------------------------------------------------------------ */
/* CQ                                                                 */

static struct rdx_cq *
verbs_cq_create(struct rdx_dev *dev, const struct rdx_cq_conf *conf)
{
	struct verbs_dev *vd = to_vdev(dev);
	struct verbs_cq *cq;

	cq = calloc(1, sizeof(*cq));
	if (cq == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	cq->tab_mask = 15;
	cq->tab = calloc(cq->tab_mask + 1, sizeof(*cq->tab));
	if (cq->tab == NULL) {
		rte_errno = ENOMEM;
		goto err;
	}
	if (conf->events) {
		cq->ch = ibv_create_comp_channel(vd->ctx);
		if (cq->ch == NULL) {
			VERBS_ERR("ibv_create_comp_channel on %s failed: %s\n", dev->attr.name,
				  strerror(errno));
			rte_errno = errno != 0 ? errno : ENOMEM;
			goto err;
		}
	}
	cq->cq = ibv_create_cq(vd->ctx, (int)conf->depth, NULL, cq->ch, 0);
	if (cq->cq == NULL) {
		VERBS_ERR("ibv_create_cq of %u entries on %s failed: %s\n", conf->depth,
			  dev->attr.name, strerror(errno));
		rte_errno = errno != 0 ? errno : ENOMEM;
		goto err;
	}
	cq->base.poll_burst = rdx_verbs_poll_burst;
	cq->base.dev = dev;
	cq->base.conf = *conf;
	cq->base.conf.depth = (uint32_t)cq->cq->cqe;
	return &cq->base;
err:
	if (cq->ch != NULL)
		ibv_destroy_comp_channel(cq->ch);
	free(cq->tab);
	free(cq);
	return NULL;
}

static int
verbs_cq_destroy(struct rdx_cq *cq_)
{
	struct verbs_cq *cq = (struct verbs_cq *)cq_;
	int rc;

	if (cq->nb_qps != 0) {
		VERBS_ERR("CQ still has %u QPs: destroy them first\n", cq->nb_qps);
		return -EBUSY;
	}
	rc = ibv_destroy_cq(cq->cq);
	if (rc != 0) {
		VERBS_ERR("ibv_destroy_cq failed: %s\n", strerror(rc));
		return -rc;
	}
	if (cq->ch != NULL)
		ibv_destroy_comp_channel(cq->ch);
	free(cq->tab);
	free(cq);
	return 0;
}

/*
 * Arm, then look once more: completions that arrived before the arm raise no
 * event, so they are taken here (stashed for the next poll) and the wait
 * returns at once.
 */
static int
verbs_cq_wait(struct rdx_cq *cq_, int timeout_ms)
{
	struct verbs_cq *cq = (struct verbs_cq *)cq_;
	struct ibv_cq *ev_cq;
	struct pollfd pfd;
	void *ev_ctx;
	int rc, got;

	if (cq->stash_pos < cq->stash_n)
		return 0;
	rc = ibv_req_notify_cq(cq->cq, 0);
	if (rc != 0) {
		VERBS_ERR("ibv_req_notify_cq failed: %s\n", strerror(rc));
		return -rc;
	}
	got = ibv_poll_cq(cq->cq, RDX_MAX_BURST, cq->stash);
	if (got < 0)
		return -EIO;
	if (got > 0) {
		cq->stash_n = (uint16_t)got;
		cq->stash_pos = 0;
		return 0;
	}
	pfd.fd = cq->ch->fd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	do {
		rc = poll(&pfd, 1, timeout_ms);
	} while (rc < 0 && errno == EINTR);
	if (rc < 0)
		return -errno;
	if (rc == 0)
		return -ETIMEDOUT;
	if (ibv_get_cq_event(cq->ch, &ev_cq, &ev_ctx) != 0)
		return -EIO;
	ibv_ack_cq_events(ev_cq, 1);
	return 0;
}

/* ------------------------------------------------------------------ */
/* QP                                                                 */

static void
qp_free_arrays(struct verbs_qp *qp)
{
	free(qp->swr);
	free(qp->ssge);
	free(qp->rwr);
	free(qp->rsge);
	free(qp->sq_wr_id);
	free(qp->sq_op);
	free(qp->rq_wr_id);
}

static struct rdx_qp *
verbs_qp_create(struct rdx_dev *dev, const struct rdx_qp_conf *conf)
{
	struct verbs_dev *vd = to_vdev(dev);
	struct ibv_qp_init_attr ia = {0};
	struct verbs_qp *qp;
	uint32_t sq_slots, rq_slots, ssge, rsge;
	int rc;

	/* conf is within attr (sq_depth <= VERBS_MAX_SQ_DEPTH, SGEs <=
	 * RDX_MAX_SGE: see verbs_open), its CQs are dev's (lib/dev) */
	qp = calloc(1, sizeof(*qp));
	if (qp == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	ia.send_cq = ((struct verbs_cq *)conf->send_cq)->cq;
	ia.recv_cq = ((struct verbs_cq *)conf->recv_cq)->cq;
	ia.qp_type = conf->type == RDX_QP_UD ? IBV_QPT_UD : IBV_QPT_RC;
	ia.sq_sig_all = 0; /* selective signaling: IBV_SEND_SIGNALED per WR */
	ia.cap.max_send_wr = conf->sq_depth;
	ia.cap.max_recv_wr = conf->rq_depth > 0 ? conf->rq_depth : 1;
	ia.cap.max_send_sge = conf->max_send_sge > 0 ? conf->max_send_sge : 1;
	ia.cap.max_recv_sge = conf->max_recv_sge > 0 ? conf->max_recv_sge : 1;
	ia.cap.max_inline_data = conf->max_inline;
	qp->qp = ibv_create_qp(vd->pd, &ia);
	if (qp->qp == NULL) {
		VERBS_ERR("ibv_create_qp (%s) on %s failed: %s (sq %u, rq %u, send sge %u, recv sge %u, inline %u)\n",
			  conf->type == RDX_QP_UD ? "UD" : "RC", dev->attr.name, strerror(errno),
			  ia.cap.max_send_wr, ia.cap.max_recv_wr,
			  ia.cap.max_send_sge, ia.cap.max_recv_sge, ia.cap.max_inline_data);
		rte_errno = errno != 0 ? errno : EINVAL;
		free(qp);
		return NULL;
	}
	/* The provider may grant more than asked: use what it grants, but
	 * keep the SQ depth within the retired-count range. */
	if (ia.cap.max_send_wr > VERBS_MAX_SQ_DEPTH)
		ia.cap.max_send_wr = VERBS_MAX_SQ_DEPTH;
	ssge = RTE_MIN(ia.cap.max_send_sge, (uint32_t)RDX_MAX_SGE);
	rsge = RTE_MIN(ia.cap.max_recv_sge, (uint32_t)RDX_MAX_SGE);
	sq_slots = rdx_verbs_pow2(ia.cap.max_send_wr);
	rq_slots = rdx_verbs_pow2(ia.cap.max_recv_wr);
	qp->swr = calloc(RDX_MAX_BURST, sizeof(*qp->swr));
	qp->ssge = calloc((size_t)RDX_MAX_BURST * ssge, sizeof(*qp->ssge));
	qp->rwr = calloc(RDX_MAX_BURST, sizeof(*qp->rwr));
	qp->rsge = calloc((size_t)RDX_MAX_BURST * rsge, sizeof(*qp->rsge));
	qp->sq_wr_id = calloc(sq_slots, sizeof(*qp->sq_wr_id));
	qp->sq_op = calloc(sq_slots, sizeof(*qp->sq_op));
	qp->rq_wr_id = calloc(rq_slots, sizeof(*qp->rq_wr_id));
	if (qp->swr == NULL || qp->ssge == NULL || qp->rwr == NULL || qp->rsge == NULL ||
	    qp->sq_wr_id == NULL || qp->sq_op == NULL || qp->rq_wr_id == NULL) {
		rte_errno = ENOMEM;
		goto err;
	}
	rdx_verbs_sq_init(&qp->sq, qp->sq_wr_id, qp->sq_op, sq_slots, ia.cap.max_send_wr,
			  ssge, ia.cap.max_inline_data, conf->sig_interval, conf->sig_burst_end);
	qp->sq.ud = conf->type == RDX_QP_UD;
	qp->sq.max_msg = qp->sq.ud ? dev->attr.max_ud_msg : 0;
	rdx_verbs_rq_init(&qp->rq, qp->rq_wr_id, rq_slots, ia.cap.max_recv_wr, rsge);
	qp->scq = (struct verbs_cq *)conf->send_cq;
	qp->rcq = (struct verbs_cq *)conf->recv_cq;
	/* A start PSN that differs per QP and per run, without touching the
	 * app's random state. */
	qp->psn = (qp->qp->qp_num * 2654435761u ^ (uint32_t)rte_rdtsc()) & 0xffffff;
	qp->base.post_burst = rdx_verbs_post_burst;
	qp->base.post_recv_burst = rdx_verbs_post_recv_burst;
	qp->base.dev = dev;
	qp->base.user_ctx = conf->user_ctx;
	qp->base.qp_num = qp->qp->qp_num;
	qp->base.conf = *conf;
	qp->base.conf.sq_depth = ia.cap.max_send_wr;
	qp->base.conf.rq_depth = conf->rq_depth > 0 ? ia.cap.max_recv_wr : 0;
	qp->base.conf.max_send_sge = ssge;
	qp->base.conf.max_recv_sge = rsge;
	qp->base.conf.max_inline = ia.cap.max_inline_data;
	rc = cq_attach(qp->scq, qp);
	if (rc != 0) {
		rte_errno = -rc;
		goto err;
	}
	if (qp->rcq != qp->scq) {
		rc = cq_attach(qp->rcq, qp);
		if (rc != 0) {
			cq_detach(qp->scq, qp);
			rte_errno = -rc;
			goto err;
		}
	}
	return &qp->base;
err:
	ibv_destroy_qp(qp->qp);
	qp_free_arrays(qp);
	free(qp);
	return NULL;
}

static int
verbs_qp_destroy(struct rdx_qp *qp_)
{
	struct verbs_qp *qp = (struct verbs_qp *)qp_;
	int rc;

	rc = ibv_destroy_qp(qp->qp);
	if (rc != 0) {
		VERBS_ERR("ibv_destroy_qp 0x%x failed: %s\n", qp->base.qp_num, strerror(rc));
		return -rc;
	}
	cq_detach(qp->scq, qp);
	if (qp->rcq != qp->scq)
		cq_detach(qp->rcq, qp);
	qp_free_arrays(qp);
	free(qp);
	return 0;
}

static int
verbs_qp_info(struct rdx_qp *qp_, struct rdx_qp_info *info)
{
	struct verbs_qp *qp = (struct verbs_qp *)qp_;
	struct verbs_dev *vd = to_vdev(qp->base.dev);

	info->qp_num = qp->base.qp_num;
	info->psn = qp->psn;
	info->lid = vd->port_attr.lid;
	info->port = vd->port;
	info->mtu = (uint8_t)vd->port_attr.active_mtu;
	memcpy(info->gid, vd->gid.raw, sizeof(info->gid));
	info->gid_index = vd->gid_index;
	info->qp_type = qp->base.conf.type;
	info->qkey = qp->base.conf.type == RDX_QP_UD ? qp->base.conf.qkey : 0;
	snprintf(info->driver, sizeof(info->driver), "%s", vd->base.attr.driver);
	return 0;
}

static int
qp_modify(struct verbs_qp *qp, struct ibv_qp_attr *a, int mask, const char *state,
	  const struct rdx_qp_info *remote)
{
	int rc = ibv_modify_qp(qp->qp, a, mask);

	if (rc != 0) {
		if (remote == NULL)
			VERBS_ERR("modify UD QP 0x%x to %s failed: %s (port %u, qkey 0x%x)\n",
				  qp->base.qp_num, state, strerror(rc), (unsigned int)a->port_num,
				  a->qkey);
		else
			VERBS_ERR("modify QP 0x%x to %s failed: %s (remote qpn 0x%x, gid index %d, mtu %d)\n",
				  qp->base.qp_num, state, strerror(rc), remote->qp_num,
				  to_vdev(qp->base.dev)->gid_index, (int)a->path_mtu);
		return -rc;
	}
	return 0;
}

static int
verbs_qp_connect(struct rdx_qp *qp_, const struct rdx_qp_info *remote,
		 const struct rdx_qp_conn_attr *attr)
{
	struct verbs_qp *qp = (struct verbs_qp *)qp_;
	struct verbs_dev *vd = to_vdev(qp->base.dev);
	struct ibv_qp_attr a;
	uint8_t mtu;
	int rc;

	if (qp->base.conf.type == RDX_QP_UD) {
		/* no peer (lib/dev passes remote NULL): INIT, RTR, RTS */
		static const char *const st[] = { "INIT", "RTR", "RTS" };
		int step, mask;

		for (step = 0; step < 3; step++) {
			mask = rdx_verbs_ud_step(step, vd->port, qp->base.conf.qkey, qp->psn, &a);
			rc = qp_modify(qp, &a, mask, st[step], NULL);
			if (rc != 0)
				return rc;
		}
		return 0;
	}
	if (attr->mtu != 0 && (attr->mtu < IBV_MTU_256 || attr->mtu > IBV_MTU_4096)) {
		VERBS_ERR("bad MTU code %u (1..5 = 256..4096)\n", attr->mtu);
		return -EINVAL;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = vd->port;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	rc = qp_modify(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		       IBV_QP_ACCESS_FLAGS, "INIT", remote);
	if (rc != 0)
		return rc;

	/* MTU: as asked, else the smaller of the two ports' active MTUs. */
	mtu = attr->mtu != 0 ? attr->mtu : (uint8_t)vd->port_attr.active_mtu;
	if (attr->mtu == 0 && remote->mtu != 0 && remote->mtu < mtu)
		mtu = remote->mtu;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = (enum ibv_mtu)mtu;
	a.dest_qp_num = remote->qp_num;
	a.rq_psn = remote->psn;
	a.max_dest_rd_atomic = (uint8_t)RTE_MIN((int)attr->max_rd_atomic,
						RTE_MAX(vd->dev_attr.max_qp_rd_atom, 1));
	a.min_rnr_timer = attr->min_rnr_timer;
	a.ah_attr.dlid = remote->lid;
	a.ah_attr.sl = attr->sl;
	a.ah_attr.port_num = vd->port;
	/* RoCE has no LIDs: every packet carries a GRH (IBTA A16/A17). */
	if (vd->gid_index >= 0) {
		a.ah_attr.is_global = 1;
		memcpy(a.ah_attr.grh.dgid.raw, remote->gid, sizeof(remote->gid));
		a.ah_attr.grh.sgid_index = (uint8_t)vd->gid_index;
		a.ah_attr.grh.hop_limit = 64;
	}
	rc = qp_modify(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
		       IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
		       "RTR", remote);
	if (rc != 0)
		return rc;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = attr->timeout;
	a.retry_cnt = attr->retry_cnt;
	a.rnr_retry = attr->rnr_retry;
	a.sq_psn = qp->psn;
	a.max_rd_atomic = (uint8_t)RTE_MIN((int)attr->max_rd_atomic,
					   RTE_MAX(vd->dev_attr.max_qp_init_rd_atom, 1));
	return qp_modify(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			 IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC,
			 "RTS", remote);
}

/* ------------------------------------------------------------------ */
/* Address handles (UD)                                               */

static struct rdx_ah *
verbs_ah_create(struct rdx_dev *dev, const struct rdx_ah_attr *attr)
{
	struct verbs_dev *vd = to_vdev(dev);
	struct rdx_verbs_ah *ah;
	struct ibv_ah_attr ia;
	const char *why;

	why = rdx_verbs_ah_attr(attr, vd->port, vd->gid_index, vd->port_attr.gid_tbl_len, &ia);
	if (why != NULL) {
		VERBS_ERR("address handle on %s not created: %s (port %u, sgid_index %d)\n",
			  dev->attr.name, why, attr->port, attr->sgid_index);
		rte_errno = EINVAL;
		return NULL;
	}
	ah = calloc(1, sizeof(*ah));
	if (ah == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	/* RoCE: the provider (kernel) resolves the destination MAC here */
	ah->ah = ibv_create_ah(vd->pd, &ia);
	if (ah->ah == NULL) {
		VERBS_ERR("ibv_create_ah (lid 0x%x, %s) on %s failed: %s\n", attr->lid,
			  attr->is_global ? "GRH" : "no GRH", dev->attr.name, strerror(errno));
		rte_errno = errno != 0 ? errno : EINVAL;
		free(ah);
		return NULL;
	}
	ah->base.dev = dev;
	ah->base.attr = *attr;
	return &ah->base;
}

static int
verbs_ah_destroy(struct rdx_ah *ah_)
{
	struct rdx_verbs_ah *ah = (struct rdx_verbs_ah *)ah_;
	int rc = ibv_destroy_ah(ah->ah);

	if (rc != 0) {
		VERBS_ERR("ibv_destroy_ah failed: %s\n", strerror(rc));
		return -rc;
	}
	free(ah);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Device                                                             */

static int
verbs_close(struct rdx_dev *dev)
{
	struct verbs_dev *vd = to_vdev(dev);
	int rc;

	rc = ibv_dealloc_pd(vd->pd);
	if (rc != 0) {
		VERBS_ERR("ibv_dealloc_pd on %s failed: %s (memory, QPs still open?)\n",
			  dev->attr.name, strerror(rc));
		return -rc;
	}
	ibv_close_device(vd->ctx);
	free(vd);
	return 0;
}

static const struct rdx_dev_ops verbs_ops = {
	.close = verbs_close,
	.mem_alloc = rdx_verbs_mem_alloc,
	.mem_reg = rdx_verbs_mem_reg,
	.mem_free = rdx_verbs_mem_free,
	.mem_copy_to = rdx_verbs_mem_copy_to,
	.mem_copy_from = rdx_verbs_mem_copy_from,
	.cq_create = verbs_cq_create,
	.cq_destroy = verbs_cq_destroy,
	.cq_wait = verbs_cq_wait,
	.qp_create = verbs_qp_create,
	.qp_destroy = verbs_qp_destroy,
	.qp_info = verbs_qp_info,
	.qp_connect = verbs_qp_connect,
	.qp_retired_wr_id = rdx_verbs_qp_retired_wr_id,
	.ah_create = verbs_ah_create,
	.ah_destroy = verbs_ah_destroy,
	.qp_xstats_get = rdx_verbs_qp_xstats_get,
};

/* ::ffff:a.b.c.d (RFC 4291 2.5.5.2) */
static bool
gid_is_ipv4_mapped(const union ibv_gid *g)
{
	static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

	return memcmp(g->raw, prefix, sizeof(prefix)) == 0;
}

/* The first IPv4-mapped RoCEv2 GID, else the first non-zero one. */
static int
find_gid(struct verbs_dev *vd)
{
	struct ibv_gid_entry e;
	union ibv_gid g;
	int i, first = -1;

	for (i = 0; i < vd->port_attr.gid_tbl_len; i++) {
		if (ibv_query_gid_ex(vd->ctx, vd->port, (uint32_t)i, &e, 0) != 0)
			continue;
		memcpy(g.raw, e.gid.raw, sizeof(g.raw));
		if (e.gid_type == IBV_GID_TYPE_ROCE_V2 && gid_is_ipv4_mapped(&g))
			return i;
		if (first < 0 && (g.global.subnet_prefix != 0 || g.global.interface_id != 0))
			first = i;
	}
	return first;
}

static int
probe_max_inline(struct verbs_dev *vd)
{
	static const uint32_t tries[] = {1024, 512, 256, 128, 64, 0};
	struct ibv_qp_init_attr ia;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	size_t i;
	int got = 0;

	cq = ibv_create_cq(vd->ctx, 1, NULL, NULL, 0);
	if (cq == NULL)
		return 0;
	for (i = 0; i < RTE_DIM(tries); i++) {
		memset(&ia, 0, sizeof(ia));
		ia.send_cq = cq;
		ia.recv_cq = cq;
		ia.qp_type = IBV_QPT_RC;
		ia.cap.max_send_wr = 1;
		ia.cap.max_recv_wr = 1;
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = 1;
		ia.cap.max_inline_data = tries[i];
		qp = ibv_create_qp(vd->pd, &ia);
		if (qp == NULL)
			continue;
		got = (int)ia.cap.max_inline_data;
		ibv_destroy_qp(qp);
		break;
	}
	ibv_destroy_cq(cq);
	return got;
}

static struct rdx_dev *
verbs_open(struct ibv_device *ibdev, const char *devargs, const struct rdx_dev_conf *conf)
{
	struct ibv_device_attr_ex ax;
	struct rdx_dev_attr *at;
	struct verbs_dev *vd;
	const char *name = ibv_get_device_name(ibdev);
	int rc;

	vd = calloc(1, sizeof(*vd));
	if (vd == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	vd->base.ops = &verbs_ops;
	vd->base.conf = *conf;
	vd->port = conf->port != 0 ? conf->port : 1;
	vd->ctx = ibv_open_device(ibdev);
	if (vd->ctx == NULL) {
		VERBS_ERR("cannot open %s: %s\n", name, strerror(errno));
		rte_errno = errno != 0 ? errno : ENODEV;
		free(vd);
		return NULL;
	}
	memset(&ax, 0, sizeof(ax));
	rc = ibv_query_device_ex(vd->ctx, NULL, &ax);
	if (rc != 0) {
		VERBS_ERR("ibv_query_device_ex on %s failed: %s\n", name, strerror(rc));
		rte_errno = rc;
		goto err_ctx;
	}
	vd->dev_attr = ax.orig_attr;
	rc = ibv_query_port(vd->ctx, vd->port, &vd->port_attr);
	if (rc != 0) {
		VERBS_ERR("%s has no port %u: %s\n", name, vd->port, strerror(rc));
		rte_errno = rc;
		goto err_ctx;
	}
	if (vd->port_attr.state != IBV_PORT_ACTIVE)
		VERBS_ERR("warning: %s port %u is %s\n", name, vd->port,
			  ibv_port_state_str(vd->port_attr.state));
	vd->pd = ibv_alloc_pd(vd->ctx);
	if (vd->pd == NULL) {
		VERBS_ERR("ibv_alloc_pd on %s failed: %s\n", name, strerror(errno));
		rte_errno = errno != 0 ? errno : ENOMEM;
		goto err_ctx;
	}
	if (conf->gid_index_set && conf->gid_index >= 0) {
		vd->gid_index = conf->gid_index;
		if (vd->gid_index >= vd->port_attr.gid_tbl_len) {
			VERBS_ERR("GID index %d out of range on %s port %u (table has %d)\n",
				  vd->gid_index, name, vd->port, vd->port_attr.gid_tbl_len);
			rte_errno = EINVAL;
			goto err_pd;
		}
	} else if (vd->port_attr.link_layer == IBV_LINK_LAYER_INFINIBAND) {
		vd->gid_index = -1; /* LID routing: no GRH needed */
	} else {
		vd->gid_index = find_gid(vd);
		if (vd->gid_index < 0) {
			VERBS_ERR("%s port %u has no usable GID (is an IP address configured on its netdev?)\n",
				  name, vd->port);
			rte_errno = EADDRNOTAVAIL;
			goto err_pd;
		}
	}
	if (vd->gid_index >= 0) {
		rc = ibv_query_gid(vd->ctx, vd->port, vd->gid_index, &vd->gid);
		if (rc != 0) {
			VERBS_ERR("cannot read GID %d of %s: %s\n", vd->gid_index, name,
				  strerror(errno));
			rte_errno = EINVAL;
			goto err_pd;
		}
	}
	at = &vd->base.attr;
	snprintf(at->name, sizeof(at->name), "%s", name);
	snprintf(at->driver, sizeof(at->driver), "verbs");
	at->software = false;
	at->max_msg_size = vd->port_attr.max_msg_sz;
	at->max_qp_wr = (uint32_t)RTE_MIN(vd->dev_attr.max_qp_wr, (int)VERBS_MAX_SQ_DEPTH);
	at->max_sge = (uint32_t)RTE_MIN(vd->dev_attr.max_sge, RDX_MAX_SGE);
	at->max_inline = (uint32_t)probe_max_inline(vd);
	at->max_cqe = (uint32_t)vd->dev_attr.max_cqe;
	at->max_qp = (uint32_t)vd->dev_attr.max_qp;
	at->atomics = vd->dev_attr.atomic_cap != IBV_ATOMIC_NONE;
	at->max_dm_size = ax.max_dm_size;
	at->active_mtu = (uint8_t)vd->port_attr.active_mtu;
	at->link_layer = vd->port_attr.link_layer;
	/* a UD message is one packet of the active MTU (IBTA 9.8.1) */
	at->max_ud_msg = rdx_verbs_ud_max_msg(at->active_mtu);
	return &vd->base;
err_pd:
	ibv_dealloc_pd(vd->pd);
err_ctx:
	ibv_close_device(vd->ctx);
	free(vd);
	return NULL;
}

/* Any provider, below a vendor's own driver (mlx5). */
static int
verbs_probe(struct ibv_device *ibdev)
{
	return ibdev != NULL ? 10 : 0;
}

static struct rdx_driver verbs_driver = {
	.name = "verbs",
	.desc = "generic ibverbs",
	.probe = verbs_probe,
	.open = verbs_open,
};

RDX_DRIVER_REGISTER(verbs_driver)
