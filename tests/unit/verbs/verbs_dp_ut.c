/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of drivers/verbs/verbs_dp.c (the fast path) that need no
 * device: the mapping of ibv_wc to rdx_wc (send and receive, immediates,
 * errors, unknown QPs), and post/poll bursts through a fake provider (the
 * ibv_post_send/post_recv/poll_cq inlines call through context->ops). The
 * test includes the source to reach its static functions.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "rdx_ut.h"
#include "../../../drivers/verbs/verbs_dp.c"
#include "../../../lib/dev/rdx_dev_qp.c"

#include "verbs_ut_fake.h"

static void
test_wc_map(void)
{
	struct verbs_cq *cq = new_cq();
	struct verbs_qp *qp = &qps[1];
	struct rdx_wr w[3];
	struct rdx_sge sge = {0x1000, 100, 9};
	struct rdx_recv_wr r = {.wr_id = 77, .sge = &sge, .num_sge = 1};
	struct ibv_send_wr swr[3];
	struct ibv_recv_wr rwr[1];
	struct ibv_sge sg[RDX_MAX_BURST];
	struct ibv_wc iw;
	struct rdx_wc wc;
	int k;

	init_qps();
	CU_ASSERT_EQUAL_FATAL(cq_attach(cq, qp), 0);
	/* Three READs, the last signaled by the app; interval 1 signals all,
	 * so use a long interval here. */
	rdx_verbs_sq_init(&qp->sq, sq_ids[1], sq_ops[1], 16, 16, 1, 0, 16, false);
	for (k = 0; k < 3; k++) {
		memset(&w[k], 0, sizeof(w[k]));
		w[k].wr_id = 40 + (uint64_t)k;
		w[k].sge = &sge;
		w[k].num_sge = 1;
		w[k].opcode = RDX_OP_READ;
		w[k].flags = k == 2 ? RDX_WR_SIGNALED : 0;
	}
	CU_ASSERT_EQUAL_FATAL(rdx_verbs_sq_prepare(&qp->sq, w, 3, swr, sg), 3);
	rdx_verbs_sq_commit(&qp->sq, swr, 3, 3);

	memset(&iw, 0, sizeof(iw));
	iw.wr_id = swr[2].wr_id;
	iw.status = IBV_WC_SUCCESS;
	iw.opcode = IBV_WC_RDMA_READ;
	iw.byte_len = 100;
	iw.qp_num = qp->base.qp_num;
	verbs_wc_map(cq, &iw, &wc);
	CU_ASSERT_EQUAL(wc.wr_id, 42);
	CU_ASSERT_EQUAL(wc.opcode, RDX_WC_READ);
	CU_ASSERT_EQUAL(wc.byte_len, 100);
	CU_ASSERT_EQUAL(wc.retired, 3);
	CU_ASSERT_PTR_EQUAL(wc.qp_ctx, qp);
	CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(rdx_verbs_sq_retired_wr_id(&qp->sq, &wc, 0), 40);

	/* Receive with immediate; then an error receive (opcode undefined in
	 * verbs: reported as UNKNOWN, wr_id still right). */
	CU_ASSERT_EQUAL_FATAL(rdx_verbs_rq_prepare(&qp->rq, &r, 1, rwr, sg), 1);
	rdx_verbs_rq_commit(&qp->rq, 1);
	memset(&iw, 0, sizeof(iw));
	iw.wr_id = rwr[0].wr_id;
	iw.opcode = IBV_WC_RECV;
	iw.wc_flags = IBV_WC_WITH_IMM;
	iw.imm_data = htonl(0x55);
	iw.byte_len = 60;
	iw.qp_num = qp->base.qp_num;
	verbs_wc_map(cq, &iw, &wc);
	CU_ASSERT_EQUAL(wc.wr_id, 77);
	CU_ASSERT_EQUAL(wc.opcode, RDX_WC_RECV_IMM);
	CU_ASSERT_EQUAL(wc.imm, htonl(0x55));
	CU_ASSERT_EQUAL(wc.byte_len, 60);
	CU_ASSERT_EQUAL(wc.retired, 1);
	CU_ASSERT_EQUAL(wc.wc_flags, 0);
	/* a UD receive: the sender and the GRH flag */
	iw.src_qp = 0x4321;
	iw.slid = 0x17;
	iw.wc_flags = IBV_WC_WITH_IMM | IBV_WC_GRH;
	verbs_wc_map(cq, &iw, &wc);
	CU_ASSERT_EQUAL(wc.src_qp, 0x4321);
	CU_ASSERT_EQUAL(wc.slid, 0x17);
	CU_ASSERT_EQUAL(wc.wc_flags, RDX_WC_GRH);
	CU_ASSERT_EQUAL(wc.opcode, RDX_WC_RECV_IMM);
	iw.wc_flags = IBV_WC_WITH_IMM;
	iw.opcode = IBV_WC_RECV_RDMA_WITH_IMM;
	verbs_wc_map(cq, &iw, &wc);
	CU_ASSERT_EQUAL(wc.opcode, RDX_WC_RECV_WRITE_IMM);
	iw.status = IBV_WC_WR_FLUSH_ERR;
	iw.vendor_err = 0x42;
	iw.opcode = 0xff;
	verbs_wc_map(cq, &iw, &wc);
	CU_ASSERT_EQUAL(wc.status, IBV_WC_WR_FLUSH_ERR);
	CU_ASSERT_EQUAL(wc.vendor_err, 0x42);
	CU_ASSERT_EQUAL(wc.opcode, RDX_WC_UNKNOWN);
	CU_ASSERT_EQUAL(wc.wr_id, 77);

	/* A send error: the opcode comes from what was posted. */
	w[0].opcode = RDX_OP_CAS;
	w[0].remote_addr = 0x2000;
	w[0].wr_id = 50;
	CU_ASSERT_EQUAL_FATAL(rdx_verbs_sq_prepare(&qp->sq, w, 1, swr, sg), 1);
	rdx_verbs_sq_commit(&qp->sq, swr, 1, 1);
	memset(&iw, 0, sizeof(iw));
	iw.wr_id = swr[0].wr_id;
	iw.status = IBV_WC_REM_ACCESS_ERR;
	iw.qp_num = qp->base.qp_num;
	verbs_wc_map(cq, &iw, &wc);
	CU_ASSERT_EQUAL(wc.wr_id, 50);
	CU_ASSERT_EQUAL(wc.opcode, RDX_WC_CAS);
	CU_ASSERT_EQUAL(wc.status, IBV_WC_REM_ACCESS_ERR);
	CU_ASSERT_STRING_EQUAL(ibv_wc_status_str((enum ibv_wc_status)wc.status),
			       "remote access error");

	/* A completion of a QP the CQ does not know. */
	iw.qp_num = 0x999999;
	verbs_wc_map(cq, &iw, &wc);
	CU_ASSERT_EQUAL(wc.opcode, RDX_WC_UNKNOWN);
	CU_ASSERT_PTR_NULL(wc.qp_ctx);
	cq_detach(cq, qp);
	free_cq(cq);
}

