/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Software mlx5 device: the engine's loop. Which QPs a progress call looks
 * at (hot set, full walk), doorbells (BlueFlame halves of the doorbell
 * registers, checked against the rings), the flush of a QP in ERR, and
 * thread mode. One WQE's execution is sw_exec.c's (RC) or sw_exec_ud.c's
 * (UD), chosen here; CQE writing is sw_cq.c's; the objects are sw_obj.c's.
 * The rules the model follows where the hardware's are not public are
 * listed at the top of sw_exec.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <linux/futex.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_atomic.h>
#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_pause.h>

#include "rdx_stamp.h"
#include "sw_engine_priv.h"

RTE_LOG_REGISTER(rdx_sw_logtype, rdx.drv.sw, NOTICE)

/* a power of two (the slot index is a shift), a line of padding each side */
_Static_assert(sizeof(struct sw_lc) == 256, "struct sw_lc is 256 bytes");
_Static_assert(offsetof(struct sw_shm_hdr, peer_ctr) % SW_LINE == 0 &&
	       offsetof(struct sw_shm_hdr, allocs) % SW_LINE == 0,
	       "the peers' counters have a line of their own");

/* The engine                                                          */

/*
 * Consume the doorbells waiting in the halves of a register. The doorbell
 * word (ctrl bytes 0..7) is taken with an atomic exchange so a ring that
 * lands meanwhile is never lost. In thread mode the poster may run two
 * bursts ahead of the engine and overwrite a half being read, so the
 * half-order and BlueFlame-content checks are made in inline mode only.
 *
 * The model looks at a register now and then; a NIC sees every write. Rings
 * a later ring overwrote before the model looked are gone, so:
 * - the half order is checked from what can be known: with the expected
 *   half empty and the other rung, the datapath wrote the wrong half (the
 *   expected half is read again after the other, so a ring racing the look
 *   is not taken for one). With both halves rung, two or more rings
 *   happened; when both name one QP the one nearer its doorbell record is
 *   the later, which gives the next half; otherwise the next ring decides.
 * - a ring of a shared register may have been lost only when both halves
 *   were rung: then every QP of the register is armed (a "sweep").
 * - on a shared register, the lcore that posts to it (the only one that may)
 *   checks, in the full walk of every SW_FULL_EVERY-th progress call (so it
 *   is not ringing meanwhile), that no QP of it has a doorbell record ahead
 *   of what it executed with no doorbell pending: a ring went missing, i.e.
 *   a half was written twice in a row (two QPs with a toggle each). See
 *   sw_bf_stall.
 * - a QP's cheap look (the hot set's) on a shared register sees only rings
 *   naming it (sw_lqp.bf_key), so a ring of A does not make B's work run;
 *   the full walk looks at any ring (one naming no QP of the register is
 *   consumed there and flagged).
 * - model-only words of the register (sw_dev's post wrapper) name posts
 *   from an lcore other than the register's and posts that met another
 *   thread's on the same register: on a NIC those interleave BlueFlame
 *   copies (garbage WQEs); here they are reported when consumed.
 */
static struct sw_lqp *
sw_bf_qp(struct sw_engine *e, const struct sw_bfreg *b, uint32_t qpn)
{
	uint32_t slot = qpn - SW_QPN_BASE;
	struct sw_lqp *q;

	if (slot >= SW_MAX_QP)
		return NULL;
	q = __atomic_load_n(&e->qps[slot], __ATOMIC_ACQUIRE);
	return q != NULL && q->reg == b && q->qpn == qpn ? q : NULL;
}

/* Arm every QP of b (a ring of one of them may have been overwritten). */
static void
sw_bf_sweep(struct sw_bfreg *b)
{
	__atomic_fetch_add(&b->sweep, 1, __ATOMIC_RELEASE);
}

/*
 * Take the doorbell in half h of b and arm the QP it names; that QP, or
 * NULL. *dist: how far the named WQE is behind the QP's doorbell record
 * (of two rings of one QP the later is nearer). check: 0 none, 1 the 8
 * doorbell bytes against the ring, 2 the whole copy (only when h was
 * written once since the last look: an 8-byte ring over an unconsumed copy
 * leaves that copy's tail behind it).
 */
