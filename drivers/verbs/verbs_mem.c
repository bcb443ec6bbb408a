/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The verbs driver's memory: host memory, hugepage memory (rte_malloc when
 * EAL has hugepages, else mmap(MAP_HUGETLB)) and device memory
 * (ibv_alloc_dm), each registered with ibv_reg_mr. Control path.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "verbs_dev.h"

/* ------------------------------------------------------------------ */
/* Memory                                                             */

static struct rdx_mem *
mem_new(struct verbs_dev *vd, void *addr, size_t len, int access, enum rdx_mem_type type)
{
	struct verbs_mem *m = calloc(1, sizeof(*m));

	if (m == NULL)
		return NULL;
	m->base.dev = &vd->base;
	m->base.addr = addr;
	m->base.iova = (uint64_t)(uintptr_t)addr;
	m->base.len = len;
	m->base.access = access;
	m->base.type = type;
	return &m->base;
}

static int
mem_register(struct verbs_dev *vd, struct verbs_mem *m)
{
	m->mr = ibv_reg_mr(vd->pd, m->base.addr, m->base.len, (unsigned int)m->base.access);
	if (m->mr == NULL) {
		int err = errno != 0 ? errno : EINVAL;

		VERBS_ERR("ibv_reg_mr of %zu bytes on %s failed: %s\n", m->base.len,
			  vd->base.attr.name, strerror(err));
		return -err;
	}
	m->base.lkey = m->mr->lkey;
	m->base.rkey = m->mr->rkey;
	return 0;
}

static void
mem_release_buf(struct verbs_mem *m)
{
	if (m->buf == NULL)
		return;
	if (m->rte)
		rte_free(m->buf);
	else if (m->map_len != 0)
		munmap(m->buf, m->map_len);
	else
		free(m->buf);
	m->buf = NULL;
}

/* Huge pages: EAL memory when EAL is up with hugepages, else MAP_HUGETLB. */
static void *
huge_alloc(struct verbs_mem *m, size_t len)
{
	void *p;

	if (rte_lcore_count() > 0 && rte_eal_has_hugepages()) {
		p = rte_zmalloc("rdx_verbs_mem", len, VERBS_HUGE_SZ);
		if (p != NULL) {
			m->rte = true;
			return p;
		}
	}
	m->map_len = RTE_ALIGN_CEIL(len, (size_t)VERBS_HUGE_SZ);
	p = mmap(NULL, m->map_len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (p == MAP_FAILED) {
		VERBS_ERR("no hugepages for %zu bytes (EAL has none and mmap(MAP_HUGETLB) failed: %s); use host memory\n",
			  len, strerror(errno));
		m->map_len = 0;
		return NULL;
	}
	return p;
}

struct rdx_mem *
rdx_verbs_mem_alloc(struct rdx_dev *dev, size_t len, enum rdx_mem_type type, int access)
{
	struct verbs_dev *vd = to_vdev(dev);
	struct verbs_mem *m;
	struct ibv_alloc_dm_attr dattr = {0};
	void *p = NULL;
	int rc;

	m = (struct verbs_mem *)mem_new(vd, NULL, len, access, type);
	if (m == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	m->base.owned = true;
	switch (type) {
	case RDX_MEM_HOST:
		if (posix_memalign(&p, 4096, len) != 0) {
			VERBS_ERR("cannot allocate %zu bytes of host memory\n", len);
			rte_errno = ENOMEM;
			goto err;
		}
		memset(p, 0, len);
		break;
	case RDX_MEM_HUGE:
		p = huge_alloc(m, len);
		if (p == NULL) {
			rte_errno = ENOMEM;
			goto err;
		}
		break;
	case RDX_MEM_DM:
		if (vd->base.attr.max_dm_size == 0 || len > vd->base.attr.max_dm_size) {
			VERBS_ERR("device %s has %s device memory (asked %zu bytes)\n",
				  dev->attr.name, vd->base.attr.max_dm_size == 0 ? "no" : "not enough",
				  len);
			rte_errno = ENOTSUP;
			goto err;
		}
		dattr.length = len;
		m->dm = ibv_alloc_dm(vd->ctx, &dattr);
		if (m->dm == NULL) {
			VERBS_ERR("ibv_alloc_dm of %zu bytes on %s failed: %s\n", len,
				  dev->attr.name, strerror(errno));
			rte_errno = errno != 0 ? errno : ENOMEM;
			goto err;
		}
		/* Device memory is registered zero-based: SGEs and remote
		 * addresses are offsets into it. */
		m->mr = ibv_reg_dm_mr(vd->pd, m->dm, 0, len,
				      (unsigned int)access | IBV_ACCESS_ZERO_BASED);
		if (m->mr == NULL) {
			VERBS_ERR("ibv_reg_dm_mr of %zu bytes on %s failed: %s\n", len,
				  dev->attr.name, strerror(errno));
			rte_errno = errno != 0 ? errno : EINVAL;
			ibv_free_dm(m->dm);
			goto err;
		}
		m->base.addr = NULL;
		m->base.iova = 0;
		m->base.lkey = m->mr->lkey;
		m->base.rkey = m->mr->rkey;
		return &m->base;
	default:
		VERBS_ERR("unknown memory type %d\n", (int)type);
		rte_errno = EINVAL;
		goto err;
	}
	m->buf = p;
	m->base.addr = p;
	m->base.iova = (uint64_t)(uintptr_t)p;
	rc = mem_register(vd, m);
	if (rc != 0) {
		rte_errno = -rc;
		mem_release_buf(m);
		goto err;
	}
	return &m->base;
err:
	free(m);
	return NULL;
}

struct rdx_mem *
rdx_verbs_mem_reg(struct rdx_dev *dev, void *addr, size_t len, int access)
{
	struct verbs_dev *vd = to_vdev(dev);
	struct verbs_mem *m;
	int rc;

	m = (struct verbs_mem *)mem_new(vd, addr, len, access, RDX_MEM_HOST);
	if (m == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	rc = mem_register(vd, m);
	if (rc != 0) {
		rte_errno = -rc;
		free(m);
		return NULL;
	}
	return &m->base;
}

int
rdx_verbs_mem_free(struct rdx_mem *mem)
{
	struct verbs_mem *m = (struct verbs_mem *)mem;
	int rc = 0;

	if (m->mr != NULL) {
		rc = ibv_dereg_mr(m->mr);
		if (rc != 0) {
			VERBS_ERR("ibv_dereg_mr failed: %s\n", strerror(rc));
			return -rc;
		}
	}
	if (m->dm != NULL)
		rc = ibv_free_dm(m->dm);
	mem_release_buf(m);
	free(m);
	return rc != 0 ? -rc : 0;
}

int
rdx_verbs_mem_copy_to(struct rdx_mem *mem, size_t off, const void *src, size_t len)
{
	struct verbs_mem *m = (struct verbs_mem *)mem;

	if (m->dm == NULL)
		return -EINVAL;
	return -ibv_memcpy_to_dm(m->dm, off, src, len);
}

int
rdx_verbs_mem_copy_from(struct rdx_mem *mem, size_t off, void *dst, size_t len)
{
	struct verbs_mem *m = (struct verbs_mem *)mem;

	if (m->dm == NULL)
		return -EINVAL;
	return -ibv_memcpy_from_dm(dst, m->dm, off, len);
}
