/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Software mlx5 device: UD datagrams (doc/ud.md). A UD SEND's
 * decode (the datagram segment), the route to the destination device, the
 * receiver's part (done by the sender's engine, as for RC), and the
 * injection of loss, duplication and delay (reordering) with its queue of
 * delayed datagrams, and sw_ud_exec, which the engine runs for a UD QP's
 * WQE. The WQE's fetch, payload, key translation and copies are sw_mem.c's,
 * the requester's completion sw_cq.c's; the rules the model chose where
 * hardware's are not public are listed at the top of sw_exec.c.
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

static inline bool
sw_seg_lost_d(const struct sw_domain *d)
{
	return __atomic_load_n(&d->truncated, __ATOMIC_ACQUIRE) != 0;
}

/*
 * The destination device of an address vector: the route in slot rlid - 1
 * when its GID is rgid, else any route with that GID (the rlid of an AV
 * built by hand); NULL when there is none (its AHs were all destroyed, or
 * the bytes are nobody's AV). Routes change only while no progress call
 * runs (sw_route_put drains them).
 */
static struct sw_domain *
sw_ud_route(struct sw_engine *e, uint16_t rlid, const uint8_t *gid)
{
	uint32_t i = (uint32_t)rlid - 1;
	struct sw_domain *d;

	if (i < SW_MAX_ROUTES) {
		d = __atomic_load_n(&e->routes[i].dom, __ATOMIC_ACQUIRE);
		if (d != NULL && memcmp(e->routes[i].gid, gid, 16) == 0)
			return d;
	}
	for (i = 0; i < SW_MAX_ROUTES; i++) {
		d = __atomic_load_n(&e->routes[i].dom, __ATOMIC_ACQUIRE);
		if (d != NULL && memcmp(e->routes[i].gid, gid, 16) == 0)
			return d;
	}
	return NULL;
}

/*
 * The 40 bytes a UD receive gets before the message: an IBTA GRH (8.3.1;
 * RoCE v1 carries it as is), network order: IPVer 6, TClass, FlowLabel,
 * PayLen (what follows the GRH on the wire: BTH 12 + DETH 8 [+ ImmDt 4] +
 * the payload padded to 4 + ICRC 4), NxtHdr 0x1B (BTH), HopLmt, SGID (the
 * sender's device), DGID (the address vector's rgid).
 */
static void
sw_ud_grh(uint8_t *grh, const struct sw_ud_pkt *k, const uint8_t *sgid)
{
	uint32_t w0 = htobe32(6u << 28 | (uint32_t)k->tclass << 20 | (k->flow & 0xfffff));
	uint16_t pl = htobe16((uint16_t)(12u + 8u + (k->opcode == MLX5_OPCODE_SEND_IMM ? 4u : 0u) +
					  RTE_ALIGN_CEIL(k->len, 4u) + 4u));

	memcpy(grh, &w0, 4);
	memcpy(grh + 4, &pl, 2);
	grh[6] = 0x1b;
	grh[7] = k->hop_limit;
	memcpy(grh + 8, sgid, 16);
	memcpy(grh + 24, k->dgid, 16);
}

static void
sw_ud_no_dest(struct sw_engine *e, const struct sw_ud_pkt *k)
{
	if (k->src != NULL)
		sw_stat(&k->src->ud_drop_dest, 1);
	else
		sw_stat(&e->ud_orphan_drop_dest, 1);
}

/*
 * A datagram arrives: the receiver's part, done by the sender's engine
 * (as for RC) under the receiving QP's lock and its receive CQ's, both
 * taken before anything is consumed or stored. No UD QP ready at the
 * address (no such device or QP, a QP of another type, not in RTR/RTS,
 * its fields corrupt): dropped, counted at the sender (drop_dest). Q_Key
 * mismatch (IBTA 10.2.4: silently dropped) and no receive WQE posted (no
 * RNR on UD): dropped, counted at the receiving QP. Receive buffer smaller
 * than GRH area + message: that receive completes with LOC_LEN (0x01) and
 * the receiving QP goes to ERR; a bad receive lkey: LOC_PROT (0x04), ERR.
 * Otherwise the GRH area and the message are stored (each byte once, in
 * order) and a receive CQE written: byte_cnt = 40 + length, source QPN,
 * SL and the GRH flag in flags_rqpn (libmlx5 cq.c: src_qp bits 0..23, sl
 * bits 24..27, GRH bits 28..29), slid 0 (RoCE).
 * @return 0 (delivered or dropped), -EBUSY (a lock kept by a live holder:
 * nothing happened, the caller tries again later).
 */
