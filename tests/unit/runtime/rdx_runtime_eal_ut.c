/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx_runtime_init for real (EAL starts once per process, so once in this
 * binary): an unknown EAL option fails with one line and EAL lets us retry,
 * then init on the cores present, calibration, the app's argv after "--",
 * launch on worker lcores pinned to their CPUs, a poller loop on a worker
 * stopped from main, and SIGINT setting the stop flag. Every wait (child
 * process, pipe, worker lcore) is bounded by WAIT_LIMIT_S: the test fails
 * instead of spinning.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_pause.h>

#include "rdx_ut.h"
#include "rdx_runtime.h"

static bool eal_ok;
static unsigned int ncores;

/*
 * Every wait in this test is bounded: past WAIT_LIMIT_S seconds it stops and
 * the test fails (well inside meson's 60 s timeout), instead of spinning on.
 */
#define WAIT_LIMIT_S 20

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t
deadline_ns(void)
{
	return now_ns() + (uint64_t)WAIT_LIMIT_S * 1000000000u;
}

/* Remaining milliseconds before the deadline, for poll(); 0 once past it. */
static int
ms_left(uint64_t deadline)
{
	uint64_t t = now_ns();

	return t >= deadline ? 0 : (int)((deadline - t) / 1000000u) + 1;
}

/* read() of one byte that gives up at the deadline: 1, or -1 (timeout, EOF, error). */
static int
read_byte_by(int fd, char *c, uint64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r;

	do {
		r = poll(&p, 1, ms_left(deadline));
	} while (r < 0 && errno == EINTR);
	if (r <= 0)
		return -1;
	return read(fd, c, 1) == 1 ? 1 : -1;
}

/* waitpid that gives up at the deadline, then kills the child: its status, or -1. */
static int
wait_child_by(pid_t pid, uint64_t deadline)
{
	int status = 0;
	pid_t r;

	for (;;) {
		r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			return status;
		if (r < 0 || now_ns() >= deadline)
			break;
		usleep(1000);
	}
	if (r == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	return -1;
}

static int
lines(const char *s)
{
	int n = 0;

	for (; *s != '\0'; s++)
		n += *s == '\n';
	return n;
}

static int
init_capturing(int argc, char **argv, char *text, size_t len)
{
	char path[] = "/tmp/rdx_runtime_eal_ut.XXXXXX";
	int fd, saved, ret;
	ssize_t n;

	fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	unlink(path);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	dup2(fd, STDERR_FILENO);
	ret = rdx_runtime_init(argc, argv);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	lseek(fd, 0, SEEK_SET);
	n = read(fd, text, len - 1);
	text[n > 0 ? n : 0] = '\0';
	close(fd);
	return ret;
}

static void
test_unknown_option_one_line(void)
{
	char a0[] = "ut", a1[] = "--no-such-eal-option";
	char *argv[] = { a0, a1, NULL };
	char text[2048];
	const char *last;
	int ret;

	ret = init_capturing(2, argv, text, sizeof(text));
	CU_ASSERT_EQUAL(ret, -EINVAL);
	/* Our final line names the option; EAL's usage text is not shown. */
	last = strstr(text, "rdx: EAL initialisation failed: ");
	CU_ASSERT_PTR_NOT_NULL(last);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "--no-such-eal-option"));
	CU_ASSERT_PTR_NULL(strstr(text, "Usage"));
	/* At most the no-huge notice before it. */
	CU_ASSERT(lines(text) == 1 || (lines(text) == 2 && strstr(text, "no hugepages") != NULL));

	/* An app that silenced getopt (opterr = 0): still named. */
	opterr = 0;
	ret = init_capturing(2, argv, text, sizeof(text));
	opterr = 1;
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "unrecognized EAL option '--no-such-eal-option'"));
	CU_ASSERT(lines(text) == 1 || (lines(text) == 2 && strstr(text, "no hugepages") != NULL));
}

/* Runtime directories of dead rdx processes are removed at init. */
static char stale_dir[256], live_dir[256];

