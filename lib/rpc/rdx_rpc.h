/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * rdx RPC: request/response messages between endpoints, over one of three
 * transports chosen by name when the endpoint is created:
 *
 *   "infrc"        one RC QP per session; a message is one SEND into a
 *                  posted receive buffer of max_msg_size (+ header) bytes.
 *   "basic+infud"  one UD QP per endpoint; messages cut into MTU-sized
 *                  packets, reassembled, acknowledged, sent under a window,
 *                  retransmitted after a timeout, duplicates suppressed.
 *   "homa+infud"   one UD QP per endpoint, receiver-driven (Homa): the first
 *                  rtt_bytes of a message go unscheduled, the rest as the
 *                  receiver grants it, shortest remaining first, at most
 *                  overcommit messages granted at once; RESEND and BUSY
 *                  after timeouts.
 *
 * doc/rpc.md describes the transports and the packet formats.
 *
 * Model. An endpoint belongs to one lcore (thread): every call on an
 * endpoint, its sessions and its requests is made by that thread, except
 * rdx_rpc_endpoint_stats_get and the telemetry commands, which any thread
 * may use while the endpoint runs. A session is a bidirectional channel to
 * one peer endpoint: either side may call the other's handlers over it.
 * Sessions are created from a versioned blob (struct rdx_rpc_session_info)
 * exchanged out of band, e.g. with lib/conn (rdx_rpc_session_bootstrap).
 *
 * Messages reach handlers exactly once: whatever the device loses,
 * duplicates or reorders, a handler runs once per call and a continuation
 * runs once per call (success or error).
 *
 * Fast path (rdx_rpc_call, rdx_rpc_respond, rdx_rpc_endpoint_poll and the
 * handlers/continuations they run): no allocation, lock, system call or
 * logging. Buffers, session and slot tables are allocated when the endpoint
 * and its sessions are created. Control path (create, destroy, connect,
 * register): may allocate, log and make system calls.
 *
 * Constructors return a pointer or NULL with rte_errno set; other calls
 * return 0 (or a count) or a negative errno.
 */
#ifndef RDX_RPC_H
#define RDX_RPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rdx_dev.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rdx_rpc_endpoint;
struct rdx_rpc_session;
struct rdx_conn;

/** Transports (rdx_rpc_transport_parse). */
enum rdx_rpc_transport {
	RDX_RPC_TRANSPORT_INFRC = 0,   /**< "infrc" */
	RDX_RPC_TRANSPORT_BASIC_INFUD, /**< "basic+infud" */
	RDX_RPC_TRANSPORT_HOMA_INFUD,  /**< "homa+infud" */
	RDX_RPC_TRANSPORT_MAX,
};

/** Request types a handler can be registered for: 0..RDX_RPC_MAX_TYPES-1. */
#define RDX_RPC_MAX_TYPES 256
/** The default and the smallest largest message (max_msg_size) is 1 MiB. */
#define RDX_RPC_DEFAULT_MAX_MSG (1u << 20)
/** The largest max_msg_size an endpoint accepts. */
#define RDX_RPC_MAX_MAX_MSG (64u << 20)
/** Length of an endpoint name, NUL included. */
#define RDX_RPC_NAME_LEN 32

/**
 * Endpoint options for rdx_rpc_endpoint_create. A zeroed struct, with
 * transport set, gives the defaults named below.
 */
