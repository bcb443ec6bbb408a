/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx_dev_port_counter_read on a sysfs tree made here: a counter and a
 * hw_counter read, names that would leave the port's directory refused,
 * a missing counter, a file that is not a number; rdx_dev_node_guid_read
 * of a GUID, of a file of another format and of no file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rdx_ut.h"

#include "../../../lib/dev/rdx_dev_sysfs.c"

static char root[64];

static void
put(const char *rel, const char *text)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	f = fopen(p, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
}

static int
init(void)
{
	char p[256];

	snprintf(root, sizeof(root), "/tmp/rdx_dev_sysfs_ut.%d", (int)getpid());
	snprintf(p, sizeof(p), "mkdir -p %s/nic0/ports/1/counters %s/nic0/ports/1/hw_counters", root,
		 root);
	return system(p) == 0 ? 0 : -1;
}

static int
fini(void)
{
	char p[256];

	snprintf(p, sizeof(p), "rm -rf %s", root);
	return system(p) == 0 ? 0 : -1;
}

static void
test_read(void)
{
	uint64_t v = 0;

	put("nic0/ports/1/counters/port_xmit_data", "123456789012\n");
	put("nic0/ports/1/hw_counters/out_of_buffer", "7\n");
	put("secret", "42\n");
	CU_ASSERT_EQUAL(rdx_dev_port_counter_read(root, "nic0", 1, "counters/port_xmit_data", &v), 0);
	CU_ASSERT_EQUAL(v, 123456789012ull);
	CU_ASSERT_EQUAL(rdx_dev_port_counter_read(root, "nic0", 1, "hw_counters/out_of_buffer", &v), 0);
	CU_ASSERT_EQUAL(v, 7);
	CU_ASSERT_EQUAL(rdx_dev_port_counter_read(root, "nic0", 1, "counters/nope", &v), -ENOENT);
	CU_ASSERT_EQUAL(rdx_dev_port_counter_read(root, "nic0", 2, "counters/port_xmit_data", &v),
			-ENOENT);
	CU_ASSERT_EQUAL(rdx_dev_port_counter_read(root, "nic1", 1, "counters/port_xmit_data", &v),
			-ENOENT);
}

static void
test_refused(void)
{
	static const char *const names[] = {
		"", "/etc/passwd", "../../../../secret", "counters/../../../../../secret",
		"counters//port_xmit_data", "counters/", "counters/x y", "..",
	};
	uint64_t v = 99;
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		CU_ASSERT_EQUAL(rdx_dev_port_counter_read(root, "nic0", 1, names[i], &v), -EINVAL);
	CU_ASSERT_EQUAL(rdx_dev_port_counter_read(root, "..", 1, "secret", &v), -EINVAL);
	CU_ASSERT_EQUAL(rdx_dev_port_counter_read(root, "nic0/..", 1, "x", &v), -EINVAL);
	CU_ASSERT_EQUAL(rdx_dev_port_counter_read(root, "nic0", 0, "counters/port_xmit_data", &v),
			-EINVAL);
	CU_ASSERT_EQUAL(v, 99);
}

static void
test_not_a_number(void)
{
	uint64_t v = 5;

	put("nic0/ports/1/counters/text", "N/A\n");
	put("nic0/ports/1/counters/trail", "12x\n");
	CU_ASSERT_EQUAL(rdx_dev_port_counter_read(root, "nic0", 1, "counters/text", &v), -EINVAL);
	CU_ASSERT_EQUAL(rdx_dev_port_counter_read(root, "nic0", 1, "counters/trail", &v), -EINVAL);
	CU_ASSERT_EQUAL(v, 5);
}

static void
test_guid(void)
{
	char g[RDX_DEV_GUID_LEN] = "unchanged";

	put("nic0/node_guid", "0002:c903:0043:9c40\n");
	CU_ASSERT_EQUAL(rdx_dev_node_guid_read(root, "nic0", g), 0);
	CU_ASSERT_STRING_EQUAL(g, "0002:c903:0043:9c40");
	put("nic0/node_guid", "0002:c903:0043:9c4\n");
	CU_ASSERT_EQUAL(rdx_dev_node_guid_read(root, "nic0", g), -EINVAL);
	put("nic0/node_guid", "0002-c903-0043-9c40\n");
	CU_ASSERT_EQUAL(rdx_dev_node_guid_read(root, "nic0", g), -EINVAL);
	put("nic0/node_guid", "0002:c903:0043:9c40 x\n");
	CU_ASSERT_EQUAL(rdx_dev_node_guid_read(root, "nic0", g), -EINVAL);
	CU_ASSERT_STRING_EQUAL(g, "0002:c903:0043:9c40");
	CU_ASSERT_EQUAL(rdx_dev_node_guid_read(root, "nic1", g), -ENOENT);
	CU_ASSERT_EQUAL(rdx_dev_node_guid_read(root, "..", g), -EINVAL);
	CU_ASSERT_EQUAL(rdx_dev_node_guid_read(root, "a/b", g), -EINVAL);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "read", test_read },
		{ "refused", test_refused },
		{ "not_a_number", test_not_a_number },
		{ "node_guid", test_guid },
		{ NULL, NULL },
	};

	return rdx_ut_run("rdx_dev_sysfs", cases, init, fini);
}
