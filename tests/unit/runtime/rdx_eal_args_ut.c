/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx_eal_args.c: the argv builder, the core checks, unknown options and
 * the hugepage probe, without EAL. The .c is included to reach the static
 * helpers, so core counts other than this machine's can be checked.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rdx_ut.h"

#include "../../../lib/runtime/rdx_eal_args.c"

#define OUT_MAX 64

struct built {
	char *out[OUT_MAX];
	char scratch[64];
	struct rdx_eal_plan plan;
	int n;
};

static int
build(struct built *b, bool huge, int argc, const char **argv)
{
	memset(b, 0, sizeof(*b));
	b->n = rdx_runtime_eal_args(argc, (char **)(uintptr_t)argv, huge, b->out, OUT_MAX,
				    b->scratch, sizeof(b->scratch), &b->plan);
	return b->n;
}

static int
count(const struct built *b, const char *s)
{
	int i, c = 0;

	for (i = 0; i < b->n; i++)
		if (strcmp(b->out[i], s) == 0)
			c++;
	return c;
}

static int
index_of(const struct built *b, const char *s)
{
	int i;

	for (i = 0; i < b->n; i++)
		if (strcmp(b->out[i], s) == 0)
			return i;
	return -1;
}

static int
count_prefix(const struct built *b, const char *p)
{
	int i, c = 0;

	for (i = 0; i < b->n; i++)
		if (strncmp(b->out[i], p, strlen(p)) == 0)
			c++;
	return c;
}

/* ------------------------------------------------------------- eal args */

static void
test_defaults_no_hugepages(void)
{
	const char *argv[] = { "app", "-l", "0-1" };
	struct built b;
	char prefix[64];

	CU_ASSERT_EQUAL(build(&b, false, 3, argv), 8);
	CU_ASSERT_STRING_EQUAL(b.out[0], "app");
	CU_ASSERT_TRUE(b.plan.added_no_huge);
	CU_ASSERT_TRUE(b.plan.added_no_pci);
	CU_ASSERT_TRUE(b.plan.added_log_level);
	CU_ASSERT_TRUE(b.plan.added_file_prefix);
	CU_ASSERT_TRUE(b.plan.has_core_option);
	CU_ASSERT_EQUAL(count(&b, "--no-huge"), 1);
	CU_ASSERT_EQUAL(count(&b, "--no-pci"), 1);
	/* per-type levels (the global one caps every type): EAL quiet, rdx not */
	CU_ASSERT_EQUAL(count(&b, "--log-level=*:error"), 1);
	CU_ASSERT_EQUAL(index_of(&b, "--log-level=rdx.*:notice"),
			index_of(&b, "--log-level=*:error") + 1);
	CU_ASSERT_EQUAL(count(&b, "--log-level=error"), 0);
	snprintf(prefix, sizeof(prefix), "--file-prefix=rdx-%ld", (long)getpid());
	CU_ASSERT_EQUAL(count(&b, prefix), 1);
	/* The user's options are kept, in order. */
	CU_ASSERT_EQUAL(index_of(&b, "0-1"), index_of(&b, "-l") + 1);
	CU_ASSERT_PTR_NULL(b.out[b.n]);
}

static void
test_hugepages_available(void)
{
	const char *argv[] = { "app" };
	struct built b;

	CU_ASSERT(build(&b, true, 1, argv) > 0);
	CU_ASSERT_FALSE(b.plan.added_no_huge);
	CU_ASSERT_EQUAL(count(&b, "--no-huge"), 0);
	CU_ASSERT_FALSE(b.plan.has_core_option);
}

static void
test_memory_option_keeps_hugepages(void)
{
	const char *a1[] = { "app", "-m", "512" };
	const char *a2[] = { "app", "--socket-mem=512,0" };
	const char *a3[] = { "app", "-m512" };
	const char *a4[] = { "app", "--no-huge", "-m", "64" };
	struct built b;

	CU_ASSERT(build(&b, false, 3, a1) > 0);
	CU_ASSERT_FALSE(b.plan.added_no_huge);
	CU_ASSERT_EQUAL(count(&b, "--no-huge"), 0);
	CU_ASSERT(build(&b, false, 2, a2) > 0);
	CU_ASSERT_FALSE(b.plan.added_no_huge);
	CU_ASSERT(build(&b, false, 2, a3) > 0);
	CU_ASSERT_FALSE(b.plan.added_no_huge);
	/* Given by the user: kept once, not added again. */
	CU_ASSERT(build(&b, false, 4, a4) > 0);
	CU_ASSERT_FALSE(b.plan.added_no_huge);
	CU_ASSERT_EQUAL(count(&b, "--no-huge"), 1);
}

