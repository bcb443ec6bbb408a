/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UD datagrams on the software mlx5 device, end to end through the rdx
 * device API: the mlx5 datapath builds the UD WQEs (ctrl + datagram
 * segment copied from the AH + payload) and decodes the receive CQEs, the
 * model executes them (drivers/mlx5/sw/sw_exec.c, "UD"). Bytes and GRH
 * area, immediates, source QPN; drops (no receive posted, Q_Key mismatch,
 * no such QP) counted and never completed at the receiver; messages above
 * the MTU and receive buffers too small reported as errors; injection
 * (drop every n-th, random drop with a seed, duplicates, delays that
 * reorder); thread progress; two processes.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_errno.h>

#include <infiniband/verbs.h>

#include "rdx_ut.h"
#include "rdx_dev.h"
#include "rdx_sw.h"
#include "sw_ut_dev.h"
#include "sw_ut_poll.h"
#include "sw_ut_pipe.h"

#define QKEY 0x1234567u
#define SLOT (RDX_UD_GRH_BYTES + 4096u) /* one receive buffer */
#define NSLOT 64u

/* One UD endpoint: a device, CQ, UD QP, a buffer of NSLOT receive slots
 * and a send area after them. */
struct ep {
	struct rdx_dev *dev;
	bool own_dev;
	struct rdx_cq *cq;
	struct rdx_qp *qp;
	struct rdx_mem *mem;
	uint8_t *buf;
	struct rdx_qp_info info;
};

static struct rdx_dev *dev;

static int
ep_open(struct ep *e, struct rdx_dev *d, const char *name, uint32_t qkey)
{
	struct rdx_cq_conf cc = { .depth = 256 };
	struct rdx_qp_conf qc = {
		.sq_depth = 64, .rq_depth = NSLOT, .max_send_sge = 3, .max_recv_sge = 2,
		.max_inline = 64, .sig_interval = 1, .type = RDX_QP_UD, .qkey = qkey,
	};

	memset(e, 0, sizeof(*e));
	e->own_dev = d == NULL;
	e->dev = d != NULL ? d : rdx_dev_open(name, NULL);
	if (e->dev == NULL)
		return -1;
	e->cq = rdx_cq_create(e->dev, &cc);
	if (e->cq == NULL)
		return -2;
	qc.send_cq = qc.recv_cq = e->cq;
	e->qp = rdx_qp_create(e->dev, &qc);
	if (e->qp == NULL)
		return -3;
	e->mem = rdx_dev_mem_alloc(e->dev, (size_t)SLOT * NSLOT * 2, RDX_MEM_HOST, RDX_ACCESS_ALL);
	if (e->mem == NULL)
		return -4;
	e->buf = e->mem->addr;
	if (rdx_qp_info_get(e->qp, &e->info) != 0 || rdx_qp_connect(e->qp, NULL, NULL) != 0)
		return -5;
	return 0;
}

static void
ep_close(struct ep *e)
{
	CU_ASSERT(rdx_qp_destroy(e->qp) == 0);
	CU_ASSERT(rdx_cq_destroy(e->cq) == 0);
	CU_ASSERT(rdx_dev_mem_free(e->mem) == 0);
	if (e->own_dev)
		CU_ASSERT(rdx_dev_close(e->dev) == 0);
}

static uint8_t *
slot_buf(struct ep *e, uint32_t i)
{
	return e->buf + (size_t)i * SLOT;
}

/* Post n receives of len bytes each into slots first.. (wr_id = slot). */
static uint16_t
ep_recv(struct ep *e, uint32_t first, uint32_t n, uint32_t len)
{
	struct rdx_sge sge[NSLOT];
	struct rdx_recv_wr r[NSLOT];
	uint32_t i;

	for (i = 0; i < n; i++) {
		uint32_t s = (first + i) % NSLOT;

		memset(slot_buf(e, s), 0xee, SLOT);
		sge[i] = (struct rdx_sge){ e->mem->iova + (uint64_t)s * SLOT, len, e->mem->lkey };
		r[i] = (struct rdx_recv_wr){ .wr_id = s, .sge = &sge[i], .num_sge = 1 };
	}
	return rdx_qp_post_recv_burst(e->qp, r, (uint16_t)n);
}

/* The send area: after the receive slots. */
static uint8_t *
send_buf(struct ep *e)
{
	return e->buf + (size_t)SLOT * NSLOT;
}

static struct rdx_ah *
ah_to(struct rdx_dev *d, const struct rdx_qp_info *peer)
{
	struct rdx_ah_attr aa;

	CU_ASSERT_FATAL(rdx_ah_attr_from_info(d, peer, &aa) == 0);
	return rdx_ah_create(d, &aa);
}

/* Post one UD SEND of len bytes at send area offset off, tagged with seq
 * in its first 4 bytes (when len >= 4); signaled. */
static uint16_t
ud_send(struct ep *e, const struct rdx_ah *ah, uint32_t dqpn, uint32_t qkey, uint32_t off,
	uint32_t len, uint32_t seq, uint8_t flags)
{
	struct rdx_sge s = { e->mem->iova + SLOT * NSLOT + off, len, e->mem->lkey };
	struct rdx_wr w;
	uint32_t i;

	for (i = 0; i < len; i++)
		send_buf(e)[off + i] = (uint8_t)(seq * 7 + i);
	if (len >= 4)
		memcpy(send_buf(e) + off, &seq, 4);
	memset(&w, 0, sizeof(w));
	w.wr_id = seq;
	w.sge = &s;
	w.num_sge = 1;
	w.opcode = RDX_OP_SEND;
	w.flags = RDX_WR_SIGNALED | flags;
	w.ah = ah;
	w.remote_qpn = dqpn;
	w.remote_qkey = qkey;
	return rdx_qp_post_burst(e->qp, &w, 1);
}

/* The bytes ud_send put in a message. */
static bool
payload_ok(const uint8_t *p, uint32_t len, uint32_t seq)
{
	uint32_t i, got;

	for (i = len >= 4 ? 4 : 0; i < len; i++)
		if (p[i] != (uint8_t)(seq * 7 + i))
			return false;
	if (len >= 4) {
		memcpy(&got, p, 4);
		return got == seq;
	}
	return true;
}

/* Poll until want completions of the given kind (send or receive); the
 * others polled meanwhile are counted in *other. */
