/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rpc's pure protocol logic: the packet header, reassembly bitmaps, the
 * sender's window and acknowledgements (rdx_rpc_proto.h). No device, no
 * clock, no allocation: unit tests drive it with deterministic losses.
 */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>

#include "rdx_rpc_proto.h"

int
rpc_pkt_parse(const void *buf, uint32_t len, const struct rpc_pkt_limits *lim,
	      struct rpc_hdr *h)
{
	uint64_t end;

	if (len < RPC_HDR_LEN || lim->mtu == 0)
		return -EBADMSG;
	rpc_hdr_load(buf, h);
	if (h->magic != RPC_PKT_MAGIC || h->version != RPC_PKT_VERSION ||
	    h->kind == 0 || h->kind >= RPC_PKT_KIND_MAX ||
	    (h->flags & ~RPC_F_ALL) != 0 || h->rsv != 0 ||
	    h->type >= lim->max_types || h->msg_len > lim->max_msg)
		return -EBADMSG;
	end = (uint64_t)h->offset + h->length;
	switch (h->kind) {
	case RPC_PKT_DATA:
		if (h->offset % lim->mtu != 0 ||
		    (h->offset >= h->msg_len && !(h->offset == 0 && h->msg_len == 0)) ||
		    h->length != rpc_pkt_len(h->msg_len, lim->mtu, h->offset / lim->mtu) ||
		    len != RPC_HDR_LEN + h->length)
			return -EBADMSG;
		break;
	case RPC_PKT_ACK:
		if (h->offset % lim->mtu != 0 || h->offset > h->msg_len + lim->mtu ||
		    h->length != 0 || len != RPC_HDR_LEN + RPC_ACK_PAYLOAD)
			return -EBADMSG;
		break;
	case RPC_PKT_GRANT:
		if (h->offset > h->msg_len || h->length != 0 || len != RPC_HDR_LEN)
			return -EBADMSG;
		break;
	case RPC_PKT_RESEND:
		if (end > h->msg_len || len != RPC_HDR_LEN)
			return -EBADMSG;
		break;
	default: /* BUSY */
		if (h->offset != 0 || h->length != 0 || len != RPC_HDR_LEN)
			return -EBADMSG;
		break;
	}
	return 0;
}

static inline bool
map_test(const uint64_t *map, uint32_t i)
{
	return (map[i / 64] >> (i % 64)) & 1;
}

uint64_t
rpc_rx_ack_map(const struct rpc_rx *rx)
{
	uint64_t m = 0;
	uint32_t k;

	for (k = 0; k < 64 && rx->cum + k < rx->npkts; k++)
		if (map_test(rx->map, rx->cum + k))
			m |= UINT64_C(1) << k;
	return m;
}

uint32_t
rpc_rx_missing(const struct rpc_rx *rx, uint32_t limit, uint32_t *first)
{
	return rpc_rx_missing_from(rx, rx->cum, limit, first);
}

uint32_t
rpc_rx_missing_from(const struct rpc_rx *rx, uint32_t from, uint32_t limit, uint32_t *first)
{
	uint32_t i = from > rx->cum ? from : rx->cum, n = 0;

	if (limit > rx->npkts)
		limit = rx->npkts;
	while (i < limit && map_test(rx->map, i))
		i++;
	if (i >= limit)
		return 0;
	*first = i;
	while (i < limit && !map_test(rx->map, i)) {
		i++;
		n++;
	}
	return n;
}

uint32_t
rpc_rx_lost(const struct rpc_rx *rx, uint32_t from, uint32_t thresh, uint32_t *first)
{
	uint32_t limit;

	if (rx->high == rx->npkts)
		limit = rx->high;
	else if (rx->high > thresh)
		limit = rx->high - thresh;
	else
		return 0;
	return rpc_rx_missing_from(rx, from, limit, first);
}

