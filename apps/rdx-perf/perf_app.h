/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx-perf internals: the engine table, the loops' shared helpers and the
 * whole app (struct perf_app); options are in perf_opts.h, endpoints in
 * perf_ep.h, lcore state in perf_lcore.h. main.c owns launch and reports;
 * each test is a struct rdx_perf_engine in its own file (write.c,
 * write_imm.c, read.c, send.c, atomic.c, echo.c), as in DPDK test-pmd, run
 * by one of two loops (stream.c, pingpong.c).
 */
#ifndef PERF_APP_H
#define PERF_APP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_byteorder.h>
#include <rte_common.h>

#include "rdx_dev.h"
#include "rdx_hist.h"
#include "rdx_perf.h"
#include "rdx_report.h"     /* the compact table printed as runs end */
#include "rdx_sw.h"          /* enum rdx_sw_progress: the sw devargs */

struct rdx_conn;
struct rdx_boot;

#define PERF_WC_BURST 32
#define PERF_ECHO_REQ 30              /* clusterperf echo request bytes */
#define PERF_RPC_KV_READ 1            /* --test basic.read */
#define PERF_RPC_KV_WRITE 2           /* --test basic.write */
#define PERF_REGION_CAP (32u << 20)   /* bytes of slots per buffer */
#define PERF_MEM_BUDGET (1ull << 30)  /* all buffers of a process, when slots allow */
#define PERF_MAX_KEYS 65536u
#define PERF_WRLOG_CAP (1u << 20)     /* per-WR log entries per lcore */
#define PERF_EXIT_BAD_INPUT 2
/* stopped by SIGINT/SIGTERM before every run asked for was done (the
 * report says interrupted): 128 + SIGINT, what a shell shows for a
 * program that Ctrl-C killed, and what perftest's users see of it */
#define PERF_EXIT_INTERRUPTED 130
#define PERF_REASON_MAX 256

#include "perf_opts.h"   /* struct perf_opts: what every layer reads */
#include "perf_lcore.h"  /* endpoints, runs and lcore state */



struct perf_app;
struct perf_opts_given;
struct rdx_report;

/* The client loop an engine runs in a mode (stream.c, pingpong.c). */
enum perf_loop_kind {
	PERF_LOOP_STREAM = 0, /* -t ops in flight, completion latency */
	PERF_LOOP_PINGPONG,   /* request, answer from the responder, round trip */
};

/* What a latency figure of lat mode is (report.c). */
enum perf_lat_kind { PERF_LAT_RTT = 0, PERF_LAT_HALF_RTT };

/*
 * A test (test-pmd's struct fwd_engine): one file per engine holds this
 * table and its per-op functions; the two loops (stream.c, pingpong.c), the
 * set-up and the reports read its fields, never its identity. Engines are
 * registered with PERF_ENGINE_REGISTER. doc/architecture.md says how to add one.
 */
struct rdx_perf_engine {
	const char *name;
	enum rdx_op op;
	/* the client loop of each mode (indexed by enum perf_mode) */
	enum perf_loop_kind loop[2];
	enum perf_lat_kind lat_kind;  /* lat mode's figure */
	bool atomic;             /* 8-byte ops on one shared key region (--keys) */
	bool server_recv;        /* stream: the responder consumes receive WRs */
	bool poll_memory;        /* ping-pong: a message is seen by polling its last
				  * byte (a marker), not by a receive */
	bool no_inline;          /* never -I inline (READ, atomics: nothing to send) */
	uint32_t req_size;       /* ping-pong request bytes (0: the message size) */
	bool ud;                 /* runs over --transport ud too (SEND engines) */
	/* stream.c per-op hooks (NULL: nothing) */
	void (*prep)(struct perf_lcore *lc, struct perf_ep *ep, struct rdx_wr *wr,
		     uint64_t seq);   /* every WR, after the common fields */
	int (*done)(struct perf_lcore *lc, struct perf_ep *ep, uint64_t seq); /* every op */
	/* --verify: payload of op seq at slot offset off before it is posted
	 * (when prep is NULL), and the check when it completes (when done is NULL) */
	void (*fill)(struct perf_lcore *lc, struct perf_ep *ep, uint64_t off, uint64_t seq);
	void (*check)(struct perf_lcore *lc, struct perf_ep *ep, uint64_t seq);
	/* --verify after the measured phase of a stream loop, on its lcore */
	int (*verify_run)(struct perf_lcore *lc);
	/* --verify after all runs, on the main lcore */
	int (*verify_end)(struct perf_app *a);
	/* control path, all optional */
	int (*defaults)(struct perf_opts *o, const struct perf_opts_given *g);
	void (*responder_ready)(struct perf_app *a, struct perf_ep *ep); /* each run */
	void (*report_knobs)(const struct perf_app *a, struct rdx_report *r);
	void (*desc)(const struct perf_app *a, const char *size, char *buf, size_t len);
	int (*setup)(struct perf_app *a);        /* before each run */
	void (*teardown)(struct perf_app *a);    /* after each run */
};

