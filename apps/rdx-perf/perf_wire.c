/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Checks of what a two-process peer sends (perf_wire.h). A peer is not
 * trusted: every count, size, stride and enum is compared with the local
 * limits and with the buffers this process allocated before it is used, so
 * a bad message ends the bootstrap with one line instead of a division by
 * zero or a write past a buffer.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include "rdx_config.h"

#include "perf_wire.h"
#include "rpc_perf.h"

static inline uint64_t
wire_align64(uint64_t v)
{
	return (v + 63) & ~63ull;
}

static bool
is_pow2(uint64_t v)
{
	return v != 0 && (v & (v - 1)) == 0;
}

uint64_t
perf_plan_region_len(uint64_t max_size, uint32_t window, uint32_t keys, uint32_t qps_plan)
{
	uint64_t cap, region;

	/* send and receive buffers at both ends of every QP share the budget;
	 * fewer slots when it is tight, never less than one message */
	cap = PERF_MEM_BUDGET / (4ull * RTE_MAX(qps_plan, 1u));
	cap = RTE_MIN(cap, (uint64_t)PERF_REGION_CAP);
	region = max_size <= cap / RTE_MAX(window, 1u) ? max_size * window : cap;
	region = RTE_MAX(region, max_size);
	region = RTE_MAX(region, (uint64_t)keys * 8);
	region = RTE_MAX(region, (uint64_t)rte_align32pow2(window) * 8);
	return RTE_MAX(wire_align64(region), (uint64_t)4096);
}

uint32_t
perf_plan_slot_cap(uint32_t window, bool pingpong)
{
	return RTE_MAX(window, pingpong ? PERF_PINGPONG_SLOTS : 1u);
}

uint32_t
perf_plan_max_slots(uint32_t window, bool pingpong)
{
	return rte_align32pow2(perf_plan_slot_cap(window, pingpong));
}

uint32_t
perf_plan_rstride(uint64_t max_size, uint32_t head)
{
	uint64_t s = wire_align64(RTE_MAX(max_size, (uint64_t)PERF_ECHO_REQ) + head);

	return s > UINT32_MAX ? 0 : (uint32_t)s;
}

/* A fixed-size string field: NUL-terminated, printed with only printable bytes. */
static bool
str_ok(const char *s, size_t n)
{
	return memchr(s, '\0', n) != NULL;
}

static const char *
str_show(const char *s, size_t n, char *out, size_t out_len)
{
	size_t i;

	for (i = 0; i < n && i + 1 < out_len && s[i] != '\0'; i++)
		out[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	out[i] = '\0';
	return out;
}

static int
fail(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int
fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && len > 0) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return -EPROTO;
}

static uint64_t
max_size_of(const uint64_t *sizes, unsigned int n)
{
	uint64_t m = 0;
	unsigned int i;

	for (i = 0; i < n && i < PERF_MAX_SIZES; i++)
		m = RTE_MAX(m, sizes[i]);
	return m;
}

