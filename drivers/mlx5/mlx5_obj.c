/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The mlx5 datapath's objects (control path): ring sizing both backends
 * share, handing a QP's or CQ's rings to the datapath (dp_init), the
 * doorbell registers, a CQ's QP table, the bind/unbind step both backends
 * (mlx5_hw.c, sw/sw_dev.c) run on create/destroy, and the counters of a
 * device's QPs and CQs (xstats).
 */
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "rdx_config.h"
#include "rdx_dev_driver.h"
#include "rdx_mlx5.h"
#include "mlx5_wqe.h"

static inline uint32_t
log2_u32(uint32_t v)
{
	uint32_t l = 0;

	while ((1u << l) < v)
		l++;
	return l;
}

static inline bool
is_pow2(uint32_t v)
{
	return v != 0 && (v & (v - 1)) == 0;
}

/* ---------------------------------------------------------------------- */
/* Sizing (shared with the backends)                                       */

uint32_t
rdx_mlx5_sq_wqebb_max(uint32_t max_inline, uint32_t max_send_sge)
{
	/* ctrl + raddr + (data x n | inline); atomics are ctrl+raddr+atomic+data. */
	uint32_t sge_bytes = 32 + MLX5_DS_SIZE * max_send_sge;
	uint32_t inl_bytes = max_inline == 0 ? 32 :
		32 + RTE_ALIGN_CEIL(4 + max_inline, MLX5_DS_SIZE);
	uint32_t bytes = RTE_MAX(RTE_MAX(sge_bytes, inl_bytes), 64u);

	return RTE_ALIGN_CEIL(bytes, 64u) >> MLX5_WQEBB_SHIFT;
}

uint32_t
rdx_mlx5_sq_wqe_cnt(uint32_t sq_depth, uint32_t max_inline, uint32_t max_send_sge)
{
	uint64_t bbs = (uint64_t)RTE_MAX(sq_depth, 1u) *
		rdx_mlx5_sq_wqebb_max(max_inline, max_send_sge);

	if (bbs > MLX5_MAX_SQ_WQEBB)
		return 0;
	return rte_align32pow2((uint32_t)bbs);
}

uint32_t
rdx_mlx5_ud_sq_wqebb_max(uint32_t max_inline, uint32_t max_send_sge)
{
	/* ctrl + datagram (64 bytes) + (data x n | inline); NOP alone is 1 DS. */
	uint32_t sge_bytes = 64 + MLX5_DS_SIZE * max_send_sge;
	uint32_t inl_bytes = max_inline == 0 ? 64 :
		64 + RTE_ALIGN_CEIL(4 + max_inline, MLX5_DS_SIZE);

	return RTE_ALIGN_CEIL(RTE_MAX(sge_bytes, inl_bytes), 64u) >> MLX5_WQEBB_SHIFT;
}

uint32_t
rdx_mlx5_ud_sq_wqe_cnt(uint32_t sq_depth, uint32_t max_inline, uint32_t max_send_sge)
{
	uint64_t bbs = (uint64_t)RTE_MAX(sq_depth, 1u) *
		rdx_mlx5_ud_sq_wqebb_max(max_inline, max_send_sge);

	if (bbs > MLX5_MAX_SQ_WQEBB)
		return 0;
	return rte_align32pow2((uint32_t)bbs);
}

static uint32_t
max_send_wr(uint32_t overhead, uint32_t max_send_wqebb, uint32_t max_sq_desc_sz,
	    uint32_t max_send_sge, uint32_t max_inline)
{
	/* verbs.c mlx5_calc_send_wqe: max(overhead + 16 * sge, overhead +
	 * align16(4 + inline)), aligned to 64; mlx5_calc_sq_size: the ring is
	 * roundup_pow2(wr * wqe_size) bytes, at most max_send_wqebb WQEBBs. */
	uint32_t size = overhead + MLX5_DS_SIZE * max_send_sge;
	uint64_t ring;

	if (max_inline != 0)
		size = RTE_MAX(size, overhead + RTE_ALIGN_CEIL(4 + max_inline, MLX5_DS_SIZE));
	size = RTE_ALIGN_CEIL(size, 64u);
	if (size > max_sq_desc_sz || max_send_wqebb == 0)
		return 0;
	/* The largest power-of-two ring allowed; any wr with wr * size <= ring fits. */
	ring = (uint64_t)rte_align32prevpow2(max_send_wqebb) << MLX5_WQEBB_SHIFT;
	return (uint32_t)RTE_MIN(ring / size, (uint64_t)UINT32_MAX);
}

