/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * send: SEND/RECV. The responder keeps its receive queue full and checks
 * each message it takes (stream.c's perf_serve_recv, --verify); lat is a
 * ping-pong on receive completions. Over --transport ud too (one datagram
 * per message: SEND with immediate, see pingpong.c and stream.c).
 */
#include "perf_app.h"

const struct rdx_perf_engine perf_engine_send = {
	.name = "send",
	.op = RDX_OP_SEND,
	.loop = { [PERF_MODE_LAT] = PERF_LOOP_PINGPONG, [PERF_MODE_BW] = PERF_LOOP_STREAM },
	.lat_kind = PERF_LAT_HALF_RTT,
	.server_recv = true,
	.ud = true,
	.fill = perf_stream_fill_data,
};
PERF_ENGINE_REGISTER(perf_engine_send)
