/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The verbs driver alone on soft-RoCE (a benchmark, not a test): one process
 * opens rxe0 and rxe1 through rdx_dev_open, connects a QP pair and measures
 *  - 8-byte inline WRITE, post + wait for its completion, one at a time;
 *  - 8-byte READ, likewise;
 *  - 4 KiB WRITEs with a window of 128 and a signal every 100 (ib_write_bw's
 *    defaults), one WR per post.
 * It separates the driver's cost from rdx-perf's. Run it in the guest:
 *   tests/softroce/guest-run.sh "BUILD/bench/verbs_bench [ITERS]"
 * Under TCG only ratios within one boot mean anything.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>

#include <rte_errno.h>

#include "rdx_dev.h"

#define WINDOW 128
#define SIG_EVERY 100
#define GUARD_S 120.0

struct side {
	struct rdx_dev *dev;
	struct rdx_cq *cq;
	struct rdx_mem *mem;
	struct rdx_qp *qp;
};

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int
side_open(struct side *s, const char *name, uint16_t sig_interval)
{
	struct rdx_cq_conf cc = {.depth = 512};
	struct rdx_qp_conf qc = {0};

	s->dev = rdx_dev_open(name, NULL);
	if (s->dev == NULL)
		return -1;
	s->cq = rdx_cq_create(s->dev, &cc);
	s->mem = rdx_dev_mem_alloc(s->dev, 1 << 20, RDX_MEM_HOST, RDX_ACCESS_ALL);
	if (s->cq == NULL || s->mem == NULL)
		return -1;
	qc.send_cq = s->cq;
	qc.recv_cq = s->cq;
	qc.sq_depth = 256;
	qc.rq_depth = 1;
	qc.max_send_sge = 1;
	qc.max_recv_sge = 1;
	qc.max_inline = 64;
	qc.sig_interval = sig_interval;
	s->qp = rdx_qp_create(s->dev, &qc);
	return s->qp == NULL ? -1 : 0;
}

/* One op at a time: post, spin for its completion. Returns us per op. */
static double
one_at_a_time(struct side *a, struct rdx_wr *wr, long n)
{
	struct rdx_wc wc;
	double t0 = now_s();
	long i;

	for (i = 0; i < n; i++) {
		if (rdx_qp_post_burst(a->qp, wr, 1) != 1)
			return -1;
		while (rdx_cq_poll_burst(a->cq, &wc, 1) == 0)
			if (now_s() - t0 > GUARD_S)
				return -1;
		if (wc.status != IBV_WC_SUCCESS) {
			fprintf(stderr, "verbs_bench: %s\n", rdx_wc_status_name(wc.status));
			return -1;
		}
	}
	return (now_s() - t0) / (double)n * 1e6;
}

/* Windowed stream; returns ops per second. */
static double
stream(struct side *a, struct rdx_wr *wr, long n)
{
	struct rdx_wc wc[16];
	long posted = 0, done = 0;
	double t0 = now_s();
	uint16_t got, i;

	while (done < n) {
		while (posted < n && posted - done < WINDOW && rdx_qp_post_burst(a->qp, wr, 1) == 1)
			posted++;
		got = rdx_cq_poll_burst(a->cq, wc, 16);
		for (i = 0; i < got; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				fprintf(stderr, "verbs_bench: %s\n", rdx_wc_status_name(wc[i].status));
				return -1;
			}
			done += wc[i].retired;
		}
		if (now_s() - t0 > GUARD_S)
			return -1;
	}
	return (double)n / (now_s() - t0);
}

int
main(int argc, char **argv)
{
	struct side a = {0}, b = {0}, c = {0}, d = {0};
	struct rdx_qp_info ia, ib;
	struct rdx_sge sge;
	struct rdx_wr wr;
	char *end = NULL;
	long n = 2000;
	double us, rate;

	if (argc > 2 || (argc == 2 && ((n = strtol(argv[1], &end, 10)) < 100 || *end != '\0'))) {
		fprintf(stderr, "usage: verbs_bench [ITERS >= 100]\n");
		return 2;
	}
	if (rdx_dev_list(NULL, 0) < 2) {
		printf("no RDMA device (rxe0 and rxe1 needed): run it in the soft-RoCE guest\n");
		return 77;
	}
	if (side_open(&a, "rxe0", 1) != 0 || side_open(&b, "rxe1", 1) != 0 ||
	    side_open(&c, "rxe0", SIG_EVERY) != 0 || side_open(&d, "rxe1", 1) != 0) {
		fprintf(stderr, "verbs_bench: set-up failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	rdx_qp_info_get(a.qp, &ia);
	rdx_qp_info_get(b.qp, &ib);
	if (rdx_qp_connect(a.qp, &ib, NULL) != 0 || rdx_qp_connect(b.qp, &ia, NULL) != 0)
		return 1;
	rdx_qp_info_get(c.qp, &ia);
	rdx_qp_info_get(d.qp, &ib);
	if (rdx_qp_connect(c.qp, &ib, NULL) != 0 || rdx_qp_connect(d.qp, &ia, NULL) != 0)
		return 1;

	sge.addr = a.mem->iova;
	sge.length = 8;
	sge.lkey = a.mem->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.sge = &sge;
	wr.num_sge = 1;
	wr.remote_addr = b.mem->iova;
	wr.rkey = b.mem->rkey;
	wr.opcode = RDX_OP_WRITE;
	wr.flags = RDX_WR_SIGNALED | RDX_WR_INLINE;
	us = one_at_a_time(&a, &wr, n);
	printf("verbs_bench: 8 B inline WRITE + completion, one at a time: %.1f us/op (%ld ops)\n", us, n);
	wr.opcode = RDX_OP_READ;
	wr.flags = RDX_WR_SIGNALED;
	us = one_at_a_time(&a, &wr, n);
	printf("verbs_bench: 8 B READ, one at a time: %.1f us/op (%ld ops)\n", us, n);

	sge.addr = c.mem->iova;
	sge.length = 4096;
	sge.lkey = c.mem->lkey;
	wr.remote_addr = d.mem->iova;
	wr.rkey = d.mem->rkey;
	wr.opcode = RDX_OP_WRITE;
	wr.flags = 0;
	rate = stream(&c, &wr, n);
	printf("verbs_bench: 4 KiB WRITE, window %d, signal every %d: %.4f Mops/s, %.2f MB/s (%ld ops)\n",
	       WINDOW, SIG_EVERY, rate / 1e6, rate * 4096 / 1e6, n);
	return us < 0 || rate < 0 ? 1 : 0;
}
