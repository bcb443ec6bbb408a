/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The software device's timing layer: when a WQE would complete on a real
 * NIC described by a profile (config/timing/<name>.conf). Each resource is
 * a small component of pure functions on integer picoseconds, so it is
 * deterministic and tested on its own (tests/unit/timing/):
 *
 *   tm_link.c     packetisation at the path MTU, per-packet header
 *                 overhead, serialisation, the port (one per device, shared
 *                 by its QPs: per-packet round-robin between QPs)
 *   tm_pcie.c     doorbell vs BlueFlame, WQE fetch, payload DMA (TLPs of
 *                 MaxReadReq / MaxPayloadSize)
 *   tm_cache.c    an LRU cache of N entries (the QP-context cache)
 *   tm_atomic.c   the atomic unit: one address serialised, many pipelined
 *   tm_profile.c  the profile file: key = value  # source
 *   tm_nic.c      one WQE through all of them: the responder's data time
 *                 and the requester's CQE time (calls the others, one way)
 *
 * The engine's hook (../sw_timing.c) turns those times into TSC deadlines.
 */
#ifndef SW_TIMING_H
#define SW_TIMING_H

#include <stdbool.h>
#include <stdint.h>

#define SW_TM_PS_PER_NS 1000ULL
#define SW_TM_PS_PER_US 1000000ULL

/* ------------------------------------------------------------------ */
/* the profile                                                        */

struct sw_tm_profile {
	char name[32];
	uint64_t link_mbps;     /* link data rate, 10^6 bit/s */
	uint32_t mtu;           /* path MTU, payload bytes per packet */
	uint32_t pkt_hdr;       /* wire bytes per packet besides the payload */
	uint32_t reth;          /* RETH: first packet of a WRITE, a READ request */
	uint32_t atomic_hdr;    /* AtomicETH (request) / AtomicAckETH (response) */
	uint32_t ack_bytes;     /* an ACK's extra bytes (AETH) */
	uint32_t prop_ns;       /* one way: cable + switch */
	uint64_t pcie_mbps;     /* PCIe usable rate, each direction */
	uint32_t pcie_rd_ns;    /* NIC reads host memory: round trip */
	uint32_t pcie_wr_ns;    /* posted write reaches the other side */
	uint32_t mrrs;          /* MaxReadReq bytes */
	uint32_t mps;           /* MaxPayloadSize bytes */
	uint32_t tlp_hdr;       /* bytes of TLP header/framing per TLP */
	uint32_t bf_max;        /* BlueFlame: WQEs up to this size come with the doorbell */
	uint32_t msg_rate_kops; /* send pipeline ceiling, 10^3 messages/s */
	uint32_t pipe_ns;       /* one pass through a send or receive pipeline */
	uint32_t qpc_entries;   /* QP-context cache entries */
	uint32_t qpc_bytes;     /* QP context read on a miss */
	uint32_t qpc_miss_par;  /* context reads in flight: a miss holds the pipeline 1/par of its read */
	uint32_t atomic_ns;     /* atomic unit: one read-modify-write of one address */
	uint32_t atomic_issue_ns; /* ... a new address accepted every */
	uint32_t atomic_units;  /* addresses in flight */
	uint32_t cqe_ns;        /* completion generation (besides the CQE's DMA write) */
};

/* Fill p with the named profile (config/timing/<name>.conf under dir) or
 * the file at name when it contains a '/'. 0, or -EINVAL with one line in
 * err ("file:line: what") / -ENOENT. Every key must be given. */
int sw_tm_profile_load(struct sw_tm_profile *p, const char *name, const char *dir,
		       char *err, unsigned int errlen);
/* The same from a buffer (what load reads; tests): file names the lines. */
int sw_tm_profile_parse(struct sw_tm_profile *p, const char *text, const char *file,
			char *err, unsigned int errlen);

/* ------------------------------------------------------------------ */
/* the link                                                           */

