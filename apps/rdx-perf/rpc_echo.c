/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * echo on lib/rpc: RAMCloud clusterperf's echo through an RPC transport
 * (--transport infrc|basic+infud|homa+infud) rather than raw QPs (rc|ud,
 * echo.c and pingpong.c). Each client is an rdx_rpc endpoint (-q per
 * client lcore) with one session to a server endpoint (--servers; client
 * i talks to server i mod S); a call sends 30 bytes naming the response
 * size, the server's handler answers with that many bytes. --concurrent-ops
 * calls are kept in flight per client. --mix SIZE:W,.. draws each call's
 * response size by weight and reports percentiles per size: what SRPT
 * (homa+infud) does for small messages queued behind large ones.
 *
 * One process: the server endpoints are polled by the main lcore while
 * the worker lcores run the clients (with no worker, the one lcore polls
 * both). Two processes: rpc_boot.c. Counters of every endpoint (ours and,
 * with two processes, the server's) are reported per run: retransmissions,
 * grants, resends, busy, timeouts.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "rdx_conn.h"
#include "rdx_hist.h"
#include "rdx_report.h"
#include "rdx_rpc.h"
#include "rdx_runtime.h"

#include "perf_app.h"
#include "perf_opts.h"
#include "rpc_perf.h"
/* the KV service basic.read / basic.write measure (examples/kv) */
#include "../../examples/kv/kv_service.h"

struct perf_rpc_run perf_rpc_run;
struct perf_rpc_lc perf_rpc_lcs[RDX_MAX_LCORES];
static struct perf_rpc_cli *clis;
uint32_t perf_rpc_nb_clis;
static struct perf_rpc_srv srvs[PERF_RPC_MAX_SERVERS];
static uint32_t nb_srvs;
static struct perf_rpc_counts tot_counts;

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

static void kv_srv_handler(struct rdx_rpc_req *req, void *arg);

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
		rc = rdx_rpc_handler_register(sv->ep, KV_GET, kv_srv_handler, sv);
	if (rc == 0)
		rc = rdx_rpc_handler_register(sv->ep, KV_PUT, kv_srv_handler, sv);
	if (rc < 0)
		return rc;
	sv->sess = calloc(RTE_MAX(nb_sess, 1u), sizeof(*sv->sess));
	if (sv->sess == NULL)
		return -ENOMEM;
	return 0;
}

uint32_t
perf_rpc_kv_objects(uint64_t size)
{
	uint64_t n = PERF_RPC_KV_BYTES / RTE_MAX(size, 1u);

	return (uint32_t)RTE_MIN(RTE_MAX(n, (uint64_t)PERF_RPC_KV_MIN_OBJ),
				 (uint64_t)PERF_RPC_KV_MAX_OBJ);
}

static void
kv_store_free(struct perf_rpc_srv *sv)
{
	free(sv->store.slots);
	if (sv->store_huge)
		rte_free(sv->store.vals);
	else
		free(sv->store.vals);
	memset(&sv->store, 0, sizeof(sv->store));
}

/* The table of one size, made by the first KV request of the run (an
 * echo run allocates nothing): twice as many slots as objects (a power of
 * two, so that probe runs stay short), the values in host memory or in
 * EAL's hugepages (--mem huge: clusterperf's server memory knob). On
 * failure the run's table stays empty: PUTs answer -ENOSPC. */
static int
kv_store_alloc(struct perf_rpc_srv *sv)
{
	uint64_t size = sv->kv_size;
	uint32_t cap = 1, n = perf_rpc_kv_objects(size);
	size_t bytes;

	while (cap < 2 * n)
		cap <<= 1;
	bytes = (size_t)cap * size;
	sv->kv_size = 0;
	sv->store.slots = calloc(cap, sizeof(*sv->store.slots));
	sv->store.vals = sv->store_huge ? rte_malloc("perf-kv", bytes, 64) : malloc(bytes);
	if (sv->store.slots == NULL || sv->store.vals == NULL) {
		fprintf(stderr, "rdx-perf: no %s memory for a table of %u objects of %" PRIu64 " B\n",
			sv->store_huge ? "huge" : "host", cap, size);
		kv_store_free(sv);
		return -ENOMEM;
	}
	sv->store.cap = cap;
	sv->store.value_max = (uint32_t)size;
	return 0;
}

