/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Calibration: a plain-socket request/response over TCP loopback, one
 * request outstanding, the same sizes as rdx-perf's echo (a 30-byte request,
 * a 100-byte answer by default). A server thread pinned to one CPU answers,
 * the client pinned to another sends the next request when the answer has
 * arrived (TCP_NODELAY both ways, blocking sockets). Every round trip is
 * timed; printed with every knob:
 *   tcp_pingpong: cpus 0,1 req 30 resp 100 n 20000: rtt median 25.3 us p99 .. rate 0.038 Mreq/s
 * (rate = round trips / wall-clock time of the timed loop).
 * usage: tcp_pingpong [--cpus A,B] [--req B] [--resp B] [-n N] [--warmup N]
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench_common.h"

static const char *prog = "tcp_pingpong";

struct srv {
	int lfd;
	unsigned int cpu;
	size_t req, resp;
	uint64_t n;
};

/* all of len bytes, or false (peer closed, error) */
static bool
xfer(int fd, void *buf, size_t len, bool out)
{
	uint8_t *p = buf;

	while (len > 0) {
		ssize_t r = out ? send(fd, p, len, MSG_NOSIGNAL) : recv(fd, p, len, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		p += r;
		len -= (size_t)r;
	}
	return true;
}

static void
nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static void *
server(void *arg)
{
	struct srv *s = arg;
	uint8_t *buf = calloc(1, s->req > s->resp ? s->req : s->resp);
	uint64_t i;
	int fd, rc;

	rc = bench_pin(s->cpu);
	if (rc != 0)
		fprintf(stderr, "%s: cannot pin the server to cpu %u: %s\n", prog, s->cpu,
			strerror(rc));
	fd = accept(s->lfd, NULL, NULL);
	if (fd < 0 || buf == NULL) {
		fprintf(stderr, "%s: server: accept: %s\n", prog, strerror(errno));
		exit(1);
	}
	nodelay(fd);
	for (i = 0; i < s->n; i++) {
		if (!xfer(fd, buf, s->req, false) || !xfer(fd, buf, s->resp, true))
			break;
	}
	close(fd);
	free(buf);
	return NULL;
}

int
main(int argc, char **argv)
{
	struct srv s = { .cpu = 1, .req = 30, .resp = 100 };
	uint64_t n = 20000, warm = 1000, i, *t, t0, t1, med, p99;
	struct sockaddr_in a;
	socklen_t alen = sizeof(a);
	unsigned int cpu = 0, k;
	uint8_t *buf;
	pthread_t th;
	int fd, rc;

	for (k = 1; k < (unsigned int)argc; k += 2) {
		const char *o = argv[k], *v = k + 1 < (unsigned int)argc ? argv[k + 1] : NULL;

		if (strcmp(o, "--cpus") == 0 && v != NULL) {
			char tmp[64], *comma;

			snprintf(tmp, sizeof(tmp), "%s", v);
			comma = strchr(tmp, ',');
			if (comma == NULL) {
				fprintf(stderr, "%s: --cpus expects A,B, got '%s'\n", prog, v);
				return 2;
			}
			*comma = '\0';
			cpu = (unsigned int)bench_uint(prog, "--cpus", tmp, 0, CPU_SETSIZE - 1);
			s.cpu = (unsigned int)bench_uint(prog, "--cpus", comma + 1, 0,
							 CPU_SETSIZE - 1);
		} else if (strcmp(o, "--req") == 0) {
			s.req = bench_uint(prog, o, v, 1, 1 << 20);
		} else if (strcmp(o, "--resp") == 0) {
			s.resp = bench_uint(prog, o, v, 1, 1 << 20);
		} else if (strcmp(o, "-n") == 0) {
			n = bench_uint(prog, o, v, 1, 100000000);
		} else if (strcmp(o, "--warmup") == 0) {
			warm = bench_uint(prog, o, v, 0, 100000000);
		} else {
			fprintf(stderr, "%s: unknown option or missing value '%s' (usage: %s [--cpus A,B] [--req B] [--resp B] [-n N] [--warmup N])\n",
				prog, o, prog);
			return 2;
		}
	}
	if (cpu == s.cpu) {
		fprintf(stderr, "%s: --cpus needs two different CPUs\n", prog);
		return 2;
	}
	s.n = n + warm;
	t = calloc(n, sizeof(*t));
	buf = calloc(1, s.req > s.resp ? s.req : s.resp);
	s.lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (t == NULL || buf == NULL || s.lfd < 0) {
		fprintf(stderr, "%s: set-up failed: %s\n", prog, strerror(errno));
		return 1;
	}
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(s.lfd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(s.lfd, 1) != 0 ||
	    getsockname(s.lfd, (struct sockaddr *)&a, &alen) != 0) {
		fprintf(stderr, "%s: listen on loopback: %s\n", prog, strerror(errno));
		return 1;
	}
	rc = pthread_create(&th, NULL, server, &s);
	if (rc != 0) {
		fprintf(stderr, "%s: pthread_create: %s\n", prog, strerror(rc));
		return 1;
	}
	rc = bench_pin(cpu);
	if (rc != 0)
		fprintf(stderr, "%s: cannot pin the client to cpu %u: %s\n", prog, cpu, strerror(rc));
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		fprintf(stderr, "%s: connect: %s\n", prog, strerror(errno));
		return 1;
	}
	nodelay(fd);
	for (i = 0; i < warm; i++)
		if (!xfer(fd, buf, s.req, true) || !xfer(fd, buf, s.resp, false)) {
			fprintf(stderr, "%s: the server went away\n", prog);
			return 1;
		}
	t0 = bench_now_ns();
	for (i = 0; i < n; i++) {
		uint64_t a0 = bench_now_ns();

		if (!xfer(fd, buf, s.req, true) || !xfer(fd, buf, s.resp, false)) {
			fprintf(stderr, "%s: the server went away\n", prog);
			return 1;
		}
		t[i] = bench_now_ns() - a0;
	}
	t1 = bench_now_ns();
	close(fd);
	pthread_join(th, NULL);
	close(s.lfd);
	med = bench_median(t, n);
	p99 = t[(n * 99) / 100 < n ? (n * 99) / 100 : n - 1];
	printf("tcp_pingpong: cpus %u,%u req %zu resp %zu n %llu warmup %llu: rtt median %.2f us p99 %.2f us rate %.4f Mreq/s\n",
	       cpu, s.cpu, s.req, s.resp, (unsigned long long)n, (unsigned long long)warm,
	       (double)med / 1000.0, (double)p99 / 1000.0, (double)n * 1000.0 / (double)(t1 - t0));
	free(t);
	free(buf);
	return 0;
}
