/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Software mlx5 device: the driver "sw" (registration, devargs, open and
 * close), its memory ops, xstats and the rdx_sw.h calls. The CQ, QP and AH
 * ops and connect are in sw_dev_qp.c (shared types: sw_dev_priv.h).
 *
 * Memory: RDX_MEM_HOST buffers live in the device's shared segment, so a
 * peer process can reach them. RDX_MEM_HUGE buffers are hugepages of this
 * process (EAL's when it runs with hugepages, else the kernel's pool through
 * mmap(MAP_HUGETLB)); with none to be had the allocation fails with ENOTSUP
 * rather than hand out normal pages. They, and rdx_dev_mem_reg of other
 * process memory, are reachable by peers of the same process only (from
 * another process it is a remote access error). RDX_MEM_DM is model memory
 * (zero-based, not mapped for the app).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include <infiniband/verbs.h>

#include "sw_dev_priv.h"

static const struct rdx_dev_ops sw_dev_ops;

bool
rdx_sw_dev_is_sw(const struct rdx_dev *dev)
{
	return dev != NULL && dev->ops == &sw_dev_ops;
}

static int
sw_close(struct rdx_dev *dev)
{
	struct sw_dev *sd = sw_dev(dev);

	/* no engine runs the timing hook past here */
	sw_engine_stop_thread(&sd->eng);
	sw_timing_close(&sd->eng, sd->eng.timing);
	sd->eng.timing = NULL;
	sw_engine_fini(&sd->eng);
	rdx_mlx5_objs_fini(&sd->objs);
	free(sd);
	return 0;
}

#define SW_HUGE_PAGE (2u << 20)

/*
 * Hugepages for m: EAL's when EAL is up with hugepages, else the kernel's
 * pool (mmap MAP_HUGETLB reserves the pages at once, so a pool too small
 * fails here, not with SIGBUS later). NULL with rte_errno ENOTSUP: none.
 */
static void *
sw_huge_alloc(struct sw_mem *m, size_t len)
{
	size_t map = RTE_ALIGN_CEIL(len, (size_t)SW_HUGE_PAGE);
	void *p;

	if (rte_lcore_count() > 0 && rte_eal_has_hugepages()) {
		p = rte_zmalloc("rdx_sw_huge", len, SW_HUGE_PAGE);
		if (p != NULL) {
			m->huge_rte = true;
			return p;
		}
	}
	if (map < len) {
		rte_errno = EINVAL;
		return NULL;
	}
	p = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB,
		 -1, 0);
	if (p == MAP_FAILED) {
		rte_errno = ENOTSUP;
		return NULL;
	}
	m->huge_map = map;
	return p;
}

static void
sw_huge_free(struct sw_mem *m)
{
	if (m->huge_rte)
		rte_free(m->base.addr);
	else if (m->huge_map != 0)
		munmap(m->base.addr, m->huge_map);
}

