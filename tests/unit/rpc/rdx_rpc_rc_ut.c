/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rpc's infrc transport (rdx_rpc_rc.c) end to end over the software
 * device through the public API: 1 B .. 1 MiB each way with the bytes
 * checked, handlers run once per call, deferred responses, a missing
 * handler and a response above resp_cap, and two processes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rpc_ut_harness.h"
#include "rdx_rpc_priv.h"
#include "rdx_sw.h"
#include "rpc_ut_child.h"

static const uint32_t sizes_small[] = { 8 };
static const uint32_t sizes_resp[] = { 1, 100, 4096, 65536, 300000, 1u << 20 };
static const uint32_t sizes_req[] = { 8, 5000, 70000, 1u << 20, 33 };

static void
test_sizes(void)
{
	struct rdx_rpc_conf conf = { .transport = "infrc", .slots = 4, .max_sessions = 2 };
	struct rdx_rpc_stats sa, sb;
	struct ut_pair p;

	memset(&ut_st, 0, sizeof(ut_st));
	CU_ASSERT_FATAL(ut_pair_open(&p, "sw", "sw", &conf) == 0);
	CU_ASSERT_EQUAL(rdx_rpc_endpoint_transport(p.a), RDX_RPC_TRANSPORT_INFRC);
	CU_ASSERT_EQUAL(ut_run(p.a, p.b, p.sa, UT_TYPE_ECHO, 24, sizes_small, 1, sizes_resp,
			       RTE_DIM(sizes_resp), 4, NULL), 0);
	CU_ASSERT_EQUAL(ut_run(p.a, p.b, p.sa, UT_TYPE_ECHO, 10, sizes_req, RTE_DIM(sizes_req),
			       sizes_small, 1, 3, NULL), 0);
	CU_ASSERT_EQUAL(ut_run(p.b, p.a, p.sb, UT_TYPE_ECHO, 12, sizes_req, RTE_DIM(sizes_req),
			       sizes_resp, RTE_DIM(sizes_resp), 2, NULL), 0);
	CU_ASSERT_EQUAL(ut_st.ok, 46);
	CU_ASSERT_EQUAL(ut_st.bad_bytes + ut_st.errors + ut_st.extra, 0);
	CU_ASSERT_EQUAL(p.srv_b.handled, 34);
	CU_ASSERT_EQUAL(p.srv_a.handled, 12);
	CU_ASSERT_EQUAL(p.srv_a.bad_req + p.srv_b.bad_req, 0);
	rdx_rpc_endpoint_stats_get(p.a, &sa);
	rdx_rpc_endpoint_stats_get(p.b, &sb);
	CU_ASSERT_EQUAL(sa.calls, 34);
	CU_ASSERT_EQUAL(sa.calls_ok, 34);
	CU_ASSERT_EQUAL(sa.requests, 12);
	/* one SEND per message */
	CU_ASSERT_EQUAL(sa.tx_pkts, 34 + 12);
	CU_ASSERT_EQUAL(sa.retransmits + sb.retransmits + sa.dup_dropped + sb.dup_dropped, 0);
	CU_ASSERT_EQUAL(sa.errors + sb.errors + sa.bad_pkts + sb.bad_pkts, 0);
	ut_pair_close(&p);
}

static void
test_deferred(void)
{
	struct rdx_rpc_conf conf = { .transport = "infrc", .slots = 8, .max_sessions = 1 };
	static const uint32_t resp[] = { 10, 50000 };
	struct ut_pair p;

	memset(&ut_st, 0, sizeof(ut_st));
	CU_ASSERT_FATAL(ut_pair_open(&p, "sw", "sw", &conf) == 0);
	CU_ASSERT_EQUAL(ut_run(p.a, p.b, p.sa, UT_TYPE_LATER, 100, sizes_small, 1, resp, 2, 8,
			       &p.srv_b), 0);
	CU_ASSERT_EQUAL(ut_st.ok, 100);
	CU_ASSERT_EQUAL(p.srv_b.handled, 100);
	ut_pair_close(&p);
}

