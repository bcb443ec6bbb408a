/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx_perf.c: the software fallback measured for real (task-clock grows
 * over a busy loop, page faults counted when touching new memory), the
 * hardware attempt checked for consistency whatever this machine offers,
 * per-op arithmetic on made-up samples, and the refused / unsupported /
 * failing paths by replacing the system call.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rdx_ut.h"

#include "../../../lib/perf/rdx_perf.c"

static volatile uint64_t sink;

static void
busy_loop(unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		sink += i * 7u;
}

static void
test_force_sw(void)
{
	struct rdx_perf_sample a, b;
	struct rdx_perf p;
	char line[160];

	CU_ASSERT_EQUAL_FATAL(rdx_perf_open(&p, true), 0);
	CU_ASSERT_EQUAL(p.hw_err, 0);
	CU_ASSERT_FALSE(rdx_perf_has(&p, RDX_PERF_CYCLES));
	CU_ASSERT_TRUE(rdx_perf_has(&p, RDX_PERF_TSC));
	if (p.source == RDX_PERF_SRC_NONE) {
		/* Only acceptable when the kernel refuses perf to us. */
		CU_ASSERT(refused(p.sw_err));
		printf("  (perf_event_open refused: %s)\n", rdx_perf_describe(&p, line, sizeof(line)));
		rdx_perf_close(&p);
		return;
	}
	CU_ASSERT_EQUAL(p.source, RDX_PERF_SRC_SW);
	CU_ASSERT_TRUE(rdx_perf_has(&p, RDX_PERF_TASK_CLOCK));
	CU_ASSERT_EQUAL(rdx_perf_read(&p, &a), 0);
	busy_loop(20u * 1000 * 1000);
	CU_ASSERT_EQUAL(rdx_perf_read(&p, &b), 0);
	CU_ASSERT_EQUAL(a.source, RDX_PERF_SRC_SW);
	CU_ASSERT((a.valid & b.valid & (1u << RDX_PERF_TASK_CLOCK)) != 0);
	CU_ASSERT((b.valid & (1u << RDX_PERF_CYCLES)) == 0);
	CU_ASSERT(b.value[RDX_PERF_TASK_CLOCK] > a.value[RDX_PERF_TASK_CLOCK]);
	CU_ASSERT(b.value[RDX_PERF_TSC] > a.value[RDX_PERF_TSC]);
	CU_ASSERT_STRING_EQUAL(rdx_perf_describe(&p, line, sizeof(line)),
			       "software events and TSC cycles (hardware not tried)");
	rdx_perf_close(&p);
	CU_ASSERT_EQUAL(p.opened, 0);
	CU_ASSERT_EQUAL(p.fd[RDX_PERF_TASK_CLOCK], -1);
	rdx_perf_close(&p);     /* twice is harmless */
}

