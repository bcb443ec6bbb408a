/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The completion check of one device: every op on a loopback RC pair and
 * SEND/SEND_IMM on a UD pair, each verified (the bytes that arrived, the
 * remote word of an atomic) and each completion's fields checked (status,
 * opcode, wr_id, byte_len, immediate, the UD sender); a provoked error (a
 * WRITE with a wrong rkey) must complete with IBV_WC_REM_ACCESS_ERR. On an
 * mlx5 NIC the same runs through the verbs driver (libmlx5) too and the
 * two sets of results must agree field by field (the error's vendor
 * syndrome included). rdx_wc has no wqe_counter: the CQE's is checked
 * through what it maps back to, the wr_id and the count it retires.
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rte_common.h>
#include <rte_errno.h>

#include "selfcheck.h"

#define SC_OFF_DST  8192u      /* WRITE target, RECV buffer on side 1 */
#define SC_OFF_READ 32768u     /* READ target on side 0 / source on side 1 */
#define SC_OFF_ATOM 49152u     /* atomic word on side 1, result on side 0 */

struct sc_op {
	const char *name;
	uint8_t op;
	uint32_t len;
	uint8_t flags;
	uint8_t want;              /* enum rdx_wc_opcode of the send completion */
	int want_recv;             /* enum rdx_wc_opcode of the receive, -1: none */
};

static const struct sc_op sc_rc_ops[] = {
	{ "WRITE", RDX_OP_WRITE, 4096, 0, RDX_WC_WRITE, -1 },
	{ "WRITE inline", RDX_OP_WRITE, 32, RDX_WR_INLINE, RDX_WC_WRITE, -1 },
	{ "WRITE_IMM", RDX_OP_WRITE_IMM, 1024, 0, RDX_WC_WRITE, RDX_WC_RECV_WRITE_IMM },
	{ "SEND", RDX_OP_SEND, 2048, 0, RDX_WC_SEND, RDX_WC_RECV },
	{ "SEND inline", RDX_OP_SEND, 48, RDX_WR_INLINE, RDX_WC_SEND, RDX_WC_RECV },
	{ "SEND_IMM", RDX_OP_SEND_IMM, 100, 0, RDX_WC_SEND, RDX_WC_RECV_IMM },
	{ "READ", RDX_OP_READ, 4096, 0, RDX_WC_READ, -1 },
	{ "CAS", RDX_OP_CAS, 8, 0, RDX_WC_CAS, -1 },
	{ "FAA", RDX_OP_FAA, 8, 0, RDX_WC_FAA, -1 },
};

static const struct sc_op sc_ud_ops[] = {
	{ "UD SEND", RDX_OP_SEND, 256, 0, RDX_WC_SEND, RDX_WC_RECV },
	{ "UD SEND inline", RDX_OP_SEND, 32, RDX_WR_INLINE, RDX_WC_SEND, RDX_WC_RECV },
	{ "UD SEND_IMM", RDX_OP_SEND_IMM, 64, 0, RDX_WC_SEND, RDX_WC_RECV_IMM },
};

#define SC_NB_RES (RTE_DIM(sc_rc_ops) + RTE_DIM(sc_ud_ops) + 1)

/* What one op gave: the fields both drivers must agree on. */
struct sc_res {
	const char *name;
	uint8_t status, opcode, rstatus, ropcode;
	uint32_t byte_len, rbyte_len, rimm;
	uint32_t vendor_err;
	bool got, rgot;
	bool atomic_be;            /* FAA added in big-endian order */
	bool ok;
	char why[96];
};

struct sc_cqe_run {
	struct sc_res res[SC_NB_RES];
	unsigned int nb;
	unsigned int failed;
};

static void
sc_pattern(uint8_t *p, uint32_t len, uint32_t seed)
{
	uint32_t k;

	for (k = 0; k < len; k++)
		p[k] = (uint8_t)(seed * 31u + k * 7u + 1u);
}

