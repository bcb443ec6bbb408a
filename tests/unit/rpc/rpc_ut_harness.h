/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the lib/rpc end-to-end unit tests: two endpoints on two
 * software devices in one process, a session between them, a handler that
 * checks the request's bytes and answers with a response of the length the
 * request asks for (a byte pattern the continuation checks), and a driver
 * that keeps calls in flight and polls both endpoints until every call has
 * completed (or a 120 s safety bound, which fails the test).
 */
#ifndef RPC_UT_HARNESS_H
#define RPC_UT_HARNESS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>
#include <rte_errno.h>

#include "rdx_ut.h"
#include "rdx_dev.h"
#include "rdx_rpc.h"

#define UT_TYPE_ECHO 7     /* answers at once */
#define UT_TYPE_LATER 9    /* answers from the test's loop */
#define UT_MAX_INFLIGHT 64

/* request: what the response must be, then pattern bytes */
struct ut_req_hdr {
	uint32_t resp_len;
	uint32_t seed;
};

static inline uint8_t
ut_byte(uint32_t i, uint32_t seed)
{
	return (uint8_t)(i * 31u + seed * 7u + (i >> 8) + 1u);
}

static inline void
ut_fill(uint8_t *b, uint32_t len, uint32_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		b[i] = ut_byte(i, seed);
}

static inline int
ut_check(const uint8_t *b, uint32_t len, uint32_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (b[i] != ut_byte(i, seed))
			return -1;
	return 0;
}

struct ut_srv {
	uint64_t handled;       /* handler invocations */
	uint64_t bad_req;       /* requests with wrong bytes */
	struct rdx_rpc_req *later[UT_MAX_INFLIGHT];
	unsigned int nlater;
};

static void
ut_fill_resp(struct rdx_rpc_req *req, struct ut_srv *srv)
{
	struct ut_req_hdr h;
	uint32_t n;

	srv->handled++;
	if (req->len < sizeof(h)) {
		srv->bad_req++;
		rdx_rpc_respond(req, 0);
		return;
	}
	memcpy(&h, req->data, sizeof(h));
	n = req->len - (uint32_t)sizeof(h);
	if (ut_check((const uint8_t *)req->data + sizeof(h), n, h.seed) != 0)
		srv->bad_req++;
	if (h.resp_len > req->resp_cap)
		h.resp_len = req->resp_cap;
	ut_fill(req->resp, h.resp_len, h.seed ^ 0x5au);
}

static void
ut_echo(struct rdx_rpc_req *req, void *arg)
{
	struct ut_req_hdr h;

	ut_fill_resp(req, arg);
	if (req->len >= sizeof(h)) {
		memcpy(&h, req->data, sizeof(h));
		CU_ASSERT(rdx_rpc_respond(req, h.resp_len) == 0);
	}
}

static void
ut_later(struct rdx_rpc_req *req, void *arg)
{
	struct ut_srv *srv = arg;

	ut_fill_resp(req, srv);
	CU_ASSERT_FATAL(srv->nlater < UT_MAX_INFLIGHT);
	srv->later[srv->nlater++] = req;
}

/* respond to the deferred requests */
static inline void
ut_srv_flush(struct ut_srv *srv)
{
	unsigned int i;

	for (i = 0; i < srv->nlater; i++) {
		struct ut_req_hdr h;

		memcpy(&h, srv->later[i]->data, sizeof(h));
		CU_ASSERT(rdx_rpc_respond(srv->later[i], h.resp_len) == 0);
	}
	srv->nlater = 0;
}

struct ut_call {
	uint8_t *req;
	uint8_t *resp;
	uint32_t req_len;
	uint32_t resp_len;
	uint32_t resp_cap;
	uint32_t seed;
	int status;
	uint32_t got_len;
	int completions;
};

struct ut_stats {
	uint64_t ok, bad_bytes, errors, extra;
};

static struct ut_stats ut_st;