static int
poll_kind(struct rdx_cq *cq, struct rdx_wc *out, int want, bool recv, int *other)
{
	uint64_t end = now_ms() + POLL_GUARD_MS;
	int got = 0;

	while (got < want && now_ms() < end) {
		struct rdx_wc wc[16];
		uint16_t n = rdx_cq_poll_burst(cq, wc, 16), i;

		for (i = 0; i < n; i++) {
			bool is_recv = wc[i].opcode == RDX_WC_RECV || wc[i].opcode == RDX_WC_RECV_IMM;

			if (wc[i].status != IBV_WC_SUCCESS && wc[i].opcode == RDX_WC_UNKNOWN)
				is_recv = false;
			if (is_recv == recv && got < want)
				out[got++] = wc[i];
			else if (other != NULL)
				(*other)++;
		}
		if (n == 0)
			sched_yield();
	}
	return got;
}

/* Drain whatever is there now (a few polls). */
static int
poll_rest(struct rdx_cq *cq)
{
	struct rdx_wc wc[16];
	int i, got = 0;

	for (i = 0; i < 200; i++)
		got += rdx_cq_poll_burst(cq, wc, 16);
	return got;
}

static void
ud_stats(struct rdx_qp *qp, struct rdx_sw_ud_stats *st)
{
	CU_ASSERT_FATAL(rdx_sw_qp_ud_stats(qp, st) == 0);
}

/* ------------------------------------------------------------------ */

static void
test_attr_create(void)
{
	const struct rdx_dev_attr *a = rdx_dev_attr_get(dev);
	struct rdx_qp_conf qc = { .sq_depth = 8, .rq_depth = 8, .max_send_sge = 1,
				  .max_recv_sge = 1, .type = RDX_QP_UD, .qkey = 5 };
	struct rdx_cq_conf cc = { .depth = 16 };
	struct rdx_qp_info ri, ui;
	struct rdx_qp *rc, *ud;
	struct rdx_cq *cq;
	struct rdx_ah_attr aa;
	struct rdx_wr w;
	struct rdx_sge s = { 0, 0, 0 };

	CU_ASSERT_EQUAL(a->max_ud_msg, 4096);
	cq = rdx_cq_create(dev, &cc);
	CU_ASSERT_FATAL(cq != NULL);
	qc.send_cq = qc.recv_cq = cq;
	ud = rdx_qp_create(dev, &qc);
	CU_ASSERT_FATAL(ud != NULL);
	/* UD sizing: 64 B of overhead (libmlx5 sq_overhead for UD): 1 SGE,
	 * no inline is a 128-B WQE, so 60 bytes inline (reported when 0 was
	 * asked, as libmlx5 does) */
	CU_ASSERT_EQUAL(ud->conf.max_inline, 60);
	qc.type = RDX_QP_RC;
	qc.qkey = 0;
	rc = rdx_qp_create(dev, &qc);
	CU_ASSERT_FATAL(rc != NULL);
	CU_ASSERT(rdx_qp_info_get(ud, &ui) == 0);
	CU_ASSERT(rdx_qp_info_get(rc, &ri) == 0);
	CU_ASSERT_EQUAL(ui.qp_type, RDX_QP_UD);
	CU_ASSERT_EQUAL(ui.qkey, 5);
	CU_ASSERT_EQUAL(ri.qp_type, RDX_QP_RC);
	CU_ASSERT_EQUAL(ri.qkey, 0);
	/* the GID names the device: fe80::/64, then this pid */
	CU_ASSERT_EQUAL(ui.gid[0], 0xfe);
	CU_ASSERT_EQUAL(ui.gid[1], 0x80);
	CU_ASSERT_EQUAL(((uint32_t)ui.gid[8] << 24 | (uint32_t)ui.gid[9] << 16 |
			 (uint32_t)ui.gid[10] << 8 | ui.gid[11]), (uint32_t)getpid());
	CU_ASSERT(memcmp(ui.gid, ri.gid, 16) == 0);
	/* UD connects without a remote; RC refuses a UD peer */
	CU_ASSERT_EQUAL(rdx_sw_qp_state(ud), RDX_SW_QPS_RESET);
	CU_ASSERT_EQUAL(rdx_qp_connect(ud, &ri, NULL), -EINVAL);
	CU_ASSERT_EQUAL(rdx_qp_connect(ud, NULL, NULL), 0);
	CU_ASSERT_EQUAL(rdx_sw_qp_state(ud), RDX_SW_QPS_RTS);
	CU_ASSERT(rdx_qp_connect(ud, NULL, NULL) != 0); /* not in RESET any more */
	CU_ASSERT_EQUAL(rdx_qp_connect(rc, &ui, NULL), -EPROTO);
	/* no RDMA on UD: refused at post, nothing posted */
	CU_ASSERT(rdx_ah_attr_from_info(dev, &ui, &aa) == 0);
	memset(&w, 0, sizeof(w));
	w.opcode = RDX_OP_WRITE;
	w.sge = &s;
	w.flags = RDX_WR_SIGNALED;
	CU_ASSERT_EQUAL(rdx_qp_post_burst(ud, &w, 1), 0);
	/* AHs: a GID that is no sw device's, a port other than 1 */
	aa.gid[0] = 0x20;
	CU_ASSERT_PTR_NULL(rdx_ah_create(dev, &aa));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	CU_ASSERT(rdx_ah_attr_from_info(dev, &ui, &aa) == 0);
	aa.port = 2;
	CU_ASSERT_PTR_NULL(rdx_ah_create(dev, &aa));
	CU_ASSERT(rdx_qp_destroy(ud) == 0);
	CU_ASSERT(rdx_qp_destroy(rc) == 0);
	CU_ASSERT(rdx_cq_destroy(cq) == 0);
}

