/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Random bursts (drivers/mlx5/mlx5_qp.c, mlx5_qp_vec.h) against an
 * independent reference on the fake device of mlx5_ut_fake.h: every WQE
 * the vector runs and the scalar post loop write is compared byte for
 * byte with one built here from the WR. Each burst sequence runs twice,
 * through the QP's own op (vector runs, then the scalar loop) and through
 * the scalar loop alone.
 */
#include "mlx5_ut_fake.h"

/*
 * Random bursts against an independent reference: shapes the run loops take
 * (8-byte inline WRITE/SEND; one-SGE WRITE, SEND, READ, CAS, FAA; signaled
 * or not) mixed with ones they hand to the general loop (9..16 and 40-byte
 * inline, FENCE, SEND_IMM, zero-length SGEs, two SGEs, INLINE on a READ),
 * bursts made mostly of inline WRs of one length (the one-length runs),
 * on rings large enough for runs to cross the WQE index's low byte (256)
 * and small ones that wrap often; 2-WQEBB WQEs shift the wr_id slots
 * (by ordinal) against the ring slots (by WQEBB). After every burst each
 * posted WQE is compared byte for byte with one built here, the signaled
 * set with the rule (flag, every sig_interval-th, the last free slot, burst
 * end), the doorbell record and the count; the fake device then completes
 * up to the newest signaled WQE and every retired wr_id is checked.
 */
struct ref_wqe {
	uint8_t bytes[320];
	uint32_t len;                   /* DS * 16 */
	uint32_t cmp_len;               /* bytes that matter (inline padding is not written) */
	uint32_t bb;
	uint64_t wr_id;
	bool signaled;
	bool lenerr;                    /* UD: a NOP standing for a too long SEND */
	uint8_t opcode;
};

/* WQEBBs of a reference WQE. */
static uint32_t
ref_nbb(const struct ref_wqe *r)
{
	return (r->len + 63) / 64;
}

static uint64_t
xs64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The data segments of a gather/scatter list, zero-length SGEs skipped. */
static uint32_t
exp_gather(uint8_t *w, const struct rdx_wr *wr)
{
	uint32_t j, n = 0;

	for (j = 0; j < wr->num_sge; j++)
		if (wr->sge[j].length != 0)
			n += exp_data(w + n, wr->sge[j].length, wr->sge[j].lkey, wr->sge[j].addr);
	return n;
}

/*
 * A random WR (shape k) and its expected WQE at WQEBB bb (without fm_ce_se).
 * fix, when not 0, makes three WRs in four inline ones of one length and
 * opcode (fix & 0xffff bytes; a SEND when bit 16 is set): runs of one
 * length.
 */
