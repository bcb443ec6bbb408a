/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rpc over one UD QP per endpoint: basic+infud (sender-driven: window,
 * acknowledgements, retransmission after a timeout) and homa+infud
 * (receiver-driven: unscheduled RTTbytes, grants shortest remaining first,
 * RESEND and BUSY). Both cut messages into mtu-byte packets behind the
 * 32-byte header of rdx_rpc_proto.h and reassemble them with its bitmaps;
 * RPC ids per slot suppress duplicates so a handler and a continuation run
 * once per call. doc/rpc.md describes the protocol.
 *
 * Fast path: packet buffers are a ring of queue_depth slots in one
 * registered region, requests land in a pool of buffer pairs mapped at
 * creation (rdx_rpc_ud_ctl.c); no allocation, lock, system call or log
 * here (but the QP's failure, cold, logged once). This file receives,
 * runs timers and grants and starts calls and responses; sending, pumping
 * and retransmission are rdx_rpc_ud_tx.c's (rdx_rpc_ud_priv.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include "rdx_rpc_ud_priv.h"


/* Receives read wait until this many can be reposted in one post (one
 * doorbell record update); the queue_depth >= 64 posted ones leave room. */
#define RPC_UD_RBATCH 8u

static void
rx_flush(struct rdx_rpc_endpoint *ep)
{
	if (rdx_qp_post_recv_burst(ep->qp, ep->rwrs, (uint16_t)ep->nrecv) != ep->nrecv)
		ep->stats.errors++;
	ep->nrecv = 0;
}

/* homa receiver, on a new packet: a RESEND (flagged RETX: answered at
 * once) for each run of missing packets the ones that arrived show lost
 * (rpc_rx_lost), once per run, at most RPC_RESEND_RUNS at a time and
 * rtt_bytes each, instead of waiting for the timer; the timer still asks
 * for what such a RESEND did not bring. */
static void
homa_rx_gaps(struct rdx_rpc_endpoint *ep, const struct rdx_rpc_session *s, struct rpc_rx *rx,
	     struct rpc_rtt_timing *gtm, uint8_t flags, uint16_t type, uint64_t id)
{
	uint32_t cap = rpc_npkts(ep->rtt_bytes, ep->mtu), first = 0, n, k;
	uint64_t end;

	for (k = 0; k < RPC_RESEND_RUNS; k++) {
		n = rpc_rx_lost(rx, rx->asked, RPC_DUPTHRESH, &first);
		if (n == 0)
			break;
		if (n > cap)
			n = cap;
		end = RTE_MIN((uint64_t)(first + n) * ep->mtu, (uint64_t)rx->msg_len);
		ep->stats.resends_sent++;
		rpc_rtt_cancel(gtm); /* a RESEND grants too */
		rpc_ud_send_ctl(ep, s, RPC_PKT_RESEND, flags | RPC_F_RETX, type, id, rx->msg_len,
				first * ep->mtu, (uint32_t)(end - first * ep->mtu), 0);
		rx->asked = first + n;
	}
}

/* basic receiver: whether a new packet i is acknowledged at once: every
 * (window + 1) / 2 of them, and any that arrived out of order (a hole
 * below it, or it filled one), so that the sender sees each loss after
 * RPC_DUPTHRESH more packets, or at the message's last one. */
static inline bool
basic_ack_now(const struct rdx_rpc_endpoint *ep, const struct rpc_rx *rx, uint32_t *due,
	      uint32_t i)
{
	if (++*due < (ep->window + 1) / 2 && rx->cum > i && i + 1 == rx->high)
		return false;
	*due = 0;
	return true;
}

/* ------------------------------------------------------------------ */
/* Receiving: the client side (responses; acks, grants, resends, busy  */
/* about our requests)                                                 */

static void
client_rx(struct rdx_rpc_endpoint *ep, struct rpc_cslot *c, const struct rpc_hdr *h,
	  const uint8_t *payload, uint64_t now)
{
	struct rdx_rpc_session *s = c->sess;
	uint64_t map;
	int r;

	if (!c->busy || h->rpc_id != c->id) {
		if (h->kind == RPC_PKT_DATA) {
			ep->stats.dup_dropped++;
			/* the response of our last call again: its ACK was lost */
			if (c->used && h->rpc_id == c->id)
				rpc_ud_send_ctl(ep, s, RPC_PKT_ACK, RPC_F_RESP, h->type, h->rpc_id,
					 h->msg_len, rpc_npkts(h->msg_len, ep->mtu) * ep->mtu, 0, 0);
		}
		return;
	}
	/* BUSY only says the peer is alive: a handler that never answers
	 * must not keep the call from timing out (as on infrc) */
	if (h->kind != RPC_PKT_BUSY)
		c->t_progress = now;
	switch (h->kind) {
	case RPC_PKT_ACK:
		memcpy(&map, payload, sizeof(map));
		if (rpc_tx_ack(&c->tx, h->offset / ep->mtu, rte_le_to_cpu_64(map)) > 0) {
			struct rpc_out o = rpc_ud_out_client(c);

			if (c->tm.t != 0 && rpc_tx_acked(&c->tx, c->tm.pkt))
				rpc_rtt_end(&s->rtt, &c->tm, now);
			c->t_retx = now;
			c->backoff = 0;
			ep->pump = true;
			if (!ep->homa)
				rpc_ud_retx_lost(ep, &o);
		}
		if (rpc_tx_done(&c->tx))
			c->req_done = true;
		return;
	case RPC_PKT_GRANT:
		ep->stats.grants_rcvd++;
		/* the first GRANT follows the arrival of some packet of ours,
		 * none sent before packet 0 */
		if (c->tm.t != 0 && c->tm.pkt == 0)
			rpc_rtt_end(&s->rtt, &c->tm, now);
		if (rpc_tx_grant(&c->tx, rpc_npkts(h->offset, ep->mtu)))
			rpc_ud_pump_client(ep, c);
		return;
	case RPC_PKT_RESEND: {
		struct rpc_out o = rpc_ud_out_client(c);

		ep->stats.resends_rcvd++;
		rpc_ud_retx_resend(ep, &o, h);
		return;
	}
	case RPC_PKT_BUSY:
		ep->stats.busy_rcvd++;
		c->req_done = true;
		c->t_retx = now;
		return;
	default:
		break;
	}
	/* DATA of the response: the request arrived whole (the timed packet
	 * with it) */
	c->req_done = true;
	if (c->tm.t != 0)
		rpc_rtt_end(&s->rtt, &c->tm, now);
	if (!c->resp_started) {
		if (h->flags & RPC_F_ERR || h->msg_len > c->resp_cap) {
			rpc_ud_send_ctl(ep, s, RPC_PKT_ACK, RPC_F_RESP, h->type, h->rpc_id, h->msg_len,
				 rpc_npkts(h->msg_len, ep->mtu) * ep->mtu, 0, 0);
			rpc_call_complete(c, h->flags & RPC_F_ERR ? -ENOENT : -EMSGSIZE,
					  h->msg_len);
			return;
		}
		if (rpc_rx_init(&c->rx, h->msg_len, ep->mtu) != 0) {
			ep->stats.bad_pkts++;
			return;
		}
		c->resp_started = true;
		if (ep->homa)
			rpc_grant_add(&ep->gs, &c->gent, h->msg_len);
	} else if (h->msg_len != c->rx.msg_len) {
		ep->stats.bad_pkts++;
		return;
	}
	r = rpc_rx_add(&c->rx, h->offset / ep->mtu, h->length);
	if (r <= 0) {
		ep->stats.dup_dropped++;
		if (!ep->homa)
			rpc_ud_send_ctl(ep, s, RPC_PKT_ACK, RPC_F_RESP, h->type, c->id, c->rx.msg_len,
				 rpc_ud_ack_off(ep, &c->rx), 0, rpc_rx_ack_map(&c->rx));
		return;
	}
	c->t_retx = now;
	c->backoff = 0;
	c->rx_defers = 0;
	/* homa: a first-time packet past the timed grant's edge answers it */
	if (c->gtm.t != 0 && !(h->flags & RPC_F_RETX) && h->offset / ep->mtu >= c->gtm.pkt)
		rpc_rtt_end(&s->rtt, &c->gtm, now);
	if (h->length != 0)
		rpc_copy(c->resp + h->offset, payload, h->length);
	if (rpc_rx_complete(&c->rx)) {
		rpc_ud_send_ctl(ep, s, RPC_PKT_ACK, RPC_F_RESP, h->type, c->id, c->rx.msg_len,
			 rpc_ud_ack_off(ep, &c->rx), 0, 0);
		rpc_call_complete(c, 0, c->rx.msg_len);
		return;
	}
	if (ep->homa) {
		c->gent.rcvd = c->rx.rcvd_bytes;
		ep->grant_dirty = true;
		homa_rx_gaps(ep, s, &c->rx, &c->gtm, RPC_F_RESP, c->type, c->id);
	} else if (basic_ack_now(ep, &c->rx, &c->acks_due, h->offset / ep->mtu)) {
		rpc_ud_send_ctl(ep, s, RPC_PKT_ACK, RPC_F_RESP, h->type, c->id, c->rx.msg_len,
			 rpc_ud_ack_off(ep, &c->rx), 0, rpc_rx_ack_map(&c->rx));
	}
}

/* ------------------------------------------------------------------ */
/* Receiving: the server side (requests; acks, grants, resends about  */
/* our responses)                                                     */

static void
server_data(struct rdx_rpc_endpoint *ep, struct rpc_sslot *ss, enum rpc_id_class cls,
	    const struct rpc_hdr *h, const uint8_t *payload, uint64_t now)
{
	struct rdx_rpc_session *s = ss->req.sess;
	int r;

	if (cls == RPC_ID_STALE) {
		ep->stats.dup_dropped++;
		return;
	}
	if (cls == RPC_ID_NEW) {
		if (ss->state == SS_HANDLER) {
			/* the peer cannot have moved on without our response */
			ep->stats.bad_pkts++;
			return;
		}
		rpc_ud_ss_release(ep, ss);
		if (!rpc_ud_pool_get(ep, ss)) {
			ep->stats.no_buf++;
			return;
		}
		if (rpc_rx_init(&ss->rx, h->msg_len, ep->mtu) != 0) {
			rpc_ud_ss_release(ep, ss);
			ep->stats.bad_pkts++;
			return;
		}
		ss->id = h->rpc_id;
		ss->used = true;
		rpc_ss_busy_on(ss, SS_RECV);
		rpc_rtt_cancel(&ss->gtm);
		rpc_rtt_cancel(&ss->tm);
		ss->t_sent = 0;
		ss->flags = 0;
		ss->acks_due = 0;
		ss->req.type = h->type;
		ss->req.len = h->msg_len;
		if (ep->homa)
			rpc_grant_add(&ep->gs, &ss->gent, h->msg_len);
	} else if (ss->state != SS_RECV) {
		ep->stats.dup_dropped++;
		if (!ep->homa && ss->state != SS_RESP)
			rpc_ud_send_ctl(ep, s, RPC_PKT_ACK, 0, h->type, h->rpc_id, h->msg_len,
				 rpc_npkts(h->msg_len, ep->mtu) * ep->mtu, 0, 0);
		return;
	} else if (h->msg_len != ss->rx.msg_len || h->type != ss->req.type) {
		ep->stats.bad_pkts++;
		return;
	}
	ss->t_progress = now;
	r = rpc_rx_add(&ss->rx, h->offset / ep->mtu, h->length);
	if (r <= 0) {
		ep->stats.dup_dropped++;
		if (!ep->homa)
			rpc_ud_send_ctl(ep, s, RPC_PKT_ACK, 0, h->type, ss->id, ss->rx.msg_len,
				 rpc_ud_ack_off(ep, &ss->rx), 0, rpc_rx_ack_map(&ss->rx));
		return;
	}
	ss->t_retx = now;
	ss->backoff = 0;
	ss->rx_defers = 0;
	if (ss->gtm.t != 0 && !(h->flags & RPC_F_RETX) && h->offset / ep->mtu >= ss->gtm.pkt)
		rpc_rtt_end(&s->rtt, &ss->gtm, now);
	if (h->length != 0)
		rpc_copy(ss->reqbuf + h->offset, payload, h->length);
	if (rpc_rx_complete(&ss->rx)) {
		if (ss->gent.pos != RPC_NONE)
			rpc_grant_remove(&ep->gs, &ss->gent);
		rpc_request_dispatch(ss);
		/* a response sent at once acknowledges the request itself */
		if (!ep->homa && ss->state == SS_HANDLER)
			rpc_ud_send_ctl(ep, s, RPC_PKT_ACK, 0, ss->req.type, ss->id, ss->rx.msg_len,
				 rpc_ud_ack_off(ep, &ss->rx), 0, 0);
		return;
	}
	if (ep->homa) {
		ss->gent.rcvd = ss->rx.rcvd_bytes;
		ep->grant_dirty = true;
		homa_rx_gaps(ep, s, &ss->rx, &ss->gtm, 0, ss->req.type, ss->id);
	} else if (basic_ack_now(ep, &ss->rx, &ss->acks_due, h->offset / ep->mtu)) {
		rpc_ud_send_ctl(ep, s, RPC_PKT_ACK, 0, h->type, ss->id, ss->rx.msg_len,
			 rpc_ud_ack_off(ep, &ss->rx), 0, rpc_rx_ack_map(&ss->rx));
	}
}

static void
server_rx(struct rdx_rpc_endpoint *ep, struct rpc_sslot *ss, const struct rpc_hdr *h,
	  const uint8_t *payload, uint64_t now)
{
	struct rdx_rpc_session *s = ss->req.sess;
	enum rpc_id_class cls = rpc_id_classify(ss->id, ss->used, h->rpc_id);
	uint64_t map;

	if (h->kind == RPC_PKT_DATA) {
		server_data(ep, ss, cls, h, payload, now);
		return;
	}
	if (h->kind == RPC_PKT_RESEND) {
		ep->stats.resends_rcvd++;
		if (cls == RPC_ID_NEW) {
			/* we never saw this request: ask for its start */
			ep->stats.resends_sent++;
			rpc_ud_send_ctl(ep, s, RPC_PKT_RESEND, 0, h->type, h->rpc_id, 0, 0, 0, 0);
		} else if (cls == RPC_ID_CURRENT && (ss->state == SS_RECV || ss->state == SS_HANDLER)) {
			ep->stats.busy_sent++;
			rpc_ud_send_ctl(ep, s, RPC_PKT_BUSY, RPC_F_RESP, h->type, h->rpc_id, 0, 0, 0, 0);
		} else if (cls == RPC_ID_CURRENT && ss->state == SS_RESP) {
			struct rpc_out o = rpc_ud_out_server(ss);

			ss->t_progress = now;
			rpc_ud_retx_resend(ep, &o, h);
		}
		return;
	}
	if (cls != RPC_ID_CURRENT || ss->state != SS_RESP)
		return;
	ss->t_progress = now;
	if (h->kind == RPC_PKT_GRANT) {
		ep->stats.grants_rcvd++;
		if (ss->tm.t != 0 && ss->tm.pkt == 0)
			rpc_rtt_end(&s->rtt, &ss->tm, now);
		if (rpc_tx_grant(&ss->tx, rpc_npkts(h->offset, ep->mtu)))
			rpc_ud_pump_server(ep, ss);
		return;
	}
	/* ACK of the response: it answers the timed packet when it covers it
	 * (basic: what our timer waits for; homa's final ACK has no part in
	 * its reliability) */
	if (h->offset / ep->mtu >= ss->tx.npkts) {
		if (ss->tm.t != 0 && !ep->homa)
			rpc_rtt_end(&s->rtt, &ss->tm, now);
		rpc_ud_ss_release(ep, ss);
		return;
	}
	if (ep->homa)
		return;
	memcpy(&map, payload, sizeof(map));
	if (rpc_tx_ack(&ss->tx, h->offset / ep->mtu, rte_le_to_cpu_64(map)) > 0) {
		struct rpc_out o = rpc_ud_out_server(ss);

		if (ss->tm.t != 0 && rpc_tx_acked(&ss->tx, ss->tm.pkt))
			rpc_rtt_end(&s->rtt, &ss->tm, now);
		ss->t_retx = now;
		ss->backoff = 0;
		ep->pump = true;
		if (!(h->flags & RPC_F_RETX))
			rpc_ud_retx_lost(ep, &o);
	}
	if (rpc_tx_done(&ss->tx)) {
		rpc_ud_ss_release(ep, ss);
	} else if (h->flags & RPC_F_RETX) {
		/* the receiver waited its RTO with no new packet: what it
		 * lacks below what it has is lost, and so is (or is late) its
		 * first missing packet; our own timer may wait longer */
		struct rpc_out o = rpc_ud_out_server(ss);

		rpc_ud_retx_timeout(ep, &o);
	}
}

static void
ud_rx(struct rdx_rpc_endpoint *ep, const uint8_t *pkt, uint32_t len, uint32_t src_qp,
      uint64_t now)
{
	struct rdx_rpc_session *s;
	struct rpc_hdr h;
	bool to_client;
	uint32_t k;

	if (unlikely((!rpc_pkt_parse_short(pkt, len, &ep->lim, &h) &&
		      rpc_pkt_parse(pkt, len, &ep->lim, &h) != 0) ||
		     (h.dst_session & RPC_SESS_IDX_MASK) >= ep->max_sessions)) {
		ep->stats.bad_pkts++;
		return;
	}
	s = ep->sess[h.dst_session & RPC_SESS_IDX_MASK];
	if (unlikely(s == NULL || !s->connected || h.dst_session != s->wire_id ||
		     src_qp != s->peer_qpn)) {
		ep->stats.bad_pkts++;
		return;
	}
	ep->stats.rx_pkts++;
	s->t_rx = now;
	k = rpc_slot_of(ep, h.rpc_id);
	to_client = h.kind == RPC_PKT_BUSY ||
		    (h.kind == RPC_PKT_DATA) == ((h.flags & RPC_F_RESP) != 0);
	if (to_client)
		client_rx(ep, &s->cs[k], &h, (const uint8_t *)pkt + RPC_HDR_LEN, now);
	else
		server_rx(ep, &s->ss[k], &h, (const uint8_t *)pkt + RPC_HDR_LEN, now);
}

/* ------------------------------------------------------------------ */
/* Failures and retired address handles (cold)                        */

/*
 * A completion in error: the UD QP is in the error state for good (a
 * device refuses every later WR with a flush). Once: one log line, every
 * call in flight fails with -EIO, the server slots are released and the
 * sessions refuse new calls (-ENOTCONN); the receives are not reposted, so
 * the flushes end (destroy the endpoint and create another to go on).
 */
void __rte_noinline __rte_cold
rpc_ud_qp_failed(struct rdx_rpc_endpoint *ep, const struct rdx_wc *w)
{
	uint32_t i, k;

	if (ep->qp_err)
		return;
	ep->qp_err = true;
	rpc_log("endpoint %s: its UD QP went to error (%s completion, status %u, vendor error 0x%x):"
		" calls fail with -EIO, new ones are refused", ep->name,
		w->wr_id == UINT64_MAX ? "send" : "receive", w->status, w->vendor_err);
	for (i = 0; i < ep->max_sessions; i++) {
		for (k = 0; ep->sess[i] != NULL && k < ep->slots; k++) {
			struct rdx_rpc_session *s = ep->sess[i];

			s->connected = false;
			rpc_rto_least_drop(ep, s);
			/* a deferred handler's slot goes on its rdx_rpc_respond */
			if (s->ss[k].state != SS_HANDLER)
				rpc_ud_ss_release(ep, &s->ss[k]);
			if (s->cs[k].busy)
				rpc_call_complete(&s->cs[k], -EIO, 0);
		}
	}
	ep->tx_out -= ep->nwr;
	ep->nwr = 0;
	ep->nrecv = 0;
}

/* Sends retired so far: the posted ones (tx_pkts) less those still out
 * (tx_out counts the queued nwr as well). The send queue retires in order. */
static inline uint64_t
ud_sends_retired(const struct rdx_rpc_endpoint *ep)
{
	return ep->stats.tx_pkts - (ep->tx_out - ep->nwr);
}

/* Destroy the kept AHs that no queued send names any more (they were
 * kept in the order they died, so those are a prefix). */
void
rpc_ud_dead_ah_reap(struct rdx_rpc_endpoint *ep)
{
	uint64_t retired = ud_sends_retired(ep);
	uint32_t n = 0;

	while (n < ep->ndead_ah && ep->dead_ah[n].retire_at <= retired)
		rdx_ah_destroy(ep->dead_ah[n++].ah);
	if (n == 0)
		return;
	ep->ndead_ah -= n;
	memmove(ep->dead_ah, ep->dead_ah + n, ep->ndead_ah * sizeof(*ep->dead_ah));
}

/* ------------------------------------------------------------------ */
/* Progress: grants, pumping, timers                                  */

static void
run_grants(struct rdx_rpc_endpoint *ep)
{
	uint32_t i, n;

	ep->grant_dirty = false;
	n = rpc_grant_run(&ep->gs, ep->gout, RTE_DIM(ep->gout));
	for (i = 0; i < n; i++) {
		struct rpc_grant_ent *e = ep->gout[i];

		ep->stats.grants_sent++;
		/* the packets from the old grant's edge on can only be sent
		 * once this grant arrived: the first of them times it */
		uint32_t edge = rpc_npkts(e->prev_granted, ep->mtu);

		if (e->role == RPC_ROLE_CLIENT) {
			struct rpc_cslot *c = e->ctx;

			rpc_ud_send_ctl(ep, c->sess, RPC_PKT_GRANT, RPC_F_RESP, c->type, c->id,
				 e->msg_len, e->granted, 0, 0);
			rpc_rtt_start(&c->gtm, ep->now, edge);
		} else {
			struct rpc_sslot *ss = e->ctx;

			rpc_ud_send_ctl(ep, ss->req.sess, RPC_PKT_GRANT, 0, ss->req.type, ss->id,
				 e->msg_len, e->granted, 0, 0);
			rpc_rtt_start(&ss->gtm, ep->now, edge);
		}
	}
}

/* homa receiver timer: ask for the first missing range below the grant,
 * or repeat the grant when nothing below it is missing. */
static void
homa_rx_timeout(struct rdx_rpc_endpoint *ep, const struct rdx_rpc_session *s,
		const struct rpc_rx *rx, const struct rpc_grant_ent *g,
		struct rpc_rtt_timing *gtm, uint8_t flags, uint16_t type, uint64_t id)
{
	uint32_t granted = g->granted != 0 ? g->granted : rx->msg_len;
	uint32_t first = 0, from = 0, n, k;

	if (granted > rx->msg_len || g->pos == RPC_NONE)
		granted = rx->msg_len;
	if (granted < ep->rtt_bytes)
		granted = ep->rtt_bytes < rx->msg_len ? ep->rtt_bytes : rx->msg_len;
	/* the first run of missing packets, and up to RPC_RESEND_RUNS - 1
	 * more that later packets followed (lost, not on their way), each at
	 * most rtt_bytes (a grant may run further ahead: rpc_grant_budget,
	 * and a RESEND that crosses the packets on their way has them all
	 * sent twice): losses are apart, and one RTO per run would add up */
	for (k = 0; k < RPC_RESEND_RUNS; k++) {
		uint32_t limit = rpc_npkts(granted, ep->mtu);
		uint64_t end;

		n = rpc_rx_missing_from(rx, from, limit, &first);
		if (n == 0 || (k > 0 && first + n >= RTE_MIN(limit, rx->npkts)))
			break;
		if (n > rpc_npkts(ep->rtt_bytes, ep->mtu))
			n = rpc_npkts(ep->rtt_bytes, ep->mtu);
		end = (uint64_t)(first + n) * ep->mtu;
		if (end > rx->msg_len)
			end = rx->msg_len;
		ep->stats.resends_sent++;
		/* a RESEND grants too: what follows may answer either */
		rpc_rtt_cancel(gtm);
		rpc_ud_send_ctl(ep, s, RPC_PKT_RESEND, flags, type, id, rx->msg_len, first * ep->mtu,
			 (uint32_t)(end - first * ep->mtu), 0);
		from = first + n;
	}
	if (k == 0) {
		ep->stats.grants_sent++;
		rpc_ud_send_ctl(ep, s, RPC_PKT_GRANT, flags, type, id, rx->msg_len, granted, 0, 0);
	}
}

/* A timer expired after waiting `wait`: whether it may send. While the
 * peer sent nothing for that long, one timer per session and scan sends
 * (its answer tells whether the peer is back); the others only back off:
 * a peer off the CPU would get the same packets again from each of its
 * messages, then have them all twice. */
static inline bool
timer_may_send(struct rdx_rpc_session *s, uint64_t now, uint64_t wait)
{
	if (!rpc_timer_expired(now, s->t_rx, wait))
		return true;
	if (s->probed)
		return false;
	s->probed = true;
	return true;
}

static void
client_timer(struct rdx_rpc_endpoint *ep, struct rpc_cslot *c, uint64_t now)
{
	struct rdx_rpc_session *s = c->sess;
	uint64_t wait;

	if (rpc_timer_expired(now, c->t_progress, ep->call_to)) {
		rpc_call_complete(c, -ETIMEDOUT, 0);
		return;
	}
	wait = rpc_rtt_wait(&s->rtt, c->backoff);
	if (!rpc_timer_expired(now, c->t_retx, wait))
		return;
	c->t_retx = now;
	/* waiting for the response: while the peer's other packets come, it
	 * is sending those first (or the answer is queued behind them) */
	if (c->req_done && !rpc_timer_expired(now, s->t_rx, wait) && c->rx_defers < RPC_RX_DEFERS) {
		c->rx_defers++;
		return;
	}
	c->rx_defers = 0;
	c->backoff = rpc_rtt_backoff(c->backoff, rpc_timer_expired(now, s->t_rx, wait),
				     RPC_MAX_BACKOFF);
	if (!timer_may_send(s, now, wait))
		return;
	if (!ep->homa && !c->req_done && !rpc_tx_done(&c->tx)) {
		struct rpc_out o = rpc_ud_out_client(c);

		rpc_ud_retx_timeout(ep, &o);
	} else if (!c->resp_started) {
		ep->stats.resends_sent++;
		rpc_rtt_cancel(&c->tm);
		rpc_ud_send_ctl(ep, s, RPC_PKT_RESEND, RPC_F_RESP, c->type, c->id, 0, 0, 0, 0);
	} else if (ep->homa) {
		homa_rx_timeout(ep, s, &c->rx, &c->gent, &c->gtm, RPC_F_RESP, c->type, c->id);
	} else {
		/* basic: our timer's ACK tells the sender what is lost */
		rpc_ud_send_ctl(ep, s, RPC_PKT_ACK, RPC_F_RESP | RPC_F_RETX, c->type, c->id,
			 c->rx.msg_len, rpc_ud_ack_off(ep, &c->rx), 0, rpc_rx_ack_map(&c->rx));
	}
}

static void
server_timer(struct rdx_rpc_endpoint *ep, struct rpc_sslot *ss, uint64_t now)
{
	struct rdx_rpc_session *s = ss->req.sess;

	if (ss->state == SS_RECV) {
		if (rpc_timer_expired(now, ss->t_progress, ep->call_to)) {
			rpc_served_giveup_log(ss);
			rpc_ud_ss_release(ep, ss); /* the caller gave up; its id stays used */
		} else if (ep->homa &&
			   rpc_timer_expired(now, ss->t_retx, rpc_rtt_wait(&s->rtt, ss->backoff))) {
			uint64_t wait = rpc_rtt_wait(&s->rtt, ss->backoff);

			ss->t_retx = now;
			/* as client_timer: the peer sends its other packets first */
			if (!rpc_timer_expired(now, s->t_rx, wait) && ss->rx_defers < RPC_RX_DEFERS) {
				ss->rx_defers++;
				return;
			}
			ss->rx_defers = 0;
			ss->backoff = rpc_rtt_backoff(ss->backoff, rpc_timer_expired(now, s->t_rx, wait),
						      RPC_MAX_BACKOFF);
			if (!timer_may_send(s, now, wait))
				return;
			homa_rx_timeout(ep, s, &ss->rx, &ss->gent, &ss->gtm, 0, ss->req.type, ss->id);
		}
	} else if (ss->state == SS_RESP) {
		if (rpc_timer_expired(now, ss->t_progress, ep->call_to)) {
			rpc_served_giveup_log(ss);
			rpc_ud_ss_release(ep, ss);
		} else if (!ep->homa && !rpc_tx_done(&ss->tx) &&
			   rpc_timer_expired(now, ss->t_retx, rpc_rtt_wait(&s->rtt, ss->backoff))) {
			struct rpc_out o = rpc_ud_out_server(ss);

			uint64_t wait = rpc_rtt_wait(&s->rtt, ss->backoff);

			ss->t_retx = now;
			ss->backoff = rpc_rtt_backoff(ss->backoff, rpc_timer_expired(now, s->t_rx, wait),
						      RPC_MAX_BACKOFF);
			if (timer_may_send(s, now, wait))
				rpc_ud_retx_timeout(ep, &o);
		}
	}
}

/* The least RTO again, over every connected session (the one that had
 * it rose or went). A session's RTO moves only with a sample, taken while
 * one of its slots is busy: the timer scan that follows visits it and
 * notes its RTO (rpc_rto_least_note), so the others' are as last noted. */
static void
rto_least_find(struct rdx_rpc_endpoint *ep)
{
	uint32_t i;

	ep->rto_least = ep->rto;
	ep->rto_least_sess = RPC_NONE;
	ep->rto_dirty = false;
	for (i = 0; i < ep->max_sessions; i++) {
		const struct rdx_rpc_session *s = ep->sess[i];

		if (s != NULL && s->connected && s->rtt.rto < ep->rto_least) {
			ep->rto_least = s->rtt.rto;
			ep->rto_least_sess = i;
		}
	}
}

/* Pump what may be sent; with timers, run every busy slot's timers and
 * take the next scan's period: a quarter of the smallest session RTO.
 * Only the sessions that had a busy slot since the last timer scan are
 * visited (ep->active; one that timer scan finds idle leaves it), and in
 * them only the busy slots
 * (cbusy | sbusy), in the order of their index; after a slot's timers
 * (which may free slots and run continuations that call) the masks are
 * read again, so that a slot made busy further on is visited in this scan
 * too. */
static void
scan(struct rdx_rpc_endpoint *ep, uint64_t now, bool timers)
{
	uint32_t w, nw = (ep->max_sessions + 63u) / 64u;

	ep->pump = false;
	ep->scans++;
	for (w = 0; w < nw; w++) {
		uint64_t sm = ep->active[w];

		while (sm != 0) {
			uint32_t b = (uint32_t)__builtin_ctzll(sm);
			struct rdx_rpc_session *s = ep->sess[w * 64u + b];
			uint64_t m;

			sm = ep->active[w] & (~UINT64_C(1) << b);
			if (s == NULL || !s->connected)
				continue;
			ep->scan_visits++;
			if (timers)
				rpc_rto_least_note(ep, s);
			if ((s->cbusy | s->sbusy) == 0) {
				if (timers) /* idle since: its RTO is in rto_least */
					ep->active[w] &= ~(UINT64_C(1) << b);
				continue;
			}
			s->probed = false;
			for (m = s->cbusy | s->sbusy; m != 0;) {
				uint32_t k = (uint32_t)__builtin_ctzll(m);
				struct rpc_cslot *c = &s->cs[k];
				struct rpc_sslot *ss = &s->ss[k];

				if (c->busy && rpc_tx_sendable(&c->tx) > 0)
					rpc_ud_pump_client(ep, c);
				if (ss->state == SS_RESP && rpc_tx_sendable(&ss->tx) > 0)
					rpc_ud_pump_server(ep, ss);
				if (!timers) {
					m &= m - 1; /* pumping frees no slot, starts no call */
					continue;
				}
				if (c->busy)
					client_timer(ep, c, now);
				if (ss->state != SS_IDLE)
					server_timer(ep, ss, now);
				m = (s->cbusy | s->sbusy) & (~UINT64_C(1) << k);
			}
			sm = ep->active[w] & (~UINT64_C(1) << b);
		}
	}
	if (timers) {
		if (ep->rto_dirty)
			rto_least_find(ep);
		ep->scan_period = ep->rto_least / 4 != 0 ? ep->rto_least / 4 : 1;
	}
}

int
rpc_ud_poll(struct rdx_rpc_endpoint *ep)
{
	struct rdx_wc wc[RPC_BURST];
	uint64_t now = rte_rdtsc();
	uint32_t i, n;
	int work;

	ep->now = now;
	/* What handlers and continuations send is queued and posted at the
	 * end, one burst per poll (rpc_ud_call, rpc_ud_respond) */
	ep->in_poll++;
	n = rdx_cq_poll_burst(ep->cq, wc, RPC_BURST);
	work = (int)n;
	for (i = 0; i < n; i++) {
		const struct rdx_wc *w = &wc[i];

		if (w->wr_id == UINT64_MAX) {
			ep->tx_out -= w->retired != 0 ? w->retired : 1;
			if (unlikely(w->status != 0)) {
				ep->stats.errors++;
				rpc_ud_qp_failed(ep, w);
			}
			if (unlikely(ep->ndead_ah != 0))
				rpc_ud_dead_ah_reap(ep);
			continue;
		}
		if (unlikely(w->wr_id >= ep->qdepth)) {
			ep->stats.errors++;
			continue;
		}
		if (unlikely(w->status != 0)) {
			/* flushed or failed: the QP is in error, no repost */
			ep->stats.errors++;
			rpc_ud_qp_failed(ep, w);
			continue;
		}
		if (unlikely(ep->qp_err))
			continue;
		if (likely(w->byte_len >= RDX_UD_GRH_BYTES))
			ud_rx(ep, ep->rxb + (size_t)w->wr_id * ep->rx_size + RDX_UD_GRH_BYTES,
			      w->byte_len - RDX_UD_GRH_BYTES, w->src_qp, now);
		else
			ep->stats.errors++;
		/* repost the buffer */
		ep->rsges[ep->nrecv].addr = ep->rx_iova + w->wr_id * ep->rx_size;
		ep->rwrs[ep->nrecv].wr_id = w->wr_id; /* the rest is filled once: ud_ep_init */
		if (++ep->nrecv == RPC_BURST)
			rx_flush(ep);
	}
	if (unlikely(ep->qp_err)) {
		ep->nrecv = 0;
		ep->tx_out -= ep->nwr;
		ep->nwr = 0;
		ep->in_poll--;
		return work;
	}
	if (ep->nrecv >= RPC_UD_RBATCH)
		rx_flush(ep);
	if (ep->grant_dirty)
		run_grants(ep);
	/* Back from a pause (this thread was not running): the peer's answers
	 * may not have been read yet, or not even sent when the peer shares
	 * the pause. The timers wait a scan period more, once between two
	 * scans (so an endpoint polled less often than that still runs them),
	 * instead of taking the pause for a loss. */
	if (unlikely(now - ep->last_poll > ep->scan_period) && !ep->scan_deferred) {
		ep->next_scan = now + ep->scan_period;
		ep->scan_deferred = true;
	}
	ep->last_poll = now;
	if (ep->pump || now >= ep->next_scan) {
		/* A full burst leaves completions in the CQ: the packets a timer
		 * would miss may be among them. The timers wait for a poll that
		 * drains it, at most four scan periods. */
		bool timers = now >= ep->next_scan &&
			      (n < RPC_BURST || now >= ep->next_scan + 4 * ep->scan_period);

		if (ep->pump)
			work++;
		scan(ep, now, timers);
		if (timers) {
			ep->next_scan = now + ep->scan_period;
			ep->scan_deferred = false;
		}
	}
	ep->in_poll--;
	rpc_ud_tx_flush(ep);
	return work;
}

/* ------------------------------------------------------------------ */
/* Calls and responses                                                */

int
rpc_ud_call(struct rdx_rpc_session *s, struct rpc_cslot *c)
{
	struct rdx_rpc_endpoint *ep = s->ep;
	uint32_t npkts = rpc_npkts(c->req_len, ep->mtu);

	if (unlikely(ep->qp_err))
		return -EIO;
	if (unlikely(rpc_ud_tx_get(ep) == NULL))
		return -ENOBUFS;
	if (ep->homa)
		rpc_tx_init(&c->tx, npkts, 0, rpc_npkts(ep->rtt_bytes, ep->mtu));
	else
		rpc_tx_init(&c->tx, npkts, ep->window, 0);
	ep->now = c->t_progress = c->t_retx = rte_rdtsc();
	c->backoff = 0;
	rpc_rtt_cancel(&c->tm);
	rpc_rtt_cancel(&c->gtm);
	c->t_sent = c->t_resend = 0;
	c->gent.role = RPC_ROLE_CLIENT;
	if (npkts == 1)
		rpc_ud_pump_first(ep, s, &c->tx, &c->tm, &c->t_sent, 0, c->type, c->id, c->req, c->req_len);
	else
		rpc_ud_pump_client(ep, c);
	if (ep->in_poll == 0)
		rpc_ud_tx_flush(ep);
	return 0;
}

void
rpc_ud_respond(struct rpc_sslot *ss)
{
	struct rdx_rpc_endpoint *ep = ss->req.sess->ep;
	uint32_t npkts = rpc_npkts(ss->resp_len, ep->mtu);

	if (unlikely(ep->qp_err)) {
		rpc_ud_ss_release(ep, ss); /* nowhere to send it */
		return;
	}
	if (ep->homa)
		rpc_tx_init(&ss->tx, npkts, 0, rpc_npkts(ep->rtt_bytes, ep->mtu));
	else
		rpc_tx_init(&ss->tx, npkts, ep->window, 0);
	ep->now = ss->t_progress = ss->t_retx = rte_rdtsc();
	ss->backoff = 0;
	rpc_rtt_cancel(&ss->tm);
	ss->t_sent = ss->t_resend = 0;
	if (npkts == 1)
		rpc_ud_pump_first(ep, ss->req.sess, &ss->tx, &ss->tm, &ss->t_sent,
			   (uint8_t)(RPC_F_RESP | ss->flags), ss->req.type, ss->id, ss->req.resp,
			   ss->resp_len);
	else
		rpc_ud_pump_server(ep, ss);
	if (ep->in_poll == 0)
		rpc_ud_tx_flush(ep);
}