int
perf_rpc_kv_store_reset(const struct perf_app *a, struct perf_rpc_srv *sv, uint64_t size)
{
	kv_store_free(sv);
	sv->store_huge = a->o.mem == RDX_MEM_HUGE;
	sv->kv_size = size;
	return 0;
}

/* The KV service's handler, on the run's table. */
static void
kv_srv_handler(struct rdx_rpc_req *req, void *arg)
{
	struct perf_rpc_srv *sv = arg;

	if (sv->store.slots == NULL && sv->kv_size != 0 && kv_store_alloc(sv) < 0) {
		kv_reply(req, -ENOMEM, NULL, 0);
		return;
	}
	kv_handler(req, &sv->store);
}

void
perf_rpc_srv_destroy(struct perf_rpc_srv *sv)
{
	if (sv->ep != NULL)
		rdx_rpc_endpoint_destroy(sv->ep);
	kv_store_free(sv);
	free(sv->sess);
	memset(sv, 0, sizeof(*sv));
}

/* ---- client side ----------------------------------------------------- */

static inline uint64_t
xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

static void
echo_cont(struct rdx_rpc_session *sess, int status, void *buf, uint32_t len, void *arg)
{
	struct perf_rpc_call *k = arg;
	struct perf_rpc_cli *c = k->cli;
	struct perf_rpc_lc *lc = c->lc;
	uint64_t now = rdx_tsc();

	(void)sess;
	c->inflight--;
	c->done++;
	c->free[c->nb_free++] = k->slot;
	if (status != 0 || len != k->size) {
		lc->errors++;
		if (lc->first_err == 0)
			lc->first_err = status != 0 ? status : -EBADMSG;
		return;
	}
	if (lc->a->o.verify)
		lc->verify_errors += perf_pattern_check(buf, len, k->seq, PERF_SALT_RESP);
	if (k->measured) {
		rdx_hist_record(lc->hist[k->cls], now - k->t0);
		lc->ops[k->cls]++;
		lc->bytes[k->cls] += len;
	}
}

/* A KV call's answer: a struct kv_resp, then (GET) the object, whose
 * bytes the table's fill wrote from its key (--verify checks them). */
static void
kv_cont(struct rdx_rpc_session *sess, int status, void *buf, uint32_t len, void *arg)
{
	struct perf_rpc_call *k = arg;
	struct perf_rpc_cli *c = k->cli;
	struct perf_rpc_lc *lc = c->lc;
	uint64_t now = rdx_tsc();
	struct kv_resp r = { .status = -EBADMSG };
	uint32_t want = k->op == KV_GET ? k->size : 0;

	(void)sess;
	c->inflight--;
	c->done++;
	c->free[c->nb_free++] = k->slot;
	if (status == 0 && len >= sizeof(r))
		memcpy(&r, buf, sizeof(r));
	if (status != 0 || r.status != 0 || r.val_len != want || len != sizeof(r) + want) {
		lc->errors++;
		if (lc->first_err == 0)
			lc->first_err = status != 0 ? status : r.status != 0 ? r.status : -EBADMSG;
		return;
	}
	if (lc->a->o.verify && k->op == KV_GET)
		lc->verify_errors += perf_pattern_check((const uint8_t *)buf + sizeof(r), want,
							k->key, PERF_SALT_DATA);
	if (k->measured) {
		rdx_hist_record(lc->hist[k->cls], now - k->t0);
		lc->ops[k->cls]++;
		lc->bytes[k->cls] += k->size;
	}
}

/* A KV request in the slot's buffer: GET or PUT of a random object of the
 * table (the fill: PUT of the next one, its bytes made from its key);
 * clusterperf's 30-byte key, the object's index then 'x's. */
