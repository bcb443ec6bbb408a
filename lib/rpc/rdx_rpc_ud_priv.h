/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal to lib/rpc's UD datapath: what rdx_rpc_ud.c (receive, progress,
 * calls) takes from rdx_rpc_ud_tx.c (sending, pumping, retransmission, the
 * buffer pool), which calls nothing of rdx_rpc_ud.c.
 */
#ifndef RDX_RPC_UD_PRIV_H
#define RDX_RPC_UD_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>

#include "rdx_rpc_priv.h"

/* A packet buffer, or NULL when the send queue is full (try later). */
static inline uint8_t *
rpc_ud_tx_get(struct rdx_rpc_endpoint *ep)
{
	if (unlikely(ep->tx_out + 1 >= ep->qdepth))
		return NULL;
	return ep->txb + (size_t)ep->tx_head * ep->pkt_size;
}

/* A packet is taken as lost once RPC_DUPTHRESH packets sent after it
 * arrived (TCP's duplicate-ACK threshold, RFC 5681 3.2, which tolerates
 * that much reordering), or once the message's last packet did
 * (rpc_tx_lost for basic's sender, rpc_rx_lost for homa's receiver). */
#define RPC_DUPTHRESH 3u

/* One outgoing message of a slot: what the send and retransmission
 * helpers need (the slot's transmit state, its round-trip timing). */
struct rpc_out {
	const struct rdx_rpc_session *s;
	struct rpc_tx *tx;
	struct rpc_rtt_timing *tm;
	uint64_t *t_sent;
	uint64_t *t_resend;
	uint32_t *resend_off;
	uint8_t flags;
	uint16_t type;
	uint64_t id;
	const uint8_t *msg;
	uint32_t len;
};

static inline struct rpc_out
rpc_ud_out_client(struct rpc_cslot *c)
{
	return (struct rpc_out){ c->sess, &c->tx, &c->tm, &c->t_sent, &c->t_resend,
				 &c->resend_off, 0, c->type, c->id, c->req, c->req_len };
}

static inline struct rpc_out
rpc_ud_out_server(struct rpc_sslot *ss)
{
	return (struct rpc_out){ ss->req.sess, &ss->tx, &ss->tm, &ss->t_sent, &ss->t_resend,
				 &ss->resend_off, (uint8_t)(RPC_F_RESP | ss->flags), ss->req.type,
				 ss->id, ss->req.resp, ss->resp_len };
}

static inline uint32_t
rpc_ud_ack_off(const struct rdx_rpc_endpoint *ep, const struct rpc_rx *rx)
{
	return rx->cum * ep->mtu;
}

static inline bool
rpc_ud_pool_get(struct rdx_rpc_endpoint *ep, struct rpc_sslot *ss)
{
	uint8_t *p;

	if (unlikely(ep->pool_nfree == 0))
		return false;
	ss->buf = ep->pool_free[--ep->pool_nfree];
	p = ep->pool + (size_t)ss->buf * 2 * ep->max_msg;
	ss->reqbuf = p;
	ss->req.data = p;
	ss->req.resp = p + ep->max_msg;
	ss->req.resp_cap = ep->max_msg;
	return true;
}

/** Post the queued sends (one burst). */
void rpc_ud_tx_flush(struct rdx_rpc_endpoint *ep);
/** A header-only packet (an ACK carries its 8-byte map); dropped when the
 * send queue is full (a hint: the timers repeat it). */
void rpc_ud_send_ctl(struct rdx_rpc_endpoint *ep, const struct rdx_rpc_session *s, uint8_t kind,
		     uint8_t flags, uint16_t type, uint64_t id, uint32_t msg_len, uint32_t off,
		     uint32_t length, uint64_t map);
/** The first packet of a new message, without the general walk. */
void rpc_ud_pump_first(struct rdx_rpc_endpoint *ep, const struct rdx_rpc_session *s,
		       struct rpc_tx *tx, struct rpc_rtt_timing *tm, uint64_t *t_sent,
		       uint8_t flags, uint16_t type, uint64_t id, const uint8_t *msg,
		       uint32_t len);
/** Send what a client's (server's) message may; false when out of room. */
bool rpc_ud_pump_client(struct rdx_rpc_endpoint *ep, struct rpc_cslot *c);
bool rpc_ud_pump_server(struct rdx_rpc_endpoint *ep, struct rpc_sslot *ss);
/** basic: resend what an acknowledgement shows lost; on a timeout. */
void rpc_ud_retx_lost(struct rdx_rpc_endpoint *ep, const struct rpc_out *o);
void rpc_ud_retx_timeout(struct rdx_rpc_endpoint *ep, const struct rpc_out *o);
/** Answer a RESEND (h) of o's message. */
void rpc_ud_retx_resend(struct rdx_rpc_endpoint *ep, const struct rpc_out *o,
			const struct rpc_hdr *h);

#endif /* RDX_RPC_UD_PRIV_H */
