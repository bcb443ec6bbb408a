/* SPDX-License-Identifier: BSD-3-Clause */
/* rdx-perf options: the sweeps' ranges (opts.c calls these). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#include "perf_app.h"
#include "perf_opts.h"

/* Decimal digits only, no sign or space, no wrap: 0 or -EINVAL. */
static int
parse_dec(const char *s, const char **end, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (max - (uint64_t)(*p - '0')) / 10)
			return -EINVAL;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*end = p;
	*out = v;
	return 0;
}

/*
 * A sweep's range: A-B, every value A..B; A-B*F, A, A*F, A*F^2.. <= B
 * (--qp-sweep, --lcore-sweep, --tx-depth-sweep). 0 or -EINVAL after one line.
 */
int
perf_parse_sweep(const char *opt, const char *s, uint32_t max, uint32_t *lo_out,
		 uint32_t *hi_out, uint32_t *f_out)
{
	uint64_t lo, hi, f = 0;
	const char *p;
	char why[96];

	if (parse_dec(s, &p, max, &lo) < 0 || *p++ != '-' || parse_dec(p, &p, max, &hi) < 0 ||
	    (*p == '*' && (parse_dec(p + 1, &p, 1024, &f) < 0 || f < 2)) || *p != '\0' ||
	    lo == 0 || hi < lo) {
		snprintf(why, sizeof(why), "expected A-B or A-B*F with 1 <= A <= B <= %u, 2 <= F <= 1024",
			 max);
		return perf_opt_bad(opt, s, why);
	}
	*lo_out = (uint32_t)lo;
	*hi_out = (uint32_t)hi;
	*f_out = (uint32_t)f;
	return 0;
}