static int
kv_issue(struct perf_rpc_cli *c, struct perf_rpc_call *k, bool verify)
{
	uint8_t *p = c->kvreq + (uint64_t)k->slot * c->kvreq_stride;
	struct kv_req h = { .key_len = PERF_RPC_KV_KEY };
	uint32_t len;

	if (c->filling) {
		k->key = c->fill_next++;
		k->op = KV_PUT;
	} else {
		k->key = (uint32_t)(xorshift(&c->rng) % perf_rpc_run.nb_obj);
		k->op = c->lc->a->o.rpc_kv == PERF_RPC_KV_READ ? KV_GET : KV_PUT;
	}
	h.val_len = k->op == KV_PUT ? k->size : 0;
	memcpy(p, &h, sizeof(h));
	memset(p + sizeof(h), 'x', PERF_RPC_KV_KEY);
	memcpy(p + sizeof(h), &k->key, sizeof(k->key));
	/* the written bytes matter to the reads after the fill and to
	 * --verify; else a write sends what the slot's buffer holds */
	if (k->op == KV_PUT && (c->filling || verify))
		perf_pattern_fill(p + sizeof(h) + PERF_RPC_KV_KEY, k->size, k->key, PERF_SALT_DATA);
	len = (uint32_t)sizeof(h) + PERF_RPC_KV_KEY + h.val_len;
	k->t0 = rdx_tsc();
	return rdx_rpc_call(c->sess, (uint16_t)k->op, p, len,
			    c->resp + (uint64_t)k->slot * c->resp_stride,
			    (uint32_t)sizeof(struct kv_resp) + k->size, kv_cont, k);
}

/* Issue calls up to the window; -1 on an error of rdx_rpc_call. */
static int
cli_issue(struct perf_rpc_lc *lc, struct perf_rpc_cli *c, bool measure)
{
	const struct perf_app *a = lc->a;

	while (c->inflight < a->o.concurrent && c->issued < c->target) {
		struct perf_rpc_call *k;
		uint32_t slot, cls = 0, flags = a->o.verify ? PERF_RPC_F_VERIFY : 0;
		int rc;

		if (perf_rpc_run.nb > 1) {
			uint64_t r = xorshift(&c->rng) % perf_rpc_run.wsum;

			while (r >= perf_rpc_run.cum[cls])
				cls++;
		}
		slot = c->free[c->nb_free - 1];
		k = &c->calls[slot];
		k->cls = cls;
		k->size = (uint32_t)perf_rpc_run.sizes[cls];
		k->seq = ((uint64_t)c->id << 40) | c->issued;
		k->slot = slot;
		k->measured = measure;
		if (a->o.rpc_kv != 0) {
			uint32_t fill_next = c->fill_next;

			rc = kv_issue(c, k, a->o.verify);
			if (rc == -EAGAIN || rc == -ENOBUFS) {
				c->fill_next = fill_next;
				return 0;
			}
			goto issued;
		}
		memcpy(k->req + PERF_RPC_REQ_OFF_LEN, &k->size, 4);
		memcpy(k->req + PERF_RPC_REQ_OFF_SEQ, &k->seq, 8);
		memcpy(k->req + PERF_RPC_REQ_OFF_FLAGS, &flags, 4);
		k->t0 = rdx_tsc();
		rc = rdx_rpc_call(c->sess, PERF_RPC_TYPE_ECHO, k->req, PERF_ECHO_REQ,
				  c->resp + (uint64_t)slot * c->resp_stride, k->size, echo_cont, k);
		if (rc == -EAGAIN || rc == -ENOBUFS)
			return 0;
issued:
		if (rc < 0) {
			snprintf(lc->errmsg, sizeof(lc->errmsg), "rpc call on client %u failed: %s",
				 c->id, strerror(-rc));
			lc->err = rc;
			return -1;
		}
		c->nb_free--;
		c->inflight++;
		c->issued++;
	}
	return 0;
}

static int
lc_poll(struct perf_rpc_lc *lc)
{
	uint32_t i;
	int n = 0;

	for (i = 0; i < lc->nb_cli; i++)
		n += rdx_rpc_endpoint_poll(lc->cli[i].ep);
	for (i = 0; i < lc->nb_srv; i++)
		n += rdx_rpc_endpoint_poll(lc->srv[i].ep);
	return n;
}

/* One phase (warm-up or measured): iters calls per client, or until
 * end_tsc; then the calls in flight complete. */
