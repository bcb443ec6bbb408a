/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The request/response loop (PERF_LOOP_PINGPONG): echo's RPCs, and the
 * latency mode of send, write_imm and write (as perftest's *_lat).
 *
 * The client sends a request of run->req_size bytes (the engine's req_size,
 * else the message size), the responder answers with the same operation
 * and the message size as soon as it sees the request; -t requests in
 * flight per QP (1 in lat mode but for echo's --concurrent-ops). The
 * latency is the round trip, halved for engines whose lat_kind is
 * PERF_LAT_HALF_RTT (as perftest reports ping-pong).
 * A message is seen as a receive completion, or with poll_memory by polling
 * the last byte of the target buffer (perftest's method for write: mlx5 and
 * the software device place a message's bytes in ascending order).
 *
 * One pass over the QPs: post requests, reclaim the send queue, take the
 * responses, then the shared end of a pass (perf_loop.h).
 *
 * UD (--transport ud): every message is one datagram, a SEND with
 * immediate = its op number (perf_ud_seq), received after the GRH area of
 * its slot. Datagrams may be lost, repeated or late, so answers are matched
 * by op number, not by order: the responder answers every request it gets
 * (a repeat too) with that request's op number; the client takes the first
 * answer of an outstanding op (later ones are ignored) and retires ops in
 * order. An op whose answer has not come PERF_UD_TIMEOUT_MS after its
 * request counts as lost once and its request is sent again (its latency
 * is then measured from the re-send), so a lost datagram never hangs the
 * run; the report says how many requests were sent again.
 */
#include <errno.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_atomic.h>
#include <rte_per_lcore.h>

#include "rdx_runtime.h"
#include "rdx_stamp.h"

#include "perf_app.h"
#include "perf_loop.h"
#include "perf_wire.h"

static inline uint8_t
marker_of(uint64_t seq)
{
	return (uint8_t)((seq & 0x7f) | 0x80);
}

/* Build one outgoing message (request or response) for op seq: every
 * field of the WR assigned once (no clearing pass), the marker stored
 * straight into host memory. Per op on both sides of a ping-pong, so its
 * instructions count twice per round trip. */
static inline void
msg_build(struct perf_lcore *lc, struct perf_ep *ep, struct rdx_wr *wr, struct rdx_sge *sge,
	  uint64_t seq, uint32_t len, uint32_t salt)
{
	const struct perf_run *run = lc->run;
	uint64_t off = (seq & (run->slots - 1)) * run->stride;
	const struct rdx_perf_engine *eng = lc->eng;

	sge->addr = ep->buf->iova + off;
	sge->length = len;
	sge->lkey = ep->buf->lkey;
	wr->wr_id = seq;
	wr->sge = sge;
	wr->num_sge = 1;
	wr->opcode = (uint8_t)eng->op;
	wr->flags = len <= ep->inline_max ? RDX_WR_SIGNALED | RDX_WR_INLINE : RDX_WR_SIGNALED;
	wr->rkey = ep->rrkey;
	wr->imm = rte_cpu_to_be_32((uint32_t)seq);
	if (unlikely(run->ud)) {
		perf_ud_dest(ep, wr);
	} else {
		wr->remote_addr = ep->rraddr + (seq & (ep->peer_rslots - 1)) * ep->peer_rstride;
		wr->compare_add = 0;
		wr->swap = 0;
	}
	if (unlikely(lc->o->verify))
		perf_mem_fill(ep->buf, off, len, seq, salt);
	if (eng->poll_memory) {
		uint8_t m = marker_of(seq);

		if (likely(ep->buf->addr != NULL))
			((volatile uint8_t *)ep->buf->addr)[off + len - 1] = m;
		else
			rdx_dev_mem_copy_to(ep->buf, off + len - 1, &m, 1);
	}
}

/* Has the message of op seq landed in our rbuf? (poll_memory) */
static inline bool
mem_arrived(const struct perf_ep *ep, uint64_t seq, uint32_t len)
{
	const volatile uint8_t *p = (const volatile uint8_t *)ep->rbuf->addr +
		(seq & (ep->rslots - 1)) * ep->rstride + len - 1;

	if (*p != marker_of(seq))
		return false;
	rte_smp_rmb(); /* payload reads after the marker */
	return true;
}

/* Clear the marker once consumed: the slot comes round again every rslots
 * ops, and an old marker must not pass for a new one. The peer writes the
 * slot again only after our answer, so this cannot race with it. */
static inline void
mem_consumed(const struct perf_ep *ep, uint64_t seq, uint32_t len)
{
	volatile uint8_t *p = (volatile uint8_t *)ep->rbuf->addr +
		(seq & (ep->rslots - 1)) * ep->rstride + len - 1;

	*p = 0;
}

/*
 * One op in flight (lat mode, RC): the round trip's path is "message
 * noticed -> next message posted" on both sides, and under a slow CPU
 * (soft-RoCE in a TCG guest emulates every instruction) each one counts.
 * On rxe the peer can answer before our own post's system call has even
 * returned, so work done right after a post is on that path as well. So
 * with pp_next the per-op chores (the send queue's reclaim, receives
 * re-posted, the latency sample recorded, the next message built) wait
 * for a pass that found nothing to do, one chore per such pass; a message
 * that is there is answered first. A build ahead needs two buffer slots at
 * least (the in-flight message keeps its own).
 */
struct pp_next {
	struct rdx_wr wr;
	struct rdx_sge sge;
	const struct perf_ep *ep;  /* whose WR it is (the server's lcore cache) */
	uint64_t seq;              /* the op it is built for; UINT64_MAX: none */
};

struct pp_sample {
	uint64_t lat;              /* cycles, halved as the engine says */
	uint64_t now;
	uint32_t log;              /* the op's log entry (UINT32_MAX: none) */
	bool pending;
};

/* Receives re-posted in batches of up to PP_RECV_BATCH: a post of one
 * receive costs nearly what a post of many does (per-call set-up, one
 * doorbell record write), and on the software device every repost writes
 * the lines the peer's engine reads (receive WQEs, the RQ doorbell record).
 * Half the receives beyond the window may be used before the refill, so
 * at least window + that many stay posted: never fewer than the requests
 * (or answers) that can be in flight, as before. */
#define PP_RECV_BATCH 16u

static inline bool
pp_recvs_low(const struct perf_run *run, const struct perf_ep *ep)
{
	const uint64_t have = ep->recv_posted - ep->recv_done;
	uint32_t slack = ep->rslots > run->window ? (ep->rslots - run->window) / 2 : 0;

	return have + RTE_MIN(slack, PP_RECV_BATCH) < ep->rslots;
}

/* Responses the responder leaves unretired before it polls its send CQ
 * (perf_pingpong_serve). */
#define PP_RECLAIM_AT ((uint64_t)PERF_WC_BURST)

/* the server lcore's response built ahead (one served QP per lcore) */
static RTE_DEFINE_PER_LCORE(struct pp_next, pp_srv_next);

/* Build ahead: nx holds op seq's message unless it holds it already. */
static inline void
pp_build_ahead(struct perf_lcore *lc, struct perf_ep *ep, struct pp_next *nx, uint64_t seq,
	       uint32_t len, uint32_t salt)
{
	const struct perf_run *run = lc->run;

	/* the same op of the same QP, and of this run's size and slots (the
	 * server's cache outlives a run; op numbers go on across runs) */
	if (nx->seq == seq && nx->ep == ep && nx->sge.length == len &&
	    nx->sge.addr == ep->buf->iova + (seq & (run->slots - 1)) * run->stride)
		return;
	msg_build(lc, ep, &nx->wr, &nx->sge, seq, len, salt);
	nx->seq = seq;
	nx->ep = ep;
}

static inline void
pp_record(struct perf_lcore *lc, struct pp_sample *smp, uint32_t bytes)
{
	if (!smp->pending)
		return;
	smp->pending = false;
	rdx_hist_record(lc->hist, smp->lat);
	lc->ops++;
	lc->bytes += bytes;
	if (smp->log != UINT32_MAX)
		lc->log[smp->log].done = smp->now;
}

/* Op seq completed now: its latency taken (as perf_completed), recorded by pp_record. */
static inline void
pp_take(struct perf_lcore *lc, const struct perf_ep *ep, uint64_t seq, uint64_t now,
	unsigned int half, uint32_t bytes, struct pp_sample *smp)
{
	uint32_t i = (uint32_t)(seq & ep->ring_mask);

	pp_record(lc, smp, bytes); /* no idle pass since the last one */
	if (!lc->measure)
		return;
	smp->lat = (now - ep->post_tsc[i]) >> half;
	smp->now = now;
	smp->log = lc->log != NULL ? ep->log_idx[i] : UINT32_MAX;
	smp->pending = true;
}


/* UD: the message of op seq in the receive of wc (after the GRH area). */
static uint64_t
ud_msg_check(struct perf_lcore *lc, struct perf_ep *ep, const struct rdx_wc *wc, uint64_t seq,
	     uint32_t len, uint32_t salt)
{
	uint64_t off = (wc->wr_id & (ep->rslots - 1)) * ep->rstride + lc->run->grh;

	if (wc->opcode != RDX_WC_RECV_IMM || wc->byte_len != len + lc->run->grh)
		return 1;
	return perf_mem_check(ep->rbuf, off, len, seq, salt);
}

/*
 * UD responder: is the request of op seq one to leave unanswered? The
 * client keeps at most W ops in flight (run->window; with --verify at most
 * the buffer slots, as the client limits it) and re-sends only its oldest,
 * and it can only have posted an op < completed + W, where every op below
 * completed was answered, so seen here: its op numbers lie in
 * (ud_hi - W, ud_hi + W], ud_hi the highest op seen. Below: a late or
 * repeated request of an op the client completed (perhaps in an earlier
 * run, of another size): it ignores the answer, and building one would
 * overwrite the buffer slot of a response not sent yet (ops W or more
 * apart share slots). Above: no op of the client (--verify counts it).
 */
static inline bool
ud_stale(struct perf_lcore *lc, const struct perf_ep *ep, uint64_t seq)
{
	const struct perf_run *run = lc->run;
	uint64_t w = lc->o->verify ? RTE_MIN(run->window, run->slots) : run->window;

	if (seq + w <= ep->ud_hi)
		return true;
	if (seq > ep->ud_hi + w) {
		lc->verify_errors += lc->o->verify;
		return true;
	}
	return false;
}

static uint64_t
msg_check(struct perf_lcore *lc, struct perf_ep *ep, uint64_t seq, uint32_t len, uint32_t salt)
{
	uint64_t off = (seq & (ep->rslots - 1)) * ep->rstride;

	if (lc->eng->poll_memory)
		len--; /* the last byte is the marker, checked already */
	return perf_mem_check(ep->rbuf, off, len, seq, salt);
}

/* Reclaim the send queue. Called only while a send is unretired: a poll of
 * an empty send CQ is a pass's largest cost after the response check on a
 * software NIC (rxe: a locked ibv_poll_cq through three layers), and on
 * rxe an RC send completes within its own post, so polling it on every
 * pass of the wait only lengthens the pass that has to notice the
 * response; perftest's *_lat loops poll the send CQ right after the post
 * and then only the response. */
static int
sq_reclaim(struct perf_lcore *lc, struct perf_ep *ep, const char *what)
{
	struct rdx_wc wcs[PERF_WC_BURST];
	uint16_t nc, j;

	/* status and retired are all this reads (the lean poll) */
	nc = perf_poll_sends(ep, wcs, PERF_WC_BURST);
	for (j = 0; j < nc; j++) {
		if (wcs[j].status != 0)
			return perf_wc_error(lc, ep, &wcs[j], what);
		ep->sq_done += wcs[j].retired != 0 ? wcs[j].retired : 1;
	}
	return nc;
}

/* The server's chores with pp_next, one per idle pass: 1 when one was done. */
static int
pp_serve_idle(struct perf_lcore *lc, struct perf_ep *ep, struct pp_next *nx, uint32_t resp)
{
	int rc;

	if (ep->posted != ep->sq_done) {
		rc = sq_reclaim(lc, ep, rdx_op_name(lc->eng->op));
		return rc < 0 ? rc : 1;
	}
	if (ep->rbuf != NULL && !lc->eng->poll_memory &&
	    ep->recv_posted - ep->recv_done < ep->rslots) {
		perf_post_recvs(ep, ep->rslots);
		return 1;
	}
	if (nx->seq != ep->recv_done || nx->ep != ep) {
		pp_build_ahead(lc, ep, nx, ep->recv_done, resp, PERF_SALT_RESP);
		return 1;
	}
	return 0;
}

int
perf_pingpong_serve(struct perf_lcore *lc, struct perf_ep *ep)
{
	const struct perf_run *run = lc->run;
	const uint32_t req = (uint32_t)run->req_size;
	const uint32_t resp = (uint32_t)run->size;
	struct rdx_wr wrs[PERF_WC_BURST];
	struct rdx_sge sges[PERF_WC_BURST];
	struct rdx_wc wcs[PERF_WC_BURST];
	/* pp_next: RC, one QP served by this lcore, no -e */
	struct pp_next *nx = !run->ud && lc->nb_srv == 1 &&
		run->slots >= PERF_PINGPONG_SLOTS && !lc->o->events ?
		&RTE_PER_LCORE(pp_srv_next) : NULL;
	const struct rdx_wr *post = wrs;
	uint64_t room;
	uint16_t nc, n = 0, k, j;
	int rc = 0;

	/* the send CQ only while a response is unretired (see sq_reclaim);
	 * with pp_next on an idle pass, or when the send queue is full;
	 * without, when requests come as receives, once PP_RECLAIM_AT
	 * responses (at most half the send queue) are unretired: one poll
	 * takes their completions, instead of a poll for every response
	 * (the receive CQ is polled on every call: on the software device
	 * those polls run the engine that executes the responses; with
	 * poll_memory this poll is the only one) */
	if (ep->posted != ep->sq_done &&
	    ep->posted - ep->sq_done >= (nx != NULL ? ep->sq_depth :
					 lc->eng->poll_memory ? 1 :
					 RTE_MIN(ep->sq_depth / 2, PP_RECLAIM_AT))) {
		rc = sq_reclaim(lc, ep, rdx_op_name(lc->eng->op));
		if (rc < 0)
			return rc;
	}
	room = ep->sq_depth - (ep->posted - ep->sq_done);
	if (room == 0)
		return rc;
	if (lc->eng->poll_memory) {
		uint64_t seq = ep->recv_done;

		if (!mem_arrived(ep, seq, req))
			return nx != NULL ? pp_serve_idle(lc, ep, nx, resp) : rc;
		if (lc->o->verify)
			lc->verify_errors += msg_check(lc, ep, seq, req, PERF_SALT_REQ);
		mem_consumed(ep, seq, req);
		if (nx != NULL) {
			pp_build_ahead(lc, ep, nx, seq, resp, PERF_SALT_RESP);
			post = &nx->wr;
		} else {
			msg_build(lc, ep, &wrs[0], &sges[0], seq, resp, PERF_SALT_RESP);
		}
		n = 1;
		ep->recv_done++;
	} else {
		nc = perf_poll(ep, true, wcs,
				       (uint16_t)(room < PERF_WC_BURST ? room : PERF_WC_BURST));
		if (nc == 0)
			return nx != NULL ? pp_serve_idle(lc, ep, nx, resp) : rc;
		RDX_STAMP(RDX_STAMP_RESP_POLL);
		for (j = 0; j < nc; j++) {
			uint64_t seq = ep->recv_done;

			if (wcs[j].status != 0)
				return perf_wc_error(lc, ep, &wcs[j], "RECV");
			if (run->ud) {
				/* answer the request's op number (repeats too),
				 * unless the client has that op already */
				seq = perf_ud_seq(ep->ud_hi, wcs[j].imm);
				if (ud_stale(lc, ep, seq)) {
					ep->recv_done++;
					continue;
				}
				if (seq > ep->ud_hi)
					ep->ud_hi = seq;
				if (lc->o->verify)
					lc->verify_errors += ud_msg_check(lc, ep, &wcs[j], seq, req,
									  PERF_SALT_REQ);
			} else if (lc->o->verify) {
				if (wcs[j].byte_len != req)
					lc->verify_errors++;
				else
					lc->verify_errors += msg_check(lc, ep, seq, req, PERF_SALT_REQ);
			}
			if (nc == 1 && nx != NULL) {
				pp_build_ahead(lc, ep, nx, seq, resp, PERF_SALT_RESP);
				post = &nx->wr;
			} else {
				msg_build(lc, ep, &wrs[n], &sges[n], seq, resp, PERF_SALT_RESP);
			}
			n++;
			ep->recv_done++;
		}
		/* the receives again, unless pp_next leaves it for an idle
		 * pass and enough are still posted for what may come first */
		if (nx != NULL ? ep->recv_posted - ep->recv_done < 2 : pp_recvs_low(run, ep))
			perf_post_recvs(ep, ep->rslots);
	}
	RDX_STAMP(RDX_STAMP_RESP_POST);
	k = rdx_qp_post_burst(ep->qp, post, n);
	ep->posted += k;
	ep->tx += k;
	if (k != n) {
		perf_lcore_fail(lc, ENOSPC, "qp %u: response could not be posted (send queue full)",
				ep->index);
		return lc->err;
	}
	return rc + n;
}

/* Client side: poll for responses. Returns completions or negative errno.
 * smp != NULL (one op in flight, pp_next): the sample is taken for
 * pp_record and the receives may wait for an idle pass. */
static int
rpc_responses(struct perf_lcore *lc, struct perf_ep *ep, uint32_t resp, unsigned int half,
	      struct pp_sample *smp)
{
	struct rdx_wc wcs[PERF_WC_BURST];
	uint64_t now;
	uint16_t nc, j;

	if (lc->eng->poll_memory) {
		uint64_t seq = ep->completed;

		if (seq == ep->posted || !mem_arrived(ep, seq, resp))
			return 0;
		now = rdx_tsc();
		if (lc->o->verify)
			lc->verify_errors += msg_check(lc, ep, seq, resp, PERF_SALT_RESP);
		mem_consumed(ep, seq, resp);
		if (smp != NULL)
			pp_take(lc, ep, seq, now, half, resp, smp);
		else
			perf_completed(lc, ep, seq, now, resp, half);
		ep->completed++;
		ep->recv_done++;
		lc->last_progress = now;
		return 1;
	}
	/* no more than the answers due: one in a latency run (as ib_*_lat) */
	nc = perf_poll(ep, true, wcs, (uint16_t)RTE_MIN(ep->posted - ep->completed,
							(uint64_t)PERF_WC_BURST));
	if (nc == 0)
		return 0;
	now = rdx_tsc();
	RDX_STAMP_AT(RDX_STAMP_REQ_POLL, now);
	lc->last_progress = now;
	for (j = 0; j < nc; j++) {
		uint64_t seq = ep->completed;

		if (wcs[j].status != 0)
			return perf_wc_error(lc, ep, &wcs[j], "RECV");
		if (lc->o->verify) {
			if (wcs[j].byte_len != resp)
				lc->verify_errors++;
			else
				lc->verify_errors += msg_check(lc, ep, seq, resp, PERF_SALT_RESP);
		}
		if (smp != NULL && nc == 1)
			pp_take(lc, ep, seq, now, half, resp, smp);
		else
			perf_completed(lc, ep, seq, now, resp, half);
		ep->completed++;
		ep->recv_done++;
	}
	if (smp != NULL ? ep->recv_posted - ep->recv_done < 2 : pp_recvs_low(lc->run, ep))
		perf_post_recvs(ep, ep->rslots);
	return nc;
}

/* UD client side: answers matched by op number (see the top of the file). */
static int
ud_responses(struct perf_lcore *lc, struct perf_ep *ep, uint32_t resp, unsigned int half)
{
	struct rdx_wc wcs[PERF_WC_BURST];
	uint64_t now;
	uint16_t nc, j;

	nc = perf_poll(ep, true, wcs, PERF_WC_BURST);
	if (nc == 0)
		return 0;
	now = rdx_tsc();
	for (j = 0; j < nc; j++) {
		uint64_t seq;

		if (wcs[j].status != 0)
			return perf_wc_error(lc, ep, &wcs[j], "RECV");
		ep->recv_done++;
		seq = perf_ud_seq(ep->completed, wcs[j].imm);
		/* a repeat, or the answer of an op already taken: ignored */
		if (seq < ep->completed || seq >= ep->posted || ep->seen[seq & ep->ring_mask])
			continue;
		if (lc->o->verify)
			lc->verify_errors += ud_msg_check(lc, ep, &wcs[j], seq, resp, PERF_SALT_RESP);
		ep->seen[seq & ep->ring_mask] = 1;
		perf_completed(lc, ep, seq, now, resp, half);
		lc->last_progress = now;
	}
	while (ep->completed < ep->posted && ep->seen[ep->completed & ep->ring_mask]) {
		ep->seen[ep->completed & ep->ring_mask] = 0;
		ep->completed++;
	}
	perf_post_recvs(ep, ep->rslots);
	return nc;
}

/* UD: the oldest outstanding op waited PERF_UD_TIMEOUT_MS: a loss, its
 * request goes again (its latency counts from now). */
static void
ud_resend(struct perf_lcore *lc, struct perf_ep *ep, uint32_t req)
{
	const uint64_t seq = ep->completed;
	uint32_t i = (uint32_t)(seq & ep->ring_mask);
	struct rdx_wr wr;
	struct rdx_sge sge;
	uint64_t now;

	if (seq == ep->posted || ep->seen[i] || ep->posted + ep->resent - ep->sq_done >= ep->sq_depth)
		return;
	now = rdx_tsc();
	if (now - ep->post_tsc[i] < lc->run->ud_timeout_tsc)
		return;
	msg_build(lc, ep, &wr, &sge, seq, req, PERF_SALT_REQ);
	if (rdx_qp_post_burst(ep->qp, &wr, 1) != 1)
		return;
	ep->post_tsc[i] = now;
	ep->resent++;
	ep->tx++;
}

/* Step 1: post requests up to the window (and the send queue's room). */
static inline void
pingpong_post(struct perf_lcore *lc, struct perf_ep *ep, struct rdx_wr *wrs,
	      struct rdx_sge *sges, uint32_t req)
{
	const struct perf_run *run = lc->run;
	uint32_t cap = run->post_list;
	uint16_t n = 0, k, j;
	uint64_t now;

	/* --rate: only the ops whose intended send time has come (rate.h) */
	if (unlikely(run->rate_period != 0))
		cap = perf_rate_due(run, ep, rdx_tsc(), cap);
	while (ep->posted + n < ep->target &&
	       ep->posted + n - ep->completed < run->window &&
	       ep->posted + ep->resent + n - ep->sq_done < ep->sq_depth &&
	       n < cap && n < RDX_MAX_BURST) {
		msg_build(lc, ep, &wrs[n], &sges[n], ep->posted + n, req, PERF_SALT_REQ);
		n++;
	}
	if (n == 0)
		return;
	now = rdx_tsc();
	k = rdx_qp_post_burst(ep->qp, wrs, n);
	if (likely(run->rate_period == 0)) {
		for (j = 0; j < k; j++)
			perf_posted(lc, ep, ep->posted + j, now, req);
	} else {
		/* --rate: the latency starts at the intended send time */
		for (j = 0; j < k; j++)
			perf_posted(lc, ep, ep->posted + j,
				    perf_rate_intended(run, ep, ep->posted + j), req);
	}
	ep->posted += k;
	ep->tx += k;
}

/* Step 1 with one op in flight (pp_next): the request built ahead. */
static inline void
pingpong_post_next(struct perf_lcore *lc, struct perf_ep *ep, struct pp_next *nx, uint32_t req)
{
	uint64_t now;

	if (ep->posted >= ep->target || ep->posted != ep->completed ||
	    ep->posted + ep->resent - ep->sq_done >= ep->sq_depth)
		return;
	pp_build_ahead(lc, ep, nx, ep->posted, req, PERF_SALT_REQ); /* the first op */
	now = rdx_tsc();
	RDX_STAMP_AT(RDX_STAMP_REQ_POST, now);
	if (rdx_qp_post_burst(ep->qp, &nx->wr, 1) != 1)
		return;
	perf_posted(lc, ep, ep->posted, now, req);
	ep->posted++;
	ep->tx++;
}

/* The client's chores with pp_next, one per idle pass: 1 when one was done,
 * or negative errno. */
static int
pp_client_idle(struct perf_lcore *lc, struct perf_ep *ep, struct pp_next *nx,
	       struct pp_sample *smp, uint32_t req, uint32_t resp, const char *opname)
{
	int rc;

	if (ep->sq_done != ep->posted + ep->resent) {
		rc = sq_reclaim(lc, ep, opname);
		return rc < 0 ? rc : 1;
	}
	if (smp->pending) {
		pp_record(lc, smp, resp);
		return 1;
	}
	if (ep->rbuf != NULL && !lc->eng->poll_memory &&
	    ep->recv_posted - ep->recv_done < ep->rslots) {
		perf_post_recvs(ep, ep->rslots);
		return 1;
	}
	if (ep->posted < ep->target && (nx->seq != ep->posted || nx->ep != ep)) {
		pp_build_ahead(lc, ep, nx, ep->posted, req, PERF_SALT_REQ);
		return 1;
	}
	return 0;
}

int
perf_pingpong_run(struct perf_lcore *lc)
{
	const struct perf_run *run = lc->run;
	const struct rdx_perf_engine *eng = lc->eng;
	const uint32_t req = (uint32_t)run->req_size;
	const uint32_t resp = (uint32_t)run->size;
	/* --rate: a whole round trip from the intended send time (halving
	 * would halve the queueing too) */
	const unsigned int half = lc->o->mode == PERF_MODE_LAT &&
		eng->lat_kind == PERF_LAT_HALF_RTT && run->rate_period == 0 ? 1 : 0;
	const char *opname = rdx_op_name(eng->op);
	struct rdx_wr wrs[RDX_MAX_BURST];
	struct rdx_sge sges[RDX_MAX_BURST];
	/* one op in flight on one RC QP, closed loop: build ahead (pp_next) */
	const bool ahead = run->window == 1 && lc->nb_eps == 1 && !run->ud &&
		run->rate_period == 0 && run->slots >= PERF_PINGPONG_SLOTS && !lc->o->events;
	struct pp_next nx = { .seq = UINT64_MAX };
	struct pp_sample smp = { .pending = false };
	struct perf_phase ph;
	unsigned int i;
	int rc;

	/* -e: sleep on the responses' CQ, unless this lcore serves too */
	perf_phase_begin(lc, &ph, lc->nb_srv > 0 ? -1 : !eng->poll_memory);
	for (i = 0; i < lc->nb_eps; i++) {
		struct perf_ep *ep = lc->eps[i];

		/* every request is signaled: the drain posts nothing more */
		ep->last_sig = true;
		if (ep->rbuf != NULL && !eng->poll_memory)
			perf_post_recvs(ep, ep->rslots);
	}
	for (;;) {
		unsigned int active = 0;
		int busy = 0;

		for (i = 0; i < lc->nb_eps; i++) {
			struct perf_ep *ep = lc->eps[i];

			if (ahead) {
				/* the response first, the chores on idle passes */
				pingpong_post_next(lc, ep, &nx, req);
				rc = rpc_responses(lc, ep, resp, half, &smp);
				if (rc == 0)
					rc = pp_client_idle(lc, ep, &nx, &smp, req, resp, opname);
				if (rc < 0)
					return rc;
				busy |= rc;
				if (ep->posted < ep->target || ep->completed != ep->posted ||
				    ep->sq_done != ep->posted + ep->resent || smp.pending)
					active++;
				continue;
			}
			pingpong_post(lc, ep, wrs, sges, req);
			/* Step 2: reclaim the send queue, only while a request
			 * is unretired (sq_reclaim) */
			if (ep->sq_done != ep->posted + ep->resent) {
				rc = sq_reclaim(lc, ep, opname);
				if (rc < 0)
					return rc;
				busy |= rc;
			}
			/* Step 3: the responses */
			if (run->ud) {
				const uint64_t oldest = ep->completed;

				/* the oldest op's time-out is looked at whenever
				 * it did not complete, not only on an empty poll:
				 * datagrams arriving on every pass (repeats, or a
				 * peer flooding the well-known Q_Key) must not
				 * keep a lost request from going again */
				rc = ud_responses(lc, ep, resp, half);
				if (rc >= 0 && ep->completed == oldest)
					ud_resend(lc, ep, req);
			} else {
				rc = rpc_responses(lc, ep, resp, half, NULL);
			}
			if (rc < 0)
				return rc;
			busy |= rc;
			if (ep->posted < ep->target || ep->completed != ep->posted ||
			    ep->sq_done != ep->posted + ep->resent)
				active++;
		}
		rc = perf_pass_end(lc, &ph, active, busy);
		if (rc != 0) {
			pp_record(lc, &smp, resp); /* the phase's last op */
			return rc < 0 ? rc : 0;
		}
	}
}
