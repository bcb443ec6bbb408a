/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive posting (drivers/mlx5/mlx5_rq.c) on the fake device of
 * mlx5_ut_fake.h: the RQ layout, the terminating segment, the doorbell
 * record, the run loop of one-SGE receives against a reference.
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

static uint64_t
xs64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * The receive run loop against an independent reference: random bursts of
 * mostly one-SGE receives (the run shape) with, now and then, a WR the
 * general builder takes (no SGE, a zero-length SGE, a gather list, too many
 * SGEs: the burst stops there), on rings of 4..64 receives of one, two or
 * four segments (stride 16, 32, 64: the terminator after a single SGE or
 * not), so runs cross the ring's end. Every receive slot posted is compared
 * byte for byte with mlx5dv_set_data_seg's, and the wr_ids, the count
 * returned and the doorbell record. Receives are completed by moving
 * rq_tail, as the poll would.
 */
static void
test_rq_random_runs(void)
{
	static const uint32_t cfg[][2] = {   /* rq_cnt, max_recv_sge */
		{ 4, 1 }, { 64, 1 }, { 8, 2 }, { 16, 1 }, { 64, 4 }, { 32, 2 },
	};
	uint64_t seed = 0x5eed1234abcdull;
	unsigned int c, round;

	for (c = 0; c < RTE_DIM(cfg); c++) {
		struct qp_opts o = default_opts;

		o.rq_cnt = cfg[c][0];
		o.max_recv_sge = cfg[c][1];
		fake_setup(&o);
		CU_ASSERT_FATAL(f->qp.rq_stride * o.rq_cnt <= sizeof(f->rq));
		for (round = 0; round < 3000; round++) {
			struct rdx_recv_wr rwr[40];
			struct rdx_sge sg[40][5];
			const uint32_t stride = f->qp.rq_stride, cnt = o.rq_cnt;
			const uint32_t head0 = f->qp.rq_head;
			const uint32_t room = cnt - (head0 - f->qp.rq_tail);
			const uint16_t n = (uint16_t)(1 + xs64(&seed) % 40);
			uint32_t k, exp_n = 0, j;
			bool stop = false;

			memset(f->rq, 0xee, sizeof(f->rq));
			for (k = 0; k < n; k++) {
				const uint32_t kind = (uint32_t)(xs64(&seed) % 32);

				rwr[k].wr_id = xs64(&seed);
				rwr[k].sge = sg[k];
				rwr[k].num_sge = 1;
				for (j = 0; j < 5; j++) {
					sg[k][j].addr = xs64(&seed);
					sg[k][j].length = 1 + (uint32_t)(xs64(&seed) % 70000);
					sg[k][j].lkey = (uint32_t)xs64(&seed);
				}
				if (kind == 0)
					rwr[k].num_sge = 0;
				else if (kind == 1)
					sg[k][0].length = 0;
				else if (kind == 2)
					rwr[k].num_sge = (uint8_t)(1 + xs64(&seed) % o.max_recv_sge);
				else if (kind == 3)
					rwr[k].num_sge = (uint8_t)(o.max_recv_sge + 1);
				if (!stop && k < room && rwr[k].num_sge <= o.max_recv_sge)
					exp_n++;
				else
					stop = true;
			}
			CU_ASSERT_FATAL(rdx_qp_post_recv_burst(qp(), rwr, n) == exp_n);
			CU_ASSERT(f->qp.rq_head == head0 + exp_n);
			if (exp_n != 0)
				CU_ASSERT(be32toh(f->dbrec[MLX5_RCV_DBR]) == ((head0 + exp_n) & 0xffff));
			for (k = 0; k < exp_n; k++) {
				const uint32_t slot = (head0 + k) & (cnt - 1);
				uint8_t exp[64];
				uint32_t len = 0;

				memset(exp, 0xee, sizeof(exp));
				for (j = 0; j < rwr[k].num_sge; j++)
					if (sg[k][j].length != 0)
						len += exp_data(exp + len, sg[k][j].length, sg[k][j].lkey,
								sg[k][j].addr);
				if (len < stride)
					len += exp_data(exp + len, 0, MLX5_INVALID_LKEY, 0);
				CU_ASSERT_FATAL(memcmp(f->rq + (size_t)slot * stride, exp, len) == 0);
				CU_ASSERT_FATAL(f->qp.rq_wrid[slot] == rwr[k].wr_id);
			}
			/* complete some of what is outstanding */
			f->qp.rq_tail += (uint32_t)(xs64(&seed) % (f->qp.rq_head - f->qp.rq_tail + 1));
		}
		fake_teardown();
	}
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "RQ layout, terminator, dbrec", test_rq_layout },
		{ "RQ stride rounded up: terminator", test_rq_stride_roundup },
		{ "RQ run loop: random bursts vs a reference", test_rq_random_runs },
		{ NULL, NULL },
	};

	return rdx_ut_run("mlx5_rq", cases, suite_init, suite_fini);
}
