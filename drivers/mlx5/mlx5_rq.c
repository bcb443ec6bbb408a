/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mlx5 receive posting: data segments into the RQ (a terminating invalid
 * segment when a WR uses fewer than the stride holds), one doorbell record
 * update per batch (rdma-core providers/mlx5 mlx5_post_recv). A WR of one
 * non-empty SGE is one shuffled 16-byte store (set_data_seg_v).
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

uint16_t
rdx_mlx5_post_recv_burst(struct rdx_qp *bqp, const struct rdx_recv_wr *wr, uint16_t n)
{
	struct rdx_mlx5_qp *qp = (struct rdx_mlx5_qp *)bqp;
	/* Locals: the RQ stores may alias the QP and would force reloads. */
	uint8_t *const rq_buf = qp->rq_buf;
	uint64_t *const rq_wrid = qp->rq_wrid;
	const uint32_t mask = qp->rq_mask;
	const uint32_t shift = qp->rq_shift;
	const uint32_t max_recv_sge = qp->max_recv_sge;
	const uint32_t max_gs = qp->rq_stride >> 4;     /* 16-byte data segments */
	const uint32_t head0 = qp->rq_head;
	uint32_t head = head0;
	uint32_t room = qp->rq_wqe_cnt - (head - qp->rq_tail);
	uint32_t lim = RTE_MIN((uint32_t)n, room);
	uint16_t i;

	for (i = 0; i < lim; i++, wr++) {
		uint8_t *const seg = rq_buf + ((size_t)(head & mask) << shift);
		uint32_t j, used = 0;

		if (likely(wr->num_sge == 1 && max_recv_sge != 0 && wr->sge->length != 0)) {
			/* one SGE: one shuffled 16-byte store */
			set_data_seg_v(seg, wr->sge);
			used = 1;
		} else {
			if (unlikely(wr->num_sge > max_recv_sge))
				break;
			for (j = 0; j < wr->num_sge; j++) {
				if (unlikely(wr->sge[j].length == 0))
					continue;
				mlx5dv_set_data_seg((struct mlx5_wqe_data_seg *)(void *)
						    (seg + 16 * used), wr->sge[j].length,
						    wr->sge[j].lkey, (uintptr_t)wr->sge[j].addr);
				used++;
			}
		}
		/* Fewer segments than the stride holds: terminate the list
		 * (mlx5_post_recv: j < rq.max_gs, max_gs = stride / 16). */
		if (used < max_gs)
			mlx5dv_set_data_seg((struct mlx5_wqe_data_seg *)(void *)(seg + 16 * used), 0,
					    MLX5_INVALID_LKEY, 0);
		rq_wrid[head & mask] = wr->wr_id;
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
