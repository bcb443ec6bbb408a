/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * echo on lib/rpc, the server side: the endpoint configuration both sides
 * share, the echo handler, the server endpoints of this process (made by
 * rpc_echo.c with one process, by rpc_boot.c or rpc_mpi.c across
 * processes) and the counters of any endpoint. Calls only rpc_kv.c of
 * the rpc_* files (the KV service's handler and table).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include "rdx_rpc.h"

#include "perf_app.h"
#include "perf_opts.h"
#include "rpc_perf.h"
/* the KV service basic.read / basic.write measure (examples/kv) */
#include "../../examples/kv/kv_service.h"

static struct perf_rpc_srv srvs[PERF_RPC_MAX_SERVERS];
static uint32_t nb_srvs;

uint64_t
perf_rpc_max_size(const struct perf_opts *o)
{
	uint64_t m = 0;
	unsigned int i;

	for (i = 0; i < o->nb_mix; i++)
		m = RTE_MAX(m, o->mix_size[i]);
	for (i = 0; o->nb_mix == 0 && i < o->nb_sizes; i++)
		m = RTE_MAX(m, o->sizes[i]);
	/* basic.*: a PUT carries a header and the key besides the object */
	return o->rpc_kv != 0 ? m + PERF_RPC_KV_HDR : m;
}

static uint32_t
rpc_slots(const struct perf_opts *o)
{
	return RTE_MAX(o->concurrent, 8u);
}

void
perf_rpc_conf(const struct perf_app *a, struct rdx_rpc_conf *c, const char *name,
	      uint32_t sessions)
{
	uint64_t m = perf_rpc_max_size(&a->o);

	memset(c, 0, sizeof(*c));
	c->transport = perf_transport_name(a->o.transport);
	c->name = name;
	c->max_msg_size = m <= RDX_RPC_DEFAULT_MAX_MSG ? 0 : (uint32_t)m;
	c->max_sessions = RTE_MAX(sessions, 1u);
	c->slots = rpc_slots(&a->o);
	c->rto_us = a->o.rpc.rto_us;
	c->call_timeout_us = a->o.rpc.call_timeout_us;
	c->window = a->o.rpc.window;
	c->rtt_bytes = a->o.rpc.rtt_bytes;
	c->overcommit = a->o.rpc.overcommit;
	c->mtu = a->o.rpc.mtu;
	c->queue_depth = a->o.rpc.queue_depth;
	c->msg_bufs = a->o.rpc.msg_bufs;
	c->sig_interval = a->o.rpc.signal;
}

void
perf_rpc_counts_add(struct perf_rpc_counts *n, const struct rdx_rpc_endpoint *ep,
		    struct rdx_rpc_stats *base)
{
	struct rdx_rpc_stats s;

	if (ep == NULL || rdx_rpc_endpoint_stats_get(ep, &s) != 0)
		return;
#define D(f) n->f += s.f - base->f
	D(calls_ok); D(calls_err); D(requests); D(retransmits); D(acks_sent);
	D(grants_sent); D(grants_rcvd); D(resends_sent); D(resends_rcvd); D(busy_sent);
	D(busy_rcvd); D(dup_dropped); D(bad_pkts); D(no_buf); D(timeouts); D(errors);
#undef D
	*base = s;
}

/* ---- server side ---------------------------------------------------- */

static inline uint32_t
rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline uint64_t
rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* A request from a peer is not trusted: anything but a well-formed echo
 * request within our response buffer gets an empty answer (the client
 * counts it as an error) and is counted here. */
static void
echo_handler(struct rdx_rpc_req *req, void *arg)
{
	struct perf_rpc_srv *sv = arg;
	const uint8_t *p = req->data;
	uint32_t len, flags;

	if (req->len != PERF_ECHO_REQ || rd32(p) != PERF_RPC_REQ_MAGIC) {
		sv->bad_reqs++;
		rdx_rpc_respond(req, 0);
		return;
	}
	len = rd32(p + PERF_RPC_REQ_OFF_LEN);
	flags = rd32(p + PERF_RPC_REQ_OFF_FLAGS);
	if (len > req->resp_cap || (flags & ~PERF_RPC_F_VERIFY) != 0) {
		sv->bad_reqs++;
		rdx_rpc_respond(req, 0);
		return;
	}
	if (flags & PERF_RPC_F_VERIFY)
		perf_pattern_fill(req->resp, len, rd64(p + PERF_RPC_REQ_OFF_SEQ), PERF_SALT_RESP);
	rdx_rpc_respond(req, len);
}

int
perf_rpc_srv_create(struct perf_app *a, struct perf_rpc_srv *sv, uint32_t idx,
		    uint32_t nb_sess)
{
	struct rdx_rpc_conf c;
	char name[RDX_RPC_NAME_LEN];
	int rc;

	memset(sv, 0, sizeof(*sv));
	snprintf(name, sizeof(name), "perf-srv%u", idx);
	perf_rpc_conf(a, &c, name, nb_sess);
	sv->ep = rdx_rpc_endpoint_create(a->dev, &c);
	if (sv->ep == NULL) {
		/* lib/rpc names a field out of range itself (EINVAL) */
		if (rte_errno != EINVAL)
			fprintf(stderr, "rdx-perf: cannot create rpc endpoint %s (%s): %s\n",
				name, c.transport, rte_strerror(rte_errno));
		return rte_errno == EINVAL || rte_errno == ENOTSUP ? -EINVAL : -rte_errno;
	}
	rc = rdx_rpc_handler_register(sv->ep, PERF_RPC_TYPE_ECHO, echo_handler, sv);
	if (rc == 0)
		rc = rdx_rpc_handler_register(sv->ep, KV_GET, perf_rpc_kv_handler, sv);
	if (rc == 0)
		rc = rdx_rpc_handler_register(sv->ep, KV_PUT, perf_rpc_kv_handler, sv);
	if (rc < 0)
		return rc;
	sv->sess = calloc(RTE_MAX(nb_sess, 1u), sizeof(*sv->sess));
	if (sv->sess == NULL)
		return -ENOMEM;
	return 0;
}

void
perf_rpc_srv_destroy(struct perf_rpc_srv *sv)
{
	if (sv->ep != NULL)
		rdx_rpc_endpoint_destroy(sv->ep);
	perf_rpc_kv_store_free(sv);
	free(sv->sess);
	memset(sv, 0, sizeof(*sv));
}

/* The software device's inline progress runs its model from the thread
 * that polls: one thread at a time (as --loopback-lcores split needs
 * --sw-progress thread for the raw-QP tests). */
bool
perf_rpc_sw_inline(const struct perf_app *a)
{
	return a->attr->software && a->o.sw_progress != RDX_SW_PROGRESS_THREAD;
}

bool
perf_rpc_srv_same_lcore(const struct perf_app *a)
{
	return a->o.connect == NULL && a->mpi == NULL && a->nb_lcores == 1 &&
		(perf_rpc_sw_inline(a) || a->lcore_ids[0] == rte_get_main_lcore());
}

/* The server endpoints of a two-process server (rpc_boot.c). */
struct perf_rpc_srv *
perf_rpc_srvs(uint32_t *n)
{
	*n = nb_srvs;
	return srvs;
}

void
perf_rpc_srvs_set(uint32_t n)
{
	nb_srvs = n;
}
