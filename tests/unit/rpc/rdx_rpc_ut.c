/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rpc's common part (rdx_rpc.c) through the public API, with EAL
 * started (-l 0) so telemetry answers: transport names; every refused
 * configuration; the session info blob (version, transport and size
 * checks); handler registration; call and respond argument errors; the
 * bootstrap over lib/conn, and its accepting side without waiting
 * (rdx_rpc_session_bootstrap_poll); the poller on an rdx_lcore_loop; the counters
 * on /rdx/rpc/endpoints and /rdx/rpc/stats.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <jansson.h>
#include <rte_eal.h>

#include "rpc_ut_harness.h"
#include "rdx_conn.h"
#include "rdx_runtime.h"

#define EXIT_SKIP 77

static void
test_transport_names(void)
{
	CU_ASSERT_EQUAL(rdx_rpc_transport_parse("infrc"), RDX_RPC_TRANSPORT_INFRC);
	CU_ASSERT_EQUAL(rdx_rpc_transport_parse("basic+infud"), RDX_RPC_TRANSPORT_BASIC_INFUD);
	CU_ASSERT_EQUAL(rdx_rpc_transport_parse("homa+infud"), RDX_RPC_TRANSPORT_HOMA_INFUD);
	CU_ASSERT_EQUAL(rdx_rpc_transport_parse("homa"), -EINVAL);
	CU_ASSERT_EQUAL(rdx_rpc_transport_parse(NULL), -EINVAL);
	CU_ASSERT_STRING_EQUAL(rdx_rpc_transport_name(RDX_RPC_TRANSPORT_HOMA_INFUD), "homa+infud");
	CU_ASSERT_STRING_EQUAL(rdx_rpc_transport_name(RDX_RPC_TRANSPORT_MAX), "?");
}

static void
test_conf_refused(void)
{
	static const struct rdx_rpc_conf bad[] = {
		{ .transport = "tcp" },
		{ .transport = "infrc", .max_msg_size = 1000 },
		{ .transport = "infrc", .max_msg_size = RDX_RPC_MAX_MAX_MSG + 1 },
		{ .transport = "basic+infud", .slots = 65 },
		{ .transport = "basic+infud", .window = 65 },
		{ .transport = "basic+infud", .mtu = 4065 },
		{ .transport = "basic+infud", .mtu = 10 },
		{ .transport = "homa+infud", .overcommit = 100 },
		{ .transport = "homa+infud", .rtt_bytes = 10 },
		{ .transport = "homa+infud", .queue_depth = 8 },
		{ .transport = "homa+infud", .max_sessions = 2, .slots = 2, .msg_bufs = 5 },
	};
	struct rdx_rpc_conf good = { .transport = NULL, .name = "dflt" };
	struct rdx_rpc_endpoint *ep;
	struct rdx_dev *d = rdx_dev_open("sw", NULL);
	size_t i;

	CU_ASSERT_FATAL(d != NULL);
	for (i = 0; i < RTE_DIM(bad); i++) {
		rte_errno = 0;
		CU_ASSERT_PTR_NULL(rdx_rpc_endpoint_create(d, &bad[i]));
		CU_ASSERT_EQUAL(rte_errno, EINVAL);
	}
	CU_ASSERT_PTR_NULL(rdx_rpc_endpoint_create(NULL, &good));
	CU_ASSERT_PTR_NULL(rdx_rpc_endpoint_create(d, NULL));
	/* defaults: basic+infud, 1 MiB, mtu = the device's UD MTU - 32 */
	ep = rdx_rpc_endpoint_create(d, &good);
	CU_ASSERT_FATAL(ep != NULL);
	CU_ASSERT_EQUAL(rdx_rpc_endpoint_transport(ep), RDX_RPC_TRANSPORT_BASIC_INFUD);
	CU_ASSERT_EQUAL(rdx_rpc_endpoint_max_msg(ep), RDX_RPC_DEFAULT_MAX_MSG);
	CU_ASSERT_STRING_EQUAL(rdx_rpc_endpoint_name(ep), "dflt");
	{
		struct rdx_rpc_conf c;

		CU_ASSERT_EQUAL(rdx_rpc_endpoint_conf_get(ep, &c), 0);
		CU_ASSERT_STRING_EQUAL(c.transport, "basic+infud");
		CU_ASSERT_STRING_EQUAL(c.name, "dflt");
		CU_ASSERT_EQUAL(c.max_msg_size, RDX_RPC_DEFAULT_MAX_MSG);
		CU_ASSERT_EQUAL(c.max_sessions, 16);
		CU_ASSERT_EQUAL(c.slots, 8);
		CU_ASSERT_EQUAL(c.msg_bufs, 128);
		CU_ASSERT_EQUAL(c.mtu, 4064);
		CU_ASSERT_EQUAL(c.queue_depth, 256);
		CU_ASSERT_EQUAL(c.rto_us, 1000);
		CU_ASSERT(c.call_timeout_us >= 4999999 && c.call_timeout_us <= 5000000);
		CU_ASSERT_EQUAL(c.window, 32);
		CU_ASSERT_EQUAL(c.rtt_bytes, 0);
		CU_ASSERT_EQUAL(c.overcommit, 0);
		CU_ASSERT(!c.lcore_id_set);
		CU_ASSERT_EQUAL(rdx_rpc_endpoint_conf_get(ep, NULL), -EINVAL);
	}
	CU_ASSERT_EQUAL(rdx_rpc_endpoint_destroy(ep), 0);
	CU_ASSERT_EQUAL(rdx_rpc_endpoint_destroy(NULL), 0);
	CU_ASSERT_EQUAL(rdx_dev_close(d), 0);
}

