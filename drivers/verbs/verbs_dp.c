/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The verbs driver's fast path: one ibv_post_send per burst with a linked
 * WR list (doorbell batching), IBV_SEND_INLINE up to the QP's max_inline,
 * selective signaling (sq_sig_all = 0) with the mlx5 datapath's rules
 * (verbs_sq.h), ibv_post_recv per batch, ibv_poll_cq per burst and the
 * mapping of ibv_wc to rdx_wc. No allocation, locks or logging here: the
 * WR and SGE arrays were allocated at QP create (verbs_dev.c). The per-QP
 * counters: two increments per post burst, errors on the error branch of
 * the completion mapping, read by rdx_verbs_qp_xstats_get at the end.
 */
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>

#include "verbs_dev.h"

/* ------------------------------------------------------------------ */
/* Fast path                                                          */

/* A burst of several WRs (and the counting common to both paths). */
static __rte_noinline uint16_t
verbs_post_many(struct verbs_qp *qp, const struct rdx_wr *wr, uint16_t n)
{
	struct ibv_send_wr *bad = NULL;
	uint16_t built, posted;

	built = rdx_verbs_sq_prepare(&qp->sq, wr, n, qp->swr, qp->ssge);
	if (unlikely(built == 0))
		return 0;
	if (likely(ibv_post_send(qp->qp, qp->swr, &bad) == 0)) {
		posted = built;
	} else {
		posted = bad == NULL ? 0 : (uint16_t)(bad - qp->swr);
		qp->st.send_post_errors++;
	}
	rdx_verbs_sq_commit(&qp->sq, qp->swr, built, posted);
	qp->st.send_posts++;
	qp->st.send_wrs += posted;
	return posted;
}

/* One WR (the latency loops): the single-WR build and, apart from the
 * provider's call, nothing that needs the general path's registers. */
uint16_t
rdx_verbs_post_burst(struct rdx_qp *qp_, const struct rdx_wr *wr, uint16_t n)
{
	struct verbs_qp *qp = (struct verbs_qp *)qp_;
	struct ibv_send_wr *bad;

	if (n != 1)
		return verbs_post_many(qp, wr, n);
	if (unlikely(rdx_verbs_sq_prepare_one(&qp->sq, wr, qp->swr, qp->ssge) == 0))
		return 0;
	if (unlikely(ibv_post_send(qp->qp, qp->swr, &bad) != 0)) {
		qp->st.send_post_errors++;
		qp->st.send_posts++;
		return 0; /* the only WR refused: nothing to commit */
	}
	rdx_verbs_sq_commit(&qp->sq, qp->swr, 1, 1);
	qp->st.send_posts++;
	qp->st.send_wrs++;
	return 1;
}

uint16_t
rdx_verbs_post_recv_burst(struct rdx_qp *qp_, const struct rdx_recv_wr *wr, uint16_t n)
{
	struct verbs_qp *qp = (struct verbs_qp *)qp_;
	struct ibv_recv_wr *bad = NULL;
	uint16_t built, posted;

	built = rdx_verbs_rq_prepare(&qp->rq, wr, n, qp->rwr, qp->rsge);
	if (unlikely(built == 0))
		return 0;
	if (likely(ibv_post_recv(qp->qp, qp->rwr, &bad) == 0)) {
		posted = built;
	} else {
		posted = bad == NULL ? 0 : (uint16_t)(bad - qp->rwr);
		qp->st.recv_post_errors++;
	}
	rdx_verbs_rq_commit(&qp->rq, posted);
	qp->st.recv_posts++;
	qp->st.recv_wrs += posted;
	return posted;
}

static inline uint8_t
recv_opcode(const struct ibv_wc *w)
{
	if (w->status != IBV_WC_SUCCESS)
		return RDX_WC_UNKNOWN;
	if (w->opcode == IBV_WC_RECV_RDMA_WITH_IMM)
		return RDX_WC_RECV_WRITE_IMM;
	return (w->wc_flags & IBV_WC_WITH_IMM) ? RDX_WC_RECV_IMM : RDX_WC_RECV;
}

/* An error or flush completion that retired wc->retired WRs: an error
 * fails one (those before it completed fine), a flush every one. */
static __rte_noinline void
verbs_count_err(struct verbs_qp *qp, const struct rdx_wc *wc, bool recv)
{
	const bool flush = wc->status == IBV_WC_WR_FLUSH_ERR;
	const uint64_t failed = flush ? wc->retired : wc->retired != 0;

	if (recv)
		*(flush ? &qp->st.recv_flushed : &qp->st.recv_error) += failed;
	else
		*(flush ? &qp->st.send_flushed : &qp->st.send_error) += failed;
}

