/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The mlx5 hardware control path, queues: create CQs and RC or UD QPs
 * with mlx5dv (UD: RESET->INIT with port, P_Key index 0 and Q_Key, ->RTR,
 * ->RTS with the SQ PSN; address handles by ibv_create_ah and
 * mlx5dv_init_obj(MLX5DV_OBJ_AH), whose AV the datapath copies into each
 * UD WQE), take their rings with mlx5dv_init_obj() and hand them to the
 * direct datapath (rdx_mlx5_qp_bind/rdx_mlx5_cq_bind,
 * mlx5_obj.c). Everything here is control path: it may allocate, log and
 * enter the kernel.
 *
 * Doorbell registers: a thread domain (ibv_alloc_td + parent domain) makes
 * libmlx5 give its QPs a dedicated, lock-free BlueFlame register (bfreg);
 * the QPs of one domain share it and its half toggle (struct
 * rdx_mlx5_bfreg), so only one thread may ring it. The domain therefore
 * belongs to the thread that POSTS, not the one that creates the QP:
 * conf.post_lcore names it (QPs naming one lcore share that lcore's
 * domain); without it (0) the QP gets a domain of its own, which any one
 * thread at a time may use. When no domain can be had, the QP goes on the
 * plain PD; libmlx5 may then share a medium-latency bfreg between QPs (it
 * takes a lock, we cannot), so the datapath rings with plain 8-byte
 * doorbells (bf.size forced to 0, atomic 64-bit writes) rather than
 * BlueFlame copies that could interleave.
 *
 * CQ events: a CQ whose ring was taken by mlx5dv_init_obj() is consumed by
 * the datapath, so libmlx5's consumer index is stale and ibv_req_notify_cq()
 * would arm with the wrong CI. We arm it ourselves the way libmlx5's
 * mlx5_arm_cq does (mlx5-datapath.md §4): dbrec[1] = sn<<28 | cmd | ci,
 * then a 64-bit doorbell (that word << 32 | cqn) to cq_uar + 0x20; arm_sn is
 * bumped per event received, as libmlx5 does in mlx5_cq_event().
 */
#include "mlx5_hw.h"

/* ---------------------------------------------------------------------- */
/* CQ                                                                      */

int
rdx_mlx5_hw_cq_destroy(struct rdx_cq *cq)
{
	struct mlx5_hw_cq *hc = (struct mlx5_hw_cq *)cq;
	struct mlx5_hw_dev *hd = hw_dev(cq->dev);
	int ret;

	if (hc->mcq.nb_qps != 0) {
		MLX5_LOG(ERR, "CQ 0x%x still has %u QPs attached\n", hc->mcq.cqn,
			 hc->mcq.nb_qps);
		return -EBUSY;
	}
	ret = ibv_destroy_cq(hc->ibcq);
	if (ret != 0) {
		MLX5_LOG(ERR, "ibv_destroy_cq(0x%x) failed: %s\n", hc->mcq.cqn, strerror(ret));
		return -ret;
	}
	if (hc->channel != NULL)
		ibv_destroy_comp_channel(hc->channel);
	rdx_mlx5_cq_unbind(&hd->objs, &hc->mcq);
	free(hc);
	return 0;
}