static void
test_session_info(void)
{
	struct rdx_rpc_conf ca = { .transport = "homa+infud", .max_sessions = 2, .slots = 4 };
	struct rdx_rpc_conf cb = ca;
	struct rdx_rpc_session_info ia, ib, x;
	struct rdx_rpc_endpoint *a, *b, *r;
	struct rdx_rpc_session *sa, *sb, *sr, *s3;
	struct rdx_dev *d = rdx_dev_open("sw", NULL);
	struct rdx_rpc_conf cr = { .transport = "infrc", .max_sessions = 1, .slots = 1 };
	uint8_t buf[8];

	CU_ASSERT_FATAL(d != NULL);
	a = rdx_rpc_endpoint_create(d, &ca);
	b = rdx_rpc_endpoint_create(d, &cb);
	r = rdx_rpc_endpoint_create(d, &cr);
	CU_ASSERT_FATAL(a != NULL && b != NULL && r != NULL);
	sa = rdx_rpc_session_create(a);
	sb = rdx_rpc_session_create(b);
	sr = rdx_rpc_session_create(r);
	CU_ASSERT_FATAL(sa != NULL && sb != NULL && sr != NULL);
	CU_ASSERT_PTR_NULL(rdx_rpc_session_create(r)); /* max_sessions 1 */
	CU_ASSERT_EQUAL(rte_errno, ENOSPC);
	CU_ASSERT_EQUAL(rdx_rpc_session_info_get(sa, &ia), 0);
	CU_ASSERT_EQUAL(rdx_rpc_session_info_get(sb, &ib), 0);
	CU_ASSERT_EQUAL(ia.magic, RDX_RPC_INFO_MAGIC);
	CU_ASSERT_EQUAL(ia.version, RDX_RPC_INFO_VERSION);
	CU_ASSERT_EQUAL(ia.transport, RDX_RPC_TRANSPORT_HOMA_INFUD);
	CU_ASSERT_EQUAL(ia.mtu, 4064);
	CU_ASSERT_EQUAL(ia.rtt_bytes, 8 * 4064);
	CU_ASSERT_EQUAL(ia.rsv0 + ia.rsv1, 0);
	/* not connected: calls refused */
	CU_ASSERT_EQUAL(rdx_rpc_call(sa, 1, buf, 8, buf, 8, ut_cont, NULL), -ENOTCONN);
	/* each field that must agree */
	x = ib; x.version = 2;
	CU_ASSERT_EQUAL(rdx_rpc_session_connect(sa, &x), -EPROTO);
	x = ib; x.magic = 0;
	CU_ASSERT_EQUAL(rdx_rpc_session_connect(sa, &x), -EPROTO);
	x = ib; x.max_msg_size *= 2;
	CU_ASSERT_EQUAL(rdx_rpc_session_connect(sa, &x), -EPROTO);
	x = ib; x.slots = 8;
	CU_ASSERT_EQUAL(rdx_rpc_session_connect(sa, &x), -EPROTO);
	x = ib; x.mtu = 1000;
	CU_ASSERT_EQUAL(rdx_rpc_session_connect(sa, &x), -EPROTO);
	x = ib; x.rtt_bytes = 4064;
	CU_ASSERT_EQUAL(rdx_rpc_session_connect(sa, &x), -EPROTO);
	CU_ASSERT_EQUAL(rdx_rpc_session_info_get(sr, &x), 0);
	CU_ASSERT_EQUAL(rdx_rpc_session_connect(sa, &x), -EPROTO); /* infrc vs homa */
	CU_ASSERT_EQUAL(rdx_rpc_session_connect(sa, NULL), -EINVAL);
	CU_ASSERT_EQUAL(rdx_rpc_session_connect(sa, &ib), 0);
	CU_ASSERT_EQUAL(rdx_rpc_session_connect(sa, &ib), -EINVAL); /* twice */
	CU_ASSERT_EQUAL(rdx_rpc_session_connect(sb, &ia), 0);
	/* call arguments */
	CU_ASSERT_EQUAL(rdx_rpc_call(sa, 1, buf, 8, buf, 8, NULL, NULL), -EINVAL);
	CU_ASSERT_EQUAL(rdx_rpc_call(sa, RDX_RPC_MAX_TYPES, buf, 8, buf, 8, ut_cont, NULL), -EINVAL);
	CU_ASSERT_EQUAL(rdx_rpc_call(sa, 1, NULL, 8, buf, 8, ut_cont, NULL), -EINVAL);
	CU_ASSERT_EQUAL(rdx_rpc_call(sa, 1, buf, RDX_RPC_DEFAULT_MAX_MSG + 1, buf, 8, ut_cont, NULL),
			-EMSGSIZE);
	CU_ASSERT_EQUAL(rdx_rpc_session_inflight(sa), 0);
	CU_ASSERT_PTR_EQUAL(rdx_rpc_session_endpoint(sa), a);
	/* a second session on a, and its removal */
	s3 = rdx_rpc_session_create(a);
	CU_ASSERT_FATAL(s3 != NULL);
	CU_ASSERT_EQUAL(rdx_rpc_session_destroy(s3), 0);
	CU_ASSERT_EQUAL(rdx_rpc_session_destroy(NULL), -EINVAL);
	CU_ASSERT_EQUAL(rdx_rpc_endpoint_destroy(a), 0);
	CU_ASSERT_EQUAL(rdx_rpc_endpoint_destroy(b), 0);
	CU_ASSERT_EQUAL(rdx_rpc_endpoint_destroy(r), 0);
	CU_ASSERT_EQUAL(rdx_dev_close(d), 0);
}

