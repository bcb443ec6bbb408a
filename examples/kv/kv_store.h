/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kv_server's store: a fixed open-addressing table (linear probing) with
 * its value slab allocated at start, so the handlers allocate nothing.
 * A DELETE empties its slot and moves later entries of the probe run back
 * into the hole (backward-shift deletion), so no "deleted" marker is left:
 * a lookup stops at the first empty slot and its cost stays bounded by the
 * table's load, whatever the churn of keys (with markers, distinct-key
 * PUT + DELETE filled the table with them until every miss scanned it all).
 * Kept apart from the RPC code so tests/unit/app/kv_store_ut.c checks it.
 */
#ifndef KV_STORE_H
#define KV_STORE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "kv_proto.h"

enum { KV_SLOT_EMPTY = 0, KV_SLOT_USED };

struct kv_slot {
	uint8_t state;
	uint8_t key_len;
	uint32_t val_len;
	char key[KV_KEY_MAX];
};

struct kv_store {
	struct kv_slot *slots;
	uint8_t *vals;               /* capacity x value_max */
	uint32_t cap;                /* a power of two */
	uint32_t used;
	uint32_t value_max;
	uint64_t gets, hits, puts, dels, bad;
	uint64_t probes;             /* slots looked at by kv_find */
};

static inline uint64_t
kv_hash(const char *k, uint32_t n)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	uint32_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (uint8_t)k[i]) * 1099511628211ull;
	return h;
}

static inline uint32_t
kv_home(const struct kv_store *s, const struct kv_slot *e)
{
	return (uint32_t)kv_hash(e->key, e->key_len) & (s->cap - 1);
}

/* The slot holding key, or (want_free) the empty slot that ends its probe
 * run when the key is absent; NULL when neither exists (a full table). */
static inline struct kv_slot *
kv_find(struct kv_store *s, const char *key, uint32_t n, bool want_free)
{
	uint32_t i, mask = s->cap - 1, at = (uint32_t)kv_hash(key, n) & mask;

	for (i = 0; i < s->cap; i++, at = (at + 1) & mask) {
		struct kv_slot *e = &s->slots[at];

		s->probes++;
		if (e->state == KV_SLOT_EMPTY)
			return want_free ? e : NULL;
		if (e->key_len == n && memcmp(e->key, key, n) == 0)
			return e;
	}
	return NULL;
}

static inline uint8_t *
kv_val(struct kv_store *s, const struct kv_slot *e)
{
	return s->vals + (uint64_t)(e - s->slots) * s->value_max;
}

/* Remove e: empty it, then walk the run after it and move back into the
 * hole every entry whose home is not in (hole, here] (cyclically): such an
 * entry's probe path from its home passes the hole, so it must not see it
 * empty. The walk ends at the first empty slot. */
static inline void
kv_remove(struct kv_store *s, struct kv_slot *e)
{
	uint32_t mask = s->cap - 1, hole = (uint32_t)(e - s->slots), j = hole;

	e->state = KV_SLOT_EMPTY;
	s->used--;
	for (;;) {
		struct kv_slot *x;

		j = (j + 1) & mask;
		x = &s->slots[j];
		if (x->state == KV_SLOT_EMPTY)
			return;
		if (((j - kv_home(s, x)) & mask) < ((j - hole) & mask))
			continue; /* its home lies after the hole: it stays */
		s->slots[hole] = *x;
		memcpy(kv_val(s, &s->slots[hole]), kv_val(s, x), x->val_len);
		x->state = KV_SLOT_EMPTY;
		hole = j;
	}
}

#endif /* KV_STORE_H */
