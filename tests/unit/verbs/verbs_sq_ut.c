/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of drivers/verbs/verbs_sq.h: the translation of rdx_wr bursts
 * into ibv_send_wr lists, the selective-signaling rules, retirement and the
 * receive bookkeeping. No device and no ibverbs call is involved.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "rdx_ut.h"
#include "verbs_sq.h"

#define SLOTS 64

static uint64_t wr_ids[SLOTS];
static uint8_t ops[SLOTS];
static struct ibv_send_wr swr[RDX_MAX_BURST];
static struct ibv_sge sges[RDX_MAX_BURST * 4];
static uint8_t buf[4096];

static void
sq_setup(struct rdx_verbs_sq *sq, uint32_t depth, uint16_t interval, bool burst_end)
{
	memset(wr_ids, 0, sizeof(wr_ids));
	memset(ops, 0xff, sizeof(ops));
	memset(swr, 0, sizeof(swr));
	rdx_verbs_sq_init(sq, wr_ids, ops, rdx_verbs_pow2(depth), depth, 4, 128, interval,
			  burst_end);
}

static struct rdx_sge one_sge = {0, 64, 0x1234};

static void
mk_wr(struct rdx_wr *w, uint64_t id, uint8_t op, uint8_t flags)
{
	memset(w, 0, sizeof(*w));
	one_sge.addr = (uint64_t)(uintptr_t)buf;
	w->wr_id = id;
	w->sge = &one_sge;
	w->num_sge = 1;
	w->opcode = op;
	w->flags = flags;
	w->remote_addr = 0x10000;
	w->rkey = 0x77;
}

/* Post n WRITEs with the given flags; return the count and which were signaled. */
static uint16_t
post(struct rdx_verbs_sq *sq, uint16_t n, uint64_t first_id, uint8_t flags, bool *sig)
{
	struct rdx_wr w[RDX_MAX_BURST + 8];
	uint16_t k, built;

	for (k = 0; k < n; k++)
		mk_wr(&w[k], first_id + k, RDX_OP_WRITE, flags);
	built = rdx_verbs_sq_prepare(sq, w, n, swr, sges);
	for (k = 0; k < built && sig != NULL; k++)
		sig[k] = (swr[k].send_flags & IBV_SEND_SIGNALED) != 0;
	rdx_verbs_sq_commit(sq, swr, built, built);
	return built;
}

static void
test_pow2(void)
{
	CU_ASSERT_EQUAL(rdx_verbs_pow2(1), 1);
	CU_ASSERT_EQUAL(rdx_verbs_pow2(3), 4);
	CU_ASSERT_EQUAL(rdx_verbs_pow2(64), 64);
	CU_ASSERT_EQUAL(rdx_verbs_pow2(65), 128);
}

static void
test_validity(void)
{
	struct rdx_verbs_sq sq;
	struct rdx_sge big = {0, 129, 1};
	struct rdx_wr w;

	sq_setup(&sq, 16, 1, false);
	mk_wr(&w, 1, RDX_OP_NOP, 0);
	CU_ASSERT_FALSE(rdx_verbs_wr_valid(&sq, &w)); /* no RC NOP in verbs */
	mk_wr(&w, 1, RDX_OP_MAX, 0);
	CU_ASSERT_FALSE(rdx_verbs_wr_valid(&sq, &w));
	mk_wr(&w, 1, RDX_OP_WRITE, 0);
	CU_ASSERT_TRUE(rdx_verbs_wr_valid(&sq, &w));
	w.num_sge = 5; /* max_sge 4 */
	CU_ASSERT_FALSE(rdx_verbs_wr_valid(&sq, &w));
	mk_wr(&w, 1, RDX_OP_SEND, RDX_WR_INLINE);
	w.sge = &big; /* 129 > max_inline 128 */
	CU_ASSERT_FALSE(rdx_verbs_wr_valid(&sq, &w));
	big.length = 128;
	CU_ASSERT_TRUE(rdx_verbs_wr_valid(&sq, &w));
	mk_wr(&w, 1, RDX_OP_CAS, 0);
	CU_ASSERT_TRUE(rdx_verbs_wr_valid(&sq, &w));
	w.remote_addr = 0x10004; /* atomics need 8-byte alignment */
	CU_ASSERT_FALSE(rdx_verbs_wr_valid(&sq, &w));
	mk_wr(&w, 1, RDX_OP_FAA, 0);
	w.num_sge = 2;
	CU_ASSERT_FALSE(rdx_verbs_wr_valid(&sq, &w));
	mk_wr(&w, 1, RDX_OP_SEND, 0);
	w.sge = NULL;
	CU_ASSERT_FALSE(rdx_verbs_wr_valid(&sq, &w));
	w.num_sge = 0; /* a zero-length SEND is fine */
	CU_ASSERT_TRUE(rdx_verbs_wr_valid(&sq, &w));
}

