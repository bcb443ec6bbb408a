/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * lib/rpc's pure protocol logic, with no device and no clock: the packet
 * header and its parser, a message's reassembly bitmap, a sender's window
 * and acknowledgements, duplicate classification of RPC ids, and the
 * receiver's grant scheduler (shortest remaining first, bounded
 * overcommitment). The transports drive these; the unit tests drive them
 * directly with deterministic loss patterns. Internal to lib/rpc.
 */
#ifndef RDX_RPC_PROTO_H
#define RDX_RPC_PROTO_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>

/* ------------------------------------------------------------------ */
/* Packet header (doc/rpc.md "Packet format"): 32 bytes, little-endian. */

#define RPC_PKT_MAGIC 0xA7
#define RPC_PKT_VERSION 1
#define RPC_HDR_LEN 32u
/** ACK payload: a 64-bit map of the packets after the first missing one. */
#define RPC_ACK_PAYLOAD 8u

enum rpc_pkt_kind {
	RPC_PKT_DATA = 1,   /**< message bytes [offset, offset + length) */
	RPC_PKT_ACK = 2,    /**< offset: first missing packet * mtu; payload: map */
	RPC_PKT_GRANT = 3,  /**< offset: the sender may send bytes < offset */
	RPC_PKT_RESEND = 4, /**< send [offset, offset + length) again */
	RPC_PKT_BUSY = 5,   /**< the RPC is alive; the response is not ready */
	RPC_PKT_KIND_MAX,
};

/** flags */
#define RPC_F_RESP 0x01   /**< about the response (else the request) */
#define RPC_F_ERR  0x02   /**< response: no handler for the type */
#define RPC_F_RETX 0x04   /**< DATA sent again (statistics, and no round trip is
			   * timed on it); ACK sent by the receiver's timer: the
			   * packets it lacks below the highest one it has, or
			   * its first missing one, are lost; RESEND sent
			   * because later packets of the message arrived:
			   * the range is lost, not on its way */
#define RPC_F_ALL  0x07

struct rpc_hdr {
	uint8_t magic;
	uint8_t version;
	uint8_t kind;
	uint8_t flags;
	uint8_t prio;         /**< homa priority level; 0 on UD (no levels) */
	uint8_t rsv;
	uint16_t type;        /**< the RPC's type */
	uint32_t dst_session; /**< the receiver's session index */
	uint32_t msg_len;     /**< the message's length (DATA, ACK, GRANT, RESEND) */
	uint64_t rpc_id;
	uint32_t offset;
	uint32_t length;
};

_Static_assert(sizeof(struct rpc_hdr) == RPC_HDR_LEN, "packet header is 32 bytes");

/** Limits a receiver checks a packet against. */
struct rpc_pkt_limits {
	uint32_t mtu;         /**< payload bytes per DATA packet */
	uint32_t max_msg;     /**< largest message */
	uint32_t max_types;   /**< types 0..max_types-1 */
};

/**
 * Encode h into buf (RPC_HDR_LEN bytes).
 */
static inline void
rpc_hdr_encode(void *buf, const struct rpc_hdr *h)
{
	struct rpc_hdr w = *h;

	w.type = rte_cpu_to_le_16(h->type);
	w.dst_session = rte_cpu_to_le_32(h->dst_session);
	w.msg_len = rte_cpu_to_le_32(h->msg_len);
	w.rpc_id = rte_cpu_to_le_64(h->rpc_id);
	w.offset = rte_cpu_to_le_32(h->offset);
	w.length = rte_cpu_to_le_32(h->length);
	memcpy(buf, &w, sizeof(w));
}

/**
 * Load the header at buf (RPC_HDR_LEN bytes) into h, in host byte order,
 * with no check: what rpc_pkt_parse and rpc_pkt_parse_short both read.
 */
static inline void
rpc_hdr_load(const void *buf, struct rpc_hdr *h)
{
	memcpy(h, buf, sizeof(*h));
	h->type = rte_le_to_cpu_16(h->type);
	h->dst_session = rte_le_to_cpu_32(h->dst_session);
	h->msg_len = rte_le_to_cpu_32(h->msg_len);
	h->rpc_id = rte_le_to_cpu_64(h->rpc_id);
	h->offset = rte_le_to_cpu_32(h->offset);
	h->length = rte_le_to_cpu_32(h->length);
}

