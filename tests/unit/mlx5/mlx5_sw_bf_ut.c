/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Doorbell (BlueFlame) registers on the software device, end to end through
 * the mlx5 datapath: QPs naming one posting lcore share a register and its
 * half toggle; the model consumes the register, dispatches by QPN and flags
 * (device_errors, logged) what would corrupt or lose doorbells on a NIC:
 *  - a register rung from an lcore other than its thread domain's (the
 *    regression of a domain picked by the creating lcore);
 *  - a half written twice in a row (two QPs of one register each keeping
 *    its own toggle), seen as a ring in the wrong half or as a doorbell
 *    record that moved with no doorbell;
 * and stays silent on correct runs with many QPs and many rings between two
 * looks of the model (16 and 1024 QPs: no "wrong BlueFlame half"). The
 * device runs progress=poll (rings accumulate until a poll); one case opens
 * a device with the default inline progress (each ring taken at its post).
 * EAL runs with two lcores (no hugepages); without them the test skips.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_log.h>

#include "rdx_ut.h"
#include "rdx_dev.h"
#include "rdx_mlx5.h"
#include "rdx_sw.h"
#include "../sw/sw_ut_dev.h"

#define GUARD_POLLS 50000000L

static struct rdx_dev *dev;
static FILE *log_fp;
static unsigned int worker = RTE_MAX_LCORE;

/* n loopback pairs: side 0 posts 8-byte WRITEs from m[0] to m[1]. */
struct rig {
	int n;
	struct rdx_cq *cq[2];
	struct rdx_qp **qp[2];
	struct rdx_mem *m[2];
	uint64_t sent;
	uint64_t done;
};

static void
rig_make(struct rig *r, int n, uint32_t post_lcore)
{
	struct rdx_cq_conf cc = { .depth = (uint32_t)n * 16 };
	struct rdx_qp_conf qc = {
		.sq_depth = 8, .rq_depth = 0, .max_send_sge = 1, .max_recv_sge = 1,
		.max_inline = 16, .sig_interval = 8,
	};
	int i, j;

	memset(r, 0, sizeof(*r));
	r->n = n;
	for (j = 0; j < 2; j++) {
		r->cq[j] = rdx_cq_create(dev, &cc);
		CU_ASSERT_FATAL(r->cq[j] != NULL);
		r->qp[j] = calloc((size_t)n, sizeof(struct rdx_qp *));
		r->m[j] = rdx_dev_mem_alloc(dev, 64 * (size_t)n, RDX_MEM_HOST, RDX_ACCESS_ALL);
		CU_ASSERT_FATAL(r->qp[j] != NULL && r->m[j] != NULL);
		memset(r->m[j]->addr, 0, 64 * (size_t)n);
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < 2; j++) {
			qc.send_cq = qc.recv_cq = r->cq[j];
			qc.post_lcore = j == 0 ? post_lcore : 0;
			r->qp[j][i] = rdx_qp_create(dev, &qc);
			CU_ASSERT_FATAL(r->qp[j][i] != NULL);
		}
	for (i = 0; i < n; i++) {
		struct rdx_qp_info info[2];

		CU_ASSERT(rdx_qp_info_get(r->qp[0][i], &info[0]) == 0);
		CU_ASSERT(rdx_qp_info_get(r->qp[1][i], &info[1]) == 0);
		CU_ASSERT_FATAL(rdx_qp_connect(r->qp[0][i], &info[1], NULL) == 0);
		CU_ASSERT_FATAL(rdx_qp_connect(r->qp[1][i], &info[0], NULL) == 0);
	}
}

static void
rig_free(struct rig *r)
{
	int i, j;

	for (i = 0; i < r->n; i++)
		for (j = 0; j < 2; j++)
			CU_ASSERT(rdx_qp_destroy(r->qp[j][i]) == 0);
	for (j = 0; j < 2; j++) {
		CU_ASSERT(rdx_cq_destroy(r->cq[j]) == 0);
		rdx_dev_mem_free(r->m[j]);
		free(r->qp[j]);
	}
}

