/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The responder's atomic unit: an operation on one 8-byte address waits
 * for the previous one on that address (read, modify, write back: op_ps);
 * operations on other addresses are pipelined, a new one accepted every
 * issue_ps, up to units addresses in flight. A table of the addresses in
 * flight: a match serialises, else the slot that frees first is reused.
 */
#include <string.h>

#include "sw_timing.h"

void
sw_tm_atomic_init(struct sw_tm_atomic *u, uint32_t units)
{
	memset(u, 0, sizeof(*u));
	u->units = units == 0 ? 1 : units > SW_TM_ATOMIC_SLOTS ? SW_TM_ATOMIC_SLOTS : units;
}

uint64_t
sw_tm_atomic_op(struct sw_tm_atomic *u, uint64_t addr, uint64_t now_ps, uint64_t op_ps,
		uint64_t issue_ps, bool *serial)
{
	uint64_t start;
	uint32_t i, pick = 0;

	addr &= ~(uint64_t)7;
	for (i = 0; i < u->units; i++) {
		if (u->addr[i] == addr && u->busy_ps[i] > now_ps)
			break;
		if (u->busy_ps[i] < u->busy_ps[pick])
			pick = i;
	}
	if (serial != NULL)
		*serial = i < u->units;
	if (i < u->units) {
		/* the same address in flight: after it */
		pick = i;
		start = u->busy_ps[i];
	} else {
		start = now_ps > u->busy_ps[pick] ? now_ps : u->busy_ps[pick];
	}
	if (start < u->issue_free_ps)
		start = u->issue_free_ps;
	u->issue_free_ps = start + issue_ps;
	u->addr[pick] = addr;
	u->busy_ps[pick] = start + op_ps;
	return start + op_ps;
}