/* A to B on one device, and A to itself: bytes, GRH area, immediates. */
static void
test_send_recv(void)
{
	static const uint32_t lens[] = { 0, 1, 7, 60, 61, 1000, 4095, 4096 };
	struct rdx_wc wc[16];
	struct rdx_sw_ud_stats sa, sb;
	struct rdx_ah *ab, *aa;
	struct ep a, b;
	uint32_t i;
	int other = 0;

	CU_ASSERT_FATAL(ep_open(&a, dev, NULL, QKEY) == 0);
	CU_ASSERT_FATAL(ep_open(&b, dev, NULL, QKEY) == 0);
	ab = ah_to(dev, &b.info);
	aa = ah_to(dev, &a.info);
	CU_ASSERT_FATAL(ab != NULL && aa != NULL);
	CU_ASSERT_EQUAL(ep_recv(&b, 0, RTE_DIM(lens) + 2, SLOT), RTE_DIM(lens) + 2);
	for (i = 0; i < RTE_DIM(lens); i++) {
		/* the small ones inline */
		CU_ASSERT_EQUAL(ud_send(&a, ab, b.qp->qp_num, QKEY, 0, lens[i], i,
					lens[i] != 0 && lens[i] <= 60 ? RDX_WR_INLINE : 0), 1);
		CU_ASSERT_EQUAL(poll_kind(a.cq, wc, 1, false, &other), 1);
		CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc[0].wr_id, i);
		CU_ASSERT_EQUAL(poll_kind(b.cq, wc, 1, true, &other), 1);
		CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc[0].opcode, RDX_WC_RECV);
		CU_ASSERT_EQUAL(wc[0].wr_id, i);
		CU_ASSERT_EQUAL(wc[0].byte_len, RDX_UD_GRH_BYTES + lens[i]);
		CU_ASSERT_EQUAL(wc[0].src_qp, a.qp->qp_num);
		CU_ASSERT_EQUAL(wc[0].qp_num, b.qp->qp_num);
		CU_ASSERT_EQUAL(wc[0].slid, 0);
		CU_ASSERT(wc[0].wc_flags & RDX_WC_GRH);
		CU_ASSERT(payload_ok(rdx_ud_payload(slot_buf(&b, i)), lens[i], i));
		/* nothing written past the message */
		CU_ASSERT_EQUAL(slot_buf(&b, i)[RDX_UD_GRH_BYTES + lens[i]], 0xee);
		{
			/* the synthetic GRH: IPVer 6, NxtHdr BTH, PayLen, SGID, DGID */
			const uint8_t *g = slot_buf(&b, i);

			CU_ASSERT_EQUAL(g[0] >> 4, 6);
			CU_ASSERT_EQUAL(g[6], 0x1b);
			CU_ASSERT_EQUAL(g[7], 64);
			CU_ASSERT_EQUAL((uint32_t)g[4] << 8 | g[5],
					12 + 8 + RTE_ALIGN_CEIL(lens[i], 4u) + 4);
			CU_ASSERT(memcmp(g + 8, a.info.gid, 16) == 0);
			CU_ASSERT(memcmp(g + 24, b.info.gid, 16) == 0);
		}
	}
	/* SEND_IMM, gathered from 3 SGEs */
	{
		struct rdx_sge s[3];
		struct rdx_wr w;

		for (i = 0; i < 300; i++)
			send_buf(&a)[i] = (uint8_t)(i ^ 0x5a);
		s[0] = (struct rdx_sge){ a.mem->iova + SLOT * NSLOT, 100, a.mem->lkey };
		s[1] = (struct rdx_sge){ a.mem->iova + SLOT * NSLOT + 100, 150, a.mem->lkey };
		s[2] = (struct rdx_sge){ a.mem->iova + SLOT * NSLOT + 250, 50, a.mem->lkey };
		memset(&w, 0, sizeof(w));
		w.wr_id = 99;
		w.sge = s;
		w.num_sge = 3;
		w.opcode = RDX_OP_SEND_IMM;
		w.imm = htobe32(0xabcdef01);
		w.flags = RDX_WR_SIGNALED;
		w.ah = ab;
		w.remote_qpn = b.qp->qp_num;
		w.remote_qkey = QKEY;
		CU_ASSERT_EQUAL(rdx_qp_post_burst(a.qp, &w, 1), 1);
		CU_ASSERT_EQUAL(poll_kind(a.cq, wc, 1, false, &other), 1);
		CU_ASSERT_EQUAL(poll_kind(b.cq, wc, 1, true, &other), 1);
		CU_ASSERT_EQUAL(wc[0].opcode, RDX_WC_RECV_IMM);
		CU_ASSERT_EQUAL(wc[0].imm, htobe32(0xabcdef01));
		CU_ASSERT_EQUAL(wc[0].byte_len, RDX_UD_GRH_BYTES + 300);
		CU_ASSERT(memcmp(rdx_ud_payload(slot_buf(&b, (uint32_t)wc[0].wr_id)), send_buf(&a),
				 300) == 0);
	}
	/* to itself (one QP is source and destination) */
	CU_ASSERT_EQUAL(ep_recv(&a, 0, 1, SLOT), 1);
	CU_ASSERT_EQUAL(ud_send(&a, aa, a.qp->qp_num, QKEY, 0, 33, 500, 0), 1);
	CU_ASSERT_EQUAL(poll_kind(a.cq, wc, 1, true, &other), 1);
	CU_ASSERT_EQUAL(wc[0].src_qp, a.qp->qp_num);
	CU_ASSERT(payload_ok(rdx_ud_payload(slot_buf(&a, 0)), 33, 500));
	CU_ASSERT_EQUAL(other, 1); /* the send completion of that one */
	ud_stats(a.qp, &sa);
	ud_stats(b.qp, &sb);
	CU_ASSERT_EQUAL(sa.sent, RTE_DIM(lens) + 2);
	CU_ASSERT_EQUAL(sa.recv, 1);
	CU_ASSERT_EQUAL(sb.recv, RTE_DIM(lens) + 1);
	CU_ASSERT_EQUAL(sb.drop_no_recv + sb.drop_qkey + sa.drop_dest + sa.too_long, 0);
	CU_ASSERT_EQUAL(poll_rest(a.cq) + poll_rest(b.cq), 0);
	CU_ASSERT(rdx_ah_destroy(ab) == 0);
	CU_ASSERT(rdx_ah_destroy(aa) == 0);
	ep_close(&a);
	ep_close(&b);
}

/* Unreliable: the sender's completion is good whatever happens; drops are
 * counted, never completed at the receiver. */
