/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The mlx5 hardware control path: open an mlx5 device through ibverbs,
 * create CQs and RC or UD QPs with mlx5dv (UD: RESET->INIT with port,
 * P_Key index 0 and Q_Key, ->RTR, ->RTS with the SQ PSN; address handles by
 * ibv_create_ah and mlx5dv_init_obj(MLX5DV_OBJ_AH), whose AV the datapath
 * copies into each UD WQE), take their rings with mlx5dv_init_obj()
 * and hand them to the direct datapath (rdx_mlx5_qp_bind/rdx_mlx5_cq_bind,
 * mlx5_obj.c). Everything here is control path: it may allocate, log and
 * enter the kernel.
 *
 * Doorbell registers: a thread domain (ibv_alloc_td + parent domain) makes
 * libmlx5 give its QPs a dedicated, lock-free BlueFlame register (bfreg);
 * the QPs of one domain share it and its half toggle (struct
 * rdx_mlx5_bfreg), so only one thread may ring it. The domain therefore
 * belongs to the thread that POSTS, not the one that creates the QP:
 * conf.post_lcore names it (QPs naming one lcore share that lcore's
 * domain); without it (0) the QP gets a domain of its own, which any one
 * thread at a time may use. When no domain can be had, the QP goes on the
 * plain PD; libmlx5 may then share a medium-latency bfreg between QPs (it
 * takes a lock, we cannot), so the datapath rings with plain 8-byte
 * doorbells (bf.size forced to 0, atomic 64-bit writes) rather than
 * BlueFlame copies that could interleave.
 *
 * CQ events: a CQ whose ring was taken by mlx5dv_init_obj() is consumed by
 * the datapath, so libmlx5's consumer index is stale and ibv_req_notify_cq()
 * would arm with the wrong CI. We arm it ourselves the way libmlx5's
 * mlx5_arm_cq does (mlx5-datapath.md §4): dbrec[1] = sn<<28 | cmd | ci,
 * then a 64-bit doorbell (that word << 32 | cqn) to cq_uar + 0x20; arm_sn is
 * bumped per event received, as libmlx5 does in mlx5_cq_event().
 */
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

RTE_LOG_REGISTER(rdx_mlx5_logtype, rdx.drv.mlx5, NOTICE)
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

/* Counters (xstats): the datapath sums of the device's QPs and CQs. */
static int
hw_xstats_get(struct rdx_dev *dev, struct rdx_dev_xstat *xs, unsigned int n)
{
	return (int)rdx_mlx5_objs_xstats(&hw_dev(dev)->objs, xs, n, 0);
}

/* ---------------------------------------------------------------------- */
/* Device                                                                  */

