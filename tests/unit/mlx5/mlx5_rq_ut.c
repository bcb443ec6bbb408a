/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive posting (drivers/mlx5/mlx5_rq.c) on the fake device of
 * mlx5_ut_fake.h: the RQ layout, the terminating segment, the doorbell
 * record.
 */
#include "mlx5_ut_fake.h"

static void
test_rq_layout(void)
{
	struct rdx_sge sg[4] = {
		{ .addr = 0x1000, .length = 100, .lkey = 1 },
		{ .addr = 0x2000, .length = 0, .lkey = 2 },
		{ .addr = 0x3000, .length = 300, .lkey = 3 },
		{ .addr = 0x4000, .length = 400, .lkey = 4 },
	};
	struct rdx_sge full[4] = {
		{ .addr = 0x1000, .length = 1, .lkey = 1 },
		{ .addr = 0x2000, .length = 2, .lkey = 2 },
		{ .addr = 0x3000, .length = 3, .lkey = 3 },
		{ .addr = 0x4000, .length = 4, .lkey = 4 },
	};
	struct rdx_recv_wr rwr[10];
	uint8_t exp[64];
	uint32_t n, k;

	fake_setup(&default_opts);
	CU_ASSERT(f->qp.rq_stride == 64);
	memset(rwr, 0, sizeof(rwr));
	rwr[0].wr_id = 1;
	rwr[0].sge = sg;
	rwr[0].num_sge = 3;           /* one empty: 2 segments + terminator */
	rwr[1].wr_id = 2;
	rwr[1].sge = full;
	rwr[1].num_sge = 4;           /* all used: no terminator */
	CU_ASSERT(rdx_qp_post_recv_burst(qp(), rwr, 2) == 2);
	n = exp_data(exp, 100, 1, 0x1000);
	n += exp_data(exp + n, 300, 3, 0x3000);
	n += exp_data(exp + n, 0, MLX5_INVALID_LKEY, 0);
	CU_ASSERT(memcmp(f->rq, exp, n) == 0);
	n = 0;
	for (k = 0; k < 4; k++)
		n += exp_data(exp + n, full[k].length, full[k].lkey, full[k].addr);
	CU_ASSERT(memcmp(f->rq + 64, exp, n) == 0);
	CU_ASSERT(be32toh(f->dbrec[MLX5_RCV_DBR]) == 2);
	CU_ASSERT(f->qp.stats.recv_doorbells == 1);
	/* RQ full: 8 WQEs */
	for (k = 0; k < 10; k++) {
		rwr[k].sge = full;
		rwr[k].num_sge = 1;
	}
	CU_ASSERT(rdx_qp_post_recv_burst(qp(), rwr, 10) == 6);
	CU_ASSERT(be32toh(f->dbrec[MLX5_RCV_DBR]) == 8);
	CU_ASSERT(rdx_qp_post_recv_burst(qp(), rwr, 1) == 0);
	CU_ASSERT(f->qp.stats.recv_doorbells == 2);
	/* too many SGEs stops the batch */
	fake_teardown();
	fake_setup(&default_opts);
	rwr[0].num_sge = 1;
	rwr[1].num_sge = 5;
	CU_ASSERT(rdx_qp_post_recv_burst(qp(), rwr, 3) == 1);
	fake_teardown();
}

/* max_recv_sge 3 rounds the stride up to 4 segments: 3 used still get the
 * terminator (rdma-core: j < max_gs, max_gs = stride / 16). */
static void
test_rq_stride_roundup(void)
{
	struct qp_opts o = default_opts;
	struct rdx_sge sg[3] = {
		{ .addr = 0x1000, .length = 1, .lkey = 1 },
		{ .addr = 0x2000, .length = 2, .lkey = 2 },
		{ .addr = 0x3000, .length = 3, .lkey = 3 },
	};
	struct rdx_recv_wr rwr = { .wr_id = 9, .sge = sg, .num_sge = 3 };
	uint8_t exp[64];
	uint32_t n = 0, k;

	o.max_recv_sge = 3;
	fake_setup(&o);
	CU_ASSERT(f->qp.rq_stride == 64);
	memset(f->rq, 0xee, 64);
	CU_ASSERT(rdx_qp_post_recv_burst(qp(), &rwr, 1) == 1);
	for (k = 0; k < 3; k++)
		n += exp_data(exp + n, sg[k].length, sg[k].lkey, sg[k].addr);
	n += exp_data(exp + n, 0, MLX5_INVALID_LKEY, 0);
	CU_ASSERT(memcmp(f->rq, exp, n) == 0);
	rwr.num_sge = 4;
	CU_ASSERT(rdx_qp_post_recv_burst(qp(), &rwr, 1) == 0);
	fake_teardown();
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "RQ layout, terminator, dbrec", test_rq_layout },
		{ "RQ stride rounded up: terminator", test_rq_stride_roundup },
		{ NULL, NULL },
	};

	return rdx_ut_run("mlx5_rq", cases, suite_init, suite_fini);
}