static void
test_drops(void)
{
	struct rdx_qp_conf rcq = { .sq_depth = 8, .rq_depth = 8, .max_send_sge = 1,
				   .max_recv_sge = 1 };
	struct rdx_sw_ud_stats sa, sb;
	struct rdx_xstat_pick { const char *name; uint64_t v; } pick[] = {
		{ "sw_ud_drop_no_recv", 0 }, { "sw_ud_drop_qkey", 0 }, { "sw_ud_drop_dest", 0 },
	};
	struct rdx_dev_xstat xs[256];
	struct rdx_wc wc[4];
	struct rdx_ah *ab;
	struct rdx_qp *rc;
	struct ep a, b;
	int other = 0, n, i, j;

	CU_ASSERT_FATAL(ep_open(&a, dev, NULL, QKEY) == 0);
	CU_ASSERT_FATAL(ep_open(&b, dev, NULL, QKEY + 1) == 0);
	ab = ah_to(dev, &b.info);
	CU_ASSERT_FATAL(ab != NULL);
	/* no receive posted at B */
	CU_ASSERT_EQUAL(ud_send(&a, ab, b.qp->qp_num, QKEY + 1, 0, 10, 1, 0), 1);
	CU_ASSERT_EQUAL(poll_kind(a.cq, wc, 1, false, NULL), 1);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	/* Q_Key mismatch (a receive is posted now) */
	CU_ASSERT_EQUAL(ep_recv(&b, 0, 1, SLOT), 1);
	CU_ASSERT_EQUAL(ud_send(&a, ab, b.qp->qp_num, QKEY, 0, 10, 2, 0), 1);
	CU_ASSERT_EQUAL(poll_kind(a.cq, wc, 1, false, NULL), 1);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	/* no such QP; an RC QP at that number; a UD QP not yet connected */
	CU_ASSERT_EQUAL(ud_send(&a, ab, 0xfffff, QKEY + 1, 0, 10, 3, 0), 1);
	rcq.send_cq = rcq.recv_cq = b.cq;
	rc = rdx_qp_create(dev, &rcq);
	CU_ASSERT_FATAL(rc != NULL);
	CU_ASSERT_EQUAL(ud_send(&a, ab, rc->qp_num, 0, 0, 10, 4, 0), 1);
	CU_ASSERT_EQUAL(poll_kind(a.cq, wc, 2, false, NULL), 2);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc[1].status, IBV_WC_SUCCESS);
	/* controlled Q_Key (bit 31): the sender QP's own is used (IBTA
	 * 10.2.4): A's (QKEY) is not B's -> dropped too */
	CU_ASSERT_EQUAL(ud_send(&a, ab, b.qp->qp_num, 0x80000000u, 0, 10, 5, 0), 1);
	CU_ASSERT_EQUAL(poll_kind(a.cq, wc, 1, false, NULL), 1);
	/* nothing arrived at B; its receive is still there for a good one */
	CU_ASSERT_EQUAL(poll_rest(b.cq), 0);
	CU_ASSERT_EQUAL(ud_send(&a, ab, b.qp->qp_num, QKEY + 1, 0, 10, 6, 0), 1);
	CU_ASSERT_EQUAL(poll_kind(b.cq, wc, 1, true, &other), 1);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	CU_ASSERT(payload_ok(rdx_ud_payload(slot_buf(&b, 0)), 10, 6));
	ud_stats(a.qp, &sa);
	ud_stats(b.qp, &sb);
	CU_ASSERT_EQUAL(sa.sent, 6);
	CU_ASSERT_EQUAL(sb.drop_no_recv, 1);
	CU_ASSERT_EQUAL(sb.drop_qkey, 2);
	CU_ASSERT_EQUAL(sa.drop_dest, 2);
	CU_ASSERT_EQUAL(sb.recv, 1);
	CU_ASSERT_EQUAL(rdx_sw_qp_state(a.qp), RDX_SW_QPS_RTS);
	CU_ASSERT_EQUAL(rdx_sw_qp_state(b.qp), RDX_SW_QPS_RTS);
	/* the device's xstats hold the sums (and they only grow) */
	n = rdx_dev_xstats_get(dev, xs, RTE_DIM(xs));
	CU_ASSERT_FATAL(n > 0 && n <= (int)RTE_DIM(xs));
	for (j = 0; j < (int)RTE_DIM(pick); j++) {
		bool found = false;

		for (i = 0; i < n; i++)
			if (strcmp(xs[i].name, pick[j].name) == 0) {
				found = true;
				pick[j].v = xs[i].value;
			}
		CU_ASSERT(found);
	}
	CU_ASSERT(pick[0].v >= 1);
	CU_ASSERT(pick[1].v >= 2);
	CU_ASSERT(pick[2].v >= 2);
	CU_ASSERT(rdx_qp_destroy(rc) == 0);
	CU_ASSERT(rdx_ah_destroy(ab) == 0);
	ep_close(&a);
	ep_close(&b);
}

/* Above the MTU: not sent, LOC_LEN at the sender. A receive buffer too
 * small: LOC_LEN at the receiver, which goes to ERR; the sender's
 * completion is good. Never a crash. */
static void
test_lengths(void)
{
	struct rdx_sw_ud_stats sa, sb;
	struct rdx_wc wc[4];
	struct rdx_ah *ab;
	struct ep a, b;
	int other = 0;

	CU_ASSERT_FATAL(ep_open(&a, dev, NULL, QKEY) == 0);
	CU_ASSERT_FATAL(ep_open(&b, dev, NULL, QKEY) == 0);
	ab = ah_to(dev, &b.info);
	CU_ASSERT_FATAL(ab != NULL);
	CU_ASSERT_EQUAL(ep_recv(&b, 0, 2, SLOT), 2);
	CU_ASSERT_EQUAL(ud_send(&a, ab, b.qp->qp_num, QKEY, 0, 4097, 1, 0), 1);
	CU_ASSERT_EQUAL(poll_kind(a.cq, wc, 1, false, NULL), 1);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_LOC_LEN_ERR);
	CU_ASSERT_EQUAL(wc[0].wr_id, 1);
	CU_ASSERT_EQUAL(poll_rest(b.cq), 0);
	/* the datapath refused it: the QP still sends */
	CU_ASSERT_EQUAL(ud_send(&a, ab, b.qp->qp_num, QKEY, 0, 4096, 2, 0), 1);
	CU_ASSERT_EQUAL(poll_kind(b.cq, wc, 1, true, &other), 1);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc[0].byte_len, SLOT);
	CU_ASSERT_EQUAL(poll_kind(a.cq, wc, 1, false, NULL), 1);
	/* a receive of 40 + 10 bytes gets 11 (on a fresh QP) */
	CU_ASSERT_EQUAL(poll_rest(b.cq), 0);
	CU_ASSERT_EQUAL(rdx_qp_destroy(b.qp), 0);
	{
		struct rdx_qp_conf qc = { .sq_depth = 8, .rq_depth = 8, .max_send_sge = 1,
					  .max_recv_sge = 1, .type = RDX_QP_UD, .qkey = QKEY,
					  .send_cq = b.cq, .recv_cq = b.cq, .sig_interval = 1 };

		b.qp = rdx_qp_create(dev, &qc);
		CU_ASSERT_FATAL(b.qp != NULL);
		CU_ASSERT_FATAL(rdx_qp_connect(b.qp, NULL, NULL) == 0);
	}
	CU_ASSERT_EQUAL(ep_recv(&b, 0, 2, RDX_UD_GRH_BYTES + 10), 2);
	CU_ASSERT_EQUAL(ud_send(&a, ab, b.qp->qp_num, QKEY, 0, 11, 3, 0), 1);
	CU_ASSERT_EQUAL(poll_kind(a.cq, wc, 1, false, NULL), 1);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	/* the failed receive, then the other one flushed */
	{
		struct rdx_wc w2[4];
		int got = poll_n(b.cq, w2, 2);

		CU_ASSERT_EQUAL(got, 2);
		CU_ASSERT_EQUAL(w2[0].status, IBV_WC_LOC_LEN_ERR);
		CU_ASSERT_EQUAL(w2[0].wr_id, 0);
		CU_ASSERT_EQUAL(w2[1].status, IBV_WC_WR_FLUSH_ERR);
	}
	CU_ASSERT_EQUAL(rdx_sw_qp_state(b.qp), RDX_SW_QPS_ERR);
	CU_ASSERT_EQUAL(rdx_sw_qp_state(a.qp), RDX_SW_QPS_RTS);
	ud_stats(a.qp, &sa);
	ud_stats(b.qp, &sb);
	CU_ASSERT_EQUAL(sb.recv_len_err, 1);
	CU_ASSERT_EQUAL(sa.too_long, 0); /* the datapath kept it from the device */
	CU_ASSERT(rdx_ah_destroy(ab) == 0);
	ep_close(&a);
	ep_close(&b);
}