struct rdx_rpc_conf {
	/** "infrc", "basic+infud" or "homa+infud" (NULL: "basic+infud"). */
	const char *transport;
	/** For telemetry (/rdx/rpc/...) and messages; "" or NULL: "rpc<k>". */
	const char *name;
	/** Largest request or response in bytes: RDX_RPC_DEFAULT_MAX_MSG (0)
	 * .. RDX_RPC_MAX_MAX_MSG. infrc posts receive buffers of this size
	 * (plus the 32-byte header), 3 * slots per session. */
	uint32_t max_msg_size;
	/** Sessions the endpoint can hold (default 16). */
	uint32_t max_sessions;
	/** Calls in flight per session and direction (default 8, at most 64):
	 * rdx_rpc_call returns -EAGAIN when all of a session's are busy; the
	 * peer serves at most this many of our requests at once. */
	uint32_t slots;
	/** UD: request/response buffers of max_msg_size for incoming requests,
	 * shared by the sessions (default slots * max_sessions, at most that).
	 * When none is free, a new request's packets are dropped (and sent
	 * again by its sender). */
	uint32_t msg_bufs;
	/** UD: bytes of payload per packet (default and maximum: the device's
	 * max_ud_msg minus the 32-byte packet header). */
	uint32_t mtu;
	/** UD: send and receive queue depth of the endpoint's QP (default 256). */
	uint32_t queue_depth;
	/** UD: the retransmission timeout in microseconds of a session
	 * before it measured a round trip (default 1000). Each session then
	 * times its round trips (never those of a packet sent twice: Karn's
	 * rule) and waits RTO = SRTT + 4 * RTTVAR (RFC 6298), the deviation
	 * term at least SRTT, within [rto_min_us, rto_max_us]: no progress
	 * for that long and the sender (basic) or receiver (homa) acts; each
	 * timeout in a row doubles the wait (eightfold when the peer sent
	 * nothing meanwhile), up to rto_max_us. */
	uint32_t rto_us;
	/** UD: smallest RTO in microseconds (default 2; a session's RTO is
	 * also at least twice its SRTT). */
	uint32_t rto_min_us;
	/** UD: largest RTO and backed-off wait in microseconds (default
	 * 200000, at most call_timeout_us). */
	uint32_t rto_max_us;
	/** A call with no progress for this long completes with -ETIMEDOUT
	 * (microseconds, default 5 s); so does a peer gone silent. */
	uint32_t call_timeout_us;
	/** basic+infud: packets of one message in flight unacknowledged
	 * (default 32, at most 64). */
	uint32_t window;
	/** homa+infud: unscheduled bytes (RTTbytes) of each message
	 * (default 8 packets' worth: 8 * mtu). */
	uint32_t rtt_bytes;
	/** homa+infud: messages the receiver grants at once, shortest
	 * remaining first (default 4). */
	uint32_t overcommit;
	/** UD: a send completion is asked for at least every sig_interval
	 * packets and at the end of each burst (default 16; 1: every packet;
	 * at most queue_depth / 2, so that the send queue never fills with
	 * packets whose completion is not asked for). */
	uint32_t sig_interval;
	/** The lcore that polls the endpoint, used when lcore_id_set: its
	 * QPs then share that lcore's doorbell register (rdx_qp_conf
	 * post_lcore), and only that lcore may poll the endpoint. Otherwise
	 * (the default) the QPs get registers of their own and any one thread
	 * at a time may poll. */
	int32_t lcore_id;
	bool lcore_id_set;     /**< lcore_id is meaningful (default false) */
};

/**
 * What a peer needs to open a session to us: exchanged out of band as is
 * (fixed layout, little-endian hosts; all reserved bytes zero). Filled by
 * rdx_rpc_session_info_get, checked by rdx_rpc_session_connect.
 */
#define RDX_RPC_INFO_MAGIC 0x52445852u /**< "RDXR" */
#define RDX_RPC_INFO_VERSION 1
struct rdx_rpc_session_info {
	uint32_t magic;          /**< RDX_RPC_INFO_MAGIC */
	uint16_t version;        /**< RDX_RPC_INFO_VERSION */
	uint8_t transport;       /**< enum rdx_rpc_transport; both ends equal */
	uint8_t rsv0;
	uint32_t max_msg_size;   /**< both ends equal */
	uint32_t slots;          /**< both ends equal */
	uint32_t mtu;            /**< UD payload per packet; both ends equal */
	/** The sender's name of this session, put as is in the packets
	 * addressed to it: its index (bits 23..0) and an epoch (31..24) that
	 * changes each time a session is created, so packets of an earlier
	 * session at the same index are not taken for this one's. */
	uint32_t session_id;
	uint32_t rtt_bytes;      /**< homa: both ends equal */
	uint32_t rsv1;
	struct rdx_qp_info qp;   /**< infrc: the session's QP; UD: the endpoint's */
};

