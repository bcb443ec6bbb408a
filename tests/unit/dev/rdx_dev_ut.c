/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of lib/dev/rdx_dev.c: device selection and the argument checks
 * of the control-path wrappers. The drivers are replaced by stubs that
 * record what was asked, so the selection logic is tested on its own.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_errno.h>

#include "rdx_ut.h"
#include "../../../lib/dev/rdx_dev.c"

static int sw_opens;
static int mlx5_opens;
static int verbs_opens;
static struct rdx_dev stub_dev;

struct rdx_dev *
rdx_sw_dev_open(const struct rdx_dev_conf *conf)
{
	(void)conf;
	sw_opens++;
	return &stub_dev;
}

struct rdx_dev *
rdx_mlx5_dev_open(struct ibv_device *ibdev, const struct rdx_dev_conf *conf)
{
	(void)ibdev; (void)conf;
	mlx5_opens++;
	return &stub_dev;
}

struct rdx_dev *
rdx_verbs_dev_open(struct ibv_device *ibdev, const struct rdx_dev_conf *conf)
{
	(void)ibdev; (void)conf;
	verbs_opens++;
	return &stub_dev;
}

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

static void
test_mem_type_names(void)
{
	CU_ASSERT_EQUAL(rdx_mem_type_parse("host"), RDX_MEM_HOST);
	CU_ASSERT_EQUAL(rdx_mem_type_parse("huge"), RDX_MEM_HUGE);
	CU_ASSERT_EQUAL(rdx_mem_type_parse("dm"), RDX_MEM_DM);
	CU_ASSERT_EQUAL(rdx_mem_type_parse("HOST"), -EINVAL);
	CU_ASSERT_EQUAL(rdx_mem_type_parse(""), -EINVAL);
	CU_ASSERT_EQUAL(rdx_mem_type_parse(NULL), -EINVAL);
	CU_ASSERT_STRING_EQUAL(rdx_mem_type_name(RDX_MEM_DM), "dm");
	CU_ASSERT_STRING_EQUAL(rdx_mem_type_name((enum rdx_mem_type)7), "?");
}

static void
test_names(void)
{
	CU_ASSERT_STRING_EQUAL(rdx_op_name(RDX_OP_FAA), "ATOMIC_FA");
	CU_ASSERT_STRING_EQUAL(rdx_op_name(RDX_OP_MAX), "UNKNOWN");
	CU_ASSERT_STRING_EQUAL(rdx_wc_opcode_name(RDX_WC_RECV_WRITE_IMM), "RECV_RDMA_WITH_IMM");
	CU_ASSERT_STRING_EQUAL(rdx_wc_status_name(IBV_WC_REM_ACCESS_ERR),
			       "remote access error");
	CU_ASSERT_STRING_EQUAL(rdx_wc_status_name(IBV_WC_SUCCESS), "success");
}

/* Stub ops to check the wrappers' argument handling without a driver. */
static int stub_cq_creates;
static struct rdx_cq stub_cq;

static struct rdx_cq *
stub_cq_create(struct rdx_dev *dev, const struct rdx_cq_conf *conf)
{
	(void)dev; (void)conf;
	stub_cq_creates++;
	return &stub_cq;
}

static struct rdx_mem *
stub_mem_alloc(struct rdx_dev *dev, size_t len, enum rdx_mem_type type, int access)
{
	(void)dev; (void)len; (void)type; (void)access;
	return NULL;
}

static const struct rdx_dev_ops stub_ops = {
	.cq_create = stub_cq_create,
	.mem_alloc = stub_mem_alloc,
};

static void
test_wrapper_checks(void)
{
	struct rdx_dev dev = { .ops = &stub_ops };
	struct rdx_qp_conf qc = {0};
	char buf[16];
	struct rdx_mem mem = { .addr = buf, .len = sizeof(buf) };

	dev.attr.max_cqe = 1024;
	stub_cq_creates = 0;
	CU_ASSERT_PTR_NULL(rdx_cq_create(&dev, &(struct rdx_cq_conf){ .depth = 0 }));
	CU_ASSERT_PTR_NULL(rdx_cq_create(&dev, &(struct rdx_cq_conf){ .depth = 2048 }));
	CU_ASSERT_PTR_NULL(rdx_cq_create(&dev, NULL));
	CU_ASSERT_PTR_EQUAL(rdx_cq_create(&dev, &(struct rdx_cq_conf){ .depth = 1024 }), &stub_cq);
	CU_ASSERT_EQUAL(stub_cq_creates, 1);

	/* A QP needs CQs of the same device and a send queue. */
	CU_ASSERT_PTR_NULL(rdx_qp_create(&dev, &qc));
	stub_cq.dev = &dev;
	qc.send_cq = qc.recv_cq = &stub_cq;
	CU_ASSERT_PTR_NULL(rdx_qp_create(&dev, &qc)); /* sq_depth 0 */

	/* No device memory on a device without it; zero length refused. */
	CU_ASSERT_PTR_NULL(rdx_dev_mem_alloc(&dev, 64, RDX_MEM_DM, RDX_ACCESS_ALL));
	CU_ASSERT_EQUAL(rte_errno, ENOTSUP);
	CU_ASSERT_PTR_NULL(rdx_dev_mem_alloc(&dev, 0, RDX_MEM_HOST, RDX_ACCESS_ALL));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);

	/* Copies are bounds-checked, including overflow of off + len. */
	CU_ASSERT_EQUAL(rdx_dev_mem_copy_to(&mem, 8, "12345678", 8), 0);
	CU_ASSERT_EQUAL(rdx_dev_mem_copy_to(&mem, 9, "12345678", 8), -ERANGE);
	CU_ASSERT_EQUAL(rdx_dev_mem_copy_from(&mem, SIZE_MAX, buf, 2), -ERANGE);
	CU_ASSERT_EQUAL(memcmp(buf + 8, "12345678", 8), 0);
}

static void
test_connect_rejects_other_driver(void)
{
	struct rdx_dev dev = { .ops = &stub_ops };
	struct rdx_qp qp = { .dev = &dev };
	struct rdx_qp_info remote = {0};

	snprintf(dev.attr.driver, sizeof(dev.attr.driver), "sw");
	snprintf(remote.driver, sizeof(remote.driver), "verbs");
	CU_ASSERT_EQUAL(rdx_qp_connect(&qp, &remote, NULL), -EPROTO);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "open sw by name or driver", test_open_sw_by_name },
		{ "default device falls back to sw", test_default_falls_back_to_sw },
		{ "unknown device and driver", test_unknown_device_and_driver },
		{ "device list without RDMA devices", test_dev_list_no_device },
		{ "memory type names", test_mem_type_names },
		{ "op, opcode and status names", test_names },
		{ "control-path wrapper checks", test_wrapper_checks },
		{ "connect rejects a peer of another driver", test_connect_rejects_other_driver },
		{ NULL, NULL },
	};

	return rdx_ut_run("rdx_dev", cases, NULL, NULL);
}
