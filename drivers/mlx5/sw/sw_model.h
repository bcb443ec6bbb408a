/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal: the software mlx5 device model. One shared-memory segment per
 * device ("domain") holds the MR table, CQs, QPs (rings, doorbell records,
 * BlueFlame areas), device memory and the buffers of rdx_dev_mem_alloc, all
 * addressed by offsets so a peer process can map the segment and reach
 * them. The engine (sw_engine_progress) reads WQEs from the SQ rings when
 * doorbells arrive and writes CQEs, exactly like the NIC would.
 *
 * Not fork-safe: a child must open its own device.
 */
#ifndef SW_MODEL_H
#define SW_MODEL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include <infiniband/mlx5dv.h>
#include <rte_config.h>
#include <rte_log.h>

#include "rdx_sw.h"

/* The software device's messages: log type rdx.drv.sw (sw_engine.c). */
extern int rdx_sw_logtype;
#define SW_LOG(level, ...) \
	rte_log((uint32_t)RTE_LOG_ ## level, (uint32_t)rdx_sw_logtype, "rdx_sw: " __VA_ARGS__)

#define SW_MAGIC         0x72647873772d3035ULL /* "rdxsw-05": 4096 QPs and CQs, UD, lines apart, pid locks */
/* Shared objects written by different agents (a peer engine, the owner's
 * engine, the owner's datapath) keep those writes on cache lines of their
 * own, so a line crosses cores only when its content is news (what a
 * peer must read), never because another agent wrote beside it. */
#define SW_LINE          64
/* Object tables live in the segment header (about 2 MiB with these, written
 * when the device opens); a QP takes 3 allocations (rings, doorbell record,
 * BlueFlame) and each buffer of rdx_dev_mem_alloc one allocation and one MR. */
#define SW_MAX_ALLOC     20480
#define SW_MAX_MR        8192
#define SW_MAX_CQ        4096
#define SW_MAX_QP        4096
#define SW_QPN_BASE      0x100
#define SW_BF_SIZE       256        /* one BlueFlame half */
/* the QPN bytes (ctrl bytes 4..6) of a doorbell word loaded as a host uint64_t */
#define SW_BF_QPN_MASK   0x00ffffff00000000ULL
#define SW_MAX_WQE_BYTES 512        /* max_sq_desc_sz of a ConnectX-5 */
#define SW_WQE_OVERHEAD  192        /* rdma-core sq_overhead for RC with MW */
#define SW_UD_WQE_OVERHEAD 64       /* rdma-core sq_overhead for UD: ctrl + datagram */
#define SW_MAX_MSG       (1ULL << 30)
#define SW_MAX_QP_WR     32768
#define SW_MAX_SGE       16
#define SW_MAX_CQE       (1U << 22)
#define SW_MAX_DM        (256U << 10)
#define SW_DEFAULT_SHM   (2ULL << 30)
#define SW_NAME_LEN      48
/* UD: the largest message (the port MTU, IBV_MTU_4096), the GRH area at the
 * start of every UD receive buffer, the datagram segment's place in a WQE
 * (ctrl 16 B + 48 B: 4 DS at least), the address routes an engine keeps
 * (one per destination device its AHs name), the delay queue's slots */
#define SW_UD_MTU        4096u
#define SW_UD_GRH        40u
#define SW_UD_DS_MIN     4u
#define SW_MAX_ROUTES    64u
#define SW_UD_DELAY_SLOTS 256u

enum sw_qp_type {
	SW_QPT_RC = 0,
	SW_QPT_UD = 1,
};

enum sw_mr_kind {
	SW_MR_SHM = 1,   /* inside the segment: reachable by peers */
	SW_MR_LOCAL,     /* process memory of owner_pid only */
	SW_MR_DM,        /* device memory: zero-based, inside the segment */
};

struct sw_alloc {
	uint64_t off;
	uint64_t len;
	uint32_t used;
	uint32_t dm;
};

struct sw_mr_shm {
	uint32_t key;        /* 0: free slot */
	uint32_t access;
	uint32_t kind;
	int32_t owner_pid;
	uint64_t iova;
	uint64_t len;
	uint64_t shm_off;    /* SHM, DM: segment offset of iova */
	uint64_t local_addr; /* LOCAL: address in owner_pid */
};

/* Written by the engines producing into the CQ (for a receive CQ: the
 * peers' engines); a line or two of its own, never shared with another CQ. */
struct sw_cq_shm {
	uint32_t lock;            /* sw_qlock: serializes CQE production (any engine) */
	uint32_t in_use;
	uint32_t cqe_cnt;
	uint32_t log_cqe_cnt;
	uint32_t pi;              /* producer counter */
	uint64_t buf_off;
	uint64_t dbrec_off;
	uint32_t seq;             /* futex word: bumped per CQE */
	uint32_t waiters;
	uint32_t full;            /* last write was refused */
	uint32_t ci_seen;         /* producers: a consumer counter read from the
				   * doorbell record (it only grows: room below
				   * it needs no new read of that record) */
	uint64_t overruns;
	uint64_t cqes;
} __attribute__((aligned(SW_LINE)));

/*
 * A doorbell (BlueFlame) register: the two halves the datapath writes, as
 * on a UAR page, then words that are the model's only (a NIC has no such
 * thing): sw_dev's post wrapper records in them who posts (see sw_obj.c,
 * "Doorbell registers"). QPs naming one posting lcore share a register.
 */
struct sw_bf_shm {
	uint8_t half[2][SW_BF_SIZE];
	uint32_t writer;          /* model-only: tid inside a post on it, 0: none */
	uint32_t poster;          /* model-only: tid of the last post on it, 0: none */
	uint32_t lcore;           /* its posting lcore; UINT32_MAX: none named */
	uint64_t wrong_lcore;     /* model-only: posts from another lcore */
	uint64_t overlaps;        /* model-only: posts that met another thread's */
	uint32_t bad_lcore;       /* the last such lcore */
	uint32_t bad_tid;         /* the last thread met inside */
};

/*
 * The first line is the responder's: the lock and the RQ consumer counter,
 * written by the peers' engines on every receive they consume; the rest is
 * written at create/connect (and on errors) and read by everybody, the
 * owner's engine on every progress call (state) -- so a peer's lock does
 * not take that line from the owner's core.
 */
struct sw_qp_shm {
	uint32_t lock;            /* sw_qlock: RQ consumption and state changes */
	/* responder side (any engine, under lock) */
	uint32_t rq_ci;           /* next RQ WQE to consume */
	uint32_t in_use __attribute__((aligned(SW_LINE)));
	uint32_t gen;
	uint32_t qpn;
	uint32_t state;           /* enum rdx_sw_qp_state */
	uint32_t send_cq;         /* CQ slot in the same segment */
	uint32_t recv_cq;
	uint32_t sq_wqe_cnt;      /* WQEBBs */
	uint32_t rq_wqe_cnt;
	uint32_t rq_stride;
	uint32_t max_inline;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_wqebbs;      /* one WQE spans at most this many */
	uint32_t pad0;
	uint64_t rq_off;          /* RQ at offset 0 of the QP buffer, SQ after */
	uint64_t sq_off;
	uint64_t dbrec_off;
	uint64_t bf_off;
	/* connection */
	uint32_t peer_qpn;
	char peer_domain[SW_NAME_LEN];
	uint8_t rnr_retry;
	uint8_t min_rnr_timer;
	uint8_t retry_cnt;
	uint8_t timeout;
	uint32_t pad1;
	/* type and Q_Key: fixed at create (written before in_use is seen by
	 * peers' connects and routes) */
	uint32_t type;            /* enum sw_qp_type */
	uint32_t qkey;            /* UD */
	/* UD receive counters, bumped by any engine that delivers here (atomic) */
	uint64_t ud_recv;
	uint64_t ud_drop_no_recv;
	uint64_t ud_drop_qkey;
	uint64_t ud_recv_len_err;
} __attribute__((aligned(SW_LINE)));

/* What happened to a device's CQs and RQs (sw_ctr). */
struct sw_hdr_ctr {
	uint64_t cqes;            /* CQEs written into this device's CQs */
	uint64_t cq_overruns;
	uint64_t recv_wqes;       /* RQ WQEs consumed */
};

struct sw_shm_hdr {
	uint64_t magic;
	uint64_t size;
	int32_t owner_pid;
	uint32_t closed;
	pthread_mutex_t lock;     /* allocator and object tables */
	uint64_t brk;
	uint64_t dm_used;
	uint32_t mr_gen;
	uint32_t qp_gen;
	/* what the peers' engines did to this device's CQs and RQs, on a line
	 * of its own (not the line of closed above); the owner's engine counts
	 * its own per lcore (sw_engine.lc): sw_engine_stats adds them */
	struct sw_hdr_ctr peer_ctr __attribute__((aligned(SW_LINE)));
	uint8_t pad_ctr[SW_LINE - sizeof(struct sw_hdr_ctr)];
	struct sw_alloc allocs[SW_MAX_ALLOC];
	struct sw_mr_shm mrs[SW_MAX_MR];
	struct sw_cq_shm cqs[SW_MAX_CQ];
	struct sw_qp_shm qps[SW_MAX_QP];
};

/* Process-local copy of the MR table of a segment this process owns: the
 * translations the engine trusts (any process mapping the segment can
 * rewrite the shared table). Shared by the owner's domain and this
 * process's other mappings of it (refcounted). */
struct sw_mr_shadow {
	uint32_t refs;
	struct sw_mr_shm mrs[SW_MAX_MR];
};

/* A mapped segment (own or a peer's). */
struct sw_domain {
	char name[SW_NAME_LEN];
	uint8_t *base;
	size_t size;
	struct sw_shm_hdr *hdr;
	int fd;                   /* owner: kept to reserve pages (fallocate) */
	bool owner;
	int refs;
	struct sw_domain *next;
	/* owned by this process (own device or another device of this
	 * process): the trusted MR table; NULL for other processes' segments */
	struct sw_mr_shadow *shadow;	/* set by the SIGBUS guard: another process truncated the segment;
	 * zero pages stand in for the lost part (see sw_shm.c) */
	uint32_t truncated;
	/* its device's GID (sw_gid_from_name: fe80::/64, pid, sequence) */
	uint8_t gid[16];
};

struct sw_engine;
struct sw_lqp;

/* Process-local handle of a register: the engine's view of it. */
struct sw_bfreg {
	struct sw_bf_shm *r;
	uint64_t off;             /* segment offset of r */
	uint32_t post_lcore;      /* rdx_qp_conf.post_lcore; 0: one QP's own */
	uint32_t refs;            /* QPs on it */
	struct sw_lqp *qps;       /* those QPs (sw_lqp.reg_next) */
	struct sw_bfreg *next;    /* sw_engine.regs */
	/* consumer state (one progress call at a time: busy) */
	uint32_t busy;
	uint32_t half_next;       /* the half the next ring should use */
	bool half_known;          /* false after a look that cannot tell */
	bool raced;               /* the last look may have raced the poster */
	uint32_t sweep;           /* bumped when a ring may have been lost */
	uint64_t wrong_seen;      /* r->wrong_lcore already reported */
	uint64_t overlaps_seen;
	void *dp;                 /* sw_dev: the datapath's rdx_mlx5_bfreg (under lock) */
};

/* Hot set size and the bound, in progress calls, on how long a QP outside
 * it waits while the hot set keeps finding work (power of two). */
#define SW_HOT 8
#define SW_FULL_EVERY 64u

/*
 * Per-lcore engine state: what a progress call writes on every call (its
 * in-flight mark, call count, hot set) and the counters, one slot per EAL
 * lcore plus one (SW_LC_ANY) shared by threads that are not EAL lcores
 * (thread mode's engine thread, test threads: atomics there keep it
 * right). Two lcores polling their own QPs so share no written line.
 */
#define SW_LC_ANY   RTE_MAX_LCORE
#define SW_LC_SLOTS (RTE_MAX_LCORE + 1)
#define SW_HOME_NONE UINT32_MAX

struct sw_lc {
	/* a line of padding on each side: the engine is malloc'ed (not
	 * line-aligned), so no two slots' fields ever share a line */
	uint8_t pad_lo[SW_LINE];
	uint32_t inflight;             /* progress calls of this slot running */
	uint32_t calls;                /* its progress calls (racy hint) */
	uint32_t hot_next;             /* round-robin replacement cursor */
	uint32_t hot_n;                /* slots of hot[] ever filled (only grows) */
	/* inline progress's idle skip (sw_dev_qp.c), an EAL lcore's slot only
	 * (each written by its own thread): sends posted from this lcore, and
	 * as the last progress call of the slot left them: quiet (every live
	 * QP looked at, none with anything left to do: 1; 2 once a call was
	 * skipped on it) */
	uint32_t posts;
	uint32_t quiet_posts;
	uint32_t quiet;
	uint32_t pad_skip;
	struct sw_lqp *hot[SW_HOT];
	/* counters (atomics) */
	uint64_t doorbells, bf_copies, wqes, rnr_naks, retries, errors, flushes;
	struct sw_hdr_ctr own;         /* into this device's own CQs and RQs */
	uint8_t pad_hi[256 - SW_LINE - 32 - SW_HOT * 8 - 7 * 8 - sizeof(struct sw_hdr_ctr)];
};

/* Process-local handle of one of our QPs; the engine's view of it. */
struct sw_lqp {
	struct sw_qp_shm *s;
	uint32_t slot;
	/* the lcore slot (sw_engine.lc) whose progress calls execute it: the
	 * others leave it alone while that lcore keeps polling (written only
	 * when it changes: this line is otherwise read-only after create) */
	uint32_t home;
	uint8_t *sq_buf;
	uint8_t *rq_buf;
	volatile __be32 *dbrec;
	uint8_t *bf;              /* reg->r->half[0] */
	struct sw_bfreg *reg;     /* its doorbell register */
	struct sw_lqp *reg_next;  /* next QP on reg */
	uint32_t arms;            /* doorbells for it found on reg (atomic) */
	uint32_t arms_seen;       /* of which folded into armed */
	uint32_t sweep_seen;      /* reg->sweep folded into armed */
	/* a doorbell word (ctrl bytes 0..7, host load) names it when its QPN
	 * bytes, bf_mask of it, equal bf_key's: on a shared register a QP's
	 * cheap look leaves the other QPs' rings to them (bf_mask 0 on a
	 * register of its own: any ring is its) */
	uint64_t bf_key;
	uint64_t bf_mask;
	struct sw_cq_shm *scq;
	struct sw_cq_shm *rcq;
	uint32_t act;             /* index in sw_engine.active[] */
	/* requester engine state (owner process only) */
	uint32_t sq_ci;           /* next WQEBB to execute */
	bool armed;               /* a doorbell asked for execution */
	uint32_t busy;            /* engine exclusion (inline mode, many pollers) */
	bool rnr_active;          /* head WQE waits after an RNR NAK */
	bool cqe_owed;            /* head WQE done, its CQE waits for the CQ's lock */
	uint32_t owed_bytes;      /* that CQE's byte count */
	/* head WQE waits for a shared lock a live holder keeps (sw_lock_busy):
	 * retried at retry_at_ns, the wait doubling up to SW_LOCK_RETRY_MAX_NS */
	bool lock_wait;
	bool lock_logged;         /* that wait passed SW_LOCK_SLOW_NS (logged) */
	uint8_t lock_tries;
	uint8_t owed_synd;        /* failed head WQE: the syndrome its flush CQE keeps */
	uint8_t ud_todo;          /* UD head WQE: deliveries left (duplication) */
	bool ud_todo_delay;       /* ... each through the delay queue */
	uint64_t lock_since_ns;   /* when that wait began */
	/* head WQE's responder CQE, owed (its receive consumed at the peer,
	 * the peer's receive CQ's lock busy): written before anything else */
	bool resp_owed;
	bool resp_se;
	uint8_t resp_op;
	uint32_t resp_rq;         /* the receive's RQ counter */
	struct sw_cq_shm *resp_cq;
	struct mlx5_cqe64 resp_cqe;
	bool ack_active;          /* head WQE waits for a missing ACK */
	uint8_t ack_left;
	uint8_t rnr_left;
	uint64_t retry_at_ns;       /* when the head WQE may be retried */
	uint32_t fail_nth;
	uint8_t fail_syndrome;
	bool peer_vanished;
	uint64_t peer_checked_ns;  /* last liveness check of the peer's process */
	uint32_t peer_check_cnt;   /* requests since that check */
	bool flushed_rq_logged;
	/* peer */
	struct sw_domain *peer_dom;
	struct sw_qp_shm *peer;
	uint32_t peer_gen;
	/* the peer's RQ doorbell record as last read (RC responder): receives
	 * below it are posted and stay so, so it is read again only when they
	 * run out (or it is not valid: peer_rq_head_ok false) */
	uint32_t peer_rq_head;
	bool peer_rq_head_ok;
	/* the peer's posted receive WQEs of the line last read (strides of 16
	 * and 32 bytes): copies of WQEs prq_first .. prq_first + prq_n - 1 (RQ
	 * counters). A posted receive does not change until it is consumed,
	 * and the peer reposting into that line would otherwise take it back
	 * from us on every message */
	uint32_t prq_first, prq_n, prq_stride;
	uint8_t prq_buf[64];
	/* this QP's geometry, process-local and fixed at create: the engine
	 * reads these, never the shared copy in s (a peer mapping the
	 * segment can rewrite it) */
	uint32_t qpn;
	uint32_t sq_wqe_cnt;
	uint32_t rq_wqe_cnt;
	uint32_t path_mtu;        /* RC: bytes, from connect (0: the port's); timing only */
	uint32_t max_inline;
	uint32_t max_send_sge;
	uint32_t max_wqebbs;
	uint64_t buf_off;         /* allocations freed by destroy */
	uint64_t db_off;
	/* UD (process-local copies; counters owner engine only) */
	uint32_t type;            /* enum sw_qp_type */
	uint32_t qkey;
	uint64_t rng;             /* injection: this QP's random stream */
	uint64_t ud_sent, ud_too_long, ud_drop_dest;
	uint64_t ud_inject_drop, ud_inject_dup, ud_inject_delay;
	/* written by other lcores' full walks (sw_home_ok): kept off the
	 * lines the home lcore reads on every call */
	uint64_t home_seen;       /* home << 32 | its calls, when last looked at */
};

/* A destination device an engine's AHs name (sw_route_get). The engine
 * finds it from a WQE's address vector: rlid - 1 is the slot (a hint),
 * rgid must equal gid; never from the AH object. */
struct sw_route {
	uint8_t gid[16];
	struct sw_domain *dom;    /* NULL: free slot */
	uint32_t refs;            /* AHs naming it */
};

/* Loss/duplication/delay injection for UD SENDs (devargs ud_*, seed). */
struct sw_ud_inject {
	uint64_t drop_thr;        /* drop with probability drop_thr / 2^64 */
	uint64_t dup_thr;
	uint64_t delay_thr;
	uint32_t drop_every;      /* drop every n-th datagram of a QP (0: off) */
	uint32_t delay_us;        /* 0: no delay */
	uint64_t seed;
	bool on;                  /* any of the above */
};

/* A datagram on its way: decoded address vector and payload. */
struct sw_ud_pkt {
	struct sw_domain *dom;    /* destination device (a route's) */
	struct sw_lqp *src;       /* sender (NULL: destroyed since; delayed) */
	uint32_t src_qpn;
	uint32_t dqpn;
	uint32_t qkey;
	uint32_t flow;            /* GRH flow label */
	uint8_t sl, tclass, hop_limit;
	uint8_t opcode;           /* MLX5_OPCODE_SEND or _SEND_IMM */
	bool se;
	uint32_t imm_raw;
	uint32_t len;
	uint8_t dgid[16];
	uint64_t due_ns;          /* delayed: when it arrives */
};

/* The delay queue (FIFO: every delayed datagram waits the same time). */
struct sw_ud_delayq {
	uint32_t lock;            /* spin: producers are any engine's QPs */
	uint32_t busy;            /* one drainer at a time */
	uint32_t head, tail;      /* free-running */
	struct sw_ud_pkt pkt[SW_UD_DELAY_SLOTS];
	uint8_t (*buf)[SW_UD_MTU];
};

struct sw_engine {
	struct sw_domain *self;
	struct sw_domain *peers;       /* mapped peer segments (refcounted) */
	pthread_mutex_t lock;          /* control path: tables below, peers */
	struct sw_lqp *qps[SW_MAX_QP]; /* published with release stores */
	uint32_t nb_slots;             /* high-water mark of qps[] */
	/* the live QPs, dense: progress walks these only. Appended under
	 * lock (release store of nb_active); removed while draining. */
	struct sw_lqp *active[SW_MAX_QP];
	uint32_t nb_active;
	struct sw_bfreg *regs;         /* doorbell registers (under lock) */
	uint32_t draining;             /* destroys waiting for inflight == 0 */
	pid_t pid;
	/* thread mode */
	bool thread_mode;
	bool thread_run;
	pthread_t thread;
	/* counters (atomics; the per-WQE ones are per lcore, in lc[]) */
	uint64_t device_errors;
	uint32_t slow_lock_logs;       /* waits past SW_LOCK_SLOW_NS logged */
	/* UD: routes (control path writes under lock while no progress call
	 * runs: draining), injection, the delay queue (NULL: no delay knob),
	 * counters of datagrams whose sender is gone, sums of destroyed QPs */
	struct sw_route routes[SW_MAX_ROUTES];
	struct sw_ud_inject inj;
	struct sw_ud_delayq *delayq;
	uint64_t ud_orphan_drop_dest;
	struct rdx_sw_ud_stats ud_gone;
	/* CQ allocations, process-local (destroy frees these, never offsets
	 * read back from shared memory) */
	uint64_t cq_off[SW_MAX_CQ][2];
	bool self_lost;                /* own segment truncation reported */
	/* hot set: QPs that recently had work, looked at first by every
	 * progress call of an lcore (each its own); the full walk of active[]
	 * runs when they yield nothing or every SW_FULL_EVERY-th call. Written
	 * by progress calls (relaxed pointer stores), cleared of a QP by its
	 * destroy while no progress call runs. */
	struct sw_lc lc[SW_LC_SLOTS];
	/* devargs timing=<profile> (sw_timing.c); NULL: off, the hot path's
	 * only look at it is one predictable branch per WQE */
	struct sw_timing *timing;
};

/* sw_timing.c: the timing layer (timing/sw_timing.h). */
struct sw_timing;
int sw_timing_open(struct sw_engine *e, const char *name, struct sw_timing **out);
void sw_timing_close(struct sw_engine *e, struct sw_timing *t);
const char *sw_timing_name(const struct sw_timing *t);
void sw_timing_stats(const struct sw_timing *t, uint64_t *wqes, uint64_t *busy_ns, uint64_t *late,
		     uint64_t *unheld, uint64_t *span_ns, uint64_t *port_busy_ns);
/* q's head WQE (SQ doorbell record db) waits for its modelled data time. */
bool sw_timing_hold(struct sw_timing *t, const struct sw_lqp *q, uint32_t db);
/* q is destroyed (no progress call runs): drop its deadlines and its
 * listed CQEs. */
void sw_timing_qp_forget(struct sw_timing *t, const struct sw_lqp *q);
/*
 * The release list: a requester CQE whose WQE was executed before its
 * modelled CQE time waits on it (q's SQ moves on), and is written once its
 * time has come, in due-time order, in order per QP (sw_req_release,
 * sw_cq.c, the only writer).
 */
struct sw_tm_cqe {
	struct sw_lqp *q;
	uint32_t bytes;
	uint16_t idx;
	uint8_t opcode;
};
/* The CQE of q's WQE at WQEBB pos: true when listed (written later);
 * false when it is to be written now (its time has come, none of q's
 * before it is listed, or no memory to list it). */
bool sw_timing_cqe_list(struct sw_timing *t, struct sw_lqp *q, uint32_t pos,
			const struct sw_tm_cqe *c);
/* CQEs are listed (a relaxed look: the progress call's test). */
bool sw_timing_listed(const struct sw_timing *t);
/* A pass over the list: only == NULL takes the CQEs whose time has come
 * (false: nothing listed or another caller is at it); only != NULL takes
 * all of only's, in order, due or not (a flush; waits for the list). */
bool sw_timing_rel_begin(struct sw_timing *t, const struct sw_lqp *only);
/* The next CQE of the pass in *c; false at its end. */
bool sw_timing_rel_next(struct sw_timing *t, const struct sw_lqp *only, struct sw_tm_cqe *c);
/* The last CQE rel_next gave was written (done) or not (stays listed, and
 * the pass leaves its QP's later CQEs alone). */
void sw_timing_rel_result(struct sw_timing *t, bool done);
void sw_timing_rel_end(struct sw_timing *t);

/* Robust process-shared mutexes in the segment. */
int sw_mutex_init_shared(pthread_mutex_t *m);
void sw_lock(pthread_mutex_t *m);
void sw_unlock(pthread_mutex_t *m);
/*
 * The lock of a QP's responder side or of a CQ's producer side, in a
 * segment that any process connected to it maps: a 32-bit word holding the
 * holder's pid, 0 when free; taken with one compare-and-swap, dropped with
 * one release store (a robust pthread mutex cost ~165 instructions a
 * lock/unlock pair, 4 pairs per echo).
 *
 * A live holder (a descheduled or stopped process, another thread of this
 * one) is no fault: the waiter spins, then yields the CPU (the holder may
 * be waiting for it) and looks again, for up to wait_ns; then it returns
 * -EBUSY and the caller comes back later. Nothing fails because a peer is
 * slow: a NIC never fails a completion because a process was preempted.
 * A holder whose process is gone (kill(pid, 0) says ESRCH; any value that
 * is no pid counts as gone) is taken over, the protected state as it left
 * it: *dead is then that holder's word, so that the caller reports the
 * fault (the holder died inside an update). A live pid written into the
 * word by a hostile peer looks like a stopped holder: the work that needs
 * that lock waits, nothing else does.
 * @return 0 (locked), -EBUSY (a live holder kept it for wait_ns).
 */
int sw_qlock_wait(uint32_t *l, uint32_t pid, uint64_t wait_ns, uint32_t *dead);

/* The datapath's wait for one attempt: long enough for a holder that runs
 * (a critical section is well under a microsecond) and for one yield of
 * the CPU; then the work that needs the lock is retried later. */
#define SW_LOCK_TRY_NS 20000ULL
/* The control path's (connect, destroy, UD ready): then it goes ahead
 * without the lock (destroy, connect: one atomic store each) or fails. */
#define SW_LOCK_CTL_MS 100

/* Datapath: 0 (locked; *dead: see sw_qlock_wait) or -EBUSY. */
static inline int
sw_qlock_try(uint32_t *l, pid_t pid, uint32_t *dead)
{
	uint32_t free_ = 0;

	if (__atomic_compare_exchange_n(l, &free_, (uint32_t)pid, false, __ATOMIC_ACQUIRE,
					__ATOMIC_RELAXED))
		return 0;
	return sw_qlock_wait(l, (uint32_t)pid, SW_LOCK_TRY_NS, dead);
}

/* Control path: 0 (locked) or -EBUSY after SW_LOCK_CTL_MS. */
static inline int
sw_qlock(uint32_t *l, pid_t pid)
{
	uint32_t free_ = 0, dead = 0;

	if (__atomic_compare_exchange_n(l, &free_, (uint32_t)pid, false, __ATOMIC_ACQUIRE,
					__ATOMIC_RELAXED))
		return 0;
	return sw_qlock_wait(l, (uint32_t)pid, SW_LOCK_CTL_MS * 1000000ULL, &dead);
}

static inline void
sw_qunlock(uint32_t *l)
{
	__atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

/* Segment life cycle. */
struct sw_domain *sw_domain_create(void);
struct sw_domain *sw_domain_map(const char *name);
void sw_domain_unmap(struct sw_domain *d);
void sw_domain_destroy(struct sw_domain *d);
/* Segment allocator (control path). @return offset or 0 with rte_errno. */
uint64_t sw_shm_alloc(struct sw_domain *d, uint64_t len, bool dm);
void sw_shm_free(struct sw_domain *d, uint64_t off);

/* Memory regions. @return key or 0 with rte_errno. */
uint32_t sw_mr_add(struct sw_domain *d, enum sw_mr_kind kind, uint64_t iova,
		   uint64_t len, uint64_t shm_off, uint64_t local_addr, int access,
		   pid_t pid);
int sw_mr_del(struct sw_domain *d, uint32_t key);

/* Engine. */
int sw_engine_init(struct sw_engine *e);
void sw_engine_fini(struct sw_engine *e);
int sw_engine_start_thread(struct sw_engine *e);
void sw_engine_stop_thread(struct sw_engine *e);
int sw_engine_progress(struct sw_engine *e);
/* After draining was raised: wait until no progress call runs. */
void sw_engine_quiesce(struct sw_engine *e);

/* CQs: slot or -errno; fills dv. */
int sw_cq_create(struct sw_engine *e, uint32_t depth, struct mlx5dv_cq *dv);
void sw_cq_destroy(struct sw_engine *e, int slot);
bool sw_cq_has_cqe(struct sw_engine *e, int slot, uint32_t ci);

/* QPs. */
struct sw_qp_params {
	uint32_t sq_depth, rq_depth, max_send_sge, max_recv_sge, max_inline;
	uint32_t type, qkey;      /* enum sw_qp_type; UD: the Q_Key */
	int send_cq, recv_cq;
	uint32_t post_lcore;      /* rdx_qp_conf.post_lcore: shares its register */
};
/* max_inline and WQE size as rdma-core's mlx5_calc_send_wqe would give. */
int sw_calc_send_wqe(uint32_t max_send_sge, uint32_t max_inline,
		     uint32_t *wqe_size, uint32_t *granted_inline);
/* The same with the QP type's overhead (SW_WQE_OVERHEAD, SW_UD_WQE_OVERHEAD). */
int sw_calc_wqe(uint32_t overhead, uint32_t max_send_sge, uint32_t max_inline,
		uint32_t *wqe_size, uint32_t *granted_inline);
struct sw_lqp *sw_qp_create(struct sw_engine *e, const struct sw_qp_params *p,
			    struct mlx5dv_qp *dv);
void sw_qp_destroy(struct sw_engine *e, struct sw_lqp *q);
int sw_qp_connect(struct sw_engine *e, struct sw_lqp *q, const char *peer_domain,
		  uint32_t peer_qpn, uint8_t rnr_retry, uint8_t min_rnr_timer,
		  uint8_t retry_cnt, uint8_t timeout);
/* UD QP: RESET -> RTS (no peer). */
int sw_qp_ud_ready(struct sw_engine *e, struct sw_lqp *q);
void sw_engine_stats(struct sw_engine *e, struct rdx_sw_stats *st);
/* One UD QP's datagram counters (zeros for another type); inline: the
 * engine and the driver read them, neither owns them. */
static inline void
sw_qp_ud_stats(const struct sw_lqp *q, struct rdx_sw_ud_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (q->type != SW_QPT_UD)
		return;
	st->sent = __atomic_load_n(&q->ud_sent, __ATOMIC_RELAXED);
	st->too_long = __atomic_load_n(&q->ud_too_long, __ATOMIC_RELAXED);
	st->drop_dest = __atomic_load_n(&q->ud_drop_dest, __ATOMIC_RELAXED);
	st->inject_drop = __atomic_load_n(&q->ud_inject_drop, __ATOMIC_RELAXED);
	st->inject_dup = __atomic_load_n(&q->ud_inject_dup, __ATOMIC_RELAXED);
	st->inject_delay = __atomic_load_n(&q->ud_inject_delay, __ATOMIC_RELAXED);
	st->recv = __atomic_load_n(&q->s->ud_recv, __ATOMIC_RELAXED);
	st->drop_no_recv = __atomic_load_n(&q->s->ud_drop_no_recv, __ATOMIC_RELAXED);
	st->drop_qkey = __atomic_load_n(&q->s->ud_drop_qkey, __ATOMIC_RELAXED);
	st->recv_len_err = __atomic_load_n(&q->s->ud_recv_len_err, __ATOMIC_RELAXED);
}

/* UD addressing. A sw device's GID: fe80::/64 (link-local), then the
 * segment owner's pid and sequence number (big endian): the segment
 * /rdx-sw-<pid>-<n>. @return 0, or -EINVAL (not a sw device's GID). */
void sw_gid_from_name(const char *name, uint8_t gid[16]);
int sw_gid_to_name(const uint8_t gid[16], char *name, size_t len);
/* A route to the device of gid (maps its segment): slot, or -errno. */
int sw_route_get(struct sw_engine *e, const uint8_t gid[16]);
void sw_route_put(struct sw_engine *e, int slot);
/* Injection: parse the devargs values (NULL: absent); 0 or -EINVAL with
 * one line on stderr. Allocates the delay queue when delay_us > 0. */
int sw_ud_inject_conf(struct sw_engine *e, const char *drop, const char *drop_every,
		      const char *delay_us, const char *delay, const char *dup,
		      const char *seed);

#endif /* SW_MODEL_H */
