/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The self-check's WQE comparison (drivers/mlx5/mlx5_sc_wqe.c) and its
 * libmlx5 reference (mlx5_sc_hw.c) without a NIC: rdx's QP is the fake
 * device of mlx5_ut_fake.h (rings in plain memory), and libmlx5 is a fake
 * struct ibv_qp_ex whose wr_* entries build each WQE here, by libmlx5's
 * rules, into a small ring of their own (which fills up: the reference must
 * reset it and go on). Each check must pass on the datapath as it is, and
 * fail naming the field when one byte is wrong on either side.
 */
#include "mlx5_ut_fake.h"
#include "../../../drivers/mlx5/mlx5_sc_wqe.c"
#include "../../../drivers/mlx5/mlx5_sc_hw.c"

/* lib/dev calls the check makes (the fake device is no lib/dev device). */
const struct rdx_dev_attr *
rdx_dev_attr_get(const struct rdx_dev *dev)
{
	return &dev->attr;
}

const char *
rdx_op_name(enum rdx_op op)
{
	static const char *const n[] = { "NOP", "SEND", "SEND_IMM", "RDMA_WRITE",
					 "RDMA_WRITE_IMM", "RDMA_READ", "CAS", "FAA" };

	return op < RDX_OP_MAX ? n[op] : "UNKNOWN";
}

/* ---- a fake libmlx5 QP ---- */

#define FL_BB 32u                 /* its ring, WQEBBs */
#define FL_MAX_POST 6u            /* WQEs before ENOMEM (nothing completes) */
#define FL_QPN 0x4455u

struct fake_lib {
	struct ibv_qp_ex qpx;     /* must be first */
	uint8_t ring[FL_BB * 64];
	uint32_t cur_post;
	uint32_t posted;
	uint32_t resets;
	uint8_t wqe[RDX_MLX5_SC_WQE_MAX];
	uint32_t len;
	uint8_t opcode;
	__be32 imm;
	bool atomic;
	uint8_t fence_bit;        /* what IBV_SEND_FENCE becomes */
	struct mlx5_wqe_av av;    /* the AV of its one AH */
	struct ibv_ah ah;
};

static struct fake_lib *fl;

static struct fake_lib *
fl_of(struct ibv_qp_ex *q)
{
	return (struct fake_lib *)(void *)q;
}

static void
fl_start(struct ibv_qp_ex *q)
{
	fl_of(q)->len = 16;
	fl_of(q)->atomic = false;
	fl_of(q)->imm = 0;
	memset(fl_of(q)->wqe, 0, sizeof(fl_of(q)->wqe));
}

static void
fl_raddr(struct fake_lib *l, uint32_t rkey, uint64_t raddr)
{
	l->len += exp_raddr(l->wqe + l->len, raddr, rkey);
}

static void
fl_send(struct ibv_qp_ex *q)
{
	fl_of(q)->opcode = MLX5_OPCODE_SEND;
}

static void
fl_send_imm(struct ibv_qp_ex *q, __be32 imm)
{
	fl_of(q)->opcode = MLX5_OPCODE_SEND_IMM;
	fl_of(q)->imm = imm;
}

static void
fl_write(struct ibv_qp_ex *q, uint32_t rkey, uint64_t raddr)
{
	fl_of(q)->opcode = MLX5_OPCODE_RDMA_WRITE;
	fl_raddr(fl_of(q), rkey, raddr);
}

static void
fl_write_imm(struct ibv_qp_ex *q, uint32_t rkey, uint64_t raddr, __be32 imm)
{
	fl_of(q)->opcode = MLX5_OPCODE_RDMA_WRITE_IMM;
	fl_of(q)->imm = imm;
	fl_raddr(fl_of(q), rkey, raddr);
}

static void
fl_read(struct ibv_qp_ex *q, uint32_t rkey, uint64_t raddr)
{
	fl_of(q)->opcode = MLX5_OPCODE_RDMA_READ;
	fl_raddr(fl_of(q), rkey, raddr);
}