static struct sw_lqp *
sw_bf_take(struct sw_engine *e, struct sw_lqp *self, struct sw_bfreg *b, uint32_t h,
	   int check, uint32_t *dist)
{
	uint8_t *half = b->r->half[h];
	uint64_t snapw[SW_BF_SIZE / 8], acc = 0;
	uint8_t wqe[SW_MAX_WQE_BYTES], *const snap = (uint8_t *)snapw;
	uint32_t idx, qpn, ds, db, i;
	bool bf_copy = false;
	struct sw_lqp *q;
	uint64_t w0;

	*dist = UINT32_MAX;
	w0 = __atomic_exchange_n((uint64_t *)(void *)half, 0, __ATOMIC_ACQ_REL);
	if (w0 == 0)
		return NULL;
	/* the rest of the half, read once (one copy); a BlueFlame copy if any
	 * of it is non-zero: bytes 16..23 (the WQE's second segment) tell a
	 * copy at once, an 8-byte ring is told by an OR over every word; then
	 * cleared for the next one (an 8-byte ring costs no store) */
	snapw[0] = w0;
	memcpy(snap + 8, half + 8, SW_BF_SIZE - 8);
	if ((snapw[1] | snapw[2]) != 0) {
		bf_copy = true;
	} else {
		for (i = 3; i < SW_BF_SIZE / 8; i++)
			acc |= snapw[i];
		bf_copy = acc != 0;
	}
	if (bf_copy)
		memset(half + 8, 0, SW_BF_SIZE - 8);
	idx = be32toh(((const struct mlx5_wqe_ctrl_seg *)(void *)snap)->opmod_idx_opcode);
	qpn = be32toh(((const struct mlx5_wqe_ctrl_seg *)(void *)snap)->qpn_ds);
	ds = qpn & 0x3f;
	qpn >>= 8;
	idx = (idx >> 8) & 0xffff;
	sw_stat(&sw_lc(e)->doorbells, 1);
	if (bf_copy)
		sw_stat(&sw_lc(e)->bf_copies, 1);
	q = sw_bf_qp(e, b, qpn);
	if (q == NULL) {
		sw_device_error(e, self, b->refs > 1 ? "doorbell names a QP not on this register" :
				"doorbell names another QP", qpn, self->s->qpn);
		sw_bf_sweep(b);
		return NULL;
	}
	db = be32toh(__atomic_load_n(&q->dbrec[MLX5_SND_DBR], __ATOMIC_ACQUIRE)) & 0xffff;
	if (((db - idx) & 0xffff) == 0 || ((db - idx) & 0xffff) > q->sq_wqe_cnt) {
		sw_device_error(e, q, "doorbell names a WQE not covered by the doorbell record",
				idx, db);
	} else if (check != 0) {
		uint32_t len = bf_copy && check == 2 ? RTE_MIN(ds * 16, (uint32_t)SW_BF_SIZE) : 8;

		const uint32_t start = (idx & (q->sq_wqe_cnt - 1)) * 64;
		const uint8_t *ring = q->sq_buf + start;

		/* compared where it lies unless it wraps the ring's end */
		if (start + len > q->sq_wqe_cnt * 64) {
			sw_ring_read(q, idx, wqe, len);
			ring = wqe;
		}
		if (memcmp(ring, snap, len) != 0)
			sw_device_error(e, q, len > 8 ?
				"BlueFlame copy differs from the WQE in the ring" :
				"doorbell ctrl differs from the WQE in the ring", idx, db);
		*dist = (db - idx) & 0xffff;
	} else {
		*dist = (db - idx) & 0xffff;
	}
	__atomic_fetch_add(&q->arms, 1, __ATOMIC_RELEASE);
	return q;
}

/* Report what sw_dev's post wrapper saw on b (model-only words). */
static void
sw_bf_writers(struct sw_engine *e, struct sw_lqp *self, struct sw_bfreg *b)
{
	uint64_t v = __atomic_load_n(&b->r->wrong_lcore, __ATOMIC_RELAXED);

	if (v != b->wrong_seen) {
		sw_stat(&e->device_errors, 1);
		SW_LOG(ERR, "device error on QP 0x%x: doorbell register of lcore %u rung from lcore %d (%lu times): its thread domain is another lcore's\n",
		       self->s->qpn, b->r->lcore, (int)b->r->bad_lcore,
		       (unsigned long)(v - b->wrong_seen));
		b->wrong_seen = v;
	}
	v = __atomic_load_n(&b->r->overlaps, __ATOMIC_RELAXED);
	if (v != b->overlaps_seen) {
		sw_stat(&e->device_errors, 1);
		SW_LOG(ERR, "device error on QP 0x%x: two threads rang one doorbell register at once (thread %u met another, %lu times)\n",
		       self->s->qpn, b->r->bad_tid, (unsigned long)(v - b->overlaps_seen));
		b->overlaps_seen = v;
	}
}

/*
 * The strict checks of a register's rings (the half each ring uses, a copy
 * against the ring, a record ahead of every ring) hold only while nobody
 * rings it during the look: inline or poll mode, and the looker is the
 * thread that posts on it (its posts are complete). Any other looker (an
 * lcore that took a QP over, rdx_sw_progress or a CQ wait on a thread that
 * does not post) may race the poster's rings, and follows thread mode's
 * rules. The post wrapper notes the poster (sw_dev_qp.c); a register no
 * wrapper ever rang (the model driven directly, as its unit tests do) is
 * the looker's.
 */
static inline bool
sw_bf_quiet(const struct sw_engine *e, const struct sw_bfreg *b)
{
	uint32_t p;

	if (e->thread_mode)
		return false;
	p = __atomic_load_n(&b->r->poster, __ATOMIC_RELAXED);
	return p == 0 || p == (uint32_t)rte_gettid();
}