/**
 * Parse and check a packet of len bytes (the header and its payload).
 * DATA: offset a multiple of mtu, length = min(mtu, msg_len - offset)
 * (every packet full but the last; a 0-byte message is one 0-byte packet),
 * len = RPC_HDR_LEN + length. ACK: offset a multiple of mtu <= msg_len,
 * len = RPC_HDR_LEN + 8. GRANT: offset <= msg_len. RESEND: the range within
 * msg_len. msg_len <= max_msg, type < max_types, known kind and flags,
 * reserved byte zero.
 * @return 0 (h filled), or -EBADMSG.
 */
int rpc_pkt_parse(const void *buf, uint32_t len, const struct rpc_pkt_limits *lim,
		  struct rpc_hdr *h);

/**
 * Encode the header of a message's only DATA packet (offset 0, length =
 * msg_len <= the mtu, priority 0): the same bytes as rpc_hdr_encode, four
 * 64-bit stores instead of a struct built and copied.
 */
static inline void
rpc_hdr_encode_short(void *buf, uint8_t flags, uint16_t type, uint32_t dst_session,
		     uint32_t msg_len, uint64_t rpc_id)
{
	uint64_t w[4];

	/* bytes 0-7: magic, version, kind, flags, prio, rsv, type */
	w[0] = rte_cpu_to_le_64((uint64_t)RPC_PKT_MAGIC | (uint64_t)RPC_PKT_VERSION << 8 |
				(uint64_t)RPC_PKT_DATA << 16 | (uint64_t)flags << 24 |
				(uint64_t)type << 48);
	w[1] = rte_cpu_to_le_64((uint64_t)dst_session | (uint64_t)msg_len << 32);
	w[2] = rte_cpu_to_le_64(rpc_id);
	w[3] = rte_cpu_to_le_64((uint64_t)msg_len << 32); /* offset 0, length */
	memcpy(buf, w, sizeof(w));
}

/**
 * The short path of rpc_pkt_parse, for the packet of a small call: a DATA
 * packet that holds its whole message (offset 0, length = msg_len <= mtu).
 * @return true (h filled) only for a packet rpc_pkt_parse accepts, with
 *   the same h; false for any other packet, good or bad: the caller then
 *   runs rpc_pkt_parse, which decides.
 */
static inline bool
rpc_pkt_parse_short(const void *buf, uint32_t len, const struct rpc_pkt_limits *lim,
		    struct rpc_hdr *h)
{
	/* magic, version, kind in the low three bytes; flags in the top one */
	const uint32_t want = RPC_PKT_MAGIC | RPC_PKT_VERSION << 8 | RPC_PKT_DATA << 16;
	uint32_t w0;

	if (len < RPC_HDR_LEN)
		return false;
	rpc_hdr_load(buf, h);
	memcpy(&w0, buf, sizeof(w0));
	w0 = rte_le_to_cpu_32(w0);
	return (w0 & ~((uint32_t)RPC_F_ALL << 24)) == want && h->rsv == 0 &&
	       h->type < lim->max_types && h->offset == 0 && h->length == h->msg_len &&
	       h->msg_len <= lim->mtu && lim->mtu != 0 && h->msg_len <= lim->max_msg &&
	       len == RPC_HDR_LEN + h->msg_len;
}

/** Packets of a message of len bytes (a 0-byte message is one packet). */
static inline uint32_t
rpc_npkts(uint32_t len, uint32_t mtu)
{
	return len <= mtu ? 1 : (uint32_t)(((uint64_t)len + mtu - 1) / mtu);
}

/** Length of packet i of a message. */
static inline uint32_t
rpc_pkt_len(uint32_t msg_len, uint32_t mtu, uint32_t i)
{
	uint64_t off = (uint64_t)i * mtu;

	if (off >= msg_len)
		return 0;
	return msg_len - off < mtu ? (uint32_t)(msg_len - off) : mtu;
}

/* ------------------------------------------------------------------ */
/* Reassembly: which packets of a message arrived.                    */

struct rpc_rx {
	uint64_t *map;        /**< one bit per packet; words preallocated */
	uint32_t map_words;   /**< capacity in 64-bit words */
	uint32_t npkts;
	uint32_t rcvd;        /**< distinct packets received */
	uint32_t cum;         /**< first missing packet (all below arrived) */
	uint32_t high;        /**< one past the highest packet received */
	uint32_t asked;       /**< the lost packets below were asked for again */
	uint32_t msg_len;
	uint32_t rcvd_bytes;  /**< distinct bytes received */
};