static void
fl_atomic(struct fake_lib *l, uint8_t op, uint32_t rkey, uint64_t raddr, uint64_t swap_add,
	  uint64_t compare)
{
	struct mlx5_wqe_atomic_seg a = { .swap_add = htobe64(swap_add),
					 .compare = htobe64(compare) };

	l->opcode = op;
	l->atomic = true;
	fl_raddr(l, rkey, raddr);
	memcpy(l->wqe + l->len, &a, sizeof(a));
	l->len += 16;
}

static void
fl_cas(struct ibv_qp_ex *q, uint32_t rkey, uint64_t raddr, uint64_t compare, uint64_t swap)
{
	fl_atomic(fl_of(q), MLX5_OPCODE_ATOMIC_CS, rkey, raddr, swap, compare);
}

static void
fl_faa(struct ibv_qp_ex *q, uint32_t rkey, uint64_t raddr, uint64_t add)
{
	fl_atomic(fl_of(q), MLX5_OPCODE_ATOMIC_FA, rkey, raddr, add, 0);
}

static void
fl_ud_addr(struct ibv_qp_ex *q, struct ibv_ah *ah, uint32_t qpn, uint32_t qkey)
{
	struct fake_lib *l = fl_of(q);

	CU_ASSERT(ah == &l->ah);
	l->len += exp_dgram(l->wqe + l->len, &l->av, qpn, qkey);
}

static void
fl_sge_list(struct ibv_qp_ex *q, size_t n, const struct ibv_sge *sge)
{
	struct fake_lib *l = fl_of(q);
	size_t j;

	for (j = 0; j < n; j++) {
		/* atomics: always 8 bytes (set_data_ptr_seg_atomic); else
		 * zero-length SGEs are skipped */
		if (l->atomic) {
			l->len += exp_data(l->wqe + l->len, 8, sge[j].lkey, sge[j].addr);
			continue;
		}
		if (sge[j].length != 0)
			l->len += exp_data(l->wqe + l->len, sge[j].length, sge[j].lkey, sge[j].addr);
	}
}

static void
fl_inline_list(struct ibv_qp_ex *q, size_t n, const struct ibv_data_buf *b)
{
	struct fake_lib *l = fl_of(q);
	uint8_t data[RDX_MLX5_SC_WQE_MAX];
	uint32_t total = 0;
	size_t j;

	for (j = 0; j < n; j++) {
		memcpy(data + total, b[j].addr, b[j].length);
		total += (uint32_t)b[j].length;
	}
	if (total != 0)
		l->len += exp_inline(l->wqe + l->len, data, total);
}

static int
fl_complete(struct ibv_qp_ex *q)
{
	struct fake_lib *l = fl_of(q);
	struct mlx5_wqe_ctrl_seg *c = (struct mlx5_wqe_ctrl_seg *)(void *)l->wqe;
	uint8_t fm = 0;
	uint32_t k;

	if (l->posted >= FL_MAX_POST)
		return ENOMEM;
	if (q->wr_flags & IBV_SEND_SIGNALED)
		fm |= MLX5_WQE_CTRL_CQ_UPDATE;
	if (q->wr_flags & IBV_SEND_SOLICITED)
		fm |= MLX5_WQE_CTRL_SOLICITED;
	if (q->wr_flags & IBV_SEND_FENCE)
		fm |= l->fence_bit;
	mlx5dv_set_ctrl_seg(c, (uint16_t)l->cur_post, l->opcode, 0, FL_QPN, fm,
			    (uint8_t)(l->len / 16), 0, l->imm);
	for (k = 0; k < l->len; k++)
		l->ring[(l->cur_post * 64 + k) % sizeof(l->ring)] = l->wqe[k];
	l->cur_post += (l->len + 63) / 64;
	l->posted++;
	return 0;
}

static void
fl_abort(struct ibv_qp_ex *q)
{
	(void)q;
}

