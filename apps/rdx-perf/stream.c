/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bandwidth loop (PERF_LOOP_STREAM) of one-sided ops, sends and
 * atomics. Each QP keeps up to -t ops in flight, posts -l WRs per doorbell,
 * and asks for a completion every -Q WRs, for the WR that fills the window
 * and for the last one; one send completion retires every earlier WR
 * (rdx_wc.retired), in order, so op sequence numbers need no lookup.
 * Latency of an op = post to the completion that retired it.
 *
 * One pass over the QPs: post window, reap, then the shared end of a pass
 * (perf_loop.h: serve, idle wait, checks, deadline and drain). What an
 * engine adds comes through its table (prep/done, --verify fill/check).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_common.h>

#include "rdx_runtime.h"

#include "perf_app.h"
#include "perf_loop.h"

/* The engine's per-op hooks, resolved once per phase. */
struct stream_ops {
	void (*prep)(struct perf_lcore *, struct perf_ep *, struct rdx_wr *, uint64_t);
	void (*fill)(struct perf_lcore *, struct perf_ep *, uint64_t, uint64_t);
	int (*done)(struct perf_lcore *, struct perf_ep *, uint64_t);
	void (*check)(struct perf_lcore *, struct perf_ep *, uint64_t);
	uint8_t opcode;
	bool may_inline;
	bool lat;
	bool ud;                 /* --transport ud: datagrams (perf_ud_dest) */
	bool rate;               /* --rate: open loop (rate.h) */
	bool imm;                /* the opcode carries an immediate (the op's number) */
	bool per_wr;             /* a per-WR step besides the addresses (imm, prep, fill) */
	bool peak;               /* BW peak (struct perf_peak): closed-loop bandwidth */
	bool batch;              /* ops are timed by post list (struct stream_tmpl) and
				  * retired in runs (stream_retire_runs): no per-op
				  * hook, no --rate, no -o log */
	uint32_t plist;
	uint32_t size;
	uint32_t sig_every;
	/* the immediate of op seq: (seq & imm_mask) | imm_run (UD: the run
	 * too, perf_ud_stream_imm; else the op number's low 32 bits) */
	uint32_t imm_mask;
	uint32_t imm_run;
};

/*
 * The WRs of one QP's post list, built once per phase (stream_tmpl_init):
 * a post writes only what changes from one op to the next (stream_post):
 * the op numbers; the slot addresses when the post list starts at another
 * slot than the one they were written for (not when -l divides the slots
 * and posts start at slot 0, as with -l = -t); the signaled flags.
 * In batch mode the ops are timed per post list: post list number p starts
 * at op pl_seq[p & pl_mask] and was posted at pl_tsc[p & pl_mask]; the post
 * lists pl_done .. pl_next - 1 have ops in flight (at most -t of them).
 */
struct stream_tmpl {
	struct rdx_wr wrs[RDX_MAX_BURST];
	struct rdx_sge sges[RDX_MAX_BURST];
	uint8_t flags;           /* every WR's flags but RDX_WR_SIGNALED */
	uint8_t nsig;            /* WRs with RDX_WR_SIGNALED set: sig[0..nsig) */
	uint8_t sig[RDX_MAX_BURST];
	uint32_t addr_n;         /* WRs 0..addr_n-1 hold the addresses of the */
	uint64_t addr_slot;      /* slots from addr_slot on */
	uint32_t pl_mask;
	uint64_t pl_next;        /* post lists posted */
	uint64_t pl_done;        /* the oldest post list with an op in flight */
	uint64_t *pl_seq;
	uint64_t *pl_tsc;
};

static inline uint32_t
min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/* What no post changes: opcode, SGE length and key, rkey, inline, the UD
 * destination. */
