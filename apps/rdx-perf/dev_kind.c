/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the device is, for the labels (report header, JSON device_kind, the
 * per-WR log): a NIC, a software RDMA device of the kernel (rdma_rxe,
 * siw: driver verbs on an ibdev with no parent device), or rdx's software
 * model of the mlx5 device (attr.software). The kernel's software devices
 * are virtual: /sys/class/infiniband/<dev> has no "device" link (a NIC's
 * points at its PCI function) and resolves under /sys/devices/virtual/.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "perf_app.h"

enum perf_dev_kind
perf_dev_kind_at(const char *sysfs_ib, const struct rdx_dev_attr *at)
{
	char path[PATH_MAX], real[PATH_MAX];
	struct stat st;

	if (at->software)
		return PERF_DEV_KIND_MODEL;
	if (snprintf(path, sizeof(path), "%s/%s", sysfs_ib, at->name) >= (int)sizeof(path) ||
	    stat(path, &st) != 0)
		return PERF_DEV_KIND_NIC;  /* no such ibdev to look at: the driver's word */
	if (realpath(path, real) != NULL && strstr(real, "/devices/virtual/") != NULL)
		return PERF_DEV_KIND_SOFT_RDMA;
	if (snprintf(path, sizeof(path), "%s/%s/device", sysfs_ib, at->name) < (int)sizeof(path) &&
	    lstat(path, &st) != 0)
		return PERF_DEV_KIND_SOFT_RDMA;
	return PERF_DEV_KIND_NIC;
}

enum perf_dev_kind
perf_dev_kind(const struct rdx_dev_attr *at)
{
	return perf_dev_kind_at("/sys/class/infiniband", at);
}

/* The header's words */
const char *
perf_dev_kind_label(enum perf_dev_kind k)
{
	return k == PERF_DEV_KIND_MODEL ? "software device" :
		k == PERF_DEV_KIND_SOFT_RDMA ? "software RDMA device" : "NIC";
}

/* JSON / CSV device_kind: the values reports had before stay */
const char *
perf_dev_kind_json(enum perf_dev_kind k)
{
	return k == PERF_DEV_KIND_MODEL ? "software device" :
		k == PERF_DEV_KIND_SOFT_RDMA ? "software RDMA device" : "hardware";
}
