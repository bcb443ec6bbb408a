/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the software device engine (drivers/mlx5/sw/sw_engine.c),
 * driven directly: the test builds WQEs in the model's rings with the
 * mlx5dv.h layouts, rings doorbells and reads CQEs itself, so the model is
 * checked independently of the mlx5 datapath: wrap-around, doorbell rules,
 * malformed WQEs, CQE fields and owner bits, RQ terminators, sizing.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rdx_ut.h"
#include "../../../drivers/mlx5/sw/sw_engine.c"

static struct sw_engine eng;

struct tcq {
	int slot;
	struct mlx5dv_cq dv;
	uint32_t ci;
};

struct tqp {
	struct sw_lqp *q;
	struct mlx5dv_qp dv;
	uint32_t pi;      /* WQEBB producer counter */
	uint32_t bf;      /* BlueFlame half offset */
	uint32_t rq_head;
	uint32_t last;    /* position of the last WQE built */
};

static void
cq_make(struct tcq *c, uint32_t depth)
{
	memset(c, 0, sizeof(*c));
	c->slot = sw_cq_create(&eng, depth, &c->dv);
	CU_ASSERT_FATAL(c->slot >= 0);
}

/* One CQE if present (ownership rule of cq.c); updates the CI dbrec. */
static bool
cq_get(struct tcq *c, struct mlx5_cqe64 *out)
{
	uint8_t *cqe = (uint8_t *)c->dv.buf + (size_t)(c->ci & (c->dv.cqe_cnt - 1)) * 64;
	uint8_t op_own = __atomic_load_n(&cqe[63], __ATOMIC_ACQUIRE);

	if ((op_own >> 4) == MLX5_CQE_INVALID ||
	    (op_own & 1) != ((c->ci / c->dv.cqe_cnt) & 1))
		return false;
	memcpy(out, cqe, 64);
	c->ci++;
	c->dv.dbrec[0] = htobe32(c->ci & 0xffffff);
	return true;
}

static void
qp_make(struct tqp *t, struct tcq *c, uint32_t sq_depth, uint32_t rq_depth,
	uint32_t max_inline)
{
	struct sw_qp_params p = {
		.sq_depth = sq_depth, .rq_depth = rq_depth, .max_send_sge = 4,
		.max_recv_sge = 4, .max_inline = max_inline, .send_cq = c->slot,
		.recv_cq = c->slot,
	};

	memset(t, 0, sizeof(*t));
	t->q = sw_qp_create(&eng, &p, &t->dv);
	CU_ASSERT_FATAL(t->q != NULL);
}

static void
qp_connect(struct tqp *a, struct tqp *b)
{
	CU_ASSERT_FATAL(sw_qp_connect(&eng, a->q, eng.self->name, b->q->s->qpn, 2, 1, 3, 14) == 0);
	CU_ASSERT_FATAL(sw_qp_connect(&eng, b->q, eng.self->name, a->q->s->qpn, 2, 1, 3, 14) == 0);
}

/* Byte off of the WQE starting at WQEBB pos, wrapping at the ring end. */
static void
put(struct tqp *t, uint32_t pos, uint32_t off, const void *src, uint32_t len)
{
	uint32_t ring = t->dv.sq.wqe_cnt * 64;
	uint32_t at = ((pos & (t->dv.sq.wqe_cnt - 1)) * 64 + off) % ring;
	uint32_t first = RTE_MIN(len, ring - at);

	memcpy((uint8_t *)t->dv.sq.buf + at, src, first);
	memcpy(t->dv.sq.buf, (const uint8_t *)src + first, len - first);
}

static void
ctrl(struct tqp *t, uint8_t opcode, uint32_t ds, uint8_t fm, uint32_t imm_raw)
{
	struct mlx5_wqe_ctrl_seg c;

	memset(&c, 0, sizeof(c));
	c.opmod_idx_opcode = htobe32((t->pi & 0xffff) << 8 | opcode);
	c.qpn_ds = htobe32(t->q->s->qpn << 8 | ds);
	c.fm_ce_se = fm;
	c.imm = imm_raw;
	put(t, t->pi, 0, &c, 16);
	t->last = t->pi;
	t->pi += (ds + 3) / 4;
}

static void
raddr(struct tqp *t, uint32_t pos, uint64_t addr, uint32_t rkey)
{
	struct mlx5_wqe_raddr_seg r = { .raddr = htobe64(addr), .rkey = htobe32(rkey) };

	put(t, pos, 16, &r, 16);
}

