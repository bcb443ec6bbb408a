/* SPDX-License-Identifier: BSD-3-Clause */
/* Loopback QP pairs on one device for the completion and doorbell checks. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_errno.h>

#include "selfcheck.h"

#define SC_QKEY 0x11223344u

int
sc_pair_create(struct rdx_dev *dev, uint8_t type, uint32_t post_lcore, uint32_t sq_depth,
	       uint32_t max_inline, struct sc_pair *p, char *err, size_t len)
{
	const struct rdx_dev_attr *a = rdx_dev_attr_get(dev);
	struct rdx_cq_conf cc = { .depth = 2 * sq_depth + 64 };
	struct rdx_qp_conf qc;
	struct rdx_ah_attr aa;
	int k, rc;

	memset(p, 0, sizeof(*p));
	p->dev = dev;
	p->type = type;
	memset(&qc, 0, sizeof(qc));
	qc.sq_depth = sq_depth;
	qc.rq_depth = sq_depth;
	qc.max_send_sge = 2;
	qc.max_recv_sge = 1;
	qc.max_inline = max_inline < a->max_inline ? max_inline : a->max_inline;
	qc.sig_interval = 1;
	qc.type = type;
	qc.qkey = type == RDX_QP_UD ? SC_QKEY : 0;
	qc.post_lcore = post_lcore;
	for (k = 0; k < 2; k++) {
		p->cq[k] = rdx_cq_create(dev, &cc);
		if (p->cq[k] == NULL) {
			snprintf(err, len, "rdx_cq_create: %s", rte_strerror(rte_errno));
			goto fail;
		}
		qc.send_cq = p->cq[k];
		qc.recv_cq = p->cq[k];
		p->qp[k] = rdx_qp_create(dev, &qc);
		if (p->qp[k] == NULL) {
			snprintf(err, len, "rdx_qp_create (%s): %s", type == RDX_QP_UD ? "UD" : "RC",
				 rte_strerror(rte_errno));
			goto fail;
		}
		p->mem[k] = rdx_dev_mem_alloc(dev, SC_BUF, RDX_MEM_HOST, RDX_ACCESS_ALL);
		if (p->mem[k] == NULL) {
			snprintf(err, len, "rdx_dev_mem_alloc: %s", rte_strerror(rte_errno));
			goto fail;
		}
		rc = rdx_qp_info_get(p->qp[k], &p->info[k]);
		if (rc < 0) {
			snprintf(err, len, "rdx_qp_info_get: %s", strerror(-rc));
			goto fail;
		}
	}
	for (k = 0; k < 2; k++) {
		rc = rdx_qp_connect(p->qp[k], type == RDX_QP_UD ? NULL : &p->info[1 - k], NULL);
		if (rc < 0) {
			snprintf(err, len, "rdx_qp_connect: %s", strerror(-rc));
			goto fail;
		}
		if (type != RDX_QP_UD)
			continue;
		if (rdx_ah_attr_from_info(dev, &p->info[k], &aa) < 0 ||
		    (p->ah[k] = rdx_ah_create(dev, &aa)) == NULL) {
			snprintf(err, len, "rdx_ah_create: %s", rte_strerror(rte_errno));
			goto fail;
		}
	}
	return 0;
fail:
	sc_pair_destroy(p);
	return -EIO;
}

void
sc_pair_destroy(struct sc_pair *p)
{
	int k;

	for (k = 0; k < 2; k++) {
		rdx_ah_destroy(p->ah[k]);
		rdx_qp_destroy(p->qp[k]);
	}
	for (k = 0; k < 2; k++) {
		rdx_cq_destroy(p->cq[k]);
		rdx_dev_mem_free(p->mem[k]);
	}
	memset(p, 0, sizeof(*p));
}

int
sc_pair_recv(struct sc_pair *p, int k, uint64_t wr_id, uint32_t off, uint32_t len)
{
	struct rdx_sge sge = { .addr = p->mem[k]->iova + off, .length = len,
			       .lkey = p->mem[k]->lkey };
	struct rdx_recv_wr wr = { .wr_id = wr_id, .sge = &sge, .num_sge = 1 };

	return rdx_qp_post_recv_burst(p->qp[k], &wr, 1) == 1 ? 0 : -ENOSPC;
}

static double
sc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int
sc_poll1(struct rdx_cq *cq, struct rdx_wc *wc)
{
	const double end = sc_now() + 2.0;
	unsigned int spins = 0;

	for (;;) {
		if (rdx_cq_poll_burst(cq, wc, 1) == 1)
			return 1;
		if ((++spins & 1023) == 0 && sc_now() > end)
			return 0;
	}
}