static void
rand_wr(uint64_t *seed, struct rdx_wr *wr, struct rdx_sge *sge, struct ref_wqe *r,
	uint32_t bb, uint32_t max_inline, uint32_t max_send_sge, uint32_t fix)
{
	const bool fixed = fix != 0 && xs64(seed) % 4 != 0;
	const uint32_t k = fixed ? 19 : (uint32_t)(xs64(seed) % 26);
	const uint32_t off = (uint32_t)(xs64(seed) % 256);
	uint32_t len, ds;
	uint8_t op;

	memset(wr, 0, sizeof(*wr));
	memset(r, 0, sizeof(*r));
	wr->sge = sge;
	wr->num_sge = 1;
	wr->remote_addr = xs64(seed);
	wr->rkey = (uint32_t)xs64(seed);
	wr->wr_id = xs64(seed);
	wr->flags = RDX_WR_INLINE;
	sge->addr = (uintptr_t)(pay + off);
	sge->length = 8;
	sge->lkey = (uint32_t)xs64(seed);
	if (k < 10) {                   /* 8-byte inline WRITE: run loop */
		wr->opcode = RDX_OP_WRITE;
	} else if (k < 12) {            /* 8-byte inline SEND: run loop */
		wr->opcode = RDX_OP_SEND;
	} else if (k == 12) {           /* 9..16 bytes: hand-over */
		wr->opcode = (xs64(seed) & 1) ? RDX_OP_WRITE : RDX_OP_SEND;
		sge->length = 9 + (uint32_t)(xs64(seed) % 8);
	} else if (k == 13 && max_inline >= 40) { /* 2 WQEBBs */
		wr->opcode = RDX_OP_WRITE;
		sge->length = 40;
	} else if (k == 19 && fixed) {  /* a run of one length */
		wr->opcode = (fix >> 16) ? RDX_OP_SEND : RDX_OP_WRITE;
		sge->length = fix & 0xffff;
	} else if (k == 19) {           /* any inline length, wrapping */
		wr->opcode = (xs64(seed) & 1) ? RDX_OP_WRITE : RDX_OP_SEND;
		sge->length = 1 + (uint32_t)(xs64(seed) % max_inline);
	} else if (k == 14) {
		wr->opcode = RDX_OP_WRITE;
		wr->flags |= RDX_WR_FENCE;
	} else if (k == 15) {
		wr->opcode = RDX_OP_READ;
		wr->flags = 0;
	} else if (k == 16) {
		wr->opcode = RDX_OP_FAA;
		wr->flags = 0;
		wr->compare_add = xs64(seed);
	} else if (k == 17) {
		wr->opcode = RDX_OP_SEND_IMM;
		wr->imm = (uint32_t)xs64(seed);
	} else if (k == 20 || k == 21) { /* one SGE, not inline: run loops */
		wr->opcode = k == 20 ? RDX_OP_WRITE : RDX_OP_SEND;
		wr->flags = 0;
		sge->addr = xs64(seed);
		/* a zero-length SGE is skipped (general loop) */
		sge->length = (xs64(seed) % 5 == 0) ? 0 : (uint32_t)xs64(seed);
	} else if (k == 22) {           /* CAS: run loop */
		wr->opcode = RDX_OP_CAS;
		wr->flags = 0;
		wr->compare_add = xs64(seed);
		wr->swap = xs64(seed);
	} else if (k == 23) {           /* READ, zero length or INLINE set: general */
		wr->opcode = RDX_OP_READ;
		wr->flags = (xs64(seed) & 1) ? RDX_WR_INLINE : 0;
		sge->length = (wr->flags != 0) ? 8 + (uint32_t)(xs64(seed) % 100) : 0;
	} else if (k == 24 && max_send_sge >= 2) { /* two SGEs: general */
		wr->opcode = (xs64(seed) & 1) ? RDX_OP_READ : RDX_OP_WRITE;
		wr->flags = 0;
		wr->num_sge = 2;
		sge[1].addr = xs64(seed);
		sge[1].length = 1 + (uint32_t)(xs64(seed) % 100);
		sge[1].lkey = (uint32_t)xs64(seed);
	} else if (k == 25) {           /* READ of any length: run loop */
		wr->opcode = RDX_OP_READ;
		wr->flags = 0;
		sge->length = 1 + (uint32_t)(xs64(seed) % 65536);
	} else {
		wr->opcode = RDX_OP_WRITE;
	}
	if (xs64(seed) % 8 == 0)
		wr->flags |= RDX_WR_SIGNALED;

	len = sge->length;
	r->bb = bb;
	r->wr_id = wr->wr_id;
	r->signaled = (wr->flags & RDX_WR_SIGNALED) != 0;
	switch (wr->opcode) {
	case RDX_OP_READ:
		op = MLX5_OPCODE_RDMA_READ;
		r->len = 16 + exp_raddr(r->bytes + 16, wr->remote_addr, wr->rkey);
		r->len += exp_gather(r->bytes + r->len, wr);
		break;
	case RDX_OP_CAS: {
		struct mlx5_wqe_atomic_seg a = { .swap_add = htobe64(wr->swap),
						 .compare = htobe64(wr->compare_add) };

		op = MLX5_OPCODE_ATOMIC_CS;
		r->len = 16 + exp_raddr(r->bytes + 16, wr->remote_addr, wr->rkey);
		memcpy(r->bytes + r->len, &a, sizeof(a));
		r->len += 16;
		r->len += exp_data(r->bytes + r->len, len, sge->lkey, sge->addr);
		break;
	}
	case RDX_OP_FAA: {
		struct mlx5_wqe_atomic_seg a = { .swap_add = htobe64(wr->compare_add) };

		op = MLX5_OPCODE_ATOMIC_FA;
		r->len = 16 + exp_raddr(r->bytes + 16, wr->remote_addr, wr->rkey);
		memcpy(r->bytes + r->len, &a, sizeof(a));
		r->len += 16;
		r->len += exp_data(r->bytes + r->len, len, sge->lkey, sge->addr);
		break;
	}
	case RDX_OP_SEND:
	case RDX_OP_SEND_IMM:
		op = wr->opcode == RDX_OP_SEND ? MLX5_OPCODE_SEND : MLX5_OPCODE_SEND_IMM;
		if (!(wr->flags & RDX_WR_INLINE)) {
			r->len = 16 + exp_gather(r->bytes + 16, wr);
			break;
		}
		r->len = 16 + exp_inline(r->bytes + 16, pay + off, len);
		r->cmp_len = 16 + 4 + len;
		break;
	default:
		op = MLX5_OPCODE_RDMA_WRITE;
		r->len = 16 + exp_raddr(r->bytes + 16, wr->remote_addr, wr->rkey);
		if (!(wr->flags & RDX_WR_INLINE)) {
			r->len += exp_gather(r->bytes + r->len, wr);
			break;
		}
		r->len += exp_inline(r->bytes + r->len, pay + off, len);
		r->cmp_len = 32 + 4 + len;
		break;
	}
	if (r->cmp_len == 0)
		r->cmp_len = r->len;
	r->opcode = op;
	ds = r->len / 16;
	exp_ctrl(r->bytes, (uint16_t)bb, op, (uint8_t)ds,
		 (wr->flags & RDX_WR_FENCE) ? MLX5_WQE_CTRL_FENCE : 0,
		 wr->opcode == RDX_OP_SEND_IMM ? wr->imm : 0);
}