/* A fake provider: the ibv_post_send/post_recv/poll_cq inlines call
 * through context->ops, so the fast path runs without a device. */
static int fake_post_calls;
static int fake_post_wrs;
static int fake_fail_at = -1;
static struct ibv_wc fake_cqe[8];
static int fake_nb_cqe;

static int
fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	int i = 0;

	(void)qp;
	fake_post_calls++;
	for (; wr != NULL; wr = wr->next, i++) {
		if (i == fake_fail_at) {
			*bad = wr;
			return ENOMEM;
		}
		fake_post_wrs++;
	}
	return 0;
}

static int
fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)qp;
	(void)bad;
	fake_post_calls++;
	for (; wr != NULL; wr = wr->next)
		fake_post_wrs++;
	return 0;
}

static int
fake_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	int k = n < fake_nb_cqe ? n : fake_nb_cqe;

	(void)cq;
	memcpy(wc, fake_cqe, (size_t)k * sizeof(*wc));
	memmove(fake_cqe, fake_cqe + k, (size_t)(fake_nb_cqe - k) * sizeof(*wc));
	fake_nb_cqe -= k;
	return k;
}

static void
test_fast_path(void)
{
	static struct ibv_context ctx;
	static struct ibv_qp ibqp;
	static struct ibv_cq ibcq;
	struct verbs_cq *cq = new_cq();
	struct verbs_qp *qp = &qps[2];
	struct rdx_sge sge = {0x1000, 16, 9};
	struct rdx_wr w[6];
	struct rdx_recv_wr r[3];
	struct rdx_wc wc[8];
	uint16_t k;

	init_qps();
	ctx.ops.post_send = fake_post_send;
	ctx.ops.post_recv = fake_post_recv;
	ctx.ops.poll_cq = fake_poll_cq;
	ibqp.context = &ctx;
	ibcq.context = &ctx;
	cq->cq = &ibcq;
	cq->base.poll_burst = rdx_verbs_poll_burst;
	qp->qp = &ibqp;
	qp->swr = calloc(RDX_MAX_BURST, sizeof(*qp->swr));
	qp->ssge = calloc(RDX_MAX_BURST, sizeof(*qp->ssge));
	qp->rwr = calloc(RDX_MAX_BURST, sizeof(*qp->rwr));
	qp->rsge = calloc(RDX_MAX_BURST, sizeof(*qp->rsge));
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp->rsge);
	qp->base.post_burst = rdx_verbs_post_burst;
	qp->base.post_recv_burst = rdx_verbs_post_recv_burst;
	rdx_verbs_sq_init(&qp->sq, sq_ids[2], sq_ops[2], 16, 16, 1, 0, 4, true);
	CU_ASSERT_EQUAL_FATAL(cq_attach(cq, qp), 0);
	for (k = 0; k < 6; k++) {
		memset(&w[k], 0, sizeof(w[k]));
		w[k].wr_id = 300 + k;
		w[k].sge = &sge;
		w[k].num_sge = 1;
		w[k].opcode = RDX_OP_SEND;
	}
	/* One ibv_post_send per burst, all WRs linked. */
	fake_post_calls = fake_post_wrs = 0;
	CU_ASSERT_EQUAL(rdx_qp_post_burst(&qp->base, w, 5), 5);
	CU_ASSERT_EQUAL(fake_post_calls, 1);
	CU_ASSERT_EQUAL(fake_post_wrs, 5);
	CU_ASSERT_EQUAL(qp->sq.head, 5);
	/* The provider refuses the 2nd WR: short count, state follows. */
	fake_fail_at = 1;
	CU_ASSERT_EQUAL(rdx_qp_post_burst(&qp->base, w, 3), 1);
	fake_fail_at = -1;
	CU_ASSERT_EQUAL(qp->sq.head, 6);
	/* WR 3 (interval) and 4 (burst end) were signaled; WR 5 (the refused
	 * burst's first) was not: it had not been the burst's last. */
	CU_ASSERT_FALSE(qp->swr[0].send_flags & IBV_SEND_SIGNALED);
	CU_ASSERT_EQUAL(qp->sq.unsig, 1);
	memset(fake_cqe, 0, sizeof(fake_cqe));
	fake_cqe[0].wr_id = 3;
	fake_cqe[0].qp_num = qp->base.qp_num;
	fake_cqe[0].opcode = IBV_WC_SEND;
	fake_cqe[1] = fake_cqe[0];
	fake_cqe[1].wr_id = 4;
	fake_nb_cqe = 2;
	CU_ASSERT_EQUAL(rdx_cq_poll_burst(&cq->base, wc, 8), 2);
	CU_ASSERT_EQUAL(wc[0].wr_id, 303);
	CU_ASSERT_EQUAL(wc[0].retired, 4);
	CU_ASSERT_EQUAL(wc[1].wr_id, 304);
	CU_ASSERT_EQUAL(wc[1].retired, 1);
	CU_ASSERT_EQUAL(rdx_verbs_sq_retired_wr_id(&qp->sq, &wc[0], 0), 300);
	CU_ASSERT_EQUAL(qp->sq.tail, 5);
	CU_ASSERT_EQUAL(rdx_cq_poll_burst(&cq->base, wc, 8), 0);
	/* Completions stashed by cq_wait come out first, then the CQ's. */
	memset(&cq->stash[0], 0, sizeof(cq->stash[0]));
	for (k = 0; k < 3; k++) {
		r[k].wr_id = 700 + k;
		r[k].sge = &sge;
		r[k].num_sge = 1;
	}
	fake_post_calls = 0;
	CU_ASSERT_EQUAL(rdx_qp_post_recv_burst(&qp->base, r, 3), 3);
	CU_ASSERT_EQUAL(fake_post_calls, 1);
	cq->stash[0].wr_id = RDX_VERBS_RECV_TAG | 0;
	cq->stash[0].qp_num = qp->base.qp_num;
	cq->stash[0].opcode = IBV_WC_RECV;
	cq->stash[0].byte_len = 16;
	cq->stash_n = 1;
	cq->stash_pos = 0;
	fake_cqe[0] = cq->stash[0];
	fake_cqe[0].wr_id = RDX_VERBS_RECV_TAG | 1;
	fake_nb_cqe = 1;
	CU_ASSERT_EQUAL(rdx_cq_poll_burst(&cq->base, wc, 8), 2);
	CU_ASSERT_EQUAL(wc[0].wr_id, 700);
	CU_ASSERT_EQUAL(wc[1].wr_id, 701);
	CU_ASSERT_EQUAL(wc[1].opcode, RDX_WC_RECV);
	CU_ASSERT_EQUAL(cq->stash_pos, cq->stash_n);
	/* One at a time (the latency loops' poll): a READ, an FAA and a
	 * WRITE, one WR each (burst end signals), byte_len per opcode; a
	 * stashed completion still comes out first. */
	w[0].opcode = RDX_OP_READ;
	w[0].wr_id = 310;
	w[1].opcode = RDX_OP_FAA;
	w[1].sge = &sge;
	w[2].opcode = RDX_OP_WRITE;
	sge.length = 8;
	for (k = 0; k < 3; k++)
		CU_ASSERT_EQUAL_FATAL(rdx_qp_post_burst(&qp->base, &w[k], 1), 1);
	for (k = 0; k < 3; k++) {
		memset(&fake_cqe[k], 0, sizeof(fake_cqe[k]));
		fake_cqe[k].wr_id = 6u + k;
		fake_cqe[k].qp_num = qp->base.qp_num;
		fake_cqe[k].byte_len = 8;
	}
	fake_nb_cqe = 3;
	cq->stash[0].wr_id = RDX_VERBS_RECV_TAG | 2;
	cq->stash_n = 1;
	cq->stash_pos = 0;
	CU_ASSERT_EQUAL(rdx_cq_poll_burst(&cq->base, wc, 1), 1);
	CU_ASSERT_EQUAL(wc[0].wr_id, 702);
	CU_ASSERT_EQUAL(rdx_cq_poll_burst(&cq->base, wc, 1), 1);
	CU_ASSERT_EQUAL(wc[0].wr_id, 310);
	CU_ASSERT_EQUAL(wc[0].opcode, RDX_WC_READ);
	CU_ASSERT_EQUAL(wc[0].byte_len, 8);
	/* with the unsignaled WR left from the refused burst (wr_id 300) */
	CU_ASSERT_EQUAL(wc[0].retired, 2);
	CU_ASSERT_EQUAL(rdx_verbs_sq_retired_wr_id(&qp->sq, &wc[0], 0), 300);
	CU_ASSERT_EQUAL(rdx_verbs_sq_retired_wr_id(&qp->sq, &wc[0], 1), 310);
	CU_ASSERT_EQUAL(rdx_cq_poll_burst(&cq->base, wc, 1), 1);
	CU_ASSERT_EQUAL(wc[0].wr_id, 301);
	CU_ASSERT_EQUAL(wc[0].opcode, RDX_WC_FAA);
	CU_ASSERT_EQUAL(wc[0].byte_len, 8);
	CU_ASSERT_EQUAL(wc[0].retired, 1);
	CU_ASSERT_EQUAL(rdx_verbs_sq_retired_wr_id(&qp->sq, &wc[0], 0), 301);
	CU_ASSERT_EQUAL(rdx_cq_poll_burst(&cq->base, wc, 1), 1);
	CU_ASSERT_EQUAL(wc[0].wr_id, 302);
	CU_ASSERT_EQUAL(wc[0].opcode, RDX_WC_WRITE);
	CU_ASSERT_EQUAL(wc[0].byte_len, 0);
	CU_ASSERT_EQUAL(rdx_cq_poll_burst(&cq->base, wc, 1), 0);
	CU_ASSERT_EQUAL(qp->sq.tail, qp->sq.head);
	cq_detach(cq, qp);
	free(qp->swr);
	free(qp->ssge);
	free(qp->rwr);
	free(qp->rsge);
	free_cq(cq);
}

