/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * A log-linear histogram of latencies in TSC cycles (HdrHistogram-like):
 * O(1) record with no allocation, mergeable across lcores, resettable after
 * warm-up. Any percentile is within 1% of the exact order statistic for
 * values from 10 ns to 10 s; min, max, mean and stdev are exact (kept from
 * the raw values, in double precision).
 *
 * Layout: values below 2 * RDX_HIST_SUB_COUNT (256 cycles) have a bucket
 * each (exact). Above, each power of two [2^k, 2^(k+1)) is split into
 * RDX_HIST_SUB_COUNT linear sub-buckets of width 2^(k - RDX_HIST_SUB_BITS),
 * so a bucket is at most 1/128 of its lower bound wide; a percentile is
 * reported as the bucket's midpoint (clamped to [min, max]), hence within
 * 1/256 (0.4%) of the true order statistic.
 *
 * Percentile definition (nearest rank): for n values sorted ascending
 * x[1] <= ... <= x[n], percentile p in [0, 100] is x[r] with
 * r = max(1, ceil(p / 100 * n)). p = 0 gives min, p = 100 gives max.
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
	/*
	 * Moments of the shifted data (x - shift): sum = sum(x - shift),
	 * sum_sq = sum((x - shift)^2). Shifting by a value near the mean
	 * avoids the cancellation of the textbook sum-of-squares formula and
	 * needs no division per record (Welford does). shift is the first
	 * value recorded, then re-based onto the running mean each time the
	 * count reaches a power of two (rdx_hist_rebase: log2(n) times in
	 * all), so a first value far from the rest (a stall right after the
	 * warm-up) does not stay the reference; rdx_hist_merge re-bases the
	 * smaller side onto the larger one's shift.
	 */
	double sum;
	double sum_sq;        /* for stdev; see rdx_hist.c for the method */
	uint64_t overflow;    /* values above the top bucket (counted at max) */
	uint64_t shift;       /* the first value recorded (0 while empty) */
	uint64_t buckets[RDX_HIST_BUCKETS];
};

/** Percentiles and moments, converted to nanoseconds. */
struct rdx_hist_summary {
	uint64_t count;
	double min, p50, p90, p99, p999, p9999, max;
	double mean, stdev;
};

void rdx_hist_init(struct rdx_hist *h);
/** Forget everything recorded (e.g. after warm-up). */
void rdx_hist_reset(struct rdx_hist *h);

/** Bucket index of a value below 2^RDX_HIST_MAX_BITS. */
static inline unsigned int
rdx_hist_bucket_index(uint64_t v)
{
	unsigned int k, shift;

	if (v < 2 * RDX_HIST_SUB_COUNT)
		return (unsigned int)v;
	k = 63u - (unsigned int)__builtin_clzll(v);   /* 2^k <= v < 2^(k+1), k > SUB_BITS */
	shift = k - RDX_HIST_SUB_BITS;
	/* (v >> shift) is in [SUB_COUNT, 2 * SUB_COUNT): the sub-bucket plus SUB_COUNT. */
	return shift * RDX_HIST_SUB_COUNT + (unsigned int)(v >> shift);
}

/**
 * Move shift onto the mean of what is recorded (count != 0), re-basing the
 * moments; out of line, called log2(count) times (rdx_hist_record's rule).
 */
void rdx_hist_rebase(struct rdx_hist *h);

/** Record one value (cycles). Inline, O(1), no allocation, no division. */
static inline void
rdx_hist_record(struct rdx_hist *h, uint64_t cycles)
{
	double d;

	/* count 0 (the first value) or a power of two (a re-base): one test */
	if (__builtin_expect((h->count & (h->count - 1)) == 0, 0)) {
		if (h->count == 0) {
			h->shift = cycles;
			h->min = cycles;
			h->max = cycles;
		} else {
			rdx_hist_rebase(h);
		}
	}
	if (cycles < h->min)
		h->min = cycles;
	if (cycles > h->max)
		h->max = cycles;
	h->count++;
	d = cycles >= h->shift ? (double)(cycles - h->shift) : -(double)(h->shift - cycles);
	h->sum += d;
	h->sum_sq += d * d;
	if (cycles >> RDX_HIST_MAX_BITS)
		h->overflow++;
	else
		h->buckets[rdx_hist_bucket_index(cycles)]++;
}

/**
 * Record the value `cycles` n times: the same histogram as n calls of
 * rdx_hist_record (count, min, max, buckets, overflow; the moments to the
 * rounding of n * d against d added n times). For ops that share one
 * latency (a post list retired by one completion): O(1) for all of them.
 */
static inline void
rdx_hist_record_n(struct rdx_hist *h, uint64_t cycles, uint64_t n)
{
	double d, w;

	if (n == 0)
		return;
	if (h->count == 0) {
		h->shift = cycles;
		h->min = cycles;
		h->max = cycles;
	} else {
		/* the count crosses a power of two (its top bit moves up): re-base
		 * first, as rdx_hist_record does at each power of two */
		if (__builtin_expect((h->count ^ (h->count + n)) > h->count, 0))
			rdx_hist_rebase(h);
		if (cycles < h->min)
			h->min = cycles;
		if (cycles > h->max)
			h->max = cycles;
	}
	h->count += n;
	d = cycles >= h->shift ? (double)(cycles - h->shift) : -(double)(h->shift - cycles);
	w = (double)n;
	h->sum += w * d;
	h->sum_sq += w * (d * d);
	if (cycles >> RDX_HIST_MAX_BITS)
		h->overflow += n;
	else
		h->buckets[rdx_hist_bucket_index(cycles)] += n;
}

/** Lower bound and width (cycles) of bucket i < RDX_HIST_BUCKETS: the values
 * [lo, lo + width) (inverse of rdx_hist_bucket_index). */
void rdx_hist_bucket_range(unsigned int i, uint64_t *lo, uint64_t *width);

/** dst += src. */
void rdx_hist_merge(struct rdx_hist *dst, const struct rdx_hist *src);
/** The value (cycles) at percentile p in [0, 100] (nearest rank; 0 when empty). */
double rdx_hist_percentile(const struct rdx_hist *h, double p);
/** Exact mean of the recorded values (cycles); 0 when empty. */
double rdx_hist_mean(const struct rdx_hist *h);
/** Population standard deviation (divides by n; cycles); 0 when empty. */
double rdx_hist_stdev(const struct rdx_hist *h);
/**
 * Summary in ns given the TSC frequency. tsc_hz == 0: the values recorded
 * are already nanoseconds (no conversion).
 */
void rdx_hist_summarize(const struct rdx_hist *h, uint64_t tsc_hz,
			struct rdx_hist_summary *s);

#ifdef __cplusplus
}
#endif
#endif /* RDX_HIST_H */
