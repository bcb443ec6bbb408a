/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The hardware side of the self-check (mlx5_selfcheck.h): the libmlx5
 * reference (the WQE rdma-core's own provider writes for a WR, posted with
 * ibv_wr_* on an extended QP in RESET and read back from its send queue
 * through mlx5dv_init_obj) and what the card is.
 */
#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "mlx5_hw.h"
#include "mlx5_selfcheck.h"

int
rdx_mlx5_sc_ref_libmlx5(void *ctx, const struct rdx_wr *wr, uint8_t *wqe)
{
	struct rdx_mlx5_sc_libmlx5 *l = ctx;
	struct ibv_qp_ex *qpx;
	struct ibv_sge sge[RDX_MLX5_SC_MAX_SGE];
	struct ibv_data_buf buf[RDX_MLX5_SC_MAX_SGE];
	uint32_t j, start, ring, len, attempt;
	int rc = 0;

	/* ibv_wr_* has no NOP (libmlx5 posts none through the verbs API) */
	if (wr->opcode == RDX_OP_NOP)
		return -ENOTSUP;
	if (wr->num_sge > RDX_MLX5_SC_MAX_SGE || l->sq_wqe_cnt == 0)
		return -EINVAL;
	for (j = 0; j < wr->num_sge; j++) {
		sge[j].addr = wr->sge[j].addr;
		sge[j].length = wr->sge[j].length;
		sge[j].lkey = wr->sge[j].lkey;
		buf[j].addr = (void *)(uintptr_t)wr->sge[j].addr;
		buf[j].length = wr->sge[j].length;
	}
	for (attempt = 0; attempt < 2; attempt++) {
		/* a reset may have made a new QP */
		qpx = l->qpx;
		ibv_wr_start(qpx);
		qpx->wr_id = wr->wr_id;
		qpx->wr_flags = ((wr->flags & RDX_WR_SIGNALED) ? IBV_SEND_SIGNALED : 0) |
			((wr->flags & RDX_WR_FENCE) ? IBV_SEND_FENCE : 0) |
			((wr->flags & RDX_WR_SOLICITED) ? IBV_SEND_SOLICITED : 0);
		switch (wr->opcode) {
		case RDX_OP_SEND:
			ibv_wr_send(qpx);
			break;
		case RDX_OP_SEND_IMM:
			ibv_wr_send_imm(qpx, wr->imm);
			break;
		case RDX_OP_WRITE:
			ibv_wr_rdma_write(qpx, wr->rkey, wr->remote_addr);
			break;
		case RDX_OP_WRITE_IMM:
			ibv_wr_rdma_write_imm(qpx, wr->rkey, wr->remote_addr, wr->imm);
			break;
		case RDX_OP_READ:
			ibv_wr_rdma_read(qpx, wr->rkey, wr->remote_addr);
			break;
		case RDX_OP_CAS:
			ibv_wr_atomic_cmp_swp(qpx, wr->rkey, wr->remote_addr, wr->compare_add,
					      wr->swap);
			break;
		case RDX_OP_FAA:
			ibv_wr_atomic_fetch_add(qpx, wr->rkey, wr->remote_addr, wr->compare_add);
			break;
		default:
			ibv_wr_abort(qpx);
			return -EINVAL;
		}
		if (l->ah != NULL)
			ibv_wr_set_ud_addr(qpx, l->ah, wr->remote_qpn & 0xffffffu, wr->remote_qkey);
		if ((wr->flags & RDX_WR_INLINE) && wr->num_sge != 0 &&
		    wr->opcode != RDX_OP_READ && wr->opcode != RDX_OP_CAS &&
		    wr->opcode != RDX_OP_FAA)
			ibv_wr_set_inline_data_list(qpx, wr->num_sge, buf);
		else
			ibv_wr_set_sge_list(qpx, wr->num_sge, sge);
		rc = ibv_wr_complete(qpx);
		if (rc != ENOMEM || attempt != 0)
			break;
		/* the ring is full (nothing completes in RESET): back to RESET,
		 * where libmlx5 restarts its indices */
		if (l->reset == NULL || l->reset(l) != 0)
			return -ENOMEM;
		l->cur_bb = 0;
	}
	if (rc != 0)
		return -rc;
	ring = l->sq_wqe_cnt * 64u;
	start = (l->cur_bb & (l->sq_wqe_cnt - 1)) * 64u;
	len = (uint32_t)(l->sq_buf[start + 7] & 0x3f) * 16u;
	if (len == 0 || len > RDX_MLX5_SC_WQE_MAX)
		return -EPROTO;
	for (j = 0; j < len; j++)
		wqe[j] = l->sq_buf[(start + j) % ring];
	l->cur_bb += (len + 63) / 64;
	return (int)len;
}

