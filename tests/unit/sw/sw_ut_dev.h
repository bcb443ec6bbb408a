/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The suite set-up shared by the tests that run on one software device
 * opened for the whole suite (sw_dev_ut.c, sw_dev_qp_ut.c, sw_ud_ut.c,
 * ../mlx5/mlx5_sw_bf_ut.c): open "sw" in suite_init (the default
 * configuration, or devargs), close it in suite_fini. Each test keeps its own suite_init
 * and suite_fini around these (lcore set-up, counters printed or checked
 * before the close). And the connected QP pair both sw_dev_ut.c and
 * sw_dev_qp_ut.c build their tests on.
 */
#ifndef SW_UT_DEV_H
#define SW_UT_DEV_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <CUnit/CUnit.h>
#include <rte_errno.h>

#include "rdx_dev.h"

/* Opens the "sw" device into *d, with devargs (NULL: the defaults): 0, or
 * -1 with one line on stderr (the suite does not run). */
static inline int
sw_ut_dev_open_args(struct rdx_dev **d, const char *devargs)
{
	struct rdx_dev_conf dc = { .devargs = devargs };

	*d = rdx_dev_open("sw", devargs != NULL ? &dc : NULL);
	if (*d == NULL) {
		fprintf(stderr, "cannot open the sw device: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

/* Opens the "sw" device with the default configuration into *d. */
static inline int
sw_ut_dev_open(struct rdx_dev **d)
{
	return sw_ut_dev_open_args(d, NULL);
}

/* Closes d when sw_ut_dev_open opened it: rdx_dev_close's result, or 0. */
static inline int
sw_ut_dev_close(struct rdx_dev *d)
{
	return d != NULL ? rdx_dev_close(d) : 0;
}

/* Two QPs of template tmpl on d, each with its own CQ (cq_depth entries,
 * completion events as asked) for sends and receives, connected to each
 * other with ca (NULL: the defaults). */
static inline void
sw_ut_qp_pair(struct rdx_dev *d, struct rdx_cq *cq[2], struct rdx_qp *qp[2],
	      const struct rdx_qp_conf *tmpl, const struct rdx_qp_conn_attr *ca,
	      uint32_t cq_depth, bool events)
{
	struct rdx_cq_conf cc = { .depth = cq_depth, .events = events };
	struct rdx_qp_info info[2];
	int i;

	for (i = 0; i < 2; i++) {
		struct rdx_qp_conf qc = *tmpl;

		cq[i] = rdx_cq_create(d, &cc);
		CU_ASSERT_FATAL(cq[i] != NULL);
		qc.send_cq = cq[i];
		qc.recv_cq = cq[i];
		qp[i] = rdx_qp_create(d, &qc);
		CU_ASSERT_FATAL(qp[i] != NULL);
		CU_ASSERT_FATAL(rdx_qp_info_get(qp[i], &info[i]) == 0);
	}
	CU_ASSERT_FATAL(rdx_qp_connect(qp[0], &info[1], ca) == 0);
	CU_ASSERT_FATAL(rdx_qp_connect(qp[1], &info[0], ca) == 0);
}

#endif /* SW_UT_DEV_H */
