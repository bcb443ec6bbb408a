/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers the engines share: payload patterns, error reporting, the slow
 * checks of every loop (stop flag, peer gone, timeout), receives, and a
 * synchronous READ for verification.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rdx_conn.h"
#include "rdx_runtime.h"

#include "perf_app.h"

/* The pattern of op `op` at 8-byte word k: every byte depends on the op
 * index and the offset, so a stale or misplaced payload is caught. */
static inline uint64_t
pattern_word(uint64_t op, uint32_t salt, uint64_t k)
{
	uint64_t v = (op + 1) * 0x9E3779B97F4A7C15ull;

	v ^= (k + 1) * 0xC2B2AE3D27D4EB4Full;
	v ^= (uint64_t)salt << 56;
	return v ^ (v >> 29);
}

void
perf_pattern_fill(uint8_t *p, uint64_t len, uint64_t op, uint32_t salt)
{
	uint64_t k, w;

	for (k = 0; k + 8 <= len; k += 8) {
		w = pattern_word(op, salt, k >> 3);
		memcpy(p + k, &w, 8);
	}
	if (k < len) {
		w = pattern_word(op, salt, k >> 3);
		memcpy(p + k, &w, len - k);
	}
}

/* Returns the number of bytes that differ. */
uint64_t
perf_pattern_check(const uint8_t *p, uint64_t len, uint64_t op, uint32_t salt)
{
	uint64_t k, w, bad = 0;
	uint8_t b[8];
	unsigned int j;

	for (k = 0; k < len; k += 8) {
		uint64_t n = len - k < 8 ? len - k : 8;

		w = pattern_word(op, salt, k >> 3);
		memcpy(b, &w, 8);
		if (memcmp(p + k, b, n) == 0)
			continue;
		for (j = 0; j < n; j++)
			bad += p[k + j] != b[j];
	}
	return bad;
}

/* Device memory has no host mapping: go through a bounce buffer. */
static __thread uint8_t bounce[4096];

int
perf_mem_fill(struct rdx_mem *m, uint64_t off, uint64_t len, uint64_t op, uint32_t salt)
{
	uint64_t done, n;
	int rc;

	if (m->addr != NULL) {
		perf_pattern_fill((uint8_t *)m->addr + off, len, op, salt);
		return 0;
	}
	/* chunks are multiples of 8 so the pattern lines up */
	for (done = 0; done < len; done += n) {
		uint64_t k;

		n = len - done < sizeof(bounce) ? len - done : sizeof(bounce);
		for (k = 0; k < n; k += 8) {
			uint64_t w = pattern_word(op, salt, (done + k) >> 3);

			memcpy(bounce + k, &w, n - k < 8 ? n - k : 8);
		}
		rc = rdx_dev_mem_copy_to(m, off + done, bounce, n);
		if (rc < 0)
			return rc;
	}
	return 0;
}

uint64_t
perf_mem_check(struct rdx_mem *m, uint64_t off, uint64_t len, uint64_t op, uint32_t salt)
{
	uint64_t done, n, bad = 0;

	if (m->addr != NULL)
		return perf_pattern_check((const uint8_t *)m->addr + off, len, op, salt);
	for (done = 0; done < len; done += n) {
		uint64_t k;
		uint8_t ref[8];
		unsigned int j;

		n = len - done < sizeof(bounce) ? len - done : sizeof(bounce);
		if (rdx_dev_mem_copy_from(m, off + done, bounce, n) < 0)
			return len;
		for (k = 0; k < n; k += 8) {
			uint64_t w = pattern_word(op, salt, (done + k) >> 3);
			uint64_t c = n - k < 8 ? n - k : 8;

			memcpy(ref, &w, 8);
			for (j = 0; j < c; j++)
				bad += bounce[k + j] != ref[j];
		}
	}
	return bad;
}

uint64_t
perf_local_u64(struct perf_ep *ep, uint64_t off)
{
	uint64_t v = 0;

	if (ep->buf->addr != NULL)
		memcpy(&v, (const uint8_t *)ep->buf->addr + off, 8);
	else
		rdx_dev_mem_copy_from(ep->buf, off, &v, 8);
	return v;
}

void
perf_lcore_fail(struct perf_lcore *lc, int err, const char *fmt, ...)
{
	va_list ap;

	if (lc->err != 0)
		return;
	lc->err = err < 0 ? err : -err;
	va_start(ap, fmt);
	vsnprintf(lc->errmsg, sizeof(lc->errmsg), fmt, ap);
	va_end(ap);
}

