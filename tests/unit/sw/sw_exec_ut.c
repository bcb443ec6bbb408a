/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of WQE execution (drivers/mlx5/sw/sw_exec.c), driven
 * directly with hand-built WQEs: malformed WQEs, SEND and responder CQE
 * fields, a receive data segment of byte count 0 refused, recv_wqes
 * after a receive-CQ overrun, each destination byte stored once and in
 * order (store tracer, x86-64), a hostile peer scribbling its tables and
 * ours.
 */
#include "../../../drivers/mlx5/sw/sw_obj.c"
#include "../../../drivers/mlx5/sw/sw_cq.c"
#include "../../../drivers/mlx5/sw/sw_mem.c"
#include "../../../drivers/mlx5/sw/sw_exec.c"
#include "../../../drivers/mlx5/sw/sw_exec_ud.c"
#include "../../../drivers/mlx5/sw/sw_engine.c"
#include "sw_engine_ut.h"

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
bad_send_inline_len(struct tqp *a, uint32_t key, uint8_t *m)
{
	uint32_t hdr = htobe32(61 | MLX5_INLINE_SEG); /* max_inline is 60 */

	ctrl(a, MLX5_OPCODE_SEND, 1 + 5, 0, 0);
	put(a, a->last, 16, &hdr, 4);
}

static void
bad_send_inline_ds(struct tqp *a, uint32_t key, uint8_t *m)
{
	uint32_t hdr = htobe32(30 | MLX5_INLINE_SEG); /* needs DS 1 + 3 */

	ctrl(a, MLX5_OPCODE_SEND, 1 + 2, 0, 0);
	put(a, a->last, 16, &hdr, 4);
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
	check_malformed(bad_send_inline_len, "send inline len");
	check_malformed(bad_send_inline_ds, "send inline ds");
	check_malformed(bad_zero_sge, "zero sge");
	check_malformed(bad_atomic_ds, "atomic ds");
	check_malformed(bad_atomic_len, "atomic len");
	check_malformed(bad_opmod, "opmod");
}

/*
 * The inline RC WRITE fast path reports what the general path does: a bad
 * rkey, a region without REMOTE_WRITE, bounds: REMOTE_ACCESS (0x13);
 * a zero-length inline WRITE checks no rkey and completes.
 */
static void
inline_write(struct tqp *a, uint64_t addr, uint32_t key, uint32_t len, uint8_t flags)
{
	uint32_t hdr = htobe32(len | MLX5_INLINE_SEG);
	static const uint8_t pay[16] = "0123456789abcdef";

	ctrl(a, MLX5_OPCODE_RDMA_WRITE, 2 + (4 + len + 15) / 16, flags, 0);
	raddr(a, a->last, addr, key);
	put(a, a->last, 32, &hdr, 4);
	if (len != 0)
		put(a, a->last, 36, pay, len);
	ring(a);
}

static void
test_inline_write_errors(void)
{
	struct mlx5_cqe64 cqe;
	struct mlx5_err_cqe *e = (struct mlx5_err_cqe *)&cqe;
	const struct {
		int key;             /* 0: the good key, 1: a bad one, 2: read-only region */
		uint32_t off, len;
		uint8_t synd;        /* 0: success */
	} cases[] = {
		{ 0, 0, 8, 0 },
		{ 0, 0, 0, 0 },
		{ 1, 0, 0, 0 },      /* zero length: the rkey is not checked */
		{ 1, 0, 8, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR },
		{ 2, 0, 8, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR },
		{ 0, 4090, 8, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR },
	};
	uint32_t i;

	for (i = 0; i < RTE_DIM(cases); i++) {
		uint32_t key, rokey;
		struct tqp a, b;
		struct tcq c;
		uint8_t *m, *ro;

		cq_make(&c, 16);
		qp_make(&a, &c, 4, 4, 32);
		qp_make(&b, &c, 4, 4, 0);
		qp_connect(&a, &b);
		m = mem(4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, &key);
		ro = mem(4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ, &rokey);
		memset(m, 0, 64);
		inline_write(&a, (uintptr_t)(cases[i].key == 2 ? ro : m) + cases[i].off,
			     cases[i].key == 0 ? key : cases[i].key == 1 ? key ^ 0x80 : rokey,
			     cases[i].len, MLX5_WQE_CTRL_CQ_UPDATE);
		CU_ASSERT_EQUAL(sw_engine_progress(&eng), 1);
		CU_ASSERT_FATAL(cq_get(&c, &cqe));
		if (cases[i].synd == 0) {
			CU_ASSERT_EQUAL(cqe.op_own >> 4, MLX5_CQE_REQ);
			CU_ASSERT_EQUAL(be32toh(cqe.byte_cnt), cases[i].len);
			CU_ASSERT(memcmp(m, "01234567", cases[i].len) == 0);
			CU_ASSERT_EQUAL(a.q->s->state, RDX_SW_QPS_RTS);
		} else {
			CU_ASSERT_EQUAL(cqe.op_own >> 4, MLX5_CQE_REQ_ERR);
			CU_ASSERT_EQUAL(e->syndrome, cases[i].synd);
			CU_ASSERT_EQUAL(a.q->s->state, RDX_SW_QPS_ERR);
			CU_ASSERT_EQUAL(m[0], 0);
		}
		sw_qp_destroy(&eng, a.q);
		sw_qp_destroy(&eng, b.q);
		sw_cq_destroy(&eng, c.slot);
	}
}

/*
 * Inline RC SENDs (sw_exec's inline SEND shape): lengths 1..60 (DS 2..5,
 * one or two WQEBBs, the second one wrapping the 4-WQEBB ring) land in the
 * posted receive with the responder's byte count; a zero-length inline
 * SEND (the general path) completes too; the receive buffer too small:
 * REMOTE_INVALID_REQUEST at the requester, as the general path says.
 */
