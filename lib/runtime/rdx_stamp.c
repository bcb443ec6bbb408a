/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Path stamps (rdx_stamp.h): the per-process arrays and their dump at exit.
 * Empty unless built with -Dpath_stamps=true.
 */
#include "rdx_stamp.h"

#ifdef RDX_PATH_STAMPS
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <rte_log.h>

/* lib/runtime's log type (rdx_runtime.c) */
extern int rdx_runtime_logtype;

uint64_t rdx_stamp_buf[RDX_STAMP_KINDS][RDX_STAMP_MAX];
uint32_t rdx_stamp_cnt[RDX_STAMP_KINDS];

/* "<kind> <count>" then one TSC value a line, for each kind; the TSC rate
 * first, so the reader needs nothing else. */
static void __attribute__((destructor))
rdx_stamp_dump(void)
{
	const char *pre = getenv("RDX_STAMPS");
	char path[4096];
	unsigned int k;
	uint32_t i;
	FILE *f;

	if (pre == NULL || pre[0] == '\0')
		return;
	snprintf(path, sizeof(path), "%s.%d", pre, (int)getpid());
	f = fopen(path, "w");
	if (f == NULL) {
		rte_log(RTE_LOG_ERR, (uint32_t)rdx_runtime_logtype,
			"rdx: cannot write path stamps to %s\n", path);
		return;
	}
	fprintf(f, "tsc_hz %" PRIu64 "\n", rdx_tsc_hz());
	for (k = 0; k < RDX_STAMP_KINDS; k++) {
		fprintf(f, "kind %u %" PRIu32 "\n", k, rdx_stamp_cnt[k]);
		for (i = 0; i < rdx_stamp_cnt[k]; i++)
			fprintf(f, "%" PRIu64 "\n", rdx_stamp_buf[k][i]);
	}
	fclose(f);
}
#else
/* ISO C wants something in a translation unit */
typedef int rdx_stamp_unused;
#endif
