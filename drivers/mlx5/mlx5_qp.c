/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mlx5 send and receive posting (the datapath's qp.c): build RC WQEs
 * straight into the send queue, ring once per burst (BlueFlame for one
 * small WQE), post receive batches. Shaped like rdma-core's
 * providers/mlx5 qp.c: set_*_seg helpers (mlx5_wqe.h), checks marked
 * unlikely, always-inline specialisations of the post loop. Formats and
 * rules: doc/mlx5-datapath.md (sections 1-3) and the datapath/device
 * contract.
 *
 * Fast path: no allocation, locks, syscalls, logging or division; every
 * index is masked.
 */
#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_atomic.h>
#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_byteorder.h>
#include <rte_io.h>
#include <rte_vect.h>

#include "rdx_config.h"
#include "rdx_mlx5.h"
#include "mlx5_wqe.h"

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
 * Indexed by the flags, it gives fm_ce_se where it sits in ctrl word 1
 * (W1_FM_SHIFT, mlx5_wqe.h).
 */
#define FM(f) ((uint8_t)((((f) & RDX_WR_SIGNALED) ? MLX5_WQE_CTRL_CQ_UPDATE : 0) | \
			  (((f) & RDX_WR_FENCE) ? MLX5_WQE_CTRL_FENCE : 0) | \
			  (((f) & RDX_WR_SOLICITED) ? MLX5_WQE_CTRL_SOLICITED : 0)))
#define W1(f) ((uint64_t)FM(f) << W1_FM_SHIFT)
static const uint64_t rdx_mlx5_w1_fm[16] = {
	W1(0), W1(1), W1(2), W1(3), W1(4), W1(5), W1(6), W1(7),
	W1(8), W1(9), W1(10), W1(11), W1(12), W1(13), W1(14), W1(15),
};
#undef W1
#undef FM

/* ---------------------------------------------------------------------- */
/* Send                                                                    */

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
/* UD send                                                                 */

/*
 * One UD WQE (mlx5-datapath: doc/howto-ud.md): ctrl + datagram segment (the
 * AH's 48-byte address vector with the destination QPN and Q_Key, as
 * rdma-core's set_datagram_seg) + inline or data segments. Returns the DS
 * count, UD_LENERR for a message above the path MTU (the caller posts a
 * NOP in its place and reports IBV_WC_LOC_LEN_ERR), or 0 for an invalid WR
 * (nothing posted).
 */
#define UD_LENERR UINT32_MAX
static __rte_always_inline uint32_t
build_ud(const struct rdx_mlx5_qp *qp, uint8_t *ctrl, const struct rdx_wr *wr,
	 uint32_t *imm)
{
	struct mlx5_wqe_datagram_seg *dg =
		(struct mlx5_wqe_datagram_seg *)(void *)(ctrl + MLX5_DS_SIZE);
	const struct rdx_mlx5_ah *ah;
	uint32_t total = 0, j, nds;
	uint8_t *seg;

	*imm = 0;
	switch (wr->opcode) {
	case RDX_OP_NOP:
		return 1;
	case RDX_OP_SEND_IMM:
		*imm = wr->imm;
		/* fall through */
	case RDX_OP_SEND:
		break;
	default:
		/* no RDMA or atomics on UD (IBTA 9.8.1: SEND only) */
		return 0;
	}
	if (unlikely(wr->num_sge > qp->max_send_sge || wr->ah == NULL))
		return 0;
	for (j = 0; j < wr->num_sge; j++)
		total += wr->sge[j].length;
	if (unlikely(total > qp->ud_max_msg))
		return UD_LENERR;
	ah = (const struct rdx_mlx5_ah *)(const void *)wr->ah;
	/* The AV as the AH holds it (mlx5dv_init_obj(MLX5DV_OBJ_AH)), then the
	 * destination: dqp_dct with MLX5_EXTENDED_UD_AV, the Q_Key. */
	memcpy(&dg->av, &ah->av, sizeof(dg->av));
	dg->av.dqp_dct = htobe32((wr->remote_qpn & 0xffffff) | MLX5_EXTENDED_UD_AV);
	dg->av.key.qkey.qkey = htobe32(wr->remote_qkey);
	/* ctrl + datagram = 64 bytes: the payload starts in the next WQEBB. */
	seg = sq_wrap(qp, ctrl + MLX5_DS_SIZE + sizeof(*dg));
	if (!(wr->flags & RDX_WR_INLINE) || wr->num_sge == 0)
		return 4 + set_data_segs(qp, seg, wr);
	nds = set_inline_seg_slow(qp, seg, wr);
	return nds == UINT32_MAX ? 0 : 4 + nds;
}

