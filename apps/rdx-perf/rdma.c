/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Streaming engines: write, write_imm, read, send (and the loop the
 * atomics reuse). Each QP keeps up to -t ops in flight, posts -l WRs per
 * doorbell, and asks for a completion every -Q WRs, for the WR that fills
 * the window and for the last one; one send completion retires every earlier WR
 * (rdx_wc.retired), in order, so op sequence numbers need no lookup.
 * Latency of an op = post to the completion that retired it.
 */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>

#include "rdx_runtime.h"

#include "perf_app.h"

static inline uint32_t
min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/* What can be checked when op seq completed (write/write_imm: the peer's
 * bytes in loopback; read: our bytes). */
static void
stream_verify(struct perf_lcore *lc, struct perf_ep *ep, uint64_t seq)
{
	const struct perf_run *run = lc->run;
	uint64_t off = (seq & (run->slots - 1)) * run->stride;
	enum rdx_op op = lc->eng->op;

	if (op == RDX_OP_READ)
		lc->verify_errors += perf_mem_check(ep->buf, off, run->size,
						    seq & (run->slots - 1), PERF_SALT_READ);
	else if ((op == RDX_OP_WRITE || op == RDX_OP_WRITE_IMM) && ep->peer != NULL)
		lc->verify_errors += perf_mem_check(ep->peer->buf, off, run->size, seq,
						    PERF_SALT_DATA);
}

int
perf_stream_run(struct perf_lcore *lc, const struct perf_stream_hooks *h)
{
	const struct perf_run *run = lc->run;
	const struct rdx_perf_engine *eng = lc->eng;
	const bool verify = lc->o->verify;
	const bool lat = lc->o->mode == PERF_MODE_LAT;
	const uint32_t plist = min_u32(run->post_list, RDX_MAX_BURST);
	const uint32_t size = (uint32_t)run->size;
	const uint32_t sig_every = lc->o->sig_every;
	struct rdx_wr wrs[RDX_MAX_BURST];
	struct rdx_sge sges[RDX_MAX_BURST];
	struct rdx_wc wcs[PERF_WC_BURST];
	uint64_t iters = lc->measure ? run->iters : run->warm_iters;
	uint64_t dur = lc->measure ? run->dur_tsc : run->warm_tsc;
	uint64_t now = rdx_tsc(), deadline = now + dur, iter = 0;
	bool timed = iters == 0 && dur != 0;
	bool serve_inline = lc->nb_srv > 0;
	unsigned int i, j;
	int rc;

	memset(wrs, 0, sizeof(wrs));
	for (i = 0; i < lc->nb_eps; i++) {
		struct perf_ep *ep = lc->eps[i];

		ep->target = timed ? UINT64_MAX : ep->posted + iters;
	}
	lc->last_progress = now;
	for (;;) {
		unsigned int active = 0;
		int busy = 0;

		for (i = 0; i < lc->nb_eps; i++) {
			struct perf_ep *ep = lc->eps[i];
			uint64_t inflight = ep->posted - ep->completed;
			uint16_t nc, k;

			if (ep->posted < ep->target && inflight < run->window) {
				uint64_t left = ep->target - ep->posted;
				uint32_t n = min_u32(plist, (uint32_t)(run->window - inflight));

				if (left < n)
					n = (uint32_t)left;
				for (j = 0; j < n; j++) {
					uint64_t seq = ep->posted + j;
					uint64_t off = (seq & (run->slots - 1)) * run->stride;
					struct rdx_wr *wr = &wrs[j];

					sges[j].addr = ep->buf->iova + off;
					sges[j].length = size;
					sges[j].lkey = ep->buf->lkey;
					wr->wr_id = seq;
					wr->sge = &sges[j];
					wr->num_sge = 1;
					wr->opcode = (uint8_t)eng->op;
					wr->remote_addr = ep->raddr + off;
					wr->rkey = ep->rkey;
					wr->flags = size <= ep->inline_max &&
						eng->op != RDX_OP_READ && !eng->atomic ?
						RDX_WR_INLINE : 0;
					/* a CQE every -Q WRs, for the WR that fills the
					 * window and for the last one (else nothing
					 * would retire the unsignaled tail) */
					if (lat || ep->sig_left <= 1 || seq + 1 == ep->target ||
					    seq + 1 - ep->completed == run->window) {
						wr->flags |= RDX_WR_SIGNALED;
						ep->sig_left = sig_every;
					} else {
						ep->sig_left--;
					}
					wr->imm = rte_cpu_to_be_32((uint32_t)seq);
					if (h != NULL && h->prep != NULL)
						h->prep(lc, ep, wr, seq);
					else if (verify && eng->op == RDX_OP_READ && ep->buf->addr != NULL)
						memset((uint8_t *)ep->buf->addr + off, 0, size);
					else if (verify)
						perf_mem_fill(ep->buf, off, size, seq, PERF_SALT_DATA);
				}
				now = rdx_tsc();
				k = rdx_qp_post_burst(ep->qp, wrs, (uint16_t)n);
				for (j = 0; j < k; j++)
					perf_posted(lc, ep, ep->posted + j, now, size);
				if (k != n) /* the unposted WRs are built again */
					ep->sig_left = 1;
				if (k > 0)
					ep->last_sig = (wrs[k - 1].flags & RDX_WR_SIGNALED) != 0;
				ep->posted += k;
			}
			if (ep->posted < ep->target)
				active++;
			if (ep->posted == ep->completed)
				continue; /* nothing in flight: nothing to poll */
			active += ep->posted >= ep->target;
			nc = perf_poll(ep, false, wcs, PERF_WC_BURST);
			if (nc == 0)
				continue;
			busy = 1;
			now = rdx_tsc();
			lc->last_progress = now;
			for (j = 0; j < nc; j++) {
				uint16_t r = wcs[j].retired != 0 ? wcs[j].retired : 1;

				if (wcs[j].status != 0)
					return perf_wc_error(lc, ep, &wcs[j], rdx_op_name(eng->op));
				while (r-- > 0) {
					uint64_t seq = ep->completed;

					if (h != NULL && h->done != NULL) {
						rc = h->done(lc, ep, seq);
						if (rc < 0)
							return rc;
					} else if (verify) {
						stream_verify(lc, ep, seq);
					}
					perf_completed(lc, ep, seq, now, size, 0);
					ep->completed++;
				}
			}
		}
		if (serve_inline) {
			rc = perf_serve_all(lc);
			if (rc < 0)
				return rc;
		}
		if (active == 0)
			break;
		lc->polls++;
		lc->busy_polls += (uint64_t)busy;
		/* -e: sleep on the completion channel instead of spinning
		 * (bounded, so the slow checks below still run) */
		if (!busy && lc->o->events) {
			for (i = 0; i < lc->nb_eps; i++)
				if (lc->eps[i]->posted != lc->eps[i]->completed) {
					perf_cq_wait(lc->eps[i], false, 1);
					break;
				}
		}
		if ((++iter & 255) == 0) {
			now = rdx_tsc();
			rc = perf_check_slow(lc, now);
			if (rc < 0)
				return rc;
			if (rc > 0 || (timed && now >= deadline)) {
				/* stop posting and drain; when the last WR posted
				 * was unsignaled, one more (signaled) retires it */
				for (i = 0; i < lc->nb_eps; i++)
					lc->eps[i]->target = lc->eps[i]->posted +
						(lc->eps[i]->last_sig ? 0 : 1);
				timed = false;
			}
		}
	}
	return 0;
}

