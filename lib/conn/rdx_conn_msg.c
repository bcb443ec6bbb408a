/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Out-of-band bootstrap over TCP, the framing side: deadlines and waits
 * that end on a stop request, raw stream I/O, typed and length-checked
 * messages (send, receive, both at once), resync after an unexpected
 * message, the non-blocking look at what has arrived (peek, recv_ready),
 * peer_alive and the one-line reasons. The socket side (listen,
 * accept, connect, hello) is rdx_conn_sock.c; the wire format is in
 * rdx_conn_priv.h.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <rte_common.h>

#include "rdx_conn.h"
#include "rdx_conn_priv.h"
#include "rdx_runtime.h"

/* Longest payload drained to resync after an unexpected message. */
#define RDX_CONN_DRAIN_MAX (1u << 20)
/* Longest single poll(): how quickly a stop request is noticed. */
#define RDX_CONN_WAIT_SLICE_MS 100

__thread char rdx_conn_tls_err[RDX_CONN_ERR_LEN];

void
rdx_conn_err(struct rdx_conn *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rdx_conn_tls_err, sizeof(rdx_conn_tls_err), fmt, ap);
	va_end(ap);
	if (c != NULL)
		memcpy(c->err, rdx_conn_tls_err, sizeof(c->err));
}

const char *
rdx_conn_strerror(const struct rdx_conn *c)
{
	const char *e = c != NULL ? c->err : rdx_conn_tls_err;

	return e[0] != '\0' ? e : "no error";
}

/* ----------------------------------------------------------------- time */

int64_t
rdx_conn_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Deadline from a timeout: < 0 means none. */
int64_t
rdx_conn_deadline(int timeout_ms)
{
	return timeout_ms < 0 ? -1 : rdx_conn_now_ms() + timeout_ms;
}

static int
remaining_ms(int64_t deadline)
{
	int64_t r;

	if (deadline < 0)
		return -1;
	r = deadline - rdx_conn_now_ms();
	if (r < 0)
		return 0;
	return r > INT32_MAX ? INT32_MAX : (int)r;
}

/*
 * Wait for events on fd until the deadline: 1 ready, 0 timeout, -errno.
 * Waits in slices so a stop request (Ctrl-C: the runtime's stop flag, which
 * may be set by a signal delivered to another thread) ends it: -EINTR.
 */
int
rdx_conn_wait_fd(int fd, short events, int64_t deadline, short *revents)
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
	return rdx_conn_wait_fd(fd, events, deadline, NULL);
}

/* "waiting for X failed: ..." or "interrupted" when a stop was requested. */
const char *
rdx_conn_wait_strerror(int ret)
{
	return ret == -EINTR ? "interrupted (stop requested)" : strerror(-ret);
}

/* ------------------------------------------------------------- raw I/O */

/* Send all of buf before the deadline. 0 or -errno (reason set). */
int
rdx_conn_send_all(struct rdx_conn *c, const void *buf, size_t len, int64_t deadline,
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
				rdx_conn_err(c, "peer %s closed the connection while we sent %s",
					     c->peer, what);
				return -ECONNRESET;
			}
			rdx_conn_err(c, "sending %s to %s failed: %s", what, c->peer, strerror(e));
			return -e;
		}
		ret = rdx_conn_wait_fd(c->fd, POLLOUT, deadline, &rev);
		if (ret < 0) {
			rdx_conn_err(c, "waiting to send %s failed: %s", what, rdx_conn_wait_strerror(ret));
			return ret;
		}
		if (ret == 0) {
			rdx_conn_err(c, "timed out sending %s to %s (peer not reading)", what, c->peer);
			return -ETIMEDOUT;
		}
	}
	return 0;
}

