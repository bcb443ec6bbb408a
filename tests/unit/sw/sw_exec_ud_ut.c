/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of UD execution in the software device's model
 * (drivers/mlx5/sw/sw_exec_ud.c), driven directly with hand-built WQEs
 * (mlx5dv.h's ctrl, datagram and data segments; no datapath): the
 * datagram segment decoded (remote QPN, Q_Key, the route from rlid/rgid,
 * SL, flow label), the receive CQE's fields, malformed UD WQEs, a message
 * above the MTU, unknown destinations, the route hint falling back to the
 * GID, every byte of GRH area and message stored once in order (checked
 * through a destination that must equal the source), the receiver's
 * errors (a receive byte count of 0, a receive CQ overrun and recv_wqes).
 */
#include "../../../drivers/mlx5/sw/sw_obj.c"
#include "../../../drivers/mlx5/sw/sw_cq.c"
#include "../../../drivers/mlx5/sw/sw_mem.c"
#include "../../../drivers/mlx5/sw/sw_exec.c"
#include "../../../drivers/mlx5/sw/sw_exec_ud.c"
#include "../../../drivers/mlx5/sw/sw_engine.c"
#include "sw_engine_ut.h"

#define UQKEY 0x42u

static void
ud_make(struct tqp *t, struct tcq *c, uint32_t qkey, uint32_t max_inline)
{
	struct sw_qp_params p = {
		.sq_depth = 8, .rq_depth = 8, .max_send_sge = 4, .max_recv_sge = 4,
		.max_inline = max_inline, .send_cq = c->slot, .recv_cq = c->slot,
		.type = SW_QPT_UD, .qkey = qkey,
	};

	memset(t, 0, sizeof(*t));
	t->q = sw_qp_create(&eng, &p, &t->dv);
	CU_ASSERT_FATAL(t->q != NULL);
	CU_ASSERT_FATAL(sw_qp_ud_ready(&eng, t->q) == 0);
}

/* The datagram segment at byte 16 of the last WQE built. */
static void
dgram(struct tqp *t, uint32_t dqpn, uint32_t qkey, uint16_t rlid, const uint8_t *gid,
      uint8_t sl, uint32_t flow, bool grh)
{
	struct mlx5_wqe_datagram_seg d;

	memset(&d, 0, sizeof(d));
	d.av.key.qkey.qkey = htobe32(qkey);
	d.av.dqp_dct = htobe32(dqpn | MLX5_EXTENDED_UD_AV);
	d.av.stat_rate_sl = sl;
	d.av.rlid = htobe16(rlid);
	d.av.hop_limit = 9;
	d.av.tclass = 3;
	d.av.grh_gid_fl = htobe32((grh ? 1u << 30 : 0) | flow);
	memcpy(d.av.rgid, gid, 16);
	put(t, t->last, 16, &d, sizeof(d));
}

/* RQ WQE i of t: one SGE of len bytes at p, then a terminator. */
static void
rq_post(struct tqp *t, uint32_t i, uint8_t *p, uint32_t len, uint32_t key)
{
	struct mlx5_wqe_data_seg *r = (struct mlx5_wqe_data_seg *)(void *)
		((uint8_t *)t->dv.rq.buf + (size_t)(i & (t->dv.rq.wqe_cnt - 1)) * t->dv.rq.stride);

	mlx5dv_set_data_seg(&r[0], len, key, (uintptr_t)p);
	mlx5dv_set_data_seg(&r[1], 0, MLX5_INVALID_LKEY, 0);
	t->dv.dbrec[MLX5_RCV_DBR] = htobe32((i + 1) & 0xffff);
}

static void
test_ud_send_fields(void)
{
	struct mlx5_cqe64 cqe;
	struct tqp a, b;
	struct tcq c;
	uint32_t key, imm = htobe32(0x1020304);
	int route;
	uint8_t *m;

	cq_make(&c, 32);
	ud_make(&a, &c, 7, 0);
	ud_make(&b, &c, UQKEY, 0);
	route = sw_route_get(&eng, eng.self->gid);
	CU_ASSERT_FATAL(route >= 0);
	m = mem(16384, IBV_ACCESS_LOCAL_WRITE, &key);
	for (int i = 0; i < 3000; i++)
		m[i] = (uint8_t)(i * 13 + 1);
	memset(m + 4096, 0xee, 8192);
	rq_post(&b, 0, m + 4096, 4096 + 40, key);
	/* SEND_IMM, solicited, 3000 B in two data segments, signaled */
	ctrl(&a, MLX5_OPCODE_SEND_IMM, 6, MLX5_WQE_CTRL_SOLICITED | MLX5_WQE_CTRL_CQ_UPDATE,
	     imm);
	dgram(&a, b.q->qpn, UQKEY, (uint16_t)(route + 1), eng.self->gid, 5, 0xabcde, true);
	dseg(&a, a.last, 64, (uintptr_t)m, 1000, key);
	dseg(&a, a.last, 80, (uintptr_t)m + 1000, 2000, key);
	ring(&a);
	CU_ASSERT_EQUAL(sw_engine_progress(&eng), 1);
	/* the receive CQE first (delivered before the send completes) */
	CU_ASSERT_FATAL(cq_get(&c, &cqe));
	CU_ASSERT_EQUAL(cqe.op_own >> 4, MLX5_CQE_RESP_SEND_IMM);
	CU_ASSERT_EQUAL(cqe.op_own & 2, 2);
	CU_ASSERT_EQUAL(be32toh(cqe.byte_cnt), 40 + 3000);
	CU_ASSERT_EQUAL(cqe.imm_inval_pkey, imm);
	CU_ASSERT_EQUAL(be16toh(cqe.wqe_counter), 0);
	CU_ASSERT_EQUAL(be32toh(cqe.sop_drop_qpn) & 0xffffff, b.q->qpn);
	CU_ASSERT_EQUAL(be32toh(cqe.flags_rqpn) & 0xffffff, a.q->qpn);
	CU_ASSERT_EQUAL((be32toh(cqe.flags_rqpn) >> 24) & 0xf, 5);  /* SL */
	CU_ASSERT_EQUAL((be32toh(cqe.flags_rqpn) >> 28) & 3, 1);    /* GRH */
	CU_ASSERT_EQUAL(cqe.slid, 0);
	/* GRH: version, traffic class, flow label, PayLen, NxtHdr, HopLmt */
	CU_ASSERT_EQUAL(be32toh(*(uint32_t *)(void *)(m + 4096)),
			6u << 28 | 3u << 20 | 0xabcde);
	CU_ASSERT_EQUAL(be16toh(*(uint16_t *)(void *)(m + 4100)), 12 + 8 + 4 + 3000 + 4);
	CU_ASSERT_EQUAL(m[4096 + 6], 0x1b);
	CU_ASSERT_EQUAL(m[4096 + 7], 9);
	CU_ASSERT(memcmp(m + 4096 + 8, eng.self->gid, 16) == 0);
	CU_ASSERT(memcmp(m + 4096 + 24, eng.self->gid, 16) == 0);
	CU_ASSERT(memcmp(m + 4096 + 40, m, 3000) == 0);
	CU_ASSERT_EQUAL(m[4096 + 40 + 3000], 0xee);
	CU_ASSERT_FATAL(cq_get(&c, &cqe));
	CU_ASSERT_EQUAL(cqe.op_own >> 4, MLX5_CQE_REQ);
	CU_ASSERT_EQUAL(be32toh(cqe.byte_cnt), 3000);
	CU_ASSERT_FALSE(cq_get(&c, &cqe));
	/* rlid 0 (no hint): the route is found by the GID; inline payload */
	rq_post(&b, 1, m + 8192, 200, key);
	{
		uint8_t inl[16] = { 0 };
		uint32_t h = htobe32(5 | MLX5_INLINE_SEG);

		memcpy(inl, &h, 4);
		memcpy(inl + 4, "hello", 5);
		ctrl(&a, MLX5_OPCODE_SEND, 5, 0, 0);
		dgram(&a, b.q->qpn, UQKEY, 0, eng.self->gid, 0, 0, true);
		put(&a, a.last, 64, inl, 16);
	}
	ring(&a);
	CU_ASSERT_EQUAL(sw_engine_progress(&eng), 1);
	CU_ASSERT_FATAL(cq_get(&c, &cqe));
	CU_ASSERT_EQUAL(cqe.op_own >> 4, MLX5_CQE_RESP_SEND);
	CU_ASSERT_EQUAL(be32toh(cqe.byte_cnt), 45);
	CU_ASSERT_EQUAL(be16toh(cqe.wqe_counter), 1);
	CU_ASSERT(memcmp(m + 8192 + 40, "hello", 5) == 0);
	CU_ASSERT_FALSE(cq_get(&c, &cqe)); /* unsignaled */
	CU_ASSERT_EQUAL(a.q->ud_sent, 2);
	CU_ASSERT_EQUAL(b.q->s->ud_recv, 2);
	sw_route_put(&eng, route);
	sw_qp_destroy(&eng, a.q);
	sw_qp_destroy(&eng, b.q);
	sw_cq_destroy(&eng, c.slot);
}

/* Malformed UD WQEs: LOCAL_QP_OP (0x02) and a device error each. */
static void
check_bad(int which)
{
	static const uint8_t nogid[16] = { 0 };
	struct mlx5_cqe64 cqe;
	struct mlx5_err_cqe *e = (struct mlx5_err_cqe *)&cqe;
	uint64_t errs = eng.device_errors;
	struct tqp a;
	struct tcq c;
	uint32_t key;
	uint8_t *m;

	cq_make(&c, 16);
	ud_make(&a, &c, 7, 0);
	m = mem(4096, IBV_ACCESS_LOCAL_WRITE, &key);
	switch (which) {
	case 0: /* no room for the datagram segment */
		ctrl(&a, MLX5_OPCODE_SEND, 3, MLX5_WQE_CTRL_CQ_UPDATE, 0);
		break;
	case 1: /* RDMA WRITE on UD */
		ctrl(&a, MLX5_OPCODE_RDMA_WRITE, 3, MLX5_WQE_CTRL_CQ_UPDATE, 0);
		raddr(&a, a.last, (uintptr_t)m, key);
		dseg(&a, a.last, 32, (uintptr_t)m, 8, key);
		break;
	case 2: /* reserved bits of dqp_dct */
		ctrl(&a, MLX5_OPCODE_SEND, 5, MLX5_WQE_CTRL_CQ_UPDATE, 0);
		dgram(&a, 0x1000000 | a.q->qpn, 7, 0, nogid, 0, 0, true);
		dseg(&a, a.last, 64, (uintptr_t)m, 8, key);
		break;
	case 3: /* no GRH on a RoCE port */
		ctrl(&a, MLX5_OPCODE_SEND, 5, MLX5_WQE_CTRL_CQ_UPDATE, 0);
		dgram(&a, a.q->qpn, 7, 0, nogid, 0, 0, false);
		dseg(&a, a.last, 64, (uintptr_t)m, 8, key);
		break;
	default: /* atomic */
		ctrl(&a, MLX5_OPCODE_ATOMIC_FA, 4, MLX5_WQE_CTRL_CQ_UPDATE, 0);
		break;
	}
	ring(&a);
	sw_engine_progress(&eng);
	CU_ASSERT_FATAL(cq_get(&c, &cqe));
	CU_ASSERT_EQUAL(cqe.op_own >> 4, MLX5_CQE_REQ_ERR);
	CU_ASSERT_EQUAL(e->syndrome, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
	CU_ASSERT_EQUAL(eng.device_errors, errs + 1);
	CU_ASSERT_EQUAL(a.q->s->state, RDX_SW_QPS_ERR);
	sw_qp_destroy(&eng, a.q);
	sw_cq_destroy(&eng, c.slot);
}

static void
test_ud_malformed(void)
{
	int i;

	for (i = 0; i < 5; i++)
		check_bad(i);
}

/* Above the MTU: LOCAL_LENGTH (0x01) at the sender, nothing delivered. An
 * unknown GID or QPN: dropped (drop_dest), the send completes. */
struct lock_holder {
	uint32_t *m;
	volatile int state; /* 1: locked, 2: may unlock */
};

static void *
hold_lock(void *arg)
{
	struct lock_holder *h = arg;

	while (sw_qlock(h->m, getpid()) != 0)
		;
	__atomic_store_n(&h->state, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&h->state, __ATOMIC_ACQUIRE) != 2)
		usleep(1000);
	sw_qunlock(h->m);
	return NULL;
}

/* Progress calls for ms milliseconds. */
static void
progress_ms(uint64_t ms)
{
	const uint64_t end = now_ms() + ms;

	while (now_ms() < end)
		sw_engine_progress(&eng);
}

/*
 * The receiving CQ's lock is held (by a descheduled process, here a
 * thread) for 300 ms: the datagram waits at the head of the sender's SQ
 * and is delivered once the lock is free -- into the receive posted, the
 * send completed, nothing dropped, no device error. Before, after 100 ms
 * the datagram was dropped (drop_dest) although the receiver was only
 * slow. Held past SW_UD_LOCK_WAIT_NS (a receiver stopped for good): the
 * datagram is dropped and counted at the sender (drop_dest), the send
 * completes, the receiving QP stays ready, and the next datagram lands.
 */
static void
test_ud_cq_lock_busy(void)
{
	const uint64_t errs = eng.device_errors;
	struct lock_holder h = { 0 };
	struct mlx5_cqe64 cqe;
	struct tqp a, b;
	struct tcq ca, cb;
	pthread_t th;
	uint32_t key;
	int route;
	uint8_t *m;

	cq_make(&ca, 16);
	cq_make(&cb, 16);
	ud_make(&a, &ca, 7, 0);
	ud_make(&b, &cb, UQKEY, 0);
	route = sw_route_get(&eng, eng.self->gid);
	CU_ASSERT_FATAL(route >= 0);
	m = mem(16384, IBV_ACCESS_LOCAL_WRITE, &key);
	memcpy(m, "first.second", 12);
	rq_post(&b, 0, m + 8192, 4096, key);
	h.m = &eng.self->hdr->cqs[cb.slot].lock;
	CU_ASSERT_FATAL(pthread_create(&th, NULL, hold_lock, &h) == 0);
	while (__atomic_load_n(&h.state, __ATOMIC_ACQUIRE) != 1)
		usleep(1000);
	ctrl(&a, MLX5_OPCODE_SEND, 5, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	dgram(&a, b.q->qpn, UQKEY, (uint16_t)(route + 1), eng.self->gid, 0, 0, true);
	dseg(&a, a.last, 64, (uintptr_t)m, 5, key);
	ring(&a);
	progress_ms(300);
	CU_ASSERT_FALSE(cq_get(&ca, &cqe));
	CU_ASSERT_FALSE(cq_get(&cb, &cqe));
	CU_ASSERT(a.q->lock_wait);
	__atomic_store_n(&h.state, 2, __ATOMIC_RELEASE);
	CU_ASSERT_FATAL(pthread_join(th, NULL) == 0);
	progress_ms(20);
	CU_ASSERT(cq_get(&ca, &cqe) && cqe.op_own >> 4 == MLX5_CQE_REQ);
	CU_ASSERT(cq_get(&cb, &cqe) && cqe.op_own >> 4 == MLX5_CQE_RESP_SEND);
	CU_ASSERT_EQUAL(be32toh(cqe.byte_cnt), 40 + 5);
	CU_ASSERT(memcmp(m + 8192 + 40, "first", 5) == 0);
	CU_ASSERT_EQUAL(a.q->ud_drop_dest, 0);
	CU_ASSERT_EQUAL(a.q->ud_sent, 1);
	CU_ASSERT_EQUAL(b.q->s->ud_recv, 1);
	CU_ASSERT_EQUAL(__atomic_load_n(&b.q->s->state, __ATOMIC_RELAXED), RDX_SW_QPS_RTS);
	/* held past the UD bound: dropped, the next datagram lands */
	rq_post(&b, 1, m + 8192, 4096, key);
	h.state = 0;
	CU_ASSERT_FATAL(pthread_create(&th, NULL, hold_lock, &h) == 0);
	while (__atomic_load_n(&h.state, __ATOMIC_ACQUIRE) != 1)
		usleep(1000);
	ctrl(&a, MLX5_OPCODE_SEND, 5, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	dgram(&a, b.q->qpn, UQKEY, (uint16_t)(route + 1), eng.self->gid, 0, 0, true);
	dseg(&a, a.last, 64, (uintptr_t)m, 5, key);
	ring(&a);
	progress_ms(SW_UD_LOCK_WAIT_NS / 1000000 + 100);
	CU_ASSERT(cq_get(&ca, &cqe) && cqe.op_own >> 4 == MLX5_CQE_REQ); /* UD: it completes */
	CU_ASSERT_EQUAL(a.q->ud_drop_dest, 1);
	__atomic_store_n(&h.state, 2, __ATOMIC_RELEASE);
	CU_ASSERT_FATAL(pthread_join(th, NULL) == 0);
	CU_ASSERT_FALSE(cq_get(&cb, &cqe));
	CU_ASSERT_EQUAL(__atomic_load_n(&b.q->s->state, __ATOMIC_RELAXED), RDX_SW_QPS_RTS);
	ctrl(&a, MLX5_OPCODE_SEND, 5, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	dgram(&a, b.q->qpn, UQKEY, (uint16_t)(route + 1), eng.self->gid, 0, 0, true);
	dseg(&a, a.last, 64, (uintptr_t)m + 6, 6, key);
	ring(&a);
	CU_ASSERT_EQUAL(sw_engine_progress(&eng), 1);
	CU_ASSERT_FATAL(cq_get(&cb, &cqe));
	CU_ASSERT_EQUAL(cqe.op_own >> 4, MLX5_CQE_RESP_SEND);
	CU_ASSERT_EQUAL(be16toh(cqe.wqe_counter), 1);
	CU_ASSERT_EQUAL(be32toh(cqe.byte_cnt), 40 + 6);
	CU_ASSERT(memcmp(m + 8192 + 40, "second", 6) == 0);
	CU_ASSERT_EQUAL(b.q->s->ud_recv, 2);
	CU_ASSERT_EQUAL(eng.device_errors, errs);
	sw_route_put(&eng, route);
	sw_qp_destroy(&eng, a.q);
	sw_qp_destroy(&eng, b.q);
	sw_cq_destroy(&eng, ca.slot);
	sw_cq_destroy(&eng, cb.slot);
}

/*
 * The sender's own CQ lock held (the peer process that writes receive
 * CQEs into it descheduled): the datagram goes once, the send's CQE waits
 * and is written once the lock is free, and the sending QP stays ready.
 */
static void
test_ud_send_cq_lock_busy(void)
{
	struct lock_holder h = { 0 };
	struct mlx5_cqe64 cqe;
	struct tqp a, b;
	struct tcq ca, cb;
	pthread_t th;
	uint32_t key;
	int route;
	uint8_t *m;

	cq_make(&ca, 16);
	cq_make(&cb, 16);
	ud_make(&a, &ca, 7, 0);
	ud_make(&b, &cb, UQKEY, 0);
	route = sw_route_get(&eng, eng.self->gid);
	CU_ASSERT_FATAL(route >= 0);
	m = mem(16384, IBV_ACCESS_LOCAL_WRITE, &key);
	memcpy(m, "hello", 5);
	rq_post(&b, 0, m + 8192, 4096, key);
	rq_post(&b, 1, m + 12288, 4096, key);
	h.m = &eng.self->hdr->cqs[ca.slot].lock;
	CU_ASSERT_FATAL(pthread_create(&th, NULL, hold_lock, &h) == 0);
	while (__atomic_load_n(&h.state, __ATOMIC_ACQUIRE) != 1)
		usleep(1000);
	ctrl(&a, MLX5_OPCODE_SEND, 5, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	dgram(&a, b.q->qpn, UQKEY, (uint16_t)(route + 1), eng.self->gid, 0, 0, true);
	dseg(&a, a.last, 64, (uintptr_t)m, 5, key);
	ring(&a);
	sw_engine_progress(&eng);
	__atomic_store_n(&h.state, 2, __ATOMIC_RELEASE);
	CU_ASSERT_FATAL(pthread_join(th, NULL) == 0);
	CU_ASSERT_EQUAL(__atomic_load_n(&a.q->s->state, __ATOMIC_RELAXED), RDX_SW_QPS_RTS);
	CU_ASSERT_FALSE(cq_get(&ca, &cqe));
	CU_ASSERT_FATAL(cq_get(&cb, &cqe)); /* the datagram went */
	CU_ASSERT_EQUAL(be32toh(cqe.byte_cnt), 40 + 5);
	sw_engine_progress(&eng);
	CU_ASSERT_FATAL(cq_get(&ca, &cqe));
	CU_ASSERT_EQUAL(cqe.op_own >> 4, MLX5_CQE_REQ);
	CU_ASSERT_EQUAL(be32toh(cqe.byte_cnt), 5);
	CU_ASSERT_FALSE(cq_get(&ca, &cqe));
	CU_ASSERT_FALSE(cq_get(&cb, &cqe)); /* not sent twice */
	CU_ASSERT_EQUAL(a.q->ud_sent, 1);
	CU_ASSERT_EQUAL(b.q->s->ud_recv, 1);
	CU_ASSERT_EQUAL(__atomic_load_n(&a.q->s->state, __ATOMIC_RELAXED), RDX_SW_QPS_RTS);
	sw_route_put(&eng, route);
	sw_qp_destroy(&eng, a.q);
	sw_qp_destroy(&eng, b.q);
	sw_cq_destroy(&eng, ca.slot);
	sw_cq_destroy(&eng, cb.slot);
}

static void
test_ud_len_and_dest(void)
{
	uint8_t other[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x7f, 0xff, 0xff, 0xfe, 0, 0, 0, 1 };
	struct mlx5_cqe64 cqe;
	struct mlx5_err_cqe *e = (struct mlx5_err_cqe *)&cqe;
	struct tqp a, b;
	struct tcq c;
	uint32_t key;
	int route;
	uint8_t *m;

	cq_make(&c, 16);
	ud_make(&a, &c, 7, 0);
	ud_make(&b, &c, UQKEY, 0);
	route = sw_route_get(&eng, eng.self->gid);
	CU_ASSERT_FATAL(route >= 0);
	m = mem(16384, IBV_ACCESS_LOCAL_WRITE, &key);
	rq_post(&b, 0, m + 8192, 8192, key);
	/* unknown GID (no route), then an unknown QPN */
	ctrl(&a, MLX5_OPCODE_SEND, 5, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	dgram(&a, b.q->qpn, UQKEY, (uint16_t)(route + 1), other, 0, 0, true);
	dseg(&a, a.last, 64, (uintptr_t)m, 10, key);
	ctrl(&a, MLX5_OPCODE_SEND, 5, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	dgram(&a, 0xabcdef, UQKEY, (uint16_t)(route + 1), eng.self->gid, 0, 0, true);
	dseg(&a, a.last, 64, (uintptr_t)m, 10, key);
	ring(&a);
	CU_ASSERT_EQUAL(sw_engine_progress(&eng), 2);
	CU_ASSERT_FATAL(cq_get(&c, &cqe));
	CU_ASSERT_EQUAL(cqe.op_own >> 4, MLX5_CQE_REQ);
	CU_ASSERT_FATAL(cq_get(&c, &cqe));
	CU_ASSERT_EQUAL(cqe.op_own >> 4, MLX5_CQE_REQ);
	CU_ASSERT_FALSE(cq_get(&c, &cqe));
	CU_ASSERT_EQUAL(a.q->ud_drop_dest, 2);
	/* 4097 bytes */
	ctrl(&a, MLX5_OPCODE_SEND, 5, 0, 0);
	dgram(&a, b.q->qpn, UQKEY, (uint16_t)(route + 1), eng.self->gid, 0, 0, true);
	dseg(&a, a.last, 64, (uintptr_t)m, 4097, key);
	ring(&a);
	sw_engine_progress(&eng);
	CU_ASSERT_FATAL(cq_get(&c, &cqe));
	CU_ASSERT_EQUAL(cqe.op_own >> 4, MLX5_CQE_REQ_ERR);
	CU_ASSERT_EQUAL(e->syndrome, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
	CU_ASSERT_EQUAL(a.q->ud_too_long, 1);
	CU_ASSERT_EQUAL(a.q->s->state, RDX_SW_QPS_ERR);
	CU_ASSERT_EQUAL(b.q->s->ud_recv, 0);
	CU_ASSERT_FALSE(cq_get(&c, &cqe));
	sw_route_put(&eng, route);
	sw_qp_destroy(&eng, a.q);
	sw_qp_destroy(&eng, b.q);
	sw_cq_destroy(&eng, c.slot);
}

/* One signaled 5-byte datagram from a to b's QPN. */
static void
ud_send5(struct tqp *a, const struct tqp *b, int route, uint8_t *m, uint32_t key)
{
	ctrl(a, MLX5_OPCODE_SEND, 5, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	dgram(a, b->q->qpn, UQKEY, (uint16_t)(route + 1), eng.self->gid, 0, 0, true);
	dseg(a, a->last, 64, (uintptr_t)m, 5, key);
	ring(a);
}

/*
 * The receiving side's errors: a receive data segment of byte count 0
 * (not "empty" on mlx5) is refused with LOCAL_PROT (0x04), nothing
 * scattered; a receive whose CQE overruns the receive CQ stays posted, is
 * flushed and is not counted in recv_wqes ("RQ WQEs consumed").
 */
static void
test_ud_recv_errors(void)
{
	struct mlx5_cqe64 cqe;
	struct mlx5_err_cqe *e = (struct mlx5_err_cqe *)&cqe;
	struct mlx5_wqe_data_seg *r;
	struct tqp a, b;
	struct tcq ca, cb;
	uint32_t key, i, ok = 0, flushed = 0;
	uint64_t recv0;
	int route;
	uint8_t *m;

	cq_make(&ca, 16);
	cq_make(&cb, 16);
	ud_make(&a, &ca, 7, 0);
	ud_make(&b, &cb, UQKEY, 0);
	route = sw_route_get(&eng, eng.self->gid);
	CU_ASSERT_FATAL(route >= 0);
	m = mem(16384, IBV_ACCESS_LOCAL_WRITE, &key);
	memset(m + 4096, 0, 8192);
	memcpy(m, "hello", 5);
	/* {byte count 0, valid lkey}, {4096 B}, terminator */
	r = (struct mlx5_wqe_data_seg *)b.dv.rq.buf;
	mlx5dv_set_data_seg(&r[0], 0, key, (uintptr_t)m + 4096);
	mlx5dv_set_data_seg(&r[1], 4096, key, (uintptr_t)m + 8192);
	mlx5dv_set_data_seg(&r[2], 0, MLX5_INVALID_LKEY, 0);
	b.dv.dbrec[MLX5_RCV_DBR] = htobe32(1);
	recv0 = recv_wqes_now();
	ud_send5(&a, &b, route, m, key);
	sw_engine_progress(&eng);
	CU_ASSERT_FATAL(cq_get(&cb, &cqe));
	CU_ASSERT_EQUAL(cqe.op_own >> 4, MLX5_CQE_RESP_ERR);
	CU_ASSERT_EQUAL(e->syndrome, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	CU_ASSERT_EQUAL(be16toh(cqe.wqe_counter), 0);
	CU_ASSERT_EQUAL(b.q->s->state, RDX_SW_QPS_ERR);
	CU_ASSERT_EQUAL(b.q->s->ud_recv, 0);
	for (i = 0; i < 8192; i++)
		if (m[4096 + i] != 0)
			break;
	CU_ASSERT_EQUAL(i, 8192); /* no GRH, no payload, in either segment */
	CU_ASSERT_EQUAL(recv_wqes_now(), recv0 + 1);
	CU_ASSERT_FATAL(cq_get(&ca, &cqe));
	CU_ASSERT_EQUAL(cqe.op_own >> 4, MLX5_CQE_REQ); /* UD: the send completes */
	sw_qp_destroy(&eng, b.q);
	sw_cq_destroy(&eng, cb.slot);
	/* a receive CQ of 2 CQEs, 3 receives, 3 datagrams */
	cq_make(&cb, 1);
	CU_ASSERT_FATAL(cb.dv.cqe_cnt == 2);
	ud_make(&b, &cb, UQKEY, 0);
	for (i = 0; i < 3; i++)
		rq_post(&b, i, m + 4096 + 1024 * i, 1024, key);
	recv0 = recv_wqes_now();
	for (i = 0; i < 3; i++)
		ud_send5(&a, &b, route, m, key);
	for (i = 0; i < 4; i++)
		sw_engine_progress(&eng);
	while (cq_get(&cb, &cqe))
		ok += (cqe.op_own >> 4) == MLX5_CQE_RESP_SEND;
	CU_ASSERT_EQUAL(ok, 2);
	CU_ASSERT_EQUAL(b.q->s->ud_recv, 2);
	CU_ASSERT_EQUAL(b.q->s->state, RDX_SW_QPS_ERR);
	CU_ASSERT_EQUAL(recv_wqes_now(), recv0 + 2);
	for (i = 0; i < 4; i++)
		sw_engine_progress(&eng);
	while (cq_get(&cb, &cqe))
		flushed += (cqe.op_own >> 4) == MLX5_CQE_RESP_ERR &&
			   e->syndrome == MLX5_CQE_SYNDROME_WR_FLUSH_ERR;
	CU_ASSERT_EQUAL(flushed, 1);
	CU_ASSERT_EQUAL(recv_wqes_now(), recv0 + 2);
	while (cq_get(&ca, &cqe))
		;
	sw_route_put(&eng, route);
	sw_qp_destroy(&eng, a.q);
	sw_qp_destroy(&eng, b.q);
	sw_cq_destroy(&eng, ca.slot);
	sw_cq_destroy(&eng, cb.slot);
}

/* Routes: one per destination GID, refcounted, freed with the last AH; a
 * GID that names no sw segment is refused. */
static void
test_routes(void)
{
	uint8_t bad[16] = { 0x20, 0x01 };
	uint8_t gone[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x7f, 0xff, 0xff, 0xfe, 0, 0, 0, 9 };
	char name[SW_NAME_LEN];
	int r1, r2;

	CU_ASSERT_EQUAL(sw_gid_to_name(bad, name, sizeof(name)), -EINVAL);
	CU_ASSERT_EQUAL(sw_gid_to_name(eng.self->gid, name, sizeof(name)), 0);
	CU_ASSERT_STRING_EQUAL(name, eng.self->name);
	CU_ASSERT_EQUAL(sw_route_get(&eng, bad), -EINVAL);
	CU_ASSERT(sw_route_get(&eng, gone) < 0); /* no such segment */
	r1 = sw_route_get(&eng, eng.self->gid);
	r2 = sw_route_get(&eng, eng.self->gid);
	CU_ASSERT(r1 >= 0);
	CU_ASSERT_EQUAL(r1, r2);
	CU_ASSERT_EQUAL(eng.routes[r1].refs, 2);
	CU_ASSERT_PTR_EQUAL(eng.routes[r1].dom, eng.self);
	sw_route_put(&eng, r1);
	CU_ASSERT_PTR_EQUAL(eng.routes[r1].dom, eng.self);
	sw_route_put(&eng, r2);
	CU_ASSERT_PTR_NULL(eng.routes[r1].dom);
}

/* UD WQE sizing: rdma-core's mlx5_calc_send_wqe with the UD overhead (ctrl
 * + datagram segment, 64 B) instead of RC's 192 B. */
static void
test_ud_sizing(void)
{
	uint32_t size, inl;

	CU_ASSERT_EQUAL(sw_calc_wqe(SW_UD_WQE_OVERHEAD, 1, 0, &size, &inl), 0);
	CU_ASSERT_EQUAL(size, 128);
	CU_ASSERT_EQUAL(inl, 60);
	CU_ASSERT_EQUAL(sw_calc_wqe(SW_UD_WQE_OVERHEAD, 4, 100, &size, &inl), 0);
	CU_ASSERT_EQUAL(size, 192);
	CU_ASSERT_EQUAL(inl, 124);
	CU_ASSERT_EQUAL(sw_calc_wqe(SW_UD_WQE_OVERHEAD, 0, 444, &size, &inl), 0);
	CU_ASSERT_EQUAL(size, 512);
	CU_ASSERT_EQUAL(inl, 444);
	CU_ASSERT_EQUAL(sw_calc_wqe(SW_UD_WQE_OVERHEAD, 0, 445, &size, &inl), -EINVAL);
	/* the RC numbers are unchanged */
	CU_ASSERT_EQUAL(sw_calc_send_wqe(1, 0, &size, &inl), 0);
	CU_ASSERT_EQUAL(size, 256);
	CU_ASSERT_EQUAL(inl, 60);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "ud_send_fields", test_ud_send_fields },
		{ "ud_malformed", test_ud_malformed },
		{ "ud_len_and_dest", test_ud_len_and_dest },
		{ "ud_recv_errors", test_ud_recv_errors },
		{ "ud_cq_lock_busy", test_ud_cq_lock_busy },
		{ "ud_send_cq_lock_busy", test_ud_send_cq_lock_busy },
		{ "routes", test_routes },
		{ "ud_sizing", test_ud_sizing },
		{ NULL, NULL },
	};

	return rdx_ut_run("sw_exec_ud", cases, suite_init, suite_fini);
}
