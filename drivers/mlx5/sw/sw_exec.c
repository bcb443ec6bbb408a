/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Software mlx5 device: execution of one send WQE (decode, checks, memory
 * translation and copies, the responder's receive, atomics, requester
 * errors, RNR and ACK retries), strictly following doc/mlx5-datapath.md
 * (§8) and the datapath contract: sw_exec, which the engine runs for an RC
 * QP's WQE. Doorbells and progress are in sw_engine.c, the WQE fetch,
 * translation and copies in sw_mem.c, CQE writing and the requester's
 * completions in sw_cq.c, the objects in sw_obj.c (see sw_engine_priv.h).
 *
 * Choices where the hardware rule is not public (documented here once):
 * - A doorbell is any non-zero 8 bytes in a half of a doorbell register
 *   (shared by the QPs naming one posting lcore, else one QP's own; see
 *   "Doorbell registers"); it must name (idx, qpn, ctrl bytes 0..7) a
 *   posted WQE of a QP on that register (one that ends at or before the SQ
 *   doorbell record). A whole-WQE BlueFlame copy must equal the WQE in the
 *   ring. WQEs execute only up to the doorbell record and only after a
 *   doorbell (on a shared register: or after a look that may have lost
 *   one).
 * - Malformed WQEs (bad idx/qpn/DS/opcode, inline too long, zero-length
 *   data segment, atomic SGE not 8 bytes) are device errors: counted,
 *   logged, and completed with LOCAL_QP_OP_ERR (0x02).
 * - Misaligned atomic target: REMOTE_ACCESS_ERR (0x13).
 * - Receive buffer too small: responder LOCAL_LENGTH (0x01), requester
 *   REMOTE_INVALID_REQUEST (0x12). Bad receive lkey, or a receive data
 *   segment of byte count 0 (not "empty" in the mlx5 PRM; libmlx5 never
 *   writes one): responder LOCAL_PROT (0x04), requester REMOTE_OP (0x14).
 *   Responder CQ overrun: responder QP to error, requester REMOTE_OP
 *   (0x14); recv_wqes counts a receive only once its CQE is written.
 * - Remote errors (0x12, 0x13, 0x14) also move the peer QP to ERR (IBTA: a
 *   responder that NAKs with a fatal error enters the error state); its own
 *   engine then flushes its SQ and RQ.
 * - RNR: the wait is the RESPONDER's min_rnr_timer (IBTA: the responder
 *   advertises it in the RNR NAK); retries are the requester's rnr_retry.
 * - Missing ACK (peer vanished, destroyed, closed, or not in RTR/RTS):
 *   retry_cnt retries, each after the ACK timeout, then 0x15.
 * - After an error every later WQE (SQ and RQ) gets one flush CQE (0x05),
 *   signaled or not, in order; flushing pauses while the CQ is full. A
 *   CQE that cannot be written leaves its WQE/receive to that flush.
 * - UD (sw_exec_ud.c; doc/ud.md): the destination comes
 *   from the WQE's datagram segment only; unreliable: drops (no
 *   destination, Q_Key mismatch, no receive posted) are counted, never
 *   completed; a message above the MTU is LOCAL_LENGTH (0x01) at the
 *   sender, QP to ERR; a receive buffer smaller than GRH area + message is
 *   LOCAL_LENGTH at the receiver, its QP to ERR; the GRH area is a
 *   synthetic IBTA GRH.
 * - Shared memory is untrusted (a peer process maps it read-write): each
 *   shared value is read once and checked against its segment; own QP
 *   geometry and own MR translations come from process-local copies; a
 *   corrupt peer QP or CQ is a device error and REMOTE_OP (0x14).
 * - A shared lock kept by a live holder (a peer process descheduled or
 *   stopped inside its update) fails nothing: the WQE that needs it stays
 *   at the head and is retried (sw_lock_busy), as a NIC's request waits
 *   for a slow responder without an error. A holder that died inside is
 *   a device error (sw_cq_lock_dead, sw_qp_lock_dead); UD bounds its wait
 *   (sw_exec_ud.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_atomic.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_pause.h>

#include "sw_engine_priv.h"

/* IBTA RNR timer codes (9.7.5.2.8), in units of 10 us. */
static const uint32_t sw_rnr_10us[32] = {
	65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
	256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288,
	16384, 24576, 32768, 49152,
};

/* ------------------------------------------------------------------ */
/* Requests                                                            */

/* The owner of segment d is alive (pid read once; not a pid: dead). */
static bool
sw_pid_alive(const struct sw_domain *d)
{
	int32_t pid = SW_LOAD(d->hdr->owner_pid);

	return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno != ESRCH);
}