/* Packets of a message of len bytes at this MTU (a 0-byte message: 1). */
uint64_t sw_tm_link_packets(uint64_t len, uint32_t mtu);
/* Wire bytes: payload, a header per packet, extra bytes once. */
uint64_t sw_tm_link_wire_bytes(uint64_t len, uint32_t mtu, uint32_t pkt_hdr, uint32_t extra);
/* Time to serialise bytes at mbps (10^6 bit/s), rounded up. */
uint64_t sw_tm_link_ser_ps(uint64_t bytes, uint64_t mbps);
/* Payload goodput for messages of len bytes back to back, 10^6 bit/s. */
uint64_t sw_tm_link_goodput_mbps(uint64_t len, uint32_t mtu, uint32_t pkt_hdr, uint32_t extra,
				 uint64_t mbps);
/* Per-packet round-robin: n QPs with pkts[i] packets each, one packet of
 * pkt_ps each, served from QP 0 on: when QP q's last packet has left. */
uint64_t sw_tm_rr_finish_ps(const uint64_t *pkts, unsigned int n, unsigned int q, uint64_t pkt_ps);

/* One direction of a device's port, shared by its QPs (keys: QP slots
 * modulo SW_TM_ARB_KEYS): per-packet round-robin between the QPs with data
 * queued. A QP with data is in the queue once; the head sends one packet
 * and goes to the tail while it has more. A QP's messages go out in order.
 * Times are on one clock; the port has served everything before clock_ps
 * (a packet in service is finished: the link is not preempted). */
#define SW_TM_ARB_KEYS 4096u
/* With more QPs queued than this a finish time is bounded, not walked:
 * O(1), never earlier than the schedule's (tm_link.c). */
#define SW_TM_ARB_EXACT 64u

struct sw_tm_arb {
	uint64_t clock_ps;            /* served up to */
	uint64_t sum_rem, sum_pkt;    /* over the QPs queued */
	uint32_t gen;                 /* messages queued so far */
	uint32_t n;                   /* QPs with data queued */
	uint16_t head, tail;
	uint16_t next[SW_TM_ARB_KEYS];
	uint32_t pkt_ps[SW_TM_ARB_KEYS];  /* a full packet of its last message */
	uint64_t rem_ps[SW_TM_ARB_KEYS];  /* queued, not yet sent */
	uint64_t enq_ps[SW_TM_ARB_KEYS];  /* ever queued: positions in its stream */
};

void sw_tm_arb_init(struct sw_tm_arb *a);
/* Serve packets up to now_ps (the one in service at now_ps finishes). */
void sw_tm_arb_advance(struct sw_tm_arb *a, uint64_t now_ps);
/* A message of ser_ps in pkts packets from key, ready at ready_ps (not
 * before the port's clock): its end in key's stream in *pos; returns when
 * its last bit leaves if no other message is queued after it. */
uint64_t sw_tm_arb_send(struct sw_tm_arb *a, uint32_t key, uint64_t ready_ps, uint64_t ser_ps,
			uint64_t pkts, uint64_t *pos);
/* When key's stream reaches pos (its last bit leaves) with what is queued
 * now; 0 once it has been sent. */
uint64_t sw_tm_arb_finish(const struct sw_tm_arb *a, uint32_t key, uint64_t pos);

/* ------------------------------------------------------------------ */
/* PCIe                                                               */

/* Bytes moved as TLPs of at most unit payload bytes at mbps. */
uint64_t sw_tm_pcie_xfer_ps(const struct sw_tm_profile *p, uint64_t bytes, uint32_t unit);
/* From the doorbell to the WQE in the NIC: BlueFlame (the WQE came with
 * the doorbell, wqe_bytes <= bf_max) or doorbell + DMA read of the WQE. */
uint64_t sw_tm_pcie_wqe_ps(const struct sw_tm_profile *p, uint32_t wqe_bytes, bool bf);
/* NIC reads bytes of host memory (payload, context): request to last byte. */
uint64_t sw_tm_pcie_read_ps(const struct sw_tm_profile *p, uint64_t bytes);
/* NIC writes bytes to host memory: until they are there. */
uint64_t sw_tm_pcie_write_ps(const struct sw_tm_profile *p, uint64_t bytes);

/* ------------------------------------------------------------------ */
/* an LRU cache of up to SW_TM_CACHE_KEYS keys (QP slots)             */

#define SW_TM_CACHE_KEYS 4096u
#define SW_TM_CACHE_NIL 0xffffu

