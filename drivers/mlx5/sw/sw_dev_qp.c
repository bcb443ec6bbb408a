/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Software mlx5 device: its CQ, QP and AH ops and connect. The control path
 * builds rings in the model's shared memory and hands them to the mlx5
 * datapath (rdx_mlx5_qp_bind / rdx_mlx5_cq_bind, as mlx5_hw.c does), whose
 * post/poll functions are the fast path, exactly as on hardware. In inline
 * progress mode a CQ's poll op is sw_cq_poll_inline: the engine, then the
 * datapath's poll. The driver itself (open, memory, xstats) is sw_dev.c.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include <infiniband/verbs.h>

#include "sw_dev_priv.h"


void sw_cq_futex_wait(struct sw_engine *e, int slot, uint32_t seq, uint64_t ns);
uint32_t sw_cq_seq(struct sw_engine *e, int slot);

/* A CQE waiting at the consumer counter (get_sw_cqe: valid opcode, the
 * owner bit of this lap), from the datapath's own view of the ring
 * (process memory, not shared). */
static inline bool
sw_cq_ready(const struct rdx_mlx5_cq *mcq)
{
	const uint32_t ci = mcq->cons_index;
	const uint8_t op_own = ((const volatile struct mlx5_cqe64 *)(const void *)
		(mcq->cqe64 + ((size_t)(ci & mcq->cqe_mask) << mcq->cqe_shift)))->op_own;

	return ((op_own ^ (ci >> mcq->log_cqe_cnt)) & MLX5_CQE_OWNER_MASK) == 0 &&
		(op_own >> 4) != MLX5_CQE_INVALID;
}

/*
 * The poll op of a CQ in inline-progress mode: run the engine over every
 * QP of the device (it writes the CQEs), then poll with the datapath's
 * general loop. Hardware CQs and thread mode poll with rdx_mlx5_poll_burst.
 * A poll that finds a CQE waiting at its consumer counter returns it
 * without running the engine first: the caller gets a completion either
 * way, and the engine runs at the first poll that finds none (every
 * skipped call consumes a CQE the engine wrote, so the delay is bounded by
 * them). An echo's send-CQ reclaims and the responder's poll for a request
 * its peer already completed take this path. A poll that finds none after
 * the engine (or asks for none: the engine still runs) returns 0 at once,
 * what the general loop returns for an empty slot.
 */
static uint16_t
sw_cq_poll_inline(struct rdx_cq *rcq, struct rdx_wc *wc, uint16_t n)
{
	const struct rdx_mlx5_cq *mcq = (const struct rdx_mlx5_cq *)rcq;

	if (n == 0 || !sw_cq_ready(mcq)) {
		struct sw_engine *e = &sw_dev(rcq->dev)->eng;
		const unsigned int id = rte_lcore_id();

		/* One idle call skipped: this lcore's last progress call left
		 * every live QP with nothing to do and no send was posted from
		 * this lcore since (sw_post_burst counts them), so the engine
		 * would find nothing either: a ring comes with a post. Once,
		 * then the engine runs again: a change no post announces (a
		 * peer moving our QP to ERR, a control-path state change, a
		 * doorbell written around the datapath) waits one call more. */
		if (n != 0 && id < RTE_MAX_LCORE) {
			struct sw_lc *lc = &e->lc[id];

			if (lc->quiet == 1 && lc->quiet_posts == lc->posts) {
				lc->quiet = 2;
				return 0;
			}
		}
		sw_engine_progress(e);
		if (n == 0 || !sw_cq_ready(mcq))
			return 0;
	}
	return rdx_mlx5_poll_burst_general(rcq, wc, n);
}