/* n datagrams of 64 B from a (device da) to b; the seqs that arrived, in
 * arrival order, into seen[] (-1 ends); returns how many arrived. */
static int
stream(struct ep *a, struct ep *b, int n, int *seen, int room)
{
	struct rdx_wc wc[64];
	struct rdx_ah *ab = ah_to(a->dev, &b->info);
	int i, got = 0, other = 0, sends = 0;
	uint64_t end;

	CU_ASSERT_FATAL(ab != NULL);
	CU_ASSERT_FATAL(ep_recv(b, 0, (uint32_t)room, SLOT) == (uint16_t)room);
	for (i = 0; i < n; i++) {
		struct rdx_sge s = { a->mem->iova + SLOT * NSLOT + (uint64_t)i * 64, 64,
				     a->mem->lkey };
		struct rdx_wr w;
		uint32_t seq = (uint32_t)i, k;

		for (k = 0; k < 64; k++)
			send_buf(a)[i * 64 + (int)k] = (uint8_t)(seq * 7 + k);
		memcpy(send_buf(a) + i * 64, &seq, 4);
		memset(&w, 0, sizeof(w));
		w.wr_id = seq;
		w.sge = &s;
		w.num_sge = 1;
		w.opcode = RDX_OP_SEND;
		w.flags = RDX_WR_SIGNALED;
		w.ah = ab;
		w.remote_qpn = b->qp->qp_num;
		w.remote_qkey = QKEY;
		CU_ASSERT_EQUAL(rdx_qp_post_burst(a->qp, &w, 1), 1);
	}
	/* all sends complete; then what arrives within the hang guard after
	 * the last send completion plus a drain (delays are short) */
	sends = poll_kind(a->cq, wc, n, false, &other);
	CU_ASSERT_EQUAL(sends, n);
	end = now_ms() + 300;
	while (now_ms() < end && got < room) {
		struct rdx_wc r[16];
		uint16_t k = rdx_cq_poll_burst(b->cq, r, 16), j;

		rdx_cq_poll_burst(a->cq, wc, 16); /* runs a's engine (delay queue) */
		for (j = 0; j < k; j++) {
			CU_ASSERT_EQUAL(r[j].status, IBV_WC_SUCCESS);
			if (r[j].status != IBV_WC_SUCCESS)
				continue;
			{
				const uint8_t *p = rdx_ud_payload(slot_buf(b, (uint32_t)r[j].wr_id));
				uint32_t seq;

				memcpy(&seq, p, 4);
				CU_ASSERT(payload_ok(p, 64, seq));
				seen[got++] = (int)seq;
			}
		}
	}
	CU_ASSERT(rdx_ah_destroy(ab) == 0);
	return got;
}

static void
test_inject(void)
{
	struct rdx_sw_ud_stats sa;
	int seen[NSLOT], seen2[NSLOT], got, got2, i;
	bool mono = true;
	struct ep a, b, a2, b2;

	/* every 3rd datagram of a QP dropped: 1..30 -> 20 arrive, in order */
	CU_ASSERT_FATAL(ep_open(&a, NULL, "sw:ud_drop_every=3", QKEY) == 0);
	CU_ASSERT_FATAL(ep_open(&b, a.dev, NULL, QKEY) == 0);
	got = stream(&a, &b, 30, seen, 30);
	CU_ASSERT_EQUAL(got, 20);
	for (i = 0; i < got; i++)
		CU_ASSERT_EQUAL(seen[i], i + i / 2); /* 0 1 3 4 6 7 ... (every 3rd: seq 2, 5, ...) */
	ud_stats(a.qp, &sa);
	CU_ASSERT_EQUAL(sa.inject_drop, 10);
	CU_ASSERT_EQUAL(sa.sent, 30);
	ep_close(&b);
	ep_close(&a);

	/* random drops: the same seed gives the same losses */
	CU_ASSERT_FATAL(ep_open(&a, NULL, "sw:ud_drop=0.3,seed=42", QKEY) == 0);
	CU_ASSERT_FATAL(ep_open(&b, a.dev, NULL, QKEY) == 0);
	CU_ASSERT_FATAL(ep_open(&a2, NULL, "sw:ud_drop=0.3,seed=42", QKEY) == 0);
	CU_ASSERT_FATAL(ep_open(&b2, a2.dev, NULL, QKEY) == 0);
	got = stream(&a, &b, 40, seen, 40);
	got2 = stream(&a2, &b2, 40, seen2, 40);
	CU_ASSERT(got > 0 && got < 40);
	CU_ASSERT_EQUAL(got, got2);
	CU_ASSERT(memcmp(seen, seen2, sizeof(int) * (size_t)RTE_MIN(got, got2)) == 0);
	ud_stats(a.qp, &sa);
	CU_ASSERT_EQUAL(sa.inject_drop, (uint64_t)(40 - got));
	ep_close(&b2);
	ep_close(&a2);
	ep_close(&b);
	ep_close(&a);

	/* duplicates: each one twice */
	CU_ASSERT_FATAL(ep_open(&a, NULL, "sw:ud_dup=1", QKEY) == 0);
	CU_ASSERT_FATAL(ep_open(&b, a.dev, NULL, QKEY) == 0);
	got = stream(&a, &b, 10, seen, 20);
	CU_ASSERT_EQUAL(got, 20);
	for (i = 0; i < got; i++)
		CU_ASSERT_EQUAL(seen[i], i / 2);
	ud_stats(a.qp, &sa);
	CU_ASSERT_EQUAL(sa.inject_dup, 10);
	ep_close(&b);
	ep_close(&a);

	/* delays: half of them wait 2 ms, the others overtake them; all
	 * arrive exactly once */
	CU_ASSERT_FATAL(ep_open(&a, NULL, "sw:ud_delay_us=2000,ud_delay=0.5,seed=3", QKEY) == 0);
	CU_ASSERT_FATAL(ep_open(&b, a.dev, NULL, QKEY) == 0);
	got = stream(&a, &b, 32, seen, 32);
	CU_ASSERT_EQUAL(got, 32);
	{
		int cnt[32] = { 0 };

		for (i = 0; i < got; i++) {
			CU_ASSERT_FATAL(seen[i] >= 0 && seen[i] < 32);
			cnt[seen[i]]++;
			if (i > 0 && seen[i] < seen[i - 1])
				mono = false;
		}
		for (i = 0; i < 32; i++)
			CU_ASSERT_EQUAL(cnt[i], 1);
	}
	CU_ASSERT(!mono);
	ud_stats(a.qp, &sa);
	CU_ASSERT(sa.inject_delay > 0 && sa.inject_delay < 32);
	ep_close(&b);
	ep_close(&a);

	/* bad knobs: one line each, the open fails */
	CU_ASSERT_PTR_NULL(rdx_dev_open("sw:ud_drop=1.5", NULL));
	CU_ASSERT_PTR_NULL(rdx_dev_open("sw:ud_drop=abc", NULL));
	CU_ASSERT_PTR_NULL(rdx_dev_open("sw:ud_drop_every=-1", NULL));
	CU_ASSERT_PTR_NULL(rdx_dev_open("sw:ud_delay=0.5", NULL));
	CU_ASSERT_PTR_NULL(rdx_dev_open("sw:ud_delay_us=99999999", NULL));
	CU_ASSERT_PTR_NULL(rdx_dev_open("sw:seed=x", NULL));
}

