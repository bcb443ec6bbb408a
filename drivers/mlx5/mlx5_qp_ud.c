/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mlx5 UD send posting: UD WQEs (ctrl + datagram segment + inline or data
 * segments, doc/ud.md) built straight into the send queue, runs of
 * 8-byte inline SENDs, one ring per burst. Shares the ring, the BlueFlame
 * copy and the burst end with RC posting (mlx5_sq.h, mlx5_qp.c).
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
/* UD send                                                                 */

/*
 * One UD WQE (doc/ud.md): ctrl + datagram segment (the
 * AH's 48-byte address vector with the destination QPN and Q_Key, as
 * rdma-core's set_datagram_seg) + inline or data segments. Returns the DS
 * count, UD_LENERR for a message above the path MTU (the caller posts a
 * NOP in its place and reports IBV_WC_LOC_LEN_ERR), or 0 for an invalid WR
 * (nothing posted).
 */
#define UD_LENERR UINT32_MAX
static __rte_always_inline uint32_t
build_ud(const struct rdx_mlx5_qp *qp, uint8_t *ctrl, const struct rdx_wr *wr,
	 uint32_t *imm)
{
	struct mlx5_wqe_datagram_seg *dg =
		(struct mlx5_wqe_datagram_seg *)(void *)(ctrl + MLX5_DS_SIZE);
	const struct rdx_mlx5_ah *ah;
	uint32_t total = 0, j, nds;
	uint8_t *seg;

	*imm = 0;
	switch (wr->opcode) {
	case RDX_OP_NOP:
		return 1;
	case RDX_OP_SEND_IMM:
		*imm = wr->imm;
		/* fall through */
	case RDX_OP_SEND:
		break;
	default:
		/* no RDMA or atomics on UD (IBTA 9.8.1: SEND only) */
		return 0;
	}
	if (unlikely(wr->num_sge > qp->max_send_sge || wr->ah == NULL))
		return 0;
	for (j = 0; j < wr->num_sge; j++)
		total += wr->sge[j].length;
	if (unlikely(total > qp->ud_max_msg))
		return UD_LENERR;
	ah = (const struct rdx_mlx5_ah *)(const void *)wr->ah;
	/* The AV as the AH holds it (mlx5dv_init_obj(MLX5DV_OBJ_AH)), then the
	 * destination: dqp_dct with MLX5_EXTENDED_UD_AV, the Q_Key. */
	memcpy(&dg->av, &ah->av, sizeof(dg->av));
	dg->av.dqp_dct = htobe32((wr->remote_qpn & 0xffffff) | MLX5_EXTENDED_UD_AV);
	dg->av.key.qkey.qkey = htobe32(wr->remote_qkey);
	/* ctrl + datagram = 64 bytes: the payload starts in the next WQEBB. */
	seg = sq_wrap(qp, ctrl + MLX5_DS_SIZE + sizeof(*dg));
	if (!(wr->flags & RDX_WR_INLINE) || wr->num_sge == 0)
		return 4 + set_data_segs(qp, seg, wr);
	nds = set_inline_seg_slow(qp, seg, wr);
	return nds == UINT32_MAX ? 0 : 4 + nds;
}

/*
 * The UD post loop (every UD WR; post_general's signaling and ring rules).
 * A message above the path MTU is not sent: a signaled NOP takes its place
 * and its completion reports IBV_WC_LOC_LEN_ERR (cqe_req_good).
 */
static __rte_noinline uint16_t
post_ud(struct rdx_mlx5_qp *qp, const struct rdx_wr *wr, uint16_t n, uint16_t done,
	struct mlx5_wqe_ctrl_seg *last)
{
	uint8_t *const sq_buf = qp->sq_buf;
	uint64_t *const wrid = qp->sq_wrid;
	uint8_t *const lenerr = qp->sq_lenerr;
	struct rdx_mlx5_sq_sig *const sig = qp->sq_sig;
	const uint32_t mask = qp->sq_mask;
	const uint32_t sig_interval = qp->sig_interval;
	const uint64_t qpn8 = qp->qpn8;
	const uint32_t tail = qp->sq_tail;
	const uint32_t last_slot = tail + qp->sq_max_post - 1;
	const uint32_t head0 = qp->sq_head;
	uint32_t head = head0;
	const uint32_t room = qp->sq_max_post - (head - tail);
	const struct rdx_wr *const end = wr + RTE_MIN((uint32_t)n, room);
	uint32_t cur_post = qp->sq_cur_post;
	uint32_t sig_base = head - qp->sq_unsignaled;
	uint32_t forced = head + RTE_MIN(sig_interval - 1 - qp->sq_unsignaled,
					 last_slot - head);
	uint16_t nreq, posted;

