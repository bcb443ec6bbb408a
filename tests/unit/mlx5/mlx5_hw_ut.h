/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the unit tests of the mlx5 hardware control path share
 * (mlx5_hw_ut.c, mlx5_hw_mem_ut.c, mlx5_hw_qp_ut.c, one per source file
 * of drivers/mlx5/mlx5_hw*.c), no NIC needed: each test includes the .c
 * files (through this header) so the static functions are reachable; the
 * lib/dev functions the driver uses are stubbed here, and fake_dev is a
 * device with plausible attributes that never reaches verbs.
 */
#ifndef MLX5_HW_UT_H
#define MLX5_HW_UT_H

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdx_ut.h"
#include "../../../drivers/mlx5/mlx5_obj.c"
#include "../../../drivers/mlx5/mlx5_qp.c"
#include "../../../drivers/mlx5/mlx5_rq.c"
#include "../../../drivers/mlx5/mlx5_cq.c"
#include "../../../drivers/mlx5/mlx5_qp_xstats.c"
#include "../../../lib/dev/rdx_dev_qp.c"
#include "../../../drivers/mlx5/mlx5_hw.c"
#include "../../../drivers/mlx5/mlx5_hw_mem.c"
#include "../../../drivers/mlx5/mlx5_hw_qp.c"

const char *
rdx_mem_type_name(enum rdx_mem_type type)
{
	return type == RDX_MEM_HOST ? "host" : type == RDX_MEM_HUGE ? "huge" : "dm";
}

/* lib/dev's registry, stubbed: what the driver's constructor registered. */
static struct rdx_driver *registered;

void
rdx_driver_register(struct rdx_driver *drv)
{
	registered = drv;
}

static struct mlx5_hw_dev fake_dev;

static inline void
fake_dev_init(void)
{
	memset(&fake_dev, 0, sizeof(fake_dev));
	fake_dev.base.ops = &mlx5_hw_ops;
	snprintf(fake_dev.base.attr.name, sizeof(fake_dev.base.attr.name), "mlx5_test");
	snprintf(fake_dev.base.attr.driver, sizeof(fake_dev.base.attr.driver), "mlx5");
	fake_dev.base.attr.max_qp_wr = 1024;
	fake_dev.base.attr.max_sge = 16;
	fake_dev.base.attr.max_inline = MLX5_HW_MAX_INLINE;
	fake_dev.dattr.orig_attr.max_cqe = 4096;
	fake_dev.port = 1;
	fake_dev.gid_index = 3;
	fake_dev.pattr.lid = 0x42;
	fake_dev.pattr.active_mtu = IBV_MTU_4096;
}

#endif /* MLX5_HW_UT_H */
