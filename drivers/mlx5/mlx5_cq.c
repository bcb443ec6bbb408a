/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mlx5 completion polling (the datapath's cq.c): 64- or 128-byte CQEs by
 * owner bit, one always-inline fast loop for good requester CQEs of the
 * cached QP, a responder loop for its RESP_SEND CQEs (cq_poll_resp), a
 * general loop for every other kind (immediates, errors, flushes, another
 * QP). Rules: doc/mlx5-datapath.md (sections 4-5) and
 * rdma-core's providers/mlx5 cq.c.
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
#include <rte_vect.h>

#include <infiniband/verbs.h>

#include "rdx_mlx5.h"
#include "mlx5_wqe.h"

/*
 * mlx5 WQE opcode (requester CQE sop_drop_qpn[31:24]) -> what a good
 * requester CQE reports, indexed by the whole byte (no range check on the
 * fast path), one load: bits 31..24 the enum rdx_wc_opcode, bits 7..0
 * rdx_wc.byte_len (READ: REQ_LEN_FROM_CQE, the CQE's byte_cnt; atomics 8,
 * as cq.c; everything else 0).
 */
#define REQ_LEN_FROM_CQE 0xffu
/* The entries by opcode byte, E(wc, len) each (RI_U4/RI_U16: 4 or 16
 * unlisted ones): one list, two tables. */
#define RI_U4(E) E(RDX_WC_UNKNOWN, 0), E(RDX_WC_UNKNOWN, 0), E(RDX_WC_UNKNOWN, 0), \
	E(RDX_WC_UNKNOWN, 0)
#define RI_U16(E) RI_U4(E), RI_U4(E), RI_U4(E), RI_U4(E)
#define REQ_TABLE(E) { \
	E(RDX_WC_NOP, 0), E(RDX_WC_SEND, 0), E(RDX_WC_UNKNOWN, 0), E(RDX_WC_UNKNOWN, 0), /* 0x00 */ \
	RI_U4(E), /* 0x04 */ \
	E(RDX_WC_WRITE, 0), E(RDX_WC_WRITE, 0), E(RDX_WC_SEND, 0), E(RDX_WC_SEND, 0), /* 0x08 */ \
	RI_U4(E), /* 0x0c */ \
	E(RDX_WC_READ, REQ_LEN_FROM_CQE), E(RDX_WC_CAS, 8), E(RDX_WC_FAA, 8), \
	E(RDX_WC_UNKNOWN, 0), /* 0x10 */ \
	RI_U4(E), RI_U4(E), RI_U4(E), /* 0x14 */ \
	RI_U16(E), RI_U16(E), RI_U16(E), /* 0x20 */ \
	RI_U16(E), RI_U16(E), RI_U16(E), RI_U16(E), /* 0x50 */ \
	RI_U16(E), RI_U16(E), RI_U16(E), RI_U16(E), /* 0x90 */ \
	RI_U16(E), RI_U16(E), RI_U16(E), /* 0xd0 */ \
}
#define RI(wc, len) ((uint32_t)(wc) << 24 | (uint32_t)(len))
#define RI_OP(wc, len) ((uint32_t)(wc) << 24)
static const uint32_t rdx_mlx5_req_info[256] = REQ_TABLE(RI);
/* The opcodes alone (bits 31..24): the poll for one ORs its retired count
 * in without masking the length out first. */
static const uint32_t rdx_mlx5_req_op[256] = REQ_TABLE(RI_OP);
#undef RI_OP
#undef RI
#undef REQ_TABLE
#undef RI_U16
#undef RI_U4
_Static_assert(RDX_WC_UNKNOWN != 0, "unlisted opcodes must not read as NOP");
#define REQ_INFO_WC(info) ((uint8_t)((info) >> 24))

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
 * Fill a completion (info: the rdx_wc opcode in bits 31..24, as
 * rdx_mlx5_req_info holds it). On little-endian hosts as three word stores plus the
 * two pointers: [byte_len, imm], [qp_num, vendor_err], [retired, status,
 * opcode] are adjacent in struct rdx_wc.
 */
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
_Static_assert(offsetof(struct rdx_wc, imm) == offsetof(struct rdx_wc, byte_len) + 4 &&
	       offsetof(struct rdx_wc, vendor_err) == offsetof(struct rdx_wc, qp_num) + 4 &&
	       offsetof(struct rdx_wc, status) == offsetof(struct rdx_wc, retired) + 2 &&
	       offsetof(struct rdx_wc, opcode) == offsetof(struct rdx_wc, retired) + 3,
	       "rdx_wc layout");
