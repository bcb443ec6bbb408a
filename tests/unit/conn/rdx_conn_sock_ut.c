/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/conn/rdx_conn_sock.c on loopback only (127.0.0.1, and ::1 when the
 * host has IPv6): forged hellos on both sides and the wire version test
 * hook, port in use, refused connect, connect and accept timeouts, the
 * accept that does not wait for the hello (accept_start, hello_poll), IPv6,
 * HOST:PORT parsing. The framing side it uses is compiled in
 * (rdx_conn_msg.c; its own tests are rdx_conn_msg_ut.c).
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

#include "../../../lib/conn/rdx_conn_sock.c"
#include "rdx_conn_ut.h"

/* Raw peer: sends a forged hello and reports what it read back. */
struct forger {
	int fd;
	uint16_t port;
	char magic[5];
	uint32_t version;
	const char *vstr;       /* announced rdx version; NULL: "9.9.9" */
	struct rdx_hello got;
	bool got_ok;
	pthread_t thread;
};

static void
forge(struct forger *f)
{
	struct rdx_hello h;
	ssize_t n;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, f->magic, 4);
	h.wire_version = htonl(f->version);
	snprintf(h.version, sizeof(h.version), "%s", f->vstr != NULL ? f->vstr : "9.9.9");
	n = send(f->fd, &h, sizeof(h), MSG_NOSIGNAL);
	CU_ASSERT_EQUAL(n, (ssize_t)sizeof(h));
}

/* Server side of a raw peer: accept one, read its hello, send a forged one. */
static void *
forger_server(void *arg)
{
	struct forger *f = arg;
	int fd = accept(f->fd, NULL, NULL);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = recv(fd, &f->got, sizeof(f->got), MSG_WAITALL);
	f->got_ok = n == (ssize_t)sizeof(f->got);
	close(f->fd);
	f->fd = fd;
	forge(f);
	usleep(100 * 1000);
	close(fd);
	return NULL;
}

static int
raw_listen(uint16_t *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t sl = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, 4) != 0)
		return -1;
	getsockname(fd, (struct sockaddr *)&a, &sl);
	*port = ntohs(a.sin_port);
	return fd;
}

static int
raw_connect(uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0)
		return -1;
	return fd;
}