static int
lc_phase(struct perf_rpc_lc *lc, uint64_t iters, uint64_t end_tsc, bool measure)
{
	const volatile int *stop = rdx_runtime_stop_flag();
	const struct perf_app *a = lc->a;
	/* the main lcore of a two-process client watches the server (no other
	 * thread does: rpc_launch runs lc_main itself) */
	bool watch = a->conn != NULL && lc->lcore_id == rte_get_main_lcore();
	uint64_t next_watch = 0;
	uint32_t i, busy;
	uint64_t n = 0;
	bool issuing = true;

	for (i = 0; i < lc->nb_cli; i++)
		lc->cli[i].target = iters != 0 ? lc->cli[i].issued + iters : UINT64_MAX;
	for (;;) {
		busy = 0;
		for (i = 0; i < lc->nb_cli; i++) {
			struct perf_rpc_cli *c = &lc->cli[i];

			if (issuing && cli_issue(lc, c, measure) < 0)
				issuing = false;
			busy += c->inflight != 0 || (issuing && c->issued < c->target);
		}
		if (busy == 0)
			break;
		lc_poll(lc);
		if ((++n & 255) == 0) {
			if (watch && rdx_tsc() >= next_watch) {
				next_watch = rdx_tsc() + rdx_tsc_hz() / 10;
				if (rdx_conn_peer_alive(a->conn) < 0) {
					/* the server is gone: its calls would only
					 * time out one after the other */
					snprintf(lc->errmsg, sizeof(lc->errmsg),
						 "peer closed the bootstrap connection during the run");
					lc->err = -ECONNRESET;
					break;
				}
			}
			if (end_tsc != 0 && issuing && rdx_tsc() >= end_tsc) {
				issuing = false;
				if (measure)
					lc->t_end = rdx_tsc();
			}
			if (__atomic_load_n(stop, __ATOMIC_RELAXED) != 0 || a->run.abort)
				issuing = false;
		}
	}
	if (measure && (end_tsc == 0 || lc->t_end == 0))
		lc->t_end = rdx_tsc();
	return lc->err;
}

static int
lc_main(void *arg)
{
	struct perf_rpc_lc *lc = arg;
	const struct perf_opts *o = &lc->a->o;
	uint64_t hz = rdx_tsc_hz();
	unsigned int k;
	int rc;

	lc->err = 0;
	lc->first_err = 0;
	lc->errors = 0;
	lc->t_end = 0;
	for (k = 0; k < PERF_MAX_MIX; k++) {
		rdx_hist_reset(lc->hist[k]);
		lc->ops[k] = 0;
		lc->bytes[k] = 0;
	}
	/* basic.*: each client fills the table of its server, as clusterperf's
	 * client does before it measures */
	if (o->rpc_kv != 0) {
		uint32_t i;

		for (i = 0; i < lc->nb_cli; i++) {
			lc->cli[i].filling = true;
			lc->cli[i].fill_next = 0;
		}
		rc = lc_phase(lc, perf_rpc_run.nb_obj, 0, false);
		for (i = 0; i < lc->nb_cli; i++)
			lc->cli[i].filling = false;
		if (rc < 0)
			return rc;
	}
	if (o->warmup_s > 0)
		rc = lc_phase(lc, 0, rdx_tsc() + (uint64_t)(o->warmup_s * (double)hz), false);
	else if (o->warmup_iters > 0)
		rc = lc_phase(lc, o->warmup_iters, 0, false);
	else
		rc = 0;
	if (rc < 0)
		return rc;
	lc->t_start = rdx_tsc();
	if (o->duration > 0)
		rc = lc_phase(lc, 0, lc->t_start + (uint64_t)(o->duration * (double)hz), true);
	else
		rc = lc_phase(lc, o->iters, 0, true);
	return rc;
}

/* ---- set-up ---------------------------------------------------------- */

