/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Vector run loops of the send queue (included by mlx5_qp.c only): runs of
 * WRs of one exact shape, written as whole 16-byte segments straight from
 * the WR, in front of the scalar post loop (post_send in mlx5_qp.c), which
 * defines what every WR becomes and takes every WR the runs do not. The
 * bytes a run writes are the bytes post_send writes for the same WRs
 * (tests/unit/mlx5/mlx5_qp_ref_ut.c drives both with the same bursts).
 *
 * The shapes (every flag but SIGNALED zero, one SGE):
 *   RC  8-byte inline WRITE and SEND; WRITE, SEND, READ, CAS, FAA from one
 *       non-empty SGE (atomics: of 8 bytes): one WQEBB per WQE. Inline
 *       WRITE and SEND of any other length up to max_inline (as many
 *       WQEBBs as they take; a WQE that would wrap at the SQ end is
 *       post_send's): runs of one length as one WQE shape
 *       (vec_run_inl_len), mixed lengths one WR at a time (vec_run_inl).
 *   UD  8-byte inline SEND. Two WQEBBs per WQE (ctrl + datagram segment,
 *       then the inline segment).
 * A run goes up to and including the next WQE that must be signaled (the
 * interval, the last free slot, or its SIGNALED flag), which gets its
 * CQ_UPDATE bit after the run: nothing is rung yet, so the device cannot
 * have read it. A run wraps neither the ring nor the wr_id array; a run
 * of one WQE size does not carry the WQE index's low byte either: ctrl
 * bytes 0..7 then step by a constant in their stored (big-endian) form.
 *
 * On x86-64 the segments are one load, one byte shuffle (SSSE3) and one
 * 16-byte store each; elsewhere the scalar set_*_seg helpers write them.
 */
#ifndef MLX5_QP_VEC_H
#define MLX5_QP_VEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_vect.h>

#include "rdx_mlx5.h"
#include "mlx5_wqe.h"

/* A run takes one WR shape: every flag bit is compared. */
#define WR_KEY_EXACT_MASK WR_KEY(0xff, 0xff, 0xff)
/* The shapes that start a run: the same, SIGNALED aside. */
#define WR_KEY_RUN_MASK WR_KEY(0xff, 0xff & ~RDX_WR_SIGNALED, 0xff)
#define WR_KEY_SIGNALED WR_KEY(0, RDX_WR_SIGNALED, 0)
/* XOR turning the inline WRITE key into the inline SEND one. */
#define WR_KEY_WRITE_TO_SEND (WR_KEY(RDX_OP_WRITE, 0, 0) ^ WR_KEY(RDX_OP_SEND, 0, 0))

/*
 * ctrl bytes 0..7 as stored (big-endian), read as one native word: the
 * WQE index's low byte (byte 2) sits this far up, so while that byte does
 * not carry, the next WQE's word is this word plus VEC_IDX_ONE.
 */
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
#define VEC_IDX_ONE ((uint64_t)1 << 16)
#else
#define VEC_IDX_ONE ((uint64_t)1 << 40)
#endif
/* ctrl bytes 0..15: two 64-bit lanes (GCC vector extension). */
typedef uint64_t vec_u64x2 __attribute__((vector_size(16)));

_Static_assert(offsetof(struct rdx_sge, length) == 8 && offsetof(struct rdx_sge, lkey) == 12 &&
	       sizeof(struct rdx_sge) == 16, "rdx_sge layout");
_Static_assert(offsetof(struct rdx_wr, swap) == offsetof(struct rdx_wr, compare_add) + 8,
	       "rdx_wr compare_add/swap layout");
_Static_assert(offsetof(struct rdx_wr, remote_qpn) == offsetof(struct rdx_wr, ah) + 8 &&
	       offsetof(struct rdx_wr, remote_qkey) == offsetof(struct rdx_wr, remote_qpn) + 4,
	       "rdx_wr ah/remote_qpn/remote_qkey layout");

#if defined(RTE_ARCH_X86_64) && defined(__SSE4_1__) && defined(__SSSE3__)
/* raddr segment: be64 remote_addr, be32 rkey, reserved 0. */
static __rte_always_inline void
vec_raddr_seg(uint8_t *seg, const struct rdx_wr *wr)
{
	const __m128i shuf = _mm_setr_epi8(7, 6, 5, 4, 3, 2, 1, 0, 11, 10, 9, 8,
					   -1, -1, -1, -1);
	__m128i v = _mm_loadl_epi64((const __m128i *)(const void *)&wr->remote_addr);

	v = _mm_insert_epi32(v, (int)wr->rkey, 2);
	_mm_storeu_si128((__m128i *)(void *)seg, _mm_shuffle_epi8(v, shuf));
}

/* Data segment: be32 length, be32 lkey, be64 addr: the rdx_sge's 16
 * bytes, permuted and swapped. */
static __rte_always_inline void
vec_data_seg(uint8_t *seg, const struct rdx_sge *sge)
{
	const __m128i shuf = _mm_setr_epi8(11, 10, 9, 8, 15, 14, 13, 12, 7, 6, 5, 4, 3, 2, 1, 0);
	const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)sge);

	_mm_storeu_si128((__m128i *)(void *)seg, _mm_shuffle_epi8(v, shuf));
}

