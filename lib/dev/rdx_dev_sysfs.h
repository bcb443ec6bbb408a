/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * A port's counters as the kernel's RDMA stack shows them in sysfs
 * (<root>/<dev>/ports/<port>/counters/..., hw_counters/...): a NIC's and
 * rdma_rxe's; rdx's software device has none there. And a device's node
 * GUID, which names it among a cluster's devices. Control path only.
 */
#ifndef RDX_DEV_SYSFS_H
#define RDX_DEV_SYSFS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The kernel's RDMA device class directory. */
#define RDX_DEV_SYSFS_IB "/sys/class/infiniband"

/**
 * Read one counter file of a port: <root>/<dev>/ports/<port>/<name>.
 * name is a path under the port's directory, e.g. "counters/port_xmit_data"
 * or "hw_counters/out_of_buffer" (perftest's -W names). root NULL:
 * RDX_DEV_SYSFS_IB.
 * @return 0; -EINVAL (dev empty or with '/', port 0, name empty, absolute,
 * with a ".." component or a character outside [A-Za-z0-9_.-/], or a file
 * that does not hold a decimal number); the negative errno of the failed
 * open or read (-ENOENT: no such device, port or counter).
 */
int rdx_dev_port_counter_read(const char *root, const char *dev, unsigned int port,
			      const char *name, uint64_t *value);

/** Bytes of a node GUID as sysfs writes it, "0002:c903:0043:9c40", with the NUL. */
#define RDX_DEV_GUID_LEN 20

/**
 * Read a device's node GUID: <root>/<dev>/node_guid, four groups of four
 * hex digits joined by ':' (the kernel's format), into guid (at least
 * RDX_DEV_GUID_LEN bytes, NUL-terminated). root NULL: RDX_DEV_SYSFS_IB.
 * @return 0; -EINVAL (dev empty, "..", or with '/'; a file not of that
 * format); the negative errno of the failed open or read.
 */
int rdx_dev_node_guid_read(const char *root, const char *dev, char *guid);

#ifdef __cplusplus
}
#endif
#endif /* RDX_DEV_SYSFS_H */
