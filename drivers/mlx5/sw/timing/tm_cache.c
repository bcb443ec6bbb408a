/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An LRU cache of at most cap keys out of SW_TM_CACHE_KEYS (the NIC's
 * QP-context cache: keys are QP slots). A doubly linked list through
 * arrays indexed by key: O(1) per use, plain data (shared memory).
 */
#include <string.h>

#include "sw_timing.h"

void
sw_tm_cache_init(struct sw_tm_cache *c, uint32_t cap)
{
	memset(c, 0, sizeof(*c));
	c->cap = cap > SW_TM_CACHE_KEYS ? SW_TM_CACHE_KEYS : cap;
	c->head = SW_TM_CACHE_NIL;
	c->tail = SW_TM_CACHE_NIL;
}

static void
tm_unlink(struct sw_tm_cache *c, uint16_t k)
{
	if (c->prev[k] != SW_TM_CACHE_NIL)
		c->next[c->prev[k]] = c->next[k];
	else
		c->head = c->next[k];
	if (c->next[k] != SW_TM_CACHE_NIL)
		c->prev[c->next[k]] = c->prev[k];
	else
		c->tail = c->prev[k];
}

static void
tm_push_front(struct sw_tm_cache *c, uint16_t k)
{
	c->prev[k] = SW_TM_CACHE_NIL;
	c->next[k] = c->head;
	if (c->head != SW_TM_CACHE_NIL)
		c->prev[c->head] = k;
	c->head = k;
	if (c->tail == SW_TM_CACHE_NIL)
		c->tail = k;
}

bool
sw_tm_cache_touch(struct sw_tm_cache *c, uint32_t key)
{
	uint16_t k = (uint16_t)(key % SW_TM_CACHE_KEYS);

	if (c->cap == 0) {
		c->misses++;
		return false;
	}
	if (c->in[k]) {
		c->hits++;
		if (c->head != k) {
			tm_unlink(c, k);
			tm_push_front(c, k);
		}
		return true;
	}
	c->misses++;
	if (c->n == c->cap) {
		uint16_t old = c->tail;

		tm_unlink(c, old);
		c->in[old] = 0;
		c->n--;
	}
	tm_push_front(c, k);
	c->in[k] = 1;
	c->n++;
	return false;
}