static void
ut_cont(struct rdx_rpc_session *sess, int status, void *resp, uint32_t len, void *arg)
{
	struct ut_call *c = arg;

	(void)sess;
	c->completions++;
	c->status = status;
	c->got_len = len;
	if (c->completions > 1)
		ut_st.extra++;
	if (status != 0) {
		ut_st.errors++;
		fprintf(stderr, "call seed %u: status %d\n", c->seed, status);
		return;
	}
	if (len != c->resp_len || resp != c->resp || ut_check(resp, len, c->seed ^ 0x5au) != 0)
		ut_st.bad_bytes++;
	else
		ut_st.ok++;
}

struct ut_pair {
	struct rdx_dev *da, *db;
	struct rdx_rpc_endpoint *a, *b;
	struct rdx_rpc_session *sa, *sb;
	struct ut_srv srv_a, srv_b;
};

static inline int
ut_pair_open(struct ut_pair *p, const char *deva, const char *devb,
	     const struct rdx_rpc_conf *conf)
{
	struct rdx_rpc_session_info ia, ib;

	memset(p, 0, sizeof(*p));
	p->da = rdx_dev_open(deva, NULL);
	p->db = rdx_dev_open(devb, NULL);
	if (p->da == NULL || p->db == NULL)
		return -1;
	p->a = rdx_rpc_endpoint_create(p->da, conf);
	p->b = rdx_rpc_endpoint_create(p->db, conf);
	if (p->a == NULL || p->b == NULL)
		return -2;
	p->sa = rdx_rpc_session_create(p->a);
	p->sb = rdx_rpc_session_create(p->b);
	if (p->sa == NULL || p->sb == NULL)
		return -3;
	if (rdx_rpc_session_info_get(p->sa, &ia) != 0 || rdx_rpc_session_info_get(p->sb, &ib) != 0)
		return -4;
	if (rdx_rpc_session_connect(p->sa, &ib) != 0 || rdx_rpc_session_connect(p->sb, &ia) != 0)
		return -5;
	if (rdx_rpc_handler_register(p->b, UT_TYPE_ECHO, ut_echo, &p->srv_b) != 0 ||
	    rdx_rpc_handler_register(p->b, UT_TYPE_LATER, ut_later, &p->srv_b) != 0 ||
	    rdx_rpc_handler_register(p->a, UT_TYPE_ECHO, ut_echo, &p->srv_a) != 0)
		return -6;
	return 0;
}

static inline void
ut_pair_close(struct ut_pair *p)
{
	CU_ASSERT(rdx_rpc_endpoint_destroy(p->a) == 0);
	CU_ASSERT(rdx_rpc_endpoint_destroy(p->b) == 0);
	CU_ASSERT(rdx_dev_close(p->da) == 0);
	CU_ASSERT(rdx_dev_close(p->db) == 0);
}

/* Polls both endpoints until the call c has completed (or 100000 rounds). */
static inline void
ut_wait_call(struct ut_pair *p, struct ut_call *c)
{
	int i;

	for (i = 0; i < 100000 && c->completions == 0; i++) {
		rdx_rpc_endpoint_poll(p->a);
		rdx_rpc_endpoint_poll(p->b);
	}
}

/*
 * The errors every transport reports the same way, on a pair opened with
 * conf: a type with no handler completes with -ENOENT; a response larger
 * than resp_cap with -EMSGSIZE and its true length. The pair stays open
 * (each transport's test goes on with its own cases); c is reset.
 */
static inline void
ut_common_errors(struct ut_pair *p, struct ut_call *c, uint8_t *resp, uint32_t resp_cap)
{
	struct ut_req_hdr h = { .resp_len = 5000, .seed = 1 };

	memset(c, 0, sizeof(*c));
	c->resp = resp;
	CU_ASSERT_EQUAL(rdx_rpc_call(p->sa, 200, &h, sizeof(h), resp, resp_cap, ut_cont, c), 0);
	ut_wait_call(p, c);
	CU_ASSERT_EQUAL(c->completions, 1);
	CU_ASSERT_EQUAL(c->status, -ENOENT);
	c->completions = 0;
	CU_ASSERT_EQUAL(rdx_rpc_call(p->sa, UT_TYPE_ECHO, &h, sizeof(h), resp, resp_cap,
				     ut_cont, c), 0);
	ut_wait_call(p, c);
	CU_ASSERT_EQUAL(c->completions, 1);
	CU_ASSERT_EQUAL(c->status, -EMSGSIZE);
	CU_ASSERT_EQUAL(c->got_len, 5000);
	c->completions = 0;
}