static void
sw_bf_consume(struct sw_engine *e, struct sw_lqp *self, struct sw_bfreg *b)
{
	const bool quiet = sw_bf_quiet(e, b);
	/* after a look that raced the poster a half may still hold an older
	 * ring, or a copy whose tail that look cleared while it was written:
	 * the next quiet look drains them, checking the doorbell word only */
	const bool strict = quiet && !b->raced;
	uint8_t *const h0 = b->r->half[0];
	uint32_t x = b->half_known ? b->half_next : 0, da, db;
	struct sw_lqp *qa, *qb;
	bool w[2];

	sw_bf_writers(e, self, b);
	w[0] = __atomic_load_n((uint64_t *)(void *)h0, __ATOMIC_ACQUIRE) != 0;
	w[1] = __atomic_load_n((uint64_t *)(void *)(h0 + SW_BF_SIZE), __ATOMIC_ACQUIRE) != 0;
	if (!w[0] && !w[1])
		return;
	if (!w[x] && w[x ^ 1]) {
		/* A ring into x before the one seen would be visible by now. */
		w[x] = __atomic_load_n((uint64_t *)(void *)(h0 + x * SW_BF_SIZE),
				       __ATOMIC_ACQUIRE) != 0;
		if (!w[x] && b->half_known && strict)
			sw_device_error(e, self, "doorbell in the wrong BlueFlame half", x ^ 1, x);
	}
	if (w[x] != w[x ^ 1]) {
		/* one ring since the last look (a lost one needs both halves) */
		x = w[x] ? x : x ^ 1;
		sw_bf_take(e, self, b, x, strict ? 2 : quiet ? 1 : 0, &da);
		b->half_next = x ^ 1;
		b->half_known = true;
	} else {
		/* two rings or more: which was last? */
		qa = sw_bf_take(e, self, b, x, quiet ? 1 : 0, &da);
		qb = sw_bf_take(e, self, b, x ^ 1, quiet ? 1 : 0, &db);
		if (qa != NULL && qa == qb && da != db && da != UINT32_MAX && db != UINT32_MAX) {
			b->half_next = (da < db ? x : x ^ 1) ^ 1;
			b->half_known = true;
		} else {
			b->half_known = false;
		}
		if (b->post_lcore != 0)
			sw_bf_sweep(b);
	}
	/* a look that may have raced the poster cannot tell the next half,
	 * nor can the quiet look that drains what it left (every half it
	 * found rung is empty after it: the next ring teaches the half) */
	if (!quiet || b->raced) {
		b->half_known = false;
		b->raced = !quiet;
	}
}

/* A rung half whose doorbell word names q (mask: q->bf_mask; 0: any ring). */
static inline bool
sw_bf_names(const struct sw_lqp *q, uint64_t w, uint64_t mask)
{
	return w != 0 && ((w ^ q->bf_key) & mask) == 0;
}

/* Anything for q on its register: a rung half naming it (mask q->bf_mask)
 * or any rung half (mask 0), or arms not yet folded? */
static inline bool
sw_bf_pending(const struct sw_lqp *q, uint64_t mask)
{
	const uint8_t *h0 = q->bf;

	return sw_bf_names(q, __atomic_load_n((const uint64_t *)(const void *)h0,
					      __ATOMIC_RELAXED), mask) ||
		sw_bf_names(q, __atomic_load_n((const uint64_t *)(const void *)(h0 + SW_BF_SIZE),
					       __ATOMIC_RELAXED), mask) ||
		__atomic_load_n(&q->arms, __ATOMIC_RELAXED) != q->arms_seen ||
		__atomic_load_n(&q->reg->sweep, __ATOMIC_RELAXED) != q->sweep_seen;
}

/* Consume q's register (unless another progress call is at it) and fold
 * the doorbells found for q into q->armed. */
static void
sw_doorbells(struct sw_engine *e, struct sw_lqp *q)
{
	struct sw_bfreg *b = q->reg;
	uint32_t a, w;

	if (__atomic_exchange_n(&b->busy, 1, __ATOMIC_ACQUIRE) == 0) {
		sw_bf_consume(e, q, b);
		__atomic_store_n(&b->busy, 0, __ATOMIC_RELEASE);
	}
	a = __atomic_load_n(&q->arms, __ATOMIC_ACQUIRE);
	w = __atomic_load_n(&b->sweep, __ATOMIC_ACQUIRE);
	if (a != q->arms_seen || w != q->sweep_seen) {
		__atomic_store_n(&q->arms_seen, a, __ATOMIC_RELAXED);
		__atomic_store_n(&q->sweep_seen, w, __ATOMIC_RELAXED);
		q->armed = true;
	}
}