/*
 * Engines register themselves (engines.c), as drivers do: each engine file
 * ends with PERF_ENGINE_REGISTER(its table). The registry keeps link order,
 * which is the order of rdx_perf_engines in meson.build: --help lists the
 * tests in that order.
 */
#define PERF_MAX_ENGINES 32
void perf_engine_register(const struct rdx_perf_engine *e);
#define PERF_ENGINE_REGISTER(e) \
	RTE_INIT(perf_engine_register_##e) { perf_engine_register(&(e)); }

/* engines.c: every registered engine */
extern const struct rdx_perf_engine *perf_engines[PERF_MAX_ENGINES];
extern unsigned int perf_nb_engines;

static inline enum perf_loop_kind
perf_engine_loop(const struct rdx_perf_engine *e, enum perf_mode m)
{
	return e->loop[m];
}

/* The responder has a step to run (else one-sided ops never wake it). */
static inline bool
perf_engine_serves(const struct rdx_perf_engine *e, enum perf_mode m)
{
	return perf_engine_loop(e, m) == PERF_LOOP_PINGPONG || e->server_recv;
}

/* common.c: helpers the engines share */
void perf_pattern_fill(uint8_t *p, uint64_t len, uint64_t op, uint32_t salt);
uint64_t perf_pattern_check(const uint8_t *p, uint64_t len, uint64_t op, uint32_t salt);
int perf_mem_fill(struct rdx_mem *m, uint64_t off, uint64_t len, uint64_t op, uint32_t salt);
uint64_t perf_mem_check(struct rdx_mem *m, uint64_t off, uint64_t len, uint64_t op,
			uint32_t salt);
void perf_lcore_fail(struct perf_lcore *lc, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int perf_wc_error(struct perf_lcore *lc, const struct perf_ep *ep, const struct rdx_wc *wc,
		  const char *op);
/* Slow-path checks every so often: stop flag, abort, timeout. 1: stop, <0: error. */
int perf_check_slow(struct perf_lcore *lc, uint64_t now);
/* One pass of lc->serve over the endpoints lc serves: work done, or <0. */
int perf_serve_all(struct perf_lcore *lc);
/* The responder step as an rdx_lcore_loop poller (arg: the struct). */
struct rdx_lcore_loop;
struct perf_serve_poller {
	struct rdx_lcore_loop *loop;  /* stopped on an error */
	struct perf_lcore *lc;
	int rc;                       /* the error (lc->errmsg says it) */
};
int perf_serve_poll(void *arg);
uint64_t perf_local_u64(struct perf_ep *ep, uint64_t off);
/* Post up to `want` receives on ep (slot = recv seq % rslots). */
int perf_post_recvs(struct perf_ep *ep, uint64_t want);
/* Synchronous RDMA READ of the peer's buffer into ours (verification). */
int perf_read_remote(struct perf_lcore *lc, struct perf_ep *ep, uint64_t roff,
		     uint64_t loff, uint32_t len);

/* Poll the QP's send (recv false) or receive completions: its parked ones
 * first, else the shared CQ, routing what belongs to other QPs. */
uint16_t perf_poll(struct perf_ep *ep, bool recv, struct rdx_wc *wc, uint16_t n);
/* perf_poll of the send completions for a loop that reads only their
 * wr_id, status, opcode and retired: rdx_cq_poll_req_burst (the lean
 * completion) when the CQ is the QP's own, perf_poll when completions are
 * routed (that needs qp_ctx). */
uint16_t perf_poll_sends(struct perf_ep *ep, struct rdx_wc *wc, uint16_t n);
/* -e: sleep on the shared CQ unless completions are parked (bounded). */
void perf_cq_wait(struct perf_ep *ep, bool recv, int timeout_ms);

/* stream.c: the bandwidth loop of one-sided ops, sends and atomics */
int perf_stream_run(struct perf_lcore *lc);
int perf_serve_recv(struct perf_lcore *lc, struct perf_ep *ep);
/* the receives still in the CQ after a stream run (UD accounting) */
void perf_serve_drain(struct perf_lcore *lc);
/* --verify of two-process write/write_imm: read back this run's slots */
int perf_verify_readback(struct perf_lcore *lc);
/* --verify payload helpers for engine tables */
void perf_stream_fill_data(struct perf_lcore *lc, struct perf_ep *ep, uint64_t off, uint64_t seq);
void perf_stream_check_peer(struct perf_lcore *lc, struct perf_ep *ep, uint64_t seq);

/* setup.c: the responder step of engine e in mode (NULL: it has none) */
typedef int (*perf_serve_fn)(struct perf_lcore *lc, struct perf_ep *ep);
perf_serve_fn perf_serve_step(const struct rdx_perf_engine *e, enum perf_mode m);

/* pingpong.c: RPCs and ping-pong (send, write_imm, write by memory polling) */
int perf_pingpong_run(struct perf_lcore *lc);
int perf_pingpong_serve(struct perf_lcore *lc, struct perf_ep *ep);

#define PERF_SALT_REQ 0x52u
#define PERF_SALT_RESP 0x53u
#define PERF_SALT_DATA 0x44u
#define PERF_SALT_READ 0x72u

/*
 * UD: the op number of a datagram, from its immediate (over UD every
 * message is a SEND with immediate = the op number's low 32 bits, so a
 * lost, repeated or late datagram is recognised), widened next to `near`.
 */
/* The number whose low `bits` bits are lo, nearest to `near` (within
 * +-2^(bits-1)): how both kinds of immediate below are widened. */
static inline uint64_t
perf_ud_widen(uint64_t near, uint32_t lo, unsigned int bits)
{
	const uint64_t span = UINT64_C(1) << bits;
	const uint64_t d = ((uint64_t)lo - near) & (span - 1);

	return (d & (span >> 1)) != 0 ? near - (span - d) : near + d;
}

static inline uint64_t
perf_ud_seq(uint64_t near, uint32_t imm_be)
{
	return perf_ud_widen(near, rte_be_to_cpu_32(imm_be), 32);
}

/*
 * UD stream (send --mode bw): the immediate carries the run as well, so
 * that the responder counts only the datagrams of the current run; one
 * delayed past the end of its run is stale in the next (perf_serve_recv).
 * Its top PERF_UD_RUN_BITS bits are the run's number (perf_run.ud_run)
 * modulo 16, the other 28 the op number's low bits, widened next to `near`
 * (perf_ud_widen, as perf_ud_seq does with 32): an op number 2^27 or more
 * from the highest seen of the QP, or a datagram 16 runs late, would be
 * mistaken (the op numbers of a QP go on from run to run: they are not
 * reset).
 */
#define PERF_UD_RUN_BITS 4u
#define PERF_UD_OP_BITS (32u - PERF_UD_RUN_BITS)
#define PERF_UD_OP_MASK ((UINT32_C(1) << PERF_UD_OP_BITS) - 1)

/* The immediate (host order) of op `op` in run `run`. */
static inline uint32_t
perf_ud_stream_imm(uint64_t op, uint32_t run)
{
	return ((uint32_t)op & PERF_UD_OP_MASK) | (run << PERF_UD_OP_BITS);
}

/* Is the datagram of immediate imm (host order) one of run `run`? */
static inline bool
perf_ud_stream_run(uint32_t imm, uint32_t run)
{
	return imm >> PERF_UD_OP_BITS == (run & ((UINT32_C(1) << PERF_UD_RUN_BITS) - 1));
}

/* The op number of immediate imm (host order), next to `near`. */
static inline uint64_t
perf_ud_stream_op(uint64_t near, uint32_t imm)
{
	return perf_ud_widen(near, imm & PERF_UD_OP_MASK, PERF_UD_OP_BITS);
}

/* UD: the WR's destination (after the RC fields it shares bytes with). */
static inline void
perf_ud_dest(const struct perf_ep *ep, struct rdx_wr *wr)
{
	wr->ah = ep->ah;
	wr->remote_qpn = ep->rqpn;
	wr->remote_qkey = ep->rqkey;
	wr->opcode = RDX_OP_SEND_IMM;
}

/* Fast-path bookkeeping: the post time of op seq, and its log entry. */
static inline void
perf_posted(struct perf_lcore *lc, struct perf_ep *ep, uint64_t seq, uint64_t now,
	    uint32_t bytes)
{
	uint32_t i = (uint32_t)(seq & ep->ring_mask);

	ep->post_tsc[i] = now;
	if (lc->log == NULL || !lc->measure)
		return;
	if (lc->log_n >= PERF_WRLOG_CAP) {
		lc->log_full = true;
		ep->log_idx[i] = UINT32_MAX;
		return;
	}
	ep->log_idx[i] = (uint32_t)lc->log_n;
	lc->log[lc->log_n].post = now;
	lc->log[lc->log_n].done = 0;
	lc->log[lc->log_n].qp = ep->index;
	lc->log[lc->log_n].bytes = bytes;
	lc->log_n++;
}

/* Op seq completed at `now`: latency (divided by `div`: 2 for half RTT). */
static inline void
perf_completed(struct perf_lcore *lc, struct perf_ep *ep, uint64_t seq, uint64_t now,
	       uint64_t bytes, unsigned int half)
{
	uint32_t i = (uint32_t)(seq & ep->ring_mask);

	if (!lc->measure)
		return;
	rdx_hist_record(lc->hist, (now - ep->post_tsc[i]) >> half);
	lc->ops++;
	lc->bytes += bytes;
	if (lc->log != NULL && ep->log_idx[i] != UINT32_MAX)
		lc->log[ep->log_idx[i]].done = now;
}

/* --keys: bytes between two keys in a run of `size` (--key-stride) */
static inline uint64_t
perf_key_stride(const struct perf_opts *o, uint64_t size)
{
	return o->key_stride != 0 ? o->key_stride : RTE_MAX(size, (uint64_t)8);
}

/* --keys: the bytes of the peer's buffer the keys of a run of `size` span */
static inline uint64_t
perf_key_span(const struct perf_opts *o, uint64_t size)
{
	return (uint64_t)(o->keys - 1) * perf_key_stride(o, size) + RTE_MAX(size, (uint64_t)8);
}

/* --qp-sweep: the QP count after q (beyond sweep_hi: the sweep is over). */
static inline uint32_t
perf_sweep_next(const struct perf_opts *o, uint32_t q)
{
	return o->sweep_factor != 0 ? q * o->sweep_factor : q + 1;
}

/* --lcore-sweep: the lcore count after k */
static inline uint32_t
perf_lsweep_next(const struct perf_opts *o, uint32_t k)
{
	return o->lsweep_factor != 0 ? k * o->lsweep_factor : k + 1;
}

/* --tx-depth-sweep: the step after t (no sweep: 1, so one step is taken) */
static inline uint32_t
perf_tsweep_next(const struct perf_opts *o, uint32_t t)
{
	return o->tsweep_lo == 0 ? 1 : o->tsweep_factor != 0 ? t * o->tsweep_factor : t + 1;
}

/* --qp-sweep: the largest QP count a run uses (endpoints are made for it). */
static inline uint32_t
perf_sweep_last(const struct perf_opts *o)
{
	uint32_t q = o->sweep_lo;

	while (perf_sweep_next(o, q) <= o->sweep_hi)
		q = perf_sweep_next(o, q);
	return q;
}

#endif /* PERF_APP_H */

#ifndef PERF_APP_STATE
#define PERF_APP_STATE
#include "rdx_config.h"

struct rdx_conn;
struct rdx_report;

/* The whole app: main.c, setup.c, boot.c and report.c share it. */
struct perf_app {
	struct perf_opts o;
	const struct rdx_perf_engine *eng;
	struct rdx_dev *dev;
	const struct rdx_dev_attr *attr;
	bool client;              /* runs client endpoints (loopback or --connect) */
	bool head_printed;        /* the parameter block is out (report.c) */
	bool pt_head_printed;     /* perftest's block is out (perftest_head.c) */
	struct rdx_report_compact_state compact; /* the table's rows printed so far */
	bool responder;           /* runs server endpoints (loopback or --server) */
	unsigned int nb_lcores;
	unsigned int lcore_ids[RDX_MAX_LCORES];
	struct perf_lcore lcores[RDX_MAX_LCORES];
	struct perf_lcore serve_lc; /* loopback split: the main lcore's server side */
	/* launch the client lcores of one run and wait for them: main.c's,
	 * passed down to the bootstraps that start runs (boot.c, boot_mpi.c) */
	int (*launch_clients)(struct perf_app *a);
	uint32_t max_qps;         /* client QPs per lcore (sweep maximum) */
	uint32_t max_qps_plan;    /* QPs the buffers are planned for */
	uint32_t total_qps;       /* QP pairs */
	struct perf_ep *cli;
	struct perf_ep *srv;
	struct perf_cqg *cqg_cli; /* CQs shared by the client endpoints of an lcore */
	struct perf_cqg *cqg_srv; /* ... and by its server endpoints */
	struct rdx_mem *shared;   /* atomics: the key region every QP targets */
	uint64_t region_len;
	uint64_t region_cap;      /* per buffer, from PERF_MEM_BUDGET */
	uint32_t rstride;
	uint32_t sq_depth;
	uint32_t window;
	uint8_t ib_mtu;
	struct rdx_boot *boot;    /* the two-process bootstrap (lib/boot "tcp") */
	struct rdx_conn *conn;    /* its connection (rdx_boot_conn) */
	struct perf_run run;
	struct rdx_report *rep;
	uint64_t *key_total;      /* atomics: increments that took effect, per key */
	uint64_t verify_errors;
	uint64_t lost_log;
	unsigned int nb_runs;
	/* the report's status (perf_report_end): the first error of the runs
	 * (perf_run_error), the seconds their total rows measured */
	char fail_reason[PERF_REASON_MAX];
	char stop_reason[PERF_REASON_MAX]; /* who was interrupted; "": this process */
	double measured_s;
	bool run_cut;             /* the run being reported ended before it was done */
	uint32_t tx_step;         /* --tx-depth-sweep: this step's -t (0: none) */
	/* UD datagrams of the last run: client->server and back, and the
	 * client's re-sends (the server's figures come with ENDACK) */
	uint64_t ud_fwd_tx, ud_fwd_rx, ud_back_tx, ud_back_rx, ud_resent;
	uint64_t ud_tot_tx, ud_tot_rx, ud_tot_resent;
	struct perf_mpi *mpi;     /* --pattern: ranks under MPI (boot_mpi.c), else NULL */
	/* -b across processes: the server's own loop of the last run (ENDACK) */
	uint64_t peer_ops, peer_bytes, peer_ns;
	uint32_t peer_qps, peer_lcores;
};
/* UD: the datagram counters of this process's endpoints for the run: the
 * client ends' sent, arrived back and requests sent again, the server ends'
 * sent and arrived (repeats and stale ones left out) and stale (of earlier
 * runs, late). Under --pattern the sum over the ranks (cluster.c), hence
 * plain uint64_t fields only: MPI_Reduce adds them. */
struct perf_ud_run {
	uint64_t cli_tx;
	uint64_t cli_rx;
	uint64_t srv_tx;
	uint64_t srv_rx;         /* neither repeats nor stale datagrams */
	uint64_t resent;
	uint64_t stale;          /* stream: datagrams of earlier runs the server
				  * ends took in this one */
};
#define PERF_UD_RUN_WORDS (sizeof(struct perf_ud_run) / sizeof(uint64_t))
void perf_ud_counts(const struct perf_app *a, struct perf_ud_run *u);

/* setup.c: the plan and the device checks; 0 when the endpoints are
 * connected (one process), PERF_SETUP_BOOT when a bootstrap must find the
 * peer's (perf_boot_client/_server, perf_mpi_boot), <0 on error */
#define PERF_SETUP_BOOT 1
int perf_setup(struct perf_app *a);
void perf_teardown(struct perf_app *a);
int perf_run_prepare(struct perf_app *a, uint64_t size, uint32_t qps, const uint32_t *layout);
int perf_boot_ms(const struct perf_app *a);
int perf_alloc_lcores(struct perf_app *a);
int perf_alloc_eps(struct perf_app *a);
/* ep_connect.c: an endpoint and the peer an EP message describes */
struct wire_ep;
void perf_ep_wire_fill(const struct perf_ep *ep, struct wire_ep *w);
int perf_ep_connect(struct perf_app *a, struct perf_ep *ep, const struct wire_ep *w);
/* The peer's buffers of w into ep (perf_ep_connect without the QP). */
void perf_ep_remote_set(struct perf_app *a, struct perf_ep *ep, const struct wire_ep *w);

/* boot.c: two-process bootstrap and control messages */
int perf_boot_client(struct perf_app *a);
int perf_boot_server(struct perf_app *a);
int perf_client_run_begin(struct perf_app *a);
int perf_client_run_end(struct perf_app *a, uint64_t *peer_verify_errors);
int perf_client_bye(struct perf_app *a);
int perf_server_loop(struct perf_app *a);
/* the server sleeps on the bootstrap socket (nothing to serve) rather than polls */
static inline bool
perf_server_waits_on_socket(const struct perf_app *a)
{
	return !perf_engine_serves(a->eng, a->o.mode);
}

/* report.c */
/* What the raw-QP report and echo on lib/rpc's (rpc_report.c) share: the
 * report in a->rep with the knobs test, mode, lat_kind (kind), sizes (or
 * --mix when mix), duration/iterations and warm-up (NULL after one line);
 * the device knobs; the JSON/CSV files, after which a->rep is freed. */
struct rdx_report *perf_report_open(struct perf_app *a, const char *title, const char *kind,
				    bool mix);
void perf_report_dev_knobs(const struct perf_app *a);
const char *perf_sw_progress_name(enum rdx_sw_progress p);
int perf_report_files(struct perf_app *a);
int perf_report_init(struct perf_app *a);
/* the parameter block now (once; the report does not print it again) */
void perf_report_head_first(struct perf_app *a);
/* progress.c: a line on stderr once a second during a long run, when
 * stderr is a terminal (perf_check_slow calls the tick) */
void perf_progress_init(const struct perf_app *a);
void perf_progress_tick(const struct perf_lcore *lc, uint64_t now);
/* dev_kind.c: what the device is (NIC, kernel software RDMA device such
 * as rdma_rxe/siw, rdx's software model), under a sysfs class directory */
enum perf_dev_kind { PERF_DEV_KIND_NIC = 0, PERF_DEV_KIND_SOFT_RDMA, PERF_DEV_KIND_MODEL };
enum perf_dev_kind perf_dev_kind_at(const char *sysfs_ib, const struct rdx_dev_attr *at);
enum perf_dev_kind perf_dev_kind(const struct rdx_dev_attr *at);
const char *perf_dev_kind_label(enum perf_dev_kind k);
const char *perf_dev_kind_json(enum perf_dev_kind k);
/* the per-WR log's host= and dev_id= ("" each when not known; dev_kind.c) */
void perf_dev_identity(const struct perf_app *a, struct rdx_qp *qp, char *host, size_t hlen, char *id,
		       size_t ilen);
/* The software device's timing layer: the row just measured (its size
 * and QPs) is taken; after a bandwidth run, per row, whether the host
 * kept up with the modelled NIC ("model-bound" with both rates). */
void perf_dev_model_row(const struct perf_app *a, uint64_t size, uint32_t qps);
void perf_dev_model_footer(const struct perf_app *a, FILE *f);
/* host_stats.c: --cpu_util and -W around each client run (init after the
 * device is open: 0, or -EINVAL after one line); the last run's CPU
 * utilisation (< 0: none), its counters' lines, all runs' as knobs */
int perf_host_stats_init(const struct perf_app *a);
void perf_host_stats_begin(void);
void perf_host_stats_end(void);
double perf_host_cpu_util(void);
void perf_host_counters_print(FILE *f);
void perf_host_counters_knobs(struct rdx_report *r);
/* a --server's loop with --cpu_util / -W around it (perf_server_loop's rc) */
int perf_host_serve(struct perf_app *a);
/* perftest_head.c: perftest's parameter block and address lines (the
 * perftest form), from the connected endpoints */
void perf_perftest_head(struct perf_app *a);
/* READ / atomic responder resources: rdx_qp_conn_attr's default */
#define PERF_PT_OUT_READS 16u
void perf_report_run(struct perf_app *a, bool last);
/* report_tail.c: -b across processes, the side of a row (rank 0 the
 * client, 1 the server, -1 the sum), the server's row and the sum, the
 * table with its side column; a compact head (x NULL) or row with `tail` */
struct rdx_result;
void perf_bidir_side(struct rdx_result *x, int rank);
void perf_bidir_rows(struct perf_app *a, const struct rdx_result *cli);
void perf_bidir_compact(const struct perf_app *a);
void perf_compact_line_with(const struct perf_app *a, const struct rdx_result *x,
			    enum rdx_report_compact_kind kind, const char *tail);
int perf_report_finish(struct perf_app *a);
int perf_wrlog_write(struct perf_app *a);
/* An error that ends the runs: "rdx-perf: MSG" on stderr; the first one
 * is the reason a failed report gives. */
void perf_run_error(struct perf_app *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* List a run not run (test, mode, size, qps per lcore, offered rate) in the report. */
void perf_report_not_run(struct perf_app *a, uint64_t size, uint32_t qps, double offered);
/* Close the report's status from rc, the result of the runs: failed (rc < 0
 * but -EINTR, or --verify errors: the first perf_run_error, else
 * strerror), interrupted (-EINTR or the stop flag: stop_reason, else
 * SIGINT/SIGTERM), else completed; a line on stderr when interrupted
 * (a failure printed its own). Returns the status. */
int perf_report_end(struct perf_app *a, int rc);

/* rpc_echo.c: echo on lib/rpc (--transport infrc|basic+infud|homa+infud):
 * set-up, runs, reports and teardown of its own; 0 or a negative errno
 * (-EINVAL, -EPROTO: bad input, exit 2) */
int perf_rpc_main(struct perf_app *a);
/* rpc_mpi.c: the same under mpirun, --pattern clusterperf (MPI builds only) */
int perf_rpc_mpi_main(struct perf_app *a);
/* --transport's name ("rc", "ud", "infrc", ...) */
const char *perf_transport_name(unsigned int t);

/* telemetry.c: /rdx_perf/progress on DPDK telemetry (after EAL init) */
#define PERF_TEL_CMD_PROGRESS "/rdx_perf/progress"
enum perf_tel_state { PERF_TEL_SETUP = 0, PERF_TEL_RUNNING, PERF_TEL_DONE };
int perf_telemetry_register(const struct perf_app *a);
void perf_telemetry_state(enum perf_tel_state s);
#endif