static void
test_errors(void)
{
	struct rdx_rpc_conf conf = { .transport = "infrc", .slots = 2, .max_sessions = 1 };
	struct ut_req_hdr h = { .resp_len = 5000, .seed = 1 };
	struct ut_call c = { 0 };
	uint8_t resp[100];
	struct ut_pair p;

	memset(&ut_st, 0, sizeof(ut_st));
	CU_ASSERT_FATAL(ut_pair_open(&p, "sw", "sw", &conf) == 0);
	ut_common_errors(&p, &c, resp, sizeof(resp));
	/* slots: two in flight, the third waits */
	c.completions = 0;
	CU_ASSERT_EQUAL(rdx_rpc_call(p.sa, UT_TYPE_ECHO, &h, sizeof(h), resp, 0, ut_cont, &c), 0);
	CU_ASSERT_EQUAL(rdx_rpc_call(p.sa, UT_TYPE_ECHO, &h, sizeof(h), resp, 0, ut_cont, &c), 0);
	CU_ASSERT_EQUAL(rdx_rpc_session_inflight(p.sa), 2);
	CU_ASSERT_EQUAL(rdx_rpc_call(p.sa, UT_TYPE_ECHO, &h, sizeof(h), resp, 0, ut_cont, &c),
			-EAGAIN);
	/* destroying the endpoint completes them with -ECONNABORTED */
	ut_pair_close(&p);
	CU_ASSERT_EQUAL(c.completions, 2);
	CU_ASSERT_EQUAL(c.status, -ECONNABORTED);
}

/* The peer's QP gone: the RC QP errors, calls in flight fail with -EIO
 * and later ones are refused. */
static void
test_peer_gone(void)
{
	struct rdx_rpc_conf conf = { .transport = "infrc", .slots = 2, .max_sessions = 1,
				     .call_timeout_us = 2000000 };
	struct ut_req_hdr h = { .resp_len = 10, .seed = 1 };
	struct ut_call c = { 0 };
	struct rdx_rpc_stats st;
	uint8_t resp[10];
	struct ut_pair p;
	double end;

	CU_ASSERT_FATAL(ut_pair_open(&p, "sw", "sw", &conf) == 0);
	CU_ASSERT_EQUAL(rdx_rpc_session_destroy(p.sb), 0);
	CU_ASSERT_EQUAL(rdx_rpc_call(p.sa, UT_TYPE_ECHO, &h, sizeof(h), resp, sizeof(resp),
				     ut_cont, &c), 0);
	end = ut_now() + 10;
	while (c.completions == 0 && ut_now() < end) {
		rdx_rpc_endpoint_poll(p.a);
		rdx_rpc_endpoint_poll(p.b);
	}
	CU_ASSERT_EQUAL(c.completions, 1);
	CU_ASSERT_EQUAL(c.status, -EIO);
	rdx_rpc_endpoint_stats_get(p.a, &st);
	CU_ASSERT(st.errors > 0);
	CU_ASSERT_EQUAL(rdx_rpc_call(p.sa, UT_TYPE_ECHO, &h, sizeof(h), resp, sizeof(resp),
				     ut_cont, &c), -ENOTCONN);
	ut_pair_close(&p);
}

/*
 * A response that finds the send queue full waits, and goes as soon as
 * there is room, even when no send completion of its session comes after
 * it (the room may have come from completions polled before it went
 * pending). The full queue is driven directly: the server session's count
 * of unretired sends is set to the depth, then given back. Before, the
 * response was retried only on a send completion and the call timed out.
 */
