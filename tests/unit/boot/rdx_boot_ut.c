/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/boot/rdx_boot.c: providers by name (a stub provider registered
 * here), an unknown name (NULL, ENOENT, one line naming the known ones),
 * the defaults of the conf, a failing open, the optional ops.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdx_ut.h"

#include "../../../lib/boot/rdx_boot.c"

static int stub_opens, stub_closes, stub_open_rc;
static size_t stub_len;

static int
stub_open(struct rdx_boot *b)
{
	stub_opens++;
	b->rank = 3;
	b->size = 4;
	return stub_open_rc;
}

static int
stub_connect(struct rdx_boot *b)
{
	rdx_boot_err_set(b, "stub %d", 42);
	return -EIO;
}

static int
stub_exchange(struct rdx_boot *b, uint32_t type, const void *mine, void *theirs, size_t len)
{
	RTE_SET_USED(b);
	RTE_SET_USED(type);
	stub_len = len;
	memcpy(theirs, mine, len);
	return 0;
}

static void
stub_close(struct rdx_boot *b)
{
	RTE_SET_USED(b);
	stub_closes++;
}

static const struct rdx_boot_ops stub_ops = {
	.name = "stub",
	.priv_size = 16,
	.open = stub_open,
	.connect = stub_connect,
	.exchange = stub_exchange,
	.close = stub_close,
};

RDX_BOOT_PROVIDER_REGISTER(stub_ops)

static int
count_names(const char *name, void *arg)
{
	CU_ASSERT_STRING_EQUAL(name, "stub");
	(*(int *)arg)++;
	return 0;
}

static void
test_foreach(void)
{
	int n = 0;

	CU_ASSERT_EQUAL(rdx_boot_provider_foreach(count_names, &n), 0);
	CU_ASSERT_EQUAL(n, 1);
}

static void
test_unknown(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(rte_openlog_stream(f), 0);
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(rdx_boot_open("carrier-pigeon", NULL));
	CU_ASSERT_EQUAL(rte_errno, ENOENT);
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(rdx_boot_open(NULL, &(struct rdx_boot_conf){ .name = "svc" }));
	CU_ASSERT_EQUAL(rte_errno, ENOENT);
	rte_openlog_stream(NULL);
	fclose(f);
	CU_ASSERT_STRING_EQUAL(text,
		"rdx: unknown bootstrap 'carrier-pigeon' (this build has: stub)\n"
		"svc: unknown bootstrap '(null)' (this build has: stub)\n");
	free(text);
	CU_ASSERT_EQUAL(stub_opens, 0);
}

static void
test_open_close(void)
{
	struct rdx_boot *b;
	char in[8] = "abcdefg", out[8] = "";

	b = rdx_boot_open("stub", NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(stub_opens, 1);
	CU_ASSERT_STRING_EQUAL(rdx_boot_provider_name(b), "stub");
	CU_ASSERT_EQUAL(rdx_boot_rank(b), 3);
	CU_ASSERT_EQUAL(rdx_boot_size(b), 4);
	/* the defaults */
	CU_ASSERT_EQUAL(b->conf.timeout_ms, BOOT_DEFAULT_TIMEOUT_MS);
	CU_ASSERT_STRING_EQUAL(b->conf.name, "rdx");
	CU_ASSERT_PTR_NOT_NULL(b->priv);
	/* the calls reach the ops; the optional ones are -ENOTSUP */
	CU_ASSERT_EQUAL(rdx_boot_connect(b), -EIO);
	CU_ASSERT_STRING_EQUAL(rdx_boot_strerror(b), "stub 42");
	CU_ASSERT_EQUAL(rdx_boot_exchange(b, 1, in, out, sizeof(in)), 0);
	CU_ASSERT_EQUAL(stub_len, sizeof(in));
	CU_ASSERT_STRING_EQUAL(out, in);
	CU_ASSERT_EQUAL(rdx_boot_run_begin(b, 1, in, 2, out, 1), -ENOTSUP);
	CU_ASSERT_EQUAL(rdx_boot_run_end(b, 1, 2, out, 1, NULL, NULL), -ENOTSUP);
	CU_ASSERT_EQUAL(rdx_boot_bye(b, 1, in, 1), -ENOTSUP);
	CU_ASSERT_PTR_NULL(rdx_boot_conn(b));
	CU_ASSERT_EQUAL(rdx_boot_port(b), 0);
	/* one peer's agreement is its own rc */
	CU_ASSERT_EQUAL(rdx_boot_agree(b, -EPIPE, "x"), -EPIPE);
	CU_ASSERT_EQUAL(rdx_boot_agree(b, 0, "x"), 0);
	{
		struct rdx_boot_sync sy = { .what = "x", .rc = -EIO, .early = true };

		CU_ASSERT_EQUAL(rdx_boot_sync(b, &sy), -EIO);
		CU_ASSERT_EQUAL(sy.status, -EIO);
		CU_ASSERT_EQUAL(sy.rank, 3);
		CU_ASSERT_EQUAL(sy.stop, 0);
		CU_ASSERT_TRUE(sy.left);
		sy.rc = 0;
		CU_ASSERT_EQUAL(rdx_boot_sync(b, &sy), 0);
		CU_ASSERT_EQUAL(sy.rank, -1);
		CU_ASSERT_FALSE(sy.left);
	}
	CU_ASSERT_PTR_NULL(rdx_boot_host(b, 0));
	{
		char *eal_in[] = { "prog", "--no-huge", "--", "-x", NULL }, **eal_out = NULL;
		int argc = 0;

		/* a provider without its own: the EAL arguments as they are */
		CU_ASSERT_EQUAL(rdx_boot_eal_args(b, 4, eal_in, &argc, &eal_out), 0);
		CU_ASSERT_EQUAL(argc, 4);
		CU_ASSERT_PTR_EQUAL(eal_out, eal_in);
	}
	CU_ASSERT_EQUAL(rdx_boot_ack_status(b, 0), 0);
	CU_ASSERT_EQUAL(rdx_boot_ack_status(b, -EIO), -EIO);
	CU_ASSERT_EQUAL(rdx_boot_ack_status(b, -ENOMEM), -EIO);
	rdx_boot_close(b);
	CU_ASSERT_EQUAL(stub_closes, 1);
	rdx_boot_close(NULL);
	CU_ASSERT_EQUAL(stub_closes, 1);
}

static void
test_open_fails(void)
{
	stub_open_rc = -EADDRINUSE;
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(rdx_boot_open("stub", &(struct rdx_boot_conf){ .timeout_ms = 5 }));
	CU_ASSERT_EQUAL(rte_errno, EADDRINUSE);
	stub_open_rc = 0;
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{"foreach", test_foreach},
		{"unknown name", test_unknown},
		{"open, calls, close", test_open_close},
		{"open fails", test_open_fails},
		{NULL, NULL},
	};

	return rdx_ut_run("rdx_boot", cases, NULL, NULL);
}
