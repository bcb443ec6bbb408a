/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Drive the mlx5 datapath against rings in plain memory, for callgrind:
 * this program plays the device (it writes one CQE per signaled WQE
 * itself, outside the driver's functions) so that
 * `valgrind --tool=callgrind --toggle-collect=rdx_mlx5_post_burst
 *  --toggle-collect=mlx5_poll_cq64
 *  --toggle-collect=mlx5_poll_req_cq64` counts the driver's own post +
 * ring + poll instructions only. bench/callgrind.sh turns the totals into
 * instructions per operation.
 *
 * Modes:
 *   burst  8-byte inline RDMA_WRITE, bursts of 32, one signaled per 32
 *          (sig_interval 32), one poll per burst (the fast path).
 *   bf     one 8-byte inline RDMA_WRITE per post (BlueFlame copy), signaled,
 *          one poll per post asking for one completion (n = 1, as perftest's
 *          ib_write_lat polls: the latency path), through
 *          rdx_cq_poll_req_burst (the lean completion contract)
 *   bffull the same through rdx_cq_poll_burst (the full completion)
 *   bf32   the same, the poll with room for 32 (n = 32: it also reads the
 *          empty slot after the CQE).
 *   bfsend bf with an 8-byte inline SEND (ib_send_lat's requester side; no
 *          receive: the driver's cost only).
 *   send   8-byte inline SEND, bursts of 32 (the SEND fast path).
 *   read   8-byte RDMA_READ into one SGE, bursts of 32 (READ run loop).
 * The matrix rows (doc/perf.md), 32 WRs per iteration each:
 *   w16 w24 w64  16/24/64-byte inline RDMA_WRITE, bursts of 32, one signaled
 *          per 32 (w64: max_inline 64, two WQEBBs per WQE)
 *   s30    30-byte inline SEND (an echo request under rdx-perf's default
 *          -I 64), max_inline 64, bursts of 32
 *   w220   220-byte inline RDMA_WRITE (perftest's default -I for writes),
 *          max_inline 220, four WQEBBs per WQE, bursts of 32
 *   sge    8-byte RDMA_WRITE from one SGE (not inline), bursts of 32
 *   ssge   8-byte SEND from one SGE (not inline), bursts of 32
 *   q8 q16 8-byte inline RDMA_WRITE, bursts of 32, one signaled per 8 / 16
 *          (4 / 2 CQEs per burst)
 *   l1     8-byte inline RDMA_WRITE, 32 posts of one WR (post list 1), one
 *          signaled per 32, one poll per 32 WRs
 *   cas faa  8-byte atomics into one SGE, bursts of 32, one signaled per 32
 *   sr     8-byte inline SEND + RECV pairs on one QP (loopback): 32 receives
 *          posted, then 32 SENDs (one signaled); the device writes the
 *          requester CQE into the send CQ and one responder CQE per SEND into
 *          the receive CQ, as the two ends of a connection on two hosts would
 *          see them. The sender polls its send CQ (sender_poll), the receiver
 *          its receive CQ (receiver_poll): two callers of the same poll
 *          function, so callgrind's call arcs give each end its own figure.
 *          An op is one pair (the receive post and its CQE are counted too).
 *   sr1    the same with one CQ for both (the row before the split: the
 *          requester CQE and the responder CQEs in one ring, one poller).
 *   ud     8-byte inline SEND on a UD QP (ctrl + datagram segment + inline,
 *          two WQEBBs), one address handle, bursts of 32, one signaled per 32
 * A third argument "scalar" posts through the scalar post loop alone
 * (rdx_mlx5_post_burst_scalar, _ud_scalar), "vec" (the default) through
 * the QP's own op: the vector runs, then the scalar loop.
 * The "device" reads each posted WQE's ctrl segment (opcode, DS, CQ_UPDATE)
 * and writes one CQE per WQE that asks for one, as the NIC does.
 */
#include <endian.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdx_dev_driver.h"
#include "rdx_mlx5.h"

#define SQ_BB 256u
#define CQE_CNT 256u
#define BF_HALF 256u
#define BURST 32u
#define RQ_CNT 256u
#define RQ_STRIDE 16u

struct ring {
	uint8_t sq[SQ_BB * 64] __attribute__((aligned(64)));
	uint8_t cq[CQE_CNT * 64] __attribute__((aligned(64)));
	uint8_t bf[2 * BF_HALF] __attribute__((aligned(64)));
	uint8_t rq[RQ_CNT * RQ_STRIDE] __attribute__((aligned(64)));
	__be32 dbrec[2];
	__be32 cq_dbrec[2];
	struct rdx_mlx5_qp qp;
	struct rdx_mlx5_cq cq_obj;
	uint32_t pi;
	/* sr: the receive CQ, its producer counter */
	uint8_t rcq[CQE_CNT * 64] __attribute__((aligned(64)));
	__be32 rcq_dbrec[2];
	struct rdx_mlx5_cq rcq_obj;
	uint32_t rpi;
	uint8_t opcode;         /* mlx5 WQE opcode reported in the CQEs */
};

/* mode.recv: no receives (0), responder CQEs in a CQ of their own (sr) or
 * in the send CQ (sr1) */
#define RECV_OWN_CQ 1
#define RECV_SHARED_CQ 2

struct mode {
	const char *name;
	uint8_t op;             /* enum rdx_op */
	bool inl;
	uint32_t size;          /* bytes */
	uint32_t burst;         /* WRs per post call */
	uint32_t posts;         /* post calls per iteration (then one poll) */
	uint16_t sig;           /* sig_interval */
	uint32_t max_inline;
	bool ud;                /* RDX_QP_UD */
	uint8_t recv;           /* a receive per SEND, responder CQEs: RECV_* */
	uint16_t poll_n;        /* wc slots per poll call */
};

static const struct mode modes[] = {
	{ "burst", RDX_OP_WRITE, true, 8, 32, 1, 32, 28, false, false, BURST },
	{ "bf", RDX_OP_WRITE, true, 8, 1, 1, 1, 28, false, false, 1 },
	{ "bffull", RDX_OP_WRITE, true, 8, 1, 1, 1, 28, false, false, 1 },
	{ "bf32", RDX_OP_WRITE, true, 8, 1, 1, 1, 28, false, false, BURST },
	{ "bfsend", RDX_OP_SEND, true, 8, 1, 1, 1, 28, false, false, 1 },
	{ "send", RDX_OP_SEND, true, 8, 32, 1, 32, 28, false, false, BURST },
	{ "read", RDX_OP_READ, false, 8, 32, 1, 32, 28, false, false, BURST },
	{ "w16", RDX_OP_WRITE, true, 16, 32, 1, 32, 28, false, false, BURST },
	{ "w24", RDX_OP_WRITE, true, 24, 32, 1, 32, 28, false, false, BURST },
	{ "w64", RDX_OP_WRITE, true, 64, 32, 1, 32, 64, false, false, BURST },
	{ "s30", RDX_OP_SEND, true, 30, 32, 1, 32, 64, false, false, BURST },
	{ "w220", RDX_OP_WRITE, true, 220, 32, 1, 32, 220, false, false, BURST },
	{ "sge", RDX_OP_WRITE, false, 8, 32, 1, 32, 28, false, false, BURST },
	{ "ssge", RDX_OP_SEND, false, 8, 32, 1, 32, 28, false, false, BURST },
	{ "q8", RDX_OP_WRITE, true, 8, 32, 1, 8, 28, false, false, BURST },
	{ "q16", RDX_OP_WRITE, true, 8, 32, 1, 16, 28, false, false, BURST },
	{ "l1", RDX_OP_WRITE, true, 8, 1, 32, 32, 28, false, false, BURST },
	{ "cas", RDX_OP_CAS, false, 8, 32, 1, 32, 28, false, false, BURST },
	{ "faa", RDX_OP_FAA, false, 8, 32, 1, 32, 28, false, false, BURST },
	{ "ud", RDX_OP_SEND, true, 8, 32, 1, 32, 28, true, false, BURST },
	{ "sr", RDX_OP_SEND, true, 8, 32, 1, 32, 28, false, RECV_OWN_CQ, BURST },
	{ "sr1", RDX_OP_SEND, true, 8, 32, 1, 32, 28, false, RECV_SHARED_CQ, BURST },
};

/* The UD QP's device (its message limit) and address handle. */
static struct rdx_dev ud_dev = { .attr = { .name = "bench", .max_ud_msg = 4096 } };
static struct rdx_mlx5_ah ud_ah;

/* The "device": one requester CQE for the WQE at WQEBB counter wqe_ctr. */
static void
device_complete(struct ring *r, uint32_t wqe_ctr)
{
	struct mlx5_cqe64 *c = (struct mlx5_cqe64 *)(void *)
		(r->cq + (r->pi & (CQE_CNT - 1)) * 64);
	uint8_t owner = (uint8_t)((r->pi / CQE_CNT) & 1);

	c->sop_drop_qpn = htobe32((uint32_t)r->opcode << 24 | r->qp.base.qp_num);
	c->wqe_counter = htobe16((uint16_t)wqe_ctr);
	c->byte_cnt = 0;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	c->op_own = (uint8_t)(MLX5_CQE_REQ << 4 | owner);
	r->pi++;
}

/* The "device": one responder CQE (an 8-byte SEND arrived in a receive),
 * into the receive CQ (shared: the send CQ). */
static void
device_recv(struct ring *r, bool shared)
{
	uint8_t *const buf = shared ? r->cq : r->rcq;
	uint32_t *const pi = shared ? &r->pi : &r->rpi;
	struct mlx5_cqe64 *c = (struct mlx5_cqe64 *)(void *)(buf + (*pi & (CQE_CNT - 1)) * 64);
	uint8_t owner = (uint8_t)((*pi / CQE_CNT) & 1);

	c->sop_drop_qpn = htobe32(r->qp.base.qp_num);
	c->wqe_counter = 0;
	c->byte_cnt = htobe32(8);
	c->flags_rqpn = htobe32(r->qp.base.qp_num);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	c->op_own = (uint8_t)(MLX5_CQE_RESP_SEND << 4 | owner);
	(*pi)++;
}

/* The "device" executes the WQEs from WQEBB counter from to to: a CQE for
 * each with CQ_UPDATE, with the WQE's own opcode (ctrl byte 3). */
static unsigned int
device_run(struct ring *r, uint32_t from, uint32_t to)
{
	unsigned int cqes = 0;

	while (from != to) {
		const uint8_t *w = r->sq + (from & (SQ_BB - 1)) * 64;
		uint32_t ds = w[7] & 0x3f;

		if (w[11] & MLX5_WQE_CTRL_CQ_UPDATE) {
			r->opcode = w[3];
			device_complete(r, from);
			cqes++;
		}
		from += (ds * 16 + 63) / 64;
	}
	return cqes;
}

static int
ring_init(struct ring *r, uint16_t sig_interval, uint32_t max_inline, bool ud, uint8_t recv)
{
	struct mlx5dv_qp dv;
	struct mlx5dv_cq dvc;
	uint32_t i;
	int ret;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < CQE_CNT; i++) {
		r->cq[i * 64 + 63] = 0xf0;
		r->rcq[i * 64 + 63] = 0xf0;
	}
	memset(&dv, 0, sizeof(dv));
	dv.dbrec = r->dbrec;
	dv.sq.buf = r->sq;
	dv.sq.wqe_cnt = SQ_BB;
	dv.sq.stride = 64;
	dv.bf.reg = r->bf;
	dv.bf.size = BF_HALF;
	if (recv) {
		dv.rq.buf = r->rq;
		dv.rq.wqe_cnt = RQ_CNT;
		dv.rq.stride = RQ_STRIDE;
	}
	r->qp.base.conf.sig_interval = sig_interval;
	r->qp.base.conf.type = ud ? RDX_QP_UD : RDX_QP_RC;
	r->qp.base.dev = &ud_dev;
	/* max_inline 28, one SGE: every WQE fits one WQEBB (rdma-core sizing);
	 * max_inline 64 (w64): two */
	ret = rdx_mlx5_qp_dp_init(&r->qp, &dv, 0x1234, max_inline, 1, recv ? 1 : 0);
	if (ret != 0)
		return ret;
	memset(&dvc, 0, sizeof(dvc));
	dvc.buf = r->cq;
	dvc.dbrec = r->cq_dbrec;
	dvc.cqe_cnt = CQE_CNT;
	dvc.cqe_size = 64;
	ret = rdx_mlx5_cq_dp_init(&r->cq_obj, &dvc, 1, 1);
	if (ret != 0)
		return ret;
	/* as the hardware CQ does (mlx5_hw_qp.c) */
	r->cq_obj.base.poll_req_burst = rdx_mlx5_cq_poll_req_op(&r->cq_obj);
	ret = rdx_mlx5_cq_attach(&r->cq_obj, &r->qp);
	if (ret != 0 || recv != RECV_OWN_CQ)
		return ret;
	dvc.buf = r->rcq;
	dvc.dbrec = r->rcq_dbrec;
	ret = rdx_mlx5_cq_dp_init(&r->rcq_obj, &dvc, 1, 1);
	if (ret != 0)
		return ret;
	return rdx_mlx5_cq_attach(&r->rcq_obj, &r->qp);
}

/*
 * Poll cq until cqes completions came or it is empty; adds the WRs they
 * retire to *retired (a bad status stops the count). Returns the
 * completions. Always inlined into its two callers, which callgrind's call
 * arcs tell apart.
 */
static inline __attribute__((always_inline)) unsigned int
drain(struct rdx_cq *cq, struct rdx_wc *wc, uint16_t poll_n, unsigned int cqes,
      uint32_t *retired, bool req)
{
	unsigned int got = 0;

	while (got < cqes) {
		uint16_t n = req ? rdx_cq_poll_req_burst(cq, wc, poll_n) :
			rdx_cq_poll_burst(cq, wc, poll_n), j;

		if (n == 0)
			break;
		for (j = 0; j < n; j++) {
			if (wc[j].status != 0)
				break;
			*retired += wc[j].retired;
		}
		got += n;
	}
	return got;
}

/* Two functions with the same body that must stay two (gcc would fold them). */
#if defined(__clang__)
#define BENCH_DISTINCT __attribute__((noinline))
#else
#define BENCH_DISTINCT __attribute__((noinline, no_icf))
#endif

/* The sender's polls of its (send) CQ; every mode but sr polls its one CQ here
 * (row bf with the lean poll, rdx_cq_poll_req_burst, when req). */
static BENCH_DISTINCT unsigned int
sender_poll(struct rdx_cq *cq, struct rdx_wc *wc, uint16_t poll_n, unsigned int cqes,
	    uint32_t *retired, bool req)
{
	return drain(cq, wc, poll_n, cqes, retired, req);
}

/* sr: the receiver's polls of its receive CQ. */
static BENCH_DISTINCT unsigned int
receiver_poll(struct rdx_cq *cq, struct rdx_wc *wc, uint16_t poll_n, unsigned int cqes,
	      uint32_t *retired)
{
	return drain(cq, wc, poll_n, cqes, retired, false);
}

int
main(int argc, char **argv)
{
	static struct ring r;
	static uint64_t payload[32] = { 0x0102030405060708ull };
	struct rdx_sge sge = { .addr = (uintptr_t)payload, .length = 8, .lkey = 1 };
	struct rdx_wr wr[BURST];
	struct rdx_recv_wr rwr[BURST];
	static uint64_t rbuf[BURST];
	struct rdx_sge rsge = { .addr = (uintptr_t)rbuf, .length = 8, .lkey = 2 };
	struct rdx_wc wc[BURST];
	unsigned long iters, it, ops = 0;
	const struct mode *m = NULL;
	uint32_t k, p;
	char *end;
	bool req_poll, scalar = false;

	if (argc == 4 && strcmp(argv[3], "scalar") == 0)
		scalar = true;
	else if (argc == 4 && strcmp(argv[3], "vec") != 0)
		argc = 0;
	for (k = 0; (argc == 3 || argc == 4) && k < sizeof(modes) / sizeof(modes[0]); k++)
		if (strcmp(argv[1], modes[k].name) == 0)
			m = &modes[k];
	if (m == NULL) {
		fprintf(stderr, "usage: %s MODE ITERATIONS [vec|scalar] (MODE: burst bf bffull bf32"
			" bfsend send read w16 w24 w64 s30 w220 sge ssge q8 q16 l1 cas faa ud sr"
			" sr1)\n", argv[0]);
		return 2;
	}
	/* rows bf, bfsend: the lean poll of a latency loop (rdx_cq_poll_req_burst) */
	req_poll = strcmp(m->name, "bf") == 0 || strcmp(m->name, "bfsend") == 0;
	errno = 0;
	iters = strtoul(argv[2], &end, 10);
	if (errno != 0 || *end != '\0' || iters == 0 || iters > 100000000ul) {
		fprintf(stderr, "mlx5_fastpath: bad iteration count '%s' (1..100000000)\n",
			argv[2]);
		return 2;
	}
	if (ring_init(&r, m->sig, m->max_inline, m->ud, m->recv) != 0) {
		fprintf(stderr, "mlx5_fastpath: datapath init failed\n");
		return 1;
	}
	/* the scalar post loop alone (the vector runs' reference) */
	if (scalar)
		r.qp.base.post_burst = m->ud ? rdx_mlx5_post_burst_ud_scalar :
			rdx_mlx5_post_burst_scalar;
	sge.length = m->size;
	memset(wr, 0, sizeof(wr));
	for (k = 0; k < BURST; k++) {
		wr[k].opcode = m->op;
		wr[k].flags = m->inl ? RDX_WR_INLINE : 0;
		wr[k].sge = &sge;
		wr[k].num_sge = 1;
		wr[k].remote_addr = 0x10000 + 64 * k;
		wr[k].rkey = 0x42;
		wr[k].wr_id = k;
		wr[k].compare_add = 1;
		wr[k].swap = 2;
		if (m->ud) {
			wr[k].ah = &ud_ah.base;
			wr[k].remote_qpn = 0x4321;
			wr[k].remote_qkey = 0x1ee7;
		}
	}
	for (k = 0; k < BURST; k++) {
		rwr[k].wr_id = 1000 + k;
		rwr[k].sge = &rsge;
		rwr[k].num_sge = 1;
	}
	{
		struct mlx5_wqe_av av = { .fl_mlid = 0x80, .rlid = htobe16(7) };

		rdx_mlx5_ah_init(&ud_ah, &av);
	}
	for (it = 0; it < iters; it++) {
		uint32_t from = r.qp.sq_cur_post, retired = 0;
		unsigned int cqes, rcqes = 0, got;

		if (m->recv && rdx_qp_post_recv_burst(&r.qp.base, rwr, BURST) != BURST) {
			fprintf(stderr, "mlx5_fastpath: receive post fell short at iteration %lu\n",
				it);
			return 1;
		}
		for (p = 0; p < m->posts; p++) {
			if (rdx_qp_post_burst(&r.qp.base, wr, (uint16_t)m->burst) != m->burst) {
				fprintf(stderr, "mlx5_fastpath: post fell short at iteration %lu\n",
					it);
				return 1;
			}
		}
		cqes = device_run(&r, from, r.qp.sq_cur_post);
		for (k = 0; m->recv && k < m->burst * m->posts; k++, rcqes++)
			device_recv(&r, m->recv == RECV_SHARED_CQ);
		if (m->recv == RECV_SHARED_CQ) {
			cqes += rcqes;
			rcqes = 0;
		}
		got = sender_poll(&r.cq_obj.base, wc, m->poll_n, cqes, &retired, req_poll);
		if (m->recv == RECV_OWN_CQ)
			got += receiver_poll(&r.rcq_obj.base, wc, m->poll_n, rcqes, &retired);
		cqes += rcqes;
		if (got != cqes || retired != m->burst * m->posts * (m->recv ? 2u : 1u)) {
			fprintf(stderr, "mlx5_fastpath: bad completions at iteration %lu (%u CQEs of %u,"
				" %u WRs retired)\n", it, got, cqes, retired);
			return 1;
		}
		ops += m->burst * m->posts;
	}
	printf("mode=%s burst=%u ops=%lu doorbells=%lu bf_posts=%lu\n", m->name, m->burst, ops,
	       (unsigned long)rdx_mlx5_qp_doorbells(&r.qp), (unsigned long)r.qp.stats.bf_posts);
	if (m->recv == RECV_OWN_CQ)
		rdx_mlx5_cq_dp_fini(&r.rcq_obj);
	rdx_mlx5_cq_dp_fini(&r.cq_obj);
	rdx_mlx5_qp_dp_fini(&r.qp);
	return 0;
}