static void
test_pending_response(void)
{
	struct rdx_rpc_conf conf = { .transport = "infrc", .slots = 4, .max_sessions = 1,
				     .call_timeout_us = 30000000 };
	struct ut_req_hdr h = { .resp_len = 3000, .seed = 5 };
	struct ut_call c = { 0 };
	static uint8_t resp[3000];
	struct rdx_rpc_stats st;
	struct ut_pair p;
	uint32_t saved;
	double end;
	int i;

	memset(&ut_st, 0, sizeof(ut_st));
	CU_ASSERT_FATAL(ut_pair_open(&p, "sw", "sw", &conf) == 0);
	saved = p.sb->sq_out;
	p.sb->sq_out = p.sb->sq_depth - 1;
	c.resp = resp;
	c.resp_len = 3000;
	c.seed = 5;
	CU_ASSERT_EQUAL(rdx_rpc_call(p.sa, UT_TYPE_ECHO, &h, sizeof(h), resp, sizeof(resp),
				     ut_cont, &c), 0);
	for (i = 0; i < 100000 && p.srv_b.handled == 0; i++) {
		rdx_rpc_endpoint_poll(p.a);
		rdx_rpc_endpoint_poll(p.b);
	}
	CU_ASSERT_EQUAL_FATAL(p.srv_b.handled, 1);
	CU_ASSERT(p.sb->pending);
	CU_ASSERT_EQUAL(c.completions, 0);
	p.sb->sq_out = saved; /* room again, no completion to announce it */
	end = ut_now() + 5;
	while (c.completions == 0 && ut_now() < end) {
		rdx_rpc_endpoint_poll(p.a);
		rdx_rpc_endpoint_poll(p.b);
	}
	CU_ASSERT_EQUAL(c.completions, 1);
	CU_ASSERT_EQUAL(c.status, 0);
	CU_ASSERT_EQUAL(ut_st.ok, 1);
	rdx_rpc_endpoint_stats_get(p.a, &st);
	CU_ASSERT_EQUAL(st.timeouts + st.dup_dropped + st.errors, 0);
	ut_pair_close(&p);
}

/*
 * A call times out while its handler still holds the request (a slow,
 * deferred handler) and the caller calls again in the same slot: RC never
 * sends the new request again, so the server must keep it until the slot
 * is free and then run its handler; the late response of the first call
 * is dropped as a duplicate. Before, the new request was dropped as a
 * duplicate too and the second call timed out as well.
 */
static void
test_late_handler(void)
{
	struct rdx_rpc_conf conf = { .transport = "infrc", .slots = 1, .max_sessions = 1,
				     .call_timeout_us = 200000 };
	struct ut_req_hdr h1 = { .resp_len = 100, .seed = 7 }, h2 = { .resp_len = 2000, .seed = 8 };
	struct ut_call c1 = { 0 }, c2 = { 0 };
	static uint8_t resp1[100], resp2[2000];
	struct rdx_rpc_stats st;
	struct ut_pair p;
	double end;
	int i;

	memset(&ut_st, 0, sizeof(ut_st));
	CU_ASSERT_FATAL(ut_pair_open(&p, "sw", "sw", &conf) == 0);
	c1.resp = resp1;
	CU_ASSERT_EQUAL(rdx_rpc_call(p.sa, UT_TYPE_LATER, &h1, sizeof(h1), resp1, sizeof(resp1),
				     ut_cont, &c1), 0);
	end = ut_now() + 10;
	while (c1.completions == 0 && ut_now() < end) {
		rdx_rpc_endpoint_poll(p.a);
		rdx_rpc_endpoint_poll(p.b);
	}
	CU_ASSERT_EQUAL_FATAL(c1.completions, 1);
	CU_ASSERT_EQUAL(c1.status, -ETIMEDOUT);
	CU_ASSERT_EQUAL(p.srv_b.nlater, 1);
	c2.resp = resp2;
	c2.resp_len = 2000;
	c2.seed = 8;
	CU_ASSERT_EQUAL(rdx_rpc_call(p.sa, UT_TYPE_ECHO, &h2, sizeof(h2), resp2, sizeof(resp2),
				     ut_cont, &c2), 0);
	for (i = 0; i < 1000; i++) {
		rdx_rpc_endpoint_poll(p.a);
		rdx_rpc_endpoint_poll(p.b);
	}
	CU_ASSERT_EQUAL(p.srv_b.handled, 1); /* the first handler still holds the slot */
	ut_srv_flush(&p.srv_b);
	end = ut_now() + 10;
	while (c2.completions == 0 && ut_now() < end) {
		rdx_rpc_endpoint_poll(p.a);
		rdx_rpc_endpoint_poll(p.b);
	}
	CU_ASSERT_EQUAL(c2.completions, 1);
	CU_ASSERT_EQUAL(c2.status, 0);
	CU_ASSERT_EQUAL(ut_st.ok, 1);
	CU_ASSERT_EQUAL(p.srv_b.handled, 2);
	rdx_rpc_endpoint_stats_get(p.a, &st);
	CU_ASSERT_EQUAL(st.timeouts, 1);
	CU_ASSERT_EQUAL(st.dup_dropped, 1); /* the first call's late response */
	ut_pair_close(&p);
}

