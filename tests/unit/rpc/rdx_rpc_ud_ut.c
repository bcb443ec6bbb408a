/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rpc's UD transports (rdx_rpc_ud.c), basic+infud and homa+infud, end
 * to end over the software device through the public API: responses of
 * 1 B .. 1 MiB with their bytes checked; under injected loss (ud_drop=0.01),
 * duplicates and reordering every call completes once with the right
 * bytes, handlers run once per call, retransmissions happen and no call
 * fails; deferred responses (BUSY under homa); two processes.
 */
#include <errno.h>
#include <signal.h>
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
static const uint32_t sizes_resp[] = { 1, 100, 4063, 4064, 4065, 10000, 65536, 300000,
				       1u << 20 };
static const uint32_t sizes_req[] = { 8, 5000, 70000, 1u << 20, 33 };

static void
dump(const char *what, struct rdx_rpc_endpoint *ep)
{
	struct rdx_rpc_stats st;

	rdx_rpc_endpoint_stats_get(ep, &st);
	printf("  %s %s: calls %lu ok %lu err %lu req %lu pkts tx %lu rx %lu retx %lu acks %lu "
	       "grants %lu/%lu resend %lu/%lu busy %lu/%lu dup %lu bad %lu nobuf %lu errors %lu\n",
	       what, rdx_rpc_transport_name(rdx_rpc_endpoint_transport(ep)),
	       (unsigned long)st.calls, (unsigned long)st.calls_ok, (unsigned long)st.calls_err,
	       (unsigned long)st.requests, (unsigned long)st.tx_pkts, (unsigned long)st.rx_pkts,
	       (unsigned long)st.retransmits, (unsigned long)st.acks_sent,
	       (unsigned long)st.grants_sent, (unsigned long)st.grants_rcvd,
	       (unsigned long)st.resends_sent, (unsigned long)st.resends_rcvd,
	       (unsigned long)st.busy_sent, (unsigned long)st.busy_rcvd,
	       (unsigned long)st.dup_dropped, (unsigned long)st.bad_pkts,
	       (unsigned long)st.no_buf, (unsigned long)st.errors);
}

/* Every size each way on a clean device: bytes right, nothing resent. */
static void
sizes(const char *transport)
{
	struct rdx_rpc_conf conf = { .transport = transport, .slots = 4, .max_sessions = 2 };
	struct rdx_rpc_stats sa, sb;
	struct ut_pair p;

	memset(&ut_st, 0, sizeof(ut_st));
	CU_ASSERT_FATAL(ut_pair_open(&p, "sw", "sw", &conf) == 0);
	CU_ASSERT_EQUAL(ut_run(p.a, p.b, p.sa, UT_TYPE_ECHO, 18, sizes_small, 1, sizes_resp,
			       RTE_DIM(sizes_resp), 4, NULL), 0);
	CU_ASSERT_EQUAL(ut_run(p.a, p.b, p.sa, UT_TYPE_ECHO, 10, sizes_req, RTE_DIM(sizes_req),
			       sizes_small, 1, 3, NULL), 0);
	/* the other direction, on the same session */
	CU_ASSERT_EQUAL(ut_run(p.b, p.a, p.sb, UT_TYPE_ECHO, 9, sizes_req, RTE_DIM(sizes_req),
			       sizes_resp, RTE_DIM(sizes_resp), 2, NULL), 0);
	CU_ASSERT_EQUAL(ut_st.ok, 37);
	CU_ASSERT_EQUAL(ut_st.bad_bytes, 0);
	CU_ASSERT_EQUAL(ut_st.errors, 0);
	CU_ASSERT_EQUAL(ut_st.extra, 0);
	CU_ASSERT_EQUAL(p.srv_b.handled, 28);
	CU_ASSERT_EQUAL(p.srv_a.handled, 9);
	CU_ASSERT_EQUAL(p.srv_a.bad_req + p.srv_b.bad_req, 0);
	rdx_rpc_endpoint_stats_get(p.a, &sa);
	rdx_rpc_endpoint_stats_get(p.b, &sb);
	dump("a", p.a);
	dump("b", p.b);
	CU_ASSERT_EQUAL(sa.calls, 28);
	CU_ASSERT_EQUAL(sa.calls_ok, 28);
	CU_ASSERT_EQUAL(sa.errors + sb.errors + sa.bad_pkts + sb.bad_pkts, 0);
	if (strcmp(transport, "homa+infud") == 0)
		CU_ASSERT(sa.grants_sent > 0 && sb.grants_sent > 0 && sa.grants_rcvd > 0);
	ut_pair_close(&p);
}

static void
test_basic_sizes(void)
{
	sizes("basic+infud");
}

static void
test_homa_sizes(void)
{
	sizes("homa+infud");
}

