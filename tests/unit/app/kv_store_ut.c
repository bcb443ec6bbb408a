/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * examples/kv's store (kv_store.h): random PUT/GET/DELETE against a plain
 * reference array, every key checked after each batch (the backward shift
 * moves entries and their values); and the cost of a lookup under key
 * churn stays bounded by the load (with "deleted" markers, distinct-key
 * PUT + DELETE left the table full of them: a miss scanned every slot).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdx_ut.h"

#include "../../../examples/kv/kv_store.h"

#define CAP 1024u
#define VMAX 16u
#define NKEYS 1500u                  /* more names than slots: some PUTs find no room */

static struct kv_slot slots[CAP];
static uint8_t vals[CAP * VMAX];

static void
store_init(struct kv_store *s)
{
	memset(slots, 0, sizeof(slots));
	memset(s, 0, sizeof(*s));
	s->slots = slots;
	s->vals = vals;
	s->cap = CAP;
	s->value_max = VMAX;
}

static uint32_t
key_of(uint32_t k, char *buf)
{
	return (uint32_t)snprintf(buf, KV_KEY_MAX, "key-%u", k);
}

/* PUT as kv_server's handler does it; false when the table is full */
static bool
put(struct kv_store *s, uint32_t k, uint32_t v)
{
	char key[KV_KEY_MAX];
	uint32_t n = key_of(k, key);
	struct kv_slot *e = kv_find(s, key, n, true);

	if (e == NULL)
		return false;
	if (e->state != KV_SLOT_USED) {
		e->state = KV_SLOT_USED;
		e->key_len = (uint8_t)n;
		memcpy(e->key, key, n);
		s->used++;
	}
	e->val_len = sizeof(v);
	memcpy(kv_val(s, e), &v, sizeof(v));
	return true;
}

static bool
del(struct kv_store *s, uint32_t k)
{
	char key[KV_KEY_MAX];
	uint32_t n = key_of(k, key);
	struct kv_slot *e = kv_find(s, key, n, false);

	if (e == NULL)
		return false;
	kv_remove(s, e);
	return true;
}

/* 0 when absent, else the value + 1 */
static uint64_t
get(struct kv_store *s, uint32_t k)
{
	char key[KV_KEY_MAX];
	uint32_t n = key_of(k, key), v;
	struct kv_slot *e = kv_find(s, key, n, false);

	if (e == NULL)
		return 0;
	memcpy(&v, kv_val(s, e), sizeof(v));
	return (uint64_t)v + 1;
}

static void
test_against_reference(void)
{
	static struct kv_store s;
	static uint64_t ref[NKEYS];  /* 0 absent, else value + 1 */
	uint32_t i, k, bad = 0, used = 0, seed = 12345;
	unsigned int round;

	store_init(&s);
	memset(ref, 0, sizeof(ref));
	for (round = 0; round < 50; round++) {
		for (i = 0; i < 4000; i++) {
			seed = seed * 1103515245u + 12345u;
			k = (seed >> 8) % NKEYS;
			if ((seed >> 4) % 3 == 0) {
				bool had = ref[k] != 0;

				if (del(&s, k) != had)
					bad++;
				ref[k] = 0;
			} else if (put(&s, k, seed)) {
				ref[k] = (uint64_t)seed + 1;
			} else if (ref[k] != 0 || s.used != CAP) {
				bad++;       /* refused only when full and absent */
			}
		}
		for (k = 0, used = 0; k < NKEYS; k++) {
			if (get(&s, k) != ref[k])
				bad++;
			used += ref[k] != 0;
		}
		if (used != s.used)
			bad++;
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(used > CAP / 2);   /* the table was well filled */
}

/* Distinct keys put and deleted again and again, at a steady 50% load:
 * a miss looks at a few slots, never at the whole table. */
static void
test_churn_bounded(void)
{
	static struct kv_store s;
	uint32_t k, live = CAP / 2;
	uint64_t p0;
	char key[KV_KEY_MAX];

	store_init(&s);
	for (k = 0; k < live; k++)
		CU_ASSERT_FATAL(put(&s, k, k));
	for (k = live; k < live + 200000; k++) {
		CU_ASSERT_FATAL(put(&s, k, k));
		CU_ASSERT_FATAL(del(&s, k - live));
	}
	CU_ASSERT_EQUAL(s.used, live);
	p0 = s.probes;
	for (k = 0; k < 1000; k++) {
		uint32_t n = (uint32_t)snprintf(key, sizeof(key), "absent-%u", k);

		CU_ASSERT(kv_find(&s, key, n, false) == NULL);
	}
	/* linear probing at load 1/2: a miss takes ~2.5 slots on average */
	printf("\n  churn: %.2f slots per miss after 200000 PUT+DELETE at load 1/2 (table %u)\n",
	       (double)(s.probes - p0) / 1000.0, CAP);
	CU_ASSERT((s.probes - p0) / 1000 < 16);
	for (k = live + 200000 - live; k < live + 200000; k++)
		CU_ASSERT(get(&s, k) == (uint64_t)k + 1);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "random ops against a reference", test_against_reference },
		{ "lookups bounded under key churn", test_churn_bounded },
		{ NULL, NULL },
	};

	return rdx_ut_run("kv_store", cases, NULL, NULL);
}