/* A reset that makes a new QP (when RESET is refused): another fake with
 * its own ring, which the reference must post to from then on. */
static int
fl_reset_new(struct rdx_mlx5_sc_libmlx5 *lib)
{
	struct fake_lib *old = lib->drv, *n = old == &fl[0] ? &fl[1] : &fl[0];

	memcpy(n, old, sizeof(*n));
	memset(n->ring, 0, sizeof(n->ring));
	memset(old->ring, 0xee, sizeof(old->ring));
	n->cur_post = 0;
	n->posted = 0;
	n->resets++;
	lib->qpx = &n->qpx;
	lib->sq_buf = n->ring;
	lib->drv = n;
	return 0;
}

static int
fl_reset(struct rdx_mlx5_sc_libmlx5 *lib)
{
	struct fake_lib *l = lib->drv;

	l->cur_post = 0;
	l->posted = 0;
	l->resets++;
	return 0;
}

static void
fl_init(struct rdx_mlx5_sc_libmlx5 *lib, bool ud, const struct mlx5_wqe_av *av)
{
	memset(fl, 0, sizeof(*fl));
	fl->qpx.wr_start = fl_start;
	fl->qpx.wr_complete = fl_complete;
	fl->qpx.wr_abort = fl_abort;
	fl->qpx.wr_send = fl_send;
	fl->qpx.wr_send_imm = fl_send_imm;
	fl->qpx.wr_rdma_write = fl_write;
	fl->qpx.wr_rdma_write_imm = fl_write_imm;
	fl->qpx.wr_rdma_read = fl_read;
	fl->qpx.wr_atomic_cmp_swp = fl_cas;
	fl->qpx.wr_atomic_fetch_add = fl_faa;
	fl->qpx.wr_set_ud_addr = fl_ud_addr;
	fl->qpx.wr_set_sge_list = fl_sge_list;
	fl->qpx.wr_set_inline_data_list = fl_inline_list;
	fl->fence_bit = MLX5_WQE_CTRL_FENCE;
	if (av != NULL)
		fl->av = *av;
	memset(lib, 0, sizeof(*lib));
	lib->qpx = &fl->qpx;
	lib->sq_buf = fl->ring;
	lib->sq_wqe_cnt = FL_BB;
	lib->ah = ud ? &fl->ah : NULL;
	lib->reset = fl_reset;
	lib->drv = fl;
}

/* ---- the check's configuration on the fake device ---- */

static struct rdx_mlx5_ah sc_ah;
static struct mlx5_wqe_av sc_av;

static const struct qp_opts sc_opts = {
	.sq_bb = 64, .rq_cnt = 8, .max_inline = 220, .max_send_sge = 16,
	.max_recv_sge = 1, .sig_interval = 64, .bf_size = BF_HALF, .cqe_cnt = 16,
	.cqe_size = 64,
};

static void
sc_setup(bool ud, struct rdx_mlx5_sc_wqe_conf *c)
{
	struct qp_opts o = sc_opts;
	unsigned int k;

	o.ud = ud;
	snprintf(fake_dev.attr.driver, sizeof(fake_dev.attr.driver), "sw");
	fake_setup(&o);
	memset(c, 0, sizeof(*c));
	c->max_inline = ud ? UD_MTU - 64 : 220;
	c->max_send_sge = 16;
	c->payload = pay;
	c->laddr = 0x7000000000ull;
	c->payload_len = sizeof(pay);
	c->lkey = 0x1234;
	c->raddr = 0x9000000000ull;
	c->rkey = 0xabcd;
	c->inject_byte = -1;
	if (!ud)
		return;
	/* an AV as libmlx5 has it (rdx_mlx5_ah_init keeps it as a template) */
	memset(&sc_av, 0, sizeof(sc_av));
	sc_av.stat_rate_sl = 0x03;
	sc_av.fl_mlid = 0x80;
	sc_av.rlid = htobe16(0x21);
	for (k = 0; k < 6; k++)
		sc_av.rmac[k] = (uint8_t)(0xb0 + k);
	sc_av.hop_limit = 64;
	sc_av.grh_gid_fl = htobe32(0x03000000u);
	for (k = 0; k < 16; k++)
		sc_av.rgid[k] = (uint8_t)(k * 17 + 1);
	memset(&sc_ah, 0, sizeof(sc_ah));
	sc_ah.base.dev = &fake_dev;
	rdx_mlx5_ah_init(&sc_ah, &sc_av);
	c->ah = &sc_ah.base;
	c->max_ud_msg = UD_MTU;
	c->remote_qpn = 0xfe012345u;      /* bits 31..24 are dropped */
	c->remote_qkey = 0x80010002u;
}

