/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The link: a message is cut into packets of at most the path MTU, each
 * carrying the transport's headers (RoCEv2: Ethernet framing, IP, UDP, BTH,
 * ICRC; IB: LRH, BTH, CRCs; the profile's pkt_hdr), serialised at the link
 * rate. A port's two directions are each a server of packets, round-robin
 * between the QPs with data queued (sw_tm_arb_*: a queue of QPs, simulated
 * packet by packet or by whole rounds); sw_tm_rr_finish_ps is the closed
 * form of the same schedule for QPs that all start at once.
 */
#include <string.h>

#include "sw_timing.h"

#define SW_TM_ARB_NIL 0xffffu

uint64_t
sw_tm_link_packets(uint64_t len, uint32_t mtu)
{
	if (len == 0 || mtu == 0)
		return 1;
	return (len + mtu - 1) / mtu;
}

uint64_t
sw_tm_link_wire_bytes(uint64_t len, uint32_t mtu, uint32_t pkt_hdr, uint32_t extra)
{
	return len + sw_tm_link_packets(len, mtu) * pkt_hdr + extra;
}

uint64_t
sw_tm_link_ser_ps(uint64_t bytes, uint64_t mbps)
{
	/* bits * 10^12 / (mbps * 10^6) ps; bytes < 2^40 keeps it in 64 bits */
	if (mbps == 0)
		return 0;
	return (bytes * 8 * 1000000 + mbps - 1) / mbps;
}

uint64_t
sw_tm_link_goodput_mbps(uint64_t len, uint32_t mtu, uint32_t pkt_hdr, uint32_t extra,
			uint64_t mbps)
{
	uint64_t wire = sw_tm_link_wire_bytes(len, mtu, pkt_hdr, extra);

	return wire == 0 ? 0 : len * mbps / wire;
}

