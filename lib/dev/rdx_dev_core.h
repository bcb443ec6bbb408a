/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * rdx device API, the core: the layout of struct rdx_qp and struct rdx_cq
 * and the inline burst calls of the fast path. Included by rdx_dev.h (do
 * not include it on its own); apps call the functions below, drivers embed
 * struct rdx_qp / struct rdx_cq as the first member of their own objects
 * and fill in the burst pointers (rdx_dev_driver.h).
 *
 * The layout is an ABI between apps and drivers: the fast-path pointers
 * come first so that one cache line holds what a burst call reads.
 */
#ifndef RDX_DEV_CORE_H
#define RDX_DEV_CORE_H

#ifndef RDX_DEV_H
#error "include rdx_dev.h, not rdx_dev_core.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** A driver's send burst (rdx_qp_post_burst's contract). */
typedef uint16_t (*rdx_post_burst_t)(struct rdx_qp *qp, const struct rdx_wr *wr,
				     uint16_t n);
/** A driver's receive burst (rdx_qp_post_recv_burst's contract). */
typedef uint16_t (*rdx_post_recv_burst_t)(struct rdx_qp *qp,
					  const struct rdx_recv_wr *wr, uint16_t n);
/** A driver's poll burst (rdx_cq_poll_burst's contract). */
typedef uint16_t (*rdx_poll_burst_t)(struct rdx_cq *cq, struct rdx_wc *wc,
				     uint16_t n);

/** A queue pair. Drivers embed this as the first member of their own struct;
 * the fast-path pointers come first. Apps read it, never write it. */
struct rdx_qp {
	rdx_post_burst_t post_burst;
	rdx_post_recv_burst_t post_recv_burst;
	struct rdx_dev *dev;
	void *user_ctx;           /**< rdx_qp_conf.user_ctx */
	uint32_t qp_num;
	struct rdx_qp_conf conf;  /**< as granted (max_inline, depths may grow) */
};

/** A completion queue. Drivers embed this as the first member. Apps read
 * it, never write it. */
struct rdx_cq {
	rdx_poll_burst_t poll_burst;
	/** rdx_cq_poll_req_burst's op: never NULL on a CQ from rdx_cq_create
	 * (lib/dev puts poll_burst there when the driver leaves it NULL). */
	rdx_poll_burst_t poll_req_burst;
	struct rdx_dev *dev;
	struct rdx_cq_conf conf;  /**< as granted */
};

/**
 * Post up to n send work requests and ring the doorbell once for all of
 * them.
 *
 * Fast path: one indirect call; no allocation, lock, log or system call
 * in the driver. On the software device in inline-progress mode the call
 * also runs the device model, as a NIC starts on the doorbell: what a
 * model's step may do then (wake a CQ waiter with a futex, try for up to
 * SW_LOCK_TRY_NS a shared lock a peer process holds, log a device error)
 * happens inside the post (drivers/mlx5/sw/README.md).
 * Not thread-safe on one QP: one thread posts to a QP at a time (different
 * QPs may be posted from different threads).
 *
 * @param qp
 *   A QP created by rdx_qp_create (and connected before WRs that reach the
 *   peer).
 * @param wr
 *   An array of at least n work requests; the SGE arrays they point to are
 *   read during the call only (inline data is copied, other data is read by
 *   the device later: the buffers must stay registered and unchanged until
 *   the completion that retires the WR).
 * @param n
 *   The number of work requests to post (0 is allowed and posts nothing).
 * @return
 *   The number posted, 0..n. Fewer than n when the send queue is full, or
 *   when wr[ret] is invalid (bad opcode, too many SGEs, inline too large;
 *   on a UD QP also RDMA/atomic opcodes and a NULL ah): that WR and the
 *   ones after it were not posted. Errors in posted WRs (keys, bounds,
 *   access) arrive as error completions; so does a UD SEND longer than
 *   rdx_dev_attr.max_ud_msg: it is not sent, and its completion (always
 *   generated) has status IBV_WC_LOC_LEN_ERR; the QP stays usable.
 */
