/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rpc's pure protocol logic (rdx_rpc_proto.c, included): the packet
 * header round trip and every refusal of the parser; reassembly out of
 * order, with duplicates and a short last packet; the sender's window and
 * selective acknowledgements; the retransmission a timeout sends; duplicate
 * classification of RPC ids; and a sender and a receiver exchanging one
 * message through a wire that drops, duplicates and reorders packets by a
 * fixed pattern, until every byte arrived exactly once.
 */
#include <errno.h>
#include <string.h>

#include "rdx_ut.h"
#include "../../../lib/rpc/rdx_rpc_proto.c"

#define MTU 100u

static const struct rpc_pkt_limits lim = { .mtu = MTU, .max_msg = 100000, .max_types = 256 };

static struct rpc_hdr
data_hdr(uint32_t msg_len, uint32_t i)
{
	struct rpc_hdr h = {
		.magic = RPC_PKT_MAGIC, .version = RPC_PKT_VERSION, .kind = RPC_PKT_DATA,
		.flags = RPC_F_RESP, .type = 42, .dst_session = 3, .msg_len = msg_len,
		.rpc_id = 0x1122334455667788ull, .offset = i * MTU,
		.length = rpc_pkt_len(msg_len, MTU, i),
	};
	return h;
}

static void
test_header(void)
{
	uint8_t buf[RPC_HDR_LEN + MTU + 8];
	struct rpc_hdr h = data_hdr(250, 2), o;

	memset(buf, 0, sizeof(buf));
	rpc_hdr_encode(buf, &h);
	/* little-endian on the wire, fields where doc/rpc.md says */
	CU_ASSERT_EQUAL(buf[0], RPC_PKT_MAGIC);
	CU_ASSERT_EQUAL(buf[2], RPC_PKT_DATA);
	CU_ASSERT_EQUAL(buf[6], 42);
	CU_ASSERT_EQUAL(buf[8], 3);
	CU_ASSERT_EQUAL(buf[16], 0x88);
	CU_ASSERT_EQUAL(buf[24], 200);
	CU_ASSERT_EQUAL(buf[28], 50);
	CU_ASSERT_EQUAL(rpc_pkt_parse(buf, RPC_HDR_LEN + 50, &lim, &o), 0);
	CU_ASSERT(memcmp(&o, &h, sizeof(h)) == 0);
	/* refusals */
	CU_ASSERT_EQUAL(rpc_pkt_parse(buf, RPC_HDR_LEN + 49, &lim, &o), -EBADMSG);
	CU_ASSERT_EQUAL(rpc_pkt_parse(buf, RPC_HDR_LEN - 1, &lim, &o), -EBADMSG);
	h.offset = 150; /* not a packet boundary */
	rpc_hdr_encode(buf, &h);
	CU_ASSERT_EQUAL(rpc_pkt_parse(buf, RPC_HDR_LEN + 50, &lim, &o), -EBADMSG);
	h = data_hdr(250, 1); /* a middle packet must be full */
	h.length = 60;
	rpc_hdr_encode(buf, &h);
	CU_ASSERT_EQUAL(rpc_pkt_parse(buf, RPC_HDR_LEN + 60, &lim, &o), -EBADMSG);
	h = data_hdr(250, 3); /* past the end */
	h.length = 0;
	rpc_hdr_encode(buf, &h);
	CU_ASSERT_EQUAL(rpc_pkt_parse(buf, RPC_HDR_LEN, &lim, &o), -EBADMSG);
	h = data_hdr(200000, 0); /* above max_msg */
	rpc_hdr_encode(buf, &h);
	CU_ASSERT_EQUAL(rpc_pkt_parse(buf, RPC_HDR_LEN + MTU, &lim, &o), -EBADMSG);
	h = data_hdr(250, 0);
	h.type = 256;
	rpc_hdr_encode(buf, &h);
	CU_ASSERT_EQUAL(rpc_pkt_parse(buf, RPC_HDR_LEN + MTU, &lim, &o), -EBADMSG);
	h = data_hdr(250, 0);
	h.flags = 0x80;
	rpc_hdr_encode(buf, &h);
	CU_ASSERT_EQUAL(rpc_pkt_parse(buf, RPC_HDR_LEN + MTU, &lim, &o), -EBADMSG);
	h = data_hdr(250, 0);
	h.kind = RPC_PKT_KIND_MAX;
	rpc_hdr_encode(buf, &h);
	CU_ASSERT_EQUAL(rpc_pkt_parse(buf, RPC_HDR_LEN + MTU, &lim, &o), -EBADMSG);
	h = data_hdr(250, 0);
	rpc_hdr_encode(buf, &h);
	buf[1] = 2; /* version */
	CU_ASSERT_EQUAL(rpc_pkt_parse(buf, RPC_HDR_LEN + MTU, &lim, &o), -EBADMSG);
	buf[1] = RPC_PKT_VERSION;
	buf[0] = 0; /* magic */
	CU_ASSERT_EQUAL(rpc_pkt_parse(buf, RPC_HDR_LEN + MTU, &lim, &o), -EBADMSG);
	/* a 0-byte message is one 0-byte packet */
	h = data_hdr(0, 0);
	rpc_hdr_encode(buf, &h);
	CU_ASSERT_EQUAL(rpc_pkt_parse(buf, RPC_HDR_LEN, &lim, &o), 0);
	/* control packets */
	h.kind = RPC_PKT_ACK;
	h.msg_len = 250;
	h.offset = 300; /* complete: 3 packets */
	h.length = 0;
	rpc_hdr_encode(buf, &h);
	CU_ASSERT_EQUAL(rpc_pkt_parse(buf, RPC_HDR_LEN + 8, &lim, &o), 0);
	CU_ASSERT_EQUAL(rpc_pkt_parse(buf, RPC_HDR_LEN, &lim, &o), -EBADMSG);
	h.kind = RPC_PKT_GRANT;
	h.offset = 251;
	rpc_hdr_encode(buf, &h);
	CU_ASSERT_EQUAL(rpc_pkt_parse(buf, RPC_HDR_LEN, &lim, &o), -EBADMSG);
	h.offset = 250;
	rpc_hdr_encode(buf, &h);
	CU_ASSERT_EQUAL(rpc_pkt_parse(buf, RPC_HDR_LEN, &lim, &o), 0);
	h.kind = RPC_PKT_RESEND;
	h.offset = 200;
	h.length = 51;
	rpc_hdr_encode(buf, &h);
	CU_ASSERT_EQUAL(rpc_pkt_parse(buf, RPC_HDR_LEN, &lim, &o), -EBADMSG);
	h.length = 50;
	rpc_hdr_encode(buf, &h);
	CU_ASSERT_EQUAL(rpc_pkt_parse(buf, RPC_HDR_LEN, &lim, &o), 0);
	h.kind = RPC_PKT_BUSY;
	rpc_hdr_encode(buf, &h);
	CU_ASSERT_EQUAL(rpc_pkt_parse(buf, RPC_HDR_LEN, &lim, &o), -EBADMSG);
	h.offset = h.length = 0;
	rpc_hdr_encode(buf, &h);
	CU_ASSERT_EQUAL(rpc_pkt_parse(buf, RPC_HDR_LEN, &lim, &o), 0);
}

