/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The mlx5 hardware control path, memory: host or hugepage memory
 * registered with ibv_reg_mr, device memory (ibv_alloc_dm + ibv_reg_dm_mr),
 * user memory registration, and the copies into and out of a region.
 * Control path: it may allocate, log and enter the kernel.
 */
#include "mlx5_hw.h"

static struct rdx_mem *
hw_mem_new(struct rdx_dev *dev, size_t len, int access, enum rdx_mem_type type)
{
	struct rdx_mem *mem = calloc(1, sizeof(*mem) + sizeof(struct mlx5_hw_mem));

	if (mem == NULL)
		return NULL;
	mem->dev = dev;
	mem->len = len;
	mem->access = access;
	mem->type = type;
	mem->drv = mem + 1;
	return mem;
}

struct rdx_mem *
rdx_mlx5_hw_mem_alloc(struct rdx_dev *dev, size_t len, enum rdx_mem_type type, int access)
{
	struct mlx5_hw_dev *hd = hw_dev(dev);
	struct rdx_mem *mem;
	struct mlx5_hw_mem *hm;
	void *buf = NULL;
	int err;

	if (len == 0 || (access & ~RDX_ACCESS_ALL) != 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	mem = hw_mem_new(dev, len, access, type);
	if (mem == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	hm = mem->drv;
	mem->owned = true;
	switch (type) {
	case RDX_MEM_HOST:
		err = posix_memalign(&buf, 4096, len);
		if (err != 0) {
			MLX5_LOG(ERR, "allocating %zu bytes of host memory failed: %s\n",
				 len, strerror(err));
			rte_errno = err;
			goto fail;
		}
		memset(buf, 0, len);
		break;
	case RDX_MEM_HUGE:
		/* EAL memory: hugepages when EAL has them (else --no-huge pages). */
		buf = rte_zmalloc("rdx_mlx5_mem", len, 4096);
		if (buf == NULL) {
			MLX5_LOG(ERR, "allocating %zu bytes of EAL (hugepage) memory failed "
				 "(is EAL initialised, with enough memory?)\n", len);
			rte_errno = ENOMEM;
			goto fail;
		}
		break;
	case RDX_MEM_DM: {
		struct ibv_alloc_dm_attr da = { .length = len, .log_align_req = 3 };

		if (hd->dattr.max_dm_size == 0 || len > hd->dattr.max_dm_size) {
			MLX5_LOG(ERR, "device memory of %zu bytes not available on %s "
				 "(max %" PRIu64 ")\n", len, dev->attr.name,
				 (uint64_t)hd->dattr.max_dm_size);
			rte_errno = ENOTSUP;
			goto fail;
		}
		hm->dm = ibv_alloc_dm(hd->ctx, &da);
		if (hm->dm == NULL) {
			err = errno != 0 ? errno : ENOMEM;
			MLX5_LOG(ERR, "ibv_alloc_dm(%zu bytes) failed: %s\n", len, strerror(err));
			rte_errno = err;
			goto fail;
		}
		/* DM MRs must be zero-based: SGEs and remote addresses are offsets. */
		hm->mr = ibv_reg_dm_mr(hd->pd, hm->dm, 0, len,
				       (unsigned int)access | IBV_ACCESS_ZERO_BASED);
		if (hm->mr == NULL) {
			err = errno != 0 ? errno : EINVAL;
			MLX5_LOG(ERR, "ibv_reg_dm_mr(%zu bytes) failed: %s\n", len, strerror(err));
			rte_errno = err;
			goto fail;
		}
		mem->addr = NULL;
		mem->iova = 0;
		mem->lkey = hm->mr->lkey;
		mem->rkey = hm->mr->rkey;
		return mem;
	}
	default:
		rte_errno = EINVAL;
		goto fail;
	}
	hm->mr = ibv_reg_mr(hd->pd, buf, len, (unsigned int)access);
	if (hm->mr == NULL) {
		err = errno != 0 ? errno : EINVAL;
		MLX5_LOG(ERR, "ibv_reg_mr(%zu bytes, %s) failed: %s\n", len,
			 rdx_mem_type_name(type), strerror(err));
		rte_errno = err;
		goto fail;
	}
	mem->addr = buf;
	mem->iova = (uint64_t)(uintptr_t)buf;
	mem->lkey = hm->mr->lkey;
	mem->rkey = hm->mr->rkey;
	return mem;
fail:
	if (hm->dm != NULL)
		ibv_free_dm(hm->dm);
	if (type == RDX_MEM_HUGE)
		rte_free(buf);
	else
		free(buf);
	free(mem);
	return NULL;
}

struct rdx_mem *
rdx_mlx5_hw_mem_reg(struct rdx_dev *dev, void *addr, size_t len, int access)
{
	struct mlx5_hw_dev *hd = hw_dev(dev);
	struct rdx_mem *mem;
	struct mlx5_hw_mem *hm;
	int err;

	if (addr == NULL || len == 0 || (access & ~RDX_ACCESS_ALL) != 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	mem = hw_mem_new(dev, len, access, RDX_MEM_HOST);
	if (mem == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	hm = mem->drv;
	hm->mr = ibv_reg_mr(hd->pd, addr, len, (unsigned int)access);
	if (hm->mr == NULL) {
		err = errno != 0 ? errno : EINVAL;
		MLX5_LOG(ERR, "ibv_reg_mr(%p, %zu bytes) failed: %s\n", addr, len,
			 strerror(err));
		free(mem);
		rte_errno = err;
		return NULL;
	}
	mem->addr = addr;
	mem->iova = (uint64_t)(uintptr_t)addr;
	mem->lkey = hm->mr->lkey;
	mem->rkey = hm->mr->rkey;
	return mem;
}

int
rdx_mlx5_hw_mem_free(struct rdx_mem *mem)
{
	struct mlx5_hw_mem *hm = mem->drv;
	int ret = 0;

	if (hm->mr != NULL && ibv_dereg_mr(hm->mr) != 0) {
		ret = -(errno != 0 ? errno : EBUSY);
		MLX5_LOG(ERR, "ibv_dereg_mr failed: %s\n", strerror(-ret));
		return ret;
	}
	if (hm->dm != NULL)
		ibv_free_dm(hm->dm);
	else if (mem->owned && mem->type == RDX_MEM_HUGE)
		rte_free(mem->addr);
	else if (mem->owned)
		free(mem->addr);
	free(mem);
	return 0;
}

int
rdx_mlx5_hw_mem_copy_to(struct rdx_mem *mem, size_t off, const void *src, size_t len)
{
	struct mlx5_hw_mem *hm = mem->drv;

	if (off > mem->len || len > mem->len - off)
		return -ERANGE;
	if (hm->dm != NULL) {
		int ret = ibv_memcpy_to_dm(hm->dm, off, src, len);

		return ret == 0 ? 0 : -(ret > 0 ? ret : EIO);
	}
	memcpy((uint8_t *)mem->addr + off, src, len);
	return 0;
}

int
rdx_mlx5_hw_mem_copy_from(struct rdx_mem *mem, size_t off, void *dst, size_t len)
{
	struct mlx5_hw_mem *hm = mem->drv;

	if (off > mem->len || len > mem->len - off)
		return -ERANGE;
	if (hm->dm != NULL) {
		int ret = ibv_memcpy_from_dm(dst, hm->dm, off, len);

		return ret == 0 ? 0 : -(ret > 0 ? ret : EIO);
	}
	memcpy(dst, (const uint8_t *)mem->addr + off, len);
	return 0;
}
