/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private to drivers/verbs: the driver's objects, shared by verbs_dev.c
 * (device, CQ and QP control path), verbs_dp.c (post and poll: the fast
 * path) and verbs_mem.c (memory). The CQ's table of QPs is here as well:
 * attach/detach run on the control path and the lookup on the fast path,
 * and they must agree on one probe rule (open addressing by qp_num).
 */
#ifndef RDX_VERBS_DEV_H
#define RDX_VERBS_DEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <infiniband/verbs.h>
#include <rte_log.h>

#include "rdx_config.h"
#include "rdx_dev_driver.h"
#include "verbs_sq.h"

/* The verbs driver's errors: log type rdx.drv.verbs (verbs_dev.c). */
extern int rdx_verbs_logtype;
#define VERBS_ERR(...) \
	rte_log(RTE_LOG_ERR, (uint32_t)rdx_verbs_logtype, "rdx_verbs: " __VA_ARGS__)
#define VERBS_HUGE_SZ (2u << 20)
#define VERBS_MAX_SQ_DEPTH 32768u /* retired counts fit uint16_t */

struct verbs_dev {
	struct rdx_dev base;             /* must be first */
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	uint8_t port;
	int gid_index;                   /* -1: no GRH (InfiniBand with LIDs) */
	union ibv_gid gid;
	struct ibv_port_attr port_attr;
	struct ibv_device_attr dev_attr;
};

struct verbs_qp;

struct verbs_cq {
	struct rdx_cq base;              /* must be first */
	struct ibv_cq *cq;
	struct ibv_comp_channel *ch;
	/* QPs completing here, open addressing by qp_num. */
	struct verbs_qp **tab;
	uint32_t tab_mask;
	uint32_t nb_qps;
	/* Completions taken by cq_wait, handed out by the next poll. */
	uint16_t stash_n;
	uint16_t stash_pos;
	struct ibv_wc wc[RDX_MAX_BURST];
	struct ibv_wc stash[RDX_MAX_BURST];
};

/*
 * Per-QP counters (rdx_verbs_qp_xstats_get): the post wrappers count once
 * per burst, the poll counts errors on its error branch only; completed
 * WRs derive from the SQ/RQ head and tail.
 */
struct verbs_qp_stats {
	uint64_t send_wrs;               /* send WRs posted */
	uint64_t send_posts;             /* ibv_post_send calls */
	uint64_t send_post_errors;       /* of which returned an error */
	uint64_t recv_wrs;
	uint64_t recv_posts;             /* ibv_post_recv calls */
	uint64_t recv_post_errors;
	uint64_t send_error;             /* send WRs completed in error (flush excluded) */
	uint64_t send_flushed;
	uint64_t recv_error;
	uint64_t recv_flushed;
};

struct verbs_qp {
	struct rdx_qp base;              /* must be first */
	struct ibv_qp *qp;
	struct verbs_cq *scq;
	struct verbs_cq *rcq;
	uint32_t psn;
	struct rdx_verbs_sq sq;
	struct rdx_verbs_rq rq;
	struct ibv_send_wr *swr;         /* RDX_MAX_BURST */
	struct ibv_sge *ssge;            /* RDX_MAX_BURST * max_send_sge */
	struct ibv_recv_wr *rwr;
	struct ibv_sge *rsge;
	uint64_t *sq_wr_id;
	uint8_t *sq_op;
	uint64_t *rq_wr_id;
	struct verbs_qp_stats st;
};

struct verbs_mem {
	struct rdx_mem base;             /* must be first */
	struct ibv_mr *mr;
	struct ibv_dm *dm;
	void *buf;                       /* what to free */
	size_t map_len;                  /* mmap'd length (huge without EAL) */
	bool rte;                        /* rte_malloc'd */
};

static inline struct verbs_dev *
to_vdev(struct rdx_dev *dev)
{
	return (struct verbs_dev *)dev;
}

/* ------------------------------------------------------------------ */
/* The CQ's QP table (open addressing, linear probing by qp_num)      */

