/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Device selection, the registry of open devices, and the control-path
 * wrappers over the driver ops.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <rte_config.h>
#include <rte_errno.h>
#include <rte_log.h>

#include <infiniband/verbs.h>
#include <infiniband/mlx5dv.h>

#include "rdx_dev.h"
#include "rdx_dev_driver.h"

RTE_LOG_REGISTER_DEFAULT(rdx_dev_logtype, NOTICE)
#define DEV_LOG(level, ...) \
	rte_log(RTE_LOG_ ## level, rdx_dev_logtype, "rdx_dev: " __VA_ARGS__)

/*
 * Open devices, in opening order, for telemetry and tools. Control path
 * only: the lock is taken by open, close and rdx_dev_foreach, never by the
 * datapath. A plain array: a device opened twice (a test's stub) is listed
 * twice and each close removes one entry.
 */
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rdx_dev **reg_devs;
static unsigned int reg_nb;
static unsigned int reg_cap;

static int
reg_add(struct rdx_dev *dev)
{
	int ret = 0;

	pthread_mutex_lock(&reg_lock);
	if (reg_nb == reg_cap) {
		unsigned int cap = reg_cap != 0 ? 2 * reg_cap : 8;
		struct rdx_dev **d = realloc(reg_devs, cap * sizeof(*d));

		if (d == NULL) {
			ret = -ENOMEM;
			goto out;
		}
		reg_devs = d;
		reg_cap = cap;
	}
	reg_devs[reg_nb++] = dev;
out:
	pthread_mutex_unlock(&reg_lock);
	return ret;
}

static void
reg_del(struct rdx_dev *dev)
{
	unsigned int i;

	pthread_mutex_lock(&reg_lock);
	for (i = 0; i < reg_nb; i++) {
		if (reg_devs[i] == dev) {
			memmove(&reg_devs[i], &reg_devs[i + 1],
				(reg_nb - i - 1) * sizeof(reg_devs[0]));
			reg_nb--;
			break;
		}
	}
	pthread_mutex_unlock(&reg_lock);
}

int
rdx_dev_foreach(rdx_dev_foreach_fn_t fn, void *arg)
{
	unsigned int i;
	int ret = 0;

	if (fn == NULL)
		return -EINVAL;
	pthread_mutex_lock(&reg_lock);
	for (i = 0; i < reg_nb && ret == 0; i++)
		ret = fn(reg_devs[i], arg);
	pthread_mutex_unlock(&reg_lock);
	return ret;
}

unsigned int
rdx_dev_count(void)
{
	unsigned int n;

	pthread_mutex_lock(&reg_lock);
	n = reg_nb;
	pthread_mutex_unlock(&reg_lock);
	return n;
}

int
rdx_dev_xstats_get(struct rdx_dev *dev, struct rdx_dev_xstat *xs, unsigned int n)
{
	if (dev == NULL || (xs == NULL && n != 0))
		return -EINVAL;
	if (dev->ops == NULL || dev->ops->xstats_get == NULL)
		return 0;
	return dev->ops->xstats_get(dev, xs, xs == NULL ? 0 : n);
}

int
rdx_dev_list(char names[][64], int n)
{
	struct ibv_device **list;
	int num = 0, i;

	/* Without /sys/class/infiniband this returns NULL (errno ENOSYS):
	 * that is "no device", not an error. */
	list = ibv_get_device_list(&num);
	if (list == NULL)
		return 0;
	for (i = 0; i < num && i < n; i++)
		snprintf(names[i], 64, "%s", ibv_get_device_name(list[i]));
	ibv_free_device_list(list);
	return num;
}

static bool
driver_is(const struct rdx_dev_conf *conf, const char *name)
{
	return conf->driver != NULL && strcmp(conf->driver, name) == 0;
}

static struct rdx_dev *
open_ibdev(struct ibv_device *ibdev, const struct rdx_dev_conf *conf)
{
	bool is_mlx5 = mlx5dv_is_supported(ibdev);

	if (driver_is(conf, "verbs"))
		return rdx_verbs_dev_open(ibdev, conf);
	if (driver_is(conf, "mlx5") && !is_mlx5) {
		fprintf(stderr, "rdx: device %s is not an mlx5 device: use --driver verbs\n",
			ibv_get_device_name(ibdev));
		rte_errno = ENOTSUP;
		return NULL;
	}
	if (is_mlx5)
		return rdx_mlx5_dev_open(ibdev, conf);
	return rdx_verbs_dev_open(ibdev, conf);
}

static struct rdx_dev *
dev_open(const char *name, const struct rdx_dev_conf *conf_in)
{
	struct rdx_dev_conf conf = {0};
	struct ibv_device **list;
	struct rdx_dev *dev = NULL;
	int num = 0, i;

	if (conf_in != NULL)
		conf = *conf_in;
	if (conf.driver != NULL && strcmp(conf.driver, "auto") == 0)
		conf.driver = NULL;
	if (conf.driver != NULL && !driver_is(&conf, "mlx5") &&
	    !driver_is(&conf, "verbs") && !driver_is(&conf, "sw")) {
		fprintf(stderr, "rdx: unknown driver '%s' (expected auto, mlx5, verbs or sw)\n",
			conf.driver);
		rte_errno = EINVAL;
		return NULL;
	}
	if ((name != NULL && strcmp(name, "sw") == 0) || driver_is(&conf, "sw"))
		return rdx_sw_dev_open(&conf);

	list = ibv_get_device_list(&num);
	if (list == NULL || num == 0) {
		if (list != NULL)
			ibv_free_device_list(list);
		if (name != NULL && name[0] != '\0') {
			fprintf(stderr, "rdx: no RDMA device found (asked for '%s'; use --dev sw for the software device)\n",
				name);
			rte_errno = ENODEV;
			return NULL;
		}
		if (!conf.quiet)
			fprintf(stderr, "rdx: no RDMA device found: using the software mlx5 device (sw)\n");
		return rdx_sw_dev_open(&conf);
	}
	if (name == NULL || name[0] == '\0') {
		dev = open_ibdev(list[0], &conf);
	} else {
		for (i = 0; i < num; i++)
			if (strcmp(ibv_get_device_name(list[i]), name) == 0)
				break;
		if (i == num) {
			fprintf(stderr, "rdx: no RDMA device named '%s'\n", name);
			rte_errno = ENODEV;
		} else {
			dev = open_ibdev(list[i], &conf);
		}
	}
	ibv_free_device_list(list);
	return dev;
}

struct rdx_dev *
rdx_dev_open(const char *name, const struct rdx_dev_conf *conf)
{
	struct rdx_dev *dev = dev_open(name, conf);

	if (dev != NULL && reg_add(dev) != 0) {
		if (dev->ops != NULL)
			dev->ops->close(dev);
		rte_errno = ENOMEM;
		return NULL;
	}
	return dev;
}

int
rdx_dev_close(struct rdx_dev *dev)
{
	if (dev == NULL)
		return -EINVAL;
	/* unlisted first: telemetry may be reading it under the lock */
	reg_del(dev);
	return dev->ops->close(dev);
}

const struct rdx_dev_attr *
rdx_dev_attr_get(const struct rdx_dev *dev)
{
	return &dev->attr;
}

struct rdx_mem *
rdx_dev_mem_alloc(struct rdx_dev *dev, size_t len, enum rdx_mem_type type, int access)
{
	if (len == 0 || (type == RDX_MEM_DM && dev->attr.max_dm_size == 0)) {
		if (type == RDX_MEM_DM && len != 0)
			fprintf(stderr, "rdx: device %s has no device memory\n", dev->attr.name);
		rte_errno = len == 0 ? EINVAL : ENOTSUP;
		return NULL;
	}
	return dev->ops->mem_alloc(dev, len, type, access);
}

struct rdx_mem *
rdx_dev_mem_reg(struct rdx_dev *dev, void *addr, size_t len, int access)
{
	if (addr == NULL || len == 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	return dev->ops->mem_reg(dev, addr, len, access);
}

int
rdx_dev_mem_free(struct rdx_mem *mem)
{
	if (mem == NULL)
		return 0;
	return mem->dev->ops->mem_free(mem);
}

static int
mem_range_ok(const struct rdx_mem *mem, size_t off, size_t len)
{
	return off <= mem->len && len <= mem->len - off;
}

int
rdx_dev_mem_copy_to(struct rdx_mem *mem, size_t off, const void *src, size_t len)
{
	if (!mem_range_ok(mem, off, len))
		return -ERANGE;
	if (mem->addr != NULL) {
		memcpy((char *)mem->addr + off, src, len);
		return 0;
	}
	return mem->dev->ops->mem_copy_to(mem, off, src, len);
}

int
rdx_dev_mem_copy_from(struct rdx_mem *mem, size_t off, void *dst, size_t len)
{
	if (!mem_range_ok(mem, off, len))
		return -ERANGE;
	if (mem->addr != NULL) {
		memcpy(dst, (const char *)mem->addr + off, len);
		return 0;
	}
	return mem->dev->ops->mem_copy_from(mem, off, dst, len);
}

static const char *const mem_type_names[] = {
	[RDX_MEM_HOST] = "host", [RDX_MEM_HUGE] = "huge", [RDX_MEM_DM] = "dm",
};

int
rdx_mem_type_parse(const char *name)
{
	size_t i;

	for (i = 0; i < RTE_DIM(mem_type_names); i++)
		if (name != NULL && strcmp(name, mem_type_names[i]) == 0)
			return (int)i;
	return -EINVAL;
}

const char *
rdx_mem_type_name(enum rdx_mem_type type)
{
	return (unsigned int)type < RTE_DIM(mem_type_names) ? mem_type_names[type] : "?";
}

struct rdx_cq *
rdx_cq_create(struct rdx_dev *dev, const struct rdx_cq_conf *conf)
{
	if (conf == NULL || conf->depth == 0 ||
	    (dev->attr.max_cqe != 0 && conf->depth > dev->attr.max_cqe)) {
		rte_errno = EINVAL;
		return NULL;
	}
	return dev->ops->cq_create(dev, conf);
}

int
rdx_cq_destroy(struct rdx_cq *cq)
{
	if (cq == NULL)
		return 0;
	return cq->dev->ops->cq_destroy(cq);
}

int
rdx_cq_wait(struct rdx_cq *cq, int timeout_ms)
{
	if (!cq->conf.events)
		return -EINVAL;
	return cq->dev->ops->cq_wait(cq, timeout_ms);
}

struct rdx_qp *
rdx_qp_create(struct rdx_dev *dev, const struct rdx_qp_conf *conf)
{
	if (conf == NULL || conf->send_cq == NULL || conf->recv_cq == NULL ||
	    conf->sq_depth == 0 || conf->send_cq->dev != dev || conf->recv_cq->dev != dev) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (conf->post_lcore > RTE_MAX_LCORE) {
		fprintf(stderr, "rdx_dev: QP not created: post_lcore %u names lcore %u, beyond RTE_MAX_LCORE %u\n",
			conf->post_lcore, conf->post_lcore - 1, (unsigned int)RTE_MAX_LCORE);
		rte_errno = EINVAL;
		return NULL;
	}
	return dev->ops->qp_create(dev, conf);
}

int
rdx_qp_destroy(struct rdx_qp *qp)
{
	if (qp == NULL)
		return 0;
	return qp->dev->ops->qp_destroy(qp);
}

int
rdx_qp_info_get(struct rdx_qp *qp, struct rdx_qp_info *info)
{
	memset(info, 0, sizeof(*info));
	return qp->dev->ops->qp_info(qp, info);
}

int
rdx_qp_connect(struct rdx_qp *qp, const struct rdx_qp_info *remote,
	       const struct rdx_qp_conn_attr *attr)
{
	struct rdx_qp_conn_attr a = {0};

	if (attr != NULL)
		a = *attr;
	if (a.timeout == 0)
		a.timeout = 14;
	if (a.retry_cnt == 0)
		a.retry_cnt = 7;
	if (a.rnr_retry == 0)
		a.rnr_retry = 7;
	if (a.min_rnr_timer == 0)
		a.min_rnr_timer = 12;
	if (a.max_rd_atomic == 0)
		a.max_rd_atomic = 16;
	if (strncmp(remote->driver, qp->dev->attr.driver, sizeof(remote->driver)) != 0) {
		fprintf(stderr, "rdx: cannot connect a %s QP to a %s peer\n",
			qp->dev->attr.driver, remote->driver);
		return -EPROTO;
	}
	return qp->dev->ops->qp_connect(qp, remote, &a);
}

uint64_t
rdx_qp_retired_wr_id(const struct rdx_qp *qp, const struct rdx_wc *wc, uint16_t i)
{
	return qp->dev->ops->qp_retired_wr_id(qp, wc, i);
}

const char *
rdx_op_name(enum rdx_op op)
{
	static const char *const names[] = {
		[RDX_OP_NOP] = "NOP", [RDX_OP_SEND] = "SEND", [RDX_OP_SEND_IMM] = "SEND_IMM",
		[RDX_OP_WRITE] = "RDMA_WRITE", [RDX_OP_WRITE_IMM] = "RDMA_WRITE_IMM",
		[RDX_OP_READ] = "RDMA_READ", [RDX_OP_CAS] = "ATOMIC_CS",
		[RDX_OP_FAA] = "ATOMIC_FA",
	};
	return (unsigned int)op < RTE_DIM(names) ? names[op] : "UNKNOWN";
}

const char *
rdx_wc_opcode_name(enum rdx_wc_opcode op)
{
	static const char *const names[] = {
		[RDX_WC_NOP] = "NOP", [RDX_WC_SEND] = "SEND", [RDX_WC_WRITE] = "RDMA_WRITE",
		[RDX_WC_READ] = "RDMA_READ", [RDX_WC_CAS] = "ATOMIC_CS",
		[RDX_WC_FAA] = "ATOMIC_FA", [RDX_WC_RECV] = "RECV",
		[RDX_WC_RECV_IMM] = "RECV_IMM", [RDX_WC_RECV_WRITE_IMM] = "RECV_RDMA_WITH_IMM",
		[RDX_WC_UNKNOWN] = "UNKNOWN",
	};
	return (unsigned int)op < RTE_DIM(names) ? names[op] : "UNKNOWN";
}

const char *
rdx_wc_status_name(uint8_t status)
{
	return ibv_wc_status_str((enum ibv_wc_status)status);
}
