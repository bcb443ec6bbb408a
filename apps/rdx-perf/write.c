/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * write: RDMA WRITE. bw streams WRITEs (stream.c); lat is a ping-pong
 * (pingpong.c) where each side sees the other's WRITE by polling the last
 * byte of its buffer, as perftest's ib_write_lat does: the responder
 * never posts receives.
 */
#include "perf_app.h"

const struct rdx_perf_engine perf_engine_write = {
	.name = "write",
	.op = RDX_OP_WRITE,
	.loop = { [PERF_MODE_LAT] = PERF_LOOP_PINGPONG, [PERF_MODE_BW] = PERF_LOOP_STREAM },
	.lat_kind = PERF_LAT_HALF_RTT,
	.poll_memory = true,
	.fill = perf_stream_fill_data,
	.check = perf_stream_check_peer,
	.verify_run = perf_verify_readback,
};
PERF_ENGINE_REGISTER(perf_engine_write)
