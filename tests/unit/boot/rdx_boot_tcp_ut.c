/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/boot/rdx_boot_tcp.c on 127.0.0.1, the server in a thread: connect,
 * exchange, a run (begin, end with the client's wait, the answer), the
 * goodbye; the server dies during a run (-ECONNRESET); a server that does
 * not answer (-ETIMEDOUT); nobody listening (-ECONNREFUSED within the
 * timeout); no client (-ETIMEDOUT, its line); a stray connection ignored;
 * a bad peer address and a port in use refused at open.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rdx_ut.h"

#include "../../../lib/boot/rdx_boot_tcp.c"

#define T_CONF 0x10u
#define T_RUN  0x11u
#define T_READY 0x12u
#define T_END  0x13u
#define T_ACK  0x14u

enum srv_mode { SRV_GOOD, SRV_DIE_IN_RUN, SRV_MUTE_IN_RUN };

struct srv {
	struct rdx_boot *b;
	enum srv_mode mode;
	int rc;                  /* the first failure of the server's side */
	uint32_t got_conf;
	uint32_t got_bye;
	pthread_t thread;
};

static void *
srv_main(void *arg)
{
	struct srv *s = arg;
	struct rdx_conn *c;
	uint32_t mine = 0x5e, both[2] = {0, 0}, run = 0;
	int32_t ack = 0;
	int rc;

	rc = rdx_boot_connect(s->b);
	if (rc == 0)
		rc = rdx_boot_exchange(s->b, T_CONF, &mine, both, sizeof(mine));
	s->got_conf = both[1];
	c = rdx_boot_conn(s->b);
	if (rc == 0)
		rc = rdx_conn_recv(c, T_RUN, &run, sizeof(run), 2000);
	if (rc == 0)
		rc = rdx_conn_send(c, T_READY, &run, sizeof(run), 2000);
	if (rc == 0 && s->mode == SRV_DIE_IN_RUN) {
		rdx_boot_close(s->b);
		s->b = NULL;
		s->rc = 0;
		return NULL;
	}
	if (rc == 0)
		rc = rdx_conn_recv(c, T_END, NULL, 0, 2000);
	if (rc == 0 && s->mode == SRV_MUTE_IN_RUN) {
		usleep(600 * 1000);
		s->rc = 0;
		return NULL;
	}
	ack = -EIO;
	if (rc == 0)
		rc = rdx_conn_send(c, T_ACK, &ack, sizeof(ack), 2000);
	if (rc == 0)
		rc = rdx_conn_recv(c, T_RUN, &s->got_bye, sizeof(s->got_bye), 2000);
	s->rc = rc;
	return NULL;
}

static uint16_t
srv_start(struct srv *s, enum srv_mode mode)
{
	const struct rdx_boot_conf conf = { .name = "srv", .timeout_ms = 3000,
					    .timeout_given = true };

	memset(s, 0, sizeof(*s));
	s->mode = mode;
	s->rc = -1;
	s->b = rdx_boot_open("tcp", &conf);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s->b);
	CU_ASSERT_EQUAL(rdx_boot_rank(s->b), 0);
	CU_ASSERT_EQUAL(rdx_boot_size(s->b), 2);
	CU_ASSERT_NOT_EQUAL(rdx_boot_port(s->b), 0);
	CU_ASSERT_PTR_NULL(rdx_boot_conn(s->b));
	CU_ASSERT_FATAL(pthread_create(&s->thread, NULL, srv_main, s) == 0);
	return rdx_boot_port(s->b);
}

static void
srv_join(struct srv *s)
{
	pthread_join(s->thread, NULL);
	rdx_boot_close(s->b);
}

static struct rdx_boot *
client(uint16_t port, int timeout_ms)
{
	char peer[32];
	struct rdx_boot_conf conf = { .name = "cli", .peer = peer, .timeout_ms = timeout_ms };

	snprintf(peer, sizeof(peer), "127.0.0.1:%u", port);
	return rdx_boot_open("tcp", &conf);
}

static int waits;

static int
client_wait(void *arg)
{
	waits += *(int *)arg;
	return 0;
}

static void
test_run(void)
{
	struct srv s;
	uint16_t port = srv_start(&s, SRV_GOOD);
	struct rdx_boot *b = client(port, 3000);
	uint32_t mine = 0xc1, both[2] = {0, 0}, run = 7, ready = 0, bye = 1;
	int32_t ack = 0;
	int one = 1;

	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(rdx_boot_rank(b), 1);
	CU_ASSERT_EQUAL(rdx_boot_connect(b), 0);
	CU_ASSERT_PTR_NOT_NULL(rdx_boot_conn(b));
	CU_ASSERT_EQUAL(rdx_boot_exchange(b, T_CONF, &mine, both, sizeof(mine)), 0);
	CU_ASSERT_EQUAL(both[0], 0x5e);     /* rank 0's, the server's */
	CU_ASSERT_EQUAL(both[1], 0xc1);
	CU_ASSERT_EQUAL(rdx_boot_run_begin(b, T_RUN, &run, T_READY, &ready, sizeof(run)), 0);
	CU_ASSERT_EQUAL(ready, 7);
	CU_ASSERT_EQUAL(rdx_boot_run_end(b, T_END, T_ACK, &ack, sizeof(ack), client_wait, &one),
			0);
	CU_ASSERT_EQUAL(waits, 1);
	CU_ASSERT_EQUAL(ack, -EIO);
	CU_ASSERT_EQUAL(rdx_boot_ack_status(b, ack), -EIO);
	CU_ASSERT_EQUAL(rdx_boot_bye(b, T_RUN, &bye, sizeof(bye)), 0);
	srv_join(&s);
	CU_ASSERT_EQUAL(s.rc, 0);
	CU_ASSERT_EQUAL(s.got_conf, 0xc1);
	CU_ASSERT_EQUAL(s.got_bye, 1);
	rdx_boot_close(b);
}

