/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx-perf's bandwidth loop (apps/rdx-perf/stream.c), the parts that need
 * no device: which WRs of a post list ask for a completion (stream_signal,
 * against the per-WR rule it replaced: a CQE every -Q WRs, the WR that fills
 * the window, the last one), every field of the WRs a post list reuses
 * (stream_build, against WRs built from scratch), and the latency of retired ops timed by post
 * list (stream_retire_runs, stream_retire_skip: against one histogram record
 * per op) over random post lists, windows and retirements; over UD, the
 * immediate that carries the run and the op number (perf_ud_stream_imm)
 * and what the responder makes of a datagram (ud_take: this run's op, a
 * repeat, or stale: of an earlier run) over runs of dropped, repeated,
 * reordered and late datagrams. The loop's helpers from
 * common.c are stand-ins that fail the test if called.
 */
#include <inttypes.h>
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

uint16_t
perf_poll_sends(struct perf_ep *ep, struct rdx_wc *wc, uint16_t n)
{
	RTE_SET_USED(ep);
	RTE_SET_USED(wc);
	RTE_SET_USED(n);
	CU_FAIL("perf_poll_sends called");
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

/*
 * What every case starts from: a zeroed post-list template (too large for
 * the stack), a zeroed buffer (the loop reads its iova and lkey only) and
 * the random sequence from seed.
 */
struct stream_fx {
	struct stream_tmpl *t;
	struct rdx_mem mem;
};

static void
fx_init(struct stream_fx *fx, uint64_t seed)
{
	fx->t = calloc(1, sizeof(*fx->t));
	CU_ASSERT_FATAL(fx->t != NULL);
	memset(&fx->mem, 0, sizeof(fx->mem));
	rng_state = seed;
}

static void
fx_fini(struct stream_fx *fx)
{
	free(fx->t);
}

/* Some of what a is posting (anything from none to all in flight)
 * completes, for the reference a and the endpoint under test b alike. */
static void
fx_complete_some(struct perf_ep *a, struct perf_ep *b)
{
	uint64_t inflight = a->posted - a->completed;

	if (inflight > 0) {
		a->completed += rng_next() % (inflight + 1);
		b->completed = a->completed;
	}
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
	struct stream_fx fx;
	struct stream_tmpl *t;
	uint8_t want[RDX_MAX_BURST];
	unsigned int round, posts = 0, signaled = 0, j;

	fx_init(&fx, 1);
	t = fx.t;
	for (round = 0; round < 2000; round++) {
		struct stream_ops so = { .sig_every = qs[rng_next() % RTE_DIM(qs)],
					 .lat = rng_next() % 10 == 0 };
		struct perf_ep a = { .sig_left = (uint32_t)(rng_next() % 3) }, b;
		uint32_t plist = 1 + (uint32_t)(rng_next() % RDX_MAX_BURST);
		uint64_t window = 1 + rng_next() % 128;
		unsigned int step;

		a.target = a.posted + 1 + rng_next() % 600;
		b = a;
		for (j = 0; j < RDX_MAX_BURST; j++)
			t->wrs[j].flags = RDX_WR_INLINE;
		t->flags = RDX_WR_INLINE;
		t->nsig = 0;
		for (step = 0; step < 400 && a.posted < a.target; step++) {
			uint64_t inflight = a.posted - a.completed, left = a.target - a.posted;
			uint32_t n = min_u32(plist, (uint32_t)(window - inflight));

			if (left < n)
				n = (uint32_t)left;
			if (n > 0 && rng_next() % 4 != 0)
				n = 1 + (uint32_t)(rng_next() % n);  /* --rate: fewer due */
			if (n > 0) {
				ref_signal(&a, so.sig_every, so.lat, window, n, want);
				stream_signal(&so, &b, t, n, n == left || n == window - inflight);
				/* the previous post's signaled WRs were cleared */
				for (j = 0; j < RDX_MAX_BURST; j++) {
					CU_ASSERT_EQUAL(t->wrs[j].flags,
							(j < n ? want[j] : 0) | RDX_WR_INLINE);
					signaled += j < n && want[j] != 0;
				}
				CU_ASSERT_EQUAL(b.sig_left, a.sig_left);
				a.posted += n;
				b.posted += n;
				posts++;
			}
			/* some of what is in flight completes */
			fx_complete_some(&a, &b);
		}
	}
	CU_ASSERT(posts > 10000);
	CU_ASSERT(signaled > 1000);
	fx_fini(&fx);
}

/* A stand-in prep: rewrites the remote address of every third op only, so
 * addresses kept from an earlier post would show. */
static void
ut_prep(struct perf_lcore *lc, struct perf_ep *ep, struct rdx_wr *wr, uint64_t seq)
{
	RTE_SET_USED(lc);
	RTE_SET_USED(ep);
	if (seq % 3 == 0)
		wr->remote_addr = 0xdead000000ull + seq;
}

/* The WR the loop built before templates, field by field (flags without
 * RDX_WR_SIGNALED: ref_signal has those). */
static void
ref_wr(const struct stream_ops *so, const struct perf_run *run, const struct perf_ep *ep,
       uint64_t seq, struct rdx_wr *wr, struct rdx_sge *sge)
{
	uint64_t off = (seq & (run->slots - 1)) * run->stride;

	memset(wr, 0, sizeof(*wr));
	sge->addr = ep->buf->iova + off;
	sge->length = so->size;
	sge->lkey = ep->buf->lkey;
	wr->wr_id = seq;
	wr->num_sge = 1;
	wr->opcode = so->opcode;
	wr->remote_addr = ep->raddr + off;
	wr->rkey = ep->rkey;
	wr->flags = so->may_inline && so->size <= ep->inline_max ? RDX_WR_INLINE : 0;
	/* UD: the run rides in the immediate's top bits */
	wr->imm = rte_cpu_to_be_32(so->ud ? perf_ud_stream_imm(seq, run->ud_run) : (uint32_t)seq);
	if (so->ud)
		perf_ud_dest(ep, wr);
	if (so->prep != NULL)
		so->prep(NULL, NULL, wr, seq);
}

/* Posts of random lengths at random slots (-l, -t, slot count and stride
 * vary; RC, UD, a prep that rewrites some addresses): every WR stream_build
 * leaves equals the one built from scratch. */
static void
test_build_wrs(void)
{
	struct stream_fx fx;
	struct stream_tmpl *t;
	struct rdx_ah *ah = (struct rdx_ah *)(uintptr_t)0x1000;
	unsigned int round, posts = 0, moved = 0;

	fx_init(&fx, 3);
	t = fx.t;
	fx.mem.iova = 0x10000000;
	fx.mem.lkey = 0x55;
	for (round = 0; round < 1500; round++) {
		unsigned int kind = (unsigned int)(rng_next() % 4);
		struct stream_ops so = {
			.sig_every = 1 + (uint32_t)(rng_next() % 40),
			.opcode = kind == 2 ? RDX_OP_WRITE_IMM : RDX_OP_WRITE,
			.may_inline = rng_next() % 2 == 0,
			.ud = kind == 1,
			.imm = kind == 1 || kind == 2,
			.prep = kind == 3 ? ut_prep : NULL,
			.size = 8u << (rng_next() % 6),
		};
		struct perf_run run = {
			.slots = 1u << (rng_next() % 8),
			.window = 1 + (uint32_t)(rng_next() % 160),
			.ud_run = (uint32_t)rng_next(),
		};
		struct perf_ep a = { .buf = &fx.mem, .raddr = 0x7000000000ull, .rkey = 0x77,
				     .inline_max = 64, .ah = ah, .rqpn = 9, .rqkey = 0x1111 };
		struct perf_lcore lc = { .run = &run };
		uint32_t plist = 1 + (uint32_t)(rng_next() % RDX_MAX_BURST);
		uint8_t want[RDX_MAX_BURST];
		unsigned int step;

		so.per_wr = so.imm || so.prep != NULL;
		/* as perf_stream_run sets them */
		so.imm_mask = so.ud ? PERF_UD_OP_MASK : UINT32_MAX;
		so.imm_run = so.ud ? perf_ud_stream_imm(0, run.ud_run) : 0;
		run.stride = so.size + 64 * (uint32_t)(rng_next() % 3);
		/* op numbers go on from run to run: past 2^28 and 2^32 too */
		a.posted = a.completed = rng_next() % 4 == 0 ? rng_next() >> 1 : rng_next() % 1000;
		a.target = a.posted + 1 + rng_next() % 500;
		struct perf_ep b = a;

		stream_tmpl_init(&so, &b, t);
		for (step = 0; step < 300 && a.posted < a.target; step++) {
			uint64_t inflight = a.posted - a.completed, left = a.target - a.posted;
			uint32_t n = min_u32(plist, (uint32_t)(run.window - inflight)), j;

			if (left < n)
				n = (uint32_t)left;
			if (n > 0 && rng_next() % 3 == 0)
				n = 1 + (uint32_t)(rng_next() % n);
			if (n > 0) {
				bool last = n == left || n == run.window - inflight;

				moved += (a.posted & (run.slots - 1)) != t->addr_slot || n > t->addr_n;
				ref_signal(&a, so.sig_every, false, run.window, n, want);
				stream_build(&lc, &so, &b, t, n, last);
				for (j = 0; j < n; j++) {
					struct rdx_wr w;
					struct rdx_sge g;
					const struct rdx_wr *x = &t->wrs[j];

					ref_wr(&so, &run, &a, a.posted + j, &w, &g);
					CU_ASSERT_EQUAL(x->wr_id, w.wr_id);
					CU_ASSERT_EQUAL(x->sge, &t->sges[j]);
					CU_ASSERT_EQUAL(x->sge->addr, g.addr);
					CU_ASSERT_EQUAL(x->sge->length, g.length);
					CU_ASSERT_EQUAL(x->sge->lkey, g.lkey);
					CU_ASSERT_EQUAL(x->num_sge, 1);
					CU_ASSERT_EQUAL(x->opcode, w.opcode);
					CU_ASSERT_EQUAL(x->rkey, w.rkey);
					CU_ASSERT_EQUAL(x->flags, w.flags | want[j]);
					if (so.imm)
						CU_ASSERT_EQUAL(x->imm, w.imm);
					if (so.ud) {
						CU_ASSERT_EQUAL(x->ah, ah);
						CU_ASSERT_EQUAL(x->remote_qpn, w.remote_qpn);
						CU_ASSERT_EQUAL(x->remote_qkey, w.remote_qkey);
					} else {
						CU_ASSERT_EQUAL(x->remote_addr, w.remote_addr);
					}
				}
				CU_ASSERT_EQUAL(b.sig_left, a.sig_left);
				/* as stream_post: k == n */
				a.posted += n;
				b.posted += n;
				posts++;
			}
			fx_complete_some(&a, &b);
		}
	}
	CU_ASSERT(posts > 10000);
	CU_ASSERT(moved > 1000 && moved < posts);
	printf("\n  %u posts, addresses written by %u ", posts, moved);
	fx_fini(&fx);
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
	struct stream_fx fx;
	struct perf_ep ep = { .buf = &fx.mem };
	struct perf_lcore lc = { .run = &run, .hist = &runs };
	struct stream_tmpl *t;
	struct stream_ops so = { .size = 64 };
	uint64_t tsc, now, ops = 0, skipped = 0;
	unsigned int step;

	fx_init(&fx, 2);
	t = fx.t;
	rdx_hist_init(&per_op);
	rdx_hist_init(&runs);
	t->pl_mask = 255;
	t->pl_seq = pl;
	t->pl_tsc = pl + 256;
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
	fx_fini(&fx);
}

/* The UD stream immediate: the run's number mod 16 and the op number's
 * low 28 bits, widened back next to the highest op seen within
 * [-2^27, 2^27) of it, across 2^28 and 2^32 boundaries. */
static void
test_ud_imm(void)
{
	const int64_t half = INT64_C(1) << (PERF_UD_OP_BITS - 1);
	unsigned int i, k;

	rng_state = 11;
	for (i = 0; i < 200000; i++) {
		uint64_t near = i % 4 == 0 ? rng_next() >> 1 :
			(uint64_t)(i % 3 + 1) * (UINT64_C(1) << (i % 2 ? 28 : 32)) - 512 +
			rng_next() % 1024;
		int64_t delta = i % 5 == 0 ? (i % 10 == 0 ? -half : half - 1) :
			(int64_t)(rng_next() % (2 * (uint64_t)half)) - half;
		uint64_t op = near + (uint64_t)delta;
		uint32_t run = (uint32_t)rng_next();
		uint32_t imm = perf_ud_stream_imm(op, run);

		CU_ASSERT_EQUAL(imm & PERF_UD_OP_MASK, (uint32_t)op & PERF_UD_OP_MASK);
		CU_ASSERT(perf_ud_stream_run(imm, run));
		for (k = 1; k < 16; k++)
			CU_ASSERT(!perf_ud_stream_run(imm, run + k));
		CU_ASSERT(perf_ud_stream_run(imm, run + 16));
		CU_ASSERT_EQUAL(perf_ud_stream_op(near, imm), op);
	}
	CU_ASSERT_EQUAL(perf_ud_stream_imm(5, 0), 5u);
	CU_ASSERT_EQUAL(perf_ud_stream_imm(UINT64_C(0x123456789), 3), 0x33456789u);
	CU_ASSERT_EQUAL(perf_ud_stream_op(0, 0), 0u);
	/* the 32-bit immediate of the ping-pongs (perf_ud_seq), the same
	 * widening: either side of 2^32 and of the +-2^31 window */
	CU_ASSERT_EQUAL(perf_ud_seq(UINT64_C(0xfffffff0), rte_cpu_to_be_32(5)), UINT64_C(0x100000005));
	CU_ASSERT_EQUAL(perf_ud_seq(UINT64_C(0x100000005), rte_cpu_to_be_32(0xfffffff0)),
			UINT64_C(0xfffffff0));
	CU_ASSERT_EQUAL(perf_ud_seq(UINT64_C(0x280000000), rte_cpu_to_be_32(0x7fffffff)),
			UINT64_C(0x27fffffff));
	CU_ASSERT_EQUAL(perf_ud_seq(UINT64_C(0x280000000), rte_cpu_to_be_32(0)),
			UINT64_C(0x200000000));
	CU_ASSERT_EQUAL(perf_ud_seq(UINT64_C(0x280000000), rte_cpu_to_be_32(0xffffffff)),
			UINT64_C(0x2ffffffff));
	CU_ASSERT_EQUAL(perf_ud_seq(7, rte_cpu_to_be_32(7)), 7u);
}

/* One datagram on its way to the responder: its op and run. */
struct ut_dgram {
	uint64_t op;
	uint32_t run;
};

/*
 * A stream's datagrams over runs of random lengths (op numbers go on from
 * run to run, from just below 2^32), dropped, repeated, reordered within a
 * run, and some delayed past the end of their run into the next one or the
 * one after: in each run the responder (ud_take) takes each op of the run
 * that arrived once, with its op number, counts the repeats in ud_dup and
 * the datagrams of earlier runs in ud_stale, nothing else; what arrived
 * less these two (perf_ud_counts) is never more than the run sent.
 */
static void
test_ud_runs(void)
{
	enum { RING = 4096, MAXN = 3000, MAXQ = 4 * MAXN };
	static struct ut_dgram q[MAXQ], due[MAXQ], later[2][MAXQ];
	static uint64_t ops[RING];
	static uint8_t got[MAXN];
	unsigned int nl[2] = { 0, 0 }, run, stale_runs = 0;
	uint64_t base = (UINT64_C(1) << 32) - 5000, total_stale = 0;
	struct perf_ep ep;

	rng_state = 12;
	memset(&ep, 0, sizeof(ep));
	memset(ops, 0xff, sizeof(ops));
	ep.ud_ops = ops;
	ep.ring_mask = RING - 1;
	ep.ud_hi = base - 1; /* as if earlier runs had taken the ops below */
	for (run = 0; run < 40; run++) {
		uint64_t n = 1 + rng_next() % MAXN, op, rx = 0, fresh = 0, want = 0;
		uint64_t dup0 = ep.ud_dup, stale0 = ep.ud_stale;
		unsigned int nq = 0, late_in, i, j;

		memset(got, 0, sizeof(got));
		/* the late ones of the earlier runs due in this one */
		late_in = nl[0];
		memcpy(due, later[0], nl[0] * sizeof(due[0]));
		memcpy(later[0], later[1], nl[1] * sizeof(later[1][0]));
		nl[0] = nl[1];
		nl[1] = 0;
		/* this run's datagrams, as the wire treats them */
		for (op = base; op < base + n; op++) {
			unsigned int r = (unsigned int)(rng_next() % 100), copies = 1;

			if (r < 8)
				continue;             /* lost */
			if (r < 16)
				copies = 2;           /* repeated */
			while (copies-- > 0) {
				struct ut_dgram d = { op, run };

				if (rng_next() % 100 < 6) {
					/* late: into the next run, or the one after */
					unsigned int l = rng_next() % 4 == 0;

					later[l][nl[l]++] = d;
				} else {
					q[nq++] = d;
				}
			}
		}
		/* reordered within the run (64 apart at most) */
		for (i = 0; i + 1 < nq; i++) {
			j = i + 1 + (unsigned int)(rng_next() % 64);
			if (j < nq && rng_next() % 8 == 0) {
				struct ut_dgram t = q[i];

				q[i] = q[j];
				q[j] = t;
			}
		}
		/* they come in anywhere */
		for (i = 0; i < late_in; i++) {
			j = (unsigned int)(rng_next() % (nq + 1));
			q[nq] = q[j];
			q[j] = due[i];
			nq++;
		}
		for (i = 0; i < nq; i++) {
			uint64_t o = UINT64_MAX;
			enum ud_kind k = ud_take(&ep, perf_ud_stream_imm(q[i].op, q[i].run), run,
						 &o);

			rx++;
			if (q[i].run != run) {
				CU_ASSERT_EQUAL(k, UD_STALE);
				continue;
			}
			CU_ASSERT_EQUAL(o, q[i].op);
			CU_ASSERT_EQUAL(k, got[q[i].op - base] ? UD_DUP : UD_NEW);
			fresh += k == UD_NEW;
			want += !got[q[i].op - base];
			got[q[i].op - base] = 1;
		}
		CU_ASSERT_EQUAL(ep.ud_stale - stale0, late_in);
		CU_ASSERT_EQUAL(fresh, want);
		CU_ASSERT_EQUAL(rx - (ep.ud_dup - dup0) - (ep.ud_stale - stale0), want);
		CU_ASSERT(want <= n);
		stale_runs += late_in > 0;
		total_stale += late_in;
		base += n;
	}
	CU_ASSERT(stale_runs > 30);
	printf("\n  %" PRIu64 " stale datagrams in %u runs ", total_stale, stale_runs);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "signaled WRs: the per-WR rule", test_signal_rule },
		{ "WRs: as built from scratch", test_build_wrs },
		{ "retire by runs: one record per op", test_retire_runs },
		{ "UD stream immediate: run and op number", test_ud_imm },
		{ "UD stream responder: this run's datagrams only", test_ud_runs },
		{ NULL, NULL },
	};

	return rdx_ut_run("stream", cases, NULL, NULL);
}
