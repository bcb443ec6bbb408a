/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Out-of-band bootstrap over TCP. Wire format (all integers big-endian):
 *   hello:   "RDX1" | u32 wire version | char rdx_version[16] (NUL padded)
 *   message: u32 type | u32 length | length bytes of payload
 * Both sides send their hello first and then read the peer's, so neither
 * waits on the other. Payloads are opaque bytes: a struct exchanged between
 * peers must have a fixed layout and byte order (the app's business).
 *
 * Every wait is a poll() against one deadline; sockets are non-blocking;
 * sends use MSG_NOSIGNAL so a dead peer is an error, never SIGPIPE.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_log.h>

#include "rdx_config.h"
#include "rdx_conn.h"
#include "rdx_runtime.h"

RTE_LOG_REGISTER(rdx_conn_logtype, rdx.conn, NOTICE)

#define CONN_LOG(level, ...) \
	rte_log(RTE_LOG_ ## level, (uint32_t)rdx_conn_logtype, "rdx.conn: " __VA_ARGS__)

#define RDX_CONN_MAGIC "RDX1"
#define RDX_CONN_ERR_LEN 256
/* Longest payload drained to resync after an unexpected message. */
#define RDX_CONN_DRAIN_MAX (1u << 20)
/* Longest single poll(): how quickly a stop request is noticed. */
#define RDX_CONN_WAIT_SLICE_MS 100
/* Longest wait for an accepted peer's hello (it sends it on connecting). */
#define RDX_CONN_HELLO_MS 2000

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
	uint16_t port;              /* local port */
	char peer[INET6_ADDRSTRLEN + 8];
	char peer_version[sizeof(((struct rdx_hello *)0)->version) + 1];
	char err[RDX_CONN_ERR_LEN];
};

/* One-line reason for the last failure of a constructor on this thread. */
static __thread char conn_tls_err[RDX_CONN_ERR_LEN];

static void __rte_format_printf(2, 3)
conn_err(struct rdx_conn *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(conn_tls_err, sizeof(conn_tls_err), fmt, ap);
	va_end(ap);
	if (c != NULL)
		memcpy(c->err, conn_tls_err, sizeof(c->err));
}

const char *
rdx_conn_strerror(const struct rdx_conn *c)
{
	const char *e = c != NULL ? c->err : conn_tls_err;

	return e[0] != '\0' ? e : "no error";
}

/* ----------------------------------------------------------------- time */

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Deadline from a timeout: < 0 means none. */
static int64_t
deadline_of(int timeout_ms)
{
	return timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
}

static int
remaining_ms(int64_t deadline)
{
	int64_t r;

	if (deadline < 0)
		return -1;
	r = deadline - now_ms();
	if (r < 0)
		return 0;
	return r > INT32_MAX ? INT32_MAX : (int)r;
}

/*
 * Wait for events on fd until the deadline: 1 ready, 0 timeout, -errno.
 * Waits in slices so a stop request (Ctrl-C: the runtime's stop flag, which
 * may be set by a signal delivered to another thread) ends it: -EINTR.
 */
static int
wait_fd(int fd, short events, int64_t deadline, short *revents)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	int ret, left;

	for (;;) {
		if (rdx_runtime_stopping())
			return -EINTR;
		left = remaining_ms(deadline);
		if (left < 0 || left > RDX_CONN_WAIT_SLICE_MS)
			ret = poll(&pfd, 1, RDX_CONN_WAIT_SLICE_MS);
		else
			ret = poll(&pfd, 1, left);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0)
			return -errno;
		if (ret == 0 && left != 0 && (left < 0 || left > RDX_CONN_WAIT_SLICE_MS))
			continue;       /* slice over, deadline not reached */
		if (revents != NULL)
			*revents = pfd.revents;
		return ret > 0 ? 1 : 0;
	}
}

static int
wait_fd_events(int fd, short events, int64_t deadline)
{
	return wait_fd(fd, events, deadline, NULL);
}

