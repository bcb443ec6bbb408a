/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the lib/conn tests (one binary per source file:
 * rdx_conn_sock_ut, rdx_conn_msg_ut): a server accepting in a thread and a
 * connected pair on 127.0.0.1. Include after the .c under test (it needs
 * rdx_conn_priv.h).
 */
#ifndef RDX_CONN_UT_H
#define RDX_CONN_UT_H

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_errno.h>

#include "rdx_ut.h"
#include "rdx_conn.h"

#define RDX_CONN_UT_HELPER static __attribute__((unused))

#define TMO 5000

struct server {
	struct rdx_conn *listener;
	struct rdx_conn *conn;
	int accept_errno;
	char err[RDX_CONN_ERR_LEN];
	pthread_t thread;
};

RDX_CONN_UT_HELPER void *
server_accept(void *arg)
{
	struct server *s = arg;

	s->conn = rdx_conn_accept(s->listener, TMO);
	if (s->conn == NULL) {
		s->accept_errno = rte_errno;
		snprintf(s->err, sizeof(s->err), "%s", rdx_conn_strerror(NULL));
	}
	return NULL;
}

RDX_CONN_UT_HELPER uint16_t
server_start(struct server *s, const char *addr)
{
	memset(s, 0, sizeof(*s));
	s->listener = rdx_conn_listen(addr, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s->listener);
	CU_ASSERT_FATAL(pthread_create(&s->thread, NULL, server_accept, s) == 0);
	return rdx_conn_port(s->listener);
}

RDX_CONN_UT_HELPER void
server_join(struct server *s)
{
	pthread_join(s->thread, NULL);
}

RDX_CONN_UT_HELPER void
server_stop(struct server *s)
{
	rdx_conn_close(s->conn);
	rdx_conn_close(s->listener);
	s->conn = NULL;
	s->listener = NULL;
}

/* A connected pair on 127.0.0.1. */
RDX_CONN_UT_HELPER void
pair(struct server *s, struct rdx_conn **client)
{
	uint16_t port = server_start(s, "127.0.0.1");

	*client = rdx_conn_connect("127.0.0.1", port, TMO);
	server_join(s);
	CU_ASSERT_PTR_NOT_NULL_FATAL(*client);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s->conn);
}

RDX_CONN_UT_HELPER int64_t
elapsed_ms(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (int64_t)(t1.tv_sec - t0->tv_sec) * 1000 + (t1.tv_nsec - t0->tv_nsec) / 1000000;
}

#endif /* RDX_CONN_UT_H */
