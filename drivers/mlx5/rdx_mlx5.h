/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The mlx5 direct datapath: the state it keeps per QP and CQ, and the calls
 * both backends use to hand it their rings. The hardware backend
 * (mlx5_hw.c) gets the rings from mlx5dv_init_obj(); the software device
 * (sw_*.c) builds the same rings in shared memory and fills the same
 * struct mlx5dv_qp / struct mlx5dv_cq. The datapath cannot tell them apart,
 * except that a software CQ in inline-progress mode sets cq->progress.
 */
#ifndef RDX_MLX5_H
#define RDX_MLX5_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/mlx5dv.h>

#include "rdx_dev.h"

struct rdx_mlx5_qp;

/* Per-QP datapath counters (control-path readable; bumped once per burst). */
struct rdx_mlx5_qp_stats {
	uint64_t doorbells;     /* doorbell rings (one per non-empty burst) */
	uint64_t bf_posts;      /* of which BlueFlame copies */
	uint64_t wqes;          /* WQEs posted */
	uint64_t sq_full;       /* bursts cut short by a full SQ */
	uint64_t recv_doorbells;/* RQ doorbell-record updates */
};

struct rdx_mlx5_cq {
	struct rdx_cq base;             /* must be first */
	/* Software device, inline progress: run the model before polling.
	 * NULL on hardware. */
	void (*progress)(void *arg);
	void *progress_arg;
	uint8_t *buf;
	volatile __be32 *dbrec;
	uint32_t cons_index;
	uint32_t cqe_cnt;               /* power of two */
	uint32_t log_cqe_cnt;
	uint32_t cqe_size;              /* 64 or 128 */
	uint32_t cqn;
	/* QPs whose completions land here, found by QPN. */
	struct rdx_mlx5_qp **qps;
	uint32_t nb_qps;
	uint32_t max_qps;
};

struct rdx_mlx5_qp {
	struct rdx_qp base;             /* must be first */
	/* Send queue */
	uint8_t *sq_buf;
	uint8_t *sq_end;
	uint32_t sq_wqe_cnt;            /* WQEBBs, power of two */
	uint32_t sq_cur_post;           /* producer counter in WQEBBs */
	uint32_t sq_tail;               /* first unretired WQEBB */
	uint32_t sq_unsignaled;         /* WQEs since the last signaled one */
	volatile __be32 *dbrec;         /* [MLX5_RCV_DBR], [MLX5_SND_DBR] */
	uint8_t *bf_reg;                /* BlueFlame register base; NULL: none */
	uint32_t bf_size;               /* one half; 0: no BlueFlame */
	uint32_t bf_offset;             /* toggles between halves */
	uint32_t max_inline;
	uint32_t max_send_sge;
	uint64_t *sq_wrid;              /* per WQEBB: wr_id of the WQE starting there */
	uint32_t *sq_wqe_next;          /* per WQEBB: producer counter after that WQE */
	uint16_t *sq_wqe_nreq;          /* per WQEBB: WQE ordinal (for retired counts) */
	uint8_t *sq_wqe_op;             /* per WQEBB: enum rdx_wc_opcode */
	uint16_t sig_interval;
	bool sig_burst_end;
	/* Receive queue */
	uint8_t *rq_buf;
	uint32_t rq_wqe_cnt;
	uint32_t rq_stride;
	uint32_t rq_head;
	uint32_t rq_tail;
	uint32_t max_recv_sge;
	uint64_t *rq_wrid;
	struct rdx_mlx5_qp_stats stats;
};

/*
 * Give the datapath a QP's rings. qp->base (dev, conf, qp_num, user_ctx) is
 * filled by the caller; this sets the fast-path pointers in qp->base and
 * allocates the wr_id arrays (control path).
 */
int rdx_mlx5_qp_dp_init(struct rdx_mlx5_qp *qp, const struct mlx5dv_qp *dv,
			uint32_t qpn, uint32_t max_inline, uint32_t max_send_sge,
			uint32_t max_recv_sge);
void rdx_mlx5_qp_dp_fini(struct rdx_mlx5_qp *qp);
int rdx_mlx5_cq_dp_init(struct rdx_mlx5_cq *cq, const struct mlx5dv_cq *dv,
			uint32_t cqn, uint32_t max_qps);
void rdx_mlx5_cq_dp_fini(struct rdx_mlx5_cq *cq);
/* Route completions of qp to cq (send and/or receive side). */
int rdx_mlx5_cq_attach(struct rdx_mlx5_cq *cq, struct rdx_mlx5_qp *qp);
void rdx_mlx5_cq_detach(struct rdx_mlx5_cq *cq, struct rdx_mlx5_qp *qp);

uint16_t rdx_mlx5_post_burst(struct rdx_qp *qp, const struct rdx_wr *wr, uint16_t n);
uint16_t rdx_mlx5_post_recv_burst(struct rdx_qp *qp, const struct rdx_recv_wr *wr,
				  uint16_t n);
uint16_t rdx_mlx5_poll_burst(struct rdx_cq *cq, struct rdx_wc *wc, uint16_t n);
uint64_t rdx_mlx5_qp_retired_wr_id(const struct rdx_qp *qp, const struct rdx_wc *wc,
				   uint16_t i);

/* Map an mlx5 error-CQE syndrome to enum ibv_wc_status (cq.c rules). */
uint8_t rdx_mlx5_syndrome_to_status(uint8_t syndrome);

#endif /* RDX_MLX5_H */
