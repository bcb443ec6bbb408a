/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal to the software device's driver ("sw"), shared by its two files:
 *   sw_dev.c     open, devargs, registration, close, memory, xstats, rdx_sw.h
 *   sw_dev_qp.c  CQ, QP and AH ops, connect, the post and inline-poll ops
 * The ops table (sw_dev.c) names the ops of sw_dev_qp.c, declared here
 * hidden (direct calls, no PLT). No op here is on the per-WR path: the
 * post and poll ops are reached through the datapath's function pointers.
 */
#ifndef SW_DEV_PRIV_H
#define SW_DEV_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "rdx_dev_driver.h"
#include "rdx_mlx5.h"
#include "rdx_sw.h"
#include "sw_model.h"

#define SW_DEV_HIDDEN __attribute__((visibility("hidden")))

struct sw_dev {
	struct rdx_dev base; /* must be first */
	struct sw_engine eng;
	struct rdx_mlx5_objs objs;      /* QPs and CQs, for xstats */
	enum rdx_sw_progress progress;  /* devargs progress= */
};

struct sw_mem {
	struct rdx_mem base; /* must be first */
	uint64_t shm_off;    /* 0: process memory */
	size_t huge_map;     /* RDX_MEM_HUGE from mmap(MAP_HUGETLB): its length */
	bool huge_rte;       /* RDX_MEM_HUGE from EAL (rte_zmalloc) */
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

static inline struct sw_dev *
sw_dev(struct rdx_dev *dev)
{
	return (struct sw_dev *)dev;
}

/* sw_dev_qp.c: the CQ, QP and AH ops (sw_dev_ops in sw_dev.c). */
SW_DEV_HIDDEN struct rdx_cq *sw_cq_create_op(struct rdx_dev *dev, const struct rdx_cq_conf *conf);
SW_DEV_HIDDEN int sw_cq_destroy_op(struct rdx_cq *rcq);
SW_DEV_HIDDEN int sw_cq_wait(struct rdx_cq *rcq, int timeout_ms);
SW_DEV_HIDDEN struct rdx_qp *sw_qp_create_op(struct rdx_dev *dev, const struct rdx_qp_conf *conf);
SW_DEV_HIDDEN uint32_t sw_qp_sq_depth_max(const struct rdx_dev *dev, uint8_t type,
					 uint32_t max_send_sge, uint32_t max_inline);
SW_DEV_HIDDEN int sw_qp_destroy_op(struct rdx_qp *rqp);
SW_DEV_HIDDEN int sw_qp_info(struct rdx_qp *rqp, struct rdx_qp_info *info);
SW_DEV_HIDDEN int sw_qp_connect_op(struct rdx_qp *rqp, const struct rdx_qp_info *remote,
				   const struct rdx_qp_conn_attr *attr);
SW_DEV_HIDDEN struct rdx_ah *sw_ah_create(struct rdx_dev *dev, const struct rdx_ah_attr *attr);
SW_DEV_HIDDEN int sw_ah_destroy(struct rdx_ah *bah);
SW_DEV_HIDDEN uint64_t sw_qp_retired_wr_id(const struct rdx_qp *qp, const struct rdx_wc *wc,
					   uint16_t i);

#endif /* SW_DEV_PRIV_H */
