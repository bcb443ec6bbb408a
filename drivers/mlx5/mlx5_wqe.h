/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mlx5 WQE encodings for the datapath (mlx5_qp.c posts, mlx5_cq.c reads
 * WQEs back for flushes, mlx5_obj.c sizes rings): the 64-byte WQEBB and
 * 16-byte DS units, the barriers named for what they order, and the
 * set_*_seg helpers that write one segment each (the structs are
 * mlx5dv.h's; sizes are in 16-byte DS units, as the ctrl segment's DS
 * field counts them). Formats: doc/mlx5-datapath.md section 1.
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
#include <rte_io.h>

#include <infiniband/mlx5dv.h>

#include "rdx_mlx5.h"

/* ---------------------------------------------------------------------- */
/* Units                                                                   */

#define MLX5_WQEBB_SHIFT 6      /* MLX5_SEND_WQE_BB = 64 */
#define MLX5_DS_SIZE 16u        /* DS unit (kernel qp.h) */
#define MLX5_MAX_SQ_WQEBB 32768u /* ordinals are tracked in 16 bits */

/* ---------------------------------------------------------------------- */
/* Barriers (rdma-core util/udma_barrier.h names them so)                  */

/* WQE (or CQ consumer) stores reach memory before the doorbell record store
 * that tells the device about them. */
static __rte_always_inline void
udma_to_device_barrier(void)
{
	rte_io_wmb();
}

/* A CQE's body is read only after its owner byte said software owns it. */
static __rte_always_inline void
udma_from_device_barrier(void)
{
	rte_io_rmb();
}

/* The doorbell record store before the write-combining MMIO store of the
 * doorbell or BlueFlame copy. */
static __rte_always_inline void
mmio_wc_start(void)
{
	rte_wmb();
}

/* Push the write-combining buffer out before the register's other half is
 * used (the device must see the copies in order). */
static __rte_always_inline void
mmio_flush_writes(void)
{
	rte_wmb();
}

/* ---------------------------------------------------------------------- */
/* WR shape keys                                                           */

/* opcode, flags and num_sge of a WR read as one word (the shape of a WR). */
_Static_assert(offsetof(struct rdx_wr, flags) == offsetof(struct rdx_wr, opcode) + 1 &&
	       offsetof(struct rdx_wr, num_sge) == offsetof(struct rdx_wr, opcode) + 2 &&
	       sizeof(struct rdx_wr) >= offsetof(struct rdx_wr, opcode) + 4,
	       "rdx_wr opcode/flags/num_sge layout");
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
#define WR_KEY(op, fl, nsge) ((uint32_t)(op) | (uint32_t)(fl) << 8 | (uint32_t)(nsge) << 16)
#else
#define WR_KEY(op, fl, nsge) ((uint32_t)(op) << 24 | (uint32_t)(fl) << 16 | (uint32_t)(nsge) << 8)
#endif
#define WR_KEY_WRITE_INL WR_KEY(RDX_OP_WRITE, RDX_WR_INLINE, 1)

static __rte_always_inline uint32_t
wr_key(const struct rdx_wr *wr)
{
	uint32_t key;

	memcpy(&key, &wr->opcode, sizeof(key));
	return key;
}

/* ---------------------------------------------------------------------- */
/* Segments                                                                */

/* The ctrl segment of the WQE at WQEBB counter bb. */
static __rte_always_inline struct mlx5_wqe_ctrl_seg *
sq_ctrl(uint8_t *sq_buf, uint32_t bb, uint32_t mask)
{
	return (struct mlx5_wqe_ctrl_seg *)(void *)(sq_buf + ((size_t)(bb & mask) << MLX5_WQEBB_SHIFT));
}

/*
 * What the segment helpers need of the send queue, copied from the QP
 * once per burst: the WQE stores (bytes) may alias any QP field, so the
 * helpers read these from the copy, not through the QP.
 */
struct sq_ring {
	uint8_t *buf;                   /* sq_buf */
	uint8_t *end;                   /* sq_end */
	uint32_t max_inline;
};

static __rte_always_inline struct sq_ring
sq_ring_of(const struct rdx_mlx5_qp *qp)
{
	return (struct sq_ring){ .buf = qp->sq_buf, .end = qp->sq_end,
				 .max_inline = qp->max_inline };
}

/* A segment that starts at the SQ end starts at the SQ start instead (a
 * WQE may wrap between WQEBBs; rdma-core's qp.c does the same test). */