static struct rdx_mem *
sw_mem_alloc_huge(struct rdx_dev *dev, size_t len, int access)
{
	struct sw_dev *sd = sw_dev(dev);
	struct sw_mem *m;

	m = calloc(1, sizeof(*m));
	if (m == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	m->base.addr = sw_huge_alloc(m, len);
	if (m->base.addr == NULL) {
		free(m);
		return NULL;
	}
	m->base.dev = dev;
	m->base.iova = (uint64_t)(uintptr_t)m->base.addr;
	m->base.len = len;
	m->base.access = access;
	m->base.type = RDX_MEM_HUGE;
	m->base.owned = true;
	m->base.lkey = sw_mr_add(sd->eng.self, SW_MR_LOCAL, m->base.iova, len, 0, m->base.iova,
				 access, sd->eng.pid);
	if (m->base.lkey == 0) {
		sw_huge_free(m);
		free(m);
		return NULL;
	}
	m->base.rkey = m->base.lkey;
	m->base.drv = m;
	return &m->base;
}

static struct rdx_mem *
sw_mem_alloc(struct rdx_dev *dev, size_t len, enum rdx_mem_type type, int access)
{
	struct sw_dev *sd = sw_dev(dev);
	struct sw_domain *d = sd->eng.self;
	bool dm = type == RDX_MEM_DM;
	struct sw_mem *m;
	uint64_t off;

	if (len == 0 || (dm && len > SW_MAX_DM) || (unsigned int)type > RDX_MEM_DM) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (type == RDX_MEM_HUGE)
		return sw_mem_alloc_huge(dev, len, access);
	m = calloc(1, sizeof(*m));
	if (m == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	off = sw_shm_alloc(d, len, dm);
	if (off == 0) {
		free(m);
		return NULL;
	}
	m->shm_off = off;
	m->base.dev = dev;
	m->base.len = len;
	m->base.access = access;
	m->base.type = type;
	m->base.owned = true;
	if (dm) {
		/* ZERO_BASED like ibv_reg_dm_mr: addresses are offsets */
		m->base.addr = NULL;
		m->base.iova = 0;
	} else {
		m->base.addr = d->base + off;
		m->base.iova = (uint64_t)(uintptr_t)m->base.addr;
	}
	m->base.lkey = sw_mr_add(d, dm ? SW_MR_DM : SW_MR_SHM, m->base.iova, len, off, 0,
				 access, sd->eng.pid);
	if (m->base.lkey == 0) {
		sw_shm_free(d, off);
		free(m);
		return NULL;
	}
	m->base.rkey = m->base.lkey;
	m->base.drv = m;
	return &m->base;
}

static struct rdx_mem *
sw_mem_reg(struct rdx_dev *dev, void *addr, size_t len, int access)
{
	struct sw_dev *sd = sw_dev(dev);
	struct sw_domain *d = sd->eng.self;
	uint8_t *p = addr;
	struct sw_mem *m;

	m = calloc(1, sizeof(*m));
	if (m == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	m->base.dev = dev;
	m->base.addr = addr;
	m->base.iova = (uint64_t)(uintptr_t)addr;
	m->base.len = len;
	m->base.access = access;
	m->base.type = RDX_MEM_HOST;
	if (p >= d->base && len <= d->size && (size_t)(p - d->base) <= d->size - len) {
		/* inside the segment: peers of other processes reach it too */
		m->shm_off = (uint64_t)(p - d->base);
		m->base.lkey = sw_mr_add(d, SW_MR_SHM, m->base.iova, len, m->shm_off, 0,
					 access, sd->eng.pid);
	} else {
		m->base.lkey = sw_mr_add(d, SW_MR_LOCAL, m->base.iova, len, 0,
					 m->base.iova, access, sd->eng.pid);
	}
	if (m->base.lkey == 0) {
		free(m);
		return NULL;
	}
	m->base.rkey = m->base.lkey;
	m->base.drv = m;
	return &m->base;
}

static int
sw_mem_free(struct rdx_mem *mem)
{
	struct sw_dev *sd = sw_dev(mem->dev);
	struct sw_mem *m = (struct sw_mem *)mem;
	int ret;

	ret = sw_mr_del(sd->eng.self, mem->lkey);
	if (mem->owned && mem->type == RDX_MEM_HUGE)
		sw_huge_free(m);
	else if (mem->owned)
		sw_shm_free(sd->eng.self, m->shm_off);
	free(m);
	return ret;
}

static uint8_t *
sw_mem_ptr(struct rdx_mem *mem, size_t off, size_t len)
{
	struct sw_mem *m = (struct sw_mem *)mem;

	if (off > mem->len || len > mem->len - off)
		return NULL;
	if (mem->addr != NULL)
		return (uint8_t *)mem->addr + off;
	return sw_dev(mem->dev)->eng.self->base + m->shm_off + off;
}

static int
sw_mem_copy_to(struct rdx_mem *mem, size_t off, const void *src, size_t len)
{
	uint8_t *p = sw_mem_ptr(mem, off, len);

	if (p == NULL)
		return -ERANGE;
	memcpy(p, src, len);
	return 0;
}

static int
sw_mem_copy_from(struct rdx_mem *mem, size_t off, void *dst, size_t len)
{
	uint8_t *p = sw_mem_ptr(mem, off, len);

	if (p == NULL)
		return -ERANGE;
	memcpy(dst, p, len);
	return 0;
}

/*
 * xstats: the model's counters (struct rdx_sw_stats, "sw_" names), then the
 * mlx5 datapath counters summed over the device's QPs and CQs, destroyed
 * ones included ("dp_qp_" / "dp_cq_"), then the QPs and CQs open now.
 */
#define SW_STAT(f) { "sw_" #f, offsetof(struct rdx_sw_stats, f) }
static const struct {
	const char *name;
	size_t off;
} sw_model_xstats[] = {
	SW_STAT(doorbells), SW_STAT(bf_copies), SW_STAT(wqes), SW_STAT(recv_wqes),
	SW_STAT(cqes), SW_STAT(rnr_naks), SW_STAT(retries), SW_STAT(errors),
	SW_STAT(flushes), SW_STAT(cq_overruns), SW_STAT(device_errors),
	SW_STAT(ud_sent), SW_STAT(ud_too_long), SW_STAT(ud_drop_dest), SW_STAT(ud_inject_drop),
	SW_STAT(ud_inject_dup), SW_STAT(ud_inject_delay), SW_STAT(ud_recv),
	SW_STAT(ud_drop_no_recv), SW_STAT(ud_drop_qkey), SW_STAT(ud_recv_len_err),
};
#undef SW_STAT
_Static_assert(RTE_DIM(sw_model_xstats) * sizeof(uint64_t) == sizeof(struct rdx_sw_stats),
	       "every model counter named");

static int
sw_xstats_get(struct rdx_dev *dev, struct rdx_dev_xstat *xs, unsigned int n)
{
	struct sw_dev *sd = sw_dev(dev);
	struct rdx_sw_stats st;
	unsigned int i;

	/* a snapshot already: plain reads */
	sw_engine_stats(&sd->eng, &st);
	for (i = 0; i < RTE_DIM(sw_model_xstats); i++)
		rdx_mlx5_xstat_set(xs, n, i, sw_model_xstats[i].name,
				   *(const uint64_t *)RTE_PTR_ADD(&st, sw_model_xstats[i].off));
	if (sd->eng.timing != NULL) {
		/* the timing layer: WQEs modelled, the NIC's busy time for
		 * them (wqes / busy: its ceiling for that mix), WQEs executed
		 * over 1 us after their time, WQEs not held, first to last
		 * doorbell seen, the shared NIC's busy time (every process's
		 * WQEs) over that span */
		uint64_t v[6];

		sw_timing_stats(sd->eng.timing, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]);
		rdx_mlx5_xstat_set(xs, n, i++, "sw_tm_wqes", v[0]);
		rdx_mlx5_xstat_set(xs, n, i++, "sw_tm_busy_ns", v[1]);
		rdx_mlx5_xstat_set(xs, n, i++, "sw_tm_late", v[2]);
		rdx_mlx5_xstat_set(xs, n, i++, "sw_tm_unheld", v[3]);
		rdx_mlx5_xstat_set(xs, n, i++, "sw_tm_span_ns", v[4]);
		rdx_mlx5_xstat_set(xs, n, i++, "sw_tm_port_busy_ns", v[5]);
	}
	return (int)rdx_mlx5_objs_xstats(&sd->objs, xs, n, i);
}

static const struct rdx_dev_ops sw_dev_ops = {
	.close = sw_close,
	.mem_alloc = sw_mem_alloc,
	.mem_reg = sw_mem_reg,
	.mem_free = sw_mem_free,
	.mem_copy_to = sw_mem_copy_to,
	.mem_copy_from = sw_mem_copy_from,
	.cq_create = sw_cq_create_op,
	.cq_destroy = sw_cq_destroy_op,
	.cq_wait = sw_cq_wait,
	.qp_create = sw_qp_create_op,
	.qp_sq_depth_max = sw_qp_sq_depth_max,
	.qp_destroy = sw_qp_destroy_op,
	.qp_info = sw_qp_info,
	.qp_connect = sw_qp_connect_op,
	.qp_retired_wr_id = sw_qp_retired_wr_id,
	.ah_create = sw_ah_create,
	.ah_destroy = sw_ah_destroy,
	.xstats_get = sw_xstats_get,
	.qp_xstats_get = rdx_mlx5_qp_xstats_get,
};

#define UD_ARG(i) (ud_set[i] ? ud_val[i] : NULL)

static struct rdx_dev *
sw_open(struct ibv_device *ibdev, const char *devargs, const struct rdx_dev_conf *conf)
{
	enum rdx_sw_progress progress = RDX_SW_PROGRESS_INLINE;
	static const char *const ud_keys[] = {
		"ud_drop", "ud_drop_every", "ud_delay_us", "ud_delay", "ud_dup", "seed",
	};
	char ud_val[RTE_DIM(ud_keys)][32];
	bool ud_set[RTE_DIM(ud_keys)];
	struct rdx_dev_attr *a;
	unsigned int i;
	struct sw_dev *sd;
	uint32_t wqe, inl;
	char val[16], timing[256];
	int ret, has_timing;

	/* devargs progress=inline|poll|thread (lib/dev refused other keys) */
	ret = rdx_devargs_get(devargs, "progress", val, sizeof(val));
	if (ret > 0 && strcmp(val, "thread") == 0) {
		progress = RDX_SW_PROGRESS_THREAD;
	} else if (ret > 0 && strcmp(val, "poll") == 0) {
		progress = RDX_SW_PROGRESS_POLL;
	} else if (ret != 0 && (ret < 0 || strcmp(val, "inline") != 0)) {
		SW_LOG(ERR, "bad devargs progress=%s: expected inline, poll or thread\n",
			ret > 0 ? val : "(too long)");
		rte_errno = EINVAL;
		return NULL;
	}
	/* devargs timing=<profile name or path> (sw_timing.c) */
	has_timing = rdx_devargs_get(devargs, "timing", timing, sizeof(timing));
	if (has_timing < 0 || (has_timing > 0 && timing[0] == '\0')) {
		SW_LOG(ERR, "bad devargs timing: %s\n", has_timing < 0 ? "value too long" :
		       "expected a profile name (config/timing) or a path");
		rte_errno = EINVAL;
		return NULL;
	}
	for (i = 0; i < RTE_DIM(ud_keys); i++) {
		ret = rdx_devargs_get(devargs, ud_keys[i], ud_val[i], sizeof(ud_val[i]));
		if (ret < 0) {
			SW_LOG(ERR, "bad devargs %s: value too long\n", ud_keys[i]);
			rte_errno = EINVAL;
			return NULL;
		}
		ud_set[i] = ret > 0;
	}
	sd = calloc(1, sizeof(*sd));
	if (sd == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	ret = sw_engine_init(&sd->eng);
	if (ret != 0) {
		free(sd);
		rte_errno = -ret;
		return NULL;
	}
	/* UD loss/duplication/delay injection (devargs ud_*, seed) */
	ret = sw_ud_inject_conf(&sd->eng, UD_ARG(0), UD_ARG(1), UD_ARG(2), UD_ARG(3),
				UD_ARG(4), UD_ARG(5));
	if (ret != 0) {
		sw_engine_fini(&sd->eng);
		free(sd);
		rte_errno = -ret;
		return NULL;
	}
	if (has_timing > 0) {
		ret = sw_timing_open(&sd->eng, timing, &sd->eng.timing);
		if (ret != 0) {
			sw_engine_fini(&sd->eng);
			free(sd);
			rte_errno = -ret;
			return NULL;
		}
	}
	sd->base.ops = &sw_dev_ops;
	rdx_mlx5_objs_init(&sd->objs);
	if (conf != NULL)
		sd->base.conf = *conf;
	sd->progress = progress;
	a = &sd->base.attr;
	snprintf(a->name, sizeof(a->name), "sw");
	snprintf(a->driver, sizeof(a->driver), "sw");
	a->software = true;
	if (sd->eng.timing != NULL)
		snprintf(a->model, sizeof(a->model), "timing %s (modelled)",
			 sw_timing_name(sd->eng.timing));
	a->max_msg_size = SW_MAX_MSG;
	/* the depth of the smallest RC WQE (one SGE, no inline: 256 B), as
	 * libmlx5 would allow; sw_qp_create_op checks each shape's own */
	a->max_qp_wr = rdx_mlx5_rc_max_send_wr(SW_MAX_QP_WR, SW_MAX_WQE_BYTES, 1, 0);
	a->max_sge = SW_MAX_SGE;
	/* the largest inline a QP can get within the largest WQE */
	sw_calc_send_wqe(0, SW_MAX_WQE_BYTES - SW_WQE_OVERHEAD - 4, &wqe, &inl);
	a->max_inline = inl;
	a->max_cqe = SW_MAX_CQE - 1;
	a->max_qp = SW_MAX_QP;
	a->atomics = true;
	a->max_dm_size = SW_MAX_DM;
	a->active_mtu = IBV_MTU_4096;
	a->link_layer = IBV_LINK_LAYER_ETHERNET;
	/* a UD message is one packet: at most the MTU (IBTA 9.8.1) */
	a->max_ud_msg = SW_UD_MTU;
	if (sd->progress == RDX_SW_PROGRESS_THREAD) {
		ret = sw_engine_start_thread(&sd->eng);
		if (ret != 0) {
			sw_timing_close(&sd->eng, sd->eng.timing);
			sw_engine_fini(&sd->eng);
			rdx_mlx5_objs_fini(&sd->objs);
			free(sd);
			rte_errno = -ret;
			return NULL;
		}
	}
	return &sd->base;
}

/* The device's name is "sw"; the default when there is no RDMA device. */
static bool
sw_match_name(const char *name)
{
	return strcmp(name, "sw") == 0;
}

static const char *const sw_devargs_keys[] = {
	"progress", "ud_drop", "ud_drop_every", "ud_delay_us", "ud_delay", "ud_dup", "seed", "timing",
	NULL,
};

static struct rdx_driver sw_driver = {
	.name = "sw",
	.desc = "the software mlx5 device",
	.match_name = sw_match_name,
	.devargs_keys = sw_devargs_keys,
	.open = sw_open,
};

RDX_DRIVER_REGISTER(sw_driver)

/* ------------------------------------------------------------------ */
/* rdx_sw.h                                                            */

int
rdx_sw_stats_get(const struct rdx_dev *dev, struct rdx_sw_stats *st)
{
	if (!rdx_sw_dev_is_sw(dev) || st == NULL)
		return -EINVAL;
	sw_engine_stats(&((struct sw_dev *)(uintptr_t)dev)->eng, st);
	return 0;
}

int
rdx_sw_progress(struct rdx_dev *dev)
{
	if (!rdx_sw_dev_is_sw(dev))
		return -EINVAL;
	return sw_engine_progress(&sw_dev(dev)->eng);
}

int
rdx_sw_progress_mode_get(const struct rdx_dev *dev)
{
	if (!rdx_sw_dev_is_sw(dev))
		return -EINVAL;
	return (int)((const struct sw_dev *)(uintptr_t)dev)->progress;
}

int
rdx_sw_qp_state(const struct rdx_qp *qp)
{
	if (qp == NULL || !rdx_sw_dev_is_sw(qp->dev))
		return -EINVAL;
	return (int)__atomic_load_n(&((const struct sw_qp *)qp)->lqp->s->state,
				    __ATOMIC_ACQUIRE);
}

uint64_t
rdx_sw_cq_overruns(const struct rdx_cq *cq)
{
	const struct sw_cq *c = (const struct sw_cq *)cq;

	if (cq == NULL || !rdx_sw_dev_is_sw(cq->dev))
		return 0;
	return __atomic_load_n(&sw_dev(cq->dev)->eng.self->hdr->cqs[c->slot].overruns,
			       __ATOMIC_RELAXED);
}

int
rdx_sw_qp_ud_stats(const struct rdx_qp *qp, struct rdx_sw_ud_stats *st)
{
	if (qp == NULL || !rdx_sw_dev_is_sw(qp->dev) || st == NULL)
		return -EINVAL;
	sw_qp_ud_stats(((const struct sw_qp *)qp)->lqp, st);
	return 0;
}

int
rdx_sw_qp_inject_error(struct rdx_qp *qp, uint32_t nth, uint8_t syndrome)
{
	struct sw_lqp *q;

	if (qp == NULL || !rdx_sw_dev_is_sw(qp->dev))
		return -EINVAL;
	q = ((struct sw_qp *)qp)->lqp;
	q->fail_syndrome = syndrome;
	__atomic_store_n(&q->fail_nth, nth, __ATOMIC_RELEASE);
	return 0;
}

int
rdx_sw_qp_peer_vanish(struct rdx_qp *qp, bool vanish)
{
	if (qp == NULL || !rdx_sw_dev_is_sw(qp->dev))
		return -EINVAL;
	__atomic_store_n(&((struct sw_qp *)qp)->lqp->peer_vanished, vanish, __ATOMIC_RELEASE);
	return 0;
}