/** Start a message of msg_len bytes. @return 0, -EMSGSIZE (map too small). */
static inline int
rpc_rx_init(struct rpc_rx *rx, uint32_t msg_len, uint32_t mtu)
{
	uint32_t n = rpc_npkts(msg_len, mtu);
	uint32_t words = (n + 63) / 64;

	if (words > rx->map_words)
		return -EMSGSIZE;
	if (words == 1)
		rx->map[0] = 0; /* up to 64 packets: no memset call */
	else
		memset(rx->map, 0, (size_t)words * sizeof(uint64_t));
	rx->npkts = n;
	rx->rcvd = 0;
	rx->cum = 0;
	rx->high = 0;
	rx->asked = 0;
	rx->msg_len = msg_len;
	rx->rcvd_bytes = 0;
	return 0;
}
/** Whether bit i of a reassembly map is set. */
static inline bool
rpc_map_test(const uint64_t *map, uint32_t i)
{
	return (map[i / 64] >> (i % 64)) & 1;
}

/** Mark packet i arrived. @return 1 new, 0 duplicate, -ERANGE bad index. */
static inline int
rpc_rx_add(struct rpc_rx *rx, uint32_t i, uint32_t len)
{
	if (i >= rx->npkts)
		return -ERANGE;
	if (rpc_map_test(rx->map, i))
		return 0;
	rx->map[i / 64] |= UINT64_C(1) << (i % 64);
	rx->rcvd++;
	rx->rcvd_bytes += len;
	if (i >= rx->high)
		rx->high = i + 1;
	while (rx->cum < rx->npkts && rpc_map_test(rx->map, rx->cum))
		rx->cum++;
	return 1;
}
static inline bool
rpc_rx_complete(const struct rpc_rx *rx)
{
	return rx->rcvd == rx->npkts;
}
/** Bit k: packet cum + k arrived (k = 0 is always 0 unless complete). */
uint64_t rpc_rx_ack_map(const struct rpc_rx *rx);
/**
 * The first run of missing packets below limit (a packet count): its first
 * index in *first, its length returned (0: none missing below limit).
 */
uint32_t rpc_rx_missing(const struct rpc_rx *rx, uint32_t limit, uint32_t *first);
/** The same, for the first run at or after packet from. */
uint32_t rpc_rx_missing_from(const struct rpc_rx *rx, uint32_t from, uint32_t limit,
			     uint32_t *first);
/**
 * The first run of missing packets at or after packet from that the
 * packets which did arrive show lost, not on their way: below the highest
 * one received less thresh (a sender sends in order, so thresh packets
 * past a hole tolerate that much reordering, as TCP's duplicate-ACK
 * threshold), or below the highest when that is the message's last packet
 * (nothing sent later would show the loss: RFC 5827's early
 * retransmission). Its first index in *first, its length returned (0:
 * none).
 */
uint32_t rpc_rx_lost(const struct rpc_rx *rx, uint32_t from, uint32_t thresh, uint32_t *first);

/* ------------------------------------------------------------------ */
/* Sender: window and acknowledgements (basic), grants (homa).        */

struct rpc_tx {
	uint32_t npkts;
	uint32_t next;        /**< next packet never sent */
	uint32_t cum;         /**< all packets below are acknowledged */
	uint64_t sack;        /**< bit k: packet cum + k acknowledged */
	uint32_t window;      /**< basic: packets unacknowledged at most */
	uint32_t limit;       /**< homa: packets granted (may be sent) */
	uint32_t rexmit;      /**< basic: the lost packets below were sent again */
};

/** Start a message: basic with window w (1..64), homa with w 0 and
 * unsched packets granted. */
static inline void
rpc_tx_init(struct rpc_tx *tx, uint32_t npkts, uint32_t window, uint32_t unsched)
{
	tx->npkts = npkts;
	tx->next = 0;
	tx->cum = 0;
	tx->sack = 0;
	tx->window = window > 64 ? 64 : window;
	tx->limit = unsched > npkts ? npkts : unsched;
	tx->rexmit = 0;
}
/** Apply an ACK (first missing packet cum, map as rpc_rx_ack_map).
 * @return packets newly acknowledged. */
uint32_t rpc_tx_ack(struct rpc_tx *tx, uint32_t cum, uint64_t map);
/** Whether packet i is acknowledged. */
bool rpc_tx_acked(const struct rpc_tx *tx, uint32_t i);
/** Packets that may be sent for the first time now (window or grant). */
static inline uint32_t
rpc_tx_sendable(const struct rpc_tx *tx)
{
	uint32_t lim;

	if (tx->window != 0) {
		lim = tx->cum + tx->window;
		if (lim > tx->npkts)
			lim = tx->npkts;
	} else {
		lim = tx->limit;
	}
	return lim > tx->next ? lim - tx->next : 0;
}
/** Apply a grant of `pkts` packets. @return 1 when it raised the limit. */
int rpc_tx_grant(struct rpc_tx *tx, uint32_t pkts);
/** Every packet acknowledged (basic). */
static inline bool
rpc_tx_done(const struct rpc_tx *tx)
{
	return tx->cum >= tx->npkts;
}
/**
 * The packets a retransmission timeout sends again (basic): those sent and
 * not acknowledged, oldest first, at most max, written to out.
 * @return how many.
 */