/*
 * The UD post loop (every UD WR; post_general's signaling and ring rules).
 * A message above the path MTU is not sent: a signaled NOP takes its place
 * and its completion reports IBV_WC_LOC_LEN_ERR (cqe_req_good).
 */
static __rte_noinline uint16_t
post_ud(struct rdx_mlx5_qp *qp, const struct rdx_wr *wr, uint16_t n, uint16_t done,
	struct mlx5_wqe_ctrl_seg *last)
{
	uint8_t *const sq_buf = qp->sq_buf;
	uint64_t *const wrid = qp->sq_wrid;
	uint8_t *const lenerr = qp->sq_lenerr;
	struct rdx_mlx5_sq_sig *const sig = qp->sq_sig;
	const uint32_t mask = qp->sq_mask;
	const uint32_t sig_interval = qp->sig_interval;
	const uint64_t qpn8 = rte_be_to_cpu_32(qp->qpn_be8);
	const uint32_t tail = qp->sq_tail;
	const uint32_t last_slot = tail + qp->sq_max_post - 1;
	const uint32_t head0 = qp->sq_head;
	uint32_t head = head0;
	const uint32_t room = qp->sq_max_post - (head - tail);
	const struct rdx_wr *const end = wr + RTE_MIN((uint32_t)n, room);
	uint32_t cur_post = qp->sq_cur_post;
	uint32_t sig_base = head - qp->sq_unsignaled;
	uint32_t forced = head + RTE_MIN(sig_interval - 1 - qp->sq_unsignaled,
					 last_slot - head);
	uint16_t nreq, posted;

	while (wr != end) {
		const uint32_t idx = cur_post & mask;
		uint8_t *const ctrl = sq_buf + ((size_t)idx << MLX5_WQEBB_SHIFT);
		uint32_t key, imm, ds, nbb;
		uint8_t op;
		uint64_t w0, w1;
		bool bad_len = false;

		memcpy(&key, &wr->opcode, sizeof(key));
		ds = build_ud(qp, ctrl, wr, &imm);
		if (unlikely(ds == 0))
			break;
		op = rdx_mlx5_wqe_opcode[wr->opcode];
		if (unlikely(ds == UD_LENERR)) {
			bad_len = true;
			ds = 1;
			op = MLX5_OPCODE_NOP;
			imm = 0;
		}
		nbb = (ds + 3) >> 2;
		w0 = (uint64_t)op << 32 | qpn8 | ds;
		w1 = W1_IMM(imm) | rdx_mlx5_w1_fm[WR_KEY_FLAGS(key) & 0xf];
		lenerr[head & mask] = bad_len;
		if (unlikely((key & WR_KEY_SIGNALED) || head == forced || bad_len)) {
			w1 |= W1_CQ_UPDATE;
			sig_base = head + 1;
			forced = head + RTE_MIN(sig_interval, last_slot - head);
			/* The stand-in NOP's entry names no outstanding WQE (the
			 * ordinal half the 16-bit space away, outstanding WQEs
			 * being fewer than 2^15): its CQE leaves cqe_req_good's
			 * fast path for cqe_other, which reports LOC_LEN_ERR. */
			sig[idx].ord = (uint16_t)(bad_len ? head + 0x8000u : head);
			sig[idx].next_bb = (uint16_t)(cur_post + nbb);
		}
		set_ctrl(ctrl, w0, cur_post, w1);
		cur_post += nbb;
		wrid[head & mask] = wr->wr_id;
		head++;
		last = (struct mlx5_wqe_ctrl_seg *)(void *)ctrl;
		wr++;
	}
	posted = (uint16_t)(head - head0);
	if (unlikely(posted < n)) {
		if (wr < end)
			qp->stats.bad_wr++;
		else
			qp->stats.sq_full++;
	}
	nreq = (uint16_t)(posted + done);
	if (unlikely(nreq == 0))
		return 0;
	/* BlueFlame for one WR: its inline flag (the run's WRs are inline) */
	return post_finish(qp, last, cur_post, head, sig_base, nreq, false,
			   done != 0 || posted != 1 ||
			   ((wr[-1].flags & RDX_WR_INLINE) && wr[-1].num_sge != 0));
}

