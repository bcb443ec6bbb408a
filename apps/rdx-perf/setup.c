/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Control path of rdx-perf in this process: endpoints (QP, CQs, buffers),
 * connecting them in one process (--loopback), and the layout of each run.
 * Two processes: boot.c bootstraps and serves over lib/conn, and connects an
 * endpoint to the peer an EP message describes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_common.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "rdx_boot.h"
#include "rdx_config.h"
#include "rdx_conn.h"
#include "rdx_report.h"
#include "rdx_runtime.h"

#include "perf_app.h"
#include "perf_mpi.h"
#include "perf_opts.h"
#include "perf_wire.h"

static inline uint64_t
align64(uint64_t v)
{
	return (v + 63) & ~63ull;
}

int
perf_boot_ms(const struct perf_app *a)
{
	return (int)(a->o.boot_timeout * 1000);
}

static bool
pingpong(const struct perf_app *a)
{
	return perf_engine_loop(a->eng, a->o.mode) == PERF_LOOP_PINGPONG;
}

/* Ping-pong: both ends take messages; a stream: the responder when it
 * consumes receives. */
static bool
needs_rbuf(const struct perf_app *a, bool responder)
{
	/* -b across processes: both ends consume the other's messages */
	return pingpong(a) || ((responder || perf_bidir_procs(a)) && a->eng->server_recv);
}

/* poll_memory: messages are seen in the buffer, no receive WRs */
static bool
posts_recvs(const struct perf_app *a, const struct perf_ep *ep)
{
	return ep->rbuf != NULL && !a->eng->poll_memory;
}

/* Receive slots of an endpoint (0: no receive buffer). */
static uint32_t
ep_rslots(const struct perf_app *a, bool responder)
{
	uint64_t cap = RTE_MAX(a->region_cap / a->rstride, 1ull);
	uint32_t n;

	if (!needs_rbuf(a, responder))
		return 0;
	if (responder || perf_bidir_procs(a)) {
		n = (uint32_t)rte_align64prevpow2(RTE_MIN((uint64_t)a->o.rx_depth, cap));
		/* ping-pong: a receive for every request in flight */
		if (n < rte_align32pow2(a->window) && pingpong(a))
			n = rte_align32pow2(a->window);
	} else {
		n = rte_align32pow2(RTE_MAX(a->window, 1u));
		/* UD: a late answer and the answer to its re-sent request both
		 * take a receive; with one receive per op in flight the next
		 * answer would find none and be dropped (no RNR on UD), and so
		 * on: room for stragglers */
		if (a->o.transport == PERF_TRANSPORT_UD)
			n = RTE_MAX(n, 64u);
		/* SEND ping-pong: up to 16 receives, not one per op in flight,
		 * so the responder finds them posted a lap ahead; with one, each
		 * answer meets the receive reposted just before (on the software
		 * device: the lines of the RQ doorbell record and of the WQE,
		 * just written by this process, which the peer must fetch) */
		if (!a->eng->poll_memory)
			n = RTE_MAX(n, (uint32_t)rte_align64prevpow2(RTE_MIN(16ull, cap)));
	}
	return n == 0 ? 1 : n;
}

static uint32_t
ep_rq_depth(const struct perf_app *a, bool responder)
{
	return !a->eng->poll_memory ? ep_rslots(a, responder) : 0;
}

static int
cqg_get(struct perf_app *a, struct perf_cqg *g, uint32_t rq_depth)
{
	struct rdx_cq_conf cc;

	if (g->refs++ > 0)
		return 0;
	memset(&cc, 0, sizeof(cc));
	cc.events = a->o.events;
	/* every member may have its whole send queue signaled and outstanding */
	cc.depth = a->sq_depth * g->nb_qps;
	g->scq = rdx_cq_create(a->dev, &cc);
	if (g->scq != NULL && rq_depth == 0) {
		/* no receives: one CQ serves both queues */
		g->rcq = g->scq;
	} else if (g->scq != NULL) {
		cc.depth = RTE_MAX(rq_depth * g->nb_qps, 16u);
		g->rcq = rdx_cq_create(a->dev, &cc);
	}
	if (g->scq == NULL || g->rcq == NULL) {
		if (rte_errno == ENOSPC) {
			fprintf(stderr, "rdx-perf: device %s ran out of CQs: use fewer QPs or lcores\n",
				a->attr->name);
			return -EINVAL;
		}
		fprintf(stderr, "rdx-perf: cannot create a CQ of %u entries: %s\n", cc.depth,
			rte_strerror(rte_errno));
		return -ENOMEM;
	}
	return 0;
}

static void
cqg_put(struct perf_cqg *g)
{
	if (g == NULL || g->refs == 0 || --g->refs > 0)
		return;
	if (g->rcq != NULL && g->rcq != g->scq)
		rdx_cq_destroy(g->rcq);
	if (g->scq != NULL)
		rdx_cq_destroy(g->scq);
	g->scq = NULL;
	g->rcq = NULL;
}

