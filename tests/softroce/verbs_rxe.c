/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The generic verbs driver on a real RDMA stack: two soft-RoCE devices (rxe0
 * and rxe1 on a veth pair, see tests/softroce/guest-run.sh) opened through
 * rdx_dev_open, one RC QP on each, connected to each other. Every opcode runs
 * with a data check, then selective signaling, inline, completion events,
 * UD datagrams between the devices (GRH area, source QPN, Q_Key drop, the
 * MTU error), and a bad rkey that must come back as IBV_WC_REM_ACCESS_ERR
 * (printed by name) followed by flushes, which the QP's counters
 * (rdx_qp_xstats_get) and state show. Without the two devices it exits 77.
 *
 *   verbs_rxe [DEV_A DEV_B]     (default rxe0 rxe1)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <arpa/inet.h>
#include <infiniband/verbs.h>

#include <rte_errno.h>

#include "rdx_dev.h"
#include "rdx_ut.h"

#define BUF_SZ 8192
#define SQ_DEPTH 32
#define POLL_LIMIT_S 10 /* hang guard only, not a timing assertion */

struct side {
	struct rdx_dev *dev;
	struct rdx_cq *cq;
	struct rdx_qp *qp;
	struct rdx_mem *mem;
	uint8_t *buf;
};

static const char *dev_names[2] = {"rxe0", "rxe1"};
static struct side A, B;

static int
side_open(struct side *s, const char *name, uint16_t sig_interval, bool events)
{
	struct rdx_dev_conf dc = {0};
	struct rdx_cq_conf cc = {.depth = 256, .events = events};
	struct rdx_qp_conf qc = {0};

	s->dev = rdx_dev_open(name, &dc);
	if (s->dev == NULL)
		return -1;
	s->mem = rdx_dev_mem_alloc(s->dev, BUF_SZ, RDX_MEM_HOST, RDX_ACCESS_ALL);
	s->cq = rdx_cq_create(s->dev, &cc);
	if (s->mem == NULL || s->cq == NULL)
		return -1;
	s->buf = s->mem->addr;
	qc.send_cq = s->cq;
	qc.recv_cq = s->cq;
	qc.sq_depth = SQ_DEPTH;
	qc.rq_depth = 32;
	qc.max_send_sge = 2;
	qc.max_recv_sge = 2;
	qc.max_inline = 64;
	qc.sig_interval = sig_interval;
	qc.user_ctx = s;
	s->qp = rdx_qp_create(s->dev, &qc);
	return s->qp == NULL ? -1 : 0;
}

static void
side_close(struct side *s)
{
	rdx_qp_destroy(s->qp);
	rdx_cq_destroy(s->cq);
	rdx_dev_mem_free(s->mem);
	if (s->dev != NULL)
		rdx_dev_close(s->dev);
	memset(s, 0, sizeof(*s));
}

static int
connect_pair(void)
{
	struct rdx_qp_info ia, ib;

	if (rdx_qp_info_get(A.qp, &ia) != 0 || rdx_qp_info_get(B.qp, &ib) != 0)
		return -1;
	if (rdx_qp_connect(A.qp, &ib, NULL) != 0 || rdx_qp_connect(B.qp, &ia, NULL) != 0)
		return -1;
	return 0;
}

static int
suite_init(void)
{
	if (side_open(&A, dev_names[0], 1, true) != 0 || side_open(&B, dev_names[1], 1, false) != 0) {
		fprintf(stderr, "verbs_rxe: cannot set up %s/%s: %s\n", dev_names[0], dev_names[1],
			rte_strerror(rte_errno));
		return -1;
	}
	return connect_pair();
}