uint32_t
rpc_tx_ack(struct rpc_tx *tx, uint32_t cum, uint64_t map)
{
	uint32_t before = tx->cum + (uint32_t)__builtin_popcountll(tx->sack);
	uint32_t shift, after;

	if (cum > tx->next)       /* cannot acknowledge what was never sent */
		cum = tx->next;
	if (cum > tx->cum) {
		shift = cum - tx->cum;
		tx->sack = shift >= 64 ? 0 : tx->sack >> shift;
		tx->cum = cum;
	}
	/* map is relative to cum; fold the part that overlaps our window */
	if (cum == tx->cum)
		tx->sack |= map;
	else if (cum < tx->cum && tx->cum - cum < 64)
		tx->sack |= map >> (tx->cum - cum);
	/* bits beyond what was sent are meaningless */
	if (tx->next - tx->cum < 64)
		tx->sack &= (UINT64_C(1) << (tx->next - tx->cum)) - 1;
	while (tx->sack & 1) {
		tx->sack >>= 1;
		tx->cum++;
	}
	after = tx->cum + (uint32_t)__builtin_popcountll(tx->sack);
	return after > before ? after - before : 0;
}

bool
rpc_tx_acked(const struct rpc_tx *tx, uint32_t i)
{
	if (i < tx->cum)
		return true;
	if (i - tx->cum >= 64)
		return false;
	return (tx->sack >> (i - tx->cum)) & 1;
}

int
rpc_tx_grant(struct rpc_tx *tx, uint32_t pkts)
{
	if (pkts > tx->npkts)
		pkts = tx->npkts;
	if (pkts <= tx->limit)
		return 0;
	tx->limit = pkts;
	return 1;
}

uint32_t
rpc_tx_retx(const struct rpc_tx *tx, uint32_t *out, uint32_t max)
{
	uint32_t i, n = 0;

	for (i = tx->cum; i < tx->next && n < max; i++)
		if (!rpc_tx_acked(tx, i))
			out[n++] = i;
	return n;
}

uint32_t
rpc_tx_lost(struct rpc_tx *tx, uint32_t thresh, uint32_t *from)
{
	uint32_t end = rpc_tx_acked_end(tx);
	uint32_t f = tx->cum > tx->rexmit ? tx->cum : tx->rexmit;

	if (end != tx->npkts) {
		if (end < f + thresh + 1)
			return 0;
		end -= thresh;
	} else if (end <= f) {
		return 0;
	}
	*from = f;
	tx->rexmit = end;
	return end;
}

static inline uint64_t
rtt_clamp(const struct rpc_rtt *r, uint64_t v)
{
	return v < r->min ? r->min : v > r->max ? r->max : v;
}

void
rpc_rtt_init(struct rpc_rtt *r, uint64_t initial, uint64_t min, uint64_t max)
{
	r->min = min != 0 ? min : 1;
	r->max = max > r->min ? max : r->min;
	r->srtt8 = 0;
	r->rttvar4 = 0;
	r->samples = 0;
	r->rto = rtt_clamp(r, initial);
}

void
rpc_rtt_sample(struct rpc_rtt *r, uint64_t rtt)
{
	uint64_t d, srtt;

	if (rtt == 0)
		rtt = 1;
	/* fixed point: srtt8 = 8 SRTT, rttvar4 = 4 RTTVAR, so the gains are
	 * shifts and small round trips do not round away */
	if (r->samples++ == 0) {
		/* RFC 6298 2.2: SRTT = R, RTTVAR = R/2 */
		r->srtt8 = rtt << 3;
		r->rttvar4 = rtt << 1;
	} else {
		/* 2.3: RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R|, then
		 * SRTT = 7/8 SRTT + 1/8 R */
		srtt = r->srtt8 >> 3;
		d = srtt > rtt ? srtt - rtt : rtt - srtt;
		r->rttvar4 = r->rttvar4 - (r->rttvar4 >> 2) + d;
		r->srtt8 = r->srtt8 - (r->srtt8 >> 3) + rtt;
	}
	/* 2.3: RTO = SRTT + 4 RTTVAR, the deviation term at least SRTT (RFC
	 * 8985's probe timeout, 2 SRTT); then 2.4/2.5's bounds */
	srtt = r->srtt8 >> 3;
	r->rto = rtt_clamp(r, srtt + (r->rttvar4 > srtt ? r->rttvar4 : srtt));
}