/* One burst of k signaled 8-byte inline WRITEs on pair i (value v). */
static uint16_t
post_k(struct rig *r, int i, uint64_t v, uint16_t k)
{
	uint8_t *src = (uint8_t *)r->m[0]->addr + 64 * i;
	struct rdx_sge sge = { .addr = (uintptr_t)src, .length = 8, .lkey = r->m[0]->lkey };
	struct rdx_wr wr[4];
	uint16_t j, got;

	memcpy(src, &v, 8);
	memset(wr, 0, sizeof(wr));
	for (j = 0; j < k; j++) {
		wr[j].opcode = RDX_OP_WRITE;
		wr[j].flags = RDX_WR_INLINE | RDX_WR_SIGNALED;
		wr[j].sge = &sge;
		wr[j].num_sge = 1;
		wr[j].remote_addr = r->m[1]->iova + 64 * (uint64_t)i;
		wr[j].rkey = r->m[1]->rkey;
		wr[j].wr_id = v;
	}
	got = rdx_qp_post_burst(r->qp[0][i], wr, k);
	r->sent += got;
	return got;
}

/* Poll side 0 until everything sent completed (bounded); failures counted. */
static int
drain(struct rig *r)
{
	struct rdx_wc wc[64];
	long polls;
	int bad = 0;

	for (polls = 0; r->done < r->sent && polls < GUARD_POLLS; polls++) {
		uint16_t k, got = rdx_cq_poll_burst(r->cq[0], wc, 64);

		for (k = 0; k < got; k++) {
			bad += wc[k].status != IBV_WC_SUCCESS;
			r->done += wc[k].retired != 0 ? wc[k].retired : 1;
		}
	}
	CU_ASSERT(r->done == r->sent);
	return bad;
}

static uint64_t
dev_errors(void)
{
	struct rdx_sw_stats st;

	CU_ASSERT_FATAL(rdx_sw_stats_get(dev, &st) == 0);
	return st.device_errors;
}

/* Lines of the captured log holding needle. */
static unsigned int
log_count(const char *needle)
{
	char line[512];
	unsigned int n = 0;

	fflush(log_fp);
	rewind(log_fp);
	while (fgets(line, sizeof(line), log_fp) != NULL)
		n += strstr(line, needle) != NULL;
	fseek(log_fp, 0, SEEK_END);
	return n;
}

static struct rdx_mlx5_qp *
mqp(struct rdx_qp *q)
{
	return (struct rdx_mlx5_qp *)q;
}

/*
 * Many QPs, several rings each before the model looks (later rings
 * overwrite earlier ones in the halves): no device error, every WRITE lands.
 * The model used to keep a half order it could not know and reported
 * "doorbell in the wrong BlueFlame half" on such runs (rdx-perf -q 16).
 */
static void
many_rings(int n, uint32_t post_lcore)
{
	const uint64_t errs = dev_errors();
	const unsigned int wrong = log_count("wrong BlueFlame half");
	const unsigned int logged = log_count("device error");
	struct rig r;
	int round, i, bad = 0;

	rig_make(&r, n, post_lcore);
	/* rings per QP between two looks: 3 (one overwritten), then 1 (the
	 * half it uses tells whether the model kept count), 2, ... */
	static const int rings[] = { 3, 1, 2, 1, 3, 2, 1, 1, 3, 3, 1 };

	for (round = 0; round < (int)RTE_DIM(rings); round++) {
		for (i = 0; i < n; i++) {
			uint64_t v = ((uint64_t)round << 32) | (uint64_t)i;
			int k;

			for (k = 0; k < rings[round]; k++) {
				/* bursts of 1 (BlueFlame copies) and 2..3 (doorbells) */
				uint16_t burst = (uint16_t)(k == 1 ? 1 + round % 3 : 1);

				CU_ASSERT(post_k(&r, i, v, burst) == burst);
			}
		}
		bad += drain(&r);
		for (i = 0; i < n; i++) {
			uint64_t got;

			memcpy(&got, (uint8_t *)r.m[1]->addr + 64 * i, 8);
			bad += got != (((uint64_t)round << 32) | (uint64_t)i);
		}
	}
	CU_ASSERT(bad == 0);
	CU_ASSERT_EQUAL(dev_errors(), errs);
	CU_ASSERT_EQUAL(log_count("wrong BlueFlame half"), wrong);
	CU_ASSERT_EQUAL(log_count("device error"), logged);
	rig_free(&r);
}