/* Counter name of qp through the driver's op, UINT64_MAX when absent. */
static uint64_t
qv(struct verbs_qp *qp, const char *name)
{
	struct rdx_dev_xstat xs[RDX_QP_XSTATS_COMMON + 2];
	int n = rdx_verbs_qp_xstats_get(&qp->base, xs, RTE_DIM(xs)), i;

	CU_ASSERT_EQUAL(n, RDX_QP_XSTATS_COMMON + 2);
	for (i = 0; i < n && i < (int)RTE_DIM(xs); i++)
		if (strcmp(xs[i].name, name) == 0)
			return xs[i].value;
	return UINT64_MAX;
}

/* The per-QP counters: per burst on post, errors and flushes on poll. */
static void
test_counters(void)
{
	static struct ibv_context ctx;
	static struct ibv_qp ibqp;
	static struct ibv_cq ibcq;
	struct verbs_cq *cq = new_cq();
	struct verbs_qp *qp = &qps[3];
	struct rdx_sge sge = {0x1000, 16, 9};
	struct rdx_wr w[5];
	struct rdx_recv_wr r[3];
	struct rdx_wc wc[8];
	uint16_t k;

	init_qps();
	ctx.ops.post_send = fake_post_send;
	ctx.ops.post_recv = fake_post_recv;
	ctx.ops.poll_cq = fake_poll_cq;
	ibqp.context = &ctx;
	ibcq.context = &ctx;
	cq->cq = &ibcq;
	cq->base.poll_burst = rdx_verbs_poll_burst;
	qp->qp = &ibqp;
	qp->swr = calloc(RDX_MAX_BURST, sizeof(*qp->swr));
	qp->ssge = calloc(RDX_MAX_BURST, sizeof(*qp->ssge));
	qp->rwr = calloc(RDX_MAX_BURST, sizeof(*qp->rwr));
	qp->rsge = calloc(RDX_MAX_BURST, sizeof(*qp->rsge));
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp->rsge);
	qp->base.post_burst = rdx_verbs_post_burst;
	qp->base.post_recv_burst = rdx_verbs_post_recv_burst;
	rdx_verbs_sq_init(&qp->sq, sq_ids[3], sq_ops[3], 16, 16, 1, 0, 4, true);
	CU_ASSERT_EQUAL_FATAL(cq_attach(cq, qp), 0);
	CU_ASSERT_EQUAL(qv(qp, "send_wrs_posted"), 0);
	for (k = 0; k < 5; k++) {
		memset(&w[k], 0, sizeof(w[k]));
		w[k].wr_id = 500 + k;
		w[k].sge = &sge;
		w[k].num_sge = 1;
		w[k].opcode = RDX_OP_SEND;
	}
	/* 5 WRs in one ibv_post_send; then 3 of which the provider takes 1 */
	CU_ASSERT_EQUAL(rdx_qp_post_burst(&qp->base, w, 5), 5);
	fake_fail_at = 1;
	CU_ASSERT_EQUAL(rdx_qp_post_burst(&qp->base, w, 3), 1);
	/* a single WR refused (the one-WR path): counted, nothing committed */
	fake_fail_at = 0;
	CU_ASSERT_EQUAL(rdx_qp_post_burst(&qp->base, w, 1), 0);
	CU_ASSERT_EQUAL(qp->sq.head, 6);
	CU_ASSERT_EQUAL(qp->sq.unsig, 1);
	fake_fail_at = -1;
	CU_ASSERT_EQUAL(qv(qp, "send_wrs_posted"), 6);
	CU_ASSERT_EQUAL(qv(qp, "send_doorbells"), 3);
	CU_ASSERT_EQUAL(qv(qp, "send_post_errors"), 2);
	CU_ASSERT_EQUAL(qv(qp, "send_wrs_completed"), 0);
	/* WR 3 ok (retires 0..3), WR 4 in error, WR 5 flushed */
	memset(fake_cqe, 0, sizeof(fake_cqe));
	fake_cqe[0].wr_id = 3;
	fake_cqe[0].qp_num = qp->base.qp_num;
	fake_cqe[0].opcode = IBV_WC_SEND;
	fake_cqe[1] = fake_cqe[0];
	fake_cqe[1].wr_id = 4;
	fake_cqe[1].status = IBV_WC_REM_ACCESS_ERR;
	fake_cqe[2] = fake_cqe[0];
	fake_cqe[2].wr_id = 5;
	fake_cqe[2].status = IBV_WC_WR_FLUSH_ERR;
	fake_nb_cqe = 3;
	CU_ASSERT_EQUAL(rdx_cq_poll_burst(&cq->base, wc, 8), 3);
	CU_ASSERT_EQUAL(qv(qp, "send_wrs_completed"), 6);
	CU_ASSERT_EQUAL(qv(qp, "send_wrs_ok"), 4);
	CU_ASSERT_EQUAL(qv(qp, "send_wrs_error"), 1);
	CU_ASSERT_EQUAL(qv(qp, "send_wrs_flushed"), 1);
	/* receives: 3 posted in one call, one received, one flushed */
	for (k = 0; k < 3; k++)
		r[k] = (struct rdx_recv_wr){ .wr_id = 800 + k, .sge = &sge, .num_sge = 1 };
	CU_ASSERT_EQUAL(rdx_qp_post_recv_burst(&qp->base, r, 3), 3);
	memset(fake_cqe, 0, sizeof(fake_cqe));
	fake_cqe[0].wr_id = RDX_VERBS_RECV_TAG | 0;
	fake_cqe[0].qp_num = qp->base.qp_num;
	fake_cqe[0].opcode = IBV_WC_RECV;
	fake_cqe[1] = fake_cqe[0];
	fake_cqe[1].wr_id = RDX_VERBS_RECV_TAG | 1;
	fake_cqe[1].status = IBV_WC_WR_FLUSH_ERR;
	fake_nb_cqe = 2;
	CU_ASSERT_EQUAL(rdx_cq_poll_burst(&cq->base, wc, 8), 2);
	CU_ASSERT_EQUAL(qv(qp, "recv_wrs_posted"), 3);
	CU_ASSERT_EQUAL(qv(qp, "recv_doorbells"), 1);
	CU_ASSERT_EQUAL(qv(qp, "recv_wrs_completed"), 2);
	CU_ASSERT_EQUAL(qv(qp, "recv_wrs_ok"), 1);
	CU_ASSERT_EQUAL(qv(qp, "recv_wrs_flushed"), 1);
	CU_ASSERT_EQUAL(qv(qp, "recv_wrs_error"), 0);
	CU_ASSERT_EQUAL(qv(qp, "recv_post_errors"), 0);
	cq_detach(cq, qp);
	free(qp->swr);
	free(qp->ssge);
	free(qp->rwr);
	free(qp->rsge);
	free_cq(cq);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{"wc_map", test_wc_map},
		{"fast_path", test_fast_path},
		{"counters", test_counters},
		{NULL, NULL},
	};

	return rdx_ut_run("verbs_dp", cases, NULL, NULL);
}
