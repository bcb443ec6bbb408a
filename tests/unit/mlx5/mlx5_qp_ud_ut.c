/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UD send posting (drivers/mlx5/mlx5_qp.c) on the fake device of
 * mlx5_ut_fake.h: golden bytes (ctrl + datagram + inline or data), refused
 * WRs, a message above the MTU, wrapping and signaling, and the UD
 * receive completion.
 */
#include "mlx5_ut_fake.h"

static struct rdx_mlx5_ah ud_ah;

static void
ud_wr(struct rdx_wr *wr, uint8_t op, const struct rdx_sge *sge, uint8_t nsge, uint8_t flags)
{
	memset(wr, 0, sizeof(*wr));
	wr->opcode = op;
	wr->sge = sge;
	wr->num_sge = nsge;
	wr->flags = flags;
	wr->ah = &ud_ah.base;
	wr->remote_qpn = 0x00abcdef;
	wr->remote_qkey = 0x11223344;
}

/* UD WQEs byte for byte: ctrl + datagram (3 DS) + inline or data. */
static void
test_ud_golden(void)
{
	struct rdx_sge inl = { .addr = (uintptr_t)pay, .length = 8, .lkey = 0 };
	struct rdx_sge sg[3] = {
		{ .addr = 0x1000200030004000ull, .length = 100, .lkey = 0x11 },
		{ .addr = 0x5000, .length = 0, .lkey = 0x22 },     /* skipped */
		{ .addr = 0x7000, .length = 156, .lkey = 0x33 },   /* 256 = the MTU */
	};
	struct rdx_sge inl60 = { .addr = (uintptr_t)pay + 3, .length = 60, .lkey = 0 };
	struct qp_opts o = default_opts;
	uint8_t exp[256];
	struct rdx_wr wr;
	uint32_t n;

	o.ud = true;
	o.sq_bb = 32;
	fake_setup(&o);
	fake_ah(&ud_ah, 5);
	CU_ASSERT(f->qp.base.post_burst == rdx_mlx5_post_burst_ud);
	/* the AH keeps the AV as a template: Q_Key 0, dqp_dct the flag only */
	CU_ASSERT(ud_ah.av.key.qkey.qkey == 0 && ud_ah.av.key.qkey.reserved == 0);
	CU_ASSERT(ud_ah.av.dqp_dct == htobe32(MLX5_EXTENDED_UD_AV));
	CU_ASSERT(ud_ah.av.rlid == htobe16(0x1205) && ud_ah.av.rgid[0] == (0xf0 ^ 5));
	/* ctrl + dgram + 64 B inline (68 -> 80) = 144 B: 3 WQEBBs at most */
	CU_ASSERT(f->qp.sq_wqebb_max == 3);

	/* SEND, 8 bytes inline, signaled: DS 1 + 3 + 1 = 5, two WQEBBs */
	ud_wr(&wr, RDX_OP_SEND, &inl, 1, RDX_WR_INLINE | RDX_WR_SIGNALED);
	wr.wr_id = 7;
	CU_ASSERT(post1(&wr) == 1);
	n = exp_ctrl(exp, 0, MLX5_OPCODE_SEND, 5, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	n += exp_dgram(exp + n, &ud_ah.av, 0xabcdef, 0x11223344);
	n += exp_inline(exp + n, pay, 8);
	CU_ASSERT(n == 80);
	CU_ASSERT(sq_cmp(0, exp, n) == 0);
	CU_ASSERT(f->qp.sq_cur_post == 2);
	/* one small inline WQE: BlueFlame copies it whole (2 chunks) */
	CU_ASSERT(f->qp.stats.bf_posts == 1);
	CU_ASSERT(memcmp(f->bf, exp, n) == 0);
	CU_ASSERT(be32toh(f->dbrec[MLX5_SND_DBR]) == 2);

	/* SEND_IMM with a gather list of exactly the MTU: DS 1 + 3 + 2 = 6 */
	ud_wr(&wr, RDX_OP_SEND_IMM, sg, 3, RDX_WR_SOLICITED);
	wr.imm = htobe32(0xfeedf00d);
	wr.remote_qpn = 0x42;
	wr.remote_qkey = 0x80000001;   /* bit 31: the device uses the QP's Q_Key */
	CU_ASSERT(post1(&wr) == 1);
	n = exp_ctrl(exp, 2, MLX5_OPCODE_SEND_IMM, 6,
		     MLX5_WQE_CTRL_CQ_UPDATE | MLX5_WQE_CTRL_SOLICITED, htobe32(0xfeedf00d));
	n += exp_dgram(exp + n, &ud_ah.av, 0x42, 0x80000001);
	n += exp_data(exp + n, 100, 0x11, sg[0].addr);
	n += exp_data(exp + n, 156, 0x33, sg[2].addr);
	CU_ASSERT(sq_cmp(2, exp, n) == 0);
	CU_ASSERT(f->qp.sq_cur_post == 4);

	/* SEND, 60 bytes inline (64 B segment): DS 1 + 3 + 4 = 8 */
	ud_wr(&wr, RDX_OP_SEND, &inl60, 1, RDX_WR_INLINE);
	CU_ASSERT(post1(&wr) == 1);
	n = exp_ctrl(exp, 4, MLX5_OPCODE_SEND, 8, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	n += exp_dgram(exp + n, &ud_ah.av, 0xabcdef, 0x11223344);
	n += exp_inline(exp + n, pay + 3, 60);
	CU_ASSERT(sq_cmp(4, exp, n) == 0);
	CU_ASSERT(f->qp.sq_cur_post == 6);

	/* NOP: ctrl only */
	ud_wr(&wr, RDX_OP_NOP, NULL, 0, 0);
	CU_ASSERT(post1(&wr) == 1);
	n = exp_ctrl(exp, 6, MLX5_OPCODE_NOP, 1, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	CU_ASSERT(sq_cmp(6, exp, n) == 0);
	CU_ASSERT(f->qp.sq_cur_post == 7);
	fake_teardown();
}

/* No RDMA or atomics on UD, no AH, inline above max_inline: refused at
 * post time (short count), nothing written. */
static void
test_ud_refused(void)
{
	static const uint8_t ops[] = {
		RDX_OP_WRITE, RDX_OP_WRITE_IMM, RDX_OP_READ, RDX_OP_CAS, RDX_OP_FAA, RDX_OP_MAX,
	};
	struct rdx_sge s8 = { .addr = (uintptr_t)pay, .length = 8, .lkey = 1 };
	struct rdx_sge s65 = { .addr = (uintptr_t)pay, .length = 65, .lkey = 1 };
	struct qp_opts o = default_opts;
	struct rdx_wr wr[2];
	unsigned int k;

	o.ud = true;
	fake_setup(&o);
	fake_ah(&ud_ah, 1);
	for (k = 0; k < RTE_DIM(ops); k++) {
		ud_wr(&wr[0], ops[k], &s8, 1, 0);
		CU_ASSERT(post1(&wr[0]) == 0);
	}
	ud_wr(&wr[0], RDX_OP_SEND, &s8, 1, 0);
	wr[0].ah = NULL;
	CU_ASSERT(post1(&wr[0]) == 0);
	ud_wr(&wr[0], RDX_OP_SEND, &s65, 1, RDX_WR_INLINE);   /* max_inline 64 */
	CU_ASSERT(post1(&wr[0]) == 0);
	ud_wr(&wr[0], RDX_OP_SEND, &s8, 5, 0);                /* max_send_sge 4 */
	CU_ASSERT(post1(&wr[0]) == 0);
	CU_ASSERT(f->qp.sq_cur_post == 0 && f->qp.sq_head == 0);
	CU_ASSERT(rdx_mlx5_qp_doorbells(&f->qp) == 0);
	/* a good WR then a bad one: one posted, one doorbell */
	ud_wr(&wr[0], RDX_OP_SEND, &s8, 1, 0);
	ud_wr(&wr[1], RDX_OP_WRITE, &s8, 1, 0);
	CU_ASSERT(rdx_qp_post_burst(qp(), wr, 2) == 1);
	CU_ASSERT(rdx_mlx5_qp_doorbells(&f->qp) == 1);
	CU_ASSERT(f->qp.stats.bad_wr == 10);   /* 9 single posts + this burst */
	fake_teardown();
}

/* A message above the path MTU is never sent nor dropped silently: a
 * signaled NOP takes its place and its completion reports LOC_LEN_ERR. */
static void
test_ud_too_long(void)
{
	struct rdx_sge big[2] = {
		{ .addr = 0x1000, .length = 200, .lkey = 1 },
		{ .addr = 0x2000, .length = UD_MTU - 200 + 1, .lkey = 1 },
	};
	struct rdx_sge s8 = { .addr = (uintptr_t)pay, .length = 8, .lkey = 1 };
	struct qp_opts o = default_opts;
	struct rdx_wr wr[3];
	struct rdx_wc wc[4];
	uint8_t exp[64];

	o.ud = true;
	o.sig_interval = 100;
	fake_setup(&o);
	fake_ah(&ud_ah, 2);
	ud_wr(&wr[0], RDX_OP_SEND, &s8, 1, 0);
	wr[0].wr_id = 10;
	ud_wr(&wr[1], RDX_OP_SEND, big, 2, 0);   /* unsignaled, 257 bytes */
	wr[1].wr_id = 11;
	ud_wr(&wr[2], RDX_OP_SEND, &s8, 1, 0);
	wr[2].wr_id = 12;
	CU_ASSERT(rdx_qp_post_burst(qp(), wr, 3) == 3);
	/* bb 0-1: the first SEND (DS 5); bb 2: the NOP, signaled; bb 3-4 */
	exp_ctrl(exp, 2, MLX5_OPCODE_NOP, 1, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	CU_ASSERT(sq_cmp(2, exp, 16) == 0);
	CU_ASSERT((fm_of(0) & MLX5_WQE_CTRL_CQ_UPDATE) == 0);
	CU_ASSERT((fm_of(3) & MLX5_WQE_CTRL_CQ_UPDATE) == 0);
	CU_ASSERT(f->qp.sq_cur_post == 5);
	/* the device completes the NOP: two WRs retired, the second failed */
	cqe_req(QPN, 2, MLX5_OPCODE_NOP, 0);
	CU_ASSERT_FATAL(rdx_cq_poll_burst(cq(), wc, 4) == 1);
	CU_ASSERT(wc[0].status == IBV_WC_LOC_LEN_ERR);
	CU_ASSERT(wc[0].opcode == RDX_WC_SEND);
	CU_ASSERT(wc[0].wr_id == 11);
	CU_ASSERT(wc[0].retired == 2);
	CU_ASSERT(rdx_mlx5_qp_retired_wr_id(qp(), &wc[0], 0) == 10);
	CU_ASSERT(f->qp.sq_lenerr[1] == 0);
	/* the QP goes on: the last SEND completes normally */
	wr[2].flags = RDX_WR_SIGNALED;
	CU_ASSERT(rdx_qp_post_burst(qp(), &wr[2], 1) == 1);
	cqe_req(QPN, 5, MLX5_OPCODE_SEND, 0);
	CU_ASSERT_FATAL(rdx_cq_poll_burst(cq(), wc, 4) == 1);
	CU_ASSERT(wc[0].status == IBV_WC_SUCCESS);
	CU_ASSERT(wc[0].retired == 2);
	/* a user's NOP on UD completes as a NOP */
	ud_wr(&wr[0], RDX_OP_NOP, NULL, 0, RDX_WR_SIGNALED);
	CU_ASSERT(post1(&wr[0]) == 1);
	cqe_req(QPN, 7, MLX5_OPCODE_NOP, 0);
	CU_ASSERT_FATAL(rdx_cq_poll_burst(cq(), wc, 4) == 1);
	CU_ASSERT(wc[0].status == IBV_WC_SUCCESS && wc[0].opcode == RDX_WC_NOP);
	fake_teardown();
}

/* Segments wrap: the datagram fills the ring's last WQEBB, the payload
 * continues at the start; sig_interval applies as on RC; one doorbell. */
static void
test_ud_wrap_and_signal(void)
{
	struct rdx_sge inl = { .addr = (uintptr_t)pay + 1, .length = 8, .lkey = 0 };
	struct qp_opts o = default_opts;
	struct rdx_wr wr[10];
	uint8_t exp[128];
	unsigned int k;
	uint32_t n;

	o.ud = true;
	o.sq_bb = 32;
	o.sig_interval = 4;
	fake_setup(&o);
	fake_ah(&ud_ah, 3);
	for (k = 0; k < 10; k++)
		ud_wr(&wr[k], RDX_OP_SEND, &inl, 1, RDX_WR_INLINE);
	CU_ASSERT(rdx_qp_post_burst(qp(), wr, 10) == 10);
	CU_ASSERT(rdx_mlx5_qp_doorbells(&f->qp) == 1 && f->qp.stats.bf_posts == 0);
	/* 32 WQEBBs / 3 (the largest UD WQE) = 10 WRs: the 10th takes the
	 * last free slot and is signaled too (no deadlock) */
	CU_ASSERT(f->qp.sq_max_post == 10);
	for (k = 0; k < 10; k++)
		CU_ASSERT(((fm_of(2 * k) & MLX5_WQE_CTRL_CQ_UPDATE) != 0) ==
			  (k == 3 || k == 7 || k == 9));
	complete_all();
	fake_teardown();
	o.sig_interval = 1;
	fake_setup(&o);
	advance_to(31);
	ud_wr(&wr[0], RDX_OP_SEND, &inl, 1, RDX_WR_INLINE | RDX_WR_SIGNALED);
	CU_ASSERT(post1(&wr[0]) == 1);
	n = exp_ctrl(exp, 31, MLX5_OPCODE_SEND, 5, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	n += exp_dgram(exp + n, &ud_ah.av, 0xabcdef, 0x11223344);
	n += exp_inline(exp + n, pay + 1, 8);
	CU_ASSERT(sq_cmp(31, exp, n) == 0);
	CU_ASSERT(f->qp.sq_cur_post == 33);
	complete_all();
	fake_teardown();
}

/*
 * Runs of 8-byte inline SENDs to one destination (the UD vector run,
 * mlx5_qp_vec.h; two WQEs per turn, an odd one first): one WR
 * differs, at every position of bursts of 13 (one WQE before the groups)
 * and 16, in one of its destination fields, its flags, its length or its
 * opcode; every WQE must come out as the reference builds it (or, for a
 * WR without an AH, the burst stop just before it).
 */
enum ud_odd {
	ODD_AH, ODD_QPN, ODD_QPN_HIGH, ODD_QKEY, ODD_FENCE, ODD_SIGNALED, ODD_LEN7,
	ODD_IMM, ODD_NO_AH, ODD_MAX,
};

static struct rdx_mlx5_ah ud_ah2;

static void
check_ud_run_odd(uint16_t n, uint16_t p, enum ud_odd v)
{
	struct rdx_sge sge[16];
	struct rdx_wr wr[16];
	struct qp_opts o = default_opts;
	uint8_t exp[128];
	uint16_t k, want_n = v == ODD_NO_AH ? p : n;
	uint32_t e;

	o.ud = true;
	o.sq_bb = 64;            /* 21 WRs of up to 3 WQEBBs: no forced signal */
	o.sig_interval = 32;
	fake_setup(&o);
	fake_ah(&ud_ah, 4);
	for (k = 0; k < n; k++) {
		sge[k] = (struct rdx_sge){ .addr = (uintptr_t)pay + k, .length = 8, .lkey = 0 };
		ud_wr(&wr[k], RDX_OP_SEND, &sge[k], 1, RDX_WR_INLINE);
		wr[k].wr_id = 0x100u + k;
	}
	switch (v) {
	case ODD_AH: wr[p].ah = &ud_ah2.base; break;
	case ODD_QPN: wr[p].remote_qpn = 0x00abcdee; break;
	case ODD_QPN_HIGH: wr[p].remote_qpn = 0x7fabcdef; break;  /* same WQE */
	case ODD_QKEY: wr[p].remote_qkey = 0x11223345; break;
	case ODD_FENCE: wr[p].flags |= RDX_WR_FENCE; break;
	case ODD_SIGNALED: wr[p].flags |= RDX_WR_SIGNALED; break;
	case ODD_LEN7: sge[p].length = 7; break;
	case ODD_IMM: wr[p].opcode = RDX_OP_SEND_IMM; wr[p].imm = htobe32(0xabad1dea); break;
	case ODD_NO_AH: wr[p].ah = NULL; break;
	default: break;
	}
	CU_ASSERT_EQUAL(rdx_qp_post_burst(qp(), wr, n), want_n);
	CU_ASSERT_EQUAL(f->qp.sq_cur_post, 2u * want_n);
	CU_ASSERT(rdx_mlx5_qp_doorbells(&f->qp) == (want_n != 0));
	for (k = 0; k < want_n; k++) {
		const struct rdx_mlx5_ah *ah = (const struct rdx_mlx5_ah *)(const void *)wr[k].ah;
		uint8_t fm = 0;

		if (wr[k].flags & RDX_WR_SIGNALED)
			fm |= MLX5_WQE_CTRL_CQ_UPDATE;
		if (wr[k].flags & RDX_WR_FENCE)
			fm |= MLX5_WQE_CTRL_FENCE;
		e = exp_ctrl(exp, (uint16_t)(2 * k),
			     wr[k].opcode == RDX_OP_SEND ? MLX5_OPCODE_SEND : MLX5_OPCODE_SEND_IMM,
			     5, fm, wr[k].opcode == RDX_OP_SEND_IMM ? wr[k].imm : 0);
		e += exp_dgram(exp + e, &ah->av, wr[k].remote_qpn & 0xffffff, wr[k].remote_qkey);
		e += exp_inline(exp + e, pay + k, sge[k].length);
		CU_ASSERT_EQUAL(e, 80);
		if (sq_cmp(2u * k, exp, e) != 0) {
			fprintf(stderr, "burst of %u, WR %u odd (%d): WQE %u\n", n, p, v, k);
			CU_FAIL("UD run WQE bytes");
		}
		CU_ASSERT_EQUAL(f->qp.sq_wrid[k], 0x100u + k);
	}
	/* nothing written past the last WQE posted */
	for (e = 2u * want_n * 64; e < 2u * n * 64; e++)
		if (f->sq[e] != 0) {
			CU_FAIL("UD run wrote past the WRs it posted");
			break;
		}
	fake_teardown();
}

static void
test_ud_run_odd_wr(void)
{
	static const uint16_t ns[] = { 13, 16 };
	unsigned int a, p, v;

	fake_ah(&ud_ah2, 9);
	for (a = 0; a < RTE_DIM(ns); a++)
		for (p = 0; p < ns[a]; p++)
			for (v = 0; v < ODD_MAX; v++)
				check_ud_run_odd(ns[a], (uint16_t)p, (enum ud_odd)v);
}

/* A UD receive completion names the sender: source QPN and GRH flag from
 * flags_rqpn, SLID; byte_len counts the 40-byte GRH area. */
static void
test_ud_recv_cqe(void)
{
	struct rdx_sge sg = { .addr = 0x9000, .length = 40 + 256, .lkey = 5 };
	struct rdx_recv_wr rwr = { .wr_id = 77, .sge = &sg, .num_sge = 1 };
	struct qp_opts o = default_opts;
	struct mlx5_cqe64 *c;
	struct rdx_wc wc[2];
	unsigned int k;

	o.ud = true;
	fake_setup(&o);
	for (k = 0; k < 2; k++) {
		CU_ASSERT(rdx_qp_post_recv_burst(qp(), &rwr, 1) == 1);
		c = cqe_slot(f->cq_pi);
		memset(c, 0, 63);
		c->sop_drop_qpn = htobe32(QPN);
		c->byte_cnt = htobe32(40 + 100);
		c->imm_inval_pkey = htobe32(0xffff);   /* P_Key index, not an immediate */
		/* GRH type in bits 29..28 (RoCE: always), SL 3, source QPN */
		c->flags_rqpn = htobe32((k == 0 ? 2u << 28 : 0) | 3u << 24 | 0x00c0ffee);
		c->slid = htobe16(k == 0 ? 0 : 0x1234);
		cqe_publish(c, MLX5_CQE_RESP_SEND);
		CU_ASSERT_FATAL(rdx_cq_poll_burst(cq(), wc, 2) == 1);
		CU_ASSERT(wc[0].status == IBV_WC_SUCCESS);
		CU_ASSERT(wc[0].opcode == RDX_WC_RECV);
		CU_ASSERT(wc[0].wr_id == 77);
		CU_ASSERT(wc[0].byte_len == 140);
		CU_ASSERT(wc[0].src_qp == 0xc0ffee);
		CU_ASSERT(wc[0].slid == (k == 0 ? 0 : 0x1234));
		CU_ASSERT(wc[0].wc_flags == (k == 0 ? RDX_WC_GRH : 0));
		CU_ASSERT(wc[0].imm == 0);
	}
	fake_teardown();
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "UD golden bytes: ctrl + datagram + inline/data", test_ud_golden },
		{ "UD refuses RDMA, atomics, no AH, oversized inline", test_ud_refused },
		{ "UD message above the MTU: LOC_LEN_ERR completion", test_ud_too_long },
		{ "UD wrap and signaling", test_ud_wrap_and_signal },
		{ "UD runs: one odd WR at every position", test_ud_run_odd_wr },
		{ "UD receive completion: src_qp, slid, GRH", test_ud_recv_cqe },
		{ NULL, NULL },
	};

	return rdx_ut_run("mlx5_qp_ud", cases, suite_init, suite_fini);
}
