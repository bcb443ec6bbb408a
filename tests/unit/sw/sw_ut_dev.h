/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The suite set-up shared by the tests that run on one software device
 * opened for the whole suite (sw_dev_ut.c, sw_dev_qp_ut.c, sw_ud_ut.c,
 * ../mlx5/mlx5_sw_bf_ut.c): open "sw" with the default configuration in
 * suite_init, close it in suite_fini. Each test keeps its own suite_init
 * and suite_fini around these (lcore set-up, counters printed or checked
 * before the close).
 */
#ifndef SW_UT_DEV_H
#define SW_UT_DEV_H

#include <stdio.h>

#include <rte_errno.h>

#include "rdx_dev.h"

/* Opens the "sw" device into *d: 0, or -1 with one line on stderr (the
 * suite does not run). */
static inline int
sw_ut_dev_open(struct rdx_dev **d)
{
	*d = rdx_dev_open("sw", NULL);
	if (*d == NULL) {
		fprintf(stderr, "cannot open the sw device: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

/* Closes d when sw_ut_dev_open opened it: rdx_dev_close's result, or 0. */
static inline int
sw_ut_dev_close(struct rdx_dev *d)
{
	return d != NULL ? rdx_dev_close(d) : 0;
}

#endif /* SW_UT_DEV_H */
