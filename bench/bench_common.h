/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the calibration benchmarks (cacheline_pingpong.c, tcp_pingpong.c)
 * share: option parsing with one-line errors (exit 2), pinning, a
 * monotonic clock and the median of a sample array.
 */
#ifndef RDX_BENCH_COMMON_H
#define RDX_BENCH_COMMON_H

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline uint64_t
bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* An unsigned integer option in [lo, hi]; exits 2 with one line otherwise. */
static inline uint64_t
bench_uint(const char *prog, const char *opt, const char *v, uint64_t lo, uint64_t hi)
{
	unsigned long long x;
	char *end;

	errno = 0;
	x = v != NULL ? strtoull(v, &end, 10) : 0;
	if (v == NULL || errno != 0 || end == v || *end != '\0' || v[0] == '-' || x < lo ||
	    x > hi) {
		fprintf(stderr, "%s: %s expects an integer %llu..%llu, got '%s'\n", prog, opt,
			(unsigned long long)lo, (unsigned long long)hi, v != NULL ? v : "");
		exit(2);
	}
	return x;
}

/* Pin the calling thread to cpu; 0 or an errno value. */
static inline int
bench_pin(unsigned int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static int
bench_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Sorts v; returns its median (lower middle). */
static inline uint64_t
bench_median(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), bench_cmp_u64);
	return v[(n - 1) / 2];
}

#endif /* RDX_BENCH_COMMON_H */
