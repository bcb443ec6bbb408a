/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Drive the mlx5 datapath against rings in plain memory, for callgrind:
 * this program plays the device (it writes one CQE per signaled WQE
 * itself, outside the driver's functions) so that
 * `valgrind --tool=callgrind --toggle-collect=rdx_mlx5_post_burst
 *  --toggle-collect=rdx_mlx5_poll_burst` counts the driver's own post +
 * ring + poll instructions only. bench/callgrind.sh turns the totals into
 * instructions per operation.
 *
 * Modes:
 *   burst  8-byte inline RDMA_WRITE, bursts of 32, one signaled per 32
 *          (sig_interval 32), one poll per burst (the fast path).
 *   bf     one 8-byte inline RDMA_WRITE per post (BlueFlame copy), signaled,
 *          one poll per post.
 *   send   8-byte inline SEND, bursts of 32 (the SEND fast path).
 *   read   8-byte RDMA_READ into one SGE, bursts of 32 (general builder).
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdx_mlx5.h"

#define SQ_BB 256u
#define CQE_CNT 256u
#define BF_HALF 256u
#define BURST 32u

struct ring {
	uint8_t sq[SQ_BB * 64] __attribute__((aligned(64)));
	uint8_t cq[CQE_CNT * 64] __attribute__((aligned(64)));
	uint8_t bf[2 * BF_HALF] __attribute__((aligned(64)));
	__be32 dbrec[2];
	__be32 cq_dbrec[2];
	struct rdx_mlx5_qp qp;
	struct rdx_mlx5_cq cq_obj;
	uint32_t pi;
	uint8_t opcode;         /* mlx5 WQE opcode reported in the CQEs */
};

/* The "device": one requester CQE for the WQE at WQEBB counter wqe_ctr. */
static void
device_complete(struct ring *r, uint32_t wqe_ctr)
{
	struct mlx5_cqe64 *c = (struct mlx5_cqe64 *)(void *)
		(r->cq + (r->pi & (CQE_CNT - 1)) * 64);
	uint8_t owner = (uint8_t)((r->pi / CQE_CNT) & 1);

	c->sop_drop_qpn = htobe32((uint32_t)r->opcode << 24 | r->qp.base.qp_num);
	c->wqe_counter = htobe16((uint16_t)wqe_ctr);
	c->byte_cnt = 0;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	c->op_own = (uint8_t)(MLX5_CQE_REQ << 4 | owner);
	r->pi++;
}

static int
ring_init(struct ring *r, uint16_t sig_interval)
{
	struct mlx5dv_qp dv;
	struct mlx5dv_cq dvc;
	uint32_t i;
	int ret;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < CQE_CNT; i++)
		r->cq[i * 64 + 63] = 0xf0;
	memset(&dv, 0, sizeof(dv));
	dv.dbrec = r->dbrec;
	dv.sq.buf = r->sq;
	dv.sq.wqe_cnt = SQ_BB;
	dv.sq.stride = 64;
	dv.bf.reg = r->bf;
	dv.bf.size = BF_HALF;
	r->qp.base.conf.sig_interval = sig_interval;
	/* max_inline 28, one SGE: every WQE fits one WQEBB (rdma-core sizing) */
	ret = rdx_mlx5_qp_dp_init(&r->qp, &dv, 0x1234, 28, 1, 0);
	if (ret != 0)
		return ret;
	memset(&dvc, 0, sizeof(dvc));
	dvc.buf = r->cq;
	dvc.dbrec = r->cq_dbrec;
	dvc.cqe_cnt = CQE_CNT;
	dvc.cqe_size = 64;
	ret = rdx_mlx5_cq_dp_init(&r->cq_obj, &dvc, 1, 1);
	if (ret != 0)
		return ret;
	return rdx_mlx5_cq_attach(&r->cq_obj, &r->qp);
}

int
main(int argc, char **argv)
{
	static struct ring r;
	static uint64_t payload = 0x0102030405060708ull;
	struct rdx_sge sge = { .addr = (uintptr_t)&payload, .length = 8, .lkey = 1 };
	struct rdx_wr wr[BURST];
	struct rdx_wc wc[BURST];
	unsigned long iters, it, ops = 0;
	const char *mode;
	uint32_t burst, k;
	char *end;

	if (argc != 3 || (strcmp(argv[1], "burst") != 0 && strcmp(argv[1], "bf") != 0 &&
			  strcmp(argv[1], "send") != 0 && strcmp(argv[1], "read") != 0)) {
		fprintf(stderr, "usage: %s burst|bf|send|read ITERATIONS\n", argv[0]);
		return 2;
	}
	mode = argv[1];
	errno = 0;
	iters = strtoul(argv[2], &end, 10);
	if (errno != 0 || *end != '\0' || iters == 0 || iters > 100000000ul) {
		fprintf(stderr, "mlx5_fastpath: bad iteration count '%s' (1..100000000)\n",
			argv[2]);
		return 2;
	}
	burst = strcmp(mode, "bf") == 0 ? 1 : BURST;
	if (ring_init(&r, (uint16_t)burst) != 0) {
		fprintf(stderr, "mlx5_fastpath: datapath init failed\n");
		return 1;
	}
	r.opcode = strcmp(mode, "send") == 0 ? MLX5_OPCODE_SEND :
		strcmp(mode, "read") == 0 ? MLX5_OPCODE_RDMA_READ : MLX5_OPCODE_RDMA_WRITE;
	memset(wr, 0, sizeof(wr));
	for (k = 0; k < BURST; k++) {
		wr[k].opcode = RDX_OP_WRITE;
		wr[k].flags = RDX_WR_INLINE;
		wr[k].sge = &sge;
		wr[k].num_sge = 1;
		wr[k].remote_addr = 0x10000 + 8 * k;
		wr[k].rkey = 0x42;
		wr[k].wr_id = k;
		if (strcmp(mode, "send") == 0) {
			wr[k].opcode = RDX_OP_SEND;
		} else if (strcmp(mode, "read") == 0) {
			wr[k].opcode = RDX_OP_READ;
			wr[k].flags = 0;
		}
	}
	for (it = 0; it < iters; it++) {
		uint32_t last;
		uint16_t got;

		if (rdx_qp_post_burst(&r.qp.base, wr, (uint16_t)burst) != burst) {
			fprintf(stderr, "mlx5_fastpath: post fell short at iteration %lu\n", it);
			return 1;
		}
		last = r.qp.sq_cur_post - 1;
		device_complete(&r, last);
		got = rdx_cq_poll_burst(&r.cq_obj.base, wc, BURST);
		if (got != 1 || wc[0].status != 0 || wc[0].retired != burst) {
			fprintf(stderr, "mlx5_fastpath: bad completion at iteration %lu\n", it);
			return 1;
		}
		ops += burst;
	}
	printf("mode=%s burst=%u ops=%lu doorbells=%lu bf_posts=%lu\n", mode, burst, ops,
	       (unsigned long)r.qp.stats.doorbells, (unsigned long)r.qp.stats.bf_posts);
	rdx_mlx5_cq_dp_fini(&r.cq_obj);
	rdx_mlx5_qp_dp_fini(&r.qp);
	return 0;
}
