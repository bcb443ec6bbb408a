/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the bootstrap decoder of lib/conn (rdx_conn_sock.c:
 * hello; rdx_conn_msg.c: framed messages) fed with arbitrary peer bytes.
 * Both files are included (as tests/unit/conn does) so a connection can be
 * built around one end of a socketpair; the other end holds the fuzz bytes
 * and is shut for writing, so every read ends at the input's end with EOF:
 * no waits, no timeouts.
 *
 * Input: op (1 byte), expected type (4, BE), expected length (2, BE; masked
 * to 0..4095), then the bytes the peer "sent". Ops:
 *   0 hello as the accepting/connecting side (magic, wire version, version)
 *   1 hello, then one framed message (rdx_conn_recv path)
 *   2 hello, then rdx_conn_exchange (send and receive at once)
 *   3 framed message only, twice (stream stays framed after -EPROTO)
 *   4 rdx_conn_parse_hostport on the bytes as a string
 *   5 the non-blocking side (kv_server's accept): rdx_conn_hello_poll, then
 *     rdx_conn_recv_ready and rdx_conn_recv, the peer's bytes arriving in
 *     chunks of 1 + (type ^ length) % 97 bytes, a poll after each chunk and
 *     after the end (EOF); checked besides: -EAGAIN only while bytes may
 *     still come (never after EOF: a caller would wait for ever), no send or
 *     receive before the hello is checked, and a message recv_ready calls
 *     ready is taken by rdx_conn_recv (or refused as recv_ready said)
 * Checked: no crash or sanitizer report; a failure leaves a one-line reason;
 * success fills exactly the expected bytes; the peer's version string is
 * NUL-terminated.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "../../lib/conn/rdx_conn_sock.c"
#include "../../lib/conn/rdx_conn_msg.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_MAX_LEN 4096

static void
check_reason(const struct rdx_conn *c, int ret)
{
	if (ret == 0)
		return;
	/* A failure names its reason in one line. */
	if (c->err[0] == '\0' || strchr(c->err, '\n') != NULL)
		abort();
	if (ret != -EPROTO && ret != -ECONNRESET && ret != -EINVAL && ret != -ETIMEDOUT &&
	    ret != -EINTR && ret != -EPIPE)
		abort();
}

static int
msg_ops(struct rdx_conn *c, uint8_t op, uint32_t type, size_t len)
{
	static uint8_t buf[FZ_MAX_LEN + 16], mine[FZ_MAX_LEN];
	int ret;

	/* Guard bytes after len: the decoder must not write past it. */
	memset(buf, 0xa5, sizeof(buf));
	if (op == 2) {
		ret = rdx_conn_exchange(c, type, mine, buf, len, 0);
	} else {
		ret = rdx_conn_recv(c, type, buf, len, 0);
	}
	for (size_t i = len; i < sizeof(buf); i++)
		if (buf[i] != 0xa5)
			abort();
	check_reason(c, ret);
	if (op == 3 && ret == -EPROTO) {
		/* after a mismatch the stream is still framed: try again */
		c->err[0] = '\0';
		ret = rdx_conn_recv(c, type, buf, len, 0);
		check_reason(c, ret);
	}
	return ret;
}

/* Op 5: one poll of the non-blocking side; *stage: 0 hello, 1 message, 2 done. */
static void
nb_step(struct rdx_conn *c, int *stage, uint32_t type, size_t len, bool eof)
{
	static uint8_t buf[FZ_MAX_LEN + 16];
	int ret, got;

	if (*stage == 0) {
		/* nothing goes before the hello is checked */
		if (rdx_conn_recv_ready(c, type, len) != -EINVAL)
			abort();
		ret = rdx_conn_hello_poll(c);
		if (ret == -EAGAIN && !eof)
			return;
		check_reason(c, ret);
		if (ret != 0 && ret != -EPROTO && ret != -ECONNRESET)
			abort();
		if (ret == 0 && strlen(c->peer_version) >= sizeof(c->peer_version))
			abort();
		*stage = ret == 0 ? 1 : 2;
		if (ret != 0)
			return;
	}
	if (*stage != 1)
		return;
	ret = rdx_conn_recv_ready(c, type, len);
	if (ret == -EAGAIN && !eof)
		return;
	if (ret != 0 && ret != -EPROTO && ret != -ECONNRESET)
		abort();
	check_reason(c, ret);
	*stage = 2;
	if (ret == -ECONNRESET)
		return;
	/* ready: taken at once; a mismatch: refused as recv_ready said */
	memset(buf, 0xa5, sizeof(buf));
	got = rdx_conn_recv(c, type, buf, len, 0);
	if (got != ret)
		abort();
	for (size_t i = len; i < sizeof(buf); i++)
		if (buf[i] != 0xa5)
			abort();
}

static void
nb_ops(int peer, struct rdx_conn *c, const uint8_t *data, size_t size, uint32_t type,
       size_t len)
{
	const size_t chunk = 1 + (size_t)((type ^ (uint32_t)len) % 97);
	int stage = 0;
	size_t off;

	c->hello_pending = true; /* as rdx_conn_accept_start leaves it */
	nb_step(c, &stage, type, len, false);
	for (off = 0; off < size && stage < 2; off += chunk) {
		size_t n = size - off < chunk ? size - off : chunk;

		if (send(peer, data + off, n, MSG_NOSIGNAL) != (ssize_t)n)
			abort();
		nb_step(c, &stage, type, len, false);
	}
	shutdown(peer, SHUT_WR);
	nb_step(c, &stage, type, len, true);
	if (stage != 2)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rdx_conn *c;
	uint32_t type;
	size_t len;
	uint8_t op;
	int sv[2], ret;

	if (size < 7)
		return 0;
	op = data[0] % 6;
	type = (uint32_t)data[1] << 24 | (uint32_t)data[2] << 16 | (uint32_t)data[3] << 8 | data[4];
	len = ((size_t)data[5] << 8 | data[6]) % FZ_MAX_LEN;
	data += 7;
	size -= 7;
	if (op == 4) {
		char s[300], host[64];
		uint16_t port = 0;
		size_t n = size < sizeof(s) - 1 ? size : sizeof(s) - 1;

		memcpy(s, data, n);
		s[n] = '\0';
		if (rdx_conn_parse_hostport(s, host, sizeof(host), &port) == 0 &&
		    (port == 0 || host[0] == '\0' || strlen(host) >= sizeof(host)))
			abort();
		return 0;
	}
	if (size > 64 * 1024)
		return 0;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) != 0)
		abort();
	/* Room for the input and for what we send (hello + one message). */
	{
		int sz = 256 * 1024;

		setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
		setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	}
	c = conn_new(sv[0], false);
	if (c == NULL)
		abort();
	snprintf(c->peer, sizeof(c->peer), "fuzz");
	if (op == 5) {
		nb_ops(sv[1], c, data, size, type, len);
		rdx_conn_close(c);
		close(sv[1]);
		return 0;
	}
	if (size > 0 && send(sv[1], data, size, MSG_NOSIGNAL) != (ssize_t)size)
		abort();
	shutdown(sv[1], SHUT_WR);
	ret = 0;
	if (op <= 2) {
		ret = hello_exchange(c, rdx_conn_deadline(0));
		check_reason(c, ret);
		if (strlen(c->peer_version) >= sizeof(c->peer_version))
			abort();
	}
	if (ret == 0 && op >= 1)
		msg_ops(c, op, type, len);
	/* Not alive any more: we saw EOF, or it is still readable. */
	ret = rdx_conn_peer_alive(c);
	if (ret != 0 && ret != -ECONNRESET)
		abort();
	rdx_conn_close(c);
	close(sv[1]);
	return 0;
}
