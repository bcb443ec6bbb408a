/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * rdx device API, per-QP counters and the registry of live QPs: each QP's
 * counters, ethdev queue-stats / xstats style (rdx_qp_xstats_get, _reset),
 * the state lib/dev knows a QP to be in, and the walk over the QPs of a
 * device (rdx_qp_foreach) that telemetry (/rdx/qp_list, /rdx/qp_xstats)
 * and tools use. Included by rdx_dev.h (do not include it on its own).
 *
 * Costs nothing on the fast path: drivers derive the counters from the
 * ring indices they keep anyway and from per-burst counters (at most one
 * increment per burst, none per WR); error and flush counts are bumped on
 * the error path only. The registry is control path: rdx_qp_create and
 * rdx_qp_destroy add and remove under its lock, the burst calls never
 * touch it.
 */
#ifndef RDX_DEV_STATS_H
#define RDX_DEV_STATS_H

#ifndef RDX_DEV_H
#error "include rdx_dev.h, not rdx_dev_stats.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The per-QP counters every driver that keeps them reports first, in this
 * order, under these names (rdx_qp_xstat_name); a driver appends its own
 * after them (doc/telemetry.md lists each driver's). Units are work
 * requests, not completions: with selective signaling one completion
 * retires many WRs, and each counts. For every side,
 * completed = ok + error + flushed, and posted - completed is what is
 * outstanding.
 */
enum rdx_qp_xstat_id {
	/** "send_wrs_posted": send WRs posted (rdx_qp_post_burst's returns). */
	RDX_QP_XSTAT_SEND_POSTED = 0,
	/** "send_doorbells": doorbells rung, one per burst that posted at
	 * least one WR (verbs: ibv_post_send calls). */
	RDX_QP_XSTAT_SEND_DOORBELLS,
	/** "send_wrs_completed": send WRs retired by completions polled,
	 * whatever their status. */
	RDX_QP_XSTAT_SEND_COMPLETED,
	/** "send_wrs_ok": of those, completed successfully. */
	RDX_QP_XSTAT_SEND_OK,
	/** "send_wrs_error": of those, completed with an error status other
	 * than flushed (one per error completion). */
	RDX_QP_XSTAT_SEND_ERROR,
	/** "send_wrs_flushed": of those, flushed (IBV_WC_WR_FLUSH_ERR). */
	RDX_QP_XSTAT_SEND_FLUSHED,
	/** "recv_wrs_posted": receive WRs posted. */
	RDX_QP_XSTAT_RECV_POSTED,
	/** "recv_doorbells": receive doorbell-record updates, one per burst
	 * that posted at least one (verbs: ibv_post_recv calls). */
	RDX_QP_XSTAT_RECV_DOORBELLS,
	/** "recv_wrs_completed": receive WRs completed, whatever their status. */
	RDX_QP_XSTAT_RECV_COMPLETED,
	/** "recv_wrs_ok": of those, successfully (a message received). */
	RDX_QP_XSTAT_RECV_OK,
	/** "recv_wrs_error": of those, with an error other than flushed. */
	RDX_QP_XSTAT_RECV_ERROR,
	/** "recv_wrs_flushed": of those, flushed. */
	RDX_QP_XSTAT_RECV_FLUSHED,
	/** The number of common counters; a driver's own follow. */
	RDX_QP_XSTATS_COMMON,
};

/**
 * Name of a common per-QP counter ("send_wrs_posted"; NULL for an id at or
 * above RDX_QP_XSTATS_COMMON). Pure function, thread-safe.
 */
const char *rdx_qp_xstat_name(enum rdx_qp_xstat_id id);

/**
 * A QP's counters, ethdev xstats style: the names and their order are
 * fixed for a QP (the RDX_QP_XSTATS_COMMON common ones first, then the
 * driver's), the values only grow, and rdx_qp_xstats_reset starts them
 * again from 0.
 *
 * Control path: any thread, while the QP's poster and poller run (values
 * are read with relaxed loads, without stopping anyone; a snapshot of a
 * busy QP may lag its datapath by the burst in flight, and is exact when
 * the QP is idle). Takes the registry lock; may be called from an
 * rdx_qp_foreach callback.
 *
 * @param qp
 *   A QP created by rdx_qp_create and not yet destroyed.
 * @param xs
 *   Room for n counters; NULL (or n 0) only counts them.
 * @param n
 *   The number of entries of xs.
 * @return
 *   How many counters the QP has (the first min(n, count) are filled),
 *   -ENOTSUP when its driver keeps none, -EINVAL for a NULL qp or xs NULL
 *   with n > 0.
 */
int rdx_qp_xstats_get(struct rdx_qp *qp, struct rdx_dev_xstat *xs, unsigned int n);

/**
 * Start a QP's counters again from 0 (as rte_eth_xstats_reset): the
 * current values become the base later reads subtract. The datapath is
 * not touched, so this is safe while the QP runs; the device's counters
 * (rdx_dev_xstats_get) and rdx_qp_state_get are not affected.
 *
 * Control path: any thread; takes the registry lock (allocates the base
 * the first time).
 *
 * @param qp
 *   A QP created by rdx_qp_create and not yet destroyed.
 * @return
 *   0, -ENOTSUP when its driver keeps no counters, -EINVAL for a NULL qp,
 *   -ENOENT for a QP not in the registry, -ENOMEM.
 */
int rdx_qp_xstats_reset(struct rdx_qp *qp);

/** QP states as lib/dev knows them (rdx_qp_state_get). */
enum rdx_qp_state {
	RDX_QP_STATE_RESET = 0, /**< created, not (successfully) connected */
	RDX_QP_STATE_RTS,       /**< rdx_qp_connect succeeded: ready to send */
	RDX_QP_STATE_ERR,       /**< its completions show it in error: a flush,
	                             or on RC any error completion (IBTA: an RC
	                             error completion moves the QP to error; a
	                             UD QP stays usable after a length error) */
};

/**
 * The state of qp as lib/dev knows it: from rdx_qp_connect's success and
 * the QP's error and flush counters (no query to the device).
 *
 * Control path, any thread; takes the registry lock.
 *
 * @return
 *   An enum rdx_qp_state value, -EINVAL for a NULL qp, -ENOENT for a QP
 *   not in the registry.
 */
int rdx_qp_state_get(struct rdx_qp *qp);

/** Name of a QP state ("reset", "rts", "error"; "?" for others). Thread-safe. */
const char *rdx_qp_state_name(int state);

/** Name of a QP type ("RC", "UD"; "?" for others). Thread-safe. */
const char *rdx_qp_type_name(uint8_t type);

/** Callback of rdx_qp_foreach: non-zero stops the walk. */
typedef int (*rdx_qp_foreach_fn_t)(struct rdx_qp *qp, void *arg);

/**
 * Call fn on every live QP of dev (created by rdx_qp_create, not yet
 * destroyed), or of every device when dev is NULL, in creation order,
 * until it returns non-zero.
 *
 * Control path, thread-safe: the registry lock is held during the calls,
 * so a QP cannot be destroyed under fn. fn may call rdx_qp_xstats_get,
 * rdx_qp_xstats_reset and rdx_qp_state_get (the lock is recursive), and
 * must not create or destroy QPs. For telemetry and tools, not the fast
 * path.
 *
 * @param dev
 *   An open device, or NULL for all.
 * @param fn
 *   Called with each QP and arg.
 * @param arg
 *   Passed to fn.
 * @return
 *   fn's first non-zero return, else 0; -EINVAL for a NULL fn.
 */
int rdx_qp_foreach(struct rdx_dev *dev, rdx_qp_foreach_fn_t fn, void *arg);

/**
 * Number of live QPs of dev (all devices when dev is NULL).
 *
 * Control path, thread-safe (takes the registry lock).
 */
unsigned int rdx_qp_count(struct rdx_dev *dev);

#ifdef __cplusplus
}
#endif

#endif /* RDX_DEV_STATS_H */
