/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/conn/rdx_conn_msg.c on 127.0.0.1, server and client in two threads:
 * typed exchange (16 MiB both ways without deadlock), message type/length
 * mismatch with resync, receive timeout, peer death, no SIGPIPE, a stop
 * request ending waits, the non-blocking look at a message in parts
 * (rdx_conn_recv_ready). The socket side it uses is compiled in
 * (rdx_conn_sock.c; its own tests are rdx_conn_sock_ut.c).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rdx_ut.h"

#include "../../../lib/conn/rdx_conn_msg.c"
#include "rdx_conn_ut.h"

struct test_cfg {
	uint32_t test_id;
	uint32_t qpn;
	uint64_t addr;
	uint32_t rkey;
	uint32_t pad;
};

struct exch {
	struct rdx_conn *c;
	struct test_cfg mine, theirs;
	int ret;
	pthread_t thread;
};

static void *
do_exchange(void *arg)
{
	struct exch *e = arg;

	e->ret = rdx_conn_exchange(e->c, 7, &e->mine, &e->theirs, sizeof(e->mine), TMO);
	return NULL;
}

static void
test_exchange(void)
{
	struct server s;
	struct rdx_conn *cl;
	struct exch a, b;

	pair(&s, &cl);
	CU_ASSERT_STRING_EQUAL(rdx_conn_peer_version(cl), RDX_VERSION_STR);
	CU_ASSERT_STRING_EQUAL(rdx_conn_peer_version(s.conn), RDX_VERSION_STR);
	CU_ASSERT_PTR_NOT_NULL(strstr(rdx_conn_peer_name(s.conn), "127.0.0.1:"));
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.c = s.conn;
	a.mine = (struct test_cfg){ .test_id = 1, .qpn = 0x11, .addr = 0x1000, .rkey = 0xaa };
	b.c = cl;
	b.mine = (struct test_cfg){ .test_id = 1, .qpn = 0x22, .addr = 0x2000, .rkey = 0xbb };
	CU_ASSERT_FATAL(pthread_create(&a.thread, NULL, do_exchange, &a) == 0);
	do_exchange(&b);
	pthread_join(a.thread, NULL);
	CU_ASSERT_EQUAL(a.ret, 0);
	CU_ASSERT_EQUAL(b.ret, 0);
	CU_ASSERT_EQUAL(memcmp(&a.theirs, &b.mine, sizeof(a.theirs)), 0);
	CU_ASSERT_EQUAL(memcmp(&b.theirs, &a.mine, sizeof(b.theirs)), 0);

	/* Plain send/recv, and an empty message. */
	CU_ASSERT_EQUAL(rdx_conn_send(cl, 3, "ping", 4, TMO), 0);
	CU_ASSERT_EQUAL(rdx_conn_send(cl, 4, NULL, 0, TMO), 0);
	char buf[4];
	CU_ASSERT_EQUAL(rdx_conn_recv(s.conn, 3, buf, 4, TMO), 0);
	CU_ASSERT_EQUAL(memcmp(buf, "ping", 4), 0);
	CU_ASSERT_EQUAL(rdx_conn_recv(s.conn, 4, NULL, 0, TMO), 0);
	rdx_conn_close(cl);
	server_stop(&s);
}

struct big_exch {
	struct rdx_conn *c;
	uint32_t type;
	uint8_t *mine, *theirs;
	size_t len;
	int ret;
	pthread_t thread;
};

static void *
do_big_exchange(void *arg)
{
	struct big_exch *e = arg;

	e->ret = rdx_conn_exchange(e->c, e->type, e->mine, e->theirs, e->len, 20000);
	return NULL;
}