uint32_t
rdx_mlx5_rc_max_send_wr(uint32_t max_send_wqebb, uint32_t max_sq_desc_sz,
			uint32_t max_send_sge, uint32_t max_inline)
{
	return max_send_wr(RDX_MLX5_RC_SQ_OVERHEAD, max_send_wqebb, max_sq_desc_sz,
			   max_send_sge, max_inline);
}

uint32_t
rdx_mlx5_ud_max_send_wr(uint32_t max_send_wqebb, uint32_t max_sq_desc_sz,
			uint32_t max_send_sge, uint32_t max_inline)
{
	return max_send_wr(RDX_MLX5_UD_SQ_OVERHEAD, max_send_wqebb, max_sq_desc_sz,
			   max_send_sge, max_inline);
}

void
rdx_mlx5_ah_init(struct rdx_mlx5_ah *ah, const struct mlx5_wqe_av *av)
{
	ah->av = *av;
	/* the post loops OR the WR's Q_Key and QPN into these */
	ah->av.key.qkey.qkey = 0;
	ah->av.key.qkey.reserved = 0;
	ah->av.dqp_dct = htobe32(MLX5_EXTENDED_UD_AV);
}

uint32_t
rdx_mlx5_rq_stride(uint32_t max_recv_sge)
{
	return rte_align32pow2(MLX5_DS_SIZE * RTE_MAX(max_recv_sge, 1u));
}

/* ---------------------------------------------------------------------- */
/* Control path: hand the rings to the datapath                            */

