/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the per-QP counters and the registry of live QPs
 * (lib/dev/rdx_dev_qp.c: rdx_qp_xstats_get/_reset, rdx_qp_state_get,
 * rdx_qp_foreach) on the software device, through the real mlx5 datapath
 * and its qp_xstats_get op (drivers/mlx5/mlx5_qp_xstats.c): names and the
 * n/NULL contract, exact counts after known bursts (posts, receives,
 * doorbells per burst, completions with selective signaling), an error
 * completion and the flushes after it (RC), a length error that leaves a
 * UD QP usable, the state, reset, and the walk (also while QPs and devices
 * come and go under it).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include <infiniband/verbs.h>

#include "rdx_dev_ut_fixture.h"

#define MAX_XS 64

/* n WRITEs of 64 bytes from qp[0] into qp[1]'s memory (rkey: p's unless bad). */
static uint16_t
post_writes(struct ut_pair *p, unsigned int n, uint64_t id0, uint32_t bad_at)
{
	struct rdx_wr w[32];
	unsigned int i;

	CU_ASSERT_FATAL(n <= RTE_DIM(w));
	for (i = 0; i < n; i++)
		w[i] = (struct rdx_wr){ .wr_id = id0 + i, .sge = &p->sge[0], .num_sge = 1,
					.remote_addr = p->m[1]->iova,
					.rkey = i == bad_at ? p->m[1]->rkey ^ 0x5a5a00u : p->m[1]->rkey,
					.opcode = RDX_OP_WRITE };
	return rdx_qp_post_burst(p->qp[0], w, (uint16_t)n);
}

static uint16_t
post_recvs(struct ut_pair *p, int q, unsigned int n)
{
	struct rdx_recv_wr r[32];
	unsigned int i;

	for (i = 0; i < n; i++)
		r[i] = (struct rdx_recv_wr){ .wr_id = 100 + i, .sge = &p->sge[q], .num_sge = 1 };
	return rdx_qp_post_recv_burst(p->qp[q], r, (uint16_t)n);
}

/* Poll cq until the completions retire want WRs; returns the completions. */
static int
poll_retired(struct rdx_cq *cq, unsigned int want, struct rdx_wc *wc, int max)
{
	unsigned int retired = 0;
	int got = 0;

	while (retired < want && got < max) {
		int k = poll_n(cq, wc + got, 1);

		if (k != 1)
			break;
		retired += wc[got].retired;
		got++;
	}
	CU_ASSERT_EQUAL(retired, want);
	return got;
}

/* Counter name of qp, or UINT64_MAX when absent (a test failure). */
static uint64_t
qv(struct rdx_qp *qp, const char *name)
{
	struct rdx_dev_xstat xs[MAX_XS];
	int n = rdx_qp_xstats_get(qp, xs, MAX_XS);

	CU_ASSERT(n > 0 && n <= MAX_XS);
	if (xs_val(xs, n, name) == UINT64_MAX)
		printf("  no counter %s\n", name);
	return xs_val(xs, n, name);
}