struct rdx_cq *
rdx_mlx5_hw_cq_create(struct rdx_dev *dev, const struct rdx_cq_conf *conf)
{
	struct mlx5_hw_dev *hd = hw_dev(dev);
	struct mlx5dv_obj obj;
	struct mlx5dv_cq dv;
	struct mlx5_hw_cq *hc;
	int ret;

	/* conf->depth is within attr.max_cqe (lib/dev) */
	hc = calloc(1, sizeof(*hc));
	if (hc == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	if (conf->events) {
		hc->channel = ibv_create_comp_channel(hd->ctx);
		if (hc->channel == NULL) {
			ret = errno != 0 ? errno : ENOMEM;
			MLX5_LOG(ERR, "ibv_create_comp_channel failed: %s\n", strerror(ret));
			goto fail;
		}
	}
	hc->ibcq = ibv_create_cq(hd->ctx, (int)conf->depth, hc, hc->channel, 0);
	if (hc->ibcq == NULL) {
		ret = errno != 0 ? errno : ENOMEM;
		MLX5_LOG(ERR, "ibv_create_cq(depth %u) failed: %s\n", conf->depth,
			 strerror(ret));
		goto fail;
	}
	memset(&dv, 0, sizeof(dv));
	obj.cq.in = hc->ibcq;
	obj.cq.out = &dv;
	ret = mlx5dv_init_obj(&obj, MLX5DV_OBJ_CQ);
	if (ret != 0) {
		ret = ret > 0 ? ret : EINVAL;
		MLX5_LOG(ERR, "mlx5dv_init_obj(CQ) failed: %s\n", strerror(ret));
		goto fail;
	}
	/* QP lookup table sized for every QP an lcore may drive, twice. */
	hc->cq_uar = dv.cq_uar;
	ret = -rdx_mlx5_cq_bind(&hd->objs, &hc->mcq, dev, conf, &dv, 2 * RDX_MAX_QPS_PER_LCORE);
	if (ret != 0) {
		MLX5_LOG(ERR, "CQ 0x%x ring not usable (cqe_cnt %u, cqe_size %u): %s\n",
			 dv.cqn, dv.cqe_cnt, dv.cqe_size, strerror(ret));
		goto fail;
	}
	/* the lean requester poll for its CQE size (poll_burst: cq_dp_init's) */
	hc->mcq.base.poll_req_burst = rdx_mlx5_cq_poll_req_op(&hc->mcq);
	return &hc->mcq.base;
fail:
	if (hc->ibcq != NULL)
		ibv_destroy_cq(hc->ibcq);
	if (hc->channel != NULL)
		ibv_destroy_comp_channel(hc->channel);
	free(hc);
	rte_errno = ret;
	return NULL;
}

/* Request an event for the next completion (libmlx5 mlx5_arm_cq rules). */
static void
hw_cq_arm(struct mlx5_hw_cq *hc)
{
	uint32_t sn = hc->arm_sn & 3;
	uint32_t ci = hc->mcq.cons_index & 0xffffff;
	uint32_t doorbell = sn << 28 | MLX5_CQ_DB_REQ_NOT | ci;
	uint64_t db64 = (uint64_t)doorbell << 32 | hc->mcq.cqn;

	hc->mcq.dbrec[MLX5_CQ_ARM_DB_IDX] = htobe32(doorbell);
	/* The arm record must be visible before the doorbell (mmio_wc_start). */
	rte_wmb();
	rte_write64_relaxed(htobe64(db64), (volatile uint8_t *)hc->cq_uar + MLX5_CQ_DOORBELL);
	rte_wmb();
}

int
rdx_mlx5_hw_cq_wait(struct rdx_cq *cq, int timeout_ms)
{
	struct mlx5_hw_cq *hc = (struct mlx5_hw_cq *)cq;
	struct ibv_cq *ev_cq;
	struct pollfd pfd;
	void *ev_ctx;
	int ret;

	if (hc->channel == NULL)
		return -EINVAL;
	hw_cq_arm(hc);
	pfd.fd = hc->channel->fd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	do {
		ret = poll(&pfd, 1, timeout_ms);
	} while (ret < 0 && errno == EINTR);
	if (ret < 0)
		return -errno;
	if (ret == 0)
		return -ETIMEDOUT;
	if (ibv_get_cq_event(hc->channel, &ev_cq, &ev_ctx) != 0)
		return -(errno != 0 ? errno : EIO);
	ibv_ack_cq_events(ev_cq, 1);
	/* One event consumed: the next arm uses the next sequence number. */
	hc->arm_sn++;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* QP                                                                      */

/* A thread domain and its parent domain on hd->pd; false when refused. */
static bool
hw_td_alloc(struct mlx5_hw_dev *hd, struct ibv_td **td, struct ibv_pd **pd)
{
	struct ibv_parent_domain_init_attr pa;
	struct ibv_td_init_attr ta = { .comp_mask = 0 };
	int err;

	*td = ibv_alloc_td(hd->ctx, &ta);
	if (*td == NULL) {
		err = errno;
		/* Only "not supported" is final; running out is per QP. */
		if (err == EOPNOTSUPP || err == ENOSYS)
			hd->td_unsupported = true;
		MLX5_LOG(INFO, "ibv_alloc_td on %s failed (%s): QP rings with 8-byte "
			 "doorbells, no BlueFlame\n", hd->base.attr.name, strerror(err));
		return false;
	}
	memset(&pa, 0, sizeof(pa));
	pa.pd = hd->pd;
	pa.td = *td;
	*pd = ibv_alloc_parent_domain(hd->ctx, &pa);
	if (*pd == NULL) {
		MLX5_LOG(INFO, "ibv_alloc_parent_domain on %s failed (%s): QP rings with "
			 "8-byte doorbells, no BlueFlame\n", hd->base.attr.name, strerror(errno));
		ibv_dealloc_td(*td);
		*td = NULL;
		return false;
	}
	return true;
}

/*
 * The protection domain a QP is created on: the posting lcore's parent
 * domain (conf.post_lcore, created on first use), a domain of the QP's own
 * (post_lcore 0), or the plain PD when none can be had (then no BlueFlame).
 */
static struct ibv_pd *
hw_td_pd(struct mlx5_hw_dev *hd, struct mlx5_hw_qp *hq, uint32_t post_lcore)
{
	unsigned int i;

	hq->td_slot = -1;
	if (hd->td_unsupported)
		return hd->pd;
	if (post_lcore == 0)
		return hw_td_alloc(hd, &hq->own_td, &hq->own_pd) ? hq->own_pd : hd->pd;
	i = post_lcore - 1 < RDX_MAX_LCORES ? post_lcore - 1 : RDX_MAX_LCORES;
	if (hd->td_pd[i] == NULL && !hw_td_alloc(hd, &hd->td[i], &hd->td_pd[i]))
		return hd->pd;
	hd->td_refs[i]++;
	hq->td_slot = (int)i;
	return hd->td_pd[i];
}

/* Release what hw_td_pd gave (after the QP is destroyed). */
static void
hw_td_put(struct mlx5_hw_dev *hd, struct mlx5_hw_qp *hq)
{
	if (hq->td_slot >= 0)
		hd->td_refs[hq->td_slot]--;
	hq->td_slot = -1;
	if (hq->own_pd != NULL)
		ibv_dealloc_pd(hq->own_pd);
	if (hq->own_td != NULL)
		ibv_dealloc_td(hq->own_td);
	hq->own_pd = NULL;
	hq->own_td = NULL;
}

int
rdx_mlx5_hw_qp_destroy(struct rdx_qp *qp)
{
	struct mlx5_hw_qp *hq = (struct mlx5_hw_qp *)qp;
	struct mlx5_hw_dev *hd = hw_dev(qp->dev);
	int ret;

	ret = ibv_destroy_qp(hq->ibqp);
	if (ret != 0) {
		MLX5_LOG(ERR, "ibv_destroy_qp(0x%x) failed: %s\n", qp->qp_num, strerror(ret));
		return -ret;
	}
	rdx_mlx5_qp_unbind(&hd->objs, &hq->mqp);
	hw_td_put(hd, hq);
	free(hq);
	return 0;
}

/* mlx5_calc_sq_size would refuse a deeper SQ (EINVAL from create). */
uint32_t
rdx_mlx5_hw_qp_sq_depth_max(const struct rdx_dev *dev, uint8_t type, uint32_t max_send_sge,
			    uint32_t max_inline)
{
	const struct mlx5_hw_dev *hd = (const struct mlx5_hw_dev *)dev; /* base is first */

	return (type == RDX_QP_UD ? rdx_mlx5_ud_max_send_wr : rdx_mlx5_rc_max_send_wr)
		(hd->max_send_wqebb, MLX5_HW_MAX_SQ_DESC, RTE_MAX(max_send_sge, 1u), max_inline);
}

struct rdx_qp *
rdx_mlx5_hw_qp_create(struct rdx_dev *dev, const struct rdx_qp_conf *conf)
{
	struct mlx5_hw_dev *hd = hw_dev(dev);
	struct ibv_qp_init_attr_ex qa;
	struct mlx5dv_qp_init_attr da;
	struct mlx5dv_obj obj;
	struct mlx5dv_qp dv;
	struct mlx5_hw_qp *hq;
	uint32_t max_inline, max_send_sge, max_recv_sge, max_wr;
	const bool ud = conf->type == RDX_QP_UD;
	int ret;

	/* conf is within attr, its CQs are dev's (lib/dev) */
	if (conf->type != RDX_QP_RC && conf->type != RDX_QP_UD) {
		MLX5_LOG(ERR, "QP type %u not supported\n", conf->type);
		rte_errno = ENOTSUP;
		return NULL;
	}
	max_wr = rdx_mlx5_hw_qp_sq_depth_max(dev, conf->type, conf->max_send_sge,
					     conf->max_inline);
	if (conf->sq_depth > max_wr) {
		MLX5_LOG(ERR, "QP sq_depth %u too deep: a%s QP with %u send SGEs and %u "
			 "inline bytes takes at most %u WRs on %s (libmlx5 sizes each WQE "
			 "with %u B of overhead; the SQ may have %u WQEBBs)\n", conf->sq_depth,
			 ud ? " UD" : "n RC", RTE_MAX(conf->max_send_sge, 1u), conf->max_inline,
			 max_wr, dev->attr.name,
			 ud ? RDX_MLX5_UD_SQ_OVERHEAD : RDX_MLX5_RC_SQ_OVERHEAD,
			 hd->max_send_wqebb);
		rte_errno = EINVAL;
		return NULL;
	}
	hq = calloc(1, sizeof(*hq));
	if (hq == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	hq->td_slot = -1;
	hq->scq = (struct mlx5_hw_cq *)conf->send_cq;
	hq->rcq = (struct mlx5_hw_cq *)conf->recv_cq;
	memset(&qa, 0, sizeof(qa));
	qa.qp_type = ud ? IBV_QPT_UD : IBV_QPT_RC;
	qa.send_cq = hq->scq->ibcq;
	qa.recv_cq = hq->rcq->ibcq;
	qa.cap.max_send_wr = conf->sq_depth;
	qa.cap.max_recv_wr = conf->rq_depth;
	qa.cap.max_send_sge = RTE_MAX(conf->max_send_sge, 1u);
	qa.cap.max_recv_sge = conf->rq_depth != 0 ? RTE_MAX(conf->max_recv_sge, 1u) : 0;
	qa.cap.max_inline_data = conf->max_inline;
	qa.sq_sig_all = 0;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD;
	qa.pd = hw_td_pd(hd, hq, conf->post_lcore);
	memset(&da, 0, sizeof(da));
	/* Receives always land in the RQ buffers (datapath contract). */
	da.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS;
	da.create_flags = MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE;
	hq->ibqp = mlx5dv_create_qp(hd->ctx, &qa, &da);
	if (hq->ibqp == NULL) {
		ret = errno != 0 ? errno : EINVAL;
		MLX5_LOG(ERR, "mlx5dv_create_qp(sq %u, rq %u, inline %u) failed: %s\n",
			 conf->sq_depth, conf->rq_depth, conf->max_inline, strerror(ret));
		goto fail;
	}
	memset(&dv, 0, sizeof(dv));
	obj.qp.in = hq->ibqp;
	obj.qp.out = &dv;
	ret = mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP);
	if (ret != 0) {
		ret = ret > 0 ? ret : EINVAL;
		MLX5_LOG(ERR, "mlx5dv_init_obj(QP 0x%x) failed: %s\n", hq->ibqp->qp_num,
			 strerror(ret));
		goto fail;
	}
	if (qa.pd == hd->pd)
		dv.bf.size = 0;     /* possibly shared register: no BlueFlame copies */
	/* Granted limits (create updates qa.cap); the RQ takes stride/16 SGEs
	 * and its terminator rule follows that (mlx5_post_recv max_gs). */
	max_inline = RTE_MIN(qa.cap.max_inline_data,
			     ud ? RDX_MLX5_UD_MAX_INLINE : RDX_MLX5_MAX_INLINE);
	max_send_sge = RTE_MIN(RTE_MIN(qa.cap.max_send_sge, (uint32_t)RDX_MAX_SGE),
			       ud ? RDX_MLX5_UD_MAX_SEND_SGE : RDX_MLX5_MAX_SEND_SGE);
	if (ud)
		max_inline = RTE_MIN(max_inline, dev->attr.max_ud_msg);
	max_recv_sge = dv.rq.wqe_cnt != 0 ?
		RTE_MIN(dv.rq.stride / 16, (uint32_t)RDX_MAX_SGE) : 0;
	ret = -rdx_mlx5_qp_bind(&hd->objs, &hq->mqp, dev, conf, &dv, hq->ibqp->qp_num,
				max_inline, max_send_sge, max_recv_sge);
	if (ret != 0) {
		MLX5_LOG(ERR, "QP 0x%x rings not usable by the datapath (sq %u x %u B, "
			 "rq %u x %u B): %s\n", hq->ibqp->qp_num, dv.sq.wqe_cnt, dv.sq.stride,
			 dv.rq.wqe_cnt, dv.rq.stride, strerror(ret));
		goto fail;
	}
	if (hq->td_slot >= 0) {
		/* The lcore's QPs share its register and the half toggle. */
		struct rdx_mlx5_bfreg *bf = &hd->td_bf[hq->td_slot];

		if (!hd->td_bf_set[hq->td_slot]) {
			rdx_mlx5_bfreg_init(bf, dv.bf.reg, dv.bf.size);
			hd->td_bf_set[hq->td_slot] = true;
		}
		ret = -rdx_mlx5_qp_bfreg_share(&hq->mqp, bf);
		if (ret != 0) {
			MLX5_LOG(ERR, "QP 0x%x: libmlx5 gave register %p, its thread domain has %p\n",
				 hq->ibqp->qp_num, dv.bf.reg, (void *)bf->reg);
			goto fail_dp;
		}
	}
	if (hq->mqp.base.conf.sq_depth < conf->sq_depth) {
		MLX5_LOG(ERR, "QP 0x%x: SQ of %u WQEBBs holds %u WRs, %u asked\n",
			 hq->ibqp->qp_num, dv.sq.wqe_cnt, hq->mqp.base.conf.sq_depth,
			 conf->sq_depth);
		ret = ENOSPC;
		goto fail_dp;
	}
	hq->psn = (uint32_t)(rte_rdtsc() ^ ((uint64_t)hq->ibqp->qp_num << 8)) & 0xffffff;
	hq->qkey = conf->qkey;
	return &hq->mqp.base;
fail_dp:
	MLX5_LOG(ERR, "QP 0x%x setup failed: %s\n", hq->ibqp->qp_num, strerror(ret));
	rdx_mlx5_qp_unbind(&hd->objs, &hq->mqp);
fail:
	if (hq->ibqp != NULL)
		ibv_destroy_qp(hq->ibqp);
	hw_td_put(hd, hq);
	free(hq);
	rte_errno = ret;
	return NULL;
}

int
rdx_mlx5_hw_qp_info(struct rdx_qp *qp, struct rdx_qp_info *info)
{
	struct mlx5_hw_qp *hq = (struct mlx5_hw_qp *)qp;
	struct mlx5_hw_dev *hd = hw_dev(qp->dev);

	memset(info, 0, sizeof(*info));
	info->qp_num = qp->qp_num;
	info->psn = hq->psn;
	info->lid = hd->pattr.lid;
	info->port = hd->port;
	info->mtu = (uint8_t)hd->pattr.active_mtu;
	memcpy(info->gid, hd->gid.raw, sizeof(info->gid));
	info->gid_index = hd->gid_index;
	info->qp_type = qp->conf.type;
	info->qkey = qp->conf.type == RDX_QP_UD ? hq->qkey : 0;
	snprintf(info->driver, sizeof(info->driver), "mlx5");
	return 0;
}

/*
 * A UD QP to RTS (IBTA 11.2.4.2 / ibv_modify_qp(3) UD attributes): INIT
 * takes the port, the P_Key index and the Q_Key, RTR nothing more, RTS the
 * SQ PSN.
 */
static int
hw_ud_activate(struct mlx5_hw_qp *hq, struct mlx5_hw_dev *hd)
{
	struct ibv_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = hd->port;
	a.qkey = hq->qkey;
	ret = ibv_modify_qp(hq->ibqp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			    IBV_QP_QKEY);
	if (ret != 0) {
		MLX5_LOG(ERR, "modify UD QP 0x%x to INIT (port %u, qkey 0x%x) failed: %s\n",
			 hq->ibqp->qp_num, hd->port, hq->qkey, strerror(ret));
		return -ret;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	ret = ibv_modify_qp(hq->ibqp, &a, IBV_QP_STATE);
	if (ret != 0) {
		MLX5_LOG(ERR, "modify UD QP 0x%x to RTR failed: %s\n", hq->ibqp->qp_num,
			 strerror(ret));
		return -ret;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = hq->psn;
	ret = ibv_modify_qp(hq->ibqp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
	if (ret != 0) {
		MLX5_LOG(ERR, "modify UD QP 0x%x to RTS failed: %s\n", hq->ibqp->qp_num,
			 strerror(ret));
		return -ret;
	}
	return 0;
}

int
rdx_mlx5_hw_qp_connect(struct rdx_qp *qp, const struct rdx_qp_info *remote,
	      const struct rdx_qp_conn_attr *ca)
{
	struct mlx5_hw_qp *hq = (struct mlx5_hw_qp *)qp;
	struct mlx5_hw_dev *hd = hw_dev(qp->dev);
	struct ibv_qp_attr a;
	enum ibv_mtu mtu;
	uint8_t rd_atomic;
	int ret;

	if (qp->conf.type == RDX_QP_UD) {
		if (remote != NULL) {
			MLX5_LOG(ERR, "UD QP 0x%x connects without a remote\n", qp->qp_num);
			return -EINVAL;
		}
		return hw_ud_activate(hq, hd);
	}
	if (remote == NULL) {
		MLX5_LOG(ERR, "RC QP 0x%x needs a remote to connect\n", qp->qp_num);
		return -EINVAL;
	}
	if (remote->qp_num == 0 || remote->qp_num > 0xffffff) {
		MLX5_LOG(ERR, "bad remote QP number 0x%x\n", remote->qp_num);
		return -EINVAL;
	}
	mtu = ca->mtu != 0 ? (enum ibv_mtu)ca->mtu : hd->pattr.active_mtu;
	if (remote->mtu != 0 && remote->mtu < mtu)
		mtu = (enum ibv_mtu)remote->mtu;
	rd_atomic = (uint8_t)RTE_MIN((int)ca->max_rd_atomic,
				     RTE_MIN(hd->dattr.orig_attr.max_qp_rd_atom,
					     hd->dattr.orig_attr.max_qp_init_rd_atom));

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = hd->port;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	ret = ibv_modify_qp(hq->ibqp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			    IBV_QP_ACCESS_FLAGS);
	if (ret != 0) {
		MLX5_LOG(ERR, "modify QP to INIT failed: %s (qpn 0x%x)\n", strerror(ret),
			 qp->qp_num);
		return -ret;
	}

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = mtu;
	a.dest_qp_num = remote->qp_num;
	a.rq_psn = remote->psn & 0xffffff;
	a.max_dest_rd_atomic = rd_atomic;
	a.min_rnr_timer = ca->min_rnr_timer;
	a.ah_attr.dlid = remote->lid;
	a.ah_attr.sl = ca->sl;
	a.ah_attr.port_num = hd->port;
	/* RoCE always needs the GRH; IB only across subnets (non-zero GID given
	 * with no LID). */
	if (hd->pattr.link_layer == IBV_LINK_LAYER_ETHERNET ||
	    (remote->lid == 0 && !gid_is_zero(remote->gid))) {
		a.ah_attr.is_global = 1;
		memcpy(a.ah_attr.grh.dgid.raw, remote->gid, 16);
		a.ah_attr.grh.sgid_index = (uint8_t)hd->gid_index;
		a.ah_attr.grh.hop_limit = 64;
	}
	ret = ibv_modify_qp(hq->ibqp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			    IBV_QP_MIN_RNR_TIMER);
	if (ret != 0) {
		MLX5_LOG(ERR, "modify QP to RTR failed: %s (remote qpn 0x%x)\n",
			 strerror(ret), remote->qp_num);
		return -ret;
	}

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = hq->psn;
	a.timeout = ca->timeout;
	a.retry_cnt = ca->retry_cnt;
	a.rnr_retry = ca->rnr_retry;
	a.max_rd_atomic = rd_atomic;
	ret = ibv_modify_qp(hq->ibqp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
			    IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
	if (ret != 0) {
		MLX5_LOG(ERR, "modify QP to RTS failed: %s (remote qpn 0x%x)\n",
			 strerror(ret), remote->qp_num);
		return -ret;
	}
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Address handles (UD)                                                    */

/* attr (checked and defaulted by lib/dev) -> ibv_ah_attr of hd's port. */
static int
hw_ah_attr(const struct mlx5_hw_dev *hd, const struct rdx_ah_attr *attr,
	   struct ibv_ah_attr *ia)
{
	int sgid = attr->sgid_index >= 0 ? attr->sgid_index : hd->gid_index;

	if (attr->port != hd->port) {
		MLX5_LOG(ERR, "address handle on port %u: device %s is open on port %u\n",
			 attr->port, hd->base.attr.name, hd->port);
		return -EINVAL;
	}
	if (attr->is_global && (sgid < 0 || sgid >= hd->pattr.gid_tbl_len || sgid > 255)) {
		MLX5_LOG(ERR, "address handle: sgid_index %d out of range (0..%d)\n", sgid,
			 hd->pattr.gid_tbl_len - 1);
		return -EINVAL;
	}
	memset(ia, 0, sizeof(*ia));
	ia->dlid = attr->lid;
	ia->sl = attr->sl;
	ia->static_rate = attr->static_rate;
	ia->port_num = attr->port;
	if (attr->is_global) {
		ia->is_global = 1;
		memcpy(ia->grh.dgid.raw, attr->gid, 16);
		ia->grh.flow_label = attr->flow_label;
		ia->grh.sgid_index = (uint8_t)sgid;
		ia->grh.hop_limit = attr->hop_limit;
		ia->grh.traffic_class = attr->traffic_class;
	}
	return 0;
}

struct rdx_ah *
rdx_mlx5_hw_ah_create(struct rdx_dev *dev, const struct rdx_ah_attr *attr)
{
	struct mlx5_hw_dev *hd = hw_dev(dev);
	struct rdx_mlx5_ah *ah;
	struct ibv_ah_attr ia;
	struct mlx5dv_obj obj;
	struct mlx5dv_ah dv;
	struct ibv_ah *ibah;
	int ret;

	ret = -hw_ah_attr(hd, attr, &ia);
	if (ret != 0) {
		rte_errno = ret;
		return NULL;
	}
	/* a cache line of its own: the AV is copied into every UD WQE */
	ah = aligned_alloc(64, RTE_ALIGN_CEIL(sizeof(*ah), 64));
	if (ah == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	/* RoCE: the kernel resolves the destination MAC here. */
	ibah = ibv_create_ah(hd->pd, &ia);
	if (ibah == NULL) {
		ret = errno != 0 ? errno : EINVAL;
		MLX5_LOG(ERR, "ibv_create_ah(lid 0x%x, %s) on %s failed: %s\n", attr->lid,
			 attr->is_global ? "GRH" : "no GRH", dev->attr.name, strerror(ret));
		goto fail;
	}
	memset(&dv, 0, sizeof(dv));
	obj.ah.in = ibah;
	obj.ah.out = &dv;
	ret = mlx5dv_init_obj(&obj, MLX5DV_OBJ_AH);
	if (ret != 0 || dv.av == NULL) {
		ret = ret > 0 ? ret : EINVAL;
		MLX5_LOG(ERR, "mlx5dv_init_obj(AH) failed: %s\n", strerror(ret));
		ibv_destroy_ah(ibah);
		goto fail;
	}
	/* The datapath copies this AV into each UD WQE (set_datagram_seg). */
	memset(ah, 0, sizeof(*ah));
	rdx_mlx5_ah_init(ah, dv.av);
	ah->drv = ibah;
	ah->base.dev = dev;
	ah->base.attr = *attr;
	return &ah->base;
fail:
	free(ah);
	rte_errno = ret;
	return NULL;
}

int
rdx_mlx5_hw_ah_destroy(struct rdx_ah *bah)
{
	struct rdx_mlx5_ah *ah = (struct rdx_mlx5_ah *)(void *)bah;
	int ret;

	ret = ibv_destroy_ah((struct ibv_ah *)ah->drv);
	if (ret != 0) {
		MLX5_LOG(ERR, "ibv_destroy_ah failed: %s\n", strerror(ret));
		return -ret;
	}
	free(ah);
	return 0;
}