/* Atomic segment: CAS be64 swap, be64 compare (compare_add and swap
 * reversed as 16 bytes); FAA be64 add, 0. */
static __rte_always_inline void
vec_atomic_seg(uint8_t *seg, const struct rdx_wr *wr, const bool cas)
{
	__m128i v;

	if (cas) {
		const __m128i rev = _mm_setr_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4,
						  3, 2, 1, 0);

		v = _mm_loadu_si128((const __m128i *)(const void *)&wr->compare_add);
		v = _mm_shuffle_epi8(v, rev);
	} else {
		const __m128i sw = _mm_setr_epi8(7, 6, 5, 4, 3, 2, 1, 0, -1, -1, -1, -1,
						 -1, -1, -1, -1);

		v = _mm_loadl_epi64((const __m128i *)(const void *)&wr->compare_add);
		v = _mm_shuffle_epi8(v, sw);
	}
	_mm_storeu_si128((__m128i *)(void *)seg, v);
}
#else
static __rte_always_inline void
vec_raddr_seg(uint8_t *seg, const struct rdx_wr *wr)
{
	set_raddr_seg(seg, wr->remote_addr, wr->rkey);
}

static __rte_always_inline void
vec_data_seg(uint8_t *seg, const struct rdx_sge *sge)
{
	set_data_ptr_seg(seg, sge);
}

static __rte_always_inline void
vec_atomic_seg(uint8_t *seg, const struct rdx_wr *wr, const bool cas)
{
	set_atomic_seg(seg, cas, wr->swap, wr->compare_add);
}
#endif

/* The 8-byte inline segment: the constant header, then the payload. */
static __rte_always_inline void
vec_inline8_seg(uint8_t *seg, const struct rdx_sge *sge)
{
	const uint32_t hdr = RTE_BE32(8u | MLX5_INLINE_SEG);
	uint64_t payload;

	memcpy(&payload, (const uint8_t *)(uintptr_t)sge->addr, sizeof(payload));
	memcpy(seg, &hdr, sizeof(hdr));
	memcpy(seg + 4, &payload, sizeof(payload));
}

enum vec_shape {
	VEC_WRITE_INL8,         /* ctrl + raddr + inline 8: DS 3 */
	VEC_SEND_INL8,          /* ctrl + inline 8: DS 2 */
	VEC_WRITE_SGE,          /* ctrl + raddr + data: DS 3 */
	VEC_SEND_SGE,           /* ctrl + data: DS 2 */
	VEC_READ,               /* ctrl + raddr + data: DS 3 */
	VEC_CAS,                /* ctrl + raddr + atomic + data (8 bytes): DS 4 */
	VEC_FAA,                /* the same */
	VEC_UD_SEND_INL8,       /* ctrl + datagram, inline 8: DS 5, two WQEBBs */
};

