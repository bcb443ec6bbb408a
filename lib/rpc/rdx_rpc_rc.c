/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rpc over RC ("infrc"): one RC QP per session, one CQ per endpoint. A
 * message is one SEND of the 32-byte header (rdx_rpc_proto.h) and the
 * message into a posted receive buffer of 32 + max_msg_size bytes. The QP
 * is reliable and ordered, so there are no retransmissions, acks or
 * duplicates; the ids are still checked. Each session holds, in one
 * registered region: 3 * slots + 8 receive buffers, slots request buffers and
 * slots response buffers. A handler reads the request in its receive
 * buffer (reposted on rdx_rpc_respond) and writes the response straight
 * into its registered buffer: one copy per call, the request's.
 *
 * Receive accounting: a receive stays taken past the poll that reads it
 * only while it holds a request, the one its slot's handler has (at most
 * slots) or a newer one held until that slot is free (at most one per
 * slot: a newer one still replaces it and frees its receive). So at most
 * 2 * slots are held, and slots stay posted for the responses to our calls
 * (at most slots in flight), whatever the peer's handlers and ours do.
 * Everything else (responses, duplicates, refused packets, a request that
 * replaces a held one) is reposted as it is read; more arrivals between
 * two polls than there are posted receives (late responses of timed-out
 * calls beside the new ones) wait in RNR until the next poll reposts (the
 * requester retries for ever, rnr_retry 7). With 2 * slots receives,
 * a server that held both kinds in every slot left none: the responses to
 * its own calls on the session met RNR NAKs until it answered (test
 * mutual_held).
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include "rdx_rpc_priv.h"

static inline size_t
rc_bsz(const struct rdx_rpc_endpoint *ep)
{
	return RTE_ALIGN_CEIL((size_t)RPC_HDR_LEN + ep->max_msg, 64);
}

/* Buffer k of a session: receives 0..R-1 (R = 3S + RPC_RC_RBATCH),
 * request buffers R..R+S-1, response buffers R+S..R+2S-1. A receive read
 * is reposted with the next RPC_RC_RBATCH - 1 ones in one post (one
 * doorbell record update): the RPC_RC_RBATCH receives beyond 3S cover the
 * ones waiting for their batch, so the accounting above still holds. */
#define RC_RECVS(ep) (3 * (ep)->slots + RPC_RC_RBATCH)
#define RC_REQ_BUF(ep, idx) (RC_RECVS(ep) + (idx))
#define RC_RESP_BUF(ep, idx) (RC_RECVS(ep) + (ep)->slots + (idx))
#define RC_BUFS(ep) (RC_RECVS(ep) + 2 * (ep)->slots)
/* the least signaling interval of a session's sends */
#define RC_SIG_MIN 32u

static inline uint8_t *
rc_buf(const struct rdx_rpc_session *s, uint32_t k)
{
	return s->base + (size_t)k * s->bsz;
}

static inline uint64_t
rc_iova(const struct rdx_rpc_session *s, uint32_t k)
{
	return s->iova + (uint64_t)k * s->bsz;
}

static int
rc_post_recv(struct rdx_rpc_session *s, uint32_t k)
{
	struct rdx_sge sge = {
		.addr = rc_iova(s, k), .length = RPC_HDR_LEN + s->ep->max_msg,
		.lkey = s->mem->lkey,
	};
	struct rdx_recv_wr rw = { .wr_id = k, .sge = &sge, .num_sge = 1 };

	return rdx_qp_post_recv_burst(s->qp, &rw, 1) == 1 ? 0 : -ENOBUFS;
}

/* Receive k was read and its buffer is free: repost it with the batch
 * (the batch's WRs are filled but for the buffer: rc_sess_init). */
