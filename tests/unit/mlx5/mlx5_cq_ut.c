/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of completion polling (drivers/mlx5/mlx5_cq.c) on the fake device
 * of mlx5_ut_fake.h: owner bit across wraps, 128-byte CQEs, retiring runs
 * of unsignaled WQEs, responder, error and flush CQEs, several QPs on one
 * CQ, a backend's own poll op, and a device thread completing concurrently.
 */
#include "mlx5_ut_fixture.h"

static void
test_cq_owner_wrap(void)
{
	struct qp_opts o = default_opts;
	struct rdx_wc wc[8];
	struct rdx_wr wr;
	unsigned int round, k, got;

	o.cqe_cnt = 4;
	o.sq_bb = 64;
	fake_setup(&o);
	memset(&wr, 0, sizeof(wr));
	/* 5 rounds of 3 signaled NOPs: CQEs wrap the 4-entry ring repeatedly */
	for (round = 0; round < 5; round++) {
		uint32_t base = f->qp.sq_cur_post;

		for (k = 0; k < 3; k++) {
			wr.wr_id = round * 10 + k;
			CU_ASSERT(post1(&wr) == 1);
		}
		/* nothing written yet: stale CQEs from the last lap are not ours */
		CU_ASSERT(rdx_cq_poll_burst(cq(), wc, 8) == 0);
		for (k = 0; k < 3; k++)
			cqe_req(QPN, (uint16_t)(base + k), MLX5_OPCODE_NOP, 0);
		got = rdx_cq_poll_burst(cq(), wc, 2);
		got += rdx_cq_poll_burst(cq(), wc + 2, 8);
		CU_ASSERT(got == 3);
		for (k = 0; k < 3; k++) {
			CU_ASSERT(wc[k].wr_id == round * 10 + k);
			CU_ASSERT(wc[k].status == IBV_WC_SUCCESS);
			CU_ASSERT(wc[k].retired == 1);
			CU_ASSERT(wc[k].opcode == RDX_WC_NOP);
			CU_ASSERT(wc[k].qp_ctx == &f->qp);
			CU_ASSERT(wc[k].qp_num == QPN);
		}
		CU_ASSERT(be32toh(f->cq_dbrec[0]) == f->cq_pi);
	}
	CU_ASSERT(f->cq_obj.stats.polls == 10);
	fake_teardown();
}

static void
test_cq_128b(void)
{
	struct qp_opts o = default_opts;
	struct rdx_wc wc[4];
	struct rdx_wr wr;

	o.cqe_size = 128;
	o.cqe_cnt = 2;
	fake_setup(&o);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 5;
	CU_ASSERT(post1(&wr) == 1);
	cqe_req(QPN, 0, MLX5_OPCODE_NOP, 0);
	CU_ASSERT(rdx_cq_poll_burst(cq(), wc, 4) == 1);
	CU_ASSERT(wc[0].wr_id == 5);
	fake_teardown();
}

static void
test_cq_retire_run(void)
{
	struct qp_opts o = default_opts;
	struct rdx_sge rd = { .addr = 0x100, .length = 4096, .lkey = 1 };
	struct rdx_sge at = { .addr = 0x200, .length = 8, .lkey = 1 };
	struct rdx_wc wc[8];
	struct rdx_wr wr[6];
	unsigned int k;

	o.sig_interval = 6;
	o.sq_bb = 32;
	fake_setup(&o);
	memset(wr, 0, sizeof(wr));
	for (k = 0; k < 6; k++)
		wr[k].wr_id = 0x5000 + k;
	wr[5].opcode = RDX_OP_READ;
	wr[5].sge = &rd;
	wr[5].num_sge = 1;
	CU_ASSERT(rdx_qp_post_burst(qp(), wr, 6) == 6);
	CU_ASSERT((fm_of(5) & MLX5_WQE_CTRL_CQ_UPDATE) != 0);
	cqe_req(QPN, 5, MLX5_OPCODE_RDMA_READ, 4096);
	CU_ASSERT(rdx_cq_poll_burst(cq(), wc, 8) == 1);
	CU_ASSERT(wc[0].retired == 6);
	CU_ASSERT(wc[0].wr_id == 0x5005);
	CU_ASSERT(wc[0].opcode == RDX_WC_READ);
	CU_ASSERT(wc[0].byte_len == 4096);
	for (k = 0; k < 6; k++)
		CU_ASSERT(rdx_mlx5_qp_retired_wr_id(qp(), &wc[0], (uint16_t)k) == 0x5000 + k);
	CU_ASSERT(rdx_mlx5_qp_retired_wr_id(qp(), &wc[0], 6) == 0);
	CU_ASSERT(f->qp.sq_tail == 6);
	/* atomics report 8 bytes whatever byte_cnt says */
	wr[0].opcode = RDX_OP_FAA;
	wr[0].sge = &at;
	wr[0].num_sge = 1;
	wr[0].flags = RDX_WR_SIGNALED;
	CU_ASSERT(post1(&wr[0]) == 1);
	cqe_req(QPN, 6, MLX5_OPCODE_ATOMIC_FA, 0);
	CU_ASSERT(rdx_cq_poll_burst(cq(), wc, 8) == 1);
	CU_ASSERT(wc[0].opcode == RDX_WC_FAA);
	CU_ASSERT(wc[0].byte_len == 8);
	CU_ASSERT(wc[0].retired == 1);
	/* a counter naming no outstanding WQE is reported, not trusted */
	cqe_req(QPN, 6, MLX5_OPCODE_ATOMIC_FA, 0);
	CU_ASSERT(rdx_cq_poll_burst(cq(), wc, 8) == 1);
	CU_ASSERT(wc[0].status == IBV_WC_GENERAL_ERR);
	CU_ASSERT(wc[0].retired == 0);
	CU_ASSERT(f->qp.sq_tail == 7);
	fake_teardown();
}