static void
test_names_and_contract(void)
{
	struct rdx_dev_xstat xs[MAX_XS], part[4];
	struct ut_pair p;
	int n, i, j;

	ut_pair_make(&p, NULL, 1, UT_PAIR_MEM);
	n = rdx_qp_xstats_get(p.qp[0], NULL, 0);
	CU_ASSERT_FATAL(n >= RDX_QP_XSTATS_COMMON && n <= MAX_XS);
	/* counting (xs NULL, or n 0) and filling agree */
	CU_ASSERT_EQUAL(rdx_qp_xstats_get(p.qp[0], xs, 0), n);
	CU_ASSERT_EQUAL(rdx_qp_xstats_get(p.qp[0], xs, MAX_XS), n);
	for (i = 0; i < n; i++) {
		size_t len = strnlen(xs[i].name, sizeof(xs[i].name));

		CU_ASSERT(len > 0 && len < sizeof(xs[i].name));
		for (j = 0; j < (int)len; j++)
			CU_ASSERT((xs[i].name[j] >= 'a' && xs[i].name[j] <= 'z') ||
				  (xs[i].name[j] >= '0' && xs[i].name[j] <= '9') ||
				  xs[i].name[j] == '_');
		for (j = 0; j < i; j++)
			CU_ASSERT(strcmp(xs[i].name, xs[j].name) != 0);
		/* a fresh QP has done nothing */
		CU_ASSERT_EQUAL(xs[i].value, 0);
	}
	/* the common ones first, in their order */
	for (i = 0; i < RDX_QP_XSTATS_COMMON; i++)
		CU_ASSERT_STRING_EQUAL(xs[i].name, rdx_qp_xstat_name((enum rdx_qp_xstat_id)i));
	CU_ASSERT_STRING_EQUAL(rdx_qp_xstat_name(RDX_QP_XSTAT_SEND_POSTED), "send_wrs_posted");
	CU_ASSERT_STRING_EQUAL(rdx_qp_xstat_name(RDX_QP_XSTAT_RECV_FLUSHED), "recv_wrs_flushed");
	CU_ASSERT_PTR_NULL(rdx_qp_xstat_name(RDX_QP_XSTATS_COMMON));
	/* the mlx5 driver's own follow */
	CU_ASSERT_STRING_EQUAL(xs[RDX_QP_XSTATS_COMMON].name, "send_bf_copies");
	/* n below the count: returns the count, fills only n */
	memset(part, 0xab, sizeof(part));
	CU_ASSERT_EQUAL(rdx_qp_xstats_get(p.qp[0], part, 3), n);
	for (i = 0; i < 3; i++)
		CU_ASSERT_STRING_EQUAL(part[i].name, xs[i].name);
	CU_ASSERT_EQUAL((unsigned char)part[3].name[0], 0xab);
	CU_ASSERT_EQUAL(part[3].value, 0xababababababababULL);
	/* bad arguments */
	CU_ASSERT_EQUAL(rdx_qp_xstats_get(NULL, xs, MAX_XS), -EINVAL);
	CU_ASSERT_EQUAL(rdx_qp_xstats_get(NULL, NULL, 0), -EINVAL);
	CU_ASSERT_EQUAL(rdx_qp_xstats_get(p.qp[0], NULL, 5), -EINVAL);
	CU_ASSERT_EQUAL(rdx_qp_xstats_reset(NULL), -EINVAL);
	CU_ASSERT_EQUAL(rdx_qp_state_get(NULL), -EINVAL);
	CU_ASSERT_STRING_EQUAL(rdx_qp_state_name(RDX_QP_STATE_ERR), "error");
	CU_ASSERT_STRING_EQUAL(rdx_qp_state_name(-1), "?");
	CU_ASSERT_STRING_EQUAL(rdx_qp_type_name(RDX_QP_UD), "UD");
	CU_ASSERT_STRING_EQUAL(rdx_qp_type_name(9), "?");
	ut_pair_free(&p);
}

