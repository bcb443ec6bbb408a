/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the software device's WQE decoder and executor
 * (drivers/mlx5/sw/sw_engine.c). QP A (requester) is connected to QP B
 * (responder, with a receive queue) of the same software device; memory is
 * registered as the model does it (one region in the shared segment, one
 * of process memory, one read-only). Each run puts arbitrary bytes in A's
 * SQ and B's RQ, writes the doorbell records and rings A's doorbell, runs
 * the engine and reads the CQ.
 *
 * The result must be a valid completion or an error completion, never a
 * crash, a hang, or an access outside registered memory: the shared-segment
 * region sits between ASan-poisoned guard pages, the process-memory region
 * is a malloc block (ASan redzones), so any stray byte is reported.
 *
 * Input: flags (1: bit 0 "fixup": the harness sets each WQE's idx and QPN
 * and the doorbell from the ring walk, so the fuzzer spends its time past
 * the header checks; bit 1 BlueFlame copy instead of an 8-byte doorbell;
 * bits 2..3 room left in the CQ: all, 4, 2 or 1 CQEs, the rest taken by
 * CQEs the consumer has not read, for the CQ-full paths (overrun, paused
 * flushes); bits 4..7 B's RQ doorbell record), RQ length in 16-byte units
 * (1; bit 7: UD mode), A's SQ doorbell record (2, BE, raw mode), doorbell
 * bytes (8, raw mode), then B's RQ bytes, then A's SQ bytes.
 *
 * UD mode: A and B are two UD QPs (Q_Key FZ_QKEY) instead, with a route to
 * the own device. With fixup, each WQE of 4 DS or more also gets the
 * device's pid and sequence in rgid bytes 8..15 (the fuzzer cannot know
 * them), and a zero remote QPN / Q_Key in its datagram segment becomes B's
 * QPN / FZ_QKEY; the rest of the address vector is the fuzzer's.
 *
 * Speed: creating QPs costs a scan of the segment's allocation table, so
 * the objects are made once and every run restores their initial state
 * (rings, doorbell records, the model's per-QP and per-CQ records) from a
 * snapshot taken right after connecting.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sanitizer/asan_interface.h>

#include <rte_common.h>
#include <rte_log.h>

#include "sw_model.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_MR_LEN   4096u
#define FZ_GUARD    4096u
#define FZ_IOVA_SHM 0x10000000ull
#define FZ_IOVA_LOC 0x20000000ull
#define FZ_IOVA_RO  0x30000000ull
#define FZ_ACC_ALL  (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

struct fz_qp {
	struct sw_lqp *q;
	struct mlx5dv_qp dv;
	struct sw_lqp lqp0;       /* snapshot after connect */
	struct sw_qp_shm shm0;
	uint8_t *ring0;           /* RQ + SQ */
	size_t ring_len;
};

#define FZ_QKEY 0x11223344u

static struct sw_engine eng;
static struct fz_qp qa, qb, qc, qd; /* RC pair, UD pair */
static int fz_route;
static int cq_slot;
static struct mlx5dv_cq cqdv;
static struct sw_cq_shm cq0;
static uint8_t *cqring0;
static uint8_t *loc_mem;
static uint32_t keys[3];
static bool verbose;

static void
fz_qp_make(struct fz_qp *t, uint32_t rq_depth, bool ud)
{
	struct sw_qp_params p = {
		.sq_depth = 4, .rq_depth = rq_depth, .max_send_sge = 4, .max_recv_sge = 2,
		.max_inline = 64, .send_cq = cq_slot, .recv_cq = cq_slot,
		.type = ud ? SW_QPT_UD : SW_QPT_RC, .qkey = ud ? FZ_QKEY : 0,
	};

	t->q = sw_qp_create(&eng, &p, &t->dv);
	if (t->q == NULL)
		abort();
}

static void
fz_qp_snap(struct fz_qp *t)
{
	t->lqp0 = *t->q;
	t->shm0 = *t->q->s;
	t->ring_len = (size_t)t->q->s->rq_wqe_cnt * t->q->s->rq_stride +
		(size_t)t->q->s->sq_wqe_cnt * 64;
	t->ring0 = malloc(t->ring_len);
	if (t->ring0 == NULL)
		abort();
	memcpy(t->ring0, t->q->rq_buf, t->ring_len);
}

static void
fz_qp_restore(struct fz_qp *t)
{
	*t->q = t->lqp0;
	*t->q->s = t->shm0;
	memcpy(t->q->rq_buf, t->ring0, t->ring_len);
	memset((void *)(uintptr_t)t->q->dbrec, 0, 8);
	memset(t->q->bf, 0, 2 * SW_BF_SIZE);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct sw_cq_shm *cq;
	uint64_t off;
	uint8_t *p;

	verbose = getenv("RDX_FUZZ_VERBOSE") != NULL;
	/* The model logs every malformed WQE (a datapath bug in real use):
	 * millions of lines here. RDX_FUZZ_VERBOSE=1 keeps them. */
	if (!verbose)
		rte_log_set_global_level(RTE_LOG_CRIT);
	if (sw_engine_init(&eng) != 0)
		abort();
	cq_slot = sw_cq_create(&eng, 63, &cqdv);
	if (cq_slot < 0)
		abort();
	fz_qp_make(&qa, 0, false);
	fz_qp_make(&qb, 4, false);
	if (sw_qp_connect(&eng, qa.q, eng.self->name, qb.q->s->qpn, 0, 1, 0, 1) != 0 ||
	    sw_qp_connect(&eng, qb.q, eng.self->name, qa.q->s->qpn, 0, 1, 0, 1) != 0)
		abort();
	fz_qp_make(&qc, 0, true);
	fz_qp_make(&qd, 4, true);
	fz_route = sw_route_get(&eng, eng.self->gid);
	if (sw_qp_ud_ready(&eng, qc.q) != 0 || sw_qp_ud_ready(&eng, qd.q) != 0 || fz_route < 0)
		abort();
	/* registered memory: shared segment (guarded), process, read-only */
	off = sw_shm_alloc(eng.self, FZ_GUARD + FZ_MR_LEN + FZ_GUARD, false);
	if (off == 0)
		abort();
	p = eng.self->base + off;
	keys[0] = sw_mr_add(eng.self, SW_MR_SHM, FZ_IOVA_SHM, FZ_MR_LEN, off + FZ_GUARD, 0,
			    FZ_ACC_ALL, eng.pid);
	loc_mem = malloc(FZ_MR_LEN);
	if (loc_mem == NULL)
		abort();
	memset(loc_mem, 0x5a, FZ_MR_LEN);
	keys[1] = sw_mr_add(eng.self, SW_MR_LOCAL, FZ_IOVA_LOC, FZ_MR_LEN, 0,
			    (uint64_t)(uintptr_t)loc_mem, FZ_ACC_ALL, eng.pid);
	keys[2] = sw_mr_add(eng.self, SW_MR_LOCAL, FZ_IOVA_RO, FZ_MR_LEN, 0,
			    (uint64_t)(uintptr_t)loc_mem, IBV_ACCESS_REMOTE_READ, eng.pid);
	if (keys[0] == 0 || keys[1] == 0 || keys[2] == 0)
		abort();
	ASAN_POISON_MEMORY_REGION(p, FZ_GUARD);
	ASAN_POISON_MEMORY_REGION(p + FZ_GUARD + FZ_MR_LEN, FZ_GUARD);
	fz_qp_snap(&qa);
	fz_qp_snap(&qb);
	fz_qp_snap(&qc);
	fz_qp_snap(&qd);
	cq = &eng.self->hdr->cqs[cq_slot];
	cq0 = *cq;
	cqring0 = malloc((size_t)cqdv.cqe_cnt * 64);
	if (cqring0 == NULL)
		abort();
	memcpy(cqring0, cqdv.buf, (size_t)cqdv.cqe_cnt * 64);
	if (verbose)
		fprintf(stderr, "fuzz_sw_wqe: qpn A 0x%x B 0x%x, keys 0x%x 0x%x 0x%x, "
			"SQ %u WQEBBs, RQ %u x %u B, max_inline %u, CQ %u\n",
			qa.q->s->qpn, qb.q->s->qpn, keys[0], keys[1], keys[2],
			qa.q->s->sq_wqe_cnt, qb.q->s->rq_wqe_cnt, qb.q->s->rq_stride,
			qa.q->s->max_inline, cqdv.cqe_cnt);
	return 0;
}

/* Set idx and QPN of each WQE from the ring walk; returns the WQEBB count
 * (the producer counter) and the start of the last WQE. */
static uint32_t
fixup(uint8_t *sq, uint32_t cnt, uint32_t qpn, uint32_t *last)
{
	uint32_t pos = 0;

	*last = 0;
	while (pos < cnt) {
		struct mlx5_wqe_ctrl_seg *c = (struct mlx5_wqe_ctrl_seg *)(void *)(sq + pos * 64);
		uint32_t w0 = be32toh(c->opmod_idx_opcode);
		uint32_t ds = be32toh(c->qpn_ds) & 0x3f;

		if (ds == 0)
			break;
		c->opmod_idx_opcode = htobe32((w0 & 0xff0000ffu) | (pos & 0xffff) << 8);
		c->qpn_ds = htobe32(qpn << 8 | ds);
		*last = pos;
		pos += (ds + 3) / 4;
	}
	return pos;
}

/* UD mode fixup: the destination bytes only the harness knows. */
static void
fixup_ud(uint8_t *sq, uint32_t cnt, uint32_t pi)
{
	uint32_t pos = 0;

	while (pos < pi) {
		uint8_t *w = sq + (pos & (cnt - 1)) * 64;
		uint32_t ds = be32toh(((struct mlx5_wqe_ctrl_seg *)(void *)w)->qpn_ds) & 0x3f;
		struct mlx5_wqe_av *av = (struct mlx5_wqe_av *)(void *)(w + 16);

		/* the AV lies within the WQE's first WQEBB */
		if (ds >= 4) {
			memcpy(av->rgid + 8, eng.self->gid + 8, 8);
			if ((be32toh(av->dqp_dct) & 0xffffff) == 0)
				av->dqp_dct = htobe32((be32toh(av->dqp_dct) & 0xff000000u) |
						      qd.q->s->qpn);
			if (av->key.qkey.qkey == 0)
				av->key.qkey.qkey = htobe32(FZ_QKEY);
		}
		pos += (ds + 3) / 4;
	}
}

static void
check_cqe(const struct mlx5_cqe64 *cqe)
{
	const struct mlx5_err_cqe *e = (const struct mlx5_err_cqe *)(const void *)cqe;
	uint8_t op = cqe->op_own >> 4;
	uint32_t qpn = be32toh(cqe->sop_drop_qpn) & 0xffffff;

	switch (op) {
	case MLX5_CQE_REQ:
	case MLX5_CQE_RESP_WR_IMM:
	case MLX5_CQE_RESP_SEND:
	case MLX5_CQE_RESP_SEND_IMM:
		break;
	case MLX5_CQE_REQ_ERR:
	case MLX5_CQE_RESP_ERR:
		qpn = be32toh(e->s_wqe_opcode_qpn) & 0xffffff;
		switch (e->syndrome) {
		case MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR:
		case MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR:
		case MLX5_CQE_SYNDROME_LOCAL_PROT_ERR:
		case MLX5_CQE_SYNDROME_WR_FLUSH_ERR:
		case MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR:
		case MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR:
		case MLX5_CQE_SYNDROME_REMOTE_OP_ERR:
		case MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR:
		case MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR:
			break;
		default:
			fprintf(stderr, "fuzz_sw_wqe: syndrome 0x%x\n", e->syndrome);
			abort();
		}
		break;
	default:
		fprintf(stderr, "fuzz_sw_wqe: CQE opcode %u\n", op);
		abort();
	}
	if (qpn != qa.q->s->qpn && qpn != qb.q->s->qpn && qpn != qc.q->s->qpn &&
	    qpn != qd.q->s->qpn) {
		fprintf(stderr, "fuzz_sw_wqe: CQE names QPN 0x%x\n", qpn);
		abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sw_cq_shm *cq = &eng.self->hdr->cqs[cq_slot];
	static const uint32_t room[4] = { 64, 4, 2, 1 };
	uint32_t pi, last = 0, ci, ci0, rq_len, n, sq_bytes, rq_bytes;
	struct fz_qp *ra, *rb;
	uint8_t flags, db[64];
	bool ud;
	int i;

	if (size < 12)
		return 0;
	flags = data[0];
	ud = (data[1] & 0x80) != 0;
	ra = ud ? &qc : &qa;
	rb = ud ? &qd : &qb;
	sq_bytes = ra->q->s->sq_wqe_cnt * 64;
	rq_bytes = rb->q->s->rq_wqe_cnt * rb->q->s->rq_stride;
	rq_len = (uint32_t)(data[1] & 0x7f) * 16;
	if (rq_len > rq_bytes)
		rq_len = rq_bytes;
	pi = (uint32_t)data[2] << 8 | data[3];
	memset(db, 0, sizeof(db));
	memcpy(db, data + 4, 8);
	data += 12;
	size -= 12;
	if (rq_len > size)
		rq_len = (uint32_t)size;

	/* fresh state */
	fz_qp_restore(&qa);
	fz_qp_restore(&qb);
	fz_qp_restore(&qc);
	fz_qp_restore(&qd);
	*cq = cq0;
	memcpy(cqdv.buf, cqring0, (size_t)cqdv.cqe_cnt * 64);
	cqdv.dbrec[0] = 0;
	/* CQEs 0..ci0-1 "written and not yet consumed": the device sees only
	 * the room that is left (pi - ci >= cqe_cnt is full) */
	ci0 = cqdv.cqe_cnt - room[(flags >> 2) & 3];
	cq->pi = ci0;

	memcpy(rb->q->rq_buf, data, rq_len);
	data += rq_len;
	size -= rq_len;
	memcpy(ra->q->sq_buf, data, size < sq_bytes ? size : sq_bytes);
	rb->q->dbrec[MLX5_RCV_DBR] = htobe32(flags >> 4);
	if (flags & 1) {
		pi = fixup(ra->q->sq_buf, ra->q->s->sq_wqe_cnt, ra->q->s->qpn, &last);
		if (pi == 0)
			return 0;
		if (ud)
			fixup_ud(ra->q->sq_buf, ra->q->s->sq_wqe_cnt, pi);
		memcpy(db, ra->q->sq_buf + last * 64,
		       flags & 2 ? RTE_MIN(64u, sq_bytes - last * 64) : 8u);
	}
	ra->q->dbrec[MLX5_SND_DBR] = htobe32(pi & 0xffff);
	memcpy(ra->q->bf, db, flags & 2 ? 64 : 8);

	/* run the engine until idle (bounded: no timers are armed with
	 * rnr_retry = retry_cnt = 0, so a few calls finish everything) */
	for (i = 0; i < 8; i++)
		if (sw_engine_progress(&eng) == 0 && i > 0)
			break;
	/* read every CQE */
	for (ci = ci0, n = 0; n < cqdv.cqe_cnt; n++, ci++) {
		const struct mlx5_cqe64 *cqe = (const struct mlx5_cqe64 *)(const void *)
			((uint8_t *)cqdv.buf + (size_t)(ci & (cqdv.cqe_cnt - 1)) * 64);

		if ((cqe->op_own >> 4) == MLX5_CQE_INVALID ||
		    (cqe->op_own & 1) != ((ci / cqdv.cqe_cnt) & 1))
			break;
		check_cqe(cqe);
	}
	if (verbose)
		fprintf(stderr, "fuzz_sw_wqe: pi %u, %u CQEs, first op %u syndrome 0x%x, "
			"A state %u, overruns %" PRIu64 "\n", pi, n,
			((uint8_t *)cqdv.buf)[(ci0 & (cqdv.cqe_cnt - 1)) * 64 + 63] >> 4,
			((uint8_t *)cqdv.buf)[(ci0 & (cqdv.cqe_cnt - 1)) * 64 + 55],
			ra->q->s->state, cq->overruns);
	return 0;
}