static void
stream_tmpl_init(const struct stream_ops *so, const struct perf_ep *ep, struct stream_tmpl *t)
{
	uint32_t j;

	t->flags = so->may_inline && so->size <= ep->inline_max ? RDX_WR_INLINE : 0;
	t->nsig = 0;
	t->addr_n = 0;
	/* what an earlier phase left in flight counts from now, as one list */
	t->pl_next = 0;
	t->pl_done = 0;
	if (ep->posted != ep->completed) {
		t->pl_seq[0] = ep->completed;
		t->pl_tsc[0] = rdx_tsc();
		t->pl_next = 1;
	}
	for (j = 0; j < RDX_MAX_BURST; j++) {
		struct rdx_wr *wr = &t->wrs[j];

		t->sges[j].length = so->size;
		t->sges[j].lkey = ep->buf->lkey;
		wr->sge = &t->sges[j];
		wr->num_sge = 1;
		wr->opcode = so->opcode;
		wr->rkey = ep->rkey;
		wr->flags = t->flags;
		if (so->ud)
			perf_ud_dest(ep, wr);
	}
}

/*
 * Which of the n WRs about to be posted ask for a completion: one every -Q
 * WRs (ep->sig_left counts down to the next), and the last of the post when
 * it fills the window or is the phase's last op (else nothing would retire
 * the unsignaled tail); lat: every WR. The WRs signaled by the previous post
 * are cleared first: only t->sig[0..nsig) have RDX_WR_SIGNALED.
 */
static inline void
stream_signal(const struct stream_ops *so, struct perf_ep *ep, struct stream_tmpl *t, uint32_t n,
	      bool last)
{
	struct rdx_wr *wrs = t->wrs;
	uint64_t j, q = so->sig_every;
	uint32_t l = UINT32_MAX;  /* the last signaled WR */
	unsigned int s;

	for (s = 0; s < t->nsig; s++)
		wrs[t->sig[s]].flags = t->flags;
	t->nsig = 0;
	if (unlikely(so->lat)) {
		for (j = 0; j < n; j++) {
			wrs[j].flags |= RDX_WR_SIGNALED;
			t->sig[t->nsig++] = (uint8_t)j;
		}
		ep->sig_left = so->sig_every;
		return;
	}
	for (j = ep->sig_left <= 1 ? 0 : ep->sig_left - 1; j < n; j += q) {
		wrs[j].flags |= RDX_WR_SIGNALED;
		t->sig[t->nsig++] = (uint8_t)j;
		l = (uint32_t)j;
	}
	if (last && l != n - 1) {
		wrs[n - 1].flags |= RDX_WR_SIGNALED;
		t->sig[t->nsig++] = (uint8_t)(n - 1);
		l = n - 1;
	}
	ep->sig_left = l == UINT32_MAX ? ep->sig_left - n : so->sig_every - (n - 1 - l);
}

/* The slot addresses of WRs 0..n-1 for a post list starting at slot0 (UD:
 * no remote address; the union holds the destination). */
static inline __attribute__((always_inline)) void
stream_addrs(const struct stream_ops *so, const struct perf_run *run, const struct perf_ep *ep,
	     struct stream_tmpl *t, uint64_t slot0, uint32_t n)
{
	const uint64_t smask = run->slots - 1, iova = ep->buf->iova, raddr = ep->raddr;
	const uint32_t stride = run->stride;
	uint32_t j;

	for (j = 0; j < n; j++) {
		uint64_t off = ((slot0 + j) & smask) * stride;

		t->sges[j].addr = iova + off;
		if (!so->ud)
			t->wrs[j].remote_addr = raddr + off;
	}
	/* an engine's prep may rewrite them (atomics): then every post does */
	t->addr_n = so->prep == NULL ? n : 0;
	t->addr_slot = slot0;
}

/* The n WRs of the next post list in t->wrs (`last`: the last one must be
 * signaled, stream_signal). */
static inline __attribute__((always_inline)) void
stream_build(struct perf_lcore *lc, const struct stream_ops *so, struct perf_ep *ep,
	     struct stream_tmpl *t, uint32_t n, bool last)
{
	const struct perf_run *run = lc->run;
	struct rdx_wr *wrs = t->wrs;
	uint64_t seq = ep->posted;
	uint32_t j;