int
rdx_mlx5_qp_dp_init(struct rdx_mlx5_qp *qp, const struct mlx5dv_qp *dv,
		    uint32_t qpn, uint32_t max_inline, uint32_t max_send_sge,
		    uint32_t max_recv_sge)
{
	uint32_t wqe_cnt = dv->sq.wqe_cnt;
	const bool ud = qp->base.conf.type == RDX_QP_UD;

	if (qp->base.conf.type > RDX_QP_UD)
		return -EINVAL;
	/* UD: the WQE carries a 48-byte datagram segment too; the message
	 * limit is the device's (path MTU). */
	if (ud && (max_inline > RDX_MLX5_UD_MAX_INLINE ||
		   max_send_sge > RDX_MLX5_UD_MAX_SEND_SGE || qp->base.dev == NULL ||
		   qp->base.dev->attr.max_ud_msg == 0))
		return -EINVAL;
	if (max_inline > RDX_MLX5_MAX_INLINE || max_send_sge > RDX_MLX5_MAX_SEND_SGE ||
	    max_send_sge > RDX_MAX_SGE || max_recv_sge > RDX_MAX_SGE)
		return -EINVAL;
	if (!is_pow2(wqe_cnt) || wqe_cnt > MLX5_MAX_SQ_WQEBB || dv->sq.buf == NULL ||
	    (dv->sq.stride != 0 && dv->sq.stride != 64) || dv->dbrec == NULL)
		return -EINVAL;
	/* the RQ doorbell record holds the producer counter in 16 bits
	 * (libmlx5 writes head & 0xffff): a ring of 65536 could not tell full
	 * from empty; rings stay within the SQ's limit */
	if (dv->rq.wqe_cnt != 0 &&
	    (!is_pow2(dv->rq.wqe_cnt) || dv->rq.wqe_cnt > MLX5_MAX_SQ_WQEBB || dv->rq.buf == NULL ||
	     dv->rq.stride < rdx_mlx5_rq_stride(max_recv_sge) || !is_pow2(dv->rq.stride)))
		return -EINVAL;
	if (dv->bf.size != 0 && (dv->bf.reg == NULL || (dv->bf.size & 63) != 0))
		return -EINVAL;

	qp->sq_buf = dv->sq.buf;
	qp->sq_wqe_cnt = wqe_cnt;
	qp->sq_mask = wqe_cnt - 1;
	qp->sq_end = qp->sq_buf + ((size_t)wqe_cnt << MLX5_WQEBB_SHIFT);
	qp->sq_wqebb_max = ud ? rdx_mlx5_ud_sq_wqebb_max(max_inline, max_send_sge) :
		rdx_mlx5_sq_wqebb_max(max_inline, max_send_sge);
	qp->sq_max_post = wqe_cnt / qp->sq_wqebb_max;
	if (qp->sq_max_post == 0)
		return -EINVAL;
	qp->sq_last_slot = qp->sq_max_post - 1;
	qp->sq_cur_post = 0;
	qp->sq_head = 0;
	qp->sq_tail = 0;
	qp->sq_tail_bb = 0;
	qp->sq_unsignaled = 0;
	qp->sig_interval = RTE_MAX((uint32_t)qp->base.conf.sig_interval, 1u);
	qp->sig_last = qp->sig_interval - 1;
	qp->sig_burst_end = qp->base.conf.sig_burst_end;
	qp->qpn8 = (qpn & 0xffffff) << 8;
	sq_ctrl_op_init(qp->sq_ctrl_op, qp->qpn8);
	qp->max_inline = max_inline;
	qp->max_send_sge = max_send_sge;
	/* The inline vector runs (mlx5_qp_vec.h): RC 8-byte WRITE and SEND
	 * (QPs allowing 16 inline); UD the 8-byte SEND (QPs allowing 8). */
	if (ud)
		qp->fast_key = max_inline >= 8 && max_send_sge >= 1 ?
			WR_KEY(RDX_OP_SEND, RDX_WR_INLINE, 1) : UINT32_MAX;
	else
		qp->fast_key = max_inline >= 16 && max_send_sge >= 1 ? WR_KEY_WRITE_INL :
			UINT32_MAX;
	qp->ud = ud;
	qp->ud_max_msg = ud ? qp->base.dev->attr.max_ud_msg : 0;
	qp->dbrec = dv->dbrec;
	rdx_mlx5_bfreg_init(&qp->bf_own, dv->bf.reg, dv->bf.size);
	qp->bf_own.refs = 1;
	qp->bf = &qp->bf_own;

	qp->rq_buf = dv->rq.buf;
	qp->rq_wqe_cnt = dv->rq.wqe_cnt;
	qp->rq_mask = dv->rq.wqe_cnt != 0 ? dv->rq.wqe_cnt - 1 : 0;
	qp->rq_stride = dv->rq.stride;
	qp->rq_shift = dv->rq.wqe_cnt != 0 ? log2_u32(dv->rq.stride) : 0;
	qp->rq_head = 0;
	qp->rq_tail = 0;
	qp->max_recv_sge = max_recv_sge;
	memset(&qp->stats, 0, sizeof(qp->stats));
	memset(&qp->errs, 0, sizeof(qp->errs));

	qp->sq_wrid = calloc(wqe_cnt, sizeof(*qp->sq_wrid));
	qp->sq_sig = calloc(wqe_cnt, sizeof(*qp->sq_sig));
	qp->rq_wrid = calloc(RTE_MAX(qp->rq_wqe_cnt, 1u), sizeof(*qp->rq_wrid));
	qp->sq_lenerr = ud ? calloc(wqe_cnt, sizeof(*qp->sq_lenerr)) : NULL;
	if (qp->sq_wrid == NULL || qp->sq_sig == NULL || qp->rq_wrid == NULL ||
	    (ud && qp->sq_lenerr == NULL)) {
		rdx_mlx5_qp_dp_fini(qp);
		return -ENOMEM;
	}

	qp->base.qp_num = qpn;
	qp->base.conf.sq_depth = qp->sq_max_post;
	qp->base.conf.rq_depth = qp->rq_wqe_cnt;
	qp->base.conf.max_inline = max_inline;
	qp->base.conf.max_send_sge = max_send_sge;
	qp->base.conf.max_recv_sge = max_recv_sge;
	qp->base.post_burst = ud ? rdx_mlx5_post_burst_ud : rdx_mlx5_post_burst;
	qp->base.post_recv_burst = rdx_mlx5_post_recv_burst;
	return 0;
}

