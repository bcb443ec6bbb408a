/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The mlx5 hardware control path: open an mlx5 device through ibverbs,
 * query its attributes and pick its GID, close it; the driver's probe,
 * registration and counters (xstats). Memory is in mlx5_hw_mem.c, thread
 * domains, CQs, QPs and address handles in mlx5_hw_qp.c, what they share
 * in mlx5_hw.h. Everything here is control path: it may allocate, log and
 * enter the kernel.
 */
#include "mlx5_hw.h"

RTE_LOG_REGISTER(rdx_mlx5_logtype, rdx.drv.mlx5, NOTICE)

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

static const struct rdx_dev_ops mlx5_hw_ops = {
	.close = hw_close,
	.mem_alloc = rdx_mlx5_hw_mem_alloc,
	.mem_reg = rdx_mlx5_hw_mem_reg,
	.mem_free = rdx_mlx5_hw_mem_free,
	.mem_copy_to = rdx_mlx5_hw_mem_copy_to,
	.mem_copy_from = rdx_mlx5_hw_mem_copy_from,
	.cq_create = rdx_mlx5_hw_cq_create,
	.cq_destroy = rdx_mlx5_hw_cq_destroy,
	.cq_wait = rdx_mlx5_hw_cq_wait,
	.qp_create = rdx_mlx5_hw_qp_create,
	.qp_sq_depth_max = rdx_mlx5_hw_qp_sq_depth_max,
	.qp_destroy = rdx_mlx5_hw_qp_destroy,
	.qp_info = rdx_mlx5_hw_qp_info,
	.qp_connect = rdx_mlx5_hw_qp_connect,
	.qp_retired_wr_id = rdx_mlx5_qp_retired_wr_id,
	.ah_create = rdx_mlx5_hw_ah_create,
	.ah_destroy = rdx_mlx5_hw_ah_destroy,
	.xstats_get = hw_xstats_get,
	.qp_xstats_get = rdx_mlx5_qp_xstats_get,
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
	 * rdx_mlx5_hw_qp_create checks each shape's own limit. */
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
