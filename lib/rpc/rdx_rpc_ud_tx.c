/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rpc's UD datapath, sending: the send queue's bursts, header-only and
 * data packets, pumping a message as its window or grants allow,
 * retransmission (basic: lost and timed out packets; both: RESEND), and
 * the pool of request/response buffer pairs. Called by rdx_rpc_ud.c
 * (receive, progress, calls); calls nothing of it (rdx_rpc_ud_priv.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_cycles.h>

#include "rdx_rpc_ud_priv.h"

/* ------------------------------------------------------------------ */
/* Sending                                                            */

void
rpc_ud_tx_flush(struct rdx_rpc_endpoint *ep)
{
	uint32_t n;

	if (ep->nwr == 0)
		return;
	/* an address handle of a destroyed session waits for the sends
	 * before it to retire: the burst's end tells (rdx_rpc_ud_ctl.c) */
	if (unlikely(ep->ndead_ah != 0))
		ep->wrs[ep->nwr - 1].flags |= RDX_WR_SIGNALED;
	n = rdx_qp_post_burst(ep->qp, ep->wrs, (uint16_t)ep->nwr);
	if (unlikely(n < ep->nwr)) {
		uint32_t back = ep->nwr - n;

		ep->stats.errors += back;
		ep->tx_out -= back;
		/* the refused WRs' buffers are the last taken: give them back
		 * to the ring, else it hands out a buffer still in flight */
		ep->tx_head = (ep->tx_head + ep->qdepth - back) % ep->qdepth;
	}
	ep->stats.tx_pkts += n;
	ep->nwr = 0;
}


static inline void
tx_queue(struct rdx_rpc_endpoint *ep, const struct rdx_rpc_session *s, uint8_t *buf,
	 uint32_t len)
{
	struct rdx_wr *wr = &ep->wrs[ep->nwr];
	struct rdx_sge *sge = &ep->sges[ep->nwr];

	/* the rest of wr and sge was filled once (ud_ep_init); flags are
	 * reset: a flush may have signaled the WR */
	sge->addr = ep->tx_iova + (uint64_t)(buf - ep->txb);
	sge->length = len;
	wr->flags = 0;
	wr->ah = s->ah;
	wr->remote_qpn = s->peer_qpn;
	wr->remote_qkey = s->peer_qkey;
	ep->nwr++;
	ep->tx_out++;
	ep->tx_head = ep->tx_head + 1 == ep->qdepth ? 0 : ep->tx_head + 1;
	if (ep->nwr == RPC_BURST)
		rpc_ud_tx_flush(ep);
}

/* A header-only packet (ACK carries its 8-byte map). */
void
rpc_ud_send_ctl(struct rdx_rpc_endpoint *ep, const struct rdx_rpc_session *s, uint8_t kind,
	 uint8_t flags, uint16_t type, uint64_t id, uint32_t msg_len, uint32_t off,
	 uint32_t length, uint64_t map)
{
	struct rpc_hdr h = {
		.magic = RPC_PKT_MAGIC, .version = RPC_PKT_VERSION, .kind = kind,
		.flags = flags, .type = type, .dst_session = s->peer_idx,
		.msg_len = msg_len, .rpc_id = id, .offset = off, .length = length,
	};
	uint8_t *buf = rpc_ud_tx_get(ep);
	uint32_t len = RPC_HDR_LEN;

	if (buf == NULL)
		return; /* a control packet is only a hint: the timers repeat it */
	rpc_hdr_encode(buf, &h);
	if (kind == RPC_PKT_ACK) {
		map = rte_cpu_to_le_64(map);
		memcpy(buf + RPC_HDR_LEN, &map, sizeof(map));
		len += RPC_ACK_PAYLOAD;
		ep->stats.acks_sent++;
	}
	tx_queue(ep, s, buf, len);
}

/* Data packet i of a message; -ENOBUFS when the send queue is full. */
static int
send_data(struct rdx_rpc_endpoint *ep, const struct rdx_rpc_session *s, uint8_t flags,
	  uint16_t type, uint64_t id, const uint8_t *msg, uint32_t msg_len, uint32_t i)
{
	uint8_t *buf = rpc_ud_tx_get(ep);
	uint32_t off, len;

	if (buf == NULL)
		return -ENOBUFS;
	if (i == 0 && msg_len <= ep->mtu) {
		/* the message's only packet: the short path */
		off = 0;
		len = msg_len;
		rpc_hdr_encode_short(buf, flags, type, s->peer_idx, msg_len, id);
	} else {
		struct rpc_hdr h = {
			.magic = RPC_PKT_MAGIC, .version = RPC_PKT_VERSION, .kind = RPC_PKT_DATA,
			.flags = flags, .type = type, .dst_session = s->peer_idx,
			.msg_len = msg_len, .rpc_id = id, .offset = i * ep->mtu,
			.length = rpc_pkt_len(msg_len, ep->mtu, i),
		};

		off = h.offset;
		len = h.length;
		rpc_hdr_encode(buf, &h);
	}
	if (len != 0)
		rpc_copy(buf + RPC_HDR_LEN, msg + off, len);
	if (flags & RPC_F_RETX)
		ep->stats.retransmits++;
	tx_queue(ep, s, buf, RPC_HDR_LEN + len);
	return 0;
}


/* Send what the window or the grants allow; false when out of room. A
 * packet sent for the first time starts a round-trip timing (when none
 * runs). */
static bool
pump_msg(struct rdx_rpc_endpoint *ep, const struct rpc_out *o)
{
	struct rpc_tx *tx = o->tx;
	uint32_t n = rpc_tx_sendable(tx);
	bool room = true;

	if (n == 0)
		return true;
	while (n-- > 0) {
		if (send_data(ep, o->s, o->flags, o->type, o->id, o->msg, o->len, tx->next) != 0) {
			ep->pump = true;
			room = false;
			break;
		}
		rpc_rtt_start(o->tm, ep->now, tx->next);
		tx->next++;
	}
	*o->t_sent = rte_rdtsc(); /* the poll's clock may be well behind by now */
	return room;
}

/* pump_msg for a new message of one packet (its first packet is always
 * sendable: a window or an unscheduled grant of at least one packet),
 * without the general walk. */
void
rpc_ud_pump_first(struct rdx_rpc_endpoint *ep, const struct rdx_rpc_session *s, struct rpc_tx *tx,
	   struct rpc_rtt_timing *tm, uint64_t *t_sent, uint8_t flags, uint16_t type,
	   uint64_t id, const uint8_t *msg, uint32_t len)
{
	if (send_data(ep, s, flags, type, id, msg, len, 0) != 0) {
		ep->pump = true;
	} else {
		rpc_rtt_start(tm, ep->now, 0);
		tx->next = 1;
	}
	*t_sent = rte_rdtsc();
}

bool
rpc_ud_pump_client(struct rdx_rpc_endpoint *ep, struct rpc_cslot *c)
{
	struct rpc_out o = rpc_ud_out_client(c);

	return pump_msg(ep, &o);
}

bool
rpc_ud_pump_server(struct rdx_rpc_endpoint *ep, struct rpc_sslot *ss)
{
	struct rpc_out o = rpc_ud_out_server(ss);

	return pump_msg(ep, &o);
}

/* Send again the packets of [first, end) already sent and not acked; the
 * message's round-trip timing is void (Karn). */
static void
retx_range(struct rdx_rpc_endpoint *ep, const struct rpc_out *o, uint32_t first, uint32_t end)
{
	struct rpc_tx *tx = o->tx;
	uint32_t i;

	if (end > tx->next)
		end = tx->next;
	for (i = first; i < end; i++) {
		if (rpc_tx_acked(tx, i))
			continue;
		rpc_rtt_cancel(o->tm);
		if (send_data(ep, o->s, o->flags | RPC_F_RETX, o->type, o->id, o->msg, o->len,
			      i) != 0)
			return;
	}
}

/* basic, on an acknowledgement: send the packets it shows lost (each once
 * until the next timeout): every hole the acknowledgements show, not only
 * the first, so a message with several losses pays no timeout for them. */
void
rpc_ud_retx_lost(struct rdx_rpc_endpoint *ep, const struct rpc_out *o)
{
	uint32_t from = 0, end = rpc_tx_lost(o->tx, RPC_DUPTHRESH, &from);

	if (end != 0)
		retx_range(ep, o, from, end);
}

/* basic, on a timeout: the unacknowledged packets below the highest one
 * acknowledged (they were lost: later ones arrived), or else only the
 * oldest unacknowledged one: a timeout says nothing arrived for a while,
 * which a peer descheduled for that long explains as well as a loss, so
 * one packet probes and its acknowledgement (selective) tells the rest. */
void
rpc_ud_retx_timeout(struct rdx_rpc_endpoint *ep, const struct rpc_out *o)
{
	struct rpc_tx *tx = o->tx;
	uint32_t end = rpc_tx_acked_end(tx);

	if (end <= tx->cum)
		end = tx->cum + 1;
	tx->rexmit = end;
	retx_range(ep, o, tx->cum, end);
}

/* A RESEND: length 0 asks for "what you sent first" (the peer does not
 * know the message yet: homa's first packet, basic's unacknowledged
 * ones), else the byte range. A RESEND that comes within
 * a round trip (SRTT, at least rto_min) of our last first-time packet of
 * the message (typically in the same poll: it waited in our receive
 * queue while we were not running, beside the GRANT or the request that
 * let us send) was likely sent before that packet could reach the peer:
 * those packets are on their way, and the peer asks again after its next
 * timeout if not (a RESEND after a loss comes an RTO, at least 2 SRTT,
 * after the packet). Nor is one for the same offset within a round trip
 * of the last one we answered: a peer whose timer fired while we were
 * not running has sent a RESEND per timeout, and they all come at once;
 * the first was answered. A RESEND flagged RETX was sent because later
 * packets arrived: the range is lost, whenever we last sent, and is
 * answered at once. */
void
rpc_ud_retx_resend(struct rdx_rpc_endpoint *ep, const struct rpc_out *o, const struct rpc_hdr *h)
{
	const struct rpc_rtt *rtt = &o->s->rtt;
	uint64_t srtt = RTE_MAX(rtt->srtt8 >> 3, ep->rto_min);
	uint64_t now = rte_rdtsc();
	struct rpc_tx *tx = o->tx;
	uint32_t first, end;

	if ((!(h->flags & RPC_F_RETX) && *o->t_sent != 0 && now >= *o->t_sent &&
	     now - *o->t_sent < srtt) ||
	    (*o->t_resend != 0 && h->offset == *o->resend_off && now >= *o->t_resend &&
	     now - *o->t_resend < srtt)) {
		/* homa: asking for bytes grants them (the GRANT may be lost) */
		if (ep->homa && h->length != 0 &&
		    rpc_tx_grant(tx, (uint32_t)(((uint64_t)h->offset + h->length + ep->mtu - 1) /
						ep->mtu)))
			ep->pump = true;
		return;
	}
	if (h->length == 0 && ep->homa) {
		/* nothing of the message arrived, as far as the peer knew when
		 * its timer fired: one packet probes (the others may well be
		 * on their way, late rather than lost), and once the peer has
		 * it, its timer asks for every run it still lacks by range */
		first = 0;
		end = 1;
	} else if (h->length == 0) {
		first = tx->cum;
		end = tx->next;
	} else {
		first = h->offset / ep->mtu;
		end = (uint32_t)(((uint64_t)h->offset + h->length + ep->mtu - 1) / ep->mtu);
		/* homa: asking for bytes grants them (the GRANT may be lost) */
		if (ep->homa && rpc_tx_grant(tx, end))
			ep->pump = true;
	}
	*o->t_resend = now;
	*o->resend_off = h->offset;
	retx_range(ep, o, first, end);
}


/* ------------------------------------------------------------------ */
/* Pool of request/response buffer pairs                              */


void
rpc_ud_ss_release(struct rdx_rpc_endpoint *ep, struct rpc_sslot *ss)
{
	if (ss->gent.pos != RPC_NONE)
		rpc_grant_remove(&ep->gs, &ss->gent);
	if (ss->buf != RPC_NONE) {
		ep->pool_free[ep->pool_nfree++] = ss->buf;
		ss->buf = RPC_NONE;
	}
	rpc_ss_busy_off(ss);
}
