/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Figures, not assertions (meson test --benchmark): connect + hello time and
 * the round trip of one 64-byte rdx_conn_exchange on 127.0.0.1, two threads.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>

#include "rdx_conn.h"

#define ROUNDS 2000
#define TMO 5000

static struct rdx_conn *listener, *server;

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void *
serve(void *arg)
{
	uint8_t mine[64] = { 1 }, theirs[64];
	unsigned int i;

	(void)arg;
	server = rdx_conn_accept(listener, TMO);
	if (server == NULL)
		return NULL;
	for (i = 0; i < ROUNDS; i++)
		if (rdx_conn_exchange(server, 1, mine, theirs, sizeof(mine), TMO) < 0)
			break;
	return NULL;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(void)
{
	static double rtt[ROUNDS];
	uint8_t mine[64] = { 2 }, theirs[64];
	struct rdx_conn *c;
	pthread_t t;
	double t0, t_conn;
	unsigned int i;

	listener = rdx_conn_listen("127.0.0.1", 0);
	if (listener == NULL) {
		fprintf(stderr, "%s\n", rdx_conn_strerror(NULL));
		return 1;
	}
	pthread_create(&t, NULL, serve, NULL);
	t0 = now_us();
	c = rdx_conn_connect("127.0.0.1", rdx_conn_port(listener), TMO);
	t_conn = now_us() - t0;
	if (c == NULL) {
		fprintf(stderr, "%s\n", rdx_conn_strerror(NULL));
		return 1;
	}
	for (i = 0; i < ROUNDS; i++) {
		t0 = now_us();
		if (rdx_conn_exchange(c, 1, mine, theirs, sizeof(mine), TMO) < 0) {
			fprintf(stderr, "%s\n", rdx_conn_strerror(c));
			return 1;
		}
		rtt[i] = now_us() - t0;
	}
	pthread_join(t, NULL);
	qsort(rtt, ROUNDS, sizeof(rtt[0]), cmp_double);
	printf("connect + hello: %.0f us; 64 B exchange round trip on 127.0.0.1: "
	       "median %.1f us, p99 %.1f us, max %.1f us (%d rounds)\n",
	       t_conn, rtt[ROUNDS / 2], rtt[ROUNDS * 99 / 100], rtt[ROUNDS - 1], ROUNDS);
	rdx_conn_close(c);
	rdx_conn_close(server);
	rdx_conn_close(listener);
	return 0;
}