/*
 * Is the peer's process still there? A process killed without closing
 * leaves its segment behind; a NIC would stop getting ACKs from it. Looked
 * at (kill(pid, 0)) at most every 1024 requests and 100 ms, so the cost
 * stays off the per-WQE path.
 */
static void
sw_peer_check_pid(struct sw_engine *e, struct sw_lqp *q)
{
	uint64_t now;

	if (q->peer_dom == NULL || q->peer_dom == e->self || (++q->peer_check_cnt & 1023) != 0)
		return;
	now = sw_now_ns();
	if (now - q->peer_checked_ns < 100000000ULL)
		return;
	q->peer_checked_ns = now;
	if (!sw_pid_alive(q->peer_dom))
		q->peer_vanished = true;
}


/* The peer's segment was truncated (by the peer: see sw_shm.c's SIGBUS
 * guard); what the request touched there is lost: it is not ACKed. */
static inline bool
sw_seg_lost(const struct sw_lqp *q)
{
	return __atomic_load_n(&q->peer_dom->truncated, __ATOMIC_ACQUIRE) != 0;
}



/*
 * A request needs the peer: vanished/dead/ERR peers never ACK. Like a
 * requester whose ACK timer (4.096 us << timeout; 0 = never) expires, the
 * head WQE is retried retry_cnt times (never blocking: a retry-at time is
 * recorded), then fails with RETRY_EXC_ERR. A peer that comes up in time
 * (connects, leaves RESET) gets the retry.
 */
static int
sw_no_ack(struct sw_engine *e, struct sw_lqp *q, const struct sw_wqe *w)
{
	uint8_t t = q->s->timeout & 31;

	q->rnr_active = false;
	if (!q->ack_active) {
		q->ack_active = true;
		q->ack_left = q->s->retry_cnt;
	}
	if (q->ack_left == 0)
		return sw_req_fail(e, q, w, MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR);
	q->ack_left--;
	sw_stat(&sw_lc(e)->retries, 1);
	q->retry_at_ns = t == 0 ? UINT64_MAX : sw_now_ns() + (4096ULL << t);
	return SW_WAIT;
}


static int
sw_rnr(struct sw_engine *e, struct sw_lqp *q, const struct sw_wqe *w)
{
	uint8_t code = __atomic_load_n(&q->peer->min_rnr_timer, __ATOMIC_RELAXED);

	uint64_t now = sw_now_ns();

	sw_stat(&sw_lc(e)->rnr_naks, 1);
	/* A peer process that died without closing never posts receives
	 * again: while NAKed, look at its pid now and then (10 ms). */
	if (q->peer_dom != e->self && now - q->peer_checked_ns > 10000000ULL) {
		q->peer_checked_ns = now;
		if (!sw_pid_alive(q->peer_dom)) {
			q->peer_vanished = true;
			return sw_no_ack(e, q, w);
		}
	}
	q->ack_active = false; /* the NAK is an answer */
	if (!q->rnr_active) {
		q->rnr_active = true;
		q->rnr_left = q->s->rnr_retry;
	}
	/* rnr_retry retries after the first NAK; 7 = retry forever */
	if (q->s->rnr_retry != 7) {
		if (q->rnr_left == 0)
			return sw_req_fail(e, q, w, MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR);
		q->rnr_left--;
	}
	/* never block: record when to retry and come back later */
	q->retry_at_ns = now + (uint64_t)sw_rnr_10us[code & 31] * 10000ULL;
	return SW_WAIT;
}

/*
 * The peer's receive WQE r->cnt (posted: r->avail >= 1, geometry checked).
 * With 16- or 32-byte strides the posted WQEs of the rest of its cache line
 * are copied with it into q->prq_buf and later messages take theirs from
 * there: the peer reposts into that line after each receive, and reading
 * it again each message would move it between the two cores every time.
 */