static int
sw_ud_deliver(struct sw_engine *e, const struct sw_ud_pkt *k, const struct sw_span *src,
	      uint32_t ns)
{
	struct sw_domain *pd = k->dom;
	struct sw_span dst[SW_MAX_SGE], s2[SW_MAX_SGE + 1];
	struct mlx5_wqe_data_seg rw[SW_MAX_SGE];
	uint32_t slot = k->dqpn - SW_QPN_BASE, nd = 0, st;
	struct sw_peer_rq r;
	uint64_t room = 0;
	uint8_t grh[SW_UD_GRH], synd = 0, cqe_op;
	struct sw_cq_shm *pcq;
	int ret;
	struct sw_qp_shm *p;
	struct mlx5_cqe64 c;

	if (pd == NULL || slot >= SW_MAX_QP ||
	    __atomic_load_n(&pd->truncated, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&pd->hdr->closed, __ATOMIC_ACQUIRE)) {
		sw_ud_no_dest(e, k);
		return 0;
	}
	p = &pd->hdr->qps[slot];
	if (sw_qp_lock(e, pd, p) != 0)
		return -EBUSY;
	st = __atomic_load_n(&p->state, __ATOMIC_ACQUIRE);
	if (!SW_LOAD(p->in_use) || SW_LOAD(p->qpn) != k->dqpn || SW_LOAD(p->type) != SW_QPT_UD ||
	    (st != RDX_SW_QPS_RTR && st != RDX_SW_QPS_RTS) || sw_seg_lost_d(pd)) {
		sw_qunlock(&p->lock);
		sw_ud_no_dest(e, k);
		return 0;
	}
	if (SW_LOAD(p->qkey) != k->qkey) {
		__atomic_fetch_add(&p->ud_drop_qkey, 1, __ATOMIC_RELAXED);
		sw_qunlock(&p->lock);
		return 0;
	}
	sw_peer_rq_load(p, &r);
	if (!sw_peer_rq_sane(pd, &r) || sw_seg_lost_d(pd)) {
		sw_qp_set_err(p);
		sw_qunlock(&p->lock);
		if (sw_deverr(e))
			SW_LOG(ERR, "device error: UD QP 0x%x is corrupt (RQ %u x %u B at 0x%" PRIx64 ", dbrec 0x%" PRIx64 ", CQ %u)\n",
			       k->dqpn, r.rq_cnt, r.stride, r.rq_off, r.dbo, r.rcq);
		sw_ud_no_dest(e, k);
		return 0;
	}
	pcq = &pd->hdr->cqs[r.rcq];
	if (!sw_peer_rq_avail(pd, &r)) {
		sw_qp_set_err(p);
		sw_qunlock(&p->lock);
		if (sw_deverr(e))
			SW_LOG(ERR, "device error on UD QP 0x%x: RQ doorbell record 0x%x beyond the ring (ci 0x%x, %u WQEs)\n",
			       k->dqpn, r.head, r.cnt & 0xffff, r.rq_cnt);
		sw_ud_no_dest(e, k);
		return 0;
	}
	if (r.avail == 0) {
		/* no receive posted: UD drops it (no RNR NAK) */
		__atomic_fetch_add(&p->ud_drop_no_recv, 1, __ATOMIC_RELAXED);
		sw_qunlock(&p->lock);
		return 0;
	}
	if (sw_cq_lock(e, pd, pcq) != 0) {
		sw_qunlock(&p->lock);
		return -EBUSY;
	}
	room = sw_peer_rq_scatter(pd, &r, e->pid, rw, dst, &nd, &synd);
	if (synd == 0 && room < (uint64_t)SW_UD_GRH + k->len)
		synd = MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR;
	p->rq_ci = r.cnt + 1;
	if (synd != 0) {
		sw_qp_set_err(p);
		if (synd == MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR)
			__atomic_fetch_add(&p->ud_recv_len_err, 1, __ATOMIC_RELAXED);
		if (sw_push_err_locked(e, pd, pcq, MLX5_CQE_RESP_ERR, synd, 0, r.cnt & 0xffff, 0,
				       k->dqpn) != 0)
			p->rq_ci = r.cnt; /* the receiving QP's flush completes it */
		else
			__atomic_fetch_add(&sw_ctr(e, pd)->recv_wqes, 1, __ATOMIC_RELAXED);
		sw_qunlock(&pcq->lock);
		sw_qunlock(&p->lock);
		return 0;
	}
	sw_ud_grh(grh, k, e->self->gid);
	s2[0].p = grh;
	s2[0].len = SW_UD_GRH;
	memcpy(&s2[1], src, (size_t)ns * sizeof(*src));
	sw_copy(dst, nd, s2, ns + 1, (uint64_t)SW_UD_GRH + k->len);
	memset(&c, 0, sizeof(c));
	cqe_op = k->opcode == MLX5_OPCODE_SEND_IMM ? MLX5_CQE_RESP_SEND_IMM : MLX5_CQE_RESP_SEND;
	c.wqe_counter = htobe16((uint16_t)r.cnt);
	c.byte_cnt = htobe32(SW_UD_GRH + k->len);
	if (cqe_op == MLX5_CQE_RESP_SEND_IMM)
		memcpy(&c.imm_inval_pkey, &k->imm_raw, 4);
	c.sop_drop_qpn = htobe32(k->dqpn & 0xffffff);
	c.flags_rqpn = htobe32(1u << 28 | (uint32_t)(k->sl & 0xf) << 24 | (k->src_qpn & 0xffffff));
	ret = sw_cq_push_locked(e, pd, pcq, &c, cqe_op, k->se);
	if (ret != 0) {
		/* the receive stays posted: the receiving QP's flush completes it */
		p->rq_ci = r.cnt;
		sw_qp_set_err(p);
	} else {
		/* consumed: counted once its CQE is out (a receive left to the
		 * flush is not) */
		__atomic_fetch_add(&sw_ctr(e, pd)->recv_wqes, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&p->ud_recv, 1, __ATOMIC_RELAXED);
	}
	sw_qunlock(&pcq->lock);
	sw_qunlock(&p->lock);
	return 0;
}