	/* per WR: its op number (four at a time: the loop costs more than the
	 * store); the addresses only when the slots moved */
	for (j = 0; j + 4 <= n; j += 4) {
		wrs[j].wr_id = seq + j;
		wrs[j + 1].wr_id = seq + j + 1;
		wrs[j + 2].wr_id = seq + j + 2;
		wrs[j + 3].wr_id = seq + j + 3;
	}
	for (; j < n; j++)
		wrs[j].wr_id = seq + j;
	if (unlikely((seq & (run->slots - 1)) != t->addr_slot || n > t->addr_n))
		stream_addrs(so, run, ep, t, seq & (run->slots - 1), n);
	stream_signal(so, ep, t, n, last);
	if (unlikely(so->per_wr)) {
		for (j = 0; j < n; j++, seq++) {
			if (so->imm)
				wrs[j].imm = rte_cpu_to_be_32(((uint32_t)seq & so->imm_mask) |
							      so->imm_run);
			if (so->prep != NULL)
				so->prep(lc, ep, &wrs[j], seq);
			else if (so->fill != NULL)
				so->fill(lc, ep, (seq & (run->slots - 1)) * run->stride, seq);
		}
	}
}

/* BW peak: a post list of k ops posted at now */
static inline void
stream_peak_post(struct perf_lcore *lc, uint32_t k, uint64_t now)
{
	struct perf_peak *pk = &lc->peak;
	uint64_t seq = pk->done + pk->inflight;
	struct perf_peak_ring *f = &pk->far;

	if (lc->measure) {
		uint32_t s = pk->recent.next++ & (PERF_PEAK_RING - 1);

		pk->recent.seq[s] = seq;
		pk->recent.tsc[s] = now;
		if (!pk->started) {
			pk->started = true;
			pk->first_tsc = now;
		}
		if (f->next == 0 || seq - f->seq[(f->next - 1) & (PERF_PEAK_RING - 1)] >=
		    RTE_MAX((uint64_t)PERF_PEAK_STRIDE, 4 * pk->inflight)) {
			s = f->next++ & (PERF_PEAK_RING - 1);
			f->seq[s] = seq;
			f->tsc[s] = now;
		}
	}
	pk->inflight += k;
}

/* BW peak: the window from the post at tsc of op seq to done ops at now */
static inline void
stream_peak_try(struct perf_peak *pk, uint64_t seq, uint64_t tsc, uint64_t now)
{
	uint64_t ops, dt;

	if (seq >= pk->done)
		return;
	ops = pk->done - seq;
	dt = now - tsc;
	if (pk->best_n == 0 || (double)dt * (double)pk->best_n < (double)pk->best_dt * (double)ops) {
		pk->best_dt = dt;
		pk->best_n = ops;
	}
}

/* BW peak: r ops retired at now; each recorded post whose first op is
 * among the retired ones gives a time per op */
static inline void
stream_peak_done(struct perf_lcore *lc, uint64_t r, uint64_t now)
{
	struct perf_peak *pk = &lc->peak;
	uint32_t k, n;

	pk->inflight -= RTE_MIN(r, pk->inflight);
	if (!lc->measure || !pk->started)
		return;
	pk->done += r;
	stream_peak_try(pk, 0, pk->first_tsc, now);
	n = RTE_MIN(pk->recent.next, PERF_PEAK_RING);
	for (k = 0; k < n; k++)
		stream_peak_try(pk, pk->recent.seq[k], pk->recent.tsc[k], now);
	n = RTE_MIN(pk->far.next, PERF_PEAK_RING);
	for (k = 0; k < n; k++)
		stream_peak_try(pk, pk->far.seq[k], pk->far.tsc[k], now);
}

/* Step 1: fill the QP's window, -l WRs per doorbell. Returns the WRs posted. */
static inline __attribute__((always_inline)) uint16_t
stream_post(struct perf_lcore *lc, const struct stream_ops *so, struct perf_ep *ep,
	    struct stream_tmpl *t)
{
	const struct perf_run *run = lc->run;
	uint64_t inflight = ep->posted - ep->completed;
	struct rdx_wr *wrs = t->wrs;
	uint64_t left, now;
	uint32_t n, j;
	uint16_t k;