static inline void
rc_recv_free(struct rdx_rpc_session *s, uint32_t k)
{
	uint32_t n, i = s->nrpend;

	s->rwr[i].wr_id = k;
	s->rsge[i].addr = rc_iova(s, k);
	if (++i < RPC_RC_RBATCH) {
		s->nrpend = i;
		return;
	}
	s->nrpend = 0;
	n = rdx_qp_post_recv_burst(s->qp, s->rwr, RPC_RC_RBATCH);
	if (unlikely(n != RPC_RC_RBATCH))
		s->ep->stats.errors += RPC_RC_RBATCH - n;
}

static void rc_fail(struct rdx_rpc_session *s, const char *why);

/* Post the session's queued sends with one post. @return how many the
 * QP refused (the last ones: they are not counted as in flight). */
static inline uint32_t
rc_flush(struct rdx_rpc_session *s)
{
	uint32_t n = s->ntx, k;

	if (n == 0)
		return 0;
	s->ntx = 0;
	s->txgen++;
	k = rdx_qp_post_burst(s->qp, s->swr, (uint16_t)n);
	if (likely(k == n))
		return 0;
	s->sq_out -= n - k;
	s->ep->stats.errors += n - k;
	return n - k;
}

/* Post the queued sends of s now, not at the poll's end: a refused one
 * fails the session (its calls end with -EIO). */
static void
rc_flush_now(struct rdx_rpc_session *s)
{
	if (s->ep->txs == s)
		s->ep->txs = NULL;
	if (unlikely(rc_flush(s) != 0))
		rc_fail(s, "a SEND was refused");
}

/* SEND buffer k, its message of msg_len bytes in place after the header
 * room: the header is written here (one packet: rpc_hdr_encode_short).
 * While a poll has more completions of its burst to read, the send is
 * queued in the session's batch, posted with the next send of the
 * session made after the burst's last completion, when the batch is
 * full, when a send on another session is queued (one session's batch
 * at a time: ep->txs) or at the end of the burst. Else it is posted at
 * once (-EIO: refused). */
static inline __attribute__((always_inline)) int
rc_send(struct rdx_rpc_session *s, uint32_t k, uint8_t flags, uint16_t type, uint32_t msg_len,
	uint64_t id)
{
	struct rdx_rpc_endpoint *ep = s->ep;
	const uint32_t len = RPC_HDR_LEN + msg_len;
	uint8_t *buf = rc_buf(s, k);
	struct rdx_rpc_session *old;
	struct rdx_sge *sge;
	uint32_t i, refused;

	if (unlikely(s->sq_out + 1 >= s->sq_depth))
		return -ENOBUFS;
	rpc_hdr_encode_short(buf, flags, type, s->peer_idx, msg_len, id);
	i = s->ntx;
	sge = &s->ssge[i];
	/* the short path: a small message inline in its WQE (an inline SGE
	 * names the bytes by their host address, as in verbs) */
	if (likely(len <= s->inline_max)) {
		sge->addr = (uint64_t)(uintptr_t)buf;
		s->swr[i].flags = RDX_WR_INLINE;
	} else {
		sge->addr = rc_iova(s, k);
		s->swr[i].flags = 0;
	}
	sge->length = len;
	s->sq_out++;
	ep->stats.tx_pkts++;
	if (likely(i == 0 && !ep->tx_defer)) {
		/* alone: posted at once, as it is (nothing queued: ep->txs
		 * names only a session with queued sends) */
		if (unlikely(rdx_qp_post_burst(s->qp, s->swr, 1) != 1)) {
			s->sq_out--;
			ep->stats.errors++;
			return -EIO;
		}
		return 0;
	}
	s->ntx = i + 1;
	if (ep->tx_defer && i + 1 < RPC_RC_TXB) {
		old = ep->txs;
		if (old != s) {
			ep->txs = s;
			if (old != NULL)
				rc_flush_now(old); /* nothing of s is used after */
		}
		return 0;
	}
	/* nothing more to wait for, or the batch is full: post it now */
	if (unlikely(ep->txs == s))
		ep->txs = NULL;
	refused = rc_flush(s);
	if (unlikely(refused != 0)) {
		if (refused > 1)
			rc_fail(s, "a SEND was refused"); /* queued ones among them */
		return -EIO;
	}
	return 0;
}

