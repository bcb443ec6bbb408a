/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * EAL start-up with the defaults a VM or a laptop needs, the stop flag, the
 * TSC, and lcore launch. The EAL argv builder, the core checks and the
 * hugepage probe are in rdx_eal_args.c; the run-to-completion loop is in
 * rdx_lcore.c.
 *
 * Decisions (see rdx_runtime.h for the contract):
 * - Every process gets its own --file-prefix (rdx-<pid>) unless the user gave
 *   one, and keeps the shared config: two rdx processes never collide on the
 *   config lock, and DPDK telemetry stays available at
 *   /var/run/dpdk/rdx-<pid>/dpdk_telemetry.v2 (dpdk-telemetry.py -f rdx-<pid>).
 *   rdx_runtime_cleanup() removes that directory, and rdx_runtime_init()
 *   removes the ones left by rdx processes that died without cleaning up,
 *   only the user's own and never through a link (rdx_rundir.c); a base
 *   directory that another user owns or may write is refused.
 * - --log-level=error is put FIRST unless the user set a global level, so a
 *   user's per-type level (--log-level=lib.eal:debug) still applies after it.
 * - Core masks and lists are checked (rdx_eal_args.c) before EAL sees them,
 *   so a typo gives one line instead of EAL's usage text.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_log.h>

#include "rdx_eal_args.h"
#include "rdx_rundir.h"
#include "rdx_runtime.h"

RTE_LOG_REGISTER(rdx_runtime_logtype, rdx.runtime, NOTICE)

#define RT_LOG(level, ...) \
	rte_log(RTE_LOG_ ## level, (uint32_t)rdx_runtime_logtype, "rdx.runtime: " __VA_ARGS__)

/* RTE_LCORE_FOREACH_WORKER without its int-to-unsigned -1 (-Wsign-conversion). */
#define RDX_FOREACH_WORKER(i) \
	for (i = rte_get_next_lcore(UINT_MAX, 1, 0); i < RTE_MAX_LCORE; \
	     i = rte_get_next_lcore(i, 1, 0))

#define RDX_TSC_COST_SAMPLES 1023

/* Set from signal handlers: only lock-free atomic stores there. */
static volatile int rdx_stop_flag;

static bool rdx_eal_up;
static bool rdx_own_prefix;
static uint64_t rdx_hz;
static double rdx_tsc_cost_median;
static double rdx_tsc_cost_min;

/* -------------------------------------------------------------- stop, TSC */

/*
 * First SIGINT/SIGTERM: ask everyone to stop. A second one while the flag
 * is still set: the app is stuck, so die the default way -- unless it
 * comes within RDX_STOP_REPEAT_NS of the first, which is the same stop
 * delivered twice: timeout(1), for one, signals both its child and its
 * process group, and a terminal's Ctrl-C reaches every process of the
 * foreground group. Only async-signal-safe calls here (clock_gettime is).
 */
#define RDX_STOP_REPEAT_NS (200 * 1000 * 1000LL)
static int64_t rdx_stop_first_ns;

static int64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void
rdx_signal_handler(int sig)
{
	int64_t now = mono_ns();

	if (__atomic_exchange_n(&rdx_stop_flag, 1, __ATOMIC_RELAXED) == 0) {
		__atomic_store_n(&rdx_stop_first_ns, now, __ATOMIC_RELAXED);
		return;
	}
	if (now - __atomic_load_n(&rdx_stop_first_ns, __ATOMIC_RELAXED) < RDX_STOP_REPEAT_NS)
		return;
	signal(sig, SIG_DFL);
	raise(sig);
}

static int
install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = rdx_signal_handler;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) != 0 || sigaction(SIGTERM, &sa, NULL) != 0)
		return -errno;
	return 0;
}

bool
rdx_runtime_stopping(void)
{
	return __atomic_load_n(&rdx_stop_flag, __ATOMIC_RELAXED) != 0;
}

void
rdx_runtime_stop(void)
{
	__atomic_store_n(&rdx_stop_flag, 1, __ATOMIC_RELAXED);
}

const volatile int *
rdx_runtime_stop_flag(void)
{
	return &rdx_stop_flag;
}

void
rdx_runtime_stop_reset(void)
{
	__atomic_store_n(&rdx_stop_flag, 0, __ATOMIC_RELAXED);
}

