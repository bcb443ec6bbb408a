/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * write_imm: RDMA WRITE with immediate. Every op consumes a receive WR at
 * the responder (stream.c's perf_serve_recv checks the immediate, the op
 * index, with --verify); lat is a ping-pong on receive completions.
 */
#include "perf_app.h"

const struct rdx_perf_engine perf_engine_write_imm = {
	.name = "write_imm",
	.op = RDX_OP_WRITE_IMM,
	.loop = { [PERF_MODE_LAT] = PERF_LOOP_PINGPONG, [PERF_MODE_BW] = PERF_LOOP_STREAM },
	.lat_kind = PERF_LAT_HALF_RTT,
	.server_recv = true,
	.fill = perf_stream_fill_data,
	.check = perf_stream_check_peer,
	.verify_run = perf_verify_readback,
};
PERF_ENGINE_REGISTER(perf_engine_write_imm)
