/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine's timing hook (devargs timing=<profile>, off by default):
 * before the engine executes the WQE at a QP's head, sw_timing_hold says
 * whether its modelled time has come. WQEs are scheduled when the engine
 * first sees them rung (timing/tm_nic.c gives each its responder data time
 * and its requester CQE time) and each QP keeps the deadlines of its rung
 * WQEs in a ring indexed like its SQ. Messages other QPs queue on the
 * port later may come in front of a WQE's packets (per-packet round-robin):
 * when its time comes, that moves its deadlines on (tm_moved). A WQE is
 * executed (data, receive CQE) no earlier than its data time; its
 * requester CQE, if signaled, is owed until its CQE time (sw_req_done: the CQE waits at the head as when
 * the CQ's lock is busy; the QP's next WQEs wait behind it). A held WQE is
 * not an error: it stays at the head and the QP stays armed, as an RNR
 * wait does.
 *
 * Clock: the TSC (rte_get_tsc_cycles/hz) when EAL calibrated it, else
 * CLOCK_MONOTONIC. The NIC's resources (port, pipeline, context cache,
 * atomic unit) live in the device's segment with the epoch of its clock,
 * under a spin lock taken for the scheduling of a doorbell's WQEs; when
 * it cannot be had at once (a holder descheduled or gone) the WQEs are
 * not held (counted: sw_tm_unheld) rather than wait.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_pause.h>

#include "sw_engine_priv.h"
#include "sw_timing_dir.h"
#include "timing/sw_timing.h"

/* executed more than this after its deadline: late (model-bound) */
#define SW_TM_LATE_PS (1 * SW_TM_PS_PER_US)
#define SW_TM_LOCK_SPINS 4096

struct sw_tm_shared {
	uint32_t lock;
	uint64_t epoch;               /* clock ticks at open */
	uint64_t unheld;
	uint64_t first, last;         /* clock ticks: first and last scheduling */
	struct sw_tm_nic nic;
};

/* per WQEBB of a QP's SQ: the times of the WQE starting there */
struct sw_tm_slot {
	uint64_t due;                 /* clock ticks: data */
	uint64_t due_cqe;             /* clock ticks: the requester CQE */
	struct sw_tm_times tt;        /* the model's, to move on (round-robin) */
	uint32_t gen;                 /* port's messages queued when last moved */
};

struct sw_tm_qp {
	const struct sw_lqp *owner;
	uint32_t qpn, cnt;
	uint32_t sched;               /* next WQEBB (16 bits) to schedule */
	uint32_t late_ci;             /* head counted late (no twice) */
	struct sw_tm_slot s[];
};

struct sw_timing {
	struct sw_tm_profile prof;
	struct sw_tm_shared *sh;
	uint64_t sh_off;
	bool tsc;
	double ps_per_tick, tick_per_ps;
	uint64_t late;
	struct sw_tm_qp *qp[SW_MAX_QP];
};

static inline uint64_t
tm_now(const struct sw_timing *t)
{
	return t->tsc ? rte_get_tsc_cycles() : sw_now_ns();
}

int
sw_timing_open(struct sw_engine *e, const char *name, struct sw_timing **out)
{
	const char *dir = getenv("RDX_TIMING_DIR");
	struct sw_timing *t;
	char err[1100];
	uint64_t hz;
	int rc;

	t = calloc(1, sizeof(*t));
	if (t == NULL)
		return -ENOMEM;
	rc = sw_tm_profile_load(&t->prof, name, dir != NULL ? dir : SW_TIMING_DIR, err,
				sizeof(err));
	if (rc != 0) {
		SW_LOG(ERR, "bad devargs timing=%s: %s\n", name, err);
		free(t);
		return rc == -ENOMEM ? rc : -EINVAL;
	}
	t->sh_off = sw_shm_alloc(e->self, sizeof(*t->sh), false);
	if (t->sh_off == 0) {
		free(t);
		return -ENOMEM;
	}
	t->sh = (struct sw_tm_shared *)(void *)sw_ptr(e->self, t->sh_off);
	hz = rte_get_tsc_hz();
	t->tsc = hz != 0;
	if (!t->tsc)
		hz = 1000000000ULL;
	t->ps_per_tick = 1e12 / (double)hz;
	t->tick_per_ps = (double)hz / 1e12;
	sw_tm_nic_init(&t->sh->nic, &t->prof);
	t->sh->epoch = tm_now(t);
	*out = t;
	return 0;
}

void
sw_timing_close(struct sw_engine *e, struct sw_timing *t)
{
	unsigned int i;

	if (t == NULL)
		return;
	for (i = 0; i < SW_MAX_QP; i++)
		free(t->qp[i]);
	sw_shm_free(e->self, t->sh_off);
	free(t);
}

const char *
sw_timing_name(const struct sw_timing *t)
{
	return t->prof.name;
}