static void
test_16_qps(void)
{
	many_rings(16, 0);
}

static void
test_1024_qps(void)
{
	many_rings(1024, 0);
}

/* The same with every QP on the main lcore's register: one toggle for all. */
static void
test_1024_qps_one_register(void)
{
	many_rings(1024, RDX_QP_POST_LCORE(rte_lcore_id()));
}

/* QPs naming one posting lcore share the datapath register object. */
static void
test_shared_register(void)
{
	const uint64_t errs = dev_errors();
	struct rig r, o;

	rig_make(&r, 3, RDX_QP_POST_LCORE(rte_lcore_id()));
	rig_make(&o, 2, 0);
	CU_ASSERT(mqp(r.qp[0][0])->bf == mqp(r.qp[0][1])->bf);
	CU_ASSERT(mqp(r.qp[0][0])->bf == mqp(r.qp[0][2])->bf);
	CU_ASSERT(mqp(r.qp[0][0])->bf != &mqp(r.qp[0][0])->bf_own);
	CU_ASSERT(mqp(r.qp[0][0])->bf->refs == 3);
	/* no lcore named: a register of its own each */
	CU_ASSERT(mqp(o.qp[0][0])->bf == &mqp(o.qp[0][0])->bf_own);
	CU_ASSERT(mqp(o.qp[0][0])->bf->reg != mqp(o.qp[0][1])->bf->reg);
	CU_ASSERT(mqp(r.qp[1][0])->bf->reg != mqp(r.qp[1][1])->bf->reg);
	/* rings by turns, the model looking between some of them */
	CU_ASSERT(post_k(&r, 0, 1, 1) == 1);
	CU_ASSERT(rdx_sw_progress(dev) >= 0);
	CU_ASSERT(post_k(&r, 1, 2, 1) == 1);
	CU_ASSERT(rdx_sw_progress(dev) >= 0);
	CU_ASSERT(post_k(&r, 2, 3, 1) == 1);
	CU_ASSERT(post_k(&r, 0, 4, 2) == 2);
	CU_ASSERT(post_k(&r, 1, 5, 1) == 1);
	CU_ASSERT(drain(&r) == 0);
	CU_ASSERT_EQUAL(dev_errors(), errs);
	rig_free(&o);
	rig_free(&r);
}

/*
 * The same misuse under the default inline progress, where the engine
 * takes each post's ring right after the post: a ring never waits for the
 * next one, so the second QP's ring is always found in the wrong half
 * (never lost), and flagged. Rounds of both QPs, in both orders.
 */
static void
test_own_toggle_flagged_inline(void)
{
	struct rdx_dev *const polled = dev;
	unsigned int wrong = log_count("wrong BlueFlame half");
	struct rdx_mlx5_bfreg *shared;
	uint64_t errs;
	struct rig r;
	int k;

	CU_ASSERT_FATAL(sw_ut_dev_open(&dev) == 0);
	CU_ASSERT_EQUAL(rdx_sw_progress_mode_get(dev), RDX_SW_PROGRESS_INLINE);
	errs = dev_errors();
	rig_make(&r, 2, RDX_QP_POST_LCORE(rte_lcore_id()));
	shared = mqp(r.qp[0][0])->bf;
	mqp(r.qp[0][0])->bf = &mqp(r.qp[0][0])->bf_own;
	mqp(r.qp[0][1])->bf = &mqp(r.qp[0][1])->bf_own;
	for (k = 0; k < 4; k++) {
		CU_ASSERT(post_k(&r, k & 1, 10 + 2 * (uint64_t)k, 1) == 1);
		CU_ASSERT(post_k(&r, (k & 1) ^ 1, 11 + 2 * (uint64_t)k, 1) == 1);
	}
	CU_ASSERT(drain(&r) == 0);
	CU_ASSERT(dev_errors() > errs);
	CU_ASSERT(log_count("wrong BlueFlame half") > wrong);
	/* with the shared toggle the same pattern is clean */
	mqp(r.qp[0][0])->bf = shared;
	mqp(r.qp[0][1])->bf = shared;
	errs = dev_errors();
	for (k = 0; k < 4; k++) {
		CU_ASSERT(post_k(&r, k & 1, 20 + 2 * (uint64_t)k, 1) == 1);
		CU_ASSERT(post_k(&r, (k & 1) ^ 1, 21 + 2 * (uint64_t)k, 1) == 1);
	}
	CU_ASSERT(drain(&r) == 0);
	CU_ASSERT_EQUAL(dev_errors(), errs);
	rig_free(&r);
	CU_ASSERT(sw_ut_dev_close(dev) == 0);
	dev = polled;
}