/* The short path: rpc_hdr_encode_short writes rpc_hdr_encode's bytes, and
 * rpc_pkt_parse_short accepts a message's only DATA packet and nothing
 * rpc_pkt_parse refuses or reads otherwise: every byte of a good header
 * set to each of a few values, at every length around the right one. */
static void
test_header_short(void)
{
	static const uint8_t vals[] = { 0, 1, 2, 3, 4, 5, 7, 8, 50, 99, 100, 101, 0x80, 0xA7, 0xff };
	static const uint32_t lens[] = { 0, 1, 8, 99, 100 };
	uint8_t a[RPC_HDR_LEN + MTU + 8], b[RPC_HDR_LEN + MTU + 8];
	struct rpc_hdr h, o, p;
	uint32_t li, pos, vi, len, fast = 0;

	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	for (li = 0; li < (sizeof(lens) / sizeof(lens[0])); li++) {
		h = data_hdr(lens[li], 0);
		rpc_hdr_encode(a, &h);
		rpc_hdr_encode_short(b, h.flags, h.type, h.dst_session, h.msg_len, h.rpc_id);
		CU_ASSERT(memcmp(a, b, RPC_HDR_LEN) == 0);
		CU_ASSERT(rpc_pkt_parse_short(b, RPC_HDR_LEN + lens[li], &lim, &o));
		CU_ASSERT(memcmp(&o, &h, sizeof(h)) == 0);
		for (pos = 0; pos < RPC_HDR_LEN; pos++) {
			for (vi = 0; vi < (sizeof(vals) / sizeof(vals[0])); vi++) {
				memcpy(a, b, RPC_HDR_LEN);
				a[pos] = vals[vi];
				for (len = RPC_HDR_LEN - 1; len <= RPC_HDR_LEN + MTU + 1; len++) {
					if (!rpc_pkt_parse_short(a, len, &lim, &o))
						continue;
					fast++;
					CU_ASSERT_EQUAL_FATAL(rpc_pkt_parse(a, len, &lim, &p), 0);
					CU_ASSERT(memcmp(&o, &p, sizeof(o)) == 0);
					CU_ASSERT_EQUAL(o.offset, 0);
					CU_ASSERT_EQUAL(o.length, o.msg_len);
				}
			}
		}
	}
	CU_ASSERT(fast > (sizeof(lens) / sizeof(lens[0]))); /* some mutations stay good ones */
	/* not the short path: a message of two packets, an ACK */
	h = data_hdr(150, 0);
	rpc_hdr_encode(a, &h);
	CU_ASSERT(!rpc_pkt_parse_short(a, RPC_HDR_LEN + MTU, &lim, &o));
	CU_ASSERT_EQUAL(rpc_pkt_parse(a, RPC_HDR_LEN + MTU, &lim, &o), 0);
	h.kind = RPC_PKT_ACK;
	h.offset = 0;
	h.length = 0;
	rpc_hdr_encode(a, &h);
	CU_ASSERT(!rpc_pkt_parse_short(a, RPC_HDR_LEN + 8, &lim, &o));
}