static void
test_build_fields(void)
{
	struct rdx_verbs_sq sq;
	struct rdx_sge s2[3] = {
		{0x1000, 10, 5}, {0x2000, 0, 6}, {0x3000, 30, 7},
	};
	struct rdx_wr w[7];
	uint16_t n;

	sq_setup(&sq, 16, 1, false);
	mk_wr(&w[0], 100, RDX_OP_SEND, RDX_WR_INLINE | RDX_WR_SOLICITED);
	mk_wr(&w[1], 101, RDX_OP_SEND_IMM, 0);
	w[1].imm = htonl(0xabcd);
	mk_wr(&w[2], 102, RDX_OP_WRITE, RDX_WR_FENCE);
	w[2].sge = s2;
	w[2].num_sge = 3;
	mk_wr(&w[3], 103, RDX_OP_WRITE_IMM, 0);
	w[3].imm = htonl(7);
	mk_wr(&w[4], 104, RDX_OP_READ, RDX_WR_INLINE);
	mk_wr(&w[5], 105, RDX_OP_CAS, 0);
	w[5].compare_add = 1;
	w[5].swap = 2;
	mk_wr(&w[6], 106, RDX_OP_FAA, 0);
	w[6].compare_add = 3;
	n = rdx_verbs_sq_prepare(&sq, w, 7, swr, sges);
	CU_ASSERT_EQUAL_FATAL(n, 7);
	rdx_verbs_sq_commit(&sq, swr, n, n);

	/* One linked list, wr_id = SQ counter, the app's wr_id in the slot. */
	CU_ASSERT_PTR_EQUAL(swr[0].next, &swr[1]);
	CU_ASSERT_PTR_NULL(swr[6].next);
	CU_ASSERT_EQUAL(swr[3].wr_id, 3);
	CU_ASSERT_EQUAL(wr_ids[3], 103);
	CU_ASSERT_EQUAL(ops[1], RDX_WC_SEND);
	CU_ASSERT_EQUAL(ops[3], RDX_WC_WRITE);
	CU_ASSERT_EQUAL(ops[5], RDX_WC_CAS);

	CU_ASSERT_EQUAL(swr[0].opcode, IBV_WR_SEND);
	CU_ASSERT_TRUE(swr[0].send_flags & IBV_SEND_INLINE);
	CU_ASSERT_TRUE(swr[0].send_flags & IBV_SEND_SOLICITED);
	CU_ASSERT_EQUAL(swr[1].opcode, IBV_WR_SEND_WITH_IMM);
	CU_ASSERT_EQUAL(swr[1].imm_data, htonl(0xabcd));
	CU_ASSERT_FALSE(swr[1].send_flags & IBV_SEND_INLINE);
	/* Zero-length SGEs are dropped. */
	CU_ASSERT_EQUAL(swr[2].opcode, IBV_WR_RDMA_WRITE);
	CU_ASSERT_TRUE(swr[2].send_flags & IBV_SEND_FENCE);
	CU_ASSERT_EQUAL(swr[2].num_sge, 2);
	CU_ASSERT_EQUAL(swr[2].sg_list[1].addr, 0x3000);
	CU_ASSERT_EQUAL(swr[2].sg_list[1].lkey, 7);
	CU_ASSERT_EQUAL(swr[2].wr.rdma.remote_addr, 0x10000);
	CU_ASSERT_EQUAL(swr[2].wr.rdma.rkey, 0x77);
	CU_ASSERT_EQUAL(swr[3].opcode, IBV_WR_RDMA_WRITE_WITH_IMM);
	CU_ASSERT_EQUAL(swr[3].imm_data, htonl(7));
	/* INLINE means nothing for a READ. */
	CU_ASSERT_EQUAL(swr[4].opcode, IBV_WR_RDMA_READ);
	CU_ASSERT_FALSE(swr[4].send_flags & IBV_SEND_INLINE);
	CU_ASSERT_EQUAL(swr[5].opcode, IBV_WR_ATOMIC_CMP_AND_SWP);
	CU_ASSERT_EQUAL(swr[5].wr.atomic.compare_add, 1);
	CU_ASSERT_EQUAL(swr[5].wr.atomic.swap, 2);
	CU_ASSERT_EQUAL(swr[5].wr.atomic.rkey, 0x77);
	CU_ASSERT_EQUAL(swr[5].sg_list[0].length, 8); /* atomic SGE is 8 bytes */
	CU_ASSERT_EQUAL(swr[6].opcode, IBV_WR_ATOMIC_FETCH_AND_ADD);
	CU_ASSERT_EQUAL(swr[6].wr.atomic.compare_add, 3);
}

static void
test_signal_interval(void)
{
	struct rdx_verbs_sq sq;
	bool sig[RDX_MAX_BURST];
	int k, count = 0;

	sq_setup(&sq, 32, 4, false);
	CU_ASSERT_EQUAL_FATAL(post(&sq, 10, 0, 0, sig), 10);
	for (k = 0; k < 10; k++) {
		CU_ASSERT_EQUAL(sig[k], k == 3 || k == 7);
		count += sig[k];
	}
	CU_ASSERT_EQUAL(count, 2);
	CU_ASSERT_EQUAL(sq.unsig, 2);
	/* The run continues across bursts: WR 11 is the 4th since WR 7. */
	CU_ASSERT_EQUAL_FATAL(post(&sq, 2, 10, 0, sig), 2);
	CU_ASSERT_FALSE(sig[0]);
	CU_ASSERT_TRUE(sig[1]);
}

static void
test_signal_every_wr(void)
{
	struct rdx_verbs_sq sq;
	bool sig[8];
	int k;

	sq_setup(&sq, 32, 0, false); /* 0 = every WR */
	CU_ASSERT_EQUAL(sq.sig_interval, 1);
	CU_ASSERT_EQUAL_FATAL(post(&sq, 5, 0, 0, sig), 5);
	for (k = 0; k < 5; k++)
		CU_ASSERT_TRUE(sig[k]);
}

