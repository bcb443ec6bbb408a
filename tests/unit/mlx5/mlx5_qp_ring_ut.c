/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ringing and whole bursts (drivers/mlx5/mlx5_qp.c) on the fake device of
 * mlx5_ut_fake.h: BlueFlame copies and halves, one doorbell per burst,
 * fast and general WRs mixed in one burst. The random bursts against an
 * independent reference are in mlx5_qp_ref_ut.c.
 */
#include "mlx5_ut_fake.h"

static void
test_bf_single(void)
{
	struct rdx_sge inl = { .addr = (uintptr_t)pay, .length = 8 };
	struct rdx_wr wr;
	uint8_t exp[64];
	uint32_t n;

	fake_setup(&default_opts);
	memset(&wr, 0, sizeof(wr));
	wr.opcode = RDX_OP_WRITE;
	wr.sge = &inl;
	wr.num_sge = 1;
	wr.flags = RDX_WR_INLINE;
	wr.remote_addr = 0x1000;
	wr.rkey = 1;
	CU_ASSERT(post1(&wr) == 1);
	n = exp_ctrl(exp, 0, MLX5_OPCODE_RDMA_WRITE, 3, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	n += exp_raddr(exp + n, 0x1000, 1);
	n += exp_inline(exp + n, pay, 8);
	/* BlueFlame copies the whole 64-byte chunk into the first half */
	CU_ASSERT(memcmp(f->bf, f->sq, 64) == 0);
	CU_ASSERT(memcmp(f->bf, exp, n) == 0);
	CU_ASSERT(f->bf[64] == 0xaa && f->bf[BF_HALF] == 0xaa);
	CU_ASSERT(f->qp.bf->offset == BF_HALF);
	CU_ASSERT(f->qp.stats.bf_posts == 1);
	/* the next one goes to the second half, then back to the first */
	wr.remote_addr = 0x2000;
	CU_ASSERT(post1(&wr) == 1);
	CU_ASSERT(memcmp(f->bf + BF_HALF, f->sq + 64, 64) == 0);
	CU_ASSERT(f->qp.bf->offset == 0);
	wr.remote_addr = 0x3000;
	CU_ASSERT(post1(&wr) == 1);
	CU_ASSERT(memcmp(f->bf, f->sq + 128, 64) == 0);
	CU_ASSERT(f->qp.stats.bf_posts == 3);
	CU_ASSERT(rdx_mlx5_qp_doorbells(&f->qp) == 3);
	fake_teardown();
}

/* A 2-WQEBB WQE that wraps is copied in two 64-byte chunks, in WQE order. */
/*
 * post_send_db's copy rule: one WR, more than one 16-byte unit, inline or
 * MLX5_POST_SEND_PREFER_BF (on unless "0"), fits a half, MLX5_SHUT_UP_BF
 * not set. Otherwise ctrl bytes 0..7 go out as a doorbell.
 */
static void
test_bf_rules(void)
{
	struct rdx_sge inl = { .addr = (uintptr_t)pay, .length = 8 };
	struct rdx_sge g = { .addr = 0x5000, .length = 100, .lkey = 9 };
	struct rdx_wr wr;

	fake_setup(&default_opts);
	/* a NOP is DS 1: rdma-core rings with 8 bytes (size > 1 fails) */
	memset(&wr, 0, sizeof(wr));
	wr.opcode = RDX_OP_NOP;
	wr.flags = RDX_WR_SIGNALED;
	CU_ASSERT(post1(&wr) == 1);
	CU_ASSERT((f->sq[7] & 0x3f) == 1);
	CU_ASSERT(f->qp.stats.bf_posts == 0);
	CU_ASSERT(memcmp(f->bf, f->sq, 8) == 0 && f->bf[8] == 0xaa);
	CU_ASSERT(f->qp.bf->offset == BF_HALF);
	/* a gather WRITE (not inline) is copied: prefer_bf is on by default */
	memset(&wr, 0, sizeof(wr));
	wr.opcode = RDX_OP_WRITE;
	wr.sge = &g;
	wr.num_sge = 1;
	wr.remote_addr = 0x1000;
	wr.rkey = 1;
	CU_ASSERT(post1(&wr) == 1);
	CU_ASSERT(f->qp.stats.bf_posts == 1);
	CU_ASSERT(memcmp(f->bf + BF_HALF, f->sq + 64, 64) == 0);
	complete_all();
	fake_teardown();

	/* MLX5_POST_SEND_PREFER_BF=0: only inline WQEs are copied */
	setenv("MLX5_POST_SEND_PREFER_BF", "0", 1);
	fake_setup(&default_opts);
	unsetenv("MLX5_POST_SEND_PREFER_BF");
	CU_ASSERT(post1(&wr) == 1);
	CU_ASSERT(f->qp.stats.bf_posts == 0);
	CU_ASSERT(memcmp(f->bf, f->sq, 8) == 0 && f->bf[8] == 0xaa);
	wr.sge = &inl;
	wr.flags = RDX_WR_INLINE;
	CU_ASSERT(post1(&wr) == 1);
	CU_ASSERT(f->qp.stats.bf_posts == 1);
	CU_ASSERT(memcmp(f->bf + BF_HALF, f->sq + 64, 64) == 0);
	complete_all();
	fake_teardown();

	/* MLX5_SHUT_UP_BF=1: never a copy, not even the fast inline shapes */
	setenv("MLX5_SHUT_UP_BF", "1", 1);
	fake_setup(&default_opts);
	unsetenv("MLX5_SHUT_UP_BF");
	CU_ASSERT(post1(&wr) == 1);
	CU_ASSERT(f->qp.stats.bf_posts == 0 && rdx_mlx5_qp_doorbells(&f->qp) == 1);
	CU_ASSERT(memcmp(f->bf, f->sq, 8) == 0 && f->bf[8] == 0xaa);
	CU_ASSERT(f->qp.bf->offset == BF_HALF);     /* halves still alternate */
	wr.sge = &g;
	wr.flags = 0;
	CU_ASSERT(post1(&wr) == 1);
	CU_ASSERT(f->qp.stats.bf_posts == 0);
	CU_ASSERT(memcmp(f->bf + BF_HALF, f->sq + 64, 8) == 0 && f->bf[BF_HALF + 8] == 0xaa);
	complete_all();
	fake_teardown();
	/* "0" means unset (rdma-core get_shut_up_bf) */
	setenv("MLX5_SHUT_UP_BF", "0", 1);
	fake_setup(&default_opts);
	unsetenv("MLX5_SHUT_UP_BF");
	CU_ASSERT(f->qp.bf->copy_max == BF_HALF);
	fake_teardown();
}

/*
 * Two QPs on one register (one thread domain) share its half toggle: rings
 * alternate halves whichever QP rings (rdma-core keeps bf->offset per
 * bfreg). With a toggle per QP both would write the first half.
 */
static void
test_bf_shared_register(void)
{
	static uint8_t sq2[8 * 64] __attribute__((aligned(64)));
	struct rdx_sge inl = { .addr = (uintptr_t)pay, .length = 8 };
	struct rdx_mlx5_bfreg reg;
	struct mlx5dv_qp dv;
	struct rdx_wr wr;
	__be32 db2[2];

	fake_setup(&default_opts);
	memset(&dv, 0, sizeof(dv));
	dv.dbrec = db2;
	dv.sq.buf = sq2;
	dv.sq.wqe_cnt = 8;
	dv.sq.stride = 64;
	dv.bf.reg = f->bf;
	dv.bf.size = BF_HALF;
	CU_ASSERT_FATAL(rdx_mlx5_qp_dp_init(&f->qp2, &dv, QPN2, 16, 1, 0) == 0);
	rdx_mlx5_bfreg_init(&reg, f->bf, BF_HALF);
	CU_ASSERT(rdx_mlx5_qp_bfreg_share(&f->qp, &reg) == 0);
	CU_ASSERT(rdx_mlx5_qp_bfreg_share(&f->qp2, &reg) == 0);
	CU_ASSERT(reg.refs == 2 && f->qp.bf == &reg && f->qp2.bf == &reg);
	memset(&wr, 0, sizeof(wr));
	wr.opcode = RDX_OP_WRITE;
	wr.sge = &inl;
	wr.num_sge = 1;
	wr.flags = RDX_WR_INLINE | RDX_WR_SIGNALED;
	wr.remote_addr = 0x1000;
	wr.rkey = 1;
	CU_ASSERT(post1(&wr) == 1);                             /* QP 1: half 0 */
	CU_ASSERT(rdx_qp_post_burst(&f->qp2.base, &wr, 1) == 1); /* QP 2: half 1 */
	CU_ASSERT(memcmp(f->bf, f->sq, 64) == 0);
	CU_ASSERT(memcmp(f->bf + BF_HALF, sq2, 64) == 0);
	CU_ASSERT(reg.offset == 0);
	CU_ASSERT(post1(&wr) == 1);                             /* QP 1: half 0 again */
	CU_ASSERT(memcmp(f->bf, f->sq + 64, 64) == 0);
	CU_ASSERT(reg.offset == BF_HALF);
	/* another register cannot be shared in */
	{
		struct rdx_mlx5_bfreg other;

		rdx_mlx5_bfreg_init(&other, f->bf + 64, BF_HALF);
		CU_ASSERT(rdx_mlx5_qp_bfreg_share(&f->qp2, &other) == -EINVAL);
	}
	rdx_mlx5_qp_dp_fini(&f->qp2);
	CU_ASSERT(reg.refs == 1);
	complete_all();
	fake_teardown();
	CU_ASSERT(reg.refs == 0);
}

static void
test_bf_multi_bb_wrap(void)
{
	struct qp_opts o = default_opts;
	struct rdx_sge inl = { .addr = (uintptr_t)pay, .length = 60 };
	struct rdx_wr wr;

	o.sq_bb = 8;
	fake_setup(&o);
	advance_to(7);
	memset(f->bf, 0xaa, sizeof(f->bf));
	memset(&wr, 0, sizeof(wr));
	wr.opcode = RDX_OP_WRITE;
	wr.sge = &inl;
	wr.num_sge = 1;
	wr.flags = RDX_WR_INLINE;
	CU_ASSERT(post1(&wr) == 1);
	{
		uint8_t *half = f->bf + (f->qp.bf->offset ^ BF_HALF);

		CU_ASSERT(memcmp(half, f->sq + 7 * 64, 64) == 0);
		CU_ASSERT(memcmp(half + 64, f->sq, 64) == 0);
		CU_ASSERT(half[128] == 0xaa);
	}
	fake_teardown();
}

/* A WQE larger than one BlueFlame half, or no BlueFlame: plain doorbell. */
static void
test_bf_too_big(void)
{
	struct qp_opts o = default_opts;
	struct rdx_sge inl = { .addr = (uintptr_t)pay, .length = 60 };
	struct rdx_wr wr;

	o.bf_size = 64;
	fake_setup(&o);
	memset(&wr, 0, sizeof(wr));
	wr.opcode = RDX_OP_WRITE;
	wr.sge = &inl;
	wr.num_sge = 1;
	wr.flags = RDX_WR_INLINE;
	CU_ASSERT(post1(&wr) == 1);                 /* DS 6 = 96 B > 64 */
	CU_ASSERT(f->qp.stats.bf_posts == 0);
	CU_ASSERT(memcmp(f->bf, f->sq, 8) == 0);    /* ctrl bytes 0..7 only */
	CU_ASSERT(f->bf[8] == 0xaa);
	CU_ASSERT(f->qp.bf->offset == 64);
	fake_teardown();

	o.bf_size = 0;
	fake_setup(&o);
	wr.sge = &inl;
	inl.length = 8;
	CU_ASSERT(post1(&wr) == 1);
	CU_ASSERT(f->qp.stats.bf_posts == 0);
	CU_ASSERT(memcmp(f->bf, f->sq, 8) == 0);
	CU_ASSERT(f->bf[8] == 0xaa);
	CU_ASSERT(f->qp.bf->offset == 0);
	fake_teardown();
}

/* A burst rings once, with the LAST WQE's ctrl bytes 0..7, dbrec = cur_post. */
static void
test_one_doorbell_per_burst(void)
{
	struct rdx_sge inl = { .addr = (uintptr_t)pay, .length = 8 };
	struct rdx_wr wr[5];
	unsigned int k;

	fake_setup(&default_opts);
	memset(wr, 0, sizeof(wr));
	for (k = 0; k < 5; k++) {
		wr[k].opcode = RDX_OP_WRITE;
		wr[k].sge = &inl;
		wr[k].num_sge = 1;
		wr[k].flags = RDX_WR_INLINE;
		wr[k].wr_id = 100 + k;
	}
	CU_ASSERT(rdx_qp_post_burst(qp(), wr, 5) == 5);
	CU_ASSERT(rdx_mlx5_qp_doorbells(&f->qp) == 1);
	CU_ASSERT(f->qp.stats.bf_posts == 0);
	CU_ASSERT(f->qp.stats.wqes == 5);
	CU_ASSERT(memcmp(f->bf, f->sq + 4 * 64, 8) == 0);
	CU_ASSERT(f->bf[8] == 0xaa);
	CU_ASSERT(be32toh(f->dbrec[MLX5_SND_DBR]) == 5);
	CU_ASSERT(f->qp.bf->offset == BF_HALF);
	CU_ASSERT(rdx_qp_post_burst(qp(), wr, 3) == 3);
	CU_ASSERT(rdx_mlx5_qp_doorbells(&f->qp) == 2);
	CU_ASSERT(memcmp(f->bf + BF_HALF, f->sq + 7 * 64, 8) == 0);
	CU_ASSERT(be32toh(f->dbrec[MLX5_SND_DBR]) == 8);
	/* an empty burst rings nothing */
	CU_ASSERT(rdx_qp_post_burst(qp(), wr, 0) == 0);
	CU_ASSERT(rdx_mlx5_qp_doorbells(&f->qp) == 2);
	fake_teardown();
}

/*
 * One burst mixing the fast shapes with WRs only the general builder takes
 * (the fast loop hands over mid-burst): every WQE byte-exact, one doorbell
 * for the whole burst, signaling by flag and by interval across the
 * hand-over, and one CQE retiring the run with every wr_id recoverable.
 */
static void
test_fast_general_mix(void)
{
	struct qp_opts o = default_opts;
	struct rdx_sge s8 = { .addr = (uintptr_t)pay, .length = 8, .lkey = 0x11 };
	struct rdx_sge s12 = { .addr = (uintptr_t)pay + 3, .length = 12 };
	struct rdx_sge s40 = { .addr = (uintptr_t)pay + 5, .length = 40 };
	static const uint32_t bb_of[6] = { 0, 1, 2, 3, 4, 6 };
	uint8_t exp[128];
	struct rdx_wr wr[6];
	struct rdx_wc wc[4];
	uint32_t k, n;

	o.sig_interval = 3;
	o.sq_bb = 32;
	fake_setup(&o);
	memset(wr, 0, sizeof(wr));
	for (k = 0; k < 6; k++) {
		wr[k].opcode = RDX_OP_WRITE;
		wr[k].flags = RDX_WR_INLINE;
		wr[k].sge = &s8;
		wr[k].num_sge = 1;
		wr[k].remote_addr = 0x1000 + 64 * k;
		wr[k].rkey = 0x77 + k;
		wr[k].wr_id = 500 + k;
	}
	wr[1].flags |= RDX_WR_SIGNALED;            /* fast, signaled by flag */
	wr[2].opcode = RDX_OP_READ;                /* general: hand-over here */
	wr[2].flags = 0;
	wr[3].opcode = RDX_OP_SEND;                /* fast shape, in the general loop */
	wr[3].sge = &s12;
	wr[4].sge = &s40;                          /* 40-byte inline: general, 2 WQEBBs */
	CU_ASSERT(rdx_qp_post_burst(qp(), wr, 6) == 6);
	CU_ASSERT(rdx_mlx5_qp_doorbells(&f->qp) == 1);
	CU_ASSERT(f->qp.stats.bf_posts == 0);
	CU_ASSERT(f->qp.sq_cur_post == 7);
	CU_ASSERT(be32toh(f->dbrec[MLX5_SND_DBR]) == 7);
	CU_ASSERT(memcmp(f->bf, f->sq + 6 * 64, 8) == 0);
	for (k = 0; k < 6; k++) {
		/* interval 3 after the signaled wr[1]: wr[4] is forced */
		const uint8_t fm = (k == 1 || k == 4) ? MLX5_WQE_CTRL_CQ_UPDATE : 0;
		uint32_t len = 0;

		memset(exp, 0, sizeof(exp));
		if (k == 2) {
			len = exp_ctrl(exp, 2, MLX5_OPCODE_RDMA_READ, 3, fm, 0);
			len += exp_raddr(exp + len, wr[k].remote_addr, wr[k].rkey);
			len += exp_data(exp + len, 8, 0x11, (uintptr_t)pay);
		} else if (k == 3) {
			len = exp_ctrl(exp, 3, MLX5_OPCODE_SEND, 2, fm, 0);
			len += exp_inline(exp + len, pay + 3, 12);
		} else {
			const struct rdx_sge *sg = wr[k].sge;

			len = exp_ctrl(exp, (uint16_t)bb_of[k], MLX5_OPCODE_RDMA_WRITE,
				       (uint8_t)(2 + (4 + sg->length + 15) / 16), fm, 0);
			len += exp_raddr(exp + len, wr[k].remote_addr, wr[k].rkey);
			len += exp_inline(exp + len, (const uint8_t *)(uintptr_t)sg->addr,
					  sg->length);
		}
		CU_ASSERT(sq_cmp(bb_of[k], exp, len) == 0);
	}
	/* The CQE of wr[4] retires wr[0..4]; the ring tail moves past its 2 WQEBBs. */
	cqe_req(QPN, 4, MLX5_OPCODE_RDMA_WRITE, 0);
	n = rdx_cq_poll_burst(cq(), wc, 4);
	CU_ASSERT_FATAL(n == 1);
	CU_ASSERT(wc[0].status == IBV_WC_SUCCESS);
	CU_ASSERT(wc[0].opcode == RDX_WC_WRITE);
	CU_ASSERT(wc[0].retired == 5);
	CU_ASSERT(wc[0].wr_id == 504);
	CU_ASSERT(wc[0].qp_num == QPN);
	CU_ASSERT(wc[0].qp_ctx == &f->qp);
	CU_ASSERT(wc[0].byte_len == 0);
	CU_ASSERT(wc[0].vendor_err == 0);
	for (k = 0; k < 5; k++)
		CU_ASSERT(rdx_mlx5_qp_retired_wr_id(qp(), &wc[0], (uint16_t)k) == 500 + k);
	CU_ASSERT(f->qp.sq_tail == 5);
	CU_ASSERT(f->qp.sq_tail_bb == 6);
	CU_ASSERT(f->qp.sq_unsignaled == 1);
	fake_teardown();
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "BlueFlame single WQE, halves toggle", test_bf_single },
		{ "BlueFlame 2-WQEBB WQE wrapping", test_bf_multi_bb_wrap },
		{ "BlueFlame too big / absent: doorbell", test_bf_too_big },
		{ "BlueFlame rules: DS > 1, prefer_bf, MLX5_SHUT_UP_BF", test_bf_rules },
		{ "BlueFlame register shared by two QPs: one toggle", test_bf_shared_register },
		{ "one doorbell per burst", test_one_doorbell_per_burst },
		{ "fast/general WRs mixed in one burst", test_fast_general_mix },
		{ NULL, NULL },
	};

	return rdx_ut_run("mlx5_qp_ring", cases, suite_init, suite_fini);
}
