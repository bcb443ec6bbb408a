/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The WQE check of one device: rdx's direct path against libmlx5 on an mlx5
 * NIC, against the model reference on the software device
 * (drivers/mlx5/mlx5_selfcheck.h); other drivers have no WQEs to compare.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>

#include "mlx5_selfcheck.h"
#include "selfcheck.h"

#define SC_WQE_QKEY 0x0badcafeu

/* The QP's limits: the device's largest inline and up to 16 SGEs, less
 * until one WQE holds them. */
static void
sc_wqe_limits(struct rdx_dev *dev, uint8_t type, uint32_t *inl, uint32_t *sge)
{
	const struct rdx_dev_attr *a = rdx_dev_attr_get(dev);

	*inl = RTE_MIN(a->max_inline, RDX_MLX5_MAX_INLINE);
	*sge = RTE_MIN(a->max_sge, RDX_MLX5_SC_MAX_SGE);
	if (type == RDX_QP_UD)
		*inl = RTE_MIN(*inl, a->max_ud_msg);
	while (*sge > 1 && rdx_qp_sq_depth_max(dev, type, *sge, *inl) < 2)
		(*sge)--;
	while (*inl > 0 && rdx_qp_sq_depth_max(dev, type, *sge, *inl) < 2)
		(*inl)--;
}

static void
sc_wqe_one(struct rdx_dev *dev, uint8_t type, const struct sc_opts *o,
	   struct sc_dev_report *r)
{
	const struct rdx_dev_attr *a = rdx_dev_attr_get(dev);
	const bool hw = strcmp(a->driver, "mlx5") == 0;
	const char *check = type == RDX_QP_UD ? "wqe.ud" : "wqe.rc";
	struct rdx_mlx5_sc_model model = { .ud = type == RDX_QP_UD };
	struct rdx_mlx5_sc_libmlx5 lib;
	struct rdx_mlx5_sc_wqe_report rep;
	struct rdx_mlx5_sc_wqe_conf c;
	struct rdx_cq_conf cc = { .depth = 64 };
	struct rdx_qp_conf qc;
	struct rdx_qp_info info;
	struct rdx_ah_attr aa;
	struct rdx_cq *cq = NULL;
	struct rdx_qp *qp = NULL;
	struct rdx_mem *mem = NULL;
	struct rdx_ah *ah = NULL;
	struct sc_row *row;
	char err[160] = "";
	uint32_t inl, sge, k;
	json_t *diffs;
	bool lib_made = false;
	int rc;

