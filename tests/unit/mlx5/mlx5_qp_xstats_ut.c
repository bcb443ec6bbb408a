/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of one QP's counters (drivers/mlx5/mlx5_qp_xstats.c, the
 * qp_xstats_get op) on the fake device of mlx5_ut_fake.h, where the test
 * writes every CQE itself: posted, doorbells and BlueFlame copies per
 * burst, completions derived from the ring ordinals (selective signaling:
 * one CQE retires a run), an error CQE that retires good WQEs before the
 * failing one, flushes on both queues, a full SQ, the driver's own names,
 * and snapshots of a datapath caught mid-burst (never more completed than
 * posted, never a wrap). lib/dev's common-counter helper is included too.
 */
#include "mlx5_ut_fixture.h"
#include "../../../drivers/mlx5/mlx5_qp_xstats.c"
#include "../../../lib/dev/rdx_dev_qp.c"

#define NXS (RDX_QP_XSTATS_COMMON + RDX_MLX5_QP_XSTATS_OWN)

static uint64_t
v(const char *name)
{
	struct rdx_dev_xstat xs[NXS];
	int n = rdx_mlx5_qp_xstats_get(qp(), xs, NXS), i;

	CU_ASSERT_EQUAL(n, NXS);
	for (i = 0; i < n && i < NXS; i++)
		if (strcmp(xs[i].name, name) == 0)
			return xs[i].value;
	CU_FAIL("no such counter");
	return UINT64_MAX;
}

static void
test_names(void)
{
	struct rdx_dev_xstat xs[NXS + 1], few[2];
	int i;

	fake_setup(&default_opts);
	memset(xs, 0xab, sizeof(xs));
	CU_ASSERT_EQUAL(rdx_mlx5_qp_xstats_get(qp(), NULL, 0), NXS);
	CU_ASSERT_EQUAL(rdx_mlx5_qp_xstats_get(qp(), xs, NXS + 1), NXS);
	for (i = 0; i < RDX_QP_XSTATS_COMMON; i++)
		CU_ASSERT_STRING_EQUAL(xs[i].name, rdx_qp_xstat_name((enum rdx_qp_xstat_id)i));
	CU_ASSERT_STRING_EQUAL(xs[RDX_QP_XSTATS_COMMON].name, "send_bf_copies");
	CU_ASSERT_STRING_EQUAL(xs[RDX_QP_XSTATS_COMMON + 1].name, "send_full_bursts");
	CU_ASSERT_STRING_EQUAL(xs[RDX_QP_XSTATS_COMMON + 2].name, "send_bad_wr_bursts");
	for (i = 0; i < NXS; i++)
		CU_ASSERT_EQUAL(xs[i].value, 0);
	/* the entry past the count is not written */
	CU_ASSERT_EQUAL(xs[NXS].value, 0xababababababababULL);
	CU_ASSERT_EQUAL(rdx_mlx5_qp_xstats_get(qp(), few, 2), NXS);
	CU_ASSERT_STRING_EQUAL(few[1].name, "send_doorbells");
	fake_teardown();
}

static void
test_bursts_and_signaling(void)
{
	struct qp_opts o = default_opts;
	struct rdx_sge sg = { .addr = 0x1000, .length = 64, .lkey = 1 };
	struct rdx_recv_wr rwr[3];
	struct rdx_wc wc[8];
	struct rdx_wr wr[6];
	unsigned int k;

	o.sig_interval = 3;
	o.sq_bb = 64;
	fake_setup(&o);
	memset(wr, 0, sizeof(wr));
	for (k = 0; k < 6; k++)
		wr[k].wr_id = k;
	/* 6 NOPs in one burst: WQEs 2 and 5 signaled, one doorbell */
	CU_ASSERT_EQUAL(rdx_qp_post_burst(qp(), wr, 6), 6);
	CU_ASSERT_EQUAL(v("send_wrs_posted"), 6);
	CU_ASSERT_EQUAL(v("send_doorbells"), 1);
	CU_ASSERT_EQUAL(v("send_bf_copies"), 0);
	CU_ASSERT_EQUAL(v("send_wrs_completed"), 0);
	/* the first CQE retires three */
	cqe_req(QPN, 2, MLX5_OPCODE_NOP, 0);
	CU_ASSERT_EQUAL(rdx_cq_poll_burst(cq(), wc, 8), 1);
	CU_ASSERT_EQUAL(v("send_wrs_completed"), 3);
	CU_ASSERT_EQUAL(v("send_wrs_ok"), 3);
	cqe_req(QPN, 5, MLX5_OPCODE_NOP, 0);
	CU_ASSERT_EQUAL(rdx_cq_poll_burst(cq(), wc, 8), 1);
	CU_ASSERT_EQUAL(v("send_wrs_completed"), 6);
	/* a burst of one small inline WQE: a BlueFlame copy (the fake
	 * register has halves; a NOP, one DS, would be a plain doorbell) */
	{
		struct rdx_sge in = { .addr = (uintptr_t)pay, .length = 8, .lkey = 0 };
		struct rdx_wr w = { .wr_id = 77, .sge = &in, .num_sge = 1,
				    .remote_addr = 0x2000, .rkey = 5, .opcode = RDX_OP_WRITE,
				    .flags = RDX_WR_SIGNALED | RDX_WR_INLINE };

		CU_ASSERT_EQUAL(rdx_qp_post_burst(qp(), &w, 1), 1);
	}
	CU_ASSERT_EQUAL(v("send_doorbells"), 2);
	CU_ASSERT_EQUAL(v("send_bf_copies"), 1);
	complete_all();
	CU_ASSERT_EQUAL(v("send_wrs_completed"), 7);
	/* receives: 3 in one burst, one completes */
	memset(rwr, 0, sizeof(rwr));
	for (k = 0; k < 3; k++) {
		rwr[k].wr_id = 50 + k;
		rwr[k].sge = &sg;
		rwr[k].num_sge = 1;
	}
	CU_ASSERT_EQUAL(rdx_qp_post_recv_burst(qp(), rwr, 3), 3);
	CU_ASSERT_EQUAL(v("recv_wrs_posted"), 3);
	CU_ASSERT_EQUAL(v("recv_doorbells"), 1);
	cqe_resp(QPN, MLX5_CQE_RESP_SEND, 0, 64, 0);
	CU_ASSERT_EQUAL(rdx_cq_poll_burst(cq(), wc, 8), 1);
	CU_ASSERT_EQUAL(v("recv_wrs_completed"), 1);
	CU_ASSERT_EQUAL(v("recv_wrs_ok"), 1);
	fake_teardown();
}

