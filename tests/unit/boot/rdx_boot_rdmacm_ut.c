/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/boot/rdx_boot_rdmacm.c without an RDMA device: opening "rdmacm"
 * where there is none (NULL, ENODEV, one line), the provider in the list
 * rdx_boot_open names, the check of the peer's private data, host and
 * address parsing, closing what was never connected. Connections
 * themselves run on soft-RoCE (tests/softroce/rdx_perf_rdmacm.sh).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdx_ut.h"

#include "../../../lib/boot/rdx_boot_rdmacm.c"

static struct rdx_boot fake = { .conf = { .name = "t" } };

static void
priv_good(struct cm_priv *p)
{
	memset(p, 0, sizeof(*p));
	p->magic = CM_MAGIC;
	p->index = 3;
	p->qp_num = 0x11;
	p->psn = 0xabcdef;
	p->mtu = 3;
}

static void
test_priv_check(void)
{
	struct cm_priv p;
	char err[160];

	/* it fits the 56 bytes a REQ carries */
	CU_ASSERT(sizeof(p) <= 56);
	priv_good(&p);
	CU_ASSERT_EQUAL(cm_priv_check(&p, 3, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(cm_priv_check(&p, 2, err, sizeof(err)), -EPROTO);
	CU_ASSERT(strstr(err, "for QP 3") != NULL);
	p.magic ^= 1;
	CU_ASSERT_EQUAL(cm_priv_check(&p, 3, err, sizeof(err)), -EPROTO);
	CU_ASSERT(strstr(err, "magic") != NULL);
	priv_good(&p);
	p.qp_num = 0;
	CU_ASSERT_EQUAL(cm_priv_check(&p, 3, err, sizeof(err)), -EPROTO);
	p.qp_num = 0x1000000;
	CU_ASSERT_EQUAL(cm_priv_check(&p, 3, err, sizeof(err)), -EPROTO);
	CU_ASSERT(strstr(err, "QP number") != NULL);
	p.qp_num = 0xffffff;
	CU_ASSERT_EQUAL(cm_priv_check(&p, 3, err, sizeof(err)), 0);
	p.psn = 0x1000000;
	CU_ASSERT_EQUAL(cm_priv_check(&p, 3, err, sizeof(err)), -EPROTO);
	CU_ASSERT(strstr(err, "PSN") != NULL);
	priv_good(&p);
	p.mtu = 0;
	CU_ASSERT_EQUAL(cm_priv_check(&p, 3, err, sizeof(err)), -EPROTO);
	p.mtu = 6;
	CU_ASSERT_EQUAL(cm_priv_check(&p, 3, err, sizeof(err)), -EPROTO);
	CU_ASSERT(strstr(err, "MTU") != NULL);
	priv_good(&p);
	p.pad = 1;
	CU_ASSERT_EQUAL(cm_priv_check(&p, 3, err, sizeof(err)), -EPROTO);
}

static void
test_resolve_host(void)
{
	struct sockaddr_storage ss;
	char buf[64];

	CU_ASSERT_EQUAL(cm_resolve_host(&fake, "10.77.0.2", 19001, &ss), 0);
	CU_ASSERT_EQUAL(ss.ss_family, AF_INET);
	CU_ASSERT_EQUAL(ntohs(((struct sockaddr_in *)&ss)->sin_port), 19001);
	CU_ASSERT_STRING_EQUAL(cm_addr_str((struct sockaddr *)&ss, buf, sizeof(buf)), "10.77.0.2");
	CU_ASSERT_EQUAL(cm_resolve_host(&fake, "[::1]", 7, &ss), 0);
	CU_ASSERT_EQUAL(ss.ss_family, AF_INET6);
	CU_ASSERT_EQUAL(ntohs(((struct sockaddr_in6 *)&ss)->sin6_port), 7);
	CU_ASSERT_STRING_EQUAL(cm_addr_str((struct sockaddr *)&ss, buf, sizeof(buf)), "::1");
	/* not an address (and no name service in a test): one line, -EINVAL */
	CU_ASSERT_EQUAL(cm_resolve_host(&fake, "300.1.2.3.4", 1, &ss), -EINVAL);
	CU_ASSERT_EQUAL(cm_resolve_host(&fake, "", 1, &ss), -EINVAL);
}

/* What rdx_boot_open said while fn ran, in a string to free. */
static char *
log_of(void (*fn)(void *), void *arg)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(rte_openlog_stream(f), 0);
	fn(arg);
	rte_openlog_stream(NULL);
	fclose(f);
	return text;
}

static int
devices_here(void)
{
	struct ibv_device **l;
	int n = 0;

	l = ibv_get_device_list(&n);
	if (l != NULL)
		ibv_free_device_list(l);
	return n;
}

struct opened {
	struct rdx_boot *b;
	int err;
};

static void
open_rdmacm(void *arg)
{
	const struct rdx_boot_conf conf = { .name = "svc", .timeout_ms = 200,
					    .timeout_given = true };
	struct opened *o = arg;

	rte_errno = 0;
	o->b = rdx_boot_open("rdmacm", &conf);
	o->err = rte_errno;
}

/* No RDMA device: NULL, ENODEV, one line that says so (not a crash). */
static void
test_open_no_device(void)
{
	struct opened o = { NULL, 0 };
	char *text;

	if (devices_here() > 0) {
		printf("(this machine has an RDMA device: the no-device case is not run) ");
		return;
	}
	text = log_of(open_rdmacm, &o);
	CU_ASSERT_PTR_NULL(o.b);
	CU_ASSERT(o.err == ENODEV || o.err == ENOENT);
	CU_ASSERT_STRING_EQUAL(text, "svc: rdma_cm: no RDMA device here (rdma_cm connects the QPs of one; the software device has none)\n");
	free(text);
	rdx_boot_close(o.b);
}

static void
open_unknown(void *arg)
{
	*(struct rdx_boot **)arg = rdx_boot_open("carrier-pigeon", NULL);
}

/* rdx_boot_open's list of what the build has names rdmacm and tcp */
static void
test_listed(void)
{
	const char *head = "rdx: unknown bootstrap 'carrier-pigeon' (this build has: ";
	struct rdx_boot *b = NULL;
	char *text = log_of(open_unknown, &b);

	CU_ASSERT_PTR_NULL(b);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT(strncmp(text, head, strlen(head)) == 0);
	CU_ASSERT(strstr(text, "rdmacm") != NULL);
	CU_ASSERT(strstr(text, "tcp") != NULL);
	free(text);
}

/* ops on a bootstrap whose open made nothing: close is safe, the
 * QP call is -ENOTCONN, there is no route */
static void
test_close_empty(void)
{
	struct {
		struct rdx_boot b;
		struct cm_boot c;
	} s;

	memset(&s, 0, sizeof(s));
	s.b.priv = &s.c;
	s.b.conf.name = "t";
	CU_ASSERT_PTR_NULL(cm_route(&s.b));
	CU_ASSERT_PTR_NULL(cm_conn(&s.b));
	CU_ASSERT_EQUAL(cm_port(&s.b), 0);
	CU_ASSERT_EQUAL(cm_qp_connect(&s.b, NULL, NULL, 0, NULL, NULL), -ENOTCONN);
	cm_close(&s.b);
	cm_close(&s.b);
	CU_ASSERT_PTR_NULL(s.c.tcp);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "private data check", test_priv_check },
		{ "host and address", test_resolve_host },
		{ "open without an RDMA device", test_open_no_device },
		{ "listed among the providers", test_listed },
		{ "close without open", test_close_empty },
		{ NULL, NULL },
	};

	return rdx_ut_run("rdx_boot_rdmacm", cases, NULL, NULL);
}
