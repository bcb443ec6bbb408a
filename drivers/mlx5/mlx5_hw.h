/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the files of the mlx5 hardware control path share (private to
 * drivers/mlx5): mlx5_hw.c (open, probe, registration, device attributes,
 * xstats), mlx5_hw_mem.c (memory registration, device memory) and
 * mlx5_hw_qp.c (thread domains and BlueFlame registers, CQs, RC and UD QPs,
 * address handles). Control path only: nothing here is on the fast path.
 */
#ifndef MLX5_HW_H
#define MLX5_HW_H

#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_atomic.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_io.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "rdx_config.h"
#include "rdx_dev_driver.h"
#include "rdx_mlx5.h"

/* Registered in mlx5_hw.c (RTE_LOG_REGISTER). */
extern int rdx_mlx5_logtype;
#define MLX5_LOG(level, ...) \
	rte_log((uint32_t)RTE_LOG_ ## level, (uint32_t)rdx_mlx5_logtype, "rdx_mlx5: " __VA_ARGS__)

/* The largest inline payload we advertise: rdma-core sizes an RC WQE as
 * 192 B of overhead + align16(4 + inline) and devices allow 512-byte send
 * descriptors at least, so 220 B always fits (mlx5-datapath.md §1). */
#define MLX5_HW_MAX_INLINE 220u
/* max_sq_desc_sz libmlx5 gets from the kernel (not in the public API): a
 * ConnectX-4/5/6 reports 512. */
#define MLX5_HW_MAX_SQ_DESC 512u
/* CQ doorbell record words (libmlx5 MLX5_CQ_SET_CI / MLX5_CQ_ARM_DB). */
#define MLX5_CQ_ARM_DB_IDX 1
/* One thread domain per lcore, plus one for non-EAL threads. */
#define MLX5_HW_NB_TD (RDX_MAX_LCORES + 1)

struct mlx5_hw_dev {
	struct rdx_dev base;            /* must be first */
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_device_attr_ex dattr;
	struct ibv_port_attr pattr;
	union ibv_gid gid;
	int gid_index;
	uint8_t port;
	bool td_unsupported;
	struct ibv_td *td[MLX5_HW_NB_TD];
	struct ibv_pd *td_pd[MLX5_HW_NB_TD];    /* parent domains */
	uint32_t td_refs[MLX5_HW_NB_TD];
	struct rdx_mlx5_bfreg td_bf[MLX5_HW_NB_TD];  /* each domain's register */
	bool td_bf_set[MLX5_HW_NB_TD];
	uint32_t max_send_wqebb;        /* libmlx5 max_send_wqebb = max_qp_wr */
	struct rdx_mlx5_objs objs;      /* QPs and CQs, for xstats */
};

struct mlx5_hw_mem {
	struct ibv_mr *mr;
	struct ibv_dm *dm;
};

struct mlx5_hw_cq {
	struct rdx_mlx5_cq mcq;         /* must be first */
	struct ibv_cq *ibcq;
	struct ibv_comp_channel *channel;
	void *cq_uar;
	uint32_t arm_sn;
};

struct mlx5_hw_qp {
	struct rdx_mlx5_qp mqp;         /* must be first */
	struct ibv_qp *ibqp;
	struct mlx5_hw_cq *scq;
	struct mlx5_hw_cq *rcq;
	uint32_t psn;
	uint32_t qkey;                  /* UD */
	int td_slot;                    /* -1: no per-lcore domain */
	struct ibv_td *own_td;          /* a domain of its own (post_lcore 0) */
	struct ibv_pd *own_pd;
};

static inline struct mlx5_hw_dev *
hw_dev(struct rdx_dev *dev)
{
	return (struct mlx5_hw_dev *)dev;
}

/* The GID is all zeroes (an unset table entry). */
static inline bool
gid_is_zero(const uint8_t *gid)
{
	unsigned int i;

	for (i = 0; i < 16; i++)
		if (gid[i] != 0)
			return false;
	return true;
}

/* Memory (mlx5_hw_mem.c): the rdx_dev_ops mem_* entries. */
struct rdx_mem *rdx_mlx5_hw_mem_alloc(struct rdx_dev *dev, size_t len, enum rdx_mem_type type,
				      int access);
struct rdx_mem *rdx_mlx5_hw_mem_reg(struct rdx_dev *dev, void *addr, size_t len, int access);
int rdx_mlx5_hw_mem_free(struct rdx_mem *mem);
int rdx_mlx5_hw_mem_copy_to(struct rdx_mem *mem, size_t off, const void *src, size_t len);
int rdx_mlx5_hw_mem_copy_from(struct rdx_mem *mem, size_t off, void *dst, size_t len);

/* CQs, QPs, address handles (mlx5_hw_qp.c): the rdx_dev_ops entries. */
struct rdx_cq *rdx_mlx5_hw_cq_create(struct rdx_dev *dev, const struct rdx_cq_conf *conf);
int rdx_mlx5_hw_cq_destroy(struct rdx_cq *cq);
int rdx_mlx5_hw_cq_wait(struct rdx_cq *cq, int timeout_ms);
struct rdx_qp *rdx_mlx5_hw_qp_create(struct rdx_dev *dev, const struct rdx_qp_conf *conf);
uint32_t rdx_mlx5_hw_qp_sq_depth_max(const struct rdx_dev *dev, uint8_t type,
				     uint32_t max_send_sge, uint32_t max_inline);
int rdx_mlx5_hw_qp_destroy(struct rdx_qp *qp);
int rdx_mlx5_hw_qp_info(struct rdx_qp *qp, struct rdx_qp_info *info);
int rdx_mlx5_hw_qp_connect(struct rdx_qp *qp, const struct rdx_qp_info *remote,
			   const struct rdx_qp_conn_attr *ca);
struct rdx_ah *rdx_mlx5_hw_ah_create(struct rdx_dev *dev, const struct rdx_ah_attr *attr);
int rdx_mlx5_hw_ah_destroy(struct rdx_ah *ah);

#endif /* MLX5_HW_H */
