/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Request/response engines.
 *
 * echo: RAMCloud clusterperf echo_basic over SEND/RECV: a 30-byte request,
 * a response of the chosen size, --concurrent-ops RPCs outstanding per
 * client QP; latency is the full round trip (clusterperf's figure).
 *
 * Ping-pong, the latency mode of send, write_imm and write (as perftest's
 * *_lat): the client sends `size` bytes, the server answers with the same
 * operation and size as soon as it sees the message; one message in flight;
 * the reported latency is half the round trip, as perftest reports it.
 * send/write_imm see the message as a receive completion; write sees it by
 * polling the last byte of the target buffer (perftest's method: mlx5 and
 * the software device place a message's bytes in ascending order).
 */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_atomic.h>

#include "rdx_runtime.h"

#include "perf_app.h"

static inline uint8_t
marker_of(uint64_t seq)
{
	return (uint8_t)((seq & 0x7f) | 0x80);
}

static inline bool
is_echo(const struct perf_lcore *lc)
{
	return lc->eng == &perf_engine_echo;
}

/* Build one outgoing message (request or response) for op seq. */
static void
msg_build(struct perf_lcore *lc, struct perf_ep *ep, struct rdx_wr *wr, struct rdx_sge *sge,
	  uint64_t seq, uint32_t len, uint32_t salt)
{
	const struct perf_run *run = lc->run;
	uint64_t off = (seq & (run->slots - 1)) * run->stride;
	uint64_t roff = (seq & (ep->peer_rslots - 1)) * ep->peer_rstride;
	enum rdx_op op = lc->eng->op;

	memset(wr, 0, sizeof(*wr));
	sge->addr = ep->buf->iova + off;
	sge->length = len;
	sge->lkey = ep->buf->lkey;
	wr->wr_id = seq;
	wr->sge = sge;
	wr->num_sge = 1;
	wr->opcode = (uint8_t)op;
	wr->flags = RDX_WR_SIGNALED;
	if (len <= ep->inline_max)
		wr->flags |= RDX_WR_INLINE;
	wr->remote_addr = ep->rraddr + roff;
	wr->rkey = ep->rrkey;
	wr->imm = rte_cpu_to_be_32((uint32_t)seq);
	if (lc->o->verify)
		perf_mem_fill(ep->buf, off, len, seq, salt);
	if (op == RDX_OP_WRITE) {
		uint8_t m = marker_of(seq);

		rdx_dev_mem_copy_to(ep->buf, off + len - 1, &m, 1);
	}
}

/* Has the WRITE of op seq landed in our rbuf? (ping-pong write) */
static inline bool
write_arrived(const struct perf_ep *ep, uint64_t seq, uint32_t len)
{
	const volatile uint8_t *p = (const volatile uint8_t *)ep->rbuf->addr +
		(seq & (ep->rslots - 1)) * ep->rstride + len - 1;

	if (*p != marker_of(seq))
		return false;
	rte_smp_rmb(); /* payload reads after the marker */
	return true;
}

/* Clear the marker once consumed: the slot comes round again every rslots
 * ops, and an old marker must not pass for a new one. The peer writes the
 * slot again only after our answer, so this cannot race with it. */
static inline void
write_consumed(const struct perf_ep *ep, uint64_t seq, uint32_t len)
{
	volatile uint8_t *p = (volatile uint8_t *)ep->rbuf->addr +
		(seq & (ep->rslots - 1)) * ep->rstride + len - 1;

	*p = 0;
}

static uint64_t
msg_check(struct perf_lcore *lc, struct perf_ep *ep, uint64_t seq, uint32_t len, uint32_t salt)
{
	uint64_t off = (seq & (ep->rslots - 1)) * ep->rstride;

	if (lc->eng->op == RDX_OP_WRITE)
		len--; /* the last byte is the marker, checked already */
	return perf_mem_check(ep->rbuf, off, len, seq, salt);
}

/* Reclaim the send queue. */
static int
sq_reclaim(struct perf_lcore *lc, struct perf_ep *ep, const char *what)
{
	struct rdx_wc wcs[PERF_WC_BURST];
	uint16_t nc, j;

	nc = perf_poll(ep, false, wcs, PERF_WC_BURST);
	for (j = 0; j < nc; j++) {
		if (wcs[j].status != 0)
			return perf_wc_error(lc, ep, &wcs[j], what);
		ep->sq_done += wcs[j].retired != 0 ? wcs[j].retired : 1;
	}
	return nc;
}

int
perf_pingpong_serve(struct perf_lcore *lc, struct perf_ep *ep)
{
	const struct perf_run *run = lc->run;
	const bool echo = is_echo(lc);
	const uint32_t req = (uint32_t)(echo ? run->req_size : run->size);
	const uint32_t resp = (uint32_t)run->size;
	const char *opname = rdx_op_name(lc->eng->op);
	struct rdx_wr wrs[PERF_WC_BURST];
	struct rdx_sge sges[PERF_WC_BURST];
	struct rdx_wc wcs[PERF_WC_BURST];
	uint64_t room;
	uint16_t nc, n = 0, k, j;
	int rc;

	rc = sq_reclaim(lc, ep, opname);
	if (rc < 0)
		return rc;
	room = ep->sq_depth - (ep->posted - ep->sq_done);
	if (room == 0)
		return rc;
	if (lc->eng->op == RDX_OP_WRITE) {
		uint64_t seq = ep->recv_done;

		if (!write_arrived(ep, seq, req))
			return rc;
		if (lc->o->verify)
			lc->verify_errors += msg_check(lc, ep, seq, req, PERF_SALT_REQ);
		write_consumed(ep, seq, req);
		msg_build(lc, ep, &wrs[0], &sges[0], seq, resp, PERF_SALT_RESP);
		n = 1;
		ep->recv_done++;
	} else {
		nc = perf_poll(ep, true, wcs,
				       (uint16_t)(room < PERF_WC_BURST ? room : PERF_WC_BURST));
		for (j = 0; j < nc; j++) {
			uint64_t seq = ep->recv_done;

			if (wcs[j].status != 0)
				return perf_wc_error(lc, ep, &wcs[j], "RECV");
			if (lc->o->verify) {
				if (wcs[j].byte_len != req)
					lc->verify_errors++;
				else
					lc->verify_errors += msg_check(lc, ep, seq, req, PERF_SALT_REQ);
			}
			msg_build(lc, ep, &wrs[n], &sges[n], seq, resp, PERF_SALT_RESP);
			n++;
			ep->recv_done++;
		}
		perf_post_recvs(ep, ep->rslots);
	}
	if (n == 0)
		return rc;
	k = rdx_qp_post_burst(ep->qp, wrs, n);
	ep->posted += k;
	if (k != n) {
		perf_lcore_fail(lc, ENOSPC, "qp %u: response could not be posted (send queue full)",
				ep->index);
		return lc->err;
	}
	return rc + n;
}

/* Client side: poll for responses. Returns completions or negative errno. */
static int
rpc_responses(struct perf_lcore *lc, struct perf_ep *ep, uint32_t resp, unsigned int half)
{
	struct rdx_wc wcs[PERF_WC_BURST];
	uint64_t now;
	uint16_t nc, j;

	if (lc->eng->op == RDX_OP_WRITE) {
		uint64_t seq = ep->completed;

		if (seq == ep->posted || !write_arrived(ep, seq, resp))
			return 0;
		now = rdx_tsc();
		if (lc->o->verify)
			lc->verify_errors += msg_check(lc, ep, seq, resp, PERF_SALT_RESP);
		write_consumed(ep, seq, resp);
		perf_completed(lc, ep, seq, now, resp, half);
		ep->completed++;
		ep->recv_done++;
		lc->last_progress = now;
		return 1;
	}
	nc = perf_poll(ep, true, wcs, PERF_WC_BURST);
	if (nc == 0)
		return 0;
	now = rdx_tsc();
	lc->last_progress = now;
	for (j = 0; j < nc; j++) {
		uint64_t seq = ep->completed;

		if (wcs[j].status != 0)
			return perf_wc_error(lc, ep, &wcs[j], "RECV");
		if (lc->o->verify) {
			if (wcs[j].byte_len != resp)
				lc->verify_errors++;
			else
				lc->verify_errors += msg_check(lc, ep, seq, resp, PERF_SALT_RESP);
		}
		perf_completed(lc, ep, seq, now, resp, half);
		ep->completed++;
		ep->recv_done++;
	}
	perf_post_recvs(ep, ep->rslots);
	return nc;
}

int
perf_pingpong_run(struct perf_lcore *lc)
{
	const struct perf_run *run = lc->run;
	const bool echo = is_echo(lc);
	const uint32_t req = (uint32_t)(echo ? run->req_size : run->size);
	const uint32_t resp = (uint32_t)run->size;
	const unsigned int half = echo ? 0 : 1;
	const uint32_t window = echo ? run->window : 1;
	const char *opname = rdx_op_name(lc->eng->op);
	uint64_t iters = lc->measure ? run->iters : run->warm_iters;
	uint64_t dur = lc->measure ? run->dur_tsc : run->warm_tsc;
	uint64_t now = rdx_tsc(), deadline = now + dur, iter = 0;
	bool timed = iters == 0 && dur != 0;
	struct rdx_wr wrs[RDX_MAX_BURST];
	struct rdx_sge sges[RDX_MAX_BURST];
	unsigned int i;
	int rc;

	for (i = 0; i < lc->nb_eps; i++) {
		struct perf_ep *ep = lc->eps[i];

		ep->target = timed ? UINT64_MAX : ep->posted + iters;
		if (ep->rbuf != NULL && lc->eng->op != RDX_OP_WRITE)
			perf_post_recvs(ep, ep->rslots);
	}
	lc->last_progress = now;
	for (;;) {
		unsigned int active = 0;
		int busy = 0;

		for (i = 0; i < lc->nb_eps; i++) {
			struct perf_ep *ep = lc->eps[i];
			uint16_t n = 0, k, j;

			while (ep->posted + n < ep->target &&
			       ep->posted + n - ep->completed < window &&
			       ep->posted + n - ep->sq_done < ep->sq_depth &&
			       n < run->post_list && n < RDX_MAX_BURST) {
				msg_build(lc, ep, &wrs[n], &sges[n], ep->posted + n, req,
					  PERF_SALT_REQ);
				n++;
			}
			if (n > 0) {
				now = rdx_tsc();
				k = rdx_qp_post_burst(ep->qp, wrs, n);
				for (j = 0; j < k; j++)
					perf_posted(lc, ep, ep->posted + j, now, req);
				ep->posted += k;
			}
			rc = sq_reclaim(lc, ep, opname);
			if (rc < 0)
				return rc;
			busy |= rc;
			rc = rpc_responses(lc, ep, resp, half);
			if (rc < 0)
				return rc;
			busy |= rc;
			if (ep->posted < ep->target || ep->completed != ep->posted ||
			    ep->sq_done != ep->posted)
				active++;
		}
		if (lc->nb_srv > 0) {
			rc = perf_serve_all(lc);
			if (rc < 0)
				return rc;
		}
		if (active == 0)
			break;
		lc->polls++;
		lc->busy_polls += busy != 0;
		/* -e: sleep on the completion channel of the responses (bounded) */
		if (busy == 0 && lc->o->events && lc->nb_srv == 0) {
			for (i = 0; i < lc->nb_eps; i++) {
				struct perf_ep *ep = lc->eps[i];

				if (ep->completed == ep->posted)
					continue;
				perf_cq_wait(ep, lc->eng->op != RDX_OP_WRITE, 1);
				break;
			}
		}
		if ((++iter & 255) == 0) {
			now = rdx_tsc();
			rc = perf_check_slow(lc, now);
			if (rc < 0)
				return rc;
			if (rc > 0 || (timed && now >= deadline)) {
				for (i = 0; i < lc->nb_eps; i++)
					lc->eps[i]->target = lc->eps[i]->posted;
				timed = false;
			}
		}
	}
	return 0;
}

const struct rdx_perf_engine perf_engine_echo = {
	.name = "echo", .op = RDX_OP_SEND, .lat_kind = "rtt",
	.server_recv = true, .client_recv = true,
	.run = perf_pingpong_run, .serve = perf_pingpong_serve,
};
