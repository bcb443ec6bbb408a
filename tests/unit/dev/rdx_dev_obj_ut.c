/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of lib/dev/rdx_dev_obj.c: the argument checks of the
 * control-path wrappers over the object ops (memory, CQ, QP, connect, AH)
 * on stub ops, and the op/opcode/status and memory type names. No driver
 * is linked; the devices are stubs built here.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>

#include "rdx_ut.h"
#include "../../../lib/dev/rdx_dev_obj.c"
#include "../../../lib/dev/rdx_dev_qp.c"

/* lib/dev's log type lives in rdx_dev.c, which this test does not link. */
RTE_LOG_REGISTER(rdx_dev_logtype, rdx.dev, NOTICE)

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

static int stub_qp_creates;
static struct rdx_qp stub_qp;

static struct rdx_qp *
stub_qp_create(struct rdx_dev *dev, const struct rdx_qp_conf *conf)
{
	(void)dev; (void)conf;
	stub_qp_creates++;
	return &stub_qp;
}

static const struct rdx_dev_ops stub_qp_ops = {
	.cq_create = stub_cq_create,
	.qp_create = stub_qp_create,
};

static unsigned int depth_calls;

static uint32_t
stub_sq_depth_max(const struct rdx_dev *dev, uint8_t type, uint32_t max_send_sge,
		  uint32_t max_inline)
{
	RTE_SET_USED(dev);
	RTE_SET_USED(type);
	depth_calls++;
	return 4096 / (1 + max_send_sge + max_inline / 64);
}

static const struct rdx_dev_ops stub_depth_ops = {
	.cq_create = stub_cq_create,
	.qp_create = stub_qp_create,
	.qp_sq_depth_max = stub_sq_depth_max,
};

/* rdx_qp_sq_depth_max: max_qp_wr without the driver's op, the op's
 * answer capped at max_qp_wr, 0 for arguments out of the device's range
 * (the op not called for them) */
static void
test_sq_depth_max(void)
{
	struct rdx_dev plain = { .ops = &stub_qp_ops }, dev = { .ops = &stub_depth_ops };

	plain.attr.max_qp_wr = dev.attr.max_qp_wr = 1024;
	plain.attr.max_sge = dev.attr.max_sge = 4;
	plain.attr.max_inline = dev.attr.max_inline = 256;
	CU_ASSERT_EQUAL(rdx_qp_sq_depth_max(&plain, RDX_QP_RC, 1, 64), 1024);
	CU_ASSERT_EQUAL(rdx_qp_sq_depth_max(&dev, RDX_QP_RC, 0, 0), 1024);   /* 4096 capped */
	CU_ASSERT_EQUAL(rdx_qp_sq_depth_max(&dev, RDX_QP_RC, 3, 0), 1024);
	CU_ASSERT_EQUAL(rdx_qp_sq_depth_max(&dev, RDX_QP_RC, 3, 256), 512);
	depth_calls = 0;
	CU_ASSERT_EQUAL(rdx_qp_sq_depth_max(&dev, RDX_QP_RC, 5, 0), 0);      /* > max_sge */
	CU_ASSERT_EQUAL(rdx_qp_sq_depth_max(&dev, RDX_QP_RC, 1, 257), 0);    /* > max_inline */
	CU_ASSERT_EQUAL(rdx_qp_sq_depth_max(&dev, 9, 1, 0), 0);              /* no such type */
	CU_ASSERT_EQUAL(rdx_qp_sq_depth_max(&dev, RDX_QP_UD, 1, 0), 0);      /* no UD here */
	CU_ASSERT_EQUAL(rdx_qp_sq_depth_max(NULL, RDX_QP_RC, 1, 0), 0);
	CU_ASSERT_EQUAL(depth_calls, 0);
	dev.attr.max_ud_msg = 128;
	CU_ASSERT_EQUAL(rdx_qp_sq_depth_max(&dev, RDX_QP_UD, 1, 200), 0);    /* > max_ud_msg */
	CU_ASSERT_EQUAL(rdx_qp_sq_depth_max(&dev, RDX_QP_UD, 1, 128), 1024);
	CU_ASSERT_EQUAL(depth_calls, 1);
}

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

/* The QP checks every driver shares (they were repeated in mlx5_hw.c,
 * sw_dev.c and verbs_dev.c): each field against the device's attributes,
 * the op called only for a conf within them. */
