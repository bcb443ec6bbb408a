/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * CPU time from /proc/stat (the kernel's per-CPU jiffies since boot), for
 * the utilisation of the CPUs a benchmark ran on: read before and after,
 * then rdx_cpu_util_pct. perftest's --cpu_util takes the same figures.
 */
#ifndef RDX_CPU_H
#define RDX_CPU_H

#include <sched.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Jiffies of the first eight columns of a /proc/stat "cpu" line. */
struct rdx_cpu_times {
	uint64_t user;
	uint64_t nice;
	uint64_t system;
	uint64_t idle;
	uint64_t iowait;
	uint64_t irq;
	uint64_t softirq;
	uint64_t steal;
};

/**
 * The sum of the "cpuN" lines of a /proc/stat-format file for every N in
 * cpus (NULL: the "cpu" line, all CPUs). path NULL: /proc/stat.
 * @return 0; -EINVAL (cpus empty, a CPU of cpus without a line, or a
 * line that does not parse); the negative errno of the failed open.
 */
int rdx_cpu_times_read(const char *path, const cpu_set_t *cpus, struct rdx_cpu_times *out);

/**
 * CPU utilisation between two samples as perftest's --cpu_util computes
 * it: user time over user plus idle time, in percent (0..100).
 * @return the percentage, or -1 when no user or idle time passed or the
 * counters went back.
 */
double rdx_cpu_util_pct(const struct rdx_cpu_times *before, const struct rdx_cpu_times *after);

#ifdef __cplusplus
}
#endif
#endif /* RDX_CPU_H */
