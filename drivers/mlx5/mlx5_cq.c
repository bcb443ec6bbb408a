/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mlx5 completion polling (the datapath's cq.c): 64- or 128-byte CQEs by
 * owner bit, in rdma-core's providers/mlx5/cq.c manner: one always-inline
 * poll function, poll_cq, with constant arguments (the lean requester
 * completion or the full one), from which the entry points are generated
 * and picked at CQ creation (rdx_mlx5_cq_dp_init, mlx5_hw_qp.c). Good
 * requester CQEs and RESP_SEND CQEs are finished inline; immediates,
 * errors, flushes and unknown QPs in cqe_other. Rules:
 * doc/mlx5-datapath.md (sections 4-5).
 *
 * Fast path: no allocation, locks, syscalls, logging or division; every
 * index is masked.
 */
#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_atomic.h>
#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_byteorder.h>
#include <rte_io.h>

#include <infiniband/verbs.h>

#include "rdx_mlx5.h"
#include "mlx5_wqe.h"


/*
 * What a good requester CQE of the WQE opcode op (sop_drop_qpn[31:24])
 * reports (rdma-core cq.c handle_good_req): the rdx_wc opcode, by the
 * whole byte. The table holds it XOR RDX_WC_UNKNOWN, so that every opcode
 * it does not list reads as RDX_WC_UNKNOWN. byte_len is the CQE's
 * byte_cnt for a READ, 8 for atomics, else 0 (cqe_req_good).
 */
#define REQ_WC(wc) ((uint8_t)((wc) ^ RDX_WC_UNKNOWN))
static const uint8_t req_wc_op[256] = {
	[MLX5_OPCODE_NOP] = REQ_WC(RDX_WC_NOP),
	[MLX5_OPCODE_SEND] = REQ_WC(RDX_WC_SEND),
	[MLX5_OPCODE_SEND_IMM] = REQ_WC(RDX_WC_SEND),
	[MLX5_OPCODE_SEND_INVAL] = REQ_WC(RDX_WC_SEND),
	[MLX5_OPCODE_RDMA_WRITE] = REQ_WC(RDX_WC_WRITE),
	[MLX5_OPCODE_RDMA_WRITE_IMM] = REQ_WC(RDX_WC_WRITE),
	[MLX5_OPCODE_RDMA_READ] = REQ_WC(RDX_WC_READ),
	[MLX5_OPCODE_ATOMIC_CS] = REQ_WC(RDX_WC_CAS),
	[MLX5_OPCODE_ATOMIC_FA] = REQ_WC(RDX_WC_FAA),
};
#undef REQ_WC

static __rte_always_inline uint8_t
req_wc_opcode(uint8_t op)
{
	return (uint8_t)(req_wc_op[op] ^ RDX_WC_UNKNOWN);
}

/* ---------------------------------------------------------------------- */
/* Completions                                                             */

uint8_t
rdx_mlx5_syndrome_to_status(uint8_t syndrome)
{
	/* rdma-core cq.c mlx5_handle_error_cqe */
	switch (syndrome) {
	case MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR:
		return IBV_WC_LOC_LEN_ERR;
	case MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR:
		return IBV_WC_LOC_QP_OP_ERR;
	case MLX5_CQE_SYNDROME_LOCAL_PROT_ERR:
		return IBV_WC_LOC_PROT_ERR;
	case MLX5_CQE_SYNDROME_WR_FLUSH_ERR:
		return IBV_WC_WR_FLUSH_ERR;
	case MLX5_CQE_SYNDROME_MW_BIND_ERR:
		return IBV_WC_MW_BIND_ERR;
	case MLX5_CQE_SYNDROME_BAD_RESP_ERR:
		return IBV_WC_BAD_RESP_ERR;
	case MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR:
		return IBV_WC_LOC_ACCESS_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR:
		return IBV_WC_REM_INV_REQ_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR:
		return IBV_WC_REM_ACCESS_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_OP_ERR:
		return IBV_WC_REM_OP_ERR;
	case MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR:
		return IBV_WC_RETRY_EXC_ERR;
	case MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR:
		return IBV_WC_RNR_RETRY_EXC_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR:
		return IBV_WC_REM_ABORT_ERR;
	default:
		return IBV_WC_GENERAL_ERR;
	}
}

/* Stands in for an empty lookup cache (rdx_mlx5_cq.last_qp is never
 * NULL): matches no 24-bit QPN, so every test against the cache fails
 * without a NULL test first. Shared by every CQ and lcore; const, so a
 * write through the cache while it is empty faults. */
const struct rdx_mlx5_qp rdx_mlx5_no_qp = { .base.qp_num = UINT32_MAX };

static __rte_noinline struct rdx_mlx5_qp *
cq_lookup_qp(struct rdx_mlx5_cq *cq, uint32_t qpn)
{
	uint32_t h = qpn & cq->qp_tbl_mask;
	struct rdx_mlx5_qp *qp;

	while ((qp = cq->qp_tbl[h]) != NULL) {
		if (qp->base.qp_num == qpn) {
			cq->last_qp = qp;
			return qp;
		}
		h = (h + 1) & cq->qp_tbl_mask;
	}
	return NULL;
}

/*
 * Ordinal of the outstanding WQE starting at WQEBB counter wqe_ctr, by
 * walking the ring from the oldest unretired WQE (error and flush CQEs,
 * which may name unsignaled WQEs). False when no outstanding WQE starts there.
 */
static __rte_noinline bool
sq_find_ord(const struct rdx_mlx5_qp *qp, uint16_t wqe_ctr, uint32_t *ord)
{
	uint32_t bb = qp->sq_tail_bb, o;

	for (o = qp->sq_tail; o != qp->sq_head; o++) {
		if ((uint16_t)bb == wqe_ctr) {
			*ord = o;
			return true;
		}
		bb += sq_wqe_nbb(qp, bb);
	}
	return false;
}


/*
 * Fill a completion: every field but the receive ones (src_qp, slid,
 * wc_flags); lean: wr_id, imm, qp_num, retired, status and opcode only
 * (rdx_cq_poll_req_burst's contract: as rdma-core's ibv_cq_ex, the poller
 * reads only the fields it asks for).
 */
_Static_assert(offsetof(struct rdx_wc, status) == offsetof(struct rdx_wc, retired) + 2 &&
	       offsetof(struct rdx_wc, opcode) == offsetof(struct rdx_wc, retired) + 3,
	       "rdx_wc retired/status/opcode layout");
static __rte_always_inline void
wc_set(struct rdx_wc *wc, uint64_t wr_id, void *qp_ctx, uint32_t byte_len, uint32_t imm,
       uint32_t qp_num, uint32_t retired, uint8_t opcode, const bool lean)
{
	wc->wr_id = wr_id;
	wc->imm = imm;
	wc->qp_num = qp_num;
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	{
		/* [retired, status, opcode]: 4 adjacent bytes */
		const uint32_t w = (retired & 0xffff) | (uint32_t)IBV_WC_SUCCESS << 16 |
			(uint32_t)opcode << 24;

		memcpy(&wc->retired, &w, sizeof(w));
	}
#else
	wc->retired = (uint16_t)retired;
	wc->status = IBV_WC_SUCCESS;
	wc->opcode = opcode;
#endif
	if (!lean) {
		wc->qp_ctx = qp_ctx;
		wc->byte_len = byte_len;
		wc->vendor_err = 0;
	}
}

/*
 * A good requester CQE (opcode REQ; qp is the QP it names): retire the send
 * WQEs up to the signaled one at its wqe_counter (selective signaling: one
 * CQE completes every earlier WQE, libmlx5 "tail = wqe_head[idx] + 1").
 * Everything comes from the WQEBB's sq_sig entry: no ring read. False (and
 * nothing changed) for a counter that names no outstanding signaled WQE
 * (a stale or repeated entry is behind the tail: ord - tail wraps to above
 * the outstanding count).
 */
static __rte_always_inline bool
cqe_req_good(struct rdx_mlx5_qp *qp, volatile struct mlx5_cqe64 *cqe, uint32_t sop,
	     struct rdx_wc *wc, const bool lean)
{
	const uint8_t op = (uint8_t)(sop >> 24);
	const struct rdx_mlx5_sq_sig sig = qp->sq_sig[be16toh(cqe->wqe_counter) & qp->sq_mask];
	const uint32_t tail = qp->sq_tail;
	const uint32_t retired = sig.ord - tail + 1u;
	const uint8_t opcode = req_wc_opcode(op);
	uint32_t last, blen = 0;

	if (unlikely(retired - 1u >= qp->sq_head - tail))
		return false;
	last = tail + retired - 1;
	if (!lean) {
		if (unlikely(op == MLX5_OPCODE_RDMA_READ))
			blen = be32toh(cqe->byte_cnt);
		else if (unlikely(op == MLX5_OPCODE_ATOMIC_CS || op == MLX5_OPCODE_ATOMIC_FA))
			blen = 8;
	}
	/* imm: the retirement cursor for rdx_mlx5_qp_retired_wr_id */
	wc_set(wc, qp->sq_wrid[last & qp->sq_mask], qp->base.user_ctx, blen, last, sop & 0xffffff,
	       retired, opcode, lean);
	qp->sq_tail = last + 1;
	qp->sq_tail_bb = sig.next_bb;
	return true;
}

/*
 * What a software-owned CQE's op_own reads under CQE_OP_OWN_MASK: its
 * opcode (bits 7..4) and the owner bit of the lap at consumer counter ci
 * (the ring's wrap parity: the counter's bit log2(cqe_cnt)).
 */
#define CQE_OP_OWN_MASK (0xf0u | MLX5_CQE_OWNER_MASK)

static __rte_always_inline uint8_t
cqe_op_own_want(uint8_t opcode, uint32_t ci, uint32_t cqe_cnt)
{
	return (uint8_t)(opcode << 4 | ((ci & cqe_cnt) != 0));
}

/*
 * The completion of a RESP_SEND CQE of the QP numbered qpn: the receive
 * wr_id, byte_cnt, and the sender (rdma-core cq.c handle_responder:
 * flags_rqpn bits 23..0 the source QPN, 29..28 the GRH type, slid); imm
 * and vendor_err 0, retired 1.
 */
static __rte_always_inline void
wc_set_recv(struct rdx_wc *wc, volatile struct mlx5_cqe64 *cqe, uint64_t wr_id, void *qp_ctx,
	    uint32_t qpn)
{
	const uint32_t fr = be32toh(cqe->flags_rqpn);
	const uint32_t byte_len = be32toh(cqe->byte_cnt);
	const uint8_t flags = ((fr >> 28) & 3) != 0 ? RDX_WC_GRH : 0;

	wc->wr_id = wr_id;
	wc->qp_ctx = qp_ctx;
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	{
		/* [byte_len, imm 0], [qp_num, vendor_err 0], [retired 1,
		 * status, opcode, src_qp], [slid, wc_flags]: adjacent words */
		const uint64_t w_len = byte_len;
		const uint64_t w_qpn = qpn;
		const uint64_t w_ret = 1u | (uint32_t)IBV_WC_SUCCESS << 16 |
			(uint32_t)RDX_WC_RECV << 24 | (uint64_t)(fr & 0xffffff) << 32;

		memcpy(&wc->byte_len, &w_len, sizeof(w_len));
		memcpy(&wc->qp_num, &w_qpn, sizeof(w_qpn));
		memcpy(&wc->retired, &w_ret, sizeof(w_ret));
		wc->slid = be16toh(cqe->slid);
		wc->wc_flags = flags;
	}
#else
	wc->byte_len = byte_len;
	wc->imm = 0;
	wc->qp_num = qpn;
	wc->vendor_err = 0;
	wc->retired = 1;
	wc->status = IBV_WC_SUCCESS;
	wc->opcode = RDX_WC_RECV;
	wc->src_qp = fr & 0xffffff;
	wc->slid = be16toh(cqe->slid);
	wc->wc_flags = flags;
#endif
}
_Static_assert(offsetof(struct rdx_wc, imm) == offsetof(struct rdx_wc, byte_len) + 4 &&
	       offsetof(struct rdx_wc, vendor_err) == offsetof(struct rdx_wc, qp_num) + 4 &&
	       offsetof(struct rdx_wc, src_qp) == offsetof(struct rdx_wc, retired) + 4,
	       "rdx_wc receive fields layout");

/*
 * A good RESP_SEND CQE of qp (the QP it names): the oldest outstanding
 * receive completes (the receive queue completes in order, rdma-core
 * cq.c for a non-SRQ QP). False (and nothing changed) when none is
 * outstanding: cqe_other reports that CQE.
 */
static __rte_always_inline bool
cqe_resp_good(struct rdx_mlx5_qp *qp, volatile struct mlx5_cqe64 *cqe, uint32_t qpn,
	      struct rdx_wc *wc)
{
	const uint32_t tail = qp->rq_tail;

	if (unlikely(tail == qp->rq_head))
		return false;
	wc_set_recv(wc, cqe, qp->rq_wrid[tail & qp->rq_mask], qp->base.user_ctx, qpn);
	qp->rq_tail = tail + 1;
	return true;
}

/*
 * A run of RESP_SEND CQEs of qp (out of line: the poll loop takes a
 * burst's first two itself), from consumer counter ci on, into wc: up
 * to n, up to the receives outstanding (the receive queue completes in
 * order, rdma-core cq.c for a non-SRQ QP: the oldest outstanding receive
 * each), and up to the CQ ring's end (so one owner bit is software's for
 * the whole run). The run ends before the first slot that does not hold
 * a software-owned RESP_SEND of qp. The QP's values are read once:
 * nothing in the run writes them but rq_tail, at its end. Returns the
 * CQEs taken.
 */
static __rte_noinline uint32_t
cqe_resp_run(struct rdx_mlx5_qp *qp, uint8_t *buf, uint32_t mask, uint32_t cnt, uint32_t ci,
	     struct rdx_wc *restrict wc, uint32_t n, const uint32_t shift)
{
	const uint32_t tail = qp->rq_tail;
	const uint32_t k = RTE_MIN(RTE_MIN(n, qp->rq_head - tail), cnt - (ci & mask));
	const uint8_t want = cqe_op_own_want(MLX5_CQE_RESP_SEND, ci, cnt);
	const uint64_t *const wrid = qp->rq_wrid;
	const uint32_t rq_mask = qp->rq_mask;
	void *const ctx = qp->base.user_ctx;
	const uint32_t qpn = qp->base.qp_num;
	uint8_t *slot = buf + ((size_t)(ci & mask) << shift);
	uint32_t i;

	for (i = 0; i < k; i++, slot += (size_t)1 << shift) {
		volatile struct mlx5_cqe64 *const cqe = (volatile struct mlx5_cqe64 *)(void *)slot;

		if ((cqe->op_own & CQE_OP_OWN_MASK) != want)
			break;
		udma_from_device_barrier();
		if ((be32toh(cqe->sop_drop_qpn) & 0xffffff) != qpn)
			break;
		wc_set_recv(&wc[i], cqe, wrid[(tail + i) & rq_mask], ctx, qpn);
	}
	/* none taken: qp may be the read-only empty cache */
	if (i != 0)
		qp->rq_tail = tail + i;
	return i;
}

/*
 * Retire send WQEs up to the one at WQEBB counter wqe_ctr for an error or
 * flush CQE (which may name an unsignaled WQE: found by walking the ring).
 * Returns false for a counter that names no outstanding WQE.
 */
static bool
sq_retire_err(struct rdx_mlx5_qp *qp, uint16_t wqe_ctr, struct rdx_wc *wc)
{
	const uint32_t tail = qp->sq_tail;
	uint32_t last;

	if (!sq_find_ord(qp, wqe_ctr, &last))
		return false;
	wc->wr_id = qp->sq_wrid[last & qp->sq_mask];
	wc->retired = (uint16_t)(last - tail + 1);
	wc->imm = last; /* retirement cursor for rdx_mlx5_qp_retired_wr_id */
	qp->sq_tail = last + 1;
	qp->sq_tail_bb = (uint16_t)(wqe_ctr + sq_wqe_nbb(qp, wqe_ctr));
	return true;
}

static void
cqe_other(struct rdx_mlx5_cq *cq, struct rdx_mlx5_qp *qp, volatile struct mlx5_cqe64 *cqe,
	  uint8_t opcode, uint32_t qpn, struct rdx_wc *wc)
{
	volatile struct mlx5_err_cqe *ecqe = (volatile struct mlx5_err_cqe *)cqe;
	uint16_t wqe_ctr = be16toh(cqe->wqe_counter);

	wc->qp_num = qpn;
	wc->vendor_err = 0;
	wc->retired = 1;
	wc->imm = 0;
	wc->byte_len = 0;
	wc->wr_id = 0;
	wc->src_qp = 0;
	wc->slid = 0;
	wc->wc_flags = 0;
	if (unlikely(qp == NULL)) {
		cq->stats.unknown_qpn++;
		wc->qp_ctx = NULL;
		wc->status = IBV_WC_GENERAL_ERR;
		wc->opcode = RDX_WC_UNKNOWN;
		wc->retired = 0;
		return;
	}
	wc->qp_ctx = qp->base.user_ctx;
	switch (opcode) {
	case MLX5_CQE_RESP_WR_IMM:
	case MLX5_CQE_RESP_SEND:
	case MLX5_CQE_RESP_SEND_IMM:
	case MLX5_CQE_RESP_SEND_INV:
		/* The RQ completes in order: the oldest outstanding receive, as
		 * rdma-core cq.c does for a non-SRQ QP (not the CQE's
		 * wqe_counter). None outstanding: a bogus CQE, retire nothing. */
		if (unlikely(qp->rq_tail == qp->rq_head))
			break;
		wc->status = IBV_WC_SUCCESS;
		wc->wr_id = qp->rq_wrid[qp->rq_tail & qp->rq_mask];
		qp->rq_tail++;
		wc->byte_len = be32toh(cqe->byte_cnt);
		/* The sender (UD; rdma-core cq.c handle_responder): flags_rqpn
		 * bits 23..0 source QPN, 29..28 GRH type (non-zero: a GRH in the
		 * first 40 bytes of the buffer), slid. */
		{
			const uint32_t fr = be32toh(cqe->flags_rqpn);

			wc->src_qp = fr & 0xffffff;
			wc->slid = be16toh(cqe->slid);
			wc->wc_flags = ((fr >> 28) & 3) != 0 ? RDX_WC_GRH : 0;
		}
		if (opcode == MLX5_CQE_RESP_SEND || opcode == MLX5_CQE_RESP_SEND_INV) {
			wc->opcode = RDX_WC_RECV;
		} else {
			wc->opcode = opcode == MLX5_CQE_RESP_WR_IMM ?
				RDX_WC_RECV_WRITE_IMM : RDX_WC_RECV_IMM;
			wc->imm = cqe->imm_inval_pkey; /* as received */
		}
		return;
	case MLX5_CQE_REQ: {
		uint32_t ord;

		/* A NOP standing for a UD SEND above the MTU (post_ud): its
		 * sq_sig entry names nothing, so its CQE lands here. Else only
		 * reached for a counter naming no outstanding WQE. */
		if (qp->sq_lenerr != NULL && sq_find_ord(qp, wqe_ctr, &ord) &&
		    qp->sq_lenerr[ord & qp->sq_mask] && sq_retire_err(qp, wqe_ctr, wc)) {
			qp->sq_lenerr[ord & qp->sq_mask] = 0;
			cq->stats.errors++;
			wc->status = IBV_WC_LOC_LEN_ERR;
			wc->opcode = RDX_WC_SEND;
			rdx_mlx5_qp_count_err(qp, wc, false);
			return;
		}
		break;
	}
	case MLX5_CQE_REQ_ERR:
	case MLX5_CQE_RESP_ERR:
		cq->stats.errors++;
		wc->status = rdx_mlx5_syndrome_to_status(ecqe->syndrome);
		wc->vendor_err = ecqe->vendor_err_synd;
		if (opcode == MLX5_CQE_RESP_ERR) {
			wc->opcode = RDX_WC_RECV;
			if (unlikely(qp->rq_tail == qp->rq_head)) {
				wc->retired = 0;
				return;
			}
			wc->wr_id = qp->rq_wrid[qp->rq_tail & qp->rq_mask];
			qp->rq_tail++;
			rdx_mlx5_qp_count_err(qp, wc, true);
			return;
		}
		wc->opcode = req_wc_opcode((uint8_t)(be32toh(ecqe->s_wqe_opcode_qpn) >> 24));
		if (!sq_retire_err(qp, wqe_ctr, wc)) {
			wc->retired = 0;
			wc->wr_id = 0;
		}
		rdx_mlx5_qp_count_err(qp, wc, false);
		return;
	default: /* RESIZE, NO_PACKET, SIG_ERR, ... are not expected on RC */
		break;
	}
	wc->status = IBV_WC_GENERAL_ERR;
	wc->opcode = RDX_WC_UNKNOWN;
	wc->retired = 0;
}


/*
 * Every CQE the poll loop does not finish inline: another QP than the
 * cached one, responder CQEs other than a RESP_SEND with a receive
 * outstanding, errors, REQ CQEs naming nothing outstanding (the caller
 * saw it software-owned). The full completion.
 */
static __rte_cold __rte_noinline void
cqe_slow(struct rdx_mlx5_cq *cq, volatile struct mlx5_cqe64 *cqe, struct rdx_wc *wc)
{
	const uint8_t opcode = cqe->op_own >> 4;
	uint32_t sop, qpn;
	struct rdx_mlx5_qp *qp = cq->last_qp;

	udma_from_device_barrier();
	sop = be32toh(cqe->sop_drop_qpn);
	qpn = sop & 0xffffff;

	if (qp->base.qp_num != qpn)
		qp = cq_lookup_qp(cq, qpn);
	if (opcode == MLX5_CQE_REQ && qp != NULL && cqe_req_good(qp, cqe, sop, wc, false))
		return;
	cqe_other(cq, qp, cqe, opcode, qpn, wc);
}

/* The full variants (below), where the lean poll hands a CQE over. */
static uint16_t mlx5_poll_cq64(struct rdx_cq *bcq, struct rdx_wc *wc, uint16_t n);
static uint16_t mlx5_poll_cq128(struct rdx_cq *bcq, struct rdx_wc *wc, uint16_t n);

/*
 * Is the slot at consumer counter ci software's (get_sw_cqe)? The owner
 * bit first: after the first lap an empty slot holds the last lap's CQE.
 * Then a valid opcode.
 */
static __rte_always_inline bool
cqe_owned(volatile struct mlx5_cqe64 *cqe, uint32_t ci, uint32_t cqe_cnt)
{
	const uint8_t op_own = cqe->op_own;

	return !((op_own ^ ((ci & cqe_cnt) != 0)) & MLX5_CQE_OWNER_MASK) &&
		(op_own >> 4) != MLX5_CQE_INVALID;
}

/*
 * Poll up to n CQEs into wc (rdma-core mlx5_poll_one in a loop, n and
 * lean constant in the generated variants). The slot at the consumer
 * counter is software's when its owner bit is the lap's wrap parity and
 * its opcode valid (get_sw_cqe); the opcode and the owner bit are tested
 * together for the two common kinds, a requester CQE and (full poll
 * only) a RESP_SEND, and the body is read only after that. A good
 * completion of the cached QP is finished here; any other CQE software
 * owns goes to cqe_slow, out of line. lean: the lean completion of good
 * requester CQEs of the cached QP only; the poll ends before any other
 * CQE (the full poll takes it if it is the first). The consumed CQEs go
 * back to the device once per poll. wc is restrict: completions are
 * written only through it, never into the CQ or QP state this reads.
 * shift: log2 of the CQE size (6 or 7), a constant of each variant.
 */
static __rte_always_inline uint16_t
poll_cq(struct rdx_mlx5_cq *cq, struct rdx_wc *restrict wc, const uint16_t n, const bool lean,
	const uint32_t shift)
{
	uint8_t *const buf = cq->cqe64;
	const uint32_t mask = cq->cqe_mask;
	const uint32_t cnt = cq->cqe_cnt;
	const uint32_t ci0 = cq->cons_index;
	/* never NULL (the sentinel matches no 24-bit QPN) */
	struct rdx_mlx5_qp *qp = cq->last_qp;
	uint32_t ci = ci0;
	uint32_t resps = 0;
	uint16_t got;

	for (got = 0; got < n; got++, wc++, ci++) {
		volatile struct mlx5_cqe64 *const cqe = (volatile struct mlx5_cqe64 *)(void *)
			(buf + ((size_t)(ci & mask) << shift));
		/* op_own read once: what mlx5dv_get_cqe_opcode()/_owner() return */
		const uint8_t op_own = cqe->op_own & CQE_OP_OWN_MASK;
		uint32_t sop;

		if (likely(op_own == cqe_op_own_want(MLX5_CQE_REQ, ci, cnt))) {
			udma_from_device_barrier();
			sop = be32toh(cqe->sop_drop_qpn);
			if (likely(qp->base.qp_num == (sop & 0xffffff)) &&
			    likely(cqe_req_good(qp, cqe, sop, wc, lean)))
				continue;
		} else if (!lean && op_own == cqe_op_own_want(MLX5_CQE_RESP_SEND, ci, cnt)) {
			udma_from_device_barrier();
			sop = be32toh(cqe->sop_drop_qpn) & 0xffffff;
			/* the third this poll: a burst of them, the run from here */
			if (resps >= 2) {
				const uint32_t k = cqe_resp_run(qp, buf, mask, cnt, ci, wc, n - got,
								shift);

				if (likely(k != 0)) {
					got = (uint16_t)(got + k - 1);
					wc += k - 1;
					ci += k - 1;
					continue;
				}
			}
			if (likely(qp->base.qp_num == sop) && likely(cqe_resp_good(qp, cqe, sop, wc))) {
				resps++;
				continue;
			}
		} else if (!cqe_owned(cqe, ci, cnt)) {
			break;
		}
		if (lean) {
			/* Not a good requester CQE of the cached QP: the full
			 * completion of it, and of the ones after (nothing of
			 * this CQE consumed yet). */
			if (got == 0)
				return shift == 6 ? mlx5_poll_cq64(&cq->base, wc, n) :
					mlx5_poll_cq128(&cq->base, wc, n);
			break;
		}
		cqe_slow(cq, cqe, wc);
		qp = cq->last_qp;
	}
	if (likely(got != 0)) {
		cq->cons_index = ci;
		/* The CQE reads are done before the slots are handed back. */
		udma_to_device_barrier();
		cq->dbrec[0] = htobe32(ci & 0xffffff);
		cq->stats.polls++;
		cq->stats.cqes += got;
	}
	return got;
}

/*
 * The variants, generated from poll_cq with constant arguments (rdma-core
 * generates mlx5_poll_cq_v0/_v1 from mlx5_poll_cq so): by CQE size (64 or
 * 128 bytes, cq->cqe_shift 6 or 7), full or lean. The full poll of a CQE
 * size is the loop (mlx5_poll_many64/128) and, for a poll for one
 * (perftest's latency loops ask for n = 1), the same with n constant
 * (mlx5_poll_one64/128).
 * rdx_mlx5_cq_poll_op and rdx_mlx5_cq_poll_req_op pick a CQ's pair once,
 * at its creation.
 */
static __rte_noinline uint16_t
mlx5_poll_one64(struct rdx_mlx5_cq *cq, struct rdx_wc *wc)
{
	return poll_cq(cq, wc, 1, false, 6);
}

static __rte_noinline uint16_t
mlx5_poll_one128(struct rdx_mlx5_cq *cq, struct rdx_wc *wc)
{
	return poll_cq(cq, wc, 1, false, 7);
}

static __rte_noinline uint16_t
mlx5_poll_many64(struct rdx_mlx5_cq *cq, struct rdx_wc *wc, uint16_t n)
{
	return poll_cq(cq, wc, n, false, 6);
}

static __rte_noinline uint16_t
mlx5_poll_many128(struct rdx_mlx5_cq *cq, struct rdx_wc *wc, uint16_t n)
{
	return poll_cq(cq, wc, n, false, 7);
}

static __rte_always_inline uint16_t
poll_full(struct rdx_cq *bcq, struct rdx_wc *wc, uint16_t n, const uint32_t shift)
{
	struct rdx_mlx5_cq *const cq = (struct rdx_mlx5_cq *)bcq;

	if (n == 1)
		return shift == 6 ? mlx5_poll_one64(cq, wc) : mlx5_poll_one128(cq, wc);
	return shift == 6 ? mlx5_poll_many64(cq, wc, n) : mlx5_poll_many128(cq, wc, n);
}

static __rte_noinline uint16_t
mlx5_poll_cq64(struct rdx_cq *bcq, struct rdx_wc *wc, uint16_t n)
{
	return poll_full(bcq, wc, n, 6);
}

static __rte_noinline uint16_t
mlx5_poll_cq128(struct rdx_cq *bcq, struct rdx_wc *wc, uint16_t n)
{
	return poll_full(bcq, wc, n, 7);
}

/*
 * The lean poll (rdx_cq_poll_req_burst's contract, lib/dev/rdx_dev_core.h):
 * a poll for one writes the lean completion of a good requester CQE
 * (wr_id, imm: the retirement cursor rdx_mlx5_qp_retired_wr_id reads,
 * qp_num, retired, status, opcode); any other CQE gets the full one
 * (poll_cq hands it to the full variant); n other than 1 is the full poll.
 */
static __rte_noinline uint16_t
mlx5_poll_req_cq64(struct rdx_cq *bcq, struct rdx_wc *wc, uint16_t n)
{
	if (unlikely(n != 1))
		return mlx5_poll_cq64(bcq, wc, n);
	return poll_cq((struct rdx_mlx5_cq *)bcq, wc, 1, true, 6);
}

static __rte_noinline uint16_t
mlx5_poll_req_cq128(struct rdx_cq *bcq, struct rdx_wc *wc, uint16_t n)
{
	if (unlikely(n != 1))
		return mlx5_poll_cq128(bcq, wc, n);
	return poll_cq((struct rdx_mlx5_cq *)bcq, wc, 1, true, 7);
}

rdx_poll_burst_t
rdx_mlx5_cq_poll_op(const struct rdx_mlx5_cq *cq)
{
	return cq->cqe_shift == 6 ? mlx5_poll_cq64 : mlx5_poll_cq128;
}

rdx_poll_burst_t
rdx_mlx5_cq_poll_req_op(const struct rdx_mlx5_cq *cq)
{
	return cq->cqe_shift == 6 ? mlx5_poll_req_cq64 : mlx5_poll_req_cq128;
}

uint16_t
rdx_mlx5_poll_burst(struct rdx_cq *bcq, struct rdx_wc *wc, uint16_t n)
{
	if (likely(((struct rdx_mlx5_cq *)bcq)->cqe_shift == 6))
		return poll_full(bcq, wc, n, 6);
	return poll_full(bcq, wc, n, 7);
}

uint16_t
rdx_mlx5_poll_req_burst(struct rdx_cq *bcq, struct rdx_wc *wc, uint16_t n)
{
	return rdx_mlx5_cq_poll_req_op((struct rdx_mlx5_cq *)bcq)(bcq, wc, n);
}

uint16_t
rdx_mlx5_poll_burst_general(struct rdx_cq *bcq, struct rdx_wc *wc, uint16_t n)
{
	return rdx_mlx5_poll_burst(bcq, wc, n);
}

uint64_t
rdx_mlx5_qp_retired_wr_id(const struct rdx_qp *bqp, const struct rdx_wc *wc, uint16_t i)
{
	const struct rdx_mlx5_qp *qp = (const struct rdx_mlx5_qp *)bqp;
	uint32_t first;

	if (i >= wc->retired)
		return 0;
	if (i + 1 == wc->retired)
		return wc->wr_id;
	/* Only send completions retire more than one WR; imm is the cursor. */
	first = wc->imm - (uint32_t)(wc->retired - 1);
	return qp->sq_wrid[(first + i) & qp->sq_mask];
}