/*
 * A random UD WR and its expected WQE: 8-byte inline SENDs mostly, longer
 * inline SEND/SEND_IMM, gather lists up to the MTU, gather lists one byte
 * or more above it (a NOP, always signaled), NOPs; FENCE/SOLICITED now and
 * then. The destination is one of four most of the time (runs to one
 * destination), else a random QPN and Q_Key.
 */
static struct rdx_mlx5_ah ud_ahs[2];

static void
rand_wr_ud(uint64_t *seed, struct rdx_wr *wr, struct rdx_sge *sge, struct ref_wqe *r,
	   uint32_t bb, uint32_t max_inline, uint32_t max_send_sge)
{
	const uint32_t k = (uint32_t)(xs64(seed) % 20);
	const uint32_t off = (uint32_t)(xs64(seed) % 256);
	/* Four destinations (two AHs x two QPN/Q_Key pairs) most of the time,
	 * so runs to one destination are common; a random QPN and Q_Key now
	 * and then. */
	static const uint32_t dqpn[2] = { 0xff123456u, 0x00abcdefu };
	static const uint32_t dqkey[2] = { 0x11111111u, 0x80010002u };
	const uint32_t dest = (uint32_t)(xs64(seed) % 10);
	const struct rdx_mlx5_ah *ah = &ud_ahs[dest & 1];
	uint32_t j, total = 0;
	uint8_t op, fm = 0;

	memset(wr, 0, sizeof(*wr));
	memset(r, 0, sizeof(*r));
	wr->sge = sge;
	wr->num_sge = 1;
	wr->ah = &ah->base;
	/* bits 31..24 of the QPN must be dropped */
	wr->remote_qpn = dest < 8 ? dqpn[(dest >> 1) & 1] : (uint32_t)xs64(seed);
	wr->remote_qkey = dest < 8 ? dqkey[(dest >> 2) & 1] : (uint32_t)xs64(seed);
	wr->wr_id = xs64(seed);
	wr->opcode = RDX_OP_SEND;
	wr->flags = RDX_WR_INLINE;
	sge->addr = (uintptr_t)(pay + off);
	sge->length = 8;
	sge->lkey = (uint32_t)xs64(seed);
	if (k < 12) {
		/* 8-byte inline SEND */
	} else if (k == 12 || k == 13) {
		sge->length = 1 + (uint32_t)(xs64(seed) % max_inline);
		if (k == 13) {
			wr->opcode = RDX_OP_SEND_IMM;
			wr->imm = (uint32_t)xs64(seed);
		}
	} else if (k == 14 || k == 15 || k == 16) {
		/* gather list: within the MTU (14, 15) or above it (16) */
		wr->flags = 0;
		wr->num_sge = (uint8_t)(1 + xs64(seed) % max_send_sge);
		for (j = 0; j < wr->num_sge; j++) {
			sge[j].addr = xs64(seed);
			sge[j].lkey = (uint32_t)xs64(seed);
			sge[j].length = (uint32_t)(xs64(seed) % (UD_MTU / wr->num_sge + 1));
			total += sge[j].length;
		}
		if (k == 16)
			sge[0].length += UD_MTU + 1 - total;
	} else if (k == 17) {
		wr->opcode = RDX_OP_NOP;
		wr->num_sge = 0;
		wr->flags = 0;
	} else {
		wr->flags |= (k == 18) ? RDX_WR_FENCE : RDX_WR_SOLICITED;
	}
	if (xs64(seed) % 8 == 0)
		wr->flags |= RDX_WR_SIGNALED;
	if (wr->flags & RDX_WR_FENCE)
		fm |= MLX5_WQE_CTRL_FENCE;
	if (wr->flags & RDX_WR_SOLICITED)
		fm |= MLX5_WQE_CTRL_SOLICITED;

	r->bb = bb;
	r->wr_id = wr->wr_id;
	r->signaled = (wr->flags & RDX_WR_SIGNALED) != 0;
	total = 0;
	for (j = 0; j < wr->num_sge; j++)
		total += sge[j].length;
	if (wr->opcode == RDX_OP_NOP || total > UD_MTU) {
		op = MLX5_OPCODE_NOP;
		r->len = 16;
		r->lenerr = wr->opcode != RDX_OP_NOP;
		r->signaled |= r->lenerr;
		exp_ctrl(r->bytes, (uint16_t)bb, op, 1, fm, 0);
	} else {
		op = wr->opcode == RDX_OP_SEND ? MLX5_OPCODE_SEND : MLX5_OPCODE_SEND_IMM;
		r->len = 16 + exp_dgram(r->bytes + 16, &ah->av, wr->remote_qpn & 0xffffff,
					wr->remote_qkey);
		if (wr->flags & RDX_WR_INLINE) {
			r->len += exp_inline(r->bytes + r->len, pay + off, sge->length);
			r->cmp_len = 64 + 4 + sge->length;
		} else {
			for (j = 0; j < wr->num_sge; j++)
				if (sge[j].length != 0)
					r->len += exp_data(r->bytes + r->len, sge[j].length,
							   sge[j].lkey, sge[j].addr);
		}
		exp_ctrl(r->bytes, (uint16_t)bb, op, (uint8_t)(r->len / 16), fm,
			 wr->opcode == RDX_OP_SEND_IMM ? wr->imm : 0);
	}
	if (r->cmp_len == 0)
		r->cmp_len = r->len;
	r->opcode = op;
}

