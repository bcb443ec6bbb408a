/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a driver implements and how it registers itself. For drivers/ only:
 * not installed, not for apps (they use rdx_dev.h).
 *
 * A driver fills a struct rdx_driver and registers it from a constructor
 * with RDX_DRIVER_REGISTER (the RTE_PMD_REGISTER_* pattern), so lib/dev
 * names no driver: rdx_dev_open() walks the registered drivers. A program
 * gets exactly the drivers linked into it; with static archives the driver
 * objects must be linked whole (meson link_whole / --whole-archive), or
 * nothing refers to them and the linker drops them with their constructor.
 *
 * lib/dev checks the arguments of every call against struct rdx_dev_attr
 * before calling an op (rdx_dev.h says which checks), so an op sees a
 * configuration within the device's attributes and only checks what is
 * its own (e.g. a WQE-size rule).
 */
#ifndef RDX_DEV_DRIVER_H
#define RDX_DEV_DRIVER_H

#include <stdbool.h>
#include <stddef.h>

#include <rte_common.h>

#include "rdx_dev.h"

struct ibv_device;

/** Driver operations. Fast path entries live in rdx_qp / rdx_cq. */
struct rdx_dev_ops {
	int (*close)(struct rdx_dev *dev);
	struct rdx_mem *(*mem_alloc)(struct rdx_dev *dev, size_t len,
				     enum rdx_mem_type type, int access);
	struct rdx_mem *(*mem_reg)(struct rdx_dev *dev, void *addr, size_t len,
				   int access);
	int (*mem_free)(struct rdx_mem *mem);
	int (*mem_copy_to)(struct rdx_mem *mem, size_t off, const void *src, size_t len);
	int (*mem_copy_from)(struct rdx_mem *mem, size_t off, void *dst, size_t len);
	/** conf: depth 1..attr.max_cqe (checked by lib/dev). */
	struct rdx_cq *(*cq_create)(struct rdx_dev *dev, const struct rdx_cq_conf *conf);
	int (*cq_destroy)(struct rdx_cq *cq);
	int (*cq_wait)(struct rdx_cq *cq, int timeout_ms);
	/** conf: within attr, CQs of dev (checked by lib/dev); conf->type
	 * RC, or UD only when attr.max_ud_msg != 0. A driver without UD
	 * leaves max_ud_msg 0 and refuses RDX_QP_UD with ENOTSUP. */
	struct rdx_qp *(*qp_create)(struct rdx_dev *dev, const struct rdx_qp_conf *conf);
	/** Optional (NULL: attr.max_qp_wr). rdx_qp_sq_depth_max's contract,
	 * arguments within attr: the deepest SQ qp_create grants for them,
	 * 0 when they do not fit one WQE. */
	uint32_t (*qp_sq_depth_max)(const struct rdx_dev *dev, uint8_t type,
				    uint32_t max_send_sge, uint32_t max_inline);
	int (*qp_destroy)(struct rdx_qp *qp);
	/** info arrives zeroed. */
	int (*qp_info)(struct rdx_qp *qp, struct rdx_qp_info *info);
	/** RC: remote is of the same driver; UD: remote is NULL. attr has the
	 * defaults filled in. */
	int (*qp_connect)(struct rdx_qp *qp, const struct rdx_qp_info *remote,
			  const struct rdx_qp_conn_attr *attr);
	uint64_t (*qp_retired_wr_id)(const struct rdx_qp *qp, const struct rdx_wc *wc,
				     uint16_t i);
	/** Optional (NULL: no UD; lib/dev then refuses with ENOTSUP). attr
	 * has its ranges checked and the defaults filled in (port, hop_limit,
	 * sgid_index); the driver fills ah->attr and ah->dev. */
	struct rdx_ah *(*ah_create)(struct rdx_dev *dev, const struct rdx_ah_attr *attr);
	int (*ah_destroy)(struct rdx_ah *ah);
	/** Optional (NULL: no counters). Same contract as rdx_dev_xstats_get,
	 * arguments already checked; may be called from any thread while the
	 * datapath runs, so counters are read with relaxed 64-bit loads. */
	int (*xstats_get)(struct rdx_dev *dev, struct rdx_dev_xstat *xs, unsigned int n);
	/** Optional (NULL: rdx_qp_xstats_get returns -ENOTSUP). One QP's
	 * counters, rdx_qp_xstats_get's contract (arguments checked, xs NULL
	 * only with n 0): the common ones first (rdx_qp_xstats_common), then
	 * the driver's own; called under the registry lock from any thread
	 * while the QP's datapath runs (relaxed loads). Derive the counters
	 * from indices the datapath keeps, or count per burst, never per WR. */
	int (*qp_xstats_get)(struct rdx_qp *qp, struct rdx_dev_xstat *xs, unsigned int n);
};