/* Appended to an allocation failure: what bounds memory on this device. */
static const char *
mem_hint(const struct perf_app *a)
{
	if (rte_errno == ENOMEM && a->o.mem == RDX_MEM_DM)
		return " (--mem dm: the device memory is shared by every buffer of the"
			" process and allocated in whole pages on the software device:"
			" fewer QPs (-q) or --mem host)";
	if (rte_errno == ENOMEM && a->attr != NULL && a->attr->software)
		return " (the software device's shared segment holds 2 GiB in all:"
			" fewer QPs (-q), a smaller window (-t) or smaller messages)";
	if (rte_errno == ENOTSUP && a->o.mem == RDX_MEM_HUGE)
		return " (no hugepages: EAL has none and the kernel's pool is empty;"
			" reserve some in /proc/sys/vm/nr_hugepages or use --mem host)";
	return "";
}

/* rdx_qp_conf.post_lcore of endpoint i: the lcore that posts to it in
 * perf_run_prepare's layout (telemetry's /rdx/qp_list shows it; an lcore's
 * QPs share its doorbell register). None for a server end of split with -b,
 * which two lcores use. */
static uint32_t
ep_post_lcore(const struct perf_app *a, uint32_t i, bool responder)
{
	if (!a->client)
		return RDX_QP_POST_LCORE(a->lcore_ids[i % a->nb_lcores]);
	if (responder && a->o.split)
		return a->o.bidir ? 0 : RDX_QP_POST_LCORE(rte_get_main_lcore());
	return RDX_QP_POST_LCORE(a->lcore_ids[i / RTE_MAX(a->max_qps, 1u)]);
}

static int
ep_init(struct perf_app *a, struct perf_ep *ep, uint32_t index, bool responder,
	struct perf_cqg *g)
{
	const struct perf_opts *o = &a->o;
	struct rdx_qp_conf qc;
	uint32_t ring;
	int rc;

	memset(ep, 0, sizeof(*ep));
	ep->index = index;
	ep->sq_depth = a->sq_depth;
	ep->rslots = ep_rslots(a, responder);
	if (ep->rslots != 0) {
		ep->rstride = a->rstride;
		ep->rbuf = rdx_dev_mem_alloc(a->dev, (size_t)ep->rslots * ep->rstride, RDX_MEM_HOST,
					     RDX_ACCESS_ALL);
		if (ep->rbuf == NULL) {
			fprintf(stderr, "rdx-perf: cannot allocate %u x %u receive bytes: %s%s\n",
				ep->rslots, ep->rstride, rte_strerror(rte_errno), mem_hint(a));
			return -ENOMEM;
		}
		if (ep->rbuf->addr != NULL)
			memset(ep->rbuf->addr, 0, ep->rbuf->len);
		ep->rq_depth = ep_rq_depth(a, responder);
	}
	if (responder && a->eng->atomic) {
		ep->buf = a->shared;
	} else {
		ep->buf = rdx_dev_mem_alloc(a->dev, a->region_len, o->mem, RDX_ACCESS_ALL);
		if (ep->buf == NULL) {
			fprintf(stderr, "rdx-perf: cannot allocate %" PRIu64 " bytes of %s memory: %s%s\n",
				a->region_len, rdx_mem_type_name(o->mem), rte_strerror(rte_errno),
				mem_hint(a));
			/* a memory type the device cannot give: bad input (exit 2) */
			return rte_errno == ENOTSUP ? -EINVAL : -ENOMEM;
		}
	}
	if (perf_bidir_procs(a)) {
		/* -b across processes: the peer's ops target a buffer of their own */
		ep->tbuf = rdx_dev_mem_alloc(a->dev, a->region_len, o->mem, RDX_ACCESS_ALL);
		if (ep->tbuf == NULL) {
			fprintf(stderr, "rdx-perf: cannot allocate %" PRIu64 " bytes of %s memory (-b target): %s%s\n",
				a->region_len, rdx_mem_type_name(o->mem), rte_strerror(rte_errno),
				mem_hint(a));
			return rte_errno == ENOTSUP ? -EINVAL : -ENOMEM;
		}
	}
	ep->cqg = g;
	rc = cqg_get(a, g, ep->rq_depth);
	if (rc < 0)
		return rc;
	ep->sring.mask = rte_align32pow2(ep->sq_depth) - 1;
	ep->rring.mask = rte_align32pow2(RTE_MAX(ep->rq_depth, 1u)) - 1;
	ep->sring.wc = calloc((size_t)ep->sring.mask + 1, sizeof(struct rdx_wc));
	ep->rring.wc = calloc((size_t)ep->rring.mask + 1, sizeof(struct rdx_wc));
	if (ep->sring.wc == NULL || ep->rring.wc == NULL)
		return -ENOMEM;
	memset(&qc, 0, sizeof(qc));
	qc.send_cq = g->scq;
	qc.recv_cq = g->rcq;
	qc.sq_depth = ep->sq_depth;
	qc.rq_depth = ep->rq_depth;
	qc.max_send_sge = 1;
	qc.max_recv_sge = 1;
	qc.max_inline = o->inline_max;
	if (o->transport == PERF_TRANSPORT_UD) {
		/* datagrams: the peer is named per WR (rdx_wr.ah) */
		qc.type = RDX_QP_UD;
		qc.qkey = PERF_UD_QKEY;
		qc.max_inline = RTE_MIN(qc.max_inline, a->attr->max_ud_msg);
	}
	qc.sig_interval = (uint16_t)RTE_MIN(o->sig_every, 65535u);
	/* -Q is applied by the stream loop (stream.c), the driver only guarantees it */
	qc.sig_burst_end = false;
	/* completions on the shared CQs find their endpoint through this */
	qc.user_ctx = ep;
	qc.post_lcore = ep_post_lcore(a, index, responder);
	ep->qp = rdx_qp_create(a->dev, &qc);
	if (ep->qp == NULL) {
		fprintf(stderr, "rdx-perf: cannot create QP %u (sq %u, rq %u, inline %u): %s\n",
			index, qc.sq_depth, qc.rq_depth, qc.max_inline, rte_strerror(rte_errno));
		return -EINVAL;
	}
	ep->inline_max = ep->qp->conf.max_inline;
	/* inline copies from a host address: device memory has none */
	if (ep->buf->addr == NULL)
		ep->inline_max = 0;
	ring = rte_align32pow2(RTE_MAX(ep->sq_depth, a->window) * 2);
	ep->ring_mask = ring - 1;
	ep->post_tsc = calloc(ring, sizeof(uint64_t));
	ep->aux = calloc(ring, sizeof(uint64_t));
	ep->aux32 = calloc(ring, sizeof(uint32_t));
	ep->log_idx = calloc(ring, sizeof(uint32_t));
	ep->cas_next = calloc(o->keys, sizeof(uint64_t));
	ep->seen = calloc(ring, 1);
	if (ep->post_tsc == NULL || ep->aux == NULL || ep->aux32 == NULL ||
	    ep->log_idx == NULL || ep->cas_next == NULL || ep->seen == NULL)
		return -ENOMEM;
	if (o->transport == PERF_TRANSPORT_UD) {
		/* no op taken yet: an op number no run reaches */
		ep->ud_ops = malloc((size_t)ring * sizeof(uint64_t));
		if (ep->ud_ops == NULL)
			return -ENOMEM;
		memset(ep->ud_ops, 0xff, (size_t)ring * sizeof(uint64_t));
	}
	ep->next_key = index % o->keys;
	ep->sig_left = o->sig_every;
	return 0;
}