struct sw_tm_cache {
	uint32_t cap, n;
	uint16_t head, tail;              /* most / least recently used */
	uint16_t prev[SW_TM_CACHE_KEYS];
	uint16_t next[SW_TM_CACHE_KEYS];
	uint8_t in[SW_TM_CACHE_KEYS];
	uint64_t hits, misses;
};

void sw_tm_cache_init(struct sw_tm_cache *c, uint32_t cap);
/* Use key (taken modulo SW_TM_CACHE_KEYS): true on a hit; on a miss it is
 * brought in, the least recently used entry out when full. */
bool sw_tm_cache_touch(struct sw_tm_cache *c, uint32_t key);

/* ------------------------------------------------------------------ */
/* the atomic unit                                                    */

#define SW_TM_ATOMIC_SLOTS 64u

struct sw_tm_atomic {
	uint32_t units;
	uint64_t issue_free_ps;           /* next address accepted */
	uint64_t addr[SW_TM_ATOMIC_SLOTS];
	uint64_t busy_ps[SW_TM_ATOMIC_SLOTS];
};

void sw_tm_atomic_init(struct sw_tm_atomic *u, uint32_t units);
/* An atomic on the 8 bytes at addr arriving at now_ps: when its result
 * is ready. One address: one at a time (op_ps each); other addresses:
 * one accepted every issue_ps, up to units in flight. *serial (may be
 * NULL): it waited for an operation on the same address. */
uint64_t sw_tm_atomic_op(struct sw_tm_atomic *u, uint64_t addr, uint64_t now_ps, uint64_t op_ps,
			 uint64_t issue_ps, bool *serial);

/* ------------------------------------------------------------------ */
/* one WQE through the NIC                                            */

enum sw_tm_op {
	SW_TM_WRITE, SW_TM_SEND, SW_TM_READ, SW_TM_ATOMIC, SW_TM_NOP,
};

struct sw_tm_wqe {
	enum sw_tm_op op;
	uint64_t len;           /* payload bytes */
	uint32_t wqe_bytes;     /* the descriptor */
	uint32_t mtu;           /* the QP's path MTU (0: the profile's; at most it) */
	bool inl;               /* payload inline in the WQE */
	bool bf;                /* rung with a BlueFlame copy */
	bool signaled;
	uint64_t raddr;         /* atomics: the target */
	uint32_t qp_key;        /* the QP-context cache's key */
};

/* The device's NIC: all its shared resources (plain data: it may live in
 * shared memory). */
struct sw_tm_nic {
	struct sw_tm_arb tx;        /* our transmit direction */
	struct sw_tm_arb rx;        /* our receive direction (READ/atomic responses) */
	uint64_t pipe_free_ps;  /* send pipeline accepts the next message */
	struct sw_tm_cache qpc;
	struct sw_tm_atomic atom;
	uint64_t wqes;          /* WQEs modelled */
	uint64_t busy_ps;       /* sum of each WQE's bottleneck occupancy */
};

struct sw_tm_times {
	uint64_t data_ps;       /* responder: data placed (and receive CQE) */
	uint64_t cqe_ps;        /* requester: completion visible */
	/* the WQE's last pass over the port, which later messages of other
	 * QPs can delay (round-robin): which direction (0: none), the QP's
	 * key, its end in that QP's stream, when its last bit left */
	uint8_t dir;
	uint32_t key;
	uint64_t pos;
	uint64_t wire_ps;
};

void sw_tm_nic_init(struct sw_tm_nic *n, const struct sw_tm_profile *p);
/* w posted at now_ps: its times; the NIC's resources move on. */
void sw_tm_nic_wqe(struct sw_tm_nic *n, const struct sw_tm_profile *p, const struct sw_tm_wqe *w,
		   uint64_t now_ps, struct sw_tm_times *t);
/* t's times moved on by what was queued on the port since (a packet of
 * each QP that came in front of it): 0 when unchanged. */
uint64_t sw_tm_nic_delay(const struct sw_tm_nic *n, struct sw_tm_times *t);
/* An 8-byte inline WRITE on an idle NIC: its one-way time (data placed);
 * what a latency test cannot go below. */
uint64_t sw_tm_nic_min_write_ps(const struct sw_tm_profile *p);

#endif /* SW_TIMING_H */
