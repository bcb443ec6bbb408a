/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * echo on lib/rpc, the client side: the client endpoints, the calls each
 * keeps in flight, one lcore's phases (fill, warm-up, measured) and the
 * launch of the client lcores of one run. Calls rpc_kv.c (KV calls) and
 * rpc_srv.c (the shared configuration, the servers the main lcore polls).
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

#include "rdx_conn.h"
#include "rdx_hist.h"
#include "rdx_rpc.h"
#include "rdx_runtime.h"

#include "perf_app.h"
#include "perf_opts.h"
#include "rpc_perf.h"

struct perf_rpc_run perf_rpc_run;
struct perf_rpc_lc perf_rpc_lcs[RDX_MAX_LCORES];

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
			uint64_t r = perf_rpc_xorshift(&c->rng) % perf_rpc_run.wsum;

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

			rc = perf_rpc_kv_issue(c, k, a->o.verify);
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

int
perf_rpc_cli_create(struct perf_app *a, struct perf_rpc_cli *c, uint32_t id,
		    struct perf_rpc_lc *lc)
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

void
perf_rpc_cli_destroy(struct perf_rpc_cli *c)
{
	if (c->ep != NULL)
		rdx_rpc_endpoint_destroy(c->ep);
	free(c->calls);
	free(c->free);
	free(c->resp);
	free(c->kvreq);
	memset(c, 0, sizeof(*c));
}

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
	uint32_t nb_srvs;
	struct perf_rpc_srv *srvs = perf_rpc_srvs(&nb_srvs);

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