static void
make_runtime_dirs(void)
{
	char file[300];
	pid_t dead;
	int fd;

	if (getuid() != 0)
		return;         /* the base is then under XDG_RUNTIME_DIR or /tmp */
	dead = fork();
	if (dead < 0)
		return;
	if (dead == 0)
		_exit(0);
	if (wait_child_by(dead, deadline_ns()) < 0)
		return;
	mkdir("/var/run/dpdk", 0700);
	snprintf(stale_dir, sizeof(stale_dir), "/var/run/dpdk/rdx-%ld", (long)dead);
	snprintf(live_dir, sizeof(live_dir), "/var/run/dpdk/rdx-%ld", (long)getppid());
	if (mkdir(stale_dir, 0700) != 0 || mkdir(live_dir, 0700) != 0) {
		stale_dir[0] = live_dir[0] = '\0';
		return;
	}
	snprintf(file, sizeof(file), "%s/config", stale_dir);
	fd = open(file, O_CREAT | O_WRONLY, 0600);
	if (fd >= 0)
		close(fd);
}

static void
check_runtime_dirs(void)
{
	if (stale_dir[0] == '\0') {
		printf("  (not root or no /var/run/dpdk: stale directory check skipped)\n");
		return;
	}
	CU_ASSERT_NOT_EQUAL(access(stale_dir, F_OK), 0);
	/* A live process's directory is left alone. */
	CU_ASSERT_EQUAL(access(live_dir, F_OK), 0);
	rmdir(live_dir);
}

struct other {
	pid_t pid;
	int to_child;
};

/*
 * A child that runs rdx_runtime_init (-l 0) and keeps EAL up until told to
 * finish. Both processes having EAL at once needs the per-process
 * --file-prefix: with a shared prefix the second fails on the config lock.
 */
static struct other
start_other_process(void)
{
	struct other o = { -1, -1 };
	int up[2], down[2];
	char c = 0;

	if (pipe(up) != 0 || pipe(down) != 0)
		return o;
	o.pid = fork();
	if (o.pid == 0) {
		char b0[] = "child", b1[] = "-l", b2[] = "0";
		char *cargv[] = { b0, b1, b2, NULL };
		int devnull = open("/dev/null", O_WRONLY);

		close(up[0]);
		close(down[1]);
		dup2(devnull, STDERR_FILENO);
		c = rdx_runtime_init(3, cargv) >= 0 ? 'U' : 'F';
		if (write(up[1], &c, 1) != 1 || read_byte_by(down[0], &c, deadline_ns()) != 1)
			_exit(3);
		_exit(rdx_runtime_cleanup() == 0 ? 0 : 4);
	}
	close(up[1]);
	close(down[0]);
	if (o.pid < 0 || read_byte_by(up[0], &c, deadline_ns()) != 1 || c != 'U') {
		close(up[0]);
		close(down[1]);
		if (o.pid > 0)
			wait_child_by(o.pid, deadline_ns());
		CU_FAIL("second rdx process could not start EAL (or not within the time limit)");
		o.pid = -1;
		return o;
	}
	close(up[0]);
	o.to_child = down[1];
	return o;
}