/*
 * How long a datagram waits for the receiver's locks (sw_ud_deliver's
 * -EBUSY), from its first attempt, before it is dropped (drop_dest). RC
 * waits as long as the holder lives; UD does not, because one sending QP
 * carries datagrams to every destination in order: a receiver whose
 * process stays stopped (SIGSTOP, a debugger) while holding its lock would
 * otherwise hold back everything behind it, to every other destination,
 * where a loss is what UD allows. A second is hundreds of scheduler time
 * slices: a descheduled holder, however loaded the machine, gets the CPU
 * back long before, so oversubscription alone never drops a datagram.
 */
#define SW_UD_LOCK_WAIT_NS 1000000000ULL

/* Put a datagram into the delay queue (its payload copied): false when
 * the queue is full (then it goes now). */
static bool
sw_ud_delay_put(struct sw_engine *e, const struct sw_ud_pkt *k, const struct sw_span *src,
		uint32_t ns)
{
	struct sw_ud_delayq *dq = e->delayq;
	struct sw_ud_pkt *slot;
	uint32_t i, t;
	uint8_t *b;

	while (__atomic_exchange_n(&dq->lock, 1, __ATOMIC_ACQUIRE) != 0)
		rte_pause();
	t = dq->tail;
	if (t - __atomic_load_n(&dq->head, __ATOMIC_ACQUIRE) >= SW_UD_DELAY_SLOTS) {
		__atomic_store_n(&dq->lock, 0, __ATOMIC_RELEASE);
		return false;
	}
	slot = &dq->pkt[t % SW_UD_DELAY_SLOTS];
	*slot = *k;
	slot->due_ns = sw_now_ns() + (uint64_t)e->inj.delay_us * 1000u;
	b = dq->buf[t % SW_UD_DELAY_SLOTS];
	for (i = 0; i < ns; i++) {
		memcpy(b, src[i].p, src[i].len);
		b += src[i].len;
	}
	__atomic_store_n(&dq->tail, t + 1, __ATOMIC_RELEASE);
	__atomic_store_n(&dq->lock, 0, __ATOMIC_RELEASE);
	return true;
}

/*
 * Deliver the delayed datagrams that are due, oldest first (every one
 * waits the same time, so the queue is in due order). One drainer at a
 * time; the head slot is not reused until it has been delivered.
 */
