/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: rdx-perf's checks of what a two-process peer sends
 * (apps/rdx-perf/perf_wire.h). The first input byte picks the message, the
 * next bytes the local plan (sizes, window, QPs, engine), the rest is the
 * peer's message. Whenever a check accepts, the fields the setup code then
 * uses must fit the local plan: a message accepted with a size, stride or
 * slot count outside the buffers planned here aborts (a finding).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_wire.h"
#include "rpc_perf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct rdx_perf_engine eng_plain = { .name = "write", .op = RDX_OP_WRITE };
static const struct rdx_perf_engine eng_atomic = { .name = "faa", .op = RDX_OP_FAA,
						   .atomic = true };
static const struct rdx_perf_engine eng_echo = { .name = "echo", .op = RDX_OP_SEND,
						 .req_size = PERF_ECHO_REQ };

static void
take(void *dst, size_t n, const uint8_t **p, size_t *left)
{
	size_t k = n < *left ? n : *left;

	memset(dst, 0, n);
	memcpy(dst, *p, k);
	*p += k;
	*left -= k;
}

static void
finding(const char *what)
{
	fprintf(stderr, "fuzz_perf_wire: accepted %s\n", what);
	abort();
}

/* A local plan as plan() makes it: 1..4 sizes, window, QPs, one engine. */
static void
local_plan(struct perf_app *a, struct rdx_dev_attr *at, const uint8_t **p, size_t *left)
{
	uint8_t k[8];
	unsigned int i;

	take(k, sizeof(k), p, left);
	memset(a, 0, sizeof(*a));
	memset(at, 0, sizeof(*at));
	at->max_qp = 4096;
	at->max_qp_wr = 8192;
	a->attr = at;
	a->eng = k[0] % 3 == 0 ? &eng_plain : k[0] % 3 == 1 ? &eng_atomic : &eng_echo;
	a->o.nb_sizes = 1u + k[1] % 4u;
	for (i = 0; i < a->o.nb_sizes; i++)
		a->o.sizes[i] = a->eng->atomic ? 8 : 1ull << ((k[2 + i] % 21u));
	a->window = 1u + k[6] % 128u;
	a->total_qps = 1u + k[7] % 16u;
	a->o.window = a->window;
	a->region_len = perf_plan_region_len(a->o.sizes[0] > a->o.sizes[a->o.nb_sizes - 1] ?
					     a->o.sizes[0] : a->o.sizes[a->o.nb_sizes - 1],
					     a->window, 1, a->total_qps);
	for (i = 0; i < a->o.nb_sizes; i++)
		if ((a->o.sizes[i] + 63) / 64 * 64 > a->region_len)
			a->region_len = (a->o.sizes[i] + 63) / 64 * 64;
	a->rstride = perf_plan_rstride(a->o.sizes[a->o.nb_sizes - 1], 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data;
	size_t left = size;
	struct rdx_dev_attr at;
	struct perf_app a;
	char err[256];
	uint8_t which;

	if (size < 1)
		return 0;
	take(&which, 1, &p, &left);
	local_plan(&a, &at, &p, &left);
	switch (which % 9) {
	case 0: {
		struct wire_config me, peer;

		memset(&me, 0, sizeof(me));
		me.magic = PERF_WIRE_MAGIC;
		me.version = 1;
		snprintf(me.app_version, sizeof(me.app_version), "0.1.0");
		snprintf(me.test, sizeof(me.test), "%s", a.eng->name);
		me.mode = PERF_MODE_BW;
		me.nb_sizes = a.o.nb_sizes;
		memcpy(me.sizes, a.o.sizes, sizeof(me.sizes));
		take(&peer, sizeof(peer), &p, &left);
		if (perf_wire_config_check(&me, &peer, err, sizeof(err)) == 0 &&
		    (peer.nb_sizes != me.nb_sizes || memchr(peer.test, 0, sizeof(peer.test)) == NULL ||
		     memchr(peer.app_version, 0, sizeof(peer.app_version)) == NULL))
			finding("a CONFIG that differs from ours");
		break;
	}
	case 1: {
		struct wire_config peer;

		take(&peer, sizeof(peer), &p, &left);
		if (perf_wire_layout_check(&a, &peer, err, sizeof(err)) == 0 &&
		    (peer.total_qps == 0 || peer.total_qps > at.max_qp || peer.window == 0 ||
		     peer.window > at.max_qp_wr || peer.sq_depth > at.max_qp_wr ||
		     peer.region_len % 64 != 0 || peer.keys == 0))
			finding("a CONFIG layout beyond the device's limits");
		break;
	}
	case 2: {
		struct wire_ep ep;

		take(&ep, sizeof(ep), &p, &left);
		if (perf_wire_ep_check(&a, &ep, err, sizeof(err)) == 0 &&
		    (ep.len < a.region_len || memchr(ep.qp.driver, 0, sizeof(ep.qp.driver)) == NULL ||
		     (ep.rslots != 0 && ep.rstride != a.rstride)))
			finding("an EP that does not fit the plan");
		break;
	}
	case 3: {
		struct wire_run r;

		take(&r, sizeof(r), &p, &left);
		if (perf_wire_run_check(&a, &r, err, sizeof(err)) == 0 && r.bye == 0) {
			unsigned int i, known = 0;

			for (i = 0; i < a.o.nb_sizes; i++)
				known |= a.o.sizes[i] == r.size;
			/* what perf_run_prepare and the pattern fill then use */
			if (!known || r.stride == 0 || r.slots == 0 ||
			    (uint64_t)r.stride * r.slots > a.region_len ||
			    (!a.eng->atomic && r.stride < r.size) || r.qps == 0 ||
			    r.qps > a.total_qps)
				finding("a RUN outside the planned buffers");
		}
		break;
	}
	case 4: {
		struct wire_run sent, got;

		take(&sent, sizeof(sent), &p, &left);
		take(&got, sizeof(got), &p, &left);
		if (perf_wire_ready_check(&sent, &got, err, sizeof(err)) == 0 &&
		    memcmp(&sent, &got, sizeof(sent)) != 0)
			finding("a READY that differs from the RUN");
		break;
	}
	case 6: {
		struct wire_rpc w;

		take(&w, sizeof(w), &p, &left);
		/* what rpc_boot.c's server then sizes its endpoints with */
		if (perf_wire_rpc_check(&a, &w, err, sizeof(err)) == 0 &&
		    (w.clients == 0 || w.clients > PERF_RPC_MAX_CLIENTS || w.servers == 0 ||
		     w.servers > w.clients || w.slots > PERF_RPC_MAX_SLOTS ||
		     w.concurrent > w.slots || w.max_msg > RDX_RPC_MAX_MAX_MSG ||
		     w.max_msg < RDX_RPC_DEFAULT_MAX_MSG))
			finding("an RPC layout beyond lib/rpc's limits");
		break;
	}
	case 7: {
		struct wire_rpc_run r;

		take(&r, sizeof(r), &p, &left);
		if (perf_wire_rpc_run_check(&a, &r, err, sizeof(err)) == 0 && r.bye > 1)
			finding("an RPC_RUN with bye > 1");
		break;
	}
	case 8: {
		struct wire_rpc_end e;

		take(&e, sizeof(e), &p, &left);
		if (perf_wire_rpc_end_check(&e, err, sizeof(err)) == 0 &&
		    (e.status > 0 || e.status < -4095 || e.pad != 0))
			finding("an RPC_ENDACK status that is not 0 or -errno");
		break;
	}
	default: {
		struct wire_end e;
		struct wire_end_expect x = {
			.bidir = (which & 0x80) != 0, .qps = a.total_qps, .size = a.o.sizes[0],
			.iters = (which & 0x40) != 0 ? 1000 : 0,
		};

		take(&e, sizeof(e), &p, &left);
		if (perf_wire_end_check(&e, &x, err, sizeof(err)) != 0)
			break;
		if (e.status > 0 || e.status < -4095)
			finding("an ENDACK status that is not 0 or -errno");
		if (!x.bidir && (e.ops | e.bytes | e.ns | e.qps | e.lcores) != 0)
			finding("ENDACK loop counts without -b");
		/* what the report then divides by and sums (report.c bidir_rows) */
		if (x.bidir && e.status == 0 &&
		    (e.ops == 0 || e.ns == 0 || e.qps != x.qps || e.lcores == 0 ||
		     e.bytes / x.size != e.ops || e.bytes % x.size != 0 ||
		     (x.iters != 0 && e.ops > (x.iters + 1) * x.qps)))
			finding("-b ENDACK counts that do not fit the run");
		break;
	}
	}
	return 0;
}
