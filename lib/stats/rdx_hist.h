/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * A log-linear histogram of latencies in TSC cycles (HdrHistogram-like):
 * O(1) record with no allocation, mergeable across lcores, resettable after
 * warm-up. Any percentile is within 1% of the exact order statistic for
 * values from 10 ns to 10 s; min, max, mean and stdev are exact (kept from
 * the raw values, in double precision).
 */
#ifndef RDX_HIST_H
#define RDX_HIST_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 2^RDX_HIST_SUB_BITS linear sub-buckets per power of two. */
#define RDX_HIST_SUB_BITS 7
#define RDX_HIST_SUB_COUNT (1u << RDX_HIST_SUB_BITS)
#define RDX_HIST_MAX_BITS 40        /* values up to 2^40 cycles (~400 s at 2.6 GHz) */
#define RDX_HIST_BUCKETS ((RDX_HIST_MAX_BITS - RDX_HIST_SUB_BITS + 1) * RDX_HIST_SUB_COUNT)

struct rdx_hist {
	uint64_t count;
	uint64_t min;
	uint64_t max;
	double sum;
	double sum_sq;        /* for stdev; see rdx_hist.c for the method */
	uint64_t overflow;    /* values above the top bucket (counted at max) */
	uint64_t buckets[RDX_HIST_BUCKETS];
};

/** Percentiles and moments, converted to nanoseconds. */
struct rdx_hist_summary {
	uint64_t count;
	double min, p50, p90, p99, p999, p9999, max;
	double mean, stdev;
};

void rdx_hist_init(struct rdx_hist *h);
void rdx_hist_reset(struct rdx_hist *h);
/** Record one value (cycles). Inline, O(1), no allocation. */
void rdx_hist_record(struct rdx_hist *h, uint64_t cycles);
/** dst += src. */
void rdx_hist_merge(struct rdx_hist *dst, const struct rdx_hist *src);
/** The value (cycles) at percentile p in [0, 100]. */
double rdx_hist_percentile(const struct rdx_hist *h, double p);
double rdx_hist_mean(const struct rdx_hist *h);
double rdx_hist_stdev(const struct rdx_hist *h);
/** Summary in ns given the TSC frequency. */
void rdx_hist_summarize(const struct rdx_hist *h, uint64_t tsc_hz,
			struct rdx_hist_summary *s);

#ifdef __cplusplus
}
#endif
#endif /* RDX_HIST_H */
