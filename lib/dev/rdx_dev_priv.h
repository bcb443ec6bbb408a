/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private to lib/dev: what the wrappers (rdx_dev_obj.c) and open/close
 * (rdx_dev.c) tell the registry of live QPs (rdx_dev_qp.c). Control path.
 */
#ifndef RDX_DEV_PRIV_H
#define RDX_DEV_PRIV_H

#include <rte_log.h>

#include "rdx_dev.h"

/*
 * lib/dev's messages, log type rdx.dev (registered in rdx_dev.c). Errors
 * are ERR; a fallback the user should know of (no RDMA device: the
 * software device) is NOTICE, shown by default (rdx_runtime_init leaves
 * rdx.* at NOTICE) and silenced by --log-level=rdx.*:error.
 */
extern int rdx_dev_logtype;
#define DEV_LOG(level, ...) \
	rte_log(RTE_LOG_ ## level, (uint32_t)rdx_dev_logtype, "rdx: " __VA_ARGS__)

/* List qp (just created). 0 or -ENOMEM (the caller then destroys it). */
int rdx_qp_reg_add(struct rdx_qp *qp);
/* Unlist qp (about to be destroyed); a QP not listed is ignored. */
void rdx_qp_reg_del(struct rdx_qp *qp);
/* rdx_qp_connect succeeded on qp. */
void rdx_qp_reg_connected(struct rdx_qp *qp);
/*
 * Hold the registry (recursive lock) across a driver's qp_destroy or
 * close, so no walk sees a QP half freed.
 */
void rdx_qp_reg_lock(void);
void rdx_qp_reg_unlock(void);
/* dev was closed: forget whatever QPs of it are still listed. */
void rdx_qp_reg_forget_dev(struct rdx_dev *dev);

#endif /* RDX_DEV_PRIV_H */