static void
test_reassembly(void)
{
	uint64_t map[2];
	struct rpc_rx rx = { .map = map, .map_words = 2 };
	uint32_t first = 0;

	CU_ASSERT_EQUAL(rpc_npkts(0, MTU), 1);
	CU_ASSERT_EQUAL(rpc_npkts(100, MTU), 1);
	CU_ASSERT_EQUAL(rpc_npkts(101, MTU), 2);
	CU_ASSERT_EQUAL(rpc_rx_init(&rx, 12801, MTU), -EMSGSIZE); /* 129 packets */
	CU_ASSERT_EQUAL(rpc_rx_init(&rx, 12800, MTU), 0);
	CU_ASSERT_EQUAL(rx.npkts, 128);
	/* 1050 bytes: 11 packets, the last 50 */
	CU_ASSERT_EQUAL(rpc_rx_init(&rx, 1050, MTU), 0);
	CU_ASSERT_EQUAL(rpc_pkt_len(1050, MTU, 10), 50);
	CU_ASSERT_EQUAL(rpc_rx_add(&rx, 10, 50), 1);  /* last first */
	CU_ASSERT_EQUAL(rpc_rx_add(&rx, 3, MTU), 1);
	CU_ASSERT_EQUAL(rpc_rx_add(&rx, 3, MTU), 0);  /* duplicate */
	CU_ASSERT_EQUAL(rpc_rx_add(&rx, 11, 0), -ERANGE);
	CU_ASSERT_EQUAL(rx.cum, 0);
	CU_ASSERT_EQUAL(rpc_rx_ack_map(&rx), (1u << 3) | (1u << 10));
	CU_ASSERT_EQUAL(rpc_rx_missing(&rx, 11, &first), 3);
	CU_ASSERT_EQUAL(first, 0);
	CU_ASSERT_EQUAL(rpc_rx_add(&rx, 0, MTU), 1);
	CU_ASSERT_EQUAL(rx.cum, 1);
	CU_ASSERT_EQUAL(rpc_rx_missing(&rx, 11, &first), 2);
	CU_ASSERT_EQUAL(first, 1);
	CU_ASSERT_EQUAL(rpc_rx_missing(&rx, 1, &first), 0); /* nothing below the limit */
	/* from a packet on: the next run after it */
	CU_ASSERT_EQUAL(rpc_rx_missing_from(&rx, 0, 11, &first), 2);  /* from cum on */
	CU_ASSERT_EQUAL(first, 1);
	CU_ASSERT_EQUAL(rpc_rx_missing_from(&rx, 3, 11, &first), 6);  /* 3 arrived: 4..9 */
	CU_ASSERT_EQUAL(first, 4);
	CU_ASSERT_EQUAL(rpc_rx_missing_from(&rx, 6, 8, &first), 2);   /* 6, 7 below 8 */
	CU_ASSERT_EQUAL(first, 6);
	CU_ASSERT_EQUAL(rpc_rx_missing_from(&rx, 10, 11, &first), 0); /* none after 10 */
	CU_ASSERT_EQUAL(rpc_rx_add(&rx, 2, MTU), 1);
	CU_ASSERT_EQUAL(rpc_rx_add(&rx, 1, MTU), 1);
	CU_ASSERT_EQUAL(rx.cum, 4);
	for (uint32_t i = 9; i >= 4; i--)
		CU_ASSERT_EQUAL(rpc_rx_add(&rx, i, MTU), 1);
	CU_ASSERT(rpc_rx_complete(&rx));
	CU_ASSERT_EQUAL(rx.cum, 11);
	CU_ASSERT_EQUAL(rx.rcvd_bytes, 1050);
	CU_ASSERT_EQUAL(rpc_rx_add(&rx, 10, 50), 0);
	CU_ASSERT_EQUAL(rx.rcvd_bytes, 1050);
}

static void
test_window(void)
{
	struct rpc_tx tx;
	uint32_t out[64], n;

	rpc_tx_init(&tx, 20, 8, 0);
	CU_ASSERT_EQUAL(rpc_tx_sendable(&tx), 8);
	tx.next = 8;
	CU_ASSERT_EQUAL(rpc_tx_sendable(&tx), 0);
	/* receiver has 0,1,2 and 5: cum 3, map bit 2 (= packet 5) */
	CU_ASSERT_EQUAL(rpc_tx_ack(&tx, 3, 1u << 2), 4);
	CU_ASSERT_EQUAL(tx.cum, 3);
	CU_ASSERT(rpc_tx_acked(&tx, 5));
	CU_ASSERT(!rpc_tx_acked(&tx, 4));
	CU_ASSERT_EQUAL(rpc_tx_sendable(&tx), 3);
	/* the timeout resends 3, 4, 6, 7: sent, not acked */
	n = rpc_tx_retx(&tx, out, 64);
	CU_ASSERT_EQUAL(n, 4);
	CU_ASSERT(n == 4 && out[0] == 3 && out[1] == 4 && out[2] == 6 && out[3] == 7);
	/* an old ACK changes nothing; an ACK beyond what was sent is capped */
	CU_ASSERT_EQUAL(rpc_tx_ack(&tx, 1, 0), 0);
	CU_ASSERT_EQUAL(rpc_tx_ack(&tx, 15, 0), 4);
	CU_ASSERT_EQUAL(tx.cum, 8);
	tx.next = 20;
	CU_ASSERT(!rpc_tx_done(&tx));
	CU_ASSERT_EQUAL(rpc_tx_ack(&tx, 20, 0), 12);
	CU_ASSERT(rpc_tx_done(&tx));
	/* homa: unscheduled packets, then grants */
	rpc_tx_init(&tx, 20, 0, 5);
	CU_ASSERT_EQUAL(rpc_tx_sendable(&tx), 5);
	tx.next = 5;
	CU_ASSERT_EQUAL(rpc_tx_sendable(&tx), 0);
	CU_ASSERT_EQUAL(rpc_tx_grant(&tx, 4), 0);
	CU_ASSERT_EQUAL(rpc_tx_grant(&tx, 9), 1);
	CU_ASSERT_EQUAL(rpc_tx_sendable(&tx), 4);
	CU_ASSERT_EQUAL(rpc_tx_grant(&tx, 99), 1);
	CU_ASSERT_EQUAL(tx.limit, 20);
}

