/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * echo on lib/rpc, the KV glue of basic.read / basic.write: the server's
 * table of one size and its handler (examples/kv's kv_handler on it), and
 * the client's KV request and its answer. Calls no other rpc_* file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>

#include "rdx_hist.h"
#include "rdx_rpc.h"
#include "rdx_runtime.h"

#include "perf_app.h"
#include "perf_opts.h"
#include "rpc_perf.h"
/* the KV service basic.read / basic.write measure (examples/kv) */
#include "../../examples/kv/kv_service.h"

uint32_t
perf_rpc_kv_objects(uint64_t size)
{
	uint64_t n = PERF_RPC_KV_BYTES / RTE_MAX(size, 1u);

	return (uint32_t)RTE_MIN(RTE_MAX(n, (uint64_t)PERF_RPC_KV_MIN_OBJ),
				 (uint64_t)PERF_RPC_KV_MAX_OBJ);
}

void
perf_rpc_kv_store_free(struct perf_rpc_srv *sv)
{
	free(sv->store.slots);
	if (sv->store_huge)
		rte_free(sv->store.vals);
	else
		free(sv->store.vals);
	memset(&sv->store, 0, sizeof(sv->store));
}

/* The table of one size, made by the first KV request of the run (an
 * echo run allocates nothing): twice as many slots as objects (a power of
 * two, so that probe runs stay short), the values in host memory or in
 * EAL's hugepages (--mem huge: clusterperf's server memory knob). On
 * failure the run's table stays empty: PUTs answer -ENOSPC. */
static int
kv_store_alloc(struct perf_rpc_srv *sv)
{
	uint64_t size = sv->kv_size;
	uint32_t cap = 1, n = perf_rpc_kv_objects(size);
	size_t bytes;

	while (cap < 2 * n)
		cap <<= 1;
	bytes = (size_t)cap * size;
	sv->kv_size = 0;
	sv->store.slots = calloc(cap, sizeof(*sv->store.slots));
	sv->store.vals = sv->store_huge ? rte_malloc("perf-kv", bytes, 64) : malloc(bytes);
	if (sv->store.slots == NULL || sv->store.vals == NULL) {
		fprintf(stderr, "rdx-perf: no %s memory for a table of %u objects of %" PRIu64 " B\n",
			sv->store_huge ? "huge" : "host", cap, size);
		perf_rpc_kv_store_free(sv);
		return -ENOMEM;
	}
	sv->store.cap = cap;
	sv->store.value_max = (uint32_t)size;
	return 0;
}

int
perf_rpc_kv_store_reset(const struct perf_app *a, struct perf_rpc_srv *sv, uint64_t size)
{
	perf_rpc_kv_store_free(sv);
	sv->store_huge = a->o.mem == RDX_MEM_HUGE;
	sv->kv_size = size;
	return 0;
}

/* The KV service's handler, on the run's table. */
void
perf_rpc_kv_handler(struct rdx_rpc_req *req, void *arg)
{
	struct perf_rpc_srv *sv = arg;

	if (sv->store.slots == NULL && sv->kv_size != 0 && kv_store_alloc(sv) < 0) {
		kv_reply(req, -ENOMEM, NULL, 0);
		return;
	}
	kv_handler(req, &sv->store);
}

/* A KV call's answer: a struct kv_resp, then (GET) the object, whose
 * bytes the table's fill wrote from its key (--verify checks them). */
static void
kv_cont(struct rdx_rpc_session *sess, int status, void *buf, uint32_t len, void *arg)
{
	struct perf_rpc_call *k = arg;
	struct perf_rpc_cli *c = k->cli;
	struct perf_rpc_lc *lc = c->lc;
	uint64_t now = rdx_tsc();
	struct kv_resp r = { .status = -EBADMSG };
	uint32_t want = k->op == KV_GET ? k->size : 0;

	(void)sess;
	c->inflight--;
	c->done++;
	c->free[c->nb_free++] = k->slot;
	if (status == 0 && len >= sizeof(r))
		memcpy(&r, buf, sizeof(r));
	if (status != 0 || r.status != 0 || r.val_len != want || len != sizeof(r) + want) {
		lc->errors++;
		if (lc->first_err == 0)
			lc->first_err = status != 0 ? status : r.status != 0 ? r.status : -EBADMSG;
		return;
	}
	if (lc->a->o.verify && k->op == KV_GET)
		lc->verify_errors += perf_pattern_check((const uint8_t *)buf + sizeof(r), want,
							k->key, PERF_SALT_DATA);
	if (k->measured) {
		rdx_hist_record(lc->hist[k->cls], now - k->t0);
		lc->ops[k->cls]++;
		lc->bytes[k->cls] += k->size;
	}
}

/* A KV request in the slot's buffer: GET or PUT of a random object of the
 * table (the fill: PUT of the next one, its bytes made from its key);
 * clusterperf's 30-byte key, the object's index then 'x's. */
int
perf_rpc_kv_issue(struct perf_rpc_cli *c, struct perf_rpc_call *k, bool verify)
{
	uint8_t *p = c->kvreq + (uint64_t)k->slot * c->kvreq_stride;
	struct kv_req h = { .key_len = PERF_RPC_KV_KEY };
	uint32_t len;

	if (c->filling) {
		k->key = c->fill_next++;
		k->op = KV_PUT;
	} else {
		k->key = (uint32_t)(perf_rpc_xorshift(&c->rng) % perf_rpc_run.nb_obj);
		k->op = c->lc->a->o.rpc_kv == PERF_RPC_KV_READ ? KV_GET : KV_PUT;
	}
	h.val_len = k->op == KV_PUT ? k->size : 0;
	memcpy(p, &h, sizeof(h));
	memset(p + sizeof(h), 'x', PERF_RPC_KV_KEY);
	memcpy(p + sizeof(h), &k->key, sizeof(k->key));
	/* the written bytes matter to the reads after the fill and to
	 * --verify; else a write sends what the slot's buffer holds */
	if (k->op == KV_PUT && (c->filling || verify))
		perf_pattern_fill(p + sizeof(h) + PERF_RPC_KV_KEY, k->size, k->key, PERF_SALT_DATA);
	len = (uint32_t)sizeof(h) + PERF_RPC_KV_KEY + h.val_len;
	k->t0 = rdx_tsc();
	return rdx_rpc_call(c->sess, (uint16_t)k->op, p, len,
			    c->resp + (uint64_t)k->slot * c->resp_stride,
			    (uint32_t)sizeof(struct kv_resp) + k->size, kv_cont, k);
}
