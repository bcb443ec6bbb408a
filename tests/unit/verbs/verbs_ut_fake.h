/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The verbs unit tests' fake objects: NQP QPs whose numbers collide in the
 * CQ's QP table on purpose, each with a 16-slot SQ and RQ, and empty CQs.
 * Included after the driver source the test includes (verbs_dp_ut.c,
 * verbs_dev_ut.c).
 */
#ifndef VERBS_UT_FAKE_H
#define VERBS_UT_FAKE_H

#include <stdlib.h>
#include <string.h>

#include "rdx_ut.h"

#define NQP 40

static struct verbs_qp qps[NQP];
static uint64_t sq_ids[NQP][16];
static uint8_t sq_ops[NQP][16];
static uint64_t rq_ids[NQP][16];

static inline struct verbs_cq *
new_cq(void)
{
	struct verbs_cq *cq = calloc(1, sizeof(*cq));

	CU_ASSERT_PTR_NOT_NULL_FATAL(cq);
	cq->tab_mask = 15;
	cq->tab = calloc(16, sizeof(*cq->tab));
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq->tab);
	return cq;
}

static inline void
free_cq(struct verbs_cq *cq)
{
	free(cq->tab);
	free(cq);
}

static inline void
init_qps(void)
{
	int i;

	memset(qps, 0, sizeof(qps));
	for (i = 0; i < NQP; i++) {
		/* Collide on purpose: many QPNs share low bits. */
		qps[i].base.qp_num = 0x100u * (uint32_t)i + (i % 3 == 0 ? 7u : (uint32_t)i);
		qps[i].base.user_ctx = &qps[i];
		rdx_verbs_sq_init(&qps[i].sq, sq_ids[i], sq_ops[i], 16, 16, 1, 0, 1, false);
		rdx_verbs_rq_init(&qps[i].rq, rq_ids[i], 16, 16, 1);
	}
}

#endif /* VERBS_UT_FAKE_H */
