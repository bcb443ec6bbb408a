/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * rdx runtime: EAL start-up with the defaults a VM or laptop needs, pinned
 * worker lcores, a stop flag, per-lcore run-to-completion loops of pollers,
 * and the TSC.
 */
#ifndef RDX_RUNTIME_H
#define RDX_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_cycles.h>

#include "rdx_config.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What rdx_runtime_eal_args() decided, for the one-line notices and tests. */
struct rdx_eal_plan {
	bool added_no_huge;      /**< no hugepages and no memory option given */
	bool added_no_pci;       /**< no -a/-b/--allow/--block/--vdev given */
	bool added_log_level;    /**< quiet EAL unless --log-level given */
	bool added_file_prefix;  /**< unique prefix so two processes can run */
	bool has_core_option;    /**< -l, -c, --lcores given */
};

/**
 * Build the argv handed to rte_eal_init from the user's EAL arguments (the
 * ones before "--"): keeps every user option and adds --no-huge (when
 * hugepages_available is false and no -m/--socket-mem/--no-huge was given),
 * --no-pci (unless PCI was asked for), --log-level=*:error and
 * --log-level=rdx.*:notice first (unless a global level is given: per-type
 * levels, so a later --log-level=TYPE:LEVEL of the user's still applies,
 * and rdx's notices are shown while EAL's are not), and a per-process
 * --file-prefix (unless given) so processes never collide.
 * Pure: no EAL calls, so tests can drive it.
 * @param out  room for argc + 8 pointers; strings point into argv or statics
 *             or `scratch` (at least 64 bytes).
 * @return the new argc, or -EINVAL.
 */
int rdx_runtime_eal_args(int argc, char **argv, bool hugepages_available,
			 char **out, int out_max, char *scratch, size_t scratch_len,
			 struct rdx_eal_plan *plan);

/** Most EAL arguments (before "--") rdx_runtime_init accepts. */
#define RDX_RUNTIME_MAX_EAL_ARGS 120

/** True when the machine has free hugepages and hugetlbfs is mounted. */
bool rdx_runtime_hugepages_available(void);

/**
 * Check a core mask ("-c 0x3") or list ("-l 0-1,3") before EAL sees it.
 * @return 0, or -EINVAL with a one-line reason in err.
 */
int rdx_runtime_check_cores(const char *opt, const char *value, char *err, size_t err_len);

/**
 * Check every core option of an EAL argv (argv[0] is the program, stops at
 * "--"): each -c/-l/--lcores/--main-lcore value as rdx_runtime_check_cores,
 * at most one of -c, -l, --lcores (EAL refuses two), and --main-lcore inside
 * the selected set. "@" and "(...)" forms of --lcores are left to EAL.
 * @return 0, or -EINVAL with a one-line reason (no "rdx: " prefix) in err.
 */
int rdx_runtime_check_eal_args(int argc, char **argv, char *err, size_t err_len);

/**
 * Whether an argument names an EAL option ("-l", "-l0-1", "--no-huge",
 * "--file-prefix=x"...): for an app's "EAL options go before --" hint when
 * its own parser does not know one.
 */
bool rdx_runtime_is_eal_option(const char *arg);

/**
 * Initialise EAL from argv (up to and excluding "--"). On bad input prints
 * one line ("rdx: bad core mask '0xZZ': ...") and returns -EINVAL: callers
 * exit 2. Prints a one-line notice when --no-huge was added. EAL's own
 * output during rte_eal_init is held back and replayed on success; on
 * failure only its first reason is kept, in one final line (set
 * RDX_EAL_VERBOSE=1 to see everything EAL prints; -h/--help is let through).
 * Installs SIGINT/SIGTERM handlers that set the stop flag; calibrates the TSC
 * and measures the cost of one timestamp.
 * Each process gets --file-prefix=rdx-<pid> (unless given) with the shared
 * config kept, so DPDK telemetry works; rdx_runtime_cleanup removes it.
 * @return like rte_eal_init: the index ret of "--" (argc - 1 without one);
 *         argv[ret] is set to argv[0], so (argc - ret, argv + ret) is the
 *         app's own argv, program name first, ready for getopt.
 *         Negative errno on failure (-EINVAL: bad arguments, exit 2).
 */
int rdx_runtime_init(int argc, char **argv);
int rdx_runtime_cleanup(void);

/**
 * The stop flag: set by SIGINT/SIGTERM or rdx_runtime_stop(). A second
 * signal while the flag is set ends the process the default way (an app
 * that stopped polling the flag can still be interrupted).
 */
bool rdx_runtime_stopping(void);
void rdx_runtime_stop(void);
/** Clear the flag (between runs). */
void rdx_runtime_stop_reset(void);
/**
 * The flag itself, for hot loops that poll it without a function call:
 * non-zero once a stop was requested. Read with __atomic_load_n(relaxed).
 */