/*
 * The server fails in a run, after its answer to the begin: it dies
 * (-ECONNRESET at once) or goes mute (-ETIMEDOUT once the client's
 * timeout, shorter than the server's silence, runs out, with a reason).
 */
static void
test_peer_fails(void)
{
	static const struct {
		enum srv_mode mode;
		int timeout_ms;
		int want;
	} cases[] = {
		{ SRV_DIE_IN_RUN, 3000, -ECONNRESET },
		{ SRV_MUTE_IN_RUN, 300, -ETIMEDOUT },
	};
	unsigned int i;

	for (i = 0; i < RTE_DIM(cases); i++) {
		struct srv s;
		uint16_t port = srv_start(&s, cases[i].mode);
		struct rdx_boot *b = client(port, cases[i].timeout_ms);
		uint32_t mine = 1, both[2], run = 1, ready = 0;
		int32_t ack = 0;

		CU_ASSERT_PTR_NOT_NULL_FATAL(b);
		CU_ASSERT_EQUAL(rdx_boot_connect(b), 0);
		CU_ASSERT_EQUAL(rdx_boot_exchange(b, T_CONF, &mine, both, sizeof(mine)), 0);
		CU_ASSERT_EQUAL(rdx_boot_run_begin(b, T_RUN, &run, T_READY, &ready, sizeof(run)),
				0);
		/* a dead server is gone before the end; a mute one is still there */
		if (cases[i].mode == SRV_DIE_IN_RUN)
			srv_join(&s);
		CU_ASSERT_EQUAL(rdx_boot_run_end(b, T_END, T_ACK, &ack, sizeof(ack), NULL, NULL),
				cases[i].want);
		CU_ASSERT_NOT_EQUAL(rdx_boot_strerror(b)[0], '\0');
		if (cases[i].mode != SRV_DIE_IN_RUN)
			srv_join(&s);
		rdx_boot_close(b);
	}
}

/* a port nobody listens on: retried until the timeout, then refused */
static void
test_refused(void)
{
	struct rdx_boot *l = rdx_boot_open("tcp", NULL);
	uint16_t port;
	struct rdx_boot *b;

	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	port = rdx_boot_port(l);
	rdx_boot_close(l);
	b = client(port, 300);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(rdx_boot_connect(b), -ECONNREFUSED);
	rdx_boot_close(b);
}

static void
test_no_client(void)
{
	const struct rdx_boot_conf conf = { .name = "srv", .timeout_ms = 200,
					    .timeout_given = true };
	struct rdx_boot *b = rdx_boot_open("tcp", &conf);
	char *text = NULL, want[96];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(rte_openlog_stream(f), 0);
	CU_ASSERT_EQUAL(rdx_boot_connect(b), -ETIMEDOUT);
	rte_openlog_stream(NULL);
	fclose(f);
	snprintf(want, sizeof(want), "srv: no client within 0.2 s on port 0\n");
	CU_ASSERT_STRING_EQUAL(text, want);
	free(text);
	rdx_boot_close(b);
}

/* a connection that closes at once: one line, the wait goes on */
static void
test_stray(void)
{
	struct srv s;
	uint16_t port = srv_start(&s, SRV_GOOD);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	uint32_t mine = 2, both[2], run = 3, ready = 0, bye = 1;
	int32_t ack = 0;
	struct rdx_boot *b;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	CU_ASSERT_EQUAL(send(fd, "GET / HTTP/1.0\r\n\r\n", 18, MSG_NOSIGNAL), 18);
	close(fd);
	b = client(port, 3000);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(rdx_boot_connect(b), 0);
	CU_ASSERT_EQUAL(rdx_boot_exchange(b, T_CONF, &mine, both, sizeof(mine)), 0);
	CU_ASSERT_EQUAL(rdx_boot_run_begin(b, T_RUN, &run, T_READY, &ready, sizeof(run)), 0);
	CU_ASSERT_EQUAL(rdx_boot_run_end(b, T_END, T_ACK, &ack, sizeof(ack), NULL, NULL), 0);
	CU_ASSERT_EQUAL(rdx_boot_bye(b, T_RUN, &bye, sizeof(bye)), 0);
	srv_join(&s);
	CU_ASSERT_EQUAL(s.rc, 0);
	rdx_boot_close(b);
}

static void
test_open_refusals(void)
{
	struct rdx_boot *l = rdx_boot_open("tcp", NULL), *b;
	struct rdx_boot_conf conf = { .peer = "no-port-here" };

	rte_errno = 0;
	CU_ASSERT_PTR_NULL(rdx_boot_open("tcp", &conf));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	conf.peer = NULL;
	conf.port = rdx_boot_port(l);
	rte_errno = 0;
	b = rdx_boot_open("tcp", &conf);
	CU_ASSERT_PTR_NULL(b);
	CU_ASSERT_EQUAL(rte_errno, EADDRINUSE);
	rdx_boot_close(b);
	rdx_boot_close(l);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{"connect, exchange, run, bye", test_run},
		{"server dies or goes mute in a run", test_peer_fails},
		{"nobody listening", test_refused},
		{"no client", test_no_client},
		{"stray connection", test_stray},
		{"open refusals", test_open_refusals},
		{NULL, NULL},
	};

	return rdx_ut_run("rdx_boot_tcp", cases, NULL, NULL);
}