/* In ERR: one flush CQE per posted WQE, SQ then RQ; pauses on a full CQ. */
static int
sw_flush(struct sw_engine *e, struct sw_lqp *q)
{
	uint32_t db = be32toh(__atomic_load_n(&q->dbrec[MLX5_SND_DBR], __ATOMIC_ACQUIRE)) & 0xffff;
	struct sw_qp_shm *s = q->s;
	uint32_t ci;
	int n = 0;

	/* a responder CQE owed to the peer is the peer's: written first */
	if (q->resp_owed && sw_resp_owed_push(e, q) == -EBUSY)
		return 0;
	/* CQEs of its executed WQEs the timing layer lists: first, in order */
	if (unlikely(e->timing != NULL) && sw_req_release(e, q) != 0)
		return 0;
	q->cqe_owed = false; /* an owed CQE of ours becomes the flush's */
	q->lock_wait = false;
	while ((q->sq_ci & 0xffff) != db) {
		struct mlx5_wqe_ctrl_seg c;
		uint32_t ds, wqebbs, avail = (db - q->sq_ci) & 0xffff;

		if (avail > q->sq_wqe_cnt) {
			sw_device_error(e, q, "SQ doorbell record beyond the ring", db,
					q->sq_ci & 0xffff);
			q->sq_ci = db;
			break;
		}
		sw_ring_read(q, q->sq_ci, &c, sizeof(c));
		ds = be32toh(c.qpn_ds) & 0x3f;
		wqebbs = RTE_MIN(RTE_MAX((ds + 3) / 4, 1U), avail);
		/* the head WQE's own error CQE first, when its CQ's lock was
		 * busy as it failed (owed_synd) */
		if (sw_push_err(e, e->self, q->scq, MLX5_CQE_REQ_ERR,
				q->owed_synd != 0 ? q->owed_synd : MLX5_CQE_SYNDROME_WR_FLUSH_ERR,
				0, q->sq_ci & 0xffff, (uint8_t)be32toh(c.opmod_idx_opcode),
				q->qpn) != 0)
			break;
		q->owed_synd = 0;
		q->sq_ci += wqebbs;
		sw_stat(&sw_lc(e)->flushes, 1);
		n++;
	}
	q->armed = false;
	if (q->rq_wqe_cnt == 0)
		return n;
	if (sw_qp_lock(e, e->self, s) != 0)
		return n; /* a live holder (a peer's responder): the next call goes on */
	db = be32toh(__atomic_load_n(&q->dbrec[MLX5_RCV_DBR], __ATOMIC_ACQUIRE)) & 0xffff;
	ci = SW_LOAD(s->rq_ci);
	if (((db - ci) & 0xffff) > q->rq_wqe_cnt) {
		/* a doorbell record (or consumer counter) beyond the ring */
		sw_device_error(e, q, "RQ doorbell record beyond the ring", db, ci & 0xffff);
		s->rq_ci = db;
		sw_qunlock(&s->lock);
		return n;
	}
	while ((ci & 0xffff) != db) {
		if (sw_push_err(e, e->self, q->rcq, MLX5_CQE_RESP_ERR,
				MLX5_CQE_SYNDROME_WR_FLUSH_ERR, 0, ci & 0xffff, 0,
				q->qpn) != 0)
			break;
		s->rq_ci = ++ci;
		sw_stat(&sw_lc(e)->flushes, 1);
		n++;
	}
	sw_qunlock(&s->lock);
	return n;
}

/* q's work: doorbells, execution, flush (sw_qp_progress saw something).
 * Returns the work done times 2, plus 1 when q may still have something
 * to do (armed: a wait, WQEs beyond what was rung; in ERR; or another
 * caller had it busy). */
static __rte_noinline int
sw_qp_work(struct sw_engine *e, struct sw_lqp *q)
{
	uint32_t state, db;
	int n = 0;

	if (__atomic_exchange_n(&q->busy, 1, __ATOMIC_ACQUIRE) != 0)
		return 1;
	sw_doorbells(e, q);
	state = __atomic_load_n(&q->s->state, __ATOMIC_ACQUIRE);
	if (state == RDX_SW_QPS_RTS && q->armed) {
		db = be32toh(__atomic_load_n(&q->dbrec[MLX5_SND_DBR], __ATOMIC_ACQUIRE)) & 0xffff;
		while ((q->sq_ci & 0xffff) != db) {
			uint32_t avail = (db - q->sq_ci) & 0xffff;
			int rc;

			if (avail > q->sq_wqe_cnt) {
				sw_device_error(e, q, "SQ doorbell record beyond the ring", db,
						q->sq_ci & 0xffff);
				sw_qp_set_err(q->s);
				break;
			}
			if ((q->rnr_active || q->ack_active || q->lock_wait) &&
			    sw_now_ns() < q->retry_at_ns)
				break;
			if (unlikely(e->timing != NULL) && sw_timing_hold(e->timing, q, db))
				break;
			rc = q->type == SW_QPT_UD ? sw_ud_exec(e, q, avail) : sw_exec(e, q, avail);
			if (rc == SW_WAIT)
				break;
			n++;
			if (rc == SW_FAIL)
				break;
		}
		if ((q->sq_ci & 0xffff) == db)
			q->armed = false;
		state = __atomic_load_n(&q->s->state, __ATOMIC_ACQUIRE);
	}
	if (state == RDX_SW_QPS_ERR)
		n += sw_flush(e, q);
	n = n * 2 + (q->armed || state == RDX_SW_QPS_ERR);
	__atomic_store_n(&q->busy, 0, __ATOMIC_RELEASE);
	return n;
}