static int
finish_other_process(struct other o)
{
	bool told;
	int status;

	if (o.pid <= 0 || o.to_child < 0)
		return -1;
	told = write(o.to_child, "x", 1) == 1;
	close(o.to_child);
	/* The child exits once told; past the limit it is killed: a failure. */
	status = wait_child_by(o.pid, deadline_ns());
	if (!told || status < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void
test_init(void)
{
	char a0[] = "ut", a1[] = "-l", a2[16], a3[] = "--", a4[] = "-x", a5[] = "7";
	char *argv[] = { a0, a1, a2, a3, a4, a5, NULL };
	struct other other;
	char text[2048];
	int ret;

	snprintf(a2, sizeof(a2), "0-%u", ncores - 1);
	make_runtime_dirs();
	/* Another rdx process holds an EAL of its own while we start ours. */
	other = start_other_process();
	ret = init_capturing(6, argv, text, sizeof(text));
	CU_ASSERT_EQUAL(finish_other_process(other), 0);
	check_runtime_dirs();
	CU_ASSERT_EQUAL_FATAL(ret, 3);
	eal_ok = true;
	/* Like rte_eal_init: argv + ret is the app's argv, program first. */
	CU_ASSERT_STRING_EQUAL(argv[ret], "ut");
	CU_ASSERT_STRING_EQUAL(argv[ret + 1], "-x");
	CU_ASSERT_STRING_EQUAL(argv[ret + 2], "7");
	if (!rdx_runtime_hugepages_available())
		CU_ASSERT_STRING_EQUAL(text, "rdx: no hugepages configured: running EAL with "
				       "--no-huge (pass -m/--socket-mem or configure hugepages to change)\n");
	/* The default levels: rdx's notices shown, EAL's chatter not. */
	CU_ASSERT_TRUE(rte_log_can_log((uint32_t)rte_log_register("rdx.runtime"), RTE_LOG_NOTICE));
	CU_ASSERT_FALSE(rte_log_can_log(RTE_LOGTYPE_EAL, RTE_LOG_INFO));
	CU_ASSERT_TRUE(rte_log_can_log(RTE_LOGTYPE_EAL, RTE_LOG_ERR));
	CU_ASSERT_EQUAL(rte_lcore_count(), ncores);
	CU_ASSERT_EQUAL(rdx_tsc_hz(), rte_get_tsc_hz());
	CU_ASSERT(rdx_tsc_hz() > 0);
	CU_ASSERT(rdx_tsc_cost_cycles() >= rdx_tsc_cost_min_cycles());
	CU_ASSERT(rdx_tsc_cost_cycles() > 0.0);
	/* Once per process. */
	CU_ASSERT_EQUAL(init_capturing(1, argv, text, sizeof(text)), -EALREADY);
	CU_ASSERT_EQUAL(lines(text), 1);
}

struct pin_check {
	unsigned int lcore;
	int cpu;
	int expected_cpu;
	int ret;
};

static int
record_pinning(void *arg)
{
	struct pin_check *p = arg;

	p->lcore = rte_lcore_id();
	p->cpu = sched_getcpu();
	p->expected_cpu = rte_lcore_to_cpu_id((int)p->lcore);
	return p->ret;
}

static void
test_launch_pinned(void)
{
	struct pin_check pc[RTE_MAX_LCORE];
	void *args[RTE_MAX_LCORE];
	unsigned int ids[RTE_MAX_LCORE], nw, i;

	if (!eal_ok)
		CU_FAIL_FATAL("EAL not initialised");
	nw = rdx_runtime_workers(ids, RTE_MAX_LCORE);
	CU_ASSERT_EQUAL(nw, ncores - 1);
	CU_ASSERT_EQUAL(rdx_runtime_workers(NULL, 0), nw);
	for (i = 0; i < nw; i++)
		CU_ASSERT_NOT_EQUAL(ids[i], rte_get_main_lcore());
	memset(pc, 0, sizeof(pc));
	for (i = 0; i <= nw; i++) {
		pc[i].cpu = -1;
		pc[i].lcore = RTE_MAX_LCORE;
		args[i] = &pc[i];
	}
	CU_ASSERT_EQUAL(rdx_runtime_launch(record_pinning, args, nw + 1, true), 0);
	for (i = 0; i < nw; i++) {
		CU_ASSERT_EQUAL(pc[i].lcore, ids[i]);
		CU_ASSERT_EQUAL(pc[i].cpu, pc[i].expected_cpu);
	}
	CU_ASSERT_EQUAL(pc[nw].lcore, rte_get_main_lcore());
	CU_ASSERT_EQUAL(pc[nw].cpu, pc[nw].expected_cpu);

	/* The first non-zero return comes back. */
	if (nw > 0) {
		pc[0].ret = 42;
		CU_ASSERT_EQUAL(rdx_runtime_launch(record_pinning, args, nw + 1, true), 42);
		pc[0].ret = 0;
	}
	pc[nw].ret = -5;
	CU_ASSERT_EQUAL(rdx_runtime_launch(record_pinning, args, nw + 1, true), -5);
	pc[nw].ret = 0;
	/* Too few per-lcore args. */
	if (nw > 0)
		CU_ASSERT_EQUAL(rdx_runtime_launch(record_pinning, args, 2 > nw + 1 ? 1 : nw, true),
				nw == 1 ? 0 : -EINVAL);
	CU_ASSERT_EQUAL(rdx_runtime_launch(NULL, args, nw + 1, true), -EINVAL);
}

struct loop_ctx {
	struct rdx_lcore_loop loop;
	volatile unsigned int calls;
	volatile bool started;
};

static int
count_poller(void *arg)
{
	struct loop_ctx *c = arg;

	c->calls++;
	return (c->calls & 1) != 0 ? 1 : 0;
}

static int
run_loop(void *arg)
{
	struct loop_ctx *c = arg;

	c->started = true;
	return rdx_lcore_loop_run(&c->loop);
}

static void
test_loop_on_worker(void)
{
	static struct loop_ctx ctx;
	uint64_t deadline;
	unsigned int id;

	if (!eal_ok)
		CU_FAIL_FATAL("EAL not initialised");
	if (rdx_runtime_workers(&id, 1) == 0) {
		printf("  (one core: no worker lcore, loop on worker skipped)\n");
		CU_PASS("no worker");
		return;
	}
	rdx_runtime_stop_reset();
	rdx_lcore_loop_init(&ctx.loop);
	CU_ASSERT_EQUAL(rdx_lcore_loop_add(&ctx.loop, "count", count_poller, &ctx), 0);
	CU_ASSERT_EQUAL_FATAL(rte_eal_remote_launch(run_loop, &ctx, id), 0);
	deadline = deadline_ns();
	while ((!ctx.started || ctx.calls < 1000) && now_ns() < deadline)
		rte_pause();
	if (!ctx.started || ctx.calls < 1000)
		CU_FAIL("the loop on the worker did not make 1000 poller calls within the limit");
	rdx_lcore_loop_stop(&ctx.loop);
	/* rte_eal_wait_lcore blocks: wait for the lcore to be idle first, bounded. */
	deadline = deadline_ns();
	while (rte_eal_get_lcore_state(id) == RUNNING && now_ns() < deadline)
		rte_pause();
	if (rte_eal_get_lcore_state(id) == RUNNING) {
		/* The worker never came back: nothing after this can use EAL. */
		eal_ok = false;
		CU_FAIL_FATAL("the loop did not stop within the limit after rdx_lcore_loop_stop");
	}
	CU_ASSERT_EQUAL(rte_eal_wait_lcore(id), 0);
	CU_ASSERT(ctx.loop.iterations >= 1000);
	CU_ASSERT_EQUAL(ctx.loop.pollers[0].calls, ctx.calls);
	CU_ASSERT_EQUAL(ctx.loop.pollers[0].busy_calls, (ctx.calls + 1) / 2);
	CU_ASSERT(ctx.loop.busy_cycles > 0 && ctx.loop.idle_cycles > 0);
}

static void
test_sigint_sets_stop(void)
{
	if (!eal_ok)
		CU_FAIL_FATAL("EAL not initialised");
	rdx_runtime_stop_reset();
	CU_ASSERT_FALSE(rdx_runtime_stopping());
	CU_ASSERT_EQUAL(raise(SIGINT), 0);
	CU_ASSERT_TRUE(rdx_runtime_stopping());
	rdx_runtime_stop_reset();
	CU_ASSERT_EQUAL(raise(SIGTERM), 0);
	CU_ASSERT_TRUE(rdx_runtime_stopping());
	rdx_runtime_stop_reset();
}

/* One stop delivered twice at once (timeout(1) signals its child and its
 * group) is one stop; a second Ctrl-C later means "stuck": die by it. */
static void
test_sigint_twice(void)
{
	int status = 0;
	pid_t pid;

	if (!eal_ok)
		CU_FAIL_FATAL("EAL not initialised");
	rdx_runtime_stop_reset();
	CU_ASSERT_EQUAL(raise(SIGINT), 0);
	CU_ASSERT_EQUAL(raise(SIGINT), 0);
	CU_ASSERT_EQUAL(raise(SIGTERM), 0);
	CU_ASSERT_TRUE(rdx_runtime_stopping());
	rdx_runtime_stop_reset();

	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		struct timespec half = { 0, 500 * 1000 * 1000 };

		raise(SIGINT);
		nanosleep(&half, NULL);
		raise(SIGINT);
		_exit(0);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT);
}

static void
test_cleanup(void)
{
	char dir[512];

	if (!eal_ok)
		CU_FAIL_FATAL("EAL not initialised");
	snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
	CU_ASSERT_PTR_NOT_NULL(strstr(dir, "rdx-"));
	CU_ASSERT_EQUAL(access(dir, F_OK), 0);
	CU_ASSERT_EQUAL(rdx_runtime_cleanup(), 0);
	/* Our own --file-prefix directory is removed. */
	CU_ASSERT_NOT_EQUAL(access(dir, F_OK), 0);
	CU_ASSERT_EQUAL(rdx_runtime_cleanup(), -EINVAL);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "unknown EAL option: one line", test_unknown_option_one_line },
		{ "init", test_init },
		{ "launch pinned on lcores", test_launch_pinned },
		{ "poller loop on a worker", test_loop_on_worker },
		{ "SIGINT sets the stop flag", test_sigint_sets_stop },
		{ "SIGINT twice: at once one stop, later fatal", test_sigint_twice },
		{ "cleanup", test_cleanup },
		{ NULL, NULL },
	};
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	/* Two lcores are enough to check a worker; more cost time on shared CPUs. */
	ncores = n >= 2 ? 2 : 1;
	return rdx_ut_run("runtime-eal", cases, NULL, NULL);
}
