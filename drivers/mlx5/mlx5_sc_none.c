/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The self-check's hardware leg in a build without libmlx5 (no hardware
 * driver "mlx5" either): every call says it is not available, so
 * rdx-selfcheck still checks the software device and other drivers.
 */
#include <errno.h>
#include <stdio.h>

#include "mlx5_selfcheck.h"

int
rdx_mlx5_sc_ref_libmlx5(void *ctx, const struct rdx_wr *wr, uint8_t *wqe)
{
	(void)ctx;
	(void)wr;
	(void)wqe;
	return -ENOTSUP;
}

int
rdx_mlx5_sc_libmlx5_create(struct rdx_dev *dev, uint8_t type, uint32_t max_inline,
			   uint32_t max_send_sge, const struct rdx_ah *ah,
			   struct rdx_mlx5_sc_libmlx5 *l, char *err, size_t err_len)
{
	(void)dev;
	(void)type;
	(void)max_inline;
	(void)max_send_sge;
	(void)ah;
	(void)l;
	snprintf(err, err_len, "this build has no libmlx5 (Debian package ibverbs-providers)");
	return -ENOTSUP;
}

void
rdx_mlx5_sc_libmlx5_destroy(struct rdx_mlx5_sc_libmlx5 *l)
{
	(void)l;
}

int
rdx_mlx5_sc_card_get(struct rdx_dev *dev, struct rdx_mlx5_sc_card *card)
{
	(void)dev;
	(void)card;
	return -ENOTSUP;
}