void
sw_timing_stats(const struct sw_timing *t, uint64_t *wqes, uint64_t *busy_ns, uint64_t *late,
		uint64_t *unheld, uint64_t *span_ns)
{
	const uint64_t first = __atomic_load_n(&t->sh->first, __ATOMIC_RELAXED);
	const uint64_t last = __atomic_load_n(&t->sh->last, __ATOMIC_RELAXED);

	*span_ns = first == 0 || last < first ? 0 :
		(uint64_t)((double)(last - first) * t->ps_per_tick / SW_TM_PS_PER_NS);
	*wqes = __atomic_load_n(&t->sh->nic.wqes, __ATOMIC_RELAXED);
	*busy_ns = __atomic_load_n(&t->sh->nic.busy_ps, __ATOMIC_RELAXED) / SW_TM_PS_PER_NS;
	*late = __atomic_load_n(&t->late, __ATOMIC_RELAXED);
	*unheld = __atomic_load_n(&t->sh->unheld, __ATOMIC_RELAXED);
}

/* The WQE at WQEBB pos as the model times it; its size in WQEBBs. */
static uint32_t
tm_parse(const struct sw_lqp *q, uint32_t pos, struct sw_tm_wqe *w)
{
	uint8_t b[SW_MAX_WQE_BYTES];
	uint32_t ds, off, bytes, opcode;

	sw_ring_read(q, pos, b, 16);
	opcode = b[3];
	ds = b[7] & 0x3f;
	if (ds == 0)
		ds = 1;
	bytes = RTE_MIN(ds * 16, (uint32_t)SW_MAX_WQE_BYTES);
	sw_ring_read(q, pos, b, bytes);
	memset(w, 0, sizeof(*w));
	w->wqe_bytes = RTE_ALIGN_CEIL(ds * 16, 64U);
	w->signaled = (b[11] & MLX5_WQE_CTRL_CQ_UPDATE) != 0;
	w->qp_key = q->slot;
	w->mtu = q->type == SW_QPT_UD ? 0 : q->path_mtu;
	/* assumed: the datapath rings a descriptor this small with a copy */
	w->bf = true;
	off = q->type == SW_QPT_UD ? 64 : 16;
	switch (opcode) {
	case MLX5_OPCODE_RDMA_WRITE:
	case MLX5_OPCODE_RDMA_WRITE_IMM:
		w->op = SW_TM_WRITE;
		off += 16;
		break;
	case MLX5_OPCODE_SEND:
	case MLX5_OPCODE_SEND_IMM:
		w->op = SW_TM_SEND;
		break;
	case MLX5_OPCODE_RDMA_READ:
		w->op = SW_TM_READ;
		off += 16;
		break;
	case MLX5_OPCODE_ATOMIC_CS:
	case MLX5_OPCODE_ATOMIC_FA:
		w->op = SW_TM_ATOMIC;
		memcpy(&w->raddr, b + 16, 8);
		w->raddr = be64toh(w->raddr);
		w->len = 8;
		off = bytes;    /* the result's SGE: not payload on the wire */
		break;
	default:
		w->op = SW_TM_NOP;
		off = bytes;
		break;
	}
	/* data segments (pointers) or one inline segment */
	while (off + 4 <= bytes) {
		uint32_t bc;

		memcpy(&bc, b + off, 4);
		bc = be32toh(bc);
		if ((bc & MLX5_INLINE_SEG) != 0) {
			bc &= ~(uint32_t)MLX5_INLINE_SEG;
			w->inl = true;
			w->len += bc;
			off += RTE_ALIGN_CEIL(4 + bc, 16U);
		} else {
			w->len += bc;
			off += 16;
		}
	}
	return (ds * 16 + 63) / 64;
}

static struct sw_tm_qp *
tm_qp(struct sw_timing *t, const struct sw_lqp *q)
{
	struct sw_tm_qp *tq = t->qp[q->slot];

	if (tq != NULL && tq->owner == q && tq->qpn == q->qpn && tq->cnt == q->sq_wqe_cnt)
		return tq;
	free(tq);
	tq = calloc(1, sizeof(*tq) + (size_t)q->sq_wqe_cnt * sizeof(tq->s[0]));
	t->qp[q->slot] = tq;
	if (tq == NULL)
		return NULL;
	tq->owner = q;
	tq->qpn = q->qpn;
	tq->cnt = q->sq_wqe_cnt;
	tq->sched = q->sq_ci & 0xffff;
	tq->late_ci = 0x10000;
	return tq;
}

/* The port direction's messages queued so far (of the WQE's last pass). */
static uint32_t
tm_gen(const struct sw_timing *t, const struct sw_tm_times *tt)
{
	const struct sw_tm_nic *n = &t->sh->nic;

	if (tt->dir == 0)
		return 0;
	return __atomic_load_n(tt->dir == 1 ? &n->tx.gen : &n->rx.gen, __ATOMIC_RELAXED);
}

