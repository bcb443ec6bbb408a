/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mlx5 WQE encodings for the datapath (mlx5_qp.c posts, mlx5_cq.c reads
 * WQEs back for flushes, mlx5_obj.c sizes rings): the 64-byte WQEBB and
 * 16-byte DS units, the native ctrl-segment words and WR shape keys, and
 * the set_*_seg helpers. Every helper is always-inline (the post loops
 * must stay call-free); segment sizes are in 16-byte DS units, the
 * structs are mlx5dv.h's. Formats: doc/mlx5-datapath.md section 1.
 * Internal to drivers/mlx5: not installed.
 */
#ifndef RDX_MLX5_WQE_H
#define RDX_MLX5_WQE_H

#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_atomic.h>
#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_config.h>
#include <rte_vect.h>

#include <infiniband/mlx5dv.h>

#include "rdx_mlx5.h"

/* ---------------------------------------------------------------------- */
/* Units                                                                   */

#define MLX5_WQEBB_SHIFT 6      /* MLX5_SEND_WQE_BB = 64 */
#define MLX5_DS_SIZE 16u        /* DS unit (kernel qp.h) */
#define MLX5_MAX_SQ_WQEBB 32768u /* ordinals are tracked in 16 bits */

/* ---------------------------------------------------------------------- */
/* Ctrl segment words and WR shape keys                                    */

/*
 * Ctrl bytes 8..15 read as one native word ([signature, dci(2), fm_ce_se,
 * imm(4)]): fm_ce_se sits W1_FM_SHIFT up and imm at W1_IMM, so the fast
 * path builds that word with one load and one OR.
 */
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
#define W1_FM_SHIFT 24
#define W1_IMM(imm) ((uint64_t)(imm) << 32)
#else
#define W1_FM_SHIFT 32
#define W1_IMM(imm) ((uint64_t)(imm))
#endif
#define W1_CQ_UPDATE ((uint64_t)MLX5_WQE_CTRL_CQ_UPDATE << W1_FM_SHIFT)

/* Fast-path key: opcode, flags & INLINE, num_sge of a WR read as one word. */
_Static_assert(offsetof(struct rdx_wr, flags) == offsetof(struct rdx_wr, opcode) + 1 &&
	       offsetof(struct rdx_wr, num_sge) == offsetof(struct rdx_wr, opcode) + 2 &&
	       sizeof(struct rdx_wr) >= offsetof(struct rdx_wr, opcode) + 4,
	       "rdx_wr opcode/flags/num_sge layout");
/* UD: remote_qpn and remote_qkey read as one word by the UD run loop. */
_Static_assert(offsetof(struct rdx_wr, remote_qkey) == offsetof(struct rdx_wr, remote_qpn) + 4,
	       "rdx_wr remote_qpn/remote_qkey layout");
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
#define WR_KEY(op, fl, nsge) ((uint32_t)(op) | (uint32_t)(fl) << 8 | (uint32_t)(nsge) << 16)
#define WR_KEY_FLAGS(key) ((key) >> 8)
#else
#define WR_KEY(op, fl, nsge) ((uint32_t)(op) << 24 | (uint32_t)(fl) << 16 | (uint32_t)(nsge) << 8)
#define WR_KEY_FLAGS(key) ((key) >> 16)
#endif
/* The fast paths take INLINE and SIGNALED only (SIGNALED is tested apart). */
#define WR_KEY_MASK WR_KEY(0xff, RDX_WR_INLINE | RDX_WR_FENCE | RDX_WR_SOLICITED, 0xff)
#define WR_KEY_SIGNALED WR_KEY(0, RDX_WR_SIGNALED, 0)
#define WR_KEY_WRITE_INL WR_KEY(RDX_OP_WRITE, RDX_WR_INLINE, 1)
/* XOR turning the WRITE fast key into the SEND one (UINT32_MAX stays unmatched). */
#define WR_KEY_WRITE_TO_SEND (WR_KEY(RDX_OP_WRITE, 0, 0) ^ WR_KEY(RDX_OP_SEND, 0, 0))
/* XOR turning a native ctrl word 0 of an RDMA_WRITE into a SEND's. */
#define W0_WRITE_TO_SEND ((uint64_t)(MLX5_OPCODE_RDMA_WRITE ^ MLX5_OPCODE_SEND) << 32)

