/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a bootstrap provider implements (not installed): one file of
 * lib/boot fills a struct rdx_boot_ops and registers it from a constructor
 * with RDX_BOOT_PROVIDER_REGISTER. rdx_boot.c calls the ops only through
 * the table, so no provider file and rdx_boot.c call each other back.
 */
#ifndef RDX_BOOT_PROVIDER_H
#define RDX_BOOT_PROVIDER_H

#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_log.h>

#include "rdx_boot.h"

extern int rdx_boot_logtype;

/* One line of the bootstrap, "<conf.name>: <message>\n", through rte_log
 * with the rdx.boot type (rdx_boot.c). */
void rdx_boot_log(const struct rdx_boot *b, uint32_t level, const char *fmt, ...)
	__rte_format_printf(3, 4);
#define RDX_BOOT_LOG(b, level, ...) rdx_boot_log(b, RTE_LOG_ ## level, __VA_ARGS__)

struct rdx_boot_ops {
	const char *name;
	size_t priv_size;        /* bytes of b->priv (zeroed) */
	/* required */
	int (*open)(struct rdx_boot *b);
	int (*connect)(struct rdx_boot *b);
	int (*exchange)(struct rdx_boot *b, uint32_t type, const void *mine, void *theirs,
			size_t len);
	void (*close)(struct rdx_boot *b);
	/* optional: NULL is -ENOTSUP (sync: the rc; host: NULL) */
	int (*run_begin)(struct rdx_boot *b, uint32_t req_type, const void *req,
			 uint32_t ack_type, void *ack, size_t len);
	int (*run_end)(struct rdx_boot *b, uint32_t end_type, uint32_t ack_type, void *ack,
		       size_t len, int (*wait)(void *arg), void *arg);
	int (*bye)(struct rdx_boot *b, uint32_t type, const void *msg, size_t len);
	int (*sync)(struct rdx_boot *b, struct rdx_boot_sync *s);
	const char *(*host)(const struct rdx_boot *b, int rank);
	int (*eal_args)(struct rdx_boot *b, int argc, char **argv, int *out_argc,
			char ***out_argv);
	const char *(*strerror)(const struct rdx_boot *b);
	struct rdx_conn *(*conn)(const struct rdx_boot *b);
	uint16_t (*port)(const struct rdx_boot *b);
	int (*qp_connect)(struct rdx_boot *b, const struct rdx_dev *dev,
			  struct rdx_qp *const *qps, unsigned int n,
			  const struct rdx_qp_conn_attr *ca, uint32_t *peer_qpn);
	const char *(*route)(const struct rdx_boot *b);
};

struct rdx_boot {
	const struct rdx_boot_ops *ops;
	struct rdx_boot_conf conf;   /* defaults filled in; name copied */
	char name[32];
	int rank;
	int size;
	char err[256];               /* providers without strerror */
	void *priv;
};

/* Record the reason of a failure (rdx_boot_strerror). */
void rdx_boot_err_set(struct rdx_boot *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * A wait that ended without what it waited for, by the rules of
 * rdx_boot.h: one line, and rc back. -ETIMEDOUT: "no WHAT within S s
 * (TIMEOUT_OPT)WHERE"; -EINTR: "no WHAT WHERE: interrupted"; -ECONNRESET:
 * "no WHAT WHERE: the peer is gone". where is "" or starts with a blank.
 */
int rdx_boot_wait_failed(const struct rdx_boot *b, int rc, const char *what, const char *where);

/* "within S s" and, when conf.timeout_opt is set, " (OPT)", into buf. */
const char *rdx_boot_within(const struct rdx_boot *b, char *buf, size_t len);

void rdx_boot_provider_register(const struct rdx_boot_ops *ops);

#define RDX_BOOT_PROVIDER_REGISTER(ops) \
	RTE_INIT(rdx_boot_register_ ## ops) \
	{ \
		rdx_boot_provider_register(&(ops)); \
	}

#endif /* RDX_BOOT_PROVIDER_H */
