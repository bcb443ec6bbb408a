/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The doorbell check of one device: each posting lcore (every EAL worker,
 * or the main lcore when there is none) sends N SENDs, numbered by their
 * immediate, on loopback RC pairs whose QPs name it as their posting lcore
 * (rdx_qp_conf.post_lcore: on mlx5 the lcore's thread domain and its
 * BlueFlame register, shared by its QPs). Inline WRs of 16 bytes (rung
 * with a BlueFlame copy when alone in a burst) alternate with 512-byte
 * gather WRs, in bursts of one (rdma-core copies a burst of one WQE
 * to the BlueFlame register) and of 2..8 (an 8-byte doorbell). Each
 * receiver counts every number it sees: lost and duplicated WQEs must be 0.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>
#include <rte_lcore.h>

#include "rdx_mlx5.h"
#include "rdx_runtime.h"
#include "selfcheck.h"

#define SC_DB_PAIRS 2            /* per lcore: two QPs on one register */
#define SC_DB_DEPTH 64u
#define SC_DB_MSG 512u

struct sc_db_lcore {
	struct sc_pair pair[SC_DB_PAIRS];
	uint32_t n;                  /* WRs per pair */
	uint8_t *seen[SC_DB_PAIRS];
	uint64_t lost, dup, bad, send_err;
	uint64_t bf, plain;          /* mlx5 datapath: rings with / without a BlueFlame copy */
	bool stalled;
	char err[160];
};

static double
sc_db_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Drain the receive CQ of pair k: count each number, repost. */
static uint32_t
sc_db_recv(struct sc_db_lcore *lc, unsigned int k)
{
	struct sc_pair *p = &lc->pair[k];
	struct rdx_wc wc[16];
	uint16_t i, n = rdx_cq_poll_burst(p->cq[1], wc, 16);

	for (i = 0; i < n; i++) {
		const uint32_t seq = be32toh(wc[i].imm);

		if (wc[i].status != 0 || wc[i].opcode != RDX_WC_RECV_IMM || seq >= lc->n) {
			lc->bad++;
			continue;
		}
		if (lc->seen[k][seq]++ != 0)
			lc->dup++;
		sc_pair_recv(p, 1, wc[i].wr_id, (uint32_t)wc[i].wr_id * SC_DB_MSG, SC_DB_MSG);
	}
	return n;
}

static int
sc_db_lcore_run(void *arg)
{
	struct sc_db_lcore *lc = arg;
	struct rdx_sge sge[8];
	struct rdx_wr wr[8];
	struct rdx_wc wc[16];
	uint32_t posted[SC_DB_PAIRS] = { 0 }, done[SC_DB_PAIRS] = { 0 }, got = 0, j;
	uint32_t round = 0;
	double last = sc_db_now();
	unsigned int k;
	uint16_t i, n, b;

	for (k = 0; k < SC_DB_PAIRS; k++)
		for (j = 0; j < SC_DB_DEPTH; j++)
			sc_pair_recv(&lc->pair[k], 1, j, j * SC_DB_MSG, SC_DB_MSG);
	while (got < SC_DB_PAIRS * lc->n) {
		uint32_t progress = 0;

		for (k = 0; k < SC_DB_PAIRS; k++) {
			struct sc_pair *p = &lc->pair[k];
			/* at most half the receives in flight: none is ever short */
			const uint32_t room = SC_DB_DEPTH / 2 - (posted[k] - done[k]);

			/* every other burst one WR (a BlueFlame copy when it is
			 * inline), else 2..8 (an 8-byte doorbell) */
			b = (uint16_t)RTE_MIN(RTE_MIN((round & 1) ? 1u : 2u + round % 7u, room),
					      lc->n - posted[k]);
			for (i = 0; i < b; i++) {
				const uint32_t seq = posted[k] + i;
				const bool inl = (seq & 1) == 0;

				memset(&wr[i], 0, sizeof(wr[i]));
				wr[i].wr_id = seq;
				wr[i].opcode = RDX_OP_SEND_IMM;
				wr[i].flags = RDX_WR_SIGNALED | (inl ? RDX_WR_INLINE : 0);
				wr[i].imm = htobe32(seq);
				wr[i].sge = &sge[i];
				wr[i].num_sge = 1;
				sge[i].addr = inl ? (uintptr_t)p->mem[0]->addr : p->mem[0]->iova;
				sge[i].length = inl ? 16 : SC_DB_MSG;
				sge[i].lkey = p->mem[0]->lkey;
			}
			if (b != 0)
				posted[k] += rdx_qp_post_burst(p->qp[0], wr, b);
			n = rdx_cq_poll_burst(p->cq[0], wc, 16);
			for (i = 0; i < n; i++) {
				if (wc[i].status != 0)
					lc->send_err++;
				done[k] += wc[i].retired;
			}
			progress += n;
			n = (uint16_t)sc_db_recv(lc, k);
			got += n;
			progress += n;
		}
		round++;
		if (lc->send_err != 0 || lc->bad != 0)
			break;
		if (progress != 0) {
			last = sc_db_now();
		} else if (sc_db_now() - last > 3.0) {
			lc->stalled = true;
			break;
		}
	}
	/* late duplicates would land now */
	for (k = 0; k < SC_DB_PAIRS; k++)
		sc_db_recv(lc, k);
	for (k = 0; k < SC_DB_PAIRS; k++)
		for (j = 0; j < lc->n; j++)
			lc->lost += lc->seen[k][j] == 0;
	return 0;
}