static __rte_always_inline uint32_t
vec_ds(const enum vec_shape shape)
{
	switch (shape) {
	case VEC_SEND_INL8:
	case VEC_SEND_SGE:
		return 2;
	case VEC_CAS:
	case VEC_FAA:
		return 4;
	case VEC_UD_SEND_INL8:
		return 5;
	default:
		return 3;
	}
}

static __rte_always_inline uint8_t
vec_opcode(const enum vec_shape shape)
{
	switch (shape) {
	case VEC_SEND_INL8:
	case VEC_SEND_SGE:
	case VEC_UD_SEND_INL8:
		return MLX5_OPCODE_SEND;
	case VEC_READ:
		return MLX5_OPCODE_RDMA_READ;
	case VEC_CAS:
		return MLX5_OPCODE_ATOMIC_CS;
	case VEC_FAA:
		return MLX5_OPCODE_ATOMIC_FA;
	default:
		return MLX5_OPCODE_RDMA_WRITE;
	}
}

/*
 * The UD datagram segment as three 16-byte values: the AH's AV with the
 * Q_Key and the destination QPN ORed in (the template has Q_Key 0 at
 * bytes 0..3 and dqp_dct = the extended-AV flag at bytes 8..11: what
 * set_datagram_seg writes). qq is remote_qpn and remote_qkey read as one
 * word.
 */
struct vec_dgram {
	vec_u64x2 v0, v1, v2;
};

static __rte_always_inline void
vec_dgram_build(struct vec_dgram *d, const struct rdx_mlx5_ah *ah, uint64_t qq)
{
	memcpy(&d->v0, &ah->av, 16);
	memcpy(&d->v1, (const uint8_t *)&ah->av + 16, 16);
	memcpy(&d->v2, (const uint8_t *)&ah->av + 32, 16);
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	qq = rte_bswap64(qq);   /* [BE(Q_Key), BE(QPN)] */
	d->v0 |= (vec_u64x2){ (uint32_t)qq, (qq >> 32) & 0xffffff00u };
#else
	d->v0 |= (vec_u64x2){ qq << 32, (qq >> 32 & 0xffffff) << 32 };
#endif
}

/* The WR's destination (AH, remote_qpn, remote_qkey: 16 adjacent bytes)
 * as one value. */
static __rte_always_inline vec_u64x2
vec_dest(const struct rdx_wr *wr)
{
	vec_u64x2 v;

	memcpy(&v, &wr->ah, sizeof(v));
	return v;
}

/* Is the WR's destination the run's (dest, from vec_dest)? */
static __rte_always_inline bool
vec_dest_same(const struct rdx_wr *wr, const vec_u64x2 dest)
{
#if defined(RTE_ARCH_X86_64) && defined(__SSE4_1__)
	const __m128i x = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)&wr->ah),
					(__m128i)dest);

	return _mm_testz_si128(x, x) != 0;
#else
	const vec_u64x2 x = vec_dest(wr) ^ dest;

	return (x[0] | x[1]) == 0;
#endif
}

/*
 * One WQE of a run at ctrl, ctrl bytes 0..15 being ctrl16: a WR of the
 * exact shape key want (UD: to the run's destination dest, datagram
 * segment d). False, nothing written, for any other WR (another key or
 * destination, an inline length other than 8, a zero-length SGE, an
 * atomic not of 8 bytes).
 */