static int
suite_fini(void)
{
	side_close(&A);
	side_close(&B);
	return 0;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Poll cq until n completions arrived (or the hang guard fires). */
static uint16_t
poll_n(struct rdx_cq *cq, struct rdx_wc *wc, uint16_t n)
{
	double end = now_s() + POLL_LIMIT_S;
	uint16_t got = 0;

	while (got < n && now_s() < end)
		got = (uint16_t)(got + rdx_cq_poll_burst(cq, wc + got, (uint16_t)(n - got)));
	return got;
}

static void
post_recv(struct side *s, size_t off, uint32_t len, uint64_t id)
{
	struct rdx_sge sge = {(uint64_t)(uintptr_t)(s->buf + off), len, s->mem->lkey};
	struct rdx_recv_wr r = {.wr_id = id, .sge = &sge, .num_sge = 1};

	CU_ASSERT_EQUAL_FATAL(rdx_qp_post_recv_burst(s->qp, &r, 1), 1);
}

/* Post one signaled WR on A and wait for its completion. */
static void
run_one(struct rdx_wr *wr, struct rdx_wc *wc)
{
	wr->flags |= RDX_WR_SIGNALED;
	CU_ASSERT_EQUAL_FATAL(rdx_qp_post_burst(A.qp, wr, 1), 1);
	CU_ASSERT_EQUAL_FATAL(poll_n(A.cq, wc, 1), 1);
	if (wc->status != IBV_WC_SUCCESS)
		printf("  unexpected completion: %s (vendor_err 0x%x)\n",
		       rdx_wc_status_name(wc->status), wc->vendor_err);
	CU_ASSERT_EQUAL(wc->status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc->wr_id, wr->wr_id);
	CU_ASSERT_EQUAL(wc->qp_ctx, &A);
	CU_ASSERT_EQUAL(wc->qp_num, A.qp->qp_num);
	CU_ASSERT_EQUAL(wc->retired, 1);
}

static void
fill(uint8_t *p, size_t n, uint8_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 7);
}

static void
test_attr(void)
{
	const struct rdx_dev_attr *a = rdx_dev_attr_get(A.dev);

	CU_ASSERT_STRING_EQUAL(a->driver, "verbs");
	CU_ASSERT_STRING_EQUAL(a->name, dev_names[0]);
	CU_ASSERT_FALSE(a->software);
	CU_ASSERT_EQUAL(a->link_layer, IBV_LINK_LAYER_ETHERNET);
	CU_ASSERT_TRUE(a->max_inline >= 64);
	CU_ASSERT_TRUE(A.qp->conf.max_inline >= 64);
	printf("  %s: max_inline %u, max_qp_wr %u, max_sge %u, atomics %d, mtu code %u, dm %" PRIu64 "\n",
	       a->name, a->max_inline, a->max_qp_wr, a->max_sge, a->atomics, a->active_mtu,
	       a->max_dm_size);
}