static void
test_inline_send(void)
{
	static const uint32_t lens[] = { 1, 12, 30, 44, 59, 60, 0 };
	struct mlx5_cqe64 cqe;
	struct mlx5_err_cqe *e = (struct mlx5_err_cqe *)&cqe;
	struct mlx5_wqe_data_seg *r;
	uint8_t pay[64], *m;
	struct tqp a, b;
	struct tcq c, rc;
	uint32_t key, i, hdr;

	for (i = 0; i < sizeof(pay); i++)
		pay[i] = (uint8_t)(0xa0 + i);
	cq_make(&c, 32);
	cq_make(&rc, 32);
	qp_make(&a, &c, 4, 0, 60);
	qp_make(&b, &rc, 4, 8, 0);
	qp_connect(&a, &b);
	m = mem(4096, IBV_ACCESS_LOCAL_WRITE, &key);
	r = (struct mlx5_wqe_data_seg *)b.dv.rq.buf;
	for (i = 0; i <= RTE_DIM(lens); i++) {
		const uint32_t len = i < RTE_DIM(lens) ? lens[i] : 40;
		const uint32_t room = i < RTE_DIM(lens) ? 64 : 39;
		const uint32_t stride = b.dv.rq.stride / 16;

		memset(m + 64 * i, 0, 64);
		mlx5dv_set_data_seg(&r[(i & (b.dv.rq.wqe_cnt - 1)) * stride], room, key,
				    (uintptr_t)(m + 64 * i));
		/* a terminator, as mlx5_post_recv writes one (a data segment
		 * of byte count 0 is refused, not skipped) */
		mlx5dv_set_data_seg(&r[(i & (b.dv.rq.wqe_cnt - 1)) * stride + 1], 0,
				    MLX5_INVALID_LKEY, 0);
		b.dv.dbrec[MLX5_RCV_DBR] = htobe32(i + 1);
		hdr = htobe32(len | MLX5_INLINE_SEG);
		ctrl(&a, MLX5_OPCODE_SEND, 1 + (4 + len + 15) / 16, MLX5_WQE_CTRL_CQ_UPDATE, 0);
		put(&a, a.last, 16, &hdr, 4);
		put(&a, a.last, 20, pay, len);
		ring(&a);
		CU_ASSERT_EQUAL(sw_engine_progress(&eng), 1);
		CU_ASSERT_FATAL(cq_get(&c, &cqe));
		if (i == RTE_DIM(lens)) {
			CU_ASSERT_EQUAL(cqe.op_own >> 4, MLX5_CQE_REQ_ERR);
			CU_ASSERT_EQUAL(e->syndrome, MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR);
			CU_ASSERT_EQUAL(a.q->s->state, RDX_SW_QPS_ERR);
			CU_ASSERT_FATAL(cq_get(&rc, &cqe));
			CU_ASSERT_EQUAL(cqe.op_own >> 4, MLX5_CQE_RESP_ERR);
			CU_ASSERT_EQUAL(e->syndrome, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
			CU_ASSERT_EQUAL(m[64 * i], 0);
			break;
		}
		CU_ASSERT_EQUAL(cqe.op_own >> 4, MLX5_CQE_REQ);
		CU_ASSERT_EQUAL(be32toh(cqe.byte_cnt), len);
		CU_ASSERT_FATAL(cq_get(&rc, &cqe));
		CU_ASSERT_EQUAL(cqe.op_own >> 4, MLX5_CQE_RESP_SEND);
		CU_ASSERT_EQUAL(be32toh(cqe.byte_cnt), len);
		CU_ASSERT_EQUAL(be16toh(cqe.wqe_counter), i);
		CU_ASSERT_EQUAL(be32toh(cqe.sop_drop_qpn) & 0xffffff, b.q->s->qpn);
		CU_ASSERT(memcmp(m + 64 * i, pay, len) == 0);
		CU_ASSERT_EQUAL(m[64 * i + len], 0);
	}
	sw_qp_destroy(&eng, a.q);
	sw_qp_destroy(&eng, b.q);
	sw_cq_destroy(&eng, c.slot);
	sw_cq_destroy(&eng, rc.slot);
}

/*
 * Receive WQEs of 16 bytes, four to a cache line: the requester copies the
 * posted ones of a line at once (sw_peer_rwqe). Every SEND must land in the
 * buffer of the receive its counter names, posted ones beyond the copied
 * line included, and after the ring wraps the reposted WQEs' new buffers,
 * never a stale copy.
 */
static void
rq16_post(struct tqp *b, uint32_t cnt, uint8_t *addr, uint32_t key)
{
	struct mlx5_wqe_data_seg *r = (struct mlx5_wqe_data_seg *)b->dv.rq.buf;

	mlx5dv_set_data_seg(&r[cnt & (b->dv.rq.wqe_cnt - 1)], 16, key, (uintptr_t)addr);
}

static void
send8(struct tqp *a, uint64_t v)
{
	uint32_t hdr = htobe32(8 | MLX5_INLINE_SEG);

	ctrl(a, MLX5_OPCODE_SEND, 2, 0, 0);
	put(a, a->last, 16, &hdr, 4);
	put(a, a->last, 20, &v, 8);
	ring(a);
}

static void
test_recv_line_copies(void)
{
	struct sw_qp_params p = {
		.sq_depth = 4, .rq_depth = 8, .max_send_sge = 1, .max_recv_sge = 1,
	};
	struct mlx5_cqe64 cqe;
	struct tqp a, b;
	struct tcq c;
	uint32_t key, i, cnt = 0, posted = 0;
	uint8_t *m;
	uint64_t v;

	cq_make(&c, 32);
	qp_make(&a, &c, 16, 0, 60);
	p.send_cq = p.recv_cq = c.slot;
	memset(&b, 0, sizeof(b));
	b.q = sw_qp_create(&eng, &p, &b.dv);
	CU_ASSERT_FATAL(b.q != NULL);
	CU_ASSERT_EQUAL_FATAL(b.dv.rq.stride, 16);
	qp_connect(&a, &b);
	m = mem(4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, &key);
	memset(m, 0, 4096);
	/* 3 posted, 3 sent; then 5 more posted (one line and a half), 5 sent;
	 * then the ring wraps: counters 8..13 in slots 0..5 with new buffers */
	for (i = 0; i < 3; i++)
		rq16_post(&b, posted++, m + 64 * i, key);
	b.dv.dbrec[MLX5_RCV_DBR] = htobe32(posted);
	for (i = 0; i < 3; i++, cnt++) {
		send8(&a, 0x1000 + cnt);
		CU_ASSERT_EQUAL(sw_engine_progress(&eng), 1);
	}
	for (i = 3; i < 8; i++)
		rq16_post(&b, posted++, m + 64 * i, key);
	b.dv.dbrec[MLX5_RCV_DBR] = htobe32(posted);
	for (; cnt < 8; cnt++) {
		send8(&a, 0x1000 + cnt);
		CU_ASSERT_EQUAL(sw_engine_progress(&eng), 1);
	}
	for (i = 0; i < 6; i++)
		rq16_post(&b, posted++, m + 2048 + 64 * i, key);
	b.dv.dbrec[MLX5_RCV_DBR] = htobe32(posted);
	for (; cnt < 14; cnt++) {
		send8(&a, 0x1000 + cnt);
		CU_ASSERT_EQUAL(sw_engine_progress(&eng), 1);
	}
	for (i = 0; i < 14; i++) {
		CU_ASSERT_FATAL(cq_get(&c, &cqe));
		CU_ASSERT_EQUAL(cqe.op_own >> 4, MLX5_CQE_RESP_SEND);
		CU_ASSERT_EQUAL(be16toh(cqe.wqe_counter), i);
		memcpy(&v, i < 8 ? m + 64 * i : m + 2048 + 64 * (i - 8), 8);
		CU_ASSERT_EQUAL(v, 0x1000 + i);
	}
	CU_ASSERT_FALSE(cq_get(&c, &cqe));
	/* the first lap's buffers hold the first lap's messages only */
	for (i = 0; i < 8; i++) {
		memcpy(&v, m + 64 * i, 8);
		CU_ASSERT_EQUAL(v, 0x1000 + i);
	}
	/* no receive posted: RNR, nothing written */
	send8(&a, 0x2000);
	CU_ASSERT_EQUAL(sw_engine_progress(&eng), 0);
	CU_ASSERT_FALSE(cq_get(&c, &cqe));
	sw_qp_destroy(&eng, a.q);
	sw_qp_destroy(&eng, b.q);
	sw_cq_destroy(&eng, c.slot);
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

/* RQ WQE i of t (stride 64: 4 receive SGEs): one SGE of len bytes at p,
 * then a terminator; the RQ doorbell record moved past it. */
static void
rq_post1(struct tqp *t, uint32_t i, uint8_t *p, uint32_t len, uint32_t key)
{
	struct mlx5_wqe_data_seg *r = (struct mlx5_wqe_data_seg *)(void *)
		((uint8_t *)t->dv.rq.buf + (size_t)(i & (t->dv.rq.wqe_cnt - 1)) * t->dv.rq.stride);

	mlx5dv_set_data_seg(&r[0], len, key, (uintptr_t)p);
	mlx5dv_set_data_seg(&r[1], 0, MLX5_INVALID_LKEY, 0);
	t->dv.dbrec[MLX5_RCV_DBR] = htobe32((i + 1) & 0xffff);
}

/*
 * A receive data segment of byte count 0 is not "empty" on mlx5 (the PRM
 * does not define it so; libmlx5 and drivers/mlx5/mlx5_rq.c never write
 * one): the receive is refused like one with a bad lkey (LOCAL_PROT 0x04
 * on the responder's receive CQ, REMOTE_OP 0x14 at the requester), never
 * skipped with the payload scattered into the next segment.
 */
static void
test_zero_len_recv_seg(void)
{
	struct mlx5_cqe64 cqe;
	struct mlx5_err_cqe *e = (struct mlx5_err_cqe *)&cqe;
	uint64_t v = 0x1122334455667788ULL, zero = 0, recv0;
	struct mlx5_wqe_data_seg *r;
	struct tqp a, b;
	struct tcq ca, cb;
	uint32_t key;
	uint8_t *m;

	cq_make(&ca, 16);
	cq_make(&cb, 16);
	qp_make(&a, &ca, 4, 4, 0);
	qp_make(&b, &cb, 4, 4, 0);          /* 4 receive SGEs: stride 64 */
	qp_connect(&a, &b);
	m = mem(4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, &key);
	memset(m, 0, 4096);
	memcpy(m + 2048, &v, 8);
	/* {byte count 0, valid lkey}, {16 B}, terminator */
	r = (struct mlx5_wqe_data_seg *)b.dv.rq.buf;
	mlx5dv_set_data_seg(&r[0], 0, key, (uintptr_t)m);
	mlx5dv_set_data_seg(&r[1], 16, key, (uintptr_t)(m + 256));
	mlx5dv_set_data_seg(&r[2], 0, MLX5_INVALID_LKEY, 0);
	b.dv.dbrec[MLX5_RCV_DBR] = htobe32(1);
	recv0 = recv_wqes_now();
	ctrl(&a, MLX5_OPCODE_SEND, 2, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	dseg(&a, a.last, 16, (uintptr_t)m + 2048, 8, key);
	ring(&a);
	sw_engine_progress(&eng);
	/* the responder: LOCAL_PROT for receive 0, its QP in error */
	CU_ASSERT_FATAL(cq_get(&cb, &cqe));
	CU_ASSERT_EQUAL(cqe.op_own >> 4, MLX5_CQE_RESP_ERR);
	CU_ASSERT_EQUAL(e->syndrome, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	CU_ASSERT_EQUAL(be16toh(cqe.wqe_counter), 0);
	CU_ASSERT_FALSE(cq_get(&cb, &cqe));
	CU_ASSERT_EQUAL(b.q->s->state, RDX_SW_QPS_ERR);
	/* the requester: REMOTE_OP, as for a bad receive lkey */
	CU_ASSERT_FATAL(cq_get(&ca, &cqe));
	CU_ASSERT_EQUAL(cqe.op_own >> 4, MLX5_CQE_REQ_ERR);
	CU_ASSERT_EQUAL(e->syndrome, MLX5_CQE_SYNDROME_REMOTE_OP_ERR);
	CU_ASSERT_FALSE(cq_get(&ca, &cqe));
	/* nothing scattered: not into the next segment, not at the first */
	CU_ASSERT(memcmp(m + 256, &zero, 8) == 0);
	CU_ASSERT(memcmp(m, &zero, 8) == 0);
	/* consumed (its error CQE written), as a bad-lkey receive is */
	CU_ASSERT_EQUAL(recv_wqes_now(), recv0 + 1);
	sw_qp_destroy(&eng, a.q);
	sw_qp_destroy(&eng, b.q);
	sw_cq_destroy(&eng, ca.slot);
	sw_cq_destroy(&eng, cb.slot);
}

/*
 * n signaled 8-byte SENDs from a into n receives of b, whose receive CQ
 * holds 4 CQEs (depth 3); receive bad (if below n) has a bad lkey; want_ok
 * receive CQEs succeed. recv_wqes must grow by exactly that many: a
 * receive whose CQE (success or error) could not be written stays posted
 * (the flush completes it) and is not consumed.
 */
static void
check_recv_overrun(uint32_t n, uint32_t bad, uint32_t want_ok)
{
	struct mlx5_cqe64 cqe;
	struct mlx5_err_cqe *e = (struct mlx5_err_cqe *)&cqe;
	uint32_t i, ok = 0, req_ok = 0, req_err = 0, flushed = 0;
	uint64_t recv0;
	struct tqp a, b;
	struct tcq ca, cb;
	uint32_t key;
	uint8_t *m;

	cq_make(&ca, 16);
	cq_make(&cb, 3);
	CU_ASSERT_FATAL(cb.dv.cqe_cnt == 4);
	qp_make(&a, &ca, 8, 8, 0);
	qp_make(&b, &cb, 8, 8, 0);
	qp_connect(&a, &b);
	m = mem(4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, &key);
	memset(m, 0x5a, 8);
	for (i = 0; i < n; i++)
		rq_post1(&b, i, m + 1024 + 64 * i, 64, i == bad ? key + 1 : key);
	recv0 = recv_wqes_now();
	for (i = 0; i < n; i++) {
		ctrl(&a, MLX5_OPCODE_SEND, 2, MLX5_WQE_CTRL_CQ_UPDATE, 0);
		dseg(&a, a.last, 16, (uintptr_t)m, 8, key);
	}
	ring(&a);
	for (i = 0; i < 8; i++)
		sw_engine_progress(&eng);
	while (cq_get(&cb, &cqe))
		ok += (cqe.op_own >> 4) == MLX5_CQE_RESP_SEND;
	CU_ASSERT_EQUAL(ok, want_ok);
	CU_ASSERT(eng.self->hdr->cqs[cb.slot].overruns >= 1);
	CU_ASSERT_EQUAL(b.q->s->state, RDX_SW_QPS_ERR);
	CU_ASSERT_EQUAL(recv_wqes_now(), recv0 + ok);
	/* the requester: the overrun's WQE REMOTE_OP, the rest flushed */
	while (cq_get(&ca, &cqe)) {
		if ((cqe.op_own >> 4) == MLX5_CQE_REQ)
			req_ok++;
		else if (e->syndrome == MLX5_CQE_SYNDROME_REMOTE_OP_ERR)
			req_err++;
	}
	CU_ASSERT_EQUAL(req_ok, want_ok);
	CU_ASSERT_EQUAL(req_err, 1);
	/* room again: the receives left posted are flushed, not consumed */
	for (i = 0; i < 8; i++)
		sw_engine_progress(&eng);
	while (cq_get(&cb, &cqe))
		flushed += (cqe.op_own >> 4) == MLX5_CQE_RESP_ERR &&
			   e->syndrome == MLX5_CQE_SYNDROME_WR_FLUSH_ERR;
	CU_ASSERT_EQUAL(flushed, n - want_ok);
	CU_ASSERT_EQUAL(recv_wqes_now(), recv0 + want_ok);
	sw_qp_destroy(&eng, a.q);
	sw_qp_destroy(&eng, b.q);
	sw_cq_destroy(&eng, ca.slot);
	sw_cq_destroy(&eng, cb.slot);
}

/* recv_wqes ("RQ WQEs consumed") after a receive-CQ overrun: the
 * successful receive CQE that did not fit (6 SENDs, 4 CQEs), and the
 * error CQE that did not fit (the 5th receive's bad lkey), count nothing. */
static void
test_recv_cq_overrun_count(void)
{
	check_recv_overrun(6, UINT32_MAX, 4);
	check_recv_overrun(5, 4, 4);
}

/*
 * Store tracer (x86-64): the traced pages are read-only; the first store
 * into them faults, the SIGSEGV handler snapshots the pages, makes them
 * writable and sets the trap flag, so the CPU stops right after that one
 * store instruction; the SIGTRAP handler finds the bytes it changed,
 * counts them, remembers their value, writes the sentinel back (like a
 * consumer clearing a marker) and protects the pages again. Every store
 * changes the bytes it covers (sources never hold the sentinel), so a byte
 * stored twice counts 2 -- including the overlapping second store glibc's
 * memmove makes for 2..3, 4..7, 8..15 ... bytes.
 */
#define TR_MAX   (2 * 4096)
#define TR_FILL  0xee
#define TR_STORES 4096

static struct {
	uint8_t *base;
	size_t len;
	uint8_t snap[TR_MAX];
	uint8_t cnt[TR_MAX];
	uint8_t val[TR_MAX];
	uint32_t nst;                   /* store instructions seen */
	uint32_t lo[TR_STORES], hi[TR_STORES]; /* bytes each one changed */
} tr;

static void
tr_segv(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	uint8_t *a = si->si_addr;

	if (tr.base == NULL || a < tr.base || a >= tr.base + tr.len) {
		signal(sig, SIG_DFL); /* a real crash: let it happen */
		return;
	}
	memcpy(tr.snap, tr.base, tr.len);
	mprotect(tr.base, tr.len, PROT_READ | PROT_WRITE);
#ifdef __x86_64__
	uc->uc_mcontext.gregs[REG_EFL] |= 0x100; /* TF: trap after one instruction */
#else
	RTE_SET_USED(uc);
#endif
}

static void
tr_trap(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	uint32_t lo = UINT32_MAX, hi = 0;
	size_t i;

	RTE_SET_USED(sig);
	RTE_SET_USED(si);
#ifdef __x86_64__
	uc->uc_mcontext.gregs[REG_EFL] &= ~0x100LL;
#else
	RTE_SET_USED(uc);
#endif
	for (i = 0; i < tr.len; i++) {
		if (tr.base[i] == tr.snap[i])
			continue;
		if (tr.cnt[i] < 255)
			tr.cnt[i]++;
		tr.val[i] = tr.base[i];
		tr.base[i] = TR_FILL;
		lo = RTE_MIN(lo, (uint32_t)i);
		hi = (uint32_t)i;
	}
	if (lo != UINT32_MAX && tr.nst < TR_STORES) {
		tr.lo[tr.nst] = lo;
		tr.hi[tr.nst] = hi;
		tr.nst++;
	}
	mprotect(tr.base, tr.len, PROT_READ);
}

/* Start tracing stores into [base, base + len) (page aligned, filled). */
static void
tr_begin(uint8_t *base, size_t len)
{
	struct sigaction sa;

	CU_ASSERT_FATAL(len <= TR_MAX && ((uintptr_t)base & 4095) == 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_flags = SA_SIGINFO;
	sa.sa_sigaction = tr_segv;
	sigaction(SIGSEGV, &sa, NULL);
	sa.sa_sigaction = tr_trap;
	sigaction(SIGTRAP, &sa, NULL);
	memset(base, TR_FILL, len);
	memset(tr.cnt, 0, sizeof(tr.cnt));
	tr.nst = 0;
	tr.len = len;
	tr.base = base;
	CU_ASSERT_FATAL(mprotect(base, len, PROT_READ) == 0);
}

static void
tr_end(void)
{
	mprotect(tr.base, tr.len, PROT_READ | PROT_WRITE);
	tr.base = NULL;
	signal(SIGSEGV, SIG_DFL);
	signal(SIGTRAP, SIG_DFL);
}

/* bytes [off, off + len) of the traced area each stored once with the
 * value exp[], nothing else stored, stores in increasing address order,
 * the last store covering the final byte (the final 8 bytes exactly when
 * last8). Returns the number of failed checks (and prints the first). */
static int
tr_check(const char *what, uint32_t off, uint32_t len, const uint8_t *exp, bool last8)
{
	uint32_t i;

	for (i = 0; i < tr.len; i++) {
		bool in = i >= off && i < off + len;
		uint8_t want = in ? 1 : 0;

		if (tr.cnt[i] != want) {
			fprintf(stderr, "%s: byte %u stored %u times (want %u)\n", what,
				i - off, tr.cnt[i], want);
			return 1;
		}
		if (in && tr.val[i] != exp[i - off]) {
			fprintf(stderr, "%s: byte %u is 0x%x, want 0x%x\n", what, i - off,
				tr.val[i], exp[i - off]);
			return 1;
		}
	}
	for (i = 1; i < tr.nst; i++)
		if (tr.lo[i] <= tr.hi[i - 1]) {
			fprintf(stderr, "%s: store %u [%u, %u] not above store %u [%u, %u]\n",
				what, i, tr.lo[i] - off, tr.hi[i] - off, i - 1,
				tr.lo[i - 1] - off, tr.hi[i - 1] - off);
			return 1;
		}
	if (len != 0 && (tr.nst == 0 || tr.hi[tr.nst - 1] != off + len - 1 ||
			 (last8 && tr.lo[tr.nst - 1] != off + len - 8))) {
		fprintf(stderr, "%s: the last store is not the final %s\n", what,
			last8 ? "8 bytes" : "byte");
		return 1;
	}
	return 0;
}

static uint8_t *
tr_area(void)
{
	static uint8_t *area;

	if (area == NULL) {
		area = mmap(NULL, TR_MAX, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		CU_ASSERT_FATAL(area != MAP_FAILED);
	}
	return area;
}

/* sw_copy of one and of several spans (gather and scatter): each byte
 * once, in order, the final unit last. Fails on a memmove-based copy. */
static void
test_store_once(void)
{
	static const uint32_t sizes[] = {
		1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 24, 31, 32, 33, 63, 64, 65,
		100, 128, 255, 256, 257, 1000, 4096, 5000,
	};
	static const uint32_t cuts[][6] = {  /* span lengths, 0 ends */
		{ 3, 5, 1, 20, 7, 0 }, { 1, 2, 9, 5, 30, 0 }, { 40, 3, 0 },
		{ 6, 1, 0 }, { 100, 100, 37, 2, 1, 0 }, { 2, 2, 2, 0 },
	};
	uint8_t *area = tr_area();
	static uint8_t src[6000];
	struct sw_span d[6], s[6];
	uint32_t i, j, k, off, len;
	int bad = 0;
	char what[64];

#ifndef __x86_64__
	printf("skipped: the store tracer single-steps with the x86 trap flag\n");
	return;
#endif

	for (i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 7 + 1) == TR_FILL ? 0x11 : (uint8_t)(i * 7 + 1);
	for (i = 0; i < RTE_DIM(sizes); i++)
		for (off = 0; off < 4; off += 3) {
			len = sizes[i];
			d[0].p = area + off;
			d[0].len = len;
			s[0].p = src;
			s[0].len = len;
			tr_begin(area, TR_MAX);
			sw_copy(d, 1, s, 1, len);
			tr_end();
			snprintf(what, sizeof(what), "copy %u at +%u", len, off);
			bad += tr_check(what, off, len, src, len >= 8);
		}
	/* gather (spans in the source) and scatter (in the destination) */
	for (i = 0; i < RTE_DIM(cuts); i++)
		for (k = 0; k < 2; k++) {
			struct sw_span *cut = k == 0 ? s : d, *one = k == 0 ? d : s;
			uint32_t n = 0, at = 0, last = 0;

			for (j = 0; cuts[i][j] != 0; j++) {
				cut[j].p = (k == 0 ? src : area + 5 + j) + at;
				cut[j].len = cuts[i][j];
				at += cuts[i][j];
				last = cuts[i][j];
				n++;
			}
			/* scatter: spans 1 byte apart (the gaps stay untouched) */
			one[0].p = k == 0 ? area + 5 : src;
			one[0].len = at;
			tr_begin(area, TR_MAX);
			sw_copy(d, k == 0 ? 1 : n, s, k == 0 ? n : 1, at);
			tr_end();
			snprintf(what, sizeof(what), "%s #%u", k == 0 ? "gather" : "scatter", i);
			if (k == 0) {
				bad += tr_check(what, 5, at, src, at >= 8);
				continue;
			}
			/* per destination span: its bytes once with the right values */
			for (j = 0, at = 0; j < n; j++) {
				uint32_t o = (uint32_t)(d[j].p - area), b;

				for (b = 0; b < d[j].len; b++)
					if (tr.cnt[o + b] != 1 || tr.val[o + b] != src[at + b]) {
						fprintf(stderr, "%s: span %u byte %u stored %u times\n",
							what, j, b, tr.cnt[o + b]);
						bad++;
						break;
					}
				at += (uint32_t)d[j].len;
				if (j + 1 < n && tr.cnt[o + d[j].len] != 0) {
					fprintf(stderr, "%s: gap after span %u written\n", what, j);
					bad++;
				}
			}
			for (j = 1; j < tr.nst; j++)
				if (tr.lo[j] <= tr.hi[j - 1]) {
					fprintf(stderr, "%s: stores out of order\n", what);
					bad++;
					break;
				}
			/* the last store ends the last span; 8 bytes when it fits */
			if (tr.nst == 0 ||
			    tr.hi[tr.nst - 1] != (uint32_t)(d[n - 1].p - area) + last - 1 ||
			    (last >= 8 && at >= 8 &&
			     tr.hi[tr.nst - 1] - tr.lo[tr.nst - 1] != 7)) {
				fprintf(stderr, "%s: the last store is not the final unit\n", what);
				bad++;
			}
		}
	CU_ASSERT_EQUAL(bad, 0);
}

/* Through the engine: an inline WRITE of 2 bytes (the ping-pong's marker
 * case), a WRITE of 100 from an SGE and an atomic's result land once each;
 * the CQE body and op_own too, op_own last. */
static void
test_store_once_engine(void)
{
	struct tqp a, b;
	struct tcq c;
	uint32_t key, hdr, i;
	uint8_t *m, *src, pat[100];
	uint64_t one = htobe64(5), errs = eng.device_errors;
	int bad = 0;

#ifndef __x86_64__
	printf("skipped: the store tracer single-steps with the x86 trap flag\n");
	return;
#endif

	cq_make(&c, 63); /* 64 CQEs: one page */
	qp_make(&a, &c, 16, 0, 60);
	qp_make(&b, &c, 16, 0, 0);
	qp_connect(&a, &b);
	m = mem(3 * 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		IBV_ACCESS_REMOTE_ATOMIC, &key);
	src = m + 2 * 4096;
	for (i = 0; i < sizeof(pat); i++)
		pat[i] = (uint8_t)(0x80 | i);
	memcpy(src, pat, sizeof(pat));
	/* inline 2-byte WRITE */
	hdr = htobe32(2 | MLX5_INLINE_SEG);
	ctrl(&a, MLX5_OPCODE_RDMA_WRITE, 3, 0, 0);
	raddr(&a, a.last, (uintptr_t)m + 6, key);
	put(&a, a.last, 32, &hdr, 4);
	put(&a, a.last, 36, pat, 2);
	ring(&a);
	tr_begin(m, 2 * 4096);
	CU_ASSERT_EQUAL(sw_engine_progress(&eng), 1);
	tr_end();
	bad += tr_check("inline write 2", 6, 2, pat, false);
	/* inline 44-byte WRITE (the inline fast path): body, then the last 8 */
	hdr = htobe32(44 | MLX5_INLINE_SEG);
	ctrl(&a, MLX5_OPCODE_RDMA_WRITE, 2 + 3, 0, 0);
	raddr(&a, a.last, (uintptr_t)m + 100, key);
	put(&a, a.last, 32, &hdr, 4);
	put(&a, a.last, 36, pat, 44);
	ring(&a);
	tr_begin(m, 2 * 4096);
	CU_ASSERT_EQUAL(sw_engine_progress(&eng), 1);
	tr_end();
	bad += tr_check("inline write 44", 100, 44, pat, true);
	/* WRITE of 100 bytes from an SGE */
	ctrl(&a, MLX5_OPCODE_RDMA_WRITE, 3, 0, 0);
	raddr(&a, a.last, (uintptr_t)m + 4000, key);
	dseg(&a, a.last, 32, (uintptr_t)src, 100, key);
	ring(&a);
	tr_begin(m, 2 * 4096);
	CU_ASSERT_EQUAL(sw_engine_progress(&eng), 1);
	tr_end();
	bad += tr_check("write 100 across a page", 4000, 100, pat, true);
	/* FAA: the original value returns into the local SGE, one 8-byte store;
	 * the CQE: every byte once, op_own last */
	memset(m + 4096 + 8, 0, 8);
	ctrl(&a, MLX5_OPCODE_ATOMIC_FA, 4, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	raddr(&a, a.last, (uintptr_t)m + 4096 + 8, key);
	put(&a, a.last, 32, &one, 8);
	dseg(&a, a.last, 48, (uintptr_t)m + 24, 8, key);
	ring(&a);
	*(uint64_t *)(void *)(m + 4096 + 8) = 0x1212121212121212ULL;
	tr_begin(m, 4096);
	CU_ASSERT_EQUAL(sw_engine_progress(&eng), 1);
	tr_end();
	bad += tr_check("FAA result", 24, 8, (const uint8_t *)"\x12\x12\x12\x12\x12\x12\x12\x12",
			true);
	CU_ASSERT_EQUAL(*(uint64_t *)(void *)(m + 4096 + 8), 0x1212121212121217ULL);
	/* the CQE of a NOP, traced in the CQ ring */
	ctrl(&a, MLX5_OPCODE_NOP, 1, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	ring(&a);
	tr_begin(c.dv.buf, 4096);
	CU_ASSERT_EQUAL(sw_engine_progress(&eng), 1);
	tr_end();
	for (i = 0; i < 64; i++)
		if (tr.cnt[64 + i] != 1) { /* CQE 1 (CQE 0 was the FAA's) */
			fprintf(stderr, "CQE byte %u stored %u times\n", i, tr.cnt[64 + i]);
			bad++;
			break;
		}
	CU_ASSERT(tr.nst > 0 && tr.lo[tr.nst - 1] == 64 + 63);
	CU_ASSERT_EQUAL(tr.val[64 + 63] >> 4, MLX5_CQE_REQ);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(eng.device_errors, errs);
	sw_qp_destroy(&eng, a.q);
	sw_qp_destroy(&eng, b.q);
	sw_cq_destroy(&eng, c.slot);
}

/*
 * A hostile peer scribbles its own rings, doorbell records, QP and CQ
 * fields and MR table (the segment the model trusts least) with random
 * values while our QP sends requests to it: every request gets exactly one
 * CQE (success or a remote/RNR/retry error), the engine never crashes,
 * hangs, or writes our memory outside the target. Then our own QP's
 * shared geometry is scribbled: the engine runs on its private copy.
 */
static struct sw_engine peng;  /* the "peer process" (its engine never runs) */
static uint64_t rs = 0x9e3779b97f4a7c15ULL;

static uint64_t
rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

static uint64_t
rnd_val(void)
{
	switch (rnd() % 6) {
	case 0: return 0;
	case 1: return rnd() % 8;
	case 2: return UINT32_MAX;
	case 3: return UINT64_MAX - rnd() % 16;
	case 4: return rnd() & 0xffffffffULL;
	default: return rnd();
	}
}

struct scrib {
	void *p;
	uint32_t w;   /* width: 1, 2, 4, 8 */
	uint64_t old;
};

static void
scrib_do(struct scrib *x, void *p, uint32_t w)
{
	uint64_t v = rnd_val();

	x->p = p;
	x->w = w;
	x->old = 0;
	memcpy(&x->old, p, w);
	memcpy(p, &v, w);
}

#define SCRIB_ITERS 3000

static void
test_scribble(void)
{
	static const uint8_t ok_synd[] = {
		0, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR, MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR,
		MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR, MLX5_CQE_SYNDROME_REMOTE_OP_ERR,
		MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR, MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR,
	};
	struct mlx5_cqe64 cqe;
	struct mlx5_err_cqe *er = (struct mlx5_err_cqe *)&cqe;
	uint32_t ka, kb, kc, it, i, hist[256] = { 0 };
	uint8_t *ma, *mb, *canary, *pat;
	struct tcq ac, bc;
	int bad = 0;

	CU_ASSERT_FATAL(sw_engine_init(&peng) == 0);
	cq_make(&ac, 64);
	cq_make_e(&peng, &bc, 64);
	ma = mem(4096, IBV_ACCESS_LOCAL_WRITE, &ka);
	mb = mem_e(&peng, 4 * 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC, &kb);
	/* our memory that no request may touch: registered, no access flags */
	canary = mem(4096, 0, &kc);
	memset(canary, 0x5a, 4096);
	pat = malloc(4096);
	CU_ASSERT_FATAL(pat != NULL);
	for (i = 0; i < 4096; i++)
		pat[i] = (uint8_t)(i * 31 + 7);
	for (it = 0; it < SCRIB_ITERS; it++) {
		struct sw_qp_shm *ps;
		struct sw_cq_shm *pc;
		struct sw_mr_shm *pm = &peng.self->hdr->mrs[kb >> 8];
		struct scrib x[4];
		struct tqp a, b;
		struct mlx5_wqe_data_seg *r;
		uint32_t nx = 1 + (uint32_t)(rnd() % 3), op = (uint32_t)(rnd() % 4), k;
		uint64_t end;
		bool got = false;

		qp_make(&a, &ac, 16, 0, 0);
		qp_make_e(&peng, &b, &bc, 16, 16, 0);
		CU_ASSERT_FATAL(sw_qp_connect(&eng, a.q, peng.self->name, b.q->s->qpn,
					      1, 1, 1, 1) == 0);
		CU_ASSERT_FATAL(sw_qp_connect(&peng, b.q, eng.self->name, a.q->s->qpn,
					      1, 1, 1, 1) == 0);
		/* seen from here the peer is another process: no trusted table */
		if (a.q->peer_dom->shadow != NULL) {
			__atomic_fetch_sub(&a.q->peer_dom->shadow->refs, 1, __ATOMIC_ACQ_REL);
			a.q->peer_dom->shadow = NULL;
		}
		ps = b.q->s;
		pc = &peng.self->hdr->cqs[bc.slot];
		r = (struct mlx5_wqe_data_seg *)b.dv.rq.buf;
		mlx5dv_set_data_seg(&r[0], 256, kb, (uintptr_t)mb + 512);
		mlx5dv_set_data_seg(&r[1], 0, MLX5_INVALID_LKEY, 0);
		b.dv.dbrec[MLX5_RCV_DBR] = htobe32(1);
		memset(ma, 0, 4096);
		for (k = 0; k < nx; k++) {
			switch (rnd() % 22) {
			case 0: scrib_do(&x[k], &ps->rq_wqe_cnt, 4); break;
			case 1: scrib_do(&x[k], &ps->rq_stride, 4); break;
			case 2: scrib_do(&x[k], &ps->max_recv_sge, 4); break;
			case 3: scrib_do(&x[k], &ps->rq_off, 8); break;
			case 4: scrib_do(&x[k], &ps->dbrec_off, 8); break;
			case 5: scrib_do(&x[k], &ps->recv_cq, 4); break;
			case 6: scrib_do(&x[k], &ps->rq_ci, 4); break;
			case 7: scrib_do(&x[k], &ps->state, 4); break;
			case 8: scrib_do(&x[k], &ps->gen, 4); break;
			case 9: scrib_do(&x[k], (uint8_t *)&b.dv.dbrec[MLX5_RCV_DBR], 4); break;
			case 10: scrib_do(&x[k], (uint8_t *)r + (rnd() % 8) * 8, 8); break;
			case 11: scrib_do(&x[k], &pm->iova, 8); break;
			case 12: scrib_do(&x[k], &pm->len, 8); break;
			case 13: scrib_do(&x[k], &pm->shm_off, 8); break;
			case 14: scrib_do(&x[k], &pm->kind, 4); break;
			case 15: scrib_do(&x[k], &pm->access, 4); break;
			case 16: scrib_do(&x[k], &pm->local_addr, 8); break;
			case 17: scrib_do(&x[k], &pc->buf_off, 8); break;
			case 18: scrib_do(&x[k], &pc->cqe_cnt, 4); break;
			case 19: scrib_do(&x[k], &pc->log_cqe_cnt, 4); break;
			case 20: scrib_do(&x[k], &pc->dbrec_off, 8); break;
			default: scrib_do(&x[k], &peng.self->hdr->owner_pid, 4); break;
			}
		}
		/* local_addr with kind LOCAL and our pid: the classic forgery */
		if (nx <= 2 && rnd() % 4 == 0) {
			nx += 2;
			x[nx - 2].p = &pm->kind;
			x[nx - 2].w = 4;
			memcpy(&x[nx - 2].old, &pm->kind, 4);
			pm->kind = SW_MR_LOCAL;
			pm->owner_pid = eng.pid;
			x[nx - 1].p = &pm->local_addr;
			x[nx - 1].w = 8;
			memcpy(&x[nx - 1].old, &pm->local_addr, 8);
			pm->local_addr = (uintptr_t)canary - (uintptr_t)mb;
		}
		switch (op) {
		case 0: /* WRITE 100 */
			ctrl(&a, MLX5_OPCODE_RDMA_WRITE, 3, MLX5_WQE_CTRL_CQ_UPDATE, 0);
			raddr(&a, a.last, (uintptr_t)mb + 1024, kb);
			dseg(&a, a.last, 32, (uintptr_t)ma + 64, 100, ka);
			break;
		case 1: /* READ 100 */
			ctrl(&a, MLX5_OPCODE_RDMA_READ, 3, MLX5_WQE_CTRL_CQ_UPDATE, 0);
			raddr(&a, a.last, (uintptr_t)mb + 1024, kb);
			dseg(&a, a.last, 32, (uintptr_t)ma + 64, 100, ka);
			break;
		case 2: /* SEND 100 */
			ctrl(&a, MLX5_OPCODE_SEND, 2, MLX5_WQE_CTRL_CQ_UPDATE, 0);
			dseg(&a, a.last, 16, (uintptr_t)ma + 64, 100, ka);
			break;
		default: /* FAA */
			ctrl(&a, MLX5_OPCODE_ATOMIC_FA, 4, MLX5_WQE_CTRL_CQ_UPDATE, 0);
			raddr(&a, a.last, (uintptr_t)mb + 2048, kb);
			put(&a, a.last, 32, &(uint64_t){ htobe64(1) }, 8);
			dseg(&a, a.last, 48, (uintptr_t)ma + 8, 8, ka);
			break;
		}
		ring(&a);
		/* hang guard only (RNR and ACK timers are microseconds here) */
		end = now_ms() + 5000;
		while (!got && now_ms() < end) {
			sw_engine_progress(&eng);
			got = cq_get(&ac, &cqe);
		}
		if (!got) {
			fprintf(stderr, "scribble %u (op %u): no completion\n", it, op);
			bad++;
		} else {
			uint8_t sy = (cqe.op_own >> 4) == MLX5_CQE_REQ ? 0 : er->syndrome;

			hist[sy]++;
			if (memchr(ok_synd, sy, sizeof(ok_synd)) == NULL) {
				fprintf(stderr, "scribble %u (op %u): syndrome 0x%x\n", it, op, sy);
				bad++;
			}
			for (i = 0; i < 8; i++)
				sw_engine_progress(&eng);
			if (cq_get(&ac, &cqe)) {
				fprintf(stderr, "scribble %u: a second CQE\n", it);
				bad++;
			}
		}
		for (k = nx; k-- > 0;)
			memcpy(x[k].p, &x[k].old, x[k].w);
		pm->owner_pid = eng.pid;
		/* nothing of ours outside the request's target changed */
		for (i = 0; i < 4096; i++)
			if (canary[i] != 0x5a) {
				fprintf(stderr, "scribble %u: canary byte %u written\n", it, i);
				bad++;
				memset(canary, 0x5a, 4096);
				break;
			}
		for (i = 0; i < 4096; i++)
			if (ma[i] != 0 && !(i >= 64 && i < 164) && !(i >= 8 && i < 16)) {
				fprintf(stderr, "scribble %u: local byte %u written\n", it, i);
				bad++;
				break;
			}
		while (cq_get(&bc, &cqe))
			;
		sw_qp_destroy(&eng, a.q);
		sw_qp_destroy(&peng, b.q);
		if (bad > 5)
			break;
	}
	CU_ASSERT_EQUAL(bad, 0);
	/* the scribbles did hit: several outcomes, device errors counted */
	CU_ASSERT(hist[0] > 0);
	CU_ASSERT(hist[MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR] > 0);
	CU_ASSERT(hist[MLX5_CQE_SYNDROME_REMOTE_OP_ERR] > 0);
	CU_ASSERT(eng.device_errors > 0);
	printf("\n    outcomes: ok %u, 0x01 %u, 0x12 %u, 0x13 %u, 0x14 %u, 0x15 %u, 0x16 %u; device errors %" PRIu64 "\n",
	       hist[0], hist[1], hist[0x12], hist[0x13], hist[0x14], hist[0x15], hist[0x16],
	       eng.device_errors);
	free(pat);
	sw_cq_destroy(&eng, ac.slot);
	sw_cq_destroy(&peng, bc.slot);
	sw_engine_fini(&peng);
}

/*
 * One peer (B) corrupts its own QP's and CQ's records in its segment while
 * another peer (C) keeps working with us: each round we SEND to both from
 * QPs that share one CQ. The corruption hurts only what involves B: our QP
 * to B completes with an error (0x14 for fields that are not a QP's or a
 * CQ's, 0x15 for an RQ doorbell record beyond the ring, each a device
 * error, B's QP fenced in ERR), or waits while B's lock word names a live
 * holder (it keeps its SEND until the word is free again, then completes);
 * a lock word that is no pid is taken over and reported. Our QP to C
 * always completes its SEND, C receives the bytes, our CQ and C's QP stay
 * as they were.
 */
static struct sw_engine ceng; /* the honest peer */

struct corrupt {
	const char *what;
	uint32_t w;        /* field width */
	uint64_t v;        /* written */
	uint8_t synd;      /* our QP to B: its CQE (0: success; 0xff: waits) */
	bool deverr;       /* a device error counted */
};

static void *
corrupt_field(struct tqp *b, struct tcq *bc, uint32_t k)
{
	struct sw_qp_shm *ps = b->q->s;
	struct sw_cq_shm *pc = &peng.self->hdr->cqs[bc->slot];

	switch (k) {
	case 0: return &ps->rq_wqe_cnt;
	case 1: return &ps->rq_stride;
	case 2: return &ps->rq_off;
	case 3: return &ps->dbrec_off;
	case 4: return &ps->recv_cq;
	case 5: return (uint8_t *)&b->dv.dbrec[MLX5_RCV_DBR];
	case 6: return &pc->buf_off;
	case 7: return &pc->cqe_cnt;
	case 8: return &pc->log_cqe_cnt;
	case 9: return &pc->dbrec_off;
	case 10: return &ps->lock;
	case 11: return &pc->lock;
	default: return &ps->lock;
	}
}

static void
test_corrupt_peer_fenced(void)
{
	const struct corrupt cases[] = {
		{ "QP rq_wqe_cnt", 4, 3, MLX5_CQE_SYNDROME_REMOTE_OP_ERR, true },
		{ "QP rq_stride", 4, 24, MLX5_CQE_SYNDROME_REMOTE_OP_ERR, true },
		{ "QP rq_off", 8, UINT64_MAX - 7, MLX5_CQE_SYNDROME_REMOTE_OP_ERR, true },
		{ "QP dbrec_off", 8, 1ULL << 40, MLX5_CQE_SYNDROME_REMOTE_OP_ERR, true },
		{ "QP recv_cq", 4, 999999, MLX5_CQE_SYNDROME_REMOTE_OP_ERR, true },
		{ "RQ doorbell record", 4, htobe32(0x7000),
		  MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR, true },
		{ "CQ buf_off", 8, 1ULL << 40, MLX5_CQE_SYNDROME_REMOTE_OP_ERR, true },
		{ "CQ cqe_cnt", 4, 3, MLX5_CQE_SYNDROME_REMOTE_OP_ERR, true },
		{ "CQ log_cqe_cnt", 4, 0, MLX5_CQE_SYNDROME_REMOTE_OP_ERR, true },
		{ "CQ dbrec_off", 8, 0, MLX5_CQE_SYNDROME_REMOTE_OP_ERR, true },
		{ "QP lock (no pid)", 4, 0xfffffff0u, 0, true },
		{ "CQ lock (no pid)", 4, 0xfffffff0u, 0, true },
		{ "QP lock (a live pid)", 4, (uint32_t)getpid(), 0xff, false },
	};
	struct mlx5_cqe64 cqe;
	struct mlx5_err_cqe *er = (struct mlx5_err_cqe *)&cqe;
	uint32_t ka, kb, kc, k;
	uint8_t *ma, *mb, *mc;
	struct tcq ac, bc, cc;

	CU_ASSERT_FATAL(sw_engine_init(&peng) == 0);
	CU_ASSERT_FATAL(sw_engine_init(&ceng) == 0);
	cq_make(&ac, 64);
	cq_make_e(&peng, &bc, 64);
	cq_make_e(&ceng, &cc, 64);
	ma = mem(4096, IBV_ACCESS_LOCAL_WRITE, &ka);
	mb = mem_e(&peng, 4096, IBV_ACCESS_LOCAL_WRITE, &kb);
	mc = mem_e(&ceng, 4096, IBV_ACCESS_LOCAL_WRITE, &kc);
	for (k = 0; k < 100; k++)
		ma[k] = (uint8_t)(k * 7 + 1);
	for (k = 0; k < RTE_DIM(cases); k++) {
		const struct corrupt *x = &cases[k];
		const uint64_t errs = eng.device_errors;
		struct tqp a1, a2, b, c;
		struct mlx5_wqe_data_seg *r;
		uint64_t old = 0, end;
		bool got1 = false, got2 = false;
		uint8_t synd1 = 0;
		void *f;

		qp_make(&a1, &ac, 16, 0, 0);
		qp_make(&a2, &ac, 16, 0, 0);
		qp_make_e(&peng, &b, &bc, 16, 16, 0);
		qp_make_e(&ceng, &c, &cc, 16, 16, 0);
		CU_ASSERT_FATAL(sw_qp_connect(&eng, a1.q, peng.self->name, b.q->s->qpn,
					      1, 1, 1, 1) == 0);
		CU_ASSERT_FATAL(sw_qp_connect(&peng, b.q, eng.self->name, a1.q->s->qpn,
					      1, 1, 1, 1) == 0);
		CU_ASSERT_FATAL(sw_qp_connect(&eng, a2.q, ceng.self->name, c.q->s->qpn,
					      1, 1, 1, 1) == 0);
		CU_ASSERT_FATAL(sw_qp_connect(&ceng, c.q, eng.self->name, a2.q->s->qpn,
					      1, 1, 1, 1) == 0);
		r = (struct mlx5_wqe_data_seg *)b.dv.rq.buf;
		mlx5dv_set_data_seg(&r[0], 256, kb, (uintptr_t)mb);
		mlx5dv_set_data_seg(&r[1], 0, MLX5_INVALID_LKEY, 0);
		b.dv.dbrec[MLX5_RCV_DBR] = htobe32(1);
		r = (struct mlx5_wqe_data_seg *)c.dv.rq.buf;
		mlx5dv_set_data_seg(&r[0], 256, kc, (uintptr_t)mc);
		mlx5dv_set_data_seg(&r[1], 0, MLX5_INVALID_LKEY, 0);
		c.dv.dbrec[MLX5_RCV_DBR] = htobe32(1);
		memset(mc, 0, 256);
		f = corrupt_field(&b, &bc, k);
		memcpy(&old, f, x->w);
		memcpy(f, &x->v, x->w);
		ctrl(&a1, MLX5_OPCODE_SEND, 2, MLX5_WQE_CTRL_CQ_UPDATE, 0);
		dseg(&a1, a1.last, 16, (uintptr_t)ma, 100, ka);
		ring(&a1);
		ctrl(&a2, MLX5_OPCODE_SEND, 2, MLX5_WQE_CTRL_CQ_UPDATE, 0);
		dseg(&a2, a2.last, 16, (uintptr_t)ma, 100, ka);
		ring(&a2);
		/* hang guard only (ACK timers are microseconds here); a live
		 * holder: 50 ms show that a1 waits */
		end = now_ms() + (x->synd == 0xff ? 50 : 5000);
		while ((!got2 || (!got1 && x->synd != 0xff)) && now_ms() < end) {
			sw_engine_progress(&eng);
			while (cq_get(&ac, &cqe)) {
				bool req = cqe.op_own >> 4 == MLX5_CQE_REQ;
				uint32_t qpn = be32toh(req ? cqe.sop_drop_qpn :
						       er->s_wqe_opcode_qpn) & 0xffffff;

				if (qpn == a2.q->qpn) {
					CU_ASSERT(req);
					got2 = true;
				} else if (qpn == a1.q->qpn && !got1) {
					got1 = true;
					synd1 = req ? 0 : er->syndrome;
				} else {
					CU_FAIL("an unexpected CQE");
				}
			}
		}
		if (x->synd == 0xff) {
			/* a live holder: a1 waits, then completes once it is free */
			CU_ASSERT_FALSE(got1);
			CU_ASSERT(a1.q->lock_wait);
			CU_ASSERT_EQUAL(a1.q->s->state, RDX_SW_QPS_RTS);
			memcpy(f, &old, x->w);
			end = now_ms() + 5000;
			while (!got1 && now_ms() < end) {
				sw_engine_progress(&eng);
				if (cq_get(&ac, &cqe)) {
					got1 = true;
					synd1 = cqe.op_own >> 4 == MLX5_CQE_REQ ? 0 : er->syndrome;
				}
			}
			CU_ASSERT(got1 && synd1 == 0);
		} else {
			memcpy(f, &old, x->w);
			CU_ASSERT(got1);
			CU_ASSERT_EQUAL(synd1, x->synd);
			if (synd1 != x->synd)
				fprintf(stderr, "corrupt %s: our QP to B: syndrome 0x%x, expected 0x%x\n",
					x->what, synd1, x->synd);
			if (x->synd != 0)
				CU_ASSERT_EQUAL(b.q->s->state, RDX_SW_QPS_ERR); /* B fenced */
		}
		CU_ASSERT_EQUAL(eng.device_errors > errs, x->deverr);
		/* the other pair was not touched */
		CU_ASSERT(got2);
		CU_ASSERT_EQUAL(memcmp(mc, ma, 100), 0);
		CU_ASSERT_EQUAL(a2.q->s->state, RDX_SW_QPS_RTS);
		CU_ASSERT_EQUAL(c.q->s->state, RDX_SW_QPS_RTS);
		CU_ASSERT_EQUAL(c.q->s->rq_ci, 1);
		/* a1 in ERR flushes nothing more (nothing else posted) */
		for (end = 0; end < 8; end++)
			sw_engine_progress(&eng);
		CU_ASSERT_FALSE(cq_get(&ac, &cqe));
		while (cq_get(&bc, &cqe))
			;
		while (cq_get(&cc, &cqe))
			;
		sw_qp_destroy(&eng, a1.q);
		sw_qp_destroy(&eng, a2.q);
		sw_qp_destroy(&peng, b.q);
		sw_qp_destroy(&ceng, c.q);
	}
	sw_cq_destroy(&eng, ac.slot);
	sw_cq_destroy(&peng, bc.slot);
	sw_cq_destroy(&ceng, cc.slot);
	sw_engine_fini(&peng);
	sw_engine_fini(&ceng);
}

/* A peer rewrites our QP's shared geometry: the engine keeps using the
 * values fixed at create (a WRITE still lands, in the right ring slot). */
static void
test_scribble_own(void)
{
	struct mlx5_cqe64 cqe;
	struct tqp a, b;
	struct tcq c;
	uint32_t key, it;
	uint8_t *m;

	cq_make(&c, 64);
	qp_make(&a, &c, 16, 0, 0);
	qp_make(&b, &c, 16, 0, 0);
	qp_connect(&a, &b);
	m = mem(8192, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, &key);
	for (it = 0; it < 40; it++) {
		a.q->s->sq_wqe_cnt = (uint32_t)rnd_val();
		a.q->s->max_wqebbs = (uint32_t)rnd_val();
		a.q->s->max_inline = (uint32_t)rnd_val();
		a.q->s->max_send_sge = (uint32_t)rnd_val();
		a.q->s->rq_wqe_cnt = (uint32_t)rnd_val();
		memset(m, (int)it, 64);
		ctrl(&a, MLX5_OPCODE_RDMA_WRITE, 3, MLX5_WQE_CTRL_CQ_UPDATE, 0);
		raddr(&a, a.last, (uintptr_t)m + 4096, key);
		dseg(&a, a.last, 32, (uintptr_t)m, 64, key);
		ring(&a);
		sw_engine_progress(&eng);
		CU_ASSERT_FATAL(cq_get(&c, &cqe));
		CU_ASSERT_EQUAL(cqe.op_own >> 4, MLX5_CQE_REQ);
		CU_ASSERT(memcmp(m + 4096, m, 64) == 0);
	}
	a.q->s->sq_wqe_cnt = a.q->sq_wqe_cnt;
	sw_qp_destroy(&eng, a.q);
	sw_qp_destroy(&eng, b.q);
	sw_cq_destroy(&eng, c.slot);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "malformed", test_malformed },
		{ "send_fields", test_send_fields },
		{ "zero_len_recv_seg", test_zero_len_recv_seg },
		{ "recv_cq_overrun_count", test_recv_cq_overrun_count },
		{ "inline_write_errors", test_inline_write_errors },
		{ "inline_send", test_inline_send },
		{ "recv_line_copies", test_recv_line_copies },
		{ "store_once", test_store_once },
		{ "store_once_engine", test_store_once_engine },
		{ "scribble_peer", test_scribble },
		{ "scribble_own", test_scribble_own },
		{ "corrupt_peer_fenced", test_corrupt_peer_fenced },
		{ NULL, NULL },
	};

	return rdx_ut_run("sw_exec", cases, suite_init, suite_fini);
}
