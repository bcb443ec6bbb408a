/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the datapath's objects (drivers/mlx5/mlx5_obj.c) on the fake
 * device of mlx5_ut_fake.h: ring sizing, dp_init's checks, a CQ's QP table,
 * the bind/unbind step both backends share.
 */
#include "mlx5_ut_fake.h"
#include "rdx_dev_driver.h"

static void
test_sizing(void)
{
	/* rdma-core mlx5_calc_sq_size for RC (sq_overhead 192 B, 512-byte
	 * descriptors): the WQE is 256 B with up to 4 SGEs or 60 inline bytes,
	 * pow2(wr * size) / 64 must not exceed max_send_wqebb. */
	CU_ASSERT(rdx_mlx5_rc_max_send_wr(32768, 512, 1, 0) == 8192);
	CU_ASSERT(rdx_mlx5_rc_max_send_wr(32768, 512, 4, 60) == 8192);
	CU_ASSERT(rdx_mlx5_rc_max_send_wr(32768, 512, 1, 61) == 6553);    /* 320 B */
	CU_ASSERT(rdx_mlx5_rc_max_send_wr(32768, 512, 1, 220) == 4681);   /* 448 B */
	CU_ASSERT(rdx_mlx5_rc_max_send_wr(32768, 512, 20, 0) == 4096);    /* 512 B */
	CU_ASSERT(rdx_mlx5_rc_max_send_wr(32768, 512, 21, 0) == 0);       /* 528 > 512 */
	CU_ASSERT(rdx_mlx5_rc_max_send_wr(32768, 512, 1, 316) == 4096);   /* 512 B */
	CU_ASSERT(rdx_mlx5_rc_max_send_wr(32768, 512, 1, 317) == 0);
	CU_ASSERT(rdx_mlx5_rc_max_send_wr(1000, 512, 1, 0) == 128);       /* 512 WQEBBs */
	CU_ASSERT(rdx_mlx5_rc_max_send_wr(0, 512, 1, 0) == 0);
	CU_ASSERT(rdx_mlx5_sq_wqebb_max(0, 1) == 1);
	CU_ASSERT(rdx_mlx5_sq_wqebb_max(28, 2) == 1);     /* 32 + 32 = 64 */
	CU_ASSERT(rdx_mlx5_sq_wqebb_max(29, 2) == 2);     /* 32 + 48 */
	CU_ASSERT(rdx_mlx5_sq_wqebb_max(60, 4) == 2);
	CU_ASSERT(rdx_mlx5_sq_wqebb_max(0, 3) == 2);      /* 32 + 48 */
	CU_ASSERT(rdx_mlx5_sq_wqe_cnt(100, 8, 1) == 128);
	CU_ASSERT(rdx_mlx5_sq_wqe_cnt(100, 60, 4) == 256);
	CU_ASSERT(rdx_mlx5_rq_stride(1) == 16);
	CU_ASSERT(rdx_mlx5_rq_stride(3) == 64);
	CU_ASSERT(rdx_mlx5_rq_stride(0) == 16);
}

static void
test_init_rejects(void)
{
	struct rdx_mlx5_qp q;
	struct mlx5dv_qp dv;
	__be32 db[2];
	uint8_t buf[256];

	memset(&q, 0, sizeof(q));
	memset(&dv, 0, sizeof(dv));
	dv.dbrec = db;
	dv.sq.buf = buf;
	dv.sq.wqe_cnt = 3;            /* not a power of two */
	dv.sq.stride = 64;
	CU_ASSERT(rdx_mlx5_qp_dp_init(&q, &dv, 1, 0, 1, 1) == -EINVAL);
	dv.sq.wqe_cnt = 4;
	CU_ASSERT(rdx_mlx5_qp_dp_init(&q, &dv, 1, 2000, 1, 1) == -EINVAL);
	CU_ASSERT(rdx_mlx5_qp_dp_init(&q, &dv, 1, 0, 62, 1) == -EINVAL);
	/* 4 WQEBBs cannot hold one 5-WQEBB WQE */
	CU_ASSERT(rdx_mlx5_qp_dp_init(&q, &dv, 1, 280, 1, 1) == -EINVAL);
	/* an RQ of 65536: its 16-bit doorbell counter could not tell full
	 * from empty */
	dv.rq.buf = buf;
	dv.rq.stride = 16;
	dv.rq.wqe_cnt = 65536;
	CU_ASSERT(rdx_mlx5_qp_dp_init(&q, &dv, 1, 0, 1, 1) == -EINVAL);
	dv.rq.wqe_cnt = 0;
	dv.rq.buf = NULL;
	dv.rq.stride = 0;
	CU_ASSERT(rdx_mlx5_qp_dp_init(&q, &dv, 1, 0, 1, 1) == 0);
	CU_ASSERT(q.base.post_burst == rdx_mlx5_post_burst);
	CU_ASSERT(q.base.conf.sq_depth == 4);
	rdx_mlx5_qp_dp_fini(&q);
}