/*
 * Both ends of one session call each other, and B defers its responses
 * longer than A's call timeout: A's calls time out and A calls again in
 * the same slots, so B keeps, per slot, the request its handler holds and
 * the newer one held until the slot is free (late_handler), 2 * slots
 * receives. B's own call to A must still find a receive for A's response.
 * Before, the session had 2 * slots receives in all: none was left, A's
 * response met RNR NAKs (the software device's requester retries for
 * ever, rnr_retry 7) and B's call timed out.
 */
static void
test_mutual_held(void)
{
	struct rdx_rpc_conf conf = { .transport = "infrc", .slots = 2, .max_sessions = 1,
				     .call_timeout_us = 200000 };
	struct ut_req_hdr h = { .resp_len = 64, .seed = 11 }, hb = { .resp_len = 300, .seed = 12 };
	struct ut_call ca[4], cb = { 0 };
	static uint8_t resp_a[4][64], resp_b[300];
	struct rdx_sw_stats wa, wb;
	struct rdx_rpc_stats st;
	struct ut_pair p;
	double end;
	int i, k;

	memset(&ut_st, 0, sizeof(ut_st));
	memset(ca, 0, sizeof(ca));
	CU_ASSERT_FATAL(ut_pair_open(&p, "sw", "sw", &conf) == 0);
	/* A fills B's slots with deferred calls, which time out */
	for (k = 0; k < 2; k++) {
		ca[k].resp = resp_a[k];
		ca[k].resp_len = 64;
		ca[k].seed = 11;
		CU_ASSERT_EQUAL(rdx_rpc_call(p.sa, UT_TYPE_LATER, &h, sizeof(h), resp_a[k], 64,
					     ut_cont, &ca[k]), 0);
	}
	end = ut_now() + 10;
	while ((ca[0].completions == 0 || ca[1].completions == 0) && ut_now() < end) {
		rdx_rpc_endpoint_poll(p.a);
		rdx_rpc_endpoint_poll(p.b);
	}
	CU_ASSERT_EQUAL_FATAL(ca[0].completions + ca[1].completions, 2);
	CU_ASSERT_EQUAL(ca[0].status, -ETIMEDOUT);
	CU_ASSERT_EQUAL(ca[1].status, -ETIMEDOUT);
	CU_ASSERT_EQUAL_FATAL(p.srv_b.nlater, 2);
	/* from here on no call may time out, however slowly this runs */
	p.a->call_to *= 150;
	p.b->call_to *= 150;
	/* ... and calls again in both slots: B holds the new requests */
	for (k = 2; k < 4; k++) {
		ca[k].resp = resp_a[k];
		ca[k].resp_len = 64;
		ca[k].seed = 11;
		CU_ASSERT_EQUAL(rdx_rpc_call(p.sa, UT_TYPE_LATER, &h, sizeof(h), resp_a[k], 64,
					     ut_cont, &ca[k]), 0);
	}
	for (i = 0; i < 1000; i++) {
		rdx_rpc_endpoint_poll(p.a);
		rdx_rpc_endpoint_poll(p.b);
	}
	CU_ASSERT_EQUAL(p.srv_b.handled, 2);
	CU_ASSERT(p.sb->ss[0].next_buf != RPC_NONE && p.sb->ss[1].next_buf != RPC_NONE);
	/* B calls A on the same session; A answers at once */
	cb.resp = resp_b;
	cb.resp_len = 300;
	cb.seed = 12;
	CU_ASSERT_EQUAL(rdx_rpc_call(p.sb, UT_TYPE_ECHO, &hb, sizeof(hb), resp_b, sizeof(resp_b),
				     ut_cont, &cb), 0);
	end = ut_now() + 2;
	while (cb.completions == 0 && ut_now() < end) {
		rdx_rpc_endpoint_poll(p.a);
		rdx_rpc_endpoint_poll(p.b);
	}
	CU_ASSERT_EQUAL(cb.completions, 1);
	CU_ASSERT_EQUAL(cb.status, 0);
	CU_ASSERT_EQUAL(p.srv_a.handled, 1);
	CU_ASSERT_EQUAL(rdx_sw_stats_get(p.da, &wa), 0);
	CU_ASSERT_EQUAL(rdx_sw_stats_get(p.db, &wb), 0);
	CU_ASSERT_EQUAL(wa.rnr_naks + wb.rnr_naks, 0);
	/* B answers the old requests (late: dropped by A), then the held ones */
	ut_srv_flush(&p.srv_b);
	for (i = 0; i < 1000 && p.srv_b.nlater < 2; i++) {
		rdx_rpc_endpoint_poll(p.a);
		rdx_rpc_endpoint_poll(p.b);
	}
	CU_ASSERT_EQUAL(p.srv_b.handled, 4);
	ut_srv_flush(&p.srv_b);
	end = ut_now() + 10;
	while ((ca[2].completions == 0 || ca[3].completions == 0) && ut_now() < end) {
		rdx_rpc_endpoint_poll(p.a);
		rdx_rpc_endpoint_poll(p.b);
	}
	CU_ASSERT_EQUAL(ca[2].completions + ca[3].completions, 2);
	CU_ASSERT_EQUAL(ca[2].status, 0);
	CU_ASSERT_EQUAL(ca[3].status, 0);
	CU_ASSERT_EQUAL(ut_st.ok, 3); /* B's call, A's two second calls */
	CU_ASSERT_EQUAL(ut_st.bad_bytes + ut_st.extra + p.srv_a.bad_req + p.srv_b.bad_req, 0);
	rdx_rpc_endpoint_stats_get(p.a, &st);
	CU_ASSERT_EQUAL(st.timeouts, 2);
	CU_ASSERT_EQUAL(st.dup_dropped, 2); /* the first calls' late responses */
	CU_ASSERT_EQUAL(st.errors, 0);
	rdx_rpc_endpoint_stats_get(p.b, &st);
	CU_ASSERT_EQUAL(st.timeouts + st.errors, 0);
	ut_pair_close(&p);
}