/* Retirement across 16-bit WQE counter wrap (idx = cur_post & 0xffff). */
static void
test_counter_wrap(void)
{
	struct qp_opts o = default_opts;
	struct rdx_wc wc[4];
	struct rdx_wr wr[4];
	uint8_t exp[16];
	unsigned int k;

	o.sq_bb = 4;
	o.max_inline = 0;
	o.max_send_sge = 1;
	o.sig_interval = 4;
	fake_setup(&o);
	memset(wr, 0, sizeof(wr));
	for (k = 0; k < 65536 / 4 + 1; k++) {
		uint32_t last = f->qp.sq_cur_post + 3;
		unsigned int j;

		for (j = 0; j < 4; j++)
			wr[j].wr_id = (uint64_t)k << 8 | j;
		CU_ASSERT_FATAL(rdx_qp_post_burst(qp(), wr, 4) == 4);
		cqe_req(QPN, (uint16_t)last, MLX5_OPCODE_NOP, 0);
		CU_ASSERT_FATAL(rdx_cq_poll_burst(cq(), wc, 4) == 1);
		CU_ASSERT_FATAL(wc[0].retired == 4);
		for (j = 0; j < 4; j++)
			CU_ASSERT_FATAL(rdx_mlx5_qp_retired_wr_id(qp(), &wc[0], (uint16_t)j) ==
					((uint64_t)k << 8 | j));
	}
	CU_ASSERT(f->qp.sq_cur_post == 65540);
	CU_ASSERT(be32toh(f->dbrec[MLX5_SND_DBR]) == 4);
	exp_ctrl(exp, (uint16_t)65539, MLX5_OPCODE_NOP, 1, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	CU_ASSERT(sq_cmp(3, exp, 16) == 0);
	fake_teardown();
}

/*
 * The 32-bit counters across 2^32 (a QP of a long run: ~1 h at 1 Mop/s
 * per 2^32): the SQ producer (WQEBBs), the ordinals (head/tail, sq_sig.ord)
 * start 40 short of the wrap, the CQ consumer counter 10, every counter
 * consistent (as if that many had been posted and completed). Posting and
 * retiring go on across it: selective signaling (interval 4 + a forced
 * one), the owner bit (the lap parity of ci: 2^32 is an even number of
 * laps), the CQ doorbell record (24 bits), the SQ one (16 bits), wr_ids.
 */
static void
test_counter_wrap32(void)
{
	const uint32_t start = UINT32_MAX - 39;   /* 40 short of the wrap */
	struct qp_opts o = default_opts;
	struct rdx_wc wc[8];
	struct rdx_wr wr[4];
	uint64_t id = 0, got_id = 0;
	unsigned int k, j;

	o.sq_bb = 16;
	o.max_inline = 0;
	o.max_send_sge = 1;
	o.sig_interval = 4;
	o.cqe_cnt = 8;
	fake_setup(&o);
	f->qp.sq_cur_post = f->qp.sq_head = f->qp.sq_tail = start;
	f->qp.sq_tail_bb = (uint16_t)start;
	/* the CQ 10 CQEs short of it (the run writes ~30) */
	f->cq_obj.cons_index = f->cq_pi = UINT32_MAX - 9;
	f->cq_dbrec[0] = htobe32(f->cq_pi & 0xffffff);
	memset(wr, 0, sizeof(wr));
	for (k = 0; k < 40; k++) {
		uint32_t n = 1 + k % 4;
		uint16_t r = 0;

		for (j = 0; j < n; j++)
			wr[j].wr_id = ++id;
		CU_ASSERT_FATAL(rdx_qp_post_burst(qp(), wr, (uint16_t)n) == n);
		CU_ASSERT_FATAL(be32toh(f->dbrec[MLX5_SND_DBR]) == (f->qp.sq_cur_post & 0xffff));
		/* a CQE for every signaled WQE posted (the fake device's part) */
		for (j = 0; j < n; j++) {
			uint32_t bb = f->qp.sq_cur_post - n + j;

			if (fm_of(bb) & MLX5_WQE_CTRL_CQ_UPDATE)
				cqe_req(QPN, (uint16_t)bb, MLX5_OPCODE_NOP, 0);
		}
		for (;;) {
			uint16_t g = rdx_cq_poll_burst(cq(), wc, 8), i;

			if (g == 0)
				break;
			for (i = 0; i < g; i++) {
				uint16_t q;

				CU_ASSERT_FATAL(wc[i].status == IBV_WC_SUCCESS);
				for (q = 0; q < wc[i].retired; q++)
					CU_ASSERT_FATAL(rdx_mlx5_qp_retired_wr_id(qp(), &wc[i], q) ==
							++got_id);
				r = (uint16_t)(r + wc[i].retired);
			}
		}
		CU_ASSERT_FATAL(be32toh(f->cq_dbrec[0]) == (f->cq_obj.cons_index & 0xffffff));
		CU_ASSERT_FATAL(f->cq_obj.cons_index == f->cq_pi);
		/* nothing left unsignaled for long: at most sig_interval - 1 */
		CU_ASSERT_FATAL(f->qp.sq_head - f->qp.sq_tail <= 3);
	}
	/* both counters went round 2^32 */
	CU_ASSERT(f->qp.sq_cur_post < start && f->qp.sq_cur_post > 40);
	CU_ASSERT(f->cq_obj.cons_index < 100);
	complete_all();
	CU_ASSERT(got_id == id);
	CU_ASSERT(f->qp.sq_tail == f->qp.sq_head);
	fake_teardown();
}

static void
test_cq_responder(void)
{
	struct rdx_sge sg = { .addr = 0x1000, .length = 4096, .lkey = 1 };
	struct rdx_recv_wr rwr[3];
	struct rdx_wc wc[4];

	fake_setup(&default_opts);
	memset(rwr, 0, sizeof(rwr));
	rwr[0].wr_id = 71;
	rwr[1].wr_id = 72;
	rwr[2].wr_id = 73;
	rwr[0].sge = rwr[1].sge = rwr[2].sge = &sg;
	rwr[0].num_sge = rwr[1].num_sge = rwr[2].num_sge = 1;
	CU_ASSERT(rdx_qp_post_recv_burst(qp(), rwr, 3) == 3);
	cqe_resp(QPN, MLX5_CQE_RESP_SEND, 0, 123, 0);
	cqe_resp(QPN, MLX5_CQE_RESP_SEND_IMM, 1, 456, htobe32(0xa1b2c3d4));
	cqe_resp(QPN, MLX5_CQE_RESP_WR_IMM, 2, 65536, 0x11223344);
	CU_ASSERT(rdx_cq_poll_burst(cq(), wc, 4) == 3);
	CU_ASSERT(wc[0].opcode == RDX_WC_RECV && wc[0].byte_len == 123 && wc[0].wr_id == 71);
	CU_ASSERT(wc[1].opcode == RDX_WC_RECV_IMM && wc[1].byte_len == 456);
	CU_ASSERT(wc[1].imm == htobe32(0xa1b2c3d4) && wc[1].wr_id == 72);
	CU_ASSERT(wc[2].opcode == RDX_WC_RECV_WRITE_IMM && wc[2].byte_len == 65536);
	CU_ASSERT(wc[2].imm == 0x11223344 && wc[2].wr_id == 73);
	CU_ASSERT(wc[0].status == IBV_WC_SUCCESS && wc[2].status == IBV_WC_SUCCESS);
	CU_ASSERT(wc[0].qp_num == QPN && wc[0].qp_ctx == &f->qp);
	CU_ASSERT(rdx_mlx5_qp_retired_wr_id(qp(), &wc[1], 0) == 72);
	CU_ASSERT(f->qp.rq_tail == 3);
	CU_ASSERT(be32toh(f->cq_dbrec[0]) == 3);
	CU_ASSERT(f->cq_obj.stats.polls == 1);
	/* No receive outstanding (found by tests/fuzz/fuzz_mlx5_cqe): a bogus
	 * responder CQE retires nothing and the RQ counters stay sane; the RQ
	 * completes in order whatever wqe_counter says (rdma-core cq.c). */
	cqe_resp(QPN, MLX5_CQE_RESP_SEND, 6, 1, 0);
	cqe_err(QPN, MLX5_CQE_RESP_ERR, 0, 7, MLX5_CQE_SYNDROME_WR_FLUSH_ERR, 0);
	CU_ASSERT(rdx_cq_poll_burst(cq(), wc, 4) == 2);
	CU_ASSERT(wc[0].status == IBV_WC_GENERAL_ERR && wc[0].retired == 0);
	CU_ASSERT(wc[1].retired == 0 && wc[1].wr_id == 0);
	CU_ASSERT(f->qp.rq_tail == 3 && f->qp.rq_head == 3);
	CU_ASSERT(rdx_qp_post_recv_burst(qp(), rwr, 1) == 1);
	cqe_resp(QPN, MLX5_CQE_RESP_SEND, 6, 9, 0);
	CU_ASSERT(rdx_cq_poll_burst(cq(), wc, 4) == 1);
	CU_ASSERT(wc[0].status == IBV_WC_SUCCESS && wc[0].wr_id == 71 && wc[0].byte_len == 9);
	CU_ASSERT(f->qp.rq_tail == 4);
	fake_teardown();
}

static uint64_t
xs64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A responder CQE with every field a receive completion reports. */
static void
cqe_resp_from(uint32_t qpn, uint8_t opcode, uint32_t byte_cnt, uint32_t imm, uint32_t fr,
	      uint16_t slid, uint64_t junk)
{
	struct mlx5_cqe64 *c = cqe_slot(f->cq_pi);

	/* stale bytes everywhere the completion does not read */
	memset(c, (int)(junk & 0xff), 63);
	c->sop_drop_qpn = htobe32((uint32_t)(junk >> 8 & 0xff) << 24 | qpn);
	c->wqe_counter = htobe16((uint16_t)(junk >> 16));
	c->byte_cnt = htobe32(byte_cnt);
	c->imm_inval_pkey = imm;
	c->flags_rqpn = htobe32(fr);
	c->slid = htobe16(slid);
	cqe_publish(c, opcode);
}

/*
 * The responder and requester fast loops against a model, over random CQE
 * streams: RESP_SEND of the QP (the responder loop) with random byte
 * counts, senders, GRH types and stale bytes elsewhere in the CQE; now and
 * then a RESP_SEND_IMM, a responder CQE of an unknown QPN (one bit off the
 * QP's, in any of its three bytes), a RESP_SEND with no receive
 * outstanding, a flushed receive (RESP_ERR) and a requester CQE, which the fast loops hand to the general one mid-burst; polled with
 * random burst sizes (a canary after the last wc), on small CQ rings (64-
 * and 128-byte CQEs) and a receive ring that wraps often, so spans end at
 * the CQ's end (the owner bit flips), at the wr_id array's end, at the
 * receives outstanding and at n. Every wc field a completion defines is
 * compared, and the ring counters after every round. On the send side,
 * groups of one to three WQEs (the last one SIGNALED, sig_interval 8, so
 * one requester CQE may retire three), completed by a good requester CQE,
 * an error or flush CQE naming the oldest outstanding WQE, or a requester
 * CQE of an unknown QPN; good requester CQEs carry a random WQE opcode
 * (NOP, WRITE, SEND, READ with its byte count, CAS, FAA: the wc opcode and
 * byte_len the table gives), and every WR a send completion retires is
 * checked through rdx_mlx5_qp_retired_wr_id. Each configuration runs three
 * times: polls of 1..10, then polls of exactly one (poll_cq generated for
 * n = 1, the latency path: every CQE kind meets it, and the empty slot after the last
 * CQE, which holds the last lap's CQE, is polled with n = 1 too), then the
 * lean requester poll (rdx_mlx5_poll_req_burst, rdx_cq_poll_req_burst's
 * op), mostly with n = 1, now and then 2..4: its good requester completions
 * are compared on the fields its contract names (wr_id, status, opcode,
 * retired, qp_num, and the retired wr_ids), every other completion in full.
 */
static void
test_cq_fast_loops_random(void)
{
	static const uint32_t cfg[][3] = {   /* cqe_cnt, cqe_size, rq_cnt */
		{ 8, 64, 8 }, { 4, 64, 4 }, { 16, 128, 8 }, { 32, 64, 64 }, { 2, 64, 16 },
	};
	struct rdx_sge sg = { .addr = 0x1000, .length = 4096, .lkey = 1 };
	uint64_t seed = 0xc0ffee123457ull;
	unsigned int c, round, pm;

	/* requester CQE opcode -> wc opcode; byte_len: 0, 8, or ~0 for byte_cnt */
	static const struct { uint8_t wqe_op, wc_op; uint32_t len; } req_ops[] = {
		{ MLX5_OPCODE_NOP, RDX_WC_NOP, 0 },
		{ MLX5_OPCODE_RDMA_WRITE, RDX_WC_WRITE, 0 },
		{ MLX5_OPCODE_SEND, RDX_WC_SEND, 0 },
		{ MLX5_OPCODE_RDMA_READ, RDX_WC_READ, UINT32_MAX },
		{ MLX5_OPCODE_ATOMIC_CS, RDX_WC_CAS, 8 },
		{ MLX5_OPCODE_ATOMIC_FA, RDX_WC_FAA, 8 },
	};

	for (c = 0; c < 3 * RTE_DIM(cfg); c++) {
		struct qp_opts o = default_opts;
		/* the model: receives and sends outstanding (sends: wr_id, WQEBB
		 * counter, CQ_UPDATE set), completions due */
		uint64_t rx[64], sq[16];
		uint32_t rx_head = 0, rx_tail = 0, sq_head = 0, sq_tail = 0, sq_bb[16];
		bool sq_sig[16];
		struct rdx_wc due[64];
		uint32_t due_n;

		pm = c / RTE_DIM(cfg);  /* 0: polls of 1..10, 1: of one, 2: lean */
		o.cqe_cnt = cfg[c % RTE_DIM(cfg)][0];
		o.cqe_size = cfg[c % RTE_DIM(cfg)][1];
		o.rq_cnt = cfg[c % RTE_DIM(cfg)][2];
		o.max_recv_sge = 1;
		o.sq_bb = 16;
		o.sig_interval = 8;
		fake_setup(&o);
		for (round = 0; round < 4000; round++) {
			const uint32_t room = o.rq_cnt - (rx_head - rx_tail);
			uint32_t k, nr = (uint32_t)(xs64(&seed) % (room + 1)), ncqe, got;
			struct rdx_recv_wr rwr[64];

			if (xs64(&seed) % 4 == 0)
				nr = 0;
			for (k = 0; k < nr; k++) {
				rwr[k].wr_id = xs64(&seed);
				rwr[k].sge = &sg;
				rwr[k].num_sge = 1;
				rx[(rx_head + k) % 64] = rwr[k].wr_id;
			}
			if (nr != 0)
				CU_ASSERT_FATAL(rdx_qp_post_recv_burst(qp(), rwr, (uint16_t)nr) == nr);
			rx_head += nr;
			if (sq_head - sq_tail <= 5 && xs64(&seed) % 2) {   /* sq_max_post 8 */
				const uint32_t g = 1 + (uint32_t)(xs64(&seed) % 3);
				struct rdx_wr wr;

				for (k = 0; k < g; k++) {
					memset(&wr, 0, sizeof(wr));
					wr.wr_id = xs64(&seed);
					wr.flags = k + 1 == g ? RDX_WR_SIGNALED : 0;
					sq_bb[sq_head % 16] = f->qp.sq_cur_post;
					sq[sq_head % 16] = wr.wr_id;
					CU_ASSERT_FATAL(post1(&wr) == 1);
					sq_sig[sq_head % 16] = (fm_of(sq_bb[sq_head % 16]) &
								MLX5_WQE_CTRL_CQ_UPDATE) != 0;
					sq_head++;
				}
				CU_ASSERT_FATAL(sq_sig[(sq_head - 1) % 16]);
			}
			/* the device: up to a ring's worth of CQEs */
			ncqe = (uint32_t)(xs64(&seed) % (o.cqe_cnt + 1));
			for (due_n = 0; due_n < ncqe; due_n++) {
				struct rdx_wc *e = &due[due_n];
				const uint32_t kind = (uint32_t)(xs64(&seed) % 100);
				const uint32_t blen = (uint32_t)xs64(&seed);
				const uint32_t fr = (uint32_t)xs64(&seed);
				const uint16_t slid = (uint16_t)xs64(&seed);
				const uint64_t junk = xs64(&seed);

				memset(e, 0, sizeof(*e));
				e->qp_ctx = &f->qp;
				e->qp_num = QPN;
				e->retired = 1;
				if (kind < 80) {
					cqe_resp_from(QPN, MLX5_CQE_RESP_SEND, blen, (uint32_t)junk, fr,
						      slid, junk);
					if (rx_tail == rx_head) {   /* nothing to complete */
						e->status = IBV_WC_GENERAL_ERR;
						e->opcode = RDX_WC_UNKNOWN;
						e->retired = 0;
						continue;
					}
					e->opcode = RDX_WC_RECV;
				} else if (kind < 86 && rx_tail != rx_head) {
					cqe_resp_from(QPN, MLX5_CQE_RESP_SEND_IMM, blen, (uint32_t)junk,
						      fr, slid, junk);
					e->opcode = RDX_WC_RECV_IMM;
					e->imm = (uint32_t)junk;
				} else if (kind < 90) {
					/* one QPN bit off, anywhere in the 24 */
					const uint32_t other = QPN ^ 1u << (uint32_t)(junk >> 32) % 24;

					cqe_resp_from(other, MLX5_CQE_RESP_SEND, blen, 0, fr, slid,
						      junk);
					e->qp_ctx = NULL;
					e->qp_num = other;
					e->status = IBV_WC_GENERAL_ERR;
					e->opcode = RDX_WC_UNKNOWN;
					e->retired = 0;
					continue;
				} else if (kind < 95 && rx_tail != rx_head) {
					cqe_err(QPN, MLX5_CQE_RESP_ERR, 0, 0,
						MLX5_CQE_SYNDROME_WR_FLUSH_ERR, 0x42);
					e->status = IBV_WC_WR_FLUSH_ERR;
					e->vendor_err = 0x42;
					e->opcode = RDX_WC_RECV;
					e->wr_id = rx[rx_tail++ % 64];
					e->retired = 1;
					e->byte_len = UINT32_MAX;       /* not compared */
					continue;
				} else if (sq_tail != sq_head && kind < 97) {
					/* the first signaled WQE retires every one before it */
					uint32_t s = sq_tail;

					const uint32_t ro = (uint32_t)(junk >> 8) % RTE_DIM(req_ops);

					while (!sq_sig[s % 16])
						s++;
					cqe_req(QPN, (uint16_t)sq_bb[s % 16], req_ops[ro].wqe_op, blen);
					e->opcode = req_ops[ro].wc_op;
					e->wr_id = sq[s % 16];
					e->retired = (uint16_t)(s - sq_tail + 1);
					/* the first WR it retires, for the retired wr_ids */
					e->src_qp = sq_tail;
					sq_tail = s + 1;
					e->byte_len = req_ops[ro].len == UINT32_MAX ? blen :
						req_ops[ro].len;
					e->imm = UINT32_MAX;            /* the cursor: not compared */
					continue;
				} else if (sq_tail != sq_head && kind < 99) {
					/* an error or flush CQE names the oldest WQE */
					const bool fl = junk & 1;

					cqe_err(QPN, MLX5_CQE_REQ_ERR, MLX5_OPCODE_NOP,
						(uint16_t)sq_bb[sq_tail % 16],
						fl ? MLX5_CQE_SYNDROME_WR_FLUSH_ERR :
						MLX5_CQE_SYNDROME_LOCAL_PROT_ERR, (uint8_t)junk);
					e->status = fl ? IBV_WC_WR_FLUSH_ERR : IBV_WC_LOC_PROT_ERR;
					e->vendor_err = (uint8_t)junk;
					e->opcode = RDX_WC_NOP;
					e->wr_id = sq[sq_tail++ % 16];
					e->byte_len = UINT32_MAX;       /* not compared */
					e->imm = UINT32_MAX;
					continue;
				} else if (sq_tail != sq_head) {
					/* a requester CQE of a QPN on no QP */
					cqe_req(0x777, (uint16_t)sq_bb[sq_tail % 16], MLX5_OPCODE_NOP,
						blen);
					e->qp_ctx = NULL;
					e->qp_num = 0x777;
					e->status = IBV_WC_GENERAL_ERR;
					e->opcode = RDX_WC_UNKNOWN;
					e->retired = 0;
					continue;
				} else {
					due_n--;
					ncqe--;
					continue;
				}
				/* a received SEND (with immediate or not) */
				e->wr_id = rx[rx_tail++ % 64];
				e->byte_len = blen;
				e->src_qp = fr & 0xffffff;
				e->slid = slid;
				e->wc_flags = (fr >> 28 & 3) != 0 ? RDX_WC_GRH : 0;
				e->retired = 1;
			}
			/* the poll, in random bursts, with a canary after the last */
			for (got = 0; got < due_n;) {
				struct rdx_wc wc[12];
				const uint64_t x = xs64(&seed);
				const uint16_t n = pm == 0 ? (uint16_t)(1 + x % 10) :
					pm == 2 && x % 8 == 0 ? (uint16_t)(2 + (x >> 8) % 3) : 1;
				uint16_t r, j;

				memset(wc, 0xab, sizeof(wc));
				r = pm == 2 ? rdx_mlx5_poll_req_burst(cq(), wc, n) :
					rdx_cq_poll_burst(cq(), wc, n);
				CU_ASSERT_FATAL(r == RTE_MIN((uint32_t)n, due_n - got));
				CU_ASSERT_FATAL(wc[n].wr_id == 0xababababababababull);
				for (j = 0; j < r; j++) {
					const struct rdx_wc *w = &wc[j], *e = &due[got + j];
					/* a good requester completion (the lean contract's) */
					const bool good_req = e->status == IBV_WC_SUCCESS &&
						e->qp_ctx != NULL && e->retired != 0 &&
						e->opcode != RDX_WC_RECV && e->opcode != RDX_WC_RECV_IMM;
					uint16_t i;

					CU_ASSERT_FATAL(w->status == e->status);
					CU_ASSERT_FATAL(w->opcode == e->opcode);
					CU_ASSERT_FATAL(w->retired == e->retired);
					if (e->retired != 0)
						CU_ASSERT_FATAL(w->wr_id == e->wr_id);
					if (good_req) {
						CU_ASSERT_FATAL(w->qp_num == e->qp_num);
						for (i = 0; i < e->retired; i++)
							CU_ASSERT_FATAL(rdx_mlx5_qp_retired_wr_id(qp(), w, i) ==
									sq[(e->src_qp + i) % 16]);
						if (pm == 2)
							continue;   /* the rest is undefined */
					}
					CU_ASSERT_FATAL(w->qp_ctx == e->qp_ctx);
					if (e->qp_ctx == NULL || e->retired == 0)
						continue;
					CU_ASSERT_FATAL(w->qp_num == e->qp_num);
					CU_ASSERT_FATAL(w->vendor_err == e->vendor_err);
					if (e->byte_len != UINT32_MAX)
						CU_ASSERT_FATAL(w->byte_len == e->byte_len);
					if (e->imm != UINT32_MAX)
						CU_ASSERT_FATAL(w->imm == e->imm);
					if (e->opcode == RDX_WC_RECV || e->opcode == RDX_WC_RECV_IMM) {
						CU_ASSERT_FATAL(w->src_qp == e->src_qp);
						CU_ASSERT_FATAL(w->slid == e->slid);
						CU_ASSERT_FATAL(w->wc_flags == e->wc_flags);
					}
				}
				got += r;
			}
			/* nothing more: the next slot is a stale CQE of the last lap */
			CU_ASSERT_FATAL((pm == 2 ? rdx_mlx5_poll_req_burst(cq(), due, 1) :
					 rdx_cq_poll_burst(cq(), due, pm ? 1 : 4)) == 0);
			CU_ASSERT_FATAL(f->qp.rq_tail == rx_tail && f->qp.rq_head == rx_head);
			CU_ASSERT_FATAL(f->qp.sq_tail == sq_tail);
			CU_ASSERT_FATAL(f->cq_obj.cons_index == f->cq_pi);
			CU_ASSERT_FATAL(be32toh(f->cq_dbrec[0]) == (f->cq_pi & 0xffffff));
		}
		fake_teardown();
	}
}

/*
 * A poll for one (the full poll with n = 1, or the lean rdx_mlx5_poll_req_burst) meets a
 * slot that still holds the last lap's
 * requester CQE whose counter names the WQEBB of a signaled WQE outstanding
 * now (sig_interval 4, 4 CQEs, 16 WQEBBs: the CQ laps every 16 WQEs): the
 * retirement rule would accept it, only the owner bit says it is stale.
 */
static void
poll_one_stale(uint16_t (*poll)(struct rdx_cq *, struct rdx_wc *, uint16_t))
{
	struct qp_opts o = default_opts;
	struct rdx_wc wc[2];
	struct rdx_wr wr;
	uint32_t g, j;

	o.cqe_cnt = 4;
	o.sig_interval = 4;
	fake_setup(&o);
	memset(&wr, 0, sizeof(wr));
	for (g = 0; g < 5; g++) {
		for (j = 0; j < 4; j++) {
			wr.wr_id = 100 + g * 4 + j;
			CU_ASSERT_FATAL(post1(&wr) == 1);
		}
		/* slot g % 4: lap 0's CQE (owner 0) for WQEBB 3 when g == 4 */
		CU_ASSERT_FATAL(poll(cq(), wc, 1) == 0);
		cqe_req(QPN, (uint16_t)(g * 4 + 3), MLX5_OPCODE_NOP, 0);
		memset(wc, 0, sizeof(wc));
		CU_ASSERT_FATAL(poll(cq(), wc, 1) == 1);
		CU_ASSERT(wc[0].wr_id == 100 + g * 4 + 3 && wc[0].retired == 4);
		CU_ASSERT(wc[0].qp_num == QPN);
		CU_ASSERT(wc[0].status == IBV_WC_SUCCESS && wc[0].opcode == RDX_WC_NOP);
		CU_ASSERT(rdx_mlx5_qp_retired_wr_id(qp(), &wc[0], 0) == 100 + g * 4);
		CU_ASSERT_FATAL(f->qp.sq_tail == g * 4 + 4 && f->qp.sq_tail_bb == g * 4 + 4);
	}
	/* a second CQE for WQEBB 19 (retired): the range check refuses it */
	cqe_req(QPN, 19, MLX5_OPCODE_NOP, 0);
	CU_ASSERT_FATAL(poll(cq(), wc, 1) == 1);
	CU_ASSERT(wc[0].status == IBV_WC_GENERAL_ERR && wc[0].retired == 0);
	CU_ASSERT(f->qp.sq_tail == 20 && f->qp.sq_tail_bb == 20);
	CU_ASSERT(f->cq_obj.cons_index == 6 && be32toh(f->cq_dbrec[0]) == 6);
	CU_ASSERT(f->cq_obj.stats.polls == 6 && f->cq_obj.stats.cqes == 6);
	fake_teardown();
}

/* ... through the full poll (n = 1) and the lean one */
static void
test_cq_poll_one_stale(void)
{
	poll_one_stale(rdx_mlx5_poll_burst);
	poll_one_stale(rdx_mlx5_poll_req_burst);
}

static void
test_cq_error_and_flush(void)
{
	struct rdx_wc wc[8];
	unsigned int k;

	/* WQE 1 fails (remote access), 2..4 and both receives are flushed */
	fake_error_flush_setup();
	CU_ASSERT(rdx_cq_poll_burst(cq(), wc, 8) == 6);
	CU_ASSERT(wc[0].status == IBV_WC_REM_ACCESS_ERR);
	CU_ASSERT(strcmp(ibv_wc_status_str((enum ibv_wc_status)wc[0].status),
			 "remote access error") == 0);
	CU_ASSERT(wc[0].vendor_err == 0x88);
	CU_ASSERT(wc[0].wr_id == 901);
	CU_ASSERT(wc[0].retired == 2);
	CU_ASSERT(wc[0].opcode == RDX_WC_WRITE);
	CU_ASSERT(rdx_mlx5_qp_retired_wr_id(qp(), &wc[0], 0) == 900);
	for (k = 1; k < 4; k++) {
		CU_ASSERT(wc[k].status == IBV_WC_WR_FLUSH_ERR);
		CU_ASSERT(wc[k].wr_id == 900 + k + 1);
		CU_ASSERT(wc[k].retired == 1);
		CU_ASSERT(wc[k].vendor_err == 0x79);
	}
	CU_ASSERT(wc[4].status == IBV_WC_WR_FLUSH_ERR && wc[4].wr_id == 41);
	CU_ASSERT(wc[5].status == IBV_WC_WR_FLUSH_ERR && wc[5].wr_id == 42);
	CU_ASSERT(f->qp.sq_tail == f->qp.sq_head);
	CU_ASSERT(f->cq_obj.stats.errors == 6);
	fake_teardown();
}

/* Flush CQEs for unsignaled multi-WQEBB WQEs: found by walking the ring. */
static void
test_cq_flush_walk(void)
{
	struct qp_opts o = default_opts;
	struct rdx_sge inl = { .addr = (uintptr_t)pay, .length = 60 };
	struct rdx_wc wc[4];
	struct rdx_wr wr[3];

	o.sig_interval = 8;
	fake_setup(&o);
	memset(wr, 0, sizeof(wr));
	wr[0].opcode = RDX_OP_SEND;             /* DS 5: 2 WQEBBs at 0 */
	wr[0].flags = RDX_WR_INLINE;
	wr[0].sge = &inl;
	wr[0].num_sge = 1;
	wr[0].wr_id = 10;
	wr[1].wr_id = 11;                       /* NOP at 2 */
	wr[2] = wr[0];                          /* 2 WQEBBs at 3 */
	wr[2].wr_id = 12;
	CU_ASSERT(rdx_qp_post_burst(qp(), wr, 3) == 3);
	CU_ASSERT(f->qp.sq_cur_post == 5);
	/* the last WQE fails, earlier ones are flushed first (in order) */
	cqe_err(QPN, MLX5_CQE_REQ_ERR, MLX5_OPCODE_SEND, 0, MLX5_CQE_SYNDROME_WR_FLUSH_ERR, 0);
	cqe_err(QPN, MLX5_CQE_REQ_ERR, MLX5_OPCODE_NOP, 2, MLX5_CQE_SYNDROME_WR_FLUSH_ERR, 0);
	cqe_err(QPN, MLX5_CQE_REQ_ERR, MLX5_OPCODE_SEND, 3, MLX5_CQE_SYNDROME_WR_FLUSH_ERR, 0);
	/* a counter in the middle of a WQE names nothing */
	cqe_err(QPN, MLX5_CQE_REQ_ERR, MLX5_OPCODE_SEND, 4, MLX5_CQE_SYNDROME_WR_FLUSH_ERR, 0);
	CU_ASSERT(rdx_cq_poll_burst(cq(), wc, 4) == 4);
	CU_ASSERT(wc[0].wr_id == 10 && wc[0].retired == 1);
	CU_ASSERT(wc[1].wr_id == 11 && wc[1].retired == 1);
	CU_ASSERT(wc[2].wr_id == 12 && wc[2].retired == 1);
	CU_ASSERT(wc[0].status == IBV_WC_WR_FLUSH_ERR && wc[2].status == IBV_WC_WR_FLUSH_ERR);
	CU_ASSERT(wc[3].retired == 0 && wc[3].wr_id == 0);
	CU_ASSERT(f->qp.sq_tail == 3 && f->qp.sq_tail_bb == 5);
	fake_teardown();
}

static void
test_syndromes(void)
{
	static const struct { uint8_t syn; enum ibv_wc_status st; } t[] = {
		{ 0x01, IBV_WC_LOC_LEN_ERR }, { 0x02, IBV_WC_LOC_QP_OP_ERR },
		{ 0x04, IBV_WC_LOC_PROT_ERR }, { 0x05, IBV_WC_WR_FLUSH_ERR },
		{ 0x06, IBV_WC_MW_BIND_ERR }, { 0x10, IBV_WC_BAD_RESP_ERR },
		{ 0x11, IBV_WC_LOC_ACCESS_ERR }, { 0x12, IBV_WC_REM_INV_REQ_ERR },
		{ 0x13, IBV_WC_REM_ACCESS_ERR }, { 0x14, IBV_WC_REM_OP_ERR },
		{ 0x15, IBV_WC_RETRY_EXC_ERR }, { 0x16, IBV_WC_RNR_RETRY_EXC_ERR },
		{ 0x22, IBV_WC_REM_ABORT_ERR }, { 0x00, IBV_WC_GENERAL_ERR },
		{ 0x07, IBV_WC_GENERAL_ERR }, { 0xff, IBV_WC_GENERAL_ERR },
	};
	unsigned int k;

	for (k = 0; k < RTE_DIM(t); k++)
		CU_ASSERT(rdx_mlx5_syndrome_to_status(t[k].syn) == t[k].st);
}

static void
test_cq_multi_qp(void)
{
	struct mlx5dv_qp dv;
	struct rdx_wc wc[4];
	struct rdx_wr wr;
	static uint8_t sq2[8 * 64] __attribute__((aligned(64)));
	__be32 db2[2];

	fake_setup(&default_opts);
	memset(&dv, 0, sizeof(dv));
	dv.dbrec = db2;
	dv.sq.buf = sq2;
	dv.sq.wqe_cnt = 8;
	dv.sq.stride = 64;
	f->qp2.base.user_ctx = &f->qp2;
	CU_ASSERT_FATAL(rdx_mlx5_qp_dp_init(&f->qp2, &dv, QPN2, 0, 1, 0) == 0);
	CU_ASSERT(rdx_mlx5_cq_attach(&f->cq_obj, &f->qp2) == 0);
	CU_ASSERT(rdx_mlx5_cq_attach(&f->cq_obj, &f->qp2) == 0);  /* again: fine */
	CU_ASSERT(f->cq_obj.nb_qps == 2);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	CU_ASSERT(post1(&wr) == 1);
	wr.wr_id = 2;
	CU_ASSERT(rdx_qp_post_burst(&f->qp2.base, &wr, 1) == 1);
	cqe_req(QPN2, 0, 0, 0);
	cqe_req(QPN, 0, 0, 0);
	cqe_req(0x999, 0, 0, 0);      /* nobody's */
	CU_ASSERT(rdx_cq_poll_burst(cq(), wc, 4) == 3);
	CU_ASSERT(wc[0].qp_ctx == &f->qp2 && wc[0].wr_id == 2 && wc[0].qp_num == QPN2);
	CU_ASSERT(wc[1].qp_ctx == &f->qp && wc[1].wr_id == 1);
	CU_ASSERT(wc[2].status == IBV_WC_GENERAL_ERR && wc[2].qp_ctx == NULL);
	CU_ASSERT(f->cq_obj.stats.unknown_qpn == 1);
	rdx_mlx5_cq_detach(&f->cq_obj, &f->qp);
	CU_ASSERT(f->cq_obj.nb_qps == 1);
	cqe_req(QPN2, 0, 0, 0);
	CU_ASSERT(rdx_cq_poll_burst(cq(), wc, 4) == 1);
	CU_ASSERT(wc[0].status == IBV_WC_GENERAL_ERR); /* already retired */
	rdx_mlx5_cq_detach(&f->cq_obj, &f->qp2);
	CU_ASSERT(f->cq_obj.nb_qps == 0);
	rdx_mlx5_qp_dp_fini(&f->qp2);
	fake_teardown();
}

/*
 * A backend's own poll op (what the software device installs in inline
 * progress mode): its work first, then the datapath's general poll.
 */
static uint16_t
count_progress_poll(struct rdx_cq *c, struct rdx_wc *wc, uint16_t n)
{
	f->progress_calls++;
	/* the "engine" completes the posted NOP before the poll looks */
	cqe_req(QPN, 0, 0, 0);
	return rdx_mlx5_poll_burst_general(c, wc, n);
}

static void
test_progress_hook(void)
{
	struct rdx_wc wc[2];
	struct rdx_wr wr;

	fake_setup(&default_opts);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 3;
	CU_ASSERT(post1(&wr) == 1);
	f->cq_obj.base.poll_burst = count_progress_poll;
	CU_ASSERT(rdx_cq_poll_burst(cq(), wc, 2) == 1);
	CU_ASSERT(f->progress_calls == 1);
	CU_ASSERT(wc[0].wr_id == 3);
	fake_teardown();
}

/*
 * A device thread: reads the SQ doorbell record, completes every posted
 * (signaled, one-WQEBB) NOP in order, never overruns the CQ (checks the
 * consumer index in the CQ doorbell record). The test thread posts and
 * polls concurrently: CQE ownership, barriers and both records are used for
 * real across threads.
 */
#define DEV_WQES 20000u

static int dev_stop;

static void *
device_thread(void *arg)
{
	uint32_t done = 0, pi = 0;

	(void)arg;
	while (done < DEV_WQES && !__atomic_load_n(&dev_stop, __ATOMIC_ACQUIRE)) {
		uint16_t posted = (uint16_t)be32toh(__atomic_load_n(&f->dbrec[MLX5_SND_DBR],
								     __ATOMIC_ACQUIRE));
		uint32_t ci = be32toh(__atomic_load_n(&f->cq_dbrec[0], __ATOMIC_ACQUIRE));

		if ((uint16_t)done == posted || pi - ci >= f->cqe_cnt) {
			sched_yield();
			continue;
		}
		{
			struct mlx5_cqe64 *c = cqe_slot(pi);
			uint8_t owner = (uint8_t)((pi >> log2c(f->cqe_cnt)) & 1);

			memset(c, 0, 63);
			c->sop_drop_qpn = htobe32(QPN);
			c->wqe_counter = htobe16((uint16_t)done);
			__atomic_store_n(&c->op_own, (uint8_t)(MLX5_CQE_REQ << 4 | owner),
					 __ATOMIC_RELEASE);
		}
		pi++;
		done++;
	}
	return NULL;
}

static void
test_concurrent_device(void)
{
	struct qp_opts o = default_opts;
	struct rdx_wc wc[16];
	struct rdx_wr wr[16];
	uint64_t next_post = 0, next_done = 0, idle = 0;
	pthread_t th;
	unsigned int k;

	o.sq_bb = 32;
	o.max_inline = 0;
	o.max_send_sge = 1;
	o.cqe_cnt = 8;
	fake_setup(&o);
	memset(wr, 0, sizeof(wr));
	dev_stop = 0;
	CU_ASSERT_FATAL(pthread_create(&th, NULL, device_thread, NULL) == 0);
	/* bounded: a lost completion fails the test instead of hanging it */
	while (next_done < DEV_WQES && idle < 200000000u) {
		uint16_t n = (uint16_t)RTE_MIN(16u, DEV_WQES - next_post);
		uint16_t got;

		for (k = 0; k < n; k++)
			wr[k].wr_id = next_post + k;
		next_post += rdx_qp_post_burst(qp(), wr, n);
		got = rdx_cq_poll_burst(cq(), wc, 16);
		idle = got == 0 ? idle + 1 : 0;
		for (k = 0; k < got; k++) {
			if (wc[k].wr_id != next_done || wc[k].status != IBV_WC_SUCCESS ||
			    wc[k].retired != 1)
				break;
			next_done++;
		}
		if (k != got)
			break;
	}
	__atomic_store_n(&dev_stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	CU_ASSERT(next_done == DEV_WQES);
	CU_ASSERT(next_post == DEV_WQES);
	CU_ASSERT(f->qp.sq_tail == DEV_WQES);
	fake_teardown();
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "CQ owner bit across wraps", test_cq_owner_wrap },
		{ "CQ 128-byte CQEs", test_cq_128b },
		{ "CQ requester retires a run", test_cq_retire_run },
		{ "16-bit WQE counter wrap", test_counter_wrap },
		{ "32-bit counters across 2^32", test_counter_wrap32 },
		{ "CQ responder CQEs", test_cq_responder },
		{ "CQ fast loops: random CQE streams vs a model", test_cq_fast_loops_random },
		{ "CQ poll for one: a stale CQE the retirement rule would take", test_cq_poll_one_stale },
		{ "CQ error CQE and flushes", test_cq_error_and_flush },
		{ "flushes of multi-WQEBB unsignaled WQEs", test_cq_flush_walk },
		{ "syndrome to status", test_syndromes },
		{ "CQ shared by two QPs", test_cq_multi_qp },
		{ "backend poll op: work, then the general poll", test_progress_hook },
		{ "device thread completing concurrently", test_concurrent_device },
		{ NULL, NULL },
	};

	return rdx_ut_run("mlx5_cq", cases, suite_init, suite_fini);
}