static __rte_always_inline bool
vec_wqe(uint8_t *ctrl, const struct rdx_wr *wr, const vec_u64x2 ctrl16, const uint32_t want,
	const enum vec_shape shape, const struct vec_dgram *d, const vec_u64x2 dest)
{
	const struct rdx_sge *sge;

	if (unlikely((wr_key(wr) & WR_KEY_EXACT_MASK) != want))
		return false;
	sge = wr->sge;
	switch (shape) {
	case VEC_WRITE_INL8:
		if (unlikely(sge->length != 8))
			return false;
		vec_raddr_seg(ctrl + MLX5_DS_SIZE, wr);
		vec_inline8_seg(ctrl + 2 * MLX5_DS_SIZE, sge);
		break;
	case VEC_SEND_INL8:
		if (unlikely(sge->length != 8))
			return false;
		vec_inline8_seg(ctrl + MLX5_DS_SIZE, sge);
		break;
	case VEC_SEND_SGE:
		if (unlikely(sge->length == 0))
			return false;
		vec_data_seg(ctrl + MLX5_DS_SIZE, sge);
		break;
	case VEC_WRITE_SGE:
	case VEC_READ:
		if (unlikely(sge->length == 0))
			return false;
		vec_raddr_seg(ctrl + MLX5_DS_SIZE, wr);
		vec_data_seg(ctrl + 2 * MLX5_DS_SIZE, sge);
		break;
	case VEC_CAS:
	case VEC_FAA:
		if (unlikely(sge->length != 8))
			return false;
		vec_raddr_seg(ctrl + MLX5_DS_SIZE, wr);
		vec_atomic_seg(ctrl + 2 * MLX5_DS_SIZE, wr, shape == VEC_CAS);
		vec_data_seg(ctrl + 3 * MLX5_DS_SIZE, sge);
		break;
	case VEC_UD_SEND_INL8:
		if (unlikely(!vec_dest_same(wr, dest) || sge->length != 8))
			return false;
		memcpy(ctrl + MLX5_DS_SIZE, &d->v0, 16);
		memcpy(ctrl + 2 * MLX5_DS_SIZE, &d->v1, 16);
		memcpy(ctrl + 3 * MLX5_DS_SIZE, &d->v2, 16);
		vec_inline8_seg(ctrl + 64, sge);
		break;
	}
	memcpy(ctrl, &ctrl16, sizeof(ctrl16));
	return true;
}

/*
 * A run of up to span WQEs of one shape from WQEBB counter cur_post at
 * ctrl (wr_id slots from wid), unsignaled; stops early at a WR of another
 * shape. Two WQEs per turn of the loop (an odd one first). Returns the
 * WQEs written.
 */
static __rte_always_inline uint32_t
vec_run(uint8_t *ctrl, uint64_t *wid, uint32_t qpn8, uint32_t cur_post,
	const struct rdx_wr *wr, const uint32_t span, const uint32_t want,
	const enum vec_shape shape)
{
	const uint32_t nbb = shape == VEC_UD_SEND_INL8 ? 2 : 1;
	const uint64_t w0 = rte_cpu_to_be_64((uint64_t)vec_opcode(shape) << 32 | qpn8 |
					     vec_ds(shape) | (uint64_t)(uint16_t)cur_post << 40);
	const vec_u64x2 step = { nbb * VEC_IDX_ONE, 0 };
	vec_u64x2 ctrl16 = { w0, 0 };
	const uint64_t *const wid0 = wid;
	const struct rdx_wr *const end = wr + span;
	struct vec_dgram d;
	vec_u64x2 dest = { 0, 0 };

	if (shape == VEC_UD_SEND_INL8) {
		uint64_t qq;

		if (unlikely(wr->ah == NULL))
			return 0;
		memcpy(&qq, &wr->remote_qpn, sizeof(qq));
		vec_dgram_build(&d, (const struct rdx_mlx5_ah *)(const void *)wr->ah, qq);
		dest = vec_dest(wr);
	}
	if (span & 1) {
		if (unlikely(!vec_wqe(ctrl, wr, ctrl16, want, shape, &d, dest)))
			return 0;
		*wid++ = wr->wr_id;
		ctrl16 += step;
		ctrl += nbb << MLX5_WQEBB_SHIFT;
		wr++;
	}
	for (; wr != end; wr += 2, wid += 2) {
		if (unlikely(!vec_wqe(ctrl, wr, ctrl16, want, shape, &d, dest)))
			break;
		wid[0] = wr->wr_id;
		ctrl16 += step;
		if (unlikely(!vec_wqe(ctrl + (nbb << MLX5_WQEBB_SHIFT), wr + 1, ctrl16, want,
				      shape, &d, dest))) {
			wid++;
			break;
		}
		wid[1] = wr[1].wr_id;
		ctrl16 += step;
		ctrl += (2 * nbb) << MLX5_WQEBB_SHIFT;
	}
	return (uint32_t)(wid - wid0);
}

