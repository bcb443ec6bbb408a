/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The WQE part of the self-check (mlx5_selfcheck.h): the shapes, the model
 * reference, the field-by-field comparison and the loop that posts each
 * shape through rdx's direct path on a QP in RESET.
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "mlx5_selfcheck.h"

/* ---------------------------------------------------------------------- */
/* The model reference: libmlx5's rules (providers/mlx5/qp.c), built from   */
/* the mlx5dv.h structures.                                                */

static uint8_t
ref_opcode(uint8_t op)
{
	switch (op) {
	case RDX_OP_SEND: return MLX5_OPCODE_SEND;
	case RDX_OP_SEND_IMM: return MLX5_OPCODE_SEND_IMM;
	case RDX_OP_WRITE: return MLX5_OPCODE_RDMA_WRITE;
	case RDX_OP_WRITE_IMM: return MLX5_OPCODE_RDMA_WRITE_IMM;
	case RDX_OP_READ: return MLX5_OPCODE_RDMA_READ;
	case RDX_OP_CAS: return MLX5_OPCODE_ATOMIC_CS;
	case RDX_OP_FAA: return MLX5_OPCODE_ATOMIC_FA;
	default: return MLX5_OPCODE_NOP;
	}
}

/* The payload goes inline: IBV_SEND_INLINE on a SEND or WRITE with SGEs
 * (libmlx5 reads the flag for those only). */
static bool
ref_is_inline(const struct rdx_wr *wr)
{
	return (wr->flags & RDX_WR_INLINE) && wr->num_sge != 0 &&
		(wr->opcode == RDX_OP_SEND || wr->opcode == RDX_OP_SEND_IMM ||
		 wr->opcode == RDX_OP_WRITE || wr->opcode == RDX_OP_WRITE_IMM);
}

static bool
ref_has_raddr(uint8_t op)
{
	return op == RDX_OP_WRITE || op == RDX_OP_WRITE_IMM || op == RDX_OP_READ ||
		op == RDX_OP_CAS || op == RDX_OP_FAA;
}

