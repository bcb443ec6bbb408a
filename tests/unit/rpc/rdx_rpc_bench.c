/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Figures only (no assertion): echo calls through lib/rpc between two
 * endpoints on two software devices in one thread, closed loop with
 * -d calls in flight; prints every knob, the calls per second (software
 * device, one core for both ends: a ratio between transports, not a NIC
 * figure) and per-call packet, retransmission and duplicate counts. Under
 * callgrind, --toggle-collect=bench_run counts instructions per call.
 *
 *   rdx_rpc_bench [-t infrc|basic+infud|homa+infud] [-n calls] [-q req_bytes]
 *                 [-r resp_bytes] [-d depth] [-s slots] [-D devargs]
 *                 [-R rto_us] [-w window] [-S sessions] [-Q queue_depth]
 *
 * -S opens that many sessions between the two endpoints (one client end
 * and one server end each) and keeps -d calls in flight on each: -n is the
 * total over all of them. -Q sets the UD transports' queue_depth (their
 * one QP's send and receive queues; 0: the default).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpc_ut_harness.h"

static uint32_t
num(const char *opt, const char *s, uint32_t lo, uint32_t hi)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno != 0 || *end != '\0' || *s == '\0' || *s == '-' || v < lo || v > hi) {
		fprintf(stderr, "rdx_rpc_bench: %s wants %u..%u, got '%s'\n", opt, lo, hi, s);
		exit(2);
	}
	return (uint32_t)v;
}

static void
echo(struct rdx_rpc_req *req, void *arg)
{
	uint32_t n = *(const uint32_t *)arg;

	rdx_rpc_respond(req, n);
}

#define BENCH_MAX_SESS 64u

struct bcall {
	unsigned int *left;
	unsigned int *done;
};

static struct rdx_rpc_session *g_sess[BENCH_MAX_SESS];
static uint32_t g_nsess = 1;
static uint8_t *g_req, *g_resp;
static uint32_t g_req_len, g_resp_cap;

static void
bcont(struct rdx_rpc_session *s, int status, void *resp, uint32_t len, void *arg)
{
	struct bcall *c = arg;

	(void)resp;
	(void)len;
	if (status != 0)
		fprintf(stderr, "call failed: %d\n", status);
	(*c->done)++;
	if (*c->left > 0 && rdx_rpc_call(s, 1, g_req, g_req_len, g_resp, g_resp_cap, bcont, c) == 0)
		(*c->left)--;
}

/* The measured loop: keep depth calls in flight until n completed. */
__attribute__((noinline)) static unsigned int
bench_run(struct rdx_rpc_endpoint *a, struct rdx_rpc_endpoint *b, unsigned int n,
	  unsigned int depth)
{
	static struct bcall calls[BENCH_MAX_SESS * 64];
	unsigned int left = n, done = 0, i, k;

	for (i = 0; i < depth && left > 0; i++) {
		for (k = 0; k < g_nsess && left > 0; k++) {
			struct bcall *c = &calls[i * g_nsess + k];

			c->left = &left;
			c->done = &done;
			if (rdx_rpc_call(g_sess[k], 1, g_req, g_req_len, g_resp, g_resp_cap, bcont,
					 c) == 0)
				left--;
		}
	}
	while (done < n - left) {
		rdx_rpc_endpoint_poll(a);
		rdx_rpc_endpoint_poll(b);
	}
	return done;
}