static void
test_qp_conf_checks(void)
{
	struct rdx_dev dev = { .ops = &stub_qp_ops }, other = { .ops = &stub_qp_ops };
	struct rdx_cq cq = { .dev = &dev }, cq_other = { .dev = &other };
	struct rdx_qp_conf ok = {
		.send_cq = &cq, .recv_cq = &cq, .sq_depth = 64, .rq_depth = 64,
		.max_send_sge = 1, .max_recv_sge = 1, .max_inline = 64, .sig_interval = 16,
	};
	struct rdx_qp_conf qc;

	snprintf(dev.attr.name, sizeof(dev.attr.name), "stub0");
	dev.attr.max_qp_wr = 1024;
	dev.attr.max_sge = 16;
	dev.attr.max_inline = 220;
	stub_qp_creates = 0;
#define QP_BAD(field, value) \
	do { \
		qc = ok; \
		qc.field = value; \
		rte_errno = 0; \
		CU_ASSERT_PTR_NULL(rdx_qp_create(&dev, &qc)); \
		CU_ASSERT_EQUAL(rte_errno, EINVAL); \
	} while (0)
	QP_BAD(send_cq, NULL);
	QP_BAD(recv_cq, NULL);
	QP_BAD(recv_cq, &cq_other);             /* another device's CQ */
	QP_BAD(sq_depth, 0);
	QP_BAD(sq_depth, 1025);                 /* > max_qp_wr */
	QP_BAD(rq_depth, 1025);
	QP_BAD(max_send_sge, 17);               /* > max_sge */
	QP_BAD(max_recv_sge, 17);
	QP_BAD(max_inline, 221);                /* > max_inline */
	QP_BAD(sig_interval, 65);               /* > sq_depth */
#undef QP_BAD
	CU_ASSERT_PTR_NULL(rdx_qp_create(&dev, NULL));
	CU_ASSERT_EQUAL(stub_qp_creates, 0);
	/* the limits themselves are fine */
	qc = ok;
	qc.sq_depth = 1024;
	qc.rq_depth = 1024;
	qc.max_send_sge = 16;
	qc.max_recv_sge = 16;
	qc.max_inline = 220;
	qc.sig_interval = 1024;
	CU_ASSERT_PTR_EQUAL(rdx_qp_create(&dev, &qc), &stub_qp);
	CU_ASSERT_EQUAL(stub_qp_creates, 1);
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

/* UD: the type and Q_Key checks, refused without max_ud_msg (a driver
 * without UD), the AH wrappers, connect with and without a remote. */
static int stub_ah_creates;
static struct rdx_ah stub_ah;
static struct rdx_ah_attr stub_ah_seen;

static struct rdx_ah *
stub_ah_create(struct rdx_dev *dev, const struct rdx_ah_attr *attr)
{
	stub_ah_creates++;
	stub_ah_seen = *attr;
	stub_ah.dev = dev;
	stub_ah.attr = *attr;
	return &stub_ah;
}

static int
stub_ah_destroy(struct rdx_ah *ah)
{
	return ah == &stub_ah ? 0 : -EINVAL;
}

static int stub_connects;

static int
stub_qp_connect(struct rdx_qp *qp, const struct rdx_qp_info *remote,
		const struct rdx_qp_conn_attr *attr)
{
	(void)qp;
	(void)attr;
	stub_connects++;
	return remote == NULL ? 0 : 1;
}

static const struct rdx_dev_ops stub_ud_ops = {
	.cq_create = stub_cq_create,
	.qp_create = stub_qp_create,
	.qp_connect = stub_qp_connect,
	.ah_create = stub_ah_create,
	.ah_destroy = stub_ah_destroy,
};

static void
test_ud_checks(void)
{
	struct rdx_dev dev = { .ops = &stub_ud_ops }, noud = { .ops = &stub_qp_ops };
	struct rdx_cq cq = { .dev = &dev }, cq_noud = { .dev = &noud };
	struct rdx_qp_conf ud = {
		.send_cq = &cq, .recv_cq = &cq, .sq_depth = 64, .rq_depth = 64,
		.max_send_sge = 1, .max_recv_sge = 1, .max_inline = 64, .type = RDX_QP_UD,
		.qkey = 0x11111111,
	};
	struct rdx_qp_conf qc;
	struct rdx_ah_attr aa = {0};
	struct rdx_qp_info peer = {0};
	struct rdx_qp qp = { .dev = &dev };

	snprintf(dev.attr.name, sizeof(dev.attr.name), "stub0");
	snprintf(dev.attr.driver, sizeof(dev.attr.driver), "stub");
	dev.attr.max_qp_wr = 1024;
	dev.attr.max_sge = 16;
	dev.attr.max_inline = 220;
	dev.attr.max_ud_msg = 1024;
	dev.attr.link_layer = IBV_LINK_LAYER_INFINIBAND;
	noud.attr = dev.attr;
	noud.attr.max_ud_msg = 0;
	stub_qp_creates = 0;
	CU_ASSERT_PTR_EQUAL(rdx_qp_create(&dev, &ud), &stub_qp);
	CU_ASSERT_EQUAL(stub_qp_creates, 1);
	qc = ud;
	qc.type = 2;                            /* no such type */
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(rdx_qp_create(&dev, &qc));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	qc = ud;
	qc.qkey = 0x80000000u;                  /* controlled Q_Key */
	CU_ASSERT_PTR_NULL(rdx_qp_create(&dev, &qc));
	qc = ud;
	qc.type = RDX_QP_RC;                    /* a Q_Key on RC */
	CU_ASSERT_PTR_NULL(rdx_qp_create(&dev, &qc));
	qc = ud;
	dev.attr.max_ud_msg = 32;               /* inline above the UD message limit */
	CU_ASSERT_PTR_NULL(rdx_qp_create(&dev, &qc));
	dev.attr.max_ud_msg = 1024;
	qc = ud;
	qc.send_cq = qc.recv_cq = &cq_noud;     /* a driver without UD */
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(rdx_qp_create(&noud, &qc));
	CU_ASSERT_EQUAL(rte_errno, ENOTSUP);
	CU_ASSERT_EQUAL(stub_qp_creates, 1);

	/* AH: a driver without the op; attribute ranges; defaults filled in */
	aa.lid = 7;
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(rdx_ah_create(&noud, &aa));
	CU_ASSERT_EQUAL(rte_errno, ENOTSUP);
	aa.sl = 16;
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(rdx_ah_create(&dev, &aa));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	aa.sl = 0;
	aa.lid = 0;                             /* IB without LID nor GRH */
	CU_ASSERT_PTR_NULL(rdx_ah_create(&dev, &aa));
	aa.lid = 7;
	aa.flow_label = 1u << 20;
	CU_ASSERT_PTR_NULL(rdx_ah_create(&dev, &aa));
	aa.flow_label = 0;
	dev.attr.link_layer = IBV_LINK_LAYER_ETHERNET;  /* RoCE needs a GRH */
	CU_ASSERT_PTR_NULL(rdx_ah_create(&dev, &aa));
	CU_ASSERT_EQUAL(stub_ah_creates, 0);
	peer.lid = 7;
	peer.gid[15] = 9;
	CU_ASSERT_EQUAL(rdx_ah_attr_from_info(&dev, &peer, &aa), 0);
	CU_ASSERT_EQUAL(aa.is_global, 1);
	CU_ASSERT_EQUAL(aa.gid[15], 9);
	CU_ASSERT_EQUAL(aa.sgid_index, -1);
	CU_ASSERT_PTR_EQUAL(rdx_ah_create(&dev, &aa), &stub_ah);
	CU_ASSERT_EQUAL(stub_ah_seen.port, 1);
	CU_ASSERT_EQUAL(stub_ah_seen.hop_limit, 64);
	CU_ASSERT_EQUAL(rdx_ah_destroy(&stub_ah), 0);
	CU_ASSERT_EQUAL(rdx_ah_destroy(NULL), 0);
	dev.attr.link_layer = IBV_LINK_LAYER_INFINIBAND;
	CU_ASSERT_EQUAL(rdx_ah_attr_from_info(&dev, &peer, &aa), 0);
	CU_ASSERT_EQUAL(aa.is_global, 0);
	CU_ASSERT_EQUAL(aa.lid, 7);

	/* connect: UD takes no remote, RC needs one */
	stub_connects = 0;
	qp.conf.type = RDX_QP_UD;
	CU_ASSERT_EQUAL(rdx_qp_connect(&qp, NULL, NULL), 0);
	CU_ASSERT_EQUAL(rdx_qp_connect(&qp, &peer, NULL), -EINVAL);
	qp.conf.type = RDX_QP_RC;
	CU_ASSERT_EQUAL(rdx_qp_connect(&qp, NULL, NULL), -EINVAL);
	CU_ASSERT_EQUAL(stub_connects, 1);
}

/* The WR keeps one cache line with both RC and UD fields. */
static void
test_wr_layout(void)
{
	struct rdx_wr wr = {0};

	CU_ASSERT(sizeof(struct rdx_wr) <= 64);
	CU_ASSERT_EQUAL(offsetof(struct rdx_wr, ah), offsetof(struct rdx_wr, remote_addr));
	CU_ASSERT(offsetof(struct rdx_wr, remote_qkey) + 4 <= offsetof(struct rdx_wr, rkey));
	wr.remote_qpn = 0x123456;
	CU_ASSERT_EQUAL(wr.remote_qpn, 0x123456u);
	CU_ASSERT_EQUAL(RDX_UD_GRH_BYTES, 40u);
	CU_ASSERT_PTR_EQUAL(rdx_ud_payload(&wr), (uint8_t *)&wr + 40);
}

/* The registry of live QPs as the wrappers keep it, on a driver without
 * per-QP counters: create lists, a failed destroy keeps, destroy unlists,
 * connect marks; the counters are -ENOTSUP. */
static int stub_destroy_ret;
static struct rdx_qp reg_qp;

static struct rdx_qp *
reg_qp_create(struct rdx_dev *dev, const struct rdx_qp_conf *conf)
{
	reg_qp = (struct rdx_qp){ .dev = dev, .qp_num = 77, .conf = *conf };
	return &reg_qp;
}

static int
reg_qp_destroy(struct rdx_qp *qp)
{
	(void)qp;
	return stub_destroy_ret;
}

static int
reg_qp_connect(struct rdx_qp *qp, const struct rdx_qp_info *remote,
	       const struct rdx_qp_conn_attr *attr)
{
	(void)qp;
	(void)remote;
	(void)attr;
	return 0;
}

static const struct rdx_dev_ops reg_ops = {
	.qp_create = reg_qp_create,
	.qp_destroy = reg_qp_destroy,
	.qp_connect = reg_qp_connect,
};

static void
test_qp_registry(void)
{
	static struct rdx_dev dev = { .ops = &reg_ops };
	struct rdx_cq cq = { .dev = &dev };
	struct rdx_qp_conf qc = { .send_cq = &cq, .recv_cq = &cq, .sq_depth = 8 };
	struct rdx_qp_info peer = {0};
	struct rdx_dev_xstat xs[4];
	struct rdx_qp *qp;

	dev.attr.max_qp_wr = 64;
	snprintf(dev.attr.driver, sizeof(dev.attr.driver), "stub");
	snprintf(peer.driver, sizeof(peer.driver), "stub");
	qp = rdx_qp_create(&dev, &qc);
	CU_ASSERT_PTR_EQUAL_FATAL(qp, &reg_qp);
	CU_ASSERT_EQUAL(rdx_qp_count(&dev), 1);
	CU_ASSERT_EQUAL(rdx_qp_state_get(qp), RDX_QP_STATE_RESET);
	CU_ASSERT_EQUAL(rdx_qp_connect(qp, &peer, NULL), 0);
	/* connected; no counters to show an error */
	CU_ASSERT_EQUAL(rdx_qp_state_get(qp), RDX_QP_STATE_RTS);
	CU_ASSERT_EQUAL(rdx_qp_xstats_get(qp, NULL, 0), -ENOTSUP);
	CU_ASSERT_EQUAL(rdx_qp_xstats_get(qp, xs, 4), -ENOTSUP);
	CU_ASSERT_EQUAL(rdx_qp_xstats_reset(qp), -ENOTSUP);
	/* the driver refuses the destroy: still listed */
	stub_destroy_ret = -EBUSY;
	CU_ASSERT_EQUAL(rdx_qp_destroy(qp), -EBUSY);
	CU_ASSERT_EQUAL(rdx_qp_count(&dev), 1);
	stub_destroy_ret = 0;
	CU_ASSERT_EQUAL(rdx_qp_destroy(qp), 0);
	CU_ASSERT_EQUAL(rdx_qp_count(&dev), 0);
	CU_ASSERT_EQUAL(rdx_qp_state_get(qp), -ENOENT);
}

/* A stub driver's CQ: a full poll that writes every field, and (with lean)
 * a lean poll of its own that says which it was. */
static unsigned int full_polls, lean_polls;

static uint16_t
stub_poll_full(struct rdx_cq *cq, struct rdx_wc *wc, uint16_t n)
{
	(void)cq;
	full_polls++;
	if (n == 0)
		return 0;
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = 77;
	wc->retired = 1;
	wc->opcode = RDX_WC_WRITE;
	wc->byte_len = 5;
	return 1;
}

static uint16_t
stub_poll_lean(struct rdx_cq *cq, struct rdx_wc *wc, uint16_t n)
{
	(void)cq;
	lean_polls++;
	if (n == 0)
		return 0;
	wc->wr_id = 78;
	wc->retired = 1;
	wc->status = 0;
	wc->opcode = RDX_WC_WRITE;
	return 1;
}

static struct rdx_cq poll_cq;
static bool poll_cq_lean;

static struct rdx_cq *
stub_poll_cq_create(struct rdx_dev *dev, const struct rdx_cq_conf *conf)
{
	(void)conf;
	memset(&poll_cq, 0, sizeof(poll_cq));
	poll_cq.dev = dev;
	poll_cq.poll_burst = stub_poll_full;
	if (poll_cq_lean)
		poll_cq.poll_req_burst = stub_poll_lean;
	return &poll_cq;
}

static const struct rdx_dev_ops stub_poll_ops = {
	.cq_create = stub_poll_cq_create,
};

/* rdx_cq_poll_req_burst: a driver without the op gets its full poll (every
 * field written), one with it its own; rdx_cq_poll_burst is the full poll
 * either way. */
static void
test_poll_req_fallback(void)
{
	struct rdx_dev dev = { .ops = &stub_poll_ops };
	struct rdx_wc wc;
	struct rdx_cq *cq;

	poll_cq_lean = false;
	full_polls = lean_polls = 0;
	cq = rdx_cq_create(&dev, &(struct rdx_cq_conf){ .depth = 16 });
	CU_ASSERT_PTR_EQUAL_FATAL(cq, &poll_cq);
	CU_ASSERT(cq->poll_req_burst == stub_poll_full);
	memset(&wc, 0xa5, sizeof(wc));
	CU_ASSERT_EQUAL(rdx_cq_poll_req_burst(cq, &wc, 1), 1);
	CU_ASSERT_EQUAL(full_polls, 1);
	CU_ASSERT_EQUAL(lean_polls, 0);
	CU_ASSERT_EQUAL(wc.wr_id, 77);
	CU_ASSERT_EQUAL(wc.byte_len, 5);   /* the full poll's fields too */
	CU_ASSERT_PTR_NULL(wc.qp_ctx);
	CU_ASSERT_EQUAL(rdx_cq_poll_req_burst(cq, &wc, 0), 0);
	CU_ASSERT_EQUAL(full_polls, 2);

	poll_cq_lean = true;
	full_polls = lean_polls = 0;
	cq = rdx_cq_create(&dev, &(struct rdx_cq_conf){ .depth = 16 });
	CU_ASSERT_PTR_EQUAL_FATAL(cq, &poll_cq);
	CU_ASSERT(cq->poll_req_burst == stub_poll_lean);
	CU_ASSERT(cq->poll_burst == stub_poll_full);
	CU_ASSERT_EQUAL(rdx_cq_poll_req_burst(cq, &wc, 1), 1);
	CU_ASSERT_EQUAL(wc.wr_id, 78);
	CU_ASSERT_EQUAL(lean_polls, 1);
	CU_ASSERT_EQUAL(rdx_cq_poll_burst(cq, &wc, 1), 1);
	CU_ASSERT_EQUAL(wc.wr_id, 77);
	CU_ASSERT_EQUAL(full_polls, 1);
	CU_ASSERT_EQUAL(lean_polls, 1);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "memory type names", test_mem_type_names },
		{ "op, opcode and status names", test_names },
		{ "control-path wrapper checks", test_wrapper_checks },
		{ "QP configuration checks", test_qp_conf_checks },
		{ "the deepest SQ for a QP's SGEs and inline size", test_sq_depth_max },
		{ "connect rejects a peer of another driver", test_connect_rejects_other_driver },
		{ "UD QP, AH and connect checks", test_ud_checks },
		{ "WR layout (RC and UD fields)", test_wr_layout },
		{ "the registry of live QPs (no counters)", test_qp_registry },
		{ "requester poll: the full poll when the driver has no lean one",
		  test_poll_req_fallback },
		{ NULL, NULL },
	};

	return rdx_ut_run("rdx_dev_obj", cases, NULL, NULL);
}