/*
 * One inline WRITE (send: SEND) WQE of 1..max_inline bytes from one SGE at
 * WQEBB counter bb (ctrl): ctrl + [raddr] + inline (inl_seg_one),
 * unsignaled; w0base is ctrl_word_base of its opcode. Returns
 * its WQEBBs, or 0 (nothing written) for a length of 0 or above
 * max_inline, or a WQE of more than room_bb WQEBBs (it would wrap at the
 * SQ end: post_send's).
 */
static __rte_always_inline uint32_t
vec_inl_wqe(uint8_t *ctrl, const struct rdx_wr *wr, uint32_t bb, uint64_t w0base,
	    uint32_t max_inline, uint32_t room_bb, const bool send)
{
	const struct rdx_sge *const sge = wr->sge;
	const uint32_t len = sge->length;
	uint8_t *seg = ctrl + MLX5_DS_SIZE;
	uint32_t ds, nbb;
	vec_u64x2 ctrl16;

	if (unlikely(len - 1 >= max_inline))
		return 0;
	/* DS: ctrl, [raddr], align16(4 + len) / 16 */
	ds = (send ? 1 : 2) + inl_seg_ds(len);
	nbb = (ds + 3) >> 2;
	if (unlikely(nbb > room_bb))
		return 0;
	if (!send) {
		vec_raddr_seg(seg, wr);
		seg += MLX5_DS_SIZE;
	}
	inl_seg_one(seg, sge);
	ctrl16 = (vec_u64x2){ ctrl_word(w0base, bb, ds), 0 };
	memcpy(ctrl, &ctrl16, sizeof(ctrl16));
	return nbb;
}

/*
 * A run of up to span inline WRITEs (send: SENDs) of the exact shape key
 * want, of any length vec_inl_wqe takes, from *cur_post on (advanced past
 * them; *last_bb: the last one's counter). The WQEs follow each other up
 * to the SQ end (room: the WQEBBs left before it). Returns the WQEs
 * written.
 */
static __rte_always_inline uint32_t
vec_run_inl(const struct rdx_mlx5_qp *qp, uint64_t *wid, uint32_t *cur_post, uint32_t *last_bb,
	    const struct rdx_wr *wr, const uint32_t span, const uint32_t want, const bool send)
{
	const uint32_t mask = qp->sq_mask;
	const uint32_t max_inline = qp->max_inline;
	const uint64_t w0base = ctrl_word_base(send ? MLX5_OPCODE_SEND : MLX5_OPCODE_RDMA_WRITE,
					       qp->qpn8);
	uint32_t bb = *cur_post, lbb = *last_bb, i;
	uint8_t *ctrl = (uint8_t *)sq_ctrl(qp->sq_buf, bb, mask);
	uint32_t room = mask + 1 - (bb & mask);

	for (i = 0; i < span; i++) {
		uint32_t nbb;

		if (unlikely((wr_key(&wr[i]) & WR_KEY_EXACT_MASK) != want))
			break;
		nbb = vec_inl_wqe(ctrl, &wr[i], bb, w0base, max_inline, room, send);
		if (unlikely(nbb == 0))
			break;
		wid[i] = wr[i].wr_id;
		lbb = bb;
		bb += nbb;
		room -= nbb;
		ctrl += nbb << MLX5_WQEBB_SHIFT;
	}
	*last_bb = lbb;
	*cur_post = bb;
	return i;
}

/*
 * A run of up to span inline WRITEs (send: SENDs) of the exact shape key
 * want, every one of len bytes (8..max_inline, of copy class cls), from
 * WQEBB counter cur_post at ctrl, each nbb WQEBBs: the segment header,
 * the DS count and the ctrl word's step are the run's, so each WQE is
 * [raddr], the copy, the header and ctrl bytes 0..15 (the caller keeps
 * the run before the ring end and the index byte carry, as vec_run's).
 * Returns the WQEs written.
 */