/* Progress q. A cheap look first, inline in the callers' loops (no atomic
 * RMW, no call): nothing rung, nothing pending, not in error -> nothing to
 * do; a stale view only delays to the next call. Most looks of a polling
 * loop end here. */
static inline bool
sw_qp_idle(const struct sw_lqp *q, uint64_t mask)
{
	return !q->armed && !sw_bf_pending(q, mask) &&
		__atomic_load_n(&q->s->state, __ATOMIC_RELAXED) != RDX_SW_QPS_ERR;
}

/*
 * A ring of q gone missing: q on a shared register, looked at by the
 * thread that posts on it (sw_bf_quiet: its posts are complete, not
 * ringing now) in a full walk that found q idle. If, with the register
 * consumed and q not executing (both busy flags held: no other look takes
 * a ring or runs q meanwhile) and nothing rung or unfolded, q's
 * SQ doorbell record is ahead of what it executed, a ring went missing: a
 * half written twice in a row (two QPs with a toggle each). Flagged, and q
 * armed so the run can end. From the SW_FULL_EVERY-th call's walk, so the
 * poster's polling loop finds it within that many calls, at no cost to
 * the look at each ring.
 */
static __rte_noinline void
sw_bf_stall(struct sw_engine *e, struct sw_lqp *q)
{
	struct sw_bfreg *b = q->reg;
	uint32_t db;

	if (!sw_bf_quiet(e, b) ||
	    __atomic_exchange_n(&b->busy, 1, __ATOMIC_ACQUIRE) != 0)
		return;
	/* and q not being worked on by another caller (whose execution the
	 * record may be ahead of) */
	if (__atomic_exchange_n(&q->busy, 1, __ATOMIC_ACQUIRE) != 0) {
		__atomic_store_n(&b->busy, 0, __ATOMIC_RELEASE);
		return;
	}
	db = be32toh(__atomic_load_n(&q->dbrec[MLX5_SND_DBR], __ATOMIC_ACQUIRE)) & 0xffff;
	if (__atomic_load_n(&q->s->state, __ATOMIC_ACQUIRE) == RDX_SW_QPS_RTS &&
	    !__atomic_load_n(&q->armed, __ATOMIC_ACQUIRE) && !sw_bf_pending(q, 0) &&
	    db != (__atomic_load_n(&q->sq_ci, __ATOMIC_RELAXED) & 0xffff)) {
		sw_device_error(e, q, "SQ doorbell record moved but no doorbell came (a BlueFlame half written twice in a row?)",
				db, q->sq_ci & 0xffff);
		/* execute it anyway, so the run can end */
		__atomic_fetch_add(&q->arms, 1, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&q->busy, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&b->busy, 0, __ATOMIC_RELEASE);
}

/* Remember q as hot on lc (it had work or still waits for its turn).
 * Racing callers of one slot may both insert or overwrite each other: the
 * set is a hint, the full walk below is what bounds every QP's delay. */
static void
sw_hot_add(struct sw_lc *lc, struct sw_lqp *q)
{
	uint32_t i;

	for (i = 0; i < SW_HOT; i++)
		if (__atomic_load_n(&lc->hot[i], __ATOMIC_RELAXED) == q)
			return;
	i = __atomic_load_n(&lc->hot_next, __ATOMIC_RELAXED) % SW_HOT;
	__atomic_store_n(&lc->hot[i], q, __ATOMIC_RELAXED);
	__atomic_store_n(&lc->hot_next, (i + 1) % SW_HOT, __ATOMIC_RELAXED);
	/* the look at the set stops at the last slot ever filled (the store
	 * of q comes first: a racing reader misses it at most once) */
	if (i >= __atomic_load_n(&lc->hot_n, __ATOMIC_RELAXED))
		__atomic_store_n(&lc->hot_n, i + 1, __ATOMIC_RELEASE);
}

/*
 * May the full walk of slot me progress q? Yes when q has no home, is
 * ours, or its home slot made no progress call since we last looked (it
 * stopped polling: we take q over). Otherwise q is left to the lcore that
 * runs it, so two lcores polling their own QPs do not take each other's
 * doorbells, rings and CQ lines, and each scales with its own core.
 */
static bool
sw_home_ok(struct sw_engine *e, struct sw_lqp *q, uint32_t me)
{
	const uint32_t h = __atomic_load_n(&q->home, __ATOMIC_RELAXED);
	uint64_t seen;

	if (h == me || h >= SW_LC_SLOTS)
		return true;
	/* (home, its call count) as last seen by any looker */
	seen = (uint64_t)h << 32 | __atomic_load_n(&e->lc[h].calls, __ATOMIC_RELAXED);
	if (seen != __atomic_load_n(&q->home_seen, __ATOMIC_RELAXED)) {
		__atomic_store_n(&q->home_seen, seen, __ATOMIC_RELAXED);
		return false;
	}
	return true;
}

/* q is me's now: out of its former home's hot set (a racy hint like the
 * set itself; a stale entry only costs that lcore a look). */
static void
sw_home_move(struct sw_engine *e, struct sw_lqp *q, uint32_t me)
{
	const uint32_t h = __atomic_load_n(&q->home, __ATOMIC_RELAXED);
	uint32_t i;

	__atomic_store_n(&q->home, me, __ATOMIC_RELAXED);
	if (h >= SW_LC_SLOTS)
		return;
	for (i = 0; i < SW_HOT; i++)
		if (__atomic_load_n(&e->lc[h].hot[i], __ATOMIC_RELAXED) == q)
			__atomic_store_n(&e->lc[h].hot[i], NULL, __ATOMIC_RELAXED);
}

/* The truncation of our own segment, reported once (cold). */
static __rte_noinline void
sw_self_lost(struct sw_engine *e)
{
	if (!__atomic_exchange_n(&e->self_lost, true, __ATOMIC_RELAXED)) {
		sw_stat(&e->device_errors, 1);
		SW_LOG(ERR, "device error: segment %s was truncated by another process: its content past the cut is lost\n",
		       e->self->name);
	}
}

/* The walk over every live QP (n of them) of a progress call of slot me:
 * QPs with work or waiting become hot on lc (and me's if another lcore's
 * home stopped polling). Out of line: most calls of a polling loop end
 * in the hot set. */
static __rte_noinline int
sw_engine_walk(struct sw_engine *e, struct sw_lc *lc, uint32_t me, uint32_t n, bool stalls)
{
	uint32_t i;
	int work = 0;

	for (i = 0; i < n; i++) {
		struct sw_lqp *q = __atomic_load_n(&e->active[i], __ATOMIC_RELAXED);
		int w;

		if (q == NULL || !sw_home_ok(e, q, me))
			continue;
		/* any ring on q's register is looked at (one naming no QP of
		 * it included: flagged when consumed) */
		if (sw_qp_idle(q, 0)) {
			if (stalls && q->reg->post_lcore != 0)
				sw_bf_stall(e, q);
			continue;
		}
		w = sw_qp_work(e, q) >> 1;
		work += w;
		if (w != 0 || __atomic_load_n(&q->armed, __ATOMIC_RELAXED)) {
			if (__atomic_load_n(&q->home, __ATOMIC_RELAXED) != me)
				sw_home_move(e, q, me);
			sw_hot_add(lc, q);
		}
	}
	return work;
}

int
sw_engine_progress(struct sw_engine *e)
{
	const uint32_t me = sw_lc_id();
	struct sw_lc *lc = &e->lc[me];
	const uint32_t posts = lc->posts; /* before any look */
	uint32_t n, calls;
	int posts_left = 0;     /* delayed datagrams: never quiet */
	int left = 1;           /* a QP may have something left to do */
	int work = 0;

	if (__atomic_load_n(&e->draining, __ATOMIC_ACQUIRE) != 0)
		return 0;
	if (__builtin_expect(__atomic_load_n(&e->self->truncated, __ATOMIC_RELAXED) != 0, 0))
		sw_self_lost(e);
	__atomic_fetch_add(&lc->inflight, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&e->draining, __ATOMIC_SEQ_CST) != 0) {
		__atomic_fetch_sub(&lc->inflight, 1, __ATOMIC_RELEASE);
		return 0;
	}
	/* delayed datagrams that are due arrive first (injection only) */
	if (__builtin_expect(e->delayq != NULL, 0)) {
		sw_ud_delayed(e);
		posts_left = 1;
	}
	/* requester CQEs the timing layer listed, whose time has come */
	if (unlikely(e->timing != NULL) && sw_timing_listed(e->timing)) {
		work += sw_req_release(e, NULL);
		posts_left = 1;
	}
	/* A real NIC is told which QP rang; the model finds out by looking.
	 * The hot set first: if it yields work, the other QPs wait, at most
	 * SW_FULL_EVERY calls (the counter is a racy hint: concurrent pollers
	 * only make the full walk come sooner or a little later). */
	calls = __atomic_load_n(&lc->calls, __ATOMIC_RELAXED) + 1;
	__atomic_store_n(&lc->calls, calls, __ATOMIC_RELAXED);
	/* live QPs only: a destroy waits for this call to end, a create
	 * appends past n */
	n = __atomic_load_n(&e->nb_active, __ATOMIC_ACQUIRE);
	if ((calls & (SW_FULL_EVERY - 1)) != 0) {
		const uint32_t hot_n = RTE_MIN(__atomic_load_n(&lc->hot_n, __ATOMIC_ACQUIRE),
					       (uint32_t)SW_HOT);
		uint32_t i, looked = 0;

		left = posts_left;
		for (i = 0; i < hot_n; i++) {
			struct sw_lqp *q = __atomic_load_n(&lc->hot[i], __ATOMIC_RELAXED);

			if (q != NULL) {
				/* after its work, is anything left (a wait, ERR,
				 * another caller had it busy)? A ring since comes
				 * with a post (sw_cq_poll_inline) */
				if (!sw_qp_idle(q, q->bf_mask)) {
					const int w = sw_qp_work(e, q);

					work += w >> 1;
					left |= w & 1;
				}
				looked++;
			}
		}
		/* Work, or every live QP is in the hot set and was just looked
		 * at (one lcore polling its few QPs, e.g. an echo): no walk.
		 * The set holds distinct QPs (sw_hot_add); should a race put
		 * one in twice, a QP outside it waits for the SW_FULL_EVERY-th
		 * call, the bound that holds anyway. */
		left |= looked < n;
		if (work != 0 || looked >= n)
			goto out;
		left = 1;
	}
	work += sw_engine_walk(e, lc, me, n, (calls & (SW_FULL_EVERY - 1)) == 0);
out:
	/* quiet (1): what sw_cq_poll_inline may skip one idle call on (an
	 * EAL lcore's slot: it never looks at SW_LC_ANY's; no delayed
	 * datagrams due later) */
	lc->quiet = !left;
	lc->quiet_posts = posts;
	__atomic_fetch_sub(&lc->inflight, 1, __ATOMIC_RELEASE);
	return work;
}

