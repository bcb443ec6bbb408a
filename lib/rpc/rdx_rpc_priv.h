/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rpc internals: the endpoint, session and slot structs the common code
 * (rdx_rpc.c) and the transports (rdx_rpc_rc.c: infrc; rdx_rpc_ud.c:
 * basic+infud and homa+infud) share. Not installed.
 */
#ifndef RDX_RPC_PRIV_H
#define RDX_RPC_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <sys/queue.h>

#include "rdx_dev.h"
#include "rdx_rpc.h"
#include "rdx_rpc_proto.h"

#define RPC_MAX_SLOTS 64u
#define RPC_BURST 32u
/** A retransmission timer doubles after each timeout in a row (up to the
 * endpoint's rto_max: rpc_rtt_wait) and starts again at the session's
 * RTO on progress; the count stops at RPC_MAX_BACKOFF. */
#define RPC_MAX_BACKOFF 24u
/** A receiver's timer that expires while other packets of the session
 * still come is put off (the peer is busy sending those), at most this
 * many times in a row. */
#define RPC_RX_DEFERS 3u
/** homa: RESENDs a receiver's timeout sends at most (one per run of
 * missing packets). */
#define RPC_RESEND_RUNS 4u
#define RPC_NONE UINT32_MAX
/** A packet this short (header included) goes inline in its send WQE
 * when the device allows: the short path of a small message, one WQE
 * with no gather entry for the device to read. */
#define RPC_INLINE 64u
/** infrc: receives reposted together (rdx_rpc_rc.c) */
#define RPC_RC_RBATCH 8u
/** infrc: sends of one session a poll queues for one post at most */
#define RPC_RC_TXB 8u

/** Client slot: one call in flight (ids idx, idx + slots, ...). */
struct rpc_cslot {
	struct rdx_rpc_session *sess;
	uint64_t id;              /**< the current or last call's id */
	bool used;                /**< id is meaningful */
	bool busy;                /**< a call is in flight */
	bool req_done;            /**< the request is known delivered */
	bool resp_started;        /**< rx holds the response's reassembly */
	uint16_t type;
	uint32_t idx;
	const uint8_t *req;
	uint32_t req_len;
	uint8_t *resp;
	uint32_t resp_cap;
	rdx_rpc_cont_fn cont;
	void *arg;
	struct rpc_tx tx;         /**< the request */
	struct rpc_rx rx;         /**< the response */
	struct rpc_grant_ent gent; /**< homa: granting the response */
	uint32_t acks_due;        /**< basic: new packets since the last ACK */
	struct rpc_rtt_timing tm;  /**< the exchange our message's packets time */
	struct rpc_rtt_timing gtm; /**< homa: the grant we time (receiving) */
	uint64_t t_sent;          /**< TSC of our message's last first-time packet */
	uint64_t t_resend;        /**< TSC we last answered a RESEND about it */
	uint32_t resend_off;      /**< the offset that RESEND asked for */
	uint8_t rx_defers;        /**< receiving: timeouts put off in a row */
	uint32_t backoff;         /**< timeouts in a row: the timer waits rto << backoff */
	uint64_t t_progress;      /**< TSC of the last sign of life */
	uint64_t t_retx;          /**< TSC the retransmission timer started */
};

enum rpc_sstate {
	SS_IDLE = 0,  /**< nothing, or the last RPC finished (buffers released) */
	SS_RECV,      /**< receiving the request */
	SS_HANDLER,   /**< the handler has it; no response yet */
	SS_RESP,      /**< sending (or keeping) the response */
};

/** Server slot: the peer's call with ids idx, idx + slots, ... */
struct rpc_sslot {
	struct rdx_rpc_req req;   /**< public part: first (rdx_rpc_respond) */
	uint64_t id;
	bool used;
	uint8_t state;            /**< enum rpc_sstate */
	uint8_t flags;            /**< RPC_F_ERR on the response */
	bool pending;             /**< infrc: response waits for send room */
	uint16_t next_type;       /**< infrc: the held request (next_buf) */
	uint32_t next_buf;        /**< infrc: receive of a newer request held while busy */
	uint32_t next_len;
	uint64_t next_id;
	uint32_t idx;
	uint32_t buf;             /**< UD: pool pair; infrc: the held receive */
	uint8_t *reqbuf;
	uint32_t resp_len;
	uint32_t txgen;           /**< infrc: the session's txgen when the response was queued */
	struct rpc_tx tx;         /**< the response */
	struct rpc_rx rx;         /**< the request */
	struct rpc_grant_ent gent; /**< homa: granting the request */
	uint32_t acks_due;
	struct rpc_rtt_timing tm;  /**< the exchange our message's packets time */
	struct rpc_rtt_timing gtm; /**< homa: the grant we time (receiving) */
	uint64_t t_sent;          /**< TSC of our message's last first-time packet */
	uint64_t t_resend;        /**< TSC we last answered a RESEND about it */
	uint32_t resend_off;      /**< the offset that RESEND asked for */
	uint8_t rx_defers;        /**< receiving: timeouts put off in a row */
	uint32_t backoff;
	uint64_t t_progress;
	uint64_t t_retx;
};