	if (ep->posted >= ep->target || inflight >= run->window)
		return 0;
	left = ep->target - ep->posted;
	n = min_u32(so->plist, (uint32_t)(run->window - inflight));
	if (left < n)
		n = (uint32_t)left;
	/* --rate: only the ops whose intended send time has come (rate.h) */
	if (unlikely(so->rate)) {
		n = perf_rate_due(run, ep, rdx_tsc(), n);
		if (n == 0)
			return 0;
	}
	stream_build(lc, so, ep, t, n, n == left || n == run->window - inflight);
	now = rdx_tsc();
	k = rdx_qp_post_burst(ep->qp, wrs, (uint16_t)n);
	if (so->peak && k > 0)
		stream_peak_post(lc, k, now);
	if (likely(so->batch)) {
		/* one time for the post list: every op of it gets it */
		if (k > 0) {
			t->pl_seq[t->pl_next & t->pl_mask] = ep->posted;
			t->pl_tsc[t->pl_next & t->pl_mask] = now;
			t->pl_next++;
		}
	} else if (likely(!so->rate)) {
		for (j = 0; j < k; j++)
			perf_posted(lc, ep, ep->posted + j, now, so->size);
	} else {
		/* --rate: the latency starts at the intended send time */
		for (j = 0; j < k; j++)
			perf_posted(lc, ep, ep->posted + j,
				    perf_rate_intended(run, ep, ep->posted + j), so->size);
	}
	if (k != n) /* the unposted WRs are built again */
		ep->sig_left = 1;
	if (k > 0)
		ep->last_sig = (wrs[k - 1].flags & RDX_WR_SIGNALED) != 0;
	ep->posted += k;
	ep->tx += k;
	return k;
}

/*
 * The r ops from ep->completed on completed at `now` (batch mode): each
 * post list they cover is one weighted histogram record (its ops share its
 * post time), the same histogram as one record per op.
 */
static inline void
stream_retire_runs(struct perf_lcore *lc, struct perf_ep *ep, struct stream_tmpl *t,
		   uint32_t r, uint64_t now)
{
	uint64_t first = ep->completed, end = first + r;

	lc->ops += r;
	lc->bytes += (uint64_t)r * lc->run->size;
	while (first < end) {
		uint64_t p = t->pl_done;
		/* the post list ends where the next one starts */
		uint64_t pl_end = p + 1 < t->pl_next ? t->pl_seq[(p + 1) & t->pl_mask] : ep->posted;
		uint64_t e = pl_end < end ? pl_end : end;

		if (unlikely(e <= first)) /* more retired than posted: never */
			break;
		if (e - first == 1) /* -l 1: one op per post list */
			rdx_hist_record(lc->hist, now - t->pl_tsc[p & t->pl_mask]);
		else
			rdx_hist_record_n(lc->hist, now - t->pl_tsc[p & t->pl_mask], e - first);
		first = e;
		if (e == pl_end)
			t->pl_done = p + 1;
	}
}

/* Warm-up: the r ops from ep->completed on are retired, unrecorded. */
static inline void
stream_retire_skip(struct perf_ep *ep, struct stream_tmpl *t, uint32_t r)
{
	uint64_t end = ep->completed + r;

	while (t->pl_done + 1 < t->pl_next && t->pl_seq[(t->pl_done + 1) & t->pl_mask] <= end)
		t->pl_done++;
	if (t->pl_done + 1 == t->pl_next && end == ep->posted)
		t->pl_done = t->pl_next;
}

/* Step 2: retire what the send completions say is done. Returns the
 * completions taken (0: none) or negative errno. */
static inline __attribute__((always_inline)) int
stream_reap(struct perf_lcore *lc, const struct stream_ops *so, struct perf_ep *ep,
	    struct stream_tmpl *t, struct rdx_wc *wcs)
{
	uint64_t now, peak_r = 0;
	uint16_t nc, j;
	int rc;

