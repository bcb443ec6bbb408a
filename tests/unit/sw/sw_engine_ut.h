/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the tests that drive the software device's model directly
 * (sw_obj_ut, sw_exec_ut, sw_exec_ud_ut, sw_engine_ut): the test builds
 * WQEs in the model's rings with the mlx5dv.h layouts, rings doorbells and
 * reads CQEs itself, so the model is checked independently of the mlx5
 * datapath. Include after the model's sources (sw_obj.c, sw_exec.c,
 * sw_exec_ud.c, sw_engine.c): tests reach their static functions.
 */
#ifndef SW_ENGINE_UT_H
#define SW_ENGINE_UT_H

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "rdx_ut.h"
#include "sw_ut_poll.h"

#define SW_UT_HELPER static __attribute__((unused))

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

/* the model's "RQ WQEs consumed" counter (rdx_sw_stats.recv_wqes) */
SW_UT_HELPER uint64_t
recv_wqes_now(void)
{
	struct rdx_sw_stats st;

	sw_engine_stats(&eng, &st);
	return st.recv_wqes;
}

SW_UT_HELPER void
cq_make_e(struct sw_engine *en, struct tcq *c, uint32_t depth)
{
	memset(c, 0, sizeof(*c));
	c->slot = sw_cq_create(en, depth, &c->dv);
	CU_ASSERT_FATAL(c->slot >= 0);
}

SW_UT_HELPER void
cq_make(struct tcq *c, uint32_t depth)
{
	cq_make_e(&eng, c, depth);
}

/* One CQE if present (ownership rule of cq.c); updates the CI dbrec. */
SW_UT_HELPER bool
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

SW_UT_HELPER void
qp_make_e(struct sw_engine *en, struct tqp *t, struct tcq *c, uint32_t sq_depth,
	  uint32_t rq_depth, uint32_t max_inline)
{
	struct sw_qp_params p = {
		.sq_depth = sq_depth, .rq_depth = rq_depth, .max_send_sge = 4,
		.max_recv_sge = 4, .max_inline = max_inline, .send_cq = c->slot,
		.recv_cq = c->slot,
	};

	memset(t, 0, sizeof(*t));
	t->q = sw_qp_create(en, &p, &t->dv);
	CU_ASSERT_FATAL(t->q != NULL);
}

SW_UT_HELPER void
qp_make(struct tqp *t, struct tcq *c, uint32_t sq_depth, uint32_t rq_depth,
	uint32_t max_inline)
{
	qp_make_e(&eng, t, c, sq_depth, rq_depth, max_inline);
}

SW_UT_HELPER void
qp_connect(struct tqp *a, struct tqp *b)
{
	CU_ASSERT_FATAL(sw_qp_connect(&eng, a->q, eng.self->name, b->q->s->qpn, 2, 1, 3, 14) == 0);
	CU_ASSERT_FATAL(sw_qp_connect(&eng, b->q, eng.self->name, a->q->s->qpn, 2, 1, 3, 14) == 0);
}

/* Byte off of the WQE starting at WQEBB pos, wrapping at the ring end. */
SW_UT_HELPER void
put(struct tqp *t, uint32_t pos, uint32_t off, const void *src, uint32_t len)
{
	uint32_t ring = t->dv.sq.wqe_cnt * 64;
	uint32_t at = ((pos & (t->dv.sq.wqe_cnt - 1)) * 64 + off) % ring;
	uint32_t first = RTE_MIN(len, ring - at);

	memcpy((uint8_t *)t->dv.sq.buf + at, src, first);
	memcpy(t->dv.sq.buf, (const uint8_t *)src + first, len - first);
}

SW_UT_HELPER void
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

SW_UT_HELPER void
raddr(struct tqp *t, uint32_t pos, uint64_t addr, uint32_t rkey)
{
	struct mlx5_wqe_raddr_seg r = { .raddr = htobe64(addr), .rkey = htobe32(rkey) };

	put(t, pos, 16, &r, 16);
}

SW_UT_HELPER void
dseg(struct tqp *t, uint32_t pos, uint32_t off, uint64_t addr, uint32_t len, uint32_t lkey)
{
	struct mlx5_wqe_data_seg d;

	mlx5dv_set_data_seg(&d, len, lkey, (uintptr_t)addr);
	put(t, pos, off, &d, 16);
}

/* Doorbell record, then an 8-byte doorbell with the last WQE's ctrl. */
SW_UT_HELPER void
ring(struct tqp *t)
{
	uint8_t c[8];

	t->dv.dbrec[MLX5_SND_DBR] = htobe32(t->pi & 0xffff);
	memcpy(c, (uint8_t *)t->dv.sq.buf + (t->last & (t->dv.sq.wqe_cnt - 1)) * 64, 8);
	memcpy((uint8_t *)t->dv.bf.reg + t->bf, c, 8);
	t->bf ^= t->dv.bf.size;
}

SW_UT_HELPER uint8_t *
mem_e(struct sw_engine *en, uint64_t len, int access, uint32_t *key)
{
	uint64_t off = sw_shm_alloc(en->self, len, false);
	uint8_t *p = en->self->base + off;

	CU_ASSERT_FATAL(off != 0);
	*key = sw_mr_add(en->self, SW_MR_SHM, (uint64_t)(uintptr_t)p, len, off, 0, access,
			 en->pid);
	CU_ASSERT_FATAL(*key != 0);
	return p;
}

SW_UT_HELPER uint8_t *
mem(uint64_t len, int access, uint32_t *key)
{
	return mem_e(&eng, len, access, key);
}

SW_UT_HELPER int
suite_init(void)
{
	return sw_engine_init(&eng) == 0 ? 0 : -1;
}

SW_UT_HELPER int
suite_fini(void)
{
	sw_engine_fini(&eng);
	return 0;
}


#endif /* SW_ENGINE_UT_H */
