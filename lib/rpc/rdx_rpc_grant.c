/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The homa+infud receiver's grant scheduler (rdx_rpc_proto.h): incoming
 * messages longer than rtt_bytes are granted, shortest remaining first, at
 * most `overcommit` of them at a time, each up to rtt_bytes beyond what has
 * arrived. Fixed table, no allocation; a linear selection of the best
 * `overcommit` entries (the table holds at most sessions * slots messages).
 */
#include <errno.h>
#include <stddef.h>

#include "rdx_rpc_proto.h"

#define GRANT_NONE UINT32_MAX

void
rpc_grant_init(struct rpc_grant_sched *s, struct rpc_grant_ent **ents,
	       uint32_t cap, uint32_t rtt_bytes, uint32_t overcommit)
{
	s->ents = ents;
	s->n = 0;
	s->cap = cap;
	s->rtt_bytes = rtt_bytes;
	s->overcommit = overcommit == 0 ? 1 : overcommit;
	s->budget = 0;
}

void
rpc_grant_budget(struct rpc_grant_sched *s, uint32_t budget)
{
	s->budget = budget;
}

int
rpc_grant_add(struct rpc_grant_sched *s, struct rpc_grant_ent *e, uint32_t msg_len)
{
	e->msg_len = msg_len;
	e->rcvd = 0;
	e->granted = msg_len < s->rtt_bytes ? msg_len : s->rtt_bytes;
	e->prev_granted = e->granted;
	e->pos = GRANT_NONE;
	if (e->granted >= msg_len)
		return 0;
	if (s->n >= s->cap)
		return -ENOSPC;
	e->pos = s->n;
	s->ents[s->n++] = e;
	return 1;
}

void
rpc_grant_remove(struct rpc_grant_sched *s, struct rpc_grant_ent *e)
{
	uint32_t p = e->pos;

	if (p == GRANT_NONE || p >= s->n || s->ents[p] != e)
		return;
	s->ents[p] = s->ents[--s->n];
	s->ents[p]->pos = p;
	e->pos = GRANT_NONE;
}

static inline uint32_t
remaining(const struct rpc_grant_ent *e)
{
	return e->msg_len - e->rcvd;
}

uint32_t
rpc_grant_run(struct rpc_grant_sched *s, struct rpc_grant_ent **out, uint32_t max)
{
	struct rpc_grant_ent *top[64];
	uint32_t k = s->overcommit < 64 ? s->overcommit : 64;
	uint32_t ntop = 0, i, j, nout = 0, ahead = s->rtt_bytes;

	/* the k entries with the fewest bytes left, in order (insertion) */
	for (i = 0; i < s->n; i++) {
		struct rpc_grant_ent *e = s->ents[i];

		if (ntop == k && remaining(e) >= remaining(top[k - 1]))
			continue;
		j = ntop < k ? ntop++ : k - 1;
		while (j > 0 && remaining(top[j - 1]) > remaining(e)) {
			top[j] = top[j - 1];
			j--;
		}
		top[j] = e;
	}
	if (ntop != 0 && s->budget / ntop > ahead)
		ahead = s->budget / ntop;
	for (i = 0; i < ntop; i++) {
		struct rpc_grant_ent *e = top[i];
		uint64_t want = (uint64_t)e->rcvd + ahead;

		if (want > e->msg_len)
			want = e->msg_len;
		if (want > e->granted && nout < max) {
			e->prev_granted = e->granted;
			e->granted = (uint32_t)want;
			out[nout++] = e;
		}
		if (e->granted >= e->msg_len)
			rpc_grant_remove(s, e);
	}
	return nout;
}