#endif
static __rte_always_inline void
wc_set(struct rdx_wc *wc, uint64_t wr_id, void *qp_ctx, uint32_t byte_len, uint32_t imm,
       uint32_t qp_num, uint32_t retired, uint32_t info)
{
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	const uint64_t w_len = (uint64_t)byte_len | (uint64_t)imm << 32;
	const uint64_t w_qpn = qp_num;   /* vendor_err 0 */
	const uint32_t w_ret = retired | (uint32_t)IBV_WC_SUCCESS << 16 | (info & 0xff000000u);

	wc->wr_id = wr_id;
	wc->qp_ctx = qp_ctx;
	memcpy(&wc->byte_len, &w_len, sizeof(w_len));
	memcpy(&wc->qp_num, &w_qpn, sizeof(w_qpn));
	memcpy(&wc->retired, &w_ret, sizeof(w_ret));
#else
	wc->wr_id = wr_id;
	wc->qp_ctx = qp_ctx;
	wc->byte_len = byte_len;
	wc->imm = imm;
	wc->qp_num = qp_num;
	wc->vendor_err = 0;
	wc->retired = (uint16_t)retired;
	wc->status = IBV_WC_SUCCESS;
	wc->opcode = REQ_INFO_WC(info);
#endif
}

/*
 * A good requester CQE (opcode REQ; qp is the QP it names): retire the send
 * WQEs up to the signaled one at its wqe_counter (selective signaling: one
 * CQE completes every earlier WQE, libmlx5 "tail = wqe_head[idx] + 1").
 * Everything comes from the WQEBB's sq_sig entry: no ring read. False (and
 * nothing changed) for a counter that names no outstanding signaled WQE.
 */
static __rte_always_inline bool
cqe_req_good(struct rdx_mlx5_qp *qp, volatile struct mlx5_cqe64 *cqe, uint32_t sop,
	struct rdx_wc *wc)
{
	const uint8_t op = (uint8_t)(sop >> 24);
	const uint32_t mask = qp->sq_mask;
	const struct rdx_mlx5_sq_sig sig = qp->sq_sig[be16toh(cqe->wqe_counter) & mask];
	const uint32_t tail = qp->sq_tail;
	/* ord - tail: the signaled WQE's place behind the tail, which must
	 * be outstanding (a stale or repeated entry is behind the tail: it
	 * wraps to above the outstanding count) */
	const uint32_t retired = sig.ord - tail + 1u;
	uint32_t last, blen, info;

	if (unlikely(retired - 1u >= qp->sq_head - tail))
		return false;
	last = tail + retired - 1;
	/* byte_cnt is meaningful for READ only; atomics report 8 (cq.c). */
	info = rdx_mlx5_req_info[op];
	blen = info & 0xff;
	if (unlikely(blen == REQ_LEN_FROM_CQE))
		blen = be32toh(cqe->byte_cnt);
	/* imm: the retirement cursor for rdx_mlx5_qp_retired_wr_id */
	wc_set(wc, qp->sq_wrid[last & mask], qp->base.user_ctx, blen, last, sop & 0xffffff,
	       retired, info);
	qp->sq_tail = last + 1;
	qp->sq_tail_bb = sig.next_bb;
	return true;
}

/*
 * A RESP_SEND CQE of qp (the receive queue completes in order, as
 * cqe_other does): the oldest outstanding receive, byte_cnt, the sender
 * (flags_rqpn, slid). The caller checked that a receive is outstanding.
 * The same completion cqe_other writes, without the call and the field
 * by field stores.
 */
static __rte_always_inline void
cqe_resp_send(struct rdx_mlx5_qp *qp, volatile struct mlx5_cqe64 *cqe, uint32_t sop,
	      struct rdx_wc *wc)
{
	const uint32_t tail = qp->rq_tail;
	const uint32_t fr = be32toh(cqe->flags_rqpn);

