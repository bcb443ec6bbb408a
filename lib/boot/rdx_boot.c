/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bootstrap API: the providers that registered, lookup by name, and
 * the calls, each passed to the provider's op (rdx_boot_provider.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_log.h>

#include "rdx_boot.h"
#include "rdx_boot_provider.h"

RTE_LOG_REGISTER(rdx_boot_logtype, rdx.boot, NOTICE)

void
rdx_boot_log(const struct rdx_boot *b, uint32_t level, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	rte_log(level, (uint32_t)rdx_boot_logtype, "%s: %s\n", b->conf.name, line);
}

const char *
rdx_boot_within(const struct rdx_boot *b, char *buf, size_t len)
{
	const char *opt = b->conf.timeout_opt;

	snprintf(buf, len, "within %.1f s%s%s%s", (double)b->conf.timeout_ms / 1000.0,
		 opt != NULL ? " (" : "", opt != NULL ? opt : "", opt != NULL ? ")" : "");
	return buf;
}

int
rdx_boot_wait_failed(const struct rdx_boot *b, int rc, const char *what, const char *where)
{
	char within[96];

	if (rc == -ETIMEDOUT)
		RDX_BOOT_LOG(b, ERR, "no %s %s%s", what, rdx_boot_within(b, within, sizeof(within)),
			     where);
	else if (rc == -EINTR)
		RDX_BOOT_LOG(b, ERR, "no %s%s: interrupted", what, where);
	else if (rc == -ECONNRESET)
		RDX_BOOT_LOG(b, ERR, "no %s%s: the peer is gone", what, where);
	return rc;
}

#define BOOT_MAX_PROVIDERS 8
#define BOOT_DEFAULT_TIMEOUT_MS 10000

static const struct rdx_boot_ops *providers[BOOT_MAX_PROVIDERS];
static unsigned int nb_providers;

void
rdx_boot_provider_register(const struct rdx_boot_ops *ops)
{
	/* constructors run before main and the EAL: a table too small is a
	 * build fault, said on stderr */
	if (nb_providers >= BOOT_MAX_PROVIDERS) {
		fprintf(stderr, "rdx.boot: too many providers, %s not registered\n", ops->name);
		return;
	}
	providers[nb_providers++] = ops;
}

int
rdx_boot_provider_foreach(int (*fn)(const char *name, void *arg), void *arg)
{
	unsigned int i;
	int rc;

	for (i = 0; i < nb_providers; i++) {
		rc = fn(providers[i]->name, arg);
		if (rc != 0)
			return rc;
	}
	return 0;
}

void
rdx_boot_err_set(struct rdx_boot *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->err, sizeof(b->err), fmt, ap);
	va_end(ap);
}

static const struct rdx_boot_ops *
provider_find(const char *name)
{
	unsigned int i;

	for (i = 0; name != NULL && i < nb_providers; i++)
		if (strcmp(providers[i]->name, name) == 0)
			return providers[i];
	return NULL;
}

struct rdx_boot *
rdx_boot_open(const char *name, const struct rdx_boot_conf *conf)
{
	const struct rdx_boot_ops *ops = provider_find(name);
	const char *who = conf != NULL && conf->name != NULL ? conf->name : "rdx";
	struct rdx_boot *b;
	int rc;

	if (ops == NULL) {
		char list[128] = "";
		size_t n = 0;
		unsigned int i;

		for (i = 0; i < nb_providers && n < sizeof(list); i++)
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "",
					      providers[i]->name);
		rte_log(RTE_LOG_ERR, (uint32_t)rdx_boot_logtype,
			"%s: unknown bootstrap '%s' (this build has: %s)\n", who,
			name != NULL ? name : "(null)", list);
		rte_errno = ENOENT;
		return NULL;
	}
	b = calloc(1, sizeof(*b) + ops->priv_size);
	if (b == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	b->ops = ops;
	if (conf != NULL)
		b->conf = *conf;
	snprintf(b->name, sizeof(b->name), "%s", who);
	b->conf.name = b->name;
	if (b->conf.timeout_ms <= 0)
		b->conf.timeout_ms = BOOT_DEFAULT_TIMEOUT_MS;
	b->size = 1;
	b->priv = ops->priv_size > 0 ? (void *)(b + 1) : NULL;
	rc = ops->open(b);
	if (rc < 0) {
		free(b);
		rte_errno = -rc;
		return NULL;
	}
	return b;
}