uint32_t rpc_tx_retx(const struct rpc_tx *tx, uint32_t *out, uint32_t max);
/**
 * basic, on an acknowledgement: the packets it shows lost, [*from, end)
 * returned as end (0: none), *from raised to at least the packets already
 * sent again (tx->rexmit). Lost: unacknowledged below the highest packet
 * acknowledged less thresh (duplicate-ACK threshold), or below the highest
 * when that is the message's last packet (early retransmission, RFC 5827:
 * no later packet will be acknowledged to show it). Marks them sent again
 * (tx->rexmit = end).
 */
uint32_t rpc_tx_lost(struct rpc_tx *tx, uint32_t thresh, uint32_t *from);

/* ------------------------------------------------------------------ */
/* Duplicate suppression by RPC id (per slot: ids slot, slot+S, ...). */

enum rpc_id_class {
	RPC_ID_STALE = 0,     /**< older than the slot's RPC: drop */
	RPC_ID_CURRENT,       /**< the slot's RPC */
	RPC_ID_NEW,           /**< a newer RPC: the older one is finished */
};

static inline enum rpc_id_class
rpc_id_classify(uint64_t slot_id, bool slot_used, uint64_t id)
{
	if (!slot_used || id > slot_id)
		return RPC_ID_NEW;
	return id == slot_id ? RPC_ID_CURRENT : RPC_ID_STALE;
}

/** Whether a timer started at last (TSC) with period rto has expired. A
 * timer (re)started after now was read has not. */
static inline bool
rpc_timer_expired(uint64_t now, uint64_t last, uint64_t rto)
{
	return now >= last && now - last >= rto;
}

/* ------------------------------------------------------------------ */
/* Retransmission timeout from measured round trips (RFC 6298)        */

/**
 * One peer's round-trip estimate, in clock ticks: the smoothed round trip
 * (SRTT) and its mean deviation (RTTVAR), gains 1/8 and 1/4, and the
 * timeout RTO = SRTT + max(4 * RTTVAR, SRTT) clamped to [min, max]: the
 * deviation term is at least SRTT (RTO at least 2 SRTT, RFC 8985's probe
 * timeout), so steady round trips (RTTVAR near 0) still leave a margin in
 * proportion to the path, while the floor min may sit far below it (a
 * fixed floor dwarfs a microsecond round trip). Before the first
 * sample RTO is the configured initial value. The caller feeds it only
 * unambiguous samples (Karn's rule: never the round trip of a packet sent
 * more than once, nor of an exchange a retransmission or probe took part
 * in), and backs a timer off by doubling (rpc_rtt_wait).
 */
struct rpc_rtt {
	uint64_t srtt8;       /**< 8 * SRTT */
	uint64_t rttvar4;     /**< 4 * RTTVAR */
	uint64_t rto;
	uint64_t min;
	uint64_t max;
	uint64_t samples;     /**< taken so far */
};

/** Start with timeout initial (clamped to [min, max]); min >= 1, max >= min. */
void rpc_rtt_init(struct rpc_rtt *r, uint64_t initial, uint64_t min, uint64_t max);
/** A measured round trip of rtt ticks (0 counts as 1). */
void rpc_rtt_sample(struct rpc_rtt *r, uint64_t rtt);
/** The wait of a timer that fired `backoff` times in a row: rto doubled
 * that many times, at most max. */
static inline uint64_t
rpc_rtt_wait(const struct rpc_rtt *r, uint32_t backoff)
{
	uint64_t w = r->rto;

	while (backoff-- > 0 && w < r->max)
		w <<= 1;
	return w < r->max ? w : r->max;
}

/** A timer's backoff count after one more timeout in a row: the wait
 * doubles, or grows eightfold when the peer sent nothing at all for the
 * whole wait: a peer off the CPU (a shared core gives it away for
 * milliseconds) explains that better than a loss, and one probe per
 * doubling would cost it log2(pause / RTO) of them, ten or more per
 * pause; a loss costs only the first, unchanged, timeout (its answer
 * comes after one round trip, and the count starts again). At most max. */
