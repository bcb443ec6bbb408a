/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Software mlx5 device: its objects (control path). CQs (rings, doorbell
 * records, the futex word of thread mode), QPs (sizing as rdma-core's
 * mlx5_calc_send_wqe, rings, the live list the engine walks), doorbell
 * registers shared per posting lcore, and the peer segments a connect
 * maps. The segment, its allocator, MR table, locks and SIGBUS guard are
 * sw_shm.c's; the engine that runs over these objects is sw_engine.c and
 * sw_exec.c.
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

/* ------------------------------------------------------------------ */
/* CQs and QPs (control path)                                          */

int
sw_cq_create(struct sw_engine *e, uint32_t depth, struct mlx5dv_cq *dv)
{
	struct sw_domain *d = e->self;
	struct sw_cq_shm *cq = NULL;
	uint32_t i, n;
	uint64_t buf, db;

	if (depth == 0 || depth >= SW_MAX_CQE)
		return -EINVAL;
	/* rdma-core: ncqe = the power of two >= cqe + 1 */
	n = rte_align32pow2(depth + 1);
	sw_lock(&e->lock);
	for (i = 0; i < SW_MAX_CQ; i++)
		if (!d->hdr->cqs[i].in_use) {
			cq = &d->hdr->cqs[i];
			cq->in_use = 1;
			break;
		}
	sw_unlock(&e->lock);
	if (cq == NULL)
		return -ENOSPC;
	buf = sw_shm_alloc(d, (uint64_t)n * 64, false);
	db = sw_shm_alloc(d, 64, false);
	if (buf == 0 || db == 0) {
		sw_shm_free(d, buf);
		sw_shm_free(d, db);
		cq->in_use = 0;
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		sw_ptr(d, buf)[(size_t)i * 64 + 63] = SW_CQE_INVALID;
	e->cq_off[cq - d->hdr->cqs][0] = buf;
	e->cq_off[cq - d->hdr->cqs][1] = db;
	cq->cqe_cnt = n;
	cq->log_cqe_cnt = sw_log2(n);
	cq->pi = 0;
	cq->ci_seen = 0;
	cq->buf_off = buf;
	cq->dbrec_off = db;
	cq->full = 0;
	cq->overruns = 0;
	cq->cqes = 0;
	memset(dv, 0, sizeof(*dv));
	dv->buf = sw_ptr(d, buf);
	dv->dbrec = (__be32 *)(void *)sw_ptr(d, db);
	dv->cqe_cnt = n;
	dv->cqe_size = 64;
	dv->cqn = (uint32_t)(cq - d->hdr->cqs);
	return (int)dv->cqn;
}

void
sw_cq_destroy(struct sw_engine *e, int slot)
{
	struct sw_cq_shm *cq = &e->self->hdr->cqs[slot];
	/* a stopped peer may hold the lock: destroy anyway (it only ever
	 * finds buf_off 0 afterwards) */
	bool locked = sw_qlock(&cq->lock, e->pid) == 0;

	sw_shm_free(e->self, e->cq_off[slot][0]);
	sw_shm_free(e->self, e->cq_off[slot][1]);
	e->cq_off[slot][0] = e->cq_off[slot][1] = 0;
	cq->buf_off = cq->dbrec_off = 0;
	cq->cqe_cnt = 1; /* any push now overruns (no buffer) */
	cq->pi = 1;
	if (locked)
		sw_qunlock(&cq->lock);
	sw_lock(&e->lock);
	cq->in_use = 0;
	sw_unlock(&e->lock);
}

bool
sw_cq_has_cqe(struct sw_engine *e, int slot, uint32_t ci)
{
	const struct sw_cq_shm *cq = &e->self->hdr->cqs[slot];
	uint64_t buf = SW_LOAD(cq->buf_off);
	uint32_t cnt = SW_LOAD(cq->cqe_cnt);
	const uint8_t *cqe;
	uint8_t op_own;

	/* fields read once and checked: a peer may have rewritten them */
	if (cnt == 0 || (cnt & (cnt - 1)) != 0 || !sw_in_seg(e->self, buf, (uint64_t)cnt * 64))
		return false;
	cqe = sw_ptr(e->self, buf) + (size_t)(ci & (cnt - 1)) * 64;
	op_own = __atomic_load_n(&cqe[63], __ATOMIC_ACQUIRE);
	return (op_own >> 4) != MLX5_CQE_INVALID &&
	       (op_own & 1) == ((ci >> sw_log2(cnt)) & 1);
}

/* wait on the CQ's futex word for up to ns (thread mode cq_wait) */
void sw_cq_futex_wait(struct sw_engine *e, int slot, uint32_t seq, uint64_t ns);
void
sw_cq_futex_wait(struct sw_engine *e, int slot, uint32_t seq, uint64_t ns)
{
	struct sw_cq_shm *cq = &e->self->hdr->cqs[slot];
	struct timespec ts = {
		.tv_sec = (time_t)(ns / 1000000000ULL),
		.tv_nsec = (long)(ns % 1000000000ULL),
	};

	__atomic_fetch_add(&cq->waiters, 1, __ATOMIC_ACQ_REL);
	syscall(SYS_futex, &cq->seq, FUTEX_WAIT, seq, &ts, NULL, 0);
	__atomic_fetch_sub(&cq->waiters, 1, __ATOMIC_ACQ_REL);
}

uint32_t sw_cq_seq(struct sw_engine *e, int slot);
uint32_t
sw_cq_seq(struct sw_engine *e, int slot)
{
	return __atomic_load_n(&e->self->hdr->cqs[slot].seq, __ATOMIC_ACQUIRE);
}

int
sw_calc_wqe(uint32_t overhead, uint32_t max_send_sge, uint32_t max_inline,
	    uint32_t *wqe_size, uint32_t *granted_inline)
{
	/* rdma-core verbs.c mlx5_calc_send_wqe: the overhead is sq_overhead
	 * of the QP type (RC: the largest enabled op, MW/UMR: 192 B; UD: ctrl
	 * + datagram segment, 64 B); the WQE is the larger of overhead + one
	 * data segment per SGE and overhead + the inline segment, rounded to
	 * 64 B; max_inline = WQE - overhead - 4. */
	/* sized for at least one SGE so that max_inline never underflows */
	uint32_t size = overhead + 16 * RTE_MAX(max_send_sge, 1U);
	uint32_t inl = 0;

	if (max_send_sge > SW_MAX_SGE || max_inline > SW_MAX_WQE_BYTES)
		return -EINVAL;
	if (max_inline != 0)
		inl = overhead + RTE_ALIGN_CEIL(4 + max_inline, 16U);
	size = RTE_ALIGN_CEIL(RTE_MAX(size, inl), 64U);
	if (size > SW_MAX_WQE_BYTES)
		return -EINVAL;
	*wqe_size = size;
	*granted_inline = size - overhead - 4;
	return 0;
}

int
sw_calc_send_wqe(uint32_t max_send_sge, uint32_t max_inline, uint32_t *wqe_size,
		 uint32_t *granted_inline)
{
	return sw_calc_wqe(SW_WQE_OVERHEAD, max_send_sge, max_inline, wqe_size,
			   granted_inline);
}

/*
 * Doorbell registers. A register (struct sw_bf_shm) is what a UAR bfreg is
 * to a NIC: two halves the datapath rings by turns. QPs whose conf names
 * the same posting lcore share one (the lcore's thread domain); any other
 * QP has its own. The engine consumes a register's doorbells and dispatches
 * each by the QPN in its ctrl bytes, as the NIC does.
 */
static struct sw_bfreg *
sw_bfreg_get(struct sw_engine *e, uint32_t post_lcore)
{
	struct sw_domain *d = e->self;
	struct sw_bfreg *b;
	uint64_t off;

	sw_lock(&e->lock);
	for (b = post_lcore != 0 ? e->regs : NULL; b != NULL; b = b->next)
		if (b->post_lcore == post_lcore) {
			b->refs++;
			sw_unlock(&e->lock);
			return b;
		}
	b = calloc(1, sizeof(*b));
	off = sw_shm_alloc(d, RTE_ALIGN_CEIL(sizeof(struct sw_bf_shm), 64u), false);
	if (b == NULL || off == 0) {
		sw_unlock(&e->lock);
		free(b);
		sw_shm_free(d, off);
		rte_errno = ENOMEM;
		return NULL;
	}
	b->off = off;
	b->r = (struct sw_bf_shm *)(void *)sw_ptr(d, off);
	memset(b->r, 0, sizeof(*b->r));
	b->r->lcore = post_lcore != 0 ? post_lcore - 1 : UINT32_MAX;
	b->post_lcore = post_lcore;
	b->refs = 1;
	b->half_known = true;
	b->next = e->regs;
	e->regs = b;
	sw_unlock(&e->lock);
	return b;
}

static void
sw_bfreg_put(struct sw_engine *e, struct sw_bfreg *b)
{
	struct sw_bfreg **pp;

	if (b == NULL)
		return;
	sw_lock(&e->lock);
	if (--b->refs == 0) {
		for (pp = &e->regs; *pp != NULL; pp = &(*pp)->next)
			if (*pp == b) {
				*pp = b->next;
				break;
			}
		sw_shm_free(e->self, b->off);
		free(b);
	}
	sw_unlock(&e->lock);
}

/* Take q off its register's list (under e->lock, no progress call running). */
static void
sw_bfreg_unlink(struct sw_lqp *q)
{
	struct sw_lqp **pp;

	for (pp = &q->reg->qps; *pp != NULL; pp = &(*pp)->reg_next)
		if (*pp == q) {
			*pp = q->reg_next;
			break;
		}
}

struct sw_lqp *
sw_qp_create(struct sw_engine *e, const struct sw_qp_params *p, struct mlx5dv_qp *dv)
{
	struct sw_domain *d = e->self;
	struct sw_qp_shm *s = NULL;
	uint32_t wqe_size, inl, sq_bytes, rq_bytes, rq_cnt, rq_stride, i;
	uint64_t buf, db;
	struct sw_bfreg *reg;
	struct sw_lqp *q;

	if (p->sq_depth == 0 || p->sq_depth > SW_MAX_QP_WR || p->rq_depth > SW_MAX_QP_WR ||
	    p->max_recv_sge > SW_MAX_SGE || p->send_cq < 0 || p->recv_cq < 0 ||
	    p->type > SW_QPT_UD || (p->type == SW_QPT_RC && p->qkey != 0) ||
	    sw_calc_wqe(p->type == SW_QPT_UD ? SW_UD_WQE_OVERHEAD : SW_WQE_OVERHEAD,
			p->max_send_sge, p->max_inline, &wqe_size, &inl) != 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	/* verbs.c: SQ = roundup_pow2(max_send_wr * wqe_size) bytes; RQ
	 * stride = roundup_pow2(16 * max(sge, 1)), wqe_cnt = pow2(wr). */
	sq_bytes = rte_align32pow2(p->sq_depth * wqe_size);
	rq_cnt = p->rq_depth != 0 ? rte_align32pow2(p->rq_depth) : 0;
	rq_stride = rte_align32pow2(16 * RTE_MAX(p->max_recv_sge, 1U));
	rq_bytes = rq_cnt * rq_stride;
	q = calloc(1, sizeof(*q));
	if (q == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	sw_lock(&e->lock);
	for (i = 0; i < SW_MAX_QP; i++)
		if (!d->hdr->qps[i].in_use && e->qps[i] == NULL) {
			s = &d->hdr->qps[i];
			s->in_use = 1;
			break;
		}
	sw_unlock(&e->lock);
	if (s == NULL) {
		free(q);
		rte_errno = ENOSPC;
		return NULL;
	}
	buf = sw_shm_alloc(d, (uint64_t)rq_bytes + sq_bytes, false);
	db = sw_shm_alloc(d, 64, false);
	reg = sw_bfreg_get(e, p->post_lcore);
	if (buf == 0 || db == 0 || reg == NULL) {
		sw_shm_free(d, buf);
		sw_shm_free(d, db);
		sw_bfreg_put(e, reg);
		s->in_use = 0;
		free(q);
		rte_errno = ENOMEM;
		return NULL;
	}
	s->gen++;
	s->qpn = SW_QPN_BASE + i;
	s->state = RDX_SW_QPS_RESET;
	s->send_cq = (uint32_t)p->send_cq;
	s->recv_cq = (uint32_t)p->recv_cq;
	s->sq_wqe_cnt = sq_bytes / 64;
	s->rq_wqe_cnt = rq_cnt;
	s->rq_stride = rq_stride;
	/* libmlx5 reports the room left in the WQE even when 0 was asked */
	s->max_inline = inl;
	s->max_send_sge = p->max_send_sge;
	/* rdma-core grants max_gs = stride / 16 receive SGEs */
	s->max_recv_sge = rq_stride / 16;
	s->max_wqebbs = wqe_size / 64;
	s->rq_off = buf;
	s->sq_off = buf + rq_bytes;
	s->dbrec_off = db;
	s->bf_off = reg->off;
	s->rq_ci = 0;
	s->peer_qpn = 0;
	s->peer_domain[0] = '\0';
	s->type = p->type;
	s->qkey = p->qkey;
	__atomic_store_n(&s->ud_recv, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&s->ud_drop_no_recv, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&s->ud_drop_qkey, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&s->ud_recv_len_err, 0, __ATOMIC_RELAXED);
	q->type = p->type;
	q->qkey = p->qkey;
	q->rng = sw_splitmix(e->inj.seed ^ ((uint64_t)s->qpn * 0x9e3779b97f4a7c15ULL));
	q->s = s;
	q->slot = i;
	q->home = SW_HOME_NONE;
	q->qpn = s->qpn;
	q->sq_wqe_cnt = s->sq_wqe_cnt;
	q->rq_wqe_cnt = s->rq_wqe_cnt;
	q->max_inline = s->max_inline;
	q->max_send_sge = s->max_send_sge;
	q->max_wqebbs = s->max_wqebbs;
	q->buf_off = buf;
	q->db_off = db;
	q->sq_buf = sw_ptr(d, s->sq_off);
	q->rq_buf = sw_ptr(d, s->rq_off);
	q->dbrec = (volatile __be32 *)(void *)sw_ptr(d, db);
	q->reg = reg;
	q->bf = reg->r->half[0];
	q->bf_mask = reg->post_lcore != 0 ? SW_BF_QPN_MASK : 0;
	q->bf_key = ((uint64_t)htobe32(s->qpn << 8) << 32) & q->bf_mask;
	q->scq = &d->hdr->cqs[p->send_cq];
	q->rcq = &d->hdr->cqs[p->recv_cq];
	memset(dv, 0, sizeof(*dv));
	dv->dbrec = (__be32 *)(uintptr_t)q->dbrec;
	dv->sq.buf = q->sq_buf;
	dv->sq.wqe_cnt = s->sq_wqe_cnt;
	dv->sq.stride = 64;
	dv->rq.buf = q->rq_buf;
	dv->rq.wqe_cnt = rq_cnt;
	dv->rq.stride = rq_stride;
	dv->bf.reg = q->bf;
	dv->bf.size = SW_BF_SIZE;
	sw_lock(&e->lock);
	/* on the register's list before any progress call can reach q */
	q->reg_next = reg->qps;
	__atomic_store_n(&reg->qps, q, __ATOMIC_RELEASE);
	__atomic_store_n(&e->qps[i], q, __ATOMIC_RELEASE);
	if (i + 1 > e->nb_slots)
		__atomic_store_n(&e->nb_slots, i + 1, __ATOMIC_RELEASE);
	q->act = e->nb_active;
	__atomic_store_n(&e->active[q->act], q, __ATOMIC_RELAXED);
	__atomic_store_n(&e->nb_active, q->act + 1, __ATOMIC_RELEASE);
	sw_unlock(&e->lock);
	return q;
}

/* The segment named name, mapped once per engine (refcounted); e->self
 * for our own. Under e->lock. NULL (logged) when it cannot be mapped. */
static struct sw_domain *
sw_peer_get(struct sw_engine *e, const char *name)
{
	struct sw_domain *pd;

	if (strcmp(name, e->self->name) == 0)
		return e->self;
	for (pd = e->peers; pd != NULL; pd = pd->next)
		if (strcmp(pd->name, name) == 0) {
			pd->refs++;
			return pd;
		}
	pd = sw_domain_map(name);
	if (pd == NULL) {
		int err = rte_errno;

		SW_LOG(ERR, "cannot map peer segment %s: %s\n", name, strerror(err));
		return NULL;
	}
	pd->next = e->peers;
	/* a progress call may walk e->peers: publish it complete */
	__atomic_store_n(&e->peers, pd, __ATOMIC_RELEASE);
	return pd;
}

static void
sw_peer_put(struct sw_engine *e, struct sw_domain *pd)
{
	struct sw_domain **pp;

	if (pd == NULL || pd == e->self)
		return;
	for (pp = &e->peers; *pp != NULL; pp = &(*pp)->next)
		if (*pp == pd) {
			if (--pd->refs == 0) {
				*pp = pd->next;
				sw_domain_unmap(pd);
			}
			return;
		}
}

void
sw_qp_destroy(struct sw_engine *e, struct sw_lqp *q)
{
	struct sw_domain *d = e->self;
	struct sw_qp_shm *s = q->s;

	/* Keep new progress calls out, wait for the running ones (which may
	 * hold q) to leave, then unlink q. */
	__atomic_fetch_add(&e->draining, 1, __ATOMIC_SEQ_CST);
	sw_engine_quiesce(e);
	sw_lock(&e->lock);
	__atomic_store_n(&e->qps[q->slot], NULL, __ATOMIC_RELEASE);
	{
		/* no progress call runs: move the last live QP into q's place */
		uint32_t last = e->nb_active - 1, l;

		e->active[q->act] = e->active[last];
		e->active[q->act]->act = q->act;
		e->active[last] = NULL;
		__atomic_store_n(&e->nb_active, last, __ATOMIC_RELEASE);
		for (l = 0; l < SW_LC_SLOTS; l++)
			for (last = 0; last < SW_HOT; last++)
				if (e->lc[l].hot[last] == q)
					__atomic_store_n(&e->lc[l].hot[last], NULL,
							 __ATOMIC_RELAXED);
	}
	if (q->type == SW_QPT_UD) {
		/* its counters join the device's sums; datagrams it sent that
		 * wait in the delay queue still arrive (they are on the wire) */
		sw_ud_stats_add(&e->ud_gone, q);
		if (e->delayq != NULL) {
			uint32_t i;

			for (i = e->delayq->head; i != e->delayq->tail; i++)
				if (e->delayq->pkt[i % SW_UD_DELAY_SLOTS].src == q)
					e->delayq->pkt[i % SW_UD_DELAY_SLOTS].src = NULL;
		}
	}
	sw_bfreg_unlink(q);
	if (e->timing != NULL)
		sw_timing_qp_forget(e->timing, q); /* its deadlines go with it */
	sw_unlock(&e->lock);
	__atomic_fetch_sub(&e->draining, 1, __ATOMIC_ACQ_REL);
	if (q->resp_owed) {
		/* a receive it consumed at the peer still waits for its CQE:
		 * the peer's, written before q goes (SW_LOCK_CTL_MS at most) */
		const uint64_t end = sw_now_ns() + SW_LOCK_CTL_MS * 1000000ULL;

		while (sw_resp_owed_push(e, q) == -EBUSY && sw_now_ns() < end)
			;
	}
	{
		/* a stopped peer may hold the lock: destroy anyway */
		bool locked = sw_qlock(&s->lock, e->pid) == 0;

		s->state = RDX_SW_QPS_RESET;
		__atomic_fetch_add(&s->gen, 1, __ATOMIC_RELEASE); /* peers see it gone */
		if (locked)
			sw_qunlock(&s->lock);
	}
	sw_shm_free(d, q->buf_off);
	sw_shm_free(d, q->db_off);
	sw_bfreg_put(e, q->reg);
	sw_lock(&e->lock);
	sw_peer_put(e, q->peer_dom);
	s->in_use = 0;
	sw_unlock(&e->lock);
	free(q);
}

int
sw_qp_connect(struct sw_engine *e, struct sw_lqp *q, const char *peer_domain,
	      uint32_t peer_qpn, uint8_t rnr_retry, uint8_t min_rnr_timer,
	      uint8_t retry_cnt, uint8_t timeout)
{
	struct sw_domain *pd = NULL;
	struct sw_qp_shm *peer;
	bool locked;
	uint32_t slot = peer_qpn - SW_QPN_BASE;

	if (peer_qpn < SW_QPN_BASE || slot >= SW_MAX_QP || q->peer_dom != NULL ||
	    q->type != SW_QPT_RC)
		return -EINVAL;
	sw_lock(&e->lock);
	pd = sw_peer_get(e, peer_domain);
	if (pd == NULL) {
		sw_unlock(&e->lock);
		return -ENOENT;
	}
	peer = &pd->hdr->qps[slot];
	if (__atomic_load_n(&pd->hdr->closed, __ATOMIC_ACQUIRE) ||
	    (kill((pid_t)pd->hdr->owner_pid, 0) != 0 && errno == ESRCH)) {
		sw_peer_put(e, pd);
		sw_unlock(&e->lock);
		SW_LOG(ERR, "connect: the device of %s is closed (or its process is gone)\n",
		       peer_domain);
		return -ENOENT;
	}
	if (!peer->in_use || peer->qpn != peer_qpn) {
		sw_peer_put(e, pd);
		sw_unlock(&e->lock);
		SW_LOG(ERR, "connect: no QP 0x%x in %s\n", peer_qpn, peer_domain);
		return -ENOENT;
	}
	if (SW_LOAD(peer->type) != SW_QPT_RC) {
		sw_peer_put(e, pd);
		sw_unlock(&e->lock);
		SW_LOG(ERR, "connect: QP 0x%x in %s is not an RC QP\n", peer_qpn, peer_domain);
		return -EPROTO;
	}
	q->peer_dom = pd;
	q->peer = peer;
	q->peer_gen = __atomic_load_n(&peer->gen, __ATOMIC_ACQUIRE);
	q->peer_rq_head_ok = false;
	q->prq_n = 0;
	sw_unlock(&e->lock);
	/* a stopped or hostile peer may hold our QP's lock: connect anyway
	 * (the state is one atomic store) */
	locked = sw_qlock(&q->s->lock, e->pid) == 0;
	snprintf(q->s->peer_domain, sizeof(q->s->peer_domain), "%s", peer_domain);
	q->s->peer_qpn = peer_qpn;
	q->s->rnr_retry = rnr_retry;
	q->s->min_rnr_timer = min_rnr_timer & 31;
	q->s->retry_cnt = retry_cnt;
	q->s->timeout = timeout;
	/* RESET -> INIT -> RTR -> RTS in one step */
	__atomic_store_n(&q->s->state, RDX_SW_QPS_RTS, __ATOMIC_RELEASE);
	if (locked)
		sw_qunlock(&q->s->lock);
	return 0;
}

int
sw_qp_ud_ready(struct sw_engine *e, struct sw_lqp *q)
{
	if (q->type != SW_QPT_UD)
		return -EINVAL;
	if (sw_qlock(&q->s->lock, e->pid) != 0)
		return -EBUSY; /* a hostile peer holds it */
	if (q->s->state != RDX_SW_QPS_RESET) {
		sw_qunlock(&q->s->lock);
		return -EBUSY;
	}
	/* RESET -> INIT (port, P_Key index 0, Q_Key: set at create) -> RTR
	 * -> RTS in one step; a UD QP has no peer */
	__atomic_store_n(&q->s->state, RDX_SW_QPS_RTS, __ATOMIC_RELEASE);
	sw_qunlock(&q->s->lock);
	return 0;
}

/* ------------------------------------------------------------------ */
/* UD routes (control path)                                            */

/*
 * An AH names a destination device by its GID; the engine keeps one route
 * per destination its AHs name, with that device's segment mapped. The
 * AH's address vector carries the route's slot + 1 in rlid (a hint) and
 * the GID in rgid; the engine takes the destination from those WQE bytes
 * only (sw_exec.c, sw_ud_route), never from the AH.
 */
int
sw_route_get(struct sw_engine *e, const uint8_t gid[16])
{
	char name[SW_NAME_LEN];
	struct sw_domain *pd;
	uint32_t i, free_slot = SW_MAX_ROUTES;

	if (sw_gid_to_name(gid, name, sizeof(name)) != 0)
		return -EINVAL;
	sw_lock(&e->lock);
	for (i = 0; i < SW_MAX_ROUTES; i++) {
		struct sw_route *r = &e->routes[i];

		if (r->dom != NULL && memcmp(r->gid, gid, 16) == 0) {
			if (__atomic_load_n(&r->dom->hdr->closed, __ATOMIC_ACQUIRE)) {
				sw_unlock(&e->lock);
				SW_LOG(ERR, "address handle: the device of %s is closed\n", name);
				return -ENOENT;
			}
			r->refs++;
			sw_unlock(&e->lock);
			return (int)i;
		}
		if (r->dom == NULL && free_slot == SW_MAX_ROUTES)
			free_slot = i;
	}
	if (free_slot == SW_MAX_ROUTES) {
		sw_unlock(&e->lock);
		SW_LOG(ERR, "no route slot left for %s (%u destination devices)\n", name,
		       SW_MAX_ROUTES);
		return -ENOSPC;
	}
	pd = sw_peer_get(e, name);
	if (pd == NULL) {
		sw_unlock(&e->lock);
		return -ENOENT;
	}
	if (__atomic_load_n(&pd->hdr->closed, __ATOMIC_ACQUIRE) ||
	    (kill((pid_t)pd->hdr->owner_pid, 0) != 0 && errno == ESRCH)) {
		sw_peer_put(e, pd);
		sw_unlock(&e->lock);
		SW_LOG(ERR, "address handle: the device of %s is closed (or its process is gone)\n",
		       name);
		return -ENOENT;
	}
	memcpy(e->routes[free_slot].gid, gid, 16);
	e->routes[free_slot].refs = 1;
	/* the engine reads dom (acquire) and then the GID */
	__atomic_store_n(&e->routes[free_slot].dom, pd, __ATOMIC_RELEASE);
	sw_unlock(&e->lock);
	return (int)free_slot;
}

void
sw_route_put(struct sw_engine *e, int slot)
{
	struct sw_route *r;

	if (slot < 0 || (uint32_t)slot >= SW_MAX_ROUTES)
		return;
	r = &e->routes[slot];
	/* keep progress calls out while a route (and its mapping) may go */
	__atomic_fetch_add(&e->draining, 1, __ATOMIC_SEQ_CST);
	sw_engine_quiesce(e);
	sw_lock(&e->lock);
	if (r->dom != NULL && --r->refs == 0) {
		struct sw_domain *pd = r->dom;

		if (e->delayq != NULL) {
			uint32_t i;

			/* delayed datagrams to it now find no device */
			for (i = e->delayq->head; i != e->delayq->tail; i++)
				if (e->delayq->pkt[i % SW_UD_DELAY_SLOTS].dom == pd)
					e->delayq->pkt[i % SW_UD_DELAY_SLOTS].dom = NULL;
		}
		__atomic_store_n(&r->dom, NULL, __ATOMIC_RELEASE);
		memset(r->gid, 0, sizeof(r->gid));
		sw_peer_put(e, pd);
	}
	sw_unlock(&e->lock);
	__atomic_fetch_sub(&e->draining, 1, __ATOMIC_ACQ_REL);
}
