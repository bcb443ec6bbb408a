/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the mlx5 hardware control path's memory
 * (drivers/mlx5/mlx5_hw_mem.c) that need no NIC: argument checks that must
 * fail before any registration, copy bounds, freeing owned memory. The
 * scaffolding is mlx5_hw_ut.h.
 */
#include "mlx5_hw_ut.h"

static void
test_mem(void)
{
	struct rdx_mem *m;
	uint8_t out[16], in[16];
	void *buf = NULL;
	unsigned int k;

	fake_dev_init();
	/* bad arguments fail before any registration */
	rte_errno = 0;
	CU_ASSERT(rdx_mlx5_hw_mem_alloc(&fake_dev.base, 0, RDX_MEM_HOST, RDX_ACCESS_ALL) == NULL);
	CU_ASSERT(rte_errno == EINVAL);
	rte_errno = 0;
	CU_ASSERT(rdx_mlx5_hw_mem_alloc(&fake_dev.base, 64, RDX_MEM_HOST, 0x100) == NULL);
	CU_ASSERT(rte_errno == EINVAL);
	/* no device memory on this device */
	rte_errno = 0;
	CU_ASSERT(rdx_mlx5_hw_mem_alloc(&fake_dev.base, 64, RDX_MEM_DM, RDX_ACCESS_ALL) == NULL);
	CU_ASSERT(rte_errno == ENOTSUP);
	rte_errno = 0;
	CU_ASSERT(rdx_mlx5_hw_mem_reg(&fake_dev.base, NULL, 64, RDX_ACCESS_ALL) == NULL);
	CU_ASSERT(rte_errno == EINVAL);

	/* copies on a host region (no MR needed for the bounds logic) */
	CU_ASSERT_FATAL(posix_memalign(&buf, 64, 64) == 0);
	m = hw_mem_new(&fake_dev.base, 64, RDX_ACCESS_ALL, RDX_MEM_HOST);
	CU_ASSERT_FATAL(m != NULL);
	m->addr = buf;
	m->owned = true;
	for (k = 0; k < sizeof(in); k++)
		in[k] = (uint8_t)(k * 3);
	CU_ASSERT(rdx_mlx5_hw_mem_copy_to(m, 48, in, 16) == 0);
	CU_ASSERT(rdx_mlx5_hw_mem_copy_from(m, 48, out, 16) == 0);
	CU_ASSERT(memcmp(in, out, 16) == 0);
	CU_ASSERT(rdx_mlx5_hw_mem_copy_to(m, 49, in, 16) == -ERANGE);
	CU_ASSERT(rdx_mlx5_hw_mem_copy_from(m, 65, out, 0) == -ERANGE);
	CU_ASSERT(rdx_mlx5_hw_mem_copy_from(m, 64, out, 0) == 0);
	CU_ASSERT(rdx_mlx5_hw_mem_copy_to(m, SIZE_MAX, in, 2) == -ERANGE);
	/* owned host memory is freed with the region */
	CU_ASSERT(rdx_mlx5_hw_mem_free(m) == 0);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "memory: checks, copies, free", test_mem },
		{ NULL, NULL },
	};

	return rdx_ut_run("mlx5_hw_mem", cases, NULL, NULL);
}