static void
test_page_faults(void)
{
	const size_t npages = 256;
	long pg = sysconf(_SC_PAGESIZE);
	struct rdx_perf_sample a, b;
	struct rdx_perf_per_op op;
	struct rdx_perf p;
	uint8_t *mem;

	CU_ASSERT_EQUAL_FATAL(rdx_perf_open(&p, true), 0);
	if (!rdx_perf_has(&p, RDX_PERF_PAGE_FAULTS)) {
		CU_ASSERT(p.source == RDX_PERF_SRC_NONE);
		rdx_perf_close(&p);
		return;
	}
	mem = mmap(NULL, npages * (size_t)pg, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(mem != MAP_FAILED);
	madvise(mem, npages * (size_t)pg, MADV_NOHUGEPAGE);
	CU_ASSERT_EQUAL(rdx_perf_read(&p, &a), 0);
	for (size_t i = 0; i < npages; i++)
		mem[i * (size_t)pg] = 1;     /* first touch: one fault per page */
	CU_ASSERT_EQUAL(rdx_perf_read(&p, &b), 0);
	CU_ASSERT(b.value[RDX_PERF_PAGE_FAULTS] - a.value[RDX_PERF_PAGE_FAULTS] >= npages);
	rdx_perf_per_op(&a, &b, npages, &op);
	CU_ASSERT(op.page_faults >= 1.0);
	CU_ASSERT(op.cycles > 0.0);             /* TSC cycles */
	CU_ASSERT(op.instructions < 0.0);       /* not measured in SW mode */
	munmap(mem, npages * (size_t)pg);
	rdx_perf_close(&p);
}

static void
test_hw_attempt_consistent(void)
{
	struct rdx_perf_sample a, b;
	struct rdx_perf p;
	char line[160];

	CU_ASSERT_EQUAL_FATAL(rdx_perf_open(&p, false), 0);
	printf("  (this machine: source %s: %s)\n", rdx_perf_source_name(p.source),
	       rdx_perf_describe(&p, line, sizeof(line)));
	CU_ASSERT_EQUAL(rdx_perf_read(&p, &a), 0);
	busy_loop(1000 * 1000);
	CU_ASSERT_EQUAL(rdx_perf_read(&p, &b), 0);
	switch (p.source) {
	case RDX_PERF_SRC_HW:
		CU_ASSERT_EQUAL(p.hw_err, 0);
		CU_ASSERT_TRUE(rdx_perf_has(&p, RDX_PERF_CYCLES));
		if ((a.valid & b.valid & (1u << RDX_PERF_CYCLES)) != 0)
			CU_ASSERT(b.value[RDX_PERF_CYCLES] > a.value[RDX_PERF_CYCLES]);
		CU_ASSERT_PTR_NOT_NULL(strstr(line, "hardware counters"));
		break;
	case RDX_PERF_SRC_SW:
		/* Fell back, and says why. */
		CU_ASSERT(p.hw_err < 0);
		CU_ASSERT_FALSE(rdx_perf_has(&p, RDX_PERF_CYCLES));
		CU_ASSERT((b.valid & (1u << RDX_PERF_CYCLES)) == 0);
		CU_ASSERT_PTR_NOT_NULL(strstr(line, "no hardware counters"));
		CU_ASSERT_PTR_NOT_NULL(strstr(line, strerror(-p.hw_err)));
		break;
	case RDX_PERF_SRC_NONE:
		CU_ASSERT(refused(p.hw_err));
		CU_ASSERT_EQUAL(p.opened, 0);
		break;
	}
	CU_ASSERT_EQUAL(a.source, p.source);
	CU_ASSERT((b.valid & (1u << RDX_PERF_TSC)) != 0);
	rdx_perf_close(&p);
}

static void
test_per_op_arithmetic(void)
{
	struct rdx_perf_sample a, b;
	struct rdx_perf_per_op op;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.source = b.source = RDX_PERF_SRC_SW;
	a.valid = b.valid = (1u << RDX_PERF_TSC) | (1u << RDX_PERF_TASK_CLOCK) |
			    (1u << RDX_PERF_CTX_SWITCHES);
	a.value[RDX_PERF_TSC] = 1000;
	b.value[RDX_PERF_TSC] = 3000;
	a.value[RDX_PERF_TASK_CLOCK] = 10;
	b.value[RDX_PERF_TASK_CLOCK] = 510;
	a.value[RDX_PERF_CTX_SWITCHES] = 4;
	b.value[RDX_PERF_CTX_SWITCHES] = 4;
	rdx_perf_per_op(&a, &b, 100, &op);
	CU_ASSERT_EQUAL(op.source, RDX_PERF_SRC_SW);
	CU_ASSERT_DOUBLE_EQUAL(op.cycles, 20.0, 1e-9);       /* from the TSC */
	CU_ASSERT_DOUBLE_EQUAL(op.task_clock_ns, 5.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(op.ctx_switches, 0.0, 1e-9);
	CU_ASSERT(op.instructions < 0 && op.cache_misses < 0 && op.branch_misses < 0);
	CU_ASSERT(op.page_faults < 0);

	/* Hardware cycles win over the TSC when measured. */
	a.source = b.source = RDX_PERF_SRC_HW;
	a.valid |= 1u << RDX_PERF_CYCLES | 1u << RDX_PERF_INSTRUCTIONS;
	b.valid |= 1u << RDX_PERF_CYCLES | 1u << RDX_PERF_INSTRUCTIONS;
	a.value[RDX_PERF_CYCLES] = 0;
	b.value[RDX_PERF_CYCLES] = 5000;
	b.value[RDX_PERF_INSTRUCTIONS] = 250;
	rdx_perf_per_op(&a, &b, 100, &op);
	CU_ASSERT_EQUAL(op.source, RDX_PERF_SRC_HW);
	CU_ASSERT_DOUBLE_EQUAL(op.cycles, 50.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(op.instructions, 2.5, 1e-9);

	/* Measured only at one end, going backwards, or no ops: unmeasured. */
	b.valid &= ~(1u << RDX_PERF_INSTRUCTIONS);
	b.value[RDX_PERF_TASK_CLOCK] = 5;
	rdx_perf_per_op(&a, &b, 100, &op);
	CU_ASSERT(op.instructions < 0);
	CU_ASSERT(op.task_clock_ns < 0);
	rdx_perf_per_op(&a, &b, 0, &op);
	CU_ASSERT(op.cycles < 0 && op.ctx_switches < 0);
	rdx_perf_per_op(NULL, &b, 10, &op);
	CU_ASSERT(op.cycles < 0);
	rdx_perf_per_op(&a, &b, 10, NULL);      /* no crash */
}

static void
test_names(void)
{
	unsigned int i, j;

	CU_ASSERT_STRING_EQUAL(rdx_perf_source_name(RDX_PERF_SRC_HW), "hw");
	CU_ASSERT_STRING_EQUAL(rdx_perf_source_name(RDX_PERF_SRC_SW), "sw+tsc");
	CU_ASSERT_STRING_EQUAL(rdx_perf_source_name(RDX_PERF_SRC_NONE), "tsc-only");
	CU_ASSERT_STRING_EQUAL(rdx_perf_source_name((enum rdx_perf_source)7), "unknown");
	/* parse is the inverse of name, and refuses anything else. */
	for (i = RDX_PERF_SRC_NONE; i <= RDX_PERF_SRC_SW; i++) {
		enum rdx_perf_source src = (enum rdx_perf_source)7;

		CU_ASSERT_EQUAL(rdx_perf_source_parse(rdx_perf_source_name(
			(enum rdx_perf_source)i), &src), 0);
		CU_ASSERT_EQUAL(src, (enum rdx_perf_source)i);
	}
	{
		enum rdx_perf_source src = RDX_PERF_SRC_HW;

		CU_ASSERT_EQUAL(rdx_perf_source_parse("unknown", &src), -EINVAL);
		CU_ASSERT_EQUAL(rdx_perf_source_parse("HW", &src), -EINVAL);
		CU_ASSERT_EQUAL(rdx_perf_source_parse("", &src), -EINVAL);
		CU_ASSERT_EQUAL(rdx_perf_source_parse(NULL, &src), -EINVAL);
		CU_ASSERT_EQUAL(rdx_perf_source_parse("hw", NULL), -EINVAL);
		CU_ASSERT_EQUAL(src, RDX_PERF_SRC_HW);
	}
	for (i = 0; i < RDX_PERF_NB_EVENTS; i++) {
		CU_ASSERT_PTR_NOT_NULL_FATAL(rdx_perf_event_name((enum rdx_perf_event)i));
		for (j = 0; j < i; j++)
			CU_ASSERT_STRING_NOT_EQUAL(rdx_perf_event_name((enum rdx_perf_event)i),
						   rdx_perf_event_name((enum rdx_perf_event)j));
	}
	CU_ASSERT_STRING_EQUAL(rdx_perf_event_name(RDX_PERF_NB_EVENTS), "unknown");
	CU_ASSERT_EQUAL(rdx_perf_open(NULL, true), -EINVAL);
	CU_ASSERT_EQUAL(rdx_perf_read(NULL, NULL), -EINVAL);
	CU_ASSERT_FALSE(rdx_perf_has(NULL, RDX_PERF_TSC));
	rdx_perf_close(NULL);
}

/* ---------------------------------------------------- injected failures */

static int inject_hw_errno, inject_sw_errno;

static long
fake_open(struct perf_event_attr *attr)
{
	int e = attr->type == PERF_TYPE_HARDWARE ? inject_hw_errno : inject_sw_errno;

	if (e != 0) {
		errno = e;
		return -1;
	}
	return perf_sys_open_real(attr);
}

static void
test_refused_gives_tsc_only(void)
{
	struct rdx_perf_sample s;
	struct rdx_perf p;
	char line[160];

	perf_sys_open = fake_open;
	inject_hw_errno = EACCES;
	inject_sw_errno = EACCES;
	CU_ASSERT_EQUAL(rdx_perf_open(&p, false), 0);      /* not an error */
	CU_ASSERT_EQUAL(p.source, RDX_PERF_SRC_NONE);
	CU_ASSERT_EQUAL(p.opened, 0);
	CU_ASSERT_EQUAL(rdx_perf_read(&p, &s), 0);
	CU_ASSERT_EQUAL(s.valid, 1u << RDX_PERF_TSC);
	CU_ASSERT_PTR_NOT_NULL(strstr(rdx_perf_describe(&p, line, sizeof(line)), "TSC only"));
	rdx_perf_close(&p);

	/* No hardware PMU (this VM's ENOENT), software allowed. */
	inject_hw_errno = ENOENT;
	inject_sw_errno = 0;
	CU_ASSERT_EQUAL(rdx_perf_open(&p, false), 0);
	CU_ASSERT_EQUAL(p.source, RDX_PERF_SRC_SW);
	CU_ASSERT_EQUAL(p.hw_err, -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(rdx_perf_describe(&p, line, sizeof(line)),
				      "no hardware counters"));
	rdx_perf_close(&p);

	/* A real failure (out of descriptors) is reported, nothing leaks. */
	inject_hw_errno = EMFILE;
	CU_ASSERT_EQUAL(rdx_perf_open(&p, false), -EMFILE);
	inject_hw_errno = 0;
	inject_sw_errno = EMFILE;
	CU_ASSERT_EQUAL(rdx_perf_open(&p, true), -EMFILE);
	CU_ASSERT_EQUAL(p.opened, 0);
	inject_sw_errno = 0;
	perf_sys_open = perf_sys_open_real;
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "software fallback forced", test_force_sw },
		{ "page faults counted", test_page_faults },
		{ "hardware attempt consistent", test_hw_attempt_consistent },
		{ "per-op arithmetic", test_per_op_arithmetic },
		{ "names and bad arguments", test_names },
		{ "refused / unsupported / failing", test_refused_gives_tsc_only },
		{ NULL, NULL },
	};

	return rdx_ut_run("perf", cases, NULL, NULL);
}