int
sw_ud_delayed(struct sw_engine *e)
{
	struct sw_ud_delayq *dq = e->delayq;
	uint64_t now = 0;
	int n = 0;

	if (dq == NULL ||
	    __atomic_load_n(&dq->head, __ATOMIC_RELAXED) ==
	    __atomic_load_n(&dq->tail, __ATOMIC_ACQUIRE) ||
	    __atomic_exchange_n(&dq->busy, 1, __ATOMIC_ACQUIRE) != 0)
		return 0;
	for (;;) {
		uint32_t h = __atomic_load_n(&dq->head, __ATOMIC_RELAXED);
		struct sw_ud_pkt *k = &dq->pkt[h % SW_UD_DELAY_SLOTS];
		struct sw_span sp;

		if (h == __atomic_load_n(&dq->tail, __ATOMIC_ACQUIRE))
			break;
		if (now < k->due_ns) {
			now = sw_now_ns();
			if (now < k->due_ns)
				break;
		}
		sp.p = dq->buf[h % SW_UD_DELAY_SLOTS];
		sp.len = k->len;
		if (sw_ud_deliver(e, k, &sp, k->len != 0) != 0) {
			/* a receiver's lock busy: the head waits for the next call
			 * (the queue stays in order), up to the bound from when it
			 * was due */
			if (sw_now_ns() - k->due_ns < SW_UD_LOCK_WAIT_NS)
				break;
			sw_ud_no_dest(e, k);
		}
		__atomic_store_n(&dq->head, h + 1, __ATOMIC_RELEASE);
		n++;
	}
	__atomic_store_n(&dq->busy, 0, __ATOMIC_RELEASE);
	return n;
}

/*
 * Injection for one datagram of q (devargs ud_*): per QP, in a fixed
 * order, drop (every n-th, then with probability ud_drop), duplicate
 * (ud_dup), delay (ud_delay of them by ud_delay_us: later ones overtake
 * them). Each knob that is on draws from q's stream whatever the others
 * decide, so a run is the same for the same seed and the same WQEs. The
 * outcome is q's head WQE's (ud_todo copies, ud_todo_delay), drawn once
 * however often a busy receiver makes it try again.
 */
static void
sw_ud_send_inject(struct sw_engine *e, struct sw_lqp *q)
{
	const struct sw_ud_inject *in = &e->inj;
	bool drop = in->drop_every != 0 && q->ud_sent % in->drop_every == 0;
	bool dup, delay;

	if (sw_coin(&q->rng, in->drop_thr))
		drop = true;
	dup = sw_coin(&q->rng, in->dup_thr);
	delay = e->delayq != NULL && sw_coin(&q->rng, in->delay_thr);
	if (drop) {
		sw_stat(&q->ud_inject_drop, 1);
		q->ud_todo = 0;
		return;
	}
	if (dup)
		sw_stat(&q->ud_inject_dup, 1);
	if (delay)
		sw_stat(&q->ud_inject_delay, 1);
	q->ud_todo = dup ? 2 : 1;
	q->ud_todo_delay = delay;
}

/*
 * A UD SEND / SEND_IMM: ctrl, the datagram segment (48 B: Q_Key, remote
 * QPN, the address vector), then the message inline or in data segments.
 * The destination comes from these bytes only. Unreliable: the send
 * completes once the datagram left, whatever happens to it. A message
 * above the MTU is not sent: LOCAL_LENGTH (0x01) at the sender, QP to ERR
 * (mlx5 moves a QP to error on any error CQE; IBTA would allow SQE for
 * UD, the model takes the stricter one).
 */
