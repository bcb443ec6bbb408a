/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The generic verbs driver's work-request bookkeeping, kept apart from any
 * ibverbs call so it can be unit tested without a device:
 *  - translating a burst of rdx_wr into a linked ibv_send_wr list (one
 *    ibv_post_send per burst), with the selective-signaling rules shared with
 *    the mlx5 datapath;
 *  - tracking which WRs a signaled completion retires;
 *  - the same for receive WRs.
 *
 * Counters (head, tail) run freely in 32 bits; slots are indexed with a
 * power-of-two mask. The ibv wr_id of a send WR is its counter; of a receive
 * WR its counter with RDX_VERBS_RECV_TAG set, so a completion (even an error
 * completion, whose opcode verbs leaves undefined) says which queue it is from.
 */
#ifndef RDX_VERBS_SQ_H
#define RDX_VERBS_SQ_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>

#include <infiniband/verbs.h>

#include "rdx_config.h"
#include "rdx_dev.h"

#define RDX_VERBS_RECV_TAG (UINT64_C(1) << 63)

/* The verbs driver's address handle (UD): rdx_wr.ah points at base. */
struct rdx_verbs_ah {
	struct rdx_ah base;       /* must be first */
	struct ibv_ah *ah;
};
/* Retirements remembered for rdx_qp_retired_wr_id (one poll burst's worth). */
#define RDX_VERBS_RET_LOG RDX_MAX_BURST

struct rdx_verbs_ret {
	const struct rdx_wc *wc;  /* the completion as handed to the app */
	uint32_t start;           /* first WR retired */
	uint32_t end;             /* one past the last WR retired */
};

struct rdx_verbs_sq {
	uint64_t *wr_id;          /* per slot: the app's wr_id */
	uint8_t *op;              /* per slot: enum rdx_wc_opcode */
	uint32_t mask;            /* slots - 1 (slots: power of two >= depth) */
	uint32_t depth;           /* WRs that may be outstanding */
	uint32_t head;            /* counter of the next WR */
	uint32_t tail;            /* first unretired WR */
	uint32_t unsig;           /* unsignaled WRs since the last signaled one */
	uint32_t sig_end;         /* one past the last signaled WR posted */
	uint32_t max_inline;
	uint32_t max_sge;
	uint16_t sig_interval;    /* >= 1 */
	bool sig_burst_end;
	bool ud;                  /* a UD QP: SEND/SEND_IMM with an AH only */
	uint32_t max_msg;         /* UD: the largest message (the path MTU); 0: no limit */
	bool one_ready;           /* swr[0] holds the one-WR build's fixed fields */
	/* prepared but not yet committed */
	uint32_t p_unsig;
	uint32_t p_sig_end;
	uint32_t ret_pos;
	struct rdx_verbs_ret ret[RDX_VERBS_RET_LOG];
};

struct rdx_verbs_rq {
	uint64_t *wr_id;
	uint32_t mask;
	uint32_t depth;
	uint32_t head;
	uint32_t tail;
	uint32_t max_sge;
};