/* Delayed datagrams outlive their sending QP (they are on the wire); the
 * destination's last AH destroyed drops them (no route any more). */
static void
test_delay_lifetimes(void)
{
	struct rdx_qp_conf qc = { .sq_depth = 8, .rq_depth = 8, .max_send_sge = 1,
				  .max_recv_sge = 1, .type = RDX_QP_UD, .qkey = QKEY,
				  .sig_interval = 1 };
	struct rdx_sw_stats st;
	struct rdx_wc wc[4];
	struct rdx_ah *ab;
	struct ep a, b;
	int other = 0;

	/* every datagram waits 50 ms */
	CU_ASSERT_FATAL(ep_open(&a, NULL, "sw:ud_delay_us=50000", QKEY) == 0);
	CU_ASSERT_FATAL(ep_open(&b, a.dev, NULL, QKEY) == 0);
	ab = ah_to(a.dev, &b.info);
	CU_ASSERT_FATAL(ab != NULL);
	CU_ASSERT_EQUAL(ep_recv(&b, 0, 4, SLOT), 4);
	CU_ASSERT_EQUAL(ud_send(&a, ab, b.qp->qp_num, QKEY, 0, 100, 1, 0), 1);
	CU_ASSERT_EQUAL(ud_send(&a, ab, b.qp->qp_num, QKEY, 128, 100, 2, 0), 1);
	CU_ASSERT_EQUAL(poll_kind(a.cq, wc, 2, false, NULL), 2);
	/* the sender goes; its datagrams still arrive, in order */
	CU_ASSERT(rdx_qp_destroy(a.qp) == 0);
	CU_ASSERT_EQUAL(poll_kind(b.cq, wc, 2, true, &other), 2);
	CU_ASSERT_EQUAL(wc[0].wr_id, 0);
	CU_ASSERT_EQUAL(wc[1].wr_id, 1);
	CU_ASSERT(payload_ok(rdx_ud_payload(slot_buf(&b, 0)), 100, 1));
	CU_ASSERT(payload_ok(rdx_ud_payload(slot_buf(&b, 1)), 100, 2));
	/* a new sender; its AH destroyed while the datagram waits */
	qc.send_cq = qc.recv_cq = a.cq;
	a.qp = rdx_qp_create(a.dev, &qc);
	CU_ASSERT_FATAL(a.qp != NULL);
	CU_ASSERT_FATAL(rdx_qp_connect(a.qp, NULL, NULL) == 0);
	CU_ASSERT_EQUAL(ud_send(&a, ab, b.qp->qp_num, QKEY, 0, 100, 3, 0), 1);
	CU_ASSERT_EQUAL(poll_kind(a.cq, wc, 1, false, NULL), 1);
	CU_ASSERT(rdx_ah_destroy(ab) == 0);
	{
		/* until the engine let it go (bounded): nothing arrives */
		uint64_t end = now_ms() + POLL_GUARD_MS;
		int got = 0;

		do {
			got += rdx_cq_poll_burst(b.cq, wc, 4);
			if (rdx_sw_stats_get(a.dev, &st) != 0)
				break;
		} while (st.ud_drop_dest == 0 && now_ms() < end);
		CU_ASSERT_EQUAL(got, 0);
	}
	CU_ASSERT_EQUAL(st.ud_inject_delay, 3);
	CU_ASSERT_EQUAL(st.ud_drop_dest, 1);
	CU_ASSERT_EQUAL(st.ud_recv, 2);
	CU_ASSERT_EQUAL(st.ud_sent, 3);
	/* closing with datagrams still queued is fine */
	ab = ah_to(a.dev, &b.info);
	CU_ASSERT_FATAL(ab != NULL);
	CU_ASSERT_EQUAL(ud_send(&a, ab, b.qp->qp_num, QKEY, 0, 100, 4, 0), 1);
	CU_ASSERT_EQUAL(poll_kind(a.cq, wc, 1, false, NULL), 1);
	CU_ASSERT(rdx_ah_destroy(ab) == 0);
	ep_close(&b);
	ep_close(&a);
}

/* A datagram to another device of this process, the destination device
 * closed afterwards: the AH still maps it, the datagram finds no QP. */