static void
test_mem_types(void)
{
	struct rdx_mem *m;

	/* rxe has no device memory: a clear error, no crash. */
	m = rdx_dev_mem_alloc(A.dev, 4096, RDX_MEM_DM, RDX_ACCESS_ALL);
	CU_ASSERT_PTR_NULL(m);
	/* Huge pages: either a registered region or a clear error. */
	m = rdx_dev_mem_alloc(A.dev, 4096, RDX_MEM_HUGE, RDX_ACCESS_ALL);
	if (m != NULL) {
		CU_ASSERT_EQUAL(m->type, RDX_MEM_HUGE);
		CU_ASSERT_EQUAL(rdx_dev_mem_free(m), 0);
	}
	m = rdx_dev_mem_reg(A.dev, A.buf, 64, RDX_ACCESS_LOCAL_WRITE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_NOT_EQUAL(m->lkey, A.mem->lkey);
	CU_ASSERT_EQUAL(rdx_dev_mem_free(m), 0);
}

static void
test_write(void)
{
	struct rdx_sge sge[2] = {
		{(uint64_t)(uintptr_t)A.buf, 1000, A.mem->lkey},
		{(uint64_t)(uintptr_t)(A.buf + 1000), 1048, A.mem->lkey},
	};
	struct rdx_wr wr = {.wr_id = 11, .sge = sge, .num_sge = 2, .opcode = RDX_OP_WRITE,
		.remote_addr = (uint64_t)(uintptr_t)(B.buf + 4096), .rkey = B.mem->rkey};
	struct rdx_wc wc;

	fill(A.buf, 2048, 3);
	memset(B.buf + 4096, 0, 2048);
	run_one(&wr, &wc);
	CU_ASSERT_EQUAL(wc.opcode, RDX_WC_WRITE);
	CU_ASSERT_EQUAL(memcmp(A.buf, B.buf + 4096, 2048), 0);
}

static void
test_read(void)
{
	struct rdx_sge sge = {(uint64_t)(uintptr_t)(A.buf + 2048), 3000, A.mem->lkey};
	struct rdx_wr wr = {.wr_id = 12, .sge = &sge, .num_sge = 1, .opcode = RDX_OP_READ,
		.remote_addr = (uint64_t)(uintptr_t)B.buf, .rkey = B.mem->rkey};
	struct rdx_wc wc;

	fill(B.buf, 3000, 99);
	memset(A.buf + 2048, 0, 3000);
	run_one(&wr, &wc);
	CU_ASSERT_EQUAL(wc.opcode, RDX_WC_READ);
	CU_ASSERT_EQUAL(wc.byte_len, 3000);
	CU_ASSERT_EQUAL(memcmp(A.buf + 2048, B.buf, 3000), 0);
}

static void
check_recv(uint64_t id, uint8_t opcode, uint32_t len, uint32_t imm)
{
	struct rdx_wc wc;

	CU_ASSERT_EQUAL_FATAL(poll_n(B.cq, &wc, 1), 1);
	CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.wr_id, id);
	CU_ASSERT_EQUAL(wc.opcode, opcode);
	CU_ASSERT_EQUAL(wc.byte_len, len);
	CU_ASSERT_EQUAL(wc.imm, imm);
	CU_ASSERT_EQUAL(wc.qp_ctx, &B);
}

static void
test_send(void)
{
	struct rdx_sge sge = {(uint64_t)(uintptr_t)A.buf, 1500, A.mem->lkey};
	struct rdx_wr wr = {.wr_id = 13, .sge = &sge, .num_sge = 1, .opcode = RDX_OP_SEND};
	struct rdx_wc wc;

	fill(A.buf, 1500, 42);
	memset(B.buf, 0, 2048);
	post_recv(&B, 0, 2048, 501);
	run_one(&wr, &wc);
	CU_ASSERT_EQUAL(wc.opcode, RDX_WC_SEND);
	check_recv(501, RDX_WC_RECV, 1500, 0);
	CU_ASSERT_EQUAL(memcmp(A.buf, B.buf, 1500), 0);
}

static void
test_send_imm_inline(void)
{
	struct rdx_sge sge = {(uint64_t)(uintptr_t)A.buf, 48, A.mem->lkey};
	struct rdx_wr wr = {.wr_id = 14, .sge = &sge, .num_sge = 1, .opcode = RDX_OP_SEND_IMM,
		.flags = RDX_WR_INLINE, .imm = htonl(0xdeadbeef)};
	struct rdx_wc wc;

	fill(A.buf, 48, 5);
	memset(B.buf, 0, 64);
	post_recv(&B, 0, 64, 502);
	run_one(&wr, &wc);
	/* Inline: the source may change as soon as the post returns. */
	CU_ASSERT_EQUAL(wc.opcode, RDX_WC_SEND);
	check_recv(502, RDX_WC_RECV_IMM, 48, htonl(0xdeadbeef));
	CU_ASSERT_EQUAL(memcmp(A.buf, B.buf, 48), 0);
}

