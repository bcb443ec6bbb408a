/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The inline-progress poll of sw_dev_qp.c (sw_cq_poll_inline) and its idle
 * skip: a poll right after this lcore's last engine call left every live
 * QP with nothing to do, with no send posted from this lcore since, skips
 * the engine once. What no post of this lcore announces must still show
 * within two polls: a doorbell rung around rdx_qp_post_burst, a QP moved
 * to ERR by a store into its shared state (as a peer process can), a post
 * of another thread (another lcore slot, or no lcore at all). Each case
 * first brings the lcore to the quiet state the skip needs (checked, so
 * the case cannot pass without exercising the skip), then counts polls.
 * The test thread plays EAL lcore 0 by setting its lcore id (no EAL).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include <infiniband/verbs.h>

#include "rdx_ut.h"
#include "rdx_dev.h"
#include "rdx_mlx5.h"
#include "rdx_sw.h"
#include "sw_dev_priv.h"
#include "sw_ut_dev.h"
#include "sw_ut_poll.h"

#define ME 0u           /* the test thread's lcore */
#define BOUND 2         /* polls within which an unannounced change shows */

static struct rdx_dev *dev;

struct pair {
	struct rdx_cq *cq[2];
	struct rdx_qp *qp[2];
	struct rdx_mem *m[2];
};

static const struct rdx_qp_conf qconf = {
	.sq_depth = 64, .rq_depth = 64, .max_send_sge = 1, .max_recv_sge = 1,
	.max_inline = 64, .sig_interval = 64,
};

static struct sw_lc *
my_lc(void)
{
	return &sw_dev(dev)->eng.lc[ME];
}

static uint64_t
device_errors(void)
{
	struct rdx_sw_stats st;

	CU_ASSERT_FATAL(rdx_sw_stats_get(dev, &st) == 0);
	return st.device_errors;
}

static struct rdx_wr
write_wr(const struct pair *p, int from, uint64_t id, uint32_t off)
{
	static struct rdx_sge sge[2];
	struct rdx_wr w;

	sge[from] = (struct rdx_sge){ p->m[from]->iova + off, 32, p->m[from]->lkey };
	memset(&w, 0, sizeof(w));
	w.wr_id = id;
	w.opcode = RDX_OP_WRITE;
	w.sge = &sge[from];
	w.num_sge = 1;
	w.remote_addr = p->m[from ^ 1]->iova + off;
	w.rkey = p->m[from ^ 1]->rkey;
	w.flags = RDX_WR_SIGNALED;
	return w;
}

/* A connected pair, one CQ each, both QPs hot on this lcore (each ran a
 * WRITE from it). */
static void
pair_make(struct pair *p)
{
	struct rdx_wc wc[1];
	int i;

	sw_ut_qp_pair(dev, p->cq, p->qp, &qconf, NULL, 256, false);
	for (i = 0; i < 2; i++) {
		p->m[i] = rdx_dev_mem_alloc(dev, 4096, RDX_MEM_HOST, RDX_ACCESS_ALL);
		CU_ASSERT_FATAL(p->m[i] != NULL);
		memset(p->m[i]->addr, 0, 4096);
	}
	for (i = 0; i < 2; i++) {
		struct rdx_wr w = write_wr(p, i, 1, 0);

		CU_ASSERT_FATAL(rdx_qp_post_burst(p->qp[i], &w, 1) == 1);
		CU_ASSERT_FATAL(poll_n(p->cq[i], wc, 1) == 1);
		CU_ASSERT_FATAL(wc[0].status == IBV_WC_SUCCESS);
	}
}

static void
pair_free(struct pair *p)
{
	int i;

	for (i = 0; i < 2; i++) {
		CU_ASSERT(rdx_qp_destroy(p->qp[i]) == 0);
		CU_ASSERT(rdx_cq_destroy(p->cq[i]) == 0);
		rdx_dev_mem_free(p->m[i]);
	}
}

/* Poll cq until this lcore is in the state the idle skip acts on: its last
 * poll ran the engine, found nothing and left every live QP with nothing
 * to do (quiet 1, no post since). */
static bool
settle(struct rdx_cq *cq)
{
	struct rdx_wc wc[4];
	int i;

	for (i = 0; i < 1000; i++) {
		if (rdx_cq_poll_burst(cq, wc, 4) != 0)
			continue;
		if (my_lc()->quiet == 1 && my_lc()->quiet_posts == my_lc()->posts)
			return true;
	}
	return false;
}

/* Polls of cq (at most BOUND) until want completions came: their number,
 * BOUND + 1 if they did not. */
static int
polls_until(struct rdx_cq *cq, struct rdx_wc *wc, int want)
{
	int i, got = 0;

	for (i = 1; i <= BOUND; i++) {
		got += rdx_cq_poll_burst(cq, wc + got, (uint16_t)(want - got));
		if (got == want)
			return i;
	}
	return BOUND + 1;
}

/* (a) A doorbell rung around rdx_qp_post_burst: the datapath's own post
 * (WQE, doorbell record, BlueFlame copy into the register) without the
 * driver's wrapper, which counts this lcore's posts. */
