/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx-perf open loop (--rate, --rate-sweep): each QP has a schedule of
 * intended send times, one every run->rate_period TSC cycles from the start
 * of the phase (QPs staggered across one period). A loop posts an op only
 * once its intended time has come (never earlier), and the op's latency
 * counts from that intended time, not from when it was posted: an op held
 * back because earlier ones were slow is charged the wait, so the latency
 * is free of coordinated omission (as wrk2 measures). Offered load = QPs /
 * period; the stream loop keeps at most -t ops in flight, so past the
 * knee the backlog (and the latency) grows with the run. A timed run (-D)
 * still sends, after its deadline, the ops intended before it that a
 * backlog or a preemption held back: the offered load is D x R ops.
 */
#ifndef PERF_RATE_H
#define PERF_RATE_H

#include <stdint.h>

#include "perf_app.h"

/* Start of a phase: the schedule of every QP of the lcore begins now. */
static inline void
perf_rate_begin(struct perf_lcore *lc, uint64_t now)
{
	const struct perf_run *run = lc->run;
	unsigned int i;

	for (i = 0; i < lc->nb_eps; i++) {
		struct perf_ep *ep = lc->eps[i];
		uint32_t k = run->qps != 0 ? ep->index % run->qps : 0;

		ep->rate_seq0 = ep->posted;
		ep->rate_t0 = now + (uint64_t)(run->rate_period * (double)k /
					       (double)(run->qps != 0 ? run->qps : 1));
	}
}

/* How many of ep's next ops (at most n) are due at `now`. */
static inline uint32_t
perf_rate_due(const struct perf_run *run, const struct perf_ep *ep, uint64_t now, uint32_t n)
{
	uint64_t due;

	if (now < ep->rate_t0)
		return 0;
	due = ep->rate_seq0 + (uint64_t)((double)(now - ep->rate_t0) / run->rate_period) + 1;
	if (due <= ep->posted)
		return 0;
	return due - ep->posted < n ? (uint32_t)(due - ep->posted) : n;
}

/* The op count of ep once every op intended before time t is posted. */
static inline uint64_t
perf_rate_target_at(const struct perf_run *run, const struct perf_ep *ep, uint64_t t)
{
	if (t < ep->rate_t0)
		return ep->rate_seq0;
	return ep->rate_seq0 + (uint64_t)((double)(t - ep->rate_t0) / run->rate_period) + 1;
}

/* The intended send time of op seq of ep: its latency starts there. */
static inline uint64_t
perf_rate_intended(const struct perf_run *run, const struct perf_ep *ep, uint64_t seq)
{
	return ep->rate_t0 + (uint64_t)((double)(seq - ep->rate_seq0) * run->rate_period);
}

#endif /* PERF_RATE_H */