static void
test_write_imm(void)
{
	struct rdx_sge sge = {(uint64_t)(uintptr_t)A.buf, 777, A.mem->lkey};
	struct rdx_wr wr = {.wr_id = 15, .sge = &sge, .num_sge = 1, .opcode = RDX_OP_WRITE_IMM,
		.remote_addr = (uint64_t)(uintptr_t)(B.buf + 100), .rkey = B.mem->rkey,
		.imm = htonl(0x01020304)};
	struct rdx_wc wc;

	fill(A.buf, 777, 17);
	memset(B.buf, 0, 1024);
	post_recv(&B, 2048, 16, 503);
	run_one(&wr, &wc);
	CU_ASSERT_EQUAL(wc.opcode, RDX_WC_WRITE);
	check_recv(503, RDX_WC_RECV_WRITE_IMM, 777, htonl(0x01020304));
	CU_ASSERT_EQUAL(memcmp(A.buf, B.buf + 100, 777), 0);
}

static void
test_atomics(void)
{
	uint64_t *target = (uint64_t *)(void *)(B.buf + 4096);
	uint64_t *result = (uint64_t *)(void *)(A.buf + 4096);
	struct rdx_sge sge = {(uint64_t)(uintptr_t)result, 8, A.mem->lkey};
	struct rdx_wr wr = {.sge = &sge, .num_sge = 1, .rkey = B.mem->rkey,
		.remote_addr = (uint64_t)(uintptr_t)target};
	struct rdx_wc wc;

	*target = 0x1122334455667788ull;
	/* CAS that matches: returns the old value, stores swap. */
	wr.wr_id = 16;
	wr.opcode = RDX_OP_CAS;
	wr.compare_add = 0x1122334455667788ull;
	wr.swap = 0x0102030405060708ull;
	*result = 0;
	run_one(&wr, &wc);
	CU_ASSERT_EQUAL(wc.opcode, RDX_WC_CAS);
	CU_ASSERT_EQUAL(wc.byte_len, 8);
	CU_ASSERT_EQUAL(*result, 0x1122334455667788ull);
	CU_ASSERT_EQUAL(*target, 0x0102030405060708ull);
	/* CAS that does not match: returns the current value, stores nothing. */
	wr.wr_id = 17;
	wr.flags = 0;
	*result = 0;
	run_one(&wr, &wc);
	CU_ASSERT_EQUAL(*result, 0x0102030405060708ull);
	CU_ASSERT_EQUAL(*target, 0x0102030405060708ull);
	/* FAA */
	wr.wr_id = 18;
	wr.flags = 0;
	wr.opcode = RDX_OP_FAA;
	wr.compare_add = 0x10;
	*result = 0;
	run_one(&wr, &wc);
	CU_ASSERT_EQUAL(wc.opcode, RDX_WC_FAA);
	CU_ASSERT_EQUAL(*result, 0x0102030405060708ull);
	CU_ASSERT_EQUAL(*target, 0x0102030405060718ull);
}

/* 100 unsignaled WRITEs in bursts of 10 with sig_interval 8: every WR is
 * retired exactly once, in order, and the SQ never overflows. */