	/* no more than the WRs unretired: one in a latency run (as ib_*_lat);
	 * status, wr_id and retired are all this reads (the lean poll) */
	nc = perf_poll_sends(ep, wcs, (uint16_t)RTE_MIN(ep->posted - ep->completed,
							(uint64_t)PERF_WC_BURST));
	if (nc == 0)
		return 0;
	now = rdx_tsc();
	lc->last_progress = now;
	for (j = 0; j < nc; j++) {
		uint16_t r = wcs[j].retired != 0 ? wcs[j].retired : 1;

		if (wcs[j].status != 0)
			return perf_wc_error(lc, ep, &wcs[j], rdx_op_name(lc->eng->op));
		if (so->peak)
			peak_r += r;
		if (likely(so->batch)) {
			if (lc->measure)
				stream_retire_runs(lc, ep, t, r, now);
			else /* warm-up: no record; post lists retired all the same */
				stream_retire_skip(ep, t, r);
			ep->completed += r;
			continue;
		}
		while (r-- > 0) {
			uint64_t seq = ep->completed;

			if (so->done != NULL) {
				rc = so->done(lc, ep, seq);
				if (rc < 0)
					return rc;
			} else if (so->check != NULL) {
				so->check(lc, ep, seq);
			}
			perf_completed(lc, ep, seq, now, so->size, 0);
			ep->completed++;
		}
	}
	if (peak_r != 0)
		stream_peak_done(lc, peak_r, now);
	return nc;
}

static int
stream_loop(struct perf_lcore *lc, const struct stream_ops *so, struct stream_tmpl *tmpl)
{
	struct rdx_wc wcs[PERF_WC_BURST];
	struct perf_phase ph;
	unsigned int i;
	int rc;

	for (i = 0; i < lc->nb_eps; i++)
		stream_tmpl_init(so, lc->eps[i], &tmpl[i]);
	/* BW peak: what an earlier phase left in flight retires first */
	lc->peak.inflight = 0;
	for (i = 0; i < lc->nb_eps; i++)
		lc->peak.inflight += lc->eps[i]->posted - lc->eps[i]->completed;
	if (lc->measure) {
		lc->peak.done = 0;
		lc->peak.started = false;
		lc->peak.recent.next = 0;
		lc->peak.far.next = 0;
		lc->peak.best_dt = 0;
		lc->peak.best_n = 0;
	}
	perf_phase_begin(lc, &ph, 0);
	for (;;) {
		unsigned int active = 0;
		int busy = 0;

		for (i = 0; i < lc->nb_eps; i++) {
			struct perf_ep *ep = lc->eps[i];

			/* a pass that posted is busy: -e must not sleep on an
			 * unsignaled tail whose CQE only a later post brings */
			busy |= stream_post(lc, so, ep, &tmpl[i]) != 0;
			if (ep->posted < ep->target)
				active++;
			if (ep->posted == ep->completed)
				continue; /* nothing in flight: nothing to poll */
			active += ep->posted >= ep->target;
			rc = stream_reap(lc, so, ep, &tmpl[i], wcs);
			if (rc < 0)
				return rc;
			busy |= rc != 0;
		}
		rc = perf_pass_end(lc, &ph, active, busy);
		if (rc != 0)
			return rc < 0 ? rc : 0;
	}
}

/* --keys N on write and read: op seq's remote address is the next of N
 * keys --key-stride apart, round-robin per QP (the slots stay local) */
static void
stream_key_prep(struct perf_lcore *lc, struct perf_ep *ep, struct rdx_wr *wr, uint64_t seq)
{
	const uint32_t key = ep->next_key;

	RTE_SET_USED(seq);
	if (++ep->next_key == lc->o->keys)
		ep->next_key = 0;
	wr->remote_addr = ep->raddr + (uint64_t)key * perf_key_stride(lc->o, lc->run->size);
}

