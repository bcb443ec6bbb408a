/* SPDX-License-Identifier: BSD-3-Clause */
/* Placeholder: the mlx5 hardware control path is being written. */
#include <errno.h>
#include <rte_errno.h>
#include "rdx_dev_driver.h"
#include "rdx_mlx5.h"

struct rdx_dev *
rdx_mlx5_dev_open(struct ibv_device *ibdev, const struct rdx_dev_conf *conf)
{
	(void)ibdev; (void)conf;
	rte_errno = ENOTSUP;
	return NULL;
}
