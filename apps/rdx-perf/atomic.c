/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Atomic engines: cas and faa, 8 bytes, spread over --keys keys (1: every
 * QP of every lcore hits one key). Every QP targets the same key region at
 * the responder. faa adds 1; cas swaps compare -> compare + 1, with compare
 * the last value this QP saw for the key, so it fails under contention
 * (the measured swaps that took effect and failed are in every report).
 * Each lcore counts the increments that took effect per key; after the run
 * atomic_verify_keys checks that every key holds exactly the sum (--verify).
 * The returned old value lands in our buffer in host order (mlx5 with
 * atomic_req_8B_endianness_mode = 1, the only mode libmlx5 accepts).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_app.h"

/* The key of op seq and the 8-byte result slot (stream.c set the SGE to
 * the slot at stride 8). */
static inline uint32_t
atomic_target(struct perf_lcore *lc, struct perf_ep *ep, struct rdx_wr *wr, uint64_t seq)
{
	uint32_t i = (uint32_t)(seq & ep->ring_mask);
	uint32_t key = ep->next_key;
	uint64_t loff = (seq & (lc->run->slots - 1)) * 8;

	if (++ep->next_key == lc->o->keys)
		ep->next_key = 0;
	wr->remote_addr = ep->raddr + (uint64_t)key * perf_key_stride(lc->o, 8);
	((struct rdx_sge *)(uintptr_t)wr->sge)->addr = ep->buf->iova + loff;
	((struct rdx_sge *)(uintptr_t)wr->sge)->length = 8;
	ep->aux32[i] = key;
	return key;
}

static void
cas_prep(struct perf_lcore *lc, struct perf_ep *ep, struct rdx_wr *wr, uint64_t seq)
{
	uint32_t key = atomic_target(lc, ep, wr, seq);

	wr->compare_add = ep->cas_next[key];
	wr->swap = ep->cas_next[key] + 1;
	ep->aux[seq & ep->ring_mask] = ep->cas_next[key];
}

static void
faa_prep(struct perf_lcore *lc, struct perf_ep *ep, struct rdx_wr *wr, uint64_t seq)
{
	atomic_target(lc, ep, wr, seq);
	wr->compare_add = 1;
}

/* The swap took effect when the old value was the compare value. */
static int
cas_done(struct perf_lcore *lc, struct perf_ep *ep, uint64_t seq)
{
	uint32_t i = (uint32_t)(seq & ep->ring_mask);
	uint32_t key = ep->aux32[i];
	uint64_t old = perf_local_u64(ep, (seq & (lc->run->slots - 1)) * 8);

	if (old == ep->aux[i]) {
		lc->key_adds[key]++;
		ep->cas_next[key] = old + 1;
		lc->cas_ok += lc->measure;
	} else {
		ep->cas_next[key] = old;
		lc->cas_fail += lc->measure;
	}
	return 0;
}

static int
faa_done(struct perf_lcore *lc, struct perf_ep *ep, uint64_t seq)
{
	lc->key_adds[ep->aux32[seq & ep->ring_mask]]++;
	return 0;
}

/* Atomics: every key must hold exactly the increments that took effect. */
static int
atomic_verify_keys(struct perf_app *a)
{
	uint32_t k, keys = a->o.keys;
	const uint64_t stride = perf_key_stride(&a->o, 8);
	uint64_t *actual;
	int rc = 0;

	actual = calloc(keys, sizeof(uint64_t));
	if (actual == NULL)
		return -ENOMEM;
	/* key k is at k * --key-stride: one read when they are contiguous */
	for (k = 0; k < keys && rc == 0; k += stride == 8 ? keys : 1) {
		const uint32_t len = stride == 8 ? keys * 8 : 8;

		if (a->shared != NULL) {
			rc = rdx_dev_mem_copy_from(a->shared, k * stride, &actual[k], len);
		} else {
			struct perf_lcore *lc = &a->lcores[0];

			rc = perf_read_remote(lc, lc->eps[0], k * stride, 0, len);
			if (rc == 0)
				rc = rdx_dev_mem_copy_from(lc->eps[0]->buf, 0, &actual[k], len);
		}
	}
	if (rc < 0) {
		fprintf(stderr, "rdx-perf: --verify: cannot read the keys back\n");
		free(actual);
		return rc;
	}
	for (k = 0; k < keys; k++)
		if (actual[k] != a->key_total[k]) {
			if (a->verify_errors == 0)
				fprintf(stderr, "rdx-perf: --verify: key %u holds %" PRIu64 ", expected %" PRIu64 "\n",
					k, actual[k], a->key_total[k]);
			a->verify_errors++;
		}
	free(actual);
	return 0;
}

const struct rdx_perf_engine perf_engine_cas = {
	.name = "cas",
	.op = RDX_OP_CAS,
	.loop = { [PERF_MODE_LAT] = PERF_LOOP_STREAM, [PERF_MODE_BW] = PERF_LOOP_STREAM },
	.lat_kind = PERF_LAT_RTT,
	.atomic = true,
	.no_inline = true,
	.prep = cas_prep,
	.done = cas_done,
	.verify_end = atomic_verify_keys,
};
PERF_ENGINE_REGISTER(perf_engine_cas)

const struct rdx_perf_engine perf_engine_faa = {
	.name = "faa",
	.op = RDX_OP_FAA,
	.loop = { [PERF_MODE_LAT] = PERF_LOOP_STREAM, [PERF_MODE_BW] = PERF_LOOP_STREAM },
	.lat_kind = PERF_LAT_RTT,
	.atomic = true,
	.no_inline = true,
	.prep = faa_prep,
	.done = faa_done,
	.verify_end = atomic_verify_keys,
};
PERF_ENGINE_REGISTER(perf_engine_faa)