static void
test_ids(void)
{
	/* slot 3 of 8: ids 3, 11, 19, ... */
	CU_ASSERT_EQUAL(rpc_id_classify(0, false, 3), RPC_ID_NEW);
	CU_ASSERT_EQUAL(rpc_id_classify(11, true, 3), RPC_ID_STALE);
	CU_ASSERT_EQUAL(rpc_id_classify(11, true, 11), RPC_ID_CURRENT);
	CU_ASSERT_EQUAL(rpc_id_classify(11, true, 19), RPC_ID_NEW);
	CU_ASSERT(!rpc_timer_expired(100, 50, 60));
	CU_ASSERT(rpc_timer_expired(110, 50, 60));
	CU_ASSERT(!rpc_timer_expired(50, 110, 1)); /* restarted after now was read */
}

/*
 * One message, basic protocol, over a deterministic wire: the k-th packet
 * the sender puts on the wire is dropped when drop(k), sent twice when
 * dup(k), and held back one step when late(k) (reordered behind the next).
 * ACKs back are dropped by their own pattern. Returns retransmissions.
 */
struct wire {
	uint32_t q[4096];
	uint32_t n;
	uint32_t late;
	bool has_late;
};

static uint32_t
run_basic(uint32_t msg_len, uint32_t window, uint32_t drop_every, uint32_t dup_every,
	  uint32_t late_every, uint32_t ack_drop_every, uint32_t *dups_seen)
{
	static uint8_t src[20000], dst[20000];
	uint64_t map[4];
	struct rpc_rx rx = { .map = map, .map_words = 4 };
	struct rpc_tx tx;
	struct wire w = { .n = 0 };
	uint32_t k = 0, acks = 0, retx = 0, ticks = 0, i, out[64];

	for (i = 0; i < msg_len; i++)
		src[i] = (uint8_t)(i * 7 + 3);
	memset(dst, 0, sizeof(dst));
	*dups_seen = 0;
	rpc_tx_init(&tx, rpc_npkts(msg_len, MTU), window, 0);
	CU_ASSERT_FATAL(rpc_rx_init(&rx, msg_len, MTU) == 0);
	while (!rpc_rx_complete(&rx) || !rpc_tx_done(&tx)) {
		uint32_t sent = 0, n;

		CU_ASSERT_FATAL(++ticks < 10000);
		/* send what the window allows */
		for (n = rpc_tx_sendable(&tx); n > 0; n--, sent++)
			w.q[w.n++] = tx.next++;
		/* nothing new to send: the retransmission timer fires */
		if (sent == 0) {
			n = rpc_tx_retx(&tx, out, 64);
			for (i = 0; i < n; i++)
				w.q[w.n++] = out[i];
			retx += n;
		}
		/* deliver the wire's packets by the patterns */
		for (i = 0; i < w.n; i++) {
			uint32_t p = w.q[i], copies = 1, c;

			k++;
			if (drop_every != 0 && k % drop_every == 0)
				continue;
			if (dup_every != 0 && k % dup_every == 0)
				copies = 2;
			if (late_every != 0 && k % late_every == 0 && !w.has_late) {
				w.late = p;
				w.has_late = true;
				continue;
			}
			for (c = 0; c < copies; c++) {
				int r = rpc_rx_add(&rx, p, rpc_pkt_len(msg_len, MTU, p));

				if (r == 1)
					memcpy(dst + p * MTU, src + p * MTU, rpc_pkt_len(msg_len, MTU, p));
				else
					(*dups_seen)++;
			}
			if (w.has_late && i + 1 == w.n) {
				if (rpc_rx_add(&rx, w.late, rpc_pkt_len(msg_len, MTU, w.late)) == 1)
					memcpy(dst + w.late * MTU, src + w.late * MTU,
					       rpc_pkt_len(msg_len, MTU, w.late));
				else
					(*dups_seen)++;
				w.has_late = false;
			}
		}
		w.n = 0;
		/* one ACK per step, by its own pattern */
		if (ack_drop_every == 0 || ++acks % ack_drop_every != 0)
			rpc_tx_ack(&tx, rx.cum, rpc_rx_ack_map(&rx));
	}
	CU_ASSERT_EQUAL(rx.rcvd_bytes, msg_len);
	CU_ASSERT(memcmp(src, dst, msg_len) == 0);
	return retx;
}

