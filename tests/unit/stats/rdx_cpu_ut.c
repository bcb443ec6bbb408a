/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx_cpu: /proc/stat-format files written here (the sum over a CPU set,
 * the "cpu" line, short and bad lines, a CPU without a line), perftest's
 * utilisation figure, and one read of the real /proc/stat.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rdx_ut.h"

#include "../../../lib/stats/rdx_cpu.c"

static char path[64];

static void
write_stat(const char *text)
{
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/rdx_cpu_ut.%d", (int)getpid());
	f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
}

static const char stat2[] =
	"cpu  300 1 30 700 5 0 2 0 0 0\n"
	"cpu0 100 1 10 200 2 0 1 0 0 0\n"
	"cpu1 200 0 20 500 3 0 1 0 0 0\n"
	"intr 12345 0 0\n"
	"ctxt 99\n";

static void
test_sum_of_set(void)
{
	struct rdx_cpu_times t;
	cpu_set_t s;

	write_stat(stat2);
	CPU_ZERO(&s);
	CPU_SET(1, &s);
	CU_ASSERT_EQUAL(rdx_cpu_times_read(path, &s, &t), 0);
	CU_ASSERT_EQUAL(t.user, 200);
	CU_ASSERT_EQUAL(t.idle, 500);
	CU_ASSERT_EQUAL(t.iowait, 3);
	CPU_SET(0, &s);
	CU_ASSERT_EQUAL(rdx_cpu_times_read(path, &s, &t), 0);
	CU_ASSERT_EQUAL(t.user, 300);
	CU_ASSERT_EQUAL(t.system, 30);
	CU_ASSERT_EQUAL(t.idle, 700);
	CU_ASSERT_EQUAL(rdx_cpu_times_read(path, NULL, &t), 0);
	CU_ASSERT_EQUAL(t.user, 300);
	CU_ASSERT_EQUAL(t.nice, 1);
	unlink(path);
}

static void
test_missing_and_bad(void)
{
	struct rdx_cpu_times t;
	cpu_set_t s;

	write_stat(stat2);
	CPU_ZERO(&s);
	CU_ASSERT_EQUAL(rdx_cpu_times_read(path, &s, &t), -EINVAL);   /* empty set */
	CPU_SET(5, &s);
	CU_ASSERT_EQUAL(rdx_cpu_times_read(path, &s, &t), -EINVAL);   /* no cpu5 line */
	CU_ASSERT_EQUAL(rdx_cpu_times_read(path, NULL, NULL), -EINVAL);
	/* an old kernel's four columns parse; three do not */
	write_stat("cpu 4 0 1 5\ncpu0 4 0 1 5\n");
	CPU_ZERO(&s);
	CPU_SET(0, &s);
	CU_ASSERT_EQUAL(rdx_cpu_times_read(path, &s, &t), 0);
	CU_ASSERT_EQUAL(t.idle, 5);
	CU_ASSERT_EQUAL(t.steal, 0);
	write_stat("cpu 4 0 1\ncpu0 4 0 1\n");
	CU_ASSERT_EQUAL(rdx_cpu_times_read(path, &s, &t), -EINVAL);
	write_stat("cpu 1 2 3 4\ncpux 1 2 3 4\n");
	CU_ASSERT_EQUAL(rdx_cpu_times_read(path, &s, &t), -EINVAL);
	unlink(path);
	CU_ASSERT_EQUAL(rdx_cpu_times_read(path, &s, &t), -ENOENT);
}

static void
test_util(void)
{
	struct rdx_cpu_times a = { .user = 100, .system = 7, .idle = 200 };
	struct rdx_cpu_times b = { .user = 175, .system = 50, .idle = 225 };

	/* perftest's figure: user / (user + idle); system time is not in it */
	CU_ASSERT_DOUBLE_EQUAL(rdx_cpu_util_pct(&a, &b), 75.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(rdx_cpu_util_pct(&a, &a), -1.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(rdx_cpu_util_pct(&b, &a), -1.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(rdx_cpu_util_pct(NULL, &a), -1.0, 1e-9);
}

static void
test_proc_stat(void)
{
	struct rdx_cpu_times all, one;
	cpu_set_t s;

	CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof(s), &s), 0);
	CU_ASSERT_EQUAL(rdx_cpu_times_read(NULL, NULL, &all), 0);
	CU_ASSERT_EQUAL(rdx_cpu_times_read(NULL, &s, &one), 0);
	CU_ASSERT(all.user + all.idle > 0);
	CU_ASSERT(one.user + one.idle <= all.user + all.idle + 1000);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "sum_of_set", test_sum_of_set },
		{ "missing_and_bad", test_missing_and_bad },
		{ "util", test_util },
		{ "proc_stat", test_proc_stat },
		{ NULL, NULL },
	};

	return rdx_ut_run("rdx_cpu", cases, NULL, NULL);
}