/* ---- cases ---- */

static void
check_model(bool ud)
{
	struct rdx_mlx5_sc_model model = { .ud = ud };
	struct rdx_mlx5_sc_wqe_report rep;
	struct rdx_mlx5_sc_wqe_conf c;

	sc_setup(ud, &c);
	CU_ASSERT_FATAL(rdx_mlx5_sc_wqe_check(qp(), &c, rdx_mlx5_sc_ref_model, &model, &rep) == 0);
	if (rep.failed != 0)
		fprintf(stderr, "%s: %s (byte %u) rdx 0x%" PRIx64 " ref 0x%" PRIx64 "\n",
			rep.diffs[0].shape, rep.diffs[0].field, rep.diffs[0].off,
			rep.diffs[0].rdx, rep.diffs[0].ref);
	CU_ASSERT(rep.failed == 0);
	CU_ASSERT(rep.skipped == 0);
	/* every inline size of each payload opcode at least */
	CU_ASSERT(rep.passed > (ud ? 2u : 4u) * (c.max_inline + 1));
	CU_ASSERT(rep.fields > 10u * rep.passed);
	/* the ring is left empty */
	CU_ASSERT(f->qp.sq_head == f->qp.sq_tail);
	fake_teardown();
}

static void
test_model_rc(void)
{
	check_model(false);
}

static void
test_model_ud(void)
{
	check_model(true);
}

/* The test-only hook: a flipped byte fails every WQE that long, named. */
static void
test_inject(void)
{
	static const struct { int byte; bool ud; const char *field; } t[] = {
		{ 3, false, "ctrl.opcode" }, { 7, false, "ctrl.ds" },
		{ 11, false, "ctrl.fm_ce_se" }, { 12, false, "ctrl.imm" },
		/* QPN and WQE index: must differ, never compared */
		{ 1, false, NULL }, { 5, false, NULL }, { 8, false, NULL },
		{ 24, false, "inline.data" }, { 44, true, "av.grh_gid_fl" },
		{ 40, true, "av.rmac" },
	};
	struct rdx_mlx5_sc_model model;
	struct rdx_mlx5_sc_wqe_report rep;
	struct rdx_mlx5_sc_wqe_conf c;
	unsigned int i, k;
	bool seen;

	for (i = 0; i < RTE_DIM(t); i++) {
		model.ud = t[i].ud;
		sc_setup(t[i].ud, &c);
		c.inject_byte = t[i].byte;
		CU_ASSERT_FATAL(rdx_mlx5_sc_wqe_check(qp(), &c, rdx_mlx5_sc_ref_model, &model,
						      &rep) == 0);
		if (t[i].field == NULL) {
			CU_ASSERT(rep.failed == 0);
		} else {
			CU_ASSERT(rep.failed > 0);
			CU_ASSERT(rep.nb_diffs > 0);
			/* a field of that name among the first differences */
			for (k = 0, seen = false; k < rep.nb_diffs; k++)
				seen |= strncmp(rep.diffs[k].field, t[i].field,
						strlen(t[i].field)) == 0;
			if (!seen)
				fprintf(stderr, "byte %d: first field %s, want %s\n", t[i].byte,
					rep.diffs[0].field, t[i].field);
			CU_ASSERT(seen);
		}
		fake_teardown();
	}
}