static void
test_signal_burst_end_and_flag(void)
{
	struct rdx_verbs_sq sq;
	struct rdx_wr w[6];
	bool sig[8];
	uint16_t n, k;

	sq_setup(&sq, 32, 16, true);
	CU_ASSERT_EQUAL_FATAL(post(&sq, 5, 0, 0, sig), 5);
	for (k = 0; k < 5; k++)
		CU_ASSERT_EQUAL(sig[k], k == 4);
	CU_ASSERT_EQUAL(sq.unsig, 0);
	/* An explicit SIGNALED resets the run. */
	sq_setup(&sq, 32, 4, false);
	for (k = 0; k < 6; k++)
		mk_wr(&w[k], k, RDX_OP_WRITE, k == 1 ? RDX_WR_SIGNALED : 0);
	n = rdx_verbs_sq_prepare(&sq, w, 6, swr, sges);
	CU_ASSERT_EQUAL_FATAL(n, 6);
	CU_ASSERT_FALSE(swr[0].send_flags & IBV_SEND_SIGNALED);
	CU_ASSERT_TRUE(swr[1].send_flags & IBV_SEND_SIGNALED);
	CU_ASSERT_FALSE(swr[4].send_flags & IBV_SEND_SIGNALED);
	CU_ASSERT_TRUE(swr[5].send_flags & IBV_SEND_SIGNALED);
	/* An invalid WR cuts the burst: the burst-end signal goes to the
	 * last valid WR. */
	sq_setup(&sq, 32, 16, true);
	for (k = 0; k < 6; k++)
		mk_wr(&w[k], k, k == 3 ? RDX_OP_NOP : RDX_OP_WRITE, 0);
	n = rdx_verbs_sq_prepare(&sq, w, 6, swr, sges);
	CU_ASSERT_EQUAL_FATAL(n, 3);
	CU_ASSERT_TRUE(swr[2].send_flags & IBV_SEND_SIGNALED);
	CU_ASSERT_PTR_NULL(swr[2].next);
}

/* Never deadlock: the WR taking the last slot is signaled when nothing
 * signaled is outstanding, and posting never exceeds the free space. */
static void
test_signal_fill(void)
{
	struct rdx_verbs_sq sq;
	struct rdx_wc wc = {0};
	bool sig[16];
	int k;

	sq_setup(&sq, 8, 100, false);
	CU_ASSERT_EQUAL_FATAL(post(&sq, 10, 0, 0, sig), 8); /* short count */
	for (k = 0; k < 8; k++)
		CU_ASSERT_EQUAL(sig[k], k == 7);
	CU_ASSERT_EQUAL(post(&sq, 1, 8, 0, sig), 0);
	wc.retired = rdx_verbs_sq_retire(&sq, 7, &wc);
	CU_ASSERT_EQUAL(wc.retired, 8);
	CU_ASSERT_EQUAL(rdx_verbs_sq_free(&sq), 8);

	/* A signaled WR outstanding: filling needs no extra signal... */
	sq_setup(&sq, 8, 100, false);
	CU_ASSERT_EQUAL_FATAL(post(&sq, 1, 0, RDX_WR_SIGNALED, sig), 1);
	CU_ASSERT_EQUAL_FATAL(post(&sq, 7, 1, 0, sig), 7);
	for (k = 0; k < 7; k++)
		CU_ASSERT_FALSE(sig[k]);
	/* ...and once it is retired, the next WR to fill the SQ is signaled. */
	wc.retired = rdx_verbs_sq_retire(&sq, 0, &wc);
	CU_ASSERT_EQUAL(wc.retired, 1);
	CU_ASSERT_EQUAL_FATAL(post(&sq, 3, 8, 0, sig), 1);
	CU_ASSERT_TRUE(sig[0]);
	wc.retired = rdx_verbs_sq_retire(&sq, 8, &wc);
	CU_ASSERT_EQUAL(wc.retired, 8);
	CU_ASSERT_EQUAL(sq.tail, sq.head);
}

static void
test_burst_clamp(void)
{
	struct rdx_verbs_sq sq;

	rdx_verbs_sq_init(&sq, wr_ids, ops, SLOTS, SLOTS, 4, 0, 8, false);
	CU_ASSERT_EQUAL(post(&sq, RDX_MAX_BURST + 5, 0, 0, NULL), RDX_MAX_BURST);
}

static void
test_partial_commit(void)
{
	struct rdx_verbs_sq sq;
	struct rdx_wr w[6];
	uint16_t n, k;

	sq_setup(&sq, 32, 3, false);
	for (k = 0; k < 6; k++)
		mk_wr(&w[k], k, RDX_OP_WRITE, 0);
	n = rdx_verbs_sq_prepare(&sq, w, 6, swr, sges);
	CU_ASSERT_EQUAL_FATAL(n, 6);
	/* The provider took only 4: WR 2 was signaled, 3 is the 1st of a run. */
	rdx_verbs_sq_commit(&sq, swr, n, 4);
	CU_ASSERT_EQUAL(sq.head, 4);
	CU_ASSERT_EQUAL(sq.unsig, 1);
	CU_ASSERT_EQUAL(sq.sig_end, 3);
	rdx_verbs_sq_commit(&sq, swr, 2, 0);
	CU_ASSERT_EQUAL(sq.head, 4);
}

static void
test_retired_wr_ids(void)
{
	struct rdx_verbs_sq sq;
	struct rdx_wc wc[2] = {{0}}, copy;
	bool sig[16];
	uint16_t i;

	sq_setup(&sq, 16, 4, false);
	CU_ASSERT_EQUAL_FATAL(post(&sq, 8, 500, 0, sig), 8); /* signaled: 3 and 7 */
	wc[0].wr_id = wr_ids[3];
	wc[0].retired = rdx_verbs_sq_retire(&sq, 3, &wc[0]);
	wc[1].wr_id = wr_ids[7];
	wc[1].retired = rdx_verbs_sq_retire(&sq, 7, &wc[1]);
	CU_ASSERT_EQUAL(wc[0].retired, 4);
	CU_ASSERT_EQUAL(wc[1].retired, 4);
	for (i = 0; i < 4; i++) {
		CU_ASSERT_EQUAL(rdx_verbs_sq_retired_wr_id(&sq, &wc[0], i), 500u + i);
		CU_ASSERT_EQUAL(rdx_verbs_sq_retired_wr_id(&sq, &wc[1], i), 504u + i);
	}
	CU_ASSERT_EQUAL(rdx_verbs_sq_retired_wr_id(&sq, &wc[0], 4), 0);
	/* A copy of the completion still finds its WRs. */
	copy = wc[0];
	CU_ASSERT_EQUAL(rdx_verbs_sq_retired_wr_id(&sq, &copy, 1), 501);
	/* A completion for a WR that is not outstanding retires nothing. */
	CU_ASSERT_EQUAL(rdx_verbs_sq_retire(&sq, 100, &copy), 1);
	CU_ASSERT_EQUAL(sq.tail, 8);
}