static void
test_counts_after_bursts(void)
{
	struct rdx_wc wc[64];
	struct rdx_wr s[3];
	struct ut_pair p;
	unsigned int i;
	int got;

	/* a completion every 4 WRs: 8 WRITEs give 2 completions retiring 8 */
	ut_pair_make(&p, NULL, 4, UT_PAIR_MEM | UT_PAIR_CONNECT);
	CU_ASSERT_EQUAL(rdx_qp_state_get(p.qp[0]), RDX_QP_STATE_RTS);
	CU_ASSERT_EQUAL(post_writes(&p, 8, 0, UINT32_MAX), 8);
	CU_ASSERT_EQUAL(qv(p.qp[0], "send_wrs_posted"), 8);
	CU_ASSERT_EQUAL(qv(p.qp[0], "send_doorbells"), 1);
	got = poll_retired(p.cq[0], 8, wc, 64);
	CU_ASSERT_EQUAL(got, 2);
	CU_ASSERT_EQUAL(qv(p.qp[0], "send_wrs_completed"), 8);
	CU_ASSERT_EQUAL(qv(p.qp[0], "send_wrs_ok"), 8);
	/* two more bursts (3 WRs, then 1): one doorbell each; the burst of
	 * one small inline WQE goes by BlueFlame copy on this device */
	CU_ASSERT_EQUAL(post_writes(&p, 3, 10, UINT32_MAX), 3);
	{
		struct rdx_wr w = { .wr_id = 20, .sge = &p.sge[0], .num_sge = 1,
				    .remote_addr = p.m[1]->iova, .rkey = p.m[1]->rkey,
				    .opcode = RDX_OP_WRITE, .flags = RDX_WR_INLINE };
		uint64_t bf0 = qv(p.qp[0], "send_bf_copies");
		struct rdx_sge small = p.sge[0];

		small.length = 8;
		w.sge = &small;
		CU_ASSERT_EQUAL(rdx_qp_post_burst(p.qp[0], &w, 1), 1);
		CU_ASSERT_EQUAL(qv(p.qp[0], "send_bf_copies"), bf0 + 1);
	}
	CU_ASSERT_EQUAL(qv(p.qp[0], "send_wrs_posted"), 12);
	CU_ASSERT_EQUAL(qv(p.qp[0], "send_doorbells"), 3);
	/* 3 + 1 WRs, none at the 4th of the interval: still outstanding
	 * until a signaled one (the 12th, 4 * 3) retires them */
	poll_retired(p.cq[0], 4, wc, 64);
	CU_ASSERT_EQUAL(qv(p.qp[0], "send_wrs_completed"), 12);
	CU_ASSERT_EQUAL(qv(p.qp[0], "send_wrs_error"), 0);
	/* receives: 5 in one burst and 2 in another on qp[1]; 3 SENDs fill 3 */
	CU_ASSERT_EQUAL(post_recvs(&p, 1, 5), 5);
	CU_ASSERT_EQUAL(post_recvs(&p, 1, 2), 2);
	CU_ASSERT_EQUAL(qv(p.qp[1], "recv_wrs_posted"), 7);
	CU_ASSERT_EQUAL(qv(p.qp[1], "recv_doorbells"), 2);
	for (i = 0; i < 3; i++)
		s[i] = (struct rdx_wr){ .wr_id = 30 + i, .sge = &p.sge[0], .num_sge = 1,
					.opcode = RDX_OP_SEND, .flags = RDX_WR_SIGNALED };
	CU_ASSERT_EQUAL(rdx_qp_post_burst(p.qp[0], s, 3), 3);
	CU_ASSERT_EQUAL(poll_n(p.cq[1], wc, 3), 3);
	for (i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(wc[i].opcode, RDX_WC_RECV);
	poll_retired(p.cq[0], 3, wc, 64);
	CU_ASSERT_EQUAL(qv(p.qp[1], "recv_wrs_completed"), 3);
	CU_ASSERT_EQUAL(qv(p.qp[1], "recv_wrs_ok"), 3);
	CU_ASSERT_EQUAL(qv(p.qp[0], "send_wrs_posted"), 15);
	CU_ASSERT_EQUAL(qv(p.qp[0], "send_doorbells"), 4);
	CU_ASSERT_EQUAL(qv(p.qp[0], "send_wrs_completed"), 15);
	/* the sides are separate: qp[1] posted no sends, qp[0] no receives */
	CU_ASSERT_EQUAL(qv(p.qp[1], "send_wrs_posted"), 0);
	CU_ASSERT_EQUAL(qv(p.qp[0], "recv_wrs_posted"), 0);
	CU_ASSERT_EQUAL(rdx_qp_state_get(p.qp[0]), RDX_QP_STATE_RTS);
	ut_pair_free(&p);
}

static void
test_error_and_flush(void)
{
	struct rdx_wc wc[64];
	struct ut_pair p;
	int got, i;

	ut_pair_make(&p, NULL, 1, UT_PAIR_MEM | UT_PAIR_CONNECT);
	/* receives on the requester, which the error will flush */
	CU_ASSERT_EQUAL(post_recvs(&p, 0, 3), 3);
	/* WRITE ok, WRITE with a bad rkey (remote access error), two more */
	CU_ASSERT_EQUAL(post_writes(&p, 4, 0, 1), 4);
	got = poll_retired(p.cq[0], 7, wc, 64);
	CU_ASSERT_EQUAL(got, 7);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc[1].status, IBV_WC_REM_ACCESS_ERR);
	for (i = 2; i < got; i++)
		CU_ASSERT_EQUAL(wc[i].status, IBV_WC_WR_FLUSH_ERR);
	CU_ASSERT_EQUAL(qv(p.qp[0], "send_wrs_posted"), 4);
	CU_ASSERT_EQUAL(qv(p.qp[0], "send_wrs_completed"), 4);
	CU_ASSERT_EQUAL(qv(p.qp[0], "send_wrs_ok"), 1);
	CU_ASSERT_EQUAL(qv(p.qp[0], "send_wrs_error"), 1);
	CU_ASSERT_EQUAL(qv(p.qp[0], "send_wrs_flushed"), 2);
	CU_ASSERT_EQUAL(qv(p.qp[0], "recv_wrs_completed"), 3);
	CU_ASSERT_EQUAL(qv(p.qp[0], "recv_wrs_flushed"), 3);
	CU_ASSERT_EQUAL(qv(p.qp[0], "recv_wrs_ok"), 0);
	CU_ASSERT_EQUAL(qv(p.qp[0], "recv_wrs_error"), 0);
	CU_ASSERT_EQUAL(rdx_qp_state_get(p.qp[0]), RDX_QP_STATE_ERR);
	/* posted after the error: flushed too */
	CU_ASSERT_EQUAL(post_writes(&p, 2, 50, UINT32_MAX), 2);
	got = poll_retired(p.cq[0], 2, wc, 64);
	CU_ASSERT_EQUAL(qv(p.qp[0], "send_wrs_flushed"), 4);
	CU_ASSERT_EQUAL(qv(p.qp[0], "send_wrs_completed"), 6);
	ut_pair_free(&p);
}