/* QP lookup table: colliding QPNs probe, detach re-seats the run, limits. */
static void
test_cq_qp_table(void)
{
	static struct rdx_mlx5_qp q[5];
	struct rdx_mlx5_cq c;
	struct mlx5dv_cq dvc;
	__be32 db[2];
	static uint8_t ring[4 * 64] __attribute__((aligned(64)));
	unsigned int k;

	memset(&c, 0, sizeof(c));
	memset(&dvc, 0, sizeof(dvc));
	dvc.buf = ring;
	dvc.dbrec = db;
	dvc.cqe_cnt = 4;
	dvc.cqe_size = 64;
	CU_ASSERT(rdx_mlx5_cq_dp_init(&c, &dvc, 1, 4) == 0);
	CU_ASSERT(c.qp_tbl_mask == 7);
	/* QPNs 3, 11, 19, 27 all hash to slot 3 */
	for (k = 0; k < 5; k++) {
		memset(&q[k], 0, sizeof(q[k]));
		q[k].base.qp_num = 3 + 8 * k;
	}
	for (k = 0; k < 4; k++)
		CU_ASSERT(rdx_mlx5_cq_attach(&c, &q[k]) == 0);
	CU_ASSERT(rdx_mlx5_cq_attach(&c, &q[4]) == -ENOSPC);
	for (k = 0; k < 4; k++)
		CU_ASSERT(cq_lookup_qp(&c, 3 + 8 * k) == &q[k]);
	CU_ASSERT(cq_lookup_qp(&c, 35) == NULL);
	/* detaching the head of the run keeps the rest reachable */
	rdx_mlx5_cq_detach(&c, &q[0]);
	CU_ASSERT(c.nb_qps == 3);
	CU_ASSERT(cq_lookup_qp(&c, 3) == NULL);
	for (k = 1; k < 4; k++)
		CU_ASSERT(cq_lookup_qp(&c, 3 + 8 * k) == &q[k]);
	CU_ASSERT(c.last_qp == &q[3]);
	rdx_mlx5_cq_detach(&c, &q[3]);
	CU_ASSERT(c.last_qp == RDX_MLX5_NO_QP);
	/* another QP object with a QPN already present */
	q[4].base.qp_num = 11;
	CU_ASSERT(rdx_mlx5_cq_attach(&c, &q[4]) == -EEXIST);
	rdx_mlx5_cq_dp_fini(&c);
	/* the poll ops are picked at creation, one pair per CQE size */
	{
		static uint8_t ring128[4 * 128] __attribute__((aligned(64)));
		const rdx_poll_burst_t op64 = c.base.poll_burst;
		const rdx_poll_burst_t req64 = rdx_mlx5_cq_poll_req_op(&c);

		CU_ASSERT(op64 == rdx_mlx5_cq_poll_op(&c));
		CU_ASSERT(req64 != op64);
		dvc.buf = ring128;
		dvc.cqe_size = 128;
		CU_ASSERT_FATAL(rdx_mlx5_cq_dp_init(&c, &dvc, 1, 4) == 0);
		CU_ASSERT(c.base.poll_burst == rdx_mlx5_cq_poll_op(&c));
		CU_ASSERT(c.base.poll_burst != op64);
		CU_ASSERT(rdx_mlx5_cq_poll_req_op(&c) != req64);
		CU_ASSERT(rdx_mlx5_cq_poll_req_op(&c) != c.base.poll_burst);
		rdx_mlx5_cq_dp_fini(&c);
		dvc.buf = ring;
		dvc.cqe_size = 64;
	}
	/* bad CQ rings */
	dvc.cqe_cnt = 3;
	CU_ASSERT(rdx_mlx5_cq_dp_init(&c, &dvc, 1, 4) == -EINVAL);
	dvc.cqe_cnt = 4;
	dvc.cqe_size = 32;
	CU_ASSERT(rdx_mlx5_cq_dp_init(&c, &dvc, 1, 4) == -EINVAL);
}

/*
 * The bind step both backends share: a CQ is dp_init'ed and listed, a QP
 * dp_init'ed, attached to its send and receive CQs and listed; a failing
 * attach leaves nothing bound; unbind undoes it all.
 */