static inline uint32_t
rpc_rtt_backoff(uint32_t backoff, bool silent, uint32_t max)
{
	uint32_t b = backoff + (silent ? 3u : 1u);

	return b < max ? b : max;
}

/**
 * One exchange being timed (at most one per message direction): started
 * when a packet is sent for the first time (pkt: its index, or the grant
 * edge a receiver waits past), cancelled when any packet or probe of the
 * exchange is sent again (Karn's rule), ended by the answer. t == 0: none.
 */
struct rpc_rtt_timing {
	uint64_t t;
	uint32_t pkt;
};

/** Time packet pkt sent at now, unless an exchange is being timed. */
static inline void
rpc_rtt_start(struct rpc_rtt_timing *tm, uint64_t now, uint32_t pkt)
{
	if (tm->t == 0) {
		tm->t = now != 0 ? now : 1;
		tm->pkt = pkt;
	}
}

/** A retransmission or probe: the answer would be ambiguous. */
static inline void
rpc_rtt_cancel(struct rpc_rtt_timing *tm)
{
	tm->t = 0;
}

/** The answer to the timed exchange arrived at now: one sample into r.
 * @return 1 when sampled, 0 when nothing was timed. */
static inline int
rpc_rtt_end(struct rpc_rtt *r, struct rpc_rtt_timing *tm, uint64_t now)
{
	uint64_t t = tm->t;

	tm->t = 0;
	if (t == 0 || now < t)
		return 0;
	rpc_rtt_sample(r, now - t);
	return 1;
}

/** One past the highest packet acknowledged (selectively or not). */
static inline uint32_t
rpc_tx_acked_end(const struct rpc_tx *tx)
{
	return tx->sack != 0 ? tx->cum + 64u - (uint32_t)__builtin_clzll(tx->sack) : tx->cum;
}

/* ------------------------------------------------------------------ */
/* Grant scheduler (homa receiver): rdx_rpc_grant.c                   */

/** One incoming scheduled message, embedded in the receiver's slot. */
struct rpc_grant_ent {
	uint32_t msg_len;
	uint32_t rcvd;        /**< bytes received */
	uint32_t granted;     /**< bytes the sender may send */
	uint32_t prev_granted; /**< granted before the last rise (rpc_grant_run) */
	uint32_t pos;         /**< index in the scheduler (UINT32_MAX: none) */
	void *ctx;            /**< the owner's (the transport's slot) */
	uint8_t role;         /**< the owner's (which kind of slot) */
};

struct rpc_grant_sched {
	struct rpc_grant_ent **ents;  /**< preallocated, cap entries */
	uint32_t n;
	uint32_t cap;
	uint32_t rtt_bytes;
	uint32_t overcommit;
	uint32_t budget;      /**< bytes the granted messages may have in flight
			       * together (0: rtt_bytes each) */
};

/** ents: room for cap pointers. */
void rpc_grant_init(struct rpc_grant_sched *s, struct rpc_grant_ent **ents,
		    uint32_t cap, uint32_t rtt_bytes, uint32_t overcommit);
/** A message of msg_len bytes whose first rtt_bytes are unscheduled:
 * scheduled when it has more. @return 1 added, 0 nothing to grant,
 * -ENOSPC. */
int rpc_grant_add(struct rpc_grant_sched *s, struct rpc_grant_ent *e,
		  uint32_t msg_len);
/**
 * Let the granted messages have `budget` bytes in flight together (the
 * receive buffers set aside for them): each of the n granted at once may
 * then run max(rtt_bytes, budget / n) bytes ahead of what arrived, so
 * fewer grant round trips carry a message when few are granted (a round
 * trip is long when the peer shares a CPU). 0: rtt_bytes each.
 */
void rpc_grant_budget(struct rpc_grant_sched *s, uint32_t budget);
/** Forget a message (complete, or its RPC ended). */
void rpc_grant_remove(struct rpc_grant_sched *s, struct rpc_grant_ent *e);
/**
 * Grant: the overcommit messages with the fewest bytes left to receive get
 * granted = min(msg_len, rcvd + ahead), ahead = rtt_bytes or what the
 * budget gives each (rpc_grant_budget); no other message gets a grant.
 * Messages fully granted leave the scheduler. The entries whose grant rose
 * are written to out (at most max: pass max >= overcommit, else the
 * grants that do not fit are left for the next run).
 * @return how many.
 */
uint32_t rpc_grant_run(struct rpc_grant_sched *s, struct rpc_grant_ent **out,
		       uint32_t max);

#endif /* RDX_RPC_PROTO_H */