/* The hardware twin: its QP, CQ and how it was made (to make it again). */
struct sc_hw_twin {
	struct ibv_context *ctx;
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ibv_qp_init_attr_ex a;
};

/* Create the twin's QP and point l at its send queue: 0 or a negative
 * errno with err set. */
static int
sc_hw_make(struct sc_hw_twin *t, struct rdx_mlx5_sc_libmlx5 *l, char *err, size_t err_len)
{
	struct ibv_qp_init_attr_ex a = t->a;
	struct mlx5dv_qp dvqp;
	struct mlx5dv_obj o;
	int rc;

	t->qp = ibv_create_qp_ex(t->ctx, &a);
	if (t->qp == NULL) {
		rc = errno != 0 ? -errno : -ENOTSUP;
		snprintf(err, err_len, "ibv_create_qp_ex (send ops, %s): %s",
			 t->a.qp_type == IBV_QPT_UD ? "UD" : "RC", strerror(-rc));
		return rc;
	}
	memset(&o, 0, sizeof(o));
	o.qp.in = t->qp;
	o.qp.out = &dvqp;
	if (mlx5dv_init_obj(&o, MLX5DV_OBJ_QP) != 0 || dvqp.sq.stride != 64) {
		snprintf(err, err_len, "mlx5dv_init_obj(QP) failed or SQ stride not 64");
		ibv_destroy_qp(t->qp);
		t->qp = NULL;
		return -EPROTO;
	}
	l->qpx = ibv_qp_to_qp_ex(t->qp);
	l->sq_buf = dvqp.sq.buf;
	l->sq_wqe_cnt = dvqp.sq.wqe_cnt;
	return 0;
}

/* Back to an empty ring: to RESET (IBTA lets any state go there; libmlx5
 * then restarts its indices), else a new QP. */
static int
sc_hw_reset(struct rdx_mlx5_sc_libmlx5 *l)
{
	struct sc_hw_twin *t = l->drv;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };
	char err[128];

	if (ibv_modify_qp(t->qp, &a, IBV_QP_STATE) == 0)
		return 0;
	ibv_destroy_qp(t->qp);
	t->qp = NULL;
	return sc_hw_make(t, l, err, sizeof(err));
}

int
rdx_mlx5_sc_libmlx5_create(struct rdx_dev *dev, uint8_t type, uint32_t max_inline,
			   uint32_t max_send_sge, const struct rdx_ah *ah,
			   struct rdx_mlx5_sc_libmlx5 *l, char *err, size_t err_len)
{
	struct mlx5_hw_dev *hd = hw_dev(dev);
	struct ibv_qp_init_attr_ex *a;
	struct sc_hw_twin *t;
	int rc;