/* "waiting for X failed: ..." or "interrupted" when a stop was requested. */
static const char *
wait_strerror(int ret)
{
	return ret == -EINTR ? "interrupted (stop requested)" : strerror(-ret);
}

/* --------------------------------------------------------------- helpers */

static int
set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

static void
addr_str(const struct sockaddr *sa, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN] = "?";
	uint16_t port = 0;

	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)sa;

		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		port = ntohs(in->sin_port);
		snprintf(buf, len, "%s:%u", host, port);
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)(const void *)sa;

		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		port = ntohs(in6->sin6_port);
		snprintf(buf, len, "[%s]:%u", host, port);
	} else {
		snprintf(buf, len, "?");
	}
}

static struct rdx_conn *
conn_new(int fd, bool listener)
{
	struct rdx_conn *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->fd = fd;
	c->listener = listener;
	return c;
}

static uint16_t
local_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0)
		return 0;
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return 0;
}

/* ------------------------------------------------------------- raw I/O */

/* Send all of buf before the deadline. 0 or -errno (reason set). */
static int
send_all(struct rdx_conn *c, const void *buf, size_t len, int64_t deadline,
	 const char *what)
{
	const uint8_t *p = buf;
	size_t done = 0;
	short rev;
	int ret;

	while (done < len) {
		ssize_t n = send(c->fd, p + done, len - done, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
			int e = errno;

			if (e == EPIPE || e == ECONNRESET) {
				conn_err(c, "peer %s closed the connection while we sent %s",
					 c->peer, what);
				return -ECONNRESET;
			}
			conn_err(c, "sending %s to %s failed: %s", what, c->peer, strerror(e));
			return -e;
		}
		ret = wait_fd(c->fd, POLLOUT, deadline, &rev);
		if (ret < 0) {
			conn_err(c, "waiting to send %s failed: %s", what, wait_strerror(ret));
			return ret;
		}
		if (ret == 0) {
			conn_err(c, "timed out sending %s to %s (peer not reading)", what, c->peer);
			return -ETIMEDOUT;
		}
	}
	return 0;
}

/* Receive exactly len bytes before the deadline. 0 or -errno (reason set). */
static int
recv_all(struct rdx_conn *c, void *buf, size_t len, int64_t deadline, const char *what)
{
	uint8_t *p = buf;
	size_t done = 0;
	int ret;

	while (done < len) {
		ssize_t n = recv(c->fd, p + done, len - done, MSG_DONTWAIT);

		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n == 0) {
			conn_err(c, "peer %s closed the connection (waiting for %s, got %zu of %zu bytes)",
				 c->peer, what, done, len);
			return -ECONNRESET;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			int e = errno;

			if (e == ECONNRESET) {
				conn_err(c, "peer %s reset the connection (waiting for %s)",
					 c->peer, what);
				return -ECONNRESET;
			}
			conn_err(c, "receiving %s from %s failed: %s", what, c->peer, strerror(e));
			return -e;
		}
		ret = wait_fd(c->fd, POLLIN, deadline, NULL);
		if (ret < 0) {
			conn_err(c, "waiting for %s failed: %s", what, wait_strerror(ret));
			return ret;
		}
		if (ret == 0) {
			conn_err(c, "timed out waiting for %s from %s", what, c->peer);
			return -ETIMEDOUT;
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- hello */

static void
hello_fill(struct rdx_hello *h, uint32_t wire_version)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, RDX_CONN_MAGIC, sizeof(h->magic));
	h->wire_version = htonl(wire_version);
	snprintf(h->version, sizeof(h->version), "%s", RDX_VERSION_STR);
}

/* Test hook: the wire version our hello announces. */
static uint32_t conn_hello_version = RDX_WIRE_VERSION;

