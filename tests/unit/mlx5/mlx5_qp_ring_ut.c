/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ringing and whole bursts (drivers/mlx5/mlx5_qp.c) on the fake device of
 * mlx5_ut_fake.h: BlueFlame copies and halves, one doorbell per burst,
 * fast and general WRs mixed in one burst, random bursts against an
 * independent reference.
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
	CU_ASSERT(f->qp.stats.doorbells == 3);
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
	CU_ASSERT(f->qp.stats.bf_posts == 0 && f->qp.stats.doorbells == 1);
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
	CU_ASSERT(f->qp.stats.doorbells == 1);
	CU_ASSERT(f->qp.stats.bf_posts == 0);
	CU_ASSERT(f->qp.stats.wqes == 5);
	CU_ASSERT(memcmp(f->bf, f->sq + 4 * 64, 8) == 0);
	CU_ASSERT(f->bf[8] == 0xaa);
	CU_ASSERT(be32toh(f->dbrec[MLX5_SND_DBR]) == 5);
	CU_ASSERT(f->qp.bf->offset == BF_HALF);
	CU_ASSERT(rdx_qp_post_burst(qp(), wr, 3) == 3);
	CU_ASSERT(f->qp.stats.doorbells == 2);
	CU_ASSERT(memcmp(f->bf + BF_HALF, f->sq + 7 * 64, 8) == 0);
	CU_ASSERT(be32toh(f->dbrec[MLX5_SND_DBR]) == 8);
	/* an empty burst rings nothing */
	CU_ASSERT(rdx_qp_post_burst(qp(), wr, 0) == 0);
	CU_ASSERT(f->qp.stats.doorbells == 2);
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
	CU_ASSERT(f->qp.stats.doorbells == 1);
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

/*
 * Random bursts against an independent reference: shapes the run loops take
 * (8-byte inline WRITE/SEND, signaled or not) mixed with ones they hand to
 * the general loop (9..16 and 40-byte inline, FENCE, READ, FAA, SEND_IMM),
 * on rings large enough for runs to cross the WQE index's low byte (256)
 * and small ones that wrap often; 2-WQEBB WQEs shift the wr_id slots
 * (by ordinal) against the ring slots (by WQEBB). After every burst each
 * posted WQE is compared byte for byte with one built here, the signaled
 * set with the rule (flag, every sig_interval-th, the last free slot, burst
 * end), the doorbell record and the count; the fake device then completes
 * up to the newest signaled WQE and every retired wr_id is checked.
 */
struct ref_wqe {
	uint8_t bytes[128];
	uint32_t len;                   /* DS * 16 */
	uint32_t cmp_len;               /* bytes that matter (inline padding is not written) */
	uint32_t bb;
	uint64_t wr_id;
	bool signaled;
	bool lenerr;                    /* UD: a NOP standing for a too long SEND */
	uint8_t opcode;
};

/* WQEBBs of a reference WQE. */
static uint32_t
ref_nbb(const struct ref_wqe *r)
{
	return (r->len + 63) / 64;
}