int
rdx_mlx5_sc_ref_model(void *ctx, const struct rdx_wr *wr, uint8_t *wqe)
{
	/* rdx_wr's UD fields share bytes with the RC ones: the caller says */
	const bool sc_ref_ud = ((const struct rdx_mlx5_sc_model *)ctx)->ud;
	struct mlx5_wqe_ctrl_seg *ctrl = (struct mlx5_wqe_ctrl_seg *)(void *)wqe;
	uint32_t len = sizeof(*ctrl), j, total = 0;
	uint8_t fm = 0;

	if (wr->opcode >= RDX_OP_MAX || wr->num_sge > RDX_MLX5_SC_MAX_SGE)
		return -EINVAL;
	if (wr->flags & RDX_WR_SIGNALED)
		fm |= MLX5_WQE_CTRL_CQ_UPDATE;
	if (wr->flags & RDX_WR_SOLICITED)
		fm |= MLX5_WQE_CTRL_SOLICITED;
	if (wr->flags & RDX_WR_FENCE)
		fm |= MLX5_WQE_CTRL_FENCE;
	if (wr->opcode == RDX_OP_NOP)
		goto ctrl;
	if (sc_ref_ud) {
		const struct rdx_mlx5_ah *ah = (const struct rdx_mlx5_ah *)(const void *)wr->ah;
		struct mlx5_wqe_datagram_seg d;

		/* set_datagram_seg: the AH's AV, then the WR's QPN and Q_Key */
		d.av = ah->av;
		d.av.dqp_dct = htobe32((wr->remote_qpn & 0xffffffu) | MLX5_EXTENDED_UD_AV);
		d.av.key.qkey.qkey = htobe32(wr->remote_qkey);
		memcpy(wqe + len, &d, sizeof(d));
		len += (uint32_t)sizeof(d);
	} else if (ref_has_raddr(wr->opcode)) {
		struct mlx5_wqe_raddr_seg r;

		r.raddr = htobe64(wr->remote_addr);
		r.rkey = htobe32(wr->rkey);
		r.reserved = 0;
		memcpy(wqe + len, &r, sizeof(r));
		len += (uint32_t)sizeof(r);
	}
	if (!sc_ref_ud && (wr->opcode == RDX_OP_CAS || wr->opcode == RDX_OP_FAA)) {
		struct mlx5_wqe_atomic_seg a;
		struct mlx5_wqe_data_seg d;

		if (wr->num_sge != 1)
			return -EINVAL;
		if (wr->opcode == RDX_OP_CAS) {
			a.swap_add = htobe64(wr->swap);
			a.compare = htobe64(wr->compare_add);
		} else {
			a.swap_add = htobe64(wr->compare_add);
			a.compare = 0;
		}
		memcpy(wqe + len, &a, sizeof(a));
		len += (uint32_t)sizeof(a);
		/* set_data_ptr_seg_atomic: always MLX5_ATOMIC_SIZE (8) bytes */
		mlx5dv_set_data_seg(&d, 8, wr->sge[0].lkey, (uintptr_t)wr->sge[0].addr);
		memcpy(wqe + len, &d, sizeof(d));
		len += (uint32_t)sizeof(d);
		goto ctrl;
	}
	if (ref_is_inline(wr)) {
		uint32_t hdr;

		for (j = 0; j < wr->num_sge; j++)
			total += wr->sge[j].length;
		if (total + 4 + len > RDX_MLX5_SC_WQE_MAX)
			return -EINVAL;
		/* set_data_inl_seg: no payload, no segment */
		if (total == 0)
			goto ctrl;
		hdr = htobe32(total | MLX5_INLINE_SEG);
		memcpy(wqe + len, &hdr, 4);
		total = 0;
		for (j = 0; j < wr->num_sge; j++) {
			memcpy(wqe + len + 4 + total, (const void *)(uintptr_t)wr->sge[j].addr,
			       wr->sge[j].length);
			total += wr->sge[j].length;
		}
		len += (4 + total + 15) & ~15u;
		goto ctrl;
	}
	/* set_data_ptr_seg for each SGE with a length */
	for (j = 0; j < wr->num_sge; j++) {
		struct mlx5_wqe_data_seg d;

		if (wr->sge[j].length == 0)
			continue;
		mlx5dv_set_data_seg(&d, wr->sge[j].length, wr->sge[j].lkey,
				    (uintptr_t)wr->sge[j].addr);
		memcpy(wqe + len, &d, sizeof(d));
		len += (uint32_t)sizeof(d);
	}
ctrl:
	mlx5dv_set_ctrl_seg(ctrl, 0, ref_opcode(wr->opcode), 0, 0, fm, (uint8_t)(len / 16), 0,
			    (wr->opcode == RDX_OP_SEND_IMM || wr->opcode == RDX_OP_WRITE_IMM) ?
			    wr->imm : 0);
	return (int)len;
}

/* ---------------------------------------------------------------------- */
/* Field-by-field comparison                                               */

struct sc_cmp {
	const uint8_t *rdx;
	const uint8_t *ref;
	struct rdx_mlx5_sc_diff *diff;
	uint32_t fields;
	bool differs;
};

static uint64_t
be_bytes(const uint8_t *p, uint32_t len)
{
	uint64_t v = 0;
	uint32_t k;

	for (k = 0; k < len && k < 8; k++)
		v = v << 8 | p[k];
	return v;
}

/* One field: bytes [off, off + len) of both WQEs. Fields over 8 bytes
 * (GIDs, inline data) name the first byte that differs. */
static void
sc_field(struct sc_cmp *c, const char *name, uint32_t off, uint32_t len)
{
	uint32_t k;

	if (off + len > RDX_MLX5_SC_WQE_MAX)
		len = off < RDX_MLX5_SC_WQE_MAX ? RDX_MLX5_SC_WQE_MAX - off : 0;
	c->fields++;
	if (c->differs || memcmp(c->rdx + off, c->ref + off, len) == 0)
		return;
	c->differs = true;
	if (c->diff == NULL)
		return;
	snprintf(c->diff->field, sizeof(c->diff->field), "%s", name);
	if (len <= 8) {
		c->diff->off = off;
		c->diff->rdx = be_bytes(c->rdx + off, len);
		c->diff->ref = be_bytes(c->ref + off, len);
		return;
	}
	for (k = 0; k < len && c->rdx[off + k] == c->ref[off + k]; k++)
		;
	snprintf(c->diff->field, sizeof(c->diff->field), "%s[%u]", name, k);
	c->diff->off = off + k;
	c->diff->rdx = c->rdx[off + k];
	c->diff->ref = c->ref[off + k];
}

