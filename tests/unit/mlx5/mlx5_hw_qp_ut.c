/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the mlx5 hardware control path's queues
 * (drivers/mlx5/mlx5_hw_qp.c) that need no NIC: the CQ arm doorbell
 * encoding (libmlx5 mlx5_arm_cq rules, rebuilt here independently),
 * argument checks that must fail before any verbs call, qp_info, the UD
 * checks and AH attributes. The QP/CQ configuration checks are lib/dev's
 * (rdx_dev_ut); the scaffolding is mlx5_hw_ut.h.
 */
#include "mlx5_hw_ut.h"

/* Arm: dbrec[1] = sn<<28 | cmd | ci(24 bits); UAR+0x20 <- BE64(word<<32 | cqn). */
static void
test_cq_arm_encoding(void)
{
	static uint8_t uar[64] __attribute__((aligned(64)));
	struct mlx5_hw_cq hc;
	__be32 dbrec[2] = { 0, 0 };
	uint32_t word;
	uint64_t got, want;

	memset(&hc, 0, sizeof(hc));
	memset(uar, 0, sizeof(uar));
	hc.mcq.dbrec = dbrec;
	hc.mcq.cqn = 0x1234;
	hc.mcq.cons_index = 0x1abcdef5;
	hc.cq_uar = uar;
	hc.arm_sn = 5;
	hw_cq_arm(&hc);
	word = (5u & 3) << 28 | 0u << 24 | (0x1abcdef5u & 0xffffff);
	CU_ASSERT(be32toh(dbrec[1]) == word);
	CU_ASSERT(dbrec[0] == 0);                 /* the CI record is the poller's */
	memcpy(&got, uar + 0x20, 8);
	want = htobe64((uint64_t)word << 32 | 0x1234);
	CU_ASSERT(got == want);
	/* the sequence number follows arm_sn, wrapping at 4 */
	hc.arm_sn = 6;
	hc.mcq.cons_index = 7;
	hw_cq_arm(&hc);
	CU_ASSERT(be32toh(dbrec[1]) == (2u << 28 | 7u));
}

static void
test_cq_checks(void)
{
	struct mlx5_hw_cq hc;

	fake_dev_init();
	/* waiting needs a completion channel */
	memset(&hc, 0, sizeof(hc));
	CU_ASSERT(rdx_mlx5_hw_cq_wait(&hc.mcq.base, 0) == -EINVAL);
	/* a CQ with QPs attached is not destroyed */
	hc.mcq.nb_qps = 1;
	CU_ASSERT(rdx_mlx5_hw_cq_destroy(&hc.mcq.base) == -EBUSY);
}

/*
 * Depths libmlx5 cannot create are refused before any verbs call: with
 * max_qp_wr 32768 (max_send_wqebb) an RC WQE of one SGE takes 256 B
 * (192 B sq_overhead + 16), so 8192 WRs fill 32768 WQEBBs and 8193 need a
 * ring twice that; with 220 inline bytes a WQE takes 448 B: 4681 fit.
 */
static void
test_qp_create_depth_limit(void)
{
	struct mlx5_hw_cq cq;
	struct rdx_qp_conf qc;

	fake_dev_init();
	fake_dev.base.attr.max_qp_wr = 32768;   /* let only the shape check refuse */
	fake_dev.max_send_wqebb = 32768;
	memset(&cq, 0, sizeof(cq));
	cq.mcq.base.dev = &fake_dev.base;
	memset(&qc, 0, sizeof(qc));
	qc.send_cq = &cq.mcq.base;
	qc.recv_cq = &cq.mcq.base;
	qc.max_send_sge = 1;
	qc.sq_depth = 8193;
	rte_errno = 0;
	CU_ASSERT(rdx_mlx5_hw_qp_create(&fake_dev.base, &qc) == NULL && rte_errno == EINVAL);
	qc.sq_depth = 4682;
	qc.max_inline = MLX5_HW_MAX_INLINE;
	rte_errno = 0;
	CU_ASSERT(rdx_mlx5_hw_qp_create(&fake_dev.base, &qc) == NULL && rte_errno == EINVAL);
	CU_ASSERT(rdx_mlx5_rc_max_send_wr(32768, MLX5_HW_MAX_SQ_DESC, 1, 0) == 8192);
	CU_ASSERT(rdx_mlx5_rc_max_send_wr(32768, MLX5_HW_MAX_SQ_DESC, 1, MLX5_HW_MAX_INLINE) == 4681);
}