static void
test_in_memory_without_hugepages(void)
{
	const char *argv[] = { "app", "--in-memory" };
	struct built b;

	/* DPDK 22.11 refuses --in-memory with --no-huge: becomes --no-shconf. */
	CU_ASSERT(build(&b, false, 2, argv) > 0);
	CU_ASSERT_TRUE(b.plan.added_no_huge);
	CU_ASSERT_EQUAL(count(&b, "--in-memory"), 0);
	CU_ASSERT_EQUAL(count(&b, "--no-shconf"), 1);
	CU_ASSERT_EQUAL(count(&b, "--no-huge"), 1);
	/* Also when the user gave --no-huge. */
	const char *a2[] = { "app", "--no-huge", "--in-memory" };
	CU_ASSERT(build(&b, true, 3, a2) > 0);
	CU_ASSERT_EQUAL(count(&b, "--in-memory"), 0);
	CU_ASSERT_EQUAL(count(&b, "--no-shconf"), 1);
	CU_ASSERT_EQUAL(count(&b, "--no-huge"), 1);
	/* With hugepages it stays as given. */
	CU_ASSERT(build(&b, true, 2, argv) > 0);
	CU_ASSERT_EQUAL(count(&b, "--in-memory"), 1);
	CU_ASSERT_EQUAL(count(&b, "--no-shconf"), 0);
	CU_ASSERT_EQUAL(count(&b, "--no-huge"), 0);
}

static void
test_pci_decision(void)
{
	const char *a1[] = { "app", "-a", "0000:03:00.0" };
	const char *a2[] = { "app", "--vdev=net_null0" };
	const char *a3[] = { "app", "-b0000:03:00.1" };
	const char *a4[] = { "app", "--no-pci" };
	const char *a5[] = { "app", "--allow", "0000:03:00.0" };
	struct built b;

	CU_ASSERT(build(&b, true, 3, a1) > 0);
	CU_ASSERT_FALSE(b.plan.added_no_pci);
	CU_ASSERT_EQUAL(count(&b, "--no-pci"), 0);
	CU_ASSERT(build(&b, true, 2, a2) > 0);
	CU_ASSERT_FALSE(b.plan.added_no_pci);
	CU_ASSERT(build(&b, true, 2, a3) > 0);
	CU_ASSERT_FALSE(b.plan.added_no_pci);
	CU_ASSERT(build(&b, true, 3, a5) > 0);
	CU_ASSERT_FALSE(b.plan.added_no_pci);
	CU_ASSERT(build(&b, true, 2, a4) > 0);
	CU_ASSERT_FALSE(b.plan.added_no_pci);
	CU_ASSERT_EQUAL(count(&b, "--no-pci"), 1);
}

static void
test_file_prefix_kept(void)
{
	const char *a1[] = { "app", "--file-prefix", "mine" };
	const char *a2[] = { "app", "--file-prefix=mine" };
	struct built b;

	CU_ASSERT(build(&b, true, 3, a1) > 0);
	CU_ASSERT_FALSE(b.plan.added_file_prefix);
	CU_ASSERT_EQUAL(count_prefix(&b, "--file-prefix"), 1);
	CU_ASSERT_EQUAL(count(&b, "mine"), 1);
	CU_ASSERT(build(&b, true, 2, a2) > 0);
	CU_ASSERT_FALSE(b.plan.added_file_prefix);
	CU_ASSERT_EQUAL(count_prefix(&b, "--file-prefix"), 1);
	CU_ASSERT_EQUAL(count(&b, "--file-prefix=mine"), 1);
}

