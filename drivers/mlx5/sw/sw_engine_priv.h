/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal to the software device's engine files; what they share:
 *   sw_obj.c     CQ/QP objects, doorbell registers, peer segments (control path)
 *   sw_engine.c  doorbells, progress, flush, thread mode; runs a WQE with
 *                sw_exec (RC) or sw_ud_exec (UD)
 *   sw_exec.c    RC execution: requester and responder, atomics, RNR and
 *                ACK retries
 *   sw_exec_ud.c UD datagrams: routing, delivery, loss/reorder injection,
 *                the delayed datagrams
 *   sw_mem.c     memory translation, payload spans, copies
 *   sw_cq.c      CQE writing, error CQEs, the requester's completions
 * Calls go down that list's dependency order only: engine -> executors ->
 * sw_mem.c -> sw_cq.c (tests/arch/layering.sh checks no two files call
 * each other).
 * Helpers the engine calls per WQE are static inline here, so the split
 * along those seams costs no call; the few functions called across files
 * are hidden (direct calls, no PLT, even in PIC objects).
 */
#ifndef SW_ENGINE_PRIV_H
#define SW_ENGINE_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_lcore.h>
#include <rte_log.h>

#include "sw_model.h"

#define SW_HIDDEN __attribute__((visibility("hidden")))

#define SW_CQE_INVALID 0xf0
#define SW_DEVERR_LOGS 64 /* device errors logged per engine; the rest counted */

enum sw_rc {
	SW_DONE = 0, /* WQE completed */
	SW_WAIT,     /* WQE stays at the head (RNR wait, CQ full) */
	SW_FAIL,     /* WQE failed: QP in ERR */
};

static inline void
sw_stat(uint64_t *c, uint64_t n)
{
	__atomic_fetch_add(c, n, __ATOMIC_RELAXED);
}

static inline uint64_t
sw_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static inline uint32_t
sw_log2(uint32_t v)
{
	return (uint32_t)__builtin_ctz(v);
}

static inline uint8_t *
sw_ptr(const struct sw_domain *d, uint64_t off)
{
	return d->base + off;
}

/* ------------------------------------------------------------------ */
/* Stores                                                              */

/*
 * Stores into memory other agents watch (message targets, CQEs): a NIC
 * writes each byte of a message once, in address order (in-order PCIe
 * posted writes), so an application may poll the last byte of a WRITE's
 * target and clear it after use. A library memcpy/memmove does not keep
 * that promise: glibc copies 2..3, 4..7, 8..15, 16..31 ... bytes with two
 * overlapping stores (first and last unit), and its large loops store the
 * head vector again at the end. A byte stored twice can resurrect a marker
 * the consumer cleared in between (the two-process write ping-pong stall).
 * So the model stores through volatile units of 16/8/4/2/1 bytes that never
 * overlap, in increasing address order (volatile: the compiler may neither
 * merge the loop into a memcpy call nor split or repeat a store).
 */
typedef uint8_t sw_v16 __attribute__((vector_size(16), aligned(1), may_alias));
typedef uint64_t sw_u64u __attribute__((aligned(1), may_alias));
typedef uint32_t sw_u32u __attribute__((aligned(1), may_alias));
typedef uint16_t sw_u16u __attribute__((aligned(1), may_alias));

static inline void
sw_store_once(uint8_t *d, const uint8_t *s, uint64_t n)
{
	for (; n >= 16; d += 16, s += 16, n -= 16)
		*(volatile sw_v16 *)(void *)d = *(const sw_v16 *)(const void *)s;
	if (n >= 8) {
		*(volatile sw_u64u *)(void *)d = *(const sw_u64u *)(const void *)s;
		d += 8;
		s += 8;
		n -= 8;
	}
	if (n >= 4) {
		*(volatile sw_u32u *)(void *)d = *(const sw_u32u *)(const void *)s;
		d += 4;
		s += 4;
		n -= 4;
	}
	if (n >= 2) {
		*(volatile sw_u16u *)(void *)d = *(const sw_u16u *)(const void *)s;
		d += 2;
		s += 2;
		n -= 2;
	}
	if (n != 0)
		*(volatile uint8_t *)d = *s;
}