/* Receive exactly len bytes before the deadline. 0 or -errno (reason set). */
int
rdx_conn_recv_all(struct rdx_conn *c, void *buf, size_t len, int64_t deadline, const char *what)
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
			rdx_conn_err(c, "peer %s closed the connection (waiting for %s, got %zu of %zu bytes)",
				     c->peer, what, done, len);
			return -ECONNRESET;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			int e = errno;

			if (e == ECONNRESET) {
				rdx_conn_err(c, "peer %s reset the connection (waiting for %s)",
					     c->peer, what);
				return -ECONNRESET;
			}
			rdx_conn_err(c, "receiving %s from %s failed: %s", what, c->peer, strerror(e));
			return -e;
		}
		ret = rdx_conn_wait_fd(c->fd, POLLIN, deadline, NULL);
		if (ret < 0) {
			rdx_conn_err(c, "waiting for %s failed: %s", what, rdx_conn_wait_strerror(ret));
			return ret;
		}
		if (ret == 0) {
			rdx_conn_err(c, "timed out waiting for %s from %s", what, c->peer);
			return -ETIMEDOUT;
		}
	}
	return 0;
}

/*
 * Without waiting or consuming anything: how many bytes have arrived, the
 * first min(len, that) of them in buf. poll() with POLLRDHUP tells a peer
 * that is still connected (what is missing may come) from one that has
 * closed after a part of it (it never will). A peek that brought fewer
 * bytes into buf than FIONREAD counted (interrupted) returns what it
 * brought: the caller never looks at bytes it did not read.
 */