	while (wr != end) {
		const uint32_t idx = cur_post & mask;
		uint8_t *const ctrl = sq_buf + ((size_t)idx << MLX5_WQEBB_SHIFT);
		uint32_t key, imm, ds, nbb;
		uint8_t op;
		uint64_t w0, w1;
		bool bad_len = false;

		memcpy(&key, &wr->opcode, sizeof(key));
		ds = build_ud(qp, ctrl, wr, &imm);
		if (unlikely(ds == 0))
			break;
		op = rdx_mlx5_wqe_opcode[wr->opcode];
		if (unlikely(ds == UD_LENERR)) {
			bad_len = true;
			ds = 1;
			op = MLX5_OPCODE_NOP;
			imm = 0;
		}
		nbb = (ds + 3) >> 2;
		w0 = (uint64_t)op << 32 | qpn8 | ds;
		w1 = W1_IMM(imm) | rdx_mlx5_w1_fm[WR_KEY_FLAGS(key) & 0xf];
		lenerr[head & mask] = bad_len;
		if (unlikely((key & WR_KEY_SIGNALED) || head == forced || bad_len)) {
			w1 |= W1_CQ_UPDATE;
			sig_base = head + 1;
			forced = head + RTE_MIN(sig_interval, last_slot - head);
			/* The stand-in NOP's entry names no outstanding WQE (the
			 * ordinal half the 32-bit space away, outstanding WQEs
			 * being fewer than 2^15): its CQE leaves cqe_req_good's
			 * fast path for cqe_other, which reports LOC_LEN_ERR. */
			sig[idx].ord = bad_len ? head + 0x80000000u : head;
			sig[idx].next_bb = (uint16_t)(cur_post + nbb);
		}
		set_ctrl(ctrl, w0, cur_post, w1);
		cur_post += nbb;
		wrid[head & mask] = wr->wr_id;
		head++;
		last = (struct mlx5_wqe_ctrl_seg *)(void *)ctrl;
		wr++;
	}
	posted = (uint16_t)(head - head0);
	if (unlikely(posted < n)) {
		if (wr < end)
			qp->stats.bad_wr++;
		else
			qp->stats.sq_full++;
	}
	nreq = (uint16_t)(posted + done);
	if (unlikely(nreq == 0))
		return 0;
	/* BlueFlame for one WR: its inline flag (the run's WRs are inline) */
	return post_finish(qp, last, cur_post, head, sig_base, nreq, false,
			   done != 0 || posted != 1 ||
			   ((wr[-1].flags & RDX_WR_INLINE) && wr[-1].num_sge != 0));
}

/*
 * The datagram segment of a UD WQE, as three 16-byte vectors: the AH's AV
 * with the first 16 bytes rebuilt around the Q_Key and the destination
 * QPN (set_datagram_seg). The template (rdx_mlx5_ah_init) has Q_Key 0 at
 * bytes 0..3 and dqp_dct = the extended-AV flag at bytes 8..11: OR in the
 * Q_Key and the QPN's low 24 bits, big-endian. qq is the WR's remote_qpn
 * and remote_qkey read as one word.
 */
struct ud_dgram {
	rdx_v2u64 v0, v1, v2;
};

static __rte_always_inline void
ud_dgram_build(struct ud_dgram *d, const struct rdx_mlx5_ah *ah, uint64_t qq)
{
	memcpy(&d->v0, &ah->av, 16);
	memcpy(&d->v1, (const uint8_t *)&ah->av + 16, 16);
	memcpy(&d->v2, (const uint8_t *)&ah->av + 32, 16);
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	/* one swap: [BE(Q_Key), BE(QPN)] */
	qq = rte_bswap64(qq);
	d->v0 |= (rdx_v2u64){ (uint32_t)qq, (qq >> 32) & 0xffffff00u };
#else
	d->v0 |= (rdx_v2u64){ qq << 32, (qq >> 32 & 0xffffff) << 32 };
#endif
}

/*
 * The WQE of an 8-byte inline UD SEND whose key was checked already, at
 * ctrl (two WQEBBs: ctrl + datagram segment, then the inline segment), its
 * datagram segment d. False, nothing written, for an SGE length other
 * than 8.
 */
