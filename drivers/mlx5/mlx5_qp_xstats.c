/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One QP's counters (the qp_xstats_get op of the hardware backend and of
 * the software device), read from another thread while the datapath runs.
 * Nothing here is on the fast path, and the fast path keeps nothing for
 * it: the counts come from what the datapath keeps anyway,
 *  - posted, doorbells (plain + BlueFlame), BlueFlame copies, full and bad-WR bursts: the
 *    per-burst counters of struct rdx_mlx5_qp_stats (mlx5_qp.c, mlx5_rq.c);
 *  - completed: posted minus outstanding, the distance between the ring's
 *    producer and consumer ordinals (sq_head - sq_tail, rq_head - rq_tail:
 *    32-bit, never more than a ring apart, so the 64-bit posted count
 *    extends them);
 *  - error and flushed: struct rdx_mlx5_qp_errs, bumped on the poll loop's
 *    error path only (rdx_mlx5_qp_count_err).
 * Order of the loads: consumer ordinal, posted count, producer ordinal
 * (acquire, so a weakly ordered CPU keeps it too). The datapath writes the
 * producer ordinal, then adds to the posted count, both once per burst, so
 * a snapshot of a busy QP can be a burst off (rdx_qp_xstats_common caps
 * completed at posted); one of an idle QP is exact.
 */
#include <stdint.h>

#include <rte_common.h>

#include "rdx_dev_driver.h"
#include "rdx_mlx5.h"

#define LOAD_ACQ(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

/* posted - (head - tail), read in the order above; 0 rather than a wrap. */
static uint64_t
completed(const uint32_t *tail, const uint64_t *posted, const uint32_t *head, uint64_t *p)
{
	const uint32_t t = LOAD_ACQ(*tail);
	const uint64_t n = LOAD_ACQ(*posted);
	const uint32_t out = LOAD_ACQ(*head) - t;

	*p = n;
	return n > out ? n - out : 0;
}

int
rdx_mlx5_qp_xstats_get(struct rdx_qp *bqp, struct rdx_dev_xstat *xs, unsigned int n)
{
	struct rdx_mlx5_qp *qp = (struct rdx_mlx5_qp *)bqp;
	struct rdx_qp_counts c;
	unsigned int k;

	c.send_completed = completed(&qp->sq_tail, &qp->stats.wqes, &qp->sq_head,
				     &c.send_posted);
	c.send_doorbells = rdx_mlx5_qp_doorbells(qp);
	c.send_error = LOAD(qp->errs.send_error);
	c.send_flushed = LOAD(qp->errs.send_flushed);
	c.recv_completed = completed(&qp->rq_tail, &qp->stats.recvs, &qp->rq_head,
				     &c.recv_posted);
	c.recv_doorbells = LOAD(qp->stats.recv_doorbells);
	c.recv_error = LOAD(qp->errs.recv_error);
	c.recv_flushed = LOAD(qp->errs.recv_flushed);
	k = rdx_qp_xstats_common(xs, n, &c);
	k = rdx_dev_xstat_put(xs, n, k, "send_bf_copies", LOAD(qp->stats.bf_posts));
	k = rdx_dev_xstat_put(xs, n, k, "send_full_bursts", LOAD(qp->stats.sq_full));
	k = rdx_dev_xstat_put(xs, n, k, "send_bad_wr_bursts", LOAD(qp->stats.bad_wr));
	RTE_BUILD_BUG_ON(RDX_MLX5_QP_XSTATS_OWN != 3);
	return (int)k;
}
