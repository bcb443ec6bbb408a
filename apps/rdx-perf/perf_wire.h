/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx-perf's two-process control messages (carried by lib/conn frames) and
 * the pure checks of everything a peer sends. Each check looks only at the
 * message and at the local state it is compared with (no I/O, no device
 * calls), returns 0 or -EPROTO and writes one line naming the field and its
 * value into err: a fuzz target can call them directly.
 */
#ifndef PERF_WIRE_H
#define PERF_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perf_app.h"

#define PERF_MSG_CONFIG 0x5250u
#define PERF_MSG_EP     0x5251u
#define PERF_MSG_RUN    0x5252u
#define PERF_MSG_READY  0x5253u
#define PERF_MSG_END    0x5254u
#define PERF_MSG_ENDACK 0x5255u
/* echo on lib/rpc (rpc_boot.c, wire version 4): after CONFIG, RPC; then
 * one rdx_rpc_session_bootstrap per client; per run RPC_RUN, RPC_READY
 * (= RPC_RUN), RPC_END (no payload), RPC_ENDACK */
#define PERF_MSG_RPC        0x5256u
#define PERF_MSG_RPC_RUN    0x5257u
#define PERF_MSG_RPC_READY  0x5258u
#define PERF_MSG_RPC_END    0x5259u
#define PERF_MSG_RPC_ENDACK 0x525au
/* -b across two processes (wire version 5): no payload, the server's own
 * measured loop is over; it comes before ENDACK, and until it the client
 * keeps consuming the server's messages (send, write_imm) */
#define PERF_MSG_BIDIR_DONE 0x525bu

#define PERF_WIRE_MAGIC 0x72647870u /* "rdxp" */

/*
 * -b across two processes (--server / --connect): every QP both posts the
 * test's ops and is their target, in each process. Its peer's ops land in
 * a buffer of their own (perf_ep.tbuf), so the two directions never share
 * bytes; send and write_imm keep receives posted at both ends.
 */
static inline bool
perf_bidir_procs(const struct perf_app *a)
{
	return a->o.bidir && (a->o.server || a->o.connect != NULL);
}

/* Everything both ends must agree on. Host byte order (lib/conn checks the
 * peers agree on the layout through the wire version). */
struct wire_config {
	uint32_t magic;
	uint32_t version;
	char app_version[16];
	char test[16];
	uint32_t mode;
	uint32_t nb_sizes;
	uint64_t sizes[PERF_MAX_SIZES];
	uint32_t total_qps;
	uint32_t window;
	uint32_t keys;
	uint32_t verify;
	uint64_t region_len;
	uint32_t rstride;
	uint32_t sq_depth;
	uint32_t transport;      /* enum perf_transport (wire version 3) */
	uint32_t flags;          /* PERF_WIRE_F_*; other bits 0 */
};

#define PERF_WIRE_F_RDMA_CM 1u   /* -R: the QPs connect through rdma_cm */
#define PERF_WIRE_F_BIDIR   2u   /* -b: both processes post (wire version 5) */

struct wire_ep {
	struct rdx_qp_info qp;
	uint64_t addr;
	uint64_t len;
	uint64_t raddr;
	uint32_t rkey;
	uint32_t rrkey;
	uint32_t rslots;
	uint32_t rstride;
};

struct wire_run {
	uint64_t size;
	uint64_t req_size;
	uint32_t stride;
	uint32_t slots;
	uint32_t qps;
	uint32_t bye;
};

struct wire_end {
	uint64_t verify_errors;
	int32_t status;
	/* -b and status 0: the server's BW peak of the run (perftest's, the
	 * sum of its lcores'), in KiB/s (1024 B/s), rounded; UINT32_MAX
	 * stands for 4 TiB/s or more; 0: not measured. 0 otherwise. (This
	 * was a pad that was always 0: a peer of before sends "not measured".) */
	uint32_t peak_kib;
	/* UD: the server's datagrams of the run, sent and received (0 on RC) */
	uint64_t ud_tx;
	uint64_t ud_rx;
	/* -b (wire version 5): the server's own measured loop of the run,
	 * summed over its lcores (all 0 without -b): ops and bytes it
	 * completed, ns from its first lcore's start to its last one's end,
	 * the QPs it posted on and its lcores */
	uint64_t ops;
	uint64_t bytes;
	uint64_t ns;
	uint32_t qps;
	uint32_t lcores;
};