/* The first thing wrong with an op's result. */
static void __attribute__((format(printf, 2, 3)))
sc_bad(struct sc_res *r, const char *fmt, ...)
{
	va_list ap;

	if (!r->ok)
		return;
	r->ok = false;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
}

/* Run op o (k-th) on pair p and record what it gave. */
static void
sc_run_op(struct sc_pair *p, const struct sc_op *o, uint32_t k, struct sc_res *r)
{
	uint8_t *l = p->mem[0]->addr, *rm = p->mem[1]->addr;
	const bool ud = p->type == RDX_QP_UD;
	const uint32_t imm = htobe32(0x5c000000u | k);
	const uint32_t grh = ud ? RDX_UD_GRH_BYTES : 0;
	/* byte palindromes: the same value whether the device reads memory
	 * in host or in big-endian order (IBTA leaves atomics' byte order to
	 * the device: rxe uses host order, ConnectX may use big-endian) */
	const uint64_t old = 0x1122334444332211ull, swap = 0x5566778888776655ull, arg = 0x10u + k;
	struct rdx_sge sge;
	struct rdx_wr wr;
	struct rdx_wc wc;
	uint64_t word, res;

	memset(r, 0, sizeof(*r));
	r->name = o->name;
	r->ok = true;
	memset(rm, 0, SC_BUF);
	sc_pattern(l, o->len, k);
	sc_pattern(rm + SC_OFF_READ, o->len, k + 100);
	memset(l + SC_OFF_READ, 0, o->len);
	memcpy(rm + SC_OFF_ATOM, &old, 8);
	memset(l + SC_OFF_ATOM, 0, 8);
	if (o->want_recv >= 0 && sc_pair_recv(p, 1, 7000 + k, SC_OFF_DST, 8192) < 0) {
		sc_bad(r, "receive not posted");
		return;
	}
	memset(&wr, 0, sizeof(wr));
	memset(&sge, 0, sizeof(sge));
	wr.wr_id = 100 + k;
	wr.opcode = o->op;
	wr.flags = RDX_WR_SIGNALED | o->flags;
	wr.sge = &sge;
	wr.num_sge = 1;
	wr.imm = imm;
	sge.addr = (o->flags & RDX_WR_INLINE) ? (uintptr_t)l : p->mem[0]->iova;
	sge.length = o->len;
	sge.lkey = p->mem[0]->lkey;
	if (ud) {
		wr.ah = p->ah[1];
		wr.remote_qpn = p->info[1].qp_num;
		wr.remote_qkey = p->info[1].qkey;
	} else {
		wr.remote_addr = p->mem[1]->iova + SC_OFF_DST;
		wr.rkey = p->mem[1]->rkey;
	}
	if (o->op == RDX_OP_READ) {
		sge.addr = p->mem[0]->iova + SC_OFF_READ;
		wr.remote_addr = p->mem[1]->iova + SC_OFF_READ;
	} else if (o->op == RDX_OP_CAS || o->op == RDX_OP_FAA) {
		sge.addr = p->mem[0]->iova + SC_OFF_ATOM;
		wr.remote_addr = p->mem[1]->iova + SC_OFF_ATOM;
		wr.compare_add = o->op == RDX_OP_CAS ? old : arg;
		wr.swap = swap;
	}
	if (rdx_qp_post_burst(p->qp[0], &wr, 1) != 1) {
		sc_bad(r, "post refused");
		return;
	}
	if (sc_poll1(p->cq[0], &wc) != 1) {
		sc_bad(r, "no send completion in 2 s");
		return;
	}
	r->got = true;
	r->status = wc.status;
	r->opcode = wc.opcode;
	r->byte_len = (o->op == RDX_OP_READ || o->op == RDX_OP_CAS || o->op == RDX_OP_FAA) ?
		wc.byte_len : 0;
	r->vendor_err = wc.status != 0 ? wc.vendor_err : 0;
	if (wc.status != IBV_WC_SUCCESS)
		sc_bad(r, "send completion status %s (vendor 0x%x)",
		       rdx_wc_status_name(wc.status), wc.vendor_err);
	if (wc.opcode != o->want)
		sc_bad(r, "send completion opcode %s, want %s",
		       rdx_wc_opcode_name((enum rdx_wc_opcode)wc.opcode),
		       rdx_wc_opcode_name((enum rdx_wc_opcode)o->want));
	if (wc.wr_id != wr.wr_id || wc.retired != 1)
		sc_bad(r, "send completion wr_id %" PRIu64 " retired %u", wc.wr_id,
		       wc.retired);
	if (r->byte_len != 0 && r->byte_len != o->len)
		sc_bad(r, "send completion byte_len %u, want %u", r->byte_len, o->len);
	if (o->want_recv >= 0) {
		if (sc_poll1(p->cq[1], &wc) != 1) {
			sc_bad(r, "no receive completion in 2 s");
			return;
		}
		r->rgot = true;
		r->rstatus = wc.status;
		r->ropcode = wc.opcode;
		r->rbyte_len = wc.byte_len;
		r->rimm = (wc.opcode == RDX_WC_RECV) ? 0 : wc.imm;
		if (wc.status != IBV_WC_SUCCESS)
			sc_bad(r, "receive status %s (vendor 0x%x)",
			       rdx_wc_status_name(wc.status), wc.vendor_err);
		if (wc.opcode != o->want_recv)
			sc_bad(r, "receive opcode %s, want %s",
			       rdx_wc_opcode_name((enum rdx_wc_opcode)wc.opcode),
			       rdx_wc_opcode_name((enum rdx_wc_opcode)o->want_recv));
		if (wc.wr_id != 7000 + k)
			sc_bad(r, "receive wr_id %" PRIu64 ", want %u", wc.wr_id, 7000 + k);
		if (wc.byte_len != o->len + grh)
			sc_bad(r, "receive byte_len %u, want %u", wc.byte_len, o->len + grh);
		if (wc.opcode != RDX_WC_RECV && wc.imm != imm)
			sc_bad(r, "immediate 0x%x, want 0x%x", be32toh(wc.imm), be32toh(imm));
		if (ud && wc.src_qp != p->info[0].qp_num)
			sc_bad(r, "UD src_qp 0x%x, want 0x%x", wc.src_qp, p->info[0].qp_num);
	}
	/* what arrived */
	switch (o->op) {
	case RDX_OP_WRITE:
	case RDX_OP_WRITE_IMM:
		if (memcmp(rm + SC_OFF_DST, l, o->len) != 0)
			sc_bad(r, "WRITE data differ (%u bytes)", o->len);
		break;
	case RDX_OP_SEND:
	case RDX_OP_SEND_IMM:
		if (memcmp(rm + SC_OFF_DST + grh, l, o->len) != 0)
			sc_bad(r, "SEND data differ (%u bytes)", o->len);
		break;
	case RDX_OP_READ:
		if (memcmp(l + SC_OFF_READ, rm + SC_OFF_READ, o->len) != 0)
			sc_bad(r, "READ data differ (%u bytes)", o->len);
		break;
	default:
		memcpy(&word, rm + SC_OFF_ATOM, 8);
		memcpy(&res, l + SC_OFF_ATOM, 8);
		if (o->op == RDX_OP_FAA && word == __builtin_bswap64(old + arg))
			r->atomic_be = true;
		else if (word != (o->op == RDX_OP_CAS ? swap : old + arg))
			sc_bad(r, "remote word 0x%" PRIx64 " after the atomic, want 0x%" PRIx64, word,
			       o->op == RDX_OP_CAS ? swap : old + arg);
		/* the original value comes back as it was in memory (IBTA 9.4.5) */
		if (res != old)
			sc_bad(r, "atomic returned 0x%" PRIx64 ", want 0x%" PRIx64, res, old);
		break;
	}
}

