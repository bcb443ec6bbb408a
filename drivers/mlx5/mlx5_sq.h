/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the send posting files share (private to drivers/mlx5): mlx5_qp.c
 * (RC bursts, the fast shapes, the general builder) and mlx5_qp_ud.c (UD
 * bursts). The opcode and flag tables, the multi-SGE/wrapping inline
 * segment, the BlueFlame copy, the doorbell ring and the end of a burst.
 * The helpers keep the attributes they had in mlx5_qp.c (always-inline
 * ones stay inlined into each caller, noinline ones stay out of line), so
 * splitting the file changed no generated code on the hot path.
 */
#ifndef MLX5_SQ_H
#define MLX5_SQ_H

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
	reg = bf->reg + bf->offset;
	/*
	 * post_send_db copies the WQE when: one WR, a BlueFlame register
	 * (bf.size 0 for uuarn 0, MLX5_SHUT_UP_BF), inline or prefer_bf, more
	 * than one 16-byte unit, and it fits a half.
	 */
	if (fast_only) {
		/* Fast shapes: inline, DS 2..4, one WQEBB: they fit any half
		 * (bf.size is a non-zero multiple of 64). The copy laid out
		 * straight (post_single, the latency path, is the only
		 * fast_only caller). */
		if (likely(nreq == 1 && bf->copy_max != 0)) {
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
	qp->stats.db_plain++;
flush:
	/* mmio_flush_writes: push the WC buffer out before the next use. */
	rte_wmb();
	bf->offset ^= bf->size;
}

/*
 * After a run of fast WQEs (RC: one WQEBB each, UD: two): when the run ended
 * on the WQE that must be signaled (the forced ordinal or a WR asking for
 * it), set its CQ_UPDATE bit and record what its CQE retires. Not rung yet:
 * the device cannot have read the WQE. The next forced ordinal is
 * sig_interval on, or the last free slot, whichever comes first.
 */
static __rte_always_inline void
run_signal(struct rdx_mlx5_qp *qp, uint8_t *sq_buf, uint32_t mask, uint32_t cur_post,
	   uint32_t bbs, uint32_t head, uint32_t tail, bool wants, uint32_t *sig_base,
	   uint32_t *forced)
{
	if (head - 1 == *forced || wants) {
		const uint32_t sidx = (cur_post - bbs) & mask;

		sq_ctrl(sq_buf, sidx, mask)->fm_ce_se = MLX5_WQE_CTRL_CQ_UPDATE;
		qp->sq_sig[sidx].ord = head - 1;
		qp->sq_sig[sidx].next_bb = (uint16_t)cur_post;
		*sig_base = head;
		*forced = head - 1 + RTE_MIN(qp->sig_interval, tail + qp->sq_max_post - head);
	}
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
		qp->sq_sig[lidx].ord = head - 1;
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

#endif /* MLX5_SQ_H */