static const uint8_t *
sw_peer_rwqe(struct sw_lqp *q, const struct sw_domain *pd, const struct sw_peer_rq *r)
{
	const uint32_t idx = r->cnt & (r->rq_cnt - 1);
	const uint8_t *a = sw_ptr(pd, r->rq_off) + (size_t)idx * r->stride;
	uint32_t n;

	if (r->stride >= 64)
		return a;
	if (q->prq_n != 0 && q->prq_stride == r->stride && r->cnt - q->prq_first < q->prq_n)
		return q->prq_buf + (size_t)(r->cnt - q->prq_first) * r->stride;
	/* the slots from idx to the end of its line: posted, not past the ring */
	n = (uint32_t)((((uintptr_t)a | 63) + 1 - (uintptr_t)a) / r->stride);
	n = RTE_MIN(RTE_MIN(n, r->avail), r->rq_cnt - idx);
	n = RTE_MAX(n, 1u);
	memcpy(q->prq_buf, a, (size_t)n * r->stride);
	q->prq_first = r->cnt;
	q->prq_n = n;
	q->prq_stride = r->stride;
	return q->prq_buf;
}

/*
 * Write q's owed responder CQE (sw_responder: a receive of the peer
 * consumed, its data stored, its CQE met a busy CQ lock) into the peer's
 * receive CQ. @return 0 (written; or dropped: the peer QP or its device
 * is gone), -EBUSY (the lock still kept: try again), -EIO (the CQ took no
 * CQE: overrun or corrupt; the receive is given back to the peer's
 * flush when its QP's lock can be had, the peer QP goes to ERR).
 */
int
sw_resp_owed_push(struct sw_engine *e, struct sw_lqp *q)
{
	struct sw_domain *pd = q->peer_dom;
	struct sw_qp_shm *p = q->peer;
	int rc;

	if (p == NULL || pd == NULL || __atomic_load_n(&pd->truncated, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&pd->hdr->closed, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&p->gen, __ATOMIC_ACQUIRE) != q->peer_gen) {
		q->resp_owed = false;
		return 0;
	}
	rc = sw_cq_push(e, pd, q->resp_cq, &q->resp_cqe, q->resp_op, q->resp_se);
	if (rc == -EBUSY)
		return rc;
	q->resp_owed = false;
	if (rc == 0) {
		__atomic_fetch_add(&sw_ctr(e, pd)->recv_wqes, 1, __ATOMIC_RELAXED);
		return 0;
	}
	if (sw_qp_lock(e, pd, p) == 0) {
		if (SW_LOAD(p->rq_ci) == q->resp_rq + 1)
			p->rq_ci = q->resp_rq;
		sw_qunlock(&p->lock);
	}
	sw_qp_set_err(p);
	return -EIO;
}

/*
 * SEND/SEND_IMM/WRITE_IMM at the responder: consume the peer's next RQ WQE
 * (scatter for SENDs; the payload to wdst for WRITE_IMM), write its CQE.
 * Runs under the peer QP's lock. The peer QP's fields, doorbell record and
 * RQ WQE are in a segment another process writes: each is read once (the
 * WQE copied), checked against the segment, and a bad value is a device
 * error that fails the request with REMOTE_OP (0x14) -- never an access
 * outside the segment.
 */