static void *
sw_engine_thread(void *arg)
{
	struct sw_engine *e = arg;
	unsigned int idle = 0;

	while (__atomic_load_n(&e->thread_run, __ATOMIC_ACQUIRE)) {
		if (sw_engine_progress(e) != 0) {
			idle = 0;
			continue;
		}
		/* idle: spin a little, then back off with short sleeps */
		if (++idle > 256) {
			struct timespec ts = { .tv_sec = 0, .tv_nsec = 20000 };

			nanosleep(&ts, NULL);
		} else {
			rte_pause();
		}
	}
	return NULL;
}

int
sw_engine_start_thread(struct sw_engine *e)
{
	int ret;

	__atomic_store_n(&e->thread_run, true, __ATOMIC_RELEASE);
	ret = pthread_create(&e->thread, NULL, sw_engine_thread, e);
	if (ret != 0) {
		e->thread_run = false;
		return -ret;
	}
	e->thread_mode = true;
	return 0;
}

void
sw_engine_stop_thread(struct sw_engine *e)
{
	if (!e->thread_mode)
		return;
	__atomic_store_n(&e->thread_run, false, __ATOMIC_RELEASE);
	pthread_join(e->thread, NULL);
	e->thread_mode = false;
}

void
sw_engine_quiesce(struct sw_engine *e)
{
	uint32_t l;

	/* each slot's mark is taken before it reads draining (seq_cst both
	 * sides): a call that missed draining is seen here */
	for (l = 0; l < SW_LC_SLOTS; l++)
		while (__atomic_load_n(&e->lc[l].inflight, __ATOMIC_SEQ_CST) != 0)
			sched_yield();
}