void
sc_db_check(struct rdx_dev *dev, const struct sc_opts *o, struct sc_dev_report *r)
{
	const struct rdx_dev_attr *a = rdx_dev_attr_get(dev);
	const bool mlx5 = strcmp(a->driver, "mlx5") == 0 || strcmp(a->driver, "sw") == 0;
	unsigned int ids[RTE_MAX_LCORE], nb, k, q;
	struct sc_db_lcore *lcs;
	void *args[RTE_MAX_LCORE];
	uint64_t lost = 0, dup = 0, bad = 0, bf = 0, plain = 0;
	bool stalled = false;
	char err[160] = "";
	struct sc_row *row;

	nb = rdx_runtime_workers(ids, RTE_MAX_LCORE);
	if (nb == 0) {
		ids[0] = rte_get_main_lcore();
		nb = 1;
	}
	lcs = calloc(nb, sizeof(*lcs));
	if (lcs == NULL) {
		sc_row_add(r, "doorbell", SC_FAIL, "no memory");
		return;
	}
	for (k = 0; k < nb && err[0] == '\0'; k++) {
		lcs[k].n = o->db_wrs;
		args[k] = &lcs[k];
		for (q = 0; q < SC_DB_PAIRS && err[0] == '\0'; q++) {
			lcs[k].seen[q] = calloc(o->db_wrs, 1);
			if (lcs[k].seen[q] == NULL)
				snprintf(err, sizeof(err), "no memory");
			else
				sc_pair_create(dev, RDX_QP_RC, RDX_QP_POST_LCORE(ids[k]), SC_DB_DEPTH, 16,
					       &lcs[k].pair[q], err, sizeof(err));
		}
	}
	if (err[0] == '\0') {
		if (nb == 1 && ids[0] == rte_get_main_lcore())
			sc_db_lcore_run(&lcs[0]);
		else
			rdx_runtime_launch(sc_db_lcore_run, args, nb, false);
	}
	for (k = 0; k < nb; k++) {
		for (q = 0; q < SC_DB_PAIRS; q++) {
			if (mlx5 && lcs[k].pair[q].qp[0] != NULL) {
				const struct rdx_mlx5_qp *m =
					(const struct rdx_mlx5_qp *)lcs[k].pair[q].qp[0];

				bf += m->stats.bf_posts;
				plain += m->stats.db_plain;
			}
			sc_pair_destroy(&lcs[k].pair[q]);
			free(lcs[k].seen[q]);
		}
		lost += lcs[k].lost;
		dup += lcs[k].dup;
		bad += lcs[k].bad + lcs[k].send_err;
		stalled |= lcs[k].stalled;
	}
	free(lcs);
	if (err[0] != '\0') {
		sc_row_add(r, "doorbell", SC_FAIL, "could not run: %s", err);
		return;
	}
	if (lost == 0 && dup == 0 && bad == 0 && !stalled && mlx5)
		row = sc_row_add(r, "doorbell", SC_PASS, "%u lcore(s) x %u QPs x %u WRs: 0 lost, 0 duplicated (%llu BlueFlame rings, %llu 8-byte doorbells)",
				 nb, SC_DB_PAIRS, o->db_wrs, (unsigned long long)bf,
				 (unsigned long long)plain);
	else if (lost == 0 && dup == 0 && bad == 0 && !stalled)
		row = sc_row_add(r, "doorbell", SC_PASS, "%u lcore(s) x %u QPs x %u WRs: 0 lost, 0 duplicated (the provider rings)",
				 nb, SC_DB_PAIRS, o->db_wrs);
	else
		row = sc_row_add(r, "doorbell", SC_FAIL, "%u lcore(s) x %u QPs x %u WRs: %llu lost, %llu duplicated, %llu bad completions%s",
				 nb, SC_DB_PAIRS, o->db_wrs, (unsigned long long)lost,
				 (unsigned long long)dup, (unsigned long long)bad,
				 stalled ? ", stalled 3 s" : "");
	row->data = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:b}", "lcores", (json_int_t)nb,
			      "qps_per_lcore", (json_int_t)SC_DB_PAIRS, "wrs_per_qp", (json_int_t)o->db_wrs,
			      "lost", (json_int_t)lost, "duplicated", (json_int_t)dup,
			      "bad_completions", (json_int_t)bad, "bf_rings", (json_int_t)bf,
			      "stalled", stalled);
	if (row->data != NULL && mlx5)
		json_object_set_new(row->data, "db_rings", json_integer((json_int_t)plain));
}
