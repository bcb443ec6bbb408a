/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The software mlx5 device ("sw"): counters and fault injection for tests
 * and reports. Everything here is control path; the fast path is the mlx5
 * datapath itself (rdx_mlx5.h) working on rings the model keeps in shared
 * memory.
 */
#ifndef RDX_SW_H
#define RDX_SW_H

#include <stdbool.h>
#include <stdint.h>

#include "rdx_dev.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * How the device's engine runs: the devargs "progress=inline|poll|thread"
 * of rdx_dev_open ("sw:progress=thread", or rdx_dev_conf.devargs).
 */
enum rdx_sw_progress {
	/** "inline" (default): on the caller's thread, from each post that
	 * rang a doorbell (as a NIC starts on the doorbell) and from polls
	 * (deterministic) */
	RDX_SW_PROGRESS_INLINE = 0,
	RDX_SW_PROGRESS_THREAD,     /**< "thread": on its own thread, like a NIC */
	/** "poll": on the caller's thread, from polls only: the doorbells of
	 * several posts wait for the next poll, which takes them together */
	RDX_SW_PROGRESS_POLL,
};

/** Device counters (this process's engine, plus CQEs written into this
 * device's CQs by any engine). */
struct rdx_sw_stats {
	uint64_t doorbells;     /**< doorbells seen in the BlueFlame areas */
	uint64_t bf_copies;     /**< of which whole-WQE BlueFlame copies */
	uint64_t wqes;          /**< send WQEs executed (including failed ones) */
	uint64_t recv_wqes;     /**< receive WQEs consumed (by any engine) */
	uint64_t cqes;          /**< CQEs written into this device's CQs */
	uint64_t rnr_naks;      /**< RNR NAKs met by this engine's requesters */
	uint64_t retries;       /**< transport retries (missing ACK) */
	uint64_t errors;        /**< error CQEs other than flushes */
	uint64_t flushes;       /**< WR_FLUSH_ERR CQEs */
	uint64_t cq_overruns;   /**< CQE writes refused: CQ full */
	uint64_t device_errors; /**< malformed WQE/doorbell: a datapath bug */
	/* UD: the sums of struct rdx_sw_ud_stats over this device's QPs,
	 * destroyed ones included */
	uint64_t ud_sent;          /**< UD SENDs executed (injected drops included) */
	uint64_t ud_too_long;      /**< UD SENDs above max_ud_msg: LOC_LEN at the sender */
	uint64_t ud_drop_dest;     /**< datagrams to no UD QP ready at that address */
	uint64_t ud_inject_drop;   /**< datagrams dropped by injection */
	uint64_t ud_inject_dup;    /**< datagrams delivered twice by injection */
	uint64_t ud_inject_delay;  /**< datagrams delayed by injection */
	uint64_t ud_recv;          /**< datagrams received */
	uint64_t ud_drop_no_recv;  /**< arrived with no receive WQE posted: dropped */
	uint64_t ud_drop_qkey;     /**< arrived with another Q_Key: dropped */
	uint64_t ud_recv_len_err;  /**< receive buffer too small: LOC_LEN, QP to ERR */
};

/** One UD QP's datagram counters (rdx_sw_qp_ud_stats). Send side: what
 * this QP's WQEs did; receive side: what arrived at this QP (from any
 * engine, any process). doc/ud.md describes each. */
struct rdx_sw_ud_stats {
	uint64_t sent;          /**< UD SENDs executed (injected drops included) */
	uint64_t too_long;      /**< above max_ud_msg: LOC_LEN error at the sender */
	uint64_t drop_dest;     /**< no UD QP ready at that address (or unreachable) */
	uint64_t inject_drop;   /**< dropped by injection (ud_drop, ud_drop_every) */
	uint64_t inject_dup;    /**< delivered twice by injection (ud_dup) */
	uint64_t inject_delay;  /**< delayed by injection (ud_delay_us, ud_delay) */
	uint64_t recv;          /**< datagrams received (receive CQE written) */
	uint64_t drop_no_recv;  /**< arrived with no receive WQE posted */
	uint64_t drop_qkey;     /**< arrived with a Q_Key other than the QP's */
	uint64_t recv_len_err;  /**< receive buffer too small (LOC_LEN, QP to ERR) */
};

/** QP states as the model keeps them (kernel qp.h numbering). */
enum rdx_sw_qp_state {
	RDX_SW_QPS_RESET = 0,
	RDX_SW_QPS_INIT = 1,
	RDX_SW_QPS_RTR = 2,
	RDX_SW_QPS_RTS = 3,
	RDX_SW_QPS_ERR = 6,
};

/** True when dev is a software mlx5 device. */
bool rdx_sw_dev_is_sw(const struct rdx_dev *dev);
/** Fill *st. @return 0 or -EINVAL (not a sw device). */
int rdx_sw_stats_get(const struct rdx_dev *dev, struct rdx_sw_stats *st);
/** Run the engine once over every QP of dev (what a CQ's poll runs first
 * in inline and poll mode). @return number of WQEs executed or flushed. */
int rdx_sw_progress(struct rdx_dev *dev);
/** How dev's engine runs (enum rdx_sw_progress, from its devargs), or
 * -EINVAL (not a sw device). */
int rdx_sw_progress_mode_get(const struct rdx_dev *dev);
/** Model state of a QP (enum rdx_sw_qp_state) or -EINVAL. */
int rdx_sw_qp_state(const struct rdx_qp *qp);
/** A QP's UD counters (zeros for an RC QP). @return 0 or -EINVAL. */
int rdx_sw_qp_ud_stats(const struct rdx_qp *qp, struct rdx_sw_ud_stats *st);
/** Number of CQE writes refused on this CQ because it was full. */
uint64_t rdx_sw_cq_overruns(const struct rdx_cq *cq);

/**
 * Fault injection: the nth send WQE this QP executes from now on (1 = the
 * next one) fails with the given error-CQE syndrome (e.g. 0x04, 0x13,
 * 0x15); the QP then goes to error and the rest is flushed. nth 0 cancels.
 */
int rdx_sw_qp_inject_error(struct rdx_qp *qp, uint32_t nth, uint8_t syndrome);
/**
 * Fault injection: make the peer of qp vanish (as if its node died): every
 * later WQE that needs the peer is retried retry_cnt times and fails with
 * RETRY_EXC_ERR (0x15), as a missing ACK would.
 */
int rdx_sw_qp_peer_vanish(struct rdx_qp *qp, bool vanish);

/** Remove segments /dev/shm/rdx-sw-<pid>-* left behind by dead processes
 * of this effective uid (regular files only; another user's are kept).
 * @return how many were removed. */
int rdx_sw_cleanup_stale(void);

#ifdef __cplusplus
}
#endif

#endif /* RDX_SW_H */
