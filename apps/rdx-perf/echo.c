/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * echo: RAMCloud clusterperf echo_basic over SEND/RECV: a 30-byte request,
 * a response of the chosen size, --concurrent-ops RPCs outstanding per
 * client QP, in both modes; latency is the full round trip (clusterperf's
 * figure). The loop is pingpong.c's; this file holds what echo sets.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rdx_report.h"

#include "perf_app.h"
#include "perf_opts.h"

/* clusterperf's sizes, its window of 16 in bw, --servers QPs */
static int
echo_defaults(struct perf_opts *o, const struct perf_opts_given *g)
{
	static const uint64_t cp[] = {100, 1024, 10240, 102400, 1048576};

	/* UD: the sizes that fit one datagram on any RoCE MTU */
	if (!g->sizes && o->transport == PERF_TRANSPORT_UD) {
		memcpy(o->sizes, cp, 2 * sizeof(cp[0]));
		o->nb_sizes = 2;
	} else if (!g->sizes) {
		memcpy(o->sizes, cp, sizeof(cp));
		o->nb_sizes = 5;
	}
	if (o->servers > 1) {
		if (g->qps && o->qps != o->servers) {
			fprintf(stderr, "rdx-perf: --servers %u and -q %u disagree (echo: one QP per server)\n",
				o->servers, o->qps);
			return -EINVAL;
		}
		o->qps = o->servers;
	}
	/* outstanding RPCs per client QP */
	o->window = g->concurrent || o->mode == PERF_MODE_LAT ? o->concurrent :
		(g->window ? o->window : 16);
	o->concurrent = o->window;
	return 0;
}

static void
echo_knobs(const struct perf_app *a, struct rdx_report *r)
{
	rdx_report_knob_set(r, "concurrent_ops", "%u", a->o.concurrent);
	rdx_report_knob_set(r, "servers", "%u", a->o.servers);
	rdx_report_knob_set(r, "request_size", "%u", PERF_ECHO_REQ);
}

static void
echo_desc(const struct perf_app *a, const char *size, char *buf, size_t len)
{
	(void)a;
	snprintf(buf, len, "send %uB message, receive %sB message", PERF_ECHO_REQ, size);
}

const struct rdx_perf_engine perf_engine_echo = {
	.name = "echo",
	.op = RDX_OP_SEND,
	.loop = { [PERF_MODE_LAT] = PERF_LOOP_PINGPONG, [PERF_MODE_BW] = PERF_LOOP_PINGPONG },
	.lat_kind = PERF_LAT_RTT,
	.req_size = PERF_ECHO_REQ,
	.ud = true,
	.defaults = echo_defaults,
	.report_knobs = echo_knobs,
	.desc = echo_desc,
};
PERF_ENGINE_REGISTER(perf_engine_echo)
