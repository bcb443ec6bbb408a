/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mlx5 RC send posting (the datapath's qp.c): build RC WQEs straight into
 * the send queue, ring once per burst (BlueFlame for one small WQE). UD
 * sends are in mlx5_qp_ud.c, receives in mlx5_rq.c; the ring, the
 * BlueFlame copy and the burst end they share are in mlx5_sq.h. Shaped
 * like rdma-core's providers/mlx5 qp.c: set_*_seg helpers (mlx5_wqe.h), checks marked
 * unlikely, always-inline specialisations of the post loop. Formats and
 * rules: doc/mlx5-datapath.md (sections 1-3) and the datapath/device
 * contract.
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

#include "rdx_config.h"
#include "rdx_mlx5.h"
#include "mlx5_wqe.h"
#include "mlx5_sq.h"

/* ---------------------------------------------------------------------- */
/* Send                                                                    */

/* Was the payload of this posted WR written inline (build_wqe's rule)? */
static inline bool
wr_inline(const struct rdx_wr *wr)
{
	return (wr->flags & RDX_WR_INLINE) && wr->num_sge != 0 &&
		(wr->opcode == RDX_OP_SEND || wr->opcode == RDX_OP_SEND_IMM ||
		 wr->opcode == RDX_OP_WRITE || wr->opcode == RDX_OP_WRITE_IMM);
}

/*
 * General WQE builder (every opcode, gather lists, multi-SGE or wrapping
 * inline): writes the segments after ctrl, sets *imm and returns the DS
 * count, or 0 for an invalid WR (nothing is posted for it).
 */
static __rte_noinline uint32_t
build_wqe(const struct rdx_mlx5_qp *qp, uint8_t *ctrl, const struct rdx_wr *wr,
	  uint32_t *imm)
{
	uint8_t *seg = ctrl + sizeof(struct mlx5_wqe_ctrl_seg);
	uint32_t ds = 1, nds;

	*imm = 0;
	if (unlikely(wr->num_sge > qp->max_send_sge))
		return 0;
	switch (wr->opcode) {
	case RDX_OP_NOP:
		return 1;
	case RDX_OP_READ:
		/* ctrl + raddr + scatter list; INLINE means nothing here */
		set_raddr_seg(seg, wr->remote_addr, wr->rkey);
		return 2 + set_data_segs(qp, seg + MLX5_DS_SIZE, wr);
	case RDX_OP_CAS:
	case RDX_OP_FAA:
		/* ctrl + raddr + atomic + data = DS 4: one WQEBB, never wraps */
		if (wr->num_sge != 1 || wr->sge[0].length != 8)
			return 0;
		set_raddr_seg(seg, wr->remote_addr, wr->rkey);
		set_atomic_seg(seg + MLX5_DS_SIZE, wr);
		mlx5dv_set_data_seg((struct mlx5_wqe_data_seg *)(void *)(seg + 2 * MLX5_DS_SIZE),
				    8, wr->sge[0].lkey, (uintptr_t)wr->sge[0].addr);
		return 4;
	case RDX_OP_WRITE_IMM:
		*imm = wr->imm;
		/* fall through */
	case RDX_OP_WRITE:
		set_raddr_seg(seg, wr->remote_addr, wr->rkey);
		seg += MLX5_DS_SIZE;
		ds = 2;
		break;
	case RDX_OP_SEND_IMM:
		*imm = wr->imm;
		break;
	case RDX_OP_SEND:
		break;
	default:
		return 0;
	}
	/* SEND / WRITE payload: inline (rdma-core: only with SGEs) or gather list. */
	if (!(wr->flags & RDX_WR_INLINE) || wr->num_sge == 0)
		return ds + set_data_segs(qp, seg, wr);
	nds = set_inline_seg_slow(qp, seg, wr);
	return nds == UINT32_MAX ? 0 : ds + nds;
}

/*
 * The fast shapes: an inline RDMA_WRITE or SEND of 8..16 bytes from one SGE
 * (the QP's max_inline >= 16, else fast_key never matches; no FENCE or
 * SOLICITED): ctrl + [raddr] + inline = DS 2..4, always inside one WQEBB.
 * Writes the segments after ctrl and sets *w0 to ctrl bytes 0..7 as a
 * native word without the WQE index; false for any other WR (nothing
 * written). The WR is read before the WQE stores, which may alias it.
 */
static __rte_always_inline bool
build_fast(uint8_t *ctrl, const struct rdx_wr *wr, uint32_t key, uint32_t fast_key,
	   uint64_t w0_write, uint64_t *w0)
{
	const uint32_t shape = key & WR_KEY_MASK;
	const struct rdx_sge *sge;
	const uint8_t *src;
	uint32_t len;

	if (likely(shape == fast_key)) {
		sge = wr->sge;
		len = sge->length;
		src = (const uint8_t *)(uintptr_t)sge->addr;
		if (likely(len == 8)) {
			set_raddr_seg(ctrl + MLX5_DS_SIZE, wr->remote_addr, wr->rkey);
			set_inline_8(ctrl + 2 * MLX5_DS_SIZE, src);
			*w0 = w0_write | 3;
			return true;
		}
		if (unlikely(len - 9 > 7))
			return false;
		set_raddr_seg(ctrl + MLX5_DS_SIZE, wr->remote_addr, wr->rkey);
		set_inline_small(ctrl + 2 * MLX5_DS_SIZE, src, len);
		/* DS = 2 + align16(4 + len) / 16 */
		*w0 = w0_write | ((len + 4 + 2 * MLX5_DS_SIZE + MLX5_DS_SIZE - 1) >> 4);
		return true;
	}
	if (shape == (fast_key ^ WR_KEY_WRITE_TO_SEND)) {
		sge = wr->sge;
		len = sge->length;
		src = (const uint8_t *)(uintptr_t)sge->addr;
		w0_write ^= W0_WRITE_TO_SEND;
		if (likely(len == 8)) {
			set_inline_8(ctrl + MLX5_DS_SIZE, src);
			*w0 = w0_write | 2;
			return true;
		}
		if (unlikely(len - 9 > 7))
			return false;
		set_inline_small(ctrl + MLX5_DS_SIZE, src, len);
		/* DS = 1 + align16(4 + len) / 16 */
		*w0 = w0_write | ((len + 4 + MLX5_DS_SIZE + MLX5_DS_SIZE - 1) >> 4);
		return true;
	}
	return false;
}

/*
 * The general post loop (every WR shape). done WRs of this burst are posted
 * already (their state is in qp, last is the last one's ctrl, NULL if
 * none); this posts up to n more and rings once for all of them.
 */
static __rte_noinline uint16_t
post_general(struct rdx_mlx5_qp *qp, const struct rdx_wr *wr, uint16_t n, uint16_t done,
	     struct mlx5_wqe_ctrl_seg *last)
{
	uint8_t *const sq_buf = qp->sq_buf;
	uint64_t *const wrid = qp->sq_wrid;
	struct rdx_mlx5_sq_sig *const sig = qp->sq_sig;
	const uint32_t mask = qp->sq_mask;
	const uint32_t fast_key = qp->fast_key;
	const uint32_t sig_interval = qp->sig_interval;
	const uint64_t qpn8 = qp->qpn8;
	const uint64_t w0_write = (uint64_t)MLX5_OPCODE_RDMA_WRITE << 32 | qpn8;
	const uint32_t tail = qp->sq_tail;
	const uint32_t last_slot = tail + qp->sq_max_post - 1;
	uint32_t head = qp->sq_head;
	const uint32_t room = qp->sq_max_post - (head - tail);
	const struct rdx_wr *const end = wr + RTE_MIN((uint32_t)n, room);
	uint32_t cur_post = qp->sq_cur_post;
	/* Ordinal after the last signaled WQE, and the next one that must be
	 * signaled: at most sig_interval apart, and the WQE that takes the
	 * last free slot (so a full SQ always has a CQE coming: no deadlock). */
	uint32_t sig_base = head - qp->sq_unsignaled;
	uint32_t forced = head + RTE_MIN(sig_interval - 1 - qp->sq_unsignaled,
					 last_slot - head);
	uint16_t nreq, posted;
	bool inl = true;

	while (wr != end) {
		const uint32_t idx = cur_post & mask;
		uint8_t *const ctrl = sq_buf + ((size_t)idx << MLX5_WQEBB_SHIFT);
		uint32_t key, nbb = 1;
		uint64_t w0, w1 = 0;

		memcpy(&key, &wr->opcode, sizeof(key));
		if (!build_fast(ctrl, wr, key, fast_key, w0_write, &w0)) {
			uint32_t imm;
			const uint32_t ds = build_wqe(qp, ctrl, wr, &imm);

			if (unlikely(ds == 0))
				break;
			w0 = (uint64_t)rdx_mlx5_wqe_opcode[wr->opcode] << 32 | qpn8 | ds;
			nbb = (ds + 3) >> 2;
			w1 = W1_IMM(imm) | rdx_mlx5_w1_fm[WR_KEY_FLAGS(key) & 0xf];
		}
		if (unlikely((key & WR_KEY_SIGNALED) || head == forced)) {
			w1 |= W1_CQ_UPDATE;
			sig_base = head + 1;
			forced = head + RTE_MIN(sig_interval, last_slot - head);
			/* Only signaled WQEs get good CQEs: only they need the
			 * WQEBB -> WQE map (errors/flushes walk the ring). */
			sig[idx].ord = head;
			sig[idx].next_bb = (uint16_t)(cur_post + nbb);
		}
		set_ctrl(ctrl, w0, cur_post, w1);
		cur_post += nbb;
		wrid[head & mask] = wr->wr_id;
		head++;
		last = (struct mlx5_wqe_ctrl_seg *)(void *)ctrl;
		wr++;
	}
	nreq = (uint16_t)(head - qp->sq_head);   /* one ordinal per WR posted */
	if (unlikely(nreq < n)) {
		if (wr < end)
			qp->stats.bad_wr++;
		else
			qp->stats.sq_full++;
	}
	posted = nreq;
	nreq = (uint16_t)(nreq + done);
	if (unlikely(nreq == 0))
		return 0;
	/* BlueFlame needs the one WR's inline flag (post_send_db's inl): the
	 * caller's fast WR (done) is inline, else it is wr[-1]. */
	if (nreq == 1 && posted == 1)
		inl = wr_inline(wr - 1);
	return post_finish(qp, last, cur_post, head, sig_base, nreq, false, inl);
}

/*
 * The WR shapes a run takes (one exact shape per run, every WQE one WQEBB):
 * the 8-byte inline WRITE and SEND, and one-SGE WRITE, SEND, READ, CAS,
 * FAA. Flags other than SIGNALED (FENCE, SOLICITED, INLINE on a READ or an
 * atomic) and zero-length SGEs leave the shape (the general loop).
 */
enum run_shape {
	RUN_WRITE_INL8,         /* ctrl + raddr + inline 8: DS 3 */
	RUN_SEND_INL8,          /* ctrl + inline 8: DS 2 */
	RUN_WRITE_SGE,          /* ctrl + raddr + data: DS 3 */
	RUN_SEND_SGE,           /* ctrl + data: DS 2 */
	RUN_READ,               /* ctrl + raddr + data: DS 3 */
	RUN_CAS,                /* ctrl + raddr + atomic + data (8 bytes): DS 4 */
	RUN_FAA,                /* the same */
};

/* DS count and mlx5 opcode of a run shape. */
static __rte_always_inline uint32_t
run_ds(const enum run_shape shape)
{
	switch (shape) {
	case RUN_SEND_INL8:
	case RUN_SEND_SGE:
		return 2;
	case RUN_CAS:
	case RUN_FAA:
		return 4;
	default:
		return 3;
	}
}

static __rte_always_inline uint8_t
run_opcode(const enum run_shape shape)
{
	switch (shape) {
	case RUN_SEND_INL8:
	case RUN_SEND_SGE:
		return MLX5_OPCODE_SEND;
	case RUN_READ:
		return MLX5_OPCODE_RDMA_READ;
	case RUN_CAS:
		return MLX5_OPCODE_ATOMIC_CS;
	case RUN_FAA:
		return MLX5_OPCODE_ATOMIC_FA;
	default:
		return MLX5_OPCODE_RDMA_WRITE;
	}
}

/*
 * One WQE of a run (post_run): a WR of the exact shape key want at ctrl,
 * ctrl bytes 0..15 being ctrl16. False, nothing written, for a WR of
 * another shape (another key, an inline length other than 8, a zero-length
 * SGE, an atomic not of 8 bytes). Segments come from the set_*_v helpers
 * (mlx5_wqe.h): the raddr segment with its reserved word in one store; an
 * inline header is one 4-byte constant store.
 */
static __rte_always_inline bool
run_wqe(uint8_t *ctrl, const struct rdx_wr *wr, const rdx_v2u64 ctrl16, const uint32_t want,
	const enum run_shape shape)
{
	const uint32_t hdr = RTE_BE32(8u | MLX5_INLINE_SEG);
	const struct rdx_sge *sge;
	uint64_t payload;
	uint32_t key;

	memcpy(&key, &wr->opcode, sizeof(key));
	if (unlikely((key & WR_KEY_EXACT_MASK) != want))
		return false;
	sge = wr->sge;
	switch (shape) {
	case RUN_WRITE_INL8:
	case RUN_SEND_INL8:
		if (unlikely(sge->length != 8))
			return false;
		memcpy(&payload, (const uint8_t *)(uintptr_t)sge->addr, sizeof(payload));
		if (shape == RUN_WRITE_INL8) {
			set_raddr_seg_v(ctrl + MLX5_DS_SIZE, wr);
			ctrl += MLX5_DS_SIZE;
		}
		memcpy(ctrl + MLX5_DS_SIZE, &hdr, sizeof(hdr));
		memcpy(ctrl + MLX5_DS_SIZE + 4, &payload, sizeof(payload));
		if (shape == RUN_WRITE_INL8)
			ctrl -= MLX5_DS_SIZE;
		break;
	case RUN_SEND_SGE:
		if (unlikely(sge->length == 0))
			return false;
		set_data_seg_v(ctrl + MLX5_DS_SIZE, sge);
		break;
	case RUN_WRITE_SGE:
	case RUN_READ:
		if (unlikely(sge->length == 0))
			return false;
		set_raddr_seg_v(ctrl + MLX5_DS_SIZE, wr);
		set_data_seg_v(ctrl + 2 * MLX5_DS_SIZE, sge);
		break;
	case RUN_CAS:
	case RUN_FAA:
		if (unlikely(sge->length != 8))
			return false;
		set_raddr_seg_v(ctrl + MLX5_DS_SIZE, wr);
		set_atomic_seg_v(ctrl + 2 * MLX5_DS_SIZE, wr, shape == RUN_CAS);
		set_data_seg_v(ctrl + 3 * MLX5_DS_SIZE, sge);
		break;
	}
	memcpy(ctrl, &ctrl16, sizeof(ctrl16));
	return true;
}

/*
 * A run of WRs of one shape, all of the exact shape key want, into
 * consecutive WQEBBs, unsignaled (the caller sets CQ_UPDATE on the last one
 * afterwards when it must be signaled). The caller bounds the run (span) so
 * that it wraps neither the ring nor the wr_id array and does not carry the
 * WQE index's low byte: ctrl word 0 then steps by a constant in its stored
 * form (no per-WQE swap), word 1 is 0. Stops early at a WR of another
 * shape; returns the number of WQEs written. Two WQEs per turn of the loop
 * (an odd one first), so the loop's own steps are paid once per pair.
 */
static __rte_always_inline uint32_t
post_run(uint8_t *ctrl, uint64_t *wid, uint64_t w0be, const struct rdx_wr *wr,
	 const uint32_t span, const uint32_t want, const enum run_shape shape)
{
	uint64_t *const wid_end = wid + span;
	/* ctrl bytes 0..15 as one vector: word 0 as stored, word 1 zero */
	rdx_v2u64 ctrl16 = { w0be, 0 };
	const rdx_v2u64 step = { W0BE_IDX_ONE, 0 };
	/* Counts up to 0: one register indexes the wr_id slots and ends the loop. */
	intptr_t i = -(intptr_t)span;

	if (span & 1) {
		if (unlikely(!run_wqe(ctrl, wr, ctrl16, want, shape)))
			return 0;
		wid_end[i] = wr->wr_id;
		ctrl16 += step;
		V_STEP_IN_PLACE(ctrl16);
		ctrl += 1u << MLX5_WQEBB_SHIFT;
		wr++;
		i++;
	}
	for (; i != 0; i += 2) {
		if (unlikely(!run_wqe(ctrl, wr, ctrl16, want, shape)))
			break;
		wid_end[i] = wr->wr_id;
		ctrl16 += step;
		V_STEP_IN_PLACE(ctrl16);
		if (unlikely(!run_wqe(ctrl + (1u << MLX5_WQEBB_SHIFT), wr + 1, ctrl16, want,
				      shape))) {
			i++;
			break;
		}
		wid_end[i + 1] = wr[1].wr_id;
		ctrl16 += step;
		V_STEP_IN_PLACE(ctrl16);
		ctrl += 2u << MLX5_WQEBB_SHIFT;
		wr += 2;
	}
	return (uint32_t)((intptr_t)span + i);
}

/* A run of shape at ctrl: ctrl word 0 from the shape, the QPN and cur_post. */
static __rte_always_inline uint32_t
post_run_shape(uint8_t *ctrl, uint64_t *wid, uint64_t qpn8, uint32_t cur_post,
	       const struct rdx_wr *wr, const uint32_t span, const uint32_t want,
	       const enum run_shape shape)
{
	const uint64_t w0 = (uint64_t)run_opcode(shape) << 32 | qpn8 | run_ds(shape) |
		(uint64_t)(uint16_t)cur_post << 40;

	return post_run(ctrl, wid, rte_cpu_to_be_64(w0), wr, span, want, shape);
}

/*
 * The signaling rule of a single post (post_general's for one WQE): by
 * flag, every sig_interval-th (unsig WQEs unsignaled since the last), the
 * WQE that takes the last free slot, or the burst's end.
 */
static __rte_always_inline bool
single_signals(const struct rdx_mlx5_qp *qp, uint32_t key, uint32_t head, uint32_t unsig)
{
	return (key & WR_KEY_SIGNALED) || unsig >= qp->sig_last ||
		head - qp->sq_tail == qp->sq_last_slot || qp->sig_burst_end;
}

/*
 * A burst of one inline RDMA_WRITE or SEND from one SGE that build_fast did
 * not take (key: that shape; FENCE, SOLICITED and immediates are not it):
 * an RPC's request or answer. What post_general builds for it (ctrl +
 * [raddr] + inline, the payload wrapping at the SQ end as
 * set_inline_seg_slow does), the signaling rule of post_single, the same
 * ring (BlueFlame as post_send_db), without the burst loop. A length of 0
 * or above max_inline goes to post_general (no segment; bad WR).
 */
static __rte_noinline uint16_t
post_single_inl(struct rdx_mlx5_qp *qp, const struct rdx_wr *wr, uint32_t key)
{
	const bool send = (key & WR_KEY_MASK) != WR_KEY_WRITE_INL;
	const uint32_t len = wr->sge->length;
	const uint8_t *const src = (const uint8_t *)(uintptr_t)wr->sge->addr;
	const uint32_t head = qp->sq_head;
	const uint32_t cur_post = qp->sq_cur_post;
	const uint32_t idx = cur_post & qp->sq_mask;
	uint8_t *const ctrl = (uint8_t *)sq_ctrl(qp->sq_buf, idx, qp->sq_mask);
	uint8_t *seg = ctrl + sizeof(struct mlx5_wqe_ctrl_seg), *dst;
	uint32_t ds, nbb, room, unsig = qp->sq_unsignaled;
	uint64_t w0, w1 = 0;

	if (unlikely(len == 0 || len > qp->max_inline))
		return post_general(qp, wr, 1, 0, NULL);
	if (!send) {
		set_raddr_seg(seg, wr->remote_addr, wr->rkey);
		seg += MLX5_DS_SIZE;
	}
	/* the header lies in the first WQEBB; the payload may wrap */
	dst = seg + sizeof(struct mlx5_wqe_inl_data_seg);
	room = (uint32_t)(qp->sq_end - dst);
	if (len >= room) {
		memcpy(dst, src, room);
		memcpy(qp->sq_buf, src + room, len - room);
	} else {
		memcpy(dst, src, len);
	}
	((struct mlx5_wqe_inl_data_seg *)(void *)seg)->byte_count =
		htobe32(len | MLX5_INLINE_SEG);
	ds = (uint32_t)(seg - ctrl) / MLX5_DS_SIZE + ((len + 4 + MLX5_DS_SIZE - 1) >> 4);
	nbb = (ds + 3) >> 2;
	w0 = (uint64_t)(send ? MLX5_OPCODE_SEND : MLX5_OPCODE_RDMA_WRITE) << 32 |
		qp->qpn8 | ds;
	if (single_signals(qp, key, head, unsig)) {
		w1 = W1_CQ_UPDATE;
		unsig = 0;
		qp->sq_sig[idx].ord = head;
		qp->sq_sig[idx].next_bb = (uint16_t)(cur_post + nbb);
	} else {
		unsig++;
	}
	set_ctrl(ctrl, w0, cur_post, w1);
	qp->sq_wrid[head & qp->sq_mask] = wr->wr_id;
	qp->sq_cur_post = cur_post + nbb;
	qp->sq_head = head + 1;
	qp->sq_unsignaled = unsig;
	qp->stats.wqes++;
	sq_ring(qp, (const struct mlx5_wqe_ctrl_seg *)(const void *)ctrl, cur_post + nbb, 1,
		false, true);
	return 1;
}

/*
 * The rest of a single post once its segments are written (w0_xor: what
 * turns the QP's 8-byte WRITE ctrl word 0, w0_wr8, into this WQE's, as a
 * native word without the WQE index): post_general's rule for one
 * WQE, the ctrl segment, the ring state, one doorbell (BlueFlame).
 */
static __rte_always_inline uint16_t
post_single_finish(struct rdx_mlx5_qp *qp, struct mlx5_wqe_ctrl_seg *ctrl, uint32_t cur_post,
		   uint32_t key, uint64_t wr_id, uint64_t w0_xor)
{
	/* The QP read after the segment stores (which may alias it, so the
	 * compiler reloads): fewer values live across them, fewer registers
	 * to save. */
	uint32_t head = qp->sq_head;
	uint32_t unsig = qp->sq_unsignaled;
	uint64_t w1 = 0;
	uint32_t idx;

	if (single_signals(qp, key, head, unsig)) {
		w1 = W1_CQ_UPDATE;
		unsig = 0;
		idx = cur_post & qp->sq_mask;
		qp->sq_sig[idx].ord = head;
		qp->sq_sig[idx].next_bb = (uint16_t)(cur_post + 1);
	} else {
		unsig++;
	}
	/* ctrl word 0: the QP's 8-byte WRITE one, changed by w0_xor, read
	 * here (after the sq_sig stores), so it holds no register before */
	set_ctrl((uint8_t *)ctrl, qp->w0_wr8 ^ w0_xor, cur_post, w1);
	qp->sq_wrid[head & qp->sq_mask] = wr_id;
	qp->sq_cur_post = cur_post + 1;
	qp->sq_head = head + 1;
	qp->sq_unsignaled = unsig;
	qp->stats.wqes++;
	sq_ring(qp, ctrl, cur_post + 1, 1, true, true);
	return 1;
}

/*
 * A burst of one WR that is not an 8-byte inline WRITE or SEND
 * (post_single took the SQ-full test): build_fast's 9..16-byte shapes,
 * an inline WRITE or SEND of another length through post_single_inl,
 * anything else through post_general. Out of line, so the latency path's
 * registers are not this one's.
 */
static __rte_noinline uint16_t
post_single_other(struct rdx_mlx5_qp *qp, const struct rdx_wr *wr, uint32_t key)
{
	const uint32_t cur_post = qp->sq_cur_post;
	struct mlx5_wqe_ctrl_seg *const ctrl = sq_ctrl(qp->sq_buf, cur_post, qp->sq_mask);
	const uint64_t wr_id = wr->wr_id;
	uint64_t w0;

	if (!build_fast((uint8_t *)ctrl, wr, key, qp->fast_key,
			(uint64_t)MLX5_OPCODE_RDMA_WRITE << 32, &w0)) {
		if ((key & WR_KEY_MASK) == WR_KEY_WRITE_INL ||
		    (key & WR_KEY_MASK) == (WR_KEY_WRITE_INL ^ WR_KEY_WRITE_TO_SEND))
			return post_single_inl(qp, wr, key);
		return post_general(qp, wr, 1, 0, NULL);
	}
	return post_single_finish(qp, ctrl, cur_post, key, wr_id, (w0 | qp->qpn8) ^ qp->w0_wr8);
}

/*
 * A burst of one WR (latency tests; usually the BlueFlame copy). The
 * 8-byte inline WRITE and SEND (build_fast's shapes; RC: fast_key is the
 * WRITE) here, their ctrl word 0 the QP's (w0_wr8, the SEND's with its
 * opcode and DS changed), the WR read before the WQE stores, which may
 * alias it; an inline WRITE or SEND of another length through
 * post_single_inl (9..16 bytes: post_single_other), any other WR
 * post_single_other. bench/callgrind.sh counts this path (rows bf, bfsend).
 */
static __rte_always_inline uint16_t
post_single(struct rdx_mlx5_qp *qp, const struct rdx_wr *wr)
{
	const uint32_t cur_post = qp->sq_cur_post;
	struct mlx5_wqe_ctrl_seg *const ctrl = sq_ctrl(qp->sq_buf, cur_post, qp->sq_mask);
	const struct rdx_sge *sge;
	const uint8_t *src;
	uint64_t wr_id;
	uint32_t key;

	if (unlikely(qp->sq_head - qp->sq_tail >= qp->sq_max_post)) {
		qp->stats.sq_full++;
		return 0;
	}
	memcpy(&key, &wr->opcode, sizeof(key));
	sge = wr->sge;
	if (likely((key & WR_KEY_MASK) == qp->fast_key)) {
		if (unlikely(sge->length != 8))
			goto inline_other;
		src = (const uint8_t *)(uintptr_t)sge->addr;
		wr_id = wr->wr_id;
		set_raddr_seg4((uint8_t *)ctrl + MLX5_DS_SIZE, wr->remote_addr, wr->rkey);
		set_inline_8((uint8_t *)ctrl + 2 * MLX5_DS_SIZE, src);
		return post_single_finish(qp, ctrl, cur_post, key, wr_id, 0);
	}
	/* off the WRITE's path: what it compared is read again here rather
	 * than held in a register through it */
	rte_compiler_barrier();
	if ((key & WR_KEY_MASK) == (qp->fast_key ^ WR_KEY_WRITE_TO_SEND)) {
		/* build_fast's 8-byte SEND: ctrl + inline, DS 2 */
		if (unlikely(sge->length != 8))
			goto inline_other;
		src = (const uint8_t *)(uintptr_t)sge->addr;
		wr_id = wr->wr_id;
		set_inline_8((uint8_t *)ctrl + MLX5_DS_SIZE, src);
		return post_single_finish(qp, ctrl, cur_post, key, wr_id,
					  W0_WRITE_TO_SEND | (3 ^ 2));
	}
	return post_single_other(qp, wr, key);
inline_other:
	/* an inline WRITE or SEND of 9..16 bytes: build_fast's; of any other
	 * length post_single_inl's (an RPC's request or answer). The length
	 * read again (see above). */
	rte_compiler_barrier();
	if (wr->sge->length - 9 <= 7)
		return post_single_other(qp, wr, key);
	return post_single_inl(qp, wr, key);
}

/*
 * The fast path: runs of one WR shape each (post_run: 8-byte inline WRITE
 * or SEND, one-SGE WRITE, SEND, READ, CAS, FAA), each up to and including
 * the next WQE that must be signaled (by the interval or by its SIGNALED
 * flag), which gets its CQ_UPDATE bit after the run: nothing is rung yet,
 * so the device cannot have read it. No calls inside (the first WR no run
 * takes hands the rest of the burst to post_general, which rings once for
 * all), so the state stays in registers.
 */
static __rte_noinline uint16_t
post_burst(struct rdx_mlx5_qp *qp, const struct rdx_wr *wr, uint16_t n)
{
	/*
	 * The loop works on locals: the WQE stores may alias the QP (char and
	 * uint32 stores) and would force reloads otherwise.
	 */
	uint8_t *const sq_buf = qp->sq_buf;
	uint64_t *const wrid = qp->sq_wrid;
	const uint32_t mask = qp->sq_mask;
	/* Runs end where the ring or the index's low byte wraps. */
	const uint32_t run_mask = RTE_MIN(mask, 0xffu);
	const uint32_t fast_key = qp->fast_key;
	const uint64_t qpn8 = qp->qpn8;
	/* The one-SGE shapes need a QP that takes one SGE. */
	const bool sge_ok = qp->max_send_sge != 0;
	const uint32_t tail = qp->sq_tail;
	const uint32_t head0 = qp->sq_head;
	const uint32_t room = qp->sq_max_post - (head0 - tail);
	const uint32_t unsignaled = qp->sq_unsignaled;
	uint32_t left = RTE_MIN((uint32_t)n, room);
	uint32_t cur_post = qp->sq_cur_post;
	uint32_t head = head0;
	/* As in post_general: the next ordinal that must be signaled
	 * (forced >= head while WRs remain). */
	uint32_t sig_base = head - unsignaled;
	uint32_t forced = head + RTE_MIN(qp->sig_interval - 1 - unsignaled, room - 1);
	uint16_t nreq;

	while (left != 0) {
		uint8_t *const ctrl = sq_buf + ((size_t)(cur_post & mask) << MLX5_WQEBB_SHIFT);
		uint64_t *const wid = wrid + (head & mask);
		uint32_t key, shape, want, span, k;

		memcpy(&key, &wr->opcode, sizeof(key));
		shape = key & WR_KEY_RUN_MASK;
		want = key & WR_KEY_EXACT_MASK;
		span = RTE_MIN(forced - head + 1, left);
		if (key & WR_KEY_SIGNALED)
			span = 1;
		span = RTE_MIN(span, run_mask + 1 - (cur_post & run_mask));
		span = RTE_MIN(span, mask + 1 - (head & mask));
		if (likely(shape == fast_key))
			k = post_run_shape(ctrl, wid, qpn8, cur_post, wr, span, want,
					   RUN_WRITE_INL8);
		else if (shape == (fast_key ^ WR_KEY_WRITE_TO_SEND))
			k = post_run_shape(ctrl, wid, qpn8, cur_post, wr, span, want,
					   RUN_SEND_INL8);
		else if (!sge_ok)
			break;
		else if (shape == WR_KEY(RDX_OP_READ, 0, 1))
			k = post_run_shape(ctrl, wid, qpn8, cur_post, wr, span, want, RUN_READ);
		else if (shape == WR_KEY(RDX_OP_WRITE, 0, 1))
			k = post_run_shape(ctrl, wid, qpn8, cur_post, wr, span, want,
					   RUN_WRITE_SGE);
		else if (shape == WR_KEY(RDX_OP_SEND, 0, 1))
			k = post_run_shape(ctrl, wid, qpn8, cur_post, wr, span, want,
					   RUN_SEND_SGE);
		else if (shape == WR_KEY(RDX_OP_CAS, 0, 1))
			k = post_run_shape(ctrl, wid, qpn8, cur_post, wr, span, want, RUN_CAS);
		else if (shape == WR_KEY(RDX_OP_FAA, 0, 1))
			k = post_run_shape(ctrl, wid, qpn8, cur_post, wr, span, want, RUN_FAA);
		else
			break;
		if (unlikely(k == 0))
			break;
		cur_post += k;
		head += k;
		left -= k;
		wr += k;
		/* The run's last WQE is the one to signal, if any. */
		run_signal(qp, sq_buf, mask, cur_post, 1, head, tail, (key & WR_KEY_SIGNALED) != 0,
			   &sig_base, &forced);
	}
	nreq = (uint16_t)(head - head0);
	if (unlikely(left != 0)) {
		/* A WR the runs do not take: the general loop posts it and the
		 * rest, and rings once for the whole burst. */
		qp->sq_cur_post = cur_post;
		qp->sq_head = head;
		qp->sq_unsignaled = head - sig_base;
		return post_general(qp, wr, (uint16_t)(n - nreq), nreq, nreq == 0 ? NULL :
				    sq_ctrl(sq_buf, cur_post - 1, mask));
	}
	if (unlikely(nreq < n))
		qp->stats.sq_full++;
	if (unlikely(nreq == 0))
		return 0;
	/* Run WQEs are one WQEBB each: the last one is at cur_post - 1. A
	 * burst of one (a full SQ cut it) takes BlueFlame by post_send_db's
	 * rule: DS > 1 (always here) and inline or prefer_bf. */
	return post_finish(qp, sq_ctrl(sq_buf, cur_post - 1, mask), cur_post, head, sig_base,
			   nreq, false, wr_inline(wr - 1));
}

/*
 * A burst of one takes its own short path (post_single, inlined here, so
 * the latency case sets up nothing of the run loop); longer bursts the
 * run loop (post_burst, a tail call).
 */
uint16_t
rdx_mlx5_post_burst(struct rdx_qp *bqp, const struct rdx_wr *wr, uint16_t n)
{
	struct rdx_mlx5_qp *qp = (struct rdx_mlx5_qp *)bqp;

	if (n == 1)
		return post_single(qp, wr);
	return post_burst(qp, wr, n);
}