static __rte_always_inline uint32_t
vec_run_inl_len(uint8_t *ctrl, uint64_t *wid, uint32_t qpn8, uint32_t cur_post,
		const struct rdx_wr *wr, const uint32_t span, const uint32_t want, uint32_t len,
		const enum inl_cls cls, const bool send)
{
	const uint32_t ds = (send ? 1 : 2) + inl_seg_ds(len);
	const uint32_t nbb = (ds + 3) >> 2;
	const uint32_t hdr = htobe32(len | MLX5_INLINE_SEG);
	const size_t off = send ? MLX5_DS_SIZE : 2 * MLX5_DS_SIZE;
	const vec_u64x2 step = { nbb * VEC_IDX_ONE, 0 };
	vec_u64x2 ctrl16 = { ctrl_word(ctrl_word_base(send ? MLX5_OPCODE_SEND :
						      MLX5_OPCODE_RDMA_WRITE, qpn8),
				       cur_post, ds), 0 };
	uint32_t i;

	for (i = 0; i < span; i++) {
		const struct rdx_sge *sge;

		if (unlikely((wr_key(&wr[i]) & WR_KEY_EXACT_MASK) != want))
			break;
		sge = wr[i].sge;
		if (unlikely(sge->length != len))
			break;
		if (!send)
			vec_raddr_seg(ctrl + MLX5_DS_SIZE, &wr[i]);
		inl_copy_cls(ctrl + off + sizeof(struct mlx5_wqe_inl_data_seg),
			     (const uint8_t *)(uintptr_t)sge->addr, len, cls);
		memcpy(ctrl + off, &hdr, sizeof(hdr));
		memcpy(ctrl, &ctrl16, sizeof(ctrl16));
		wid[i] = wr[i].wr_id;
		ctrl16 += step;
		ctrl += nbb << MLX5_WQEBB_SHIFT;
	}
	return i;
}

/* vec_run_inl_len for 9..64 bytes, with the copy class of len as a
 * constant (out of line: one call a run). */
static __rte_noinline uint32_t
vec_run_inl_small(uint8_t *ctrl, uint64_t *wid, uint32_t qpn8, uint32_t cur_post,
		  const struct rdx_wr *wr, const uint32_t span, const uint32_t want, uint32_t len,
		  const bool send)
{
	switch (inl_cls_of(len)) {
	case INL_16:
		return vec_run_inl_len(ctrl, wid, qpn8, cur_post, wr, span, want, len, INL_16,
				       send);
	case INL_32:
		return vec_run_inl_len(ctrl, wid, qpn8, cur_post, wr, span, want, len, INL_32,
				       send);
	default:
		return vec_run_inl_len(ctrl, wid, qpn8, cur_post, wr, span, want, len, INL_64,
				       send);
	}
}

/* vec_run_inl_len for any length of 9..max_inline bytes. */
static __rte_always_inline uint32_t
vec_run_inl_cls(uint8_t *ctrl, uint64_t *wid, uint32_t qpn8, uint32_t cur_post,
		const struct rdx_wr *wr, const uint32_t span, const uint32_t want, uint32_t len,
		const bool send)
{
	if (len <= 64)
		return vec_run_inl_small(ctrl, wid, qpn8, cur_post, wr, span, want, len, send);
	return vec_run_inl_len(ctrl, wid, qpn8, cur_post, wr, span, want, len, INL_BIG, send);
}

/*
 * How many WQEs of nbb WQEBBs fit in room WQEBBs (room <= 256, a run's
 * bound), without a division: room * (2^16 / nbb + 1) >> 16 is
 * room / nbb exactly for room <= 256 and nbb <= 16 (the error term stays
 * below 1/256, less than the gap 1/nbb to the next integer). 0 for a
 * WQE above 16 WQEBBs (the kernel's cap): such a WQE takes no run of one
 * length.
 */