static void
test_reset(void)
{
	struct rdx_dev_xstat dx[256];
	struct rdx_wc wc[64];
	struct ut_pair p;
	uint64_t dev_wqes;
	int nd;

	ut_pair_make(&p, NULL, 2, UT_PAIR_MEM | UT_PAIR_CONNECT);
	CU_ASSERT_EQUAL(post_writes(&p, 6, 0, UINT32_MAX), 6);
	poll_retired(p.cq[0], 6, wc, 64);
	CU_ASSERT_EQUAL(qv(p.qp[0], "send_wrs_posted"), 6);
	CU_ASSERT_EQUAL(rdx_qp_xstats_reset(p.qp[0]), 0);
	CU_ASSERT_EQUAL(qv(p.qp[0], "send_wrs_posted"), 0);
	CU_ASSERT_EQUAL(qv(p.qp[0], "send_doorbells"), 0);
	CU_ASSERT_EQUAL(qv(p.qp[0], "send_wrs_completed"), 0);
	/* counting starts again from there */
	CU_ASSERT_EQUAL(post_writes(&p, 4, 10, UINT32_MAX), 4);
	poll_retired(p.cq[0], 4, wc, 64);
	CU_ASSERT_EQUAL(qv(p.qp[0], "send_wrs_posted"), 4);
	CU_ASSERT_EQUAL(qv(p.qp[0], "send_doorbells"), 1);
	CU_ASSERT_EQUAL(qv(p.qp[0], "send_wrs_completed"), 4);
	CU_ASSERT_EQUAL(qv(p.qp[0], "send_wrs_ok"), 4);
	/* a second reset, and the device's sums never reset */
	CU_ASSERT_EQUAL(rdx_qp_xstats_reset(p.qp[0]), 0);
	CU_ASSERT_EQUAL(qv(p.qp[0], "send_wrs_posted"), 0);
	nd = rdx_dev_xstats_get(p.d, dx, RTE_DIM(dx));
	dev_wqes = xs_val(dx, nd, "dp_qp_wqes");
	CU_ASSERT_EQUAL(dev_wqes, 10);
	/* the other QP was not touched */
	CU_ASSERT_EQUAL(qv(p.qp[1], "send_wrs_posted"), 0);
	ut_pair_free(&p);
}

/* UD: a SEND above the MTU completes with a length error; the QP stays
 * usable (rts), and the next SEND arrives. */