/* A CQE's first 63 bytes: sw_store_once's stores for n = 63 (16, 16, 16,
 * 8, 4, 2, 1 bytes in address order), unrolled. */
static inline void
sw_store_once63(uint8_t *d, const uint8_t *s)
{
	*(volatile sw_v16 *)(void *)d = *(const sw_v16 *)(const void *)s;
	*(volatile sw_v16 *)(void *)(d + 16) = *(const sw_v16 *)(const void *)(s + 16);
	*(volatile sw_v16 *)(void *)(d + 32) = *(const sw_v16 *)(const void *)(s + 32);
	*(volatile sw_u64u *)(void *)(d + 48) = *(const sw_u64u *)(const void *)(s + 48);
	*(volatile sw_u32u *)(void *)(d + 56) = *(const sw_u32u *)(const void *)(s + 56);
	*(volatile sw_u16u *)(void *)(d + 60) = *(const sw_u16u *)(const void *)(s + 60);
	*(volatile uint8_t *)(d + 62) = s[62];
}

/*
 * len > 0 bytes from one contiguous source to one contiguous destination
 * with sw_copy's rule (each byte once, in order; the final unit, the last 8
 * bytes or for len < 8 the last byte, alone after a release fence).
 */
static inline __attribute__((always_inline)) void
sw_copy1(uint8_t *d, const uint8_t *s, uint64_t len)
{
	const uint64_t tail = len >= 8 ? 8 : 1;
	const uint64_t body = len - tail;

	if (body != 0)
		sw_store_once(d, s, body);
	if (tail == 8) {
		uint64_t v;

		memcpy(&v, s + body, 8);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		*(volatile sw_u64u *)(void *)(d + body) = v;
	} else {
		uint8_t v = s[body];

		__atomic_thread_fence(__ATOMIC_RELEASE);
		*(volatile uint8_t *)(d + body) = v;
	}
}

/* A field of shared memory, read once (a peer may rewrite it meanwhile). */
#define SW_LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

/* The calling thread's slot of e->lc (sw_model.h, struct sw_lc). */
static inline uint32_t
sw_lc_id(void)
{
	const unsigned int id = rte_lcore_id();

	return id < RTE_MAX_LCORE ? id : SW_LC_ANY;
}

static inline struct sw_lc *
sw_lc(struct sw_engine *e)
{
	return &e->lc[sw_lc_id()];
}

/* The counters of segment d this engine adds to: its own device's, per
 * lcore; a peer's, in that peer's segment (sw_model.h, struct sw_hdr_ctr). */
static inline struct sw_hdr_ctr *
sw_ctr(struct sw_engine *e, const struct sw_domain *d)
{
	return d == e->self ? &sw_lc(e)->own : &d->hdr->peer_ctr;
}

/* Count a device error; true while it should still be logged. */
static inline bool
sw_deverr(struct sw_engine *e)
{
	return __atomic_fetch_add(&e->device_errors, 1, __ATOMIC_RELAXED) < SW_DEVERR_LOGS;
}

/* Cold: a process died holding the lock of CQ cq (QP p) of segment d, now
 * taken over: a device error, and the CQE it had written counted. */
SW_HIDDEN void sw_cq_lock_dead(struct sw_engine *e, struct sw_domain *d, struct sw_cq_shm *cq,
			       uint32_t holder);
SW_HIDDEN void sw_qp_lock_dead(struct sw_engine *e, struct sw_domain *d, struct sw_qp_shm *p,
			       uint32_t holder);