static inline uint32_t
rdx_verbs_pow2(uint32_t v)
{
	uint32_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

/* Set up the state over caller-provided slot arrays (mask + 1 entries). */
static inline void
rdx_verbs_sq_init(struct rdx_verbs_sq *sq, uint64_t *wr_id, uint8_t *op, uint32_t slots,
		  uint32_t depth, uint32_t max_sge, uint32_t max_inline,
		  uint16_t sig_interval, bool sig_burst_end)
{
	memset(sq, 0, sizeof(*sq));
	sq->wr_id = wr_id;
	sq->op = op;
	sq->mask = slots - 1;
	sq->depth = depth;
	sq->max_sge = max_sge;
	sq->max_inline = max_inline;
	sq->sig_interval = sig_interval <= 1 ? 1 : sig_interval;
	sq->sig_burst_end = sig_burst_end;
}

static inline uint32_t
rdx_verbs_sq_free(const struct rdx_verbs_sq *sq)
{
	return sq->depth - (sq->head - sq->tail);
}

/* Whether wr can be posted on this QP (checked before anything is built). */
static inline bool
rdx_verbs_wr_valid(const struct rdx_verbs_sq *sq, const struct rdx_wr *wr)
{
	uint32_t len = 0;
	uint8_t i;

	if (unlikely(wr->num_sge > sq->max_sge || (wr->num_sge > 0 && wr->sge == NULL)))
		return false;
	/* UD: SEND only (IBTA 9.8.1: no RDMA, no atomics), to an AH; no NOP
	 * in verbs. A message above the path MTU is refused here too: not
	 * every provider refuses it (rdma_rxe sends it and completes it with
	 * success), and verbs has no NOP to carry a length-error completion
	 * as the mlx5 datapath does, so it is a short count (doc/ud.md). */
	if (sq->ud) {
		if ((wr->opcode != RDX_OP_SEND && wr->opcode != RDX_OP_SEND_IMM) || wr->ah == NULL)
			return false;
		if (sq->max_msg != 0) {
			uint64_t msg = 0;

			for (i = 0; i < wr->num_sge; i++)
				msg += wr->sge[i].length;
			if (unlikely(msg > sq->max_msg))
				return false;
		}
	}
	switch (wr->opcode) {
	case RDX_OP_SEND:
	case RDX_OP_SEND_IMM:
	case RDX_OP_WRITE:
	case RDX_OP_WRITE_IMM:
		if (wr->flags & RDX_WR_INLINE) {
			for (i = 0; i < wr->num_sge; i++)
				len += wr->sge[i].length;
			if (unlikely(len > sq->max_inline))
				return false;
		}
		return true;
	case RDX_OP_READ:
		return true;
	case RDX_OP_CAS:
	case RDX_OP_FAA:
		/* IBTA: an atomic is 8 bytes into one local buffer, 8-byte
		 * aligned at the responder. */
		return wr->num_sge == 1 && (wr->remote_addr & 7) == 0;
	default:
		/* RDX_OP_NOP has no RC verbs equivalent. */
		return false;
	}
}

/*
 * What an rdx opcode is in verbs, for every path: the general build, the
 * one-WR build and the completion (one table, so they cannot disagree).
 * kind: how the WR names the responder (no remote address for SEND).
 * Index RDX_OP_MAX stands for any opcode out of range.
 */
enum rdx_verbs_op_kind { RDX_VERBS_K_SEND, RDX_VERBS_K_RDMA, RDX_VERBS_K_ATOMIC };

struct rdx_verbs_opmap {
	uint8_t ibv;              /* enum ibv_wr_opcode */
	uint8_t wc;               /* enum rdx_wc_opcode of its completion */
	uint8_t kind;             /* enum rdx_verbs_op_kind */
	uint8_t imm;              /* carries imm_data */
	uint8_t fmask;            /* send_flags it may have (inline: SEND, WRITE) */
	uint8_t pad[3];
};

#define RDX_VERBS_F_ALL (IBV_SEND_SIGNALED | IBV_SEND_INLINE | IBV_SEND_FENCE | \
			 IBV_SEND_SOLICITED)
#define RDX_VERBS_F_NOINL (RDX_VERBS_F_ALL & ~IBV_SEND_INLINE)