static int
cli_create(struct perf_app *a, struct perf_rpc_cli *c, uint32_t id, struct perf_rpc_lc *lc)
{
	uint32_t conc = a->o.concurrent, i;
	uint64_t maxsz = perf_rpc_max_size(&a->o);
	struct rdx_rpc_conf cf;
	char name[RDX_RPC_NAME_LEN];

	memset(c, 0, sizeof(*c));
	c->id = id;
	c->lc = lc;
	c->rng = 0x9e3779b97f4a7c15ull * (id + 1);
	c->resp_stride = (maxsz + 63) & ~63ull;
	c->calls = calloc(conc, sizeof(*c->calls));
	c->free = calloc(conc, sizeof(*c->free));
	c->resp = malloc(c->resp_stride * conc);
	if (a->o.rpc_kv != 0) {
		c->kvreq_stride = c->resp_stride;
		c->kvreq = malloc(c->kvreq_stride * conc);
	}
	if (c->calls == NULL || c->free == NULL || c->resp == NULL ||
	    (a->o.rpc_kv != 0 && c->kvreq == NULL)) {
		fprintf(stderr, "rdx-perf: out of memory for %u calls of %" PRIu64 " B\n", conc,
			maxsz);
		return -ENOMEM;
	}
	for (i = 0; i < conc; i++) {
		uint32_t magic = PERF_RPC_REQ_MAGIC;

		c->calls[i].cli = c;
		memcpy(c->calls[i].req, &magic, 4);
		c->free[i] = conc - 1 - i;
	}
	c->nb_free = conc;
	snprintf(name, sizeof(name), "perf-cli%u", id);
	perf_rpc_conf(a, &cf, name, 1);
	c->ep = rdx_rpc_endpoint_create(a->dev, &cf);
	if (c->ep == NULL) {
		if (rte_errno != EINVAL)
			fprintf(stderr, "rdx-perf: cannot create rpc endpoint %s (%s): %s\n",
				name, cf.transport, rte_strerror(rte_errno));
		return rte_errno == EINVAL || rte_errno == ENOTSUP ? -EINVAL : -rte_errno;
	}
	c->sess = rdx_rpc_session_create(c->ep);
	if (c->sess == NULL) {
		fprintf(stderr, "rdx-perf: cannot create an rpc session: %s\n",
			rte_strerror(rte_errno));
		return -rte_errno;
	}
	return 0;
}

static void
cli_destroy(struct perf_rpc_cli *c)
{
	if (c->ep != NULL)
		rdx_rpc_endpoint_destroy(c->ep);
	free(c->calls);
	free(c->free);
	free(c->resp);
	free(c->kvreq);
	memset(c, 0, sizeof(*c));
}

/* One process: connect client i's session to a new session of server i % S. */
static int
loopback_connect(struct perf_rpc_cli *c, struct perf_rpc_srv *sv)
{
	struct rdx_rpc_session_info ci, si;
	struct rdx_rpc_session *ss;
	int rc;

	ss = rdx_rpc_session_create(sv->ep);
	if (ss == NULL)
		return -rte_errno;
	sv->sess[sv->nb_sess++] = ss;
	rc = rdx_rpc_session_info_get(c->sess, &ci);
	if (rc == 0)
		rc = rdx_rpc_session_info_get(ss, &si);
	if (rc == 0)
		rc = rdx_rpc_session_connect(c->sess, &si);
	if (rc == 0)
		rc = rdx_rpc_session_connect(ss, &ci);
	if (rc < 0)
		fprintf(stderr, "rdx-perf: cannot connect rpc client %u: %s\n", c->id,
			strerror(-rc));
	return rc;
}

/* The software device's inline progress runs its model from the thread
 * that polls: one thread at a time (as --loopback-lcores split needs
 * --sw-progress thread for the raw-QP tests). */
static bool
sw_inline(const struct perf_app *a)
{
	return a->attr->software && a->o.sw_progress != RDX_SW_PROGRESS_THREAD;
}

bool
perf_rpc_srv_same_lcore(const struct perf_app *a)
{
	return a->o.connect == NULL && a->mpi == NULL && a->nb_lcores == 1 &&
		(sw_inline(a) || a->lcore_ids[0] == rte_get_main_lcore());
}