uint64_t
rdx_tsc_hz(void)
{
	return rdx_hz;
}

double
rdx_tsc_cost_cycles(void)
{
	return rdx_tsc_cost_median;
}

double
rdx_tsc_cost_min_cycles(void)
{
	return rdx_tsc_cost_min;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Cost of one rdx_tsc(): back-to-back reads, min and median of many. */
void
rdx_tsc_calibrate(void)
{
	uint64_t d[RDX_TSC_COST_SAMPLES];
	unsigned int k;

	for (k = 0; k < RDX_TSC_COST_SAMPLES; k++) {
		uint64_t t0 = rdx_tsc();
		uint64_t t1 = rdx_tsc();

		d[k] = t1 - t0;
	}
	qsort(d, RDX_TSC_COST_SAMPLES, sizeof(d[0]), cmp_u64);
	rdx_tsc_cost_min = (double)d[0];
	rdx_tsc_cost_median = (double)d[RDX_TSC_COST_SAMPLES / 2];
	if (rdx_eal_up)
		rdx_hz = rte_get_tsc_hz();
}

/* ------------------------------------------------------------------ init */

/*
 * EAL prints its whole usage on stdout when it rejects an argument, and its
 * reason twice on stderr (getopt and the log, once for each of its two
 * parsing passes). Send both to memory files during rte_eal_init: on success
 * replay them; on failure keep only the first reason for our one line.
 * RDX_EAL_VERBOSE=1 in the environment turns the capture off.
 */
struct out_capture {
	int mfd[2];
	int saved[2];
};

static bool
wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return true;
	return false;
}

static void
capture_begin(struct out_capture *c, bool off)
{
	const char *v = getenv("RDX_EAL_VERBOSE");
	int k;

	for (k = 0; k < 2; k++) {
		c->mfd[k] = -1;
		c->saved[k] = -1;
	}
	if (off || (v != NULL && strcmp(v, "0") != 0))
		return;
	fflush(stdout);
	fflush(stderr);
	for (k = 0; k < 2; k++) {
		int fd = k == 0 ? STDOUT_FILENO : STDERR_FILENO;

		c->mfd[k] = memfd_create(k == 0 ? "rdx-eal-stdout" : "rdx-eal-stderr", 0);
		if (c->mfd[k] < 0)
			continue;
		c->saved[k] = dup(fd);
		if (c->saved[k] < 0 || dup2(c->mfd[k], fd) < 0) {
			if (c->saved[k] >= 0)
				close(c->saved[k]);
			close(c->mfd[k]);
			c->mfd[k] = -1;
			c->saved[k] = -1;
		}
	}
}

/* Restore; replay (success) or copy the first stderr line into reason. */
static void
capture_end(struct out_capture *c, bool replay, char *reason, size_t reason_len)
{
	char buf[4096];
	ssize_t n;
	int k;

	if (reason_len > 0)
		reason[0] = '\0';
	fflush(stdout);
	fflush(stderr);
	for (k = 0; k < 2; k++) {
		int fd = k == 0 ? STDOUT_FILENO : STDERR_FILENO;

		if (c->mfd[k] < 0)
			continue;
		dup2(c->saved[k], fd);
		close(c->saved[k]);
		if (lseek(c->mfd[k], 0, SEEK_SET) == 0) {
			if (replay) {
				while ((n = read(c->mfd[k], buf, sizeof(buf))) > 0)
					if (write(fd, buf, (size_t)n) != n)
						break;
			} else if (k == 1 && reason_len > 0) {
				n = read(c->mfd[k], buf, sizeof(buf) - 1);
				buf[n > 0 ? n : 0] = '\0';
				size_t len = strcspn(buf, "\n");

				if (len >= reason_len)
					len = reason_len - 1;
				memcpy(reason, buf, len);
				reason[len] = '\0';
			}
		}
		close(c->mfd[k]);
	}
}

/* --no-huge among the arguments given to EAL. */
static bool
plan_no_huge(const struct rdx_eal_plan *plan, int argc, char **argv)
{
	int i;

	if (plan->added_no_huge)
		return true;
	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--no-huge") == 0)
			return true;
	return false;
}