static void
test_basic_loss_patterns(void)
{
	uint32_t dups, r;

	/* clean: no retransmission, no duplicate */
	CU_ASSERT_EQUAL(run_basic(10050, 16, 0, 0, 0, 0, &dups), 0);
	CU_ASSERT_EQUAL(dups, 0);
	/* every 7th packet dropped */
	r = run_basic(10050, 16, 7, 0, 0, 0, &dups);
	CU_ASSERT(r > 0);
	/* every 5th duplicated: counted, never stored twice */
	r = run_basic(10050, 16, 0, 5, 0, 0, &dups);
	CU_ASSERT_EQUAL(r, 0);
	CU_ASSERT(dups > 0);
	/* reordered, dropped and ACKs lost together, window of 1 and of 64 */
	r = run_basic(10050, 1, 3, 4, 6, 2, &dups);
	CU_ASSERT(r > 0);
	r = run_basic(19999, 64, 11, 13, 5, 3, &dups);
	CU_ASSERT(r > 0);
	/* the last packet short and lost first */
	r = run_basic(250, 4, 3, 0, 0, 0, &dups);
	CU_ASSERT(r > 0);
}

/* RFC 6298's estimator: the first sample, convergence, clamps, backoff. */
static void
test_rtt_estimator(void)
{
	struct rpc_rtt r;
	int i;

	/* before any sample: the initial timeout, clamped */
	rpc_rtt_init(&r, 1000, 10, 100000);
	CU_ASSERT_EQUAL(r.rto, 1000);
	rpc_rtt_init(&r, 5, 10, 100000);
	CU_ASSERT_EQUAL(r.rto, 10);
	rpc_rtt_init(&r, 1000000, 10, 100000);
	CU_ASSERT_EQUAL(r.rto, 100000);
	/* first sample: SRTT = R, RTTVAR = R/2, RTO = R + 4 * R/2 */
	rpc_rtt_init(&r, 1000, 10, 100000);
	rpc_rtt_sample(&r, 400);
	CU_ASSERT_EQUAL(r.srtt8 >> 3, 400);
	CU_ASSERT_EQUAL(r.rttvar4 >> 2, 200);
	CU_ASSERT_EQUAL(r.rto, 1200);
	/* second: RTTVAR = 3/4 200 + 1/4 |400 - 800|, SRTT = 7/8 400 + 1/8 800 */
	rpc_rtt_sample(&r, 800);
	CU_ASSERT_EQUAL(r.rttvar4 >> 2, 250);
	CU_ASSERT_EQUAL(r.srtt8 >> 3, 450);
	CU_ASSERT_EQUAL(r.rto, 1450);
	CU_ASSERT_EQUAL(r.samples, 2);
	/* steady round trips: the deviation decays, RTO tends to SRTT */
	for (i = 0; i < 200; i++)
		rpc_rtt_sample(&r, 100);
	CU_ASSERT(r.srtt8 >> 3 >= 100 && r.srtt8 >> 3 <= 110);
	/* RTO tends to 2 SRTT (the deviation term's floor is SRTT), not to
	 * SRTT */
	CU_ASSERT(r.rto >= 200 && r.rto < 230);
	/* short round trips: RTO stays at min */
	for (i = 0; i < 200; i++)
		rpc_rtt_sample(&r, 1);
	CU_ASSERT_EQUAL(r.rto, 10);
	rpc_rtt_sample(&r, 0);          /* a zero sample counts as one tick */
	CU_ASSERT_EQUAL(r.rto, 10);
	/* one long round trip raises RTO at once (4 * RTTVAR) */
	rpc_rtt_sample(&r, 4000);
	CU_ASSERT(r.rto >= 4000);
	/* huge ones: at most max */
	rpc_rtt_sample(&r, UINT32_MAX);
	CU_ASSERT_EQUAL(r.rto, 100000);
	/* backoff: doubles per timeout in a row, at most max */
	rpc_rtt_init(&r, 1000, 10, 100000);
	CU_ASSERT_EQUAL(rpc_rtt_wait(&r, 0), 1000);
	CU_ASSERT_EQUAL(rpc_rtt_wait(&r, 1), 2000);
	CU_ASSERT_EQUAL(rpc_rtt_wait(&r, 3), 8000);
	CU_ASSERT_EQUAL(rpc_rtt_wait(&r, 7), 100000);
	CU_ASSERT_EQUAL(rpc_rtt_wait(&r, 200), 100000);
	/* max below min: max is min */
	rpc_rtt_init(&r, 1000, 50, 20);
	CU_ASSERT_EQUAL(r.rto, 50);
	CU_ASSERT_EQUAL(rpc_rtt_wait(&r, 5), 50);
}

/* The deviation term's floor is SRTT (RTO at least 2 SRTT, RFC 8985's
 * probe timeout), not the fixed minimum: steady round trips keep one of
 * them as margin, and a floor far below them lets short ones get a short
 * RTO. */
