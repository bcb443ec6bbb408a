/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * End-to-end tests of the software mlx5 device through the rdx device API:
 * the real mlx5 datapath posts WQEs and polls CQEs, the model executes
 * them. Every opcode, gather/scatter, immediates, doorbell batching,
 * selective signaling, every error path, thread mode, fault injection,
 * device memory, and atomics under two threads.
 */
#include <errno.h>
#include <sched.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_errno.h>

#include <infiniband/verbs.h>

#include "rdx_ut.h"
#include "rdx_dev.h"
#include "rdx_sw.h"
#include "sw_ut_dev.h"
#include "sw_ut_poll.h"
#include "sw_timing_dir.h"


static struct rdx_dev *dev;

struct pair {
	struct rdx_cq *cq[2];
	struct rdx_qp *qp[2];
};

static void
pair_make_on(struct rdx_dev *d, struct pair *p, const struct rdx_qp_conf *tmpl,
	     const struct rdx_qp_conn_attr *ca, uint32_t cq_depth)
{
	sw_ut_qp_pair(d, p->cq, p->qp, tmpl, ca, cq_depth, true);
}

static void
pair_make(struct pair *p, const struct rdx_qp_conf *tmpl, const struct rdx_qp_conn_attr *ca)
{
	pair_make_on(dev, p, tmpl, ca, 256);
}

static void
pair_free(struct pair *p)
{
	int i;

	for (i = 0; i < 2; i++) {
		CU_ASSERT(rdx_qp_destroy(p->qp[i]) == 0);
		CU_ASSERT(rdx_cq_destroy(p->cq[i]) == 0);
	}
}

/* sig_interval = sq_depth: only RDX_WR_SIGNALED (or a full SQ) signals */
static const struct rdx_qp_conf qconf = {
	.sq_depth = 64, .rq_depth = 64, .max_send_sge = 4, .max_recv_sge = 4,
	.max_inline = 64, .sig_interval = 64,
};

/* Poll until n completions arrived (bounded: a broken model fails, never
 * hangs). */
/* Poll a few more times: nothing else may arrive. */
static int
poll_extra(struct rdx_cq *cq)
{
	struct rdx_wc wc[8];
	int i, got = 0;

	for (i = 0; i < 1000; i++)
		got += rdx_cq_poll_burst(cq, wc, 8);
	return got;
}

static struct rdx_wr
wr_make(uint64_t id, uint8_t op, const struct rdx_sge *sge, uint8_t nsge,
	uint64_t raddr, uint32_t rkey, uint8_t flags)
{
	struct rdx_wr w;

	memset(&w, 0, sizeof(w));
	w.wr_id = id;
	w.opcode = op;
	w.sge = sge;
	w.num_sge = nsge;
	w.remote_addr = raddr;
	w.rkey = rkey;
	w.flags = flags;
	return w;
}

static void
test_attr(void)
{
	const struct rdx_dev_attr *a = rdx_dev_attr_get(dev);
	struct rdx_cq_conf cc = { .depth = 16 };
	struct rdx_qp_conf qc = qconf;
	struct rdx_cq *cq;
	struct rdx_qp *qp;

	CU_ASSERT_STRING_EQUAL(a->name, "sw");
	CU_ASSERT_STRING_EQUAL(a->driver, "sw");
	CU_ASSERT(a->software);
	CU_ASSERT(a->atomics);
	CU_ASSERT_EQUAL(a->max_msg_size, 1ULL << 30);
	CU_ASSERT_EQUAL(a->max_qp_wr, 8192);   /* 32768 WQEBBs of 256-byte RC WQEs */
	CU_ASSERT_EQUAL(a->max_sge, 16);
	CU_ASSERT(a->max_dm_size > 0);
	CU_ASSERT_EQUAL(a->active_mtu, IBV_MTU_4096);
	CU_ASSERT_EQUAL(a->link_layer, IBV_LINK_LAYER_ETHERNET);
	CU_ASSERT(rdx_sw_dev_is_sw(dev));
	/* larger than the segment: a clean failure */
	CU_ASSERT(rdx_dev_mem_alloc(dev, 3ULL << 30, RDX_MEM_HOST, RDX_ACCESS_ALL) == NULL);
	cq = rdx_cq_create(dev, &cc);
	CU_ASSERT_FATAL(cq != NULL);
	/* rdma-core mlx5_calc_send_wqe: RC, sge <= 4, inline 0 -> 60;
	 * asking for 64 -> 124 */
	qc.send_cq = qc.recv_cq = cq;
	qc.max_inline = 0;
	qp = rdx_qp_create(dev, &qc);
	CU_ASSERT_FATAL(qp != NULL);
	CU_ASSERT_EQUAL(qp->conf.max_inline, 60);
	CU_ASSERT(qp->conf.sq_depth >= qc.sq_depth);
	CU_ASSERT_EQUAL(rdx_sw_qp_state(qp), RDX_SW_QPS_RESET);
	rdx_qp_destroy(qp);
	qc.max_inline = 64;
	qp = rdx_qp_create(dev, &qc);
	CU_ASSERT_FATAL(qp != NULL);
	CU_ASSERT_EQUAL(qp->conf.max_inline, 124);
	rdx_qp_destroy(qp);
	/* bad requests */
	qc.max_inline = a->max_inline + 1;
	CU_ASSERT(rdx_qp_create(dev, &qc) == NULL);
	qc.max_inline = 0;
	qc.sig_interval = (uint16_t)(qc.sq_depth + 1);
	CU_ASSERT(rdx_qp_create(dev, &qc) == NULL);
	qc.sig_interval = 0;
	qc.max_send_sge = 17;
	CU_ASSERT(rdx_qp_create(dev, &qc) == NULL);
	qc.max_send_sge = qconf.max_send_sge;
	/* rdx_qp_sq_depth_max is the depth create grants: with 64 inline
	 * bytes an RC WQE takes 320 B (5 WQEBBs), 32768 / 5 = 6553 */
	CU_ASSERT_EQUAL(rdx_qp_sq_depth_max(dev, RDX_QP_RC, 1, 0), 8192);
	CU_ASSERT_EQUAL(rdx_qp_sq_depth_max(dev, RDX_QP_RC, 1, 64), 6553);
	CU_ASSERT_EQUAL(rdx_qp_sq_depth_max(dev, RDX_QP_RC, 1, a->max_inline + 1), 0);
	CU_ASSERT_EQUAL(rdx_qp_sq_depth_max(dev, RDX_QP_RC, 17, 0), 0);
	CU_ASSERT_EQUAL(rdx_qp_sq_depth_max(dev, 7, 1, 0), 0);
	CU_ASSERT(rdx_qp_sq_depth_max(dev, RDX_QP_UD, 1, 64) > 0);
	qc.max_inline = 64;
	qc.sq_depth = rdx_qp_sq_depth_max(dev, RDX_QP_RC, 1, 64);
	qp = rdx_qp_create(dev, &qc);
	CU_ASSERT(qp != NULL);
	rdx_qp_destroy(qp);
	qc.sq_depth++;
	CU_ASSERT(rdx_qp_create(dev, &qc) == NULL);
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	qc.type = RDX_QP_UD;
	qc.qkey = 0x11;
	qc.sq_depth = rdx_qp_sq_depth_max(dev, RDX_QP_UD, 1, 64);
	qp = rdx_qp_create(dev, &qc);
	CU_ASSERT(qp != NULL);
	rdx_qp_destroy(qp);
	qc.sq_depth++;
	CU_ASSERT(rdx_qp_create(dev, &qc) == NULL);
	CU_ASSERT(rdx_cq_destroy(cq) == 0);
}

/* The kernel page size of the mapping holding p, from /proc/self/smaps (kB; 0: not found). */
static unsigned long
page_kb(const void *p)
{
	unsigned long lo, hi, kb = 0;
	bool in = false;
	char line[512];
	FILE *f = fopen("/proc/self/smaps", "r");

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
			in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
		else if (in && sscanf(line, "KernelPageSize: %lu kB", &kb) == 1)
			break;
	}
	fclose(f);
	return in ? kb : 0;
}

/* RDX_MEM_HUGE: hugepages or ENOTSUP, never normal pages handed out as huge
 * (tests/func/sw_huge.sh reserves pages as root to see the first case). */
static void
test_mem_huge(void)
{
	struct rdx_mem *m;

	rte_errno = 0;
	m = rdx_dev_mem_alloc(dev, 12345, RDX_MEM_HUGE, RDX_ACCESS_ALL);
	if (m == NULL) {
		printf("\n  no hugepages here: refused (%s)", rte_strerror(rte_errno));
		CU_ASSERT_EQUAL(rte_errno, ENOTSUP);
		return;
	}
	printf("\n  hugepages here: %lu kB pages", page_kb(m->addr));
	CU_ASSERT_EQUAL(m->type, RDX_MEM_HUGE);
	CU_ASSERT(m->addr != NULL && m->len == 12345);
	CU_ASSERT_EQUAL(page_kb(m->addr), 2048);
	memset(m->addr, 0xab, m->len);
	CU_ASSERT_EQUAL(rdx_dev_mem_free(m), 0);
}

/* Every QP shape the limits allow is created and works (a NOP and, when
 * the QP has room, an inline WRITE of max_inline bytes). */
static void
test_qp_shapes(void)
{
	static const uint32_t sges[] = { 0, 1, 4, 16 };
	static const uint32_t inls[] = { 0, 1, 60, 316 };
	static const uint32_t sqs[] = { 1, 7, 64 };
	static const uint32_t rqs[] = { 0, 1, 100 };
	struct rdx_cq_conf cc = { .depth = 8 };
	struct rdx_mem *m;
	struct rdx_cq *cq;
	size_t a, b, c, d;

	cq = rdx_cq_create(dev, &cc);
	m = rdx_dev_mem_alloc(dev, 4096, RDX_MEM_HOST, RDX_ACCESS_ALL);
	CU_ASSERT_FATAL(cq != NULL && m != NULL);
	for (a = 0; a < RTE_DIM(sges); a++)
	for (b = 0; b < RTE_DIM(inls); b++)
	for (c = 0; c < RTE_DIM(sqs); c++)
	for (d = 0; d < RTE_DIM(rqs); d++) {
		struct rdx_qp_conf qc = {
			.send_cq = cq, .recv_cq = cq, .sq_depth = sqs[c], .rq_depth = rqs[d],
			.max_send_sge = sges[a], .max_recv_sge = sges[a],
			.max_inline = inls[b], .sig_interval = (uint16_t)sqs[c],
		};
		struct rdx_qp_info info;
		struct rdx_sge s = { m->iova, 0, m->lkey };
		struct rdx_wc wc;
		struct rdx_wr w;
		struct rdx_qp *qp = rdx_qp_create(dev, &qc);

		CU_ASSERT_FATAL(qp != NULL);
		CU_ASSERT(qp->conf.max_inline >= inls[b]);
		CU_ASSERT(qp->conf.sq_depth >= sqs[c]);
		CU_ASSERT(qp->conf.rq_depth >= rqs[d]);
		rdx_qp_info_get(qp, &info);
		CU_ASSERT_FATAL(rdx_qp_connect(qp, &info, NULL) == 0); /* to itself */
		w = wr_make(1, RDX_OP_NOP, NULL, 0, 0, 0, RDX_WR_SIGNALED);
		CU_ASSERT_EQUAL_FATAL(rdx_qp_post_burst(qp, &w, 1), 1);
		CU_ASSERT_EQUAL(poll_n(cq, &wc, 1), 1);
		CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
		s.length = qp->conf.max_inline;
		w = wr_make(2, RDX_OP_WRITE, &s, 1, m->iova + 1024, m->rkey,
			    RDX_WR_SIGNALED | RDX_WR_INLINE);
		/* one SGE needs max_send_sge >= 1 (the datapath checks) */
		if (sges[a] > 0) {
			CU_ASSERT_EQUAL_FATAL(rdx_qp_post_burst(qp, &w, 1), 1);
			CU_ASSERT_EQUAL(poll_n(cq, &wc, 1), 1);
			CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
		}
		CU_ASSERT(rdx_qp_destroy(qp) == 0);
	}
	rdx_dev_mem_free(m);
	CU_ASSERT(rdx_cq_destroy(cq) == 0);
}