/* The comparison alone: each field by name. */
static void
test_cmp_fields(void)
{
	struct rdx_mlx5_sc_model model = { .ud = false };
	static uint8_t a[RDX_MLX5_SC_WQE_MAX], b[RDX_MLX5_SC_WQE_MAX];
	struct rdx_sge sge[3] = { { 0x1000, 64, 7 }, { 0x2000, 0, 8 }, { 0x3000, 16, 9 } };
	struct rdx_wr wr = { .sge = sge, .num_sge = 3, .opcode = RDX_OP_WRITE,
			     .remote_addr = 0x55, .rkey = 0x66 };
	struct rdx_mlx5_sc_diff d;
	int len;

	memset(a, 0, sizeof(a));
	len = rdx_mlx5_sc_ref_model(&model, &wr, a);
	CU_ASSERT_FATAL(len == 16 + 16 + 2 * 16); /* the zero-length SGE skipped */
	memcpy(b, a, sizeof(b));
	CU_ASSERT(rdx_mlx5_sc_wqe_cmp(&wr, false, a, b, (uint32_t)len, &d) > 0);
	CU_ASSERT(d.field[0] == '\0');
	/* the second data segment (sge[2]) holds its lkey at bytes 52..55 */
	b[55] ^= 1;
	rdx_mlx5_sc_wqe_cmp(&wr, false, a, b, (uint32_t)len, &d);
	CU_ASSERT(strcmp(d.field, "sge[2].lkey") == 0);
	CU_ASSERT(d.off == 52 && d.rdx == 9 && d.ref == 8);
	b[55] ^= 1;
	/* a byte past the WQE */
	b[len + 3] = 1;
	rdx_mlx5_sc_wqe_cmp(&wr, false, a, b, (uint32_t)len, &d);
	CU_ASSERT(strcmp(d.field, "past_end[3]") == 0);
	b[len + 3] = 0;
	/* the QPN, WQE index and signature are skipped */
	b[1] = b[2] = b[4] = b[5] = b[6] = b[8] = 0xee;
	rdx_mlx5_sc_wqe_cmp(&wr, false, a, b, (uint32_t)len, &d);
	CU_ASSERT(d.field[0] == '\0');
}

/* libmlx5's reference through a fake provider: equal WQEs, its ring reset
 * when full, NOPs skipped (no ibv_wr_* for them). */
static void
check_libmlx5(bool ud)
{
	struct rdx_mlx5_sc_libmlx5 lib;
	struct rdx_mlx5_sc_wqe_report rep;
	struct rdx_mlx5_sc_wqe_conf c;

	sc_setup(ud, &c);
	fl_init(&lib, ud, &sc_av);
	CU_ASSERT_FATAL(rdx_mlx5_sc_wqe_check(qp(), &c, rdx_mlx5_sc_ref_libmlx5, &lib, &rep) == 0);
	if (rep.failed != 0)
		fprintf(stderr, "%s: %s (byte %u) rdx 0x%" PRIx64 " ref 0x%" PRIx64 "\n",
			rep.diffs[0].shape, rep.diffs[0].field, rep.diffs[0].off,
			rep.diffs[0].rdx, rep.diffs[0].ref);
	CU_ASSERT(rep.failed == 0);
	CU_ASSERT(rep.passed > 2u * c.max_inline);
	CU_ASSERT(rep.skipped > 0);
	CU_ASSERT(fl->resets > rep.passed / FL_MAX_POST / 2);
	fake_teardown();
}

static void
test_libmlx5_rc(void)
{
	check_libmlx5(false);
}

static void
test_libmlx5_ud(void)
{
	check_libmlx5(true);
}