int
perf_wire_config_check(const struct wire_config *me, const struct wire_config *peer,
		       char *err, size_t len)
{
	char pv[20], pt[20];
	unsigned int i;

	if (peer->magic != PERF_WIRE_MAGIC)
		return fail(err, len, "peer sent CONFIG.magic 0x%08x, expected 0x%08x: not an rdx-perf peer",
			    peer->magic, PERF_WIRE_MAGIC);
	if (!str_ok(peer->app_version, sizeof(peer->app_version)))
		return fail(err, len, "peer sent CONFIG.app_version '%s' without a terminating NUL",
			    str_show(peer->app_version, sizeof(peer->app_version), pv, sizeof(pv)));
	if (peer->version != me->version || strcmp(peer->app_version, me->app_version) != 0)
		return fail(err, len, "peer runs another version (rdx-perf %s, wire %u; we run %s, wire %u)",
			    str_show(peer->app_version, sizeof(peer->app_version), pv, sizeof(pv)),
			    peer->version, me->app_version, me->version);
	if (!str_ok(peer->test, sizeof(peer->test)))
		return fail(err, len, "peer sent CONFIG.test '%s' without a terminating NUL",
			    str_show(peer->test, sizeof(peer->test), pt, sizeof(pt)));
	if (peer->mode != PERF_MODE_LAT && peer->mode != PERF_MODE_BW)
		return fail(err, len, "peer sent CONFIG.mode %u: expected %u (lat) or %u (bw)",
			    peer->mode, PERF_MODE_LAT, PERF_MODE_BW);
	if (strcmp(peer->test, me->test) != 0 || peer->mode != me->mode)
		return fail(err, len, "peer runs test %s --mode %s, we run %s --mode %s",
			    str_show(peer->test, sizeof(peer->test), pt, sizeof(pt)),
			    peer->mode == PERF_MODE_LAT ? "lat" : "bw", me->test,
			    me->mode == PERF_MODE_LAT ? "lat" : "bw");
	if (peer->transport >= PERF_TRANSPORT_MAX)
		return fail(err, len, "peer sent CONFIG.transport %u: expected %u (rc) .. %u (homa+infud)",
			    peer->transport, PERF_TRANSPORT_RC, PERF_TRANSPORT_MAX - 1);
	if (peer->transport != me->transport)
		return fail(err, len, "peer runs --transport %s, we run --transport %s",
			    perf_transport_name(peer->transport), perf_transport_name(me->transport));
	if ((peer->flags & ~(PERF_WIRE_F_RDMA_CM | PERF_WIRE_F_BIDIR)) != 0)
		return fail(err, len, "peer sent CONFIG.flags %u: expected bits %u (-R) and %u (-b) only",
			    peer->flags, PERF_WIRE_F_RDMA_CM, PERF_WIRE_F_BIDIR);
	if ((peer->flags ^ me->flags) & PERF_WIRE_F_RDMA_CM)
		return fail(err, len, "peer %s -R (rdma_cm), we %s: give -R to both ends or to neither",
			    peer->flags & PERF_WIRE_F_RDMA_CM ? "runs" : "does not run",
			    me->flags & PERF_WIRE_F_RDMA_CM ? "do" : "do not");
	if ((peer->flags ^ me->flags) & PERF_WIRE_F_BIDIR)
		return fail(err, len, "peer %s -b (bidirectional), we %s: give -b to both ends or to neither",
			    peer->flags & PERF_WIRE_F_BIDIR ? "runs" : "does not run",
			    me->flags & PERF_WIRE_F_BIDIR ? "do" : "do not");
	if (peer->nb_sizes == 0 || peer->nb_sizes > PERF_MAX_SIZES)
		return fail(err, len, "peer sent CONFIG.nb_sizes %u: expected 1..%u",
			    peer->nb_sizes, PERF_MAX_SIZES);
	if (peer->nb_sizes != me->nb_sizes)
		return fail(err, len, "peer runs %u size(s) starting at %" PRIu64 " B, we run %u starting at %" PRIu64 " B",
			    peer->nb_sizes, peer->sizes[0], me->nb_sizes, me->sizes[0]);
	for (i = 0; i < me->nb_sizes; i++)
		if (peer->sizes[i] != me->sizes[i])
			return fail(err, len, "peer runs size %" PRIu64 " B as size %u of %u, we run %" PRIu64 " B",
				    peer->sizes[i], i + 1, me->nb_sizes, me->sizes[i]);
	return 0;
}