/* Translate one ibv_wc into wc (the app's array). */
static __rte_always_inline void
verbs_wc_map(const struct verbs_cq *cq, const struct ibv_wc *w, struct rdx_wc *wc)
{
	struct verbs_qp *qp = cq_find_qp(cq, w->qp_num);
	uint32_t id = (uint32_t)w->wr_id;
	uint8_t op;

	wc->status = (uint8_t)w->status;
	wc->vendor_err = w->vendor_err;
	wc->qp_num = w->qp_num;
	wc->imm = 0;
	if (unlikely(qp == NULL)) {
		/* A QP destroyed with completions still queued. */
		wc->qp_ctx = NULL;
		wc->wr_id = 0;
		wc->byte_len = 0;
		wc->retired = 1;
		wc->opcode = RDX_WC_UNKNOWN;
		return;
	}
	wc->qp_ctx = qp->base.user_ctx;
	if (w->wr_id & RDX_VERBS_RECV_TAG) {
		wc->wr_id = rdx_verbs_rq_complete(&qp->rq, id);
		wc->opcode = recv_opcode(w);
		wc->byte_len = w->byte_len;
		if (w->wc_flags & IBV_WC_WITH_IMM)
			wc->imm = w->imm_data;
		/* the sender (UD: byte_len counts the 40-byte GRH area) */
		wc->src_qp = w->src_qp;
		wc->slid = w->slid;
		wc->wc_flags = (w->wc_flags & IBV_WC_GRH) ? RDX_WC_GRH : 0;
		wc->retired = 1;
		if (unlikely(w->status != IBV_WC_SUCCESS))
			verbs_count_err(qp, wc, true);
		return;
	}
	op = qp->sq.op[id & qp->sq.mask];
	wc->wr_id = qp->sq.wr_id[id & qp->sq.mask];
	wc->opcode = op;
	/* READ: what was read; CAS, FAA (adjacent): 8; else 0 */
	wc->byte_len = op == RDX_WC_READ ? w->byte_len :
		(uint8_t)(op - RDX_WC_CAS) <= RDX_WC_FAA - RDX_WC_CAS ? 8 : 0;
	wc->retired = rdx_verbs_sq_retire(&qp->sq, id, wc);
	if (unlikely(w->status != IBV_WC_SUCCESS))
		verbs_count_err(qp, wc, false);
}

/* Up to n completions when some were stashed by cq_wait: those first. */
static __rte_noinline uint16_t
verbs_poll_stashed(struct verbs_cq *cq, struct rdx_wc *wc, uint16_t n)
{
	uint16_t k = 0;
	int got, i;

	while (k < n && cq->stash_pos < cq->stash_n)
		verbs_wc_map(cq, &cq->stash[cq->stash_pos++], &wc[k++]);
	if (k == n)
		return k;
	got = ibv_poll_cq(cq->cq, n - k, cq->wc);
	if (unlikely(got <= 0))
		return k; /* a poll error leaves the CQ unusable: report empty */
	for (i = 0; i < got; i++)
		verbs_wc_map(cq, &cq->wc[i], &wc[k++]);
	return k;
}

/* Nothing stashed (the usual case): one ibv_poll_cq, each completion
 * mapped straight into the app's array; a poll for one (the latency
 * loops) without the loop. */
uint16_t
rdx_verbs_poll_burst(struct rdx_cq *cq_, struct rdx_wc *wc, uint16_t n)
{
	struct verbs_cq *cq = (struct verbs_cq *)cq_;
	int got, i;

	if (unlikely(cq->stash_pos < cq->stash_n))
		return verbs_poll_stashed(cq, wc, n > RDX_MAX_BURST ? RDX_MAX_BURST : n);
	if (n == 1) {
		if (ibv_poll_cq(cq->cq, 1, cq->wc) != 1)
			return 0;
		verbs_wc_map(cq, cq->wc, wc);
		return 1;
	}
	if (n > RDX_MAX_BURST)
		n = RDX_MAX_BURST;
	got = ibv_poll_cq(cq->cq, n, cq->wc);
	if (unlikely(got <= 0))
		return 0; /* a poll error leaves the CQ unusable: report empty */
	for (i = 0; i < got; i++)
		verbs_wc_map(cq, &cq->wc[i], &wc[i]);
	return (uint16_t)got;
}

uint64_t
rdx_verbs_qp_retired_wr_id(const struct rdx_qp *qp_, const struct rdx_wc *wc, uint16_t i)
{
	const struct verbs_qp *qp = (const struct verbs_qp *)qp_;

	return rdx_verbs_sq_retired_wr_id(&qp->sq, wc, i);
}

/* ------------------------------------------------------------------ */
/* Counters (control path, any thread: relaxed loads)                 */

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define LOAD_ACQ(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)

/* posted - (head - tail): tail, then posted, then head (the post wrapper
 * moves head before posted), so a busy QP's snapshot lags, never leads. */
static uint64_t
verbs_completed(const uint32_t *tail, const uint64_t *posted, const uint32_t *head,
		uint64_t *p)
{
	const uint32_t t = LOAD_ACQ(*tail);
	const uint64_t n = LOAD_ACQ(*posted);
	const uint32_t out = LOAD_ACQ(*head) - t;

	*p = n;
	return n > out ? n - out : 0;
}

int
rdx_verbs_qp_xstats_get(struct rdx_qp *qp_, struct rdx_dev_xstat *xs, unsigned int n)
{
	struct verbs_qp *qp = (struct verbs_qp *)qp_;
	struct rdx_qp_counts c;
	unsigned int k;

	c.send_completed = verbs_completed(&qp->sq.tail, &qp->st.send_wrs, &qp->sq.head,
					   &c.send_posted);
	c.send_doorbells = LOAD(qp->st.send_posts);
	c.send_error = LOAD(qp->st.send_error);
	c.send_flushed = LOAD(qp->st.send_flushed);
	c.recv_completed = verbs_completed(&qp->rq.tail, &qp->st.recv_wrs, &qp->rq.head,
					   &c.recv_posted);
	c.recv_doorbells = LOAD(qp->st.recv_posts);
	c.recv_error = LOAD(qp->st.recv_error);
	c.recv_flushed = LOAD(qp->st.recv_flushed);
	k = rdx_qp_xstats_common(xs, n, &c);
	k = rdx_dev_xstat_put(xs, n, k, "send_post_errors", LOAD(qp->st.send_post_errors));
	k = rdx_dev_xstat_put(xs, n, k, "recv_post_errors", LOAD(qp->st.recv_post_errors));
	return (int)k;
}
