/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rpc, the part every transport shares: endpoint configuration and
 * tables, sessions and their info blob, handlers, calls and responses, the
 * continuation and handler dispatch, counters and the /rdx/rpc telemetry
 * commands. The transports are rdx_rpc_rc.c (infrc) and rdx_rpc_ud.c
 * (basic+infud, homa+infud); doc/rpc.md describes them.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_telemetry.h>

#include "rdx_conn.h"
#include "rdx_runtime.h"
#include "rdx_rpc_priv.h"

static const char *const transport_names[RDX_RPC_TRANSPORT_MAX] = {
	[RDX_RPC_TRANSPORT_INFRC] = "infrc",
	[RDX_RPC_TRANSPORT_BASIC_INFUD] = "basic+infud",
	[RDX_RPC_TRANSPORT_HOMA_INFUD] = "homa+infud",
};

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static TAILQ_HEAD(, rdx_rpc_endpoint) reg_list = TAILQ_HEAD_INITIALIZER(reg_list);
static unsigned int reg_seq;

int
rdx_rpc_transport_parse(const char *name)
{
	int i;

	if (name == NULL)
		return -EINVAL;
	for (i = 0; i < RDX_RPC_TRANSPORT_MAX; i++)
		if (strcmp(name, transport_names[i]) == 0)
			return i;
	return -EINVAL;
}

const char *
rdx_rpc_transport_name(enum rdx_rpc_transport t)
{
	return (unsigned int)t < RDX_RPC_TRANSPORT_MAX ? transport_names[t] : "?";
}

/* The TSC rate: the runtime's, else EAL's, else measured here once. */
static uint64_t
tsc_hz(void)
{
	struct timespec a, b, d = { .tv_sec = 0, .tv_nsec = 20 * 1000 * 1000 };
	uint64_t hz = rdx_tsc_hz(), t0, t1, ns;

	if (hz == 0)
		hz = rte_get_tsc_hz();
	if (hz != 0)
		return hz;
	clock_gettime(CLOCK_MONOTONIC, &a);
	t0 = rte_rdtsc();
	nanosleep(&d, NULL);
	t1 = rte_rdtsc();
	clock_gettime(CLOCK_MONOTONIC, &b);
	ns = (uint64_t)(b.tv_sec - a.tv_sec) * 1000000000u + (uint64_t)b.tv_nsec -
	     (uint64_t)a.tv_nsec;
	return ns == 0 ? 1000000000u : (t1 - t0) * 1000000000u / ns;
}

static int
range(const char *what, uint32_t v, uint32_t lo, uint32_t hi)
{
	if (v < lo || v > hi) {
		rpc_log("%s %" PRIu32 " out of range %" PRIu32 "..%" PRIu32, what, v, lo, hi);
		return -EINVAL;
	}
	return 0;
}