static void
test_selective_signaling(void)
{
	struct side C = {0}, D = {0};
	struct rdx_qp_info ic, id;
	struct rdx_sge sge;
	struct rdx_wr wr[10];
	struct rdx_wc wc[16];
	uint64_t next_id = 0, seen = 0;
	uint16_t got, i, j, k;
	int burst;
	bool order_ok = true;

	CU_ASSERT_EQUAL_FATAL(side_open(&C, dev_names[0], 8, false), 0);
	CU_ASSERT_EQUAL_FATAL(side_open(&D, dev_names[1], 1, false), 0);
	CU_ASSERT_EQUAL_FATAL(rdx_qp_info_get(C.qp, &ic), 0);
	CU_ASSERT_EQUAL_FATAL(rdx_qp_info_get(D.qp, &id), 0);
	CU_ASSERT_EQUAL_FATAL(rdx_qp_connect(C.qp, &id, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(rdx_qp_connect(D.qp, &ic, NULL), 0);
	sge.addr = (uint64_t)(uintptr_t)C.buf;
	sge.length = 64;
	sge.lkey = C.mem->lkey;
	for (burst = 0; burst < 10; burst++) {
		uint16_t posted = 0;

		for (k = 0; k < 10; k++) {
			memset(&wr[k], 0, sizeof(wr[k]));
			wr[k].wr_id = 1000 + next_id + k;
			wr[k].sge = &sge;
			wr[k].num_sge = 1;
			wr[k].opcode = RDX_OP_WRITE;
			wr[k].remote_addr = (uint64_t)(uintptr_t)D.buf;
			wr[k].rkey = D.mem->rkey;
		}
		while (posted < 10) {
			double end = now_s() + POLL_LIMIT_S;

			posted = (uint16_t)(posted + rdx_qp_post_burst(C.qp, wr + posted,
								    (uint16_t)(10 - posted)));
			got = rdx_cq_poll_burst(C.cq, wc, 16);
			for (i = 0; i < got; i++) {
				CU_ASSERT_EQUAL(wc[i].status, IBV_WC_SUCCESS);
				CU_ASSERT_TRUE(wc[i].retired >= 1 && wc[i].retired <= 8);
				for (j = 0; j < wc[i].retired; j++)
					if (rdx_qp_retired_wr_id(C.qp, &wc[i], j) != 1000 + seen + j)
						order_ok = false;
				seen += wc[i].retired;
			}
			if (now_s() > end)
				break;
		}
		next_id += 10;
	}
	/* Completions of the tail: 100 = 12 * 8 + 4, the last 4 unsignaled
	 * stay outstanding; a signaled WR retires them. */
	memset(&wr[0], 0, sizeof(wr[0]));
	wr[0].wr_id = 1000 + next_id;
	wr[0].sge = &sge;
	wr[0].num_sge = 1;
	wr[0].opcode = RDX_OP_WRITE;
	wr[0].flags = RDX_WR_SIGNALED;
	wr[0].remote_addr = (uint64_t)(uintptr_t)D.buf;
	wr[0].rkey = D.mem->rkey;
	CU_ASSERT_EQUAL(rdx_qp_post_burst(C.qp, wr, 1), 1);
	{
		double end = now_s() + POLL_LIMIT_S;

		while (seen < 101 && now_s() < end) {
			got = rdx_cq_poll_burst(C.cq, wc, 16);
			for (i = 0; i < got; i++) {
				for (j = 0; j < wc[i].retired; j++)
					if (rdx_qp_retired_wr_id(C.qp, &wc[i], j) != 1000 + seen + j)
						order_ok = false;
				seen += wc[i].retired;
			}
		}
	}
	CU_ASSERT_EQUAL(seen, 101);
	CU_ASSERT_TRUE(order_ok);
	side_close(&C);
	side_close(&D);
}

static void
test_cq_wait(void)
{
	struct rdx_sge sge = {(uint64_t)(uintptr_t)A.buf, 8, A.mem->lkey};
	struct rdx_wr wr = {.wr_id = 19, .sge = &sge, .num_sge = 1, .opcode = RDX_OP_WRITE,
		.flags = RDX_WR_SIGNALED, .remote_addr = (uint64_t)(uintptr_t)B.buf,
		.rkey = B.mem->rkey};
	struct rdx_wc wc;

	/* Nothing outstanding: times out. */
	CU_ASSERT_EQUAL(rdx_cq_wait(A.cq, 50), -ETIMEDOUT);
	CU_ASSERT_EQUAL_FATAL(rdx_qp_post_burst(A.qp, &wr, 1), 1);
	CU_ASSERT_EQUAL(rdx_cq_wait(A.cq, POLL_LIMIT_S * 1000), 0);
	CU_ASSERT_EQUAL(poll_n(A.cq, &wc, 1), 1);
	CU_ASSERT_EQUAL(wc.wr_id, 19);
	CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
	/* B's CQ has no channel. */
	CU_ASSERT_EQUAL(rdx_cq_wait(B.cq, 1), -EINVAL);
}

/* Counter name of qp (rdx_qp_xstats_get: the verbs driver's per-QP
 * counters), UINT64_MAX when absent. */
static uint64_t
qv(struct rdx_qp *qp, const char *name)
{
	struct rdx_dev_xstat xs[32];
	int n = rdx_qp_xstats_get(qp, xs, 32), i;

	CU_ASSERT(n >= RDX_QP_XSTATS_COMMON && n <= 32);
	for (i = 0; i < n && i < 32; i++)
		if (strcmp(xs[i].name, name) == 0)
			return xs[i].value;
	return UINT64_MAX;
}

/* Last: a bad rkey moves the QP to error; its counters say so. */
static void
test_bad_rkey(void)
{
	uint64_t posted = qv(A.qp, "send_wrs_posted"), bells = qv(A.qp, "send_doorbells");
	uint64_t flushed = qv(A.qp, "send_wrs_flushed");

	struct rdx_sge sge = {(uint64_t)(uintptr_t)A.buf, 64, A.mem->lkey};
	struct rdx_wr wr[2] = {
		{.wr_id = 20, .sge = &sge, .num_sge = 1, .opcode = RDX_OP_WRITE,
		 .flags = RDX_WR_SIGNALED, .remote_addr = (uint64_t)(uintptr_t)B.buf,
		 .rkey = B.mem->rkey ^ 0x5a5a00},
		{.wr_id = 21, .sge = &sge, .num_sge = 1, .opcode = RDX_OP_WRITE,
		 .remote_addr = (uint64_t)(uintptr_t)B.buf, .rkey = B.mem->rkey},
	};
	struct rdx_wc wc[2];
	uint16_t got;

	/* after the tests before: every WR completed, fine, on both QPs */
	printf("  A: %" PRIu64 " send WRs in %" PRIu64 " ibv_post_send calls; B: %" PRIu64
	       " receives completed\n", posted, bells, qv(B.qp, "recv_wrs_completed"));
	CU_ASSERT(posted > 0 && bells > 0 && bells <= posted);
	CU_ASSERT_EQUAL(qv(A.qp, "send_wrs_completed"), posted);
	CU_ASSERT_EQUAL(qv(A.qp, "send_wrs_ok"), posted);
	CU_ASSERT_EQUAL(qv(A.qp, "send_wrs_error"), 0);
	CU_ASSERT_EQUAL(flushed, 0);
	CU_ASSERT(qv(B.qp, "recv_wrs_ok") > 0);
	CU_ASSERT_EQUAL(qv(B.qp, "recv_wrs_posted"), qv(B.qp, "recv_wrs_completed"));
	CU_ASSERT_EQUAL(rdx_qp_state_get(A.qp), RDX_QP_STATE_RTS);
	CU_ASSERT_EQUAL_FATAL(rdx_qp_post_burst(A.qp, wr, 2), 2);
	got = poll_n(A.cq, wc, 2);
	CU_ASSERT_EQUAL_FATAL(got, 2);
	printf("  bad rkey: wr_id %" PRIu64 " -> %s (vendor_err 0x%x); wr_id %" PRIu64 " -> %s\n",
	       wc[0].wr_id, rdx_wc_status_name(wc[0].status), wc[0].vendor_err,
	       wc[1].wr_id, rdx_wc_status_name(wc[1].status));
	CU_ASSERT_EQUAL(wc[0].wr_id, 20);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_REM_ACCESS_ERR);
	CU_ASSERT_STRING_EQUAL(rdx_wc_status_name(wc[0].status), ibv_wc_status_str(IBV_WC_REM_ACCESS_ERR));
	CU_ASSERT_EQUAL(wc[1].wr_id, 21);
	CU_ASSERT_EQUAL(wc[1].status, IBV_WC_WR_FLUSH_ERR);
	CU_ASSERT_EQUAL(qv(A.qp, "send_wrs_posted"), posted + 2);
	CU_ASSERT_EQUAL(qv(A.qp, "send_doorbells"), bells + 1);
	CU_ASSERT_EQUAL(qv(A.qp, "send_wrs_completed"), posted + 2);
	CU_ASSERT_EQUAL(qv(A.qp, "send_wrs_error"), 1);
	CU_ASSERT_EQUAL(qv(A.qp, "send_wrs_flushed"), 1);
	CU_ASSERT_EQUAL(rdx_qp_state_get(A.qp), RDX_QP_STATE_ERR);
}

/*
 * UD between the two devices: a UD QP on each (own CQs, the RC pair's
 * buffers), AHs from the peers' qp_info. A datagram with its GRH area and
 * source QPN; one with the wrong Q_Key is dropped (the good one after it
 * is the first to arrive); one above the MTU fails with LOC_LEN_ERR.
 */
static void
test_ud(void)
{
	struct rdx_cq_conf cc = {.depth = 64};
	struct rdx_qp_conf qc = {.sq_depth = 16, .rq_depth = 16, .max_send_sge = 1,
		.max_recv_sge = 1, .sig_interval = 1, .type = RDX_QP_UD, .qkey = 0x11111};
	const struct rdx_dev_attr *at = rdx_dev_attr_get(A.dev);
	uint32_t len = at->max_ud_msg < 1000u ? at->max_ud_msg : 1000u;
	struct rdx_qp_info ia, ib;
	struct rdx_ah_attr aa;
	struct rdx_cq *ca, *cb;
	struct rdx_qp *ua, *ub;
	struct rdx_ah *ah;
	struct rdx_sge sge = {(uint64_t)(uintptr_t)A.buf, len, A.mem->lkey};
	struct rdx_wr wr = {.wr_id = 30, .sge = &sge, .num_sge = 1, .opcode = RDX_OP_SEND,
		.flags = RDX_WR_SIGNALED};
	struct rdx_wc wc;
	unsigned int i;

	CU_ASSERT_FATAL(at->max_ud_msg >= 256);
	ca = rdx_cq_create(A.dev, &cc);
	cb = rdx_cq_create(B.dev, &cc);
	CU_ASSERT_FATAL(ca != NULL && cb != NULL);
	qc.send_cq = qc.recv_cq = ca;
	ua = rdx_qp_create(A.dev, &qc);
	qc.send_cq = qc.recv_cq = cb;
	ub = rdx_qp_create(B.dev, &qc);
	CU_ASSERT_FATAL(ua != NULL && ub != NULL);
	CU_ASSERT_FATAL(rdx_qp_connect(ua, NULL, NULL) == 0);
	CU_ASSERT_FATAL(rdx_qp_connect(ub, NULL, NULL) == 0);
	CU_ASSERT_FATAL(rdx_qp_info_get(ua, &ia) == 0 && rdx_qp_info_get(ub, &ib) == 0);
	CU_ASSERT_EQUAL(ib.qp_type, RDX_QP_UD);
	CU_ASSERT_EQUAL(ib.qkey, 0x11111);
	CU_ASSERT_FATAL(rdx_ah_attr_from_info(A.dev, &ib, &aa) == 0);
	ah = rdx_ah_create(A.dev, &aa);
	CU_ASSERT_FATAL(ah != NULL);
	fill(A.buf, len, 9);
	memset(B.buf, 0, 2 * (RDX_UD_GRH_BYTES + 1024));
	for (i = 0; i < 2; i++) {
		struct rdx_sge rs = {(uint64_t)(uintptr_t)(B.buf + i * (RDX_UD_GRH_BYTES + 1024)),
			RDX_UD_GRH_BYTES + 1024, B.mem->lkey};
		struct rdx_recv_wr r = {.wr_id = 600 + (uint64_t)i, .sge = &rs, .num_sge = 1};

		CU_ASSERT_EQUAL_FATAL(rdx_qp_post_recv_burst(ub, &r, 1), 1);
	}
	/* the wrong Q_Key first (dropped), then the right one */
	wr.ah = ah;
	wr.remote_qpn = ib.qp_num;
	wr.remote_qkey = 0x22222;
	CU_ASSERT_EQUAL_FATAL(rdx_qp_post_burst(ua, &wr, 1), 1);
	CU_ASSERT_EQUAL_FATAL(poll_n(ca, &wc, 1), 1);
	CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
	wr.wr_id = 31;
	wr.remote_qkey = 0x11111;
	CU_ASSERT_EQUAL_FATAL(rdx_qp_post_burst(ua, &wr, 1), 1);
	CU_ASSERT_EQUAL_FATAL(poll_n(ca, &wc, 1), 1);
	CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.wr_id, 31);
	CU_ASSERT_EQUAL_FATAL(poll_n(cb, &wc, 1), 1);
	CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.wr_id, 600);
	CU_ASSERT_EQUAL(wc.opcode, RDX_WC_RECV);
	CU_ASSERT_EQUAL(wc.byte_len, RDX_UD_GRH_BYTES + len);
	CU_ASSERT_EQUAL(wc.src_qp, ia.qp_num);
	CU_ASSERT(wc.wc_flags & RDX_WC_GRH);
	CU_ASSERT_EQUAL(memcmp(rdx_ud_payload(B.buf), A.buf, len), 0);
	/* above the MTU: never sent. rxe would send it and report success, so
	 * the verbs driver refuses it at post (short count, doc/ud.md) */
	sge.length = at->max_ud_msg + 1;
	wr.wr_id = 32;
	CU_ASSERT_EQUAL(rdx_qp_post_burst(ua, &wr, 1), 0);
	CU_ASSERT_EQUAL(rdx_cq_poll_burst(ca, &wc, 1), 0);
	CU_ASSERT_EQUAL(rdx_cq_poll_burst(cb, &wc, 1), 0);
	CU_ASSERT(rdx_ah_destroy(ah) == 0);
	CU_ASSERT(rdx_qp_destroy(ua) == 0);
	CU_ASSERT(rdx_qp_destroy(ub) == 0);
	CU_ASSERT(rdx_cq_destroy(ca) == 0);
	CU_ASSERT(rdx_cq_destroy(cb) == 0);
}