int
rdx_boot_connect(struct rdx_boot *b)
{
	return b->ops->connect(b);
}

int
rdx_boot_rank(const struct rdx_boot *b)
{
	return b->rank;
}

int
rdx_boot_size(const struct rdx_boot *b)
{
	return b->size;
}

const char *
rdx_boot_provider_name(const struct rdx_boot *b)
{
	return b->ops->name;
}

uint16_t
rdx_boot_port(const struct rdx_boot *b)
{
	return b->ops->port != NULL ? b->ops->port(b) : 0;
}

struct rdx_conn *
rdx_boot_conn(const struct rdx_boot *b)
{
	return b->ops->conn != NULL ? b->ops->conn(b) : NULL;
}

const char *
rdx_boot_strerror(const struct rdx_boot *b)
{
	return b->ops->strerror != NULL ? b->ops->strerror(b) : b->err;
}

int
rdx_boot_exchange(struct rdx_boot *b, uint32_t type, const void *mine, void *theirs,
		  size_t len)
{
	return b->ops->exchange(b, type, mine, theirs, len);
}

int
rdx_boot_run_begin(struct rdx_boot *b, uint32_t req_type, const void *req, uint32_t ack_type,
		   void *ack, size_t len)
{
	if (b->ops->run_begin == NULL)
		return -ENOTSUP;
	return b->ops->run_begin(b, req_type, req, ack_type, ack, len);
}

int
rdx_boot_run_end(struct rdx_boot *b, uint32_t end_type, uint32_t ack_type, void *ack,
		 size_t len, int (*wait)(void *arg), void *arg)
{
	if (b->ops->run_end == NULL)
		return -ENOTSUP;
	return b->ops->run_end(b, end_type, ack_type, ack, len, wait, arg);
}

int
rdx_boot_ack_status(const struct rdx_boot *b, int32_t status)
{
	if (status >= 0)
		return 0;
	/* the server printed the details on its side */
	RDX_BOOT_LOG(b, ERR, "the server failed the run: %s (see its output)", strerror(-status));
	return -EIO;
}

int
rdx_boot_bye(struct rdx_boot *b, uint32_t type, const void *msg, size_t len)
{
	if (b->ops->bye == NULL)
		return -ENOTSUP;
	return b->ops->bye(b, type, msg, len);
}

int
rdx_boot_sync(struct rdx_boot *b, struct rdx_boot_sync *s)
{
	if (b->ops->sync == NULL) {
		s->status = s->rc < 0 ? s->rc : 0;
		s->rank = s->rc < 0 ? b->rank : -1;
		s->stop = 0;
		s->left = s->rc < 0 && s->early;
		return s->rc < 0 ? s->rc : 0;
	}
	return b->ops->sync(b, s);
}

int
rdx_boot_agree(struct rdx_boot *b, int rc, const char *what)
{
	struct rdx_boot_sync s = { .what = what, .rc = rc };

	return rdx_boot_sync(b, &s);
}

int
rdx_boot_eal_args(struct rdx_boot *b, int argc, char **argv, int *out_argc, char ***out_argv)
{
	if (b->ops->eal_args == NULL) {
		*out_argc = argc;
		*out_argv = argv;
		return 0;
	}
	return b->ops->eal_args(b, argc, argv, out_argc, out_argv);
}

int
rdx_boot_qp_connect(struct rdx_boot *b, const struct rdx_dev *dev, struct rdx_qp *const *qps,
		    unsigned int n, const struct rdx_qp_conn_attr *ca, uint32_t *peer_qpn)
{
	if (b->ops->qp_connect == NULL)
		return -ENOTSUP;
	return b->ops->qp_connect(b, dev, qps, n, ca, peer_qpn);
}

const char *
rdx_boot_route(const struct rdx_boot *b)
{
	return b->ops->route != NULL ? b->ops->route(b) : NULL;
}

const char *
rdx_boot_host(const struct rdx_boot *b, int rank)
{
	return b->ops->host != NULL ? b->ops->host(b, rank) : NULL;
}

void
rdx_boot_close(struct rdx_boot *b)
{
	if (b == NULL)
		return;
	b->ops->close(b);
	free(b);
}