static uint64_t
xs64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A random WR (shape k) and its expected WQE at WQEBB bb (without fm_ce_se). */
static void
rand_wr(uint64_t *seed, struct rdx_wr *wr, struct rdx_sge *sge, struct ref_wqe *r,
	uint32_t bb, uint32_t max_inline)
{
	const uint32_t k = (uint32_t)(xs64(seed) % 20);
	const uint32_t off = (uint32_t)(xs64(seed) % 256);
	uint32_t len, ds;
	uint8_t op;

	memset(wr, 0, sizeof(*wr));
	memset(r, 0, sizeof(*r));
	wr->sge = sge;
	wr->num_sge = 1;
	wr->remote_addr = xs64(seed);
	wr->rkey = (uint32_t)xs64(seed);
	wr->wr_id = xs64(seed);
	wr->flags = RDX_WR_INLINE;
	sge->addr = (uintptr_t)(pay + off);
	sge->length = 8;
	sge->lkey = (uint32_t)xs64(seed);
	if (k < 10) {                   /* 8-byte inline WRITE: run loop */
		wr->opcode = RDX_OP_WRITE;
	} else if (k < 12) {            /* 8-byte inline SEND: run loop */
		wr->opcode = RDX_OP_SEND;
	} else if (k == 12) {           /* 9..16 bytes: hand-over */
		wr->opcode = (xs64(seed) & 1) ? RDX_OP_WRITE : RDX_OP_SEND;
		sge->length = 9 + (uint32_t)(xs64(seed) % 8);
	} else if (k == 13 && max_inline >= 40) { /* 2 WQEBBs */
		wr->opcode = RDX_OP_WRITE;
		sge->length = 40;
	} else if (k == 14) {
		wr->opcode = RDX_OP_WRITE;
		wr->flags |= RDX_WR_FENCE;
	} else if (k == 15) {
		wr->opcode = RDX_OP_READ;
		wr->flags = 0;
	} else if (k == 16) {
		wr->opcode = RDX_OP_FAA;
		wr->flags = 0;
		wr->compare_add = xs64(seed);
	} else if (k == 17) {
		wr->opcode = RDX_OP_SEND_IMM;
		wr->imm = (uint32_t)xs64(seed);
	} else {
		wr->opcode = RDX_OP_WRITE;
	}
	if (xs64(seed) % 8 == 0)
		wr->flags |= RDX_WR_SIGNALED;

	len = sge->length;
	r->bb = bb;
	r->wr_id = wr->wr_id;
	r->signaled = (wr->flags & RDX_WR_SIGNALED) != 0;
	switch (wr->opcode) {
	case RDX_OP_READ:
		op = MLX5_OPCODE_RDMA_READ;
		r->len = 16 + exp_raddr(r->bytes + 16, wr->remote_addr, wr->rkey);
		r->len += exp_data(r->bytes + r->len, len, sge->lkey, sge->addr);
		break;
	case RDX_OP_FAA: {
		struct mlx5_wqe_atomic_seg a = { .swap_add = htobe64(wr->compare_add) };

		op = MLX5_OPCODE_ATOMIC_FA;
		r->len = 16 + exp_raddr(r->bytes + 16, wr->remote_addr, wr->rkey);
		memcpy(r->bytes + r->len, &a, sizeof(a));
		r->len += 16;
		r->len += exp_data(r->bytes + r->len, len, sge->lkey, sge->addr);
		break;
	}
	case RDX_OP_SEND:
	case RDX_OP_SEND_IMM:
		op = wr->opcode == RDX_OP_SEND ? MLX5_OPCODE_SEND : MLX5_OPCODE_SEND_IMM;
		r->len = 16 + exp_inline(r->bytes + 16, pay + off, len);
		r->cmp_len = 16 + 4 + len;
		break;
	default:
		op = MLX5_OPCODE_RDMA_WRITE;
		r->len = 16 + exp_raddr(r->bytes + 16, wr->remote_addr, wr->rkey);
		r->len += exp_inline(r->bytes + r->len, pay + off, len);
		r->cmp_len = 32 + 4 + len;
		break;
	}
	if (r->cmp_len == 0)
		r->cmp_len = r->len;
	r->opcode = op;
	ds = r->len / 16;
	exp_ctrl(r->bytes, (uint16_t)bb, op, (uint8_t)ds,
		 (wr->flags & RDX_WR_FENCE) ? MLX5_WQE_CTRL_FENCE : 0,
		 wr->opcode == RDX_OP_SEND_IMM ? wr->imm : 0);
}

/*
 * A random UD WR and its expected WQE: 8-byte inline SENDs mostly, longer
 * inline SEND/SEND_IMM, gather lists up to the MTU, gather lists one byte
 * or more above it (a NOP, always signaled), NOPs; FENCE/SOLICITED now and
 * then. The AH alternates between two.
 */
static struct rdx_mlx5_ah ud_ahs[2];