/* rdma-core mlx5.c get_shut_up_bf / get_always_bf: set and not "0". */
static bool
env_set(const char *name, bool unset)
{
	const char *v = getenv(name);

	return v == NULL ? unset : strcmp(v, "0") != 0;
}

void
rdx_mlx5_bfreg_init(struct rdx_mlx5_bfreg *bf, void *reg, uint32_t size)
{
	memset(bf, 0, sizeof(*bf));
	if (reg == NULL) {
		/* No register (rings go nowhere): the ring path needs no test. */
		reg = &bf->sink;
		size = 0;
	}
	bf->reg = reg;
	bf->size = size;
	/* MLX5_SHUT_UP_BF: post_send_db never copies, rings with 8 bytes (the
	 * halves still alternate: bf->offset toggles by buf_size). A copy is
	 * made of whole 64-byte chunks: the largest one fits the half. */
	bf->copy_max = env_set("MLX5_SHUT_UP_BF", false) ? 0 : size & ~63u;
	/* MLX5_POST_SEND_PREFER_BF (default on): copy any small WQE, not
	 * only inline ones. */
	bf->prefer_bf = env_set("MLX5_POST_SEND_PREFER_BF", true);
}

int
rdx_mlx5_qp_bfreg_share(struct rdx_mlx5_qp *qp, struct rdx_mlx5_bfreg *bf)
{
	if (bf == NULL || qp->bf_own.reg == (uint8_t *)&qp->bf_own.sink ||
	    bf->reg != qp->bf_own.reg || bf->size != qp->bf_own.size)
		return -EINVAL;
	if (qp->bf != &qp->bf_own)
		qp->bf->refs--;
	bf->refs++;
	qp->bf = bf;
	return 0;
}

void
rdx_mlx5_qp_bfreg_unshare(struct rdx_mlx5_qp *qp)
{
	if (qp->bf != NULL && qp->bf != &qp->bf_own)
		qp->bf->refs--;
	qp->bf = &qp->bf_own;
}

void
rdx_mlx5_qp_dp_fini(struct rdx_mlx5_qp *qp)
{
	rdx_mlx5_qp_bfreg_unshare(qp);
	free(qp->sq_wrid);
	free(qp->sq_sig);
	free(qp->rq_wrid);
	free(qp->sq_lenerr);
	qp->sq_lenerr = NULL;
	qp->sq_wrid = NULL;
	qp->sq_sig = NULL;
	qp->rq_wrid = NULL;
}

int
rdx_mlx5_cq_dp_init(struct rdx_mlx5_cq *cq, const struct mlx5dv_cq *dv,
		    uint32_t cqn, uint32_t max_qps)
{
	uint32_t tbl;

	if (!is_pow2(dv->cqe_cnt) || dv->buf == NULL || dv->dbrec == NULL ||
	    (dv->cqe_size != 64 && dv->cqe_size != 128) || dv->cqe_cnt > (1u << 24))
		return -EINVAL;
	max_qps = RTE_MAX(max_qps, 1u);
	if (max_qps > (1u << 24))
		return -EINVAL;
	tbl = rte_align32pow2(2 * max_qps);
	cq->qp_tbl = calloc(tbl, sizeof(*cq->qp_tbl));
	if (cq->qp_tbl == NULL)
		return -ENOMEM;
	cq->qp_tbl_mask = tbl - 1;
	cq->nb_qps = 0;
	cq->max_qps = max_qps;
	cq->last_qp = RDX_MLX5_NO_QP;
	cq->buf = dv->buf;
	cq->dbrec = dv->dbrec;
	cq->cons_index = 0;
	cq->cqe_cnt = dv->cqe_cnt;
	cq->cqe_mask = dv->cqe_cnt - 1;
	cq->log_cqe_cnt = log2_u32(dv->cqe_cnt);
	cq->cqe_size = dv->cqe_size;
	cq->cqe_shift = log2_u32(dv->cqe_size);
	/* With 128-byte CQEs the 64-byte CQE is the second half (cq.c). */
	cq->cqe_off = dv->cqe_size - 64;
	cq->cqe64 = cq->buf + cq->cqe_off;
	cq->cqn = cqn;
	memset(&cq->stats, 0, sizeof(cq->stats));
	cq->base.poll_burst = rdx_mlx5_cq_poll_op(cq);
	cq->base.conf.depth = dv->cqe_cnt;
	return 0;
}