/* "prog: unrecognized option" / "EAL: FATAL: x" -> the useful part. */
static const char *
strip_reason(const char *r, const char *prog)
{
	size_t n = strlen(prog);

	if (n > 0 && strncmp(r, prog, n) == 0 && strncmp(r + n, ": ", 2) == 0)
		r += n + 2;
	if (strncmp(r, "EAL: ", 5) == 0)
		r += 5;
	if (strncmp(r, "FATAL: ", 7) == 0)
		r += 7;
	return r;
}

int
rdx_runtime_init(int argc, char **argv)
{
	char *eal_argv[RDX_RUNTIME_MAX_EAL_ARGS + 8];
	char *shown[RDX_RUNTIME_MAX_EAL_ARGS + 8];
	char err[PATH_MAX + 128], prefix_arg[64], reason[256], base_buf[PATH_MAX];
	const char *base;
	struct rdx_eal_plan plan;
	struct out_capture cap;
	int n_eal, eal_argc, ret, i;
	bool hugepages;

	/*
	 * Until rte_eal_init has parsed --log-level, rte_log knows neither the
	 * user's levels nor EAL's stream: what is said before goes to stderr.
	 */
	if (argc < 1 || argv == NULL) {
		fprintf(stderr, "rdx: no arguments (argv[0] missing)\n");
		return -EINVAL;
	}
	if (rdx_eal_up) {
		rte_log(RTE_LOG_ERR, (uint32_t)rdx_runtime_logtype,
			"rdx: runtime already initialised (EAL starts once per process)\n");
		return -EALREADY;
	}
	for (n_eal = 0; n_eal < argc; n_eal++)
		if (strcmp(argv[n_eal], "--") == 0)
			break;
	if (n_eal > RDX_RUNTIME_MAX_EAL_ARGS) {
		fprintf(stderr, "rdx: too many EAL arguments (%d, at most %d)\n",
			n_eal, RDX_RUNTIME_MAX_EAL_ARGS);
		return -EINVAL;
	}
	ret = rdx_runtime_check_eal_args(n_eal, argv, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "rdx: %s\n", err);
		return ret;
	}
	hugepages = rdx_runtime_hugepages_available();
	eal_argc = rdx_runtime_eal_args(n_eal, argv, hugepages,
					eal_argv, (int)RTE_DIM(eal_argv), prefix_arg,
					sizeof(prefix_arg), &plan);
	if (eal_argc < 0) {
		fprintf(stderr, "rdx: bad EAL arguments (an option lacks its value)\n");
		return eal_argc;
	}
	base = rdx_rundir_base(base_buf, sizeof(base_buf));
	ret = rdx_rundir_base_check(base, err, sizeof(err));
	if (ret < 0) {
		/* pre-EAL: rte_log is not set up yet */
		fprintf(stderr, "rdx: refusing the EAL runtime directory: %s (remove it, or set "
			"XDG_RUNTIME_DIR to a directory of your own)\n", err);
		return ret;
	}
	if (plan.added_file_prefix)
		rdx_rundir_prune(base, RDX_FILE_PREFIX);

	/* EAL permutes and overwrites the array: keep a copy for messages. */
	memcpy(shown, eal_argv, sizeof(shown[0]) * (size_t)eal_argc);
	/* EAL prints usage and exits on -h/--help: let that through. */
	capture_begin(&cap, wants_help(n_eal, argv));
	ret = rte_eal_init(eal_argc, eal_argv);
	capture_end(&cap, ret >= 0, reason, sizeof(reason));
	if (ret < 0) {
		int e = rte_errno != 0 ? rte_errno : EINVAL;
		const char *r = strip_reason(reason, argv[0]);
		const char *unknown = rdx_runtime_eal_unknown_option(n_eal, argv);

		/* getopt is silent when the app set opterr = 0: name it ourselves. */
		if (unknown != NULL && (r[0] == '\0' || strstr(r, "command line") != NULL)) {
			snprintf(reason, sizeof(reason), "unrecognized EAL option '%.200s'", unknown);
			r = reason;
		}

		/* EAL is not up: stderr, as above */
		fprintf(stderr, "rdx: EAL initialisation failed: %s%s%s%s (EAL arguments:",
			r, *r != '\0' ? " (" : "", rte_strerror(e), *r != '\0' ? ")" : "");
		for (i = 1; i < eal_argc; i++)
			fprintf(stderr, " %s", shown[i]);
		fprintf(stderr, ")%s\n", !hugepages && !plan.added_no_huge && !plan_no_huge(&plan,
			eal_argc, shown) ? "; no hugepages here: add --no-huge" : "");
		return -e;
	}
	rdx_eal_up = true;
	rdx_own_prefix = plan.added_file_prefix;
	RT_LOG(DEBUG, "EAL up with %d arguments, %u lcores\n", eal_argc, rte_lcore_count());
	/* Said once EAL is up, so that --log-level=rdx.*:error silences it;
	 * a failed start lists --no-huge among the EAL arguments instead. */
	if (plan.added_no_huge)
		rte_log(RTE_LOG_NOTICE, (uint32_t)rdx_runtime_logtype,
			"rdx: no hugepages configured: running EAL with --no-huge "
			"(pass -m/--socket-mem or configure hugepages to change)\n");

	ret = install_signals();
	if (ret < 0) {
		rte_log(RTE_LOG_ERR, (uint32_t)rdx_runtime_logtype,
			"rdx: cannot install signal handlers: %s\n", strerror(-ret));
		return ret;
	}
	rdx_tsc_calibrate();

	/*
	 * Same convention as rte_eal_init: argv[ret] becomes the program name
	 * so (argc - ret, argv + ret) is a complete argv for the app's getopt.
	 */
	ret = n_eal < argc ? n_eal : argc - 1;
	argv[ret] = argv[0];
	return ret;
}