/**
 * One incoming request, handed to a handler. The handler reads data, writes
 * up to resp_cap bytes of response into resp, then calls rdx_rpc_respond
 * (in the handler or later, from the endpoint's thread). data, resp and the
 * struct stay valid until rdx_rpc_respond.
 */
struct rdx_rpc_req {
	const void *data;              /**< the request bytes */
	uint32_t len;                  /**< request length */
	uint16_t type;                 /**< the request type */
	uint16_t rsv;
	void *resp;                    /**< response buffer to fill */
	uint32_t resp_cap;             /**< its size: the endpoint's max_msg_size */
	struct rdx_rpc_session *sess;  /**< the session it came on */
};

/**
 * A request handler (rdx_rpc_handler_register): runs on the endpoint's
 * thread, inside rdx_rpc_endpoint_poll; must not block. It may call
 * rdx_rpc_call and rdx_rpc_respond.
 */
typedef void (*rdx_rpc_handler_fn)(struct rdx_rpc_req *req, void *arg);

/**
 * A call's continuation (rdx_rpc_call): runs once per call, on the
 * endpoint's thread, inside rdx_rpc_endpoint_poll (never inside
 * rdx_rpc_call), or inside rdx_rpc_session_destroy / endpoint_destroy
 * with -ECONNABORTED. It may call rdx_rpc_call.
 *
 * @param sess
 *   The call's session.
 * @param status
 *   0: resp_buf holds resp_len bytes of response. Else a negative errno:
 *   -EMSGSIZE (the response is longer than resp_cap; resp_len is its
 *   length, the buffer's content undefined), -ENOENT (no handler for the
 *   type at the peer), -ETIMEDOUT (no progress for call_timeout_us),
 *   -ECONNABORTED (session or endpoint destroyed), -EIO (device error).
 * @param resp_buf
 *   The call's resp_buf.
 * @param resp_len
 *   The response length.
 * @param arg
 *   The call's arg.
 */
typedef void (*rdx_rpc_cont_fn)(struct rdx_rpc_session *sess, int status,
				void *resp_buf, uint32_t resp_len, void *arg);

/**
 * An endpoint's counters; they only grow. Read with relaxed loads (each
 * value whole, the set not one instant).
 */
struct rdx_rpc_stats {
	uint64_t calls;           /**< rdx_rpc_call accepted */
	uint64_t calls_ok;        /**< continuations with status 0 */
	uint64_t calls_err;       /**< continuations with an error */
	uint64_t requests;        /**< handler invocations */
	uint64_t responses;       /**< rdx_rpc_respond */
	uint64_t tx_bytes;        /**< message bytes sent (first time; no headers) */
	uint64_t rx_bytes;        /**< message bytes received (once each) */
	uint64_t tx_pkts;         /**< packets (UD) or messages (RC) posted */
	uint64_t rx_pkts;         /**< packets (UD) or messages (RC) received */
	uint64_t retransmits;     /**< data packets sent again */
	uint64_t acks_sent;       /**< basic: ACK packets */
	uint64_t grants_sent;     /**< homa: GRANT packets */
	uint64_t grants_rcvd;
	uint64_t resends_sent;    /**< RESEND requests sent */
	uint64_t resends_rcvd;
	uint64_t busy_sent;       /**< BUSY answers sent */
	uint64_t busy_rcvd;
	uint64_t dup_dropped;     /**< duplicate packets/messages dropped */
	uint64_t bad_pkts;        /**< malformed or unknown-session packets */
	uint64_t no_buf;          /**< requests' packets dropped: no msg buffer */
	uint64_t timeouts;        /**< calls failed with -ETIMEDOUT */
	uint64_t errors;          /**< device errors (completions not success) */
};

/** Telemetry commands (lib/telemetry's socket): the endpoints, a list of
 * names, and one endpoint's configuration and counters (a dict). */
#define RDX_RPC_TELEMETRY_CMD_ENDPOINTS "/rdx/rpc/endpoints"
#define RDX_RPC_TELEMETRY_CMD_STATS "/rdx/rpc/stats"