/* What the client expects of an ENDACK's counts (perf_wire_end_check). */
struct wire_end_expect {
	bool bidir;              /* -b: the counts are the server's loop */
	uint32_t qps;            /* QPs of the run (the server posts on each) */
	uint64_t size;           /* message size of the run */
	uint64_t iters;          /* -n per QP; 0: -D (timed) */
};

/* ENDACK.peak_kib of a peak in bytes/s, and back (perf_wire.c) */
uint32_t perf_wire_peak_kib(double bytes_per_s);
double perf_wire_peak_bytes(uint32_t kib);

/* Longest run an ENDACK may report (ns): 30 days */
#define PERF_WIRE_MAX_RUN_NS (30ull * 86400 * 1000000000)

/* echo on lib/rpc: the layout the client chose (the server answers with
 * the copy it accepted). */
struct wire_rpc {
	uint32_t clients;        /* client endpoints: sessions the server opens */
	uint32_t servers;        /* server endpoints (client i -> server i % S) */
	uint32_t slots;          /* rdx_rpc_conf.slots of every endpoint */
	uint32_t concurrent;     /* calls in flight per client */
	uint32_t max_msg;        /* rdx_rpc_conf.max_msg_size in force */
	uint32_t verify;         /* 0 or 1 */
	uint32_t nb_mix;         /* --mix sizes (0: the size list) */
	uint32_t pad;
};

struct wire_rpc_run {
	uint64_t size;           /* the run's response size; 0: the mix */
	uint32_t bye;            /* 1: no more runs (the rest is ignored) */
	uint32_t pad;
};

/* The server's counters of a run (rdx_rpc_stats deltas of its endpoints). */
struct wire_rpc_end {
	int32_t status;
	uint32_t pad;
	uint64_t bad_reqs;       /* requests that were not echo requests */
	uint64_t counts[16];     /* struct perf_rpc_counts, in its order */
};

/*
 * boot.c, for both bootstraps (lib/boot's "tcp", or "rdmacm" for -R:
 * perf_boot_tcp opens the one named and finds the peer) (raw QPs, and echo on lib/rpc in rpc_boot.c):
 * the client's END of `end_type` (no payload) and the server's answer of
 * `ack_type` into ack (len bytes), with wait() in between unless NULL
 * (-b: the server's BIDIR_DONE): 0 or a negative errno after one line
 * (none for -EINTR on Ctrl-C). The answer's status after
 * its check: 0, or -EIO after one line. The goodbye: msg (a RUN with its
 * bye field 1) of run_type.
 */
struct perf_app;
int perf_boot_tcp(struct perf_app *a, const char *provider);
int perf_boot_run_end(struct perf_app *a, uint32_t end_type, uint32_t ack_type, void *ack,
		      size_t len, int (*wait)(struct perf_app *a));
int perf_boot_ack_status(struct perf_app *a, int32_t status);
int perf_boot_bye(struct perf_app *a, uint32_t run_type, const void *msg, size_t len);
/* -b across processes, client: the server's BW peak of the last run as its
 * ENDACK gave it, bytes/s (0: not measured). */
double perf_boot_peer_peak(const struct perf_app *a);

/*
 * --pattern (boot_mpi.c): perf_mpi_bad_input with said, the lines this rank
 * refused its arguments with, held unprinted (main.c). The ranks compare
 * them at their first sync point and each text is printed once, by the
 * lowest rank that has it: one line for a bad option of the whole job.
 * Without MPI (no --pattern) said is printed at once. PERF_EXIT_BAD_INPUT.
 */
struct perf_mpi_opts;
int perf_mpi_bad_input_said(const struct perf_mpi_opts *m, const char *said);

/* Largest -t (opts.c) and the send queue it and -Q can ask for. */
#define PERF_WIRE_MAX_WINDOW 65536u
#define PERF_WIRE_MAX_SQ_DEPTH (2u * 65536u)