/* Input checks that need the device or the transport; one line, -EINVAL. */
int
perf_rpc_check(const struct perf_app *a)
{
	const struct perf_opts *o = &a->o;
	uint64_t m = perf_rpc_max_size(o);

	if (m > RDX_RPC_MAX_MAX_MSG) {
		fprintf(stderr, "rdx-perf: bad value '%" PRIu64 "' for -s: lib/rpc messages are at most %u B\n",
			m, RDX_RPC_MAX_MAX_MSG);
		return -EINVAL;
	}
	if (o->concurrent > PERF_RPC_MAX_SLOTS) {
		fprintf(stderr, "rdx-perf: bad value '%u' for --concurrent-ops: lib/rpc keeps at most %u calls in flight per session\n",
			o->concurrent, PERF_RPC_MAX_SLOTS);
		return -EINVAL;
	}
	if (o->rpc_kv != 0 && o->mem != RDX_MEM_HOST && o->mem != RDX_MEM_HUGE) {
		fprintf(stderr, "rdx-perf: bad value for --mem: %s keeps its table in host or huge memory\n",
			perf_rpc_test_name(o));
		return -EINVAL;
	}
	if (o->rpc_kv != 0 && (uint64_t)perf_rpc_max_size(o) - PERF_RPC_KV_HDR > UINT32_MAX / 2) {
		fprintf(stderr, "rdx-perf: bad value for -s: objects too large\n");
		return -EINVAL;
	}
	if (o->servers > PERF_RPC_MAX_SERVERS) {
		fprintf(stderr, "rdx-perf: bad value '%u' for --servers: at most %u rpc server endpoints\n",
			o->servers, PERF_RPC_MAX_SERVERS);
		return -EINVAL;
	}
	if ((uint64_t)o->qps * a->nb_lcores > PERF_RPC_MAX_CLIENTS) {
		fprintf(stderr, "rdx-perf: bad value '%u' for -q: at most %u rpc clients in all\n",
			o->qps, PERF_RPC_MAX_CLIENTS);
		return -EINVAL;
	}
	if (o->sweep_hi != o->sweep_lo || o->wrlog != NULL || o->events || o->bad_rkey ||
	    o->output != PERF_OUTPUT_TABLE) {
		fprintf(stderr, "rdx-perf: --qp-sweep, -o, -e, --output and --inject-bad-rkey are not available with --transport %s\n",
			perf_transport_name(o->transport));
		return -EINVAL;
	}
	if (!o->server && a->nb_lcores > 1 && sw_inline(a)) {
		fprintf(stderr, "rdx-perf: %u client lcores on the software device need --sw-progress thread (inline progress runs the model on one polling thread)\n",
			a->nb_lcores);
		return -EINVAL;
	}
	if (o->transport != PERF_TRANSPORT_INFRC && a->attr->max_ud_msg <= 32) {
		fprintf(stderr, "rdx-perf: bad value '%s' for --transport: device %s has no UD QPs\n",
			perf_transport_name(o->transport), a->attr->name);
		return -EINVAL;
	}
	return 0;
}

int
perf_rpc_setup(struct perf_app *a)
{
	const struct perf_opts *o = &a->o;
	uint32_t l, i, id = 0;
	int rc;

	perf_rpc_nb_clis = o->qps * a->nb_lcores;
	clis = calloc(perf_rpc_nb_clis, sizeof(*clis));
	if (clis == NULL)
		return -ENOMEM;
	for (l = 0; l < a->nb_lcores; l++) {
		struct perf_rpc_lc *lc = &perf_rpc_lcs[l];

		lc->lcore_id = a->lcore_ids[l];
		lc->a = a;
		lc->cli = &clis[l * o->qps];
		lc->nb_cli = o->qps;
		for (i = 0; i < PERF_MAX_MIX; i++) {
			lc->hist[i] = malloc(sizeof(struct rdx_hist));
			if (lc->hist[i] == NULL)
				return -ENOMEM;
			rdx_hist_init(lc->hist[i]);
		}
		for (i = 0; i < o->qps; i++, id++) {
			rc = cli_create(a, &lc->cli[i], id, lc);
			if (rc < 0)
				return rc;
		}
	}
	if (a->mpi != NULL || a->conn != NULL || o->connect != NULL) /* MPI: rpc_mpi.c */
		return a->mpi != NULL ? 0 : perf_rpc_boot_client(a, clis, perf_rpc_nb_clis);
	nb_srvs = o->servers;
	for (i = 0; i < nb_srvs; i++) {
		rc = perf_rpc_srv_create(a, &srvs[i], i, (perf_rpc_nb_clis + nb_srvs - 1 - i) / nb_srvs);
		if (rc < 0)
			return rc;
	}
	for (i = 0; i < perf_rpc_nb_clis; i++) {
		rc = loopback_connect(&clis[i], &srvs[i % nb_srvs]);
		if (rc < 0)
			return rc;
	}
	/* one client lcore: it polls the servers too */
	if (perf_rpc_srv_same_lcore(a)) {
		perf_rpc_lcs[0].srv = srvs;
		perf_rpc_lcs[0].nb_srv = nb_srvs;
	}
	return 0;
}

