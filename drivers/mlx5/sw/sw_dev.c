/* SPDX-License-Identifier: BSD-3-Clause */
/* Placeholder: the software mlx5 device is being written. */
#include <errno.h>
#include <rte_errno.h>
#include "rdx_dev_driver.h"

struct rdx_dev *
rdx_sw_dev_open(const struct rdx_dev_conf *conf)
{
	(void)conf;
	rte_errno = ENOTSUP;
	return NULL;
}