static inline const struct rdx_verbs_opmap *
rdx_verbs_opmap(uint8_t op)
{
	static const struct rdx_verbs_opmap map[RDX_OP_MAX + 1] = {
		/* NOP: no RC verbs equivalent, refused by rdx_verbs_wr_valid */
		[RDX_OP_NOP] = {IBV_WR_SEND, RDX_WC_NOP, RDX_VERBS_K_SEND, 0, RDX_VERBS_F_ALL, {0}},
		[RDX_OP_SEND] = {IBV_WR_SEND, RDX_WC_SEND, RDX_VERBS_K_SEND, 0, RDX_VERBS_F_ALL, {0}},
		[RDX_OP_SEND_IMM] = {IBV_WR_SEND_WITH_IMM, RDX_WC_SEND, RDX_VERBS_K_SEND, 1,
				     RDX_VERBS_F_ALL, {0}},
		[RDX_OP_WRITE] = {IBV_WR_RDMA_WRITE, RDX_WC_WRITE, RDX_VERBS_K_RDMA, 0,
				  RDX_VERBS_F_ALL, {0}},
		[RDX_OP_WRITE_IMM] = {IBV_WR_RDMA_WRITE_WITH_IMM, RDX_WC_WRITE, RDX_VERBS_K_RDMA, 1,
				      RDX_VERBS_F_ALL, {0}},
		[RDX_OP_READ] = {IBV_WR_RDMA_READ, RDX_WC_READ, RDX_VERBS_K_RDMA, 0,
				 RDX_VERBS_F_NOINL, {0}},
		[RDX_OP_CAS] = {IBV_WR_ATOMIC_CMP_AND_SWP, RDX_WC_CAS, RDX_VERBS_K_ATOMIC, 0,
				RDX_VERBS_F_NOINL, {0}},
		[RDX_OP_FAA] = {IBV_WR_ATOMIC_FETCH_AND_ADD, RDX_WC_FAA, RDX_VERBS_K_ATOMIC, 0,
				RDX_VERBS_F_NOINL, {0}},
		[RDX_OP_MAX] = {IBV_WR_SEND, RDX_WC_UNKNOWN, RDX_VERBS_K_SEND, 0, RDX_VERBS_F_NOINL,
				{0}},
	};
	return &map[op < RDX_OP_MAX ? op : RDX_OP_MAX];
}

static inline uint8_t
rdx_verbs_wc_op_of(uint8_t op)
{
	return rdx_verbs_opmap(op)->wc;
}

/*
 * The selective-signaling rule, for both builds: a WR at counter pos, with
 * unsig unsignaled WRs before it since the last signaled one and sig_end
 * one past the last signaled WR, is signaled when the app asks, when the
 * unsignaled run reaches sig_interval, when it is the last of the burst
 * and sig_burst_end is set, or when it takes the last free slot while no
 * signaled WR is outstanding (otherwise nothing would ever retire the SQ).
 */
static inline bool
rdx_verbs_sq_sig_rule(const struct rdx_verbs_sq *sq, uint32_t pos, uint32_t unsig,
		      uint32_t sig_end, uint8_t wr_flags, bool last)
{
	return (wr_flags & RDX_WR_SIGNALED) || unsig + 1 >= sq->sig_interval ||
		(last && sq->sig_burst_end) ||
		(pos + 1 - sq->tail == sq->depth && (int32_t)(sig_end - sq->tail) <= 0);
}

/* ibv send_flags of a WR with rdx flags f and opcode map m (inline only
 * for the opcodes that carry a payload out: SEND and WRITE, with or
 * without immediate), signaled or not: one lookup by the flag bits. */
static inline unsigned int
rdx_verbs_send_flags(uint8_t f, const struct rdx_verbs_opmap *m, bool signaled)
{
#define RDX_VERBS_FL(x) ((((x) & RDX_WR_INLINE) ? IBV_SEND_INLINE : 0) | \
			 (((x) & RDX_WR_FENCE) ? IBV_SEND_FENCE : 0) | \
			 (((x) & RDX_WR_SOLICITED) ? IBV_SEND_SOLICITED : 0))
	static const uint8_t fl[16] = {
		RDX_VERBS_FL(0), RDX_VERBS_FL(1), RDX_VERBS_FL(2), RDX_VERBS_FL(3),
		RDX_VERBS_FL(4), RDX_VERBS_FL(5), RDX_VERBS_FL(6), RDX_VERBS_FL(7),
		RDX_VERBS_FL(8), RDX_VERBS_FL(9), RDX_VERBS_FL(10), RDX_VERBS_FL(11),
		RDX_VERBS_FL(12), RDX_VERBS_FL(13), RDX_VERBS_FL(14), RDX_VERBS_FL(15),
	};
#undef RDX_VERBS_FL
	return (fl[f & 15] | (signaled ? IBV_SEND_SIGNALED : 0)) & m->fmask;
}