int
sw_ud_send(struct sw_engine *e, struct sw_lqp *q, struct sw_wqe *w)
{
	const struct mlx5_wqe_av *av = (const struct mlx5_wqe_av *)(const void *)(w->b + 16);
	const char *what = "malformed WQE";
	struct sw_span loc[SW_MAX_SGE];
	struct sw_ud_pkt k;
	uint32_t nl, dq, fl;
	uint64_t total;
	uint8_t synd;

	if (w->ds < SW_UD_DS_MIN)
		return sw_malformed(e, q, w, "UD SEND without a datagram segment (DS)", w->ds,
				    SW_UD_DS_MIN);
	dq = be32toh(av->dqp_dct);
	fl = be32toh(av->grh_gid_fl);
	/* bit 31: extended AV (libmlx5 sets it on every UD WQE); 24..30 reserved */
	if ((dq & 0x7f000000) != 0)
		return sw_malformed(e, q, w, "datagram segment: reserved bits of dqp_dct", dq, 0);
	/* RoCE: every packet has a GRH; libmlx5 sets bit 30 for is_global */
	if ((fl & (1u << 30)) == 0)
		return sw_malformed(e, q, w, "datagram segment without GRH on a RoCE port", fl,
				    1u << 30);
	synd = sw_payload(e, q, w, SW_UD_DS_MIN * 16, false, loc, &nl, &total, &what);
	if (synd == MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR)
		return sw_malformed(e, q, w, what, w->ds, 0);
	if (synd != 0)
		return sw_req_fail(e, q, w, synd);
	if (total > SW_UD_MTU) {
		sw_stat(&q->ud_too_long, 1);
		return sw_req_fail(e, q, w, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
	}
	k.dom = sw_ud_route(e, be16toh(av->rlid), av->rgid);
	k.src = q;
	k.src_qpn = q->qpn;
	k.dqpn = dq & 0xffffff;
	k.qkey = be32toh(av->key.qkey.qkey);
	/* IBTA 10.2.4: a WR Q_Key with bit 31 set takes the QP's own */
	if (k.qkey & 0x80000000u)
		k.qkey = q->qkey;
	k.flow = fl & 0xfffff;
	k.sl = av->stat_rate_sl & 0xf;
	k.tclass = av->tclass;
	k.hop_limit = av->hop_limit;
	k.opcode = w->opcode;
	k.se = (w->fm_ce_se & MLX5_WQE_CTRL_SOLICITED) != 0;
	k.imm_raw = w->imm_raw;
	k.len = (uint32_t)total;
	memcpy(k.dgid, av->rgid, 16);
	k.due_ns = 0;
	if (!q->lock_wait) {
		/* the first attempt (not one after a busy receiver) */
		sw_stat(&q->ud_sent, 1);
		q->ud_todo = 1;
		q->ud_todo_delay = false;
		if (e->inj.on)
			sw_ud_send_inject(e, q);
	}
	while (q->ud_todo != 0) {
		if (!q->ud_todo_delay || !sw_ud_delay_put(e, &k, loc, nl)) {
			if (sw_ud_deliver(e, &k, loc, nl) != 0) {
				if (!q->lock_wait ||
				    sw_now_ns() - q->lock_since_ns < SW_UD_LOCK_WAIT_NS)
					return sw_lock_busy(e, q);
				sw_ud_no_dest(e, &k); /* waited SW_UD_LOCK_WAIT_NS */
			}
		}
		q->ud_todo--;
	}
	return sw_req_done(e, q, w, (uint32_t)total);
}

/* Execute the UD WQE at q->sq_ci; avail = WQEBBs posted from there. */
int
sw_ud_exec(struct sw_engine *e, struct sw_lqp *q, uint32_t avail)
{
	struct sw_wqe w;
	int rc;

	sw_wqe_read(q, &w);
	if (q->cqe_owed) {
		/* executed before: only its CQE is left to write (a UD QP owes
		 * no responder CQE: the receiver's is written at delivery) */
		q->cqe_owed = false;
		return sw_req_done(e, q, &w, q->owed_bytes);
	}
	rc = sw_wqe_check(e, q, avail, &w);
	if (rc != 0)
		return rc;
	if (!q->rnr_active && !q->ack_active && !q->lock_wait) { /* first attempt, not a retry */
		sw_stat(&sw_lc(e)->wqes, 1);
		if (q->fail_nth != 0 && --q->fail_nth == 0)
			return sw_req_fail(e, q, &w, q->fail_syndrome);
	}
	/* UD takes NOP, SEND and SEND_IMM (IBTA 9.8.1: no RDMA, no atomics
	 * on UD) */
	switch (w.opcode) {
	case MLX5_OPCODE_SEND:
	case MLX5_OPCODE_SEND_IMM:
		return sw_ud_send(e, q, &w);
	case MLX5_OPCODE_NOP:
		if (w.ds != 1)
			return sw_malformed(e, q, &w, "NOP with DS != 1", w.ds, 1);
		return sw_req_done(e, q, &w, 0);
	default:
		return sw_malformed(e, q, &w, "opcode not valid on a UD QP", w.opcode, 0);
	}
}