struct rdx_cq *
sw_cq_create_op(struct rdx_dev *dev, const struct rdx_cq_conf *conf)
{
	struct sw_dev *sd = sw_dev(dev);
	struct mlx5dv_cq dv;
	struct sw_cq *cq;
	int slot, ret;

	/* conf->depth is within attr.max_cqe (lib/dev) */
	cq = calloc(1, sizeof(*cq));
	if (cq == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	slot = sw_cq_create(&sd->eng, conf->depth, &dv);
	if (slot < 0) {
		free(cq);
		rte_errno = -slot;
		return NULL;
	}
	cq->slot = slot;
	ret = rdx_mlx5_cq_bind(&sd->objs, &cq->mcq, dev, conf, &dv, SW_MAX_QP);
	if (ret != 0) {
		sw_cq_destroy(&sd->eng, slot);
		free(cq);
		rte_errno = -ret;
		return NULL;
	}
	if (sd->progress != RDX_SW_PROGRESS_THREAD) {
		cq->inline_progress = true;
		cq->mcq.base.poll_burst = sw_cq_poll_inline;
	}
	return &cq->mcq.base;
}

int
sw_cq_destroy_op(struct rdx_cq *rcq)
{
	struct sw_cq *cq = (struct sw_cq *)rcq;
	struct sw_dev *sd = sw_dev(rcq->dev);

	if (cq->mcq.nb_qps != 0)
		return -EBUSY;
	rdx_mlx5_cq_unbind(&sd->objs, &cq->mcq);
	sw_cq_destroy(&sd->eng, cq->slot);
	free(cq);
	return 0;
}

static uint64_t
sw_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * Block until the CQE at the consumer index is there or timeout_ms passes
 * (< 0: forever): sleep on the CQ's futex word in shared memory, which
 * every engine (any thread or process) bumps and wakes after writing a
 * CQE. Inline mode also runs the engine before each sleep and sleeps at
 * most 50 us, since nobody else may be running it.
 */
int
sw_cq_wait(struct rdx_cq *rcq, int timeout_ms)
{
	struct sw_cq *cq = (struct sw_cq *)rcq;
	struct sw_dev *sd = sw_dev(rcq->dev);
	uint64_t now = sw_mono_ns();
	uint64_t end = timeout_ms < 0 ? UINT64_MAX :
		       now + (uint64_t)timeout_ms * (uint64_t)1000000;

	for (;;) {
		uint32_t seq = sw_cq_seq(&sd->eng, cq->slot);

		if (cq->inline_progress)
			sw_engine_progress(&sd->eng);
		if (sw_cq_has_cqe(&sd->eng, cq->slot, cq->mcq.cons_index))
			return 0;
		now = sw_mono_ns();
		if (now >= end)
			return -ETIMEDOUT;
		/* both modes sleep on the futex word, so a CQE that another
		 * thread or process writes wakes the waiter at once; inline
		 * mode wakes every 50 us to run the engine itself (a doorbell
		 * wakes nobody, as on the NIC the channel is for CQEs only) */
		sw_cq_futex_wait(&sd->eng, cq->slot, seq,
				 RTE_MIN(end - now, cq->inline_progress ?
					 (uint64_t)50000 : (uint64_t)10000000));
	}
}

/*
 * Post through the datapath, noting in the register's model-only words who
 * posts (sw_engine.c, "Doorbell registers", reports them): a post that
 * finds another thread inside a post on the same register, and, on a
 * register shared by a posting lcore, a post from another lcore. The NIC
 * cannot tell threads apart; it would get interleaved BlueFlame copies.
 */
static uint16_t
sw_post_burst(struct rdx_qp *rqp, const struct rdx_wr *wr, uint16_t n)
{
	struct sw_bf_shm *r = ((struct sw_qp *)rqp)->bfr;
	uint32_t tid = (uint32_t)rte_gettid();
	const uint32_t prev = __atomic_exchange_n(&r->writer, tid, __ATOMIC_ACQUIRE);
	uint16_t k;

	/* the thread that rings it: only its own looks may hold the register
	 * still (sw_engine.c, sw_bf_quiet) */
	if (unlikely(__atomic_load_n(&r->poster, __ATOMIC_RELAXED) != tid))
		__atomic_store_n(&r->poster, tid, __ATOMIC_RELAXED);
	if (unlikely(prev != 0)) {
		r->bad_tid = prev;
		__atomic_fetch_add(&r->overlaps, 1, __ATOMIC_RELAXED);
	}
	if (unlikely(r->lcore != UINT32_MAX && rte_lcore_id() != r->lcore)) {
		r->bad_lcore = rte_lcore_id();
		__atomic_fetch_add(&r->wrong_lcore, 1, __ATOMIC_RELAXED);
	}
	/* a post may ring: inline progress's idle skip looks at this count
	 * (its lcore's slot; other threads' slot is never quiet) */
	if (likely(rte_lcore_id() < RTE_MAX_LCORE))
		sw_dev(rqp->dev)->eng.lc[rte_lcore_id()].posts++;
	k = ((struct sw_qp *)rqp)->ud ? rdx_mlx5_post_burst_ud(rqp, wr, n) :
		rdx_mlx5_post_burst(rqp, wr, n);
	/* leave the word to a thread that came in meanwhile */
	__atomic_compare_exchange_n(&r->writer, &tid, 0, false, __ATOMIC_RELEASE,
				    __ATOMIC_RELAXED);
	/* inline progress: the engine takes the doorbell now, as a NIC starts
	 * on the doorbell, rather than at the caller's next poll (which may
	 * then skip its idle call: sw_cq_poll_inline). On a latency path the
	 * request is executed before the post returns to the caller's loop. */
	if (k != 0 && sw_dev(rqp->dev)->progress == RDX_SW_PROGRESS_INLINE)
		sw_engine_progress(&sw_dev(rqp->dev)->eng);
	return k;
}

/* Share the engine's register of lqp with the datapath (one toggle). */
static int
sw_qp_bfreg(struct sw_dev *sd, struct sw_qp *qp)
{
	struct sw_bfreg *b = qp->lqp->reg;
	struct rdx_mlx5_bfreg *bf;
	int ret;

	qp->bfr = b->r;
	if (b->post_lcore == 0)
		return 0;       /* its own: the QP's embedded one */
	sw_lock(&sd->eng.lock);
	bf = b->dp;
	if (bf == NULL) {
		bf = calloc(1, sizeof(*bf));
		if (bf == NULL) {
			sw_unlock(&sd->eng.lock);
			return -ENOMEM;
		}
		rdx_mlx5_bfreg_init(bf, qp->mqp.bf_own.reg, qp->mqp.bf_own.size);
		b->dp = bf;
	}
	ret = rdx_mlx5_qp_bfreg_share(&qp->mqp, bf);
	sw_unlock(&sd->eng.lock);
	return ret;
}

/* Before the engine's QP goes: drop the datapath's share of its register
 * (under the lock that guards the shares; rdx_mlx5_qp_unbind follows). */
static void
sw_qp_bfreg_put(struct sw_dev *sd, struct sw_qp *qp)
{
	struct sw_bfreg *b = qp->lqp->reg;
	struct rdx_mlx5_bfreg *bf;

	sw_lock(&sd->eng.lock);
	rdx_mlx5_qp_bfreg_unshare(&qp->mqp);
	bf = b->dp;
	if (bf != NULL && bf->refs == 0) {
		free(bf);
		b->dp = NULL;
	}
	sw_unlock(&sd->eng.lock);
}

/* libmlx5 mlx5_calc_sq_size: the ring may have max_send_wqebb (here
 * SW_MAX_QP_WR) WQEBBs of WQEs all sized with the type's overhead, the SGEs
 * and the inline data; 0 when those do not fit one WQE. */
uint32_t
sw_qp_sq_depth_max(const struct rdx_dev *dev, uint8_t type, uint32_t max_send_sge,
		   uint32_t max_inline)
{
	const bool ud = type == RDX_QP_UD;
	uint32_t wqe_size, inl;

	RTE_SET_USED(dev);
	if (sw_calc_wqe(ud ? SW_UD_WQE_OVERHEAD : SW_WQE_OVERHEAD, max_send_sge, max_inline,
			&wqe_size, &inl) != 0)
		return 0;
	return (ud ? rdx_mlx5_ud_max_send_wr : rdx_mlx5_rc_max_send_wr)
		(SW_MAX_QP_WR, SW_MAX_WQE_BYTES, RTE_MAX(max_send_sge, 1u), max_inline);
}

struct rdx_qp *
sw_qp_create_op(struct rdx_dev *dev, const struct rdx_qp_conf *conf)
{
	struct sw_dev *sd = sw_dev(dev);
	struct sw_qp_params p;
	struct mlx5dv_qp dv;
	struct sw_qp *qp;
	uint32_t wqe_size, inl, max_wr;
	const bool ud = conf->type == RDX_QP_UD;
	int ret;

	/* conf is within attr (type RC or UD, qkey 0 on RC, bit 31 clear on
	 * UD), its CQs are dev's (lib/dev); the WQE must also hold the SGEs
	 * and the inline data together */
	if (sw_calc_wqe(ud ? SW_UD_WQE_OVERHEAD : SW_WQE_OVERHEAD, conf->max_send_sge,
			conf->max_inline, &wqe_size, &inl) != 0) {
		SW_LOG(ERR, "QP not created: %u send SGEs and %u inline bytes do not fit one WQE of %u bytes\n",
			conf->max_send_sge, conf->max_inline, (unsigned int)SW_MAX_WQE_BYTES);
		rte_errno = EINVAL;
		return NULL;
	}
	max_wr = sw_qp_sq_depth_max(dev, conf->type, conf->max_send_sge, conf->max_inline);
	if (conf->sq_depth > max_wr) {
		SW_LOG(ERR, "QP not created: sq_depth %u too deep: with %u send SGEs and %u inline bytes at most %u (a WQE takes %u B with the %s overhead; the SQ may have %u WQEBBs)\n",
			conf->sq_depth, RTE_MAX(conf->max_send_sge, 1u), conf->max_inline, max_wr,
			wqe_size, ud ? "UD" : "RC", SW_MAX_QP_WR);
		rte_errno = EINVAL;
		return NULL;
	}
	qp = calloc(1, sizeof(*qp));
	if (qp == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	qp->scq = (struct sw_cq *)conf->send_cq;
	qp->rcq = (struct sw_cq *)conf->recv_cq;
	memset(&p, 0, sizeof(p));
	p.sq_depth = conf->sq_depth;
	p.rq_depth = conf->rq_depth;
	p.max_send_sge = conf->max_send_sge;
	p.max_recv_sge = conf->max_recv_sge;
	p.max_inline = conf->max_inline;
	p.send_cq = qp->scq->slot;
	p.recv_cq = qp->rcq->slot;
	p.post_lcore = conf->post_lcore;
	p.type = ud ? SW_QPT_UD : SW_QPT_RC;
	p.qkey = ud ? conf->qkey : 0;
	qp->ud = ud;
	qp->lqp = sw_qp_create(&sd->eng, &p, &dv);
	if (qp->lqp == NULL) {
		free(qp);
		return NULL;
	}
	/* the granted depths and limits land in qp->mqp.base.conf */
	ret = rdx_mlx5_qp_bind(&sd->objs, &qp->mqp, dev, conf, &dv, qp->lqp->s->qpn,
			       qp->lqp->s->max_inline, conf->max_send_sge,
			       qp->lqp->s->max_recv_sge);
	if (ret != 0)
		goto err;
	ret = sw_qp_bfreg(sd, qp);
	if (ret != 0)
		goto err_unbind;
	qp->mqp.base.post_burst = sw_post_burst;
	return &qp->mqp.base;
err_unbind:
	sw_qp_bfreg_put(sd, qp);
	rdx_mlx5_qp_unbind(&sd->objs, &qp->mqp);
err:
	sw_qp_destroy(&sd->eng, qp->lqp);
	free(qp);
	rte_errno = -ret;
	return NULL;
}

int
sw_qp_destroy_op(struct rdx_qp *rqp)
{
	struct sw_qp *qp = (struct sw_qp *)rqp;
	struct sw_dev *sd = sw_dev(rqp->dev);

	sw_qp_bfreg_put(sd, qp);
	rdx_mlx5_qp_unbind(&sd->objs, &qp->mqp);
	sw_qp_destroy(&sd->eng, qp->lqp);
	free(qp);
	return 0;
}

int
sw_qp_info(struct rdx_qp *rqp, struct rdx_qp_info *info)
{
	struct sw_dev *sd = sw_dev(rqp->dev);

	memset(info, 0, sizeof(*info));
	info->qp_num = rqp->qp_num;
	info->port = 1;
	info->mtu = IBV_MTU_4096;
	info->gid_index = -1;
	snprintf(info->driver, sizeof(info->driver), "sw");
	/* the device's GID names its segment (UD address handles use it) */
	memcpy(info->gid, sd->eng.self->gid, sizeof(info->gid));
	info->qp_type = rqp->conf.type;
	info->qkey = rqp->conf.type == RDX_QP_UD ? rqp->conf.qkey : 0;
	/* driver data: the owner's shared-memory name, NUL-terminated */
	snprintf((char *)info->drv, sizeof(info->drv), "%s", sd->eng.self->name);
	return 0;
}

int
sw_qp_connect_op(struct rdx_qp *rqp, const struct rdx_qp_info *remote,
		 const struct rdx_qp_conn_attr *attr)
{
	struct sw_qp *qp = (struct sw_qp *)rqp;
	struct sw_dev *sd = sw_dev(rqp->dev);
	char dom[sizeof(remote->drv) + 1];
	int ret;

	if (qp->ud) {
		/* lib/dev passes remote NULL for UD */
		RTE_SET_USED(attr);
		ret = sw_qp_ud_ready(&sd->eng, qp->lqp);
		if (ret != 0)
			SW_LOG(ERR, "UD QP 0x%x not in RESET: not moved to RTS\n",
				rqp->qp_num);
		return ret;
	}
	if (remote->qp_type != RDX_QP_RC) {
		SW_LOG(ERR, "cannot connect RC QP 0x%x to a peer QP of type %u\n",
			rqp->qp_num, remote->qp_type);
		return -EPROTO;
	}
	if (strncmp(remote->driver, "sw", sizeof(remote->driver)) != 0) {
		SW_LOG(ERR, "cannot connect to a '%.16s' peer\n", remote->driver);
		return -EPROTO;
	}
	/* remote->drv comes from a peer: the segment name must be a string */
	if (memchr(remote->drv, '\0', sizeof(remote->drv)) == NULL) {
		memcpy(dom, remote->drv, sizeof(remote->drv));
		dom[sizeof(remote->drv)] = '\0';
		SW_LOG(ERR, "peer's segment name '%.16s...' (qp_info.drv) has no terminating NUL\n",
			dom);
		return -EPROTO;
	}
	memcpy(dom, remote->drv, sizeof(remote->drv));
	dom[sizeof(remote->drv)] = '\0';
	/* the path MTU (enum ibv_mtu, 256 << (mtu - 1)): the timing layer
	 * packetises at it; execution does not depend on it */
	qp->lqp->path_mtu = attr->mtu >= IBV_MTU_256 && attr->mtu <= IBV_MTU_4096 ?
		128u << attr->mtu : 0;
	return sw_qp_connect(&sd->eng, qp->lqp, dom, remote->qp_num, attr->rnr_retry,
			     attr->min_rnr_timer, attr->retry_cnt, attr->timeout);
}

/* ------------------------------------------------------------------ */
/* Address handles (UD)                                                */

/*
 * The mlx5 address vector of a sw AH (struct mlx5_wqe_av, as libmlx5's
 * mlx5_create_ah fills it for RoCE): stat_rate_sl = rate << 4 | sl,
 * rlid = the engine's route slot + 1 (RoCE has no LID: the model keeps
 * its "sw domain index" there), tclass, hop_limit, grh_gid_fl = GRH bit
 * 30 | flow label (sgid_index 0), rgid = the destination device's GID.
 * rmac stays zero (no Ethernet). Kept as the datapath's template
 * (rdx_mlx5_ah_init); the post loop ORs the WR's QPN and Q_Key in.
 */
struct rdx_ah *
sw_ah_create(struct rdx_dev *dev, const struct rdx_ah_attr *attr)
{
	struct sw_dev *sd = sw_dev(dev);
	struct sw_ah *ah;
	char name[SW_NAME_LEN];
	int route;

	if (attr->port != 1) {
		SW_LOG(ERR, "address handle on port %u: the device has port 1 only\n",
			attr->port);
		rte_errno = EINVAL;
		return NULL;
	}
	if (attr->sgid_index > 0) {
		SW_LOG(ERR, "address handle: sgid_index %d out of range (0)\n",
			attr->sgid_index);
		rte_errno = EINVAL;
		return NULL;
	}
	if (sw_gid_to_name(attr->gid, name, sizeof(name)) != 0) {
		SW_LOG(ERR, "address handle: gid %02x%02x:...:%02x%02x is not a sw device's GID (rdx_qp_info.gid of a sw QP)\n",
			attr->gid[0], attr->gid[1], attr->gid[14], attr->gid[15]);
		rte_errno = EINVAL;
		return NULL;
	}
	ah = aligned_alloc(64, RTE_ALIGN_CEIL(sizeof(*ah), 64));
	if (ah == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	memset(ah, 0, sizeof(*ah));
	route = sw_route_get(&sd->eng, attr->gid);
	if (route < 0) {
		/* sw_route_get said why, in one line */
		free(ah);
		rte_errno = -route;
		return NULL;
	}
	ah->route = route;
	{
		struct mlx5_wqe_av av;

		memset(&av, 0, sizeof(av));
		av.stat_rate_sl = (uint8_t)((attr->static_rate & 0xf) << 4 | (attr->sl & 0xf));
		av.rlid = htobe16((uint16_t)(route + 1));
		av.tclass = attr->traffic_class;
		av.hop_limit = attr->hop_limit;
		av.grh_gid_fl = htobe32(1u << 30 | (attr->flow_label & 0xfffff));
		memcpy(av.rgid, attr->gid, 16);
		/* the datapath's template: Q_Key 0, dqp_dct the extended-AV flag */
		rdx_mlx5_ah_init(&ah->mah, &av);
	}
	ah->mah.drv = ah;
	ah->mah.base.dev = dev;
	ah->mah.base.attr = *attr;
	return &ah->mah.base;
}

int
sw_ah_destroy(struct rdx_ah *bah)
{
	struct sw_ah *ah = (struct sw_ah *)(void *)bah;

	sw_route_put(&sw_dev(bah->dev)->eng, ah->route);
	free(ah);
	return 0;
}

uint64_t
sw_qp_retired_wr_id(const struct rdx_qp *qp, const struct rdx_wc *wc, uint16_t i)
{
	return rdx_mlx5_qp_retired_wr_id(qp, wc, i);
}
