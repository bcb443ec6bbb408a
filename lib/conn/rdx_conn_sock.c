/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Out-of-band bootstrap over TCP, the socket side: listen, accept and
 * connect with a deadline, accept without waiting (the peer's hello checked
 * later, hello_poll), the peer's address, the hello exchange and its
 * wire version check, HOST:PORT parsing. The framing side (waits, stream
 * I/O, messages) is rdx_conn_msg.c; the wire format is in rdx_conn_priv.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
#include "rdx_conn_priv.h"

RTE_LOG_REGISTER(rdx_conn_logtype, rdx.conn, NOTICE)

#define CONN_LOG(level, ...) \
	rte_log(RTE_LOG_ ## level, (uint32_t)rdx_conn_logtype, "rdx.conn: " __VA_ARGS__)

/* Longest wait for an accepted peer's hello (it sends it on connecting). */
#define RDX_CONN_HELLO_MS 2000

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
hello_send(struct rdx_conn *c, int64_t deadline)
{
	struct rdx_hello mine;

	hello_fill(&mine, conn_hello_version);
	return rdx_conn_send_all(c, &mine, sizeof(mine), deadline, "the hello");
}

static int
bad_magic(struct rdx_conn *c)
{
	rdx_conn_err(c, "peer %s is not an rdx peer (bad hello magic)", c->peer);
	return -EPROTO;
}

/* The peer's hello, received: magic, version string, wire version. */
static int
hello_check(struct rdx_conn *c, const struct rdx_hello *theirs)
{
	uint32_t v;

	if (memcmp(theirs->magic, RDX_CONN_MAGIC, sizeof(theirs->magic)) != 0)
		return bad_magic(c);
	memcpy(c->peer_version, theirs->version, sizeof(theirs->version));
	c->peer_version[sizeof(theirs->version)] = '\0';
	/* Peer bytes go into one-line messages and logs: printable ASCII only
	 * (a newline or escape sequence from the wire must not reach them). */
	for (char *p = c->peer_version; *p != '\0'; p++)
		if (*p < 0x20 || *p > 0x7e)
			*p = '?';
	v = ntohl(theirs->wire_version);
	if (v != RDX_WIRE_VERSION) {
		rdx_conn_err(c, "peer %s runs wire version %u (rdx %s), we run %u (rdx %s)",
			     c->peer, v, c->peer_version, RDX_WIRE_VERSION, RDX_VERSION_STR);
		return -EPROTO;
	}
	return 0;
}

static int
hello_exchange(struct rdx_conn *c, int64_t deadline)
{
	struct rdx_hello theirs;
	int ret;

	ret = hello_send(c, deadline);
	if (ret < 0)
		return ret;
	ret = rdx_conn_recv_all(c, &theirs, sizeof(theirs), deadline, "the peer's hello");
	if (ret < 0)
		return ret;
	return hello_check(c, &theirs);
}

int
rdx_conn_hello_poll(struct rdx_conn *c)
{
	struct rdx_hello theirs;
	int ret;

	if (c == NULL || c->listener)
		return -EINVAL;
	if (!c->hello_pending)
		return 0;
	ret = rdx_conn_peek(c, &theirs, sizeof(theirs), sizeof(theirs), "the peer's hello");
	if (ret < 0)
		return ret;
	/* a stray peer (a port scan, an HTTP client) shows in its first bytes */
	if (memcmp(theirs.magic, RDX_CONN_MAGIC, RTE_MIN((size_t)ret, sizeof(theirs.magic))) != 0)
		return bad_magic(c);
	if ((size_t)ret < sizeof(theirs))
		return -EAGAIN;
	/* all there: taken without waiting */
	ret = rdx_conn_recv_all(c, &theirs, sizeof(theirs), rdx_conn_now_ms(), "the peer's hello");
	if (ret == 0)
		ret = hello_check(c, &theirs);
	if (ret < 0)
		return ret;
	c->hello_pending = false;
	CONN_LOG(DEBUG, "accepted %s on port %u (peer rdx %s)\n", c->peer, c->port,
		 c->peer_version);
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

	rdx_conn_tls_err[0] = '\0';
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	snprintf(port_str, sizeof(port_str), "%u", port);
	ret = getaddrinfo(bind_addr, port_str, &hints, &res);
	if (ret != 0) {
		rdx_conn_err(NULL, "cannot listen on '%s': %s", bind_addr != NULL ? bind_addr : "*",
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
			rdx_conn_err(NULL, "port %u is already in use on %s (another server running? "
				     "pick another port)", port, bind_addr != NULL ? bind_addr : "this host");
		else
			rdx_conn_err(NULL, "cannot listen on %s port %u: %s",
				     bind_addr != NULL ? bind_addr : "*", port, strerror(e != 0 ? e : EINVAL));
		rte_errno = e != 0 ? e : EINVAL;
		return NULL;
	}
	c = conn_new(fd, true);
	if (c == NULL) {
		close(fd);
		rdx_conn_err(NULL, "out of memory");
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

static bool
is_listener(struct rdx_conn *listener)
{
	if (listener != NULL && listener->listener)
		return true;
	rdx_conn_err(NULL, "accept needs a listening connection");
	rte_errno = EINVAL;
	return false;
}

/*
 * Take a peer that has connected, without waiting: its connection (the
 * peer's address set, hello not exchanged), or NULL with rte_errno EAGAIN
 * (none waiting) or another errno (reason set on the listener).
 */
static struct rdx_conn *
take_peer(struct rdx_conn *listener)
{
	struct sockaddr_storage ss;
	struct rdx_conn *c;
	socklen_t sl;
	int fd;

	for (;;) {
		sl = sizeof(ss);
		fd = accept4(listener->fd, (struct sockaddr *)&ss, &sl,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd >= 0)
			break;
		if (errno == EINTR || errno == ECONNABORTED)
			continue;
		rte_errno = errno == EWOULDBLOCK ? EAGAIN : errno;
		if (rte_errno != EAGAIN)
			rdx_conn_err(listener, "accept on port %u failed: %s", listener->port,
				     strerror(rte_errno));
		return NULL;
	}
	c = conn_new(fd, false);
	if (c == NULL) {
		close(fd);
		rdx_conn_err(listener, "out of memory");
		rte_errno = ENOMEM;
		return NULL;
	}
	tune_socket(fd);
	c->port = listener->port;
	addr_str((struct sockaddr *)&ss, c->peer, sizeof(c->peer));
	return c;
}

struct rdx_conn *
rdx_conn_accept(struct rdx_conn *listener, int timeout_ms)
{
	int64_t deadline = rdx_conn_deadline(timeout_ms);
	struct rdx_conn *c;
	int64_t hello_deadline;
	int ret;

	rdx_conn_tls_err[0] = '\0';
	if (!is_listener(listener))
		return NULL;
	listener->peer_version[0] = '\0';
	while ((c = take_peer(listener)) == NULL) {
		if (rte_errno != EAGAIN)
			return NULL;
		ret = rdx_conn_wait_fd(listener->fd, POLLIN, deadline, NULL);
		if (ret <= 0) {
			rte_errno = ret == 0 ? ETIMEDOUT : -ret;
			if (ret == 0)
				rdx_conn_err(listener, "no peer connected to port %u within %d ms",
					     listener->port, timeout_ms);
			else
				rdx_conn_err(listener, "waiting for a peer on port %u failed: %s",
					     listener->port, rdx_conn_wait_strerror(ret));
			return NULL;
		}
	}
	/* a real peer sends its hello as soon as it connects: one that does
	 * not (a port scan, a stuck client) cannot hold the listener long */
	hello_deadline = rdx_conn_now_ms() + RDX_CONN_HELLO_MS;
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

struct rdx_conn *
rdx_conn_accept_start(struct rdx_conn *listener)
{
	struct rdx_conn *c;
	int ret;

	rdx_conn_tls_err[0] = '\0';
	if (!is_listener(listener))
		return NULL;
	listener->peer_version[0] = '\0';
	c = take_peer(listener);
	if (c == NULL)
		return NULL;
	/* 24 bytes on a new connection: the send buffer takes them at once */
	ret = hello_send(c, rdx_conn_now_ms());
	if (ret < 0) {
		memcpy(listener->err, c->err, sizeof(listener->err));
		rdx_conn_close(c);
		rte_errno = -ret;
		return NULL;
	}
	c->hello_pending = true;
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
	ret = rdx_conn_wait_fd(fd, POLLOUT, deadline, NULL);
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
	int64_t deadline = rdx_conn_deadline(timeout_ms);
	struct addrinfo hints, *res = NULL, *ai;
	char port_str[8], where[INET6_ADDRSTRLEN + 8] = "?";
	struct rdx_conn *c;
	int fd = -ENOENT, ret;

	rdx_conn_tls_err[0] = '\0';
	if (host == NULL || port == 0) {
		rdx_conn_err(NULL, "connect needs a host and a port (1-65535)");
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
		rdx_conn_err(NULL, "cannot resolve '%s': %s", host, gai_strerror(ret));
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
			rdx_conn_err(NULL, "connection to %s refused (is the server running?)", where);
			break;
		case ETIMEDOUT:
			rdx_conn_err(NULL, "no answer from %s within %d ms", where, timeout_ms);
			break;
		case EINTR:
			rdx_conn_err(NULL, "connecting to %s interrupted (stop requested)", where);
			break;
		case EHOSTUNREACH:
		case ENETUNREACH:
			rdx_conn_err(NULL, "%s is unreachable: %s", where, strerror(e));
			break;
		default:
			rdx_conn_err(NULL, "cannot connect to %s: %s", where, strerror(e));
			break;
		}
		rte_errno = e;
		return NULL;
	}
	c = conn_new(fd, false);
	if (c == NULL) {
		close(fd);
		rdx_conn_err(NULL, "out of memory");
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