static int
hello_exchange(struct rdx_conn *c, int64_t deadline)
{
	struct rdx_hello mine, theirs;
	uint32_t v;
	int ret;

	hello_fill(&mine, conn_hello_version);
	ret = send_all(c, &mine, sizeof(mine), deadline, "the hello");
	if (ret < 0)
		return ret;
	ret = recv_all(c, &theirs, sizeof(theirs), deadline, "the peer's hello");
	if (ret < 0)
		return ret;
	if (memcmp(theirs.magic, RDX_CONN_MAGIC, sizeof(theirs.magic)) != 0) {
		conn_err(c, "peer %s is not an rdx peer (bad hello magic)", c->peer);
		return -EPROTO;
	}
	memcpy(c->peer_version, theirs.version, sizeof(theirs.version));
	c->peer_version[sizeof(theirs.version)] = '\0';
	/* Peer bytes go into one-line messages and logs: printable ASCII only
	 * (a newline or escape sequence from the wire must not reach them). */
	for (char *p = c->peer_version; *p != '\0'; p++)
		if (*p < 0x20 || *p > 0x7e)
			*p = '?';
	v = ntohl(theirs.wire_version);
	if (v != RDX_WIRE_VERSION) {
		conn_err(c, "peer %s runs wire version %u (rdx %s), we run %u (rdx %s)",
			 c->peer, v, c->peer_version, RDX_WIRE_VERSION, RDX_VERSION_STR);
		return -EPROTO;
	}
	return 0;
}

static void
tune_socket(int fd)
{
	int one = 1;

	/* Small request/response messages: no Nagle delay. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* ------------------------------------------------------------- listener */

struct rdx_conn *
rdx_conn_listen(const char *bind_addr, uint16_t port)
{
	struct addrinfo hints, *res = NULL, *ai;
	char port_str[8], where[INET6_ADDRSTRLEN + 8];
	struct rdx_conn *c;
	int fd = -1, ret, e = 0, one = 1, zero = 0;

	conn_tls_err[0] = '\0';
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	snprintf(port_str, sizeof(port_str), "%u", port);
	ret = getaddrinfo(bind_addr, port_str, &hints, &res);
	if (ret != 0) {
		conn_err(NULL, "cannot listen on '%s': %s", bind_addr != NULL ? bind_addr : "*",
			 gai_strerror(ret));
		rte_errno = EINVAL;
		return NULL;
	}
	/* With no address prefer IPv6 "::" that also takes IPv4 peers. */
	for (int pass = 0; pass < 2 && fd < 0; pass++) {
		for (ai = res; ai != NULL; ai = ai->ai_next) {
			if (bind_addr == NULL && (pass == 0) != (ai->ai_family == AF_INET6))
				continue;
			if (bind_addr != NULL && pass == 1)
				break;
			addr_str(ai->ai_addr, where, sizeof(where));
			fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
			if (fd < 0) {
				e = errno;
				continue;
			}
			setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
			if (ai->ai_family == AF_INET6 && bind_addr == NULL)
				setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
			if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 16) == 0 &&
			    set_nonblock(fd) == 0)
				break;
			e = errno;
			close(fd);
			fd = -1;
			if (e == EADDRINUSE)
				break;
		}
		if (e == EADDRINUSE)
			break;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		if (e == EADDRINUSE)
			conn_err(NULL, "port %u is already in use on %s (another server running? "
				 "pick another port)", port, bind_addr != NULL ? bind_addr : "this host");
		else
			conn_err(NULL, "cannot listen on %s port %u: %s",
				 bind_addr != NULL ? bind_addr : "*", port, strerror(e != 0 ? e : EINVAL));
		rte_errno = e != 0 ? e : EINVAL;
		return NULL;
	}
	c = conn_new(fd, true);
	if (c == NULL) {
		close(fd);
		conn_err(NULL, "out of memory");
		rte_errno = ENOMEM;
		return NULL;
	}
	c->port = local_port(fd);
	snprintf(c->peer, sizeof(c->peer), "(listener)");
	return c;
}

uint16_t
rdx_conn_port(const struct rdx_conn *listener)
{
	return listener != NULL ? listener->port : 0;
}