/*
 * Regression of finding 2: two QPs of one register, each with its own half
 * toggle (as before the fix), write the same half back to back.
 */
static void
test_own_toggle_flagged(void)
{
	uint64_t errs = dev_errors();
	unsigned int wrong = log_count("wrong BlueFlame half");
	unsigned int lost = log_count("no doorbell came");
	struct rdx_mlx5_bfreg *shared;
	struct rig r;

	rig_make(&r, 2, RDX_QP_POST_LCORE(rte_lcore_id()));
	shared = mqp(r.qp[0][0])->bf;
	mqp(r.qp[0][0])->bf = &mqp(r.qp[0][0])->bf_own;
	mqp(r.qp[0][1])->bf = &mqp(r.qp[0][1])->bf_own;
	/* the model looks between the two rings: the second is in the wrong half */
	CU_ASSERT(post_k(&r, 0, 1, 1) == 1);
	CU_ASSERT(rdx_sw_progress(dev) >= 0);
	CU_ASSERT(post_k(&r, 1, 2, 1) == 1);
	CU_ASSERT(rdx_sw_progress(dev) >= 0);
	CU_ASSERT(drain(&r) == 0);
	CU_ASSERT(dev_errors() > errs);
	CU_ASSERT(log_count("wrong BlueFlame half") > wrong);
	/* it does not: QP 0's ring is overwritten by QP 1's, its WQE stalls */
	errs = dev_errors();
	CU_ASSERT(post_k(&r, 0, 3, 1) == 1);
	CU_ASSERT(post_k(&r, 1, 4, 1) == 1);
	CU_ASSERT(drain(&r) == 0);
	CU_ASSERT(dev_errors() > errs);
	CU_ASSERT(log_count("no doorbell came") > lost);
	mqp(r.qp[0][0])->bf = shared;
	mqp(r.qp[0][1])->bf = shared;
	/* with the shared toggle the same pattern is clean */
	errs = dev_errors();
	CU_ASSERT(post_k(&r, 0, 5, 1) == 1);
	CU_ASSERT(rdx_sw_progress(dev) >= 0);
	CU_ASSERT(post_k(&r, 1, 6, 1) == 1);
	CU_ASSERT(rdx_sw_progress(dev) >= 0);
	CU_ASSERT(post_k(&r, 0, 7, 1) == 1);
	CU_ASSERT(post_k(&r, 1, 8, 1) == 1);
	CU_ASSERT(drain(&r) == 0);
	CU_ASSERT_EQUAL(dev_errors(), errs);
	rig_free(&r);
}

struct post_job {
	struct rig *r;
	int first;
	int count;
	int rounds;
};

static int
post_job_run(void *arg)
{
	struct post_job *j = arg;
	int k, i;

	for (k = 0; k < j->rounds; k++)
		for (i = j->first; i < j->first + j->count; i++)
			if (post_k(j->r, i, (uint64_t)k, 1) != 1)
				return -1;
	return 0;
}

/*
 * Regression of finding 1: the thread domain (register) picked by the
 * creating lcore while another lcore posts. Flagged; with the posting
 * lcore named, the same run is clean.
 */
