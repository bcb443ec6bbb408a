/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * read: RDMA READ, in both modes a stream (stream.c); lat is the stream
 * with one op in flight, whose latency is the full round trip. With
 * --verify the responder's slot s holds pattern s and every completed READ
 * is checked in our buffer (cleared before it is posted).
 */
#include <string.h>

#include "perf_app.h"

static void
read_fill(struct perf_lcore *lc, struct perf_ep *ep, uint64_t off, uint64_t seq)
{
	(void)seq;
	if (ep->buf->addr != NULL)
		memset((uint8_t *)ep->buf->addr + off, 0, lc->run->size);
}

static void
read_check(struct perf_lcore *lc, struct perf_ep *ep, uint64_t seq)
{
	const struct perf_run *run = lc->run;
	uint64_t off = (seq & (run->slots - 1)) * run->stride;

	lc->verify_errors += perf_mem_check(ep->buf, off, run->size, seq & (run->slots - 1),
					    PERF_SALT_READ);
}

/* Each run: the responder's slots hold what the READs will check. */
static void
read_responder_ready(struct perf_app *a, struct perf_ep *ep)
{
	const struct perf_run *run = &a->run;
	uint32_t s;

	/* -b across processes: the peer reads the buffer exposed to it */
	struct rdx_mem *m = ep->tbuf != NULL ? ep->tbuf : ep->buf;

	if (!a->o.verify)
		return;
	for (s = 0; s < run->slots; s++)
		perf_mem_fill(m, (uint64_t)s * run->stride, run->size, s, PERF_SALT_READ);
}

const struct rdx_perf_engine perf_engine_read = {
	.name = "read",
	.op = RDX_OP_READ,
	.loop = { [PERF_MODE_LAT] = PERF_LOOP_STREAM, [PERF_MODE_BW] = PERF_LOOP_STREAM },
	.lat_kind = PERF_LAT_RTT,
	.no_inline = true,
	.fill = read_fill,
	.check = read_check,
	.responder_ready = read_responder_ready,
};
PERF_ENGINE_REGISTER(perf_engine_read)