static uint64_t
tm_min(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

uint64_t
sw_tm_rr_finish_ps(const uint64_t *pkts, unsigned int n, unsigned int q, uint64_t pkt_ps)
{
	uint64_t k, sent;
	unsigned int j;

	if (q >= n || pkts[q] == 0)
		return 0;
	k = pkts[q];
	/* before q's k-th packet: k-1 rounds, then the k-th round up to q;
	 * a QP before q in the round sends in round k too, one after q not */
	sent = k;
	for (j = 0; j < n; j++)
		if (j < q)
			sent += tm_min(pkts[j], k);
		else if (j > q)
			sent += tm_min(pkts[j], k - 1);
	return sent * pkt_ps;
}

void
sw_tm_arb_init(struct sw_tm_arb *a)
{
	memset(a, 0, sizeof(*a));
	a->head = a->tail = SW_TM_ARB_NIL;
}

static void
arb_push(struct sw_tm_arb *a, uint16_t k)
{
	a->next[k] = SW_TM_ARB_NIL;
	if (a->n == 0)
		a->head = k;
	else
		a->next[a->tail] = k;
	a->tail = k;
	a->n++;
	a->sum_pkt += a->pkt_ps[k];
}

static uint16_t
arb_pop(struct sw_tm_arb *a)
{
	uint16_t k = a->head;

	a->head = a->next[k];
	if (--a->n == 0)
		a->head = a->tail = SW_TM_ARB_NIL;
	a->sum_pkt -= a->pkt_ps[k];
	return k;
}

void
sw_tm_arb_advance(struct sw_tm_arb *a, uint64_t now_ps)
{
	while (a->n > 0 && a->clock_ps < now_ps) {
		const uint64_t round = a->sum_pkt;
		uint64_t full = UINT64_MAX, r = (now_ps - a->clock_ps) / round;
		uint16_t k;

		/* whole rounds while every QP has a full packet left: all
		 * move on together, O(QPs queued) per step */
		if (r > 0)
			for (k = a->head; k != SW_TM_ARB_NIL; k = a->next[k])
				full = tm_min(full, a->rem_ps[k] / a->pkt_ps[k]);
		r = tm_min(full, r);
		if (r > 0) {
			uint16_t prev = SW_TM_ARB_NIL, nx;

			/* the QPs left with nothing leave the queue */
			for (k = a->head; k != SW_TM_ARB_NIL; k = nx) {
				nx = a->next[k];
				a->rem_ps[k] -= r * a->pkt_ps[k];
				if (a->rem_ps[k] > 0) {
					prev = k;
					continue;
				}
				if (prev == SW_TM_ARB_NIL)
					a->head = nx;
				else
					a->next[prev] = nx;
				if (a->tail == k)
					a->tail = prev;
				a->n--;
				a->sum_pkt -= a->pkt_ps[k];
			}
			if (a->n == 0)
				a->head = a->tail = SW_TM_ARB_NIL;
			a->sum_rem -= r * round;
			a->clock_ps += r * round;
			continue;
		}
		/* else packet by packet, at most one round (n packets) */
		for (r = a->n; r > 0 && a->n > 0 && a->clock_ps < now_ps; r--) {
			uint64_t s;

			k = arb_pop(a);
			s = tm_min(a->rem_ps[k], a->pkt_ps[k]);
			a->rem_ps[k] -= s;
			a->sum_rem -= s;
			a->clock_ps += s;
			if (a->rem_ps[k] > 0)
				arb_push(a, k);
		}
	}
	if (a->n == 0 && a->clock_ps < now_ps)
		a->clock_ps = now_ps;
}

uint64_t
sw_tm_arb_send(struct sw_tm_arb *a, uint32_t key, uint64_t ready_ps, uint64_t ser_ps,
	       uint64_t pkts, uint64_t *pos)
{
	const uint16_t k = (uint16_t)(key % SW_TM_ARB_KEYS);
	uint64_t pkt;

	sw_tm_arb_advance(a, ready_ps);
	if (ser_ps == 0)
		ser_ps = 1;
	pkt = pkts == 0 ? ser_ps : (ser_ps + pkts - 1) / pkts;
	pkt = tm_min(tm_min(pkt, ser_ps), UINT32_MAX);
	if (a->rem_ps[k] == 0) {
		a->pkt_ps[k] = (uint32_t)pkt;
		arb_push(a, k);
	} else {
		a->sum_pkt = a->sum_pkt - a->pkt_ps[k] + pkt;
		a->pkt_ps[k] = (uint32_t)pkt;
	}
	a->rem_ps[k] += ser_ps;
	a->sum_rem += ser_ps;
	a->enq_ps[k] += ser_ps;
	a->gen++;
	*pos = a->enq_ps[k];
	return sw_tm_arb_finish(a, key, *pos);
}

/* rounds * pkt, at most rem (no overflow) */
static uint64_t
arb_upto(uint64_t rem, uint64_t pkt, uint64_t rounds)
{
	return rem / pkt < rounds ? rem : rounds * pkt;
}

uint64_t
sw_tm_arb_finish(const struct sw_tm_arb *a, uint32_t key, uint64_t pos)
{
	const uint16_t k = (uint16_t)(key % SW_TM_ARB_KEYS);
	const uint64_t sent = a->enq_ps[k] - a->rem_ps[k];
	uint64_t need, rounds, t;
	uint16_t j;
	bool before = true;

	if (sent >= pos || a->rem_ps[k] == 0)
		return 0;
	/* as sw_tm_rr_finish_ps from the head of the queue: the QPs before
	 * k send in each of k's rounds, the QPs after it in all but the last */
	need = pos - sent;
	rounds = (need + a->pkt_ps[k] - 1) / a->pkt_ps[k];
	t = a->clock_ps + need;
	if (a->n > SW_TM_ARB_EXACT) {
		/* many QPs: the others' data, at most a packet each a round
		 * (>= the walk's sum: never earlier than the schedule) */
		const uint64_t others = a->sum_pkt - a->pkt_ps[k];

		return t + (others == 0 ? 0 : arb_upto(a->sum_rem - a->rem_ps[k], others, rounds));
	}
	for (j = a->head; j != SW_TM_ARB_NIL; j = a->next[j]) {
		if (j == k)
			before = false;
		else
			t += arb_upto(a->rem_ps[j], a->pkt_ps[j], before ? rounds : rounds - 1);
	}
	return t;
}