static void
rand_wr_ud(uint64_t *seed, struct rdx_wr *wr, struct rdx_sge *sge, struct ref_wqe *r,
	   uint32_t bb, uint32_t max_inline, uint32_t max_send_sge)
{
	const uint32_t k = (uint32_t)(xs64(seed) % 20);
	const uint32_t off = (uint32_t)(xs64(seed) % 256);
	const struct rdx_mlx5_ah *ah = &ud_ahs[xs64(seed) & 1];
	uint32_t j, total = 0;
	uint8_t op, fm = 0;

	memset(wr, 0, sizeof(*wr));
	memset(r, 0, sizeof(*r));
	wr->sge = sge;
	wr->num_sge = 1;
	wr->ah = &ah->base;
	wr->remote_qpn = (uint32_t)xs64(seed);   /* bits 31..24 must be dropped */
	wr->remote_qkey = (uint32_t)xs64(seed);
	wr->wr_id = xs64(seed);
	wr->opcode = RDX_OP_SEND;
	wr->flags = RDX_WR_INLINE;
	sge->addr = (uintptr_t)(pay + off);
	sge->length = 8;
	sge->lkey = (uint32_t)xs64(seed);
	if (k < 12) {
		/* 8-byte inline SEND */
	} else if (k == 12 || k == 13) {
		sge->length = 1 + (uint32_t)(xs64(seed) % max_inline);
		if (k == 13) {
			wr->opcode = RDX_OP_SEND_IMM;
			wr->imm = (uint32_t)xs64(seed);
		}
	} else if (k == 14 || k == 15 || k == 16) {
		/* gather list: within the MTU (14, 15) or above it (16) */
		wr->flags = 0;
		wr->num_sge = (uint8_t)(1 + xs64(seed) % max_send_sge);
		for (j = 0; j < wr->num_sge; j++) {
			sge[j].addr = xs64(seed);
			sge[j].lkey = (uint32_t)xs64(seed);
			sge[j].length = (uint32_t)(xs64(seed) % (UD_MTU / wr->num_sge + 1));
			total += sge[j].length;
		}
		if (k == 16)
			sge[0].length += UD_MTU + 1 - total;
	} else if (k == 17) {
		wr->opcode = RDX_OP_NOP;
		wr->num_sge = 0;
		wr->flags = 0;
	} else {
		wr->flags |= (k == 18) ? RDX_WR_FENCE : RDX_WR_SOLICITED;
	}
	if (xs64(seed) % 8 == 0)
		wr->flags |= RDX_WR_SIGNALED;
	if (wr->flags & RDX_WR_FENCE)
		fm |= MLX5_WQE_CTRL_FENCE;
	if (wr->flags & RDX_WR_SOLICITED)
		fm |= MLX5_WQE_CTRL_SOLICITED;

	r->bb = bb;
	r->wr_id = wr->wr_id;
	r->signaled = (wr->flags & RDX_WR_SIGNALED) != 0;
	total = 0;
	for (j = 0; j < wr->num_sge; j++)
		total += sge[j].length;
	if (wr->opcode == RDX_OP_NOP || total > UD_MTU) {
		op = MLX5_OPCODE_NOP;
		r->len = 16;
		r->lenerr = wr->opcode != RDX_OP_NOP;
		r->signaled |= r->lenerr;
		exp_ctrl(r->bytes, (uint16_t)bb, op, 1, fm, 0);
	} else {
		op = wr->opcode == RDX_OP_SEND ? MLX5_OPCODE_SEND : MLX5_OPCODE_SEND_IMM;
		r->len = 16 + exp_dgram(r->bytes + 16, &ah->av, wr->remote_qpn & 0xffffff,
					wr->remote_qkey);
		if (wr->flags & RDX_WR_INLINE) {
			r->len += exp_inline(r->bytes + r->len, pay + off, sge->length);
			r->cmp_len = 64 + 4 + sge->length;
		} else {
			for (j = 0; j < wr->num_sge; j++)
				if (sge[j].length != 0)
					r->len += exp_data(r->bytes + r->len, sge[j].length,
							   sge[j].lkey, sge[j].addr);
		}
		exp_ctrl(r->bytes, (uint16_t)bb, op, (uint8_t)(r->len / 16), fm,
			 wr->opcode == RDX_OP_SEND_IMM ? wr->imm : 0);
	}
	if (r->cmp_len == 0)
		r->cmp_len = r->len;
	r->opcode = op;
}