static int
sw_responder(struct sw_engine *e, struct sw_lqp *q, const struct sw_wqe *w,
	     const struct sw_span *src, uint32_t ns, uint64_t len, bool write_imm,
	     const struct sw_span *wdst)
{
	struct sw_domain *pd = q->peer_dom;
	struct sw_qp_shm *p = q->peer;
	struct sw_span dst[SW_MAX_SGE];
	struct mlx5_wqe_data_seg rw[SW_MAX_SGE];
	struct sw_cq_shm *pcq;
	struct mlx5_cqe64 c;
	struct sw_peer_rq r;
	uint32_t nd = 0, pqpn;
	uint64_t room = 0;
	uint8_t cqe_op, synd = 0;
	int ret = SW_DONE;
	bool se;

	if (sw_qp_lock(e, pd, p) != 0)
		return sw_lock_busy(e, q); /* its holder is slow: come back */
	if (!sw_peer_alive(q)) {
		sw_qunlock(&p->lock);
		return sw_no_ack(e, q, w);
	}
	if (sw_seg_lost(q)) {
		sw_qunlock(&p->lock);
		return sw_no_ack(e, q, w);
	}
	sw_peer_rq_load(p, &r);
	pqpn = SW_LOAD(p->qpn);
	if (sw_seg_lost(q)) { /* reading the fields found it truncated */
		sw_qunlock(&p->lock);
		return sw_no_ack(e, q, w);
	}
	if (!sw_peer_rq_sane(pd, &r)) {
		sw_qp_set_err(p);
		sw_qunlock(&p->lock);
		if (sw_deverr(e))
			SW_LOG(ERR, "device error on QP 0x%x: peer QP 0x%x is corrupt (RQ %u x %u B at 0x%" PRIx64 ", dbrec 0x%" PRIx64 ", CQ %u)\n",
			       q->qpn, pqpn, r.rq_cnt, r.stride, r.rq_off, r.dbo, r.rcq);
		return sw_req_fail(e, q, w, MLX5_CQE_SYNDROME_REMOTE_OP_ERR);
	}
	pcq = &pd->hdr->cqs[r.rcq];
	if (q->peer_rq_head_ok && ((q->peer_rq_head - r.cnt) & 0xffff) != 0 &&
	    ((q->peer_rq_head - r.cnt) & 0xffff) <= r.rq_cnt) {
		/* receives posted when the record was last read remain */
		r.nsge = RTE_MIN(r.nsge, r.stride / 16);
		r.head = q->peer_rq_head;
		r.avail = (r.head - r.cnt) & 0xffff;
	} else if (sw_peer_rq_avail(pd, &r)) {
		q->peer_rq_head = r.head;
		q->peer_rq_head_ok = true;
	} else {
		/* the peer's RQ doorbell record claims more than its ring */
		sw_qp_set_err(p);
		sw_qunlock(&p->lock);
		if (sw_deverr(e))
			SW_LOG(ERR, "device error on QP 0x%x: RQ doorbell record 0x%x beyond the ring (ci 0x%x, %u WQEs)\n",
			       pqpn, r.head, r.cnt & 0xffff, r.rq_cnt);
		return sw_no_ack(e, q, w);
	}
	if (r.avail == 0 || r.rq_cnt == 0) {
		sw_qunlock(&p->lock);
		return sw_rnr(e, q, w);
	}
	q->lock_wait = false;
	q->rnr_active = false;
	q->ack_active = false;
	if (!write_imm) {
		/* the RQ WQE, copied once (with the rest of its line) */
		const uint8_t *rwqe = sw_peer_rwqe(q, pd, &r);

		if (r.nsge == 1)        /* one data segment: one 16-byte copy */
			memcpy(rw, rwqe, 16);
		else
			memcpy(rw, rwqe, (size_t)r.nsge * 16);
		room = sw_peer_rq_resolve(pd, &r, e->pid, rw, dst, &nd, &synd);
		if (synd == 0 && room < len)
			synd = MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR;
	}
	p->rq_ci = r.cnt + 1;
	if (synd != 0) {
		sw_qp_set_err(p);
		/* no room: the peer's flush completes that receive instead (and
		 * it was not consumed here: not counted) */
		if (sw_push_err(e, pd, pcq, MLX5_CQE_RESP_ERR, synd, 0, r.cnt & 0xffff, 0, pqpn) != 0)
			p->rq_ci = r.cnt;
		else
			__atomic_fetch_add(&sw_ctr(e, pd)->recv_wqes, 1, __ATOMIC_RELAXED);
		sw_qunlock(&p->lock);
		return sw_req_fail(e, q, w, synd == MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR ?
				   MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR :
				   MLX5_CQE_SYNDROME_REMOTE_OP_ERR);
	}
	/* data lands before the responder's CQE is visible (one span each:
	 * sw_copy's own shortcut, without the call) */
	if (!write_imm && len != 0 && nd == 1 && ns == 1 && dst[0].len >= len &&
	    src[0].len >= len)
		sw_copy1(dst[0].p, src[0].p, len);
	else if (!write_imm)
		sw_copy(dst, nd, src, ns, len);
	else if (len != 0)
		sw_copy(wdst, 1, src, ns, len);
	memset(&c, 0, sizeof(c));
	if (write_imm)
		cqe_op = MLX5_CQE_RESP_WR_IMM;
	else if (w->opcode == MLX5_OPCODE_SEND_IMM)
		cqe_op = MLX5_CQE_RESP_SEND_IMM;
	else
		cqe_op = MLX5_CQE_RESP_SEND;
	c.wqe_counter = htobe16((uint16_t)r.cnt);
	c.byte_cnt = htobe32((uint32_t)len);
	if (cqe_op != MLX5_CQE_RESP_SEND)
		memcpy(&c.imm_inval_pkey, &w->imm_raw, 4);
	c.sop_drop_qpn = htobe32(pqpn & 0xffffff);
	c.flags_rqpn = htobe32(q->qpn & 0xffffff);
	se = (w->fm_ce_se & MLX5_WQE_CTRL_SOLICITED) != 0;
	if (sw_cq_lock(e, pd, pcq) != 0) {
		/* The CQ's lock kept by a live holder. The data is stored and
		 * the receive consumed: only its CQE waits, owed by q and written
		 * before anything else of q (q's next WQE waits behind it, and
		 * q is the only requester consuming this RQ: the CQEs stay in
		 * RQ order). The lock is not taken before the copy, so that a
		 * holder preempted during a long copy does not hold up every
		 * producer of the CQ. */
		memcpy(&q->resp_cqe, &c, sizeof(c));
		q->resp_op = cqe_op;
		q->resp_se = se;
		q->resp_cq = pcq;
		q->resp_rq = r.cnt;
		q->resp_owed = true;
		q->cqe_owed = true;
		q->owed_bytes = (uint32_t)len;
		sw_qunlock(&p->lock);
		return sw_lock_busy(e, q);
	}
	ret = sw_cq_push_locked(e, pd, pcq, &c, cqe_op, se);
	sw_qunlock(&pcq->lock);
	if (ret != 0) {
		/* the receive stays posted: the peer's flush completes it (not
		 * consumed: not counted in recv_wqes) */
		p->rq_ci = r.cnt;
		sw_qp_set_err(p);
		ret = -1;
	} else {
		/* counted once the CQE is out: the counter's locked add (a line
		 * every requester of the peer's segment writes) stays off the
		 * message's path */
		__atomic_fetch_add(&sw_ctr(e, pd)->recv_wqes, 1, __ATOMIC_RELAXED);
	}
	sw_qunlock(&p->lock);
	if (ret != 0)
		return sw_req_fail(e, q, w, MLX5_CQE_SYNDROME_REMOTE_OP_ERR);
	return SW_DONE;
}