int
perf_wc_error(struct perf_lcore *lc, const struct perf_ep *ep, const struct rdx_wc *wc,
	      const char *op)
{
	perf_lcore_fail(lc, EIO, "completion error on lcore %u qp %u: %s failed: %s (status %u, vendor_err 0x%x, wr_id %llu)",
			lc->lcore_id, ep->index, op, rdx_wc_status_name(wc->status),
			wc->status, wc->vendor_err, (unsigned long long)wc->wr_id);
	return lc->err;
}

int
perf_check_slow(struct perf_lcore *lc, uint64_t now)
{
	if (lc->run->abort) {
		perf_lcore_fail(lc, ECONNRESET, "peer closed the bootstrap connection during the run");
		return lc->err;
	}
	if (lc->watch != NULL && now >= lc->next_watch) {
		lc->next_watch = now + rdx_tsc_hz() / 10;
		if (rdx_conn_peer_alive(lc->watch) < 0) {
			perf_lcore_fail(lc, ECONNRESET, "peer closed the bootstrap connection during the run");
			return lc->err;
		}
	}
	if (rdx_runtime_stopping())
		return 1;
	perf_progress_tick(lc, now);
	if (lc->run->timeout_tsc != 0 && now - lc->last_progress > lc->run->timeout_tsc) {
		perf_lcore_fail(lc, ETIMEDOUT, "no completion on lcore %u for %.1f s (peer gone?)",
				lc->lcore_id,
				(double)(now - lc->last_progress) / (double)rdx_tsc_hz());
		return lc->err;
	}
	return 0;
}

int
perf_serve_all(struct perf_lcore *lc)
{
	unsigned int i;
	int work = 0, rc;

	/* the responder's step (lc->serve, set at setup by the loop that
	 * defines it): answer (ping-pong) or consume receives */
	if (lc->serve == NULL)
		return 0;
	if (lc->nb_srv == 1)
		return lc->serve(lc, lc->srv[0]);
	for (i = 0; i < lc->nb_srv; i++) {
		rc = lc->serve(lc, lc->srv[i]);
		if (rc < 0)
			return rc;
		work += rc;
	}
	return work;
}

/* rdx_lcore_loop poller of a responder lcore (server process, loopback
 * split): one pass of the responder step over its endpoints. An error (its
 * line in lc->errmsg) stops the loop. Idle is normal here: one-sided tests
 * never wake the responder. */
int
perf_serve_poll(void *arg)
{
	struct perf_serve_poller *sp = arg;
	struct perf_lcore *lc = sp->lc;
	int rc = perf_serve_all(lc);

	lc->polls++;
	if (rc < 0) {
		sp->rc = rc;
		rdx_lcore_loop_stop(sp->loop);
		return 0;
	}
	lc->busy_polls += rc > 0;
	return rc;
}

int
perf_post_recvs(struct perf_ep *ep, uint64_t want)
{
	struct rdx_recv_wr wr[PERF_WC_BURST];
	struct rdx_sge sge[PERF_WC_BURST];
	uint64_t have = ep->recv_posted - ep->recv_done;
	uint16_t n = 0, k;

	if (want > ep->rslots)
		want = ep->rslots;
	while (have + n < want && n < PERF_WC_BURST) {
		uint64_t seq = ep->recv_posted + n;
		uint32_t slot = (uint32_t)(seq & (ep->rslots - 1));

		sge[n].addr = ep->rbuf->iova + (uint64_t)slot * ep->rstride;
		sge[n].length = ep->rstride;
		sge[n].lkey = ep->rbuf->lkey;
		wr[n].wr_id = seq;
		wr[n].sge = &sge[n];
		wr[n].num_sge = 1;
		n++;
	}
	if (n == 0)
		return 0;
	k = rdx_qp_post_recv_burst(ep->qp, wr, n);
	ep->recv_posted += k;
	return k;
}

int
perf_read_remote(struct perf_lcore *lc, struct perf_ep *ep, uint64_t roff, uint64_t loff,
		 uint32_t len)
{
	struct rdx_sge sge = {
		.addr = ep->buf->iova + loff, .length = len, .lkey = ep->buf->lkey,
	};
	struct rdx_wr wr = {
		.wr_id = UINT64_MAX, .sge = &sge, .num_sge = 1, .opcode = RDX_OP_READ,
		.flags = RDX_WR_SIGNALED, .remote_addr = ep->raddr + roff, .rkey = ep->rkey,
	};
	struct rdx_wc wc;
	uint64_t t0 = rdx_tsc();
	uint64_t limit = lc->run->timeout_tsc != 0 ? lc->run->timeout_tsc : 10 * rdx_tsc_hz();

	if (rdx_qp_post_burst(ep->qp, &wr, 1) != 1) {
		perf_lcore_fail(lc, EIO, "verification READ could not be posted on qp %u", ep->index);
		return lc->err;
	}
	for (;;) {
		if (perf_poll(ep, false, &wc, 1) == 1) {
			if (wc.status != 0)
				return perf_wc_error(lc, ep, &wc, "RDMA_READ (verification)");
			if (wc.wr_id == UINT64_MAX)
				return 0;
		}
		if (lc->nb_srv > 0)
			perf_serve_all(lc);
		if (rdx_tsc() - t0 > limit) {
			perf_lcore_fail(lc, ETIMEDOUT, "verification READ on qp %u timed out", ep->index);
			return lc->err;
		}
	}
}

