/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Message sizes as options give them and reports print them ("64K"): a
 * leaf of the option parsers (opts.c, rpc_opts.c) and the reports.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "perf_opts.h"

/* Unsigned with optional K/M/G (powers of 1024). */
int
perf_parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	uint64_t mul = 1;

	if (s == NULL || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0)
		return -EINVAL;
	if (*end == 'K' || *end == 'k')
		mul = 1ull << 10;
	else if (*end == 'M' || *end == 'm')
		mul = 1ull << 20;
	else if (*end == 'G' || *end == 'g')
		mul = 1ull << 30;
	if (mul != 1)
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end != '\0' || v > UINT64_MAX / mul)
		return -EINVAL;
	*out = v * mul;
	return 0;
}

int
perf_size_name(uint64_t size, char *buf, size_t len)
{
	if (size >= (1u << 20) && size % (1u << 20) == 0)
		return snprintf(buf, len, "%" PRIu64 "M", size >> 20);
	if (size >= 1024 && size % 1024 == 0)
		return snprintf(buf, len, "%" PRIu64 "K", size >> 10);
	return snprintf(buf, len, "%" PRIu64, size);
}
