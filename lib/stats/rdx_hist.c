/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Histogram slow path: init, reset, merge, percentiles and moments.
 * Recording is inline in rdx_hist.h.
 *
 * Moments: the histogram keeps sum(x - K) and sum((x - K)^2) (the "shifted
 * data" method). The variance is then (Q - S^2 / n) / n: the cancellation
 * that ruins the textbook formula is governed by (mean - K) / stdev instead
 * of mean / stdev. K starts as the first value recorded; one value can be
 * far from the mean in units of the spread (the first op after warm-up
 * stalled for seconds while the rest take microseconds: K - mean ~ 1e7
 * stdevs, which cost the mean 1% and the stdev 6% over 1e8 records), so K
 * moves onto the running mean each time the count reaches a power of two
 * (rdx_hist_rebase). A re-base adds n c^2 + 2 c S to Q with c = K - K': its
 * rounding is eps * c^2 / var of the variance, and c is the drift of the
 * mean since the last re-base, small against the spread (after an outlier
 * x at count 1, c ~ x / n while var ~ x^2 / n).
 */
#include <math.h>
#include <string.h>

#include "rdx_hist.h"

void
rdx_hist_init(struct rdx_hist *h)
{
	memset(h, 0, sizeof(*h));
}

void
rdx_hist_reset(struct rdx_hist *h)
{
	memset(h, 0, sizeof(*h));
}

/* A signed difference a - b of two unsigned values, as a double. */
static double
rdx_hist_diff(uint64_t a, uint64_t b)
{
	return a >= b ? (double)(a - b) : -(double)(b - a);
}

/* Re-base the moments of h (n values) from shift K to K': x - K' = (x - K) + c,
 * c = K - K'. */
static void
rdx_hist_shift_to(struct rdx_hist *h, uint64_t k)
{
	const double c = rdx_hist_diff(h->shift, k), n = (double)h->count;

	h->sum_sq += 2.0 * c * h->sum + n * c * c;
	h->sum += n * c;
	h->shift = k;
}

void
rdx_hist_rebase(struct rdx_hist *h)
{
	double m;
	uint64_t k;

	if (h->count == 0)
		return;
	/* the mean (shift + sum / n), to the nearest integer inside [min, max] */
	m = h->sum / (double)h->count;
	if (m >= 0.0)
		k = m + 0.5 >= (double)(h->max - h->shift) ? h->max :
			h->shift + (uint64_t)(m + 0.5);
	else
		k = -m + 0.5 >= (double)(h->shift - h->min) ? h->min :
			h->shift - (uint64_t)(-m + 0.5);
	rdx_hist_shift_to(h, k);
}

void
rdx_hist_merge(struct rdx_hist *dst, const struct rdx_hist *src)
{
	double c, n;
	unsigned int i;

	if (src->count == 0)
		return;
	if (dst->count == 0) {
		dst->shift = src->shift;
		dst->sum = src->sum;
		dst->sum_sq = src->sum_sq;
		dst->min = src->min;
		dst->max = src->max;
	} else {
		/* Onto the larger side's shift (near its mean, so near the merged
		 * one: (mean - K)^2 / var <= n_small / n_large). dst first when
		 * src has more values. */
		if (src->count > dst->count)
			rdx_hist_shift_to(dst, src->shift);
		/* Re-base src onto dst's shift: x - K1 = (x - K2) + c, c = K2 - K1. */
		c = rdx_hist_diff(src->shift, dst->shift);
		n = (double)src->count;
		dst->sum_sq += src->sum_sq + 2.0 * c * src->sum + n * c * c;
		dst->sum += src->sum + n * c;
		if (src->min < dst->min)
			dst->min = src->min;
		if (src->max > dst->max)
			dst->max = src->max;
	}
	dst->count += src->count;
	dst->overflow += src->overflow;
	for (i = 0; i < RDX_HIST_BUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
}

/*
 * Nearest rank r = max(1, ceil(p / 100 * n)), computed in integers so that
 * e.g. p = 99.9 with n = 1000 gives 999 and not 1000 through rounding.
 * p is taken to a millionth of a percent.
 */
static uint64_t
rdx_hist_rank(uint64_t n, double p)
{
	const uint64_t scale = 100000000;   /* 100% in millionths of a percent */
	uint64_t pp, a, b, r;

	if (!(p > 0.0))
		return 1;
	if (p >= 100.0)
		return n;
	pp = (uint64_t)llround(p * 1e6);
	/* ceil(pp * n / scale) with n = a * scale + b, avoiding overflow. */
	a = n / scale;
	b = n % scale;
	r = pp * a + (pp * b + scale - 1) / scale;
	if (r < 1)
		r = 1;
	if (r > n)
		r = n;
	return r;
}

void
rdx_hist_bucket_range(unsigned int i, uint64_t *lo, uint64_t *width)
{
	unsigned int shift;

	if (i < 2 * RDX_HIST_SUB_COUNT) {
		*lo = i;
		*width = 1;
		return;
	}
	shift = i / RDX_HIST_SUB_COUNT - 1;
	*lo = (uint64_t)(i - shift * RDX_HIST_SUB_COUNT) << shift;
	*width = UINT64_C(1) << shift;
}

double
rdx_hist_percentile(const struct rdx_hist *h, double p)
{
	uint64_t r, cum = 0, lo, width;
	unsigned int i;
	double v;

	if (h->count == 0)
		return 0.0;
	r = rdx_hist_rank(h->count, p);
	if (r == 1)
		return (double)h->min;
	if (r == h->count)
		return (double)h->max;
	for (i = 0; i < RDX_HIST_BUCKETS; i++) {
		cum += h->buckets[i];
		if (cum >= r)
			break;
	}
	if (i == RDX_HIST_BUCKETS)    /* in the overflow: only max is known */
		return (double)h->max;
	rdx_hist_bucket_range(i, &lo, &width);
	v = (double)lo + (double)(width - 1) / 2.0;
	if (v < (double)h->min)
		v = (double)h->min;
	if (v > (double)h->max)
		v = (double)h->max;
	return v;
}

double
rdx_hist_mean(const struct rdx_hist *h)
{
	if (h->count == 0)
		return 0.0;
	return (double)h->shift + h->sum / (double)h->count;
}

double
rdx_hist_stdev(const struct rdx_hist *h)
{
	double n, var;

	if (h->count == 0)
		return 0.0;
	n = (double)h->count;
	var = (h->sum_sq - h->sum * h->sum / n) / n;
	return var > 0.0 ? sqrt(var) : 0.0;
}

void
rdx_hist_summarize(const struct rdx_hist *h, uint64_t tsc_hz,
		   struct rdx_hist_summary *s)
{
	double f = tsc_hz == 0 ? 1.0 : 1e9 / (double)tsc_hz;

	s->count = h->count;
	s->min = h->count == 0 ? 0.0 : (double)h->min * f;
	s->p50 = rdx_hist_percentile(h, 50.0) * f;
	s->p90 = rdx_hist_percentile(h, 90.0) * f;
	s->p99 = rdx_hist_percentile(h, 99.0) * f;
	s->p999 = rdx_hist_percentile(h, 99.9) * f;
	s->p9999 = rdx_hist_percentile(h, 99.99) * f;
	s->max = h->count == 0 ? 0.0 : (double)h->max * f;
	s->mean = rdx_hist_mean(h) * f;
	s->stdev = rdx_hist_stdev(h) * f;
}