static void
test_bind_unbind(void)
{
	static uint8_t sq[2][16 * 64] __attribute__((aligned(64)));
	static uint8_t ring[2][4 * 64] __attribute__((aligned(64)));
	static struct rdx_mlx5_qp q[2];
	static struct rdx_mlx5_cq c[2];
	struct rdx_dev dev;
	struct rdx_mlx5_objs o;
	struct rdx_cq_conf cc;
	struct rdx_qp_conf qc;
	struct mlx5dv_cq dvc;
	struct mlx5dv_qp dv;
	__be32 cdb[2][2], qdb[2][2];
	int k, ctx;

	memset(&dev, 0, sizeof(dev));
	memset(c, 0, sizeof(c));
	memset(q, 0, sizeof(q));
	rdx_mlx5_objs_init(&o);
	memset(&cc, 0, sizeof(cc));
	cc.depth = 3;
	for (k = 0; k < 2; k++) {
		memset(&dvc, 0, sizeof(dvc));
		dvc.buf = ring[k];
		dvc.dbrec = cdb[k];
		dvc.cqe_cnt = 4;
		dvc.cqe_size = 64;
		dvc.cqn = 20u + (uint32_t)k;
		/* the receive CQ takes one QP only */
		CU_ASSERT_FATAL(rdx_mlx5_cq_bind(&o, &c[k], &dev, &cc, &dvc, k == 0 ? 4 : 1) == 0);
		CU_ASSERT(c[k].base.dev == &dev);
		CU_ASSERT(c[k].base.conf.depth == 4);   /* the ring's CQE count */
		CU_ASSERT(c[k].cqn == 20u + (uint32_t)k);
		CU_ASSERT(c[k].base.poll_burst == rdx_mlx5_cq_poll_op(&c[k]));
	}
	CU_ASSERT(o.nb_cqs == 2);
	/* a bad ring: nothing listed */
	dvc.cqe_size = 32;
	CU_ASSERT(rdx_mlx5_cq_bind(&o, &c[1], &dev, &cc, &dvc, 1) == -EINVAL);
	CU_ASSERT(o.nb_cqs == 2);
	dvc.cqe_size = 64;

	memset(&qc, 0, sizeof(qc));
	qc.send_cq = &c[0].base;
	qc.recv_cq = &c[1].base;
	qc.sq_depth = 4;
	qc.sig_interval = 1;
	qc.user_ctx = &ctx;
	for (k = 0; k < 2; k++) {
		memset(&dv, 0, sizeof(dv));
		dv.dbrec = qdb[k];
		dv.sq.buf = sq[k];
		dv.sq.wqe_cnt = 16;
		dv.sq.stride = 64;
		CU_ASSERT(rdx_mlx5_qp_bind(&o, &q[k], &dev, &qc, &dv, 0x40u + (uint32_t)k, 0, 1, 0) ==
			  (k == 0 ? 0 : -ENOSPC));
	}
	/* q[0] bound: fields, both CQs, the list */
	CU_ASSERT(q[0].base.dev == &dev);
	CU_ASSERT(q[0].base.user_ctx == &ctx);
	CU_ASSERT(q[0].base.qp_num == 0x40);
	CU_ASSERT(q[0].base.conf.sq_depth == 16);   /* granted: what the ring holds */
	CU_ASSERT(q[0].base.post_burst == rdx_mlx5_post_burst);
	CU_ASSERT(q[0].sq_wrid != NULL);
	CU_ASSERT(cq_lookup_qp(&c[0], 0x40) == &q[0]);
	CU_ASSERT(cq_lookup_qp(&c[1], 0x40) == &q[0]);
	/* q[1]: the receive CQ was full, so the send CQ let go of it too */
	CU_ASSERT(c[0].nb_qps == 1 && c[1].nb_qps == 1);
	CU_ASSERT(cq_lookup_qp(&c[0], 0x41) == NULL);
	CU_ASSERT(q[1].sq_wrid == NULL);
	CU_ASSERT(o.nb_qps == 1);
	/* one CQ for both sides: attached once */
	qc.recv_cq = &c[0].base;
	CU_ASSERT(rdx_mlx5_qp_bind(&o, &q[1], &dev, &qc, &dv, 0x41, 0, 1, 0) == 0);
	CU_ASSERT(c[0].nb_qps == 2 && o.nb_qps == 2);
	rdx_mlx5_qp_unbind(&o, &q[1]);
	CU_ASSERT(c[0].nb_qps == 1 && o.nb_qps == 1);
	CU_ASSERT(q[1].sq_wrid == NULL);
	rdx_mlx5_qp_unbind(&o, &q[0]);
	CU_ASSERT(c[0].nb_qps == 0 && c[1].nb_qps == 0 && o.nb_qps == 0);
	CU_ASSERT(cq_lookup_qp(&c[1], 0x40) == NULL);
	CU_ASSERT(q[0].sq_wrid == NULL);
	for (k = 0; k < 2; k++) {
		rdx_mlx5_cq_unbind(&o, &c[k]);
		CU_ASSERT(c[k].qp_tbl == NULL);
	}
	CU_ASSERT(o.nb_cqs == 0);
	rdx_mlx5_objs_fini(&o);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "sizing helpers", test_sizing },
		{ "dp_init rejects bad rings", test_init_rejects },
		{ "CQ QP table: collisions, detach, limits", test_cq_qp_table },
		{ "bind/unbind: CQ, QP on one or two CQs, failed attach", test_bind_unbind },
		{ NULL, NULL },
	};

	return rdx_ut_run("mlx5_obj", cases, suite_init, suite_fini);
}