struct rdx_conn *
rdx_conn_accept(struct rdx_conn *listener, int timeout_ms)
{
	int64_t deadline = deadline_of(timeout_ms);
	struct sockaddr_storage ss;
	struct rdx_conn *c;
	int64_t hello_deadline;
	socklen_t sl;
	int fd, ret;

	conn_tls_err[0] = '\0';
	if (listener == NULL || !listener->listener) {
		conn_err(NULL, "accept needs a listening connection");
		rte_errno = EINVAL;
		return NULL;
	}
	listener->peer_version[0] = '\0';
	for (;;) {
		sl = sizeof(ss);
		fd = accept4(listener->fd, (struct sockaddr *)&ss, &sl,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd >= 0)
			break;
		if (errno == EINTR || errno == ECONNABORTED)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			rte_errno = errno;
			conn_err(listener, "accept on port %u failed: %s", listener->port,
				 strerror(errno));
			return NULL;
		}
		ret = wait_fd(listener->fd, POLLIN, deadline, NULL);
		if (ret <= 0) {
			rte_errno = ret == 0 ? ETIMEDOUT : -ret;
			if (ret == 0)
				conn_err(listener, "no peer connected to port %u within %d ms",
					 listener->port, timeout_ms);
			else
				conn_err(listener, "waiting for a peer on port %u failed: %s",
					 listener->port, wait_strerror(ret));
			return NULL;
		}
	}
	c = conn_new(fd, false);
	if (c == NULL) {
		close(fd);
		conn_err(listener, "out of memory");
		rte_errno = ENOMEM;
		return NULL;
	}
	tune_socket(fd);
	c->port = listener->port;
	addr_str((struct sockaddr *)&ss, c->peer, sizeof(c->peer));
	/* a real peer sends its hello as soon as it connects: one that does
	 * not (a port scan, a stuck client) cannot hold the listener long */
	hello_deadline = now_ms() + RDX_CONN_HELLO_MS;
	if (deadline >= 0 && deadline < hello_deadline)
		hello_deadline = deadline;
	ret = hello_exchange(c, hello_deadline);
	if (ret < 0) {
		memcpy(listener->err, c->err, sizeof(listener->err));
		/* set only when the peer's hello had our magic: an rdx peer */
		memcpy(listener->peer_version, c->peer_version, sizeof(listener->peer_version));
		rdx_conn_close(c);
		rte_errno = -ret;
		return NULL;
	}
	CONN_LOG(DEBUG, "accepted %s on port %u (peer rdx %s)\n", c->peer, c->port,
		 c->peer_version);
	return c;
}

/* --------------------------------------------------------------- client */

/* One address: non-blocking connect, poll, SO_ERROR. fd or -errno. */
static int
connect_one(const struct addrinfo *ai, int64_t deadline)
{
	socklen_t sl = sizeof(int);
	int fd, ret, soerr = 0;

	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    ai->ai_protocol);
	if (fd < 0)
		return -errno;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
		return fd;
	if (errno != EINPROGRESS && errno != EINTR) {
		ret = -errno;
		close(fd);
		return ret;
	}
	ret = wait_fd(fd, POLLOUT, deadline, NULL);
	if (ret <= 0) {
		close(fd);
		return ret == 0 ? -ETIMEDOUT : ret;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) != 0)
		soerr = errno;
	if (soerr != 0) {
		close(fd);
		return -soerr;
	}
	return fd;
}