/* A WRITE with a wrong rkey: remote access error at the requester. */
static void
sc_run_err(struct sc_pair *p, struct sc_res *r)
{
	struct rdx_sge sge = { .addr = p->mem[0]->iova, .length = 64, .lkey = p->mem[0]->lkey };
	struct rdx_wr wr;
	struct rdx_wc wc;

	memset(r, 0, sizeof(*r));
	r->name = "WRITE bad rkey";
	r->ok = true;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 99;
	wr.opcode = RDX_OP_WRITE;
	wr.flags = RDX_WR_SIGNALED;
	wr.sge = &sge;
	wr.num_sge = 1;
	wr.remote_addr = p->mem[1]->iova;
	wr.rkey = p->mem[1]->rkey ^ 0x5a5a00u;
	if (rdx_qp_post_burst(p->qp[0], &wr, 1) != 1) {
		sc_bad(r, "post refused");
		return;
	}
	if (sc_poll1(p->cq[0], &wc) != 1) {
		sc_bad(r, "no completion in 2 s");
		return;
	}
	r->got = true;
	r->status = wc.status;
	r->opcode = 0;          /* undefined on an error completion */
	r->vendor_err = wc.vendor_err;
	if (wc.status != IBV_WC_REM_ACCESS_ERR)
		sc_bad(r, "status %s, want %s", rdx_wc_status_name(wc.status),
		       rdx_wc_status_name(IBV_WC_REM_ACCESS_ERR));
	if (wc.wr_id != 99)
		sc_bad(r, "wr_id %" PRIu64 ", want 99", wc.wr_id);
}

