/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the mlx5 hardware control path's device file
 * (drivers/mlx5/mlx5_hw.c) that need no NIC: open refuses a missing device,
 * the driver's registration. mlx5_hw_mem_ut and mlx5_hw_qp_ut cover the
 * other files, mlx5_hw_dev_ut a real device; the scaffolding (the .c files
 * included, lib/dev stubs, fake_dev) is mlx5_hw_ut.h.
 */
#include "mlx5_hw_ut.h"

static void
test_open_null(void)
{
	rte_errno = 0;
	CU_ASSERT(hw_open(NULL, NULL, NULL) == NULL);
	CU_ASSERT(rte_errno == ENODEV);
}

/* Registered at start-up as "mlx5", for RDMA devices (a probe, no name). */
static void
test_registered(void)
{
	CU_ASSERT_FATAL(registered != NULL);
	CU_ASSERT_STRING_EQUAL(registered->name, "mlx5");
	CU_ASSERT(registered->probe == hw_probe);
	CU_ASSERT(registered->match_name == NULL);
	CU_ASSERT(registered->open == hw_open);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "open(NULL) fails with ENODEV", test_open_null },
		{ "registered as mlx5", test_registered },
		{ NULL, NULL },
	};

	return rdx_ut_run("mlx5_hw", cases, NULL, NULL);
}
