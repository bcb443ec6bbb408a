/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The mlx5 direct datapath: build RC WQEs straight into the send queue,
 * ring once per burst (BlueFlame for one small WQE), post receive batches,
 * and poll 64-byte CQEs by owner bit. Shaped like rdma-core's
 * providers/mlx5 qp.c/cq.c: small set_*_seg helpers, checks marked
 * unlikely, one always-inline poll loop. Formats and rules:
 * doc/mlx5-datapath.md (sections 1-5) and the datapath/device
 * contract.
 *
 * Fast path (post/post_recv/poll): no allocation, locks, syscalls, logging
 * or division; every index is masked.
 */
#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_atomic.h>
#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_byteorder.h>
#include <rte_io.h>
#include <rte_vect.h>

#include <infiniband/verbs.h>

#include "rdx_config.h"
#include "rdx_mlx5.h"

#define MLX5_WQEBB_SHIFT 6      /* MLX5_SEND_WQE_BB = 64 */
#define MLX5_DS_SIZE 16u        /* DS unit (kernel qp.h) */
#define MLX5_MAX_SQ_WQEBB 32768u /* ordinals are tracked in 16 bits */

/* enum rdx_op -> mlx5 WQE opcode (mlx5-datapath.md §1 shapes). */
static const uint8_t rdx_mlx5_wqe_opcode[RDX_OP_MAX] = {
	[RDX_OP_NOP] = MLX5_OPCODE_NOP,
	[RDX_OP_SEND] = MLX5_OPCODE_SEND,
	[RDX_OP_SEND_IMM] = MLX5_OPCODE_SEND_IMM,
	[RDX_OP_WRITE] = MLX5_OPCODE_RDMA_WRITE,
	[RDX_OP_WRITE_IMM] = MLX5_OPCODE_RDMA_WRITE_IMM,
	[RDX_OP_READ] = MLX5_OPCODE_RDMA_READ,
	[RDX_OP_CAS] = MLX5_OPCODE_ATOMIC_CS,
	[RDX_OP_FAA] = MLX5_OPCODE_ATOMIC_FA,
};

/*
 * rdx_wr.flags (SIGNALED 1, INLINE 2, FENCE 4, SOLICITED 8) -> ctrl
 * fm_ce_se. rdma-core: IBV_SEND_FENCE -> MLX5_WQE_CTRL_FENCE (0x80, "small
 * and fence"), IBV_SEND_SOLICITED -> 0x02, IBV_SEND_SIGNALED -> CQ_UPDATE.
 */
#define FM(f) ((uint8_t)((((f) & RDX_WR_SIGNALED) ? MLX5_WQE_CTRL_CQ_UPDATE : 0) | \
			  (((f) & RDX_WR_FENCE) ? MLX5_WQE_CTRL_FENCE : 0) | \
			  (((f) & RDX_WR_SOLICITED) ? MLX5_WQE_CTRL_SOLICITED : 0)))
/*
 * Placed where fm_ce_se sits in ctrl bytes 8..15 read as one
 * native word ([signature, dci(2), fm_ce_se, imm(4)]), so the fast path
 * builds that word with one load and one OR.
 */
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
#define W1_FM_SHIFT 24
#define W1_IMM(imm) ((uint64_t)(imm) << 32)
#else
#define W1_FM_SHIFT 32
#define W1_IMM(imm) ((uint64_t)(imm))
#endif
#define W1(f) ((uint64_t)FM(f) << W1_FM_SHIFT)
#define W1_CQ_UPDATE ((uint64_t)MLX5_WQE_CTRL_CQ_UPDATE << W1_FM_SHIFT)
static const uint64_t rdx_mlx5_w1_fm[16] = {
	W1(0), W1(1), W1(2), W1(3), W1(4), W1(5), W1(6), W1(7),
	W1(8), W1(9), W1(10), W1(11), W1(12), W1(13), W1(14), W1(15),
};
#undef W1
#undef FM

/* Fast-path key: opcode, flags & INLINE, num_sge of a WR read as one word. */
_Static_assert(offsetof(struct rdx_wr, flags) == offsetof(struct rdx_wr, opcode) + 1 &&
	       offsetof(struct rdx_wr, num_sge) == offsetof(struct rdx_wr, opcode) + 2 &&
	       sizeof(struct rdx_wr) >= offsetof(struct rdx_wr, opcode) + 4,
	       "rdx_wr opcode/flags/num_sge layout");
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
#define WR_KEY(op, fl, nsge) ((uint32_t)(op) | (uint32_t)(fl) << 8 | (uint32_t)(nsge) << 16)
#define WR_KEY_FLAGS(key) ((key) >> 8)
#else
#define WR_KEY(op, fl, nsge) ((uint32_t)(op) << 24 | (uint32_t)(fl) << 16 | (uint32_t)(nsge) << 8)
#define WR_KEY_FLAGS(key) ((key) >> 16)
#endif
/* The fast paths take INLINE and SIGNALED only (SIGNALED is tested apart). */
#define WR_KEY_MASK WR_KEY(0xff, RDX_WR_INLINE | RDX_WR_FENCE | RDX_WR_SOLICITED, 0xff)
#define WR_KEY_SIGNALED WR_KEY(0, RDX_WR_SIGNALED, 0)
#define WR_KEY_WRITE_INL WR_KEY(RDX_OP_WRITE, RDX_WR_INLINE, 1)
/* XOR turning the WRITE fast key into the SEND one (UINT32_MAX stays unmatched). */
#define WR_KEY_WRITE_TO_SEND (WR_KEY(RDX_OP_WRITE, 0, 0) ^ WR_KEY(RDX_OP_SEND, 0, 0))
/* XOR turning a native ctrl word 0 of an RDMA_WRITE into a SEND's. */
#define W0_WRITE_TO_SEND ((uint64_t)(MLX5_OPCODE_RDMA_WRITE ^ MLX5_OPCODE_SEND) << 32)

/*
 * mlx5 WQE opcode (requester CQE sop_drop_qpn[31:24]) -> enum rdx_wc_opcode,
 * indexed by the whole byte (no range check on the fast path).
 */
#define REQ_WC_UNKNOWN_4 RDX_WC_UNKNOWN, RDX_WC_UNKNOWN, RDX_WC_UNKNOWN, RDX_WC_UNKNOWN
#define REQ_WC_UNKNOWN_16 REQ_WC_UNKNOWN_4, REQ_WC_UNKNOWN_4, REQ_WC_UNKNOWN_4, REQ_WC_UNKNOWN_4
static const uint8_t rdx_mlx5_req_wc_opcode[256] = {
	RDX_WC_NOP, RDX_WC_SEND, RDX_WC_UNKNOWN, RDX_WC_UNKNOWN, /* 0x00 */
	REQ_WC_UNKNOWN_4, /* 0x04 */
	RDX_WC_WRITE, RDX_WC_WRITE, RDX_WC_SEND, RDX_WC_SEND, /* 0x08 */
	REQ_WC_UNKNOWN_4, /* 0x0c */
	RDX_WC_READ, RDX_WC_CAS, RDX_WC_FAA, RDX_WC_UNKNOWN, /* 0x10 */
	REQ_WC_UNKNOWN_4, REQ_WC_UNKNOWN_4, REQ_WC_UNKNOWN_4, /* 0x14 */
	REQ_WC_UNKNOWN_16, REQ_WC_UNKNOWN_16, REQ_WC_UNKNOWN_16, /* 0x20 */
	REQ_WC_UNKNOWN_16, REQ_WC_UNKNOWN_16, REQ_WC_UNKNOWN_16, REQ_WC_UNKNOWN_16, /* 0x50 */
	REQ_WC_UNKNOWN_16, REQ_WC_UNKNOWN_16, REQ_WC_UNKNOWN_16, REQ_WC_UNKNOWN_16, /* 0x90 */
	REQ_WC_UNKNOWN_16, REQ_WC_UNKNOWN_16, REQ_WC_UNKNOWN_16, /* 0xd0 */
};
#undef REQ_WC_UNKNOWN_16
#undef REQ_WC_UNKNOWN_4
_Static_assert(RDX_WC_UNKNOWN != 0, "unlisted opcodes must not read as NOP");

/* rdx_wc.byte_len of a good requester CQE by WQE opcode: READ -> the CQE's
 * byte_cnt, atomics 8 (cq.c), everything else 0. */
#define REQ_LEN_FROM_CQE 0xffu
static const uint8_t rdx_mlx5_req_byte_len[256] = {
	[MLX5_OPCODE_RDMA_READ] = REQ_LEN_FROM_CQE,
	[MLX5_OPCODE_ATOMIC_CS] = 8,
	[MLX5_OPCODE_ATOMIC_FA] = 8,
};