/* Server slot ss starts a new request, whose handler writes into the
 * slot's response buffer: if the slot's last response is still queued
 * (the caller gave up on it and called again within one poll), post it
 * first. */
static inline void
rc_resp_buf_take(struct rdx_rpc_session *s, const struct rpc_sslot *ss)
{
	if (unlikely(s->ntx != 0 && ss->txgen == s->txgen))
		rc_flush_now(s);
}

static int
rc_call(struct rdx_rpc_session *s, struct rpc_cslot *c)
{
	uint32_t k = s->req0 + c->idx;

	/* the slot's request buffer is free (no call in flight on it): the
	 * copy is harmless when rc_send then finds no send room */
	if (c->req_len != 0)
		rpc_copy(rc_buf(s, k) + RPC_HDR_LEN, c->req, c->req_len);
	c->t_progress = rte_rdtsc();
	return rc_send(s, k, 0, c->type, c->req_len, c->id);
}

/* The session's QP reported an error (or refused a WR): it is in the
 * error state for good. Once: one line, its calls fail with -EIO and new
 * ones are refused (-ENOTCONN). */
static void __rte_noinline __rte_cold
rc_fail(struct rdx_rpc_session *s, const char *why)
{
	uint32_t k;

	if (!s->connected)
		return;
	s->connected = false;
	rpc_log("endpoint %s session %u: %s: its RC QP is in error; calls fail with -EIO",
		s->ep->name, s->idx, why);
	for (k = 0; k < s->ep->slots; k++)
		if (s->cs[k].busy)
			rpc_call_complete(&s->cs[k], -EIO, 0);
}

/* Send a response whose bytes are in place; false when the SQ is full.
 * Inlined into rc_respond, the handler's path. */
static inline __attribute__((always_inline)) bool
rc_respond_now(struct rpc_sslot *ss)
{
	struct rdx_rpc_session *s = ss->req.sess;
	int ret = rc_send(s, s->req0 + s->ep->slots + ss->idx, (uint8_t)(RPC_F_RESP | ss->flags),
			  ss->req.type, ss->resp_len, ss->id);

	if (ret == -ENOBUFS)
		return false;
	if (unlikely(ret != 0))
		rc_fail(s, "a response's SEND was refused"); /* not lost unseen */
	/* its send waits in the batch the session's next post makes (0: it
	 * went at once) */
	ss->txgen = s->ntx != 0 ? s->txgen : 0;
	ss->pending = false;
	ss->state = SS_IDLE;
	if (ss->buf != RPC_NONE) {
		rc_recv_free(s, ss->buf);
		ss->buf = RPC_NONE;
	}
	if (ss->next_buf != RPC_NONE) {
		/* a held request: rc_pending dispatches it (from the poll) */
		s->pending = true;
		s->ep->pump = true;
	}
	return true;
}

/* Run the request held in a slot that just went idle. */
static void
rc_take_next(struct rdx_rpc_session *s, struct rpc_sslot *ss)
{
	struct rdx_rpc_endpoint *ep = s->ep;

	rc_resp_buf_take(s, ss);
	ss->id = ss->next_id;
	ss->used = true;
	ss->buf = ss->next_buf;
	ss->next_buf = RPC_NONE;
	ss->flags = 0;
	ss->req.type = ss->next_type;
	ss->req.len = ss->next_len;
	ss->req.data = rc_buf(s, ss->buf) + RPC_HDR_LEN;
	ss->req.resp = rc_buf(s, s->req0 + ep->slots + ss->idx) + RPC_HDR_LEN;
	ss->req.resp_cap = ep->max_msg;
	rpc_request_dispatch(ss);
}

static void
rc_respond(struct rpc_sslot *ss)
{
	if (!rc_respond_now(ss)) {
		ss->pending = true;
		ss->req.sess->pending = true;
		ss->req.sess->ep->pump = true; /* rc_poll retries it */
	}
}