static inline struct verbs_qp *
cq_find_qp(const struct verbs_cq *cq, uint32_t qp_num)
{
	uint32_t i = qp_num & cq->tab_mask;
	struct verbs_qp *qp;

	for (;;) {
		qp = cq->tab[i];
		if (qp == NULL || qp->base.qp_num == qp_num)
			return qp;
		i = (i + 1) & cq->tab_mask;
	}
}

static inline int
cq_attach(struct verbs_cq *cq, struct verbs_qp *qp)
{
	struct verbs_qp **tab, **old = cq->tab;
	uint32_t size, i, j;

	if ((cq->nb_qps + 1) * 2 > cq->tab_mask + 1) {
		size = (cq->tab_mask + 1) * 2;
		tab = calloc(size, sizeof(*tab));
		if (tab == NULL)
			return -ENOMEM;
		for (i = 0; i <= cq->tab_mask; i++) {
			if (old[i] == NULL)
				continue;
			j = old[i]->base.qp_num & (size - 1);
			while (tab[j] != NULL)
				j = (j + 1) & (size - 1);
			tab[j] = old[i];
		}
		cq->tab = tab;
		cq->tab_mask = size - 1;
		free(old);
	}
	j = qp->base.qp_num & cq->tab_mask;
	while (cq->tab[j] != NULL)
		j = (j + 1) & cq->tab_mask;
	cq->tab[j] = qp;
	cq->nb_qps++;
	return 0;
}

static inline void
cq_detach(struct verbs_cq *cq, struct verbs_qp *qp)
{
	uint32_t i, j;
	struct verbs_qp *q;

	for (i = 0; i <= cq->tab_mask; i++)
		if (cq->tab[i] == qp)
			break;
	if (i > cq->tab_mask)
		return;
	cq->tab[i] = NULL;
	cq->nb_qps--;
	/* Re-insert the rest of the cluster so lookups still find them. */
	for (j = (i + 1) & cq->tab_mask; cq->tab[j] != NULL; j = (j + 1) & cq->tab_mask) {
		q = cq->tab[j];
		cq->tab[j] = NULL;
		i = q->base.qp_num & cq->tab_mask;
		while (cq->tab[i] != NULL)
			i = (i + 1) & cq->tab_mask;
		cq->tab[i] = q;
	}
}

/* ------------------------------------------------------------------ */
/* Between the files                                                  */

/* verbs_dp.c: the fast path, installed in rdx_qp/rdx_cq and verbs_ops. */
uint16_t rdx_verbs_post_burst(struct rdx_qp *qp, const struct rdx_wr *wr, uint16_t n);
uint16_t rdx_verbs_post_recv_burst(struct rdx_qp *qp, const struct rdx_recv_wr *wr, uint16_t n);
uint16_t rdx_verbs_poll_burst(struct rdx_cq *cq, struct rdx_wc *wc, uint16_t n);
uint64_t rdx_verbs_qp_retired_wr_id(const struct rdx_qp *qp, const struct rdx_wc *wc,
				    uint16_t i);
/* The qp_xstats_get op (control path, reads what the fast path keeps). */
int rdx_verbs_qp_xstats_get(struct rdx_qp *qp, struct rdx_dev_xstat *xs, unsigned int n);

/* verbs_mem.c: memory (host, huge, device memory) for verbs_ops. */
struct rdx_mem *rdx_verbs_mem_alloc(struct rdx_dev *dev, size_t len, enum rdx_mem_type type,
				    int access);
struct rdx_mem *rdx_verbs_mem_reg(struct rdx_dev *dev, void *addr, size_t len, int access);
int rdx_verbs_mem_free(struct rdx_mem *mem);
int rdx_verbs_mem_copy_to(struct rdx_mem *mem, size_t off, const void *src, size_t len);
int rdx_verbs_mem_copy_from(struct rdx_mem *mem, size_t off, void *dst, size_t len);

#endif /* RDX_VERBS_DEV_H */