static void
test_write_read(void)
{
	struct rdx_mem *m0, *m1;
	struct rdx_sge sge[3];
	struct rdx_wc wc[4];
	struct rdx_wr w;
	struct pair p;
	uint8_t *a, *b;
	int i;

	pair_make(&p, &qconf, NULL);
	m0 = rdx_dev_mem_alloc(dev, 65536, RDX_MEM_HOST, RDX_ACCESS_ALL);
	m1 = rdx_dev_mem_alloc(dev, 65536, RDX_MEM_HOST, RDX_ACCESS_ALL);
	CU_ASSERT_FATAL(m0 != NULL && m1 != NULL);
	a = m0->addr;
	b = m1->addr;
	for (i = 0; i < 4096; i++)
		a[i] = (uint8_t)(i * 7 + 1);
	/* WRITE gathering 3 SGEs into one contiguous remote range */
	sge[0] = (struct rdx_sge){ m0->iova, 100, m0->lkey };
	sge[1] = (struct rdx_sge){ m0->iova + 1000, 200, m0->lkey };
	sge[2] = (struct rdx_sge){ m0->iova + 3000, 1000, m0->lkey };
	w = wr_make(11, RDX_OP_WRITE, sge, 3, m1->iova + 8, m1->rkey, RDX_WR_SIGNALED);
	CU_ASSERT_EQUAL(rdx_qp_post_burst(p.qp[0], &w, 1), 1);
	CU_ASSERT_EQUAL_FATAL(poll_n(p.cq[0], wc, 1), 1);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc[0].wr_id, 11);
	CU_ASSERT_EQUAL(wc[0].opcode, RDX_WC_WRITE);
	CU_ASSERT(memcmp(b + 8, a, 100) == 0);
	CU_ASSERT(memcmp(b + 108, a + 1000, 200) == 0);
	CU_ASSERT(memcmp(b + 308, a + 3000, 1000) == 0);
	CU_ASSERT_EQUAL(b[7], 0);
	CU_ASSERT_EQUAL(b[1308], 0);
	/* READ back scattering into 2 SGEs */
	sge[0] = (struct rdx_sge){ m0->iova + 8192, 500, m0->lkey };
	sge[1] = (struct rdx_sge){ m0->iova + 16384, 808, m0->lkey };
	w = wr_make(12, RDX_OP_READ, sge, 2, m1->iova + 8, m1->rkey, RDX_WR_SIGNALED);
	CU_ASSERT_EQUAL(rdx_qp_post_burst(p.qp[0], &w, 1), 1);
	CU_ASSERT_EQUAL_FATAL(poll_n(p.cq[0], wc, 1), 1);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc[0].opcode, RDX_WC_READ);
	CU_ASSERT_EQUAL(wc[0].byte_len, 1308);
	CU_ASSERT(memcmp(a + 8192, b + 8, 500) == 0);
	CU_ASSERT(memcmp(a + 16384, b + 508, 800) == 0);
	/* inline WRITE of 100 bytes (> 64 B: two WQEBBs) */
	sge[0] = (struct rdx_sge){ m0->iova + 200, 100, 0 };
	w = wr_make(13, RDX_OP_WRITE, sge, 1, m1->iova + 40000, m1->rkey,
		    RDX_WR_SIGNALED | RDX_WR_INLINE);
	CU_ASSERT_EQUAL(rdx_qp_post_burst(p.qp[0], &w, 1), 1);
	CU_ASSERT_EQUAL_FATAL(poll_n(p.cq[0], wc, 1), 1);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	CU_ASSERT(memcmp(b + 40000, a + 200, 100) == 0);
	CU_ASSERT_EQUAL(poll_extra(p.cq[1]), 0);
	rdx_dev_mem_free(m0);
	rdx_dev_mem_free(m1);
	pair_free(&p);
}

static void
test_send_recv_imm(void)
{
	struct rdx_mem *m0, *m1;
	struct rdx_sge ss[2], rs[4];
	struct rdx_recv_wr r[3];
	struct rdx_wc wc[4];
	struct rdx_wr w[3];
	struct pair p;
	uint8_t *a, *b;
	int i;

	pair_make(&p, &qconf, NULL);
	m0 = rdx_dev_mem_alloc(dev, 16384, RDX_MEM_HOST, RDX_ACCESS_ALL);
	m1 = rdx_dev_mem_alloc(dev, 16384, RDX_MEM_HOST, RDX_ACCESS_ALL);
	CU_ASSERT_FATAL(m0 != NULL && m1 != NULL);
	a = m0->addr;
	b = m1->addr;
	for (i = 0; i < 4096; i++)
		a[i] = (uint8_t)(i ^ 0x5a);
	/* receives: one scattered over 3 SGEs, two plain */
	rs[0] = (struct rdx_sge){ m1->iova, 10, m1->lkey };
	rs[1] = (struct rdx_sge){ m1->iova + 100, 20, m1->lkey };
	rs[2] = (struct rdx_sge){ m1->iova + 200, 1000, m1->lkey };
	r[0] = (struct rdx_recv_wr){ .wr_id = 100, .sge = rs, .num_sge = 3 };
	rs[3] = (struct rdx_sge){ m1->iova + 2000, 1000, m1->lkey };
	r[1] = (struct rdx_recv_wr){ .wr_id = 101, .sge = &rs[3], .num_sge = 1 };
	r[2] = (struct rdx_recv_wr){ .wr_id = 102, .sge = &rs[3], .num_sge = 1 };
	CU_ASSERT_EQUAL(rdx_qp_post_recv_burst(p.qp[1], r, 3), 3);
	ss[0] = (struct rdx_sge){ m0->iova, 25, m0->lkey };
	ss[1] = (struct rdx_sge){ m0->iova + 500, 15, m0->lkey };
	w[0] = wr_make(1, RDX_OP_SEND, ss, 2, 0, 0, RDX_WR_SIGNALED);
	w[1] = wr_make(2, RDX_OP_SEND_IMM, ss, 1, 0, 0, RDX_WR_SIGNALED);
	w[1].imm = htobe32(0xdeadbeef);
	w[2] = wr_make(3, RDX_OP_WRITE_IMM, ss, 1, m1->iova + 8000, m1->rkey, RDX_WR_SIGNALED);
	w[2].imm = htobe32(0x01020304);
	CU_ASSERT_EQUAL(rdx_qp_post_burst(p.qp[0], w, 3), 3);
	CU_ASSERT_EQUAL_FATAL(poll_n(p.cq[0], wc, 3), 3);
	for (i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(wc[i].status, IBV_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc[i].wr_id, (uint64_t)i + 1);
	}
	CU_ASSERT_EQUAL(wc[0].opcode, RDX_WC_SEND);
	CU_ASSERT_EQUAL_FATAL(poll_n(p.cq[1], wc, 3), 3);
	CU_ASSERT_EQUAL(wc[0].wr_id, 100);
	CU_ASSERT_EQUAL(wc[0].opcode, RDX_WC_RECV);
	CU_ASSERT_EQUAL(wc[0].byte_len, 40);
	CU_ASSERT_EQUAL(wc[0].qp_num, p.qp[1]->qp_num);
	CU_ASSERT(memcmp(b, a, 10) == 0);
	CU_ASSERT(memcmp(b + 100, a + 10, 15) == 0);
	CU_ASSERT(memcmp(b + 115, a + 500, 5) == 0);
	CU_ASSERT(memcmp(b + 200, a + 505, 10) == 0);
	CU_ASSERT_EQUAL(wc[1].wr_id, 101);
	CU_ASSERT_EQUAL(wc[1].opcode, RDX_WC_RECV_IMM);
	CU_ASSERT_EQUAL(wc[1].imm, htobe32(0xdeadbeef));
	CU_ASSERT_EQUAL(wc[1].byte_len, 25);
	CU_ASSERT_EQUAL(wc[2].wr_id, 102);
	CU_ASSERT_EQUAL(wc[2].opcode, RDX_WC_RECV_WRITE_IMM);
	CU_ASSERT_EQUAL(wc[2].imm, htobe32(0x01020304));
	CU_ASSERT_EQUAL(wc[2].byte_len, 25);
	CU_ASSERT(memcmp(b + 8000, a, 25) == 0);
	rdx_dev_mem_free(m0);
	rdx_dev_mem_free(m1);
	pair_free(&p);
}

static void
test_atomics(void)
{
	struct rdx_mem *m0, *m1;
	struct rdx_sge s;
	struct rdx_wc wc[2];
	struct rdx_wr w;
	struct pair p;
	uint64_t *t, *res;

	pair_make(&p, &qconf, NULL);
	m0 = rdx_dev_mem_alloc(dev, 4096, RDX_MEM_HOST, RDX_ACCESS_ALL);
	m1 = rdx_dev_mem_alloc(dev, 4096, RDX_MEM_HOST, RDX_ACCESS_ALL);
	CU_ASSERT_FATAL(m0 != NULL && m1 != NULL);
	t = (uint64_t *)m1->addr;
	res = (uint64_t *)m0->addr;
	t[1] = 0x1122334455667788ULL;
	s = (struct rdx_sge){ m0->iova, 8, m0->lkey };
	w = wr_make(1, RDX_OP_FAA, &s, 1, m1->iova + 8, m1->rkey, RDX_WR_SIGNALED);
	w.compare_add = 0x10;
	CU_ASSERT_EQUAL(rdx_qp_post_burst(p.qp[0], &w, 1), 1);
	CU_ASSERT_EQUAL_FATAL(poll_n(p.cq[0], wc, 1), 1);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc[0].opcode, RDX_WC_FAA);
	CU_ASSERT_EQUAL(wc[0].byte_len, 8);
	CU_ASSERT_EQUAL(res[0], 0x1122334455667788ULL); /* host order */
	CU_ASSERT_EQUAL(t[1], 0x1122334455667798ULL);
	/* CAS failing, then succeeding */
	w = wr_make(2, RDX_OP_CAS, &s, 1, m1->iova + 8, m1->rkey, RDX_WR_SIGNALED);
	w.compare_add = 5;
	w.swap = 7;
	CU_ASSERT_EQUAL(rdx_qp_post_burst(p.qp[0], &w, 1), 1);
	CU_ASSERT_EQUAL_FATAL(poll_n(p.cq[0], wc, 1), 1);
	CU_ASSERT_EQUAL(wc[0].opcode, RDX_WC_CAS);
	CU_ASSERT_EQUAL(res[0], 0x1122334455667798ULL);
	CU_ASSERT_EQUAL(t[1], 0x1122334455667798ULL);
	w.compare_add = 0x1122334455667798ULL;
	CU_ASSERT_EQUAL(rdx_qp_post_burst(p.qp[0], &w, 1), 1);
	CU_ASSERT_EQUAL_FATAL(poll_n(p.cq[0], wc, 1), 1);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(t[1], 7);
	rdx_dev_mem_free(m0);
	rdx_dev_mem_free(m1);
	pair_free(&p);
}