static void
test_wrap(void)
{
	struct rdx_verbs_sq sq;
	struct rdx_wc wc = {0};
	bool sig[8];
	int round;

	/* Counters wrap past 2^32 and slots past the mask. */
	sq_setup(&sq, 8, 4, false);
	sq.head = sq.tail = sq.sig_end = UINT32_MAX - 20;
	for (round = 0; round < 12; round++) {
		CU_ASSERT_EQUAL_FATAL(post(&sq, 4, (uint64_t)round * 4, 0, sig), 4);
		CU_ASSERT_TRUE(sig[3]);
		wc.wr_id = (uint64_t)round * 4 + 3;
		wc.retired = rdx_verbs_sq_retire(&sq, sq.head - 1, &wc);
		CU_ASSERT_EQUAL(wc.retired, 4);
		CU_ASSERT_EQUAL(rdx_verbs_sq_retired_wr_id(&sq, &wc, 0), (uint64_t)round * 4);
	}
	CU_ASSERT_TRUE(sq.head < 100);
}

static void
test_rq(void)
{
	struct rdx_verbs_rq rq;
	uint64_t ids[8];
	struct ibv_recv_wr rwr[RDX_MAX_BURST];
	struct ibv_sge rs[RDX_MAX_BURST * 2];
	struct rdx_sge s[2] = {{0x100, 0, 1}, {0x200, 64, 2}};
	struct rdx_recv_wr r[10];
	uint16_t k, n;

	rdx_verbs_rq_init(&rq, ids, 8, 6, 2);
	for (k = 0; k < 10; k++) {
		r[k].wr_id = 900 + k;
		r[k].sge = s;
		r[k].num_sge = 2;
	}
	n = rdx_verbs_rq_prepare(&rq, r, 10, rwr, rs);
	CU_ASSERT_EQUAL_FATAL(n, 6); /* depth 6 */
	rdx_verbs_rq_commit(&rq, n);
	CU_ASSERT_PTR_NULL(rwr[5].next);
	CU_ASSERT_EQUAL(rwr[2].wr_id, RDX_VERBS_RECV_TAG | 2);
	CU_ASSERT_EQUAL(rwr[2].num_sge, 1); /* zero-length SGE dropped */
	CU_ASSERT_EQUAL(rwr[2].sg_list[0].addr, 0x200);
	CU_ASSERT_EQUAL(rdx_verbs_rq_prepare(&rq, r, 1, rwr, rs), 0);
	CU_ASSERT_EQUAL(rdx_verbs_rq_complete(&rq, 0), 900);
	CU_ASSERT_EQUAL(rdx_verbs_rq_complete(&rq, 1), 901);
	n = rdx_verbs_rq_prepare(&rq, r + 6, 4, rwr, rs);
	CU_ASSERT_EQUAL(n, 2);
	rdx_verbs_rq_commit(&rq, n);
	CU_ASSERT_EQUAL(rwr[0].wr_id, RDX_VERBS_RECV_TAG | 6);
	CU_ASSERT_EQUAL(rdx_verbs_rq_complete(&rq, 6), 906);
	r[0].num_sge = 3; /* more than max_sge */
	CU_ASSERT_EQUAL(rdx_verbs_rq_prepare(&rq, r, 1, rwr, rs), 0);
}