static void
test_two_devices(void)
{
	struct rdx_sw_ud_stats sa;
	struct rdx_wc wc[4];
	struct rdx_ah *ab;
	struct ep a, b;
	int other = 0;

	CU_ASSERT_FATAL(ep_open(&a, dev, NULL, QKEY) == 0);
	CU_ASSERT_FATAL(ep_open(&b, NULL, "sw", QKEY) == 0);
	ab = ah_to(dev, &b.info);
	CU_ASSERT_FATAL(ab != NULL);
	CU_ASSERT_EQUAL(ep_recv(&b, 0, 4, SLOT), 4);
	CU_ASSERT_EQUAL(ud_send(&a, ab, b.qp->qp_num, QKEY, 0, 500, 9, 0), 1);
	/* a's engine runs when a's device is polled: the send first */
	CU_ASSERT_EQUAL(poll_kind(a.cq, wc, 1, false, NULL), 1);
	CU_ASSERT_EQUAL(poll_kind(b.cq, wc, 1, true, &other), 1);
	CU_ASSERT_EQUAL(wc[0].src_qp, a.qp->qp_num);
	CU_ASSERT(payload_ok(rdx_ud_payload(slot_buf(&b, 0)), 500, 9));
	ep_close(&b);
	/* the device is gone: a new AH to it is refused, the old one's
	 * datagrams are dropped (no destination) */
	{
		struct rdx_ah_attr at;

		CU_ASSERT(rdx_ah_attr_from_info(dev, &b.info, &at) == 0);
		CU_ASSERT_PTR_NULL(rdx_ah_create(dev, &at));
	}
	CU_ASSERT_EQUAL(ud_send(&a, ab, b.info.qp_num, QKEY, 0, 10, 10, 0), 1);
	CU_ASSERT_EQUAL(poll_kind(a.cq, wc, 1, false, NULL), 1);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	ud_stats(a.qp, &sa);
	CU_ASSERT_EQUAL(sa.drop_dest, 1);
	CU_ASSERT(rdx_ah_destroy(ab) == 0);
	ep_close(&a);
}

/* thread progress: a burst of 48 both ways */
static void
test_thread_mode(void)
{
	int seen[NSLOT], got, i;
	struct ep a, b;

	CU_ASSERT_FATAL(ep_open(&a, NULL, "sw:progress=thread", QKEY) == 0);
	CU_ASSERT_FATAL(ep_open(&b, a.dev, NULL, QKEY) == 0);
	got = stream(&a, &b, 48, seen, 48);
	CU_ASSERT_EQUAL(got, 48);
	for (i = 0; i < got; i++)
		CU_ASSERT_EQUAL(seen[i], i);
	ep_close(&b);
	ep_close(&a);
}

/* ------------------------------------------------------------------ */
/* Two processes                                                      */

#define XN 20

/* The child: receive XN datagrams (checks bytes and the sender), answer
 * each with one of its own; then report its drop counters. */
static int
child_main(int rfd, int wfd, const char *devname)
{
	struct rdx_sw_ud_stats st;
	struct rdx_qp_info peer;
	struct rdx_wc wc[XN];
	struct rdx_ah *ah;
	struct ep c;
	int i, bad = 0, other = 0;
	char tok;

	if (ep_open(&c, NULL, devname, QKEY) != 0)
		return 100;
	if (ep_recv(&c, 0, XN, SLOT) != XN)
		return 101;
	if (wr_all(wfd, &c.info, sizeof(c.info)) != 0 || rd_all(rfd, &peer, sizeof(peer)) != 0)
		return 102;
	ah = ah_to(c.dev, &peer);
	if (ah == NULL)
		return 103;
	if (wr_all(wfd, "r", 1) != 0)
		return 104;
	if (poll_kind(c.cq, wc, XN, true, &other) != XN)
		return 105;
	for (i = 0; i < XN; i++) {
		uint32_t seq;

		if (wc[i].wr_id >= XN) { /* no slot of ours: nothing to look into */
			bad++;
			continue;
		}
		memcpy(&seq, rdx_ud_payload(slot_buf(&c, (uint32_t)wc[i].wr_id)), 4);
		if (wc[i].status != IBV_WC_SUCCESS || wc[i].src_qp != peer.qp_num ||
		    !(wc[i].wc_flags & RDX_WC_GRH) || seq != (uint32_t)i ||
		    wc[i].byte_len != RDX_UD_GRH_BYTES + 100 + (uint32_t)i ||
		    !payload_ok(rdx_ud_payload(slot_buf(&c, (uint32_t)wc[i].wr_id)),
				100 + (uint32_t)i, (uint32_t)i) ||
		    memcmp(slot_buf(&c, (uint32_t)wc[i].wr_id) + 8, peer.gid, 16) != 0)
			bad++;
	}
	/* answer once the parent has polled all its send completions: an
	 * answer that came while it waited for one was polled and discarded
	 * there (poll_kind keeps one kind), seen as missing answers under load */
	if (rd_all(rfd, &tok, 1) != 0)
		return 109;
	for (i = 0; i < XN; i++) {
		if (ud_send(&c, ah, peer.qp_num, QKEY, 0, 200 + (uint32_t)i, 1000 + (uint32_t)i, 0) != 1)
			bad++;
		if (poll_kind(c.cq, wc, 1, false, NULL) != 1 || wc[0].status != IBV_WC_SUCCESS)
			bad++;
	}
	/* the parent sends two more (no receive posted, bad Q_Key); poll so
	 * nothing else can come, then report */
	if (rd_all(rfd, &tok, 1) != 0)
		return 106;
	poll_rest(c.cq);
	if (rdx_sw_qp_ud_stats(c.qp, &st) != 0)
		return 107;
	if (wr_all(wfd, &st, sizeof(st)) != 0 || rd_all(rfd, &tok, 1) != 0)
		return 108;
	rdx_ah_destroy(ah);
	ep_close(&c);
	return bad > 99 ? 99 : bad;
}

/*
 * The parent's check of the child's XN answers, the got completions
 * polled into wc, `dropped` of them dropped on the way by the device (the
 * child's drop_dest: a lock of ours kept past SW_UD_LOCK_WAIT_NS; UD is
 * unreliable, sw_exec_ud.c): the count of what is
 * wrong, 0 when every answer either came intact, in order, or is one the
 * device counted as dropped. Answer k is 200 + k bytes, so a completion
 * names its answer whatever was dropped before it. Only the completions
 * polled are read, and a wr_id is looked into only when it is one of our
 * slots (reading "its" buffer was a SIGSEGV once after a drop).
 */