/* The datapath's locks of a CQ and of a QP's responder side (sw_qlock_try):
 * 0, or -EBUSY while a live holder keeps it (the caller comes back later;
 * never an error). A holder that died inside is reported. */
static inline int
sw_cq_lock(struct sw_engine *e, struct sw_domain *d, struct sw_cq_shm *cq)
{
	uint32_t dead = 0;

	if (sw_qlock_try(&cq->lock, e->pid, &dead) != 0)
		return -EBUSY;
	if (unlikely(dead != 0))
		sw_cq_lock_dead(e, d, cq, dead);
	return 0;
}

static inline int
sw_qp_lock(struct sw_engine *e, struct sw_domain *d, struct sw_qp_shm *p)
{
	uint32_t dead = 0;

	if (sw_qlock_try(&p->lock, e->pid, &dead) != 0)
		return -EBUSY;
	if (unlikely(dead != 0))
		sw_qp_lock_dead(e, d, p, dead);
	return 0;
}

/* Does [off, off + len) lie inside segment d? (no overflow) */
static inline bool
sw_in_seg(const struct sw_domain *d, uint64_t off, uint64_t len)
{
	return off != 0 && off <= d->size && len <= d->size - off;
}

static inline void
sw_qp_set_err(struct sw_qp_shm *s)
{
	__atomic_store_n(&s->state, RDX_SW_QPS_ERR, __ATOMIC_RELEASE);
}

/* Copy bytes of the SQ ring from WQEBB pos on, wrapping at the ring end. */
static inline void
sw_ring_read(const struct sw_lqp *q, uint32_t pos, void *dst, uint32_t bytes)
{
	/* DS unit k of the WQE at WQEBB w is at sq.buf + ((4w + k) mod
	 * 4 wqe_cnt) * 16: segments wrap to the ring start. */
	uint32_t ring = q->sq_wqe_cnt * 64;
	uint32_t start = (pos & (q->sq_wqe_cnt - 1)) * 64;
	uint32_t first = RTE_MIN(bytes, ring - start);

	memcpy(dst, q->sq_buf + start, first);
	if (bytes > first)
		memcpy((uint8_t *)dst + first, q->sq_buf, bytes - first);
}

/* ------------------------------------------------------------------ */
/* UD helpers                                                          */

/* splitmix64: seeds the per-QP streams; xorshift64* draws from them. */
static inline uint64_t
sw_splitmix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x != 0 ? x : 1;
}

/* true with probability thr / 2^53 (thr 0: never, drawing nothing) */
static inline bool
sw_coin(uint64_t *s, uint64_t thr)
{
	uint64_t x = *s;

	if (thr == 0)
		return false;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return ((x * 0x2545f4914f6cdd1dULL) >> 11) < thr;
}

static inline void
sw_ud_stats_add(struct rdx_sw_ud_stats *st, const struct sw_lqp *q)
{
	struct rdx_sw_ud_stats one;

	sw_qp_ud_stats(q, &one);
	st->sent += one.sent;
	st->too_long += one.too_long;
	st->drop_dest += one.drop_dest;
	st->inject_drop += one.inject_drop;
	st->inject_dup += one.inject_dup;
	st->inject_delay += one.inject_delay;
	st->recv += one.recv;
	st->drop_no_recv += one.drop_no_recv;
	st->drop_qkey += one.drop_qkey;
	st->recv_len_err += one.recv_len_err;
}

/*
 * Check key/bounds/access of [addr, addr + len) in segment d and translate
 * (sw_mr_resolve, sw_mem.c, documents the rules); inline for the hot
 * WRITE path, out of line everywhere else.
 */
