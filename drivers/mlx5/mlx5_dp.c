/* SPDX-License-Identifier: BSD-3-Clause */
/* Placeholder: the mlx5 datapath is being written. */
#include "rdx_mlx5.h"