static void
test_ud_len_error(void)
{
	struct rdx_dev *d = rdx_dev_open("sw", NULL);
	struct rdx_cq_conf cc = { .depth = 64 };
	struct rdx_qp_conf qc = { .sq_depth = 16, .rq_depth = 16, .max_send_sge = 1,
				  .max_recv_sge = 1, .sig_interval = 1, .type = RDX_QP_UD,
				  .qkey = 0x77 };
	struct rdx_qp_info info;
	struct rdx_ah_attr aa;
	struct rdx_cq *cq;
	struct rdx_qp *u[2];
	struct rdx_ah *ah;
	struct rdx_mem *m;
	struct rdx_sge big, small, rs;
	struct rdx_recv_wr r;
	struct rdx_wr w;
	struct rdx_wc wc[4];
	uint32_t mtu;
	int i;

	CU_ASSERT_FATAL(d != NULL);
	mtu = rdx_dev_attr_get(d)->max_ud_msg;
	CU_ASSERT_FATAL(mtu > 0);
	cq = rdx_cq_create(d, &cc);
	CU_ASSERT_FATAL(cq != NULL);
	qc.send_cq = qc.recv_cq = cq;
	for (i = 0; i < 2; i++) {
		u[i] = rdx_qp_create(d, &qc);
		CU_ASSERT_FATAL(u[i] != NULL);
		CU_ASSERT_FATAL(rdx_qp_connect(u[i], NULL, NULL) == 0);
	}
	m = rdx_dev_mem_alloc(d, 4 * (size_t)mtu, RDX_MEM_HOST, RDX_ACCESS_ALL);
	CU_ASSERT_FATAL(m != NULL);
	CU_ASSERT_FATAL(rdx_qp_info_get(u[1], &info) == 0);
	CU_ASSERT_FATAL(rdx_ah_attr_from_info(d, &info, &aa) == 0);
	ah = rdx_ah_create(d, &aa);
	CU_ASSERT_FATAL(ah != NULL);
	big = (struct rdx_sge){ .addr = m->iova, .length = mtu + 1, .lkey = m->lkey };
	small = (struct rdx_sge){ .addr = m->iova, .length = 16, .lkey = m->lkey };
	rs = (struct rdx_sge){ .addr = m->iova + 2 * mtu, .length = mtu + RDX_UD_GRH_BYTES,
			       .lkey = m->lkey };
	r = (struct rdx_recv_wr){ .wr_id = 9, .sge = &rs, .num_sge = 1 };
	CU_ASSERT_EQUAL(rdx_qp_post_recv_burst(u[1], &r, 1), 1);
	w = (struct rdx_wr){ .wr_id = 1, .sge = &big, .num_sge = 1, .ah = ah,
			     .remote_qpn = info.qp_num, .remote_qkey = 0x77,
			     .opcode = RDX_OP_SEND, .flags = RDX_WR_SIGNALED };
	CU_ASSERT_EQUAL(rdx_qp_post_burst(u[0], &w, 1), 1);
	CU_ASSERT_EQUAL(poll_n(cq, wc, 1), 1);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_LOC_LEN_ERR);
	CU_ASSERT_EQUAL(qv(u[0], "send_wrs_error"), 1);
	CU_ASSERT_EQUAL(qv(u[0], "send_wrs_completed"), 1);
	CU_ASSERT_EQUAL(qv(u[0], "send_wrs_ok"), 0);
	CU_ASSERT_EQUAL(rdx_qp_state_get(u[0]), RDX_QP_STATE_RTS);
	w.wr_id = 2;
	w.sge = &small;
	CU_ASSERT_EQUAL(rdx_qp_post_burst(u[0], &w, 1), 1);
	CU_ASSERT_EQUAL(poll_n(cq, wc, 2), 2);
	CU_ASSERT_EQUAL(qv(u[0], "send_wrs_ok"), 1);
	CU_ASSERT_EQUAL(qv(u[1], "recv_wrs_ok"), 1);
	CU_ASSERT_EQUAL(qv(u[1], "recv_wrs_posted"), 1);
	CU_ASSERT(rdx_ah_destroy(ah) == 0);
	CU_ASSERT(rdx_dev_mem_free(m) == 0);
	for (i = 0; i < 2; i++)
		CU_ASSERT(rdx_qp_destroy(u[i]) == 0);
	CU_ASSERT(rdx_cq_destroy(cq) == 0);
	CU_ASSERT(rdx_dev_close(d) == 0);
}

struct walk {
	struct rdx_qp *qps[8];
	unsigned int n;
	int stop_after;
};

static int
walk_cb(struct rdx_qp *qp, void *arg)
{
	struct walk *w = arg;
	struct rdx_dev_xstat xs[MAX_XS];

	/* the lock is recursive: counters and state from inside the walk */
	CU_ASSERT(rdx_qp_xstats_get(qp, xs, MAX_XS) >= RDX_QP_XSTATS_COMMON);
	CU_ASSERT(rdx_qp_state_get(qp) >= 0);
	if (w->n < RTE_DIM(w->qps))
		w->qps[w->n++] = qp;
	return w->stop_after != 0 && (int)w->n == w->stop_after ? 5 : 0;
}