void
perf_rpc_teardown(struct perf_app *a)
{
	uint32_t i, l;

	/* clients first: their calls end before the servers go */
	for (i = 0; clis != NULL && i < perf_rpc_nb_clis; i++)
		cli_destroy(&clis[i]);
	for (i = 0; i < nb_srvs; i++)
		perf_rpc_srv_destroy(&srvs[i]);
	for (l = 0; l < a->nb_lcores; l++)
		for (i = 0; i < PERF_MAX_MIX; i++) {
			free(perf_rpc_lcs[l].hist[i]);
			perf_rpc_lcs[l].hist[i] = NULL;
		}
	free(clis);
	clis = NULL;
	perf_rpc_nb_clis = 0;
	nb_srvs = 0;
}

/* ---- runs and reports ------------------------------------------------ */

static bool
workers_running(const struct perf_app *a)
{
	unsigned int l;

	for (l = 0; l < a->nb_lcores; l++)
		if (a->lcore_ids[l] != rte_get_main_lcore() &&
		    rte_eal_get_lcore_state(a->lcore_ids[l]) == RUNNING)
			return true;
	return false;
}

/* Launch the client lcores; the main lcore polls the servers (one
 * process) or watches the peer (two) until they are done. */
int
perf_rpc_launch(struct perf_app *a)
{
	unsigned int l, n = 0;
	int rc = 0, lrc;
	bool poll_srv = perf_rpc_lcs[0].nb_srv == 0;

	if (a->nb_lcores == 1 && a->lcore_ids[0] == rte_get_main_lcore()) {
		rc = lc_main(&perf_rpc_lcs[0]);
		if (rc == -ECONNRESET)
			a->run.abort = true; /* no RPC_END to a peer that is gone */
		return rc;
	}
	for (l = 0; l < a->nb_lcores; l++)
		rte_eal_remote_launch(lc_main, &perf_rpc_lcs[l], a->lcore_ids[l]);
	while (workers_running(a)) {
		uint32_t i;

		for (i = 0; poll_srv && i < nb_srvs; i++)
			rdx_rpc_endpoint_poll(srvs[i].ep);
		if (a->conn != NULL && (++n & 4095) == 0 && !a->run.abort &&
		    rdx_conn_peer_alive(a->conn) < 0)
			a->run.abort = true;
	}
	for (l = 0; l < a->nb_lcores; l++) {
		lrc = rte_eal_wait_lcore(a->lcore_ids[l]);
		if (lrc < 0 && rc == 0)
			rc = lrc;
	}
	return rc;
}