static void
ep_fini(struct perf_app *a, struct perf_ep *ep)
{
	if (ep->qp != NULL)
		rdx_qp_destroy(ep->qp);
	if (ep->ah != NULL)
		rdx_ah_destroy(ep->ah);
	/* the last member destroys the CQs, after every member's QP */
	cqg_put(ep->cqg);
	if (ep->buf != a->shared)
		rdx_dev_mem_free(ep->buf);
	rdx_dev_mem_free(ep->rbuf);
	rdx_dev_mem_free(ep->tbuf);
	free(ep->sring.wc);
	free(ep->rring.wc);
	free(ep->post_tsc);
	free(ep->aux);
	free(ep->aux32);
	free(ep->log_idx);
	free(ep->cas_next);
	free(ep->seen);
	free(ep->ud_ops);
	memset(ep, 0, sizeof(*ep));
}

/* Sizes, depths and the lcore layout; called before endpoints exist. */
static void
plan(struct perf_app *a)
{
	const struct perf_opts *o = &a->o;
	uint64_t maxsz = 0;
	unsigned int i;

	for (i = 0; i < o->nb_sizes; i++)
		maxsz = RTE_MAX(maxsz, o->sizes[i]);
	a->max_qps = perf_sweep_last(o);
	a->max_qps_plan = RTE_MAX(a->max_qps * a->nb_lcores, 1u);
	a->window = o->window;
	/* send and receive buffers at both ends of every QP share the budget;
	 * fewer slots when it is tight, never less than one message */
	a->region_cap = PERF_MEM_BUDGET / (4ull * a->max_qps_plan);
	a->region_cap = RTE_MIN(a->region_cap, (uint64_t)PERF_REGION_CAP);
	/* the server checks a client's plan with the same functions (perf_wire.c) */
	/* --keys / --key-stride in one process: the buffer holds every key
	 * (the keys term of the plan is in 8-byte units); across two the
	 * server checks the plan of --keys alone (main.c says when the keys
	 * do not fit it) */
	a->region_len = perf_plan_region_len(maxsz, a->window,
					     o->server || o->connect != NULL ? o->keys :
					     (uint32_t)((perf_key_span(o, maxsz) + 7) / 8),
					     a->max_qps_plan);
	a->rstride = perf_plan_rstride(maxsz, o->transport == PERF_TRANSPORT_UD ?
				       RDX_UD_GRH_BYTES : 0);
	a->sq_depth = rte_align32pow2(RTE_MAX(RTE_MAX(a->window, o->post_list) * 2,
					      RTE_MAX(o->sig_every * 2, 64u)));
}