static void
random_bursts_path(uint32_t sq_bb, uint32_t max_inline, uint32_t max_send_sge,
		   uint16_t sig_interval, bool burst_end, uint64_t seed, uint32_t bursts, bool ud,
		   bool scalar)
{
	struct qp_opts o = default_opts;
	static struct ref_wqe ref[1024];        /* by ordinal & (sq_bb - 1) */
	static struct rdx_wr wr[48];
	static struct rdx_sge sge[48][4];
	static struct ref_wqe rw[48];
	uint32_t head = 0, tail = 0, bb = 0, unsig = 0, max_post, b, i;
	uint32_t last_sig = UINT32_MAX;         /* newest signaled, not completed */
	int bad = 0;

	o.sq_bb = sq_bb;
	o.max_inline = max_inline;
	o.max_send_sge = max_send_sge;
	o.sig_interval = sig_interval;
	o.sig_burst_end = burst_end;
	o.cqe_cnt = 64;
	o.ud = ud;
	fake_setup(&o);
	/* the scalar post loop alone, or the QP's own op (vector runs first) */
	if (scalar)
		f->qp.base.post_burst = ud ? rdx_mlx5_post_burst_ud_scalar :
			rdx_mlx5_post_burst_scalar;
	else
		CU_ASSERT(f->qp.base.post_burst == (ud ? rdx_mlx5_post_burst_ud :
						    rdx_mlx5_post_burst));
	fake_ah(&ud_ahs[0], 1);
	fake_ah(&ud_ahs[1], 2);
	max_post = f->qp.sq_max_post;
	for (b = 0; b < bursts && !bad; b++) {
		const uint32_t n = 1 + (uint32_t)(xs64(&seed) % 40);
		const uint32_t room = max_post - (head - tail);
		const uint32_t want = RTE_MIN(n, room);
		/* one burst in three: runs of one inline length */
		const uint32_t fix = xs64(&seed) % 3 != 0 ? 0 :
			(1 + (uint32_t)(xs64(&seed) % max_inline)) |
			(uint32_t)(xs64(&seed) & 1) << 16;
		uint32_t got, pbb = bb;

		for (i = 0; i < n; i++) {
			if (ud)
				rand_wr_ud(&seed, &wr[i], sge[i], &rw[i], pbb, max_inline,
					   max_send_sge);
			else
				rand_wr(&seed, &wr[i], sge[i], &rw[i], pbb, max_inline, max_send_sge,
					fix);
			pbb += ref_nbb(&rw[i]);
		}
		got = rdx_qp_post_burst(qp(), wr, (uint16_t)n);
		if (got != want) {
			fprintf(stderr, "burst %u: posted %u of %u, expected %u\n", b, got, n, want);
			bad = 1;
			break;
		}
		/* The reference signaling rule, then the bytes. */
		for (i = 0; i < got; i++) {
			struct ref_wqe *r = &rw[i];

			if (unsig == sig_interval - 1u || head == tail + max_post - 1)
				r->signaled = true;
			if (i == got - 1 && burst_end)
				r->signaled = true;
			if (r->signaled) {
				r->bytes[11] |= MLX5_WQE_CTRL_CQ_UPDATE;
				unsig = 0;
				last_sig = head;
			} else {
				unsig++;
			}
			if (sq_cmp(r->bb, r->bytes, r->cmp_len) != 0) {
				fprintf(stderr, "burst %u WR %u (ordinal %u, op 0x%x, bb %u) differs\n",
					b, i, head, r->opcode, r->bb);
				bad = 1;
			}
			ref[head & (sq_bb - 1)] = *r;
			bb = r->bb + ref_nbb(r);
			head++;
		}
		if (got != 0 && (be32toh(f->dbrec[MLX5_SND_DBR]) != (bb & 0xffff) ||
				 f->qp.sq_cur_post != bb || f->qp.sq_head != head ||
				 f->qp.sq_unsignaled != unsig)) {
			fprintf(stderr, "burst %u: counters differ\n", b);
			bad = 1;
		}
		/* UD: each signaled WQE gets its own CQE (a too long SEND's
		 * NOP must report LOC_LEN_ERR), oldest first. */
		if (ud && last_sig != UINT32_MAX && xs64(&seed) % 3 != 0) {
			uint32_t o2;

			for (o2 = tail; o2 != last_sig + 1 && !bad; o2++) {
				const struct ref_wqe *s = &ref[o2 & (sq_bb - 1)];
				struct rdx_wc wc[2];

				if (!s->signaled)
					continue;
				cqe_req(QPN, (uint16_t)s->bb, s->opcode, 0);
				if (rdx_cq_poll_burst(cq(), wc, 2) != 1 ||
				    wc[0].status != (s->lenerr ? IBV_WC_LOC_LEN_ERR : 0) ||
				    wc[0].retired != o2 - tail + 1 || wc[0].wr_id != s->wr_id ||
				    (s->lenerr && wc[0].opcode != RDX_WC_SEND)) {
					fprintf(stderr, "burst %u: bad UD completion (ordinal %u, status %u)\n",
						b, o2, wc[0].status);
					bad = 1;
					break;
				}
				for (i = 0; i < wc[0].retired; i++)
					if (rdx_mlx5_qp_retired_wr_id(qp(), &wc[0], (uint16_t)i) !=
					    ref[(tail + i) & (sq_bb - 1)].wr_id)
						bad = 1;
				tail = o2 + 1;
			}
			last_sig = UINT32_MAX;
		}
		/* Complete up to the newest signaled WQE, now or later. */
		if (!ud && last_sig != UINT32_MAX && xs64(&seed) % 3 != 0) {
			const struct ref_wqe *s = &ref[last_sig & (sq_bb - 1)];
			struct rdx_wc wc[4];

			cqe_req(QPN, (uint16_t)s->bb, s->opcode, 0);
			if (rdx_cq_poll_burst(cq(), wc, 4) != 1 || wc[0].status != 0 ||
			    wc[0].retired != last_sig - tail + 1 || wc[0].wr_id != s->wr_id) {
				fprintf(stderr, "burst %u: bad completion\n", b);
				bad = 1;
				break;
			}
			for (i = 0; i < wc[0].retired; i++)
				if (rdx_mlx5_qp_retired_wr_id(qp(), &wc[0], (uint16_t)i) !=
				    ref[(tail + i) & (sq_bb - 1)].wr_id) {
					fprintf(stderr, "burst %u: retired wr_id %u differs\n", b, i);
					bad = 1;
				}
			tail = last_sig + 1;
			last_sig = UINT32_MAX;
		}
	}
	CU_ASSERT(bad == 0);
	CU_ASSERT(head > 4 * sq_bb);    /* the ring wrapped several times */
	fake_teardown();
}

