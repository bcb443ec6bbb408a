/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Golden-bytes tests of RC send posting (drivers/mlx5/mlx5_qp.c,
 * encodings in mlx5_wqe.h) on the fake device of mlx5_ut_fake.h: every
 * opcode, segments wrapping at the ring end, inline lengths, signaling,
 * a full SQ, invalid WRs. UD sends: mlx5_qp_ud_ut.c; receives: mlx5_rq_ut.c.
 */
#include "mlx5_ut_fake.h"

/* Every opcode, byte for byte, one WQE each at successive positions. */
static void
test_golden_opcodes(void)
{
	struct rdx_sge sg[3] = {
		{ .addr = 0x1000200030004000ull, .length = 100, .lkey = 0x11 },
		{ .addr = 0x5000, .length = 0, .lkey = 0x22 },     /* skipped */
		{ .addr = 0x7000, .length = 300, .lkey = 0x33 },
	};
	struct rdx_sge inl = { .addr = (uintptr_t)pay, .length = 8, .lkey = 0 };
	struct rdx_sge at = { .addr = 0xabc0, .length = 8, .lkey = 0x44 };
	uint8_t exp[256];
	struct qp_opts opts = default_opts;
	uint32_t o, bb = 0;
	struct rdx_wr wr;

	opts.sq_bb = 32;
	fake_setup(&opts);

	/* NOP: ctrl only, DS 1 */
	memset(&wr, 0, sizeof(wr));
	wr.opcode = RDX_OP_NOP;
	wr.wr_id = 1;
	CU_ASSERT(post1(&wr) == 1);
	o = exp_ctrl(exp, 0, MLX5_OPCODE_NOP, 1, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	CU_ASSERT(sq_cmp(bb, exp, o) == 0);
	bb += 1;

	/* SEND with a gather list (zero-length SGE skipped): DS 3 */
	memset(&wr, 0, sizeof(wr));
	wr.opcode = RDX_OP_SEND;
	wr.sge = sg;
	wr.num_sge = 3;
	wr.flags = RDX_WR_SOLICITED;
	CU_ASSERT(post1(&wr) == 1);
	o = exp_ctrl(exp, 1, MLX5_OPCODE_SEND, 3,
		     MLX5_WQE_CTRL_CQ_UPDATE | MLX5_WQE_CTRL_SOLICITED, 0);
	o += exp_data(exp + o, 100, 0x11, sg[0].addr);
	o += exp_data(exp + o, 300, 0x33, sg[2].addr);
	CU_ASSERT(sq_cmp(bb, exp, o) == 0);
	bb += 1;

	/* SEND_IMM inline: DS 1 + 1, imm as-is */
	memset(&wr, 0, sizeof(wr));
	wr.opcode = RDX_OP_SEND_IMM;
	wr.sge = &inl;
	wr.num_sge = 1;
	wr.flags = RDX_WR_INLINE | RDX_WR_SIGNALED;
	wr.imm = htobe32(0xdeadbeef);
	CU_ASSERT(post1(&wr) == 1);
	o = exp_ctrl(exp, 2, MLX5_OPCODE_SEND_IMM, 2, MLX5_WQE_CTRL_CQ_UPDATE,
		     htobe32(0xdeadbeef));
	o += exp_inline(exp + o, pay, 8);
	CU_ASSERT(sq_cmp(bb, exp, o) == 0);
	bb += 1;

	/* WRITE inline 8 B: ctrl + raddr + inline = DS 3 */
	memset(&wr, 0, sizeof(wr));
	wr.opcode = RDX_OP_WRITE;
	wr.sge = &inl;
	wr.num_sge = 1;
	wr.flags = RDX_WR_INLINE | RDX_WR_FENCE;
	wr.remote_addr = 0x1122334455667788ull;
	wr.rkey = 0xcafe;
	CU_ASSERT(post1(&wr) == 1);
	o = exp_ctrl(exp, 3, MLX5_OPCODE_RDMA_WRITE, 3,
		     MLX5_WQE_CTRL_CQ_UPDATE | MLX5_WQE_CTRL_FENCE, 0);
	o += exp_raddr(exp + o, 0x1122334455667788ull, 0xcafe);
	o += exp_inline(exp + o, pay, 8);
	CU_ASSERT(sq_cmp(bb, exp, o) == 0);
	bb += 1;

	/* WRITE_IMM gather: ctrl + raddr + 2 data = DS 4 */
	memset(&wr, 0, sizeof(wr));
	wr.opcode = RDX_OP_WRITE_IMM;
	wr.sge = sg;
	wr.num_sge = 3;
	wr.remote_addr = 0x99;
	wr.rkey = 0x1234;
	wr.imm = 0x01020304;
	CU_ASSERT(post1(&wr) == 1);
	o = exp_ctrl(exp, 4, MLX5_OPCODE_RDMA_WRITE_IMM, 4, MLX5_WQE_CTRL_CQ_UPDATE,
		     0x01020304);
	o += exp_raddr(exp + o, 0x99, 0x1234);
	o += exp_data(exp + o, 100, 0x11, sg[0].addr);
	o += exp_data(exp + o, 300, 0x33, sg[2].addr);
	CU_ASSERT(sq_cmp(bb, exp, o) == 0);
	bb += 1;

	/* READ with 3 SGEs (one empty): DS 4; INLINE is ignored for READ */
	memset(&wr, 0, sizeof(wr));
	wr.opcode = RDX_OP_READ;
	wr.sge = sg;
	wr.num_sge = 3;
	wr.flags = RDX_WR_INLINE;
	wr.remote_addr = 0xfeed0000;
	wr.rkey = 0x77;
	CU_ASSERT(post1(&wr) == 1);
	o = exp_ctrl(exp, 5, MLX5_OPCODE_RDMA_READ, 4, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	o += exp_raddr(exp + o, 0xfeed0000, 0x77);
	o += exp_data(exp + o, 100, 0x11, sg[0].addr);
	o += exp_data(exp + o, 300, 0x33, sg[2].addr);
	CU_ASSERT(sq_cmp(bb, exp, o) == 0);
	bb += 1;

	/* ATOMIC_CS: ctrl + raddr + atomic(swap, compare BE) + data(8): DS 4 */
	memset(&wr, 0, sizeof(wr));
	wr.opcode = RDX_OP_CAS;
	wr.sge = &at;
	wr.num_sge = 1;
	wr.remote_addr = 0x8000;
	wr.rkey = 0x55;
	wr.compare_add = 0x0102030405060708ull;
	wr.swap = 0x1112131415161718ull;
	CU_ASSERT(post1(&wr) == 1);
	{
		struct mlx5_wqe_atomic_seg a;

		o = exp_ctrl(exp, 6, MLX5_OPCODE_ATOMIC_CS, 4, MLX5_WQE_CTRL_CQ_UPDATE, 0);
		o += exp_raddr(exp + o, 0x8000, 0x55);
		a.swap_add = htobe64(0x1112131415161718ull);
		a.compare = htobe64(0x0102030405060708ull);
		memcpy(exp + o, &a, 16);
		o += 16;
		o += exp_data(exp + o, 8, 0x44, 0xabc0);
		CU_ASSERT(o == 64);
		CU_ASSERT(sq_cmp(bb, exp, o) == 0);
	}
	bb += 1;

	/* ATOMIC_FA: add in swap_add, compare 0 */
	memset(&wr, 0, sizeof(wr));
	wr.opcode = RDX_OP_FAA;
	wr.sge = &at;
	wr.num_sge = 1;
	wr.remote_addr = 0x8008;
	wr.rkey = 0x56;
	wr.compare_add = 5;
	CU_ASSERT(post1(&wr) == 1);
	{
		struct mlx5_wqe_atomic_seg a;

		o = exp_ctrl(exp, 7, MLX5_OPCODE_ATOMIC_FA, 4, MLX5_WQE_CTRL_CQ_UPDATE, 0);
		o += exp_raddr(exp + o, 0x8008, 0x56);
		a.swap_add = htobe64(5);
		a.compare = 0;
		memcpy(exp + o, &a, 16);
		o += 16;
		o += exp_data(exp + o, 8, 0x44, 0xabc0);
		CU_ASSERT(sq_cmp(bb, exp, o) == 0);
	}
	bb += 1;

	/* WRITE with no SGE: ctrl + raddr, DS 2 */
	memset(&wr, 0, sizeof(wr));
	wr.opcode = RDX_OP_WRITE;
	wr.remote_addr = 0x10;
	wr.rkey = 0x20;
	CU_ASSERT(post1(&wr) == 1);
	o = exp_ctrl(exp, 8, MLX5_OPCODE_RDMA_WRITE, 2, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	o += exp_raddr(exp + o, 0x10, 0x20);
	CU_ASSERT(sq_cmp(bb, exp, o) == 0);
	bb += 1;

	/* Inline SEND gathering 2 SGEs into 60 bytes: DS 1 + 4 = 5, 2 WQEBBs */
	{
		struct rdx_sge two[2] = {
			{ .addr = (uintptr_t)pay, .length = 20 },
			{ .addr = (uintptr_t)(pay + 100), .length = 40 },
		};
		uint8_t cat[60];

		memcpy(cat, pay, 20);
		memcpy(cat + 20, pay + 100, 40);
		memset(&wr, 0, sizeof(wr));
		wr.opcode = RDX_OP_SEND;
		wr.sge = two;
		wr.num_sge = 2;
		wr.flags = RDX_WR_INLINE;
		CU_ASSERT(post1(&wr) == 1);
		o = exp_ctrl(exp, 9, MLX5_OPCODE_SEND, 5, MLX5_WQE_CTRL_CQ_UPDATE, 0);
		o += exp_inline(exp + o, cat, 60);
		CU_ASSERT(o == 80);
		CU_ASSERT(sq_cmp(bb, exp, o) == 0);
		bb += 2;
	}
	CU_ASSERT(f->qp.sq_cur_post == bb);
	CU_ASSERT(be32toh(f->dbrec[MLX5_SND_DBR]) == bb);
	CU_ASSERT(rdx_mlx5_qp_doorbells(&f->qp) == 10);
	CU_ASSERT(f->qp.stats.wqes == 10);
	fake_teardown();
}

static void
test_wrap_inline(void)
{
	struct qp_opts o = default_opts;
	struct rdx_sge inl = { .addr = (uintptr_t)(pay + 5), .length = 100 };
	struct rdx_wr wr;
	uint8_t exp[256];
	uint32_t n;

	o.sq_bb = 8;
	o.max_inline = 128;
	fake_setup(&o);
	advance_to(7);
	memset(f->sq, 0, sizeof(f->sq));
	memset(&wr, 0, sizeof(wr));
	wr.opcode = RDX_OP_WRITE;
	wr.sge = &inl;
	wr.num_sge = 1;
	wr.flags = RDX_WR_INLINE;
	wr.remote_addr = 0x4242;
	wr.rkey = 9;
	CU_ASSERT(post1(&wr) == 1);
	/* DS = 2 + align16(104)/16 = 9: three WQEBBs 7, 0, 1; the bytes split */
	n = exp_ctrl(exp, 7, MLX5_OPCODE_RDMA_WRITE, 9, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	n += exp_raddr(exp + n, 0x4242, 9);
	n += exp_inline(exp + n, pay + 5, 100);
	CU_ASSERT(n == 144);
	CU_ASSERT(sq_cmp(7, exp, n) == 0);
	CU_ASSERT(f->sq[0] == pay[5 + 28]);  /* first byte past the ring end */
	CU_ASSERT(f->qp.sq_cur_post == 10);
	CU_ASSERT(be32toh(f->dbrec[MLX5_SND_DBR]) == 10);
	/* idx keeps counting past the ring size (not masked) */
	complete_all();
	memset(&wr, 0, sizeof(wr));
	CU_ASSERT(post1(&wr) == 1);
	n = exp_ctrl(exp, 10, MLX5_OPCODE_NOP, 1, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	CU_ASSERT(sq_cmp(10 & 7, exp, n) == 0);
	fake_teardown();
}

/* Inline bytes split exactly inside one SGE and across SGE boundaries. */
static void
test_wrap_inline_sges(void)
{
	struct qp_opts o = default_opts;
	struct rdx_sge s3[3] = {
		{ .addr = (uintptr_t)pay, .length = 10 },
		{ .addr = (uintptr_t)(pay + 50), .length = 18 },  /* ends at the ring end */
		{ .addr = (uintptr_t)(pay + 200), .length = 3 },
	};
	uint8_t cat[31], exp[128];
	struct rdx_wr wr;
	uint32_t n;

	o.sq_bb = 8;
	o.max_inline = 60;
	fake_setup(&o);
	advance_to(7);
	memcpy(cat, pay, 10);
	memcpy(cat + 10, pay + 50, 18);
	memcpy(cat + 28, pay + 200, 3);
	memset(&wr, 0, sizeof(wr));
	wr.opcode = RDX_OP_WRITE_IMM;
	wr.sge = s3;
	wr.num_sge = 3;
	wr.flags = RDX_WR_INLINE;
	wr.imm = 77;
	CU_ASSERT(post1(&wr) == 1);
	n = exp_ctrl(exp, 7, MLX5_OPCODE_RDMA_WRITE_IMM, 5, MLX5_WQE_CTRL_CQ_UPDATE, 77);
	n += exp_raddr(exp + n, 0, 0);
	n += exp_inline(exp + n, cat, 31);
	CU_ASSERT(n == 80);
	/* compare header and payload only (padding is don't-care) */
	CU_ASSERT(sq_cmp(7, exp, 32 + 4 + 31) == 0);
	fake_teardown();
}

static void
test_wrap_data_segs(void)
{
	struct qp_opts o = default_opts;
	struct rdx_sge sg[6];
	struct rdx_wr wr;
	uint8_t exp[256];
	uint32_t n, k;

	o.sq_bb = 8;
	o.max_send_sge = 6;
	fake_setup(&o);
	advance_to(7);
	for (k = 0; k < 6; k++) {
		sg[k].addr = 0x10000ull * (k + 1);
		sg[k].length = 64 * (k + 1);
		sg[k].lkey = 0x100 + k;
	}
	memset(&wr, 0, sizeof(wr));
	wr.opcode = RDX_OP_SEND;
	wr.sge = sg;
	wr.num_sge = 6;
	wr.wr_id = 99;
	CU_ASSERT(post1(&wr) == 1);
	n = exp_ctrl(exp, 7, MLX5_OPCODE_SEND, 7, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	for (k = 0; k < 6; k++)
		n += exp_data(exp + n, sg[k].length, sg[k].lkey, sg[k].addr);
	CU_ASSERT(sq_cmp(7, exp, n) == 0);
	/* the 4th data segment is the first thing at sq.buf */
	CU_ASSERT(memcmp(f->sq, exp + 64, 48) == 0);
	CU_ASSERT(f->qp.sq_cur_post == 9);
	/* READ scatter list wrapping as well */
	complete_all();
	advance_to(15);
	memset(&wr, 0, sizeof(wr));
	wr.opcode = RDX_OP_READ;
	wr.sge = sg;
	wr.num_sge = 5;
	wr.remote_addr = 0x777;
	wr.rkey = 3;
	CU_ASSERT(post1(&wr) == 1);
	n = exp_ctrl(exp, 15, MLX5_OPCODE_RDMA_READ, 7, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	n += exp_raddr(exp + n, 0x777, 3);
	for (k = 0; k < 5; k++)
		n += exp_data(exp + n, sg[k].length, sg[k].lkey, sg[k].addr);
	CU_ASSERT(sq_cmp(15 & 7, exp, n) == 0);
	fake_teardown();
}

/* Every inline length 0..60 for WRITE and SEND (fast path 8..16 and the
 * general path on both sides of it), against an independent construction. */
static void
test_inline_lengths(void)
{
	struct qp_opts o = default_opts;
	struct rdx_sge inl;
	struct rdx_wr wr;
	uint8_t exp[128];
	uint32_t len, n, bb = 0;
	int op;

	o.sq_bb = 64;
	o.max_inline = 60;
	o.max_send_sge = 1;
	o.bf_size = 0;
	for (op = 0; op < 2; op++) {
		fake_setup(&o);
		bb = 0;
		for (len = 0; len <= 60; len++) {
			memset(&wr, 0, sizeof(wr));
			inl.addr = (uintptr_t)(pay + len);
			inl.length = len;
			inl.lkey = 0;
			wr.opcode = op == 0 ? RDX_OP_WRITE : RDX_OP_SEND;
			wr.flags = RDX_WR_INLINE;
			wr.sge = &inl;
			wr.num_sge = 1;
			wr.remote_addr = 0xabcdef00ull + len;
			wr.rkey = 0x1000 + len;
			wr.wr_id = len;
			memset(f->sq, 0x5c, sizeof(f->sq));
			CU_ASSERT_FATAL(post1(&wr) == 1);
			/* set_data_inl_seg: 0 bytes -> no inline segment at all */
			if (op == 0) {
				uint8_t ds = (uint8_t)(2 + (len == 0 ? 0 : (4 + len + 15) / 16));

				n = exp_ctrl(exp, (uint16_t)bb, MLX5_OPCODE_RDMA_WRITE, ds,
					     MLX5_WQE_CTRL_CQ_UPDATE, 0);
				n += exp_raddr(exp + n, 0xabcdef00ull + len, 0x1000 + len);
			} else {
				uint8_t ds = (uint8_t)(1 + (len == 0 ? 0 : (4 + len + 15) / 16));

				n = exp_ctrl(exp, (uint16_t)bb, MLX5_OPCODE_SEND, ds,
					     MLX5_WQE_CTRL_CQ_UPDATE, 0);
			}
			if (len != 0) {
				exp_inline(exp + n, pay + len, len);
				n += 4 + len;
			}
			/* header + payload; the padding after it is don't-care */
			if (sq_cmp(bb & 63, exp, n) != 0)
				fprintf(stderr, "inline %s of %u bytes differs\n",
					op == 0 ? "WRITE" : "SEND", len);
			CU_ASSERT(sq_cmp(bb & 63, exp, n) == 0);
			/* a 0-byte inline WRITE is one WQEBB; nothing after ctrl (+raddr) */
			if (len == 0)
				CU_ASSERT(f->qp.sq_cur_post == bb + 1);
			bb = f->qp.sq_cur_post;
			complete_all();
		}
		fake_teardown();
	}
}

static void
test_signal_interval(void)
{
	struct qp_opts o = default_opts;
	struct rdx_wr wr[10];
	unsigned int k;

	o.sig_interval = 4;
	o.sq_bb = 32;
	o.max_inline = 0;
	o.max_send_sge = 1;
	fake_setup(&o);
	memset(wr, 0, sizeof(wr));
	CU_ASSERT(rdx_qp_post_burst(qp(), wr, 10) == 10);
	for (k = 0; k < 10; k++)
		CU_ASSERT((fm_of(k) & MLX5_WQE_CTRL_CQ_UPDATE) ==
			  ((k == 3 || k == 7) ? MLX5_WQE_CTRL_CQ_UPDATE : 0));
	/* the run continues across bursts: 8, 9 done, 10 unsig, 11 signaled */
	CU_ASSERT(rdx_qp_post_burst(qp(), wr, 2) == 2);
	CU_ASSERT((fm_of(10) & MLX5_WQE_CTRL_CQ_UPDATE) == 0);
	CU_ASSERT((fm_of(11) & MLX5_WQE_CTRL_CQ_UPDATE) != 0);
	/* RDX_WR_SIGNALED restarts the run */
	wr[0].flags = RDX_WR_SIGNALED;
	CU_ASSERT(rdx_qp_post_burst(qp(), wr, 5) == 5);
	CU_ASSERT((fm_of(12) & MLX5_WQE_CTRL_CQ_UPDATE) != 0);
	CU_ASSERT((fm_of(15) & MLX5_WQE_CTRL_CQ_UPDATE) == 0);
	CU_ASSERT((fm_of(16) & MLX5_WQE_CTRL_CQ_UPDATE) != 0);
	fake_teardown();
}

static void
test_signal_burst_end(void)
{
	struct qp_opts o = default_opts;
	struct rdx_wr wr[6];
	unsigned int k;

	o.sig_interval = 4;
	o.sig_burst_end = true;
	o.sq_bb = 32;
	fake_setup(&o);
	memset(wr, 0, sizeof(wr));
	CU_ASSERT(rdx_qp_post_burst(qp(), wr, 6) == 6);
	for (k = 0; k < 6; k++)
		CU_ASSERT(((fm_of(k) & MLX5_WQE_CTRL_CQ_UPDATE) != 0) == (k == 3 || k == 5));
	/* the run restarted at the burst end */
	CU_ASSERT(rdx_qp_post_burst(qp(), wr, 4) == 4);
	for (k = 6; k < 10; k++)
		CU_ASSERT(((fm_of(k) & MLX5_WQE_CTRL_CQ_UPDATE) != 0) == (k == 9));
	fake_teardown();
}

/*
 * The same rule on bursts of one (post_one: the inline WRITE and SEND of
 * the vector path, any other WR post_send): 8-byte inline WRITE and SEND,
 * a 12-byte WRITE, a 26-byte SEND. Posted one at a time into an SQ of 8 with a huge interval,
 * only the eighth (the last free slot) asks for a CQE; a ninth does not fit.
 */
static void
test_signal_sq_nearly_full_single(void)
{
	static const struct {
		uint8_t op;
		uint32_t len;
	} shapes[] = {
		{ RDX_OP_WRITE, 8 }, { RDX_OP_SEND, 8 }, { RDX_OP_WRITE, 12 }, { RDX_OP_SEND, 26 },
	};
	struct qp_opts o = default_opts;
	struct rdx_sge sge;
	struct rdx_wc wc[4];
	struct rdx_wr wr;
	unsigned int s, k;

	init_pay();
	for (s = 0; s < RTE_DIM(shapes); s++) {
		o.sig_interval = 1000;
		o.sq_bb = 8;
		o.max_inline = 28; /* one WQEBB per WQE */
		o.max_send_sge = 1;
		fake_setup(&o);
		CU_ASSERT_FATAL(f->qp.sq_max_post == 8);
		memset(&wr, 0, sizeof(wr));
		sge.addr = (uintptr_t)pay;
		sge.length = shapes[s].len;
		sge.lkey = 1;
		wr.opcode = shapes[s].op;
		wr.flags = RDX_WR_INLINE;
		wr.sge = &sge;
		wr.num_sge = 1;
		wr.remote_addr = 0x1000;
		wr.rkey = 7;
		for (k = 0; k < 8; k++) {
			wr.wr_id = 2000 + k;
			CU_ASSERT_FATAL(post1(&wr) == 1);
		}
		for (k = 0; k < 8; k++)
			CU_ASSERT(((fm_of(k) & MLX5_WQE_CTRL_CQ_UPDATE) != 0) == (k == 7));
		CU_ASSERT(post1(&wr) == 0);
		/* its completion frees the whole ring */
		cqe_req(QPN, 7, shapes[s].op == RDX_OP_SEND ? MLX5_OPCODE_SEND :
			MLX5_OPCODE_RDMA_WRITE, 0);
		CU_ASSERT(rdx_cq_poll_burst(cq(), wc, 4) == 1);
		CU_ASSERT(wc[0].status == IBV_WC_SUCCESS && wc[0].retired == 8);
		CU_ASSERT(wc[0].wr_id == 2007);
		CU_ASSERT(f->qp.sq_tail == f->qp.sq_head);
		fake_teardown();
	}
}

/* With a huge interval the WQE that fills the SQ is signaled (no deadlock). */
static void
test_signal_sq_nearly_full(void)
{
	struct qp_opts o = default_opts;
	struct rdx_wc wc[4];
	struct rdx_wr wr[12];
	unsigned int k;

	o.sig_interval = 1000;
	o.sq_bb = 8;
	o.max_inline = 0;
	o.max_send_sge = 1;
	fake_setup(&o);
	CU_ASSERT(f->qp.sq_max_post == 8);
	memset(wr, 0, sizeof(wr));
	for (k = 0; k < 12; k++)
		wr[k].wr_id = 1000 + k;
	CU_ASSERT(rdx_qp_post_burst(qp(), wr, 5) == 5);
	for (k = 0; k < 5; k++)
		CU_ASSERT((fm_of(k) & MLX5_WQE_CTRL_CQ_UPDATE) == 0);
	CU_ASSERT(rdx_qp_post_burst(qp(), wr + 5, 7) == 3);
	CU_ASSERT((fm_of(6) & MLX5_WQE_CTRL_CQ_UPDATE) == 0);
	CU_ASSERT((fm_of(7) & MLX5_WQE_CTRL_CQ_UPDATE) != 0);
	CU_ASSERT(f->qp.stats.sq_full == 1);
	/* its completion frees the whole ring */
	cqe_req(QPN, 7, MLX5_OPCODE_NOP, 0);
	CU_ASSERT(rdx_cq_poll_burst(cq(), wc, 4) == 1);
	CU_ASSERT(wc[0].retired == 8);
	CU_ASSERT(wc[0].wr_id == 1007);
	CU_ASSERT(rdx_mlx5_qp_retired_wr_id(qp(), &wc[0], 0) == 1000);
	CU_ASSERT(rdx_mlx5_qp_retired_wr_id(qp(), &wc[0], 7) == 1007);
	CU_ASSERT(rdx_qp_post_burst(qp(), wr, 12) == 8);
	fake_teardown();
}

static void
test_sq_full_no_overwrite(void)
{
	struct qp_opts o = default_opts;
	struct rdx_sge inl = { .addr = (uintptr_t)pay, .length = 8 };
	struct rdx_wr wr[10];
	uint8_t snap[sizeof(f->sq)];
	unsigned int k;

	o.sq_bb = 8;
	o.max_inline = 16;
	o.max_send_sge = 1;
	fake_setup(&o);
	memset(wr, 0, sizeof(wr));
	for (k = 0; k < 10; k++) {
		wr[k].opcode = RDX_OP_WRITE;
		wr[k].sge = &inl;
		wr[k].num_sge = 1;
		wr[k].flags = RDX_WR_INLINE;
	}
	CU_ASSERT(rdx_qp_post_burst(qp(), wr, 10) == 8);
	CU_ASSERT(f->qp.stats.sq_full == 1);
	CU_ASSERT(be32toh(f->dbrec[MLX5_SND_DBR]) == 8);
	memcpy(snap, f->sq, sizeof(snap));
	CU_ASSERT(rdx_qp_post_burst(qp(), wr, 1) == 0);
	CU_ASSERT(memcmp(snap, f->sq, sizeof(snap)) == 0);
	CU_ASSERT(rdx_mlx5_qp_doorbells(&f->qp) == 1);
	CU_ASSERT(f->qp.stats.sq_full == 2);
	fake_teardown();
}

/* A burst of none posts nothing and rings nothing, on an empty QP and
 * after a burst the vector runs took whole. */
static void
test_empty_burst(void)
{
	struct qp_opts o = default_opts;
	struct rdx_sge inl = { .addr = (uintptr_t)pay, .length = 8 };
	struct rdx_wr wr[4];
	unsigned int k;

	o.sq_bb = 16;
	o.max_inline = 16;
	o.max_send_sge = 1;
	fake_setup(&o);
	memset(wr, 0, sizeof(wr));
	for (k = 0; k < 4; k++) {
		wr[k].opcode = RDX_OP_WRITE;
		wr[k].sge = &inl;
		wr[k].num_sge = 1;
		wr[k].flags = RDX_WR_INLINE;
	}
	CU_ASSERT(rdx_qp_post_burst(qp(), wr, 0) == 0);
	CU_ASSERT(rdx_mlx5_qp_doorbells(&f->qp) == 0);
	CU_ASSERT(f->qp.sq_head == 0);
	CU_ASSERT(rdx_qp_post_burst(qp(), wr, 4) == 4);
	CU_ASSERT(rdx_mlx5_qp_doorbells(&f->qp) == 1);
	CU_ASSERT(rdx_qp_post_burst(qp(), wr, 0) == 0);
	CU_ASSERT(rdx_mlx5_qp_doorbells(&f->qp) == 1);
	CU_ASSERT(f->qp.sq_head == 4);
	CU_ASSERT(f->qp.stats.wqes == 4);
	fake_teardown();
}

static void
test_invalid_wr_stops_burst(void)
{
	struct rdx_sge big = { .addr = (uintptr_t)pay, .length = 65 };
	struct rdx_sge four = { .addr = 0x100, .length = 4 };
	struct rdx_sge sg[5];
	struct rdx_wr wr[4];

	fake_setup(&default_opts);
	memset(sg, 0, sizeof(sg));
	memset(wr, 0, sizeof(wr));
	wr[2].opcode = RDX_OP_MAX;
	CU_ASSERT(rdx_qp_post_burst(qp(), wr, 4) == 2);
	CU_ASSERT(f->qp.sq_cur_post == 2);
	CU_ASSERT(f->qp.stats.bad_wr == 1);
	CU_ASSERT(be32toh(f->dbrec[MLX5_SND_DBR]) == 2);
	/* too many SGEs */
	wr[2].opcode = RDX_OP_SEND;
	wr[2].sge = sg;
	wr[2].num_sge = 5;
	CU_ASSERT(rdx_qp_post_burst(qp(), &wr[2], 1) == 0);
	/* inline too long (max 64) */
	wr[2].sge = &big;
	wr[2].num_sge = 1;
	wr[2].flags = RDX_WR_INLINE;
	CU_ASSERT(rdx_qp_post_burst(qp(), &wr[1], 2) == 1);
	/* atomic not 8 bytes */
	wr[2].opcode = RDX_OP_CAS;
	wr[2].sge = &four;
	wr[2].flags = 0;
	CU_ASSERT(rdx_qp_post_burst(qp(), &wr[2], 1) == 0);
	wr[2].opcode = RDX_OP_FAA;
	wr[2].num_sge = 0;
	CU_ASSERT(rdx_qp_post_burst(qp(), &wr[2], 1) == 0);
	CU_ASSERT(f->qp.sq_cur_post == 3);
	CU_ASSERT(f->qp.sq_head == 3);
	CU_ASSERT(rdx_mlx5_qp_doorbells(&f->qp) == 2);
	fake_teardown();

	/* sig_burst_end still signals the last WQE posted before a bad WR */
	{
		struct qp_opts o = default_opts;

		o.sig_interval = 8;
		o.sig_burst_end = true;
		fake_setup(&o);
		memset(wr, 0, sizeof(wr));
		wr[2].opcode = RDX_OP_MAX;
		CU_ASSERT(rdx_qp_post_burst(qp(), wr, 4) == 2);
		CU_ASSERT((fm_of(0) & MLX5_WQE_CTRL_CQ_UPDATE) == 0);
		CU_ASSERT((fm_of(1) & MLX5_WQE_CTRL_CQ_UPDATE) != 0);
		CU_ASSERT(f->qp.sq_unsignaled == 0);
		fake_teardown();
	}
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "golden bytes: every opcode", test_golden_opcodes },
		{ "wrap: inline bytes split at ring end", test_wrap_inline },
		{ "wrap: inline gather split at SGE boundary", test_wrap_inline_sges },
		{ "wrap: data segments", test_wrap_data_segs },
		{ "inline lengths 0..60, WRITE and SEND", test_inline_lengths },
		{ "signaling: interval", test_signal_interval },
		{ "signaling: burst end", test_signal_burst_end },
		{ "signaling: SQ nearly full", test_signal_sq_nearly_full },
		{ "signaling: SQ nearly full, single posts", test_signal_sq_nearly_full_single },
		{ "SQ full: short count, no overwrite", test_sq_full_no_overwrite },
		{ "empty burst: nothing posted or rung", test_empty_burst },
		{ "invalid WR stops the burst", test_invalid_wr_stops_burst },
		{ NULL, NULL },
	};

	return rdx_ut_run("mlx5_qp", cases, suite_init, suite_fini);
}