static void
test_version_mismatch(void)
{
	struct forger f;
	struct rdx_conn *l, *c;
	char expect[128];

	/* A client announcing wire version 99 to our server. */
	l = rdx_conn_listen("127.0.0.1", 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	memset(&f, 0, sizeof(f));
	f.fd = raw_connect(rdx_conn_port(l));
	CU_ASSERT_FATAL(f.fd >= 0);
	memcpy(f.magic, "RDX1", 4);
	f.version = 99;
	forge(&f);
	c = rdx_conn_accept(l, TMO);
	CU_ASSERT_PTR_NULL(c);
	CU_ASSERT_EQUAL(rte_errno, EPROTO);
	snprintf(expect, sizeof(expect), "runs wire version 99 (rdx 9.9.9), we run %u (rdx %s)",
		 RDX_WIRE_VERSION, RDX_VERSION_STR);
	CU_ASSERT_PTR_NOT_NULL(strstr(rdx_conn_strerror(NULL), expect));
	CU_ASSERT_STRING_EQUAL(rdx_conn_strerror(l), rdx_conn_strerror(NULL));
	/* an rdx peer of another version: the listener keeps its version */
	CU_ASSERT_STRING_EQUAL(rdx_conn_peer_version(l), "9.9.9");
	close(f.fd);

	/* Control characters in the peer's version string (found by
	 * tests/fuzz/fuzz_conn) never reach the one-line reason. */
	f.fd = raw_connect(rdx_conn_port(l));
	CU_ASSERT_FATAL(f.fd >= 0);
	f.vstr = "9.9\n\033[2J";
	forge(&f);
	CU_ASSERT_PTR_NULL(rdx_conn_accept(l, TMO));
	CU_ASSERT_EQUAL(rte_errno, EPROTO);
	CU_ASSERT_PTR_NOT_NULL(strstr(rdx_conn_strerror(NULL), "(rdx 9.9??[2J)"));
	CU_ASSERT_PTR_NULL(strchr(rdx_conn_strerror(NULL), '\n'));
	CU_ASSERT_PTR_NULL(strchr(rdx_conn_strerror(NULL), '\033'));
	close(f.fd);
	f.vstr = NULL;

	/* Not an rdx peer at all. */
	f.fd = raw_connect(rdx_conn_port(l));
	CU_ASSERT_FATAL(f.fd >= 0);
	memcpy(f.magic, "HTTP", 4);
	f.version = RDX_WIRE_VERSION;
	forge(&f);
	CU_ASSERT_PTR_NULL(rdx_conn_accept(l, TMO));
	CU_ASSERT_EQUAL(rte_errno, EPROTO);
	CU_ASSERT_PTR_NOT_NULL(strstr(rdx_conn_strerror(NULL), "bad hello magic"));
	/* a stray connection: no peer version (apps keep accepting) */
	CU_ASSERT_STRING_EQUAL(rdx_conn_peer_version(l), "");
	close(f.fd);

	/* A peer that connects and closes: ECONNRESET, no version either. */
	f.fd = raw_connect(rdx_conn_port(l));
	CU_ASSERT_FATAL(f.fd >= 0);
	close(f.fd);
	CU_ASSERT_PTR_NULL(rdx_conn_accept(l, TMO));
	CU_ASSERT_EQUAL(rte_errno, ECONNRESET);
	CU_ASSERT_STRING_EQUAL(rdx_conn_peer_version(l), "");

	/* Control bytes in the peer's version string are not printed raw. */
	f.fd = raw_connect(rdx_conn_port(l));
	CU_ASSERT_FATAL(f.fd >= 0);
	{
		struct rdx_hello h;

		memset(&h, 0, sizeof(h));
		memcpy(h.magic, "RDX1", 4);
		h.wire_version = htonl(77);
		memcpy(h.version, "1\x1b[2J\n\x7f", 7);
		CU_ASSERT_EQUAL(send(f.fd, &h, sizeof(h), MSG_NOSIGNAL), (ssize_t)sizeof(h));
	}
	CU_ASSERT_PTR_NULL(rdx_conn_accept(l, TMO));
	CU_ASSERT_EQUAL(rte_errno, EPROTO);
	CU_ASSERT_STRING_EQUAL(rdx_conn_peer_version(l), "1?[2J??");
	CU_ASSERT_PTR_NOT_NULL(strstr(rdx_conn_strerror(l), "(rdx 1?[2J?" "?)"));
	close(f.fd);
	rdx_conn_close(l);

	/* Our client against a server announcing another wire version: the client sees it too. */
	memset(&f, 0, sizeof(f));
	f.fd = raw_listen(&f.port);
	CU_ASSERT_FATAL(f.fd >= 0);
	memcpy(f.magic, "RDX1", 4);
	f.version = RDX_WIRE_VERSION + 1;
	CU_ASSERT_FATAL(pthread_create(&f.thread, NULL, forger_server, &f) == 0);
	c = rdx_conn_connect("127.0.0.1", f.port, TMO);
	pthread_join(f.thread, NULL);
	CU_ASSERT_PTR_NULL(c);
	CU_ASSERT_EQUAL(rte_errno, EPROTO);
	{
		char want[64];

		snprintf(want, sizeof(want), "runs wire version %u", RDX_WIRE_VERSION + 1);
		CU_ASSERT_PTR_NOT_NULL(strstr(rdx_conn_strerror(NULL), want));
	}
	/* And what our client sent is a well-formed hello. */
	CU_ASSERT_TRUE(f.got_ok);
	CU_ASSERT_EQUAL(memcmp(f.got.magic, "RDX1", 4), 0);
	CU_ASSERT_EQUAL(ntohl(f.got.wire_version), RDX_WIRE_VERSION);
	CU_ASSERT_STRING_EQUAL(f.got.version, RDX_VERSION_STR);
}

static void
test_hook_version_both_sides(void)
{
	struct server s;
	struct rdx_conn *cl;
	uint16_t port;

	/* Our own code announcing another version (the test hook). */
	port = server_start(&s, "127.0.0.1");
	conn_hello_version = RDX_WIRE_VERSION + 1;
	cl = rdx_conn_connect("127.0.0.1", port, TMO);
	server_join(&s);
	conn_hello_version = RDX_WIRE_VERSION;
	/* Both sides announce the bumped version: both refuse. */
	CU_ASSERT_PTR_NULL(cl);
	CU_ASSERT_PTR_NULL(s.conn);
	CU_ASSERT_EQUAL(s.accept_errno, EPROTO);
	CU_ASSERT_PTR_NOT_NULL(strstr(s.err, "wire version"));
	server_stop(&s);
}

static void
test_port_in_use(void)
{
	struct rdx_conn *a, *b;

	a = rdx_conn_listen("127.0.0.1", 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT(rdx_conn_port(a) != 0);
	b = rdx_conn_listen("127.0.0.1", rdx_conn_port(a));
	CU_ASSERT_PTR_NULL(b);
	CU_ASSERT_EQUAL(rte_errno, EADDRINUSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(rdx_conn_strerror(NULL), "already in use"));
	rdx_conn_close(b);
	rdx_conn_close(a);
}

static void
test_connect_refused(void)
{
	struct rdx_conn *l, *c;
	struct timespec t0;
	uint16_t port;

	/* A port that was just free: listen on any, close. */
	l = rdx_conn_listen("127.0.0.1", 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	port = rdx_conn_port(l);
	rdx_conn_close(l);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	c = rdx_conn_connect("127.0.0.1", port, 10000);
	CU_ASSERT_PTR_NULL(c);
	CU_ASSERT_EQUAL(rte_errno, ECONNREFUSED);
	CU_ASSERT_PTR_NOT_NULL(strstr(rdx_conn_strerror(NULL), "refused"));
	/* Refused outright, not after waiting out the timeout. */
	CU_ASSERT(elapsed_ms(&t0) < 10000);
	/* Bad arguments. */
	CU_ASSERT_PTR_NULL(rdx_conn_connect(NULL, 1, 10));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	CU_ASSERT_PTR_NULL(rdx_conn_connect("127.0.0.1", 0, 10));
	CU_ASSERT_PTR_NULL(rdx_conn_accept(NULL, 10));
}

static void
test_connect_timeout(void)
{
	struct rdx_conn *c;
	uint16_t port;
	int lfd, fill[8], i, nfill = 0;

	/*
	 * A listener nobody accepts from, with its accept queue full: Linux
	 * drops further SYNs (tcp_abort_on_overflow 0), so a connect is not
	 * answered, which is what an unreachable or firewalled host looks like.
	 */
	lfd = raw_listen(&port);
	CU_ASSERT_FATAL(lfd >= 0);
	listen(lfd, 0);
	for (i = 0; i < 8; i++) {
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };

		fill[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		connect(fill[i], (struct sockaddr *)&a, sizeof(a));
		nfill++;
	}
	usleep(50 * 1000);
	c = rdx_conn_connect("127.0.0.1", port, 300);
	CU_ASSERT_PTR_NULL(c);
	/* Either the SYN was dropped (no answer) or the hello never came. */
	CU_ASSERT_EQUAL(rte_errno, ETIMEDOUT);
	CU_ASSERT(strstr(rdx_conn_strerror(NULL), "within 300 ms") != NULL ||
		  strstr(rdx_conn_strerror(NULL), "timed out") != NULL);
	printf("  (%s)\n", rdx_conn_strerror(NULL));
	for (i = 0; i < nfill; i++)
		close(fill[i]);
	close(lfd);
	rdx_conn_close(c);
}

static void
test_accept_timeout(void)
{
	struct rdx_conn *l;
	struct timespec t0;
	int64_t ms;

	l = rdx_conn_listen("127.0.0.1", 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CU_ASSERT_PTR_NULL(rdx_conn_accept(l, 200));
	ms = elapsed_ms(&t0);
	CU_ASSERT_EQUAL(rte_errno, ETIMEDOUT);
	CU_ASSERT_PTR_NOT_NULL(strstr(rdx_conn_strerror(NULL), "within 200 ms"));
	/* Waited for the timeout (ms granularity), and returned. */
	CU_ASSERT(ms >= 199);
	/* A zero timeout polls once. */
	CU_ASSERT_PTR_NULL(rdx_conn_accept(l, 0));
	CU_ASSERT_EQUAL(rte_errno, ETIMEDOUT);
	rdx_conn_close(l);
}

struct connector {
	uint16_t port;
	struct rdx_conn *c;
};

static void *
connector_run(void *arg)
{
	struct connector *k = arg;

	k->c = rdx_conn_connect("127.0.0.1", k->port, TMO);
	return NULL;
}

/* rdx_conn_accept_start until a peer is taken (loopback: at once). */
static struct rdx_conn *
accept_started(struct rdx_conn *l)
{
	struct rdx_conn *c = NULL;

	for (int i = 0; i < 100 && c == NULL; i++) {
		c = rdx_conn_accept_start(l);
		if (c == NULL) {
			CU_ASSERT_EQUAL(rte_errno, EAGAIN);
			usleep(10 * 1000);
		}
	}
	CU_ASSERT_PTR_NOT_NULL(c);
	return c;
}

/* A raw peer connected (its socket in *fd) and taken by accept_start. */
static struct rdx_conn *
raw_peer_taken(struct rdx_conn *l, int *fd)
{
	struct rdx_conn *c;

	*fd = raw_connect(rdx_conn_port(l));
	CU_ASSERT_FATAL(*fd >= 0);
	c = accept_started(l);
	CU_ASSERT_FATAL(c != NULL);
	return c;
}

/* rdx_conn_hello_poll until it stops saying -EAGAIN. */
static int
hello_wait(struct rdx_conn *c)
{
	int i, ret = -EAGAIN;

	for (i = 0; i < 100 && ret == -EAGAIN; i++) {
		ret = rdx_conn_hello_poll(c);
		if (ret == -EAGAIN)
			usleep(10 * 1000);
	}
	return ret;
}

static void
test_accept_start(void)
{
	struct rdx_hello h, ours;
	struct rdx_conn *l, *c;
	struct timespec t0;
	uint32_t v = 0;
	int fd;

	l = rdx_conn_listen("127.0.0.1", 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	/* No peer: at once, EAGAIN. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CU_ASSERT_PTR_NULL(rdx_conn_accept_start(l));
	CU_ASSERT_EQUAL(rte_errno, EAGAIN);
	CU_ASSERT(elapsed_ms(&t0) < 50);
	CU_ASSERT_PTR_NULL(rdx_conn_accept_start(NULL));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	CU_ASSERT_EQUAL(rdx_conn_hello_poll(NULL), -EINVAL);
	CU_ASSERT_EQUAL(rdx_conn_hello_poll(l), -EINVAL);

	/* A peer that sends its hello in two parts: our hello is sent at
	 * once, theirs is -EAGAIN until it has all come, then checked. */
	c = raw_peer_taken(l, &fd);
	CU_ASSERT_EQUAL(recv(fd, &ours, sizeof(ours), MSG_WAITALL), (ssize_t)sizeof(ours));
	CU_ASSERT_EQUAL(memcmp(ours.magic, "RDX1", 4), 0);
	CU_ASSERT_EQUAL(ntohl(ours.wire_version), RDX_WIRE_VERSION);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CU_ASSERT_EQUAL(rdx_conn_hello_poll(c), -EAGAIN);
	CU_ASSERT(elapsed_ms(&t0) < 50);
	/* no message I/O before the hello is checked */
	CU_ASSERT_EQUAL(rdx_conn_recv(c, 1, &v, sizeof(v), 0), -EINVAL);
	CU_ASSERT_EQUAL(rdx_conn_recv_ready(c, 1, sizeof(v)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(rdx_conn_strerror(c), "rdx_conn_hello_poll"));
	hello_fill(&h, RDX_WIRE_VERSION);
	snprintf(h.version, sizeof(h.version), "9.9.9");
	CU_ASSERT_EQUAL(send(fd, &h, 10, MSG_NOSIGNAL), 10);
	usleep(20 * 1000);
	CU_ASSERT_EQUAL(rdx_conn_hello_poll(c), -EAGAIN);
	CU_ASSERT_EQUAL(send(fd, (uint8_t *)&h + 10, sizeof(h) - 10, MSG_NOSIGNAL),
			(ssize_t)(sizeof(h) - 10));
	CU_ASSERT_EQUAL(hello_wait(c), 0);
	CU_ASSERT_EQUAL(rdx_conn_hello_poll(c), 0);
	CU_ASSERT_STRING_EQUAL(rdx_conn_peer_version(c), "9.9.9");
	/* then the connection is as rdx_conn_accept's */
	{
		struct rdx_msg_hdr mh = { .type = htonl(1), .len = htonl(sizeof(v)) };
		uint32_t nv = 42;

		CU_ASSERT_EQUAL(send(fd, &mh, sizeof(mh), MSG_NOSIGNAL), (ssize_t)sizeof(mh));
		CU_ASSERT_EQUAL(send(fd, &nv, sizeof(nv), MSG_NOSIGNAL), (ssize_t)sizeof(nv));
	}
	CU_ASSERT_EQUAL(rdx_conn_recv(c, 1, &v, sizeof(v), TMO), 0);
	CU_ASSERT_EQUAL(v, 42);
	rdx_conn_close(c);
	close(fd);

	/* A stray peer: refused on its first bytes, without the rest. */
	c = raw_peer_taken(l, &fd);
	CU_ASSERT_EQUAL(send(fd, "GET", 3, MSG_NOSIGNAL), 3);
	CU_ASSERT_EQUAL(hello_wait(c), -EPROTO);
	CU_ASSERT_PTR_NOT_NULL(strstr(rdx_conn_strerror(c), "bad hello magic"));
	CU_ASSERT_STRING_EQUAL(rdx_conn_peer_version(c), "");
	rdx_conn_close(c);
	close(fd);

	/* An rdx peer of another wire version: -EPROTO, its version kept. */
	c = raw_peer_taken(l, &fd);
	h.wire_version = htonl(99);
	CU_ASSERT_EQUAL(send(fd, &h, sizeof(h), MSG_NOSIGNAL), (ssize_t)sizeof(h));
	CU_ASSERT_EQUAL(hello_wait(c), -EPROTO);
	CU_ASSERT_PTR_NOT_NULL(strstr(rdx_conn_strerror(c), "runs wire version 99"));
	CU_ASSERT_STRING_EQUAL(rdx_conn_peer_version(c), "9.9.9");
	rdx_conn_close(c);
	close(fd);

	/* A peer that closes after a part of its hello: -ECONNRESET. */
	c = raw_peer_taken(l, &fd);
	CU_ASSERT_EQUAL(send(fd, &h, 6, MSG_NOSIGNAL), 6);
	close(fd);
	CU_ASSERT_EQUAL(hello_wait(c), -ECONNRESET);
	CU_ASSERT_PTR_NOT_NULL(strstr(rdx_conn_strerror(c), "got 6 of 24 bytes"));
	rdx_conn_close(c);

	/* Our own client (in a thread: it waits for our hello). */
	{
		struct connector k = { .port = rdx_conn_port(l) };
		pthread_t th;

		CU_ASSERT_FATAL(pthread_create(&th, NULL, connector_run, &k) == 0);
		c = accept_started(l);
		CU_ASSERT_EQUAL(hello_wait(c), 0);
		pthread_join(th, NULL);
		CU_ASSERT_PTR_NOT_NULL_FATAL(k.c);
		CU_ASSERT_STRING_EQUAL(rdx_conn_peer_version(c), RDX_VERSION_STR);
		v = 7;
		CU_ASSERT_EQUAL(rdx_conn_send(k.c, 2, &v, sizeof(v), TMO), 0);
		v = 0;
		CU_ASSERT_EQUAL(rdx_conn_recv(c, 2, &v, sizeof(v), TMO), 0);
		CU_ASSERT_EQUAL(v, 7);
		rdx_conn_close(k.c);
		rdx_conn_close(c);
	}
	rdx_conn_close(l);
}

static void
test_ipv6_loopback(void)
{
	struct server s;
	struct rdx_conn *l, *cl;
	uint32_t v = 5;

	l = rdx_conn_listen("::1", 0);
	if (l == NULL) {
		printf("  (no IPv6 loopback here: %s; skipped)\n", rdx_conn_strerror(NULL));
		CU_PASS("no ::1");
		return;
	}
	rdx_conn_close(l);
	memset(&s, 0, sizeof(s));
	s.listener = rdx_conn_listen("::1", 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s.listener);
	CU_ASSERT_FATAL(pthread_create(&s.thread, NULL, server_accept, &s) == 0);
	cl = rdx_conn_connect("::1", rdx_conn_port(s.listener), TMO);
	server_join(&s);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s.conn);
	CU_ASSERT_PTR_NOT_NULL(strstr(rdx_conn_peer_name(s.conn), "[::1]:"));
	CU_ASSERT_EQUAL(rdx_conn_send(cl, 2, &v, sizeof(v), TMO), 0);
	v = 0;
	CU_ASSERT_EQUAL(rdx_conn_recv(s.conn, 2, &v, sizeof(v), TMO), 0);
	CU_ASSERT_EQUAL(v, 5);
	rdx_conn_close(cl);
	server_stop(&s);
}

static void
test_parse_hostport(void)
{
	char host[64];
	uint16_t port = 0;

	CU_ASSERT_EQUAL(rdx_conn_parse_hostport("127.0.0.1:18515", host, sizeof(host), &port), 0);
	CU_ASSERT_STRING_EQUAL(host, "127.0.0.1");
	CU_ASSERT_EQUAL(port, 18515);
	CU_ASSERT_EQUAL(rdx_conn_parse_hostport("server-a:1", host, sizeof(host), &port), 0);
	CU_ASSERT_STRING_EQUAL(host, "server-a");
	CU_ASSERT_EQUAL(port, 1);
	CU_ASSERT_EQUAL(rdx_conn_parse_hostport("[::1]:65535", host, sizeof(host), &port), 0);
	CU_ASSERT_STRING_EQUAL(host, "::1");
	CU_ASSERT_EQUAL(port, 65535);
	const char *bad[] = { "host", "host:", ":80", "host:0", "host:65536", "host:8x",
			      "::1:80", "[::1]80", "[::1]", "[]:80", "host:-1", "h:+1", "" };
	for (size_t i = 0; i < RTE_DIM(bad); i++)
		CU_ASSERT_EQUAL(rdx_conn_parse_hostport(bad[i], host, sizeof(host), &port), -EINVAL);
	CU_ASSERT_EQUAL(rdx_conn_parse_hostport("averylonghostname:1", host, 8, &port), -EINVAL);
	CU_ASSERT_EQUAL(rdx_conn_parse_hostport(NULL, host, sizeof(host), &port), -EINVAL);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "forged hellos", test_version_mismatch },
		{ "version bump seen on both sides", test_hook_version_both_sides },
		{ "port in use", test_port_in_use },
		{ "connect to a closed port", test_connect_refused },
		{ "connect timeout", test_connect_timeout },
		{ "accept timeout", test_accept_timeout },
		{ "accept without waiting for the hello", test_accept_start },
		{ "IPv6 loopback", test_ipv6_loopback },
		{ "HOST:PORT parsing", test_parse_hostport },
		{ NULL, NULL },
	};

	/* A SIGPIPE would kill the binary: the library must never raise one. */
	signal(SIGPIPE, SIG_DFL);
	return rdx_ut_run("conn_sock", cases, NULL, NULL);
}
