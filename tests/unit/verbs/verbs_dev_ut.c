/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of drivers/verbs/verbs_dev.c (the control path) that need no
 * device: the CQ's QP table (growth, removal inside a probe cluster; the
 * table is in verbs_dev.h), the driver's registration, and GID
 * classification (the QP configuration checks are lib/dev's: rdx_dev_ut).
 * The test includes the source to reach its static functions; verbs_dp.c and verbs_mem.c are built in (verbs_ops
 * refers to them). The fast path's tests: verbs_dp_ut.c.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "rdx_ut.h"
#include "../../../drivers/verbs/verbs_dev.c"

#include "verbs_ut_fake.h"

/* lib/dev's registry, stubbed: what the driver's constructor registered. */
static struct rdx_driver *registered;

void
rdx_driver_register(struct rdx_driver *drv)
{
	registered = drv;
}

static void
test_qp_table(void)
{
	struct verbs_cq *cq = new_cq();
	int i;

	init_qps();
	for (i = 0; i < NQP; i++)
		CU_ASSERT_EQUAL_FATAL(cq_attach(cq, &qps[i]), 0);
	CU_ASSERT_EQUAL(cq->nb_qps, NQP);
	CU_ASSERT_TRUE(cq->tab_mask + 1 >= 2 * NQP);
	for (i = 0; i < NQP; i++)
		CU_ASSERT_PTR_EQUAL(cq_find_qp(cq, qps[i].base.qp_num), &qps[i]);
	CU_ASSERT_PTR_NULL(cq_find_qp(cq, 0xabcdef));
	/* Remove every other one; the rest must still be found. */
	for (i = 0; i < NQP; i += 2)
		cq_detach(cq, &qps[i]);
	CU_ASSERT_EQUAL(cq->nb_qps, NQP / 2);
	for (i = 0; i < NQP; i++)
		CU_ASSERT_PTR_EQUAL(cq_find_qp(cq, qps[i].base.qp_num),
				    i % 2 ? &qps[i] : NULL);
	cq_detach(cq, &qps[0]); /* not attached: no change */
	CU_ASSERT_EQUAL(cq->nb_qps, NQP / 2);
	free_cq(cq);
}

/* Registered at start-up as "verbs": any RDMA device, below mlx5. */
static void
test_registered(void)
{
	struct ibv_device any;

	memset(&any, 0, sizeof(any));
	CU_ASSERT_PTR_NOT_NULL_FATAL(registered);
	CU_ASSERT_STRING_EQUAL(registered->name, "verbs");
	CU_ASSERT_PTR_NULL(registered->match_name);
	CU_ASSERT(registered->open == verbs_open);
	CU_ASSERT_EQUAL(registered->probe(&any), 10);
	CU_ASSERT_EQUAL(registered->probe(NULL), 0);
}

static void
test_gid_ipv4_mapped(void)
{
	union ibv_gid g;

	memset(&g, 0, sizeof(g));
	g.raw[10] = 0xff;
	g.raw[11] = 0xff;
	g.raw[12] = 10;
	CU_ASSERT_TRUE(gid_is_ipv4_mapped(&g));
	g.raw[0] = 0xfe;
	g.raw[1] = 0x80;
	CU_ASSERT_FALSE(gid_is_ipv4_mapped(&g));
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{"qp_table", test_qp_table},
		{"registered", test_registered},
		{"gid_ipv4_mapped", test_gid_ipv4_mapped},
		{NULL, NULL},
	};

	return rdx_ut_run("verbs_dev", cases, NULL, NULL);
}
