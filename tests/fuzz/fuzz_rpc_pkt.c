/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: lib/rpc's UD packet parser (rpc_pkt_parse,
 * lib/rpc/rdx_rpc_proto.c), which reads every datagram a peer sends. The
 * first two input bytes pick the local limits (mtu 64..4064, max message
 * 1 MiB or less), the rest is the packet. Whenever the parser accepts, the
 * fields the transport then uses must be in bounds: a DATA packet's bytes
 * inside the message and the datagram, a packet index inside the
 * reassembly bitmap, an ACK with its map, a RESEND inside the message; a
 * re-encoded header must read back the same. The short path of a small
 * call (rpc_pkt_parse_short, rdx_rpc_proto.h) accepts only what the full
 * parser accepts, with the same header, and accepts every one-packet DATA
 * message the full parser does (else a small call would take the slow
 * path). Anything else aborts (a finding). Accepted DATA packets also go
 * through a reassembly bitmap.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdx_rpc_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
finding(const char *what)
{
	fprintf(stderr, "fuzz_rpc_pkt: accepted %s\n", what);
	abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* 1 MiB in 64-byte packets: 16384 packets, 256 words */
	static uint64_t map[256];
	struct rpc_rx rx = { .map = map, .map_words = 256 };
	struct rpc_pkt_limits lim;
	struct rpc_hdr h, h2, hs;
	uint8_t enc[RPC_HDR_LEN];
	uint32_t len, i;
	bool short_ok;

	if (size < 2)
		return 0;
	lim.mtu = 64u + (uint32_t)data[0] * 16u;           /* 64..4144 */
	if (lim.mtu > 4064)
		lim.mtu = 4064;
	lim.max_msg = (uint32_t)(data[1] + 1) << 12;       /* 4 KiB .. 1 MiB */
	lim.max_types = 256;
	data += 2;
	size -= 2;
	if (size > UINT32_MAX)
		return 0;
	len = (uint32_t)size;
	short_ok = rpc_pkt_parse_short(data, len, &lim, &hs);
	if (rpc_pkt_parse(data, len, &lim, &h) != 0) {
		if (short_ok)
			finding("by the short path a packet the full parser refuses");
		return 0;
	}
	if (short_ok && memcmp(&h, &hs, sizeof(h)) != 0)
		finding("by the short path a header the full parser reads otherwise");
	if (short_ok && (h.kind != RPC_PKT_DATA || h.offset != 0 || h.length != h.msg_len))
		finding("by the short path a packet that is not a whole message");
	if (!short_ok && h.kind == RPC_PKT_DATA && h.msg_len <= lim.mtu)
		finding("a one-packet message the short path does not take");
	if (h.msg_len > lim.max_msg || h.type >= lim.max_types)
		finding("a message or type above the limits");
	switch (h.kind) {
	case RPC_PKT_DATA:
		if ((uint64_t)h.offset + h.length > h.msg_len ||
		    RPC_HDR_LEN + (uint64_t)h.length != len || h.length > lim.mtu)
			finding("DATA bytes outside the message or datagram");
		i = h.offset / lim.mtu;
		if (rpc_rx_init(&rx, h.msg_len, lim.mtu) != 0)
			finding("a message whose bitmap does not fit max_msg");
		if (rpc_rx_add(&rx, i, h.length) != 1)
			finding("a DATA packet index outside the message");
		break;
	case RPC_PKT_ACK:
		if (len != RPC_HDR_LEN + RPC_ACK_PAYLOAD)
			finding("an ACK without its map");
		break;
	case RPC_PKT_RESEND:
		if ((uint64_t)h.offset + h.length > h.msg_len)
			finding("a RESEND outside the message");
		break;
	case RPC_PKT_GRANT:
		if (h.offset > h.msg_len)
			finding("a GRANT beyond the message");
		break;
	case RPC_PKT_BUSY:
		break;
	default:
		finding("an unknown kind");
	}
	rpc_hdr_encode(enc, &h);
	if (memcmp(enc, data, RPC_HDR_LEN) != 0)
		finding("a header that does not re-encode to its bytes");
	if (rpc_pkt_parse(data, len, &lim, &h2) != 0 || memcmp(&h, &h2, sizeof(h)) != 0)
		finding("a header that parses two ways");
	return 0;
}
