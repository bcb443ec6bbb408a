/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal: how lib/dev reaches the drivers. Not installed.
 * Each driver provides one open function; lib/dev chooses which.
 */
#ifndef RDX_DEV_DRIVER_H
#define RDX_DEV_DRIVER_H

#include "rdx_dev.h"

struct ibv_device;

/* The mlx5 direct datapath on real hardware (drivers/mlx5/mlx5_hw.c). */
struct rdx_dev *rdx_mlx5_dev_open(struct ibv_device *ibdev, const struct rdx_dev_conf *conf);
/* The software mlx5 device (drivers/mlx5/sw_*.c). */
struct rdx_dev *rdx_sw_dev_open(const struct rdx_dev_conf *conf);
/* Generic ibverbs for any provider (drivers/verbs/). */
struct rdx_dev *rdx_verbs_dev_open(struct ibv_device *ibdev, const struct rdx_dev_conf *conf);

#endif
