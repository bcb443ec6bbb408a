/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Golden-bytes tests of the mlx5 datapath (drivers/mlx5/mlx5_qp.c,
 * mlx5_cq.c, mlx5_obj.c) against rings in plain memory: a fake SQ/RQ,
 * doorbell records, a 2 x 256-byte BlueFlame area and a CQ ring this test
 * writes CQEs into itself, following the datapath/device contract. Every expected WQE is built independently
 * here with the mlx5dv.h helpers (mlx5dv_set_ctrl_seg, mlx5dv_set_data_seg)
 * and hand-filled raddr/atomic/inline segments, never through the datapath.
 */
#include <endian.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "rdx_ut.h"
#include "../../../drivers/mlx5/mlx5_obj.c"
#include "../../../drivers/mlx5/mlx5_qp.c"
#include "../../../drivers/mlx5/mlx5_cq.c"

#define QPN 0x1a2b3cu
#define QPN2 0x000105u
#define BF_HALF 256u
#define MAX_BB 1024u
#define MAX_CQE 64u

struct fake {
	uint8_t sq[MAX_BB * 64] __attribute__((aligned(64)));
	uint8_t rq[64 * 64] __attribute__((aligned(64)));
	__be32 dbrec[2];
	uint8_t bf[2 * BF_HALF] __attribute__((aligned(64)));
	uint8_t cq[MAX_CQE * 128] __attribute__((aligned(64)));
	__be32 cq_dbrec[2];
	struct rdx_mlx5_qp qp;
	struct rdx_mlx5_qp qp2;
	struct rdx_mlx5_cq cq_obj;
	uint32_t sq_bb;
	uint32_t cqe_cnt;
	uint32_t cqe_size;
	uint32_t cq_pi;           /* producer index of this fake device */
	int progress_calls;
};

static struct fake *f;

struct qp_opts {
	uint32_t sq_bb;
	uint32_t rq_cnt;
	uint32_t max_inline;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint16_t sig_interval;
	bool sig_burst_end;
	uint32_t bf_size;
	uint32_t cqe_cnt;
	uint32_t cqe_size;
};

static const struct qp_opts default_opts = {
	.sq_bb = 16, .rq_cnt = 8, .max_inline = 64, .max_send_sge = 4,
	.max_recv_sge = 4, .sig_interval = 1, .sig_burst_end = false,
	.bf_size = BF_HALF, .cqe_cnt = 16, .cqe_size = 64,
};

static void
fake_setup(const struct qp_opts *o)
{
	struct mlx5dv_qp dv;
	struct mlx5dv_cq dvc;
	uint32_t i;

	memset(f, 0, sizeof(*f));
	memset(f->bf, 0xaa, sizeof(f->bf));
	f->sq_bb = o->sq_bb;
	f->cqe_cnt = o->cqe_cnt;
	f->cqe_size = o->cqe_size;
	memset(&dv, 0, sizeof(dv));
	dv.dbrec = f->dbrec;
	dv.sq.buf = f->sq;
	dv.sq.wqe_cnt = o->sq_bb;
	dv.sq.stride = 64;
	dv.rq.buf = f->rq;
	dv.rq.wqe_cnt = o->rq_cnt;
	dv.rq.stride = rdx_mlx5_rq_stride(o->max_recv_sge);
	dv.bf.reg = f->bf;
	dv.bf.size = o->bf_size;
	f->qp.base.conf.sig_interval = o->sig_interval;
	f->qp.base.conf.sig_burst_end = o->sig_burst_end;
	f->qp.base.user_ctx = &f->qp;
	CU_ASSERT_FATAL(rdx_mlx5_qp_dp_init(&f->qp, &dv, QPN, o->max_inline,
					    o->max_send_sge, o->max_recv_sge) == 0);
	/* The CQ ring starts INVALID with owner 0 (mlx5-datapath.md §4). */
	for (i = 0; i < o->cqe_cnt; i++)
		f->cq[i * o->cqe_size + o->cqe_size - 1] = 0xf0;
	memset(&dvc, 0, sizeof(dvc));
	dvc.buf = f->cq;
	dvc.dbrec = f->cq_dbrec;
	dvc.cqe_cnt = o->cqe_cnt;
	dvc.cqe_size = o->cqe_size;
	dvc.cqn = 7;
	CU_ASSERT_FATAL(rdx_mlx5_cq_dp_init(&f->cq_obj, &dvc, 7, 4) == 0);
	CU_ASSERT_FATAL(rdx_mlx5_cq_attach(&f->cq_obj, &f->qp) == 0);
}

static void
fake_teardown(void)
{
	rdx_mlx5_cq_dp_fini(&f->cq_obj);
	rdx_mlx5_qp_dp_fini(&f->qp);
}

static struct rdx_qp *
qp(void)
{
	return &f->qp.base;
}

static struct rdx_cq *
cq(void)
{
	return &f->cq_obj.base;
}

/* Byte at DS-unit-aligned offset off of the WQE starting at WQEBB bb (wraps). */
static uint8_t
sq_byte(uint32_t bb, uint32_t off)
{
	return f->sq[(bb * 64 + off) % (f->sq_bb * 64)];
}