static void
test_registry(void)
{
	struct ut_pair a, b;
	struct walk w = { .n = 0 };

	CU_ASSERT_EQUAL(rdx_qp_count(NULL), 0);
	CU_ASSERT_EQUAL(rdx_qp_foreach(NULL, NULL, NULL), -EINVAL);
	ut_pair_make(&a, NULL, 1, UT_PAIR_MEM);
	ut_pair_make(&b, NULL, 1, UT_PAIR_MEM | UT_PAIR_CONNECT);
	CU_ASSERT_EQUAL(rdx_qp_count(NULL), 4);
	CU_ASSERT_EQUAL(rdx_qp_count(a.d), 2);
	/* creation order, one device or all */
	CU_ASSERT_EQUAL(rdx_qp_foreach(b.d, walk_cb, &w), 0);
	CU_ASSERT_EQUAL(w.n, 2);
	CU_ASSERT(w.qps[0] == b.qp[0] && w.qps[1] == b.qp[1]);
	w.n = 0;
	CU_ASSERT_EQUAL(rdx_qp_foreach(NULL, walk_cb, &w), 0);
	CU_ASSERT_EQUAL(w.n, 4);
	CU_ASSERT(w.qps[0] == a.qp[0] && w.qps[3] == b.qp[1]);
	/* fn's first non-zero return ends the walk */
	w.n = 0;
	w.stop_after = 1;
	CU_ASSERT_EQUAL(rdx_qp_foreach(NULL, walk_cb, &w), 5);
	CU_ASSERT_EQUAL(w.n, 1);
	/* states: not connected, connected */
	CU_ASSERT_EQUAL(rdx_qp_state_get(a.qp[0]), RDX_QP_STATE_RESET);
	CU_ASSERT_EQUAL(rdx_qp_state_get(b.qp[0]), RDX_QP_STATE_RTS);
	/* destroy unlists */
	CU_ASSERT_EQUAL(rdx_qp_destroy(a.qp[1]), 0);
	CU_ASSERT_EQUAL(rdx_qp_count(a.d), 1);
	CU_ASSERT_EQUAL(rdx_qp_state_get(a.qp[1]), -ENOENT);
	a.qp[1] = NULL;
	ut_pair_free(&a);
	CU_ASSERT_EQUAL(rdx_qp_count(NULL), 2);
	ut_pair_free(&b);
	CU_ASSERT_EQUAL(rdx_qp_count(NULL), 0);
}

/*
 * The registry under concurrent use, as telemetry uses it: a reader walks
 * the devices and within each its QPs (device lock, then the QP lock),
 * reading counters and state, while this thread creates, connects and
 * destroys QPs and opens and closes devices. A bounded number of rounds,
 * not a timed test: it must end, without a sanitizer report.
 */
struct reader {
	int stop;               /* atomic */
	unsigned long qps_seen;
	int bad;
};

static int
reader_qp(struct rdx_qp *qp, void *arg)
{
	struct reader *r = arg;
	struct rdx_dev_xstat xs[MAX_XS];
	int n = rdx_qp_xstats_get(qp, xs, MAX_XS);

	if (n < RDX_QP_XSTATS_COMMON || rdx_qp_state_get(qp) < 0 ||
	    xs[RDX_QP_XSTAT_SEND_COMPLETED].value > xs[RDX_QP_XSTAT_SEND_POSTED].value)
		r->bad++;
	r->qps_seen++;
	return 0;
}

static int
reader_dev(struct rdx_dev *d, void *arg)
{
	return rdx_qp_foreach(d, reader_qp, arg);
}

static void *
reader_main(void *arg)
{
	struct reader *r = arg;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE))
		rdx_dev_foreach(reader_dev, r);
	return NULL;
}

static void
test_concurrent_walk(void)
{
	struct reader r = { .stop = 0 };
	struct rdx_wc wc[64];
	pthread_t th;
	int round;

	CU_ASSERT_FATAL(pthread_create(&th, NULL, reader_main, &r) == 0);
	for (round = 0; round < 20; round++) {
		struct ut_pair p;

		ut_pair_make(&p, NULL, 1, UT_PAIR_MEM | UT_PAIR_CONNECT);
		CU_ASSERT_EQUAL(post_writes(&p, 4, 0, UINT32_MAX), 4);
		poll_retired(p.cq[0], 4, wc, 64);
		ut_pair_free(&p);
	}
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
	CU_ASSERT(pthread_join(th, NULL) == 0);
	printf("  (reader saw %lu QPs)\n", r.qps_seen);
	CU_ASSERT_EQUAL(r.bad, 0);
	CU_ASSERT_EQUAL(rdx_qp_count(NULL), 0);
}

int
main(int argc, char **argv)
{
	static const struct rdx_ut_case cases[] = {
		{ "names_and_contract", test_names_and_contract },
		{ "counts_after_bursts", test_counts_after_bursts },
		{ "error_and_flush", test_error_and_flush },
		{ "reset", test_reset },
		{ "ud_len_error", test_ud_len_error },
		{ "registry", test_registry },
		{ "concurrent_walk", test_concurrent_walk },
		{ NULL, NULL },
	};
	(void)argc;
	(void)argv;
	return rdx_ut_run("rdx_dev_qp", cases, NULL, NULL);
}
