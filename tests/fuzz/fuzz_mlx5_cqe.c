/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the mlx5 CQE decoder of drivers/mlx5/mlx5_cq.c. A QP
 * and a CQ get plain memory rings (no device, no doorbell register), the
 * datapath posts a few send and receive WRs, then the CQ ring is filled
 * with arbitrary bytes (what a broken or hostile device could write) and
 * polled through rdx_mlx5_poll_burst, and, with a burst size of 1, every
 * other poll through rdx_mlx5_poll_req_burst (the lean requester poll,
 * whose successful send completions leave qp_ctx and byte_len undefined).
 *
 * Input: flags (1: bit 0 128-byte CQEs, bits 1..3 burst size - 1, bits
 * 4..7 sig_interval), nsend (1, & 7), send shapes (nsend bytes: opcode,
 * signaled, 2 SGEs, inline), nrecv (1, % 9), then the CQE ring image
 * (8 CQEs; missing bytes are invalid CQEs, op_own 0xf0), then optionally
 * a second ring image polled as the next lap (owner bit flipped).
 *
 * Checked beyond sanitizers: the datapath never retires more send or
 * receive WQEs than are outstanding (counters never pass the producers),
 * send WRs retire in order (rdx_mlx5_qp_retired_wr_id names exactly the
 * next posted ids), every wc names our QP or reports an unknown QPN, and
 * posting still works afterwards.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "rdx_mlx5.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_QPN      0x000123u
#define FZ_CQE_CNT  8u
#define FZ_SQ_DEPTH 8u
#define FZ_RQ_CNT   8u
#define FZ_WRID     1000u

static uint8_t sq_buf[64 * 64] __attribute__((aligned(64)));
static uint8_t rq_buf[FZ_RQ_CNT * 64] __attribute__((aligned(64)));
static uint8_t cq_buf[FZ_CQE_CNT * 128] __attribute__((aligned(64)));
static uint8_t payload[64] __attribute__((aligned(8)));
static __be32 qp_dbrec[2], cq_dbrec[2];
static int qp_tag;

struct fz {
	struct rdx_mlx5_qp qp;
	struct rdx_mlx5_cq cq;
	uint32_t sends;       /* ids posted: FZ_WRID .. + sends - 1 */
	uint32_t retired;     /* send WRs retired so far */
	uint32_t recvs;
	uint32_t recv_done;
};

static void
post_send(struct fz *f, uint8_t shape)
{
	static const uint8_t ops[] = { RDX_OP_NOP, RDX_OP_SEND, RDX_OP_SEND_IMM, RDX_OP_WRITE,
		RDX_OP_WRITE_IMM, RDX_OP_READ, RDX_OP_CAS, RDX_OP_FAA };
	struct rdx_sge sge[2] = {
		{ .addr = (uintptr_t)payload, .length = 8, .lkey = 0x101 },
		{ .addr = (uintptr_t)payload + 8, .length = 24, .lkey = 0x101 },
	};
	struct rdx_wr wr = {
		.wr_id = FZ_WRID + f->sends, .sge = sge, .remote_addr = 0x10000,
		.rkey = 0x202, .imm = 0x11223344, .opcode = ops[shape & 7],
		.flags = (uint8_t)((shape & 8 ? RDX_WR_SIGNALED : 0) |
				   (shape & 16 && (shape & 7) != 5 && (shape & 7) < 6 ?
				    RDX_WR_INLINE : 0)),
		.num_sge = (uint8_t)(shape & 32 && (shape & 7) < 5 ? 2 : 1),
	};

	if (wr.opcode == RDX_OP_NOP)
		wr.num_sge = 0;
	if (rdx_mlx5_post_burst(&f->qp.base, &wr, 1) == 1)
		f->sends++;
}

static void
post_recv(struct fz *f)
{
	struct rdx_sge sge = { .addr = (uintptr_t)payload, .length = 64, .lkey = 0x101 };
	struct rdx_recv_wr wr = { .wr_id = 5000 + f->recvs, .sge = &sge, .num_sge = 1 };

	if (rdx_mlx5_post_recv_burst(&f->qp.base, &wr, 1) == 1)
		f->recvs++;
}

static void
check_wc(struct fz *f, const struct rdx_wc *wc, bool lean)
{
	const bool recv = wc->opcode == RDX_WC_RECV || wc->opcode == RDX_WC_RECV_IMM ||
		wc->opcode == RDX_WC_RECV_WRITE_IMM;

	/* the lean poll: a good send completion names its QP by qp_num only */
	if (lean && wc->status == IBV_WC_SUCCESS && !recv) {
		if (wc->qp_num != FZ_QPN || wc->retired == 0)
			abort();
		goto send;
	}
	if (wc->qp_ctx == NULL) {
		if (wc->retired != 0 || wc->status == IBV_WC_SUCCESS)
			abort();
		return;
	}
	if (wc->qp_ctx != &qp_tag || wc->qp_num != FZ_QPN)
		abort();
	if (recv) {
		/* no receive outstanding: an error that retires nothing */
		if (wc->retired == 0 && wc->status != IBV_WC_SUCCESS && wc->wr_id == 0)
			return;
		if (wc->retired != 1 || wc->wr_id != 5000 + f->recv_done)
			abort();
		f->recv_done++;
		return;
	}
send:
	/* send side: in-order retirement of posted WRs */
	for (uint16_t i = 0; i < wc->retired; i++) {
		if (rdx_mlx5_qp_retired_wr_id(&f->qp.base, wc, i) != FZ_WRID + f->retired)
			abort();
		f->retired++;
	}
	if (f->retired > f->sends)
		abort();
}