struct rdx_conn *
rdx_conn_connect(const char *host, uint16_t port, int timeout_ms)
{
	int64_t deadline = deadline_of(timeout_ms);
	struct addrinfo hints, *res = NULL, *ai;
	char port_str[8], where[INET6_ADDRSTRLEN + 8] = "?";
	struct rdx_conn *c;
	int fd = -ENOENT, ret;

	conn_tls_err[0] = '\0';
	if (host == NULL || port == 0) {
		conn_err(NULL, "connect needs a host and a port (1-65535)");
		rte_errno = EINVAL;
		return NULL;
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	snprintf(port_str, sizeof(port_str), "%u", port);
	ret = getaddrinfo(host, port_str, &hints, &res);
	if (ret != 0) {
		conn_err(NULL, "cannot resolve '%s': %s", host, gai_strerror(ret));
		rte_errno = EINVAL;
		return NULL;
	}
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		addr_str(ai->ai_addr, where, sizeof(where));
		fd = connect_one(ai, deadline);
		if (fd >= 0 || fd == -ETIMEDOUT || fd == -EINTR)
			break;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		int e = -fd;

		switch (e) {
		case ECONNREFUSED:
			conn_err(NULL, "connection to %s refused (is the server running?)", where);
			break;
		case ETIMEDOUT:
			conn_err(NULL, "no answer from %s within %d ms", where, timeout_ms);
			break;
		case EINTR:
			conn_err(NULL, "connecting to %s interrupted (stop requested)", where);
			break;
		case EHOSTUNREACH:
		case ENETUNREACH:
			conn_err(NULL, "%s is unreachable: %s", where, strerror(e));
			break;
		default:
			conn_err(NULL, "cannot connect to %s: %s", where, strerror(e));
			break;
		}
		rte_errno = e;
		return NULL;
	}
	c = conn_new(fd, false);
	if (c == NULL) {
		close(fd);
		conn_err(NULL, "out of memory");
		rte_errno = ENOMEM;
		return NULL;
	}
	tune_socket(fd);
	c->port = local_port(fd);
	snprintf(c->peer, sizeof(c->peer), "%s", where);
	ret = hello_exchange(c, deadline);
	if (ret < 0) {
		rdx_conn_close(c);
		rte_errno = -ret;
		return NULL;
	}
	CONN_LOG(DEBUG, "connected to %s (peer rdx %s)\n", c->peer, c->peer_version);
	return c;
}

void
rdx_conn_close(struct rdx_conn *c)
{
	if (c == NULL)
		return;
	if (c->fd >= 0)
		close(c->fd);
	free(c);
}

/* ------------------------------------------------------------- messages */

static int
check_io_args(struct rdx_conn *c, const void *buf, size_t len)
{
	if (c == NULL)
		return -EINVAL;
	if (c->listener) {
		conn_err(c, "cannot send or receive on a listening connection");
		return -EINVAL;
	}
	if ((buf == NULL && len > 0) || len > UINT32_MAX) {
		conn_err(c, "bad message buffer (len %zu)", len);
		return -EINVAL;
	}
	return 0;
}

static int
send_msg(struct rdx_conn *c, uint32_t type, const void *buf, size_t len, int64_t deadline)
{
	struct rdx_msg_hdr h = { .type = htonl(type), .len = htonl((uint32_t)len) };
	char what[48];
	int ret;

	snprintf(what, sizeof(what), "message type %u", type);
	ret = send_all(c, &h, sizeof(h), deadline, what);
	if (ret == 0 && len > 0)
		ret = send_all(c, buf, len, deadline, what);
	return ret;
}

static void
mismatch_err(struct rdx_conn *c, uint32_t t, uint32_t l, uint32_t type, size_t len)
{
	if (t != type)
		conn_err(c, "peer %s sent message type %u (%u bytes), we expected type %u "
			 "(%zu bytes): is it running the same test?", c->peer, t, l, type, len);
	else
		conn_err(c, "peer %s sent %u bytes for message type %u, we expected %zu: "
			 "different rdx build or test?", c->peer, l, t, len);
}

/* Read and drop n payload bytes so the stream stays framed. */
static void
drain(struct rdx_conn *c, uint32_t n, int64_t deadline)
{
	uint8_t tmp[256];
	char saved[RDX_CONN_ERR_LEN];

	memcpy(saved, c->err, sizeof(saved));
	while (n > 0) {
		uint32_t k = n < sizeof(tmp) ? n : (uint32_t)sizeof(tmp);

		if (recv_all(c, tmp, k, deadline, "a payload") < 0)
			break;
		n -= k;
	}
	memcpy(c->err, saved, sizeof(saved));
	memcpy(conn_tls_err, saved, sizeof(saved));
}