int
perf_wire_layout_check(const struct perf_app *a, const struct wire_config *peer,
		       char *err, size_t len)
{
	const struct rdx_dev_attr *at = a->attr;
	uint64_t maxsz = max_size_of(a->o.sizes, a->o.nb_sizes);
	uint64_t max_qps = (uint64_t)RDX_MAX_QPS_PER_LCORE * RDX_MAX_LCORES;
	uint64_t lo, hi;
	uint32_t rstride = perf_plan_rstride(maxsz, a->o.transport == PERF_TRANSPORT_UD ?
					     RDX_UD_GRH_BYTES : 0);

	if (at != NULL && at->max_qp != 0)
		max_qps = RTE_MIN(max_qps, (uint64_t)at->max_qp);
	if (peer->total_qps == 0 || peer->total_qps > max_qps)
		return fail(err, len, "peer sent CONFIG.total_qps %u: expected 1..%" PRIu64,
			    peer->total_qps, max_qps);
	if (peer->window == 0 || peer->window > PERF_WIRE_MAX_WINDOW ||
	    (at != NULL && at->max_qp_wr != 0 && peer->window > at->max_qp_wr))
		return fail(err, len, "peer sent CONFIG.window %u: expected 1..%u", peer->window,
			    at != NULL && at->max_qp_wr != 0 ?
			    RTE_MIN(at->max_qp_wr, PERF_WIRE_MAX_WINDOW) : PERF_WIRE_MAX_WINDOW);
	if (peer->keys == 0 || peer->keys > PERF_MAX_KEYS)
		return fail(err, len, "peer sent CONFIG.keys %u: expected 1..%u", peer->keys,
			    PERF_MAX_KEYS);
	if (peer->verify > 1)
		return fail(err, len, "peer sent CONFIG.verify %u: expected 0 or 1", peer->verify);
	if (rstride == 0 || peer->rstride != rstride)
		return fail(err, len, "peer sent CONFIG.rstride %u: the sizes give %u",
			    peer->rstride, rstride);
	if (!is_pow2(peer->sq_depth) || peer->sq_depth < 64 ||
	    peer->sq_depth < 2ull * peer->window || peer->sq_depth > PERF_WIRE_MAX_SQ_DEPTH ||
	    (at != NULL && at->max_qp_wr != 0 && peer->sq_depth > at->max_qp_wr))
		return fail(err, len, "peer sent CONFIG.sq_depth %u: expected a power of two, >= 64, >= 2 x window %u, <= %u",
			    peer->sq_depth, peer->window,
			    at != NULL && at->max_qp_wr != 0 ?
			    RTE_MIN(at->max_qp_wr, PERF_WIRE_MAX_SQ_DEPTH) : PERF_WIRE_MAX_SQ_DEPTH);
	/* at least one message, every key and every atomic result; at most
	 * what plan() gives for this layout (--mem dm only makes it smaller) */
	lo = RTE_MAX(wire_align64(maxsz), (uint64_t)peer->keys * 8);
	lo = RTE_MAX(lo, (uint64_t)peer->window * 8);
	hi = perf_plan_region_len(maxsz, peer->window, peer->keys, peer->total_qps);
	if (peer->region_len % 64 != 0 || peer->region_len < lo || peer->region_len > hi)
		return fail(err, len, "peer sent CONFIG.region_len %" PRIu64 ": expected a multiple of 64 in %" PRIu64 "..%" PRIu64,
			    peer->region_len, lo, hi);
	return 0;
}

int
perf_wire_ep_check(const struct perf_app *a, const struct wire_ep *w, char *err, size_t len)
{
	char s[52];

	if (!str_ok(w->qp.driver, sizeof(w->qp.driver)))
		return fail(err, len, "peer sent EP.qp.driver '%s' without a terminating NUL",
			    str_show(w->qp.driver, sizeof(w->qp.driver), s, sizeof(s)));
	/* qp.drv is the driver's own connection data: its connect checks it */
	{
		uint8_t want = a->o.transport == PERF_TRANSPORT_UD ? RDX_QP_UD : RDX_QP_RC;

		if (w->qp.qp_type != want)
			return fail(err, len, "peer sent EP.qp.qp_type %u: --transport %s needs %u",
				    w->qp.qp_type, want == RDX_QP_UD ? "ud" : "rc", want);
		if (want == RDX_QP_UD && (w->qp.qkey & 0x80000000u) != 0)
			return fail(err, len, "peer sent EP.qp.qkey 0x%08x: a controlled Q_Key (bit 31 set)",
				    w->qp.qkey);
	}
	if (w->len < a->region_len)
		return fail(err, len, "peer sent EP.len %" PRIu64 ": below the %" PRIu64 " bytes both ends planned",
			    w->len, a->region_len);
	if (w->rslots == 0) {
		if (w->rstride != 0)
			return fail(err, len, "peer sent EP.rstride %u with no receive slots",
				    w->rstride);
		return 0;
	}
	if (!is_pow2(w->rslots) || w->rslots > PERF_WIRE_MAX_WINDOW)
		return fail(err, len, "peer sent EP.rslots %u: expected a power of two <= %u",
			    w->rslots, PERF_WIRE_MAX_WINDOW);
	if (w->rstride != a->rstride)
		return fail(err, len, "peer sent EP.rstride %u: both ends planned %u", w->rstride,
			    a->rstride);
	return 0;
}