/* Resolve the defaults and check every field; ep->dev is set. */
static int
conf_resolve(struct rdx_rpc_endpoint *ep, const struct rdx_rpc_conf *conf)
{
	const struct rdx_dev_attr *a = rdx_dev_attr_get(ep->dev);
	const char *tn = conf->transport != NULL ? conf->transport : "basic+infud";
	int t = rdx_rpc_transport_parse(tn);
	uint32_t mtu_max, call_us;

	if (t < 0) {
		rpc_log("unknown transport '%s' (infrc, basic+infud, homa+infud)", tn);
		return -EINVAL;
	}
	ep->transport = (enum rdx_rpc_transport)t;
	ep->homa = t == RDX_RPC_TRANSPORT_HOMA_INFUD;
	ep->ops = t == RDX_RPC_TRANSPORT_INFRC ? &rpc_rc_ops : &rpc_ud_ops;
	ep->max_msg = conf->max_msg_size != 0 ? conf->max_msg_size : RDX_RPC_DEFAULT_MAX_MSG;
	ep->max_sessions = conf->max_sessions != 0 ? conf->max_sessions : 16;
	ep->slots = conf->slots != 0 ? conf->slots : 8;
	if (range("max_msg_size", ep->max_msg, RDX_RPC_DEFAULT_MAX_MSG, RDX_RPC_MAX_MAX_MSG) ||
	    range("max_sessions", ep->max_sessions, 1, 4096) ||
	    range("slots", ep->slots, 1, RPC_MAX_SLOTS))
		return -EINVAL;
	ep->msg_bufs = conf->msg_bufs != 0 ? conf->msg_bufs : ep->slots * ep->max_sessions;
	if (range("msg_bufs", ep->msg_bufs, 1, ep->slots * ep->max_sessions))
		return -EINVAL;
	ep->qdepth = conf->queue_depth != 0 ? conf->queue_depth : 256;
	if (range("queue_depth", ep->qdepth, 2 * RPC_BURST, a->max_qp_wr))
		return -EINVAL;
	ep->sig_interval = conf->sig_interval != 0 ? conf->sig_interval : 16;
	if (range("sig_interval", ep->sig_interval, 1, ep->qdepth / 2))
		return -EINVAL;
	ep->window = conf->window != 0 ? conf->window : 32;
	if (range("window", ep->window, 1, 64))
		return -EINVAL;
	ep->overcommit = conf->overcommit != 0 ? conf->overcommit : 4;
	if (range("overcommit", ep->overcommit, 1, 64))
		return -EINVAL;
	ep->hz = tsc_hz();
	ep->rto_us = conf->rto_us != 0 ? conf->rto_us : 1000;
	ep->rto = ep->rto_us * ep->hz / 1000000u;
	call_us = conf->call_timeout_us != 0 ? conf->call_timeout_us : 5000000u;
	ep->call_to = (uint64_t)call_us * ep->hz / 1000000u;
	ep->rto_min_us = conf->rto_min_us != 0 ? conf->rto_min_us : 2;
	ep->rto_max_us = conf->rto_max_us != 0 ? conf->rto_max_us : RTE_MIN(200000u, call_us);
	if (range("rto_min_us", ep->rto_min_us, 1, 1000000) ||
	    range("rto_max_us", ep->rto_max_us, RTE_MIN(ep->rto_min_us, call_us), call_us))
		return -EINVAL;
	ep->rto_min = RTE_MAX((uint64_t)ep->rto_min_us * ep->hz / 1000000u, (uint64_t)1);
	ep->rto_max = (uint64_t)ep->rto_max_us * ep->hz / 1000000u;
	ep->scan_period = RTE_MAX(ep->rto / 4, (uint64_t)1);
	ep->rto_least = ep->rto;
	ep->rto_least_sess = RPC_NONE;
	ep->lcore_id = conf->lcore_id_set ? conf->lcore_id : -1;
	if (t == RDX_RPC_TRANSPORT_INFRC) {
		if ((uint64_t)ep->max_msg + RPC_HDR_LEN > a->max_msg_size) {
			rpc_log("max_msg_size %" PRIu32 " + %u: above the device's %" PRIu64,
				ep->max_msg, RPC_HDR_LEN, a->max_msg_size);
			return -EINVAL;
		}
		ep->mtu = ep->max_msg;
		ep->rtt_bytes = 0;
		ep->lim = (struct rpc_pkt_limits){ ep->mtu, ep->max_msg, RDX_RPC_MAX_TYPES };
		return 0;
	}
	if (a->max_ud_msg <= RPC_HDR_LEN) {
		rpc_log("transport %s needs UD: device %s has none", tn, a->name);
		return -ENOTSUP;
	}
	mtu_max = a->max_ud_msg - RPC_HDR_LEN;
	ep->mtu = conf->mtu != 0 ? conf->mtu : mtu_max;
	if (range("mtu", ep->mtu, 64, mtu_max))
		return -EINVAL;
	ep->rtt_bytes = conf->rtt_bytes != 0 ? conf->rtt_bytes : 8 * ep->mtu;
	if (range("rtt_bytes", ep->rtt_bytes, ep->mtu, ep->max_msg))
		return -EINVAL;
	ep->map_words = (rpc_npkts(ep->max_msg, ep->mtu) + 63) / 64;
	ep->lim = (struct rpc_pkt_limits){ ep->mtu, ep->max_msg, RDX_RPC_MAX_TYPES };
	return 0;
}

