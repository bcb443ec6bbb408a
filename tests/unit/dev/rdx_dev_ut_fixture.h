/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The set-up shared by the lib/dev counter tests (rdx_dev_qp_ut.c,
 * rdx_dev_xstats_ut.c): a pair of RC QPs on the software device, each on a
 * CQ of its own, optionally with a small buffer each and connected to each
 * other; and the lookup of one counter by name. Each test keeps its own
 * cases; only the fixture lives here (static inline: not every test uses
 * all of it).
 */
#ifndef RDX_DEV_UT_FIXTURE_H
#define RDX_DEV_UT_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "rdx_ut.h"
#include "rdx_dev.h"
#include "../sw/sw_ut_poll.h"

/* ut_pair_make's flags */
#define UT_PAIR_CONNECT 1u      /* connect qp[0] and qp[1] to each other */
#define UT_PAIR_MEM 2u          /* 4 KiB each, sge[i]: its first 64 bytes */

struct ut_pair {
	struct rdx_dev *d;
	bool own_dev;           /* d opened by ut_pair_make: ut_pair_free closes it */
	struct rdx_cq *cq[2];
	struct rdx_qp *qp[2];
	struct rdx_mem *m[2];   /* NULL without UT_PAIR_MEM */
	struct rdx_sge sge[2];
};

/*
 * Two RC QPs on d (a software device of the pair's own when d is NULL):
 * QP i on CQ i of 256 CQEs, 64 WRs each way, one SGE, 64 inline bytes and a
 * CQE at least every sig WRs. Set-up failures are fatal to the test.
 */
static inline void
ut_pair_make(struct ut_pair *p, struct rdx_dev *d, uint16_t sig, unsigned int flags)
{
	struct rdx_cq_conf cc = { .depth = 256 };
	struct rdx_qp_info info[2];
	int i;

	memset(p, 0, sizeof(*p));
	if (d == NULL) {
		d = rdx_dev_open("sw", NULL);
		CU_ASSERT_FATAL(d != NULL);
		p->own_dev = true;
	}
	p->d = d;
	for (i = 0; i < 2; i++) {
		struct rdx_qp_conf qc = {
			.sq_depth = 64, .rq_depth = 64, .max_send_sge = 1, .max_recv_sge = 1,
			.max_inline = 64, .sig_interval = sig,
		};

		p->cq[i] = rdx_cq_create(d, &cc);
		CU_ASSERT_FATAL(p->cq[i] != NULL);
		qc.send_cq = qc.recv_cq = p->cq[i];
		p->qp[i] = rdx_qp_create(d, &qc);
		CU_ASSERT_FATAL(p->qp[i] != NULL);
		CU_ASSERT_FATAL(rdx_qp_info_get(p->qp[i], &info[i]) == 0);
		if ((flags & UT_PAIR_MEM) == 0)
			continue;
		p->m[i] = rdx_dev_mem_alloc(d, 4096, RDX_MEM_HOST, RDX_ACCESS_ALL);
		CU_ASSERT_FATAL(p->m[i] != NULL);
		p->sge[i] = (struct rdx_sge){ .addr = p->m[i]->iova, .length = 64,
					      .lkey = p->m[i]->lkey };
	}
	if ((flags & UT_PAIR_CONNECT) == 0)
		return;
	CU_ASSERT_FATAL(rdx_qp_connect(p->qp[0], &info[1], NULL) == 0);
	CU_ASSERT_FATAL(rdx_qp_connect(p->qp[1], &info[0], NULL) == 0);
}

/* Destroys what ut_pair_make made (a QP set to NULL was destroyed already;
 * so was a buffer set to NULL), each step asserted. */
static inline void
ut_pair_free(struct ut_pair *p)
{
	int i;

	for (i = 0; i < 2; i++) {
		CU_ASSERT(rdx_qp_destroy(p->qp[i]) == 0);
		CU_ASSERT(rdx_cq_destroy(p->cq[i]) == 0);
		if (p->m[i] != NULL)
			CU_ASSERT(rdx_dev_mem_free(p->m[i]) == 0);
	}
	if (p->own_dev)
		CU_ASSERT(rdx_dev_close(p->d) == 0);
}

/* Value of counter name in xs[0..n), or UINT64_MAX when absent. */
static inline uint64_t
xs_val(const struct rdx_dev_xstat *xs, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(xs[i].name, name) == 0)
			return xs[i].value;
	return UINT64_MAX;
}

#endif /* RDX_DEV_UT_FIXTURE_H */