/* One run at one size (size != 0) or of the mix (size 0). */
static int
rpc_one_run(struct perf_app *a, uint64_t size)
{
	struct perf_rpc_counts n, peer;
	uint64_t errors = 0, bad = 0, peer_bad = 0;
	char what[48];
	unsigned int l, k;
	int rc, erc;

	memset(&n, 0, sizeof(n));
	memset(&peer, 0, sizeof(peer));
	if (size != 0) {
		perf_rpc_run.nb = 1;
		perf_rpc_run.sizes[0] = size;
		perf_size_name(size, what, sizeof(what));
	} else {
		perf_rpc_run.nb = a->o.nb_mix;
		perf_rpc_run.wsum = 0;
		for (k = 0; k < perf_rpc_run.nb; k++) {
			perf_rpc_run.sizes[k] = a->o.mix_size[k];
			perf_rpc_run.wsum += a->o.mix_weight[k];
			perf_rpc_run.cum[k] = perf_rpc_run.wsum;
		}
		snprintf(what, sizeof(what), "mix");
	}
	perf_rpc_run.nb_obj = perf_rpc_kv_objects(size);
	for (k = 0; a->o.rpc_kv != 0 && k < nb_srvs; k++) {
		rc = perf_rpc_kv_store_reset(a, &srvs[k], size);
		if (rc < 0)
			return rc;
	}
	if (a->conn != NULL) {
		rc = perf_rpc_run_begin(a, size);
		if (rc < 0)
			return rc;
	}
	rc = perf_rpc_launch(a);
	/* the loops ended before the run was done (the report's CUT) */
	a->run_cut = rc < 0 || a->run.abort || rdx_runtime_stopping();
	if (a->conn != NULL && !a->run.abort) {
		erc = perf_rpc_run_end(a, &peer, &peer_bad);
		if (erc < 0 && rc == 0)
			rc = erc;
	}
	for (l = 0; l < a->nb_lcores; l++) {
		struct perf_rpc_lc *lc = &perf_rpc_lcs[l];

		errors += lc->errors;
		a->verify_errors += lc->verify_errors;
		lc->verify_errors = 0;
		if (lc->err != 0)
			perf_run_error(a, "%s", lc->errmsg);
		if (lc->errors != 0)
			perf_run_error(a, "lcore %u: %" PRIu64 " call(s) failed, the first with %s",
				       lc->lcore_id, lc->errors, strerror(-lc->first_err));
	}
	for (k = 0; k < perf_rpc_nb_clis; k++)
		perf_rpc_counts_add(&n, clis[k].ep, &clis[k].base);
	for (k = 0; k < nb_srvs; k++) {
		perf_rpc_counts_add(&n, srvs[k].ep, &srvs[k].base);
		bad += srvs[k].bad_reqs;
		srvs[k].bad_reqs = 0;
	}
	perf_rpc_counts_sum(&n, &peer);
	bad += peer_bad;
	perf_rpc_counts_sum(&tot_counts, &n);
	perf_rpc_counts_line(a, what, &n, errors, bad);
	perf_rpc_report_run(a, size, &n);
	a->nb_runs++;
	if (rc == 0 && (errors != 0 || bad != 0))
		rc = -EIO;
	return rc;
}

int
perf_rpc_main(struct perf_app *a)
{
	const struct perf_opts *o = &a->o;
	unsigned int s;
	int rc;

	rc = perf_rpc_check(a);
	if (rc < 0)
		return rc;
	if (o->server) {
		rc = perf_rpc_server(a);
		for (s = 0; s < nb_srvs; s++)
			perf_rpc_srv_destroy(&srvs[s]);
		nb_srvs = 0;
		return rc;
	}
	rc = perf_rpc_setup(a);
	if (rc == 0)
		rc = perf_rpc_report_init(a);
	if (rc < 0) {
		perf_rpc_teardown(a);
		return rc;
	}
	if (o->nb_mix > 0)
		rc = rpc_one_run(a, 0);
	for (s = 0; o->nb_mix == 0 && s < o->nb_sizes && rc == 0; s++) {
		rc = rpc_one_run(a, o->sizes[s]);
		if (rdx_runtime_stopping())
			break;
	}
	if (a->conn != NULL && rc == 0)
		perf_rpc_bye(a);
	/* the sizes after the last that ran (runs go in order) */
	for (s = a->nb_runs; o->nb_mix == 0 && s < o->nb_sizes; s++)
		perf_report_not_run(a, o->sizes[s], o->qps, 0);
	if (a->nb_runs > 0) {
		int frc;

		perf_report_end(a, rc);
		frc = perf_rpc_report_finish(a, &tot_counts);
		if (rc == 0)
			rc = frc;
	} else if (rc < 0 || rdx_runtime_stopping()) {
		/* no row: --json / --csv still say how it ended */
		perf_report_end(a, rc);
		perf_report_files(a);
	} else {
		rdx_report_free(a->rep);
		a->rep = NULL;
	}
	perf_rpc_teardown(a);
	return rc;
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