uint32_t
rdx_mlx5_sc_wqe_cmp(const struct rdx_wr *wr, bool ud, const uint8_t *rdx,
		    const uint8_t *ref, uint32_t ref_len, struct rdx_mlx5_sc_diff *diff)
{
	struct sc_cmp c = { .rdx = rdx, .ref = ref, .diff = diff };
	uint32_t off = 16, j, total = 0;
	char name[32];

	if (diff != NULL)
		diff->field[0] = '\0';
	/* ctrl (PRM "Control Segment"): the WQE index (bytes 1-2), the QPN
	 * (4-6) and the signature (8) differ between two QPs: skipped */
	sc_field(&c, "ctrl.opmod", 0, 1);
	sc_field(&c, "ctrl.opcode", 3, 1);
	sc_field(&c, "ctrl.ds", 7, 1);
	sc_field(&c, "ctrl.rsvd", 9, 2);
	sc_field(&c, "ctrl.fm_ce_se", 11, 1);
	sc_field(&c, "ctrl.imm", 12, 4);
	if (wr->opcode == RDX_OP_NOP)
		goto tail;
	if (ud) {
		/* datagram segment: struct mlx5_wqe_av */
		sc_field(&c, "av.qkey", off, 4);
		sc_field(&c, "av.key_rsvd", off + 4, 4);
		sc_field(&c, "av.dqp_dct", off + 8, 4);
		sc_field(&c, "av.stat_rate_sl", off + 12, 1);
		sc_field(&c, "av.fl_mlid", off + 13, 1);
		sc_field(&c, "av.rlid", off + 14, 2);
		sc_field(&c, "av.rsvd0", off + 16, 4);
		sc_field(&c, "av.rmac", off + 20, 6);
		sc_field(&c, "av.tclass", off + 26, 1);
		sc_field(&c, "av.hop_limit", off + 27, 1);
		sc_field(&c, "av.grh_gid_fl", off + 28, 4);
		sc_field(&c, "av.rgid", off + 32, 16);
		off += 48;
	} else if (ref_has_raddr(wr->opcode)) {
		sc_field(&c, "raddr.raddr", off, 8);
		sc_field(&c, "raddr.rkey", off + 8, 4);
		sc_field(&c, "raddr.rsvd", off + 12, 4);
		off += 16;
	}
	if (!ud && (wr->opcode == RDX_OP_CAS || wr->opcode == RDX_OP_FAA)) {
		sc_field(&c, "atomic.swap_add", off, 8);
		sc_field(&c, "atomic.compare", off + 8, 8);
		sc_field(&c, "sge[0].byte_count", off + 16, 4);
		sc_field(&c, "sge[0].lkey", off + 20, 4);
		sc_field(&c, "sge[0].addr", off + 24, 8);
		off += 32;
		goto tail;
	}
	if (ref_is_inline(wr)) {
		for (j = 0; j < wr->num_sge; j++)
			total += wr->sge[j].length;
		if (total != 0) {
			sc_field(&c, "inline.byte_count", off, 4);
			sc_field(&c, "inline.data", off + 4, total);
			/* the padding to 16 bytes is written by neither */
			off += (4 + total + 15) & ~15u;
		}
		goto tail;
	}
	for (j = 0; j < wr->num_sge; j++) {
		if (wr->sge[j].length == 0)
			continue;
		snprintf(name, sizeof(name), "sge[%u].byte_count", j);
		sc_field(&c, name, off, 4);
		snprintf(name, sizeof(name), "sge[%u].lkey", j);
		sc_field(&c, name, off + 4, 4);
		snprintf(name, sizeof(name), "sge[%u].addr", j);
		sc_field(&c, name, off + 8, 8);
		off += 16;
	}
tail:
	/* whatever either WQE has past the layout (ctrl.ds differs then) */
	if (ref_len > off)
		off = ref_len;
	if (off < RDX_MLX5_SC_WQE_MAX)
		sc_field(&c, "past_end", off, RDX_MLX5_SC_WQE_MAX - off);
	return c.fields;
}

/* ---------------------------------------------------------------------- */
/* The loop                                                                */