static void
test_two_processes(void)
{
	struct rdx_rpc_conf conf = { .transport = "infrc", .slots = 4, .max_sessions = 1 };
	static const uint32_t resp[] = { 1, 3000, 70000, 1u << 20 };
	struct rdx_rpc_session_info mine, peer;
	struct rdx_rpc_endpoint *ep;
	struct rdx_rpc_session *s;
	struct rdx_dev *d;
	int p2c[2], c2p[2], status = -1;
	uint64_t handled = 0;
	pid_t pid;

	CU_ASSERT_FATAL(pipe(p2c) == 0 && pipe(c2p) == 0);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		close(p2c[1]);
		close(c2p[0]);
		_exit(ut_child_serve(p2c[0], c2p[1], "infrc", "sw"));
	}
	close(p2c[0]);
	close(c2p[1]);
	memset(&ut_st, 0, sizeof(ut_st));
	d = rdx_dev_open("sw", NULL);
	CU_ASSERT_FATAL(d != NULL);
	ep = rdx_rpc_endpoint_create(d, &conf);
	CU_ASSERT_FATAL(ep != NULL);
	s = rdx_rpc_session_create(ep);
	CU_ASSERT_FATAL(s != NULL);
	CU_ASSERT_FATAL(rdx_rpc_session_info_get(s, &mine) == 0);
	CU_ASSERT_FATAL(rd_all(c2p[0], &peer, sizeof(peer)) == 0);
	CU_ASSERT_FATAL(wr_all(p2c[1], &mine, sizeof(mine)) == 0);
	CU_ASSERT_FATAL(rdx_rpc_session_connect(s, &peer) == 0);
	CU_ASSERT_EQUAL(ut_run(ep, ep, s, UT_TYPE_ECHO, 40, sizes_small, 1, resp, RTE_DIM(resp),
			       4, NULL), 0);
	CU_ASSERT_EQUAL(wr_all(p2c[1], "x", 1), 0);
	CU_ASSERT_EQUAL(rd_all(c2p[0], &handled, sizeof(handled)), 0);
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CU_ASSERT_EQUAL(ut_st.ok, 40);
	CU_ASSERT_EQUAL(ut_st.errors + ut_st.bad_bytes + ut_st.extra, 0);
	CU_ASSERT_EQUAL(handled, 40);
	CU_ASSERT(rdx_rpc_endpoint_destroy(ep) == 0);
	CU_ASSERT(rdx_dev_close(d) == 0);
	close(p2c[1]);
	close(c2p[0]);
}

