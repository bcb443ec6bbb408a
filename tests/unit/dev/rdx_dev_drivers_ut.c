/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Driver registration as linked: a program finds exactly the drivers linked
 * into it. The same source is built three times (tests/unit/dev/meson.build)
 * and told on the command line which drivers it was linked with:
 *  - lib/dev + the software device's objects only ("sw");
 *  - lib/dev + the verbs driver archive, linked whole ("verbs");
 *  - the static union every app and test links ("mlx5 sw verbs").
 * It checks the registry lists those and nothing else, that a linked
 * software device opens (and its devargs reach it), and that a driver not
 * linked is unknown to rdx_dev_open.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include "rdx_ut.h"
#include "rdx_dev.h"

static const char *const all_drivers[] = { "mlx5", "sw", "verbs" };
static char **expect;
static int nb_expect;

static bool
expected(const char *name)
{
	int i;

	for (i = 0; i < nb_expect; i++)
		if (strcmp(expect[i], name) == 0)
			return true;
	return false;
}

static int
check_driver(const char *name, const char *desc, void *arg)
{
	int *seen = arg;

	CU_ASSERT(desc != NULL && desc[0] != '\0');
	if (!expected(name))
		CU_FAIL("a driver not linked into this program is registered");
	printf("  registered: %s (%s)\n", name, desc);
	(*seen)++;
	return 0;
}

static void
test_registered_exactly(void)
{
	int seen = 0;

	CU_ASSERT_EQUAL(rdx_dev_driver_foreach(check_driver, &seen), 0);
	CU_ASSERT_EQUAL(seen, nb_expect);
	CU_ASSERT_EQUAL(rdx_dev_driver_count(), (unsigned int)nb_expect);
}

/* A driver not linked is not known: forcing it is "unknown driver". */
static void
test_unlinked_unknown(void)
{
	size_t i;

	for (i = 0; i < sizeof(all_drivers) / sizeof(all_drivers[0]); i++) {
		struct rdx_dev_conf c = { .driver = all_drivers[i], .quiet = true };

		if (expected(all_drivers[i]))
			continue;
		rte_errno = 0;
		CU_ASSERT_PTR_NULL(rdx_dev_open(NULL, &c));
		CU_ASSERT_EQUAL(rte_errno, EINVAL);
	}
}

static void
test_sw(void)
{
	const struct rdx_dev_attr *a;
	struct rdx_cq_conf cc = { .depth = 16 };
	struct rdx_dev *dev;
	struct rdx_cq *cq;

	if (!expected("sw")) {
		/* not linked: "sw" is no device name either */
		rte_errno = 0;
		CU_ASSERT_PTR_NULL(rdx_dev_open("sw", NULL));
		CU_ASSERT_EQUAL(rte_errno, ENODEV);
		return;
	}
	dev = rdx_dev_open("sw", NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dev);
	a = rdx_dev_attr_get(dev);
	CU_ASSERT_STRING_EQUAL(a->driver, "sw");
	CU_ASSERT_TRUE(a->software);
	cq = rdx_cq_create(dev, &cc);
	CU_ASSERT_PTR_NOT_NULL(cq);
	/* UD on the software device (tests/unit/sw/sw_ud_ut.c): a UD QP of
	 * the MTU; an AH needs a sw device's GID (doc/ud.md) */
	CU_ASSERT_EQUAL(a->max_ud_msg, 4096);
	{
		struct rdx_qp_conf qc = { .send_cq = cq, .recv_cq = cq, .sq_depth = 16,
					  .rq_depth = 16, .max_send_sge = 1, .max_recv_sge = 1,
					  .type = RDX_QP_UD };
		struct rdx_ah_attr aa = { .lid = 1, .is_global = 1 };
		struct rdx_qp *ud;

		ud = rdx_qp_create(dev, &qc);
		CU_ASSERT_PTR_NOT_NULL(ud);
		rte_errno = 0;
		CU_ASSERT_PTR_NULL(rdx_ah_create(dev, &aa));
		CU_ASSERT_EQUAL(rte_errno, EINVAL);
		if (ud != NULL)
			CU_ASSERT_EQUAL(rdx_qp_destroy(ud), 0);
	}
	CU_ASSERT_EQUAL(rdx_cq_destroy(cq), 0);
	CU_ASSERT_EQUAL(rdx_dev_close(dev), 0);
	/* its devargs reach it: a bad value is refused by the driver, a
	 * good one opens (an engine thread) */
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(rdx_dev_open("sw:progress=sometimes", NULL));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(rdx_dev_open("sw:colour=blue", NULL));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	dev = rdx_dev_open("sw:progress=thread", NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dev);
	CU_ASSERT_EQUAL(rdx_dev_close(dev), 0);
	CU_ASSERT_EQUAL(rdx_dev_count(), 0);
}

/* No RDMA device here and no software device linked: the default fails
 * (ENODEV) instead of opening something that is not there. */
static void
test_default_without_sw(void)
{
	char names[4][64];

	if (expected("sw") || rdx_dev_list(names, 4) != 0) {
		printf("  (software device linked, or an RDMA device present: not exercised)\n");
		return;
	}
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(rdx_dev_open(NULL, &(struct rdx_dev_conf){ .quiet = true }));
	CU_ASSERT_EQUAL(rte_errno, ENODEV);
}

int
main(int argc, char **argv)
{
	static const struct rdx_ut_case cases[] = {
		{ "the linked drivers, and only those, are registered", test_registered_exactly },
		{ "a driver not linked is unknown", test_unlinked_unknown },
		{ "the software device opens when linked", test_sw },
		{ "no default device without sw or RDMA devices", test_default_without_sw },
		{ NULL, NULL },
	};

	if (argc < 2) {
		fprintf(stderr, "usage: rdx_dev_drivers_ut DRIVER... (the drivers linked in)\n");
		return 2;
	}
	expect = argv + 1;
	nb_expect = argc - 1;
	return rdx_ut_run("rdx_dev_drivers", cases, NULL, NULL);
}