	memset(l, 0, sizeof(*l));
	if (dev == NULL || strcmp(dev->attr.driver, "mlx5") != 0) {
		snprintf(err, err_len, "needs an mlx5 device");
		return -ENOTSUP;
	}
	t = calloc(1, sizeof(*t));
	if (t == NULL) {
		snprintf(err, err_len, "no memory");
		return -ENOMEM;
	}
	t->ctx = hd->ctx;
	t->cq = ibv_create_cq(hd->ctx, 16, NULL, NULL, 0);
	if (t->cq == NULL) {
		rc = -errno;
		snprintf(err, err_len, "ibv_create_cq: %s", strerror(errno));
		free(t);
		return rc;
	}
	a = &t->a;
	a->qp_type = type == RDX_QP_UD ? IBV_QPT_UD : IBV_QPT_RC;
	a->send_cq = t->cq;
	a->recv_cq = t->cq;
	a->cap.max_send_wr = 64;
	a->cap.max_recv_wr = 1;
	a->cap.max_send_sge = max_send_sge;
	a->cap.max_recv_sge = 1;
	a->cap.max_inline_data = max_inline;
	a->pd = hd->pd;
	a->comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	a->send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM;
	if (type != RDX_QP_UD)
		a->send_ops_flags |= IBV_QP_EX_WITH_RDMA_WRITE |
			IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ |
			IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD;
	rc = sc_hw_make(t, l, err, err_len);
	if (rc < 0) {
		ibv_destroy_cq(t->cq);
		free(t);
		return rc;
	}
	l->ah = ah != NULL ? ((const struct rdx_mlx5_ah *)(const void *)ah)->drv : NULL;
	l->reset = sc_hw_reset;
	l->drv = t;
	return 0;
}

void
rdx_mlx5_sc_libmlx5_destroy(struct rdx_mlx5_sc_libmlx5 *l)
{
	struct sc_hw_twin *t = l->drv;

	if (t == NULL)
		return;
	if (t->qp != NULL)
		ibv_destroy_qp(t->qp);
	ibv_destroy_cq(t->cq);
	free(t);
	l->drv = NULL;
}

/* One line of a sysfs file, newline dropped ("" when absent). */
static void
sc_sysfs(const char *dir, const char *file, char *out, size_t len)
{
	char path[PATH_MAX];
	FILE *fp;

	out[0] = '\0';
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fp = fopen(path, "r");
	if (fp == NULL)
		return;
	if (fgets(out, (int)len, fp) == NULL)
		out[0] = '\0';
	fclose(fp);
	out[strcspn(out, "\n")] = '\0';
}

static uint16_t
sc_mtu_bytes(enum ibv_mtu m)
{
	if (m < IBV_MTU_256 || m > IBV_MTU_4096)
		return 0;
	return (uint16_t)(128u << m);
}

int
rdx_mlx5_sc_card_get(struct rdx_dev *dev, struct rdx_mlx5_sc_card *card)
{
	struct mlx5_hw_dev *hd = hw_dev(dev);
	char dir[PATH_MAX], link[PATH_MAX];
	const char *base;
	ssize_t n;

	memset(card, 0, sizeof(*card));
	if (dev == NULL || strcmp(dev->attr.driver, "mlx5") != 0)
		return -ENOTSUP;
	snprintf(card->fw_ver, sizeof(card->fw_ver), "%s", hd->dattr.orig_attr.fw_ver);
	card->vendor_part_id = hd->dattr.orig_attr.vendor_part_id;
	card->port_state = (uint8_t)hd->pattr.state;
	card->active_width = hd->pattr.active_width;
	card->active_speed = hd->pattr.active_speed;
	card->max_mtu_bytes = sc_mtu_bytes(hd->pattr.max_mtu);
	card->active_mtu_bytes = sc_mtu_bytes(hd->pattr.active_mtu);
	/* the PCI function behind /sys/class/infiniband/<dev>/device */
	snprintf(dir, sizeof(dir), "/sys/class/infiniband/%s/device",
		 ibv_get_device_name(hd->ctx->device));
	n = readlink(dir, link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = '\0';
		base = strrchr(link, '/');
		base = base != NULL ? base + 1 : link;
		/* a PCI address is 12 characters: longer names are cut */
		memcpy(card->pci, base, RTE_MIN(strlen(base), sizeof(card->pci) - 1));
	}
	sc_sysfs(dir, "current_link_speed", card->pcie_speed, sizeof(card->pcie_speed));
	sc_sysfs(dir, "current_link_width", card->pcie_width, sizeof(card->pcie_width));
	return 0;
}
