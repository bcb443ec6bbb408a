/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx-perf's endpoints (one QP with its buffers and the CQs it shares) and
 * the parameters of one run: what setup.c makes, the bootstraps connect
 * (ep_connect.c) and the loops drive.
 */
#ifndef PERF_EP_H
#define PERF_EP_H

#include <stdbool.h>
#include <stdint.h>

#include "rdx_dev.h"

#include "perf_opts.h"

/* One per-WR log entry (times in TSC; converted when written). */
struct perf_wrlog_ent {
	uint64_t post;
	uint64_t done;
	uint32_t qp;
	uint32_t bytes;
};

/* The CQs one lcore's QPs share (as perftest does: one send and one receive
 * CQ for all QPs of a thread); completions are routed to their QP through
 * rdx_wc.qp_ctx and parked in its rings until that QP polls. */
struct perf_cqg {
	struct rdx_cq *scq;
	struct rdx_cq *rcq;      /* == scq when no member posts receives */
	uint32_t nb_qps;         /* members (CQ depth = per-QP depth x members) */
	uint32_t refs;           /* members created */
	uint32_t pending;        /* completions parked in the members' rings */
	/* poll each CQ once per pass over the members of the run (as perftest
	 * polls once per loop), not once per QP: on the software device's
	 * inline progress every poll walks all QPs */
	uint32_t period;         /* members in this run (perf_run_prepare) */
	uint32_t stick;
	uint32_t rtick;
};

/* Completions of one QP taken from a shared CQ by another QP's poll. */
struct perf_wcring {
	struct rdx_wc *wc;
	uint32_t mask;
	uint32_t head;
	uint32_t tail;
};

/* One QP with its buffers; its CQs are shared with the lcore's other QPs. */
struct perf_ep {
	struct rdx_qp *qp;
	struct perf_cqg *cqg;
	struct perf_wcring sring; /* send completions (<= sq_depth outstanding) */
	struct perf_wcring rring; /* receive completions (<= rq_depth outstanding) */
	struct rdx_mem *buf;     /* send / read / atomic result slots */
	struct rdx_mem *rbuf;    /* receive slots (NULL when no receives) */
	struct rdx_mem *tbuf;    /* -b across processes: the peer's ops land here
				  * (what the EP message exposes); else NULL */
	uint32_t index;          /* QP index within the process */
	uint32_t rslots;         /* receive slots (== receive WRs kept posted) */
	uint32_t rstride;
	uint32_t rq_depth;
	/* the peer's exposed buffer */
	uint64_t raddr;          /* peer's buf */
	uint32_t rkey;
	uint64_t rlen;
	uint64_t rraddr;         /* peer's rbuf (WRITE_IMM / ping-pong target) */
	uint32_t rrkey;
	uint32_t peer_rslots;
	uint32_t peer_rstride;
	struct perf_ep *peer;    /* loopback: the endpoint at the other end */
	uint32_t cm_rqpn;        /* -R: the peer's QP as rdma_cm connected it */
	struct {                 /* the peer's QP as its EP message gave it */
		uint32_t qpn, psn;
		uint16_t lid;
		bool has_gid;
		uint8_t gid[16];
	} peer_id;
	/* send-side progress, in op sequence numbers (never reset) */
	uint64_t posted;
	uint64_t completed;
	uint64_t target;
	uint64_t recv_posted;    /* receive WRs posted */
	uint64_t recv_done;      /* receive completions */
	uint64_t sq_done;        /* send WRs retired (echo / ping-pong) */
	uint64_t run_base;       /* completed when the current run began */
	uint32_t next_key;       /* atomics */
	/* UD (--transport ud): the peer's address, datagram accounting */
	struct rdx_ah *ah;       /* route to the peer's QP */
	uint32_t rqpn;           /* the peer's QP number */
	uint32_t rqkey;          /* the peer's Q_Key */
	uint64_t tx;             /* send WRs posted (re-sends included) */
	uint64_t resent;         /* ping-pong: requests sent again after a timeout */
	uint64_t ud_hi;          /* responder: highest op number seen (imm) */
	uint64_t ud_dup;         /* stream responder: datagrams of an op already taken */
	uint64_t dup_base;       /* ud_dup when the run began */
	uint64_t ud_stale;       /* stream responder: datagrams of an earlier run
				  * (perf_ud_stream_imm), late past its end */
	uint64_t stale_base;     /* ud_stale when the run began */
	uint64_t *ud_ops;        /* stream responder, UD: the op last taken at op & ring_mask */
	uint64_t tx_base;        /* tx, recv_done, resent when the run began */
	uint64_t rx_base;
	uint64_t resent_base;
	uint8_t *seen;           /* ping-pong: answers taken, by op & ring_mask */
	/* rings indexed by op sequence & ring_mask */
	uint32_t ring_mask;
	uint64_t *post_tsc;
	uint64_t *aux;           /* CAS compare value, echo request time... */
	uint32_t *aux32;         /* atomics: key of the op */
	uint32_t *log_idx;
	/* atomics: per-key next compare (CAS) */
	uint64_t *cas_next;
	uint32_t sig_left;       /* WRs to post up to the next signaled one (-Q) */
	bool last_sig;           /* the last WR posted asked for a completion */
	uint32_t inline_max;     /* as granted */
	uint32_t sq_depth;
	/* open loop (rate.h): the schedule of this phase */
	uint64_t rate_t0;        /* intended time of op rate_seq0 */
	uint64_t rate_seq0;
};

/* Parameters of one run (one size, one QP count), shared by all lcores. */
struct perf_run {
	uint64_t size;
	uint64_t req_size;       /* echo request size */
	uint64_t iters;          /* measured ops per QP; 0: duration */
	uint64_t warm_iters;
	uint64_t dur_tsc;
	uint64_t warm_tsc;
	uint64_t timeout_tsc;
	uint32_t window;
	uint32_t post_list;
	uint32_t stride;         /* slot stride in buf */
	uint32_t slots;
	uint32_t qps;            /* QPs per lcore in this run */
	uint32_t grh;            /* bytes before a message in a receive slot:
				  * RDX_UD_GRH_BYTES over UD, else 0 */
	bool ud;                 /* --transport ud */
	uint32_t ud_run;         /* the runs before this one (perf_app.nb_runs: both
				  * ends count alike); a UD stream's immediates
				  * carry it (perf_ud_stream_imm) */
	uint64_t ud_timeout_tsc; /* PERF_UD_TIMEOUT_MS */
	volatile bool abort;     /* set by main: peer gone */
	/* open loop (rate.h): total ops/s offered (0: closed loop) and the TSC
	 * cycles between two intended sends of one QP */
	double offered;
	double rate_period;
};

#endif /* PERF_EP_H */