int
perf_wire_run_check(const struct perf_app *a, const struct wire_run *r, char *err, size_t len)
{
	bool atomic = a->eng != NULL && a->eng->atomic;
	uint64_t stride, req;
	uint32_t max_slots;
	unsigned int i;

	if (r->bye > 1)
		return fail(err, len, "peer sent RUN.bye %u: expected 0 or 1", r->bye);
	if (r->bye == 1)
		return 0;
	for (i = 0; i < a->o.nb_sizes && i < PERF_MAX_SIZES; i++)
		if (a->o.sizes[i] == r->size)
			break;
	if (r->size == 0 || i == a->o.nb_sizes || i == PERF_MAX_SIZES)
		return fail(err, len, "peer sent RUN.size %" PRIu64 ": not one of the %u size(s) set up (largest %" PRIu64 ")",
			    r->size, a->o.nb_sizes, max_size_of(a->o.sizes, a->o.nb_sizes));
	req = a->eng != NULL && a->eng->req_size != 0 ? a->eng->req_size : r->size;
	if (r->req_size != req)
		return fail(err, len, "peer sent RUN.req_size %" PRIu64 ": expected %" PRIu64,
			    r->req_size, req);
	stride = atomic ? 8 : wire_align64(r->size);
	if (stride > a->region_len || r->stride != stride)
		return fail(err, len, "peer sent RUN.stride %u: expected %" PRIu64 " for size %" PRIu64 " within %" PRIu64 " buffer bytes",
			    r->stride, stride, r->size, a->region_len);
	max_slots = perf_plan_max_slots(a->window, a->eng != NULL &&
					perf_engine_loop(a->eng, a->o.mode) == PERF_LOOP_PINGPONG);
	if (!is_pow2(r->slots) || r->slots > max_slots ||
	    (uint64_t)r->slots * r->stride > a->region_len)
		return fail(err, len, "peer sent RUN.slots %u: expected a power of two <= %u with slots x stride %u <= %" PRIu64 " buffer bytes",
			    r->slots, max_slots, r->stride, a->region_len);
	if (r->qps == 0 || r->qps > a->total_qps)
		return fail(err, len, "peer sent RUN.qps %u: expected 1..%u", r->qps, a->total_qps);
	return 0;
}

int
perf_wire_ready_check(const struct wire_run *sent, const struct wire_run *got, char *err,
		      size_t len)
{
	if (memcmp(sent, got, sizeof(*sent)) != 0)
		return fail(err, len, "peer sent READY for size %" PRIu64 ", stride %u, slots %u, %u QPs; we asked for %" PRIu64 ", %u, %u, %u",
			    got->size, got->stride, got->slots, got->qps, sent->size,
			    sent->stride, sent->slots, sent->qps);
	return 0;
}

uint32_t
perf_wire_peak_kib(double bytes_per_s)
{
	double k = bytes_per_s / 1024.0 + 0.5;

	if (!(bytes_per_s > 0))  /* also NaN */
		return 0;
	if (k < 1.0)             /* measured, below 1 KiB/s: not "not measured" */
		return 1;
	return k >= (double)UINT32_MAX ? UINT32_MAX : (uint32_t)k;
}

double
perf_wire_peak_bytes(uint32_t kib)
{
	return (double)kib * 1024.0;
}

int
perf_wire_end_check(const struct wire_end *e, const struct wire_end_expect *x, char *err,
		    size_t len)
{
	uint64_t hi;

	if (e->status > 0 || e->status < -4095)
		return fail(err, len, "peer sent ENDACK.status %" PRId32 ": expected 0 or a negative errno",
			    e->status);
	if (e->peak_kib != 0 && (!x->bidir || e->status != 0))
		return fail(err, len, "peer sent ENDACK.peak_kib %u %s: expected 0",
			    e->peak_kib, x->bidir ? "for a failed run" : "without -b");
	if (!x->bidir) {
		if ((e->ops | e->bytes | e->ns | e->qps | e->lcores) != 0)
			return fail(err, len, "peer sent ENDACK.ops %" PRIu64 " bytes %" PRIu64 " ns %" PRIu64 " qps %u lcores %u without -b: expected 0",
				    e->ops, e->bytes, e->ns, e->qps, e->lcores);
		return 0;
	}
	if (e->status != 0) /* a failed run: its counts are not reported */
		return 0;
	if (e->qps != x->qps)
		return fail(err, len, "peer sent ENDACK.qps %u: the run has %u QPs", e->qps, x->qps);
	if (e->lcores == 0 || e->lcores > RDX_MAX_LCORES)
		return fail(err, len, "peer sent ENDACK.lcores %u: expected 1..%u", e->lcores,
			    RDX_MAX_LCORES);
	hi = x->iters != 0 && x->iters < UINT64_MAX / 2 / RTE_MAX(x->qps, 1u) ?
		(x->iters + 1) * (uint64_t)x->qps : UINT64_MAX;
	if (e->ops == 0 || e->ops > hi)
		return fail(err, len, "peer sent ENDACK.ops %" PRIu64 ": expected 1..%" PRIu64 " (-b: the server's measured ops)",
			    e->ops, hi);
	if (x->size == 0 || e->ops > UINT64_MAX / x->size || e->bytes != e->ops * x->size)
		return fail(err, len, "peer sent ENDACK.bytes %" PRIu64 ": %" PRIu64 " ops of %" PRIu64 " B make %" PRIu64,
			    e->bytes, e->ops, x->size,
			    x->size != 0 && e->ops <= UINT64_MAX / x->size ? e->ops * x->size : 0);
	if (e->ns == 0 || e->ns > PERF_WIRE_MAX_RUN_NS)
		return fail(err, len, "peer sent ENDACK.ns %" PRIu64 ": expected 1..%" PRIu64,
			    e->ns, (uint64_t)PERF_WIRE_MAX_RUN_NS);
	return 0;
}

