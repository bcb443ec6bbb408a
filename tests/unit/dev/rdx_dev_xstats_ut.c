/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the device counters (rdx_dev_xstats_get) and the registry
 * of open devices (rdx_dev_foreach, rdx_dev_count), on the software device
 * through the real mlx5 datapath: names, counting vs filling, counters that
 * must grow after WRITE and SEND work requests, short buffers, bad
 * arguments, and counters of destroyed QPs kept in the sums.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "rdx_dev_ut_fixture.h"
#include "rdx_telemetry.h"

#define MAX_XS 256

static int
xs_read(struct rdx_dev *d, struct rdx_dev_xstat *xs)
{
	int n = rdx_dev_xstats_get(d, xs, MAX_XS);

	CU_ASSERT(n > 0 && n <= MAX_XS);
	return n;
}

static void
test_names(void)
{
	struct rdx_dev *d = rdx_dev_open("sw", NULL);
	struct rdx_dev_xstat *xs = calloc(MAX_XS, sizeof(*xs));
	int n, i, j;

	CU_ASSERT_FATAL(d != NULL && xs != NULL);
	n = rdx_dev_xstats_get(d, NULL, 0);
	CU_ASSERT(n > 0);
	/* counting (xs NULL, or n 0) and filling agree */
	CU_ASSERT_EQUAL(rdx_dev_xstats_get(d, xs, 0), n);
	CU_ASSERT_EQUAL(rdx_dev_xstats_get(d, xs, MAX_XS), n);
	for (i = 0; i < n; i++) {
		size_t len = strnlen(xs[i].name, sizeof(xs[i].name));

		CU_ASSERT(len > 0 && len < sizeof(xs[i].name));
		for (j = 0; j < (int)len; j++)
			CU_ASSERT((xs[i].name[j] >= 'a' && xs[i].name[j] <= 'z') ||
				  (xs[i].name[j] >= '0' && xs[i].name[j] <= '9') ||
				  xs[i].name[j] == '_');
		for (j = 0; j < i; j++)
			CU_ASSERT(strcmp(xs[i].name, xs[j].name) != 0);
	}
	/* the counters the brief names are there */
	CU_ASSERT(xs_val(xs, n, "sw_doorbells") != UINT64_MAX);
	CU_ASSERT(xs_val(xs, n, "sw_wqes") != UINT64_MAX);
	CU_ASSERT(xs_val(xs, n, "sw_cqes") != UINT64_MAX);
	CU_ASSERT(xs_val(xs, n, "dp_qp_wqes") != UINT64_MAX);
	CU_ASSERT(xs_val(xs, n, "dp_cq_cqes") != UINT64_MAX);
	/* a fresh device has done nothing */
	CU_ASSERT_EQUAL(xs_val(xs, n, "sw_wqes"), 0);
	CU_ASSERT_EQUAL(xs_val(xs, n, "qps_open"), 0);
	free(xs);
	CU_ASSERT(rdx_dev_close(d) == 0);
}

static void
test_short_buffer_and_bad_args(void)
{
	struct rdx_dev *d = rdx_dev_open("sw", NULL);
	struct rdx_dev_xstat full[MAX_XS], part[4];
	int n, i;

	CU_ASSERT_FATAL(d != NULL);
	n = rdx_dev_xstats_get(d, full, MAX_XS);
	CU_ASSERT_FATAL(n > 4);
	memset(part, 0xab, sizeof(part));
	/* n smaller than the count: returns the count, fills only n */
	CU_ASSERT_EQUAL(rdx_dev_xstats_get(d, part, 3), n);
	for (i = 0; i < 3; i++)
		CU_ASSERT_STRING_EQUAL(part[i].name, full[i].name);
	CU_ASSERT_EQUAL((unsigned char)part[3].name[0], 0xab);
	CU_ASSERT_EQUAL(part[3].value, 0xababababababababULL);
	CU_ASSERT_EQUAL(rdx_dev_xstats_get(NULL, full, MAX_XS), -EINVAL);
	CU_ASSERT_EQUAL(rdx_dev_xstats_get(NULL, NULL, 0), -EINVAL);
	CU_ASSERT_EQUAL(rdx_dev_xstats_get(d, NULL, 5), -EINVAL);
	CU_ASSERT(rdx_dev_close(d) == 0);
}