/* One doorbell per burst, counted by the model; NOPs; selective signaling
 * retirement. */
static void
test_doorbells_signaling(void)
{
	struct rdx_qp_conf qc = qconf;
	struct rdx_sw_stats s0, s1;
	struct rdx_wc wc[8];
	struct rdx_wr w[8];
	struct pair p;
	int i, j;

	qc.sig_interval = 4;
	pair_make(&p, &qc, NULL);
	for (i = 0; i < 8; i++)
		w[i] = wr_make(1000 + (uint64_t)i, RDX_OP_NOP, NULL, 0, 0, 0, 0);
	CU_ASSERT(rdx_sw_stats_get(dev, &s0) == 0);
	CU_ASSERT_EQUAL(rdx_qp_post_burst(p.qp[0], w, 8), 8);
	CU_ASSERT_EQUAL_FATAL(poll_n(p.cq[0], wc, 2), 2);
	CU_ASSERT(rdx_sw_stats_get(dev, &s1) == 0);
	CU_ASSERT_EQUAL(s1.doorbells - s0.doorbells, 1);
	CU_ASSERT_EQUAL(s1.wqes - s0.wqes, 8);
	CU_ASSERT_EQUAL(s1.cqes - s0.cqes, 2);
	CU_ASSERT_EQUAL(s1.device_errors, 0);
	/* every 4th is signaled: two CQEs, each retiring 4 */
	CU_ASSERT_EQUAL(wc[0].retired, 4);
	CU_ASSERT_EQUAL(wc[0].wr_id, 1003);
	CU_ASSERT_EQUAL(wc[1].retired, 4);
	CU_ASSERT_EQUAL(wc[1].wr_id, 1007);
	for (j = 0; j < 4; j++)
		CU_ASSERT_EQUAL(rdx_qp_retired_wr_id(p.qp[0], &wc[1], (uint16_t)j),
				1004 + (uint64_t)j);
	CU_ASSERT_EQUAL(poll_extra(p.cq[0]), 0);
	/* three bursts, each polled: three doorbells; a single-WQE burst of
	 * a small WQE goes by BlueFlame */
	CU_ASSERT(rdx_sw_stats_get(dev, &s0) == 0);
	for (i = 0; i < 3; i++) {
		w[0] = wr_make(1, RDX_OP_NOP, NULL, 0, 0, 0, RDX_WR_SIGNALED);
		CU_ASSERT_EQUAL(rdx_qp_post_burst(p.qp[0], w, 1), 1);
		CU_ASSERT_EQUAL(poll_n(p.cq[0], wc, 1), 1);
	}
	CU_ASSERT(rdx_sw_stats_get(dev, &s1) == 0);
	CU_ASSERT_EQUAL(s1.doorbells - s0.doorbells, 3);
	CU_ASSERT_EQUAL(s1.device_errors, 0);
	pair_free(&p);
}

/* Fill and wrap the SQ many times with WQEs of different sizes. */
static void
test_wrap(void)
{
	struct rdx_qp_conf qc = qconf;
	struct rdx_mem *m0, *m1;
	struct rdx_sw_stats st;
	struct rdx_sge s[3];
	struct rdx_wc wc[16];
	struct rdx_wr w[5];
	struct pair p;
	uint8_t *a, *b;
	int it, i, got;

	qc.sq_depth = 8;
	qc.sig_interval = 8;
	qc.max_inline = 200;
	pair_make(&p, &qc, NULL);
	m0 = rdx_dev_mem_alloc(dev, 8192, RDX_MEM_HOST, RDX_ACCESS_ALL);
	m1 = rdx_dev_mem_alloc(dev, 8192, RDX_MEM_HOST, RDX_ACCESS_ALL);
	CU_ASSERT_FATAL(m0 != NULL && m1 != NULL);
	a = m0->addr;
	b = m1->addr;
	for (it = 0; it < 200; it++) {
		for (i = 0; i < 2048; i++)
			a[i] = (uint8_t)(i + it);
		s[0] = (struct rdx_sge){ m0->iova, (uint32_t)(1 + it % 190), m0->lkey };
		s[1] = (struct rdx_sge){ m0->iova + 1024, 33, m0->lkey };
		s[2] = (struct rdx_sge){ m0->iova + 1500, 7, m0->lkey };
		w[0] = wr_make(1, RDX_OP_WRITE, s, 1, m1->iova, m1->rkey, RDX_WR_INLINE);
		w[1] = wr_make(2, RDX_OP_WRITE, s, 3, m1->iova + 2048, m1->rkey, 0);
		w[2] = wr_make(3, RDX_OP_NOP, NULL, 0, 0, 0, 0);
		w[3] = wr_make(4, RDX_OP_WRITE, &s[1], 1, m1->iova + 4096, m1->rkey,
			       RDX_WR_INLINE);
		w[4] = wr_make(5, RDX_OP_WRITE, s, 2, m1->iova + 6000, m1->rkey,
			       RDX_WR_SIGNALED);
		CU_ASSERT_EQUAL_FATAL(rdx_qp_post_burst(p.qp[0], w, 5), 5);
		got = poll_n(p.cq[0], wc, 1);
		CU_ASSERT_EQUAL_FATAL(got, 1);
		CU_ASSERT_EQUAL_FATAL(wc[0].status, IBV_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc[0].retired, 5);
		CU_ASSERT(memcmp(b, a, s[0].length) == 0);
		CU_ASSERT(memcmp(b + 2048 + s[0].length, a + 1024, 33) == 0);
		CU_ASSERT(memcmp(b + 4096, a + 1024, 33) == 0);
		CU_ASSERT(memcmp(b + 6000 + s[0].length, a + 1024, 33) == 0);
	}
	CU_ASSERT(rdx_sw_stats_get(dev, &st) == 0);
	CU_ASSERT_EQUAL(st.device_errors, 0);
	rdx_dev_mem_free(m0);
	rdx_dev_mem_free(m1);
	pair_free(&p);
}

/* Post a failing WR followed by 3 good ones: the failing one reports
 * status, the rest are flushed, one CQE each. */
static void
check_error(struct pair *p, struct rdx_wr *bad, uint8_t status)
{
	struct rdx_wr w[4];
	struct rdx_wc wc[8];
	int i;

	w[0] = *bad;
	w[0].wr_id = 50;
	for (i = 1; i < 4; i++)
		w[i] = wr_make(50 + (uint64_t)i, RDX_OP_NOP, NULL, 0, 0, 0, 0);
	CU_ASSERT_EQUAL_FATAL(rdx_qp_post_burst(p->qp[0], w, 4), 4);
	CU_ASSERT_EQUAL_FATAL(poll_n(p->cq[0], wc, 4), 4);
	CU_ASSERT_EQUAL(wc[0].status, status);
	CU_ASSERT_EQUAL(wc[0].wr_id, 50);
	for (i = 1; i < 4; i++) {
		CU_ASSERT_EQUAL(wc[i].status, IBV_WC_WR_FLUSH_ERR);
		CU_ASSERT_EQUAL(wc[i].wr_id, 50 + (uint64_t)i);
	}
	CU_ASSERT_EQUAL(rdx_sw_qp_state(p->qp[0]), RDX_SW_QPS_ERR);
	/* later posts are flushed too */
	w[0] = wr_make(60, RDX_OP_NOP, NULL, 0, 0, 0, 0);
	CU_ASSERT_EQUAL(rdx_qp_post_burst(p->qp[0], w, 1), 1);
	CU_ASSERT_EQUAL_FATAL(poll_n(p->cq[0], wc, 1), 1);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_WR_FLUSH_ERR);
	CU_ASSERT_EQUAL(wc[0].wr_id, 60);
}

static void
test_errors_local_remote(void)
{
	struct rdx_mem *m0, *m1, *ro;
	struct rdx_sw_stats st;
	struct rdx_sge s;
	struct rdx_wr w;
	struct pair p;

	m0 = rdx_dev_mem_alloc(dev, 4096, RDX_MEM_HOST, RDX_ACCESS_ALL);
	m1 = rdx_dev_mem_alloc(dev, 4096, RDX_MEM_HOST, RDX_ACCESS_ALL);
	ro = rdx_dev_mem_alloc(dev, 4096, RDX_MEM_HOST,
			       RDX_ACCESS_LOCAL_WRITE | RDX_ACCESS_REMOTE_READ);
	CU_ASSERT_FATAL(m0 != NULL && m1 != NULL && ro != NULL);

	/* bad lkey */
	pair_make(&p, &qconf, NULL);
	s = (struct rdx_sge){ m0->iova, 64, m0->lkey + 1 };
	w = wr_make(0, RDX_OP_WRITE, &s, 1, m1->iova, m1->rkey, 0);
	check_error(&p, &w, IBV_WC_LOC_PROT_ERR);
	CU_ASSERT_EQUAL(rdx_sw_qp_state(p.qp[1]), RDX_SW_QPS_RTS); /* local error */
	pair_free(&p);
	/* local bounds */
	pair_make(&p, &qconf, NULL);
	s = (struct rdx_sge){ m0->iova + 4000, 200, m0->lkey };
	w = wr_make(0, RDX_OP_WRITE, &s, 1, m1->iova, m1->rkey, 0);
	check_error(&p, &w, IBV_WC_LOC_PROT_ERR);
	pair_free(&p);
	/* bad rkey: the peer goes to error too */
	pair_make(&p, &qconf, NULL);
	s = (struct rdx_sge){ m0->iova, 64, m0->lkey };
	w = wr_make(0, RDX_OP_WRITE, &s, 1, m1->iova, m1->rkey ^ 0x300, 0);
	check_error(&p, &w, IBV_WC_REM_ACCESS_ERR);
	CU_ASSERT_EQUAL(rdx_sw_qp_state(p.qp[1]), RDX_SW_QPS_ERR);
	pair_free(&p);
	/* remote bounds */
	pair_make(&p, &qconf, NULL);
	w = wr_make(0, RDX_OP_READ, &s, 1, m1->iova + 4090, m1->rkey, 0);
	check_error(&p, &w, IBV_WC_REM_ACCESS_ERR);
	pair_free(&p);
	/* access flags: WRITE into a region without REMOTE_WRITE */
	pair_make(&p, &qconf, NULL);
	w = wr_make(0, RDX_OP_WRITE, &s, 1, ro->iova, ro->rkey, 0);
	check_error(&p, &w, IBV_WC_REM_ACCESS_ERR);
	pair_free(&p);
	/* ... and an atomic there; and a READ into a local region without
	 * LOCAL_WRITE */
	pair_make(&p, &qconf, NULL);
	s = (struct rdx_sge){ m0->iova, 8, m0->lkey };
	w = wr_make(0, RDX_OP_FAA, &s, 1, ro->iova, ro->rkey, 0);
	check_error(&p, &w, IBV_WC_REM_ACCESS_ERR);
	pair_free(&p);
	/* misaligned atomic */
	pair_make(&p, &qconf, NULL);
	w = wr_make(0, RDX_OP_CAS, &s, 1, m1->iova + 4, m1->rkey, 0);
	check_error(&p, &w, IBV_WC_REM_ACCESS_ERR);
	pair_free(&p);
	CU_ASSERT(rdx_sw_stats_get(dev, &st) == 0);
	CU_ASSERT_EQUAL(st.device_errors, 0);
	rdx_dev_mem_free(m0);
	rdx_dev_mem_free(m1);
	rdx_dev_mem_free(ro);
}