/*
 * Between two adjacent 8-byte WQE stores: keeps gcc's SLP vectoriser from
 * pairing them into an SSE insert + 16-byte store (more instructions).
 * A compiler-only barrier; the loops keep their state in locals.
 */
#define NO_STORE_PAIRING() rte_compiler_barrier()

/*
 * ctrl bytes 0..7 as stored (big-endian), read back as one native word: the
 * WQE index's low byte (byte 2) sits this far up, so while that byte does
 * not carry, the next WQE's word is this word plus W0BE_IDX_ONE.
 */
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
#define W0BE_IDX_ONE ((uint64_t)1 << 16)
#else
#define W0BE_IDX_ONE ((uint64_t)1 << 40)
#endif
/* Two 64-bit lanes (GCC vector extension): one 16-byte store, one add. */
typedef uint64_t rdx_v2u64 __attribute__((vector_size(16)));
/*
 * After ctrl16 += step in an unrolled run loop: keeps the value in one
 * vector register, stepped in place (one add per WQE), instead of gcc
 * rebuilding each copy's value from the first (a register copy and an add
 * per WQE). A compiler-only constraint, no instruction.
 */
#if defined(RTE_ARCH_X86_64)
#define V_STEP_IN_PLACE(v) __asm__("" : "+x"(v))
#else
#define V_STEP_IN_PLACE(v) do { } while (0)
#endif

/* A run takes one WR shape: every flag bit is compared. */
#define WR_KEY_EXACT_MASK WR_KEY(0xff, 0xff, 0xff)
/* The shapes that start a run: INLINE, with or without SIGNALED. */
#define WR_KEY_RUN_MASK WR_KEY(0xff, 0xff & ~RDX_WR_SIGNALED, 0xff)

/* ---------------------------------------------------------------------- */
/* Segments (sizes in 16-byte DS units)                                    */

/* Segments continue at the start of the ring past its end (§1 wrap rule). */
static __rte_always_inline uint8_t *
sq_wrap(const struct rdx_mlx5_qp *qp, uint8_t *seg)
{
	if (unlikely(seg == qp->sq_end))
		return qp->sq_buf;
	return seg;
}

static __rte_always_inline void
set_raddr_seg(uint8_t *seg, uint64_t raddr, uint32_t rkey)
{
	struct mlx5_wqe_raddr_seg *r = (struct mlx5_wqe_raddr_seg *)(void *)seg;
	/* rkey and the reserved word as one 8-byte store */
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	uint64_t rk = htobe32(rkey);
#else
	uint64_t rk = (uint64_t)rkey << 32;
#endif

	r->raddr = htobe64(raddr);
	NO_STORE_PAIRING();
	memcpy(&r->rkey, &rk, sizeof(rk));
}

/* set_raddr_seg with rkey and the reserved word as two 4-byte stores: no
 * register for the zero-extended rkey (the single post, short of them). */
static __rte_always_inline void
set_raddr_seg4(uint8_t *seg, uint64_t raddr, uint32_t rkey)
{
	struct mlx5_wqe_raddr_seg *r = (struct mlx5_wqe_raddr_seg *)(void *)seg;

	r->raddr = htobe64(raddr);
	NO_STORE_PAIRING();
	r->rkey = htobe32(rkey);
	r->reserved = 0;
}

static __rte_always_inline void
set_atomic_seg(uint8_t *seg, const struct rdx_wr *wr)
{
	struct mlx5_wqe_atomic_seg *a = (struct mlx5_wqe_atomic_seg *)(void *)seg;

	/* Operands are big-endian in the WQE (mlx5-datapath.md §5). */
	if (wr->opcode == RDX_OP_CAS) {
		a->swap_add = htobe64(wr->swap);
		a->compare = htobe64(wr->compare_add);
	} else {
		a->swap_add = htobe64(wr->compare_add);
		a->compare = 0;
	}
}

