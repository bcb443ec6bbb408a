/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx-perf's bandwidth loop (apps/rdx-perf/stream.c), the parts that need
 * no device: which WRs of a post list ask for a completion (stream_signal,
 * against the per-WR rule it replaced: a CQE every -Q WRs, the WR that fills
 * the window, the last one), and the latency of retired ops timed by post
 * list (stream_retire_runs, stream_retire_skip: against one histogram record
 * per op) over random post lists, windows and retirements. The loop's helpers from
 * common.c are stand-ins that fail the test if called.
 */
#include <stdlib.h>
#include <string.h>

#include "rdx_ut.h"

#include "../../../apps/rdx-perf/stream.c"

/* common.c and pingpong.c stand-ins: nothing here may reach them */
uint16_t
perf_poll(struct perf_ep *ep, bool recv, struct rdx_wc *wc, uint16_t n)
{
	RTE_SET_USED(ep);
	RTE_SET_USED(recv);
	RTE_SET_USED(wc);
	RTE_SET_USED(n);
	CU_FAIL("perf_poll called");
	return 0;
}

int
perf_wc_error(struct perf_lcore *lc, const struct perf_ep *ep, const struct rdx_wc *wc,
	      const char *op)
{
	RTE_SET_USED(lc);
	RTE_SET_USED(ep);
	RTE_SET_USED(wc);
	RTE_SET_USED(op);
	CU_FAIL("perf_wc_error called");
	return -EIO;
}

void
perf_lcore_fail(struct perf_lcore *lc, int err, const char *fmt, ...)
{
	RTE_SET_USED(lc);
	RTE_SET_USED(err);
	RTE_SET_USED(fmt);
	CU_FAIL("perf_lcore_fail called");
}

int
perf_serve_all(struct perf_lcore *lc)
{
	RTE_SET_USED(lc);
	CU_FAIL("perf_serve_all called");
	return 0;
}

int
perf_check_slow(struct perf_lcore *lc, uint64_t now)
{
	RTE_SET_USED(lc);
	RTE_SET_USED(now);
	CU_FAIL("perf_check_slow called");
	return 0;
}

void
perf_cq_wait(struct perf_ep *ep, bool recv, int timeout_ms)
{
	RTE_SET_USED(ep);
	RTE_SET_USED(recv);
	RTE_SET_USED(timeout_ms);
	CU_FAIL("perf_cq_wait called");
}

int
perf_post_recvs(struct perf_ep *ep, uint64_t want)
{
	RTE_SET_USED(ep);
	RTE_SET_USED(want);
	CU_FAIL("perf_post_recvs called");
	return 0;
}

int
perf_mem_fill(struct rdx_mem *m, uint64_t off, uint64_t len, uint64_t op, uint32_t salt)
{
	RTE_SET_USED(m);
	RTE_SET_USED(off);
	RTE_SET_USED(len);
	RTE_SET_USED(op);
	RTE_SET_USED(salt);
	CU_FAIL("perf_mem_fill called");
	return 0;
}

uint64_t
perf_mem_check(struct rdx_mem *m, uint64_t off, uint64_t len, uint64_t op, uint32_t salt)
{
	RTE_SET_USED(m);
	RTE_SET_USED(off);
	RTE_SET_USED(len);
	RTE_SET_USED(op);
	RTE_SET_USED(salt);
	CU_FAIL("perf_mem_check called");
	return 0;
}

int
perf_read_remote(struct perf_lcore *lc, struct perf_ep *ep, uint64_t roff, uint64_t loff,
		 uint32_t len)
{
	RTE_SET_USED(lc);
	RTE_SET_USED(ep);
	RTE_SET_USED(roff);
	RTE_SET_USED(loff);
	RTE_SET_USED(len);
	CU_FAIL("perf_read_remote called");
	return 0;
}

static uint64_t rng_state;