/* The same bursts (the same seed) through both paths: each WQE of either
 * must be the reference's. */
static void
random_bursts(uint32_t sq_bb, uint32_t max_inline, uint32_t max_send_sge,
	      uint16_t sig_interval, bool burst_end, uint64_t seed, uint32_t bursts, bool ud)
{
	random_bursts_path(sq_bb, max_inline, max_send_sge, sig_interval, burst_end, seed, bursts,
			   ud, false);
	random_bursts_path(sq_bb, max_inline, max_send_sge, sig_interval, burst_end, seed, bursts,
			   ud, true);
}

static void
test_random_bursts(void)
{
	/* the benchmark's QP: every WQE one WQEBB, runs up to 256 WQEs */
	random_bursts(1024, 28, 1, 32, false, 0x1234567887654321ull, 3000, false);
	/* 2-WQEBB WQEs: ring and wr_id slots apart; idx low byte carries */
	random_bursts(512, 64, 4, 7, false, 0x9e3779b97f4a7c15ull, 3000, false);
	/* small ring, signal every WQE at burst end, short counts */
	random_bursts(16, 64, 4, 5, true, 0xdeadbeefcafef00dull, 3000, false);
	random_bursts(64, 28, 1, 1, false, 0x0123456789abcdefull, 3000, false);
	random_bursts(256, 64, 4, 300, false, 0x5555aaaa3333ccccull, 3000, false);
	/* perftest's default inline size: 4-WQEBB WQEs */
	random_bursts(256, 220, 2, 16, false, 0x0f1e2d3c4b5a6978ull, 3000, false);
}