/* Data segments, zero-length SGEs skipped (rdma-core set_data_ptr_seg). */
static __rte_always_inline uint32_t
set_data_segs(const struct rdx_mlx5_qp *qp, uint8_t *seg, const struct rdx_wr *wr)
{
	uint32_t ds = 0, j;

	for (j = 0; j < wr->num_sge; j++) {
		const struct rdx_sge *sge = &wr->sge[j];

		if (unlikely(sge->length == 0))
			continue;
		seg = sq_wrap(qp, seg);
		mlx5dv_set_data_seg((struct mlx5_wqe_data_seg *)(void *)seg, sge->length,
				    sge->lkey, (uintptr_t)sge->addr);
		seg += MLX5_DS_SIZE;
		ds++;
	}
	return ds;
}

/*
 * Inline segment of 8..16 bytes from one SGE, inside the current WQEBB:
 * header, then two overlapping 8-byte moves (no libc call).
 */
static __rte_always_inline void
set_inline_small(uint8_t *inl, const uint8_t *src, uint32_t len)
{
	uint64_t a, b;

	memcpy(&a, src, 8);
	memcpy(&b, src + len - 8, 8);
	((struct mlx5_wqe_inl_data_seg *)(void *)inl)->byte_count =
		htobe32(len | MLX5_INLINE_SEG);
	memcpy(inl + 4, &a, 8);
	memcpy(inl + 4 + len - 8, &b, 8);
}

/* Inline segment of exactly 8 bytes: constant header, one 8-byte move. */
static __rte_always_inline void
set_inline_8(uint8_t *inl, const uint8_t *src)
{
	const uint32_t hdr = RTE_BE32(8u | MLX5_INLINE_SEG);
	uint64_t a;

	memcpy(&a, src, 8);
	memcpy(inl, &hdr, sizeof(hdr));
	memcpy(inl + 4, &a, 8);
}

/* The ctrl segment of the WQE at WQEBB counter bb. */
static __rte_always_inline struct mlx5_wqe_ctrl_seg *
sq_ctrl(uint8_t *sq_buf, uint32_t bb, uint32_t mask)
{
	return (struct mlx5_wqe_ctrl_seg *)(void *)(sq_buf + ((size_t)(bb & mask) << MLX5_WQEBB_SHIFT));
}

/*
 * Control segment bytes 0..7, [opmod 0, idx(2), opcode][qpn(3), ds], are
 * built native (qpn << 8 | ds low, opcode at bit 32, idx at bit 40) and
 * swapped as one 64-bit word: the bytes mlx5dv_set_ctrl_seg() stores.
 * Bytes 8..15 are [signature 0, dci(2) 0, fm_ce_se, imm(4)], one word too.
 */
static __rte_always_inline void
set_ctrl(uint8_t *ctrl, uint64_t w0, uint32_t cur_post, uint64_t w1)
{
	w0 = rte_cpu_to_be_64(w0 | (uint64_t)(uint16_t)cur_post << 40);
	memcpy(ctrl, &w0, sizeof(w0));
	NO_STORE_PAIRING();
	memcpy(ctrl + 8, &w1, sizeof(w1));
}

/*
 * Bytes 28..35 of an 8-byte inline RDMA_WRITE: the raddr segment's reserved
 * word (0) and the inline header, as one native word.
 */
static __rte_always_inline uint64_t
rsv_inline8_word(void)
{
	const uint32_t w[2] = { 0, RTE_BE32(8u | MLX5_INLINE_SEG) };
	uint64_t v;

	memcpy(&v, w, sizeof(v));
	return v;
}