const volatile int *rdx_runtime_stop_flag(void);

/** TSC frequency (Hz), and the measured cost of one rdx_tsc() in cycles. */
uint64_t rdx_tsc_hz(void);
double rdx_tsc_cost_cycles(void);
/** Smallest back-to-back rdx_tsc() difference seen at calibration. */
double rdx_tsc_cost_min_cycles(void);
/** Measure the rdx_tsc() cost again (rdx_runtime_init does it once). */
void rdx_tsc_calibrate(void);
/**
 * Read the TSC (rte_rdtsc). Inline: a timestamp costs no call. rdx_tsc_hz()
 * and the cost figures above stay out of line (calibration data).
 * librdx still exports an out-of-line rdx_tsc for binaries linked against
 * the earlier library (rdx_tsc_compat.c).
 */
static inline uint64_t
rdx_tsc(void)
{
	return rte_rdtsc();
}

/**
 * Worker lcores (all enabled lcores except main), in order: writes up to
 * max ids (ids may be NULL) and returns how many workers there are.
 */
unsigned int rdx_runtime_workers(unsigned int *ids, unsigned int max);

/**
 * Run fn(arg_of(lcore)) on every worker lcore (and the main lcore too when
 * include_main) and wait for all; the return value is the first non-zero
 * one (workers in rdx_runtime_workers order, then main), or 0.
 * args: NULL (every call gets NULL), one pointer shared by all (nb_args 1),
 * or one per lcore in that order (nb_args >= workers + include_main).
 * Call from the main lcore. -EINVAL on bad arguments.
 */
typedef int (*rdx_lcore_fn_t)(void *arg);
int rdx_runtime_launch(rdx_lcore_fn_t fn, void *const *args, unsigned int nb_args,
		       bool include_main);

/*
 * Run-to-completion loop: pollers registered on an lcore are called in turn
 * until the stop flag (or rdx_lcore_loop_stop) is set. A poller returns the
 * amount of work it did; 0 counts as idle. Busy/idle TSC cycles are
 * accounted per poller and per loop, so reports can show utilisation.
 * No allocation inside the loop.
 */
typedef int (*rdx_poller_fn_t)(void *arg);

struct rdx_poller {
	rdx_poller_fn_t fn;
	void *arg;
	const char *name;
	uint64_t calls;
	uint64_t busy_calls;
	uint64_t busy_cycles;
	uint64_t idle_cycles;
};

struct rdx_lcore_loop {
	struct rdx_poller pollers[RDX_MAX_POLLERS];
	unsigned int nb_pollers;
	volatile bool stop;
	uint64_t busy_cycles;
	uint64_t idle_cycles;
	uint64_t iterations;
};

void rdx_lcore_loop_init(struct rdx_lcore_loop *loop);
/** @return 0, -EINVAL (NULL loop/fn), -ENOSPC (RDX_MAX_POLLERS reached). */
int rdx_lcore_loop_add(struct rdx_lcore_loop *loop, const char *name,
		       rdx_poller_fn_t fn, void *arg);
/** Run until stopped; returns 0. While it runs, the loop is listed under
 * the calling EAL lcore (rdx_lcore_loop_lcores, rdx_lcore_loop_snapshot). */
int rdx_lcore_loop_run(struct rdx_lcore_loop *loop);
/** Lcores where rdx_lcore_loop_run runs now: writes up to max ids (ids may
 * be NULL) and returns how many. Control path (takes a lock). */
unsigned int rdx_lcore_loop_lcores(unsigned int *ids, unsigned int max);
/**
 * Copy the counters of the loop running on lcore_id, from any thread while
 * it runs (relaxed loads: each value is whole, the set is not one instant).
 * Control path (takes the lock the loop's start and end take).
 * @return 0, -ENOENT (no loop runs there), -EINVAL (bad id, NULL out).
 */
int rdx_lcore_loop_snapshot(unsigned int lcore_id, struct rdx_lcore_loop *out);
/** One pass over the pollers (with accounting); returns the work done. */
int rdx_lcore_loop_run_once(struct rdx_lcore_loop *loop);
void rdx_lcore_loop_stop(struct rdx_lcore_loop *loop);
/** Busy share of the loop's cycles, 0..100. */
double rdx_lcore_loop_busy_pct(const struct rdx_lcore_loop *loop);
/**
 * Print the loop's accounting, one line per poller (calls, busy calls,
 * busy %, cycles per busy call) after a header line. Not for the fast path.
 * @return 0 or -EINVAL.
 */
int rdx_lcore_loop_dump(const struct rdx_lcore_loop *loop, FILE *f);

#ifdef __cplusplus
}
#endif
#endif /* RDX_RUNTIME_H */