static void
test_rtt_floor(void)
{
	struct rpc_rtt r;
	int i;

	/* a fixed floor of 1: steady round trips of 20 give about 40 */
	rpc_rtt_init(&r, 1000, 1, 100000);
	for (i = 0; i < 100; i++)
		rpc_rtt_sample(&r, 20);
	CU_ASSERT(r.rto >= 40 && r.rto <= 45);
	/* without the floor RTO would be SRTT alone: one late answer
	 * would time out */
	CU_ASSERT(r.rto >= 2 * (r.srtt8 >> 3));
	/* one long round trip (a descheduled peer) raises RTO through RTTVAR */
	rpc_rtt_sample(&r, 2000);
	CU_ASSERT(r.rto > 1000);
	/* the deviation decays back to the floor */
	for (i = 0; i < 200; i++)
		rpc_rtt_sample(&r, 20);
	CU_ASSERT(r.rto >= 40 && r.rto <= 45);
	/* a shorter path seen later */
	for (i = 0; i < 200; i++)
		rpc_rtt_sample(&r, 10);
	CU_ASSERT(r.rto >= 20 && r.rto <= 23);
	/* round trips that vary: 4 RTTVAR above SRTT takes over */
	for (i = 0; i < 200; i++)
		rpc_rtt_sample(&r, i % 2 ? 10 : 50);
	CU_ASSERT(r.rto > 2 * (r.srtt8 >> 3));
	/* the configured minimum still bounds it from below */
	rpc_rtt_init(&r, 1000, 50, 100000);
	for (i = 0; i < 100; i++)
		rpc_rtt_sample(&r, 10);
	CU_ASSERT_EQUAL(r.rto, 50);
}

/* Backoff: doubling per timeout, eightfold when the peer was silent for
 * the whole wait, bounded; a pause of 1000 RTOs costs a few probes. */
static void
test_rtt_backoff(void)
{
	struct rpc_rtt r;
	uint64_t t = 0;
	uint32_t b = 0, probes = 0;

	CU_ASSERT_EQUAL(rpc_rtt_backoff(0, false, 24), 1);
	CU_ASSERT_EQUAL(rpc_rtt_backoff(0, true, 24), 3);
	CU_ASSERT_EQUAL(rpc_rtt_backoff(23, false, 24), 24);
	CU_ASSERT_EQUAL(rpc_rtt_backoff(23, true, 24), 24);
	CU_ASSERT_EQUAL(rpc_rtt_backoff(24, true, 24), 24);
	/* a peer silent for 1000 RTOs (RTO 10): probes at 10, 90, 730, 5850 */
	rpc_rtt_init(&r, 10, 1, 1000000);
	while ((t += rpc_rtt_wait(&r, b)) < 10000) {
		probes++;
		b = rpc_rtt_backoff(b, true, 24);
	}
	CU_ASSERT_EQUAL(probes, 4);
	/* doubling alone would have sent 9 */
	for (t = 0, b = 0, probes = 0; (t += rpc_rtt_wait(&r, b)) < 10000; probes++)
		b = rpc_rtt_backoff(b, false, 24);
	CU_ASSERT_EQUAL(probes, 9);
}

/* Which missing packets the arrived ones show lost (homa's receiver asks
 * for them at once): below the highest less the threshold, or below the
 * highest when that is the message's last packet. */
static void
test_rx_lost(void)
{
	uint64_t map[2];
	struct rpc_rx rx = { .map = map, .map_words = 2 };
	uint32_t first = 99, i;

	CU_ASSERT_FATAL(rpc_rx_init(&rx, 10 * MTU, MTU) == 0);
	CU_ASSERT_EQUAL(rpc_rx_lost(&rx, 0, 3, &first), 0);
	/* 0 1 _ 3 4: two past the hole, not three */
	for (i = 0; i < 5; i++)
		if (i != 2)
			rpc_rx_add(&rx, i, MTU);
	CU_ASSERT_EQUAL(rx.high, 5);
	CU_ASSERT_EQUAL(rpc_rx_lost(&rx, 0, 3, &first), 0);
	/* 5 arrives: three past it, packet 2 is lost */
	rpc_rx_add(&rx, 5, MTU);
	CU_ASSERT_EQUAL(rpc_rx_lost(&rx, 0, 3, &first), 1);
	CU_ASSERT_EQUAL(first, 2);
	/* asked for up to 3: nothing more */
	CU_ASSERT_EQUAL(rpc_rx_lost(&rx, 3, 3, &first), 0);
	/* the last packet arrives, 6..8 missing: lost at once, below it */
	rpc_rx_add(&rx, 9, MTU);
	CU_ASSERT_EQUAL(rx.high, 10);
	CU_ASSERT_EQUAL(rpc_rx_lost(&rx, 3, 3, &first), 3);
	CU_ASSERT_EQUAL(first, 6);
	/* a retransmission fills the hole: high stays, cum moves */
	rpc_rx_add(&rx, 2, MTU);
	CU_ASSERT_EQUAL(rx.high, 10);
	CU_ASSERT_EQUAL(rx.cum, 6);
	CU_ASSERT_EQUAL(rpc_rx_lost(&rx, 0, 3, &first), 3);
	CU_ASSERT_EQUAL(first, 6);
	/* fewer packets than the threshold: nothing shown */
	CU_ASSERT_FATAL(rpc_rx_init(&rx, 10 * MTU, MTU) == 0);
	CU_ASSERT_EQUAL(rx.high, 0);
	CU_ASSERT_EQUAL(rx.asked, 0);
	rpc_rx_add(&rx, 2, MTU);
	CU_ASSERT_EQUAL(rpc_rx_lost(&rx, 0, 3, &first), 0);
}