static __rte_always_inline uint8_t *
sq_wrap(const struct sq_ring *r, uint8_t *seg)
{
	if (unlikely(seg == r->end))
		return r->buf;
	return seg;
}

/*
 * ctrl bytes 0..7 as stored (big-endian [opmod 0, WQE index(2), opcode]
 * [QPN(3), DS]) read as one native word, in two parts: ctrl_word_base, the
 * opcode and QPN (qpn8: the QPN shifted up 8), fixed for a QP and an
 * opcode; ctrl_word, that base with one WQE's index and DS count ORed in.
 */
static __rte_always_inline uint64_t
ctrl_word_base(uint8_t opcode, uint32_t qpn8)
{
	return rte_cpu_to_be_64((uint64_t)opcode << 32 | qpn8);
}

static __rte_always_inline uint64_t
ctrl_word(uint64_t base, uint32_t idx, uint32_t ds)
{
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	return base | (uint64_t)rte_bswap16((uint16_t)idx) << 8 | (uint64_t)ds << 56;
#else
	return base | (uint64_t)(uint16_t)idx << 40 | ds;
#endif
}

/*
 * The ctrl segment (the bytes mlx5dv_set_ctrl_seg writes): w0, bytes 0..7
 * ([opmod 0, WQE index(2), opcode][QPN(3), DS] big-endian, as ctrl_word
 * builds it), then signature 0, dci 0, fm_ce_se and imm (as given:
 * network order), written as two 8-byte words.
 */
static __rte_always_inline void
set_ctrl_seg(uint8_t *ctrl, uint64_t w0, uint8_t fm_ce_se, uint32_t imm)
{
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	const uint64_t w1 = (uint64_t)fm_ce_se << 24 | (uint64_t)imm << 32;
#else
	const uint64_t w1 = (uint64_t)fm_ce_se << 32 | imm;
#endif

	memcpy(ctrl, &w0, sizeof(w0));
	memcpy(ctrl + 8, &w1, sizeof(w1));
}

/* enum rdx_op -> mlx5 WQE opcode (mlx5-datapath.md section 1). */
static __rte_always_inline uint8_t
mlx5_opcode_of(unsigned int op)
{
	switch (op) {
	case RDX_OP_SEND:
		return MLX5_OPCODE_SEND;
	case RDX_OP_SEND_IMM:
		return MLX5_OPCODE_SEND_IMM;
	case RDX_OP_WRITE:
		return MLX5_OPCODE_RDMA_WRITE;
	case RDX_OP_WRITE_IMM:
		return MLX5_OPCODE_RDMA_WRITE_IMM;
	case RDX_OP_READ:
		return MLX5_OPCODE_RDMA_READ;
	case RDX_OP_CAS:
		return MLX5_OPCODE_ATOMIC_CS;
	case RDX_OP_FAA:
		return MLX5_OPCODE_ATOMIC_FA;
	default:
		return MLX5_OPCODE_NOP;
	}
}

/* The QP's ctrl words by rdx_op (ctrl_word_base of its opcode and the
 * QPN), set once at QP creation: a WQE's ctrl bytes 0..7 are its entry
 * with the index and DS count ORed in (ctrl_word). */
static inline void
sq_ctrl_op_init(uint64_t tbl[RDX_OP_MAX], uint32_t qpn8)
{
	unsigned int op;

	for (op = 0; op < RDX_OP_MAX; op++)
		tbl[op] = ctrl_word_base(mlx5_opcode_of(op), qpn8);
}

/* Remote address segment (RDMA and atomics): 1 DS. */
static __rte_always_inline void
set_raddr_seg(uint8_t *seg, uint64_t raddr, uint32_t rkey)
{
	struct mlx5_wqe_raddr_seg *r = (struct mlx5_wqe_raddr_seg *)(void *)seg;

	r->raddr = htobe64(raddr);
	r->rkey = htobe32(rkey);
	r->reserved = 0;
}

/* Atomic segment: 1 DS; the operands big-endian (CAS swap then compare,
 * FAA the addend then 0; mlx5-datapath.md section 5). */
static __rte_always_inline void
set_atomic_seg(uint8_t *seg, bool cas, uint64_t swap, uint64_t compare_add)
{
	struct mlx5_wqe_atomic_seg *a = (struct mlx5_wqe_atomic_seg *)(void *)seg;

	a->swap_add = htobe64(cas ? swap : compare_add);
	a->compare = cas ? htobe64(compare_add) : 0;
}

