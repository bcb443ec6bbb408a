/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Per-lcore performance counters through perf_event_open on the calling
 * thread: hardware events (cycles, instructions, cache misses, branch
 * misses) where the machine offers them, else software events (task-clock,
 * context switches, page faults) and the TSC. The source is always reported.
 */
#ifndef RDX_PERF_H
#define RDX_PERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum rdx_perf_source {
	RDX_PERF_SRC_NONE = 0,   /**< nothing opened (perf_event_open refused) */
	RDX_PERF_SRC_HW,         /**< hardware counters */
	RDX_PERF_SRC_SW,         /**< software counters + TSC */
};

enum rdx_perf_event {
	RDX_PERF_CYCLES = 0,
	RDX_PERF_INSTRUCTIONS,
	RDX_PERF_CACHE_MISSES,
	RDX_PERF_BRANCH_MISSES,
	RDX_PERF_TASK_CLOCK,     /**< ns */
	RDX_PERF_CTX_SWITCHES,
	RDX_PERF_PAGE_FAULTS,
	RDX_PERF_TSC,            /**< always available */
	RDX_PERF_NB_EVENTS,
};

struct rdx_perf_sample {
	enum rdx_perf_source source;
	uint64_t value[RDX_PERF_NB_EVENTS];
	uint32_t valid;          /**< bit i set: value[i] was measured */
};

/** Per-operation figures derived from a sample delta. Unmeasured: < 0. */
struct rdx_perf_per_op {
	enum rdx_perf_source source;
	double cycles;           /**< hardware cycles, else TSC cycles */
	double instructions;
	double cache_misses;
	double branch_misses;
	double task_clock_ns;
	double ctx_switches;
	double page_faults;
};

struct rdx_perf {
	int fd[RDX_PERF_NB_EVENTS];
	enum rdx_perf_source source;
	uint32_t opened;         /**< bit i set: fd[i] is open */
	int hw_err;              /**< -errno of the hardware attempt, 0 if none/ok */
	int sw_err;              /**< -errno of the first failed software event */
};

/**
 * Open counters for the calling thread. Tries hardware events first; when
 * they fail (ENOENT/EOPNOTSUPP/EACCES) falls back to software events.
 * force_sw: skip the hardware attempt (tests). Software events are opened in
 * both cases. When perf_event_open is refused the source is NONE (TSC only).
 * Counts the calling thread only: open on the thread that does the work.
 * @return 0 (even when only the TSC is available) or negative errno.
 */
int rdx_perf_open(struct rdx_perf *p, bool force_sw);
void rdx_perf_close(struct rdx_perf *p);
/** Read every opened counter and the TSC. */
int rdx_perf_read(const struct rdx_perf *p, struct rdx_perf_sample *s);
/** (end - start) / ops. */
void rdx_perf_per_op(const struct rdx_perf_sample *start, const struct rdx_perf_sample *end,
		     uint64_t ops, struct rdx_perf_per_op *out);
/** "hw", "sw+tsc" or "tsc-only". */
const char *rdx_perf_source_name(enum rdx_perf_source src);
/**
 * The inverse of rdx_perf_source_name: "hw", "sw+tsc" or "tsc-only".
 * @return 0 with *src set, or -EINVAL (unknown name, NULL argument).
 */
int rdx_perf_source_parse(const char *name, enum rdx_perf_source *src);
const char *rdx_perf_event_name(enum rdx_perf_event ev);
/** True when ev is counted (the TSC always is). */
bool rdx_perf_has(const struct rdx_perf *p, enum rdx_perf_event ev);
/**
 * One line on what is counted and why, for reports:
 * "no hardware counters (No such file or directory): software events and TSC cycles".
 */
const char *rdx_perf_describe(const struct rdx_perf *p, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* RDX_PERF_H */