/* basic's sender: every hole the acknowledgements show is lost once, not
 * only the first; the message's last packet acknowledged shows the
 * holes below it (early retransmission). */
static void
test_tx_lost(void)
{
	struct rpc_tx tx;
	uint32_t from = 99;

	rpc_tx_init(&tx, 10, 32, 0);
	tx.next = 10;
	/* 0 1 acknowledged, 2 missing, 3..5: three past it */
	rpc_tx_ack(&tx, 2, 0x2 | 0x4);
	CU_ASSERT_EQUAL(rpc_tx_lost(&tx, 3, &from), 0);
	rpc_tx_ack(&tx, 2, 0x2 | 0x4 | 0x8);
	CU_ASSERT_EQUAL(rpc_tx_lost(&tx, 3, &from), 3);
	CU_ASSERT_EQUAL(from, 2);
	CU_ASSERT_EQUAL(tx.rexmit, 3);
	/* the same acknowledgement again: sent already */
	CU_ASSERT_EQUAL(rpc_tx_lost(&tx, 3, &from), 0);
	/* a second hole, at 6, shown by 7 8 9 (9 the last packet) */
	rpc_tx_ack(&tx, 2, 0x2 | 0x4 | 0x8 | 0x20 | 0x40 | 0x80);
	CU_ASSERT_EQUAL(rpc_tx_acked_end(&tx), 10);
	CU_ASSERT_EQUAL(rpc_tx_lost(&tx, 3, &from), 10);
	CU_ASSERT_EQUAL(from, 3);
	CU_ASSERT(!rpc_tx_acked(&tx, 6));
	CU_ASSERT_EQUAL(rpc_tx_lost(&tx, 3, &from), 0);
	/* tail: only the last packet lost of 10 sent: nothing shows it (the
	 * timer's) */
	rpc_tx_init(&tx, 10, 32, 0);
	tx.next = 10;
	rpc_tx_ack(&tx, 9, 0);
	CU_ASSERT_EQUAL(rpc_tx_lost(&tx, 3, &from), 0);
	/* the last two sent, the second acknowledged: the first is lost */
	rpc_tx_init(&tx, 10, 32, 0);
	tx.next = 10;
	rpc_tx_ack(&tx, 8, 0x2);
	CU_ASSERT_EQUAL(tx.cum, 8);
	CU_ASSERT_EQUAL(rpc_tx_lost(&tx, 3, &from), 10);
	CU_ASSERT_EQUAL(from, 8);
}

/*
 * A message of 100 packets through an in-order wire that drops the first
 * copy of some packets (scattered, adjacent, the last), with the
 * receiver's rules: basic acknowledges every packet that leaves a hole or
 * fills one (and every 16th) and the sender resends what rpc_tx_lost
 * shows; homa's receiver asks (rpc_rx_lost) for each run once. Either way
 * the message completes with no timeout (the wire never runs dry before
 * it), each lost packet sent again once.
 */
static uint32_t
run_fast(bool homa, const uint32_t *drop, uint32_t ndrop, uint32_t *timeouts)
{
	enum { N = 100 };
	uint64_t map[2];
	struct rpc_rx rx = { .map = map, .map_words = 2 };
	struct rpc_tx tx;
	uint32_t q[4 * N], head = 0, tail = 0, retx = 0, sent[N] = { 0 }, due = 0, i, k;

	CU_ASSERT_FATAL(rpc_rx_init(&rx, N * MTU, MTU) == 0);
	rpc_tx_init(&tx, N, homa ? 0 : 32, homa ? N : 0);
	*timeouts = 0;
	while (!rpc_rx_complete(&rx)) {
		uint32_t p, from = 0, end, first = 0, n;
		bool lost = false;

		for (n = rpc_tx_sendable(&tx); n > 0; n--)
			q[tail++] = tx.next++;
		if (head == tail) {
			/* the wire ran dry: a timer would have to act */
			(*timeouts)++;
			n = rpc_tx_retx(&tx, q + tail, N);
			tail += n;
			retx += n;
			CU_ASSERT_FATAL(*timeouts < 50);
			continue;
		}
		p = q[head++];
		CU_ASSERT_FATAL(tail <= RTE_DIM(q) - N);
		for (i = 0; i < ndrop; i++)
			if (drop[i] == p && sent[p] == 0)
				lost = true;
		sent[p]++;
		if (lost)
			continue;
		if (rpc_rx_add(&rx, p, MTU) != 1)
			continue;
		if (homa) {
			for (k = 0; k < 4; k++) {
				n = rpc_rx_lost(&rx, rx.asked, 3, &first);
				if (n == 0)
					break;
				for (i = first; i < first + n; i++)
					q[tail++] = i;
				retx += n;
				rx.asked = first + n;
			}
			continue;
		}
		if (++due < 16 && rx.cum > p && p + 1 == rx.high)
			continue;
		due = 0;
		rpc_tx_ack(&tx, rx.cum, rpc_rx_ack_map(&rx));
		end = rpc_tx_lost(&tx, 3, &from);
		for (i = from; i < end; i++)
			if (!rpc_tx_acked(&tx, i)) {
				q[tail++] = i;
				retx++;
			}
	}
	for (i = 0; i < N; i++) {
		bool dropped = false;

		for (k = 0; k < ndrop; k++)
			dropped |= drop[k] == i;
		/* with no timeout: each lost packet sent twice, every other
		 * once (no spurious retransmission) */
		if (*timeouts == 0)
			CU_ASSERT_EQUAL(sent[i], dropped ? 2u : 1u);
	}
	return retx;
}