static void
dseg(struct tqp *t, uint32_t pos, uint32_t off, uint64_t addr, uint32_t len, uint32_t lkey)
{
	struct mlx5_wqe_data_seg d;

	mlx5dv_set_data_seg(&d, len, lkey, (uintptr_t)addr);
	put(t, pos, off, &d, 16);
}

/* Doorbell record, then an 8-byte doorbell with the last WQE's ctrl. */
static void
ring(struct tqp *t)
{
	uint8_t c[8];

	t->dv.dbrec[MLX5_SND_DBR] = htobe32(t->pi & 0xffff);
	memcpy(c, (uint8_t *)t->dv.sq.buf + (t->last & (t->dv.sq.wqe_cnt - 1)) * 64, 8);
	memcpy((uint8_t *)t->dv.bf.reg + t->bf, c, 8);
	t->bf ^= t->dv.bf.size;
}

static uint8_t *
mem(uint64_t len, int access, uint32_t *key)
{
	uint64_t off = sw_shm_alloc(eng.self, len, false);
	uint8_t *p = eng.self->base + off;

	CU_ASSERT_FATAL(off != 0);
	*key = sw_mr_add(eng.self, SW_MR_SHM, (uint64_t)(uintptr_t)p, len, off, 0, access,
			 eng.pid);
	CU_ASSERT_FATAL(*key != 0);
	return p;
}

static void
test_calc_send_wqe(void)
{
	uint32_t w, inl;

	CU_ASSERT(sw_calc_send_wqe(4, 0, &w, &inl) == 0);
	CU_ASSERT_EQUAL(w, 256);
	CU_ASSERT_EQUAL(inl, 60);
	CU_ASSERT(sw_calc_send_wqe(4, 64, &w, &inl) == 0);
	CU_ASSERT_EQUAL(w, 320);
	CU_ASSERT_EQUAL(inl, 124);
	CU_ASSERT(sw_calc_send_wqe(16, 0, &w, &inl) == 0);
	CU_ASSERT_EQUAL(w, 448);
	CU_ASSERT_EQUAL(inl, 252);
	CU_ASSERT(sw_calc_send_wqe(1, 316, &w, &inl) == 0);
	CU_ASSERT_EQUAL(w, 512);
	CU_ASSERT(sw_calc_send_wqe(1, 317, &w, &inl) == -EINVAL);
	CU_ASSERT(sw_calc_send_wqe(0, 0, &w, &inl) == 0);
	CU_ASSERT_EQUAL(w, 256);
	CU_ASSERT_EQUAL(inl, 60);
	CU_ASSERT(sw_calc_send_wqe(17, 0, &w, &inl) == -EINVAL);
}

/* Inline WRITEs whose bytes split at the SQ end; owner bits over CQ laps. */
static void
test_wrap_and_owner(void)
{
	struct tcq c;
	struct tqp a, b;
	struct mlx5_cqe64 cqe;
	uint32_t key, i, it;
	uint8_t *m, src[100];

	cq_make(&c, 1); /* 2 CQEs: the owner bit flips every 2 */
	CU_ASSERT_EQUAL(c.dv.cqe_cnt, 2);
	qp_make(&a, &c, 1, 0, 100);
	qp_make(&b, &c, 1, 0, 0);
	qp_connect(&a, &b);
	m = mem(4096, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE, &key);
	for (it = 0; it < 9; it++) {
		uint32_t hdr = htobe32(100 | MLX5_INLINE_SEG);

		for (i = 0; i < 100; i++)
			src[i] = (uint8_t)(it * 13 + i);
		/* ctrl + raddr + inline(4 + 100) = 136 B: DS 9, 3 WQEBBs */
		ctrl(&a, MLX5_OPCODE_RDMA_WRITE, 9, MLX5_WQE_CTRL_CQ_UPDATE, 0);
		raddr(&a, a.last, (uintptr_t)m + it * 100, key);
		put(&a, a.last, 32, &hdr, 4);
		put(&a, a.last, 36, src, 100);
		ring(&a);
		CU_ASSERT(sw_engine_progress(&eng) == 1);
		CU_ASSERT_FATAL(cq_get(&c, &cqe));
		CU_ASSERT_EQUAL(cqe.op_own >> 4, MLX5_CQE_REQ);
		CU_ASSERT_EQUAL(cqe.op_own & 1, ((c.ci - 1) / 2) & 1);
		CU_ASSERT_EQUAL(be16toh(cqe.wqe_counter), a.last & 0xffff);
		CU_ASSERT_EQUAL(be32toh(cqe.sop_drop_qpn),
				(uint32_t)MLX5_OPCODE_RDMA_WRITE << 24 | a.q->s->qpn);
		CU_ASSERT(memcmp(m + it * 100, src, 100) == 0);
		CU_ASSERT_FALSE(cq_get(&c, &cqe));
	}
	/* the ring (4 WQEBBs for one 320-B WQE... rounded) wrapped */
	CU_ASSERT(a.pi > a.dv.sq.wqe_cnt);
	CU_ASSERT_EQUAL(eng.device_errors, 0);
	sw_qp_destroy(&eng, a.q);
	sw_qp_destroy(&eng, b.q);
	sw_cq_destroy(&eng, c.slot);
}