/* Loss, duplicates, reordering: every call completes once, bytes right. */
static void
faults(const char *transport, const char *dev, unsigned int n, bool expect_dups)
{
	struct rdx_rpc_conf conf = { .transport = transport, .slots = 8, .max_sessions = 2,
				     .rto_us = 2000 };
	static const uint32_t req[] = { 8, 9000, 100, 40000 };
	static const uint32_t resp[] = { 64, 20000, 4064, 1, 200000, 5000 };
	struct rdx_rpc_stats sa, sb;
	struct ut_pair p;

	memset(&ut_st, 0, sizeof(ut_st));
	CU_ASSERT_FATAL(ut_pair_open(&p, dev, dev, &conf) == 0);
	CU_ASSERT_EQUAL(ut_run(p.a, p.b, p.sa, UT_TYPE_ECHO, n, req, RTE_DIM(req), resp,
			       RTE_DIM(resp), 8, NULL), 0);
	/* a few of 1 MiB too */
	CU_ASSERT_EQUAL(ut_run(p.a, p.b, p.sa, UT_TYPE_ECHO, 3, sizes_small, 1,
			       &sizes_resp[RTE_DIM(sizes_resp) - 1], 1, 2, NULL), 0);
	rdx_rpc_endpoint_stats_get(p.a, &sa);
	rdx_rpc_endpoint_stats_get(p.b, &sb);
	printf("\n  %s on %s:\n", transport, dev);
	dump("a", p.a);
	dump("b", p.b);
	CU_ASSERT_EQUAL(ut_st.ok, n + 3);
	CU_ASSERT_EQUAL(ut_st.bad_bytes, 0);
	CU_ASSERT_EQUAL(ut_st.errors, 0);
	CU_ASSERT_EQUAL(ut_st.extra, 0);
	/* exactly once: one handler run per call */
	CU_ASSERT_EQUAL(p.srv_b.handled, n + 3);
	CU_ASSERT_EQUAL(p.srv_b.bad_req, 0);
	CU_ASSERT_EQUAL(sa.calls_err, 0);
	CU_ASSERT_EQUAL(sa.errors + sb.errors, 0);
	CU_ASSERT(sa.retransmits + sb.retransmits > 0);
	if (expect_dups)
		CU_ASSERT(sa.dup_dropped + sb.dup_dropped > 0);
	ut_pair_close(&p);
}

static void
test_basic_drop(void)
{
	faults("basic+infud", "sw:ud_drop=0.01,seed=1", 400, false);
}

static void
test_homa_drop(void)
{
	faults("homa+infud", "sw:ud_drop=0.01,seed=1", 400, false);
}

static void
test_basic_dup_reorder(void)
{
	faults("basic+infud", "sw:ud_drop=0.02,ud_dup=0.05,ud_delay_us=500,ud_delay=0.05,seed=7",
	       150, true);
}

static void
test_homa_dup_reorder(void)
{
	faults("homa+infud", "sw:ud_drop=0.02,ud_dup=0.05,ud_delay_us=500,ud_delay=0.05,seed=7",
	       150, true);
}

/* Every 7th datagram a device sends lost: a fixed pattern */
static void
test_basic_drop_every(void)
{
	faults("basic+infud", "sw:ud_drop_every=7", 100, false);
}

static void
test_homa_drop_every(void)
{
	faults("homa+infud", "sw:ud_drop_every=7", 100, false);
}

/* Polled less often than rto/4 (a sleep between polls): the timers,
 * put off once after each pause, still run, and losses are recovered. */
static void
slow_poll(const char *transport)
{
	struct rdx_rpc_conf conf = { .transport = transport, .slots = 2, .max_sessions = 1,
				     .rto_us = 1000 };
	struct ut_req_hdr h = { .resp_len = 20000, .seed = 5 };
	static uint8_t resp[20000];
	struct rdx_rpc_stats sa, sb;
	struct ut_call c;
	struct ut_pair p;
	int k, i;

	memset(&ut_st, 0, sizeof(ut_st));
	CU_ASSERT_FATAL(ut_pair_open(&p, "sw:ud_drop_every=4", "sw:ud_drop_every=4", &conf) == 0);
	for (k = 0; k < 10; k++) {
		memset(&c, 0, sizeof(c));
		c.resp = resp;
		c.resp_len = 20000;
		c.seed = 5;
		CU_ASSERT_EQUAL_FATAL(rdx_rpc_call(p.sa, UT_TYPE_ECHO, &h, sizeof(h), resp,
						   sizeof(resp), ut_cont, &c), 0);
		for (i = 0; i < 20000 && c.completions == 0; i++) {
			rdx_rpc_endpoint_poll(p.a);
			rdx_rpc_endpoint_poll(p.b);
			usleep(600);
		}
		CU_ASSERT_EQUAL(c.completions, 1);
		CU_ASSERT_EQUAL(c.status, 0);
	}
	rdx_rpc_endpoint_stats_get(p.a, &sa);
	rdx_rpc_endpoint_stats_get(p.b, &sb);
	dump("a", p.a);
	CU_ASSERT_EQUAL(ut_st.ok, 10);
	CU_ASSERT(sa.retransmits + sb.retransmits > 0);
	ut_pair_close(&p);
}