static void
test_errors_recv(void)
{
	struct rdx_qp_conn_attr ca = { .rnr_retry = 2, .min_rnr_timer = 1 };
	struct rdx_mem *m0, *m1;
	struct rdx_sw_stats s0, s1;
	struct rdx_recv_wr r[2];
	struct rdx_sge s, rs;
	struct rdx_wc wc[8];
	struct rdx_wr w;
	struct pair p;

	m0 = rdx_dev_mem_alloc(dev, 4096, RDX_MEM_HOST, RDX_ACCESS_ALL);
	m1 = rdx_dev_mem_alloc(dev, 4096, RDX_MEM_HOST, RDX_ACCESS_ALL);
	CU_ASSERT_FATAL(m0 != NULL && m1 != NULL);
	s = (struct rdx_sge){ m0->iova, 100, m0->lkey };

	/* receive too small: requester REM_INV_REQ, responder LOC_LEN, the
	 * responder's other receive is flushed */
	pair_make(&p, &qconf, NULL);
	rs = (struct rdx_sge){ m1->iova, 50, m1->lkey };
	r[0] = (struct rdx_recv_wr){ .wr_id = 7, .sge = &rs, .num_sge = 1 };
	r[1] = (struct rdx_recv_wr){ .wr_id = 8, .sge = &rs, .num_sge = 1 };
	CU_ASSERT_EQUAL(rdx_qp_post_recv_burst(p.qp[1], r, 2), 2);
	w = wr_make(0, RDX_OP_SEND, &s, 1, 0, 0, 0);
	check_error(&p, &w, IBV_WC_REM_INV_REQ_ERR);
	CU_ASSERT_EQUAL_FATAL(poll_n(p.cq[1], wc, 2), 2);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_LOC_LEN_ERR);
	CU_ASSERT_EQUAL(wc[0].wr_id, 7);
	CU_ASSERT_EQUAL(wc[1].status, IBV_WC_WR_FLUSH_ERR);
	CU_ASSERT_EQUAL(wc[1].wr_id, 8);
	pair_free(&p);

	/* RNR: no receive, 2 retries of 10 us, then RNR_RETRY_EXC */
	pair_make(&p, &qconf, &ca);
	CU_ASSERT(rdx_sw_stats_get(dev, &s0) == 0);
	w = wr_make(0, RDX_OP_SEND, &s, 1, 0, 0, 0);
	check_error(&p, &w, IBV_WC_RNR_RETRY_EXC_ERR);
	CU_ASSERT(rdx_sw_stats_get(dev, &s1) == 0);
	CU_ASSERT_EQUAL(s1.rnr_naks - s0.rnr_naks, 3);
	pair_free(&p);

	/* RNR then the receive arrives: success (rnr_retry 7 = forever) */
	ca.rnr_retry = 7;
	pair_make(&p, &qconf, &ca);
	w = wr_make(9, RDX_OP_WRITE_IMM, &s, 1, m1->iova + 1000, m1->rkey, RDX_WR_SIGNALED);
	CU_ASSERT_EQUAL(rdx_qp_post_burst(p.qp[0], &w, 1), 1);
	CU_ASSERT_EQUAL(poll_extra(p.cq[0]), 0);
	CU_ASSERT(rdx_sw_stats_get(dev, &s0) == 0);
	CU_ASSERT(s0.rnr_naks > s1.rnr_naks);
	CU_ASSERT_EQUAL(rdx_qp_post_recv_burst(p.qp[1], r, 1), 1);
	CU_ASSERT_EQUAL_FATAL(poll_n(p.cq[0], wc, 1), 1);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(poll_n(p.cq[1], wc, 1), 1);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc[0].opcode, RDX_WC_RECV_WRITE_IMM);
	CU_ASSERT_EQUAL(wc[0].byte_len, 100);
	pair_free(&p);
	rdx_dev_mem_free(m0);
	rdx_dev_mem_free(m1);
}

/* A CQ smaller than the completions asked for: the model refuses to
 * overwrite, counts the overrun, and the QP goes to error. */
static void
test_cq_overrun(void)
{
	struct rdx_qp_conf qc = qconf;
	struct rdx_sw_stats st, st0;
	struct rdx_wc wc[16];
	struct rdx_wr w[8];
	struct pair p;
	int i, got;

	qc.sq_depth = 16;
	qc.sig_interval = 16;
	pair_make_on(dev, &p, &qc, NULL, 4); /* 8 CQEs */
	for (i = 0; i < 8; i++)
		w[i] = wr_make((uint64_t)i, RDX_OP_NOP, NULL, 0, 0, 0, RDX_WR_SIGNALED);
	CU_ASSERT(rdx_sw_stats_get(dev, &st0) == 0);
	CU_ASSERT_EQUAL(rdx_qp_post_burst(p.qp[0], w, 8), 8);
	/* executed by the post (inline progress) or by this call */
	rdx_sw_progress(dev);
	CU_ASSERT(rdx_sw_stats_get(dev, &st) == 0);
	CU_ASSERT_EQUAL(st.wqes - st0.wqes, 8);
	CU_ASSERT_EQUAL(rdx_qp_post_burst(p.qp[0], w, 4), 4);
	rdx_sw_progress(dev);
	CU_ASSERT(rdx_sw_cq_overruns(p.cq[0]) >= 1);
	CU_ASSERT(rdx_sw_stats_get(dev, &st) == 0);
	CU_ASSERT(st.cq_overruns >= 1);
	CU_ASSERT_EQUAL(rdx_sw_qp_state(p.qp[0]), RDX_SW_QPS_ERR);
	/* the 8 first CQEs are intact */
	got = poll_n(p.cq[0], wc, 8);
	CU_ASSERT_EQUAL(got, 8);
	for (i = 0; i < got; i++) {
		CU_ASSERT_EQUAL(wc[i].status, IBV_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc[i].wr_id, (uint64_t)i);
	}
	/* none lost: once there is room, the 4 others are flushed, the one
	 * whose CQE did not fit included */
	got = poll_n(p.cq[0], wc, 4);
	CU_ASSERT_EQUAL(got, 4);
	for (i = 0; i < got; i++) {
		CU_ASSERT_EQUAL(wc[i].status, IBV_WC_WR_FLUSH_ERR);
		CU_ASSERT_EQUAL(wc[i].wr_id, (uint64_t)i);
	}
	CU_ASSERT_EQUAL(poll_extra(p.cq[0]), 0);
	pair_free(&p);
}

static void
test_fault_injection(void)
{
	struct rdx_qp_conn_attr fast_ack = { .timeout = 8, .retry_cnt = 3 };
	struct rdx_sw_stats s0, s1;
	struct rdx_mem *m0, *m1;
	struct rdx_sge s;
	struct rdx_wc wc[8];
	struct rdx_wr w[4];
	struct pair p;
	int i;

	m0 = rdx_dev_mem_alloc(dev, 4096, RDX_MEM_HOST, RDX_ACCESS_ALL);
	m1 = rdx_dev_mem_alloc(dev, 4096, RDX_MEM_HOST, RDX_ACCESS_ALL);
	CU_ASSERT_FATAL(m0 != NULL && m1 != NULL);
	s = (struct rdx_sge){ m0->iova, 64, m0->lkey };
	/* the 2nd WQE fails with 0x22 (REM_ABORT) */
	pair_make(&p, &qconf, NULL);
	CU_ASSERT(rdx_sw_qp_inject_error(p.qp[0], 2, 0x22) == 0);
	for (i = 0; i < 4; i++)
		w[i] = wr_make((uint64_t)i, RDX_OP_WRITE, &s, 1, m1->iova, m1->rkey,
			       RDX_WR_SIGNALED);
	CU_ASSERT_EQUAL(rdx_qp_post_burst(p.qp[0], w, 4), 4);
	CU_ASSERT_EQUAL_FATAL(poll_n(p.cq[0], wc, 4), 4);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc[1].status, IBV_WC_REM_ABORT_ERR);
	CU_ASSERT_EQUAL(wc[1].wr_id, 1);
	CU_ASSERT_EQUAL(wc[2].status, IBV_WC_WR_FLUSH_ERR);
	CU_ASSERT_EQUAL(wc[3].status, IBV_WC_WR_FLUSH_ERR);
	pair_free(&p);
	/* the peer vanishes: 3 retries after 1 ms ACK timeouts, RETRY_EXC */
	pair_make(&p, &qconf, &fast_ack);
	CU_ASSERT(rdx_sw_stats_get(dev, &s0) == 0);
	CU_ASSERT(rdx_sw_qp_peer_vanish(p.qp[0], true) == 0);
	w[0] = wr_make(0, RDX_OP_READ, &s, 1, m1->iova, m1->rkey, 0);
	check_error(&p, &w[0], IBV_WC_RETRY_EXC_ERR);
	CU_ASSERT(rdx_sw_stats_get(dev, &s1) == 0);
	CU_ASSERT_EQUAL(s1.retries - s0.retries, 3);
	/* one WQE executed (retries not re-counted), the rest flushed */
	CU_ASSERT_EQUAL(s1.wqes - s0.wqes, 1);
	pair_free(&p);
	/* the peer QP is destroyed: RETRY_EXC as well */
	pair_make(&p, &qconf, &fast_ack);
	CU_ASSERT(rdx_qp_destroy(p.qp[1]) == 0);
	w[0] = wr_make(0, RDX_OP_WRITE, &s, 1, m1->iova, m1->rkey, RDX_WR_SIGNALED);
	CU_ASSERT_EQUAL(rdx_qp_post_burst(p.qp[0], w, 1), 1);
	CU_ASSERT_EQUAL_FATAL(poll_n(p.cq[0], wc, 1), 1);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_RETRY_EXC_ERR);
	CU_ASSERT(rdx_qp_destroy(p.qp[0]) == 0);
	CU_ASSERT(rdx_cq_destroy(p.cq[0]) == 0);
	CU_ASSERT(rdx_cq_destroy(p.cq[1]) == 0);
	rdx_dev_mem_free(m0);
	rdx_dev_mem_free(m1);
}

/* The QP goes to error in the middle of a burst (the 10th of 32 WRITEs
 * fails with REM_ACCESS, which also moves the peer to error) while the
 * peer has receives posted: every WR, sent or received, completes exactly
 * once, in order -- 9 successes, the error, 22 flushes, and the peer's 4
 * receives flushed -- and nothing more arrives. */
