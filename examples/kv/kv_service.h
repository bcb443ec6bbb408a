/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The KV service: the request handler of kv_server over its store
 * (kv_store.h), kept apart so that every program serving the store runs
 * the same code: kv_server, and rdx-perf's basic.read / basic.write
 * (apps/rdx-perf/rpc_echo.c), which measure it as RAMCloud's clusterperf
 * measures a storage server. Register kv_handler with the store as its
 * argument for KV_GET, KV_PUT and KV_DEL; a call's response buffer must
 * hold a struct kv_resp and value_max bytes.
 */
#ifndef KV_SERVICE_H
#define KV_SERVICE_H

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <rdx_rpc.h>

#include "kv_proto.h"
#include "kv_store.h"

/* Parse a request (a peer's bytes: every length checked); NULL key on error. */
static inline const char *
kv_parse(const struct rdx_rpc_req *req, struct kv_req *h, uint32_t value_max)
{
	if (req->len < sizeof(*h))
		return NULL;
	memcpy(h, req->data, sizeof(*h));
	if (h->key_len == 0 || h->key_len > KV_KEY_MAX || h->rsv != 0 ||
	    h->val_len > value_max || (req->type != KV_PUT && h->val_len != 0) ||
	    req->len != sizeof(*h) + h->key_len + h->val_len)
		return NULL;
	return (const char *)req->data + sizeof(*h);
}

static inline void
kv_reply(struct rdx_rpc_req *req, int32_t status, const void *val, uint32_t len)
{
	struct kv_resp r = { .status = status, .val_len = len };

	memcpy(req->resp, &r, sizeof(r));
	if (len > 0)
		memcpy((uint8_t *)req->resp + sizeof(r), val, len);
	rdx_rpc_respond(req, (uint32_t)sizeof(r) + len);
}

/* One handler for the three types: runs inside rdx_rpc_endpoint_poll. */
static inline void
kv_handler(struct rdx_rpc_req *req, void *arg)
{
	struct kv_store *s = arg;
	struct kv_slot *e;
	struct kv_req h;
	const char *key = kv_parse(req, &h, s->value_max);

	if (key == NULL || req->resp_cap < sizeof(struct kv_resp) + s->value_max) {
		s->bad++;
		kv_reply(req, -EINVAL, NULL, 0);
		return;
	}
	switch (req->type) {
	case KV_GET:
		s->gets++;
		e = kv_find(s, key, h.key_len, false);
		if (e == NULL) {
			kv_reply(req, -ENOENT, NULL, 0);
			return;
		}
		s->hits++;
		kv_reply(req, 0, kv_val(s, e), e->val_len);
		return;
	case KV_PUT:
		s->puts++;
		e = kv_find(s, key, h.key_len, true);
		if (e == NULL) {
			kv_reply(req, -ENOSPC, NULL, 0);
			return;
		}
		if (e->state != KV_SLOT_USED) {
			e->state = KV_SLOT_USED;
			e->key_len = (uint8_t)h.key_len;
			memcpy(e->key, key, h.key_len);
			s->used++;
		}
		e->val_len = h.val_len;
		memcpy(kv_val(s, e), key + h.key_len, h.val_len);
		kv_reply(req, 0, NULL, 0);
		return;
	default: /* KV_DEL */
		s->dels++;
		e = kv_find(s, key, h.key_len, false);
		if (e == NULL) {
			kv_reply(req, -ENOENT, NULL, 0);
			return;
		}
		kv_remove(s, e);
		kv_reply(req, 0, NULL, 0);
		return;
	}
}

#endif /* KV_SERVICE_H */