static int
recv_msg(struct rdx_conn *c, uint32_t type, void *buf, size_t len, int64_t deadline)
{
	struct rdx_msg_hdr h;
	uint32_t t, l;
	char what[48];
	int ret;

	snprintf(what, sizeof(what), "message type %u", type);
	ret = recv_all(c, &h, sizeof(h), deadline, what);
	if (ret < 0)
		return ret;
	t = ntohl(h.type);
	l = ntohl(h.len);
	if (t != type || l != len) {
		mismatch_err(c, t, l, type, len);
		if (l <= RDX_CONN_DRAIN_MAX)
			drain(c, l, deadline);
		return -EPROTO;
	}
	if (len > 0)
		return recv_all(c, buf, len, deadline, what);
	return 0;
}

int
rdx_conn_send(struct rdx_conn *c, uint32_t type, const void *buf, size_t len, int timeout_ms)
{
	int ret = check_io_args(c, buf, len);

	if (ret < 0)
		return ret;
	return send_msg(c, type, buf, len, deadline_of(timeout_ms));
}

int
rdx_conn_recv(struct rdx_conn *c, uint32_t type, void *buf, size_t len, int timeout_ms)
{
	int ret = check_io_args(c, buf, len);

	if (ret < 0)
		return ret;
	return recv_msg(c, type, buf, len, deadline_of(timeout_ms));
}

/*
 * Send ours and receive theirs at the same time: each side writes while
 * reading, so a message larger than both socket buffers cannot deadlock two
 * peers that both send first. An unexpected header is reported once, the
 * rest of our message still goes out and their payload is drained.
 */
static int
exchange_msgs(struct rdx_conn *c, uint32_t type, const void *local, void *remote,
	      size_t len, int64_t deadline)
{
	struct rdx_msg_hdr oh = { .type = htonl(type), .len = htonl((uint32_t)len) }, ih;
	size_t out_done = 0, out_total = sizeof(oh) + len;
	size_t in_done = 0, in_total = sizeof(ih);
	bool hdr_seen = false, mismatch = false;
	uint8_t sink[256];
	int ret, e;

	while (out_done < out_total || in_done < in_total) {
		bool progress = false;
		ssize_t k;

		if (out_done < out_total) {
			const uint8_t *p = out_done < sizeof(oh) ?
				(const uint8_t *)&oh + out_done :
				(const uint8_t *)local + (out_done - sizeof(oh));
			size_t n = out_done < sizeof(oh) ? sizeof(oh) - out_done : out_total - out_done;

			k = send(c->fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
			if (k > 0) {
				out_done += (size_t)k;
				progress = true;
			} else if (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
				e = errno;
				if (mismatch)
					return -EPROTO;
				if (e == EPIPE || e == ECONNRESET) {
					conn_err(c, "peer %s closed the connection while we sent message "
						 "type %u", c->peer, type);
					return -ECONNRESET;
				}
				conn_err(c, "sending message type %u to %s failed: %s", type, c->peer,
					 strerror(e));
				return -e;
			}
		}
		if (in_done < in_total) {
			uint8_t *p;
			size_t n;

			if (in_done < sizeof(ih)) {
				p = (uint8_t *)&ih + in_done;
				n = sizeof(ih) - in_done;
			} else if (mismatch) {
				p = sink;
				n = RTE_MIN(sizeof(sink), in_total - in_done);
			} else {
				p = (uint8_t *)remote + (in_done - sizeof(ih));
				n = in_total - in_done;
			}
			k = recv(c->fd, p, n, MSG_DONTWAIT);
			if (k > 0) {
				in_done += (size_t)k;
				progress = true;
			} else if (k == 0) {
				if (!mismatch)
					conn_err(c, "peer %s closed the connection (waiting for message "
						 "type %u)", c->peer, type);
				return mismatch ? -EPROTO : -ECONNRESET;
			} else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
				e = errno;
				if (!mismatch)
					conn_err(c, "receiving message type %u from %s failed: %s", type,
						 c->peer, strerror(e));
				return mismatch ? -EPROTO : (e == ECONNRESET ? -ECONNRESET : -e);
			}
			if (!hdr_seen && in_done == sizeof(ih)) {
				uint32_t t = ntohl(ih.type), l = ntohl(ih.len);

				hdr_seen = true;
				if (t != type || l != len) {
					mismatch = true;
					mismatch_err(c, t, l, type, len);
					/* Too big to drain: the stream is lost anyway. */
					in_total = sizeof(ih) + (l <= RDX_CONN_DRAIN_MAX ? l : 0);
				} else {
					in_total = sizeof(ih) + len;
				}
			}
		}
		if (progress)
			continue;
		ret = wait_fd_events(c->fd, (short)((out_done < out_total ? POLLOUT : 0) |
					     (in_done < in_total ? POLLIN : 0)), deadline);
		if (ret <= 0) {
			if (mismatch)
				return -EPROTO;
			if (ret == 0)
				conn_err(c, "timed out exchanging message type %u with %s", type,
					 c->peer);
			else
				conn_err(c, "waiting to exchange message type %u failed: %s", type,
					 wait_strerror(ret));
			return ret == 0 ? -ETIMEDOUT : ret;
		}
	}
	return mismatch ? -EPROTO : 0;
}