/* The same when each reset makes a new QP: the reference follows it. */
static void
test_libmlx5_new_qp(void)
{
	struct rdx_mlx5_sc_libmlx5 lib;
	struct rdx_mlx5_sc_wqe_report rep;
	struct rdx_mlx5_sc_wqe_conf c;
	struct fake_lib *last;

	sc_setup(false, &c);
	fl_init(&lib, false, NULL);
	lib.reset = fl_reset_new;
	CU_ASSERT_FATAL(rdx_mlx5_sc_wqe_check(qp(), &c, rdx_mlx5_sc_ref_libmlx5, &lib, &rep) == 0);
	last = lib.drv;
	CU_ASSERT(rep.failed == 0);
	CU_ASSERT(rep.passed > 2u * c.max_inline);
	CU_ASSERT(last->resets > rep.passed / FL_MAX_POST / 2);
	fake_teardown();
}

/* A provider that encodes IBV_SEND_FENCE otherwise: only the fenced WQEs
 * fail, on ctrl.fm_ce_se. */
static void
test_libmlx5_differs(void)
{
	struct rdx_mlx5_sc_libmlx5 lib;
	struct rdx_mlx5_sc_wqe_report rep;
	struct rdx_mlx5_sc_wqe_conf c;
	unsigned int k;

	sc_setup(false, &c);
	fl_init(&lib, false, NULL);
	fl->fence_bit = MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE;
	CU_ASSERT_FATAL(rdx_mlx5_sc_wqe_check(qp(), &c, rdx_mlx5_sc_ref_libmlx5, &lib, &rep) == 0);
	CU_ASSERT(rep.failed > 0);
	CU_ASSERT(rep.passed > 2u * c.max_inline);
	CU_ASSERT(rep.nb_diffs > 0);
	for (k = 0; k < rep.nb_diffs; k++) {
		CU_ASSERT(strcmp(rep.diffs[k].field, "ctrl.fm_ce_se") == 0);
		CU_ASSERT(strstr(rep.diffs[k].shape, "fence") != NULL);
	}
	fake_teardown();
}

/* A QP the check cannot use is refused with a reason. */
static void
test_bad_conf(void)
{
	struct rdx_mlx5_sc_model model = { .ud = false };
	struct rdx_mlx5_sc_wqe_report rep;
	struct rdx_mlx5_sc_wqe_conf c;

	sc_setup(false, &c);
	f->qp.base.conf.sig_interval = 1;
	CU_ASSERT(rdx_mlx5_sc_wqe_check(qp(), &c, rdx_mlx5_sc_ref_model, &model, &rep) == -EINVAL);
	CU_ASSERT(rep.error[0] != '\0');
	f->qp.base.conf.sig_interval = 64;
	snprintf(fake_dev.attr.driver, sizeof(fake_dev.attr.driver), "verbs");
	CU_ASSERT(rdx_mlx5_sc_wqe_check(qp(), &c, rdx_mlx5_sc_ref_model, &model, &rep) == -ENOTSUP);
	CU_ASSERT(strstr(rep.error, "needs an mlx5 device") != NULL);
	fake_teardown();
}

static int
sc_suite_init(void)
{
	fl = calloc(2, sizeof(*fl));   /* [1]: the QP a reset may make */
	return fl == NULL ? -1 : suite_init();
}

static int
sc_suite_fini(void)
{
	free(fl);
	return suite_fini();
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "RC WQEs against the model reference", test_model_rc },
		{ "UD WQEs against the model reference", test_model_ud },
		{ "a flipped byte fails and names its field", test_inject },
		{ "field names of the comparison", test_cmp_fields },
		{ "RC WQEs against a fake libmlx5", test_libmlx5_rc },
		{ "UD WQEs against a fake libmlx5", test_libmlx5_ud },
		{ "a reset that makes a new libmlx5 QP", test_libmlx5_new_qp },
		{ "a provider that differs is named", test_libmlx5_differs },
		{ "bad configurations are refused", test_bad_conf },
		{ NULL, NULL },
	};

	return rdx_ut_run("mlx5_sc", cases, sc_suite_init, sc_suite_fini);
}