int
sw_engine_init(struct sw_engine *e)
{
	memset(e, 0, sizeof(*e));
	e->pid = getpid();
	pthread_mutex_init(&e->lock, NULL);
	rdx_sw_cleanup_stale();
	e->self = sw_domain_create();
	if (e->self == NULL) {
		int err = rte_errno;

		SW_LOG(ERR, "cannot create the shared segment: %s\n", strerror(err));
		pthread_mutex_destroy(&e->lock);
		return -err;
	}
	return 0;
}

void
sw_engine_fini(struct sw_engine *e)
{
	sw_engine_stop_thread(e);
	while (e->peers != NULL) {
		struct sw_domain *d = e->peers;

		e->peers = d->next;
		sw_domain_unmap(d);
	}
	sw_domain_destroy(e->self);
	e->self = NULL;
	if (e->delayq != NULL) {
		free(e->delayq->buf);
		free(e->delayq);
		e->delayq = NULL;
	}
	pthread_mutex_destroy(&e->lock);
}

void
sw_engine_stats(struct sw_engine *e, struct rdx_sw_stats *st)
{
	const struct sw_hdr_ctr *pc = &e->self->hdr->peer_ctr;
	uint32_t l;

	memset(st, 0, sizeof(*st));
	st->device_errors = __atomic_load_n(&e->device_errors, __ATOMIC_RELAXED);
	st->cqes = __atomic_load_n(&pc->cqes, __ATOMIC_RELAXED);
	st->cq_overruns = __atomic_load_n(&pc->cq_overruns, __ATOMIC_RELAXED);
	st->recv_wqes = __atomic_load_n(&pc->recv_wqes, __ATOMIC_RELAXED);
	for (l = 0; l < SW_LC_SLOTS; l++) {
		const struct sw_lc *c = &e->lc[l];

		st->doorbells += __atomic_load_n(&c->doorbells, __ATOMIC_RELAXED);
		st->bf_copies += __atomic_load_n(&c->bf_copies, __ATOMIC_RELAXED);
		st->wqes += __atomic_load_n(&c->wqes, __ATOMIC_RELAXED);
		st->rnr_naks += __atomic_load_n(&c->rnr_naks, __ATOMIC_RELAXED);
		st->retries += __atomic_load_n(&c->retries, __ATOMIC_RELAXED);
		st->errors += __atomic_load_n(&c->errors, __ATOMIC_RELAXED);
		st->flushes += __atomic_load_n(&c->flushes, __ATOMIC_RELAXED);
		st->cqes += __atomic_load_n(&c->own.cqes, __ATOMIC_RELAXED);
		st->cq_overruns += __atomic_load_n(&c->own.cq_overruns, __ATOMIC_RELAXED);
		st->recv_wqes += __atomic_load_n(&c->own.recv_wqes, __ATOMIC_RELAXED);
	}
	{
		/* UD: destroyed QPs' sums, then the live ones (under the lock
		 * that destroy holds while it moves a QP's counters over) */
		struct rdx_sw_ud_stats u;
		uint32_t i;

		sw_lock(&e->lock);
		u = e->ud_gone;
		for (i = 0; i < e->nb_slots; i++) {
			const struct sw_lqp *q = __atomic_load_n(&e->qps[i], __ATOMIC_ACQUIRE);

			if (q != NULL)
				sw_ud_stats_add(&u, q);
		}
		sw_unlock(&e->lock);
		st->ud_sent = u.sent;
		st->ud_too_long = u.too_long;
		st->ud_drop_dest = u.drop_dest + __atomic_load_n(&e->ud_orphan_drop_dest,
								 __ATOMIC_RELAXED);
		st->ud_inject_drop = u.inject_drop;
		st->ud_inject_dup = u.inject_dup;
		st->ud_inject_delay = u.inject_delay;
		st->ud_recv = u.recv;
		st->ud_drop_no_recv = u.drop_no_recv;
		st->ud_drop_qkey = u.drop_qkey;
		st->ud_recv_len_err = u.recv_len_err;
	}
}

