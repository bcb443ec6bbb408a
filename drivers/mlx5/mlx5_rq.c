/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mlx5 receive posting: data segments into the RQ (a terminating invalid
 * segment when a WR uses fewer than the stride holds), one doorbell record
 * update per batch (rdma-core providers/mlx5 mlx5_post_recv). Runs of WRs
 * of one non-empty SGE go through a run loop, one shuffled 16-byte store
 * each (set_data_seg_v); any other WR through the general builder.
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

/*
 * One-SGE receive (the common shape: one buffer per receive) at seg: one
 * shuffled 16-byte store, and the terminating segment after it when the
 * stride holds more (term). False, nothing written, for any other WR (no
 * SGE or several, a zero-length SGE: the general path skips those). With
 * SSE4.1 the zero-length test is a ptest of the SGE's 16 bytes as loaded
 * for the store (its length lane, bytes 8..11), not a second load.
 */
#if defined(RTE_ARCH_X86_64) && defined(__SSE4_1__) && defined(__SSSE3__)
_Static_assert(offsetof(struct rdx_sge, length) == 8 && sizeof(struct rdx_sge) == 16,
	       "rdx_sge layout (receive data segment)");
static __rte_always_inline bool
recv_wqe(uint8_t *seg, const struct rdx_recv_wr *wr, const bool term)
{
	/* set_data_seg_v's permutation: be32 length, be32 lkey, be64 addr */
	const __m128i shuf = _mm_setr_epi8(11, 10, 9, 8, 15, 14, 13, 12, 7, 6, 5, 4, 3, 2, 1, 0);
	const __m128i len = _mm_setr_epi32(0, 0, -1, 0);
	__m128i v;

	if (unlikely(wr->num_sge != 1))
		return false;
	v = _mm_loadu_si128((const __m128i *)(const void *)wr->sge);
	if (unlikely(_mm_testz_si128(v, len)))
		return false;
	_mm_storeu_si128((__m128i *)(void *)seg, _mm_shuffle_epi8(v, shuf));
	if (term)
		mlx5dv_set_data_seg((struct mlx5_wqe_data_seg *)(void *)(seg + 16), 0,
				    MLX5_INVALID_LKEY, 0);
	return true;
}
#else
static __rte_always_inline bool
recv_wqe(uint8_t *seg, const struct rdx_recv_wr *wr, const bool term)
{
	const struct rdx_sge *sge;

	if (unlikely(wr->num_sge != 1))
		return false;
	sge = wr->sge;
	if (unlikely(sge->length == 0))
		return false;
	set_data_seg_v(seg, sge);
	if (term)
		mlx5dv_set_data_seg((struct mlx5_wqe_data_seg *)(void *)(seg + 16), 0,
				    MLX5_INVALID_LKEY, 0);
	return true;
}
#endif

/*
 * The receive run loop: up to span one-SGE receives into consecutive RQ
 * slots from seg and their wr_ids from wid (the caller bounds span by the
 * ring's end: no wrap inside), two per turn (an odd one first) so the
 * loop's own steps are paid once per pair. Stops at the first WR of
 * another shape; returns how many it wrote.
 */
static __rte_always_inline uint32_t
recv_run(uint8_t *seg, uint64_t *wid, const struct rdx_recv_wr *wr, const uint32_t span,
	 const uint32_t shift, const bool term)
{
	uint64_t *const wid_end = wid + span;
	/* From -span up to 0: wid_end[i] is the next WR's wr_id slot. */
	intptr_t i = -(intptr_t)span;

	if (span & 1) {
		if (unlikely(!recv_wqe(seg, wr, term)))
			return 0;
		wid_end[i] = wr->wr_id;
		seg += (size_t)1 << shift;
		wr++;
		i++;
	}
	for (; i != 0; i += 2) {
		if (unlikely(!recv_wqe(seg, wr, term)))
			break;
		wid_end[i] = wr->wr_id;
		if (unlikely(!recv_wqe(seg + ((size_t)1 << shift), wr + 1, term))) {
			i++;
			break;
		}
		wid_end[i + 1] = wr[1].wr_id;
		seg += (size_t)2 << shift;
		wr += 2;
	}
	return (uint32_t)((intptr_t)span + i);
}

/*
 * Any receive WR (gather list, empty SGEs, no SGE) at seg: its data
 * segments, then the terminator when fewer than the stride holds. False,
 * nothing written, for more SGEs than the QP takes.
 */