/* Data pointer segment of one SGE: 1 DS (mlx5dv_set_data_seg). */
static __rte_always_inline void
set_data_ptr_seg(uint8_t *seg, const struct rdx_sge *sge)
{
	mlx5dv_set_data_seg((struct mlx5_wqe_data_seg *)(void *)seg, sge->length, sge->lkey,
			    (uintptr_t)sge->addr);
}

/* Data segments of a gather or scatter list, zero-length SGEs skipped (as
 * rdma-core's qp.c skips them), each continuing past the SQ end at its
 * start. Returns the DS count. */
static __rte_noinline uint32_t
set_data_ptr_segs_list(const struct sq_ring *r, uint8_t *seg, const struct rdx_sge *sge,
		       uint32_t num_sge)
{
	uint32_t ds = 0, j;

	for (j = 0; j < num_sge; j++) {
		if (unlikely(sge[j].length == 0))
			continue;
		seg = sq_wrap(r, seg);
		set_data_ptr_seg(seg, &sge[j]);
		seg += MLX5_DS_SIZE;
		ds++;
	}
	return ds;
}

/* The same, one non-empty SGE without a call (a segment after ctrl and
 * raddr never starts at the SQ end: the first WQEBB has room for it). */
static __rte_always_inline uint32_t
set_data_ptr_segs(const struct sq_ring *r, uint8_t *seg, const struct rdx_sge *sge,
		  uint32_t num_sge)
{
	if (likely(num_sge == 1 && sge->length != 0 && seg != r->end)) {
		set_data_ptr_seg(seg, sge);
		return 1;
	}
	return set_data_ptr_segs_list(r, seg, sge, num_sge);
}

/*
 * Datagram segment (UD, 3 DS): the AH's address vector (the template
 * rdx_mlx5_ah_init keeps: Q_Key 0, dqp_dct the extended-AV flag) with the
 * destination QPN and Q_Key, as rdma-core's set_datagram_seg.
 */
static __rte_always_inline void
set_datagram_seg(uint8_t *seg, const struct rdx_mlx5_ah *ah, uint32_t qpn, uint32_t qkey)
{
	struct mlx5_wqe_datagram_seg *dg = (struct mlx5_wqe_datagram_seg *)(void *)seg;

	memcpy(&dg->av, &ah->av, sizeof(dg->av));
	dg->av.dqp_dct = htobe32((qpn & 0xffffff) | MLX5_EXTENDED_UD_AV);
	dg->av.key.qkey.qkey = htobe32(qkey);
}

/*
 * Copy len bytes with loads and stores of 4, 8 and 16 bytes that overlap
 * in the middle (no byte outside [dst, dst + len) is written); above 64
 * bytes libc's memcpy. The copy routine of inline data.
 */
static __rte_always_inline void
inl_copy(uint8_t *dst, const uint8_t *src, uint32_t len)
{
	uint64_t a, b;
	uint32_t c, d;

	if (likely(len >= 8)) {
		if (likely(len <= 16)) {
			memcpy(&a, src, 8);
			memcpy(&b, src + len - 8, 8);
			memcpy(dst, &a, 8);
			memcpy(dst + len - 8, &b, 8);
		} else if (len <= 32) {
			memcpy(dst, src, 16);
			memcpy(dst + len - 16, src + len - 16, 16);
		} else if (len <= 64) {
			memcpy(dst, src, 32);
			memcpy(dst + len - 32, src + len - 32, 32);
		} else {
			memcpy(dst, src, len);
		}
	} else if (len >= 4) {
		memcpy(&c, src, 4);
		memcpy(&d, src + len - 4, 4);
		memcpy(dst, &c, 4);
		memcpy(dst + len - 4, &d, 4);
	} else {
		while (len-- != 0)
			*dst++ = *src++;
	}
}

/* Inline lengths by the copy they take (inl_copy_cls): 8..16, 17..32,
 * 33..64 bytes, and above. */
enum inl_cls {
	INL_16,
	INL_32,
	INL_64,
	INL_BIG,
};

static __rte_always_inline enum inl_cls
inl_cls_of(uint32_t len)
{
	return len <= 16 ? INL_16 : len <= 32 ? INL_32 : len <= 64 ? INL_64 : INL_BIG;
}

/* inl_copy for a length of class cls (at least 8 bytes): the same two
 * overlapping copies, chosen once for a run of one length. */