	wc_set(wc, qp->rq_wrid[tail & qp->rq_mask], qp->base.user_ctx, be32toh(cqe->byte_cnt),
	       0, sop & 0xffffff, 1, (uint32_t)RDX_WC_RECV << 24);
	qp->rq_tail = tail + 1;
	wc->src_qp = fr & 0xffffff;
	wc->slid = be16toh(cqe->slid);
	wc->wc_flags = ((fr >> 28) & 3) != 0 ? RDX_WC_GRH : 0;
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
		wc->opcode = REQ_INFO_WC(rdx_mlx5_req_info[(uint8_t)(be32toh(ecqe->s_wqe_opcode_qpn) >> 24)]);
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
 * Every CQE the poll loop does not finish inline: another QP than the cached
 * one, responder CQEs, errors, REQ CQEs naming nothing outstanding.
 */
static __rte_noinline void
cqe_slow(struct rdx_mlx5_cq *cq, volatile struct mlx5_cqe64 *cqe, uint8_t opcode,
	 uint32_t sop, struct rdx_wc *wc)
{
	const uint32_t qpn = sop & 0xffffff;
	struct rdx_mlx5_qp *qp = cq->last_qp;

	if (qp->base.qp_num != qpn)
		qp = cq_lookup_qp(cq, qpn);
	if (opcode == MLX5_CQE_REQ && qp != NULL && cqe_req_good(qp, cqe, sop, wc))
		return;
	cqe_other(cq, qp, cqe, opcode, qpn, wc);
}


/* End of a poll burst: hand the consumed CQEs back (once per burst). */
static __rte_always_inline uint16_t
cq_poll_finish(struct rdx_mlx5_cq *cq, uint32_t ci0, uint32_t ci)
{
	const uint16_t got = (uint16_t)(ci - ci0);

	if (likely(got != 0)) {
		cq->cons_index = ci;
		/* The CQE reads are done before the slots are handed back. */
		rte_io_wmb();
		cq->dbrec[0] = htobe32(ci & 0xffffff);
		cq->stats.polls++;
		cq->stats.cqes += got;
	}
	return got;
}

/*
 * The general poll loop (every CQE kind). The burst started at consumer
 * counter ci0 and has reached ci; this polls up to n more CQEs into wc and
 * finishes the burst.
 */
static __rte_noinline uint16_t
cq_poll_general(struct rdx_mlx5_cq *cq, struct rdx_wc *wc, uint16_t n, uint32_t ci0,
		uint32_t ci)
{
	/* Locals: the wc stores may alias the CQ and would force reloads. */
	uint8_t *const buf = cq->cqe64;
	const uint32_t mask = cq->cqe_mask;
	const uint32_t shift = cq->cqe_shift;
	const uint32_t log_cnt = cq->log_cqe_cnt;
	struct rdx_wc *const wend = wc + n;
	/* never NULL (the sentinel matches no 24-bit QPN): one check per CQE */
	struct rdx_mlx5_qp *qp = cq->last_qp;

	for (; wc != wend; wc++) {
		volatile struct mlx5_cqe64 *cqe = (volatile struct mlx5_cqe64 *)(void *)
			(buf + ((size_t)(ci & mask) << shift));
		/* op_own read once, through the volatile pointer; opcode and owner
		 * are what mlx5dv_get_cqe_opcode()/mlx5dv_get_cqe_owner() return. */
		const uint8_t op_own = cqe->op_own;
		/* The owner bit software owns at ci: the ring's wrap parity. */
		const uint32_t own = (ci >> log_cnt) & MLX5_CQE_OWNER_MASK;
		uint32_t sop;

		/* Software-owned iff valid opcode and owner bit == wrap parity
		 * (get_sw_cqe). */
		if (((op_own ^ own) & MLX5_CQE_OWNER_MASK) || (op_own >> 4) == MLX5_CQE_INVALID)
			break;
		/* udma_from_device_barrier: read the body only after ownership. */
		rte_io_rmb();
		sop = be32toh(cqe->sop_drop_qpn);
		ci++;
		if ((op_own >> 4) == MLX5_CQE_REQ && qp->base.qp_num == (sop & 0xffffff) &&
		    cqe_req_good(qp, cqe, sop, wc))
			continue;
		/* A SEND received by the cached QP, a receive outstanding. */
		if ((op_own >> 4) == MLX5_CQE_RESP_SEND && qp->base.qp_num == (sop & 0xffffff) &&
		    qp->rq_tail != qp->rq_head) {
			cqe_resp_send(qp, cqe, sop, wc);
			continue;
		}
		cqe_slow(cq, cqe, op_own >> 4, sop, wc);
		qp = cq->last_qp;
	}
	return cq_poll_finish(cq, ci0, ci);
}

/*
 * The completion of a RESP_SEND CQE of the cached QP (what cqe_resp_send
 * writes: byte_len from byte_cnt, imm 0, qp_num, vendor_err 0, retired 1,
 * status SUCCESS, opcode RECV, the sender from flags_rqpn and slid; qp_num
 * from the CQE's sop_drop_qpn, which the caller checked is the QP's). On
 * x86-64 with SSSE3 the 32 bytes after the two pointers are two vector
 * stores built by pshufb: [byte_len, imm, qp_num, vendor_err] from CQE
 * bytes 44..59 (byte_cnt, timestamp, sop_drop_qpn) and [retired, status,
 * opcode, src_qp, slid, wc_flags] from CQE bytes 16..31 (wc_flags:
 * RDX_WC_GRH when flags_rqpn bits 29..28, the GRH type, are not 0, i.e.
 * CQE byte 24 & 0x30, as cq.c handle_responder; the vector makes that
 * min(byte & 0x30, 1)). Bytes 43..47 of the wc are padding.
 */
#if defined(RTE_ARCH_X86_64) && defined(__SSSE3__) && RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
_Static_assert(offsetof(struct rdx_wc, byte_len) == 16 && offsetof(struct rdx_wc, imm) == 20 &&
	       offsetof(struct rdx_wc, qp_num) == 24 && offsetof(struct rdx_wc, vendor_err) == 28 &&
	       offsetof(struct rdx_wc, retired) == 32 && offsetof(struct rdx_wc, status) == 34 &&
	       offsetof(struct rdx_wc, opcode) == 35 && offsetof(struct rdx_wc, src_qp) == 36 &&
	       offsetof(struct rdx_wc, slid) == 40 && offsetof(struct rdx_wc, wc_flags) == 42 &&
	       sizeof(struct rdx_wc) == 48, "rdx_wc layout (responder vector stores)");
_Static_assert(offsetof(struct mlx5_cqe64, slid) == 22 &&
	       offsetof(struct mlx5_cqe64, flags_rqpn) == 24 &&
	       offsetof(struct mlx5_cqe64, byte_cnt) == 44 &&
	       offsetof(struct mlx5_cqe64, sop_drop_qpn) == 56, "mlx5_cqe64 layout");
_Static_assert(IBV_WC_SUCCESS == 0 && RDX_WC_GRH == 1, "responder wc constants");
static __rte_always_inline void
wc_resp_send(struct rdx_wc *wc, volatile struct mlx5_cqe64 *cqe, uint64_t wr_id, void *ctx)
{
	/* CQE bytes 16..31: slid at 6..7, flags_rqpn at 8..11 (big-endian) */
	const __m128i sh_src = _mm_setr_epi8(-1, -1, -1, -1, 11, 10, 9, -1, 7, 6, 8, -1,
					     -1, -1, -1, -1);
	/* lane 10: the GRH type bits only, then at most 1 */
	const __m128i grh_and = _mm_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0x30, -1,
					      -1, -1, -1, -1);
	const __m128i grh_min = _mm_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 1, -1,
					      -1, -1, -1, -1);
	/* retired 1, status SUCCESS (0), opcode RECV */
	const __m128i w_ret = _mm_setr_epi32(1 | (int)RDX_WC_RECV << 24, 0, 0, 0);
	/* CQE bytes 44..59: byte_cnt at 0..3, the QPN at 13..15 (big-endian) */
	const __m128i sh_len = _mm_setr_epi8(3, 2, 1, 0, -1, -1, -1, -1, 15, 14, 13, -1,
					     -1, -1, -1, -1);
	const __m128i c1 = _mm_loadu_si128((const __m128i *)(const void *)
					   ((const volatile uint8_t *)cqe + 16));
	const __m128i c2 = _mm_loadu_si128((const __m128i *)(const void *)
					   ((const volatile uint8_t *)cqe + 44));
	__m128i v;

	wc->wr_id = wr_id;
	wc->qp_ctx = ctx;
	_mm_storeu_si128((__m128i *)(void *)&wc->byte_len, _mm_shuffle_epi8(c2, sh_len));
	v = _mm_min_epu8(_mm_and_si128(_mm_shuffle_epi8(c1, sh_src), grh_and), grh_min);
	_mm_storeu_si128((__m128i *)(void *)&wc->retired, _mm_or_si128(v, w_ret));
}
#else
/* Elsewhere: the same completion by words (cqe_resp_send's stores). */
static __rte_always_inline void
wc_resp_send(struct rdx_wc *wc, volatile struct mlx5_cqe64 *cqe, uint64_t wr_id, void *ctx)
{
	const uint32_t fr = be32toh(cqe->flags_rqpn);

	wc_set(wc, wr_id, ctx, be32toh(cqe->byte_cnt), 0, be32toh(cqe->sop_drop_qpn) & 0xffffff,
	       1, (uint32_t)RDX_WC_RECV << 24);
	wc->src_qp = fr & 0xffffff;
	wc->slid = be16toh(cqe->slid);
	wc->wc_flags = ((fr >> 28) & 3) != 0 ? RDX_WC_GRH : 0;
}
#endif