int
rdx_conn_peek(struct rdx_conn *c, void *buf, size_t len, size_t need, const char *what)
{
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN | POLLRDHUP };
	int ret, avail = 0;
	ssize_t n;

	do {
		ret = poll(&pfd, 1, 0);
	} while (ret < 0 && errno == EINTR);
	if (ret < 0) {
		ret = -errno;
		rdx_conn_err(c, "waiting for %s failed: %s", what, strerror(-ret));
		return ret;
	}
	if (ret == 0)
		return 0;
	if (ioctl(c->fd, FIONREAD, &avail) != 0 || avail < 0)
		avail = 0;
	if (avail > 0 && len > 0) {
		n = recv(c->fd, buf, RTE_MIN(len, (size_t)avail), MSG_PEEK | MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return 0; /* look again later */
		if (n >= 0 && (size_t)n < RTE_MIN(len, (size_t)avail))
			return (int)n;
		if (n < 0) {
			ret = errno;
			if (ret == ECONNRESET) {
				rdx_conn_err(c, "peer %s reset the connection (waiting for %s)",
					     c->peer, what);
				return -ECONNRESET;
			}
			rdx_conn_err(c, "receiving %s from %s failed: %s", what, c->peer,
				     strerror(ret));
			return -ret;
		}
	}
	if ((size_t)avail < need && (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0) {
		rdx_conn_err(c, "peer %s closed the connection (waiting for %s, got %d of %zu bytes)",
			     c->peer, what, avail, need);
		return -ECONNRESET;
	}
	return avail;
}

/* ------------------------------------------------------------- messages */

static int
check_io_args(struct rdx_conn *c, const void *buf, size_t len)
{
	if (c == NULL)
		return -EINVAL;
	if (c->listener) {
		rdx_conn_err(c, "cannot send or receive on a listening connection");
		return -EINVAL;
	}
	if (c->hello_pending) {
		rdx_conn_err(c, "the hello of peer %s is not checked yet (rdx_conn_hello_poll)",
			     c->peer);
		return -EINVAL;
	}
	if ((buf == NULL && len > 0) || len > UINT32_MAX) {
		rdx_conn_err(c, "bad message buffer (len %zu)", len);
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
	ret = rdx_conn_send_all(c, &h, sizeof(h), deadline, what);
	if (ret == 0 && len > 0)
		ret = rdx_conn_send_all(c, buf, len, deadline, what);
	return ret;
}

static void
mismatch_err(struct rdx_conn *c, uint32_t t, uint32_t l, uint32_t type, size_t len)
{
	if (t != type)
		rdx_conn_err(c, "peer %s sent message type %u (%u bytes), we expected type %u "
			     "(%zu bytes): is it running the same test?", c->peer, t, l, type, len);
	else
		rdx_conn_err(c, "peer %s sent %u bytes for message type %u, we expected %zu: "
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

		if (rdx_conn_recv_all(c, tmp, k, deadline, "a payload") < 0)
			break;
		n -= k;
	}
	memcpy(c->err, saved, sizeof(saved));
	memcpy(rdx_conn_tls_err, saved, sizeof(saved));
}

static int
recv_msg(struct rdx_conn *c, uint32_t type, void *buf, size_t len, int64_t deadline)
{
	struct rdx_msg_hdr h;
	uint32_t t, l;
	char what[48];
	int ret;

	snprintf(what, sizeof(what), "message type %u", type);
	ret = rdx_conn_recv_all(c, &h, sizeof(h), deadline, what);
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
		return rdx_conn_recv_all(c, buf, len, deadline, what);
	return 0;
}

int
rdx_conn_send(struct rdx_conn *c, uint32_t type, const void *buf, size_t len, int timeout_ms)
{
	int ret = check_io_args(c, buf, len);

	if (ret < 0)
		return ret;
	return send_msg(c, type, buf, len, rdx_conn_deadline(timeout_ms));
}

int
rdx_conn_recv(struct rdx_conn *c, uint32_t type, void *buf, size_t len, int timeout_ms)
{
	int ret = check_io_args(c, buf, len);

	if (ret < 0)
		return ret;
	return recv_msg(c, type, buf, len, rdx_conn_deadline(timeout_ms));
}

int
rdx_conn_recv_ready(struct rdx_conn *c, uint32_t type, size_t len)
{
	struct rdx_msg_hdr h;
	char what[48];
	int ret = check_io_args(c, NULL, 0);

	if (ret < 0)
		return ret;
	if (len > RDX_CONN_READY_MAX) {
		rdx_conn_err(c, "cannot wait for %zu bytes without blocking (at most %u)", len,
			     RDX_CONN_READY_MAX);
		return -EINVAL;
	}
	snprintf(what, sizeof(what), "message type %u", type);
	ret = rdx_conn_peek(c, &h, sizeof(h), sizeof(h) + len, what);
	if (ret < 0)
		return ret;
	if ((size_t)ret < sizeof(h))
		return -EAGAIN;
	if (ntohl(h.type) != type || ntohl(h.len) != len) {
		mismatch_err(c, ntohl(h.type), ntohl(h.len), type, len);
		return -EPROTO;
	}
	return (size_t)ret < sizeof(h) + len ? -EAGAIN : 0;
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
					rdx_conn_err(c, "peer %s closed the connection while we sent message "
						     "type %u", c->peer, type);
					return -ECONNRESET;
				}
				rdx_conn_err(c, "sending message type %u to %s failed: %s", type, c->peer,
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
					rdx_conn_err(c, "peer %s closed the connection (waiting for message "
						     "type %u)", c->peer, type);
				return mismatch ? -EPROTO : -ECONNRESET;
			} else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
				e = errno;
				if (!mismatch)
					rdx_conn_err(c, "receiving message type %u from %s failed: %s", type,
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
				rdx_conn_err(c, "timed out exchanging message type %u with %s", type,
					     c->peer);
			else
				rdx_conn_err(c, "waiting to exchange message type %u failed: %s", type,
					     rdx_conn_wait_strerror(ret));
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
	return exchange_msgs(c, type, local, remote, len, rdx_conn_deadline(timeout_ms));
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
		rdx_conn_err(c, "connection to peer %s failed", c->peer);
		return -ECONNRESET;
	}
	/* Readable: data pending (alive) or EOF (gone). Peek, don't consume. */
	n = recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
	if (n > 0)
		return 0;
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return 0;
	rdx_conn_err(c, "peer %s has gone (%s)", c->peer,
		     n == 0 ? "connection closed" : strerror(errno));
	return -ECONNRESET;
}