static inline bool
wc_is_recv(const struct rdx_wc *wc)
{
	return wc->opcode == RDX_WC_RECV || wc->opcode == RDX_WC_RECV_IMM ||
	       wc->opcode == RDX_WC_RECV_WRITE_IMM;
}

/* Take a burst from the shared CQ and park each completion with its QP.
 * A QP never has more completions outstanding than WRs posted (send queue
 * depth, receive queue depth), which is what its rings hold, so they
 * cannot overflow. */
static void
cq_route(struct perf_cqg *g, struct rdx_cq *cq)
{
	struct rdx_wc wcs[PERF_WC_BURST];
	unsigned int b;
	uint16_t nc, j;

	/* full bursts: more may be waiting (bounded: the caller's loop must
	 * go on) */
	for (b = 0, nc = PERF_WC_BURST; b < 16 && nc == PERF_WC_BURST; b++) {
		nc = rdx_cq_poll_burst(cq, wcs, PERF_WC_BURST);
		for (j = 0; j < nc; j++) {
			struct perf_ep *owner = wcs[j].qp_ctx;
			struct perf_wcring *r;

			if (owner == NULL) /* not one of ours: nothing can consume it */
				continue;
			/* separate CQs tell the queue; a single CQ serves QPs
			 * that post no receives */
			if (g->rcq != g->scq)
				r = cq == g->rcq ? &owner->rring : &owner->sring;
			else
				r = wc_is_recv(&wcs[j]) ? &owner->rring : &owner->sring;
			r->wc[r->tail & r->mask] = wcs[j];
			r->tail++;
			g->pending++;
		}
	}
}

/* perf_poll with routing: a shared CQ, or completions parked for ep.
 * Out of line, so the direct poll saves no registers for it. */
static __rte_noinline uint16_t
perf_poll_routed(struct perf_ep *ep, bool recv, struct rdx_wc *wc, uint16_t n)
{
	struct perf_cqg *g = ep->cqg;
	struct perf_wcring *r = recv ? &ep->rring : &ep->sring;
	uint32_t *tick = recv ? &g->rtick : &g->stick;
	uint16_t k = 0;

	if (r->head == r->tail && ++*tick >= g->period) {
		*tick = 0;
		cq_route(g, recv ? g->rcq : g->scq);
	}
	while (k < n && r->head != r->tail) {
		wc[k++] = r->wc[r->head & r->mask];
		r->head++;
	}
	g->pending -= k;
	return k;
}

uint16_t
perf_poll(struct perf_ep *ep, bool recv, struct rdx_wc *wc, uint16_t n)
{
	const struct perf_cqg *g = ep->cqg;
	const struct perf_wcring *r = recv ? &ep->rring : &ep->sring;

	/* the CQ's only QP, and a CQ of its own for this queue (a single CQ
	 * serves QPs that post no receives): nothing to route or park */
	if (g->nb_qps == 1 && r->head == r->tail && (!recv || g->rcq != g->scq))
		return rdx_cq_poll_burst(recv ? g->rcq : g->scq, wc, n);
	return perf_poll_routed(ep, recv, wc, n);
}

uint16_t
perf_poll_sends(struct perf_ep *ep, struct rdx_wc *wc, uint16_t n)
{
	struct perf_cqg *g = ep->cqg;

	/* perf_poll's direct case for the send queue: nothing to route */
	if (g->nb_qps == 1 && ep->sring.head == ep->sring.tail)
		return rdx_cq_poll_req_burst(g->scq, wc, n);
	return perf_poll_routed(ep, false, wc, n);
}

void
perf_cq_wait(struct perf_ep *ep, bool recv, int timeout_ms)
{
	struct perf_cqg *g = ep->cqg;

	uint32_t *tick = recv ? &g->rtick : &g->stick;

	/* a poll was skipped since the last one: poll before sleeping */
	if (*tick != 0) {
		*tick = g->period;
		return;
	}
	if (g->pending == 0)
		rdx_cq_wait(recv ? g->rcq : g->scq, timeout_ms);
}
