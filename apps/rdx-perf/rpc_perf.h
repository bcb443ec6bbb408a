/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * echo on lib/rpc (--transport infrc|basic+infud|homa+infud): the state
 * rpc_echo.c (checks, runs), rpc_cli.c (clients), rpc_srv.c (servers),
 * rpc_kv.c (the KV glue), rpc_report.c (reports) and rpc_boot.c (two
 * processes) share. Unlike the raw-QP engines, nothing here goes through setup.c or
 * the loops: a client is an rdx_rpc endpoint with one session to a server
 * endpoint, calls carry a 30-byte request naming the response size, and
 * the server endpoints' handler answers with that many bytes.
 */
#ifndef RPC_PERF_H
#define RPC_PERF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rdx_config.h"
#include "rdx_hist.h"
#include "rdx_rpc.h"

#include "perf_app.h"
/* examples/kv: the store the KV service serves */
#include "../../examples/kv/kv_store.h"

/* the request type of echo, and its 30 bytes (little-endian host order) */
#define PERF_RPC_TYPE_ECHO 7
#define PERF_RPC_REQ_MAGIC 0x45435250u /* "PRCE" */
#define PERF_RPC_F_VERIFY 1u
/* magic u32 | resp_len u32 | seq u64 | flags u32 | zero bytes to 30 */
#define PERF_RPC_REQ_OFF_LEN 4
#define PERF_RPC_REQ_OFF_SEQ 8
#define PERF_RPC_REQ_OFF_FLAGS 16

/* basic.read / basic.write: clusterperf's 30-byte keys, the bytes of a
 * KV request or response beyond the object (struct kv_req or kv_resp and
 * the key), and the objects of the table at each size: 16 MiB of them,
 * 16 .. 2000 */
#define PERF_RPC_KV_KEY 30
#define PERF_RPC_KV_HDR 64
#define PERF_RPC_KV_BYTES (16u << 20)
#define PERF_RPC_KV_MIN_OBJ 16u
#define PERF_RPC_KV_MAX_OBJ 2000u

/* lib/rpc's bound on calls in flight per session */
#define PERF_RPC_MAX_SLOTS 64u
/* server endpoints (--servers) and client endpoints in all */
#define PERF_RPC_MAX_SERVERS 64u
#define PERF_RPC_MAX_CLIENTS 256u

/* The counters of rdx_rpc_stats a run reports (deltas of a run). */
struct perf_rpc_counts {
	uint64_t calls_ok;
	uint64_t calls_err;
	uint64_t requests;
	uint64_t retransmits;
	uint64_t acks_sent;
	uint64_t grants_sent;
	uint64_t grants_rcvd;
	uint64_t resends_sent;
	uint64_t resends_rcvd;
	uint64_t busy_sent;
	uint64_t busy_rcvd;
	uint64_t dup_dropped;
	uint64_t bad_pkts;
	uint64_t no_buf;
	uint64_t timeouts;
	uint64_t errors;
};

/* One server endpoint and its sessions (one per client it answers). */
struct perf_rpc_srv {
	struct rdx_rpc_endpoint *ep;
	struct rdx_rpc_session **sess;
	uint32_t nb_sess;
	uint64_t bad_reqs;        /* requests that were not echo requests */
	struct kv_store store;    /* basic.read / basic.write: the table */
	bool store_huge;          /* store.vals from rte_malloc (--mem huge) */
	uint64_t kv_size;         /* the run's object size, until its table is made */
	struct rdx_rpc_stats base; /* counters when the run began */
};

/* rpc_srv.c: the server side, used by both modes */
int perf_rpc_srv_create(struct perf_app *a, struct perf_rpc_srv *sv, uint32_t idx,
			uint32_t nb_sess);
void perf_rpc_srv_destroy(struct perf_rpc_srv *sv);
struct rdx_rpc_conf;
void perf_rpc_conf(const struct perf_app *a, struct rdx_rpc_conf *c, const char *name,
		   uint32_t sessions);
/* the counters of sv since its base, added to n; the base moves to now */
void perf_rpc_counts_add(struct perf_rpc_counts *n, const struct rdx_rpc_endpoint *ep,
			 struct rdx_rpc_stats *base);
/* the largest response of the runs (sizes or --mix) */
uint64_t perf_rpc_max_size(const struct perf_opts *o);

/* the server endpoints of this process (rpc_boot.c's server makes them) */
struct perf_rpc_srv *perf_rpc_srvs(uint32_t *n);
void perf_rpc_srvs_set(uint32_t n);

/* One process: the servers are polled by the (only) client lcore, not
 * by the main lcore (set up by rpc_echo.c, read by the report). */
bool perf_rpc_srv_same_lcore(const struct perf_app *a);
/* The software device runs its model on the polling thread (rpc_srv.c). */
bool perf_rpc_sw_inline(const struct perf_app *a);

/* rpc_kv.c, basic.*: the objects of the table at one size; drop sv's
 * table, the next one (made by the first KV request) for objects of size
 * bytes (0); free it; the KV service's handler on it (arg: the server) */
uint32_t perf_rpc_kv_objects(uint64_t size);
int perf_rpc_kv_store_reset(const struct perf_app *a, struct perf_rpc_srv *sv, uint64_t size);
void perf_rpc_kv_store_free(struct perf_rpc_srv *sv);
struct rdx_rpc_req;
void perf_rpc_kv_handler(struct rdx_rpc_req *req, void *arg);