static void
test_basic_slow_poll(void)
{
	slow_poll("basic+infud");
}

static void
test_homa_slow_poll(void)
{
	slow_poll("homa+infud");
}

/* One packet in ten lost */
static void
test_basic_heavy_loss(void)
{
	faults("basic+infud", "sw:ud_drop=0.1,seed=11", 100, false);
}

static void
test_homa_heavy_loss(void)
{
	faults("homa+infud", "sw:ud_drop=0.1,seed=11", 100, false);
}

/* Responses given later from the test's loop: the caller keeps waiting
 * (homa: its RESENDs are answered BUSY), nothing fails. */
static void
deferred(const char *transport)
{
	struct rdx_rpc_conf conf = { .transport = transport, .slots = 4, .max_sessions = 2,
				     .rto_us = 50 };
	static const uint32_t resp[] = { 10, 50000 };
	struct rdx_rpc_stats sa, sb;
	struct ut_pair p;

	memset(&ut_st, 0, sizeof(ut_st));
	CU_ASSERT_FATAL(ut_pair_open(&p, "sw", "sw", &conf) == 0);
	CU_ASSERT_EQUAL(ut_run(p.a, p.b, p.sa, UT_TYPE_LATER, 40, sizes_small, 1, resp, 2, 4,
			       &p.srv_b), 0);
	rdx_rpc_endpoint_stats_get(p.a, &sa);
	rdx_rpc_endpoint_stats_get(p.b, &sb);
	dump("a", p.a);
	dump("b", p.b);
	CU_ASSERT_EQUAL(ut_st.ok, 40);
	CU_ASSERT_EQUAL(p.srv_b.handled, 40);
	CU_ASSERT_EQUAL(sa.calls_err, 0);
	if (strcmp(transport, "homa+infud") == 0)
		CU_ASSERT(sb.busy_sent > 0 && sa.busy_rcvd > 0);
	ut_pair_close(&p);
}

static void
test_basic_deferred(void)
{
	deferred("basic+infud");
}

static void
test_homa_deferred(void)
{
	deferred("homa+infud");
}

/* A type with no handler: -ENOENT; a response above resp_cap: -EMSGSIZE. */
static void
test_errors(void)
{
	struct rdx_rpc_conf conf = { .transport = "homa+infud", .slots = 2, .max_sessions = 1 };
	struct ut_call c = { 0 };
	struct ut_req_hdr h = { .resp_len = 5000, .seed = 1 };
	uint8_t resp[100];
	struct ut_pair p;

	memset(&ut_st, 0, sizeof(ut_st));
	CU_ASSERT_FATAL(ut_pair_open(&p, "sw", "sw", &conf) == 0);
	ut_common_errors(&p, &c, resp, sizeof(resp));
	/* the endpoint goes on */
	c.completions = 0;
	h.resp_len = 50;
	c.resp_len = 50;
	c.seed = 1;
	CU_ASSERT_EQUAL(rdx_rpc_call(p.sa, UT_TYPE_ECHO, &h, sizeof(h), resp, sizeof(resp),
				     ut_cont, &c), 0);
	ut_wait_call(&p, &c);
	CU_ASSERT_EQUAL(c.status, 0);
	CU_ASSERT_EQUAL(ut_st.ok, 1);
	ut_pair_close(&p);
}

/*
 * The UD QP goes to error (the software device fails the client's next
 * send WQE, as a device does with a local QP operation error): the call in
 * flight fails with -EIO at once, not after call_timeout_us; the flushed
 * receives are not reposted, so the error count stops (it used to grow on
 * every poll, a receive flushed and reposted for ever); new calls are
 * refused; the endpoint says it is dead (rdx_rpc_endpoint_error), the
 * peer's does not; the peer is unharmed.
 */
