/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Path stamps: TSC stamps taken at fixed points of a two-process echo's
 * round trip, to see where its time goes (bench/echo_path.sh reads them).
 * Built in only with `meson setup -Dpath_stamps=true` (RDX_PATH_STAMPS);
 * otherwise RDX_STAMP() and RDX_STAMP_AT() compile to nothing, and no
 * default build carries a stamp.
 *
 * Each kind is stamped by one thread of a process (the echo's lcore, whose
 * posts and polls also run the software device's engine), the nth stamp of
 * a kind at index n, so the nth request of a run lines up across the kinds
 * and the two processes. At exit the stamps go to the file named by the
 * environment variable RDX_STAMPS, suffixed with ".<pid>"; without it
 * nothing is written.
 */
#ifndef RDX_STAMP_H
#define RDX_STAMP_H

#include <stdint.h>

#include "rdx_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The points, in the order one round trip passes them. */
enum rdx_stamp_kind {
	RDX_STAMP_REQ_POST = 0, /**< requester: its request about to be posted */
	RDX_STAMP_PEER_CQE,     /**< engine: a CQE written into another process's CQ */
	RDX_STAMP_RESP_POLL,    /**< responder: its poll returned the request */
	RDX_STAMP_RESP_POST,    /**< responder: its answer about to be posted */
	RDX_STAMP_REQ_POLL,     /**< requester: its poll returned the answer */
	RDX_STAMP_KINDS
};

#ifdef RDX_PATH_STAMPS
/** Stamps kept per kind (later ones are dropped). */
#define RDX_STAMP_MAX (1u << 20)

extern uint64_t rdx_stamp_buf[RDX_STAMP_KINDS][RDX_STAMP_MAX];
extern uint32_t rdx_stamp_cnt[RDX_STAMP_KINDS];

/** Record tsc as the next stamp of kind k. */
static inline void
rdx_stamp_at(enum rdx_stamp_kind k, uint64_t tsc)
{
	const uint32_t i = rdx_stamp_cnt[k];

	if (i < RDX_STAMP_MAX) {
		rdx_stamp_buf[k][i] = tsc;
		rdx_stamp_cnt[k] = i + 1;
	}
}

#define RDX_STAMP(k) rdx_stamp_at((k), rdx_tsc())
#define RDX_STAMP_AT(k, tsc) rdx_stamp_at((k), (tsc))
#else
#define RDX_STAMP(k) do { } while (0)
#define RDX_STAMP_AT(k, tsc) do { (void)(tsc); } while (0)
#endif

#ifdef __cplusplus
}
#endif

#endif /* RDX_STAMP_H */
