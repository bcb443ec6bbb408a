/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The verbs tests link lib/dev and drivers/verbs only (so they build while
 * the other drivers are being changed): the other drivers' open functions
 * are absent here and say so.
 */
#include <errno.h>
#include <stdio.h>

#include <rte_errno.h>

#include "rdx_dev_driver.h"

struct rdx_dev *
rdx_mlx5_dev_open(struct ibv_device *ibdev, const struct rdx_dev_conf *conf)
{
	(void)ibdev;
	(void)conf;
	fprintf(stderr, "rdx: the mlx5 driver is not linked into this test\n");
	rte_errno = ENOTSUP;
	return NULL;
}

struct rdx_dev *
rdx_sw_dev_open(const struct rdx_dev_conf *conf)
{
	(void)conf;
	fprintf(stderr, "rdx: the software device is not linked into this test\n");
	rte_errno = ENOTSUP;
	return NULL;
}