/* UD: SEND/SEND_IMM with an AH only; the destination per WR in wr.ud. */
static void
test_ud(void)
{
	struct rdx_verbs_ah vah = { .ah = (struct ibv_ah *)(uintptr_t)0xa11a };
	struct rdx_verbs_sq sq;
	struct rdx_wr w[2];
	uint16_t n;

	sq_setup(&sq, 16, 1, false);
	sq.ud = true;
	mk_wr(&w[0], 1, RDX_OP_WRITE, 0);
	w[0].ah = &vah.base;
	CU_ASSERT_FALSE(rdx_verbs_wr_valid(&sq, &w[0]));
	w[0].opcode = RDX_OP_READ;
	CU_ASSERT_FALSE(rdx_verbs_wr_valid(&sq, &w[0]));
	w[0].opcode = RDX_OP_FAA;
	CU_ASSERT_FALSE(rdx_verbs_wr_valid(&sq, &w[0]));
	w[0].opcode = RDX_OP_NOP;
	CU_ASSERT_FALSE(rdx_verbs_wr_valid(&sq, &w[0]));
	mk_wr(&w[0], 1, RDX_OP_SEND, 0);
	w[0].ah = NULL;
	CU_ASSERT_FALSE(rdx_verbs_wr_valid(&sq, &w[0]));
	w[0].ah = &vah.base;
	w[0].remote_qpn = 0x1abcdef; /* 24 bits on the wire */
	w[0].remote_qkey = 0x11223344;
	CU_ASSERT_TRUE(rdx_verbs_wr_valid(&sq, &w[0]));
	/* above the path MTU: refused at post (rxe would send it) */
	sq.max_msg = w[0].sge[0].length - 1;
	CU_ASSERT_FALSE(rdx_verbs_wr_valid(&sq, &w[0]));
	sq.max_msg = w[0].sge[0].length;
	CU_ASSERT_TRUE(rdx_verbs_wr_valid(&sq, &w[0]));
	sq.max_msg = 0;
	mk_wr(&w[1], 2, RDX_OP_SEND_IMM, RDX_WR_INLINE);
	w[1].ah = &vah.base;
	w[1].remote_qpn = 7;
	w[1].remote_qkey = 9;
	w[1].imm = htonl(5);
	n = rdx_verbs_sq_prepare(&sq, w, 2, swr, sges);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_EQUAL(swr[0].opcode, IBV_WR_SEND);
	CU_ASSERT_PTR_EQUAL(swr[0].wr.ud.ah, vah.ah);
	CU_ASSERT_EQUAL(swr[0].wr.ud.remote_qpn, 0xabcdef);
	CU_ASSERT_EQUAL(swr[0].wr.ud.remote_qkey, 0x11223344);
	CU_ASSERT_EQUAL(swr[1].opcode, IBV_WR_SEND_WITH_IMM);
	CU_ASSERT_EQUAL(swr[1].imm_data, htonl(5));
	CU_ASSERT_EQUAL(swr[1].wr.ud.remote_qpn, 7);
	CU_ASSERT_EQUAL(swr[1].wr.ud.remote_qkey, 9);
	CU_ASSERT(swr[1].send_flags & IBV_SEND_INLINE);
	rdx_verbs_sq_commit(&sq, swr, n, n);
	/* a burst stops at the first invalid WR */
	mk_wr(&w[0], 3, RDX_OP_SEND, 0);
	w[0].ah = &vah.base;
	mk_wr(&w[1], 4, RDX_OP_WRITE, 0);
	CU_ASSERT_EQUAL(rdx_verbs_sq_prepare(&sq, w, 2, swr, sges), 1);
}

/* UD control-path arguments: AH attributes, the modify steps, the MTU. */
static void
test_ud_args(void)
{
	struct rdx_ah_attr aa;
	struct ibv_ah_attr ia;
	struct ibv_qp_attr qa;
	int mask;

	memset(&aa, 0, sizeof(aa));
	aa.port = 1;
	aa.lid = 0x12;
	aa.sl = 3;
	aa.sgid_index = -1;
	aa.hop_limit = 64;
	/* IB with LIDs: no GRH, no GID index needed */
	CU_ASSERT_PTR_NULL(rdx_verbs_ah_attr(&aa, 1, -1, 0, &ia));
	CU_ASSERT_EQUAL(ia.dlid, 0x12);
	CU_ASSERT_EQUAL(ia.sl, 3);
	CU_ASSERT_EQUAL(ia.is_global, 0);
	CU_ASSERT_EQUAL(ia.port_num, 1);
	/* RoCE: a GRH from the device's GID index */
	aa.is_global = 1;
	aa.gid[15] = 0x42;
	aa.flow_label = 0x12345;
	aa.traffic_class = 0x20;
	CU_ASSERT_PTR_NOT_NULL(rdx_verbs_ah_attr(&aa, 1, -1, 4, &ia));
	CU_ASSERT_PTR_NULL(rdx_verbs_ah_attr(&aa, 1, 3, 4, &ia));
	CU_ASSERT_EQUAL(ia.is_global, 1);
	CU_ASSERT_EQUAL(ia.grh.sgid_index, 3);
	CU_ASSERT_EQUAL(ia.grh.dgid.raw[15], 0x42);
	CU_ASSERT_EQUAL(ia.grh.flow_label, 0x12345);
	CU_ASSERT_EQUAL(ia.grh.hop_limit, 64);
	CU_ASSERT_EQUAL(ia.grh.traffic_class, 0x20);
	aa.sgid_index = 2;
	CU_ASSERT_PTR_NULL(rdx_verbs_ah_attr(&aa, 1, 3, 4, &ia));
	CU_ASSERT_EQUAL(ia.grh.sgid_index, 2);
	aa.sgid_index = 4; /* beyond the table */
	CU_ASSERT_PTR_NOT_NULL(rdx_verbs_ah_attr(&aa, 1, 3, 4, &ia));
	aa.sgid_index = -1;
	aa.port = 2;
	CU_ASSERT_PTR_NOT_NULL(rdx_verbs_ah_attr(&aa, 1, 3, 4, &ia));
	/* INIT (port, P_Key index 0, Q_Key), RTR, RTS (SQ PSN) */
	mask = rdx_verbs_ud_step(0, 2, 0x1234, 0, &qa);
	CU_ASSERT_EQUAL(mask, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY);
	CU_ASSERT_EQUAL(qa.qp_state, IBV_QPS_INIT);
	CU_ASSERT_EQUAL(qa.port_num, 2);
	CU_ASSERT_EQUAL(qa.pkey_index, 0);
	CU_ASSERT_EQUAL(qa.qkey, 0x1234);
	mask = rdx_verbs_ud_step(1, 2, 0x1234, 0, &qa);
	CU_ASSERT_EQUAL(mask, IBV_QP_STATE);
	CU_ASSERT_EQUAL(qa.qp_state, IBV_QPS_RTR);
	mask = rdx_verbs_ud_step(2, 2, 0x1234, 0x1abcdef, &qa);
	CU_ASSERT_EQUAL(mask, IBV_QP_STATE | IBV_QP_SQ_PSN);
	CU_ASSERT_EQUAL(qa.qp_state, IBV_QPS_RTS);
	CU_ASSERT_EQUAL(qa.sq_psn, 0xabcdef);
	CU_ASSERT_EQUAL(rdx_verbs_ud_max_msg(IBV_MTU_256), 256);
	CU_ASSERT_EQUAL(rdx_verbs_ud_max_msg(IBV_MTU_1024), 1024);
	CU_ASSERT_EQUAL(rdx_verbs_ud_max_msg(IBV_MTU_4096), 4096);
	CU_ASSERT_EQUAL(rdx_verbs_ud_max_msg(0), 0);
	CU_ASSERT_EQUAL(rdx_verbs_ud_max_msg(6), 0);
}