static __rte_always_inline bool
ud_wqe_write(uint8_t *ctrl, const struct rdx_wr *wr, const rdx_v2u64 ctrl16,
	     const struct ud_dgram *d)
{
	const uint32_t hdr = RTE_BE32(8u | MLX5_INLINE_SEG);
	const struct rdx_sge *const sge = wr->sge;
	uint64_t payload;

	if (unlikely(sge->length != 8))
		return false;
	memcpy(&payload, (const uint8_t *)(uintptr_t)sge->addr, sizeof(payload));
	memcpy(ctrl + MLX5_DS_SIZE, &d->v0, 16);
	memcpy(ctrl + 2 * MLX5_DS_SIZE, &d->v1, 16);
	memcpy(ctrl + 3 * MLX5_DS_SIZE, &d->v2, 16);
	memcpy(ctrl + 64, &hdr, sizeof(hdr));
	memcpy(ctrl + 64 + 4, &payload, sizeof(payload));
	memcpy(ctrl, &ctrl16, sizeof(ctrl16));
	return true;
}

/*
 * One 8-byte inline UD SEND of the exact shape key want at ctrl, its
 * datagram segment d. False, nothing written, for a WR of another shape.
 */
static __rte_always_inline bool
run_wqe_ud(uint8_t *ctrl, const struct rdx_wr *wr, const rdx_v2u64 ctrl16, const uint32_t want,
	   const struct ud_dgram *d)
{
	uint32_t key;

	memcpy(&key, &wr->opcode, sizeof(key));
	if (unlikely((key & WR_KEY_EXACT_MASK) != want))
		return false;
	return ud_wqe_write(ctrl, wr, ctrl16, d);
}

/* The WR's destination (AH, remote_qpn, remote_qkey: 16 adjacent bytes)
 * is the run's dest? */
_Static_assert(offsetof(struct rdx_wr, remote_qpn) == offsetof(struct rdx_wr, ah) + 8,
	       "rdx_wr ah/remote_qpn layout");
static __rte_always_inline bool
ud_same_dest(const struct rdx_wr *wr, const rdx_v2u64 dest)
{
#if defined(RTE_ARCH_X86_64) && defined(__SSE4_1__)
	const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)&wr->ah);
	const __m128i x = _mm_xor_si128(v, (__m128i)dest);

	return _mm_testz_si128(x, x) != 0;
#else
	rdx_v2u64 v;

	memcpy(&v, &wr->ah, sizeof(v));
	v ^= dest;
	return (v[0] | v[1]) == 0;
#endif
}

/*
 * The four WRs at wr all of the exact shape key want (the SGE length
 * aside) and all naming the run's destination dest? One test each for the
 * four keys and the four destinations (XORs ORed together), instead of
 * one per WR: a WR that differs makes the whole group fail, and the
 * caller then takes the group one WR at a time.
 */
static __rte_always_inline bool
ud_group4_same(const struct rdx_wr *wr, const rdx_v2u64 dest, const uint32_t want)
{
	uint32_t k0, k1, k2, k3;
	rdx_v2u64 v0, v1, v2, v3;

	memcpy(&k0, &wr[0].opcode, sizeof(k0));
	memcpy(&k1, &wr[1].opcode, sizeof(k1));
	memcpy(&k2, &wr[2].opcode, sizeof(k2));
	memcpy(&k3, &wr[3].opcode, sizeof(k3));
	if (unlikely((((k0 ^ want) | (k1 ^ want) | (k2 ^ want) | (k3 ^ want)) &
		      WR_KEY_EXACT_MASK) != 0))
		return false;
	memcpy(&v0, &wr[0].ah, sizeof(v0));
	memcpy(&v1, &wr[1].ah, sizeof(v1));
	memcpy(&v2, &wr[2].ah, sizeof(v2));
	memcpy(&v3, &wr[3].ah, sizeof(v3));
	v0 = (v0 ^ dest) | (v1 ^ dest) | (v2 ^ dest) | (v3 ^ dest);
#if defined(RTE_ARCH_X86_64) && defined(__SSE4_1__)
	return _mm_testz_si128((__m128i)v0, (__m128i)v0) != 0;
#else
	return (v0[0] | v0[1]) == 0;
#endif
}