static inline uint16_t
rdx_qp_post_burst(struct rdx_qp *qp, const struct rdx_wr *wr, uint16_t n)
{
	return qp->post_burst(qp, wr, n);
}

/**
 * Post up to n receive work requests with one doorbell-record update.
 *
 * Fast path: one indirect call; no allocation, lock, log or system call.
 * Not thread-safe on one QP (one receive poster at a time).
 *
 * @param qp
 *   A QP created with rq_depth > 0.
 * @param wr
 *   An array of at least n receive work requests; the scatter buffers must
 *   stay registered until their completions.
 * @param n
 *   The number of receive WRs to post.
 * @return
 *   The number posted, 0..n: fewer when the receive queue is full or
 *   wr[ret] has more SGEs than the QP's max_recv_sge.
 */
static inline uint16_t
rdx_qp_post_recv_burst(struct rdx_qp *qp, const struct rdx_recv_wr *wr, uint16_t n)
{
	return qp->post_recv_burst(qp, wr, n);
}

/**
 * Poll up to n completions, with one CQ doorbell-record update per call.
 *
 * Fast path: one indirect call; no allocation, lock, log or system call
 * in the driver (on the software device in inline-progress mode the call
 * also runs the device model, with what that may do: see
 * rdx_qp_post_burst). Not thread-safe on one CQ: one poller at a time.
 *
 * @param cq
 *   The CQ to poll.
 * @param wc
 *   Room for at least n completions.
 * @param n
 *   The largest number of completions to return.
 * @return
 *   The number of completions written to wc, 0..n (0: none yet). Each
 *   carries its own status (rdx_wc.status): a failed WR is a completion,
 *   not an error return.
 */
static inline uint16_t
rdx_cq_poll_burst(struct rdx_cq *cq, struct rdx_wc *wc, uint16_t n)
{
	return cq->poll_burst(cq, wc, n);
}

/**
 * Poll up to n completions for a loop that only needs to know which of its
 * sends completed and how: the lean completion contract (a latency loop's
 * poll of its send CQ). Same call, count and CQ doorbell-record update as
 * rdx_cq_poll_burst, the same completions in the same order; only what a
 * completion carries may be less:
 *
 * - a successful requester completion (status IBV_WC_SUCCESS, opcode
 *   RDX_WC_SEND, RDX_WC_WRITE, RDX_WC_READ, RDX_WC_CAS, RDX_WC_FAA,
 *   RDX_WC_NOP, or RDX_WC_UNKNOWN for an opcode the driver does not name)
 *   has wr_id, status, opcode, retired and qp_num set, and
 *   rdx_qp_retired_wr_id works on it as on rdx_cq_poll_burst's; qp_ctx,
 *   byte_len, imm and vendor_err are undefined (a READ's byte count, the
 *   8 of an atomic and the QP's user_ctx are not written: find the QP by
 *   qp_num, or use rdx_cq_poll_burst);
 * - every other completion (an error or a flush, a receive, a completion
 *   the driver cannot match to a WR) is written in full, exactly as
 *   rdx_cq_poll_burst writes it.
 *
 * A driver without a lean poll gives the full one here (every field set),
 * which meets this contract. rdma-core's extended CQ (ibv_start_poll /
 * ibv_wc_read_*) is the precedent: a poller reads only the fields it asks
 * for. Fast path, threading and return value as rdx_cq_poll_burst; a CQ
 * may be polled with both calls, one at a time.
 */
static inline uint16_t
rdx_cq_poll_req_burst(struct rdx_cq *cq, struct rdx_wc *wc, uint16_t n)
{
	return cq->poll_req_burst(cq, wc, n);
}

#ifdef __cplusplus
}
#endif

#endif /* RDX_DEV_CORE_H */