/* plan(): bytes of one buffer for these sizes and this layout. */
uint64_t perf_plan_region_len(uint64_t max_size, uint32_t window, uint32_t keys,
			      uint32_t qps_plan);
/* plan(): receive slot stride for the largest size, `head` bytes before
 * the message (RDX_UD_GRH_BYTES over UD). */
uint32_t perf_plan_rstride(uint64_t max_size, uint32_t head);
/* Send-buffer slots a ping-pong plans at least: it builds its next message
 * into the other slot while one is in flight (pingpong.c, pp_next). */
#define PERF_PINGPONG_SLOTS 2u
/* The send-buffer slots a run plans, before the buffer's room and the
 * power of two: the window's, at least PERF_PINGPONG_SLOTS for a ping-pong
 * (perf_run_prepare). */
uint32_t perf_plan_slot_cap(uint32_t window, bool pingpong);
/* The most send-buffer slots a run may use (the server's RUN check): that
 * cap rounded up to a power of two. */
uint32_t perf_plan_max_slots(uint32_t window, bool pingpong);

/*
 * The peer's CONFIG against ours (me, as config_fill made it): magic, wire
 * version and app version (both strings must be NUL-terminated), test, mode,
 * transport, the size list. On a version mismatch err names the peer's version.
 */
int perf_wire_config_check(const struct wire_config *me, const struct wire_config *peer,
			   char *err, size_t len);
/*
 * Server: the client's layout fields of CONFIG (QPs, window, keys, verify,
 * buffer length, receive stride, send queue depth) against local limits
 * (a->attr, a->o.sizes) before anything is allocated from them.
 */
int perf_wire_layout_check(const struct perf_app *a, const struct wire_config *peer,
			   char *err, size_t len);
/* One EP of the peer against our plan (a->region_len, a->rstride, driver,
 * QP type of our --transport). */
int perf_wire_ep_check(const struct perf_app *a, const struct wire_ep *w, char *err,
		       size_t len);
/*
 * Server: a RUN against what was allocated: size one of ours, req_size and
 * stride as the client derives them, slots a power of two within the window
 * and slots x stride within a->region_len, 1 <= qps <= a->total_qps,
 * bye 0 or 1 (bye 1: the rest is ignored).
 */
int perf_wire_run_check(const struct perf_app *a, const struct wire_run *r, char *err,
			size_t len);
/* Client: READY must echo the RUN we sent. */
int perf_wire_ready_check(const struct wire_run *sent, const struct wire_run *got,
			  char *err, size_t len);
/*
 * Client: ENDACK status 0 or a negative errno (-1..-4095). Without -b,
 * and with -b when the run failed, peak_kib is 0; without -b the server's
 * loop counts are 0 too. With -b and status 0: qps as
 * expected, lcores 1..RDX_MAX_LCORES, ops 1.. (with -n at most (n + 1) per
 * QP: one more retires an unsignaled tail when a run is stopped), bytes
 * exactly ops x size, ns 1..PERF_WIRE_MAX_RUN_NS.
 */
int perf_wire_end_check(const struct wire_end *e, const struct wire_end_expect *x, char *err,
			size_t len);

/*
 * Server: the client's RPC layout against the limits of rpc_perf.h and
 * lib/rpc: clients 1..256, servers 1..min(64, clients), slots 8..64,
 * concurrent 1..slots, max_msg within lib/rpc's range and at least our
 * largest size, verify 0/1, nb_mix 0..8, pad 0.
 */
int perf_wire_rpc_check(const struct perf_app *a, const struct wire_rpc *w, char *err,
			size_t len);
/* Server: RPC_RUN: bye 0/1, pad 0, size 0 (mix) or one of our sizes. */
int perf_wire_rpc_run_check(const struct perf_app *a, const struct wire_rpc_run *r,
			    char *err, size_t len);
/* Client: RPC_ENDACK status 0 or -1..-4095, pad 0. */
int perf_wire_rpc_end_check(const struct wire_rpc_end *e, char *err, size_t len);

#endif /* PERF_WIRE_H */