static void
test_large_exchange_no_deadlock(void)
{
	const size_t len = 16u << 20;   /* far beyond both socket buffers */
	struct big_exch a, b;
	struct server s;
	struct rdx_conn *cl;
	size_t i;
	int ok = 1;

	pair(&s, &cl);
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.c = s.conn;
	b.c = cl;
	a.type = b.type = 5;
	a.len = b.len = len;
	a.mine = malloc(len);
	a.theirs = malloc(len);
	b.mine = malloc(len);
	b.theirs = malloc(len);
	CU_ASSERT_FATAL(a.mine != NULL && a.theirs != NULL && b.mine != NULL && b.theirs != NULL);
	for (i = 0; i < len; i++) {
		a.mine[i] = (uint8_t)(i * 7u);
		b.mine[i] = (uint8_t)(i * 13u + 1u);
	}
	CU_ASSERT_FATAL(pthread_create(&a.thread, NULL, do_big_exchange, &a) == 0);
	do_big_exchange(&b);
	pthread_join(a.thread, NULL);
	CU_ASSERT_EQUAL(a.ret, 0);
	CU_ASSERT_EQUAL(b.ret, 0);
	if (a.ret != 0 || b.ret != 0)
		printf("  (%s / %s)\n", rdx_conn_strerror(s.conn), rdx_conn_strerror(cl));
	ok = memcmp(a.theirs, b.mine, len) == 0 && memcmp(b.theirs, a.mine, len) == 0;
	CU_ASSERT_TRUE(ok);

	/* Both sides exchange different types: both see it, and resync. */
	a.type = 6;
	b.type = 7;
	a.len = b.len = 64;
	CU_ASSERT_FATAL(pthread_create(&a.thread, NULL, do_big_exchange, &a) == 0);
	do_big_exchange(&b);
	pthread_join(a.thread, NULL);
	CU_ASSERT_EQUAL(a.ret, -EPROTO);
	CU_ASSERT_EQUAL(b.ret, -EPROTO);
	CU_ASSERT_PTR_NOT_NULL(strstr(rdx_conn_strerror(s.conn), "sent message type 7"));
	CU_ASSERT_PTR_NOT_NULL(strstr(rdx_conn_strerror(cl), "sent message type 6"));
	a.type = b.type = 8;
	CU_ASSERT_FATAL(pthread_create(&a.thread, NULL, do_big_exchange, &a) == 0);
	do_big_exchange(&b);
	pthread_join(a.thread, NULL);
	CU_ASSERT_EQUAL(a.ret, 0);
	CU_ASSERT_EQUAL(b.ret, 0);
	CU_ASSERT_EQUAL(memcmp(a.theirs, b.mine, 64), 0);
	free(a.mine);
	free(a.theirs);
	free(b.mine);
	free(b.theirs);
	rdx_conn_close(cl);
	server_stop(&s);
}

static void
test_type_and_length_mismatch(void)
{
	struct test_cfg cfg = { .test_id = 9 }, got;
	struct server s;
	struct rdx_conn *cl;
	uint64_t small = 5;

	pair(&s, &cl);
	/* The peer runs another test: a different message type. */
	CU_ASSERT_EQUAL(rdx_conn_send(cl, 100, &cfg, sizeof(cfg), TMO), 0);
	CU_ASSERT_EQUAL(rdx_conn_recv(s.conn, 200, &got, sizeof(got), TMO), -EPROTO);
	CU_ASSERT_PTR_NOT_NULL(strstr(rdx_conn_strerror(s.conn), "message type 100"));
	CU_ASSERT_PTR_NOT_NULL(strstr(rdx_conn_strerror(s.conn), "expected type 200"));
	/* Right type, wrong size. */
	CU_ASSERT_EQUAL(rdx_conn_send(cl, 200, &small, sizeof(small), TMO), 0);
	CU_ASSERT_EQUAL(rdx_conn_recv(s.conn, 200, &got, sizeof(got), TMO), -EPROTO);
	CU_ASSERT_PTR_NOT_NULL(strstr(rdx_conn_strerror(s.conn), "sent 8 bytes"));
	/* The bad payloads were drained: the stream is still framed. */
	CU_ASSERT_EQUAL(rdx_conn_send(cl, 200, &cfg, sizeof(cfg), TMO), 0);
	memset(&got, 0, sizeof(got));
	CU_ASSERT_EQUAL(rdx_conn_recv(s.conn, 200, &got, sizeof(got), TMO), 0);
	CU_ASSERT_EQUAL(got.test_id, 9);
	/* Misuse. */
	CU_ASSERT_EQUAL(rdx_conn_send(NULL, 1, &cfg, sizeof(cfg), TMO), -EINVAL);
	CU_ASSERT_EQUAL(rdx_conn_send(cl, 1, NULL, 4, TMO), -EINVAL);
	CU_ASSERT_EQUAL(rdx_conn_recv(s.listener, 1, &got, sizeof(got), TMO), -EINVAL);
	rdx_conn_close(cl);
	server_stop(&s);
}