/* The one-WR build (rdx_verbs_sq_prepare_one) gives what the general
 * prepare gives for a burst of one, WR by WR, over every opcode, flag,
 * SGE shape and signaling state (a full SQ, invalid WRs included). */
static void
test_prepare_one(void)
{
	static uint64_t ids_b[SLOTS];
	static uint8_t ops_b[SLOTS];
	static struct ibv_send_wr swr_b[RDX_MAX_BURST];
	static struct ibv_sge sges_b[RDX_MAX_BURST * 4];
	static const uint8_t opc[] = {
		RDX_OP_SEND, RDX_OP_SEND_IMM, RDX_OP_WRITE, RDX_OP_WRITE_IMM, RDX_OP_READ,
		RDX_OP_CAS, RDX_OP_FAA, RDX_OP_NOP, RDX_OP_MAX,
	};
	struct rdx_sge two[2] = {{0x5000, 16, 0x11}, {0x6000, 0, 0x12}};
	struct rdx_sge big = {0x7000, 200, 0x13}, empty = {0x8000, 0, 0x14};
	struct rdx_verbs_sq a, b;
	struct rdx_wc wc = {0};
	uint32_t seed = 12345, i, j, built_total = 0;
	uint16_t ka, kb;
	struct rdx_wr w;

	for (i = 0; i < 4000; i++) {
		if (i % 500 == 0) {
			uint16_t interval = (uint16_t)(1 + (i / 500) % 4);
			bool burst_end = (i / 500) % 2 == 1;

			sq_setup(&a, 8, interval, burst_end);
			memset(ids_b, 0, sizeof(ids_b));
			memset(ops_b, 0xff, sizeof(ops_b));
			rdx_verbs_sq_init(&b, ids_b, ops_b, 8, 8, 4, 128, interval, burst_end);
		}
		seed = seed * 1103515245u + 12345u;
		mk_wr(&w, 1000 + i, opc[(seed >> 8) % (uint32_t)sizeof(opc)], (uint8_t)((seed >> 12) & 0xf));
		w.imm = htonl(i);
		w.compare_add = i;
		w.swap = i + 1;
		switch ((seed >> 16) % 8) {
		case 0: w.sge = two; w.num_sge = 2; break;
		case 1: w.sge = &big; break;
		case 2: w.sge = &empty; break;
		case 3: w.num_sge = 0; w.sge = NULL; break;
		case 4: w.remote_addr = 0x10004; break; /* unaligned for atomics */
		default: break;
		}
		ka = rdx_verbs_sq_prepare_one(&a, &w, swr, sges);
		kb = rdx_verbs_sq_prepare(&b, &w, 1, swr_b, sges_b);
		CU_ASSERT_EQUAL_FATAL(ka, kb);
		if (ka == 1) {
			built_total++;
			CU_ASSERT_EQUAL(swr[0].wr_id, swr_b[0].wr_id);
			CU_ASSERT_PTR_NULL(swr[0].next);
			CU_ASSERT_EQUAL(swr[0].opcode, swr_b[0].opcode);
			CU_ASSERT_EQUAL(swr[0].send_flags, swr_b[0].send_flags);
			CU_ASSERT_EQUAL(swr[0].imm_data, swr_b[0].imm_data);
			CU_ASSERT_EQUAL_FATAL(swr[0].num_sge, swr_b[0].num_sge);
			for (j = 0; j < (uint32_t)swr[0].num_sge; j++) {
				CU_ASSERT_EQUAL(swr[0].sg_list[j].addr, swr_b[0].sg_list[j].addr);
				CU_ASSERT_EQUAL(swr[0].sg_list[j].length, swr_b[0].sg_list[j].length);
				CU_ASSERT_EQUAL(swr[0].sg_list[j].lkey, swr_b[0].sg_list[j].lkey);
			}
			if (swr[0].opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
			    swr[0].opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
				CU_ASSERT_EQUAL(swr[0].wr.atomic.remote_addr, swr_b[0].wr.atomic.remote_addr);
				CU_ASSERT_EQUAL(swr[0].wr.atomic.compare_add, swr_b[0].wr.atomic.compare_add);
				CU_ASSERT_EQUAL(swr[0].wr.atomic.swap, swr_b[0].wr.atomic.swap);
				CU_ASSERT_EQUAL(swr[0].wr.atomic.rkey, swr_b[0].wr.atomic.rkey);
			} else if (swr[0].opcode != IBV_WR_SEND && swr[0].opcode != IBV_WR_SEND_WITH_IMM) {
				CU_ASSERT_EQUAL(swr[0].wr.rdma.remote_addr, swr_b[0].wr.rdma.remote_addr);
				CU_ASSERT_EQUAL(swr[0].wr.rdma.rkey, swr_b[0].wr.rdma.rkey);
			}
		}
		rdx_verbs_sq_commit(&a, swr, ka, ka);
		rdx_verbs_sq_commit(&b, swr_b, kb, kb);
		CU_ASSERT_EQUAL_FATAL(a.head, b.head);
		CU_ASSERT_EQUAL_FATAL(a.unsig, b.unsig);
		CU_ASSERT_EQUAL_FATAL(a.sig_end, b.sig_end);
		CU_ASSERT_EQUAL(memcmp(a.op, b.op, 8), 0);
		CU_ASSERT_EQUAL(memcmp(a.wr_id, b.wr_id, 8 * sizeof(uint64_t)), 0);
		/* now and then the newest signaled WR completes (both alike) */
		if ((seed >> 24) % 3 == 0 && (int32_t)(a.sig_end - a.tail) > 0) {
			wc.retired = rdx_verbs_sq_retire(&a, a.sig_end - 1, &wc);
			CU_ASSERT_EQUAL(rdx_verbs_sq_retire(&b, b.sig_end - 1, &wc), wc.retired);
		}
	}
	/* the mix exercised the one-WR build, the fallbacks and the refusals */
	CU_ASSERT(built_total > 1000 && built_total < 4000);
}

