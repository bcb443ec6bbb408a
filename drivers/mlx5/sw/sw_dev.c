/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Software mlx5 device: the rdx_dev_ops of "sw". The control path builds
 * rings in the model's shared memory and hands them to the mlx5 datapath
 * (rdx_mlx5_qp_bind / rdx_mlx5_cq_bind, as mlx5_hw.c does), whose
 * post/poll functions are the fast path, exactly as on hardware. In inline
 * progress mode a CQ's poll op is sw_cq_poll_inline: the engine, then the
 * datapath's poll.
 *
 * Memory: RDX_MEM_HOST and RDX_MEM_HUGE buffers live in the device's shared
 * segment (no hugepages in the model), so a peer process can reach them;
 * rdx_dev_mem_reg of other process memory is reachable by peers of the same
 * process only (from another process it is a remote access error).
 * RDX_MEM_DM is model memory (zero-based, not mapped for the app).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include <infiniband/verbs.h>

#include "rdx_dev_driver.h"
#include "rdx_mlx5.h"
#include "rdx_sw.h"
#include "sw_model.h"

struct sw_dev {
	struct rdx_dev base; /* must be first */
	struct sw_engine eng;
	struct rdx_mlx5_objs objs;      /* QPs and CQs, for xstats */
	enum rdx_sw_progress progress;  /* devargs progress= */
};

struct sw_mem {
	struct rdx_mem base; /* must be first */
	uint64_t shm_off;    /* 0: process memory */
};

struct sw_cq {
	struct rdx_mlx5_cq mcq; /* must be first */
	int slot;
	bool inline_progress;   /* polls and waits run the engine */
};

struct sw_qp {
	struct rdx_mlx5_qp mqp; /* must be first */
	struct sw_bf_shm *bfr;  /* its doorbell register (model-only words) */
	struct sw_lqp *lqp;
	struct sw_cq *scq;
	struct sw_cq *rcq;
	bool ud;
};

/* An address handle: the datapath copies mah.av into each UD WQE; the
 * engine finds the destination from those bytes (rlid: route slot + 1,
 * rgid: the destination device's GID), never from this object. */
struct sw_ah {
	struct rdx_mlx5_ah mah; /* must be first */
	int route;
};

void sw_cq_futex_wait(struct sw_engine *e, int slot, uint32_t seq, uint64_t ns);
uint32_t sw_cq_seq(struct sw_engine *e, int slot);

static const struct rdx_dev_ops sw_dev_ops;

static inline struct sw_dev *
sw_dev(struct rdx_dev *dev)
{
	return (struct sw_dev *)dev;
}

bool
rdx_sw_dev_is_sw(const struct rdx_dev *dev)
{
	return dev != NULL && dev->ops == &sw_dev_ops;
}

static int
sw_close(struct rdx_dev *dev)
{
	struct sw_dev *sd = sw_dev(dev);

	sw_engine_fini(&sd->eng);
	rdx_mlx5_objs_fini(&sd->objs);
	free(sd);
	return 0;
}