/*
 * A run of 8-byte inline UD SENDs of the exact shape key want (post_run's
 * rules: unsignaled, bounded by the caller so that it wraps neither the
 * ring nor the wr_id array and does not carry the WQE index's low byte).
 * Each WQE is two WQEBBs: ctrl + datagram segment, then the inline
 * segment. The datagram segment is the AH's AV with the first 16 bytes
 * rebuilt around the Q_Key and the destination QPN (set_datagram_seg).
 * Stops early at another shape or a WR without an AH.
 */
static __rte_always_inline uint32_t
post_run_ud(uint8_t *ctrl, uint64_t *wid, uint64_t w0be, const struct rdx_wr *wr,
	    const uint32_t span, const uint32_t want)
{
	uint64_t *const wid_end = wid + span;
	rdx_v2u64 ctrl16 = { w0be, 0 };
	const rdx_v2u64 step = { 2 * W0BE_IDX_ONE, 0 };
	intptr_t i;

	for (i = -(intptr_t)span; i != 0; i++) {
		const struct rdx_mlx5_ah *ah;
		const struct rdx_sge *sge;
		rdx_v2u64 v0, v1, v2;
		uint64_t qq;
		uint32_t key;

		memcpy(&key, &wr->opcode, sizeof(key));
		if (unlikely((key & WR_KEY_EXACT_MASK) != want))
			break;
		sge = wr->sge;
		ah = (const struct rdx_mlx5_ah *)(const void *)wr->ah;
		if (unlikely(sge->length != 8 || ah == NULL))
			break;
		/* The template (rdx_mlx5_ah_init) has Q_Key 0 at bytes 0..3 and
		 * dqp_dct = the extended-AV flag at bytes 8..11: OR in the Q_Key
		 * and the QPN's low 24 bits, big-endian. */
		memcpy(&v0, &ah->av, 16);
		/* AV bytes 16..47 as two 16-byte moves */
		memcpy(&v1, (const uint8_t *)&ah->av + 16, 16);
		memcpy(&v2, (const uint8_t *)&ah->av + 32, 16);
		memcpy(&qq, &wr->remote_qpn, sizeof(qq));   /* QPN, Q_Key */
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
		/* one swap: [BE(Q_Key), BE(QPN)] */
		qq = rte_bswap64(qq);
		v0 |= (rdx_v2u64){ (uint32_t)qq, (qq >> 32) & 0xffffff00u };
#else
		v0 |= (rdx_v2u64){ qq << 32, (qq >> 32 & 0xffffff) << 32 };
#endif
		set_inline_8(ctrl + 64, (const uint8_t *)(uintptr_t)sge->addr);
		memcpy(ctrl + MLX5_DS_SIZE, &v0, 16);
		memcpy(ctrl + 2 * MLX5_DS_SIZE, &v1, 16);
		memcpy(ctrl + 3 * MLX5_DS_SIZE, &v2, 16);
		memcpy(ctrl, &ctrl16, sizeof(ctrl16));
		ctrl16 += step;
		wid_end[i] = wr->wr_id;
		ctrl += 2u << MLX5_WQEBB_SHIFT;
		wr++;
	}
	return (uint32_t)((intptr_t)span + i);
}