static void
test_recv_timeout_and_peer_death(void)
{
	struct server s;
	struct rdx_conn *cl;
	uint32_t v = 0;
	char big[65536];
	int i, ret = 0;

	pair(&s, &cl);
	CU_ASSERT_EQUAL(rdx_conn_recv(s.conn, 1, &v, sizeof(v), 50), -ETIMEDOUT);
	CU_ASSERT_PTR_NOT_NULL(strstr(rdx_conn_strerror(s.conn), "timed out"));
	CU_ASSERT_EQUAL(rdx_conn_peer_alive(s.conn), 0);
	CU_ASSERT_EQUAL(rdx_conn_peer_alive(cl), 0);
	/* Pending data: still alive, and the peek consumed nothing. */
	v = 77;
	CU_ASSERT_EQUAL(rdx_conn_send(cl, 1, &v, sizeof(v), TMO), 0);
	usleep(10 * 1000);
	CU_ASSERT_EQUAL(rdx_conn_peer_alive(s.conn), 0);
	v = 0;
	CU_ASSERT_EQUAL(rdx_conn_recv(s.conn, 1, &v, sizeof(v), TMO), 0);
	CU_ASSERT_EQUAL(v, 77);

	/* The client dies. */
	rdx_conn_close(cl);
	for (i = 0; i < 100 && rdx_conn_peer_alive(s.conn) == 0; i++)
		usleep(10 * 1000);
	CU_ASSERT_EQUAL(rdx_conn_peer_alive(s.conn), -ECONNRESET);
	CU_ASSERT_PTR_NOT_NULL(strstr(rdx_conn_strerror(s.conn), "has gone"));
	CU_ASSERT_EQUAL(rdx_conn_recv(s.conn, 1, &v, sizeof(v), TMO), -ECONNRESET);
	CU_ASSERT_PTR_NOT_NULL(strstr(rdx_conn_strerror(s.conn), "closed the connection"));
	/* Sending to the dead peer fails, and no SIGPIPE kills us. */
	memset(big, 0, sizeof(big));
	for (i = 0; i < 64 && ret == 0; i++)
		ret = rdx_conn_send(s.conn, 1, big, sizeof(big), TMO);
	CU_ASSERT_EQUAL(ret, -ECONNRESET);
	CU_ASSERT_EQUAL(rdx_conn_peer_alive(s.listener), -EINVAL);
	CU_ASSERT_EQUAL(rdx_conn_peer_alive(NULL), -EINVAL);
	server_stop(&s);
}

/* rdx_conn_recv_ready until it stops saying -EAGAIN (loopback: at once). */
static int
ready_wait(struct rdx_conn *c, uint32_t type, size_t len)
{
	int i, ret = -EAGAIN;

	for (i = 0; i < 100 && ret == -EAGAIN; i++) {
		ret = rdx_conn_recv_ready(c, type, len);
		if (ret == -EAGAIN)
			usleep(10 * 1000);
	}
	return ret;
}

/* Raw bytes from the client's side (a peer that sends a message in parts). */
static void
raw_send(struct rdx_conn *c, const void *buf, size_t len)
{
	CU_ASSERT_EQUAL(send(c->fd, buf, len, MSG_NOSIGNAL), (ssize_t)len);
	usleep(20 * 1000);
}

