/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the software-device tests: poll a CQ until n completions arrive,
 * bounded by a hang guard (not a timing assertion), so a broken model fails
 * a test instead of hanging it.
 */
#ifndef SW_UT_POLL_H
#define SW_UT_POLL_H

#include <sched.h>
#include <stdint.h>
#include <time.h>

#include "rdx_dev.h"

#define POLL_GUARD_MS 10000

static inline uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static inline int
poll_n(struct rdx_cq *cq, struct rdx_wc *wc, int n)
{
	uint64_t end = now_ms() + POLL_GUARD_MS;
	long spins;
	int got = 0;

	for (spins = 1; got < n; spins++) {
		got += rdx_cq_poll_burst(cq, wc + got, (uint16_t)(n - got));
		if ((spins & 1023) == 0) {
			if (now_ms() > end)
				break;
			sched_yield(); /* let an engine thread run */
		}
	}
	return got;
}

#endif /* SW_UT_POLL_H */