static __rte_always_inline uint32_t
wqes_in(uint32_t room, uint32_t nbb)
{
	static const uint32_t recip[17] = {
		0, 65537, 32769, 21846, 16385, 13108, 10923, 9363, 8193,
		7282, 6554, 5958, 5462, 5042, 4682, 4370, 4097,
	};

	return nbb <= 16 ? (room * recip[nbb]) >> 16 : 0;
}

/* Where the runs left the send queue (post_runs): the ring state
 * post_send or the end of the burst takes over, the last WQE and whether
 * it was inline. */
struct sq_runs_end {
	uint32_t cur_post;
	uint32_t head;
	uint32_t sig_base;      /* the ordinal after the last signaled WQE */
	struct mlx5_wqe_ctrl_seg *last; /* the last WQE's ctrl */
	bool inl;
};

/*
 * The runs of a burst: from the first WR on, while the WRs take a run
 * shape (RC: any of them, UD: the 8-byte inline SEND), up to n of them
 * (and the room the SQ has). The ring state goes to *e, not to the QP:
 * the caller ends the burst or hands the rest to post_send. Returns the
 * WRs posted.
 */
static __rte_always_inline uint32_t
post_runs(struct rdx_mlx5_qp *qp, const struct rdx_wr *wr, uint32_t n, const bool ud,
	  struct sq_runs_end *e)
{
	bool inl = false;
	uint32_t last_bb = 0;
	uint8_t *const sq_buf = qp->sq_buf;
	uint64_t *const wrid = qp->sq_wrid;
	const uint32_t mask = qp->sq_mask;
	const uint32_t nbb = ud ? 2 : 1;
	/* Runs end where the ring or the WQE index's low byte wraps. */
	const uint32_t run_mask = RTE_MIN(mask, 0xffu);
	const uint32_t tail = qp->sq_tail;
	const uint32_t head0 = qp->sq_head;
	const uint32_t room = qp->sq_max_post - (head0 - tail);
	const uint32_t unsignaled = qp->sq_unsignaled;
	uint32_t left = RTE_MIN(n, room);
	uint32_t cur_post = qp->sq_cur_post;
	uint32_t head = head0;
	/* The ordinal after the last signaled WQE, and the next that must be
	 * signaled (post_send's rule: every sig_interval-th, and the WQE that
	 * takes the last free slot). */
	uint32_t sig_base = head - unsignaled;
	uint32_t forced = head + RTE_MIN(qp->sig_interval - 1 - unsignaled, room - 1);

