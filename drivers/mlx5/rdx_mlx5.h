/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The mlx5 direct datapath: the state it keeps per QP and CQ, and the calls
 * both backends use to hand it their rings. The hardware backend
 * (mlx5_hw.c) gets the rings from mlx5dv_init_obj(); the software device
 * (sw/) builds the same rings in shared memory and fills the same
 * struct mlx5dv_qp / struct mlx5dv_cq. The datapath cannot tell them apart;
 * both run the same bind/unbind step (rdx_mlx5_qp_bind, rdx_mlx5_cq_bind).
 * UD QPs (conf.type RDX_QP_UD): rdx_mlx5_qp_dp_init reads qp->base.conf.type
 * and qp->base.dev->attr.max_ud_msg, sizes WQEs as ctrl + datagram + payload
 * and installs rdx_mlx5_post_burst_ud; UD WRs name a struct rdx_mlx5_ah.
 * A backend that must do work before each poll (the software device in
 * inline-progress mode runs its engine) installs its own poll_burst op,
 * which then calls rdx_mlx5_poll_burst_general: the datapath has no hook.
 *
 * Files: mlx5_wqe.h (WQE encodings, set_*_seg helpers), mlx5_qp.c
 * (posting; its vector runs in mlx5_qp_vec.h), mlx5_cq.c (polling), mlx5_obj.c (sizing, dp_init, bind,
 * xstats), mlx5_qp_xstats.c (one QP's counters).
 *
 * Sizing (both backends must agree, use the helpers below):
 *  - SQ: a WQE is at most rdx_mlx5_sq_wqebb_max(max_inline, max_send_sge)
 *    WQEBBs; the datapath lets at most wqe_cnt / that many WQEs be
 *    outstanding (rdma-core's sq.max_post rule), so a ring of
 *    rdx_mlx5_sq_wqe_cnt(sq_depth, ...) WQEBBs holds sq_depth WRs.
 *  - RQ: stride rdx_mlx5_rq_stride(max_recv_sge), wqe_cnt >= rq_depth.
 *
 * Send completions: rdx_wc.retired counts the WQEs a requester CQE retires
 * (the unsignaled ones before it included); rdx_wc.wr_id is the signaled
 * WQE's. For send-side completions rdx_wc.imm holds an opaque retirement
 * cursor that rdx_mlx5_qp_retired_wr_id() uses to name every retired WR.
 * A good requester CQE (opcode REQ) must name a signaled WQE (CQ_UPDATE
 * set): only those are in the WQEBB->WQE map. Error and flush CQEs may name
 * any outstanding WQE (found by walking the ring). On an error completion
 * the retired - 1 WQEs before the failing one completed successfully.
 * A CQE for a QPN not attached to the CQ gives IBV_WC_GENERAL_ERR with
 * qp_ctx NULL and retired 0. Receive completions retire the oldest
 * outstanding receive (rdma-core cq.c, no SRQ); a responder CQE with none
 * outstanding retires nothing (retired 0, wr_id 0).
 */
#ifndef RDX_MLX5_H
#define RDX_MLX5_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <infiniband/mlx5dv.h>

#include "rdx_dev.h"

struct rdx_mlx5_qp;

/*
 * A BlueFlame/doorbell register (one bfreg of a UAR page) and the half the
 * next ring on it uses. The half belongs to the register, not to a QP:
 * rdma-core keeps bf->offset in struct mlx5_bf and toggles it after every
 * ring of any QP on that bfreg, so two QPs on one register alternate halves
 * between them. QPs of one thread domain share one of these; a QP whose
 * register is its own points at its embedded one (rdx_mlx5_qp.bf_own).
 * Rings on one register must come from one thread at a time (rdma-core's
 * thread-domain contract: no lock is taken).
 */
struct rdx_mlx5_bfreg {
	uint8_t *reg;           /* never NULL: &sink when there is none */
	uint32_t size;          /* one half, bytes (0: a register without halves) */
	uint32_t offset;        /* 0 or size: the half the next ring uses */
	uint32_t copy_max;      /* largest BlueFlame copy: size in whole 64-byte
	                           chunks, or 0 (8-byte doorbells only) */
	bool prefer_bf;         /* copy non-inline WQEs too (MLX5_POST_SEND_PREFER_BF) */
	uint32_t refs;          /* QPs using it (control path) */
	uint64_t sink;          /* takes the doorbells of a QP without a register */
};

/* Per-QP datapath counters (control-path readable; bumped once per burst). */
struct rdx_mlx5_qp_stats {
	/* Doorbell rings (one per non-empty burst) are the sum of the two
	 * (rdx_mlx5_qp_doorbells): each ring bumps one counter. */
	uint64_t db_plain;      /* rings without a BlueFlame copy (8-byte doorbell) */
	uint64_t bf_posts;      /* rings with one */
	uint64_t wqes;          /* WQEs posted */
	uint64_t sq_full;       /* bursts cut short by a full SQ */
	uint64_t bad_wr;        /* bursts cut short by an invalid WR */
	uint64_t recv_doorbells;/* RQ doorbell-record updates */
	uint64_t recvs;         /* RQ WQEs posted */
};

/* Per-QP completion errors, in WRs (the error path bumps them; the rest of
 * the per-QP counters derive from the ring indices: mlx5_qp_xstats.c). */
struct rdx_mlx5_qp_errs {
	uint64_t send_error;    /* send WRs completed in error (one per error CQE) */
	uint64_t send_flushed;  /* send WRs retired by flush CQEs */
	uint64_t recv_error;
	uint64_t recv_flushed;
};

/* Per-CQ datapath counters. */
struct rdx_mlx5_cq_stats {
	uint64_t polls;         /* non-empty poll bursts (= CQ dbrec updates) */
	uint64_t cqes;          /* CQEs consumed */
	uint64_t errors;        /* error CQEs (flushes included) */
	uint64_t unknown_qpn;   /* CQEs for a QP not attached here */
};

struct rdx_mlx5_cq {
	struct rdx_cq base;             /* must be first */
	/* Hot: the poll loop reads these. */
	uint8_t *buf;                   /* CQE ring */
	uint8_t *cqe64;                 /* buf + cqe_off: slot 0's 64-byte CQE */
	uint32_t cons_index;            /* consumer counter (ci) */
	uint32_t cqe_mask;              /* cqe_cnt - 1 */
	uint32_t log_cqe_cnt;
	uint32_t cqe_shift;             /* log2(cqe_size) */
	uint32_t cqe_cnt;               /* power of two (the poll for one's parity bit) */
	uint32_t cqe_size;              /* 64 or 128 (the poll for one's stride) */
	uint32_t cqe_off;               /* 0, or 64 for 128-byte CQEs */
	volatile __be32 *dbrec;         /* [0]: consumer index */
	/* lookup cache: never NULL (rdx_mlx5_no_qp when empty) */
	struct rdx_mlx5_qp *last_qp;
	/* QPs whose completions land here, by QPN (open addressing). */
	struct rdx_mlx5_qp **qp_tbl;
	uint32_t qp_tbl_mask;
	uint32_t nb_qps;
	uint32_t max_qps;
	/* Cold */
	uint32_t cqn;
	struct rdx_mlx5_cq_stats stats;
	TAILQ_ENTRY(rdx_mlx5_cq) objs_next;   /* struct rdx_mlx5_objs */
};

/*
 * Per WQEBB where a signaled WQE starts (written when it is posted): all a
 * good requester CQE naming it needs. The whole ordinal, so the retirement
 * rule is one subtraction (a stale or repeated entry names an ordinal
 * behind the tail: the range check turns it down).
 */
struct rdx_mlx5_sq_sig {
	uint32_t ord;                   /* the WQE's ordinal */
	uint16_t next_bb;               /* WQEBB counter after it (low 16 bits) */
	uint16_t rsvd;
};

struct rdx_mlx5_qp {
	struct rdx_qp base;             /* must be first */
	/* Send queue, hot */
	uint8_t *sq_buf;
	uint8_t *sq_end;
	uint32_t sq_mask;               /* sq_wqe_cnt - 1 (WQEBBs) */
	uint32_t sq_cur_post;           /* producer counter in WQEBBs */
	uint32_t sq_head;               /* WQEs posted (ordinal counter) */
	uint32_t sq_tail;               /* ordinal of the oldest unretired WQE */
	uint16_t sq_tail_bb;            /* its WQEBB counter (low 16 bits:
	                                   rings are <= MLX5_MAX_SQ_WQEBB) */
	uint32_t sq_max_post;           /* outstanding WQE limit */
	uint32_t sq_unsignaled;         /* WQEs since the last signaled one */
	uint32_t sig_interval;          /* >= 1 */
	uint32_t sig_last;              /* sig_interval - 1: unsignaled WQEs in a row at most */
	uint32_t sq_last_slot;          /* sq_max_post - 1: outstanding WQEs when the
	                                   next takes the last free slot */
	uint32_t qpn8;                  /* qpn << 8, native: ctrl qpn_ds base */
	uint32_t max_inline;
	uint32_t max_send_sge;
	uint32_t fast_key;              /* WR shape of the inline vector runs
	                                   (RC: WRITE, QPs taking 16 B inline;
	                                   UD: SEND, 8 B; mlx5_qp_vec.h) */
	uint64_t *sq_wrid;              /* by ordinal & sq_mask */
	struct rdx_mlx5_sq_sig *sq_sig; /* by WQEBB: the signaled WQE there */
	volatile __be32 *dbrec;         /* [MLX5_RCV_DBR], [MLX5_SND_DBR] */
	struct rdx_mlx5_bfreg *bf;      /* doorbell register (&bf_own or shared) */
	bool sig_burst_end;
	bool ud;                        /* RDX_QP_UD: rdx_mlx5_post_burst_ud */
	uint32_t ud_max_msg;            /* UD: largest message (path MTU) */
	uint8_t *sq_lenerr;             /* UD, by ordinal & sq_mask: 1 = a NOP
	                                   standing for a message above the MTU */
	uint64_t sq_ctrl_op[RDX_OP_MAX]; /* by rdx_op: ctrl bytes 0..7 of its WQE
	                                   without index and DS (sq_ctrl_op_init) */
	/* Receive queue */
	uint8_t *rq_buf;
	uint32_t rq_wqe_cnt;
	uint32_t rq_mask;
	uint32_t rq_stride;
	uint32_t rq_shift;              /* log2(rq_stride) */
	uint32_t rq_head;               /* WQEs posted */
	uint32_t rq_tail;               /* WQEs completed */
	uint32_t max_recv_sge;
	uint64_t *rq_wrid;
	/* Cold */
	uint32_t sq_wqe_cnt;            /* WQEBBs, power of two */
	uint32_t sq_wqebb_max;          /* largest WQE, in WQEBBs */
	struct rdx_mlx5_qp_stats stats;
	struct rdx_mlx5_qp_errs errs;
	struct rdx_mlx5_bfreg bf_own;   /* the register when not shared */
	TAILQ_ENTRY(rdx_mlx5_qp) objs_next;   /* struct rdx_mlx5_objs */
};

/* Doorbell rings of qp: 8-byte doorbells and BlueFlame copies. */
static inline uint64_t
rdx_mlx5_qp_doorbells(const struct rdx_mlx5_qp *qp)
{
	return __atomic_load_n(&qp->stats.db_plain, __ATOMIC_RELAXED) +
		__atomic_load_n(&qp->stats.bf_posts, __ATOMIC_RELAXED);
}

/* The empty lookup cache of every CQ (rdx_mlx5_cq.last_qp): its QPN matches
 * no 24-bit one. Read-only; RDX_MLX5_NO_QP is the pointer the cache holds. */
extern const struct rdx_mlx5_qp rdx_mlx5_no_qp;
#define RDX_MLX5_NO_QP ((struct rdx_mlx5_qp *)(uintptr_t)&rdx_mlx5_no_qp)

/*
 * An address handle: the generic part, then the mlx5 address vector the
 * datagram segment copies (mlx5dv_init_obj(MLX5DV_OBJ_AH) on hardware),
 * kept as a template (rdx_mlx5_ah_init): Q_Key 0 and dqp_dct =
 * MLX5_EXTENDED_UD_AV, so the post loops OR the WR's Q_Key and QPN in.
 * drv: the backend's object (hardware: the struct ibv_ah).
 */
struct rdx_mlx5_ah {
	struct rdx_ah base;             /* must be first */
	struct mlx5_wqe_av av __attribute__((aligned(16)));
	void *drv;
};

/* Set ah->av from the device's AV (the template rule above). */
void rdx_mlx5_ah_init(struct rdx_mlx5_ah *ah, const struct mlx5_wqe_av *av);

/* The largest WQE (WQEBBs) a QP with these limits may build. */
uint32_t rdx_mlx5_sq_wqebb_max(uint32_t max_inline, uint32_t max_send_sge);
/* SQ ring size (WQEBBs, power of two) that holds sq_depth WRs. */
uint32_t rdx_mlx5_sq_wqe_cnt(uint32_t sq_depth, uint32_t max_inline,
			     uint32_t max_send_sge);
/*
 * The most send WRs rdma-core's mlx5_calc_sq_size accepts for an RC QP
 * with these limits: its WQE size counts sq_overhead (ctrl + memory-window
 * UMR segments, 192 B for RC) + max(16 * max_send_sge, align16(4 + inline)),
 * rounded to 64 B; the ring, roundup_pow2(wr * wqe_size) bytes, may have at
 * most max_send_wqebb (the device's max_qp_wr) WQEBBs. 0 when no WQE of
 * that shape fits max_sq_desc_sz.
 */
uint32_t rdx_mlx5_rc_max_send_wr(uint32_t max_send_wqebb, uint32_t max_sq_desc_sz,
				 uint32_t max_send_sge, uint32_t max_inline);
#define RDX_MLX5_RC_SQ_OVERHEAD 192u
/* The same for a UD QP: libmlx5's sq_overhead for UD is ctrl + datagram
 * segment, 64 B. */
uint32_t rdx_mlx5_ud_max_send_wr(uint32_t max_send_wqebb, uint32_t max_sq_desc_sz,
				 uint32_t max_send_sge, uint32_t max_inline);
#define RDX_MLX5_UD_SQ_OVERHEAD 64u
/* UD: ctrl + datagram segment (64 bytes) + payload, in WQEBBs; the ring
 * size for sq_depth such WRs (rdma-core's sq_overhead for UD is 64). */
uint32_t rdx_mlx5_ud_sq_wqebb_max(uint32_t max_inline, uint32_t max_send_sge);
uint32_t rdx_mlx5_ud_sq_wqe_cnt(uint32_t sq_depth, uint32_t max_inline,
				uint32_t max_send_sge);
#define RDX_MLX5_UD_MAX_SEND_SGE (RDX_MLX5_MAX_DS - 4u)
#define RDX_MLX5_UD_MAX_INLINE ((RDX_MLX5_MAX_DS - 4u) * 16u - 4u)
/* RQ WQE stride in bytes: roundup_pow2(16 * max(max_recv_sge, 1)). */
uint32_t rdx_mlx5_rq_stride(uint32_t max_recv_sge);
/* Largest max_send_sge / max_inline a WQE can carry (DS is 6 bits). */
#define RDX_MLX5_MAX_DS 63u
#define RDX_MLX5_MAX_SEND_SGE (RDX_MLX5_MAX_DS - 2u)
#define RDX_MLX5_MAX_INLINE ((RDX_MLX5_MAX_DS - 2u) * 16u - 4u)

/*
 * Give the datapath a QP's rings. qp->base (dev, conf, qp_num, user_ctx) is
 * filled by the caller; this sets the fast-path pointers in qp->base and
 * allocates the wr_id arrays (control path). The SQ/RQ counters start at 0
 * (a QP fresh from RESET). Returns 0 or -EINVAL/-ENOMEM.
 * conf.sq_depth becomes the number of WRs the ring can hold.
 */
int rdx_mlx5_qp_dp_init(struct rdx_mlx5_qp *qp, const struct mlx5dv_qp *dv,
			uint32_t qpn, uint32_t max_inline, uint32_t max_send_sge,
			uint32_t max_recv_sge);
void rdx_mlx5_qp_dp_fini(struct rdx_mlx5_qp *qp);
/*
 * A register for QPs to share (control path). size 0 or MLX5_SHUT_UP_BF set
 * (and not "0"): 8-byte doorbells only; MLX5_POST_SEND_PREFER_BF "0":
 * BlueFlame copies of inline WQEs only (rdma-core's two variables).
 * rdx_mlx5_qp_dp_init gives each QP such a register of its own from
 * dv->bf; rdx_mlx5_qp_bfreg_share then moves it onto bf, which must be the
 * same register (-EINVAL otherwise). rdx_mlx5_qp_dp_fini drops the share.
 */
void rdx_mlx5_bfreg_init(struct rdx_mlx5_bfreg *bf, void *reg, uint32_t size);
int rdx_mlx5_qp_bfreg_share(struct rdx_mlx5_qp *qp, struct rdx_mlx5_bfreg *bf);
/* Drop qp's share of a register (back to its own); a no-op if it has none. */
void rdx_mlx5_qp_bfreg_unshare(struct rdx_mlx5_qp *qp);
/* The CQ ring must be initialised by the owner (op_own 0xF0 everywhere). */
int rdx_mlx5_cq_dp_init(struct rdx_mlx5_cq *cq, const struct mlx5dv_cq *dv,
			uint32_t cqn, uint32_t max_qps);
void rdx_mlx5_cq_dp_fini(struct rdx_mlx5_cq *cq);
/* Route completions of qp to cq (send and/or receive side; attaching twice
 * is fine). -ENOSPC when max_qps QPs are attached already. */
int rdx_mlx5_cq_attach(struct rdx_mlx5_cq *cq, struct rdx_mlx5_qp *qp);
void rdx_mlx5_cq_detach(struct rdx_mlx5_cq *cq, struct rdx_mlx5_qp *qp);

/*
 * A device's QPs and CQs, for its counters (xstats): both backends (mlx5_hw.c
 * and sw/sw_dev.c) list every datapath QP and CQ here from create to
 * destroy. Control path only: the datapath never takes the lock; the
 * counters it bumps are read with relaxed 64-bit loads.
 */
#define RDX_MLX5_XSTATS_QP 7    /* struct rdx_mlx5_qp_stats fields */
#define RDX_MLX5_XSTATS_CQ 4    /* struct rdx_mlx5_cq_stats fields */
/* rdx_mlx5_objs_xstats() appends the two tables and qps_open, cqs_open */
#define RDX_MLX5_XSTATS (RDX_MLX5_XSTATS_QP + RDX_MLX5_XSTATS_CQ + 2)

struct rdx_mlx5_objs {
	pthread_mutex_t lock;
	TAILQ_HEAD(, rdx_mlx5_qp) qps;
	TAILQ_HEAD(, rdx_mlx5_cq) cqs;
	unsigned int nb_qps;
	unsigned int nb_cqs;
	/* the counters of QPs and CQs destroyed, so the sums only grow */
	uint64_t gone_qp[RDX_MLX5_XSTATS_QP];
	uint64_t gone_cq[RDX_MLX5_XSTATS_CQ];
};

void rdx_mlx5_objs_init(struct rdx_mlx5_objs *o);
void rdx_mlx5_objs_fini(struct rdx_mlx5_objs *o);
void rdx_mlx5_objs_qp_add(struct rdx_mlx5_objs *o, struct rdx_mlx5_qp *qp);
/* Unlist qp; its counters stay in the sums. */
void rdx_mlx5_objs_qp_del(struct rdx_mlx5_objs *o, struct rdx_mlx5_qp *qp);
void rdx_mlx5_objs_cq_add(struct rdx_mlx5_objs *o, struct rdx_mlx5_cq *cq);
void rdx_mlx5_objs_cq_del(struct rdx_mlx5_objs *o, struct rdx_mlx5_cq *cq);
/*
 * Counter k of a device's xstats: written when k < n (xs has room for n),
 * counted either way (the xstats_get op contract).
 */
void rdx_mlx5_xstat_set(struct rdx_dev_xstat *xs, unsigned int n, unsigned int k,
			const char *name, uint64_t value);
/*
 * Append the datapath counters summed over o's QPs and CQs ("dp_qp_*",
 * "dp_cq_*", destroyed ones included), then "qps_open" and "cqs_open", as
 * counters k.. of xs (room for n). Returns k + RDX_MLX5_XSTATS.
 */
unsigned int rdx_mlx5_objs_xstats(struct rdx_mlx5_objs *o, struct rdx_dev_xstat *xs,
				  unsigned int n, unsigned int k);

/*
 * One QP's counters (the qp_xstats_get op of both backends, mlx5_qp_xstats.c):
 * the common ones derived from the ring indices and the per-burst counters,
 * then send_bf_copies, send_full_bursts, send_bad_wr_bursts.
 */
#define RDX_MLX5_QP_XSTATS_OWN 3
int rdx_mlx5_qp_xstats_get(struct rdx_qp *qp, struct rdx_dev_xstat *xs, unsigned int n);
/*
 * The poll loop's error path (mlx5_cq.c, never a good completion): wc, an
 * error or flush completion of qp that retired wc->retired WRs of its
 * receive (recv) or send queue, counted in qp->errs. An error completion
 * fails one WR (the retired - 1 before it completed fine); a flush
 * completion flushes every WR it retires.
 */
static inline void
rdx_mlx5_qp_count_err(struct rdx_mlx5_qp *qp, const struct rdx_wc *wc, bool recv)
{
	const bool flush = wc->status == IBV_WC_WR_FLUSH_ERR;
	const uint64_t failed = flush ? wc->retired : wc->retired != 0;
	uint64_t *const c = recv ? (flush ? &qp->errs.recv_flushed : &qp->errs.recv_error) :
		(flush ? &qp->errs.send_flushed : &qp->errs.send_error);

	*c += failed;
}

/*
 * The one step both backends (mlx5_hw.c, sw/sw_dev.c) take to hand a new
 * object to the datapath, and its undo on destroy.
 *
 * rdx_mlx5_cq_bind: cq->base gets dev and conf, the ring goes through
 * rdx_mlx5_cq_dp_init (conf.depth becomes the CQE count, poll_burst
 * rdx_mlx5_poll_burst) and the CQ is listed in o. 0 or a negative errno
 * (nothing bound). rdx_mlx5_cq_unbind: unlist and rdx_mlx5_cq_dp_fini.
 *
 * rdx_mlx5_qp_bind: qp->base gets dev, conf and conf->user_ctx, the rings
 * go through rdx_mlx5_qp_dp_init (same arguments), the QP is attached to
 * conf->send_cq and conf->recv_cq (both must be struct rdx_mlx5_cq based)
 * and listed in o. 0 or a negative errno (nothing bound). A register
 * share (rdx_mlx5_qp_bfreg_share) may follow. rdx_mlx5_qp_unbind: unlist,
 * detach from both CQs and rdx_mlx5_qp_dp_fini (which drops a register
 * share: a backend whose registers are shared under a lock calls
 * rdx_mlx5_qp_bfreg_unshare under it first).
 */
int rdx_mlx5_cq_bind(struct rdx_mlx5_objs *o, struct rdx_mlx5_cq *cq, struct rdx_dev *dev,
		     const struct rdx_cq_conf *conf, const struct mlx5dv_cq *dv,
		     uint32_t max_qps);
void rdx_mlx5_cq_unbind(struct rdx_mlx5_objs *o, struct rdx_mlx5_cq *cq);
int rdx_mlx5_qp_bind(struct rdx_mlx5_objs *o, struct rdx_mlx5_qp *qp, struct rdx_dev *dev,
		     const struct rdx_qp_conf *conf, const struct mlx5dv_qp *dv, uint32_t qpn,
		     uint32_t max_inline, uint32_t max_send_sge, uint32_t max_recv_sge);
void rdx_mlx5_qp_unbind(struct rdx_mlx5_objs *o, struct rdx_mlx5_qp *qp);

/*
 * Send bursts (mlx5_qp.c): RC and UD QPs' (rdx_mlx5_qp_dp_init installs
 * one by conf.type), vector runs of the common shapes in front of the
 * scalar post loop; the _scalar ones the scalar loop alone (the same WQEs,
 * counters and return values: the definition of behaviour).
 */
uint16_t rdx_mlx5_post_burst(struct rdx_qp *qp, const struct rdx_wr *wr, uint16_t n);
uint16_t rdx_mlx5_post_burst_ud(struct rdx_qp *qp, const struct rdx_wr *wr, uint16_t n);
uint16_t rdx_mlx5_post_burst_scalar(struct rdx_qp *qp, const struct rdx_wr *wr, uint16_t n);
uint16_t rdx_mlx5_post_burst_ud_scalar(struct rdx_qp *qp, const struct rdx_wr *wr, uint16_t n);
uint16_t rdx_mlx5_post_recv_burst(struct rdx_qp *qp, const struct rdx_recv_wr *wr,
				  uint16_t n);
/*
 * A CQ's poll ops, one variant per CQE size, picked once at creation:
 * rdx_mlx5_cq_dp_init installs rdx_mlx5_cq_poll_op's as poll_burst; the
 * hardware CQ installs rdx_mlx5_cq_poll_req_op's as poll_req_burst (the
 * lean completion contract; a backend with its own poll_burst op, the
 * software device's inline progress, leaves it out and lib/dev falls back
 * to that). rdx_mlx5_poll_burst and rdx_mlx5_poll_req_burst call the
 * variant of the CQ they are given (callers without the op: tests).
 */
rdx_poll_burst_t rdx_mlx5_cq_poll_op(const struct rdx_mlx5_cq *cq);
rdx_poll_burst_t rdx_mlx5_cq_poll_req_op(const struct rdx_mlx5_cq *cq);
uint16_t rdx_mlx5_poll_burst(struct rdx_cq *cq, struct rdx_wc *wc, uint16_t n);
uint16_t rdx_mlx5_poll_req_burst(struct rdx_cq *cq, struct rdx_wc *wc, uint16_t n);
/*
 * The full poll (rdx_mlx5_poll_burst's loop) for a backend's own
 * poll_burst op that runs work first (the software device's inline
 * progress): what it calls after that work.
 */
uint16_t rdx_mlx5_poll_burst_general(struct rdx_cq *cq, struct rdx_wc *wc, uint16_t n);
uint64_t rdx_mlx5_qp_retired_wr_id(const struct rdx_qp *qp, const struct rdx_wc *wc,
				   uint16_t i);

/* Map an mlx5 error-CQE syndrome to enum ibv_wc_status (cq.c rules). */
uint8_t rdx_mlx5_syndrome_to_status(uint8_t syndrome);

#endif /* RDX_MLX5_H */
