/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counters of the calling thread through perf_event_open(pid 0, cpu -1).
 * Hardware events first; a VM without a virtual PMU answers ENOENT (or
 * EOPNOTSUPP/ENODEV), then software events and the TSC stand in. When the
 * kernel refuses perf altogether (EACCES/EPERM: perf_event_paranoid, or
 * ENOSYS) only the TSC remains and the source says NONE.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_log.h>

#include "rdx_perf.h"

RTE_LOG_REGISTER(rdx_perf_logtype, rdx.perf, NOTICE)

struct perf_ev_desc {
	uint32_t type;
	uint64_t config;
	const char *name;
	bool hw;
};

static const struct perf_ev_desc perf_evs[RDX_PERF_NB_EVENTS] = {
	[RDX_PERF_CYCLES] = { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles", true },
	[RDX_PERF_INSTRUCTIONS] = { PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
				    "instructions", true },
	[RDX_PERF_CACHE_MISSES] = { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES,
				    "cache-misses", true },
	[RDX_PERF_BRANCH_MISSES] = { PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES,
				     "branch-misses", true },
	[RDX_PERF_TASK_CLOCK] = { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK,
				  "task-clock", false },
	[RDX_PERF_CTX_SWITCHES] = { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES,
				    "context-switches", false },
	[RDX_PERF_PAGE_FAULTS] = { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,
				   "page-faults", false },
	[RDX_PERF_TSC] = { 0, 0, "tsc", false },
};

/* Read format: value, time enabled, time running (for multiplexed HW). */
struct perf_read_fmt {
	uint64_t value;
	uint64_t enabled;
	uint64_t running;
};

static long
perf_sys_open_real(struct perf_event_attr *attr)
{
	return syscall(SYS_perf_event_open, attr, 0 /* this thread */, -1 /* any cpu */,
		       -1 /* no group */, PERF_FLAG_FD_CLOEXEC);
}

/* The system call, replaceable by the unit test to inject failures. */
static long (*perf_sys_open)(struct perf_event_attr *attr) = perf_sys_open_real;

static int
perf_open_one(enum rdx_perf_event ev, bool exclude_kernel)
{
	struct perf_event_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = perf_evs[ev].type;
	attr.config = perf_evs[ev].config;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	attr.exclude_kernel = exclude_kernel ? 1 : 0;
	attr.exclude_hv = 1;
	attr.disabled = 0;
	fd = perf_sys_open(&attr);
	if (fd < 0)
		return -errno;
	return (int)fd;
}

/*
 * Open with kernel counting; with perf_event_paranoid >= 2 an unprivileged
 * thread may only count user space, so retry with exclude_kernel on EACCES.
 */
static int
perf_open_ev(enum rdx_perf_event ev)
{
	int fd = perf_open_one(ev, false);

	if (fd == -EACCES || fd == -EPERM)
		fd = perf_open_one(ev, true);
	return fd;
}

static bool
refused(int err)
{
	return err == -EACCES || err == -EPERM || err == -ENOSYS;
}

static bool
unsupported(int err)
{
	return err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV || err == -EINVAL;
}

void
rdx_perf_close(struct rdx_perf *p)
{
	unsigned int i;

	if (p == NULL)
		return;
	for (i = 0; i < RDX_PERF_NB_EVENTS; i++) {
		if (p->fd[i] >= 0 && (p->opened & (1u << i)) != 0)
			close(p->fd[i]);
		p->fd[i] = -1;
	}
	p->opened = 0;
	p->source = RDX_PERF_SRC_NONE;
}

int
rdx_perf_open(struct rdx_perf *p, bool force_sw)
{
	unsigned int i;
	int fd;

	if (p == NULL)
		return -EINVAL;
	for (i = 0; i < RDX_PERF_NB_EVENTS; i++)
		p->fd[i] = -1;
	p->opened = 0;
	p->source = RDX_PERF_SRC_NONE;
	p->hw_err = force_sw ? 0 : -ENOENT;
	p->sw_err = 0;

	if (!force_sw) {
		/* Cycles decide: without them the hardware source is useless. */
		fd = perf_open_ev(RDX_PERF_CYCLES);
		p->hw_err = fd < 0 ? fd : 0;
		if (fd >= 0) {
			p->fd[RDX_PERF_CYCLES] = fd;
			p->opened |= 1u << RDX_PERF_CYCLES;
			p->source = RDX_PERF_SRC_HW;
			for (i = RDX_PERF_INSTRUCTIONS; i <= RDX_PERF_BRANCH_MISSES; i++) {
				fd = perf_open_ev((enum rdx_perf_event)i);
				if (fd >= 0) {
					p->fd[i] = fd;
					p->opened |= 1u << i;
				}
			}
		} else if (!refused(fd) && !unsupported(fd)) {
			return fd;      /* EMFILE, ENOMEM...: a real failure */
		}
	}

	/* Software events: useful next to hardware ones too. */
	for (i = RDX_PERF_TASK_CLOCK; i <= RDX_PERF_PAGE_FAULTS; i++) {
		fd = perf_open_ev((enum rdx_perf_event)i);
		if (fd >= 0) {
			p->fd[i] = fd;
			p->opened |= 1u << i;
		} else if (!refused(fd) && !unsupported(fd)) {
			rdx_perf_close(p);
			return fd;
		} else if (p->sw_err == 0) {
			p->sw_err = fd;
		}
	}
	if (p->source != RDX_PERF_SRC_HW)
		p->source = (p->opened & (1u << RDX_PERF_TASK_CLOCK)) != 0 ?
			RDX_PERF_SRC_SW : RDX_PERF_SRC_NONE;
	/* Refused entirely: only the TSC, and that is not an error. */
	if (rte_log_can_log((uint32_t)rdx_perf_logtype, RTE_LOG_DEBUG)) {
		char line[160];

		rte_log(RTE_LOG_DEBUG, (uint32_t)rdx_perf_logtype, "rdx.perf: %s\n",
			rdx_perf_describe(p, line, sizeof(line)));
	}
	return 0;
}

int
rdx_perf_read(const struct rdx_perf *p, struct rdx_perf_sample *s)
{
	unsigned int i;

	if (p == NULL || s == NULL)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	s->source = p->source;
	for (i = 0; i < RDX_PERF_TSC; i++) {
		struct perf_read_fmt r;

		if ((p->opened & (1u << i)) == 0)
			continue;
		if (read(p->fd[i], &r, sizeof(r)) != (ssize_t)sizeof(r))
			continue;
		if (r.running == 0)
			continue;       /* never scheduled on the PMU */
		if (r.running < r.enabled)
			/* Multiplexed: scale to the whole enabled time. */
			r.value = (uint64_t)((double)r.value * (double)r.enabled /
					     (double)r.running);
		s->value[i] = r.value;
		s->valid |= 1u << i;
	}
	s->value[RDX_PERF_TSC] = rte_rdtsc();
	s->valid |= 1u << RDX_PERF_TSC;
	return 0;
}

static double
per_op(const struct rdx_perf_sample *a, const struct rdx_perf_sample *b,
       enum rdx_perf_event ev, uint64_t ops)
{
	uint32_t bit = 1u << ev;

	if ((a->valid & bit) == 0 || (b->valid & bit) == 0 || ops == 0 ||
	    b->value[ev] < a->value[ev])
		return -1.0;
	return (double)(b->value[ev] - a->value[ev]) / (double)ops;
}

void
rdx_perf_per_op(const struct rdx_perf_sample *start, const struct rdx_perf_sample *end,
		uint64_t ops, struct rdx_perf_per_op *out)
{
	if (out == NULL)
		return;
	out->source = RDX_PERF_SRC_NONE;
	out->cycles = out->instructions = out->cache_misses = out->branch_misses = -1.0;
	out->task_clock_ns = out->ctx_switches = out->page_faults = -1.0;
	if (start == NULL || end == NULL)
		return;
	out->source = end->source;
	out->cycles = per_op(start, end, RDX_PERF_CYCLES, ops);
	if (out->cycles < 0)
		out->cycles = per_op(start, end, RDX_PERF_TSC, ops);
	out->instructions = per_op(start, end, RDX_PERF_INSTRUCTIONS, ops);
	out->cache_misses = per_op(start, end, RDX_PERF_CACHE_MISSES, ops);
	out->branch_misses = per_op(start, end, RDX_PERF_BRANCH_MISSES, ops);
	out->task_clock_ns = per_op(start, end, RDX_PERF_TASK_CLOCK, ops);
	out->ctx_switches = per_op(start, end, RDX_PERF_CTX_SWITCHES, ops);
	out->page_faults = per_op(start, end, RDX_PERF_PAGE_FAULTS, ops);
}

/* The one table of source names (reports write and read these). */
static const char *const perf_src_names[] = {
	[RDX_PERF_SRC_NONE] = "tsc-only",
	[RDX_PERF_SRC_HW] = "hw",
	[RDX_PERF_SRC_SW] = "sw+tsc",
};

const char *
rdx_perf_source_name(enum rdx_perf_source src)
{
	if ((unsigned int)src >= RTE_DIM(perf_src_names))
		return "unknown";
	return perf_src_names[src];
}

int
rdx_perf_source_parse(const char *name, enum rdx_perf_source *src)
{
	unsigned int k;

	if (name == NULL || src == NULL)
		return -EINVAL;
	for (k = 0; k < RTE_DIM(perf_src_names); k++) {
		if (strcmp(name, perf_src_names[k]) == 0) {
			*src = (enum rdx_perf_source)k;
			return 0;
		}
	}
	return -EINVAL;
}

const char *
rdx_perf_event_name(enum rdx_perf_event ev)
{
	if ((unsigned int)ev >= RDX_PERF_NB_EVENTS)
		return "unknown";
	return perf_evs[ev].name;
}

bool
rdx_perf_has(const struct rdx_perf *p, enum rdx_perf_event ev)
{
	if (p == NULL || (unsigned int)ev >= RDX_PERF_NB_EVENTS)
		return false;
	return ev == RDX_PERF_TSC || (p->opened & (1u << ev)) != 0;
}

const char *
rdx_perf_describe(const struct rdx_perf *p, char *buf, size_t len)
{
	if (buf == NULL || len == 0)
		return "";
	if (p == NULL) {
		snprintf(buf, len, "no counters");
		return buf;
	}
	switch (p->source) {
	case RDX_PERF_SRC_HW:
		snprintf(buf, len, "hardware counters (cycles%s%s%s)",
			 rdx_perf_has(p, RDX_PERF_INSTRUCTIONS) ? ", instructions" : "",
			 rdx_perf_has(p, RDX_PERF_CACHE_MISSES) ? ", cache-misses" : "",
			 rdx_perf_has(p, RDX_PERF_BRANCH_MISSES) ? ", branch-misses" : "");
		break;
	case RDX_PERF_SRC_SW:
		if (p->hw_err != 0)
			snprintf(buf, len, "no hardware counters (%s): software events and TSC cycles",
				 strerror(-p->hw_err));
		else
			snprintf(buf, len, "software events and TSC cycles (hardware not tried)");
		break;
	case RDX_PERF_SRC_NONE:
	default:
		snprintf(buf, len, "perf_event_open refused (%s): TSC only",
			 strerror(p->sw_err != 0 ? -p->sw_err : ENOSYS));
		break;
	}
	return buf;
}