static void
test_qp_info_and_connect_checks(void)
{
	struct rdx_qp_conn_attr ca = { .timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
				       .min_rnr_timer = 12, .max_rd_atomic = 16 };
	struct rdx_qp_info info, remote;
	struct mlx5_hw_qp hq;
	unsigned int k;

	fake_dev_init();
	for (k = 0; k < 16; k++)
		fake_dev.gid.raw[k] = (uint8_t)(0xf0 + k);
	memset(&hq, 0, sizeof(hq));
	hq.mqp.base.dev = &fake_dev.base;
	hq.mqp.base.qp_num = 0x1a2;
	hq.psn = 0x123456;
	memset(&info, 0xff, sizeof(info));
	CU_ASSERT(rdx_mlx5_hw_qp_info(&hq.mqp.base, &info) == 0);
	CU_ASSERT(info.qp_num == 0x1a2);
	CU_ASSERT(info.psn == 0x123456);
	CU_ASSERT(info.lid == 0x42);
	CU_ASSERT(info.port == 1);
	CU_ASSERT(info.mtu == IBV_MTU_4096);
	CU_ASSERT(info.gid_index == 3);
	CU_ASSERT(info.gid[0] == 0xf0 && info.gid[15] == 0xff);
	CU_ASSERT(strcmp(info.driver, "mlx5") == 0);
	CU_ASSERT(info.drv[0] == 0);
	/* a bad peer QPN is refused before touching the QP */
	remote = info;
	remote.qp_num = 0;
	CU_ASSERT(rdx_mlx5_hw_qp_connect(&hq.mqp.base, &remote, &ca) == -EINVAL);
	remote.qp_num = 0x1000000;
	CU_ASSERT(rdx_mlx5_hw_qp_connect(&hq.mqp.base, &remote, &ca) == -EINVAL);
}

/* UD: argument checks that fail before any verbs call, qp_info, the AH
 * attribute conversion, the MTU in bytes, libmlx5's UD SQ sizing. */