static void
rc_recv(struct rdx_rpc_endpoint *ep, struct rdx_rpc_session *s, uint32_t k, uint32_t len)
{
	uint8_t *buf = rc_buf(s, k);
	struct rpc_hdr h;

	ep->stats.rx_pkts++;
	/* one message is one packet: ep->lim's mtu of max_msg checks exactly that */
	if (unlikely((!rpc_pkt_parse_short(buf, len, &ep->lim, &h) &&
		      (rpc_pkt_parse(buf, len, &ep->lim, &h) != 0 || h.kind != RPC_PKT_DATA)) ||
		     h.dst_session != s->wire_id)) {
		ep->stats.bad_pkts++;
		goto repost;
	}
	if (h.flags & RPC_F_RESP) {
		struct rpc_cslot *c = &s->cs[rpc_slot_of(ep, h.rpc_id)];
		int status = 0;

		if (!c->busy || c->id != h.rpc_id) {
			ep->stats.dup_dropped++;
			goto repost;
		}
		if (h.flags & RPC_F_ERR)
			status = -ENOENT;
		else if (h.msg_len > c->resp_cap)
			status = -EMSGSIZE;
		else if (h.msg_len != 0)
			rpc_copy(c->resp, buf + RPC_HDR_LEN, h.msg_len);
		rc_recv_free(s, k);
		rpc_call_complete(c, status, h.msg_len);
		return;
	} else {
		struct rpc_sslot *ss = &s->ss[rpc_slot_of(ep, h.rpc_id)];

		if (rpc_id_classify(ss->id, ss->used, h.rpc_id) != RPC_ID_NEW) {
			ep->stats.dup_dropped++;
			goto repost;
		}
		if (ss->state != SS_IDLE) {
			/* The caller gave up on the slot's call (it timed out)
			 * and called again; RC never sends it again, so the
			 * request is held (its receive too) until the slot is
			 * free. A newer one replaces it: its caller gave up on
			 * it as well. */
			if (ss->next_buf != RPC_NONE) {
				ep->stats.dup_dropped++;
				rc_recv_free(s, ss->next_buf);
			}
			ss->next_buf = k;
			ss->next_id = h.rpc_id;
			ss->next_type = h.type;
			ss->next_len = h.msg_len;
			return;
		}
		rc_resp_buf_take(s, ss);
		ss->id = h.rpc_id;
		ss->used = true;
		ss->buf = k;
		ss->flags = 0;
		ss->req.type = h.type;
		ss->req.len = h.msg_len;
		ss->req.data = buf + RPC_HDR_LEN;
		ss->req.resp = rc_buf(s, s->req0 + ep->slots + ss->idx) + RPC_HDR_LEN;
		ss->req.resp_cap = ep->max_msg;
		rpc_request_dispatch(ss);
		return;
	}
repost:
	rc_recv_free(s, k);
}

static void
rc_pending(struct rdx_rpc_endpoint *ep)
{
	uint32_t i, k;

	ep->pump = false;
	for (i = 0; i < ep->max_sessions; i++) {
		struct rdx_rpc_session *s = ep->sess[i];

		if (s == NULL || !s->pending)
			continue;
		s->pending = false;
		if (!s->connected) {
			/* the QP is in error: nowhere to send them */
			for (k = 0; k < ep->slots; k++) {
				s->ss[k].next_buf = RPC_NONE;
				if (s->ss[k].pending) {
					s->ss[k].pending = false;
					s->ss[k].state = SS_IDLE;
				}
			}
			continue;
		}
		for (k = 0; k < ep->slots; k++) {
			struct rpc_sslot *ss = &s->ss[k];

			if (ss->pending && !rc_respond_now(ss)) {
				s->pending = true;
				ep->pump = true;
				break;
			}
			if (ss->state == SS_IDLE && ss->next_buf != RPC_NONE)
				rc_take_next(s, ss);
			if (ep->sess[i] != s)
				break; /* a handler destroyed the session */
		}
	}
}

