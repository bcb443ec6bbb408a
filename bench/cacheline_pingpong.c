/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Calibration: the round trip of a cache line between two cores, the floor
 * under any cross-core (or cross-process) message exchange on this machine.
 * Two threads pinned to two CPUs bounce a counter: the pinger writes an odd
 * value and spins until the ponger has answered with the next even one.
 * --lines 1: both write the same line (a line moves twice per round trip);
 * --lines 2: each writes its own line and spins on the other's (what two
 * processes sharing no written line do: the software device's echo keeps
 * each side's writes on lines of its own where it can).
 * The pinger times batches of --batch round trips; the figure is the median
 * batch divided by the batch size (a preempted batch is an outlier, not an
 * average shift). Printed with every knob:
 *   cacheline_pingpong: cpus 0,1 lines 1 batch 100 batches 2000: rtt median 270.1 ns ...
 * usage: cacheline_pingpong [--cpus A,B] [--lines 1|2] [--batch N] [--batches N]
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

static const char *prog = "cacheline_pingpong";

struct line {
	volatile uint64_t v;
	uint8_t pad[56];
} __attribute__((aligned(64)));

static struct line lines[2];
static uint64_t rounds;
static unsigned int nlines = 1;
static unsigned int cpu_pong;

static inline void
spin_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static void *
pong(void *arg)
{
	/* answers on lines[nlines - 1]: the same line, or its own */
	volatile uint64_t *in = &lines[0].v, *out = &lines[nlines - 1].v;
	uint64_t i;
	int rc;

	(void)arg;
	rc = bench_pin(cpu_pong);
	if (rc != 0) {
		fprintf(stderr, "%s: cannot pin to cpu %u: %s\n", prog, cpu_pong, strerror(rc));
		exit(2);
	}
	for (i = 0; i < rounds; i++) {
		while (*in != 2 * i + 1)
			spin_pause();
		*out = 2 * i + 2;
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	unsigned int cpu_ping = 0, batch = 100, batches = 2000, i, b;
	volatile uint64_t *out = &lines[0].v, *in;
	uint64_t *t, k = 0, med, min;
	pthread_t th;
	char *comma;
	int rc;

	cpu_pong = 1;
	for (i = 1; i < (unsigned int)argc; i += 2) {
		const char *o = argv[i], *v = i + 1 < (unsigned int)argc ? argv[i + 1] : NULL;

		if (strcmp(o, "--cpus") == 0 && v != NULL) {
			comma = strchr(v, ',');
			if (comma == NULL) {
				fprintf(stderr, "%s: --cpus expects A,B, got '%s'\n", prog, v);
				return 2;
			}
			*comma = '\0';
			cpu_ping = (unsigned int)bench_uint(prog, "--cpus", v, 0, CPU_SETSIZE - 1);
			cpu_pong = (unsigned int)bench_uint(prog, "--cpus", comma + 1, 0,
							    CPU_SETSIZE - 1);
		} else if (strcmp(o, "--lines") == 0) {
			nlines = (unsigned int)bench_uint(prog, o, v, 1, 2);
		} else if (strcmp(o, "--batch") == 0) {
			batch = (unsigned int)bench_uint(prog, o, v, 1, 1000000);
		} else if (strcmp(o, "--batches") == 0) {
			batches = (unsigned int)bench_uint(prog, o, v, 1, 10000000);
		} else {
			fprintf(stderr, "%s: unknown option or missing value '%s' (usage: %s [--cpus A,B] [--lines 1|2] [--batch N] [--batches N])\n",
				prog, o, prog);
			return 2;
		}
	}
	if (cpu_ping == cpu_pong) {
		fprintf(stderr, "%s: --cpus needs two different CPUs\n", prog);
		return 2;
	}
	in = &lines[nlines - 1].v;
	rounds = (uint64_t)batch * batches;
	t = calloc(batches, sizeof(*t));
	if (t == NULL) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	rc = bench_pin(cpu_ping);
	if (rc != 0) {
		fprintf(stderr, "%s: cannot pin to cpu %u: %s\n", prog, cpu_ping, strerror(rc));
		return 2;
	}
	rc = pthread_create(&th, NULL, pong, NULL);
	if (rc != 0) {
		fprintf(stderr, "%s: pthread_create: %s\n", prog, strerror(rc));
		return 1;
	}
	for (b = 0; b < batches; b++) {
		uint64_t t0 = bench_now_ns();

		for (i = 0; i < batch; i++, k++) {
			*out = 2 * k + 1;
			while (*in != 2 * k + 2)
				spin_pause();
		}
		t[b] = bench_now_ns() - t0;
	}
	pthread_join(th, NULL);
	med = bench_median(t, batches);
	min = t[0];
	printf("cacheline_pingpong: cpus %u,%u lines %u batch %u batches %u: rtt median %.1f ns min %.1f ns (one-way %.1f ns)\n",
	       cpu_ping, cpu_pong, nlines, batch, batches, (double)med / batch,
	       (double)min / batch, (double)med / batch / 2);
	free(t);
	return 0;
}