struct rdx_rpc_endpoint *
rdx_rpc_endpoint_create(struct rdx_dev *dev, const struct rdx_rpc_conf *conf)
{
	struct rdx_rpc_endpoint *ep;
	int ret;

	if (dev == NULL || conf == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	ep = calloc(1, sizeof(*ep));
	if (ep == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	ep->dev = dev;
	ret = conf_resolve(ep, conf);
	if (ret == 0) {
		ep->sess = calloc(ep->max_sessions, sizeof(*ep->sess));
		ep->active = calloc((ep->max_sessions + 63u) / 64u, sizeof(*ep->active));
		if (ep->sess == NULL || ep->active == NULL)
			ret = -ENOMEM;
	}
	if (ret == 0)
		ret = ep->ops->ep_init(ep);
	if (ret != 0) {
		free(ep->active);
		free(ep->sess);
		free(ep);
		rte_errno = -ret;
		return NULL;
	}
	pthread_mutex_lock(&reg_lock);
	if (conf->name != NULL && conf->name[0] != '\0')
		snprintf(ep->name, sizeof(ep->name), "%s", conf->name);
	else
		snprintf(ep->name, sizeof(ep->name), "rpc%u", reg_seq);
	reg_seq++;
	TAILQ_INSERT_TAIL(&reg_list, ep, next);
	pthread_mutex_unlock(&reg_lock);
	return ep;
}

int
rdx_rpc_endpoint_destroy(struct rdx_rpc_endpoint *ep)
{
	uint32_t i;

	if (ep == NULL)
		return 0;
	pthread_mutex_lock(&reg_lock);
	TAILQ_REMOVE(&reg_list, ep, next);
	pthread_mutex_unlock(&reg_lock);
	for (i = 0; i < ep->max_sessions; i++)
		if (ep->sess[i] != NULL)
			rdx_rpc_session_destroy(ep->sess[i]);
	ep->ops->ep_fini(ep);
	free(ep->active);
	free(ep->sess);
	free(ep);
	return 0;
}

int
rdx_rpc_handler_register(struct rdx_rpc_endpoint *ep, uint16_t type,
			 rdx_rpc_handler_fn fn, void *arg)
{
	if (ep == NULL || type >= RDX_RPC_MAX_TYPES)
		return -EINVAL;
	if (fn != NULL && ep->handlers[type].fn != NULL)
		return -EEXIST;
	ep->handlers[type].fn = fn;
	ep->handlers[type].arg = fn != NULL ? arg : NULL;
	return 0;
}

int
rdx_rpc_endpoint_poll(struct rdx_rpc_endpoint *ep)
{
	return ep->ops->poll(ep);
}

int
rdx_rpc_endpoint_poller(void *arg)
{
	return rdx_rpc_endpoint_poll(arg);
}

int
rdx_rpc_endpoint_error(const struct rdx_rpc_endpoint *ep)
{
	if (ep == NULL)
		return -EINVAL;
	return __atomic_load_n(&ep->qp_err, __ATOMIC_RELAXED) ? -EIO : 0;
}

int
rdx_rpc_endpoint_stats_get(const struct rdx_rpc_endpoint *ep, struct rdx_rpc_stats *st)
{
	const uint64_t *src;
	uint64_t *dst;
	size_t i;

	if (ep == NULL || st == NULL)
		return -EINVAL;
	src = (const uint64_t *)&ep->stats;
	dst = (uint64_t *)st;
	for (i = 0; i < sizeof(*st) / sizeof(uint64_t); i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
	return 0;
}

enum rdx_rpc_transport
rdx_rpc_endpoint_transport(const struct rdx_rpc_endpoint *ep)
{
	return ep->transport;
}

const char *
rdx_rpc_endpoint_name(const struct rdx_rpc_endpoint *ep)
{
	return ep->name;
}

uint32_t
rdx_rpc_endpoint_max_msg(const struct rdx_rpc_endpoint *ep)
{
	return ep->max_msg;
}

int
rdx_rpc_endpoint_conf_get(const struct rdx_rpc_endpoint *ep, struct rdx_rpc_conf *conf)
{
	bool ud;

	if (ep == NULL || conf == NULL)
		return -EINVAL;
	ud = ep->transport != RDX_RPC_TRANSPORT_INFRC;
	memset(conf, 0, sizeof(*conf));
	conf->transport = rdx_rpc_transport_name(ep->transport);
	conf->name = ep->name;
	conf->max_msg_size = ep->max_msg;
	conf->max_sessions = ep->max_sessions;
	conf->slots = ep->slots;
	conf->call_timeout_us = (uint32_t)(ep->call_to * 1000000u / ep->hz);
	conf->lcore_id = ep->lcore_id;
	conf->lcore_id_set = ep->lcore_id >= 0;
	if (!ud)
		return 0;
	conf->msg_bufs = ep->msg_bufs;
	conf->mtu = ep->mtu;
	conf->queue_depth = ep->qdepth;
	conf->sig_interval = ep->sig_interval;
	conf->rto_us = ep->rto_us;
	conf->rto_min_us = ep->rto_min_us;
	conf->rto_max_us = ep->rto_max_us;
	conf->window = ep->homa ? 0 : ep->window;
	conf->rtt_bytes = ep->homa ? ep->rtt_bytes : 0;
	conf->overcommit = ep->homa ? ep->overcommit : 0;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Sessions                                                           */

struct rdx_rpc_session *
rdx_rpc_session_create(struct rdx_rpc_endpoint *ep)
{
	struct rdx_rpc_session *s;
	uint64_t *maps = NULL;
	uint32_t i, idx;
	int ret;

	if (ep == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	for (idx = 0; idx < ep->max_sessions && ep->sess[idx] != NULL; idx++)
		;
	if (idx == ep->max_sessions) {
		rte_errno = ENOSPC;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		goto nomem;
	s->cs = calloc(ep->slots, sizeof(*s->cs));
	s->ss = calloc(ep->slots, sizeof(*s->ss));
	if (ep->map_words != 0)
		maps = calloc((size_t)ep->slots * 2 * ep->map_words, sizeof(uint64_t));
	if (s->cs == NULL || s->ss == NULL || (ep->map_words != 0 && maps == NULL))
		goto nomem;
	s->ep = ep;
	s->idx = idx;
	s->act_word = &ep->active[idx / 64u];
	s->act_bit = UINT64_C(1) << (idx % 64u);
	ep->epoch++;
	s->wire_id = idx | (uint32_t)ep->epoch << 24;
	rpc_rtt_init(&s->rtt, ep->rto, ep->rto_min, ep->rto_max);
	for (i = 0; i < ep->slots; i++) {
		s->cs[i].sess = s;
		s->cs[i].idx = i;
		s->cs[i].gent.ctx = &s->cs[i];
		s->cs[i].gent.pos = RPC_NONE;
		s->cs[i].rx.map = maps != NULL ? maps + (size_t)(2 * i) * ep->map_words : NULL;
		s->cs[i].rx.map_words = ep->map_words;
		s->ss[i].req.sess = s;
		s->ss[i].idx = i;
		s->ss[i].buf = RPC_NONE;
		s->ss[i].gent.ctx = &s->ss[i];
		s->ss[i].gent.pos = RPC_NONE;
		s->ss[i].rx.map = maps != NULL ? maps + (size_t)(2 * i + 1) * ep->map_words : NULL;
		s->ss[i].rx.map_words = ep->map_words;
	}
	ret = ep->ops->sess_init(s);
	if (ret != 0) {
		free(maps);
		free(s->cs);
		free(s->ss);
		free(s);
		rte_errno = -ret;
		return NULL;
	}
	ep->sess[idx] = s;
	ep->nsess++;
	return s;
nomem:
	if (s != NULL) {
		free(s->cs);
		free(s->ss);
	}
	free(maps);
	free(s);
	rte_errno = ENOMEM;
	return NULL;
}

int
rdx_rpc_session_info_get(struct rdx_rpc_session *s, struct rdx_rpc_session_info *info)
{
	struct rdx_rpc_endpoint *ep;

	if (s == NULL || info == NULL)
		return -EINVAL;
	ep = s->ep;
	memset(info, 0, sizeof(*info));
	info->magic = RDX_RPC_INFO_MAGIC;
	info->version = RDX_RPC_INFO_VERSION;
	info->transport = (uint8_t)ep->transport;
	info->max_msg_size = ep->max_msg;
	info->slots = ep->slots;
	info->mtu = ep->transport == RDX_RPC_TRANSPORT_INFRC ? 0 : ep->mtu;
	info->session_id = s->wire_id;
	info->rtt_bytes = ep->homa ? ep->rtt_bytes : 0;
	return s->ep->ops->sess_info(s, &info->qp);
}

static int
field_eq(const char *what, uint32_t ours, uint32_t theirs)
{
	if (ours == theirs)
		return 0;
	rpc_log("peer session info: %s %" PRIu32 ", ours %" PRIu32, what, theirs, ours);
	return -EPROTO;
}

int
rdx_rpc_session_connect(struct rdx_rpc_session *s, const struct rdx_rpc_session_info *p)
{
	struct rdx_rpc_session_info me;
	int ret;

	if (s == NULL || p == NULL || s->connected)
		return -EINVAL;
	ret = rdx_rpc_session_info_get(s, &me);
	if (ret != 0)
		return ret;
	if (field_eq("magic", me.magic, p->magic) || field_eq("version", me.version, p->version))
		return -EPROTO;
	if (p->transport != me.transport) {
		rpc_log("peer session info: transport %s, ours %s",
			rdx_rpc_transport_name(p->transport), rdx_rpc_transport_name(me.transport));
		return -EPROTO;
	}
	if (field_eq("max_msg_size", me.max_msg_size, p->max_msg_size) ||
	    field_eq("slots", me.slots, p->slots) || field_eq("mtu", me.mtu, p->mtu) ||
	    field_eq("rtt_bytes", me.rtt_bytes, p->rtt_bytes))
		return -EPROTO;
	ret = s->ep->ops->sess_connect(s, p);
	if (ret != 0)
		return ret;
	s->peer_idx = p->session_id;
	s->connected = true;
	rpc_rto_least_note(s->ep, s);
	return 0;
}

int
rdx_rpc_session_bootstrap(struct rdx_rpc_session *s, struct rdx_conn *c, int timeout_ms)
{
	struct rdx_rpc_session_info me, peer;
	int ret;

	if (s == NULL || c == NULL)
		return -EINVAL;
	ret = rdx_rpc_session_info_get(s, &me);
	if (ret != 0)
		return ret;
	ret = rdx_conn_exchange(c, RDX_RPC_CONN_MSG, &me, &peer, sizeof(me), timeout_ms);
	if (ret != 0) {
		rpc_log("session info exchange: %s", rdx_conn_strerror(c));
		return ret;
	}
	return rdx_rpc_session_connect(s, &peer);
}

int
rdx_rpc_session_bootstrap_poll(struct rdx_rpc_endpoint *ep, struct rdx_conn *c,
			       struct rdx_rpc_session **sessp)
{
	struct rdx_rpc_session_info me, peer;
	struct rdx_rpc_session *s;
	int ret;

	if (ep == NULL || c == NULL || sessp == NULL)
		return -EINVAL;
	*sessp = NULL;
	ret = rdx_conn_recv_ready(c, RDX_RPC_CONN_MSG, sizeof(peer));
	if (ret == -EAGAIN)
		return ret;
	/* all of it there: taken without waiting (timeout 0) */
	if (ret == 0)
		ret = rdx_conn_recv(c, RDX_RPC_CONN_MSG, &peer, sizeof(peer), 0);
	if (ret != 0) {
		rpc_log("session info from %s: %s", rdx_conn_peer_name(c), rdx_conn_strerror(c));
		return ret;
	}
	s = rdx_rpc_session_create(ep);
	if (s == NULL) {
		ret = -rte_errno;
		rpc_log("no session for %s: %s", rdx_conn_peer_name(c), rte_strerror(-ret));
		return ret;
	}
	ret = rdx_rpc_session_info_get(s, &me);
	/* 136 bytes on a connection that has carried only the hello: the
	 * send buffer takes them at once */
	if (ret == 0) {
		ret = rdx_conn_send(c, RDX_RPC_CONN_MSG, &me, sizeof(me), 0);
		if (ret != 0)
			rpc_log("session info to %s: %s", rdx_conn_peer_name(c),
				rdx_conn_strerror(c));
	}
	if (ret == 0)
		ret = rdx_rpc_session_connect(s, &peer);
	if (ret != 0) {
		rdx_rpc_session_destroy(s);
		return ret;
	}
	*sessp = s;
	return 0;
}

int
rdx_rpc_session_destroy(struct rdx_rpc_session *s)
{
	struct rdx_rpc_endpoint *ep;
	uint32_t i;

	if (s == NULL)
		return -EINVAL;
	ep = s->ep;
	/* before the continuations run: one that calls again on this session
	 * gets -ENOTCONN, not a call the session's end would never complete */
	s->connected = false;
	rpc_rto_least_drop(ep, s);
	for (i = 0; i < ep->slots; i++)
		if (s->cs[i].busy)
			rpc_call_complete(&s->cs[i], -ECONNABORTED, 0);
	ep->ops->sess_fini(s);
	*s->act_word &= ~s->act_bit; /* nothing left for the scan */
	ep->sess[s->idx] = NULL;
	ep->nsess--;
	free(s->cs[0].rx.map);
	free(s->cs);
	free(s->ss);
	free(s);
	return 0;
}

struct rdx_rpc_endpoint *
rdx_rpc_session_endpoint(const struct rdx_rpc_session *s)
{
	return s->ep;
}

unsigned int
rdx_rpc_session_inflight(const struct rdx_rpc_session *s)
{
	return s->inflight;
}

/* ------------------------------------------------------------------ */
/* Calls and responses                                                */

int
rdx_rpc_call(struct rdx_rpc_session *s, uint16_t type, const void *req, uint32_t req_len,
	     void *resp_buf, uint32_t resp_cap, rdx_rpc_cont_fn cont, void *arg)
{
	struct rdx_rpc_endpoint *ep;
	struct rpc_cslot *c;
	uint64_t free_m, m;
	uint32_t k;
	int ret;

	if (unlikely(s == NULL || cont == NULL || type >= RDX_RPC_MAX_TYPES ||
		     (req == NULL && req_len > 0) || (resp_buf == NULL && resp_cap > 0)))
		return -EINVAL;
	ep = s->ep;
	if (unlikely(!s->connected))
		return -ENOTCONN;
	if (unlikely(req_len > ep->max_msg))
		return -EMSGSIZE;
	if (unlikely(s->inflight == ep->slots))
		return -EAGAIN;
	/* next_slot, the one after the last call's (calls that complete in
	 * order leave it free); else the first free one after it, round the
	 * ring: a bit scan of the busy mask, no walk over the slots */
	k = s->next_slot;
	if (unlikely(s->cbusy & (UINT64_C(1) << k))) {
		free_m = ~s->cbusy;
		if (ep->slots < 64)
			free_m &= (UINT64_C(1) << ep->slots) - 1;
		if (unlikely(free_m == 0))
			return -EAGAIN;
		m = free_m >> k;
		k = m != 0 ? k + (uint32_t)__builtin_ctzll(m) : (uint32_t)__builtin_ctzll(free_m);
	}
	c = &s->cs[k];
	c->id = c->used ? c->id + ep->slots : c->idx;
	c->type = type;
	c->req = req;
	c->req_len = req_len;
	c->resp = resp_buf;
	c->resp_cap = resp_cap;
	c->cont = cont;
	c->arg = arg;
	c->req_done = false;
	c->resp_started = false;
	c->acks_due = 0;
	ret = ep->ops->call(s, c);
	if (unlikely(ret != 0)) {
		/* nothing went out: the id is not used */
		c->id = c->used ? c->id - ep->slots : 0;
		return ret;
	}
	c->used = true;
	rpc_cs_busy_on(c);
	s->inflight++;
	s->next_slot = c->idx + 1 == ep->slots ? 0 : c->idx + 1;
	ep->stats.calls++;
	ep->stats.tx_bytes += req_len;
	return 0;
}

void
rpc_call_complete(struct rpc_cslot *c, int status, uint32_t resp_len)
{
	struct rdx_rpc_session *s = c->sess;
	struct rdx_rpc_endpoint *ep = s->ep;

	if (unlikely(status == -ETIMEDOUT))
		rpc_timeout_log(c); /* before the slot changes */
	if (c->gent.pos != RPC_NONE)
		rpc_grant_remove(&ep->gs, &c->gent);
	rpc_cs_busy_off(c);
	s->inflight--;
	if (status == 0) {
		ep->stats.calls_ok++;
		ep->stats.rx_bytes += resp_len;
	} else {
		ep->stats.calls_err++;
		if (status == -ETIMEDOUT)
			ep->stats.timeouts++;
	}
	c->cont(s, status, c->resp, resp_len, c->arg);
}

void
rpc_request_dispatch(struct rpc_sslot *ss)
{
	struct rdx_rpc_endpoint *ep = ss->req.sess->ep;
	const struct rpc_handler *h = &ep->handlers[ss->req.type];

	ss->state = SS_HANDLER;
	ep->stats.rx_bytes += ss->req.len;
	if (h->fn == NULL) {
		ss->flags = RPC_F_ERR;
		ss->resp_len = 0;
		ss->state = SS_RESP;
		ep->ops->respond(ss);
		return;
	}
	ep->stats.requests++;
	h->fn(&ss->req, h->arg);
}

int
rdx_rpc_respond(struct rdx_rpc_req *req, uint32_t resp_len)
{
	struct rpc_sslot *ss = (struct rpc_sslot *)req;
	struct rdx_rpc_endpoint *ep;

	if (unlikely(req == NULL))
		return -EINVAL;
	if (unlikely(resp_len > req->resp_cap))
		return -EMSGSIZE;
	ep = req->sess->ep;
	if (unlikely(ss->state != SS_HANDLER))
		return -EINVAL;
	ss->flags = 0;
	ss->resp_len = resp_len;
	ss->state = SS_RESP;
	ep->stats.responses++;
	ep->stats.tx_bytes += resp_len;
	ep->ops->respond(ss);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Telemetry: /rdx/rpc/endpoints, /rdx/rpc/stats,<name>               */

static int
tel_endpoints(const char *cmd __rte_unused, const char *params __rte_unused,
	      struct rte_tel_data *d)
{
	struct rdx_rpc_endpoint *ep;

	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	pthread_mutex_lock(&reg_lock);
	TAILQ_FOREACH(ep, &reg_list, next)
		rte_tel_data_add_array_string(d, ep->name);
	pthread_mutex_unlock(&reg_lock);
	return 0;
}

#define STAT(f) { #f, offsetof(struct rdx_rpc_stats, f) }
static const struct {
	const char *name;
	size_t off;
} stat_names[] = {
	STAT(calls), STAT(calls_ok), STAT(calls_err), STAT(requests), STAT(responses),
	STAT(tx_bytes), STAT(rx_bytes), STAT(tx_pkts), STAT(rx_pkts), STAT(retransmits),
	STAT(acks_sent), STAT(grants_sent), STAT(grants_rcvd), STAT(resends_sent),
	STAT(resends_rcvd), STAT(busy_sent), STAT(busy_rcvd), STAT(dup_dropped),
	STAT(bad_pkts), STAT(no_buf), STAT(timeouts), STAT(errors),
};
_Static_assert(RTE_DIM(stat_names) == sizeof(struct rdx_rpc_stats) / sizeof(uint64_t),
	       "every counter has a telemetry name");

static int
tel_stats(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	struct rdx_rpc_endpoint *ep;
	struct rdx_rpc_stats st;
	int ret = -ENOENT;
	size_t i;

	if (params == NULL)
		return -EINVAL;
	pthread_mutex_lock(&reg_lock);
	TAILQ_FOREACH(ep, &reg_list, next) {
		if (strcmp(ep->name, params) != 0)
			continue;
		rdx_rpc_endpoint_stats_get(ep, &st);
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_string(d, "transport", rdx_rpc_transport_name(ep->transport));
		rte_tel_data_add_dict_u64(d, "max_msg_size", ep->max_msg);
		rte_tel_data_add_dict_u64(d, "slots", ep->slots);
		rte_tel_data_add_dict_u64(d, "sessions", ep->nsess);
		rte_tel_data_add_dict_u64(d, "mtu", ep->mtu);
		for (i = 0; i < RTE_DIM(stat_names); i++) {
			uint64_t v;

			memcpy(&v, (const char *)&st + stat_names[i].off, sizeof(v));
			rte_tel_data_add_dict_u64(d, stat_names[i].name, v);
		}
		ret = 0;
		break;
	}
	pthread_mutex_unlock(&reg_lock);
	return ret;
}

RTE_INIT(rdx_rpc_telemetry_init)
{
	rte_telemetry_register_cmd(RDX_RPC_TELEMETRY_CMD_ENDPOINTS, tel_endpoints,
		"RPC endpoints of this process (names). No parameters");
	rte_telemetry_register_cmd(RDX_RPC_TELEMETRY_CMD_STATS, tel_stats,
		"One RPC endpoint: transport, sizes and counters. Parameter: endpoint name");
}