static void
rc_timers(struct rdx_rpc_endpoint *ep, uint64_t now)
{
	uint32_t i, k;

	for (i = 0; i < ep->max_sessions; i++) {
		struct rdx_rpc_session *s = ep->sess[i];

		if (s == NULL)
			continue;
		for (k = 0; k < ep->slots; k++)
			if (s->cs[k].busy && rpc_timer_expired(now, s->cs[k].t_progress, ep->call_to))
				rpc_call_complete(&s->cs[k], -ETIMEDOUT, 0);
	}
}

static int
rc_poll(struct rdx_rpc_endpoint *ep)
{
	struct rdx_wc wc[RPC_BURST];
	uint64_t now;
	uint32_t i, n;
	bool pending = false;

	n = rdx_cq_poll_burst(ep->cq, wc, RPC_BURST);
	for (i = 0; i < n; i++) {
		struct rdx_rpc_session *s = wc[i].qp_ctx;

		/* what the handlers and continuations send waits while the
		 * burst's next completion is of the same session: one post
		 * for the session's run of completions */
		ep->tx_defer = i + 1 < n && wc[i + 1].qp_ctx == s;
		if (wc[i].wr_id == UINT64_MAX) {
			s->sq_out -= wc[i].retired != 0 ? wc[i].retired : 1;
			pending |= s->pending;
			if (unlikely(wc[i].status != 0)) {
				ep->stats.errors++;
				rc_fail(s, "a send completed in error");
			}
			continue;
		}
		if (unlikely(wc[i].status != 0 || wc[i].wr_id >= RC_RECVS(ep))) {
			ep->stats.errors++; /* e.g. a flushed receive: the QP is in error */
			rc_fail(s, "a receive completed in error");
			continue;
		}
		rc_recv(ep, s, (uint32_t)wc[i].wr_id, wc[i].byte_len);
	}
	ep->tx_defer = false;
	if (unlikely(ep->txs != NULL))
		rc_flush_now(ep->txs); /* the burst ended on another session's */
	/* A response waits for send room: retried on every poll until it
	 * goes, not only when a send completion of its session arrives (the
	 * room may come from a completion polled before it went pending). */
	if (pending || unlikely(ep->pump))
		rc_pending(ep);
	now = rte_rdtsc();
	if (now >= ep->next_scan) {
		ep->next_scan = now + ep->hz / 1000;
		rc_timers(ep, now);
	}
	return (int)n;
}

/* ------------------------------------------------------------------ */
/* Control path                                                       */

static int
rc_ep_init(struct rdx_rpc_endpoint *ep)
{
	struct rdx_cq_conf cc = { .depth = ep->max_sessions * (ep->slots * 5 + RPC_RC_RBATCH) };
	uint32_t max_cqe = rdx_dev_attr_get(ep->dev)->max_cqe;

	if (cc.depth > max_cqe)
		cc.depth = max_cqe;
	ep->cq = rdx_cq_create(ep->dev, &cc);
	if (ep->cq == NULL)
		return -rte_errno;
	ep->next_scan = rte_rdtsc();
	return 0;
}

static void
rc_ep_fini(struct rdx_rpc_endpoint *ep)
{
	if (ep->cq != NULL)
		rdx_cq_destroy(ep->cq);
	ep->cq = NULL;
}

static void
rc_sess_fini(struct rdx_rpc_session *s)
{
	/* its queued sends go with the QP; the poll's end must not post them */
	if (s->ep->txs == s)
		s->ep->txs = NULL;
	s->ntx = 0;
	if (s->qp != NULL)
		rdx_qp_destroy(s->qp);
	if (s->mem != NULL)
		rdx_dev_mem_free(s->mem);
	s->qp = NULL;
	s->mem = NULL;
}