static void
test_log_level(void)
{
	const char *a1[] = { "app", "--log-level=debug" };
	const char *a2[] = { "app", "--log-level", "8" };
	const char *a3[] = { "app", "--log-level=lib.eal:debug" };
	struct built b;

	CU_ASSERT(build(&b, true, 2, a1) > 0);
	CU_ASSERT_FALSE(b.plan.added_log_level);
	CU_ASSERT_EQUAL(count(&b, "--log-level=*:error"), 0);
	CU_ASSERT_EQUAL(count(&b, "--log-level=rdx.*:notice"), 0);
	CU_ASSERT(build(&b, true, 3, a2) > 0);
	CU_ASSERT_FALSE(b.plan.added_log_level);
	/* A per-type level: ours come first, so the user's wins for its types. */
	CU_ASSERT(build(&b, true, 2, a3) > 0);
	CU_ASSERT_TRUE(b.plan.added_log_level);
	CU_ASSERT(index_of(&b, "--log-level=*:error") >= 0);
	CU_ASSERT(index_of(&b, "--log-level=rdx.*:notice") <
		  index_of(&b, "--log-level=lib.eal:debug"));
}

static void
test_stops_at_double_dash(void)
{
	const char *argv[] = { "app", "-c", "0x1", "--", "-a", "x", "--no-pci" };
	struct built b;

	CU_ASSERT(build(&b, true, 7, argv) > 0);
	CU_ASSERT_EQUAL(count(&b, "--"), 0);
	CU_ASSERT_EQUAL(count(&b, "x"), 0);
	/* "-a" after "--" is the app's, not a PCI option. */
	CU_ASSERT_TRUE(b.plan.added_no_pci);
	CU_ASSERT_EQUAL(count(&b, "--no-pci"), 1);
	CU_ASSERT_TRUE(b.plan.has_core_option);
}

static void
test_attached_and_long_forms(void)
{
	const char *a1[] = { "app", "-l0-1" };
	const char *a2[] = { "app", "--lcores=0-1" };
	const char *a3[] = { "app", "--no-hugepages-please" };
	struct built b;

	CU_ASSERT(build(&b, true, 2, a1) > 0);
	CU_ASSERT_TRUE(b.plan.has_core_option);
	CU_ASSERT(build(&b, true, 2, a2) > 0);
	CU_ASSERT_TRUE(b.plan.has_core_option);
	/* Not --no-huge: a prefix of a longer word does not match. */
	CU_ASSERT(build(&b, false, 2, a3) > 0);
	CU_ASSERT_TRUE(b.plan.added_no_huge);
}

static void
test_bad_builder_input(void)
{
	const char *a1[] = { "app", "-l" };
	const char *a2[] = { "app" };
	char *out[16], scratch[64], small[8];

	CU_ASSERT_EQUAL(rdx_runtime_eal_args(2, (char **)(uintptr_t)a1, true, out, 16,
					     scratch, sizeof(scratch), NULL), -EINVAL);
	/* out must have room for argc + 8. */
	CU_ASSERT_EQUAL(rdx_runtime_eal_args(1, (char **)(uintptr_t)a2, true, out, 4,
					     scratch, sizeof(scratch), NULL), -EINVAL);
	CU_ASSERT_EQUAL(rdx_runtime_eal_args(1, (char **)(uintptr_t)a2, true, NULL, 16,
					     scratch, sizeof(scratch), NULL), -EINVAL);
	CU_ASSERT_EQUAL(rdx_runtime_eal_args(1, (char **)(uintptr_t)a2, true, out, 16,
					     small, sizeof(small), NULL), -EINVAL);
}

/* ---------------------------------------------------------- core checks */

