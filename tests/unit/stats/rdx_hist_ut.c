/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx_hist: percentiles against an exact sort (same nearest-rank
 * definition, computed here with integers), exact min/max, mean and stdev
 * against a two-pass long double computation, merge, weighted records
 * (rdx_hist_record_n), reset, overflow.
 * Values span 10 ns .. 10 s at 2.6 GHz (26 .. 2.6e10 cycles).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdx_ut.h"

#include "../../../lib/stats/rdx_hist.c"

#define NB_VALUES 200000
#define LO_CYCLES 26.0          /* 10 ns at 2.6 GHz */
#define HI_CYCLES 2.6e10        /* 10 s at 2.6 GHz */

static uint64_t rng_state;

/* splitmix64: deterministic, so a failure reproduces. */
static uint64_t
rng_next(void)
{
	uint64_t z = (rng_state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static double
rng_unit(void)  /* (0, 1) */
{
	return ((double)(rng_next() >> 11) + 0.5) / 9007199254740992.0;
}

static double
rng_normal(void)
{
	return sqrt(-2.0 * log(rng_unit())) * cos(2.0 * M_PI * rng_unit());
}

static uint64_t
clamp_cycles(double v)
{
	if (v < LO_CYCLES)
		v = LO_CYCLES;
	if (v > HI_CYCLES)
		v = HI_CYCLES;
	return (uint64_t)llround(v);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Exact nearest rank of p given in parts per 10000: ceil(pp * n / 10000). */
static uint64_t
exact_pct(const uint64_t *sorted, uint64_t n, uint64_t pp)
{
	uint64_t r = (pp * n + 9999) / 10000;

	if (r < 1)
		r = 1;
	return sorted[r - 1];
}

static const struct {
	double p;
	uint64_t pp;
} pcts[] = {
	{ 0.0, 0 }, { 50.0, 5000 }, { 90.0, 9000 }, { 99.0, 9900 },
	{ 99.9, 9990 }, { 99.99, 9999 }, { 100.0, 10000 },
};

/* Record v[0..n), then check every listed percentile and the moments. */
static void
check_against_sort(const char *what, uint64_t *v, uint64_t n)
{
	static struct rdx_hist h;
	long double sum = 0, ss = 0, mean;
	double worst = 0.0, est, ex, err;
	unsigned int j;
	uint64_t i;

	rdx_hist_init(&h);
	for (i = 0; i < n; i++)
		rdx_hist_record(&h, v[i]);
	qsort(v, n, sizeof(*v), cmp_u64);
	CU_ASSERT_EQUAL(h.count, n);
	CU_ASSERT_EQUAL(h.min, v[0]);
	CU_ASSERT_EQUAL(h.max, v[n - 1]);
	for (j = 0; j < sizeof(pcts) / sizeof(pcts[0]); j++) {
		est = rdx_hist_percentile(&h, pcts[j].p);
		ex = (double)exact_pct(v, n, pcts[j].pp);
		err = fabs(est - ex) / ex;
		if (err > worst)
			worst = err;
		CU_ASSERT(err <= 0.01);
		if (err > 0.01)
			printf("\n  %s p%g: hist %.1f exact %.1f (%.3f%%)", what, pcts[j].p, est, ex,
			       100.0 * err);
	}
	/* any percentile: 200 random ones, p to 1e-4 % (rank ceil(pp * n / 1e6)) */
	for (j = 0; j < 200; j++) {
		uint64_t pp = rng_next() % 1000001, r = (pp * n + 999999) / 1000000;

		est = rdx_hist_percentile(&h, (double)pp / 1e4);
		ex = (double)v[(r < 1 ? 1 : r) - 1];
		err = fabs(est - ex) / ex;
		if (err > worst)
			worst = err;
		CU_ASSERT(err <= 0.01);
	}
	CU_ASSERT_EQUAL(rdx_hist_percentile(&h, 0.0), (double)v[0]);
	CU_ASSERT_EQUAL(rdx_hist_percentile(&h, 100.0), (double)v[n - 1]);
	for (i = 0; i < n; i++)
		sum += (long double)v[i];
	mean = sum / (long double)n;
	for (i = 0; i < n; i++)
		ss += ((long double)v[i] - mean) * ((long double)v[i] - mean);
	CU_ASSERT(fabs(rdx_hist_mean(&h) - (double)mean) <= 1e-9 * (double)mean);
	CU_ASSERT(fabs(rdx_hist_stdev(&h) - (double)sqrtl(ss / (long double)n)) <=
		  1e-9 * (double)sqrtl(ss / (long double)n));
	printf("\n  %-22s worst percentile error %.4f%%, p50 %.0f p99.99 %.0f cycles ", what,
	       100.0 * worst, rdx_hist_percentile(&h, 50.0), rdx_hist_percentile(&h, 99.99));
}

static uint64_t *
alloc_values(void)
{
	uint64_t *v = malloc(NB_VALUES * sizeof(*v));

	CU_ASSERT_FATAL(v != NULL);
	return v;
}

static void
test_uniform(void)
{
	uint64_t *v = alloc_values(), i;

	rng_state = 1;
	for (i = 0; i < NB_VALUES; i++)   /* linear over the whole range */
		v[i] = clamp_cycles(LO_CYCLES + rng_unit() * (HI_CYCLES - LO_CYCLES));
	check_against_sort("uniform", v, NB_VALUES);
	for (i = 0; i < NB_VALUES; i++)   /* uniform in log: every octave */
		v[i] = clamp_cycles(exp(log(LO_CYCLES) + rng_unit() * log(HI_CYCLES / LO_CYCLES)));
	check_against_sort("log-uniform", v, NB_VALUES);
	for (i = 0; i < NB_VALUES; i++)   /* a narrow band: 1 us +- 10 ns */
		v[i] = clamp_cycles(2600.0 + (rng_unit() - 0.5) * 52.0);
	check_against_sort("uniform narrow", v, NB_VALUES);
	free(v);
}

static void
test_lognormal(void)
{
	uint64_t *v = alloc_values(), i;

	rng_state = 2;
	for (i = 0; i < NB_VALUES; i++)   /* median 2 us, sigma 1.5: a long tail */
		v[i] = clamp_cycles(5200.0 * exp(1.5 * rng_normal()));
	check_against_sort("lognormal", v, NB_VALUES);
	for (i = 0; i < NB_VALUES; i++)   /* median 10 ms, sigma 3: hits both ends */
		v[i] = clamp_cycles(2.6e7 * exp(3.0 * rng_normal()));
	check_against_sort("lognormal wide", v, NB_VALUES);
	free(v);
}

static void
test_bimodal_tail(void)
{
	uint64_t *v = alloc_values(), i;
	double u;

	rng_state = 3;
	for (i = 0; i < NB_VALUES; i++) {
		u = rng_unit();
		if (u < 0.80)        /* fast path: 1.5 us +- 50 ns */
			v[i] = clamp_cycles(3900.0 + 130.0 * rng_normal());
		else if (u < 0.995)  /* second mode: 40 us */
			v[i] = clamp_cycles(104000.0 + 5000.0 * rng_normal());
		else                 /* long tail up to 10 s */
			v[i] = clamp_cycles(2.6e5 * exp(rng_unit() * log(HI_CYCLES / 2.6e5)));
	}
	check_against_sort("bimodal + long tail", v, NB_VALUES);
	free(v);
}

/* Values below 2 * RDX_HIST_SUB_COUNT have a bucket each: percentiles are exact. */
static void
test_small_exact(void)
{
	static struct rdx_hist h;
	uint64_t v[1000], sorted[1000];
	unsigned int i, j;

	rng_state = 4;
	rdx_hist_init(&h);
	for (i = 0; i < 1000; i++) {
		v[i] = rng_next() % (2 * RDX_HIST_SUB_COUNT);
		sorted[i] = v[i];
		rdx_hist_record(&h, v[i]);
	}
	qsort(sorted, 1000, sizeof(sorted[0]), cmp_u64);
	for (j = 0; j < sizeof(pcts) / sizeof(pcts[0]); j++)
		CU_ASSERT_EQUAL(rdx_hist_percentile(&h, pcts[j].p),
				(double)exact_pct(sorted, 1000, pcts[j].pp));
}

/* Nearest rank: p99.9 of 1000 values is the 999th (not the 1000th through
 * rounding), p50 the 500th; below 256 every value is exact. */
static void
test_rank_definition(void)
{
	static struct rdx_hist h;
	uint64_t i;

	CU_ASSERT_EQUAL(rdx_hist_rank(1000, 99.9), 999);
	CU_ASSERT_EQUAL(rdx_hist_rank(1000, 50.0), 500);
	CU_ASSERT_EQUAL(rdx_hist_rank(1000, 0.1), 1);
	CU_ASSERT_EQUAL(rdx_hist_rank(1000, 0.11), 2);
	CU_ASSERT_EQUAL(rdx_hist_rank(1000, 0.0), 1);
	CU_ASSERT_EQUAL(rdx_hist_rank(1000, 100.0), 1000);
	CU_ASSERT_EQUAL(rdx_hist_rank(1000, 99.99), 1000);
	CU_ASSERT_EQUAL(rdx_hist_rank(UINT64_C(10000000000), 99.99), UINT64_C(9999000000));
	CU_ASSERT_EQUAL(rdx_hist_rank(UINT64_C(10000000001), 50.0), UINT64_C(5000000001));
	rdx_hist_init(&h);
	for (i = 1; i <= 200; i++)
		rdx_hist_record(&h, i);
	CU_ASSERT_EQUAL(rdx_hist_percentile(&h, 99.5), 199.0);
	CU_ASSERT_EQUAL(rdx_hist_percentile(&h, 50.0), 100.0);
	CU_ASSERT_EQUAL(rdx_hist_percentile(&h, 0.5), 1.0);
	CU_ASSERT_EQUAL(rdx_hist_percentile(&h, 0.51), 2.0);
	CU_ASSERT_EQUAL(rdx_hist_percentile(&h, 100.0), 200.0);
}

/* Every value falls in the bucket whose range the percentile code uses. */
static void
test_bucket_layout(void)
{
	uint64_t v, lo, width;
	unsigned int i, prev = 0;

	for (v = 0; v < 5000; v++) {
		i = rdx_hist_bucket_index(v);
		CU_ASSERT_FATAL(i < RDX_HIST_BUCKETS);
		rdx_hist_bucket_range(i, &lo, &width);
		CU_ASSERT(lo <= v && v < lo + width);
		CU_ASSERT(i == prev || i == prev + 1);
		prev = i;
	}
	rng_state = 5;
	for (v = 0; v < 100000; v++) {
		uint64_t x = rng_next() >> (24 + rng_next() % 40);

		i = rdx_hist_bucket_index(x);
		CU_ASSERT_FATAL(i < RDX_HIST_BUCKETS);
		rdx_hist_bucket_range(i, &lo, &width);
		CU_ASSERT(lo <= x && x - lo < width);
		CU_ASSERT(width == 1 || (double)width / (double)lo <= 1.0 / RDX_HIST_SUB_COUNT);
	}
	CU_ASSERT_EQUAL(rdx_hist_bucket_index((UINT64_C(1) << RDX_HIST_MAX_BITS) - 1),
			RDX_HIST_BUCKETS - 1);
}

/* Mean/stdev of values near 10 s with a spread of a few cycles: the
 * textbook sum-of-squares formula loses everything here. */
static void
test_moments_sound(void)
{
	static struct rdx_hist h;
	uint64_t i;
	double sd;

	rdx_hist_init(&h);
	for (i = 0; i < 1000000; i++)
		rdx_hist_record(&h, UINT64_C(26000000000) + (i & 1) * 2);  /* +-1 around the mean */
	CU_ASSERT(fabs(rdx_hist_mean(&h) - 26000000001.0) < 1e-6);
	sd = rdx_hist_stdev(&h);
	CU_ASSERT(fabs(sd - 1.0) < 1e-9);
	printf("\n  stdev of {2.6e10, 2.6e10 + 2} x 500000: %.12f (exact 1) ", sd);
}

/* Mean and stdev of h against a two-pass long double computation over the
 * n values gen(i) (relative error, both). */
static void
moments_vs_exact(const struct rdx_hist *h, uint64_t (*gen)(uint64_t), uint64_t n,
		 double *emean, double *esd)
{
	long double sum = 0, ss = 0, mean, sd;
	uint64_t i;

	for (i = 0; i < n; i++)
		sum += (long double)gen(i);
	mean = sum / (long double)n;
	for (i = 0; i < n; i++)
		ss += ((long double)gen(i) - mean) * ((long double)gen(i) - mean);
	sd = sqrtl(ss / (long double)n);
	*emean = fabs(rdx_hist_mean(h) - (double)mean) / (double)mean;
	*esd = fabs(rdx_hist_stdev(h) - (double)sd) / (double)sd;
}

/* A stall of 10 s (2.6e10 cycles) as the first value after the warm-up,
 * then 4M ops of ~1 us (2600 +- 100 cycles). */
static uint64_t
gen_stall_first(uint64_t i)
{
	return i == 0 ? UINT64_C(26000000000) : 2500 + (i * 7919) % 201;
}

/* The other way round: the first value far below a tight spread. */
static uint64_t
gen_low_first(uint64_t i)
{
	return i == 0 ? 26 : UINT64_C(26000000000) + (i & 1) * 2;
}

/* The moments stay exact (to 1e-9) whatever the first value is: the first
 * value was the shift for good, and a 10-s stall recorded first made the
 * mean 1e-7 and the stdev 1e-6 off at 4M records (1% and 6% at 1e8). */
static void
test_moments_outlier_first(void)
{
	static struct rdx_hist h, part[2], merged;
	const uint64_t n = 4000000;
	double em, es;
	uint64_t i;

	rdx_hist_init(&h);
	for (i = 0; i < n; i++)
		rdx_hist_record(&h, gen_stall_first(i));
	moments_vs_exact(&h, gen_stall_first, n, &em, &es);
	printf("\n  stall first: mean error %.3g, stdev error %.3g ", em, es);
	CU_ASSERT(em <= 1e-9);
	CU_ASSERT(es <= 1e-9);
	/* the same through record_n (a weight of 1 each) */
	rdx_hist_init(&h);
	for (i = 0; i < n; i++)
		rdx_hist_record_n(&h, gen_stall_first(i), 1);
	moments_vs_exact(&h, gen_stall_first, n, &em, &es);
	CU_ASSERT(em <= 1e-9);
	CU_ASSERT(es <= 1e-9);
	/* merge: a part holding only the stall into (and from) the rest */
	rdx_hist_init(&part[0]);
	rdx_hist_init(&part[1]);
	rdx_hist_init(&merged);
	rdx_hist_record(&part[0], gen_stall_first(0));
	for (i = 1; i < n; i++)
		rdx_hist_record(&part[1], gen_stall_first(i));
	rdx_hist_merge(&merged, &part[0]);
	rdx_hist_merge(&merged, &part[1]);
	moments_vs_exact(&merged, gen_stall_first, n, &em, &es);
	CU_ASSERT(em <= 1e-9);
	CU_ASSERT(es <= 1e-9);
	rdx_hist_init(&h);
	for (i = 0; i < n; i++)
		rdx_hist_record(&h, gen_low_first(i));
	moments_vs_exact(&h, gen_low_first, n, &em, &es);
	printf("low first: mean error %.3g, stdev error %.3g ", em, es);
	CU_ASSERT(em <= 1e-9);
	CU_ASSERT(es <= 1e-9);
}

static void
test_merge(void)
{
	static struct rdx_hist all, part[3], merged;
	uint64_t i, v;
	unsigned int j;

	rng_state = 6;
	rdx_hist_init(&all);
	rdx_hist_init(&merged);
	for (j = 0; j < 3; j++)
		rdx_hist_init(&part[j]);
	for (i = 0; i < 100000; i++) {
		/* part 0 sees small values first, part 2 huge ones: different shifts */
		j = (unsigned int)(rng_next() % 3);
		v = clamp_cycles((j == 2 ? 2.6e8 : 2600.0) * exp(rng_normal()));
		if (i == 5)
			v = UINT64_C(1) << 42;   /* one overflow */
		rdx_hist_record(&all, v);
		rdx_hist_record(&part[j], v);
	}
	for (j = 0; j < 3; j++)
		rdx_hist_merge(&merged, &part[j]);
	CU_ASSERT_EQUAL(merged.count, all.count);
	CU_ASSERT_EQUAL(merged.min, all.min);
	CU_ASSERT_EQUAL(merged.max, all.max);
	CU_ASSERT_EQUAL(merged.overflow, 1);
	CU_ASSERT_EQUAL(merged.overflow, all.overflow);
	CU_ASSERT(memcmp(merged.buckets, all.buckets, sizeof(all.buckets)) == 0);
	for (j = 0; j < sizeof(pcts) / sizeof(pcts[0]); j++)
		CU_ASSERT_EQUAL(rdx_hist_percentile(&merged, pcts[j].p),
				rdx_hist_percentile(&all, pcts[j].p));
	CU_ASSERT(fabs(rdx_hist_mean(&merged) - rdx_hist_mean(&all)) <=
		  1e-9 * rdx_hist_mean(&all));
	CU_ASSERT(fabs(rdx_hist_stdev(&merged) - rdx_hist_stdev(&all)) <=
		  1e-9 * rdx_hist_stdev(&all));
	/* merging an empty histogram changes nothing */
	rdx_hist_init(&part[0]);
	rdx_hist_merge(&merged, &part[0]);
	CU_ASSERT_EQUAL(merged.count, all.count);
}

/* rdx_hist_record_n(v, n) is n records of v: the same buckets, count, min,
 * max, overflow and percentiles; mean and stdev to rounding. Weights 1..64
 * (a post list retired by one completion), 0 (nothing), and huge ones. */
static void
test_record_n(void)
{
	static struct rdx_hist one, many;
	uint64_t i, v, n;
	unsigned int j;

	rng_state = 7;
	rdx_hist_init(&one);
	rdx_hist_init(&many);
	for (i = 0; i < 20000; i++) {
		v = clamp_cycles(2600.0 * exp(2.0 * rng_normal()));
		if (i == 11)
			v = UINT64_C(1) << 43;   /* one overflow, counted n times */
		n = rng_next() % 65;     /* 0: records nothing */
		rdx_hist_record_n(&many, v, n);
		for (j = 0; j < n; j++)
			rdx_hist_record(&one, v);
	}
	CU_ASSERT(one.count > 0);
	CU_ASSERT_EQUAL(many.count, one.count);
	CU_ASSERT_EQUAL(many.min, one.min);
	CU_ASSERT_EQUAL(many.max, one.max);
	/* not the shift: record_n re-bases when its count crosses a power of
	 * two, n records at each one they reach (the moments agree below) */
	CU_ASSERT_EQUAL(many.overflow, one.overflow);
	CU_ASSERT(many.overflow > 0);
	CU_ASSERT(memcmp(many.buckets, one.buckets, sizeof(one.buckets)) == 0);
	for (j = 0; j < sizeof(pcts) / sizeof(pcts[0]); j++)
		CU_ASSERT_EQUAL(rdx_hist_percentile(&many, pcts[j].p),
				rdx_hist_percentile(&one, pcts[j].p));
	CU_ASSERT(fabs(rdx_hist_mean(&many) - rdx_hist_mean(&one)) <= 1e-9 * rdx_hist_mean(&one));
	CU_ASSERT(fabs(rdx_hist_stdev(&many) - rdx_hist_stdev(&one)) <=
		  1e-9 * rdx_hist_stdev(&one));
	/* a first record of weight 0 does not set min/max/shift */
	rdx_hist_init(&many);
	rdx_hist_record_n(&many, 5, 0);
	CU_ASSERT_EQUAL(many.count, 0);
	rdx_hist_record_n(&many, 700, UINT64_C(1) << 33);
	CU_ASSERT_EQUAL(many.count, UINT64_C(1) << 33);
	CU_ASSERT_EQUAL(many.min, 700);
	CU_ASSERT_EQUAL(many.buckets[rdx_hist_bucket_index(700)], UINT64_C(1) << 33);
	CU_ASSERT_EQUAL(rdx_hist_percentile(&many, 50.0), 700.0);
	CU_ASSERT_EQUAL(rdx_hist_stdev(&many), 0.0);
}

static void
test_reset(void)
{
	static struct rdx_hist h, fresh;
	uint64_t i;

	rdx_hist_init(&h);
	rdx_hist_init(&fresh);
	for (i = 0; i < 1000; i++)             /* warm-up: slow values */
		rdx_hist_record(&h, 1000000 + i);
	rdx_hist_reset(&h);
	CU_ASSERT_EQUAL(h.count, 0);
	CU_ASSERT_EQUAL(rdx_hist_percentile(&h, 50.0), 0.0);
	CU_ASSERT_EQUAL(rdx_hist_mean(&h), 0.0);
	for (i = 0; i < 1000; i++) {
		rdx_hist_record(&h, 300 + i);
		rdx_hist_record(&fresh, 300 + i);
	}
	CU_ASSERT_EQUAL(h.min, 300);
	CU_ASSERT_EQUAL(h.max, 1299);
	CU_ASSERT(memcmp(&h, &fresh, sizeof(h)) == 0);
}

static void
test_overflow_and_summary(void)
{
	static struct rdx_hist h;
	struct rdx_hist_summary s;
	uint64_t i;

	rdx_hist_init(&h);
	for (i = 0; i < 99; i++)
		rdx_hist_record(&h, 2600);             /* 1 us */
	rdx_hist_record(&h, UINT64_C(1) << 45);    /* beyond the top bucket */
	CU_ASSERT_EQUAL(h.overflow, 1);
	CU_ASSERT_EQUAL(rdx_hist_percentile(&h, 100.0), (double)(UINT64_C(1) << 45));
	CU_ASSERT_EQUAL(rdx_hist_percentile(&h, 99.0), 2600.0);
	rdx_hist_summarize(&h, 2600000000u, &s);
	CU_ASSERT_EQUAL(s.count, 100);
	CU_ASSERT(fabs(s.min - 1000.0) < 1e-9);
	CU_ASSERT(fabs(s.p50 - 1000.0) < 1e-9);
	CU_ASSERT(fabs(s.max - (double)(UINT64_C(1) << 45) / 2.6) < 1e-9 * s.max);
	CU_ASSERT(fabs(s.mean - (99.0 * 2600.0 + 35184372088832.0) / 100.0 / 2.6) < 1e-9 * s.mean);
	rdx_hist_summarize(&h, 0, &s);          /* values already in ns */
	CU_ASSERT_EQUAL(s.p90, 2600.0);
	rdx_hist_init(&h);
	rdx_hist_summarize(&h, 2600000000u, &s);
	CU_ASSERT_EQUAL(s.count, 0);
	CU_ASSERT_EQUAL(s.max, 0.0);
	CU_ASSERT_EQUAL(s.stdev, 0.0);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "uniform vs exact sort", test_uniform },
		{ "lognormal vs exact sort", test_lognormal },
		{ "bimodal + long tail vs exact sort", test_bimodal_tail },
		{ "small values exact", test_small_exact },
		{ "nearest-rank definition", test_rank_definition },
		{ "bucket layout", test_bucket_layout },
		{ "moments numerically sound", test_moments_sound },
		{ "moments with an outlier first", test_moments_outlier_first },
		{ "merge equals one histogram", test_merge },
		{ "record_n equals n records", test_record_n },
		{ "reset after warm-up", test_reset },
		{ "overflow and summary in ns", test_overflow_and_summary },
		{ NULL, NULL },
	};

	return rdx_ut_run("rdx_hist", cases, NULL, NULL);
}