struct rdx_rpc_session {
	struct rdx_rpc_endpoint *ep;
	uint32_t idx;
	uint32_t wire_id;         /**< idx | epoch << 24: what packets to us carry */
	uint32_t peer_idx;        /**< the peer's wire_id (its session_id) */
	bool connected;
	uint32_t inflight;
	uint32_t next_slot;       /**< where the search for a free slot starts */
	uint64_t cbusy;           /**< bit k: client slot k has a call in flight */
	uint64_t sbusy;           /**< UD: bit k: server slot k is not idle */
	uint64_t *act_word;       /**< the word of ep->active that holds our bit */
	uint64_t act_bit;
	struct rpc_cslot *cs;
	struct rpc_sslot *ss;
	/* UD */
	struct rdx_ah *ah;
	uint32_t peer_qpn;
	uint32_t peer_qkey;
	struct rpc_rtt rtt;       /**< UD: round trips to the peer, its RTO */
	uint64_t t_rx;            /**< UD: TSC of the peer's last packet */
	bool probed;              /**< UD: a timer of this scan sent to a silent peer */
	/* infrc */
	struct rdx_qp *qp;
	struct rdx_mem *mem;
	uint32_t sq_out;          /**< send WRs not yet retired */
	uint32_t sq_depth;
	uint32_t inline_max;      /**< infrc: inline bytes of the QP (0: none) */
	uint32_t rq_posted;       /**< receives posted at creation (rest at connect) */
	uint32_t nrpend;          /**< receives read, waiting for their batch */
	uint8_t *base;            /**< infrc: s->mem's buffers, bsz bytes apart */
	uint64_t iova;
	uint32_t bsz;
	uint32_t req0;            /**< infrc: the first request buffer */
	/* infrc: the send batch and the receive batch, their constant fields
	 * filled once (rc_sess_init): a post sets only what changes. Sends
	 * made inside a poll wait in swr for its end (one post per session
	 * and poll), others are posted at once. */
	struct rdx_wr swr[RPC_RC_TXB];
	struct rdx_sge ssge[RPC_RC_TXB];
	uint32_t ntx;             /**< infrc: sends queued in swr */
	uint32_t txgen;           /**< infrc: posts of queued sends so far, from 1 */
	struct rdx_recv_wr rwr[RPC_RC_RBATCH];
	struct rdx_sge rsge[RPC_RC_RBATCH];
	bool pending;             /**< a response waits for send room, or a held request its slot */
};

struct rdx_rpc_endpoint;

/** UD: an address handle of a destroyed session, and the count of sends
 * retired after which no queued WR names it any more. */
struct rpc_dead_ah {
	struct rdx_ah *ah;
	uint64_t retire_at;
};

/** A transport: rdx_rpc.c calls these. */
struct rpc_ops {
	int (*ep_init)(struct rdx_rpc_endpoint *ep);
	void (*ep_fini)(struct rdx_rpc_endpoint *ep);
	int (*sess_init)(struct rdx_rpc_session *s);
	void (*sess_fini)(struct rdx_rpc_session *s);
	int (*sess_info)(struct rdx_rpc_session *s, struct rdx_qp_info *qi);
	int (*sess_connect)(struct rdx_rpc_session *s, const struct rdx_rpc_session_info *peer);
	int (*call)(struct rdx_rpc_session *s, struct rpc_cslot *c);
	void (*respond)(struct rpc_sslot *ss);
	int (*poll)(struct rdx_rpc_endpoint *ep);
};

extern const struct rpc_ops rpc_rc_ops;
extern const struct rpc_ops rpc_ud_ops;

struct rpc_handler {
	rdx_rpc_handler_fn fn;
	void *arg;
};