	while (left != 0) {
		/* The inline shapes need a QP that takes 8 inline bytes (RC:
		 * 16, the QP's fast_key; mlx5_obj.c), the one-SGE shapes one
		 * SGE. Read once a run. */
		const uint32_t fast_key = qp->fast_key;
		const bool sge_ok = qp->max_send_sge != 0;
		const uint32_t qpn8 = qp->qpn8;
		uint8_t *const ctrl = sq_buf + ((size_t)(cur_post & mask) << MLX5_WQEBB_SHIFT);
		uint64_t *const wid = wrid + (head & mask);
		const uint32_t key = wr_key(wr);
		const uint32_t shape = key & WR_KEY_RUN_MASK;
		const uint32_t want = key & WR_KEY_EXACT_MASK;
		uint32_t span, fixed, k, bb = cur_post;

		span = RTE_MIN(forced - head + 1, left);
		if (key & WR_KEY_SIGNALED)
			span = 1;
		span = RTE_MIN(span, mask + 1 - (head & mask));
		/* the runs of one WQE size: before the ring end or the index
		 * byte carry */
		fixed = RTE_MIN(span, (run_mask + 1 - (cur_post & run_mask)) / nbb);
		k = 0;
		if (ud) {
			if (shape == fast_key && fixed != 0)
				k = vec_run(ctrl, wid, qpn8, cur_post, wr, fixed, want,
					    VEC_UD_SEND_INL8);
			inl = true;
		} else if (shape == fast_key || shape == (fast_key ^ WR_KEY_WRITE_TO_SEND)) {
			const bool send = shape != fast_key;

			const uint32_t len = wr->sge->length;

			if (len == 8) {
				k = send ? vec_run(ctrl, wid, qpn8, cur_post, wr, fixed, want,
						   VEC_SEND_INL8) :
					vec_run(ctrl, wid, qpn8, cur_post, wr, fixed, want,
						VEC_WRITE_INL8);
			} else if (len > 8 && len <= qp->max_inline && span >= 2 &&
				   (wr_key(&wr[1]) & WR_KEY_EXACT_MASK) == want &&
				   wr[1].sge->length == len) {
				/* a run of one length: as many WQEs as fit before
				 * the ring end or the index byte carry */
				const uint32_t lnbb = ((send ? 1 : 2) * MLX5_DS_SIZE + 4 + len +
						       63) >> MLX5_WQEBB_SHIFT;
				const uint32_t lfixed = RTE_MIN(span, wqes_in(run_mask + 1 -
								      (cur_post & run_mask), lnbb));

				if (lfixed >= 2)
					k = send ? vec_run_inl_cls(ctrl, wid, qpn8, cur_post, wr,
								   lfixed, want, len, true) :
						vec_run_inl_cls(ctrl, wid, qpn8, cur_post, wr,
								lfixed, want, len, false);
				if (k != 0) {
					last_bb = cur_post + lnbb * (k - 1);
					bb = cur_post + lnbb * k;
				}
			}
			if (k == 0 && len != 8)
				k = send ? vec_run_inl(qp, wid, &bb, &last_bb, wr, span, want, true) :
					vec_run_inl(qp, wid, &bb, &last_bb, wr, span, want, false);
			inl = true;
		} else {
			inl = false;
			if (!sge_ok)
				break;
			if (shape == WR_KEY(RDX_OP_READ, 0, 1))
				k = vec_run(ctrl, wid, qpn8, cur_post, wr, fixed, want, VEC_READ);
			else if (shape == WR_KEY(RDX_OP_WRITE, 0, 1))
				k = vec_run(ctrl, wid, qpn8, cur_post, wr, fixed, want,
					    VEC_WRITE_SGE);
			else if (shape == WR_KEY(RDX_OP_SEND, 0, 1))
				k = vec_run(ctrl, wid, qpn8, cur_post, wr, fixed, want,
					    VEC_SEND_SGE);
			else if (shape == WR_KEY(RDX_OP_CAS, 0, 1))
				k = vec_run(ctrl, wid, qpn8, cur_post, wr, fixed, want, VEC_CAS);
			else if (shape == WR_KEY(RDX_OP_FAA, 0, 1))
				k = vec_run(ctrl, wid, qpn8, cur_post, wr, fixed, want, VEC_FAA);
		}
		if (unlikely(k == 0))
			break;
		if (bb == cur_post) {
			/* a run of one WQE size */
			last_bb = cur_post + nbb * (k - 1);
			bb = cur_post + nbb * k;
		}
		cur_post = bb;
		head += k;
		left -= k;
		wr += k;
		/* The run ended on the WQE that must be signaled (the forced
		 * ordinal, or a WR asking for it): set its CQ_UPDATE bit and
		 * record what its CQE retires. */
		if (head - 1 == forced || (key & WR_KEY_SIGNALED)) {
			const uint32_t sidx = last_bb & mask;

			sq_ctrl(sq_buf, sidx, mask)->fm_ce_se = MLX5_WQE_CTRL_CQ_UPDATE;
			qp->sq_sig[sidx].ord = head - 1;
			qp->sq_sig[sidx].next_bb = (uint16_t)cur_post;
			sig_base = head;
			forced = head - 1 + RTE_MIN(qp->sig_interval, tail + qp->sq_max_post - head);
		}
	}
	e->cur_post = cur_post;
	e->head = head;
	e->sig_base = sig_base;
	e->last = sq_ctrl(sq_buf, last_bb, mask);
	e->inl = inl;
	return head - head0;
}

#endif /* MLX5_QP_VEC_H */
