/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The counters of the mlx5 hardware driver (hw_xstats_get in
 * drivers/mlx5/mlx5_hw.c) without a NIC: the test includes the .c files,
 * builds a device with QPs and CQs in plain memory, sets their datapath
 * counters and checks the sums, the names, short buffers, and that the
 * counters of destroyed objects stay in the sums. The driver op is called
 * directly (lib/dev's argument checks are tested in rdx_dev_xstats_ut); the
 * lib/dev functions the driver uses are stubbed.
 */
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

void
rdx_driver_register(struct rdx_driver *drv)
{
	(void)drv;
}

static struct mlx5_hw_dev hd;
static struct mlx5_hw_qp qps[3];
static struct mlx5_hw_cq cqs[2];

static void
dev_init(void)
{
	unsigned int i;

	memset(&hd, 0, sizeof(hd));
	memset(qps, 0, sizeof(qps));
	memset(cqs, 0, sizeof(cqs));
	hd.base.ops = &mlx5_hw_ops;
	rdx_mlx5_objs_init(&hd.objs);
	for (i = 0; i < RTE_DIM(qps); i++) {
		qps[i].mqp.stats.db_plain = 10 * (i + 1);
		qps[i].mqp.stats.bf_posts = i;
		qps[i].mqp.stats.wqes = 100 * (i + 1);
		qps[i].mqp.stats.recvs = i;
		rdx_mlx5_objs_qp_add(&hd.objs, &qps[i].mqp);
	}
	for (i = 0; i < RTE_DIM(cqs); i++) {
		cqs[i].mcq.stats.cqes = 1000 * (i + 1);
		cqs[i].mcq.stats.errors = i;
		rdx_mlx5_objs_cq_add(&hd.objs, &cqs[i].mcq);
	}
}

static uint64_t
val(const struct rdx_dev_xstat *xs, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(xs[i].name, name) == 0)
			return xs[i].value;
	return UINT64_MAX;
}

static void
test_sums(void)
{
	struct rdx_dev_xstat xs[64];
	int n, i, j;

	dev_init();
	n = hw_xstats_get(&hd.base, NULL, 0);
	CU_ASSERT_EQUAL(n, RDX_MLX5_XSTATS_QP + RDX_MLX5_XSTATS_CQ + 2);
	CU_ASSERT_EQUAL(hw_xstats_get(&hd.base, xs, RTE_DIM(xs)), n);
	for (i = 0; i < n; i++) {
		CU_ASSERT(xs[i].name[0] != '\0');
		for (j = 0; j < i; j++)
			CU_ASSERT(strcmp(xs[i].name, xs[j].name) != 0);
	}
	/* every ring: the 8-byte doorbells and the BlueFlame copies */
	CU_ASSERT_EQUAL(val(xs, n, "dp_qp_doorbells"), 10 + 20 + 30 + 0 + 1 + 2);
	CU_ASSERT_EQUAL(val(xs, n, "dp_qp_bf_posts"), 0 + 1 + 2);
	CU_ASSERT_EQUAL(val(xs, n, "dp_qp_wqes"), 100 + 200 + 300);
	CU_ASSERT_EQUAL(val(xs, n, "dp_qp_recvs"), 0 + 1 + 2);
	CU_ASSERT_EQUAL(val(xs, n, "dp_qp_sq_full"), 0);
	CU_ASSERT_EQUAL(val(xs, n, "dp_cq_cqes"), 1000 + 2000);
	CU_ASSERT_EQUAL(val(xs, n, "dp_cq_errors"), 1);
	CU_ASSERT_EQUAL(val(xs, n, "qps_open"), 3);
	CU_ASSERT_EQUAL(val(xs, n, "cqs_open"), 2);
	/* the datapath moves on: the next read sees it */
	qps[1].mqp.stats.wqes += 5;
	CU_ASSERT_EQUAL(hw_xstats_get(&hd.base, xs, RTE_DIM(xs)), n);
	CU_ASSERT_EQUAL(val(xs, n, "dp_qp_wqes"), 605);
}

static void
test_short_buffer(void)
{
	struct rdx_dev_xstat xs[3];
	int n;

	dev_init();
	memset(xs, 0, sizeof(xs));
	n = hw_xstats_get(&hd.base, xs, 2);
	CU_ASSERT(n > 2);
	CU_ASSERT_STRING_EQUAL(xs[0].name, "dp_qp_doorbells");
	CU_ASSERT_EQUAL(xs[0].value, 63); /* dp_qp_doorbells: 60 plain + 3 BlueFlame */
	CU_ASSERT(xs[1].name[0] != '\0');
	CU_ASSERT(xs[2].name[0] == '\0' && xs[2].value == 0);
}

/* What rdx_mlx5_hw_qp_destroy / rdx_mlx5_hw_cq_destroy do after the verbs objects are gone. */
static void
test_destroyed_keep_counting(void)
{
	struct rdx_dev_xstat xs[64];
	int n;

	dev_init();
	rdx_mlx5_objs_qp_del(&hd.objs, &qps[2].mqp);
	rdx_mlx5_objs_cq_del(&hd.objs, &cqs[0].mcq);
	memset(&qps[2], 0xff, sizeof(qps[2]));  /* freed: must not be read */
	n = hw_xstats_get(&hd.base, xs, RTE_DIM(xs));
	CU_ASSERT_EQUAL(val(xs, n, "dp_qp_wqes"), 600);
	CU_ASSERT_EQUAL(val(xs, n, "dp_qp_doorbells"), 63);
	CU_ASSERT_EQUAL(val(xs, n, "dp_cq_cqes"), 3000);
	CU_ASSERT_EQUAL(val(xs, n, "qps_open"), 2);
	CU_ASSERT_EQUAL(val(xs, n, "cqs_open"), 1);
}

int
main(int argc, char **argv)
{
	static const struct rdx_ut_case cases[] = {
		{ "sums", test_sums },
		{ "short_buffer", test_short_buffer },
		{ "destroyed_keep_counting", test_destroyed_keep_counting },
		{ NULL, NULL },
	};
	(void)argc;
	(void)argv;
	return rdx_ut_run("mlx5_hw_xstats", cases, NULL, NULL);
}
