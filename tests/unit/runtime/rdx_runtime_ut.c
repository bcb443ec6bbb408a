/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx_runtime.c without EAL: the one-line failure of rdx_runtime_init on a
 * bad core mask (which returns before EAL is touched), the stop flag and
 * signals, and TSC calibration. The .c is included to reach the static
 * helpers; rdx_eal_args.c is built in (its tests: rdx_eal_args_ut.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "rdx_ut.h"

#include "../../../lib/runtime/rdx_runtime.c"

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
		/* a second one past the repeat window: default action (one
		 * at once would be the same stop delivered twice) */
		nanosleep(&(struct timespec){ 0, 400 * 1000 * 1000 }, NULL);
		raise(SIGINT);
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
		{ "init: bad mask gives one line", test_init_bad_mask_one_line },
		{ "stop flag without EAL", test_stop_flag_without_eal },
		{ "second signal ends the process", test_second_signal_kills },
		{ "TSC calibration", test_tsc_calibration },
		{ NULL, NULL },
	};

	return rdx_ut_run("runtime", cases, NULL, NULL);
}