static void
test_ud_checks(void)
{
	struct rdx_qp_conn_attr ca = { .timeout = 14 };
	struct rdx_ah_attr aa;
	struct ibv_ah_attr ia;
	struct rdx_qp_info info, remote;
	struct mlx5_hw_cq cq;
	struct mlx5_hw_qp hq;
	struct rdx_qp_conf qc;
	unsigned int k;

	fake_dev_init();
	fake_dev.base.attr.max_ud_msg = 4096;
	fake_dev.pattr.gid_tbl_len = 8;
	fake_dev.max_send_wqebb = 32768;
	memset(&cq, 0, sizeof(cq));
	cq.mcq.base.dev = &fake_dev.base;
	memset(&qc, 0, sizeof(qc));
	qc.send_cq = &cq.mcq.base;
	qc.recv_cq = &cq.mcq.base;
	qc.max_send_sge = 1;
	qc.type = 7;                                  /* no such type */
	qc.sq_depth = 16;
	rte_errno = 0;
	CU_ASSERT(rdx_mlx5_hw_qp_create(&fake_dev.base, &qc) == NULL && rte_errno == ENOTSUP);
	/* ctrl + datagram + 1 SGE = 80 -> 128 B: 2 MiB / 128 WRs */
	CU_ASSERT(rdx_mlx5_ud_max_send_wr(32768, MLX5_HW_MAX_SQ_DESC, 1, 0) == 16384);
	/* 64 + align16(4 + 220) = 288 -> 320 B */
	CU_ASSERT(rdx_mlx5_ud_max_send_wr(32768, MLX5_HW_MAX_SQ_DESC, 1, MLX5_HW_MAX_INLINE) ==
		  6553);
	CU_ASSERT(rdx_mlx5_ud_max_send_wr(32768, MLX5_HW_MAX_SQ_DESC, 30, 0) == 0);
	qc.type = RDX_QP_UD;
	qc.sq_depth = 16385;
	rte_errno = 0;
	CU_ASSERT(rdx_mlx5_hw_qp_create(&fake_dev.base, &qc) == NULL && rte_errno == EINVAL);
	CU_ASSERT(rdx_mlx5_ud_sq_wqebb_max(8, 1) == 2);
	CU_ASSERT(rdx_mlx5_ud_sq_wqebb_max(0, 0) == 1);
	CU_ASSERT(rdx_mlx5_ud_sq_wqe_cnt(10, 8, 1) == 32);

	/* qp_info of a UD QP carries its Q_Key and type; connect takes NULL */
	memset(&hq, 0, sizeof(hq));
	hq.mqp.base.dev = &fake_dev.base;
	hq.mqp.base.qp_num = 0x1a3;
	hq.mqp.base.conf.type = RDX_QP_UD;
	hq.qkey = 0x1234567;
	CU_ASSERT(rdx_mlx5_hw_qp_info(&hq.mqp.base, &info) == 0);
	CU_ASSERT(info.qkey == 0x1234567 && info.qp_type == RDX_QP_UD);
	remote = info;
	CU_ASSERT(rdx_mlx5_hw_qp_connect(&hq.mqp.base, &remote, &ca) == -EINVAL);
	hq.mqp.base.conf.type = RDX_QP_RC;
	CU_ASSERT(rdx_mlx5_hw_qp_connect(&hq.mqp.base, NULL, &ca) == -EINVAL);
	CU_ASSERT(rdx_mlx5_hw_qp_info(&hq.mqp.base, &info) == 0);
	CU_ASSERT(info.qkey == 0 && info.qp_type == RDX_QP_RC);

	/* AH attributes */
	memset(&aa, 0, sizeof(aa));
	aa.port = 2;                                  /* device open on port 1 */
	aa.lid = 9;
	CU_ASSERT(hw_ah_attr(&fake_dev, &aa, &ia) == -EINVAL);
	aa.port = 1;
	aa.is_global = 1;
	aa.sgid_index = 8;                            /* table of 8 */
	CU_ASSERT(hw_ah_attr(&fake_dev, &aa, &ia) == -EINVAL);
	aa.sgid_index = -1;                           /* the device's: 3 */
	aa.sl = 5;
	aa.hop_limit = 64;
	aa.flow_label = 0x12345;
	aa.traffic_class = 0x20;
	for (k = 0; k < 16; k++)
		aa.gid[k] = (uint8_t)k;
	CU_ASSERT(hw_ah_attr(&fake_dev, &aa, &ia) == 0);
	CU_ASSERT(ia.dlid == 9 && ia.sl == 5 && ia.port_num == 1 && ia.is_global == 1);
	CU_ASSERT(ia.grh.sgid_index == 3 && ia.grh.hop_limit == 64);
	CU_ASSERT(ia.grh.flow_label == 0x12345 && ia.grh.traffic_class == 0x20);
	CU_ASSERT(ia.grh.dgid.raw[15] == 15);
	aa.is_global = 0;
	CU_ASSERT(hw_ah_attr(&fake_dev, &aa, &ia) == 0);
	CU_ASSERT(ia.is_global == 0 && ia.grh.hop_limit == 0);

	CU_ASSERT(hw_mtu_bytes(IBV_MTU_256) == 256);
	CU_ASSERT(hw_mtu_bytes(IBV_MTU_1024) == 1024);
	CU_ASSERT(hw_mtu_bytes(IBV_MTU_4096) == 4096);
	CU_ASSERT(hw_mtu_bytes((enum ibv_mtu)0) == 0);
	CU_ASSERT(mlx5_hw_ops.ah_create == rdx_mlx5_hw_ah_create && mlx5_hw_ops.ah_destroy != NULL);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "CQ arm doorbell encoding", test_cq_arm_encoding },
		{ "CQ wait/destroy checks", test_cq_checks },
		{ "QP create refuses depths libmlx5 cannot create", test_qp_create_depth_limit },
		{ "qp_info fields, connect checks", test_qp_info_and_connect_checks },
		{ "UD checks, qp_info, AH attributes, sizing", test_ud_checks },
		{ NULL, NULL },
	};

	return rdx_ut_run("mlx5_hw_qp", cases, NULL, NULL);
}