static void
nop_handler(struct rdx_rpc_req *req, void *arg)
{
	(void)arg;
	CU_ASSERT_EQUAL(rdx_rpc_respond(req, req->resp_cap + 1), -EMSGSIZE);
	CU_ASSERT_EQUAL(rdx_rpc_respond(req, 0), 0);
	CU_ASSERT_EQUAL(rdx_rpc_respond(req, 0), -EINVAL); /* once */
}

static void
test_handlers(void)
{
	struct rdx_rpc_conf conf = { .transport = "basic+infud", .max_sessions = 1, .slots = 2 };
	struct ut_pair p;
	struct ut_call c = { 0 };
	int i;

	CU_ASSERT_FATAL(ut_pair_open(&p, "sw", "sw", &conf) == 0);
	CU_ASSERT_EQUAL(rdx_rpc_handler_register(NULL, 1, nop_handler, NULL), -EINVAL);
	CU_ASSERT_EQUAL(rdx_rpc_handler_register(p.b, RDX_RPC_MAX_TYPES, nop_handler, NULL), -EINVAL);
	CU_ASSERT_EQUAL(rdx_rpc_handler_register(p.b, UT_TYPE_ECHO, nop_handler, NULL), -EEXIST);
	CU_ASSERT_EQUAL(rdx_rpc_handler_register(p.b, UT_TYPE_ECHO, NULL, NULL), 0);
	CU_ASSERT_EQUAL(rdx_rpc_handler_register(p.b, UT_TYPE_ECHO, nop_handler, NULL), 0);
	CU_ASSERT_EQUAL(rdx_rpc_respond(NULL, 0), -EINVAL);
	memset(&ut_st, 0, sizeof(ut_st));
	CU_ASSERT_EQUAL(rdx_rpc_call(p.sa, UT_TYPE_ECHO, NULL, 0, NULL, 0, ut_cont, &c), 0);
	for (i = 0; i < 100000 && c.completions == 0; i++) {
		rdx_rpc_endpoint_poll(p.a);
		rdx_rpc_endpoint_poll(p.b);
	}
	CU_ASSERT_EQUAL(c.completions, 1);
	CU_ASSERT_EQUAL(c.status, 0);
	CU_ASSERT_EQUAL(c.got_len, 0);
	ut_pair_close(&p);
}