static void
test_ring_around_post(void)
{
	const uint64_t errs = device_errors();
	struct rdx_wc wc[1];
	struct pair p;
	int k;

	pair_make(&p);
	for (k = 0; k < 3; k++) {
		struct rdx_wr w = write_wr(&p, 0, 100 + (uint64_t)k, 64 + 64 * (uint32_t)k);
		uint8_t *src = (uint8_t *)p.m[0]->addr + 64 + 64 * k;

		memset(src, 0xa0 + k, 32);
		CU_ASSERT_FATAL(settle(p.cq[0]));
		CU_ASSERT_EQUAL_FATAL(rdx_mlx5_post_burst(p.qp[0], &w, 1), 1);
		CU_ASSERT(polls_until(p.cq[0], wc, 1) <= BOUND);
		CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc[0].wr_id, 100 + (uint64_t)k);
		CU_ASSERT(memcmp((uint8_t *)p.m[1]->addr + 64 + 64 * k, src, 32) == 0);
	}
	/* a legitimate ring: nothing for the register checks to flag */
	CU_ASSERT_EQUAL(device_errors(), errs);
	pair_free(&p);
}

/* (b) The QP moved to ERR by a store into its state word in shared memory,
 * as a peer process (or the peer's engine) can: the posted receives flush
 * within the bound. */
static void
test_peer_err(void)
{
	struct rdx_recv_wr r[3];
	struct rdx_sge s;
	struct rdx_wc wc[3];
	struct pair p;
	int i;

	pair_make(&p);
	s = (struct rdx_sge){ p.m[1]->iova + 1024, 256, p.m[1]->lkey };
	for (i = 0; i < 3; i++)
		r[i] = (struct rdx_recv_wr){ .wr_id = 200 + (uint64_t)i, .sge = &s, .num_sge = 1 };
	CU_ASSERT_EQUAL_FATAL(rdx_qp_post_recv_burst(p.qp[1], r, 3), 3);
	CU_ASSERT_FATAL(settle(p.cq[1]));
	__atomic_store_n(&((struct sw_qp *)p.qp[1])->lqp->s->state, RDX_SW_QPS_ERR,
			 __ATOMIC_RELEASE);
	CU_ASSERT(polls_until(p.cq[1], wc, 3) <= BOUND);
	for (i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(wc[i].status, IBV_WC_WR_FLUSH_ERR);
		CU_ASSERT_EQUAL(wc[i].wr_id, 200 + (uint64_t)i);
	}
	pair_free(&p);
}

struct poster {
	struct pair *p;
	unsigned int lcore;     /* its lcore id (LCORE_ID_ANY: not an lcore) */
	uint64_t id;
	int posted;
};

static void *
poster_run(void *arg)
{
	struct poster *a = arg;
	struct rdx_wr w = write_wr(a->p, 0, a->id, 512);

	RTE_PER_LCORE(_lcore_id) = a->lcore;
	a->posted = rdx_qp_post_burst(a->p->qp[0], &w, 1);
	return NULL;
}

/* (c) Another thread's post: from lcore 1 (its own slot's count moves,
 * not ours) and from a thread that is no EAL lcore (counts nowhere). The
 * QP has no posting lcore named: any one thread at a time may post. */
static void
test_other_thread_post(void)
{
	static const unsigned int lcores[] = { 1, LCORE_ID_ANY };
	const uint64_t errs = device_errors();
	struct rdx_wc wc[1];
	struct pair p;
	unsigned int k;

	pair_make(&p);
	for (k = 0; k < RTE_DIM(lcores); k++) {
		struct poster a = { .p = &p, .lcore = lcores[k], .id = 300 + k };
		pthread_t t;

		CU_ASSERT_FATAL(settle(p.cq[0]));
		CU_ASSERT_FATAL(pthread_create(&t, NULL, poster_run, &a) == 0);
		CU_ASSERT_FATAL(pthread_join(t, NULL) == 0);
		CU_ASSERT_EQUAL_FATAL(a.posted, 1);
		CU_ASSERT(polls_until(p.cq[0], wc, 1) <= BOUND);
		CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc[0].wr_id, 300 + k);
	}
	CU_ASSERT_EQUAL(device_errors(), errs);
	pair_free(&p);
}

/* The skip itself: right after a quiet engine call the next idle poll
 * skips, the one after runs the engine (quiet 2 -> 1), and a post from
 * this lcore is never skipped over. */
static void
test_skip_once(void)
{
	struct rdx_wc wc[1];
	struct rdx_wr w;
	struct pair p;
	uint32_t calls;

	pair_make(&p);
	CU_ASSERT_FATAL(settle(p.cq[0]));
	calls = my_lc()->calls;
	CU_ASSERT_EQUAL(rdx_cq_poll_burst(p.cq[0], wc, 1), 0);
	CU_ASSERT_EQUAL(my_lc()->calls, calls);         /* skipped */
	CU_ASSERT_EQUAL(my_lc()->quiet, 2);
	CU_ASSERT_EQUAL(rdx_cq_poll_burst(p.cq[0], wc, 1), 0);
	CU_ASSERT_EQUAL(my_lc()->calls, calls + 1);     /* ran */
	CU_ASSERT_EQUAL(my_lc()->quiet, 1);
	/* quiet again, then a post of ours: the next poll runs the engine */
	w = write_wr(&p, 0, 400, 256);
	CU_ASSERT_EQUAL_FATAL(rdx_qp_post_burst(p.qp[0], &w, 1), 1);
	CU_ASSERT_EQUAL(rdx_cq_poll_burst(p.cq[0], wc, 1), 1);
	CU_ASSERT_EQUAL(wc[0].wr_id, 400);
	pair_free(&p);
}

static int
suite_init(void)
{
	RTE_PER_LCORE(_lcore_id) = ME;
	return sw_ut_dev_open(&dev);
}

static int
suite_fini(void)
{
	return sw_ut_dev_close(dev);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "skip_once", test_skip_once },
		{ "ring_around_post", test_ring_around_post },
		{ "peer_err", test_peer_err },
		{ "other_thread_post", test_other_thread_post },
		{ NULL, NULL },
	};

	return rdx_ut_run("sw_dev_qp", cases, suite_init, suite_fini);
}