void
rdx_mlx5_cq_dp_fini(struct rdx_mlx5_cq *cq)
{
	free(cq->qp_tbl);
	cq->qp_tbl = NULL;
	cq->nb_qps = 0;
	cq->last_qp = RDX_MLX5_NO_QP;
}

static void
cq_tbl_insert(struct rdx_mlx5_cq *cq, struct rdx_mlx5_qp *qp)
{
	uint32_t h = qp->base.qp_num & cq->qp_tbl_mask;

	while (cq->qp_tbl[h] != NULL)
		h = (h + 1) & cq->qp_tbl_mask;
	cq->qp_tbl[h] = qp;
}

int
rdx_mlx5_cq_attach(struct rdx_mlx5_cq *cq, struct rdx_mlx5_qp *qp)
{
	uint32_t h = qp->base.qp_num & cq->qp_tbl_mask;

	if (cq->qp_tbl == NULL)
		return -EINVAL;
	for (; cq->qp_tbl[h] != NULL; h = (h + 1) & cq->qp_tbl_mask) {
		if (cq->qp_tbl[h] == qp)
			return 0;
		if (cq->qp_tbl[h]->base.qp_num == qp->base.qp_num)
			return -EEXIST;
	}
	if (cq->nb_qps >= cq->max_qps)
		return -ENOSPC;
	cq->qp_tbl[h] = qp;
	cq->nb_qps++;
	return 0;
}

void
rdx_mlx5_cq_detach(struct rdx_mlx5_cq *cq, struct rdx_mlx5_qp *qp)
{
	uint32_t i, h, n = cq->qp_tbl_mask + 1;

	if (cq->qp_tbl == NULL)
		return;
	if (cq->last_qp == qp)
		cq->last_qp = RDX_MLX5_NO_QP;
	for (h = 0; h < n && cq->qp_tbl[h] != qp; h++)
		;
	if (h == n)
		return;
	cq->qp_tbl[h] = NULL;
	cq->nb_qps--;
	/* Re-seat the rest of the probe run (linear probing deletion). */
	for (i = (h + 1) & cq->qp_tbl_mask; cq->qp_tbl[i] != NULL;
	     i = (i + 1) & cq->qp_tbl_mask) {
		struct rdx_mlx5_qp *q = cq->qp_tbl[i];

		cq->qp_tbl[i] = NULL;
		cq_tbl_insert(cq, q);
	}
}

/* ---------------------------------------------------------------------- */
/* Counters of a device's QPs and CQs (control path)                       */

struct mlx5_xstat_off {
	const char *name;
	size_t off;
};

#define QP_XSTAT(f) { "dp_qp_" #f, offsetof(struct rdx_mlx5_qp_stats, f) }
/* [0] is every ring: rdx_mlx5_objs_xstats adds [1], the BlueFlame ones. */
#define QP_XSTAT_DOORBELLS 0
#define QP_XSTAT_BF_POSTS 1
static const struct mlx5_xstat_off mlx5_qp_xstats[] = {
	{ "dp_qp_doorbells", offsetof(struct rdx_mlx5_qp_stats, db_plain) },
	QP_XSTAT(bf_posts), QP_XSTAT(wqes), QP_XSTAT(sq_full),
	QP_XSTAT(bad_wr), QP_XSTAT(recv_doorbells), QP_XSTAT(recvs),
};
#undef QP_XSTAT
#define CQ_XSTAT(f) { "dp_cq_" #f, offsetof(struct rdx_mlx5_cq_stats, f) }
static const struct mlx5_xstat_off mlx5_cq_xstats[] = {
	CQ_XSTAT(polls), CQ_XSTAT(cqes), CQ_XSTAT(errors), CQ_XSTAT(unknown_qpn),
};
#undef CQ_XSTAT
_Static_assert(RTE_DIM(mlx5_qp_xstats) == RDX_MLX5_XSTATS_QP &&
	       sizeof(struct rdx_mlx5_qp_stats) == RDX_MLX5_XSTATS_QP * sizeof(uint64_t) &&
	       RTE_DIM(mlx5_cq_xstats) == RDX_MLX5_XSTATS_CQ &&
	       sizeof(struct rdx_mlx5_cq_stats) == RDX_MLX5_XSTATS_CQ * sizeof(uint64_t),
	       "xstats tables name every datapath counter");

