/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ABI: librdx 0.1 exported rdx_tsc() as a function. rdx_runtime.h now
 * defines it static inline (no call per timestamp); this out-of-line copy
 * keeps the symbol for binaries linked against the earlier library. This
 * file must not include rdx_runtime.h: its inline definition has the same
 * name.
 */
#include <stdint.h>

#include <rte_cycles.h>

uint64_t rdx_tsc(void);

uint64_t
rdx_tsc(void)
{
	return rte_rdtsc();
}