static void
test_error_mid_burst(void)
{
	struct rdx_mem *m0, *m1;
	struct rdx_recv_wr r[4];
	struct rdx_sge s, rs;
	struct rdx_wc wc[40];
	struct rdx_wr w[32];
	struct pair p;
	int i, got;

	m0 = rdx_dev_mem_alloc(dev, 4096, RDX_MEM_HOST, RDX_ACCESS_ALL);
	m1 = rdx_dev_mem_alloc(dev, 4096, RDX_MEM_HOST, RDX_ACCESS_ALL);
	CU_ASSERT_FATAL(m0 != NULL && m1 != NULL);
	pair_make(&p, &qconf, NULL);
	rs = (struct rdx_sge){ m1->iova + 2048, 64, m1->lkey };
	for (i = 0; i < 4; i++)
		r[i] = (struct rdx_recv_wr){ .wr_id = 100 + (uint64_t)i, .sge = &rs, .num_sge = 1 };
	CU_ASSERT_EQUAL(rdx_qp_post_recv_burst(p.qp[1], r, 4), 4);
	CU_ASSERT(rdx_sw_qp_inject_error(p.qp[0], 10, 0x13) == 0);
	s = (struct rdx_sge){ m0->iova, 64, m0->lkey };
	for (i = 0; i < 32; i++)
		w[i] = wr_make((uint64_t)i, RDX_OP_WRITE, &s, 1, m1->iova + 64 * (uint64_t)(i % 16),
			       m1->rkey, RDX_WR_SIGNALED);
	CU_ASSERT_EQUAL(rdx_qp_post_burst(p.qp[0], w, 32), 32);
	got = poll_n(p.cq[0], wc, 32);
	CU_ASSERT_EQUAL_FATAL(got, 32);
	for (i = 0; i < got; i++) {
		CU_ASSERT_EQUAL(wc[i].wr_id, (uint64_t)i);
		CU_ASSERT_EQUAL(wc[i].status, i < 9 ? IBV_WC_SUCCESS :
				i == 9 ? IBV_WC_REM_ACCESS_ERR : IBV_WC_WR_FLUSH_ERR);
	}
	CU_ASSERT_EQUAL(rdx_sw_qp_state(p.qp[0]), RDX_SW_QPS_ERR);
	CU_ASSERT_EQUAL(rdx_sw_qp_state(p.qp[1]), RDX_SW_QPS_ERR);
	got = poll_n(p.cq[1], wc, 4);
	CU_ASSERT_EQUAL_FATAL(got, 4);
	for (i = 0; i < got; i++) {
		CU_ASSERT_EQUAL(wc[i].wr_id, 100 + (uint64_t)i);
		CU_ASSERT_EQUAL(wc[i].status, IBV_WC_WR_FLUSH_ERR);
	}
	CU_ASSERT_EQUAL(poll_extra(p.cq[0]), 0);
	CU_ASSERT_EQUAL(poll_extra(p.cq[1]), 0);
	pair_free(&p);
	rdx_dev_mem_free(m0);
	rdx_dev_mem_free(m1);
}

static void
test_dm(void)
{
	struct rdx_mem *m0, *dm;
	uint64_t v = 40, out = 0, *res;
	struct rdx_sge s;
	struct rdx_wc wc[2];
	struct rdx_wr w;
	struct pair p;
	int i;

	m0 = rdx_dev_mem_alloc(dev, 4096, RDX_MEM_HOST, RDX_ACCESS_ALL);
	dm = rdx_dev_mem_alloc(dev, 4096, RDX_MEM_DM, RDX_ACCESS_ALL);
	CU_ASSERT_FATAL(m0 != NULL && dm != NULL);
	CU_ASSERT(dm->addr == NULL);
	CU_ASSERT_EQUAL(dm->iova, 0);
	CU_ASSERT(rdx_dev_mem_copy_to(dm, 64, &v, 8) == 0);
	CU_ASSERT(rdx_dev_mem_copy_to(dm, 4090, &v, 8) == -ERANGE);
	CU_ASSERT(rdx_dev_mem_alloc(dev, 1 << 20, RDX_MEM_DM, RDX_ACCESS_ALL) == NULL);
	pair_make(&p, &qconf, NULL);
	res = (uint64_t *)m0->addr;
	s = (struct rdx_sge){ m0->iova, 8, m0->lkey };
	for (i = 0; i < 10; i++) {
		w = wr_make((uint64_t)i, RDX_OP_FAA, &s, 1, 64, dm->rkey, RDX_WR_SIGNALED);
		w.compare_add = 2;
		CU_ASSERT_EQUAL(rdx_qp_post_burst(p.qp[0], &w, 1), 1);
		CU_ASSERT_EQUAL_FATAL(poll_n(p.cq[0], wc, 1), 1);
		CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
		CU_ASSERT_EQUAL(*res, 40 + 2 * (uint64_t)i);
	}
	CU_ASSERT(rdx_dev_mem_copy_from(dm, 64, &out, 8) == 0);
	CU_ASSERT_EQUAL(out, 60);
	/* WRITE into DM and READ back */
	memset(m0->addr, 0xab, 128);
	s = (struct rdx_sge){ m0->iova, 128, m0->lkey };
	w = wr_make(1, RDX_OP_WRITE, &s, 1, 1024, dm->rkey, RDX_WR_SIGNALED);
	CU_ASSERT_EQUAL(rdx_qp_post_burst(p.qp[0], &w, 1), 1);
	CU_ASSERT_EQUAL_FATAL(poll_n(p.cq[0], wc, 1), 1);
	CU_ASSERT(rdx_dev_mem_copy_from(dm, 1024 + 127, &out, 1) == 0);
	CU_ASSERT_EQUAL(out & 0xff, 0xab);
	pair_free(&p);
	rdx_dev_mem_free(m0);
	rdx_dev_mem_free(dm);
}

/* Registered process memory works for peers in the same process. */
static void
test_mem_reg(void)
{
	static uint8_t buf[2][4096];
	struct rdx_mem *m0, *m1;
	struct rdx_sge s;
	struct rdx_wc wc[2];
	struct rdx_wr w;
	struct pair p;

	m0 = rdx_dev_mem_reg(dev, buf[0], sizeof(buf[0]), RDX_ACCESS_ALL);
	m1 = rdx_dev_mem_reg(dev, buf[1], sizeof(buf[1]), RDX_ACCESS_ALL);
	CU_ASSERT_FATAL(m0 != NULL && m1 != NULL);
	memset(buf[0], 0x3c, 300);
	pair_make(&p, &qconf, NULL);
	s = (struct rdx_sge){ m0->iova, 300, m0->lkey };
	w = wr_make(1, RDX_OP_WRITE, &s, 1, m1->iova + 10, m1->rkey, RDX_WR_SIGNALED);
	CU_ASSERT_EQUAL(rdx_qp_post_burst(p.qp[0], &w, 1), 1);
	CU_ASSERT_EQUAL_FATAL(poll_n(p.cq[0], wc, 1), 1);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	CU_ASSERT(memcmp(buf[1] + 10, buf[0], 300) == 0);
	pair_free(&p);
	rdx_dev_mem_free(m0);
	rdx_dev_mem_free(m1);
}

static void
test_cq_wait(void)
{
	struct rdx_wc wc[2];
	struct rdx_wr w;
	struct pair p;

	pair_make(&p, &qconf, NULL);
	CU_ASSERT_EQUAL(rdx_cq_wait(p.cq[0], 5), -ETIMEDOUT);
	w = wr_make(1, RDX_OP_NOP, NULL, 0, 0, 0, RDX_WR_SIGNALED);
	CU_ASSERT_EQUAL(rdx_qp_post_burst(p.qp[0], &w, 1), 1);
	CU_ASSERT_EQUAL(rdx_cq_wait(p.cq[0], 5000), 0);
	CU_ASSERT_EQUAL(rdx_cq_poll_burst(p.cq[0], wc, 2), 1);
	pair_free(&p);
}

/* The same traffic with the engine on its own thread. */
static void
test_thread_mode(void)
{
	struct rdx_dev_conf dc = { .devargs = "progress=thread" };
	struct rdx_qp_conf qc = qconf;
	struct rdx_recv_wr r;
	struct rdx_mem *m0, *m1;
	struct rdx_sw_stats st;
	struct rdx_dev *td;
	struct rdx_sge s, rs;
	struct rdx_wc wc[4];
	struct rdx_wr w[2];
	struct pair p;
	int i;

	td = rdx_dev_open("sw", &dc);
	CU_ASSERT_FATAL(td != NULL);
	m0 = rdx_dev_mem_alloc(td, 4096, RDX_MEM_HOST, RDX_ACCESS_ALL);
	m1 = rdx_dev_mem_alloc(td, 4096, RDX_MEM_HOST, RDX_ACCESS_ALL);
	CU_ASSERT_FATAL(m0 != NULL && m1 != NULL);
	pair_make_on(td, &p, &qc, NULL, 64);
	s = (struct rdx_sge){ m0->iova, 64, m0->lkey };
	rs = (struct rdx_sge){ m1->iova + 1024, 64, m1->lkey };
	r = (struct rdx_recv_wr){ .wr_id = 5, .sge = &rs, .num_sge = 1 };
	for (i = 0; i < 100; i++) {
		memset(m0->addr, i, 64);
		CU_ASSERT_EQUAL(rdx_qp_post_recv_burst(p.qp[1], &r, 1), 1);
		w[0] = wr_make(1, RDX_OP_WRITE, &s, 1, m1->iova, m1->rkey, 0);
		w[1] = wr_make(2, RDX_OP_SEND, &s, 1, 0, 0, RDX_WR_SIGNALED);
		CU_ASSERT_EQUAL(rdx_qp_post_burst(p.qp[0], w, 2), 2);
		CU_ASSERT_EQUAL_FATAL(rdx_cq_wait(p.cq[1], 5000), 0);
		CU_ASSERT_EQUAL_FATAL(poll_n(p.cq[1], wc, 1), 1);
		CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc[0].wr_id, 5);
		CU_ASSERT_EQUAL(((uint8_t *)m1->addr)[1024 + 63], (uint8_t)i);
		CU_ASSERT_EQUAL(((uint8_t *)m1->addr)[63], (uint8_t)i);
		CU_ASSERT_EQUAL_FATAL(poll_n(p.cq[0], wc, 1), 1);
		CU_ASSERT_EQUAL(wc[0].retired, 2);
	}
	CU_ASSERT(rdx_sw_stats_get(td, &st) == 0);
	CU_ASSERT_EQUAL(st.device_errors, 0);
	CU_ASSERT_EQUAL(st.wqes, 200);
	/* bursts posted back to back while the engine runs: all execute */
	for (i = 0; i < 50; i++) {
		struct rdx_wr nw[4];
		int j;

		for (j = 0; j < 4; j++)
			nw[j] = wr_make((uint64_t)j, RDX_OP_NOP, NULL, 0, 0, 0,
					j == 3 ? RDX_WR_SIGNALED : 0);
		CU_ASSERT_EQUAL(rdx_qp_post_burst(p.qp[0], nw, 4), 4);
		if (i % 4 == 3)
			CU_ASSERT_EQUAL_FATAL(poll_n(p.cq[0], wc, 4), 4);
	}
	CU_ASSERT_EQUAL_FATAL(poll_n(p.cq[0], wc, 2), 2);
	CU_ASSERT(rdx_sw_stats_get(td, &st) == 0);
	CU_ASSERT_EQUAL(st.wqes, 400);
	CU_ASSERT(st.doorbells <= 150);
	pair_free(&p);
	rdx_dev_mem_free(m0);
	rdx_dev_mem_free(m1);
	CU_ASSERT(rdx_dev_close(td) == 0);
}

/* Two devices in one process: QPs of different segments connect; each
 * device's engine runs its own requesters when its CQ is polled. */
/*
 * When the engine runs: inline progress (the default) executes a burst
 * from the post that rang its doorbell, before any poll; progress=poll
 * leaves the doorbells in the register until a poll (or rdx_sw_progress)
 * takes them together; an unknown mode is refused.
 */