static int
answers_bad(struct ep *p, const struct rdx_wc *wc, int got, int dropped, uint32_t peer_qpn)
{
	int i, prev = -1, bad = got + dropped == XN ? 0 : 1 + abs(XN - got - dropped);

	for (i = 0; i < got && i < XN; i++) {
		const int k = (int)wc[i].byte_len - (int)RDX_UD_GRH_BYTES - 200;

		if (wc[i].wr_id >= XN || k <= prev || k >= XN) {
			bad++;
			continue;
		}
		prev = k;
		if (wc[i].src_qp != peer_qpn ||
		    !payload_ok(rdx_ud_payload(slot_buf(p, (uint32_t)wc[i].wr_id)),
				200 + (uint32_t)k, 1000 + (uint32_t)k))
			bad++;
	}
	return bad;
}

static void
two_processes(const char *devname)
{
	struct rdx_sw_ud_stats st;
	struct rdx_qp_info peer;
	struct rdx_wc wc[XN], ans[XN];
	int p2c[2], c2p[2], status = -1, i, other = 0, got;
	struct rdx_ah *ah;
	struct ep p;
	pid_t pid;
	char tok;

	CU_ASSERT_FATAL(pipe(p2c) == 0 && pipe(c2p) == 0);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		close(p2c[1]);
		close(c2p[0]);
		_exit(child_main(p2c[0], c2p[1], devname));
	}
	close(p2c[0]);
	close(c2p[1]);
	CU_ASSERT_FATAL(ep_open(&p, NULL, devname, QKEY) == 0);
	CU_ASSERT_FATAL(ep_recv(&p, 0, XN, SLOT) == XN);
	CU_ASSERT_FATAL(rd_all(c2p[0], &peer, sizeof(peer)) == 0);
	CU_ASSERT_FATAL(wr_all(p2c[1], &p.info, sizeof(p.info)) == 0);
	CU_ASSERT(memcmp(peer.gid, p.info.gid, 16) != 0);
	ah = ah_to(p.dev, &peer);
	CU_ASSERT_FATAL(ah != NULL);
	CU_ASSERT_FATAL(rd_all(c2p[0], &tok, 1) == 0 && tok == 'r');
	for (i = 0; i < XN; i++) {
		CU_ASSERT_EQUAL(ud_send(&p, ah, peer.qp_num, QKEY, 0, 100 + (uint32_t)i,
					(uint32_t)i, 0), 1);
		CU_ASSERT_EQUAL(poll_kind(p.cq, wc, 1, false, NULL), 1);
		CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	}
	CU_ASSERT_FATAL(wr_all(p2c[1], "a", 1) == 0);
	/* the child's answers (checked once its counters are in: st) */
	got = poll_kind(p.cq, ans, XN, true, &other);
	/* the child has no receive left: dropped there; a bad Q_Key: dropped */
	CU_ASSERT_EQUAL(ud_send(&p, ah, peer.qp_num, QKEY, 0, 10, 77, 0), 1);
	CU_ASSERT_EQUAL(ud_send(&p, ah, peer.qp_num, QKEY ^ 1, 0, 10, 78, 0), 1);
	CU_ASSERT_EQUAL(poll_kind(p.cq, wc, 2, false, NULL), 2);
	CU_ASSERT_EQUAL(wr_all(p2c[1], "s", 1), 0);
	CU_ASSERT_FATAL(rd_all(c2p[0], &st, sizeof(st)) == 0);
	CU_ASSERT(st.drop_dest <= XN);
	CU_ASSERT_EQUAL(answers_bad(&p, ans, got, (int)st.drop_dest, peer.qp_num), 0);
	if (st.drop_dest != 0)
		fprintf(stderr, "(%d of %d answers dropped at our CQ's lock, as counted)\n",
			(int)st.drop_dest, XN);
	CU_ASSERT_EQUAL(st.recv, XN);
	CU_ASSERT_EQUAL(st.drop_no_recv, 1);
	CU_ASSERT_EQUAL(st.drop_qkey, 1);
	CU_ASSERT_EQUAL(st.sent, XN);
	CU_ASSERT_EQUAL(wr_all(p2c[1], "x", 1), 0);
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
		fprintf(stderr, "child exit status %d\n", WEXITSTATUS(status));
	CU_ASSERT(rdx_ah_destroy(ah) == 0);
	ep_close(&p);
	close(p2c[1]);
	close(c2p[0]);
}

/* Regression: the parent's check after fewer answers than XN (a datagram
 * dropped at a CQ lock the device once waited for only 100 ms on a loaded
 * machine, seen once as a SIGSEGV in two_processes_thread): the unfilled
 * completions (garbage here) are not looked into, and a wr_id naming no
 * slot is counted, never followed. Before the fix the check read all XN
 * entries and followed their wr_id into memory: SIGSEGV. */
static void
test_answers_short(void)
{
	struct rdx_wc wc[XN];
	struct ep p;

	CU_ASSERT_FATAL(ep_open(&p, NULL, "sw", QKEY) == 0);
	memset(wc, 0xa5, sizeof(wc)); /* wr_id 0xa5a5...: no slot */
	CU_ASSERT_EQUAL(answers_bad(&p, wc, 0, 0, 1), XN + 1);
	CU_ASSERT(answers_bad(&p, wc, XN - 1, 0, 1) > 0);
	CU_ASSERT(answers_bad(&p, wc, XN - 1, 1, 1) == XN - 1); /* counted, none ours */
	CU_ASSERT(answers_bad(&p, wc, XN, 0, 1) == XN); /* all there, none ours */
	ep_close(&p);
}

static void
test_two_processes(void)
{
	two_processes("sw");
}

static void
test_two_processes_thread(void)
{
	two_processes("sw:progress=thread");
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

	if (dev != NULL && rdx_sw_stats_get(dev, &st) == 0 && st.device_errors != 0)
		fprintf(stderr, "device errors: %lu\n", (unsigned long)st.device_errors);
	if (dev != NULL && rdx_sw_stats_get(dev, &st) == 0 && st.device_errors != 0)
		return -1;
	return sw_ut_dev_close(dev);
}

int
main(int argc, char **argv)
{
	static const struct rdx_ut_case cases[] = {
		{ "attr_create", test_attr_create },
		{ "send_recv", test_send_recv },
		{ "drops", test_drops },
		{ "lengths", test_lengths },
		{ "inject", test_inject },
		{ "delay_lifetimes", test_delay_lifetimes },
		{ "two_devices", test_two_devices },
		{ "thread_mode", test_thread_mode },
		{ "answers_short", test_answers_short },
		{ "two_processes", test_two_processes },
		{ "two_processes_thread", test_two_processes_thread },
		{ NULL, NULL },
	};
	(void)argc;
	(void)argv;
	signal(SIGPIPE, SIG_IGN);
	return rdx_ut_run("sw_ud", cases, suite_init, suite_fini);
}
