/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the card is (device, firmware, link, MTU, PCIe, limits) and rdx's
 * assumptions checked against it: the advertised depth and inline size can
 * be created, and the port is up.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rte_errno.h>

#include "mlx5_selfcheck.h"
#include "selfcheck.h"

/* Create and destroy one QP of these limits: 0, or the errno. */
static int
sc_try_qp(struct rdx_dev *dev, uint8_t type, uint32_t depth, uint32_t inl)
{
	struct rdx_cq_conf cc = { .depth = 64 };
	struct rdx_qp_conf qc;
	struct rdx_cq *cq;
	struct rdx_qp *qp;
	int rc;

	cq = rdx_cq_create(dev, &cc);
	if (cq == NULL)
		return rte_errno;
	memset(&qc, 0, sizeof(qc));
	qc.send_cq = cq;
	qc.recv_cq = cq;
	qc.sq_depth = depth;
	qc.rq_depth = 1;
	qc.max_send_sge = 1;
	qc.max_recv_sge = 1;
	qc.max_inline = inl;
	qc.type = type;
	qc.qkey = type == RDX_QP_UD ? 1 : 0;
	qp = rdx_qp_create(dev, &qc);
	rc = qp == NULL ? rte_errno : 0;
	rdx_qp_destroy(qp);
	rdx_cq_destroy(cq);
	return rc;
}

/* Add src's keys to dst and drop src. */
static void
sc_json_merge(json_t *dst, json_t *src)
{
	if (src == NULL)
		return;
	json_object_update(dst, src);
	json_decref(src);
}

void
sc_card_check(struct rdx_dev *dev, struct sc_dev_report *r)
{
	const struct rdx_dev_attr *a = rdx_dev_attr_get(dev);
	const uint32_t mtu = a->active_mtu >= 1 && a->active_mtu <= 5 ? 128u << a->active_mtu : 0;
	struct rdx_mlx5_sc_card card;
	uint32_t depth, udepth = 0;
	int rc, urc = 0;

	r->card = json_pack("{s:s, s:s, s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:s}",
			    "name", a->name, "driver", a->driver, "software", a->software,
			    "max_qp_wr", (json_int_t)a->max_qp_wr, "max_sge", (json_int_t)a->max_sge,
			    "max_inline", (json_int_t)a->max_inline, "max_cqe", (json_int_t)a->max_cqe,
			    "max_dm_size", (json_int_t)a->max_dm_size, "active_mtu", (json_int_t)mtu,
			    "max_ud_msg", (json_int_t)a->max_ud_msg, "atomics", (json_int_t)a->atomics,
			    "link_layer", a->link_layer == IBV_LINK_LAYER_ETHERNET ? "ethernet" :
			    a->link_layer == IBV_LINK_LAYER_INFINIBAND ? "infiniband" : "unspecified");
	if (rdx_mlx5_sc_card_get(dev, &card) == 0) {
		if (r->card != NULL)
			sc_json_merge(r->card, json_pack(
				"{s:s, s:s, s:s, s:s, s:I, s:s, s:I, s:i, s:i}",
				"fw_ver", card.fw_ver, "pci", card.pci, "pcie_speed", card.pcie_speed,
				"pcie_width", card.pcie_width,
				"vendor_part_id", (json_int_t)card.vendor_part_id,
				"port_state", ibv_port_state_str((enum ibv_port_state)card.port_state),
				"max_mtu", (json_int_t)card.max_mtu_bytes,
				"link_width", card.active_width, "link_speed", card.active_speed));
		sc_row_add(r, "card", card.port_state == IBV_PORT_ACTIVE ? SC_PASS : SC_FAIL,
			   "%s fw %s, PCIe %s x%s at %s, port %s, MTU %u",
			   a->name, card.fw_ver, card.pcie_speed[0] ? card.pcie_speed : "?",
			   card.pcie_width[0] ? card.pcie_width : "?", card.pci[0] ? card.pci : "?",
			   ibv_port_state_str((enum ibv_port_state)card.port_state), mtu);
	} else {
		sc_row_add(r, "card", SC_PASS, "%s (driver %s%s), MTU %u, max_qp_wr %u, inline %u, DM %llu B",
			   a->name, a->driver, a->software ? ", software device" : "", mtu,
			   a->max_qp_wr, a->max_inline, (unsigned long long)a->max_dm_size);
	}
	/* rdx's limits can be created: the deepest RC (and UD) QP it grants,
	 * and the largest inline it advertises */
	depth = rdx_qp_sq_depth_max(dev, RDX_QP_RC, 1, 0);
	rc = depth == 0 ? EINVAL : sc_try_qp(dev, RDX_QP_RC, depth, 0);
	if (rc == 0 && a->max_inline != 0)
		rc = sc_try_qp(dev, RDX_QP_RC, 2, a->max_inline);
	if (rc == 0 && a->max_ud_msg != 0) {
		udepth = rdx_qp_sq_depth_max(dev, RDX_QP_UD, 1, 0);
		urc = udepth == 0 ? EINVAL : sc_try_qp(dev, RDX_QP_UD, udepth, 0);
	}
	if (rc == 0 && urc == 0)
		sc_row_add(r, "limits", SC_PASS, "RC depth %u, UD depth %u, inline %u: created",
			   depth, udepth, a->max_inline);
	else
		sc_row_add(r, "limits", SC_FAIL, "%s QP at the advertised limit (depth %u, inline %u) not created: %s",
			   rc != 0 ? "RC" : "UD", rc != 0 ? depth : udepth, a->max_inline,
			   strerror(rc != 0 ? rc : urc));
}
