/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the software device's objects (drivers/mlx5/sw/sw_obj.c):
 * QP sizing as rdma-core's mlx5_calc_send_wqe.
 */
#include "../../../drivers/mlx5/sw/sw_obj.c"
#include "../../../drivers/mlx5/sw/sw_cq.c"
#include "../../../drivers/mlx5/sw/sw_mem.c"
#include "../../../drivers/mlx5/sw/sw_exec.c"
#include "../../../drivers/mlx5/sw/sw_exec_ud.c"
#include "../../../drivers/mlx5/sw/sw_engine.c"
#include "sw_engine_ut.h"

static void
test_calc_send_wqe(void)
{
	uint32_t w, inl;

	CU_ASSERT(sw_calc_send_wqe(4, 0, &w, &inl) == 0);
	CU_ASSERT_EQUAL(w, 256);
	CU_ASSERT_EQUAL(inl, 60);
	CU_ASSERT(sw_calc_send_wqe(4, 64, &w, &inl) == 0);
	CU_ASSERT_EQUAL(w, 320);
	CU_ASSERT_EQUAL(inl, 124);
	CU_ASSERT(sw_calc_send_wqe(16, 0, &w, &inl) == 0);
	CU_ASSERT_EQUAL(w, 448);
	CU_ASSERT_EQUAL(inl, 252);
	CU_ASSERT(sw_calc_send_wqe(1, 316, &w, &inl) == 0);
	CU_ASSERT_EQUAL(w, 512);
	CU_ASSERT(sw_calc_send_wqe(1, 317, &w, &inl) == -EINVAL);
	CU_ASSERT(sw_calc_send_wqe(0, 0, &w, &inl) == 0);
	CU_ASSERT_EQUAL(w, 256);
	CU_ASSERT_EQUAL(inl, 60);
	CU_ASSERT(sw_calc_send_wqe(17, 0, &w, &inl) == -EINVAL);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "calc_send_wqe", test_calc_send_wqe },
		{ NULL, NULL },
	};

	return rdx_ut_run("sw_obj", cases, suite_init, suite_fini);
}