/* Every WR kind (opcode x the 16 flag combinations) in every signaling
 * state the rule distinguishes (interval 1 and 3, burst end on and off, an
 * SQ one slot from full with and without a signaled WR outstanding): the
 * one-WR build and the general build set the same opcode, send_flags,
 * immediate and completion opcode, and both match the verbs opcode and
 * flags written out here by hand (not taken from the driver's table). */
static void
test_same_kinds(void)
{
	static const struct {
		uint8_t op;
		enum ibv_wr_opcode ibv;
		uint8_t wc;
		bool imm;
	} kinds[] = {
		{RDX_OP_SEND, IBV_WR_SEND, RDX_WC_SEND, false},
		{RDX_OP_SEND_IMM, IBV_WR_SEND_WITH_IMM, RDX_WC_SEND, true},
		{RDX_OP_WRITE, IBV_WR_RDMA_WRITE, RDX_WC_WRITE, false},
		{RDX_OP_WRITE_IMM, IBV_WR_RDMA_WRITE_WITH_IMM, RDX_WC_WRITE, true},
		{RDX_OP_READ, IBV_WR_RDMA_READ, RDX_WC_READ, false},
		{RDX_OP_CAS, IBV_WR_ATOMIC_CMP_AND_SWP, RDX_WC_CAS, false},
		{RDX_OP_FAA, IBV_WR_ATOMIC_FETCH_AND_ADD, RDX_WC_FAA, false},
	};
	static uint64_t ids_b[SLOTS];
	static uint8_t ops_b[SLOTS];
	static struct ibv_send_wr swr_b[RDX_MAX_BURST];
	static struct ibv_sge sges_b[RDX_MAX_BURST * 4];
	struct rdx_verbs_sq a, b;
	unsigned int want, k, f, st, checked = 0;
	uint16_t ka, kb, pre, j;
	struct rdx_wr w;

	CU_ASSERT_EQUAL(rdx_verbs_wc_op_of(RDX_OP_NOP), RDX_WC_NOP);
	CU_ASSERT_EQUAL(rdx_verbs_wc_op_of(RDX_OP_MAX), RDX_WC_UNKNOWN);
	CU_ASSERT_EQUAL(rdx_verbs_wc_op_of(200), RDX_WC_UNKNOWN);
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		for (f = 0; f < 16; f++) {
			for (st = 0; st < 6; st++) {
				const uint16_t interval = st == 1 ? 1 : 3;
				const bool burst_end = st == 2;

				/* st 3: 3 unsignaled WRs in a 4-deep SQ (the 4th
				 * must signal); st 4: the same after a signaled
				 * one (need not); st 5: one unsignaled WR posted */
				sq_setup(&a, 4, st >= 3 ? 8 : interval, burst_end);
				memset(ids_b, 0, sizeof(ids_b));
				memset(ops_b, 0xff, sizeof(ops_b));
				rdx_verbs_sq_init(&b, ids_b, ops_b, 4, 4, 4, 128,
						  st >= 3 ? 8 : interval, burst_end);
				pre = st == 3 || st == 4 ? 3 : st == 5 ? 1 : 0;
				for (j = 0; j < pre; j++) {
					uint8_t pf = st == 4 && j == 0 ? RDX_WR_SIGNALED : 0;

					mk_wr(&w, j, RDX_OP_WRITE, pf);
					ka = rdx_verbs_sq_prepare_one(&a, &w, swr, sges);
					rdx_verbs_sq_commit(&a, swr, ka, ka);
					kb = rdx_verbs_sq_prepare(&b, &w, 1, swr_b, sges_b);
					rdx_verbs_sq_commit(&b, swr_b, kb, kb);
				}
				mk_wr(&w, 99, kinds[k].op, (uint8_t)f);
				one_sge.length = 8;
				w.imm = htonl(0xabcd);
				ka = rdx_verbs_sq_prepare_one(&a, &w, swr, sges);
				kb = rdx_verbs_sq_prepare(&b, &w, 1, swr_b, sges_b);
				CU_ASSERT_EQUAL_FATAL(ka, 1);
				CU_ASSERT_EQUAL_FATAL(kb, 1);
				want = 0;
				if ((f & RDX_WR_SIGNALED) || interval == 1 || burst_end || st == 3)
					want |= IBV_SEND_SIGNALED;
				if ((f & RDX_WR_INLINE) && kinds[k].op <= RDX_OP_WRITE_IMM)
					want |= IBV_SEND_INLINE;
				if (f & RDX_WR_FENCE)
					want |= IBV_SEND_FENCE;
				if (f & RDX_WR_SOLICITED)
					want |= IBV_SEND_SOLICITED;
				CU_ASSERT_EQUAL(swr[0].send_flags, want);
				CU_ASSERT_EQUAL(swr_b[0].send_flags, want);
				CU_ASSERT_EQUAL(swr[0].opcode, kinds[k].ibv);
				CU_ASSERT_EQUAL(swr_b[0].opcode, kinds[k].ibv);
				CU_ASSERT_EQUAL(swr[0].imm_data, kinds[k].imm ? htonl(0xabcd) : 0);
				CU_ASSERT_EQUAL(swr_b[0].imm_data, swr[0].imm_data);
				CU_ASSERT_EQUAL(a.op[pre & a.mask], kinds[k].wc);
				CU_ASSERT_EQUAL(b.op[pre & b.mask], kinds[k].wc);
				CU_ASSERT_EQUAL(a.p_unsig, b.p_unsig);
				CU_ASSERT_EQUAL(a.p_sig_end, b.p_sig_end);
				checked++;
			}
		}
	}
	one_sge.length = 64;
	CU_ASSERT_EQUAL(checked, 7 * 16 * 6);
}