/* A session created again at the same index does not take the packets
 * addressed to its predecessor: a peer still using the old one times out,
 * its packets counted as bad, no handler run. */
static void
test_session_epoch(void)
{
	struct rdx_rpc_conf conf = { .transport = "basic+infud", .max_sessions = 2, .slots = 2,
				     .call_timeout_us = 20000, .rto_us = 1000 };
	struct rdx_rpc_session_info ia, ib;
	struct rdx_rpc_session *sa2, *sb2;
	struct ut_req_hdr h = { .resp_len = 10, .seed = 3 };
	struct ut_call c = { 0 }, c2 = { 0 };
	struct rdx_rpc_stats st;
	uint8_t resp[10];
	char line[2048];
	struct ut_pair p;
	FILE *log;
	double end;
	int saved;

	CU_ASSERT_FATAL(ut_pair_open(&p, "sw", "sw", &conf) == 0);
	CU_ASSERT_EQUAL(rdx_rpc_handler_register(p.a, UT_TYPE_LATER, ut_echo, &p.srv_a), 0);
	CU_ASSERT_EQUAL(rdx_rpc_session_info_get(p.sa, &ia), 0);
	CU_ASSERT_EQUAL(rdx_rpc_session_destroy(p.sa), 0);
	sa2 = rdx_rpc_session_create(p.a);
	sb2 = rdx_rpc_session_create(p.b);
	CU_ASSERT_FATAL(sa2 != NULL && sb2 != NULL);
	CU_ASSERT_EQUAL(rdx_rpc_session_info_get(sa2, &ib), 0);
	CU_ASSERT_EQUAL(ib.session_id & 0xffffff, ia.session_id & 0xffffff); /* same index */
	CU_ASSERT_NOT_EQUAL(ib.session_id, ia.session_id);                 /* new epoch */
	CU_ASSERT_EQUAL(rdx_rpc_session_connect(sa2, &(struct rdx_rpc_session_info){ 0 }), -EPROTO);
	{
		struct rdx_rpc_session_info x;

		CU_ASSERT_EQUAL(rdx_rpc_session_info_get(sb2, &x), 0);
		CU_ASSERT_EQUAL(rdx_rpc_session_connect(sa2, &x), 0);
		CU_ASSERT_EQUAL(rdx_rpc_session_connect(sb2, &ib), 0);
	}
	memset(&ut_st, 0, sizeof(ut_st));
	c.resp_len = c2.resp_len = 10;
	c.seed = c2.seed = 3;
	CU_ASSERT_EQUAL(rdx_rpc_call(p.sb, UT_TYPE_LATER, &h, sizeof(h), resp, sizeof(resp),
				     ut_cont, &c), 0);
	/* the timeout's one line (lib/rpc's stderr, caught in a file) */
	fflush(stderr);
	log = tmpfile();
	CU_ASSERT_FATAL(log != NULL);
	saved = dup(STDERR_FILENO);
	CU_ASSERT_FATAL(saved >= 0 && dup2(fileno(log), STDERR_FILENO) >= 0);
	end = ut_now() + 10;
	while (c.completions == 0 && ut_now() < end) {
		rdx_rpc_endpoint_poll(p.a);
		rdx_rpc_endpoint_poll(p.b);
	}
	fflush(stderr);
	CU_ASSERT_FATAL(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	rewind(log);
	line[fread(line, 1, sizeof(line) - 1, log)] = '\0';
	fclose(log);
	fputs(line, stderr);
	CU_ASSERT_EQUAL(c.completions, 1);
	CU_ASSERT_EQUAL(c.status, -ETIMEDOUT);
	CU_ASSERT_EQUAL(p.srv_a.handled, 0);
	/* which call, how long silent, its request never acknowledged */
	CU_ASSERT(strstr(line, "session 0: call 0 (slot 0) timed out") != NULL);
	CU_ASSERT(strstr(line, "; calls [0] id 0 ") != NULL);
	CU_ASSERT(strstr(line, " req open tx 0/1/1 resp none") != NULL);
	CU_ASSERT(strstr(line, "pool 4/4") != NULL); /* b's: nothing held */
	{
		/* one line, once: the counters close it */
		const char *a = strstr(line, "timed out"), *nl = a != NULL ? strchr(a, '\n') : NULL;

		CU_ASSERT_FATAL(nl != NULL);
		CU_ASSERT(nl - a > 5 && memcmp(nl - 5, "err 0", 5) == 0);
		CU_ASSERT(strstr(nl, "timed out") == NULL);
	}
	rdx_rpc_endpoint_stats_get(p.a, &st);
	CU_ASSERT(st.bad_pkts > 0);
	CU_ASSERT_EQUAL(rdx_rpc_call(sb2, UT_TYPE_LATER, &h, sizeof(h), resp, sizeof(resp),
				     ut_cont, &c2), 0);
	end = ut_now() + 10;
	while (c2.completions == 0 && ut_now() < end) {
		rdx_rpc_endpoint_poll(p.a);
		rdx_rpc_endpoint_poll(p.b);
	}
	CU_ASSERT_EQUAL(c2.status, 0);
	CU_ASSERT_EQUAL(p.srv_a.handled, 1);
	ut_pair_close(&p);
}

/* Both ends bootstrap over a loopback rdx_conn (one in a thread). */
struct boot {
	struct rdx_conn *listener;
	struct rdx_rpc_session *s;
	int ret;
};

static void *
boot_server(void *arg)
{
	struct boot *b = arg;
	struct rdx_conn *c = rdx_conn_accept(b->listener, 5000);

	b->ret = c == NULL ? -1 : rdx_rpc_session_bootstrap(b->s, c, 5000);
	rdx_conn_close(c);
	return NULL;
}

static json_t *
tel_query(int sock, const char *cmd)
{
	static char buf[65536];
	char key[64];
	const char *comma = strchr(cmd, ',');
	json_t *root, *v;
	ssize_t n;

	if (send(sock, cmd, strlen(cmd), 0) < 0)
		return NULL;
	n = recv(sock, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	printf("\n  %s -> %.300s", cmd, buf);
	root = json_loads(buf, 0, NULL);
	if (root == NULL)
		return NULL;
	snprintf(key, sizeof(key), "%.*s", comma != NULL ? (int)(comma - cmd) : 63, cmd);
	v = json_object_get(root, key);
	if (v != NULL)
		json_incref(v);
	json_decref(root);
	return v;
}

static int
tel_connect(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = 5 };
	char buf[1024];
	int s;

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/dpdk_telemetry.v2",
		 rte_eal_get_runtime_dir());
	s = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	if (s < 0)
		return -1;
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(s, (struct sockaddr *)&sun, sizeof(sun)) != 0 ||
	    recv(s, buf, sizeof(buf), 0) <= 0) {
		close(s);
		return -1;
	}
	return s;
}