/* Fill one ibv_send_wr (and its SGEs) from wr; signaled says CQ or not. */
static inline void
rdx_verbs_wr_build(const struct rdx_wr *wr, struct ibv_send_wr *swr, struct ibv_sge *sge,
		   uint64_t id, bool signaled, bool ud)
{
	const struct rdx_verbs_opmap *m = rdx_verbs_opmap(wr->opcode);
	int ns = 0;
	uint8_t i;

	for (i = 0; i < wr->num_sge; i++) {
		/* Zero-length SGEs are skipped, as the mlx5 datapath does. */
		if (wr->sge[i].length == 0)
			continue;
		sge[ns].addr = wr->sge[i].addr;
		sge[ns].length = wr->sge[i].length;
		sge[ns].lkey = wr->sge[i].lkey;
		ns++;
	}
	swr->wr_id = id;
	swr->sg_list = sge;
	swr->num_sge = ns;
	swr->opcode = (enum ibv_wr_opcode)m->ibv;
	swr->imm_data = m->imm ? wr->imm : 0; /* network order, as-is */
	if (m->kind == RDX_VERBS_K_RDMA) {
		swr->wr.rdma.remote_addr = wr->remote_addr;
		swr->wr.rdma.rkey = wr->rkey;
	} else if (m->kind == RDX_VERBS_K_ATOMIC) {
		/* verbs takes host-order operands; the result lands in the
		 * local SGE in host order. The SGE is exactly 8 bytes. */
		swr->wr.atomic.remote_addr = wr->remote_addr;
		swr->wr.atomic.compare_add = wr->compare_add;
		swr->wr.atomic.swap = wr->swap;
		swr->wr.atomic.rkey = wr->rkey;
		sge[0].addr = wr->sge[0].addr;
		sge[0].length = 8;
		sge[0].lkey = wr->sge[0].lkey;
		swr->num_sge = 1;
	}
	if (ud) {
		/* The destination per WR (the union's UD side of rdx_wr). */
		swr->wr.ud.ah = ((const struct rdx_verbs_ah *)(const void *)wr->ah)->ah;
		swr->wr.ud.remote_qpn = wr->remote_qpn & 0xffffff;
		swr->wr.ud.remote_qkey = wr->remote_qkey;
	}
	swr->send_flags = rdx_verbs_send_flags(wr->flags, m, signaled);
}

/*
 * Build the ibv_send_wr list for up to n WRs: as many as are valid (stopping
 * at the first invalid one) and fit in the free SQ space and in one burst.
 * sge must hold RDX_MAX_BURST * max_sge entries. Signaling:
 * rdx_verbs_sq_sig_rule. Returns the number built (the list is
 * terminated there); rdx_verbs_sq_commit() records what was really posted.
 */
static inline uint16_t
rdx_verbs_sq_prepare(struct rdx_verbs_sq *sq, const struct rdx_wr *wr, uint16_t n,
		     struct ibv_send_wr *swr, struct ibv_sge *sge)
{
	uint32_t free_slots = rdx_verbs_sq_free(sq);
	uint32_t unsig = sq->unsig, sig_end = sq->sig_end, pos;
	uint16_t m, k;
	bool sig;

	if (n > RDX_MAX_BURST)
		n = RDX_MAX_BURST;
	if (n > free_slots)
		n = (uint16_t)free_slots;
	for (m = 0; m < n; m++)
		if (!rdx_verbs_wr_valid(sq, &wr[m]))
			break;
	for (k = 0; k < m; k++) {
		pos = sq->head + k;
		sig = rdx_verbs_sq_sig_rule(sq, pos, unsig, sig_end, wr[k].flags, k == m - 1);
		if (sig) {
			unsig = 0;
			sig_end = pos + 1;
		} else {
			unsig++;
		}
		sq->wr_id[pos & sq->mask] = wr[k].wr_id;
		sq->op[pos & sq->mask] = rdx_verbs_wc_op_of(wr[k].opcode);
		rdx_verbs_wr_build(&wr[k], &swr[k], &sge[(uint32_t)k * sq->max_sge], pos, sig,
				   sq->ud);
		swr[k].next = &swr[k + 1];
	}
	if (m > 0) {
		swr[m - 1].next = NULL;
		sq->one_ready = false;
	}
	sq->p_unsig = unsig;
	sq->p_sig_end = sig_end;
	return m;
}