/* A probability in [0, 1] as a threshold of sw_coin (2^53 scale). */
static int
sw_ud_prob(const char *key, const char *v, uint64_t *thr)
{
	char *end;
	double p;

	if (v == NULL)
		return 0;
	errno = 0;
	p = strtod(v, &end);
	if (errno != 0 || end == v || *end != '\0' || !(p >= 0.0 && p <= 1.0)) {
		SW_LOG(ERR, "bad devargs %s=%s: expected a probability 0..1\n", key, v);
		return -EINVAL;
	}
	*thr = (uint64_t)(p * 9007199254740992.0); /* 2^53 */
	return 0;
}

static int
sw_ud_uint(const char *key, const char *v, uint64_t max, uint64_t *out)
{
	unsigned long long x;
	char *end;

	if (v == NULL)
		return 0;
	errno = 0;
	x = strtoull(v, &end, 0);
	if (errno != 0 || end == v || *end != '\0' || v[0] == '-' || x > max) {
		SW_LOG(ERR, "bad devargs %s=%s: expected an integer 0..%llu\n", key, v,
			(unsigned long long)max);
		return -EINVAL;
	}
	*out = x;
	return 0;
}

int
sw_ud_inject_conf(struct sw_engine *e, const char *drop, const char *drop_every,
		  const char *delay_us, const char *delay, const char *dup, const char *seed)
{
	struct sw_ud_inject in = { .delay_thr = 1ULL << 53 };
	uint64_t every = 0, us = 0;

	if (sw_ud_prob("ud_drop", drop, &in.drop_thr) != 0 ||
	    sw_ud_prob("ud_dup", dup, &in.dup_thr) != 0 ||
	    sw_ud_prob("ud_delay", delay, &in.delay_thr) != 0 ||
	    sw_ud_uint("ud_drop_every", drop_every, UINT32_MAX, &every) != 0 ||
	    sw_ud_uint("ud_delay_us", delay_us, 10000000, &us) != 0 ||
	    sw_ud_uint("seed", seed, UINT64_MAX, &in.seed) != 0)
		return -EINVAL;
	if (delay != NULL && delay_us == NULL) {
		SW_LOG(ERR, "bad devargs ud_delay=%s: needs ud_delay_us\n", delay);
		return -EINVAL;
	}
	in.drop_every = (uint32_t)every;
	in.delay_us = (uint32_t)us;
	if (in.delay_us == 0)
		in.delay_thr = 0;
	in.on = in.drop_thr != 0 || in.dup_thr != 0 || in.drop_every != 0 ||
		(in.delay_us != 0 && in.delay_thr != 0);
	if (in.delay_us != 0 && in.delay_thr != 0 && e->delayq == NULL) {
		e->delayq = calloc(1, sizeof(*e->delayq));
		if (e->delayq != NULL)
			e->delayq->buf = calloc(SW_UD_DELAY_SLOTS, SW_UD_MTU);
		if (e->delayq == NULL || e->delayq->buf == NULL) {
			free(e->delayq);
			e->delayq = NULL;
			return -ENOMEM;
		}
	}
	e->inj = in;
	return 0;
}