/*
 * The hot shapes' inline check (sw_exec): true when the segment at byte off
 * of w (off: 16-byte aligned, the segments before it) is an inline segment
 * sw_payload would take, non-empty, within max_inline and the last of the
 * WQE, with its length in *len; false sends the WQE to the general path,
 * which says what is wrong.
 */
static inline bool
sw_fast_inline(const struct sw_lqp *q, const struct sw_wqe *w, uint32_t off, uint32_t *len)
{
	uint32_t hdr;

	memcpy(&hdr, w->b + off, 4);
	hdr = be32toh(hdr);
	*len = hdr & ~(uint32_t)MLX5_INLINE_SEG;
	return (hdr & MLX5_INLINE_SEG) != 0 && *len != 0 && *len <= q->max_inline &&
		off / 16 + RTE_ALIGN_CEIL(4 + *len, 16U) / 16 == w->ds;
}

/* Execute the RC WQE at q->sq_ci; avail = WQEBBs posted from there. */
int
sw_exec(struct sw_engine *e, struct sw_lqp *q, uint32_t avail)
{
	struct sw_span loc[SW_MAX_SGE], rem;
	struct sw_wqe w;
	const struct mlx5_wqe_raddr_seg *ra =
		(const struct mlx5_wqe_raddr_seg *)(void *)(w.b + 16);
	const char *what = "malformed WQE";
	uint32_t nl, need, rkey;
	uint64_t total, raddr;
	uint8_t synd;
	int rc;

	sw_wqe_read(q, &w);
	if (q->cqe_owed) {
		/* executed before: only its completions are left to write, the
		 * responder's first */
		if (q->resp_owed) {
			rc = sw_resp_owed_push(e, q);
			if (rc == -EBUSY)
				return sw_lock_busy(e, q);
			if (rc != 0) {
				q->cqe_owed = false;
				return sw_req_fail(e, q, &w, MLX5_CQE_SYNDROME_REMOTE_OP_ERR);
			}
		}
		q->cqe_owed = false;
		return sw_req_done(e, q, &w, q->owed_bytes);
	}
	rc = sw_wqe_check(e, q, avail, &w);
	if (rc != 0)
		return rc;
	if (!q->rnr_active && !q->ack_active && !q->lock_wait) { /* first attempt, not a retry */
		sw_stat(&sw_lc(e)->wqes, 1);
		sw_peer_check_pid(e, q);
		if (q->fail_nth != 0 && --q->fail_nth == 0)
			return sw_req_fail(e, q, &w, q->fail_syndrome);
	}

	/* The hot shape: an RC RDMA_WRITE with its payload inline (small
	 * writes). The checks of the general path below, in its order, without
	 * its spans; anything else (not inline, zero length, a bad inline
	 * header) takes the general path, which reports what is wrong. */
	if (w.opcode == MLX5_OPCODE_RDMA_WRITE && q->type == SW_QPT_RC) {
		uint32_t len;

		if (sw_fast_inline(q, &w, 32, &len)) {
			if (!sw_peer_alive(q))
				return sw_no_ack(e, q, &w);
			rem.p = sw_mr_xlate(q->peer_dom, be32toh(ra->rkey), be64toh(ra->raddr), len,
					    IBV_ACCESS_REMOTE_WRITE, e->pid);
			if (sw_seg_lost(q))
				return sw_no_ack(e, q, &w);
			if (rem.p == NULL)
				return sw_req_fail(e, q, &w, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR);
			sw_copy1(rem.p, w.b + 36, len);
			/* the peer truncated its segment under the copy: no ACK */
			if (sw_seg_lost(q))
				return sw_no_ack(e, q, &w);
			return sw_req_done(e, q, &w, len);
		}
	}
	/* The other hot shape: an RC SEND with its payload inline (RPCs).
	 * sw_payload's inline checks in its order, no span bookkeeping; any
	 * other shape takes the general path, which reports what is wrong. */
	if (w.opcode == MLX5_OPCODE_SEND && q->type == SW_QPT_RC) {
		uint32_t len;

		if (sw_fast_inline(q, &w, 16, &len)) {
			loc[0].p = w.b + 20;
			loc[0].len = len;
			if (!sw_peer_alive(q))
				return sw_no_ack(e, q, &w);
			rc = sw_responder(e, q, &w, loc, 1, len, false, NULL);
			if (rc != SW_DONE)
				return rc;
			return sw_req_done(e, q, &w, len);
		}
	}
	switch (w.opcode) {
	case MLX5_OPCODE_NOP:
		if (w.ds != 1)
			return sw_malformed(e, q, &w, "NOP with DS != 1", w.ds, 1);
		return sw_req_done(e, q, &w, 0);
	case MLX5_OPCODE_SEND:
	case MLX5_OPCODE_SEND_IMM:
		synd = sw_payload(e, q, &w, 16, false, loc, &nl, &total, &what);
		if (synd == MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR)
			return sw_malformed(e, q, &w, what, w.ds, 0);
		if (synd != 0)
			return sw_req_fail(e, q, &w, synd);
		if (!sw_peer_alive(q))
			return sw_no_ack(e, q, &w);
		rc = sw_responder(e, q, &w, loc, nl, total, false, NULL);
		if (rc != SW_DONE)
			return rc;
		return sw_req_done(e, q, &w, (uint32_t)total);
	case MLX5_OPCODE_RDMA_WRITE:
	case MLX5_OPCODE_RDMA_WRITE_IMM:
	case MLX5_OPCODE_RDMA_READ: {
		bool rd = w.opcode == MLX5_OPCODE_RDMA_READ;

		if (w.ds < 2)
			return sw_malformed(e, q, &w, "RDMA op without raddr segment", w.ds, 2);
		synd = sw_payload(e, q, &w, 32, rd, loc, &nl, &total, &what);
		if (synd == MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR)
			return sw_malformed(e, q, &w, what, w.ds, 0);
		if (synd != 0)
			return sw_req_fail(e, q, &w, synd);
		if (!sw_peer_alive(q))
			return sw_no_ack(e, q, &w);
		raddr = be64toh(ra->raddr);
		rkey = be32toh(ra->rkey);
		need = rd ? IBV_ACCESS_REMOTE_READ : IBV_ACCESS_REMOTE_WRITE;
		/* a zero-length RDMA op checks no rkey (IBTA 9.4.1.1) */
		if (total != 0) {
			rem.p = sw_mr_resolve(q->peer_dom, rkey, raddr, total, need,
					      e->pid);
			if (sw_seg_lost(q))
				return sw_no_ack(e, q, &w);
			if (rem.p == NULL)
				return sw_req_fail(e, q, &w, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR);
			rem.len = total;
		}
		if (w.opcode == MLX5_OPCODE_RDMA_WRITE_IMM) {
			/* rkey checked above; an RNR NAK writes nothing */
			rc = sw_responder(e, q, &w, loc, nl, total, true, &rem);
			if (rc != SW_DONE)
				return rc;
			return sw_req_done(e, q, &w, (uint32_t)total);
		}
		if (total != 0) {
			if (rd)
				sw_copy(loc, nl, &rem, 1, total);
			else
				sw_copy(&rem, 1, loc, nl, total);
			/* the peer truncated its segment under the copy: no ACK */
			if (sw_seg_lost(q))
				return sw_no_ack(e, q, &w);
		}
		return sw_req_done(e, q, &w, (uint32_t)total);
	}
	case MLX5_OPCODE_ATOMIC_CS:
	case MLX5_OPCODE_ATOMIC_FA: {
		const struct mlx5_wqe_atomic_seg *at =
			(const struct mlx5_wqe_atomic_seg *)(void *)(w.b + 32);
		const struct mlx5_wqe_data_seg *ds =
			(const struct mlx5_wqe_data_seg *)(void *)(w.b + 48);
		uint64_t orig, *t;
		uint8_t *l;

		if (w.ds != 4)
			return sw_malformed(e, q, &w, "atomic with DS != 4", w.ds, 4);
		if (be32toh(ds->byte_count) != 8)
			return sw_malformed(e, q, &w, "atomic SGE byte_count != 8",
					    be32toh(ds->byte_count), 8);
		l = sw_mr_resolve(e->self, be32toh(ds->lkey), be64toh(ds->addr), 8,
				  IBV_ACCESS_LOCAL_WRITE, e->pid);
		if (l == NULL)
			return sw_req_fail(e, q, &w, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
		if (!sw_peer_alive(q))
			return sw_no_ack(e, q, &w);
		raddr = be64toh(ra->raddr);
		if (raddr & 7)
			return sw_req_fail(e, q, &w, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR);
		t = (uint64_t *)(void *)sw_mr_resolve(q->peer_dom, be32toh(ra->rkey), raddr, 8,
						      IBV_ACCESS_REMOTE_ATOMIC,
						      e->pid);
		/* the translation too: a peer's table may not keep iova and
		 * offset congruent mod 8 */
		if (t == NULL || ((uintptr_t)t & 7) != 0)
			return sw_req_fail(e, q, &w, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR);
		/* operands are BE in the WQE; target memory is host order; the
		 * original value returns in host order (endianness mode 1) */
		if (w.opcode == MLX5_OPCODE_ATOMIC_CS) {
			orig = be64toh(at->compare);
			__atomic_compare_exchange_n(t, &orig, be64toh(at->swap_add), false,
						    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
		} else {
			orig = __atomic_fetch_add(t, be64toh(at->swap_add), __ATOMIC_SEQ_CST);
		}
		if (sw_seg_lost(q))
			return sw_no_ack(e, q, &w);
		sw_store_once(l, (const uint8_t *)&orig, 8);
		return sw_req_done(e, q, &w, 8);
	}
	default:
		return sw_malformed(e, q, &w, "unknown opcode", w.opcode, 0);
	}
}