/*
 * A run of 8-byte inline UD SENDs of the exact shape key want (post_run's
 * rules: unsignaled, bounded by the caller so that it wraps neither the
 * ring nor the wr_id array and does not carry the WQE index's low byte).
 * Each WQE is two WQEBBs: ctrl + datagram segment, then the inline
 * segment. The first WR's datagram segment is built once and kept in
 * registers: while the WRs name the same (AH, QPN, Q_Key), each WQE copies
 * it with three vector stores, four WQEs per turn of the loop (span % 4
 * first, one WR at a time); each turn tests the four keys and the four
 * destinations once (ud_group4_same), each WQE then only its SGE length.
 * From the first group with a WR of another destination or shape on, each
 * WQE builds its own segment and tests its own key (a group that fails
 * is redone one WR at a time, so the WQEs are the same). Stops early at
 * another shape or a WR without an AH.
 */
static __rte_always_inline uint32_t
post_run_ud(uint8_t *ctrl, uint64_t *wid, uint64_t w0be, const struct rdx_wr *wr,
	    const uint32_t span, const uint32_t want)
{
	uint64_t *const wid_end = wid + span;
	rdx_v2u64 ctrl16 = { w0be, 0 };
	const rdx_v2u64 step = { 2 * W0BE_IDX_ONE, 0 };
	const struct rdx_mlx5_ah *const ah0 = (const struct rdx_mlx5_ah *)(const void *)wr->ah;
	const struct rdx_wr *const wr0 = wr;
	uint8_t *const ctrl0 = ctrl;
	struct ud_dgram d;
	rdx_v2u64 dest;
	uint64_t qq;
	intptr_t i = -(intptr_t)span;

	if (unlikely(ah0 == NULL))
		return 0;
	memcpy(&dest, &wr->ah, sizeof(dest));
	memcpy(&qq, &wr->remote_qpn, sizeof(qq));   /* QPN, Q_Key */
	ud_dgram_build(&d, ah0, qq);
	/* span % 4 WQEs first, then four per turn; a WR of another shape or
	 * destination leaves with i at it (ctrl, wr and ctrl16 follow from i) */
	for (; (i & 3) != 0; i++) {
		if (unlikely(!ud_same_dest(wr, dest) ||
			     !run_wqe_ud(ctrl, wr, ctrl16, want, &d)))
			goto each;
		wid_end[i] = wr->wr_id;
		ctrl16 += step;
		V_STEP_IN_PLACE(ctrl16);
		ctrl += 2u << MLX5_WQEBB_SHIFT;
		wr++;
	}
#define UD_RUN_ONE(j) do {                                                          \
		if (unlikely(!ud_wqe_write(ctrl + ((j) << (MLX5_WQEBB_SHIFT + 1)), wr + (j), \
					   ctrl16, &d))) {                           \
			i += (j);                                                    \
			goto each;                                                   \
		}                                                                    \
		wid_end[i + (j)] = wr[j].wr_id;                                      \
		ctrl16 += step;                                                      \
		V_STEP_IN_PLACE(ctrl16);                                             \
	} while (0)
	for (; i != 0; i += 4) {
		if (unlikely(!ud_group4_same(wr, dest, want)))
			goto each;
		UD_RUN_ONE(0);
		UD_RUN_ONE(1);
		UD_RUN_ONE(2);
		UD_RUN_ONE(3);
		ctrl += 8u << MLX5_WQEBB_SHIFT;
		wr += 4;
	}
#undef UD_RUN_ONE
	return span;
each:
	{
		const uint32_t done = (uint32_t)((intptr_t)span + i);

		ctrl = ctrl0 + ((size_t)done << (MLX5_WQEBB_SHIFT + 1));
		wr = wr0 + done;
		ctrl16 = (rdx_v2u64){ w0be, 0 } + (rdx_v2u64){ 2 * W0BE_IDX_ONE * done, 0 };
	}
	/* Mixed destinations: each WQE builds its segment from its AH. */
	for (; i != 0; i++) {
		const struct rdx_mlx5_ah *ah = (const struct rdx_mlx5_ah *)(const void *)wr->ah;

		if (unlikely(ah == NULL))
			break;
		memcpy(&qq, &wr->remote_qpn, sizeof(qq));
		ud_dgram_build(&d, ah, qq);
		if (unlikely(!run_wqe_ud(ctrl, wr, ctrl16, want, &d)))
			break;
		wid_end[i] = wr->wr_id;
		ctrl16 += step;
		V_STEP_IN_PLACE(ctrl16);
		ctrl += 2u << MLX5_WQEBB_SHIFT;
		wr++;
	}
	return (uint32_t)((intptr_t)span + i);
}

