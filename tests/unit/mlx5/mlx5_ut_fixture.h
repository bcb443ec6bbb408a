/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Set-ups shared by the datapath tests on the fake rings of mlx5_ut_fake.h
 * (mlx5_cq_ut.c, mlx5_qp_xstats_ut.c): each test keeps its own cases and
 * checks, the rings it starts from are built here once.
 */
#ifndef MLX5_UT_FIXTURE_H
#define MLX5_UT_FIXTURE_H

#include "mlx5_ut_fake.h"

/*
 * An error with flushes behind it, not yet polled: a fake QP signaling at
 * least every 8 WQEs, two receives posted (wr_id 41, 42), five WRITEs
 * (wr_id 900..904, one WQEBB each: WQE counters 0..4) posted; then the
 * device's six CQEs: WQE 1 failed (remote access error, vendor syndrome
 * 0x88: it retires WQE 0 too), WQEs 2..4 and both receives flushed (vendor
 * syndrome 0x79).
 */
static inline void
fake_error_flush_setup(void)
{
	struct rdx_sge sg = { .addr = 0x1000, .length = 64, .lkey = 1 };
	struct qp_opts o = default_opts;
	struct rdx_recv_wr rwr[2];
	struct rdx_wr wr[5];
	unsigned int k;

	o.sig_interval = 8;
	fake_setup(&o);
	memset(wr, 0, sizeof(wr));
	memset(rwr, 0, sizeof(rwr));
	for (k = 0; k < 5; k++) {
		wr[k].opcode = RDX_OP_WRITE;
		wr[k].wr_id = 900 + k;
	}
	for (k = 0; k < 2; k++) {
		rwr[k].wr_id = 41 + k;
		rwr[k].sge = &sg;
		rwr[k].num_sge = 1;
	}
	CU_ASSERT(rdx_qp_post_recv_burst(qp(), rwr, 2) == 2);
	CU_ASSERT(rdx_qp_post_burst(qp(), wr, 5) == 5);
	cqe_err(QPN, MLX5_CQE_REQ_ERR, MLX5_OPCODE_RDMA_WRITE, 1,
		MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR, 0x88);
	for (k = 2; k < 5; k++)
		cqe_err(QPN, MLX5_CQE_REQ_ERR, MLX5_OPCODE_RDMA_WRITE, (uint16_t)k,
			MLX5_CQE_SYNDROME_WR_FLUSH_ERR, 0x79);
	cqe_err(QPN, MLX5_CQE_RESP_ERR, 0, 0, MLX5_CQE_SYNDROME_WR_FLUSH_ERR, 0x79);
	cqe_err(QPN, MLX5_CQE_RESP_ERR, 0, 1, MLX5_CQE_SYNDROME_WR_FLUSH_ERR, 0x79);
}

#endif /* MLX5_UT_FIXTURE_H */