static void
random_bursts(uint32_t sq_bb, uint32_t max_inline, uint32_t max_send_sge,
	      uint16_t sig_interval, bool burst_end, uint64_t seed, uint32_t bursts, bool ud)
{
	struct qp_opts o = default_opts;
	static struct ref_wqe ref[1024];        /* by ordinal & (sq_bb - 1) */
	static struct rdx_wr wr[48];
	static struct rdx_sge sge[48][4];
	static struct ref_wqe rw[48];
	uint32_t head = 0, tail = 0, bb = 0, unsig = 0, max_post, b, i;
	uint32_t last_sig = UINT32_MAX;         /* newest signaled, not completed */
	int bad = 0;

	o.sq_bb = sq_bb;
	o.max_inline = max_inline;
	o.max_send_sge = max_send_sge;
	o.sig_interval = sig_interval;
	o.sig_burst_end = burst_end;
	o.cqe_cnt = 64;
	o.ud = ud;
	fake_setup(&o);
	fake_ah(&ud_ahs[0], 1);
	fake_ah(&ud_ahs[1], 2);
	max_post = f->qp.sq_max_post;
	for (b = 0; b < bursts && !bad; b++) {
		const uint32_t n = 1 + (uint32_t)(xs64(&seed) % 40);
		const uint32_t room = max_post - (head - tail);
		const uint32_t want = RTE_MIN(n, room);
		uint32_t got, pbb = bb;

		for (i = 0; i < n; i++) {
			if (ud)
				rand_wr_ud(&seed, &wr[i], sge[i], &rw[i], pbb, max_inline,
					   max_send_sge);
			else
				rand_wr(&seed, &wr[i], sge[i], &rw[i], pbb, max_inline);
			pbb += ref_nbb(&rw[i]);
		}
		got = rdx_qp_post_burst(qp(), wr, (uint16_t)n);
		if (got != want) {
			fprintf(stderr, "burst %u: posted %u of %u, expected %u\n", b, got, n, want);
			bad = 1;
			break;
		}
		/* The reference signaling rule, then the bytes. */
		for (i = 0; i < got; i++) {
			struct ref_wqe *r = &rw[i];

			if (unsig == sig_interval - 1u || head == tail + max_post - 1)
				r->signaled = true;
			if (i == got - 1 && burst_end)
				r->signaled = true;
			if (r->signaled) {
				r->bytes[11] |= MLX5_WQE_CTRL_CQ_UPDATE;
				unsig = 0;
				last_sig = head;
			} else {
				unsig++;
			}
			if (sq_cmp(r->bb, r->bytes, r->cmp_len) != 0) {
				fprintf(stderr, "burst %u WR %u (ordinal %u, op 0x%x, bb %u) differs\n",
					b, i, head, r->opcode, r->bb);
				bad = 1;
			}
			ref[head & (sq_bb - 1)] = *r;
			bb = r->bb + ref_nbb(r);
			head++;
		}
		if (got != 0 && (be32toh(f->dbrec[MLX5_SND_DBR]) != (bb & 0xffff) ||
				 f->qp.sq_cur_post != bb || f->qp.sq_head != head ||
				 f->qp.sq_unsignaled != unsig)) {
			fprintf(stderr, "burst %u: counters differ\n", b);
			bad = 1;
		}
		/* UD: each signaled WQE gets its own CQE (a too long SEND's
		 * NOP must report LOC_LEN_ERR), oldest first. */
		if (ud && last_sig != UINT32_MAX && xs64(&seed) % 3 != 0) {
			uint32_t o2;

			for (o2 = tail; o2 != last_sig + 1 && !bad; o2++) {
				const struct ref_wqe *s = &ref[o2 & (sq_bb - 1)];
				struct rdx_wc wc[2];

				if (!s->signaled)
					continue;
				cqe_req(QPN, (uint16_t)s->bb, s->opcode, 0);
				if (rdx_cq_poll_burst(cq(), wc, 2) != 1 ||
				    wc[0].status != (s->lenerr ? IBV_WC_LOC_LEN_ERR : 0) ||
				    wc[0].retired != o2 - tail + 1 || wc[0].wr_id != s->wr_id ||
				    (s->lenerr && wc[0].opcode != RDX_WC_SEND)) {
					fprintf(stderr, "burst %u: bad UD completion (ordinal %u, status %u)\n",
						b, o2, wc[0].status);
					bad = 1;
					break;
				}
				for (i = 0; i < wc[0].retired; i++)
					if (rdx_mlx5_qp_retired_wr_id(qp(), &wc[0], (uint16_t)i) !=
					    ref[(tail + i) & (sq_bb - 1)].wr_id)
						bad = 1;
				tail = o2 + 1;
			}
			last_sig = UINT32_MAX;
		}
		/* Complete up to the newest signaled WQE, now or later. */
		if (!ud && last_sig != UINT32_MAX && xs64(&seed) % 3 != 0) {
			const struct ref_wqe *s = &ref[last_sig & (sq_bb - 1)];
			struct rdx_wc wc[4];

			cqe_req(QPN, (uint16_t)s->bb, s->opcode, 0);
			if (rdx_cq_poll_burst(cq(), wc, 4) != 1 || wc[0].status != 0 ||
			    wc[0].retired != last_sig - tail + 1 || wc[0].wr_id != s->wr_id) {
				fprintf(stderr, "burst %u: bad completion\n", b);
				bad = 1;
				break;
			}
			for (i = 0; i < wc[0].retired; i++)
				if (rdx_mlx5_qp_retired_wr_id(qp(), &wc[0], (uint16_t)i) !=
				    ref[(tail + i) & (sq_bb - 1)].wr_id) {
					fprintf(stderr, "burst %u: retired wr_id %u differs\n", b, i);
					bad = 1;
				}
			tail = last_sig + 1;
			last_sig = UINT32_MAX;
		}
	}
	CU_ASSERT(bad == 0);
	CU_ASSERT(head > 4 * sq_bb);    /* the ring wrapped several times */
	fake_teardown();
}