static int
rc_sess_init(struct rdx_rpc_session *s)
{
	struct rdx_rpc_endpoint *ep = s->ep;
	/* One signaled send in sig, at least RC_SIG_MIN (a completion per
	 * send costs a CQE to write and to read); the send queue holds the
	 * 2 * slots requests and responses in flight and the sig - 1
	 * unsignaled ones waiting for the next signaled send. */
	const uint32_t sig = RTE_MAX(ep->slots, RC_SIG_MIN);
	struct rdx_qp_conf qc = {
		.send_cq = ep->cq, .recv_cq = ep->cq, .sq_depth = 4 * sig,
		.rq_depth = RC_RECVS(ep), .max_send_sge = 1, .max_recv_sge = 1,
		.max_inline = RTE_MIN(RPC_INLINE, rdx_dev_attr_get(ep->dev)->max_inline),
		.sig_interval = (uint16_t)sig, .user_ctx = s,
		.post_lcore = ep->lcore_id >= 0 && ep->lcore_id < RTE_MAX_LCORE ?
			      RDX_QP_POST_LCORE(ep->lcore_id) : 0,
	};
	uint32_t k;
	int ret;

	s->qp = rdx_qp_create(ep->dev, &qc);
	if (s->qp == NULL)
		return -rte_errno;
	s->sq_depth = qc.sq_depth;
	s->inline_max = qc.max_inline;
	s->mem = rdx_dev_mem_alloc(ep->dev, RC_BUFS(ep) * rc_bsz(ep), RDX_MEM_HOST,
				   RDX_ACCESS_LOCAL_WRITE);
	if (s->mem == NULL) {
		ret = -rte_errno;
		goto err;
	}
	s->base = s->mem->addr;
	s->iova = s->mem->iova;
	s->bsz = (uint32_t)rc_bsz(ep);
	s->req0 = RC_REQ_BUF(ep, 0);
	s->txgen = 1; /* a slot's 0 names no batch */
	for (k = 0; k < RPC_RC_TXB; k++) {
		s->ssge[k].lkey = s->mem->lkey;
		s->swr[k] = (struct rdx_wr){
			.wr_id = UINT64_MAX, .sge = &s->ssge[k], .num_sge = 1,
			.opcode = RDX_OP_SEND,
		};
	}
	for (k = 0; k < RPC_RC_RBATCH; k++) {
		s->rsge[k].length = RPC_HDR_LEN + ep->max_msg;
		s->rsge[k].lkey = s->mem->lkey;
		s->rwr[k].sge = &s->rsge[k];
		s->rwr[k].num_sge = 1;
	}
	for (k = 0; k < ep->slots; k++)
		s->ss[k].buf = s->ss[k].next_buf = RPC_NONE;
	/* A device may refuse receives before the QP leaves RESET (verbs on
	 * rxe does): the rest are posted once it is connected. */
	for (k = 0; k < RC_RECVS(ep) && rc_post_recv(s, k) == 0; k++)
		;
	s->rq_posted = k;
	return 0;
err:
	rc_sess_fini(s);
	return ret;
}

static int
rc_sess_info(struct rdx_rpc_session *s, struct rdx_qp_info *qi)
{
	return rdx_qp_info_get(s->qp, qi);
}

static int
rc_sess_connect(struct rdx_rpc_session *s, const struct rdx_rpc_session_info *p)
{
	if (p->qp.qp_type != RDX_QP_RC) {
		rpc_log("peer session info: its QP is not RC");
		return -EPROTO;
	}
	uint32_t k;
	int ret;

	ret = rdx_qp_connect(s->qp, &p->qp, NULL);
	if (ret != 0)
		return ret;
	for (k = s->rq_posted; k < RC_RECVS(s->ep); k++) {
		if (rc_post_recv(s, k) != 0) {
			rpc_log("session %u: receive %u of %u refused after connect", s->idx, k,
				RC_RECVS(s->ep));
			return -ENOBUFS;
		}
	}
	s->rq_posted = k;
	return 0;
}

const struct rpc_ops rpc_rc_ops = {
	.ep_init = rc_ep_init,
	.ep_fini = rc_ep_fini,
	.sess_init = rc_sess_init,
	.sess_fini = rc_sess_fini,
	.sess_info = rc_sess_info,
	.sess_connect = rc_sess_connect,
	.call = rc_call,
	.respond = rc_respond,
	.poll = rc_poll,
};