int
perf_stream_run(struct perf_lcore *lc)
{
	const struct rdx_perf_engine *eng = lc->eng;
	/* write/read with --keys: the keyed addresses (atomics have their own) */
	void (*const prep)(struct perf_lcore *, struct perf_ep *, struct rdx_wr *, uint64_t) =
		eng->prep != NULL ? eng->prep : lc->o->keys > 1 || lc->o->key_stride != 0 ?
		stream_key_prep : NULL;
	const bool verify = lc->o->verify;
	const bool ud = lc->run->ud;
	const bool rate = lc->run->rate_period != 0;
	const bool imm = ud || eng->op == RDX_OP_WRITE_IMM || eng->op == RDX_OP_SEND_IMM;
	const struct stream_ops so = {
		.prep = prep,
		.fill = verify ? eng->fill : NULL,
		.done = eng->done,
		.check = verify ? eng->check : NULL,
		.opcode = (uint8_t)eng->op,
		.may_inline = !eng->no_inline,
		.lat = lc->o->mode == PERF_MODE_LAT,
		.ud = ud,
		.rate = rate,
		.imm = imm,
		.per_wr = imm || prep != NULL || (verify && eng->fill != NULL),
		.peak = lc->o->mode != PERF_MODE_LAT && !rate,
		.batch = !rate && eng->done == NULL && !(verify && eng->check != NULL) &&
			 !(lc->log != NULL && lc->measure),
		.plist = min_u32(lc->run->post_list, RDX_MAX_BURST),
		.size = (uint32_t)lc->run->size,
		.sig_every = lc->o->sig_every,
		.imm_mask = ud ? PERF_UD_OP_MASK : UINT32_MAX,
		.imm_run = ud ? perf_ud_stream_imm(0, lc->run->ud_run) : 0,
	};
	/* post lists in flight per QP: at most -t (each has an op), and one
	 * more left by an earlier phase */
	const uint32_t pl_ring = rte_align32pow2(lc->run->window + 1);
	const unsigned int neps = lc->nb_eps != 0 ? lc->nb_eps : 1;
	struct stream_tmpl *tmpl;
	uint64_t *pl;
	unsigned int i;
	int rc;

	/* once per phase, not per op */
	tmpl = calloc(neps, sizeof(*tmpl));
	pl = calloc((size_t)neps * 2 * pl_ring, sizeof(*pl));
	if (tmpl == NULL || pl == NULL) {
		free(tmpl);
		free(pl);
		perf_lcore_fail(lc, ENOMEM, "no memory for the WRs of %u QPs", lc->nb_eps);
		return lc->err;
	}
	for (i = 0; i < neps; i++) {
		tmpl[i].pl_mask = pl_ring - 1;
		tmpl[i].pl_seq = pl + (size_t)i * 2 * pl_ring;
		tmpl[i].pl_tsc = tmpl[i].pl_seq + pl_ring;
	}
	rc = stream_loop(lc, &so, tmpl);
	free(tmpl);
	free(pl);
	return rc;
}

/* What a UD stream's datagram is to its responder (ud_take). */
enum ud_kind {
	UD_NEW = 0,   /* an op of this run, the first time */
	UD_DUP,       /* an op of this run already taken (repeated on the way) */
	UD_STALE,     /* a datagram of an earlier run, late past its end */
};

/*
 * UD stream responder: the datagram of immediate imm (host order) arrived
 * in run `run`. Only this run's ops move the highest op seen (ud_hi) and
 * are recorded (ud_ops, to know a repeat); each datagram counts in one of
 * ud_dup, ud_stale or neither (a new op of this run): perf_ud_counts
 * leaves the first two out. *op: the op number (not set when stale).
 */
static inline enum ud_kind
ud_take(struct perf_ep *ep, uint32_t imm, uint32_t run, uint64_t *op)
{
	uint64_t o;

	if (unlikely(!perf_ud_stream_run(imm, run))) {
		ep->ud_stale++;
		return UD_STALE;
	}
	/* the op number, near the highest seen (perf_ud_stream_op) */
	o = perf_ud_stream_op(ep->ud_hi, imm);
	*op = o;
	if (o > ep->ud_hi)
		ep->ud_hi = o;
	if (ep->ud_ops[o & ep->ring_mask] == o) {
		ep->ud_dup++;
		return UD_DUP;
	}
	ep->ud_ops[o & ep->ring_mask] = o;
	return UD_NEW;
}

