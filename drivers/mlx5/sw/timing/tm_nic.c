/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One WQE through the modelled NIC, from the doorbell to its completions:
 *
 *   doorbell / BlueFlame, WQE fetch (tm_pcie.c), QP context (tm_cache.c:
 *   a miss reads qpc_bytes over PCIe), the send pipeline (one message per
 *   1/msg_rate, pipe_ns through it), payload DMA read (non-inline), the
 *   link (tm_link.c: packets, headers, serialisation on the port's transmit
 *   direction, round-robin by packet with the other QPs' data), propagation, the responder's pipeline, its payload DMA
 *   write (and receive CQE for a SEND), or its READ response / atomic
 *   unit (tm_atomic.c) back on our receive direction, the ACK, and the
 *   requester's CQE (signaled WQEs only: cqe_ns and a 64-byte DMA write).
 *
 * The responder is modelled with the same profile and its resources are
 * not contended (one port per device: our transmit and receive directions
 * are the bottlenecks modelled). busy_ps adds each WQE's occupancy of its
 * bottleneck, so wqes / busy_ps is the NIC's ceiling for the mix seen.
 */
#include <stdlib.h>
#include <string.h>

#include "sw_timing.h"

static uint64_t
tm_max(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

void
sw_tm_nic_init(struct sw_tm_nic *n, const struct sw_tm_profile *p)
{
	memset(n, 0, sizeof(*n));
	sw_tm_arb_init(&n->tx);
	sw_tm_arb_init(&n->rx);
	sw_tm_cache_init(&n->qpc, p->qpc_entries);
	sw_tm_atomic_init(&n->atom, p->atomic_units);
}

static void
tm_stage(struct sw_tm_times *t, uint8_t dir, uint32_t key, uint64_t pos, uint64_t wire_ps)
{
	t->dir = dir;
	t->key = key;
	t->pos = pos;
	t->wire_ps = wire_ps;
}

void
sw_tm_nic_wqe(struct sw_tm_nic *n, const struct sw_tm_profile *p, const struct sw_tm_wqe *w,
	      uint64_t now_ps, struct sw_tm_times *t)
{
	const uint64_t pipe = p->pipe_ns * SW_TM_PS_PER_NS;
	const uint64_t prop = p->prop_ns * SW_TM_PS_PER_NS;
	const uint64_t msg_ps = 1000000000ULL / p->msg_rate_kops;
	const uint64_t ack_ser = sw_tm_link_ser_ps(p->pkt_hdr + p->ack_bytes, p->link_mbps);
	const uint32_t mtu = w->mtu != 0 && w->mtu < p->mtu ? w->mtu : p->mtu;
	uint64_t ready, start, ser, last, arrive, busy = msg_ps, done, miss = 0, pkts;
	uint64_t pos;
	bool serial;

	tm_stage(t, 0, 0, 0, 0);
	ready = now_ps + sw_tm_pcie_wqe_ps(p, w->wqe_bytes, w->bf);
	if (!sw_tm_cache_touch(&n->qpc, w->qp_key)) {
		/* the context is read before the message goes on; the
		 * pipeline overlaps qpc_miss_par such reads */
		miss = sw_tm_pcie_read_ps(p, p->qpc_bytes);
		ready += miss;
		miss /= p->qpc_miss_par;
	}
	start = tm_max(ready, n->pipe_free_ps);
	n->pipe_free_ps = start + msg_ps + miss;
	ready = start + pipe;
	switch (w->op) {
	case SW_TM_WRITE:
	case SW_TM_SEND:
		ser = sw_tm_link_ser_ps(sw_tm_link_wire_bytes(w->len, mtu, p->pkt_hdr,
							      w->op == SW_TM_WRITE ? p->reth : 0),
					p->link_mbps);
		busy = tm_max(busy, ser);
		if (!w->inl && w->len > 0) {
			/* the payload streams from host memory behind its first
			 * read: the slower of PCIe and the link sets the pace */
			ready += p->pcie_rd_ns * SW_TM_PS_PER_NS;
			ser = tm_max(ser, sw_tm_pcie_xfer_ps(p, w->len, p->mrrs));
		}
		last = sw_tm_arb_send(&n->tx, w->qp_key, ready, ser, sw_tm_link_packets(w->len, mtu),
				      &pos);
		tm_stage(t, 1, w->qp_key, pos, last);
		arrive = last + prop;
		t->data_ps = arrive + pipe + sw_tm_pcie_write_ps(p, w->len < p->mps ? w->len : p->mps);
		if (w->op == SW_TM_SEND)
			t->data_ps += p->cqe_ns * SW_TM_PS_PER_NS + sw_tm_pcie_write_ps(p, 64);
		/* the responder ACKs on receipt */
		done = arrive + pipe + ack_ser + prop;
		break;
	case SW_TM_READ:
		last = sw_tm_arb_send(&n->tx, w->qp_key, ready,
				      sw_tm_link_ser_ps(p->pkt_hdr + p->reth, p->link_mbps), 1, &pos);
		arrive = last + prop + pipe + p->pcie_rd_ns * SW_TM_PS_PER_NS;
		ser = sw_tm_link_ser_ps(sw_tm_link_wire_bytes(w->len, mtu, p->pkt_hdr,
							      p->ack_bytes), p->link_mbps);
		busy = tm_max(busy, ser);
		ser = tm_max(ser, sw_tm_pcie_xfer_ps(p, w->len, p->mrrs));
		pkts = sw_tm_link_packets(w->len, mtu);
		last = sw_tm_arb_send(&n->rx, w->qp_key, arrive, ser, pkts, &pos);
		tm_stage(t, 2, w->qp_key, pos, last);
		t->data_ps = last + prop + pipe +
			sw_tm_pcie_write_ps(p, w->len < p->mps ? w->len : p->mps);
		done = t->data_ps;
		break;
	case SW_TM_ATOMIC:
		last = sw_tm_arb_send(&n->tx, w->qp_key, ready,
				      sw_tm_link_ser_ps(p->pkt_hdr + p->atomic_hdr, p->link_mbps), 1,
				      &pos);
		arrive = last + prop + pipe;
		arrive = sw_tm_atomic_op(&n->atom, w->raddr, arrive, p->atomic_ns * SW_TM_PS_PER_NS,
					 p->atomic_issue_ns * SW_TM_PS_PER_NS, &serial);
		/* the unit's occupancy: a whole operation behind one on the
		 * same address, an issue slot otherwise */
		busy = tm_max(busy, (serial ? p->atomic_ns : p->atomic_issue_ns) * SW_TM_PS_PER_NS);
		last = sw_tm_arb_send(&n->rx, w->qp_key, arrive,
				      sw_tm_link_ser_ps(p->pkt_hdr + p->ack_bytes + 8, p->link_mbps), 1,
				      &pos);
		tm_stage(t, 2, w->qp_key, pos, last);
		t->data_ps = last + prop + pipe + sw_tm_pcie_write_ps(p, 8);
		done = t->data_ps;
		break;
	default:
		t->data_ps = ready;
		done = ready;
		break;
	}
	t->cqe_ps = done;
	if (w->signaled)
		t->cqe_ps += p->cqe_ns * SW_TM_PS_PER_NS + sw_tm_pcie_write_ps(p, 64);
	if (t->cqe_ps < t->data_ps)
		t->cqe_ps = t->data_ps;
	n->wqes++;
	n->busy_ps += tm_max(busy, msg_ps + miss);
}

uint64_t
sw_tm_nic_delay(const struct sw_tm_nic *n, struct sw_tm_times *t)
{
	uint64_t last, d;

	if (t->dir == 0)
		return 0;
	last = sw_tm_arb_finish(t->dir == 1 ? &n->tx : &n->rx, t->key, t->pos);
	if (last <= t->wire_ps)
		return 0;   /* sent, or nothing came in front of it */
	d = last - t->wire_ps;
	t->wire_ps = last;
	t->data_ps += d;
	t->cqe_ps += d;
	return d;
}

uint64_t
sw_tm_nic_min_write_ps(const struct sw_tm_profile *p)
{
	struct sw_tm_nic *n = malloc(sizeof(*n));
	struct sw_tm_wqe w = {
		.op = SW_TM_WRITE, .len = 8, .wqe_bytes = 64, .inl = true, .bf = true,
		.signaled = false, .qp_key = 0,
	};
	struct sw_tm_times t;

	if (n == NULL)
		return 0;
	sw_tm_nic_init(n, p);
	(void)sw_tm_cache_touch(&n->qpc, 0);
	sw_tm_nic_wqe(n, p, &w, 0, &t);
	free(n);
	return t.data_ps;
}
