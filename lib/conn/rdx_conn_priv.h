/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal to lib/conn: the socket side (rdx_conn_sock.c: listen, accept,
 * connect, peer address, hello exchange and version check) and the framing
 * side (rdx_conn_msg.c: deadlines and waits, raw stream I/O, typed and
 * length-checked messages, resync, peer_alive, the one-line reasons) share
 * the wire format, the connection and the calls below.
 *
 * Wire format (all integers big-endian):
 *   hello:   "RDX1" | u32 wire version | char rdx_version[16] (NUL padded)
 *   message: u32 type | u32 length | length bytes of payload
 * Both sides send their hello first and then read the peer's, so neither
 * waits on the other. Payloads are opaque bytes: a struct exchanged between
 * peers must have a fixed layout and byte order (the app's business).
 *
 * Every wait is a poll() against one deadline; sockets are non-blocking;
 * sends use MSG_NOSIGNAL so a dead peer is an error, never SIGPIPE.
 */
#ifndef RDX_CONN_PRIV_H
#define RDX_CONN_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>

#include <rte_common.h>

#include "rdx_conn.h"

/* Not part of the library's interface (not exported from the shared library). */
#define RDX_CONN_INTERNAL __attribute__((visibility("hidden")))

#define RDX_CONN_MAGIC "RDX1"
#define RDX_CONN_ERR_LEN 256

struct rdx_hello {
	char magic[4];
	uint32_t wire_version;
	char version[16];
};

struct rdx_msg_hdr {
	uint32_t type;
	uint32_t len;
};

struct rdx_conn {
	int fd;
	bool listener;
	bool hello_pending;         /* rdx_conn_accept_start: peer's hello unchecked */
	uint16_t port;              /* local port */
	char peer[INET6_ADDRSTRLEN + 8];
	char peer_version[sizeof(((struct rdx_hello *)0)->version) + 1];
	char err[RDX_CONN_ERR_LEN];
};

/* One-line reason for the last failure of a constructor on this thread. */
RDX_CONN_INTERNAL extern __thread char rdx_conn_tls_err[RDX_CONN_ERR_LEN];

/* Set the one-line reason: this thread's, and c's when c is not NULL. */
RDX_CONN_INTERNAL void __rte_format_printf(2, 3)
rdx_conn_err(struct rdx_conn *c, const char *fmt, ...);

/* Monotonic milliseconds. */
RDX_CONN_INTERNAL int64_t rdx_conn_now_ms(void);
/* Deadline from a timeout: < 0 means none. */
RDX_CONN_INTERNAL int64_t rdx_conn_deadline(int timeout_ms);
/*
 * Wait for events on fd until the deadline: 1 ready, 0 timeout, -errno;
 * -EINTR once a stop was requested. revents may be NULL.
 */
RDX_CONN_INTERNAL int rdx_conn_wait_fd(int fd, short events, int64_t deadline,
				       short *revents);
/* The reason of a failed wait: "interrupted (stop requested)" or strerror. */
RDX_CONN_INTERNAL const char *rdx_conn_wait_strerror(int ret);

/* Send all of buf before the deadline. 0 or -errno (reason set). */
RDX_CONN_INTERNAL int rdx_conn_send_all(struct rdx_conn *c, const void *buf, size_t len,
					int64_t deadline, const char *what);
/* Receive exactly len bytes before the deadline. 0 or -errno (reason set). */
RDX_CONN_INTERNAL int rdx_conn_recv_all(struct rdx_conn *c, void *buf, size_t len,
					int64_t deadline, const char *what);
/*
 * Without waiting or consuming anything: the number of bytes that have
 * arrived (up to INT32_MAX), the first len of them copied into buf;
 * -ECONNRESET (reason set, naming what) once the peer has closed or reset
 * the connection with fewer than need bytes sent; other -errno.
 */
RDX_CONN_INTERNAL int rdx_conn_peek(struct rdx_conn *c, void *buf, size_t len, size_t need,
				    const char *what);

#endif /* RDX_CONN_PRIV_H */
