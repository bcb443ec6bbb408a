/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the two client loops (stream.c, pingpong.c) share: the start of a
 * phase (warm-up or measured) and the end of every pass over the QPs (serve
 * the local responder ends, stop when every QP is done, -e idle wait, the
 * slow checks, the deadline and the drain). Inline: it runs once per pass.
 */
#ifndef PERF_LOOP_H
#define PERF_LOOP_H

#include "rdx_runtime.h"

#include "perf_app.h"
#include "rate.h"

/* One phase of a client loop. */
struct perf_phase {
	uint64_t deadline;
	uint64_t iter;
	bool timed;              /* -D: ends at the deadline, not after -n ops */
	signed char wait_cq;     /* -e idle wait: -1 none, 0 send CQ, 1 receive CQ */
};

/* Targets of the phase: -n ops more per QP, or unbounded until the deadline. */
static inline __attribute__((always_inline)) void
perf_phase_begin(struct perf_lcore *lc, struct perf_phase *ph, int wait_cq)
{
	const struct perf_run *run = lc->run;
	uint64_t iters = lc->measure ? run->iters : run->warm_iters;
	uint64_t dur = lc->measure ? run->dur_tsc : run->warm_tsc;
	uint64_t now = rdx_tsc();
	unsigned int i;

	ph->deadline = now + dur;
	ph->iter = 0;
	ph->timed = iters == 0 && dur != 0;
	ph->wait_cq = (signed char)wait_cq;
	for (i = 0; i < lc->nb_eps; i++) {
		struct perf_ep *ep = lc->eps[i];

		ep->target = ph->timed ? UINT64_MAX : ep->posted + iters;
	}
	if (run->rate_period != 0) {
		perf_rate_begin(lc, now);
		/* -D: exactly the ops intended before the deadline (rate.h) */
		for (i = 0; ph->timed && i < lc->nb_eps; i++)
			lc->eps[i]->target = perf_rate_target_at(run, lc->eps[i], ph->deadline);
	}
	lc->last_progress = now;
}

/*
 * End of one pass: `active` QPs still have work, `busy` says whether the
 * pass did any. Returns 1 when the phase is over, 0 to go on, <0 on error.
 */
static inline __attribute__((always_inline)) int
perf_pass_end(struct perf_lcore *lc, struct perf_phase *ph, unsigned int active, int busy)
{
	unsigned int i;
	uint64_t now;
	int rc;

	/* loopback on one lcore: the responder ends live here too */
	if (lc->nb_srv > 0) {
		rc = perf_serve_all(lc);
		if (rc < 0)
			return rc;
	}
	if (active == 0)
		return 1;
	lc->polls++;
	lc->busy_polls += busy != 0;
	/* -e: sleep on the completion channel instead of spinning (bounded,
	 * so the slow checks below still run) */
	if (busy == 0 && ph->wait_cq >= 0 && lc->o->events) {
		for (i = 0; i < lc->nb_eps; i++)
			if (lc->eps[i]->posted != lc->eps[i]->completed) {
				perf_cq_wait(lc->eps[i], ph->wait_cq != 0, 1);
				break;
			}
	}
	if ((++ph->iter & 255) != 0)
		return 0;
	now = rdx_tsc();
	rc = perf_check_slow(lc, now);
	if (rc < 0)
		return rc;
	if (rc > 0 || (ph->timed && now >= ph->deadline)) {
		/* stop posting and drain; when the last WR posted was
		 * unsignaled, one more (signaled) retires it; --rate: the ops
		 * intended before the deadline are still sent (rate.h) */
		for (i = 0; i < lc->nb_eps; i++) {
			struct perf_ep *ep = lc->eps[i];

			ep->target = ep->posted + (ep->last_sig ? 0 : 1);
			if (lc->run->rate_period != 0 && rc == 0 && ph->timed)
				ep->target = RTE_MAX(ep->target,
						     perf_rate_target_at(lc->run, ep, ph->deadline));
		}
		ph->timed = false;
	}
	return 0;
}

#endif /* PERF_LOOP_H */
