/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The serving child of the lib/rpc two-process tests (rdx_rpc_rc_ut,
 * rdx_rpc_ud_ut): one endpoint of the given transport on the software device
 * opened with dev (devargs included), the echo handler of rpc_ut_harness.h,
 * session infos swapped with the parent over two pipes; it serves until the
 * parent writes 'x', then writes back how many requests it handled. Its
 * return value is the child's exit status (0: every request was right).
 */
#ifndef RPC_UT_CHILD_H
#define RPC_UT_CHILD_H

#include <sys/select.h>
#include <unistd.h>

#include "rpc_ut_harness.h"
#include "sw_ut_pipe.h"

static inline int
ut_child_serve(int rfd, int wfd, const char *transport, const char *dev)
{
	struct rdx_rpc_conf conf = { .transport = transport, .slots = 4, .max_sessions = 1 };
	struct rdx_rpc_session_info mine, peer;
	struct rdx_rpc_endpoint *ep;
	struct rdx_rpc_session *s;
	struct rdx_dev *d;
	struct ut_srv srv = { 0 };
	char tok = 0;

	d = rdx_dev_open(dev, NULL);
	if (d == NULL)
		return 10;
	ep = rdx_rpc_endpoint_create(d, &conf);
	if (ep == NULL)
		return 11;
	s = rdx_rpc_session_create(ep);
	if (s == NULL || rdx_rpc_session_info_get(s, &mine) != 0 ||
	    rdx_rpc_handler_register(ep, UT_TYPE_ECHO, ut_echo, &srv) != 0)
		return 12;
	if (wr_all(wfd, &mine, sizeof(mine)) != 0 || rd_all(rfd, &peer, sizeof(peer)) != 0)
		return 13;
	if (rdx_rpc_session_connect(s, &peer) != 0)
		return 14;
	/* serve until the parent writes its end token */
	for (;;) {
		struct timeval tv = { 0, 0 };
		fd_set fds;
		int k;

		for (k = 0; k < 1000; k++)
			rdx_rpc_endpoint_poll(ep);
		FD_ZERO(&fds);
		FD_SET(rfd, &fds);
		if (select(rfd + 1, &fds, NULL, NULL, &tv) > 0)
			break;
	}
	if (rd_all(rfd, &tok, 1) != 0 || tok != 'x')
		return 15;
	if (wr_all(wfd, &srv.handled, sizeof(srv.handled)) != 0)
		return 16;
	rdx_rpc_endpoint_destroy(ep);
	rdx_dev_close(d);
	return srv.bad_req == 0 ? 0 : 17;
}

#endif /* RPC_UT_CHILD_H */