static inline __attribute__((always_inline)) uint8_t *
sw_mr_xlate(const struct sw_domain *d, uint32_t key, uint64_t addr, uint64_t len,
	    uint32_t need, pid_t pid)
{
	const struct sw_mr_shm *mr;
	uint32_t slot = key >> 8, kind, access;
	uint64_t iova, mlen, off, shm_off;

	if (key == 0 || slot >= SW_MAX_MR)
		return NULL;
	mr = d->shadow != NULL ? &d->shadow->mrs[slot] : &d->hdr->mrs[slot];
	if (__atomic_load_n(&mr->key, __ATOMIC_ACQUIRE) != key)
		return NULL;
	iova = SW_LOAD(mr->iova);
	mlen = SW_LOAD(mr->len);
	access = SW_LOAD(mr->access);
	kind = SW_LOAD(mr->kind);
	if (addr < iova || len > mlen || addr - iova > mlen - len || (access & need) != need)
		return NULL;
	off = addr - iova;
	if (kind == SW_MR_LOCAL) {
		if (d->shadow == NULL || mr->owner_pid != (int32_t)pid)
			return NULL;
		return (uint8_t *)(uintptr_t)(mr->local_addr + off);
	}
	shm_off = SW_LOAD(mr->shm_off);
	if ((kind != SW_MR_SHM && kind != SW_MR_DM) || shm_off > d->size ||
	    off > d->size - shm_off || len > d->size - shm_off - off)
		return NULL;
	return sw_ptr(d, shm_off + off);
}

/* One WQE as execution sees it (sw_exec.c, sw_exec_ud.c). */
struct sw_span {
	uint8_t *p;
	uint64_t len;
};

struct sw_wqe {
	uint8_t b[SW_MAX_WQE_BYTES] __rte_aligned(16);
	uint32_t pos;      /* producer counter (WQEBBs) of the WQE */
	uint32_t ds;
	uint32_t wqebbs;
	uint32_t idx;
	uint32_t qpn;
	uint8_t opcode;
	uint8_t opmod;
	uint8_t fm_ce_se;
	uint32_t imm_raw;  /* ctrl imm bytes as-is */
};

/* An RC peer that would ACK a request (alive, same generation, RTR/RTS). */
static __rte_always_inline bool
sw_peer_alive(const struct sw_lqp *q)
{
	const struct sw_qp_shm *p = q->peer;
	uint32_t st;

	if (p == NULL || q->peer_vanished ||
	    __atomic_load_n(&q->peer_dom->truncated, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&q->peer_dom->hdr->closed, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&p->gen, __ATOMIC_ACQUIRE) != q->peer_gen)
		return false;
	/* an RC request to a QP of another type finds no RC responder */
	if (SW_LOAD(p->type) != SW_QPT_RC)
		return false;
	st = __atomic_load_n(&p->state, __ATOMIC_ACQUIRE);
	/* a responder in ERR/RESET drops requests: no ACK */
	return st == RDX_SW_QPS_RTR || st == RDX_SW_QPS_RTS;
}

/* ------------------------------------------------------------------ */
/* Called across the engine's files                                    */

/* sw_cq.c: count a device error on q, log the first SW_DEVERR_LOGS. */
SW_HIDDEN void sw_device_error(struct sw_engine *e, const struct sw_lqp *q, const char *what,
			       uint32_t a, uint32_t b);
/* sw_cq.c: write one CQE into cq of segment d; 0, -ENOSPC, -EIO or
 * -EBUSY (its lock kept by a live holder: nothing written, try later). */
SW_HIDDEN int sw_cq_push(struct sw_engine *e, struct sw_domain *d, struct sw_cq_shm *cq,
			 struct mlx5_cqe64 *cqe, uint8_t opcode, bool se);
/* The same with cq's lock held by the caller (sw_cq_lock); never -EBUSY. */
SW_HIDDEN int sw_cq_push_locked(struct sw_engine *e, struct sw_domain *d, struct sw_cq_shm *cq,
				struct mlx5_cqe64 *cqe, uint8_t opcode, bool se);
/* sw_cq.c: an error CQE (syndrome, wqe_counter, opcode, qpn) into cq
 * (locked: the caller holds cq's lock). */