/* Results start.. of a run as JSON. */
static json_t *
sc_cqe_json(const struct sc_cqe_run *run, unsigned int start)
{
	json_t *arr = json_array();
	unsigned int k;

	for (k = start; k < run->nb; k++) {
		const struct sc_res *r = &run->res[k];

		json_array_append_new(arr, json_pack("{s:s, s:b, s:s, s:b, s:i, s:i, s:I, s:I, s:i, s:i, s:I, s:I}",
			"op", r->name, "ok", r->ok, "why", r->why, "atomic_be", r->atomic_be,
			"status", r->status,
			"opcode", r->opcode, "byte_len", (json_int_t)r->byte_len,
			"vendor_err", (json_int_t)r->vendor_err, "recv_status", r->rstatus,
			"recv_opcode", r->ropcode, "recv_byte_len", (json_int_t)r->rbyte_len,
			"recv_imm", (json_int_t)be32toh(r->rimm)));
	}
	return arr;
}

/* Every op on dev into run; rows for RC, UD and the provoked error under
 * prefix (e.g. "cqe", "verbs"). */
static void
sc_cqe_all(struct rdx_dev *dev, const char *prefix, struct sc_cqe_run *run,
	   struct sc_dev_report *rep)
{
	const struct rdx_dev_attr *a = rdx_dev_attr_get(dev);
	struct sc_pair p;
	char err[160], check[24];
	struct sc_row *row;
	unsigned int k, start, bad;
	int first;

	memset(run, 0, sizeof(*run));
	for (int t = 0; t < 3; t++) {
		const bool ud = t == 1, er = t == 2;
		const struct sc_op *ops = ud ? sc_ud_ops : sc_rc_ops;
		const unsigned int n = er ? 1 : ud ? RTE_DIM(sc_ud_ops) : RTE_DIM(sc_rc_ops);

		snprintf(check, sizeof(check), "%s.%s", prefix, er ? "error" : ud ? "ud" : "rc");
		if (ud && a->max_ud_msg == 0) {
			sc_row_add(rep, check, SC_SKIP, "the driver has no UD QPs");
			continue;
		}
		if (sc_pair_create(dev, ud ? RDX_QP_UD : RDX_QP_RC, 0, 32, 64, &p, err,
				   sizeof(err)) < 0) {
			sc_row_add(rep, check, SC_FAIL, "loopback pair: %s", err);
			run->failed++;
			continue;
		}
		start = run->nb;
		first = -1;
		bad = 0;
		for (k = 0; k < n; k++) {
			struct sc_res *r;

			if (!er && !a->atomics && (ops[k].op == RDX_OP_CAS || ops[k].op == RDX_OP_FAA))
				continue;
			r = &run->res[run->nb++];
			if (er)
				sc_run_err(&p, r);
			else
				sc_run_op(&p, &ops[k], run->nb, r);
			if (!r->ok && bad++ == 0)
				first = (int)(run->nb - 1);
		}
		sc_pair_destroy(&p);
		if (bad == 0 && er)
			row = sc_row_add(rep, check, SC_PASS, "WRITE with a wrong rkey: REM_ACCESS_ERR, vendor syndrome 0x%x",
					 run->res[run->nb - 1].vendor_err);
		else if (bad == 0)
			row = sc_row_add(rep, check, SC_PASS, "%u ops verified (data, status, opcode, wr_id, byte_len, imm%s)",
					 run->nb - start, ud ? ", src_qp" : "");
		else
			row = sc_row_add(rep, check, SC_FAIL, "%u op(s) wrong; first: %s: %s", bad,
					 run->res[first].name, run->res[first].why);
		row->data = json_pack("{s:o}", "results", sc_cqe_json(run, start));
		run->failed += bad;
	}
}