/* The clients' random numbers (mix classes, KV keys). */
static inline uint64_t
perf_rpc_xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

/* rpc_boot.c: two processes over the existing TCP bootstrap */
struct perf_rpc_cli;
int perf_rpc_boot_client(struct perf_app *a, struct perf_rpc_cli *cli, uint32_t nb_cli);
int perf_rpc_run_begin(struct perf_app *a, uint64_t size);
int perf_rpc_run_end(struct perf_app *a, struct perf_rpc_counts *peer, uint64_t *peer_bad);
int perf_rpc_bye(struct perf_app *a);
int perf_rpc_server(struct perf_app *a);

/* the client endpoint: rpc_cli.c makes it; rpc_boot.c connects its session */
struct perf_rpc_cli {
	struct rdx_rpc_endpoint *ep;
	struct rdx_rpc_session *sess;
	struct perf_rpc_lc *lc;
	uint32_t id;
	uint32_t inflight;
	uint64_t issued;
	uint64_t done;
	uint64_t target;
	uint64_t rng;
	uint32_t nb_free;
	uint32_t *free;           /* free call slots */
	struct perf_rpc_call *calls;
	uint8_t *resp;            /* concurrent x largest response */
	uint64_t resp_stride;
	uint8_t *kvreq;           /* basic.*: concurrent x largest KV request */
	uint64_t kvreq_stride;
	bool filling;             /* basic.*: the PUTs that fill the table */
	uint32_t fill_next;
	struct rdx_rpc_stats base;
};

struct perf_rpc_call {
	struct perf_rpc_cli *cli;
	uint64_t t0;
	uint64_t seq;
	uint32_t slot;
	uint32_t cls;             /* index of the size (mix class) */
	uint32_t size;
	uint32_t key;             /* basic.*: the object's index */
	uint32_t op;              /* basic.*: KV_GET or KV_PUT */
	bool measured;
	uint8_t req[PERF_ECHO_REQ];
};

/* One client lcore: its clients, and the server endpoints when it is the
 * only lcore of a one-process run. */
struct perf_rpc_lc {
	unsigned int lcore_id;
	struct perf_rpc_cli *cli;
	uint32_t nb_cli;
	struct perf_rpc_srv *srv;
	uint32_t nb_srv;
	const struct perf_app *a;
	struct rdx_hist *hist[PERF_MAX_MIX];
	bool measure;
	uint64_t ops[PERF_MAX_MIX];
	uint64_t bytes[PERF_MAX_MIX];
	uint64_t errors;
	uint64_t verify_errors;
	uint64_t t_start, t_end;
	int first_err;            /* the first failed call's status */
	int err;
	char errmsg[160];
};

/* The run in progress (read-only while lcores run). */
struct perf_rpc_run {
	uint64_t sizes[PERF_MAX_MIX];
	uint64_t cum[PERF_MAX_MIX]; /* cumulative weights (mix) */
	uint32_t nb;              /* 1: one size; else the mix */
	uint64_t wsum;
	uint32_t nb_obj;          /* basic.*: objects in the table */
};

extern struct perf_rpc_run perf_rpc_run;
extern struct perf_rpc_lc perf_rpc_lcs[RDX_MAX_LCORES];
extern uint32_t perf_rpc_nb_clis;

/* rpc_kv.c: issue one KV call of client c in call slot k; the result of
 * rdx_rpc_call */
int perf_rpc_kv_issue(struct perf_rpc_cli *c, struct perf_rpc_call *k, bool verify);

/* rpc_cli.c: one client endpoint with its call slots and session, and its
 * end; one run's client lcores (the main lcore polls the servers or
 * watches the peer) */
int perf_rpc_cli_create(struct perf_app *a, struct perf_rpc_cli *c, uint32_t id,
			struct perf_rpc_lc *lc);
void perf_rpc_cli_destroy(struct perf_rpc_cli *c);
int perf_rpc_launch(struct perf_app *a);

/* rpc_echo.c, for rpc_mpi.c (ranks under mpirun): the checks, the client
 * endpoints (not connected when a->mpi is set), every endpoint's end */
int perf_rpc_check(const struct perf_app *a);
int perf_rpc_setup(struct perf_app *a);
void perf_rpc_teardown(struct perf_app *a);

/* rpc_report.c: the report of echo on lib/rpc */
struct rdx_result;
void perf_rpc_row_fill(const struct perf_app *a, struct rdx_result *x, uint64_t size, bool mix,
		       const struct perf_rpc_counts *n);
int perf_rpc_report_init(struct perf_app *a);
void perf_rpc_report_run(struct perf_app *a, uint64_t size, const struct perf_rpc_counts *n);
void perf_rpc_counts_line(const struct perf_app *a, const char *what,
			  const struct perf_rpc_counts *n, uint64_t errors, uint64_t bad_reqs);
void perf_rpc_counts_sum(struct perf_rpc_counts *t, const struct perf_rpc_counts *n);
int perf_rpc_report_finish(struct perf_app *a, const struct perf_rpc_counts *t);
/* the clusterperf report of the runs (clusterperf's names, units, columns) */
int perf_rpc_print_clusterperf(const struct perf_app *a, FILE *f);

#endif /* RPC_PERF_H */