static void
qp_error(const char *transport)
{
	struct rdx_rpc_conf conf = { .transport = transport, .slots = 4, .max_sessions = 1,
				     .call_timeout_us = 60000000 };
	struct ut_req_hdr h = { .resp_len = 70000, .seed = 3 };
	struct rdx_rpc_stats st0, st1;
	struct ut_call c = { 0 };
	static uint8_t resp[70000];
	struct ut_pair p;
	double end;
	int i;

	memset(&ut_st, 0, sizeof(ut_st));
	CU_ASSERT_FATAL(ut_pair_open(&p, "sw", "sw", &conf) == 0);
	CU_ASSERT_FATAL(rdx_sw_qp_inject_error(p.a->qp, 1, 0x02) == 0);
	CU_ASSERT_EQUAL(rdx_rpc_endpoint_error(p.a), 0);
	CU_ASSERT_EQUAL(rdx_rpc_endpoint_error(NULL), -EINVAL);
	c.resp = resp;
	CU_ASSERT_EQUAL(rdx_rpc_call(p.sa, UT_TYPE_ECHO, &h, sizeof(h), resp, sizeof(resp),
				     ut_cont, &c), 0);
	end = ut_now() + 20;
	while (c.completions == 0 && ut_now() < end) {
		rdx_rpc_endpoint_poll(p.a);
		rdx_rpc_endpoint_poll(p.b);
	}
	CU_ASSERT_EQUAL(c.completions, 1);
	CU_ASSERT_EQUAL(c.status, -EIO);
	CU_ASSERT_EQUAL(rdx_rpc_endpoint_error(p.a), -EIO);
	CU_ASSERT_EQUAL(rdx_rpc_endpoint_error(p.b), 0);
	for (i = 0; i < 20000; i++)
		rdx_rpc_endpoint_poll(p.a);
	rdx_rpc_endpoint_stats_get(p.a, &st0);
	/* at most one per WR the QP held: the send and the receives flushed */
	CU_ASSERT(st0.errors >= 1 && st0.errors <= 2 * (uint64_t)p.a->qdepth);
	for (i = 0; i < 100000; i++)
		rdx_rpc_endpoint_poll(p.a);
	rdx_rpc_endpoint_stats_get(p.a, &st1);
	CU_ASSERT_EQUAL(st1.errors, st0.errors);
	CU_ASSERT_EQUAL(st1.calls_err, 1);
	CU_ASSERT_EQUAL(st1.timeouts, 0);
	CU_ASSERT_EQUAL(rdx_rpc_call(p.sa, UT_TYPE_ECHO, &h, sizeof(h), resp, sizeof(resp),
				     ut_cont, &c), -ENOTCONN);
	rdx_rpc_endpoint_stats_get(p.b, &st1);
	CU_ASSERT_EQUAL(st1.errors, 0);
	CU_ASSERT_EQUAL(c.completions, 1);
	ut_pair_close(&p);
}

static void
test_basic_qp_error(void)
{
	qp_error("basic+infud");
}

static void
test_homa_qp_error(void)
{
	qp_error("homa+infud");
}

/* Two processes over the software device's shared memory: the child
 * (rpc_ut_child.h) serves, the parent calls; session infos cross a pipe. */
static void
two_processes(const char *transport)
{
	struct rdx_rpc_conf conf = { .transport = transport, .slots = 4, .max_sessions = 1 };
	static const uint32_t resp[] = { 1, 3000, 70000, 1u << 20 };
	struct rdx_rpc_session_info mine, peer;
	struct rdx_rpc_endpoint *ep;
	struct rdx_rpc_session *s;
	struct rdx_rpc_stats st;
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
		_exit(ut_child_serve(p2c[0], c2p[1], transport, "sw:ud_drop=0.01,seed=5"));
	}
	close(p2c[0]);
	close(c2p[1]);
	memset(&ut_st, 0, sizeof(ut_st));
	d = rdx_dev_open("sw:ud_drop=0.01,seed=6", NULL);
	CU_ASSERT_FATAL(d != NULL);
	ep = rdx_rpc_endpoint_create(d, &conf);
	CU_ASSERT_FATAL(ep != NULL);
	s = rdx_rpc_session_create(ep);
	CU_ASSERT_FATAL(s != NULL);
	CU_ASSERT_FATAL(rdx_rpc_session_info_get(s, &mine) == 0);
	CU_ASSERT_FATAL(rd_all(c2p[0], &peer, sizeof(peer)) == 0);
	CU_ASSERT_FATAL(wr_all(p2c[1], &mine, sizeof(mine)) == 0);
	CU_ASSERT_FATAL(rdx_rpc_session_connect(s, &peer) == 0);
	CU_ASSERT_EQUAL(ut_run(ep, ep, s, UT_TYPE_ECHO, 60, sizes_small, 1, resp, RTE_DIM(resp),
			       4, NULL), 0);
	CU_ASSERT_EQUAL(wr_all(p2c[1], "x", 1), 0);
	CU_ASSERT_EQUAL(rd_all(c2p[0], &handled, sizeof(handled)), 0);
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
		fprintf(stderr, "child exit status %d\n", WEXITSTATUS(status));
	rdx_rpc_endpoint_stats_get(ep, &st);
	dump("parent", ep);
	CU_ASSERT_EQUAL(ut_st.ok, 60);
	CU_ASSERT_EQUAL(ut_st.errors + ut_st.bad_bytes + ut_st.extra, 0);
	CU_ASSERT_EQUAL(handled, 60);
	CU_ASSERT(st.retransmits + st.resends_sent > 0);
	CU_ASSERT(rdx_rpc_endpoint_destroy(ep) == 0);
	CU_ASSERT(rdx_dev_close(d) == 0);
	close(p2c[1]);
	close(c2p[0]);
}

static void
test_basic_two_processes(void)
{
	two_processes("basic+infud");
}

static void
test_homa_two_processes(void)
{
	two_processes("homa+infud");
}