/* Responder of send and write_imm: consume receive completions and keep
 * the receive queue full. */
int
perf_serve_recv(struct perf_lcore *lc, struct perf_ep *ep)
{
	struct rdx_wc wcs[PERF_WC_BURST];
	uint16_t nc, j;

	nc = perf_poll(ep, true, wcs, PERF_WC_BURST);
	for (j = 0; j < nc; j++) {
		const struct rdx_wc *wc = &wcs[j];
		uint64_t seq = ep->recv_done;

		if (wc->status != 0)
			return perf_wc_error(lc, ep, wc, "RECV");
		if (lc->o->verify) {
			if (wc->opcode == RDX_WC_RECV) {
				uint64_t off = (seq & (ep->rslots - 1)) * ep->rstride;

				if (wc->byte_len != lc->run->size)
					lc->verify_errors++;
				else
					lc->verify_errors += perf_mem_check(ep->rbuf, off, wc->byte_len,
									    seq, PERF_SALT_DATA);
			} else if (wc->opcode == RDX_WC_RECV_WRITE_IMM) {
				/* the immediate carries the op index; ops arrive in order */
				if (rte_be_to_cpu_32(wc->imm) != (uint32_t)seq)
					lc->verify_errors++;
			}
		}
		ep->recv_done++;
	}
	perf_post_recvs(ep, ep->rslots);
	return nc;
}

static int
stream_run(struct perf_lcore *lc)
{
	return perf_stream_run(lc, NULL);
}

const struct rdx_perf_engine perf_engine_write = {
	.name = "write", .op = RDX_OP_WRITE, .lat_kind = "half-rtt",
	.run = stream_run, .lat_run = perf_pingpong_run, .lat_serve = perf_pingpong_serve,
};

const struct rdx_perf_engine perf_engine_write_imm = {
	.name = "write_imm", .op = RDX_OP_WRITE_IMM, .lat_kind = "half-rtt",
	.server_recv = true, .client_recv = true,
	.run = stream_run, .serve = perf_serve_recv,
	.lat_run = perf_pingpong_run, .lat_serve = perf_pingpong_serve,
};

const struct rdx_perf_engine perf_engine_read = {
	.name = "read", .op = RDX_OP_READ, .lat_kind = "rtt",
	.run = stream_run,
};

const struct rdx_perf_engine perf_engine_send = {
	.name = "send", .op = RDX_OP_SEND, .lat_kind = "half-rtt",
	.server_recv = true, .client_recv = true,
	.run = stream_run, .serve = perf_serve_recv,
	.lat_run = perf_pingpong_run, .lat_serve = perf_pingpong_serve,
};