/* sum[i] += counter i of one QP's or CQ's stats. The datapath bumps them
 * on its lcore without atomics: relaxed 64-bit loads are torn-free on
 * 64-bit hosts, and statistics need no ordering. */
static void
xstats_add(uint64_t *sum, const void *st, const struct mlx5_xstat_off *t, unsigned int nb)
{
	unsigned int i;

	for (i = 0; i < nb; i++) {
		const uint64_t *p = RTE_PTR_ADD(st, t[i].off);

		sum[i] += __atomic_load_n(p, __ATOMIC_RELAXED);
	}
}

void
rdx_mlx5_objs_init(struct rdx_mlx5_objs *o)
{
	memset(o, 0, sizeof(*o));
	pthread_mutex_init(&o->lock, NULL);
	TAILQ_INIT(&o->qps);
	TAILQ_INIT(&o->cqs);
}

void
rdx_mlx5_objs_fini(struct rdx_mlx5_objs *o)
{
	pthread_mutex_destroy(&o->lock);
}

void
rdx_mlx5_objs_qp_add(struct rdx_mlx5_objs *o, struct rdx_mlx5_qp *qp)
{
	pthread_mutex_lock(&o->lock);
	TAILQ_INSERT_TAIL(&o->qps, qp, objs_next);
	o->nb_qps++;
	pthread_mutex_unlock(&o->lock);
}

void
rdx_mlx5_objs_qp_del(struct rdx_mlx5_objs *o, struct rdx_mlx5_qp *qp)
{
	pthread_mutex_lock(&o->lock);
	TAILQ_REMOVE(&o->qps, qp, objs_next);
	o->nb_qps--;
	xstats_add(o->gone_qp, &qp->stats, mlx5_qp_xstats, RDX_MLX5_XSTATS_QP);
	pthread_mutex_unlock(&o->lock);
}

void
rdx_mlx5_objs_cq_add(struct rdx_mlx5_objs *o, struct rdx_mlx5_cq *cq)
{
	pthread_mutex_lock(&o->lock);
	TAILQ_INSERT_TAIL(&o->cqs, cq, objs_next);
	o->nb_cqs++;
	pthread_mutex_unlock(&o->lock);
}

void
rdx_mlx5_objs_cq_del(struct rdx_mlx5_objs *o, struct rdx_mlx5_cq *cq)
{
	pthread_mutex_lock(&o->lock);
	TAILQ_REMOVE(&o->cqs, cq, objs_next);
	o->nb_cqs--;
	xstats_add(o->gone_cq, &cq->stats, mlx5_cq_xstats, RDX_MLX5_XSTATS_CQ);
	pthread_mutex_unlock(&o->lock);
}

void
rdx_mlx5_xstat_set(struct rdx_dev_xstat *xs, unsigned int n, unsigned int k,
		   const char *name, uint64_t value)
{
	if (k >= n)
		return;
	snprintf(xs[k].name, sizeof(xs[k].name), "%s", name);
	xs[k].value = value;
}