struct sc_run {
	struct rdx_qp *qp;
	struct rdx_mlx5_qp *mqp;
	const struct rdx_mlx5_sc_wqe_conf *conf;
	rdx_mlx5_sc_ref_fn ref;
	void *ref_ctx;
	struct rdx_mlx5_sc_wqe_report *rep;
	bool ud;
	uint32_t seq;
	uint8_t got[RDX_MLX5_SC_WQE_MAX];
	uint8_t want[RDX_MLX5_SC_WQE_MAX];
};

/*
 * Put the next WQE at WQEBB pos of the ring (a QP in RESET: the device reads
 * nothing, so the WQEs before are retired by hand, as if completed): the
 * producer moves on to the next lap of the ring, plus pos.
 */
static void
sc_park(struct rdx_mlx5_qp *q, uint32_t pos)
{
	const uint32_t lap = (q->sq_cur_post + q->sq_wqe_cnt) & ~(q->sq_wqe_cnt - 1);

	q->sq_tail = q->sq_head;
	q->sq_unsignaled = 0;
	q->sq_cur_post = lap + pos;
	q->sq_tail_bb = (uint16_t)q->sq_cur_post;
}

/* Copy the WQE at WQEBB counter bb out of the ring (it may wrap); its
 * length (DS x 16) or 0. */
static uint32_t
sc_read(const struct rdx_mlx5_qp *q, uint32_t bb, uint8_t *out)
{
	const uint32_t ring = q->sq_wqe_cnt * 64u;
	const uint32_t start = (bb & q->sq_mask) * 64u;
	uint32_t len, k;

	len = (uint32_t)(q->sq_buf[start + 7] & 0x3f) * 16u;
	if (len == 0)
		len = 16;
	memset(out, 0, RDX_MLX5_SC_WQE_MAX);
	for (k = 0; k < len; k++)
		out[k] = q->sq_buf[(start + k) % ring];
	return len;
}

static void
sc_fail(struct sc_run *r, const char *shape, const char *field, uint32_t off,
	uint64_t rdxv, uint64_t refv)
{
	struct rdx_mlx5_sc_diff *d;

	r->rep->failed++;
	if (r->rep->nb_diffs >= RDX_MLX5_SC_DIFFS)
		return;
	d = &r->rep->diffs[r->rep->nb_diffs++];
	snprintf(d->shape, sizeof(d->shape), "%s", shape);
	snprintf(d->field, sizeof(d->field), "%s", field);
	d->off = off;
	d->rdx = rdxv;
	d->ref = refv;
}

/* One WR at WQEBB pos: 0 = compared (pass or fail counted), 1 = a WQE of
 * several WQEBBs (worth a wrap), -1 = skipped. */
static int
sc_one_at(struct sc_run *r, const struct rdx_wr *wr, const char *name, uint32_t pos)
{
	struct rdx_mlx5_sc_diff d;
	char shape[64];
	uint32_t bb, len;
	int ref_len;

	snprintf(shape, sizeof(shape), "%s%s", name, pos != 0 ? " wrap" : "");
	sc_park(r->mqp, pos);
	bb = r->mqp->sq_cur_post;
	r->rep->shapes++;
	if (rdx_qp_post_burst(r->qp, wr, 1) != 1) {
		sc_fail(r, shape, "post_refused", 0, 0, 0);
		return 0;
	}
	len = sc_read(r->mqp, bb, r->got);
	if (r->conf->inject_byte >= 0 && (uint32_t)r->conf->inject_byte < len)
		r->got[r->conf->inject_byte] ^= 0x5a;
	memset(r->want, 0, sizeof(r->want));
	ref_len = r->ref(r->ref_ctx, wr, r->want);
	if (ref_len == -ENOTSUP) {
		r->rep->shapes--;
		r->rep->skipped++;
		return -1;
	}
	if (ref_len < 0) {
		sc_fail(r, shape, "reference_refused", 0, 0, (uint64_t)-ref_len);
		return 0;
	}
	r->rep->fields += rdx_mlx5_sc_wqe_cmp(wr, r->ud, r->got, r->want, (uint32_t)ref_len, &d);
	if (d.field[0] != '\0')
		sc_fail(r, shape, d.field, d.off, d.rdx, d.ref);
	else
		r->rep->passed++;
	return len > 64 ? 1 : 0;
}

/* One WR at the start of the ring, and again across its end when it has
 * more than one WQEBB. */