/*
 * rdx_verbs_sq_prepare for a burst of one WR (the latency loops post one at
 * a time): an RC WR with one non-empty SGE is built in one pass, without
 * the general path's loops over WRs and SGEs; the same checks and
 * signaling rules, the same state for rdx_verbs_sq_commit. Any other WR
 * (UD, several or empty SGEs, a full SQ) takes rdx_verbs_sq_prepare.
 * swr and sge are the same arrays on every call (the QP's): the list
 * link, SGE pointer and count that every one-WR build has are written once
 * and kept until a general build reuses swr[0] (sq->one_ready).
 * Returns 1 when built, 0 when wr cannot be posted.
 */
static inline uint16_t
rdx_verbs_sq_prepare_one(struct rdx_verbs_sq *sq, const struct rdx_wr *wr,
			 struct ibv_send_wr *swr, struct ibv_sge *sge)
{
	const struct rdx_sge *s = wr->sge;
	const uint8_t op = wr->opcode, f = wr->flags;
	const uint32_t pos = sq->head;
	const struct rdx_verbs_opmap *m;
	uint32_t len;
	bool sig;

	if (unlikely(sq->ud || wr->num_sge != 1 || sq->max_sge == 0 || s == NULL ||
		     op == RDX_OP_NOP || op >= RDX_OP_MAX || s->length == 0 ||
		     pos - sq->tail >= sq->depth))
		return rdx_verbs_sq_prepare(sq, wr, 1, swr, sge);
	m = rdx_verbs_opmap(op);
	len = s->length;
	if (m->kind == RDX_VERBS_K_ATOMIC) {
		/* 8 bytes into one local buffer, 8-byte aligned remotely */
		if (unlikely(wr->remote_addr & 7))
			return 0;
		len = 8;
		swr->wr.atomic.remote_addr = wr->remote_addr;
		swr->wr.atomic.compare_add = wr->compare_add;
		swr->wr.atomic.swap = wr->swap;
		swr->wr.atomic.rkey = wr->rkey;
	} else {
		if (unlikely((f & RDX_WR_INLINE) && op != RDX_OP_READ && len > sq->max_inline))
			return 0;
		/* (SEND ignores them) */
		swr->wr.rdma.remote_addr = wr->remote_addr;
		swr->wr.rdma.rkey = wr->rkey;
	}
	sig = rdx_verbs_sq_sig_rule(sq, pos, sq->unsig, sq->sig_end, f, true);
	sq->p_unsig = sig ? 0 : sq->unsig + 1;
	sq->p_sig_end = sig ? pos + 1 : sq->sig_end;
	sq->wr_id[pos & sq->mask] = wr->wr_id;
	sq->op[pos & sq->mask] = m->wc;
	sge->addr = s->addr;
	sge->length = len;
	sge->lkey = s->lkey;
	swr->wr_id = pos;
	if (unlikely(!sq->one_ready)) {
		/* the same in every one-WR build, until a burst reuses swr[0] */
		swr->next = NULL;
		swr->sg_list = sge;
		swr->num_sge = 1;
		sq->one_ready = true;
	}
	swr->opcode = (enum ibv_wr_opcode)m->ibv;
	swr->send_flags = rdx_verbs_send_flags(f, m, sig);
	swr->imm_data = m->imm ? wr->imm : 0;
	return 1;
}

/* Record that the first `posted` of the `built` prepared WRs were posted. */
static inline void
rdx_verbs_sq_commit(struct rdx_verbs_sq *sq, const struct ibv_send_wr *swr,
		    uint16_t built, uint16_t posted)
{
	uint16_t k;

	if (likely(posted == built)) {
		sq->unsig = sq->p_unsig;
		sq->sig_end = sq->p_sig_end;
		sq->head += posted;
		return;
	}
	/* Partial post (provider refused a WR): replay the prefix. */
	for (k = 0; k < posted; k++) {
		if (swr[k].send_flags & IBV_SEND_SIGNALED) {
			sq->unsig = 0;
			sq->sig_end = sq->head + k + 1;
		} else {
			sq->unsig++;
		}
	}
	sq->head += posted;
}