/*
 * CQE bytes 56..63 (sop_drop_qpn, wqe_counter, signature, op_own) in one
 * naturally aligned 8-byte load: the responder loop tests ownership,
 * opcode and QPN with one load, one AND and one compare. The load is
 * single-copy atomic and op_own is its last byte, which the device writes
 * last: a load that sees this lap's owner bit sees this CQE's QPN (the
 * body after byte 56 is still read only after it, rte_io_rmb). RESP_MASK
 * and RESP_WANT(qpn, op_own) are the big-endian values of those 8 bytes:
 * the QPN (bytes 57..59) and op_own's opcode and owner bits (byte 63);
 * byte 56 (not a QPN bit), the WQE counter and the signature are not
 * looked at, as in the two-load test they replace.
 */
_Static_assert(offsetof(struct mlx5_cqe64, sop_drop_qpn) == 56 &&
	       offsetof(struct mlx5_cqe64, op_own) == 63, "mlx5_cqe64 tail");
#define RESP_MASK (UINT64_C(0xffffff) << 32 | (0xf0u | MLX5_CQE_OWNER_MASK))
#define RESP_WANT(qpn, op_own) ((uint64_t)(qpn) << 32 | (op_own))
typedef uint64_t __attribute__((__may_alias__)) cqe_word64_t;
static __rte_always_inline uint64_t
cqe_tail8(volatile struct mlx5_cqe64 *cqe)
{
	return *(volatile cqe_word64_t *)(volatile void *)&cqe->sop_drop_qpn;
}

