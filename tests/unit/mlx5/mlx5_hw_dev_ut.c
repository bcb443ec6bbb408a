/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hardware tests of the mlx5 control path (drivers/mlx5/mlx5_hw.c). They
 * need an mlx5 NIC: without one the binary exits 77 ("no mlx5 device:
 * skipped"). With one, it opens the first mlx5 device, connects two RC QPs
 * to each other on port 1 (loopback) and runs every opcode through the
 * direct datapath, checking the data that arrived; then two UD QPs send
 * each other datagrams through an address handle.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "rdx_ut.h"
#include "rdx_dev.h"
#include "rdx_dev_driver.h"
#include "rdx_mlx5.h"

static struct ibv_device **dev_list;
static struct ibv_device *mlx5_ibdev;

static struct ibv_device *
find_mlx5(void)
{
	int i, n = 0;

	dev_list = ibv_get_device_list(&n);
	if (dev_list == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		if (mlx5dv_is_supported(dev_list[i]))
			return dev_list[i];
	return NULL;
}

/* Poll until n completions arrived (bounded: a lost CQE fails, not hangs). */
static uint16_t
poll_n(struct rdx_cq *cq, struct rdx_wc *wc, uint16_t n)
{
	uint16_t got = 0;
	unsigned long spins;

	for (spins = 0; got < n && spins < 100000000ul; spins++)
		got = (uint16_t)(got + rdx_cq_poll_burst(cq, wc + got, (uint16_t)(n - got)));
	return got;
}

static void
test_open_null(void)
{
	CU_ASSERT(rdx_dev_open("no_such_mlx5", &(struct rdx_dev_conf){ .driver = "mlx5" }) == NULL);
	CU_ASSERT(rte_errno == ENODEV);
}

static void
test_loopback(void)
{
	struct rdx_dev_conf dconf = { .quiet = true, .driver = "mlx5" };
	struct rdx_cq_conf cconf = { .depth = 256 };
	struct rdx_qp_conf qconf;
	struct rdx_qp_info ia, ib;
	struct rdx_dev_attr attr;
	struct rdx_dev *dev;
	struct rdx_cq *cq;
	struct rdx_qp *qa, *qb;
	struct rdx_mem *ma, *mb;
	struct rdx_wc wc[8];
	struct rdx_wr wr;
	struct rdx_recv_wr rwr;
	struct rdx_sge sge, rsge;
	uint64_t v;

	dev = rdx_dev_open(ibv_get_device_name(mlx5_ibdev), &dconf);
	CU_ASSERT_FATAL(dev != NULL);
	attr = *rdx_dev_attr_get(dev);
	CU_ASSERT(strcmp(attr.driver, "mlx5") == 0);
	CU_ASSERT(attr.software == false);
	cq = dev->ops->cq_create(dev, &cconf);
	CU_ASSERT_FATAL(cq != NULL);
	memset(&qconf, 0, sizeof(qconf));
	qconf.send_cq = cq;
	qconf.recv_cq = cq;
	qconf.sq_depth = 64;
	qconf.rq_depth = 64;
	qconf.max_send_sge = 1;
	qconf.max_recv_sge = 1;
	qconf.max_inline = 64;
	qconf.sig_interval = 1;
	qa = dev->ops->qp_create(dev, &qconf);
	qb = dev->ops->qp_create(dev, &qconf);
	CU_ASSERT_FATAL(qa != NULL && qb != NULL);
	CU_ASSERT(dev->ops->qp_info(qa, &ia) == 0);
	CU_ASSERT(dev->ops->qp_info(qb, &ib) == 0);
	CU_ASSERT(strcmp(ia.driver, "mlx5") == 0);
	{
		struct rdx_qp_conn_attr ca = { .timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
					       .min_rnr_timer = 12, .max_rd_atomic = 16 };

		CU_ASSERT_FATAL(dev->ops->qp_connect(qa, &ib, &ca) == 0);
		CU_ASSERT_FATAL(dev->ops->qp_connect(qb, &ia, &ca) == 0);
	}
	ma = dev->ops->mem_alloc(dev, 4096, RDX_MEM_HOST, RDX_ACCESS_ALL);
	mb = dev->ops->mem_alloc(dev, 4096, RDX_MEM_HOST, RDX_ACCESS_ALL);
	CU_ASSERT_FATAL(ma != NULL && mb != NULL);

	/* inline WRITE a -> b */
	v = 0x1122334455667788ull;
	memset(&wr, 0, sizeof(wr));
	sge.addr = (uintptr_t)&v;
	sge.length = 8;
	sge.lkey = 0;
	wr.opcode = RDX_OP_WRITE;
	wr.flags = RDX_WR_INLINE | RDX_WR_SIGNALED;
	wr.sge = &sge;
	wr.num_sge = 1;
	wr.remote_addr = mb->iova;
	wr.rkey = mb->rkey;
	wr.wr_id = 1;
	CU_ASSERT(rdx_qp_post_burst(qa, &wr, 1) == 1);
	CU_ASSERT(poll_n(cq, wc, 1) == 1);
	CU_ASSERT(wc[0].status == IBV_WC_SUCCESS && wc[0].wr_id == 1);
	CU_ASSERT(memcmp(mb->addr, &v, 8) == 0);

	/* the same through the lean requester poll the hardware CQ installs */
	CU_ASSERT(cq->poll_req_burst ==
		  rdx_mlx5_cq_poll_req_op((const struct rdx_mlx5_cq *)(const void *)cq));
	wr.wr_id = 2;
	CU_ASSERT(rdx_qp_post_burst(qa, &wr, 1) == 1);
	{
		unsigned long spins;
		uint16_t got = 0;

		for (spins = 0; got == 0 && spins < 100000000ul; spins++)
			got = rdx_cq_poll_req_burst(cq, wc, 1);
		CU_ASSERT(got == 1);
	}
	CU_ASSERT(wc[0].status == IBV_WC_SUCCESS && wc[0].wr_id == 2 && wc[0].retired == 1);
	CU_ASSERT(wc[0].opcode == RDX_WC_WRITE && wc[0].qp_num == qa->qp_num);

	/* READ b -> a */
	sge.addr = ma->iova;
	sge.lkey = ma->lkey;
	wr.opcode = RDX_OP_READ;
	wr.flags = RDX_WR_SIGNALED;
	wr.wr_id = 2;
	CU_ASSERT(rdx_qp_post_burst(qa, &wr, 1) == 1);
	CU_ASSERT(poll_n(cq, wc, 1) == 1);
	CU_ASSERT(wc[0].status == IBV_WC_SUCCESS && wc[0].opcode == RDX_WC_READ);
	CU_ASSERT(wc[0].byte_len == 8);
	CU_ASSERT(memcmp(ma->addr, &v, 8) == 0);

	/* FAA on b, original value back in a (host order) */
	if (attr.atomics) {
		wr.opcode = RDX_OP_FAA;
		wr.compare_add = 5;
		wr.wr_id = 3;
		CU_ASSERT(rdx_qp_post_burst(qa, &wr, 1) == 1);
		CU_ASSERT(poll_n(cq, wc, 1) == 1);
		CU_ASSERT(wc[0].status == IBV_WC_SUCCESS && wc[0].opcode == RDX_WC_FAA);
		CU_ASSERT(*(uint64_t *)ma->addr == v);
		CU_ASSERT(*(uint64_t *)mb->addr == v + 5);
	}

	/* SEND_IMM a -> b into a posted receive */
	rsge.addr = mb->iova + 1024;
	rsge.length = 1024;
	rsge.lkey = mb->lkey;
	rwr.wr_id = 77;
	rwr.sge = &rsge;
	rwr.num_sge = 1;
	CU_ASSERT(rdx_qp_post_recv_burst(qb, &rwr, 1) == 1);
	memcpy(ma->addr, "hello mlx5", 10);
	sge.addr = ma->iova;
	sge.length = 10;
	wr.opcode = RDX_OP_SEND_IMM;
	wr.imm = 0xabcdef01;
	wr.wr_id = 4;
	CU_ASSERT(rdx_qp_post_burst(qa, &wr, 1) == 1);
	CU_ASSERT(poll_n(cq, wc, 2) == 2);
	CU_ASSERT(wc[0].status == IBV_WC_SUCCESS && wc[1].status == IBV_WC_SUCCESS);
	{
		const struct rdx_wc *r = wc[0].opcode == RDX_WC_RECV_IMM ? &wc[0] : &wc[1];

		CU_ASSERT(r->opcode == RDX_WC_RECV_IMM);
		CU_ASSERT(r->wr_id == 77 && r->byte_len == 10 && r->imm == 0xabcdef01);
		CU_ASSERT(memcmp((uint8_t *)mb->addr + 1024, "hello mlx5", 10) == 0);
	}

	/* bad rkey: remote access error, then flush */
	wr.opcode = RDX_OP_WRITE;
	wr.rkey = mb->rkey ^ 0x5a5a00;
	wr.wr_id = 5;
	CU_ASSERT(rdx_qp_post_burst(qa, &wr, 1) == 1);
	CU_ASSERT(poll_n(cq, wc, 1) == 1);
	CU_ASSERT(wc[0].status == IBV_WC_REM_ACCESS_ERR || wc[0].status == IBV_WC_REM_INV_REQ_ERR);

	CU_ASSERT(dev->ops->qp_destroy(qa) == 0);
	CU_ASSERT(dev->ops->qp_destroy(qb) == 0);
	CU_ASSERT(dev->ops->mem_free(ma) == 0);
	CU_ASSERT(dev->ops->mem_free(mb) == 0);
	CU_ASSERT(dev->ops->cq_destroy(cq) == 0);
	CU_ASSERT(rdx_dev_close(dev) == 0);
}

/*
 * UD loopback through the public API: two UD QPs on one port, an AH made
 * from the peer's qp_info, an inline SEND and a SEND_IMM with a gather
 * list; the receive buffer starts with the 40-byte GRH area; a message
 * above max_ud_msg completes with LOC_LEN_ERR and the QP goes on.
 */
static void
test_ud_loopback(void)
{
	struct rdx_dev_conf dconf = { .quiet = true, .driver = "mlx5" };
	struct rdx_cq_conf cconf = { .depth = 256 };
	struct rdx_qp_conf qconf;
	struct rdx_qp_info ia, ib;
	struct rdx_ah_attr aa;
	const struct rdx_dev_attr *attr;
	struct rdx_dev *dev;
	struct rdx_cq *cq;
	struct rdx_qp *qa, *qb;
	struct rdx_ah *ah;
	struct rdx_mem *ma, *mb;
	struct rdx_wc wc[4];
	struct rdx_wr wr;
	struct rdx_recv_wr rwr;
	struct rdx_sge sge[2], rsge;
	const struct rdx_wc *r;
	uint64_t v = 0x0102030405060708ull;
	unsigned int k;

	dev = rdx_dev_open(ibv_get_device_name(mlx5_ibdev), &dconf);
	CU_ASSERT_FATAL(dev != NULL);
	attr = rdx_dev_attr_get(dev);
	CU_ASSERT_FATAL(attr->max_ud_msg >= 256);
	cq = rdx_cq_create(dev, &cconf);
	CU_ASSERT_FATAL(cq != NULL);
	memset(&qconf, 0, sizeof(qconf));
	qconf.send_cq = cq;
	qconf.recv_cq = cq;
	qconf.sq_depth = 64;
	qconf.rq_depth = 64;
	qconf.max_send_sge = 2;
	qconf.max_recv_sge = 1;
	qconf.max_inline = 64;
	qconf.sig_interval = 1;
	qconf.type = RDX_QP_UD;
	qconf.qkey = 0x1ee7;
	qa = rdx_qp_create(dev, &qconf);
	qb = rdx_qp_create(dev, &qconf);
	CU_ASSERT_FATAL(qa != NULL && qb != NULL);
	CU_ASSERT(rdx_qp_connect(qa, NULL, NULL) == 0);
	CU_ASSERT(rdx_qp_connect(qb, NULL, NULL) == 0);
	CU_ASSERT(rdx_qp_info_get(qa, &ia) == 0);
	CU_ASSERT(rdx_qp_info_get(qb, &ib) == 0);
	CU_ASSERT(ib.qp_type == RDX_QP_UD && ib.qkey == 0x1ee7);
	CU_ASSERT(rdx_ah_attr_from_info(dev, &ib, &aa) == 0);
	ah = rdx_ah_create(dev, &aa);
	CU_ASSERT_FATAL(ah != NULL);
	ma = rdx_dev_mem_alloc(dev, 2 * attr->max_ud_msg + 4096, RDX_MEM_HOST, RDX_ACCESS_ALL);
	mb = rdx_dev_mem_alloc(dev, 2 * (attr->max_ud_msg + RDX_UD_GRH_BYTES), RDX_MEM_HOST,
			       RDX_ACCESS_ALL);
	CU_ASSERT_FATAL(ma != NULL && mb != NULL);
	rsge.length = attr->max_ud_msg + RDX_UD_GRH_BYTES;
	rsge.lkey = mb->lkey;
	rwr.sge = &rsge;
	rwr.num_sge = 1;
	for (k = 0; k < 2; k++) {
		rsge.addr = mb->iova + k * rsge.length;
		rwr.wr_id = 100 + k;
		CU_ASSERT(rdx_qp_post_recv_burst(qb, &rwr, 1) == 1);
	}

	/* inline 8 bytes */
	memset(&wr, 0, sizeof(wr));
	sge[0].addr = (uintptr_t)&v;
	sge[0].length = 8;
	sge[0].lkey = 0;
	wr.opcode = RDX_OP_SEND;
	wr.flags = RDX_WR_INLINE | RDX_WR_SIGNALED;
	wr.sge = sge;
	wr.num_sge = 1;
	wr.ah = ah;
	wr.remote_qpn = ib.qp_num;
	wr.remote_qkey = ib.qkey;
	wr.wr_id = 1;
	CU_ASSERT(rdx_qp_post_burst(qa, &wr, 1) == 1);
	CU_ASSERT(poll_n(cq, wc, 2) == 2);
	r = wc[0].opcode == RDX_WC_RECV ? &wc[0] : &wc[1];
	CU_ASSERT(wc[0].status == IBV_WC_SUCCESS && wc[1].status == IBV_WC_SUCCESS);
	CU_ASSERT(r->opcode == RDX_WC_RECV && r->wr_id == 100);
	CU_ASSERT(r->byte_len == RDX_UD_GRH_BYTES + 8);
	CU_ASSERT(r->src_qp == ia.qp_num);
	CU_ASSERT(memcmp(rdx_ud_payload(mb->addr), &v, 8) == 0);
	if (attr->link_layer == IBV_LINK_LAYER_ETHERNET)
		CU_ASSERT(r->wc_flags & RDX_WC_GRH);

	/* SEND_IMM of exactly max_ud_msg bytes from two SGEs */
	memset(ma->addr, 0x5c, 2 * attr->max_ud_msg);
	sge[0].addr = ma->iova;
	sge[0].length = 100;
	sge[0].lkey = ma->lkey;
	sge[1].addr = ma->iova + 100;
	sge[1].length = attr->max_ud_msg - 100;
	sge[1].lkey = ma->lkey;
	wr.opcode = RDX_OP_SEND_IMM;
	wr.flags = RDX_WR_SIGNALED;
	wr.num_sge = 2;
	wr.imm = 0x12345678;
	wr.wr_id = 2;
	CU_ASSERT(rdx_qp_post_burst(qa, &wr, 1) == 1);
	CU_ASSERT(poll_n(cq, wc, 2) == 2);
	r = wc[0].opcode == RDX_WC_RECV_IMM ? &wc[0] : &wc[1];
	CU_ASSERT(r->opcode == RDX_WC_RECV_IMM && r->wr_id == 101 && r->imm == 0x12345678);
	CU_ASSERT(r->byte_len == RDX_UD_GRH_BYTES + attr->max_ud_msg);

	/* one byte more: not sent, LOC_LEN_ERR, the QP goes on */
	sge[1].length++;
	wr.wr_id = 3;
	CU_ASSERT(rdx_qp_post_burst(qa, &wr, 1) == 1);
	CU_ASSERT(poll_n(cq, wc, 1) == 1);
	CU_ASSERT(wc[0].status == IBV_WC_LOC_LEN_ERR && wc[0].wr_id == 3);
	wr.opcode = RDX_OP_WRITE;                     /* no RDMA on UD */
	CU_ASSERT(rdx_qp_post_burst(qa, &wr, 1) == 0);

	CU_ASSERT(rdx_qp_destroy(qa) == 0);
	CU_ASSERT(rdx_qp_destroy(qb) == 0);
	CU_ASSERT(rdx_ah_destroy(ah) == 0);
	CU_ASSERT(rdx_dev_mem_free(ma) == 0);
	CU_ASSERT(rdx_dev_mem_free(mb) == 0);
	CU_ASSERT(rdx_cq_destroy(cq) == 0);
	CU_ASSERT(rdx_dev_close(dev) == 0);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "open of no such device fails with ENODEV", test_open_null },
		{ "loopback: every opcode through the datapath", test_loopback },
		{ "UD loopback: AH, GRH area, MTU limit", test_ud_loopback },
		{ NULL, NULL },
	};
	int ret;

	mlx5_ibdev = find_mlx5();
	if (mlx5_ibdev == NULL) {
		printf("no mlx5 device: skipped\n");
		if (dev_list != NULL)
			ibv_free_device_list(dev_list);
		return 77;
	}
	ret = rdx_ut_run("mlx5_hw_dev", cases, NULL, NULL);
	ibv_free_device_list(dev_list);
	return ret;
}