/* Counters of all of a device's QPs: doorbells rung and WQEs posted. */
static void
dev_posts(struct rdx_dev *d, uint64_t *db, uint64_t *wqes)
{
	struct rdx_dev_xstat xs[256];
	int i, n = rdx_dev_xstats_get(d, xs, RTE_DIM(xs));

	*db = *wqes = 0;
	for (i = 0; i < n && i < (int)RTE_DIM(xs); i++) {
		if (strcmp(xs[i].name, "dp_qp_doorbells") == 0)
			*db = xs[i].value;
		else if (strcmp(xs[i].name, "dp_qp_wqes") == 0)
			*wqes = xs[i].value;
	}
}

static void
batch_echo(struct rdx_rpc_req *req, void *arg)
{
	(void)arg;
	memcpy(req->resp, req->data, 8);
	CU_ASSERT(rdx_rpc_respond(req, 8) == 0);
}

/* The responses the handlers of one poll send on a session go out in one
 * post: the server reads 8 requests in one poll and posts the 8
 * responses with one doorbell; calls made outside a poll are posted at
 * once, one doorbell each. */
static void
test_one_post(void)
{
	struct rdx_rpc_conf conf = { .transport = "infrc", .slots = 8, .max_sessions = 1 };
	uint64_t req[8], resp[8], db0, db1, w0, w1;
	struct ut_call c[8];
	struct ut_pair p;
	unsigned int i;

	CU_ASSERT_FATAL(ut_pair_open(&p, "sw", "sw", &conf) == 0);
	CU_ASSERT_FATAL(rdx_rpc_handler_register(p.b, 1, batch_echo, NULL) == 0);
	memset(c, 0, sizeof(c));
	dev_posts(p.da, &db0, &w0);
	for (i = 0; i < 8; i++) {
		req[i] = 0x2000 + i;
		resp[i] = 0;
		c[i].resp_len = 8;
		CU_ASSERT_EQUAL(rdx_rpc_call(p.sa, 1, &req[i], 8, &resp[i], 8, ut_cont, &c[i]), 0);
	}
	dev_posts(p.da, &db1, &w1);
	CU_ASSERT_EQUAL(w1 - w0, 8);
	CU_ASSERT_EQUAL(db1 - db0, 8);
	dev_posts(p.db, &db0, &w0);
	CU_ASSERT_EQUAL(rdx_rpc_endpoint_poll(p.b), 8);
	dev_posts(p.db, &db1, &w1);
	CU_ASSERT_EQUAL(w1 - w0, 8);
	CU_ASSERT_EQUAL(db1 - db0, 1);
	CU_ASSERT_EQUAL(rdx_rpc_endpoint_poll(p.a), 8);
	for (i = 0; i < 8; i++) {
		CU_ASSERT_EQUAL(c[i].completions, 1);
		CU_ASSERT_EQUAL(c[i].status, 0);
		CU_ASSERT_EQUAL(resp[i], req[i]);
	}
	ut_pair_close(&p);
}