/*
 * UD bursts: runs of 8-byte inline SENDs (post_run_ud), each up to and
 * including the next WQE that must be signaled, as rdx_mlx5_post_burst
 * does for RC; any other WR hands the rest of the burst to post_ud, which
 * rings once for all. A burst of one goes to post_ud (BlueFlame copy).
 */
static __rte_noinline uint16_t
post_burst_ud(struct rdx_mlx5_qp *qp, const struct rdx_wr *wr, uint16_t n)
{
	uint8_t *const sq_buf = qp->sq_buf;
	uint64_t *const wrid = qp->sq_wrid;
	const uint32_t mask = qp->sq_mask;
	const uint32_t run_mask = RTE_MIN(mask, 0xffu);
	/* WR_KEY(SEND, INLINE, 1) when the QP takes 8 bytes inline (mlx5_obj.c) */
	const uint32_t want = qp->fast_key;
	/* ctrl word 0 of an 8-byte inline UD SEND: DS 1 + 3 + 1 */
	const uint64_t w0_send = (uint64_t)MLX5_OPCODE_SEND << 32 |
		qp->qpn8 | 5;
	const uint32_t tail = qp->sq_tail;
	const uint32_t head0 = qp->sq_head;
	const uint32_t room = qp->sq_max_post - (head0 - tail);
	const uint32_t unsignaled = qp->sq_unsignaled;
	uint32_t left = RTE_MIN((uint32_t)n, room);
	uint32_t cur_post = qp->sq_cur_post;
	uint32_t head = head0;
	uint32_t sig_base = head - unsignaled;
	uint32_t forced = head + RTE_MIN(qp->sig_interval - 1 - unsignaled, room - 1);
	uint16_t nreq;

	while (left != 0) {
		uint8_t *const ctrl = sq_buf + ((size_t)(cur_post & mask) << MLX5_WQEBB_SHIFT);
		const uint64_t idx_w0 = w0_send | (uint64_t)(uint16_t)cur_post << 40;
		uint32_t key, span, k;

		memcpy(&key, &wr->opcode, sizeof(key));
		if (unlikely((key & WR_KEY_RUN_MASK) != want))
			break;
		span = RTE_MIN(forced - head + 1, left);
		if (key & WR_KEY_SIGNALED)
			span = 1;
		/* two WQEBBs each, before the ring end or the index byte carry */
		span = RTE_MIN(span, (run_mask + 1 - (cur_post & run_mask)) >> 1);
		span = RTE_MIN(span, mask + 1 - (head & mask));
		if (unlikely(span == 0))
			break;
		k = post_run_ud(ctrl, wrid + (head & mask), rte_cpu_to_be_64(idx_w0), wr, span,
				key & WR_KEY_EXACT_MASK);
		if (unlikely(k == 0))
			break;
		cur_post += 2 * k;
		head += k;
		left -= k;
		wr += k;
		run_signal(qp, sq_buf, mask, cur_post, 2, head, tail, (key & WR_KEY_SIGNALED) != 0,
			   &sig_base, &forced);
	}
	nreq = (uint16_t)(head - head0);
	if (unlikely(left != 0)) {
		qp->sq_cur_post = cur_post;
		qp->sq_head = head;
		qp->sq_unsignaled = head - sig_base;
		return post_ud(qp, wr, (uint16_t)(n - nreq), nreq, nreq == 0 ? NULL :
			       sq_ctrl(sq_buf, cur_post - 2, mask));
	}
	if (unlikely(nreq < n))
		qp->stats.sq_full++;
	if (unlikely(nreq == 0))
		return 0;
	return post_finish(qp, sq_ctrl(sq_buf, cur_post - 2, mask), cur_post, head, sig_base,
			   nreq, false, true);
}

/* A burst of one goes to post_ud (BlueFlame copy) before the run loop
 * (post_burst_ud, a tail call) sets anything up. */
uint16_t
rdx_mlx5_post_burst_ud(struct rdx_qp *bqp, const struct rdx_wr *wr, uint16_t n)
{
	struct rdx_mlx5_qp *qp = (struct rdx_mlx5_qp *)bqp;

	if (n == 1)
		return post_ud(qp, wr, 1, 0, NULL);
	return post_burst_ud(qp, wr, n);
}