static void
sc_one(struct sc_run *r, struct rdx_wr *wr)
{
	char name[64];
	const char *op = rdx_op_name((enum rdx_op)wr->opcode);
	uint32_t j, total = 0;
	int n;

	for (j = 0; j < wr->num_sge; j++)
		total += wr->sge[j].length;
	n = snprintf(name, sizeof(name), "%s%s", r->ud ? "UD " : "", op);
	if (wr->opcode != RDX_OP_NOP && wr->opcode != RDX_OP_CAS && wr->opcode != RDX_OP_FAA)
		n += (wr->flags & RDX_WR_INLINE) ?
			snprintf(name + n, sizeof(name) - (size_t)n, " inline=%u", total) :
			snprintf(name + n, sizeof(name) - (size_t)n, " sge=%u len=%u",
				 wr->num_sge, total);
	snprintf(name + n, sizeof(name) - (size_t)n, "%s%s%s",
		 (wr->flags & RDX_WR_SIGNALED) ? " sig" : "",
		 (wr->flags & RDX_WR_FENCE) ? " fence" : "",
		 (wr->flags & RDX_WR_SOLICITED) ? " se" : "");
	wr->wr_id = ++r->seq;
	if (sc_one_at(r, wr, name, 0) == 1)
		sc_one_at(r, wr, name, r->mqp->sq_wqe_cnt - 1);
}

/* A WR of opcode op with n SGEs of the payload buffer (lengths 8 * (j + 1),
 * the first zero when zero_first), or inline bytes of it. */
static void
sc_wr(struct sc_run *r, struct rdx_wr *wr, struct rdx_sge *sge, uint8_t op, uint32_t n,
      uint32_t inl, bool inline_wr, uint8_t flags)
{
	const struct rdx_mlx5_sc_wqe_conf *c = r->conf;
	uint32_t j;

	memset(wr, 0, sizeof(*wr));
	memset(sge, 0, sizeof(*sge) * RDX_MLX5_SC_MAX_SGE);
	wr->opcode = op;
	wr->flags = flags;
	wr->sge = sge;
	if (inline_wr) {
		wr->flags |= RDX_WR_INLINE;
		wr->num_sge = 1;
		/* inline data is read through its host address */
		sge[0].addr = (uintptr_t)c->payload + (r->seq % 8);
		sge[0].length = inl;
		sge[0].lkey = c->lkey;
	} else {
		wr->num_sge = (uint8_t)n;
		/* UD: short enough for the message limit (rdx turns a longer
		 * one into a NOP that completes with a length error) */
		for (j = 0; j < n; j++) {
			sge[j].addr = c->laddr + 8u * j;
			sge[j].length = r->ud ? j + 1 : RTE_MIN(8u * (j + 1), c->payload_len - 8u * j);
			sge[j].lkey = c->lkey;
		}
	}
	if (r->ud) {
		wr->ah = c->ah;
		wr->remote_qpn = c->remote_qpn;
		wr->remote_qkey = c->remote_qkey;
	} else {
		wr->remote_addr = c->raddr + 64u * (r->seq % 16);
		wr->rkey = c->rkey;
		wr->compare_add = 0x0102030405060708ull + r->seq;
		wr->swap = 0x1112131415161718ull ^ r->seq;
	}
	if (op == RDX_OP_SEND_IMM || op == RDX_OP_WRITE_IMM)
		wr->imm = htobe32(0xa5000000u | (r->seq & 0xffffffu));
}