static void
test_recv_ready(void)
{
	struct test_cfg cfg = { .test_id = 4, .qpn = 0x44 }, got;
	struct rdx_msg_hdr h = { .type = htonl(7), .len = htonl(sizeof(cfg)) };
	struct server s;
	struct rdx_conn *cl;

	pair(&s, &cl);
	/* Nothing, a part of the header, the header and a part of the
	 * payload: -EAGAIN, nothing consumed; then the rest: 0. */
	CU_ASSERT_EQUAL(rdx_conn_recv_ready(s.conn, 7, sizeof(cfg)), -EAGAIN);
	raw_send(cl, &h, 3);
	CU_ASSERT_EQUAL(rdx_conn_recv_ready(s.conn, 7, sizeof(cfg)), -EAGAIN);
	raw_send(cl, (uint8_t *)&h + 3, sizeof(h) - 3);
	raw_send(cl, &cfg, 5);
	CU_ASSERT_EQUAL(rdx_conn_recv_ready(s.conn, 7, sizeof(cfg)), -EAGAIN);
	CU_ASSERT_EQUAL(rdx_conn_recv_ready(s.conn, 7, sizeof(cfg)), -EAGAIN);
	raw_send(cl, (uint8_t *)&cfg + 5, sizeof(cfg) - 5);
	CU_ASSERT_EQUAL(ready_wait(s.conn, 7, sizeof(cfg)), 0);
	CU_ASSERT_EQUAL(rdx_conn_recv_ready(s.conn, 7, sizeof(cfg)), 0);
	/* ... and the receive then takes it without waiting */
	memset(&got, 0, sizeof(got));
	CU_ASSERT_EQUAL(rdx_conn_recv(s.conn, 7, &got, sizeof(got), 0), 0);
	CU_ASSERT_EQUAL(memcmp(&got, &cfg, sizeof(got)), 0);
	CU_ASSERT_EQUAL(rdx_conn_recv_ready(s.conn, 7, sizeof(cfg)), -EAGAIN);
	/* An empty message. */
	CU_ASSERT_EQUAL(rdx_conn_send(cl, 5, NULL, 0, TMO), 0);
	CU_ASSERT_EQUAL(ready_wait(s.conn, 5, 0), 0);
	CU_ASSERT_EQUAL(rdx_conn_recv(s.conn, 5, NULL, 0, 0), 0);

	/* Another type, another length: -EPROTO from the header alone (the
	 * payload still to come), nothing consumed: rdx_conn_recv drains it. */
	h.type = htonl(8);
	raw_send(cl, &h, sizeof(h));
	CU_ASSERT_EQUAL(rdx_conn_recv_ready(s.conn, 7, sizeof(cfg)), -EPROTO);
	CU_ASSERT_PTR_NOT_NULL(strstr(rdx_conn_strerror(s.conn), "message type 8"));
	raw_send(cl, &cfg, sizeof(cfg));
	CU_ASSERT_EQUAL(rdx_conn_recv(s.conn, 7, &got, sizeof(got), TMO), -EPROTO);
	CU_ASSERT_EQUAL(rdx_conn_send(cl, 7, &cfg, 8, TMO), 0);
	CU_ASSERT_EQUAL(ready_wait(s.conn, 7, sizeof(cfg)), -EPROTO);
	CU_ASSERT_PTR_NOT_NULL(strstr(rdx_conn_strerror(s.conn), "sent 8 bytes"));
	CU_ASSERT_EQUAL(rdx_conn_recv(s.conn, 7, &got, sizeof(got), TMO), -EPROTO);
	CU_ASSERT_EQUAL(rdx_conn_send(cl, 7, &cfg, sizeof(cfg), TMO), 0);
	CU_ASSERT_EQUAL(ready_wait(s.conn, 7, sizeof(cfg)), 0);
	CU_ASSERT_EQUAL(rdx_conn_recv(s.conn, 7, &got, sizeof(got), 0), 0);

	/* Misuse. */
	CU_ASSERT_EQUAL(rdx_conn_recv_ready(s.conn, 7, RDX_CONN_READY_MAX + 1), -EINVAL);
	CU_ASSERT_EQUAL(rdx_conn_recv_ready(s.listener, 7, 4), -EINVAL);
	CU_ASSERT_EQUAL(rdx_conn_recv_ready(NULL, 7, 4), -EINVAL);

	/* The peer closes after a part: -ECONNRESET, not -EAGAIN forever. */
	h.type = htonl(7);
	raw_send(cl, &h, sizeof(h));
	raw_send(cl, &cfg, 5);
	CU_ASSERT_EQUAL(rdx_conn_recv_ready(s.conn, 7, sizeof(cfg)), -EAGAIN);
	rdx_conn_close(cl);
	CU_ASSERT_EQUAL(ready_wait(s.conn, 7, sizeof(cfg)), -ECONNRESET);
	CU_ASSERT_PTR_NOT_NULL(strstr(rdx_conn_strerror(s.conn), "got 13 of 32 bytes"));
	server_stop(&s);

	/* ... or before sending anything. */
	pair(&s, &cl);
	rdx_conn_close(cl);
	CU_ASSERT_EQUAL(ready_wait(s.conn, 7, sizeof(cfg)), -ECONNRESET);
	CU_ASSERT_PTR_NOT_NULL(strstr(rdx_conn_strerror(s.conn), "closed the connection"));
	server_stop(&s);
}

static void
test_stop_request_ends_waits(void)
{
	struct server s;
	struct rdx_conn *l, *cl;
	uint32_t v;

	l = rdx_conn_listen("127.0.0.1", 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	rdx_runtime_stop();
	/* Would wait 60 s: the stop request ends it. */
	CU_ASSERT_PTR_NULL(rdx_conn_accept(l, 60000));
	CU_ASSERT_EQUAL(rte_errno, EINTR);
	CU_ASSERT_PTR_NOT_NULL(strstr(rdx_conn_strerror(NULL), "stop requested"));
	rdx_runtime_stop_reset();
	rdx_conn_close(l);

	pair(&s, &cl);
	rdx_runtime_stop();
	CU_ASSERT_EQUAL(rdx_conn_recv(s.conn, 1, &v, sizeof(v), -1), -EINTR);
	rdx_runtime_stop_reset();
	/* Nothing was consumed: the connection still works. */
	v = 3;
	CU_ASSERT_EQUAL(rdx_conn_send(cl, 1, &v, sizeof(v), TMO), 0);
	v = 0;
	CU_ASSERT_EQUAL(rdx_conn_recv(s.conn, 1, &v, sizeof(v), TMO), 0);
	CU_ASSERT_EQUAL(v, 3);
	rdx_conn_close(cl);
	server_stop(&s);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "exchange over loopback", test_exchange },
		{ "type and length mismatch", test_type_and_length_mismatch },
		{ "16 MiB exchange both ways", test_large_exchange_no_deadlock },
		{ "recv timeout and peer death", test_recv_timeout_and_peer_death },
		{ "stop request ends waits", test_stop_request_ends_waits },
		{ "non-blocking: whole message there (recv_ready)", test_recv_ready },
		{ NULL, NULL },
	};

	/* A SIGPIPE would kill the binary: the library must never raise one. */
	signal(SIGPIPE, SIG_DFL);
	return rdx_ut_run("conn_msg", cases, NULL, NULL);
}