static __rte_noinline bool
recv_wqe_general(uint8_t *seg, const struct rdx_recv_wr *wr, uint32_t max_recv_sge,
		 uint32_t max_gs)
{
	uint32_t j, used = 0;

	if (unlikely(wr->num_sge > max_recv_sge))
		return false;
	for (j = 0; j < wr->num_sge; j++) {
		if (unlikely(wr->sge[j].length == 0))
			continue;
		mlx5dv_set_data_seg((struct mlx5_wqe_data_seg *)(void *)(seg + 16 * used),
				    wr->sge[j].length, wr->sge[j].lkey, (uintptr_t)wr->sge[j].addr);
		used++;
	}
	/* Fewer segments than the stride holds: terminate the list
	 * (mlx5_post_recv: j < rq.max_gs, max_gs = stride / 16). */
	if (used < max_gs)
		mlx5dv_set_data_seg((struct mlx5_wqe_data_seg *)(void *)(seg + 16 * used), 0,
				    MLX5_INVALID_LKEY, 0);
	return true;
}

/* The burst's WQEs are in place from head0 to head: the doorbell record. */
static __rte_always_inline uint16_t
recv_ring(struct rdx_mlx5_qp *qp, uint32_t head0, uint32_t head)
{
	if (unlikely(head == head0))
		return 0;
	qp->rq_head = head;
	/* udma_to_device_barrier: RQ WQEs before the doorbell record. */
	rte_io_wmb();
	qp->dbrec[MLX5_RCV_DBR] = htobe32(head & 0xffff);
	qp->stats.recv_doorbells++;
	qp->stats.recvs += head - head0;
	return (uint16_t)(head - head0);
}

/*
 * Runs of one-SGE receives (recv_run), each up to the ring's end or the
 * first WR of another shape, which the general builder posts before the
 * next run, for the left WRs from wr at RQ counter head (the burst started
 * at head0). One doorbell record update for the whole burst.
 */
static __rte_noinline uint16_t
post_recv_general(struct rdx_mlx5_qp *qp, const struct rdx_recv_wr *wr, uint32_t head0,
		  uint32_t head, uint32_t left)
{
	/* Locals: the RQ stores may alias the QP and would force reloads. */
	uint8_t *const rq_buf = qp->rq_buf;
	uint64_t *const rq_wrid = qp->rq_wrid;
	const uint32_t cnt = qp->rq_wqe_cnt;
	const uint32_t mask = qp->rq_mask;
	const uint32_t shift = qp->rq_shift;
	const uint32_t max_recv_sge = qp->max_recv_sge;
	const uint32_t max_gs = qp->rq_stride >> 4;     /* 16-byte data segments */

	while (left != 0) {
		uint8_t *seg = rq_buf + ((size_t)(head & mask) << shift);

		if (likely(max_recv_sge != 0)) {
			const uint32_t span = RTE_MIN(left, cnt - (head & mask));
			uint32_t k;

			if (max_gs == 1)
				k = recv_run(seg, rq_wrid + (head & mask), wr, span, shift, false);
			else
				k = recv_run(seg, rq_wrid + (head & mask), wr, span, shift, true);
			head += k;
			left -= k;
			wr += k;
			if (k == span)
				continue;
			seg = rq_buf + ((size_t)(head & mask) << shift);
		}
		/* A WR no run takes: the general builder, then runs again. */
		if (unlikely(!recv_wqe_general(seg, wr, max_recv_sge, max_gs)))
			break;
		rq_wrid[head & mask] = wr->wr_id;
		head++;
		left--;
		wr++;
	}
	return recv_ring(qp, head0, head);
}

/*
 * The common burst first: one run of one-SGE receives that fits before
 * the ring's end, one data segment per 16-byte stride (no terminator: the
 * shift is a constant) or with the terminator; anything else (a WR of
 * another shape, the ring's end inside the burst, no receive SGEs, a full
 * RQ) goes on in post_recv_general from where the run stopped.
 */
uint16_t
rdx_mlx5_post_recv_burst(struct rdx_qp *bqp, const struct rdx_recv_wr *wr, uint16_t n)
{
	struct rdx_mlx5_qp *qp = (struct rdx_mlx5_qp *)bqp;
	const uint32_t head0 = qp->rq_head;
	const uint32_t mask = qp->rq_mask;
	const uint32_t lim = RTE_MIN((uint32_t)n, qp->rq_wqe_cnt - (head0 - qp->rq_tail));
	uint32_t k;

	if (unlikely(lim == 0 || lim > mask + 1 - (head0 & mask) || qp->max_recv_sge == 0))
		return post_recv_general(qp, wr, head0, head0, lim);
	if (likely(qp->rq_stride == 16))
		k = recv_run(qp->rq_buf + ((size_t)(head0 & mask) << 4),
			     qp->rq_wrid + (head0 & mask), wr, lim, 4, false);
	else
		k = recv_run(qp->rq_buf + ((size_t)(head0 & mask) << qp->rq_shift),
			     qp->rq_wrid + (head0 & mask), wr, lim, qp->rq_shift, true);
	if (unlikely(k != lim))
		return post_recv_general(qp, wr + k, head0, head0 + k, lim - k);
	return recv_ring(qp, head0, head0 + lim);
}