int
rdx_conn_exchange(struct rdx_conn *c, uint32_t type, const void *local, void *remote,
		  size_t len, int timeout_ms)
{
	int ret = check_io_args(c, local, len);

	if (ret == 0)
		ret = check_io_args(c, remote, len);
	if (ret < 0)
		return ret;
	return exchange_msgs(c, type, local, remote, len, deadline_of(timeout_ms));
}

int
rdx_conn_peer_alive(struct rdx_conn *c)
{
	struct pollfd pfd;
	char b;
	ssize_t n;
	int ret;

	if (c == NULL || c->listener)
		return -EINVAL;
	pfd.fd = c->fd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	do {
		ret = poll(&pfd, 1, 0);
	} while (ret < 0 && errno == EINTR);
	if (ret < 0)
		return -errno;
	if (ret == 0)
		return 0;
	if ((pfd.revents & (POLLERR | POLLNVAL)) != 0) {
		conn_err(c, "connection to peer %s failed", c->peer);
		return -ECONNRESET;
	}
	/* Readable: data pending (alive) or EOF (gone). Peek, don't consume. */
	n = recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
	if (n > 0)
		return 0;
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return 0;
	conn_err(c, "peer %s has gone (%s)", c->peer,
		 n == 0 ? "connection closed" : strerror(errno));
	return -ECONNRESET;
}

const char *
rdx_conn_peer_name(const struct rdx_conn *c)
{
	return c != NULL ? c->peer : "";
}

const char *
rdx_conn_peer_version(const struct rdx_conn *c)
{
	return c != NULL ? c->peer_version : "";
}

int
rdx_conn_parse_hostport(const char *s, char *host, size_t host_len, uint16_t *port)
{
	const char *colon, *h, *p;
	size_t hl;
	unsigned long v;
	char *end;

	if (s == NULL || host == NULL || host_len == 0 || port == NULL)
		return -EINVAL;
	if (s[0] == '[') {
		const char *close_br = strchr(s, ']');

		if (close_br == NULL || close_br[1] != ':')
			return -EINVAL;
		h = s + 1;
		hl = (size_t)(close_br - h);
		p = close_br + 2;
	} else {
		colon = strrchr(s, ':');
		if (colon == NULL || strchr(s, ':') != colon)
			return -EINVAL;  /* no port, or bare IPv6 (use [addr]:port) */
		h = s;
		hl = (size_t)(colon - s);
		p = colon + 1;
	}
	if (hl == 0 || hl >= host_len || *p == '\0')
		return -EINVAL;
	for (const char *q = p; *q != '\0'; q++)
		if (*q < '0' || *q > '9')
			return -EINVAL;
	errno = 0;
	v = strtoul(p, &end, 10);
	if (errno != 0 || *end != '\0' || v == 0 || v > 65535)
		return -EINVAL;
	memcpy(host, h, hl);
	host[hl] = '\0';
	*port = (uint16_t)v;
	return 0;
}