void
sc_cqe_check(struct rdx_dev *dev, const char *name, struct sc_dev_report *rep)
{
	const struct rdx_dev_attr *a = rdx_dev_attr_get(dev);
	static struct sc_cqe_run direct, verbs;
	struct rdx_dev_conf dc = { .driver = "verbs", .quiet = true };
	struct rdx_dev *vdev;
	struct sc_row *row;
	unsigned int k;

	sc_cqe_all(dev, "cqe", &direct, rep);
	if (strcmp(a->driver, "mlx5") != 0) {
		sc_row_add(rep, "cqe.verbs", SC_SKIP, "one driver only (%s): nothing to compare with",
			   a->driver);
		return;
	}
	/* the same card through libmlx5 (the verbs driver) */
	vdev = rdx_dev_open(name, &dc);
	if (vdev == NULL) {
		sc_row_add(rep, "cqe.verbs", SC_FAIL, "cannot open %s with the verbs driver: %s", name,
			   rte_strerror(rte_errno));
		return;
	}
	sc_cqe_all(vdev, "verbs", &verbs, rep);
	rdx_dev_close(vdev);
	for (k = 0; k < direct.nb && k < verbs.nb; k++) {
		const struct sc_res *x = &direct.res[k], *y = &verbs.res[k];

		if (x->status != y->status || x->opcode != y->opcode || x->byte_len != y->byte_len ||
		    x->rstatus != y->rstatus || x->ropcode != y->ropcode ||
		    x->rbyte_len != y->rbyte_len || x->rimm != y->rimm || x->ok != y->ok ||
		    x->atomic_be != y->atomic_be || x->vendor_err != y->vendor_err)
			break;
	}
	if (k == direct.nb && k == verbs.nb) {
		row = sc_row_add(rep, "cqe.agree", SC_PASS, "%u ops: the same completions through rdx's direct path and libmlx5",
				 k);
	} else if (k < direct.nb && k < verbs.nb) {
		row = sc_row_add(rep, "cqe.agree", SC_FAIL, "%s: direct status %u opcode %u byte_len %u recv %u/%u/%u, verbs %u %u %u recv %u/%u/%u",
				 direct.res[k].name, direct.res[k].status, direct.res[k].opcode,
				 direct.res[k].byte_len, direct.res[k].rstatus, direct.res[k].ropcode,
				 direct.res[k].rbyte_len, verbs.res[k].status, verbs.res[k].opcode,
				 verbs.res[k].byte_len, verbs.res[k].rstatus, verbs.res[k].ropcode,
				 verbs.res[k].rbyte_len);
	} else {
		row = sc_row_add(rep, "cqe.agree", SC_FAIL, "%u ops through the direct path, %u through verbs",
				 direct.nb, verbs.nb);
	}
	row->data = json_pack("{s:I, s:I}", "direct_ops", (json_int_t)direct.nb,
			      "verbs_ops", (json_int_t)verbs.nb);
}