/* ------------------------------------------------------------------ */
/* Endpoints                                                          */

/**
 * Transport by name.
 *
 * Pure function, thread-safe.
 *
 * @return
 *   The enum rdx_rpc_transport value, or -EINVAL for another name or NULL.
 */
int rdx_rpc_transport_parse(const char *name);

/** Name of a transport ("infrc", ...; "?" for others). Thread-safe. */
const char *rdx_rpc_transport_name(enum rdx_rpc_transport t);

/**
 * Create an endpoint on dev: its CQ, its UD QP (UD transports), its buffers
 * (registered with dev) and tables; it is listed on telemetry
 * (/rdx/rpc/endpoints).
 *
 * Control path (allocates, registers memory). Not thread-safe on one
 * device (the calls of rdx_dev.h it makes are not).
 *
 * @param dev
 *   An open device (UD transports: with max_ud_msg > 32).
 * @param conf
 *   Options; read during the call only (the name is copied).
 * @return
 *   The endpoint, or NULL with rte_errno set: EINVAL (NULL argument,
 *   unknown transport, a field out of range: one line on stderr names it),
 *   ENOTSUP (UD transport on a device without UD), ENOMEM, or the device's
 *   error.
 */
struct rdx_rpc_endpoint *rdx_rpc_endpoint_create(struct rdx_dev *dev,
						 const struct rdx_rpc_conf *conf);

/**
 * Destroy an endpoint: its sessions first (their calls in flight complete
 * with -ECONNABORTED), then its QPs, CQ and buffers.
 *
 * Control path; the endpoint's thread, or any thread once nothing polls it.
 *
 * @param ep
 *   The endpoint (NULL: nothing to do).
 * @return
 *   0, or the device's negative errno (the endpoint is freed anyway).
 */
int rdx_rpc_endpoint_destroy(struct rdx_rpc_endpoint *ep);

/**
 * Register the handler of a request type. Incoming requests of a type with
 * no handler are answered with an error the caller sees as -ENOENT.
 *
 * Control path; the endpoint's thread (or before it polls).
 *
 * @param ep
 *   The endpoint.
 * @param type
 *   0..RDX_RPC_MAX_TYPES-1.
 * @param fn
 *   The handler; NULL removes the type's handler.
 * @param arg
 *   Passed to fn.
 * @return
 *   0, -EINVAL (NULL ep, type out of range), -EEXIST (the type has a
 *   handler already: remove it first).
 */
int rdx_rpc_handler_register(struct rdx_rpc_endpoint *ep, uint16_t type,
			     rdx_rpc_handler_fn fn, void *arg);

/**
 * Make progress: poll the CQ, reassemble, run handlers and continuations,
 * send acknowledgements, grants and retransmissions that are due.
 *
 * Fast path; the endpoint's thread only.
 *
 * @param ep
 *   The endpoint.
 * @return
 *   The work done (completions and timer actions; 0: idle).
 */
int rdx_rpc_endpoint_poll(struct rdx_rpc_endpoint *ep);

/**
 * rdx_rpc_endpoint_poll as an rdx_poller_fn_t, for rdx_lcore_loop_add
 * (lib/runtime): arg is the endpoint.
 */
int rdx_rpc_endpoint_poller(void *arg);

/**
 * Copy the endpoint's counters.
 *
 * Any thread, while the endpoint runs.
 *
 * @return
 *   0, or -EINVAL for a NULL argument.
 */
int rdx_rpc_endpoint_stats_get(const struct rdx_rpc_endpoint *ep,
			       struct rdx_rpc_stats *st);

/**
 * Whether the endpoint still works. A UD endpoint whose QP went to error
 * (a completion in error: the device refuses every later work request)
 * is dead for good: its calls in flight completed with -EIO, new calls
 * fail with -ENOTCONN and new sessions with -EIO, and nothing reaches its
 * handlers any more; one line on stderr said so. Its owner destroys it
 * (and creates another to go on) or stops with an error: polling it
 * further serves no one. On infrc a QP error fails only its session
 * (calls -EIO, one line) and this stays 0.
 *
 * Any thread.
 *
 * @return
 *   0, -EIO (dead, as above), or -EINVAL for NULL.
 */