SW_HIDDEN int sw_push_err(struct sw_engine *eng, struct sw_domain *d, struct sw_cq_shm *cq,
			  uint8_t cqe_op, uint8_t syndrome, uint8_t vendor, uint32_t counter,
			  uint8_t wqe_op, uint32_t qpn);
SW_HIDDEN int sw_push_err_locked(struct sw_engine *eng, struct sw_domain *d,
				 struct sw_cq_shm *cq, uint8_t cqe_op, uint8_t syndrome,
				 uint8_t vendor, uint32_t counter, uint8_t wqe_op, uint32_t qpn);
/* sw_exec.c: write q's owed responder CQE; 0, -EBUSY (try again) or -EIO. */
SW_HIDDEN int sw_resp_owed_push(struct sw_engine *e, struct sw_lqp *q);
/* sw_cq.c: the head WQE of q needs a shared lock that a live holder
 * keeps: it stays at the head, retried later; SW_WAIT. */
SW_HIDDEN int sw_lock_busy(struct sw_engine *e, struct sw_lqp *q);
/* sw_exec.c: execute the RC WQE at q->sq_ci (avail WQEBBs posted from
 * there); enum sw_rc. sw_exec_ud.c: sw_ud_exec, the same for a UD QP. */
SW_HIDDEN int sw_exec(struct sw_engine *e, struct sw_lqp *q, uint32_t avail);
SW_HIDDEN int sw_ud_exec(struct sw_engine *e, struct sw_lqp *q, uint32_t avail);
/* sw_mem.c: check key/bounds/access of [addr, addr + len) and translate;
 * NULL when a check fails. */
SW_HIDDEN uint8_t *sw_mr_resolve(const struct sw_domain *d, uint32_t key, uint64_t addr,
				 uint64_t len, uint32_t need, pid_t pid);
/* sw_mem.c: stream len bytes from the src spans into the dst spans, each
 * byte stored once, in order, the final unit last. */
SW_HIDDEN void sw_copy(const struct sw_span *dst, uint32_t nd, const struct sw_span *src,
		       uint32_t ns, uint64_t len);
/* sw_cq.c: requester-side failure of w: error CQE, QP to ERR; SW_FAIL. */
SW_HIDDEN int sw_req_fail(struct sw_engine *e, struct sw_lqp *q, const struct sw_wqe *w,
			  uint8_t syndrome);
/* sw_cq.c: a malformed WQE: device error, then LOCAL_QP_OP_ERR (0x02). */
SW_HIDDEN int sw_malformed(struct sw_engine *e, struct sw_lqp *q, const struct sw_wqe *w,
			   const char *what, uint32_t a, uint32_t b);
/* sw_mem.c: the payload spans of w from byte off (inline or data
 * segments); 0 or a syndrome (0x02 with *what set). */
SW_HIDDEN uint8_t sw_payload(struct sw_engine *e, struct sw_lqp *q, struct sw_wqe *w,
			     uint32_t off, bool scatter, struct sw_span *sp, uint32_t *nsp,
			     uint64_t *total, const char **what);
/* sw_cq.c: w completed: its CQE when signaled; enum sw_rc. */
SW_HIDDEN int sw_req_done(struct sw_engine *e, struct sw_lqp *q, const struct sw_wqe *w,
			  uint32_t bytes);
/* sw_cq.c: the timing layer's listed requester CQEs whose time has come
 * (only == NULL: the number written), or all of only's (a flush: 0, or
 * the error that stopped it: -EBUSY, -ENOSPC, -EIO). */
SW_HIDDEN int sw_req_release(struct sw_engine *e, struct sw_lqp *only);
/* sw_exec_ud.c: a UD SEND / SEND_IMM (w's datagram segment names the
 * destination); enum sw_rc. */
