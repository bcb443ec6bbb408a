/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the engine's loop (drivers/mlx5/sw/sw_engine.c), driven
 * directly with hand-built WQEs: wrap-around and CQE owner bits over CQ
 * laps, doorbell rules, the hot set, shared locks held by a stopped peer.
 */
#include "../../../drivers/mlx5/sw/sw_obj.c"
#include "../../../drivers/mlx5/sw/sw_cq.c"
#include "../../../drivers/mlx5/sw/sw_mem.c"
#include "../../../drivers/mlx5/sw/sw_exec.c"
#include "../../../drivers/mlx5/sw/sw_exec_ud.c"
#include "../../../drivers/mlx5/sw/sw_engine.c"
#include "sw_engine_ut.h"
#include <sys/wait.h>
#include <pthread.h>

static struct tcq shared_cq;

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

/* A signaled NOP on a, rung with the first `bytes` of its WQEBB (8: a
 * doorbell, 64: a BlueFlame copy) with byte `at` flipped by `x`;
 * executed all the same, its CQE taken. */
static void
nop_ring_flipped(struct tqp *a, struct tcq *c, uint32_t bytes, uint32_t at, uint8_t x)
{
	struct mlx5_cqe64 cqe;
	uint8_t bfc[64];

	ctrl(a, MLX5_OPCODE_NOP, 1, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	a->dv.dbrec[MLX5_SND_DBR] = htobe32(a->pi & 0xffff);
	memcpy(bfc, (uint8_t *)a->dv.sq.buf + (a->last & (a->dv.sq.wqe_cnt - 1)) * 64, 64);
	bfc[at] ^= x;
	memcpy((uint8_t *)a->dv.bf.reg + a->bf, bfc, bytes);
	a->bf ^= a->dv.bf.size;
	CU_ASSERT_EQUAL(sw_engine_progress(&eng), 1);
	CU_ASSERT(cq_get(c, &cqe));
}

/* A signaled NOP rung with 8 bytes (into the half before the expected
 * one when wrong_half), executed by one progress call: its CQE. */
static void
nop_ring(struct tqp *a, struct tcq *c, bool wrong_half)
{
	struct mlx5_cqe64 cqe;

	ctrl(a, MLX5_OPCODE_NOP, 1, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	if (wrong_half)
		a->bf ^= a->dv.bf.size;
	ring(a);
	CU_ASSERT_EQUAL(sw_engine_progress(&eng), 1);
	CU_ASSERT(cq_get(c, &cqe));
}

/* No doorbell, no execution; a doorbell in the wrong half, a doorbell or
 * BlueFlame copy that differs from the ring, and a bad idx are device
 * errors. */
static void
test_doorbell_rules(void)
{
	struct mlx5_cqe64 cqe;
	struct mlx5_err_cqe *e = (struct mlx5_err_cqe *)&cqe;
	uint64_t errs = eng.device_errors;
	struct tqp a, b;
	struct tcq c;
	uint32_t i;

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
	nop_ring(&a, &c, true);
	CU_ASSERT_EQUAL(eng.device_errors, errs + 1);
	/* a BlueFlame copy that does not match the ring (fm_ce_se) */
	nop_ring_flipped(&a, &c, 64, 11, MLX5_WQE_CTRL_SOLICITED);
	CU_ASSERT_EQUAL(eng.device_errors, errs + 2);
	/* an 8-byte ring, and a BlueFlame copy, whose doorbell word (ctrl
	 * bytes 0..7) differs from the ring's WQE in the opcode byte: the
	 * word names the QP and a posted WQE, so it is taken and compared */
	nop_ring_flipped(&a, &c, 8, 3, 0x01);
	CU_ASSERT_EQUAL(eng.device_errors, errs + 3);
	nop_ring_flipped(&a, &c, 64, 3, 0x01);
	CU_ASSERT_EQUAL(eng.device_errors, errs + 4);
	/* the copy was cleared: the half holds nothing now */
	for (i = 0; i < 64; i++)
		CU_ASSERT_EQUAL(((uint8_t *)a.dv.bf.reg + (a.bf ^ a.dv.bf.size))[i], 0);
	/* bad idx: LOCAL_QP_OP error, then every later WQE flushed */
	ctrl(&a, MLX5_OPCODE_NOP, 1, 0, 0);
	put(&a, a.last, 1, "\x77", 1); /* idx high byte */
	ctrl(&a, MLX5_OPCODE_NOP, 1, 0, 0);
	ctrl(&a, MLX5_OPCODE_NOP, 1, 0, 0);
	ring(&a);
	sw_engine_progress(&eng);
	CU_ASSERT_EQUAL(eng.device_errors, errs + 5);
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

/* A ring taken by a thread that does not post on the register (an lcore
 * that took the QP over) may race the poster's rings: its look checks
 * nothing, and the poster's next look, which drains what it may have left,
 * only the doorbell word; the look after that is strict again. */
static void
test_doorbell_foreign_looker(void)
{
	const uint32_t me = (uint32_t)rte_gettid();
	uint64_t errs = eng.device_errors;
	struct mlx5_cqe64 cqe;
	struct sw_bf_shm *r;
	struct tqp a, b;
	struct tcq c;

	cq_make(&c, 64);
	qp_make(&a, &c, 16, 0, 0);
	qp_make(&b, &c, 16, 0, 0);
	qp_connect(&a, &b);
	r = a.q->reg->r;
	/* the poster's own look: a copy unlike the ring is an error */
	r->poster = me;
	nop_ring_flipped(&a, &c, 64, 11, MLX5_WQE_CTRL_SOLICITED);
	CU_ASSERT_EQUAL(eng.device_errors, errs + 1);
	/* another thread's look: executed, not compared */
	r->poster = me + 1;
	nop_ring_flipped(&a, &c, 64, 11, MLX5_WQE_CTRL_SOLICITED);
	CU_ASSERT_EQUAL(eng.device_errors, errs + 1);
	/* the poster's draining look: the copy's tail not compared, the
	 * doorbell word (here its opcode byte) still is */
	r->poster = me;
	nop_ring_flipped(&a, &c, 64, 3, 0x01);
	CU_ASSERT_EQUAL(eng.device_errors, errs + 2);
	/* strict again */
	nop_ring_flipped(&a, &c, 64, 11, MLX5_WQE_CTRL_SOLICITED);
	CU_ASSERT_EQUAL(eng.device_errors, errs + 3);
	/* after another thread's look the next half is not known: a ring in
	 * the half of the ring before is not called wrong by the draining
	 * look; it is once a ring has taught the half again */
	r->poster = me + 1;
	nop_ring(&a, &c, false);
	r->poster = me;
	nop_ring(&a, &c, true);
	CU_ASSERT_EQUAL(eng.device_errors, errs + 3);
	nop_ring(&a, &c, false);
	nop_ring(&a, &c, true);
	CU_ASSERT_EQUAL(eng.device_errors, errs + 4);
	CU_ASSERT_FALSE(cq_get(&c, &cqe));
	r->poster = 0;
	sw_qp_destroy(&eng, a.q);
	sw_qp_destroy(&eng, b.q);
	sw_cq_destroy(&eng, c.slot);
}

/* A two-WQEBB inline WRITE at the producer counter, announced by a
 * BlueFlame copy of both WQEBBs (the ring's end wraps it to the start),
 * byte 64 + 20 of the copy flipped when bad; executed, the CQE taken. */
static void
bf_write2(struct tqp *a, struct tcq *c, uint8_t *m, uint32_t key, bool bad)
{
	const uint32_t hdr = htobe32(60 | MLX5_INLINE_SEG), ring = a->dv.sq.wqe_cnt * 64;
	struct mlx5_cqe64 cqe;
	uint8_t pay[60], bfc[128];
	uint32_t at, i;

	memset(pay, 0x3c, sizeof(pay));
	ctrl(a, MLX5_OPCODE_RDMA_WRITE, 2 + 4, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	raddr(a, a->last, (uintptr_t)m, key);
	put(a, a->last, 32, &hdr, 4);
	put(a, a->last, 36, pay, sizeof(pay));
	a->dv.dbrec[MLX5_SND_DBR] = htobe32(a->pi & 0xffff);
	at = (a->last & (a->dv.sq.wqe_cnt - 1)) * 64;
	for (i = 0; i < sizeof(bfc); i++)
		bfc[i] = ((uint8_t *)a->dv.sq.buf)[(at + i) % ring];
	if (bad)
		bfc[64 + 20] ^= 0xff;
	memcpy((uint8_t *)a->dv.bf.reg + a->bf, bfc, sizeof(bfc));
	a->bf ^= a->dv.bf.size;
	CU_ASSERT_EQUAL(sw_engine_progress(&eng), 1);
	CU_ASSERT(cq_get(c, &cqe));
	CU_ASSERT_EQUAL(cqe.op_own >> 4, MLX5_CQE_REQ);
}

/* A BlueFlame copy is checked against the whole WQE where it lies in the
 * ring, and across the ring's end: a copy that differs in its second WQEBB
 * is a device error, inside the ring and wrapping it; matching copies are
 * not. */
/* Signaled NOPs, each executed and completed, until a's next WQE starts in
 * the SQ's last WQEBB (so a two-WQEBB WQE wraps the ring). */
static void
nops_to_last_bb(struct tqp *a, struct tcq *c)
{
	const uint32_t cnt = a->dv.sq.wqe_cnt;
	struct mlx5_cqe64 cqe;

	while ((a->pi & (cnt - 1)) != cnt - 1) {
		ctrl(a, MLX5_OPCODE_NOP, 1, MLX5_WQE_CTRL_CQ_UPDATE, 0);
		ring(a);
		CU_ASSERT_EQUAL(sw_engine_progress(&eng), 1);
		CU_ASSERT(cq_get(c, &cqe));
	}
}

static void
test_bf_copy_wrap(void)
{
	const uint64_t errs = eng.device_errors;
	struct tqp a, b;
	struct tcq c;
	uint32_t key;
	uint8_t *m;

	cq_make(&c, 64);
	qp_make(&a, &c, 16, 0, 60);
	qp_make(&b, &c, 16, 0, 0);
	qp_connect(&a, &b);
	CU_ASSERT_FATAL(a.dv.bf.size >= 128);
	m = mem(4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, &key);
	/* inside the ring: good, then bad */
	bf_write2(&a, &c, m, key, false);
	CU_ASSERT_EQUAL(eng.device_errors, errs);
	bf_write2(&a, &c, m, key, true);
	CU_ASSERT_EQUAL(eng.device_errors, errs + 1);
	/* NOPs up to the last WQEBB: the next two-WQEBB WQE wraps */
	nops_to_last_bb(&a, &c);
	bf_write2(&a, &c, m, key, false);
	CU_ASSERT_EQUAL(eng.device_errors, errs + 1);
	nops_to_last_bb(&a, &c);
	bf_write2(&a, &c, m, key, true);
	CU_ASSERT_EQUAL(eng.device_errors, errs + 2);
	CU_ASSERT_EQUAL(a.q->s->state, RDX_SW_QPS_RTS);
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
		CU_ASSERT_PTR_NOT_EQUAL(eng.lc[SW_LC_ANY].hot[i], t[0].q);
	CU_ASSERT_EQUAL(sw_engine_progress(&eng), 0);
	for (i = 1; i < HOT_NB_QP; i++)
		sw_qp_destroy(&eng, t[i].q);
	CU_ASSERT_EQUAL(eng.nb_active, 0);
	sw_cq_destroy(&eng, hc.slot);
	sw_cq_destroy(&eng, cc.slot);
}

/*
 * Home lcores (per-core scaling): a QP whose WQEs an lcore executed is left
 * to that lcore by the other lcores' full walks while it keeps polling,
 * and taken over once it makes no progress call between two looks. The
 * test thread plays lcores 1 and 2 by setting its EAL lcore id.
 */
static void
test_lcore_home(void)
{
	struct tqp a0, a1, b0, b1;
	struct mlx5_cqe64 cqe;
	struct tcq c;

	cq_make(&c, 64);
	qp_make(&a0, &c, 4, 0, 0);
	qp_make(&a1, &c, 4, 0, 0);
	qp_make(&b0, &c, 4, 0, 0);
	qp_make(&b1, &c, 4, 0, 0);
	qp_connect(&a0, &a1);
	qp_connect(&b0, &b1);
	CU_ASSERT_EQUAL(a0.q->home, SW_HOME_NONE);
	/* lcore 1 runs a0, lcore 2 runs b0 */
	RTE_PER_LCORE(_lcore_id) = 1;
	ctrl(&a0, MLX5_OPCODE_NOP, 1, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	ring(&a0);
	CU_ASSERT_EQUAL(sw_engine_progress(&eng), 1);
	CU_ASSERT(cq_get(&c, &cqe));
	CU_ASSERT_EQUAL(a0.q->home, 1);
	RTE_PER_LCORE(_lcore_id) = 2;
	ctrl(&b0, MLX5_OPCODE_NOP, 1, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	ring(&b0);
	CU_ASSERT_EQUAL(sw_engine_progress(&eng), 1);
	CU_ASSERT(cq_get(&c, &cqe));
	CU_ASSERT_EQUAL(b0.q->home, 2);
	CU_ASSERT_EQUAL(eng.lc[2].wqes, 1);
	/* lcore 1 keeps polling: lcore 2 leaves a0's doorbell alone */
	RTE_PER_LCORE(_lcore_id) = 1;
	CU_ASSERT_EQUAL(sw_engine_progress(&eng), 0);
	ctrl(&a0, MLX5_OPCODE_NOP, 1, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	ring(&a0);
	RTE_PER_LCORE(_lcore_id) = 2;
	CU_ASSERT_EQUAL(sw_engine_progress(&eng), 0);
	CU_ASSERT_FALSE(cq_get(&c, &cqe));
	/* lcore 1 made no call since: lcore 2 takes a0 over */
	CU_ASSERT_EQUAL(sw_engine_progress(&eng), 1);
	CU_ASSERT_FATAL(cq_get(&c, &cqe));
	CU_ASSERT_EQUAL(be32toh(cqe.sop_drop_qpn) & 0xffffff, a0.q->s->qpn);
	CU_ASSERT_EQUAL(a0.q->home, 2);
	/* and runs it from its hot set from now on; lcore 1's skips it */
	RTE_PER_LCORE(_lcore_id) = 1;
	ctrl(&a0, MLX5_OPCODE_NOP, 1, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	ring(&a0);
	CU_ASSERT_EQUAL(sw_engine_progress(&eng), 0);
	RTE_PER_LCORE(_lcore_id) = 2;
	CU_ASSERT_EQUAL(sw_engine_progress(&eng), 1);
	CU_ASSERT(cq_get(&c, &cqe));
	/* the counters of every slot add up */
	{
		struct rdx_sw_stats st;

		sw_engine_stats(&eng, &st);
		CU_ASSERT_EQUAL(eng.lc[1].wqes + eng.lc[2].wqes, 4);
		CU_ASSERT(st.wqes >= 4);
	}
	RTE_PER_LCORE(_lcore_id) = LCORE_ID_ANY;
	sw_qp_destroy(&eng, a0.q);
	sw_qp_destroy(&eng, a1.q);
	sw_qp_destroy(&eng, b0.q);
	sw_qp_destroy(&eng, b1.q);
	sw_cq_destroy(&eng, c.slot);
}

/*
 * A peer that is slow (descheduled, stopped) while holding a lock in shared
 * memory: a thread here holds the lock the way such a process would, for
 * 300 ms (three times the bound the model once had). Nothing fails: the
 * peer QP's lock held, the SEND waits (no retry counted, the QPs stay in
 * RTS) and is answered once the lock is free; our CQ's lock held, the
 * WRITE executes and its CQE waits, then is written once -- not lost, not
 * doubled, not a flush. Before, the first was RETRY_EXC (0x15) and the
 * second a device error, the QP in ERR and a flush CQE (0x05).
 */
struct holder {
	uint32_t *m;
	int held, release;
};

static void *
hold_lock(void *arg)
{
	struct holder *h = arg;

	while (sw_qlock(h->m, getpid()) != 0)
		;
	__atomic_store_n(&h->held, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&h->release, __ATOMIC_ACQUIRE))
		usleep(1000);
	sw_qunlock(h->m);
	return NULL;
}

static void
hold_start(struct holder *h, pthread_t *t, uint32_t *m)
{
	h->m = m;
	h->held = h->release = 0;
	CU_ASSERT_FATAL(pthread_create(t, NULL, hold_lock, h) == 0);
	while (!__atomic_load_n(&h->held, __ATOMIC_ACQUIRE))
		usleep(100);
}

static void
hold_stop(struct holder *h, pthread_t t)
{
	__atomic_store_n(&h->release, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
}

#define HOLD_MS 300

/* Progress calls for ms milliseconds; how many CQEs c got meanwhile. */
static unsigned int
progress_for(struct tcq *c, uint64_t ms)
{
	const uint64_t end = now_ms() + ms;
	struct mlx5_cqe64 cqe;
	unsigned int n = 0;

	while (now_ms() < end) {
		sw_engine_progress(&eng);
		while (cq_get(c, &cqe))
			n++;
	}
	return n;
}

/* Progress until c has a CQE (POLL_GUARD_MS at most): true when it has. */
static bool
progress_get(struct tcq *c, struct mlx5_cqe64 *cqe)
{
	const uint64_t end = now_ms() + POLL_GUARD_MS;

	while (now_ms() < end) {
		if (cq_get(c, cqe))
			return true;
		sw_engine_progress(&eng);
	}
	return cq_get(c, cqe);
}

static uint64_t
retries_now(void)
{
	struct rdx_sw_stats st;

	sw_engine_stats(&eng, &st);
	return st.retries;
}

static void
test_lock_held(void)
{
	struct mlx5_cqe64 cqe;
	struct mlx5_wqe_data_seg *r;
	uint64_t errs = eng.device_errors, retries = retries_now();
	struct holder h;
	struct tqp a, b;
	struct tcq c;
	pthread_t t;
	uint32_t key;
	uint8_t *m;
	int resp = 0, req = 0;

	cq_make(&c, 64);
	qp_make(&a, &c, 16, 0, 0);
	qp_make(&b, &c, 16, 16, 0);
	CU_ASSERT_FATAL(sw_qp_connect(&eng, a.q, eng.self->name, b.q->s->qpn, 1, 1, 1, 1) == 0);
	CU_ASSERT_FATAL(sw_qp_connect(&eng, b.q, eng.self->name, a.q->s->qpn, 1, 1, 1, 1) == 0);
	m = mem(4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, &key);
	memset(m, 0x3c, 64);
	r = (struct mlx5_wqe_data_seg *)b.dv.rq.buf;
	mlx5dv_set_data_seg(&r[0], 256, key, (uintptr_t)m + 512);
	mlx5dv_set_data_seg(&r[1], 0, MLX5_INVALID_LKEY, 0);
	b.dv.dbrec[MLX5_RCV_DBR] = htobe32(1);
	/* the peer QP's lock is held: the SEND waits, then is answered */
	hold_start(&h, &t, &b.q->s->lock);
	ctrl(&a, MLX5_OPCODE_SEND, 2, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	dseg(&a, a.last, 16, (uintptr_t)m, 64, key);
	ring(&a);
	CU_ASSERT_EQUAL(progress_for(&c, HOLD_MS), 0);
	CU_ASSERT(a.q->lock_wait);
	CU_ASSERT_EQUAL(a.q->s->state, RDX_SW_QPS_RTS);
	CU_ASSERT_EQUAL(b.q->s->rq_ci, 0); /* the receive was not consumed */
	hold_stop(&h, t);
	while ((resp < 1 || req < 1) && progress_get(&c, &cqe)) {
		resp += cqe.op_own >> 4 == MLX5_CQE_RESP_SEND;
		req += cqe.op_own >> 4 == MLX5_CQE_REQ;
	}
	CU_ASSERT_EQUAL(progress_for(&c, 20), 0);
	CU_ASSERT_EQUAL(resp, 1);
	CU_ASSERT_EQUAL(req, 1);
	CU_ASSERT_EQUAL(b.q->s->rq_ci, 1);
	CU_ASSERT_EQUAL(memcmp(m + 512, m, 64), 0);
	CU_ASSERT_FALSE(a.q->lock_wait);
	CU_ASSERT_EQUAL(retries_now(), retries); /* a slow peer costs no retry */
	CU_ASSERT_EQUAL(eng.device_errors, errs);
	sw_qp_destroy(&eng, a.q);
	sw_qp_destroy(&eng, b.q);
	/* our CQ's lock is held: WRITE executes, its CQE waits */
	qp_make(&a, &c, 16, 0, 0);
	qp_make(&b, &c, 16, 0, 0);
	qp_connect(&a, &b);
	hold_start(&h, &t, &eng.self->hdr->cqs[c.slot].lock);
	ctrl(&a, MLX5_OPCODE_RDMA_WRITE, 3, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	raddr(&a, a.last, (uintptr_t)m + 1024, key);
	dseg(&a, a.last, 32, (uintptr_t)m, 64, key);
	ring(&a);
	CU_ASSERT_EQUAL(progress_for(&c, HOLD_MS), 0);
	CU_ASSERT_EQUAL(memcmp(m + 1024, m, 64), 0); /* executed */
	CU_ASSERT(a.q->cqe_owed);
	CU_ASSERT_EQUAL(a.q->s->state, RDX_SW_QPS_RTS);
	hold_stop(&h, t);
	CU_ASSERT_FATAL(progress_get(&c, &cqe));
	CU_ASSERT_EQUAL(cqe.op_own >> 4, MLX5_CQE_REQ);
	CU_ASSERT_EQUAL(be16toh(cqe.wqe_counter), a.last & 0xffff);
	CU_ASSERT_EQUAL(progress_for(&c, 20), 0); /* once */
	CU_ASSERT_EQUAL(a.q->s->state, RDX_SW_QPS_RTS);
	CU_ASSERT_EQUAL(eng.device_errors, errs);
	/* destroy does not wait forever for a held lock */
	hold_start(&h, &t, &a.q->s->lock);
	sw_qp_destroy(&eng, a.q);
	hold_stop(&h, t);
	sw_qp_destroy(&eng, b.q);
	sw_cq_destroy(&eng, c.slot);
}

/*
 * The same with a peer process: a child takes the receive CQ's lock and is
 * stopped (SIGSTOP) for HOLD_MS before it runs again (SIGCONT) and drops
 * it. The SEND into that CQ waits for it and is delivered: both CQEs, the
 * payload, no device error, both QPs in RTS. Before: after 100 ms "CQ n:
 * lock not obtained in 100 ms", a device error, the receiving QP in ERR
 * and the SEND failed with REMOTE_OP (0x14).
 */
static void
test_lock_stopped_peer(void)
{
	struct mlx5_cqe64 cqe;
	struct mlx5_wqe_data_seg *r;
	uint64_t errs = eng.device_errors, retries = retries_now();
	int ready[2], go[2], st;
	struct tqp a, b;
	struct tcq ca, cb;
	uint32_t key;
	uint8_t *m;
	pid_t pid;
	char x;

	cq_make(&ca, 16);
	cq_make(&cb, 16);
	qp_make(&a, &ca, 16, 0, 0);
	qp_make(&b, &cb, 16, 16, 0);
	CU_ASSERT_FATAL(sw_qp_connect(&eng, a.q, eng.self->name, b.q->s->qpn, 1, 1, 1, 1) == 0);
	CU_ASSERT_FATAL(sw_qp_connect(&eng, b.q, eng.self->name, a.q->s->qpn, 1, 1, 1, 1) == 0);
	m = mem(4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, &key);
	memset(m, 0xa7, 100);
	r = (struct mlx5_wqe_data_seg *)b.dv.rq.buf;
	mlx5dv_set_data_seg(&r[0], 256, key, (uintptr_t)m + 512);
	mlx5dv_set_data_seg(&r[1], 0, MLX5_INVALID_LKEY, 0);
	b.dv.dbrec[MLX5_RCV_DBR] = htobe32(1);
	CU_ASSERT_FATAL(pipe(ready) == 0 && pipe(go) == 0);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		/* the segment is MAP_SHARED: the parent's CQ lock */
		if (sw_qlock(&eng.self->hdr->cqs[cb.slot].lock, getpid()) != 0)
			_exit(1);
		if (write(ready[1], "r", 1) != 1 || read(go[0], &x, 1) != 1)
			_exit(2);
		sw_qunlock(&eng.self->hdr->cqs[cb.slot].lock);
		_exit(0);
	}
	CU_ASSERT_FATAL(read(ready[0], &x, 1) == 1);
	CU_ASSERT_FATAL(kill(pid, SIGSTOP) == 0);
	ctrl(&a, MLX5_OPCODE_SEND, 2, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	dseg(&a, a.last, 16, (uintptr_t)m, 100, key);
	ring(&a);
	CU_ASSERT_EQUAL(progress_for(&ca, HOLD_MS), 0);
	CU_ASSERT_FALSE(cq_get(&cb, &cqe));
	/* the payload is stored, the receive consumed, its CQE owed */
	CU_ASSERT(a.q->resp_owed);
	CU_ASSERT_EQUAL(b.q->s->rq_ci, 1);
	CU_ASSERT_EQUAL(memcmp(m + 512, m, 100), 0);
	CU_ASSERT_EQUAL(a.q->s->state, RDX_SW_QPS_RTS);
	CU_ASSERT_EQUAL(b.q->s->state, RDX_SW_QPS_RTS);
	CU_ASSERT_EQUAL(eng.device_errors, errs);
	/* it runs again and lets go */
	CU_ASSERT(write(go[1], "g", 1) == 1);
	CU_ASSERT(kill(pid, SIGCONT) == 0);
	CU_ASSERT_FATAL(waitpid(pid, &st, 0) == pid);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CU_ASSERT_FATAL(progress_get(&ca, &cqe));
	CU_ASSERT_EQUAL(cqe.op_own >> 4, MLX5_CQE_REQ);
	CU_ASSERT_FATAL(progress_get(&cb, &cqe));
	CU_ASSERT_EQUAL(cqe.op_own >> 4, MLX5_CQE_RESP_SEND);
	CU_ASSERT_EQUAL(be32toh(cqe.byte_cnt), 100);
	CU_ASSERT_EQUAL(memcmp(m + 512, m, 100), 0);
	CU_ASSERT_FALSE(a.q->resp_owed);
	CU_ASSERT_EQUAL(a.q->s->state, RDX_SW_QPS_RTS);
	CU_ASSERT_EQUAL(b.q->s->state, RDX_SW_QPS_RTS);
	CU_ASSERT_EQUAL(retries_now(), retries);
	CU_ASSERT_EQUAL(eng.device_errors, errs);
	close(ready[0]);
	close(ready[1]);
	close(go[0]);
	close(go[1]);
	sw_qp_destroy(&eng, a.q);
	sw_qp_destroy(&eng, b.q);
	sw_cq_destroy(&eng, ca.slot);
	sw_cq_destroy(&eng, cb.slot);
}

/*
 * A process that dies holding a lock (killed between taking and dropping
 * it): a real fault. The next engine that needs the lock takes it over
 * (the holder's pid is gone) and reports it, a device error per lock; the
 * SEND is answered and both CQEs are written, without a hang. A holder
 * that died after writing a CQE but before counting it: that CQE stays
 * and the next one goes after it (before, the next overwrote it: a lost
 * completion). A holder that exited and is not reaped yet (a zombie,
 * which kill(pid, 0) still finds) is gone too. A word that is no pid is
 * taken over; a live holder of
 * another process is waited for (SW_LOCK_CTL_MS on the control path, one
 * attempt on the datapath), then -EBUSY.
 */
static pid_t
dead_pid(uint32_t *l1, uint32_t *l2)
{
	pid_t pid = fork();
	int st;

	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		/* the segment is MAP_SHARED: these are the parent's locks */
		if (sw_qlock(l1, getpid()) != 0 || (l2 != NULL && sw_qlock(l2, getpid()) != 0))
			_exit(1);
		_exit(0); /* dies holding both */
	}
	CU_ASSERT_FATAL(waitpid(pid, &st, 0) == pid);
	CU_ASSERT_FATAL(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	return pid;
}

/* A child takes the lock of c, writes a REQ CQE (wqe_counter wc) at the
 * producer counter as sw_cq_push does, and dies before counting it. */
static void
dead_after_cqe(struct tcq *c, uint16_t wc)
{
	struct sw_cq_shm *cq = &eng.self->hdr->cqs[c->slot];
	pid_t pid = fork();
	int st;

	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		uint8_t *dst = sw_ptr(eng.self, cq->buf_off) +
			       (size_t)(cq->pi & (cq->cqe_cnt - 1)) * 64;
		struct mlx5_cqe64 body;

		if (sw_qlock(&cq->lock, getpid()) != 0)
			_exit(1);
		memset(&body, 0, sizeof(body));
		body.wqe_counter = htobe16(wc);
		memcpy(dst, &body, 63);
		__atomic_store_n(&dst[63], (uint8_t)(MLX5_CQE_REQ << 4 |
				 ((cq->pi >> cq->log_cqe_cnt) & 1U)), __ATOMIC_RELEASE);
		_exit(0);
	}
	CU_ASSERT_FATAL(waitpid(pid, &st, 0) == pid);
	CU_ASSERT_FATAL(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* pid has exited and is not reaped (its /proc state is Z) */
static bool
is_zombie(pid_t pid)
{
	char path[32], buf[256], *p;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (f == NULL)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p != NULL && p[1] == ' ' && p[2] == 'Z';
}

static void
test_lock_dead_holder(void)
{
	struct mlx5_cqe64 cqe;
	struct mlx5_wqe_data_seg *r;
	uint64_t errs = eng.device_errors, t0;
	struct tqp a, b;
	struct tcq c;
	uint32_t key, *ql, *cl, dead_word;
	pid_t dead, zombie;
	uint8_t *m;
	int n = 0;

	cq_make(&c, 64);
	qp_make(&a, &c, 16, 0, 0);
	qp_make(&b, &c, 16, 16, 0);
	CU_ASSERT_FATAL(sw_qp_connect(&eng, a.q, eng.self->name, b.q->s->qpn, 1, 1, 1, 1) == 0);
	CU_ASSERT_FATAL(sw_qp_connect(&eng, b.q, eng.self->name, a.q->s->qpn, 1, 1, 1, 1) == 0);
	m = mem(4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, &key);
	memset(m, 0x5a, 64);
	r = (struct mlx5_wqe_data_seg *)b.dv.rq.buf;
	mlx5dv_set_data_seg(&r[0], 256, key, (uintptr_t)m + 512);
	mlx5dv_set_data_seg(&r[1], 0, MLX5_INVALID_LKEY, 0);
	b.dv.dbrec[MLX5_RCV_DBR] = htobe32(1);
	ql = &b.q->s->lock;
	cl = &eng.self->hdr->cqs[c.slot].lock;
	dead = dead_pid(ql, cl);
	CU_ASSERT_EQUAL(__atomic_load_n(ql, __ATOMIC_ACQUIRE), (uint32_t)dead);
	CU_ASSERT_EQUAL(__atomic_load_n(cl, __ATOMIC_ACQUIRE), (uint32_t)dead);
	ctrl(&a, MLX5_OPCODE_SEND, 2, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	dseg(&a, a.last, 16, (uintptr_t)m, 64, key);
	ring(&a);
	sw_engine_progress(&eng);
	/* the receive CQE (b) and the send CQE (a), both in c */
	while (cq_get(&c, &cqe)) {
		CU_ASSERT(cqe.op_own >> 4 == MLX5_CQE_RESP_SEND || cqe.op_own >> 4 == MLX5_CQE_REQ);
		n++;
	}
	CU_ASSERT_EQUAL(n, 2);
	CU_ASSERT_EQUAL(b.q->s->rq_ci, 1);
	CU_ASSERT_EQUAL(memcmp(m + 512, m, 64), 0);
	CU_ASSERT_EQUAL(eng.device_errors, errs + 2); /* the QP's lock and the CQ's */
	CU_ASSERT_EQUAL(*ql, 0); /* taken over, then dropped */
	CU_ASSERT_EQUAL(*cl, 0);
	/* died after writing a CQE at pi, before counting it */
	errs = eng.device_errors;
	dead_after_cqe(&c, 0x1234);
	ctrl(&a, MLX5_OPCODE_NOP, 1, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	ring(&a);
	sw_engine_progress(&eng);
	CU_ASSERT_FATAL(cq_get(&c, &cqe));
	CU_ASSERT_EQUAL(be16toh(cqe.wqe_counter), 0x1234);
	CU_ASSERT_FATAL(cq_get(&c, &cqe));
	CU_ASSERT_EQUAL(cqe.op_own >> 4, MLX5_CQE_REQ);
	CU_ASSERT_EQUAL(be16toh(cqe.wqe_counter), a.last & 0xffff);
	CU_ASSERT_FALSE(cq_get(&c, &cqe));
	CU_ASSERT_EQUAL(eng.device_errors, errs + 1);
	/* a holder that exited and is not reaped yet (a zombie): gone too */
	zombie = fork();
	CU_ASSERT_FATAL(zombie >= 0);
	if (zombie == 0)
		_exit(sw_qlock(cl, getpid()) == 0 ? 0 : 1);
	for (t0 = now_ms(); now_ms() - t0 < POLL_GUARD_MS && !is_zombie(zombie);)
		usleep(1000);
	CU_ASSERT_FATAL(is_zombie(zombie));
	CU_ASSERT_EQUAL(*cl, (uint32_t)zombie);
	dead_word = 0;
	CU_ASSERT_EQUAL(sw_qlock_try(cl, getpid(), &dead_word), 0);
	CU_ASSERT_EQUAL(dead_word, (uint32_t)zombie);
	sw_qunlock(cl);
	CU_ASSERT(waitpid(zombie, NULL, 0) == zombie);
	/* a word that is no pid: taken over, and said so */
	*cl = 0xfffffff0u;
	dead_word = 0;
	CU_ASSERT_EQUAL(sw_qlock_try(cl, getpid(), &dead_word), 0);
	CU_ASSERT_EQUAL(dead_word, 0xfffffff0u);
	CU_ASSERT_EQUAL(*cl, (uint32_t)getpid());
	sw_qunlock(cl);
	/* a live holder of another process (init): the control path gives
	 * up after SW_LOCK_CTL_MS, the datapath after one short attempt */
	*cl = 1;
	t0 = now_ms();
	CU_ASSERT_EQUAL(sw_qlock(cl, getpid()), -EBUSY);
	CU_ASSERT(now_ms() - t0 >= SW_LOCK_CTL_MS - 1);
	t0 = now_ms();
	dead_word = 0;
	CU_ASSERT_EQUAL(sw_qlock_try(cl, getpid(), &dead_word), -EBUSY);
	CU_ASSERT(now_ms() - t0 < SW_LOCK_CTL_MS);
	CU_ASSERT_EQUAL(dead_word, 0);
	CU_ASSERT_EQUAL(*cl, 1);
	*cl = 0;
	sw_qp_destroy(&eng, a.q);
	sw_qp_destroy(&eng, b.q);
	sw_cq_destroy(&eng, c.slot);
}

/* A QP of a register shared by the QPs naming post_lcore (as sw_dev does). */
static void
qp_make_reg(struct tqp *t, struct tcq *c, uint32_t post_lcore)
{
	struct sw_qp_params p = {
		.sq_depth = 16, .rq_depth = 0, .max_send_sge = 4, .max_recv_sge = 4,
		.max_inline = 0, .send_cq = c->slot, .recv_cq = c->slot,
		.post_lcore = post_lcore,
	};

	memset(t, 0, sizeof(*t));
	t->q = sw_qp_create(&eng, &p, &t->dv);
	CU_ASSERT_FATAL(t->q != NULL);
}

/* Progress calls (at most SW_FULL_EVERY) until device_errors passes errs
 * and n CQEs came; the CQEs' QPNs in qpn[]. Returns the CQEs taken. */
static int
calls_until(uint64_t errs, int n, uint32_t *qpn)
{
	struct mlx5_cqe64 cqe;
	uint32_t i;
	int got = 0;

	for (i = 0; i < SW_FULL_EVERY && (got < n || eng.device_errors <= errs); i++) {
		sw_engine_progress(&eng);
		while (got < n && cq_get(&shared_cq, &cqe))
			qpn[got++] = be32toh(cqe.sop_drop_qpn) & 0xffffff;
	}
	return got;
}

/*
 * A register shared by two QPs of one posting lcore (the test thread plays
 * lcore 0, the register's): rings by turns run clean; what the model
 * checks about it still shows, within SW_FULL_EVERY progress calls of the
 * poster (its full walk): a ring naming a QP not on the register, and a
 * ring gone missing (a half written twice in a row: the other QP's ring
 * in the same half), flagged and executed anyway. A QP's cheap look sees
 * only rings naming it, so this is where the rest is caught.
 */
static void
test_shared_register(void)
{
	uint64_t errs = eng.device_errors;
	struct tqp a, b, pa, pb;
	uint32_t qpn[2];
	uint8_t w[8];

	RTE_PER_LCORE(_lcore_id) = 0;
	cq_make(&shared_cq, 64);
	qp_make_reg(&a, &shared_cq, 1);
	qp_make_reg(&b, &shared_cq, 1);
	qp_make(&pa, &shared_cq, 16, 0, 0);
	qp_make(&pb, &shared_cq, 16, 0, 0);
	qp_connect(&a, &pa);
	qp_connect(&b, &pb);
	CU_ASSERT_FATAL(a.q->reg == b.q->reg);
	CU_ASSERT(a.q->bf_mask != 0 && pa.q->bf_mask == 0);
	/* rings by turns (one toggle), the model looking after each */
	ctrl(&a, MLX5_OPCODE_NOP, 1, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	ring(&a);
	b.bf = a.bf;
	CU_ASSERT_EQUAL(calls_until(errs - 1, 1, qpn), 1);
	CU_ASSERT_EQUAL(qpn[0], a.q->qpn);
	ctrl(&b, MLX5_OPCODE_NOP, 1, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	ring(&b);
	a.bf = b.bf;
	CU_ASSERT_EQUAL(calls_until(errs - 1, 1, qpn), 1);
	CU_ASSERT_EQUAL(qpn[0], b.q->qpn);
	CU_ASSERT_EQUAL(eng.device_errors, errs);
	/* a ring naming pa (another register's QP) in the expected half */
	memcpy(w, (uint8_t *)a.dv.sq.buf, 8);
	qpn[0] = htobe32(pa.q->qpn << 8 | 1);
	memcpy(w + 4, &qpn[0], 4);    /* ctrl's qpn_ds */
	memcpy((uint8_t *)a.dv.bf.reg + a.bf, w, 8);
	a.bf ^= a.dv.bf.size;
	b.bf = a.bf;
	CU_ASSERT_EQUAL(calls_until(errs, 0, qpn), 0);
	CU_ASSERT_EQUAL(eng.device_errors, errs + 1);
	CU_ASSERT_EQUAL(*(uint64_t *)(void *)((uint8_t *)a.dv.bf.reg + (a.bf ^ a.dv.bf.size)), 0);
	/* a's WQE under its doorbell record, its ring overwritten by b's */
	errs = eng.device_errors;
	ctrl(&a, MLX5_OPCODE_NOP, 1, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	a.dv.dbrec[MLX5_SND_DBR] = htobe32(a.pi & 0xffff);
	ctrl(&b, MLX5_OPCODE_NOP, 1, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	ring(&b);
	a.bf = b.bf;
	CU_ASSERT_EQUAL(calls_until(errs, 2, qpn), 2);
	CU_ASSERT_EQUAL(eng.device_errors, errs + 1);
	CU_ASSERT(qpn[0] == b.q->qpn && qpn[1] == a.q->qpn);
	/* and clean again afterwards */
	errs = eng.device_errors;
	ctrl(&a, MLX5_OPCODE_NOP, 1, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	ring(&a);
	b.bf = a.bf;
	CU_ASSERT_EQUAL(calls_until(errs - 1, 1, qpn), 1);
	CU_ASSERT_EQUAL(eng.device_errors, errs);
	sw_qp_destroy(&eng, a.q);
	sw_qp_destroy(&eng, b.q);
	sw_qp_destroy(&eng, pa.q);
	sw_qp_destroy(&eng, pb.q);
	sw_cq_destroy(&eng, shared_cq.slot);
	RTE_PER_LCORE(_lcore_id) = LCORE_ID_ANY;
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "wrap_and_owner", test_wrap_and_owner },
		{ "doorbell_rules", test_doorbell_rules },
		{ "doorbell_foreign_looker", test_doorbell_foreign_looker },
		{ "bf_copy_wrap", test_bf_copy_wrap },
		{ "hot_set", test_hot_set },
		{ "lcore_home", test_lcore_home },
		{ "lock_held", test_lock_held },
		{ "lock_stopped_peer", test_lock_stopped_peer },
		{ "lock_dead_holder", test_lock_dead_holder },
		{ "shared_register", test_shared_register },
		{ NULL, NULL },
	};

	return rdx_ut_run("sw_engine", cases, suite_init, suite_fini);
}
