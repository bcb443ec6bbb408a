/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fake device of the mlx5 datapath tests (mlx5_obj_ut.c, mlx5_qp_ut.c,
 * mlx5_qp_ud_ut.c, mlx5_rq_ut.c, mlx5_qp_ring_ut.c, mlx5_cq_ut.c): rings in
 * plain memory, a fake SQ/RQ, doorbell records, a 2 x 256-byte BlueFlame
 * area and a CQ ring the tests write CQEs into themselves, following the
 * datapath/device contract.
 * Every expected WQE is built independently here with the mlx5dv.h helpers
 * (mlx5dv_set_ctrl_seg, mlx5dv_set_data_seg) and hand-filled
 * raddr/atomic/inline segments, never through the datapath. Each test
 * includes the datapath's .c files (through this header) to reach its
 * internals; helpers are static inline as not every test uses all of them.
 */
#ifndef MLX5_UT_FAKE_H
#define MLX5_UT_FAKE_H

#include <endian.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "rdx_ut.h"
#include "rdx_dev_driver.h"
#include "../../../drivers/mlx5/mlx5_obj.c"
#include "../../../drivers/mlx5/mlx5_qp.c"
#include "../../../drivers/mlx5/mlx5_rq.c"
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
	bool ud;                  /* RDX_QP_UD, messages up to UD_MTU */
};

/* The UD message limit of the fake device (its "path MTU"). */
#define UD_MTU 256u
static struct rdx_dev fake_dev = { .attr = { .name = "fake", .max_ud_msg = UD_MTU } };

static const struct qp_opts default_opts = {
	.sq_bb = 16, .rq_cnt = 8, .max_inline = 64, .max_send_sge = 4,
	.max_recv_sge = 4, .sig_interval = 1, .sig_burst_end = false,
	.bf_size = BF_HALF, .cqe_cnt = 16, .cqe_size = 64,
};

static inline void
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
	f->qp.base.dev = &fake_dev;
	f->qp.base.conf.type = o->ud ? RDX_QP_UD : RDX_QP_RC;
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

static inline void
fake_teardown(void)
{
	rdx_mlx5_cq_dp_fini(&f->cq_obj);
	rdx_mlx5_qp_dp_fini(&f->qp);
}

static inline struct rdx_qp *
qp(void)
{
	return &f->qp.base;
}

static inline struct rdx_cq *
cq(void)
{
	return &f->cq_obj.base;
}

/* Byte at DS-unit-aligned offset off of the WQE starting at WQEBB bb (wraps). */
static inline uint8_t
sq_byte(uint32_t bb, uint32_t off)
{
	return f->sq[(bb * 64 + off) % (f->sq_bb * 64)];
}

static inline int
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

static inline uint32_t
exp_ctrl(uint8_t *w, uint16_t idx, uint8_t opcode, uint8_t ds, uint8_t fm, uint32_t imm)
{
	struct mlx5_wqe_ctrl_seg *c = (struct mlx5_wqe_ctrl_seg *)(void *)w;

	memset(c, 0, sizeof(*c));
	mlx5dv_set_ctrl_seg(c, idx, opcode, 0, QPN, fm, ds, 0, imm);
	return 16;
}

static inline uint32_t
exp_raddr(uint8_t *w, uint64_t raddr, uint32_t rkey)
{
	struct mlx5_wqe_raddr_seg r;

	r.raddr = htobe64(raddr);
	r.rkey = htobe32(rkey);
	r.reserved = 0;
	memcpy(w, &r, sizeof(r));
	return 16;
}

/* Datagram segment: the AH's AV with the destination QPN (extended AV
 * flag) and Q_Key, through mlx5dv.h's struct (rdma-core set_datagram_seg). */
static inline uint32_t
exp_dgram(uint8_t *w, const struct mlx5_wqe_av *av, uint32_t dqpn, uint32_t qkey)
{
	struct mlx5_wqe_datagram_seg d;

	_Static_assert(sizeof(d) == 48, "datagram segment is 3 DS");
	d.av = *av;
	d.av.dqp_dct = htobe32(dqpn | MLX5_EXTENDED_UD_AV);
	d.av.key.qkey.qkey = htobe32(qkey);
	d.av.key.qkey.reserved = 0;
	memcpy(w, &d, sizeof(d));
	return 48;
}