int
main(int argc, char **argv)
{
	static const struct rdx_ut_case cases[] = {
		{"attr", test_attr},
		{"mem_types", test_mem_types},
		{"write", test_write},
		{"read", test_read},
		{"send", test_send},
		{"send_imm_inline", test_send_imm_inline},
		{"write_imm", test_write_imm},
		{"atomics", test_atomics},
		{"selective_signaling", test_selective_signaling},
		{"cq_wait", test_cq_wait},
		{"ud", test_ud},
		{"bad_rkey", test_bad_rkey},
		{NULL, NULL},
	};
	char names[16][64];
	int n, i, found = 0;

	if (argc == 3) {
		dev_names[0] = argv[1];
		dev_names[1] = argv[2];
	} else if (argc != 1) {
		fprintf(stderr, "usage: %s [DEV_A DEV_B]\n", argv[0]);
		return 2;
	}
	n = rdx_dev_list(names, 16);
	for (i = 0; i < n && i < 16; i++)
		found += strcmp(names[i], dev_names[0]) == 0 || strcmp(names[i], dev_names[1]) == 0;
	if (found < 2) {
		printf("no RDMA device (%s and %s needed): run it in the soft-RoCE guest (tests/softroce/guest-run.sh)\n",
		       dev_names[0], dev_names[1]);
		return 77;
	}
	return rdx_ut_run("verbs_rxe", cases, suite_init, suite_fini);
}