int
rdx_runtime_cleanup(void)
{
	char base_buf[PATH_MAX], name[32];
	int ret;

	if (!rdx_eal_up)
		return -EINVAL;
	ret = rte_eal_cleanup();
	rdx_eal_up = false;
	if (rdx_own_prefix) {
		snprintf(name, sizeof(name), RDX_FILE_PREFIX "%ld", (long)getpid());
		rdx_rundir_remove(rdx_rundir_base(base_buf, sizeof(base_buf)), name);
	}
	return ret;
}

/* ---------------------------------------------------------------- launch */

unsigned int
rdx_runtime_workers(unsigned int *ids, unsigned int max)
{
	unsigned int lcore, n = 0;

	RDX_FOREACH_WORKER(lcore) {
		if (ids != NULL && n < max)
			ids[n] = lcore;
		n++;
	}
	return n;
}

/* Per-lcore launch slot: our own copy of the return value. */
struct rdx_launch_slot {
	rdx_lcore_fn_t fn;
	void *arg;
	int ret;
};

static struct rdx_launch_slot rdx_slots[RTE_MAX_LCORE];

static int
rdx_launch_trampoline(void *p)
{
	struct rdx_launch_slot *s = p;

	s->ret = s->fn(s->arg);
	return s->ret;
}

int
rdx_runtime_launch(rdx_lcore_fn_t fn, void *const *args, unsigned int nb_args,
		   bool include_main)
{
	unsigned int lcore, idx = 0, nb_lcores, launched = 0;
	int ret, first = 0, main_ret = 0;

	if (fn == NULL || !rdx_eal_up || rte_lcore_id() != rte_get_main_lcore())
		return -EINVAL;
	nb_lcores = rdx_runtime_workers(NULL, 0) + (include_main ? 1 : 0);
	if (nb_lcores == 0)
		return -ENODEV;
	if (args != NULL && nb_args != 1 && nb_args < nb_lcores)
		return -EINVAL;

	RDX_FOREACH_WORKER(lcore) {
		struct rdx_launch_slot *s = &rdx_slots[lcore];

		s->fn = fn;
		s->arg = args == NULL ? NULL : args[nb_args == 1 ? 0 : idx];
		s->ret = 0;
		idx++;
		ret = rte_eal_remote_launch(rdx_launch_trampoline, s, lcore);
		if (ret < 0) {
			RT_LOG(ERR, "cannot launch on lcore %u: %s\n", lcore, strerror(-ret));
			s->ret = ret;
			continue;
		}
		launched++;
	}
	if (include_main)
		main_ret = fn(args == NULL ? NULL : args[nb_args == 1 ? 0 : idx]);
	if (launched > 0)
		rte_eal_mp_wait_lcore();
	/* First non-zero in launch order: workers, then main. */
	RDX_FOREACH_WORKER(lcore) {
		if (first == 0 && rdx_slots[lcore].ret != 0)
			first = rdx_slots[lcore].ret;
	}
	return first != 0 ? first : main_ret;
}