/* Responder of send and write_imm (server_recv): consume receive
 * completions and keep the receive queue full. Over UD a datagram may be
 * lost, repeated or late: the run and the op number are the immediate
 * (ud_take; a datagram of an earlier run is only counted), the message
 * follows the GRH area of its slot (the slot is the receive's wr_id). */
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
		if (lc->run->ud) {
			uint64_t op = 0;

			/* a stale datagram is no message of this run: its
			 * bytes are another run's (another size) */
			if (ud_take(ep, rte_be_to_cpu_32(wc->imm), lc->run->ud_run, &op) !=
			    UD_STALE && lc->o->verify) {
				uint64_t off = (wc->wr_id & (ep->rslots - 1)) * ep->rstride +
					lc->run->grh;

				if (wc->opcode != RDX_WC_RECV_IMM ||
				    wc->byte_len != lc->run->size + lc->run->grh)
					lc->verify_errors++;
				else
					lc->verify_errors += perf_mem_check(ep->rbuf, off,
									    lc->run->size, op,
									    PERF_SALT_DATA);
			}
		} else if (lc->o->verify) {
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

/* After a stream run: take the receives that arrived but were not polled
 * yet (UD counts what arrived: the last datagrams of the run too). */
void
perf_serve_drain(struct perf_lcore *lc)
{
	unsigned int i;

	if (lc->eng == NULL || lc->nb_srv == 0 || !lc->eng->server_recv ||
	    perf_engine_loop(lc->eng, lc->o->mode) != PERF_LOOP_STREAM)
		return;
	for (i = 0; i < lc->nb_srv; i++)
		while (perf_serve_recv(lc, lc->srv[i]) > 0)
			;
}

/* Two processes, write/write_imm bandwidth: read back the last op of every
 * slot from the server and check it (loopback checks each op in place). */
int
perf_verify_readback(struct perf_lcore *lc)
{
	const struct perf_run *run = lc->run;
	unsigned int i;
	int rc;

	for (i = 0; i < lc->nb_eps; i++) {
		struct perf_ep *ep = lc->eps[i];
		/* slots written by an earlier run (another size, another
		 * stride) hold that run's ops: only this run's are checked */
		uint64_t n = RTE_MIN(ep->completed - ep->run_base, (uint64_t)run->slots);
		uint64_t seq;

		if (ep->peer != NULL)
			continue;
		for (seq = ep->completed - n; seq < ep->completed; seq++) {
			uint64_t off = (seq & (run->slots - 1)) * run->stride;

			rc = perf_read_remote(lc, ep, off, off, (uint32_t)run->size);
			if (rc < 0)
				return rc;
			lc->verify_errors += perf_mem_check(ep->buf, off, run->size, seq,
							    PERF_SALT_DATA);
		}
	}
	return 0;
}

/* --verify helpers the engines pick for their table (fill / check). */

/* The pattern of op seq in its slot before posting (write, write_imm, send). */
void
perf_stream_fill_data(struct perf_lcore *lc, struct perf_ep *ep, uint64_t off, uint64_t seq)
{
	perf_mem_fill(ep->buf, off, lc->run->size, seq, PERF_SALT_DATA);
}

/* Loopback: the peer's slot holds op seq's pattern once it completed
 * (write, write_imm; two processes read back instead: verify_run). */
void
perf_stream_check_peer(struct perf_lcore *lc, struct perf_ep *ep, uint64_t seq)
{
	const struct perf_run *run = lc->run;
	uint64_t off = (seq & (run->slots - 1)) * run->stride;

	if (ep->peer != NULL)
		lc->verify_errors += perf_mem_check(ep->peer->buf, off, run->size, seq,
						    PERF_SALT_DATA);
}