static void
test_bootstrap_poller_telemetry(void)
{
	struct rdx_rpc_conf ca = { .transport = "infrc", .max_sessions = 1, .slots = 2,
				   .name = "ut-client" };
	struct rdx_rpc_conf cb = ca;
	static const uint32_t sz[] = { 100, 70000 };
	struct rdx_rpc_endpoint *a, *b;
	struct rdx_rpc_session *sa;
	struct rdx_lcore_loop loop;
	struct rdx_conn *c;
	struct ut_srv srv = { 0 };
	struct boot bt = { 0 };
	struct ut_call call = { 0 };
	uint8_t req[sizeof(struct ut_req_hdr)], resp[100];
	struct ut_req_hdr h = { .resp_len = 100, .seed = 9 };
	struct rdx_dev *d = rdx_dev_open("sw", NULL);
	pthread_t th;
	json_t *v;
	int sock, i;

	CU_ASSERT_FATAL(d != NULL);
	cb.name = "ut-server";
	a = rdx_rpc_endpoint_create(d, &ca);
	b = rdx_rpc_endpoint_create(d, &cb);
	CU_ASSERT_FATAL(a != NULL && b != NULL);
	CU_ASSERT_EQUAL(rdx_rpc_handler_register(b, UT_TYPE_ECHO, ut_echo, &srv), 0);
	sa = rdx_rpc_session_create(a);
	bt.s = rdx_rpc_session_create(b);
	CU_ASSERT_FATAL(sa != NULL && bt.s != NULL);
	bt.listener = rdx_conn_listen("127.0.0.1", 0);
	CU_ASSERT_FATAL(bt.listener != NULL);
	CU_ASSERT_FATAL(pthread_create(&th, NULL, boot_server, &bt) == 0);
	c = rdx_conn_connect("127.0.0.1", rdx_conn_port(bt.listener), 5000);
	CU_ASSERT_FATAL(c != NULL);
	CU_ASSERT_EQUAL(rdx_rpc_session_bootstrap(sa, c, 5000), 0);
	pthread_join(th, NULL);
	CU_ASSERT_EQUAL(bt.ret, 0);
	rdx_conn_close(c);
	rdx_conn_close(bt.listener);
	/* the endpoints as pollers of a loop, one pass at a time */
	rdx_lcore_loop_init(&loop);
	CU_ASSERT_EQUAL(rdx_lcore_loop_add(&loop, "rpc-a", rdx_rpc_endpoint_poller, a), 0);
	CU_ASSERT_EQUAL(rdx_lcore_loop_add(&loop, "rpc-b", rdx_rpc_endpoint_poller, b), 0);
	memcpy(req, &h, sizeof(h));
	call.resp = resp;
	call.resp_len = 100;
	call.seed = 9;
	memset(&ut_st, 0, sizeof(ut_st));
	CU_ASSERT_EQUAL(rdx_rpc_call(sa, UT_TYPE_ECHO, req, sizeof(req), resp, sizeof(resp),
				     ut_cont, &call), 0);
	for (i = 0; i < 100000 && call.completions == 0; i++)
		rdx_lcore_loop_run_once(&loop);
	CU_ASSERT_EQUAL(call.completions, 1);
	CU_ASSERT_EQUAL(ut_st.ok, 1);
	CU_ASSERT(loop.pollers[0].busy_calls > 0 && loop.pollers[1].busy_calls > 0);
	CU_ASSERT_EQUAL(ut_run(a, b, sa, UT_TYPE_ECHO, 9, sz, 1, sz, 2, 2, NULL), 0);
	/* telemetry */
	sock = tel_connect();
	CU_ASSERT_FATAL(sock >= 0);
	v = tel_query(sock, RDX_RPC_TELEMETRY_CMD_ENDPOINTS);
	CU_ASSERT(json_is_array(v) && json_array_size(v) == 2);
	CU_ASSERT(json_is_array(v) &&
		  strcmp(json_string_value(json_array_get(v, 0)), "ut-client") == 0);
	json_decref(v);
	v = tel_query(sock, RDX_RPC_TELEMETRY_CMD_STATS ",ut-client");
	CU_ASSERT(json_is_object(v));
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(v, "transport")), "infrc");
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(v, "calls")), 10);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(v, "calls_ok")), 10);
	CU_ASSERT(json_integer_value(json_object_get(v, "tx_bytes")) > 0);
	CU_ASSERT(json_object_get(v, "retransmits") != NULL);
	CU_ASSERT(json_object_get(v, "dup_dropped") != NULL);
	json_decref(v);
	v = tel_query(sock, RDX_RPC_TELEMETRY_CMD_STATS ",ut-server");
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(v, "requests")), 10);
	json_decref(v);
	v = tel_query(sock, RDX_RPC_TELEMETRY_CMD_STATS ",nope");
	CU_ASSERT(v == NULL || json_is_null(v));
	json_decref(v);
	close(sock);
	CU_ASSERT_EQUAL(rdx_rpc_endpoint_destroy(a), 0);
	CU_ASSERT_EQUAL(rdx_rpc_endpoint_destroy(b), 0);
	CU_ASSERT_EQUAL(rdx_dev_close(d), 0);
}