/*
 * A send completion for the WR with counter id: it retires every WR from
 * the tail up to and including it (verbs completes RC WRs in order, and an
 * unsignaled WR before a completed one has completed too). Returns how many.
 */
static inline uint16_t
rdx_verbs_sq_retire(struct rdx_verbs_sq *sq, uint32_t id, const struct rdx_wc *wc)
{
	uint32_t n = id + 1 - sq->tail;
	struct rdx_verbs_ret *r;

	if (unlikely(n == 0 || n > sq->depth))
		return 1; /* not outstanding: should not happen */
	sq->tail = id + 1;
	/* A completion that retires its own WR only needs no record:
	 * rdx_verbs_sq_retired_wr_id answers it from the wc itself. */
	if (n == 1)
		return 1;
	r = &sq->ret[sq->ret_pos++ & (RDX_VERBS_RET_LOG - 1)];
	r->wc = wc;
	r->start = id + 1 - n;
	r->end = id + 1;
	return (uint16_t)n;
}

/* wr_id of the i-th WR retired by wc (0 = oldest). */
static inline uint64_t
rdx_verbs_sq_retired_wr_id(const struct rdx_verbs_sq *sq, const struct rdx_wc *wc,
			   uint16_t i)
{
	const struct rdx_verbs_ret *r, *match = NULL;
	uint32_t j;

	if (i >= wc->retired)
		return 0;
	if (wc->retired == 1)
		return wc->wr_id; /* its own WR (rdx_verbs_sq_retire keeps no record) */
	/* Newest first: the same wc pointer (the usual case), else a
	 * retirement that ends with this wr_id and has this length (a copy). */
	for (j = 0; j < RDX_VERBS_RET_LOG; j++) {
		r = &sq->ret[(sq->ret_pos - 1 - j) & (RDX_VERBS_RET_LOG - 1)];
		if (r->end == r->start)
			break;
		if (r->end - r->start != wc->retired ||
		    sq->wr_id[(r->end - 1) & sq->mask] != wc->wr_id)
			continue;
		if (r->wc == wc) {
			match = r;
			break;
		}
		if (match == NULL)
			match = r;
	}
	if (match == NULL)
		return i + 1u == wc->retired ? wc->wr_id : 0;
	return sq->wr_id[(match->start + i) & sq->mask];
}

static inline void
rdx_verbs_rq_init(struct rdx_verbs_rq *rq, uint64_t *wr_id, uint32_t slots, uint32_t depth,
		  uint32_t max_sge)
{
	memset(rq, 0, sizeof(*rq));
	rq->wr_id = wr_id;
	rq->mask = slots - 1;
	rq->depth = depth;
	rq->max_sge = max_sge;
}

/* Build up to n receive WRs (as many as fit and are valid). */
static inline uint16_t
rdx_verbs_rq_prepare(struct rdx_verbs_rq *rq, const struct rdx_recv_wr *wr, uint16_t n,
		     struct ibv_recv_wr *rwr, struct ibv_sge *sge)
{
	uint32_t free_slots = rq->depth - (rq->head - rq->tail), pos;
	struct ibv_sge *s;
	uint16_t m, k;
	uint8_t i;
	int ns;