/* An AH whose AV has every field set to something recognisable (the
 * device's Q_Key and QPN fields too: rdx_mlx5_ah_init must clear them,
 * exp_dgram sets them per WR). */
static inline void
fake_ah(struct rdx_mlx5_ah *ah, uint8_t seed)
{
	struct mlx5_wqe_av av;
	unsigned int k;

	memset(ah, 0, sizeof(*ah));
	memset(&av, 0, sizeof(av));
	ah->base.dev = &fake_dev;
	av.key.qkey.qkey = htobe32(0x99999999u);
	av.key.qkey.reserved = htobe32(0x5555u);
	av.dqp_dct = htobe32(0x00777777u);
	av.stat_rate_sl = (uint8_t)(0x30 | (seed & 0xf));
	av.fl_mlid = 0x80;                        /* GRH present */
	av.rlid = htobe16(0x1200 | seed);
	for (k = 0; k < 4; k++)
		av.reserved0[k] = (uint8_t)(0x11 * k + seed);
	for (k = 0; k < 6; k++)
		av.rmac[k] = (uint8_t)(0xa0 + k + seed);
	av.tclass = 0x20;
	av.hop_limit = 64;
	av.grh_gid_fl = htobe32(0x40000000u | seed); /* sgid index, flow label */
	for (k = 0; k < 16; k++)
		av.rgid[k] = (uint8_t)(0xf0 ^ (k * 13 + seed));
	rdx_mlx5_ah_init(ah, &av);
}

static inline uint32_t
exp_data(uint8_t *w, uint32_t len, uint32_t lkey, uint64_t addr)
{
	struct mlx5_wqe_data_seg d;

	mlx5dv_set_data_seg(&d, len, lkey, (uintptr_t)addr);
	memcpy(w, &d, sizeof(d));
	return 16;
}

static inline uint32_t
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

static inline struct mlx5_cqe64 *
cqe_slot(uint32_t pi)
{
	return (struct mlx5_cqe64 *)(void *)(f->cq + (pi & (f->cqe_cnt - 1)) * f->cqe_size +
				     f->cqe_size - 64);
}

static inline uint32_t
log2c(uint32_t v)
{
	uint32_t l = 0;

	while ((1u << l) < v)
		l++;
	return l;
}

static inline void
cqe_publish(struct mlx5_cqe64 *c, uint8_t opcode)
{
	uint8_t owner = (uint8_t)((f->cq_pi >> log2c(f->cqe_cnt)) & 1);

	__atomic_thread_fence(__ATOMIC_RELEASE);
	c->op_own = (uint8_t)(opcode << 4 | owner);
	f->cq_pi++;
}

static inline void
cqe_req(uint32_t qpn, uint16_t wqe_ctr, uint8_t wqe_opcode, uint32_t byte_cnt)
{
	struct mlx5_cqe64 *c = cqe_slot(f->cq_pi);

	memset(c, 0, 63);
	c->sop_drop_qpn = htobe32((uint32_t)wqe_opcode << 24 | qpn);
	c->wqe_counter = htobe16(wqe_ctr);
	c->byte_cnt = htobe32(byte_cnt);
	cqe_publish(c, MLX5_CQE_REQ);
}

static inline void
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

static inline void
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
static inline void
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

static inline uint16_t
post1(struct rdx_wr *wr)
{
	return rdx_qp_post_burst(qp(), wr, 1);
}

static uint8_t pay[512];

static inline void
init_pay(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(pay); i++)
		pay[i] = (uint8_t)(i * 7 + 3);
}


/* Move the SQ producer to WQEBB `to` with NOPs, completing them. */
static inline void
advance_to(uint32_t to)
{
	struct rdx_wr nop;

	memset(&nop, 0, sizeof(nop));
	while (f->qp.sq_cur_post < to) {
		CU_ASSERT_FATAL(post1(&nop) == 1);
		complete_all();
	}
}

static inline uint8_t
fm_of(uint32_t bb)
{
	return f->sq[(bb & (f->sq_bb - 1)) * 64 + 11];
}

static inline int
suite_init(void)
{
	f = aligned_alloc(64, sizeof(*f));
	init_pay();
	return f == NULL ? -1 : 0;
}

static inline int
suite_fini(void)
{
	free(f);
	return 0;
}

#endif /* MLX5_UT_FAKE_H */