SW_HIDDEN int sw_ud_send(struct sw_engine *e, struct sw_lqp *q, struct sw_wqe *w);
/* sw_exec_ud.c: deliver the delayed datagrams that are due; how many. */
SW_HIDDEN int sw_ud_delayed(struct sw_engine *e);

/*
 * A peer QP's receive queue, read once from its shared record (under the
 * peer QP's lock) by the RC responder and the UD delivery alike: another
 * process writes that record, so each field is loaded once and checked
 * against the segment before the ring or the doorbell record is touched.
 */
struct sw_peer_rq {
	uint64_t rq_off;
	uint64_t dbo;             /* doorbell record offset */
	uint32_t rq_cnt;
	uint32_t stride;
	uint32_t nsge;
	uint32_t rcq;
	uint32_t cnt;             /* rq_ci: the next receive WQE to consume */
	uint32_t head;            /* from the doorbell record (sw_peer_rq_avail) */
	uint32_t avail;
};

static inline void
sw_peer_rq_load(const struct sw_qp_shm *p, struct sw_peer_rq *r)
{
	r->rq_cnt = SW_LOAD(p->rq_wqe_cnt);
	r->stride = SW_LOAD(p->rq_stride);
	r->nsge = SW_LOAD(p->max_recv_sge);
	r->rq_off = SW_LOAD(p->rq_off);
	r->dbo = SW_LOAD(p->dbrec_off);
	r->rcq = SW_LOAD(p->recv_cq);
	r->cnt = SW_LOAD(p->rq_ci);
}

/* The loaded geometry is one the model could have made, inside the segment. */
static inline bool
sw_peer_rq_sane(const struct sw_domain *pd, const struct sw_peer_rq *r)
{
	return r->rq_cnt <= SW_MAX_QP_WR && (r->rq_cnt & (r->rq_cnt - 1)) == 0 &&
	       r->stride >= 16 && r->stride <= 16 * SW_MAX_SGE &&
	       (r->stride & (r->stride - 1)) == 0 &&
	       (r->rq_cnt == 0 || sw_in_seg(pd, r->rq_off, (uint64_t)r->rq_cnt * r->stride)) &&
	       sw_in_seg(pd, r->dbo, 8) && r->rcq < SW_MAX_CQ;
}

/* Receive WQEs posted and not consumed, from the doorbell record (sane
 * geometry only); false when the record claims more than the ring. */
static inline bool
sw_peer_rq_avail(const struct sw_domain *pd, struct sw_peer_rq *r)
{
	r->nsge = RTE_MIN(r->nsge, r->stride / 16); /* stride / 16 <= SW_MAX_SGE */
	r->head = be32toh(__atomic_load_n((const __be32 *)(const void *)sw_ptr(pd, r->dbo) +
					  MLX5_RCV_DBR, __ATOMIC_ACQUIRE)) & 0xffff;
	r->avail = (r->head - r->cnt) & 0xffff;
	return r->avail <= r->rq_cnt;
}

/*
 * The receive WQE in rw as scatter spans in dst (a terminator ends a
 * shorter list, as mlx5_post_recv writes it; a region of another process
 * is not reachable: LOCAL_PROT in *synd; so is a data segment of byte
 * count 0, which the mlx5 PRM does not define as empty and libmlx5 never
 * writes: refused like a bad lkey, not skipped). Returns the room.
 * sw_peer_rq_scatter: the same for the next receive WQE, copied once into rw.
 */
static inline uint64_t
sw_peer_rq_resolve(const struct sw_domain *pd, const struct sw_peer_rq *r, pid_t pid,
		   const struct mlx5_wqe_data_seg *rw, struct sw_span *dst, uint32_t *nd,
		   uint8_t *synd)
{
	uint64_t room = 0;
	uint32_t i;

	for (i = 0; i < r->nsge; i++) {
		uint32_t l = be32toh(rw[i].byte_count);

		if (be32toh(rw[i].lkey) == MLX5_INVALID_LKEY)
			break;
		if (l == 0) {
			*synd = MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
			break;
		}
		dst[*nd].p = sw_mr_xlate(pd, be32toh(rw[i].lkey), be64toh(rw[i].addr), l,
					   IBV_ACCESS_LOCAL_WRITE, pid);
		if (dst[*nd].p == NULL)
			*synd = MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
		dst[*nd].len = l;
		room += l;
		(*nd)++;
	}
	return room;
}