static void
test_progress_modes(void)
{
	struct rdx_dev_conf dc = { .devargs = "progress=poll" };
	struct rdx_qp_conf qc = qconf;
	struct rdx_sw_stats s0, s1;
	struct rdx_wc wc[8];
	struct rdx_wr w[4];
	struct rdx_dev *d2;
	struct pair p;
	int i;

	CU_ASSERT_EQUAL(rdx_sw_progress_mode_get(dev), RDX_SW_PROGRESS_INLINE);
	pair_make(&p, &qc, NULL);
	for (i = 0; i < 4; i++)
		w[i] = wr_make(100 + (uint64_t)i, RDX_OP_NOP, NULL, 0, 0, 0, RDX_WR_SIGNALED);
	CU_ASSERT(rdx_sw_stats_get(dev, &s0) == 0);
	CU_ASSERT_EQUAL(rdx_qp_post_burst(p.qp[0], w, 4), 4);
	CU_ASSERT(rdx_sw_stats_get(dev, &s1) == 0);
	CU_ASSERT_EQUAL(s1.doorbells - s0.doorbells, 1);
	CU_ASSERT_EQUAL(s1.wqes - s0.wqes, 4);
	CU_ASSERT_EQUAL(s1.cqes - s0.cqes, 4);
	CU_ASSERT_EQUAL(rdx_sw_progress(dev), 0); /* nothing left */
	CU_ASSERT_EQUAL(poll_n(p.cq[0], wc, 4), 4);
	CU_ASSERT_EQUAL(wc[3].wr_id, 103);
	CU_ASSERT_EQUAL(poll_extra(p.cq[0]), 0);
	pair_free(&p);

	d2 = rdx_dev_open("sw", &dc);
	CU_ASSERT_FATAL(d2 != NULL);
	CU_ASSERT_EQUAL(rdx_sw_progress_mode_get(d2), RDX_SW_PROGRESS_POLL);
	pair_make_on(d2, &p, &qc, NULL, 64);
	CU_ASSERT(rdx_sw_stats_get(d2, &s0) == 0);
	CU_ASSERT_EQUAL(rdx_qp_post_burst(p.qp[0], w, 4), 4);
	CU_ASSERT_EQUAL(rdx_qp_post_burst(p.qp[0], w, 4), 4);
	CU_ASSERT(rdx_sw_stats_get(d2, &s1) == 0);
	CU_ASSERT_EQUAL(s1.wqes - s0.wqes, 0);
	CU_ASSERT_EQUAL(s1.doorbells - s0.doorbells, 0);
	/* one look takes both rings and runs both bursts */
	CU_ASSERT_EQUAL(rdx_sw_progress(d2), 8);
	CU_ASSERT(rdx_sw_stats_get(d2, &s1) == 0);
	CU_ASSERT_EQUAL(s1.doorbells - s0.doorbells, 2);
	CU_ASSERT_EQUAL(s1.wqes - s0.wqes, 8);
	CU_ASSERT_EQUAL(s1.device_errors, 0);
	CU_ASSERT_EQUAL(poll_n(p.cq[0], wc, 8), 8);
	CU_ASSERT_EQUAL(wc[7].wr_id, 103);
	CU_ASSERT_EQUAL(poll_extra(p.cq[0]), 0);
	pair_free(&p);
	CU_ASSERT(rdx_dev_close(d2) == 0);

	dc.devargs = "progress=later";
	CU_ASSERT_PTR_NULL(rdx_dev_open("sw", &dc));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	CU_ASSERT_EQUAL(rdx_sw_progress_mode_get(NULL), -EINVAL);
}

static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * devargs timing=<profile> (doc/timing.md): the label, a bad profile, and
 * completions never earlier than the modelled NIC's: an 8-byte inline
 * WRITE's CQE not before two posted PCIe writes and the propagation of
 * cx6-200g (2 x 250 + 300 ns; the model's whole one-way time is ~1 us);
 * 64 x 4 KiB WRITEs not before their serialisation at 200 Gb/s. Lower
 * bounds of the model only: a slow host can only make them longer.
 */
static void
test_timing(void)
{
	struct rdx_dev_conf dc = { .devargs = "timing=cx6-200g" };
	struct rdx_qp_conf qc = qconf;
	const uint64_t v = 0x1122334455667788ULL;
	struct rdx_sge sg;
	struct rdx_wc wc[8];
	struct rdx_wr w[64];
	struct rdx_dev *d2;
	struct rdx_mem *m;
	struct pair p;
	uint64_t t0, t1;
	int i;

	CU_ASSERT_STRING_EQUAL(rdx_dev_attr_get(dev)->model, "");
	d2 = rdx_dev_open("sw", &dc);
	CU_ASSERT_FATAL(d2 != NULL);
	CU_ASSERT_STRING_EQUAL(rdx_dev_attr_get(d2)->model, "timing cx6-200g (modelled)");
	m = rdx_dev_mem_alloc(d2, 1 << 20, RDX_MEM_HOST, RDX_ACCESS_ALL);
	CU_ASSERT_FATAL(m != NULL);
	memset(m->addr, 0, 1 << 20);
	pair_make_on(d2, &p, &qc, NULL, 64);
	for (i = 0; i < 5; i++) {
		sg = (struct rdx_sge){ (uint64_t)(uintptr_t)&v, 8, 0 };
		w[0] = wr_make(1, RDX_OP_WRITE, &sg, 1, m->iova + 8 * (uint64_t)i, m->rkey,
			       RDX_WR_SIGNALED | RDX_WR_INLINE);
		t0 = mono_ns();
		CU_ASSERT_EQUAL_FATAL(rdx_qp_post_burst(p.qp[0], w, 1), 1);
		CU_ASSERT_EQUAL_FATAL(poll_n(p.cq[0], wc, 1), 1);
		t1 = mono_ns();
		CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
		CU_ASSERT(t1 - t0 >= 800);
		CU_ASSERT_EQUAL(memcmp((uint8_t *)m->addr + 8 * i, &v, 8), 0);
	}
	/* 64 x 4 KiB, the last signaled: 64 x (4096 + 82 + 16) B at 200 Gb/s */
	for (i = 0; i < 64; i++) {
		sg = (struct rdx_sge){ m->iova + 4096 * (uint64_t)i, 4096, m->lkey };
		w[i] = wr_make((uint64_t)i, RDX_OP_WRITE, &sg, 1, m->iova + 524288 + 4096 * (uint64_t)i,
			       m->rkey, i == 63 ? RDX_WR_SIGNALED : 0);
	}
	/* the WRs share the SGE slot: post one at a time */
	t0 = mono_ns();
	for (i = 0; i < 64; i++) {
		sg = (struct rdx_sge){ m->iova + 4096 * (uint64_t)i, 4096, m->lkey };
		CU_ASSERT_EQUAL_FATAL(rdx_qp_post_burst(p.qp[0], &w[i], 1), 1);
	}
	CU_ASSERT_EQUAL_FATAL(poll_n(p.cq[0], wc, 1), 1);
	t1 = mono_ns();
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc[0].wr_id, 63);
	CU_ASSERT(t1 - t0 >= 64ULL * (4096 + 82 + 16) * 8 / 200);
	CU_ASSERT_EQUAL(poll_extra(p.cq[0]), 0);
	pair_free(&p);
	/* QPs made again in the same slots: no deadline of the old ones */
	for (i = 0; i < 3; i++) {
		pair_make_on(d2, &p, &qc, NULL, 64);
		sg = (struct rdx_sge){ (uint64_t)(uintptr_t)&v, 8, 0 };
		w[0] = wr_make(1, RDX_OP_WRITE, &sg, 1, m->iova, m->rkey,
			       RDX_WR_SIGNALED | RDX_WR_INLINE);
		t0 = mono_ns();
		CU_ASSERT_EQUAL_FATAL(rdx_qp_post_burst(p.qp[0], w, 1), 1);
		CU_ASSERT_EQUAL_FATAL(poll_n(p.cq[0], wc, 1), 1);
		t1 = mono_ns();
		CU_ASSERT(t1 - t0 >= 800);
		pair_free(&p);
	}
	CU_ASSERT(rdx_dev_mem_free(m) == 0);
	CU_ASSERT(rdx_dev_close(d2) == 0);
	/* bad profiles: the open fails, EINVAL */
	dc.devargs = "timing=nope";
	CU_ASSERT_PTR_NULL(rdx_dev_open("sw", &dc));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	dc.devargs = "timing=";
	CU_ASSERT_PTR_NULL(rdx_dev_open("sw", &dc));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	dc.devargs = "timing=/dev/null";
	CU_ASSERT_PTR_NULL(rdx_dev_open("sw", &dc));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
}

/* cx6-200g with prop_ns = prop: written to path (a mkstemp template). */
static int
far_profile(char *path, unsigned int prop)
{
	FILE *in = fopen(SW_TIMING_DIR "/cx6-200g.conf", "r");
	char line[512];
	FILE *out;
	int fd;

	if (in == NULL)
		return -1;
	fd = mkstemp(path);
	out = fd < 0 ? NULL : fdopen(fd, "w");
	if (out == NULL) {
		fclose(in);
		return -1;
	}
	while (fgets(line, sizeof(line), in) != NULL) {
		if (strncmp(line, "prop_ns ", 8) == 0)
			fprintf(out, "prop_ns = %u  # a far peer: the test's\n", prop);
		else
			fputs(line, out);
	}
	fclose(in);
	return fclose(out);
}

/* Poll cq until n completions arrived (bounded), each stamped. */
static int
poll_stamped(struct rdx_cq *cq, struct rdx_wc *wc, uint64_t *at, int n)
{
	const uint64_t end = mono_ns() + 5000000000ULL;
	int got = 0, k, i;

	while (got < n && mono_ns() < end) {
		k = rdx_cq_poll_burst(cq, wc + got, (uint16_t)(n - got));
		for (i = 0; i < k; i++)
			at[got + i] = mono_ns();
		got += k;
	}
	return got;
}

/*
 * The release list (sw_timing.c): a requester CQE whose WQE was executed
 * before its CQE time waits on a list and the QP's next WQEs go on. With
 * the peer 200 us away (one way), a WRITE's CQE needs the data's and the
 * ACK's trips: never before 400 us, alone or in a burst; a 64 KiB READ then an 8-byte WRITE on one QP,
 * the WRITE's modelled CQE time earlier than the READ's: the CQEs still
 * in order; a CQ too small for the listed CQEs: the overrun puts the QP
 * in error and every CQE comes, in order, once there is room.
 */