/*
 * The responder fast loop: RESP_SEND CQEs of the cached QP qp, each
 * completing the oldest outstanding receive (the RQ completes in order,
 * rdma-core cq.c for a non-SRQ QP), from consumer counter ci, up to n, in
 * one span: up to n, within the receives outstanding, and up to the CQ
 * ring's end (so the owner bit software owns is one constant: the ring's
 * wrap parity) and the receive wr_id array's end, stepping pointers, with
 * few values live. A whole span that ended at a ring's end with more to
 * poll starts the next one (a tail call of itself: a jump). Any other CQE
 * (a requester one, another QP, an immediate, an error, a responder CQE
 * with no receive outstanding) hands the rest of the burst to
 * cq_poll_general; an empty slot ends the burst. The burst started at ci0.
 */
static __rte_noinline uint16_t
cq_poll_resp(struct rdx_mlx5_cq *cq, struct rdx_mlx5_qp *qp, struct rdx_wc *wc, uint16_t n,
	     uint32_t ci0, uint32_t ci)
{
	const uint32_t mask = cq->cqe_mask;
	const uint32_t shift = cq->cqe_shift;
	const uint32_t rq_mask = qp->rq_mask;
	const uint32_t rq_tail = qp->rq_tail;
	uint32_t span = RTE_MIN((uint32_t)n, qp->rq_head - rq_tail);
	const uint64_t *wid_end;
	volatile struct mlx5_cqe64 *cqe;
	void *const ctx = qp->base.user_ctx;
	uint64_t want;
	uint32_t done;
	uint8_t op_own;
	intptr_t i;

	if (unlikely(span == 0)) {
		/* No receive outstanding for what may come next: the general
		 * loop reports such a CQE (retiring nothing), if there is one. */
		cqe = (volatile struct mlx5_cqe64 *)(void *)
			(cq->cqe64 + ((size_t)(ci & mask) << shift));
		i = -1;
		done = 0;
		goto other;
	}
	span = RTE_MIN(span, mask + 1 - (ci & mask));
	span = RTE_MIN(span, rq_mask + 1 - (rq_tail & rq_mask));
	wid_end = qp->rq_wrid + (rq_tail & rq_mask) + span;
	cqe = (volatile struct mlx5_cqe64 *)(void *)(cq->cqe64 + ((size_t)(ci & mask) << shift));
	/* RESP_SEND of qp with the owner bit of this lap */
	want = htobe64(RESP_WANT(qp->base.qp_num, (uint32_t)MLX5_CQE_RESP_SEND << 4 |
				 ((ci >> cq->log_cqe_cnt) & MLX5_CQE_OWNER_MASK)));
	for (i = -(intptr_t)span; i != 0; i++, wc++) {
		/* owner, opcode and QPN: one load (cqe_tail8) */
		if (unlikely((cqe_tail8(cqe) & htobe64(RESP_MASK)) != want))
			break;
		/* udma_from_device_barrier: the body only after ownership. */
		rte_io_rmb();
		wc_resp_send(wc, cqe, wid_end[i], ctx);
		cqe = (volatile struct mlx5_cqe64 *)(void *)
			((volatile uint8_t *)cqe + ((size_t)1 << shift));
	}
	done = (uint32_t)((intptr_t)span + i);
	qp->rq_tail = rq_tail + done;
	ci += done;
	if (done == n)
		return cq_poll_finish(cq, ci0, ci);
	/* The slot at ci (after a whole span: the span may have ended at the
	 * ring's end). */
	if (i == 0)
		cqe = (volatile struct mlx5_cqe64 *)(void *)
			(cq->cqe64 + ((size_t)(ci & mask) << shift));
other:
	/* Not software-owned (get_sw_cqe): the burst ends here. */
	op_own = cqe->op_own;
	if (((op_own ^ (ci >> cq->log_cqe_cnt)) & MLX5_CQE_OWNER_MASK) ||
	    (op_own >> 4) == MLX5_CQE_INVALID)
		return cq_poll_finish(cq, ci0, ci);
	/* A whole span: the next one (receives outstanding) or the general
	 * loop (none); a CQE this loop does not take: the general loop. */
	if (i == 0 && qp->rq_head != qp->rq_tail)
		return cq_poll_resp(cq, qp, wc, (uint16_t)(n - done), ci0, ci);
	return cq_poll_general(cq, wc, (uint16_t)(n - done), ci0, ci);
}