static void
poll_lap(struct fz *f, const uint8_t *img, size_t len, uint32_t stride, uint32_t lap,
	 uint16_t burst)
{
	struct rdx_wc wc[8];
	uint32_t i, rounds;

	memset(cq_buf, 0, sizeof(cq_buf));
	for (i = 0; i < FZ_CQE_CNT; i++)
		cq_buf[i * stride + stride - 1] = 0xf0; /* MLX5_CQE_INVALID */
	memcpy(cq_buf, img, len < FZ_CQE_CNT * stride ? len : FZ_CQE_CNT * stride);
	(void)lap;
	for (rounds = 0; rounds < FZ_CQE_CNT + 1; rounds++) {
		const bool lean = burst == 1 && (rounds & 1);
		uint16_t n;

		memset(wc, 0x5a, sizeof(wc));
		n = lean ? rdx_mlx5_poll_req_burst(&f->cq.base, wc, burst) :
			rdx_mlx5_poll_burst(&f->cq.base, wc, burst);
		if (n > burst)
			abort();
		for (i = 0; i < n; i++)
			check_wc(f, &wc[i], lean);
		if ((int32_t)(f->qp.sq_head - f->qp.sq_tail) < 0 ||
		    (int32_t)(f->qp.rq_head - f->qp.rq_tail) < 0 ||
		    f->qp.sq_tail != f->retired ||
		    f->qp.rq_tail != f->recv_done)
			abort();
		if (n == 0)
			break;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mlx5dv_qp dvq;
	struct mlx5dv_cq dvc;
	struct fz f;
	uint32_t stride, nsend, nrecv, i, ring;
	uint16_t burst;
	uint8_t flags;

	if (size < 3)
		return 0;
	memset(&f, 0, sizeof(f));
	flags = data[0];
	stride = flags & 1 ? 128 : 64;
	burst = (uint16_t)(((flags >> 1) & 7) + 1);
	nsend = data[1] & 7;
	if (size < 3 + nsend)
		return 0;

	memset(sq_buf, 0, sizeof(sq_buf));
	memset(&dvq, 0, sizeof(dvq));
	dvq.sq.buf = sq_buf;
	dvq.sq.wqe_cnt = rdx_mlx5_sq_wqe_cnt(FZ_SQ_DEPTH, 32, 2);
	dvq.sq.stride = 64;
	dvq.rq.buf = rq_buf;
	dvq.rq.wqe_cnt = FZ_RQ_CNT;
	dvq.rq.stride = rdx_mlx5_rq_stride(1);
	dvq.dbrec = qp_dbrec;
	if ((size_t)dvq.sq.wqe_cnt * 64 > sizeof(sq_buf))
		abort();
	f.qp.base.user_ctx = &qp_tag;
	f.qp.base.conf.sig_interval = (uint16_t)(flags >> 4);
	if (rdx_mlx5_qp_dp_init(&f.qp, &dvq, FZ_QPN, 32, 2, 1) != 0)
		abort();
	memset(&dvc, 0, sizeof(dvc));
	dvc.buf = cq_buf;
	dvc.dbrec = cq_dbrec;
	dvc.cqe_cnt = FZ_CQE_CNT;
	dvc.cqe_size = stride;
	if (rdx_mlx5_cq_dp_init(&f.cq, &dvc, 7, 4) != 0 || rdx_mlx5_cq_attach(&f.cq, &f.qp) != 0)
		abort();

	for (i = 0; i < nsend; i++)
		post_send(&f, data[2 + i]);
	nrecv = data[2 + nsend] % (FZ_RQ_CNT + 1);
	for (i = 0; i < nrecv; i++)
		post_recv(&f);
	data += 3 + nsend;
	size -= 3 + nsend;

	ring = FZ_CQE_CNT * stride;
	poll_lap(&f, data, size, stride, 0, burst);
	if (size > ring && f.cq.cons_index == FZ_CQE_CNT) {
		/* the whole first lap was consumed: a second lap (owner 1) */
		poll_lap(&f, data + ring, size - ring, stride, 1, burst);
	}
	/* still usable: post again where there is room */
	post_send(&f, 0x08 | 3);
	post_recv(&f);
	if ((int32_t)(f.qp.sq_head - f.qp.sq_tail) < 0 ||
	    f.qp.sq_head - f.qp.sq_tail > f.qp.sq_max_post ||
	    f.qp.rq_head - f.qp.rq_tail > f.qp.rq_wqe_cnt)
		abort();
	rdx_mlx5_cq_detach(&f.cq, &f.qp);
	rdx_mlx5_cq_dp_fini(&f.cq);
	rdx_mlx5_qp_dp_fini(&f.qp);
	return 0;
}
