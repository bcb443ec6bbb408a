/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Software mlx5 device: CQ/QP objects and the engine that executes send
 * WQEs, consumes receive WQEs and writes CQEs, strictly following
 * doc/mlx5-datapath.md (§8) and the datapath contract.
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
 *   REMOTE_INVALID_REQUEST (0x12). Bad receive lkey: responder LOCAL_PROT
 *   (0x04), requester REMOTE_OP (0x14). Responder CQ overrun: responder QP
 *   to error, requester REMOTE_OP (0x14).
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
 * - Shared memory is untrusted (a peer process maps it read-write): each
 *   shared value is read once and checked against its segment; own QP
 *   geometry and own MR translations come from process-local copies; a
 *   corrupt peer QP or CQ is a device error and REMOTE_OP (0x14); shared
 *   locks are taken with a bound (no ACK / device error when it expires).
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

#include "sw_model.h"

RTE_LOG_REGISTER(rdx_sw_logtype, rdx.drv.sw, NOTICE)
#define SW_LOG(level, ...) \
	rte_log((uint32_t)RTE_LOG_ ## level, (uint32_t)rdx_sw_logtype, "rdx_sw: " __VA_ARGS__)

#define SW_CQE_INVALID 0xf0
#define SW_DEVERR_LOGS 64 /* device errors logged per engine; the rest counted */

enum sw_rc {
	SW_DONE = 0, /* WQE completed */
	SW_WAIT,     /* WQE stays at the head (RNR wait, CQ full) */
	SW_FAIL,     /* WQE failed: QP in ERR */
};

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

static inline void
sw_stat(uint64_t *c, uint64_t n)
{
	__atomic_fetch_add(c, n, __ATOMIC_RELAXED);
}

static uint64_t
sw_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* IBTA RNR timer codes (9.7.5.2.8), in units of 10 us. */
static const uint32_t sw_rnr_10us[32] = {
	65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
	256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288,
	16384, 24576, 32768, 49152,
};

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

/* ------------------------------------------------------------------ */
/* CQE production                                                      */

static void
sw_futex_wake(uint32_t *addr)
{
	syscall(SYS_futex, addr, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* A field of shared memory, read once (a peer may rewrite it meanwhile). */
#define SW_LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

/* Count a device error; true while it should still be logged. */
static inline bool
sw_deverr(struct sw_engine *e)
{
	return __atomic_fetch_add(&e->device_errors, 1, __ATOMIC_RELAXED) < SW_DEVERR_LOGS;
}

/* Does [off, off + len) lie inside segment d? (no overflow) */
static inline bool
sw_in_seg(const struct sw_domain *d, uint64_t off, uint64_t len)
{
	return off != 0 && off <= d->size && len <= d->size - off;
}

/*
 * Write one CQE into cq (of segment d). Serialized per CQ by its shared
 * lock since requesters of several engines (processes) may complete into
 * the same CQ. Body first, release barrier, then op_own with the owner bit
 * of this lap (cq.c get_sw_cqe rule). Never overwrites a CQE the consumer
 * has not released: pi - ci (dbrec[0], 24 bits) >= cqe_cnt is an overrun.
 * The CQ's fields live in shared memory: each is read once and checked
 * against the segment before use.
 * @return 0, -ENOSPC (overrun, counted and logged once per episode), or
 * -EIO (lock not obtained or the CQ's fields are not a CQ's: a device
 * error, counted and logged).
 */
static int
sw_cq_push(struct sw_engine *e, struct sw_domain *d, struct sw_cq_shm *cq,
	   struct mlx5_cqe64 *cqe, uint8_t opcode, bool se)
{
	uint64_t buf, dbo;
	uint32_t ci, cnt, lg, pi;
	uint8_t *dst;

	if (sw_lock_timed(&cq->lock) != 0) {
		if (sw_deverr(e))
			SW_LOG(ERR, "device error: CQ %u of %s: lock not obtained in %d ms\n",
			       (unsigned int)(cq - d->hdr->cqs), d->name, SW_LOCK_WAIT_MS);
		return -EIO;
	}
	buf = SW_LOAD(cq->buf_off);
	if (buf == 0) { /* destroyed: nowhere to write */
		sw_unlock(&cq->lock);
		return -ENOSPC;
	}
	dbo = SW_LOAD(cq->dbrec_off);
	cnt = SW_LOAD(cq->cqe_cnt);
	lg = SW_LOAD(cq->log_cqe_cnt);
	pi = SW_LOAD(cq->pi);
	if (cnt == 0 || cnt > SW_MAX_CQE || (cnt & (cnt - 1)) != 0 || lg != sw_log2(cnt) ||
	    !sw_in_seg(d, buf, (uint64_t)cnt * 64) || !sw_in_seg(d, dbo, 8)) {
		sw_unlock(&cq->lock);
		if (sw_deverr(e))
			SW_LOG(ERR, "device error: CQ %u of %s is corrupt (%u CQEs, log %u, buf 0x%"
			       PRIx64 ", dbrec 0x%" PRIx64 ")\n", (unsigned int)(cq - d->hdr->cqs),
			       d->name, cnt, lg, buf, dbo);
		return -EIO;
	}
	ci = be32toh(__atomic_load_n((const __be32 *)(const void *)sw_ptr(d, dbo),
				     __ATOMIC_ACQUIRE)) & 0xffffff;
	if (((pi - ci) & 0xffffff) >= cnt) {
		if (!cq->full) {
			cq->full = 1;
			cq->overruns++;
			__atomic_fetch_add(&d->hdr->cq_overruns, 1, __ATOMIC_RELAXED);
			SW_LOG(ERR, "CQ overrun on %s cq %u (pi %u ci %u, %u CQEs): CQE not written\n",
			       d->name, (unsigned int)(cq - d->hdr->cqs), pi, ci, cnt);
		}
		sw_unlock(&cq->lock);
		return -ENOSPC;
	}
	cq->full = 0;
	dst = sw_ptr(d, buf) + (size_t)(pi & (cnt - 1)) * 64;
	sw_store_once(dst, (const uint8_t *)cqe, 63);
	/* release: the body is visible before the owner bit flips */
	__atomic_store_n(&dst[63], (uint8_t)((uint32_t)opcode << 4 | (se ? 2U : 0U) |
			 ((pi >> lg) & 1U)), __ATOMIC_RELEASE);
	cq->pi = pi + 1;
	cq->cqes++;
	__atomic_fetch_add(&d->hdr->cqes, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&cq->seq, 1, __ATOMIC_RELEASE);
	if (__atomic_load_n(&cq->waiters, __ATOMIC_ACQUIRE) != 0)
		sw_futex_wake(&cq->seq);
	sw_unlock(&cq->lock);
	return 0;
}

static int
sw_push_err(struct sw_engine *eng, struct sw_domain *d, struct sw_cq_shm *cq, uint8_t cqe_op,
	    uint8_t syndrome, uint8_t vendor, uint32_t counter, uint8_t wqe_op,
	    uint32_t qpn)
{
	struct mlx5_cqe64 c;
	struct mlx5_err_cqe *e = (struct mlx5_err_cqe *)&c;

	memset(&c, 0, sizeof(c));
	e->syndrome = syndrome;
	e->vendor_err_synd = vendor;
	e->s_wqe_opcode_qpn = htobe32((uint32_t)wqe_op << 24 | (qpn & 0xffffff));
	e->wqe_counter = htobe16((uint16_t)counter);
	return sw_cq_push(eng, d, cq, &c, cqe_op, false);
}

/* ------------------------------------------------------------------ */
/* Memory                                                              */

/*
 * Check key/bounds/access and translate: NULL when any check fails, or the
 * region is process memory of another process (not reachable from here).
 * A segment this process owns is translated with its process-local MR
 * table (d->shadow); another process's table is untrusted: each field is
 * read once and the result must lie inside its segment. Process memory
 * (SW_MR_LOCAL) is reachable only through a trusted table, so a forged
 * entry can never make the engine write to an address of its choice.
 */
static uint8_t *
sw_mr_resolve(const struct sw_domain *d, uint32_t key, uint64_t addr, uint64_t len,
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

/*
 * Stream len bytes from the src spans into the dst spans (gather/scatter):
 * every destination byte stored exactly once, in stream order, and the
 * final unit last after a release fence: the last 8 bytes as one 8-byte
 * store when len >= 8 and they lie in one destination span, else the last
 * byte. The source is read once. Zero-length spans are skipped; the spans
 * must cover len (the callers check).
 */
static void
sw_copy(const struct sw_span *dst, uint32_t nd, const struct sw_span *src,
	uint32_t ns, uint64_t len)
{
	uint64_t doff = 0, soff = 0, body, i;
	uint32_t di = 0, si = 0, tail;
	uint8_t t[8];

	if (len == 0)
		return;
	tail = len >= 8 ? 8 : 1;
	body = len - tail;
	while (body > 0 && di < nd && si < ns) {
		uint64_t n = RTE_MIN(dst[di].len - doff, src[si].len - soff);

		n = RTE_MIN(n, body);
		sw_store_once(dst[di].p + doff, src[si].p + soff, n);
		doff += n;
		soff += n;
		body -= n;
		if (doff == dst[di].len) {
			di++;
			doff = 0;
		}
		if (soff == src[si].len) {
			si++;
			soff = 0;
		}
	}
	/* the tail's source bytes, read once (one load when contiguous) */
	while (si < ns && soff == src[si].len) {
		si++;
		soff = 0;
	}
	if (tail == 8 && si < ns && src[si].len - soff >= 8) {
		memcpy(t, src[si].p + soff, 8);
		i = 8;
	} else {
		i = 0;
	}
	for (; i < tail && si < ns; i++) {
		while (si < ns && soff == src[si].len) {
			si++;
			soff = 0;
		}
		if (si == ns)
			return;
		t[i] = src[si].p[soff++];
	}
	while (di < nd && doff == dst[di].len) {
		di++;
		doff = 0;
	}
	if (di == nd)
		return;
	if (tail == 8 && dst[di].len - doff >= 8) {
		__atomic_thread_fence(__ATOMIC_RELEASE);
		sw_store_once(dst[di].p + doff, t, 8);
		return;
	}
	/* the tail spans destination segments: byte by byte, last one last */
	for (i = 0; i < tail; i++) {
		while (di < nd && doff == dst[di].len) {
			di++;
			doff = 0;
		}
		if (di == nd)
			return;
		if (i == tail - 1)
			__atomic_thread_fence(__ATOMIC_RELEASE);
		sw_store_once(dst[di].p + doff, &t[i], 1);
		doff++;
	}
}

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
	bool locked = sw_lock_timed(&cq->lock) == 0;

	sw_shm_free(e->self, e->cq_off[slot][0]);
	sw_shm_free(e->self, e->cq_off[slot][1]);
	e->cq_off[slot][0] = e->cq_off[slot][1] = 0;
	cq->buf_off = cq->dbrec_off = 0;
	cq->cqe_cnt = 1; /* any push now overruns (no buffer) */
	cq->pi = 1;
	if (locked)
		sw_unlock(&cq->lock);
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
sw_calc_send_wqe(uint32_t max_send_sge, uint32_t max_inline, uint32_t *wqe_size,
		 uint32_t *granted_inline)
{
	/* rdma-core verbs.c mlx5_calc_send_wqe for RC: the overhead is the
	 * largest enabled op (MW/UMR: 192 B); the WQE is the larger of
	 * overhead + one data segment per SGE and overhead + the inline
	 * segment, rounded to 64 B; max_inline = WQE - overhead - 4. */
	/* sized for at least one SGE so that max_inline never underflows */
	uint32_t size = SW_WQE_OVERHEAD + 16 * RTE_MAX(max_send_sge, 1U);
	uint32_t inl = 0;

	if (max_send_sge > SW_MAX_SGE || max_inline > SW_MAX_WQE_BYTES)
		return -EINVAL;
	if (max_inline != 0)
		inl = SW_WQE_OVERHEAD + RTE_ALIGN_CEIL(4 + max_inline, 16U);
	size = RTE_ALIGN_CEIL(RTE_MAX(size, inl), 64U);
	if (size > SW_MAX_WQE_BYTES)
		return -EINVAL;
	*wqe_size = size;
	*granted_inline = size - SW_WQE_OVERHEAD - 4;
	return 0;
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
	    sw_calc_send_wqe(p->max_send_sge, p->max_inline, &wqe_size, &inl) != 0) {
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
	q->s = s;
	q->slot = i;
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
	while (__atomic_load_n(&e->inflight, __ATOMIC_ACQUIRE) != 0)
		sched_yield();
	sw_lock(&e->lock);
	__atomic_store_n(&e->qps[q->slot], NULL, __ATOMIC_RELEASE);
	{
		/* no progress call runs: move the last live QP into q's place */
		uint32_t last = e->nb_active - 1;

		e->active[q->act] = e->active[last];
		e->active[q->act]->act = q->act;
		e->active[last] = NULL;
		__atomic_store_n(&e->nb_active, last, __ATOMIC_RELEASE);
		for (last = 0; last < SW_HOT; last++)
			if (e->hot[last] == q)
				__atomic_store_n(&e->hot[last], NULL, __ATOMIC_RELAXED);
	}
	sw_bfreg_unlink(q);
	sw_unlock(&e->lock);
	__atomic_fetch_sub(&e->draining, 1, __ATOMIC_ACQ_REL);
	{
		/* a stopped peer may hold the lock: destroy anyway */
		bool locked = sw_lock_timed(&s->lock) == 0;

		s->state = RDX_SW_QPS_RESET;
		__atomic_fetch_add(&s->gen, 1, __ATOMIC_RELEASE); /* peers see it gone */
		if (locked)
			sw_unlock(&s->lock);
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
	uint32_t slot = peer_qpn - SW_QPN_BASE;

	if (peer_qpn < SW_QPN_BASE || slot >= SW_MAX_QP || q->peer_dom != NULL)
		return -EINVAL;
	sw_lock(&e->lock);
	if (strcmp(peer_domain, e->self->name) == 0) {
		pd = e->self;
	} else {
		for (pd = e->peers; pd != NULL; pd = pd->next)
			if (strcmp(pd->name, peer_domain) == 0)
				break;
		if (pd != NULL) {
			pd->refs++;
		} else {
			pd = sw_domain_map(peer_domain);
			if (pd == NULL) {
				int err = rte_errno;

				sw_unlock(&e->lock);
				SW_LOG(ERR, "cannot map peer segment %s: %s\n", peer_domain,
				       strerror(err));
				return -ENOENT;
			}
			pd->next = e->peers;
			e->peers = pd;
		}
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
	q->peer_dom = pd;
	q->peer = peer;
	q->peer_gen = __atomic_load_n(&peer->gen, __ATOMIC_ACQUIRE);
	sw_unlock(&e->lock);
	sw_lock(&q->s->lock);
	snprintf(q->s->peer_domain, sizeof(q->s->peer_domain), "%s", peer_domain);
	q->s->peer_qpn = peer_qpn;
	q->s->rnr_retry = rnr_retry;
	q->s->min_rnr_timer = min_rnr_timer & 31;
	q->s->retry_cnt = retry_cnt;
	q->s->timeout = timeout;
	/* RESET -> INIT -> RTR -> RTS in one step */
	__atomic_store_n(&q->s->state, RDX_SW_QPS_RTS, __ATOMIC_RELEASE);
	sw_unlock(&q->s->lock);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The engine                                                          */

static void
sw_qp_set_err(struct sw_qp_shm *s)
{
	__atomic_store_n(&s->state, RDX_SW_QPS_ERR, __ATOMIC_RELEASE);
}

static void
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

static void
sw_device_error(struct sw_engine *e, const struct sw_lqp *q, const char *what,
		uint32_t a, uint32_t b)
{
	uint64_t n = __atomic_fetch_add(&e->device_errors, 1, __ATOMIC_RELAXED);

	/* one line each, but a peer scribbling in a loop must not flood the log */
	if (n < SW_DEVERR_LOGS)
		SW_LOG(ERR, "device error on QP 0x%x: %s (0x%x vs 0x%x)%s\n", q->qpn, what, a, b,
		       n + 1 == SW_DEVERR_LOGS ? " (further device errors are counted only)" : "");
}

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
 *   checks, when it consumes (so it is not ringing meanwhile), that no QP
 *   of it has a doorbell record ahead of what it executed with no doorbell
 *   pending: a ring went missing, i.e. a half was written twice in a row
 *   (two QPs with a toggle each). Checked on every look for registers of up
 *   to 32 QPs, every 32nd look above that.
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
	uint8_t wqe[SW_MAX_WQE_BYTES], snap[SW_BF_SIZE];
	uint32_t idx, qpn, ds, db, i;
	bool bf_copy = false;
	struct sw_lqp *q;
	uint64_t w0;

	*dist = UINT32_MAX;
	w0 = __atomic_exchange_n((uint64_t *)(void *)half, 0, __ATOMIC_ACQ_REL);
	if (w0 == 0)
		return NULL;
	memcpy(snap, &w0, 8);
	memcpy(snap + 8, half + 8, SW_BF_SIZE - 8);
	memset(half + 8, 0, SW_BF_SIZE - 8);
	idx = be32toh(((const struct mlx5_wqe_ctrl_seg *)(void *)snap)->opmod_idx_opcode);
	qpn = be32toh(((const struct mlx5_wqe_ctrl_seg *)(void *)snap)->qpn_ds);
	ds = qpn & 0x3f;
	qpn >>= 8;
	idx = (idx >> 8) & 0xffff;
	for (i = 8; i < SW_BF_SIZE; i++)
		if (snap[i] != 0) {
			bf_copy = true;
			break;
		}
	sw_stat(&e->doorbells, 1);
	if (bf_copy)
		sw_stat(&e->bf_copies, 1);
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

		sw_ring_read(q, idx, wqe, len);
		if (memcmp(wqe, snap, len) != 0)
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

/* Shared register, its posting lcore quiet: a QP whose ring went missing. */
static void
sw_bf_stalls(struct sw_engine *e, struct sw_bfreg *b)
{
	const uint32_t sweep = __atomic_load_n(&b->sweep, __ATOMIC_ACQUIRE);
	struct sw_lqp *q;

	for (q = __atomic_load_n(&b->qps, __ATOMIC_ACQUIRE); q != NULL; q = q->reg_next) {
		uint32_t db;

		if (__atomic_load_n(&q->s->state, __ATOMIC_ACQUIRE) != RDX_SW_QPS_RTS ||
		    __atomic_load_n(&q->armed, __ATOMIC_ACQUIRE) ||
		    __atomic_load_n(&q->arms, __ATOMIC_ACQUIRE) != __atomic_load_n(&q->arms_seen, __ATOMIC_RELAXED) ||
		    __atomic_load_n(&q->sweep_seen, __ATOMIC_RELAXED) != sweep)
			continue;
		db = be32toh(__atomic_load_n(&q->dbrec[MLX5_SND_DBR], __ATOMIC_ACQUIRE)) & 0xffff;
		if (db == (__atomic_load_n(&q->sq_ci, __ATOMIC_RELAXED) & 0xffff))
			continue;
		sw_device_error(e, q, "SQ doorbell record moved but no doorbell came (a BlueFlame half written twice in a row?)",
				db, q->sq_ci & 0xffff);
		/* execute it anyway, so the run can end */
		__atomic_fetch_add(&q->arms, 1, __ATOMIC_RELEASE);
	}
}

static void
sw_bf_consume(struct sw_engine *e, struct sw_lqp *self, struct sw_bfreg *b)
{
	const bool strict = !e->thread_mode;
	/* A shared register's poster is quiet only when we are it. */
	const bool quiet = strict && (b->post_lcore == 0 || rte_lcore_id() == b->r->lcore);
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
		if (!w[x] && quiet && b->half_known)
			sw_device_error(e, self, "doorbell in the wrong BlueFlame half", x ^ 1, x);
	}
	if (w[x] != w[x ^ 1]) {
		/* one ring since the last look (a lost one needs both halves) */
		x = w[x] ? x : x ^ 1;
		sw_bf_take(e, self, b, x, strict ? 2 : 0, &da);
		b->half_next = x ^ 1;
		b->half_known = true;
	} else {
		/* two rings or more: which was last? */
		qa = sw_bf_take(e, self, b, x, strict ? 1 : 0, &da);
		qb = sw_bf_take(e, self, b, x ^ 1, strict ? 1 : 0, &db);
		if (qa != NULL && qa == qb && da != db && da != UINT32_MAX && db != UINT32_MAX) {
			b->half_next = (da < db ? x : x ^ 1) ^ 1;
			b->half_known = true;
		} else {
			b->half_known = false;
		}
		if (b->post_lcore != 0)
			sw_bf_sweep(b);
	}
	b->looks++;
	if (quiet && b->post_lcore != 0 && (b->refs <= 32 || (b->looks & 31) == 0))
		sw_bf_stalls(e, b);
}

/* Anything for q on its register: rung halves, or arms not yet folded? */
static inline bool
sw_bf_pending(const struct sw_lqp *q)
{
	const uint8_t *h0 = q->bf;

	return __atomic_load_n((const uint64_t *)(const void *)h0, __ATOMIC_RELAXED) != 0 ||
		__atomic_load_n((const uint64_t *)(const void *)(h0 + SW_BF_SIZE),
				__ATOMIC_RELAXED) != 0 ||
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

static bool
sw_peer_alive(const struct sw_lqp *q)
{
	const struct sw_qp_shm *p = q->peer;
	uint32_t st;

	if (p == NULL || q->peer_vanished ||
	    __atomic_load_n(&q->peer_dom->truncated, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&q->peer_dom->hdr->closed, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&p->gen, __ATOMIC_ACQUIRE) != q->peer_gen)
		return false;
	st = __atomic_load_n(&p->state, __ATOMIC_ACQUIRE);
	/* a responder in ERR/RESET drops requests: no ACK */
	return st == RDX_SW_QPS_RTR || st == RDX_SW_QPS_RTS;
}

/* The peer's segment was truncated (by the peer: see sw_shm.c's SIGBUS
 * guard); what the request touched there is lost: it is not ACKed. */
static inline bool
sw_seg_lost(const struct sw_lqp *q)
{
	return __atomic_load_n(&q->peer_dom->truncated, __ATOMIC_ACQUIRE) != 0;
}

/* Requester-side failure of w: error CQE, QP to ERR. */
static int
sw_req_fail(struct sw_engine *e, struct sw_lqp *q, const struct sw_wqe *w,
	    uint8_t syndrome)
{
	sw_qp_set_err(q->s);
	q->sq_ci = w->pos + w->wqebbs;
	q->rnr_active = false;
	q->ack_active = false;
	sw_stat(&e->errors, 1);
	if (syndrome == MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR ||
	    syndrome == MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR ||
	    syndrome == MLX5_CQE_SYNDROME_REMOTE_OP_ERR) {
		if (q->peer != NULL && sw_peer_alive(q))
			sw_qp_set_err(q->peer);
	}
	if (sw_push_err(e, e->self, q->scq, MLX5_CQE_REQ_ERR, syndrome, 0, w->pos & 0xffff,
			w->opcode, q->qpn) != 0)
		q->sq_ci = w->pos; /* CQ full: the flush completes it later */
	return SW_FAIL;
}

static int
sw_malformed(struct sw_engine *e, struct sw_lqp *q, const struct sw_wqe *w,
	     const char *what, uint32_t a, uint32_t b)
{
	sw_device_error(e, q, what, a, b);
	return sw_req_fail(e, q, w, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
}

/*
 * Payload of a SEND/WRITE (gather) or READ (scatter) starting at byte off
 * of the WQE: an inline segment or data segments. Fills spans; returns 0,
 * or a syndrome (0x04 bad lkey), or 0x02 (malformed) with *what set.
 */
static uint8_t
sw_payload(struct sw_engine *e, struct sw_lqp *q, struct sw_wqe *w, uint32_t off,
	   bool scatter, struct sw_span *sp, uint32_t *nsp, uint64_t *total,
	   const char **what)
{
	uint32_t n, i, hdr;

	*nsp = 0;
	*total = 0;
	if (off == w->ds * 16)
		return 0;
	memcpy(&hdr, w->b + off, 4);
	hdr = be32toh(hdr);
	if (hdr & MLX5_INLINE_SEG) {
		uint32_t len = hdr & ~(uint32_t)MLX5_INLINE_SEG;

		if (scatter) {
			*what = "inline segment in a READ";
			return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
		}
		if (len > q->max_inline) {
			*what = "inline length above max_inline";
			return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
		}
		if (off / 16 + RTE_ALIGN_CEIL(4 + len, 16U) / 16 != w->ds) {
			*what = "DS does not match the inline length";
			return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
		}
		sp[0].p = w->b + off + 4;
		sp[0].len = len;
		*nsp = len != 0;
		*total = len;
		return 0;
	}
	n = w->ds - off / 16;
	if (n > q->max_send_sge) {
		*what = "more data segments than max_send_sge";
		return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
	}
	for (i = 0; i < n; i++) {
		const struct mlx5_wqe_data_seg *ds =
			(const struct mlx5_wqe_data_seg *)(void *)(w->b + off + 16 * i);
		uint32_t len = be32toh(ds->byte_count);
		uint64_t addr = be64toh(ds->addr);

		if (len == 0 || (len & MLX5_INLINE_SEG)) {
			*what = "zero-length or inline-flagged data segment";
			return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
		}
		/* local gather needs no access flag; scatter needs LOCAL_WRITE */
		sp[i].p = sw_mr_resolve(e->self, be32toh(ds->lkey), addr, len,
					scatter ? IBV_ACCESS_LOCAL_WRITE : 0, e->pid);
		if (sp[i].p == NULL)
			return MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
		sp[i].len = len;
		*total += len;
	}
	*nsp = n;
	if (*total > SW_MAX_MSG)
		return MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR;
	return 0;
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
	sw_stat(&e->retries, 1);
	q->retry_at_ns = t == 0 ? UINT64_MAX : sw_now_ns() + (4096ULL << t);
	return SW_WAIT;
}

static int
sw_rnr(struct sw_engine *e, struct sw_lqp *q, const struct sw_wqe *w)
{
	uint8_t code = __atomic_load_n(&q->peer->min_rnr_timer, __ATOMIC_RELAXED);

	uint64_t now = sw_now_ns();

	sw_stat(&e->rnr_naks, 1);
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
	uint32_t head, avail, nd = 0, i, cnt, rq_cnt, stride, nsge, rcq, pqpn;
	uint64_t room = 0, rq_off, dbo;
	uint8_t cqe_op, synd = 0;
	int ret = SW_DONE;

	if (sw_lock_timed(&p->lock) != 0) {
		/* a stopped or hostile peer holds its QP: no answer */
		if (sw_deverr(e))
			SW_LOG(ERR, "device error on QP 0x%x: peer QP lock not obtained in %d ms\n",
			       q->qpn, SW_LOCK_WAIT_MS);
		return sw_no_ack(e, q, w);
	}
	if (!sw_peer_alive(q)) {
		sw_unlock(&p->lock);
		return sw_no_ack(e, q, w);
	}
	if (sw_seg_lost(q)) {
		sw_unlock(&p->lock);
		return sw_no_ack(e, q, w);
	}
	rq_cnt = SW_LOAD(p->rq_wqe_cnt);
	stride = SW_LOAD(p->rq_stride);
	nsge = SW_LOAD(p->max_recv_sge);
	rq_off = SW_LOAD(p->rq_off);
	dbo = SW_LOAD(p->dbrec_off);
	rcq = SW_LOAD(p->recv_cq);
	cnt = SW_LOAD(p->rq_ci);
	pqpn = SW_LOAD(p->qpn);
	if (sw_seg_lost(q)) { /* reading the fields found it truncated */
		sw_unlock(&p->lock);
		return sw_no_ack(e, q, w);
	}
	if (rq_cnt > SW_MAX_QP_WR || (rq_cnt & (rq_cnt - 1)) != 0 || stride < 16 ||
	    stride > 16 * SW_MAX_SGE || (stride & (stride - 1)) != 0 ||
	    (rq_cnt != 0 && !sw_in_seg(pd, rq_off, (uint64_t)rq_cnt * stride)) ||
	    !sw_in_seg(pd, dbo, 8) || rcq >= SW_MAX_CQ) {
		sw_qp_set_err(p);
		sw_unlock(&p->lock);
		if (sw_deverr(e))
			SW_LOG(ERR, "device error on QP 0x%x: peer QP 0x%x is corrupt (RQ %u x %u B at 0x%" PRIx64 ", dbrec 0x%" PRIx64 ", CQ %u)\n",
			       q->qpn, pqpn, rq_cnt, stride, rq_off, dbo, rcq);
		return sw_req_fail(e, q, w, MLX5_CQE_SYNDROME_REMOTE_OP_ERR);
	}
	nsge = RTE_MIN(nsge, stride / 16); /* stride / 16 <= SW_MAX_SGE */
	pcq = &pd->hdr->cqs[rcq];
	head = be32toh(__atomic_load_n((const __be32 *)(const void *)sw_ptr(pd, dbo) +
				       MLX5_RCV_DBR, __ATOMIC_ACQUIRE)) & 0xffff;
	avail = (head - cnt) & 0xffff;
	if (avail > rq_cnt) {
		/* the peer's RQ doorbell record claims more than its ring */
		sw_qp_set_err(p);
		sw_unlock(&p->lock);
		if (sw_deverr(e))
			SW_LOG(ERR, "device error on QP 0x%x: RQ doorbell record 0x%x beyond the ring (ci 0x%x, %u WQEs)\n",
			       pqpn, head, cnt & 0xffff, rq_cnt);
		return sw_no_ack(e, q, w);
	}
	if (avail == 0 || rq_cnt == 0) {
		sw_unlock(&p->lock);
		return sw_rnr(e, q, w);
	}
	q->rnr_active = false;
	q->ack_active = false;
	if (!write_imm) {
		/* the RQ WQE, copied once */
		memcpy(rw, sw_ptr(pd, rq_off) + (size_t)(cnt & (rq_cnt - 1)) * stride,
		       (size_t)nsge * 16);
		for (i = 0; i < nsge; i++) {
			const struct mlx5_wqe_data_seg *ds = &rw[i];
			uint32_t l = be32toh(ds->byte_count);

			/* a terminator ends a shorter list (mlx5_post_recv) */
			if (be32toh(ds->lkey) == MLX5_INVALID_LKEY)
				break;
			if (l == 0)
				continue;
			/* a region of another process is not reachable: LOCAL_PROT */
			dst[nd].p = sw_mr_resolve(pd, be32toh(ds->lkey), be64toh(ds->addr), l,
						  IBV_ACCESS_LOCAL_WRITE, e->pid);
			if (dst[nd].p == NULL)
				synd = MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
			dst[nd].len = l;
			room += l;
			nd++;
		}
		if (synd == 0 && room < len)
			synd = MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR;
	}
	p->rq_ci = cnt + 1;
	__atomic_fetch_add(&pd->hdr->recv_wqes, 1, __ATOMIC_RELAXED);
	if (synd != 0) {
		sw_qp_set_err(p);
		/* no room: the peer's flush completes that receive instead */
		if (sw_push_err(e, pd, pcq, MLX5_CQE_RESP_ERR, synd, 0, cnt & 0xffff, 0, pqpn) != 0)
			p->rq_ci = cnt;
		sw_unlock(&p->lock);
		return sw_req_fail(e, q, w, synd == MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR ?
				   MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR :
				   MLX5_CQE_SYNDROME_REMOTE_OP_ERR);
	}
	/* data lands before the responder's CQE is visible */
	if (!write_imm)
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
	c.wqe_counter = htobe16((uint16_t)cnt);
	c.byte_cnt = htobe32((uint32_t)len);
	if (cqe_op != MLX5_CQE_RESP_SEND)
		memcpy(&c.imm_inval_pkey, &w->imm_raw, 4);
	c.sop_drop_qpn = htobe32(pqpn & 0xffffff);
	c.flags_rqpn = htobe32(q->qpn & 0xffffff);
	if (sw_cq_push(e, pd, pcq, &c, cqe_op, (w->fm_ce_se & MLX5_WQE_CTRL_SOLICITED) != 0) != 0) {
		/* the receive stays posted: the peer's flush completes it */
		p->rq_ci = cnt;
		sw_qp_set_err(p);
		ret = -1;
	}
	sw_unlock(&p->lock);
	if (ret != 0)
		return sw_req_fail(e, q, w, MLX5_CQE_SYNDROME_REMOTE_OP_ERR);
	return SW_DONE;
}

static int
sw_req_done(struct sw_engine *e, struct sw_lqp *q, const struct sw_wqe *w, uint32_t bytes)
{
	struct mlx5_cqe64 c;

	q->sq_ci = w->pos + w->wqebbs;
	q->rnr_active = false;
	q->ack_active = false;
	if (!(w->fm_ce_se & MLX5_WQE_CTRL_CQ_UPDATE))
		return SW_DONE; /* unsignaled: no CQE */
	memset(&c, 0, sizeof(c));
	c.wqe_counter = htobe16((uint16_t)w->idx);
	c.sop_drop_qpn = htobe32((uint32_t)w->opcode << 24 | q->qpn);
	c.byte_cnt = htobe32(bytes);
	if (sw_cq_push(e, e->self, q->scq, &c, MLX5_CQE_REQ, false) != 0) {
		/* overrun (or CQ unusable): the QP goes to error and the WQE
		 * stays at the head, so the flush still completes it (0x05)
		 * once the CQ has room -- never a lost completion */
		q->sq_ci = w->pos;
		sw_qp_set_err(q->s);
		sw_stat(&e->errors, 1);
		return SW_FAIL;
	}
	return SW_DONE;
}

/* Execute the WQE at q->sq_ci; avail = WQEBBs posted from there. */
static int
sw_exec(struct sw_engine *e, struct sw_lqp *q, uint32_t avail)
{
	struct sw_span loc[SW_MAX_SGE], rem;
	struct sw_wqe w;
	const struct mlx5_wqe_ctrl_seg *ctrl = (const struct mlx5_wqe_ctrl_seg *)(void *)w.b;
	const struct mlx5_wqe_raddr_seg *ra =
		(const struct mlx5_wqe_raddr_seg *)(void *)(w.b + 16);
	const char *what = "malformed WQE";
	uint32_t v, nl, need, rkey;
	uint64_t total, raddr;
	uint8_t synd;
	int rc;

	w.pos = q->sq_ci;
	sw_ring_read(q, w.pos, w.b, 16);
	v = be32toh(ctrl->opmod_idx_opcode);
	w.opcode = (uint8_t)v;
	w.idx = (v >> 8) & 0xffff;
	w.opmod = (uint8_t)(v >> 24);
	v = be32toh(ctrl->qpn_ds);
	w.ds = v & 0x3f;
	w.qpn = v >> 8;
	w.fm_ce_se = ctrl->fm_ce_se;
	memcpy(&w.imm_raw, &ctrl->imm, 4);
	w.wqebbs = w.ds == 0 ? 1 : (w.ds + 3) / 4;
	if (w.ds == 0 || w.wqebbs > q->max_wqebbs || w.wqebbs > avail) {
		w.wqebbs = 1;
		return sw_malformed(e, q, &w, "DS out of range", w.ds, q->max_wqebbs * 4);
	}
	if (w.idx != (w.pos & 0xffff))
		return sw_malformed(e, q, &w, "idx is not the producer counter", w.idx,
				    w.pos & 0xffff);
	if (w.qpn != q->qpn)
		return sw_malformed(e, q, &w, "qpn", w.qpn, q->qpn);
	/* opmod is only used by masked atomics and UMR, which RC here never
	 * posts; the signature byte is 0 without MLX5_QP_SIGNATURE */
	if (w.opmod != 0 || ctrl->signature != 0)
		return sw_malformed(e, q, &w, "opmod/signature not 0", w.opmod,
				    ctrl->signature);
	sw_ring_read(q, w.pos, w.b, w.ds * 16);
	if (!q->rnr_active && !q->ack_active) { /* first attempt, not a retry */
		sw_stat(&e->wqes, 1);
		sw_peer_check_pid(e, q);
		if (q->fail_nth != 0 && --q->fail_nth == 0)
			return sw_req_fail(e, q, &w, q->fail_syndrome);
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

/* In ERR: one flush CQE per posted WQE, SQ then RQ; pauses on a full CQ. */
static int
sw_flush(struct sw_engine *e, struct sw_lqp *q)
{
	uint32_t db = be32toh(__atomic_load_n(&q->dbrec[MLX5_SND_DBR], __ATOMIC_ACQUIRE)) & 0xffff;
	struct sw_qp_shm *s = q->s;
	uint32_t ci;
	int n = 0;

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
		if (sw_push_err(e, e->self, q->scq, MLX5_CQE_REQ_ERR,
				MLX5_CQE_SYNDROME_WR_FLUSH_ERR, 0, q->sq_ci & 0xffff,
				(uint8_t)be32toh(c.opmod_idx_opcode), q->qpn) != 0)
			break;
		q->sq_ci += wqebbs;
		sw_stat(&e->flushes, 1);
		n++;
	}
	q->armed = false;
	if (q->rq_wqe_cnt == 0)
		return n;
	if (sw_lock_timed(&s->lock) != 0) {
		sw_device_error(e, q, "RQ lock not obtained (flush retried later)", 0, 0);
		return n;
	}
	db = be32toh(__atomic_load_n(&q->dbrec[MLX5_RCV_DBR], __ATOMIC_ACQUIRE)) & 0xffff;
	ci = SW_LOAD(s->rq_ci);
	if (((db - ci) & 0xffff) > q->rq_wqe_cnt) {
		/* a doorbell record (or consumer counter) beyond the ring */
		sw_device_error(e, q, "RQ doorbell record beyond the ring", db, ci & 0xffff);
		s->rq_ci = db;
		sw_unlock(&s->lock);
		return n;
	}
	while ((ci & 0xffff) != db) {
		if (sw_push_err(e, e->self, q->rcq, MLX5_CQE_RESP_ERR,
				MLX5_CQE_SYNDROME_WR_FLUSH_ERR, 0, ci & 0xffff, 0,
				q->qpn) != 0)
			break;
		s->rq_ci = ++ci;
		sw_stat(&e->flushes, 1);
		n++;
	}
	sw_unlock(&s->lock);
	return n;
}

static int
sw_qp_progress(struct sw_engine *e, struct sw_lqp *q)
{
	uint32_t state, db;
	int n = 0;

	/* Cheap look first (no atomic RMW): nothing rung, nothing pending,
	 * not in error -> nothing to do. A stale view only delays to the next
	 * call. */
	if (!q->armed && !sw_bf_pending(q) &&
	    __atomic_load_n(&q->s->state, __ATOMIC_RELAXED) != RDX_SW_QPS_ERR)
		return 0;
	if (__atomic_exchange_n(&q->busy, 1, __ATOMIC_ACQUIRE) != 0)
		return 0;
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
			if ((q->rnr_active || q->ack_active) && sw_now_ns() < q->retry_at_ns)
				break;
			rc = sw_exec(e, q, avail);
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
	__atomic_store_n(&q->busy, 0, __ATOMIC_RELEASE);
	return n;
}

/* Remember q as hot (it had work or still waits for its turn). Racing
 * callers may both insert or overwrite each other: the set is a hint, the
 * full walk below is what bounds every QP's delay. */
static void
sw_hot_add(struct sw_engine *e, struct sw_lqp *q)
{
	uint32_t i;

	for (i = 0; i < SW_HOT; i++)
		if (__atomic_load_n(&e->hot[i], __ATOMIC_RELAXED) == q)
			return;
	i = __atomic_load_n(&e->hot_next, __ATOMIC_RELAXED);
	__atomic_store_n(&e->hot[i % SW_HOT], q, __ATOMIC_RELAXED);
	__atomic_store_n(&e->hot_next, (i + 1) % SW_HOT, __ATOMIC_RELAXED);
}

int
sw_engine_progress(struct sw_engine *e)
{
	uint32_t i, n, calls;
	int work = 0;

	if (__atomic_load_n(&e->draining, __ATOMIC_ACQUIRE) != 0)
		return 0;
	if (__builtin_expect(__atomic_load_n(&e->self->truncated, __ATOMIC_RELAXED) != 0, 0) &&
	    !__atomic_exchange_n(&e->self_lost, true, __ATOMIC_RELAXED)) {
		sw_stat(&e->device_errors, 1);
		SW_LOG(ERR, "device error: segment %s was truncated by another process: its content past the cut is lost\n",
		       e->self->name);
	}
	__atomic_fetch_add(&e->inflight, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&e->draining, __ATOMIC_SEQ_CST) != 0) {
		__atomic_fetch_sub(&e->inflight, 1, __ATOMIC_RELEASE);
		return 0;
	}
	/* A real NIC is told which QP rang; the model finds out by looking.
	 * The hot set first: if it yields work, the other QPs wait, at most
	 * SW_FULL_EVERY calls (the counter is a racy hint: concurrent pollers
	 * only make the full walk come sooner or a little later). */
	calls = __atomic_load_n(&e->calls, __ATOMIC_RELAXED) + 1;
	__atomic_store_n(&e->calls, calls, __ATOMIC_RELAXED);
	if ((calls & (SW_FULL_EVERY - 1)) != 0) {
		for (i = 0; i < SW_HOT; i++) {
			struct sw_lqp *q = __atomic_load_n(&e->hot[i], __ATOMIC_RELAXED);

			if (q != NULL)
				work += sw_qp_progress(e, q);
		}
		if (work != 0)
			goto out;
	}
	/* live QPs only: a destroy waits for this call to end, a create
	 * appends past n */
	n = __atomic_load_n(&e->nb_active, __ATOMIC_ACQUIRE);
	for (i = 0; i < n; i++) {
		struct sw_lqp *q = __atomic_load_n(&e->active[i], __ATOMIC_RELAXED);
		int w;

		if (q == NULL)
			continue;
		w = sw_qp_progress(e, q);
		work += w;
		if (w != 0 || __atomic_load_n(&q->armed, __ATOMIC_RELAXED))
			sw_hot_add(e, q);
	}
out:
	__atomic_fetch_sub(&e->inflight, 1, __ATOMIC_RELEASE);
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
	pthread_mutex_destroy(&e->lock);
}

void
sw_engine_stats(struct sw_engine *e, struct rdx_sw_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->doorbells = __atomic_load_n(&e->doorbells, __ATOMIC_RELAXED);
	st->bf_copies = __atomic_load_n(&e->bf_copies, __ATOMIC_RELAXED);
	st->wqes = __atomic_load_n(&e->wqes, __ATOMIC_RELAXED);
	st->rnr_naks = __atomic_load_n(&e->rnr_naks, __ATOMIC_RELAXED);
	st->retries = __atomic_load_n(&e->retries, __ATOMIC_RELAXED);
	st->errors = __atomic_load_n(&e->errors, __ATOMIC_RELAXED);
	st->flushes = __atomic_load_n(&e->flushes, __ATOMIC_RELAXED);
	st->device_errors = __atomic_load_n(&e->device_errors, __ATOMIC_RELAXED);
	st->cqes = __atomic_load_n(&e->self->hdr->cqes, __ATOMIC_RELAXED);
	st->cq_overruns = __atomic_load_n(&e->self->hdr->cq_overruns, __ATOMIC_RELAXED);
	st->recv_wqes = __atomic_load_n(&e->self->hdr->recv_wqes, __ATOMIC_RELAXED);
}
