/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx_runtime.c without EAL: the argv builder, the core checks, and the
 * one-line failure of rdx_runtime_init on a bad core mask (which returns
 * before EAL is touched). The .c is included to reach the static helpers,
 * so core counts other than this machine's can be checked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "rdx_ut.h"

#include "../../../lib/runtime/rdx_runtime.c"

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

	CU_ASSERT_EQUAL(build(&b, false, 3, argv), 7);
	CU_ASSERT_STRING_EQUAL(b.out[0], "app");
	CU_ASSERT_TRUE(b.plan.added_no_huge);
	CU_ASSERT_TRUE(b.plan.added_no_pci);
	CU_ASSERT_TRUE(b.plan.added_log_level);
	CU_ASSERT_TRUE(b.plan.added_file_prefix);
	CU_ASSERT_TRUE(b.plan.has_core_option);
	CU_ASSERT_EQUAL(count(&b, "--no-huge"), 1);
	CU_ASSERT_EQUAL(count(&b, "--no-pci"), 1);
	CU_ASSERT_EQUAL(count(&b, "--log-level=error"), 1);
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
	CU_ASSERT_EQUAL(count(&b, "--log-level=error"), 0);
	CU_ASSERT(build(&b, true, 3, a2) > 0);
	CU_ASSERT_FALSE(b.plan.added_log_level);
	/* A per-type level: ours sets the global one, before the user's. */
	CU_ASSERT(build(&b, true, 2, a3) > 0);
	CU_ASSERT_TRUE(b.plan.added_log_level);
	CU_ASSERT(index_of(&b, "--log-level=error") >= 0);
	CU_ASSERT(index_of(&b, "--log-level=error") < index_of(&b, "--log-level=lib.eal:debug"));
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

	CU_ASSERT_STRING_EQUAL(unknown_option(5, (char **)(uintptr_t)a1), "--bogus");
	CU_ASSERT_PTR_NULL(unknown_option(10, (char **)(uintptr_t)a2));
	CU_ASSERT_PTR_NULL(unknown_option(3, (char **)(uintptr_t)a3));
	CU_ASSERT_STRING_EQUAL(unknown_option(2, (char **)(uintptr_t)a4), "--no-hugeX");
}

/* ------------------------------------------- rdx_runtime_init bad input */

/* Run rdx_runtime_init with stderr in a temporary file; return its text. */
static int
init_capturing(int argc, const char **argv, char *text, size_t len)
{
	char path[] = "/tmp/rdx_runtime_ut.XXXXXX";
	int fd, saved, ret;
	ssize_t n;

	fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	unlink(path);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	CU_ASSERT_FATAL(saved >= 0);
	dup2(fd, STDERR_FILENO);
	ret = rdx_runtime_init(argc, (char **)(uintptr_t)argv);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	lseek(fd, 0, SEEK_SET);
	n = read(fd, text, len - 1);
	text[n > 0 ? n : 0] = '\0';
	close(fd);
	return ret;
}

static int
lines(const char *s)
{
	int n = 0;

	for (; *s != '\0'; s++)
		n += *s == '\n';
	return n;
}

static void
test_init_bad_mask_one_line(void)
{
	const char *a1[] = { "app", "-c", "0xZZ", "--", "-x" };
	const char *a2[] = { "app", "-c", "0x1", "-l", "0" };
	const char *a3[] = { "app", "-l", "0-4095" };
	char text[1024];

	CU_ASSERT_EQUAL(init_capturing(5, a1, text, sizeof(text)), -EINVAL);
	CU_ASSERT_EQUAL(lines(text), 1);
	CU_ASSERT_STRING_EQUAL(text, "rdx: bad core mask '0xZZ': not a hexadecimal number\n");
	CU_ASSERT_EQUAL(init_capturing(5, a2, text, sizeof(text)), -EINVAL);
	CU_ASSERT_EQUAL(lines(text), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "-c and -l"));
	CU_ASSERT_EQUAL(init_capturing(3, a3, text, sizeof(text)), -EINVAL);
	CU_ASSERT_EQUAL(lines(text), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "names core 4095"));
	CU_ASSERT_EQUAL(init_capturing(0, a3, text, sizeof(text)), -EINVAL);
	CU_ASSERT_EQUAL(lines(text), 1);
	/* Nothing reached EAL. */
	CU_ASSERT_FALSE(rdx_eal_up);
}

static void
test_hugepage_probe_consistent(void)
{
	/* Machine-dependent answer; only its consistency is checked. */
	if (rdx_runtime_hugepages_available())
		CU_ASSERT_TRUE(hugetlbfs_mounted());
	CU_PASS("probe returned");
}

static void
test_stop_flag_without_eal(void)
{
	rdx_runtime_stop_reset();
	CU_ASSERT_FALSE(rdx_runtime_stopping());
	rdx_runtime_stop();
	CU_ASSERT_TRUE(rdx_runtime_stopping());
	rdx_runtime_stop_reset();
	CU_ASSERT_FALSE(rdx_runtime_stopping());
	/* Launch refuses to run before EAL is up. */
	CU_ASSERT_EQUAL(rdx_runtime_launch(NULL, NULL, 0, true), -EINVAL);
	CU_ASSERT_EQUAL(rdx_runtime_cleanup(), -EINVAL);
}

static void
test_second_signal_kills(void)
{
	int status = 0;
	pid_t pid = fork();

	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		rdx_runtime_stop_reset();
		if (install_signals() != 0)
			_exit(10);
		raise(SIGINT);          /* first: sets the flag, we live on */
		if (!rdx_runtime_stopping())
			_exit(11);
		raise(SIGINT);          /* second: default action */
		_exit(12);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT_TRUE(WIFSIGNALED(status));
	if (WIFSIGNALED(status)) {
		CU_ASSERT_EQUAL(WTERMSIG(status), SIGINT);
	} else {
		printf("  (child exited with %d)\n", WEXITSTATUS(status));
	}
}

static void
test_tsc_calibration(void)
{
	rdx_tsc_calibrate();
	CU_ASSERT(rdx_tsc_cost_min_cycles() <= rdx_tsc_cost_cycles());
	CU_ASSERT(rdx_tsc() != 0);
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
		{ "init: bad mask gives one line", test_init_bad_mask_one_line },
		{ "hugepage probe", test_hugepage_probe_consistent },
		{ "stop flag without EAL", test_stop_flag_without_eal },
		{ "second signal ends the process", test_second_signal_kills },
		{ "TSC calibration", test_tsc_calibration },
		{ NULL, NULL },
	};

	return rdx_ut_run("runtime", cases, NULL, NULL);
}