struct rdx_rpc_endpoint {
	struct rdx_dev *dev;
	const struct rpc_ops *ops;
	enum rdx_rpc_transport transport;
	bool homa;
	char name[RDX_RPC_NAME_LEN];
	uint32_t max_msg;
	uint32_t max_sessions;
	uint32_t slots;
	uint32_t msg_bufs;
	uint32_t mtu;
	uint32_t qdepth;
	uint32_t window;
	uint32_t rtt_bytes;
	uint32_t overcommit;
	uint32_t sig_interval;    /**< UD: a signalled send at least every k */
	uint32_t map_words;       /**< per reassembly bitmap */
	struct rpc_pkt_limits lim; /**< what a packet is checked against (infrc: one
				    * message is one packet, mtu = max_msg) */
	int32_t lcore_id;
	uint64_t hz;
	uint64_t rto;             /**< TSC: a new session's RTO before it measured one */
	uint32_t rto_us;          /**< as configured */
	uint64_t rto_min;         /**< TSC: bounds of a session's RTO */
	uint64_t rto_max;
	uint32_t rto_min_us;
	uint32_t rto_max_us;
	uint64_t scan_period;     /**< TSC: a quarter of the smallest session RTO */
	uint64_t rto_least;       /**< TSC: min(rto, every connected session's RTO) */
	uint32_t rto_least_sess;  /**< a session whose RTO is rto_least (RPC_NONE: rto) */
	bool rto_dirty;           /**< that session's RTO rose or it went: find it again */
	uint64_t *active;         /**< bit i: session i had a busy slot since the last timer scan */
	uint64_t scans;           /**< UD scans run (a test reads these two) */
	uint64_t scan_visits;     /**< sessions they visited */
	uint64_t now;             /**< TSC of this poll (UD) */
	uint64_t call_to;         /**< TSC */
	uint64_t next_scan;
	uint64_t last_poll;       /**< TSC of the last poll (UD) */
	bool scan_deferred;       /**< the next timer scan was put off after a pause */
	bool qp_err;              /**< UD: the QP went to error; the endpoint is dead */
	uint32_t timeout_logs;    /**< timeouts logged (rpc_timeout_log) */
	struct rdx_cq *cq;
	struct rdx_rpc_session **sess;
	uint64_t *maps;           /**< every slot's reassembly bitmap */
	uint32_t nsess;
	uint8_t epoch;            /**< of the last session created */
	struct rpc_handler handlers[RDX_RPC_MAX_TYPES];
	struct rdx_rpc_stats stats;
	/* UD */
	struct rdx_qp *qp;
	struct rdx_mem *mem;
	uint8_t *txb;             /**< qdepth packet buffers */
	uint8_t *rxb;             /**< qdepth receive buffers */
	uint64_t tx_iova;         /**< txb's device address */
	uint64_t rx_iova;         /**< rxb's */
	uint32_t in_poll;         /**< UD: inside rpc_ud_poll: sends wait for its end */
	bool tx_defer;            /**< infrc: the poll has more completions to read:
				   * sends wait in their session's batch */
	struct rdx_rpc_session *txs; /**< infrc: the session whose sends are queued */
	uint32_t pkt_size;        /**< header + mtu */
	uint32_t rx_size;         /**< GRH area + header + mtu */
	uint32_t tx_head;
	uint32_t tx_out;          /**< sends not yet retired */
	uint32_t nwr;
	struct rdx_wr wrs[RPC_BURST];
	struct rdx_sge sges[RPC_BURST];
	uint32_t nrecv;
	struct rdx_recv_wr rwrs[RPC_BURST];
	struct rdx_sge rsges[RPC_BURST];
	uint8_t *pool;            /**< msg_bufs pairs of max_msg bytes */
	size_t pool_len;
	uint32_t *pool_free;
	uint32_t pool_nfree;
	bool pump;                /**< some message may send more */
	bool grant_dirty;
	struct rpc_grant_sched gs;
	struct rpc_grant_ent **gents;
	struct rpc_grant_ent *gout[64];
	/** AHs of destroyed sessions whose sends were still queued: each is
	 * destroyed once the sends queued before it retired (at the next
	 * session destroy), else with the QP */
	struct rpc_dead_ah *dead_ah;
	uint32_t ndead_ah;
	TAILQ_ENTRY(rdx_rpc_endpoint) next;
};

/* rdx_rpc_ud.c: the UD datapath, for rdx_rpc_ud_ctl.c */
#define RPC_UD_QKEY 0x11e5dU
#define RPC_ROLE_CLIENT 0   /**< rpc_grant_ent.role: a client slot's */
#define RPC_ROLE_SERVER 1   /**< a server slot's */
int rpc_ud_poll(struct rdx_rpc_endpoint *ep);
int rpc_ud_call(struct rdx_rpc_session *s, struct rpc_cslot *c);
void rpc_ud_respond(struct rpc_sslot *ss);
/** A completion in error (w): the UD QP is in error; fail the endpoint
 * once (rdx_rpc_ud.c, cold). */