static inline double
ut_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/*
 * n calls of type on sess, request and response sizes from the two lists
 * (cycled), at most depth in flight; polls the endpoints a and b (and
 * flushes deferred responses of srv) until all completed. Returns the
 * number of calls not completed (0 on success).
 */
static inline unsigned int
ut_run(struct rdx_rpc_endpoint *a, struct rdx_rpc_endpoint *b, struct rdx_rpc_session *sess,
       uint16_t type, unsigned int n, const uint32_t *req_sizes, unsigned int nreq,
       const uint32_t *resp_sizes, unsigned int nresp, unsigned int depth, struct ut_srv *srv)
{
	static struct ut_call calls[UT_MAX_INFLIGHT];
	unsigned int issued = 0, done = 0, i, busy = 0;
	double end = ut_now() + 120.0;
	uint32_t maxreq = 0, maxresp = 0;

	for (i = 0; i < nreq; i++)
		maxreq = req_sizes[i] > maxreq ? req_sizes[i] : maxreq;
	for (i = 0; i < nresp; i++)
		maxresp = resp_sizes[i] > maxresp ? resp_sizes[i] : maxresp;
	if (maxreq < sizeof(struct ut_req_hdr))
		maxreq = sizeof(struct ut_req_hdr);
	if (depth > UT_MAX_INFLIGHT)
		depth = UT_MAX_INFLIGHT;
	for (i = 0; i < depth; i++) {
		calls[i].req = malloc(maxreq);
		calls[i].resp = malloc(maxresp + 1);
		calls[i].completions = 1; /* free */
		calls[i].resp_cap = maxresp;
	}
	while (done < n && ut_now() < end) {
		for (i = 0; i < depth && issued < n; i++) {
			struct ut_call *c = &calls[i];
			struct ut_req_hdr h;
			int ret;

			if (c->completions == 0)
				continue;
			c->req_len = req_sizes[issued % nreq];
			if (c->req_len < sizeof(h))
				c->req_len = sizeof(h);
			c->resp_len = resp_sizes[issued % nresp];
			c->seed = issued * 2654435761u;
			h.resp_len = c->resp_len;
			h.seed = c->seed;
			memcpy(c->req, &h, sizeof(h));
			ut_fill(c->req + sizeof(h), c->req_len - (uint32_t)sizeof(h), c->seed);
			c->completions = 0;
			ret = rdx_rpc_call(sess, type, c->req, c->req_len, c->resp, c->resp_cap,
					   ut_cont, c);
			if (ret == -EAGAIN || ret == -ENOBUFS) {
				c->completions = 1;
				break;
			}
			CU_ASSERT_EQUAL(ret, 0);
			if (ret != 0) {
				c->completions = 1;
				done++;
			}
			issued++;
		}
		rdx_rpc_endpoint_poll(a);
		rdx_rpc_endpoint_poll(b);
		if (srv != NULL && srv->nlater > 0 && ++busy % 16 == 0)
			ut_srv_flush(srv);
		{
			/* completed = issued - in flight */
			unsigned int inflight = 0;

			for (i = 0; i < depth; i++)
				inflight += calls[i].completions == 0;
			done = issued - inflight;
		}
	}
	if (done < n) {
		/* calls still in flight keep their buffers (the test fails) */
		fprintf(stderr, "ut_run: %u of %u calls completed in 120 s\n", done, n);
		return n - done;
	}
	for (i = 0; i < depth; i++) {
		free(calls[i].req);
		free(calls[i].resp);
	}
	return 0;
}

#endif /* RPC_UT_HARNESS_H */
