/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mlx5 send posting (the datapath's qp.c), RC and UD: one post loop,
 * post_send, in the shape of rdma-core's providers/mlx5/qp.c
 * _mlx5_post_send: one pass over the WRs, checks that leave the loop
 * marked unlikely, a switch on the opcode, the set_*_seg helpers of
 * mlx5_wqe.h, and post_send_db ringing once per burst (BlueFlame for one
 * small WQE). post_send handles every WR the API accepts and is the
 * definition of behaviour; the vector run loops of mlx5_qp_vec.h post
 * leading runs of the common shapes in front of it and hand it the rest.
 * Receives are in mlx5_rq.c. Formats and rules: doc/mlx5-datapath.md
 * (sections 1-3) and doc/ud.md.
 *
 * Fast path: no allocation, locks, syscalls, logging or division; every
 * index is masked.
 */
#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_byteorder.h>
#include <rte_io.h>
#include <rte_vect.h>

#include "rdx_config.h"
#include "rdx_mlx5.h"
#include "mlx5_wqe.h"
#include "mlx5_qp_vec.h"

/*
 * rdx_wr.flags & 0xf (SIGNALED 1, INLINE 2, FENCE 4, SOLICITED 8) -> ctrl
 * fm_ce_se, as rdma-core maps IBV_SEND_SIGNALED (CQ_UPDATE), IBV_SEND_FENCE
 * (MLX5_WQE_CTRL_FENCE, "small and fence") and IBV_SEND_SOLICITED.
 */
#define FM(f) ((uint8_t)((((f) & RDX_WR_SIGNALED) ? MLX5_WQE_CTRL_CQ_UPDATE : 0) | \
			  (((f) & RDX_WR_FENCE) ? MLX5_WQE_CTRL_FENCE : 0) | \
			  (((f) & RDX_WR_SOLICITED) ? MLX5_WQE_CTRL_SOLICITED : 0)))
static const uint8_t mlx5_fm_ce_se[16] = {
	FM(0), FM(1), FM(2), FM(3), FM(4), FM(5), FM(6), FM(7),
	FM(8), FM(9), FM(10), FM(11), FM(12), FM(13), FM(14), FM(15),
};
#undef FM

/* The sq_sig entry of a NOP standing for a UD SEND above the path MTU
 * names no outstanding WQE (its ordinal half the 32-bit space away;
 * outstanding WQEs are fewer than 2^15): its CQE leaves the poll's good
 * path for the error path, which reports IBV_WC_LOC_LEN_ERR (mlx5_cq.c). */
#define SQ_SIG_LENERR 0x80000000u

/* ---------------------------------------------------------------------- */
/* Doorbell                                                                */