	memset(&lib, 0, sizeof(lib));
	sc_wqe_limits(dev, type, &inl, &sge);
	memset(&qc, 0, sizeof(qc));
	cq = rdx_cq_create(dev, &cc);
	if (cq == NULL) {
		snprintf(err, sizeof(err), "rdx_cq_create: %s", rte_strerror(rte_errno));
		goto out;
	}
	qc.send_cq = cq;
	qc.recv_cq = cq;
	qc.sq_depth = RTE_MIN(16u, rdx_qp_sq_depth_max(dev, type, sge, inl));
	qc.max_send_sge = sge;
	qc.max_recv_sge = 1;
	qc.max_inline = inl;
	/* no signal forced by the interval: each WQE's CE bit is its WR's */
	qc.sig_interval = (uint16_t)qc.sq_depth;
	qc.type = type;
	qc.qkey = type == RDX_QP_UD ? SC_WQE_QKEY : 0;
	qp = rdx_qp_create(dev, &qc);
	if (qp == NULL) {
		snprintf(err, sizeof(err), "rdx_qp_create (depth %u, %u SGEs, inline %u): %s",
			 qc.sq_depth, sge, inl, rte_strerror(rte_errno));
		goto out;
	}
	mem = rdx_dev_mem_alloc(dev, 4096, RDX_MEM_HOST, RDX_ACCESS_ALL);
	if (mem == NULL) {
		snprintf(err, sizeof(err), "rdx_dev_mem_alloc: %s", rte_strerror(rte_errno));
		goto out;
	}
	for (k = 0; k < 4096; k++)
		((uint8_t *)mem->addr)[k] = (uint8_t)(k * 13 + 7);
	memset(&c, 0, sizeof(c));
	c.max_inline = qp->conf.max_inline;
	c.max_send_sge = qp->conf.max_send_sge;
	c.payload = mem->addr;
	c.laddr = mem->iova;
	c.payload_len = 4096;
	c.lkey = mem->lkey;
	c.raddr = mem->iova + 2048;
	c.rkey = mem->rkey;
	c.inject_byte = o->test_wqe_flip;
	if (type == RDX_QP_UD) {
		/* a route to the QP itself: the AV of a real destination */
		if (rdx_qp_info_get(qp, &info) < 0 || rdx_ah_attr_from_info(dev, &info, &aa) < 0 ||
		    (ah = rdx_ah_create(dev, &aa)) == NULL) {
			snprintf(err, sizeof(err), "rdx_ah_create: %s", rte_strerror(rte_errno));
			goto out;
		}
		c.ah = ah;
		c.max_ud_msg = a->max_ud_msg;
		c.remote_qpn = info.qp_num;
		c.remote_qkey = SC_WQE_QKEY;
	}
	if (hw) {
		rc = rdx_mlx5_sc_libmlx5_create(dev, type, c.max_inline, c.max_send_sge, ah, &lib,
						err, sizeof(err));
		if (rc < 0)
			goto out;
		lib_made = true;
		rc = rdx_mlx5_sc_wqe_check(qp, &c, rdx_mlx5_sc_ref_libmlx5, &lib, &rep);
	} else {
		rc = rdx_mlx5_sc_wqe_check(qp, &c, rdx_mlx5_sc_ref_model, &model, &rep);
	}
	if (rc < 0) {
		snprintf(err, sizeof(err), "%s", rep.error);
		goto out;
	}
	if (rep.failed == 0 && rep.passed > 0)
		row = sc_row_add(r, check, SC_PASS, "%u WQEs equal to %s (%" PRIu64 " fields; inline 0..%u, 1..%u SGEs, wraps)",
				 rep.passed, hw ? "libmlx5's" : "the model's", rep.fields,
				 c.max_inline, c.max_send_sge);
	else if (rep.nb_diffs > 0)
		row = sc_row_add(r, check, SC_FAIL, "%u of %u WQEs differ; first: %s: %s (byte %u) rdx 0x%" PRIx64 " ref 0x%" PRIx64,
				 rep.failed, rep.shapes, rep.diffs[0].shape, rep.diffs[0].field,
				 rep.diffs[0].off, rep.diffs[0].rdx, rep.diffs[0].ref);
	else
		row = sc_row_add(r, check, SC_FAIL, "no WQE compared");
	row->data = json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
			      "reference", hw ? "libmlx5" : "model",
			      "wqes", (json_int_t)rep.shapes, "passed", (json_int_t)rep.passed,
			      "failed", (json_int_t)rep.failed, "skipped", (json_int_t)rep.skipped,
			      "fields", (json_int_t)rep.fields, "max_inline", (json_int_t)c.max_inline,
			      "max_send_sge", (json_int_t)c.max_send_sge);
	/* the fields two QPs must differ in, never compared */
	if (row->data != NULL)
		json_object_set_new(row->data, "not_compared",
				    json_pack("[s, s, s, s]", "ctrl.wqe_index", "ctrl.qpn",
					      "ctrl.signature", "inline padding"));
	diffs = json_array();
	for (k = 0; k < rep.nb_diffs; k++)
		json_array_append_new(diffs, json_pack("{s:s, s:s, s:I, s:I, s:I}",
			"wqe", rep.diffs[k].shape, "field", rep.diffs[k].field,
			"byte", (json_int_t)rep.diffs[k].off, "rdx", (json_int_t)rep.diffs[k].rdx,
			"ref", (json_int_t)rep.diffs[k].ref));
	if (row->data != NULL)
		json_object_set_new(row->data, "diffs", diffs);
	else
		json_decref(diffs);
out:
	if (err[0] != '\0')
		sc_row_add(r, check, SC_FAIL, "could not run: %s", err);
	if (lib_made)
		rdx_mlx5_sc_libmlx5_destroy(&lib);
	rdx_qp_destroy(qp);
	rdx_ah_destroy(ah);
	rdx_cq_destroy(cq);
	rdx_dev_mem_free(mem);
}

void
sc_wqe_check(struct rdx_dev *dev, const struct sc_opts *o, struct sc_dev_report *r)
{
	const struct rdx_dev_attr *a = rdx_dev_attr_get(dev);

	if (strcmp(a->driver, "mlx5") != 0 && strcmp(a->driver, "sw") != 0) {
		sc_row_add(r, "wqe", SC_SKIP, "needs an mlx5 device (driver %s has no WQEs of rdx's)",
			   a->driver);
		return;
	}
	sc_wqe_one(dev, RDX_QP_RC, o, r);
	if (a->max_ud_msg != 0)
		sc_wqe_one(dev, RDX_QP_UD, o, r);
}