/*
 * Whole 16-byte segments straight from the WR, for the run loops: one load
 * (or two), one byte shuffle, one 16-byte store each. SSE4.1 (pinsrd) and
 * SSSE3 (pshufb) are in the x86-64 baseline DPDK builds with (corei7);
 * elsewhere the same bytes come from the scalar helpers above.
 */
_Static_assert(offsetof(struct rdx_sge, length) == 8 && offsetof(struct rdx_sge, lkey) == 12 &&
	       sizeof(struct rdx_sge) == 16, "rdx_sge layout");
_Static_assert(offsetof(struct rdx_wr, swap) == offsetof(struct rdx_wr, compare_add) + 8,
	       "rdx_wr compare_add/swap layout");
#if defined(RTE_ARCH_X86_64) && defined(__SSE4_1__) && defined(__SSSE3__)
#define RDX_MLX5_SEG_VEC 1

/* raddr segment: be64 remote_addr, be32 rkey, reserved 0. */
static __rte_always_inline void
set_raddr_seg_v(uint8_t *seg, const struct rdx_wr *wr)
{
	const __m128i shuf = _mm_setr_epi8(7, 6, 5, 4, 3, 2, 1, 0, 11, 10, 9, 8,
					   -1, -1, -1, -1);
	__m128i v = _mm_loadl_epi64((const __m128i *)(const void *)&wr->remote_addr);

	v = _mm_insert_epi32(v, (int)wr->rkey, 2);
	_mm_storeu_si128((__m128i *)(void *)seg, _mm_shuffle_epi8(v, shuf));
}

/* Data segment from one SGE (mlx5dv_set_data_seg): be32 length, be32 lkey,
 * be64 addr, which is the rdx_sge's 16 bytes, permuted and swapped. */
static __rte_always_inline void
set_data_seg_v(uint8_t *seg, const struct rdx_sge *sge)
{
	const __m128i shuf = _mm_setr_epi8(11, 10, 9, 8, 15, 14, 13, 12, 7, 6, 5, 4, 3, 2, 1, 0);
	const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)sge);

	_mm_storeu_si128((__m128i *)(void *)seg, _mm_shuffle_epi8(v, shuf));
}

/* Atomic segment (set_atomic_seg): CAS be64 swap, be64 compare (the WR's
 * compare_add, swap reversed as 16 bytes); FAA be64 add, 0. */
static __rte_always_inline void
set_atomic_seg_v(uint8_t *seg, const struct rdx_wr *wr, const bool cas)
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
set_raddr_seg_v(uint8_t *seg, const struct rdx_wr *wr)
{
	set_raddr_seg(seg, wr->remote_addr, wr->rkey);
}

static __rte_always_inline void
set_data_seg_v(uint8_t *seg, const struct rdx_sge *sge)
{
	mlx5dv_set_data_seg((struct mlx5_wqe_data_seg *)(void *)seg, sge->length, sge->lkey,
			    (uintptr_t)sge->addr);
}

static __rte_always_inline void
set_atomic_seg_v(uint8_t *seg, const struct rdx_wr *wr, const bool cas)
{
	struct mlx5_wqe_atomic_seg *a = (struct mlx5_wqe_atomic_seg *)(void *)seg;

	a->swap_add = htobe64(cas ? wr->swap : wr->compare_add);
	a->compare = cas ? htobe64(wr->compare_add) : 0;
}
#endif

/* WQEBBs of the WQE at counter bb, from its ctrl DS (the ring keeps every
 * unretired WQE intact). */
static __rte_always_inline uint32_t
sq_wqe_nbb(const struct rdx_mlx5_qp *qp, uint32_t bb)
{
	const struct mlx5_wqe_ctrl_seg *c = (const struct mlx5_wqe_ctrl_seg *)(const void *)
		(qp->sq_buf + ((size_t)(bb & qp->sq_mask) << MLX5_WQEBB_SHIFT));

	return ((be32toh(c->qpn_ds) & 0x3f) + 3) >> 2;
}

#endif /* RDX_MLX5_WQE_H */