/* Messages of other QPs queued on the port since sl was scheduled may
 * come in front of its packets (round-robin): move its times on. Asked
 * when its time has come; only when the port has had new messages, and
 * only when its lock is free at once (else not moved). True when moved. */
static bool
tm_moved(struct sw_timing *t, struct sw_tm_slot *sl)
{
	const uint32_t gen = tm_gen(t, &sl->tt);
	uint64_t d;

	if (gen == sl->gen)
		return false;
	if (__atomic_exchange_n(&t->sh->lock, 1, __ATOMIC_ACQUIRE) != 0)
		return false;
	sl->gen = tm_gen(t, &sl->tt);
	d = sw_tm_nic_delay(&t->sh->nic, &sl->tt);
	__atomic_store_n(&t->sh->lock, 0, __ATOMIC_RELEASE);
	if (d == 0)
		return false;
	d = (uint64_t)((double)d * t->tick_per_ps);
	sl->due += d;
	sl->due_cqe += d;
	return true;
}

/* Deadlines for the WQEs rung from tq->sched up to db, seen at now. */
static void
tm_schedule(struct sw_timing *t, const struct sw_lqp *q, struct sw_tm_qp *tq, uint32_t db,
	    uint64_t now)
{
	const uint64_t now_ps = (uint64_t)((double)(now - t->sh->epoch) * t->ps_per_tick);
	struct sw_tm_wqe w;
	unsigned int spins = 0;

	while (__atomic_exchange_n(&t->sh->lock, 1, __ATOMIC_ACQUIRE) != 0) {
		if (++spins == SW_TM_LOCK_SPINS) {
			/* not held: never wait on another process's scheduling */
			for (; tq->sched != db; tq->sched = (tq->sched + 1) & 0xffff)
				memset(&tq->s[tq->sched & (tq->cnt - 1)], 0, sizeof(tq->s[0]));
			__atomic_fetch_add(&t->sh->unheld, 1, __ATOMIC_RELAXED);
			return;
		}
		rte_pause();
	}
	if (t->sh->first == 0)
		t->sh->first = now;
	t->sh->last = now;
	while (tq->sched != db) {
		uint32_t nbb = tm_parse(q, tq->sched, &w);
		uint32_t left = (db - tq->sched) & 0xffff;
		struct sw_tm_slot *sl = &tq->s[tq->sched & (tq->cnt - 1)];

		sw_tm_nic_wqe(&t->sh->nic, &t->prof, &w, now_ps, &sl->tt);
		sl->gen = tm_gen(t, &sl->tt);
		sl->due = t->sh->epoch + (uint64_t)((double)sl->tt.data_ps * t->tick_per_ps);
		sl->due_cqe = t->sh->epoch + (uint64_t)((double)sl->tt.cqe_ps * t->tick_per_ps);
		tq->sched = (tq->sched + RTE_MIN(nbb, left)) & 0xffff;
	}
	__atomic_store_n(&t->sh->lock, 0, __ATOMIC_RELEASE);
}

bool
sw_timing_hold(struct sw_timing *t, const struct sw_lqp *q, uint32_t db)
{
	struct sw_tm_qp *tq = tm_qp(t, q);
	const uint32_t ci = q->sq_ci & 0xffff;
	struct sw_tm_slot *sl;
	uint64_t now, due;

	if (tq == NULL)
		return false;   /* no memory for deadlines: not held */
	db &= 0xffff;
	/* scheduled beyond what is rung (a flush moved the head): again */
	if (((tq->sched - ci) & 0xffff) > ((db - ci) & 0xffff))
		tq->sched = ci;
	now = tm_now(t);
	if (tq->sched != db)
		tm_schedule(t, q, tq, db, now);
	sl = &tq->s[ci & (tq->cnt - 1)];
	due = q->cqe_owed ? sl->due_cqe : sl->due;
	/* its time has come: unless the port moved it on since */
	if (now >= due && tm_moved(t, sl))
		due = q->cqe_owed ? sl->due_cqe : sl->due;
	if (now < due)
		return true;
	if (tq->late_ci != ci &&
	    (double)(now - due) * t->ps_per_tick > (double)SW_TM_LATE_PS) {
		tq->late_ci = ci;
		__atomic_fetch_add(&t->late, 1, __ATOMIC_RELAXED);
	}
	return false;
}

bool
sw_timing_cqe_hold(struct sw_timing *t, const struct sw_lqp *q)
{
	struct sw_tm_qp *tq = t->qp[q->slot];
	struct sw_tm_slot *sl;
	uint64_t now;

	if (tq == NULL || tq->owner != q)
		return false;
	sl = &tq->s[q->sq_ci & (tq->cnt - 1)];
	now = tm_now(t);
	if (now < sl->due_cqe)
		return true;
	return tm_moved(t, sl) && now < sl->due_cqe;
}

void
sw_timing_qp_forget(struct sw_timing *t, const struct sw_lqp *q)
{
	free(t->qp[q->slot]);
	t->qp[q->slot] = NULL;
}