unsigned int
rdx_mlx5_objs_xstats(struct rdx_mlx5_objs *o, struct rdx_dev_xstat *xs, unsigned int n,
		     unsigned int k)
{
	uint64_t qs[RDX_MLX5_XSTATS_QP], cs[RDX_MLX5_XSTATS_CQ];
	unsigned int i, nb_qps, nb_cqs;
	struct rdx_mlx5_qp *qp;
	struct rdx_mlx5_cq *cq;

	pthread_mutex_lock(&o->lock);
	memcpy(qs, o->gone_qp, sizeof(qs));
	memcpy(cs, o->gone_cq, sizeof(cs));
	TAILQ_FOREACH(qp, &o->qps, objs_next)
		xstats_add(qs, &qp->stats, mlx5_qp_xstats, RDX_MLX5_XSTATS_QP);
	TAILQ_FOREACH(cq, &o->cqs, objs_next)
		xstats_add(cs, &cq->stats, mlx5_cq_xstats, RDX_MLX5_XSTATS_CQ);
	nb_qps = o->nb_qps;
	nb_cqs = o->nb_cqs;
	pthread_mutex_unlock(&o->lock);
	qs[QP_XSTAT_DOORBELLS] += qs[QP_XSTAT_BF_POSTS];
	for (i = 0; i < RDX_MLX5_XSTATS_QP; i++)
		rdx_mlx5_xstat_set(xs, n, k++, mlx5_qp_xstats[i].name, qs[i]);
	for (i = 0; i < RDX_MLX5_XSTATS_CQ; i++)
		rdx_mlx5_xstat_set(xs, n, k++, mlx5_cq_xstats[i].name, cs[i]);
	rdx_mlx5_xstat_set(xs, n, k++, "qps_open", nb_qps);
	rdx_mlx5_xstat_set(xs, n, k++, "cqs_open", nb_cqs);
	return k;
}


/* ---------------------------------------------------------------------- */
/* Bind / unbind: the step both backends share                             */

int
rdx_mlx5_cq_bind(struct rdx_mlx5_objs *o, struct rdx_mlx5_cq *cq, struct rdx_dev *dev,
		 const struct rdx_cq_conf *conf, const struct mlx5dv_cq *dv, uint32_t max_qps)
{
	int ret;

	cq->base.dev = dev;
	cq->base.conf = *conf;
	ret = rdx_mlx5_cq_dp_init(cq, dv, dv->cqn, max_qps);
	if (ret != 0)
		return ret;
	rdx_mlx5_objs_cq_add(o, cq);
	return 0;
}

void
rdx_mlx5_cq_unbind(struct rdx_mlx5_objs *o, struct rdx_mlx5_cq *cq)
{
	rdx_mlx5_objs_cq_del(o, cq);
	rdx_mlx5_cq_dp_fini(cq);
}

int
rdx_mlx5_qp_bind(struct rdx_mlx5_objs *o, struct rdx_mlx5_qp *qp, struct rdx_dev *dev,
		 const struct rdx_qp_conf *conf, const struct mlx5dv_qp *dv, uint32_t qpn,
		 uint32_t max_inline, uint32_t max_send_sge, uint32_t max_recv_sge)
{
	struct rdx_mlx5_cq *scq = (struct rdx_mlx5_cq *)conf->send_cq;
	struct rdx_mlx5_cq *rcq = (struct rdx_mlx5_cq *)conf->recv_cq;
	int ret;

	qp->base.dev = dev;
	qp->base.conf = *conf;
	qp->base.user_ctx = conf->user_ctx;
	qp->base.qp_num = qpn;
	/* dp_init sets the granted depths and limits in conf */
	ret = rdx_mlx5_qp_dp_init(qp, dv, qpn, max_inline, max_send_sge, max_recv_sge);
	if (ret != 0)
		return ret;
	ret = rdx_mlx5_cq_attach(scq, qp);
	if (ret == 0 && rcq != scq) {
		ret = rdx_mlx5_cq_attach(rcq, qp);
		if (ret != 0)
			rdx_mlx5_cq_detach(scq, qp);
	}
	if (ret != 0) {
		rdx_mlx5_qp_dp_fini(qp);
		return ret;
	}
	rdx_mlx5_objs_qp_add(o, qp);
	return 0;
}

void
rdx_mlx5_qp_unbind(struct rdx_mlx5_objs *o, struct rdx_mlx5_qp *qp)
{
	struct rdx_mlx5_cq *scq = (struct rdx_mlx5_cq *)qp->base.conf.send_cq;
	struct rdx_mlx5_cq *rcq = (struct rdx_mlx5_cq *)qp->base.conf.recv_cq;

	rdx_mlx5_objs_qp_del(o, qp);
	rdx_mlx5_cq_detach(scq, qp);
	if (rcq != scq)
		rdx_mlx5_cq_detach(rcq, qp);
	rdx_mlx5_qp_dp_fini(qp);
}
