/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rpc diagnostics (slow path): the library's log line (rpc_log, log
 * type rdx.rpc; every file of lib/rpc logs through it, it calls none of
 * them), and when a call times out, one line with its session's state,
 * so that a soak that sees timeouts says which side held what (doc/rpc.md
 * "Failures"). The first
 * RPC_TIMEOUT_LOGS timeouts of an endpoint are logged; the counters count
 * them all.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_log.h>

#include "rdx_rpc_priv.h"

RTE_LOG_REGISTER(rdx_rpc_logtype, rdx.rpc, NOTICE)

/* One ERR line of log type rdx.rpc; a longer one is cut at 2 KiB. */
void
rpc_log(const char *fmt, ...)
{
	char line[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	rte_log(RTE_LOG_ERR, (uint32_t)rdx_rpc_logtype, "rdx rpc: %s\n", line);
}

/* Append to buf[*off..len): snprintf that never runs past the end. */
static void __attribute__((format(printf, 4, 5)))
put(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*off + 1 >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *off, len - *off, fmt, ap);
	va_end(ap);
	if (n > 0)
		*off = RTE_MIN(*off + (size_t)n, len - 1);
}

static const char sstate_ch[] = { 'I', 'R', 'H', 'S' }; /* idle recv handler resp */

size_t
rpc_timeout_describe(const struct rpc_cslot *c, uint64_t now, char *buf, size_t len)
{
	const struct rdx_rpc_session *s = c->sess;
	const struct rdx_rpc_endpoint *ep = s->ep;
	const bool ud = ep->transport != RDX_RPC_TRANSPORT_INFRC;
	size_t off = 0;
	uint32_t k;

	if (len == 0)
		return 0;
	buf[0] = '\0';
	put(buf, len, &off,
	    "endpoint %s session %" PRIu32 ": call %" PRIu64 " (slot %" PRIu32
	    ") timed out, %" PRIu64 " ms without progress; inflight %" PRIu32,
	    ep->name, s->idx, c->id, c->idx,
	    now >= c->t_progress ? (now - c->t_progress) * 1000 / ep->hz : 0, s->inflight);
	if (ud)
		put(buf, len, &off,
		    "; tx_out %" PRIu32 "/%" PRIu32 " nwr %" PRIu32 " pool %" PRIu32 "/%" PRIu32
		    " pump %d last poll %" PRIu64 " us ago",
		    ep->tx_out, ep->qdepth, ep->nwr, ep->pool_nfree, ep->msg_bufs, ep->pump,
		    now >= ep->last_poll ? (now - ep->last_poll) * 1000000 / ep->hz : 0);
	else
		put(buf, len, &off, "; sq_out %" PRIu32 "/%" PRIu32 " pending %d",
		    s->sq_out, s->sq_depth, s->pending);
	/* calls in flight: id, request delivered, response started, the
	 * request's tx cum/next/npkts, the response's rx rcvd/npkts, backoff */
	put(buf, len, &off, "; calls");
	for (k = 0; k < ep->slots; k++) {
		const struct rpc_cslot *x = &s->cs[k];

		if (!x->busy)
			continue;
		put(buf, len, &off, " [%" PRIu32 "] id %" PRIu64 " %" PRIu64 " ms", k, x->id,
		    now >= x->t_progress ? (now - x->t_progress) * 1000 / ep->hz : 0);
		if (ud)
			put(buf, len, &off,
			    " req %s tx %" PRIu32 "/%" PRIu32 "/%" PRIu32 " resp %s rx %" PRIu32
			    "/%" PRIu32 " bo %" PRIu32,
			    x->req_done ? "done" : "open", x->tx.cum, x->tx.next, x->tx.npkts,
			    x->resp_started ? "started" : "none", x->resp_started ? x->rx.rcvd : 0,
			    x->resp_started ? x->rx.npkts : 0, x->backoff);
	}
	/* server slots not idle: state (Recv Handler reSp), id, progress */
	put(buf, len, &off, "; served");
	for (k = 0; k < ep->slots; k++) {
		const struct rpc_sslot *x = &s->ss[k];

		if (x->state == SS_IDLE && (ud || (!x->pending && x->next_buf == RPC_NONE)))
			continue;
		put(buf, len, &off, " [%" PRIu32 "] %c id %" PRIu64, k,
		    x->state < RTE_DIM(sstate_ch) ? sstate_ch[x->state] : '?', x->id);
		if (ud)
			put(buf, len, &off, " tx %" PRIu32 "/%" PRIu32 "/%" PRIu32 " rx %" PRIu32
			    "/%" PRIu32, x->tx.cum, x->tx.next, x->tx.npkts, x->rx.rcvd,
			    x->rx.npkts);
		else
			put(buf, len, &off, " pending %d held %s", x->pending,
			    x->next_buf != RPC_NONE ? "yes" : "no");
	}
	put(buf, len, &off,
	    "; rx %" PRIu64 " tx %" PRIu64 " retx %" PRIu64 " dup %" PRIu64 " bad %" PRIu64
	    " nobuf %" PRIu64 " err %" PRIu64,
	    ep->stats.rx_pkts, ep->stats.tx_pkts, ep->stats.retransmits, ep->stats.dup_dropped,
	    ep->stats.bad_pkts, ep->stats.no_buf, ep->stats.errors);
	return off;
}

void __rte_noinline __rte_cold
rpc_timeout_log(struct rpc_cslot *c)
{
	struct rdx_rpc_endpoint *ep = c->sess->ep;
	char line[1024];

	if (ep->timeout_logs >= RPC_TIMEOUT_LOGS)
		return;
	ep->timeout_logs++;
	rpc_timeout_describe(c, rte_rdtsc(), line, sizeof(line));
	rpc_log("%s%s", line,
		ep->timeout_logs == RPC_TIMEOUT_LOGS ? " (later timeouts are not logged)" : "");
}

void __rte_noinline __rte_cold
rpc_served_giveup_log(struct rpc_sslot *ss)
{
	const struct rdx_rpc_session *s = ss->req.sess;
	struct rdx_rpc_endpoint *ep = s->ep;
	uint64_t now = rte_rdtsc();

	if (ep->timeout_logs >= RPC_TIMEOUT_LOGS)
		return;
	ep->timeout_logs++;
	rpc_log("endpoint %s session %" PRIu32 ": served call %" PRIu64 " (slot %" PRIu32
		") given up in state %c, %" PRIu64 " ms without a packet from the caller; "
		"response tx %" PRIu32 "/%" PRIu32 "/%" PRIu32 " request rx %" PRIu32 "/%" PRIu32
		"; tx_out %" PRIu32 "/%" PRIu32 " pool %" PRIu32 "/%" PRIu32
		"; rx %" PRIu64 " tx %" PRIu64 " retx %" PRIu64 " dup %" PRIu64 " bad %" PRIu64
		" err %" PRIu64 "%s",
		ep->name, s->idx, ss->id, ss->idx,
		ss->state < RTE_DIM(sstate_ch) ? sstate_ch[ss->state] : '?',
		now >= ss->t_progress ? (now - ss->t_progress) * 1000 / ep->hz : 0, ss->tx.cum,
		ss->tx.next, ss->tx.npkts, ss->rx.rcvd, ss->rx.npkts, ep->tx_out, ep->qdepth,
		ep->pool_nfree, ep->msg_bufs, ep->stats.rx_pkts, ep->stats.tx_pkts,
		ep->stats.retransmits, ep->stats.dup_dropped, ep->stats.bad_pkts, ep->stats.errors,
		ep->timeout_logs == RPC_TIMEOUT_LOGS ? " (later timeouts are not logged)" : "");
}
