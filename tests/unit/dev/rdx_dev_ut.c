/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of lib/dev/rdx_dev.c: the driver registry, device selection,
 * devargs and the device list (the object wrappers' checks are
 * rdx_dev_obj_ut's, for rdx_dev_obj.c). Stub
 * drivers register themselves and record what was asked, so the selection
 * logic is tested on its own (rdx_dev_drivers_ut links real drivers).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_log.h>

#include "rdx_ut.h"
#include "../../../lib/dev/rdx_dev.c"
#include "../../../lib/dev/rdx_dev_qp.c"

static int sw_opens;
static int mlx5_opens;
static int verbs_opens;
static struct rdx_dev stub_dev;
static char last_devargs[128];

static void
note_devargs(const char *devargs)
{
	snprintf(last_devargs, sizeof(last_devargs), "%s", devargs != NULL ? devargs : "(null)");
}

/* Stub drivers, registered like the real ones: the selection logic is
 * tested on its own (no driver is linked into this test). */
static struct rdx_dev *
stub_sw_open(struct ibv_device *ibdev, const char *devargs, const struct rdx_dev_conf *conf)
{
	(void)ibdev; (void)conf;
	note_devargs(devargs);
	sw_opens++;
	return &stub_dev;
}

static bool
stub_sw_match(const char *name)
{
	return strcmp(name, "sw") == 0;
}

static struct rdx_dev *
stub_mlx5_open(struct ibv_device *ibdev, const char *devargs, const struct rdx_dev_conf *conf)
{
	(void)ibdev; (void)conf;
	note_devargs(devargs);
	mlx5_opens++;
	return &stub_dev;
}

static int
stub_mlx5_probe(struct ibv_device *ibdev)
{
	return strncmp(ibv_get_device_name(ibdev), "mlx5", 4) == 0 ? 80 : 0;
}

static struct rdx_dev *
stub_verbs_open(struct ibv_device *ibdev, const char *devargs, const struct rdx_dev_conf *conf)
{
	(void)ibdev; (void)conf;
	note_devargs(devargs);
	verbs_opens++;
	return &stub_dev;
}

static int
stub_verbs_probe(struct ibv_device *ibdev)
{
	(void)ibdev;
	return 10;
}

static const char *const stub_sw_keys[] = { "progress", "extra", NULL };

static struct rdx_driver stub_sw = {
	.name = "sw", .desc = "the software mlx5 device", .match_name = stub_sw_match,
	.devargs_keys = stub_sw_keys, .open = stub_sw_open,
};
static struct rdx_driver stub_mlx5 = {
	.name = "mlx5", .probe = stub_mlx5_probe, .open = stub_mlx5_open,
};
static struct rdx_driver stub_verbs = {
	.name = "verbs", .probe = stub_verbs_probe, .open = stub_verbs_open,
};

RDX_DRIVER_REGISTER(stub_sw)
RDX_DRIVER_REGISTER(stub_mlx5)
RDX_DRIVER_REGISTER(stub_verbs)

static void
reset_counts(void)
{
	sw_opens = mlx5_opens = verbs_opens = 0;
}

static bool
have_rdma_device(void)
{
	char names[4][64];

	return rdx_dev_list(names, 4) > 0;
}

static void
test_open_sw_by_name(void)
{
	struct rdx_dev_conf conf = { .driver = "auto" };

	reset_counts();
	CU_ASSERT_PTR_EQUAL(rdx_dev_open("sw", NULL), &stub_dev);
	CU_ASSERT_PTR_EQUAL(rdx_dev_open(NULL, &(struct rdx_dev_conf){ .driver = "sw" }), &stub_dev);
	CU_ASSERT_PTR_EQUAL(rdx_dev_open("sw", &conf), &stub_dev);
	CU_ASSERT_EQUAL(sw_opens, 3);
	CU_ASSERT_EQUAL(mlx5_opens + verbs_opens, 0);
	CU_ASSERT_STRING_EQUAL(last_devargs, "(null)");
	/* --dev sw --driver mlx5 was always the software device */
	CU_ASSERT_PTR_EQUAL(rdx_dev_open("sw", &(struct rdx_dev_conf){ .driver = "mlx5" }),
			    &stub_dev);
	CU_ASSERT_EQUAL(sw_opens, 4);
	CU_ASSERT_EQUAL(mlx5_opens + verbs_opens, 0);
}

/* devargs after the name, in the conf, or both (the name's first). */
static void
test_open_devargs(void)
{
	reset_counts();
	CU_ASSERT_PTR_EQUAL(rdx_dev_open("sw:progress=thread", NULL), &stub_dev);
	CU_ASSERT_STRING_EQUAL(last_devargs, "progress=thread");
	CU_ASSERT_PTR_EQUAL(rdx_dev_open("sw", &(struct rdx_dev_conf){ .devargs = "extra=1" }),
			    &stub_dev);
	CU_ASSERT_STRING_EQUAL(last_devargs, "extra=1");
	CU_ASSERT_PTR_EQUAL(rdx_dev_open("sw:progress=inline",
					 &(struct rdx_dev_conf){ .devargs = "extra=2" }), &stub_dev);
	CU_ASSERT_STRING_EQUAL(last_devargs, "progress=inline,extra=2");
	CU_ASSERT_PTR_EQUAL(rdx_dev_open("sw:", NULL), &stub_dev);
	CU_ASSERT_STRING_EQUAL(last_devargs, "(null)");
	CU_ASSERT_PTR_EQUAL(stub_dev.conf.devargs, NULL); /* not kept past the open */
	CU_ASSERT_EQUAL(sw_opens, 4);
	/* a key the driver does not take, or a malformed pair: refused before open */
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(rdx_dev_open("sw:bogus=1", NULL));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(rdx_dev_open("sw", &(struct rdx_dev_conf){ .devargs = "progress" }));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(rdx_dev_open("sw:=thread", NULL));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	CU_ASSERT_EQUAL(sw_opens, 4);
}

static void
test_devargs_get(void)
{
	char v[8];

	CU_ASSERT_EQUAL(rdx_devargs_get(NULL, "a", v, sizeof(v)), 0);
	CU_ASSERT_EQUAL(rdx_devargs_get("a=1,b=22", "b", v, sizeof(v)), 1);
	CU_ASSERT_STRING_EQUAL(v, "22");
	CU_ASSERT_EQUAL(rdx_devargs_get("a=1,b=22,a=3", "a", v, sizeof(v)), 1);
	CU_ASSERT_STRING_EQUAL(v, "3");                   /* the last one wins */
	CU_ASSERT_EQUAL(rdx_devargs_get("ab=1", "a", v, sizeof(v)), 0);
	CU_ASSERT_EQUAL(rdx_devargs_get("a=", "a", v, sizeof(v)), 1);
	CU_ASSERT_STRING_EQUAL(v, "");
	CU_ASSERT_EQUAL(rdx_devargs_get("a=12345678", "a", v, sizeof(v)), -ENOSPC);
	/* rte_kvargs syntax: a bracketed list is one value, empty pairs skipped */
	CU_ASSERT_EQUAL(rdx_devargs_get("a=[1,2],b=3", "a", v, sizeof(v)), 1);
	CU_ASSERT_STRING_EQUAL(v, "[1,2]");
	CU_ASSERT_EQUAL(rdx_devargs_get(",,b=3,", "b", v, sizeof(v)), 1);
	CU_ASSERT_STRING_EQUAL(v, "3");
	/* malformed: no '=', two of them, an empty key */
	CU_ASSERT_EQUAL(rdx_devargs_get("a", "a", v, sizeof(v)), -EINVAL);
	CU_ASSERT_EQUAL(rdx_devargs_get("b=1,a=2=3", "a", v, sizeof(v)), -EINVAL);
	CU_ASSERT_EQUAL(rdx_devargs_get("=1", "a", v, sizeof(v)), -EINVAL);
}

/* The refusals' lines go through rte_log: a service can redirect them. */
static void
test_devargs_lines(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(rte_openlog_stream(f), 0);
	reset_counts();
	CU_ASSERT_PTR_NULL(rdx_dev_open("sw:bogus=1", NULL));
	CU_ASSERT_PTR_NULL(rdx_dev_open("sw:progress", NULL));
	CU_ASSERT_PTR_NULL(rdx_dev_open("sw:progress=thread=poll", NULL));
	/* a list value reaches the driver whole */
	CU_ASSERT_PTR_EQUAL(rdx_dev_open("sw:extra=[1,2]", NULL), &stub_dev);
	CU_ASSERT_STRING_EQUAL(last_devargs, "extra=[1,2]");
	CU_ASSERT_EQUAL(sw_opens, 1);
	rte_openlog_stream(NULL);
	fclose(f);
	CU_ASSERT_STRING_EQUAL(text,
		"rdx: devargs key 'bogus' not known to driver sw (see its README)\n"
		"rdx: bad devargs 'progress' for driver sw: expected key=value[,key=value...]\n"
		"rdx: bad devargs 'progress=thread=poll' for driver sw: expected key=value[,key=value...]\n");
	free(text);
}

static int
collect_driver(const char *name, const char *desc, void *arg)
{
	char *buf = arg;

	CU_ASSERT_PTR_NOT_NULL(desc);
	strcat(buf, name);
	strcat(buf, " ");
	return 0;
}

static int
stop_at_first(const char *name, const char *desc, void *arg)
{
	(void)name; (void)desc;
	(*(int *)arg)++;
	return 7;
}

/* The registry: what registered, once each; bad and duplicate ones refused. */
static void
test_driver_registry(void)
{
	static struct rdx_driver dup = {
		.name = "sw", .match_name = stub_sw_match, .open = stub_sw_open,
	};
	static struct rdx_driver neither = { .name = "x", .open = stub_sw_open };
	static struct rdx_driver both = {
		.name = "y", .probe = stub_verbs_probe, .match_name = stub_sw_match,
		.open = stub_sw_open,
	};
	char buf[64] = "";
	int calls = 0;

	CU_ASSERT_EQUAL(rdx_dev_driver_count(), 3);
	CU_ASSERT_EQUAL(rdx_dev_driver_foreach(collect_driver, buf), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "sw "));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "mlx5 "));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "verbs "));
	CU_ASSERT_EQUAL(strlen(buf), strlen("sw mlx5 verbs "));
	CU_ASSERT_EQUAL(rdx_dev_driver_foreach(stop_at_first, &calls), 7);
	CU_ASSERT_EQUAL(calls, 1);
	CU_ASSERT_EQUAL(rdx_dev_driver_foreach(NULL, NULL), -EINVAL);
	rdx_driver_register(&dup);
	rdx_driver_register(&neither);
	rdx_driver_register(&both);
	rdx_driver_register(NULL);
	rdx_driver_register(&stub_verbs);        /* again: no change */
	CU_ASSERT_EQUAL(rdx_dev_driver_count(), 3);
}