static void
test_core_mask(void)
{
	char err[160];

	CU_ASSERT_EQUAL(check_cores_n("-c", "0x3", 2, NULL, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(check_cores_n("-c", "3", 2, NULL, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(check_cores_n("-c", "0X1", 2, NULL, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(check_cores_n("-c", "0xFf", 8, NULL, err, sizeof(err)), 0);
	/* Wider than 64 bits, high digits zero: fine. */
	CU_ASSERT_EQUAL(check_cores_n("-c", "0x000000000000000000000001", 2, NULL, err,
				      sizeof(err)), 0);

	CU_ASSERT_EQUAL(check_cores_n("-c", "0xZZ", 2, NULL, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "bad core mask '0xZZ': not a hexadecimal number");
	CU_ASSERT_EQUAL(check_cores_n("-c", "0x0", 2, NULL, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "bad core mask '0x0': selects no core");
	CU_ASSERT_EQUAL(check_cores_n("-c", "0x4", 2, NULL, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "core mask '0x4' names core 2 but this machine has 2 cores (0-1)");
	CU_ASSERT_EQUAL(check_cores_n("-c", "0x100000000", 8, NULL, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "names core 32"));
	CU_ASSERT_EQUAL(check_cores_n("-c", "", 2, NULL, err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(check_cores_n("-c", "0x", 2, NULL, err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(check_cores_n("-c", "-1", 2, NULL, err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(check_cores_n("-c", "0x2", 1, NULL, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "core mask '0x2' names core 1 but this machine has 1 core (0)");
}

static void
test_core_list(void)
{
	bool set[8] = { false };
	char err[160];

	CU_ASSERT_EQUAL(check_cores_n("-l", "0-1", 2, NULL, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(check_cores_n("-l", "1", 2, NULL, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(check_cores_n("-l", "0,1", 2, NULL, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(check_cores_n("-l", "0-3,5", 8, set, err, sizeof(err)), 0);
	CU_ASSERT_TRUE(set[0] && set[1] && set[2] && set[3] && set[5]);
	CU_ASSERT_FALSE(set[4] || set[6] || set[7]);

	CU_ASSERT_EQUAL(check_cores_n("-l", "0-7", 2, NULL, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "core list '0-7' names core 7 but this machine has 2 cores (0-1)");
	CU_ASSERT_EQUAL(check_cores_n("-l", "1-0", 2, NULL, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "backwards"));
	const char *bad[] = { "", "a", "0-", "-1", "0,,1", "0,", "0-1x", "0 1", "0:1" };
	for (size_t i = 0; i < RTE_DIM(bad); i++) {
		CU_ASSERT_EQUAL(check_cores_n("-l", bad[i], 2, NULL, err, sizeof(err)), -EINVAL);
		CU_ASSERT_PTR_NOT_NULL(strstr(err, "core list"));
	}
}

static void
test_lcores_and_main(void)
{
	char err[160];

	/* "@" and group forms are EAL's business. */
	CU_ASSERT_EQUAL(check_cores_n("--lcores", "0@1,1@0", 2, NULL, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(check_cores_n("--lcores", "(0-1)@0", 2, NULL, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(check_cores_n("--lcores", "0-1", 2, NULL, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(check_cores_n("--lcores", "0-4", 2, NULL, err, sizeof(err)), -EINVAL);

	CU_ASSERT_EQUAL(check_cores_n("--main-lcore", "1", 2, NULL, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(check_cores_n("--main-lcore", "5", 2, NULL, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "main lcore 5 does not exist: this machine has 2 cores (0-1)");
	CU_ASSERT_EQUAL(check_cores_n("--main-lcore", "x", 2, NULL, err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(check_cores_n("--main-lcore", "1x", 2, NULL, err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(check_cores_n("-x", "1", 2, NULL, err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(check_cores_n("-l", NULL, 2, NULL, err, sizeof(err)), -EINVAL);
	/* Tolerates no error buffer. */
	CU_ASSERT_EQUAL(check_cores_n("-l", "9", 2, NULL, NULL, 0), -EINVAL);
}

static void
test_eal_core_combinations(void)
{
	const char *a1[] = { "app", "-c", "0x3", "-l", "0-1" };
	const char *a2[] = { "app", "-l", "0", "--main-lcore", "1" };
	const char *a3[] = { "app", "-l", "0-1", "--main-lcore=1" };
	const char *a4[] = { "app", "--main-lcore", "1" };
	const char *a5[] = { "app", "-l", "0", "-l", "1" };
	const char *a6[] = { "app", "--lcores", "0@1", "--main-lcore", "0" };
	const char *a7[] = { "app", "-l", "0", "--", "-l", "1" };
	char err[160];

	CU_ASSERT_EQUAL(check_eal_cores_n(5, (char **)(uintptr_t)a1, 2, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "-c and -l both select cores: use only one of them");
	CU_ASSERT_EQUAL(check_eal_cores_n(5, (char **)(uintptr_t)a2, 2, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "main lcore 1 is not in the cores selected by -l 0");
	CU_ASSERT_EQUAL(check_eal_cores_n(4, (char **)(uintptr_t)a3, 2, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(check_eal_cores_n(3, (char **)(uintptr_t)a4, 2, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(check_eal_cores_n(3, (char **)(uintptr_t)a4, 1, err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(check_eal_cores_n(5, (char **)(uintptr_t)a5, 2, err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(check_eal_cores_n(5, (char **)(uintptr_t)a6, 2, err, sizeof(err)), 0);
	/* After "--" the options are the app's. */
	CU_ASSERT_EQUAL(check_eal_cores_n(6, (char **)(uintptr_t)a7, 2, err, sizeof(err)), 0);
	/* Public wrapper on this machine: core 0 always exists. */
	CU_ASSERT_EQUAL(rdx_runtime_check_eal_args(3, (char **)(uintptr_t)a7, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(rdx_runtime_check_cores("-l", "0", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(rdx_runtime_check_cores("-c", "0xZZ", err, sizeof(err)), -EINVAL);
}

static void
test_unknown_option_named(void)
{
	const char *a1[] = { "app", "-l", "0", "--bogus", "-x" };
	const char *a2[] = { "app", "--no-huge", "-m", "64", "--file-prefix=p", "-l0",
			     "--vdev", "net_null0", "--log-level", "8" };
	const char *a3[] = { "app", "--", "--bogus" };
	const char *a4[] = { "app", "--no-hugeX" };

	CU_ASSERT_STRING_EQUAL(rdx_runtime_eal_unknown_option(5, (char **)(uintptr_t)a1), "--bogus");
	CU_ASSERT_PTR_NULL(rdx_runtime_eal_unknown_option(10, (char **)(uintptr_t)a2));
	CU_ASSERT_PTR_NULL(rdx_runtime_eal_unknown_option(3, (char **)(uintptr_t)a3));
	CU_ASSERT_STRING_EQUAL(rdx_runtime_eal_unknown_option(2, (char **)(uintptr_t)a4), "--no-hugeX");
}

static void
test_is_eal_option(void)
{
	CU_ASSERT_TRUE(rdx_runtime_is_eal_option("-l"));
	CU_ASSERT_TRUE(rdx_runtime_is_eal_option("-l0-1"));
	CU_ASSERT_TRUE(rdx_runtime_is_eal_option("--no-huge"));
	CU_ASSERT_TRUE(rdx_runtime_is_eal_option("--file-prefix=x"));
	CU_ASSERT_TRUE(rdx_runtime_is_eal_option("--lcores"));
	CU_ASSERT_FALSE(rdx_runtime_is_eal_option("--no-hugeX"));
	CU_ASSERT_FALSE(rdx_runtime_is_eal_option("--bogus"));
	CU_ASSERT_FALSE(rdx_runtime_is_eal_option("--"));
	CU_ASSERT_FALSE(rdx_runtime_is_eal_option("0"));
	CU_ASSERT_FALSE(rdx_runtime_is_eal_option(NULL));
}

/* ------------------------------------------------------ hugepage probe */

/* One "Name:   value" line of /proc/meminfo; -1 when absent. */
static long
meminfo_value(const char *name)
{
	char line[256];
	size_t n = strlen(name);
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, name, n) == 0 && line[n] == ':') {
			v = strtol(line + n + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

/* A number from /sys/kernel/mm/hugepages/<dir>/<file>; -1 when unreadable. */
static long
sysfs_value(const char *dir, const char *file)
{
	char path[512];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/mm/hugepages/%s/%s", dir, file);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* A hugetlbfs entry in /proc/mounts, read field by field (third = type). */
static bool
mounts_have_hugetlbfs(void)
{
	char dev[256], dir[256], type[64];
	bool found = false;
	FILE *f = fopen("/proc/mounts", "r");
	int c;

	if (f == NULL)
		return false;
	while (!found && fscanf(f, "%255s %255s %63s", dev, dir, type) == 3) {
		found = strcmp(type, "hugetlbfs") == 0;
		while ((c = fgetc(f)) != EOF && c != '\n')
			;
	}
	fclose(f);
	return found;
}

/*
 * The probe against the kernel's own accounts: per page size in
 * /sys/kernel/mm/hugepages (free <= total), the default size there equal to
 * /proc/meminfo's HugePages_Total/HugePages_Free, the probe true exactly
 * when some size has free pages and hugetlbfs is mounted, and the argv
 * builder adding --no-huge exactly when the probe says none are usable.
 */
static void
test_hugepage_probe(void)
{
	long mi_total = meminfo_value("HugePages_Total");
	long mi_free = meminfo_value("HugePages_Free");
	long mi_size_kb = meminfo_value("Hugepagesize");
	long free_all = 0, nr, fr;
	char default_dir[64];
	bool default_seen = false, probe, mounted;
	const char *argv[] = { "app", "-l", "0" };
	struct dirent *e;
	struct built b;
	DIR *d;

	snprintf(default_dir, sizeof(default_dir), "hugepages-%ldkB", mi_size_kb);
	d = opendir("/sys/kernel/mm/hugepages");
	if (d != NULL) {
		while ((e = readdir(d)) != NULL) {
			if (strncmp(e->d_name, "hugepages-", 10) != 0)
				continue;
			nr = sysfs_value(e->d_name, "nr_hugepages");
			fr = sysfs_value(e->d_name, "free_hugepages");
			CU_ASSERT(nr >= 0 && fr >= 0);
			CU_ASSERT(fr <= nr);
			if (fr > 0)
				free_all += fr;
			if (strcmp(e->d_name, default_dir) == 0) {
				default_seen = true;
				CU_ASSERT_EQUAL(nr, mi_total);
				CU_ASSERT_EQUAL(fr, mi_free);
			}
		}
		closedir(d);
	}
	/* Either both sides know hugepages (default size listed) or neither. */
	CU_ASSERT_EQUAL(default_seen, mi_total >= 0 && mi_size_kb > 0);
	mounted = mounts_have_hugetlbfs();
	probe = rdx_runtime_hugepages_available();
	printf("  (HugePages_Total %ld, HugePages_Free %ld, free of all sizes %ld, "
	       "hugetlbfs %s: probe %s)\n", mi_total, mi_free, free_all,
	       mounted ? "mounted" : "not mounted", probe ? "true" : "false");
	CU_ASSERT_EQUAL(probe, free_all > 0 && mounted);
	CU_ASSERT_EQUAL(hugetlbfs_mounted(), mounted);
	/* --no-huge exactly when no free hugepages can be used. */
	CU_ASSERT_FATAL(build(&b, probe, 3, argv) > 0);
	CU_ASSERT_EQUAL(b.plan.added_no_huge, free_all == 0 || !mounted);
	CU_ASSERT_EQUAL(count(&b, "--no-huge"), free_all == 0 || !mounted ? 1 : 0);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "defaults without hugepages", test_defaults_no_hugepages },
		{ "hugepages available", test_hugepages_available },
		{ "memory option keeps hugepages", test_memory_option_keeps_hugepages },
		{ "--in-memory without hugepages", test_in_memory_without_hugepages },
		{ "--no-pci decision", test_pci_decision },
		{ "file prefix kept", test_file_prefix_kept },
		{ "log level", test_log_level },
		{ "stops at --", test_stops_at_double_dash },
		{ "attached and long forms", test_attached_and_long_forms },
		{ "bad builder input", test_bad_builder_input },
		{ "core mask", test_core_mask },
		{ "core list", test_core_list },
		{ "lcores and main lcore", test_lcores_and_main },
		{ "core option combinations", test_eal_core_combinations },
		{ "unknown option named", test_unknown_option_named },
		{ "an argument named as an EAL option", test_is_eal_option },
		{ "hugepage probe agrees with the kernel", test_hugepage_probe },
		{ NULL, NULL },
	};

	return rdx_ut_run("eal-args", cases, NULL, NULL);
}