static uint64_t
rng_next(void)
{
	uint64_t z = (rng_state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* The rule stream_signal replaced, one WR at a time (seq = posted + j). */
static void
ref_signal(struct perf_ep *ep, uint32_t q, bool lat, uint64_t window, uint32_t n,
	   uint8_t *flags)
{
	uint32_t j;

	for (j = 0; j < n; j++) {
		uint64_t seq = ep->posted + j;

		flags[j] = 0;
		if (lat || ep->sig_left <= 1 || seq + 1 == ep->target ||
		    seq + 1 - ep->completed == window) {
			flags[j] = RDX_WR_SIGNALED;
			ep->sig_left = q;
		} else {
			ep->sig_left--;
		}
	}
}

/* Random -Q, post list and window; the ops of each post retire at random
 * (whole post lists or not), as completions would: both rules see the same
 * posted/completed/target at every post. */
static void
test_signal_rule(void)
{
	static const uint32_t qs[] = { 1, 2, 3, 7, 16, 32, 33, 100, 65536 };
	struct stream_tmpl *t = calloc(1, sizeof(*t));
	uint8_t want[RDX_MAX_BURST];
	unsigned int round, posts = 0, signaled = 0;

	CU_ASSERT_FATAL(t != NULL);
	rng_state = 1;
	for (round = 0; round < 2000; round++) {
		struct stream_ops so = { .sig_every = qs[rng_next() % RTE_DIM(qs)],
					 .lat = rng_next() % 10 == 0 };
		struct perf_ep a = { .sig_left = (uint32_t)(rng_next() % 3) }, b;
		uint32_t plist = 1 + (uint32_t)(rng_next() % RDX_MAX_BURST);
		uint64_t window = 1 + rng_next() % 128;
		unsigned int step;

		a.target = a.posted + 1 + rng_next() % 600;
		b = a;
		for (step = 0; step < 400 && a.posted < a.target; step++) {
			uint64_t inflight = a.posted - a.completed, left = a.target - a.posted;
			uint32_t n = min_u32(plist, (uint32_t)(window - inflight)), j;

			if (left < n)
				n = (uint32_t)left;
			if (n > 0 && rng_next() % 4 != 0)
				n = 1 + (uint32_t)(rng_next() % n);  /* --rate: fewer due */
			if (n > 0) {
				ref_signal(&a, so.sig_every, so.lat, window, n, want);
				for (j = 0; j < n; j++)
					t->wrs[j].flags = RDX_WR_INLINE;
				stream_signal(&so, &b, t->wrs, n,
					      n == left || n == window - inflight);
				for (j = 0; j < n; j++) {
					CU_ASSERT_EQUAL(t->wrs[j].flags,
							want[j] | RDX_WR_INLINE);
					signaled += want[j] != 0;
				}
				CU_ASSERT_EQUAL(b.sig_left, a.sig_left);
				a.posted += n;
				b.posted += n;
				posts++;
			}
			/* some of what is in flight completes */
			inflight = a.posted - a.completed;
			if (inflight > 0) {
				a.completed += rng_next() % (inflight + 1);
				b.completed = a.completed;
			}
		}
	}
	CU_ASSERT(posts > 10000);
	CU_ASSERT(signaled > 1000);
	free(t);
}

/* Post lists of random lengths and times (the same time twice in a row
 * too), some not wholly posted, retired by completions of random lengths,
 * some during a warm-up (not recorded): the histogram equals one record per
 * op with its post list's time. */
static void
test_retire_runs(void)
{
	static struct rdx_hist per_op, runs;
	static uint64_t op_tsc[256], pl[2 * 256];
	struct perf_run run = { .size = 64, .window = 200 };
	struct rdx_mem mem;
	struct perf_ep ep = { .buf = &mem };
	struct perf_lcore lc = { .run = &run, .hist = &runs };
	struct stream_tmpl *t = calloc(1, sizeof(*t));
	struct stream_ops so = { .size = 64 };
	uint64_t tsc, now, ops = 0, skipped = 0;
	unsigned int step;

	CU_ASSERT_FATAL(t != NULL);
	memset(&mem, 0, sizeof(mem));
	rdx_hist_init(&per_op);
	rdx_hist_init(&runs);
	t->pl_mask = 255;
	t->pl_seq = pl;
	t->pl_tsc = pl + 256;
	rng_state = 2;
	/* 3 ops still in flight from an earlier phase: timed from the start */
	ep.posted = 3;
	stream_tmpl_init(&so, &ep, t);
	CU_ASSERT_EQUAL(t->pl_next, 1);
	tsc = t->pl_tsc[0];  /* rdx_tsc() then: the test's clock goes on from it */
	op_tsc[0] = op_tsc[1] = op_tsc[2] = tsc;
	for (step = 0; step < 200000; step++) {
		uint64_t inflight = ep.posted - ep.completed;

		if (inflight < run.window && rng_next() % 2 == 0) {
			/* a post list of 1..64 ops, as stream_post records it */
			uint64_t n = 1 + rng_next() % 64, j;

			if (n > run.window - inflight)
				n = run.window - inflight;
			tsc += rng_next() % 3 == 0 ? 0 : 1 + rng_next() % 5000;
			t->pl_seq[t->pl_next & t->pl_mask] = ep.posted;
			t->pl_tsc[t->pl_next & t->pl_mask] = tsc;
			t->pl_next++;
			for (j = 0; j < n; j++)
				op_tsc[(ep.posted + j) & 255] = tsc;
			ep.posted += n;
		} else if (inflight > 0) {
			/* one completion retires 1..inflight ops */
			uint32_t r = (uint32_t)(1 + rng_next() % inflight), j;

			now = tsc + rng_next() % 100000;
			if (rng_next() % 8 == 0) {
				stream_retire_skip(&ep, t, r);
				skipped += r;
			} else {
				for (j = 0; j < r; j++)
					rdx_hist_record(&per_op,
							now - op_tsc[(ep.completed + j) & 255]);
				stream_retire_runs(&lc, &ep, t, r, now);
				ops += r;
			}
			ep.completed += r;
			/* the post lists in flight: those with an op not retired */
			CU_ASSERT(t->pl_next - t->pl_done <= ep.posted - ep.completed);
			CU_ASSERT(t->pl_done == t->pl_next ||
				  t->pl_seq[t->pl_done & t->pl_mask] <= ep.completed);
		}
	}
	CU_ASSERT(ops > 100000);
	CU_ASSERT(skipped > 10000);
	CU_ASSERT_EQUAL(lc.ops, ops);
	CU_ASSERT_EQUAL(lc.bytes, ops * 64);
	CU_ASSERT_EQUAL(runs.count, per_op.count);
	CU_ASSERT_EQUAL(runs.min, per_op.min);
	CU_ASSERT_EQUAL(runs.max, per_op.max);
	CU_ASSERT_EQUAL(runs.overflow, per_op.overflow);
	CU_ASSERT(memcmp(runs.buckets, per_op.buckets, sizeof(runs.buckets)) == 0);
	CU_ASSERT(fabs(rdx_hist_mean(&runs) - rdx_hist_mean(&per_op)) <=
		  1e-9 * rdx_hist_mean(&per_op));
	CU_ASSERT(fabs(rdx_hist_stdev(&runs) - rdx_hist_stdev(&per_op)) <=
		  1e-9 * rdx_hist_stdev(&per_op));
	CU_ASSERT_EQUAL(rdx_hist_percentile(&runs, 99.0), rdx_hist_percentile(&per_op, 99.0));
	free(t);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "signaled WRs: the per-WR rule", test_signal_rule },
		{ "retire by runs: one record per op", test_retire_runs },
		{ NULL, NULL },
	};

	return rdx_ut_run("stream", cases, NULL, NULL);
}
