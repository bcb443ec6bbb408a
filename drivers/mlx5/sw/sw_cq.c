/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Software mlx5 device: completions. Writing one CQE (requester and
 * responder CQEs, error CQEs, overruns), a process that died holding a CQ's
 * or a QP's lock, device errors, and the requester's end of a WQE shared by
 * RC (sw_exec.c) and UD (sw_exec_ud.c): done, failed, malformed, or
 * waiting for a lock a live holder keeps; with timing, the requester
 * CQEs listed until their modelled time (sw_req_release). Below the engine and both
 * executors; it calls nothing of theirs (sw_engine_priv.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <linux/futex.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_log.h>
#include "rdx_stamp.h"
#include "sw_engine_priv.h"

/* ------------------------------------------------------------------ */
/* CQE production                                                      */

static void
sw_futex_wake(uint32_t *addr)
{
	syscall(SYS_futex, addr, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/*
 * Write one CQE into cq (of segment d). Serialized per CQ by its shared
 * lock since requesters of several engines (processes) may complete into
 * the same CQ. Body first, release barrier, then op_own with the owner bit
 * of this lap (cq.c get_sw_cqe rule). Never overwrites a CQE the consumer
 * has not released: pi - ci (dbrec[0], 24 bits) >= cqe_cnt is an overrun.
 * The CQ's fields live in shared memory: each is read once and checked
 * against the segment before use.
 * @return 0, -ENOSPC (overrun, counted and logged once per episode),
 * -EBUSY (the lock kept by a live holder, a peer process descheduled
 * inside its own push: no error, nothing written, the caller tries again
 * later), or -EIO (the CQ's fields are not a CQ's: a device error, counted
 * and logged).
 */
int
sw_cq_push(struct sw_engine *e, struct sw_domain *d, struct sw_cq_shm *cq,
	   struct mlx5_cqe64 *cqe, uint8_t opcode, bool se)
{
	int rc;

	if (sw_cq_lock(e, d, cq) != 0)
		return -EBUSY;
	rc = sw_cq_push_locked(e, d, cq, cqe, opcode, se);
	sw_qunlock(&cq->lock);
	return rc;
}

/* sw_cq_push's work, under cq's lock (the caller's). */
int
sw_cq_push_locked(struct sw_engine *e, struct sw_domain *d, struct sw_cq_shm *cq,
		  struct mlx5_cqe64 *cqe, uint8_t opcode, bool se)
{
	uint64_t buf, dbo;
	uint32_t ci, cnt, lg, pi;
	uint8_t *dst;

	buf = SW_LOAD(cq->buf_off);
	if (buf == 0) /* destroyed: nowhere to write */
		return -ENOSPC;
	dbo = SW_LOAD(cq->dbrec_off);
	cnt = SW_LOAD(cq->cqe_cnt);
	lg = SW_LOAD(cq->log_cqe_cnt);
	pi = SW_LOAD(cq->pi);
	if (cnt == 0 || cnt > SW_MAX_CQE || (cnt & (cnt - 1)) != 0 || lg != sw_log2(cnt) ||
	    !sw_in_seg(d, buf, (uint64_t)cnt * 64) || !sw_in_seg(d, dbo, 8)) {
		if (sw_deverr(e))
			SW_LOG(ERR, "device error: CQ %u of %s is corrupt (%u CQEs, log %u, buf 0x%"
			       PRIx64 ", dbrec 0x%" PRIx64 ")\n", (unsigned int)(cq - d->hdr->cqs),
			       d->name, cnt, lg, buf, dbo);
		return -EIO;
	}
	/* The consumer counter only grows: while the one last read leaves
	 * room, there is room, and the doorbell record (a line the consumer
	 * writes) is not read again. */
	ci = SW_LOAD(cq->ci_seen);
	if (((pi - ci) & 0xffffff) >= cnt) {
		ci = be32toh(__atomic_load_n((const __be32 *)(const void *)sw_ptr(d, dbo),
					     __ATOMIC_ACQUIRE)) & 0xffffff;
		cq->ci_seen = ci;
	}
	if (((pi - ci) & 0xffffff) >= cnt) {
		if (!cq->full) {
			cq->full = 1;
			cq->overruns++;
			__atomic_fetch_add(&sw_ctr(e, d)->cq_overruns, 1, __ATOMIC_RELAXED);
			SW_LOG(ERR, "CQ overrun on %s cq %u (pi %u ci %u, %u CQEs): CQE not written\n",
			       d->name, (unsigned int)(cq - d->hdr->cqs), pi, ci, cnt);
		}
		return -ENOSPC;
	}
	cq->full = 0;
	dst = sw_ptr(d, buf) + (size_t)(pi & (cnt - 1)) * 64;
	sw_store_once63(dst, (const uint8_t *)cqe);
	/* release: the body is visible before the owner bit flips */
	__atomic_store_n(&dst[63], (uint8_t)((uint32_t)opcode << 4 | (se ? 2U : 0U) |
			 ((pi >> lg) & 1U)), __ATOMIC_RELEASE);
	if (d != e->self)
		RDX_STAMP(RDX_STAMP_PEER_CQE); /* bench/echo_path.sh (-Dpath_stamps=true) */
	cq->pi = pi + 1;
	cq->cqes++;
	__atomic_fetch_add(&sw_ctr(e, d)->cqes, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&cq->seq, 1, __ATOMIC_RELEASE);
	if (__atomic_load_n(&cq->waiters, __ATOMIC_ACQUIRE) != 0)
		sw_futex_wake(&cq->seq);
	return 0;
}

static void
sw_err_cqe(struct mlx5_cqe64 *c, uint8_t syndrome, uint8_t vendor, uint32_t counter,
	   uint8_t wqe_op, uint32_t qpn)
{
	struct mlx5_err_cqe *e = (struct mlx5_err_cqe *)c;

	memset(c, 0, sizeof(*c));
	e->syndrome = syndrome;
	e->vendor_err_synd = vendor;
	e->s_wqe_opcode_qpn = htobe32((uint32_t)wqe_op << 24 | (qpn & 0xffffff));
	e->wqe_counter = htobe16((uint16_t)counter);
}

int
sw_push_err(struct sw_engine *eng, struct sw_domain *d, struct sw_cq_shm *cq, uint8_t cqe_op,
	    uint8_t syndrome, uint8_t vendor, uint32_t counter, uint8_t wqe_op,
	    uint32_t qpn)
{
	struct mlx5_cqe64 c;

	sw_err_cqe(&c, syndrome, vendor, counter, wqe_op, qpn);
	return sw_cq_push(eng, d, cq, &c, cqe_op, false);
}

int
sw_push_err_locked(struct sw_engine *eng, struct sw_domain *d, struct sw_cq_shm *cq,
		   uint8_t cqe_op, uint8_t syndrome, uint8_t vendor, uint32_t counter,
		   uint8_t wqe_op, uint32_t qpn)
{
	struct mlx5_cqe64 c;

	sw_err_cqe(&c, syndrome, vendor, counter, wqe_op, qpn);
	return sw_cq_push_locked(eng, d, cq, &c, cqe_op, false);
}

/*
 * A process died holding the lock of CQ cq of segment d (sw_cq_lock took
 * it over): a real fault, counted and logged. It died inside a push: when
 * the CQE at the producer counter is of this lap (op_own's owner bit and
 * a valid opcode, written with the release store), the consumer may have
 * taken it already, so the counter moves past it -- else the next push
 * would write over it and that completion would be lost. A CQE it had not
 * finished (no owner bit yet) is written over by the next push.
 */
void
sw_cq_lock_dead(struct sw_engine *e, struct sw_domain *d, struct sw_cq_shm *cq,
		uint32_t holder)
{
	uint64_t buf = SW_LOAD(cq->buf_off);
	uint32_t cnt = SW_LOAD(cq->cqe_cnt), lg = SW_LOAD(cq->log_cqe_cnt), pi = SW_LOAD(cq->pi);
	bool counted = false;

	if (buf != 0 && cnt != 0 && cnt <= SW_MAX_CQE && (cnt & (cnt - 1)) == 0 &&
	    lg == sw_log2(cnt) && sw_in_seg(d, buf, (uint64_t)cnt * 64)) {
		uint8_t o = __atomic_load_n(sw_ptr(d, buf) + (size_t)(pi & (cnt - 1)) * 64 + 63,
					    __ATOMIC_ACQUIRE);

		if ((o >> 4) != MLX5_CQE_INVALID && (o & 1U) == ((pi >> lg) & 1U)) {
			cq->pi = pi + 1;
			counted = true;
		}
	}
	if (sw_deverr(e))
		SW_LOG(ERR, "device error: CQ %u of %s: process %u died holding its lock: taken over%s\n",
		       (unsigned int)(cq - d->hdr->cqs), d->name, holder,
		       counted ? " (the CQE it had written is counted)" : "");
}

/* The same for the responder-side lock of QP p: the receive it was
 * consuming may be left without a CQE (its RQ state is as it left it). */
void
sw_qp_lock_dead(struct sw_engine *e, struct sw_domain *d, struct sw_qp_shm *p, uint32_t holder)
{
	if (sw_deverr(e))
		SW_LOG(ERR, "device error: QP 0x%x of %s: process %u died holding its lock: taken over (its receive queue as that process left it)\n",
		       SW_LOAD(p->qpn), d->name, holder);
}

/* ------------------------------------------------------------------ */
void
sw_device_error(struct sw_engine *e, const struct sw_lqp *q, const char *what,
		uint32_t a, uint32_t b)
{
	uint64_t n = __atomic_fetch_add(&e->device_errors, 1, __ATOMIC_RELAXED);

	/* one line each, but a peer scribbling in a loop must not flood the log */
	if (n < SW_DEVERR_LOGS)
		SW_LOG(ERR, "device error on QP 0x%x: %s (0x%x vs 0x%x)%s\n", q->qpn, what, a, b,
		       n + 1 == SW_DEVERR_LOGS ? " (further device errors are counted only)" : "");
}


/* ------------------------------------------------------------------ */
/* The requester's end of a WQE                                        */

/*
 * The head WQE of q needs a shared lock (the peer QP's, a CQ's) that a
 * live holder keeps: a peer process descheduled or stopped inside its own
 * update. That is no fault and costs no retry: the WQE stays at the head
 * and is tried again after a wait that starts at 1 us and doubles up to
 * SW_LOCK_RETRY_MAX_NS, so the progress calls in between serve the other
 * QPs and give the holder the CPU, and a holder that never lets go (a
 * hostile peer writing a live pid into the word) stalls only the QPs that
 * need that lock.
 */
#define SW_LOCK_RETRY_MAX_NS 256000ULL
/* A wait this long is logged (NOTICE, once per wait, the first 64 of an
 * engine): it says the machine is oversubscribed, not that a peer failed. */
#define SW_LOCK_SLOW_NS 100000000ULL

int
sw_lock_busy(struct sw_engine *e, struct sw_lqp *q)
{
	const uint64_t now = sw_now_ns();

	if (!q->lock_wait) {
		q->lock_wait = true;
		q->lock_logged = false;
		q->lock_tries = 0;
		q->lock_since_ns = now;
	} else if (unlikely(!q->lock_logged && now - q->lock_since_ns >= SW_LOCK_SLOW_NS)) {
		q->lock_logged = true;
		if (__atomic_fetch_add(&e->slow_lock_logs, 1, __ATOMIC_RELAXED) < SW_DEVERR_LOGS)
			SW_LOG(NOTICE, "QP 0x%x waits for a shared lock held by a live process for over %llu ms (slow, not gone): still waiting, no error\n",
			       q->qpn, SW_LOCK_SLOW_NS / 1000000ULL);
	}
	q->retry_at_ns = now + RTE_MIN(1000ULL << q->lock_tries, SW_LOCK_RETRY_MAX_NS);
	if (q->lock_tries < 8)
		q->lock_tries++;
	return SW_WAIT;
}

/* Requester-side failure of w: error CQE, QP to ERR. */
int
sw_req_fail(struct sw_engine *e, struct sw_lqp *q, const struct sw_wqe *w,
	    uint8_t syndrome)
{
	int rc;

	sw_qp_set_err(q->s);
	q->sq_ci = w->pos + w->wqebbs;
	q->rnr_active = false;
	q->ack_active = false;
	q->lock_wait = false;
	sw_stat(&sw_lc(e)->errors, 1);
	if (syndrome == MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR ||
	    syndrome == MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR ||
	    syndrome == MLX5_CQE_SYNDROME_REMOTE_OP_ERR) {
		if (q->peer != NULL && sw_peer_alive(q))
			sw_qp_set_err(q->peer);
	}
	rc = sw_push_err(e, e->self, q->scq, MLX5_CQE_REQ_ERR, syndrome, 0, w->pos & 0xffff,
			 w->opcode, q->qpn);
	if (rc != 0) {
		/* CQ full or its lock busy: the flush completes it later, with
		 * this syndrome when only the lock was in the way */
		q->sq_ci = w->pos;
		q->owed_synd = rc == -EBUSY ? syndrome : 0;
	}
	return SW_FAIL;
}

int
sw_malformed(struct sw_engine *e, struct sw_lqp *q, const struct sw_wqe *w,
	     const char *what, uint32_t a, uint32_t b)
{
	sw_device_error(e, q, what, a, b);
	return sw_req_fail(e, q, w, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
}

/* A requester CQE of q into its send CQ. */
static int
sw_req_cqe(struct sw_engine *e, const struct sw_lqp *q, uint16_t idx, uint8_t opcode,
	   uint32_t bytes)
{
	struct mlx5_cqe64 c;

	memset(&c, 0, sizeof(c));
	c.wqe_counter = htobe16(idx);
	c.sop_drop_qpn = htobe32((uint32_t)opcode << 24 | q->qpn);
	c.byte_cnt = htobe32(bytes);
	return sw_cq_push(e, e->self, q->scq, &c, MLX5_CQE_REQ, false);
}

int
sw_req_done(struct sw_engine *e, struct sw_lqp *q, const struct sw_wqe *w, uint32_t bytes)
{
	int rc;

	q->sq_ci = w->pos + w->wqebbs;
	q->rnr_active = false;
	q->ack_active = false;
	if (!(w->fm_ce_se & MLX5_WQE_CTRL_CQ_UPDATE)) {
		q->lock_wait = false;
		return SW_DONE; /* unsignaled: no CQE */
	}
	if (unlikely(e->timing != NULL)) {
		const struct sw_tm_cqe tc = { q, bytes, (uint16_t)w->idx, w->opcode };

		/* executed at its modelled data time; the modelled NIC's
		 * completion comes later: listed, written at that time
		 * (sw_req_release), and the QP's next WQEs go on meanwhile */
		if (sw_timing_cqe_list(e->timing, q, w->pos, &tc)) {
			q->lock_wait = false;
			return SW_DONE;
		}
	}
	rc = sw_req_cqe(e, q, (uint16_t)w->idx, w->opcode, bytes);
	if (rc == -EBUSY) {
		/* the CQ's lock kept by a live holder (a peer process writing
		 * receive CQEs into it was descheduled): the WQE was executed,
		 * only its CQE waits. It stays at the head, marked so that the
		 * next attempt writes the CQE without executing it again. */
		q->sq_ci = w->pos;
		q->cqe_owed = true;
		q->owed_bytes = bytes;
		return sw_lock_busy(e, q);
	}
	q->lock_wait = false;
	if (rc != 0) {
		/* overrun (or CQ unusable): the QP goes to error and the WQE
		 * stays at the head, so the flush still completes it (0x05)
		 * once the CQ has room -- never a lost completion */
		q->sq_ci = w->pos;
		sw_qp_set_err(q->s);
		sw_stat(&sw_lc(e)->errors, 1);
		return SW_FAIL;
	}
	return SW_DONE;
}

/*
 * The timing layer's listed requester CQEs (sw_timing_cqe_list) whose
 * modelled time has come, in due-time order and in order per QP; or, for
 * a flush of only, all of only's first, due or not. A CQE that meets a
 * busy CQ lock stays listed for the next pass; one that meets a full CQ
 * (or an unusable one) stays listed too and its QP goes to error, as on a
 * NIC whose CQE write overruns: the flush writes it once the CQ has room,
 * before the flush CQEs -- never lost, never reordered.
 */
int
sw_req_release(struct sw_engine *e, struct sw_lqp *only)
{
	struct sw_tm_cqe c;
	int n = 0, rc = 0;

	if (!sw_timing_rel_begin(e->timing, only))
		return 0;
	while (sw_timing_rel_next(e->timing, only, &c)) {
		rc = sw_req_cqe(e, c.q, c.idx, c.opcode, c.bytes);
		sw_timing_rel_result(e->timing, rc == 0);
		if (rc == 0) {
			n++;
			continue;
		}
		if (rc != -EBUSY &&
		    __atomic_load_n(&c.q->s->state, __ATOMIC_ACQUIRE) != RDX_SW_QPS_ERR) {
			sw_qp_set_err(c.q->s);
			sw_stat(&sw_lc(e)->errors, 1);
		}
		if (only != NULL)
			break;
	}
	sw_timing_rel_end(e->timing);
	return only != NULL ? rc : n;
}