/*
 * Between two adjacent 8-byte WQE stores: keeps gcc's SLP vectoriser from
 * pairing them into an SSE insert + 16-byte store (more instructions).
 * A compiler-only barrier; the loops keep their state in locals.
 */
#define NO_STORE_PAIRING() rte_compiler_barrier()

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
rdx_mlx5_rc_max_send_wr(uint32_t max_send_wqebb, uint32_t max_sq_desc_sz,
			uint32_t max_send_sge, uint32_t max_inline)
{
	/* verbs.c mlx5_calc_send_wqe: max(overhead + 16 * sge, overhead +
	 * align16(4 + inline)), aligned to 64; mlx5_calc_sq_size: the ring is
	 * roundup_pow2(wr * wqe_size) bytes, at most max_send_wqebb WQEBBs. */
	uint32_t size = RDX_MLX5_RC_SQ_OVERHEAD + MLX5_DS_SIZE * max_send_sge;
	uint64_t ring;

	if (max_inline != 0)
		size = RTE_MAX(size, RDX_MLX5_RC_SQ_OVERHEAD +
			       RTE_ALIGN_CEIL(4 + max_inline, MLX5_DS_SIZE));
	size = RTE_ALIGN_CEIL(size, 64u);
	if (size > max_sq_desc_sz || max_send_wqebb == 0)
		return 0;
	/* The largest power-of-two ring allowed; any wr with wr * size <= ring fits. */
	ring = (uint64_t)rte_align32prevpow2(max_send_wqebb) << MLX5_WQEBB_SHIFT;
	return (uint32_t)RTE_MIN(ring / size, (uint64_t)UINT32_MAX);
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

	if (max_inline > RDX_MLX5_MAX_INLINE || max_send_sge > RDX_MLX5_MAX_SEND_SGE ||
	    max_send_sge > RDX_MAX_SGE || max_recv_sge > RDX_MAX_SGE)
		return -EINVAL;
	if (!is_pow2(wqe_cnt) || wqe_cnt > MLX5_MAX_SQ_WQEBB || dv->sq.buf == NULL ||
	    (dv->sq.stride != 0 && dv->sq.stride != 64) || dv->dbrec == NULL)
		return -EINVAL;
	if (dv->rq.wqe_cnt != 0 &&
	    (!is_pow2(dv->rq.wqe_cnt) || dv->rq.buf == NULL ||
	     dv->rq.stride < rdx_mlx5_rq_stride(max_recv_sge) || !is_pow2(dv->rq.stride)))
		return -EINVAL;
	if (dv->bf.size != 0 && (dv->bf.reg == NULL || (dv->bf.size & 63) != 0))
		return -EINVAL;

	qp->sq_buf = dv->sq.buf;
	qp->sq_wqe_cnt = wqe_cnt;
	qp->sq_mask = wqe_cnt - 1;
	qp->sq_end = qp->sq_buf + ((size_t)wqe_cnt << MLX5_WQEBB_SHIFT);
	qp->sq_wqebb_max = rdx_mlx5_sq_wqebb_max(max_inline, max_send_sge);
	qp->sq_max_post = wqe_cnt / qp->sq_wqebb_max;
	if (qp->sq_max_post == 0)
		return -EINVAL;
	qp->sq_cur_post = 0;
	qp->sq_head = 0;
	qp->sq_tail = 0;
	qp->sq_tail_bb = 0;
	qp->sq_unsignaled = 0;
	qp->sig_interval = RTE_MAX((uint32_t)qp->base.conf.sig_interval, 1u);
	qp->sig_burst_end = qp->base.conf.sig_burst_end;
	qp->qpn_be8 = htobe32((qpn & 0xffffff) << 8);
	qp->max_inline = max_inline;
	qp->max_send_sge = max_send_sge;
	/* The inline fast paths (WRITE, SEND) take 8..16 bytes (QPs allowing 16 inline). */
	qp->fast_key = max_inline >= 16 && max_send_sge >= 1 ? WR_KEY_WRITE_INL : UINT32_MAX;
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

	qp->sq_wrid = calloc(wqe_cnt, sizeof(*qp->sq_wrid));
	qp->sq_sig = calloc(wqe_cnt, sizeof(*qp->sq_sig));
	qp->rq_wrid = calloc(RTE_MAX(qp->rq_wqe_cnt, 1u), sizeof(*qp->rq_wrid));
	if (qp->sq_wrid == NULL || qp->sq_sig == NULL || qp->rq_wrid == NULL) {
		rdx_mlx5_qp_dp_fini(qp);
		return -ENOMEM;
	}

	qp->base.qp_num = qpn;
	qp->base.conf.sq_depth = qp->sq_max_post;
	qp->base.conf.rq_depth = qp->rq_wqe_cnt;
	qp->base.conf.max_inline = max_inline;
	qp->base.conf.max_send_sge = max_send_sge;
	qp->base.conf.max_recv_sge = max_recv_sge;
	qp->base.post_burst = rdx_mlx5_post_burst;
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
	 * halves still alternate: bf->offset toggles by buf_size). */
	bf->copy_max = env_set("MLX5_SHUT_UP_BF", false) ? 0 : size;
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
rdx_mlx5_qp_dp_fini(struct rdx_mlx5_qp *qp)
{
	if (qp->bf != NULL && qp->bf != &qp->bf_own)
		qp->bf->refs--;
	qp->bf = &qp->bf_own;
	free(qp->sq_wrid);
	free(qp->sq_sig);
	free(qp->rq_wrid);
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
	cq->last_qp = NULL;
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
	cq->base.poll_burst = rdx_mlx5_poll_burst;
	cq->base.conf.depth = dv->cqe_cnt;
	return 0;
}