/*
 * The fast poll loop: good requester CQEs of the cached QP only, with no
 * calls (any other CQE hands the rest of the burst to cq_poll_general), so
 * it keeps its state in registers. Few values live across the loop (the
 * ring geometry is read from the CQ per CQE, the burst's start again at
 * the end: nothing here stores to the CQ before cq_poll_finish), so the
 * one- or two-CQE polls of the common case spill nothing. n >= 1 (the
 * caller took n == 0).
 */
static __rte_always_inline uint16_t
cq_poll(struct rdx_mlx5_cq *cq, struct rdx_wc *wc, uint16_t n)
{
	struct rdx_mlx5_qp *const qp = cq->last_qp;
	uint32_t ci = cq->cons_index;
	uint32_t k = n;

	do {
		volatile struct mlx5_cqe64 *cqe = (volatile struct mlx5_cqe64 *)(void *)
			(cq->cqe64 + ((size_t)(ci & cq->cqe_mask) << cq->cqe_shift));
		/* op_own read once, through the volatile pointer. */
		const uint8_t op_own = cqe->op_own;
		/* The owner bit software owns at ci: the ring's wrap parity. */
		const uint32_t own = (ci >> cq->log_cqe_cnt) & MLX5_CQE_OWNER_MASK;
		uint32_t sop;

		/* opcode and owner under one mask: opcode REQ (0) and ours */
		if (unlikely((op_own & (0xf0u | MLX5_CQE_OWNER_MASK)) != own)) {
			/* Not software-owned (get_sw_cqe): the burst ends here.
			 * The owner bit first: after the first lap an empty slot
			 * holds the last lap's CQE. */
			if (((op_own ^ own) & MLX5_CQE_OWNER_MASK) ||
			    (op_own >> 4) == MLX5_CQE_INVALID)
				break;
			/* A received SEND: the responder loop takes the rest (it
			 * writes the QP's rq_tail back: never the shared
			 * read-only sentinel). */
			if ((op_own >> 4) == MLX5_CQE_RESP_SEND && qp != &rdx_mlx5_no_qp)
				return cq_poll_resp(cq, qp, wc, (uint16_t)k, cq->cons_index, ci);
			return cq_poll_general(cq, wc, (uint16_t)k, cq->cons_index, ci);
		}
		/* udma_from_device_barrier: read the body only after ownership. */
		rte_io_rmb();
		sop = be32toh(cqe->sop_drop_qpn);
		if (unlikely(qp->base.qp_num != (sop & 0xffffff)) ||
		    unlikely(!cqe_req_good(qp, cqe, sop, wc)))
			return cq_poll_general(cq, wc, (uint16_t)k, cq->cons_index, ci);
		ci++;
		wc++;
	} while (--k != 0);
	return cq_poll_finish(cq, cq->cons_index, ci);
}

/* cq_poll_head's answers */
#define CQ_HEAD_EMPTY 0         /* not software-owned: nothing to report */
#define CQ_HEAD_REQ 1           /* a requester CQE of the cached QP */
#define CQ_HEAD_GENERAL 2       /* anything else: the general loop's */