static struct rdx_rpc_req *held_reqs[16];
static unsigned int n_held;

static void
hold_handler(struct rdx_rpc_req *req, void *arg)
{
	(void)arg;
	if (n_held < RTE_DIM(held_reqs))
		held_reqs[n_held++] = req;
}

static void
held_respond(struct rdx_rpc_req *req)
{
	memcpy(req->resp, req->data, 8);
	CU_ASSERT(rdx_rpc_respond(req, 8) == 0);
}

/* A call takes the one free slot when the slot after the last call's is
 * busy (calls completed out of order): 8 calls fill the 8 slots, the
 * one in slot 3 is answered first, the next call goes to slot 3. */
static void
test_slot_reuse(void)
{
	struct rdx_rpc_conf conf = { .transport = "infrc", .slots = 8, .max_sessions = 1 };
	uint64_t req[9], resp[9];
	struct ut_call c[9];
	struct ut_pair p;
	unsigned int i;

	CU_ASSERT_FATAL(ut_pair_open(&p, "sw", "sw", &conf) == 0);
	CU_ASSERT_FATAL(rdx_rpc_handler_register(p.b, 1, hold_handler, NULL) == 0);
	memset(c, 0, sizeof(c));
	n_held = 0;
	for (i = 0; i < 9; i++) {
		req[i] = 0x3000 + i;
		resp[i] = 0;
		c[i].resp_len = 8;
	}
	for (i = 0; i < 8; i++)
		CU_ASSERT_EQUAL(rdx_rpc_call(p.sa, 1, &req[i], 8, &resp[i], 8, ut_cont, &c[i]), 0);
	CU_ASSERT_EQUAL(rdx_rpc_call(p.sa, 1, &req[8], 8, &resp[8], 8, ut_cont, &c[8]), -EAGAIN);
	CU_ASSERT_EQUAL(rdx_rpc_endpoint_poll(p.b), 8);
	CU_ASSERT_FATAL(n_held == 8);
	held_respond(held_reqs[3]); /* the call in slot 3 */
	CU_ASSERT_EQUAL(rdx_rpc_endpoint_poll(p.a), 1);
	CU_ASSERT_EQUAL(c[3].completions, 1);
	CU_ASSERT_EQUAL(resp[3], req[3]);
	CU_ASSERT_FALSE(p.sa->cs[3].busy);
	CU_ASSERT_EQUAL(p.sa->next_slot, 0); /* busy: the scan finds slot 3 */
	CU_ASSERT_EQUAL(rdx_rpc_call(p.sa, 1, &req[8], 8, &resp[8], 8, ut_cont, &c[8]), 0);
	CU_ASSERT_TRUE(p.sa->cs[3].busy);
	CU_ASSERT_EQUAL(p.sa->cs[3].id, 3 + 8);
	CU_ASSERT_EQUAL(p.sa->next_slot, 4);
	CU_ASSERT_EQUAL(rdx_rpc_endpoint_poll(p.b), 1);
	CU_ASSERT_FATAL(n_held == 9);
	for (i = 0; i < 9; i++)
		if (i != 3)
			held_respond(held_reqs[i]);
	for (i = 0; i < 9; i++)
		ut_wait_call(&p, &c[i]);
	for (i = 0; i < 9; i++) {
		CU_ASSERT_EQUAL(c[i].completions, 1);
		CU_ASSERT_EQUAL(c[i].status, 0);
		CU_ASSERT_EQUAL(resp[i], req[i]);
	}
	ut_pair_close(&p);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "sizes", test_sizes },
		{ "deferred", test_deferred },
		{ "errors", test_errors },
		{ "peer_gone", test_peer_gone },
		{ "pending_response", test_pending_response },
		{ "late_handler", test_late_handler },
		{ "mutual_held", test_mutual_held },
		{ "two_processes", test_two_processes },
		{ "one_post", test_one_post },
		{ "slot_reuse", test_slot_reuse },
		{ NULL, NULL },
	};

	return rdx_ut_run("rdx_rpc_rc", cases, NULL, NULL);
}