static __rte_always_inline void
inl_copy_cls(uint8_t *dst, const uint8_t *src, uint32_t len, const enum inl_cls cls)
{
	uint64_t a, b;

	switch (cls) {
	case INL_16:
		memcpy(&a, src, 8);
		memcpy(&b, src + len - 8, 8);
		memcpy(dst, &a, 8);
		memcpy(dst + len - 8, &b, 8);
		break;
	case INL_32:
		memcpy(dst, src, 16);
		memcpy(dst + len - 16, src + len - 16, 16);
		break;
	case INL_64:
		memcpy(dst, src, 32);
		memcpy(dst + len - 32, src + len - 32, 32);
		break;
	case INL_BIG:
		memcpy(dst, src, len);
		break;
	}
}

/* The DS count of an inline data segment of total bytes: align16(4 +
 * total) / 16. */
static __rte_always_inline uint32_t
inl_seg_ds(uint32_t total)
{
	return (total + (uint32_t)sizeof(struct mlx5_wqe_inl_data_seg) + MLX5_DS_SIZE - 1) >> 4;
}

/* The inline data segment of one SGE of 1..max_inline bytes that ends
 * before the SQ end (the caller's test): the header, one copy. Returns
 * the DS count. */
static __rte_always_inline uint32_t
inl_seg_one(uint8_t *seg, const struct rdx_sge *sge)
{
	const uint32_t len = sge->length;

	inl_copy(seg + sizeof(struct mlx5_wqe_inl_data_seg), (const uint8_t *)(uintptr_t)sge->addr,
		 len);
	((struct mlx5_wqe_inl_data_seg *)(void *)seg)->byte_count = htobe32(len | MLX5_INLINE_SEG);
	return inl_seg_ds(len);
}

/*
 * Inline data segment (rdma-core set_data_inl_seg): a 4-byte header with
 * the byte count and MLX5_INLINE_SEG, then the SGEs' bytes, those that
 * reach the SQ end continuing at its start. one: the caller saw one SGE
 * of 1..max_inline bytes that ends before the SQ end (set_data_inl_seg's
 * first branch), inl_seg_one. Returns the DS count, 0 when the SGEs carry no
 * byte (no segment, not even the header), or UINT32_MAX when they carry
 * more than max_inline (what was copied then is not posted).
 */
static __rte_always_inline uint32_t
inl_seg(const struct sq_ring *r, uint8_t *seg, const struct rdx_sge *sge, uint32_t num_sge,
	const bool one)
{
	struct mlx5_wqe_inl_data_seg *const hdr = (struct mlx5_wqe_inl_data_seg *)(void *)seg;
	uint8_t *dst = seg + sizeof(*hdr);
	uint32_t total = 0, j;

	if (one)
		return inl_seg_one(seg, sge);
	for (j = 0; j < num_sge; j++) {
		const uint8_t *src = (const uint8_t *)(uintptr_t)sge[j].addr;
		uint32_t len = sge[j].length;
		const uint32_t room = (uint32_t)(r->end - dst);

		total += len;
		if (unlikely(total > r->max_inline))
			return UINT32_MAX;
		if (unlikely(len >= room)) {
			inl_copy(dst, src, room);
			src += room;
			len -= room;
			dst = r->buf;
		}
		inl_copy(dst, src, len);
		dst += len;
	}
	if (unlikely(total == 0))
		return 0;
	hdr->byte_count = htobe32(total | MLX5_INLINE_SEG);
	return inl_seg_ds(total);
}

/* inl_seg of any SGE list, out of line. */
static __rte_noinline uint32_t
inl_seg_list(const struct sq_ring *r, uint8_t *seg, const struct rdx_sge *sge, uint32_t num_sge)
{
	return inl_seg(r, seg, sge, num_sge, false);
}

/* The inline data segment of the WR's SGEs (inl_seg): one SGE that fits
 * before the SQ end inline, any other list out of line. */
static __rte_always_inline uint32_t
set_data_inl_seg(const struct sq_ring *r, uint8_t *seg, const struct rdx_sge *sge,
		 uint32_t num_sge)
{
	const uint8_t *const dst = seg + sizeof(struct mlx5_wqe_inl_data_seg);

	if (likely(num_sge == 1 && sge->length - 1 < r->max_inline &&
		   sge->length < (uint32_t)(r->end - dst)))
		return inl_seg(r, seg, sge, 1, true);
	return inl_seg_list(r, seg, sge, num_sge);
}

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