static int
sq_cmp(uint32_t bb, const uint8_t *exp, uint32_t len)
{
	uint32_t k;

	for (k = 0; k < len; k++)
		if (sq_byte(bb, k) != exp[k]) {
			fprintf(stderr, "WQE at bb %u differs at byte %u: 0x%02x != 0x%02x\n",
				bb, k, sq_byte(bb, k), exp[k]);
			return -1;
		}
	return 0;
}

/* ---- independent WQE construction ---- */

static uint32_t
exp_ctrl(uint8_t *w, uint16_t idx, uint8_t opcode, uint8_t ds, uint8_t fm, uint32_t imm)
{
	struct mlx5_wqe_ctrl_seg *c = (struct mlx5_wqe_ctrl_seg *)(void *)w;

	memset(c, 0, sizeof(*c));
	mlx5dv_set_ctrl_seg(c, idx, opcode, 0, QPN, fm, ds, 0, imm);
	return 16;
}

static uint32_t
exp_raddr(uint8_t *w, uint64_t raddr, uint32_t rkey)
{
	struct mlx5_wqe_raddr_seg r;

	r.raddr = htobe64(raddr);
	r.rkey = htobe32(rkey);
	r.reserved = 0;
	memcpy(w, &r, sizeof(r));
	return 16;
}

static uint32_t
exp_data(uint8_t *w, uint32_t len, uint32_t lkey, uint64_t addr)
{
	struct mlx5_wqe_data_seg d;

	mlx5dv_set_data_seg(&d, len, lkey, (uintptr_t)addr);
	memcpy(w, &d, sizeof(d));
	return 16;
}

static uint32_t
exp_inline(uint8_t *w, const void *data, uint32_t len)
{
	uint32_t hdr = htobe32(len | MLX5_INLINE_SEG);
	uint32_t sz = (4 + len + 15) & ~15u;

	memset(w, 0, sz);
	memcpy(w, &hdr, 4);
	memcpy(w + 4, data, len);
	return sz;
}

/* ---- the fake device: CQEs ---- */

static struct mlx5_cqe64 *
cqe_slot(uint32_t pi)
{
	return (struct mlx5_cqe64 *)(void *)(f->cq + (pi & (f->cqe_cnt - 1)) * f->cqe_size +
				     f->cqe_size - 64);
}

static uint32_t
log2c(uint32_t v)
{
	uint32_t l = 0;

	while ((1u << l) < v)
		l++;
	return l;
}

static void
cqe_publish(struct mlx5_cqe64 *c, uint8_t opcode)
{
	uint8_t owner = (uint8_t)((f->cq_pi >> log2c(f->cqe_cnt)) & 1);

	__atomic_thread_fence(__ATOMIC_RELEASE);
	c->op_own = (uint8_t)(opcode << 4 | owner);
	f->cq_pi++;
}

static void
cqe_req(uint32_t qpn, uint16_t wqe_ctr, uint8_t wqe_opcode, uint32_t byte_cnt)
{
	struct mlx5_cqe64 *c = cqe_slot(f->cq_pi);

	memset(c, 0, 63);
	c->sop_drop_qpn = htobe32((uint32_t)wqe_opcode << 24 | qpn);
	c->wqe_counter = htobe16(wqe_ctr);
	c->byte_cnt = htobe32(byte_cnt);
	cqe_publish(c, MLX5_CQE_REQ);
}

static void
cqe_resp(uint32_t qpn, uint8_t opcode, uint16_t wqe_ctr, uint32_t byte_cnt, uint32_t imm)
{
	struct mlx5_cqe64 *c = cqe_slot(f->cq_pi);

	memset(c, 0, 63);
	c->sop_drop_qpn = htobe32(qpn);
	c->wqe_counter = htobe16(wqe_ctr);
	c->byte_cnt = htobe32(byte_cnt);
	c->imm_inval_pkey = imm;
	cqe_publish(c, opcode);
}

static void
cqe_err(uint32_t qpn, uint8_t opcode, uint8_t wqe_opcode, uint16_t wqe_ctr,
	uint8_t syndrome, uint8_t vendor)
{
	struct mlx5_err_cqe *e = (struct mlx5_err_cqe *)(void *)cqe_slot(f->cq_pi);

	memset(e, 0, 63);
	e->syndrome = syndrome;
	e->vendor_err_synd = vendor;
	e->s_wqe_opcode_qpn = htobe32((uint32_t)wqe_opcode << 24 | qpn);
	e->wqe_counter = htobe16(wqe_ctr);
	cqe_publish((struct mlx5_cqe64 *)(void *)e, opcode);
}

/* Complete everything posted on f->qp with one REQ CQE for the last WQE
 * (found by walking the ring; it must be signaled). */
static void
complete_all(void)
{
	struct rdx_wc wc[4];
	uint32_t bb = f->qp.sq_tail_bb, o, last = bb;

	if (f->qp.sq_head == f->qp.sq_tail)
		return;
	for (o = f->qp.sq_tail; o != f->qp.sq_head; o++) {
		uint8_t ds = f->sq[(bb & (f->sq_bb - 1)) * 64 + 7] & 0x3f;

		last = bb;
		bb += (ds + 3u) >> 2;
	}
	CU_ASSERT_FATAL(bb == f->qp.sq_cur_post);
	CU_ASSERT_FATAL(f->sq[(last & (f->sq_bb - 1)) * 64 + 11] & MLX5_WQE_CTRL_CQ_UPDATE);
	cqe_req(QPN, (uint16_t)last, MLX5_OPCODE_NOP, 0);
	CU_ASSERT_FATAL(rdx_cq_poll_burst(cq(), wc, 4) == 1);
	CU_ASSERT(f->qp.sq_tail == f->qp.sq_head);
	CU_ASSERT(f->qp.sq_tail_bb == f->qp.sq_cur_post);
}