void
rdx_mlx5_cq_dp_fini(struct rdx_mlx5_cq *cq)
{
	free(cq->qp_tbl);
	cq->qp_tbl = NULL;
	cq->nb_qps = 0;
	cq->last_qp = NULL;
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
		cq->last_qp = NULL;
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
static const struct mlx5_xstat_off mlx5_qp_xstats[] = {
	QP_XSTAT(doorbells), QP_XSTAT(bf_posts), QP_XSTAT(wqes), QP_XSTAT(sq_full),
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
	for (i = 0; i < RDX_MLX5_XSTATS_QP; i++)
		rdx_mlx5_xstat_set(xs, n, k++, mlx5_qp_xstats[i].name, qs[i]);
	for (i = 0; i < RDX_MLX5_XSTATS_CQ; i++)
		rdx_mlx5_xstat_set(xs, n, k++, mlx5_cq_xstats[i].name, cs[i]);
	rdx_mlx5_xstat_set(xs, n, k++, "qps_open", nb_qps);
	rdx_mlx5_xstat_set(xs, n, k++, "cqs_open", nb_cqs);
	return k;
}

/* ---------------------------------------------------------------------- */
/* Send                                                                    */

/* Segments continue at the start of the ring past its end (§1 wrap rule). */
static __rte_always_inline uint8_t *
sq_wrap(const struct rdx_mlx5_qp *qp, uint8_t *seg)
{
	if (unlikely(seg == qp->sq_end))
		return qp->sq_buf;
	return seg;
}

static __rte_always_inline void
set_raddr_seg(uint8_t *seg, uint64_t raddr, uint32_t rkey)
{
	struct mlx5_wqe_raddr_seg *r = (struct mlx5_wqe_raddr_seg *)(void *)seg;
	/* rkey and the reserved word as one 8-byte store */
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	uint64_t rk = htobe32(rkey);
#else
	uint64_t rk = (uint64_t)rkey << 32;
#endif

	r->raddr = htobe64(raddr);
	NO_STORE_PAIRING();
	memcpy(&r->rkey, &rk, sizeof(rk));
}

static __rte_always_inline void
set_atomic_seg(uint8_t *seg, const struct rdx_wr *wr)
{
	struct mlx5_wqe_atomic_seg *a = (struct mlx5_wqe_atomic_seg *)(void *)seg;

	/* Operands are big-endian in the WQE (mlx5-datapath.md §5). */
	if (wr->opcode == RDX_OP_CAS) {
		a->swap_add = htobe64(wr->swap);
		a->compare = htobe64(wr->compare_add);
	} else {
		a->swap_add = htobe64(wr->compare_add);
		a->compare = 0;
	}
}

/*
 * Inline segment, general case: several SGEs and/or bytes that split at the
 * SQ end (segments continue at sq.buf: rdma-core set_data_inl_seg, UCX
 * txwq wrap). Returns the DS count (0 for no payload), UINT32_MAX when the
 * payload exceeds max_inline.
 */
static __rte_noinline uint32_t
set_inline_seg_slow(const struct rdx_mlx5_qp *qp, uint8_t *seg, const struct rdx_wr *wr)
{
	const struct rdx_sge *sge = wr->sge;
	uint8_t *dst = seg + sizeof(struct mlx5_wqe_inl_data_seg);
	uint32_t total = 0, j;

	for (j = 0; j < wr->num_sge; j++)
		total += sge[j].length;
	if (total > qp->max_inline)
		return UINT32_MAX;
	/* set_data_inl_seg: no payload, no segment (not even the header). */
	if (total == 0)
		return 0;
	for (j = 0; j < wr->num_sge; j++) {
		const uint8_t *src = (const uint8_t *)(uintptr_t)sge[j].addr;
		uint32_t len = sge[j].length;
		uint32_t room = (uint32_t)(qp->sq_end - dst);

		if (len >= room) {
			memcpy(dst, src, room);
			src += room;
			len -= room;
			dst = qp->sq_buf;
		}
		memcpy(dst, src, len);
		dst += len;
	}
	((struct mlx5_wqe_inl_data_seg *)(void *)seg)->byte_count =
		htobe32(total | MLX5_INLINE_SEG);
	return (total + 4 + MLX5_DS_SIZE - 1) >> 4;   /* align16(4 + len) / 16 */
}

/* Data segments, zero-length SGEs skipped (rdma-core set_data_ptr_seg). */
static __rte_always_inline uint32_t
set_data_segs(const struct rdx_mlx5_qp *qp, uint8_t *seg, const struct rdx_wr *wr)
{
	uint32_t ds = 0, j;

	for (j = 0; j < wr->num_sge; j++) {
		const struct rdx_sge *sge = &wr->sge[j];

		if (unlikely(sge->length == 0))
			continue;
		seg = sq_wrap(qp, seg);
		mlx5dv_set_data_seg((struct mlx5_wqe_data_seg *)(void *)seg, sge->length,
				    sge->lkey, (uintptr_t)sge->addr);
		seg += MLX5_DS_SIZE;
		ds++;
	}
	return ds;
}

/* Was the payload of this posted WR written inline (build_wqe's rule)? */
static inline bool
wr_inline(const struct rdx_wr *wr)
{
	return (wr->flags & RDX_WR_INLINE) && wr->num_sge != 0 &&
		(wr->opcode == RDX_OP_SEND || wr->opcode == RDX_OP_SEND_IMM ||
		 wr->opcode == RDX_OP_WRITE || wr->opcode == RDX_OP_WRITE_IMM);
}

/*
 * General WQE builder (every opcode, gather lists, multi-SGE or wrapping
 * inline): writes the segments after ctrl, sets *imm and returns the DS
 * count, or 0 for an invalid WR (nothing is posted for it).
 */
static __rte_noinline uint32_t
build_wqe(const struct rdx_mlx5_qp *qp, uint8_t *ctrl, const struct rdx_wr *wr,
	  uint32_t *imm)
{
	uint8_t *seg = ctrl + sizeof(struct mlx5_wqe_ctrl_seg);
	uint32_t ds = 1, nds;

	*imm = 0;
	if (unlikely(wr->num_sge > qp->max_send_sge))
		return 0;
	switch (wr->opcode) {
	case RDX_OP_NOP:
		return 1;
	case RDX_OP_READ:
		/* ctrl + raddr + scatter list; INLINE means nothing here */
		set_raddr_seg(seg, wr->remote_addr, wr->rkey);
		return 2 + set_data_segs(qp, seg + MLX5_DS_SIZE, wr);
	case RDX_OP_CAS:
	case RDX_OP_FAA:
		/* ctrl + raddr + atomic + data = DS 4: one WQEBB, never wraps */
		if (wr->num_sge != 1 || wr->sge[0].length != 8)
			return 0;
		set_raddr_seg(seg, wr->remote_addr, wr->rkey);
		set_atomic_seg(seg + MLX5_DS_SIZE, wr);
		mlx5dv_set_data_seg((struct mlx5_wqe_data_seg *)(void *)(seg + 2 * MLX5_DS_SIZE),
				    8, wr->sge[0].lkey, (uintptr_t)wr->sge[0].addr);
		return 4;
	case RDX_OP_WRITE_IMM:
		*imm = wr->imm;
		/* fall through */
	case RDX_OP_WRITE:
		set_raddr_seg(seg, wr->remote_addr, wr->rkey);
		seg += MLX5_DS_SIZE;
		ds = 2;
		break;
	case RDX_OP_SEND_IMM:
		*imm = wr->imm;
		break;
	case RDX_OP_SEND:
		break;
	default:
		return 0;
	}
	/* SEND / WRITE payload: inline (rdma-core: only with SGEs) or gather list. */
	if (!(wr->flags & RDX_WR_INLINE) || wr->num_sge == 0)
		return ds + set_data_segs(qp, seg, wr);
	nds = set_inline_seg_slow(qp, seg, wr);
	return nds == UINT32_MAX ? 0 : ds + nds;
}

/*
 * One 64-byte chunk into the BlueFlame buffer: four 16-byte stores on
 * x86-64 (what rdma-core's mmio_memcpy_x64 does there with SSE), else
 * eight 8-byte MMIO writes. Ordered by the rte_wmb() calls around it.
 */
static __rte_always_inline void
bf_copy64(volatile uint8_t *dst, const uint8_t *src)
{
#if defined(RTE_ARCH_X86_64) && defined(__SSE2__)
	const __m128i x0 = _mm_loadu_si128((const __m128i *)(const void *)src);
	const __m128i x1 = _mm_loadu_si128((const __m128i *)(const void *)(src + 16));
	const __m128i x2 = _mm_loadu_si128((const __m128i *)(const void *)(src + 32));
	const __m128i x3 = _mm_loadu_si128((const __m128i *)(const void *)(src + 48));

	_mm_storeu_si128((__m128i *)(uintptr_t)dst, x0);
	_mm_storeu_si128((__m128i *)(uintptr_t)(dst + 16), x1);
	_mm_storeu_si128((__m128i *)(uintptr_t)(dst + 32), x2);
	_mm_storeu_si128((__m128i *)(uintptr_t)(dst + 48), x3);
#else
	uint64_t w0, w1, w2, w3, w4, w5, w6, w7;

	memcpy(&w0, src, 8);
	memcpy(&w1, src + 8, 8);
	memcpy(&w2, src + 16, 8);
	memcpy(&w3, src + 24, 8);
	memcpy(&w4, src + 32, 8);
	memcpy(&w5, src + 40, 8);
	memcpy(&w6, src + 48, 8);
	memcpy(&w7, src + 56, 8);
	rte_write64_relaxed(w0, dst);
	rte_write64_relaxed(w1, dst + 8);
	rte_write64_relaxed(w2, dst + 16);
	rte_write64_relaxed(w3, dst + 24);
	rte_write64_relaxed(w4, dst + 32);
	rte_write64_relaxed(w5, dst + 40);
	rte_write64_relaxed(w6, dst + 48);
	rte_write64_relaxed(w7, dst + 56);
#endif
}

/* The whole WQE, in 64-byte chunks, wrapping at the SQ end (mmio_memcpy_x64). */
static __rte_always_inline void
bf_copy(const struct rdx_mlx5_qp *qp, volatile uint8_t *dst, const uint8_t *src,
	uint32_t nbb)
{
	bf_copy64(dst, src);
	while (unlikely(--nbb > 0)) {
		dst += 64;
		src += 64;
		if (src == qp->sq_end)
			src = qp->sq_buf;
		bf_copy64(dst, src);
	}
}

/*
 * Ring once for the burst (rdma-core post_send_db / DPDK mlx5_doorbell_ring):
 * the WQEs reach memory before the doorbell record, the record before the
 * MMIO write, and the MMIO write is flushed before the next half is used.
 */
static __rte_always_inline void
sq_ring(struct rdx_mlx5_qp *qp, const struct mlx5_wqe_ctrl_seg *last, uint32_t cur_post,
	uint16_t nreq, bool fast_only, bool inl)
{
	struct rdx_mlx5_bfreg *const bf = qp->bf;
	volatile uint8_t *reg;
	uint64_t db;

	/* udma_to_device_barrier: WQE stores before the dbrec store. */
	rte_io_wmb();
	qp->dbrec[MLX5_SND_DBR] = htobe32(cur_post & 0xffff);
	/* mmio_wc_start: dbrec store before the write-combining MMIO. */
	rte_wmb();
	qp->stats.doorbells++;
	reg = bf->reg + bf->offset;
	/*
	 * post_send_db copies the WQE when: one WR, a BlueFlame register
	 * (bf.size 0 for uuarn 0, MLX5_SHUT_UP_BF), inline or prefer_bf, more
	 * than one 16-byte unit, and it fits a half.
	 */
	if (fast_only) {
		/* Fast shapes: inline, DS 2..4, one WQEBB: they fit any half
		 * (bf.size is a non-zero multiple of 64). */
		if (nreq == 1 && bf->copy_max != 0) {
			bf_copy64(reg, (const uint8_t *)last);
			qp->stats.bf_posts++;
			goto flush;
		}
	} else if (nreq == 1) {
		const uint32_t last_ds = be32toh(last->qpn_ds) & 0x3f;

		if (last_ds > 1 && last_ds * MLX5_DS_SIZE <= bf->copy_max &&
		    (inl || bf->prefer_bf)) {
			bf_copy(qp, reg, (const uint8_t *)last, (last_ds + 3) >> 2);
			qp->stats.bf_posts++;
			goto flush;
		}
	}
	/* Plain doorbell: ctrl bytes 0..7 of the last WQE, as stored. */
	memcpy(&db, last, sizeof(db));
	rte_write64_relaxed(db, reg);
flush:
	/* mmio_flush_writes: push the WC buffer out before the next use. */
	rte_wmb();
	bf->offset ^= bf->size;
}

/*
 * Inline segment of 8..16 bytes from one SGE, inside the current WQEBB:
 * header, then two overlapping 8-byte moves (no libc call).
 */
static __rte_always_inline void
set_inline_small(uint8_t *inl, const uint8_t *src, uint32_t len)
{
	uint64_t a, b;

	memcpy(&a, src, 8);
	memcpy(&b, src + len - 8, 8);
	((struct mlx5_wqe_inl_data_seg *)(void *)inl)->byte_count =
		htobe32(len | MLX5_INLINE_SEG);
	memcpy(inl + 4, &a, 8);
	memcpy(inl + 4 + len - 8, &b, 8);
}

/* Inline segment of exactly 8 bytes: constant header, one 8-byte move. */
static __rte_always_inline void
set_inline_8(uint8_t *inl, const uint8_t *src)
{
	const uint32_t hdr = RTE_BE32(8u | MLX5_INLINE_SEG);
	uint64_t a;

	memcpy(&a, src, 8);
	memcpy(inl, &hdr, sizeof(hdr));
	memcpy(inl + 4, &a, 8);
}

/* The ctrl segment of the WQE at WQEBB counter bb. */
static __rte_always_inline struct mlx5_wqe_ctrl_seg *
sq_ctrl(uint8_t *sq_buf, uint32_t bb, uint32_t mask)
{
	return (struct mlx5_wqe_ctrl_seg *)(void *)(sq_buf + ((size_t)(bb & mask) << MLX5_WQEBB_SHIFT));
}

/*
 * The fast shapes: an inline RDMA_WRITE or SEND of 8..16 bytes from one SGE
 * (the QP's max_inline >= 16, else fast_key never matches; no FENCE or
 * SOLICITED): ctrl + [raddr] + inline = DS 2..4, always inside one WQEBB.
 * Writes the segments after ctrl and sets *w0 to ctrl bytes 0..7 as a
 * native word without the WQE index; false for any other WR (nothing
 * written). The WR is read before the WQE stores, which may alias it.
 */
static __rte_always_inline bool
build_fast(uint8_t *ctrl, const struct rdx_wr *wr, uint32_t key, uint32_t fast_key,
	   uint64_t w0_write, uint64_t *w0)
{
	const uint32_t shape = key & WR_KEY_MASK;
	const struct rdx_sge *sge;
	const uint8_t *src;
	uint32_t len;

	if (likely(shape == fast_key)) {
		sge = wr->sge;
		len = sge->length;
		src = (const uint8_t *)(uintptr_t)sge->addr;
		if (likely(len == 8)) {
			set_raddr_seg(ctrl + MLX5_DS_SIZE, wr->remote_addr, wr->rkey);
			set_inline_8(ctrl + 2 * MLX5_DS_SIZE, src);
			*w0 = w0_write | 3;
			return true;
		}
		if (unlikely(len - 9 > 7))
			return false;
		set_raddr_seg(ctrl + MLX5_DS_SIZE, wr->remote_addr, wr->rkey);
		set_inline_small(ctrl + 2 * MLX5_DS_SIZE, src, len);
		/* DS = 2 + align16(4 + len) / 16 */
		*w0 = w0_write | ((len + 4 + 2 * MLX5_DS_SIZE + MLX5_DS_SIZE - 1) >> 4);
		return true;
	}
	if (shape == (fast_key ^ WR_KEY_WRITE_TO_SEND)) {
		sge = wr->sge;
		len = sge->length;
		src = (const uint8_t *)(uintptr_t)sge->addr;
		w0_write ^= W0_WRITE_TO_SEND;
		if (likely(len == 8)) {
			set_inline_8(ctrl + MLX5_DS_SIZE, src);
			*w0 = w0_write | 2;
			return true;
		}
		if (unlikely(len - 9 > 7))
			return false;
		set_inline_small(ctrl + MLX5_DS_SIZE, src, len);
		/* DS = 1 + align16(4 + len) / 16 */
		*w0 = w0_write | ((len + 4 + MLX5_DS_SIZE + MLX5_DS_SIZE - 1) >> 4);
		return true;
	}
	return false;
}

/*
 * Control segment bytes 0..7, [opmod 0, idx(2), opcode][qpn(3), ds], are
 * built native (qpn << 8 | ds low, opcode at bit 32, idx at bit 40) and
 * swapped as one 64-bit word: the bytes mlx5dv_set_ctrl_seg() stores.
 * Bytes 8..15 are [signature 0, dci(2) 0, fm_ce_se, imm(4)], one word too.
 */
static __rte_always_inline void
set_ctrl(uint8_t *ctrl, uint64_t w0, uint32_t cur_post, uint64_t w1)
{
	w0 = rte_cpu_to_be_64(w0 | (uint64_t)(uint16_t)cur_post << 40);
	memcpy(ctrl, &w0, sizeof(w0));
	NO_STORE_PAIRING();
	memcpy(ctrl + 8, &w1, sizeof(w1));
}

/*
 * End of a burst: burst-end signaling, the counters, one doorbell.
 * nreq WRs were posted (nreq >= 1), last is the last one's ctrl;
 * fast_only: all of them are fast shapes (one WQEBB each).
 */
static __rte_always_inline uint16_t
post_finish(struct rdx_mlx5_qp *qp, struct mlx5_wqe_ctrl_seg *last, uint32_t cur_post,
	    uint32_t head, uint32_t sig_base, uint16_t nreq, bool fast_only, bool inl)
{
	if (qp->sig_burst_end && head != sig_base) {
		/* Not rung yet: the device cannot have read this WQE. */
		const size_t lidx = (size_t)((uint8_t *)last - qp->sq_buf) >> MLX5_WQEBB_SHIFT;

		last->fm_ce_se |= MLX5_WQE_CTRL_CQ_UPDATE;
		qp->sq_sig[lidx].ord = (uint16_t)(head - 1);
		qp->sq_sig[lidx].next_bb = (uint16_t)cur_post;
		sig_base = head;
	}
	qp->sq_cur_post = cur_post;
	qp->sq_head = head;
	qp->sq_unsignaled = head - sig_base;
	qp->stats.wqes += nreq;
	sq_ring(qp, last, cur_post, nreq, fast_only, inl);
	return nreq;
}

/*
 * The general post loop (every WR shape). done WRs of this burst are posted
 * already (their state is in qp, last is the last one's ctrl, NULL if
 * none); this posts up to n more and rings once for all of them.
 */
static __rte_noinline uint16_t
post_general(struct rdx_mlx5_qp *qp, const struct rdx_wr *wr, uint16_t n, uint16_t done,
	     struct mlx5_wqe_ctrl_seg *last)
{
	uint8_t *const sq_buf = qp->sq_buf;
	uint64_t *const wrid = qp->sq_wrid;
	struct rdx_mlx5_sq_sig *const sig = qp->sq_sig;
	const uint32_t mask = qp->sq_mask;
	const uint32_t fast_key = qp->fast_key;
	const uint32_t sig_interval = qp->sig_interval;
	const uint64_t qpn8 = rte_be_to_cpu_32(qp->qpn_be8);
	const uint64_t w0_write = (uint64_t)MLX5_OPCODE_RDMA_WRITE << 32 | qpn8;
	const uint32_t tail = qp->sq_tail;
	const uint32_t last_slot = tail + qp->sq_max_post - 1;
	uint32_t head = qp->sq_head;
	const uint32_t room = qp->sq_max_post - (head - tail);
	const struct rdx_wr *const end = wr + RTE_MIN((uint32_t)n, room);
	uint32_t cur_post = qp->sq_cur_post;
	/* Ordinal after the last signaled WQE, and the next one that must be
	 * signaled: at most sig_interval apart, and the WQE that takes the
	 * last free slot (so a full SQ always has a CQE coming: no deadlock). */
	uint32_t sig_base = head - qp->sq_unsignaled;
	uint32_t forced = head + RTE_MIN(sig_interval - 1 - qp->sq_unsignaled,
					 last_slot - head);
	uint16_t nreq, posted;
	bool inl = true;

	while (wr != end) {
		const uint32_t idx = cur_post & mask;
		uint8_t *const ctrl = sq_buf + ((size_t)idx << MLX5_WQEBB_SHIFT);
		uint32_t key, nbb = 1;
		uint64_t w0, w1 = 0;

		memcpy(&key, &wr->opcode, sizeof(key));
		if (!build_fast(ctrl, wr, key, fast_key, w0_write, &w0)) {
			uint32_t imm;
			const uint32_t ds = build_wqe(qp, ctrl, wr, &imm);

			if (unlikely(ds == 0))
				break;
			w0 = (uint64_t)rdx_mlx5_wqe_opcode[wr->opcode] << 32 | qpn8 | ds;
			nbb = (ds + 3) >> 2;
			w1 = W1_IMM(imm) | rdx_mlx5_w1_fm[WR_KEY_FLAGS(key) & 0xf];
		}
		if (unlikely((key & WR_KEY_SIGNALED) || head == forced)) {
			w1 |= W1_CQ_UPDATE;
			sig_base = head + 1;
			forced = head + RTE_MIN(sig_interval, last_slot - head);
			/* Only signaled WQEs get good CQEs: only they need the
			 * WQEBB -> WQE map (errors/flushes walk the ring). */
			sig[idx].ord = (uint16_t)head;
			sig[idx].next_bb = (uint16_t)(cur_post + nbb);
		}
		set_ctrl(ctrl, w0, cur_post, w1);
		cur_post += nbb;
		wrid[head & mask] = wr->wr_id;
		head++;
		last = (struct mlx5_wqe_ctrl_seg *)(void *)ctrl;
		wr++;
	}
	nreq = (uint16_t)(head - qp->sq_head);   /* one ordinal per WR posted */
	if (unlikely(nreq < n)) {
		if (wr < end)
			qp->stats.bad_wr++;
		else
			qp->stats.sq_full++;
	}
	posted = nreq;
	nreq = (uint16_t)(nreq + done);
	if (unlikely(nreq == 0))
		return 0;
	/* BlueFlame needs the one WR's inline flag (post_send_db's inl): the
	 * caller's fast WR (done) is inline, else it is wr[-1]. */
	if (nreq == 1 && posted == 1)
		inl = wr_inline(wr - 1);
	return post_finish(qp, last, cur_post, head, sig_base, nreq, false, inl);
}

/*
 * ctrl bytes 0..7 as stored (big-endian), read back as one native word: the
 * WQE index's low byte (byte 2) sits this far up, so while that byte does
 * not carry, the next WQE's word is this word plus W0BE_IDX_ONE.
 */
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
#define W0BE_IDX_ONE ((uint64_t)1 << 16)
#else
#define W0BE_IDX_ONE ((uint64_t)1 << 40)
#endif
/* Two 64-bit lanes (GCC vector extension): one 16-byte store, one add. */
typedef uint64_t rdx_v2u64 __attribute__((vector_size(16)));

/* A run takes one WR shape: every flag bit is compared. */
#define WR_KEY_EXACT_MASK WR_KEY(0xff, 0xff, 0xff)
/* The shapes that start a run: INLINE, with or without SIGNALED. */
#define WR_KEY_RUN_MASK WR_KEY(0xff, 0xff & ~RDX_WR_SIGNALED, 0xff)

/*
 * Bytes 28..35 of an 8-byte inline RDMA_WRITE: the raddr segment's reserved
 * word (0) and the inline header, as one native word.
 */
static __rte_always_inline uint64_t
rsv_inline8_word(void)
{
	const uint32_t w[2] = { 0, RTE_BE32(8u | MLX5_INLINE_SEG) };
	uint64_t v;

	memcpy(&v, w, sizeof(v));
	return v;
}

/*
 * A run of 8-byte inline RDMA_WRITEs (send: SENDs), all of the exact shape
 * key want, into consecutive WQEBBs, unsignaled (the caller sets CQ_UPDATE
 * on the last one afterwards when it must be signaled). The caller bounds
 * the run (span) so that it wraps neither the ring nor the wr_id array and
 * does not carry the WQE index's low byte: ctrl word 0 then steps by a
 * constant in its stored form (no per-WQE swap), word 1 is 0. Stops early
 * at a WR of another shape; returns the number of WQEs written.
 */
static __rte_always_inline uint32_t
post_run(uint8_t *ctrl, uint64_t *wid, uint64_t w0be, const struct rdx_wr *wr,
	 const uint32_t span, const uint32_t want, const bool send)
{
	uint64_t *const wid_end = wid + span;
	/* ctrl bytes 0..15 as one vector: word 0 as stored, word 1 zero */
	rdx_v2u64 ctrl16 = { w0be, 0 };
	const rdx_v2u64 step = { W0BE_IDX_ONE, 0 };
	const uint64_t rsv_inl = rsv_inline8_word();
	intptr_t i;

	/* Counts up to 0: one register indexes the wr_id slots and ends the loop. */
	for (i = -(intptr_t)span; i != 0; i++) {
		const struct rdx_sge *sge;
		const uint8_t *src;
		uint64_t payload;
		uint32_t key;

		memcpy(&key, &wr->opcode, sizeof(key));
		if (unlikely((key & WR_KEY_EXACT_MASK) != want))
			break;
		sge = wr->sge;
		if (unlikely(sge->length != 8))
			break;
		src = (const uint8_t *)(uintptr_t)sge->addr;
		if (send) {
			set_inline_8(ctrl + MLX5_DS_SIZE, src);
		} else {
			struct mlx5_wqe_raddr_seg *r =
				(struct mlx5_wqe_raddr_seg *)(void *)(ctrl + MLX5_DS_SIZE);

			r->raddr = htobe64(wr->remote_addr);
			r->rkey = htobe32(wr->rkey);
			memcpy(&payload, src, sizeof(payload));
			/* reserved + inline header, then the payload */
			memcpy(&r->reserved, &rsv_inl, sizeof(rsv_inl));
			memcpy(ctrl + 2 * MLX5_DS_SIZE + 4, &payload, sizeof(payload));
		}
		memcpy(ctrl, &ctrl16, sizeof(ctrl16));
		ctrl16 += step;
		wid_end[i] = wr->wr_id;
		ctrl += 1u << MLX5_WQEBB_SHIFT;
		wr++;
	}
	return (uint32_t)((intptr_t)span + i);
}

/*
 * A burst of one WR (latency tests; usually the BlueFlame copy): the fast
 * shapes without the run bookkeeping, anything else through post_general.
 */
static __rte_always_inline uint16_t
post_single(struct rdx_mlx5_qp *qp, const struct rdx_wr *wr)
{
	const uint32_t tail = qp->sq_tail;
	const uint32_t head = qp->sq_head;
	const uint32_t cur_post = qp->sq_cur_post;
	const uint32_t idx = cur_post & qp->sq_mask;
	struct mlx5_wqe_ctrl_seg *const ctrl = sq_ctrl(qp->sq_buf, idx, qp->sq_mask);
	const uint64_t w0_write = (uint64_t)MLX5_OPCODE_RDMA_WRITE << 32 |
		rte_be_to_cpu_32(qp->qpn_be8);
	uint32_t key, unsig = qp->sq_unsignaled;
	uint64_t w0, w1 = 0;

	if (unlikely(head - tail >= qp->sq_max_post)) {
		qp->stats.sq_full++;
		return 0;
	}
	memcpy(&key, &wr->opcode, sizeof(key));
	if (!build_fast((uint8_t *)ctrl, wr, key, qp->fast_key, w0_write, &w0))
		return post_general(qp, wr, 1, 0, NULL);
	/* post_general's rule for one WQE: by flag, the sig_interval-th, the
	 * last free slot, or the burst's end. */
	if ((key & WR_KEY_SIGNALED) || unsig + 1 >= qp->sig_interval ||
	    head - tail == qp->sq_max_post - 1 || qp->sig_burst_end) {
		w1 = W1_CQ_UPDATE;
		unsig = 0;
		qp->sq_sig[idx].ord = (uint16_t)head;
		qp->sq_sig[idx].next_bb = (uint16_t)(cur_post + 1);
	} else {
		unsig++;
	}
	set_ctrl((uint8_t *)ctrl, w0, cur_post, w1);
	qp->sq_wrid[head & qp->sq_mask] = wr->wr_id;
	qp->sq_cur_post = cur_post + 1;
	qp->sq_head = head + 1;
	qp->sq_unsignaled = unsig;
	qp->stats.wqes++;
	sq_ring(qp, ctrl, cur_post + 1, 1, true, true);
	return 1;
}

/*
 * The fast path: runs of 8-byte inline WRITEs or SENDs (post_run), each up
 * to and including the next WQE that must be signaled (by the interval or
 * by its SIGNALED flag), which gets its CQ_UPDATE bit after the run:
 * nothing is rung yet, so the device cannot have read it. No calls inside
 * (the first WR of another shape hands the rest of the burst to
 * post_general, which rings once for all), so the state stays in registers.
 */
uint16_t
rdx_mlx5_post_burst(struct rdx_qp *bqp, const struct rdx_wr *wr, uint16_t n)
{
	struct rdx_mlx5_qp *qp = (struct rdx_mlx5_qp *)bqp;
	/*
	 * The loop works on locals: the WQE stores may alias the QP (char and
	 * uint32 stores) and would force reloads otherwise.
	 */
	uint8_t *const sq_buf = qp->sq_buf;
	uint64_t *const wrid = qp->sq_wrid;
	const uint32_t mask = qp->sq_mask;
	/* Runs end where the ring or the index's low byte wraps. */
	const uint32_t run_mask = RTE_MIN(mask, 0xffu);
	const uint32_t fast_key = qp->fast_key;
	const uint32_t send_key = fast_key ^ WR_KEY_WRITE_TO_SEND;
	const uint64_t w0_write = (uint64_t)MLX5_OPCODE_RDMA_WRITE << 32 |
		rte_be_to_cpu_32(qp->qpn_be8) | 3;
	const uint32_t tail = qp->sq_tail;
	const uint32_t head0 = qp->sq_head;
	const uint32_t room = qp->sq_max_post - (head0 - tail);
	const uint32_t unsignaled = qp->sq_unsignaled;
	uint32_t left = RTE_MIN((uint32_t)n, room);
	uint32_t cur_post = qp->sq_cur_post;
	uint32_t head = head0;
	/* As in post_general: the next ordinal that must be signaled
	 * (forced >= head while WRs remain). */
	uint32_t sig_base = head - unsignaled;
	uint32_t forced = head + RTE_MIN(qp->sig_interval - 1 - unsignaled, room - 1);
	uint16_t nreq;

	if (n == 1)
		return post_single(qp, wr);
	while (left != 0) {
		uint8_t *const ctrl = sq_buf + ((size_t)(cur_post & mask) << MLX5_WQEBB_SHIFT);
		const uint64_t idx_w0 = w0_write | (uint64_t)(uint16_t)cur_post << 40;
		uint32_t key, shape, span, k;

		memcpy(&key, &wr->opcode, sizeof(key));
		shape = key & WR_KEY_RUN_MASK;
		if (unlikely(shape != fast_key && shape != send_key))
			break;
		span = RTE_MIN(forced - head + 1, left);
		if (key & WR_KEY_SIGNALED)
			span = 1;
		span = RTE_MIN(span, run_mask + 1 - (cur_post & run_mask));
		span = RTE_MIN(span, mask + 1 - (head & mask));
		if (shape == fast_key)
			k = post_run(ctrl, wrid + (head & mask), rte_cpu_to_be_64(idx_w0), wr,
				     span, key & WR_KEY_EXACT_MASK, false);
		else
			k = post_run(ctrl, wrid + (head & mask),
				     rte_cpu_to_be_64((idx_w0 ^ W0_WRITE_TO_SEND) - 1), wr,
				     span, key & WR_KEY_EXACT_MASK, true);
		if (unlikely(k == 0))
			break;
		cur_post += k;
		head += k;
		left -= k;
		wr += k;
		if (head - 1 == forced || (key & WR_KEY_SIGNALED)) {
			/* The run's last WQE is the one to signal. */
			const uint32_t sidx = (cur_post - 1) & mask;

			sq_ctrl(sq_buf, sidx, mask)->fm_ce_se = MLX5_WQE_CTRL_CQ_UPDATE;
			qp->sq_sig[sidx].ord = (uint16_t)(head - 1);
			qp->sq_sig[sidx].next_bb = (uint16_t)cur_post;
			sig_base = head;
			forced = head - 1 + RTE_MIN(qp->sig_interval,
						    tail + qp->sq_max_post - head);
		}
	}
	nreq = (uint16_t)(head - head0);
	if (unlikely(left != 0)) {
		/* A WR the runs do not take: the general loop posts it and the
		 * rest, and rings once for the whole burst. */
		qp->sq_cur_post = cur_post;
		qp->sq_head = head;
		qp->sq_unsignaled = head - sig_base;
		return post_general(qp, wr, (uint16_t)(n - nreq), nreq, nreq == 0 ? NULL :
				    sq_ctrl(sq_buf, cur_post - 1, mask));
	}
	if (unlikely(nreq < n))
		qp->stats.sq_full++;
	if (unlikely(nreq == 0))
		return 0;
	/* Fast WQEs are one WQEBB each: the last one is at cur_post - 1. */
	return post_finish(qp, sq_ctrl(sq_buf, cur_post - 1, mask), cur_post, head, sig_base,
			   nreq, true, true);
}

/* ---------------------------------------------------------------------- */
/* Receive                                                                 */

uint16_t
rdx_mlx5_post_recv_burst(struct rdx_qp *bqp, const struct rdx_recv_wr *wr, uint16_t n)
{
	struct rdx_mlx5_qp *qp = (struct rdx_mlx5_qp *)bqp;
	const uint32_t max_gs = qp->rq_stride >> 4;     /* 16-byte data segments */
	uint32_t head = qp->rq_head;
	uint32_t room = qp->rq_wqe_cnt - (head - qp->rq_tail);
	uint32_t lim = RTE_MIN((uint32_t)n, room);
	uint16_t i;

	for (i = 0; i < lim; i++, wr++) {
		struct mlx5_wqe_data_seg *seg = (struct mlx5_wqe_data_seg *)(void *)
			(qp->rq_buf + ((size_t)(head & qp->rq_mask) << qp->rq_shift));
		uint32_t j, used = 0;

		if (unlikely(wr->num_sge > qp->max_recv_sge))
			break;
		for (j = 0; j < wr->num_sge; j++) {
			if (unlikely(wr->sge[j].length == 0))
				continue;
			mlx5dv_set_data_seg(&seg[used++], wr->sge[j].length,
					    wr->sge[j].lkey, (uintptr_t)wr->sge[j].addr);
		}
		/* Fewer segments than the stride holds: terminate the list
		 * (mlx5_post_recv: j < rq.max_gs, max_gs = stride / 16). */
		if (used < max_gs)
			mlx5dv_set_data_seg(&seg[used], 0, MLX5_INVALID_LKEY, 0);
		qp->rq_wrid[head & qp->rq_mask] = wr->wr_id;
		head++;
	}
	if (unlikely(i == 0))
		return 0;
	qp->rq_head = head;
	/* udma_to_device_barrier: RQ WQEs before the doorbell record. */
	rte_io_wmb();
	qp->dbrec[MLX5_RCV_DBR] = htobe32(head & 0xffff);
	qp->stats.recv_doorbells++;
	qp->stats.recvs += i;
	return i;
}

/* ---------------------------------------------------------------------- */
/* Completions                                                             */

uint8_t
rdx_mlx5_syndrome_to_status(uint8_t syndrome)
{
	/* rdma-core cq.c mlx5_handle_error_cqe */
	switch (syndrome) {
	case MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR:
		return IBV_WC_LOC_LEN_ERR;
	case MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR:
		return IBV_WC_LOC_QP_OP_ERR;
	case MLX5_CQE_SYNDROME_LOCAL_PROT_ERR:
		return IBV_WC_LOC_PROT_ERR;
	case MLX5_CQE_SYNDROME_WR_FLUSH_ERR:
		return IBV_WC_WR_FLUSH_ERR;
	case MLX5_CQE_SYNDROME_MW_BIND_ERR:
		return IBV_WC_MW_BIND_ERR;
	case MLX5_CQE_SYNDROME_BAD_RESP_ERR:
		return IBV_WC_BAD_RESP_ERR;
	case MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR:
		return IBV_WC_LOC_ACCESS_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR:
		return IBV_WC_REM_INV_REQ_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR:
		return IBV_WC_REM_ACCESS_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_OP_ERR:
		return IBV_WC_REM_OP_ERR;
	case MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR:
		return IBV_WC_RETRY_EXC_ERR;
	case MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR:
		return IBV_WC_RNR_RETRY_EXC_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR:
		return IBV_WC_REM_ABORT_ERR;
	default:
		return IBV_WC_GENERAL_ERR;
	}
}

static __rte_noinline struct rdx_mlx5_qp *
cq_lookup_qp(struct rdx_mlx5_cq *cq, uint32_t qpn)
{
	uint32_t h = qpn & cq->qp_tbl_mask;
	struct rdx_mlx5_qp *qp;

	while ((qp = cq->qp_tbl[h]) != NULL) {
		if (qp->base.qp_num == qpn) {
			cq->last_qp = qp;
			return qp;
		}
		h = (h + 1) & cq->qp_tbl_mask;
	}
	return NULL;
}

/* WQEBBs of the WQE at counter bb, from its ctrl DS (the ring keeps every
 * unretired WQE intact). */
static __rte_always_inline uint32_t
sq_wqe_nbb(const struct rdx_mlx5_qp *qp, uint32_t bb)
{
	const struct mlx5_wqe_ctrl_seg *c = (const struct mlx5_wqe_ctrl_seg *)(const void *)
		(qp->sq_buf + ((size_t)(bb & qp->sq_mask) << MLX5_WQEBB_SHIFT));

	return ((be32toh(c->qpn_ds) & 0x3f) + 3) >> 2;
}

/*
 * Ordinal of the outstanding WQE starting at WQEBB counter wqe_ctr, by
 * walking the ring from the oldest unretired WQE (error and flush CQEs,
 * which may name unsignaled WQEs). False when no outstanding WQE starts there.
 */
static __rte_noinline bool
sq_find_ord(const struct rdx_mlx5_qp *qp, uint16_t wqe_ctr, uint32_t *ord)
{
	uint32_t bb = qp->sq_tail_bb, o;

	for (o = qp->sq_tail; o != qp->sq_head; o++) {
		if ((uint16_t)bb == wqe_ctr) {
			*ord = o;
			return true;
		}
		bb += sq_wqe_nbb(qp, bb);
	}
	return false;
}

/*
 * Fill a completion. On little-endian hosts as three word stores plus the
 * two pointers: [byte_len, imm], [qp_num, vendor_err], [retired, status,
 * opcode] are adjacent in struct rdx_wc.
 */
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
_Static_assert(offsetof(struct rdx_wc, imm) == offsetof(struct rdx_wc, byte_len) + 4 &&
	       offsetof(struct rdx_wc, vendor_err) == offsetof(struct rdx_wc, qp_num) + 4 &&
	       offsetof(struct rdx_wc, status) == offsetof(struct rdx_wc, retired) + 2 &&
	       offsetof(struct rdx_wc, opcode) == offsetof(struct rdx_wc, retired) + 3,
	       "rdx_wc layout");
#endif
static __rte_always_inline void
wc_set(struct rdx_wc *wc, uint64_t wr_id, void *qp_ctx, uint32_t byte_len, uint32_t imm,
       uint32_t qp_num, uint32_t retired, uint8_t opcode)
{
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	const uint64_t w_len = (uint64_t)byte_len | (uint64_t)imm << 32;
	const uint64_t w_qpn = qp_num;   /* vendor_err 0 */
	const uint32_t w_ret = retired | (uint32_t)IBV_WC_SUCCESS << 16 | (uint32_t)opcode << 24;

	wc->wr_id = wr_id;
	wc->qp_ctx = qp_ctx;
	memcpy(&wc->byte_len, &w_len, sizeof(w_len));
	NO_STORE_PAIRING();
	memcpy(&wc->qp_num, &w_qpn, sizeof(w_qpn));
	memcpy(&wc->retired, &w_ret, sizeof(w_ret));
#else
	wc->wr_id = wr_id;
	wc->qp_ctx = qp_ctx;
	wc->byte_len = byte_len;
	wc->imm = imm;
	wc->qp_num = qp_num;
	wc->vendor_err = 0;
	wc->retired = (uint16_t)retired;
	wc->status = IBV_WC_SUCCESS;
	wc->opcode = opcode;
#endif
}

/*
 * A good requester CQE (opcode REQ; qp is the QP it names): retire the send
 * WQEs up to the signaled one at its wqe_counter (selective signaling: one
 * CQE completes every earlier WQE, libmlx5 "tail = wqe_head[idx] + 1").
 * Everything comes from the WQEBB's sq_sig entry: no ring read. False (and
 * nothing changed) for a counter that names no outstanding signaled WQE.
 */
static __rte_always_inline bool
cqe_req_good(struct rdx_mlx5_qp *qp, volatile struct mlx5_cqe64 *cqe, uint32_t sop,
	struct rdx_wc *wc)
{
	const uint8_t op = (uint8_t)(sop >> 24);
	const uint32_t mask = qp->sq_mask;
	const struct rdx_mlx5_sq_sig sig = qp->sq_sig[be16toh(cqe->wqe_counter) & mask];
	const uint32_t tail = qp->sq_tail;
	const uint32_t retired = (uint16_t)(sig.ord - (uint16_t)tail) + 1u;
	uint32_t last, blen;

	if (unlikely(retired > qp->sq_head - tail))
		return false;
	last = tail + retired - 1;
	/* byte_cnt is meaningful for READ only; atomics report 8 (cq.c). */
	blen = rdx_mlx5_req_byte_len[op];
	if (unlikely(blen == REQ_LEN_FROM_CQE))
		blen = be32toh(cqe->byte_cnt);
	/* imm: the retirement cursor for rdx_mlx5_qp_retired_wr_id */
	wc_set(wc, qp->sq_wrid[last & mask], qp->base.user_ctx, blen, last, sop & 0xffffff,
	       retired, rdx_mlx5_req_wc_opcode[op]);
	qp->sq_tail = last + 1;
	NO_STORE_PAIRING();
	qp->sq_tail_bb += (uint16_t)(sig.next_bb - (uint16_t)qp->sq_tail_bb);
	return true;
}

/*
 * Retire send WQEs up to the one at WQEBB counter wqe_ctr for an error or
 * flush CQE (which may name an unsignaled WQE: found by walking the ring).
 * Returns false for a counter that names no outstanding WQE.
 */
static bool
sq_retire_err(struct rdx_mlx5_qp *qp, uint16_t wqe_ctr, struct rdx_wc *wc)
{
	const uint32_t tail = qp->sq_tail;
	uint32_t last;

	if (!sq_find_ord(qp, wqe_ctr, &last))
		return false;
	wc->wr_id = qp->sq_wrid[last & qp->sq_mask];
	wc->retired = (uint16_t)(last - tail + 1);
	wc->imm = last; /* retirement cursor for rdx_mlx5_qp_retired_wr_id */
	qp->sq_tail = last + 1;
	qp->sq_tail_bb += (uint16_t)(wqe_ctr - (uint16_t)qp->sq_tail_bb) +
		sq_wqe_nbb(qp, wqe_ctr);
	return true;
}

static void
cqe_other(struct rdx_mlx5_cq *cq, struct rdx_mlx5_qp *qp, volatile struct mlx5_cqe64 *cqe,
	  uint8_t opcode, uint32_t qpn, struct rdx_wc *wc)
{
	volatile struct mlx5_err_cqe *ecqe = (volatile struct mlx5_err_cqe *)cqe;
	uint16_t wqe_ctr = be16toh(cqe->wqe_counter);

	wc->qp_num = qpn;
	wc->vendor_err = 0;
	wc->retired = 1;
	wc->imm = 0;
	wc->byte_len = 0;
	wc->wr_id = 0;
	if (unlikely(qp == NULL)) {
		cq->stats.unknown_qpn++;
		wc->qp_ctx = NULL;
		wc->status = IBV_WC_GENERAL_ERR;
		wc->opcode = RDX_WC_UNKNOWN;
		wc->retired = 0;
		return;
	}
	wc->qp_ctx = qp->base.user_ctx;
	switch (opcode) {
	case MLX5_CQE_RESP_WR_IMM:
	case MLX5_CQE_RESP_SEND:
	case MLX5_CQE_RESP_SEND_IMM:
	case MLX5_CQE_RESP_SEND_INV:
		/* The RQ completes in order: the oldest outstanding receive, as
		 * rdma-core cq.c does for a non-SRQ QP (not the CQE's
		 * wqe_counter). None outstanding: a bogus CQE, retire nothing. */
		if (unlikely(qp->rq_tail == qp->rq_head))
			break;
		wc->status = IBV_WC_SUCCESS;
		wc->wr_id = qp->rq_wrid[qp->rq_tail & qp->rq_mask];
		qp->rq_tail++;
		wc->byte_len = be32toh(cqe->byte_cnt);
		if (opcode == MLX5_CQE_RESP_SEND || opcode == MLX5_CQE_RESP_SEND_INV) {
			wc->opcode = RDX_WC_RECV;
		} else {
			wc->opcode = opcode == MLX5_CQE_RESP_WR_IMM ?
				RDX_WC_RECV_WRITE_IMM : RDX_WC_RECV_IMM;
			wc->imm = cqe->imm_inval_pkey; /* as received */
		}
		return;
	case MLX5_CQE_REQ:
		/* Only reached for a counter naming no outstanding WQE. */
		break;
	case MLX5_CQE_REQ_ERR:
	case MLX5_CQE_RESP_ERR:
		cq->stats.errors++;
		wc->status = rdx_mlx5_syndrome_to_status(ecqe->syndrome);
		wc->vendor_err = ecqe->vendor_err_synd;
		if (opcode == MLX5_CQE_RESP_ERR) {
			wc->opcode = RDX_WC_RECV;
			if (unlikely(qp->rq_tail == qp->rq_head)) {
				wc->retired = 0;
				return;
			}
			wc->wr_id = qp->rq_wrid[qp->rq_tail & qp->rq_mask];
			qp->rq_tail++;
			return;
		}
		wc->opcode = rdx_mlx5_req_wc_opcode[(uint8_t)(be32toh(ecqe->s_wqe_opcode_qpn) >> 24)];
		if (!sq_retire_err(qp, wqe_ctr, wc)) {
			wc->retired = 0;
			wc->wr_id = 0;
		}
		return;
	default: /* RESIZE, NO_PACKET, SIG_ERR, ... are not expected on RC */
		break;
	}
	wc->status = IBV_WC_GENERAL_ERR;
	wc->opcode = RDX_WC_UNKNOWN;
	wc->retired = 0;
}

/*
 * Every CQE the poll loop does not finish inline: another QP than the cached
 * one, responder CQEs, errors, REQ CQEs naming nothing outstanding.
 */
static __rte_noinline void
cqe_slow(struct rdx_mlx5_cq *cq, volatile struct mlx5_cqe64 *cqe, uint8_t opcode,
	 uint32_t sop, struct rdx_wc *wc)
{
	const uint32_t qpn = sop & 0xffffff;
	struct rdx_mlx5_qp *qp = cq->last_qp;

	if (qp == NULL || qp->base.qp_num != qpn)
		qp = cq_lookup_qp(cq, qpn);
	if (opcode == MLX5_CQE_REQ && qp != NULL && cqe_req_good(qp, cqe, sop, wc))
		return;
	cqe_other(cq, qp, cqe, opcode, qpn, wc);
}

/* Stands in for an empty lookup cache: matches no 24-bit QPN. */
static struct rdx_mlx5_qp rdx_mlx5_no_qp = { .base.qp_num = UINT32_MAX };

/* End of a poll burst: hand the consumed CQEs back (once per burst). */
static __rte_always_inline uint16_t
cq_poll_finish(struct rdx_mlx5_cq *cq, uint32_t ci0, uint32_t ci)
{
	const uint16_t got = (uint16_t)(ci - ci0);

	if (likely(got != 0)) {
		cq->cons_index = ci;
		/* The CQE reads are done before the slots are handed back. */
		rte_io_wmb();
		cq->dbrec[0] = htobe32(ci & 0xffffff);
		cq->stats.polls++;
		NO_STORE_PAIRING();
		cq->stats.cqes += got;
	}
	return got;
}

/*
 * The general poll loop (every CQE kind). The burst started at consumer
 * counter ci0 and has reached ci; this polls up to n more CQEs into wc and
 * finishes the burst.
 */
static __rte_noinline uint16_t
cq_poll_general(struct rdx_mlx5_cq *cq, struct rdx_wc *wc, uint16_t n, uint32_t ci0,
		uint32_t ci)
{
	/* Locals: the wc stores may alias the CQ and would force reloads. */
	uint8_t *const buf = cq->cqe64;
	const uint32_t mask = cq->cqe_mask;
	const uint32_t shift = cq->cqe_shift;
	const uint32_t log_cnt = cq->log_cqe_cnt;
	struct rdx_wc *const wend = wc + n;
	struct rdx_mlx5_qp *qp = cq->last_qp;

	/* The cache as a local that is never NULL (the sentinel matches no
	 * 24-bit QPN): one check per CQE instead of two. */
	if (unlikely(qp == NULL))
		qp = &rdx_mlx5_no_qp;
	for (; wc != wend; wc++) {
		volatile struct mlx5_cqe64 *cqe = (volatile struct mlx5_cqe64 *)(void *)
			(buf + ((size_t)(ci & mask) << shift));
		/* op_own read once, through the volatile pointer; opcode and owner
		 * are what mlx5dv_get_cqe_opcode()/mlx5dv_get_cqe_owner() return. */
		const uint8_t op_own = cqe->op_own;
		/* The owner bit software owns at ci: the ring's wrap parity. */
		const uint32_t own = (ci >> log_cnt) & MLX5_CQE_OWNER_MASK;
		uint32_t sop;

		/* Software-owned iff valid opcode and owner bit == wrap parity
		 * (get_sw_cqe). */
		if ((op_own >> 4) == MLX5_CQE_INVALID || ((op_own ^ own) & MLX5_CQE_OWNER_MASK))
			break;
		/* udma_from_device_barrier: read the body only after ownership. */
		rte_io_rmb();
		sop = be32toh(cqe->sop_drop_qpn);
		ci++;
		if ((op_own >> 4) == MLX5_CQE_REQ && qp->base.qp_num == (sop & 0xffffff) &&
		    cqe_req_good(qp, cqe, sop, wc))
			continue;
		cqe_slow(cq, cqe, op_own >> 4, sop, wc);
		qp = cq->last_qp != NULL ? cq->last_qp : &rdx_mlx5_no_qp;
	}
	return cq_poll_finish(cq, ci0, ci);
}

/*
 * The fast poll loop: good requester CQEs of the cached QP only, with no
 * calls (any other CQE hands the rest of the burst to cq_poll_general), so
 * it keeps its state in registers.
 */
static __rte_always_inline uint16_t
cq_poll(struct rdx_mlx5_cq *cq, struct rdx_wc *wc, uint16_t n)
{
	/* Locals: the wc stores may alias the CQ and would force reloads. */
	uint8_t *const buf = cq->cqe64;
	const uint32_t mask = cq->cqe_mask;
	const size_t stride = cq->cqe_size;
	const uint32_t cnt = mask + 1;
	const uint32_t ci0 = cq->cons_index;
	struct rdx_wc *const wend = wc + n;
	struct rdx_mlx5_qp *const qp = cq->last_qp != NULL ? cq->last_qp : &rdx_mlx5_no_qp;
	uint32_t ci = ci0;

	for (; wc != wend; wc++) {
		volatile struct mlx5_cqe64 *cqe = (volatile struct mlx5_cqe64 *)(void *)
			(buf + (size_t)(ci & mask) * stride);
		/* op_own read once, through the volatile pointer. */
		const uint8_t op_own = cqe->op_own;
		/* The owner bit software owns at ci: the ring's wrap parity. */
		const uint32_t own = (ci & cnt) != 0;
		uint32_t sop;

		/* opcode and owner under one mask: opcode REQ (0) and ours */
		if (unlikely((op_own & (0xf0u | MLX5_CQE_OWNER_MASK)) != own)) {
			/* Not software-owned (get_sw_cqe): the burst ends here. */
			if ((op_own >> 4) == MLX5_CQE_INVALID ||
			    ((op_own ^ own) & MLX5_CQE_OWNER_MASK))
				break;
			return cq_poll_general(cq, wc, (uint16_t)(wend - wc), ci0, ci);
		}
		/* udma_from_device_barrier: read the body only after ownership. */
		rte_io_rmb();
		sop = be32toh(cqe->sop_drop_qpn);
		if (unlikely(qp->base.qp_num != (sop & 0xffffff)) ||
		    unlikely(!cqe_req_good(qp, cqe, sop, wc)))
			return cq_poll_general(cq, wc, (uint16_t)(wend - wc), ci0, ci);
		ci++;
	}
	return cq_poll_finish(cq, ci0, ci);
}

/* Software device, inline progress: run the engine first. */
static __rte_noinline uint16_t
cq_poll_progress(struct rdx_mlx5_cq *cq, struct rdx_wc *wc, uint16_t n)
{
	cq->progress(cq->progress_arg);
	return cq_poll_general(cq, wc, n, cq->cons_index, cq->cons_index);
}

uint16_t
rdx_mlx5_poll_burst(struct rdx_cq *bcq, struct rdx_wc *wc, uint16_t n)
{
	struct rdx_mlx5_cq *cq = (struct rdx_mlx5_cq *)bcq;

	if (unlikely(cq->progress != NULL))
		return cq_poll_progress(cq, wc, n);
	return cq_poll(cq, wc, n);
}

uint64_t
rdx_mlx5_qp_retired_wr_id(const struct rdx_qp *bqp, const struct rdx_wc *wc, uint16_t i)
{
	const struct rdx_mlx5_qp *qp = (const struct rdx_mlx5_qp *)bqp;
	uint32_t first;

	if (i >= wc->retired)
		return 0;
	if (i + 1 == wc->retired)
		return wc->wr_id;
	/* Only send completions retire more than one WR; imm is the cursor. */
	first = wc->imm - (uint32_t)(wc->retired - 1);
	return qp->sq_wrid[(first + i) & qp->sq_mask];
}