/* The one-WR build after a general burst reused swr[0] (its link, SGE
 * pointer and count are written again), and completions that retire one
 * WR each after multi-WR ones: each answers its own wr_id without a
 * record in the log. */
static void
test_one_after_burst(void)
{
	struct rdx_verbs_sq sq;
	struct rdx_wc multi = {0}, one = {0};
	struct rdx_sge two[2] = {{0x5000, 16, 0x11}, {0x6000, 16, 0x12}};
	struct rdx_wr w;
	uint32_t i;
	uint16_t k;

	sq_setup(&sq, 16, 4, false);
	mk_wr(&w, 1, RDX_OP_WRITE, 0);
	CU_ASSERT_EQUAL_FATAL(rdx_verbs_sq_prepare_one(&sq, &w, swr, sges), 1);
	rdx_verbs_sq_commit(&sq, swr, 1, 1);
	CU_ASSERT_EQUAL_FATAL(post(&sq, 3, 2, 0, NULL), 3); /* 4th WR: signaled */
	CU_ASSERT_PTR_EQUAL(swr[0].next, &swr[1]);
	w.sge = two;
	w.num_sge = 2;
	CU_ASSERT_EQUAL_FATAL(rdx_verbs_sq_prepare_one(&sq, &w, swr, sges), 1);
	rdx_verbs_sq_commit(&sq, swr, 1, 1);
	CU_ASSERT_EQUAL(swr[0].num_sge, 2);
	mk_wr(&w, 5, RDX_OP_READ, RDX_WR_SIGNALED);
	CU_ASSERT_EQUAL_FATAL(rdx_verbs_sq_prepare_one(&sq, &w, swr, sges), 1);
	CU_ASSERT_PTR_NULL(swr[0].next);
	CU_ASSERT_PTR_EQUAL(swr[0].sg_list, &sges[0]);
	CU_ASSERT_EQUAL(swr[0].num_sge, 1);
	CU_ASSERT_EQUAL(swr[0].opcode, IBV_WR_RDMA_READ);
	rdx_verbs_sq_commit(&sq, swr, 1, 1);
	/* WRs 0-3 retire together, 4 and 5 together (5 was signaled) */
	multi.wr_id = wr_ids[3];
	multi.retired = rdx_verbs_sq_retire(&sq, 3, &multi);
	CU_ASSERT_EQUAL_FATAL(multi.retired, 4);
	for (i = 0; i < 2 * RDX_VERBS_RET_LOG; i++) {
		mk_wr(&w, 100 + i, RDX_OP_WRITE, RDX_WR_SIGNALED);
		k = rdx_verbs_sq_prepare_one(&sq, &w, swr, sges);
		rdx_verbs_sq_commit(&sq, swr, k, k);
		one.wr_id = sq.wr_id[(sq.head - 1) & sq.mask];
		one.retired = rdx_verbs_sq_retire(&sq, sq.head - 1, &one);
		if (i == 0) {
			CU_ASSERT_EQUAL(one.retired, 3); /* 4, 5 and this one */
			CU_ASSERT_EQUAL(rdx_verbs_sq_retired_wr_id(&sq, &one, 0), 1);
			CU_ASSERT_EQUAL(rdx_verbs_sq_retired_wr_id(&sq, &one, 1), 5);
			CU_ASSERT_EQUAL(rdx_verbs_sq_retired_wr_id(&sq, &one, 2), 100);
			continue;
		}
		CU_ASSERT_EQUAL(one.retired, 1);
		CU_ASSERT_EQUAL(rdx_verbs_sq_retired_wr_id(&sq, &one, 0), 100 + i);
		CU_ASSERT_EQUAL(rdx_verbs_sq_retired_wr_id(&sq, &one, 1), 0);
	}
	CU_ASSERT_EQUAL(sq.tail, sq.head);
	/* two records (the 4 and the 3); the single-WR retirements kept none */
	CU_ASSERT_EQUAL(sq.ret_pos, 2u);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{"pow2", test_pow2},
		{"validity", test_validity},
		{"build_fields", test_build_fields},
		{"signal_interval", test_signal_interval},
		{"signal_every_wr", test_signal_every_wr},
		{"signal_burst_end_and_flag", test_signal_burst_end_and_flag},
		{"signal_fill", test_signal_fill},
		{"burst_clamp", test_burst_clamp},
		{"partial_commit", test_partial_commit},
		{"retired_wr_ids", test_retired_wr_ids},
		{"wrap", test_wrap},
		{"rq", test_rq},
		{"ud", test_ud},
		{"ud_args", test_ud_args},
		{"prepare_one", test_prepare_one},
		{"same_kinds", test_same_kinds},
		{"one_after_burst", test_one_after_burst},
		{NULL, NULL},
	};

	return rdx_ut_run("verbs_sq", cases, NULL, NULL);
}