int rdx_rpc_endpoint_error(const struct rdx_rpc_endpoint *ep);

/** The endpoint's transport. Any thread. */
enum rdx_rpc_transport rdx_rpc_endpoint_transport(const struct rdx_rpc_endpoint *ep);

/** The endpoint's name (as listed on telemetry). Any thread. */
const char *rdx_rpc_endpoint_name(const struct rdx_rpc_endpoint *ep);

/** The endpoint's largest message (max_msg_size in force). Any thread. */
uint32_t rdx_rpc_endpoint_max_msg(const struct rdx_rpc_endpoint *ep);

/**
 * The configuration in force, every default resolved (to print the knobs
 * with results): transport and name point into the endpoint, valid until
 * it is destroyed; fields a transport does not use are 0 (infrc: mtu,
 * queue_depth, msg_bufs, window, rtt_bytes, overcommit, rto_us, rto_min_us,
 * rto_max_us).
 *
 * Any thread.
 *
 * @return
 *   0, or -EINVAL for a NULL argument.
 */
int rdx_rpc_endpoint_conf_get(const struct rdx_rpc_endpoint *ep, struct rdx_rpc_conf *conf);

/* ------------------------------------------------------------------ */
/* Sessions                                                           */

/**
 * Create a session (infrc: with its RC QP), not yet connected: get its
 * info, send it to the peer, receive the peer's, then
 * rdx_rpc_session_connect (or do all three with rdx_rpc_session_bootstrap;
 * an accepting side that must not wait: rdx_rpc_session_bootstrap_poll).
 *
 * Control path; the endpoint's thread.
 *
 * @return
 *   The session, or NULL with rte_errno set: EINVAL (NULL ep), ENOSPC
 *   (max_sessions reached), ENOMEM, or the device's error.
 */
struct rdx_rpc_session *rdx_rpc_session_create(struct rdx_rpc_endpoint *ep);

/**
 * The blob a peer needs (every byte filled: reserved ones zero).
 *
 * Control path; the endpoint's thread.
 *
 * @return
 *   0, -EINVAL (NULL argument), or the device's negative errno.
 */
int rdx_rpc_session_info_get(struct rdx_rpc_session *sess,
			     struct rdx_rpc_session_info *info);

/**
 * Connect a session to the peer described by its info blob (from its
 * rdx_rpc_session_info_get): infrc connects the RC QP; UD creates the
 * address handle. Each side connects its own session with the other's
 * info; calls may be made once both have.
 *
 * Control path; the endpoint's thread.
 *
 * @return
 *   0, -EINVAL (NULL argument, session already connected), -EPROTO (bad
 *   magic or version, another transport, max_msg_size, slots, mtu or
 *   rtt_bytes differ: one line on stderr names the field and both values),
 *   or the device's negative errno.
 */
int rdx_rpc_session_connect(struct rdx_rpc_session *sess,
			    const struct rdx_rpc_session_info *peer);

/**
 * Exchange infos over an rdx_conn (rdx_conn_exchange, message type
 * RDX_RPC_CONN_MSG) and connect. Both peers call it.
 *
 * Control path; the endpoint's thread (blocks up to timeout_ms).
 *
 * @return
 *   0, or the negative errno of rdx_conn_exchange or
 *   rdx_rpc_session_connect.
 */
#define RDX_RPC_CONN_MSG 0x5250u
int rdx_rpc_session_bootstrap(struct rdx_rpc_session *sess, struct rdx_conn *c,
			      int timeout_ms);