/* The CQ group of endpoint i: the lcore that polls it (see
 * perf_run_prepare), cut into slices whose CQs fit the device's max_cqe.
 * Groups are numbered below total_qps + nb_lcores. */
static uint32_t
cqg_index(const struct perf_app *a, uint32_t i, bool responder)
{
	uint32_t per, l, j, gsz, gpl;
	uint64_t d = RTE_MAX((uint64_t)a->sq_depth, (uint64_t)ep_rq_depth(a, responder));

	if (a->client) {
		/* loopback and client process: lcore l runs [l * max_qps, +max_qps) */
		per = RTE_MAX(a->max_qps, 1u);
		l = i / per;
		j = i % per;
	} else {
		/* server process: lcore i % nb_lcores serves QP i */
		per = (a->total_qps + a->nb_lcores - 1) / a->nb_lcores;
		l = i % a->nb_lcores;
		j = i / a->nb_lcores;
	}
	gsz = per;
	if (a->attr->max_cqe != 0 && d * per > a->attr->max_cqe)
		gsz = (uint32_t)RTE_MAX(a->attr->max_cqe / d, 1ull);
	gpl = (per + gsz - 1) / gsz;
	return l * gpl + j / gsz;
}

int
perf_alloc_eps(struct perf_app *a)
{
	unsigned int i;
	int rc;

	if (a->eng->atomic && a->responder) {
		a->shared = rdx_dev_mem_alloc(a->dev, a->region_len, a->o.mem, RDX_ACCESS_ALL);
		if (a->shared == NULL) {
			fprintf(stderr, "rdx-perf: cannot allocate the key region: %s%s\n",
				rte_strerror(rte_errno), mem_hint(a));
			return rte_errno == ENOTSUP ? -EINVAL : -ENOMEM;
		}
		{
			static const uint8_t zero[4096];
			uint64_t off;

			for (off = 0; off < a->region_len; off += sizeof(zero))
				rdx_dev_mem_copy_to(a->shared, off, zero,
						    RTE_MIN(sizeof(zero), a->region_len - off));
		}
	}
	a->cli = calloc(a->total_qps, sizeof(*a->cli));
	a->srv = calloc(a->total_qps, sizeof(*a->srv));
	a->cqg_cli = calloc(a->total_qps + a->nb_lcores, sizeof(*a->cqg_cli));
	a->cqg_srv = calloc(a->total_qps + a->nb_lcores, sizeof(*a->cqg_srv));
	a->key_total = calloc(a->o.keys, sizeof(uint64_t));
	if (a->cli == NULL || a->srv == NULL || a->cqg_cli == NULL || a->cqg_srv == NULL ||
	    a->key_total == NULL)
		return -ENOMEM;
	for (i = 0; i < a->total_qps; i++) {
		a->cqg_cli[cqg_index(a, i, false)].nb_qps++;
		a->cqg_srv[cqg_index(a, i, true)].nb_qps++;
	}
	for (i = 0; i < a->total_qps; i++) {
		if (a->client) {
			rc = ep_init(a, &a->cli[i], i, false, &a->cqg_cli[cqg_index(a, i, false)]);
			if (rc < 0)
				return rc;
		}
		if (a->responder) {
			rc = ep_init(a, &a->srv[i], i, true, &a->cqg_srv[cqg_index(a, i, true)]);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

perf_serve_fn
perf_serve_step(const struct rdx_perf_engine *e, enum perf_mode m)
{
	if (perf_engine_loop(e, m) == PERF_LOOP_PINGPONG)
		return perf_pingpong_serve;
	return e->server_recv ? perf_serve_recv : NULL;
}

int
perf_alloc_lcores(struct perf_app *a)
{
	unsigned int l;

	for (l = 0; l < a->nb_lcores; l++) {
		struct perf_lcore *lc = &a->lcores[l];

		lc->lcore_id = a->lcore_ids[l];
		lc->idx = l;
		lc->eng = a->eng;
		lc->serve = perf_serve_step(a->eng, a->o.mode);
		lc->o = &a->o;
		lc->run = &a->run;
		lc->serve_only = !a->client;
		lc->hist = malloc(sizeof(*lc->hist));
		/* -b: the server ends of the lcore's pairs post too */
		lc->eps = calloc(a->total_qps * (a->o.bidir ? 2u : 1u), sizeof(*lc->eps));
		lc->srv = calloc(a->total_qps, sizeof(*lc->srv));
		lc->key_adds = calloc(a->o.keys, sizeof(uint64_t));
		if (lc->hist == NULL || lc->eps == NULL || lc->srv == NULL || lc->key_adds == NULL)
			return -ENOMEM;
		rdx_hist_init(lc->hist);
		if (a->o.wrlog != NULL && a->client) {
			lc->log = malloc(sizeof(*lc->log) * PERF_WRLOG_CAP);
			if (lc->log == NULL)
				return -ENOMEM;
		}
	}
	return 0;
}

/* plan(): the send queue holds twice the largest of -t, -l and -Q, rounded
 * up to a power of two: the option that set it */
static const char *
sq_flag(const struct perf_app *a)
{
	const struct perf_opts *o = &a->o;

	return a->window >= o->post_list && a->window >= o->sig_every ? "-t" :
		o->post_list >= o->sig_every ? "-l" : "-Q";
}

static uint32_t
sq_flag_value(const struct perf_app *a, const char *flag)
{
	return flag[1] == 't' ? a->window : flag[1] == 'l' ? a->o.post_list : a->o.sig_every;
}

int
perf_setup(struct perf_app *a)
{
	const struct rdx_dev_attr *at = a->attr;
	const struct perf_opts *o = &a->o;
	unsigned int i;
	int rc;

	plan(a);
	if (a->rstride == 0) {
		fprintf(stderr, "rdx-perf: bad value '%" PRIu64 "' for -s: at most %u bytes\n",
			o->sizes[0], UINT32_MAX - 63);
		return -EINVAL;
	}
	if (a->window > at->max_qp_wr && at->max_qp_wr != 0) {
		fprintf(stderr, "rdx-perf: bad value '%u' for -t: the device allows %u WRs per QP\n",
			a->window, at->max_qp_wr);
		return -EINVAL;
	}
	if (at->max_qp_wr != 0 && a->sq_depth > at->max_qp_wr) {
		/* plan(): the send queue holds twice the largest of -t, -l and
		 * -Q, rounded up to a power of two: name the one that set it */
		const uint32_t most = rte_align32prevpow2(at->max_qp_wr) / 2;
		const char *flag = sq_flag(a);

		fprintf(stderr, "rdx-perf: bad value '%u' for %s: the send queue would need %u WRs (twice it, to a power of two), the device allows %u: at most %u%s\n",
			sq_flag_value(a, flag), flag, a->sq_depth, at->max_qp_wr, most,
			o->inline_max > 0 ? " (fewer with inline data, -I)" : "");
		return -EINVAL;
	}
	if (o->inline_max > at->max_inline) {
		fprintf(stderr, "rdx-perf: bad value '%u' for -I: the device allows at most %u inline bytes\n",
			o->inline_max, at->max_inline);
		return -EINVAL;
	}
	/* A WQE grows with the inline data: the ring may hold fewer of them
	 * than max_qp_wr (rdx_qp_sq_depth_max); name the option, in one line,
	 * before rdx_qp_create would refuse the QP. */
	{
		const bool ud = o->transport == PERF_TRANSPORT_UD;
		const uint32_t inl = ud ? RTE_MIN(o->inline_max, at->max_ud_msg) : o->inline_max;
		const uint32_t deepest = rdx_qp_sq_depth_max(a->dev, ud ? RDX_QP_UD : RDX_QP_RC,
							     1, inl);

		if (deepest != 0 && a->sq_depth > deepest) {
			const uint32_t most = rte_align32prevpow2(deepest) / 2;
			const char *flag = sq_flag(a);

			fprintf(stderr, "rdx-perf: bad value '%u' for %s: the send queue would need %u WRs (twice it, to a power of two), the device allows %u with %u inline bytes (-I): at most %u%s\n",
				sq_flag_value(a, flag), flag, a->sq_depth, deepest, inl, most,
				inl > 0 ? ", or fewer inline bytes" : "");
			return -EINVAL;
		}
	}
	for (i = 0; i < o->nb_sizes; i++)
		if (at->max_msg_size != 0 && o->sizes[i] > at->max_msg_size) {
			fprintf(stderr, "rdx-perf: bad value '%" PRIu64 "' for -s: the device's largest message is %" PRIu64 " bytes\n",
				o->sizes[i], at->max_msg_size);
			return -EINVAL;
		}
	if (o->transport == PERF_TRANSPORT_UD) {
		if (at->max_ud_msg == 0) {
			fprintf(stderr, "rdx-perf: bad value 'ud' for --transport: device %s (driver %s) has no UD QPs\n",
				at->name, at->driver);
			return -EINVAL;
		}
		for (i = 0; i < o->nb_sizes; i++)
			if (o->sizes[i] > at->max_ud_msg) {
				fprintf(stderr, "rdx-perf: bad value '%" PRIu64 "' for -s: over --transport ud a message is one datagram of at most %u B (the path MTU)%s\n",
					o->sizes[i], at->max_ud_msg,
					a->eng->req_size != 0 ?
					"; larger echo responses: --transport basic+infud or homa+infud (lib/rpc)" : "");
				return -EINVAL;
			}
		/* -m: the path MTU chosen, which a datagram must fit too (as
		 * perftest's UD tests check the size against it) */
		for (i = 0; i < o->nb_sizes; i++)
			if (o->mtu != 0 && o->sizes[i] > o->mtu) {
				fprintf(stderr, "rdx-perf: bad value '%" PRIu64 "' for -s: over --transport ud a message is one datagram of at most the MTU (-m %u)\n",
					o->sizes[i], o->mtu);
				return -EINVAL;
			}
	}
	if (a->ib_mtu != 0 && at->active_mtu != 0 && a->ib_mtu > at->active_mtu) {
		fprintf(stderr, "rdx-perf: bad value '%u' for -m: the port's active MTU is %u\n",
			o->mtu, 128u << at->active_mtu);
		return -EINVAL;
	}
	if (a->eng->atomic && !at->atomics) {
		fprintf(stderr, "rdx-perf: device %s does not support atomics\n", at->name);
		return -EINVAL;
	}
	/* the software device's hugepage buffers are this process's memory
	 * (drivers/mlx5/sw/README.md): a peer process would get remote access
	 * errors */
	if (o->mem == RDX_MEM_HUGE && at->software && (o->server || o->connect != NULL)) {
		fprintf(stderr, "rdx-perf: bad value 'huge' for --mem: on the software device hugepage buffers are process memory, which a peer process cannot reach: use --mem host with --server/--connect\n");
		return -EINVAL;
	}
	if (o->mem == RDX_MEM_DM) {
		/* device memory is small and shared by every buffer of the process:
		 * fewer slots, at least one message each */
		uint64_t nreg = 2ull * a->max_qps * a->nb_lcores;
		uint64_t cap = (at->max_dm_size / nreg) & ~63ull;
		uint64_t need = 0;

		for (i = 0; i < o->nb_sizes; i++)
			need = RTE_MAX(need, align64(o->sizes[i]));
		need = RTE_MAX(need, RTE_MAX((uint64_t)o->keys * 8, (uint64_t)a->window * 8));
		if (need > cap) {
			fprintf(stderr, "rdx-perf: bad value 'dm' for --mem: device %s has %" PRIu64 " bytes of device memory, %" PRIu64 " buffers of %" PRIu64 " needed\n",
				at->name, at->max_dm_size, nreg, need);
			return -EINVAL;
		}
		a->region_len = RTE_MIN(a->region_len, cap);
	}
	if (o->mem == RDX_MEM_DM && a->region_len > at->max_dm_size) {
		fprintf(stderr, "rdx-perf: bad value 'dm' for --mem: device %s has %" PRIu64 " bytes of device memory, %" PRIu64 " needed\n",
			at->name, at->max_dm_size, a->region_len);
		return -EINVAL;
	}
	if (a->client)
		a->total_qps = a->max_qps * a->nb_lcores;
	if (a->client && at->max_qp != 0 &&
	    a->total_qps * (a->responder ? 2ull : 1ull) > at->max_qp) {
		fprintf(stderr, "rdx-perf: bad value '%u' for -q: %u lcore(s) x %u QPs%s exceed the device's %u QPs\n",
			a->max_qps, a->nb_lcores, a->max_qps, a->responder ? " x 2 ends" : "",
			at->max_qp);
		return -EINVAL;
	}
	/* --pattern: endpoints swapped with MPI collectives */
	if (a->mpi != NULL)
		return PERF_SETUP_BOOT;
	if (a->client && a->responder) {
		if (o->split && at->software && o->sw_progress != RDX_SW_PROGRESS_THREAD) {
			/* inline progress runs the model from every poller's thread */
			fprintf(stderr, "rdx-perf: --loopback-lcores split on the software device needs --sw-progress thread\n");
			return -EINVAL;
		}
		if (o->split) {
			if (a->lcore_ids[0] == rte_get_main_lcore()) {
				fprintf(stderr, "rdx-perf: --loopback-lcores split needs a worker lcore (e.g. -l 0-1)\n");
				return -EINVAL;
			}
			a->serve_lc.lcore_id = rte_get_main_lcore();
			a->serve_lc.eng = a->eng;
			a->serve_lc.serve = perf_serve_step(a->eng, a->o.mode);
			a->serve_lc.o = &a->o;
			a->serve_lc.run = &a->run;
			a->serve_lc.srv = calloc(a->total_qps, sizeof(*a->serve_lc.srv));
			if (a->serve_lc.srv == NULL)
				return -ENOMEM;
		}
		rc = perf_alloc_lcores(a);
		if (rc == 0)
			rc = perf_alloc_eps(a);
		if (rc < 0)
			return rc;
		for (i = 0; i < a->total_qps; i++) {
			struct wire_ep wc, ws;

			perf_ep_wire_fill(&a->cli[i], &wc);
			perf_ep_wire_fill(&a->srv[i], &ws);
			rc = perf_ep_connect(a, &a->cli[i], &ws);
			if (rc == 0)
				rc = perf_ep_connect(a, &a->srv[i], &wc);
			if (rc < 0)
				return -EIO;
			a->cli[i].peer = &a->srv[i];
			a->srv[i].peer = &a->cli[i];
		}
		return 0;
	}
	return PERF_SETUP_BOOT;
}

void
perf_teardown(struct perf_app *a)
{
	unsigned int i;

	for (i = 0; i < a->total_qps; i++) {
		/* ep_fini copes with what a failed ep_init left behind */
		if (a->cli != NULL)
			ep_fini(a, &a->cli[i]);
		if (a->srv != NULL)
			ep_fini(a, &a->srv[i]);
	}
	if (a->shared != NULL)
		rdx_dev_mem_free(a->shared);
	free(a->cli);
	free(a->srv);
	free(a->cqg_cli);
	free(a->cqg_srv);
	free(a->serve_lc.srv);
	free(a->key_total);
	for (i = 0; i < a->nb_lcores; i++) {
		if (a->lcores[i].perf_ok)
			rdx_perf_close(&a->lcores[i].perf);
		a->lcores[i].perf_ok = false;
		free(a->lcores[i].hist);
		free(a->lcores[i].eps);
		free(a->lcores[i].srv);
		free(a->lcores[i].key_adds);
		free(a->lcores[i].log);
	}
	if (a->rep != NULL)
		rdx_report_free(a->rep);
	a->rep = NULL;
	rdx_boot_close(a->boot);
	a->boot = NULL;
	a->conn = NULL;
}

/* Slot layout and lcore assignment of one run. */
int
perf_run_prepare(struct perf_app *a, uint64_t size, uint32_t qps, const uint32_t *layout)
{
	struct perf_run *run = &a->run;
	const struct perf_opts *o = &a->o;
	uint64_t hz = rdx_tsc_hz();
	uint64_t slots;
	unsigned int l, i;

	run->size = size;
	run->req_size = a->eng->req_size != 0 ? a->eng->req_size : size;
	run->window = a->window;
	if (layout != NULL) {
		/* server process: the client's slot layout, checked against our
		 * buffers by perf_wire_run_check */
		run->stride = layout[0];
		run->slots = layout[1];
	} else {
		/* sizes are within the device's max_msg_size (perf_setup) */
		run->stride = a->eng->atomic ? 8 : (uint32_t)align64(size);
		/* a ping-pong builds its next message in another slot
		 * (PERF_PINGPONG_SLOTS) */
		slots = RTE_MIN(a->region_len / run->stride,
				perf_plan_slot_cap(a->window, perf_engine_loop(a->eng, o->mode) ==
						   PERF_LOOP_PINGPONG));
		run->slots = (uint32_t)rte_align64prevpow2(RTE_MAX(slots, 1ull));
		if (a->eng->atomic) /* 8-byte results: plan() made room for them */
			run->slots = rte_align32pow2(a->window);
		if (o->verify && run->slots < run->window && !a->eng->atomic) {
			fprintf(stderr, "rdx-perf: --verify: window limited to %u for size %" PRIu64 " (buffer slots)\n",
				run->slots, size);
			run->window = run->slots;
		}
	}
	run->post_list = o->post_list;
	run->iters = o->duration != 0 ? 0 : o->iters;
	run->warm_iters = o->warmup_iters;
	run->dur_tsc = (uint64_t)(o->duration * (double)hz);
	run->warm_tsc = (uint64_t)(o->warmup_s * (double)hz);
	run->timeout_tsc = (uint64_t)(o->boot_timeout * (double)hz);
	run->qps = qps;
	run->ud = o->transport == PERF_TRANSPORT_UD;
	run->grh = run->ud ? RDX_UD_GRH_BYTES : 0;
	/* the client's runs and the server's RUNs are counted alike (two
	 * processes: one RUN per run; MPI ranks run the same list) */
	run->ud_run = a->nb_runs;
	run->ud_timeout_tsc = hz / 1000 * PERF_UD_TIMEOUT_MS;
	run->abort = false;
	a->ud_back_tx = 0;
	a->ud_fwd_rx = 0;
	/* UD accounting: counters at the start of the run */
	for (i = 0; i < a->total_qps; i++) {
		struct perf_ep *eps[2] = { a->cli != NULL ? &a->cli[i] : NULL,
					   a->srv != NULL ? &a->srv[i] : NULL };
		unsigned int e;

		for (e = 0; e < 2; e++) {
			if (eps[e] == NULL || eps[e]->qp == NULL)
				continue;
			eps[e]->tx_base = eps[e]->tx;
			eps[e]->rx_base = eps[e]->recv_done;
			eps[e]->resent_base = eps[e]->resent;
			eps[e]->dup_base = eps[e]->ud_dup;
			eps[e]->stale_base = eps[e]->ud_stale;
		}
	}
	a->serve_lc.nb_srv = 0;
	a->serve_lc.run = run;
	for (l = 0; l < a->nb_lcores; l++) {
		struct perf_lcore *lc = &a->lcores[l];

		lc->nb_eps = 0;
		lc->nb_srv = 0;
		if (a->client) {
			for (i = 0; i < qps; i++) {
				lc->eps[lc->nb_eps++] = &a->cli[l * a->max_qps + i];
				/* -b (one process): both ends of the pair post, each to
				 * the other (opts_compat.c admits one-sided tests only) */
				if (a->o.bidir && a->responder)
					lc->eps[lc->nb_eps++] = &a->srv[l * a->max_qps + i];
				/* -b across processes: the QP also takes the server's
				 * messages (send, write_imm) */
				if (perf_bidir_procs(a))
					lc->srv[lc->nb_srv++] = &a->cli[l * a->max_qps + i];
				if (a->responder && !a->o.split)
					lc->srv[lc->nb_srv++] = &a->srv[l * a->max_qps + i];
				else if (a->responder)
					a->serve_lc.srv[a->serve_lc.nb_srv++] =
						&a->srv[l * a->max_qps + i];
			}
		} else {
			for (i = l; i < a->total_qps; i += a->nb_lcores) {
				lc->srv[lc->nb_srv++] = &a->srv[i];
				/* -b: the server process posts on every QP too
				 * (opts_compat.c refuses --qp-sweep with it) */
				if (perf_bidir_procs(a))
					lc->eps[lc->nb_eps++] = &a->srv[i];
			}
		}
	}
	/* each shared CQ is polled once per pass over its QPs in this run */
	for (i = 0; i < a->total_qps + a->nb_lcores; i++) {
		if (a->cqg_cli != NULL)
			a->cqg_cli[i].period = 0;
		if (a->cqg_srv != NULL)
			a->cqg_srv[i].period = 0;
	}
	for (l = 0; l < a->nb_lcores; l++) {
		struct perf_lcore *lc = &a->lcores[l];

		for (i = 0; i < lc->nb_eps; i++)
			lc->eps[i]->cqg->period++;
		/* -b across processes: the same QPs as lc->eps, counted once */
		for (i = 0; i < lc->nb_srv && !perf_bidir_procs(a); i++)
			lc->srv[i]->cqg->period++;
	}
	for (i = 0; i < a->serve_lc.nb_srv; i++)
		a->serve_lc.srv[i]->cqg->period++;
	/* responder state for this size */
	if (a->responder) {
		for (i = 0; i < a->total_qps; i++) {
			struct perf_ep *ep = &a->srv[i];

			if (ep->rbuf != NULL && ep->rbuf->addr != NULL)
				memset(ep->rbuf->addr, 0, ep->rbuf->len);
			if (posts_recvs(a, ep))
				perf_post_recvs(ep, ep->rslots);
			if (a->eng->responder_ready != NULL)
				a->eng->responder_ready(a, ep);
		}
	}
	if (a->client)
		for (i = 0; i < a->total_qps; i++) {
			struct perf_ep *ep = &a->cli[i];

			/* poll_memory: no marker of an earlier run may pass for a new one */
			if (ep->rbuf != NULL && ep->rbuf->addr != NULL && a->eng->poll_memory)
				memset(ep->rbuf->addr, 0, ep->rbuf->len);
			if (posts_recvs(a, ep))
				perf_post_recvs(ep, ep->rslots);
			/* -b across processes: the server's ops target us too */
			if (perf_bidir_procs(a) && a->eng->responder_ready != NULL)
				a->eng->responder_ready(a, ep);
		}
	return 0;
}

void
perf_ud_counts(const struct perf_app *a, struct perf_ud_run *u)
{
	unsigned int i;

	memset(u, 0, sizeof(*u));
	for (i = 0; i < a->total_qps; i++) {
		if (a->cli != NULL && a->cli[i].qp != NULL) {
			u->cli_tx += a->cli[i].tx - a->cli[i].tx_base;
			u->cli_rx += a->cli[i].recv_done - a->cli[i].rx_base;
			u->resent += a->cli[i].resent - a->cli[i].resent_base;
		}
		if (a->srv != NULL && a->srv[i].qp != NULL) {
			const uint64_t stale = a->srv[i].ud_stale - a->srv[i].stale_base;

			u->srv_tx += a->srv[i].tx - a->srv[i].tx_base;
			/* the repeats of a datagram already taken (the
			 * software device's ud_dup) arrived but carry no new op:
			 * counted, a loss would hide behind them; nor do the
			 * datagrams of an earlier run, late past its end */
			u->srv_rx += a->srv[i].recv_done - a->srv[i].rx_base -
				     (a->srv[i].ud_dup - a->srv[i].dup_base) - stale;
			u->stale += stale;
		}
	}
}