static void
test_default_falls_back_to_sw(void)
{
	if (have_rdma_device()) {
		printf("  (an RDMA device is present: fallback not exercised)\n");
		return;
	}
	reset_counts();
	CU_ASSERT_PTR_EQUAL(rdx_dev_open(NULL, &(struct rdx_dev_conf){ .quiet = true }), &stub_dev);
	CU_ASSERT_PTR_EQUAL(rdx_dev_open("", &(struct rdx_dev_conf){ .quiet = true }), &stub_dev);
	CU_ASSERT_EQUAL(sw_opens, 2);
}

static void
test_unknown_device_and_driver(void)
{
	reset_counts();
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(rdx_dev_open("no_such_dev0", NULL));
	CU_ASSERT_EQUAL(rte_errno, ENODEV);
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(rdx_dev_open("sw", &(struct rdx_dev_conf){ .driver = "bogus" }));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	CU_ASSERT_EQUAL(sw_opens + mlx5_opens + verbs_opens, 0);
}

static void
test_dev_list_no_device(void)
{
	char names[4][64];
	int n = rdx_dev_list(names, 4);

	CU_ASSERT(n >= 0);
	if (access("/sys/class/infiniband", F_OK) != 0)
		CU_ASSERT_EQUAL(n, 0);
}

/* rdx_dev_close and the registry of live QPs: a refused close keeps the
 * device's QPs listed, a close forgets those its driver freed with it. */