/**
 * The accepting side of rdx_rpc_session_bootstrap without waiting, for an
 * endpoint thread that serves its other sessions meanwhile: call it again
 * (e.g. every few ms) while it returns -EAGAIN. Once the peer's info has
 * all arrived on c (rdx_conn_recv_ready), it creates a session, sends the
 * session's info, connects it and returns it in *sess. Nothing is
 * allocated before: a peer that connects and goes silent holds only its
 * connection (give it a deadline, then close c). The peer calls
 * rdx_rpc_session_bootstrap; c has its hello checked (rdx_conn_accept, or
 * rdx_conn_accept_start then rdx_conn_hello_poll).
 *
 * Control path; the endpoint's thread; never waits.
 *
 * @return
 *   0 (*sess connected), -EAGAIN (not all of the peer's info yet), -EINVAL
 *   (NULL argument), the negative errno of rdx_conn_recv_ready or
 *   rdx_conn_recv (-ECONNRESET, -EPROTO: close c), -rte_errno of
 *   rdx_rpc_session_create (-ENOSPC, -ENOMEM), or that of rdx_conn_send or
 *   rdx_rpc_session_connect (the session is destroyed). *sess is NULL
 *   unless 0.
 */
int rdx_rpc_session_bootstrap_poll(struct rdx_rpc_endpoint *ep, struct rdx_conn *c,
				   struct rdx_rpc_session **sess);

/**
 * Destroy a session: its calls in flight complete with -ECONNABORTED (their
 * continuations run inside this call). Requests of the session still being
 * handled are dropped: respond to them first (rdx_rpc_respond on a request
 * of a destroyed session is undefined). The peer's calls on it time out.
 *
 * Control path; the endpoint's thread, not from a handler or continuation
 * of this session.
 *
 * @return
 *   0, -EINVAL for NULL, or the device's negative errno.
 */
int rdx_rpc_session_destroy(struct rdx_rpc_session *sess);

/** The session's endpoint. Endpoint's thread. */
struct rdx_rpc_endpoint *rdx_rpc_session_endpoint(const struct rdx_rpc_session *sess);

/** Calls of this session in flight (0..slots). Endpoint's thread. */
unsigned int rdx_rpc_session_inflight(const struct rdx_rpc_session *sess);

/* ------------------------------------------------------------------ */
/* Calls                                                              */

/**
 * Call the peer's handler of a type: send req, and when the response is
 * there (in resp_buf) or the call failed, run cont once from
 * rdx_rpc_endpoint_poll.
 *
 * req is read until the continuation runs (UD sends it again when packets
 * are lost): keep it unchanged until then. resp_buf is written until then.
 *
 * Fast path; the endpoint's thread (handlers and continuations included).
 *
 * @param sess
 *   A connected session.
 * @param type
 *   0..RDX_RPC_MAX_TYPES-1.
 * @param req
 *   The request (NULL allowed when req_len is 0).
 * @param req_len
 *   0..max_msg_size.
 * @param resp_buf
 *   Where the response goes (NULL allowed when resp_cap is 0).
 * @param resp_cap
 *   Its size.
 * @param cont
 *   The continuation (not NULL).
 * @param arg
 *   Passed to cont.
 * @return
 *   0 (cont will run), -EAGAIN (all the session's slots are in flight:
 *   poll and try again), -EMSGSIZE (req_len > max_msg_size), -EINVAL (NULL
 *   sess or cont, type out of range, NULL req with req_len > 0),
 *   -ENOTCONN (session not connected), -ENOBUFS (the send queue is full:
 *   poll and try again). On an error cont is not called.
 */
int rdx_rpc_call(struct rdx_rpc_session *sess, uint16_t type,
		 const void *req, uint32_t req_len,
		 void *resp_buf, uint32_t resp_cap,
		 rdx_rpc_cont_fn cont, void *arg);

/**
 * Send the response to a request: resp_len bytes of req->resp. req must
 * not be used afterwards.
 *
 * Fast path; the endpoint's thread (in the handler or later).
 *
 * @return
 *   0 (the response will be delivered, retransmitted as needed), -EINVAL
 *   (NULL req), -EMSGSIZE (resp_len > req->resp_cap; nothing sent: respond
 *   again with a valid length).
 */
int rdx_rpc_respond(struct rdx_rpc_req *req, uint32_t resp_len);

#ifdef __cplusplus
}
#endif

#endif /* RDX_RPC_H */