static struct rdx_mem *
sw_mem_alloc(struct rdx_dev *dev, size_t len, enum rdx_mem_type type, int access)
{
	struct sw_dev *sd = sw_dev(dev);
	struct sw_domain *d = sd->eng.self;
	bool dm = type == RDX_MEM_DM;
	struct sw_mem *m;
	uint64_t off;

	if (len == 0 || (dm && len > SW_MAX_DM) || (unsigned int)type > RDX_MEM_DM) {
		rte_errno = EINVAL;
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (m == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	off = sw_shm_alloc(d, len, dm);
	if (off == 0) {
		free(m);
		return NULL;
	}
	m->shm_off = off;
	m->base.dev = dev;
	m->base.len = len;
	m->base.access = access;
	m->base.type = type;
	m->base.owned = true;
	if (dm) {
		/* ZERO_BASED like ibv_reg_dm_mr: addresses are offsets */
		m->base.addr = NULL;
		m->base.iova = 0;
	} else {
		m->base.addr = d->base + off;
		m->base.iova = (uint64_t)(uintptr_t)m->base.addr;
	}
	m->base.lkey = sw_mr_add(d, dm ? SW_MR_DM : SW_MR_SHM, m->base.iova, len, off, 0,
				 access, sd->eng.pid);
	if (m->base.lkey == 0) {
		sw_shm_free(d, off);
		free(m);
		return NULL;
	}
	m->base.rkey = m->base.lkey;
	m->base.drv = m;
	return &m->base;
}

static struct rdx_mem *
sw_mem_reg(struct rdx_dev *dev, void *addr, size_t len, int access)
{
	struct sw_dev *sd = sw_dev(dev);
	struct sw_domain *d = sd->eng.self;
	uint8_t *p = addr;
	struct sw_mem *m;

	m = calloc(1, sizeof(*m));
	if (m == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	m->base.dev = dev;
	m->base.addr = addr;
	m->base.iova = (uint64_t)(uintptr_t)addr;
	m->base.len = len;
	m->base.access = access;
	m->base.type = RDX_MEM_HOST;
	if (p >= d->base && len <= d->size && (size_t)(p - d->base) <= d->size - len) {
		/* inside the segment: peers of other processes reach it too */
		m->shm_off = (uint64_t)(p - d->base);
		m->base.lkey = sw_mr_add(d, SW_MR_SHM, m->base.iova, len, m->shm_off, 0,
					 access, sd->eng.pid);
	} else {
		m->base.lkey = sw_mr_add(d, SW_MR_LOCAL, m->base.iova, len, 0,
					 m->base.iova, access, sd->eng.pid);
	}
	if (m->base.lkey == 0) {
		free(m);
		return NULL;
	}
	m->base.rkey = m->base.lkey;
	m->base.drv = m;
	return &m->base;
}

static int
sw_mem_free(struct rdx_mem *mem)
{
	struct sw_dev *sd = sw_dev(mem->dev);
	struct sw_mem *m = (struct sw_mem *)mem;
	int ret;

	ret = sw_mr_del(sd->eng.self, mem->lkey);
	if (mem->owned)
		sw_shm_free(sd->eng.self, m->shm_off);
	free(m);
	return ret;
}

static uint8_t *
sw_mem_ptr(struct rdx_mem *mem, size_t off, size_t len)
{
	struct sw_mem *m = (struct sw_mem *)mem;

	if (off > mem->len || len > mem->len - off)
		return NULL;
	if (mem->addr != NULL)
		return (uint8_t *)mem->addr + off;
	return sw_dev(mem->dev)->eng.self->base + m->shm_off + off;
}

static int
sw_mem_copy_to(struct rdx_mem *mem, size_t off, const void *src, size_t len)
{
	uint8_t *p = sw_mem_ptr(mem, off, len);

	if (p == NULL)
		return -ERANGE;
	memcpy(p, src, len);
	return 0;
}

static int
sw_mem_copy_from(struct rdx_mem *mem, size_t off, void *dst, size_t len)
{
	uint8_t *p = sw_mem_ptr(mem, off, len);

	if (p == NULL)
		return -ERANGE;
	memcpy(dst, p, len);
	return 0;
}

/*
 * The poll op of a CQ in inline-progress mode: run the engine over every
 * QP of the device (it writes the CQEs), then poll with the datapath's
 * general loop. Hardware CQs and thread mode poll with rdx_mlx5_poll_burst.
 */
static uint16_t
sw_cq_poll_inline(struct rdx_cq *rcq, struct rdx_wc *wc, uint16_t n)
{
	sw_engine_progress(&sw_dev(rcq->dev)->eng);
	return rdx_mlx5_poll_burst_general(rcq, wc, n);
}

static struct rdx_cq *
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
	if (sd->progress == RDX_SW_PROGRESS_INLINE) {
		cq->inline_progress = true;
		cq->mcq.base.poll_burst = sw_cq_poll_inline;
	}
	return &cq->mcq.base;
}

static int
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
 * (< 0: forever). Inline mode: run the engine in a loop with 50 us sleeps.
 * Thread mode: sleep on the CQ's futex word in shared memory, which every
 * engine (any process) bumps and wakes after writing a CQE.
 */
static int
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
		if (cq->inline_progress) {
			struct timespec ts = { .tv_sec = 0, .tv_nsec = 50000 };

			nanosleep(&ts, NULL);
		} else {
			sw_cq_futex_wait(&sd->eng, cq->slot, seq,
					 RTE_MIN(end - now, (uint64_t)10000000));
		}
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

	if (unlikely(prev != 0)) {
		r->bad_tid = prev;
		__atomic_fetch_add(&r->overlaps, 1, __ATOMIC_RELAXED);
	}
	if (unlikely(r->lcore != UINT32_MAX && rte_lcore_id() != r->lcore)) {
		r->bad_lcore = rte_lcore_id();
		__atomic_fetch_add(&r->wrong_lcore, 1, __ATOMIC_RELAXED);
	}
	k = ((struct sw_qp *)rqp)->ud ? rdx_mlx5_post_burst_ud(rqp, wr, n) :
		rdx_mlx5_post_burst(rqp, wr, n);
	/* leave the word to a thread that came in meanwhile */
	__atomic_compare_exchange_n(&r->writer, &tid, 0, false, __ATOMIC_RELEASE,
				    __ATOMIC_RELAXED);
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

static struct rdx_qp *
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
		fprintf(stderr, "rdx_sw: QP not created: %u send SGEs and %u inline bytes do not fit one WQE of %u bytes\n",
			conf->max_send_sge, conf->max_inline, (unsigned int)SW_MAX_WQE_BYTES);
		rte_errno = EINVAL;
		return NULL;
	}
	/* libmlx5 mlx5_calc_sq_size: the ring may have max_send_wqebb
	 * (= max_qp_wr) WQEBBs of WQEs sized with the type's overhead. */
	max_wr = (ud ? rdx_mlx5_ud_max_send_wr : rdx_mlx5_rc_max_send_wr)
		(SW_MAX_QP_WR, SW_MAX_WQE_BYTES, RTE_MAX(conf->max_send_sge, 1u),
		 conf->max_inline);
	if (conf->sq_depth > max_wr) {
		fprintf(stderr, "rdx_sw: QP not created: sq_depth %u too deep: with %u send SGEs and %u inline bytes at most %u (a WQE takes %u B with the %s overhead; the SQ may have %u WQEBBs)\n",
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

static int
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

static int
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

static int
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
			fprintf(stderr, "rdx_sw: UD QP 0x%x not in RESET: not moved to RTS\n",
				rqp->qp_num);
		return ret;
	}
	if (remote->qp_type != RDX_QP_RC) {
		fprintf(stderr, "rdx_sw: cannot connect RC QP 0x%x to a peer QP of type %u\n",
			rqp->qp_num, remote->qp_type);
		return -EPROTO;
	}
	if (strncmp(remote->driver, "sw", sizeof(remote->driver)) != 0) {
		fprintf(stderr, "rdx_sw: cannot connect to a '%.16s' peer\n", remote->driver);
		return -EPROTO;
	}
	/* remote->drv comes from a peer: the segment name must be a string */
	if (memchr(remote->drv, '\0', sizeof(remote->drv)) == NULL) {
		memcpy(dom, remote->drv, sizeof(remote->drv));
		dom[sizeof(remote->drv)] = '\0';
		fprintf(stderr, "rdx_sw: peer's segment name '%.16s...' (qp_info.drv) has no terminating NUL\n",
			dom);
		return -EPROTO;
	}
	memcpy(dom, remote->drv, sizeof(remote->drv));
	dom[sizeof(remote->drv)] = '\0';
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
static struct rdx_ah *
sw_ah_create(struct rdx_dev *dev, const struct rdx_ah_attr *attr)
{
	struct sw_dev *sd = sw_dev(dev);
	struct sw_ah *ah;
	char name[SW_NAME_LEN];
	int route;

	if (attr->port != 1) {
		fprintf(stderr, "rdx_sw: address handle on port %u: the device has port 1 only\n",
			attr->port);
		rte_errno = EINVAL;
		return NULL;
	}
	if (attr->sgid_index > 0) {
		fprintf(stderr, "rdx_sw: address handle: sgid_index %d out of range (0)\n",
			attr->sgid_index);
		rte_errno = EINVAL;
		return NULL;
	}
	if (sw_gid_to_name(attr->gid, name, sizeof(name)) != 0) {
		fprintf(stderr, "rdx_sw: address handle: gid %02x%02x:...:%02x%02x is not a sw device's GID (rdx_qp_info.gid of a sw QP)\n",
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

static int
sw_ah_destroy(struct rdx_ah *bah)
{
	struct sw_ah *ah = (struct sw_ah *)(void *)bah;

	sw_route_put(&sw_dev(bah->dev)->eng, ah->route);
	free(ah);
	return 0;
}

static uint64_t
sw_qp_retired_wr_id(const struct rdx_qp *qp, const struct rdx_wc *wc, uint16_t i)
{
	return rdx_mlx5_qp_retired_wr_id(qp, wc, i);
}

/*
 * xstats: the model's counters (struct rdx_sw_stats, "sw_" names), then the
 * mlx5 datapath counters summed over the device's QPs and CQs, destroyed
 * ones included ("dp_qp_" / "dp_cq_"), then the QPs and CQs open now.
 */
#define SW_STAT(f) { "sw_" #f, offsetof(struct rdx_sw_stats, f) }
static const struct {
	const char *name;
	size_t off;
} sw_model_xstats[] = {
	SW_STAT(doorbells), SW_STAT(bf_copies), SW_STAT(wqes), SW_STAT(recv_wqes),
	SW_STAT(cqes), SW_STAT(rnr_naks), SW_STAT(retries), SW_STAT(errors),
	SW_STAT(flushes), SW_STAT(cq_overruns), SW_STAT(device_errors),
	SW_STAT(ud_sent), SW_STAT(ud_too_long), SW_STAT(ud_drop_dest), SW_STAT(ud_inject_drop),
	SW_STAT(ud_inject_dup), SW_STAT(ud_inject_delay), SW_STAT(ud_recv),
	SW_STAT(ud_drop_no_recv), SW_STAT(ud_drop_qkey), SW_STAT(ud_recv_len_err),
};
#undef SW_STAT
_Static_assert(RTE_DIM(sw_model_xstats) * sizeof(uint64_t) == sizeof(struct rdx_sw_stats),
	       "every model counter named");

static int
sw_xstats_get(struct rdx_dev *dev, struct rdx_dev_xstat *xs, unsigned int n)
{
	struct sw_dev *sd = sw_dev(dev);
	struct rdx_sw_stats st;
	unsigned int i;

	/* a snapshot already: plain reads */
	sw_engine_stats(&sd->eng, &st);
	for (i = 0; i < RTE_DIM(sw_model_xstats); i++)
		rdx_mlx5_xstat_set(xs, n, i, sw_model_xstats[i].name,
				   *(const uint64_t *)RTE_PTR_ADD(&st, sw_model_xstats[i].off));
	return (int)rdx_mlx5_objs_xstats(&sd->objs, xs, n, i);
}

static const struct rdx_dev_ops sw_dev_ops = {
	.close = sw_close,
	.mem_alloc = sw_mem_alloc,
	.mem_reg = sw_mem_reg,
	.mem_free = sw_mem_free,
	.mem_copy_to = sw_mem_copy_to,
	.mem_copy_from = sw_mem_copy_from,
	.cq_create = sw_cq_create_op,
	.cq_destroy = sw_cq_destroy_op,
	.cq_wait = sw_cq_wait,
	.qp_create = sw_qp_create_op,
	.qp_destroy = sw_qp_destroy_op,
	.qp_info = sw_qp_info,
	.qp_connect = sw_qp_connect_op,
	.qp_retired_wr_id = sw_qp_retired_wr_id,
	.ah_create = sw_ah_create,
	.ah_destroy = sw_ah_destroy,
	.xstats_get = sw_xstats_get,
};

#define UD_ARG(i) (ud_set[i] ? ud_val[i] : NULL)

static struct rdx_dev *
sw_open(struct ibv_device *ibdev, const char *devargs, const struct rdx_dev_conf *conf)
{
	enum rdx_sw_progress progress = RDX_SW_PROGRESS_INLINE;
	static const char *const ud_keys[] = {
		"ud_drop", "ud_drop_every", "ud_delay_us", "ud_delay", "ud_dup", "seed",
	};
	char ud_val[RTE_DIM(ud_keys)][32];
	bool ud_set[RTE_DIM(ud_keys)];
	struct rdx_dev_attr *a;
	unsigned int i;
	struct sw_dev *sd;
	uint32_t wqe, inl;
	char val[16];
	int ret;

	/* devargs progress=inline|thread (lib/dev refused other keys) */
	ret = rdx_devargs_get(devargs, "progress", val, sizeof(val));
	if (ret > 0 && strcmp(val, "thread") == 0) {
		progress = RDX_SW_PROGRESS_THREAD;
	} else if (ret != 0 && (ret < 0 || strcmp(val, "inline") != 0)) {
		fprintf(stderr, "rdx_sw: bad devargs progress=%s: expected inline or thread\n",
			ret > 0 ? val : "(too long)");
		rte_errno = EINVAL;
		return NULL;
	}
	for (i = 0; i < RTE_DIM(ud_keys); i++) {
		ret = rdx_devargs_get(devargs, ud_keys[i], ud_val[i], sizeof(ud_val[i]));
		if (ret < 0) {
			fprintf(stderr, "rdx_sw: bad devargs %s: value too long\n", ud_keys[i]);
			rte_errno = EINVAL;
			return NULL;
		}
		ud_set[i] = ret > 0;
	}
	sd = calloc(1, sizeof(*sd));
	if (sd == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	ret = sw_engine_init(&sd->eng);
	if (ret != 0) {
		free(sd);
		rte_errno = -ret;
		return NULL;
	}
	/* UD loss/duplication/delay injection (devargs ud_*, seed) */
	ret = sw_ud_inject_conf(&sd->eng, UD_ARG(0), UD_ARG(1), UD_ARG(2), UD_ARG(3),
				UD_ARG(4), UD_ARG(5));
	if (ret != 0) {
		sw_engine_fini(&sd->eng);
		free(sd);
		rte_errno = -ret;
		return NULL;
	}
	sd->base.ops = &sw_dev_ops;
	rdx_mlx5_objs_init(&sd->objs);
	if (conf != NULL)
		sd->base.conf = *conf;
	sd->progress = progress;
	a = &sd->base.attr;
	snprintf(a->name, sizeof(a->name), "sw");
	snprintf(a->driver, sizeof(a->driver), "sw");
	a->software = true;
	a->max_msg_size = SW_MAX_MSG;
	/* the depth of the smallest RC WQE (one SGE, no inline: 256 B), as
	 * libmlx5 would allow; sw_qp_create_op checks each shape's own */
	a->max_qp_wr = rdx_mlx5_rc_max_send_wr(SW_MAX_QP_WR, SW_MAX_WQE_BYTES, 1, 0);
	a->max_sge = SW_MAX_SGE;
	/* the largest inline a QP can get within the largest WQE */
	sw_calc_send_wqe(0, SW_MAX_WQE_BYTES - SW_WQE_OVERHEAD - 4, &wqe, &inl);
	a->max_inline = inl;
	a->max_cqe = SW_MAX_CQE - 1;
	a->max_qp = SW_MAX_QP;
	a->atomics = true;
	a->max_dm_size = SW_MAX_DM;
	a->active_mtu = IBV_MTU_4096;
	a->link_layer = IBV_LINK_LAYER_ETHERNET;
	/* a UD message is one packet: at most the MTU (IBTA 9.8.1) */
	a->max_ud_msg = SW_UD_MTU;
	if (sd->progress == RDX_SW_PROGRESS_THREAD) {
		ret = sw_engine_start_thread(&sd->eng);
		if (ret != 0) {
			sw_engine_fini(&sd->eng);
			rdx_mlx5_objs_fini(&sd->objs);
			free(sd);
			rte_errno = -ret;
			return NULL;
		}
	}
	return &sd->base;
}

/* The device's name is "sw"; the default when there is no RDMA device. */
static bool
sw_match_name(const char *name)
{
	return strcmp(name, "sw") == 0;
}

static const char *const sw_devargs_keys[] = {
	"progress", "ud_drop", "ud_drop_every", "ud_delay_us", "ud_delay", "ud_dup", "seed", NULL,
};

static struct rdx_driver sw_driver = {
	.name = "sw",
	.desc = "the software mlx5 device",
	.match_name = sw_match_name,
	.devargs_keys = sw_devargs_keys,
	.open = sw_open,
};

RDX_DRIVER_REGISTER(sw_driver)

/* ------------------------------------------------------------------ */
/* rdx_sw.h                                                            */

int
rdx_sw_stats_get(const struct rdx_dev *dev, struct rdx_sw_stats *st)
{
	if (!rdx_sw_dev_is_sw(dev) || st == NULL)
		return -EINVAL;
	sw_engine_stats(&((struct sw_dev *)(uintptr_t)dev)->eng, st);
	return 0;
}

int
rdx_sw_progress(struct rdx_dev *dev)
{
	if (!rdx_sw_dev_is_sw(dev))
		return -EINVAL;
	return sw_engine_progress(&sw_dev(dev)->eng);
}

int
rdx_sw_qp_state(const struct rdx_qp *qp)
{
	if (qp == NULL || !rdx_sw_dev_is_sw(qp->dev))
		return -EINVAL;
	return (int)__atomic_load_n(&((const struct sw_qp *)qp)->lqp->s->state,
				    __ATOMIC_ACQUIRE);
}

uint64_t
rdx_sw_cq_overruns(const struct rdx_cq *cq)
{
	const struct sw_cq *c = (const struct sw_cq *)cq;

	if (cq == NULL || !rdx_sw_dev_is_sw(cq->dev))
		return 0;
	return __atomic_load_n(&sw_dev(cq->dev)->eng.self->hdr->cqs[c->slot].overruns,
			       __ATOMIC_RELAXED);
}

int
rdx_sw_qp_ud_stats(const struct rdx_qp *qp, struct rdx_sw_ud_stats *st)
{
	if (qp == NULL || !rdx_sw_dev_is_sw(qp->dev) || st == NULL)
		return -EINVAL;
	sw_qp_ud_stats(((const struct sw_qp *)qp)->lqp, st);
	return 0;
}

int
rdx_sw_qp_inject_error(struct rdx_qp *qp, uint32_t nth, uint8_t syndrome)
{
	struct sw_lqp *q;

	if (qp == NULL || !rdx_sw_dev_is_sw(qp->dev))
		return -EINVAL;
	q = ((struct sw_qp *)qp)->lqp;
	q->fail_syndrome = syndrome;
	__atomic_store_n(&q->fail_nth, nth, __ATOMIC_RELEASE);
	return 0;
}

int
rdx_sw_qp_peer_vanish(struct rdx_qp *qp, bool vanish)
{
	if (qp == NULL || !rdx_sw_dev_is_sw(qp->dev))
		return -EINVAL;
	__atomic_store_n(&((struct sw_qp *)qp)->lqp->peer_vanished, vanish, __ATOMIC_RELEASE);
	return 0;
}