/* Poll ep alone for sec seconds with stderr caught in out (lib/rpc's log
 * lines), or until *done. */
static void
poll_caught(struct rdx_rpc_endpoint *ep, double sec, const int *done, char *out, size_t len)
{
	FILE *log = tmpfile();
	double end = ut_now() + sec;
	size_t n;
	int saved;

	out[0] = '\0';
	CU_ASSERT_FATAL(log != NULL);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	CU_ASSERT_FATAL(saved >= 0 && dup2(fileno(log), STDERR_FILENO) >= 0);
	while (ut_now() < end && (done == NULL || *done == 0))
		rdx_rpc_endpoint_poll(ep);
	fflush(stderr);
	CU_ASSERT_FATAL(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	rewind(log);
	n = fread(out, 1, len - 1, log);
	out[n] = '\0';
	fclose(log);
	fputs(out, stderr);
}

/* The two lines a timeout leaves (rdx_rpc_diag.c): the server that sent
 * part of a 1 MiB response to a caller that stopped polling gives the
 * call up after call_timeout_us and says where the response stood; the
 * caller, polled again, times out and says what it had received. */
static void
test_basic_timeout_lines(void)
{
	struct rdx_rpc_conf conf = { .transport = "basic+infud", .slots = 2, .max_sessions = 1,
				     .call_timeout_us = 20000, .rto_us = 1000 };
	struct ut_req_hdr h = { .resp_len = 1u << 20, .seed = 5 };
	struct ut_call c = { 0 };
	struct rdx_rpc_stats sb;
	uint8_t *resp = malloc(1u << 20);
	char out[4096];
	struct ut_pair p;
	double end;

	CU_ASSERT_FATAL(resp != NULL);
	CU_ASSERT_FATAL(ut_pair_open(&p, "sw", "sw", &conf) == 0);
	c.resp_len = h.resp_len;
	c.seed = h.seed;
	CU_ASSERT_EQUAL(rdx_rpc_call(p.sa, UT_TYPE_ECHO, &h, sizeof(h), resp, 1u << 20,
				     ut_cont, &c), 0);
	/* until b answered (the first window of the response went) */
	end = ut_now() + 10;
	do {
		rdx_rpc_endpoint_poll(p.a);
		rdx_rpc_endpoint_poll(p.b);
		rdx_rpc_endpoint_stats_get(p.b, &sb);
	} while (sb.responses == 0 && ut_now() < end);
	CU_ASSERT_FATAL(sb.responses == 1);
	/* a stops polling: b retransmits, then gives the call up */
	poll_caught(p.b, 0.2, NULL, out, sizeof(out));
	CU_ASSERT(strstr(out, "session 0: served call 0 (slot 0) given up in state S") != NULL);
	CU_ASSERT(strstr(out, "request rx 1/1") != NULL);
	rdx_rpc_endpoint_stats_get(p.b, &sb);
	CU_ASSERT(sb.retransmits > 0);
	/* a again: what b sent arrives, nothing more; the call times out */
	poll_caught(p.a, 10, &c.completions, out, sizeof(out));
	CU_ASSERT_EQUAL(c.completions, 1);
	CU_ASSERT_EQUAL(c.status, -ETIMEDOUT);
	CU_ASSERT(strstr(out, "session 0: call 0 (slot 0) timed out") != NULL);
	CU_ASSERT(strstr(out, " resp started rx ") != NULL);
	CU_ASSERT(strstr(out, "/259 bo ") != NULL); /* 1 MiB in 4064-byte packets */
	ut_pair_close(&p);
	free(resp);
}

/*
 * A handler that never answers: the server answers the caller's probes
 * with BUSY for ever, and the call still ends with -ETIMEDOUT after
 * call_timeout_us, as on infrc (before, every BUSY counted as progress
 * and the call never ended).
 */
static void
handler_silent(const char *transport)
{
	struct rdx_rpc_conf conf = { .transport = transport, .slots = 2, .max_sessions = 1,
				     .rto_us = 1000, .call_timeout_us = 100000 };
	struct ut_req_hdr h = { .resp_len = 8, .seed = 1 };
	struct ut_call c = { 0 };
	struct rdx_rpc_stats sa;
	uint8_t resp[8];
	struct ut_pair p;
	double t0, end;

	memset(&ut_st, 0, sizeof(ut_st));
	CU_ASSERT_FATAL(ut_pair_open(&p, "sw", "sw", &conf) == 0);
	CU_ASSERT_EQUAL(rdx_rpc_call(p.sa, UT_TYPE_LATER, &h, sizeof(h), resp, sizeof(resp),
				     ut_cont, &c), 0);
	t0 = ut_now();
	end = t0 + 5;
	while (c.completions == 0 && ut_now() < end) {
		rdx_rpc_endpoint_poll(p.a);
		rdx_rpc_endpoint_poll(p.b);
	}
	rdx_rpc_endpoint_stats_get(p.a, &sa);
	dump("a", p.a);
	CU_ASSERT_EQUAL(c.completions, 1);
	CU_ASSERT_EQUAL(c.status, -ETIMEDOUT);
	CU_ASSERT(ut_now() - t0 < 4);
	CU_ASSERT(sa.busy_rcvd > 0);
	CU_ASSERT_EQUAL(p.srv_b.handled, 1);
	/* the late response finds no call: dropped, no second continuation */
	ut_srv_flush(&p.srv_b);
	for (int i = 0; i < 1000; i++) {
		rdx_rpc_endpoint_poll(p.a);
		rdx_rpc_endpoint_poll(p.b);
	}
	CU_ASSERT_EQUAL(c.completions, 1);
	ut_pair_close(&p);
}

static void
test_basic_handler_silent(void)
{
	handler_silent("basic+infud");
}

static void
test_homa_handler_silent(void)
{
	handler_silent("homa+infud");
}

/*
 * Sessions that come and go on a busy endpoint: one destroyed while its
 * sends are still in the queue keeps its address handle until they
 * retire, and no longer than that (before, every such handle was kept
 * until the endpoint was destroyed: one more per session for ever).
 */
static void
session_churn(const char *transport)
{
	struct rdx_rpc_conf conf = { .transport = transport, .slots = 2, .max_sessions = 2 };
	struct ut_req_hdr h = { .resp_len = 8, .seed = 1 };
	struct rdx_rpc_session_info ia, ib;
	struct ut_call c;
	uint8_t resp[8];
	struct ut_pair p;
	uint32_t kept_max = 0;
	int k, i;

	CU_ASSERT_FATAL(ut_pair_open(&p, "sw", "sw", &conf) == 0);
	for (k = 0; k < 50; k++) {
		struct rdx_rpc_session *s2 = rdx_rpc_session_create(p.a);
		struct rdx_rpc_session *t2 = rdx_rpc_session_create(p.b);

		CU_ASSERT_FATAL(s2 != NULL && t2 != NULL);
		CU_ASSERT_FATAL(rdx_rpc_session_info_get(s2, &ia) == 0 &&
				rdx_rpc_session_info_get(t2, &ib) == 0);
		CU_ASSERT_FATAL(rdx_rpc_session_connect(s2, &ib) == 0 &&
				rdx_rpc_session_connect(t2, &ia) == 0);
		memset(&c, 0, sizeof(c));
		CU_ASSERT_EQUAL(rdx_rpc_call(s2, UT_TYPE_ECHO, &h, sizeof(h), resp, sizeof(resp),
					     ut_cont, &c), 0);
		CU_ASSERT(p.a->tx_out > 0); /* its request is still in the queue */
		CU_ASSERT_EQUAL(rdx_rpc_session_destroy(s2), 0);
		CU_ASSERT_EQUAL(c.status, -ECONNABORTED);
		for (i = 0; i < 200; i++) {
			rdx_rpc_endpoint_poll(p.a);
			rdx_rpc_endpoint_poll(p.b);
		}
		CU_ASSERT_EQUAL(rdx_rpc_session_destroy(t2), 0);
		kept_max = RTE_MAX(kept_max, p.a->ndead_ah);
	}
	printf("  %s: address handles kept at most %u\n", transport, kept_max);
	CU_ASSERT(kept_max <= 1);
	/* the endpoint goes on */
	memset(&ut_st, 0, sizeof(ut_st));
	CU_ASSERT_EQUAL(ut_run(p.a, p.b, p.sa, UT_TYPE_ECHO, 10, sizes_small, 1, sizes_small, 1,
			       2, NULL), 0);
	CU_ASSERT_EQUAL(ut_st.ok, 10);
	ut_pair_close(&p);
}

static void
test_basic_session_churn(void)
{
	session_churn("basic+infud");
}

static void
test_homa_session_churn(void)
{
	session_churn("homa+infud");
}

/*
 * The timer scan visits only sessions with a busy slot: 71 connected
 * sessions a side (two words of the active mask), calls on sessions 5 and
 * 70 only, every 5th datagram lost. Every call completes once with its
 * bytes (a loss is recovered only by a timer of that slot: one the scan
 * skipped would leave its call hanging), and no scan visited more than
 * the two busy sessions (visiting all, each scan would count 71).
 */
#define SCAN_SESS 71u
#define SCAN_CALLS 60u
#define SCAN_DEPTH 4u

static void
scan_active(const char *transport)
{
	struct rdx_rpc_conf conf = { .transport = transport, .slots = 8, .max_sessions = 80,
				     .msg_bufs = 16, .rto_us = 2000 };
	static const uint32_t busy[] = { 5, 70 };
	struct rdx_rpc_session *sa[SCAN_SESS], *sb[SCAN_SESS];
	static struct ut_call c[RTE_DIM(busy)][SCAN_CALLS];
	static struct ut_req_hdr req[RTE_DIM(busy)][SCAN_CALLS];
	static uint8_t resp[RTE_DIM(busy)][SCAN_CALLS][8];
	struct rdx_rpc_session_info ia, ib;
	struct rdx_rpc_stats st_a, st_b;
	uint32_t next[RTE_DIM(busy)] = { 0 }, done, i, j;
	uint64_t scans_a, visits_a, scans_b, visits_b;
	struct ut_pair p;
	double t_end;

	memset(&ut_st, 0, sizeof(ut_st));
	memset(c, 0, sizeof(c));
	CU_ASSERT_FATAL(ut_pair_open(&p, "sw:ud_drop_every=5", "sw:ud_drop_every=5", &conf) == 0);
	sa[0] = p.sa;
	sb[0] = p.sb;
	for (i = 1; i < SCAN_SESS; i++) {
		sa[i] = rdx_rpc_session_create(p.a);
		sb[i] = rdx_rpc_session_create(p.b);
		CU_ASSERT_FATAL(sa[i] != NULL && sb[i] != NULL);
		CU_ASSERT_FATAL(rdx_rpc_session_info_get(sa[i], &ia) == 0 &&
				rdx_rpc_session_info_get(sb[i], &ib) == 0);
		CU_ASSERT_FATAL(rdx_rpc_session_connect(sa[i], &ib) == 0 &&
				rdx_rpc_session_connect(sb[i], &ia) == 0);
	}
	scans_a = p.a->scans;
	visits_a = p.a->scan_visits;
	scans_b = p.b->scans;
	visits_b = p.b->scan_visits;
	t_end = ut_now() + 30.0;
	do {
		for (j = 0; j < RTE_DIM(busy); j++) {
			struct rdx_rpc_session *s = sa[busy[j]];

			while (next[j] < SCAN_CALLS && rdx_rpc_session_inflight(s) < SCAN_DEPTH) {
				struct ut_call *k = &c[j][next[j]];

				req[j][next[j]] = (struct ut_req_hdr){ .resp_len = 8,
								       .seed = j * 1000 + next[j] };
				k->resp = resp[j][next[j]];
				k->resp_len = 8;
				k->seed = req[j][next[j]].seed;
				if (rdx_rpc_call(s, UT_TYPE_ECHO, &req[j][next[j]], sizeof(req[0][0]),
						 k->resp, 8, ut_cont, k) != 0)
					break;
				next[j]++;
			}
		}
		rdx_rpc_endpoint_poll(p.a);
		rdx_rpc_endpoint_poll(p.b);
		done = 0;
		for (j = 0; j < RTE_DIM(busy); j++)
			for (i = 0; i < next[j]; i++)
				done += c[j][i].completions != 0;
	} while (done < RTE_DIM(busy) * SCAN_CALLS && ut_now() < t_end);
	scans_a = p.a->scans - scans_a;
	visits_a = p.a->scan_visits - visits_a;
	scans_b = p.b->scans - scans_b;
	visits_b = p.b->scan_visits - visits_b;
	rdx_rpc_endpoint_stats_get(p.a, &st_a);
	rdx_rpc_endpoint_stats_get(p.b, &st_b);
	printf("\n  %s: %u of %u calls on 2 of %u sessions; scans a %lu visiting %lu sessions, "
	       "b %lu visiting %lu; retransmits %lu\n", transport, done,
	       (unsigned int)(RTE_DIM(busy) * SCAN_CALLS), SCAN_SESS, (unsigned long)scans_a,
	       (unsigned long)visits_a, (unsigned long)scans_b, (unsigned long)visits_b,
	       (unsigned long)(st_a.retransmits + st_a.resends_sent + st_b.retransmits +
			       st_b.resends_sent));
	CU_ASSERT_EQUAL(ut_st.ok, RTE_DIM(busy) * SCAN_CALLS);
	CU_ASSERT_EQUAL(ut_st.errors, 0);
	CU_ASSERT_EQUAL(ut_st.bad_bytes, 0);
	CU_ASSERT_EQUAL(ut_st.extra, 0);
	CU_ASSERT_EQUAL(p.srv_b.handled, RTE_DIM(busy) * SCAN_CALLS);
	/* losses happened, and timers recovered them */
	CU_ASSERT(st_a.retransmits + st_a.resends_sent + st_b.retransmits + st_b.resends_sent > 0);
	CU_ASSERT(scans_a > 0 && scans_b > 0);
	CU_ASSERT(visits_a <= RTE_DIM(busy) * scans_a);
	CU_ASSERT(visits_b <= RTE_DIM(busy) * scans_b);
	ut_pair_close(&p);
}

static void
test_basic_scan_active(void)
{
	scan_active("basic+infud");
}

static void
test_homa_scan_active(void)
{
	scan_active("homa+infud");
}

/* rpc_copy (the payload copy of every transport): every length up to 40
 * at every alignment, the bytes around untouched. */
static void
test_copy(void)
{
	uint8_t src[64], dst[64];
	uint32_t n, off, i, bad = 0;

	for (i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 7 + 1);
	for (n = 0; n <= 40; n++) {
		for (off = 0; off < 4; off++) {
			memset(dst, 0xee, sizeof(dst));
			rpc_copy(dst + 1 + off, src + off, n);
			for (i = 0; i < sizeof(dst); i++) {
				bool in = i >= 1 + off && i < 1 + off + n;

				if (dst[i] != (in ? src[i - 1] : 0xee))
					bad++;
			}
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
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
burst_echo(struct rdx_rpc_req *req, void *arg)
{
	(void)arg;
	memcpy(req->resp, req->data, 8);
	CU_ASSERT(rdx_rpc_respond(req, 8) == 0);
}

/* What the handlers of one poll send goes out in one post: the server
 * reads 8 requests in one poll and sends the 8 responses with one
 * doorbell; the client's poll reads them and sends the 8 ACKs with one. */
static void
one_burst(const char *transport)
{
	struct rdx_rpc_conf conf = { .transport = transport, .slots = 8, .max_sessions = 1 };
	uint64_t req[8], resp[8], db0, db1, w0, w1;
	struct ut_call c[8];
	struct ut_pair p;
	unsigned int i;

	CU_ASSERT_FATAL(ut_pair_open(&p, "sw", "sw", &conf) == 0);
	CU_ASSERT_FATAL(rdx_rpc_handler_register(p.b, 1, burst_echo, NULL) == 0);
	memset(c, 0, sizeof(c));
	memset(&ut_st, 0, sizeof(ut_st));
	for (i = 0; i < 8; i++) {
		req[i] = 0x1000 + i;
		resp[i] = 0;
		c[i].resp_len = 8;
		/* outside a poll: each call is posted at once */
		CU_ASSERT_EQUAL(rdx_rpc_call(p.sa, 1, &req[i], 8, &resp[i], 8, ut_cont, &c[i]), 0);
	}
	dev_posts(p.db, &db0, &w0);
	CU_ASSERT_EQUAL(rdx_rpc_endpoint_poll(p.b), 8);
	dev_posts(p.db, &db1, &w1);
	CU_ASSERT_EQUAL(w1 - w0, 8);
	CU_ASSERT_EQUAL(db1 - db0, 1);
	dev_posts(p.da, &db0, &w0);
	CU_ASSERT_EQUAL(rdx_rpc_endpoint_poll(p.a), 8);
	dev_posts(p.da, &db1, &w1);
	CU_ASSERT_EQUAL(w1 - w0, 8); /* the ACKs */
	CU_ASSERT_EQUAL(db1 - db0, 1);
	for (i = 0; i < 8; i++) {
		CU_ASSERT_EQUAL(c[i].completions, 1);
		CU_ASSERT_EQUAL(c[i].status, 0);
		CU_ASSERT_EQUAL(resp[i], req[i]);
	}
	ut_pair_close(&p);
}

static void
test_basic_one_burst(void)
{
	one_burst("basic+infud");
}

static void
test_homa_one_burst(void)
{
	one_burst("homa+infud");
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "basic_sizes", test_basic_sizes },
		{ "homa_sizes", test_homa_sizes },
		{ "errors", test_errors },
		{ "basic_deferred", test_basic_deferred },
		{ "homa_deferred", test_homa_deferred },
		{ "basic_drop", test_basic_drop },
		{ "homa_drop", test_homa_drop },
		{ "basic_dup_reorder", test_basic_dup_reorder },
		{ "homa_dup_reorder", test_homa_dup_reorder },
		{ "basic_drop_every", test_basic_drop_every },
		{ "homa_drop_every", test_homa_drop_every },
		{ "basic_slow_poll", test_basic_slow_poll },
		{ "homa_slow_poll", test_homa_slow_poll },
		{ "basic_heavy_loss", test_basic_heavy_loss },
		{ "homa_heavy_loss", test_homa_heavy_loss },
		{ "basic_qp_error", test_basic_qp_error },
		{ "homa_qp_error", test_homa_qp_error },
		{ "basic_two_processes", test_basic_two_processes },
		{ "homa_two_processes", test_homa_two_processes },
		{ "basic_timeout_lines", test_basic_timeout_lines },
		{ "basic_handler_silent", test_basic_handler_silent },
		{ "homa_handler_silent", test_homa_handler_silent },
		{ "basic_session_churn", test_basic_session_churn },
		{ "homa_session_churn", test_homa_session_churn },
		{ "basic_one_burst", test_basic_one_burst },
		{ "copy", test_copy },
		{ "basic_scan_active", test_basic_scan_active },
		{ "homa_scan_active", test_homa_scan_active },
		{ "homa_one_burst", test_homa_one_burst },
		{ NULL, NULL },
	};

	return rdx_ut_run("rdx_rpc_ud", cases, NULL, NULL);
}
