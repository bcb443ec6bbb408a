/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx-perf's device kind (apps/rdx-perf/dev_kind.c) on a made-up sysfs
 * tree: a NIC's ibdev under a PCI function with its "device" link, the
 * kernel's software RDMA devices (rdma_rxe, siw) under devices/virtual
 * without one, an ibdev sysfs does not list, and rdx's software model.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rdx_ut.h"

#include "../../../apps/rdx-perf/dev_kind.c"

static char root[PATH_MAX];
static char cls[PATH_MAX + 32];

static void
mk(const char *rel)
{
	char p[PATH_MAX * 2];

	snprintf(p, sizeof(p), "mkdir -p '%s/%s'", root, rel);
	CU_ASSERT_FATAL(system(p) == 0);
}

static void
ln(const char *target, const char *rel)
{
	char p[PATH_MAX * 2];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	CU_ASSERT_FATAL(symlink(target, p) == 0);
}

static int
suite_init(void)
{
	char tmpl[] = "/tmp/rdx-devkind.XXXXXX";

	if (mkdtemp(tmpl) == NULL)
		return -1;
	snprintf(root, sizeof(root), "%s", tmpl);
	snprintf(cls, sizeof(cls), "%s/sys/class/infiniband", root);
	return 0;
}

static int
suite_fini(void)
{
	char p[PATH_MAX * 2];

	snprintf(p, sizeof(p), "rm -rf '%s'", root);
	return system(p) == 0 ? 0 : -1;
}

static enum perf_dev_kind
kind(const char *name, const char *driver, bool software)
{
	struct rdx_dev_attr at;

	memset(&at, 0, sizeof(at));
	snprintf(at.name, sizeof(at.name), "%s", name);
	snprintf(at.driver, sizeof(at.driver), "%s", driver);
	at.software = software;
	return perf_dev_kind_at(cls, &at);
}

static void
test_kinds(void)
{
	mk("sys/class/infiniband");
	mk("sys/devices/pci0000:00/0000:00:03.0/infiniband/mlx5_0");
	ln("../../../0000:00:03.0", "sys/devices/pci0000:00/0000:00:03.0/infiniband/mlx5_0/device");
	ln("../../devices/pci0000:00/0000:00:03.0/infiniband/mlx5_0", "sys/class/infiniband/mlx5_0");
	mk("sys/devices/virtual/infiniband/rxe0");
	ln("../../devices/virtual/infiniband/rxe0", "sys/class/infiniband/rxe0");
	/* a software device whose class entry is a directory of its own: no "device" */
	mk("sys/class/infiniband/siw0");

	CU_ASSERT_EQUAL(kind("mlx5_0", "verbs", false), PERF_DEV_KIND_NIC);
	CU_ASSERT_EQUAL(kind("mlx5_0", "mlx5", false), PERF_DEV_KIND_NIC);
	CU_ASSERT_EQUAL(kind("rxe0", "verbs", false), PERF_DEV_KIND_SOFT_RDMA);
	CU_ASSERT_EQUAL(kind("siw0", "verbs", false), PERF_DEV_KIND_SOFT_RDMA);
	/* not in sysfs: the driver said hardware */
	CU_ASSERT_EQUAL(kind("gone0", "verbs", false), PERF_DEV_KIND_NIC);
	CU_ASSERT_EQUAL(kind("sw", "sw", true), PERF_DEV_KIND_MODEL);
}

static void
test_words(void)
{
	CU_ASSERT_STRING_EQUAL(perf_dev_kind_label(PERF_DEV_KIND_NIC), "NIC");
	CU_ASSERT_STRING_EQUAL(perf_dev_kind_label(PERF_DEV_KIND_SOFT_RDMA), "software RDMA device");
	CU_ASSERT_STRING_EQUAL(perf_dev_kind_label(PERF_DEV_KIND_MODEL), "software device");
	/* JSON keeps the values reports had */
	CU_ASSERT_STRING_EQUAL(perf_dev_kind_json(PERF_DEV_KIND_NIC), "hardware");
	CU_ASSERT_STRING_EQUAL(perf_dev_kind_json(PERF_DEV_KIND_SOFT_RDMA), "software RDMA device");
	CU_ASSERT_STRING_EQUAL(perf_dev_kind_json(PERF_DEV_KIND_MODEL), "software device");
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "NIC, kernel software RDMA device, rdx's model", test_kinds },
		{ "labels and JSON values", test_words },
		{ NULL, NULL },
	};

	return rdx_ut_run("dev_kind", cases, suite_init, suite_fini);
}