static void
test_register_of_creator_flagged(void)
{
	uint64_t errs = dev_errors();
	unsigned int rung = log_count("rung from lcore");
	struct post_job job;
	struct rig r;

	if (worker >= RTE_MAX_LCORE) {
		printf("no worker lcore: skipped\n");
		return;
	}
	/* created here, register of this lcore, posted by the worker */
	rig_make(&r, 2, RDX_QP_POST_LCORE(rte_lcore_id()));
	job = (struct post_job){ .r = &r, .first = 0, .count = 2, .rounds = 1 };
	CU_ASSERT_FATAL(rte_eal_remote_launch(post_job_run, &job, worker) == 0);
	CU_ASSERT(rte_eal_wait_lcore(worker) == 0);
	CU_ASSERT(drain(&r) == 0);
	CU_ASSERT(dev_errors() > errs);
	CU_ASSERT(log_count("rung from lcore") > rung);
	rig_free(&r);
	/* the worker named as the posting lcore: clean */
	errs = dev_errors();
	rig_make(&r, 2, RDX_QP_POST_LCORE(worker));
	CU_ASSERT(mqp(r.qp[0][0])->bf == mqp(r.qp[0][1])->bf);
	job = (struct post_job){ .r = &r, .first = 0, .count = 2, .rounds = 3 };
	CU_ASSERT_FATAL(rte_eal_remote_launch(post_job_run, &job, worker) == 0);
	CU_ASSERT(rte_eal_wait_lcore(worker) == 0);
	CU_ASSERT(drain(&r) == 0);
	CU_ASSERT_EQUAL(dev_errors(), errs);
	rig_free(&r);
}

/* progress=poll: the engine looks at a register at polls only, so the
 * rings of several posts wait in it together (what these tests are about;
 * the default inline progress also takes each post's ring right after it) */
static int
suite_init(void)
{
	return sw_ut_dev_open_args(&dev, "progress=poll");
}

static int
suite_fini(void)
{
	return sw_ut_dev_close(dev);
}

int
main(int argc, char **argv)
{
	static const struct rdx_ut_case cases[] = {
		{ "16 QPs, several rings per look: no device error", test_16_qps },
		{ "1024 QPs, several rings per look: no device error", test_1024_qps },
		{ "1024 QPs on one register: no device error", test_1024_qps_one_register },
		{ "QPs of one posting lcore share the register", test_shared_register },
		{ "a toggle per QP on a shared register is flagged", test_own_toggle_flagged },
		{ "inline progress: a toggle per QP is flagged", test_own_toggle_flagged_inline },
		{ "a register rung from another lcore is flagged", test_register_of_creator_flagged },
		{ NULL, NULL },
	};
	char *eal[] = { argv[0], "-l", "0-1", "--no-huge", "-m", "512", "--no-pci",
			"--no-shconf", "--no-telemetry", "--log-level", "lib.eal:error", NULL };
	unsigned int lc;
	int rc;

	(void)argc;
	if (rte_eal_init((int)RTE_DIM(eal) - 1, eal) < 0) {
		fprintf(stderr, "EAL with 2 lcores unavailable (%s): skipped\n",
			rte_strerror(rte_errno));
		return 77;
	}
	lc = rte_get_next_lcore(rte_get_main_lcore(), 1, 0);
	if (lc < RTE_MAX_LCORE)
		worker = lc;
	/* the model's log goes to a file the tests count lines in */
	log_fp = tmpfile();
	if (log_fp == NULL || rte_openlog_stream(log_fp) != 0)
		return EXIT_FAILURE;
	rc = rdx_ut_run("mlx5_sw_bf", cases, suite_init, suite_fini);
	rte_openlog_stream(NULL);
	if (getenv("MLX5_SW_BF_UT_LOG") != NULL) {
		char line[512];

		rewind(log_fp);
		while (fgets(line, sizeof(line), log_fp) != NULL)
			fputs(line, stderr);
	}
	fclose(log_fp);
	rte_eal_cleanup();
	return rc;
}