static void
test_random_bursts(void)
{
	/* the benchmark's QP: every WQE one WQEBB, runs up to 256 WQEs */
	random_bursts(1024, 28, 1, 32, false, 0x1234567887654321ull, 3000, false);
	/* 2-WQEBB WQEs: ring and wr_id slots apart; idx low byte carries */
	random_bursts(512, 64, 4, 7, false, 0x9e3779b97f4a7c15ull, 3000, false);
	/* small ring, signal every WQE at burst end, short counts */
	random_bursts(16, 64, 4, 5, true, 0xdeadbeefcafef00dull, 3000, false);
	random_bursts(64, 28, 1, 1, false, 0x0123456789abcdefull, 3000, false);
	random_bursts(256, 64, 4, 300, false, 0x5555aaaa3333ccccull, 3000, false);
}

/* The same against UD WQEs: 1..2-WQEBB WQEs with the datagram segment,
 * too long SENDs (signaled NOPs reporting LOC_LEN_ERR), small and large
 * rings, every signaling rule. */
static void
test_random_bursts_ud(void)
{
	random_bursts(1024, 28, 1, 32, false, 0x1234567887654321ull, 3000, true);
	random_bursts(512, 60, 4, 7, false, 0x9e3779b97f4a7c15ull, 3000, true);
	random_bursts(16, 60, 4, 5, true, 0xdeadbeefcafef00dull, 3000, true);
	random_bursts(64, 28, 2, 1, false, 0x0123456789abcdefull, 3000, true);
	random_bursts(256, 60, 4, 300, false, 0x5555aaaa3333ccccull, 3000, true);
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
		{ "random bursts vs an independent reference", test_random_bursts },
		{ "random UD bursts vs an independent reference", test_random_bursts_ud },
		{ NULL, NULL },
	};

	return rdx_ut_run("mlx5_qp_ring", cases, suite_init, suite_fini);
}