static void
test_timing_release(void)
{
	struct rdx_dev_conf dc = { .devargs = NULL };
	struct rdx_qp_conf qc = qconf;
	const uint64_t prop = 200000, v = 0x0102030405060708ULL;
	char path[] = "/tmp/sw_dev_ut_tm_XXXXXX", da[64];
	struct rdx_wc wc[16];
	struct rdx_wr w[16];
	struct rdx_sge sg[16];
	uint64_t at[16], t0;
	struct rdx_dev *d2;
	struct rdx_mem *m;
	struct pair p;
	int i, got;

	CU_ASSERT_FATAL(far_profile(path, (unsigned int)prop) == 0);
	snprintf(da, sizeof(da), "timing=%s", path);
	dc.devargs = da;
	d2 = rdx_dev_open("sw", &dc);
	CU_ASSERT_FATAL(d2 != NULL);
	m = rdx_dev_mem_alloc(d2, 1 << 20, RDX_MEM_HOST, RDX_ACCESS_ALL);
	CU_ASSERT_FATAL(m != NULL);
	memset(m->addr, 0, 1 << 20);
	pair_make_on(d2, &p, &qc, NULL, 64);
	/* one WRITE alone (nothing rung after it): not early */
	sg[0] = (struct rdx_sge){ (uint64_t)(uintptr_t)&v, 8, 0 };
	w[0] = wr_make(7, RDX_OP_WRITE, &sg[0], 1, m->iova + 1024, m->rkey,
		       RDX_WR_SIGNALED | RDX_WR_INLINE);
	t0 = mono_ns();
	CU_ASSERT_EQUAL_FATAL(rdx_qp_post_burst(p.qp[0], w, 1), 1);
	CU_ASSERT_EQUAL(poll_stamped(p.cq[0], wc, at, 1), 1);
	CU_ASSERT(at[0] - t0 >= 2 * prop);
	/* 16 signaled inline WRITEs in one burst: none early, in order */
	for (i = 0; i < 16; i++) {
		sg[i] = (struct rdx_sge){ (uint64_t)(uintptr_t)&v, 8, 0 };
		w[i] = wr_make((uint64_t)i, RDX_OP_WRITE, &sg[i], 1, m->iova + 8 * (uint64_t)i,
			       m->rkey, RDX_WR_SIGNALED | RDX_WR_INLINE);
	}
	t0 = mono_ns();
	CU_ASSERT_EQUAL_FATAL(rdx_qp_post_burst(p.qp[0], w, 16), 16);
	got = poll_stamped(p.cq[0], wc, at, 16);
	CU_ASSERT_EQUAL(got, 16);
	for (i = 0; i < got; i++) {
		CU_ASSERT_EQUAL(wc[i].status, IBV_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc[i].wr_id, (uint64_t)i);
		CU_ASSERT(at[i] - t0 >= 2 * prop);
		CU_ASSERT_EQUAL(memcmp((uint8_t *)m->addr + 8 * i, &v, 8), 0);
	}
	CU_ASSERT_EQUAL(poll_extra(p.cq[0]), 0);
	/* a 64 KiB READ, then an 8-byte WRITE: READ's CQE first */
	sg[0] = (struct rdx_sge){ m->iova + 65536, 65536, m->lkey };
	w[0] = wr_make(100, RDX_OP_READ, &sg[0], 1, m->iova + 131072, m->rkey, RDX_WR_SIGNALED);
	sg[1] = (struct rdx_sge){ (uint64_t)(uintptr_t)&v, 8, 0 };
	w[1] = wr_make(101, RDX_OP_WRITE, &sg[1], 1, m->iova + 256, m->rkey,
		       RDX_WR_SIGNALED | RDX_WR_INLINE);
	t0 = mono_ns();
	CU_ASSERT_EQUAL_FATAL(rdx_qp_post_burst(p.qp[0], w, 2), 2);
	got = poll_stamped(p.cq[0], wc, at, 2);
	CU_ASSERT_EQUAL(got, 2);
	CU_ASSERT_EQUAL(wc[0].wr_id, 100);
	CU_ASSERT_EQUAL(wc[1].wr_id, 101);
	CU_ASSERT(at[0] - t0 >= 2 * prop);
	CU_ASSERT(at[1] - t0 >= 2 * prop);
	pair_free(&p);
	/* 12 signaled WRITEs into a CQ of 8, executed, their CQEs listed:
	 * 8 fit, the 9th overruns at its time and the QP goes to error;
	 * polled, the CQ has room and the 4 listed ones come, in order,
	 * executed (success), before any flush CQE */
	qc.sq_depth = 16;
	qc.sig_interval = 16;
	pair_make_on(d2, &p, &qc, NULL, 4); /* 8 CQEs */
	for (i = 0; i < 12; i++) {
		sg[i] = (struct rdx_sge){ (uint64_t)(uintptr_t)&v, 8, 0 };
		w[i] = wr_make((uint64_t)i, RDX_OP_WRITE, &sg[i], 1, m->iova + 512 + 8 * (uint64_t)i,
			       m->rkey, RDX_WR_SIGNALED | RDX_WR_INLINE);
	}
	CU_ASSERT_EQUAL_FATAL(rdx_qp_post_burst(p.qp[0], w, 12), 12);
	t0 = mono_ns();
	while (rdx_sw_qp_state(p.qp[0]) != RDX_SW_QPS_ERR && mono_ns() - t0 < 5000000000ULL)
		rdx_sw_progress(d2);
	CU_ASSERT_EQUAL(rdx_sw_qp_state(p.qp[0]), RDX_SW_QPS_ERR);
	CU_ASSERT(rdx_sw_cq_overruns(p.cq[0]) >= 1);
	got = poll_n(p.cq[0], wc, 8);
	CU_ASSERT_EQUAL(got, 8);
	for (i = 0; i < got; i++) {
		CU_ASSERT_EQUAL(wc[i].status, IBV_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc[i].wr_id, (uint64_t)i);
	}
	got = poll_n(p.cq[0], wc, 4);
	CU_ASSERT_EQUAL(got, 4);
	for (i = 0; i < got; i++) {
		CU_ASSERT_EQUAL(wc[i].status, IBV_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc[i].wr_id, (uint64_t)(8 + i));
	}
	CU_ASSERT_EQUAL(poll_extra(p.cq[0]), 0);
	pair_free(&p);
	CU_ASSERT(rdx_dev_mem_free(m) == 0);
	CU_ASSERT(rdx_dev_close(d2) == 0);
	unlink(path);
}

static void
test_two_devices(void)
{
	struct rdx_cq_conf cc = { .depth = 16 };
	struct rdx_qp_conf qc = qconf;
	struct rdx_qp_info i0, i1;
	static uint8_t local[256];
	struct rdx_mem *m0, *m1, *lm;
	struct rdx_recv_wr r;
	struct rdx_sge s, rs;
	struct rdx_dev *d1;
	struct rdx_cq *c0, *c1;
	struct rdx_qp *q0, *q1;
	struct rdx_wc wc;
	struct rdx_wr w;

	d1 = rdx_dev_open("sw", NULL);
	CU_ASSERT_FATAL(d1 != NULL);
	c0 = rdx_cq_create(dev, &cc);
	c1 = rdx_cq_create(d1, &cc);
	CU_ASSERT_FATAL(c0 != NULL && c1 != NULL);
	qc.send_cq = qc.recv_cq = c0;
	q0 = rdx_qp_create(dev, &qc);
	qc.send_cq = qc.recv_cq = c1;
	q1 = rdx_qp_create(d1, &qc);
	CU_ASSERT_FATAL(q0 != NULL && q1 != NULL);
	m0 = rdx_dev_mem_alloc(dev, 4096, RDX_MEM_HOST, RDX_ACCESS_ALL);
	m1 = rdx_dev_mem_alloc(d1, 4096, RDX_MEM_HOST, RDX_ACCESS_ALL);
	lm = rdx_dev_mem_reg(d1, local, sizeof(local), RDX_ACCESS_ALL);
	CU_ASSERT_FATAL(m0 != NULL && m1 != NULL && lm != NULL);
	rdx_qp_info_get(q0, &i0);
	rdx_qp_info_get(q1, &i1);
	CU_ASSERT_STRING_NOT_EQUAL(i0.drv, i1.drv);
	CU_ASSERT_FATAL(rdx_qp_connect(q0, &i1, NULL) == 0);
	CU_ASSERT_FATAL(rdx_qp_connect(q1, &i0, NULL) == 0);
	memset(m0->addr, 0x61, 128);
	s = (struct rdx_sge){ m0->iova, 128, m0->lkey };
	w = wr_make(1, RDX_OP_WRITE, &s, 1, m1->iova + 8, m1->rkey, RDX_WR_SIGNALED);
	CU_ASSERT_EQUAL(rdx_qp_post_burst(q0, &w, 1), 1);
	CU_ASSERT_EQUAL_FATAL(poll_n(c0, &wc, 1), 1);
	CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(((uint8_t *)m1->addr)[8 + 127], 0x61);
	/* process memory of the other device, same process: reachable */
	w = wr_make(2, RDX_OP_WRITE, &s, 1, lm->iova, lm->rkey, RDX_WR_SIGNALED);
	CU_ASSERT_EQUAL(rdx_qp_post_burst(q0, &w, 1), 1);
	CU_ASSERT_EQUAL_FATAL(poll_n(c0, &wc, 1), 1);
	CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(local[127], 0x61);
	/* SEND from d1 into dev's receive: d1's engine does it */
	rs = (struct rdx_sge){ m0->iova + 1024, 64, m0->lkey };
	r = (struct rdx_recv_wr){ .wr_id = 9, .sge = &rs, .num_sge = 1 };
	CU_ASSERT_EQUAL(rdx_qp_post_recv_burst(q0, &r, 1), 1);
	s = (struct rdx_sge){ m1->iova + 8, 64, m1->lkey };
	w = wr_make(3, RDX_OP_SEND, &s, 1, 0, 0, RDX_WR_SIGNALED);
	CU_ASSERT_EQUAL(rdx_qp_post_burst(q1, &w, 1), 1);
	CU_ASSERT_EQUAL_FATAL(poll_n(c1, &wc, 1), 1);
	CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(poll_n(c0, &wc, 1), 1);
	CU_ASSERT_EQUAL(wc.wr_id, 9);
	CU_ASSERT_EQUAL(wc.byte_len, 64);
	CU_ASSERT_EQUAL(((uint8_t *)m0->addr)[1024 + 63], 0x61);
	rdx_qp_destroy(q0);
	rdx_qp_destroy(q1);
	rdx_cq_destroy(c0);
	rdx_cq_destroy(c1);
	rdx_dev_mem_free(m0);
	rdx_dev_mem_free(m1);
	rdx_dev_mem_free(lm);
	CU_ASSERT(rdx_dev_close(d1) == 0);
}

/* ---- atomics under two threads ---- */

static long
iters(long dflt)
{
	const char *e = getenv("RDX_SW_UT_ITERS");

	return e != NULL && atol(e) > 0 ? atol(e) : dflt;
}

struct faa_arg {
	struct rdx_dev *d;
	struct rdx_mem *target;
	long n;
	int mode; /* 0: FAA, 1: CAS lock */
	uint64_t counter_off;
	int failures;
};

static void
faa_ok(struct faa_arg *a, const struct rdx_wc *wc, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (wc[i].status != IBV_WC_SUCCESS)
			a->failures++;
}

static void *
faa_thread(void *arg)
{
	struct faa_arg *a = arg;
	struct rdx_qp_conf qc = qconf;
	struct rdx_mem *loc;
	struct rdx_wr w[32];
	struct rdx_wc wc[32];
	struct rdx_sge s;
	struct pair p;
	long done = 0;
	int i;

	qc.sq_depth = 64;
	qc.sig_interval = 32;
	pair_make_on(a->d, &p, &qc, NULL, 128);
	loc = rdx_dev_mem_alloc(a->d, 4096, RDX_MEM_HOST, RDX_ACCESS_ALL);
	if (loc == NULL) {
		a->failures++;
		return NULL;
	}
	s = (struct rdx_sge){ loc->iova, 8, loc->lkey };
	while (done < a->n) {
		int k = (int)RTE_MIN(32L, a->n - done);

		for (i = 0; i < k; i++) {
			w[i] = wr_make((uint64_t)i, RDX_OP_FAA, &s, 1, a->target->iova,
				       a->target->rkey, i == k - 1 ? RDX_WR_SIGNALED : 0);
			w[i].compare_add = 1;
		}
		if (rdx_qp_post_burst(p.qp[0], w, (uint16_t)k) != k) {
			a->failures++;
			break;
		}
		i = poll_n(p.cq[0], wc, 1);
		if (i != 1) {
			a->failures++;
			break;
		}
		faa_ok(a, wc, 1);
		done += k;
	}
	rdx_dev_mem_free(loc);
	pair_free(&p);
	return NULL;
}