/* The same against UD WQEs: 1..2-WQEBB WQEs with the datagram segment,
 * too long SENDs (signaled NOPs reporting LOC_LEN_ERR), small and large
 * rings, every signaling rule. */
static void
test_random_bursts_ud(void)
{
	random_bursts(1024, 28, 1, 32, false, 0x1234567887654321ull, 3000, true);
	random_bursts(512, 60, 4, 7, false, 0x9e3779b97f4a7c15ull, 3000, true);
	random_bursts(16, 60, 4, 5, true, 0xdeadbeefcafef00dull, 3000, true);
	random_bursts(64, 28, 2, 1, false, 0x0123456789abcdefull, 3000, true);
	random_bursts(256, 60, 4, 300, false, 0x5555aaaa3333ccccull, 3000, true);
}

/* The one-length runs' WQE count (wqes_in, mlx5_qp_vec.h) is room / nbb
 * for every room a run may have (0..256 WQEBBs) and every WQE size up to
 * 16 WQEBBs, and 0 above: the random bursts reach 4-WQEBB WQEs only. */
static void
test_wqes_in(void)
{
	uint32_t room, nbb, bad = 0;

	for (nbb = 1; nbb <= 16; nbb++)
		for (room = 0; room <= 256; room++)
			bad += wqes_in(room, nbb) != room / nbb;
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(wqes_in(256, 17), 0);
	CU_ASSERT_EQUAL(wqes_in(256, 63), 0);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "random bursts vs an independent reference", test_random_bursts },
		{ "random UD bursts vs an independent reference", test_random_bursts_ud },
		{ "one-length run count without a division", test_wqes_in },
		{ NULL, NULL },
	};

	return rdx_ut_run("mlx5_qp_ref", cases, suite_init, suite_fini);
}