	if (n > RDX_MAX_BURST)
		n = RDX_MAX_BURST;
	if (n > free_slots)
		n = (uint16_t)free_slots;
	for (m = 0; m < n; m++)
		if (wr[m].num_sge > rq->max_sge || (wr[m].num_sge > 0 && wr[m].sge == NULL))
			break;
	for (k = 0; k < m; k++) {
		pos = rq->head + k;
		s = &sge[(uint32_t)k * rq->max_sge];
		ns = 0;
		for (i = 0; i < wr[k].num_sge; i++) {
			if (wr[k].sge[i].length == 0)
				continue;
			s[ns].addr = wr[k].sge[i].addr;
			s[ns].length = wr[k].sge[i].length;
			s[ns].lkey = wr[k].sge[i].lkey;
			ns++;
		}
		rq->wr_id[pos & rq->mask] = wr[k].wr_id;
		rwr[k].wr_id = RDX_VERBS_RECV_TAG | pos;
		rwr[k].sg_list = s;
		rwr[k].num_sge = ns;
		rwr[k].next = &rwr[k + 1];
	}
	if (m > 0)
		rwr[m - 1].next = NULL;
	return m;
}

static inline void
rdx_verbs_rq_commit(struct rdx_verbs_rq *rq, uint16_t posted)
{
	rq->head += posted;
}

/* A receive completion for counter id: its wr_id (receives complete in order). */
static inline uint64_t
rdx_verbs_rq_complete(struct rdx_verbs_rq *rq, uint32_t id)
{
	if (likely(id - rq->tail < rq->depth))
		rq->tail = id + 1;
	return rq->wr_id[id & rq->mask];
}

/* ------------------------------------------------------------------ */
/* UD control-path arguments (no ibverbs call: unit tested)           */

/*
 * An ibv_ah_attr from lib/dev's checked rdx_ah_attr (port and hop_limit
 * defaulted) on a device open on port with GID index gid_index (-1: none,
 * InfiniBand with LIDs). NULL when fine, else what is wrong (one line).
 */
static inline const char *
rdx_verbs_ah_attr(const struct rdx_ah_attr *attr, uint8_t port, int gid_index,
		  int gid_tbl_len, struct ibv_ah_attr *ia)
{
	int sgid = attr->sgid_index >= 0 ? attr->sgid_index : gid_index;

	if (attr->port != port)
		return "port is not the device's";
	if (attr->is_global && (sgid < 0 || sgid >= gid_tbl_len || sgid > 255))
		return "is_global without a usable sgid_index";
	memset(ia, 0, sizeof(*ia));
	ia->dlid = attr->lid;
	ia->sl = attr->sl;
	ia->static_rate = attr->static_rate;
	ia->port_num = attr->port;
	if (attr->is_global) {
		ia->is_global = 1;
		memcpy(ia->grh.dgid.raw, attr->gid, sizeof(ia->grh.dgid.raw));
		ia->grh.flow_label = attr->flow_label;
		ia->grh.sgid_index = (uint8_t)sgid;
		ia->grh.hop_limit = attr->hop_limit;
		ia->grh.traffic_class = attr->traffic_class;
	}
	return NULL;
}

/* The three modify-QP steps of a UD QP (ibv_modify_qp(3), IBTA 11.2.4.2):
 * INIT with P_Key index 0, port and Q_Key; RTR; RTS with the SQ PSN.
 * step 0..2; fills a and returns the attribute mask. */
static inline int
rdx_verbs_ud_step(int step, uint8_t port, uint32_t qkey, uint32_t psn, struct ibv_qp_attr *a)
{
	memset(a, 0, sizeof(*a));
	switch (step) {
	case 0:
		a->qp_state = IBV_QPS_INIT;
		a->pkey_index = 0;
		a->port_num = port;
		a->qkey = qkey;
		return IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY;
	case 1:
		a->qp_state = IBV_QPS_RTR;
		return IBV_QP_STATE;
	default:
		a->qp_state = IBV_QPS_RTS;
		a->sq_psn = psn & 0xffffff;
		return IBV_QP_STATE | IBV_QP_SQ_PSN;
	}
}

/* The largest UD message: one packet of the port's active MTU
 * (enum ibv_mtu 1..5 = 256..4096). */
static inline uint32_t
rdx_verbs_ud_max_msg(uint8_t active_mtu)
{
	return active_mtu >= IBV_MTU_256 && active_mtu <= IBV_MTU_4096 ?
		128u << active_mtu : 0;
}

#endif /* RDX_VERBS_SQ_H */