/*
 * One 64-byte chunk into the BlueFlame buffer (rdma-core mmio_memcpy_x64):
 * four 16-byte stores on x86-64, eight 8-byte MMIO writes elsewhere.
 * Ordered by mmio_wc_start and mmio_flush_writes around it.
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
	uint64_t w;
	unsigned int i;

	for (i = 0; i < 64; i += 8) {
		memcpy(&w, src + i, sizeof(w));
		rte_write64_relaxed(w, dst + i);
	}
#endif
}

/* The whole WQE of nbb WQEBBs, in 64-byte chunks, wrapping at the SQ end. */
static __rte_always_inline void
bf_copy(const struct rdx_mlx5_qp *qp, volatile uint8_t *dst, const uint8_t *src, uint32_t nbb)
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
 * Ring once for the WQEs up to cur_post, the last at ctrl (rdma-core
 * post_send_db): the doorbell record after the WQEs, the register after
 * the record. bf_nbb: the WQEBBs of a burst's only WQE when BlueFlame
 * may take it (a WQE of more than one DS, inline or with prefer_bf; the
 * caller's rule, bf_nbb_of), else 0. Such a WQE that fits the register's
 * half (copy_max: whole 64-byte chunks) is copied whole; else ctrl bytes
 * 0..7 are the doorbell. The halves of a register alternate.
 */
static __rte_always_inline void
post_send_db(struct rdx_mlx5_qp *qp, const struct mlx5_wqe_ctrl_seg *ctrl, uint32_t cur_post,
	     uint32_t bf_nbb)
{
	struct rdx_mlx5_bfreg *const bf = qp->bf;
	volatile uint8_t *const reg = bf->reg + bf->offset;
	uint64_t db;

	udma_to_device_barrier();
	qp->dbrec[MLX5_SND_DBR] = htobe32(cur_post & 0xffff);
	mmio_wc_start();
	if (bf_nbb != 0 && bf_nbb << MLX5_WQEBB_SHIFT <= bf->copy_max) {
		bf_copy(qp, reg, (const uint8_t *)ctrl, bf_nbb);
		qp->stats.bf_posts++;
	} else {
		memcpy(&db, ctrl, sizeof(db));
		rte_write64_relaxed(db, reg);
		qp->stats.db_plain++;
	}
	mmio_flush_writes();
	bf->offset ^= bf->size;
}

/* post_send_db's bf_nbb for a burst of nreq WQEs, the last at ctrl. */
static __rte_always_inline uint32_t
bf_nbb_of(const struct rdx_mlx5_qp *qp, const struct mlx5_wqe_ctrl_seg *ctrl, uint32_t nreq,
	 bool inl)
{
	uint32_t ds;

	if (nreq != 1 || !(inl || qp->bf->prefer_bf))
		return 0;
	ds = be32toh(ctrl->qpn_ds) & 0x3f;
	return ds > 1 ? (ds + 3) >> 2 : 0;
}

/* ---------------------------------------------------------------------- */
/* Send                                                                    */

/* Was this WR's payload written inline (post_send's rule)? */
static __rte_always_inline bool
wr_inline(const struct rdx_wr *wr)
{
	return (wr->flags & RDX_WR_INLINE) && wr->num_sge != 0 &&
		(wr->opcode == RDX_OP_SEND || wr->opcode == RDX_OP_SEND_IMM ||
		 wr->opcode == RDX_OP_WRITE || wr->opcode == RDX_OP_WRITE_IMM);
}

/*
 * The end of a burst of nreq >= 1 WQEs, the last at last: with
 * sig_burst_end its CQ_UPDATE bit (not rung yet: the device cannot have
 * read it), the ring state, the counters, one doorbell.
 */
static __rte_always_inline uint16_t
post_send_finish(struct rdx_mlx5_qp *qp, struct mlx5_wqe_ctrl_seg *last, uint32_t cur_post,
		 uint32_t head, uint32_t sig_base, uint32_t nreq, bool inl)
{
	if (qp->sig_burst_end && head != sig_base) {
		const size_t lidx = (size_t)((uint8_t *)last - qp->sq_buf) >> MLX5_WQEBB_SHIFT;

		last->fm_ce_se |= MLX5_WQE_CTRL_CQ_UPDATE;
		qp->sq_sig[lidx].ord = head - 1;
		qp->sq_sig[lidx].next_bb = (uint16_t)cur_post;
		sig_base = head;
	}
	qp->sq_cur_post = cur_post;
	qp->sq_head = head;
	qp->sq_unsignaled = head - sig_base;
	qp->stats.wqes += nreq;
	post_send_db(qp, last, cur_post, bf_nbb_of(qp, last, nreq, inl));
	return (uint16_t)nreq;
}

/*
 * Post up to n WRs from wr and ring once for them and the done WQEs posted
 * before in this burst (the vector runs; last is the last one's ctrl, inl
 * whether it was inline). Every opcode, inline data of any length up to
 * max_inline, any SGE count; ud: the QP is UD (datagram segment, SEND
 * only). A WR that is not valid stops the burst (nothing posted for it);
 * a full SQ cuts it short. Signaled: a WR asking for it, every
 * sig_interval-th WQE, the WQE that takes the last free slot (a full SQ
 * always has a CQE coming), with sig_burst_end the last of the burst.
 */
static __rte_always_inline uint16_t
post_send(struct rdx_mlx5_qp *qp, const struct rdx_wr *wr, uint16_t n, uint16_t done,
	  struct mlx5_wqe_ctrl_seg *last, bool inl, const bool ud)
{
	/* Per burst: the QP's values the loop reads, copied once (the WQE
	 * stores may alias any of them), and how far the burst may go. */
	const struct sq_ring ring = sq_ring_of(qp);
	const uint32_t mask = qp->sq_mask;
	const uint32_t max_sge = qp->max_send_sge;
	const uint32_t sig_interval = qp->sig_interval;
	const uint64_t *const ctrl_op = qp->sq_ctrl_op;
	uint64_t *const sq_wrid = qp->sq_wrid;
	const uint32_t head0 = qp->sq_head;
	const uint32_t last_slot = qp->sq_tail + qp->sq_max_post - 1;
	const struct rdx_wr *const end = wr + RTE_MIN((uint32_t)n, last_slot + 1 - head0);
	uint32_t cur_post = qp->sq_cur_post;
	uint32_t head = head0;
	/* The ordinal after the last signaled WQE, and the next one that must
	 * be signaled: sig_interval after it, or the one taking the last free
	 * slot, whichever comes first. */
	uint32_t sig_base = head - qp->sq_unsignaled;
	uint32_t forced = head + RTE_MIN(sig_interval - 1 - qp->sq_unsignaled,
					 last_slot - head);
	uint32_t nreq;

	for (; wr != end; wr++) {
		const uint32_t idx = cur_post & mask;
		uint8_t *const ctrl = ring.buf + ((size_t)idx << MLX5_WQEBB_SHIFT);
		uint8_t *seg = ctrl + sizeof(struct mlx5_wqe_ctrl_seg);
		const uint32_t num_sge = wr->num_sge;
		uint8_t fm_ce_se = mlx5_fm_ce_se[wr->flags & 0xf];
		unsigned int op = wr->opcode;
		uint32_t ds = 1, imm = 0, nds, nbb;
		bool lenerr = false;

		if (!ud && unlikely(num_sge > max_sge))
			goto bad_wr;
		/* The segments the opcode adds between ctrl and the data. */
		switch (op) {
		case RDX_OP_NOP:
			goto wqe_done;
		case RDX_OP_SEND_IMM:
			imm = wr->imm;
			/* fall through */
		case RDX_OP_SEND:
			if (ud) {
				uint32_t total = 0, j;

				if (unlikely(num_sge > max_sge || wr->ah == NULL))
					goto bad_wr;
				for (j = 0; j < num_sge; j++)
					total += wr->sge[j].length;
				/* Above the path MTU: a signaled NOP takes its place,
				 * its completion reports IBV_WC_LOC_LEN_ERR. */
				if (unlikely(total > qp->ud_max_msg)) {
					lenerr = true;
					op = RDX_OP_NOP;
					imm = 0;
					goto wqe_done;
				}
				set_datagram_seg(seg, (const struct rdx_mlx5_ah *)(const void *)wr->ah,
						 wr->remote_qpn, wr->remote_qkey);
				/* ctrl + datagram = 64 bytes: the payload starts
				 * in the next WQEBB */
				seg = sq_wrap(&ring, seg + sizeof(struct mlx5_wqe_datagram_seg));
				ds = 4;
			}
			break;
		case RDX_OP_WRITE_IMM:
			imm = wr->imm;
			/* fall through */
		case RDX_OP_WRITE:
			if (ud)
				goto bad_wr;
			set_raddr_seg(seg, wr->remote_addr, wr->rkey);
			seg += MLX5_DS_SIZE;
			ds = 2;
			break;
		case RDX_OP_READ:
			/* ctrl + raddr + scatter list; INLINE means nothing here */
			if (ud)
				goto bad_wr;
			set_raddr_seg(seg, wr->remote_addr, wr->rkey);
			ds = 2 + set_data_ptr_segs(&ring, seg + MLX5_DS_SIZE, wr->sge, num_sge);
			goto wqe_done;
		case RDX_OP_CAS:
		case RDX_OP_FAA:
			/* ctrl + raddr + atomic + 8-byte result: DS 4, one WQEBB */
			if (ud || unlikely(num_sge != 1 || wr->sge[0].length != 8))
				goto bad_wr;
			set_raddr_seg(seg, wr->remote_addr, wr->rkey);
			set_atomic_seg(seg + MLX5_DS_SIZE, op == RDX_OP_CAS, wr->swap,
				       wr->compare_add);
			set_data_ptr_seg(seg + 2 * MLX5_DS_SIZE, wr->sge);
			ds = 4;
			goto wqe_done;
		default:
			goto bad_wr;
		}
		/* SEND / WRITE payload: inline (rdma-core: only with SGEs) or a
		 * gather list. */
		if ((wr->flags & RDX_WR_INLINE) && num_sge != 0) {
			nds = set_data_inl_seg(&ring, seg, wr->sge, num_sge);
			if (unlikely(nds == UINT32_MAX))
				goto bad_wr;
		} else {
			nds = set_data_ptr_segs(&ring, seg, wr->sge, num_sge);
		}
		ds += nds;
wqe_done:
		nbb = (ds + 3) >> 2;
		if (unlikely((fm_ce_se & MLX5_WQE_CTRL_CQ_UPDATE) || head == forced || lenerr)) {
			/* Only signaled WQEs get good CQEs: only they need the
			 * WQEBB -> WQE map (errors and flushes walk the ring). */
			fm_ce_se |= MLX5_WQE_CTRL_CQ_UPDATE;
			sig_base = head + 1;
			forced = head + RTE_MIN(sig_interval, last_slot - head);
			qp->sq_sig[idx].ord = lenerr ? head + SQ_SIG_LENERR : head;
			qp->sq_sig[idx].next_bb = (uint16_t)(cur_post + nbb);
		}
		if (ud)
			qp->sq_lenerr[head & mask] = lenerr;
		set_ctrl_seg(ctrl, ctrl_word(ctrl_op[op], cur_post, ds), fm_ce_se, imm);
		sq_wrid[head & mask] = wr->wr_id;
		cur_post += nbb;
		head++;
		last = (struct mlx5_wqe_ctrl_seg *)(void *)ctrl;
	}
	if (unlikely(head - head0 < n))
		qp->stats.sq_full++;
	goto posted;
bad_wr:
	qp->stats.bad_wr++;
posted:
	nreq = head - head0;
	/* BlueFlame takes one WR's WQE if it is inline (post_send_db) */
	if (nreq == 1)
		inl = wr_inline(wr - 1);
	nreq += done;
	if (unlikely(nreq == 0))
		return 0;
	return post_send_finish(qp, last, cur_post, head, sig_base, nreq, inl);
}

/* post_send for one WR (post_one's other WRs). */
static __rte_noinline uint16_t
post_send_one(struct rdx_mlx5_qp *qp, const struct rdx_wr *wr, const bool ud)
{
	return post_send(qp, wr, 1, 0, NULL, false, ud);
}

/*
 * The rest of a burst of one, its inline WQE of nbb WQEBBs (more than
 * one DS) written at ctrl (WQEBB index idx) unsignaled: post_send's
 * signaling rule for one WQE (used: the WQEs outstanding before it), the
 * ring state, the counters, the doorbell (BlueFlame may take the WQE).
 */
static __rte_always_inline uint16_t
post_one_finish(struct rdx_mlx5_qp *qp, const struct rdx_wr *wr, uint8_t *ctrl, uint32_t idx,
		uint32_t used, uint32_t nbb)
{
	const uint32_t head = qp->sq_head;
	const uint32_t next = qp->sq_cur_post + nbb;
	uint32_t unsig = qp->sq_unsignaled + 1;

	if ((wr->flags & RDX_WR_SIGNALED) || unsig > qp->sig_last || used == qp->sq_last_slot ||
	    qp->sig_burst_end) {
		ctrl[offsetof(struct mlx5_wqe_ctrl_seg, fm_ce_se)] = MLX5_WQE_CTRL_CQ_UPDATE;
		qp->sq_sig[idx].ord = head;
		qp->sq_sig[idx].next_bb = (uint16_t)next;
		unsig = 0;
	}
	qp->sq_wrid[head & qp->sq_mask] = wr->wr_id;
	qp->sq_cur_post = next;
	qp->sq_head = head + 1;
	qp->sq_unsignaled = unsig;
	qp->stats.wqes++;
	post_send_db(qp, (const struct mlx5_wqe_ctrl_seg *)(const void *)ctrl, next, nbb);
	return 1;
}

/* post_one for an inline WRITE (send: SEND) of any length vec_inl_wqe
 * takes; any other through post_send. */
static __rte_noinline uint16_t
post_one_inl(struct rdx_mlx5_qp *qp, const struct rdx_wr *wr, uint32_t used, const bool send)
{
	const uint32_t cur_post = qp->sq_cur_post;
	const uint32_t mask = qp->sq_mask;
	const uint32_t idx = cur_post & mask;
	uint8_t *const ctrl = (uint8_t *)sq_ctrl(qp->sq_buf, idx, 0xffffffffu);
	const uint32_t nbb = vec_inl_wqe(ctrl, wr, cur_post,
					 ctrl_word_base(send ? MLX5_OPCODE_SEND :
							MLX5_OPCODE_RDMA_WRITE, qp->qpn8),
					 qp->max_inline, mask + 1 - idx, send);

	if (unlikely(nbb == 0))
		return post_send_one(qp, wr, false);
	return post_one_finish(qp, wr, ctrl, idx, used, nbb);
}

/*
 * A burst of one (a latency loop's): an 8-byte inline WRITE or SEND from
 * one SGE as the vector runs write it (vec_inline8_seg, one WQEBB), other
 * inline lengths in post_one_inl, any other WR through post_send.
 */
static __rte_always_inline uint16_t
post_one(struct rdx_mlx5_qp *qp, const struct rdx_wr *wr, const bool ud)
{
	const uint32_t diff = (wr_key(wr) & WR_KEY_RUN_MASK) ^ qp->fast_key;
	const uint32_t used = qp->sq_head - qp->sq_tail;
	const bool send = diff != 0;
	uint32_t cur_post, idx, ds;
	uint8_t *ctrl;
	vec_u64x2 ctrl16;

	/* the inline WRITE shape, or (one opcode bit apart) the SEND one */
	if (ud || (diff & ~WR_KEY_WRITE_TO_SEND) != 0 || unlikely(used >= qp->sq_max_post))
		return post_send_one(qp, wr, ud);
	if (unlikely(wr->sge->length != 8))
		return send ? post_one_inl(qp, wr, used, true) : post_one_inl(qp, wr, used, false);
	cur_post = qp->sq_cur_post;
	idx = cur_post & qp->sq_mask;
	ctrl = (uint8_t *)sq_ctrl(qp->sq_buf, idx, 0xffffffffu);
	ds = send ? 2 : 3;
	if (!send)
		vec_raddr_seg(ctrl + MLX5_DS_SIZE, wr);
	vec_inline8_seg(ctrl + (ds - 1) * MLX5_DS_SIZE, wr->sge);
	ctrl16 = (vec_u64x2){ rte_cpu_to_be_64((uint64_t)(uint16_t)cur_post << 40 |
					       (uint64_t)(send ? MLX5_OPCODE_SEND :
							  MLX5_OPCODE_RDMA_WRITE) << 32 |
					       qp->qpn8 | ds), 0 };
	memcpy(ctrl, &ctrl16, sizeof(ctrl16));
	return post_one_finish(qp, wr, ctrl, idx, used, 1);
}

/* A burst through the vector runs, then post_send for the rest. */
static __rte_always_inline uint16_t
post_many(struct rdx_mlx5_qp *qp, const struct rdx_wr *wr, uint16_t n, const bool ud)
{
	struct mlx5_wqe_ctrl_seg *last = NULL;
	struct sq_runs_end e;
	uint32_t done;

	done = post_runs(qp, wr, n, ud, &e);
	if (unlikely(done == 0))
		return post_send(qp, wr, n, 0, NULL, false, ud);
	last = e.last;
	/* the runs took the whole burst: post_send's end of it */
	if (likely(done == n))
		return post_send_finish(qp, last, e.cur_post, e.head, e.sig_base, done, e.inl);
	qp->sq_cur_post = e.cur_post;
	qp->sq_head = e.head;
	qp->sq_unsignaled = e.head - e.sig_base;
	return post_send(qp, wr + done, (uint16_t)(n - done), (uint16_t)done, last, e.inl, ud);
}

/* post_many of each QP type, a function of its own (post_burst calls it
 * for bursts of more than one). */
static __rte_noinline uint16_t
post_many_rc(struct rdx_mlx5_qp *qp, const struct rdx_wr *wr, uint16_t n)
{
	return post_many(qp, wr, n, false);
}

static __rte_noinline uint16_t
post_many_ud(struct rdx_mlx5_qp *qp, const struct rdx_wr *wr, uint16_t n)
{
	return post_many(qp, wr, n, true);
}

static __rte_always_inline uint16_t
post_burst(struct rdx_mlx5_qp *qp, const struct rdx_wr *wr, uint16_t n, const bool ud)
{
	if (n == 1)
		return post_one(qp, wr, ud);
	return ud ? post_many_ud(qp, wr, n) : post_many_rc(qp, wr, n);
}

uint16_t
rdx_mlx5_post_burst(struct rdx_qp *bqp, const struct rdx_wr *wr, uint16_t n)
{
	return post_burst((struct rdx_mlx5_qp *)bqp, wr, n, false);
}

uint16_t
rdx_mlx5_post_burst_ud(struct rdx_qp *bqp, const struct rdx_wr *wr, uint16_t n)
{
	return post_burst((struct rdx_mlx5_qp *)bqp, wr, n, true);
}

uint16_t
rdx_mlx5_post_burst_scalar(struct rdx_qp *bqp, const struct rdx_wr *wr, uint16_t n)
{
	return post_send((struct rdx_mlx5_qp *)bqp, wr, n, 0, NULL, false, false);
}

uint16_t
rdx_mlx5_post_burst_ud_scalar(struct rdx_qp *bqp, const struct rdx_wr *wr, uint16_t n)
{
	return post_send((struct rdx_mlx5_qp *)bqp, wr, n, 0, NULL, false, true);
}