static void
sc_shapes(struct sc_run *r)
{
	static const uint8_t pay_ops[] = { RDX_OP_SEND, RDX_OP_SEND_IMM, RDX_OP_WRITE,
					   RDX_OP_WRITE_IMM };
	static const uint8_t flag_sets[] = { 0, RDX_WR_SIGNALED, RDX_WR_FENCE,
					     RDX_WR_SOLICITED,
					     RDX_WR_SIGNALED | RDX_WR_FENCE | RDX_WR_SOLICITED };
	const struct rdx_mlx5_sc_wqe_conf *c = r->conf;
	struct rdx_sge sge[RDX_MLX5_SC_MAX_SGE];
	struct rdx_wr wr;
	uint32_t max_inl = c->max_inline, max_sge = RTE_MIN(c->max_send_sge, RDX_MLX5_SC_MAX_SGE);
	uint32_t i, k, len, nops = r->ud ? 2 : RTE_DIM(pay_ops);

	if (r->ud)
		max_inl = RTE_MIN(max_inl, c->max_ud_msg);
	max_inl = RTE_MIN(max_inl, c->payload_len - 8);
	max_sge = RTE_MIN(max_sge, c->payload_len / 16);
	/* every inline size, signaled every other one */
	for (i = 0; i < nops; i++)
		for (len = 0; len <= max_inl; len++) {
			sc_wr(r, &wr, sge, pay_ops[i], 1, len, true,
			      (len & 1) ? RDX_WR_SIGNALED : 0);
			sc_one(r, &wr);
		}
	/* gather lists of 1..max SGEs, and one with a zero-length SGE */
	for (i = 0; i < nops + (r->ud ? 0 : 1); i++) {
		const uint8_t op = i < nops ? pay_ops[i] : RDX_OP_READ;

		for (k = 1; k <= max_sge; k++) {
			sc_wr(r, &wr, sge, op, k, 0, false, (k & 1) ? 0 : RDX_WR_SIGNALED);
			sc_one(r, &wr);
		}
		if (max_sge >= 2) {
			sc_wr(r, &wr, sge, op, 2, 0, false, RDX_WR_SIGNALED);
			sge[0].length = 0;
			sc_one(r, &wr);
		}
	}
	/* atomics (RC) */
	if (!r->ud)
		for (k = 0; k < 2; k++) {
			sc_wr(r, &wr, sge, RDX_OP_CAS, 1, 0, false, k ? RDX_WR_SIGNALED : 0);
			sc_one(r, &wr);
			sc_wr(r, &wr, sge, RDX_OP_FAA, 1, 0, false, k ? RDX_WR_SIGNALED : 0);
			sc_one(r, &wr);
		}
	/* the flags on each opcode */
	for (i = 0; i < RTE_DIM(flag_sets); i++)
		for (k = RDX_OP_NOP; k < RDX_OP_MAX; k++) {
			if (r->ud && k != RDX_OP_NOP && k != RDX_OP_SEND && k != RDX_OP_SEND_IMM)
				continue;
			sc_wr(r, &wr, sge, (uint8_t)k, k == RDX_OP_NOP ? 0 : 1, 0, false,
			      flag_sets[i]);
			if (k == RDX_OP_NOP)
				wr.num_sge = 0;
			sc_one(r, &wr);
			if (k == RDX_OP_SEND || k == RDX_OP_WRITE) {
				sc_wr(r, &wr, sge, (uint8_t)k, 1, RTE_MIN(max_inl, 12u), true,
				      flag_sets[i]);
				sc_one(r, &wr);
			}
		}
}

int
rdx_mlx5_sc_wqe_check(struct rdx_qp *qp, const struct rdx_mlx5_sc_wqe_conf *conf,
		      rdx_mlx5_sc_ref_fn ref, void *ref_ctx,
		      struct rdx_mlx5_sc_wqe_report *rep)
{
	struct sc_run *r;
	const char *drv;

	if (rep == NULL)
		return -EINVAL;
	memset(rep, 0, sizeof(*rep));
	if (qp == NULL || conf == NULL || ref == NULL) {
		snprintf(rep->error, sizeof(rep->error), "no QP, configuration or reference");
		return -EINVAL;
	}
	drv = rdx_dev_attr_get(qp->dev)->driver;
	if (strcmp(drv, "mlx5") != 0 && strcmp(drv, "sw") != 0) {
		snprintf(rep->error, sizeof(rep->error), "needs an mlx5 device (driver %s)", drv);
		return -ENOTSUP;
	}
	if (conf->payload == NULL || conf->payload_len < 16 ||
	    (conf->max_ud_msg != 0 && conf->ah == NULL) || qp->conf.sig_interval < 2 ||
	    qp->conf.sq_depth < 2) {
		snprintf(rep->error, sizeof(rep->error),
			 "bad configuration (payload, AH, sig_interval >= 2, sq_depth >= 2)");
		return -EINVAL;
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL) {
		snprintf(rep->error, sizeof(rep->error), "no memory");
		return -ENOMEM;
	}
	r->qp = qp;
	r->mqp = (struct rdx_mlx5_qp *)qp;
	r->conf = conf;
	r->ref = ref;
	r->ref_ctx = ref_ctx;
	r->rep = rep;
	r->ud = conf->max_ud_msg != 0;
	sc_shapes(r);
	/* leave the ring as empty as it was found */
	sc_park(r->mqp, 0);
	free(r);
	return 0;
}