int
perf_wire_rpc_check(const struct perf_app *a, const struct wire_rpc *w, char *err, size_t len)
{
	uint64_t lo = RTE_MAX(max_size_of(a->o.sizes, a->o.nb_sizes),
			      (uint64_t)RDX_RPC_DEFAULT_MAX_MSG);

	if (w->clients == 0 || w->clients > PERF_RPC_MAX_CLIENTS)
		return fail(err, len, "peer sent RPC.clients %u: expected 1..%u", w->clients,
			    PERF_RPC_MAX_CLIENTS);
	if (w->servers == 0 || w->servers > PERF_RPC_MAX_SERVERS || w->servers > w->clients)
		return fail(err, len, "peer sent RPC.servers %u: expected 1..%u (and <= %u clients)",
			    w->servers, PERF_RPC_MAX_SERVERS, w->clients);
	if (w->slots < 8 || w->slots > PERF_RPC_MAX_SLOTS)
		return fail(err, len, "peer sent RPC.slots %u: expected 8..%u", w->slots,
			    PERF_RPC_MAX_SLOTS);
	if (w->concurrent == 0 || w->concurrent > w->slots)
		return fail(err, len, "peer sent RPC.concurrent %u: expected 1..%u (slots)",
			    w->concurrent, w->slots);
	if (w->max_msg < lo || w->max_msg > RDX_RPC_MAX_MAX_MSG)
		return fail(err, len, "peer sent RPC.max_msg %u: expected %" PRIu64 "..%u",
			    w->max_msg, lo, RDX_RPC_MAX_MAX_MSG);
	if (w->verify > 1)
		return fail(err, len, "peer sent RPC.verify %u: expected 0 or 1", w->verify);
	if (w->nb_mix > PERF_MAX_MIX)
		return fail(err, len, "peer sent RPC.nb_mix %u: expected 0..%u", w->nb_mix,
			    PERF_MAX_MIX);
	if (w->pad != 0)
		return fail(err, len, "peer sent RPC.pad %u: expected 0", w->pad);
	return 0;
}

int
perf_wire_rpc_run_check(const struct perf_app *a, const struct wire_rpc_run *r, char *err,
			size_t len)
{
	unsigned int i;

	if (r->bye > 1)
		return fail(err, len, "peer sent RPC_RUN.bye %u: expected 0 or 1", r->bye);
	if (r->pad != 0)
		return fail(err, len, "peer sent RPC_RUN.pad %u: expected 0", r->pad);
	if (r->bye == 1 || r->size == 0)
		return 0;
	for (i = 0; i < a->o.nb_sizes && i < PERF_MAX_SIZES; i++)
		if (a->o.sizes[i] == r->size)
			return 0;
	return fail(err, len, "peer sent RPC_RUN.size %" PRIu64 ": not 0 (mix) nor one of the %u size(s) set up",
		    r->size, a->o.nb_sizes);
}

int
perf_wire_rpc_end_check(const struct wire_rpc_end *e, char *err, size_t len)
{
	if (e->status > 0 || e->status < -4095)
		return fail(err, len, "peer sent RPC_ENDACK.status %" PRId32 ": expected 0 or a negative errno",
			    e->status);
	if (e->pad != 0)
		return fail(err, len, "peer sent RPC_ENDACK.pad %u: expected 0", e->pad);
	return 0;
}