/*
 * UD bursts: runs of 8-byte inline SENDs (post_run_ud), each up to and
 * including the next WQE that must be signaled, as rdx_mlx5_post_burst
 * does for RC; any other WR hands the rest of the burst to post_ud, which
 * rings once for all. A burst of one goes to post_ud (BlueFlame copy).
 */
uint16_t
rdx_mlx5_post_burst_ud(struct rdx_qp *bqp, const struct rdx_wr *wr, uint16_t n)
{
	struct rdx_mlx5_qp *qp = (struct rdx_mlx5_qp *)bqp;
	uint8_t *const sq_buf = qp->sq_buf;
	uint64_t *const wrid = qp->sq_wrid;
	const uint32_t mask = qp->sq_mask;
	const uint32_t run_mask = RTE_MIN(mask, 0xffu);
	const uint32_t want = qp->max_inline >= 8 && qp->max_send_sge >= 1 ?
		WR_KEY(RDX_OP_SEND, RDX_WR_INLINE, 1) : UINT32_MAX;
	/* ctrl word 0 of an 8-byte inline UD SEND: DS 1 + 3 + 1 */
	const uint64_t w0_send = (uint64_t)MLX5_OPCODE_SEND << 32 |
		rte_be_to_cpu_32(qp->qpn_be8) | 5;
	const uint32_t tail = qp->sq_tail;
	const uint32_t head0 = qp->sq_head;
	const uint32_t room = qp->sq_max_post - (head0 - tail);
	const uint32_t unsignaled = qp->sq_unsignaled;
	uint32_t left = RTE_MIN((uint32_t)n, room);
	uint32_t cur_post = qp->sq_cur_post;
	uint32_t head = head0;
	uint32_t sig_base = head - unsignaled;
	uint32_t forced = head + RTE_MIN(qp->sig_interval - 1 - unsignaled, room - 1);
	uint16_t nreq;

	if (n == 1)
		return post_ud(qp, wr, 1, 0, NULL);
	while (left != 0) {
		uint8_t *const ctrl = sq_buf + ((size_t)(cur_post & mask) << MLX5_WQEBB_SHIFT);
		const uint64_t idx_w0 = w0_send | (uint64_t)(uint16_t)cur_post << 40;
		uint32_t key, span, k;

		memcpy(&key, &wr->opcode, sizeof(key));
		if (unlikely((key & WR_KEY_RUN_MASK) != want))
			break;
		span = RTE_MIN(forced - head + 1, left);
		if (key & WR_KEY_SIGNALED)
			span = 1;
		/* two WQEBBs each, before the ring end or the index byte carry */
		span = RTE_MIN(span, (run_mask + 1 - (cur_post & run_mask)) >> 1);
		span = RTE_MIN(span, mask + 1 - (head & mask));
		if (unlikely(span == 0))
			break;
		k = post_run_ud(ctrl, wrid + (head & mask), rte_cpu_to_be_64(idx_w0), wr, span,
				key & WR_KEY_EXACT_MASK);
		if (unlikely(k == 0))
			break;
		cur_post += 2 * k;
		head += k;
		left -= k;
		wr += k;
		if (head - 1 == forced || (key & WR_KEY_SIGNALED)) {
			const uint32_t sidx = (cur_post - 2) & mask;

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
		qp->sq_cur_post = cur_post;
		qp->sq_head = head;
		qp->sq_unsignaled = head - sig_base;
		return post_ud(qp, wr, (uint16_t)(n - nreq), nreq, nreq == 0 ? NULL :
			       sq_ctrl(sq_buf, cur_post - 2, mask));
	}
	if (unlikely(nreq < n))
		qp->stats.sq_full++;
	if (unlikely(nreq == 0))
		return 0;
	return post_finish(qp, sq_ctrl(sq_buf, cur_post - 2, mask), cur_post, head, sig_base,
			   nreq, false, true);
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
