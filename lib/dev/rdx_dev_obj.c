/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control-path wrappers over a device's object ops: memory, CQs, QPs,
 * connect, address handles, and the argument checks every driver shares
 * (QP/CQ ranges, UD limits, AH attributes), plus the op/opcode/status names.
 * Device selection, open/close and the registry of open devices are in
 * rdx_dev.c.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_config.h>
#include <rte_errno.h>

#include <infiniband/verbs.h>

#include "rdx_dev.h"
#include "rdx_dev_driver.h"
#include "rdx_dev_priv.h"

struct rdx_mem *
rdx_dev_mem_alloc(struct rdx_dev *dev, size_t len, enum rdx_mem_type type, int access)
{
	if (len == 0 || (type == RDX_MEM_DM && dev->attr.max_dm_size == 0)) {
		if (type == RDX_MEM_DM && len != 0)
			DEV_LOG(ERR, "device %s has no device memory\n", dev->attr.name);
		rte_errno = len == 0 ? EINVAL : ENOTSUP;
		return NULL;
	}
	return dev->ops->mem_alloc(dev, len, type, access);
}

struct rdx_mem *
rdx_dev_mem_reg(struct rdx_dev *dev, void *addr, size_t len, int access)
{
	if (addr == NULL || len == 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	return dev->ops->mem_reg(dev, addr, len, access);
}

int
rdx_dev_mem_free(struct rdx_mem *mem)
{
	if (mem == NULL)
		return 0;
	return mem->dev->ops->mem_free(mem);
}

static int
mem_range_ok(const struct rdx_mem *mem, size_t off, size_t len)
{
	return off <= mem->len && len <= mem->len - off;
}

int
rdx_dev_mem_copy_to(struct rdx_mem *mem, size_t off, const void *src, size_t len)
{
	if (!mem_range_ok(mem, off, len))
		return -ERANGE;
	if (mem->addr != NULL) {
		memcpy((char *)mem->addr + off, src, len);
		return 0;
	}
	return mem->dev->ops->mem_copy_to(mem, off, src, len);
}

int
rdx_dev_mem_copy_from(struct rdx_mem *mem, size_t off, void *dst, size_t len)
{
	if (!mem_range_ok(mem, off, len))
		return -ERANGE;
	if (mem->addr != NULL) {
		memcpy(dst, (const char *)mem->addr + off, len);
		return 0;
	}
	return mem->dev->ops->mem_copy_from(mem, off, dst, len);
}

static const char *const mem_type_names[] = {
	[RDX_MEM_HOST] = "host", [RDX_MEM_HUGE] = "huge", [RDX_MEM_DM] = "dm",
};

int
rdx_mem_type_parse(const char *name)
{
	size_t i;

	for (i = 0; i < RTE_DIM(mem_type_names); i++)
		if (name != NULL && strcmp(name, mem_type_names[i]) == 0)
			return (int)i;
	return -EINVAL;
}

const char *
rdx_mem_type_name(enum rdx_mem_type type)
{
	return (unsigned int)type < RTE_DIM(mem_type_names) ? mem_type_names[type] : "?";
}

struct rdx_cq *
rdx_cq_create(struct rdx_dev *dev, const struct rdx_cq_conf *conf)
{
	struct rdx_cq *cq;

	if (dev == NULL || conf == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	/* max_cqe 0: a device that does not say (a test's stub) */
	if (conf->depth == 0 || (dev->attr.max_cqe != 0 && conf->depth > dev->attr.max_cqe)) {
		DEV_LOG(ERR, "CQ depth %u out of range (1..%u on %s)\n", conf->depth,
			dev->attr.max_cqe, dev->attr.name);
		rte_errno = EINVAL;
		return NULL;
	}
	cq = dev->ops->cq_create(dev, conf);
	/* A driver without a lean requester poll: the full one meets its
	 * contract (rdx_cq_poll_req_burst). */
	if (cq != NULL && cq->poll_req_burst == NULL)
		cq->poll_req_burst = cq->poll_burst;
	return cq;
}

int
rdx_cq_destroy(struct rdx_cq *cq)
{
	if (cq == NULL)
		return 0;
	return cq->dev->ops->cq_destroy(cq);
}

int
rdx_cq_wait(struct rdx_cq *cq, int timeout_ms)
{
	if (!cq->conf.events)
		return -EINVAL;
	return cq->dev->ops->cq_wait(cq, timeout_ms);
}

static bool
in_range(uint32_t v, uint32_t lo, uint32_t hi)
{
	return v >= lo && v <= hi;
}

/* One line naming the first field of conf out of the device's range. */
static int
qp_conf_check(const struct rdx_dev *dev, const struct rdx_qp_conf *c)
{
	const struct rdx_dev_attr *a = &dev->attr;
	const char *field = NULL;
	uint32_t val = 0, lo = 0, hi = 0;

	if (c->send_cq == NULL || c->recv_cq == NULL ||
	    c->send_cq->dev != dev || c->recv_cq->dev != dev) {
		DEV_LOG(ERR, "QP needs send and receive CQs of %s\n", a->name);
		return -EINVAL;
	}
#define QP_RANGE(f, l, h) \
	do { \
		if (field == NULL && !in_range(c->f, (l), (h))) { \
			field = #f; val = c->f; lo = (l); hi = (h); \
		} \
	} while (0)
	QP_RANGE(sq_depth, 1, a->max_qp_wr);
	QP_RANGE(rq_depth, 0, a->max_qp_wr);
	QP_RANGE(max_send_sge, 0, a->max_sge);
	QP_RANGE(max_recv_sge, 0, a->max_sge);
	QP_RANGE(max_inline, 0, a->max_inline);
	QP_RANGE(sig_interval, 0, c->sq_depth);
	QP_RANGE(type, RDX_QP_RC, RDX_QP_UD);
	if (c->type == RDX_QP_RC)
		QP_RANGE(qkey, 0, 0);
	else
		QP_RANGE(qkey, 0, INT32_MAX); /* bit 31: controlled Q_Key (IBTA 10.2.4) */
#undef QP_RANGE
	if (field != NULL) {
		DEV_LOG(ERR, "QP not created on %s: %s %u out of range (%u..%u)\n",
			a->name, field, val, lo, hi);
		return -EINVAL;
	}
	if (c->type == RDX_QP_UD) {
		if (a->max_ud_msg == 0) {
			DEV_LOG(ERR, "QP not created on %s: type UD not supported by driver %s\n",
				a->name, a->driver);
			return -ENOTSUP;
		}
		/* Inline data is the whole message: no more than max_ud_msg. */
		if (c->max_inline > a->max_ud_msg) {
			DEV_LOG(ERR, "QP not created on %s: UD max_inline %u above the largest UD message %u\n",
				a->name, c->max_inline, a->max_ud_msg);
			return -EINVAL;
		}
	}
	return 0;
}

struct rdx_qp *
rdx_qp_create(struct rdx_dev *dev, const struct rdx_qp_conf *conf)
{
	struct rdx_qp *qp;
	int ret;

	if (dev == NULL || conf == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (conf->post_lcore > RTE_MAX_LCORE) {
		DEV_LOG(ERR, "QP not created: post_lcore %u names lcore %u, beyond RTE_MAX_LCORE %u\n",
			conf->post_lcore, conf->post_lcore - 1, (unsigned int)RTE_MAX_LCORE);
		rte_errno = EINVAL;
		return NULL;
	}
	ret = qp_conf_check(dev, conf);
	if (ret != 0) {
		rte_errno = -ret;
		return NULL;
	}
	qp = dev->ops->qp_create(dev, conf);
	/* listed for rdx_qp_foreach and the per-QP counters (rdx_dev_qp.c) */
	if (qp != NULL && rdx_qp_reg_add(qp) != 0) {
		dev->ops->qp_destroy(qp);
		rte_errno = ENOMEM;
		return NULL;
	}
	return qp;
}

uint32_t
rdx_qp_sq_depth_max(const struct rdx_dev *dev, uint8_t type, uint32_t max_send_sge,
		    uint32_t max_inline)
{
	const struct rdx_dev_attr *a;
	uint32_t n;

	if (dev == NULL)
		return 0;
	a = &dev->attr;
	if ((type != RDX_QP_RC && type != RDX_QP_UD) || max_send_sge > a->max_sge ||
	    max_inline > a->max_inline ||
	    (type == RDX_QP_UD && (a->max_ud_msg == 0 || max_inline > a->max_ud_msg)))
		return 0;
	if (dev->ops->qp_sq_depth_max == NULL)
		return a->max_qp_wr;
	n = dev->ops->qp_sq_depth_max(dev, type, max_send_sge, max_inline);
	return RTE_MIN(n, a->max_qp_wr);
}

int
rdx_qp_destroy(struct rdx_qp *qp)
{
	int ret;

	if (qp == NULL)
		return 0;
	/* under the registry's lock: no walk sees it half destroyed */
	rdx_qp_reg_lock();
	ret = qp->dev->ops->qp_destroy(qp);
	if (ret == 0)
		rdx_qp_reg_del(qp);
	rdx_qp_reg_unlock();
	return ret;
}

int
rdx_qp_info_get(struct rdx_qp *qp, struct rdx_qp_info *info)
{
	memset(info, 0, sizeof(*info));
	return qp->dev->ops->qp_info(qp, info);
}

int
rdx_qp_connect(struct rdx_qp *qp, const struct rdx_qp_info *remote,
	       const struct rdx_qp_conn_attr *attr)
{
	struct rdx_qp_conn_attr a = {0};
	int ret;

	if (attr != NULL)
		a = *attr;
	if (a.timeout == 0)
		a.timeout = 14;
	if (a.retry_cnt == 0)
		a.retry_cnt = 7;
	if (a.rnr_retry == 0)
		a.rnr_retry = 7;
	if (a.min_rnr_timer == 0)
		a.min_rnr_timer = 12;
	if (a.max_rd_atomic == 0)
		a.max_rd_atomic = 16;
	if (qp->conf.type == RDX_QP_UD) {
		/* A UD QP has no peer: each WR names its destination. */
		if (remote != NULL) {
			DEV_LOG(ERR, "UD QP %u connects without a remote (pass NULL)\n",
				qp->qp_num);
			return -EINVAL;
		}
		ret = qp->dev->ops->qp_connect(qp, NULL, &a);
		goto out;
	}
	if (remote == NULL) {
		DEV_LOG(ERR, "RC QP %u needs the peer's rdx_qp_info to connect\n",
			qp->qp_num);
		return -EINVAL;
	}
	if (strncmp(remote->driver, qp->dev->attr.driver, sizeof(remote->driver)) != 0) {
		DEV_LOG(ERR, "cannot connect a %s QP to a %s peer\n",
			qp->dev->attr.driver, remote->driver);
		return -EPROTO;
	}
	ret = qp->dev->ops->qp_connect(qp, remote, &a);
out:
	if (ret == 0)
		rdx_qp_reg_connected(qp);
	return ret;
}

int
rdx_ah_attr_from_info(const struct rdx_dev *dev, const struct rdx_qp_info *peer,
		      struct rdx_ah_attr *attr)
{
	if (dev == NULL || peer == NULL || attr == NULL)
		return -EINVAL;
	memset(attr, 0, sizeof(*attr));
	memcpy(attr->gid, peer->gid, sizeof(attr->gid));
	attr->lid = peer->lid;
	attr->port = dev->conf.port != 0 ? dev->conf.port : 1;
	/* RoCE routes by GID only (every packet has a GRH); IB by LID. */
	attr->is_global = dev->attr.link_layer == IBV_LINK_LAYER_ETHERNET || peer->lid == 0;
	attr->sgid_index = -1;
	return 0;
}

struct rdx_ah *
rdx_ah_create(struct rdx_dev *dev, const struct rdx_ah_attr *attr)
{
	struct rdx_ah_attr a;

	if (dev == NULL || attr == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (dev->ops->ah_create == NULL) {
		DEV_LOG(ERR, "address handles (UD) not supported by driver %s\n",
			dev->attr.driver);
		rte_errno = ENOTSUP;
		return NULL;
	}
	a = *attr;
	if (a.sl > 15 || a.flow_label >= (1u << 20) || a.sgid_index < -1 ||
	    (!a.is_global && dev->attr.link_layer == IBV_LINK_LAYER_ETHERNET) ||
	    (!a.is_global && a.lid == 0)) {
		DEV_LOG(ERR, "address handle not created on %s: %s\n", dev->attr.name,
			a.sl > 15 ? "sl above 15" :
			a.flow_label >= (1u << 20) ? "flow_label above 20 bits" :
			a.sgid_index < -1 ? "sgid_index below -1" :
			a.lid == 0 && dev->attr.link_layer != IBV_LINK_LAYER_ETHERNET ?
			"lid 0 without is_global" : "RoCE needs is_global (a GRH)");
		rte_errno = EINVAL;
		return NULL;
	}
	if (a.port == 0)
		a.port = dev->conf.port != 0 ? dev->conf.port : 1;
	if (a.hop_limit == 0)
		a.hop_limit = 64;
	return dev->ops->ah_create(dev, &a);
}

int
rdx_ah_destroy(struct rdx_ah *ah)
{
	if (ah == NULL)
		return 0;
	if (ah->dev->ops->ah_destroy == NULL)
		return -ENOTSUP;
	return ah->dev->ops->ah_destroy(ah);
}

uint64_t
rdx_qp_retired_wr_id(const struct rdx_qp *qp, const struct rdx_wc *wc, uint16_t i)
{
	return qp->dev->ops->qp_retired_wr_id(qp, wc, i);
}

const char *
rdx_op_name(enum rdx_op op)
{
	static const char *const names[] = {
		[RDX_OP_NOP] = "NOP", [RDX_OP_SEND] = "SEND", [RDX_OP_SEND_IMM] = "SEND_IMM",
		[RDX_OP_WRITE] = "RDMA_WRITE", [RDX_OP_WRITE_IMM] = "RDMA_WRITE_IMM",
		[RDX_OP_READ] = "RDMA_READ", [RDX_OP_CAS] = "ATOMIC_CS",
		[RDX_OP_FAA] = "ATOMIC_FA",
	};
	return (unsigned int)op < RTE_DIM(names) ? names[op] : "UNKNOWN";
}

const char *
rdx_wc_opcode_name(enum rdx_wc_opcode op)
{
	static const char *const names[] = {
		[RDX_WC_NOP] = "NOP", [RDX_WC_SEND] = "SEND", [RDX_WC_WRITE] = "RDMA_WRITE",
		[RDX_WC_READ] = "RDMA_READ", [RDX_WC_CAS] = "ATOMIC_CS",
		[RDX_WC_FAA] = "ATOMIC_FA", [RDX_WC_RECV] = "RECV",
		[RDX_WC_RECV_IMM] = "RECV_IMM", [RDX_WC_RECV_WRITE_IMM] = "RECV_RDMA_WITH_IMM",
		[RDX_WC_UNKNOWN] = "UNKNOWN",
	};
	return (unsigned int)op < RTE_DIM(names) ? names[op] : "UNKNOWN";
}

const char *
rdx_wc_status_name(uint8_t status)
{
	return ibv_wc_status_str((enum ibv_wc_status)status);
}