/*
 * The opening of a poll for one (cq_poll_one, rdx_mlx5_poll_req_burst):
 * the slot at consumer counter ci. CQ_HEAD_REQ when it holds a requester
 * CQE software owns of the cached QP (the CQE in *cqep, its sop_drop_qpn
 * in *sopp, the QP in *qpp; the body read after ownership); CQ_HEAD_EMPTY
 * when software does not own it; CQ_HEAD_GENERAL for any other CQE (the
 * caller leaves it to cq_poll_general). Inlined: the answer folds into
 * the caller's branches.
 */
static __rte_always_inline int
cq_poll_head(struct rdx_mlx5_cq *cq, uint32_t ci, volatile struct mlx5_cqe64 **cqep,
	     uint32_t *sopp, struct rdx_mlx5_qp **qpp)
{
	/* the slot by a multiply (rdma-core's get_cqe: n * cqe_sz), the
	 * parity by a test: no shift count to load */
	volatile struct mlx5_cqe64 *const cqe = (volatile struct mlx5_cqe64 *)(void *)
		(cq->cqe64 + (size_t)((ci & cq->cqe_mask) * cq->cqe_size));
	/* op_own read once, through the volatile pointer. */
	const uint8_t op_own = cqe->op_own;
	/* The owner bit software owns at ci: the ring's wrap parity, the
	 * counter's bit log2(cqe_cnt). */
	const uint32_t own = (ci & cq->cqe_cnt) != 0;
	struct rdx_mlx5_qp *qp;
	uint32_t sop;

	/* opcode and owner under one mask: opcode REQ (0) and ours */
	if (unlikely((op_own & (0xf0u | MLX5_CQE_OWNER_MASK)) != own)) {
		/* Not software-owned (get_sw_cqe): nothing to report. The owner
		 * bit first: after the first lap an empty slot holds the last
		 * lap's CQE. The byte read again (no register held for it on
		 * the common path): should it have changed since, the general
		 * loop tests it once more. */
		const uint8_t oo = cqe->op_own;

		if (((oo ^ own) & MLX5_CQE_OWNER_MASK) || (oo >> 4) == MLX5_CQE_INVALID)
			return CQ_HEAD_EMPTY;
		return CQ_HEAD_GENERAL;
	}
	/* udma_from_device_barrier: read the body only after ownership. */
	rte_io_rmb();
	sop = be32toh(cqe->sop_drop_qpn);
	qp = cq->last_qp;
	if (unlikely(qp->base.qp_num != (sop & 0xffffff)))
		return CQ_HEAD_GENERAL;
	*cqep = cqe;
	*sopp = sop;
	*qpp = qp;
	return CQ_HEAD_REQ;
}

/*
 * A poll for one completion (a latency loop: perftest's ib_write_lat polls
 * with n = 1). Only the common case: the slot at the consumer counter holds
 * a good requester CQE of the cached QP, retired by cqe_req_good. No probe
 * of the slot after it (the caller asked for one), no loop, few live
 * values. Any other CQE (error, flush, responder, another QP, a counter
 * naming nothing outstanding) is left untouched for cq_poll_general (a
 * tail call, burst of one); an empty slot returns 0.
 */
static __rte_noinline uint16_t
cq_poll_one(struct rdx_mlx5_cq *cq, struct rdx_wc *wc)
{
	const uint32_t ci = cq->cons_index;
	volatile struct mlx5_cqe64 *cqe;
	struct rdx_mlx5_qp *qp;
	struct rdx_mlx5_sq_sig sig;
	uint32_t sop, tail, retired, last, info, blen;
	int head = cq_poll_head(cq, ci, &cqe, &sop, &qp);

	if (head == CQ_HEAD_EMPTY)
		return 0;
	if (head != CQ_HEAD_REQ)
		goto general;
	/* cqe_req_good's rule: the signaled WQE at wqe_counter retires every
	 * WQE up to it; a counter naming no outstanding signaled WQE is the
	 * general loop's. */
	sig = qp->sq_sig[be16toh(cqe->wqe_counter) & qp->sq_mask];
	tail = qp->sq_tail;
	retired = sig.ord - tail + 1u;
	if (unlikely(retired - 1u >= qp->sq_head - tail))
		goto general;
	info = rdx_mlx5_req_info[(uint8_t)(sop >> 24)];
	blen = info & 0xff;
	if (unlikely(blen == REQ_LEN_FROM_CQE))
		blen = be32toh(cqe->byte_cnt);
	/* Every CQE byte is read: hand the slot back, then retire (the CQ's
	 * registers are free for the rest). */
	cq_poll_finish(cq, ci, ci + 1);
	last = tail + retired - 1;
	wc_set(wc, qp->sq_wrid[last & qp->sq_mask], qp->base.user_ctx, blen, last,
	       sop & 0xffffff, retired, info);
	qp->sq_tail = last + 1;
	qp->sq_tail_bb = sig.next_bb;
	return 1;
general:
	return cq_poll_general(cq, wc, 1, ci, ci);
}