static void
test_counters_grow(void)
{
	struct rdx_dev *d = rdx_dev_open("sw", NULL);
	struct rdx_dev_xstat a[MAX_XS], b[MAX_XS], c[MAX_XS];
	static const char *const grow[] = {
		"sw_doorbells", "sw_wqes", "sw_cqes", "sw_recv_wqes", "dp_qp_doorbells",
		"dp_qp_wqes", "dp_qp_recv_doorbells", "dp_qp_recvs", "dp_cq_polls",
		"dp_cq_cqes",
	};
	struct rdx_wc wc[16];
	struct ut_pair p;
	unsigned int i;
	int na, nb, nc;

	CU_ASSERT_FATAL(d != NULL);
	ut_pair_make(&p, d, 1, UT_PAIR_CONNECT | UT_PAIR_MEM);
	na = xs_read(d, a);
	CU_ASSERT_EQUAL(xs_val(a, na, "qps_open"), 2);
	CU_ASSERT_EQUAL(xs_val(a, na, "cqs_open"), 2);
	/* 4 WRITEs in one burst, then a receive and a SEND */
	{
		struct rdx_wr w[4];
		struct rdx_recv_wr rw = { .wr_id = 9, .sge = &p.sge[1], .num_sge = 1 };
		struct rdx_wr s;

		for (i = 0; i < 4; i++)
			w[i] = (struct rdx_wr){ .wr_id = i, .sge = &p.sge[0], .num_sge = 1,
						.remote_addr = p.m[1]->iova, .rkey = p.m[1]->rkey,
						.opcode = RDX_OP_WRITE, .flags = RDX_WR_SIGNALED };
		CU_ASSERT_EQUAL(rdx_qp_post_burst(p.qp[0], w, 4), 4);
		CU_ASSERT_EQUAL(poll_n(p.cq[0], wc, 4), 4);
		CU_ASSERT_EQUAL(rdx_qp_post_recv_burst(p.qp[1], &rw, 1), 1);
		s = (struct rdx_wr){ .wr_id = 5, .sge = &p.sge[0], .num_sge = 1,
				     .opcode = RDX_OP_SEND, .flags = RDX_WR_SIGNALED };
		CU_ASSERT_EQUAL(rdx_qp_post_burst(p.qp[0], &s, 1), 1);
		CU_ASSERT_EQUAL(poll_n(p.cq[0], wc, 1), 1);
		CU_ASSERT_EQUAL(wc[0].status, 0);
		CU_ASSERT_EQUAL(poll_n(p.cq[1], wc, 1), 1);
		CU_ASSERT_EQUAL(wc[0].opcode, RDX_WC_RECV);
	}
	nb = xs_read(d, b);
	CU_ASSERT_EQUAL(na, nb);
	for (i = 0; i < RTE_DIM(grow); i++) {
		uint64_t va = xs_val(a, na, grow[i]), vb = xs_val(b, nb, grow[i]);

		CU_ASSERT(va != UINT64_MAX && vb != UINT64_MAX);
		if (!(vb > va))
			printf("  %s did not grow: %" PRIu64 " -> %" PRIu64 "\n", grow[i], va, vb);
		CU_ASSERT(vb > va);
	}
	/* exact where the datapath is exact: 5 WQEs posted, 2 doorbells */
	CU_ASSERT_EQUAL(xs_val(b, nb, "dp_qp_wqes") - xs_val(a, na, "dp_qp_wqes"), 5);
	CU_ASSERT_EQUAL(xs_val(b, nb, "dp_qp_doorbells") - xs_val(a, na, "dp_qp_doorbells"), 2);
	CU_ASSERT_EQUAL(xs_val(b, nb, "sw_wqes") - xs_val(a, na, "sw_wqes"), 5);
	CU_ASSERT_EQUAL(xs_val(b, nb, "sw_errors"), 0);
	/* destroyed QPs and CQs keep counting in the sums */
	for (i = 0; i < 2; i++) {
		rdx_dev_mem_free(p.m[i]);
		p.m[i] = NULL;
	}
	ut_pair_free(&p);
	nc = xs_read(d, c);
	CU_ASSERT_EQUAL(xs_val(c, nc, "qps_open"), 0);
	CU_ASSERT_EQUAL(xs_val(c, nc, "cqs_open"), 0);
	CU_ASSERT_EQUAL(xs_val(c, nc, "dp_qp_wqes"), xs_val(b, nb, "dp_qp_wqes"));
	CU_ASSERT(xs_val(c, nc, "dp_cq_cqes") >= xs_val(b, nb, "dp_cq_cqes"));
	CU_ASSERT(rdx_dev_close(d) == 0);
}