/** What a driver knows of one QP, for rdx_qp_xstats_common (WR units). */
struct rdx_qp_counts {
	uint64_t send_posted;
	uint64_t send_doorbells;
	uint64_t send_completed;  /**< whatever the status */
	uint64_t send_error;      /**< error completions, flushes not included */
	uint64_t send_flushed;
	uint64_t recv_posted;
	uint64_t recv_doorbells;
	uint64_t recv_completed;
	uint64_t recv_error;
	uint64_t recv_flushed;
};

/**
 * Write the RDX_QP_XSTATS_COMMON common counters of c as xs[0..] (those
 * below n), in enum rdx_qp_xstat_id order; the *_ok ones are completed -
 * error - flushed. Counters read from a running datapath may be a burst
 * apart: completed is capped at posted, ok at 0.
 * @return RDX_QP_XSTATS_COMMON (the index of the driver's first own counter).
 */
unsigned int rdx_qp_xstats_common(struct rdx_dev_xstat *xs, unsigned int n,
				  const struct rdx_qp_counts *c);

/**
 * Counter k of an xstats array: name and value written when k < n (xs has
 * room for n), counted either way.
 * @return k + 1.
 */
unsigned int rdx_dev_xstat_put(struct rdx_dev_xstat *xs, unsigned int n, unsigned int k,
			       const char *name, uint64_t value);

/** A device. Drivers embed this as the first member of their own struct. */
struct rdx_dev {
	const struct rdx_dev_ops *ops;
	struct rdx_dev_attr attr;
	struct rdx_dev_conf conf;  /**< as opened (conf.devargs: NULL after open) */
};

/** Largest score a probe may return. */
#define RDX_DRIVER_SCORE_MAX 100

/** A driver, as it registers itself. */
struct rdx_driver {
	/** "mlx5", "verbs", "sw": what rdx_dev_conf.driver names; unique. */
	const char *name;
	/** One line for notices and listings ("the software mlx5 device"). */
	const char *desc;
	/**
	 * RDMA devices: how well this driver drives ibdev, 0 (not at all) to
	 * RDX_DRIVER_SCORE_MAX; the highest score wins, a driver for one
	 * vendor scores above a generic one. NULL for a software device.
	 */
	int (*probe)(struct ibv_device *ibdev);
	/**
	 * Software devices: true when name (devargs cut off) is one of this
	 * driver's devices. Such a driver is also the default when there is no
	 * RDMA device. NULL for RDMA drivers.
	 */
	bool (*match_name)(const char *name);
	/** The devargs keys it takes, NULL-terminated (NULL: none). lib/dev
	 * refuses any other key before calling open. */
	const char *const *devargs_keys;
	/**
	 * Open a device: ibdev (RDMA drivers) or NULL (software devices).
	 * devargs: "k=v,..." with known keys only, or NULL; valid during the
	 * call only (rdx_devargs_get reads it). conf: never NULL, defaults
	 * applied. Returns the device (ops and attr filled) or NULL with
	 * rte_errno set and one line on stderr.
	 */
	struct rdx_dev *(*open)(struct ibv_device *ibdev, const char *devargs,
				const struct rdx_dev_conf *conf);
	/** lib/dev's list; the driver leaves it alone. */
	struct rdx_driver *next;
};

/**
 * Add drv to the drivers rdx_dev_open() chooses from. Called from a
 * constructor (RDX_DRIVER_REGISTER), before main(): not thread-safe.
 * A second driver of the same name is refused with one line on stderr.
 */
void rdx_driver_register(struct rdx_driver *drv);

/** Register drv (a struct rdx_driver) when the program starts. */
#define RDX_DRIVER_REGISTER(drv) \
	RTE_INIT(rdx_driver_register_ ## drv) \
	{ \
		rdx_driver_register(&(drv)); \
	}

/**
 * The value of key in devargs ("k=v,k2=v2", rte_kvargs syntax: a value may
 * be a bracketed list "k=[a,b]"; the last one wins), copied to val (len
 * bytes, NUL included).
 * @return 1 found, 0 absent (val untouched), -ENOSPC when it does not fit,
 *         -EINVAL when devargs is malformed (a pair without '=', "a=b=c").
 */
int rdx_devargs_get(const char *devargs, const char *key, char *val, size_t len);

#endif /* RDX_DEV_DRIVER_H */
