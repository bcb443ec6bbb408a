/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Versioned out-of-band bootstrap over TCP: a server listens, a client
 * connects, and both exchange fixed-size messages (QP infos, buffer
 * addresses and keys, the test they run). Every call has a timeout and
 * fails with a one-line reason, never hangs: refused/unreachable peers,
 * wrong version, mismatched test, peer closed.
 *
 * Constructors return NULL with rte_errno set and the one-line reason in
 * rdx_conn_strerror(NULL) (per thread). Other calls return 0 or -errno with
 * the reason in rdx_conn_strerror(c): -ETIMEDOUT, -ECONNRESET (peer gone),
 * -EPROTO (bad hello, other wire version, unexpected message type or length;
 * the unexpected payload is drained so the stream stays framed).
 * timeout_ms < 0 waits without limit (avoid in apps). Every wait also ends
 * with -EINTR (rte_errno EINTR) once rdx_runtime_stopping() (Ctrl-C). Payloads are opaque
 * bytes: give exchanged structs a fixed layout and byte order.
 */
#ifndef RDX_CONN_H
#define RDX_CONN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rdx_conn;

/**
 * Listen on port (0: any; see rdx_conn_port). bind_addr NULL: every address
 * (IPv6 and IPv4). NULL with rte_errno EADDRINUSE when the port is taken.
 */
struct rdx_conn *rdx_conn_listen(const char *bind_addr, uint16_t port);
uint16_t rdx_conn_port(const struct rdx_conn *listener);
/**
 * Accept one peer within timeout_ms, then check the hello (magic, version);
 * the peer has at most 2 s of it for its hello. On a bad hello: NULL,
 * rte_errno EPROTO (or ECONNRESET/ETIMEDOUT when the peer closed or sent
 * nothing), the reason in rdx_conn_strerror(listener), and
 * rdx_conn_peer_version(listener) non-empty only when the hello had the rdx
 * magic (an rdx peer of another wire version, not a stray connection).
 */
struct rdx_conn *rdx_conn_accept(struct rdx_conn *listener, int timeout_ms);
/**
 * Non-blocking accept, for a thread that serves other work meanwhile: take
 * a peer that has connected, if any, and send our hello; the peer's hello
 * is checked later by rdx_conn_hello_poll (until it has returned 0, every
 * send and receive on the connection fails with -EINVAL). NULL with
 * rte_errno EAGAIN when no peer is waiting, or another errno (the reason
 * in rdx_conn_strerror(listener)).
 */
struct rdx_conn *rdx_conn_accept_start(struct rdx_conn *listener);
/**
 * Non-blocking: check the hello of a peer taken by rdx_conn_accept_start
 * once it has all arrived. 0 (checked, or c came from rdx_conn_accept or
 * rdx_conn_connect), -EAGAIN (not all of it yet: call again; the caller
 * gives up on a peer silent too long), or as rdx_conn_accept: -EPROTO (a
 * stray peer's first bytes are refused at once; rdx_conn_peer_version(c)
 * non-empty for an rdx peer of another wire version), -ECONNRESET (the
 * peer closed). On an error close c.
 */
int rdx_conn_hello_poll(struct rdx_conn *c);
/** Connect to host:port within timeout_ms and exchange hellos. */
struct rdx_conn *rdx_conn_connect(const char *host, uint16_t port, int timeout_ms);
void rdx_conn_close(struct rdx_conn *c);

/**
 * Send len bytes of local and receive len bytes into remote (framed, typed),
 * both at once: any size works even when both peers call it together.
 * -EPROTO when the peer's message has another type or length (the peer runs
 * another test or build): the reason names both, the stream stays framed.
 */
int rdx_conn_exchange(struct rdx_conn *c, uint32_t type, const void *local,
		      void *remote, size_t len, int timeout_ms);
int rdx_conn_send(struct rdx_conn *c, uint32_t type, const void *buf, size_t len,
		  int timeout_ms);
int rdx_conn_recv(struct rdx_conn *c, uint32_t type, void *buf, size_t len,
		  int timeout_ms);
/** The largest len of rdx_conn_recv_ready: fits in a socket's receive buffer. */
#define RDX_CONN_READY_MAX 16384u
/**
 * Non-blocking: 0 once the whole message of this type and length has
 * arrived (rdx_conn_recv(c, type, buf, len, 0) then takes it without
 * waiting), -EAGAIN while a part of it is still to come, -ECONNRESET when
 * the peer closed before sending all of it (also when what it sent has
 * another header), -EPROTO as soon as its header shows another type or
 * length (nothing consumed: rdx_conn_recv reports and
 * drains it), -EINVAL for len > RDX_CONN_READY_MAX. Consumes nothing.
 */
int rdx_conn_recv_ready(struct rdx_conn *c, uint32_t type, size_t len);
/** Non-blocking: 0 while the peer is connected, -ECONNRESET once it is gone. */
int rdx_conn_peer_alive(struct rdx_conn *c);
/**
 * The last error as one line ("peer runs wire version 2, we run 1").
 * c NULL: the last failed constructor of this thread.
 */
const char *rdx_conn_strerror(const struct rdx_conn *c);
/** "ADDR:PORT" of the peer, for messages. */
const char *rdx_conn_peer_name(const struct rdx_conn *c);
/** The rdx version string the peer announced in its hello. */
const char *rdx_conn_peer_version(const struct rdx_conn *c);
/** Parse "HOST:PORT" (IPv4, name, or [IPv6]:PORT). 0 or -EINVAL. */
int rdx_conn_parse_hostport(const char *s, char *host, size_t host_len, uint16_t *port);

#ifdef __cplusplus
}
#endif
#endif /* RDX_CONN_H */
