/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx-perf -R (apps/rdx-perf/rdmacm.c) without an RDMA device: the check of
 * the peer's CM private data, host and address parsing, and the listener's
 * refusals that need no device. Connections themselves are tested on
 * soft-RoCE (tests/softroce/rdx_perf_rdmacm.sh).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rdx_ut.h"

#include "../../../apps/rdx-perf/rdmacm.c"

/* setup.c's, which this binary does not link */
int
perf_boot_ms(const struct perf_app *a)
{
	return (int)(a->o.boot_timeout * 1000.0);
}

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

	CU_ASSERT_EQUAL(cm_resolve_host("10.77.0.2", 19001, &ss, "t"), 0);
	CU_ASSERT_EQUAL(ss.ss_family, AF_INET);
	CU_ASSERT_EQUAL(ntohs(((struct sockaddr_in *)&ss)->sin_port), 19001);
	CU_ASSERT_STRING_EQUAL(cm_addr_str((struct sockaddr *)&ss, buf, sizeof(buf)), "10.77.0.2");
	CU_ASSERT_EQUAL(cm_resolve_host("[::1]", 7, &ss, "t"), 0);
	CU_ASSERT_EQUAL(ss.ss_family, AF_INET6);
	CU_ASSERT_EQUAL(ntohs(((struct sockaddr_in6 *)&ss)->sin6_port), 7);
	CU_ASSERT_STRING_EQUAL(cm_addr_str((struct sockaddr *)&ss, buf, sizeof(buf)), "::1");
	/* not an address (and no name service in a test): one line, -EINVAL */
	CU_ASSERT_EQUAL(cm_resolve_host("300.1.2.3.4", 1, &ss, "--source_ip"), -EINVAL);
	CU_ASSERT_EQUAL(cm_resolve_host("", 1, &ss, "--source_ip"), -EINVAL);
}

static void
test_close_empty(void)
{
	struct perf_app a;

	/* nothing opened: nothing to close, twice */
	memset(&a, 0, sizeof(a));
	perf_cm_close(&a);
	perf_cm_close(&a);
	CU_ASSERT_PTR_NULL(a.cm);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "private data check", test_priv_check },
		{ "host and address", test_resolve_host },
		{ "close without open", test_close_empty },
		{ NULL, NULL },
	};

	return rdx_ut_run("rdmacm", cases, NULL, NULL);
}
