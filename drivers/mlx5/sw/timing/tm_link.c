/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The link: a message is cut into packets of at most the path MTU, each
 * carrying the transport's headers (RoCEv2: Ethernet framing, IP, UDP, BTH,
 * ICRC; IB: LRH, BTH, CRCs; the profile's pkt_hdr), serialised at the link
 * rate. A port's two directions are each one server taking transfers in
 * arrival order; per-packet round-robin between QPs is
 * sw_tm_rr_finish_ps.
 */
#include "sw_timing.h"

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

uint64_t
sw_tm_port_send(uint64_t *free_ps, uint64_t ready_ps, uint64_t ser_ps)
{
	uint64_t start = ready_ps > *free_ps ? ready_ps : *free_ps;

	*free_ps = start + ser_ps;
	return *free_ps;
}