/* A connected rdx_conn pair, the server's end from rdx_conn_accept_start. */
struct nb_pair {
	uint16_t port;
	struct rdx_conn *cl, *sv;
};

static void *
nb_connect(void *arg)
{
	struct nb_pair *p = arg;

	p->cl = rdx_conn_connect("127.0.0.1", p->port, 5000);
	return NULL;
}

static void
nb_pair_open(struct rdx_conn *l, struct nb_pair *p)
{
	pthread_t th;
	int i, ret = -EAGAIN;

	memset(p, 0, sizeof(*p));
	p->port = rdx_conn_port(l);
	CU_ASSERT_FATAL(pthread_create(&th, NULL, nb_connect, p) == 0);
	for (i = 0; i < 500 && p->sv == NULL; i++)
		if ((p->sv = rdx_conn_accept_start(l)) == NULL)
			usleep(10000);
	for (i = 0; i < 500 && p->sv != NULL && ret == -EAGAIN; i++)
		if ((ret = rdx_conn_hello_poll(p->sv)) == -EAGAIN)
			usleep(10000);
	pthread_join(th, NULL);
	CU_ASSERT_FATAL(p->cl != NULL && p->sv != NULL && ret == 0);
}

/* rdx_rpc_session_bootstrap_poll until it stops saying -EAGAIN. */
static int
nb_boot(struct rdx_rpc_endpoint *ep, struct rdx_conn *c, struct rdx_rpc_session **s)
{
	int i, ret = -EAGAIN;

	for (i = 0; i < 500 && ret == -EAGAIN; i++)
		if ((ret = rdx_rpc_session_bootstrap_poll(ep, c, s)) == -EAGAIN)
			usleep(10000);
	return ret;
}