struct seen {
	struct rdx_dev *devs[8];
	unsigned int n;
};

static int
collect(struct rdx_dev *d, void *arg)
{
	struct seen *s = arg;

	if (s->n < RTE_DIM(s->devs))
		s->devs[s->n++] = d;
	return 0;
}

static int
stop_at_first(struct rdx_dev *d, void *arg)
{
	(void)d;
	(*(int *)arg)++;
	return 7;
}

static void
test_registry(void)
{
	struct rdx_dev *d0, *d1;
	struct seen s = { .n = 0 };
	char name[80];
	int calls = 0;

	CU_ASSERT_EQUAL(rdx_dev_count(), 0);
	CU_ASSERT_EQUAL(rdx_dev_foreach(NULL, NULL), -EINVAL);
	d0 = rdx_dev_open("sw", NULL);
	d1 = rdx_dev_open("sw", NULL);
	CU_ASSERT_FATAL(d0 != NULL && d1 != NULL && d0 != d1);
	CU_ASSERT_EQUAL(rdx_dev_count(), 2);
	CU_ASSERT_EQUAL(rdx_dev_foreach(collect, &s), 0);
	CU_ASSERT_EQUAL(s.n, 2);
	CU_ASSERT(s.devs[0] == d0 && s.devs[1] == d1);
	/* fn's first non-zero return ends the walk */
	CU_ASSERT_EQUAL(rdx_dev_foreach(stop_at_first, &calls), 7);
	CU_ASSERT_EQUAL(calls, 1);
	/* telemetry names: the second "sw" is "sw#1" */
	CU_ASSERT(rdx_telemetry_dev_name(d0, name, sizeof(name)) == 0);
	CU_ASSERT_STRING_EQUAL(name, "sw");
	CU_ASSERT(rdx_telemetry_dev_name(d1, name, sizeof(name)) == 0);
	CU_ASSERT_STRING_EQUAL(name, "sw#1");
	CU_ASSERT(rdx_dev_close(d0) == 0);
	s.n = 0;
	CU_ASSERT_EQUAL(rdx_dev_foreach(collect, &s), 0);
	CU_ASSERT_EQUAL(s.n, 1);
	CU_ASSERT(s.devs[0] == d1);
	CU_ASSERT_EQUAL(rdx_dev_count(), 1);
	/* the survivor is now the first "sw"; a closed device has no name */
	CU_ASSERT(rdx_telemetry_dev_name(d1, name, sizeof(name)) == 0);
	CU_ASSERT_STRING_EQUAL(name, "sw");
	CU_ASSERT(rdx_telemetry_dev_name(d0, name, sizeof(name)) == -ENOENT);
	CU_ASSERT(rdx_dev_close(d1) == 0);
	CU_ASSERT_EQUAL(rdx_dev_count(), 0);
	s.n = 0;
	CU_ASSERT_EQUAL(rdx_dev_foreach(collect, &s), 0);
	CU_ASSERT_EQUAL(s.n, 0);
}

int
main(int argc, char **argv)
{
	static const struct rdx_ut_case cases[] = {
		{ "registry", test_registry },
		{ "names", test_names },
		{ "short_buffer_and_bad_args", test_short_buffer_and_bad_args },
		{ "counters_grow", test_counters_grow },
		{ NULL, NULL },
	};
	(void)argc;
	(void)argv;
	return rdx_ut_run("rdx_dev_xstats", cases, NULL, NULL);
}