static inline uint64_t
sw_peer_rq_scatter(const struct sw_domain *pd, const struct sw_peer_rq *r, pid_t pid,
		   struct mlx5_wqe_data_seg *rw, struct sw_span *dst, uint32_t *nd, uint8_t *synd)
{
	memcpy(rw, sw_ptr(pd, r->rq_off) + (size_t)(r->cnt & (r->rq_cnt - 1)) * r->stride,
	       (size_t)r->nsge * 16);
	return sw_peer_rq_resolve(pd, r, pid, rw, dst, nd, synd);
}

/* ------------------------------------------------------------------ */
/* WQE fetch (RC and UD; inline: once per WQE)                        */

/* Read the WQE at q->sq_ci's first WQEBB into w, decode its control
 * segment. */
static inline void
sw_wqe_read(const struct sw_lqp *q, struct sw_wqe *w)
{
	const struct mlx5_wqe_ctrl_seg *ctrl = (const struct mlx5_wqe_ctrl_seg *)(void *)w->b;
	uint32_t v;

	w->pos = q->sq_ci;
	/* the first WQEBB, read once as one 64-byte copy (a WQEBB never
	 * wraps); the rest of a longer WQE in sw_wqe_check, once its DS is
	 * checked */
	memcpy(w->b, q->sq_buf + (size_t)(w->pos & (q->sq_wqe_cnt - 1)) * 64, 64);
	v = be32toh(ctrl->opmod_idx_opcode);
	w->opcode = (uint8_t)v;
	w->idx = (v >> 8) & 0xffff;
	w->opmod = (uint8_t)(v >> 24);
	v = be32toh(ctrl->qpn_ds);
	w->ds = v & 0x3f;
	w->qpn = v >> 8;
	w->fm_ce_se = ctrl->fm_ce_se;
	memcpy(&w->imm_raw, &ctrl->imm, 4);
	w->wqebbs = w->ds == 0 ? 1 : (w->ds + 3) / 4;
}

/* Check w's control segment against q (DS, idx, qpn, opmod), then read
 * the rest of w; 0, or SW_FAIL (malformed: completed as such). */
static inline int
sw_wqe_check(struct sw_engine *e, struct sw_lqp *q, uint32_t avail, struct sw_wqe *w)
{
	const struct mlx5_wqe_ctrl_seg *ctrl = (const struct mlx5_wqe_ctrl_seg *)(void *)w->b;

	if (w->ds == 0 || w->wqebbs > q->max_wqebbs || w->wqebbs > avail) {
		w->wqebbs = 1;
		return sw_malformed(e, q, w, "DS out of range", w->ds, q->max_wqebbs * 4);
	}
	if (w->idx != (w->pos & 0xffff))
		return sw_malformed(e, q, w, "idx is not the producer counter", w->idx,
				    w->pos & 0xffff);
	if (w->qpn != q->qpn)
		return sw_malformed(e, q, w, "qpn", w->qpn, q->qpn);
	/* opmod is only used by masked atomics and UMR, which RC here never
	 * posts; the signature byte is 0 without MLX5_QP_SIGNATURE */
	if (w->opmod != 0 || ctrl->signature != 0)
		return sw_malformed(e, q, w, "opmod/signature not 0", w->opmod,
				    ctrl->signature);
	if (w->wqebbs > 1)
		sw_ring_read(q, w->pos + 1, w->b + 64, w->ds * 16 - 64);
	return 0;
}

#endif /* SW_ENGINE_PRIV_H */