/* CAS spin lock around a READ-modify-WRITE of a counter. */
static void *
lock_thread(void *arg)
{
	struct faa_arg *a = arg;
	struct rdx_mem *loc;
	struct rdx_wc wc[4];
	struct rdx_sge s, c;
	struct rdx_wr w;
	struct pair p;
	uint64_t *lv, *cv;
	long done;

	pair_make_on(a->d, &p, &qconf, NULL, 64);
	loc = rdx_dev_mem_alloc(a->d, 4096, RDX_MEM_HOST, RDX_ACCESS_ALL);
	if (loc == NULL) {
		a->failures++;
		return NULL;
	}
	lv = (uint64_t *)loc->addr;
	cv = lv + 1;
	s = (struct rdx_sge){ loc->iova, 8, loc->lkey };
	c = (struct rdx_sge){ loc->iova + 8, 8, loc->lkey };
	for (done = 0; done < a->n; done++) {
		do { /* acquire: CAS 0 -> 1 */
			w = wr_make(1, RDX_OP_CAS, &s, 1, a->target->iova, a->target->rkey,
				    RDX_WR_SIGNALED);
			w.compare_add = 0;
			w.swap = 1;
			rdx_qp_post_burst(p.qp[0], &w, 1);
			if (poll_n(p.cq[0], wc, 1) != 1) {
				a->failures++;
				goto out;
			}
			faa_ok(a, wc, 1);
		} while (*lv != 0);
		w = wr_make(2, RDX_OP_READ, &c, 1, a->target->iova + a->counter_off,
			    a->target->rkey, RDX_WR_SIGNALED);
		rdx_qp_post_burst(p.qp[0], &w, 1);
		if (poll_n(p.cq[0], wc, 1) != 1) {
			a->failures++;
			goto out;
		}
		(*cv)++;
		/* WRITE the counter, then release with CAS 1 -> 0 (in order) */
		w = wr_make(3, RDX_OP_WRITE, &c, 1, a->target->iova + a->counter_off,
			    a->target->rkey, 0);
		rdx_qp_post_burst(p.qp[0], &w, 1);
		w = wr_make(4, RDX_OP_CAS, &s, 1, a->target->iova, a->target->rkey,
			    RDX_WR_SIGNALED);
		w.compare_add = 1;
		w.swap = 0;
		rdx_qp_post_burst(p.qp[0], &w, 1);
		if (poll_n(p.cq[0], wc, 1) != 1 || *lv != 1) {
			a->failures++;
			goto out;
		}
	}
out:
	rdx_dev_mem_free(loc);
	pair_free(&p);
	return NULL;
}

static void
run_two(void *(*fn)(void *), struct faa_arg *a)
{
	pthread_t t[2];
	int i;

	for (i = 0; i < 2; i++)
		CU_ASSERT_FATAL(pthread_create(&t[i], NULL, fn, &a[i]) == 0);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
}

static void
test_atomic_threads(void)
{
	struct faa_arg a[2];
	struct rdx_mem *target;
	uint64_t *t;
	long n = iters(1000000);

	target = rdx_dev_mem_alloc(dev, 4096, RDX_MEM_HOST, RDX_ACCESS_ALL);
	CU_ASSERT_FATAL(target != NULL);
	t = target->addr;
	memset(a, 0, sizeof(a));
	a[0] = (struct faa_arg){ .d = dev, .target = target, .n = n };
	a[1] = a[0];
	run_two(faa_thread, a);
	CU_ASSERT_EQUAL(a[0].failures + a[1].failures, 0);
	CU_ASSERT_EQUAL(t[0], 2 * (uint64_t)n);
	printf("\n  2 threads x %ld FAA: sum %lu\n", n, (unsigned long)t[0]);
	/* CAS lock keeps a counter exact */
	t[0] = 0;
	t[2] = 0;
	a[0] = (struct faa_arg){ .d = dev, .target = target, .n = n / 500, .mode = 1,
				 .counter_off = 16 };
	a[1] = a[0];
	run_two(lock_thread, a);
	CU_ASSERT_EQUAL(a[0].failures + a[1].failures, 0);
	CU_ASSERT_EQUAL(t[2], 2 * (uint64_t)(n / 500));
	CU_ASSERT_EQUAL(t[0], 0);
	rdx_dev_mem_free(target);
}

static int
suite_init(void)
{
	return sw_ut_dev_open(&dev);
}

static int
suite_fini(void)
{
	struct rdx_sw_stats st;

	if (dev != NULL && rdx_sw_stats_get(dev, &st) == 0)
		printf("sw stats: doorbells %lu (bf %lu) wqes %lu recv %lu cqes %lu rnr %lu retries %lu errors %lu flushes %lu overruns %lu device_errors %lu\n",
		       (unsigned long)st.doorbells, (unsigned long)st.bf_copies,
		       (unsigned long)st.wqes, (unsigned long)st.recv_wqes,
		       (unsigned long)st.cqes, (unsigned long)st.rnr_naks,
		       (unsigned long)st.retries, (unsigned long)st.errors,
		       (unsigned long)st.flushes, (unsigned long)st.cq_overruns,
		       (unsigned long)st.device_errors);
	return sw_ut_dev_close(dev);
}

/* 1024 QP pairs: the requesters share one CQ, the responders another (as
 * rdx-perf and perftest share a thread's CQs); one WRITE on every QP, each
 * completion names its QP through qp_ctx. */
#define MANY_QPS 1024
static void
test_many_qps(void)
{
	static struct rdx_qp *qp[2][MANY_QPS];
	const struct rdx_dev_attr *at = rdx_dev_attr_get(dev);
	struct rdx_cq_conf cc = { .depth = 2 * MANY_QPS };
	struct rdx_qp_conf qc = {
		.sq_depth = 4, .rq_depth = 0, .max_send_sge = 1, .max_recv_sge = 1,
		.sig_interval = 4,
	};
	static uint32_t seen[MANY_QPS];
	struct rdx_wc wc[MANY_QPS];
	struct rdx_mem *m0, *m1;
	struct rdx_cq *cq[2];
	uint8_t *a, *b;
	int i, j, got, bad = 0;

	CU_ASSERT(at->max_qp >= 2 * MANY_QPS);
	cq[0] = rdx_cq_create(dev, &cc);
	cq[1] = rdx_cq_create(dev, &cc);
	CU_ASSERT_FATAL(cq[0] != NULL && cq[1] != NULL);
	m0 = rdx_dev_mem_alloc(dev, 64 * MANY_QPS, RDX_MEM_HOST, RDX_ACCESS_ALL);
	m1 = rdx_dev_mem_alloc(dev, 64 * MANY_QPS, RDX_MEM_HOST, RDX_ACCESS_ALL);
	CU_ASSERT_FATAL(m0 != NULL && m1 != NULL);
	a = m0->addr;
	b = m1->addr;
	memset(b, 0, 64 * MANY_QPS);
	for (i = 0; i < 64 * MANY_QPS; i++)
		a[i] = (uint8_t)(i / 64 * 13 + i);
	for (i = 0; i < MANY_QPS; i++)
		for (j = 0; j < 2; j++) {
			qc.send_cq = qc.recv_cq = cq[j];
			qc.user_ctx = (void *)(uintptr_t)(j * MANY_QPS + i + 1);
			qp[j][i] = rdx_qp_create(dev, &qc);
			CU_ASSERT_FATAL(qp[j][i] != NULL);
		}
	for (i = 0; i < MANY_QPS; i++) {
		struct rdx_qp_info info[2];

		CU_ASSERT(rdx_qp_info_get(qp[0][i], &info[0]) == 0);
		CU_ASSERT(rdx_qp_info_get(qp[1][i], &info[1]) == 0);
		CU_ASSERT_FATAL(rdx_qp_connect(qp[0][i], &info[1], NULL) == 0);
		CU_ASSERT_FATAL(rdx_qp_connect(qp[1][i], &info[0], NULL) == 0);
	}
	for (i = 0; i < MANY_QPS; i++) {
		struct rdx_sge sge = { m0->iova + (uint64_t)(64u * (unsigned int)i), 64, m0->lkey };
		struct rdx_wr w = wr_make((uint64_t)i, RDX_OP_WRITE, &sge, 1,
					  m1->iova + (uint64_t)(64u * (unsigned int)i), m1->rkey,
					  RDX_WR_SIGNALED);

		CU_ASSERT_EQUAL(rdx_qp_post_burst(qp[0][i], &w, 1), 1);
	}
	got = poll_n(cq[0], wc, MANY_QPS);
	CU_ASSERT_EQUAL(got, MANY_QPS);
	memset(seen, 0, sizeof(seen));
	for (i = 0; i < got; i++) {
		uintptr_t ctx = (uintptr_t)wc[i].qp_ctx;

		if (wc[i].status != IBV_WC_SUCCESS || ctx == 0 || ctx > MANY_QPS ||
		    wc[i].wr_id != ctx - 1)
			bad++;
		else
			seen[ctx - 1]++;
	}
	CU_ASSERT_EQUAL(bad, 0);
	for (i = 0; i < MANY_QPS; i++)
		if (seen[i] != 1)
			bad++;
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(memcmp(a, b, 64 * MANY_QPS) == 0);
	CU_ASSERT_EQUAL(poll_extra(cq[0]), 0);
	CU_ASSERT_EQUAL(poll_extra(cq[1]), 0);
	for (i = 0; i < MANY_QPS; i++)
		for (j = 0; j < 2; j++)
			CU_ASSERT(rdx_qp_destroy(qp[j][i]) == 0);
	rdx_dev_mem_free(m0);
	rdx_dev_mem_free(m1);
	CU_ASSERT(rdx_cq_destroy(cq[0]) == 0);
	CU_ASSERT(rdx_cq_destroy(cq[1]) == 0);
}

int
main(int argc, char **argv)
{
	static const struct rdx_ut_case cases[] = {
		{ "attr", test_attr },
		{ "mem_huge", test_mem_huge },
		{ "qp_shapes", test_qp_shapes },
		{ "write_read", test_write_read },
		{ "send_recv_imm", test_send_recv_imm },
		{ "atomics", test_atomics },
		{ "doorbells_signaling", test_doorbells_signaling },
		{ "wrap", test_wrap },
		{ "errors_local_remote", test_errors_local_remote },
		{ "errors_recv", test_errors_recv },
		{ "cq_overrun", test_cq_overrun },
		{ "fault_injection", test_fault_injection },
		{ "error_mid_burst", test_error_mid_burst },
		{ "dm", test_dm },
		{ "mem_reg", test_mem_reg },
		{ "cq_wait", test_cq_wait },
		{ "thread_mode", test_thread_mode },
		{ "two_devices", test_two_devices },
		{ "progress_modes", test_progress_modes },
		{ "timing", test_timing },
		{ "timing_release", test_timing_release },
		{ "atomic_threads", test_atomic_threads },
		{ "many_qps", test_many_qps },
		{ NULL, NULL },
	};
	(void)argc;
	(void)argv;
	return rdx_ut_run("sw_dev", cases, suite_init, suite_fini);
}