/* mlx5_cq_ut's error_and_flush (its set-up: mlx5_ut_fixture.h): WQE 1 of 5
 * fails, the rest and both receives are flushed. */
static void
test_error_and_flush(void)
{
	struct rdx_wc wc[8];

	fake_error_flush_setup();
	CU_ASSERT(rdx_cq_poll_burst(cq(), wc, 8) == 6);
	/* the error CQE retired WQE 0 (fine) and WQE 1 (failed) */
	CU_ASSERT_EQUAL(wc[0].retired, 2);
	CU_ASSERT_EQUAL(v("send_wrs_completed"), 5);
	CU_ASSERT_EQUAL(v("send_wrs_ok"), 1);
	CU_ASSERT_EQUAL(v("send_wrs_error"), 1);
	CU_ASSERT_EQUAL(v("send_wrs_flushed"), 3);
	CU_ASSERT_EQUAL(v("recv_wrs_completed"), 2);
	CU_ASSERT_EQUAL(v("recv_wrs_flushed"), 2);
	CU_ASSERT_EQUAL(v("recv_wrs_error"), 0);
	CU_ASSERT_EQUAL(v("recv_wrs_ok"), 0);
	/* a REQ error CQE naming nothing outstanding retires nothing: no count */
	cqe_err(QPN, MLX5_CQE_REQ_ERR, MLX5_OPCODE_RDMA_WRITE, 9,
		MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR, 0x88);
	CU_ASSERT(rdx_cq_poll_burst(cq(), wc, 8) == 1);
	CU_ASSERT_EQUAL(wc[0].retired, 0);
	CU_ASSERT_EQUAL(v("send_wrs_error"), 1);
	fake_teardown();
}

static void
test_full_and_bad(void)
{
	struct qp_opts o = default_opts;
	struct rdx_wr wr[20];

	o.sq_bb = 16;
	fake_setup(&o);
	memset(wr, 0, sizeof(wr));
	/* more than the ring holds: cut short, counted once */
	CU_ASSERT(rdx_qp_post_burst(qp(), wr, 20) < 20);
	CU_ASSERT_EQUAL(v("send_full_bursts"), 1);
	CU_ASSERT_EQUAL(v("send_wrs_posted"), f->qp.stats.wqes);
	complete_all();
	/* an invalid opcode: nothing posted from it on */
	wr[0].opcode = RDX_OP_MAX;
	CU_ASSERT_EQUAL(rdx_qp_post_burst(qp(), wr, 2), 0);
	CU_ASSERT_EQUAL(v("send_bad_wr_bursts"), 1);
	fake_teardown();
}

/*
 * Snapshots of a datapath caught between its stores: the producer ordinal
 * written, the posted count not yet (post_finish's order), and a consumer
 * ordinal read before a poll moved it. completed never exceeds posted and
 * never wraps below 0.
 */
static void
test_mid_burst(void)
{
	struct rdx_wr wr[4];

	fake_setup(&default_opts);
	memset(wr, 0, sizeof(wr));
	CU_ASSERT_EQUAL(rdx_qp_post_burst(qp(), wr, 4), 4);
	complete_all();
	CU_ASSERT_EQUAL(v("send_wrs_completed"), 4);
	/* a next burst of 3 half done: sq_head moved, wqes not yet */
	f->qp.sq_head += 3;
	CU_ASSERT_EQUAL(v("send_wrs_posted"), 4);
	CU_ASSERT_EQUAL(v("send_wrs_completed"), 1);   /* lags, by the burst */
	CU_ASSERT(v("send_wrs_completed") <= v("send_wrs_posted"));
	/* more in flight than the posted count knows: 0, not a wrap */
	f->qp.sq_head += 10;
	CU_ASSERT_EQUAL(v("send_wrs_completed"), 0);
	CU_ASSERT_EQUAL(v("send_wrs_ok"), 0);
	f->qp.sq_head -= 13;
	CU_ASSERT_EQUAL(v("send_wrs_completed"), 4);
	/* the same on the receive side */
	f->qp.rq_head += 2;
	CU_ASSERT_EQUAL(v("recv_wrs_completed"), 0);
	f->qp.rq_head -= 2;
	/* error counts ahead of completions (read at another instant): ok 0 */
	f->qp.errs.send_error = 7;
	CU_ASSERT_EQUAL(v("send_wrs_ok"), 0);
	f->qp.errs.send_error = 0;
	fake_teardown();
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "names", test_names },
		{ "bursts_and_signaling", test_bursts_and_signaling },
		{ "error_and_flush", test_error_and_flush },
		{ "full_and_bad", test_full_and_bad },
		{ "mid_burst", test_mid_burst },
		{ NULL, NULL },
	};

	return rdx_ut_run("mlx5_qp_xstats", cases, suite_init, suite_fini);
}