/* No doorbell, no execution; a doorbell in the wrong half, a BlueFlame
 * copy that differs from the ring, and a bad idx are device errors. */
static void
test_doorbell_rules(void)
{
	struct mlx5_cqe64 cqe;
	struct mlx5_err_cqe *e = (struct mlx5_err_cqe *)&cqe;
	uint64_t errs = eng.device_errors;
	struct tqp a, b;
	struct tcq c;
	uint8_t bfc[64];

	cq_make(&c, 64);
	qp_make(&a, &c, 16, 0, 0);
	qp_make(&b, &c, 16, 0, 0);
	qp_connect(&a, &b);
	ctrl(&a, MLX5_OPCODE_NOP, 1, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	a.dv.dbrec[MLX5_SND_DBR] = htobe32(a.pi & 0xffff);
	CU_ASSERT_EQUAL(sw_engine_progress(&eng), 0);
	CU_ASSERT_FALSE(cq_get(&c, &cqe));
	memcpy((uint8_t *)a.dv.bf.reg, a.dv.sq.buf, 8);
	a.bf ^= a.dv.bf.size;
	CU_ASSERT_EQUAL(sw_engine_progress(&eng), 1);
	CU_ASSERT(cq_get(&c, &cqe));
	CU_ASSERT_EQUAL(eng.device_errors, errs);
	/* the half was cleared after use */
	CU_ASSERT_EQUAL(((uint8_t *)a.dv.bf.reg)[0], 0);
	/* wrong half: counted, still executed */
	ctrl(&a, MLX5_OPCODE_NOP, 1, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	a.bf ^= a.dv.bf.size;
	ring(&a);
	CU_ASSERT_EQUAL(sw_engine_progress(&eng), 1);
	CU_ASSERT(cq_get(&c, &cqe));
	CU_ASSERT_EQUAL(eng.device_errors, errs + 1);
	/* a BlueFlame copy that does not match the ring */
	ctrl(&a, MLX5_OPCODE_NOP, 1, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	a.dv.dbrec[MLX5_SND_DBR] = htobe32(a.pi & 0xffff);
	memcpy(bfc, (uint8_t *)a.dv.sq.buf + (a.last & (a.dv.sq.wqe_cnt - 1)) * 64, 64);
	bfc[11] ^= MLX5_WQE_CTRL_SOLICITED; /* fm_ce_se differs */
	memcpy((uint8_t *)a.dv.bf.reg + a.bf, bfc, 64);
	a.bf ^= a.dv.bf.size;
	CU_ASSERT_EQUAL(sw_engine_progress(&eng), 1);
	CU_ASSERT(cq_get(&c, &cqe));
	CU_ASSERT_EQUAL(eng.device_errors, errs + 2);
	/* bad idx: LOCAL_QP_OP error, then every later WQE flushed */
	ctrl(&a, MLX5_OPCODE_NOP, 1, 0, 0);
	put(&a, a.last, 1, "\x77", 1); /* idx high byte */
	ctrl(&a, MLX5_OPCODE_NOP, 1, 0, 0);
	ctrl(&a, MLX5_OPCODE_NOP, 1, 0, 0);
	ring(&a);
	sw_engine_progress(&eng);
	CU_ASSERT_EQUAL(eng.device_errors, errs + 3);
	CU_ASSERT_FATAL(cq_get(&c, &cqe));
	CU_ASSERT_EQUAL(cqe.op_own >> 4, MLX5_CQE_REQ_ERR);
	CU_ASSERT_EQUAL(e->syndrome, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
	CU_ASSERT_EQUAL(be16toh(e->wqe_counter), (a.pi - 3) & 0xffff);
	CU_ASSERT_EQUAL(be32toh(e->s_wqe_opcode_qpn) & 0xffffff, a.q->s->qpn);
	CU_ASSERT_FATAL(cq_get(&c, &cqe));
	CU_ASSERT_EQUAL(e->syndrome, MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
	CU_ASSERT_EQUAL(be16toh(e->wqe_counter), (a.pi - 2) & 0xffff);
	CU_ASSERT_FATAL(cq_get(&c, &cqe));
	CU_ASSERT_EQUAL(e->syndrome, MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
	CU_ASSERT_EQUAL(be16toh(e->wqe_counter), (a.pi - 1) & 0xffff);
	CU_ASSERT_FALSE(cq_get(&c, &cqe));
	CU_ASSERT_EQUAL(a.q->s->state, RDX_SW_QPS_ERR);
	sw_qp_destroy(&eng, a.q);
	sw_qp_destroy(&eng, b.q);
	sw_cq_destroy(&eng, c.slot);
}

/* Each malformed WQE fails with LOCAL_QP_OP_ERR on a fresh QP. */
static void
check_malformed(void (*build)(struct tqp *, uint32_t, uint8_t *), const char *name)
{
	struct mlx5_cqe64 cqe;
	struct mlx5_err_cqe *e = (struct mlx5_err_cqe *)&cqe;
	uint64_t errs = eng.device_errors;
	struct tqp a, b;
	struct tcq c;
	uint32_t key;
	uint8_t *m;

	cq_make(&c, 16);
	qp_make(&a, &c, 4, 4, 32);
	qp_make(&b, &c, 4, 4, 0);
	qp_connect(&a, &b);
	m = mem(4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC, &key);
	build(&a, key, m);
	ring(&a);
	sw_engine_progress(&eng);
	CU_ASSERT_FATAL(cq_get(&c, &cqe));
	if (e->syndrome != MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR)
		fprintf(stderr, "%s: syndrome 0x%x\n", name, e->syndrome);
	CU_ASSERT_EQUAL(cqe.op_own >> 4, MLX5_CQE_REQ_ERR);
	CU_ASSERT_EQUAL(e->syndrome, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
	CU_ASSERT_EQUAL(eng.device_errors, errs + 1);
	sw_qp_destroy(&eng, a.q);
	sw_qp_destroy(&eng, b.q);
	sw_cq_destroy(&eng, c.slot);
}

static void
bad_opcode(struct tqp *a, uint32_t key, uint8_t *m)
{
	ctrl(a, 0x33, 1, 0, 0);
}

static void
bad_nop_ds(struct tqp *a, uint32_t key, uint8_t *m)
{
	ctrl(a, MLX5_OPCODE_NOP, 2, 0, 0);
}

static void
bad_inline_len(struct tqp *a, uint32_t key, uint8_t *m)
{
	uint32_t hdr = htobe32(100 | MLX5_INLINE_SEG); /* max_inline is 60 */

	ctrl(a, MLX5_OPCODE_RDMA_WRITE, 2 + 7, 0, 0);
	raddr(a, a->last, (uintptr_t)m, key);
	put(a, a->last, 32, &hdr, 4);
}

static void
bad_inline_ds(struct tqp *a, uint32_t key, uint8_t *m)
{
	uint32_t hdr = htobe32(40 | MLX5_INLINE_SEG); /* needs DS 2 + 3 */

	ctrl(a, MLX5_OPCODE_RDMA_WRITE, 3, 0, 0);
	raddr(a, a->last, (uintptr_t)m, key);
	put(a, a->last, 32, &hdr, 4);
}

static void
bad_zero_sge(struct tqp *a, uint32_t key, uint8_t *m)
{
	ctrl(a, MLX5_OPCODE_RDMA_WRITE, 3, 0, 0);
	raddr(a, a->last, (uintptr_t)m, key);
	dseg(a, a->last, 32, (uintptr_t)m, 0, key);
}

static void
bad_atomic_ds(struct tqp *a, uint32_t key, uint8_t *m)
{
	ctrl(a, MLX5_OPCODE_ATOMIC_FA, 3, 0, 0);
	raddr(a, a->last, (uintptr_t)m, key);
}

static void
bad_atomic_len(struct tqp *a, uint32_t key, uint8_t *m)
{
	ctrl(a, MLX5_OPCODE_ATOMIC_FA, 4, 0, 0);
	raddr(a, a->last, (uintptr_t)m, key);
	dseg(a, a->last, 48, (uintptr_t)m + 64, 16, key);
}

static void
bad_opmod(struct tqp *a, uint32_t key, uint8_t *m)
{
	ctrl(a, MLX5_OPCODE_NOP, 1, 0, 0);
	put(a, a->last, 0, "\x09", 1); /* opmod of a masked 8-byte atomic */
}

static void
test_malformed(void)
{
	check_malformed(bad_opcode, "opcode");
	check_malformed(bad_nop_ds, "nop ds");
	check_malformed(bad_inline_len, "inline len");
	check_malformed(bad_inline_ds, "inline ds");
	check_malformed(bad_zero_sge, "zero sge");
	check_malformed(bad_atomic_ds, "atomic ds");
	check_malformed(bad_atomic_len, "atomic len");
	check_malformed(bad_opmod, "opmod");
}

/* SEND into an RQ WQE with a terminator; responder CQE fields; an
 * unsignaled success makes no CQE, an unsignaled failure does. */
static void
test_send_fields(void)
{
	struct mlx5_cqe64 cqe;
	struct mlx5_err_cqe *e = (struct mlx5_err_cqe *)&cqe;
	struct mlx5_wqe_data_seg *r;
	struct tqp a, b;
	struct tcq c;
	uint32_t key, imm = htobe32(0xabcdef01);
	uint8_t *m;

	cq_make(&c, 16);
	qp_make(&a, &c, 4, 4, 0);
	qp_make(&b, &c, 4, 4, 0);
	qp_connect(&a, &b);
	m = mem(4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, &key);
	memset(m, 0x42, 64);
	/* RQ WQE 0: one SGE then a terminator, garbage after it */
	r = (struct mlx5_wqe_data_seg *)b.dv.rq.buf;
	mlx5dv_set_data_seg(&r[0], 100, key, (uintptr_t)m + 1000);
	mlx5dv_set_data_seg(&r[1], 0, MLX5_INVALID_LKEY, 0);
	mlx5dv_set_data_seg(&r[2], 100, 0xdead, 0x1234);
	b.dv.dbrec[MLX5_RCV_DBR] = htobe32(1);
	/* unsignaled SEND_IMM of 64 bytes, solicited */
	ctrl(&a, MLX5_OPCODE_SEND_IMM, 2, MLX5_WQE_CTRL_SOLICITED, imm);
	dseg(&a, a.last, 16, (uintptr_t)m, 64, key);
	ring(&a);
	CU_ASSERT_EQUAL(sw_engine_progress(&eng), 1);
	CU_ASSERT_FATAL(cq_get(&c, &cqe));
	CU_ASSERT_EQUAL(cqe.op_own >> 4, MLX5_CQE_RESP_SEND_IMM);
	CU_ASSERT_EQUAL(cqe.op_own & 2, 2); /* solicited */
	CU_ASSERT_EQUAL(be32toh(cqe.byte_cnt), 64);
	CU_ASSERT_EQUAL(cqe.imm_inval_pkey, imm);
	CU_ASSERT_EQUAL(be16toh(cqe.wqe_counter), 0);
	CU_ASSERT_EQUAL(be32toh(cqe.sop_drop_qpn) & 0xffffff, b.q->s->qpn);
	CU_ASSERT_EQUAL(be32toh(cqe.flags_rqpn) & 0xffffff, a.q->s->qpn);
	CU_ASSERT(memcmp(m + 1000, m, 64) == 0);
	CU_ASSERT_FALSE(cq_get(&c, &cqe)); /* unsignaled: no REQ CQE */
	/* unsignaled WRITE with a bad rkey: error CQE anyway, peer to ERR */
	ctrl(&a, MLX5_OPCODE_RDMA_WRITE, 3, 0, 0);
	raddr(&a, a.last, (uintptr_t)m, key + 1);
	dseg(&a, a.last, 32, (uintptr_t)m, 8, key);
	ring(&a);
	sw_engine_progress(&eng);
	CU_ASSERT_FATAL(cq_get(&c, &cqe));
	CU_ASSERT_EQUAL(cqe.op_own >> 4, MLX5_CQE_REQ_ERR);
	CU_ASSERT_EQUAL(e->syndrome, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR);
	CU_ASSERT_EQUAL(b.q->s->state, RDX_SW_QPS_ERR);
	sw_qp_destroy(&eng, a.q);
	sw_qp_destroy(&eng, b.q);
	sw_cq_destroy(&eng, c.slot);
}

/* Hot set: with 1024 live QPs and one busy, a cold QP's doorbell still
 * executes within SW_FULL_EVERY polls; with the hot set idle, in the next
 * poll; a destroyed hot QP leaves the set. */
#define HOT_NB_QP 1024

static void
test_hot_set(void)
{
	static struct tqp t[HOT_NB_QP];
	struct mlx5_cqe64 cqe;
	struct tcq hc, cc;
	uint32_t i, polls;
	bool got = false;

	cq_make(&hc, 64);
	cq_make(&cc, 64);
	qp_make(&t[0], &hc, 4, 0, 0);
	for (i = 1; i < HOT_NB_QP; i++)
		qp_make(&t[i], &cc, 4, 0, 0);
	for (i = 0; i < HOT_NB_QP; i += 2)
		qp_connect(&t[i], &t[i + 1]);
	/* make t[0] hot */
	ctrl(&t[0], MLX5_OPCODE_NOP, 1, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	ring(&t[0]);
	CU_ASSERT_EQUAL(sw_engine_progress(&eng), 1);
	CU_ASSERT(cq_get(&hc, &cqe));
	/* a cold doorbell while the hot QP has work at every poll */
	ctrl(&t[HOT_NB_QP - 7], MLX5_OPCODE_NOP, 1, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	ring(&t[HOT_NB_QP - 7]);
	for (polls = 1; polls <= SW_FULL_EVERY && !got; polls++) {
		ctrl(&t[0], MLX5_OPCODE_NOP, 1, MLX5_WQE_CTRL_CQ_UPDATE, 0);
		ring(&t[0]);
		CU_ASSERT(sw_engine_progress(&eng) >= 1);
		CU_ASSERT(cq_get(&hc, &cqe));
		got = cq_get(&cc, &cqe);
	}
	CU_ASSERT(got);
	CU_ASSERT_EQUAL(be32toh(cqe.sop_drop_qpn) & 0xffffff, t[HOT_NB_QP - 7].q->s->qpn);
	/* hot set idle: a cold doorbell runs in the next poll */
	ctrl(&t[HOT_NB_QP - 3], MLX5_OPCODE_NOP, 1, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	ring(&t[HOT_NB_QP - 3]);
	CU_ASSERT_EQUAL(sw_engine_progress(&eng), 1);
	CU_ASSERT_FATAL(cq_get(&cc, &cqe));
	CU_ASSERT_EQUAL(be32toh(cqe.sop_drop_qpn) & 0xffffff, t[HOT_NB_QP - 3].q->s->qpn);
	/* destroy removes the hot QP from the set */
	sw_qp_destroy(&eng, t[0].q);
	for (i = 0; i < SW_HOT; i++)
		CU_ASSERT_PTR_NOT_EQUAL(eng.hot[i], t[0].q);
	CU_ASSERT_EQUAL(sw_engine_progress(&eng), 0);
	for (i = 1; i < HOT_NB_QP; i++)
		sw_qp_destroy(&eng, t[i].q);
	CU_ASSERT_EQUAL(eng.nb_active, 0);
	sw_cq_destroy(&eng, hc.slot);
	sw_cq_destroy(&eng, cc.slot);
}

static int
suite_init(void)
{
	return sw_engine_init(&eng) == 0 ? 0 : -1;
}

static int
suite_fini(void)
{
	sw_engine_fini(&eng);
	return 0;
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "calc_send_wqe", test_calc_send_wqe },
		{ "wrap_and_owner", test_wrap_and_owner },
		{ "doorbell_rules", test_doorbell_rules },
		{ "malformed", test_malformed },
		{ "send_fields", test_send_fields },
		{ "hot_set", test_hot_set },
		{ NULL, NULL },
	};

	return rdx_ut_run("sw_engine", cases, suite_init, suite_fini);
}