/*
 * n == 1 takes cq_poll_one (the compare and branch the loop's n == 0 test
 * was, n <= 1, so longer polls pay nothing for it), before any of the loop's set-up (its own function, so the
 * loop's register saves are not paid there); every other n the fast loop.
 */
uint16_t
rdx_mlx5_poll_burst(struct rdx_cq *bcq, struct rdx_wc *wc, uint16_t n)
{
	if (n <= 1)
		return n == 0 ? 0 : cq_poll_one((struct rdx_mlx5_cq *)bcq, wc);
	return cq_poll((struct rdx_mlx5_cq *)bcq, wc, n);
}

/*
 * rdx_cq_poll_req_burst's op (the lean contract, lib/dev/rdx_dev_core.h):
 * a poll for one takes the slot at the consumer counter when it holds a
 * good requester CQE of the cached QP whose counter names an outstanding
 * signaled WQE (cq_poll_head's tests, then cq_poll_one's retirement rule,
 * in the same order), and writes wr_id, imm (the retirement cursor
 * rdx_mlx5_qp_retired_wr_id reads), qp_num and [retired, status, opcode]:
 * not qp_ctx, byte_len or vendor_err (rdma-core's ibv_cq_ex: the poller
 * reads only the fields it asks for). Anything else is the general loop's
 * (tail call, burst of one, the full completion); an empty slot returns 0;
 * n != 1 is rdx_mlx5_poll_burst (its completions meet the contract). In
 * the entry point itself, with no call on the way, and with what comes
 * from sop stored or folded early and the retirement before the wc stores
 * so that one register save is all (doc/perf.md, the latency path).
 */
uint16_t
rdx_mlx5_poll_req_burst(struct rdx_cq *bcq, struct rdx_wc *wc, uint16_t n)
{
	struct rdx_mlx5_cq *const cq = (struct rdx_mlx5_cq *)bcq;
	volatile struct mlx5_cqe64 *cqe;
	struct rdx_mlx5_qp *qp;
	const struct rdx_mlx5_sq_sig *sig;
	uint32_t ci, sop, tail, retired, last, w_op, w_ret;
	int head;

	if (unlikely(n != 1))
		return rdx_mlx5_poll_burst(bcq, wc, n);
	ci = cq->cons_index;
	head = cq_poll_head(cq, ci, &cqe, &sop, &qp);
	if (head == CQ_HEAD_EMPTY)
		return 0;
	if (head != CQ_HEAD_REQ)
		goto general;
	/* The values taken from sop stored or folded at once, so that few
	 * stay live (should the CQE be the general loop's after all, that
	 * writes the whole completion again). */
	wc->qp_num = sop & 0xffffff;
	w_op = rdx_mlx5_req_op[(uint8_t)(sop >> 24)];
	/* cqe_req_good's rule: the signaled WQE at wqe_counter retires every
	 * WQE up to it; a counter naming none outstanding is the general
	 * loop's. */
	sig = &qp->sq_sig[be16toh(cqe->wqe_counter) & qp->sq_mask];
	tail = qp->sq_tail;
	retired = sig->ord - tail + 1u;
	if (unlikely(retired - 1u >= qp->sq_head - tail))
		goto general;
	last = tail + retired - 1;
	/* next_bb read where it is stored: one value fewer live */
	qp->sq_tail_bb = sig->next_bb;
	qp->sq_tail = last + 1;
	/* the mask read again (after the stores: no register held for it) */
	wc->wr_id = qp->sq_wrid[last & qp->sq_mask];
	wc->imm = last;
	/* [retired, status SUCCESS, opcode] */
	w_ret = retired | w_op;
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	memcpy(&wc->retired, &w_ret, sizeof(w_ret));
#else
	wc->retired = (uint16_t)retired;
	wc->status = IBV_WC_SUCCESS;
	wc->opcode = (uint8_t)(w_ret >> 24);
#endif
	/* Every CQE byte it needs is read: hand the slot back. */
	cq_poll_finish(cq, ci, ci + 1);
	return 1;
general:
	return cq_poll_general(cq, wc, 1, ci, ci);
}

uint16_t
rdx_mlx5_poll_burst_general(struct rdx_cq *bcq, struct rdx_wc *wc, uint16_t n)
{
	struct rdx_mlx5_cq *cq = (struct rdx_mlx5_cq *)bcq;

	return cq_poll_general(cq, wc, n, cq->cons_index, cq->cons_index);
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