static uint16_t
post1(struct rdx_wr *wr)
{
	return rdx_qp_post_burst(qp(), wr, 1);
}

static uint8_t pay[512];

static void
init_pay(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(pay); i++)
		pay[i] = (uint8_t)(i * 7 + 3);
}

/* ---------------------------------------------------------------------- */

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
	CU_ASSERT(rdx_mlx5_qp_dp_init(&q, &dv, 1, 0, 1, 1) == 0);
	CU_ASSERT(q.base.post_burst == rdx_mlx5_post_burst);
	CU_ASSERT(q.base.conf.sq_depth == 4);
	rdx_mlx5_qp_dp_fini(&q);
}

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
	CU_ASSERT(f->qp.stats.doorbells == 10);
	CU_ASSERT(f->qp.stats.wqes == 10);
	fake_teardown();
}

/* Move the SQ producer to WQEBB `to` with NOPs, completing them. */
static void
advance_to(uint32_t to)
{
	struct rdx_wr nop;

	memset(&nop, 0, sizeof(nop));
	while (f->qp.sq_cur_post < to) {
		CU_ASSERT_FATAL(post1(&nop) == 1);
		complete_all();
	}
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

static uint8_t
fm_of(uint32_t bb)
{
	return f->sq[(bb & (f->sq_bb - 1)) * 64 + 11];
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
	CU_ASSERT(f->qp.stats.doorbells == 1);
	CU_ASSERT(f->qp.stats.sq_full == 2);
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
	CU_ASSERT(f->qp.stats.doorbells == 2);
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

static void
test_cq_owner_wrap(void)
{
	struct qp_opts o = default_opts;
	struct rdx_wc wc[8];
	struct rdx_wr wr;
	unsigned int round, k, got;

	o.cqe_cnt = 4;
	o.sq_bb = 64;
	fake_setup(&o);
	memset(&wr, 0, sizeof(wr));
	/* 5 rounds of 3 signaled NOPs: CQEs wrap the 4-entry ring repeatedly */
	for (round = 0; round < 5; round++) {
		uint32_t base = f->qp.sq_cur_post;

		for (k = 0; k < 3; k++) {
			wr.wr_id = round * 10 + k;
			CU_ASSERT(post1(&wr) == 1);
		}
		/* nothing written yet: stale CQEs from the last lap are not ours */
		CU_ASSERT(rdx_cq_poll_burst(cq(), wc, 8) == 0);
		for (k = 0; k < 3; k++)
			cqe_req(QPN, (uint16_t)(base + k), MLX5_OPCODE_NOP, 0);
		got = rdx_cq_poll_burst(cq(), wc, 2);
		got += rdx_cq_poll_burst(cq(), wc + 2, 8);
		CU_ASSERT(got == 3);
		for (k = 0; k < 3; k++) {
			CU_ASSERT(wc[k].wr_id == round * 10 + k);
			CU_ASSERT(wc[k].status == IBV_WC_SUCCESS);
			CU_ASSERT(wc[k].retired == 1);
			CU_ASSERT(wc[k].opcode == RDX_WC_NOP);
			CU_ASSERT(wc[k].qp_ctx == &f->qp);
			CU_ASSERT(wc[k].qp_num == QPN);
		}
		CU_ASSERT(be32toh(f->cq_dbrec[0]) == f->cq_pi);
	}
	CU_ASSERT(f->cq_obj.stats.polls == 10);
	fake_teardown();
}

static void
test_cq_128b(void)
{
	struct qp_opts o = default_opts;
	struct rdx_wc wc[4];
	struct rdx_wr wr;

	o.cqe_size = 128;
	o.cqe_cnt = 2;
	fake_setup(&o);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 5;
	CU_ASSERT(post1(&wr) == 1);
	cqe_req(QPN, 0, MLX5_OPCODE_NOP, 0);
	CU_ASSERT(rdx_cq_poll_burst(cq(), wc, 4) == 1);
	CU_ASSERT(wc[0].wr_id == 5);
	fake_teardown();
}

static void
test_cq_retire_run(void)
{
	struct qp_opts o = default_opts;
	struct rdx_sge rd = { .addr = 0x100, .length = 4096, .lkey = 1 };
	struct rdx_sge at = { .addr = 0x200, .length = 8, .lkey = 1 };
	struct rdx_wc wc[8];
	struct rdx_wr wr[6];
	unsigned int k;

	o.sig_interval = 6;
	o.sq_bb = 32;
	fake_setup(&o);
	memset(wr, 0, sizeof(wr));
	for (k = 0; k < 6; k++)
		wr[k].wr_id = 0x5000 + k;
	wr[5].opcode = RDX_OP_READ;
	wr[5].sge = &rd;
	wr[5].num_sge = 1;
	CU_ASSERT(rdx_qp_post_burst(qp(), wr, 6) == 6);
	CU_ASSERT((fm_of(5) & MLX5_WQE_CTRL_CQ_UPDATE) != 0);
	cqe_req(QPN, 5, MLX5_OPCODE_RDMA_READ, 4096);
	CU_ASSERT(rdx_cq_poll_burst(cq(), wc, 8) == 1);
	CU_ASSERT(wc[0].retired == 6);
	CU_ASSERT(wc[0].wr_id == 0x5005);
	CU_ASSERT(wc[0].opcode == RDX_WC_READ);
	CU_ASSERT(wc[0].byte_len == 4096);
	for (k = 0; k < 6; k++)
		CU_ASSERT(rdx_mlx5_qp_retired_wr_id(qp(), &wc[0], (uint16_t)k) == 0x5000 + k);
	CU_ASSERT(rdx_mlx5_qp_retired_wr_id(qp(), &wc[0], 6) == 0);
	CU_ASSERT(f->qp.sq_tail == 6);
	/* atomics report 8 bytes whatever byte_cnt says */
	wr[0].opcode = RDX_OP_FAA;
	wr[0].sge = &at;
	wr[0].num_sge = 1;
	wr[0].flags = RDX_WR_SIGNALED;
	CU_ASSERT(post1(&wr[0]) == 1);
	cqe_req(QPN, 6, MLX5_OPCODE_ATOMIC_FA, 0);
	CU_ASSERT(rdx_cq_poll_burst(cq(), wc, 8) == 1);
	CU_ASSERT(wc[0].opcode == RDX_WC_FAA);
	CU_ASSERT(wc[0].byte_len == 8);
	CU_ASSERT(wc[0].retired == 1);
	/* a counter naming no outstanding WQE is reported, not trusted */
	cqe_req(QPN, 6, MLX5_OPCODE_ATOMIC_FA, 0);
	CU_ASSERT(rdx_cq_poll_burst(cq(), wc, 8) == 1);
	CU_ASSERT(wc[0].status == IBV_WC_GENERAL_ERR);
	CU_ASSERT(wc[0].retired == 0);
	CU_ASSERT(f->qp.sq_tail == 7);
	fake_teardown();
}

/* Retirement across 16-bit WQE counter wrap (idx = cur_post & 0xffff). */
static void
test_counter_wrap(void)
{
	struct qp_opts o = default_opts;
	struct rdx_wc wc[4];
	struct rdx_wr wr[4];
	uint8_t exp[16];
	unsigned int k;

	o.sq_bb = 4;
	o.max_inline = 0;
	o.max_send_sge = 1;
	o.sig_interval = 4;
	fake_setup(&o);
	memset(wr, 0, sizeof(wr));
	for (k = 0; k < 65536 / 4 + 1; k++) {
		uint32_t last = f->qp.sq_cur_post + 3;
		unsigned int j;

		for (j = 0; j < 4; j++)
			wr[j].wr_id = (uint64_t)k << 8 | j;
		CU_ASSERT_FATAL(rdx_qp_post_burst(qp(), wr, 4) == 4);
		cqe_req(QPN, (uint16_t)last, MLX5_OPCODE_NOP, 0);
		CU_ASSERT_FATAL(rdx_cq_poll_burst(cq(), wc, 4) == 1);
		CU_ASSERT_FATAL(wc[0].retired == 4);
		for (j = 0; j < 4; j++)
			CU_ASSERT_FATAL(rdx_mlx5_qp_retired_wr_id(qp(), &wc[0], (uint16_t)j) ==
					((uint64_t)k << 8 | j));
	}
	CU_ASSERT(f->qp.sq_cur_post == 65540);
	CU_ASSERT(be32toh(f->dbrec[MLX5_SND_DBR]) == 4);
	exp_ctrl(exp, (uint16_t)65539, MLX5_OPCODE_NOP, 1, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	CU_ASSERT(sq_cmp(3, exp, 16) == 0);
	fake_teardown();
}

static void
test_cq_responder(void)
{
	struct rdx_sge sg = { .addr = 0x1000, .length = 4096, .lkey = 1 };
	struct rdx_recv_wr rwr[3];
	struct rdx_wc wc[4];

	fake_setup(&default_opts);
	memset(rwr, 0, sizeof(rwr));
	rwr[0].wr_id = 71;
	rwr[1].wr_id = 72;
	rwr[2].wr_id = 73;
	rwr[0].sge = rwr[1].sge = rwr[2].sge = &sg;
	rwr[0].num_sge = rwr[1].num_sge = rwr[2].num_sge = 1;
	CU_ASSERT(rdx_qp_post_recv_burst(qp(), rwr, 3) == 3);
	cqe_resp(QPN, MLX5_CQE_RESP_SEND, 0, 123, 0);
	cqe_resp(QPN, MLX5_CQE_RESP_SEND_IMM, 1, 456, htobe32(0xa1b2c3d4));
	cqe_resp(QPN, MLX5_CQE_RESP_WR_IMM, 2, 65536, 0x11223344);
	CU_ASSERT(rdx_cq_poll_burst(cq(), wc, 4) == 3);
	CU_ASSERT(wc[0].opcode == RDX_WC_RECV && wc[0].byte_len == 123 && wc[0].wr_id == 71);
	CU_ASSERT(wc[1].opcode == RDX_WC_RECV_IMM && wc[1].byte_len == 456);
	CU_ASSERT(wc[1].imm == htobe32(0xa1b2c3d4) && wc[1].wr_id == 72);
	CU_ASSERT(wc[2].opcode == RDX_WC_RECV_WRITE_IMM && wc[2].byte_len == 65536);
	CU_ASSERT(wc[2].imm == 0x11223344 && wc[2].wr_id == 73);
	CU_ASSERT(wc[0].status == IBV_WC_SUCCESS && wc[2].status == IBV_WC_SUCCESS);
	CU_ASSERT(wc[0].qp_num == QPN && wc[0].qp_ctx == &f->qp);
	CU_ASSERT(rdx_mlx5_qp_retired_wr_id(qp(), &wc[1], 0) == 72);
	CU_ASSERT(f->qp.rq_tail == 3);
	CU_ASSERT(be32toh(f->cq_dbrec[0]) == 3);
	CU_ASSERT(f->cq_obj.stats.polls == 1);
	fake_teardown();
}

static void
test_cq_error_and_flush(void)
{
	struct qp_opts o = default_opts;
	struct rdx_sge sg = { .addr = 0x1000, .length = 64, .lkey = 1 };
	struct rdx_recv_wr rwr[2];
	struct rdx_wc wc[8];
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
	rwr[0].wr_id = 41;
	rwr[1].wr_id = 42;
	rwr[0].sge = rwr[1].sge = &sg;
	rwr[0].num_sge = rwr[1].num_sge = 1;
	CU_ASSERT(rdx_qp_post_recv_burst(qp(), rwr, 2) == 2);
	CU_ASSERT(rdx_qp_post_burst(qp(), wr, 5) == 5);
	/* WQE 1 fails (remote access), 2..4 and both receives are flushed */
	cqe_err(QPN, MLX5_CQE_REQ_ERR, MLX5_OPCODE_RDMA_WRITE, 1,
		MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR, 0x88);
	for (k = 2; k < 5; k++)
		cqe_err(QPN, MLX5_CQE_REQ_ERR, MLX5_OPCODE_RDMA_WRITE, (uint16_t)k,
			MLX5_CQE_SYNDROME_WR_FLUSH_ERR, 0x79);
	cqe_err(QPN, MLX5_CQE_RESP_ERR, 0, 0, MLX5_CQE_SYNDROME_WR_FLUSH_ERR, 0x79);
	cqe_err(QPN, MLX5_CQE_RESP_ERR, 0, 1, MLX5_CQE_SYNDROME_WR_FLUSH_ERR, 0x79);
	CU_ASSERT(rdx_cq_poll_burst(cq(), wc, 8) == 6);
	CU_ASSERT(wc[0].status == IBV_WC_REM_ACCESS_ERR);
	CU_ASSERT(strcmp(ibv_wc_status_str((enum ibv_wc_status)wc[0].status),
			 "remote access error") == 0);
	CU_ASSERT(wc[0].vendor_err == 0x88);
	CU_ASSERT(wc[0].wr_id == 901);
	CU_ASSERT(wc[0].retired == 2);
	CU_ASSERT(wc[0].opcode == RDX_WC_WRITE);
	CU_ASSERT(rdx_mlx5_qp_retired_wr_id(qp(), &wc[0], 0) == 900);
	for (k = 1; k < 4; k++) {
		CU_ASSERT(wc[k].status == IBV_WC_WR_FLUSH_ERR);
		CU_ASSERT(wc[k].wr_id == 900 + k + 1);
		CU_ASSERT(wc[k].retired == 1);
		CU_ASSERT(wc[k].vendor_err == 0x79);
	}
	CU_ASSERT(wc[4].status == IBV_WC_WR_FLUSH_ERR && wc[4].wr_id == 41);
	CU_ASSERT(wc[5].status == IBV_WC_WR_FLUSH_ERR && wc[5].wr_id == 42);
	CU_ASSERT(f->qp.sq_tail == f->qp.sq_head);
	CU_ASSERT(f->cq_obj.stats.errors == 6);
	fake_teardown();
}

/* Flush CQEs for unsignaled multi-WQEBB WQEs: found by walking the ring. */
static void
test_cq_flush_walk(void)
{
	struct qp_opts o = default_opts;
	struct rdx_sge inl = { .addr = (uintptr_t)pay, .length = 60 };
	struct rdx_wc wc[4];
	struct rdx_wr wr[3];

	o.sig_interval = 8;
	fake_setup(&o);
	memset(wr, 0, sizeof(wr));
	wr[0].opcode = RDX_OP_SEND;             /* DS 5: 2 WQEBBs at 0 */
	wr[0].flags = RDX_WR_INLINE;
	wr[0].sge = &inl;
	wr[0].num_sge = 1;
	wr[0].wr_id = 10;
	wr[1].wr_id = 11;                       /* NOP at 2 */
	wr[2] = wr[0];                          /* 2 WQEBBs at 3 */
	wr[2].wr_id = 12;
	CU_ASSERT(rdx_qp_post_burst(qp(), wr, 3) == 3);
	CU_ASSERT(f->qp.sq_cur_post == 5);
	/* the last WQE fails, earlier ones are flushed first (in order) */
	cqe_err(QPN, MLX5_CQE_REQ_ERR, MLX5_OPCODE_SEND, 0, MLX5_CQE_SYNDROME_WR_FLUSH_ERR, 0);
	cqe_err(QPN, MLX5_CQE_REQ_ERR, MLX5_OPCODE_NOP, 2, MLX5_CQE_SYNDROME_WR_FLUSH_ERR, 0);
	cqe_err(QPN, MLX5_CQE_REQ_ERR, MLX5_OPCODE_SEND, 3, MLX5_CQE_SYNDROME_WR_FLUSH_ERR, 0);
	/* a counter in the middle of a WQE names nothing */
	cqe_err(QPN, MLX5_CQE_REQ_ERR, MLX5_OPCODE_SEND, 4, MLX5_CQE_SYNDROME_WR_FLUSH_ERR, 0);
	CU_ASSERT(rdx_cq_poll_burst(cq(), wc, 4) == 4);
	CU_ASSERT(wc[0].wr_id == 10 && wc[0].retired == 1);
	CU_ASSERT(wc[1].wr_id == 11 && wc[1].retired == 1);
	CU_ASSERT(wc[2].wr_id == 12 && wc[2].retired == 1);
	CU_ASSERT(wc[0].status == IBV_WC_WR_FLUSH_ERR && wc[2].status == IBV_WC_WR_FLUSH_ERR);
	CU_ASSERT(wc[3].retired == 0 && wc[3].wr_id == 0);
	CU_ASSERT(f->qp.sq_tail == 3 && f->qp.sq_tail_bb == 5);
	fake_teardown();
}

static void
test_syndromes(void)
{
	static const struct { uint8_t syn; enum ibv_wc_status st; } t[] = {
		{ 0x01, IBV_WC_LOC_LEN_ERR }, { 0x02, IBV_WC_LOC_QP_OP_ERR },
		{ 0x04, IBV_WC_LOC_PROT_ERR }, { 0x05, IBV_WC_WR_FLUSH_ERR },
		{ 0x06, IBV_WC_MW_BIND_ERR }, { 0x10, IBV_WC_BAD_RESP_ERR },
		{ 0x11, IBV_WC_LOC_ACCESS_ERR }, { 0x12, IBV_WC_REM_INV_REQ_ERR },
		{ 0x13, IBV_WC_REM_ACCESS_ERR }, { 0x14, IBV_WC_REM_OP_ERR },
		{ 0x15, IBV_WC_RETRY_EXC_ERR }, { 0x16, IBV_WC_RNR_RETRY_EXC_ERR },
		{ 0x22, IBV_WC_REM_ABORT_ERR }, { 0x00, IBV_WC_GENERAL_ERR },
		{ 0x07, IBV_WC_GENERAL_ERR }, { 0xff, IBV_WC_GENERAL_ERR },
	};
	unsigned int k;

	for (k = 0; k < RTE_DIM(t); k++)
		CU_ASSERT(rdx_mlx5_syndrome_to_status(t[k].syn) == t[k].st);
}

static void
test_cq_multi_qp(void)
{
	struct mlx5dv_qp dv;
	struct rdx_wc wc[4];
	struct rdx_wr wr;
	static uint8_t sq2[8 * 64] __attribute__((aligned(64)));
	__be32 db2[2];

	fake_setup(&default_opts);
	memset(&dv, 0, sizeof(dv));
	dv.dbrec = db2;
	dv.sq.buf = sq2;
	dv.sq.wqe_cnt = 8;
	dv.sq.stride = 64;
	f->qp2.base.user_ctx = &f->qp2;
	CU_ASSERT_FATAL(rdx_mlx5_qp_dp_init(&f->qp2, &dv, QPN2, 0, 1, 0) == 0);
	CU_ASSERT(rdx_mlx5_cq_attach(&f->cq_obj, &f->qp2) == 0);
	CU_ASSERT(rdx_mlx5_cq_attach(&f->cq_obj, &f->qp2) == 0);  /* again: fine */
	CU_ASSERT(f->cq_obj.nb_qps == 2);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	CU_ASSERT(post1(&wr) == 1);
	wr.wr_id = 2;
	CU_ASSERT(rdx_qp_post_burst(&f->qp2.base, &wr, 1) == 1);
	cqe_req(QPN2, 0, 0, 0);
	cqe_req(QPN, 0, 0, 0);
	cqe_req(0x999, 0, 0, 0);      /* nobody's */
	CU_ASSERT(rdx_cq_poll_burst(cq(), wc, 4) == 3);
	CU_ASSERT(wc[0].qp_ctx == &f->qp2 && wc[0].wr_id == 2 && wc[0].qp_num == QPN2);
	CU_ASSERT(wc[1].qp_ctx == &f->qp && wc[1].wr_id == 1);
	CU_ASSERT(wc[2].status == IBV_WC_GENERAL_ERR && wc[2].qp_ctx == NULL);
	CU_ASSERT(f->cq_obj.stats.unknown_qpn == 1);
	rdx_mlx5_cq_detach(&f->cq_obj, &f->qp);
	CU_ASSERT(f->cq_obj.nb_qps == 1);
	cqe_req(QPN2, 0, 0, 0);
	CU_ASSERT(rdx_cq_poll_burst(cq(), wc, 4) == 1);
	CU_ASSERT(wc[0].status == IBV_WC_GENERAL_ERR); /* already retired */
	rdx_mlx5_cq_detach(&f->cq_obj, &f->qp2);
	CU_ASSERT(f->cq_obj.nb_qps == 0);
	rdx_mlx5_qp_dp_fini(&f->qp2);
	fake_teardown();
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
	CU_ASSERT(c.last_qp == NULL);
	/* another QP object with a QPN already present */
	q[4].base.qp_num = 11;
	CU_ASSERT(rdx_mlx5_cq_attach(&c, &q[4]) == -EEXIST);
	rdx_mlx5_cq_dp_fini(&c);
	/* bad CQ rings */
	dvc.cqe_cnt = 3;
	CU_ASSERT(rdx_mlx5_cq_dp_init(&c, &dvc, 1, 4) == -EINVAL);
	dvc.cqe_cnt = 4;
	dvc.cqe_size = 32;
	CU_ASSERT(rdx_mlx5_cq_dp_init(&c, &dvc, 1, 4) == -EINVAL);
}

/*
 * A backend's own poll op (what the software device installs in inline
 * progress mode): its work first, then the datapath's general poll.
 */
static uint16_t
count_progress_poll(struct rdx_cq *c, struct rdx_wc *wc, uint16_t n)
{
	f->progress_calls++;
	/* the "engine" completes the posted NOP before the poll looks */
	cqe_req(QPN, 0, 0, 0);
	return rdx_mlx5_poll_burst_general(c, wc, n);
}

static void
test_progress_hook(void)
{
	struct rdx_wc wc[2];
	struct rdx_wr wr;

	fake_setup(&default_opts);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 3;
	CU_ASSERT(post1(&wr) == 1);
	f->cq_obj.base.poll_burst = count_progress_poll;
	CU_ASSERT(rdx_cq_poll_burst(cq(), wc, 2) == 1);
	CU_ASSERT(f->progress_calls == 1);
	CU_ASSERT(wc[0].wr_id == 3);
	fake_teardown();
}

/*
 * A device thread: reads the SQ doorbell record, completes every posted
 * (signaled, one-WQEBB) NOP in order, never overruns the CQ (checks the
 * consumer index in the CQ doorbell record). The test thread posts and
 * polls concurrently: CQE ownership, barriers and both records are used for
 * real across threads.
 */
#define DEV_WQES 20000u

static int dev_stop;

static void *
device_thread(void *arg)
{
	uint32_t done = 0, pi = 0;

	(void)arg;
	while (done < DEV_WQES && !__atomic_load_n(&dev_stop, __ATOMIC_ACQUIRE)) {
		uint16_t posted = (uint16_t)be32toh(__atomic_load_n(&f->dbrec[MLX5_SND_DBR],
								     __ATOMIC_ACQUIRE));
		uint32_t ci = be32toh(__atomic_load_n(&f->cq_dbrec[0], __ATOMIC_ACQUIRE));

		if ((uint16_t)done == posted || pi - ci >= f->cqe_cnt) {
			sched_yield();
			continue;
		}
		{
			struct mlx5_cqe64 *c = cqe_slot(pi);
			uint8_t owner = (uint8_t)((pi >> log2c(f->cqe_cnt)) & 1);

			memset(c, 0, 63);
			c->sop_drop_qpn = htobe32(QPN);
			c->wqe_counter = htobe16((uint16_t)done);
			__atomic_store_n(&c->op_own, (uint8_t)(MLX5_CQE_REQ << 4 | owner),
					 __ATOMIC_RELEASE);
		}
		pi++;
		done++;
	}
	return NULL;
}

static void
test_concurrent_device(void)
{
	struct qp_opts o = default_opts;
	struct rdx_wc wc[16];
	struct rdx_wr wr[16];
	uint64_t next_post = 0, next_done = 0, idle = 0;
	pthread_t th;
	unsigned int k;

	o.sq_bb = 32;
	o.max_inline = 0;
	o.max_send_sge = 1;
	o.cqe_cnt = 8;
	fake_setup(&o);
	memset(wr, 0, sizeof(wr));
	dev_stop = 0;
	CU_ASSERT_FATAL(pthread_create(&th, NULL, device_thread, NULL) == 0);
	/* bounded: a lost completion fails the test instead of hanging it */
	while (next_done < DEV_WQES && idle < 200000000u) {
		uint16_t n = (uint16_t)RTE_MIN(16u, DEV_WQES - next_post);
		uint16_t got;

		for (k = 0; k < n; k++)
			wr[k].wr_id = next_post + k;
		next_post += rdx_qp_post_burst(qp(), wr, n);
		got = rdx_cq_poll_burst(cq(), wc, 16);
		idle = got == 0 ? idle + 1 : 0;
		for (k = 0; k < got; k++) {
			if (wc[k].wr_id != next_done || wc[k].status != IBV_WC_SUCCESS ||
			    wc[k].retired != 1)
				break;
			next_done++;
		}
		if (k != got)
			break;
	}
	__atomic_store_n(&dev_stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	CU_ASSERT(next_done == DEV_WQES);
	CU_ASSERT(next_post == DEV_WQES);
	CU_ASSERT(f->qp.sq_tail == DEV_WQES);
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
	uint8_t opcode;
};

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

static void
random_bursts(uint32_t sq_bb, uint32_t max_inline, uint32_t max_send_sge,
	      uint16_t sig_interval, bool burst_end, uint64_t seed, uint32_t bursts)
{
	struct qp_opts o = default_opts;
	static struct ref_wqe ref[1024];        /* by ordinal & (sq_bb - 1) */
	static struct rdx_wr wr[48];
	static struct rdx_sge sge[48];
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
	fake_setup(&o);
	max_post = f->qp.sq_max_post;
	for (b = 0; b < bursts && !bad; b++) {
		const uint32_t n = 1 + (uint32_t)(xs64(&seed) % 40);
		const uint32_t room = max_post - (head - tail);
		const uint32_t want = RTE_MIN(n, room);
		uint32_t got, pbb = bb;

		for (i = 0; i < n; i++) {
			rand_wr(&seed, &wr[i], &sge[i], &rw[i], pbb, max_inline);
			pbb += rw[i].len > 64 ? 2 : 1;
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
			bb = r->bb + (r->len > 64 ? 2 : 1);
			head++;
		}
		if (got != 0 && (be32toh(f->dbrec[MLX5_SND_DBR]) != (bb & 0xffff) ||
				 f->qp.sq_cur_post != bb || f->qp.sq_head != head ||
				 f->qp.sq_unsignaled != unsig)) {
			fprintf(stderr, "burst %u: counters differ\n", b);
			bad = 1;
		}
		/* Complete up to the newest signaled WQE, now or later. */
		if (last_sig != UINT32_MAX && xs64(&seed) % 3 != 0) {
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
	random_bursts(1024, 28, 1, 32, false, 0x1234567887654321ull, 3000);
	/* 2-WQEBB WQEs: ring and wr_id slots apart; idx low byte carries */
	random_bursts(512, 64, 4, 7, false, 0x9e3779b97f4a7c15ull, 3000);
	/* small ring, signal every WQE at burst end, short counts */
	random_bursts(16, 64, 4, 5, true, 0xdeadbeefcafef00dull, 3000);
	random_bursts(64, 28, 1, 1, false, 0x0123456789abcdefull, 3000);
	random_bursts(256, 64, 4, 300, false, 0x5555aaaa3333ccccull, 3000);
}

static int
suite_init(void)
{
	f = aligned_alloc(64, sizeof(*f));
	init_pay();
	return f == NULL ? -1 : 0;
}

static int
suite_fini(void)
{
	free(f);
	return 0;
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "sizing helpers", test_sizing },
		{ "dp_init rejects bad rings", test_init_rejects },
		{ "golden bytes: every opcode", test_golden_opcodes },
		{ "wrap: inline bytes split at ring end", test_wrap_inline },
		{ "wrap: inline gather split at SGE boundary", test_wrap_inline_sges },
		{ "wrap: data segments", test_wrap_data_segs },
		{ "inline lengths 0..60, WRITE and SEND", test_inline_lengths },
		{ "BlueFlame single WQE, halves toggle", test_bf_single },
		{ "BlueFlame 2-WQEBB WQE wrapping", test_bf_multi_bb_wrap },
		{ "BlueFlame too big / absent: doorbell", test_bf_too_big },
		{ "BlueFlame rules: DS > 1, prefer_bf, MLX5_SHUT_UP_BF", test_bf_rules },
		{ "BlueFlame register shared by two QPs: one toggle", test_bf_shared_register },
		{ "one doorbell per burst", test_one_doorbell_per_burst },
		{ "signaling: interval", test_signal_interval },
		{ "signaling: burst end", test_signal_burst_end },
		{ "signaling: SQ nearly full", test_signal_sq_nearly_full },
		{ "SQ full: short count, no overwrite", test_sq_full_no_overwrite },
		{ "invalid WR stops the burst", test_invalid_wr_stops_burst },
		{ "RQ layout, terminator, dbrec", test_rq_layout },
		{ "RQ stride rounded up: terminator", test_rq_stride_roundup },
		{ "CQ owner bit across wraps", test_cq_owner_wrap },
		{ "CQ 128-byte CQEs", test_cq_128b },
		{ "CQ requester retires a run", test_cq_retire_run },
		{ "16-bit WQE counter wrap", test_counter_wrap },
		{ "CQ responder CQEs", test_cq_responder },
		{ "CQ error CQE and flushes", test_cq_error_and_flush },
		{ "flushes of multi-WQEBB unsignaled WQEs", test_cq_flush_walk },
		{ "syndrome to status", test_syndromes },
		{ "CQ shared by two QPs", test_cq_multi_qp },
		{ "CQ QP table: collisions, detach, limits", test_cq_qp_table },
		{ "backend poll op: work, then the general poll", test_progress_hook },
		{ "device thread completing concurrently", test_concurrent_device },
		{ "fast/general WRs mixed in one burst", test_fast_general_mix },
		{ "random bursts vs an independent reference", test_random_bursts },
		{ NULL, NULL },
	};

	return rdx_ut_run("mlx5_dp", cases, suite_init, suite_fini);
}