static void
test_fast_recovery(void)
{
	static const uint32_t scattered[] = { 5, 17, 40, 63, 90 };
	static const uint32_t adjacent[] = { 20, 21, 22, 50 };
	static const uint32_t last[] = { 30, 98, 99 };
	uint32_t to, r;
	int homa;

	for (homa = 0; homa < 2; homa++) {
		r = run_fast(homa, NULL, 0, &to);
		CU_ASSERT_EQUAL(r, 0);
		CU_ASSERT_EQUAL(to, 0);
		r = run_fast(homa, scattered, RTE_DIM(scattered), &to);
		CU_ASSERT_EQUAL(to, 0);
		CU_ASSERT_EQUAL(r, RTE_DIM(scattered));
		r = run_fast(homa, adjacent, RTE_DIM(adjacent), &to);
		CU_ASSERT_EQUAL(to, 0);
		CU_ASSERT_EQUAL(r, RTE_DIM(adjacent));
		/* the two last packets: only the very last one is left to a
		 * timer (nothing after it shows it lost) */
		r = run_fast(homa, last, RTE_DIM(last), &to);
		CU_ASSERT_EQUAL(to, 1);
	}
}

/* Karn's rule: an exchange with a retransmission gives no sample. */
static void
test_rtt_karn(void)
{
	struct rpc_rtt r;
	struct rpc_rtt_timing tm = { 0, 0 };

	rpc_rtt_init(&r, 1000, 10, 100000);
	/* nothing timed: no sample */
	CU_ASSERT_EQUAL(rpc_rtt_end(&r, &tm, 500), 0);
	CU_ASSERT_EQUAL(r.samples, 0);
	/* timed, answered: a sample of the difference */
	rpc_rtt_start(&tm, 100, 0);
	rpc_rtt_start(&tm, 150, 1);     /* one exchange at a time: kept */
	CU_ASSERT_EQUAL(tm.pkt, 0);
	CU_ASSERT_EQUAL(rpc_rtt_end(&r, &tm, 400), 1);
	CU_ASSERT_EQUAL(r.samples, 1);
	CU_ASSERT_EQUAL(r.srtt8 >> 3, 300);
	/* ended: the same answer again gives nothing */
	CU_ASSERT_EQUAL(rpc_rtt_end(&r, &tm, 450), 0);
	/* timed, then sent again: the answer is ambiguous, no sample; the
	 * estimate (and RTO) stays */
	rpc_rtt_start(&tm, 1000, 3);
	rpc_rtt_cancel(&tm);
	CU_ASSERT_EQUAL(rpc_rtt_end(&r, &tm, 90000), 0);
	CU_ASSERT_EQUAL(r.samples, 1);
	CU_ASSERT_EQUAL(r.srtt8 >> 3, 300);
	CU_ASSERT_EQUAL(r.rto, 900);
	/* a clock that went back: no sample */
	rpc_rtt_start(&tm, 5000, 4);
	CU_ASSERT_EQUAL(rpc_rtt_end(&r, &tm, 4000), 0);
	CU_ASSERT_EQUAL(r.samples, 1);
	/* time 0 is still a timing */
	rpc_rtt_start(&tm, 0, 5);
	CU_ASSERT(tm.t != 0);
}

/* The highest packet acknowledged: what lies below it unacknowledged is
 * lost (the packets after it arrived). */
static void
test_tx_acked_end(void)
{
	struct rpc_tx tx;

	rpc_tx_init(&tx, 100, 64, 0);
	tx.next = 40;
	CU_ASSERT_EQUAL(rpc_tx_acked_end(&tx), 0);
	rpc_tx_ack(&tx, 3, 0);
	CU_ASSERT_EQUAL(rpc_tx_acked_end(&tx), 3);
	/* packets 3 and 5 missing, 4 and 6..9 acknowledged */
	rpc_tx_ack(&tx, 3, 0x2 | 0x78);
	CU_ASSERT_EQUAL(tx.cum, 3);
	CU_ASSERT(!rpc_tx_acked(&tx, 5));
	CU_ASSERT_EQUAL(rpc_tx_acked_end(&tx), 10);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "header", test_header },
		{ "header_short", test_header_short },
		{ "reassembly", test_reassembly },
		{ "window", test_window },
		{ "ids", test_ids },
		{ "basic_loss_patterns", test_basic_loss_patterns },
		{ "rtt_estimator", test_rtt_estimator },
		{ "rtt_karn", test_rtt_karn },
		{ "rtt_floor", test_rtt_floor },
		{ "rtt_backoff", test_rtt_backoff },
		{ "rx_lost", test_rx_lost },
		{ "tx_lost", test_tx_lost },
		{ "fast_recovery", test_fast_recovery },
		{ "tx_acked_end", test_tx_acked_end },
		{ NULL, NULL },
	};

	return rdx_ut_run("rdx_rpc_proto", cases, NULL, NULL);
}