int
main(int argc, char **argv)
{
	const char *transport = "basic+infud", *devargs = "sw";
	uint32_t n = 20000, q = 8, r = 8, depth = 1, slots = 8, rto = 1000, window = 32, qd = 0;
	struct rdx_rpc_conf conf = { 0 };
	struct rdx_rpc_stats sa, sb;
	struct ut_pair p;
	double t0, t1;
	unsigned int done;
	uint32_t j;
	int opt;

	while ((opt = getopt(argc, argv, "t:n:q:r:d:s:D:R:w:S:Q:")) != -1) {
		switch (opt) {
		case 't':
			transport = optarg;
			if (rdx_rpc_transport_parse(transport) < 0) {
				fprintf(stderr, "rdx_rpc_bench: -t wants infrc, basic+infud or homa+infud, got '%s'\n", optarg);
				return 2;
			}
			break;
		case 'n': n = num("-n", optarg, 1, 100000000); break;
		case 'q': q = num("-q", optarg, 0, RDX_RPC_DEFAULT_MAX_MSG); break;
		case 'r': r = num("-r", optarg, 0, RDX_RPC_DEFAULT_MAX_MSG); break;
		case 'd': depth = num("-d", optarg, 1, 64); break;
		case 's': slots = num("-s", optarg, 1, 64); break;
		case 'D': devargs = optarg; break;
		case 'R': rto = num("-R", optarg, 1, 10000000); break;
		case 'w': window = num("-w", optarg, 1, 64); break;
		case 'S': g_nsess = num("-S", optarg, 1, BENCH_MAX_SESS); break;
		case 'Q': qd = num("-Q", optarg, 0, 65536); break;
		default:
			fprintf(stderr, "usage: rdx_rpc_bench [-t transport] [-n calls] [-q req] [-r resp] [-d depth] [-s slots] [-D devargs] [-R rto_us] [-w window] [-S sessions] [-Q queue_depth]\n");
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "rdx_rpc_bench: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	conf.transport = transport;
	conf.slots = slots;
	if (depth > slots) {
		fprintf(stderr, "rdx_rpc_bench: -d %u wants -s %u or more (one slot per call in flight)\n",
			depth, depth);
		return 2;
	}
	conf.max_sessions = g_nsess;
	conf.rto_us = rto;
	conf.window = window;
	conf.queue_depth = qd;
	if (ut_pair_open(&p, devargs, devargs, &conf) != 0) {
		fprintf(stderr, "rdx_rpc_bench: cannot set up two endpoints on '%s'\n", devargs);
		return 2;
	}
	rdx_rpc_handler_register(p.b, 1, echo, &r);
	g_sess[0] = p.sa;
	for (j = 1; j < g_nsess; j++) {
		struct rdx_rpc_session *ca = rdx_rpc_session_create(p.a);
		struct rdx_rpc_session *cb = rdx_rpc_session_create(p.b);
		struct rdx_rpc_session_info ia, ib;

		if (ca == NULL || cb == NULL || rdx_rpc_session_info_get(ca, &ia) != 0 ||
		    rdx_rpc_session_info_get(cb, &ib) != 0 || rdx_rpc_session_connect(ca, &ib) != 0 ||
		    rdx_rpc_session_connect(cb, &ia) != 0) {
			fprintf(stderr, "rdx_rpc_bench: cannot open session %u of %u\n", j + 1, g_nsess);
			return 2;
		}
		g_sess[j] = ca;
	}
	g_req_len = q;
	g_resp_cap = r;
	g_req = calloc(1, q + 1);
	g_resp = calloc(1, r + 1);
	t0 = ut_now();
	done = bench_run(p.a, p.b, n, depth);
	t1 = ut_now();
	rdx_rpc_endpoint_stats_get(p.a, &sa);
	rdx_rpc_endpoint_stats_get(p.b, &sb);
	printf("rdx_rpc_bench (software device, both ends on one core): transport %s device %s "
	       "calls %u req %u resp %u depth %u slots %u rto_us %u window %u sessions %u\n",
	       transport, devargs, n, q, r, depth, slots, rto, window, g_nsess);
	printf("  completed %u ok %lu failed %lu in %.3f s: %.0f calls/s\n", done,
	       (unsigned long)sa.calls_ok, (unsigned long)sa.calls_err, t1 - t0,
	       (double)done / (t1 - t0));
	printf("  per call: pkts client->server %.3f server->client %.3f retransmits %.4f "
	       "dups dropped %.4f acks %.3f grants %.3f resends %.4f busy %.4f\n",
	       (double)sa.tx_pkts / done, (double)sb.tx_pkts / done,
	       (double)(sa.retransmits + sb.retransmits) / done,
	       (double)(sa.dup_dropped + sb.dup_dropped) / done,
	       (double)(sa.acks_sent + sb.acks_sent) / done,
	       (double)(sa.grants_sent + sb.grants_sent) / done,
	       (double)(sa.resends_sent + sb.resends_sent) / done,
	       (double)(sa.busy_sent + sb.busy_sent) / done);
	/* what the devices dropped (software device: sw_ud_drop_* counters) */
	{
		struct rdx_dev *devs[2] = { p.da, p.db };
		struct rdx_dev_xstat xs[128];
		int k, i, nx;

		for (k = 0; k < 2; k++) {
			nx = rdx_dev_xstats_get(devs[k], xs, RTE_DIM(xs));
			for (i = 0; i < nx && i < (int)RTE_DIM(xs); i++)
				if (strstr(xs[i].name, "drop") != NULL && xs[i].value != 0)
					printf("  device %s: %s %lu\n", k == 0 ? "a (client)" : "b (server)",
					       xs[i].name, (unsigned long)xs[i].value);
		}
	}
	rdx_rpc_endpoint_destroy(p.a);
	rdx_rpc_endpoint_destroy(p.b);
	rdx_dev_close(p.da);
	rdx_dev_close(p.db);
	free(g_req);
	free(g_resp);
	return sa.calls_err == 0 ? 0 : 1;
}