static int
hw_close(struct rdx_dev *dev)
{
	struct mlx5_hw_dev *hd = hw_dev(dev);
	unsigned int i;

	for (i = 0; i < MLX5_HW_NB_TD; i++) {
		if (hd->td_pd[i] != NULL)
			ibv_dealloc_pd(hd->td_pd[i]);
		if (hd->td[i] != NULL)
			ibv_dealloc_td(hd->td[i]);
	}
	if (hd->pd != NULL)
		ibv_dealloc_pd(hd->pd);
	if (hd->ctx != NULL)
		ibv_close_device(hd->ctx);
	rdx_mlx5_objs_fini(&hd->objs);
	free(hd);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Memory                                                                  */

static struct rdx_mem *
hw_mem_new(struct rdx_dev *dev, size_t len, int access, enum rdx_mem_type type)
{
	struct rdx_mem *mem = calloc(1, sizeof(*mem) + sizeof(struct mlx5_hw_mem));

	if (mem == NULL)
		return NULL;
	mem->dev = dev;
	mem->len = len;
	mem->access = access;
	mem->type = type;
	mem->drv = mem + 1;
	return mem;
}

static struct rdx_mem *
hw_mem_alloc(struct rdx_dev *dev, size_t len, enum rdx_mem_type type, int access)
{
	struct mlx5_hw_dev *hd = hw_dev(dev);
	struct rdx_mem *mem;
	struct mlx5_hw_mem *hm;
	void *buf = NULL;
	int err;

	if (len == 0 || (access & ~RDX_ACCESS_ALL) != 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	mem = hw_mem_new(dev, len, access, type);
	if (mem == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	hm = mem->drv;
	mem->owned = true;
	switch (type) {
	case RDX_MEM_HOST:
		err = posix_memalign(&buf, 4096, len);
		if (err != 0) {
			MLX5_LOG(ERR, "allocating %zu bytes of host memory failed: %s\n",
				 len, strerror(err));
			rte_errno = err;
			goto fail;
		}
		memset(buf, 0, len);
		break;
	case RDX_MEM_HUGE:
		/* EAL memory: hugepages when EAL has them (else --no-huge pages). */
		buf = rte_zmalloc("rdx_mlx5_mem", len, 4096);
		if (buf == NULL) {
			MLX5_LOG(ERR, "allocating %zu bytes of EAL (hugepage) memory failed "
				 "(is EAL initialised, with enough memory?)\n", len);
			rte_errno = ENOMEM;
			goto fail;
		}
		break;
	case RDX_MEM_DM: {
		struct ibv_alloc_dm_attr da = { .length = len, .log_align_req = 3 };

		if (hd->dattr.max_dm_size == 0 || len > hd->dattr.max_dm_size) {
			MLX5_LOG(ERR, "device memory of %zu bytes not available on %s "
				 "(max %" PRIu64 ")\n", len, dev->attr.name,
				 (uint64_t)hd->dattr.max_dm_size);
			rte_errno = ENOTSUP;
			goto fail;
		}
		hm->dm = ibv_alloc_dm(hd->ctx, &da);
		if (hm->dm == NULL) {
			err = errno != 0 ? errno : ENOMEM;
			MLX5_LOG(ERR, "ibv_alloc_dm(%zu bytes) failed: %s\n", len, strerror(err));
			rte_errno = err;
			goto fail;
		}
		/* DM MRs must be zero-based: SGEs and remote addresses are offsets. */
		hm->mr = ibv_reg_dm_mr(hd->pd, hm->dm, 0, len,
				       (unsigned int)access | IBV_ACCESS_ZERO_BASED);
		if (hm->mr == NULL) {
			err = errno != 0 ? errno : EINVAL;
			MLX5_LOG(ERR, "ibv_reg_dm_mr(%zu bytes) failed: %s\n", len, strerror(err));
			rte_errno = err;
			goto fail;
		}
		mem->addr = NULL;
		mem->iova = 0;
		mem->lkey = hm->mr->lkey;
		mem->rkey = hm->mr->rkey;
		return mem;
	}
	default:
		rte_errno = EINVAL;
		goto fail;
	}
	hm->mr = ibv_reg_mr(hd->pd, buf, len, (unsigned int)access);
	if (hm->mr == NULL) {
		err = errno != 0 ? errno : EINVAL;
		MLX5_LOG(ERR, "ibv_reg_mr(%zu bytes, %s) failed: %s\n", len,
			 rdx_mem_type_name(type), strerror(err));
		rte_errno = err;
		goto fail;
	}
	mem->addr = buf;
	mem->iova = (uint64_t)(uintptr_t)buf;
	mem->lkey = hm->mr->lkey;
	mem->rkey = hm->mr->rkey;
	return mem;
fail:
	if (hm->dm != NULL)
		ibv_free_dm(hm->dm);
	if (type == RDX_MEM_HUGE)
		rte_free(buf);
	else
		free(buf);
	free(mem);
	return NULL;
}

static struct rdx_mem *
hw_mem_reg(struct rdx_dev *dev, void *addr, size_t len, int access)
{
	struct mlx5_hw_dev *hd = hw_dev(dev);
	struct rdx_mem *mem;
	struct mlx5_hw_mem *hm;
	int err;

	if (addr == NULL || len == 0 || (access & ~RDX_ACCESS_ALL) != 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	mem = hw_mem_new(dev, len, access, RDX_MEM_HOST);
	if (mem == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	hm = mem->drv;
	hm->mr = ibv_reg_mr(hd->pd, addr, len, (unsigned int)access);
	if (hm->mr == NULL) {
		err = errno != 0 ? errno : EINVAL;
		MLX5_LOG(ERR, "ibv_reg_mr(%p, %zu bytes) failed: %s\n", addr, len,
			 strerror(err));
		free(mem);
		rte_errno = err;
		return NULL;
	}
	mem->addr = addr;
	mem->iova = (uint64_t)(uintptr_t)addr;
	mem->lkey = hm->mr->lkey;
	mem->rkey = hm->mr->rkey;
	return mem;
}

static int
hw_mem_free(struct rdx_mem *mem)
{
	struct mlx5_hw_mem *hm = mem->drv;
	int ret = 0;

	if (hm->mr != NULL && ibv_dereg_mr(hm->mr) != 0) {
		ret = -(errno != 0 ? errno : EBUSY);
		MLX5_LOG(ERR, "ibv_dereg_mr failed: %s\n", strerror(-ret));
		return ret;
	}
	if (hm->dm != NULL)
		ibv_free_dm(hm->dm);
	else if (mem->owned && mem->type == RDX_MEM_HUGE)
		rte_free(mem->addr);
	else if (mem->owned)
		free(mem->addr);
	free(mem);
	return 0;
}

static int
hw_mem_copy_to(struct rdx_mem *mem, size_t off, const void *src, size_t len)
{
	struct mlx5_hw_mem *hm = mem->drv;

	if (off > mem->len || len > mem->len - off)
		return -ERANGE;
	if (hm->dm != NULL) {
		int ret = ibv_memcpy_to_dm(hm->dm, off, src, len);

		return ret == 0 ? 0 : -(ret > 0 ? ret : EIO);
	}
	memcpy((uint8_t *)mem->addr + off, src, len);
	return 0;
}

static int
hw_mem_copy_from(struct rdx_mem *mem, size_t off, void *dst, size_t len)
{
	struct mlx5_hw_mem *hm = mem->drv;

	if (off > mem->len || len > mem->len - off)
		return -ERANGE;
	if (hm->dm != NULL) {
		int ret = ibv_memcpy_from_dm(dst, hm->dm, off, len);

		return ret == 0 ? 0 : -(ret > 0 ? ret : EIO);
	}
	memcpy(dst, (const uint8_t *)mem->addr + off, len);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* CQ                                                                      */

static int
hw_cq_destroy(struct rdx_cq *cq)
{
	struct mlx5_hw_cq *hc = (struct mlx5_hw_cq *)cq;
	struct mlx5_hw_dev *hd = hw_dev(cq->dev);
	int ret;

	if (hc->mcq.nb_qps != 0) {
		MLX5_LOG(ERR, "CQ 0x%x still has %u QPs attached\n", hc->mcq.cqn,
			 hc->mcq.nb_qps);
		return -EBUSY;
	}
	ret = ibv_destroy_cq(hc->ibcq);
	if (ret != 0) {
		MLX5_LOG(ERR, "ibv_destroy_cq(0x%x) failed: %s\n", hc->mcq.cqn, strerror(ret));
		return -ret;
	}
	if (hc->channel != NULL)
		ibv_destroy_comp_channel(hc->channel);
	rdx_mlx5_cq_unbind(&hd->objs, &hc->mcq);
	free(hc);
	return 0;
}

static struct rdx_cq *
hw_cq_create(struct rdx_dev *dev, const struct rdx_cq_conf *conf)
{
	struct mlx5_hw_dev *hd = hw_dev(dev);
	struct mlx5dv_obj obj;
	struct mlx5dv_cq dv;
	struct mlx5_hw_cq *hc;
	int ret;

	/* conf->depth is within attr.max_cqe (lib/dev) */
	hc = calloc(1, sizeof(*hc));
	if (hc == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	if (conf->events) {
		hc->channel = ibv_create_comp_channel(hd->ctx);
		if (hc->channel == NULL) {
			ret = errno != 0 ? errno : ENOMEM;
			MLX5_LOG(ERR, "ibv_create_comp_channel failed: %s\n", strerror(ret));
			goto fail;
		}
	}
	hc->ibcq = ibv_create_cq(hd->ctx, (int)conf->depth, hc, hc->channel, 0);
	if (hc->ibcq == NULL) {
		ret = errno != 0 ? errno : ENOMEM;
		MLX5_LOG(ERR, "ibv_create_cq(depth %u) failed: %s\n", conf->depth,
			 strerror(ret));
		goto fail;
	}
	memset(&dv, 0, sizeof(dv));
	obj.cq.in = hc->ibcq;
	obj.cq.out = &dv;
	ret = mlx5dv_init_obj(&obj, MLX5DV_OBJ_CQ);
	if (ret != 0) {
		ret = ret > 0 ? ret : EINVAL;
		MLX5_LOG(ERR, "mlx5dv_init_obj(CQ) failed: %s\n", strerror(ret));
		goto fail;
	}
	/* QP lookup table sized for every QP an lcore may drive, twice. */
	hc->cq_uar = dv.cq_uar;
	ret = -rdx_mlx5_cq_bind(&hd->objs, &hc->mcq, dev, conf, &dv, 2 * RDX_MAX_QPS_PER_LCORE);
	if (ret != 0) {
		MLX5_LOG(ERR, "CQ 0x%x ring not usable (cqe_cnt %u, cqe_size %u): %s\n",
			 dv.cqn, dv.cqe_cnt, dv.cqe_size, strerror(ret));
		goto fail;
	}
	return &hc->mcq.base;
fail:
	if (hc->ibcq != NULL)
		ibv_destroy_cq(hc->ibcq);
	if (hc->channel != NULL)
		ibv_destroy_comp_channel(hc->channel);
	free(hc);
	rte_errno = ret;
	return NULL;
}

/* Request an event for the next completion (libmlx5 mlx5_arm_cq rules). */
static void
hw_cq_arm(struct mlx5_hw_cq *hc)
{
	uint32_t sn = hc->arm_sn & 3;
	uint32_t ci = hc->mcq.cons_index & 0xffffff;
	uint32_t doorbell = sn << 28 | MLX5_CQ_DB_REQ_NOT | ci;
	uint64_t db64 = (uint64_t)doorbell << 32 | hc->mcq.cqn;

	hc->mcq.dbrec[MLX5_CQ_ARM_DB_IDX] = htobe32(doorbell);
	/* The arm record must be visible before the doorbell (mmio_wc_start). */
	rte_wmb();
	rte_write64_relaxed(htobe64(db64), (volatile uint8_t *)hc->cq_uar + MLX5_CQ_DOORBELL);
	rte_wmb();
}

static int
hw_cq_wait(struct rdx_cq *cq, int timeout_ms)
{
	struct mlx5_hw_cq *hc = (struct mlx5_hw_cq *)cq;
	struct ibv_cq *ev_cq;
	struct pollfd pfd;
	void *ev_ctx;
	int ret;

	if (hc->channel == NULL)
		return -EINVAL;
	hw_cq_arm(hc);
	pfd.fd = hc->channel->fd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	do {
		ret = poll(&pfd, 1, timeout_ms);
	} while (ret < 0 && errno == EINTR);
	if (ret < 0)
		return -errno;
	if (ret == 0)
		return -ETIMEDOUT;
	if (ibv_get_cq_event(hc->channel, &ev_cq, &ev_ctx) != 0)
		return -(errno != 0 ? errno : EIO);
	ibv_ack_cq_events(ev_cq, 1);
	/* One event consumed: the next arm uses the next sequence number. */
	hc->arm_sn++;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* QP                                                                      */

/* A thread domain and its parent domain on hd->pd; false when refused. */
static bool
hw_td_alloc(struct mlx5_hw_dev *hd, struct ibv_td **td, struct ibv_pd **pd)
{
	struct ibv_parent_domain_init_attr pa;
	struct ibv_td_init_attr ta = { .comp_mask = 0 };
	int err;

	*td = ibv_alloc_td(hd->ctx, &ta);
	if (*td == NULL) {
		err = errno;
		/* Only "not supported" is final; running out is per QP. */
		if (err == EOPNOTSUPP || err == ENOSYS)
			hd->td_unsupported = true;
		MLX5_LOG(INFO, "ibv_alloc_td on %s failed (%s): QP rings with 8-byte "
			 "doorbells, no BlueFlame\n", hd->base.attr.name, strerror(err));
		return false;
	}
	memset(&pa, 0, sizeof(pa));
	pa.pd = hd->pd;
	pa.td = *td;
	*pd = ibv_alloc_parent_domain(hd->ctx, &pa);
	if (*pd == NULL) {
		MLX5_LOG(INFO, "ibv_alloc_parent_domain on %s failed (%s): QP rings with "
			 "8-byte doorbells, no BlueFlame\n", hd->base.attr.name, strerror(errno));
		ibv_dealloc_td(*td);
		*td = NULL;
		return false;
	}
	return true;
}

/*
 * The protection domain a QP is created on: the posting lcore's parent
 * domain (conf.post_lcore, created on first use), a domain of the QP's own
 * (post_lcore 0), or the plain PD when none can be had (then no BlueFlame).
 */
static struct ibv_pd *
hw_td_pd(struct mlx5_hw_dev *hd, struct mlx5_hw_qp *hq, uint32_t post_lcore)
{
	unsigned int i;

	hq->td_slot = -1;
	if (hd->td_unsupported)
		return hd->pd;
	if (post_lcore == 0)
		return hw_td_alloc(hd, &hq->own_td, &hq->own_pd) ? hq->own_pd : hd->pd;
	i = post_lcore - 1 < RDX_MAX_LCORES ? post_lcore - 1 : RDX_MAX_LCORES;
	if (hd->td_pd[i] == NULL && !hw_td_alloc(hd, &hd->td[i], &hd->td_pd[i]))
		return hd->pd;
	hd->td_refs[i]++;
	hq->td_slot = (int)i;
	return hd->td_pd[i];
}

/* Release what hw_td_pd gave (after the QP is destroyed). */
static void
hw_td_put(struct mlx5_hw_dev *hd, struct mlx5_hw_qp *hq)
{
	if (hq->td_slot >= 0)
		hd->td_refs[hq->td_slot]--;
	hq->td_slot = -1;
	if (hq->own_pd != NULL)
		ibv_dealloc_pd(hq->own_pd);
	if (hq->own_td != NULL)
		ibv_dealloc_td(hq->own_td);
	hq->own_pd = NULL;
	hq->own_td = NULL;
}

static int
hw_qp_destroy(struct rdx_qp *qp)
{
	struct mlx5_hw_qp *hq = (struct mlx5_hw_qp *)qp;
	struct mlx5_hw_dev *hd = hw_dev(qp->dev);
	int ret;

	ret = ibv_destroy_qp(hq->ibqp);
	if (ret != 0) {
		MLX5_LOG(ERR, "ibv_destroy_qp(0x%x) failed: %s\n", qp->qp_num, strerror(ret));
		return -ret;
	}
	rdx_mlx5_qp_unbind(&hd->objs, &hq->mqp);
	hw_td_put(hd, hq);
	free(hq);
	return 0;
}

static struct rdx_qp *
hw_qp_create(struct rdx_dev *dev, const struct rdx_qp_conf *conf)
{
	struct mlx5_hw_dev *hd = hw_dev(dev);
	struct ibv_qp_init_attr_ex qa;
	struct mlx5dv_qp_init_attr da;
	struct mlx5dv_obj obj;
	struct mlx5dv_qp dv;
	struct mlx5_hw_qp *hq;
	uint32_t max_inline, max_send_sge, max_recv_sge, max_wr;
	const bool ud = conf->type == RDX_QP_UD;
	int ret;

	/* conf is within attr, its CQs are dev's (lib/dev) */
	if (conf->type != RDX_QP_RC && conf->type != RDX_QP_UD) {
		MLX5_LOG(ERR, "QP type %u not supported\n", conf->type);
		rte_errno = ENOTSUP;
		return NULL;
	}
	/* mlx5_calc_sq_size would refuse a deeper SQ (EINVAL from create). */
	max_wr = (ud ? rdx_mlx5_ud_max_send_wr : rdx_mlx5_rc_max_send_wr)
		(hd->max_send_wqebb, MLX5_HW_MAX_SQ_DESC, RTE_MAX(conf->max_send_sge, 1u),
		 conf->max_inline);
	if (conf->sq_depth > max_wr) {
		MLX5_LOG(ERR, "QP sq_depth %u too deep: a%s QP with %u send SGEs and %u "
			 "inline bytes takes at most %u WRs on %s (libmlx5 sizes each WQE "
			 "with %u B of overhead; the SQ may have %u WQEBBs)\n", conf->sq_depth,
			 ud ? " UD" : "n RC", RTE_MAX(conf->max_send_sge, 1u), conf->max_inline,
			 max_wr, dev->attr.name,
			 ud ? RDX_MLX5_UD_SQ_OVERHEAD : RDX_MLX5_RC_SQ_OVERHEAD,
			 hd->max_send_wqebb);
		rte_errno = EINVAL;
		return NULL;
	}
	hq = calloc(1, sizeof(*hq));
	if (hq == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	hq->td_slot = -1;
	hq->scq = (struct mlx5_hw_cq *)conf->send_cq;
	hq->rcq = (struct mlx5_hw_cq *)conf->recv_cq;
	memset(&qa, 0, sizeof(qa));
	qa.qp_type = ud ? IBV_QPT_UD : IBV_QPT_RC;
	qa.send_cq = hq->scq->ibcq;
	qa.recv_cq = hq->rcq->ibcq;
	qa.cap.max_send_wr = conf->sq_depth;
	qa.cap.max_recv_wr = conf->rq_depth;
	qa.cap.max_send_sge = RTE_MAX(conf->max_send_sge, 1u);
	qa.cap.max_recv_sge = conf->rq_depth != 0 ? RTE_MAX(conf->max_recv_sge, 1u) : 0;
	qa.cap.max_inline_data = conf->max_inline;
	qa.sq_sig_all = 0;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD;
	qa.pd = hw_td_pd(hd, hq, conf->post_lcore);
	memset(&da, 0, sizeof(da));
	/* Receives always land in the RQ buffers (datapath contract). */
	da.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS;
	da.create_flags = MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE;
	hq->ibqp = mlx5dv_create_qp(hd->ctx, &qa, &da);
	if (hq->ibqp == NULL) {
		ret = errno != 0 ? errno : EINVAL;
		MLX5_LOG(ERR, "mlx5dv_create_qp(sq %u, rq %u, inline %u) failed: %s\n",
			 conf->sq_depth, conf->rq_depth, conf->max_inline, strerror(ret));
		goto fail;
	}
	memset(&dv, 0, sizeof(dv));
	obj.qp.in = hq->ibqp;
	obj.qp.out = &dv;
	ret = mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP);
	if (ret != 0) {
		ret = ret > 0 ? ret : EINVAL;
		MLX5_LOG(ERR, "mlx5dv_init_obj(QP 0x%x) failed: %s\n", hq->ibqp->qp_num,
			 strerror(ret));
		goto fail;
	}
	if (qa.pd == hd->pd)
		dv.bf.size = 0;     /* possibly shared register: no BlueFlame copies */
	/* Granted limits (create updates qa.cap); the RQ takes stride/16 SGEs
	 * and its terminator rule follows that (mlx5_post_recv max_gs). */
	max_inline = RTE_MIN(qa.cap.max_inline_data,
			     ud ? RDX_MLX5_UD_MAX_INLINE : RDX_MLX5_MAX_INLINE);
	max_send_sge = RTE_MIN(RTE_MIN(qa.cap.max_send_sge, (uint32_t)RDX_MAX_SGE),
			       ud ? RDX_MLX5_UD_MAX_SEND_SGE : RDX_MLX5_MAX_SEND_SGE);
	if (ud)
		max_inline = RTE_MIN(max_inline, dev->attr.max_ud_msg);
	max_recv_sge = dv.rq.wqe_cnt != 0 ?
		RTE_MIN(dv.rq.stride / 16, (uint32_t)RDX_MAX_SGE) : 0;
	ret = -rdx_mlx5_qp_bind(&hd->objs, &hq->mqp, dev, conf, &dv, hq->ibqp->qp_num,
				max_inline, max_send_sge, max_recv_sge);
	if (ret != 0) {
		MLX5_LOG(ERR, "QP 0x%x rings not usable by the datapath (sq %u x %u B, "
			 "rq %u x %u B): %s\n", hq->ibqp->qp_num, dv.sq.wqe_cnt, dv.sq.stride,
			 dv.rq.wqe_cnt, dv.rq.stride, strerror(ret));
		goto fail;
	}
	if (hq->td_slot >= 0) {
		/* The lcore's QPs share its register and the half toggle. */
		struct rdx_mlx5_bfreg *bf = &hd->td_bf[hq->td_slot];

		if (!hd->td_bf_set[hq->td_slot]) {
			rdx_mlx5_bfreg_init(bf, dv.bf.reg, dv.bf.size);
			hd->td_bf_set[hq->td_slot] = true;
		}
		ret = -rdx_mlx5_qp_bfreg_share(&hq->mqp, bf);
		if (ret != 0) {
			MLX5_LOG(ERR, "QP 0x%x: libmlx5 gave register %p, its thread domain has %p\n",
				 hq->ibqp->qp_num, dv.bf.reg, (void *)bf->reg);
			goto fail_dp;
		}
	}
	if (hq->mqp.base.conf.sq_depth < conf->sq_depth) {
		MLX5_LOG(ERR, "QP 0x%x: SQ of %u WQEBBs holds %u WRs, %u asked\n",
			 hq->ibqp->qp_num, dv.sq.wqe_cnt, hq->mqp.base.conf.sq_depth,
			 conf->sq_depth);
		ret = ENOSPC;
		goto fail_dp;
	}
	hq->psn = (uint32_t)(rte_rdtsc() ^ ((uint64_t)hq->ibqp->qp_num << 8)) & 0xffffff;
	hq->qkey = conf->qkey;
	return &hq->mqp.base;
fail_dp:
	MLX5_LOG(ERR, "QP 0x%x setup failed: %s\n", hq->ibqp->qp_num, strerror(ret));
	rdx_mlx5_qp_unbind(&hd->objs, &hq->mqp);
fail:
	if (hq->ibqp != NULL)
		ibv_destroy_qp(hq->ibqp);
	hw_td_put(hd, hq);
	free(hq);
	rte_errno = ret;
	return NULL;
}

static int
hw_qp_info(struct rdx_qp *qp, struct rdx_qp_info *info)
{
	struct mlx5_hw_qp *hq = (struct mlx5_hw_qp *)qp;
	struct mlx5_hw_dev *hd = hw_dev(qp->dev);

	memset(info, 0, sizeof(*info));
	info->qp_num = qp->qp_num;
	info->psn = hq->psn;
	info->lid = hd->pattr.lid;
	info->port = hd->port;
	info->mtu = (uint8_t)hd->pattr.active_mtu;
	memcpy(info->gid, hd->gid.raw, sizeof(info->gid));
	info->gid_index = hd->gid_index;
	info->qp_type = qp->conf.type;
	info->qkey = qp->conf.type == RDX_QP_UD ? hq->qkey : 0;
	snprintf(info->driver, sizeof(info->driver), "mlx5");
	return 0;
}

static bool
gid_is_zero(const uint8_t *gid)
{
	unsigned int i;

	for (i = 0; i < 16; i++)
		if (gid[i] != 0)
			return false;
	return true;
}

/*
 * A UD QP to RTS (IBTA 11.2.4.2 / ibv_modify_qp(3) UD attributes): INIT
 * takes the port, the P_Key index and the Q_Key, RTR nothing more, RTS the
 * SQ PSN.
 */
static int
hw_ud_activate(struct mlx5_hw_qp *hq, struct mlx5_hw_dev *hd)
{
	struct ibv_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = hd->port;
	a.qkey = hq->qkey;
	ret = ibv_modify_qp(hq->ibqp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			    IBV_QP_QKEY);
	if (ret != 0) {
		MLX5_LOG(ERR, "modify UD QP 0x%x to INIT (port %u, qkey 0x%x) failed: %s\n",
			 hq->ibqp->qp_num, hd->port, hq->qkey, strerror(ret));
		return -ret;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	ret = ibv_modify_qp(hq->ibqp, &a, IBV_QP_STATE);
	if (ret != 0) {
		MLX5_LOG(ERR, "modify UD QP 0x%x to RTR failed: %s\n", hq->ibqp->qp_num,
			 strerror(ret));
		return -ret;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = hq->psn;
	ret = ibv_modify_qp(hq->ibqp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
	if (ret != 0) {
		MLX5_LOG(ERR, "modify UD QP 0x%x to RTS failed: %s\n", hq->ibqp->qp_num,
			 strerror(ret));
		return -ret;
	}
	return 0;
}

static int
hw_qp_connect(struct rdx_qp *qp, const struct rdx_qp_info *remote,
	      const struct rdx_qp_conn_attr *ca)
{
	struct mlx5_hw_qp *hq = (struct mlx5_hw_qp *)qp;
	struct mlx5_hw_dev *hd = hw_dev(qp->dev);
	struct ibv_qp_attr a;
	enum ibv_mtu mtu;
	uint8_t rd_atomic;
	int ret;

	if (qp->conf.type == RDX_QP_UD) {
		if (remote != NULL) {
			MLX5_LOG(ERR, "UD QP 0x%x connects without a remote\n", qp->qp_num);
			return -EINVAL;
		}
		return hw_ud_activate(hq, hd);
	}
	if (remote == NULL) {
		MLX5_LOG(ERR, "RC QP 0x%x needs a remote to connect\n", qp->qp_num);
		return -EINVAL;
	}
	if (remote->qp_num == 0 || remote->qp_num > 0xffffff) {
		MLX5_LOG(ERR, "bad remote QP number 0x%x\n", remote->qp_num);
		return -EINVAL;
	}
	mtu = ca->mtu != 0 ? (enum ibv_mtu)ca->mtu : hd->pattr.active_mtu;
	if (remote->mtu != 0 && remote->mtu < mtu)
		mtu = (enum ibv_mtu)remote->mtu;
	rd_atomic = (uint8_t)RTE_MIN((int)ca->max_rd_atomic,
				     RTE_MIN(hd->dattr.orig_attr.max_qp_rd_atom,
					     hd->dattr.orig_attr.max_qp_init_rd_atom));

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = hd->port;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	ret = ibv_modify_qp(hq->ibqp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			    IBV_QP_ACCESS_FLAGS);
	if (ret != 0) {
		MLX5_LOG(ERR, "modify QP to INIT failed: %s (qpn 0x%x)\n", strerror(ret),
			 qp->qp_num);
		return -ret;
	}

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = mtu;
	a.dest_qp_num = remote->qp_num;
	a.rq_psn = remote->psn & 0xffffff;
	a.max_dest_rd_atomic = rd_atomic;
	a.min_rnr_timer = ca->min_rnr_timer;
	a.ah_attr.dlid = remote->lid;
	a.ah_attr.sl = ca->sl;
	a.ah_attr.port_num = hd->port;
	/* RoCE always needs the GRH; IB only across subnets (non-zero GID given
	 * with no LID). */
	if (hd->pattr.link_layer == IBV_LINK_LAYER_ETHERNET ||
	    (remote->lid == 0 && !gid_is_zero(remote->gid))) {
		a.ah_attr.is_global = 1;
		memcpy(a.ah_attr.grh.dgid.raw, remote->gid, 16);
		a.ah_attr.grh.sgid_index = (uint8_t)hd->gid_index;
		a.ah_attr.grh.hop_limit = 64;
	}
	ret = ibv_modify_qp(hq->ibqp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			    IBV_QP_MIN_RNR_TIMER);
	if (ret != 0) {
		MLX5_LOG(ERR, "modify QP to RTR failed: %s (remote qpn 0x%x)\n",
			 strerror(ret), remote->qp_num);
		return -ret;
	}

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = hq->psn;
	a.timeout = ca->timeout;
	a.retry_cnt = ca->retry_cnt;
	a.rnr_retry = ca->rnr_retry;
	a.max_rd_atomic = rd_atomic;
	ret = ibv_modify_qp(hq->ibqp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
			    IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
	if (ret != 0) {
		MLX5_LOG(ERR, "modify QP to RTS failed: %s (remote qpn 0x%x)\n",
			 strerror(ret), remote->qp_num);
		return -ret;
	}
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Address handles (UD)                                                    */

/* attr (checked and defaulted by lib/dev) -> ibv_ah_attr of hd's port. */
static int
hw_ah_attr(const struct mlx5_hw_dev *hd, const struct rdx_ah_attr *attr,
	   struct ibv_ah_attr *ia)
{
	int sgid = attr->sgid_index >= 0 ? attr->sgid_index : hd->gid_index;

	if (attr->port != hd->port) {
		MLX5_LOG(ERR, "address handle on port %u: device %s is open on port %u\n",
			 attr->port, hd->base.attr.name, hd->port);
		return -EINVAL;
	}
	if (attr->is_global && (sgid < 0 || sgid >= hd->pattr.gid_tbl_len || sgid > 255)) {
		MLX5_LOG(ERR, "address handle: sgid_index %d out of range (0..%d)\n", sgid,
			 hd->pattr.gid_tbl_len - 1);
		return -EINVAL;
	}
	memset(ia, 0, sizeof(*ia));
	ia->dlid = attr->lid;
	ia->sl = attr->sl;
	ia->static_rate = attr->static_rate;
	ia->port_num = attr->port;
	if (attr->is_global) {
		ia->is_global = 1;
		memcpy(ia->grh.dgid.raw, attr->gid, 16);
		ia->grh.flow_label = attr->flow_label;
		ia->grh.sgid_index = (uint8_t)sgid;
		ia->grh.hop_limit = attr->hop_limit;
		ia->grh.traffic_class = attr->traffic_class;
	}
	return 0;
}

static struct rdx_ah *
hw_ah_create(struct rdx_dev *dev, const struct rdx_ah_attr *attr)
{
	struct mlx5_hw_dev *hd = hw_dev(dev);
	struct rdx_mlx5_ah *ah;
	struct ibv_ah_attr ia;
	struct mlx5dv_obj obj;
	struct mlx5dv_ah dv;
	struct ibv_ah *ibah;
	int ret;

	ret = -hw_ah_attr(hd, attr, &ia);
	if (ret != 0) {
		rte_errno = ret;
		return NULL;
	}
	/* a cache line of its own: the AV is copied into every UD WQE */
	ah = aligned_alloc(64, RTE_ALIGN_CEIL(sizeof(*ah), 64));
	if (ah == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	/* RoCE: the kernel resolves the destination MAC here. */
	ibah = ibv_create_ah(hd->pd, &ia);
	if (ibah == NULL) {
		ret = errno != 0 ? errno : EINVAL;
		MLX5_LOG(ERR, "ibv_create_ah(lid 0x%x, %s) on %s failed: %s\n", attr->lid,
			 attr->is_global ? "GRH" : "no GRH", dev->attr.name, strerror(ret));
		goto fail;
	}
	memset(&dv, 0, sizeof(dv));
	obj.ah.in = ibah;
	obj.ah.out = &dv;
	ret = mlx5dv_init_obj(&obj, MLX5DV_OBJ_AH);
	if (ret != 0 || dv.av == NULL) {
		ret = ret > 0 ? ret : EINVAL;
		MLX5_LOG(ERR, "mlx5dv_init_obj(AH) failed: %s\n", strerror(ret));
		ibv_destroy_ah(ibah);
		goto fail;
	}
	/* The datapath copies this AV into each UD WQE (set_datagram_seg). */
	memset(ah, 0, sizeof(*ah));
	rdx_mlx5_ah_init(ah, dv.av);
	ah->drv = ibah;
	ah->base.dev = dev;
	ah->base.attr = *attr;
	return &ah->base;
fail:
	free(ah);
	rte_errno = ret;
	return NULL;
}

static int
hw_ah_destroy(struct rdx_ah *bah)
{
	struct rdx_mlx5_ah *ah = (struct rdx_mlx5_ah *)(void *)bah;
	int ret;

	ret = ibv_destroy_ah((struct ibv_ah *)ah->drv);
	if (ret != 0) {
		MLX5_LOG(ERR, "ibv_destroy_ah failed: %s\n", strerror(ret));
		return -ret;
	}
	free(ah);
	return 0;
}

static const struct rdx_dev_ops mlx5_hw_ops = {
	.close = hw_close,
	.mem_alloc = hw_mem_alloc,
	.mem_reg = hw_mem_reg,
	.mem_free = hw_mem_free,
	.mem_copy_to = hw_mem_copy_to,
	.mem_copy_from = hw_mem_copy_from,
	.cq_create = hw_cq_create,
	.cq_destroy = hw_cq_destroy,
	.cq_wait = hw_cq_wait,
	.qp_create = hw_qp_create,
	.qp_destroy = hw_qp_destroy,
	.qp_info = hw_qp_info,
	.qp_connect = hw_qp_connect,
	.qp_retired_wr_id = rdx_mlx5_qp_retired_wr_id,
	.ah_create = hw_ah_create,
	.ah_destroy = hw_ah_destroy,
	.xstats_get = hw_xstats_get,
};

/* RoCE: the first RoCE v2 GID (IPv4-mapped preferred), else any valid one. */
static int
hw_pick_gid(struct mlx5_hw_dev *hd)
{
	struct ibv_gid_entry e;
	int i, v2 = -1, any = -1;

	if (hd->pattr.link_layer != IBV_LINK_LAYER_ETHERNET)
		return 0;
	for (i = 0; i < hd->pattr.gid_tbl_len; i++) {
		if (ibv_query_gid_ex(hd->ctx, hd->port, (uint32_t)i, &e, 0) != 0)
			continue;
		if (gid_is_zero(e.gid.raw))
			continue;
		if (any < 0)
			any = i;
		if (e.gid_type == IBV_GID_TYPE_ROCE_V2) {
			bool v4 = e.gid.raw[10] == 0xff && e.gid.raw[11] == 0xff;

			if (v4)
				return i;
			if (v2 < 0)
				v2 = i;
		}
	}
	return v2 >= 0 ? v2 : any;
}

/* enum ibv_mtu -> bytes (IBV_MTU_256 = 1 ... IBV_MTU_4096 = 5); 0 else. */
static uint32_t
hw_mtu_bytes(enum ibv_mtu mtu)
{
	return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128u << mtu : 0;
}

static struct rdx_dev *
hw_open(struct ibv_device *ibdev, const char *devargs, const struct rdx_dev_conf *conf)
{
	struct mlx5_hw_dev *hd;
	struct rdx_dev_attr *at;
	const char *name;
	int ret;

	if (ibdev == NULL) {
		rte_errno = ENODEV;
		return NULL;
	}
	name = ibv_get_device_name(ibdev);
	if (!mlx5dv_is_supported(ibdev)) {
		MLX5_LOG(ERR, "%s is not an mlx5 device\n", name);
		rte_errno = ENOTSUP;
		return NULL;
	}
	hd = calloc(1, sizeof(*hd));
	if (hd == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	hd->base.ops = &mlx5_hw_ops;
	rdx_mlx5_objs_init(&hd->objs);
	if (conf != NULL)
		hd->base.conf = *conf;
	hd->port = hd->base.conf.port != 0 ? hd->base.conf.port : 1;
	hd->ctx = ibv_open_device(ibdev);
	if (hd->ctx == NULL) {
		ret = errno != 0 ? errno : ENODEV;
		MLX5_LOG(ERR, "ibv_open_device(%s) failed: %s\n", name, strerror(ret));
		goto fail;
	}
	ret = ibv_query_device_ex(hd->ctx, NULL, &hd->dattr);
	if (ret != 0) {
		MLX5_LOG(ERR, "ibv_query_device_ex(%s) failed: %s\n", name, strerror(ret));
		goto fail;
	}
	ret = ibv_query_port(hd->ctx, hd->port, &hd->pattr);
	if (ret != 0) {
		MLX5_LOG(ERR, "ibv_query_port(%s port %u) failed: %s\n", name, hd->port,
			 strerror(ret));
		goto fail;
	}
	if (hd->pattr.state != IBV_PORT_ACTIVE)
		MLX5_LOG(WARNING, "%s port %u is %s, not ACTIVE\n", name, hd->port,
			 ibv_port_state_str(hd->pattr.state));
	if (hd->base.conf.gid_index_set && hd->base.conf.gid_index >= 0)
		hd->gid_index = hd->base.conf.gid_index;
	else
		hd->gid_index = hw_pick_gid(hd);
	if (hd->gid_index < 0 || hd->gid_index >= hd->pattr.gid_tbl_len) {
		MLX5_LOG(ERR, "%s port %u: no usable GID (index %d, table %d)\n", name,
			 hd->port, hd->gid_index, hd->pattr.gid_tbl_len);
		ret = EINVAL;
		goto fail;
	}
	ret = ibv_query_gid(hd->ctx, hd->port, hd->gid_index, &hd->gid);
	if (ret != 0) {
		MLX5_LOG(ERR, "ibv_query_gid(%s port %u index %d) failed: %s\n", name,
			 hd->port, hd->gid_index, strerror(ret));
		goto fail;
	}
	hd->pd = ibv_alloc_pd(hd->ctx);
	if (hd->pd == NULL) {
		ret = errno != 0 ? errno : ENOMEM;
		MLX5_LOG(ERR, "ibv_alloc_pd(%s) failed: %s\n", name, strerror(ret));
		goto fail;
	}
	at = &hd->base.attr;
	snprintf(at->name, sizeof(at->name), "%s", name);
	snprintf(at->driver, sizeof(at->driver), "mlx5");
	at->software = false;
	at->max_msg_size = hd->pattr.max_msg_sz;
	/* libmlx5 mlx5_init_context: max_send_wqebb = max_qp_wr. The depth
	 * advertised is the smallest RC WQE's (one SGE, no inline: 256 B);
	 * hw_qp_create checks each shape's own limit. */
	hd->max_send_wqebb = (uint32_t)RTE_MAX(hd->dattr.orig_attr.max_qp_wr, 0);
	at->max_qp_wr = RTE_MIN(rdx_mlx5_rc_max_send_wr(hd->max_send_wqebb, MLX5_HW_MAX_SQ_DESC,
							1, 0), 32768u);
	at->max_sge = (uint32_t)RTE_MIN(hd->dattr.orig_attr.max_sge, RDX_MAX_SGE);
	at->max_inline = MLX5_HW_MAX_INLINE;
	at->max_cqe = (uint32_t)hd->dattr.orig_attr.max_cqe;
	at->max_qp = (uint32_t)hd->dattr.orig_attr.max_qp;
	at->atomics = hd->dattr.orig_attr.atomic_cap != IBV_ATOMIC_NONE;
	at->max_dm_size = hd->dattr.max_dm_size;
	at->active_mtu = (uint8_t)hd->pattr.active_mtu;
	/* A UD message is one packet: at most the port's MTU (IBTA 9.8.1). */
	at->max_ud_msg = hw_mtu_bytes(hd->pattr.active_mtu);
	at->link_layer = hd->pattr.link_layer;
	return &hd->base;
fail:
	hw_close(&hd->base);
	rte_errno = ret;
	return NULL;
}

/* mlx5 NICs (mlx5dv_is_supported), above the generic verbs driver. */
static int
hw_probe(struct ibv_device *ibdev)
{
	return mlx5dv_is_supported(ibdev) ? 80 : 0;
}

static struct rdx_driver mlx5_hw_driver = {
	.name = "mlx5",
	.desc = "the mlx5 direct datapath (ibverbs + mlx5dv)",
	.probe = hw_probe,
	.open = hw_open,
};

RDX_DRIVER_REGISTER(mlx5_hw_driver)