/*
 * The accepting side without waiting: -EAGAIN (and no session taken) until
 * the peer's info is there, then a connected session; a message of another
 * type, a peer gone, a blob that does not match: errors, no session left.
 */
static void
test_bootstrap_poll(void)
{
	struct rdx_rpc_conf ca = { .transport = "infrc", .max_sessions = 1, .slots = 2,
				   .name = "ut-nb-client" };
	struct rdx_rpc_conf cb = ca, cc = ca;
	static const uint32_t sz[] = { 100 };
	struct rdx_rpc_endpoint *a, *b, *x;
	struct rdx_rpc_session *sa, *sb = NULL, *tmp;
	struct rdx_rpc_session_info info, peer;
	struct rdx_dev *d = rdx_dev_open("sw", NULL);
	struct ut_srv srv = { 0 };
	struct rdx_conn *l;
	struct nb_pair p;

	CU_ASSERT_FATAL(d != NULL);
	cb.name = "ut-nb-server";
	cc.name = "ut-nb-other";
	cc.slots = 4;
	a = rdx_rpc_endpoint_create(d, &ca);
	b = rdx_rpc_endpoint_create(d, &cb);
	x = rdx_rpc_endpoint_create(d, &cc);
	CU_ASSERT_FATAL(a != NULL && b != NULL && x != NULL);
	CU_ASSERT_EQUAL(rdx_rpc_handler_register(b, UT_TYPE_ECHO, ut_echo, &srv), 0);
	l = rdx_conn_listen("127.0.0.1", 0);
	CU_ASSERT_FATAL(l != NULL);
	CU_ASSERT_EQUAL(rdx_rpc_session_bootstrap_poll(NULL, NULL, &sb), -EINVAL);

	/* nothing sent yet: -EAGAIN, and b's only session is still free */
	nb_pair_open(l, &p);
	CU_ASSERT_EQUAL(rdx_rpc_session_bootstrap_poll(b, p.sv, &sb), -EAGAIN);
	CU_ASSERT_PTR_NULL(sb);
	tmp = rdx_rpc_session_create(b);
	CU_ASSERT_PTR_NOT_NULL(tmp);
	rdx_rpc_session_destroy(tmp);
	/* the client's half, by hand: its info, then the server's back */
	sa = rdx_rpc_session_create(a);
	CU_ASSERT_FATAL(sa != NULL);
	CU_ASSERT_EQUAL(rdx_rpc_session_info_get(sa, &info), 0);
	CU_ASSERT_EQUAL(rdx_conn_send(p.cl, RDX_RPC_CONN_MSG, &info, sizeof(info), 5000), 0);
	CU_ASSERT_EQUAL(nb_boot(b, p.sv, &sb), 0);
	CU_ASSERT_FATAL(sb != NULL);
	CU_ASSERT_EQUAL(rdx_conn_recv(p.cl, RDX_RPC_CONN_MSG, &peer, sizeof(peer), 5000), 0);
	CU_ASSERT_EQUAL(rdx_rpc_session_connect(sa, &peer), 0);
	CU_ASSERT_EQUAL(ut_run(a, b, sa, UT_TYPE_ECHO, 4, sz, 1, sz, 1, 2, NULL), 0);
	rdx_conn_close(p.cl);
	rdx_conn_close(p.sv);
	CU_ASSERT_EQUAL(rdx_rpc_session_destroy(sb), 0);

	/* another message type: -EPROTO */
	nb_pair_open(l, &p);
	CU_ASSERT_EQUAL(rdx_conn_send(p.cl, RDX_RPC_CONN_MSG + 1, &info, sizeof(info), 5000), 0);
	CU_ASSERT_EQUAL(nb_boot(b, p.sv, &sb), -EPROTO);
	CU_ASSERT_PTR_NULL(sb);
	rdx_conn_close(p.cl);
	rdx_conn_close(p.sv);

	/* the peer goes after a hello: -ECONNRESET */
	nb_pair_open(l, &p);
	rdx_conn_close(p.cl);
	CU_ASSERT_EQUAL(nb_boot(b, p.sv, &sb), -ECONNRESET);
	CU_ASSERT_PTR_NULL(sb);
	rdx_conn_close(p.sv);

	/* a blob that does not match (slots 4, ours 2): -EPROTO, the session
	 * made for it destroyed (b's only one is free again) */
	nb_pair_open(l, &p);
	tmp = rdx_rpc_session_create(x);
	CU_ASSERT_FATAL(tmp != NULL);
	CU_ASSERT_EQUAL(rdx_rpc_session_info_get(tmp, &info), 0);
	CU_ASSERT_EQUAL(rdx_conn_send(p.cl, RDX_RPC_CONN_MSG, &info, sizeof(info), 5000), 0);
	CU_ASSERT_EQUAL(nb_boot(b, p.sv, &sb), -EPROTO);
	CU_ASSERT_PTR_NULL(sb);
	sb = rdx_rpc_session_create(b);
	CU_ASSERT_PTR_NOT_NULL(sb);
	rdx_conn_close(p.cl);
	rdx_conn_close(p.sv);
	rdx_conn_close(l);
	CU_ASSERT_EQUAL(rdx_rpc_endpoint_destroy(x), 0);
	CU_ASSERT_EQUAL(rdx_rpc_endpoint_destroy(a), 0);
	CU_ASSERT_EQUAL(rdx_rpc_endpoint_destroy(b), 0);
	CU_ASSERT_EQUAL(rdx_dev_close(d), 0);
}