void rpc_ud_qp_failed(struct rdx_rpc_endpoint *ep, const struct rdx_wc *w);
/** Destroy the kept address handles of destroyed sessions that no queued
 * send names any more (rdx_rpc_ud.c). */
void rpc_ud_dead_ah_reap(struct rdx_rpc_endpoint *ep);
/** Free a server slot's buffers and grant entry; the slot goes idle. */
void rpc_ud_ss_release(struct rdx_rpc_endpoint *ep, struct rpc_sslot *ss);

/** Copy a message's bytes: up to 16 inline with two overlapping loads and
 * stores (a small call's payload, no libc call), else memcpy. */
static inline void
rpc_copy(void *dst, const void *src, uint32_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;
	uint64_t a, b;
	uint32_t x, y;

	if (n >= 8 && n <= 16) {
		memcpy(&a, s, 8);
		memcpy(&b, s + n - 8, 8);
		memcpy(d, &a, 8);
		memcpy(d + n - 8, &b, 8);
	} else if (n >= 4 && n < 8) {
		memcpy(&x, s, 4);
		memcpy(&y, s + n - 4, 4);
		memcpy(d, &x, 4);
		memcpy(d + n - 4, &y, 4);
	} else {
		memcpy(d, s, n);
	}
}

/* The slots with something outstanding (s->cbusy, s->sbusy), kept where a
 * slot turns busy or idle, and the sessions that had one since the last
 * timer scan (ep->active: set with the slot's bit, cleared by the UD timer
 * scan once it finds the session idle): the UD scans visit only those
 * (rdx_rpc_ud.c). */
static inline void
rpc_cs_busy_on(struct rpc_cslot *c)
{
	struct rdx_rpc_session *s = c->sess;

	c->busy = true;
	s->cbusy |= UINT64_C(1) << c->idx;
	*s->act_word |= s->act_bit;
}

static inline void
rpc_cs_busy_off(struct rpc_cslot *c)
{
	c->busy = false;
	c->sess->cbusy &= ~(UINT64_C(1) << c->idx);
}

/** UD: a server slot leaves SS_IDLE (state: SS_RECV) or returns to it. */
static inline void
rpc_ss_busy_on(struct rpc_sslot *ss, uint8_t state)
{
	struct rdx_rpc_session *s = ss->req.sess;

	ss->state = state;
	s->sbusy |= UINT64_C(1) << ss->idx;
	*s->act_word |= s->act_bit;
}

static inline void
rpc_ss_busy_off(struct rpc_sslot *ss)
{
	ss->state = SS_IDLE;
	ss->req.sess->sbusy &= ~(UINT64_C(1) << ss->idx);
}

/** s connected, or a timer scan visits it (its RTO may have moved): keep
 * ep->rto_least. */
static inline void
rpc_rto_least_note(struct rdx_rpc_endpoint *ep, const struct rdx_rpc_session *s)
{
	if (s->rtt.rto <= ep->rto_least) {
		ep->rto_least = s->rtt.rto;
		ep->rto_least_sess = s->idx;
	} else if (ep->rto_least_sess == s->idx) {
		ep->rto_dirty = true;
	}
}

/** Session s no longer counts towards ep->rto_least (disconnected). */
static inline void
rpc_rto_least_drop(struct rdx_rpc_endpoint *ep, const struct rdx_rpc_session *s)
{
	if (ep->rto_least_sess == s->idx)
		ep->rto_dirty = true;
}

/* rdx_rpc.c, for the transports */
/** Finish a call: run its continuation once, free the slot. */
void rpc_call_complete(struct rpc_cslot *c, int status, uint32_t resp_len);
/** A complete request: run its handler (or answer ERR). */
void rpc_request_dispatch(struct rpc_sslot *ss);
#define RPC_SESS_IDX_MASK 0xffffffu
/** Slot of an id. */
static inline uint32_t
rpc_slot_of(const struct rdx_rpc_endpoint *ep, uint64_t id)
{
	return (uint32_t)(id % ep->slots);
}
/* rdx_rpc_diag.c: a call that timed out (slow path) */
#define RPC_TIMEOUT_LOGS 16u
/** Write the state of c's session (c timing out at TSC now) to buf as one
 * line; @return its length. */
size_t rpc_timeout_describe(const struct rpc_cslot *c, uint64_t now, char *buf, size_t len);
/** The line above through rpc_log, for the first RPC_TIMEOUT_LOGS of an endpoint. */
void rpc_timeout_log(struct rpc_cslot *c);
/** UD: a served call given up after call_timeout_us of silence (same limit). */
void rpc_served_giveup_log(struct rpc_sslot *ss);
/** One ERR line, log type rdx.rpc (control path only). */
void rpc_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* RDX_RPC_PRIV_H */
