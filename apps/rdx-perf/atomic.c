/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Atomic engines: cas and faa, 8 bytes, spread over --keys keys (1: every
 * QP of every lcore hits one key). Every QP targets the same key region at
 * the responder. faa adds 1; cas swaps compare -> compare + 1, with compare
 * the last value this QP saw for the key, so it fails under contention.
 * Each lcore counts the increments that took effect per key; after the run
 * main checks that every key holds exactly the sum (--verify).
 * The returned old value lands in our buffer in host order (mlx5 with
 * atomic_req_8B_endianness_mode = 1, the only mode libmlx5 accepts).
 */
#include <string.h>

#include "perf_app.h"

static void
atomic_prep(struct perf_lcore *lc, struct perf_ep *ep, struct rdx_wr *wr, uint64_t seq)
{
	uint32_t i = (uint32_t)(seq & ep->ring_mask);
	uint32_t key = ep->next_key;
	uint64_t loff = (seq & (lc->run->slots - 1)) * 8;

	if (++ep->next_key == lc->o->keys)
		ep->next_key = 0;
	/* rdma.c set the SGE to the slot at stride 8: the 8-byte result */
	wr->remote_addr = ep->raddr + (uint64_t)key * 8;
	((struct rdx_sge *)(uintptr_t)wr->sge)->addr = ep->buf->iova + loff;
	((struct rdx_sge *)(uintptr_t)wr->sge)->length = 8;
	ep->aux32[i] = key;
	if (lc->eng->op == RDX_OP_CAS) {
		wr->compare_add = ep->cas_next[key];
		wr->swap = ep->cas_next[key] + 1;
		ep->aux[i] = ep->cas_next[key];
	} else {
		wr->compare_add = 1;
	}
}

static int
atomic_done(struct perf_lcore *lc, struct perf_ep *ep, uint64_t seq)
{
	uint32_t i = (uint32_t)(seq & ep->ring_mask);
	uint32_t key = ep->aux32[i];
	uint64_t old;

	if (lc->eng->op == RDX_OP_FAA) {
		lc->key_adds[key]++;
		return 0;
	}
	old = perf_local_u64(ep, (seq & (lc->run->slots - 1)) * 8);
	if (old == ep->aux[i]) {
		lc->key_adds[key]++;
		ep->cas_next[key] = old + 1;
	} else {
		ep->cas_next[key] = old;
	}
	return 0;
}

static const struct perf_stream_hooks atomic_hooks = {
	.prep = atomic_prep, .done = atomic_done,
};

static int
atomic_run(struct perf_lcore *lc)
{
	return perf_stream_run(lc, &atomic_hooks);
}

const struct rdx_perf_engine perf_engine_cas = {
	.name = "cas", .op = RDX_OP_CAS, .atomic = true, .lat_kind = "rtt",
	.run = atomic_run,
};

const struct rdx_perf_engine perf_engine_faa = {
	.name = "faa", .op = RDX_OP_FAA, .atomic = true, .lat_kind = "rtt",
	.run = atomic_run,
};