/*
 * A continuation that calls again when its session is destroyed: the new
 * call is refused (-ENOTCONN), not accepted into a slot the destroy has
 * already passed and then freed with no continuation ever run. Every
 * transport; two slots, so the second re-call wraps to slot 0.
 */
static struct {
	int runs, last_ret, accepted;
	uint8_t resp[16];
} recall;

static void
recall_cont(struct rdx_rpc_session *s, int status, void *resp, uint32_t len, void *arg)
{
	static const struct ut_req_hdr h = { .resp_len = 8, .seed = 1 };

	(void)resp;
	(void)len;
	(void)arg;
	recall.runs++;
	if (status != -ECONNABORTED || recall.runs > 8)
		return;
	recall.last_ret = rdx_rpc_call(s, UT_TYPE_LATER, &h, sizeof(h), recall.resp,
				       sizeof(recall.resp), recall_cont, NULL);
	recall.accepted += recall.last_ret == 0;
}

static void
test_destroy_recall(void)
{
	static const char *const transports[] = { "infrc", "basic+infud", "homa+infud" };
	const struct ut_req_hdr h = { .resp_len = 8, .seed = 1 };
	size_t t;
	int i;

	for (t = 0; t < RTE_DIM(transports); t++) {
		struct rdx_rpc_conf conf = { .transport = transports[t], .slots = 2,
					     .max_sessions = 2 };
		struct ut_pair p;

		CU_ASSERT_FATAL(ut_pair_open(&p, "sw", "sw", &conf) == 0);
		memset(&recall, 0, sizeof(recall));
		CU_ASSERT_EQUAL(rdx_rpc_call(p.sa, UT_TYPE_LATER, &h, sizeof(h), recall.resp,
					     sizeof(recall.resp), recall_cont, NULL), 0);
		for (i = 0; i < 100; i++) {
			rdx_rpc_endpoint_poll(p.a);
			rdx_rpc_endpoint_poll(p.b);
		}
		CU_ASSERT_EQUAL(rdx_rpc_session_destroy(p.sa), 0);
		/* one call made, one continuation; every call accepted in a
		 * continuation would need one more */
		CU_ASSERT_EQUAL(recall.accepted, 0);
		CU_ASSERT_EQUAL(recall.runs, 1 + recall.accepted);
		CU_ASSERT_EQUAL(recall.last_ret, -ENOTCONN);
		ut_srv_flush(&p.srv_b);
		ut_pair_close(&p);
	}
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "transport_names", test_transport_names },
		{ "conf_refused", test_conf_refused },
		{ "session_info", test_session_info },
		{ "handlers", test_handlers },
		{ "session_epoch", test_session_epoch },
		{ "destroy_recall", test_destroy_recall },
		{ "bootstrap_poller_telemetry", test_bootstrap_poller_telemetry },
		{ "bootstrap_poll", test_bootstrap_poll },
		{ NULL, NULL },
	};
	char a0[] = "rdx_rpc_ut", a1[] = "-l", a2[] = "0";
	char *eargv[] = { a0, a1, a2, NULL };
	int ret;

	if (rdx_runtime_init(3, eargv) < 0) {
		printf("SKIP: EAL does not start here with -l 0\n");
		return EXIT_SKIP;
	}
	ret = rdx_ut_run("rdx_rpc", cases, NULL, NULL);
	rdx_runtime_cleanup();
	return ret;
}