static int close_ret;

static int
close_stub(struct rdx_dev *dev)
{
	(void)dev;
	return close_ret;
}

static void
test_close_forgets_qps(void)
{
	static const struct rdx_dev_ops ops = { .close = close_stub };
	static struct rdx_dev dev = { .ops = &ops }, other = { .ops = &ops };
	static struct rdx_qp q1 = { .dev = &dev }, q2 = { .dev = &dev }, q3 = { .dev = &other };

	CU_ASSERT_EQUAL(rdx_qp_reg_add(&q1), 0);
	CU_ASSERT_EQUAL(rdx_qp_reg_add(&q2), 0);
	CU_ASSERT_EQUAL(rdx_qp_reg_add(&q3), 0);
	CU_ASSERT_EQUAL(rdx_qp_count(&dev), 2);
	close_ret = -EBUSY;
	CU_ASSERT_EQUAL(rdx_dev_close(&dev), -EBUSY);
	CU_ASSERT_EQUAL(rdx_qp_count(&dev), 2);
	close_ret = 0;
	CU_ASSERT_EQUAL(rdx_dev_close(&dev), 0);
	CU_ASSERT_EQUAL(rdx_qp_count(&dev), 0);
	CU_ASSERT_EQUAL(rdx_qp_count(NULL), 1);
	rdx_qp_reg_del(&q3);
	CU_ASSERT_EQUAL(rdx_qp_count(NULL), 0);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "open sw by name or driver", test_open_sw_by_name },
		{ "devargs after the name and in the conf", test_open_devargs },
		{ "devargs values", test_devargs_get },
		{ "devargs refusals on the log stream", test_devargs_lines },
		{ "driver registry", test_driver_registry },
		{ "default device falls back to sw", test_default_falls_back_to_sw },
		{ "unknown device and driver", test_unknown_device_and_driver },
		{ "device list without RDMA devices", test_dev_list_no_device },
		{ "close forgets the device's QPs", test_close_forgets_qps },
		{ NULL, NULL },
	};

	return rdx_ut_run("rdx_dev", cases, NULL, NULL);
}
